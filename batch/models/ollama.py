"""The Ollama provider: langchain-ollama's ChatOllama, structured output by JSON schema.

One ChatOllama per host of `base_url` (each keeps its own pooled HTTP connections), under
a HostPool that spreads the calls. Answers come unstreamed (`stream=False`): a streamed
answer costs the client a JSON parse, a pydantic model and a LangChain chunk merge per
token (~25 ms of CPU, GIL held, for 900 tokens), and nothing here reads the tokens as
they come. So `timeout` bounds the whole answer, not the gap between two tokens.
"""

from __future__ import annotations

import functools
import ssl
from urllib.parse import urlsplit, urlunsplit

import httpx
import ollama
from langchain_ollama import ChatOllama

from batch.config import ModelSettings
from batch.errors import ModelError, ModelNotFound, ModelUnavailable
from batch.models.chat import ChatRoleModel
from batch.models.hosts import HostPool, PooledModel, SlotGate

# ModelSet shares one pool between roles with the same model on the same hosts: they
# use the same slots of each server.
PoolKey = tuple[str, tuple[tuple[str, int], ...], float]
REPEAT_PENALTY = 1.1


def public_url(url: str) -> str:
    """The URL without user:password@, fit for a log line or a shared sheet."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    if parts.port:
        host += f":{parts.port}"
    return urlunsplit((parts.scheme, host, parts.path, parts.query, parts.fragment))


def translate_error(settings: ModelSettings, url: str):
    where = f"Ollama at {public_url(url)}"

    def translate(e: Exception) -> Exception | None:
        if isinstance(e, httpx.TimeoutException):
            return ModelUnavailable(
                f"{where} timed out after {settings.timeout:g}s (model {settings.model})"
            )
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


@functools.cache
def tls_context() -> ssl.SSLContext:
    """httpx's default TLS context (certifi's CA bundle, or SSL_CERT_FILE / SSL_CERT_DIR),
    made once for the process: httpx would load the whole CA bundle again for every
    client (~15 ms each), and a ChatOllama opens two (sync and async) per host and role,
    on every batch, even for an http:// URL that never uses it."""
    return httpx.create_ssl_context()


def _chat(settings: ModelSettings, url: str) -> ChatRoleModel:
    chat = ChatOllama(
        model=settings.model,
        base_url=url,
        temperature=settings.temperature,
        num_ctx=settings.num_ctx,
        num_predict=settings.max_tokens,
        keep_alive=settings.keep_alive,
        seed=settings.seed,
        # as the embedded model samples: a small model's plain text loops without it
        repeat_penalty=REPEAT_PENALTY,
        reasoning=False,
        client_kwargs={"timeout": settings.timeout, "verify": tls_context()},
    )
    return ChatRoleModel(
        name=settings.label,
        chat=chat,
        num_ctx=settings.num_ctx,
        max_tokens=settings.max_tokens,
        translate_error=translate_error(settings, url),
        max_tokens_field="num_predict",
        invoke_kwargs={"stream": False},
        host=public_url(url),
    )


def build_ollama(
    settings: ModelSettings,
    pools: dict[PoolKey, HostPool] | None = None,
    gate: SlotGate | None = None,
) -> PooledModel:
    """The model over every host of `settings`; `pools`: the pools already built, by
    model and hosts, to share (ModelSet's); `gate`: the hosts' slots shared with other
    processes (a cluster's)."""
    hosts = settings.hosts
    key: PoolKey = (settings.model, tuple(hosts), settings.cooldown_seconds)
    pools = {} if pools is None else pools
    if key not in pools:
        pools[key] = HostPool(hosts, settings.cooldown_seconds, gate=gate)
    return PooledModel(
        settings.label,
        pools[key],
        {url: _chat(settings, url) for url, _ in hosts},
        timeout=settings.timeout,
    )
