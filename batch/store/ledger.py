"""The cluster's queue ledger: which threads are queued, running or done (table `tasks`).

Celery carries the work and redelivers what a dead worker had taken; the ledger is what
makes handing work out idempotent. A thread is sent only by the one caller whose
`claim` takes its row, and a row is taken only when it is new, done, failed, or stale
(queued or running for longer than the broker's visibility timeout: its message was
lost, e.g. a broker that restarted without its data). Claims are single statements
(INSERT … ON CONFLICT DO UPDATE … WHERE), so two schedulers racing over the same brief
make one claim between them.

A broker can lose a message: Redis moves a message it hands out from the queue to the
list of unacknowledged ones in two steps, so a worker killed between them takes it
along; a Redis without persistence loses them all when it restarts. The ledger holds
each open task's message, and `lost` finds the ones the broker can no longer deliver
(see there) so the workers' sweep (batch.cluster) sends them again.
"""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

import sqlalchemy as sa

from batch.store.runlog import RunLog, _insert, now_precise
from batch.store.schema import batches, runs, tasks

OPEN_STATES = ("queued", "running")


class Ledger:
    """The `tasks` table of a cluster's run log: `claim` a thread before sending its task,
    `set` its state as a worker moves it, and find the tasks a broker lost (`lost`)."""

    def __init__(self, runlog: RunLog, stale_after: float):
        self.runlog = runlog
        self.engine = runlog.engine
        self.stale_after = stale_after

    def claim(
        self,
        thread_id: str,
        batch_id: int | None,
        kind: str,
        task_id: str | None = None,
        message: str | None = None,
    ) -> bool:
        """Take the thread's row for a new task; False when it is queued or running.
        `task_id` and `message` (the task as it will be sent) are recorded with the
        claim, before the task is sent: a worker may finish it before the sender's
        next statement."""
        stamp = now_precise()
        stale = now_precise(self.stale_after)
        with self.engine.begin() as conn:
            insert = _insert(conn, tasks).values(
                thread_id=thread_id,
                batch_id=batch_id,
                kind=kind,
                state="queued",
                attempts=0,
                enqueued_at=stamp,
                updated_at=stamp,
                task_id=task_id,
                message=message,
            )
            claimed = insert.on_conflict_do_update(
                index_elements=["thread_id"],
                set_={
                    "batch_id": batch_id,
                    "kind": kind,
                    "state": "queued",
                    "worker": None,
                    "task_id": task_id,
                    "message": message,
                    "attempts": 0,
                    "enqueued_at": stamp,
                    "updated_at": stamp,
                },
                where=sa.or_(tasks.c.state.not_in(OPEN_STATES), tasks.c.updated_at < stale),
            )
            # RETURNING, not rowcount: an INSERT's rowcount is not reported by every driver
            return conn.execute(claimed.returning(tasks.c.thread_id)).first() is not None

    def set(self, thread_id: str, state: str, **fields: Any) -> None:
        values = {"state": state, "updated_at": now_precise(), **fields}
        if state == "running":
            values["attempts"] = tasks.c.attempts + 1
        if state in ("done", "failed"):
            values["message"] = None  # nothing left to send again
        with self.engine.begin() as conn:
            conn.execute(sa.update(tasks).where(tasks.c.thread_id == thread_id).values(**values))

    def get(self, thread_id: str) -> dict[str, Any] | None:
        with self.engine.connect() as conn:
            row = conn.execute(sa.select(tasks).where(tasks.c.thread_id == thread_id)).first()
        return dict(row._mapping) if row else None

    def lost(self, after: float) -> list[dict[str, Any]]:
        """Open tasks whose message the broker has lost, with that message (JSON).

        Redis hands out a queue's messages in the order they were sent, and gives a dead
        worker's unacknowledged ones back within the visibility timeout (`after` is that
        and some slack). So a task is lost when it is still queued while a task sent
        after it started more than `after` seconds ago (a done task's last update is
        after its start), or when it has been running for twice `after` (a brief takes
        less than the visibility timeout)."""
        cutoff, long_ago = now_precise(after), now_precise(2 * after)
        # The newest task sent that had started before the cutoff: every queued one
        # sent before it has been passed over.
        horizon = (
            sa.select(sa.func.max(tasks.c.enqueued_at))
            .where(tasks.c.state.in_(("running", "done")), tasks.c.updated_at < cutoff)
            .scalar_subquery()
        )
        query = (
            sa.select(tasks.c.thread_id, tasks.c.state, tasks.c.updated_at, tasks.c.message)
            .where(
                tasks.c.message.is_not(None),
                sa.or_(
                    sa.and_(
                        tasks.c.state == "queued",
                        tasks.c.updated_at < cutoff,
                        tasks.c.enqueued_at < horizon,
                    ),
                    sa.and_(tasks.c.state == "running", tasks.c.updated_at < long_ago),
                ),
            )
            .order_by(tasks.c.enqueued_at)
        )
        with self.engine.connect() as conn:
            return [dict(r._mapping) for r in conn.execute(query)]

    def requeue(self, thread_id: str, state: str, updated_at: str) -> bool:
        """Mark a lost task queued anew, if its row is still as `lost` saw it (another
        sweep, or the task itself, may have moved it meanwhile): True for the one caller
        that is to send it again."""
        with self.engine.begin() as conn:
            return (
                conn.execute(
                    sa.update(tasks)
                    .where(
                        tasks.c.thread_id == thread_id,
                        tasks.c.state == state,
                        tasks.c.updated_at == updated_at,
                    )
                    .values(state="queued", updated_at=now_precise())
                ).rowcount
                == 1
            )

    def open_count(self, batch_id: int) -> int:
        with self.engine.connect() as conn:
            return int(
                conn.execute(
                    sa.select(sa.func.count())
                    .select_from(tasks)
                    .where(tasks.c.batch_id == batch_id, tasks.c.state.in_(OPEN_STATES))
                ).scalar_one()
            )

    def outcomes(self, batch_id: int) -> Counter:
        """How the batch's queued threads ended, by the run log's stop reason. A thread
        with no run-log row (its record could not be written) is still counted: as an
        error when its task failed, else as "unrecorded", which fails the batch too."""
        unrecorded = runs.c.thread_id.is_(None)
        reason = sa.case(
            (unrecorded & (tasks.c.state == "failed"), "error"),
            (unrecorded, "unrecorded"),
            else_=sa.func.coalesce(runs.c.stop_reason, "unknown"),
        )
        query = (
            sa.select(reason, sa.func.count())
            .select_from(tasks.outerjoin(runs, runs.c.thread_id == tasks.c.thread_id))
            .where(tasks.c.batch_id == batch_id, tasks.c.kind == "brief")
            .group_by(reason)
        )
        with self.engine.connect() as conn:
            return Counter({r: n for r, n in conn.execute(query)})

    def close_batch_if_done(self, batch_id: int) -> bool:
        """Close the batch when none of its threads is queued or running and its
        enqueuer is done; True for the one caller that closed it."""
        if self.open_count(batch_id):
            return False
        row = self.runlog.batch(batch_id)
        if row is None or row["status"] != "queued" or row["ended_at"] is not None:
            return False
        counts = Counter(row["counts"])
        counts.pop("queued", None)
        counts.update(self.outcomes(batch_id))
        # a thread the ledger cannot account for is a failure of the batch itself; a
        # brief that failed is one of its counts
        status = "failed" if counts.get("unrecorded") else "finished"
        return self.runlog.batch_finished(batch_id, status, dict(counts), only_open=True)

    def batch_enqueued(self, batch_id: int, counts: dict[str, int]) -> None:
        """The enqueuer is done: from now on the last thread to finish closes it."""
        with self.engine.begin() as conn:
            conn.execute(
                sa.update(batches)
                .where(batches.c.id == batch_id)
                .values(status="queued", counts=json.dumps(counts))
            )

    def runs_of(self, batch_id: int) -> list[dict[str, Any]]:
        """The run-log records of the threads this batch queued."""
        query = (
            sa.select(runs)
            .select_from(tasks.join(runs, runs.c.thread_id == tasks.c.thread_id))
            .where(tasks.c.batch_id == batch_id, tasks.c.kind == "brief")
            .order_by(runs.c.brief_id)
        )
        return self.runlog.records(query)
