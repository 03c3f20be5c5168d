"""Two processes switching a new SQLite file to WAL at once: the second waits, not fails."""

from __future__ import annotations

import sqlite3
import threading

import pytest

from batch.store.sqlite_wal import use_wal


def held_shared(path) -> sqlite3.Connection:
    """A connection in the middle of a read: it holds the file's shared lock, which a
    switch to WAL must wait out."""
    other = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    other.execute("CREATE TABLE IF NOT EXISTS t (x)")
    other.execute("BEGIN")
    other.execute("SELECT * FROM t").fetchall()
    return other


def test_a_switch_that_finds_the_file_locked_waits_and_turns_wal_on(tmp_path):
    path = tmp_path / "state.sqlite"
    other = held_shared(path)
    conn = sqlite3.connect(path, timeout=0)  # no busy wait of SQLite's own
    with pytest.raises(sqlite3.OperationalError, match="locked"):
        conn.execute("PRAGMA journal_mode = WAL")  # what one plain attempt does
    threading.Timer(0.3, lambda: other.execute("COMMIT")).start()
    assert use_wal(conn, wait=10) == "wal"
    assert sqlite3.connect(path).execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_a_lock_that_outlasts_the_wait_is_the_error(tmp_path):
    path = tmp_path / "state.sqlite"
    other = held_shared(path)
    conn = sqlite3.connect(path, timeout=0)
    try:
        with pytest.raises(sqlite3.OperationalError, match="locked"):
            use_wal(conn, wait=0.2)
    finally:
        other.execute("COMMIT")


def test_a_file_already_in_wal_is_left_so(tmp_path):
    path = tmp_path / "state.sqlite"
    assert use_wal(sqlite3.connect(path)) == "wal"
    assert use_wal(sqlite3.connect(path)) == "wal"
