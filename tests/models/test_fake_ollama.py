"""The fake Ollama itself, checked with the official ollama client so its wire shapes
stay those of the real server."""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor

import httpx
import ollama
import pytest

from fake_ollama import FakeOllama, Reply


def test_streamed_chat_comes_in_pieces_and_ends_with_statistics():
    with FakeOllama(["hello world"]) as fake:
        parts = list(
            ollama.Client(fake.base_url).chat(
                model="qwen2.5:7b",
                messages=[{"role": "user", "content": "hi"}],
                stream=True,
            )
        )

    assert [p.done for p in parts] == [False, False, False, True]
    assert "".join(p.message.content or "" for p in parts) == "hello world"
    final = parts[-1]
    assert final.done_reason == "stop"
    assert final.prompt_eval_count and final.eval_count and final.total_duration


def test_unstreamed_chat_is_one_object():
    with FakeOllama([Reply("{}", prompt_eval_count=3, eval_count=2, done_reason="length")]) as fake:
        reply = ollama.Client(fake.base_url).chat(
            model="qwen2.5:7b",
            messages=[{"role": "user", "content": "hi"}],
            stream=False,
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
                model="qwen2.5:7b",
                messages=[{"role": "user", "content": "hi"}],
            ).message.content

        started = time.monotonic()
        with ThreadPoolExecutor(4) as pool:
            answers = list(pool.map(call, range(4)))
        elapsed = time.monotonic() - started

    assert answers == ["ok"] * 4
    assert fake.peak_parallel == 2
    assert elapsed >= 0.4  # two rounds of two


def test_on_chat_runs_before_the_answer_and_wait_for_chats_sees_each_request():
    seen: list[tuple[int, str]] = []
    reached, release = threading.Event(), threading.Event()

    def on_chat(n: int, body: dict) -> None:
        seen.append((n, body["messages"][0]["content"]))
        if n == 2:  # hold the second request until the test lets it go
            reached.set()
            release.wait(10)

    with FakeOllama(default="ok", on_chat=on_chat) as fake:
        client = ollama.Client(fake.base_url)

        def call(text: str) -> str | None:
            return client.chat(
                model="qwen2.5:7b", messages=[{"role": "user", "content": text}]
            ).message.content

        assert fake.chat_count == 0 and not fake.wait_for_chats(1, timeout=0.01)
        assert call("one") == "ok" and fake.wait_for_chats(1, timeout=0)
        with ThreadPoolExecutor(1) as pool:
            second = pool.submit(call, "two")
            assert reached.wait(10) and fake.wait_for_chats(2, timeout=10)
            assert not second.done()  # received, and not answered while on_chat holds it
            release.set()
            assert second.result(10) == "ok"
        client.list()  # not a chat request: not counted, no on_chat
        assert fake.chat_count == 2

    assert seen == [(1, "one"), (2, "two")]


def test_on_chat_is_not_called_for_a_model_the_server_does_not_have():
    calls: list[int] = []
    with FakeOllama(default="ok", on_chat=lambda n, body: calls.append(n)) as fake:
        client = ollama.Client(fake.base_url)
        with pytest.raises(ollama.ResponseError):
            client.chat(model="llama3.2:3b", messages=[{"role": "user", "content": "hi"}])
        client.chat(model="qwen2.5:7b", messages=[{"role": "user", "content": "hi"}])
    assert fake.chat_count == 2 and calls == [2]


def test_unstreamed_faults_look_like_ollamas():
    messages = [{"role": "user", "content": "hi"}]
    with FakeOllama(
        [
            Reply("x" * 200, drop=True, drop_after_chunks=1),
            Reply("partial", stream_error="model runner has unexpectedly stopped"),
        ]
    ) as fake:
        client = ollama.Client(fake.base_url)
        with pytest.raises(httpx.RemoteProtocolError):  # the body stops short
            client.chat(model="qwen2.5:7b", messages=messages, stream=False)
        with pytest.raises(ollama.ResponseError) as failed:
            client.chat(model="qwen2.5:7b", messages=messages, stream=False)

    assert failed.value.status_code == 500
    assert "runner has unexpectedly stopped" in failed.value.error


def test_connections_have_nagle_off_as_go_servers_do():
    import socket

    with FakeOllama(default="ok") as fake, httpx.Client(base_url=fake.base_url) as client:
        client.get("/api/version")
        [conn] = list(fake._connections)
        assert conn.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY)
