"""The cluster: briefs run by Celery workers, on as many machines as reach the
database and the broker.

    briefloop run SOURCE / the scheduler          briefloop worker (any number)
      scan, record the batch                        run_brief: the thread's lock, then
      per brief: thread id + starting state         the same Runner code as in-process
      ledger claim (batch.store.ledger) -> run_brief      the batch's last brief -> sync_batch
    briefloop review answer -> resume_thread        sync_batch: one at a time, cluster-wide

What keeps work from being lost or done twice:
- acks_late + reject_on_worker_lost: a task is taken off the queue only when it is done;
  a worker that dies mid-brief leaves it unacknowledged, and the broker hands it to
  another worker after `cluster.visibility_timeout` (Redis), which resumes the thread
  from its last checkpoint: the model call in flight is all that is repeated.
- the ledger: a thread queued or running is not sent again (two schedulers, the same
  batch enqueued twice); a finished thread is skipped by the run log as in-process.
- the thread lock (an advisory lock): a redelivered copy of a task whose thread is still
  running elsewhere leaves it to that worker.
- a database that cannot be reached (restarting) makes the task retry with backoff.

Every message is JSON: a brief's fields and its frozen starting state (rubric, house
rules, checklist), so a worker needs the config, not the project's files.

Two rooms: `queue` (the Celery app, sending tasks, the ledger's side of it: what any
process that enqueues or answers needs) and `worker` (the tasks a worker runs, its
lost-task sweep, the sheet sync and the message after a batch). Celery is imported
only when one of them is.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from batch.run.runner import BriefResult, Runner


def hand_to_workers(runner: Runner, thread_id: str, response: Any) -> BriefResult:
    """The resumer of a batch in a cluster (Runner.run_on): a person's answer is queued
    for the workers, which run the thread on."""
    from batch.cluster.queue import enqueue_resume  # Celery: for a cluster only

    return enqueue_resume(runner, thread_id, response)
