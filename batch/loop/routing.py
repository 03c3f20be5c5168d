"""Where the loop goes next: pure functions of the state, no model, no I/O.

`decide` names both the next node and, when the loop ends, the stop reason; the nodes
that end the loop otherwise (a writer that failed, a person's decision) set theirs in
the state; and `final_reason` is what the finish node writes and the run log records,
so the edge and the logged reason can never disagree.
"""

from __future__ import annotations

import hashlib
from typing import Literal, NamedTuple

from batch.check_types import Finding
from batch.judging.checks import repaired_hold
from batch.outcomes import STOP_REASONS, StopReason
from batch.state import LoopState
from batch.thread_inputs import limits_of

Next = Literal["writer", "review", "finish"]


class Route(NamedTuple):
    next: Next
    reason: StopReason | None  # the stop reason when next == "finish"


def stalled(score_history: list[float], must_fix_history: list[list[str]], rounds: int) -> bool:
    """No better score for `rounds` rounds while the must_fix set stayed the same."""
    if len(score_history) <= rounds or len(must_fix_history) <= rounds:
        return False
    recent, earlier = score_history[-rounds:], score_history[:-rounds]
    if max(recent) > max(earlier):
        return False
    tail = [frozenset(s) for s in must_fix_history[-(rounds + 1) :]]
    return all(s == tail[0] for s in tail)


def decide(state: LoopState) -> Route:
    """Where to go after the critic. `limits.review` says which endings a person sees:
    never; when_needed (an approved text with placeholders to fill); unfinished (that,
    and every text the machine could not approve: max rounds, no progress); always
    (every ending). A text that meets the bar with holds (findings the checks cannot
    vouch for) is never approved by the machine: it waits for a person in every mode
    but never, where it ends `held`."""
    mode = limits_of(state).review
    if state.get("meets_bar") and state.get("holds"):
        # what the checks cannot vouch for is a person's to judge, never approved by
        # default; what the text adds, and notes of the brief handed back, are repaired
        # first, where they can be
        if holds_to_repair(state):
            return Route("writer", None)
        return Route("finish", "held") if mode == "never" else Route("review", None)
    if state.get("meets_bar") and told_to_repair(state):
        # advice the repairer acts on (a plain fact its words may not tell, words the
        # text adds): tried once before the text goes on; the verdict does not wait on it
        return Route("writer", None)
    if state.get("meets_bar"):
        wants_review = mode == "always" or (
            mode in ("when_needed", "unfinished") and bool(state.get("needs_from_human"))
        )
        return Route("review", None) if wants_review else Route("finish", "approved")
    ending = machine_ending(state)
    if ending is None:
        return Route("writer", None)
    if mode in ("unfinished", "always"):
        return Route("review", None)  # a person sees the best draft and why it stopped
    return Route("finish", ending)


def model_seconds(state: LoopState) -> float:
    """The model seconds the thread's finished steps spent."""
    return sum(float(c.get("seconds", 0.0)) for c in state.get("calls", []))


def spent_seconds(state: LoopState) -> float:
    """What the thread's finished steps spent of its budget: their model seconds and
    the seconds its doc's examples took to run."""
    return model_seconds(state) + sum(state.get("example_seconds", []))


def over_budget(state: LoopState) -> bool:
    """The next round would take the thread past `limits.max_model_seconds`.

    A round that repairs the best draft may start while any second is left: it is cut
    at its next call when they are spent (batch.models.budget) and keeps the repairs
    made before, so it pays in part. A round that writes the whole text again pays
    only whole, so it starts only when what such a round has cost this thread still
    fits."""
    limit = limits_of(state).max_model_seconds
    if limit is None:
        return False
    spent = spent_seconds(state)
    if spent >= limit:
        return True
    if repairs_next(state):
        return False
    return spent + whole_round_seconds(state) > limit


def repairs_next(state: LoopState) -> bool:
    """The next round repairs the best draft (batch.loop.writing.repair_round): the
    last round's text is the best, so its repairs have not been tried, and a must-fix
    the checks found in it has a repair."""
    best = state.get("best")
    if not best or best["round"] != state.get("round", 0):
        return False
    if limits_of(state).repair_samples < 1:
        return False
    return has_repair(state.get("findings", []))


def repairable(finding: Finding) -> bool:
    """A finding the repairer tries (batch.loop.writing.repairs): a must-fix, or a hold
    it tries first (a sentence adding to the brief, a note of it handed back), either
    with a repair."""
    return bool(finding.get("repair")) and (
        finding["severity"] == "must_fix" or repaired_hold(finding)
    )


def has_repair(findings: list[Finding]) -> bool:
    """A finding the repairer tries is among them."""
    return any(repairable(f) for f in findings)


def repairs_tried(state: LoopState) -> bool:
    """The writer's log says the best draft's repairs were all tried: the same tries
    would fail again."""
    best = state.get("best")
    if not best:
        return False
    key = repair_key(best["draft"])
    return any(e.get("repaired") == key for e in state.get("writer_log", []))


def holds_to_repair(state: LoopState) -> bool:
    """A text that meets the bar but adds to its brief, or hands back its notes, goes back
    to the writer once, for the repairs that lift those holds (batch.loop.writing.repairs),
    before a person sees it:
    when repairs are on, rounds and budget are left, and this draft's were not tried."""
    if state.get("round", 0) >= limits_of(state).max_rounds or over_budget(state):
        return False
    if not any(repaired_hold(f) and repairable(f) for f in state.get("findings", [])):
        return False
    return repairs_next(state) and not repairs_tried(state)


def told_to_repair(state: LoopState) -> bool:
    """A text at the bar with advice the repairer acts on (a plain fact of the brief its
    words may not tell, a sentence that adds words of the writer's own: warnings with a
    repair, of the checks whose holds it tries): sent to the repairer once, as holds
    are. The verdict does not wait on it: what the repairs leave is approved."""
    if state.get("round", 0) >= limits_of(state).max_rounds or over_budget(state):
        return False
    if not any(
        f["severity"] == "warn" and repaired_hold(f) and repairable(f)
        for f in state.get("findings", [])
    ):
        return False
    return repairs_next(state) and not repairs_tried(state)


def repair_key(draft: str) -> str:
    """What the writer's log keeps of a draft whose repairs were tried."""
    return hashlib.sha256(draft.encode("utf-8")).hexdigest()[:16]


def whole_round_seconds(state: LoopState) -> float:
    """What a round that writes the whole text costs this thread: its dearest whole
    draft so far (first drafts, rewrite, API docs) and its dearest critic call. For a
    thread logged before writer steps carried their seconds: its average round."""
    drafts = [
        float(e["seconds"])
        for e in state.get("writer_log", [])
        if e.get("kind") in WHOLE_DRAFTS and "seconds" in e
    ]
    if not drafts:
        rounds = state.get("round", 0)
        return model_seconds(state) / rounds if rounds else 0.0
    critic = [
        float(c.get("seconds", 0.0)) for c in state.get("calls", []) if c.get("role") == "critic"
    ]
    return max(drafts) + max(critic, default=0.0)


# writer steps that write the whole text again (batch.loop.nodes): after round one, what
# a round falls back on when no repair of the best draft was kept
WHOLE_REWRITES = frozenset({"rewrite", "docs by name"})
WHOLE_DRAFTS = WHOLE_REWRITES | {"first drafts"}


def unpaid_rewrite(state: LoopState) -> bool:
    """`limits.spend = "where_it_pays"`: the last round wrote the whole text again and
    did not beat the best draft. The best draft's repairs were tried already (a round
    rewrites only when none was kept), so the next round would be one more whole
    rewrite of the same, the costliest step there is, of a draft the last one did not
    improve on. (In `bench loop` a whole rewrite is rare once repairs run: 1 in 43
    briefs; docs/benchmarks.md, "Where the model time pays".)"""
    best, round_ = state.get("best"), state.get("round", 0)
    if limits_of(state).spend != "where_it_pays" or not best:
        return False
    if best["round"] >= round_:
        # the last round's text is the best (round one's always is): its repairs are
        # worth a round
        return False
    return any(
        e.get("kind") in WHOLE_REWRITES
        for e in state.get("writer_log", [])
        if e.get("round") == round_
    )


def machine_ending(state: LoopState) -> StopReason | None:
    """Why the loop would stop without an approval, or None while it goes on."""
    if state.get("round", 0) >= limits_of(state).max_rounds:
        return "max_rounds"
    if state.get("out_of_budget") or over_budget(state):
        return "budget"
    if unpaid_rewrite(state):
        return "no_progress"
    if state.get("repeats", 0) >= 2:
        # The writer gave back the same text twice, the second time asked to start
        # afresh: more rounds would get the same answer.
        return "no_progress"
    if stalled(
        state.get("score_history", []),
        state.get("must_fix_history", []),
        limits_of(state).no_progress_rounds,
    ):
        return "no_progress"
    return None


def route_after_writer(state: LoopState) -> Literal["critic", "review", "finish"]:
    """A writer that failed after an earlier round ends the loop with its best draft; one
    whose budget ran out before it had a new draft ends it as the critic's edge would
    (the last draft was judged already)."""
    if state.get("writer_error"):
        return "finish"
    if state.get("out_of_budget") and state.get("best"):
        return "review" if decide(state).next == "review" else "finish"
    if state.get("meets_bar"):
        # sent back only to repair what a text at the bar adds, and no repair was kept:
        # the draft was judged already, and goes on as it is
        return "review" if decide(state).next == "review" else "finish"
    return "critic"


def route_after_critic(state: LoopState) -> Next:
    return decide(state).next


def route_after_review(state: LoopState) -> Literal["writer", "review", "finish"]:
    decision = (state.get("decision") or {}).get("type")
    if decision == "revise":
        return "writer"
    if decision in ("approve", "reject"):
        return "finish"
    return "review"  # a fix of the checklist (judged again), or an unusable answer: ask again


def final_reason(state: LoopState) -> StopReason:
    """Why the thread's loop ended: the reason a node set, else the one `decide` names
    for this state (the edge that led to finish). Never a default approval: a state
    with neither is a failure."""
    reason = state.get("stop_reason") or decide(state).reason
    return reason if reason in STOP_REASONS else "error"  # type: ignore[return-value]
