"""The run log: one row per run, the system of record (SQLite, or PostgreSQL for a
cluster; the schema is batch.store.schema).

Spreadsheets are views synced from here. A run is one brief's thread; its row is
updated in place as the run moves on (running -> awaiting_human -> approved_by_human),
so re-running never adds a second row for the same thread.
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import sqlalchemy as sa

from batch.check_types import ChecklistFix
from batch.config import mask_credentials
from batch.draft_cleanup import encodable
from batch.errors import BriefloopError, StoreError
from batch.outcomes import AWAITING, STOP_REASONS
from batch.store.run_columns import INTERNAL, JSON, names_of, sheet_order
from batch.store.schema import (
    RUN_COLUMN_DOCS,
    actions,
    batch_runs,
    batches,
    checklist_fixes,
    marks,
    migrate,
    model_calls,
    runs,
    secrets,
    sink_sync,
    tasks,
    used_links,
)
from batch.store.sqlite_wal import use_wal

# Fields in the order the spreadsheet views show them (batch.store.run_columns).
FIELDS: list[str] = sheet_order()
JSON_FIELDS = frozenset(names_of(JSON))
# Bookkeeping of the run log itself, not shown in the sheets.
INTERNAL_FIELDS = tuple(names_of(INTERNAL))


def round_seconds(seconds: float) -> float:
    return round(float(seconds), 3)


def column_reference() -> str:
    """The run-log columns as a Markdown table, in the sheets' order, then the ones the
    sheets leave out: docs/run-log.md's reference, generated (tests/project/test_docs.py)."""
    lines = ["| column | what it holds |", "|---|---|"]
    for name in [*FIELDS, *INTERNAL_FIELDS]:
        kind = (
            ""
            if name not in JSON_FIELDS
            else " (JSON object)"
            if name == "models"
            else " (JSON list)"
        )
        where = "; not in the sheets" if name in INTERNAL_FIELDS else ""
        lines.append(f"| `{name}` | {RUN_COLUMN_DOCS[name]}{kind}{where} |")
    return "\n".join(lines) + "\n"


def now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def now_precise(seconds_ago: float = 0.0) -> str:
    """Now (or that many seconds before), to the millisecond: batches are compared for
    overlap, and the ledger orders the many tasks one enqueuer sends a second."""
    return (datetime.now(UTC) - timedelta(seconds=seconds_ago)).isoformat(timespec="milliseconds")


def _record(row: sa.Row | dict[str, Any]) -> dict[str, Any]:
    rec = dict(row) if isinstance(row, dict) else dict(row._mapping)
    for key in JSON_FIELDS:
        if key in rec and isinstance(rec[key], str):
            rec[key] = json.loads(rec[key])
    return rec


def _sqlite_fault(e: BaseException) -> sqlite3.DatabaseError | None:
    orig = getattr(e, "orig", e)  # SQLAlchemy wraps the driver's error
    if not isinstance(orig, sqlite3.DatabaseError) or isinstance(orig, _NOT_STORE_FAULTS):
        return None
    return orig


_NOT_STORE_FAULTS = (
    sqlite3.IntegrityError,
    sqlite3.ProgrammingError,
    sqlite3.InterfaceError,
    sqlite3.NotSupportedError,
)


def store_failure(e: BaseException, folder: Path) -> StoreError | None:
    """The error to show a person for a fault of the store: an SQLite fault of the disk
    or the file (full, I/O error, read-only, not a database), or a PostgreSQL server that
    cannot be reached; None for anything else (a bug)."""
    fault = _sqlite_fault(e)
    if fault is not None:
        return StoreError(
            f"cannot use the state databases in {folder} ({fault}): free some space there "
            f"or fix the disk, then run the same command again; what was saved before this "
            f"is kept (finished briefs, outputs, each thread's last checkpoint) and a rerun "
            f"resumes"
        )
    if is_unreachable(e):
        return StoreError(
            f"the database cannot be reached (PostgreSQL: {_first_line(e)}): "
            f"start it or fix [store] dsn, then run the same command again; "
            f"what was committed is kept and a rerun resumes"
        )
    return None


def is_unreachable(e: BaseException) -> bool:
    """A PostgreSQL connection that failed or broke (server down, restarting, network):
    worth retrying, unlike a bug in a query."""
    try:
        import psycopg
        import psycopg_pool
    except ImportError:
        return False
    orig = getattr(e, "orig", None)
    if isinstance(e, sa.exc.DBAPIError) and e.connection_invalidated:
        return True
    return isinstance(
        orig if orig is not None else e,
        psycopg.OperationalError | psycopg.InterfaceError | psycopg_pool.PoolTimeout,
    )


def _first_line(e: BaseException) -> str:
    """The first line of what the driver said, credentials masked: a connection error
    may quote the DSN."""
    text = str(getattr(e, "orig", None) or e).strip()
    return mask_credentials(text.splitlines()[0])[:300] if text else e.__class__.__name__


def sqlite_engine(path: Path) -> sa.Engine:
    path.parent.mkdir(parents=True, exist_ok=True)
    engine = sa.create_engine(
        f"sqlite:///{path}", connect_args={"timeout": 30, "check_same_thread": False}
    )

    @sa.event.listens_for(engine, "connect")
    def _pragmas(dbapi_connection: sqlite3.Connection, _record: Any) -> None:
        use_wal(dbapi_connection)
        # see batch.store.open_sqlite_checkpointer
        dbapi_connection.execute("PRAGMA synchronous = NORMAL")
        dbapi_connection.execute("PRAGMA busy_timeout = 30000")

    return engine


# batches.id is an INTEGER: 32 bits in PostgreSQL
MAX_BATCH_ID = 2**31 - 1


def _run_filters(outcome: str | None, brief: str | None) -> list[Any]:
    """The conditions of a runs view: how it ended (a stop reason, `awaiting_human`, or
    `failed`), and a text its brief id or title holds, in any case."""
    out: list[Any] = []
    if outcome == "failed":
        out.append(runs.c.status == "failed")
    elif outcome:
        out.append(runs.c.stop_reason == outcome)
    if brief:
        out.append(sa.or_(holds(runs.c.brief_id, brief), holds(runs.c.title, brief)))
    return out


def holds(column: Any, text: str) -> Any:
    """`column` holds `text`, in any case, its % and _ taken as themselves."""
    escaped = "".join("\\" + c if c in "\\%_" else c for c in text)
    return column.ilike(f"%{escaped}%", escape="\\")


class RunLog:
    """The run log over a SQLite file (a path) or any SQLAlchemy engine (PostgreSQL)."""

    def __init__(self, target: Path | sa.Engine):
        self.engine = sqlite_engine(target) if isinstance(target, Path) else target
        self.path = target if isinstance(target, Path) else None
        # SQLite takes one writer at a time anyway; queueing this process's writers here
        # keeps them off its busy handler. PostgreSQL takes them side by side.
        self._write_lock = (
            threading.Lock() if self.engine.dialect.name == "sqlite" else contextlib.nullcontext()
        )
        migrate(self.engine)

    def __enter__(self) -> RunLog:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self.engine.dispose()

    @contextmanager
    def _tx(self) -> Iterator[sa.Connection]:
        with self._write_lock, self.engine.begin() as conn:
            yield conn

    def records(self, query: sa.Executable) -> list[dict[str, Any]]:
        """The run records a SELECT on `runs` returns, JSON fields decoded."""
        with self.engine.connect() as conn:
            return [_record(r) for r in conn.execute(query)]

    def by_thread(self, thread_id: str) -> dict[str, Any] | None:
        found = self.records(sa.select(runs).where(runs.c.thread_id == thread_id))
        return found[0] if found else None

    def thread_named(self, ref: str) -> str:
        """The thread `ref` names: a thread id, or a brief id that exactly one thread
        ran (a brief run again names its threads, for the person to choose).
        BriefloopError otherwise."""
        if self.by_thread(ref) is not None:
            return ref
        found = self.records(sa.select(runs).where(runs.c.brief_id == ref).order_by(runs.c.seq))
        if len(found) == 1:
            return found[0]["thread_id"]
        if not found:
            raise BriefloopError(f"no thread or brief {ref!r} (briefloop runs lists them)")
        listed = "; ".join(
            f"{r['thread_id']} ({r.get('stop_reason') or r.get('status') or '?'}, "
            f"{str(r.get('started_at') or '')[:16]})"
            for r in found
        )
        raise BriefloopError(f"brief {ref!r} has {len(found)} threads: name one of them: {listed}")

    def newer_of_brief(self, thread_id: str) -> dict[str, Any] | None:
        """The latest run of the same brief id started after this thread (a changed
        brief, or --rerun), or None. `seq` is the start time in nanoseconds, set when
        the row is inserted, so it orders starts even within one second."""
        this, newer = runs.alias("this"), runs.alias("newer")
        query = (
            sa.select(newer)
            .join(
                this,
                sa.and_(
                    newer.c.brief_id == this.c.brief_id,
                    newer.c.seq > this.c.seq,
                    # a brief that could not be read replaces no text
                    newer.c.thread_id.not_like("bad-%"),
                ),
            )
            .where(this.c.thread_id == thread_id)
            .order_by(newer.c.seq.desc())
            .limit(1)
        )
        found = self.records(query)
        return found[0] if found else None

    def origins_of(self, brief_id: str) -> list[str]:
        """Every place runs of `brief_id` came from (their `source`), oldest first."""
        query = (
            sa.select(runs.c.source, sa.func.min(runs.c.seq).label("first"))
            .where(runs.c.brief_id == brief_id)
            .group_by(runs.c.source)
            .order_by("first")
        )
        with self.engine.connect() as conn:
            return [str(row[0]) for row in conn.execute(query) if row[0]]

    def make_current(self, thread_id: str) -> None:
        """Make `thread_id` its brief's newest run, as if it started now (a brief put back
        to this version after another version ran): `newer_of_brief` names it for every
        other run of the brief, and none for it."""
        with self._tx() as conn:
            conn.execute(
                sa.update(runs)
                .where(runs.c.thread_id == thread_id)
                .values(seq=next_seq(), updated_at=now(), version=runs.c.version + 1)
            )

    def all(
        self, status: str | None = None, outcome: str | None = None, brief: str | None = None
    ) -> list[dict[str, Any]]:
        """Every run, in start order; `outcome` and `brief` filter as in runs_of_batch."""
        query = sa.select(runs).order_by(runs.c.started_at, runs.c.run_id)
        if status:
            query = query.where(runs.c.status == status)
        return self.records(query.where(*_run_filters(outcome, brief)))

    def retries_of(self, thread_id: str) -> list[dict[str, Any]]:
        """The runs that are new attempts of `thread_id`, oldest first."""
        return self.records(
            sa.select(runs).where(runs.c.retry_of == thread_id).order_by(runs.c.seq)
        )

    def latest_retry(self, thread_id: str) -> dict[str, Any] | None:
        """The newest attempt down the chain of retries from `thread_id` (a retry of a
        retry counts), or None when it was never retried."""
        found, seen = None, {thread_id}
        while True:
            tries = self.retries_of(found["thread_id"] if found else thread_id)
            if not tries or tries[-1]["thread_id"] in seen:
                return found
            found = tries[-1]
            seen.add(found["thread_id"])

    # -- actions over several stores (see batch.store.schema.actions) --------------------
    def action_begun(self, thread_id: str, kind: str, payload: dict[str, Any]) -> int:
        """Record an action before its first step; its id, to end it with."""
        with self.engine.begin() as conn:
            result = conn.execute(
                actions.insert().values(
                    thread_id=thread_id,
                    kind=kind,
                    payload=json.dumps(payload, ensure_ascii=False),
                    started_at=now_precise(),
                )
            )
            return int(result.inserted_primary_key[0])  # type: ignore[index]  # an INSERT

    def action_ended(self, action_id: int) -> None:
        with self.engine.begin() as conn:
            conn.execute(actions.delete().where(actions.c.id == action_id))

    def open_actions(self, thread_id: str | None = None) -> list[dict[str, Any]]:
        """The actions begun and not ended (all, or one thread's), oldest first."""
        query = sa.select(actions).order_by(actions.c.id)
        if thread_id is not None:
            query = query.where(actions.c.thread_id == thread_id)
        with self.engine.connect() as conn:
            rows = conn.execute(query).mappings().all()
        return [{**row, "payload": json.loads(row["payload"])} for row in rows]

    def upsert(self, thread_id: str, **fields: Any) -> dict[str, Any]:
        """Create the thread's run row or update it in place; returns the whole record."""
        unknown = set(fields) - {*FIELDS, "batch_id"}
        if unknown:
            raise KeyError(f"unknown run fields: {sorted(unknown)}")
        # whatever a field holds (a model's answer, an error's message), the database
        # can store it: a NUL in text would make PostgreSQL refuse the whole row
        values = {
            k: json.dumps(v, ensure_ascii=False) if k in JSON_FIELDS else encodable(v)
            for k, v in fields.items()
        }
        values["updated_at"] = now()
        update = (
            sa.update(runs)
            .where(runs.c.thread_id == thread_id)
            .values(**values, version=runs.c.version + 1)
        )
        with self._tx() as conn:
            # Update first: a write from the start, so SQLite never has to upgrade a
            # read transaction (which fails at once when another writer got in between).
            if conn.execute(update).rowcount == 0:
                row = {
                    "run_id": "r-" + uuid.uuid4().hex[:12],
                    "started_at": now(),
                    "brief_id": "",
                    "status": "running",
                    **values,
                    "thread_id": thread_id,
                    "seq": next_seq(),
                }
                inserted = conn.execute(
                    _insert(conn, runs)
                    .values(**row)
                    .on_conflict_do_nothing(index_elements=["thread_id"])
                    .returning(runs.c.run_id)
                ).first()
                if not inserted:  # another process inserted it a moment ago
                    conn.execute(update)
            found = conn.execute(sa.select(runs).where(runs.c.thread_id == thread_id)).one()
        return _record(found)

    # -- model calls ----------------------------------------------------------------------
    def record_call(
        self,
        thread_id: str,
        *,
        node: str,
        round: int | None,
        role: str,
        model: str,
        host: str,
        attempt: int,
        messages: list[dict[str, str]],
        answer: str,
        seconds: float,
        input_tokens: int,
        output_tokens: int,
        problem: str,
    ) -> None:
        """One model call of a thread, as it happened (batch.models.journal)."""
        row = {
            "thread_id": thread_id,
            "at": now(),
            "node": node,
            "round": round,
            "role": role,
            "model": model,
            "host": encodable(host),
            "attempt": attempt,
            "messages": json.dumps(encodable(messages), ensure_ascii=False),
            "answer": encodable(answer),
            "seconds": round_seconds(seconds),
            "input_tokens": input_tokens,
            "output_tokens": output_tokens,
            "problem": encodable(problem),
        }
        with self._tx() as conn:
            conn.execute(sa.insert(model_calls).values(**row))

    def calls(self, thread_id: str) -> list[dict[str, Any]]:
        """A thread's model calls in the order they were made, messages decoded."""
        query = (
            sa.select(model_calls)
            .where(model_calls.c.thread_id == thread_id)
            .order_by(model_calls.c.id)
        )
        with self._tx() as conn:
            rows = [dict(r._mapping) for r in conn.execute(query)]
        for row in rows:
            row["messages"] = json.loads(row["messages"] or "[]")
        return rows

    def call_totals(
        self, thread_id: str
    ) -> tuple[dict[str, Any] | None, list[tuple[str, int, float]]]:
        """The run-log totals of a thread's journaled calls (every call made, a failed
        node's and a retried one's too; None when none was journaled), and their model
        seconds by node and round (the run log's `time_split`): one query for both."""
        c = model_calls.c
        query = (
            sa.select(
                c.node,
                c.round,
                sa.func.count(),
                sa.func.sum(c.input_tokens),
                sa.func.sum(c.output_tokens),
                sa.func.sum(c.seconds),
            )
            .where(c.thread_id == thread_id)
            .group_by(c.node, c.round)
        )
        with self._tx() as conn:
            groups = conn.execute(query).all()
        by_step = [(str(n), int(r or 0), float(s or 0.0)) for n, r, _, _, _, s in groups]
        count = sum(int(g[2]) for g in groups)
        if not count:
            return None, by_step
        return {
            "model_calls": count,
            "input_tokens": sum(int(g[3] or 0) for g in groups),
            "output_tokens": sum(int(g[4] or 0) for g in groups),
            "model_seconds": round_seconds(sum(s for _, _, s in by_step)),
        }, by_step

    def forget_calls(self, thread_ids: list[str]) -> int:
        """Delete the model calls of these threads (retention); returns rows deleted."""
        deleted = 0
        with self._tx() as conn:
            for start in range(0, len(thread_ids), 500):
                chunk = thread_ids[start : start + 500]
                deleted += conn.execute(
                    sa.delete(model_calls).where(model_calls.c.thread_id.in_(chunk))
                ).rowcount
        return deleted

    def secret(self, name: str) -> bytes:
        """The project's secret `name`: 32 random bytes made by the first process that
        asks, the same for every process that shares this database."""
        with self._tx() as conn:
            conn.execute(
                _insert(conn, secrets)
                .values(name=name, value=os.urandom(32).hex(), created_at=now())
                .on_conflict_do_nothing(index_elements=["name"])
            )
            value = conn.execute(
                sa.select(secrets.c.value).where(secrets.c.name == name)
            ).scalar_one()
        return bytes.fromhex(value)

    def mark(self, name: str) -> str:
        """A time (or any short value) kept between runs under `name`; "" when none."""
        with self.engine.connect() as conn:
            found = conn.execute(sa.select(marks.c.value).where(marks.c.name == name)).scalar()
        return str(found or "")

    def take_link(self, signature: str, thread_id: str) -> str:
        """Record a one-tap link as used: "" when this call took it, else when it was
        taken before (the first of two racing calls wins)."""
        with self._tx() as conn:
            taken = conn.execute(
                _insert(conn, used_links)
                .values(signature=signature, thread_id=thread_id, used_at=now())
                .on_conflict_do_nothing(index_elements=["signature"])
            ).rowcount
            if taken:
                return ""
            return str(
                conn.execute(
                    sa.select(used_links.c.used_at).where(used_links.c.signature == signature)
                ).scalar_one()
            )

    def give_back_link(self, signature: str) -> None:
        """Undo `take_link` when the approval it was taken for did not happen."""
        with self._tx() as conn:
            conn.execute(sa.delete(used_links).where(used_links.c.signature == signature))

    def link_used(self, signature: str) -> str:
        """When a one-tap link was used; "" when it was not."""
        with self.engine.connect() as conn:
            found = conn.execute(
                sa.select(used_links.c.used_at).where(used_links.c.signature == signature)
            ).scalar()
        return str(found or "")

    # -- a person's fixes to a brief's checklist as read ---------------------------------
    def add_fix(self, brief_id: str, thread_id: str, fix: ChecklistFix) -> None:
        """Keep a fix for the brief's later runs (and as a labelled example)."""
        with self._tx() as conn:
            conn.execute(
                sa.insert(checklist_fixes).values(
                    brief_id=brief_id,
                    thread_id=thread_id,
                    item=fix["item"],
                    read=fix["read"],
                    was=fix["was"],
                    action=fix["action"],
                    kind=fix["kind"],
                    value=fix["value"],
                    by=fix.get("by") or "",
                    at=fix.get("at") or now(),
                )
            )

    def fixes(self, brief_id: str | None = None) -> list[dict[str, Any]]:
        """The fixes kept, oldest first: a brief's (by its id), or every one."""
        query = sa.select(checklist_fixes).order_by(checklist_fixes.c.id)
        if brief_id is not None:
            query = query.where(checklist_fixes.c.brief_id == brief_id)
        with self.engine.connect() as conn:
            return [dict(r._mapping) for r in conn.execute(query)]

    def set_mark(self, name: str, value: str) -> None:
        with self._tx() as conn:
            conn.execute(
                _insert(conn, marks)
                .values(name=name, value=value)
                .on_conflict_do_update(index_elements=["name"], set_={"value": value})
            )

    # -- batches ----------------------------------------------------------------------
    def batch_started(self, source: str, job: str | None = None, status: str = "running") -> int:
        with self._tx() as conn:
            result = conn.execute(
                sa.insert(batches).values(
                    job=job, source=source, pid=os.getpid(), started_at=now_precise(), status=status
                )
            )
            return int(result.inserted_primary_key[0])  # type: ignore[index]  # an INSERT

    def batch_finished(
        self,
        batch_id: int,
        status: str,
        counts: dict[str, int],
        message: str | None = None,
        only_open: bool = False,
    ) -> bool:
        """Close the batch; with `only_open`, only if nobody closed it yet (returns
        whether this call did)."""
        query = (
            sa.update(batches)
            .where(batches.c.id == batch_id)
            .values(
                ended_at=now_precise(), status=status, counts=json.dumps(counts), message=message
            )
        )
        if only_open:
            query = query.where(batches.c.ended_at.is_(None))
        with self._tx() as conn:
            return conn.execute(query).rowcount == 1

    def close_abandoned_batches(self) -> list[int]:
        """Close, as failed, every batch still running or enqueueing. Called under the
        batch lock, when no other process can be doing either, so such a batch is one
        whose process died or lost its database before it could close it. (A queued
        batch is the workers' to close.) The briefs it queued run on; the ones it did
        not reach are the next batch's. Returns their ids."""
        query = sa.select(batches.c.id, batches.c.status, batches.c.counts).where(
            batches.c.ended_at.is_(None), batches.c.status.in_(("running", "enqueueing"))
        )
        with self.engine.connect() as conn:
            found = list(conn.execute(query))
        closed = []
        for batch_id, status, counts in found:
            message = (
                f"stopped while {status}: its process ended or lost the database "
                f"before it could close the batch (found by the next batch, which "
                f"takes up what it left)"
            )
            if self.batch_finished(batch_id, "failed", json.loads(counts), message, only_open=True):
                closed.append(batch_id)
        return closed

    def batches(self, job: str | None = None) -> list[dict[str, Any]]:
        query = sa.select(batches).order_by(batches.c.id)
        if job is not None:
            query = query.where(batches.c.job == job)
        return self._batch_rows(query)

    def latest_batches(
        self, limit: int | None = 20, offset: int = 0, between: tuple[str, str] | None = None
    ) -> tuple[list[dict[str, Any]], int]:
        """A page of the batches, newest first (limit None: all), and how many there are
        in all; `between`: only those started from the first UTC time to the second."""
        where = (
            []
            if between is None
            else [
                sa.func.substr(batches.c.started_at, 1, 19) >= between[0],
                sa.func.substr(batches.c.started_at, 1, 19) < between[1],
            ]
        )
        query = (
            sa.select(batches)
            .where(*where)
            .order_by(batches.c.id.desc())
            .limit(limit)
            .offset(offset)
        )
        with self.engine.connect() as conn:
            total = conn.execute(
                sa.select(sa.func.count()).select_from(batches).where(*where)
            ).scalar_one()
        return self._batch_rows(query), total

    def runs_of_batch(
        self,
        batch_id: int,
        outcome: str | None = None,
        brief: str | None = None,
        limit: int | None = 50,
        offset: int = 0,
        row: dict[str, Any] | None = None,
    ) -> tuple[list[dict[str, Any]], int]:
        """A page of the runs a batch ran, in start order, and how many match in all.
        `outcome`: a stop reason (`awaiting_human` too) or `failed`; `brief`: part of
        the brief id or the title, in any case. A run from before batches were kept
        with their runs is placed in the batch whose time span holds its last change.
        `row`: the batch's own row, when the caller has it at hand."""
        row = row or self.batch(batch_id)
        if row is None:
            return [], 0
        queued = sa.select(tasks.c.thread_id).where(tasks.c.batch_id == batch_id)
        # to the second: the runs' times and the batches' are written to different precisions
        changed = sa.func.substr(runs.c.updated_at, 1, 19)
        until = (row.get("ended_at") or now_precise())[:19]
        where = sa.or_(
            runs.c.batch_id == batch_id,
            runs.c.thread_id.in_(queued),
            sa.and_(
                runs.c.batch_id.is_(None),
                ~runs.c.thread_id.in_(sa.select(tasks.c.thread_id)),
                changed >= row["started_at"][:19],
                changed <= until,
            ),
        )
        where = sa.and_(where, *_run_filters(outcome, brief))
        query = (
            sa.select(runs)
            .where(where)
            .order_by(runs.c.seq, runs.c.run_id)
            .limit(limit)
            .offset(offset)
        )  # limit None: every one
        with self.engine.connect() as conn:
            total = conn.execute(
                sa.select(sa.func.count()).select_from(runs).where(where)
            ).scalar_one()
        return self.records(query), total

    def batch_counted(
        self, batch_id: int, thread_id: str, brief_id: str, outcome: str, seconds: float = 0.0
    ) -> None:
        """One brief the batch counted, as the outcome it counted it as."""
        with self._tx() as conn:
            conn.execute(
                sa.insert(batch_runs).values(
                    batch_id=batch_id,
                    thread_id=thread_id,
                    brief_id=encodable(brief_id),
                    outcome=outcome,
                    seconds=round_seconds(seconds),
                    at=now_precise(),
                )
            )

    def counted_runs(
        self,
        batch_id: int,
        outcome: str | None = None,
        brief: str | None = None,
        limit: int | None = 50,
        offset: int = 0,
    ) -> tuple[list[dict[str, Any]], int] | None:
        """A page of the briefs a batch counted, in the order it counted them, each its
        run's record (if it has one) with `counted` (the outcome the batch counted) and
        `batch_seconds` (its time in this batch); and how many match in all. `outcome`
        filters by the counted outcome (the batch's counts are of those), `brief` as in
        `_run_filters`. None for a batch from before its briefs were kept."""
        with self.engine.connect() as conn:
            kept = conn.execute(
                sa.select(sa.func.count())
                .select_from(batch_runs)
                .where(batch_runs.c.batch_id == batch_id)
            ).scalar_one()
        if not kept:
            return None
        joined = batch_runs.outerjoin(runs, runs.c.thread_id == batch_runs.c.thread_id)
        where = [batch_runs.c.batch_id == batch_id]
        if outcome:
            where.append(batch_runs.c.outcome == outcome)
        if brief:
            where.append(sa.or_(holds(batch_runs.c.brief_id, brief), holds(runs.c.title, brief)))
        query = (
            sa.select(
                batch_runs.c.thread_id.label("counted_thread"),
                batch_runs.c.brief_id.label("counted_brief"),
                batch_runs.c.outcome.label("counted"),
                batch_runs.c.seconds.label("batch_seconds"),
                *runs.c,
            )
            .select_from(joined)
            .where(*where)
            .order_by(batch_runs.c.id)
            .limit(limit)
            .offset(offset)
        )
        with self.engine.connect() as conn:
            total = conn.execute(
                sa.select(sa.func.count()).select_from(joined).where(*where)
            ).scalar_one()
            rows = [dict(r._mapping) for r in conn.execute(query)]
        out = []
        for row in rows:
            extra = {
                k: row.pop(k)
                for k in ("counted_thread", "counted_brief", "counted", "batch_seconds")
            }
            record = _record(row) if row.get("run_id") else {}
            record.setdefault("thread_id", extra["counted_thread"])
            if not record.get("brief_id"):
                record["brief_id"] = extra["counted_brief"]
            out.append(
                {**record, "counted": extra["counted"], "batch_seconds": extra["batch_seconds"]}
            )
        return out, total

    def runs_counted(
        self,
        row: dict[str, Any],
        outcome: str | None = None,
        brief: str | None = None,
        limit: int | None = 50,
        offset: int = 0,
    ) -> tuple[list[dict[str, Any]], int]:
        """A batch's runs (`row`: its batches row): every brief it counted, filtered by
        the outcome it counted (its counts are of those); or, for a batch from before
        those were kept, the runs it ran, filtered by how they ended."""
        counted = self.counted_runs(row["id"], outcome, brief, limit, offset)
        if counted is not None:
            return counted
        ended = outcome if outcome in (*STOP_REASONS, AWAITING, "failed") else None
        return self.runs_of_batch(row["id"], ended, brief, limit, offset, row=row)

    def resolve_batch(self, which: str) -> dict[str, Any] | None:
        """A batch by its id, or `last`: the newest."""
        if which == "last":
            found = self._batch_rows(sa.select(batches).order_by(batches.c.id.desc()).limit(1))
            return found[0] if found else None
        # ASCII digits only: Python reads "١" (Arabic-Indic one) as 1
        return self.batch(int(which)) if which.isascii() and which.isdigit() else None

    def batch(self, batch_id: int) -> dict[str, Any] | None:
        if not 0 < batch_id <= MAX_BATCH_ID:  # no such batch; the driver would overflow
            return None
        found = self._batch_rows(sa.select(batches).where(batches.c.id == batch_id))
        return found[0] if found else None

    def _batch_rows(self, query: sa.Executable) -> list[dict[str, Any]]:
        with self.engine.connect() as conn:
            rows = [dict(r._mapping) for r in conn.execute(query)]
        return [{**r, "counts": json.loads(r["counts"])} for r in rows]

    # -- the outbox of the spreadsheet views ----------------------------------------------
    def pending(self, sink: str) -> list[dict[str, Any]]:
        """Runs the sink has not taken in their current version."""
        query = (
            sa.select(runs)
            .outerjoin(
                sink_sync, sa.and_(sink_sync.c.sink == sink, sink_sync.c.run_id == runs.c.run_id)
            )
            .where(sa.or_(sink_sync.c.version.is_(None), sink_sync.c.version < runs.c.version))
            .order_by(runs.c.started_at, runs.c.run_id)
        )
        return self.records(query)

    def forget_synced(self, sink: str) -> None:
        """Make every run pending again for this sink (e.g. its file was deleted)."""
        with self._tx() as conn:
            conn.execute(sa.delete(sink_sync).where(sink_sync.c.sink == sink))

    def mark_synced(self, sink: str, records: list[dict[str, Any]]) -> None:
        if not records:
            return
        with self._tx() as conn:
            insert = _insert(conn, sink_sync)
            newest = sa.case(
                (sink_sync.c.version > insert.excluded.version, sink_sync.c.version),
                else_=insert.excluded.version,
            )
            conn.execute(
                insert.on_conflict_do_update(
                    index_elements=["sink", "run_id"],
                    set_={"version": newest, "synced_at": insert.excluded.synced_at},
                ),
                [
                    {
                        "sink": sink,
                        "run_id": r["run_id"],
                        "version": r["version"],
                        "synced_at": now(),
                    }
                    for r in records
                ],
            )


def _insert(conn: sa.Connection, table: sa.Table):
    """INSERT with the engine's ON CONFLICT (both speak it, SQLAlchemy spells it per
    dialect)."""
    if conn.dialect.name == "postgresql":
        from sqlalchemy.dialects.postgresql import insert
    else:
        from sqlalchemy.dialects.sqlite import insert  # type: ignore[assignment]
    return insert(table)


_last_seq = 0
_seq_lock = threading.Lock()


def next_seq() -> int:
    """Nanoseconds since the epoch, strictly increasing within this process."""
    global _last_seq
    with _seq_lock:
        _last_seq = max(time.time_ns(), _last_seq + 1)
        return _last_seq
