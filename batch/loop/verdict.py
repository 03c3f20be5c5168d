"""The verdict of one round: the score, the must_fix and whether the draft meets the
bar, computed by code from the checks' findings and the critic's answer, never by a
model. Also which draft is the best so far: the loop never loses it."""

from __future__ import annotations

from typing import Any

from batch.judging import checks
from batch.judging.checks.support import additions_of
from batch.judging.feedback import (
    GENERIC_FEEDBACK,
    feedback_key,
    sanitize_feedback,
    split_echoes,
)
from batch.loop.checking import context_of, sources_of
from batch.state import BestDraft, LoopState
from batch.thread_inputs import limits_of, rubric_of


def rank(score: float, must_fix: list[str]) -> tuple[float, int]:
    """How a round's draft ranks against the best so far: the higher score, then the
    fewer must_fix. Only a strictly higher rank replaces the best: a tie keeps the
    earlier draft, which a later one was never shown to beat (and whose repairs may not
    have been tried yet)."""
    return score, -len(must_fix)


def verdict(state: LoopState, answer: Any, mode: str) -> dict[str, Any]:
    """The score, the must_fix and the verdict from the code checks' findings and the
    critic's answer, as `mode` ("checks", "advice" or "gate") weighs the model.
    `answer` is None when the critic was not asked (checks mode, or advice on a draft
    the checks refuse)."""
    rubric = rubric_of(state)
    asked = answer is not None
    scores = answer.scores.model_dump() if asked else {}
    critic_score = rubric.weighted_score(scores) if asked else None
    findings = state.get("findings", [])
    judged = [state.get("draft", ""), *sources_of(state)]
    critic_must, echoes = split_echoes(sanitize_feedback(answer.must_fix if asked else []), judged)
    critic_improve, more = split_echoes(
        sanitize_feedback(answer.would_improve if asked else []), judged
    )
    must_fix = [f["message"] for f in findings if f["severity"] == "must_fix"]
    would_improve = [f["message"] for f in findings if f["severity"] == "warn"]
    holds = [f["message"] for f in findings if f["severity"] == "hold"]
    additions = additions_of(findings)
    if any(f["code"] in checks.NO_TEXT for f in findings):
        score = 0.0  # whatever a model says of it, no text scores nothing
    elif mode == "gate":
        assert critic_score is not None  # a gate is never judged unasked (nodes.critic)
        score = critic_score
        must_fix += [m for m in critic_must if m not in must_fix]
    else:
        # Checks or advice: the code checks carry the verdict; an advising model's points
        # are passed on to the writer as suggestions only.
        # the record's, made with the findings: never judged again here (a state from
        # before records were kept is scored from its findings)
        made = state.get("judgement")
        score = (
            made["score"] if made is not None else checks.code_score(findings, context_of(state))
        )
        would_improve += critic_must
    would_improve += critic_improve
    if echoes + more:
        would_improve.append(GENERIC_FEEDBACK)
    threshold = limits_of(state).threshold
    meets_bar = score >= threshold and not must_fix
    # Codes for the deterministic findings, normalised text for the model's own points:
    # the no-progress rule needs "the same problem" to compare equal across rounds.
    keys = sorted(
        {f["code"] for f in findings if f["severity"] == "must_fix"}
        | {feedback_key(m) for m in must_fix if m not in {f["message"] for f in findings}}
    )
    update: dict[str, Any] = {
        "scores": scores,
        "critic_score": critic_score,
        "score": score,
        "must_fix": must_fix,
        "would_improve": would_improve,
        "holds": holds,
        "additions": additions,
        "meets_bar": meets_bar,
        "score_history": [score],
        "must_fix_history": [keys],
    }
    best = state.get("best")
    if best is None or rank(score, must_fix) > rank(best["score"], best.get("must_fix", [])):
        best = BestDraft(
            draft=state["draft"],
            score=score,
            round=state.get("round", 0),
            needs_from_human=state.get("needs_from_human", []),
            deviations=state.get("deviations", []),
            must_fix=must_fix,
            holds=holds,
            additions=additions,
        )
        if state.get("judgement"):
            best["judgement"] = state["judgement"]
        update["best"] = best
    return update
