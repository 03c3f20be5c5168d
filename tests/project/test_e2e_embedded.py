"""End to end with the real embedded model (Qwen2.5-Coder-0.5B through llama.cpp).

Slow: a few minutes on two cores. These run in CI too.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner
from openpyxl import load_workbook

from batch import config
from batch.cli import cli
from batch.nightly.job import run_job
from batch.outcomes import AWAITING, STOP_REASONS
from batch.store.runlog import FIELDS

from conftest import REPO, ScriptedModel, writer_answer

pytestmark = pytest.mark.slow

# how a run with no person answering may end
UNATTENDED = (STOP_REASONS - {"approved_by_human", "rejected_by_human"}) | {AWAITING}


@pytest.fixture
def e2e_project(project):
    for name in ("office-closure.md", "slugify.py"):
        shutil.copy(REPO / "examples" / "briefs" / name, project / "briefs" / name)
    cfg = project / "briefloop.toml"
    shipped = (REPO / "config" / "briefloop.toml").read_text(encoding="utf-8")
    # the shipped config, with this project as root and two rounds to bound the time
    cfg.write_text(
        shipped.replace('root = ".."', 'root = "."').replace("max_rounds = 3", "max_rounds = 2"),
        encoding="utf-8",
    )
    return project, cfg


def test_example_briefs_end_to_end_then_rerun_is_free(e2e_project):
    project, cfg = e2e_project
    runner = CliRunner()
    first = runner.invoke(cli, ["--config", str(cfg), "run", str(project / "briefs")])
    assert first.exit_code in (0, 1), first.output
    calls = int(re.search(r"(\d+) model call\(s\) in", first.output).group(1))
    assert calls >= 2  # a writer call for each brief at least

    records = json.loads(runner.invoke(cli, ["--config", str(cfg), "runs", "--json"]).output)
    assert sorted(r["brief_id"] for r in records) == ["office-closure", "slugify"]
    for rec in records:
        assert rec["stop_reason"] in UNATTENDED
        assert rec["models"]["writer"] == "embedded:qwen2.5-coder-1.5b-instruct"
        if rec["stop_reason"] != "error":
            # a text the checks approve in its first round took its one writer call
            assert rec["model_calls"] >= 1 and rec["input_tokens"] > 0
            assert len(rec["score_history"]) == rec["rounds"]
            assert all(0 <= s <= 100 for s in rec["score_history"])
        if rec["status"] == "finished":
            # approved texts in output/, every other in output/needs-work/
            body = Path(rec["output_path"]).read_text(encoding="utf-8")
            approved = rec["stop_reason"] in ("approved", "approved_by_human")
            assert Path(rec["output_path"]).parent.name == ("output" if approved else "needs-work")
            assert f"stop_reason: {rec['stop_reason']}" in body

    sheet = load_workbook(project / "output" / "runs.xlsx")["Runs"]
    rows = list(sheet.iter_rows(values_only=True))
    assert list(rows[0]) == FIELDS
    assert sorted(r[FIELDS.index("run_id")] for r in rows[1:]) == sorted(
        r["run_id"] for r in records
    )

    # The one failure a small embedded writer is known for: an answer that runs on
    # repeating a line until it is cut off, twice. Any other error is ours.
    errors = [r["error"] for r in records if r["stop_reason"] == "error"]
    if len(errors) == len(records) or any("cut off at max_tokens" not in e for e in errors):
        pytest.fail(f"a brief ended in error: {errors}")

    second = runner.invoke(cli, ["--config", str(cfg), "run", str(project / "briefs")])
    assert second.exit_code in (0, 1), second.output
    # finished briefs cost nothing again; a brief that failed is tried again
    for rec in records:
        if rec["status"] == "finished":
            assert f"{rec['brief_id']}: skipped" in second.output, second.output
    if not errors:
        assert "0 model call(s)" in second.output
    again = json.loads(runner.invoke(cli, ["--config", str(cfg), "runs", "--json"]).output)
    assert [r["run_id"] for r in again] == [r["run_id"] for r in records]
    assert len(list(load_workbook(project / "output" / "runs.xlsx")["Runs"].iter_rows())) == 3


REVENUE_BRIEF = """---
id: revenue-note
title: Q3 revenue note
max_words: 60
---
Thank the finance team for closing the quarter on time, and tell them the Q3 revenue.
Nobody knows the Q3 revenue yet: use [FIGURE NEEDED: Q3 revenue] for it.
"""


REVENUE_DRAFT = (
    "The finance team closed the quarter on time: thank you. Q3 revenue was "
    "[FIGURE NEEDED: Q3 revenue]."
)


def test_a_missing_figure_pauses_and_the_answer_lands_in_the_output(e2e_project):
    """The pause, the answer and the output, with the real embedded critic in the loop.
    The writer is scripted: whether a small model writes a passable draft is measured
    by `python -m bench loop`, not asserted here."""
    project, cfg = e2e_project
    # the shipped config asks no critic model ("checks"); this test is of the real one
    cfg.write_text(
        cfg.read_text(encoding="utf-8").replace('critic_mode = "checks"', 'critic_mode = "advice"'),
        encoding="utf-8",
    )
    for f in (project / "briefs").iterdir():
        f.unlink()
    (project / "briefs" / "revenue.md").write_text(REVENUE_BRIEF, encoding="utf-8")
    runner = CliRunner()
    writer = ScriptedModel(
        [
            writer_answer(
                REVENUE_DRAFT, needs=[("[FIGURE NEEDED: Q3 revenue]", "What was the Q3 revenue?")]
            )
        ]
    )
    settings = config.load(cfg, environ={})
    summary = run_job(settings, project / "briefs", models={"writer": writer})
    [result] = summary.results
    assert result.outcome == "awaiting_human", result
    assert result.record["models"]["critic"] == "embedded:qwen2.5-coder-0.5b-instruct"
    assert result.model_calls == 2  # the scripted writer and the real critic
    [waiting] = json.loads(
        runner.invoke(cli, ["--config", str(cfg), "review", "list", "--json"]).output
    )
    placeholders = [n["placeholder"] for n in waiting["needs_from_human"]]
    assert "[FIGURE NEEDED: Q3 revenue]" in placeholders
    sets = []
    for n, _ in enumerate(placeholders, start=1):
        sets += ["--set", f"{n}=4.2M EUR" if n == 1 else f"{n}=see the attached report"]
    done = runner.invoke(
        cli,
        [
            "--config",
            str(cfg),
            "review",
            "answer",
            waiting["thread_id"],
            *sets,
            "--approve",
            "--by",
            "ana",
        ],
    )
    assert done.exit_code == 0, done.output
    output = (project / "output" / "revenue-note.md").read_text(encoding="utf-8")
    assert "4.2M EUR" in output and "[FIGURE NEEDED" not in output
    assert "stop_reason: approved_by_human" in output and "approved_by: ana" in output
    [rec] = json.loads(runner.invoke(cli, ["--config", str(cfg), "runs", "--json"]).output)
    assert rec["stop_reason"] == "approved_by_human" and rec["decided_by"] == "ana"
