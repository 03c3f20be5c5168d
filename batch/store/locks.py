"""OS-level file locks: released by the kernel when the holder dies, so a crash never
leaves a stale lock behind."""

from __future__ import annotations

import fcntl
import os
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from batch.errors import LockBusy


def acquire_polling(try_once: Callable[[], bool], wait: float, what: str) -> None:
    """Call `try_once` until it takes the lock, for up to `wait` seconds (once at least);
    LockBusy naming `what` after that."""
    deadline = time.monotonic() + wait
    while not try_once():
        if time.monotonic() >= deadline:
            raise LockBusy(f"{what} is busy in another process")
        time.sleep(0.05)


@contextmanager
def file_lock(path: Path, wait: float = 0.0, what: str = "") -> Iterator[None]:
    """Hold an exclusive lock on `path`, waiting up to `wait` seconds for it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)

    def try_once() -> bool:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        return True

    try:
        acquire_polling(try_once, wait, what or str(path))
        try:
            yield
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)
