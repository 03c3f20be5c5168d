"""OS-level file locks: released by the kernel when the holder dies, so a crash never
leaves a stale lock behind."""

from __future__ import annotations

import fcntl
import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from batch.errors import LockBusy


@contextmanager
def file_lock(path: Path, wait: float = 0.0, what: str = "") -> Iterator[None]:
    """Hold an exclusive lock on `path`, waiting up to `wait` seconds for it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        deadline = time.monotonic() + wait
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    raise LockBusy(f"{what or path} is busy in another process") from None
                time.sleep(0.05)
        try:
            yield
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)
