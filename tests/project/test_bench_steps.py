"""How `bench loop` reads a thread's writer steps: what each cost and whether it paid.
The spending rule (loop.spend) was chosen from these numbers, so they are tested."""

from __future__ import annotations

from bench.loop import by_step, steps_of


def attempt(action, by, kept, calls=0, seconds=0.0):
    return {"action": action, "by": by, "kept": kept, "calls": calls, "seconds": seconds}


def test_repairs_pay_when_kept_and_whole_drafts_when_their_text_becomes_the_best():
    values = {
        "score_history": [60.0, 55.0, 55.0],
        "must_fix_history": [["a"], ["a", "b"], ["a"]],
        "writer_log": [
            {"round": 1, "kind": "first drafts", "calls": 1, "seconds": 30.0},
            {
                "round": 2,
                "kind": "repairs",
                "attempts": [
                    attempt("state", "model", False, 2, 20.0),
                    attempt("drop", "code", False),
                ],
            },
            {"round": 2, "kind": "rewrite", "calls": 1, "seconds": 25.0},
            {"round": 3, "kind": "rewrite", "calls": 1, "seconds": 24.0},
        ],
        "calls": [{"role": "critic", "seconds": 5.0}] * 3,
    }
    steps = [(s["step"], s["calls"], s["seconds"], s["paid"]) for s in steps_of(values)]
    assert steps == [
        ("first draft", 1, 30.0, True),
        ("repair: state by model", 2, 20.0, False),
        ("repair: drop by code", 0, 0.0, False),
        ("rewrite after repairs all rolled back", 1, 25.0, False),  # 55 < 60
        # as high as round two's but not as round one's: no new best
        ("rewrite after an unpaid rewrite", 1, 24.0, False),
        ("critic", 3, 15.0, True),
    ]


def test_a_tie_on_score_with_fewer_must_fix_is_a_new_best_and_docs_are_their_own_kind():
    values = {
        "score_history": [70.0, 70.0],
        "must_fix_history": [["a", "b"], ["a"]],
        "writer_log": [
            {"round": 1, "kind": "docs by name", "calls": 3, "seconds": 40.0},
            {"round": 2, "kind": "docs by name", "calls": 3, "seconds": 41.0},
        ],
    }
    assert [(s["step"], s["paid"]) for s in steps_of(values)] == [
        ("first docs", True),
        ("docs again, nothing to repair", True),
    ]


def test_by_step_sums_tries_payoffs_and_seconds_per_paying_try():
    rows = [
        {
            "steps": [
                {"step": "rewrite", "calls": 1, "seconds": 20.0, "paid": True},
                {"step": "rewrite", "calls": 1, "seconds": 30.0, "paid": False},
            ]
        },
        {"steps": [{"step": "critic", "calls": 2, "seconds": 8.0, "paid": True}]},
    ]
    assert by_step(rows) == {
        "rewrite": {"tried": 2, "paid": 1, "calls": 2, "seconds": 50.0, "seconds_per_paid": 50.0},
        "critic": {"tried": 1, "paid": 1, "calls": 2, "seconds": 8.0, "seconds_per_paid": 8.0},
    }
