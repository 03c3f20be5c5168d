"""Human review with the scripted model and the real checkpointer."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from batch.cli import cli
from batch.decision import Approve, Reject, Revise
from batch.errors import BriefloopError, LockBusy
from batch.loop import inbox
from batch.review import threads as review
from batch.run.runner import Runner

from conftest import (
    CRITIC_GATE,
    LOOP_ENDS_ALONE,
    WHOLE_REWRITES,
    ScriptedModel,
    critic_answer,
    csv_log_config,
    make_settings,
    write_brief,
    writer_answer,
)

PH = "[FIGURE NEEDED: Q3 revenue]"
DRAFT = f"Q3 revenue was {PH}. We opened Berlin."
NEEDS = [(PH, "What is the Q3 revenue?")]


def paused(project, settings, writer=None, critic=None):
    write_brief(
        project,
        "q3.md",
        "Memo on Q3: revenue not known yet; we opened Berlin.",
        id="q3",
        title="Q3 memo",
    )
    writer = writer or ScriptedModel([writer_answer(DRAFT, needs=NEEDS)])
    critic = critic or ScriptedModel([critic_answer(5)])
    runner = Runner(settings, models={"writer": writer, "critic": critic}, strict=True)
    [r] = runner.run(project / "briefs").results
    assert r.outcome == "awaiting_human"
    return runner, r.thread_id, writer, critic


def body_of(path):
    return Path(path).read_text(encoding="utf-8").split("---\n", 2)[2].strip()


def test_list_and_show(project, settings):
    runner, tid, *_ = paused(project, settings)
    [item] = review.list_waiting(runner)
    assert (item.thread_id, item.brief_id, item.title, item.score) == (tid, "q3", "Q3 memo", 100)
    assert item.needs == [{"placeholder": PH, "question": "What is the Q3 revenue?"}]
    assert item.waiting_since
    # the request itself is listed, not checked; every item the code checks is said
    marks = {kind: ok for _, kind, _, ok in item.checklist}
    assert marks.pop("task", None) is None
    assert marks and all(ok is True for ok in marks.values()), item.checklist
    shown = CliRunner().invoke(
        cli, ["--config", str(project / "briefloop.toml"), "review", "show", tid]
    )
    assert "The brief as the checks read it" in shown.output
    assert re.search(r"✓ R\d+ fact: we opened Berlin", shown.output), shown.output


def test_approve_fills_placeholders_writes_output_and_records_who(project, settings):
    runner, tid, writer, critic = paused(project, settings)
    result = review.answer(runner, tid, "approve", {"Q3 revenue": "4.2M EUR"}, by="ana")
    assert result.outcome == "approved_by_human" and result.model_calls == 0
    rec = runner.runlog.by_thread(tid)
    assert rec["status"] == "finished" and rec["stop_reason"] == "approved_by_human"
    assert rec["decided_by"] == "ana" and rec["decided_at"] and rec["needs_from_human"] == []
    assert body_of(rec["output_path"]) == "Q3 revenue was 4.2M EUR. We opened Berlin."
    meta = yaml.safe_load(Path(rec["output_path"]).read_text().split("---\n")[1])
    assert meta["approved_by"] == "ana"
    rows = (project / "output" / "runs.csv").read_text()
    assert "approved_by_human" in rows and rows.count(rec["run_id"]) == 1
    assert review.list_waiting(runner) == []


def test_approve_refused_while_placeholders_are_open(project, settings):
    runner, tid, *_ = paused(project, settings)
    with pytest.raises(BriefloopError, match=r"missing: \[FIGURE NEEDED: Q3 revenue\]"):
        review.answer(runner, tid, "approve", {})
    with pytest.raises(BriefloopError, match="not a placeholder of this thread"):
        review.answer(runner, tid, "approve", {"Q4 revenue": "1"})
    assert review.waiting(runner, tid) is not None  # still waiting, nothing consumed


def test_answer_keys_by_number_or_whole_placeholder(project, settings):
    runner, tid, *_ = paused(project, settings)
    item = review.require_waiting(runner, tid)
    assert review.resolve_answers(item.needs, {"1": "x"}) == {PH: "x"}
    assert review.resolve_answers(item.needs, {PH.lower(): "y"}) == {PH: "y"}


def test_reject_ends_the_run_with_the_reason(project, settings):
    runner, tid, *_ = paused(project, settings)
    result = review.answer(runner, tid, "reject", {}, text="Wrong audience", by="bo")
    rec = result.record
    assert result.outcome == "rejected_by_human" and rec["decision_note"] == "Wrong audience"
    # never in output/, but set aside as every text nobody approved is, with who and why
    assert not (project / "output" / "q3.md").exists()
    aside = Path(rec["output_path"])
    assert aside == (project / "output" / "needs-work" / "q3.md").resolve()
    front = yaml.safe_load(aside.read_text(encoding="utf-8").split("---\n", 2)[1])
    assert front["approved"] is False and front["stop_reason"] == "rejected_by_human"
    assert (front["rejected_by"], front["rejected_because"]) == ("bo", "Wrong audience")
    assert body_of(aside) == DRAFT


@pytest.mark.settings(**CRITIC_GATE)
def test_revise_loops_once_more_and_a_number_from_an_answer_is_allowed(project, settings):
    writer = ScriptedModel(
        [
            writer_answer(DRAFT, needs=NEEDS),
            writer_answer(f"Q3 revenue was 4.2M EUR, see {PH}. We opened Berlin.", needs=NEEDS),
        ]
    )
    critic = ScriptedModel([critic_answer(5), critic_answer(5)])
    runner, tid, *_ = paused(project, settings, writer, critic)
    result = review.answer(
        runner, tid, "revise", {PH: "4.2M EUR"}, text="Put the revenue in the first sentence."
    )
    assert result.outcome == "awaiting_human" and result.model_calls == 2
    prompt = writer.sent[1][-1]["content"]
    assert "A reviewer asks: Put the revenue in the first sentence." in prompt
    assert f"{PH} = 4.2M EUR" in prompt  # the person's answer is a fact now
    state = runner.snapshot(tid).values
    assert not any(f["code"].startswith("number:") for f in state["findings"])  # 4.2 allowed
    assert state["revisions"] == 1 and len(state["score_history"]) == 2
    done = review.answer(runner, tid, "approve", {})  # the earlier answer is kept
    assert done.outcome == "approved_by_human"


def test_revisions_are_capped(project):
    s = make_settings(project, **{"loop.max_revisions": 1})
    writer = ScriptedModel([writer_answer(DRAFT, needs=NEEDS)] * 2)
    critic = ScriptedModel([critic_answer(5)] * 2)
    runner, tid, *_ = paused(project, s, writer, critic)
    review.answer(runner, tid, "revise", {}, text="Again.")
    with pytest.raises(BriefloopError, match=r"the limit \(loop.max_revisions = 1\)"):
        review.answer(runner, tid, "revise", {}, text="Once more.")
    assert writer.calls == 2 and review.waiting(runner, tid) is not None  # still waiting


def test_answering_twice_gives_one_output(project, settings):
    runner, tid, *_ = paused(project, settings)
    review.answer(runner, tid, "approve", {PH: "4"}, by="ana")
    with pytest.raises(BriefloopError, match="not waiting for a person .*approved_by_human"):
        review.answer(runner, tid, "approve", {PH: "5"}, by="bo")
    assert "Q3 revenue was 4." in body_of(runner.runlog.by_thread(tid)["output_path"])


def test_a_thread_locked_by_another_process_is_not_answered(project, settings):
    runner, tid, *_ = paused(project, settings)
    # flock locks belong to an open file, so this holder blocks the answer below just as
    # another process would
    with runner.store.thread_lock(tid), pytest.raises(LockBusy, match="busy"):
        review.answer(runner, tid, "approve", {PH: "4"}, wait=0.2)
    assert review.waiting(runner, tid) is not None


def test_crash_between_answer_and_output_then_resume(project, settings, monkeypatch):
    runner, tid, *_ = paused(project, settings)
    import batch.output as output

    real = output.atomic_write_text

    def disk_full(path, text):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(output, "atomic_write_text", disk_full)
    result = review.answer(runner, tid, "approve", {PH: "4.2M"})
    assert result.outcome == "error" and "No space left" in result.error
    assert runner.snapshot(tid).next == ("finish",)
    monkeypatch.setattr(output, "atomic_write_text", real)
    where, again = review.resume(runner, tid)
    assert "before finish" in where
    assert again.outcome == "approved_by_human" and again.model_calls == 0
    assert "4.2M" in body_of(again.record["output_path"])
    with pytest.raises(BriefloopError, match="has finished"):
        review.resume(runner, tid)


def test_unknown_thread(project, settings):
    runner = Runner(settings, models={"writer": None, "critic": None})
    with pytest.raises(BriefloopError, match="no thread 'nope'"):
        review.require_waiting(runner, "nope")
    with pytest.raises(BriefloopError, match="no thread 'nope'"):
        review.resume(runner, "nope")


def test_agent_inbox_shapes(project, settings):
    runner, tid, *_ = paused(project, settings)
    payload = runner.snapshot(tid).interrupts[0].value
    assert payload["action_request"]["action"] == "review_draft"
    assert set(payload["config"]) == {"allow_accept", "allow_edit", "allow_respond", "allow_ignore"}
    assert PH in payload["description"]
    assert inbox.encode(Approve({PH: "1"}, by="a")) == [
        {
            "type": "edit",
            "by": "a",
            "args": {"action": "review_draft", "args": {"answers": {PH: "1"}}},
        }
    ]
    assert inbox.encode(Revise("n", {PH: "1"}, by="a")) == [
        {"type": "response", "by": "a", "args": "n", "answers": {PH: "1"}}
    ]
    assert inbox.encode(Reject("r", by="a"))[0]["type"] == "ignore"


# -- the command line ---------------------------------------------------------------------


def test_cli_list_show_answer(project, settings):
    cfg = csv_log_config(project)
    runner, tid, *_ = paused(project, make_settings(project, **{"paths.root": str(project)}))
    runner.close()
    terminal = CliRunner()
    listed = terminal.invoke(cli, ["--config", str(cfg), "review", "list", "--json"])
    assert listed.exit_code == 0 and json.loads(listed.output)[0]["open_placeholders"] == 1
    shown = terminal.invoke(cli, ["--config", str(cfg), "review", "show", tid])
    assert shown.exit_code == 0 and "What is the Q3 revenue?" in shown.output and PH in shown.output
    answers = project / "answers.yaml"
    answers.write_text(f'"{PH}": 4.2M EUR\n')
    missing = terminal.invoke(cli, ["--config", str(cfg), "review", "answer", tid])
    assert missing.exit_code == 2 and "give a decision" in missing.output
    done = terminal.invoke(
        cli,
        [
            "--config",
            str(cfg),
            "review",
            "answer",
            tid,
            "--answers",
            str(answers),
            "--approve",
            "--by",
            "ana",
        ],
    )
    assert done.exit_code == 0, done.output
    assert "approved_by_human" in done.output and "output:" in done.output
    again = terminal.invoke(cli, ["--config", str(cfg), "review", "answer", tid, "--approve"])
    assert again.exit_code == 2 and "not waiting" in again.output
    assert (
        "nothing is waiting"
        in terminal.invoke(cli, ["--config", str(cfg), "review", "list"]).output
    )


def test_cli_set_and_bad_set(project):
    cfg = csv_log_config(project)
    runner, tid, *_ = paused(project, make_settings(project, **{"paths.root": str(project)}))
    runner.close()
    terminal = CliRunner()
    bad = terminal.invoke(
        cli, ["--config", str(cfg), "review", "answer", tid, "--set", "x", "--approve"]
    )
    assert bad.exit_code == 2 and "KEY=VALUE" in bad.output
    ok = terminal.invoke(
        cli, ["--config", str(cfg), "review", "answer", tid, "--set", "1=9 staff", "--approve"]
    )
    assert ok.exit_code == 0, ok.output


def test_cli_asks_on_a_terminal(project, monkeypatch):
    cfg = csv_log_config(project)
    runner, tid, *_ = paused(project, make_settings(project, **{"paths.root": str(project)}))
    runner.close()
    monkeypatch.setattr("batch.cli.reviewing.interactive", lambda: True)
    result = CliRunner().invoke(
        cli, ["--config", str(cfg), "review", "answer", tid], input="4.2M EUR\napprove\n"
    )
    assert result.exit_code == 0, result.output
    assert "What is the Q3 revenue?" in result.output and "approved_by_human" in result.output


def test_cli_resume_and_pull_errors(project):
    cfg = csv_log_config(project)
    runner = CliRunner()
    missing = runner.invoke(cli, ["--config", str(cfg), "resume", "nope"])
    assert missing.exit_code == 2 and "no thread or brief 'nope'" in missing.output
    pulled = runner.invoke(cli, ["--config", str(cfg), "review", "pull"])
    assert pulled.exit_code == 0 and "no decisions to act on" in pulled.output


@pytest.mark.settings(**CRITIC_GATE, **LOOP_ENDS_ALONE)
def test_a_revision_that_runs_out_writes_a_new_draft_not_the_rejected_one(project):
    s = make_settings(project, **{"loop.max_rounds": 1})
    writer = ScriptedModel(
        [writer_answer(DRAFT, needs=NEEDS), writer_answer(f"NEW DRAFT with {PH}.", needs=NEEDS)]
    )
    critic = ScriptedModel([critic_answer(5), critic_answer(2, must_fix=["Still vague."])])
    runner, tid, *_ = paused(project, s, writer, critic)
    result = review.answer(runner, tid, "revise", {PH: "4"}, text="Be concrete.", by="ana")
    assert result.outcome == "max_rounds"
    assert "NEW DRAFT" in body_of(result.record["output_path"])
    assert result.record["score"] == 25.0
    assert result.record["decided_by"] == "ana" and result.record["decision_note"] == "Be concrete."


def approve_with_answers_file(project, yaml_value):
    """A paused thread approved from the CLI with `--answers` holding one value."""
    cfg = csv_log_config(project)
    runner, tid, *_ = paused(project, make_settings(project, **{"paths.root": str(project)}))
    runner.close()
    answers = project / "answers.yaml"
    answers.write_text(f'"{PH}": {yaml_value}\n')
    return tid, CliRunner().invoke(
        cli, ["--config", str(cfg), "review", "answer", tid, "--answers", str(answers), "--approve"]
    )


@pytest.mark.parametrize(
    "value, problem",
    [
        ("[1, 2]", "not a list"),
        ("{a: 1}", "not a dict"),
        ("yes", "reads as a yes/no"),
        # 2,000 levels: one line, not a traceback
        ("[" * 2000 + "]" * 2000, "nested more than"),
        ("{a: " * 2000 + "1" + "}" * 2000, "nested more than"),
    ],
)
def test_cli_answers_file_takes_only_text_and_numbers(project, value, problem):
    tid, result = approve_with_answers_file(project, value)
    assert result.exit_code == 2 and problem in result.output, result.output
    assert len(result.output.strip().splitlines()) == 1
    with Runner(make_settings(project, **{"paths.root": str(project)})) as again:
        assert review.waiting(again, tid) is not None  # nothing was taken
    assert not list((project / "output").glob("q3*.md"))


def test_cli_answers_file_reads_dates_and_numbers_as_written(project):
    _, result = approve_with_answers_file(project, "2026-12-01")
    assert result.exit_code == 0, result.output
    [out] = (project / "output").glob("q3*.md")
    assert "Q3 revenue was 2026-12-01." in out.read_text(encoding="utf-8")


def test_a_thread_of_an_older_brief_never_replaces_the_current_text(project, settings):
    runner, old, *_ = paused(project, settings)
    write_brief(
        project, "q3.md", "Memo on Q3: revenue was 4M; we opened Berlin.", id="q3", title="Q3 memo"
    )
    current_text = "Q3 revenue was 4M. We opened Berlin."
    models = {
        "writer": ScriptedModel([writer_answer(current_text)]),
        "critic": ScriptedModel([critic_answer(5)]),
    }
    [new] = Runner(settings, models=models, strict=True).run(project / "briefs").results
    assert new.outcome == "approved" and new.thread_id != old
    output = Path(new.record["output_path"])
    [item] = review.list_waiting(runner)
    assert item.thread_id == old and item.superseded_by["thread_id"] == new.thread_id
    assert item.as_dict()["superseded_by"] == new.thread_id
    # the note names the newer text's file, never where the server keeps it
    assert f"output {output.name})" in item.superseded_note()
    assert str(output.parent) not in item.superseded_note()
    with pytest.raises(BriefloopError, match=f"superseded by thread {new.thread_id}.*approved"):
        review.answer(runner, old, "approve", {"1": "4M"}, by="ana")
    with pytest.raises(BriefloopError, match="revise is refused"):
        review.answer(runner, old, "revise", {}, text="shorter", by="ana")
    assert body_of(output) == current_text
    closed = review.answer(runner, old, "reject", {}, text="superseded", by="ana")
    assert closed.outcome == "rejected_by_human" and body_of(output) == current_text
    # a replaced thread sets nothing aside either: the brief's text is the newer one
    assert not closed.record.get("output_path")
    assert not (output.parent / "needs-work" / output.name).exists()
    assert review.list_waiting(runner) == []


def test_cli_list_and_show_say_a_thread_is_superseded(project):
    cfg = csv_log_config(project)
    settings = make_settings(project, **{"paths.root": str(project)})
    runner, old, *_ = paused(project, settings)
    runner.close()
    write_brief(project, "q3.md", "Memo on Q3: revenue was 4M.", id="q3")
    models = {
        "writer": ScriptedModel([writer_answer("Q3 revenue was 4M.")]),
        "critic": ScriptedModel([critic_answer(5)]),
    }
    with Runner(settings, models=models, strict=True) as again:
        [new] = again.run(project / "briefs").results
    terminal = CliRunner()
    listed = terminal.invoke(cli, ["--config", str(cfg), "review", "list"])
    assert "superseded" in listed.output and new.thread_id[:8] in listed.output
    shown = terminal.invoke(cli, ["--config", str(cfg), "review", "show", old])
    assert f"superseded by thread {new.thread_id}" in shown.output
    refused = terminal.invoke(
        cli, ["--config", str(cfg), "review", "answer", old, "--set", "1=4M", "--approve"]
    )
    assert refused.exit_code == 2 and "approve is refused" in refused.output


# -- every ending can go to a person; a person's own version ------------------------------

BROKEN = "Q3 revenue grew 17%. We opened Berlin."  # 17% comes from nowhere: a must-fix


def unfinished(project, mode="unfinished"):
    s = make_settings(project, **{"loop.review": mode, "loop.max_rounds": 1})
    write_brief(project, "q3.md", "Memo on Q3: revenue grew; we opened Berlin.", id="q3")
    runner = Runner(
        s,
        models={
            "writer": ScriptedModel([writer_answer(BROKEN)] * 2),
            "critic": ScriptedModel([critic_answer(5)] * 2),
        },
        strict=True,
    )
    [r] = runner.run(project / "briefs").results
    return runner, r


def test_when_needed_sets_an_unapproved_text_aside_without_a_person(project):
    runner, r = unfinished(project, "when_needed")
    assert r.outcome == "max_rounds" and review.list_waiting(runner) == []


@pytest.mark.parametrize("mode", ["unfinished", "always"])
def test_a_text_the_machine_could_not_approve_goes_to_a_person(project, mode):
    runner, r = unfinished(project, mode)
    assert r.outcome == "awaiting_human"
    [item] = review.list_waiting(runner)
    assert item.stopped == "max_rounds" and item.draft == BROKEN
    assert any("17" in m for m in item.must_fix)
    with pytest.raises(BriefloopError, match="code checks still find.*17"):
        review.answer(runner, item.thread_id, "approve", {}, by="ana")
    done = review.answer(
        runner, item.thread_id, "approve", {}, by="ana", override="the figure is in the board pack"
    )
    assert done.outcome == "approved_by_human"
    assert Path(done.record["output_path"]).parent.name == "output"
    assert body_of(done.record["output_path"]) == BROKEN
    assert done.record["decision_note"] == (
        "approved over the checks' findings: the figure is in the board pack"
    )


def test_always_pauses_an_approved_text_too(project):
    s = make_settings(project, **{"loop.review": "always"})
    write_brief(project, "a.md", "Office closed Friday from 15:00.", id="a")
    runner = Runner(
        s,
        models={
            "writer": ScriptedModel([writer_answer("The office is closed on Friday from 15:00.")]),
            "critic": ScriptedModel([critic_answer(5)]),
        },
        strict=True,
    )
    [r] = runner.run(project / "briefs").results
    assert r.outcome == "awaiting_human"
    [item] = review.list_waiting(runner)
    assert item.stopped is None and item.must_fix == []
    assert review.answer(runner, item.thread_id, "approve", {}).outcome == "approved_by_human"


def test_a_persons_own_version_is_checked_then_approved(project, settings):
    runner, tid, *_ = paused(project, settings)
    mine = "Q3 revenue was 4.2M EUR. We opened Berlin."
    done = review.answer(runner, tid, "approve", {}, by="ana", edited=mine)
    assert done.outcome == "approved_by_human" and body_of(done.record["output_path"]) == mine
    assert done.record["decision_note"] == "edited by the reviewer"


def test_an_edit_with_a_finding_needs_an_override(project, settings):
    runner, tid, *_ = paused(project, settings)
    # a gap written as no placeholder: what a person's edit does not vouch for
    mine = f"Q3 revenue was {PH}. We opened Berlin on [TBD]."
    with pytest.raises(BriefloopError, match="code checks find in the edited text.*TBD"):
        review.answer(runner, tid, "approve", {PH: "4M"}, edited=mine)
    with pytest.raises(BriefloopError, match="missing"):
        review.answer(runner, tid, "approve", {}, edited=mine, override="known")
    done = review.answer(runner, tid, "approve", {PH: "4M"}, edited=mine, override="known")
    assert body_of(done.record["output_path"]) == mine.replace(PH, "4M")


def test_cli_edit_from_a_file(project):
    cfg = csv_log_config(project)
    runner, tid, *_ = paused(project, make_settings(project, **{"paths.root": str(project)}))
    runner.close()
    mine = project / "mine.md"
    mine.write_text("Q3 revenue was 4.2M EUR. We opened Berlin.\n")
    terminal = CliRunner()
    wrong = terminal.invoke(
        cli, ["--config", str(cfg), "review", "answer", tid, "--edit", str(mine), "--reject", "no"]
    )
    assert wrong.exit_code == 2 and "does not go with" in wrong.output
    done = terminal.invoke(
        cli, ["--config", str(cfg), "review", "answer", tid, "--edit", str(mine), "--by", "bo"]
    )
    assert done.exit_code == 0, done.output
    [out] = (project / "output").glob("q3*.md")
    assert "4.2M EUR" in out.read_text()


def test_an_inbox_edit_carries_the_text(project, settings):
    runner, tid, *_ = paused(project, settings)
    mine = "Q3 revenue was 5M EUR. We opened Berlin."
    done = runner.resume(tid, inbox.encode(Approve({}, mine, by="cy")))
    assert done.outcome == "approved_by_human" and body_of(done.record["output_path"]) == mine


def test_cli_edit_on_a_terminal_opens_the_editor(project, monkeypatch):
    cfg = csv_log_config(project)
    runner, tid, *_ = paused(project, make_settings(project, **{"paths.root": str(project)}))
    runner.close()
    editor = project / "editor.sh"  # stands in for $EDITOR: rewrites the file it is given
    editor.write_text('#!/bin/sh\nprintf "Q3 revenue was 7M EUR. We opened Berlin.\\n" > "$1"\n')
    editor.chmod(0o755)
    monkeypatch.setenv("EDITOR", str(editor))
    monkeypatch.setattr("batch.cli.reviewing.interactive", lambda: True)
    done = CliRunner().invoke(cli, ["--config", str(cfg), "review", "answer", tid, "--edit"])
    assert done.exit_code == 0, done.output
    [out] = (project / "output").glob("q3*.md")
    assert "Q3 revenue was 7M EUR." in out.read_text()


def test_a_brief_that_could_not_be_read_supersedes_nothing(project, settings):
    runner, tid, *_ = paused(project, settings)
    (project / "briefs" / "q3.md").write_bytes(b"\x00binary")  # the same id, unreadable
    runner.run(project / "briefs")
    [item] = review.list_waiting(runner)
    assert item.thread_id == tid and item.superseded_by is None


@pytest.mark.settings(**WHOLE_REWRITES)
def test_approving_a_stopped_run_records_the_score_of_the_draft_shown(project):
    s = make_settings(
        project, **{"loop.review": "unfinished", "loop.max_rounds": 2, "models.critic_mode": "gate"}
    )
    write_brief(project, "q3.md", "Memo on Q3: revenue grew; we opened Berlin.", id="q3")
    writer = ScriptedModel([writer_answer(BROKEN), writer_answer("Q3 went so-so. " + BROKEN)])
    critic = ScriptedModel([critic_answer(4), critic_answer(2)])
    runner = Runner(s, models={"writer": writer, "critic": critic}, strict=True)
    [r] = runner.run(project / "briefs").results
    [item] = review.list_waiting(runner)
    assert item.draft == BROKEN and item.score == 75.0  # the best round's, not the last
    done = review.answer(runner, item.thread_id, "approve", {}, override="fine")
    assert done.record["score"] == 75.0 and body_of(done.record["output_path"]) == BROKEN


def test_the_review_node_itself_checks_an_edit_sent_by_other_tooling(project, settings):
    """An edited text resumed straight through LangGraph (not review.answer) meets the
    same validator: refused without an override, the thread still waiting."""
    runner, tid, *_ = paused(project, settings)
    # a gap written as no placeholder: what a person's edit does not vouch for
    mine = f"Q3 revenue was {PH}. We opened Berlin on [TBD]."
    runner.resume(tid, inbox.encode(Approve({PH: "4M"}, mine, by="ana")))
    item = review.waiting(runner, tid)
    assert item is not None and "code checks find in the edited text" in item.problem
    assert "TBD" in item.problem
    done = runner.resume(tid, inbox.encode(Approve({PH: "4M"}, mine, "known", by="ana")))
    assert done.outcome == "approved_by_human"


def test_a_brief_id_names_its_thread_where_exactly_one_ran_it(project, settings):
    runner, tid, *_ = paused(project, settings)
    cfg = str(project / "briefloop.toml")
    terminal = CliRunner()
    shown = terminal.invoke(cli, ["--config", cfg, "review", "show", "q3"])
    assert shown.exit_code == 0, shown.output
    assert f"({tid})" in shown.output
    history = terminal.invoke(cli, ["--config", cfg, "review", "history", "q3"])
    assert history.exit_code == 0 and tid in history.output
    answered = terminal.invoke(
        cli,
        ["--config", cfg, "review", "answer", "q3", "--set", "Q3 revenue=4.2M EUR", "--approve"],
    )
    assert answered.exit_code == 0, answered.output
    assert runner.runlog.by_thread(tid)["stop_reason"] == "approved_by_human"
    # run again: two threads of one brief, and the person is asked to choose
    again = {"writer": ScriptedModel([writer_answer(DRAFT, needs=NEEDS)])}
    Runner(settings, models={**again, "critic": ScriptedModel([critic_answer(5)])}).run(
        project / "briefs", rerun=True
    )
    both = terminal.invoke(cli, ["--config", cfg, "review", "show", "q3"])
    assert both.exit_code == 2
    assert "brief 'q3' has 2 threads: name one of them" in both.output
    assert tid in both.output
    assert "Traceback" not in both.output
    # a thread id still names its thread, and a name that is neither says so
    assert terminal.invoke(cli, ["--config", cfg, "review", "show", tid]).exit_code == 0
    nothing = terminal.invoke(cli, ["--config", cfg, "review", "calls", "nope"])
    assert nothing.exit_code != 0
    assert "no thread or brief 'nope'" in nothing.output
