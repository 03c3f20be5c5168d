"""How the embedded model decodes: grammar-first vs grammar-last sampling, and
prompt-lookup decoding, side by side in one process.

    python -m bench decode [--briefs DIR ...] [--lookup N] [--variants a,b,c]

Every brief (the examples by default) runs through the whole loop once per variant,
each in a project of its own, at temperature 0 so that the variants can be compared
text for text:

- `grammar-first`: llama-cpp-python's own sampler chain (the grammar over the whole
  vocabulary at every token), the baseline;
- `grammar-last`: the grammar checked on the chosen token only
  (batch.models.grammar_sampling);
- `grammar-last+lookup`: that, and prompt-lookup decoding (`lookup_tokens`).

Per variant: model seconds, output tokens, tokens per model second, approvals, texts
usable by the hand-written expectations (bench/expect/), model seconds per usable text,
and whether each brief's text and score history are those of the baseline.
Results: bench/results/decode.json and decode.md.
"""

from __future__ import annotations

import argparse
import json
import shutil
import time
from pathlib import Path
from typing import Any

from batch import config as config_mod
from batch.inputs.briefs import Brief
from batch.inputs.sources import scan_source
from batch.models import llamacpp
from batch.outcomes import is_approved
from batch.run.runner import Runner
from bench import expectations as by_hand
from bench.projects import NO_LIMIT, copied_project
from bench.run import machine

REPO = Path(__file__).resolve().parent.parent
RESULTS = REPO / "bench" / "results"
EXPECTATIONS = by_hand.load_all()
VARIANTS = {
    "grammar-first": {"grammar_last": False, "lookup_tokens": 0},
    "grammar-last": {"grammar_last": True, "lookup_tokens": 0},
    "grammar-last+lookup": {"grammar_last": True, "lookup_tokens": 10},
}


def run_variant(name: str, decoding: dict[str, Any], brief_dirs: list[Path]) -> dict[str, Any]:
    work = copied_project(brief_dirs, prefix="briefloop-decode-")
    overrides: dict[str, Any] = {
        "paths.root": str(work),
        "loop.review": "never",
        "log.format": "none",
        "loop.max_model_seconds": NO_LIMIT,
        "run.max_hours": NO_LIMIT,
    }
    for role in ("writer", "critic"):
        overrides[f"models.{role}.temperature"] = 0.0
        for key, value in decoding.items():
            overrides[f"models.{role}.{key}"] = value
    settings = config_mod.load(work / "briefloop.toml", overrides=overrides, environ={})
    briefs = [
        b for b in scan_source(str(work / "briefs"), 1_000_000).briefs if isinstance(b, Brief)
    ]
    rows = []
    with Runner(settings) as runner:
        for brief in briefs:
            started = time.perf_counter()
            result = runner.process(brief)
            values = runner.snapshot(result.thread_id).values
            calls = values.get("calls", [])
            text = ""
            if values.get("output_path"):
                text = (
                    Path(values["output_path"])
                    .read_text(encoding="utf-8")
                    .split("---\n", 2)[2]
                    .strip()
                )
            exp = EXPECTATIONS.get(brief.id)
            problems = by_hand.broken(exp, text) if exp is not None else []
            rows.append(
                {
                    "brief": brief.id,
                    "outcome": result.outcome,
                    "rounds": values.get("round", 0),
                    "score_history": list(values.get("score_history", [])),
                    "calls": len(calls),
                    "output_tokens": sum(c["output_tokens"] for c in calls),
                    "model_seconds": round(sum(c["seconds"] for c in calls), 1),
                    "wall_seconds": round(time.perf_counter() - started, 1),
                    "approved": int(is_approved(result.outcome)),
                    "usable": int(exp is not None and by_hand.usable(result.outcome, problems)),
                    "text": text,
                }
            )
            print(
                f"{name}: {brief.id} {result.outcome} {rows[-1]['model_seconds']} model s",
                flush=True,
            )
    shutil.rmtree(work, ignore_errors=True)
    llamacpp.unload_all()  # each variant's models are its own; free them
    return summarise(rows)


def summarise(rows: list[dict[str, Any]]) -> dict[str, Any]:
    seconds = sum(r["model_seconds"] for r in rows)
    tokens = sum(r["output_tokens"] for r in rows)
    usable = sum(r["usable"] for r in rows)
    return {
        "rows": rows,
        "model_seconds": round(seconds, 1),
        "output_tokens": tokens,
        "tokens_per_second": round(tokens / seconds, 2) if seconds else None,
        "approved": sum(r["approved"] for r in rows),
        "usable": usable,
        "seconds_per_usable": round(seconds / usable, 1) if usable else None,
    }


def compare(result: dict[str, Any], baseline: dict[str, Any]) -> dict[str, Any]:
    """Which briefs wrote the baseline's text and score history."""
    base = {r["brief"]: r for r in baseline["rows"]}
    same = [
        r["brief"]
        for r in result["rows"]
        if r["brief"] in base
        and r["text"] == base[r["brief"]]["text"]
        and r["score_history"] == base[r["brief"]]["score_history"]
    ]
    return {
        "identical": same,
        "different": [r["brief"] for r in result["rows"] if r["brief"] not in same],
    }


def markdown(result: dict[str, Any]) -> str:
    names = list(result["variants"])
    base = result["variants"][names[0]]
    lines = [
        "| variant | model s | output tokens | tokens / model s | approved | usable "
        "(by hand) | model s per usable | vs baseline | same text as baseline |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---|",
    ]
    for name in names:
        v = result["variants"][name]
        ratio = (
            f"{base['model_seconds'] / v['model_seconds']:.2f}x faster"
            if (v["model_seconds"] and name != names[0])
            else "-"
        )
        same = v.get("same", {})
        same_text = (
            (
                f"{len(same['identical'])}/{len(v['rows'])}"
                + (f" (differs: {', '.join(same['different'])})" if same["different"] else "")
            )
            if same
            else "-"
        )
        lines.append(
            f"| {name} | {v['model_seconds']} | {v['output_tokens']} | "
            f"{v['tokens_per_second']} | {v['approved']}/{len(v['rows'])} | "
            f"{v['usable']} | {v['seconds_per_usable']} | {ratio} | {same_text} |"
        )
    return "\n".join(lines) + "\n"


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m bench decode",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--briefs",
        action="append",
        type=Path,
        help="a folder of briefs (repeatable); default: examples/briefs",
    )
    parser.add_argument(
        "--lookup", type=int, default=10, help="draft tokens of the lookup variant (default 10)"
    )
    parser.add_argument(
        "--variants",
        default=",".join(VARIANTS),
        help="which variants, in order; the first is the baseline",
    )
    args = parser.parse_args(argv)
    brief_dirs = args.briefs or [REPO / "examples" / "briefs"]
    chosen = [v.strip() for v in args.variants.split(",") if v.strip()]
    unknown = [v for v in chosen if v not in VARIANTS]
    if unknown:
        parser.error(f"unknown variant(s) {unknown}; known: {', '.join(VARIANTS)}")
    result: dict[str, Any] = {
        "machine": machine(),
        "briefs": [str(d) for d in brief_dirs],
        "temperature": 0.0,
        "variants": {},
    }
    for name in chosen:
        decoding = dict(VARIANTS[name])
        if decoding["lookup_tokens"]:
            decoding["lookup_tokens"] = args.lookup
        result["variants"][name] = run_variant(name, decoding, brief_dirs)
        if name != chosen[0]:
            result["variants"][name]["same"] = compare(
                result["variants"][name], result["variants"][chosen[0]]
            )
        RESULTS.mkdir(parents=True, exist_ok=True)
        (RESULTS / "decode.json").write_text(json.dumps(result, indent=1))
    table = markdown(result)
    (RESULTS / "decode.md").write_text(table)
    print(table)
