"""The code checks: findings code makes and the model cannot talk away.

Each check is one object in `REGISTRY` (its class in a module of this package, by what
it looks at: `form`, `gaps`, `facts`, `echo`, `code`). A finding has a stable `code`
whose prefix (before ":") names its check, so the same problem in two rounds is
recognisably the same (the no-progress rule compares them), and a severity: `must_fix`
findings block approval whatever the critic scores; `warn` findings go to
would_improve. What the code score counts, which findings a person's own edit vouches
for, and which findings mean there is no text at all are all read off the registry.

To add a check: a `Check` subclass (see `base`) with its codes and `run(ctx)`, in the
module it belongs to, and one line in `REGISTRY`. Its findings may carry a Repair of
an action batch.loop.repairs knows; `tests/test_check_registry.py` holds every check to
what it declares.
"""

from __future__ import annotations

from dataclasses import dataclass

from batch.judging.checks import code, echo, facts, form, gaps
from batch.judging.checks.base import Check, CheckContext
from batch.state import Finding

__all__ = ["REGISTRY", "Check", "CheckContext", "Judged", "code_score", "judge"]

# In the order their findings are listed (and put to the writer). NoText comes first:
# when it finds something, nothing else runs.
REGISTRY: tuple[Check, ...] = (
    form.NoText(),
    form.CopiedBrief(),
    gaps.Placeholders(),
    gaps.PlaceholderForms(),
    gaps.GivenAsGap(),
    form.Repeated(),
    form.Html(),
    form.EmptySections(),
    facts.Numbers(),
    form.Length(),
    form.Banned(),
    facts.Requirements(),
    gaps.MissingFacts(),
    facts.Contradictions(),
    facts.Names(),
    echo.Echo(),
    code.ApiDocs(),
    code.Bleed(),
    form.CopiedSource(),
    code.Examples(),
    code.Coverage(),
)

NO_TEXT = form.NoText.codes  # findings that mean there is no text to score


def prefix(finding_code: str) -> str:
    """The part of a finding's code that names its check."""
    return finding_code.split(":", 1)[0]


def vouched_codes(registry: tuple[Check, ...] = REGISTRY) -> frozenset[str]:
    """The code prefixes a person's own edit of the text vouches for."""
    return frozenset().union(*(c.vouched for c in registry))


@dataclass
class Judged:
    """What the checks found in one draft."""

    findings: list[Finding]
    units: int  # of the code score: a unit per check that ran, or per checklist item
    verification: str | None = None  # what running the draft's examples showed

    @property
    def must_fix(self) -> list[Finding]:
        return [f for f in self.findings if f["severity"] == "must_fix"]

    @property
    def score(self) -> float:
        return score_of(self.findings, self.units)

    def unvouched(self, registry: tuple[Check, ...] = REGISTRY) -> list[Finding]:
        """The must_fix findings that stand even when a person wrote the text."""
        vouched = vouched_codes(registry)
        return [f for f in self.must_fix if prefix(f["code"]) not in vouched]


def judge(ctx: CheckContext, registry: tuple[Check, ...] = REGISTRY) -> Judged:
    """Every check of `registry` that applies to the draft, in order."""
    findings: list[Finding] = []
    notes: list[str] = []
    for check in registry:
        if not check.applies(ctx):
            continue
        found, note = check.verify(ctx)
        if isinstance(check, form.NoText) and found:
            return Judged(found, 0)
        findings += found
        if note:
            notes.append(note)
    return Judged(findings, units_of(ctx, registry), "; ".join(notes) or None)


def units_of(ctx: CheckContext, registry: tuple[Check, ...] = REGISTRY) -> int:
    """How many units the code score of `ctx`'s draft has: those of every check that
    runs on it (NoText has none)."""
    return sum(c.units(ctx) for c in registry if c.applies(ctx))


def score_of(findings: list[Finding], units: int) -> float:
    """0-100: the share of the units the draft passes; every must_fix finding fails
    one. No text scores nothing."""
    if any(f["code"] in NO_TEXT for f in findings):
        return 0.0
    units = max(units, 1)
    failed = sum(1 for f in findings if f["severity"] == "must_fix")
    return round(100.0 * max(0, units - failed) / units, 1)


def code_score(findings: list[Finding], ctx: CheckContext,
               registry: tuple[Check, ...] = REGISTRY) -> float:
    """The code score of `findings`, found by the checks on `ctx`'s draft."""
    return score_of(findings, units_of(ctx, registry))
