"""Retries, in one place: every transient fault briefloop retries (a model call, a
Google Sheets request, a mail or a webhook) waits by one policy, a `Retry` section of
the config: at most `attempts` tries, exponential waits from `initial_seconds` by
`backoff` up to `max_seconds`, with jitter, so clients retrying together spread out.

- A graph node that calls a model is retried by LangGraph (`node_policy`), on the
  faults `batch.errors.is_transient` names.
- Anything else is retried by `retrying` (tenacity), which also honours a wait the
  server asks for (Retry-After), and gives up once the next wait would pass a total
  time, when one is given.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable

import tenacity
from langgraph.types import RetryPolicy

from batch.config import Retry
from batch.errors import is_transient


def backoff(policy: Retry, attempt: int) -> float:
    """The wait after failed try number `attempt` (1, 2, ...), with jitter."""
    base = min(policy.max_seconds, policy.initial_seconds * policy.backoff ** (attempt - 1))
    return base * random.uniform(0.5, 1.0)


def node_policy(policy: Retry) -> RetryPolicy:
    """The same policy for LangGraph's retries of a node."""
    return RetryPolicy(
        initial_interval=policy.initial_seconds,
        backoff_factor=policy.backoff,
        max_interval=policy.max_seconds,
        max_attempts=policy.attempts,
        jitter=True,
        retry_on=is_transient,
    )


def retrying(
    policy: Retry,
    transient: Callable[[BaseException], bool],
    *,
    asked_wait: Callable[[BaseException], float | None] = lambda e: None,
    total_seconds: float | None = None,
    sleep: Callable[[float], None] = time.sleep,
) -> tenacity.Retrying:
    """A tenacity loop by `policy`: it retries what `transient` says is transient and
    re-raises the last fault when the tries are used up or the next wait would pass
    `total_seconds`. `asked_wait` gives the wait a fault asks for (a Retry-After: a
    shorter wait would be refused again), capped by the caller if at all.

        for attempt in retrying(policy, is_fault):
            with attempt:
                send()
    """
    started = time.monotonic()
    planned: dict[int, float] = {}  # the wait after each try, drawn once (jitter)

    def wait(state: tenacity.RetryCallState) -> float:
        if state.attempt_number not in planned:
            fault = state.outcome.exception() if state.outcome else None
            asked = asked_wait(fault) if fault is not None else None
            planned[state.attempt_number] = (
                max(asked, 0.0) if asked is not None else backoff(policy, state.attempt_number)
            )
        return planned[state.attempt_number]

    class OutOfTime(tenacity.stop.stop_base):
        def __call__(self, state: tenacity.RetryCallState) -> bool:
            if total_seconds is None:
                return False
            return time.monotonic() - started + wait(state) > total_seconds

    return tenacity.Retrying(
        retry=tenacity.retry_if_exception(transient),
        stop=tenacity.stop_after_attempt(policy.attempts) | OutOfTime(),
        wait=wait,
        sleep=sleep,
        reraise=True,
    )
