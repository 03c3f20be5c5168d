"""A clean stop on SIGTERM or Ctrl-C.

The first signal stops the batch from taking new briefs and gives the model call in
flight `grace` seconds to finish (its node then checkpoints); past that the process
exits anyway. A second signal exits at once. Nothing is lost either way: every
finished step is already in the checkpointer, and a rerun resumes the rest.
"""

from __future__ import annotations

import logging
import os
import signal
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager

log = logging.getLogger("briefloop")

STOP = threading.Event()


@contextmanager
def handle_signals(grace: float, on_stop: Callable[[], None] | None = None) -> Iterator[None]:
    """Handle SIGTERM and SIGINT as above while the block runs (main thread only, as
    Python requires); the previous handlers come back afterwards."""

    def handler(signum: int, frame: object) -> None:
        if STOP.is_set():
            log.warning("second signal: exiting now (a rerun resumes from the checkpoints)")
            os._exit(130)
        STOP.set()
        log.warning(
            "stopping: no new briefs; the call in flight has %ss to finish "
            "(signal again to exit now)",
            f"{grace:g}",
        )
        timer = threading.Timer(grace, _abandon, args=(grace,))
        timer.daemon = True
        timer.start()
        if on_stop is not None:
            on_stop()

    previous = {sig: signal.signal(sig, handler) for sig in (signal.SIGTERM, signal.SIGINT)}
    try:
        yield
    finally:
        for sig, old in previous.items():
            signal.signal(sig, old)


def _abandon(grace: float) -> None:
    log.warning(
        "the call in flight did not finish within %ss: exiting; a rerun resumes "
        "from the last checkpoint",
        f"{grace:g}",
    )
    logging.shutdown()
    os._exit(0)
