"""Small, local repairs of a draft, driven by what the code checks found.

    must_fix findings, each with the Repair its check describes
      -> candidates: made by code (drop a sentence, a placeholder sentence) or asked of
         the writer model (one sentence, one paragraph: a short JSON string)
      -> spliced into the draft by code -> judged again by the same checks
      -> kept only when the checks then find strictly less: the must_fix codes after
         are a strict subset of those before (a repair that fixes one problem and makes
         another is rolled back, so the best draft so far is never lost)

A small model does small tasks well and whole rewrites badly; the checks are the
verifier that tells a good candidate from a bad one, so each model task is sampled a
few times (another seed, a warmer temperature) and the first candidate the checks
accept is kept. Nothing here calls a model or runs a check itself: `judge` and `ask`
are given, so the whole procedure is tested without either.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Literal

from batch.check_types import Finding, Repair
from batch.loop.routing import repairable
from batch.loop.writing.candidates import Ask, Candidates, Judge
from batch.loop.writing.kept import Attempt, Repaired, better, must_fix
from batch.loop.writing.splicing import Needs, needs_for

_LENGTH_ACTIONS = ("shorten", "lengthen")


def subject_of(repair: Repair) -> str:
    """What a repair is about, in the draft's or the brief's own words: the fact to
    state, the sentence at fault, the words replaced, the placeholder, the limit."""
    if repair.get("fact"):
        return repair["fact"]
    if repair.get("placeholder"):
        return repair["placeholder"]
    if repair.get("old"):
        return f"{repair['old']} → {repair.get('new', '')}"
    if repair.get("new"):
        return repair["new"]
    if repair.get("words"):
        return f"{repair['words']} words"
    return " ".join(repair.get("sentences") or [])


@dataclass
class Repairer:
    """Carries out the repairs the findings describe, one finding at a time (`run`):
    candidates by code first, then by the model (`ask`), each judged by `judge` and kept
    only when the must-fix codes shrink. It calls no model and runs no check itself, so
    the whole procedure is tested with plain functions."""

    judge: Judge
    ask: Ask
    samples: int = 2  # model answers tried per task before giving up on it
    max_tasks: int = 8  # findings tried per call (each costs up to `samples` model calls)
    # the model questions asked so far and their seconds: each attempt is charged its own
    _calls: int = field(default=0, init=False, repr=False)
    _seconds: float = field(default=0.0, init=False, repr=False)
    _candidates: Candidates = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self._candidates = Candidates(self.judge, self._ask, self.samples)

    def _ask(self, draft: str, task: str, sample: int, words: int) -> str | None:
        started = time.perf_counter()
        try:
            return self.ask(draft, task, sample, words)
        finally:
            self._calls += 1
            self._seconds += time.perf_counter() - started

    def run(self, draft: str, needs: Needs, findings: list[Finding]) -> Repaired:
        """Every must_fix finding with a repair tried once, each on the draft as the
        repairs before it left it: what the text says first, in the checks' order, and
        its length last (a fact stated after the cut would make it too long again)."""
        state = Repaired(draft, needs_for(draft, needs), findings, [])
        tried: set[str] = set()
        while len(tried) < self.max_tasks:
            todo = [f for f in state.findings if repairable(f) and f["code"] not in tried]
            if not todo:
                break
            # what must be fixed, and what the brief asked that the text may not tell,
            # before what only a person would be shown; length last
            finding = min(
                todo,
                key=lambda f: (
                    f["severity"] != "must_fix" and not f["code"].startswith("uncovered:"),
                    f["repair"]["action"] in _LENGTH_ACTIONS,
                ),
            )
            tried.add(finding["code"])
            self._repair(state, finding)
        return state

    def _repair(self, state: Repaired, finding: Finding) -> None:
        repair: Repair = finding["repair"]
        action = repair["action"]
        by: Literal["code", "model"] = "code"
        calls, seconds = self._calls, self._seconds
        for by, make in self._candidates.of(state.draft, repair, state.findings):
            for candidate in make():
                if candidate is None or candidate.strip() == state.draft.strip():
                    continue
                needs = needs_for(candidate, state.needs)
                after = self.judge(candidate, needs)
                if action not in _LENGTH_ACTIONS and not better(state.findings, after):
                    # a fact stated that takes the text over its limit: made room for
                    # by code, cutting only what loses nothing, else rolled back
                    candidate, after = self._room_made(candidate, needs, state, after)
                if better(state.findings, after):
                    fixed = sorted(must_fix(state.findings) - must_fix(after))
                    said = {f["code"]: f["message"] for f in state.findings}
                    state.attempts.append(
                        Attempt(
                            finding["code"],
                            action,
                            by,
                            True,
                            fixed,
                            finding["message"],
                            subject_of(repair),
                            [said[c] for c in fixed if c in said],
                            *self._spent_since(calls, seconds),
                        )
                    )
                    state.draft, state.needs, state.findings = candidate, needs, after
                    return
        spent_calls, spent_seconds = self._spent_since(calls, seconds)
        state.attempts.append(
            Attempt(
                finding["code"],
                action,
                by,
                False,
                problem=finding["message"],
                subject=subject_of(repair),
                calls=spent_calls,
                seconds=spent_seconds,
            )
        )

    def _spent_since(self, calls: int, seconds: float) -> tuple[int, float]:
        return self._calls - calls, round(self._seconds - seconds, 3)

    def _room_made(
        self, candidate: str, needs: Needs, state: Repaired, after: list[Finding]
    ) -> tuple[str, list[Finding]]:
        too_long = next((f for f in after if f["code"] == "too-long"), None)
        if (
            too_long is None
            or "too-long" in must_fix(state.findings)
            or must_fix(after) - must_fix(state.findings) != {"too-long"}
        ):
            return candidate, after
        repair = too_long.get("repair") or {}
        cut, within = self._candidates.cut_by_code(
            candidate, repair.get("words", 0), after, frozenset(repair.get("keep", ()))
        )
        if not within:
            return candidate, after
        return cut, self.judge(cut, needs_for(cut, needs))
