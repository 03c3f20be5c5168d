"""A person's own version of an API doc is run like the writer's: its examples' results
are checked, a directive that turns the check off is refused, and the run log's
verification note is always the one of the text approved, never an earlier draft's."""

from __future__ import annotations

import pytest

from batch.errors import BriefloopError
from batch.review import threads as review
from batch.run.runner import Runner

from conftest import ScriptedModel, critic_answer, make_settings

SOURCE = '"""Sums."""\n\n\ndef add(a, b):\n    return a + b\n\n\ndef mul(a, b):\n    return a * b\n'
SCORES = {"technical_accuracy": 5, "completeness": 5, "examples": 5, "structure": 5}


def paused_doc(project):
    (project / "briefs" / "calc.py").write_text(SOURCE)
    writer = ScriptedModel(
        [
            {"summary": "Adds a and b.", "example": "add(2, 3)", "parameters": []},
            {"summary": "Multiplies a and b.", "example": "mul(2, 3)", "parameters": []},
        ]
    )
    runner = Runner(
        make_settings(project, **{"loop.review": "always"}),
        models={"writer": writer, "critic": ScriptedModel([critic_answer(SCORES)] * 3)},
        strict=True,
    )
    [r] = runner.run(project / "briefs").results
    assert r.outcome == "awaiting_human", r.record
    assert r.record["verification"] == "examples run: 2 of 2 gave the result shown"
    return runner, r.thread_id, review.waiting(runner, r.thread_id).draft


def with_examples(draft: str, add_shown: str, mul_shown: str, extra: str = "") -> str:
    draft = draft.replace(">>> add(2, 3)\n5", f">>> add(2, 3)\n{add_shown}")
    draft = draft.replace(">>> mul(2, 3)\n6", f">>> mul(2, 3)\n{mul_shown}")
    return draft + extra


def test_an_edited_doc_approved_records_what_its_own_examples_gave(project):
    runner, tid, draft = paused_doc(project)
    extra = "\n\n```python\n>>> add(1, 1)\n2\n```\n"
    done = review.answer(
        runner, tid, "approve", {}, by="ana", edited=with_examples(draft, "5", "6", extra)
    )
    assert done.outcome == "approved_by_human"
    assert done.record["verification"] == "examples run: 3 of 3 gave the result shown"


@pytest.mark.parametrize("directive", ["# doctest: +SKIP", "# doctest: +ELLIPSIS"])
def test_an_edit_that_turns_the_check_off_is_refused_and_an_override_records_the_truth(
    project, directive
):
    runner, tid, draft = paused_doc(project)
    wrong = with_examples(draft, "7", "60").replace(
        ">>> add(2, 3)\n", f">>> add(2, 3)  {directive}\n"
    )
    with pytest.raises(BriefloopError, match="doctest directive"):
        review.answer(runner, tid, "approve", {}, by="ana", edited=wrong)
    done = review.answer(
        runner, tid, "approve", {}, by="ana", edited=wrong, override="shown as the old version"
    )
    assert done.outcome == "approved_by_human"
    # not the 2 of 2 of the writer's draft
    assert done.record["verification"] == "examples run: 0 of 2 gave the result shown"
