"""The state store on both backends (batch.store: backends, schema, runlog, ledger,
retention): SQLite files, and a real PostgreSQL server on loopback.

Migrations produce `batch.store.schema.metadata` on a fresh database and on a legacy SQLite
file made by the old raw-SQL migrations; the run log, the queue ledger and the named
locks behave the same on either engine; the PostgreSQL checkpointer survives a second
opener and a server restart; retention keeps each finished thread's final state.
"""

from __future__ import annotations

import json
import operator
import os
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Annotated, Any, TypedDict

import pytest
import sqlalchemy as sa
from langgraph.graph import END, START, StateGraph

from batch.config import Settings
from batch.errors import LockBusy, StoreError
from batch.store import schema
from batch.store.backends import PostgresStore, open_runlog, open_store, sqlalchemy_url
from batch.store.ledger import Ledger
from batch.store.retention import prune
from batch.store.runlog import RunLog, is_unreachable, store_failure
from batch.store.schema import MIGRATIONS, batches, metadata, migrate, sink_sync, tasks

from conftest import REPO, make_settings
from servers import free_port

cluster = pytest.mark.cluster
VERSION = len(MIGRATIONS)


def pg_settings(project: Path, dsn: str) -> Settings:
    return make_settings(project, **{"store.backend": "postgres", "store.dsn": dsn})


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=cluster)])
def store_settings(request: pytest.FixtureRequest, project: Path) -> Settings:
    """Settings for a fresh store on each backend."""
    if request.param == "postgres":
        return pg_settings(project, request.getfixturevalue("pg_dsn"))
    return make_settings(project)


@pytest.fixture
def runlog(store_settings: Settings) -> Iterator[RunLog]:
    with open_runlog(store_settings) as log:
        yield log


def db_version(engine: sa.Engine) -> int:
    with engine.connect() as conn:
        if engine.dialect.name == "sqlite":
            return conn.exec_driver_sql("PRAGMA user_version").scalar_one()
        return conn.exec_driver_sql("SELECT version FROM briefloop_schema").scalar_one()


# -- schema and migrations ---------------------------------------------------------------


def schema_of(engine: sa.Engine, pk_nullable: bool = True) -> dict[str, Any]:
    """Tables -> columns -> (nullable, python type), primary keys, indexed columns."""
    insp = sa.inspect(engine)
    shape = {}
    for table in sorted(set(insp.get_table_names()) - {"briefloop_schema"}):
        pk = insp.get_pk_constraint(table)["constrained_columns"]
        shape[table] = {
            "columns": {
                c["name"]: (
                    c["nullable"] if pk_nullable or c["name"] not in pk else False,
                    c["type"].python_type,
                )
                for c in insp.get_columns(table)
            },
            "pk": sorted(pk),
            # (PostgreSQL lists a unique constraint's index among the indexes too)
            "indexed": sorted(
                tuple(i["column_names"])
                for i in insp.get_indexes(table)
                if not i.get("duplicates_constraint")
            ),
            "unique": sorted(tuple(u["column_names"]) for u in insp.get_unique_constraints(table)),
        }
    return shape


def schema_of_metadata() -> dict[str, Any]:
    return {
        table.name: {
            "columns": {c.name: (c.nullable, c.type.python_type) for c in table.columns},
            "pk": sorted(c.name for c in table.primary_key.columns),
            "indexed": sorted((c.name,) for c in table.columns if c.index),
            "unique": sorted((c.name,) for c in table.columns if c.unique),
        }
        for table in metadata.sorted_tables
    }


def test_a_fresh_database_is_metadata_at_the_last_version(runlog: RunLog):
    assert db_version(runlog.engine) == VERSION
    assert schema_of(runlog.engine) == schema_of_metadata()


def test_migrating_twice_changes_nothing(runlog: RunLog):
    runlog.upsert("t1", brief_id="b1", hosts=["writer@h1"])
    before = runlog.by_thread("t1")
    assert migrate(runlog.engine) == VERSION
    assert migrate(runlog.engine) == VERSION
    assert db_version(runlog.engine) == VERSION
    assert runlog.by_thread("t1") == before
    assert schema_of(runlog.engine) == schema_of_metadata()


# The run log's migrations as raw SQL, before SQLAlchemy (git show of batch/store/runlog.py
# before the PostgreSQL backend): what a user's existing runs.sqlite was made by.
OLD_MIGRATIONS = [
    """
    CREATE TABLE runs (
        run_id TEXT PRIMARY KEY,
        thread_id TEXT NOT NULL UNIQUE,
        brief_id TEXT NOT NULL,
        title TEXT NOT NULL DEFAULT '',
        source TEXT NOT NULL DEFAULT '',
        status TEXT NOT NULL,
        stop_reason TEXT,
        rounds INTEGER NOT NULL DEFAULT 0,
        score REAL,
        score_history TEXT NOT NULL DEFAULT '[]',
        open_must_fix TEXT NOT NULL DEFAULT '[]',
        needs_from_human TEXT NOT NULL DEFAULT '[]',
        deviations TEXT NOT NULL DEFAULT '[]',
        models TEXT NOT NULL DEFAULT '{}',
        model_calls INTEGER NOT NULL DEFAULT 0,
        input_tokens INTEGER NOT NULL DEFAULT 0,
        output_tokens INTEGER NOT NULL DEFAULT 0,
        model_seconds REAL NOT NULL DEFAULT 0,
        seconds REAL NOT NULL DEFAULT 0,
        started_at TEXT NOT NULL,
        ended_at TEXT,
        output_path TEXT,
        error TEXT,
        updated_at TEXT NOT NULL
    );
    CREATE INDEX runs_brief ON runs (brief_id);
    CREATE INDEX runs_status ON runs (status);
    """,
    """
    ALTER TABLE runs ADD COLUMN version INTEGER NOT NULL DEFAULT 1;
    CREATE TABLE sink_sync (
        sink TEXT NOT NULL,
        run_id TEXT NOT NULL,
        version INTEGER NOT NULL,
        synced_at TEXT NOT NULL,
        PRIMARY KEY (sink, run_id)
    );
    """,
    """
    ALTER TABLE runs ADD COLUMN decided_by TEXT;
    ALTER TABLE runs ADD COLUMN decided_at TEXT;
    ALTER TABLE runs ADD COLUMN decision_note TEXT;
    """,
    """
    CREATE TABLE batches (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        job TEXT,
        source TEXT NOT NULL,
        pid INTEGER NOT NULL,
        started_at TEXT NOT NULL,
        ended_at TEXT,
        status TEXT NOT NULL,
        counts TEXT NOT NULL DEFAULT '{}',
        message TEXT
    );
    """,
    """
    ALTER TABLE runs ADD COLUMN checklist TEXT NOT NULL DEFAULT '[]';
    ALTER TABLE runs ADD COLUMN uncovered TEXT NOT NULL DEFAULT '[]';
    """,
    "ALTER TABLE runs ADD COLUMN verification TEXT NOT NULL DEFAULT '';",
]


def legacy_db(path: Path, version: int) -> None:
    """A run log made by the old code at `version`, with two runs of one brief started
    in the same second (the second inserted last), and at v4+ a finished batch."""
    db = sqlite3.connect(path)
    try:
        for step in OLD_MIGRATIONS[:version]:
            db.executescript(step)
        db.execute(f"PRAGMA user_version = {version}")
        for n in (1, 2):
            db.execute(
                "INSERT INTO runs (run_id, thread_id, brief_id, status, started_at, "
                "updated_at, score_history) VALUES (?, ?, 'b1', 'finished', "
                "'2024-05-01T10:00:00+00:00', '2024-05-01T10:00:00+00:00', ?)",
                (f"r-old{n}", f"t-old{n}", json.dumps([n, 4.5])),
            )
        if version >= 4:
            db.execute(
                "INSERT INTO batches (source, pid, started_at, ended_at, status, "
                "counts) VALUES ('briefs', 1, '2024-05-01T10:00:00.000+00:00', "
                "'2024-05-01T10:01:00.000+00:00', 'ok', '{\"approved\": 2}')"
            )
        if version >= 2:
            db.execute(
                "INSERT INTO sink_sync VALUES ('csv', 'r-old1', 1, '2024-05-01T10:02:00+00:00')"
            )
        db.commit()
    finally:
        db.close()


def rowids(path: Path) -> dict[str, tuple[int, int]]:
    with sqlite3.connect(path) as db:
        return {
            t: (rowid, seq)
            for t, rowid, seq in db.execute("SELECT thread_id, rowid, seq FROM runs")
        }


@pytest.mark.parametrize("version", [6, 1, 3])
def test_a_legacy_sqlite_run_log_migrates_keeping_its_rows(tmp_path: Path, version: int):
    path = tmp_path / "runs.sqlite"
    legacy_db(path, version)
    with RunLog(path) as log:
        assert db_version(log.engine) == VERSION
        # the legacy primary key `run_id TEXT PRIMARY KEY` is nullable to SQLite (an old
        # quirk it keeps): everything else is the schema of a new database
        assert schema_of(log.engine, pk_nullable=False) == schema_of_metadata()
        old1, old2 = log.by_thread("t-old1"), log.by_thread("t-old2")
        assert old1["run_id"] == "r-old1" and old1["score_history"] == [1, 4.5]
        assert old2["status"] == "finished" and old2["hosts"] == [] and old2["version"] == 1
        assert old1["started_at"] == old2["started_at"]
        # start order was rowid order: seq takes it over
        assert all(rowid == seq for rowid, seq in rowids(path).values())
        assert log.newer_of_brief("t-old1")["thread_id"] == "t-old2"
        assert log.newer_of_brief("t-old2") is None
        # a run started now is newer than both
        log.upsert("t-new", brief_id="b1", status="running")
        assert log.newer_of_brief("t-old2")["thread_id"] == "t-new"
        assert log.newer_of_brief("t-old1")["thread_id"] == "t-new"
        # what the CSV view had taken stays taken
        pending = [r["thread_id"] for r in log.pending("csv")]
        assert pending == (["t-old2", "t-new"] if version >= 2 else ["t-old1", "t-old2", "t-new"])
        new_batch = log.batch_started("briefs")
        old = log.batches()
        assert [b["id"] for b in old] == ([1, new_batch] if version >= 4 else [new_batch])
        assert new_batch == (2 if version >= 4 else 1)
    with RunLog(path) as again:  # opened again: nothing left to do
        assert db_version(again.engine) == VERSION
        assert again.by_thread("t-old1") == old1


MIGRATE_CHILD = """
import sys, time
from pathlib import Path
import sqlalchemy as sa
from batch.store.runlog import sqlite_engine
from batch.store.schema import migrate
target = sys.argv[1]
engine = sa.create_engine(target) if "://" in target else sqlite_engine(Path(target))
engine.connect().close()  # connected before the start, so that they start together
time.sleep(max(0.0, float(sys.argv[2]) - time.time()))
print(migrate(engine))
"""


def migrate_at_once(target: str, processes: int = 3) -> None:
    """`processes` processes migrate `target` (a URL or a SQLite path) at the same moment;
    each must succeed."""
    start = time.time() + 1.2  # (a child takes ~0.4 s to start)
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", MIGRATE_CHILD, target, str(start)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            cwd=REPO,
        )
        for _ in range(processes)
    ]
    results = [p.communicate(timeout=60) for p in procs]
    for proc, (out, err) in zip(procs, results, strict=True):
        assert proc.returncode == 0, err
        assert out.strip() == str(VERSION)


@cluster
def test_processes_migrate_the_same_postgres_database_at_once(pg_dsn: str):
    migrate_at_once(sqlalchemy_url(pg_dsn))
    engine = sa.create_engine(sqlalchemy_url(pg_dsn))
    try:
        assert db_version(engine) == VERSION
        with engine.connect() as conn:
            assert conn.exec_driver_sql("SELECT count(*) FROM briefloop_schema").scalar() == 1
        assert schema_of(engine) == schema_of_metadata()
    finally:
        engine.dispose()


@pytest.mark.parametrize("legacy", [None, 6])
def test_processes_open_the_same_sqlite_run_log_at_once(tmp_path: Path, legacy: int | None):
    """A fresh file, or one of the old code upgraded by whichever process comes first."""
    path = tmp_path / "runs.sqlite"
    if legacy:
        legacy_db(path, legacy)
    migrate_at_once(str(path))
    with RunLog(path) as log:
        assert db_version(log.engine) == VERSION
        assert schema_of(log.engine, pk_nullable=False) == schema_of_metadata()
        assert len(log.all()) == (2 if legacy else 0)


def test_a_failed_sqlite_step_leaves_the_version_before_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    """A step that fails half way (disk full, kill) is rolled back whole, its ALTERs too:
    the next open runs it again from the start."""
    path = tmp_path / "runs.sqlite"
    legacy_db(path, 6)

    def fails_half_way(conn: sa.Connection) -> None:
        schema._add_columns(conn, schema.runs, "seq")
        raise sqlite3.OperationalError("database or disk is full")

    monkeypatch.setattr(schema, "MIGRATIONS", [*MIGRATIONS[:6], fails_half_way])
    with pytest.raises(sqlite3.OperationalError):
        RunLog(path)
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA user_version").fetchone()[0] == 6
        assert "seq" not in {row[1] for row in db.execute("PRAGMA table_info(runs)")}
    monkeypatch.undo()
    with RunLog(path) as log:
        assert db_version(log.engine) == VERSION
        assert log.newer_of_brief("t-old1")["thread_id"] == "t-old2"


# -- the run log -------------------------------------------------------------------------


def test_upsert_creates_then_updates_in_place(runlog: RunLog):
    first = runlog.upsert("t1", brief_id="b1", title="Memo", status="running")
    assert first["version"] == 1 and first["run_id"].startswith("r-")
    assert first["seq"] > 0 and first["ended_at"] is None
    second = runlog.upsert(
        "t1",
        status="finished",
        stop_reason="approved",
        rounds=2,
        score=4.5,
        ended_at="2024-05-01T10:00:00+00:00",
    )
    assert second["version"] == 2
    for same in ("run_id", "started_at", "seq", "brief_id", "title"):
        assert second[same] == first[same]
    assert (second["status"], second["stop_reason"], second["rounds"], second["score"]) == (
        "finished",
        "approved",
        2,
        4.5,
    )
    assert runlog.upsert("t1", rounds=3)["version"] == 3
    assert [r["thread_id"] for r in runlog.all()] == ["t1"]
    assert runlog.by_thread("t1")["rounds"] == 3
    assert runlog.all(status="running") == []
    with pytest.raises(KeyError):
        runlog.upsert("t1", nonsense=1)


def test_json_fields_round_trip(runlog: RunLog):
    fields = {
        "score_history": [2.5, 4.0],
        "open_must_fix": ["Name the date."],
        "needs_from_human": [{"placeholder": "[FIGURE NEEDED: x]", "question": "x? ü€"}],
        "deviations": [{"point": "tone", "reason": "house rules"}],
        "models": {"writer": "qwen2.5:7b", "critic": "gemma"},
        "uncovered": ["R2"],
        "checklist": ["R1 fact: closed Friday"],
        "hosts": [
            "writer@http://gpu1:11434",
            "critic@http://gpu2:11434",
            "writer@http://gpu1:11434",
        ],
    }
    made = runlog.upsert("t1", brief_id="b1", **fields)
    for record in (made, runlog.by_thread("t1"), runlog.all()[0], runlog.pending("csv")[0]):
        assert {k: record[k] for k in fields} == fields
    fresh = runlog.upsert("t2", brief_id="b2")
    assert fresh["hosts"] == [] and fresh["models"] == {} and fresh["verification"] == ""


def test_outbox_pending_mark_synced_and_forget(runlog: RunLog):
    a = runlog.upsert("ta", brief_id="a")
    b = runlog.upsert("tb", brief_id="b")
    # (in start order by the second, then by run id: within one second, either way)
    assert sorted(r["thread_id"] for r in runlog.pending("csv")) == ["ta", "tb"]
    runlog.mark_synced("csv", runlog.pending("csv"))
    assert runlog.pending("csv") == []
    assert len(runlog.pending("sheets")) == 2  # each sink has its own outbox
    a2 = runlog.upsert("ta", status="finished")
    assert [(r["thread_id"], r["version"]) for r in runlog.pending("csv")] == [("ta", 2)]
    runlog.mark_synced("csv", [a2])
    # a slow writer marking the older record afterwards does not take the row back
    runlog.mark_synced("csv", [a])
    assert runlog.pending("csv") == []
    with runlog.engine.connect() as conn:
        versions = dict(
            conn.execute(
                sa.select(sink_sync.c.run_id, sink_sync.c.version).where(sink_sync.c.sink == "csv")
            ).all()
        )
    assert versions == {a["run_id"]: 2, b["run_id"]: 1}
    runlog.mark_synced("csv", [])  # nothing to do
    runlog.mark_synced("sheets", [b])
    runlog.forget_synced("csv")
    assert sorted(r["thread_id"] for r in runlog.pending("csv")) == ["ta", "tb"]
    assert [r["thread_id"] for r in runlog.pending("sheets")] == ["ta"]


def test_newer_of_brief_orders_starts_within_one_second(runlog: RunLog):
    first = runlog.upsert("t1", brief_id="b1")
    second = runlog.upsert("t2", brief_id="b1")  # right after: the same second, mostly
    runlog.upsert("other", brief_id="b2")
    assert second["seq"] > first["seq"]
    assert runlog.newer_of_brief("t1")["thread_id"] == "t2"
    assert runlog.newer_of_brief("t2") is None
    assert runlog.newer_of_brief("other") is None
    assert runlog.newer_of_brief("missing") is None
    # a brief that could not be read replaces no text
    runlog.upsert("bad-b1-x", brief_id="b1", status="error")
    assert runlog.newer_of_brief("t2") is None
    assert runlog.newer_of_brief("t1")["thread_id"] == "t2"
    # updating an older run does not make it newer; the latest start wins
    runlog.upsert("t1", status="finished")
    third = runlog.upsert("t3", brief_id="b1")
    assert runlog.newer_of_brief("t1")["thread_id"] == "t3"
    assert runlog.newer_of_brief("t2")["run_id"] == third["run_id"]


def test_newer_of_brief_across_two_run_logs(store_settings: Settings):
    """Two processes (here two engines) inserting one after the other."""
    with open_runlog(store_settings) as one, open_runlog(store_settings) as two:
        one.upsert("t1", brief_id="b1")
        two.upsert("t2", brief_id="b1")
        assert one.newer_of_brief("t1")["thread_id"] == "t2"
        assert two.newer_of_brief("t2") is None


def test_batches_start_finish_once_and_by_job(runlog: RunLog):
    first = runlog.batch_started("briefs", job="nightly")
    other = runlog.batch_started("inbox", job="hourly", status="enqueueing")
    manual = runlog.batch_started("briefs")
    assert first < other < manual
    assert runlog.batch_finished(first, "ok", {"approved": 2}, only_open=True)
    assert not runlog.batch_finished(first, "failed", {"error": 1}, only_open=True)
    assert not runlog.batch_finished(999_999, "ok", {}, only_open=True)
    nightly = runlog.batches("nightly")
    assert len(nightly) == 1
    assert (nightly[0]["status"], nightly[0]["counts"]) == ("ok", {"approved": 2})
    assert nightly[0]["ended_at"] and nightly[0]["pid"] == os.getpid()
    hourly = runlog.batches("hourly")
    assert [(b["id"], b["status"], b["ended_at"], b["counts"]) for b in hourly] == [
        (other, "enqueueing", None, {})
    ]
    assert [b["id"] for b in runlog.batches()] == [first, other, manual]
    # without only_open a batch is closed again (a stopped batch's final word)
    assert runlog.batch_finished(first, "stopped", {}, message="stopped by hand")
    assert runlog.batches("nightly")[0]["message"] == "stopped by hand"


def test_only_batches_left_running_or_enqueueing_are_closed_as_abandoned(runlog: RunLog):
    running = runlog.batch_started("briefs")
    enqueueing = runlog.batch_started("briefs", status="enqueueing")
    queued = runlog.batch_started("briefs", status="enqueueing")
    Ledger(runlog, stale_after=60).batch_enqueued(queued, {"queued": 3})  # the workers'
    done = runlog.batch_started("briefs")
    runlog.batch_finished(done, "ok", {"approved": 1})

    assert runlog.close_abandoned_batches() == [running, enqueueing]
    rows = {b["id"]: b for b in runlog.batches()}
    assert [rows[i]["status"] for i in (running, enqueueing, queued, done)] == [
        "failed",
        "failed",
        "queued",
        "ok",
    ]
    assert rows[enqueueing]["message"].startswith("stopped while enqueueing")
    assert rows[queued]["ended_at"] is None and rows[queued]["counts"] == {"queued": 3}
    assert runlog.close_abandoned_batches() == []


# -- locks -------------------------------------------------------------------------------


def test_a_lock_is_exclusive_between_stores(store_settings: Settings):
    with open_store(store_settings) as one, open_store(store_settings) as two:
        with one.lock("batch"):
            with pytest.raises(LockBusy), two.lock("batch", wait=0):
                pass
            with two.lock("sync"), two.thread_lock("t1"):  # other names are free
                with pytest.raises(LockBusy, match="thread t1"), one.thread_lock("t1"):
                    pass
                with one.thread_lock("t2"):
                    pass
        with two.lock("batch"):  # released
            pass


def test_a_waiting_lock_gets_it_when_released(store_settings: Settings):
    with open_store(store_settings) as one, open_store(store_settings) as two:
        held = threading.Event()

        def hold() -> None:
            with one.thread_lock("t1"):
                held.set()
                time.sleep(0.4)

        holder = threading.Thread(target=hold)
        holder.start()
        try:
            assert held.wait(10)
            started = time.monotonic()
            with two.thread_lock("t1", wait=5):
                waited = time.monotonic() - started
            assert 0.2 <= waited < 3  # it waited for the holder, and not much longer
            # and one too short gives up
            with one.thread_lock("t2"):
                started = time.monotonic()
                with pytest.raises(LockBusy), two.thread_lock("t2", wait=0.3):
                    pass
                assert 0.25 <= time.monotonic() - started < 2
        finally:
            holder.join()


HOLD_CHILD = """
import sys, time
from batch import config
from batch.store.backends import open_store
store = open_store(config.load(sys.argv[1], environ={}))
with store.lock("batch"):
    print("held", flush=True)
    time.sleep(120)
"""


def test_a_lock_of_a_killed_process_is_released(store_settings: Settings, project: Path):
    cfg = project / "child.toml"
    store = (
        f'\n[store]\nbackend = "postgres"\ndsn = "{store_settings.store.dsn}"\n'
        if store_settings.store.backend == "postgres"
        else ""
    )
    cfg.write_text(f'[paths]\nroot = "{project}"\n{store}', encoding="utf-8")
    child = subprocess.Popen(
        [sys.executable, "-c", HOLD_CHILD, str(cfg)],
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert child.stdout.readline().strip() == "held", child.stderr.read()
        with open_store(store_settings) as mine:
            with pytest.raises(LockBusy), mine.lock("batch"):
                pass
            os.kill(child.pid, signal.SIGKILL)
            child.wait(10)
            started = time.monotonic()
            with mine.lock("batch", wait=5):
                assert time.monotonic() - started < 2
    finally:
        child.kill()
        child.wait()
        child.stdout.close()
        child.stderr.close()


# -- the checkpointer on PostgreSQL ------------------------------------------------------


class Tiny(TypedDict, total=False):
    n: int
    steps: Annotated[list[str], operator.add]
    first: dict[str, str]


def _step(name: str):
    def node(state: Tiny) -> dict[str, Any]:
        update: dict[str, Any] = {"n": state["n"] + 1, "steps": [name]}
        if name == "a":  # a channel written once, early: its value must outlive pruning
            update["first"] = {"by": name}  # (a dict: kept in checkpoint_blobs)
        return update

    return node


def tiny_graph(checkpointer, nodes: tuple[str, ...] = ("a",)):
    graph = StateGraph(Tiny)
    previous = START
    for name in nodes:
        graph.add_node(name, _step(name))
        graph.add_edge(previous, name)
        previous = name
    graph.add_edge(previous, END)
    return graph.compile(checkpointer=checkpointer)


def thread(thread_id: str) -> dict[str, Any]:
    return {"configurable": {"thread_id": thread_id}}


@cluster
def test_postgres_checkpointer_runs_a_graph_and_a_second_store_opens_it(project: Path, pg_dsn: str):
    settings = pg_settings(project, pg_dsn)
    with open_store(settings) as store:
        assert isinstance(store, PostgresStore)
        graph = tiny_graph(store.checkpointer)
        assert graph.invoke({"n": 1, "steps": []}, thread("t1")) == {
            "n": 2,
            "steps": ["a"],
            "first": {"by": "a"},
        }
        assert graph.get_state(thread("t1")).values == {
            "n": 2,
            "steps": ["a"],
            "first": {"by": "a"},
        }
        with open_store(settings) as second:  # runs setup() again on the same database
            other = tiny_graph(second.checkpointer)
            assert other.get_state(thread("t1")).values["n"] == 2
            other.invoke({"n": 10, "steps": []}, thread("t2"))
        assert graph.get_state(thread("t2")).values == {
            "n": 11,
            "steps": ["a"],
            "first": {"by": "a"},
        }
        assert graph.get_state(thread("nobody")).values == {}


@cluster
def test_stores_opening_the_checkpointer_at_once_set_it_up_once(project: Path, pg_dsn: str):
    """PostgresSaver.setup() is not safe to run twice at once: the stores take turns."""
    settings = pg_settings(project, pg_dsn)
    stores = [open_store(settings) for _ in range(3)]
    try:
        barrier = threading.Barrier(len(stores))

        def setup(store: PostgresStore):
            barrier.wait(10)
            return store.checkpointer

        with ThreadPoolExecutor(len(stores)) as pool:
            savers = list(pool.map(setup, stores))
        tiny_graph(savers[0]).invoke({"n": 1, "steps": []}, thread("t1"))
        assert tiny_graph(savers[2]).get_state(thread("t1")).values["n"] == 2
    finally:
        for store in stores:
            store.close()


@cluster
def test_postgres_store_works_again_after_a_server_restart(
    project: Path, pg_dsn: str, postgres_server
):
    settings = pg_settings(project, pg_dsn)
    with open_store(settings) as store:
        graph = tiny_graph(store.checkpointer)
        graph.invoke({"n": 1, "steps": []}, thread("t1"))
        store.runlog.upsert("t1", brief_id="b1")
        with store.lock("batch"):
            pass
        postgres_server.restart()
        # every pooled connection is broken now: each is replaced when handed out
        assert graph.invoke({"n": 5, "steps": []}, thread("t2"))["n"] == 6
        assert graph.get_state(thread("t1")).values["n"] == 2
        assert store.runlog.upsert("t1", status="finished")["version"] == 2
        with store.lock("batch"):
            pass


# -- the queue ledger --------------------------------------------------------------------


def test_ledger_claims_a_thread_once_until_it_is_done(runlog: RunLog):
    ledger = Ledger(runlog, stale_after=3600)
    assert ledger.claim("t1", None, "brief")
    assert not ledger.claim("t1", None, "brief")  # queued
    ledger.set("t1", "running", worker="w1:1")
    assert not ledger.claim("t1", None, "resume")  # running
    assert ledger.get("t1")["attempts"] == 1
    ledger.set("t1", "done")
    assert ledger.claim("t1", None, "resume")
    row = ledger.get("t1")
    assert (row["state"], row["kind"], row["attempts"], row["worker"]) == (
        "queued",
        "resume",
        0,
        None,
    )
    ledger.set("t1", "failed")
    assert ledger.claim("t1", None, "brief")
    assert ledger.claim("t2", None, "brief")  # another thread is its own row
    assert ledger.get("nobody") is None


def _stamp(runlog: RunLog, thread_id: str, **times: str) -> None:
    with runlog.engine.begin() as conn:
        conn.execute(sa.update(tasks).where(tasks.c.thread_id == thread_id).values(**times))


def test_ledger_finds_the_tasks_the_broker_lost_and_requeues_each_once(runlog: RunLog):
    ledger = Ledger(runlog, stale_after=60)
    minutes_ago = lambda n: (datetime.now(UTC) - timedelta(minutes=n)).isoformat(  # noqa: E731
        timespec="seconds"
    )
    for n, tid in enumerate(("lost", "waiting", "overtook", "running", "stuck", "done")):
        assert ledger.claim(tid, 1, "brief", tid, f'{{"task_id": "{tid}"}}')
        _stamp(runlog, tid, enqueued_at=minutes_ago(30 - n), updated_at=minutes_ago(30 - n))
    # "overtook" was sent after "lost" and "waiting" and started 10 minutes ago; "waiting"
    # is queued, but only a minute: the broker may still give a dead worker's copy back
    ledger.set("overtook", "done")
    _stamp(runlog, "overtook", updated_at=minutes_ago(10))
    _stamp(runlog, "waiting", updated_at=minutes_ago(1))
    ledger.set("running", "running")  # started just now
    ledger.set("stuck", "running")
    _stamp(runlog, "stuck", updated_at=minutes_ago(20))  # twice `after`: its copy is gone
    ledger.set("done", "done")

    lost = ledger.lost(after=5 * 60)
    assert [(r["thread_id"], r["state"], r["message"]) for r in lost] == [
        ("lost", "queued", '{"task_id": "lost"}'),
        ("stuck", "running", '{"task_id": "stuck"}'),
    ]
    assert ledger.get("done")["message"] is None  # nothing kept once a task is done
    first = [ledger.requeue(r["thread_id"], r["state"], r["updated_at"]) for r in lost]
    again = [ledger.requeue(r["thread_id"], r["state"], r["updated_at"]) for r in lost]
    assert (first, again) == ([True, True], [False, False])
    assert {ledger.get(t)["state"] for t in ("lost", "stuck")} == {"queued"}
    assert ledger.lost(after=5 * 60) == []  # requeued just now: not lost again yet


def test_ledger_takes_a_stale_row(runlog: RunLog):
    ledger = Ledger(runlog, stale_after=60)
    assert ledger.claim("t1", None, "brief")
    assert ledger.claim("t2", None, "brief")
    ledger.set("t2", "running")
    long_ago = "2000-01-01T00:00:00+00:00"
    with runlog.engine.begin() as conn:
        conn.execute(sa.update(tasks).values(updated_at=long_ago))
    assert ledger.claim("t1", None, "brief")  # queued, but its message was lost
    assert ledger.claim("t2", None, "brief")  # running for longer than it can
    assert ledger.get("t2")["updated_at"] > long_ago
    assert not ledger.claim("t2", None, "brief")  # fresh again


def race(ledgers: list[Ledger], thread_id: str) -> list[bool]:
    """Every ledger claims `thread_id` at the same moment."""
    barrier = threading.Barrier(len(ledgers))

    def claim(ledger: Ledger) -> bool:
        barrier.wait(10)
        return ledger.claim(thread_id, None, "brief")

    with ThreadPoolExecutor(len(ledgers)) as pool:
        return list(pool.map(claim, ledgers))


def test_racing_claims_take_a_thread_once(store_settings: Settings):
    logs = [open_runlog(store_settings) for _ in range(4)]  # each its own engine
    try:
        ledgers = [Ledger(log, stale_after=60) for log in logs]
        for i in range(20):
            assert sum(race(ledgers, f"t{i}")) == 1, f"t{i}"
        # racing over stale rows: one takes each
        with logs[0].engine.begin() as conn:
            conn.execute(sa.update(tasks).values(updated_at="2000-01-01T00:00:00+00:00"))
        for i in range(5):
            assert sum(race(ledgers, f"t{i}")) == 1, f"stale t{i}"
    finally:
        for log in logs:
            log.close()


def test_a_batch_closes_once_after_its_enqueuer_and_last_thread(runlog: RunLog):
    ledger = Ledger(runlog, stale_after=3600)
    batch_id = runlog.batch_started("briefs", status="enqueueing")
    for thread_id, reason in (("t1", "approved"), ("t2", "error")):
        assert ledger.claim(thread_id, batch_id, "brief")
        runlog.upsert(thread_id, brief_id=thread_id, stop_reason=reason)
    ledger.set("t1", "done")
    assert not ledger.close_batch_if_done(batch_id)  # t2 is still queued
    ledger.set("t2", "running")
    assert ledger.open_count(batch_id) == 1
    ledger.set("t2", "failed")
    assert ledger.open_count(batch_id) == 0
    # every thread is done, but the enqueuer is not: it may send more
    assert not ledger.close_batch_if_done(batch_id)
    assert runlog.batch(batch_id)["ended_at"] is None
    ledger.batch_enqueued(batch_id, {"queued": 2, "skipped": 1})
    assert ledger.close_batch_if_done(batch_id)
    assert not ledger.close_batch_if_done(batch_id)  # once
    closed = runlog.batch(batch_id)
    # it ran to its end: the brief that failed is one of its counts
    assert closed["status"] == "finished" and closed["ended_at"]
    assert closed["counts"] == {"skipped": 1, "approved": 1, "error": 1}
    assert ledger.outcomes(batch_id) == {"approved": 1, "error": 1}


# -- store faults ------------------------------------------------------------------------


def test_an_unreachable_postgres_is_a_store_error(tmp_path: Path):
    pytest.importorskip("psycopg")
    dsn = f"postgresql://briefloop@127.0.0.1:{free_port()}/nothing"  # nobody listens
    with pytest.raises(sa.exc.OperationalError) as caught:
        RunLog(sa.create_engine(sqlalchemy_url(dsn)))
    assert is_unreachable(caught.value)
    error = store_failure(caught.value, tmp_path)
    assert isinstance(error, StoreError)
    assert "PostgreSQL" in str(error) and "[store] dsn" in str(error)
    assert str(tmp_path) not in str(error)
    assert store_failure(ValueError("a bug"), tmp_path) is None
    assert not is_unreachable(ValueError("a bug"))
    # the driver's own error, as the checkpointer's pool raises it
    import psycopg

    with pytest.raises(psycopg.OperationalError) as raw:
        psycopg.connect(dsn, connect_timeout=5)
    assert "PostgreSQL" in str(store_failure(raw.value, tmp_path))


@cluster
def test_a_bad_query_on_postgres_is_not_a_store_error(tmp_path: Path, pg_dsn: str):
    engine = sa.create_engine(sqlalchemy_url(pg_dsn))
    try:
        with pytest.raises(sa.exc.ProgrammingError) as caught, engine.connect() as conn:
            conn.exec_driver_sql("SELECT * FROM no_such_table")
        assert not is_unreachable(caught.value)
        assert store_failure(caught.value, tmp_path) is None
    finally:
        engine.dispose()


def test_an_sqlite_fault_maps_as_before(tmp_path: Path):
    path = tmp_path / "runs.sqlite"
    path.write_bytes(b"this is not a database, just some text " * 200)
    with pytest.raises(sa.exc.DatabaseError) as caught:
        RunLog(path)
    error = store_failure(caught.value, tmp_path)
    assert isinstance(error, StoreError)
    assert str(tmp_path) in str(error) and "not a database" in str(error)
    assert not is_unreachable(caught.value)
    # the driver's own errors too, as the checkpointer raises them
    assert isinstance(
        store_failure(sqlite3.OperationalError("database or disk is full"), tmp_path), StoreError
    )
    assert store_failure(sqlite3.IntegrityError("UNIQUE constraint failed"), tmp_path) is None
    with (
        RunLog(tmp_path / "good.sqlite") as log,
        pytest.raises(sa.exc.IntegrityError) as caught,
        log.engine.begin() as conn,
    ):
        conn.execute(sa.insert(batches).values(source="x"))  # NOT NULL pid
    assert store_failure(caught.value, tmp_path) is None


# -- retention on PostgreSQL -------------------------------------------------------------


@cluster
def test_prune_on_postgres_keeps_each_finished_threads_final_state(project: Path, pg_dsn: str):
    settings = pg_settings(project, pg_dsn)
    with open_store(settings) as store:
        graph = tiny_graph(store.checkpointer, nodes=("a", "b", "c", "d"))
        final = {}
        for thread_id, n in (("t1", 1), ("t2", 100), ("waiting", 7)):
            final[thread_id] = graph.invoke({"n": n, "steps": []}, thread(thread_id))
            store.runlog.upsert(
                thread_id,
                brief_id=thread_id,
                status="finished",
                ended_at="2000-01-01T00:00:00+00:00",
            )
        store.runlog.upsert("waiting", status="awaiting_human", ended_at=None)
        assert final["t1"] == {"n": 5, "steps": ["a", "b", "c", "d"], "first": {"by": "a"}}

        def checkpoints() -> dict[str, int]:
            with store.engine.connect() as conn:
                return dict(
                    conn.exec_driver_sql(
                        "SELECT thread_id, count(*) FROM checkpoints GROUP BY thread_id"
                    ).all()
                )

        before = checkpoints()
        assert all(n > 3 for n in before.values())
        report = prune(settings, keep_days=0, store=store)
        assert report.threads == 2
        assert report.checkpoints_deleted == before["t1"] - 1 + before["t2"] - 1 > 0
        assert checkpoints() == {"t1": 1, "t2": 1, "waiting": before["waiting"]}
        for thread_id in final:
            assert graph.get_state(thread(thread_id)).values == final[thread_id]
        # a pruned thread still runs on from its final state
        assert (
            graph.invoke({"n": 0, "steps": []}, thread("t1"))["steps"] == ["a", "b", "c", "d"] * 2
        )
        # a thread that ended recently keeps its history
        store.runlog.upsert("t2", ended_at=datetime.now(UTC).isoformat(timespec="seconds"))
        assert prune(settings, keep_days=30, store=store).threads == 1
        assert checkpoints()["t2"] == 1 and checkpoints()["t1"] == 1


@pytest.mark.parametrize(
    "state,counted,status", [("failed", "error", "finished"), ("done", "unrecorded", "failed")]
)
def test_a_queued_thread_without_a_run_row_is_counted_and_fails_its_batch(
    runlog: RunLog, state, counted, status
):
    # its record could not be written (the database refused it): the batch still counts
    # it, by name; one the ledger cannot account for fails the batch
    ledger = Ledger(runlog, stale_after=60)
    batch_id = runlog.batch_started("briefs", status="enqueueing")
    for thread in ("t1", "t2"):
        assert ledger.claim(thread, batch_id, "brief")
    runlog.upsert("t1", brief_id="a", status="finished", stop_reason="approved")
    ledger.batch_enqueued(batch_id, {"queued": 2})
    ledger.set("t1", "done")
    ledger.set("t2", state)
    assert ledger.close_batch_if_done(batch_id)
    row = runlog.batch(batch_id)
    assert row["counts"] == {"approved": 1, counted: 1} and row["status"] == status
