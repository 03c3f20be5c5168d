"""The sandbox started by a user who is not root, as on a workstation: bubblewrap then
builds it in a user namespace instead of switching to uid 65534.

The rest of the suite runs the sandbox as whoever runs the tests (root in CI). Here, as
root, the checks run again as uid 4242 (setpriv) with Debian's own python3: the venv's
interpreter may live where another user cannot read it (pyenv under /root), and the
sandbox needs nothing of the venv, only the standard library and `batch` (copied to a
folder that user can read). The user owns a project with its config, its run log and a
mode-0600 secrets.env, has secrets in its environment, and a unix socket listening in
a folder of its own; the sandboxed code sees none of it.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path

import pytest
from test_sandbox import SEES

from conftest import REPO, _require

UID = GID = 4242
SYSTEM_PYTHON = "/usr/bin/python3"

DRIVER = r"""
import json, sys
from pathlib import Path
from batch.judging import doc_examples
from batch.judging.doc_examples.sandbox import run_sandboxed, sandbox_problem

project, sock, work = Path(sys.argv[1]), sys.argv[2], Path(sys.argv[3])
out = {"problem": sandbox_problem()}
probe = Path(sys.argv[4]).read_text()  # test_sandbox.SEES
paths = [str(project), str(project / "config" / "briefloop.toml"),
         str(project / "checkpoints"), str(project / "secrets.env"), "/etc/passwd",
         "/run", "/var/run", "/home", sock]
r = run_sandboxed([sys.executable, "-c", probe, str(Path.home()), *paths], work)
out["probe"] = {"returncode": r.returncode, "stdout": r.stdout, "stderr": r.stderr[-2000:]}
out["paths"] = paths
# A module that reads the host's secrets as it is imported, and a doc whose example is
# wrong: the wrong result is still caught, and nothing of the host is quoted.
source = ('import os, glob\n'
          'LEAK = [open(p).read() for p in glob.glob("/proc/*/environ")'
          ' if os.access(p, os.R_OK)]\n\n\ndef add(a, b):\n    return a + b\n')
folder = project / "src"
folder.mkdir(exist_ok=True)
(folder / "calc.py").write_text(source)
v = doc_examples.verify("```python\n>>> add(2, 3)\n6\n```\n", source, "calc", folder / "calc.py")
out["verify"] = {"note": v.note, "findings": v.findings}
print(json.dumps(out))
"""


def test_a_sandbox_started_by_a_user_who_is_not_root_sees_nothing_of_theirs():
    if os.geteuid() != 0:
        pytest.skip("not root: the whole suite is already a non-root run of the sandbox")
    _require(None if shutil.which("setpriv") else "setpriv (util-linux) is not installed")
    _require(
        None
        if os.access(SYSTEM_PYTHON, os.X_OK)
        else f"{SYSTEM_PYTHON} (Debian's python3) is not installed: apt-get install python3"
    )
    home = Path(tempfile.mkdtemp(prefix="briefloop-nonroot-"))
    listener = socket.socket(socket.AF_UNIX)
    try:
        home.chmod(0o755)
        shutil.copytree(
            REPO / "batch", home / "lib" / "batch", ignore=shutil.ignore_patterns("__pycache__")
        )
        project = home / "project"
        (project / "config").mkdir(parents=True)
        (project / "config" / "briefloop.toml").write_text('[store]\ndsn = "secret-dsn"\n')
        (project / "checkpoints").mkdir()
        (project / "checkpoints" / "runs.sqlite").write_bytes(b"SQLite format 3\0")
        (project / "secrets.env").write_text("SMTP_PASSWORD=hunter2-in-file\n")
        (project / "secrets.env").chmod(0o600)
        work = home / "work"
        work.mkdir()
        (home / "sees.py").write_text(SEES)
        sock = home / "run" / "db.sock"
        sock.parent.mkdir()
        listener.bind(str(sock))
        listener.listen(1)
        for folder, dirs, files in os.walk(home):
            for name in (folder, *(os.path.join(folder, n) for n in dirs + files)):
                os.lchown(name, UID, GID)
        env = {
            "PATH": "/usr/bin:/bin",
            "HOME": str(home),
            "TMPDIR": str(home),
            "PYTHONPATH": str(home / "lib"),
            "PYTHONDONTWRITEBYTECODE": "1",
            "SMTP_PASSWORD": "hunter2-in-env",
            "BRIEFLOOP_STORE__DSN": "postgresql://u:hunter2-dsn@db/x",
        }
        done = subprocess.run(
            [
                "setpriv",
                f"--reuid={UID}",
                f"--regid={GID}",
                "--clear-groups",
                SYSTEM_PYTHON,
                "-c",
                DRIVER,
                str(project),
                str(sock),
                str(work),
                str(home / "sees.py"),
            ],
            env=env,
            cwd=home,
            capture_output=True,
            text=True,
            timeout=120,
        )
    finally:
        listener.close()
        shutil.rmtree(home, ignore_errors=True)
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["problem"] is None
    assert out["probe"]["returncode"] == 0, out["probe"]
    seen = json.loads(out["probe"]["stdout"])
    assert {p: seen[p] for p in out["paths"]} == {p: False for p in out["paths"]}
    assert seen["listing"] == ["work"]  # of the user's home, only the folder it was given
    assert seen["socket"] in ("FileNotFoundError", "ConnectionRefusedError")
    assert len(seen["pids"]) <= 3  # its own pid namespace: bwrap's init and itself
    assert "hunter2" not in seen["environ"] and "SMTP_PASSWORD" not in seen["environ"]
    assert seen["uid"] == UID  # the same user, mapped: no root inside either
    verdict = json.dumps(out["verify"])
    assert out["verify"]["note"] == "examples run: 0 of 1 gave the result shown", verdict
    assert "add(2, 3)" in verdict and "hunter2" not in verdict and "root:" not in verdict
