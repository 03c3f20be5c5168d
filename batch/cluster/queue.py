"""Sending work to the cluster: the Celery app, a batch's tasks, a person's answer, the
tasks the broker lost sent again, and waiting for a batch to close."""

from __future__ import annotations

import dataclasses
import json
import logging
import os
import time
from pathlib import Path
from typing import Any

from celery import Celery

from batch.config import Settings, mask_credentials
from batch.errors import BriefloopError
from batch.inputs.briefs import BadBrief, Brief
from batch.inputs.sources import scan_source
from batch.judging.doc_examples.sandbox import sandbox_problem
from batch.outcomes import AWAITING
from batch.run.runner import BatchSummary, BriefResult, Runner
from batch.run.starting import as_message, bad_thread_id
from batch.state import LoopState
from batch.store.ledger import Ledger
from batch.store.runlog import RunLog, is_unreachable

log = logging.getLogger("briefloop.cluster")

RUN_BRIEF = "briefloop.run_brief"
RESUME_THREAD = "briefloop.resume_thread"
SYNC_BATCH = "briefloop.sync_batch"


def make_app(settings: Settings) -> Celery:
    cluster = settings.cluster
    app = Celery("briefloop", broker=cluster.broker, set_as_current=False)
    sweep = _restore_interval(settings)
    app.conf.update(
        task_serializer="json",
        accept_content=["json"],
        result_serializer="json",
        task_ignore_result=True,  # outcomes are in the run log
        task_acks_late=True,
        task_reject_on_worker_lost=True,
        worker_prefetch_multiplier=1,  # a worker takes one brief at a time per process
        task_default_queue=cluster.queue,
        broker_transport_options={
            "visibility_timeout": cluster.visibility_timeout,
            "unacked_restore_interval": sweep,
            "unacked_restore_throttle": 1,
        },
        broker_connection_retry_on_startup=True,
        broker_connection_max_retries=None,  # a broker restart is waited out
        worker_hijack_root_logger=False,
        worker_cancel_long_running_tasks_on_connection_loss=False,
    )
    return app


def _restore_interval(settings: Settings) -> int:
    # Kombu looks for unacknowledged messages of dead workers every interval x throttle
    # seconds (100 s by default): scale it to the visibility timeout so a short timeout
    # (tests, short briefs) is honoured.
    return max(1, min(10, int(settings.cluster.visibility_timeout / 4)))


def ledger_of(runlog: RunLog, settings: Settings) -> Ledger:
    """The queue ledger over `runlog`: a task unseen for the visibility timeout is stale."""
    return Ledger(runlog, stale_after=settings.cluster.visibility_timeout)


def _ledger(runner: Runner) -> Ledger:
    return ledger_of(runner.runlog, runner.settings)


def _send(app: Celery, name: str, args: list[Any], task_id: str) -> None:
    try:
        app.send_task(
            name,
            args=args,
            task_id=task_id,
            retry=True,
            retry_policy={
                "max_retries": 5,
                "interval_start": 0.5,
                "interval_step": 1.0,
                "interval_max": 5.0,
            },
        )
    except Exception as e:  # noqa: BLE001 - kombu raises its own and the socket's errors
        raise BriefloopError(
            f"cannot reach the broker at "
            f"{mask_credentials(app.conf.broker_url or '')}: "
            f"{e.__class__.__name__}: {e}"
        ) from e


def _message(name: str, args: list[Any], task_id: str) -> str:
    """A task as the ledger keeps it, to send it again (resend_lost)."""
    return json.dumps({"name": name, "args": args, "task_id": task_id})


def brief_task_args(brief: Brief, thread_id: str, state: LoopState, batch_id: int) -> dict:
    return {
        "thread_id": thread_id,
        "batch_id": batch_id,
        "brief": dataclasses.asdict(brief),
        "state": as_message(state),
    }


# -- the enqueuer ---------------------------------------------------------------------


def enqueue_batch(
    runner: Runner,
    source: str | Path,
    rerun: bool = False,
    job: str | None = None,
    app: Celery | None = None,
) -> BatchSummary:
    """Scan the source, record the batch, and hand each brief that needs work to the
    workers once. Returns at once: the workers close the batch and sync the sheets."""
    started = time.perf_counter()
    app = app or make_app(runner.settings)
    ledger = _ledger(runner)
    scan = scan_source(
        str(source), runner.settings.loop.max_brief_bytes, read_gsheet=runner.read_gsheet
    )
    summary = BatchSummary(skipped_files=scan.skipped, warnings=list(scan.warnings))
    if (
        any(isinstance(b, Brief) and b.kind == "source" for b in scan.briefs)
        and (problem := sandbox_problem()) is not None
    ):
        summary.warnings.append(
            f"examples in API docs are not run on this machine, so "
            f"not verified here (workers check for themselves): "
            f"{problem}"
        )
    batch_id = runner.runlog.batch_started(str(source), job, status="enqueueing")
    runner.progress.batch_started(len(scan.briefs))
    try:
        for item in scan.briefs:
            runner.progress.brief_started(item.id)
            result = _enqueue_one(runner, ledger, app, item, rerun, batch_id)
            runner.progress.brief_finished(result)
            summary.results.append(result)
    except BaseException as e:
        try:
            runner.runlog.batch_finished(
                batch_id, "failed", dict(summary.counts), f"{e.__class__.__name__}: {e}"
            )
        except Exception as closing:  # noqa: BLE001 - the database that failed the enqueue
            # It stays `enqueueing`: the next batch closes it (close_abandoned_batches).
            # What the user needs is why the enqueue failed, not that the close did too.
            log.warning(
                "batch %s not closed (the next batch will): %s",
                batch_id,
                closing.__class__.__name__,
            )
        raise
    ledger.batch_enqueued(batch_id, dict(summary.counts))
    # Every brief may already be done (or none needed work): then nobody else closes it.
    _close_if_done(app, ledger, batch_id)
    summary.seconds = time.perf_counter() - started
    summary.batch_id = batch_id
    return summary


def _enqueue_one(
    runner: Runner, ledger: Ledger, app: Celery, item: Brief | BadBrief, rerun: bool, batch_id: int
) -> BriefResult:
    if isinstance(item, BadBrief):
        return runner.record_bad(
            item.id, item.origin, item.reason, bad_thread_id(item.id, item.origin)
        )
    try:
        runner.check_clash(item)
        thread_id, state = runner.prepare(item, rerun)
    except BriefloopError as e:  # e.g. its rubric does not exist, or another source's id
        return runner.record_bad(item.id, item.origin, str(e), bad_thread_id(item.id, item.origin))
    existing = runner.runlog.by_thread(thread_id)
    if existing and runner.put_back(item, thread_id, thread_id, existing):
        thread_id, state = runner.prepare(item, True)
        existing = None
    if existing and existing["status"] == "finished":
        return BriefResult(item.id, thread_id, "skipped", existing)
    if existing and existing["status"] == AWAITING:
        return BriefResult(item.id, thread_id, "waiting", existing)
    args = [brief_task_args(item, thread_id, state, batch_id)]
    if not ledger.claim(
        thread_id, batch_id, "brief", thread_id, _message(RUN_BRIEF, args, thread_id)
    ):
        return BriefResult(item.id, thread_id, "in_queue", existing)
    try:
        _send(app, RUN_BRIEF, args, thread_id)
    except BriefloopError:
        ledger.set(thread_id, "failed")  # not sent: the next run sends it
        raise
    return BriefResult(item.id, thread_id, "queued", existing)


def enqueue_resume(
    runner: Runner, thread_id: str, response: Any, app: Celery | None = None
) -> BriefResult:
    """Hand a person's answer to the workers; the thread runs on there."""
    app = app or make_app(runner.settings)
    ledger = _ledger(runner)
    task_id = f"{thread_id}:resume:{time.time_ns()}"
    args = [thread_id, response]
    if not ledger.claim(thread_id, None, "resume", task_id, _message(RESUME_THREAD, args, task_id)):
        raise BriefloopError(
            f"thread {thread_id} is already queued or running in the "
            f"cluster (an answer sent a moment ago?): look again when it "
            f"is done"
        )
    try:
        _send(app, RESUME_THREAD, args, task_id)
    except BriefloopError:
        ledger.set(thread_id, "failed")
        raise
    record = runner.runlog.by_thread(thread_id)
    brief_id = (record or {}).get("brief_id", "")
    return BriefResult(brief_id, thread_id, "queued", record)


def wait_for_batch(
    runner: Runner, batch_id: int, timeout: float | None = None, poll: float = 0.5
) -> dict[str, Any]:
    """Block until the workers have closed the batch; returns its row. A database that
    is unreachable for a while (restarting) is waited for, within the timeout."""
    ledger = _ledger(runner)
    deadline = None if timeout is None else time.monotonic() + timeout
    while True:
        try:
            row = runner.runlog.batch(batch_id)
        except Exception as e:  # noqa: BLE001 - unreachable: poll again; the rest raise
            if not is_unreachable(e) or (deadline and time.monotonic() > deadline):
                raise
            time.sleep(poll)
            continue
        if row is None:
            raise BriefloopError(f"no batch {batch_id}")
        if row["ended_at"] is not None:
            return row
        if deadline is not None and time.monotonic() > deadline:
            raise BriefloopError(
                f"batch {batch_id} is not done after {timeout:g}s "
                f"({ledger.open_count(batch_id)} brief(s) queued or "
                f"running): are workers running?"
            )
        time.sleep(poll)


def lost_after(settings: Settings) -> float:
    """How long a task may go unseen before the ledger takes it for lost: the visibility
    timeout, two of the broker's sweeps for dead workers' messages (make_app), slack."""
    return settings.cluster.visibility_timeout + 2 * _restore_interval(settings) + 10.0


def resend_lost(app: Celery, ledger: Ledger, after: float) -> int:
    """Send again each task the broker lost (Ledger.lost); returns how many."""
    sent = 0
    for row in ledger.lost(after):
        if not ledger.requeue(row["thread_id"], row["state"], row["updated_at"]):
            continue  # moved on meanwhile: started, or sent by another sweep
        message = json.loads(row["message"])
        log.warning(
            "thread %s: the broker lost its task (%s since %s); sending it again",
            row["thread_id"],
            row["state"],
            row["updated_at"],
        )
        _send(app, message["name"], message["args"], message["task_id"])
        sent += 1
    return sent


def _close_if_done(app: Celery, ledger: Ledger, batch_id: int | None) -> None:
    """Close the batch if this was its last open thread, and then sync it once."""
    if batch_id is not None and ledger.close_batch_if_done(batch_id):
        _queue_sync(app, batch_id)


def _queue_sync(app: Celery, batch_id: int | None) -> None:
    _send(app, SYNC_BATCH, [batch_id], f"sync-{batch_id}-{os.getpid()}-{time.time_ns()}")
