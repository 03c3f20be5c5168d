"""Turning on SQLite's write-ahead log when several processes open a new file at once."""

from __future__ import annotations

import sqlite3
import time

# as long as the busy timeout every connection of ours is opened with
WAL_WAIT_SECONDS = 30.0


def use_wal(conn: sqlite3.Connection, wait: float = WAL_WAIT_SECONDS) -> str:
    """Put the file `conn` is open on in WAL mode; returns the journal mode it has now.

    Switching a file to WAL needs its exclusive lock, and SQLite answers a second
    connection asking at the same moment with "database is locked" at once, without
    waiting the busy timeout (the two would deadlock otherwise). The mode is stored in
    the file, so the one that waits finds it on once the other has switched: two
    batches started together on a fresh project both go on."""
    deadline = time.monotonic() + wait
    delay = 0.01
    while True:
        try:
            return str(conn.execute("PRAGMA journal_mode = WAL").fetchone()[0])
        except sqlite3.OperationalError as e:
            if "locked" not in str(e) or time.monotonic() >= deadline:
                raise
        time.sleep(delay)
        delay = min(delay * 2, 0.25)
