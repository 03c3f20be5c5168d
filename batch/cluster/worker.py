"""What a worker runs: the tasks (a brief, a person's answer, the sheet sync), the
lost-task sweep, and `briefloop worker` itself."""

from __future__ import annotations

import functools
import logging
import os
import socket
from collections.abc import Callable
from pathlib import Path
from typing import Any

from celery import Celery, Task, bootsteps
from celery.exceptions import Retry

from batch.cluster.queue import (
    RESUME_THREAD,
    RUN_BRIEF,
    SYNC_BATCH,
    _close_if_done,
    _ledger,
    _queue_sync,
    ledger_of,
    lost_after,
    make_app,
    resend_lost,
)
from batch.config import Settings
from batch.errors import LockBusy, StoreError, one_line
from batch.inputs.briefs import Brief
from batch.outcomes import AWAITING, UNFINISHED
from batch.review.links import linker, waiting_link
from batch.run.runner import Runner
from batch.run.starting import from_message
from batch.sheets.sync import make_sinks, sync_all
from batch.store.backends import open_runlog
from batch.store.ledger import Ledger
from batch.store.runlog import store_failure

log = logging.getLogger("briefloop.cluster")

# -- the worker -------------------------------------------------------------------------


class _Worker:
    """What one worker process works with, opened after the fork, once."""

    settings: Settings | None = None
    _runner: Runner | None = None
    _pid: int | None = None

    @classmethod
    def runner(cls) -> Runner:
        if cls._runner is None or cls._pid != os.getpid():
            assert cls.settings is not None, "the worker's settings were not set"
            runner = Runner(cls.settings, local=True)
            # Sheets are written once per batch by sync_batch, not after each brief.
            runner.resources.sinks = []
            cls._runner, cls._pid = runner, os.getpid()
        return cls._runner


def _retry_delay(task: Task) -> float:
    # Backing off, but well within the visibility timeout: a task held for later longer
    # than that is handed out again by the broker meanwhile (a second copy).
    ceiling = 30.0
    if _Worker.settings is not None:
        ceiling = min(ceiling, _Worker.settings.cluster.visibility_timeout / 4)
    return min(ceiling, 0.5 * 2**task.request.retries)


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
        runner = _Worker.runner()
        ledger = _ledger(runner)
        if _already_ended(ledger, thread_id, self.request.id):
            return "duplicate"
        ledger.set(thread_id, "running", worker=f"{hostname}:{os.getpid()}")
        brief = Brief(**message["brief"])
        result = runner.process(brief, prepared=(thread_id, from_message(message["state"])))
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
        runner = _Worker.runner()
        ledger = _ledger(runner)
        if _already_ended(ledger, thread_id, self.request.id):
            return "duplicate"
        ledger.set(thread_id, "running", worker=f"{hostname}:{os.getpid()}")
        try:
            with runner.store.thread_lock(thread_id, wait=30.0):
                if not runner.snapshot(thread_id).interrupts:
                    ledger.set(thread_id, "done")  # answered already (a redelivery)
                    return "answered"
                result = runner.resume(thread_id, response)
        except LockBusy:
            raise self.retry(countdown=_retry_delay(self)) from None
        ledger.set(thread_id, "failed" if result.outcome == "error" else "done")
        _queue_sync(app, None)  # the decision reaches the sheets now, not next batch
        return result.outcome

    @app.task(name=SYNC_BATCH, bind=True, max_retries=None)
    @_retried_while_unreachable
    def sync_batch(self: Task, batch_id: int | None) -> str:
        runner = _Worker.runner()
        try:
            # At most one sync at a time in the whole cluster (Google's write quota).
            with runner.store.lock("sync", wait=0.0, what="the spreadsheet sync"):
                sent = _sync(runner)
        except LockBusy:
            # Another sync is running and may have read the outbox before this batch's
            # last rows: sync again once it is done.
            raise self.retry(countdown=5.0) from None
        if batch_id is not None:  # the batch is closed: the morning message, once
            _notify(runner, batch_id)
        return sent

    return app


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
        self.tref = consumer.timer.call_repeatedly(every, self.sweep, (consumer.app, settings))

    def stop(self, consumer: Any) -> None:
        if self.tref is not None:
            consumer.timer.cancel(self.tref)
            self.tref = None

    def sweep(self, app: Celery, settings: Settings) -> None:
        try:
            if self.ledger is None:
                self.ledger = ledger_of(open_runlog(settings), settings)
            resend_lost(app, self.ledger, lost_after(settings))
        except Exception as e:  # noqa: BLE001 - the database or broker away: next time
            log.warning("looking for lost tasks: %s; trying again later", one_line(e))


def _already_ended(ledger: Ledger, thread_id: str, task_id: str | None) -> bool:
    """A second copy of a task that has ended (one sent again as lost that was not):
    its ledger row is done or failed for this very task. A new task for the thread
    claims the row (queued) before it is sent, so it is never taken for a copy."""
    row = ledger.get(thread_id)
    return row is not None and row["state"] in ("done", "failed") and row["task_id"] == task_id


def _notify(runner: Runner, batch_id: int) -> None:
    """The message after a batch (batch.run.notify), from the run log: what waits for a
    person and what failed among the threads this batch queued. Sent by the sync task
    that follows the batch's close, so once per batch."""
    from batch.run import notify

    ledger = _ledger(runner)
    row = runner.runlog.batch(batch_id) or {}
    records = ledger.runs_of(batch_id)
    link = linker(runner.settings, runner.runlog)
    report = notify.Report(
        dict(row.get("counts") or {}),
        [notify.waiting_of(r, link) for r in records if r["status"] == AWAITING],
        [notify.failed_of(r, link) for r in records if r["status"] == "failed"],
        str(row.get("source", "")),
        [notify.waiting_of(r) for r in records if r["stop_reason"] in UNFINISHED],
        waiting_link(runner.settings, runner.runlog),
    )
    if notify.should_notify(report):
        for warning in notify.send(notify.settings_for(runner.settings), report):
            log.warning("batch %s: %s", batch_id, warning)


def _sync(runner: Runner) -> str:
    from batch.review import sheet as review_sheet
    from batch.sheets.sync import review_table

    sinks = make_sinks(runner.settings, runner.google)
    results = sync_all(runner.runlog, sinks)
    table = review_table(runner.settings, runner.google)
    added = review_sheet.publish(runner, table) if table is not None else 0
    sent = ", ".join(
        f"{r.sink}: {r.sent} sent" + (f", {r.error}" if r.error else "") for r in results
    )
    log.info("sync: %s; %d review row(s) added", sent or "no sinks", added)
    return sent


def run_worker(settings: Settings, concurrency: int, loglevel: str = "INFO") -> None:
    """Start a Celery worker in this process (a prefork pool of `concurrency`
    processes) until SIGTERM or Ctrl-C (Celery's warm shutdown: the briefs in flight
    finish first; a second signal stops at once, and their tasks go back to the queue)."""
    # one line per model HTTP request is noise in a worker's log
    logging.getLogger("httpx").setLevel(logging.WARNING)
    app = register(make_app(settings), settings)
    app.worker_main(
        [
            "worker",
            f"--concurrency={concurrency}",
            "--pool=prefork",
            f"--queues={settings.cluster.queue}",
            f"--loglevel={loglevel}",
            f"--hostname=briefloop-{os.getpid()}@{socket.gethostname()}",
            "--without-gossip",
            "--without-mingle",
            "--without-heartbeat",
        ]
    )
