"""A text the machine could not finish waits for a person by default ("needs work"), and
every way of answering it works: approve with a reason, send back for N more rounds,
reject; from the CLI, the review sheet and the page; and the morning message names it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from click.testing import CliRunner
from openpyxl import load_workbook

from batch import config
from batch.cli import cli
from batch.errors import BriefloopError
from batch.nightly.job import notify_report, run_job
from batch.review import threads as review
from batch.review.sheet import COLUMNS
from batch.run import notify
from batch.run.runner import Runner

from conftest import (
    CRITIC_GATE,
    REPO,
    WHOLE_REWRITES,
    ScriptedModel,
    critic_answer,
    make_settings,
    write_brief,
    writer_answer,
)

GOOD = "The office is closed on Friday from 15:00."
MUST = "Name the team that closes the office."


def drafts(n: int) -> list[dict]:
    return [writer_answer(f"{GOOD}\n\nThis is revision {i} of the memo.") for i in range(n)]


def stuck_models(rounds: int) -> dict[str, ScriptedModel]:
    """A writer and a critic that never agree: the loop ends max_rounds after `rounds`."""
    return {
        "writer": ScriptedModel(drafts(rounds)),
        "critic": ScriptedModel([critic_answer(3, must_fix=[MUST])] * rounds),
    }


def unfinished_settings(project: Path, **over):
    # the shipped default, not the tests' usual when_needed
    return make_settings(project, **{"loop.review": "unfinished", "loop.max_rounds": 2, **over})


def night(project: Path, settings, models) -> str:
    write_brief(
        project,
        "closure.md",
        "Office closed Friday from 15:00.",
        id="closure",
        title="Office closure",
    )
    summary = run_job(settings, project / "briefs", models=models, strict=True)
    [result] = summary.results
    assert result.outcome == "awaiting_human", result
    return result.thread_id


def test_the_shipped_default_holds_unfinished_texts_for_a_person(tmp_path):
    assert config.Loop().review == "unfinished"
    shipped = config.load(REPO / "config" / "briefloop.toml", environ={})
    assert shipped.loop.review == "unfinished"


@pytest.mark.parametrize("ending", ["max_rounds", "no_progress"])
@pytest.mark.settings(**CRITIC_GATE)
def test_an_unfinished_text_waits_as_needs_work_with_its_findings(project, ending):
    if ending == "max_rounds":
        s, models = unfinished_settings(project), stuck_models(2)
    else:  # the same draft twice, the second time asked to start afresh
        s = unfinished_settings(project, **{"loop.max_rounds": 6})
        models = {
            "writer": ScriptedModel([writer_answer(GOOD)] * 3),
            "critic": ScriptedModel([critic_answer(3, must_fix=[MUST])] * 3),
        }
    tid = night(project, s, models)
    with Runner(s) as runner:
        [item] = review.list_waiting(runner)
        record = runner.runlog.by_thread(tid)
    assert item.stopped == ending and item.waits_for() == f"needs work ({ending.replace('_', ' ')})"
    assert any(MUST in m for m in item.must_fix)
    assert record["unfinished"] == ending and record["status"] == "awaiting_human"
    # nothing is written while it waits: the page holds it
    assert not list((project / "output").rglob("*.md"))
    for width in (80, 120):
        listed = CliRunner().invoke(
            cli,
            ["--config", str(project / "briefloop.toml"), "review", "list"],
            env={"COLUMNS": str(width)},
        )
        lines = listed.output.splitlines()
        assert all(len(line) <= width for line in lines), listed.output
        assert tid in listed.output.split()[0:40] or f" {tid} " in listed.output
        assert f"needs work ({ending.replace('_', ' ')})" in listed.output


@pytest.mark.settings(**CRITIC_GATE)
def test_approving_needs_a_reason_and_the_reason_is_recorded(project):
    s = unfinished_settings(project)
    tid = night(project, s, stuck_models(2))
    with Runner(s) as runner:
        with pytest.raises(BriefloopError, match="override"):
            review.answer(runner, tid, "approve", {}, by="ana")
        result = review.answer(
            runner, tid, "approve", {}, by="ana", override="the team is named in the footer"
        )
        record = runner.runlog.by_thread(tid)
    assert result.outcome == "approved_by_human"
    assert record["unfinished"] == "max_rounds" and record["decided_by"] == "ana"
    assert "the team is named in the footer" in record["decision_note"]
    assert Path(record["output_path"]).parent == project / "output"


@pytest.mark.parametrize("asked, writer_rounds", [(1, 1), (3, 3), (None, 2)])
@pytest.mark.settings(**WHOLE_REWRITES)
def test_send_back_gives_exactly_the_rounds_asked(project, asked, writer_rounds):
    s = unfinished_settings(project)
    models = stuck_models(2)
    tid = night(project, s, models)
    models["writer"].queue(*drafts(writer_rounds))
    models["critic"].queue(*[critic_answer(3, must_fix=[MUST])] * writer_rounds)
    with Runner(s, models=models, strict=True) as runner:
        result = review.answer(
            runner, tid, "revise", {}, text="Name the facilities team.", by="ana", rounds=asked
        )
        values = runner.snapshot(tid).values
    # asked rounds, or loop.max_rounds (2) when none is named; then it waits again
    assert result.outcome == "awaiting_human"
    assert values["round"] == 2 + writer_rounds and models["writer"].answers == []
    with Runner(s) as runner:
        assert review.waiting(runner, tid).revision_note == ""  # every round given ran


@pytest.mark.settings(**CRITIC_GATE)
def test_a_second_send_back_gives_the_configured_rounds_not_more(project):
    s = unfinished_settings(project)
    models = stuck_models(2)
    tid = night(project, s, models)
    for _ in range(2):
        models["writer"].queue(*drafts(2))
        models["critic"].queue(*[critic_answer(3, must_fix=[MUST])] * 2)
        with Runner(s, models=models, strict=True) as runner:
            review.answer(runner, tid, "revise", {}, text="Name the team.", by="ana")
    with Runner(s) as runner:
        assert runner.snapshot(tid).values["round"] == 6  # 2 + 2 + 2, not 2 + 2 + 4


@pytest.mark.parametrize("rounds", [0, 11, -1, "two"])
@pytest.mark.settings(**CRITIC_GATE)
def test_send_back_refuses_rounds_out_of_range_before_anything_runs(project, rounds):
    s = unfinished_settings(project)
    tid = night(project, s, stuck_models(2))
    with Runner(s) as runner:
        with pytest.raises(BriefloopError, match="more rounds must be"):
            review.answer(runner, tid, "revise", {}, text="Again.", rounds=rounds)
        with pytest.raises(BriefloopError, match="go with revise"):
            review.answer(runner, tid, "reject", {}, text="No.", rounds=2)
        assert review.waiting(runner, tid) is not None


@pytest.mark.settings(**CRITIC_GATE)
def test_cli_rounds_and_reject(project):
    s = unfinished_settings(project)
    tid = night(project, s, stuck_models(2))
    cfg = ["--config", str(project / "briefloop.toml")]
    refused = CliRunner().invoke(
        cli, [*cfg, "review", "answer", tid, "--revise", "x", "--rounds", "12"]
    )
    assert refused.exit_code == 2 and "more rounds must be 1 to 10" in refused.output
    assert "Traceback" not in refused.output
    done = CliRunner().invoke(cli, [*cfg, "review", "answer", tid, "--reject", "not needed"])
    assert done.exit_code == 0, done.output
    with Runner(s) as runner:
        assert runner.runlog.by_thread(tid)["stop_reason"] == "rejected_by_human"


@pytest.mark.settings(**CRITIC_GATE)
def test_the_message_names_a_needs_work_text_even_when_it_is_all_that_happened(project, webhook):
    url, received = webhook
    s = unfinished_settings(
        project, **{"notify.webhook_url": url, "notify.review_url": "http://127.0.0.1:8765"}
    )
    night(project, s, stuck_models(2))
    [sent] = [body["text"] for body in received]
    assert "1 text waits for you" in sent
    assert "- closure (Office closure)" in sent
    assert re.search(
        r"needs work: the machine could not finish it \(max rounds\); the "
        r"checks still find [1-9]\d* problems?\n",
        sent,
    ), sent
    assert "open: http://127.0.0.1:8765/thread/" in sent


@pytest.mark.settings(**CRITIC_GATE)
def test_when_needed_sets_the_text_aside_and_says_so_in_the_message_and_the_run(project, webhook):
    url, received = webhook
    s = make_settings(
        project, **{"loop.review": "when_needed", "loop.max_rounds": 2, "notify.webhook_url": url}
    )
    write_brief(project, "closure.md", "Office closed Friday from 15:00.", id="closure")
    summary = run_job(s, project / "briefs", models=stuck_models(2), strict=True)
    assert summary.results[0].outcome == "max_rounds"
    [sent] = [body["text"] for body in received]
    assert "1 unfinished" in sent and 'loop.review = "when_needed" does not hold' in sent
    assert "needs work: the machine could not finish it (max rounds)" in sent
    report = notify_report(s, summary, project / "briefs")
    assert notify.should_notify(report) and not report.waiting


@pytest.mark.settings(**CRITIC_GATE)
def test_the_review_sheet_takes_revise_n(project):
    s = unfinished_settings(project, **{"log.format": "xlsx", "log.path": "output/runs.xlsx"})
    models = stuck_models(2)
    tid = night(project, s, models)
    book = project / "output" / "runs.xlsx"
    wb = load_workbook(book)
    ws = wb["Review"]
    [row] = list(ws.iter_rows(min_row=2))
    question = row[COLUMNS.index("question")].value
    assert re.match(
        r"needs work \(max rounds; the checks still find [1-9]\d* findings?\): "
        r"approve: reason, reject: reason or revise N: notes$",
        question,
    )
    row[COLUMNS.index("decision")].value = "revise 1: name the facilities team"
    wb.save(book)
    models["writer"].queue(*drafts(1))
    models["critic"].queue(critic_answer(3, must_fix=[MUST]))
    run_job(s, project / "briefs", models=models, strict=True)
    with Runner(s) as runner:
        assert runner.snapshot(tid).values["round"] == 3  # one more round, as asked
        assert review.waiting(runner, tid) is not None


@pytest.mark.settings(**CRITIC_GATE)
def test_the_page_lists_it_as_needs_work_and_sends_it_back_for_the_rounds_asked(project):
    from starlette.testclient import TestClient

    from batch.review import web

    s = unfinished_settings(project)
    models = stuck_models(2)
    tid = night(project, s, models)
    client = TestClient(web.create_app(s, models=models, strict=True))
    listed = client.get("/").text
    assert 'class="needs-work">needs work (max rounds)' in listed
    page = client.get(f"/thread/{tid}").text
    assert "Needs work." in page and 'name="rounds"' in page and "empty: 2" in page
    csrf = re.search(r'name="csrf" value="([^"]+)"', page).group(1)
    refused = client.post(
        f"/thread/{tid}",
        data={"csrf": csrf, "action": "revise", "notes": "Name the team.", "rounds": "40"},
    )
    assert refused.status_code == 400 and "more rounds must be 1 to 10" in refused.text
    models["writer"].queue(*drafts(1))
    models["critic"].queue(critic_answer(3, must_fix=[MUST]))
    sent = client.post(
        f"/thread/{tid}",
        data={"csrf": csrf, "action": "revise", "notes": "Name the team.", "rounds": "1"},
        follow_redirects=False,  # the page a redirect opens would take the job's outcome
    )
    assert sent.status_code == 303
    assert client.app.state.jobs.wait(tid, 30).done
    with Runner(s) as runner:
        assert runner.snapshot(tid).values["round"] == 3


@pytest.mark.settings(**CRITIC_GATE)
def test_the_run_says_in_one_line_that_when_needed_sets_texts_aside(project, monkeypatch):
    from batch.cli import running
    from batch.cli.terminal import SafeConsole

    s = make_settings(project, **{"loop.review": "when_needed", "loop.max_rounds": 2})
    write_brief(project, "closure.md", "Office closed Friday from 15:00.", id="closure")
    summary = run_job(s, project / "briefs", models=stuck_models(2), strict=True)
    console = SafeConsole(record=True, width=200)
    monkeypatch.setattr(running, "out", console)
    running.print_summary(summary)
    lines = [line for line in console.export_text().splitlines() if "set aside" in line]
    assert lines == [
        "1 unfinished text(s) set aside in needs-work/: loop.review = "
        '"when_needed" does not hold them for a person ("unfinished" would)'
    ]
