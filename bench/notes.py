"""Notes handed back as the text: does the share of a text's words in the brief's notes,
as they stand, tell the pasted texts from the written ones?

    python -m bench notes [--json FILE]

The texts of bench/notes/, each labelled by hand before any signal was computed on them
(`pasted` or `written`, and each line `note` or `text`; its README says how). Measured
with the check's own code (batch.judging.checks.notes):

- per line: the lines it counts as notes against the lines labelled `note`;
- per text: the AUC of the share (the chance that a random pasted text has a higher
  share than a random written one, ties half), and for each threshold the pasted and
  written texts it would hold (the one the check uses is marked); the share is 0 where
  the brief asks for a kind of text made of labelled lines, a menu or a listing, as the
  check does not run there;
- with every check of today (the loop's verdict, code checks as the critic, the shipped
  config): the pasted and the written texts approved, with and without this check.

Results: bench/results/notes.json and .md.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

import yaml

from batch import config as config_mod
from batch.judging.checklist import brief_checklist
from batch.judging.checks import notes
from bench.additions import auc
from bench.projects import brief_from_text, copied_project, judged_as_draft
from bench.reporting import results_args, save_results

REPO = Path(__file__).resolve().parent.parent
TEXTS = REPO / "bench" / "notes"
RESULTS = REPO / "bench" / "results"
THRESHOLDS = (0.3, 0.4, 0.5, 0.6, 0.7, 0.8)


def labelled_texts(folder: Path = TEXTS) -> list[dict[str, Any]]:
    out = []
    for path in sorted(folder.glob("*.yaml")):
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        for n, text in enumerate(data["texts"], start=1):
            out.append(
                {
                    "name": f"{path.stem}#{n}",
                    "brief": data["brief"],
                    "label": text["label"],
                    "lines": [(line["say"], line["line"]) for line in text["lines"]],
                    "draft": "\n\n".join(line["say"] for line in text["lines"]),
                }
            )
    return out


def measure(texts: list[dict[str, Any]]) -> dict[str, Any]:
    lines = {"note_caught": 0, "note": 0, "text_caught": 0, "text": 0}
    shares: dict[str, list[float]] = {"pasted": [], "written": []}
    rows = []
    for t in texts:
        found, share = notes.note_units(t["draft"], t["brief"])
        # a kind of text made of labelled lines (a menu, a listing) is never held for them
        if notes.list_form_asked(brief_checklist(t["brief"])):
            share = 0.0
        shares[t["label"]].append(share)
        rows.append({"text": t["name"], "label": t["label"], "share": round(share, 2)})
        for say, label in t["lines"]:
            caught = any(unit in say for unit in found)
            lines[label] += 1
            lines[f"{label}_caught"] += caught
    return {
        "texts": len(texts),
        "labels": {k: len(v) for k, v in shares.items()},
        "lines": lines,
        "auc_share": round(auc(shares["pasted"], shares["written"]), 3),
        "by_threshold": [
            {
                "threshold": th,
                "pasted_held": sum(s >= th for s in shares["pasted"]),
                "written_held": sum(s >= th for s in shares["written"]),
            }
            for th in THRESHOLDS
        ],
        "threshold_used": notes.NOTES_SHARE,
        "rows": rows,
    }


def with_every_check(texts: list[dict[str, Any]]) -> dict[str, Any]:
    """The loop's verdict on each text as if the writer had returned it: approved or not,
    and approved were it not for this check's holds."""
    project = copied_project([], prefix="briefloop-notes-")
    settings = config_mod.load(project / "briefloop.toml")
    out = {
        "pasted_approved": [],
        "written_approved": [],
        "pasted_approved_without": [],
        "written_approved_without": [],
    }
    with tempfile.TemporaryDirectory() as tmp:
        for t in texts:
            brief_id = f"notes-{t['name'].replace('#', '-')}"
            brief = brief_from_text(Path(tmp), brief_id, t["brief"])
            state, judged = judged_as_draft(settings, brief, t["draft"])
            holds = [f for f in state["findings"] if f["severity"] == "hold"]
            others = [f for f in holds if not f["code"].startswith("notes:")]
            if judged["meets_bar"] and not holds:
                out[f"{t['label']}_approved"].append(t["name"])
            if judged["meets_bar"] and not others:
                out[f"{t['label']}_approved_without"].append(t["name"])
    return out


def markdown(result: dict[str, Any]) -> str:
    lines = [
        "# Notes handed back: the share of a text's words in the brief's notes",
        "",
        f"{result['texts']} texts of 13 briefs written as notes, labelled by hand: "
        f"{result['labels']}. Per line: {result['lines']}. AUC of the share, pasted against "
        f"written: {result['auc_share']}.",
        "",
        "| share >= | pasted held | written held |",
        "|---|---|---|",
    ]
    for row in result["by_threshold"]:
        mark = " (used)" if row["threshold"] == result["threshold_used"] else ""
        lines.append(
            f"| {row['threshold']}{mark} | {row['pasted_held']} of {result['labels']['pasted']} "
            f"| {row['written_held']} of {result['labels']['written']} |"
        )
    every = result["every_check"]
    lines += [
        "",
        "With every check of today (approved by the machine):",
        f"- pasted texts: {len(every['pasted_approved'])} "
        f"({', '.join(every['pasted_approved']) or 'none'}); without this check "
        f"{len(every['pasted_approved_without'])}",
        f"- written texts: {len(every['written_approved'])}; without this check "
        f"{len(every['written_approved_without'])}",
    ]
    return "\n".join(lines) + "\n"


def main(argv: list[str]) -> int:
    json_path = results_args("python -m bench notes", __doc__, RESULTS / "notes.json", argv)
    texts = labelled_texts()
    result = measure(texts)
    result["every_check"] = with_every_check(texts)
    save_results(result, json_path, markdown(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(__import__("sys").argv[1:]))
