"""A person's answer to a paused thread, applied to the state: approve (the text shown,
or the person's own version, validated by the same checks), reject, or send back with
notes. Whatever it is, an invalid answer leaves the thread waiting, with the problem."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from batch import placeholders as ph
from batch.loop import inbox
from batch.loop.checking import edit_problems
from batch.loop.routing import model_seconds
from batch.state import LoopState


def apply_review_response(state: LoopState, response: Any) -> dict[str, Any]:
    decision = inbox.decode(response)
    decision.setdefault("at", datetime.now(UTC).isoformat(timespec="seconds"))
    answers = {**(state.get("human_answers") or {}),
               **{k: str(v) for k, v in (decision.get("answers") or {}).items()
                  if str(v).strip()}}
    kind = decision["type"]
    if kind == "approve":
        # What is approved: the text the person was shown (for a run the machine could not
        # approve, its best draft), or the person's own version of it.
        shown = inbox.shown(state)
        draft = decision.get("draft", shown["draft"])
        needs = ph.needs_of(draft, shown["needs_from_human"])
        missing = [n["placeholder"] for n in ph.unanswered(needs, answers)]
        if missing:
            return {"human_answers": answers,
                    "decision": {"type": "invalid",
                                 "problem": "approve needs a value for " + ", ".join(missing)}}
        if not decision.get("override"):
            if "draft" in decision:
                found = edit_problems(state, draft, answers)
                if found:
                    return {"human_answers": answers, "decision": {"type": "invalid", "problem": (
                        "the code checks find in the edited text: " + " | ".join(found[:5])
                        + "; approving it needs an override reason")}}
            elif shown["must_fix"]:
                return {"human_answers": answers, "decision": {"type": "invalid", "problem": (
                    f"the machine could not approve this text ({shown['stopped']}); "
                    f"approving it over what the checks still find needs an override "
                    f"reason")}}
        return {"human_answers": answers, "decision": decision, "draft": draft,
                "needs_from_human": needs, "deviations": shown["deviations"],
                "score": shown["score"], "stop_reason": "approved_by_human"}
    if kind == "reject":
        return {"decision": decision, "stop_reason": "rejected_by_human"}
    if kind == "revise":
        revisions = state.get("revisions", 0)
        limits = state["limits"]
        if revisions >= limits["max_revisions"]:
            return {"decision": {"type": "invalid", "problem":
                                 f"this thread has had {revisions} revisions, the limit "
                                 f"(loop.max_revisions)"}}
        per_revision = limits.get("rounds_per_revision", limits["max_rounds"])
        rounds = more_rounds(decision.get("rounds"), per_revision)
        if isinstance(rounds, str):
            return {"decision": {"type": "invalid", "problem": rounds}}
        notes = [n.strip() for n in str(decision.get("notes", "")).split("\n") if n.strip()]
        return {
            "human_answers": answers,
            "human_notes": [*state.get("human_notes", []), *notes],
            "must_fix": [f"A reviewer asks: {n}" for n in notes] or
                        ["A reviewer sent the text back: improve it."],
            "decision": decision,
            "revisions": revisions + 1,
            "meets_bar": False,
            # The text sent back is not a fallback any more: if the revision runs out of
            # rounds, the best of the new drafts is written, not the rejected one.
            "best": None,
            "limits": {**limits, "max_rounds": state.get("round", 0) + rounds,
                       "rounds_per_revision": per_revision,
                       **more_seconds(state)},
            "out_of_budget": False,
        }
    return {"decision": decision}


MAX_MORE_ROUNDS = 10  # the most rounds one send-back may ask for


def more_seconds(state: LoopState) -> dict[str, float]:
    """A send-back's model seconds: as many again as a run of the brief gets, counted
    from what it has spent (a text stopped by its budget would stop again at once)."""
    limits = state["limits"]
    per = limits.get("model_seconds_per_revision")
    if limits.get("max_model_seconds") is None or per is None:
        return {}
    return {"max_model_seconds": model_seconds(state) + per}


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
