"""The code checks: findings code makes and the model cannot talk away.

Each check is one object in `REGISTRY` (its class in a module of this package, by what
it looks at: `form`, `gaps`, `facts`, `echo`, `code`). A finding has a stable `code`
whose prefix (before ":") names its check, so the same problem in two rounds is
recognisably the same (the no-progress rule compares them), and a severity: `must_fix`
findings block approval whatever the critic scores; `warn` findings go to
would_improve. What the code score counts, which findings a person's own edit vouches
for, and which findings mean there is no text at all are all read off the registry.

To add a check: a `Check` subclass (see `base`) with its codes, its docstring (the docs'
lists are generated from it: `check_reference`) and `run(ctx)`, in the module it belongs
to, and one line in `REGISTRY` (docs/extending.md). Its findings may carry a Repair of
an action batch.loop.writing.repairs knows; `tests/judging/test_check_registry.py` holds
every check to what it declares.
"""

from __future__ import annotations

import re
import textwrap
from collections import Counter
from dataclasses import dataclass, field

from batch.check_types import Finding
from batch.judging.checks import (
    acts,
    code,
    deviations,
    echo,
    facts,
    form,
    gaps,
    notes,
    obey,
    support,
)
from batch.judging.checks.base import Check, CheckContext

__all__ = [
    "REGISTRY",
    "Check",
    "CheckContext",
    "Judged",
    "check_reference",
    "code_score",
    "judge",
    "repaired_hold",
]

# In the order their findings are listed (and put to the writer). NoText comes first:
# when it finds something, nothing else runs.
REGISTRY: tuple[Check, ...] = (
    form.NoText(),
    obey.BriefRead(),
    form.CopiedBrief(),
    notes.NotesHandedBack(),
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
    acts.Acts(),
    gaps.MissingFacts(),
    facts.Contradictions(),
    facts.TakenBack(),
    facts.Ties(),
    facts.Names(),
    echo.Echo(),
    obey.Obeyed(),
    support.Additions(),
    deviations.Deviations(),
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


_REPAIRED_HOLDS = frozenset(code for c in REGISTRY if c.repaired_holds for code in c.codes)


def repaired_hold(finding: Finding) -> bool:
    """A finding the repairer tries though it blocks nothing, before a person sees it
    (`Check.repaired_holds`): a sentence that adds to the brief, a note of the brief
    handed back."""
    return prefix(finding["code"]) in _REPAIRED_HOLDS


@dataclass
class Judged:
    """What the checks found in one draft."""

    findings: list[Finding]
    # of the code score: each check that ran -> its units (one, none, or one per
    # checklist item of its kinds)
    weights: dict[str, int]
    verification: str | None = None  # what running the draft's examples showed
    registry: tuple[Check, ...] = field(default=REGISTRY, repr=False)

    @property
    def units(self) -> int:
        return sum(self.weights.values())

    @property
    def must_fix(self) -> list[Finding]:
        return [f for f in self.findings if f["severity"] == "must_fix"]

    @property
    def score(self) -> float:
        return score_of(self.findings, self.weights, self.registry)

    def unvouched(self) -> list[Finding]:
        """The must_fix findings that stand even when a person wrote the text."""
        vouched = vouched_codes(self.registry)
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
            return Judged(found, {}, registry=registry)
        findings += found
        if note:
            notes.append(note)
    return Judged(findings, weights_of(ctx, registry), "; ".join(notes) or None, registry)


def name_of(check: Check) -> str:
    return type(check).__name__


def weights_of(ctx: CheckContext, registry: tuple[Check, ...] = REGISTRY) -> dict[str, int]:
    """Each check that runs on `ctx`'s draft -> its units of the code score (NoText has
    none)."""
    return {name_of(c): c.units(ctx) for c in registry if c.applies(ctx)}


def failed_units(
    findings: list[Finding], weights: dict[str, int], registry: tuple[Check, ...] = REGISTRY
) -> int:
    """The units the must_fix findings fail: each finding one, but a check's findings at
    most its units, so a check that finds many things (five invented numbers) weighs no
    more than one that finds one; a check with no units of its own (a contradiction, a
    copied brief) still fails one."""
    per_check = must_fix_by_check(findings, registry)
    return sum(min(n, max(weights.get(name, 0), 1)) for name, n in per_check.items())


def must_fix_by_check(
    findings: list[Finding], registry: tuple[Check, ...] = REGISTRY
) -> Counter[str]:
    """How many must_fix findings each check made, by its name (a code no check declares:
    by its own prefix)."""
    owner = {code: name_of(c) for c in registry for code in c.codes}
    return Counter(
        owner.get(prefix(f["code"]), prefix(f["code"]))
        for f in findings
        if f["severity"] == "must_fix"
    )


def score_of(
    findings: list[Finding], weights: dict[str, int], registry: tuple[Check, ...] = REGISTRY
) -> float:
    """0-100: the share of the units the draft passes (failed_units). No text scores
    nothing."""
    if any(f["code"] in NO_TEXT for f in findings):
        return 0.0
    units = max(sum(weights.values()), 1)
    failed = failed_units(findings, weights, registry)
    return round(100.0 * max(0, units - failed) / units, 1)


def code_score(
    findings: list[Finding], ctx: CheckContext, registry: tuple[Check, ...] = REGISTRY
) -> float:
    """The code score of `findings`, found by the checks on `ctx`'s draft."""
    return score_of(findings, weights_of(ctx, registry), registry)


def _doc_of(check: Check) -> str:
    return " ".join((type(check).__doc__ or "").split())


def _weight_words(check: Check) -> str:
    if check.item_kinds:
        return "a unit per checklist item (" + ", ".join(sorted(check.item_kinds)) + ")"
    return "one unit" if check.scored else "no unit of its own"


def check_reference(
    registry: tuple[Check, ...] = REGISTRY, brief: bool = False, indent: str = ""
) -> str:
    """The checks in words, in the registry's order, from their docstrings: what
    docs/how-it-works.md lists (`brief`: the first sentence of each, for the README)."""
    out = []
    for check in registry:
        doc = _doc_of(check)
        if brief:  # what it finds, without the how: up to the first ": " or full stop
            first = re.match(r"(.+?)(?:[.!?](?:\s|$)|: )", doc)
            line = f"- {first[1] if first else doc}"
        else:
            codes = ", ".join(f"`{c}`" for c in check.codes) or "no findings of its own"
            repairs = ", ".join(sorted(check.repairs)) or "none"
            line = (
                f"- **{name_of(check)}** ({codes}; {_weight_words(check)}; "
                f"repairs: {repairs}): {doc}"
            )
        out.append(
            textwrap.fill(
                line,
                width=88,
                initial_indent=indent,
                subsequent_indent=indent + "  ",
                break_on_hyphens=False,
                break_long_words=False,
            )
        )
    return "\n".join(out) + "\n"
