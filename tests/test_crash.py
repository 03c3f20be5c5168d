"""Kill -9 in the middle of a batch: the rerun redoes nothing finished, duplicates nothing.

The batch runs as a real `briefloop run` process against the fake Ollama server (the
real ChatOllama path), so the kill hits the real checkpointer and run log.
"""

from __future__ import annotations

import csv
import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

from fake_ollama import FakeOllama

# One answer that validates as both a writer and a critic answer (extra keys are
# ignored), so the fake server need not know which role is asking.
UNIVERSAL = json.dumps({
    "draft": "The office is closed on Friday. Save your work before you leave.",
    "deliberate_deviations": [],
    "needs_from_human": [],
    "must_fix": [],
    "would_improve": [],
    "scores": {"covers_brief": 5, "accuracy": 5, "clarity": 5, "actionable": 5},
})


def write_config(project: Path, base_url: str) -> Path:
    cfg = project / "briefloop.toml"
    model = (f'provider = "ollama"\nmodel = "qwen2.5:7b"\nbase_url = "{base_url}"\n'
             f"timeout = 10\n")
    cfg.write_text(
        f'[models.writer]\n{model}\n[models.critic]\n{model}\n'
        '[paths]\nroot = "."\n[log]\nformat = "csv"\npath = "output/runs.csv"\n'
        '[retry]\nattempts = 2\ninitial_seconds = 0.05\n', encoding="utf-8")
    return cfg


def finished_threads(db: Path) -> set[str]:
    if not db.exists():
        return set()
    try:
        with sqlite3.connect(db, timeout=5) as conn:
            rows = conn.execute("SELECT brief_id FROM runs WHERE status = 'finished'").fetchall()
    except sqlite3.OperationalError:  # not created yet
        return set()
    return {r[0] for r in rows}


def brief_ids_in(requests: list[dict]) -> list[str]:
    out = []
    for body in requests:
        text = "\n".join(m["content"] for m in body["messages"])
        start = text.index("BRIEF (id ") + len("BRIEF (id ")
        out.append(text[start:text.index(")", start)])
    return out


def briefloop(cfg: Path, *args: str) -> subprocess.Popen:
    env = {k: v for k, v in os.environ.items() if not k.startswith("BRIEFLOOP_")}
    return subprocess.Popen([sys.executable, "-m", "batch", "--config", str(cfg), *args],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env)


def test_sigkill_mid_batch_then_rerun(project):
    ids = [f"brief-{i}" for i in range(6)]
    for bid in ids:
        (project / "briefs" / f"{bid}.md").write_text(f"Office closed on Friday ({bid}).")
    with FakeOllama(default=UNIVERSAL, latency=0.25) as server:
        cfg = write_config(project, server.base_url)
        proc = briefloop(cfg, "run", str(project / "briefs"))
        db = project / "checkpoints" / "runs.sqlite"
        deadline = time.monotonic() + 60
        while len(finished_threads(db)) < 2:
            assert proc.poll() is None, proc.stdout.read().decode()
            assert time.monotonic() < deadline, "the batch made no progress"
            time.sleep(0.05)
        time.sleep(0.3)  # land the kill inside a model call of a later brief
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=10)
        done_before = finished_threads(db)
        assert 2 <= len(done_before) < len(ids)
        calls_before = len(server.chat_requests)

        rerun = briefloop(cfg, "run", str(project / "briefs"))
        output = rerun.communicate(timeout=120)[0].decode()
        assert rerun.returncode == 0, output

        second = brief_ids_in(server.chat_requests[calls_before:])
        assert not set(second) & done_before, "a finished brief was processed again"
        # every unfinished brief needed at most its two calls (writer, critic)
        assert len(second) <= 2 * (len(ids) - len(done_before))

    assert finished_threads(db) == set(ids)
    with sqlite3.connect(db) as conn:
        rows = conn.execute("SELECT run_id, brief_id FROM runs").fetchall()
    assert len(rows) == len(ids) and len({r[0] for r in rows}) == len(ids)
    with open(project / "output" / "runs.csv", newline="", encoding="utf-8") as f:
        sheet = list(csv.DictReader(f))
    assert sorted(r["brief_id"] for r in sheet) == ids
    for bid in ids:
        text = (project / "output" / f"{bid}.md").read_text(encoding="utf-8")
        assert text.startswith("---\n") and "stop_reason: approved" in text
    assert not list((project / "output").glob(".*.tmp"))
