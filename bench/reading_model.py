"""The brief as read: do the rules, or the model restating the brief, find the values a
text must give on briefs nobody tuned to?

    python -m bench reading-model [--model NAME] [--half tune|heldout|both]

A text is held to the values (figures, dates, times, amounts, addresses, product codes)
of the items its brief is read into. Two readings, side by side, on bench/unseen:

- rules: the values of the fact and ask items the code reads (batch.judging.checklist),
  without those a correction took back or only a message's frame gives;
- model: the writer model restates the brief as the facts its readers must be told,
  what to leave out and what is not known (prompt: bench/reading_model.md); code keeps
  each value of its facts only where the brief gives it, without those a correction
  took back.

Each is measured against the labels (each brief's `expect:`, written before any check
read it): of the values a reading demands, how many the labelled facts give
(precision), how many of the labelled facts' values it demands (recall), and how many
are values the brief says to leave out or replaces (leaks: a careful text that leaves
them out is held for it). The held-out half is reported in aggregate only. Results:
bench/results/reading-model.json and .md; each brief's model answer is kept in
bench/results/reading-model-answers.json so a rerun asks only for new briefs.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from batch import config as config_mod
from batch.judging.checklist import brief_checklist
from batch.models.base import CallStat, ask
from batch.models.pool import ModelSet
from batch.reading.corrections import stale
from batch.reading.values import item_values, values_said
from bench.projects import copied_project
from bench.reporting import save_results
from bench.unseen import HALVES, NEVER_APPROVED, judge_half, load_half

REPO = Path(__file__).resolve().parent.parent
RESULTS = REPO / "bench" / "results"
PROMPT = Path(__file__).with_name("reading_model.md")


class Reading(BaseModel):
    """The brief restated: what the readers must be told, leave out, and is not known."""

    facts: list[str]
    leave_out: list[str]
    unknowns: list[str]


def values_of(lines: list[str], taken_back: frozenset[str]) -> set[str]:
    return {v for line in lines for v in item_values(line, taken_back)}


def rules_values(brief: str) -> set[str]:
    taken = stale(brief)
    items = [r["text"] for r in brief_checklist(brief) if r["kind"] in ("fact", "ask")]
    return values_of(items, taken)


def model_values(reading: Reading, brief: str) -> set[str]:
    """The values of the model's facts that the brief gives (code checks every one)."""
    given = values_said(brief)
    return {v for v in values_of(reading.facts, stale(brief)) if v in given}


def score(demanded: set[str], facts: set[str], leave: set[str]) -> dict[str, int]:
    return {
        "demanded": len(demanded),
        "labelled": len(facts),
        "right": len(demanded & facts),
        "leaks": len(demanded & leave),
    }


def add(total: dict[str, int], part: dict[str, int]) -> None:
    for k, v in part.items():
        total[k] = total.get(k, 0) + v


def ratios(t: dict[str, int]) -> dict[str, Any]:
    return {
        **t,
        "precision": round(t["right"] / t["demanded"], 3) if t.get("demanded") else None,
        "recall": round(t["right"] / t["labelled"], 3) if t.get("labelled") else None,
    }


def run(model_name: str | None, halves: tuple[str, ...]) -> dict[str, Any]:
    settings = config_mod.load(
        REPO / "config" / "briefloop.toml", overrides={"log.format": "none"}, environ={}
    )
    if model_name:
        settings.models.writer.model = model_name
    models = ModelSet(settings.models, settings.path(settings.paths.model_cache))
    writer = models.get("writer")
    cache_path = RESULTS / "reading-model-answers.json"
    cache: dict[str, Any] = json.loads(cache_path.read_text()) if cache_path.exists() else {}
    system = PROMPT.read_text(encoding="utf-8")
    result: dict[str, Any] = {"model": writer.name, "halves": {}}
    seconds: list[float] = []
    read_values: dict[tuple[str, str], frozenset[str]] = {}
    for half in halves:
        totals: dict[str, dict[str, int]] = {"rules": {}, "model": {}}
        rows = []
        for name, data in load_half(half):
            brief = str(data["brief"])
            key = f"{writer.name}:{half}/{name}"
            if key not in cache:
                stats: list[CallStat] = []
                started = time.perf_counter()
                answer = ask(
                    writer,
                    "reader",
                    [{"role": "system", "content": system}, {"role": "user", "content": brief}],
                    Reading,
                    stats,
                    max_tokens=700,
                )
                seconds.append(time.perf_counter() - started)
                cache[key] = answer.model_dump()
                cache_path.write_text(json.dumps(cache, indent=1) + "\n", encoding="utf-8")
            reading = Reading.model_validate(cache[key])
            read = frozenset(model_values(reading, brief))
            read_values[half, name] = read
            expect = data.get("expect") or {}
            given = values_said(brief)
            facts = values_of([str(x) for x in expect.get("facts") or []], frozenset()) & given
            leave = values_of([str(x) for x in expect.get("leave_out") or []], frozenset())
            leave = (leave & given) - facts
            parts = {
                "rules": score(rules_values(brief), facts, leave),
                "model": score(set(read), facts, leave),
            }
            for way, part in parts.items():
                add(totals[way], part)
            rows.append({"brief": name, **parts})
        result["halves"][half] = {way: ratios(t) for way, t in totals.items()}
        if half == "tune":
            result["tune_rows"] = rows  # the held-out half's rows are never kept
    result["model_seconds_per_brief"] = round(sum(seconds) / len(seconds), 1) if seconds else None
    result["verdicts"] = verdicts(read_values, halves)
    return result


def verdicts(
    read_values: dict[tuple[str, str], frozenset[str]], halves: tuple[str, ...]
) -> dict[str, Any]:
    """bench/unseen judged twice: with the rules' reading alone, and with a missing value
    held only where the model's reading (`read_values`, by half and brief) gives it too
    (a value only the rules demand is advice)."""
    settings = config_mod.load(copied_project([], prefix="briefloop-reading-") / "briefloop.toml")

    def read(half: str, name: str) -> frozenset[str] | None:
        return read_values.get((half, name))

    out: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for half in halves:
            for way, reader in (("rules", None), ("rules and model", read)):
                folder = Path(tmp) / f"{half}-{len(out)}"
                folder.mkdir()
                summary, _ = judge_half(settings, half, folder, reader)
                never = sum(
                    c["approved"] for d, c in summary["by_defect"].items() if d in NEVER_APPROVED
                )
                out[f"{half}, {way}"] = {
                    "correct": summary["correct"],
                    "defective": summary["defective"],
                    "pasted_invented_denied_approved": never,
                }
    return out


def markdown(result: dict[str, Any]) -> str:
    lines = [
        "# The brief as read: rules against the model restating it (bench/reading_model.py)",
        "",
        f"Model: {result['model']}; model seconds per brief: "
        f"{result['model_seconds_per_brief'] or 'none asked (its answers were kept)'}",
        "",
        "| half | reading | values demanded | precision | recall | leaks |",
        "|---|---|---:|---:|---:|---:|",
    ]
    for half, ways in result["halves"].items():
        for way, t in ways.items():
            lines.append(
                f"| {half} | {way} | {t['demanded']} | {t['precision']} | {t['recall']} "
                f"| {t['leaks']} |"
            )
    if result.get("verdicts"):
        lines += [
            "",
            "Verdicts on bench/unseen (a value missing held: by the rules' reading, or only "
            "where the model's reading gives it too):",
            "",
            "| half, reading | correct approved | held | refused | defective approved "
            "| pasted, invented, denied approved |",
            "|---|---:|---:|---:|---:|---:|",
        ]
        for key, v in result["verdicts"].items():
            c, d = v["correct"], v["defective"]
            lines.append(
                f"| {key} | {c['approved']} | {c['held']} | {c['refused']} | "
                f"{d['approved']} of {sum(d.values())} | {v['pasted_invented_denied_approved']} |"
            )
    return "\n".join(lines) + "\n"


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bench reading-model",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--model", help="packaged model name or .gguf path (default: writer)")
    parser.add_argument("--half", choices=(*HALVES, "both"), default="both")
    args = parser.parse_args(argv)
    halves = HALVES if args.half == "both" else (args.half,)
    result = run(args.model, halves)
    save_results(result, RESULTS / "reading-model.json", markdown(result))
    return 0
