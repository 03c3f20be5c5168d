"""Briefs nobody tuned to: does the verdict approve careful texts and stop wrong ones?

    python -m bench unseen [--half tune|heldout|both] [--json FILE] [--rows]

The briefs of bench/unseen/ are in shapes the other sets lack (dictated notes, e-mail
threads, tables, forms, one-liners, numbered steps, two languages...), each with two
correct texts written by hand and defective variants of one defect each, labelled
before any signal was computed on them (bench/unseen/README.md). The set is split in
two halves: `tune/`, whose items may be read while the checks change, and `heldout/`,
read only in aggregate: its rows are never printed or written, only its counts, so a
change cannot be fitted to its items.

Each text is judged as `briefloop check` judges it (batch.run.text_check): approved,
held for a person, or refused. Per half: correct texts approved / held / refused,
defective texts by defect, and which checks refuse the correct texts (by check, not by
item). `--rows` prints the tune half's texts one per line, with the findings.

Results: bench/results/unseen.json and .md.
"""

from __future__ import annotations

import argparse
import tempfile
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml

from batch import config as config_mod
from batch.run.text_check import judge_text
from bench.projects import brief_from_text, copied_project
from bench.reporting import save_results

REPO = Path(__file__).resolve().parent.parent
CORPUS = REPO / "bench" / "unseen"
RESULTS = REPO / "bench" / "results"
HALVES = ("tune", "heldout")
OUTCOMES = ("approved", "held", "refused")
# the defects the done-when line allows none of approved
NEVER_APPROVED = {
    "pasted",
    "reworded_lines",
    "invented_body",
    "invented_greeting",
    "invented_signoff",
    "act_denied",
}


def load_half(half: str) -> list[tuple[str, dict[str, Any]]]:
    return [
        (p.stem, yaml.safe_load(p.read_text(encoding="utf-8")))
        for p in sorted((CORPUS / half).glob("*.yaml"))
    ]


def finding_class(finding: dict[str, Any], verdict: Any) -> str:
    """A finding's check, and for an item not covered the kind of item: what the
    held-out half may show of why a text was refused, without its items."""
    check, _, rest = finding["code"].partition(":")
    if check == "uncovered":
        kinds = {r["id"]: r["kind"] for r in verdict.state.get("checklist", [])}
        return f"uncovered-{kinds.get(rest, '?')}"
    return check


def judge_half(
    settings: Any,
    half: str,
    folder: Path,
    read: Callable[[str, str], frozenset[str] | None] | None = None,
) -> tuple[dict[str, Any], list[dict]]:
    """Each text of `half` judged; `read(half, name)`: a second reading's values for a
    brief's readers (bench/reading_model.py), or None for the rules' reading alone."""
    correct: Counter[str] = Counter()
    defective: dict[str, Counter[str]] = {}
    refusing_checks: Counter[str] = Counter()  # correct texts refused, by the check
    holding_checks: Counter[str] = Counter()
    rows: list[dict[str, Any]] = []
    briefs = 0
    for name, data in load_half(half):
        briefs += 1
        brief = brief_from_text(
            folder,
            name,
            str(data["brief"]),
            data.get("rubric", "memo"),
            max_words=data.get("max_words"),
            min_words=data.get("min_words"),
        )
        values = read(half, name) if read else None
        for n, t in enumerate(data["texts"], start=1):
            v = judge_text(settings, brief, str(t["text"]), values)
            label = t["label"]
            if label == "correct":
                correct[v.outcome] += 1
                if v.outcome == "refused":
                    refusing_checks.update({finding_class(f, v) for f in v.must_fix})
                if v.outcome == "held":
                    holding_checks.update({finding_class(f, v) for f in v.holds})
            else:
                defective.setdefault(t["defect"], Counter())[v.outcome] += 1
            rows.append(
                {
                    "text": f"{name}#{n}",
                    "label": label if label == "correct" else t["defect"],
                    "outcome": v.outcome,
                    "score": v.score,
                    "must_fix": [f["message"] for f in v.must_fix],
                    "holds": [f["message"] for f in v.holds],
                }
            )
    all_defective: Counter[str] = sum(defective.values(), Counter())
    summary = {
        "briefs": briefs,
        "correct": {k: correct[k] for k in OUTCOMES},
        "defective": {k: all_defective[k] for k in OUTCOMES},
        "by_defect": {d: {k: c[k] for k in OUTCOMES} for d, c in sorted(defective.items())},
        "correct_refused_by": dict(refusing_checks.most_common()),
        "correct_held_by": dict(holding_checks.most_common()),
    }
    return summary, rows


def share(part: int, whole: int) -> str:
    return f"{part}/{whole} ({100 * part / whole:.0f} %)" if whole else "0/0"


def markdown(result: dict[str, Any]) -> str:
    lines = ["# Briefs nobody tuned to (bench/unseen)", ""]
    for half, s in result["halves"].items():
        c, d = s["correct"], s["defective"]
        nc, nd = sum(c.values()), sum(d.values())
        never = sum(v["approved"] for k, v in s["by_defect"].items() if k in NEVER_APPROVED)
        lines += [
            f"## {half}: {s['briefs']} briefs",
            "",
            "| | texts | approved | held | refused |",
            "|---|---:|---:|---:|---:|",
            f"| correct | {nc} | {c['approved']} | {c['held']} | {c['refused']} |",
            f"| defective | {nd} | {d['approved']} | {d['held']} | {d['refused']} |",
            "",
            f"- correct not refused: {share(c['approved'] + c['held'], nc)}; "
            f"approved outright: {share(c['approved'], nc)}",
            f"- defective not approved: {share(d['held'] + d['refused'], nd)}; pasted, "
            f"reworded, invented or denied approved: {never}",
            "",
            "| defect | texts | approved | held | refused |",
            "|---|---:|---:|---:|---:|",
            *[
                f"| {k} | {sum(v.values())} | {v['approved']} | {v['held']} | {v['refused']} |"
                for k, v in s["by_defect"].items()
            ],
            "",
            "Checks refusing correct texts (texts): "
            + (", ".join(f"{k} {n}" for k, n in s["correct_refused_by"].items()) or "none"),
            "",
            "Checks holding correct texts (texts): "
            + (", ".join(f"{k} {n}" for k, n in s["correct_held_by"].items()) or "none"),
            "",
        ]
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bench unseen",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--half", choices=(*HALVES, "both"), default="both")
    parser.add_argument("--json", type=Path, default=RESULTS / "unseen.json")
    parser.add_argument("--rows", action="store_true", help="print the tune half's texts")
    args = parser.parse_args(argv)
    project = copied_project([], prefix="briefloop-unseen-")
    settings = config_mod.load(project / "briefloop.toml")
    halves = HALVES if args.half == "both" else (args.half,)
    result: dict[str, Any] = {"halves": {}}
    with tempfile.TemporaryDirectory() as tmp:
        for half in halves:
            folder = Path(tmp) / half
            folder.mkdir()
            summary, rows = judge_half(settings, half, folder)
            result["halves"][half] = summary
            if half == "tune":
                result["tune_rows"] = rows  # the held-out half's rows are never kept
                if args.rows:
                    for r in rows:
                        print(f"{r['text']} [{r['label']}] {r['outcome']} {r['score']}")
                        for m in r["must_fix"]:
                            print(f"    MUST {m}")
                        for m in r["holds"]:
                            print(f"    HOLD {m}")
    save_results(result, args.json, markdown(result))
    return 0
