"""Checks of the text's gaps: its placeholders, the facts the brief says are missing, and
facts the brief gives that the text asks a person for."""

from __future__ import annotations

import re
from collections.abc import Iterable

from batch import placeholders
from batch.check_types import Finding, Repair, Requirement
from batch.judging import checklist as req
from batch.judging import wording
from batch.judging.checks.base import Check, CheckContext, rewrite
from batch.judging.wording import sentences_where


def check_placeholders(draft: str, needs: list[dict[str, str]]) -> list[Finding]:
    found = {placeholders.normalize(p): p for p in placeholders.find(draft)}
    listed: dict[str, str] = {}
    out: list[Finding] = []
    for need in needs:
        raw = need.get("placeholder", "")
        if not placeholders.is_placeholder(raw):
            out.append(
                Finding(
                    code=f"need-malformed:{placeholders.normalize(raw)[:80]}",
                    message=f"needs_from_human lists {raw!r}, which is not a placeholder of the "
                    f"form {placeholders.EXAMPLE}",
                    severity="must_fix",
                )
            )
            continue
        listed[placeholders.normalize(raw)] = raw
    for key, raw in found.items():
        if key not in listed:
            out.append(
                Finding(
                    code=f"placeholder-unlisted:{key}",
                    message=f"The text contains {raw} but needs_from_human does not list it: "
                    f"add it there with the question a person must answer.",
                    severity="must_fix",
                )
            )
    for key, raw in listed.items():
        if key not in found:
            out.append(
                Finding(
                    code=f"need-missing:{key}",
                    message=f"needs_from_human lists {raw} but the text does not contain it: put "
                    f"the placeholder where the fact belongs, or drop the entry.",
                    severity="must_fix",
                )
            )
    return out


def check_missing_facts(
    draft: str, checklist: list[Requirement], answered: Iterable[str] = ()
) -> list[Finding]:
    """A fact the brief says is not known is a placeholder (or a person's answer to one),
    never a guess or a remark to the readers that it is unknown (unless the brief asks
    for that: kind "gap")."""
    out: list[Finding] = []
    missing = [r for r in checklist if r["kind"] == "missing"]
    # an unknown marked as such for certain first: it has the first claim on a placeholder
    missing.sort(key=lambda r: req.CERTAIN_GAP.search(r["text"]) is None)
    given = [r for r in checklist if r["kind"] in ("fact", "ask")]
    holes = placeholders.find(draft)
    # (its words, whether a person answered it) for each placeholder and answer
    # (its words, whether a person answered it, the words of what it names)
    free = [
        (
            set(wording.content_terms(p)),
            i >= len(holes),
            set(wording.content_terms(placeholders.detail(p))),
        )
        for i, p in enumerate([*holes, *answered])
    ]
    any_placeholder = bool(free)
    for r in missing:
        # a placeholder is for this fact when it names what it is about ("[DATE NEEDED:
        # summer open day date]"), not when it shares a word of how the brief said it is
        # missing ("[FACT NEEDED: we haven't heard back from the council]")
        cue = req.MISSING_CUE.search(r["text"])
        said_before = r["text"][: cue.start()] if cue else ""
        want = set(wording.content_terms(f"{r['subject']} {said_before}")) or set(r["terms"])
        match = next((i for i, (terms, _, _) in enumerate(free) if want & terms), None)
        said_how = set(wording.content_terms(r["text"])) - set(
            wording.content_terms(r["subject"] or "")
        )
        if match is None and len(free) > 0 and not free[0][2] <= said_how:
            # a placeholder named in other words ("[DATE NEEDED: booking app launch]" for
            # "not confirmed yet"): the unknown has one; which one is a person's to read
            # (a placeholder the brief never mentions is shown to them: placeholder-unasked).
            # Not one named by how the brief said it is missing ("we haven't heard back")
            match = 0
        # certain: an unknown marked as such, and a text with no placeholder at all
        # (which of its placeholders stands for which unknown is a person's to read)
        certain = req.CERTAIN_GAP.search(r["text"]) is not None and not any_placeholder
        # a person's answer is the fact, said in the text as it should be
        answered_here = match is not None and free[match][1]
        label = r["subject"] or "the missing fact"
        # the sentences that tell the gap, or guess the fact: the ones on its subject
        subject = set(wording.content_terms(label))
        telling = sentences_where(
            draft, lambda s, r=r: req.tells_gap(placeholders.without(s), r["subject"])
        )
        about = (
            [
                s
                for s in sentences_where(
                    draft,
                    lambda s, subject=subject: (
                        bool(subject & wording.stems_of(placeholders.without(s)))
                        and not placeholders.find(s)
                    ),
                )
                if s not in telling
            ]
            if subject
            else []
        )
        # a sentence that says a fact the brief gives about the same thing ("a training
        # session is planned" beside its unknown date) is no guess
        guessed = [
            s
            for s in about
            if _about_subject(s, subject) and not any(req.covered(g, s) for g in given)
        ]
        if match is not None and not answered_here and guessed:
            # the placeholder is there, and a sentence says the fact all the same ("The
            # license allows any use" beside [FACT NEEDED: license]): a guess
            out.append(
                Finding(
                    code=f"gap-guessed:{r['id']}",
                    # read from the words around the subject, never certain
                    severity="hold",
                    message=f"The brief says {label} is not known yet, but the text says "
                    f"{guessed[0][:160]!r}: say nothing of it beyond its placeholder.",
                    repair=rewrite(guessed, f"says nothing about {label}, which is not known yet"),
                )
            )
        if match is None:
            out.append(
                Finding(
                    code=f"missing-placeholder:{r['id']}",
                    # an unknown read from chatter ("he hasn't told them yet"), or
                    # one of several the placeholders may stand for, is shown
                    severity="must_fix" if certain else "hold",
                    message=f"The brief says {label} is not known yet: write the "
                    f"placeholder {placeholders.suggest(label)} where it belongs and "
                    f"list it in needs_from_human; never guess it.",
                    repair=Repair(
                        action="placeholder",
                        placeholder=placeholders.suggest(label),
                        sentences=telling or about[:1],
                        fact=r["text"],
                    ),
                )
            )
        else:
            free.pop(match)
        if telling and match is None:
            # beside its placeholder, "finance will confirm it on Monday" is honest:
            # only told instead of the placeholder is it a remark in place of the fact
            out.append(
                Finding(
                    code=f"gap-told:{r['id']}",
                    severity="must_fix" if certain else "hold",
                    message=f"The text tells its readers that {r['subject'] or 'a fact'} is not "
                    f"known; the brief does not ask for that. Use the placeholder "
                    f"instead, so a person can fill in the fact.",
                    repair=Repair(
                        action="placeholder",
                        placeholder=placeholders.suggest(label),
                        sentences=telling,
                        fact=r["text"],
                    ),
                )
            )
    return out


def _about_subject(sentence: str, subject: set[str]) -> bool:
    """A sentence on the missing fact itself: at least two thirds of its subject's words
    (both of "Q3 revenue", not "Q3" alone), and not a line that only names it."""
    have = len(subject & wording.stems_of(placeholders.without(sentence)))
    return have * 3 >= 2 * len(subject) and len(wording.WORD.findall(sentence)) > len(subject) + 2


def check_placeholder_forms(draft: str) -> list[Finding]:
    out: list[Finding] = []
    for whole in placeholders.misspelled(draft):
        out.append(
            Finding(
                code=f"placeholder-form:{placeholders.normalize(whole)[:80]}",
                severity="must_fix",
                message=f"{whole} is a gap that is not a placeholder of the form "
                f"{placeholders.EXAMPLE}: write it in that form and list it in "
                f"needs_from_human, or fill it from the brief.",
                repair=rewrite(
                    sentences_where(draft, lambda s, w=whole: w in s),
                    f"writes {whole} as a placeholder of the form {placeholders.EXAMPLE}",
                ),
            )
        )
    return out


def check_given_as_gap(draft: str, brief: str, unknown: Iterable[str] = ()) -> list[Finding]:
    """A fact the brief gives, wrapped in a placeholder as if it were missing
    ("[TIME NEEDED: 15:00 CET]" where the brief says 15:00 CET): the fact is written,
    not asked of a person. Only a gap that holds a figure and is word for word a piece
    of the brief counts: "[FIGURE NEEDED: Q3 revenue]" holds no figure, and
    "[FIGURE NEEDED: Ridgeway 28 price]" names what is missing, in words of its own.
    Nor does one worded as the brief words what it does not know (`unknown`, the
    texts of its missing facts): "[DATE NEEDED: reopening time on 13 June]" where the
    brief says "the reopening time on 13 June is not confirmed yet"."""
    if not brief:
        return []
    flat = " ".join(brief.lower().split())
    gaps = [" ".join(u.lower().split()) for u in unknown]
    out: list[Finding] = []
    for m in placeholders.BRACKETED.finditer(draft):
        whole, inside = m.group(0), m.group(1)
        if ":" not in inside:
            continue
        given = inside.split(":", 1)[1].strip().strip(".")
        said = " ".join(given.lower().split())
        if not wording.numbers_of(given) or not re.search(
            r"(?<!\w)" + re.escape(said) + r"(?!\w)", flat
        ):
            continue
        if any(said in gap for gap in gaps):
            continue
        out.append(
            Finding(
                code=f"placeholder-given:{placeholders.normalize(whole)[:80]}",
                severity="must_fix",
                message=f"{whole} asks a person for {given!r}, which the brief gives: write "
                f"the fact itself.",
                repair=Repair(action="replace", old=whole, new=given),
            )
        )
    return out


class Placeholders(Check):
    """Every placeholder of the text is listed in needs_from_human, and every entry there
    is a placeholder the text contains. A placeholder the writer put in the text but did
    not list is listed by code as it comes back, with a question drawn from it, so the
    person is still asked for it; an entry whose placeholder is not in the text is a
    must-fix."""

    codes = ("need-malformed", "placeholder-unlisted", "need-missing")

    def run(self, ctx: CheckContext) -> list[Finding]:
        return check_placeholders(ctx.draft, ctx.needs)


class PlaceholderForms(Check):
    """A gap written some other way than a placeholder. `[TBD]`, `XX` or `[Figure
    Needed: x]` is refused, so every gap reaches a person the one way: as a placeholder
    listed in needs_from_human."""

    codes = ("placeholder-form",)
    repairs = frozenset({"rewrite"})

    def run(self, ctx: CheckContext) -> list[Finding]:
        return check_placeholder_forms(ctx.draft)


class GivenAsGap(Check):
    """A placeholder for a fact the brief gives."""

    codes = ("placeholder-given",)
    repairs = frozenset({"replace"})

    def applies(self, ctx: CheckContext) -> bool:
        return bool(ctx.brief)

    def run(self, ctx: CheckContext) -> list[Finding]:
        return check_given_as_gap(
            ctx.draft, ctx.brief, [r["text"] for r in ctx.checklist if r["kind"] == "missing"]
        )


class MissingFacts(Check):
    """A fact the brief says is not known is a placeholder, never a guess; one unit of
    the score per such fact. Telling the readers it is still to come beside the placeholder
    ("finance will confirm it on Monday") is honest; telling them instead of the
    placeholder, or saying anything more of it (a guess beside the placeholder), is a
    must-fix, unless the brief asks for the telling ("Say that the date will be
    announced")."""

    codes = ("missing-placeholder", "gap-told", "gap-guessed")
    item_kinds = frozenset({"missing"})
    # a person who writes the fact in their own edit has answered it
    vouched = frozenset({"missing-placeholder", "gap-guessed"})
    repairs = frozenset({"placeholder", "rewrite"})
    repaired_holds = True  # a guess beside the placeholder: rewritten first

    def run(self, ctx: CheckContext) -> list[Finding]:
        return check_missing_facts(ctx.draft, ctx.checklist, ctx.answered)
