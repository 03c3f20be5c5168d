"""Grammar-last sampling with the real embedded model: at temperature 0 the answer is
the one llama-cpp-python's grammar-first chain gives, token for token, and it follows
the schema; warmer, it still follows the schema. Slow: it loads the 0.5B model."""

from __future__ import annotations

import json

import pytest
from langchain_core.messages import HumanMessage, SystemMessage

from batch import config
from batch.models.gguf import verified_model_path
from batch.models.llamacpp import Decoding, LlamaCppChat

from conftest import REPO

pytestmark = pytest.mark.slow

SCHEMA = {
    "type": "object",
    "properties": {
        "scores": {
            "type": "object",
            "properties": {
                "clarity": {"type": "integer", "minimum": 1, "maximum": 5},
                "accuracy": {"type": "integer", "minimum": 1, "maximum": 5},
            },
            "required": ["clarity", "accuracy"],
        },
        "must_fix": {"type": "array", "items": {"type": "string"}, "maxItems": 2},
    },
    "required": ["scores", "must_fix"],
}
DRAFT = (
    "The office is closed on Friday from 15:00. Save your work before you leave; the "
    "heating is off over the weekend and the doors lock at 15:30."
)


@pytest.fixture(scope="module")
def model_path() -> str:
    shipped = config.load(REPO / "config" / "briefloop.toml", environ={})
    return str(
        verified_model_path(
            "qwen2.5-coder-0.5b-instruct", shipped.path(shipped.paths.model_cache), None
        )
    )


def answer(path: str, grammar_last: bool, temperature: float, seed: int = 7) -> str:
    chat = LlamaCppChat(
        model_path=path,
        temperature=temperature,
        max_tokens=90,
        seed=seed,
        slot=f"test-{grammar_last}",
        decoding=Decoding(grammar_last, 0),
    )
    reply = chat.invoke(
        [
            SystemMessage("You are a strict critic. Answer in JSON."),
            HumanMessage(f"Score this memo 1-5 and list what must be fixed:\n\n{DRAFT}"),
        ],
        format=SCHEMA,
    )
    return str(reply.content)


def follows_schema(text: str) -> dict:
    data = json.loads(text)
    assert set(data) == {"scores", "must_fix"}
    # (the grammar makes them integers; their range is the answer model's to check)
    assert all(isinstance(data["scores"][k], int) for k in ("clarity", "accuracy"))
    assert isinstance(data["must_fix"], list) and len(data["must_fix"]) <= 2
    return data


def test_grammar_last_gives_the_grammar_first_answer_at_temperature_0(model_path):
    first = answer(model_path, grammar_last=False, temperature=0.0)
    last = answer(model_path, grammar_last=True, temperature=0.0)
    assert last == first
    follows_schema(last)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_grammar_last_answers_follow_the_schema_when_sampled_warm(model_path, seed):
    follows_schema(answer(model_path, grammar_last=True, temperature=0.8, seed=seed))
