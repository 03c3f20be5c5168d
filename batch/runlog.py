"""The run log: one row per run in SQLite, the system of record.

Spreadsheets are views synced from here. A run is one brief's thread; its row is
updated in place as the run moves on (running -> awaiting_human -> approved_by_human),
so re-running never adds a second row for the same thread.
"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from batch.errors import StoreError

# Fields in the order the spreadsheet views show them.
FIELDS = [
    "run_id", "thread_id", "brief_id", "title", "source", "status", "stop_reason",
    "rounds", "score", "score_history", "open_must_fix", "needs_from_human", "deviations",
    "models", "model_calls", "input_tokens", "output_tokens", "model_seconds", "seconds",
    "started_at", "ended_at", "output_path", "error", "decided_by", "decided_at",
    "decision_note", "updated_at", "uncovered", "checklist", "verification",
]
JSON_FIELDS = {"score_history", "open_must_fix", "needs_from_human", "deviations", "models",
               "uncovered", "checklist"}


def now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def now_precise() -> str:
    # Batches are compared for overlap: seconds are too coarse for that.
    return datetime.now(UTC).isoformat(timespec="milliseconds")


def _m001_runs(db: sqlite3.Connection) -> None:
    db.execute("""
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
        )""")
    db.execute("CREATE INDEX runs_brief ON runs (brief_id)")
    db.execute("CREATE INDEX runs_status ON runs (status)")


def _m002_outbox(db: sqlite3.Connection) -> None:
    # Every change of a run bumps its version; a sink has taken a run once it has
    # recorded that version here. Rows with a newer version are the outbox.
    db.execute("ALTER TABLE runs ADD COLUMN version INTEGER NOT NULL DEFAULT 1")
    db.execute("""
        CREATE TABLE sink_sync (
            sink TEXT NOT NULL,
            run_id TEXT NOT NULL,
            version INTEGER NOT NULL,
            synced_at TEXT NOT NULL,
            PRIMARY KEY (sink, run_id)
        )""")


def _m003_decisions(db: sqlite3.Connection) -> None:
    # Who approved, rejected or sent back a text, when, and their reason or notes.
    for column in ("decided_by", "decided_at", "decision_note"):
        db.execute(f"ALTER TABLE runs ADD COLUMN {column} TEXT")


def _m004_batches(db: sqlite3.Connection) -> None:
    # One row per batch (manual or scheduled): when it ran and how it ended.
    db.execute("""
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
        )""")


def _m005_checklist(db: sqlite3.Connection) -> None:
    # What the brief asks, as checked by code ("R1 fact: ..."), and which items the text
    # written does not cover.
    db.execute("ALTER TABLE runs ADD COLUMN checklist TEXT NOT NULL DEFAULT '[]'")
    db.execute("ALTER TABLE runs ADD COLUMN uncovered TEXT NOT NULL DEFAULT '[]'")


def _m006_verification(db: sqlite3.Connection) -> None:
    # What was verified by running code (API docs: the examples run and how many gave
    # the result shown), or why nothing was run.
    db.execute("ALTER TABLE runs ADD COLUMN verification TEXT NOT NULL DEFAULT ''")


# Ordered: a database at user_version N has had the first N applied.
MIGRATIONS: list[Callable[[sqlite3.Connection], None]] = [
    _m001_runs, _m002_outbox, _m003_decisions, _m004_batches, _m005_checklist,
    _m006_verification,
]


def migrate(db: sqlite3.Connection) -> None:
    version = db.execute("PRAGMA user_version").fetchone()[0]
    for index, migration in enumerate(MIGRATIONS[version:], start=version + 1):
        with db:
            migration(db)
            db.execute(f"PRAGMA user_version = {index}")


def _row_to_record(row: sqlite3.Row) -> dict[str, Any]:
    rec = dict(row)
    for key in JSON_FIELDS:
        if key in rec and isinstance(rec[key], str):
            rec[key] = json.loads(rec[key])
    return rec


_NOT_STORE_FAULTS = (sqlite3.IntegrityError, sqlite3.ProgrammingError,
                     sqlite3.InterfaceError, sqlite3.NotSupportedError)


def store_failure(e: BaseException, folder: Path) -> StoreError | None:
    """The error to show a person for an SQLite fault of the disk or the file (full, I/O
    error, read-only, not a database), or None for anything else (a bug)."""
    if not isinstance(e, sqlite3.DatabaseError) or isinstance(e, _NOT_STORE_FAULTS):
        return None
    return StoreError(
        f"cannot use the state databases in {folder} ({e}): free some space there or fix "
        f"the disk, then run the same command again; what was saved before this is kept "
        f"(finished briefs, outputs, each thread's last checkpoint) and a rerun resumes")


class RunLog:
    def __init__(self, path: Path):
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self._db = sqlite3.connect(path, check_same_thread=False, timeout=30)
        self._db.row_factory = sqlite3.Row
        self._db.execute("PRAGMA journal_mode = WAL")
        self._db.execute("PRAGMA synchronous = NORMAL")  # see batch.resources.open_checkpointer
        self._db.execute("PRAGMA busy_timeout = 30000")
        self._lock = threading.Lock()
        with self._lock:
            migrate(self._db)

    def __enter__(self) -> RunLog:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self._db.close()

    @contextmanager
    def _tx(self) -> Iterator[sqlite3.Connection]:
        with self._lock, self._db:
            yield self._db

    def by_thread(self, thread_id: str) -> dict[str, Any] | None:
        with self._lock:
            row = self._db.execute("SELECT * FROM runs WHERE thread_id = ?",
                                   (thread_id,)).fetchone()
        return _row_to_record(row) if row else None

    def by_run(self, run_id: str) -> dict[str, Any] | None:
        with self._lock:
            row = self._db.execute("SELECT * FROM runs WHERE run_id = ?", (run_id,)).fetchone()
        return _row_to_record(row) if row else None

    def newer_of_brief(self, thread_id: str) -> dict[str, Any] | None:
        """The latest run of the same brief id started after this thread (a changed
        brief, or --rerun), or None. Rows are inserted when a thread starts, so rowid
        order is start order even within one second."""
        with self._lock:
            row = self._db.execute(
                "SELECT newer.* FROM runs AS this JOIN runs AS newer "
                "ON newer.brief_id = this.brief_id AND newer.rowid > this.rowid "
                # a brief that could not be read (a bad-… row) replaces no text
                "AND newer.thread_id NOT LIKE 'bad-%' "
                "WHERE this.thread_id = ? ORDER BY newer.rowid DESC LIMIT 1",
                (thread_id,)).fetchone()
        return _row_to_record(row) if row else None

    def all(self, status: str | None = None) -> list[dict[str, Any]]:
        sql, args = "SELECT * FROM runs", ()
        if status:
            sql, args = sql + " WHERE status = ?", (status,)
        with self._lock:
            rows = self._db.execute(sql + " ORDER BY started_at, run_id", args).fetchall()
        return [_row_to_record(r) for r in rows]

    def upsert(self, thread_id: str, **fields: Any) -> dict[str, Any]:
        """Create the thread's run row or update it in place; returns the whole record."""
        unknown = set(fields) - set(FIELDS)
        if unknown:
            raise KeyError(f"unknown run fields: {sorted(unknown)}")
        values = {k: json.dumps(v, ensure_ascii=False) if k in JSON_FIELDS else v
                  for k, v in fields.items()}
        values["updated_at"] = now()
        with self._tx() as db:
            exists = db.execute("SELECT run_id FROM runs WHERE thread_id = ?",
                                (thread_id,)).fetchone()
            if exists:
                assignments = ", ".join(f"{k} = ?" for k in values)
                db.execute(f"UPDATE runs SET {assignments}, version = version + 1 "
                           f"WHERE thread_id = ?", (*values.values(), thread_id))
            else:
                values.setdefault("run_id", "r-" + uuid.uuid4().hex[:12])
                values.setdefault("started_at", now())
                values.setdefault("brief_id", "")
                values.setdefault("status", "running")
                values["thread_id"] = thread_id
                cols = ", ".join(values)
                marks = ", ".join("?" for _ in values)
                db.execute(f"INSERT INTO runs ({cols}) VALUES ({marks})", tuple(values.values()))
            row = db.execute("SELECT * FROM runs WHERE thread_id = ?", (thread_id,)).fetchone()
        return _row_to_record(row)

    # -- batches ----------------------------------------------------------------------
    def batch_started(self, source: str, job: str | None = None) -> int:
        with self._tx() as db:
            cur = db.execute(
                "INSERT INTO batches (job, source, pid, started_at, status) "
                "VALUES (?, ?, ?, ?, 'running')", (job, source, os.getpid(), now_precise()))
            return int(cur.lastrowid)

    def batch_finished(self, batch_id: int, status: str, counts: dict[str, int],
                       message: str | None = None) -> None:
        with self._tx() as db:
            db.execute("UPDATE batches SET ended_at = ?, status = ?, counts = ?, message = ? "
                       "WHERE id = ?", (now_precise(), status, json.dumps(counts), message,
                                        batch_id))

    def batches(self, job: str | None = None) -> list[dict[str, Any]]:
        sql, args = "SELECT * FROM batches", ()
        if job is not None:
            sql, args = sql + " WHERE job = ?", (job,)
        with self._lock:
            rows = self._db.execute(sql + " ORDER BY id", args).fetchall()
        return [{**dict(r), "counts": json.loads(r["counts"])} for r in rows]

    # -- the outbox of the spreadsheet views ----------------------------------------------
    def pending(self, sink: str) -> list[dict[str, Any]]:
        """Runs the sink has not taken in their current version."""
        with self._lock:
            rows = self._db.execute(
                """SELECT r.* FROM runs r
                   LEFT JOIN sink_sync s ON s.sink = ? AND s.run_id = r.run_id
                   WHERE s.version IS NULL OR s.version < r.version
                   ORDER BY r.started_at, r.run_id""", (sink,)).fetchall()
        return [_row_to_record(r) for r in rows]

    def forget_synced(self, sink: str) -> None:
        """Make every run pending again for this sink (e.g. its file was deleted)."""
        with self._tx() as db:
            db.execute("DELETE FROM sink_sync WHERE sink = ?", (sink,))

    def mark_synced(self, sink: str, records: list[dict[str, Any]]) -> None:
        with self._tx() as db:
            db.executemany(
                """INSERT INTO sink_sync (sink, run_id, version, synced_at) VALUES (?, ?, ?, ?)
                   ON CONFLICT (sink, run_id) DO UPDATE SET
                   version = max(version, excluded.version), synced_at = excluded.synced_at""",
                [(sink, r["run_id"], r["version"], now()) for r in records])
