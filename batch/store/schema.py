"""The run-log database's schema, one definition for SQLite and PostgreSQL.

`metadata` is the schema as it is now: the queries are written against it. `MIGRATIONS`
are the ordered steps that bring a database of any earlier version to it, the same
steps on both engines (a new database runs them all). A database at version N has had
the first N applied; SQLite keeps N in `PRAGMA user_version` (where it always was),
PostgreSQL in the one-row table `briefloop_schema`. On PostgreSQL the steps run in one
transaction under an advisory lock, so two workers starting at once migrate once.

A new column of the run log is one more RunColumn at the end of
batch.store.run_columns.RUN_COLUMNS (the `runs` table here, its docs and its sheet column
are derived from it); a new table is added here. Either also needs a new step at the end
of MIGRATIONS: tests/store/test_store.py checks that the steps produce `metadata` on a fresh
database and on legacy SQLite files of earlier versions, so it fails while a step is
missing.
"""

from __future__ import annotations

from collections.abc import Callable

import sqlalchemy as sa

from batch.store.run_columns import column_docs, runs_table

metadata = sa.MetaData()

# The run log: its columns are declared in batch.store.run_columns, each once.
runs = runs_table(metadata)
# What each run-log column holds: docs/run-log.md's column reference is generated from it
# (batch.store.runlog.column_reference).
RUN_COLUMN_DOCS: dict[str, str] = column_docs()

sink_sync = sa.Table(
    "sink_sync",
    metadata,
    sa.Column("sink", sa.Text, primary_key=True),
    sa.Column("run_id", sa.Text, primary_key=True),
    sa.Column("version", sa.Integer, nullable=False),
    sa.Column("synced_at", sa.Text, nullable=False),
)

batches = sa.Table(
    "batches",
    metadata,
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
    "batch_runs",
    metadata,
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
    "tasks",
    metadata,
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
    "secrets",
    metadata,
    sa.Column("name", sa.Text, primary_key=True),
    sa.Column("value", sa.Text, nullable=False),
    sa.Column("created_at", sa.Text, nullable=False),
)


# Times the project keeps between runs, by name: when the last morning digest went out
# (batch.nightly.digest), so the next one tells what came after it.
marks = sa.Table(
    "marks",
    metadata,
    sa.Column("name", sa.Text, primary_key=True),
    sa.Column("value", sa.Text, nullable=False),
)


# The one-tap approve links of a message that were taken: a link approves once
# (batch.review.one_tap), whoever taps it again or forwards it.
used_links = sa.Table(
    "used_links",
    metadata,
    sa.Column("signature", sa.Text, primary_key=True),
    sa.Column("thread_id", sa.Text, nullable=False),
    sa.Column("used_at", sa.Text, nullable=False),
)


# An action that touches more than one store (the checkpointer, the run log, files),
# written before its first step and deleted after its last: one still here was cut
# short, and `briefloop repair` (batch.review.pending) finishes it.
actions = sa.Table(
    "actions",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("thread_id", sa.Text, nullable=False, index=True),
    sa.Column("kind", sa.Text, nullable=False),
    sa.Column("payload", sa.Text, nullable=False),
    sa.Column("started_at", sa.Text, nullable=False),
)


# Every model call of every thread, in order: what it was sent and what it answered
# (`briefloop review calls THREAD`, the story page). Pruned with the checkpoints.
model_calls = sa.Table(
    "model_calls",
    metadata,
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


# A person's fixes to a brief's checklist as read (batch.judging.checklist.fixes): kept
# for the brief's later runs, and each a labelled example of the reader's error.
checklist_fixes = sa.Table(
    "checklist_fixes",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("brief_id", sa.Text, nullable=False, index=True),
    sa.Column("thread_id", sa.Text, nullable=False),
    sa.Column("item", sa.Text, nullable=False),
    sa.Column("read", sa.Text, nullable=False),
    sa.Column("was", sa.Text, nullable=False),
    sa.Column("action", sa.Text, nullable=False),
    sa.Column("kind", sa.Text, nullable=False, server_default=""),
    sa.Column("value", sa.Text, nullable=False, server_default=""),
    sa.Column("by", sa.Text, nullable=False, server_default=""),
    sa.Column("at", sa.Text, nullable=False),
)


# -- the steps ---------------------------------------------------------------------------


def _add_columns(conn: sa.Connection, table: sa.Table, *names: str) -> None:
    """ALTER TABLE ADD COLUMN for columns of `metadata`, in the engine's own types."""
    preparer = conn.dialect.identifier_preparer
    for name in names:
        column = table.c[name]
        ddl = f"{preparer.quote(name)} {column.type.compile(dialect=conn.dialect)}"
        if column.server_default is not None:
            ddl += f" DEFAULT '{column.server_default.arg}'"  # type: ignore[attr-defined]
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


def _m001_runs(conn: sa.Connection) -> None:
    # The table as the first version had it, up to updated_at: every column after it is
    # added by a later step, so a column declared later is not created here unasked.
    names = list(runs.c.keys())
    _create(conn, runs, without=tuple(names[names.index("updated_at") + 1 :]))


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


def _m014_judgement(conn: sa.Connection) -> None:
    # The checks' record of the text a run stands for: why it was approved, or not.
    _add_columns(conn, runs, "judgement")


def _m015_actions(conn: sa.Connection) -> None:
    # Actions over several stores, so that one cut short is finished, not left half-done.
    _create(conn, actions)


def _m016_marks(conn: sa.Connection) -> None:
    # Times kept between runs (the last morning digest).
    _create(conn, marks)


def _m017_used_links(conn: sa.Connection) -> None:
    # One-tap approve links taken, so each approves once.
    _create(conn, used_links)


def _m018_checklist_fixes(conn: sa.Connection) -> None:
    # A person's fixes to a brief's checklist as read, kept for its later runs.
    _create(conn, checklist_fixes)


MIGRATIONS: list[Callable[[sa.Connection], None]] = [
    _m001_runs,
    _m002_outbox,
    _m003_decisions,
    _m004_batches,
    _m005_checklist,
    _m006_verification,
    _m007_cluster,
    _m008_task_message,
    _m009_batch_of_run,
    _m010_secrets,
    _m011_every_ending,
    _m012_batch_runs,
    _m013_time_split,
    _m014_judgement,
    _m015_actions,
    _m016_marks,
    _m017_used_links,
    _m018_checklist_fixes,
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
            conn.execute(
                sa.text("SELECT pg_advisory_xact_lock(:k)"),
                {"k": MIGRATION_LOCK - (1 << 63) if MIGRATION_LOCK >= 1 << 63 else MIGRATION_LOCK},
            )
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
