"""API docs checked against the code: does an approved doc ever show a wrong example
result, a wrong signature, a missing public name or an invented one?

    python -m bench docs [--config FILE] [--no-models]

1. Judged docs (no model): the labelled drafts of the Python sources in bench/judge/
   (correct ones and one-defect variants) through the checks node, examples run in the
   sandbox: which are approved, per defect class, and seconds per verification.
2. The loop (the configured models): the source files in examples/ and in the judge set
   documented by briefloop itself; every approved doc is then audited independently —
   its examples run again, its signatures and names compared with the AST, every public
   name looked for — and anything wrong in an approved doc is counted.

Results: bench/results/docs.json and docs.md.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from batch import config as config_mod
from batch.judging import doc_examples
from batch.judging.apidocs import check_api_docs
from batch.judging.checklist import source_checklist
from batch.judging.checks import facts
from batch.loop import checking
from batch.outcomes import is_approved
from batch.run.runner import Runner
from bench.judge import judge_state, load_cases

REPO = Path(__file__).resolve().parent.parent
RESULTS = REPO / "bench" / "results"
SOURCES = [
    *sorted((REPO / "examples" / "sources").glob("*.py")),
    REPO / "examples" / "briefs" / "slugify.py",
    *sorted((REPO / "bench" / "judge" / "briefs").glob("*.py")),
]


def audit(doc: str, source: Path) -> dict[str, Any]:
    """What is wrong with a doc of `source`, found by running and parsing the code."""
    text = source.read_text(encoding="utf-8")
    started = time.perf_counter()
    run = doc_examples.verify(doc, text, source.stem, source)
    seconds = time.perf_counter() - started
    api = check_api_docs(doc, text, source.stem)
    uncovered = facts.check_requirements(doc, source_checklist(text))
    return {
        "wrong_example": [f["message"] for f in run.findings if f["code"] != "example-none"],
        "no_example": any(f["code"] == "example-none" for f in run.findings),
        "wrong_signature": [f["message"] for f in api if f["code"].startswith("api-signature")],
        "invented_name": [f["message"] for f in api if f["code"].startswith("api-invented")],
        "missing_name": [f["message"] for f in uncovered],
        "verification": run.note,
        "verify_seconds": round(seconds, 3),
    }


def judged(settings: config_mod.Settings) -> dict[str, Any]:
    cases = [c for c in load_cases() if c["brief"].kind == "source"]
    rows, seconds = [], []
    for case in cases:
        state = judge_state(settings, case)
        started = time.perf_counter()
        update = checking.findings_update(state)
        seconds.append(time.perf_counter() - started)
        must = sorted({f["code"] for f in update["findings"] if f["severity"] == "must_fix"})
        rows.append(
            {
                "name": case["name"],
                "expect": case["expect"],
                "defect": case["defect"],
                "approved": not must,
                "fired": must,
                "verification": update.get("verification", ""),
            }
        )
    wrongly_approved = [r["name"] for r in rows if r["approved"] and r["expect"] == "reject"]
    wrongly_rejected = [r["name"] for r in rows if not r["approved"] and r["expect"] == "approve"]
    by_class: dict[str, str] = {}
    for defect in sorted({r["defect"] for r in rows} - {"none"}):
        of = [r for r in rows if r["defect"] == defect]
        by_class[defect] = f"{sum(not r['approved'] for r in of)}/{len(of)} rejected"
    good = [r for r in rows if r["expect"] == "approve"]
    bad = [r for r in rows if r["expect"] == "reject"]
    return {
        "drafts": len(rows),
        "correct_approved": f"{sum(r['approved'] for r in good)}/{len(good)}",
        "defective_rejected": f"{sum(not r['approved'] for r in bad)}/{len(bad)}",
        "by_class": by_class,
        "wrongly_approved": wrongly_approved,
        "wrongly_rejected": wrongly_rejected,
        "seconds_per_check_median": round(statistics.median(seconds), 3),
        "rows": rows,
    }


def loop(settings: config_mod.Settings) -> dict[str, Any]:
    rows = []
    with tempfile.TemporaryDirectory(prefix="briefloop-bench-docs-") as tmp:
        project = Path(tmp)
        folder = project / "sources"
        folder.mkdir()
        for source in SOURCES:
            shutil.copyfile(source, folder / source.name)
        local = settings.model_copy(
            update={
                "paths": settings.paths.model_copy(
                    update={
                        "root": str(project),
                        "checkpoints": "state/checkpoints.sqlite",
                        "runs": "state/runs.sqlite",
                        "output": "output",
                        "rubrics": str(REPO / "rubrics"),
                        "house_rules": str(REPO / "house_rules"),
                    }
                ),
                "log": settings.log.model_copy(update={"format": "none", "gsheet": None}),
            }
        )
        started = time.perf_counter()
        with Runner(local) as runner:
            summary = runner.run(folder)
        seconds = time.perf_counter() - started
        for r in summary.results:
            rec = r.record or {}
            row: dict[str, Any] = {
                "source": r.brief_id,
                "outcome": r.outcome,
                "score": rec.get("score"),
                "error": r.error or None,
                "verification": rec.get("verification", ""),
            }
            path = rec.get("output_path")
            if path and Path(path).exists():
                doc = Path(path).read_text(encoding="utf-8").split("---\n", 2)[-1]
                source = folder / f"{r.brief_id}.py"
                row["audit"] = audit(doc, source)
            rows.append(row)
    approved = [r for r in rows if is_approved(r["outcome"])]
    bad = [
        r["source"]
        for r in approved
        if any(
            r["audit"][k]
            for k in ("wrong_example", "wrong_signature", "invented_name", "missing_name")
        )
        or r["audit"]["no_example"]
    ]
    return {
        "sources": len(rows),
        "approved": len(approved),
        "approved_with_a_defect": bad,
        "seconds": round(seconds, 1),
        "models": {"writer": local.models.writer.label, "critic": local.models.critic.label},
        "rows": rows,
    }


def table(result: dict[str, Any]) -> str:
    j = result["judged"]
    lines = [
        "# API docs checked against the code",
        "",
        f"Judged docs ({j['drafts']} drafts of 3 Python sources, no model): correct "
        f"approved {j['correct_approved']}, defective rejected {j['defective_rejected']}, "
        f"median {j['seconds_per_check_median']} s per check (examples run in the "
        f"sandbox included).",
        "",
        "| defect | rejected |",
        "|---|---|",
    ]
    lines += [f"| {k} | {v} |" for k, v in j["by_class"].items()]
    lines += [
        "",
        f"Wrongly approved: {', '.join(j['wrongly_approved']) or 'none'}.",
        f"Wrongly rejected: {', '.join(j['wrongly_rejected']) or 'none'}.",
    ]
    if "loop" in result:
        lo = result["loop"]
        lines += [
            "",
            f"The loop ({lo['models']['writer']} writer, {lo['models']['critic']} "
            f"critic), {lo['sources']} sources, {lo['seconds']} s: "
            f"{lo['approved']} approved; approved with a defect: "
            f"{', '.join(lo['approved_with_a_defect']) or 'none'}.",
            "",
            "| source | outcome | score | verification | audit of the written doc |",
            "|---|---|---|---|---|",
        ]
        for r in lo["rows"]:
            a = r.get("audit") or {}
            found = [
                k
                for k in ("wrong_example", "wrong_signature", "invented_name", "missing_name")
                if a.get(k)
            ] + (["no_example"] if a.get("no_example") else [])
            lines.append(
                f"| {r['source']} | {r['outcome']} | {r['score']} | "
                f"{r['verification'] or r.get('error') or ''} | "
                f"{', '.join(found) or ('clean' if a else '')} |"
            )
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m bench docs", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("--config", help="config file (default: the shipped one)")
    parser.add_argument(
        "--no-models", action="store_true", help="only the judged docs; do not run the loop"
    )
    args = parser.parse_args(argv)
    settings = config_mod.load(args.config or REPO / "config" / "briefloop.toml")
    result: dict[str, Any] = {"judged": judged(settings)}
    if not args.no_models:
        result["loop"] = loop(settings)
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "docs.json").write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    (RESULTS / "docs.md").write_text(table(result), encoding="utf-8")
    print(table(result))


if __name__ == "__main__":
    main()
