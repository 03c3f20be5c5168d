"""The morning digest: one message across every batch since the last one.

A message after each batch tells that batch only: two sources make two messages, and a
text still waiting from the night before is in neither. The digest is read from the run
log instead: every text that waits for a person now (what it waits for and why, its own
link), and every brief that failed or was set aside unfinished since the last digest,
with the counts of those batches. `[notify] digest = true` stops the per-batch messages;
`briefloop digest --send` sends this one (schedule it for the morning). The time of the
last digest is kept in the run log, so a digest sent twice never tells a failure twice.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from batch.config import Settings
from batch.outcomes import AWAITING, UNFINISHED
from batch.review.links import linker, waiting_link
from batch.review.one_tap import approver
from batch.review.pages import parse_time
from batch.run import notify
from batch.run.runner import Runner
from batch.store.backends import open_runlog
from batch.store.runlog import RunLog

LAST_SENT = "digest_last_sent"  # the run log's marks keep when the last one went out


@dataclass(frozen=True)
class Digest:
    report: notify.Report
    since: str  # ISO time: what counts as new starts there
    until: str  # ISO time it was read at: the next digest starts there
    subject: str
    body: str


def since_last(runlog: RunLog, hours: float | None) -> str:
    """Where the digest starts: `hours` ago when given, else the last digest sent, else
    a day ago."""
    if hours is None:
        last = runlog.mark(LAST_SENT)
        if last:
            return last
        hours = 24.0
    return (datetime.now(UTC) - timedelta(hours=hours)).isoformat(timespec="seconds")


def morning_report(
    settings: Settings, runner: Runner, since: str, environ: dict[str, str] | None = None
) -> notify.Report:
    """Every text waiting now (a plain one with its one-tap approve link), and what
    failed or was set aside since `since`."""
    runlog = runner.runlog
    link = linker(settings, runlog, environ)
    approve = approver(settings, runner, environ)
    start = parse_time(since) or datetime.min.replace(tzinfo=UTC)
    every = runlog.all()
    recent = [r for r in every if (parse_time(r.get("started_at")) or start) > start]
    waiting = [notify.waiting_of(r, link, approve) for r in every if r.get("status") == AWAITING]
    failed = [notify.failed_of(r, link) for r in recent if r.get("status") == "failed"]
    set_aside = [
        notify.waiting_of(r)
        for r in recent
        if r.get("stop_reason") in UNFINISHED and r.get("status") != AWAITING
    ]
    counts = Counter(str(r.get("stop_reason") or r.get("status") or "") for r in recent)
    batches = [b for b in runlog.batches() if (parse_time(b.get("started_at")) or start) > start]
    sources = sorted({str(b.get("source") or "") for b in batches})
    told = f"Since {since[:16].replace('T', ' ')} UTC, {len(batches)} batch" + (
        "es" if len(batches) != 1 else ""
    )
    return notify.Report(
        dict(counts),
        waiting,
        failed,
        ", ".join(sources),
        set_aside,
        waiting_link(settings, runlog, environ),
        heading=f"{told} ({', '.join(sources)})" if sources else told,
    )


def digest(settings: Settings, hours: float | None = None) -> Digest:
    until = datetime.now(UTC).isoformat()
    with Runner(settings) as runner:
        since = since_last(runner.runlog, hours)
        report = morning_report(settings, runner, since)
    subject, body = notify.message(report, notify.settings_for(settings).review_url)
    return Digest(report, since, until, subject, body)


def send(settings: Settings, made: Digest) -> list[str]:
    """Send the digest to every configured channel; its time is kept as the next one's
    start once a channel took it. The warnings of the channels that failed."""
    warnings = notify.send(notify.settings_for(settings), made.report)
    channels = bool(settings.notify.smtp_host) + bool(settings.notify.webhook_url)
    if len(warnings) < channels:
        with open_runlog(settings) as runlog:
            runlog.set_mark(LAST_SENT, made.until)
    return warnings
