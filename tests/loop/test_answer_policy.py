"""A person's answer meets one policy (batch.loop.decisions.refusal) wherever it comes
from: `review.answer` refuses it before the thread is resumed, and the review node marks
the same answer, resumed straight through LangGraph, invalid with the same words."""

from __future__ import annotations

import pytest

from batch.decision import Approve
from batch.errors import BriefloopError
from batch.judging import checks
from batch.loop import inbox
from batch.review import threads as review
from batch.run.runner import BriefResult, Runner

from conftest import ScriptedModel, critic_answer, make_settings, write_brief, writer_answer

PH = "[FIGURE NEEDED: Q3 revenue]"
DRAFT = f"Q3 revenue was {PH}. We opened Berlin."
# a gap written as no placeholder: a must-fix a person's own edit does not vouch for (a
# fact it drops with nothing checkable in it is no must-fix: docs/briefs.md)
BAD_EDIT = f"Q3 revenue was {PH}. We opened Berlin on [TBD]."


def paused(project, **settings):
    write_brief(
        project,
        "q3.md",
        "Memo on Q3: revenue not known yet; we opened Berlin.",
        id="q3",
        title="Q3 memo",
    )
    writer = ScriptedModel([writer_answer(DRAFT, needs=[(PH, "What is the Q3 revenue?")])])
    runner = Runner(
        make_settings(project, **settings),
        models={"writer": writer, "critic": ScriptedModel([critic_answer(5)])},
        strict=True,
    )
    [r] = runner.run(project / "briefs").results
    assert r.outcome == "awaiting_human"
    return runner, r.thread_id, writer


# (review.answer's arguments, the same answer as an Agent Inbox response, the words)
REFUSED = {
    "a placeholder left empty": (
        dict(decision="approve", answers={}),
        inbox.encode(Approve({}, by="ana")),
        f"approve needs a value for every placeholder; missing: {PH}",
    ),
    "an edit with a gap that is no placeholder, with a blank override": (
        dict(decision="approve", answers={PH: "4M"}, edited=BAD_EDIT, override="   "),
        inbox.encode(Approve({PH: "4M"}, BAD_EDIT, "   ", by="ana")),
        "the code checks find in the edited text: ",
    ),
    "an empty edit": (
        dict(decision="approve", answers={PH: "4M"}, edited=" \n "),
        inbox.encode(Approve({PH: "4M"}, " \n ", by="ana")),
        "the edited text is empty",
    ),
    "a send-back with no notes": (
        dict(decision="revise", answers={}, text="  "),
        [{"type": "response", "args": "  ", "by": "ana"}],
        "revise needs a reason or notes",
    ),
    "a send-back asking for too many rounds": (
        dict(decision="revise", answers={}, text="Shorter.", rounds=99),
        [{"type": "response", "args": "Shorter.", "by": "ana", "rounds": 99}],
        "more rounds must be 1 to 10, not 99",
    ),
    "a rejection with no reason": (
        dict(decision="reject", answers={}, text=""),
        [{"type": "reject", "reason": " ", "by": "ana"}],
        "reject needs a reason or notes",
    ),
}


@pytest.mark.parametrize("case", REFUSED, ids=list(REFUSED))
def test_an_answer_is_refused_in_the_same_words_by_the_cli_and_by_the_graph(project, case):
    arguments, response, words = REFUSED[case]
    runner, tid, writer = paused(project)
    with pytest.raises(BriefloopError) as refused:
        review.answer(runner, tid, **arguments)
    assert str(refused.value).startswith(words)
    assert not runner.snapshot(tid).values.get("decision")  # refused before the resume

    result = runner.resume(tid, response)
    assert result.outcome == "awaiting_human" and writer.calls == 1
    decision = runner.snapshot(tid).values["decision"]
    assert decision == {"type": "invalid", "problem": str(refused.value)}
    assert not (project / "output" / "q3.md").exists()


def test_a_revision_over_the_cap_is_refused_in_the_same_words(project):
    runner, tid, _ = paused(project, **{"loop.max_revisions": 0})
    with pytest.raises(BriefloopError) as refused:
        review.answer(runner, tid, "revise", {}, text="Again.")
    runner.resume(tid, [{"type": "response", "args": "Again."}])
    assert runner.snapshot(tid).values["decision"]["problem"] == str(refused.value)
    assert "loop.max_revisions = 0" in str(refused.value)


def test_an_override_with_words_is_taken_by_both(project):
    runner, tid, _ = paused(project)
    done = review.answer(runner, tid, "approve", {PH: "4M"}, edited=BAD_EDIT, override=" known ")
    assert done.outcome == "approved_by_human"


def test_an_edit_is_checked_once_per_answer(project, monkeypatch):
    runner, tid, _ = paused(project)
    judge, drafts = checks.judge, []

    def counting(context):
        drafts.append(context.draft)
        return judge(context)

    monkeypatch.setattr(checks, "judge", counting)
    # a refused edit is not kept: sent again, it is checked again (an example that timed
    # out may run now)
    for _ in range(2):
        with pytest.raises(BriefloopError, match="TBD"):
            review.answer(runner, tid, "approve", {PH: "4M"}, edited=BAD_EDIT)
    mine = "Q3 revenue was 4M EUR. We opened Berlin, our second office."
    done = review.answer(runner, tid, "approve", {}, edited=mine)
    assert done.outcome == "approved_by_human"
    # checked before the resume; the review node takes the same result
    assert drafts.count(BAD_EDIT) == 2 and drafts.count(mine) == 1


def test_an_answer_in_a_cluster_goes_to_the_resumer_chosen_above(project):
    """review.answer never imports the cluster: the batch's opener hands it the way an
    answer reaches the workers, and a batch of a cluster opened without one refuses to
    run the thread here, beside them."""
    runner, tid, writer = paused(project)
    handed = []
    runner.local = False
    runner.resumer = lambda b, thread_id, response: (
        handed.append((thread_id, response)) or BriefResult("q3", thread_id, "queued", None)
    )
    result = review.answer(runner, tid, "approve", {PH: "4M"}, by="ana")
    assert result.outcome == "queued" and handed[0][0] == tid
    # the decision as the state keeps it: no Agent Inbox shape on the way
    assert handed[0][1]["type"] == "approve" and handed[0][1]["answers"] == {PH: "4M"}
    assert review.waiting(runner, tid) is not None and writer.calls == 1  # not run here

    runner.resumer = None
    with pytest.raises(RuntimeError, match="without a resumer"):
        review.answer(runner, tid, "approve", {PH: "4M"}, by="ana")
