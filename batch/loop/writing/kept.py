"""When a repair is kept: the checks find strictly less after it than before. And the
record of the repairs tried (Attempt) and of the draft they left (Repaired)."""

from __future__ import annotations

from collections import Counter
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

from batch.check_types import Finding
from batch.judging.checks import prefix, repaired_hold
from batch.loop.writing.splicing import Needs


def must_fix(findings: list[Finding]) -> frozenset[str]:
    return frozenset(f["code"] for f in findings if f["severity"] == "must_fix")


def repaired_holds(findings: list[Finding]) -> Counter[str]:
    """How many holds the repairer tries, by the check that found them: sentences (and
    placeholders) that add what the brief does not say, the brief's notes handed back."""
    return Counter(prefix(f["code"]) for f in findings if repaired_hold(f))


def other_holds(findings: list[Finding]) -> frozenset[str]:
    return frozenset(
        f["code"] for f in findings if f["severity"] == "hold" and not repaired_hold(f)
    )


def fewer(before: Counter[str], after: Counter[str]) -> bool:
    """Fewer in all, and none more of any kind (three additions gone for one note handed
    back is no repair)."""
    return after.total() < before.total() and all(after[k] <= before[k] for k in after)


def loses_nothing(before: list[Finding], after: list[Finding]) -> bool:
    """No item of the brief the text told before goes untold: a finding that an item is
    not told, of any severity (a plain fact's words are advice, not a must-fix, but a
    repair still may not drop them)."""
    untold = {f["code"] for f in before if f["code"].startswith("uncovered:")}
    return all(f["code"] in untold for f in after if f["code"].startswith("uncovered:"))


def better(before: list[Finding], after: list[Finding]) -> bool:
    """The checks find strictly less: every problem after was there before, and at
    least one is gone; or the same problems and fewer of the holds the repairer tries
    (sentences that add to the brief, notes of it handed back: their codes are places in
    the text, which a dropped sentence renumbers, so they are counted)."""
    if not loses_nothing(before, after):
        return False
    if must_fix(after) < must_fix(before):
        return True
    return (
        must_fix(after) <= must_fix(before)
        and other_holds(after) <= other_holds(before)
        and fewer(repaired_holds(before), repaired_holds(after))
    )


@dataclass
class Attempt:
    """One repair tried: which finding, how, and whether the checks kept it."""

    code: str
    action: str
    by: Literal["code", "model"]
    kept: bool
    fixed: list[str] = field(default_factory=list)  # the must_fix codes it removed
    # for the story, in words: what the finding said, what the repair was about (the
    # fact stated, the sentence dropped...), and what the kept change fixed
    problem: str = ""
    subject: str = ""
    fixed_problems: list[str] = field(default_factory=list)
    # what it cost: the model questions asked for it and the seconds they took (what
    # `bench loop` weighs against how often each kind is kept)
    calls: int = 0
    seconds: float = 0.0


@dataclass
class Repaired:
    """A draft as the repairs left it: its needs and findings, and every repair tried."""

    draft: str
    needs: Needs
    findings: list[Finding]
    attempts: list[Attempt]

    @property
    def changed(self) -> bool:
        return any(a.kept for a in self.attempts)

    def log(self) -> list[dict[str, Any]]:
        return [asdict(a) for a in self.attempts]
