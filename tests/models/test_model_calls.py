"""Every model call of a thread is kept, in order, with what it was sent and answered:
`briefloop review calls`, the story page, the run log's totals (a failed node's calls
too), and pruned with the checkpoints."""

from __future__ import annotations

import json
import random
import re
from datetime import UTC, datetime, timedelta

import pytest
from click.testing import CliRunner
from starlette.testclient import TestClient

from batch.cli import cli
from batch.errors import ModelUnavailable
from batch.review import web
from batch.run.runner import Runner
from batch.store.retention import prune

from conftest import (
    CRITIC_GATE,
    LOOP_ENDS_ALONE,
    WHOLE_REWRITES,
    ScriptedModel,
    critic_answer,
    make_settings,
    write_brief,
    writer_answer,
)

GOOD = "The office is closed on Friday from 15:00."
MUST = "Name the team that closes the office."


def ran(project, writer_answers, critic_answers, **over):
    s = make_settings(project, **{"loop.max_rounds": 2, "retry.attempts": 2, **over})
    write_brief(
        project,
        "closure.md",
        "Office closed Friday from 15:00.",
        id="closure",
        title="Office closure",
    )
    models = {"writer": ScriptedModel(writer_answers), "critic": ScriptedModel(critic_answers)}
    with Runner(s, models=models) as runner:
        [result] = runner.run(project / "briefs").results
        calls = runner.runlog.calls(result.thread_id)
        record = runner.runlog.by_thread(result.thread_id)
    return s, result, calls, record, models


@pytest.mark.settings(**CRITIC_GATE)
def test_each_call_is_kept_in_order_with_its_messages_answer_round_and_retry(project):
    s, result, calls, record, models = ran(
        project,
        [writer_answer(GOOD), writer_answer(GOOD + " Thank you.")],
        [critic_answer(3, must_fix=[MUST]), "this is not JSON", critic_answer(3, must_fix=[MUST])],
    )
    assert [(c["node"], c["round"], c["role"], c["attempt"]) for c in calls] == [
        ("writer", 1, "writer", 1),
        ("critic", 1, "critic", 1),
        ("writer", 2, "writer", 1),
        ("critic", 2, "critic", 1),
        ("critic", 2, "critic", 2),
    ]
    # what was sent is what the model got, and the answer is the raw text
    assert [c["messages"] for c in calls if c["role"] == "critic"] == models["critic"].sent
    assert calls[3]["answer"] == "this is not JSON" and "not valid JSON" in calls[3]["problem"]
    assert (
        calls[4]["problem"] == ""
        and calls[4]["messages"][-1]["content"] != calls[3]["messages"][-1]["content"]
    )  # the retry says what was wrong
    assert all(c["seconds"] >= 0 and c["input_tokens"] > 0 for c in calls)
    assert record["model_calls"] == 5
    assert record["input_tokens"] == sum(c["input_tokens"] for c in calls)


@pytest.mark.settings(**CRITIC_GATE)
def test_a_failed_runs_calls_are_counted_and_shown(project):
    # the writer answers once, then the critic's host is down for every retry
    down = ModelUnavailable("connection refused by http://127.0.0.1:1")
    s, result, calls, record, _ = ran(project, [writer_answer(GOOD)], [down, down])
    assert result.outcome == "error" and record["status"] == "failed"
    assert [(c["role"], c["problem"]) for c in calls] == [
        ("writer", ""),
        ("critic", "ModelUnavailable: connection refused by http://127.0.0.1:1"),
        ("critic", "ModelUnavailable: connection refused by http://127.0.0.1:1"),
    ]
    assert record["model_calls"] == 3  # the state, lost with the failed node, had 0
    shown = CliRunner().invoke(
        cli,
        ["--config", str(project / "briefloop.toml"), "review", "calls", result.thread_id],
        env={"COLUMNS": "200"},
    )
    assert shown.exit_code == 0, shown.output
    assert re.search(
        r"#2 round 1 · critic · scripted · \d+\.\d+s · 0 → 0 tokens · not "
        r"taken: ModelUnavailable: connection refused",
        shown.output,
    )
    assert "#3 round 1 · critic" in shown.output


@pytest.mark.settings(**CRITIC_GATE, **WHOLE_REWRITES)
def test_review_calls_prints_messages_cut_and_whole_and_as_json(project):
    words = [
        "office",
        "team",
        "door",
        "key",
        "light",
        "desk",
        "floor",
        "window",
        "plant",
        "chair",
        "coffee",
        "badge",
        "printer",
        "paper",
        "lamp",
        "clock",
    ]
    rng = random.Random(4)
    long_brief_answer = GOOD + " " + " ".join(rng.choice(words) for _ in range(300)) + "."
    s, result, calls, record, models = ran(
        project, [writer_answer(long_brief_answer)], [critic_answer(5)]
    )
    cfg = ["--config", str(project / "briefloop.toml")]
    short = CliRunner().invoke(
        cli, [*cfg, "review", "calls", result.thread_id], env={"COLUMNS": "200"}
    )
    whole = CliRunner().invoke(
        cli, [*cfg, "review", "calls", result.thread_id, "--full"], env={"COLUMNS": "200"}
    )
    assert "more characters; --full shows all" in short.output
    assert "--full shows all" not in whole.output
    flat = " ".join(whole.output.split())
    assert " ".join(models["writer"].sent[0][-1]["content"].split()) in flat
    assert " ".join(long_brief_answer.split()) in flat
    data = json.loads(
        CliRunner().invoke(cli, [*cfg, "review", "calls", result.thread_id, "--json"]).output
    )
    assert [c["role"] for c in data] == ["writer", "critic"]
    assert data[0]["messages"] == models["writer"].sent[0]
    missing = CliRunner().invoke(cli, [*cfg, "review", "calls", "no-such-thread"])
    assert missing.exit_code == 2 and "no thread or brief 'no-such-thread'" in missing.output


@pytest.mark.settings(**CRITIC_GATE, **LOOP_ENDS_ALONE)
def test_the_story_page_folds_each_rounds_calls_under_it_with_brief_and_checklist(project):
    s, result, calls, record, _ = ran(
        project,
        [writer_answer(GOOD), writer_answer(GOOD + " Thank you.")],
        [critic_answer(3, must_fix=[MUST]), critic_answer(3, must_fix=[MUST])],
    )
    page = TestClient(web.create_app(s)).get(f"/thread/{result.thread_id}").text
    rounds = re.split(r'<div class="round" id="round-', page)[1:]
    assert len(rounds) == 2
    for number, block in enumerate(rounds, start=1):
        assert "Model calls (2)" in block
        ids = re.findall(r'<details class="call" id="call-(\d+)">', block)
        assert [int(i) for i in ids] == [c["id"] for c in calls if c["round"] == number]
    assert "&lt;brief" in page or "Office closed Friday from 15:00." in page
    assert 'id="checklist"' in page and re.search(r"[✓✗] R\d+ \w+: ", page)


@pytest.mark.settings(**CRITIC_GATE)
def test_calls_are_pruned_with_the_checkpoints_of_old_finished_threads(project):
    s, result, calls, record, _ = ran(project, [writer_answer(GOOD)], [critic_answer(5)])
    assert result.outcome == "approved" and len(calls) == 2
    with Runner(s) as runner:
        assert prune(s, keep_days=1, store=runner.store).calls_deleted == 0  # too recent
        old = (datetime.now(UTC) - timedelta(days=3)).isoformat(timespec="seconds")
        runner.runlog.upsert(result.thread_id, ended_at=old)
        report = prune(s, keep_days=1, store=runner.store)
        assert report.calls_deleted == 2 and runner.runlog.calls(result.thread_id) == []


@pytest.mark.settings(**CRITIC_GATE)
def test_a_thread_begun_before_calls_were_kept_keeps_its_counts(project):
    from batch.review import threads as review

    ph = "[FIGURE NEEDED: Q3 revenue]"
    s = make_settings(project)
    write_brief(project, "q3.md", "Memo on Q3.", id="q3")
    models = {
        "writer": ScriptedModel(
            [writer_answer(f"Revenue was {ph}.", needs=[(ph, "Revenue?")])] * 2
        ),
        "critic": ScriptedModel([critic_answer(5)] * 2),
    }
    with Runner(s, models=models) as runner:
        [r] = runner.run(project / "briefs").results
        assert runner.runlog.by_thread(r.thread_id)["model_calls"] == 2
        runner.runlog.forget_calls([r.thread_id])  # as a thread from before the journal
        review.answer(runner, r.thread_id, "revise", {}, text="Say it shorter.", by="ana")
        record = runner.runlog.by_thread(r.thread_id)
        assert len(runner.runlog.calls(r.thread_id)) == 2  # only the new ones were kept
    assert record["model_calls"] == 4  # the state's count, not the journal's 2
