"""What a thread may still spend on model calls: checked before every call.

The loop's routing stops a brief with `budget` before a round that would take it past
`loop.max_model_seconds` (batch.loop.routing.machine_ending); this is the hard edge
under that estimate. `check_room()` refuses a call once the brief's model seconds are
spent (OutOfBudget) or the batch's hours are up (BatchTimeUp), so a brief passes its
budget, and a batch its hours, by the one call in flight at most.

The brief's budget comes from the state (the nodes set it per step: a send-back gives
the text more seconds, as it gives more rounds); the batch's end from the runner, for
every thread it runs. What the thread has spent is the larger of what its finished
steps hold and what its call journal holds (`journaled_from`): the journal sees every
attempt, also those of a node that failed and was run again, whose calls never reached
the state.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field

from batch.errors import BatchTimeUp, OutOfBudget


@dataclass
class Spending:
    """One node's view of its thread's budget: `spent` grows with each call it makes."""

    limit: float | None  # model seconds the thread may spend in all; None: no limit
    spent: float = 0.0
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def charge(self, seconds: float) -> None:
        with self._lock:
            self.spent += seconds


_SPENDING: ContextVar[Spending | None] = ContextVar("briefloop_spending", default=None)
# the model seconds the running thread's call journal holds (a one-item list, grown by
# the journal's sink as each call is recorded)
_JOURNALED: ContextVar[list[float] | None] = ContextVar("briefloop_journaled", default=None)


@contextmanager
def journaled_from(seconds: float) -> Iterator[list[float]]:
    """The thread run in this block has `seconds` in its call journal already; the
    list it yields is where each call journaled from now on is added."""
    box = [seconds]
    token = _JOURNALED.set(box)
    try:
        yield box
    finally:
        _JOURNALED.reset(token)


def journaled_seconds() -> float:
    box = _JOURNALED.get()
    return box[0] if box is not None else 0.0


_BATCH_END: ContextVar[float | None] = ContextVar("briefloop_batch_end", default=None)


@contextmanager
def spending(limit: float | None, spent: float, also: float = 0.0) -> Iterator[Spending]:
    """Charge the model calls made in this block to a thread that has spent `spent` of
    its `limit` seconds on model calls already (or more, if its call journal says so),
    and `also` on other work charged to it (running its doc's examples)."""
    budget = Spending(limit, max(spent, journaled_seconds()) + also)
    token = _SPENDING.set(budget)
    try:
        yield budget
    finally:
        _SPENDING.reset(token)


@contextmanager
def batch_ends_at(deadline: float | None) -> Iterator[None]:
    """No model call starts in this block after `deadline` (time.monotonic())."""
    token = _BATCH_END.set(deadline)
    try:
        yield
    finally:
        _BATCH_END.reset(token)


def batch_time_up() -> bool:
    deadline = _BATCH_END.get()
    return deadline is not None and time.monotonic() >= deadline


def check_room() -> None:
    """Raise if a call may not start now."""
    if batch_time_up():
        raise BatchTimeUp(
            "the batch's hours (run.max_hours) are up: the call was not "
            "made; the next run resumes this thread"
        )
    budget = _SPENDING.get()
    if budget is not None and budget.limit is not None and budget.spent >= budget.limit:
        raise OutOfBudget(
            f"this brief's model time is spent ({budget.spent:.0f} of "
            f"{budget.limit:g} s, loop.max_model_seconds)"
        )


def room() -> float | None:
    """The seconds the thread running here may still spend; None: no limit."""
    budget = _SPENDING.get()
    if budget is None or budget.limit is None:
        return None
    return budget.limit - budget.spent


def charge_call(seconds: float) -> None:
    budget = _SPENDING.get()
    if budget is not None:
        budget.charge(seconds)
