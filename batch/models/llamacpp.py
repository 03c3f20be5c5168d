"""The embedded provider: a small LangChain chat model over llama_cpp.Llama.

Structured output goes through llama.cpp's JSON-schema grammar (`format=<schema>`, the
same keyword ChatOllama takes). One Llama object per model file and context size is
loaded per process and shared; calls on it are serialised because a Llama object is
not safe to use from two threads at once.
"""

from __future__ import annotations

import atexit
import functools
import json
import os
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult

from batch.config import ModelSettings
from batch.errors import ModelFileError
from batch.models.base import repeated
from batch.models.chat import ChatRoleModel
from batch.models.gguf import verified_model_path
from batch.models.grammar_sampling import grammar_last_llama

_ROLES = {"system": "system", "human": "user", "ai": "assistant"}

_cache_lock = threading.Lock()
_loaded: dict[tuple[Any, ...], tuple[Any, threading.Lock]] = {}


@dataclass(frozen=True)
class Decoding:
    """How the embedded model turns logits into tokens (bench/decode.py measures each).

    `grammar_last`: a JSON-schema answer's grammar is checked on the chosen token only,
    and over the whole vocabulary only when it refuses that token
    (batch.models.grammar_sampling); the same answer at temperature 0, several times
    faster. `lookup_tokens`: prompt-lookup decoding, up to this many draft tokens
    copied from the prompt and checked in one batch (0: off)."""

    grammar_last: bool = True
    lookup_tokens: int = 0


def load_llama(
    path: Path, n_ctx: int, threads: int, slot: str = "", decoding: Decoding = Decoding()
) -> tuple[Any, threading.Lock]:
    """The process-wide Llama for this file, context size, slot and decoding, and its
    lock.

    Each role gets its own slot: llama.cpp reuses the KV cache only for the prefix the
    previous prompt shares, so a writer and a critic taking turns on one Llama object
    would evict each other's cached system prompt and brief every call.
    """
    try:
        from llama_cpp import Llama
        from llama_cpp.llama_speculative import LlamaPromptLookupDecoding
    except ImportError:
        raise ModelFileError(
            "the embedded provider needs llama-cpp-python: pip install -e '.[embedded]'"
        ) from None
    key = (str(path), n_ctx, threads, slot, decoding)
    with _cache_lock:
        if key not in _loaded:
            kind = grammar_last_llama(Llama) if decoding.grammar_last else Llama
            draft = (
                LlamaPromptLookupDecoding(num_pred_tokens=decoding.lookup_tokens)
                if decoding.lookup_tokens
                else None
            )
            # logits_all: the drafted tokens are checked from the logits of every
            # position (llama-cpp-python sizes its buffer for n_batch rows otherwise,
            # and a prompt longer than that fails)
            llama = kind(
                model_path=str(path),
                n_ctx=n_ctx,
                n_threads=threads or max(1, os.cpu_count() or 1),
                verbose=False,
                draft_model=draft,
                logits_all=draft is not None,
            )
            _loaded[key] = (llama, threading.Lock())
        return _loaded[key]


def _close_all() -> None:
    """Free every loaded model while the interpreter still runs: a Llama left for
    interpreter teardown is freed after llama.cpp's bindings are gone, and prints a
    TypeError from `free_model` for each one."""
    with _cache_lock:
        for llama, _ in _loaded.values():
            llama.close()
        _loaded.clear()


atexit.register(_close_all)


def unload_all() -> None:
    """Drop every loaded Llama (a benchmark comparing decodings frees each one's)."""
    with _cache_lock:
        _loaded.clear()


@functools.lru_cache(maxsize=64)
def _gbnf(schema_json: str) -> str:
    from llama_cpp.llama_grammar import json_schema_to_gbnf

    return json_schema_to_gbnf(schema_json)


def grammar_of(schema: dict) -> str:
    """The llama.cpp grammar of a JSON schema. Raises ValueError for a schema it cannot
    convert (a regex feature it lacks, such as `(?:`): llama-cpp-python would otherwise
    fall back to "any JSON" without a word, and a small model then ignores the schema."""
    try:
        return _gbnf(json.dumps(schema, sort_keys=True))
    except Exception as e:  # noqa: BLE001 - the converter raises plain Exceptions
        raise ValueError(f"the answer schema cannot become a llama.cpp grammar: {e}") from e


class LlamaCppChat(BaseChatModel):
    model_path: str
    n_ctx: int = 4096
    threads: int = 0
    temperature: float = 0.2
    max_tokens: int = 512
    seed: int = 7
    repeat_penalty: float = 1.1
    slot: str = ""
    decoding: Decoding = Decoding()

    @property
    def _llm_type(self) -> str:
        return "briefloop-llama-cpp"

    def _llama(self) -> tuple[Any, threading.Lock]:
        return load_llama(Path(self.model_path), self.n_ctx, self.threads, self.slot, self.decoding)

    def count_tokens(self, text: str) -> int:
        llama, lock = self._llama()
        with lock:
            return len(llama.tokenize(text.encode("utf-8"), add_bos=False, special=True))

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        fmt = kwargs.get("format")
        if isinstance(fmt, dict):
            grammar_of(fmt)  # llama.cpp would fall back to any JSON, silently
            response_format: dict | None = {"type": "json_object", "schema": fmt}
        elif fmt == "json":
            response_format = {"type": "json_object"}
        else:
            response_format = None
        chat = [{"role": _ROLES.get(m.type, "user"), "content": m.content} for m in messages]
        llama, lock = self._llama()
        args = dict(
            messages=chat,
            response_format=response_format,
            temperature=self.temperature,
            max_tokens=self.max_tokens,
            repeat_penalty=self.repeat_penalty,
            seed=self.seed,
            stop=stop,
        )
        with lock:
            if response_format is None:
                result = _plain_text(llama, args)
            else:
                result = llama.create_chat_completion(**args)
        choice = result["choices"][0]
        usage = result.get("usage") or {}
        message = AIMessage(
            content=choice["message"].get("content") or "",
            usage_metadata={
                "input_tokens": usage.get("prompt_tokens", 0),
                "output_tokens": usage.get("completion_tokens", 0),
                "total_tokens": usage.get("total_tokens", 0),
            },
            response_metadata={"finish_reason": choice.get("finish_reason")},
        )
        return ChatResult(generations=[ChatGeneration(message=message)])


def _plain_text(llama: Any, args: dict[str, Any]) -> dict[str, Any]:
    """A plain-text answer, streamed so that it can be ended as soon as it starts
    repeating itself (finish_reason "repetition"): a small model that loops would
    otherwise fill max_tokens with the same line."""
    text, finish, produced = "", None, 0
    stream = llama.create_chat_completion(**args, stream=True)
    for chunk in stream:
        choice = chunk["choices"][0]
        piece = (choice.get("delta") or {}).get("content") or ""
        if piece:
            produced += 1
            text += piece
            if "\n" in piece and repeated(text):
                finish = "repetition"
                break
        finish = choice.get("finish_reason") or finish
    stream.close()  # a generator left part way: llama.cpp stops generating
    prompt = sum(
        len(llama.tokenize(str(m["content"]).encode("utf-8"), add_bos=False, special=True)) + 8
        for m in args["messages"]
    )
    return {
        "choices": [{"message": {"content": text}, "finish_reason": finish}],
        "usage": {
            "prompt_tokens": prompt,
            "completion_tokens": produced,
            "total_tokens": prompt + produced,
        },
    }


def build_embedded(settings: ModelSettings, cache_dir: Path, role: str = "") -> ChatRoleModel:
    path = verified_model_path(settings.model, cache_dir, settings.sha256)
    chat = LlamaCppChat(
        model_path=str(path),
        n_ctx=settings.num_ctx,
        threads=settings.threads,
        temperature=settings.temperature,
        max_tokens=settings.max_tokens,
        seed=settings.seed,
        slot=role,
        decoding=Decoding(settings.grammar_last, settings.lookup_tokens),
    )
    return ChatRoleModel(
        name=settings.label,
        chat=chat,
        num_ctx=settings.num_ctx,
        max_tokens=settings.max_tokens,
        count_tokens=chat.count_tokens,
        max_tokens_field="max_tokens",
    )
