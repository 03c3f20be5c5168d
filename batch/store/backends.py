"""Where the state lives, and the locks over it: SQLite files or one PostgreSQL database.

A store is the run log (batch.store.runlog, SQLAlchemy Core over either engine), the
LangGraph checkpointer (SqliteSaver over a file, or PostgresSaver over a psycopg 3
connection pool), and named exclusive locks (a batch, a thread, the spreadsheet sync):

    backend    run log + outboxes + batches   checkpoints          locks
    sqlite     checkpoints/runs.sqlite        checkpoints/*.sqlite flock on files beside them
    postgres   tables in the database         PostgresSaver tables advisory locks

On PostgreSQL the store also holds the model hosts' slots for every process of the
cluster (batch.store.slots), so that `max_parallel` is the cluster's.

Both kinds of lock are released by the system when their holder dies (the kernel closes
the file; PostgreSQL ends the session of a connection that closed), so a crash never
leaves one behind.
"""

from __future__ import annotations

import contextlib
import hashlib
import sqlite3
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import sqlalchemy as sa
from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer
from langgraph.checkpoint.sqlite import SqliteSaver

from batch.config import Settings, mask_credentials
from batch.errors import ConfigError
from batch.store.locks import acquire_polling, file_lock
from batch.store.runlog import RunLog
from batch.store.sqlite_wal import use_wal
from batch.thread_inputs import CHECKPOINT_TYPES

if TYPE_CHECKING:
    from batch.models.hosts import SlotGate
    from batch.store.slots import PostgresSlots

# Advisory lock keys are 64-bit; each name gets its own, prefixed so that another
# application using advisory locks in the same database does not collide with us.
LOCK_PREFIX = "briefloop:"


def row(cursor: Any) -> tuple[Any, ...]:
    """The one row a query gives (a count, a lock's answer): a query that gives none is
    a broken server, said as such."""
    found = cursor.fetchone()
    if found is None:
        raise RuntimeError("the database answered a one-row query with no row")
    return tuple(found)


def one(cursor: Any) -> Any:
    """The one value of the one row a query gives."""
    return row(cursor)[0]


def checkpoint_serde() -> JsonPlusSerializer:
    """LangGraph's serializer, told the types a thread keeps (batch.thread_inputs): they
    come back as themselves; any other type comes back as its fields, and never runs
    code of a module a checkpoint names."""
    return JsonPlusSerializer(allowed_msgpack_modules=CHECKPOINT_TYPES)


def open_sqlite_checkpointer(path: Path) -> SqliteSaver:
    path.parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(path, check_same_thread=False, timeout=30)
    use_wal(conn)  # before setup(), whose own switch does not wait for another process
    saver = SqliteSaver(conn, serde=checkpoint_serde())
    saver.setup()
    # In WAL mode, NORMAL keeps every commit through a process crash (kill -9): only an
    # OS crash or power cut can lose the last few, which a rerun then repeats. FULL
    # (the default) fsyncs every checkpoint and was the largest cost of a batch.
    conn.execute("PRAGMA synchronous = NORMAL")
    return saver


def sqlalchemy_url(dsn: str) -> str:
    """postgresql://… as SQLAlchemy names the psycopg 3 driver."""
    scheme, rest = dsn.split("://", 1)
    return f"postgresql+psycopg://{rest}" if scheme in ("postgresql", "postgres") else dsn


def libpq_dsn(dsn: str) -> str:
    return "postgresql://" + dsn.split("://", 1)[1]


def postgres_engine(dsn: str, **pool: int) -> sa.Engine:
    """A SQLAlchemy engine on `dsn` whose connections are checked before use: one broken
    by a server restart is replaced, not used."""
    return sa.create_engine(sqlalchemy_url(dsn), pool_pre_ping=True, **pool)


def lock_key(name: str) -> int:
    digest = hashlib.sha256((LOCK_PREFIX + name).encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big", signed=True)


class Store:
    """The run log, the checkpointer (opened on first use) and the locks of one
    backend. Subclasses say how each is opened."""

    runlog: RunLog
    where: str  # for messages: the folder or the database

    def __init__(self) -> None:
        self._checkpointer: BaseCheckpointSaver | None = None

    @property
    def checkpointer(self) -> BaseCheckpointSaver:
        if self._checkpointer is None:
            self._checkpointer = self._open_checkpointer()
        return self._checkpointer

    def _open_checkpointer(self) -> BaseCheckpointSaver:
        raise NotImplementedError

    def lock(self, name: str, wait: float = 0.0, what: str = "") -> AbstractContextManager:
        """Hold the exclusive lock `name`, waiting up to `wait` seconds, else LockBusy."""
        raise NotImplementedError

    def thread_lock(self, thread_id: str, wait: float = 0.0) -> AbstractContextManager:
        """The lock one LangGraph thread is advanced under, by a batch, a worker or a
        reviewer."""
        return self.lock(f"thread:{thread_id}", wait, f"thread {thread_id}")

    def model_slots(self) -> SlotGate | None:
        """The model hosts' slots shared with the other processes using this store (a
        cluster's), or None: this process counts its own calls (one machine)."""
        return None

    def close(self) -> None:
        try:
            self.runlog.close()
        finally:
            if self._checkpointer is not None:
                # a sqlite3 connection, or the psycopg pool
                self._checkpointer.conn.close()  # type: ignore[attr-defined]

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class SqliteStore(Store):
    def __init__(self, settings: Settings):
        super().__init__()
        self.folder = settings.checkpoint_path.parent
        self.where = str(self.folder)
        self._checkpoint_path = settings.checkpoint_path
        self.runlog = RunLog(settings.runs_db_path)

    def _open_checkpointer(self) -> SqliteSaver:
        return open_sqlite_checkpointer(self._checkpoint_path)

    def lock(self, name: str, wait: float = 0.0, what: str = "") -> AbstractContextManager:
        if name == "batch":  # where it always was, so an older process still sees it
            path = self.folder / "batch.lock"
        else:
            digest = hashlib.sha256(name.removeprefix("thread:").encode()).hexdigest()[:24]
            kind = "thread" if name.startswith("thread:") else name.replace(":", "-")
            path = self.folder / "locks" / f"{kind}-{digest}.lock"
        return file_lock(path, wait, what or name)


def require_postgres_support() -> None:
    try:
        import psycopg  # noqa: F401
        from langgraph.checkpoint.postgres import PostgresSaver  # noqa: F401
    except ImportError as e:
        raise ConfigError(
            f'[store] backend = "postgres" needs the cluster extra ({e.name} is '
            f"missing): pip install 'briefloop[cluster]'"
        ) from None


class PostgresStore(Store):
    def __init__(self, settings: Settings):
        super().__init__()
        require_postgres_support()
        self.dsn = libpq_dsn(settings.store.dsn or "")
        self.where = f"PostgreSQL at {mask_credentials(self.dsn)}"
        self._pool_size = settings.store.pool_size
        self.engine = postgres_engine(self.dsn, pool_size=2, max_overflow=8)
        self.runlog = RunLog(self.engine)
        self._slots: PostgresSlots | None = None

    def model_slots(self) -> SlotGate:
        if self._slots is None:
            from batch.store.slots import PostgresSlots

            self._slots = PostgresSlots(self.dsn)
        return self._slots

    def close(self) -> None:
        try:
            super().close()
        finally:
            if self._slots is not None:
                self._slots.close()

    def _open_checkpointer(self) -> BaseCheckpointSaver:
        from langgraph.checkpoint.postgres import PostgresSaver
        from psycopg.rows import dict_row
        from psycopg_pool import ConnectionPool

        pool = ConnectionPool(
            self.dsn,
            min_size=1,
            max_size=self._pool_size,
            open=True,
            # what PostgresSaver.from_conn_string sets on its own connection
            kwargs={"autocommit": True, "prepare_threshold": 0, "row_factory": dict_row},
            # a connection broken by a server restart is dropped when it is handed out
            check=ConnectionPool.check_connection,
        )
        # rows as dicts (dict_row)
        saver = PostgresSaver(pool, serde=checkpoint_serde())  # type: ignore[arg-type]
        try:
            # setup() is not safe to run twice at once (it records its migrations by
            # inserting their numbers): one process at a time.
            with self.lock("checkpointer-setup", wait=120.0):
                saver.setup()
        except BaseException:
            pool.close()
            raise
        return saver

    @contextmanager
    def _advisory(self, name: str, wait: float, what: str) -> Iterator[None]:
        import psycopg

        key = lock_key(name)
        # Its own connection, held as long as the lock: the lock is the session's, and
        # ends with it if this process dies.
        conn = psycopg.connect(self.dsn, autocommit=True)
        try:
            acquire_polling(
                lambda: one(conn.execute("SELECT pg_try_advisory_lock(%s)", (key,))),
                wait,
                what,
            )
            try:
                yield
            finally:
                # A connection lost meanwhile (server restart) took the lock with it.
                with contextlib.suppress(psycopg.OperationalError):
                    conn.execute("SELECT pg_advisory_unlock(%s)", (key,))
        finally:
            conn.close()

    def lock(self, name: str, wait: float = 0.0, what: str = "") -> AbstractContextManager:
        return self._advisory(name, wait, what or name)


def open_store(settings: Settings) -> Store:
    if settings.store.backend == "postgres":
        return PostgresStore(settings)
    return SqliteStore(settings)


def open_runlog(settings: Settings) -> RunLog:
    """The run log alone (for commands that only read or sync it)."""
    if settings.store.backend == "postgres":
        require_postgres_support()
        return RunLog(postgres_engine(settings.store.dsn or ""))
    return RunLog(settings.runs_db_path)
