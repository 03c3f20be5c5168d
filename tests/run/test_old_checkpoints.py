"""A thread written before the brief, rubric, house rules and limits were typed models
resumes as it was; a new thread keeps them as models through the real checkpointer.

tests/fixtures/old_thread/ holds a project whose one thread waits for a person,
written by the code of commit cb60b21 (its make.py): its checkpoint keeps those four as
plain dicts."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer
from pydantic import BaseModel

from batch.inputs.briefs import load_brief_file
from batch.loop import inbox
from batch.review import threads as review
from batch.run.runner import Runner
from batch.run.starting import as_message, from_message, start_state
from batch.store.backends import checkpoint_serde
from batch.thread_inputs import HouseRules, Limits, Rubric, ThreadBrief, brief_of, limits_of

from conftest import ScriptedModel, make_settings, write_brief, writer_answer

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "old_thread"
REPO = Path(__file__).resolve().parents[2]
PH = "[FIGURE NEEDED: Q3 revenue]"


def old_project(tmp_path: Path) -> Path:
    project = tmp_path / "old"
    shutil.copytree(FIXTURE, project, ignore=shutil.ignore_patterns("make.py"))
    for d in ("rubrics", "house_rules"):
        shutil.copytree(REPO / d, project / d)
    return project


def test_a_thread_written_before_the_typed_state_is_answered_and_finishes(tmp_path):
    project = old_project(tmp_path)
    writer = ScriptedModel(
        [writer_answer(f"We opened Berlin. Q3 revenue was {PH}.", needs=[(PH, "?")])]
    )
    with Runner(make_settings(project), models={"writer": writer}, strict=True) as runner:
        [item] = review.list_waiting(runner)
        tid = item.thread_id
        values = runner.snapshot(tid).values
        # what makes it an old thread: the four kept as dicts, as that code wrote them
        for key in ("brief", "rubric", "house_rules", "limits"):
            assert type(values[key]) is dict, key
        assert (item.brief_id, item.title) == ("q3", "Q3 memo")
        assert brief_of(values).text.startswith("Memo on Q3")

        sent = review.answer(runner, tid, "revise", {}, text="Keep it short.")
        assert sent.outcome == "awaiting_human"
        assert "Keep it short." in writer.sent[0][-1]["content"]
        after = runner.snapshot(tid).values
        # the send-back's new limits are a model; what it did not touch stays as it was
        assert isinstance(after["limits"], Limits)
        assert limits_of(after).max_rounds == values["round"] + limits_of(values).revision_rounds
        assert type(after["brief"]) is dict

        done = review.answer(runner, tid, "approve", {PH: "4.2M EUR"}, by="ana")
        assert done.outcome == "approved_by_human"
        record = runner.runlog.by_thread(tid)
        text = Path(record["output_path"]).read_text(encoding="utf-8")
        assert text.rstrip().endswith("We opened Berlin. Q3 revenue was 4.2M EUR.")


def test_a_new_thread_keeps_its_inputs_as_models_through_the_checkpointer(project):
    write_brief(project, "q3.md", "Memo on Q3: revenue not known yet; we opened Berlin.", id="n")
    writer = ScriptedModel(
        [writer_answer(f"Q3 revenue was {PH}. We opened Berlin.", needs=[(PH, "?")])]
    )
    with Runner(make_settings(project), models={"writer": writer}, strict=True) as runner:
        [result] = runner.run(project / "briefs").results
        values = runner.snapshot(result.thread_id).values
    kept = {k: type(values[k]) for k in ("brief", "rubric", "house_rules", "limits")}
    assert kept == {
        "brief": ThreadBrief,
        "rubric": Rubric,
        "house_rules": HouseRules,
        "limits": Limits,
    }
    assert values["brief"].id == "n" and values["rubric"].criteria


class Stranger(BaseModel):
    x: int = 1


def test_the_checkpoint_serializer_rebuilds_only_the_types_a_thread_keeps():
    serde = checkpoint_serde()
    limits = Limits(
        max_rounds=3, no_progress_rounds=2, review="never", threshold=70, max_revisions=1
    )
    assert serde.loads_typed(serde.dumps_typed(limits)) == limits
    # a type a checkpoint names that is not ours to rebuild comes back as its fields
    assert serde.loads_typed(serde.dumps_typed(Stranger(x=2))) == {"x": 2}


def test_a_starting_state_goes_through_a_queue_as_json_and_comes_back_typed(project, settings):
    path = write_brief(project, "q3.md", "Memo on Q3: revenue not known; we opened Berlin.", id="n")
    state, _ = start_state(settings, load_brief_file(path, 100_000))
    back = from_message(json.loads(json.dumps(as_message(state))))
    # the rubric's file text is for the fingerprint only, kept in no message or checkpoint
    assert type(back["rubric"]) is Rubric
    assert back["rubric"].model_dump() == state["rubric"].model_dump()
    assert {k: v for k, v in back.items() if k != "rubric"} == {
        k: v for k, v in state.items() if k != "rubric"
    }


def test_the_orders_no_check_holds_are_kept_at_the_start_and_read_back_on_a_pause(
    project, settings, monkeypatch
):
    brief = "Kitchen closed Fri 3 May for a deep clean.\n\nFriendly but not gushing."
    path = write_brief(project, "kitchen.md", brief, id="kitchen")
    state, _ = start_state(settings, load_brief_file(path, 100_000))
    assert state["unchecked_orders"] == ["Friendly but not gushing."]
    paused = {**state, "draft": "The kitchen is closed on Friday 3 May.", "score": 80.0}

    def worked_out_again(checklist):
        raise AssertionError("worked out again on a resume")

    monkeypatch.setattr(inbox, "unchecked_orders", worked_out_again)
    assert inbox.interrupt_payload(paused)["action_request"]["args"]["unchecked_orders"] == [
        "Friendly but not gushing."
    ]
    # a thread started before they were kept: worked out from its checklist
    monkeypatch.undo()
    older = {k: v for k, v in paused.items() if k != "unchecked_orders"}
    assert inbox.orders_to_read(older) == ["Friendly but not gushing."]


def test_what_this_code_keeps_is_read_by_the_code_before(tmp_path, project, settings):
    """A rollback, or an older worker of a cluster, reads a checkpoint this code wrote:
    without these types it gets each model's fields, which must be the keys it read."""
    with Runner(make_settings(old_project(tmp_path)), models={}) as runner:
        [item] = review.list_waiting(runner)
        before = runner.snapshot(item.thread_id).values
    path = write_brief(project, "q3.md", "Memo on Q3: revenue not known; we opened Berlin.", id="n")
    state, _ = start_state(settings, load_brief_file(path, 100_000))
    ours, theirs = checkpoint_serde(), JsonPlusSerializer(allowed_msgpack_modules=None)
    for key in ("brief", "rubric", "house_rules", "limits"):
        read = theirs.loads_typed(ours.dumps_typed(state[key]))
        assert type(read) is dict and set(before[key]) <= set(read), key
