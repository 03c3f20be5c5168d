"""Why was this approved: one record per judged draft, kept in the run log, read the same
from the checkpoints and from `review show` or `runs --json` after gc; and each kept
draft judged once, its API doc's examples run once."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from click.testing import CliRunner

from batch.cli import cli
from batch.judging import record
from batch.judging.checks import code
from batch.judging.record import draft_hash, why_lines
from batch.review import history
from batch.review.pages import story_view
from batch.run.runner import Runner
from batch.store.retention import prune

from conftest import (
    ScriptedModel,
    critic_answer,
    csv_log_config,
    make_settings,
    run_one,
    write_brief,
    writer_answer,
)

BRIEF = "Office closed Friday from 15:00. Staff should save their work before they leave."
TEXT = "The office is closed on Friday from 15:00. Please save your work before you leave."


def test_why_it_was_approved_is_one_read_and_survives_gc(project):
    settings, models, r = run_one(project, BRIEF, TEXT, "closure")
    with Runner(settings, models=models) as runner:
        kept = runner.snapshot(r.thread_id).values["judgement"]
    assert r.outcome == "approved"
    # the record is of the text that went out, and says why
    body = Path(r.record["output_path"]).read_text().split("---\n", 2)[2].strip()
    assert kept["draft"] == draft_hash(body) and kept["score"] == 100.0
    assert {"Requirements", "Additions", "Numbers"} <= set(kept["checks"])
    assert [s["items"] for s in kept["support"]] == [["R1"], ["R2"]]
    prune(settings, keep_days=0)
    cfg = csv_log_config(project)
    shown = CliRunner().invoke(cli, ["--config", str(cfg), "review", "show", r.thread_id])
    assert shown.exit_code == 0, shown.output
    assert "approved" in shown.output
    flat = " ".join(shown.output.split())
    for line in why_lines(kept):
        assert " ".join(line.split()) in flat, line
    runs = CliRunner().invoke(cli, ["--config", str(cfg), "runs", "--json"])
    [row] = [x for x in json.loads(runs.output) if x["thread_id"] == r.thread_id]
    assert row["judgement"] == kept


def test_a_kept_draft_is_judged_once(project, monkeypatch):
    judged: Counter[str] = Counter()
    real = record.judge

    def counting(ctx):
        judged[ctx.draft] += 1
        return real(ctx)

    monkeypatch.setattr(record, "judge", counting)
    settings = make_settings(
        project,
        **{"paths.root": str(project), "loop.repairs": True, "models.critic_mode": "checks"},
    )
    write_brief(project, "closure.md", BRIEF, id="closure")
    first = "The office is closed on Friday from 15:00."
    models = {
        "writer": ScriptedModel(
            [writer_answer(first), {"text": "Please save your work before you leave."}]
        ),
        "critic": ScriptedModel([]),
    }
    with Runner(settings, models=models, strict=True) as runner:
        [r] = runner.run(project / "briefs").results
    assert r.outcome == "approved" and r.record["rounds"] == 2
    # round 1's draft, the repair the repairer judged and kept, which the critic step
    # then read: each judged once
    assert judged[first] == 1 and len(judged) == 2 and set(judged.values()) == {1}


def test_an_api_docs_examples_run_once_per_draft(project, settings, monkeypatch):
    ran: Counter[str] = Counter()
    real = code.Examples.verify

    def counting(self, ctx):
        ran[ctx.draft] += 1
        return real(self, ctx)

    monkeypatch.setattr(code.Examples, "verify", counting)
    (project / "briefs" / "calc.py").write_text(
        '"""Small sums."""\n\n\ndef add(a, b):\n    return a + b\n'
    )
    writer = ScriptedModel(
        [{"summary": "Returns a plus b.", "example": "add(1, 2)", "parameters": []}]
    )
    scores = {"technical_accuracy": 5, "completeness": 5, "examples": 5, "structure": 5}
    models = {"writer": writer, "critic": ScriptedModel([critic_answer(scores)])}
    with Runner(settings, models=models, strict=True) as runner:
        [r] = runner.run(project / "briefs").results
    assert r.outcome == "approved", r.record
    assert ran and set(ran.values()) == {1}, ran


def test_a_finished_thread_whose_checkpoints_are_gone_offers_no_retry(project):
    """Its brief is no longer kept: a Retry button could only be refused."""
    settings, models, r = run_one(project, BRIEF, TEXT, "closure")
    with Runner(settings, models=models) as runner:
        kept = story_view(history.story(runner, r.thread_id))
    assert kept["can_retry"] and kept["story"].brief["id"] == "closure"
    for path in (project / "checkpoints").glob("briefloop.sqlite*"):
        path.unlink()
    with Runner(settings, models=models) as runner:
        gone = story_view(history.story(runner, r.thread_id))
    assert not gone["can_retry"] and gone["story"].brief == {}
    assert gone["story"].brief_id == "closure"  # from the run log
