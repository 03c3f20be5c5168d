"""A person's action (reopen, retry, approve, reject, an answer pulled from the Review
worksheet) cut short right after each write
it makes to any store (a checkpoint, a run-log commit, a file renamed into place), then
the next nightly run: the stores end as they would have without the kill. Nothing is
lost, done twice, or left disagreeing (a run log that says approved beside a file moved
away, an orphan row, a set-aside file that still says approved)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

DRIVER = Path(__file__).resolve().parents[1] / "action_kill_driver.py"
REPO = Path(__file__).resolve().parents[2]


def _drive(project: Path, action: str, phase: str, kill_at: int = 0) -> subprocess.CompletedProcess:
    env = {**os.environ, "KILL_AT": str(kill_at), "PYTHONPATH": str(REPO)}
    return subprocess.run(
        [sys.executable, str(DRIVER), str(project), action, phase],
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )


def _last_json(done: subprocess.CompletedProcess) -> dict:
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def _copy(template: Path, to: Path) -> Path:
    shutil.copytree(template, to)
    return to


EXPECTED = {
    "reopen": {
        "runs": [("first", "awaiting_human", "awaiting_human", True, "reopen")],
        "files": {"output/needs-work/a.md": {"approved": False}},
    },
    "retry": {
        "runs": [
            ("first", "finished", "approved", False, None),
            ("retry", "finished", "approved", False, None),
        ],
        "files": {"output/a.md": {"approved": True, "stop_reason": "approved"}},
    },
    "approve": {
        "runs": [("first", "finished", "approved_by_human", False, "approve")],
        "files": {"output/a.md": {"approved": True, "stop_reason": "approved_by_human"}},
    },
    "reject": {
        "runs": [("first", "finished", "rejected_by_human", False, "reject")],
        "files": {"output/needs-work/a.md": {"approved": False}},
    },
    "one_tap": {
        "runs": [("first", "finished", "approved_by_human", False, "approve")],
        "files": {"output/a.md": {"approved": True, "stop_reason": "approved_by_human"}},
    },
    "pull": {
        "runs": [("first", "finished", "approved_by_human", False, "approve")],
        "files": {"output/a.md": {"approved": True, "stop_reason": "approved_by_human"}},
        "review_rows": ["done"],
    },
}


@pytest.mark.parametrize("action", list(EXPECTED))
def test_an_action_cut_short_after_any_write_is_finished_by_the_next_run(project, action):
    template = project / "template"
    template.mkdir()
    for part in ("rubrics", "house_rules", "briefs"):
        shutil.copytree(project / part, template / part)
    setup = _drive(template, action, "setup")
    assert setup.returncode == 0, setup.stderr[-3000:]

    baseline = _copy(template, project / "baseline")
    total = _last_json(_drive(baseline, action, "act"))["writes"]
    want = _last_json(_drive(baseline, action, "recover"))
    rows = [
        (r["thread"], r["status"], r["stop_reason"], r["waits"], r["decision"])
        for r in want["runs"]
    ]
    assert rows == EXPECTED[action]["runs"], want
    for name, front in EXPECTED[action]["files"].items():
        assert {k: want["files"][name][k] for k in front} == front, want["files"]
    assert want["open_actions"] == 0
    assert want["review_rows"] == EXPECTED[action].get("review_rows", want["review_rows"])
    assert total >= 3, total

    def drill(k: int) -> tuple[int, dict]:
        folder = _copy(template, project / f"k{k}")
        killed = _drive(folder, action, "act", k)
        assert killed.returncode == 77, (k, killed.stdout[-500:], killed.stderr[-2000:])
        return k, _last_json(_drive(folder, action, "recover"))

    with ThreadPoolExecutor(2) as pool:
        done = dict(pool.map(drill, range(1, total + 1)))
    for k, got in sorted(done.items()):
        assert got == want, (action, k, got, want)
