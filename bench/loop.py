"""Loop vs single pass: does the writer-critic loop give a better text than one draft?

    python -m bench loop [--config FILE] [--briefs DIR ...] [--writer NAME] [--baseline]

Every brief (the examples and the judge set's briefs by default) runs through the full
loop with the configured models. The loop's first draft *is* a single writer pass (the
same prompt, the same seed), so both are read from one run: round 1's draft from the
thread's checkpoints, the loop's result from what it wrote. Both are measured by the
same code checks: requirements covered, unsupported names, numbers from no source,
prompt or instruction echo, length broken, missing facts not left as placeholders; plus
approvals, tokens, model calls and model seconds (per approved text too).
Results: bench/results/loop.csv, loop.json, loop.png, and the texts the loop wrote in
bench/results/loop-texts/ (approved ones at the top, the rest in needs-work/).

`--baseline`: each brief also runs, just before, through the loop as it was before
model-time budgets (BASELINE below), and loop-spend.md sets the two side by side:
model seconds per usable text, approvals per model second by brief kind, and each
writer step kind's tries, payoffs and seconds (steps_of).
"""

from __future__ import annotations

import argparse
import csv
import json
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

from batch import config as config_mod
from batch.inputs.briefs import Brief
from batch.inputs.sources import scan_source
from batch.judging.checklist import COVERED_KINDS
from batch.loop.checking import checklist_of, findings_update
from batch.loop.verdict import rank
from batch.models import llamacpp
from batch.outcomes import is_approved
from batch.run.runner import Runner
from batch.run.starting import start_state
from bench import expectations as by_hand
from bench.projects import NO_LIMIT, copied_project
from bench.shapes import CORPUS as SHAPES
from bench.shapes import load_corpus

REPO = Path(__file__).resolve().parent.parent
RESULTS = REPO / "bench" / "results"
# the examples, the judge set's briefs, and a fresh set written for this benchmark and
# never tuned to (bench/fresh/README.md)
DEFAULT_BRIEFS = [
    REPO / "examples" / "briefs",
    REPO / "bench" / "judge" / "briefs",
    REPO / "bench" / "fresh" / "briefs",
    REPO / "bench" / "fresh" / "sources",
    REPO / "bench" / "heldout" / "briefs",
    REPO / "bench" / "heldout" / "sources",
]
EXPECTATIONS = by_hand.load_all()
METRICS = (
    "covered",
    "requirements",
    "names",
    "numbers",
    "echo",
    "length",
    "missing_gap",
    "must_fix",
)


def measure(
    settings: config_mod.Settings, brief: Brief, text: str, needs: list[dict[str, str]]
) -> dict[str, int]:
    """What the code checks find in one text of one brief."""
    state, _ = start_state(settings, brief)
    state.update(draft=text, needs_from_human=needs)
    findings = findings_update(state)["findings"]
    must = [f["code"] for f in findings if f["severity"] == "must_fix"]
    required = [r for r in checklist_of(state) if r["kind"] in COVERED_KINDS | {"missing"}]

    def count(*prefixes: str) -> int:
        return sum(1 for c in must if c.split(":")[0] in prefixes)

    return {
        "covered": len(required) - count("uncovered", "missing-placeholder"),
        "requirements": len(required),
        "names": count("name"),
        "numbers": count("number"),
        "echo": count("echo"),
        "length": count("too-long", "too-short"),
        "missing_gap": count("missing-placeholder", "gap-told"),
        "must_fix": len(must),
    }


def first_round(runner: Runner, thread_id: str) -> dict[str, Any]:
    """The state right after the first round's verdict: the single pass (its draft, and
    the model calls it took: the writer's and the critic's)."""
    cfg = runner.config_for(thread_id)
    for snapshot in runner.graph.get_state_history(cfg):  # newest first
        values = snapshot.values
        if (
            values.get("round") == 1
            and values.get("draft")
            and len(values.get("score_history", [])) == 1
        ):
            return values
    raise RuntimeError(f"{thread_id}: no first round in the checkpoints")


# The loop as it was before it had a budget, grammar-last decoding, a rule against
# rewrites that do not pay and a critic of code checks alone: what `--baseline` runs
# first, in the same process.
BASELINE = {
    "models.writer.grammar_last": False,
    "models.critic.grammar_last": False,
    "loop.spend": "every_round",
    "loop.max_model_seconds": NO_LIMIT,
    "models.critic_mode": "advice",
}


class Arm:
    """One way of running the loop (the shipped config, or it with more overrides) in a
    project of its own, its rows gathered brief by brief."""

    def __init__(
        self,
        name: str,
        config: str | None,
        brief_dirs: list[Path],
        writer: str | None,
        overrides: dict[str, Any],
        keep_texts: bool,
        texts: str = "loop",
    ):
        self.name, self.keep_texts, self.texts = name, keep_texts, texts
        self.work = copied_project(
            brief_dirs, Path(config) if config else None, prefix="briefloop-loop-"
        )
        flat: dict[str, Any] = {
            "paths.root": str(self.work),
            "loop.review": "never",
            "log.format": "none",
            "run.max_hours": NO_LIMIT,
            **overrides,
        }
        if writer:
            flat["models.writer.model"] = writer
        self.settings = config_mod.load(self.work / "briefloop.toml", overrides=flat, environ={})
        self.briefs = [
            b
            for b in scan_source(str(self.work / "briefs"), 1_000_000).briefs
            if isinstance(b, Brief)
        ]
        self.rows: list[dict[str, Any]] = []
        self.reading: list[str] = []
        self.runner = Runner(self.settings)

    def result(self) -> dict[str, Any]:
        return summarise(self.runner.models.labels(), self.rows)

    def process(self, brief: Brief) -> str:
        """One brief through the loop, its rows added; a line saying how it went."""
        runner, settings = self.runner, self.settings
        started = time.perf_counter()
        result = runner.process(brief)
        seconds = time.perf_counter() - started
        values = runner.snapshot(result.thread_id).values
        if result.outcome == "error" or not values.get("draft"):
            self.rows.append(
                {
                    "brief": brief.id,
                    "mode": "loop",
                    "outcome": "error",
                    "expected": 0,
                    "usable": 0,
                    "broken": ["no text"],
                }
            )
            return f"{self.name} {brief.id}: {result.outcome} {result.error}"
        first = first_round(runner, result.thread_id)
        calls = values.get("calls", [])
        first_calls = first.get("calls", [])
        single = measure(settings, brief, first["draft"], first.get("needs_from_human", []))
        body = Path(values["output_path"]).read_text(encoding="utf-8").split("---\n", 2)[2]
        final_needs = (values.get("final") or {}).get("needs", [])
        loop = measure(settings, brief, body.strip(), final_needs)
        by_hand = expected(brief.id, first["draft"], body, result.outcome, single["must_fix"] == 0)
        self.reading.append(reading_entry(brief, result.outcome, body, by_hand))
        self.rows.append(
            {
                "brief": brief.id,
                "mode": "single pass",
                "outcome": "-",
                "rounds": 1,
                **single,
                **by_hand["single"],
                "tokens": sum(c["input_tokens"] + c["output_tokens"] for c in first_calls),
                "seconds": round(sum(c["seconds"] for c in first_calls), 1),
                "calls": len(first_calls),
                "approved": int(single["must_fix"] == 0),
            }
        )
        self.rows.append(
            {
                "brief": brief.id,
                "mode": "loop",
                "outcome": result.outcome,
                "rounds": values.get("round", 0),
                **loop,
                **by_hand["loop"],
                "tokens": sum(c["input_tokens"] + c["output_tokens"] for c in calls),
                "seconds": round(sum(c["seconds"] for c in calls), 1),
                "calls": len(calls),
                "wall_seconds": round(seconds, 1),
                "approved": int(is_approved(result.outcome)),
                "kind": brief.kind,
                "steps": steps_of(values),
                # what the steps were read from, to be read again
                "writer_log": values.get("writer_log", []),
                "score_history": values.get("score_history", []),
                "must_fix_history": values.get("must_fix_history", []),
            }
        )
        if self.keep_texts:
            (RESULTS / f"{self.texts}-reading.md").write_text(
                reading_page(self.reading), encoding="utf-8"
            )
        return (
            f"{self.name} {brief.id}: single {single} | loop {result.outcome} {loop} "
            f"({seconds:.0f}s, {self.rows[-1]['seconds']} model s)"
        )

    def close(self) -> None:
        self.runner.close()
        # what the loop wrote, to be read as its readers would read it
        texts = RESULTS / f"{self.texts}-texts"
        if self.keep_texts:
            shutil.rmtree(texts, ignore_errors=True)
            if (self.work / "output").is_dir():
                shutil.copytree(
                    self.work / "output", texts, ignore=shutil.ignore_patterns("runs.*", ".*")
                )
        shutil.rmtree(self.work, ignore_errors=True)


def run(
    config: str | None,
    brief_dirs: list[Path],
    writer: str | None,
    save=lambda results: None,
    baseline: bool = False,
    texts: str = "loop",
) -> dict[str, dict[str, Any]]:
    """Every brief through the shipped loop, and first through the baseline's too when
    asked: brief by brief, so that both meet the machine as it is at that moment.
    `save` gets the results so far after each brief (a long run stopped part way keeps
    what it measured). Returns each arm's result by name."""
    RESULTS.mkdir(parents=True, exist_ok=True)
    arms = (
        [Arm("baseline", config, brief_dirs, writer, BASELINE, keep_texts=False)]
        if baseline
        else []
    )
    arms.append(Arm("shipped", config, brief_dirs, writer, {}, keep_texts=True, texts=texts))
    try:
        briefs = arms[-1].briefs
        for i, brief in enumerate(briefs, 1):
            for arm in arms:
                print(f"[{i}/{len(briefs)}] {arm.process(brief)}", flush=True)
            save({arm.name: arm.result() for arm in arms})
        return {arm.name: arm.result() for arm in arms}
    finally:
        for arm in arms:
            arm.close()
        llamacpp.unload_all()


def steps_of(values: dict[str, Any]) -> list[dict[str, Any]]:
    """Each writer step of a thread, what it cost and whether it paid: a repair whether
    the checks kept it; a whole draft (first, rewrite, docs) whether its round's text
    became the best so far (a higher score, or as high with fewer must_fix: the
    verdict's own rule). The critic's calls are one step per thread."""
    scores = values.get("score_history", [])
    musts = values.get("must_fix_history", [])

    def ranked(i: int) -> tuple[float, int]:
        return rank(scores[i], musts[i] if i < len(musts) else [])

    def best_after(r: int) -> bool:  # round r's text became the best so far
        if r < 1 or r > len(scores):
            return False
        return all(ranked(r - 1) > ranked(i) for i in range(r - 1))

    out: list[dict[str, Any]] = []
    unpaid_whole: set[int] = set()
    for entry in values.get("writer_log", []):
        r, kind = entry.get("round", 0), entry.get("kind", "")
        if kind == "repairs":
            for a in entry.get("attempts", []):
                # what a text adds is repaired apart: its own line in the table
                what = " (addition)" if a.get("code", "").startswith("adds:") else ""
                out.append(
                    {
                        "step": f"repair{what}: {a['action']} by {a['by']}",
                        "round": r,
                        "calls": a.get("calls", 0),
                        "seconds": a.get("seconds", 0.0),
                        "paid": bool(a["kept"]),
                    }
                )
            continue
        if r <= 1:
            name = "first draft" if kind != "docs by name" else "first docs"
        else:
            again = "docs again" if kind == "docs by name" else "rewrite"
            rolled_back = any(
                e.get("round") == r and e.get("kind") == "repairs"
                for e in values.get("writer_log", [])
            )
            name = (
                f"{again} after an unpaid {again}"
                if r - 1 in unpaid_whole
                else f"{again} after repairs all rolled back"
                if rolled_back
                else f"{again}, nothing to repair"
            )
        paid = best_after(r)
        if r > 1 and not paid:
            unpaid_whole.add(r)
        out.append(
            {
                "step": name,
                "round": r,
                "calls": entry.get("calls", 0),
                "seconds": entry.get("seconds", 0.0),
                "paid": paid,
            }
        )
    critic = [c for c in values.get("calls", []) if c.get("role") == "critic"]
    if critic:
        out.append(
            {
                "step": "critic",
                "round": 0,
                "calls": len(critic),
                "seconds": round(sum(c["seconds"] for c in critic), 3),
                "paid": True,
            }
        )
    return out


def by_step(rows: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Every writer step kind of the loop's rows: how often it was tried and paid, and
    its model seconds per paying try."""
    kinds: dict[str, dict[str, Any]] = {}
    for row in rows:
        for step in row.get("steps", []):
            k = kinds.setdefault(step["step"], {"tried": 0, "paid": 0, "calls": 0, "seconds": 0.0})
            k["tried"] += 1
            k["paid"] += int(step["paid"])
            k["calls"] += step["calls"]
            k["seconds"] = round(k["seconds"] + step["seconds"], 1)
    for k in kinds.values():
        k["seconds_per_paid"] = round(k["seconds"] / k["paid"], 1) if k["paid"] else None
    return dict(sorted(kinds.items(), key=lambda kv: -kv[1]["seconds"]))


def expected(
    brief_id: str, first: str, final: str, outcome: str, first_passed: bool
) -> dict[str, dict[str, Any]]:
    """Both texts of a brief by its hand-written expectations (bench/expect/), which
    the checks the loop optimises never see: whether each meets every one, and whether
    it is usable (approved or waiting for a person, and meeting them). An approved
    text that breaks one is one a careful reader would not sign off."""
    exp = EXPECTATIONS.get(brief_id)
    if exp is None:
        return {"single": {}, "loop": {}}
    out = {}
    for mode, text, ended in (
        ("single", first, "approved" if first_passed else "refused"),
        ("loop", final, outcome),
    ):
        problems = by_hand.broken(exp, text)
        out[mode] = {
            "expected": int(not problems),
            "usable": int(by_hand.usable(ended, problems)),
            "approved_broken": int(is_approved(ended) and bool(problems)),
            "broken": problems,
        }
    return out


def reading_entry(
    brief: Brief, outcome: str, text: str, by_hand_result: dict[str, dict[str, Any]]
) -> str:
    """A brief and what the loop made of it, side by side, for a person to read."""
    problems = by_hand_result.get("loop", {}).get("broken")
    verdict = (
        "no expectations written"
        if problems is None
        else "meets every expectation"
        if not problems
        else "breaks: " + "; ".join(problems)
    )
    source = brief.text if brief.kind != "source" else f"(source file {brief.origin})"
    quoted = "\n".join("> " + ln for ln in source.strip().splitlines())
    return (
        f"## {brief.id}: {outcome}\n\n{verdict}\n\n**Brief**\n\n{quoted}\n\n"
        f"**Text**\n\n{text.strip()}\n"
    )


def reading_page(entries: list[str]) -> str:
    return (
        "# What the loop wrote, beside each brief\n\nWritten by `python -m bench loop`; "
        "each text is judged by its hand-written expectations (bench/expect/).\n\n"
        + "\n---\n\n".join(entries)
    )


def summarise(labels: dict[str, str], rows: list[dict[str, Any]]) -> dict[str, Any]:
    totals = {}
    for mode in ("single pass", "loop"):
        mine = [r for r in rows if r["mode"] == mode]
        totals[mode] = {
            k: sum(r.get(k, 0) for r in mine)
            for k in (
                *METRICS,
                "tokens",
                "seconds",
                "calls",
                "approved",
                "expected",
                "usable",
                "approved_broken",
            )
        }
        totals[mode]["briefs"] = len(mine)
        approved = totals[mode]["approved"]
        # what an approved text costs in model time: more rounds must pay for themselves
        totals[mode]["seconds_per_approved"] = (
            round(totals[mode]["seconds"] / approved, 1) if approved else None
        )
        if totals[mode]["usable"]:
            totals[mode]["seconds_per_usable"] = round(
                totals[mode]["seconds"] / totals[mode]["usable"], 1
            )
    briefs = len({r["brief"] for r in rows})
    loop_rows = [r for r in rows if r["mode"] == "loop"]
    by_kind = {}
    for kind in sorted({r.get("kind", "text") for r in loop_rows}):
        mine = [r for r in loop_rows if r.get("kind", "text") == kind]
        seconds = sum(r.get("seconds", 0) for r in mine)
        by_kind[kind] = {
            "briefs": len(mine),
            "seconds": round(seconds, 1),
            "approved": sum(r.get("approved", 0) for r in mine),
            "usable": sum(r.get("usable", 0) for r in mine),
            "approved_per_1000_s": round(
                1000 * sum(r.get("approved", 0) for r in mine) / seconds, 2
            )
            if seconds
            else None,
        }
    return {
        "models": labels,
        "briefs": briefs,
        "totals": totals,
        "rows": rows,
        "by_brief_kind": by_kind,
        "by_step": by_step(loop_rows),
    }


def chart(result: dict[str, Any], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    keys = ["covered", "names", "numbers", "echo", "length", "missing_gap", "approved"]
    labels = [
        "requirements\ncovered",
        "invented\nnames",
        "numbers from\nno source",
        "prompt /\ninstruction echo",
        "length\nbroken",
        "missing fact\nnot a placeholder",
        "texts\napproved",
    ]
    single = [result["totals"]["single pass"][k] for k in keys]
    loop = [result["totals"]["loop"][k] for k in keys]
    fig, ax = plt.subplots(figsize=(10, 4.5))
    xs = range(len(keys))
    ax.bar([x - 0.2 for x in xs], single, 0.4, label="single writer pass")
    ax.bar([x + 0.2 for x in xs], loop, 0.4, label="writer-critic loop")
    ax.set_xticks(list(xs), labels, fontsize=8)
    total = result["totals"]["loop"]["requirements"]
    models = ", ".join(f"{k}={v}" for k, v in result["models"].items())
    ax.set_title(f"{result['briefs']} briefs, {total} requirements in all ({models})", fontsize=9)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)  # the chart is drawn again after every brief


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m bench loop",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--config", help="config file (default: config/briefloop.toml)")
    parser.add_argument(
        "--briefs",
        nargs="*",
        type=Path,
        default=DEFAULT_BRIEFS,
        help="folders of briefs (default: examples and the judge set)",
    )
    parser.add_argument("--writer", help="a packaged embedded model for the writer")
    parser.add_argument(
        "--baseline",
        action="store_true",
        help="also run the loop as it was before model-time budgets "
        "(grammar-first decoding, every round spent, no budget), each "
        "brief through both in turn, in the same process; compared in "
        "loop-spend.md",
    )
    parser.add_argument(
        "--shapes",
        nargs="?",
        const=SHAPES,
        type=Path,
        help="run the first shape of each brief of a shape corpus instead (default "
        "bench/shapes/); results as loop-shapes.*",
    )
    parser.add_argument("--name", help="the results' name, bench/results/<name>.* (default: loop)")
    args = parser.parse_args(argv)
    name = args.name or ("loop" if not args.writer else f"loop-{args.writer}")
    if args.shapes:
        args.briefs = [first_shapes(args.shapes)]
        name = f"{name}-shapes" if args.shapes == SHAPES else f"{name}-{args.shapes.name}"

    def save(results: dict[str, dict[str, Any]]) -> None:
        write(results["shipped"], name)
        if "baseline" in results:
            write(results["baseline"], f"{name}-baseline")
            (RESULTS / f"{name}-spend.md").write_text(
                spend_page(results["baseline"], results["shipped"]), encoding="utf-8"
            )

    results = run(
        args.config, args.briefs, args.writer, save=save, baseline=args.baseline, texts=name
    )
    save(results)
    print(json.dumps(results["shipped"]["totals"], indent=2))


def first_shapes(corpus: Path) -> Path:
    """A folder of the first shape of each brief of a shape corpus (bench/shapes/), each
    named by its brief: what `--shapes` runs, judged by bench/expect/<id>.yaml."""
    folder = Path(tempfile.mkdtemp(prefix="briefloop-shapes-"))
    for brief in load_corpus(corpus):
        shutil.copy(brief.shape_path(brief.shapes[0]), folder / f"{brief.id}.md")
    return folder


def spend_page(before: dict[str, Any], after: dict[str, Any]) -> str:
    """The baseline and the shipped loop side by side: model seconds per usable text,
    approvals per model second by brief kind, and what each writer step kind cost and
    how often it paid."""
    b, a = before["totals"]["loop"], after["totals"]["loop"]

    def per(t: dict[str, Any], key: str) -> str:
        return f"{t['seconds'] / t[key]:.1f}" if t[key] else "-"

    lines = [
        "# Where the model time goes: the loop before and after budgets",
        "",
        f"{after['briefs']} briefs, one process, each brief run by the baseline and "
        f"then by the shipped loop (`python -m bench loop --baseline`). Usable: by "
        "the hand-written "
        "expectations (bench/expect/).",
        "",
        "| | model s | approved | usable | model s per usable | model s per approved |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for label, t in (("baseline", b), ("shipped", a)):
        lines.append(
            f"| {label} | {t['seconds']:.1f} | {t['approved']} | {t['usable']} | "
            f"{per(t, 'usable')} | {per(t, 'approved')} |"
        )
    if b["usable"] and a["usable"] and a["seconds"]:
        ratio = (a["seconds"] / a["usable"]) / (b["seconds"] / b["usable"])
        change = (
            f"{(1 - ratio) * 100:.0f} % less" if ratio <= 1 else f"{(ratio - 1) * 100:.0f} % more"
        )
        lines += [
            "",
            f"Model seconds per usable text: {ratio:.2f} of the baseline's "
            f"({change}); usable texts {b['usable']} -> {a['usable']}.",
        ]
    lines += [
        "",
        "## Approvals per 1,000 model seconds, by brief kind",
        "",
        "| brief kind | baseline | shipped |",
        "|---|---:|---:|",
    ]
    for kind in sorted(set(before["by_brief_kind"]) | set(after["by_brief_kind"])):
        cells = [
            str((r["by_brief_kind"].get(kind) or {}).get("approved_per_1000_s", "-"))
            for r in (before, after)
        ]
        lines.append(f"| {kind} | {cells[0]} | {cells[1]} |")
    lines += [
        "",
        "## Writer steps: tried, paid, model seconds",
        "",
        "A repair pays when the checks keep it; a whole draft when its round's text "
        "becomes the best so far.",
        "",
        "| step | baseline tried | paid | model s | s per paid | shipped tried | paid "
        "| model s | s per paid |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for step in list(dict.fromkeys([*before["by_step"], *after["by_step"]])):
        cells = []
        for r in (before, after):
            k = r["by_step"].get(step)
            cells += (
                [
                    str(k["tried"]),
                    str(k["paid"]),
                    f"{k['seconds']:.1f}",
                    str(k["seconds_per_paid"] or "-"),
                ]
                if k
                else ["0", "-", "-", "-"]
            )
        lines.append(f"| {step} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def write(result: dict[str, Any], name: str) -> None:
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / f"{name}.json").write_text(json.dumps(result, indent=2) + "\n")
    fields = [
        "brief",
        "mode",
        "outcome",
        "rounds",
        *METRICS,
        "approved",
        "expected",
        "usable",
        "approved_broken",
        "tokens",
        "seconds",
        "calls",
    ]
    with (RESULTS / f"{name}.csv").open("w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=fields, extrasaction="ignore")
        w.writeheader()
        w.writerows(result["rows"])
    chart(result, RESULTS / f"{name}.png")
