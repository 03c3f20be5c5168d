"""The act a text's kind names: a thank-you note thanks, an apology apologises, an
invitation invites, a congratulations card congratulates, a welcome note welcomes, a
condolence card offers sympathy, a farewell wishes well.

The brief names the act in an item of its checklist, whatever the item's kind ("thank-you
note to the volunteers", "Write an apology to customers whose...", "Please thank them
for...", "Wish her a happy retirement"); the facts can all be there and the text still
not do it ("You raised 2,300 for the roof fund." thanks nobody). What the text must do is
read off its words, in any of the usual ways of doing it. bench/acts.py measures the rule
on texts labelled by hand before it was written.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from batch.check_types import Finding, Repair, Requirement
from batch.judging.checks.base import Check, CheckContext


@dataclass(frozen=True)
class Act:
    name: str
    asked: re.Pattern[str]  # in an item of the brief: the text must do this
    done: re.Pattern[str]  # in the text: it does
    goal: str  # what a sentence that does it does, said to the model


def _words(pattern: str) -> re.Pattern[str]:
    return re.compile(r"(?i)\b(?:" + pattern + r")")


_A_TEXT = r"(?:note|letter|card|e-?mail|message|post|word)s?\b"
_WELCOME_THINGS = (
    r"(?:desk|pack|drinks?|area|cent(?:re|er)|event|reception|meeting|session|evening|"
    r"talk|speech|page|screen|bag|kit|party|lunch|breakfast|dinner)s?\b"
)
ACTS: tuple[Act, ...] = (
    Act(
        "thank",
        # "thanks to" is left out: it is as often "because of" as gratitude
        _words(
            rf"thank[-\u2011 ]?you\s+{_A_TEXT}|thank\s+(?:them|him|her|everyone|every|all|the|our|"
            r"each|you)\b|thanks\s+for\b|(?:express|show|say)\w*\s+(?:our\s+)?(?:gratitude|thanks)"
        ),
        # "This is a thank-you note" names the act; it does not do it
        _words(rf"thank(?![-\u2011 ]?you\s+{_A_TEXT})|thanks\b|grateful|gratitude|appreciat"),
        "thanks its readers, as the brief asks",
    ),
    Act(
        "apologise",
        _words(r"apolog(?:y|ies|ise|ize|ising|izing)\b|say\s+sorry\b"),
        _words(r"sorry\b|apolog|regret"),
        "apologises to its readers, as the brief asks",
    ),
    Act(
        "invite",
        _words(
            r"invitation\b(?!\s+(?:to\s+(?:tender|bid|quote|submit|apply)|list|link|code|only))|"
            r"invite\s+(?:them|him|her|you|everyone|all|the|our|staff|parents|"
            r"residents|members|guests|customers)\b|(?:are|is)\s+invited\b"
        ),
        # "Invitations went to 300 families" reports them; it invites nobody
        _words(
            r"invit(?:e|ed|es|ing)\b|invitation\s+to\b|join\s+us\b|"
            r"come\s+(?:and|along|to|join|celebrate)\b|please\s+come\b|"
            r"we(?:'d|’d|\s+would)\s+love\s+(?:you|to\s+see\s+you)\b|be\s+our\s+guests?\b|"
            r"welcome\s+to\s+(?:join|attend|come)\b|all\s+(?:are\s+)?welcome\b|"
            r"everyone(?:['’]s|\s+is)\s+welcome\b|(?:hope|look\s+forward)\s+to\s+seeing\s+you\b|"
            r"see\s+you\s+there\b|do\s+come\b"
        ),
        "invites its readers, as the brief asks",
    ),
    Act(
        "congratulate",
        _words(r"congratulat|congrats\b"),
        _words(r"congratulat|congrats\b|well\s+done\b|bravo\b"),
        "congratulates, as the brief asks",
    ),
    Act(
        "welcome",
        _words(rf"welcome\s+{_A_TEXT}|welcome\s+(?:him|her|them|the\s+new|our\s+new|new)\b"),
        # "the welcome desk", "a welcome note" name things; they welcome nobody
        _words(rf"welcome(?!\s+(?:{_WELCOME_THINGS}|{_A_TEXT}))"),
        "welcomes, as the brief asks",
    ),
    Act(
        "sympathise",
        _words(r"condolences?\b|sympath(?:y|ies)\b"),
        _words(r"condolence|sympath|sorry\b|thinking\s+of\s+you\b|(?:our|my)\s+thoughts\b"),
        "offers the readers sympathy, as the brief asks",
    ),
    Act(
        "wish",
        _words(r"wish\s+(?:him|her|them|everyone|you|all)\b"),
        _words(
            r"wish|enjoy\b|good\s+luck\b|all\s+the\s+best\b|best\s+wishes\b|"
            r"(?:have|has)\s+a\s+(?:happy|wonderful|great|lovely)\b"
        ),
        "wishes the readers well, as the brief asks",
    ),
)


# "don't apologise for the rise", "nobody needs to apologise", "no apology needed": the
# act is not asked; "don't forget to thank them" asks it
_DENIED_BEFORE = re.compile(
    r"(?i)\b(?:don['’]?t|do\s+not|doesn['’]?t|does\s+not|never|not|no|nobody|no\s+one|"
    r"without|avoid|shouldn['’]?t|should\s+not|won['’]?t|will\s+not|can['’]?t|cannot|"
    r"mustn['’]?t|must\s+not)\b"
)
_UNDENIED = re.compile(r"(?i)\b(?:forget|fail|neglect)\b")
_DENIED_AFTER = re.compile(
    r"(?i)^[^.;:!?]*?\b(?:(?:is|are)\s+)?(?:not\s+(?:needed|necessary|required)|unnecessary|"
    r"not\s+a\s+must)\b"
)
# an item that only reports the act ("The mayor congratulated the team", "the CEO sent
# her condolences") asks nothing of the text: in a fact, the act opens it ("Thanks for
# your patience", "Wish her a happy retirement", "Congratulations on ..."), after a
# label at most, or the readers are invited ("Parents ... are invited to tour")
_OPENING = re.compile(r"^\W*(?:[A-Za-z][\w' -]{0,30}:\s*)?(?:(?:our|my|with|please|and|also)\s+)?")
_LEAD = re.compile(r"^\W*")
_INSTRUCTED = frozenset({"task", "ask", "rule", "style"})


def _asks(act: Act, kind: str, text: str, brief: str) -> bool:
    # what the brief says before the item, in its clause: a reader that keeps "apologise
    # for the outage" of "Nobody needs to apologise for the outage" lost the denial
    at = brief.lower().find(text[:40].lower()) if brief else -1
    before = brief[:at] if at > 0 else ""
    opening, lead = _OPENING.match(text), _LEAD.match(text)
    # where the act may stand in a fact: opening it, or naming it in its label
    # ("Apology to the parents: the trip is off")
    starts = {opening.end() if opening else 0, lead.end() if lead else 0}
    for m in act.asked.finditer(text):
        clause = re.split(r"[.;:!?,\n]", before + text[: m.start()])[-1]
        denied = _DENIED_BEFORE.search(clause) and not _UNDENIED.search(clause)
        if denied or _DENIED_AFTER.search(text[m.end() :]):
            continue
        if kind in _INSTRUCTED or m.start() in starts or "invited" in m.group(0).lower():
            return True
    return False


# The acts a thread's brief asks for are the same in every round and for every repair
# candidate the checks judge: worked out once per brief (its items' kinds and texts)
@functools.lru_cache(maxsize=64)
def _asked(items: tuple[tuple[str, str], ...], brief: str) -> tuple[tuple[int, int], ...]:
    """(the act's place in ACTS, the first item's place that names it)."""
    out = []
    for a, act in enumerate(ACTS):
        at = next(
            (i for i, (kind, text) in enumerate(items) if _asks(act, kind, text, brief)), None
        )
        if at is not None:
            out.append((a, at))
    return tuple(out)


def acts_asked(checklist: list[Requirement], brief: str = "") -> list[tuple[Act, Requirement]]:
    """Each act some item of the checklist names, with the first item that names it (an
    act the brief denies, "don't apologise", is not asked)."""
    items = tuple((r["kind"], r["text"]) for r in checklist)
    return [(ACTS[a], checklist[i]) for a, i in _asked(items, brief)]


# what denies the act at the word that would do it: "You are not invited", "We refuse to
# apologise", "She is not welcome", "no apology"; "Thanks to the rain" is a cause
_DENIES = re.compile(
    r"(?i)(?:\bnot|\bnever|\bno|n['’]t|\brefuse[sd]?\s+to|\bdecline[sd]?\s+to|\bwithout|\bnor)"
    r"(?:\s+(?:be|been|being|to|going\s+to|want\s+to|need\s+to|have\s+to|even|really|"
    r"very|any|an?|the|our|my|feel|ever))*\s*$"
)
_CAUSE = re.compile(r"(?i)^thanks\s+to\b(?!\s+(?:you|everyone|all|each|every|our|the\s+(?:team|"
                    r"volunteers|staff|helpers)))")  # fmt: skip


def _a_cause(draft: str, at: int) -> bool:
    """ "Thanks to the rain, the fair moved": a cause, not gratitude ("Many thanks to the
    night shift", "Thanks to everyone for ..." thank)."""
    if not _CAUSE.match(draft[at:]):
        return False
    before = re.split(r"[.;:!?\n]", draft[:at])[-1]
    after = re.split(r"[.;:!?\n]", draft[at:])[0]
    return not re.search(r"(?i)\b(?:many|big|special|huge|warm|our|my|a)\s*$", before) and not (
        re.search(r"(?i)\bfor\b", after)
    )


def done_as_said(act: Act, draft: str) -> tuple[bool, bool]:
    """(the text does the act, the text denies it): each place its words stand, read
    with the words before it in its clause."""
    done = denied = False
    for m in act.done.finditer(draft):
        clause = re.split(r"[.;:!?\n]", draft[: m.start()])[-1]
        if _DENIES.search(clause) or (act.name == "thank" and _a_cause(draft, m.start())):
            denied = True
        else:
            done = True
    return done, denied and not done


def check_acts(draft: str, checklist: list[Requirement], brief: str = "") -> list[Finding]:
    """For each act the brief names: a must-fix when the text denies it ("You are not
    invited."); a hold, which the repairer tries first, when no words of the text do it
    (an act said in words the check does not know is a person's to read)."""
    out = []
    for act, item in acts_asked(checklist, brief):
        done, denied = done_as_said(act, draft)
        if done:
            continue
        out.append(
            Finding(
                code=f"act:{act.name}",
                severity="must_fix" if denied else "hold",
                message=(
                    f"The brief asks for a text that does this ({item['text']!r}), and the "
                    + (
                        f"text says it does not {act.name}: say it to the readers."
                        if denied
                        else f"text may not {act.name}: read it for this, or say it to the readers."
                    )
                ),
                repair=Repair(action="state", fact=item["text"], goal=act.goal),
            )
        )
    return out


class Acts(Check):
    """The act the brief names is done: a thank-you note thanks, an apology apologises,
    an invitation invites, a congratulations card congratulates, a welcome note
    welcomes, a condolence card offers sympathy, "wish her a happy retirement" wishes
    her well; one unit of the score when the brief names one. The facts can all be
    there, and the text still not do it."""

    codes = ("act",)
    repairs = frozenset({"state"})
    repaired_holds = True  # an act no words of the text do: stated first

    def applies(self, ctx: CheckContext) -> bool:
        return (
            bool(ctx.brief)
            and not ctx.documents_source
            and bool(acts_asked(ctx.checklist, ctx.brief))
        )

    def run(self, ctx: CheckContext) -> list[Finding]:
        return check_acts(ctx.draft, ctx.checklist, ctx.brief)
