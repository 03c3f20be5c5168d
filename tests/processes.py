"""Every process a test starts ends with it, pass or fail, and none outlives the run.

A process a test starts (a `briefloop schedule`, a crontab line run by a shell) is
started in a session of its own and registered here; after the test, everything still
in those sessions is ended (TERM, then KILL), grandchildren included: a shell killed
alone would leave flock and the scheduler under it running, and a scheduler left
behind on a developer's machine fires its jobs at night. At the end of the run, a
process still in a registered session, or still a child of the test run, fails it."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import time
from collections.abc import Iterable
from pathlib import Path

SESSIONS: set[int] = set()


def register(proc: subprocess.Popen) -> subprocess.Popen:
    """`proc`, started with start_new_session=True, ended after the test that made it."""
    SESSIONS.add(proc.pid)
    return proc


def live_processes() -> Iterable[tuple[int, int, int, str]]:
    """(pid, parent pid, session id, command line) of each live process (no zombies)."""
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue  # ended meanwhile
        fields = stat.rsplit(")", 1)[1].split()
        if fields[0] == "Z":
            continue
        yield int(entry.name), int(fields[1]), int(fields[3]), command.strip()


def left_in(sessions: set[int], children_of: int | None = None) -> list[tuple[int, str]]:
    """The live processes in `sessions`, and those whose parent is `children_of`."""
    return [
        (pid, command)
        for pid, parent, session, command in live_processes()
        if pid != os.getpid() and (session in sessions or parent == children_of)
    ]


def end(sessions: set[int], children_of: int | None = None, grace: float = 5.0) -> list[str]:
    """Ends everything `left_in` finds: TERM, and KILL what is still there after
    `grace` seconds. The command lines of what was found."""
    found = left_in(sessions, children_of)
    for pid, _ in found:
        _signal(pid, signal.SIGTERM)
    deadline = time.monotonic() + grace
    while left_in(sessions, children_of) and time.monotonic() < deadline:
        time.sleep(0.1)
    for pid, _ in left_in(sessions, children_of):
        _signal(pid, signal.SIGKILL)
    return [f"{pid}: {command}" for pid, command in found]


def _signal(pid: int, sig: signal.Signals) -> None:
    # one that ended between the look and the signal is what was asked
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, sig)
