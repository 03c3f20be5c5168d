"""The slots of each model host, shared by every process of a cluster.

A host's `max_parallel` is the number of calls it takes at once (Ollama's
OLLAMA_NUM_PARALLEL); eight workers counting their own calls would send it eight times
that. `PostgresSlots` makes it hold cluster-wide: slot i of a host is the PostgreSQL
advisory lock (host key, i), taken with pg_try_advisory_lock by the process that makes
the call and given back after it. The server releases the locks of a session that ends,
so a worker killed mid-call frees its slot at once.

One connection per process holds its slots. Advisory locks are re-entrant within a
session, so the process keeps its own list of the slots it holds and never takes one
twice. While the database cannot be reached a call is let through uncounted (the
warning says so): a database restart slows nothing down and, for its duration, only
loosens the limit to each process's own.
"""

from __future__ import annotations

import hashlib
import logging
import os
import threading
import time
from collections.abc import Sequence
from typing import Any

import psycopg

from batch.errors import one_line

log = logging.getLogger("briefloop.slots")

# A call let through while the database could not be reached holds no slot.
UNCOUNTED = -1
WARN_EVERY = 60.0  # seconds between two warnings of the same outage


def host_key(url: str) -> int:
    """The first key of a host's slot locks: 31 bits, so it reads the same in pg_locks
    (an oid column) as in the two-key pg_try_advisory_lock(int4, int4)."""
    digest = hashlib.sha256(f"briefloop:model-slots:{url}".encode()).digest()
    return int.from_bytes(digest[:4], "big") & 0x7FFFFFFF


class PostgresSlots:
    """A SlotGate (batch.models.hosts) over PostgreSQL advisory locks, thread-safe."""

    def __init__(self, dsn: str, connect_timeout: float = 5.0):
        self.dsn = dsn
        self.connect_timeout = connect_timeout
        self._lock = threading.Lock()
        self._conn: Any = None
        self._pid = 0
        self._held: dict[int, set[int]] = {}  # host key -> slots this session holds
        self._warned_at = float("-inf")

    def take(self, url: str, max_parallel: int) -> int | None:
        key = host_key(url)
        with self._lock:
            try:
                conn = self._connection()
                held = self._held.setdefault(key, set())
                for slot in range(max_parallel):
                    if slot in held:
                        continue
                    if conn.execute("SELECT pg_try_advisory_lock(%s, %s)", (key, slot)).fetchone()[
                        0
                    ]:
                        held.add(slot)
                        return slot
                return None
            except psycopg.Error as e:
                self._lost(e)
                return UNCOUNTED

    def give_back(self, url: str, slot: int) -> None:
        if slot == UNCOUNTED:
            return
        key = host_key(url)
        with self._lock:
            held = self._held.get(key, set())
            if slot not in held:  # its session ended meanwhile, and the lock with it
                return
            held.discard(slot)
            try:
                self._connection().execute("SELECT pg_advisory_unlock(%s, %s)", (key, slot))
            except psycopg.Error as e:
                self._lost(e)

    def in_use(self, urls: Sequence[str]) -> dict[str, int]:
        keys = {host_key(u): u for u in urls}
        with self._lock:
            try:
                rows = (
                    self._connection()
                    .execute(
                        "SELECT classid::bigint, count(*) FROM pg_locks WHERE locktype = "
                        "'advisory' AND objsubid = 2 AND granted AND classid::bigint = ANY(%s) "
                        "GROUP BY classid",
                        (list(keys),),
                    )
                    .fetchall()
                )
            except psycopg.Error as e:
                self._lost(e)
                return {}
        return {keys[k]: n for k, n in rows}

    def close(self) -> None:
        with self._lock:
            self._drop()

    def _drop(self) -> None:
        if self._conn is not None and self._pid == os.getpid():
            try:
                self._conn.close()
            except psycopg.Error as e:
                log.debug("closing a broken slots connection: %s", e)
        self._conn, self._held = None, {}

    def _connection(self) -> Any:
        if self._conn is not None and self._pid != os.getpid():
            # A fork's copy of the parent's session: not ours to use or to close.
            self._conn, self._held = None, {}
        if self._conn is None or self._conn.closed:
            self._held = {}  # a new session holds nothing
            self._conn = psycopg.connect(
                self.dsn, autocommit=True, connect_timeout=max(1, int(self.connect_timeout))
            )
            self._pid = os.getpid()
        return self._conn

    def _lost(self, e: psycopg.Error) -> None:
        # The session is gone or unusable, and its locks with it: start over next time.
        self._drop()
        now = time.monotonic()
        if now - self._warned_at >= WARN_EVERY:
            self._warned_at = now
            log.warning(
                "model host slots: the database cannot be reached (%s); "
                "calls are counted per process until it is back",
                one_line(e),
            )
