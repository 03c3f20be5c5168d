"""briefloop gc: finished threads shrink to their final checkpoint; others are untouched."""

from __future__ import annotations

import sqlite3

import pytest
from click.testing import CliRunner

from batch.cli import cli
from batch.nightly.job import run_job
from batch.run.runner import Runner
from batch.store.retention import prune

from conftest import CRITIC_GATE, ScriptedModel, critic_answer, write_brief, writer_answer

PH = "[FIGURE NEEDED: x]"


def counts(settings):
    with sqlite3.connect(settings.checkpoint_path) as db:
        return dict(
            db.execute("SELECT thread_id, count(*) FROM checkpoints GROUP BY thread_id").fetchall()
        )


@pytest.mark.settings(**CRITIC_GATE)
def test_gc_keeps_final_checkpoints_and_waiting_threads(project, settings):
    for i in range(3):
        write_brief(project, f"b{i}.md", "Office closed on Friday.", id=f"b{i}")
    write_brief(project, "wait.md", "Memo needing x.")
    writer = ScriptedModel(
        [writer_answer("Closed on Friday.")] * 6
        + [writer_answer(f"x is {PH}.", needs=[(PH, "x?")])]
    )
    critic = ScriptedModel(
        [critic_answer(2, must_fix=["More."]), critic_answer(5)] * 3 + [critic_answer(5)]
    )
    summary = run_job(
        settings, project / "briefs", strict=True, models={"writer": writer, "critic": critic}
    )
    assert sorted(r.outcome for r in summary.results) == ["approved"] * 3 + ["awaiting_human"]
    before = counts(settings)
    waiting = next(r.thread_id for r in summary.results if r.outcome == "awaiting_human")
    report = prune(settings, keep_days=0)
    after = counts(settings)
    assert report.threads == 3 and report.checkpoints_deleted > 0
    assert report.bytes_after <= report.bytes_before
    assert after[waiting] == before[waiting]  # a thread waiting for a person keeps its history
    assert all(n == 1 for t, n in after.items() if t != waiting)
    with Runner(settings, models={"writer": None, "critic": None}) as runner:
        for r in summary.results:
            values = runner.snapshot(r.thread_id).values
            assert values["score_history"]  # the final state is still readable
        again = runner.run(project / "briefs")
    assert sorted(r.outcome for r in again.results) == ["skipped"] * 3 + ["waiting"]
    assert prune(settings, keep_days=30).threads == 0  # too recent: nothing to do


def test_gc_command(project):
    cfg = project / "briefloop.toml"
    cfg.write_text('[paths]\nroot = "."\n')
    result = CliRunner().invoke(cli, ["--config", str(cfg), "gc", "--keep-days", "0"])
    assert result.exit_code == 0 and "0 finished thread(s) pruned" in result.output
