"""Routing is a pure function of the state: tested without a model or a graph."""

from batch.loop.routing import (
    decide,
    holds_to_repair,
    repair_key,
    route_after_critic,
    route_after_review,
    route_after_writer,
    stalled,
)


def state(**kw):
    base = {
        "limits": {
            "max_rounds": 3,
            "no_progress_rounds": 2,
            "review": "when_needed",
            "threshold": 70,
            "max_revisions": 2,
        },
        "round": 1,
        "meets_bar": False,
        "score_history": [50.0],
        "must_fix_history": [["a"]],
        "needs_from_human": [],
    }
    base.update(kw)
    return base


def test_approved_without_needs_finishes_approved():
    assert decide(state(meets_bar=True)) == ("finish", "approved")


def test_approved_with_needs_goes_to_review():
    s = state(meets_bar=True, needs_from_human=[{"placeholder": "[FIGURE NEEDED: x]"}])
    assert route_after_critic(s) == "review"


def test_review_always_and_never():
    limits = state()["limits"]
    always = state(meets_bar=True, limits={**limits, "review": "always"})
    assert decide(always).next == "review"
    never = state(
        meets_bar=True,
        needs_from_human=[{"placeholder": "[X NEEDED: y]"}],
        limits={**limits, "review": "never"},
    )
    assert decide(never) == ("finish", "approved")


def test_max_rounds_beats_continuing():
    assert decide(state(round=3)) == ("finish", "max_rounds")
    assert decide(state(round=2)) == ("writer", None)


def test_approval_wins_over_max_rounds():
    assert decide(state(round=3, meets_bar=True)) == ("finish", "approved")


def test_no_progress_needs_same_must_fix_and_no_better_score():
    s = state(
        round=3,
        limits={**state()["limits"], "max_rounds": 9},
        score_history=[60.0, 55.0, 60.0],
        must_fix_history=[["a"], ["a"], ["a"]],
    )
    assert decide(s) == ("finish", "no_progress")
    better = dict(s, score_history=[60.0, 55.0, 61.0])
    assert decide(better) == ("writer", None)
    changed = dict(s, must_fix_history=[["a"], ["b"], ["a"]])
    assert decide(changed) == ("writer", None)


def test_stalled_needs_enough_history():
    assert not stalled([50.0, 50.0], [["a"], ["a"]], 2)
    assert stalled([50.0, 50.0, 50.0], [["a"], ["a"], ["a"]], 2)
    assert stalled([50.0, 40.0], [[], []], 1)


def test_route_after_review():
    assert route_after_review({"decision": {"type": "revise"}}) == "writer"
    assert route_after_review({"decision": {"type": "approve"}}) == "finish"
    assert route_after_review({"decision": {"type": "reject"}}) == "finish"
    assert route_after_review({"decision": {"type": "invalid"}}) == "review"


def test_route_after_writer():
    assert route_after_writer({"draft": "x"}) == "critic"
    assert route_after_writer({"writer_error": "invalid twice"}) == "finish"


def test_an_unchanged_draft_twice_stops_with_no_progress():
    assert decide(state(round=2, repeats=1)) == ("writer", None)
    assert decide(state(round=2, repeats=2)) == ("finish", "no_progress")


def test_final_reason_is_the_edge_s_reason_or_the_node_s_never_a_default_approval():
    from typing import get_args

    from batch.loop.routing import final_reason
    from batch.outcomes import AWAITING, STOP_REASONS, StopReason

    # every reason decide() can name is the reason recorded
    for s in (state(meets_bar=True, review="never"), state(round=3), state(round=1, repeats=2)):
        assert decide(s).next == "finish"
        assert final_reason(s) == decide(s).reason
    # a node's reason wins (writer error, a person's decision)
    for reason in ("error", "approved_by_human", "rejected_by_human"):
        assert final_reason(state(stop_reason=reason, round=1)) == reason
    # a state routing would send on to the writer has not ended: it is never "approved"
    assert decide(state(round=1)).next == "writer"
    assert final_reason(state(round=1)) == "error"
    assert final_reason(state(stop_reason=AWAITING)) == "error"  # a run state, not a reason
    assert set(get_args(StopReason)) == STOP_REASONS and AWAITING not in STOP_REASONS


def _rewritten(kind="rewrite", best_round=1, round_=2, spend="where_it_pays", **kw):
    """A thread after round `round_`, whose writer step in that round was `kind`."""
    limits = {
        "max_rounds": 5,
        "no_progress_rounds": 3,
        "review": "never",
        "threshold": 70,
        "max_revisions": 2,
        "spend": spend,
    }
    log = [
        {"round": 1, "kind": "first drafts"},
        {"round": round_, "kind": "repairs", "repaired": "k", "attempts": []},
        {"round": round_, "kind": kind},
    ]
    return state(
        limits=limits,
        round=round_,
        writer_log=log,
        best={"draft": "x", "score": 60.0, "round": best_round, "must_fix": ["a"]},
        score_history=[60.0, 40.0][:round_],
        must_fix_history=[["a"], ["a", "b"]],
        **kw,
    )


def test_a_whole_rewrite_that_did_not_beat_the_best_is_not_paid_for_again():
    assert decide(_rewritten()) == ("finish", "no_progress")
    # the whole docs of a source file written again are the same kind of step
    assert decide(_rewritten(kind="docs by name")) == ("finish", "no_progress")
    # a person sees it, as every unfinished ending
    s = _rewritten()
    s["limits"]["review"] = "unfinished"
    assert decide(s) == ("review", None)


def test_a_rewrite_that_paid_or_a_round_of_repairs_goes_on():
    # the last round's text is the new best: its own repairs are worth a round
    assert decide(_rewritten(best_round=2)) == ("writer", None)
    # repairs only (one kept, not yet the best): the next round still repairs
    assert decide(_rewritten(kind="repairs")) == ("writer", None)
    # round one's first draft is no rewrite, however it scored
    assert decide(_rewritten(kind="first drafts", round_=1)) == ("writer", None)
    # a rewrite in an earlier round, not the last, says nothing of the next
    s = _rewritten(best_round=1, round_=3)
    s["writer_log"] = [{"round": 2, "kind": "rewrite"}, {"round": 3, "kind": "repairs"}]
    assert decide(s) == ("writer", None)


def test_every_round_spends_every_round():
    assert decide(_rewritten(spend="every_round")) == ("writer", None)
    # a thread started before the setting existed keeps the old way
    s = _rewritten()
    del s["limits"]["spend"]
    assert decide(s) == ("writer", None)


def test_a_held_text_waits_for_a_person_in_every_mode_but_never_where_it_ends_held():
    for mode in ("when_needed", "unfinished", "always"):
        s = state(meets_bar=True, holds=["the brief could not be read"])
        s["limits"]["review"] = mode
        assert decide(s) == ("review", None), mode
    s = state(meets_bar=True, holds=["the brief could not be read"])
    s["limits"]["review"] = "never"
    assert decide(s) == ("finish", "held")
    # a hold does not stop a text that still has must-fixes: the writer goes on
    assert decide(state(holds=["x"])) == ("writer", None)
    # and no hold, no wait
    assert decide(state(meets_bar=True, holds=[])) == ("finish", "approved")


def test_a_text_at_the_bar_with_notes_goes_back_for_repairs_once_then_waits():
    note = {
        "code": "notes:1",
        "severity": "hold",
        "message": "a note",
        "sentence": "Bins out by 7am Wednesday.",
        "repair": {"action": "rewrite", "sentences": ["Bins out by 7am Wednesday."]},
    }
    s = state(
        meets_bar=True,
        holds=["a note"],
        findings=[note],
        best={"round": 1, "draft": "Bins out by 7am Wednesday."},
        score_history=[100.0],
        must_fix_history=[[]],
    )
    assert holds_to_repair(s)
    assert decide(s).next == "writer"
    tried = {**s, "writer_log": [{"repaired": repair_key("Bins out by 7am Wednesday.")}]}
    assert not holds_to_repair(tried)
    assert decide(tried).next == "review"
