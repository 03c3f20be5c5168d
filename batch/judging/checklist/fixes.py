"""A person's fixes to a brief's checklist as read: an item that is not for the readers,
an item of another kind, an item whose words were read wrong.

The reader is not sure of every line of a brief it has never seen ("right, um, I think
that's everything" read as a fact, a reply quoted into a fact). The person who reads a
waiting text sees the checklist first and fixes it; the text is judged again against
the fixed list. A fix names the item by the words it was read from, not by its number,
so it holds for every later reading of the same brief (a rerun, a retry, the brief
edited elsewhere) and for nothing else. Each fix is also a labelled example of the
reader's error (`briefloop runs --fixes`, `bench fixes`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, Literal

from batch.check_types import ChecklistFix, Kind, Requirement
from batch.judging.checklist.missing import _subject_of
from batch.judging.checklist.reading import mark_own_terms, requirement

FixAction = Literal["drop", "kind", "value"]
FIX_ACTIONS: tuple[FixAction, ...] = ("drop", "kind", "value")

# The kinds a person may give an item, by the name they are shown, with what each means:
# the kinds whose reading needs nothing more than the item's words
KIND_NAMES: dict[str, str] = {
    "fact": "the readers must be told it",
    "ask": "the readers are asked to do it",
    "missing": "not known yet: the text carries a placeholder for it",
    "leave-out": "kept out of the text",
    "style": "an instruction to the writer, not checked",
}
MAX_VALUE_CHARS = 1_000


def shown_kind(r: Requirement) -> str:
    """An item's kind by the name a person is shown and gives (a leave-out order is a
    "rule" the reader keeps apart from the other rules)."""
    if r["kind"] == "rule" and r["subject"] == "leave_out":
        return "leave-out"
    return r["kind"]


def fix_words(fix: Mapping[str, Any]) -> str:
    """What a fix makes of its item, in words ("not for the readers")."""
    if fix["action"] == "drop":
        return "not for the readers"
    if fix["action"] == "kind":
        return f"a {fix['kind']} item ({KIND_NAMES.get(fix['kind'], '')})"
    return f"to read {fix['value']!r}"


def words_key(words: str) -> str:
    """The words an item was read from, as fixes match them: case and spacing aside."""
    return re.sub(r"\s+", " ", words).strip().casefold()


def fix_problem(
    checklist: list[Requirement], item: str, action: str, kind: str = "", value: str = ""
) -> str | None:
    """Why this fix cannot be made to `checklist`, or None."""
    ids = [r["id"] for r in checklist]
    if item not in ids:
        known = ", ".join(ids) or "none"
        return f"{item!r} is not an item of this thread's checklist (its items: {known})"
    if action not in FIX_ACTIONS:
        return f"a fix is one of {', '.join(FIX_ACTIONS)}, not {action!r}"
    r = next(r for r in checklist if r["id"] == item)
    if action == "kind":
        if kind not in KIND_NAMES:
            return f"the kind is one of {', '.join(KIND_NAMES)}, not {kind!r}"
        if kind == shown_kind(r):
            return f"{item} is read as {kind} already"
    if action == "value":
        if not value.strip():
            return "a fixed value needs its words"
        if len(value) > MAX_VALUE_CHARS:
            return f"the fixed value is {len(value):,} characters; the limit is {MAX_VALUE_CHARS:,}"
        if words_key(value) == words_key(r["text"]):
            return f"{item} reads so already"
    return None


def make_fix(
    checklist: list[Requirement], item: str, action: FixAction, kind: str = "", value: str = ""
) -> ChecklistFix:
    """The fix of `item` (`fix_problem` has found nothing against it)."""
    r = next(r for r in checklist if r["id"] == item)
    return ChecklistFix(
        item=item,
        read=r["text"],
        was=shown_kind(r),
        action=action,
        kind=kind if action == "kind" else "",
        value=value.strip() if action == "value" else "",
    )


def _as_kind(r: Requirement, name: str) -> Requirement:
    if name == "leave-out":
        return requirement(r["id"], "rule", r["text"], "leave_out")
    if name == "missing":
        return requirement(r["id"], "missing", r["text"], _subject_of(r["text"]))
    kind: Kind = name  # type: ignore[assignment]  # fix_problem checked it is a KIND_NAMES name
    return requirement(r["id"], kind, r["text"], "")


def kept_fix(row: Mapping[str, Any]) -> ChecklistFix:
    """A fix as the run-log database keeps it (RunLog.fixes) back to a ChecklistFix."""
    action = str(row["action"])
    return ChecklistFix(
        item=str(row["item"]),
        read=str(row["read"]),
        was=str(row["was"]),
        # one this version does not know changes nothing (`fixed`)
        action=action,  # type: ignore[typeddict-item]
        kind=str(row.get("kind") or ""),
        value=str(row.get("value") or ""),
        by=str(row.get("by") or ""),
        at=str(row.get("at") or ""),
    )


def fixed(checklist: list[Requirement], fixes: list[ChecklistFix]) -> list[Requirement]:
    """`checklist` with `fixes` made: each fix to the item read from its words (the
    latest fix of an item wins; a fix whose words the brief no longer has does
    nothing)."""
    latest = {words_key(f["read"]): f for f in fixes}
    if not latest:
        return checklist
    out: list[Requirement] = []
    for r in checklist:
        fix = latest.get(words_key(r["text"]))
        if fix is not None and fix["action"] == "drop":
            continue  # not for the readers: nothing is asked of the text for it
        if fix is not None and fix["action"] == "kind" and fix["kind"] in KIND_NAMES:
            out.append(_as_kind(r, fix["kind"]))
        elif fix is not None and fix["action"] == "value" and fix["value"].strip():
            subject = r["subject"]
            if r["kind"] in ("missing", "gap"):
                subject = _subject_of(fix["value"])
            out.append(requirement(r["id"], r["kind"], fix["value"], subject))
        else:
            out.append(dict(r))  # type: ignore[arg-type]
    mark_own_terms(out)
    return out


def fix_counts(fixes: list[tuple[str, ChecklistFix]], items_read: int) -> dict[str, Any]:
    """What people's fixes (each with its brief's id) say of the reader on real use: how
    many items it read wrong (each fixed item once, whatever its later fixes), by the
    kind it read them as and by what they were, and the share of `items_read` it read
    right."""
    last = {(brief_id, words_key(f["read"])): f for brief_id, f in fixes}
    by_kind: dict[str, int] = {}
    by_action: dict[str, int] = {}
    for f in last.values():
        by_kind[f["was"]] = by_kind.get(f["was"], 0) + 1
        by_action[f["action"]] = by_action.get(f["action"], 0) + 1
    wrong = len(last)
    return {
        "fixes": len(fixes),
        "items_fixed": wrong,
        "items_read": items_read,
        "read_right": None if not items_read else round(1 - min(wrong, items_read) / items_read, 3),
        "by_kind_read": dict(sorted(by_kind.items())),
        "by_fix": dict(sorted(by_action.items())),
    }
