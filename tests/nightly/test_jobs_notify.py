"""The message after a batch: sent when a text waits for a person or a brief failed,
through a real local webhook server; never when everything was approved."""

from __future__ import annotations

import pytest

from batch.nightly.job import run_job

from conftest import ScriptedModel, critic_answer, make_settings, write_brief, writer_answer

PH = "[FIGURE NEEDED: Q3 revenue]"


def test_a_waiting_text_is_announced_and_an_approved_batch_is_not(project, webhook):
    url, received = webhook
    s = make_settings(
        project, **{"notify.webhook_url": url, "notify.review_url": "http://127.0.0.1:8765/"}
    )
    write_brief(project, "a.md", "Office closed Friday from 15:00.", id="a")
    models = {
        "writer": ScriptedModel([writer_answer("The office is closed on Friday from 15:00.")]),
        "critic": ScriptedModel([critic_answer(5)]),
    }
    summary = run_job(s, project / "briefs", models=models, strict=True)
    assert summary.counts["approved"] == 1 and received == []
    write_brief(project, "q3.md", "Memo on Q3: revenue not known yet.", id="q3", title="Q3 memo")
    models = {
        "writer": ScriptedModel(
            [writer_answer(f"Q3 revenue was {PH}.", needs=[(PH, "What was it?")])]
        ),
        "critic": ScriptedModel([critic_answer(5)]),
    }
    summary = run_job(s, project / "briefs", models=models, strict=True)
    assert not summary.warnings
    [message] = received
    assert "q3" in message["text"] and "Q3 revenue" in message["text"]
    assert "http://127.0.0.1:8765/" in message["text"]


def test_a_failed_delivery_is_a_warning_not_a_failed_batch(project):
    s = make_settings(
        project, **{"notify.webhook_url": "http://127.0.0.1:9/hook", "notify.attempts": 1}
    )
    write_brief(project, "bad.md", "")  # an empty brief: an error run
    summary = run_job(s, project / "briefs", models={"writer": None, "critic": None}, strict=True)
    assert summary.failed
    assert any("notification" in w and "failed" in w for w in summary.warnings)


def test_a_scheduled_batch_whose_source_is_gone_is_announced(project, webhook):
    from batch.errors import BriefloopError

    url, received = webhook
    s = make_settings(project, **{"notify.webhook_url": url})
    with pytest.raises(BriefloopError):
        run_job(
            s, project / "no-such-folder", models={"writer": None, "critic": None}, job="nightly"
        )
    [message] = received
    assert "the whole batch" in message["text"] and "no-such-folder" in message["text"]


@pytest.mark.parametrize("source", ["no-such-folder", "notes.pdf", "briefs/sub"])
def test_a_usage_mistake_by_hand_records_no_batch_and_sends_nothing(project, webhook, source):
    from click.testing import CliRunner

    from batch.cli import cli
    from batch.run.runner import Runner

    url, received = webhook
    (project / "notes.pdf").write_bytes(b"%PDF-1.4")
    cfg = project / "briefloop.toml"
    cfg.write_text(f'[paths]\nroot = "."\n[notify]\nwebhook_url = "{url}"\n')
    if source == "briefs/sub":
        import os

        os.mkfifo(project / "briefs" / "sub")
    result = CliRunner().invoke(cli, ["--config", str(cfg), "run", str(project / source)])
    assert result.exit_code == 2, result.output
    assert len(result.output.strip().splitlines()) == 1
    assert received == []
    with Runner(make_settings(project)) as runner:
        assert runner.runlog.resolve_batch("last") is None
