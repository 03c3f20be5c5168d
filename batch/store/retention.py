"""Retention for the checkpoint database, which never shrinks by itself.

LangGraph's checkpointers keep a snapshot per step of every thread. A finished
thread needs none of its history to be resumed or reviewed, so after
`retention.keep_days` only its final checkpoint stays (enough for `get_state` to show
how it ended); the rest is deleted and VACUUM gives the disk back (SQLite) or makes
the space reusable (PostgreSQL). Their model calls (the run log's `model_calls`: every
prompt and answer, the bulk of it) go at the same time. Threads that are running,
failed or waiting for a person are never touched. The run log's rows are not pruned.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

from batch.config import Settings
from batch.store.backends import PostgresStore, Store, one, open_store, row
from batch.store.runlog import RunLog


@dataclass(frozen=True)
class GcReport:
    threads: int
    checkpoints_deleted: int
    writes_deleted: int
    bytes_before: int
    bytes_after: int
    calls_deleted: int = 0  # model calls of the pruned threads


def db_bytes(path: Path) -> int:
    return sum(p.stat().st_size for p in (path, path.with_name(path.name + "-wal")) if p.exists())


def finished_threads(log: RunLog, older_than: timedelta) -> list[str]:
    cutoff = (datetime.now(UTC) - older_than).isoformat(timespec="seconds")
    return [
        r["thread_id"]
        for r in log.all(status="finished")
        if r["ended_at"] and r["ended_at"] <= cutoff
    ]


def prune(
    settings: Settings,
    keep_days: float | None = None,
    vacuum: bool = True,
    store: Store | None = None,
) -> GcReport:
    days = settings.retention.keep_days if keep_days is None else keep_days
    if store is None:
        with open_store(settings) as opened:
            return prune(settings, keep_days, vacuum, opened)
    threads = finished_threads(store.runlog, timedelta(days=days))
    calls = store.runlog.forget_calls(threads)
    if isinstance(store, PostgresStore):
        return replace(_prune_postgres(store, threads, vacuum), calls_deleted=calls)
    path = settings.checkpoint_path
    before = db_bytes(path)
    deleted_checkpoints = deleted_writes = 0
    if path.exists():
        db = sqlite3.connect(path, timeout=30)
        try:
            with db:
                for thread_id in threads:
                    row = db.execute(
                        "SELECT checkpoint_id FROM checkpoints WHERE thread_id = ? AND "
                        "checkpoint_ns = '' ORDER BY checkpoint_id DESC LIMIT 1",
                        (thread_id,),
                    ).fetchone()
                    if row is None:
                        continue
                    keep = row[0]
                    deleted_checkpoints += db.execute(
                        "DELETE FROM checkpoints WHERE thread_id = ? AND checkpoint_id != ?",
                        (thread_id, keep),
                    ).rowcount
                    deleted_writes += db.execute(
                        "DELETE FROM writes WHERE thread_id = ? AND checkpoint_id != ?",
                        (thread_id, keep),
                    ).rowcount
            if vacuum:
                db.execute("VACUUM")
                # In WAL mode VACUUM's new pages land in the WAL first: fold them in.
                db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        finally:
            db.close()
    return GcReport(
        len(threads), deleted_checkpoints, deleted_writes, before, db_bytes(path), calls
    )


def _prune_postgres(store: PostgresStore, threads: list[str], vacuum: bool) -> GcReport:
    """The library's own prune (keep_latest: the checkpoint get_state loads, its pending
    writes and the channel values it points at), counted before and after."""
    import psycopg

    tables = ("checkpoints", "checkpoint_blobs", "checkpoint_writes")
    size = "SELECT " + " + ".join(f"pg_total_relation_size('{t}')" for t in tables)
    count = (
        "SELECT (SELECT count(*) FROM checkpoints WHERE thread_id = ANY(%(t)s)), "
        "(SELECT count(*) FROM checkpoint_writes WHERE thread_id = ANY(%(t)s))"
    )
    saver = store.checkpointer  # creates the tables when this database has none yet
    with psycopg.connect(store.dsn, autocommit=True) as conn:
        before = one(conn.execute(size))
        checkpoints, writes = row(conn.execute(count, {"t": threads}))
        if threads:
            saver.prune(threads, strategy="keep_latest")
        left_checkpoints, left_writes = row(conn.execute(count, {"t": threads}))
        if vacuum:
            for table in tables:
                conn.execute(f"VACUUM {table}")
        after = one(conn.execute(size))
    return GcReport(
        len(threads), checkpoints - left_checkpoints, writes - left_writes, int(before), int(after)
    )
