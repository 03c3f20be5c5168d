"""The disk under the SQLite state fills up mid-batch: one line, exit 1, nothing lost.

A real filesystem fills (a small tmpfs mounted on the project's checkpoints folder), so
SQLite, the checkpointer and the run log meet the real ENOSPC; the batch runs as a real
`briefloop` process against the fake Ollama server.
"""

from __future__ import annotations

import subprocess

import pytest

from conftest import UNIVERSAL, briefloop_process, ollama_config, query
from fake_ollama import FakeOllama


@pytest.fixture
def small_disk(project):
    folder = project / "checkpoints"
    folder.mkdir()
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=900k", "tmpfs", str(folder)],
        capture_output=True,
        text=True,
    )
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a small tmpfs here: {mounted.stderr.strip()}")
    yield folder
    subprocess.run(["umount", "-l", str(folder)], check=True)


def test_a_full_disk_under_the_state_is_one_line_and_a_rerun_finishes(project, small_disk):
    ids = [f"brief-{i:02}" for i in range(24)]
    for bid in ids:
        (project / "briefs" / f"{bid}.md").write_text(
            f"---\nid: {bid}\n---\nThe office is closed on Friday."
        )
    with FakeOllama(default=UNIVERSAL) as server:
        cfg = ollama_config(project, server.base_url)
        full = briefloop_process(cfg, "run", str(project / "briefs"))
        output = full.communicate(timeout=120)[0].decode()
        assert full.returncode == 1, output
        assert "Traceback" not in output
        [line] = [x for x in output.splitlines() if x.startswith("error:")]
        assert str(small_disk) in line, line
        assert "database or disk is full" in line or "disk I/O error" in line, line
        assert "run the same command again" in line
        db = small_disk / "runs.sqlite"
        done_before = {
            r[0] for r in query(db, "SELECT brief_id FROM runs WHERE status = 'finished'")
        }
        assert 0 < len(done_before) < len(ids), done_before  # it filled mid-batch

        listed = briefloop_process(cfg, "runs")
        listing = listed.communicate(timeout=60)[0].decode()
        assert "Traceback" not in listing and listed.returncode in (0, 1), listing

        subprocess.run(["mount", "-o", "remount,size=20m", str(small_disk)], check=True)
        rerun = briefloop_process(cfg, "run", str(project / "briefs"))
        output = rerun.communicate(timeout=120)[0].decode()
        assert rerun.returncode == 0, output

    rows = query(db, "SELECT brief_id, status FROM runs")
    assert sorted(rows) == [(bid, "finished") for bid in ids]  # each once, all finished
    for bid in ids:
        assert "stop_reason: approved" in (project / "output" / f"{bid}.md").read_text()
