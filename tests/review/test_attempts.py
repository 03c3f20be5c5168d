"""Retry a thread that ended, reopen an approved one: from the library, the CLI and the
page, linked in the run log and on both threads' pages."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from click.testing import CliRunner
from starlette.testclient import TestClient

from batch.cli import cli
from batch.errors import BriefloopError, ModelUnavailable
from batch.review import attempts, web
from batch.review import threads as review
from batch.run.runner import Runner
from batch.thread_inputs import brief_of

from conftest import (
    WHOLE_REWRITES,
    ScriptedModel,
    critic_answer,
    make_settings,
    write_brief,
    writer_answer,
)

GOOD = "The office is closed on Friday from 15:00."


def one_run(project, writer, critic, **over):
    s = make_settings(project, **{"loop.max_rounds": 2, "retry.attempts": 1, **over})
    if not (project / "briefs" / "closure.md").exists():
        write_brief(
            project,
            "closure.md",
            "Office closed Friday from 15:00.",
            id="closure",
            title="Office closure",
        )
    models = {"writer": writer, "critic": critic}
    with Runner(s, models=models) as runner:
        [result] = runner.run(project / "briefs").results
    return s, models, result


def failed(project):
    down = ModelUnavailable("connection refused")
    return one_run(project, ScriptedModel([down]), ScriptedModel([]))


def approved(project):
    return one_run(project, ScriptedModel([writer_answer(GOOD)]), ScriptedModel([critic_answer(5)]))


def csrf_of(html: str) -> str:
    return re.search(r'name="csrf" value="([^"]+)"', html).group(1)


def test_retry_of_a_failed_thread_is_a_new_linked_attempt(project):
    s, models, first = failed(project)
    assert first.outcome == "error"
    models["writer"].queue(writer_answer(GOOD))
    models["critic"].queue(critic_answer(5))
    with Runner(s, models=models) as runner:
        second = attempts.retry(runner, first.thread_id)
        assert second.thread_id != first.thread_id and second.outcome == "approved"
        record = runner.runlog.by_thread(second.thread_id)
        assert record["retry_of"] == first.thread_id and record["brief_id"] == "closure"
        assert [r["thread_id"] for r in runner.runlog.retries_of(first.thread_id)] == [
            second.thread_id
        ]
        # the old run stays what it was
        assert runner.runlog.by_thread(first.thread_id)["status"] == "failed"
    client = TestClient(web.create_app(s, models=models))
    old_page = client.get(f"/thread/{first.thread_id}").text
    new_page = client.get(f"/thread/{second.thread_id}").text
    assert f'href="/thread/{second.thread_id}">{second.thread_id}</a>' in old_page
    assert f'href="/thread/{first.thread_id}">thread {first.thread_id}</a>' in new_page


def test_retry_keeps_the_brief_as_the_thread_holds_it_even_if_the_file_changed(project):
    s, models, first = failed(project)
    write_brief(project, "closure.md", "Something else entirely.", id="closure")
    models["writer"].queue(writer_answer(GOOD))
    models["critic"].queue(critic_answer(5))
    with Runner(s, models=models) as runner:
        second = attempts.retry(runner, first.thread_id)
        values = runner.snapshot(second.thread_id).values
    assert brief_of(values).text.strip() == "Office closed Friday from 15:00."
    assert "Office closed Friday" in models["writer"].sent[-1][-1]["content"]


def test_retry_and_reopen_refuse_what_has_not_ended_with_one_line(project):
    s = make_settings(project)
    write_brief(project, "q3.md", "Memo on Q3.", id="q3")
    ph = "[FIGURE NEEDED: Q3 revenue]"
    models = {
        "writer": ScriptedModel([writer_answer(f"Revenue was {ph}.", needs=[(ph, "Revenue?")])]),
        "critic": ScriptedModel([critic_answer(5)]),
    }
    with Runner(s, models=models) as runner:
        [waiting] = runner.run(project / "briefs").results
        assert waiting.outcome == "awaiting_human"
        with pytest.raises(BriefloopError, match="waiting for a person"):
            attempts.retry(runner, waiting.thread_id)
        with pytest.raises(BriefloopError, match="waiting for a person"):
            attempts.reopen(runner, waiting.thread_id, "wrong")
        with pytest.raises(BriefloopError, match="no thread 'nope'"):
            attempts.retry(runner, "nope")
    cfg = ["--config", str(project / "briefloop.toml")]
    shown = CliRunner().invoke(cli, [*cfg, "review", "retry", waiting.thread_id])
    assert shown.exit_code == 2 and "waiting for a person" in shown.output
    assert "Traceback" not in shown.output


def test_a_brief_that_never_became_a_thread_cannot_be_retried(project):
    s = make_settings(project)
    (project / "briefs" / "broken.md").write_text("---\nid: [1, 2]\n---\ntext\n", "utf-8")
    with Runner(s) as runner:
        [bad] = runner.run(project / "briefs").results
        assert bad.outcome == "error"
        with pytest.raises(BriefloopError, match="failed before its brief was read"):
            attempts.retry(runner, bad.thread_id)


def test_reopen_an_automatic_approval_moves_its_file_and_saves_a_judged_case(project):
    from bench.judge import load_cases

    s, models, first = approved(project)
    output = Path(first.record["output_path"])
    assert output.is_file()
    with Runner(s, models=models) as runner:
        done = attempts.reopen(runner, first.thread_id, "it dropped the 15:00 time", by="ana")
        record = runner.runlog.by_thread(first.thread_id)
        item = review.waiting(runner, first.thread_id)
    assert done.result.outcome == "awaiting_human" and item is not None
    assert item.draft == GOOD and item.stopped is None
    assert not output.exists() and done.moved_to == output.parent / "needs-work" / output.name
    assert record["decided_by"] == "ana"
    assert record["decision_note"] == "reopened (it was approved): it dropped the 15:00 time"
    # the reason heads the page and `review show`, not only the decisions at its foot
    assert item.reopened.startswith("Reopened by ana at ")
    assert item.reopened.endswith(": it dropped the 15:00 time")
    [case] = load_cases(project / "judged")
    assert (case["brief"].id, case["expect"], case["defect"], case["claim"], case["draft"]) == (
        "closure",
        "reject",
        "reopened",
        "it dropped the 15:00 time",
        GOOD,
    )
    assert "Office closed Friday" in case["brief"].text
    # answered again: approved by a person, written out again, the aside copy gone
    with Runner(s, models=models) as runner:
        again = review.answer(runner, first.thread_id, "approve", {}, by="bo")
    assert again.outcome == "approved_by_human" and output.is_file()
    assert not done.moved_to.exists()
    # the approval after the reopen says what it answers
    with Runner(s) as runner:
        note = runner.runlog.by_thread(first.thread_id)["decision_note"]
    assert note == "approved again after it was reopened (it dropped the 15:00 time)"


def test_reopen_of_a_persons_approval_shows_their_text_and_saves_no_case(project):
    s = make_settings(project, **{"loop.review": "always"})
    write_brief(project, "closure.md", "Office closed Friday from 15:00.", id="closure")
    models = {
        "writer": ScriptedModel([writer_answer(GOOD)]),
        "critic": ScriptedModel([critic_answer(5)]),
    }
    mine = GOOD + " The facilities team locks up."
    with Runner(s, models=models) as runner:
        [r] = runner.run(project / "briefs").results
        review.answer(
            runner, r.thread_id, "approve", {}, by="ana", edited=mine, override="my own words"
        )
        done = attempts.reopen(runner, r.thread_id, "the team is wrong", by="bo")
        item = review.waiting(runner, r.thread_id)
    assert done.case is None and not (project / "judged").exists()
    assert item.draft == mine


@pytest.mark.parametrize("reason", ["", "  ", "x"])
def test_reopen_needs_a_reason(project, reason):
    s, models, first = approved(project)
    with Runner(s) as runner:
        with pytest.raises(BriefloopError, match="needs a reason"):
            attempts.reopen(runner, first.thread_id, reason)
        assert runner.runlog.by_thread(first.thread_id)["stop_reason"] == "approved"


def test_only_an_approved_text_is_reopened(project):
    s, models, first = failed(project)
    with (
        Runner(s) as runner,
        pytest.raises(BriefloopError, match="only an approved text.*retry it instead"),
    ):
        attempts.reopen(runner, first.thread_id, "not good")


def test_reopen_and_retry_from_the_page(project):
    s, models, first = approved(project)
    client = TestClient(web.create_app(s, models=models))
    page = client.get(f"/thread/{first.thread_id}").text
    assert 'id="reopen"' in page and 'id="retry"' in page
    refused = client.post(
        f"/thread/{first.thread_id}", data={"csrf": csrf_of(page), "action": "reopen", "reason": ""}
    )
    assert refused.status_code == 400 and "needs a reason" in refused.text
    done = client.post(
        f"/thread/{first.thread_id}",
        data={
            "csrf": csrf_of(page),
            "action": "reopen",
            "reason": "it lost the time",
            "name": "ana",
        },
        follow_redirects=False,
    )
    assert done.status_code == 303 and done.headers["location"] == f"/thread/{first.thread_id}"
    waiting = client.get(f"/thread/{first.thread_id}").text
    assert "reopened: it waits for a person again (saved as a judged case)" in waiting
    assert 'id="approve"' in waiting  # the answer form: it waits
    models["writer"].queue(writer_answer(GOOD))
    models["critic"].queue(critic_answer(5))
    client.post(
        f"/thread/{first.thread_id}",
        data={"csrf": csrf_of(waiting), "action": "reject", "reason": "no"},
    )
    page = client.get(f"/thread/{first.thread_id}").text
    retried = client.post(
        f"/thread/{first.thread_id}",
        data={"csrf": csrf_of(page), "action": "retry"},
        follow_redirects=False,
    )
    # answered at once: the retry runs on, and the old thread's page follows it
    assert retried.status_code == 303
    assert retried.headers["location"] == f"/thread/{first.thread_id}"
    job = client.app.state.jobs.wait(first.thread_id, 30)
    assert job is not None and job.done and not job.failed, job
    told = client.get(retried.headers["location"]).text
    new_id = re.search(r"retried as thread (\S+): ", told).group(1)
    assert new_id != first.thread_id
    assert 'id="job"' in told and "approved" in told
    assert 'id="job"' not in client.get(retried.headers["location"]).text  # told once


def test_bench_judge_runs_on_a_projects_reversals(project, tmp_path):
    from bench import judge

    s, models, first = approved(project)
    with Runner(s, models=models) as runner:
        attempts.reopen(runner, first.thread_id, "it dropped the 15:00 time")
    result = judge.run(None, [], None, project / "judged")
    assert result["drafts"] == 1 and result["briefs"] == 1
    code = result["modes"]["code checks (= advice mode, any model)"]
    # the checks approved it once; judged again they still do: the reversal is a miss
    assert code["defective_rejected"] == "0/1"
    assert result["misjudged"]["code"] == ["closure/" + first.thread_id]


def test_reopen_of_a_superseded_approval_is_refused_and_moves_no_file(project):
    s, models, first = approved(project)
    write_brief(
        project,
        "closure.md",
        "Office closed Friday from 14:00.",
        id="closure",
        title="Office closure",
    )
    newer_text = "The office is closed on Friday from 14:00."
    models["writer"].queue(writer_answer(newer_text))
    models["critic"].queue(critic_answer(5))
    with Runner(s, models=models) as runner:
        [second] = runner.run(project / "briefs").results
        assert second.outcome == "approved" and second.thread_id != first.thread_id
        output = Path(second.record["output_path"])
        with pytest.raises(BriefloopError, match="superseded by thread .*reopen that one"):
            attempts.reopen(runner, first.thread_id, "it was wrong")
    assert output.is_file() and newer_text in output.read_text(encoding="utf-8")
    assert not (project / "judged").exists()


# One live thread per brief: a thread a newer run or a retry replaced never writes
# output/, whoever moves it on.


def edited_and_approved_again(project, s, models):
    write_brief(
        project, "closure.md", "Office closed Friday from 14:00.", id="closure", title="Closure"
    )
    newer_text = "The office is closed on Friday from 14:00."
    models["writer"].queue(writer_answer(newer_text))
    models["critic"].queue(critic_answer(5))
    with Runner(s, models=models) as runner:
        [second] = runner.run(project / "briefs").results
    assert second.outcome == "approved"
    return second, newer_text


@pytest.mark.parametrize("first_run", [approved, failed])
def test_retry_of_a_thread_a_newer_run_replaced_is_refused_and_writes_nothing(project, first_run):
    s, models, first = first_run(project)
    second, newer_text = edited_and_approved_again(project, s, models)
    output = Path(second.record["output_path"])
    models["writer"].queue(writer_answer(GOOD))
    models["critic"].queue(critic_answer(5))
    with Runner(s, models=models) as runner:
        with pytest.raises(BriefloopError, match="superseded by thread"):
            attempts.retry(runner, first.thread_id)
        assert runner.runlog.retries_of(first.thread_id) == []
    assert newer_text in output.read_text(encoding="utf-8")


def test_a_retried_thread_is_never_resumed_by_the_next_run(project):
    s, models, first = failed(project)
    models["writer"].queue(writer_answer(GOOD))
    models["critic"].queue(critic_answer(5))
    with Runner(s, models=models) as runner:
        retried = attempts.retry(runner, first.thread_id)
    assert retried.outcome == "approved"
    output = Path(retried.record["output_path"])
    before = output.read_text(encoding="utf-8")
    sent = len(models["writer"].sent)
    with Runner(s, models=models) as runner:
        [again] = runner.run(project / "briefs").results
    # the night finds the brief's live thread, the retry, done: no model call, no write
    assert again.thread_id == retried.thread_id and again.outcome == "skipped"
    assert len(models["writer"].sent) == sent
    assert output.read_text(encoding="utf-8") == before
    with Runner(s, models=models) as runner:
        assert runner.runlog.by_thread(first.thread_id)["status"] == "failed"


def test_a_thread_is_retried_once_however_often_it_is_asked(project):
    s, models, first = failed(project)
    models["writer"].queue(writer_answer(GOOD))
    models["critic"].queue(critic_answer(5))
    with Runner(s, models=models) as runner:
        attempts.retry(runner, first.thread_id)
        for _ in range(3):
            with pytest.raises(BriefloopError, match="already retried as thread"):
                attempts.retry(runner, first.thread_id)
        assert len(runner.runlog.retries_of(first.thread_id)) == 1


def test_retries_sent_at_once_give_one_attempt(project):
    import threading

    s, models, first = failed(project)
    for _ in range(6):
        models["writer"].queue(writer_answer(GOOD))
        models["critic"].queue(critic_answer(5))
    outcomes: list[str] = []

    def one() -> None:
        with Runner(s, models=models) as runner:
            try:
                outcomes.append(attempts.retry(runner, first.thread_id).outcome)
            except BriefloopError as e:
                outcomes.append(str(e))

    workers = [threading.Thread(target=one) for _ in range(6)]
    [w.start() for w in workers]
    [w.join(60) for w in workers]
    assert outcomes.count("approved") == 1, outcomes
    assert sum("already retried" in o or "being retried" in o for o in outcomes) == 5, outcomes
    with Runner(s, models=models) as runner:
        assert len(runner.runlog.retries_of(first.thread_id)) == 1


def test_an_old_thread_answered_after_a_newer_run_never_writes_output(project):
    """The guard under every path: a replaced thread moved to its end by any answer
    (here a rejection, the one a superseded thread still takes) leaves output/ and
    needs-work/ to the newer run; the run log keeps the old text."""
    s, models, first = one_run(
        project,
        ScriptedModel([writer_answer(GOOD)]),
        ScriptedModel([critic_answer(5)]),
        **{"loop.review": "always"},
    )
    assert first.outcome == "awaiting_human"
    night = make_settings(project, **{"loop.max_rounds": 2, "retry.attempts": 1})
    second, newer_text = edited_and_approved_again(project, night, models)
    output = Path(second.record["output_path"])
    with Runner(s, models=models) as runner:
        assert runner.resources.nodes.replaced_by(first.thread_id) == second.thread_id
        assert runner.resources.nodes.replaced_by(second.thread_id) is None
        done = review.answer(runner, first.thread_id, "reject", {}, text="superseded")
        assert done.outcome == "rejected_by_human" and not done.record.get("output_path")
    assert newer_text in output.read_text(encoding="utf-8")
    assert not (output.parent / "needs-work").exists() or not list(
        (output.parent / "needs-work").iterdir()
    )


def test_an_old_failed_thread_resumed_after_a_newer_run_never_writes_output(project):
    s, models, first = failed(project)
    second, newer_text = edited_and_approved_again(project, s, models)
    output = Path(second.record["output_path"])
    models["writer"].queue(writer_answer(GOOD))
    models["critic"].queue(critic_answer(5))
    with Runner(s, models=models) as runner:
        _, done = review.resume(runner, first.thread_id)
    # it ends approved in the run log, and the newer run's file stays as it was
    assert done.outcome == "approved" and not done.record.get("output_path")
    assert newer_text in output.read_text(encoding="utf-8")


# A link planted inside the project's output or judged folders is never written through.


@pytest.mark.settings(**WHOLE_REWRITES)
def test_a_needs_work_folder_that_is_a_link_is_never_written_through(project, tmp_path):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (project / "output").mkdir(exist_ok=True)
    (project / "output" / "needs-work").symlink_to(elsewhere, target_is_directory=True)
    s, models, first = one_run(
        project,
        ScriptedModel([writer_answer("Closed.")] * 3),
        ScriptedModel([critic_answer(1)] * 3),
        **{"loop.review": "never"},
    )
    assert first.outcome == "error" and "symbolic link" in (first.error or ""), first
    assert list(elsewhere.iterdir()) == []


@pytest.mark.parametrize("planted", ["briefs", "drafts", "drafts/closure"])
def test_reopen_never_writes_a_judged_case_through_a_link(project, tmp_path, planted):
    s, models, first = approved(project)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    link = project / "judged" / planted
    link.parent.mkdir(parents=True, exist_ok=True)
    link.symlink_to(elsewhere, target_is_directory=True)
    output = Path(first.record["output_path"])
    with Runner(s, models=models) as runner:
        with pytest.raises(BriefloopError, match="symbolic link"):
            attempts.reopen(runner, first.thread_id, "it was wrong")
        # nothing moved, nothing decided: the approval stands as it was
        assert runner.runlog.by_thread(first.thread_id)["stop_reason"] == "approved"
    assert output.is_file() and list(elsewhere.iterdir()) == []


def test_a_judged_file_that_is_a_link_is_replaced_not_written_through(project, tmp_path):
    s, models, first = approved(project)
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me")
    briefs = project / "judged" / "briefs"
    briefs.mkdir(parents=True)
    (briefs / "closure.md").symlink_to(victim)
    with Runner(s, models=models) as runner:
        attempts.reopen(runner, first.thread_id, "it was wrong")
    assert victim.read_text() == "keep me"
    assert not (briefs / "closure.md").is_symlink()


def test_reopen_never_moves_a_text_into_a_linked_needs_work(project, tmp_path):
    s, models, first = approved(project)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    output = Path(first.record["output_path"])
    (output.parent / "needs-work").symlink_to(elsewhere, target_is_directory=True)
    with (
        Runner(s, models=models) as runner,
        pytest.raises(BriefloopError, match="symbolic link"),
    ):
        attempts.reopen(runner, first.thread_id, "it was wrong")
    assert output.is_file() and list(elsewhere.iterdir()) == []
    assert not (project / "judged").exists()  # refused before anything was written


def test_reopen_in_a_copied_project_acts_on_its_own_files_only(project, tmp_path):
    s, models, first = approved(project)
    # the run log holds the file's path as it was written: in the original project
    assert str(project) in first.record["output_path"]
    copy = tmp_path / "copy"
    import shutil

    shutil.copytree(project, copy)
    settings = make_settings(copy, **{"loop.max_rounds": 2, "retry.attempts": 1})
    with Runner(settings, models=models) as runner:
        done = attempts.reopen(runner, first.thread_id, "the hour is wrong", by="ana")
    assert done.moved_to == copy / "output" / "needs-work" / "closure.md"
    assert (project / "output" / "closure.md").is_file()  # the original is untouched
    assert not (copy / "output" / "closure.md").exists()
    text = done.moved_to.read_text()
    assert "approved: false" in text and "reopened_because: the hour is wrong" in text


def test_repair_says_when_there_is_nothing_to_repair_and_finishes_what_there_is(project):
    s, models, first = approved(project)
    terminal = CliRunner()
    result = terminal.invoke(cli, ["--config", str(project / "briefloop.toml"), "repair"])
    assert result.exit_code == 0 and "nothing to repair" in result.output, result.output
    # a reopen recorded and cut short before its first step
    with Runner(s, models=models) as runner:
        runner.runlog.action_begun(
            first.thread_id,
            "reopen",
            {
                "reason": "the hour is wrong",
                "by": "ana",
                "at": "2026-12-04T10:00:00+00:00",
                "was": "approved",
                "output": first.record["output_path"],
            },
        )
    result = terminal.invoke(cli, ["--config", str(project / "briefloop.toml"), "repair"])
    assert result.exit_code == 0, result.output
    assert f"reopen of thread {first.thread_id}" in result.output
    assert "finished: awaiting_human" in result.output
    with Runner(s, models=models) as runner:
        assert runner.runlog.open_actions() == []
        assert runner.runlog.by_thread(first.thread_id)["status"] == "awaiting_human"


@pytest.mark.parametrize("inside", [False, True])
def test_reopen_refuses_a_judged_folder_that_is_a_link_and_moves_nothing(project, tmp_path, inside):
    s, models, first = approved(project)
    target = (project / "elsewhere") if inside else (tmp_path / "outside")
    target.mkdir()
    (project / "judged").symlink_to(target, target_is_directory=True)
    output = Path(first.record["output_path"])
    before = output.read_text(encoding="utf-8")
    with Runner(s) as runner:
        with pytest.raises(BriefloopError, match="judged is a symbolic link"):
            attempts.reopen(runner, first.thread_id, "it dropped the 15:00 time")
        assert runner.runlog.open_actions(first.thread_id) == []
        assert runner.runlog.by_thread(first.thread_id)["stop_reason"] == "approved"
    assert output.read_text(encoding="utf-8") == before and list(target.iterdir()) == []
