"""Commands that look after a project: `init`, `doctor`, `digest`, `gc`, `schedule` (and
its `install` and `uninstall`)."""

from __future__ import annotations

from pathlib import Path

import click
from rich.markup import escape

from batch import config as config_mod
from batch.cli.base import (
    UserError,
    cli,
    load_settings,
    out,
    resolved_config_path,
    user_errors,
)
from batch.errors import LockBusy
from batch.inputs.project import init_project
from batch.nightly import digest as digest_mod
from batch.nightly import doctor as doctor_mod
from batch.nightly import install as install_mod
from batch.nightly import schedule as schedule_mod
from batch.nightly.job import batch_lock
from batch.store.backends import open_store
from batch.store.retention import prune


@cli.command()
@click.argument("folder", default=".", type=click.Path(file_okay=False))
@user_errors
def init(folder: str) -> None:
    """Make FOLDER (default: here) a briefloop project: config/briefloop.toml, the
    shipped rubrics and house rules, and an empty briefs/ folder. Files already there
    are kept."""
    written, kept = init_project(Path(folder))
    for path in written:
        out.print(escape(f"wrote {path}"), highlight=False, soft_wrap=True)
    for path in kept:
        out.print(escape(f"kept {path} (already there)"), highlight=False, soft_wrap=True)
    out.print(
        escape(
            f"next: put briefs in {Path(folder) / 'briefs'}, then "
            f"`cd {folder} && briefloop run briefs`"
        ),
        highlight=False,
        soft_wrap=True,
    )


_MARKS = {"ok": "[green]ok[/]  ", "fail": "[red]FAIL[/]", "skip": "[dim]skip[/]"}


@cli.command()
@click.option(
    "--hours",
    type=click.FloatRange(min=0, min_open=True),
    help="Tell what the batches of the last HOURS did (default: since the last digest "
    "sent, else a day).",
)
@click.option("--send", is_flag=True, help="Send it to [notify]'s channels, not only print it.")
@click.pass_context
@user_errors
def digest(ctx: click.Context, hours: float | None, send: bool) -> None:
    """The morning digest: one message across every batch since the last one. Every text
    waiting for a person now, what it waits for and its link; every brief that failed
    or was set aside since. Printed; with --send, sent (schedule it for the morning, and
    set [notify] digest = true to stop the message after each batch)."""
    settings = load_settings(ctx)
    made = digest_mod.digest(settings, hours)
    out.print(escape(made.subject), highlight=False, soft_wrap=True)
    out.print(escape(made.body), highlight=False, soft_wrap=True)
    if send:
        if not (settings.notify.smtp_host or settings.notify.webhook_url):
            raise UserError("nothing to send it with: set [notify] smtp_host or webhook_url")
        warnings = digest_mod.send(settings, made)
        for warning in warnings:
            out.print(escape(f"not sent: {warning}"), highlight=False, soft_wrap=True)
        if warnings:
            ctx.exit(1)


@cli.command()
@click.option(
    "--only",
    "parts",
    multiple=True,
    type=click.Choice(doctor_mod.PARTS),
    help="Check only this part (repeat for more). Default: every part.",
)
@click.pass_context
@user_errors
def doctor(ctx: click.Context, parts: tuple[str, ...]) -> None:
    """Try each part the night needs, for real: the sandbox that runs examples in API
    docs, each role's model (one short answer), the mail server (nothing is sent) and
    the run log's sheets. Parts not configured are skipped. Exit status 1 when a part
    fails."""
    findings = doctor_mod.examine(load_settings(ctx), parts or doctor_mod.PARTS)
    width = max(len(f.part) for f in findings)
    for f in findings:
        out.print(
            f"{_MARKS[f.status]} {escape(f.part.ljust(width))}  {escape(f.detail)}",
            highlight=False,
            soft_wrap=True,
        )
    if any(f.status == "fail" for f in findings):
        ctx.exit(1)


@cli.command()
@click.option(
    "--keep-days",
    type=click.FloatRange(0),
    help="Prune finished threads older than this (default: retention.keep_days).",
)
@click.pass_context
def gc(ctx: click.Context, keep_days: float | None) -> None:
    """Shrink the checkpoint database: finished threads keep only their final checkpoint,
    then VACUUM gives the space back. Waiting, running and failed threads are untouched.
    """
    settings = load_settings(ctx)
    try:
        with open_store(settings) as store, batch_lock(store, settings.run.lock_wait_seconds):
            report = prune(settings, keep_days, store=store)
    except LockBusy:
        raise UserError("a batch is running; run gc when it is done") from None
    mib = 1024 * 1024
    out.print(
        f"{report.threads} finished thread(s) pruned: {report.checkpoints_deleted} "
        f"checkpoint(s), {report.writes_deleted} write(s) and "
        f"{report.calls_deleted} model call(s) deleted; "
        f"{report.bytes_before / mib:.1f} MiB -> {report.bytes_after / mib:.1f} MiB",
        highlight=False,
    )


@cli.group(invoke_without_command=True)
@click.option(
    "--list",
    "list_only",
    is_flag=True,
    help="Print how the scheduler is kept running, the jobs, their next run times and "
    "last results, and exit.",
)
@click.option("--run-now", metavar="JOB", help="Run one job now, through the same code path.")
@click.pass_context
@user_errors
def schedule(ctx: click.Context, list_only: bool, run_now: str | None) -> None:
    """Run the scheduled jobs of [schedule] in the foreground until SIGTERM or Ctrl-C.

    Jobs are stored in SQLite, so a run missed while the machine slept or the process
    was down runs once on start (within schedule.misfire_grace_seconds). Never two
    batches at once: scheduled and manual runs share one lock. `briefloop schedule
    install` keeps it running (systemd, or cron).
    """
    if ctx.invoked_subcommand is not None:
        return
    settings = load_settings(ctx)
    config_path = resolved_config_path(ctx)
    if list_only:
        kept = install_mod.where_installed(this_project(ctx))
        out.print(
            escape(f"kept running by {kept}")
            if kept
            else escape("not installed: `briefloop schedule install` keeps it running"),
            highlight=False,
            soft_wrap=True,
        )
        print_schedule(schedule_mod.status(settings))
    elif run_now:
        schedule_mod.run_now(settings, config_path, run_now)
    else:
        schedule_mod.serve(settings, config_path)


def this_project(ctx: click.Context) -> install_mod.Project:
    settings = load_settings(ctx)
    config = Path(resolved_config_path(ctx) or config_mod.find_config(Path.cwd())).resolve()
    return install_mod.Project(
        folder=settings.path("."), config=config, briefloop=install_mod.this_briefloop()
    )


_WAYS = click.Choice(["auto", "systemd", "cron"])
_UNIT_DIR = click.option(
    "--unit-dir",
    type=click.Path(file_okay=False),
    help="Write the unit here instead of ~/.config/systemd/user (and start nothing).",
)
_UNIT = click.option(
    "--unit",
    type=click.Choice(install_mod.UNITS),
    default="schedule",
    show_default=True,
    help="What to keep running: the scheduler, the review page, or a cluster worker.",
)


@schedule.command("install")
@click.option(
    "--way",
    type=_WAYS,
    default="auto",
    show_default=True,
    help="auto: a systemd user unit where systemd runs, else a crontab line.",
)
@_UNIT
@_UNIT_DIR
@click.option("--no-start", is_flag=True, help="Write the unit, but do not enable or start it.")
@click.pass_context
@user_errors
def schedule_install(
    ctx: click.Context, way: str, unit: str, unit_dir: str | None, no_start: bool
) -> None:
    """Keep the scheduler of this project running on this machine: a systemd user unit
    with this project's paths (enabled and started), or, where there is no systemd, a
    crontab line that starts it every ten minutes unless it already runs. Run again to
    replace it; `briefloop schedule --list` shows it."""
    project = this_project(ctx)
    done = install_mod.install(
        project,
        way,  # type: ignore[arg-type]
        unit,
        Path(unit_dir) if unit_dir else None,
        start=not no_start and unit_dir is None,
    )
    what = "started" if done.started else "written"
    out.print(escape(f"{done.way}: {done.where} ({what})"), highlight=False, soft_wrap=True)
    if done.todo:
        out.print("to finish, run:", highlight=False)
        for line in done.todo:
            out.print(escape(f"  {line}"), highlight=False, soft_wrap=True)


@schedule.command("uninstall")
@_UNIT
@_UNIT_DIR
@click.pass_context
@user_errors
def schedule_uninstall(ctx: click.Context, unit: str, unit_dir: str | None) -> None:
    """Stop keeping it running: the project's unit is disabled and removed, or its
    crontab line taken out. Jobs, run log and texts stay."""
    removed = install_mod.uninstall(this_project(ctx), unit, Path(unit_dir) if unit_dir else None)
    out.print(
        escape("removed " + ", ".join(removed) if removed else "nothing was installed"),
        highlight=False,
        soft_wrap=True,
    )


def print_schedule(jobs: list) -> None:
    if not jobs:
        out.print(escape("no jobs in [schedule]"))
        return
    for j in jobs:
        last = j.last or {}
        counts = ", ".join(f"{k} {v}" for k, v in sorted(last.get("counts", {}).items()))
        result = (
            (
                f"{(last.get('started_at') or '')[:19]} {last.get('status', '')}"
                f"{f' ({counts})' if counts else ''}"
            )
            if last
            else "never run"
        )
        next_run = j.next_run.isoformat(timespec="seconds") if j.next_run else "not scheduled"
        out.print(
            escape(
                f"{j.name}: {j.cron} ({j.timezone}), "
                f"{f'source {j.source}' if j.source else 'the morning digest'}\n"
                f"  next run: {next_run}\n  last run: {result}"
            ),
            highlight=False,
            soft_wrap=True,
        )
