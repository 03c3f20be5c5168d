"""Every process a test starts ends with it, pass or fail, and a run that leaves one
alive fails (tests/processes.py, hooked in tests/conftest.py)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import processes

TESTS = Path(__file__).resolve().parents[1]


def alive(pid: int) -> bool:
    return any(p == pid for p, *_ in processes.live_processes())


def test_ending_a_session_ends_its_grandchildren_too():
    # a shell that starts two sleepers and waits: killing the shell alone leaves them
    shell = processes.register(
        subprocess.Popen(["sh", "-c", "sleep 300 & sleep 301 & wait"], start_new_session=True)
    )
    for _ in range(50):
        if len(processes.left_in({shell.pid})) == 3:
            break
        time.sleep(0.1)
    assert len(processes.left_in({shell.pid})) == 3
    found = processes.end({shell.pid})
    assert len(found) == 3 and any("sleep 301" in f for f in found)
    shell.wait(timeout=10)
    assert processes.left_in({shell.pid}) == []


def test_a_child_that_ignores_term_is_killed():
    stubborn = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); "
            "print('up', flush=True); time.sleep(300)",
        ],
        start_new_session=True,
        stdout=subprocess.PIPE,
    )
    assert stubborn.stdout.readline() == b"up\n"
    processes.end({stubborn.pid}, grace=0.5)
    assert stubborn.wait(timeout=10) == -9


def run_pytest(tmp_path: Path, body: str) -> subprocess.CompletedProcess:
    """A test file run by pytest with this suite's conftest as a plugin."""
    (tmp_path / "test_case.py").write_text(body, encoding="utf-8")
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(TESTS), os.environ.get("PYTHONPATH", "")]),
    }
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "conftest",
            "-p",
            "no:randomly",
            "-p",
            "no:cacheprovider",
            str(tmp_path / "test_case.py"),
        ],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=120,
    )


def test_a_failing_test_still_ends_what_it_started(tmp_path):
    marker = tmp_path / "pid"
    done = run_pytest(
        tmp_path,
        "import subprocess, processes\n"
        "def test_fails():\n"
        "    p = processes.register(subprocess.Popen(['sleep', '300'], start_new_session=True))\n"
        f"    open({str(marker)!r}, 'w').write(str(p.pid))\n"
        "    assert False\n",
    )
    assert "1 failed" in done.stdout, done.stdout + done.stderr
    assert not alive(int(marker.read_text()))
    assert "left running" not in done.stdout  # ended by the test's own teardown


def test_a_run_that_leaves_a_child_alive_fails(tmp_path):
    marker = tmp_path / "pid"
    done = run_pytest(
        tmp_path,
        "import subprocess\n"
        "def test_passes():\n"
        "    p = subprocess.Popen(['sleep', '300'])\n"
        f"    open({str(marker)!r}, 'w').write(str(p.pid))\n",
    )
    assert "1 passed" in done.stdout and done.returncode == 1, done.stdout + done.stderr
    assert "processes the tests left running (now ended)" in done.stdout
    assert not alive(int(marker.read_text()))
