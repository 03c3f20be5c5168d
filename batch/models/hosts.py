"""Several servers of one model as one RoleModel: each call goes to the least busy one.

`HostPool` counts the calls in flight per host (at most `max_parallel` each, from this
process) and rests a host that failed the way a down or overloaded server fails
(ModelUnavailable: refused, timed out, 5xx, 429): for `cooldown` seconds it gets no
calls while another host can take them. `PooledModel` sends a call to the host the pool
picks and, when that host fails so, at once to another healthy one, each at most once;
only when none is left does the ModelUnavailable reach the graph, whose retry policy
backs off. Other errors (model not found, a refused request, a bad answer) are the
call's, not the host's: they pass through and the host stays in service.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass

from batch.errors import ModelUnavailable
from batch.models.base import Completion, RoleModel, Sampling


@dataclass(eq=False)
class Host:
    url: str
    max_parallel: int
    in_flight: int = 0
    resting_until: float = 0.0  # clock() time before which it gets no calls

    @property
    def load(self) -> float:
        return self.in_flight / self.max_parallel


class HostPool:
    """Thread-safe choice of a host per call; `acquire` and `release` pair up."""

    def __init__(self, hosts: Sequence[tuple[str, int]], cooldown: float,
                 clock: Callable[[], float] = time.monotonic):
        if not hosts:
            raise ValueError("a host pool needs at least one host")
        self.hosts = [Host(url, max_parallel) for url, max_parallel in hosts]
        # With one host there is nowhere else to send a call: resting it would only
        # stretch the graph's own backoff.
        self.cooldown = cooldown if len(self.hosts) > 1 else 0.0
        self._clock = clock
        self._changed = threading.Condition()

    def acquire(self, timeout: float, skip: Collection[Host] = ()) -> Host:
        """The least busy healthy host (in flight / max_parallel; ties: the first listed),
        now counted as in flight. Waits while every healthy host is full and, when every
        host rests, for the first to come back; never longer than `timeout`.

        `skip`: hosts this call already tried. Once it is not empty only healthy hosts
        are waited for: when the rest all rest, ModelUnavailable at once.
        """
        deadline = self._clock() + timeout
        with self._changed:
            while True:
                now = self._clock()
                candidates = [h for h in self.hosts if h not in skip]
                healthy = [h for h in candidates if h.resting_until <= now]
                free = [h for h in healthy if h.in_flight < h.max_parallel]
                if free:
                    host = min(free, key=lambda h: h.load)
                    host.in_flight += 1
                    return host
                if not healthy and (skip or not candidates):
                    raise ModelUnavailable("no other host is left to try")
                back = min((h.resting_until for h in candidates if h.resting_until > now),
                           default=deadline)
                if not healthy and back > deadline:
                    raise ModelUnavailable(
                        f"every host is resting after a failure; the first is back in "
                        f"{back - now:.0f}s, after the timeout of {timeout:g}s")
                if now >= deadline:
                    busy = ", ".join(f"{h.in_flight}/{h.max_parallel}" for h in self.hosts)
                    raise ModelUnavailable(f"no host had a free slot within {timeout:g}s "
                                           f"(calls in flight per host: {busy})")
                # A release notifies; a rest that ends does not, so wake up for it.
                self._changed.wait(min(back, deadline) - now)

    def release(self, host: Host, failed: bool) -> None:
        """The call on `host` is over; `failed`: the host failed it (refused, timed out,
        5xx, 429) and rests for the cooldown."""
        with self._changed:
            host.in_flight -= 1
            if failed and self.cooldown > 0:
                host.resting_until = max(host.resting_until, self._clock() + self.cooldown)
            self._changed.notify_all()


class PooledModel(RoleModel):
    """One model served by several hosts: `models` maps each host's URL to the model
    that calls it."""

    def __init__(self, name: str, pool: HostPool, models: dict[str, RoleModel],
                 timeout: float):
        first = models[pool.hosts[0].url]
        super().__init__(name, first.num_ctx, first.max_tokens)
        self.pool = pool
        self.models = models
        self.timeout = timeout

    def count_tokens(self, text: str) -> int:
        return self.models[self.pool.hosts[0].url].count_tokens(text)

    def complete(self, messages: list[dict[str, str]], schema: dict,
                 max_tokens: int | None = None,
                 sampling: Sampling | None = None) -> Completion:
        tried: list[Host] = []
        failures: list[ModelUnavailable] = []
        while True:
            try:
                host = self.pool.acquire(self.timeout, skip=tried)
            except ModelUnavailable:
                if not failures:
                    raise
                if len(failures) == 1:  # its own message says which host and how
                    raise failures[0] from failures[0].__cause__
                raise ModelUnavailable(
                    f"all {len(failures)} hosts tried failed: "
                    + "; ".join(str(e) for e in failures)) from failures[-1]
            tried.append(host)
            failed = False
            try:
                return self.models[host.url].complete(messages, schema, max_tokens, sampling)
            except ModelUnavailable as e:
                failed = True
                failures.append(e)
            finally:
                self.pool.release(host, failed)
