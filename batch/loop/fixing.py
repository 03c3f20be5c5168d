"""A person's fix to the brief's checklist as read, taken by a waiting thread: the fix
kept in the state, and the text shown judged again at once against the fixed list.

The thread waits on after a fix (batch.loop.routing sends a "fix" back to review): the
person sees the new verdict, and a text the checks now pass is approved in one step.
What the person is shown stays what they were shown: a text the machine stopped on is
judged as that text; one the fixed list now passes is the text at the bar.
"""

from __future__ import annotations

from typing import Any

from batch.check_types import ChecklistFix
from batch.decision import Fix
from batch.judging.checklist.fixes import FixAction, fix_problem, make_fix
from batch.loop import inbox
from batch.loop.checking import checklist_of, findings_update
from batch.loop.verdict import verdict
from batch.state import LoopState


def fix_refusal(state: LoopState, decision: Fix) -> str | None:
    """Why this fix cannot be made to the thread's checklist, or None."""
    return fix_problem(
        checklist_of(state), decision.item, decision.action, decision.as_kind, decision.value
    )


def _as_read(state: LoopState) -> LoopState:
    return {**state, "checklist_fixes": []}


def fix_of(state: LoopState, decision: Fix) -> ChecklistFix:
    """The fix a `Fix` decision makes (`fix_refusal` passed it), as it is kept."""
    action: FixAction = decision.action  # type: ignore[assignment]  # fix_refusal checked it
    # made against the list as read, so that it names the words the reader read (a
    # value fixed twice is fixed from the brief's words, not from the first fix)
    made = make_fix(
        checklist_of(_as_read(state)), decision.item, action, decision.as_kind, decision.value
    )
    return ChecklistFix(**made, by=decision.by or "", at=decision.at)


def fixed_update(state: LoopState, decision: Fix, taken: dict[str, Any]) -> dict[str, Any]:
    """The review node's update for a fix `fix_refusal` passed."""
    fixes = [*state.get("checklist_fixes", []), fix_of(state, decision)]
    shown = inbox.shown(state)
    text = {k: shown[k] for k in ("draft", "needs_from_human", "deviations")}
    judged: LoopState = {**state, "checklist_fixes": fixes, **text}  # type: ignore[typeddict-item]
    checked = findings_update(judged)
    made = verdict({**judged, **checked}, None, "checks")  # type: ignore[typeddict-item]
    update: dict[str, Any] = {
        **checked,
        "checklist_fixes": fixes,
        "decision": taken,
        "holds": made["holds"],
        "additions": made["additions"],
    }
    # whichever of the thread's texts a page shows next (the best draft of a text the
    # machine stops on, the text at the bar), it is this one, with what the fixed list
    # finds in it
    best = state.get("best")
    update["best"] = {
        **(best or {}),
        **text,
        "round": best["round"] if best else state.get("round", 0),
        "must_fix": made["must_fix"],
        "holds": made["holds"],
        "additions": made["additions"],
        "score": made["score"],
        "judgement": checked["judgement"],
    }
    if shown["stopped"] and not made["meets_bar"]:
        return update  # still a text the machine could not approve
    # the text shown is the text at the bar now (or, at the bar before, no longer)
    return {
        **update,
        **text,
        "score": made["score"],
        "must_fix": made["must_fix"],
        "meets_bar": made["meets_bar"],
    }
