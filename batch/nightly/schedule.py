"""The nightly schedule: APScheduler with a persistent SQLite job store.

Two of APScheduler's defaults silently lose runs, so neither is used as is:
- misfire_grace_time defaults to 1 second: a run that starts late (the machine slept,
  the process was down) is dropped. Here it is `schedule.misfire_grace_seconds`, with
  coalesce, so several missed runs of a job run once.
- add_job(replace_existing=True) at every start overwrites the stored next run time, so
  a run missed while the process was down is forgotten. Here a stored job is only
  rescheduled when its cron or timezone changed, and only modified otherwise.

Every scheduled run is `batch.nightly.job.run_job`, the same code path as `briefloop run`,
holding the same batch lock. A failed batch is logged and recorded; the scheduler keeps
running.
"""

from __future__ import annotations

import logging
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from apscheduler.events import EVENT_SCHEDULER_STARTED
from apscheduler.jobstores.sqlalchemy import SQLAlchemyJobStore
from apscheduler.schedulers.base import BaseScheduler
from apscheduler.schedulers.blocking import BlockingScheduler

from batch import config
from batch.config import ScheduleJob, Settings, parse_cron
from batch.errors import BriefloopError, ConfigError
from batch.nightly.digest import LAST_SENT
from batch.store.backends import open_runlog, sqlalchemy_url

log = logging.getLogger("briefloop")

# Held while a scheduled batch runs, so a stopping process can wait for it.
RUNNING = threading.Lock()


def job_id(job: ScheduleJob) -> str:
    return f"briefloop:{job.name}"


def setup_logging(settings: Settings) -> Path:
    path = settings.path(settings.schedule.log_file)
    path.parent.mkdir(parents=True, exist_ok=True)
    fmt = logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s")
    for handler in (logging.StreamHandler(sys.stdout), logging.FileHandler(path)):
        handler.setFormatter(fmt)
        logging.getLogger().addHandler(handler)
    logging.getLogger().setLevel(logging.INFO)
    # one line per HTTP request to a model server says nothing a person acts on; the
    # per-brief outcome lines do. Their warnings and errors still show.
    for chatty in ("httpx", "httpcore", "urllib3"):
        logging.getLogger(chatty).setLevel(logging.WARNING)
    return path


def make_scheduler(
    settings: Settings, scheduler_class: type[BaseScheduler] = BlockingScheduler
) -> BaseScheduler:
    if settings.store.backend == "postgres":
        # beside the run log, so a scheduler on another machine finds the same jobs
        url = sqlalchemy_url(settings.store.dsn or "")
    else:
        store = settings.path(settings.schedule.jobstore)
        store.parent.mkdir(parents=True, exist_ok=True)
        url = f"sqlite:///{store}"
    return scheduler_class(
        jobstores={"default": SQLAlchemyJobStore(url=url)},
        job_defaults={
            "misfire_grace_time": int(settings.schedule.misfire_grace_seconds),
            "coalesce": True,
            "max_instances": 1,
        },
    )


def job_args(job: ScheduleJob, config_path: str | None) -> list[Any]:
    return [job.name, config_path]


DIGEST_ID = "briefloop@digest"  # no job's name holds "@", so no job's id is this
DIGEST_NAME = "digest"


@dataclass(frozen=True)
class Wanted:
    """A job the config asks for, as the job store keeps it."""

    name: str
    trigger: Any
    func: Callable[..., None]
    args: list[Any]


def wanted_jobs(settings: Settings, config_path: str | None) -> dict[str, Wanted]:
    """Every job of the config by its store id: the batches, and the digest if any."""
    wanted = {
        job_id(j): Wanted(
            j.name, parse_cron(j.cron, j.timezone), run_scheduled, job_args(j, config_path)
        )
        for j in settings.schedule.jobs
    }
    digest = settings.schedule.digest
    if digest is not None:
        wanted[DIGEST_ID] = Wanted(
            DIGEST_NAME, parse_cron(digest.cron, digest.timezone), run_digest, [config_path]
        )
    return wanted


def reconcile(scheduler: BaseScheduler, settings: Settings, config_path: str | None) -> list[str]:
    """Make the stored jobs match the config without losing a stored next run time."""
    changes: list[str] = []
    wanted = wanted_jobs(settings, config_path)
    for stored in scheduler.get_jobs():
        if stored.id not in wanted:
            scheduler.remove_job(stored.id)
            changes.append(f"removed {stored.id}")
    for jid, job in wanted.items():
        stored = scheduler.get_job(jid)
        if stored is None:
            scheduler.add_job(
                job.func,
                trigger=job.trigger,
                args=job.args,
                id=jid,
                name=job.name,
                replace_existing=False,
            )
            changes.append(f"added {job.name}")
            continue
        if repr(stored.trigger) != repr(job.trigger):
            scheduler.reschedule_job(jid, trigger=job.trigger)
            changes.append(f"rescheduled {job.name}")
        if list(stored.args) != job.args:
            scheduler.modify_job(jid, args=job.args)
            changes.append(f"updated {job.name}")
    return changes


def run_digest(config_path: str | None) -> None:
    """The digest job (importable by name, as run_scheduled): the morning message sent
    when a text waits or a brief failed or was set aside since the last one."""
    from batch.nightly import digest
    from batch.run import notify
    from batch.run.signals import STOP

    if STOP.is_set():
        return
    try:
        settings = config.load(config_path)
        made = digest.digest(settings)
        if not notify.should_notify(made.report):
            log.info("digest: nothing waits, failed or was set aside; not sent")
            return
        if not (settings.notify.smtp_host or settings.notify.webhook_url):
            log.error("digest: not sent: set [notify] smtp_host or webhook_url")
            return
        warnings = digest.send(settings, made)
    except BriefloopError as e:
        log.error("digest: not sent: %s", e)
        return
    except Exception:  # noqa: BLE001 - a failed digest must not stop the scheduler
        log.exception("digest: failed")
        return
    for warning in warnings:
        log.warning("digest: not sent: %s", warning)
    if not warnings:
        log.info("digest: sent: %s", made.subject)


def run_scheduled(job_name: str, config_path: str | None) -> None:
    """The function every stored job calls (importable by name, as a persistent job store
    needs). Loads the config afresh, so an edited config applies from the next run."""
    from batch.nightly.job import run_job
    from batch.run.signals import STOP

    if STOP.is_set():
        return
    with RUNNING:
        try:
            settings = config.load(config_path)
            job = next((j for j in settings.schedule.jobs if j.name == job_name), None)
            if job is None:
                log.error("job %s is no longer in the config; not run", job_name)
                return
            if job.config:
                settings = config.load(settings.path(job.config))
            log.info("job %s: batch of %s starting", job_name, job.source)
            source = (
                job.source if job.source.startswith("gsheet://") else str(settings.path(job.source))
            )
            summary = run_job(
                settings,
                source,
                concurrency=job.concurrency,
                job=job_name,
                lock_wait=settings.schedule.lock_wait_seconds,
            )
        except BriefloopError as e:
            log.error("job %s: batch not run: %s", job_name, e)
            return
        except Exception:  # noqa: BLE001 - a failed batch must not stop the scheduler
            log.exception("job %s: batch failed", job_name)
            return
        for r in summary.results:
            rec = r.record or {}
            why = r.error or rec.get("stop_reason") or ""
            score = f", score {rec['score']:.1f}" if rec.get("score") is not None else ""
            level = logging.WARNING if r.outcome == "error" else logging.INFO
            log.log(
                level,
                "job %s: %s: %s%s%s",
                job_name,
                r.brief_id,
                r.outcome,
                score,
                f" ({why})" if why and why != r.outcome else "",
            )
        counts = ", ".join(f"{k} {v}" for k, v in sorted(summary.counts.items())) or "no briefs"
        log.info("job %s: batch done in %.1fs: %s", job_name, summary.seconds, counts)
        for warning in summary.warnings:
            log.warning("job %s: %s", job_name, warning)


@dataclass(frozen=True)
class JobStatus:
    name: str
    cron: str
    timezone: str
    source: str
    next_run: datetime | None
    last: dict[str, Any] | None  # the last batch of this job: times, status, counts


def _next_run(stored: Any, cron: str, timezone: str) -> datetime | None:
    """When a job runs next: as stored, or, not stored yet or its cron changed, what
    the next start will store."""
    trigger = parse_cron(cron, timezone)
    if stored is not None and repr(stored.trigger) == repr(trigger):
        return stored.next_run_time
    return trigger.get_next_fire_time(None, datetime.now().astimezone())


def status(settings: Settings) -> list[JobStatus]:
    """Jobs, their stored next run times and last results, without running anything."""
    from apscheduler.schedulers.background import BackgroundScheduler

    scheduler = make_scheduler(settings, BackgroundScheduler)
    scheduler.start(paused=True)
    try:
        stored = {j.id: j for j in scheduler.get_jobs()}
    finally:
        scheduler.shutdown(wait=False)
    runlog = open_runlog(settings)
    try:
        out = []
        for job in settings.schedule.jobs:
            batches = runlog.batches(job.name)
            out.append(
                JobStatus(
                    job.name,
                    job.cron,
                    job.timezone,
                    job.source,
                    _next_run(stored.get(job_id(job)), job.cron, job.timezone),
                    batches[-1] if batches else None,
                )
            )
        digest = settings.schedule.digest
        if digest is not None:
            next_run = _next_run(stored.get(DIGEST_ID), digest.cron, digest.timezone)
            sent = runlog.mark(LAST_SENT)
            out.append(
                JobStatus(
                    DIGEST_NAME,
                    digest.cron,
                    digest.timezone,
                    "",  # no source: it reads the run log
                    next_run,
                    {"started_at": sent, "status": "sent"} if sent else None,
                )
            )
        return out
    finally:
        runlog.close()


def serve(settings: Settings, config_path: str | None) -> None:
    """Run the scheduler in the foreground until SIGTERM or Ctrl-C."""
    from batch.run.signals import STOP, handle_signals

    if not settings.schedule.jobs and settings.schedule.digest is None:
        raise ConfigError(
            "no jobs in [schedule]: add a [[schedule.jobs]] table with name, cron and source"
        )
    log_path = setup_logging(settings)
    scheduler = make_scheduler(settings)

    def on_started(event: Any) -> None:
        # Reconciled while paused: nothing fires before the stored jobs match the config.
        for change in reconcile(scheduler, settings, config_path):
            log.info("schedule: %s", change)
        for job in scheduler.get_jobs():
            log.info("job %s: next run %s", job.name, job.next_run_time)
        scheduler.resume()

    scheduler.add_listener(on_started, EVENT_SCHEDULER_STARTED)
    with handle_signals(
        settings.run.stop_grace_seconds, on_stop=lambda: scheduler.shutdown(wait=False)
    ):
        log.info("briefloop schedule: started (log file %s)", log_path)
        scheduler.start(paused=True)
        # Stopped: wait for a batch in progress to finish (the stop handler's timer
        # bounds the wait).
        if STOP.is_set() and RUNNING.locked():
            log.info("waiting for the running batch to stop")
        with RUNNING:
            pass
    log.info("briefloop schedule: stopped")


def run_now(settings: Settings, config_path: str | None, name: str) -> None:
    names = [j.name for j in settings.schedule.jobs]
    digest = settings.schedule.digest is not None and name == DIGEST_NAME and name not in names
    if name not in names and not digest:
        known = names + ([DIGEST_NAME] if settings.schedule.digest is not None else [])
        raise BriefloopError(f"no scheduled job {name!r} (jobs: {', '.join(known) or 'none'})")
    setup_logging(settings)
    if digest:
        run_digest(config_path)
    else:
        run_scheduled(name, config_path)
