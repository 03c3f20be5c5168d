"""`python -m bench units`: what capping a check's findings at its units does to the code
score of the hand-labelled drafts of `bench judge` (bench/judge/), by code alone, in
seconds: the score each draft gets now beside the one it got when every must-fix
finding cost a unit of its own, and the checks that found more than their units."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from batch import config
from batch.judging import checks
from batch.loop.checking import context_of, findings_update
from bench.judge import judge_state, load_cases

CONFIG = Path(__file__).resolve().parent.parent / "config" / "briefloop.toml"


def uncapped_score(findings: list, weights: dict[str, int]) -> float:
    """The score as it was: each must-fix finding one unit, whatever its check."""
    if any(f["code"] in checks.NO_TEXT for f in findings):
        return 0.0
    units = max(sum(weights.values()), 1)
    failed = sum(1 for f in findings if f["severity"] == "must_fix")
    return round(100.0 * max(0, units - failed) / units, 1)


def main(argv: list[str]) -> None:
    settings = config.load(CONFIG, environ={})
    moved: list[float] = []
    over: Counter[str] = Counter()
    cases = load_cases()
    for case in cases:
        state = judge_state(settings, case)
        findings = findings_update(state)["findings"]
        weights = checks.weights_of(context_of(state))
        now, before = checks.score_of(findings, weights), uncapped_score(findings, weights)
        if now == before:
            continue
        moved.append(now - before)
        found = checks.must_fix_by_check(findings)
        over.update(name for name, n in found.items() if n > max(weights.get(name, 0), 1))
    print(f"{len(cases)} drafts: the code score moved in {len(moved)}")
    if moved:
        print(
            f"  by +{min(moved):.1f} to +{max(moved):.1f} points "
            f"(mean +{sum(moved) / len(moved):.1f})"
        )
        print(
            "  checks that found more than their units: "
            + ", ".join(f"{name} in {n}" for name, n in over.most_common())
        )
