"""Actions over several stores that were cut short, finished (`briefloop repair`).

A retry, a reopen and a one-tap approval each touch the checkpointer, the run log and
files. Each records what it is about to do (the run log's `actions` table) before its
first step and ends the record after its last, and every step can be done again
(batch.review.attempts: `finish_retry`, `finish_reopen`; batch.review.one_tap:
`finish_approval`). So a crash or a kill anywhere in between leaves an action that is
finished here, by `briefloop repair`, by the next nightly run, or by the same command
given again, with the same result as if nothing had happened. An approval whose text
could not be written (a full disk) is kept the same way (batch.review.threads:
`finish_publish`), and written here once it can be.

An action whose thread another process holds is still under way there: it is left
alone, and said so.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from batch.errors import BriefloopError, LockBusy
from batch.review.attempts import finish_reopen, finish_retry
from batch.review.one_tap import ONE_TAP, finish_approval
from batch.review.threads import PUBLISH, finish_publish
from batch.run.runner import Runner


@dataclass(frozen=True)
class Finished:
    thread_id: str
    kind: str  # "retry" | "reopen" | "one-tap approve"
    outcome: str  # the thread's outcome once finished; "busy" when left alone
    started_at: str


def finish_pending(runner: Runner) -> list[Finished]:
    """Finish every action cut short, oldest first."""
    done = []
    for action in runner.runlog.open_actions():
        thread_id, kind = action["thread_id"], action["kind"]
        try:
            outcome = _finish(runner, action)
        except LockBusy:
            outcome = "busy"
        done.append(Finished(thread_id, kind, outcome, action["started_at"]))
    return done


def _finish(runner: Runner, action: dict[str, Any]) -> str:
    thread_id, intent = action["thread_id"], action["payload"]
    if action["kind"] == "reopen":
        with runner.store.thread_lock(thread_id):
            if not runner.runlog.open_actions(thread_id):
                return "done"  # finished by another process since it was listed
            return finish_reopen(runner, thread_id, intent, action["id"]).result.outcome
    if action["kind"] == "retry":
        return finish_retry(runner, thread_id, intent, action["id"]).outcome
    if action["kind"] == PUBLISH:
        return finish_publish(runner, thread_id, action["id"])
    if action["kind"] == ONE_TAP:
        try:
            return finish_approval(runner, thread_id, intent, action["id"]).outcome
        except LockBusy:
            raise
        except BriefloopError as e:
            # the thread moved since the mail was made: the link was given back
            return f"not approved ({e}); the link works again"
    raise ValueError(f"unknown action {action['kind']!r} of thread {thread_id}")
