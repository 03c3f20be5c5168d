"""A model host's `max_parallel` held cluster-wide (batch.store.slots): slots as PostgreSQL
advisory locks on a real server, shared by processes (here: by sessions, one gate per
simulated process, and by real child processes), in front of real HTTP to FakeOllama."""

from __future__ import annotations

import json
import logging
import os
import signal
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from batch.config import ModelSettings
from batch.loop.answers import WriterAnswer
from batch.models.ollama import build_ollama
from batch.store.slots import UNCOUNTED, PostgresSlots

from conftest import REPO
from fake_ollama import FakeOllama

URL = "http://gpu-1:11434"
MESSAGES = [{"role": "user", "content": "Write a memo announcing the new on-call rota."}]
VALID = json.dumps(
    {"draft": "# Rota\n\nWeekly from Monday.", "deliberate_deviations": [], "needs_from_human": []}
)


def test_a_hosts_slots_are_shared_by_every_session(pg_dsn: str):
    one, two = PostgresSlots(pg_dsn), PostgresSlots(pg_dsn)
    try:
        assert [one.take(URL, 2), one.take(URL, 2)] == [0, 1]
        assert one.take(URL, 2) is None  # re-entrant locks, but never the same slot twice
        assert two.take(URL, 2) is None  # taken in the other process
        assert two.take("http://gpu-2:11434", 2) == 0  # another host's slots are its own
        assert two.in_use([URL, "http://gpu-2:11434"]) == {URL: 2, "http://gpu-2:11434": 1}
        one.give_back(URL, 1)
        assert two.take(URL, 2) == 1
        assert one.in_use([URL]) == {URL: 2}
    finally:
        one.close()
        two.close()


HOLDER = """
import sys, time
from batch.store.slots import PostgresSlots
slots = PostgresSlots(sys.argv[1])
print(slots.take(sys.argv[2], 1), flush=True)
time.sleep(120)
"""


def test_the_slots_of_a_killed_process_are_free_at_once(pg_dsn: str):
    child = subprocess.Popen(
        [sys.executable, "-c", HOLDER, pg_dsn, URL],
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    mine = PostgresSlots(pg_dsn)
    try:
        assert child.stdout.readline().strip() == "0", child.stderr.read()
        assert mine.take(URL, 1) is None
        os.kill(child.pid, signal.SIGKILL)
        child.wait(10)
        deadline = time.monotonic() + 5
        while (slot := mine.take(URL, 1)) is None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert slot == 0
    finally:
        child.kill()
        child.wait()
        child.stdout.close()
        child.stderr.close()
        mine.close()


def pooled(base_url: str, gate: PostgresSlots, max_parallel: int):
    return build_ollama(
        ModelSettings(
            provider="ollama",
            model="qwen2.5:7b",
            base_url=base_url,
            timeout=20.0,
            num_ctx=2048,
            max_tokens=300,
            max_parallel=max_parallel,
        ),
        gate=gate,
    )


def test_four_processes_never_send_a_host_more_than_its_max_parallel(pg_dsn: str):
    # Four processes, each with its own gate (session) and its own host pool, each
    # making 3 calls at once: 12 at once without the gate, 2 with it.
    with FakeOllama(default=VALID, latency=0.3) as server:
        gates = [PostgresSlots(pg_dsn) for _ in range(4)]
        models = [pooled(server.base_url, gate, max_parallel=2) for gate in gates]
        started = time.monotonic()
        try:
            with ThreadPoolExecutor(12) as pool:
                answers = list(
                    pool.map(
                        lambda i: models[i % 4].complete(
                            MESSAGES, WriterAnswer.model_json_schema()
                        ),
                        range(12),
                    )
                )
        finally:
            for gate in gates:
                gate.close()
        elapsed = time.monotonic() - started
    assert server.peak_parallel == 2
    assert server.chat_count == 12 and len(answers) == 12
    assert elapsed >= 6 * 0.3  # six waves of two
    assert all(h.in_flight == 0 and h.slots == [] for m in models for h in m.pool.hosts)


def test_the_busiest_host_cluster_wide_gets_the_next_call(pg_dsn: str):
    with FakeOllama(default=VALID) as a, FakeOllama(default=VALID) as b:
        elsewhere, mine = PostgresSlots(pg_dsn), PostgresSlots(pg_dsn)
        try:
            assert elsewhere.take(a.base_url, 4) == 0  # another process is calling a
            model = build_ollama(
                ModelSettings(
                    provider="ollama",
                    model="qwen2.5:7b",
                    base_url=[a.base_url, b.base_url],
                    timeout=5.0,
                    num_ctx=2048,
                    max_tokens=300,
                    max_parallel=4,
                ),
                gate=mine,
            )
            answer = model.complete(MESSAGES, WriterAnswer.model_json_schema())
        finally:
            elsewhere.close()
            mine.close()
    assert answer.host == b.base_url  # a is 1/4 busy in the cluster, b is free


def test_a_call_waits_for_a_slot_freed_in_another_process(pg_dsn: str):
    with FakeOllama(default=VALID) as server:
        elsewhere, mine = PostgresSlots(pg_dsn), PostgresSlots(pg_dsn)
        try:
            assert elsewhere.take(server.base_url, 1) == 0
            threading.Timer(0.5, elsewhere.give_back, (server.base_url, 0)).start()
            model = pooled(server.base_url, mine, max_parallel=1)
            started = time.monotonic()
            model.complete(MESSAGES, WriterAnswer.model_json_schema())
            waited = time.monotonic() - started
        finally:
            elsewhere.close()
            mine.close()
    assert 0.45 <= waited < 3


def test_while_the_database_is_down_calls_go_through_counted_per_process(
    pg_dsn: str, postgres_server, caplog: pytest.LogCaptureFixture
):
    gate = PostgresSlots(pg_dsn)
    try:
        assert gate.take(URL, 2) == 0
        postgres_server.stop()
        with caplog.at_level(logging.WARNING, logger="briefloop.slots"):
            assert gate.take(URL, 2) == UNCOUNTED
            assert gate.take(URL, 2) == UNCOUNTED
        assert [r.message.count("cannot be reached") for r in caplog.records] == [1]
        gate.give_back(URL, 0)  # its session is gone: nothing to give back, no error
        postgres_server.start()
        assert [gate.take(URL, 2), gate.take(URL, 2)] == [0, 1]  # a new session
    finally:
        gate.close()
