"""The fake Ollama itself, checked with the official ollama client so its wire shapes
stay those of the real server."""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor

import httpx
import ollama
import pytest

from fake_ollama import FakeOllama, Reply


def test_streamed_chat_comes_in_pieces_and_ends_with_statistics():
    with FakeOllama(["hello world"]) as fake:
        parts = list(ollama.Client(fake.base_url).chat(
            model="qwen2.5:7b", messages=[{"role": "user", "content": "hi"}], stream=True,
        ))

    assert [p.done for p in parts] == [False, False, False, True]
    assert "".join(p.message.content or "" for p in parts) == "hello world"
    final = parts[-1]
    assert final.done_reason == "stop"
    assert final.prompt_eval_count and final.eval_count and final.total_duration


def test_unstreamed_chat_is_one_object():
    with FakeOllama([Reply("{}", prompt_eval_count=3, eval_count=2, done_reason="length")]) as fake:
        reply = ollama.Client(fake.base_url).chat(
            model="qwen2.5:7b", messages=[{"role": "user", "content": "hi"}], stream=False,
        )

    assert reply.message.content == "{}"
    assert (reply.done, reply.done_reason) == (True, "length")
    assert (reply.prompt_eval_count, reply.eval_count) == (3, 2)


def test_tags_show_version_and_the_request_log():
    with FakeOllama(models=["qwen2.5:7b"]) as fake:
        client = ollama.Client(fake.base_url)
        assert [m.model for m in client.list().models] == ["qwen2.5:7b"]
        assert client.show("qwen2.5:7b").capabilities == ["completion"]
        with pytest.raises(ollama.ResponseError) as missing:
            client.show("llama3.2:3b")
        version = httpx.get(f"{fake.base_url}/api/version").json()

    assert missing.value.status_code == 404
    assert version["version"]
    assert [(r.method, r.path) for r in fake.requests] == [
        ("GET", "/api/tags"),
        ("POST", "/api/show"),
        ("POST", "/api/show"),
        ("GET", "/api/version"),
    ]
    assert fake.requests[1].body == {"model": "qwen2.5:7b"}


def test_an_empty_queue_answers_the_default_or_500():
    messages = [{"role": "user", "content": "hi"}]
    with FakeOllama(default="same") as fake:
        client = ollama.Client(fake.base_url)
        assert client.chat(model="qwen2.5:7b", messages=messages).message.content == "same"
    with FakeOllama() as fake, pytest.raises(ollama.ResponseError) as unscripted:
        ollama.Client(fake.base_url).chat(model="qwen2.5:7b", messages=messages)
    assert unscripted.value.status_code == 500


def test_max_parallel_queues_calls_for_a_slot():
    with FakeOllama(default="ok", max_parallel=2, latency=0.2) as fake:
        client = ollama.Client(fake.base_url)

        def call(_: int) -> str | None:
            return client.chat(
                model="qwen2.5:7b", messages=[{"role": "user", "content": "hi"}],
            ).message.content

        started = time.monotonic()
        with ThreadPoolExecutor(4) as pool:
            answers = list(pool.map(call, range(4)))
        elapsed = time.monotonic() - started

    assert answers == ["ok"] * 4
    assert fake.peak_parallel == 2
    assert elapsed >= 0.4  # two rounds of two
