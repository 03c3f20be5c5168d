"""The Agent Inbox protocol, driven as another LangGraph tool would: paused threads
resumed with Command(resume=...) for every response type, through the real graph and
checkpointer (no review.answer in between)."""

from __future__ import annotations

from pathlib import Path

import pytest
from langgraph.types import Command

from batch.decision import Approve, Invalid, Reject, Revise
from batch.loop import inbox
from batch.run.runner import Runner

from conftest import ScriptedModel, critic_answer, make_settings, write_brief, writer_answer

PH = "[FIGURE NEEDED: Q3 revenue]"
DRAFT = f"Q3 revenue was {PH}. We opened Berlin."


def pause(project, settings, placeholders=True, more_drafts=0):
    # without placeholders, a brief with nothing missing: the draft then needs none
    write_brief(
        project,
        "q3.md",
        "Memo on Q3: revenue not known yet; we opened Berlin."
        if placeholders
        else "Memo on Q3: it went well; we opened Berlin.",
        id="q3",
    )
    needs = [(PH, "What was Q3 revenue?")] if placeholders else []
    draft = DRAFT if placeholders else "Q3 went well. We opened Berlin."
    writer = ScriptedModel([writer_answer(draft, needs=needs)] * (1 + more_drafts))
    critic = ScriptedModel([critic_answer(5)] * (1 + more_drafts))
    runner = Runner(settings, models={"writer": writer, "critic": critic}, strict=True)
    [r] = runner.run(project / "briefs").results
    assert r.outcome == "awaiting_human"
    return runner, r.thread_id, writer


def resume(runner, tid, response):
    return runner.advance(tid, None, Command(resume=response))


def waiting_payload(runner, tid):
    snapshot = runner.snapshot(tid)
    return snapshot.interrupts[0].value if snapshot.interrupts else None


def test_accept_approves_a_text_without_placeholders(project):
    settings = make_settings(project, **{"loop.review": "always"})
    runner, tid, _ = pause(project, settings, placeholders=False)
    result = resume(runner, tid, [{"type": "accept", "args": None, "by": "ana"}])
    assert result.outcome == "approved_by_human" and result.record["decided_by"] == "ana"
    assert "Q3 went well." in Path(result.record["output_path"]).read_text()


def test_accept_with_an_empty_placeholder_asks_again(project, settings):
    runner, tid, writer = pause(project, settings)
    result = resume(runner, tid, [{"type": "accept", "args": None}])
    assert result.outcome == "awaiting_human" and writer.calls == 1
    values = runner.snapshot(tid).values
    assert values["decision"]["type"] == "invalid" and PH in values["decision"]["problem"]
    assert waiting_payload(runner, tid)["action_request"]["args"]["needs_from_human"]


def test_edit_with_answers_approves_and_fills(project, settings):
    runner, tid, _ = pause(project, settings)
    result = resume(runner, tid, inbox.encode(Approve({PH: "4.2M EUR"}, by="bo")))
    assert result.outcome == "approved_by_human"
    assert "Q3 revenue was 4.2M EUR." in Path(result.record["output_path"]).read_text()


def test_response_sends_it_back_with_the_notes(project, settings):
    runner, tid, writer = pause(project, settings, more_drafts=1)
    result = resume(runner, tid, [{"type": "response", "args": "Lead with Berlin."}])
    assert result.outcome == "awaiting_human" and writer.calls == 2
    assert "A reviewer asks: Lead with Berlin." in writer.sent[1][-1]["content"]


def test_ignore_rejects_with_the_reason(project, settings):
    runner, tid, _ = pause(project, settings)
    result = resume(runner, tid, [{"type": "ignore", "args": "not needed", "by": "cy"}])
    assert result.outcome == "rejected_by_human"
    assert result.record["decision_note"] == "not needed"


@pytest.mark.parametrize("response", ["yes", [], [{"type": "shrug"}], {"type": 3}])
def test_an_unusable_response_asks_again_and_changes_nothing(project, settings, response):
    runner, tid, writer = pause(project, settings)
    result = resume(runner, tid, response)
    assert result.outcome == "awaiting_human" and writer.calls == 1
    values = runner.snapshot(tid).values
    assert values["decision"]["type"] == "invalid"
    assert not (project / "output" / "q3.md").exists()


def test_a_revision_over_the_cap_is_refused_in_the_graph(project):
    settings = make_settings(project, **{"loop.max_revisions": 0})
    runner, tid, writer = pause(project, settings)
    result = resume(runner, tid, [{"type": "response", "args": "Again."}])
    assert result.outcome == "awaiting_human" and writer.calls == 1
    problem = runner.snapshot(tid).values["decision"]["problem"]
    assert "loop.max_revisions" in problem


def test_decode_maps_every_response_type():
    assert inbox.decode([{"type": "accept"}]) == Approve()
    assert inbox.decode([{"type": "edit", "args": {"args": {"answers": {PH: "1"}}}}]) == Approve(
        {PH: "1"}
    )
    assert inbox.decode({"type": "response", "args": "x"}) == Revise("x")
    assert inbox.decode([{"type": "ignore"}]) == Reject("ignored in the inbox")
    assert inbox.decode({"type": "reject", "reason": "r"}) == Reject("r")
    assert isinstance(inbox.decode("nonsense"), Invalid)
    assert inbox.decode({"type": "edit", "args": {"answers": ["x"]}}) == Invalid(
        "answers must map placeholders to values"
    )


@pytest.mark.parametrize(
    "decision",
    [
        Approve({PH: "1"}, "My own text.", "the figure is known", by="ana", at="2026-12-05T07:00"),
        Approve(),
        Revise("Shorter, please.", {PH: "2"}, 3, by="bo"),
        Reject("off brief", by="cy"),
    ],
)
def test_every_decision_goes_to_the_agent_inbox_and_back_and_to_the_state_and_back(decision):
    from dataclasses import replace

    from batch.decision import as_dict, from_dict

    # the Agent Inbox protocol carries no time: the rest comes back as it went
    assert inbox.decode(inbox.encode(decision)) == replace(decision, at="")
    assert from_dict(as_dict(decision)) == decision
    assert inbox.decode(as_dict(decision)) == decision  # what briefloop resumes with
