"""Does the writer invent less? Ways of writing a first draft, side by side.

    python -m bench invent [--briefs N] [--variants a,b,...]

Each brief's first draft is written once per variant with the embedded writer, in one
process, and judged by the loop's own checks (batch.judging.record). Reported per
variant: sentences the Additions check flags per text (words no source gives; per
sentence it separates invented from supported at AUC 0.90 on bench/additions' labels),
texts with none, texts the checks pass outright (no must-fix, no hold), texts with no
must-fix (usable after a person's look), and model seconds. Variants:

- `baseline`: the shipped prompts and sampling;
- `plain`: the same, and a plain-style instruction with a short example
  (bench/invent/plain.md);
- `cold`: the shipped prompts at temperature 0 (the shipped writer samples at 0.4);
- `itemwise`: one plain sentence per checklist item, asked for in one call as a
  numbered list, joined by code (bench/invent/itemwise.md).

The briefs: the text briefs of `bench loop` and the first shape of the shape corpus,
in name order, N spread evenly over them. Results: bench/results/invent.json and .md.
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import time
from pathlib import Path
from string import Template
from typing import Any

import yaml

from batch import config as config_mod
from batch.inputs.briefs import Brief, load_brief_file
from batch.loop.checking import findings_of
from batch.models import CallStat, ModelSet, Sampling, write
from batch.prompting import writer_messages
from batch.run.starting import start_state
from batch.thread_inputs import brief_of
from bench.loop import DEFAULT_BRIEFS

REPO = Path(__file__).resolve().parent.parent
RESULTS = REPO / "bench" / "results"
PROMPTS = REPO / "bench" / "invent"
VARIANTS = ("baseline", "plain", "cold", "itemwise")
_NUMBERED = re.compile(r"^\s*\d+[.)]\s*(.+?)\s*$")


def briefs(limit: int) -> list[Brief]:
    found: list[Brief] = []
    for folder in DEFAULT_BRIEFS:
        for path in sorted(folder.glob("*.md")):
            brief = load_brief_file(path, 1_000_000)
            if brief.kind != "source":
                found.append(brief)
    for expect in sorted((REPO / "bench" / "expect").glob("*.yaml")):
        path = REPO / yaml.safe_load(expect.read_text(encoding="utf-8"))["brief"]
        if "shapes" in path.parts:
            found.append(load_brief_file(path, 1_000_000))
    found.sort(key=lambda b: b.id)
    return found[:: max(1, len(found) // limit)][:limit]


def messages_for(variant: str, state: dict[str, Any]) -> list[dict[str, str]]:
    messages = writer_messages(state)
    if variant == "plain":
        extra = (PROMPTS / "plain.md").read_text(encoding="utf-8")
        messages[-1] = {**messages[-1], "content": messages[-1]["content"] + "\n\n" + extra}
    elif variant == "itemwise":
        items = [r for r in state["checklist"] if r["kind"] in ("fact", "ask", "gap", "missing")]
        task = Template((PROMPTS / "itemwise.md").read_text(encoding="utf-8")).substitute(
            brief=brief_of(state).text,
            items="\n".join(f"{n}. {r['text']}" for n, r in enumerate(items, start=1)),
        )
        messages = [messages[0], {"role": "user", "content": task}]
    return messages


def joined(answer: str, state: dict[str, Any]) -> str:
    """An itemwise answer as a text: its numbered sentences in one paragraph, and the
    signature the brief asks for on a line of its own."""
    said = [m.group(1) for line in answer.splitlines() if (m := _NUMBERED.match(line))]
    text = " ".join(said) if said else answer.strip()
    signs = [r["subject"] for r in state["checklist"] if r["kind"] == "sign"]
    return text + ("\n\n" + signs[0] if signs else "")


def run(limit: int, variants: tuple[str, ...]) -> dict[str, Any]:
    settings = config_mod.load(
        REPO / "config" / "briefloop.toml", overrides={"log.format": "none"}, environ={}
    )
    models = ModelSet(settings.models, settings.path(settings.paths.model_cache))
    writer = models.get("writer")
    rows = []
    for brief in briefs(limit):
        state, _ = start_state(settings, brief)
        for variant in variants:
            stats: list[CallStat] = []
            sampling = Sampling(temperature=0.0, seed=0) if variant == "cold" else None
            started = time.perf_counter()
            answer = write(writer, "writer", messages_for(variant, state), stats, sampling)
            seconds = time.perf_counter() - started
            draft = joined(answer, state) if variant == "itemwise" else answer.strip()
            made = findings_of(state, draft, [])
            found = made["findings"]
            rows.append(
                {
                    "brief": brief.id,
                    "variant": variant,
                    "seconds": round(seconds, 2),
                    "sentences": len(made["support"]),
                    "additions": sum(1 for f in found if f["code"].startswith("adds:")),
                    "must_fix": sum(1 for f in found if f["severity"] == "must_fix"),
                    "holds": sum(1 for f in found if f["severity"] == "hold"),
                    "draft": draft,
                }
            )
            print(
                {k: v for k, v in rows[-1].items() if k != "draft"},
                flush=True,
            )
    summary = {}
    for variant in variants:
        mine = [r for r in rows if r["variant"] == variant]
        summary[variant] = {
            "texts": len(mine),
            "additions_per_text": round(statistics.mean(r["additions"] for r in mine), 2),
            "texts_without_additions": sum(1 for r in mine if r["additions"] == 0),
            "texts_passing_outright": sum(
                1 for r in mine if r["must_fix"] == 0 and r["holds"] == 0
            ),
            "texts_without_must_fix": sum(1 for r in mine if r["must_fix"] == 0),
            "model_seconds": round(sum(r["seconds"] for r in mine), 1),
        }
    return {"model": writer.name, "summary": summary, "rows": rows}


def markdown(result: dict[str, Any]) -> str:
    lines = [
        "# Does the writer invent less? First drafts by variant",
        "",
        f"Writer: {result['model']}. One first draft per brief and variant, judged by the "
        "loop's checks.",
        "",
        "| variant | texts | flagged sentences per text | texts with none | pass outright | "
        "no must-fix | model s |",
        "|---|---|---|---|---|---|---|",
    ]
    for variant, s in result["summary"].items():
        lines.append(
            f"| {variant} | {s['texts']} | {s['additions_per_text']} | "
            f"{s['texts_without_additions']} | {s['texts_passing_outright']} | "
            f"{s['texts_without_must_fix']} | {s['model_seconds']} |"
        )
    return "\n".join(lines) + "\n"


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bench invent",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--briefs", type=int, default=20, help="how many briefs (20)")
    parser.add_argument("--variants", default=",".join(VARIANTS))
    args = parser.parse_args(argv)
    variants = tuple(v for v in args.variants.split(",") if v)
    unknown = set(variants) - set(VARIANTS)
    if unknown:
        parser.error(f"unknown variant(s): {', '.join(sorted(unknown))}")
    result = run(args.briefs, variants)
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "invent.json").write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    (RESULTS / "invent.md").write_text(markdown(result), encoding="utf-8")
    print(markdown(result))
    return 0
