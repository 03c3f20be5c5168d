"""A RoleModel over any LangChain chat model that takes a JSON schema as `format`.

Both providers go through here: `ChatOllama` (Ollama's structured output) and our own
`LlamaCppChat` (llama.cpp's JSON-schema grammar). Provider faults are translated into
the errors of batch.errors so the graph's retry policy can tell transient from final.

A per-call answer limit (`complete(..., max_tokens=N)`) is set on a shallow copy of the
chat model, in the field that holds the limit (`num_predict` for ChatOllama,
`max_tokens` for LlamaCppChat). Not as an invoke() keyword: ChatOllama passes unknown
keywords to `ollama.Client.chat()` as they are (which rejects `num_predict`), and an
`options=` keyword would replace all its options (num_ctx, temperature, seed...). The
copy shares the original's HTTP client or loaded model: model_copy runs no validators.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage

from batch.models.base import Completion, RoleModel, Sampling

_MESSAGE_TYPES: dict[str, type[BaseMessage]] = {
    "system": SystemMessage,
    "user": HumanMessage,
    "assistant": AIMessage,
}


def to_langchain(messages: list[dict[str, str]]) -> list[BaseMessage]:
    return [_MESSAGE_TYPES[m["role"]](content=m["content"]) for m in messages]


class ChatRoleModel(RoleModel):
    def __init__(
        self,
        name: str,
        chat: BaseChatModel,
        num_ctx: int,
        max_tokens: int,
        translate_error: Callable[[Exception], Exception | None] = lambda e: None,
        count_tokens: Callable[[str], int] | None = None,
        max_tokens_field: str = "max_tokens",
        invoke_kwargs: dict[str, Any] | None = None,
        host: str = "",
    ):
        """`invoke_kwargs` go with every call (ChatOllama: stream=False); `host` is what
        completions record as the server that answered."""
        super().__init__(name, num_ctx, max_tokens)
        if max_tokens_field not in type(chat).model_fields:
            raise TypeError(f"{type(chat).__name__} has no field {max_tokens_field!r}")
        self.chat = chat
        self._translate = translate_error
        self._count = count_tokens
        self._max_tokens_field = max_tokens_field
        self._invoke_kwargs = dict(invoke_kwargs or {})
        self.host = host

    def count_tokens(self, text: str) -> int:
        if self._count is not None:
            return self._count(text)
        return super().count_tokens(text)

    def chat_for(self, max_tokens: int | None, sampling: Sampling | None = None) -> BaseChatModel:
        """The chat model, with the answer limit `max_tokens` and the `sampling` where
        they differ from its own."""
        update: dict[str, Any] = {}
        if max_tokens is not None and max_tokens != getattr(self.chat, self._max_tokens_field):
            update[self._max_tokens_field] = max_tokens
        for field in ("temperature", "seed"):
            value = getattr(sampling, field, None)
            if value is not None and value != getattr(self.chat, field, None):
                update[field] = value
        return self.chat.model_copy(update=update) if update else self.chat

    def complete(
        self,
        messages: list[dict[str, str]],
        schema: dict | None,
        max_tokens: int | None = None,
        sampling: Sampling | None = None,
    ) -> Completion:
        chat = self.chat_for(max_tokens, sampling)
        # plain text: no format at all (Ollama's `content` as the model wrote it)
        fmt: dict[str, Any] = {"format": schema} if schema is not None else {}
        try:
            reply = chat.invoke(to_langchain(messages), **fmt, **self._invoke_kwargs)
        except Exception as e:
            mapped = self._translate(e)
            if mapped is None:
                raise
            raise mapped from e
        usage: dict[str, Any] = dict(reply.usage_metadata or {})
        meta = reply.response_metadata or {}
        # "repetition": the embedded model stopped an answer that repeated itself
        truncated = (
            meta.get("finish_reason") in ("length", "repetition")
            or meta.get("done_reason") == "length"
        )
        text = reply.content if isinstance(reply.content, str) else str(reply.content)
        return Completion(
            text=text,
            input_tokens=int(usage.get("input_tokens", 0)),
            output_tokens=int(usage.get("output_tokens", 0)),
            truncated=truncated,
            host=self.host,
        )
