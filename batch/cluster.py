"""Briefs run by Celery workers, on as many machines as reach the database and the broker.

    briefloop run SOURCE / the scheduler          briefloop worker (any number)
      scan, record the batch                        run_brief: the thread's lock, then
      per brief: thread id + starting state         the same Batch code as in-process
      ledger claim (batch.ledger) -> run_brief      the batch's last brief -> sync_batch
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
"""

from __future__ import annotations

import dataclasses
import functools
import json
import logging
import os
import socket
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from celery import Celery, Task, bootsteps
from celery.exceptions import Retry

from batch.briefs import BadBrief, Brief
from batch.config import Settings, mask_credentials
from batch.errors import BriefloopError, LockBusy, StoreError
from batch.ledger import Ledger
from batch.runlog import is_unreachable, store_failure
from batch.runner import Batch, BatchSummary, BriefResult, bad_thread_id
from batch.sandbox import sandbox_problem
from batch.sources import scan_source
from batch.store import open_runlog
from batch.sync import make_sinks, sync_all

log = logging.getLogger("briefloop.cluster")

RUN_BRIEF = "briefloop.run_brief"
RESUME_THREAD = "briefloop.resume_thread"
SYNC_BATCH = "briefloop.sync_batch"


def make_app(settings: Settings) -> Celery:
    cluster = settings.cluster
    app = Celery("briefloop", broker=cluster.broker, set_as_current=False)
    sweep = _restore_interval(settings)
    app.conf.update(
        task_serializer="json", accept_content=["json"], result_serializer="json",
        task_ignore_result=True,  # outcomes are in the run log
        task_acks_late=True, task_reject_on_worker_lost=True,
        worker_prefetch_multiplier=1,  # a worker takes one brief at a time per process
        task_default_queue=cluster.queue,
        broker_transport_options={"visibility_timeout": cluster.visibility_timeout,
                                  "unacked_restore_interval": sweep,
                                  "unacked_restore_throttle": 1},
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


def _ledger(batch: Batch) -> Ledger:
    return Ledger(batch.runlog, stale_after=batch.settings.cluster.visibility_timeout)


def _send(app: Celery, name: str, args: list[Any], task_id: str) -> None:
    try:
        app.send_task(name, args=args, task_id=task_id, retry=True,
                      retry_policy={"max_retries": 5, "interval_start": 0.5,
                                    "interval_step": 1.0, "interval_max": 5.0})
    except Exception as e:  # noqa: BLE001 - kombu raises its own and the socket's errors
        raise BriefloopError(f"cannot reach the broker at "
                             f"{mask_credentials(app.conf.broker_url or '')}: "
                             f"{e.__class__.__name__}: {e}") from e


def _message(name: str, args: list[Any], task_id: str) -> str:
    """A task as the ledger keeps it, to send it again (resend_lost)."""
    return json.dumps({"name": name, "args": args, "task_id": task_id})


def payload(brief: Brief, thread_id: str, state: dict[str, Any], batch_id: int) -> dict:
    return {"thread_id": thread_id, "batch_id": batch_id,
            "brief": dataclasses.asdict(brief), "state": state}


# -- the enqueuer ---------------------------------------------------------------------

def enqueue_batch(batch: Batch, source: str | Path, rerun: bool = False,
                  job: str | None = None, app: Celery | None = None) -> BatchSummary:
    """Scan the source, record the batch, and hand each brief that needs work to the
    workers once. Returns at once: the workers close the batch and sync the sheets."""
    started = time.perf_counter()
    app = app or make_app(batch.settings)
    ledger = _ledger(batch)
    scan = scan_source(str(source), batch.settings.loop.max_brief_bytes,
                       read_gsheet=batch.read_gsheet)
    summary = BatchSummary(skipped_files=scan.skipped, warnings=list(scan.warnings))
    if any(isinstance(b, Brief) and b.kind == "source" for b in scan.briefs) and (
            problem := sandbox_problem()) is not None:
        summary.warnings.append(f"examples in API docs are not run on this machine, so "
                                f"not verified here (workers check for themselves): "
                                f"{problem}")
    batch_id = batch.runlog.batch_started(str(source), job, status="enqueueing")
    batch.progress.batch_started(len(scan.briefs))
    try:
        for item in scan.briefs:
            batch.progress.brief_started(item.id)
            result = _enqueue_one(batch, ledger, app, item, rerun, batch_id)
            batch.progress.brief_finished(result)
            summary.results.append(result)
    except BaseException as e:
        try:
            batch.runlog.batch_finished(batch_id, "failed", dict(summary.counts),
                                        f"{e.__class__.__name__}: {e}")
        except Exception as closing:  # noqa: BLE001 - the database that failed the enqueue
            # It stays `enqueueing`: the next batch closes it (close_abandoned_batches).
            # What the user needs is why the enqueue failed, not that the close did too.
            log.warning("batch %s not closed (the next batch will): %s", batch_id,
                        closing.__class__.__name__)
        raise
    ledger.batch_enqueued(batch_id, dict(summary.counts))
    # Every brief may already be done (or none needed work): then nobody else closes it.
    _close_if_done(app, ledger, batch_id)
    summary.seconds = time.perf_counter() - started
    summary.batch_id = batch_id
    return summary


def _enqueue_one(batch: Batch, ledger: Ledger, app: Celery, item: Brief | BadBrief,
                 rerun: bool, batch_id: int) -> BriefResult:
    if isinstance(item, BadBrief):
        return batch.record_bad(item.id, item.origin, item.reason,
                                bad_thread_id(item.id, item.origin))
    try:
        thread_id, state = batch.prepare(item, rerun)
    except BriefloopError as e:  # e.g. its rubric does not exist
        return batch.record_bad(item.id, item.origin, str(e),
                                bad_thread_id(item.id, item.origin))
    existing = batch.runlog.by_thread(thread_id)
    if existing and existing["status"] == "finished":
        return BriefResult(item.id, thread_id, "skipped", existing)
    if existing and existing["status"] == "awaiting_human":
        return BriefResult(item.id, thread_id, "waiting", existing)
    args = [payload(item, thread_id, state, batch_id)]
    if not ledger.claim(thread_id, batch_id, "brief", thread_id,
                        _message(RUN_BRIEF, args, thread_id)):
        return BriefResult(item.id, thread_id, "in_queue", existing)
    try:
        _send(app, RUN_BRIEF, args, thread_id)
    except BriefloopError:
        ledger.set(thread_id, "failed")  # not sent: the next run sends it
        raise
    return BriefResult(item.id, thread_id, "queued", existing)


def enqueue_resume(batch: Batch, thread_id: str, response: Any,
                   app: Celery | None = None) -> BriefResult:
    """Hand a person's answer to the workers; the thread runs on there."""
    app = app or make_app(batch.settings)
    ledger = _ledger(batch)
    task_id = f"{thread_id}:resume:{time.time_ns()}"
    args = [thread_id, response]
    if not ledger.claim(thread_id, None, "resume", task_id,
                        _message(RESUME_THREAD, args, task_id)):
        raise BriefloopError(f"thread {thread_id} is already queued or running in the "
                             f"cluster (an answer sent a moment ago?): look again when it "
                             f"is done")
    try:
        _send(app, RESUME_THREAD, args, task_id)
    except BriefloopError:
        ledger.set(thread_id, "failed")
        raise
    record = batch.runlog.by_thread(thread_id)
    brief_id = (record or {}).get("brief_id", "")
    return BriefResult(brief_id, thread_id, "queued", record)


def wait_for_batch(batch: Batch, batch_id: int, timeout: float | None = None,
                   poll: float = 0.5) -> dict[str, Any]:
    """Block until the workers have closed the batch; returns its row. A database that
    is unreachable for a while (restarting) is waited for, within the timeout."""
    ledger = _ledger(batch)
    deadline = None if timeout is None else time.monotonic() + timeout
    while True:
        try:
            row = batch.runlog.batch(batch_id)
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
            raise BriefloopError(f"batch {batch_id} is not done after {timeout:g}s "
                                 f"({ledger.open_count(batch_id)} brief(s) queued or "
                                 f"running): are workers running?")
        time.sleep(poll)


# -- the worker -------------------------------------------------------------------------

class _Worker:
    """What one worker process works with, opened after the fork, once."""

    settings: Settings | None = None
    _batch: Batch | None = None
    _pid: int | None = None

    @classmethod
    def batch(cls) -> Batch:
        if cls._batch is None or cls._pid != os.getpid():
            assert cls.settings is not None, "the worker's settings were not set"
            batch = Batch(cls.settings, local=True)
            # Sheets are written once per batch by sync_batch, not after each brief.
            batch.resources.sinks = []
            cls._batch, cls._pid = batch, os.getpid()
        return cls._batch


def _retry_delay(task: Task) -> float:
    # Backing off, but well within the visibility timeout: a task held for later longer
    # than that is handed out again by the broker meanwhile (a second copy).
    ceiling = 30.0
    if _Worker.settings is not None:
        ceiling = min(ceiling, _Worker.settings.cluster.visibility_timeout / 4)
    return min(ceiling, 0.5 * 2 ** task.request.retries)


def _retried_while_unreachable(body: Callable[..., str]) -> Callable[..., str]:
    """A task body whose database faults (unreachable, restarting, its disk failing)
    make the task retry later with backoff; anything else is raised as it is."""

    @functools.wraps(body)
    def task(self: Task, *args: Any) -> str:
        try:
            return body(self, *args)
        except Exception as e:  # noqa: BLE001 - the database's faults retry; the rest raise
            retry = _retry_if_unreachable(self, e, f"{body.__name__}{args[:1]}")
            if retry is None:
                raise
            raise retry from e

    return task


def _retry_if_unreachable(task: Task, e: Exception, what: str) -> BaseException | None:
    """A retry later when the database could not be reached (or its disk failed); None
    for anything else, which the task raises as it is (Celery logs it)."""
    if isinstance(e, Retry):
        return e
    failure = e if isinstance(e, StoreError) else store_failure(e, Path("."))
    if failure is None:
        return None
    log.warning("%s: %s; retrying", what, failure)
    try:
        return task.retry(exc=failure, countdown=_retry_delay(task))
    except Retry as retry:
        return retry


def register(app: Celery, settings: Settings) -> Celery:
    """The tasks, on `app`, run with `settings` (the worker's own config)."""
    _Worker.settings = settings
    store_retries = settings.cluster.store_retries
    hostname = socket.gethostname()
    app.steps["consumer"].add(_LostTaskSweep)

    @app.task(name=RUN_BRIEF, bind=True, max_retries=store_retries)
    @_retried_while_unreachable
    def run_brief(self: Task, message: dict[str, Any]) -> str:
        thread_id = message["thread_id"]
        batch = _Worker.batch()
        ledger = _ledger(batch)
        if _already_ended(ledger, thread_id, self.request.id):
            return "duplicate"
        ledger.set(thread_id, "running", worker=f"{hostname}:{os.getpid()}")
        brief = Brief(**message["brief"])
        result = batch.process(brief, prepared=(thread_id, message["state"]))
        if result.outcome == "busy":
            # A redelivered copy while the thread runs on elsewhere: that worker
            # finishes it and closes the ledger row.
            return "busy"
        ledger.set(thread_id, "failed" if result.outcome == "error" else "done")
        _close_if_done(app, ledger, message.get("batch_id"))
        return result.outcome

    @app.task(name=RESUME_THREAD, bind=True, max_retries=store_retries)
    @_retried_while_unreachable
    def resume_thread(self: Task, thread_id: str, response: Any) -> str:
        batch = _Worker.batch()
        ledger = _ledger(batch)
        if _already_ended(ledger, thread_id, self.request.id):
            return "duplicate"
        ledger.set(thread_id, "running", worker=f"{hostname}:{os.getpid()}")
        try:
            with batch.store.thread_lock(thread_id, wait=30.0):
                if not batch.snapshot(thread_id).interrupts:
                    ledger.set(thread_id, "done")  # answered already (a redelivery)
                    return "answered"
                result = batch.resume(thread_id, response)
        except LockBusy:
            raise self.retry(countdown=_retry_delay(self)) from None
        ledger.set(thread_id, "failed" if result.outcome == "error" else "done")
        _queue_sync(app, None)  # the decision reaches the sheets now, not next batch
        return result.outcome

    @app.task(name=SYNC_BATCH, bind=True, max_retries=None)
    @_retried_while_unreachable
    def sync_batch(self: Task, batch_id: int | None) -> str:
        batch = _Worker.batch()
        try:
            # At most one sync at a time in the whole cluster (Google's write quota).
            with batch.store.lock("sync", wait=0.0, what="the spreadsheet sync"):
                sent = _sync(batch)
        except LockBusy:
            # Another sync is running and may have read the outbox before this batch's
            # last rows: sync again once it is done.
            raise self.retry(countdown=5.0) from None
        if batch_id is not None:  # the batch is closed: the morning message, once
            _notify(batch, batch_id)
        return sent

    return app


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
        log.warning("thread %s: the broker lost its task (%s since %s); sending it again",
                    row["thread_id"], row["state"], row["updated_at"])
        _send(app, message["name"], message["args"], message["task_id"])
        sent += 1
    return sent


class _LostTaskSweep(bootsteps.StartStopStep):
    """Every worker looks for tasks the broker lost, now and then (resend_lost). Runs in
    the worker's main process, on its timer; several at once send each task once."""

    requires = {"celery.worker.consumer.tasks:Tasks"}

    def __init__(self, parent: Any, **kwargs: Any):
        super().__init__(parent, **kwargs)
        self.tref: Any = None
        self.ledger: Ledger | None = None

    def start(self, consumer: Any) -> None:
        settings = _Worker.settings
        assert settings is not None, "the worker's settings were not set"
        every = min(60.0, max(5.0, settings.cluster.visibility_timeout / 4))
        self.tref = consumer.timer.call_repeatedly(
            every, self.sweep, (consumer.app, settings))

    def stop(self, consumer: Any) -> None:
        if self.tref is not None:
            consumer.timer.cancel(self.tref)
            self.tref = None

    def sweep(self, app: Celery, settings: Settings) -> None:
        try:
            if self.ledger is None:
                self.ledger = Ledger(open_runlog(settings),
                                     stale_after=settings.cluster.visibility_timeout)
            resend_lost(app, self.ledger, lost_after(settings))
        except Exception as e:  # noqa: BLE001 - the database or broker away: next time
            log.warning("looking for lost tasks: %s: %s; trying again later",
                        e.__class__.__name__, str(e).splitlines()[0] if str(e) else "")


def _already_ended(ledger: Ledger, thread_id: str, task_id: str | None) -> bool:
    """A second copy of a task that has ended (one sent again as lost that was not):
    its ledger row is done or failed for this very task. A new task for the thread
    claims the row (queued) before it is sent, so it is never taken for a copy."""
    row = ledger.get(thread_id)
    return (row is not None and row["state"] in ("done", "failed")
            and row["task_id"] == task_id)


def _close_if_done(app: Celery, ledger: Ledger, batch_id: int | None) -> None:
    """Close the batch if this was its last open thread, and then sync it once."""
    if batch_id is not None and ledger.close_batch_if_done(batch_id):
        _queue_sync(app, batch_id)


def _queue_sync(app: Celery, batch_id: int | None) -> None:
    _send(app, SYNC_BATCH, [batch_id], f"sync-{batch_id}-{os.getpid()}-{time.time_ns()}")


def _notify(batch: Batch, batch_id: int) -> None:
    """The message after a batch (batch.notify), from the run log: what waits for a
    person and what failed among the threads this batch queued. Sent by the sync task
    that follows the batch's close, so once per batch."""
    from batch import notify
    from batch.jobs import notify_settings

    ledger = _ledger(batch)
    row = batch.runlog.batch(batch_id) or {}
    records = ledger.runs_of(batch_id)
    report = notify.Report(
        dict(row.get("counts") or {}),
        [notify.Waiting(r["brief_id"], r["title"],
                        [n["placeholder"] for n in r["needs_from_human"]])
         for r in records if r["status"] == "awaiting_human"],
        [(r["brief_id"], r["error"] or "error") for r in records if r["status"] == "failed"],
        str(row.get("source", "")))
    if notify.should_notify(report):
        for warning in notify.send(notify_settings(batch.settings), report):
            log.warning("batch %s: %s", batch_id, warning)


def _sync(batch: Batch) -> str:
    from batch import review_sheet
    from batch.sync import review_table

    sinks = make_sinks(batch.settings, batch.google)
    results = sync_all(batch.runlog, sinks)
    table = review_table(batch.settings, batch.google)
    added = review_sheet.publish(batch, table) if table is not None else 0
    sent = ", ".join(f"{r.sink}: {r.sent} sent" + (f", {r.error}" if r.error else "")
                     for r in results)
    log.info("sync: %s; %d review row(s) added", sent or "no sinks", added)
    return sent


def run_worker(settings: Settings, concurrency: int, loglevel: str = "INFO") -> None:
    """Start a Celery worker in this process (a prefork pool of `concurrency`
    processes) until SIGTERM or Ctrl-C (Celery's warm shutdown: the briefs in flight
    finish first; a second signal stops at once, and their tasks go back to the queue)."""
    # one line per model HTTP request is noise in a worker's log
    logging.getLogger("httpx").setLevel(logging.WARNING)
    app = register(make_app(settings), settings)
    app.worker_main(["worker", f"--concurrency={concurrency}", "--pool=prefork",
                     f"--queues={settings.cluster.queue}", f"--loglevel={loglevel}",
                     f"--hostname=briefloop-{os.getpid()}@{socket.gethostname()}",
                     "--without-gossip", "--without-mingle", "--without-heartbeat"])

