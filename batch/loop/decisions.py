"""A person's answer to a paused thread: whether it can be taken (`refusal`, the one
policy) and, if so, what it does to the state (`apply_review_response`): approve (the
text shown, or the person's own version, validated by the same checks), reject, or send
back with notes. An answer that cannot be taken leaves the thread waiting, with why."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from batch import placeholders
from batch.loop import inbox
from batch.loop.checking import edit_problems, edit_verification, findings_of
from batch.loop.routing import spent_seconds
from batch.state import LoopState

MAX_MORE_ROUNDS = 10  # the most rounds one send-back may ask for
SHOWN_FINDINGS = 5  # findings quoted in a refusal; the rest are counted


def answers_of(state: LoopState, decision: dict[str, Any]) -> dict[str, str]:
    """The placeholder values the thread has after this answer: those given before and
    the non-empty ones it brings."""
    given = decision.get("answers") or {}
    return {
        **(state.get("human_answers") or {}),
        **{k: str(v) for k, v in given.items() if str(v).strip()},
    }


def approved_text(
    shown: dict[str, Any], decision: dict[str, Any]
) -> tuple[str, list[dict[str, str]]]:
    """What an approval approves, and its placeholders: the text the person was `shown`
    (inbox.shown: for a run the machine could not approve, its best draft), or their own
    version of it."""
    draft = decision.get("draft", shown["draft"])
    return draft, placeholders.needs_of(draft, shown["needs_from_human"])


def refusal(state: LoopState, decision: dict[str, Any]) -> str | None:
    """Why `decision` cannot be taken on this waiting thread, or None if it can.

    The one policy: `review.answer` asks it to refuse before the thread is resumed, and
    the review node asks it again to mark an answer from any other tooling invalid, so
    both say the same words. An edited text's checks run once per answer (a clean
    result of `edit_problems` is kept for the review node's look)."""
    kind = decision.get("type")
    if kind == "approve":
        return _approve_refusal(state, decision)
    if kind in ("reject", "revise"):
        words = decision.get("reason" if kind == "reject" else "notes")
        if not str(words or "").strip():
            return f"{kind} needs a reason or notes"
    if kind == "revise":
        done, cap = state.get("revisions", 0), state["limits"]["max_revisions"]
        if done >= cap:
            return (
                f"this thread has been revised {done} time(s), the limit "
                f"(loop.max_revisions = {cap}): approve or reject it"
            )
        rounds = more_rounds(decision.get("rounds"), 1)
        if isinstance(rounds, str):
            return rounds
    return None


def _approve_refusal(state: LoopState, decision: dict[str, Any]) -> str | None:
    if "draft" in decision and not str(decision["draft"]).strip():
        return "the edited text is empty"
    shown = inbox.shown(state)
    draft, needs = approved_text(shown, decision)
    answers = answers_of(state, decision)
    missing = [n["placeholder"] for n in placeholders.unanswered(needs, answers)]
    if missing:
        return "approve needs a value for every placeholder; missing: " + ", ".join(missing)
    if str(decision.get("override") or "").strip():
        return None
    if "draft" in decision:
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
    """The review node's update for a person's answer (an Agent Inbox response, see
    batch.loop.inbox): the decision taken, or marked invalid with the `refusal` that
    keeps the thread waiting. Values given with any answer are kept."""
    decision = inbox.decode(response)
    decision.setdefault("at", datetime.now(UTC).isoformat(timespec="seconds"))
    answers = answers_of(state, decision)
    if decision["type"] == "invalid":
        return {"decision": decision}
    problem = refusal(state, decision)
    if problem:
        return {"human_answers": answers, "decision": {"type": "invalid", "problem": problem}}
    kind = decision["type"]
    before = state.get("decision") or {}
    if kind in ("approve", "reject") and before.get("type") == "reopen":
        # what the person answers is the reopen's reason: the record says so
        decision["after_reopen"] = str(before.get("reason") or "")
    if kind == "approve":
        shown = inbox.shown(state)
        draft, needs = approved_text(shown, decision)
        if shown.get("additions") and "draft" not in decision:
            # approved as shown, its additions marked: the person vouches for them
            n = len(shown["additions"])
            decision["vouched"] = (
                f"the {n} sentence{'s' if n != 1 else ''} adding to the brief "
                f"{'are' if n != 1 else 'is'} fine"
            )
        # what running the approved text's examples shows, not an earlier draft's
        verified = (
            edit_verification(state, draft, answers)
            if "draft" in decision
            else findings_of({**state, "human_answers": answers}, draft, needs).get(
                "verification", ""
            )
        )
        return {
            "human_answers": answers,
            "decision": decision,
            "draft": draft,
            "verification": verified,
            "needs_from_human": needs,
            "deviations": shown["deviations"],
            "score": shown["score"],
            "stop_reason": "approved_by_human",
        }
    if kind == "reject":
        return {"decision": decision, "stop_reason": "rejected_by_human"}
    return _send_back(state, decision, answers)


def _send_back(
    state: LoopState, decision: dict[str, Any], answers: dict[str, str]
) -> dict[str, Any]:
    limits = state["limits"]
    per_revision = limits.get("rounds_per_revision", limits["max_rounds"])
    rounds = more_rounds(decision.get("rounds"), per_revision)
    notes = [n.strip() for n in str(decision.get("notes", "")).split("\n") if n.strip()]
    return {
        "human_answers": answers,
        "human_notes": [*state.get("human_notes", []), *notes],
        "must_fix": [f"A reviewer asks: {n}" for n in notes],
        # how many rounds it gave from which round: what a page tells when fewer ran
        "decision": {**decision, "from_round": state.get("round", 0), "rounds_given": rounds},
        "revisions": state.get("revisions", 0) + 1,
        "meets_bar": False,
        # The text sent back is not a fallback any more: if the revision runs out of
        # rounds, the best of the new drafts is written, not the rejected one.
        "best": None,
        "limits": {
            **limits,
            "max_rounds": state.get("round", 0) + rounds,
            "rounds_per_revision": per_revision,
            **more_seconds(state),
        },
        "out_of_budget": False,
    }


def more_seconds(state: LoopState) -> dict[str, float]:
    """A send-back's model seconds: as many again as a run of the brief gets, counted
    from what it has spent (a text stopped by its budget would stop again at once)."""
    limits = state["limits"]
    per = limits.get("model_seconds_per_revision")
    if limits.get("max_model_seconds") is None or per is None:
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
