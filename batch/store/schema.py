"""The run-log database's schema, one definition for SQLite and PostgreSQL.

`metadata` is the schema as it is now: the queries are written against it. `MIGRATIONS`
are the ordered steps that bring a database of any earlier version to it, the same
steps on both engines (a new database runs them all). A database at version N has had
the first N applied; SQLite keeps N in `PRAGMA user_version` (where it always was),
PostgreSQL in the one-row table `briefloop_schema`. On PostgreSQL the steps run in one
transaction under an advisory lock, so two workers starting at once migrate once.

A new column or table is added in two places: here in `metadata`, and as a new step at
the end of MIGRATIONS. tests/test_store.py checks that the steps produce `metadata`.
"""

from __future__ import annotations

from collections.abc import Callable

import sqlalchemy as sa

metadata = sa.MetaData()

# JSON lists and objects are TEXT on both engines: the run log is read whole, never
# queried inside a JSON value.
runs = sa.Table(
    "runs", metadata,
    sa.Column("run_id", sa.Text, primary_key=True),
    sa.Column("thread_id", sa.Text, nullable=False, unique=True),
    sa.Column("brief_id", sa.Text, nullable=False, index=True),
    sa.Column("title", sa.Text, nullable=False, server_default=""),
    sa.Column("source", sa.Text, nullable=False, server_default=""),
    sa.Column("status", sa.Text, nullable=False, index=True),
    sa.Column("stop_reason", sa.Text),
    sa.Column("rounds", sa.Integer, nullable=False, server_default="0"),
    sa.Column("score", sa.Float),
    sa.Column("score_history", sa.Text, nullable=False, server_default="[]"),
    sa.Column("open_must_fix", sa.Text, nullable=False, server_default="[]"),
    sa.Column("needs_from_human", sa.Text, nullable=False, server_default="[]"),
    sa.Column("deviations", sa.Text, nullable=False, server_default="[]"),
    sa.Column("models", sa.Text, nullable=False, server_default="{}"),
    sa.Column("model_calls", sa.Integer, nullable=False, server_default="0"),
    sa.Column("input_tokens", sa.Integer, nullable=False, server_default="0"),
    sa.Column("output_tokens", sa.Integer, nullable=False, server_default="0"),
    sa.Column("model_seconds", sa.Float, nullable=False, server_default="0"),
    sa.Column("seconds", sa.Float, nullable=False, server_default="0"),
    sa.Column("started_at", sa.Text, nullable=False),
    sa.Column("ended_at", sa.Text),
    sa.Column("output_path", sa.Text),
    sa.Column("error", sa.Text),
    sa.Column("updated_at", sa.Text, nullable=False),
    # every change bumps it; a sink has taken a run once sink_sync holds this version
    sa.Column("version", sa.Integer, nullable=False, server_default="1"),
    sa.Column("decided_by", sa.Text),
    sa.Column("decided_at", sa.Text),
    sa.Column("decision_note", sa.Text),
    sa.Column("checklist", sa.Text, nullable=False, server_default="[]"),
    sa.Column("uncovered", sa.Text, nullable=False, server_default="[]"),
    sa.Column("verification", sa.Text, nullable=False, server_default=""),
    # start order across processes and machines (newer_of_brief): nanoseconds
    sa.Column("seq", sa.BigInteger, nullable=False, server_default="0"),
    # which model host served each call, in order ("writer@http://gpu1:11434")
    sa.Column("hosts", sa.Text, nullable=False, server_default="[]"),
    # the batch that last ran the thread (batches.id); unset for a run before it was kept
    sa.Column("batch_id", sa.Integer, index=True),
    # why the machine could not finish the text (max_rounds, no_progress), kept while it
    # waits for a person and after they decide
    sa.Column("unfinished", sa.Text),
    # the thread this run is a new attempt of (a retry from the review page or the CLI)
    sa.Column("retry_of", sa.Text, index=True),
    # where the run's time went: model seconds by step, and the code checks' seconds
    sa.Column("time_split", sa.Text, nullable=False, server_default="{}"),
)

# What each run-log column holds: the one description docs/run-log.md's column reference is
# generated from (batch.store.runlog.column_reference). Every column has one.
RUN_COLUMN_DOCS: dict[str, str] = {
    "run_id": "the run's id: the key each sheet row is upserted by",
    "thread_id": "the LangGraph thread (`briefloop run THREAD`, `review answer THREAD`)",
    "brief_id": "the brief's id (front matter `id`, the file's name, or the sheet's `id`)",
    "title": "the brief's title",
    "source": "where the brief came from: its file, or `sheet.csv row 7`",
    "status": "`running`, `awaiting_human`, `finished`, `failed`, or `stopped` (part "
              "way, when the batch's hours ran out; the next run resumes it)",
    "stop_reason": "why the loop stopped: `approved`, `max_rounds`, `no_progress`, "
                   "`budget` (its model seconds spent), `error`, "
                   "`approved_by_human`, `rejected_by_human`; `awaiting_human` while it "
                   "waits",
    "rounds": "writer–critic rounds run",
    "score": "the code's score (0–100) of the text the run stands for",
    "score_history": "the score of every round, in order",
    "open_must_fix": "the findings that still block approval",
    "needs_from_human": "the placeholders a person still has to fill",
    "deviations": "critique points the writer rejected on purpose, with its reasons",
    "models": "the model of each role",
    "model_calls": "model calls made",
    "input_tokens": "prompt tokens, all calls",
    "output_tokens": "generated tokens, all calls",
    "model_seconds": "seconds spent in model calls",
    "seconds": "wall seconds of the run",
    "started_at": "when the run started (UTC)",
    "ended_at": "when it ended (UTC); empty while it runs or waits",
    "output_path": "the text written to `output/`",
    "error": "the error of a failed run, in one line",
    "updated_at": "the row's last change (UTC)",
    "version": "bumped by every change; a sheet has the run once it holds this version",
    "decided_by": "who approved, rejected or sent back the text",
    "decided_at": "when they did (UTC)",
    "decision_note": "their reason or notes; an approval over the checks' findings says so",
    "checklist": "what the brief asks, as the code checks it (`R1 fact: …`)",
    "uncovered": "the checklist items the text misses",
    "verification": "what running an API doc's examples verified, or why nothing was run",
    "seq": "the start order across processes and machines",
    "hosts": "which model host served each call, in order (`writer@http://gpu-1:11434`)",
    "batch_id": "the batch that last ran the thread (the runs page groups by it)",
    "unfinished": "why the machine could not finish the text (`max_rounds`, "
                  "`no_progress`, `budget`), while it waits for a person and after",
    "retry_of": "the thread this run is a new attempt of (`review retry`)",
    "time_split": "where the run's time went, in seconds: model time of the first draft, "
                  "the repairs and rewrites, the critic and the finalizer; the seconds an "
                  "API doc's examples took to run in the sandbox; and the other code checks",
}
assert set(RUN_COLUMN_DOCS) == set(runs.c.keys()), "a run-log column without its description"

sink_sync = sa.Table(
    "sink_sync", metadata,
    sa.Column("sink", sa.Text, primary_key=True),
    sa.Column("run_id", sa.Text, primary_key=True),
    sa.Column("version", sa.Integer, nullable=False),
    sa.Column("synced_at", sa.Text, nullable=False),
)

batches = sa.Table(
    "batches", metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("job", sa.Text),
    sa.Column("source", sa.Text, nullable=False),
    sa.Column("pid", sa.Integer, nullable=False),
    sa.Column("started_at", sa.Text, nullable=False),
    sa.Column("ended_at", sa.Text),
    sa.Column("status", sa.Text, nullable=False),
    sa.Column("counts", sa.Text, nullable=False, server_default="{}"),
    sa.Column("message", sa.Text),
)

# Every brief a batch counted, with the outcome it was counted as: what its page lists,
# so each count has its rows (a run already done, still waiting, skipped or busy is
# counted by a batch that did not start it). The run itself is the `runs` row.
batch_runs = sa.Table(
    "batch_runs", metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("batch_id", sa.Integer, nullable=False, index=True),
    sa.Column("thread_id", sa.Text, nullable=False, server_default=""),  # "": not started
    sa.Column("brief_id", sa.Text, nullable=False, server_default=""),
    sa.Column("outcome", sa.Text, nullable=False),
    sa.Column("seconds", sa.Float, nullable=False, server_default="0"),
    sa.Column("at", sa.Text, nullable=False),
)

# The cluster's queue ledger: one row per thread handed to the workers. Celery carries
# the work; this row is what makes enqueueing idempotent (a thread queued or running is
# not sent again) and tells when a batch's last brief is done.
tasks = sa.Table(
    "tasks", metadata,
    sa.Column("thread_id", sa.Text, primary_key=True),
    sa.Column("batch_id", sa.Integer, index=True),
    sa.Column("kind", sa.Text, nullable=False),  # brief | resume
    sa.Column("state", sa.Text, nullable=False, index=True),  # queued|running|done|failed
    sa.Column("task_id", sa.Text),
    sa.Column("worker", sa.Text),
    sa.Column("attempts", sa.Integer, nullable=False, server_default="0"),
    sa.Column("enqueued_at", sa.Text, nullable=False),
    sa.Column("updated_at", sa.Text, nullable=False),
    # The task as sent (JSON: name, args, task_id) while it is open, to send it again if
    # the broker lost it; cleared once it is done.
    sa.Column("message", sa.Text),
)

# Secrets the processes of one project share through its database: the key that signs
# the review page's links to one thread (batch.review.links). Made once, never shown.
secrets = sa.Table(
    "secrets", metadata,
    sa.Column("name", sa.Text, primary_key=True),
    sa.Column("value", sa.Text, nullable=False),
    sa.Column("created_at", sa.Text, nullable=False),
)


# Every model call of every thread, in order: what it was sent and what it answered
# (`briefloop review calls THREAD`, the story page). Pruned with the checkpoints.
model_calls = sa.Table(
    "model_calls", metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("thread_id", sa.Text, nullable=False, index=True),
    sa.Column("at", sa.Text, nullable=False),
    sa.Column("node", sa.Text, nullable=False, server_default=""),
    sa.Column("round", sa.Integer),
    sa.Column("role", sa.Text, nullable=False),
    sa.Column("model", sa.Text, nullable=False, server_default=""),
    sa.Column("host", sa.Text, nullable=False, server_default=""),
    sa.Column("attempt", sa.Integer, nullable=False, server_default="1"),
    sa.Column("messages", sa.Text, nullable=False, server_default="[]"),
    sa.Column("answer", sa.Text, nullable=False, server_default=""),
    sa.Column("seconds", sa.Float, nullable=False, server_default="0"),
    sa.Column("input_tokens", sa.Integer, nullable=False, server_default="0"),
    sa.Column("output_tokens", sa.Integer, nullable=False, server_default="0"),
    # why the answer was not taken (and so retried), or the error the call raised
    sa.Column("problem", sa.Text, nullable=False, server_default=""),
)


# -- the steps ---------------------------------------------------------------------------

def _add_columns(conn: sa.Connection, table: sa.Table, *names: str) -> None:
    """ALTER TABLE ADD COLUMN for columns of `metadata`, in the engine's own types."""
    preparer = conn.dialect.identifier_preparer
    for name in names:
        column = table.c[name]
        ddl = f"{preparer.quote(name)} {column.type.compile(dialect=conn.dialect)}"
        if column.server_default is not None:
            ddl += f" DEFAULT '{column.server_default.arg}'"
            if not column.nullable:
                ddl += " NOT NULL"
        conn.exec_driver_sql(f"ALTER TABLE {preparer.quote(table.name)} ADD COLUMN {ddl}")


def _create(conn: sa.Connection, table: sa.Table, *, without: tuple[str, ...] = ()) -> None:
    """Create `table` as it was before the columns `without` were added to it."""
    if not without:
        table.create(conn)
        return
    old = sa.MetaData()
    columns = [c._copy() for c in table.columns if c.name not in without]
    sa.Table(table.name, old, *columns).create(conn)


_RUNS_LATER = ("version", "decided_by", "decided_at", "decision_note", "checklist",
               "uncovered", "verification", "seq", "hosts", "batch_id", "unfinished",
               "retry_of", "time_split")


def _m001_runs(conn: sa.Connection) -> None:
    _create(conn, runs, without=_RUNS_LATER)


def _m002_outbox(conn: sa.Connection) -> None:
    _add_columns(conn, runs, "version")
    _create(conn, sink_sync)


def _m003_decisions(conn: sa.Connection) -> None:
    # Who approved, rejected or sent back a text, when, and their reason or notes.
    _add_columns(conn, runs, "decided_by", "decided_at", "decision_note")


def _m004_batches(conn: sa.Connection) -> None:
    _create(conn, batches)


def _m005_checklist(conn: sa.Connection) -> None:
    # What the brief asks, as checked by code ("R1 fact: ..."), and what the text misses.
    _add_columns(conn, runs, "checklist", "uncovered")


def _m006_verification(conn: sa.Connection) -> None:
    # What running the examples of an API doc verified, or why nothing was run.
    _add_columns(conn, runs, "verification")


def _m007_cluster(conn: sa.Connection) -> None:
    # Start order that holds across machines (SQLite's rowid did on one), the host of
    # each model call, and the queue ledger of a cluster.
    _add_columns(conn, runs, "seq", "hosts")
    if conn.dialect.name == "sqlite":
        conn.exec_driver_sql("UPDATE runs SET seq = rowid")
    _create(conn, tasks, without=("message",))


def _m008_task_message(conn: sa.Connection) -> None:
    # What a queued task carried, so that one the broker lost can be sent again.
    _add_columns(conn, tasks, "message")


def _m009_batch_of_run(conn: sa.Connection) -> None:
    # Which batch ran a thread, for the runs page; older runs are placed by time.
    _add_columns(conn, runs, "batch_id")
    conn.exec_driver_sql("CREATE INDEX IF NOT EXISTS ix_runs_batch_id ON runs (batch_id)")


def _m010_secrets(conn: sa.Connection) -> None:
    _create(conn, secrets)


def _m011_every_ending(conn: sa.Connection) -> None:
    # A text the machine could not finish, a retry's earlier attempt, each model call.
    _add_columns(conn, runs, "unfinished", "retry_of")
    conn.exec_driver_sql("CREATE INDEX IF NOT EXISTS ix_runs_retry_of ON runs (retry_of)")
    _create(conn, model_calls)


def _m012_batch_runs(conn: sa.Connection) -> None:
    # Every brief a batch counted, so its page lists a row for each count.
    _create(conn, batch_runs)


def _m013_time_split(conn: sa.Connection) -> None:
    # Where a run's time went (the first draft, repairs, critic, checks).
    _add_columns(conn, runs, "time_split")


MIGRATIONS: list[Callable[[sa.Connection], None]] = [
    _m001_runs, _m002_outbox, _m003_decisions, _m004_batches, _m005_checklist,
    _m006_verification, _m007_cluster, _m008_task_message, _m009_batch_of_run,
    _m010_secrets, _m011_every_ending, _m012_batch_runs, _m013_time_split,
]

# pg_advisory_xact_lock key for migrating (any fixed 64-bit number of our own)
MIGRATION_LOCK = 0x62726C6F6F700001


def _version(conn: sa.Connection) -> int:
    if conn.dialect.name == "sqlite":
        return int(conn.exec_driver_sql("PRAGMA user_version").scalar_one())
    conn.exec_driver_sql("CREATE TABLE IF NOT EXISTS briefloop_schema (version INTEGER NOT NULL)")
    value = conn.exec_driver_sql("SELECT version FROM briefloop_schema").scalar()
    if value is None:
        conn.exec_driver_sql("INSERT INTO briefloop_schema (version) VALUES (0)")
        return 0
    return int(value)


def _set_version(conn: sa.Connection, version: int) -> None:
    if conn.dialect.name == "sqlite":
        conn.exec_driver_sql(f"PRAGMA user_version = {int(version)}")
    else:
        conn.exec_driver_sql(f"UPDATE briefloop_schema SET version = {int(version)}")


def migrate(engine: sa.Engine) -> int:
    """Apply the steps this database has not had; returns its version now."""
    if engine.dialect.name == "postgresql":
        with engine.begin() as conn:
            conn.execute(sa.text("SELECT pg_advisory_xact_lock(:k)"),
                         {"k": MIGRATION_LOCK - (1 << 63) if MIGRATION_LOCK >= 1 << 63
                          else MIGRATION_LOCK})
            version = _version(conn)
            for index, step in enumerate(MIGRATIONS[version:], start=version + 1):
                step(conn)
                _set_version(conn, index)
        return len(MIGRATIONS)
    with engine.connect() as conn:
        version = _version(conn)
        conn.commit()
        while version < len(MIGRATIONS):
            # SQLite: one transaction per step, begun by hand: the driver begins one only
            # before DML, which left a step's ALTERs behind when it failed half way
            # ("duplicate column name" on every open after). IMMEDIATE takes the write
            # lock first, so two processes opening the file at once migrate it once: the
            # version is read again under the lock.
            conn.exec_driver_sql("BEGIN IMMEDIATE")
            version = _version(conn)
            if version >= len(MIGRATIONS):
                conn.rollback()
                break
            MIGRATIONS[version](conn)
            _set_version(conn, version + 1)
            conn.commit()
            version += 1
    return version
