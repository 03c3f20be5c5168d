"""The runs page, a thread's story page and the links scoped to one thread
(batch.review.web, pages, links), over a real Runner and checkpointer."""

from __future__ import annotations

import csv
import io
import re
import time

import pytest
from starlette.testclient import TestClient

from batch.errors import ModelUnavailable
from batch.nightly.job import run_job
from batch.review import links, web
from batch.review import threads as review
from batch.run.runner import Runner
from batch.store.backends import open_runlog

from conftest import (
    WHOLE_REWRITES,
    ScriptedModel,
    critic_answer,
    make_settings,
    write_brief,
    writer_answer,
)

PH = "[FIGURE NEEDED: Q3 revenue]"


def night(project):
    """One batch of three briefs: one approved after a rewrite, one waiting for a person,
    one set aside after its rounds ran out."""
    s = make_settings(
        project,
        **{"models.critic_mode": "advice", "loop.max_rounds": 2, "loop.review": "when_needed"},
    )
    write_brief(
        project,
        "a-dock.md",
        "Memo: the dock closes at 14:00 on Thursday.",
        id="a-dock",
        title="Dock <closed>",
    )
    write_brief(
        project, "b-q3.md", "Memo on Q3: revenue not known yet; we opened Berlin.", id="b-q3"
    )
    write_brief(project, "c-lamp.md", "Describe the lamp: 5 brightness levels.", id="c-lamp")
    writer = ScriptedModel(
        [
            writer_answer("The dock closes at 16:00 on Thursday."),  # a figure of its own
            writer_answer("The dock closes at 14:00 on Thursday."),
            writer_answer(f"Q3 revenue was {PH}. We opened Berlin.", needs=[(PH, "How much?")]),
            writer_answer("The lamp has 9 brightness levels."),
            writer_answer("The lamp has 8 brightness levels."),
        ]
    )
    models = {"writer": writer, "critic": ScriptedModel([critic_answer(5)] * 3)}
    summary = run_job(s, project / "briefs", models=models)
    outcomes = {r.brief_id: r.outcome for r in summary.results}
    assert outcomes == {"a-dock": "approved", "b-q3": "awaiting_human", "c-lamp": "max_rounds"}, (
        outcomes
    )
    return s, {r.brief_id: r.thread_id for r in summary.results}, models


@pytest.mark.settings(**WHOLE_REWRITES)
def test_the_runs_page_shows_the_batch_with_counts_charts_and_links(project):
    s, threads, models = night(project)
    with TestClient(web.create_app(s, models=models, strict=True)) as client:
        page = client.get("/runs")
        one = client.get("/runs/1")
        lamps = client.get("/runs/1?outcome=max_rounds")
        by_id = client.get("/runs?brief=q3")
        nothing = client.get("/runs/99")
    assert page.status_code == 200 and 'id="batch-1"' in page.text
    for tid in threads.values():
        assert f'href="/thread/{tid}"' in page.text
    assert page.text.count('class="chart"') == 3  # a score chart per run
    assert "approved <strong>1</strong>" in page.text
    assert "max rounds <strong>1</strong>" in page.text
    assert "Dock &lt;closed&gt;" in page.text and "Dock <closed>" not in page.text
    # what is still needed from a person: the placeholder, not its record
    assert f'<td data-label="Needs">{PH}</td>' in page.text and "How much?" not in page.text
    assert one.status_code == 200 and one.text.count('class="run"') == 3
    assert lamps.text.count('class="run"') == 1 and threads["c-lamp"] in lamps.text
    assert by_id.text.count('class="run"') == 1 and threads["b-q3"] in by_id.text
    assert nothing.status_code == 404


def test_the_runs_page_pages_the_batches_and_a_batchs_runs(project):
    s = make_settings(project)
    with open_runlog(s) as log:
        for n in range(23):
            batch_id = log.batch_started(f"source-{n}")
            log.batch_finished(batch_id, "ok", {"approved": 1})
        for n in range(120):
            log.upsert(
                f"t-{n:03d}",
                brief_id=f"brief-{n:03d}",
                status="finished",
                stop_reason="approved",
                batch_id=23,
            )
    with TestClient(web.create_app(s, strict=True)) as client:
        first = client.get("/runs")
        third = client.get("/runs?page=3")
        runner = client.get("/runs/23")
        last = client.get("/runs/23?page=3")
        odd = [client.get(f"/runs?page={n}").status_code for n in ("%C2%B2", "9" * 40, "-1")]
    assert odd == [200, 200, 200]  # a page number that is none is the first page
    assert 'id="batch-23"' in first.text and 'id="batch-14"' in first.text
    assert 'id="batch-13"' not in first.text and "page 1 of 3" in first.text
    assert 'id="batch-1"' in third.text and 'id="batch-4"' not in third.text
    assert first.text.count('class="run"') == 20  # under batch 23, the first 20
    assert "all 120 runs of batch 23" in first.text
    assert runner.text.count('class="run"') == 50 and "page 1 of 3" in runner.text
    assert last.text.count('class="run"') == 20 and "brief-119" in last.text


@pytest.mark.settings(**WHOLE_REWRITES)
def test_a_finished_threads_page_tells_each_round_with_its_diff(project):
    s, threads, models = night(project)
    with TestClient(web.create_app(s, models=models, strict=True)) as client:
        page = client.get(f"/thread/{threads['a-dock']}")
        waiting = client.get(f"/thread/{threads['b-q3']}")
    assert page.status_code == 200 and 'id="answer"' not in page.text
    assert 'id="round-1"' in page.text and 'id="round-2"' in page.text
    assert "<del>16:00 </del><ins>14:00 </ins>" in page.text
    assert "The number 16" in page.text  # what round 1 was refused for
    assert "wrote a new version from the brief" in page.text
    assert waiting.status_code == 200 and 'id="answer"' in waiting.text
    assert 'id="round-1"' in waiting.text  # the waiting page has its story too


@pytest.mark.settings(**WHOLE_REWRITES)
def test_a_scoped_link_opens_its_thread_only_and_answers_it(project):
    s, threads, models = night(project)
    with open_runlog(s) as log:
        secret = log.secret(links.SECRET_NAME)
    tid, other = threads["b-q3"], threads["a-dock"]
    url = links.thread_url("https://review.example", tid, secret, days=1)
    token = url.split("?link=")[1]
    app = web.create_app(s, models=models, strict=True, token="full-token")
    with TestClient(app, base_url="https://review.example") as client:
        opened = client.get(f"/thread/{tid}?link={token}", follow_redirects=False)
        assert opened.status_code == 303 and opened.headers["location"] == f"/thread/{tid}"
        cookie = opened.headers["set-cookie"]
        assert f"Path=/thread/{tid}" in cookie and "HttpOnly" in cookie
        page = client.get(f"/thread/{tid}")
        assert page.status_code == 200 and 'id="answer"' in page.text
        assert 'id="nav-runs"' not in page.text  # nothing else is offered
        assert client.get("/").status_code == 401
        assert client.get("/runs").status_code == 401
        assert client.get(f"/thread/{other}").status_code == 401
        csrf = re.search(r'name="csrf" value="([^"]+)"', page.text).group(1)
        done = client.post(
            f"/thread/{tid}",
            data={"csrf": csrf, "action": "approve", f"ph:{PH}": "4.2M", "name": "ana"},
            follow_redirects=False,
        )
        assert done.status_code == 303 and done.headers["location"] == f"/thread/{tid}"
        told = client.get(f"/thread/{tid}")
        assert "Approved by human" in told.text and "<strong>approved</strong> by ana" in told.text
    # the same token does not open another thread, and an altered or expired one says so
    with TestClient(app, base_url="https://review.example") as client:
        wrong = client.get(f"/thread/{other}?link={token}")
        altered = client.get(f"/thread/{tid}?link={token[:-2]}xx")
        expired = links.sign(secret, tid, int(time.time()) - 60)
        old = client.get(f"/thread/{tid}?link={expired}")
    assert wrong.status_code == 403 and "another thread" in wrong.text
    with TestClient(app, base_url="https://review.example") as client:
        # forged expiries and signatures are refused as links, never a failure of the page
        for forged in ("%C2%B2.x", "9" * 5000 + ".x", "1.%C3%A9", ".x", "12."):
            page = client.get(f"/thread/{tid}?link={forged}")
            assert page.status_code == 403 and "not a link of this review page" in page.text
        assert client.get("/runs?page=%C2%B2").status_code == 401  # no page token: refused
    assert altered.status_code == 403 and "altered" in altered.text
    assert old.status_code == 403 and "expired" in old.text
    for refused in (wrong, altered, old):
        assert "Traceback" not in refused.text
        assert refused.headers["content-security-policy"]


def test_the_message_links_each_waiting_text_to_its_page(project, monkeypatch):
    sent = []
    monkeypatch.setattr(
        "batch.run.notify.send", lambda settings, report, **kw: sent.append(report) or []
    )
    s = make_settings(
        project,
        **{
            "notify.review_url": "https://review.example/",
            "notify.webhook_url": "https://hooks.example/x",
        },
    )
    write_brief(project, "q3.md", "Memo on Q3: revenue not known yet.", id="q3")
    models = {
        "writer": ScriptedModel(
            [writer_answer(f"Q3 revenue was {PH}.", needs=[(PH, "How much?")])]
        ),
        "critic": ScriptedModel([critic_answer(5)]),
    }
    [r] = run_job(s, project / "briefs", models=models).results
    [report] = sent
    [waiting] = report.waiting
    assert waiting.link.startswith(f"https://review.example/thread/{r.thread_id}?link=")
    with open_runlog(s) as log:
        secret = log.secret(links.SECRET_NAME)
    assert links.problem(secret, r.thread_id, waiting.link.split("?link=")[1]) is None
    from batch.run import notify

    body = notify.message(report, "https://review.example/")[1]
    assert f"open: {waiting.link}" in body


def test_a_link_on_loopback_needs_no_token_and_a_sheet_gets_none(project):
    assert (
        links.thread_url("http://127.0.0.1:8765", "t-1", b"k" * 32, 1)
        == "http://127.0.0.1:8765/thread/t-1"
    )
    s = make_settings(
        project, **{"notify.review_url": "https://docs.google.com/spreadsheets/d/abc"}
    )
    with Runner(s) as runner:
        assert links.linker(s, runner.runlog) is None
    off = make_settings(
        project, **{"notify.review_url": "https://review.example", "notify.thread_links": False}
    )
    with Runner(off) as runner:
        assert links.linker(off, runner.runlog) is None


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.cluster)])
def store(request, project):
    """Settings for a fresh run log on each backend."""
    if request.param == "postgres":
        return make_settings(
            project, **{"store.backend": "postgres", "store.dsn": request.getfixturevalue("pg_dsn")}
        )
    return make_settings(project)


def test_the_projects_secret_is_made_once_and_shared(store):
    with open_runlog(store) as log:
        made = log.secret(links.SECRET_NAME)
    with open_runlog(store) as again:
        assert again.secret(links.SECRET_NAME) == made and len(made) == 32
        assert again.secret("another") != made


def test_a_batchs_runs_by_its_column_its_queue_and_for_old_runs_its_time(store):
    import sqlalchemy as sa

    from batch.store.schema import batches, runs, tasks

    s = store
    with open_runlog(s) as log:
        first, second, third = (log.batch_started(name) for name in ("old", "local", "cluster"))
        log.upsert("old-run", brief_id="old", status="finished", stop_reason="approved")
        log.upsert(
            "local-run",
            brief_id="local",
            status="finished",
            stop_reason="approved",
            batch_id=second,
        )
        log.upsert("queued-run", brief_id="queued", status="failed", stop_reason="error")
        at = "2026-01-0{}T0{}:00:00+00:00".format
        with log.engine.begin() as conn:
            for n, batch_id in enumerate((first, second, third), start=1):
                conn.execute(
                    sa.update(batches)
                    .where(batches.c.id == batch_id)
                    .values(started_at=at(n, 1), ended_at=at(n, 2), status="ok")
                )
            # a run from before batches were kept with their runs: only its time says
            conn.execute(
                sa.update(runs)
                .where(runs.c.thread_id == "old-run")
                .values(updated_at="2026-01-01T01:30:00+00:00")
            )
            conn.execute(
                sa.update(runs)
                .where(runs.c.thread_id != "old-run")
                .values(updated_at="2026-01-02T01:30:00+00:00")
            )
            conn.execute(
                sa.insert(tasks).values(
                    thread_id="queued-run",
                    batch_id=third,
                    kind="brief",
                    state="failed",
                    enqueued_at=at(3, 1),
                    updated_at=at(3, 1),
                )
            )

        def ids(batch_id, **kw):
            return [r["thread_id"] for r in log.runs_of_batch(batch_id, **kw)[0]]

        assert ids(first) == ["old-run"]  # by its time
        # by its column; and a queued run is never placed by its time, only by the queue
        assert ids(second) == ["local-run"]
        assert ids(third) == ["queued-run"]  # a cluster's: through the queue ledger
        assert ids(third, outcome="failed") == ["queued-run"]
        assert ids(second, outcome="failed") == []
        assert ids(second, brief="oca") == ["local-run"] and ids(second, brief="%") == []
        assert log.runs_of_batch(99) == ([], 0)
        assert log.resolve_batch("last")["id"] == third and log.resolve_batch("x") is None


def test_a_diff_is_escaped_like_everything_else():
    from batch.review.history import diff
    from batch.review.render import changes_html

    html = str(changes_html(diff("Hello <b>there</b>.", "Hello <script>alert(1)</script>.")))
    assert "<script>" not in html and "&lt;script&gt;" in html
    assert "<del>&lt;b&gt;there&lt;/b&gt;.</del>" in html and html.count("<ins>") == 1


@pytest.mark.parametrize(
    "url", ["http://127.0.0.1:8765", "http://localhost:8765/", "http://[::1]:8765"]
)
def test_a_link_to_a_page_served_with_a_token_is_signed_on_loopback_too(project, url):
    s = make_settings(project, **{"notify.review_url": url})
    with Runner(s) as runner:
        secret = runner.runlog.secret(links.SECRET_NAME)
        plain = links.linker(s, runner.runlog, environ={})("t-1")
        signed = links.linker(s, runner.runlog, environ={"BRIEFLOOP_REVIEW_TOKEN": "x" * 20})("t-1")
    assert "?link=" not in plain
    assert links.problem(secret, "t-1", signed.split("?link=")[1]) is None


@pytest.mark.parametrize("which", ["99999999999999999999", "2147483648", "١", "１"])
@pytest.mark.settings(**WHOLE_REWRITES)
def test_a_batch_id_out_of_range_or_not_ascii_is_no_such_batch_page_and_cli(project, which):
    from click.testing import CliRunner

    from batch.cli import cli

    s, _, models = night(project)  # batch 1 exists: "١" must not be read as it
    with TestClient(web.create_app(s, models=models, strict=True)) as client:
        page = client.get(f"/runs/{which}")
    assert page.status_code == 404, page.status_code
    cfg = project / "briefloop.toml"
    cfg.write_text('[paths]\nroot = "."\n[log]\nformat = "csv"\npath = "output/runs.csv"\n')
    result = CliRunner().invoke(cli, ["--config", str(cfg), "runs", "--batch", which])
    assert result.exit_code == 2 and "no batch" in result.output, result.output
    assert len(result.output.strip().splitlines()) == 1


def test_the_messages_general_link_opens_the_waiting_page_and_its_threads_only(
    project, monkeypatch
):
    sent = []
    monkeypatch.setattr(
        "batch.run.notify.send", lambda settings, report, **kw: sent.append(report) or []
    )
    s = make_settings(
        project,
        **{
            "notify.review_url": "https://review.example/",
            "notify.webhook_url": "https://hooks.example/x",
        },
    )
    write_brief(project, "q3.md", "Memo on Q3: revenue not known yet.", id="q3")
    models = {
        "writer": ScriptedModel(
            [writer_answer(f"Q3 revenue was {PH}.", needs=[(PH, "How much?")])]
        ),
        "critic": ScriptedModel([critic_answer(5)]),
    }
    [r] = run_job(s, project / "briefs", models=models).results
    [report] = sent
    from batch.run import notify

    body = notify.message(report, "https://review.example/")[1]
    general = report.review_link
    assert general.startswith("https://review.example/?link=")
    assert f"Review: {general}" in body
    token = general.split("?link=")[1]
    app = web.create_app(s, models=models, strict=True, token="full-token")
    with TestClient(app, base_url="https://review.example") as client:
        assert client.get("/").status_code == 401  # no token, no link: refused
        opened = client.get(f"/?link={token}", follow_redirects=False)
        assert opened.status_code == 303 and opened.headers["location"] == "/"
        assert "Path=/;" in opened.headers["set-cookie"]
        listed = client.get("/")
        assert listed.status_code == 200 and "q3" in listed.text
        assert 'id="nav-runs"' not in listed.text
        [row_link] = re.findall(r'href="(/thread/[^"]+\?link=[^"]+)"', listed.text)[:1]
        assert row_link.startswith(f"/thread/{r.thread_id}?link=")
        # the list's token opens neither the runs nor a thread by itself
        assert client.get("/runs").status_code == 401
        assert client.get(f"/thread/{r.thread_id}").status_code == 401
        assert client.get(f"/thread/{r.thread_id}?link={token}").status_code == 403
        # a row's link does, expiring with the list's token
        thread = client.get(row_link.replace("&amp;", "&"))
        assert thread.status_code == 200 and 'id="answer"' in thread.text
    with open_runlog(s) as log:
        secret = log.secret(links.SECRET_NAME)
    row_token = row_link.split("?link=")[1]
    assert row_token.split(".")[0] == token.split(".")[0]
    assert links.problem(secret, r.thread_id, row_token) is None
    expired = links.sign(secret, links.WAITING_SCOPE, int(time.time()) - 60)
    with TestClient(app, base_url="https://review.example") as client:
        old = client.get(f"/?link={expired}")
    assert old.status_code == 403 and "expired" in old.text


def test_the_general_link_on_loopback_without_a_token_is_the_plain_page(project):
    s = make_settings(project, **{"notify.review_url": "http://127.0.0.1:8765"})
    with Runner(s) as runner:
        assert links.waiting_link(s, runner.runlog, environ={}) == "http://127.0.0.1:8765/"
        signed = links.waiting_link(s, runner.runlog, environ={"BRIEFLOOP_REVIEW_TOKEN": "t" * 20})
        assert signed.startswith("http://127.0.0.1:8765/?link=")
        sheet = make_settings(
            project, **{"notify.review_url": "https://docs.google.com/spreadsheets/d/x"}
        )
        assert links.waiting_link(sheet, runner.runlog) == ""


@pytest.mark.settings(**WHOLE_REWRITES)
def test_every_count_of_a_batch_has_its_rows(project):
    """Batch 2 runs the same folder: one brief already done, one still waiting, one set
    aside before (done too), one new that fails. Each count lists its own rows."""
    s, threads, models = night(project)
    write_brief(project, "d-new.md", "Memo: the lift is out of order.", id="d-new")
    models["writer"].queue(ModelUnavailable("down"))
    with Runner(s, models=models) as runner:
        from batch.nightly.job import _recorded

        summary = _recorded(runner, project / "briefs", False, None, None)
    assert sorted(r.outcome for r in summary.results) == ["error", "skipped", "skipped", "waiting"]
    with TestClient(web.create_app(s, models=models, strict=True)) as client:
        page = client.get("/runs/2").text
        counts = dict(re.findall(r"<span>([^<]+) <strong>(\d+)</strong></span>", page))
        assert counts == {"still awaiting human": "1", "already done": "2", "error": "1"}
        assert page.count('class="run"') == 4
        for outcome, n in (("waiting", 1), ("skipped", 2), ("error", 1)):
            listed = client.get(f"/runs/2?outcome={outcome}").text
            assert listed.count('class="run"') == n, outcome
            assert "No run matches" not in listed
        # how each stands now, where that says more than the count
        assert "now <span" not in page  # waiting still waits, done is done
        csv_text = client.get("/runs/2.csv").text
        done = client.get("/runs/2.csv?outcome=skipped").text
    # a BOM first, so that Excel reads it as UTF-8
    assert csv_text.startswith("\ufeffbatch_id,") and done.startswith("\ufeff")
    rows = list(csv.reader(io.StringIO(csv_text.removeprefix("\ufeff"))))
    assert rows[0][:4] == ["batch_id", "counted_as", "brief_id", "title"]
    assert sorted(r[1] for r in rows[1:]) == ["error", "skipped", "skipped", "waiting"]
    assert len(list(csv.reader(io.StringIO(done)))) == 3  # the header and two rows


@pytest.mark.settings(**WHOLE_REWRITES)
def test_every_list_says_why_and_a_batch_with_a_failure_is_not_green(project):
    """Batch 1 waits on a placeholder; batch 2 adds a brief that fails. The runs page,
    the CLI table and the batch's lines say why each stands where it does; batch 2 is
    "finished, 1 failed", not "finished"; the error filter lists batch 2 only."""
    s, threads, models = night(project)
    write_brief(project, "d-new.md", "Memo: the lift is out of order.", id="d-new")
    with Runner(s, models=models) as runner:
        from batch.nightly.job import _recorded

        _recorded(runner, project / "briefs", False, None, None)
    with TestClient(web.create_app(s, models=models, strict=True)) as client:
        page = client.get("/runs/2").text
        # the failed run's error (the model call it made past its script), in its row
        assert re.search(r'tone-bad">error</span><div class="note why">[^<]*Error: ', page)
        assert re.search(r'class="note why">to fill: \[', page)  # what the waiting one needs
        assert 'tone-bad">finished, 1 failed<' in page
        errors = client.get("/runs?outcome=error").text
        assert 'id="batch-2"' in errors and 'id="batch-1"' not in errors
        assert "No run matches" not in errors
        nothing = client.get("/runs?outcome=rejected_by_human").text
        assert "No run on this page matches the filter" in nothing
    from rich.console import Console

    from batch.cli.running import runs_table

    with open_runlog(s) as log:
        records = log.all()
    console = Console(width=120, record=True, file=io.StringIO())
    console.print(runs_table(records, 120))
    table = console.export_text()
    assert "why" in table.splitlines()[1] and "Error: " in table


@pytest.mark.settings(**WHOLE_REWRITES)
def test_a_run_answered_after_its_batch_shows_how_it_stands_now(project):
    s, threads, models = night(project)
    with Runner(s, models=models) as runner:
        review.answer(runner, threads["b-q3"], "approve", {PH: "4.2M"}, by="ana")
    with TestClient(web.create_app(s, models=models, strict=True)) as client:
        page = client.get("/runs/1").text
    row = page[page.index(f'href="/thread/{threads["b-q3"]}"') :]
    row = row[: row.index("</tr>")]
    assert 'class="tone-wait">awaiting human<' in row
    assert 'now <span class="tone-good">approved by human</span>' in row


@pytest.mark.settings(**WHOLE_REWRITES)
def test_runs_show_local_times_durations_and_coloured_outcomes(project, monkeypatch):
    monkeypatch.setenv("TZ", "America/New_York")
    time.tzset()
    try:
        s, threads, models = night(project)
        with TestClient(web.create_app(s, models=models, strict=True)) as client:
            page = client.get("/runs").text
            today = time.strftime("%Y-%m-%d")
            on_the_day = client.get(f"/runs?day={today}").text
            other_day = client.get("/runs?day=2001-01-01").text
            bad_day = client.get("/runs?day=yesterday").text
    finally:
        monkeypatch.delenv("TZ")
        time.tzset()
    assert re.search(r"\d{4}-\d\d-\d\d \d\d:\d\d E[SD]T", page)  # local, not raw UTC ISO
    assert not re.search(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d", page)
    assert re.search(r'data-label="Took">\d+ s<', page)
    assert 'class="tone-good">approved<' in page and 'class="tone-unfinished">max rounds<' in page
    assert 'class="tone-good">finished</span>' in page  # the batch ran to its end
    assert 'id="batch-1"' in on_the_day and 'id="batch-1"' not in other_day
    assert 'id="batch-1"' in bad_day  # not a date: no filter, not an error


@pytest.mark.settings(**WHOLE_REWRITES)
def test_search_finds_a_brief_by_title_too(project):
    s, threads, models = night(project)
    with TestClient(web.create_app(s, models=models, strict=True)) as client:
        by_title = client.get("/runs?brief=dock %3Cclos").text
        page = client.get("/runs/1?brief=DOCK").text
    assert by_title.count('class="run"') == 1 and threads["a-dock"] in by_title
    assert page.count('class="run"') == 1


@pytest.mark.settings(**WHOLE_REWRITES)
def test_every_round_is_rendered_the_same_way_with_its_changes_folded(project):
    s = make_settings(project, **{"loop.max_rounds": 2})
    write_brief(project, "a.md", "Memo: the dock closes at 14:00 on Thursday.", id="a")
    models = {
        "writer": ScriptedModel(
            [
                writer_answer("The dock closes at **16:00** on Thursday."),
                writer_answer("The dock closes at **14:00** on Thursday."),
            ]
        ),
        "critic": ScriptedModel([critic_answer(5)] * 2),
    }
    [r] = run_job(s, project / "briefs", models=models).results
    with TestClient(web.create_app(s, models=models, strict=True)) as client:
        page = client.get(f"/thread/{r.thread_id}").text
    blocks = re.split(r'<div class="round" id="round-', page)[1:]
    assert len(blocks) == 2
    for block in blocks:
        draft = block.split('<div class="story-draft">')[1].split("</div>")[0]
        assert "<strong>" in draft and "**" not in draft  # Markdown rendered, not raw
    assert 'class="changes"' not in blocks[0] and 'class="changes"' in blocks[1]


def scoped_client(s, models, tid):
    with open_runlog(s) as log:
        secret = log.secret(links.SECRET_NAME)
    token = links.thread_url("https://review.example", tid, secret, days=7).split("?link=")[1]
    app = web.create_app(s, models=models, strict=True, token="full-token")
    client = TestClient(app, base_url="https://review.example")
    assert client.get(f"/thread/{tid}?link={token}", follow_redirects=False).status_code == 303
    return client


@pytest.mark.parametrize("brief,action", [("a-dock", "reopen"), ("c-lamp", "retry")])
@pytest.mark.settings(**WHOLE_REWRITES)
def test_a_link_answers_its_text_and_never_starts_a_thread_again(project, brief, action):
    s, threads, models = night(project)
    tid = threads[brief]
    with scoped_client(s, models, tid) as client:
        page = client.get(f"/thread/{tid}")
        assert page.status_code == 200 and 'id="again"' not in page.text
        csrf = client.cookies.get("briefloop_csrf")  # the form's field is its cookie
        sent = client.post(
            f"/thread/{tid}",
            data={"csrf": csrf, "action": action, "reason": "the time is wrong"},
            follow_redirects=False,
        )
    assert sent.status_code == 403 and "open the review page with its token" in sent.text
    with Runner(s, models=models) as runner:
        assert runner.runlog.retries_of(tid) == []
        assert runner.runlog.by_thread(tid)["stop_reason"] in ("approved", "max_rounds")


@pytest.mark.settings(**WHOLE_REWRITES)
def test_a_page_opened_before_the_thread_moved_on_cannot_answer_it(project):
    s, threads, models = night(project)
    tid = threads["b-q3"]
    app = web.create_app(s, models=models, strict=True)
    with TestClient(app) as client:
        old_page = client.get(f"/thread/{tid}")
        seen = re.search(r'name="seen" value="([^"]*)"', old_page.text).group(1)
        csrf = re.search(r'name="csrf" value="([^"]+)"', old_page.text).group(1)
        assert seen
        # meanwhile a person approves it from the terminal, and another takes it back:
        # it waits again, and the old page shows a text that is no longer the one waiting
        from batch.review import attempts

        with Runner(s, models=models) as runner:
            review.answer(runner, tid, "approve", {PH: "3.9M"})
            again = attempts.reopen(runner, tid, "the figure is last year's").result
        assert again.outcome == "awaiting_human", again
        stale = client.post(
            f"/thread/{tid}",
            data={"csrf": csrf, "seen": seen, "action": "approve", f"ph:{PH}": "4.2M"},
            follow_redirects=False,
        )
        assert stale.status_code == 400 and "has changed since this page was opened" in stale.text
        fresh = client.get(f"/thread/{tid}")
        now = re.search(r'name="seen" value="([^"]*)"', fresh.text).group(1)
        assert now != seen
        done = client.post(
            f"/thread/{tid}",
            data={"csrf": csrf, "seen": now, "action": "approve", f"ph:{PH}": "4.2M"},
            follow_redirects=False,
        )
        assert done.status_code == 303
    with Runner(s, models=models) as runner:
        assert runner.runlog.by_thread(tid)["stop_reason"] == "approved_by_human"
