"""A person's answer to a waiting thread, typed: `Approve | Reject | Revise | Fix | Invalid`.

Every channel (the CLI, the review page, the Review sheet, a one-tap link) builds one
of these; the one refusal policy (batch.loop.decisions.refusal) judges it, and the
thread is resumed with its `as_dict()`, the form the checkpoint keeps and a cluster's
queue carries. Agent Inbox responses from outside tooling are decoded to one at the
edge (batch.loop.inbox.decode).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

# What a person asks for, by name (the CLI's flags, a form's button, a sheet's cell)
Action = Literal["approve", "reject", "revise"]


@dataclass(frozen=True)
class Approve:
    """Approve the text shown, or the person's own version (`draft`), with the values
    of its placeholders; `override` is the reason to approve over what the checks find."""

    answers: dict[str, str] = field(default_factory=dict)
    draft: str | None = None
    override: str | None = None
    by: str | None = None
    at: str = ""

    kind = "approve"


@dataclass(frozen=True)
class Reject:
    reason: str = ""
    by: str | None = None
    at: str = ""

    kind = "reject"


@dataclass(frozen=True)
class Revise:
    """Send it back to the writer with `notes`, for `rounds` more rounds (None: the
    thread's default); values given so far ride along as facts."""

    notes: str = ""
    answers: dict[str, str] = field(default_factory=dict)
    rounds: int | str | None = None
    by: str | None = None
    at: str = ""

    kind = "revise"


@dataclass(frozen=True)
class Fix:
    """Fix an item of the brief's checklist as read (batch.judging.checklist.fixes):
    `action` "drop" (not for the readers), "kind" (it is `as_kind`) or "value" (its
    words are `value`). The text is judged again and waits on."""

    item: str
    action: str
    as_kind: str = ""
    value: str = ""
    by: str | None = None
    at: str = ""

    kind = "fix"


@dataclass(frozen=True)
class Invalid:
    """An answer that is none of the above: the thread asks again, saying why."""

    problem: str

    kind = "invalid"


Decision = Approve | Reject | Revise | Fix | Invalid
KINDS = ("approve", "reject", "revise", "fix")


def as_dict(decision: Decision) -> dict[str, Any]:
    """The decision as the state keeps it: {"type": kind, ...} with its set fields."""
    out: dict[str, Any] = {"type": decision.kind}
    for name, value in vars(decision).items():
        if value is not None and not (name == "at" and value == ""):
            out[name] = dict(value) if isinstance(value, dict) else value
    return out


def from_dict(value: dict[str, Any]) -> Decision:
    """Our own decision dict (`as_dict`'s form) back to a Decision; anything else is
    Invalid, with why."""
    kind = value.get("type")
    by = value.get("by")
    by = None if by is None else str(by)
    at = str(value.get("at") or "")
    answers = value.get("answers") or {}
    if kind in ("approve", "revise") and not isinstance(answers, dict):
        return Invalid("answers must map placeholders to values")
    answers = {str(k): str(v) for k, v in answers.items()}
    if kind == "approve":
        draft = value.get("draft")
        override = value.get("override")
        return Approve(
            answers,
            draft if isinstance(draft, str) else None,
            str(override) if override else None,
            by,
            at,
        )
    if kind == "reject":
        return Reject(str(value.get("reason") or ""), by, at)
    if kind == "revise":
        return Revise(str(value.get("notes") or ""), answers, value.get("rounds"), by, at)
    if kind == "fix":
        return Fix(
            str(value.get("item") or ""),
            str(value.get("action") or ""),
            str(value.get("as_kind") or ""),
            str(value.get("value") or ""),
            by,
            at,
        )
    if kind == "invalid":
        return Invalid(str(value.get("problem") or "an invalid answer"))
    return Invalid(f"unknown decision type {kind!r}")
