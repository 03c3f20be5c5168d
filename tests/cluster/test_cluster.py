"""A cluster on one machine: real PostgreSQL, real Redis, real `briefloop worker`
processes (Celery prefork workers), and the fake Ollama server as the model host.

The drills each end by asserting nothing lost (every brief finished, its text written)
and nothing duplicated (one run-log row per brief, each thread's model calls made once,
apart from at most the call a killed worker had in flight).
"""

from __future__ import annotations

import csv as csv_module
import io
import json
import signal
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import sqlalchemy as sa

from batch import config as config_mod
from batch.cluster import hand_to_workers
from batch.cluster.queue import wait_for_batch
from batch.errors import BriefloopError
from batch.nightly.job import run_job
from batch.run.runner import Runner
from batch.store.backends import sqlalchemy_url
from batch.store.runlog import RunLog

from conftest import UNIVERSAL, ollama_config, write_brief
from fake_ollama import FakeOllama
from servers import query as rows
from workers import Worker

pytestmark = pytest.mark.cluster

CALLS_PER_BRIEF = 1  # UNIVERSAL approves in one round: one writer call (the code checks judge)


@pytest.fixture
def workers() -> Iterator[Callable[..., Worker]]:
    started: list[Worker] = []

    def start(cfg: Path, concurrency: int = 1, ready: bool = True) -> Worker:
        worker = Worker(cfg, cfg.parent / f"worker-{len(started)}.log", concurrency)
        started.append(worker)
        return worker.wait_ready() if ready else worker

    yield start
    for worker in started:
        worker.stop()


def cluster_config(
    project: Path,
    server: FakeOllama,
    pg_dsn: str,
    redis_url: str,
    visibility: float = 60.0,
    extra: str = "",
    model_extra: str = "",
) -> Path:
    return ollama_config(
        project,
        server.base_url,
        (
            f'[store]\nbackend = "postgres"\ndsn = "{pg_dsn}"\n'
            f'[cluster]\nbroker = "{redis_url}"\nvisibility_timeout = {visibility}\n'
            f"store_retries = 30\n" + extra
        ),
        model_extra,
    )


def briefs(project: Path, n: int) -> list[str]:
    ids = [f"memo-{i:02d}" for i in range(n)]
    for bid in ids:
        write_brief(project, f"{bid}.md", "The office is closed on Friday.", id=bid)
    return ids


def enqueue(cfg: Path, project: Path) -> int:
    settings = config_mod.load(cfg, environ={})
    summary = run_job(settings, project / "briefs")
    assert summary.batch_id is not None
    return summary.batch_id


def wait_done(cfg: Path, batch_id: int, timeout: float = 90.0) -> dict:
    settings = config_mod.load(cfg, environ={})
    with Runner(settings) as runner:
        return wait_for_batch(runner, batch_id, timeout=timeout, poll=0.2)


def assert_nothing_lost_or_duplicated(
    project: Path, pg_dsn: str, ids: list[str], server: FakeOllama, repeated_at_most: int = 0
) -> None:
    runs = rows(pg_dsn, "SELECT brief_id, status, stop_reason, model_calls FROM runs")
    assert sorted(r[0] for r in runs) == sorted(ids), "one run-log row per brief"
    assert {r[1:3] for r in runs} == {("finished", "approved")}
    # each thread's own record: its calls made once (a repeated call never reached a
    # checkpoint, so it is not in the thread's state)
    assert {r[3] for r in runs} == {CALLS_PER_BRIEF}
    made = len(server.chat_requests)
    assert len(ids) * CALLS_PER_BRIEF <= made <= len(ids) * CALLS_PER_BRIEF + repeated_at_most
    written = sorted(p.stem.split("--")[0] for p in (project / "output").glob("*.md"))
    assert len(written) == len(ids), written


# -- the happy path ------------------------------------------------------------------


def test_a_batch_runs_on_two_workers_and_is_synced_once(project, pg_dsn, redis_url, workers):
    with FakeOllama(default=UNIVERSAL, latency=0.05) as server:
        cfg = cluster_config(project, server, pg_dsn, redis_url)
        ids = briefs(project, 6)
        workers(cfg)
        workers(cfg)
        batch_id = enqueue(cfg, project)
        row = wait_done(cfg, batch_id)
        assert row["status"] == "finished" and row["counts"] == {"approved": 6}
        assert_nothing_lost_or_duplicated(project, pg_dsn, ids, server)
    served_by = rows(pg_dsn, "SELECT DISTINCT worker FROM tasks")
    assert len(served_by) == 2, "both workers took briefs"
    # the sheet is written by one sync at the end of the batch, all rows at once
    deadline = time.monotonic() + 20
    csv = project / "output" / "runs.csv"
    while not csv.exists() and time.monotonic() < deadline:
        time.sleep(0.1)
    # rows, not lines: a cell may hold lines of its own (the judgement in words)
    assert len(list(csv_module.reader(io.StringIO(csv.read_text())))) == 1 + 6


@pytest.mark.parametrize("shared, peak", [(True, 2), (False, 4)])
def test_a_hosts_max_parallel_holds_for_the_whole_cluster(
    shared, peak, project, pg_dsn, redis_url, workers
):
    # Four worker processes, one call at a time each: four at once at the server if each
    # counts its own (shared_max_parallel = false); two, the host's max_parallel,
    # counted together.
    with FakeOllama(default=UNIVERSAL, latency=0.4) as server:
        cfg = cluster_config(
            project,
            server,
            pg_dsn,
            redis_url,
            extra=f"shared_max_parallel = {str(shared).lower()}\n",
            model_extra="max_parallel = 2\n",
        )
        ids = briefs(project, 8)
        for _ in range(4):
            workers(cfg)
        row = wait_done(cfg, enqueue(cfg, project))
        assert row["counts"] == {"approved": 8}
        assert_nothing_lost_or_duplicated(project, pg_dsn, ids, server)
    assert server.peak_parallel == peak
    served_by = rows(pg_dsn, "SELECT count(DISTINCT worker) FROM tasks")
    assert served_by[0][0] >= 3, "the briefs were spread over the workers"


def test_an_enqueue_cut_off_by_the_database_is_closed_by_the_next_batch(
    project, pg_dsn, redis_url, postgres_server, monkeypatch
):
    from batch.cluster import queue as cluster

    with FakeOllama(default=UNIVERSAL) as server:
        cfg = cluster_config(project, server, pg_dsn, redis_url)
        briefs(project, 4)
        real_send, sent = cluster._send, []

        def send_then_lose_the_database(*args):
            real_send(*args)
            sent.append(args[-1])
            if len(sent) == 2:
                postgres_server.stop()

        monkeypatch.setattr(cluster, "_send", send_then_lose_the_database)
        with pytest.raises(Exception) as cut_off:
            enqueue(cfg, project)
        # what fails is the database the enqueue was writing to, not closing the batch
        assert "OperationalError" in type(cut_off.value).__name__ + str(cut_off.value)
        postgres_server.start()
        monkeypatch.setattr(cluster, "_send", real_send)
        assert rows(pg_dsn, "SELECT status, ended_at FROM batches") == [("enqueueing", None)]

        second = enqueue(cfg, project)
        [(status, ended, message)] = rows(
            pg_dsn, f"SELECT status, ended_at, message FROM batches WHERE id <> {second}"
        )
        assert status == "failed" and ended is not None
        assert message.startswith(
            "stopped while enqueueing: its process ended or lost the database"
        )
        # the next batch queued the briefs the first one did not reach, and only those
        assert len(rows(pg_dsn, f"SELECT 1 FROM tasks WHERE batch_id = {second}")) == 2


def test_a_task_the_broker_lost_is_sent_again_by_the_workers(
    project, pg_dsn, redis_url, redis_server, workers
):
    # Redis moves a message it hands out in two steps: a worker killed between them
    # takes it along. Here the message is taken out of the queue by hand.
    with FakeOllama(default=UNIVERSAL, latency=0.05) as server:
        cfg = cluster_config(project, server, pg_dsn, redis_url, visibility=4.0)
        ids = briefs(project, 4)
        batch_id = enqueue(cfg, project)  # no worker yet: all four wait in the queue
        [lost_thread] = [
            r[0]
            for r in rows(pg_dsn, "SELECT thread_id FROM tasks WHERE thread_id LIKE 'memo-00-%'")
        ]
        queue = redis_server.command("LRANGE", "briefloop", "0", "-1")
        [message] = [m for m in queue if lost_thread.encode() in m]
        assert redis_server.command("LREM", "briefloop", "1", message) == 1

        workers(cfg)
        started = time.monotonic()
        row = wait_done(cfg, batch_id, timeout=90)
        assert row["counts"] == {"approved": 4}
        assert_nothing_lost_or_duplicated(project, pg_dsn, ids, server)
    # found once the others had started more than the visibility timeout, 2 of the
    # broker's sweeps and 10 s of slack before (16 s), at the next look (every 5 s)
    assert time.monotonic() - started < 60
    assert rows(pg_dsn, "SELECT state, message FROM tasks") == [("done", None)] * 4


def test_the_same_batch_enqueued_twice_runs_each_brief_once(project, pg_dsn, redis_url, workers):
    with FakeOllama(default=UNIVERSAL, latency=0.02) as server:
        cfg = cluster_config(project, server, pg_dsn, redis_url)
        ids = briefs(project, 4)
        first = enqueue(cfg, project)
        second = enqueue(cfg, project)  # no worker yet: all four are still queued
        workers(cfg, concurrency=2)
        assert wait_done(cfg, first)["counts"] == {"approved": 4}
        assert wait_done(cfg, second)["counts"] == {"in_queue": 4}
        third = enqueue(cfg, project)  # all done now: nothing is sent
        assert wait_done(cfg, third)["counts"] == {"skipped": 4}
        assert_nothing_lost_or_duplicated(project, pg_dsn, ids, server)


def test_run_from_the_cli_queues_and_waits(project, pg_dsn, redis_url, workers):
    from click.testing import CliRunner

    from batch.cli import cli

    with FakeOllama(default=UNIVERSAL, latency=0.02) as server:
        cfg = cluster_config(project, server, pg_dsn, redis_url)
        briefs(project, 2)
        workers(cfg)
        result = CliRunner().invoke(
            cli, ["--config", str(cfg), "run", str(project / "briefs"), "--wait", "60"]
        )
        assert result.exit_code == 0, result.output
        assert "queued for the workers" in result.output
        assert "approved 2" in result.output
        listed = CliRunner().invoke(cli, ["--config", str(cfg), "runs", "--json"])
        assert listed.exit_code == 0
        assert {r["status"] for r in json.loads(listed.output)} == {"finished"}


# -- drills ---------------------------------------------------------------------------


def test_drill_a_worker_killed_mid_brief_costs_the_call_in_flight(
    project, pg_dsn, redis_url, workers
):
    """Two workers; SIGKILL one (pool and all) while a model call of its is in flight.
    The broker hands its brief to the other after the visibility timeout, which resumes
    the thread from its last checkpoint."""
    victim: list[Worker] = []
    killed = threading.Event()

    def kill_on_third_call(n: int, body: dict) -> None:
        if n == 3 and victim:  # the third call: some worker is mid-brief
            victim[0].kill()
            killed.set()

    with FakeOllama(default=UNIVERSAL, latency=0.2, on_chat=kill_on_third_call) as server:
        cfg = cluster_config(project, server, pg_dsn, redis_url, visibility=3.0)
        ids = briefs(project, 4)
        victim.append(workers(cfg))
        batch_id = enqueue(cfg, project)  # only the victim is up: it takes a brief
        assert server.wait_for_chats(1, timeout=30)
        workers(cfg)  # the survivor
        row = wait_done(cfg, batch_id, timeout=120)
        assert killed.is_set()
        assert row["status"] == "finished"
        assert_nothing_lost_or_duplicated(project, pg_dsn, ids, server, repeated_at_most=1)


def mid_batch_hook(after_calls: int) -> tuple[threading.Event, Callable[[int, dict], None]]:
    """An on_chat hook that says when the batch is under way (some briefs done, others
    running or queued). The test acts on it from its main thread: a server started from
    a thread that ends would die with it (tests/servers.py)."""
    reached = threading.Event()

    def hook(n: int, body: dict) -> None:
        if n >= after_calls:
            reached.set()

    return reached, hook


@pytest.mark.parametrize("server_down", ["redis", "postgres"])
def test_drill_a_server_restarted_mid_batch(
    server_down, project, pg_dsn, redis_url, redis_server, postgres_server, workers
):
    """Redis restarted: the workers reconnect; a task whose acknowledgement was lost
    with the connection is delivered again, finds its thread finished and calls no
    model. PostgreSQL down hard for two seconds: the workers' writes fail, their tasks
    retry until it is back, then carry on; a call whose result could not be
    checkpointed is made again."""
    reached, hook = mid_batch_hook(after_calls=4)
    with FakeOllama(default=UNIVERSAL, latency=0.1, on_chat=hook) as server:
        cfg = cluster_config(project, server, pg_dsn, redis_url, visibility=5.0)
        ids = briefs(project, 6)
        workers(cfg)
        workers(cfg)
        batch_id = enqueue(cfg, project)
        assert reached.wait(60)
        if server_down == "redis":
            redis_server.restart()
        else:
            postgres_server.kill()
            time.sleep(2.0)
            postgres_server.start()
        row = wait_done(cfg, batch_id, timeout=120)
        assert row["status"] == "finished"
        assert_nothing_lost_or_duplicated(
            project, pg_dsn, ids, server, repeated_at_most=0 if server_down == "redis" else 2
        )


def test_drill_two_schedulers_enqueue_each_brief_once(project, pg_dsn, redis_url, workers):
    from conftest import briefloop_process

    with FakeOllama(default=UNIVERSAL, latency=0.02) as server:
        cfg = cluster_config(
            project,
            server,
            pg_dsn,
            redis_url,
            extra=(
                '[[schedule.jobs]]\nname = "nightly"\ncron = "*/2 * * * * *"\nsource = "briefs"\n'
            ),
        )
        ids = briefs(project, 4)
        RunLog(sa.create_engine(sqlalchemy_url(pg_dsn))).close()  # the tables, to poll
        workers(cfg, concurrency=2)
        schedulers = [briefloop_process(cfg, "schedule") for _ in range(2)]
        try:
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline:
                done = rows(pg_dsn, "SELECT count(*) FROM runs WHERE status = 'finished'")
                fired = rows(pg_dsn, "SELECT count(*) FROM batches")
                if done[0][0] == len(ids) and fired[0][0] >= 4:
                    break
                time.sleep(0.3)
        finally:
            for proc in schedulers:
                proc.send_signal(signal.SIGTERM)
            for proc in schedulers:
                proc.wait(30)
        assert_nothing_lost_or_duplicated(project, pg_dsn, ids, server)
        assert rows(pg_dsn, "SELECT count(*) FROM batches")[0][0] >= 4  # both fired, often


def test_a_review_answer_goes_through_the_queue(project, pg_dsn, redis_url, workers, webhook):
    """A text that needs a figure waits (and the message after the batch says so, once);
    the answer is queued, a worker resumes the thread, and it is approved with the
    figure filled in."""
    from batch.review import threads as review

    from conftest import critic_answer, writer_answer

    placeholder = "[FIGURE NEEDED: Q3 revenue]"

    def respond(body: dict) -> str:
        if "format" not in body:  # the writer: plain text
            return json.dumps(
                writer_answer(
                    f"Q3 revenue was {placeholder}. The office is closed on Friday.",
                    needs=[(placeholder, "What was Q3 revenue?")],
                )
            )
        return json.dumps(critic_answer(5))

    url, messages = webhook
    with FakeOllama(default=respond, latency=0.02) as server:
        cfg = cluster_config(
            project, server, pg_dsn, redis_url, extra=f'[notify]\nwebhook_url = "{url}"\n'
        )
        write_brief(
            project, "q3.md", "Tell staff Q3 revenue. The office is closed on Friday.", id="q3"
        )
        first = workers(cfg)
        assert wait_done(cfg, enqueue(cfg, project))["counts"] == {"awaiting_human": 1}
        deadline = time.monotonic() + 20  # sent by the sync task after the batch closed
        while not messages and time.monotonic() < deadline:
            time.sleep(0.1)
        [message] = messages
        assert "q3" in message["text"] and "Q3 revenue" in message["text"]
        first.stop()  # the answers wait in the queue until a worker is back
        settings = config_mod.load(cfg, environ={})
        with Runner(settings, resumer=hand_to_workers) as runner:
            [waiting] = review.list_waiting(runner)
            result = review.answer(
                runner, waiting.thread_id, "approve", {placeholder: "4.2 million euros"}, by="ana"
            )
            assert result.outcome == "queued"
            with pytest.raises(BriefloopError, match="already queued or running"):
                review.answer(
                    runner, waiting.thread_id, "approve", {placeholder: "5 million euros"}, by="bob"
                )
            workers(cfg)
            deadline = time.monotonic() + 60
            while (
                runner.runlog.by_thread(waiting.thread_id)["status"] != "finished"
                and time.monotonic() < deadline
            ):
                time.sleep(0.2)
            record = runner.runlog.by_thread(waiting.thread_id)
        assert (record["stop_reason"], record["decided_by"]) == ("approved_by_human", "ana")
        [text] = (project / "output").glob("*.md")
        assert "4.2 million euros" in text.read_text() and "NEEDED" not in text.read_text()
        # which server answered each call is on the record (the code checks judged: no
        # critic call)
        assert record["hosts"] == [f"writer@{server.base_url}"]


@pytest.mark.parametrize("cell", ["title", "brief"])
def test_a_brief_the_database_cannot_store_is_counted_and_named(
    cell, project, pg_dsn, redis_url, workers
):
    # A NUL, which PostgreSQL refuses in text, in one row of a sheet: every row is
    # counted in its batch, and the batch is not "finished" with the row missing.
    sheet = project / "sheet.csv"
    rows_ = [["id", "title", "brief"]]
    rows_ += [[f"memo-{i}", "Memo", "The office is closed on Friday."] for i in range(3)]
    bad = ["nul", "Memo", "The office is closed on Friday."]
    bad[1 if cell == "title" else 2] = bad[1 if cell == "title" else 2] + "\x00 x"
    rows_.append(bad)
    sheet.write_text("\n".join(",".join(r) for r in rows_) + "\n", encoding="utf-8")
    with FakeOllama(default=UNIVERSAL, latency=0.02) as server:
        cfg = cluster_config(project, server, pg_dsn, redis_url)
        workers(cfg)
        summary = run_job(config_mod.load(cfg, environ={}), sheet)
        row = wait_done(cfg, summary.batch_id)
    counts = row["counts"]
    assert sum(counts.values()) == 4, (row, summary.results)
    runs = {r[0]: r[1] for r in rows(pg_dsn, "SELECT brief_id, status FROM runs")}
    assert set(runs) == {"memo-0", "memo-1", "memo-2", "nul"}, runs
    assert all(s == "finished" for s in runs.values()), runs
