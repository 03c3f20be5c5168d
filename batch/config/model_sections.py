"""The `[models]` sections: one model per role, its provider and its hosts."""

from __future__ import annotations

from typing import Any, Literal
from urllib.parse import urlsplit

from pydantic import Field, ValidationError, field_validator, model_validator

from batch.config.values import Strict, describe, http_url, mask_credentials


class OllamaHost(Strict):
    """One server of an Ollama pool: a URL, or `{url = "...", max_parallel = N}`."""

    url: str = Field(description="The server's http(s)://host:port.")
    max_parallel: int | None = Field(
        None, ge=1, description="Calls in flight to this host; unset: the model's `max_parallel`."
    )

    @field_validator("url")
    @classmethod
    def _valid_url(cls, url: str) -> str:
        return http_url(url)


def _same_server(url: str) -> tuple[str, str, int | None, str]:
    # Two spellings of one server (case, default port, trailing slash, credentials)
    # would make the pool count its slots twice.
    parts = urlsplit(url)
    port = parts.port or {"http": 80, "https": 443}[parts.scheme]
    return parts.scheme, (parts.hostname or "").lower(), port, parts.path.rstrip("/")


def ollama_hosts(value: Any) -> str | list[OllamaHost]:
    """`base_url` as written: one URL, or a non-empty list of distinct hosts."""
    if isinstance(value, str):
        return http_url(value)
    if not isinstance(value, list):
        raise ValueError("expected a URL or a list of hosts")
    if not value:
        raise ValueError("an empty list names no host: give at least one URL")
    hosts: list[OllamaHost] = []
    for number, item in enumerate(value, 1):
        if isinstance(item, str):
            item = {"url": item}
        if not isinstance(item, dict | OllamaHost):
            raise ValueError(
                f'host {number}: expected a URL or a table {{url = "...", max_parallel = N}}'
            )
        try:
            hosts.append(OllamaHost.model_validate(item))
        except ValidationError as e:
            raise ValueError(describe(e, f"host {number}")) from None
    seen: set[tuple[str, str, int | None, str]] = set()
    for host in hosts:
        if _same_server(host.url) in seen:
            raise ValueError(f"{mask_credentials(host.url)!r} is listed twice")
        seen.add(_same_server(host.url))
    return hosts


class ModelSettings(Strict):
    """One role's model."""

    provider: Literal["ollama", "embedded"] = Field(
        "embedded",
        description="`embedded`: llama.cpp in this process, no server; "
        "`ollama`: an Ollama server (or several).",
    )
    model: str = Field(
        "qwen2.5-coder-0.5b-instruct",
        description="A packaged model "
        "(`qwen2.5-coder-1.5b-instruct`, `qwen2.5-coder-0.5b-instruct`), a path to a "
        "`.gguf` file, or an Ollama model name.",
    )
    temperature: float = Field(0.2, ge=0, le=2, description="Sampling temperature.")
    num_ctx: int = Field(
        4096,
        ge=256,
        description="Context window in tokens, always "
        "sent; a prompt that would not fit is an error before the call.",
    )
    max_tokens: int = Field(
        900, ge=16, description="The longest answer, in tokens (smaller than `num_ctx`)."
    )
    base_url: str | list[OllamaHost] = Field(
        "http://127.0.0.1:11434",
        description="Ollama only. One server, or a list that "
        'calls are spread over: URLs or tables `{url = "...", max_parallel = N}`.',
    )
    keep_alive: str | int | None = Field(
        "10m", description="Ollama only: how long the server keeps the model loaded."
    )
    timeout: float = Field(
        300.0,
        gt=0,
        description="Seconds an answer may take (it comes whole, not "
        "streamed), and the longest a call waits for a host with a free slot.",
    )
    max_parallel: int = Field(
        4, ge=1, description="Calls in flight per host (a host table may set its own)."
    )
    cooldown_seconds: float = Field(
        30.0,
        ge=0,
        description="A host that refused, timed out or answered 5xx/429 "
        "gets no calls for this long, while another host of the list can take them.",
    )
    threads: int = Field(
        0, ge=0, description="Embedded only: threads for llama.cpp (0: all cores)."
    )
    sha256: str | None = Field(
        None,
        description="Embedded only, for a model given as a path to a `.gguf` "
        "file: refuse it unless it has this sha256 (packaged models carry their own).",
    )
    seed: int = Field(
        7, description="The sampling seed; later samples of one question take the next seeds."
    )
    grammar_last: bool = Field(
        True,
        description="Embedded only: check a JSON answer's grammar on the chosen "
        "token first, and over the whole vocabulary only when it refuses it (as "
        "llama.cpp's own tools do): the same answer at temperature 0, about 3x faster "
        "(docs/benchmarks.md). false: llama-cpp-python's grammar-first sampling.",
    )
    lookup_tokens: int = Field(
        0,
        ge=0,
        le=64,
        description="Embedded only: prompt-lookup decoding, up to this "
        "many draft tokens copied from the prompt and checked in one batch; 0: off "
        "(docs/benchmarks.md says why it is off).",
    )

    @property
    def label(self) -> str:
        """How runs name this model: provider:model."""
        return f"{self.provider}:{self.model}"

    @property
    def hosts(self) -> list[tuple[str, int]]:
        """The Ollama servers as (url, max_parallel), in the order written."""
        if isinstance(self.base_url, str):
            return [(self.base_url, self.max_parallel)]
        return [(h.url, h.max_parallel or self.max_parallel) for h in self.base_url]

    @field_validator("base_url", mode="before")
    @classmethod
    def _valid_hosts(cls, value: Any) -> Any:
        return ollama_hosts(value)

    @model_validator(mode="after")
    def _fits(self) -> ModelSettings:
        if self.max_tokens >= self.num_ctx:
            raise ValueError("max_tokens must be smaller than num_ctx")
        return self


class Models(Strict):
    """The model of each role, and what the critic's answer counts for."""

    writer: ModelSettings = Field(
        ModelSettings(model="qwen2.5-coder-1.5b-instruct", temperature=0.4),
        description="Drafts, revises and repairs.",
    )
    critic: ModelSettings = Field(
        ModelSettings(temperature=0.0, max_tokens=500),
        description="Scores a draft against the rubric.",
    )
    finalizer: ModelSettings | None = Field(
        None,
        description="An optional polish of an approved text, kept only if it "
        "changed no fact the checks can see.",
    )
    critic_mode: Literal["checks", "advice", "gate"] = Field(
        "checks",
        description="`checks`: the code checks alone judge (score = share of "
        "checks passed) and the critic model is never asked. `advice`: the same verdict, "
        "and the model's points as suggestions on drafts the checks pass. `gate`: the "
        "critic's score is the score and its must_fix block approval, beside the code "
        "checks. `python -m bench judge` measures a critic model.",
    )
