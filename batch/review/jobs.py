"""What the review page runs after answering at once: a send-back's rounds, a retry.

The request that asks for one starts it on a thread of its own and returns; the thread's
page then shows that it is working, and on which round, until it ends, then once what
came of it. One job per thread at a time. A job is held in the server's memory only:
what it does is the loop's own work, checkpointed as always, so a server stopped midway
leaves a thread that `briefloop repair` or `resume` finishes, like any other cut short.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from batch.errors import BriefloopError, one_line

log = logging.getLogger(__name__)


@dataclass
class Job:
    what: str  # "sent back for 2 more rounds", "retry"
    started: float  # time.time()
    done: bool = False
    outcome: str = ""  # what came of it, in a sentence
    failed: bool = False
    link: str = ""  # where to go on from here (a retry's new thread), or ""


class Jobs:
    """The jobs of one review server, by thread id."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._jobs: dict[str, Job] = {}

    def start(self, thread_id: str, what: str, work: Callable[[], str | tuple[str, str]]) -> Job:
        """Run `work` on a thread of its own: it returns what came of it, or that and a
        link to go on to. A thread with a job still running refuses a second."""
        with self._lock:
            running = self._jobs.get(thread_id)
            if running is not None and not running.done:
                raise BriefloopError(
                    f"already working on this text ({running.what}): wait for it to end"
                )
            job = Job(what, time.time())
            self._jobs[thread_id] = job

        def run() -> None:
            link = ""
            try:
                said = work()
                outcome, link = said if isinstance(said, tuple) else (said, "")
                failed = False
            except BriefloopError as e:
                outcome, failed = f"not done: {e}", True
            except Exception as e:  # noqa: BLE001 - told on the page, and logged whole
                log.exception("review job %s on %s failed", what, thread_id)
                outcome, failed = f"failed: {one_line(e)}", True
            with self._lock:
                job.outcome, job.failed, job.link, job.done = outcome, failed, link, True

        threading.Thread(target=run, name=f"review-job-{thread_id}", daemon=True).start()
        return job

    def of(self, thread_id: str) -> Job | None:
        with self._lock:
            return self._jobs.get(thread_id)

    def told(self, thread_id: str) -> None:
        """A finished job's outcome was shown: it is not shown again."""
        with self._lock:
            job = self._jobs.get(thread_id)
            if job is not None and job.done:
                del self._jobs[thread_id]

    def wait(self, thread_id: str, timeout: float) -> Job | None:
        """The job once it ended, or as it is after `timeout` seconds (tests, shutdown)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            job = self.of(thread_id)
            if job is None or job.done:
                return job
            time.sleep(0.05)
        return self.of(thread_id)
