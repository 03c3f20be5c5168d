"""An approval whose text cannot be written to output/ (a full disk, a file in the way)
is kept: the person is told, a retry is refused, and `repair` writes it once it can."""

from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest

from batch.errors import BriefloopError
from batch.review import attempts
from batch.review import threads as review
from batch.review.pending import finish_pending
from batch.run.runner import Runner

from conftest import ScriptedModel, critic_answer, make_settings, write_brief, writer_answer

TEXT = "The office is closed on Friday from 15:00."


def waiting(project: Path):
    s = make_settings(project, **{"loop.review": "always", "loop.max_rounds": 2})
    write_brief(project, "office.md", "Office closed Friday from 15:00.", id="office")
    models = {
        "writer": ScriptedModel([writer_answer(TEXT)] * 3),
        "critic": ScriptedModel([critic_answer(5)] * 3),
    }
    with Runner(s, models=models) as runner:
        [result] = runner.run(project / "briefs").results
    assert result.outcome == "awaiting_human"
    return s, models, result.thread_id


def in_the_way(project: Path):
    """A folder where the text's file goes: the write fails until it is moved."""
    blocker = project / "output" / "office.md"
    blocker.mkdir(parents=True)
    return lambda: blocker.rmdir()


def disk_full(project: Path, monkeypatch):
    """The disk is full for the output's rename (the one write that fails), until freed."""
    real = os.replace

    def full(src, dst, *a, **k):
        if str(dst).endswith(os.path.join("output", "office.md")):
            raise OSError(errno.ENOSPC, "No space left on device")
        return real(src, dst, *a, **k)

    monkeypatch.setattr(os, "replace", full)
    return lambda: monkeypatch.setattr(os, "replace", real)


@pytest.mark.parametrize("failure", [in_the_way, disk_full])
def test_an_approval_that_cannot_be_written_is_kept_and_repair_writes_it(
    project, monkeypatch, failure
):
    s, models, tid = waiting(project)
    fixed = failure(project) if failure is in_the_way else failure(project, monkeypatch)
    with Runner(s, models=models) as runner:
        done = review.answer(runner, tid, "approve", {}, by="ana")
        assert done.outcome == "error"
        assert "approved by ana, but its text could not be written" in done.error
        assert "`briefloop repair`" in done.error
        # a new attempt would lose the approval: refused, with what to do
        with pytest.raises(BriefloopError, match="run `briefloop repair`"):
            attempts.retry(runner, tid)
        # not writable yet: repair says so and keeps it
        [still] = finish_pending(runner)
        assert still.outcome.startswith("still not written")
        assert len(runner.runlog.open_actions(tid)) == 1
    fixed()
    with Runner(s, models=models) as runner:
        [written] = finish_pending(runner)
        assert written.outcome == "approved_by_human"
        record = runner.runlog.by_thread(tid)
        assert record["stop_reason"] == "approved_by_human" and record["decided_by"] == "ana"
        assert runner.runlog.open_actions() == [] and finish_pending(runner) == []
    assert TEXT in (project / "output" / "office.md").read_text(encoding="utf-8")


def test_the_nightly_run_writes_it_too_and_repair_then_has_nothing_to_do(project):
    s, models, tid = waiting(project)
    fixed = in_the_way(project)
    with Runner(s, models=models) as runner:
        assert review.answer(runner, tid, "approve", {}, by="ana").outcome == "error"
    fixed()
    with Runner(s, models=models) as runner:
        [night] = runner.run(project / "briefs").results
        assert night.outcome == "approved_by_human"
        [ended] = finish_pending(runner)  # the kept approval, found written
        assert ended.outcome == "approved_by_human" and runner.runlog.open_actions() == []
    assert TEXT in (project / "output" / "office.md").read_text(encoding="utf-8")


def test_a_rejection_that_cannot_be_set_aside_keeps_nothing_to_repair(project):
    s, models, tid = waiting(project)
    (project / "output" / "needs-work" / "office.md").mkdir(parents=True)
    with Runner(s, models=models) as runner:
        done = review.answer(runner, tid, "reject", {}, text="not what we meant", by="ana")
        assert done.outcome == "error" and "approved by" not in done.error
        assert runner.runlog.open_actions() == []
