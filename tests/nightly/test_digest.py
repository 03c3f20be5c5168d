"""The morning digest over a real run log: two sources make two batches, and one message
tells them both, every text still waiting and every failure once; with [notify] digest
no message goes out after each batch. Sent to a webhook server on loopback."""

from __future__ import annotations

from batch.errors import ModelUnavailable
from batch.nightly import digest
from batch.nightly.job import run_job

from conftest import ScriptedModel, critic_answer, make_settings, write_brief, writer_answer

PH = "[FIGURE NEEDED: Q3 revenue]"


def two_sources(project, url):
    """Batch 1 (briefs/): a text that waits on a placeholder, one whose writer is down.
    Batch 2 (more/): a second text that waits."""
    s = make_settings(
        project,
        **{
            "notify.webhook_url": url,
            "notify.digest": True,
            "notify.review_url": "http://127.0.0.1:8765/",
            "retry.attempts": 1,
        },
    )
    write_brief(project, "q3.md", "Memo on Q3: revenue not known yet.", id="q3")
    write_brief(project, "lift.md", "Memo: the lift is out of order.", id="lift")
    more = project / "more"
    more.mkdir()
    (more / "q4.md").write_text("---\nid: q4\n---\nMemo on Q4: revenue not known yet.\n")

    def write(messages):
        text = messages[-1]["content"]
        if "lift" in text:
            return ModelUnavailable("connection refused by the model host")
        quarter = "Q4" if "Q4" in text else "Q3"
        ph = PH.replace("Q3", quarter)
        return writer_answer(f"{quarter} revenue was {ph}.", needs=[(ph, "How much?")])

    models = {
        "writer": ScriptedModel([write] * 10),
        "critic": ScriptedModel([critic_answer(5)] * 10),
    }
    run_job(s, project / "briefs", models=models)
    run_job(s, more, models=models)
    return s


def test_one_morning_message_across_the_nights_batches(project, webhook):
    url, received = webhook
    s = two_sources(project, url)
    assert received == []  # with [notify] digest, no message after each batch
    made = digest.digest(s)
    assert made.subject == "briefloop: 2 texts wait for you, 1 failed"
    assert "2 batches" in made.body and "more" in made.body
    for brief in ("q3", "q4"):
        assert f"- {brief}" in made.body
    assert "[FIGURE NEEDED: Q3 revenue]" in made.body and "[FIGURE NEEDED: Q4 revenue]" in made.body
    failed = made.body[made.body.index("Failed (1):") :]
    assert "- lift: " in failed and "connection refused" in failed
    assert "open: http://127.0.0.1:8765/thread/lift-" in failed  # the failed text's page
    assert digest.send(s, made) == []
    [sent] = received
    assert "2 texts wait for you" in sent["text"]
    # the next morning: the texts still waiting are told again, the failure is not
    again = digest.digest(s)
    assert "Failed" not in again.body and "- q3" in again.body and "- q4" in again.body


def test_the_digest_command_prints_and_sends(project, webhook, tmp_path):
    from click.testing import CliRunner

    from batch.cli import cli

    url, received = webhook
    two_sources(project, url)
    cfg = project / "briefloop.toml"
    cfg.write_text(
        f'[paths]\nroot = "{project}"\n[log]\nformat = "csv"\npath = "output/runs.csv"\n'
        f'[notify]\nwebhook_url = "{url}"\ndigest = true\n'
    )
    shown = CliRunner().invoke(cli, ["--config", str(cfg), "digest"])
    assert shown.exit_code == 0, shown.output
    assert "2 texts wait for you" in shown.output and received == []
    sent = CliRunner().invoke(cli, ["--config", str(cfg), "digest", "--send"])
    assert sent.exit_code == 0, sent.output
    assert len(received) == 1
