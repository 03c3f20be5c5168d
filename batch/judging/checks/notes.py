"""A text that is its brief's notes handed back: the brief's labelled lines ("Status:
approved by the board on 3 March") and fragments ("Kickoff meeting Tuesday 6 January,
10:00, Room 4."), carried over as they stand, bold or capitals added at most.

A brief that is written as notes gives the checklist every item in the text's own
words, so a copy of it covers everything, and it is not a text an editor would sign.
Reusing the brief's *sentences* is fine ("New targets will be presented."), and so is a
list a text calls for (a menu's courses, a card's specifications) beside sentences of
its own: what is measured is the share of the text's words in such notes.
bench/notes.py measures the rule on texts labelled by hand before it was written.
"""

from __future__ import annotations

import functools
import re
from difflib import SequenceMatcher

from batch.check_types import Finding, Requirement
from batch.judging.brief_lines import logical_lines
from batch.judging.checklist.cues import HAS_VERB
from batch.judging.checks.base import Check, CheckContext, rewrite
from batch.judging.support import is_glue
from batch.judging.wording import sentences, words

# A text with at least this share of its words in the brief's notes is the notes. Chosen
# on bench/notes (docs/benchmarks.md, "Notes handed back"): at 0.5, 14 of 15 pasted texts
# are held and 1 of 16 written ones (a menu card whose courses are the brief's list).
NOTES_SHARE = 0.5
# a copied unit: this share of its words, in order, are a unit of the brief's
COPIED = 0.8
# a brief with this many lines of notes of their own is written as notes: one of them
# with an article or "is" added is still its note
NOTE_LINES = 3
# "Status: approved", "**Where:** Room 4", "- Price: 49 EUR"
_LABELLED = re.compile(r"^[\s*_#>-]*[*_]*(?P<label>[A-Za-z][\w &/-]{0,24}?)[*_]*:[*_]*\s+\S")
# how prose opens: an article, a pronoun, a possessive; notes drop them
_PROSE_OPENERS = frozenset(
    {
        *("the", "a", "an", "this", "these", "that", "those", "every", "all", "each"),
        *("our", "your", "their", "my", "his", "her", "its"),
        *("we", "you", "they", "i", "he", "she", "it", "there"),
        *("please", "thank", "thanks"),
    }
)


# verbs a notice says in the present without an auxiliary ("Bins go out on Tuesdays",
# "Doors open at 7"): with one of these after the first word, a unit is a sentence
_PLAIN_VERBS = re.compile(
    r"(?i)^\S+(?:\s+\S+){0,3}?\s+(?:go|goes|open|opens|close|closes|run|runs|start|starts|"
    r"begin|begins|end|ends|stay|stays|move|moves|take|takes|come|comes|arrive|arrives|"
    r"leave|leaves|get|gets|make|makes|cost|costs|apply|applies|remain|remains|return|"
    r"returns|change|changes|happen|happens|include|includes|work|works|meet|meets|"
    r"reopen|reopens|continue|continues|approve|approves|offer|offers|last|lasts)\b"
)


# a verb in its "-s" form that is no noun too ("works", "costs" are), anywhere after the
# first word: a sentence however long its subject ("From 1 April the Standard plan goes
# up", "The fee for members stays at £6")
_SAYS_VERB = re.compile(
    r"(?i)^\S+.*?\s(?:goes|opens|closes|starts|begins|stays|moves|takes|comes|arrives|"
    r"gets|applies|remains|happens|includes|reopens|continues|approves|lasts|rises)\b"
)


def _plain(unit: str) -> str:
    return re.sub(r"[*_`#>]", "", unit).strip().lstrip("-•+ ").strip()


def _is_prose(text: str) -> bool:
    """Said as a sentence: a verb the notes' shape leaves out (is, will, has, can...), or
    an opening notes drop ("The", "Our", "You")."""
    plain = _plain(text)
    tokens = words(plain)
    return (
        bool(HAS_VERB.search(plain))
        or bool(tokens and tokens[0] in _PROSE_OPENERS)
        or bool(_PLAIN_VERBS.match(plain))
        or bool(_SAYS_VERB.match(plain))
    )


def _note_form(unit: str, labels: frozenset[str]) -> bool:
    """Written as a note: a labelled line whose label the brief uses, or whose value is
    no sentence, or a fragment ("Good news: the playground reopens" is prose)."""
    labelled = _LABELLED.match(unit)
    if labelled is None:
        return not _is_prose(unit)
    return labelled.group("label").strip().lower() in labels or not _is_prose(
        unit[labelled.end() - 1 :]
    )


def _brief_units(brief: str, labels: frozenset[str]) -> list[tuple[list[str], bool]]:
    """The brief's notes: its lines, and the sentences of its lines, in note form, each
    with whether it is a line of notes of its own (a list's item, a line with no
    sentence even as a label's value; not a sentence of a paragraph). A sentence of
    the brief said again is the brief's sentence, not a note ("The team closed 42 new
    accounts" shortened to "Great work: 42 new accounts" is the writer's)."""
    units: list[tuple[list[str], bool]] = []
    for line in logical_lines(brief):
        parts = sentences(line)
        # a line is a note when each of its sentences is: one sentence of prose makes it
        # prose, whatever the others
        whole = [line] if all(_note_form(p, labels) for p in (line, *parts)) else []
        for unit in (*whole, *parts):
            tokens = words(unit)
            if tokens and tokens not in [u for u, _ in units] and _note_form(unit, labels):
                labelled = _LABELLED.match(unit)
                value = unit[labelled.end() - 1 :] if labelled else unit
                units.append((tokens, unit is line and not _is_prose(value)))
    return units


def _brief_labels(brief: str) -> frozenset[str]:
    return frozenset(
        m.group("label").strip().lower()
        for line in logical_lines(brief)
        if (m := _LABELLED.match(line))
    )


# The same in every round and for every repair candidate the checks judge: read once
# per brief
@functools.lru_cache(maxsize=64)
def _brief_notes(
    brief: str,
) -> tuple[frozenset[str], tuple[list[str], ...], tuple[list[str], ...]]:
    """The brief's labels, its notes and the fragments among them, as words (shared:
    not to be changed)."""
    labels = _brief_labels(brief)
    units = _brief_units(brief, labels)
    lines = tuple(u for u, fragment in units if fragment)
    # a brief of notes: a line or two of them is a one-line brief's, said as it is
    return labels, tuple(u for u, _ in units), lines if len(lines) >= NOTE_LINES else ()


# the words a note is turned into a sentence with and nothing more: an article, a form
# of "be", a pronoun, "please" ("The engineer due 10:00", "Lift is out of order")
_GLUE_WORDS = frozenset(
    {
        *("the", "a", "an", "is", "are", "was", "were", "will", "be", "been", "has", "have"),
        *("it", "its", "there", "this", "we", "you", "our", "your", "please", "and", "to"),
    }
)


def _copied(unit: str, brief_units: tuple[list[str], ...], glue_only: bool = False) -> bool:
    """Its words are a unit of the brief's, in order: the whole of one (a line or a
    sentence of it), or for a labelled line, its value within one. `glue_only`: and what
    it adds to that unit is only `_GLUE_WORDS` (a note made to look like a sentence)."""
    labelled = _LABELLED.match(unit)
    value = unit[labelled.end() - 1 :] if labelled else unit
    mine = words(value)
    if not mine:
        return False
    for theirs in brief_units:
        matcher = SequenceMatcher(a=mine, b=theirs, autojunk=False)
        blocks = matcher.get_matching_blocks()
        same = sum(block.size for block in blocks)
        share = same / len(mine) if labelled else min(same / len(mine), same / len(theirs))
        if share < COPIED:
            continue
        if not glue_only:
            return True
        kept = {i for b in blocks for i in range(b.a, b.a + b.size)}
        if all(w in _GLUE_WORDS for i, w in enumerate(mine) if i not in kept):
            return True
    return False


def notes_at(draft: str, brief: str) -> tuple[list[tuple[int, str]], float]:
    """The draft's sentences (lines, list items) that are the brief's notes as they
    stand, each with its place among the draft's sentences (from 1: a rewrite of one
    leaves the others' places as they were), and the share of the draft's words they
    hold (greetings and sign-offs left out of both)."""
    labels, brief_units, fragments = _brief_notes(brief)
    notes: list[tuple[int, str]] = []
    total = in_notes = 0
    for n, unit in enumerate(sentences(draft), start=1):
        if is_glue(unit):
            continue
        size = len(words(unit))
        total += size
        if size and (
            _copied(unit, brief_units)
            if _note_form(unit, labels)
            # a fragment of the brief made to look like a sentence is still the note
            else _copied(unit, fragments, glue_only=True)
        ):
            notes.append((n, unit))
            in_notes += size
    return notes, (in_notes / total if total else 0.0)


def note_units(draft: str, brief: str) -> tuple[list[str], float]:
    """`notes_at` without the places."""
    notes, share = notes_at(draft, brief)
    return [unit for _, unit in notes], share


# kinds of text whose form is labelled lines and fragments: a listing, a menu, a
# timetable keep the notes' shape, and are not held for it
_LIST_FORMS = re.compile(
    r"(?i)\b(?:listings?|menus?|timetables?|schedules?|fixtures?|itinerar(?:y|ies)|"
    r"price\s+lists?|spec(?:ification)?\s+sheets?|fact\s*sheets?|labels?|signs?|agendas?)\b"
)


def list_form_asked(checklist: list[Requirement]) -> bool:
    """The brief asks for a kind of text made of labelled lines: its task names one."""
    return any(r["kind"] == "task" and _LIST_FORMS.search(r["text"]) for r in checklist)


def check_notes_handed_back(draft: str, brief: str) -> list[Finding]:
    """Each note of a text that is mostly the brief's notes: a hold (a sign or a list
    may be meant as it is), with a rewrite as a sentence for the readers to try first."""
    notes, share = notes_at(draft, brief)
    if share < NOTES_SHARE:
        return []
    return [
        Finding(
            code=f"notes:{n}",
            severity="hold",
            message=(
                f"{note!r} is a note of the brief as it stands; {len(notes)} such "
                f"{'note holds' if len(notes) == 1 else 'notes hold'} {round(share * 100)}% "
                "of the text's words. Write the text for its readers, or vouch for the "
                "notes as they are."
            ),
            sentence=note,
            repair=rewrite(
                [note],
                "says the same as one plain sentence for the readers, adding nothing",
                fact=_plain(note),
            ),
        )
        for n, note in notes
    ]


class NotesHandedBack(Check):
    """The brief's notes handed back as the text: most of its words are the brief's
    labelled lines and fragments as they stand. The loop first rewrites them as
    sentences; a text still made of them waits for a person (a hold), who may vouch for
    a sign or a list meant as it is. Not for a kind of text made of such lines (a
    listing, a menu, a timetable, fixtures, a label, a sign), which the brief names."""

    codes = ("notes",)
    scored = False
    repairs = frozenset({"rewrite"})
    repaired_holds = True

    def applies(self, ctx: CheckContext) -> bool:
        return bool(ctx.brief) and not ctx.documents_source and not list_form_asked(ctx.checklist)

    def run(self, ctx: CheckContext) -> list[Finding]:
        return check_notes_handed_back(ctx.draft, ctx.brief)
