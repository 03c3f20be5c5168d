"""The process ends right after each checkpoint write of a thread's life (every put and
every put_writes: its rounds, its pause for a person, the person's approval), and the
next run or answer takes it from there: the same stop reason, the same rounds, the
text written once."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

DRIVER = Path(__file__).resolve().parents[1] / "kill_driver.py"
REPO = Path(__file__).resolve().parents[2]


def _life(project: Path, kill_at: int = 0) -> subprocess.CompletedProcess:
    env = {**os.environ, "KILL_AT": str(kill_at), "PYTHONPATH": str(REPO)}
    return subprocess.run(
        [sys.executable, str(DRIVER), str(project)],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def _fresh(root: Path, name: str, template: Path) -> Path:
    folder = root / name
    shutil.copytree(template, folder)
    return folder


def _drill(folder: Path, k: int) -> tuple[int, dict]:
    killed = _life(folder, k)
    assert killed.returncode == 77, (k, killed.stdout[-500:], killed.stderr[-2000:])
    rerun = _life(folder)
    assert rerun.returncode == 0, (k, rerun.stderr[-3000:])
    return k, json.loads(rerun.stdout.strip().splitlines()[-1])


def test_a_crash_after_any_checkpoint_write_loses_and_repeats_nothing(project):
    from kill_driver import BRIEF

    (project / "briefs" / "ph.md").write_text(f"---\nid: ph\n---\n{BRIEF}")
    template = project / "template"
    template.mkdir()
    for part in ("rubrics", "house_rules", "briefs"):
        shutil.copytree(project / part, template / part)

    base = _life(_fresh(project, "baseline", template))
    assert base.returncode == 0, base.stderr[-3000:]
    want = json.loads(base.stdout.strip().splitlines()[-1])
    [run] = want["runs"]
    assert run["stop_reason"] == "approved_by_human" and run["rounds"] == 2, want
    assert want["outputs"] == ["ph.md"] and "4.2M EUR" in want["text"]
    total = want["writes"]
    assert total >= 10, want  # two rounds, a pause and an answer: many writes

    with ThreadPoolExecutor(2) as pool:
        done = dict(
            pool.map(lambda k: _drill(_fresh(project, f"k{k}", template), k), range(1, total + 1))
        )
    assert sorted(done) == list(range(1, total + 1))
    for k, got in done.items():
        [row] = got["runs"]
        assert row["stop_reason"] == run["stop_reason"], (k, row)
        assert row["rounds"] == run["rounds"], (k, row)
        assert row["score_history"] == run["score_history"], (k, row)
        assert row["status"] == "finished" and row["output_path"], (k, row)
        assert got["outputs"] == want["outputs"], (k, got["outputs"])
        body = got["text"].split("---\n", 2)[2]
        assert body == want["text"].split("---\n", 2)[2], k
