"""The one retry policy: the waits it draws, what it retries, when it gives up."""

from __future__ import annotations

import time

import pytest

from batch.config import Retry
from batch.errors import ModelNotFound, ModelUnavailable
from batch.retrying import node_policy, retrying


class Flaky(Exception):
    def __init__(self, transient: bool = True, asked: float | None = None):
        super().__init__("flaky")
        self.transient, self.asked = transient, asked


def run(
    policy: Retry, faults: list[Flaky], real_sleep: bool = False, **kw
) -> tuple[int, list[float], object]:
    """Calls until one succeeds (after `faults`): (calls, the waits slept, the result or
    the fault raised). The waits are only noted unless `real_sleep`."""
    sleeps: list[float] = []

    def sleep(seconds: float) -> None:
        sleeps.append(seconds)
        if real_sleep:
            time.sleep(seconds)

    calls = [0]

    def once() -> str:
        calls[0] += 1
        if calls[0] <= len(faults):
            raise faults[calls[0] - 1]
        return "done"

    try:
        for attempt in retrying(
            policy,
            lambda e: isinstance(e, Flaky) and e.transient,
            asked_wait=lambda e: e.asked if isinstance(e, Flaky) else None,
            sleep=sleep,
            **kw,
        ):
            with attempt:
                result: object = once()
    except Flaky as e:
        result = e
    return calls[0], sleeps, result


def test_waits_double_with_jitter_up_to_the_longest_and_the_call_then_succeeds():
    policy = Retry(attempts=6, initial_seconds=1.0, max_seconds=5.0, backoff=2.0)
    calls, sleeps, result = run(policy, [Flaky()] * 5)
    assert result == "done" and calls == 6
    for wait, base in zip(sleeps, [1, 2, 4, 5, 5], strict=True):
        assert base * 0.5 <= wait <= base  # jitter spreads clients retrying together


def test_the_last_fault_is_raised_when_the_tries_are_used_up():
    faults = [Flaky(), Flaky(), Flaky()]
    calls, sleeps, result = run(Retry(attempts=3, initial_seconds=0.1), faults)
    assert calls == 3 and len(sleeps) == 2 and result is faults[-1]


def test_a_permanent_fault_is_not_retried():
    permanent = Flaky(transient=False)
    calls, sleeps, result = run(Retry(attempts=5), [permanent])
    assert (calls, sleeps, result) == (1, [], permanent)


def test_a_wait_the_server_asks_for_is_honoured_and_the_total_time_bounds_it():
    policy = Retry(attempts=10, initial_seconds=0.01, max_seconds=0.02)
    calls, sleeps, result = run(policy, [Flaky(asked=0.6)] * 3)
    assert sleeps == [0.6] * 3 and result == "done"  # longer than the policy's own
    # a second wait of 0.6 s would pass 1 s: it gives up with the fault instead
    calls, sleeps, result = run(policy, [Flaky(asked=0.6)] * 3, real_sleep=True, total_seconds=1.0)
    assert sleeps == [0.6] and isinstance(result, Flaky) and calls == 2


def test_graph_nodes_retry_by_the_same_numbers_and_only_transient_model_faults():
    policy = Retry(attempts=4, initial_seconds=0.5, max_seconds=8.0, backoff=3.0)
    node = node_policy(policy)
    assert (node.max_attempts, node.initial_interval, node.max_interval) == (4, 0.5, 8.0)
    assert node.backoff_factor == 3.0 and node.jitter
    assert node.retry_on(ModelUnavailable("refused")) and not node.retry_on(ModelNotFound("x"))


@pytest.mark.parametrize("attempts", [1, 2])
def test_one_try_means_no_retry(attempts):
    calls, sleeps, result = run(Retry(attempts=attempts, initial_seconds=0.1), [Flaky()] * 5)
    assert calls == attempts and len(sleeps) == attempts - 1 and isinstance(result, Flaky)
