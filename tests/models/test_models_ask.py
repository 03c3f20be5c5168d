"""ask(): parsing, the one retry, and what the retry of a cut-off answer looks like."""

from __future__ import annotations

import json

import pytest
from pydantic import BaseModel

from batch.errors import ModelOutputInvalid
from batch.models.base import CallStat, Completion, _prompt_tokens, ask
from batch.models.chat import ChatRoleModel
from batch.models.llamacpp import LlamaCppChat

from conftest import ScriptedModel

MESSAGES = [
    {"role": "system", "content": "You write short internal memos."},
    {"role": "user", "content": "Write a memo announcing the new on-call rota."},
]


class Answer(BaseModel):
    text: str


VALID = {"text": "From Monday the on-call rota changes weekly."}


def cut_off(text: str = '{"text": "From Monday the on-call rota chan') -> Completion:
    return Completion(text=text, input_tokens=40, output_tokens=1000, truncated=True)


def prompt_tokens(messages=MESSAGES) -> int:
    return _prompt_tokens(ScriptedModel(), messages)


def test_a_cut_off_answer_is_retried_with_twice_the_tokens_and_the_same_prompt():
    model = ScriptedModel([cut_off(), VALID], max_tokens=1000)
    stats: list[CallStat] = []

    assert ask(model, "writer", MESSAGES, Answer, stats) == Answer(**VALID)

    assert model.max_tokens_sent == [1000, 2000]
    assert model.sent == [MESSAGES, MESSAGES]  # nothing added: the same text gets room
    assert [(s.ok, s.truncated) for s in stats] == [(False, True), (True, False)]


def test_the_larger_retry_stays_within_num_ctx():
    num_ctx = prompt_tokens() + 1700  # room for +70 %, not for x2
    model = ScriptedModel([cut_off(), VALID], num_ctx=num_ctx, max_tokens=1000)

    ask(model, "writer", MESSAGES, Answer, [])

    assert model.max_tokens_sent == [1000, 1700]
    assert prompt_tokens(model.sent[1]) + model.max_tokens_sent[1] == num_ctx


def test_without_room_to_grow_the_retry_asks_for_a_shorter_text():
    num_ctx = prompt_tokens() + 1000 + 200  # +20 % left: too little to finish the same text
    model = ScriptedModel([cut_off(), VALID], num_ctx=num_ctx, max_tokens=1000)
    stats: list[CallStat] = []

    ask(model, "writer", MESSAGES, Answer, stats)

    first, retry = model.sent
    assert retry != first
    assert retry[:2] == MESSAGES
    note = retry[2]
    assert note["role"] == "user"
    assert "cut off at 1000 tokens" in note["content"]
    assert "shorter text" in note["content"]
    assert model.max_tokens_sent[1] >= 1000
    assert prompt_tokens(retry) + model.max_tokens_sent[1] <= num_ctx
    assert [s.truncated for s in stats] == [True, False]


def test_at_the_bound_the_retry_asks_for_a_shorter_text_with_the_same_max_tokens():
    # First with no token to spare: the request for a shorter text itself takes a few,
    # so max_tokens shrinks by that much to fit.
    num_ctx = prompt_tokens() + 1000
    model = ScriptedModel([cut_off(), VALID], num_ctx=num_ctx, max_tokens=1000)
    ask(model, "writer", MESSAGES, Answer, [])
    note = model.sent[1][-1]
    assert note["role"] == "user" and "shorter text" in note["content"]
    assert "cut off at 1000 tokens" in note["content"]
    note_tokens = prompt_tokens(model.sent[1]) - prompt_tokens()
    assert model.max_tokens_sent == [1000, 1000 - note_tokens]
    assert prompt_tokens(model.sent[1]) + model.max_tokens_sent[1] == num_ctx

    # With room for just that request: the same max_tokens, never the identical call.
    num_ctx = prompt_tokens() + 1000 + note_tokens
    model = ScriptedModel([cut_off(), VALID], num_ctx=num_ctx, max_tokens=1000)
    ask(model, "writer", MESSAGES, Answer, [])
    assert model.max_tokens_sent == [1000, 1000]
    assert model.sent[1] == [*MESSAGES, note]


def test_an_invalid_answer_that_was_not_cut_off_is_retried_with_the_error_shown():
    wrong = json.dumps({"body": "no text field"})
    model = ScriptedModel([wrong, VALID], max_tokens=1000)
    stats: list[CallStat] = []

    ask(model, "writer", MESSAGES, Answer, stats)

    assert model.max_tokens_sent == [1000, 1000]
    retry = model.sent[1]
    assert retry[:2] == MESSAGES
    assert retry[2] == {"role": "assistant", "content": wrong}
    assert retry[3]["role"] == "user"
    assert "does not match the schema" in retry[3]["content"]
    assert "text: Field required" in retry[3]["content"]
    assert [(s.ok, s.truncated) for s in stats] == [(False, False), (True, False)]


def test_two_invalid_answers_raise_model_output_invalid():
    model = ScriptedModel(["Sure! Here is your memo.", "{not json either"])
    stats: list[CallStat] = []

    with pytest.raises(ModelOutputInvalid, match="invalid answer twice"):
        ask(model, "writer", MESSAGES, Answer, stats)

    assert model.calls == 2
    assert [s.ok for s in stats] == [False, False]


def test_cut_off_twice_raises_and_names_the_larger_limit():
    model = ScriptedModel([cut_off(), cut_off()], max_tokens=1000)
    stats: list[CallStat] = []

    with pytest.raises(ModelOutputInvalid, match=r"cut off at max_tokens = 2000"):
        ask(model, "writer", MESSAGES, Answer, stats)

    assert model.max_tokens_sent == [1000, 2000]
    assert [(s.ok, s.truncated) for s in stats] == [(False, True), (False, True)]


def test_a_cut_off_answer_that_still_parses_is_taken_and_counted_as_truncated():
    model = ScriptedModel([cut_off(json.dumps(VALID))])
    stats: list[CallStat] = []

    assert ask(model, "writer", MESSAGES, Answer, stats) == Answer(**VALID)

    assert [(s.ok, s.truncated) for s in stats] == [(True, True)]


def test_the_per_call_limit_goes_into_the_llama_chat_models_max_tokens():
    chat = LlamaCppChat(model_path="/nonexistent.gguf", max_tokens=300)  # nothing is loaded
    model = ChatRoleModel(
        "embedded", chat, num_ctx=2048, max_tokens=300, max_tokens_field="max_tokens"
    )

    assert model.chat_for(None) is chat
    assert model.chat_for(300) is chat
    bigger = model.chat_for(600)
    assert bigger.max_tokens == 600 and chat.max_tokens == 300
    assert bigger.model_path == chat.model_path and bigger.n_ctx == chat.n_ctx


def test_a_chat_model_without_the_limit_field_is_refused():
    chat = LlamaCppChat(model_path="/nonexistent.gguf")
    with pytest.raises(TypeError, match="no field 'num_predict'"):
        ChatRoleModel(
            "embedded", chat, num_ctx=2048, max_tokens=300, max_tokens_field="num_predict"
        )


def test_a_runaway_answer_is_retried_with_a_note_not_more_room():
    from batch.loop.answers import FinalizerAnswer

    model = ScriptedModel(
        [
            Completion('{"text": "Fine start.\n' + "```\n" * 40, 10, 400, truncated=True),
            {"text": "Fine start."},
        ],
        num_ctx=4000,
        max_tokens=400,
    )
    stats = []
    assert (
        ask(model, "finalizer", [{"role": "user", "content": "x"}], FinalizerAnswer, stats).text
        == "Fine start."
    )
    assert model.max_tokens_sent == [400, 400]
    assert "repeated '```' over and over" in model.sent[1][-1]["content"]
