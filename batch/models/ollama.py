"""The Ollama provider: langchain-ollama's ChatOllama, structured output by JSON schema."""

from __future__ import annotations

from urllib.parse import urlsplit, urlunsplit

import httpx
import ollama
from langchain_ollama import ChatOllama

from batch.config import ModelSettings
from batch.errors import ModelError, ModelNotFound, ModelUnavailable
from batch.models.chat import ChatRoleModel


def public_url(url: str) -> str:
    """The URL without user:password@, fit for a log line or a shared sheet."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    if parts.port:
        host += f":{parts.port}"
    return urlunsplit((parts.scheme, host, parts.path, parts.query, parts.fragment))


def translate_error(settings: ModelSettings):
    where = f"Ollama at {public_url(settings.base_url)}"

    def translate(e: Exception) -> Exception | None:
        if isinstance(e, httpx.TimeoutException):
            return ModelUnavailable(f"{where} timed out after {settings.timeout:g}s "
                                    f"(model {settings.model})")
        if isinstance(e, httpx.RemoteProtocolError):
            return ModelUnavailable(f"{where} closed the connection mid-answer: {e}")
        if isinstance(e, httpx.TransportError | ConnectionError):
            return ModelUnavailable(f"cannot reach {where}: {e.__class__.__name__}: {e}")
        if isinstance(e, ollama.ResponseError):
            if e.status_code == 404:
                return ModelNotFound(
                    f"{where} does not have model {settings.model!r}: "
                    f"run `ollama pull {settings.model}` on that machine"
                )
            if e.status_code == 429 or e.status_code >= 500:
                return ModelUnavailable(f"{where} answered {e.status_code}: {e.error}")
            if e.status_code == -1:
                # An {"error": ...} line inside a stream that had already answered 200,
                # e.g. the model runner died mid-generation: transient, like a 5xx.
                return ModelUnavailable(f"{where} failed mid-answer: {e.error}")
            # Any other refusal (400 and friends) will not change on retry.
            return ModelError(f"{where} refused the request ({e.status_code}): {e.error}")
        return None

    return translate


def build_ollama(settings: ModelSettings) -> ChatRoleModel:
    chat = ChatOllama(
        model=settings.model,
        base_url=settings.base_url,
        temperature=settings.temperature,
        num_ctx=settings.num_ctx,
        num_predict=settings.max_tokens,
        keep_alive=settings.keep_alive,
        seed=settings.seed,
        reasoning=False,
        client_kwargs={"timeout": settings.timeout},
    )
    return ChatRoleModel(
        name=settings.label,
        chat=chat,
        num_ctx=settings.num_ctx,
        max_tokens=settings.max_tokens,
        translate_error=translate_error(settings),
        max_tokens_field="num_predict",
    )
