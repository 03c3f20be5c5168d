"""The brief's current version owns output/: a brief put back to a version that ran
before gets that version's text back (run again when another version's text took its
place), and a thread of a version no longer current is refused a retry."""

from __future__ import annotations

from pathlib import Path

import pytest

from batch.errors import BriefloopError
from batch.output import front_matter_of
from batch.review import attempts
from batch.review import threads as review
from batch.run.runner import Runner

from conftest import ScriptedModel, critic_answer, make_settings, write_brief, writer_answer

FRIDAY = ("Office closed Friday from 15:00.", "The office is closed on Friday from 15:00.")
MONDAY = ("Office closed Monday from 15:00.", "The office is closed on Monday from 15:00.")
TUESDAY = ("Office closed Tuesday from 15:00.", "The office is closed on Tuesday from 15:00.")


def night(project: Path, settings, models, version: tuple[str, str], approves: bool = True):
    """One run of the folder with the brief at `version`; the writer gives its text."""
    write_brief(project, "office.md", version[0], id="office", title="Office")
    models["writer"].queue(writer_answer(version[1]))
    models["critic"].queue(critic_answer(5))
    with Runner(settings, models=models) as runner:
        [result] = runner.run(project / "briefs").results
    return result


def output_text(project: Path) -> str | None:
    found = front_matter_of(project / "output" / "office.md")
    return found[1].strip() if found else None


@pytest.fixture
def models():
    return {"writer": ScriptedModel([]), "critic": ScriptedModel([])}


def test_a_brief_put_back_gets_its_text_back_and_the_other_version_is_refused_a_retry(
    project, models
):
    s = make_settings(project, **{"loop.max_rounds": 2, "retry.attempts": 1})
    friday = night(project, s, models, FRIDAY)
    monday = night(project, s, models, MONDAY)
    assert output_text(project) == MONDAY[1]
    back = night(project, s, models, FRIDAY)
    # run again (Monday's text had taken its place), approved: output is Friday's again
    assert back.outcome == "approved" and back.thread_id.startswith(friday.thread_id + "-")
    assert output_text(project) == FRIDAY[1]
    aside = front_matter_of(project / "output" / "superseded" / f"{monday.thread_id}.md")
    assert aside is not None and aside[1].strip() == MONDAY[1]
    assert aside[0]["approved"] is False and aside[0]["superseded_by"] == friday.thread_id
    with Runner(s, models=models) as runner:
        assert runner.runlog.by_thread(monday.thread_id)["output_path"].endswith(
            f"superseded/{monday.thread_id}.md"
        )
        for old in (monday.thread_id, friday.thread_id):
            with pytest.raises(BriefloopError, match="superseded by thread"):
                attempts.retry(runner, old)
    assert output_text(project) == FRIDAY[1]
    # the next night: the put-back version is done, nothing runs, nothing moves
    sent = len(models["writer"].sent)
    with Runner(s, models=models) as runner:
        [again] = runner.run(project / "briefs").results
    assert again.outcome == "skipped" and len(models["writer"].sent) == sent
    assert output_text(project) == FRIDAY[1]


def test_three_versions_and_back_twice(project, models):
    s = make_settings(project, **{"loop.max_rounds": 2, "retry.attempts": 1})
    for version in (FRIDAY, MONDAY, TUESDAY, MONDAY, FRIDAY, TUESDAY):
        result = night(project, s, models, version)
        assert result.outcome == "approved"
        assert output_text(project) == version[1]


def test_a_waiting_version_put_back_is_current_and_no_other_text_stays_out(project, models):
    s = make_settings(project, **{"loop.max_rounds": 2, "retry.attempts": 1})
    waits = make_settings(project, **{"loop.review": "always", "loop.max_rounds": 2})
    friday = night(project, waits, models, FRIDAY)
    assert friday.outcome == "awaiting_human" and output_text(project) is None
    monday = night(project, s, models, MONDAY)
    assert output_text(project) == MONDAY[1]
    sent = len(models["writer"].sent)
    back = night(project, waits, models, FRIDAY)
    # the same waiting thread, made current: no model call, Monday's text taken out
    assert back.thread_id == friday.thread_id and back.outcome == "waiting"
    assert len(models["writer"].sent) == sent
    assert output_text(project) is None
    with Runner(waits, models=models) as runner:
        with pytest.raises(BriefloopError, match="superseded by thread"):
            attempts.retry(runner, monday.thread_id)
        done = review.answer(runner, friday.thread_id, "approve", {}, by="ana")
    assert done is not None and done.outcome == "approved_by_human"
    assert output_text(project) == FRIDAY[1]


def test_a_version_never_replaced_keeps_its_text_when_another_only_waited(project, models):
    s = make_settings(project, **{"loop.max_rounds": 2, "retry.attempts": 1})
    waits = make_settings(project, **{"loop.review": "always", "loop.max_rounds": 2})
    friday = night(project, s, models, FRIDAY)
    assert night(project, waits, models, MONDAY).outcome == "awaiting_human"
    assert output_text(project) == FRIDAY[1]  # Monday is not approved: Friday stands
    sent = len(models["writer"].sent)
    back = night(project, s, models, FRIDAY)
    # its own text is still there: made current again, nothing run
    assert back.thread_id == friday.thread_id and back.outcome == "skipped"
    assert len(models["writer"].sent) == sent and output_text(project) == FRIDAY[1]


def test_a_text_written_before_files_named_their_thread_is_found_by_the_run_log(project, models):
    s = make_settings(project, **{"loop.max_rounds": 2, "retry.attempts": 1})
    waits = make_settings(project, **{"loop.review": "always", "loop.max_rounds": 2})
    friday = night(project, s, models, FRIDAY)
    path = project / "output" / "office.md"
    path.write_text(
        "\n".join(
            line for line in path.read_text().splitlines() if not line.startswith("thread_id:")
        )
        + "\n"
    )
    assert night(project, waits, models, MONDAY).outcome == "awaiting_human"
    sent = len(models["writer"].sent)
    back = night(project, s, models, FRIDAY)
    assert back.thread_id == friday.thread_id and back.outcome == "skipped"
    assert len(models["writer"].sent) == sent and output_text(project) == FRIDAY[1]
