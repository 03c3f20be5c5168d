"""Several servers of one model as one RoleModel: each call goes to the least busy one.

`HostPool` counts the calls in flight per host (at most `max_parallel` each) and rests a
host that failed the way a down or overloaded server fails (ModelUnavailable: refused,
timed out, 5xx, 429) or that lacks the model (ModelNotFound: not pulled there): for
`cooldown` seconds it gets no calls while another host can take them. `PooledModel`
sends a call to the host the pool picks and, when that host fails so, at once to
another healthy one, each at most once; only when none is left does the error reach
the graph (ModelUnavailable: its retry policy backs off; ModelNotFound from every
host: not retried). Other errors (a refused request, a bad answer) are the call's, not
the host's: they pass through and the host stays in service.

With a `SlotGate` (a cluster: batch.store.slots), `max_parallel` holds for every process
sharing the gate, not per process: a call also takes one of the host's slots there, and
waits while every slot is taken elsewhere.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from batch.errors import ModelNotFound, ModelUnavailable
from batch.models.base import Completion, RoleModel, Sampling

# How often a call waiting for a slot taken in another process looks again: a release
# there cannot wake this one.
GATE_POLL = 0.1


class SlotGate(Protocol):
    """The slots of each host, shared by every process that uses the gate."""

    def take(self, url: str, max_parallel: int) -> int | None:
        """One free slot of `url` (of `max_parallel`), now taken; None: all are taken."""

    def give_back(self, url: str, slot: int) -> None:
        """The call on the slot `take` gave is over."""

    def in_use(self, urls: Sequence[str]) -> dict[str, int]:
        """The slots taken of each URL, by every process."""


@dataclass(eq=False)
class Host:
    url: str
    max_parallel: int
    in_flight: int = 0
    resting_until: float = 0.0  # clock() time before which it gets no calls
    slots: list[int] = field(default_factory=list)  # the gate's slots its calls hold

    @property
    def load(self) -> float:
        return self.in_flight / self.max_parallel


class HostPool:
    """Thread-safe choice of a host per call; `acquire` and `release` pair up."""

    def __init__(
        self,
        hosts: Sequence[tuple[str, int]],
        cooldown: float,
        clock: Callable[[], float] = time.monotonic,
        gate: SlotGate | None = None,
    ):
        if not hosts:
            raise ValueError("a host pool needs at least one host")
        self.hosts = [Host(url, max_parallel) for url, max_parallel in hosts]
        self.gate = gate
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
                host = self._take(free)
                if host is not None:
                    host.in_flight += 1
                    return host
                if not healthy and (skip or not candidates):
                    raise ModelUnavailable("no other host is left to try")
                back = min(
                    (h.resting_until for h in candidates if h.resting_until > now), default=deadline
                )
                if not healthy and back > deadline:
                    raise ModelUnavailable(
                        f"every host is resting after a failure; the first is back in "
                        f"{back - now:.0f}s, after the timeout of {timeout:g}s"
                    )
                if now >= deadline:
                    busy = ", ".join(f"{h.in_flight}/{h.max_parallel}" for h in self.hosts)
                    where = " in this process" if self.gate is not None else ""
                    raise ModelUnavailable(
                        f"no host had a free slot within {timeout:g}s (calls in flight "
                        f"per host{where}: {busy})"
                    )
                # A release notifies; a rest that ends does not, so wake up for it.
                wake = min(back, deadline)
                if free:  # full elsewhere in the cluster: look again soon
                    wake = min(wake, now + GATE_POLL)
                self._changed.wait(wake - now)

    def _take(self, free: list[Host]) -> Host | None:
        """The least busy of `free`; with a gate, the least busy cluster-wide that
        still has a slot there, with that slot taken."""
        if not free:
            return None
        if self.gate is None:
            return min(free, key=lambda h: h.load)
        # One host has nothing to be weighed against: no query for the cluster's load.
        taken = self.gate.in_use([h.url for h in free]) if len(free) > 1 else {}
        for host in sorted(free, key=lambda h: taken.get(h.url, 0) / h.max_parallel):
            slot = self.gate.take(host.url, host.max_parallel)
            if slot is not None:
                host.slots.append(slot)
                return host
        return None

    def release(self, host: Host, failed: bool) -> None:
        """The call on `host` is over; `failed`: the host failed it (refused, timed out,
        5xx, 429) and rests for the cooldown."""
        with self._changed:
            host.in_flight -= 1
            if self.gate is not None and host.slots:
                self.gate.give_back(host.url, host.slots.pop())
            if failed and self.cooldown > 0:
                host.resting_until = max(host.resting_until, self._clock() + self.cooldown)
            self._changed.notify_all()


class PooledModel(RoleModel):
    """One model served by several hosts: `models` maps each host's URL to the model
    that calls it."""

    def __init__(self, name: str, pool: HostPool, models: dict[str, RoleModel], timeout: float):
        first = models[pool.hosts[0].url]
        super().__init__(name, first.num_ctx, first.max_tokens)
        self.pool = pool
        self.models = models
        self.timeout = timeout

    def count_tokens(self, text: str) -> int:
        return self.models[self.pool.hosts[0].url].count_tokens(text)

    def complete(
        self,
        messages: list[dict[str, str]],
        schema: dict | None,
        max_tokens: int | None = None,
        sampling: Sampling | None = None,
    ) -> Completion:
        tried: list[Host] = []
        failures: list[ModelUnavailable | ModelNotFound] = []
        while True:
            try:
                host = self.pool.acquire(self.timeout, skip=tried)
            except ModelUnavailable:
                if not failures:
                    raise
                error = _all_failed(failures)
                raise error from error.__cause__
            tried.append(host)
            failed = False
            try:
                return self.models[host.url].complete(messages, schema, max_tokens, sampling)
            except (ModelUnavailable, ModelNotFound) as e:
                failed = True
                failures.append(e)
            finally:
                self.pool.release(host, failed)


def _all_failed(failures: list[ModelUnavailable | ModelNotFound]) -> Exception:
    """What a call reports when every host it could try failed it: the one failure as
    it was; else all of them, as ModelNotFound (not retried) only when no host had the
    model, as ModelUnavailable (the graph backs off) when one may yet answer."""
    if len(failures) == 1:  # its own message says which host and how
        return failures[0]
    kind = (
        ModelNotFound if all(isinstance(e, ModelNotFound) for e in failures) else ModelUnavailable
    )
    error = kind(f"all {len(failures)} hosts tried failed: " + "; ".join(str(e) for e in failures))
    error.__cause__ = failures[-1]
    return error
