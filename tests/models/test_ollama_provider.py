"""The Ollama provider end to end: build_ollama + ask over real HTTP to a fake Ollama.

Nothing below the provider is mocked: ChatOllama, the ollama client and httpx all run,
so these tests pin both our error translation and the wire format we depend on.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator

import pytest

from batch.config import ModelSettings
from batch.errors import ModelNotFound, ModelOutputInvalid, ModelUnavailable, PromptTooLong
from batch.loop.answers import WriterAnswer
from batch.models.base import CallStat, ask
from batch.models.ollama import build_ollama

from fake_ollama import (
    FakeOllama,
    Reply,
    delayed,
    dropped,
    http_error,
    model_not_found,
    stream_error,
)

MODEL = "qwen2.5:7b"

MESSAGES = [
    {"role": "system", "content": "You write short internal memos."},
    {"role": "user", "content": "Write a memo announcing the new on-call rota."},
]

VALID = json.dumps(
    {
        "draft": "# On-call rota\n\nFrom [DATE NEEDED: start date] the rota changes weekly.",
        "deliberate_deviations": [],
        "needs_from_human": [
            {"placeholder": "[DATE NEEDED: start date]", "question": "When does it start?"}
        ],
    }
)


@pytest.fixture
def server() -> Iterator[FakeOllama]:
    with FakeOllama() as fake:
        yield fake


def settings(base_url: str, **overrides: object) -> ModelSettings:
    values: dict[str, object] = {
        "provider": "ollama",
        "model": MODEL,
        "base_url": base_url,
        "timeout": 5.0,
        "num_ctx": 2048,
        "max_tokens": 300,
    }
    values.update(overrides)
    return ModelSettings(**values)


def ask_writer(base_url: str, stats: list[CallStat], **overrides: object) -> WriterAnswer:
    model = build_ollama(settings(base_url, **overrides))
    return ask(model, "writer", MESSAGES, WriterAnswer, stats)


def test_valid_answer_is_parsed_and_the_request_carries_schema_and_options(server):
    server.enqueue(Reply(VALID, prompt_eval_count=57, eval_count=33))
    stats: list[CallStat] = []

    answer = ask_writer(server.base_url, stats)

    assert answer == WriterAnswer.model_validate_json(VALID)
    [sent] = server.chat_requests
    assert sent["model"] == MODEL
    assert sent["format"] == WriterAnswer.model_json_schema()
    assert sent["options"]["num_ctx"] == 2048
    assert sent["options"]["num_predict"] == 300
    assert sent["messages"] == MESSAGES
    assert sent["stream"] is False  # the answer whole: see batch/models/ollama.py
    [stat] = stats
    assert stat.role == "writer"
    assert stat.model == f"ollama:{MODEL}"
    assert (stat.input_tokens, stat.output_tokens) == (57, 33)
    assert stat.ok is True
    assert stat.seconds >= 0
    assert stat.host == server.base_url


def test_invalid_answer_is_retried_once_with_the_problem_shown(server):
    wrong = json.dumps({"draft": "no lists"})
    server.enqueue(Reply(wrong, eval_count=5), Reply(VALID, eval_count=40))
    stats: list[CallStat] = []

    answer = ask_writer(server.base_url, stats)

    assert answer.draft.startswith("# On-call rota")
    first, second = server.chat_requests
    assert first["messages"] == MESSAGES
    assert second["messages"][:2] == MESSAGES
    assert second["messages"][2] == {"role": "assistant", "content": wrong}
    retry = second["messages"][3]
    assert retry["role"] == "user"
    assert "does not match the schema" in retry["content"]
    assert "deliberate_deviations" in retry["content"]
    assert [s.ok for s in stats] == [False, True]
    assert [s.output_tokens for s in stats] == [5, 40]


def test_truncated_answer_is_retried_with_a_larger_num_predict(server):
    # done_reason "length" must reach Completion.truncated through LangChain's metadata,
    # and the retry's larger limit must reach Ollama as options.num_predict.
    server.enqueue(Reply('{"draft": "cut off mid', done_reason="length"), VALID)
    stats: list[CallStat] = []

    ask_writer(server.base_url, stats)

    first, retry = server.chat_requests
    assert retry["messages"] == MESSAGES
    assert first["options"]["num_predict"] == 300
    assert retry["options"]["num_predict"] == 600
    assert {k: v for k, v in retry["options"].items() if k != "num_predict"} == {
        k: v for k, v in first["options"].items() if k != "num_predict"
    }
    assert [s.truncated for s in stats] == [True, False]


def test_truncated_answer_without_room_asks_for_a_shorter_text(server):
    server.enqueue(Reply('{"draft": "cut off mid', done_reason="length"), VALID)

    ask_writer(server.base_url, [], num_ctx=400, max_tokens=300)

    first, retry = server.chat_requests
    assert retry["messages"][:2] == MESSAGES
    assert "cut off at 300 tokens" in retry["messages"][-1]["content"]
    assert "shorter text" in retry["messages"][-1]["content"]
    assert retry["options"]["num_predict"] <= 300
    assert retry["options"]["num_ctx"] == 400


def test_truncated_twice_names_the_limit_in_the_error(server):
    cut = Reply('{"draft": "cut off mid', done_reason="length")
    server.enqueue(cut, cut)

    with pytest.raises(ModelOutputInvalid, match="cut off at max_tokens = 600"):
        ask_writer(server.base_url, [])


def test_two_invalid_answers_raise_model_output_invalid(server):
    server.enqueue("Sure! Here is your memo.", "{not json either")
    stats: list[CallStat] = []

    with pytest.raises(ModelOutputInvalid, match="invalid answer twice"):
        ask_writer(server.base_url, stats)

    assert len(server.chat_requests) == 2
    assert [s.ok for s in stats] == [False, False]


def test_model_not_found_tells_how_to_pull_it(server):
    server.enqueue(model_not_found(MODEL))
    stats: list[CallStat] = []

    with pytest.raises(ModelNotFound, match=r"ollama pull qwen2\.5:7b"):
        ask_writer(server.base_url, stats)

    assert stats == []


def test_model_the_server_does_not_have_is_model_not_found():
    with FakeOllama(models=["llama3.2:3b"]) as fake, pytest.raises(ModelNotFound):
        ask_writer(fake.base_url, [])


@pytest.mark.parametrize("status", [500, 503, 429])
def test_server_error_is_model_unavailable(server, status):
    server.enqueue(http_error(status, "boom"))

    with pytest.raises(ModelUnavailable, match=rf"answered {status}: boom"):
        ask_writer(server.base_url, [])


def test_closed_port_is_model_unavailable():
    with FakeOllama() as fake:
        base_url = fake.base_url
    # The fake has closed its listening socket: nothing answers on that port now.
    with pytest.raises(ModelUnavailable, match="cannot reach"):
        ask_writer(base_url, [])


def test_slow_server_times_out_as_model_unavailable(server):
    server.enqueue(delayed(3.0, VALID))
    started = time.monotonic()

    with pytest.raises(ModelUnavailable, match="timed out after 0.5s"):
        ask_writer(server.base_url, [], timeout=0.5)

    assert time.monotonic() - started < 2.5


@pytest.mark.parametrize("after_chunks", [0, 1], ids=["before-answer", "mid-answer"])
def test_dropped_connection_is_model_unavailable(server, after_chunks):
    server.enqueue(dropped(after_chunks, VALID))

    with pytest.raises(ModelUnavailable, match="closed the connection mid-answer"):
        ask_writer(server.base_url, [])


def test_runner_dying_mid_generation_is_model_unavailable(server):
    # Ollama's model runner died mid-generation: unstreamed, it answers 500.
    server.enqueue(stream_error("model runner has unexpectedly stopped", VALID[:20]))

    with pytest.raises(ModelUnavailable, match="runner has unexpectedly stopped"):
        ask_writer(server.base_url, [])


def test_prompt_too_long_is_refused_before_any_request(server):
    model = build_ollama(settings(server.base_url, num_ctx=512, max_tokens=256))
    long_messages = [*MESSAGES, {"role": "user", "content": "background " * 200}]

    with pytest.raises(PromptTooLong, match="num_ctx = 512"):
        ask(model, "writer", long_messages, WriterAnswer, [])

    assert server.requests == []


def test_credentials_in_the_url_never_reach_an_error():
    from batch.models.ollama import public_url

    assert (
        public_url("https://nightly:s3cr3t@llm.example.com:8443/x")
        == "https://llm.example.com:8443/x"
    )
    settings = ModelSettings(
        provider="ollama", model="m", base_url="http://u:s3cr3t@127.0.0.1:9", timeout=0.5
    )
    with pytest.raises(ModelUnavailable) as e:
        ask(build_ollama(settings), "writer", [{"role": "user", "content": "x"}], WriterAnswer, [])
    assert "s3cr3t" not in str(e.value) and "127.0.0.1:9" in str(e.value)


def test_non_latin_text_counts_more_tokens():
    model = build_ollama(ModelSettings(provider="ollama", model="m", num_ctx=1000, max_tokens=100))
    assert model.count_tokens("季度收入" * 100) >= 800
    assert model.count_tokens("abc" * 100) == 101
