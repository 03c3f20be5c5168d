"""Kill -9 in the middle of a batch: the rerun redoes nothing finished, duplicates nothing.

The batch runs as a real `briefloop run` process against the fake Ollama server (the
real ChatOllama path), so the kill hits the real checkpointer and run log.
"""

from __future__ import annotations

import csv
import signal
import sqlite3
import time
from pathlib import Path

from conftest import UNIVERSAL, briefloop_process, ollama_config, query
from fake_ollama import FakeOllama


def finished_threads(db: Path) -> set[str]:
    return {r[0] for r in query(db, "SELECT brief_id FROM runs WHERE status = 'finished'")}


def brief_ids_in(requests: list[dict]) -> list[str]:
    out = []
    for body in requests:
        text = "\n".join(m["content"] for m in body["messages"])
        start = text.index("BRIEF (id ") + len("BRIEF (id ")
        out.append(text[start : text.index(")", start)])
    return out


def test_sigkill_mid_batch_then_rerun(project):
    ids = [f"brief-{i}" for i in range(6)]
    for bid in ids:
        (project / "briefs" / f"{bid}.md").write_text(
            f"---\nid: {bid}\n---\nOffice closed on Friday."
        )
    with FakeOllama(default=UNIVERSAL, latency=0.25) as server:
        cfg = ollama_config(project, server.base_url)
        proc = briefloop_process(cfg, "run", str(project / "briefs"))
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

        rerun = briefloop_process(cfg, "run", str(project / "briefs"))
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
    with open(project / "output" / "runs.csv", newline="", encoding="utf-8-sig") as f:
        sheet = list(csv.DictReader(f))
    assert sorted(r["brief_id"] for r in sheet) == ids
    for bid in ids:
        text = (project / "output" / f"{bid}.md").read_text(encoding="utf-8")
        assert text.startswith("---\n") and "stop_reason: approved" in text
    assert not list((project / "output").glob(".*.tmp"))
    # the killed batch is closed by the next one, not left running forever
    killed, rerun_row = query(db, "SELECT status, ended_at, message FROM batches ORDER BY id")
    assert killed[0] == "failed" and killed[1] is not None
    assert killed[2].startswith("stopped while running: its process ended")
    assert rerun_row[:1] == ("finished",)
