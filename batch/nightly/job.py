"""The nightly job: pull review answers, run the batch, publish what waits for a person.

The batch itself (batch.run.runner) knows nothing of the review sheet; this module puts the
three steps in order, so `briefloop run` and the scheduler do exactly the same thing.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import gspread

from batch.cluster import hand_to_workers
from batch.config import Settings
from batch.errors import BriefloopError, LockBusy, StoreError
from batch.inputs.sources import check_source
from batch.models import RoleModel
from batch.outcomes import AWAITING, UNFINISHED
from batch.review import sheet as review_sheet
from batch.review.links import linker, waiting_link
from batch.review.one_tap import approver
from batch.review.pending import finish_pending
from batch.run import notify
from batch.run.runner import BatchSummary, Progress, Runner
from batch.run.signals import STOP
from batch.sheets.sync import review_table
from batch.store.backends import Store


def batch_lock(store: Store, wait: float):
    """The lock every batch holds, manual or scheduled: two never run at once."""
    return store.lock("batch", wait, f"a briefloop batch on {store.where}")


def run_job(
    settings: Settings,
    source: str | Path,
    *,
    rerun: bool = False,
    concurrency: int | None = None,
    progress: Progress | None = None,
    models: dict[str, RoleModel | None] | None = None,
    strict: bool = False,
    google_client: Callable[[], gspread.Client] | None = None,
    job: str | None = None,
    lock_wait: float | None = None,
) -> BatchSummary:
    """Pull review answers, run the batch of `source`, publish what waits: under the
    batch lock, with everything opened once. `models` and `google_client` replace the
    configured ones (tests); `job` names the schedule job that started it."""
    wait = settings.run.lock_wait_seconds if lock_wait is None else lock_wait
    if job is None:
        # run by hand: a source that is none is a usage mistake, said in one line, with
        # no batch recorded and no message sent. A scheduled job's source that went
        # missing (a disk not mounted) is news, and goes on to be reported.
        check_source(str(source))
    try:
        with (
            Runner(
                settings,
                models=models,
                progress=progress,
                strict=strict,
                google_client=google_client,
                resumer=hand_to_workers,
            ) as runner,
            batch_lock(runner.store, wait),
        ):
            runner.runlog.close_abandoned_batches()
            if not runner.local:  # a cluster: the workers run the briefs
                return _enqueued(runner, source, rerun, job)
            summary = _recorded(runner, source, rerun, concurrency, job)
            link = linker(settings, runner.runlog)
            waiting_page = waiting_link(settings, runner.runlog)
            approve = approver(settings, runner)
            report = notify_report(settings, summary, source, link, waiting_page, approve)
    except LockBusy:
        raise BriefloopError(
            f"another briefloop batch is running (waited {wait:g}s); it will pick up "
            f"these briefs, or run again when it is done"
        ) from None
    except BriefloopError as e:
        # The whole batch failed (source unreachable, disk full): that is news too.
        notify.send(
            notify.settings_for(settings),
            notify.Report(
                {"error": 1}, [], [notify.Failed("the whole batch", str(e))], str(source)
            ),
        )
        raise
    # After the lock: a slow mail server must not hold up the next batch.
    if report.stopped:
        summary.warnings.append(report.stopped)
    if notify.should_notify(report) and not settings.notify.digest:
        # with [notify] digest, the morning's one message tells this batch too
        summary.warnings += notify.send(notify.settings_for(settings), report)
    return summary


def notify_report(
    settings: Settings,
    summary: BatchSummary,
    source: str | Path,
    link: Callable[[str], str] | None = None,
    waiting_page: str = "",
    approve: Callable[[str], str] | None = None,
) -> notify.Report:
    """What the message after a batch says: every text that waits for a person (new or
    still waiting: a reminder each night), with its link (`link`, from its thread id),
    and every brief that failed."""
    waiting = [
        notify.waiting_of(
            {"brief_id": r.brief_id, "thread_id": r.thread_id, **(r.record or {})},
            link,
            approve,
        )
        for r in summary.results
        if r.outcome in (AWAITING, "waiting")
    ]
    set_aside = [
        notify.waiting_of({"brief_id": r.brief_id, **(r.record or {})})
        for r in summary.results
        if r.outcome in UNFINISHED
    ]
    failed = [
        notify.failed_of({"brief_id": r.brief_id, "thread_id": r.thread_id, "error": r.error}, link)
        for r in summary.results
        if r.outcome == "error"
    ]
    return notify.Report(
        dict(summary.counts),
        waiting,
        failed,
        str(source),
        set_aside,
        waiting_page,
        stopped=out_of_time(settings, summary),
    )


def out_of_time(settings: Settings, summary: BatchSummary) -> str:
    """What the batch left for the next run when its hours ran out, or ""."""
    if not summary.time_up:
        return ""
    counts = summary.counts
    return (
        f"The batch's time (run.max_hours = {settings.run.max_hours:g}) ran out: "
        f"{counts.get('stopped', 0)} brief(s) stopped part way, "
        f"{counts.get('not_started', 0)} not started. The next run resumes them."
    )


def _recorded(
    runner: Runner, source: str | Path, rerun: bool, concurrency: int | None, job: str | None
) -> BatchSummary:
    """The batch, with its start, end and counts in the run log's batches table."""
    batch_id = runner.runlog.batch_started(str(source), job)
    runner.batch_id = batch_id
    try:
        summary = _pull_run_publish(runner, source, rerun, concurrency)
    except StoreError:
        raise  # the run log is on the failing disk: nothing more can be recorded
    except BaseException as e:
        runner.runlog.batch_finished(batch_id, "failed", {}, f"{e.__class__.__name__}: {e}")
        raise
    finally:
        runner.batch_id = None
    # "finished": it ran to its end (a brief that failed is in its counts); "failed" is
    # kept for a batch that could not run to its end
    status = "stopped" if STOP.is_set() or summary.time_up else "finished"
    runner.runlog.batch_finished(batch_id, status, dict(summary.counts))
    return summary


def _enqueued(runner: Runner, source: str | Path, rerun: bool, job: str | None) -> BatchSummary:
    """A cluster's batch: the review answers pulled (each answer goes to the queue), then
    every brief that needs work queued once. The workers write the sheets at its end."""
    from batch.cluster.queue import enqueue_batch

    table = review_table(runner.settings, runner.google)
    pulled, warnings = _pull(runner, table)
    summary = enqueue_batch(runner, source, rerun, job)
    summary.pulled = pulled
    summary.warnings += warnings
    return summary


def _pull(runner: Runner, table) -> tuple[list[review_sheet.Pulled], list[str]]:
    """The review sheet's answers acted on, and a warning if it could not be read."""
    if table is None:
        return [], []
    try:
        return review_sheet.pull(runner, table), []
    except BriefloopError as e:  # the sheet is unreachable: tonight's work goes on
        return [], [f"review answers not pulled from {table.name}: {e}"]


def _pull_run_publish(
    runner: Runner, source: str | Path, rerun: bool, concurrency: int | None
) -> BatchSummary:
    table = review_table(runner.settings, runner.google)
    # a retry or reopen cut short (a crash, a kill) is finished before anything else
    repaired = [
        f"finished a {f.kind} of thread {f.thread_id} that was cut short: {f.outcome}"
        if f.outcome != "busy"
        else f"a {f.kind} of thread {f.thread_id} is still under way elsewhere"
        for f in finish_pending(runner)
    ]
    pulled, warnings = _pull(runner, table)
    warnings = repaired + warnings
    summary = runner.run(source, rerun=rerun, concurrency=concurrency)
    if table is not None:
        try:
            review_sheet.publish(runner, table)
        except BriefloopError as e:
            warnings.append(f"review rows not written to {table.name}: {e}")
    summary.pulled = pulled
    summary.warnings += warnings
    return summary


def pull_reviews(
    settings: Settings, google_client: Callable[[], gspread.Client] | None = None
) -> list[review_sheet.Pulled]:
    """Act on the answers in the review sheet, then list what waits now."""
    with Runner(settings, google_client=google_client, resumer=hand_to_workers) as runner:
        table = review_table(settings, runner.google)
        if table is None:
            raise BriefloopError(
                "no review sheet: set log.format to xlsx or csv, or configure [log.gsheet]"
            )
        results = review_sheet.pull(runner, table)
        review_sheet.publish(runner, table)
        runner.sync()
        return results
