"""batch.judging.doc_examples.sandbox against the real bubblewrap, no mocks. Without
bwrap these tests fail (CI installs the Debian package bubblewrap in .ci/run); they never
skip."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from batch.judging.doc_examples import sandbox
from batch.judging.doc_examples.sandbox import SandboxUnavailable, run_sandboxed, sandbox_problem

REPO = Path(__file__).resolve().parents[2]
TMP = Path("/tmp")


@pytest.fixture
def work(tmp_path: Path) -> Path:
    problem = sandbox_problem()
    if problem is not None:
        pytest.fail(f"the sandbox does not work on this machine: {problem}", pytrace=False)
    folder = tmp_path / "work"
    folder.mkdir()
    return folder


def marker() -> str:
    """A string to put in a sandboxed command's argv, to look for it with pgrep."""
    return f"briefloop-sandbox-test-{uuid.uuid4().hex}"


def python(code: str, work: Path, *args: str, **kw) -> sandbox.SandboxResult:
    return run_sandboxed([sys.executable, "-c", code, *args], work, **kw)


def left_behind(mark: str) -> list[str]:
    found = subprocess.run(["pgrep", "-af", mark], capture_output=True, text=True)
    return found.stdout.splitlines()


def test_sandbox_works_here():
    assert sandbox_problem() is None, "install the Debian package bubblewrap"


def test_runs_a_program_writes_in_its_workdir_and_returns_its_output(work: Path):
    code = """
import os, sys
caps = [l.split()[1] for l in open("/proc/self/status") if l.startswith("CapEff")][0]
with open("made.txt", "w") as f:
    f.write("written inside")
print("hello", os.getcwd(), os.environ["HOME"], caps, os.getuid())
print(sys.stdin.read().upper())
print("to stderr", file=sys.stderr)
sys.exit(3)
"""
    result = python(code, work, stdin="from stdin")
    assert result.returncode == 3 and not result.timed_out, result
    first, second = result.stdout.splitlines()
    word, cwd, home, caps, uid = first.split()
    assert (word, cwd, home) == ("hello", str(work), str(work))
    assert int(caps, 16) == 0  # no capabilities
    if os.geteuid() == 0:
        assert uid == str(sandbox.SANDBOX_UID)  # never root inside
    assert second == "FROM STDIN"
    assert result.stderr == "to stderr\n"
    assert (work / "made.txt").read_text() == "written inside"
    assert 0 < result.seconds < 5


def test_cannot_write_outside_its_workdir_nor_see_the_real_home(work: Path):
    mark = marker()
    targets = [
        REPO / mark,
        Path.home() / mark,
        Path("/etc") / mark,
        Path("/var/tmp") / mark,
        Path(sys.prefix) / mark,
    ]
    home_file = next((p for p in Path.home().iterdir() if p.is_file()), None)
    code = """
import json, os, sys
out = {}
for path in sys.argv[1:-1]:
    try:
        with open(path, "w") as f:
            f.write("escaped")
        out[path] = "WROTE"
    except OSError as exc:
        out[path] = type(exc).__name__
out["home file seen"] = os.path.exists(sys.argv[-1])
print(json.dumps(out))
"""
    result = python(code, work, *map(str, targets), str(home_file or "/nonexistent"))
    assert result.returncode == 0, result
    seen = json.loads(result.stdout)
    for target in targets:
        # read-only, or not there at all
        assert seen[str(target)] in ("OSError", "PermissionError", "FileNotFoundError"), (
            target,
            seen,
        )
        assert not target.exists(), target
    assert seen["home file seen"] is False  # the real home is hidden


def test_tmp_is_private_and_empty(work: Path):
    mark = marker()
    host_file = TMP / f"{mark}-host"
    host_file.write_text("host only")
    try:
        code = """
import json, os, sys
with open("/tmp/" + sys.argv[1] + "-inside", "w") as f:
    f.write("inside only")
print(json.dumps(sorted(os.listdir("/tmp"))))
"""
        result = python(code, work, mark)
    finally:
        host_file.unlink()
    assert result.returncode == 0, result
    listed = set(json.loads(result.stdout))
    # only the folders leading to paths bound into it: the workdir, a venv under /tmp
    allowed = {
        Path(os.path.realpath(p)).relative_to(TMP).parts[0]
        for p in (work, sys.prefix, sys.base_prefix, *sys.path)
        if Path(os.path.realpath(p)).is_relative_to(TMP) and Path(p) != TMP
    }
    assert f"{mark}-host" not in listed
    assert listed <= allowed | {f"{mark}-inside"}, listed - allowed
    assert not (TMP / f"{mark}-inside").exists()


def test_no_network(work: Path):
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        port = server.getsockname()[1]
        code = """
import json, socket, sys
out = {}
for name, target in [("loopback", ("127.0.0.1", int(sys.argv[1]))),
                     ("outside", ("1.1.1.1", 53))]:
    try:
        socket.create_connection(target, timeout=2).close()
        out[name] = "CONNECTED"
    except OSError as exc:
        out[name] = type(exc).__name__
try:
    socket.getaddrinfo("example.com", 443)
    out["dns"] = "RESOLVED"
except OSError as exc:
    out["dns"] = type(exc).__name__
print(json.dumps(out))
"""
        result = python(code, work, str(port), timeout=8)
        server.setblocking(False)
        with pytest.raises(BlockingIOError):
            server.accept()  # nothing reached the host's listening socket
    assert result.returncode == 0, result
    seen = json.loads(result.stdout)
    assert seen["loopback"] == "ConnectionRefusedError"  # its own, empty loopback
    assert "CONNECTED" not in seen.values() and seen["dns"] != "RESOLVED", seen


def test_a_busy_loop_is_stopped_at_the_timeout_and_nothing_is_left(work: Path):
    mark = marker()
    started = time.monotonic()
    result = python("while True: pass", work, mark, timeout=1.0)
    took = time.monotonic() - started
    assert result.timed_out and result.returncode is None, result
    # stopped at the limit, not at some later point (margins for a loaded CI machine)
    assert 1.0 <= result.seconds < 6.0 and took < 8.0
    assert left_behind(mark) == []


def test_many_processes_are_contained_and_killed_at_the_timeout(work: Path):
    mark = marker()
    code = """
import subprocess, sys, time
children = []
try:
    for _ in range(200):
        children.append(subprocess.Popen(["sh", "-c", "sleep 60; : " + sys.argv[1]]))
except OSError as exc:
    print("stopped at", len(children), type(exc).__name__)
else:
    print("started", len(children))
time.sleep(60)
"""
    result = python(code, work, mark, timeout=2.0)
    assert result.timed_out and result.returncode is None, result
    assert result.seconds < 4.0
    # RLIMIT_NPROC: 128 processes for the sandbox, a shell and a sleep each
    assert result.stdout.startswith("stopped at "), result.stdout
    assert int(result.stdout.split()[2]) < 200
    assert left_behind(mark) == []


def test_a_memory_hog_fails(work: Path):
    result = python("block = bytearray(4 * 1024 ** 3)", work)
    assert not result.timed_out and result.returncode != 0, result
    assert "MemoryError" in result.stderr
    assert result.seconds < 5


def test_a_file_beyond_file_mb_fails(work: Path):
    code = "open('big', 'wb').write(b'x' * (2 * 1024 * 1024))"
    result = python(code, work, file_mb=1)
    assert result.returncode != 0, result
    assert "File too large" in result.stderr
    assert (work / "big").stat().st_size <= 1024 * 1024


def test_output_beyond_the_cap_is_truncated(work: Path):
    code = "import sys; sys.stdout.write('a' * 3_000_000); sys.stderr.write('short')"
    result = python(code, work)
    assert result.returncode == 0, result
    limit = sandbox.OUTPUT_LIMIT_BYTES
    assert result.stdout.startswith("a" * limit)
    assert len(result.stdout) < limit + 200
    assert f"{3_000_000 - limit} more dropped" in result.stdout
    assert result.stderr == "short"


def test_a_workdir_holding_the_caller_is_refused(work: Path):
    with pytest.raises(ValueError, match="fresh temporary folder"):
        python("pass", Path("/"))


@pytest.fixture
def fresh_probe():
    sandbox._probe.cache_clear()
    yield
    sandbox._probe.cache_clear()


def test_without_bwrap_the_reason_names_bubblewrap(fresh_probe, monkeypatch, tmp_path):
    assert sandbox_problem() is None, "install the Debian package bubblewrap"
    empty = tmp_path / "empty"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    sandbox._probe.cache_clear()
    problem = sandbox_problem()
    assert problem is not None and "bubblewrap" in problem
    assert "apt-get install bubblewrap" in problem
    work = tmp_path / "work"
    work.mkdir()
    with pytest.raises(SandboxUnavailable, match="bubblewrap"):
        run_sandboxed([sys.executable, "-c", "print('ran')"], work)
    assert list(work.iterdir()) == []


# What a program in the sandbox sees of the machine (tests/judging/test_sandbox_nonroot.py runs
# it too): which of the paths given exist, the listing of a folder (the first argument),
# the processes in /proc with their environments and its own, whether the unix socket at
# the last path answers, and its uid.
SEES = """
import json, os, socket, sys
folder, paths = sys.argv[1], sys.argv[2:]
out = {p: os.path.exists(p) for p in paths}
out["listing"] = sorted(os.listdir(folder)) if os.path.isdir(folder) else None
out["pids"] = sorted(int(p) for p in os.listdir("/proc") if p.isdigit())
leaked = []
for pid in out["pids"]:
    try:
        leaked.append(open(f"/proc/{pid}/environ", "rb").read().decode("utf-8", "replace"))
    except OSError:
        pass
out["environ"] = "".join(leaked) + repr(dict(os.environ))
try:
    s = socket.socket(socket.AF_UNIX)
    s.connect(paths[-1])
    out["socket"] = "connected"
except OSError as e:
    out["socket"] = type(e).__name__
out["uid"] = os.getuid()
print(json.dumps(out))
"""


def test_it_sees_no_project_no_host_sockets_no_secrets_and_no_other_process(
    work: Path, tmp_path: Path, monkeypatch
):
    project = REPO  # this checkout: its config, checkpoints and briefs
    secret = tmp_path / "secrets.env"
    secret.write_text("SMTP_PASSWORD=hunter2\n")
    secret.chmod(0o600)
    monkeypatch.setenv("SMTP_PASSWORD", "hunter2-from-env")
    paths = [
        str(project / "config"),
        str(project / "checkpoints"),
        str(secret),
        "/run",
        "/var/run",
        "/etc/passwd",
        "/home",
        "/root/.ssh",
    ]
    if Path("/var/run/postgresql").exists():
        paths.append("/var/run/postgresql")
    result = python(SEES, work, str(work.parent), *paths)
    assert result.returncode == 0, result
    seen = json.loads(result.stdout)
    assert {p: seen[p] for p in paths} == {p: False for p in paths}
    assert len(seen["pids"]) <= 3  # its own pid namespace: bwrap's init and itself
    assert "hunter2" not in seen["environ"] and "SMTP_PASSWORD" not in seen["environ"]
