"""Every model call as it happens, for `briefloop review calls` and the story page.

`write` and `ask` (batch.models.base) hand each attempt to `journal()`: what was sent,
what came back, how long it took, and why the answer was not taken (or the error the
call raised). Whoever runs a thread sets where the records go with `journal_to()`; the
runner writes them to the run log as they happen, so the calls of a node that failed,
whose state never reached a checkpoint, are still counted.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass


@dataclass(frozen=True)
class CallRecord:
    role: str
    model: str
    messages: list[dict[str, str]]
    answer: str
    seconds: float
    input_tokens: int = 0
    output_tokens: int = 0
    host: str = ""
    attempt: int = 1  # the how-manieth try of this question (a retry after a bad answer)
    problem: str = ""  # why the answer was not taken, or the error the call raised


Sink = Callable[[CallRecord], None]
_SINK: ContextVar[Sink | None] = ContextVar("briefloop_call_sink", default=None)


@contextmanager
def journal_to(sink: Sink) -> Iterator[None]:
    """Send the records of the model calls made in this context to `sink`."""
    token = _SINK.set(sink)
    try:
        yield
    finally:
        _SINK.reset(token)


def journal(record: CallRecord) -> None:
    sink = _SINK.get()
    if sink is not None:
        sink(record)
