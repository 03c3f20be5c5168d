"""A RoleModel over any LangChain chat model that takes a JSON schema as `format`.

Both providers go through here: `ChatOllama` (Ollama's structured output) and our own
`LlamaCppChat` (llama.cpp's JSON-schema grammar). Provider faults are translated into
the errors of batch.errors so the graph's retry policy can tell transient from final.
"""

from __future__ import annotations

from collections.abc import Callable

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage

from batch.models.base import Completion, RoleModel

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
    ):
        super().__init__(name, num_ctx, max_tokens)
        self.chat = chat
        self._translate = translate_error
        self._count = count_tokens

    def count_tokens(self, text: str) -> int:
        if self._count is not None:
            return self._count(text)
        return super().count_tokens(text)

    def complete(self, messages: list[dict[str, str]], schema: dict) -> Completion:
        try:
            reply = self.chat.invoke(to_langchain(messages), format=schema)
        except Exception as e:
            mapped = self._translate(e)
            if mapped is None:
                raise
            raise mapped from e
        usage = reply.usage_metadata or {}
        meta = reply.response_metadata or {}
        truncated = meta.get("finish_reason") == "length" or meta.get("done_reason") == "length"
        text = reply.content if isinstance(reply.content, str) else str(reply.content)
        return Completion(
            text=text,
            input_tokens=int(usage.get("input_tokens", 0)),
            output_tokens=int(usage.get("output_tokens", 0)),
            truncated=truncated,
        )
