"""The writer's account of its own draft, held to the draft: a deliberate deviation that
says something false about the text it describes."""

from __future__ import annotations

import re

from batch import placeholders
from batch.check_types import Finding
from batch.judging.checks.base import Check, CheckContext
from batch.judging.wording import stems_of

# "the placeholder for the speaker's name has been filled in", "replaced the gap with the
# date", "I provided the missing figure"
_FILLED = re.compile(
    r"(?i)\b(?:fill(?:ed|s)?(?:\s+in)?|replac(?:ed|es)|complet(?:ed|es)|provid(?:ed|es)|"
    r"resolv(?:ed|es)|supplied|answered|removed|no\s+longer\s+(?:has|contains|needs))\b"
)
_GAP = re.compile(r"(?i)\b(?:placeholders?|gaps?|blanks?|missing\s+\w+)\b|\[[A-Z]+ NEEDED")
_QUOTE = re.compile(r"[\"“‘']([^\"“”‘’']{3,80})[\"”’']")
_REMOVED = re.compile(
    r"(?i)\b(?:remov(?:ed|es|ing)|delet(?:ed|es|ing)|cut|dropp(?:ed|ing)|took\s+out|"
    r"taken\s+out|no\s+longer\s+(?:says|mentions|contains|has|uses)|without)\b"
)
_ADDED = re.compile(
    r"(?i)\b(?:add(?:ed|s|ing)|includ(?:ed|es|ing)|now\s+(?:says|mentions|states|has)|"
    r"mention(?:ed|s)|stat(?:ed|es))\b"
)


def false_statements(deviation: dict[str, str], draft: str) -> list[str]:
    """What a deviation says of the draft that the draft shows is not so, in words."""
    said = f"{deviation.get('point', '')} {deviation.get('reason', '')}"
    out: list[str] = []
    open_gaps = placeholders.find(draft)
    if open_gaps and _FILLED.search(said) and _GAP.search(said):
        # which placeholder it speaks of, when it names one; else any still open
        named = stems_of(_GAP.sub(" ", _FILLED.sub(" ", said)))
        meant = [p for p in open_gaps if stems_of(placeholders.detail(p)) & named] or open_gaps
        out.append(f"it says a placeholder was filled, but {meant[0]} is still in the text")
    low = draft.lower()
    for m in _QUOTE.finditer(said):
        quoted = m.group(1).strip()
        if placeholders.is_placeholder(f"[{quoted}]"):
            continue
        before = said[max(0, m.start() - 60) : m.start()]
        present = quoted.lower() in low
        if present and _REMOVED.search(before):
            out.append(f"it says {quoted!r} was taken out, but the text still says it")
        elif not present and _ADDED.search(before) and not _REMOVED.search(before):
            out.append(f"it says the text now has {quoted!r}, but it does not")
    return out


class Deviations(Check):
    """A deliberate deviation that is false about the draft it describes: a placeholder
    said to be filled that is still open, a phrase said to be cut that is still there, or
    said to be added that is not. The writer's account goes to the reviewer and the run
    log; a false one misleads both."""

    codes = ("deviation-false",)
    scored = False

    def applies(self, ctx: CheckContext) -> bool:
        return bool(ctx.deviations)

    def run(self, ctx: CheckContext) -> list[Finding]:
        out: list[Finding] = []
        for n, deviation in enumerate(ctx.deviations, start=1):
            for wrong in false_statements(deviation, ctx.draft):
                out.append(
                    Finding(
                        code=f"deviation-false:{n}",
                        severity="must_fix",
                        message=(
                            f"The deliberate deviation {deviation.get('point', '')!r} is not "
                            f"true of the text: {wrong}. Say what the text does, or change it."
                        ),
                    )
                )
                break
        return out
