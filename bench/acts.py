"""Texts whose kind is an act: does the Acts check tell the texts that do it from the
ones that do not?

    python -m bench acts [--json FILE]

The texts of bench/acts/, each labelled by hand before any signal was computed on them
(`does`, `misses`, or `none` for a brief that names no act; its README says how). Per
text: whether the check (batch.judging.checks.acts) finds the act missing. With every
check of today (the loop's verdict, code checks as the critic, the shipped config): the
texts of each label approved by the machine, with and without this check. And on the
texts the loop wrote (bench/additions/labels/), the briefs that name an act and the
texts the check refuses, for a person to read.

Results: bench/results/acts.json and .md.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

import yaml

from batch import config as config_mod
from batch.inputs.briefs import load_brief_file
from batch.judging.checklist import brief_checklist
from batch.judging.checks.acts import acts_asked, check_acts
from bench.projects import brief_from_text, copied_project, judged_as_draft
from bench.reporting import results_args, save_results

REPO = Path(__file__).resolve().parent.parent
TEXTS = REPO / "bench" / "acts"
LOOP_TEXTS = REPO / "bench" / "additions" / "labels"
RESULTS = REPO / "bench" / "results"
LABELS = ("does", "misses", "none")


def measure() -> dict[str, Any]:
    project = copied_project([], prefix="briefloop-acts-")
    settings = config_mod.load(project / "briefloop.toml")
    flagged = {k: 0 for k in LABELS}
    count = {k: 0 for k in LABELS}
    approved = {k: [] for k in LABELS}
    approved_without = {k: [] for k in LABELS}
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for path in sorted(TEXTS.glob("*.yaml")):
            data = yaml.safe_load(path.read_text(encoding="utf-8"))
            brief = brief_from_text(Path(tmp), f"acts-{path.stem}", data["brief"])
            for n, text in enumerate(data["texts"], start=1):
                label = text["label"]
                state, judged = judged_as_draft(settings, brief, text["text"])
                missing = check_acts(text["text"], state["checklist"], brief.text)
                count[label] += 1
                flagged[label] += bool(missing)
                refusing = [f for f in state["findings"] if f["severity"] in ("must_fix", "hold")]
                name = f"{path.stem}#{n}"
                if judged["meets_bar"] and not refusing:
                    approved[label].append(name)
                # the verdict without this check: its finding out, its unit off the score
                others = [f for f in refusing if not f["code"].startswith("act:")]
                if not others and (judged["meets_bar"] or missing):
                    approved_without[label].append(name)
                rows.append({"text": name, "label": label, "flagged": bool(missing)})
    return {
        "texts": sum(count.values()),
        "labels": count,
        "flagged": flagged,
        "approved": approved,
        "approved_without": approved_without,
        "rows": rows,
    }


def loop_texts() -> dict[str, Any]:
    """The loop's own texts: which briefs name an act, which texts the check refuses."""
    named, refused = [], []
    for path in sorted(LOOP_TEXTS.glob("*.yaml")):
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        brief = load_brief_file(REPO / data["brief"], 1 << 20)
        checklist = brief_checklist(brief.text)
        if not acts_asked(checklist, brief.text):
            continue
        named.append(path.stem)
        draft = "\n".join(s["say"] for s in data["sentences"])
        for f in check_acts(draft, checklist, brief.text):
            refused.append({"text": path.stem, "finding": f["message"]})
    return {
        "texts": len(list(LOOP_TEXTS.glob("*.yaml"))),
        "naming_an_act": named,
        "refused": refused,
    }


def markdown(result: dict[str, Any]) -> str:
    lines = [
        "# Acts: a thank-you note thanks, an apology apologises",
        "",
        f"{result['texts']} texts of 12 briefs, labelled by hand: {result['labels']}.",
        "",
        "| label | texts | the check finds the act missing | approved by the machine | "
        "approved without this check |",
        "|---|---|---|---|---|",
    ]
    for label in LABELS:
        lines.append(
            f"| {label} | {result['labels'][label]} | {result['flagged'][label]} | "
            f"{len(result['approved'][label])} | {len(result['approved_without'][label])} |"
        )
    loop = result["loop"]
    lines += [
        "",
        f"The loop's own texts ({loop['texts']}): {len(loop['naming_an_act'])} briefs name an "
        f"act; the check refuses {len(loop['refused'])} texts:",
        *[f"- {r['text']}: {r['finding']}" for r in loop["refused"]],
    ]
    return "\n".join(lines) + "\n"


def main(argv: list[str]) -> int:
    json_path = results_args("python -m bench acts", __doc__, RESULTS / "acts.json", argv)
    result = measure()
    result["loop"] = loop_texts()
    save_results(result, json_path, markdown(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(__import__("sys").argv[1:]))
