"""A person's answer to a paused thread: whether it can be taken (`refusal`, the one
policy) and, if so, what it does to the state (`apply_review_response`): approve (the
text shown, or the person's own version, validated by the same checks), reject, or send
back with notes, or fix the brief's checklist as read (batch.loop.fixing). An answer
that cannot be taken leaves the thread waiting, with why."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime
from typing import Any

from batch import placeholders
from batch.decision import Approve, Decision, Fix, Invalid, Reject, Revise, as_dict
from batch.loop import inbox
from batch.loop.checking import edit_problems, edit_verification, findings_of
from batch.loop.fixing import fix_refusal, fixed_update
from batch.loop.routing import spent_seconds
from batch.state import LoopState
from batch.thread_inputs import limits_of

MAX_MORE_ROUNDS = 10  # the most rounds one send-back may ask for
SHOWN_FINDINGS = 5  # findings quoted in a refusal; the rest are counted


def answers_of(state: LoopState, decision: Decision) -> dict[str, str]:
    """The placeholder values the thread has after this answer: those given before and
    the non-empty ones it brings."""
    given = decision.answers if isinstance(decision, Approve | Revise) else {}
    return {
        **(state.get("human_answers") or {}),
        **{k: str(v) for k, v in given.items() if str(v).strip()},
    }


def approved_text(shown: dict[str, Any], decision: Approve) -> tuple[str, list[dict[str, str]]]:
    """What an approval approves, and its placeholders: the text the person was `shown`
    (inbox.shown: for a run the machine could not approve, its best draft), or their own
    version of it."""
    draft = shown["draft"] if decision.draft is None else decision.draft
    return draft, placeholders.needs_of(draft, shown["needs_from_human"])


def refusal(state: LoopState, decision: Decision) -> str | None:
    """Why `decision` cannot be taken on this waiting thread, or None if it can.

    The one policy: `review.answer` asks it to refuse before the thread is resumed, and
    the review node asks it again to mark an answer from any other tooling invalid, so
    both say the same words. An edited text's checks run once per answer (a clean
    result of `edit_problems` is kept for the review node's look)."""
    if isinstance(decision, Invalid):
        return decision.problem
    if isinstance(decision, Approve):
        return _approve_refusal(state, decision)
    if isinstance(decision, Fix):
        return fix_refusal(state, decision)
    words = decision.reason if isinstance(decision, Reject) else decision.notes
    if not words.strip():
        return f"{decision.kind} needs a reason or notes"
    if isinstance(decision, Revise):
        done, cap = state.get("revisions", 0), limits_of(state).max_revisions
        if done >= cap:
            return (
                f"this thread has been revised {done} time(s), the limit "
                f"(loop.max_revisions = {cap}): approve or reject it"
            )
        rounds = more_rounds(decision.rounds, 1)
        if isinstance(rounds, str):
            return rounds
    return None


def _approve_refusal(state: LoopState, decision: Approve) -> str | None:
    if decision.draft is not None and not decision.draft.strip():
        return "the edited text is empty"
    shown = inbox.shown(state)
    draft, needs = approved_text(shown, decision)
    answers = answers_of(state, decision)
    missing = [n["placeholder"] for n in placeholders.unanswered(needs, answers)]
    if missing:
        return "approve needs a value for every placeholder; missing: " + ", ".join(missing)
    if (decision.override or "").strip():
        return None
    if decision.draft is not None:
        found = edit_problems(state, draft, answers)
        where = "the code checks find in the edited text: "
    else:
        found = shown["must_fix"]
        where = (
            f"the machine could not approve this text ({shown['stopped']}); the code "
            f"checks still find: "
        )
    if not found:
        return None
    more = len(found) - SHOWN_FINDINGS
    return (
        where
        + " | ".join(found[:SHOWN_FINDINGS])
        + (f" (and {more} more)" if more > 0 else "")
        + "; fix it, or approve with an override reason"
    )


def apply_review_response(state: LoopState, response: Any) -> dict[str, Any]:
    """The review node's update for a person's answer (a decision dict, or an Agent
    Inbox response from other tooling: batch.loop.inbox.decode): the decision taken, or
    marked invalid with the `refusal` that keeps the thread waiting. Values given with
    any answer are kept."""
    decision = inbox.decode(response)
    if isinstance(decision, Invalid):
        return {"decision": as_dict(decision)}
    if not decision.at:
        decision = replace(decision, at=datetime.now(UTC).isoformat(timespec="seconds"))
    answers = answers_of(state, decision)
    problem = refusal(state, decision)
    if problem:
        return {"human_answers": answers, "decision": as_dict(Invalid(problem))}
    taken = as_dict(decision)
    before = state.get("decision") or {}
    # a reopen stays the question a fix of the checklist leaves open
    reopen = before if before.get("type") == "reopen" else before.get("reopen") or {}
    if isinstance(decision, Fix):
        return fixed_update(state, decision, {**taken, "reopen": reopen} if reopen else taken)
    if isinstance(decision, Approve | Reject) and reopen:
        # what the person answers is the reopen's reason: the record says so
        taken["after_reopen"] = str(reopen.get("reason") or "")
    if isinstance(decision, Approve):
        shown = inbox.shown(state)
        draft, needs = approved_text(shown, decision)
        if shown.get("additions") and decision.draft is None:
            # approved as shown, its additions marked: the person vouches for them
            n = len(shown["additions"])
            taken["vouched"] = (
                f"the {n} sentence{'s' if n != 1 else ''} adding to the brief "
                f"{'are' if n != 1 else 'is'} fine"
            )
        # what running the approved text's examples shows, not an earlier draft's
        verified = (
            edit_verification(state, draft, answers)
            if decision.draft is not None
            else findings_of({**state, "human_answers": answers}, draft, needs).get(
                "verification", ""
            )
        )
        return {
            "human_answers": answers,
            "decision": taken,
            "draft": draft,
            "verification": verified,
            "needs_from_human": needs,
            "deviations": shown["deviations"],
            "score": shown["score"],
            "stop_reason": "approved_by_human",
        }
    if isinstance(decision, Reject):
        return {"decision": taken, "stop_reason": "rejected_by_human"}
    return _send_back(state, decision, taken, answers)


def _send_back(
    state: LoopState, decision: Revise, taken: dict[str, Any], answers: dict[str, str]
) -> dict[str, Any]:
    limits = limits_of(state)
    per_revision = limits.revision_rounds
    rounds = more_rounds(decision.rounds, per_revision)
    assert isinstance(rounds, int)  # refusal() has refused a number out of range
    notes = [n.strip() for n in decision.notes.split("\n") if n.strip()]
    return {
        "human_answers": answers,
        "human_notes": [*state.get("human_notes", []), *notes],
        "must_fix": [f"A reviewer asks: {n}" for n in notes],
        # how many rounds it gave from which round: what a page tells when fewer ran
        "decision": {**taken, "from_round": state.get("round", 0), "rounds_given": rounds},
        "revisions": state.get("revisions", 0) + 1,
        "meets_bar": False,
        # The text sent back is not a fallback any more: if the revision runs out of
        # rounds, the best of the new drafts is written, not the rejected one.
        "best": None,
        "limits": limits.model_copy(
            update={
                "max_rounds": state.get("round", 0) + rounds,
                "rounds_per_revision": per_revision,
                **more_seconds(state),
            }
        ),
        "out_of_budget": False,
    }


def more_seconds(state: LoopState) -> dict[str, float]:
    """A send-back's model seconds: as many again as a run of the brief gets, counted
    from what it has spent (a text stopped by its budget would stop again at once)."""
    limits = limits_of(state)
    per = limits.model_seconds_per_revision
    if limits.max_model_seconds is None or per is None:
        return {}
    return {"max_model_seconds": spent_seconds(state) + per}


def more_rounds(asked: Any, default: int) -> int | str:
    """The rounds a send-back gives: those asked for (1 to MAX_MORE_ROUNDS), else
    `default`; or why the asked number is refused."""
    if asked is None or asked == "":
        return default
    try:
        rounds = int(str(asked).strip())
    except ValueError:
        return f"more rounds must be a whole number, not {str(asked)[:40]!r}"
    if not 1 <= rounds <= MAX_MORE_ROUNDS:
        return f"more rounds must be 1 to {MAX_MORE_ROUNDS}, not {rounds}"
    return rounds
