"""The `briefloop` command: a thin layer over the library (batch.runner and friends).

Errors meant for a person (BriefloopError) are printed as one line without a
traceback, exit code 2; anything else is a bug and shows its traceback.
"""

from __future__ import annotations

import json
import sys
from typing import Any

import click
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, TextColumn, TimeElapsedColumn
from rich.progress import Progress as RichProgress
from rich.table import Table

from batch import config as config_mod
from batch.errors import BriefloopError
from batch.runner import (
    BatchSummary,
    BriefResult,
    Progress,
    list_runs,
    run_source,
    sync_now,
)

err = Console(stderr=True)
out = Console()

ICONS = {"busy": "⧗", "approved": "✓", "approved_by_human": "✓", "awaiting_human": "⏸",
         "waiting": "⏸", "skipped": "·", "error": "✗", "max_rounds": "…", "no_progress": "…",
         "rejected_by_human": "✗"}


class UserError(click.ClickException):
    exit_code = 2

    def show(self, file: Any = None) -> None:
        err.print(f"[red]error:[/red] {escape(self.message)}", highlight=False, soft_wrap=True)


def load_settings(ctx: click.Context, **flags: Any):
    try:
        return config_mod.load(ctx.obj.get("config"), overrides=flags)
    except BriefloopError as e:
        raise UserError(str(e)) from None


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--config", "config_path", type=click.Path(dir_okay=False),
              help="Config file (default: $BRIEFLOOP_CONFIG or config/briefloop.toml).")
@click.version_option(package_name="briefloop")
@click.pass_context
def cli(ctx: click.Context, config_path: str | None) -> None:
    """briefloop: batch writing through a writer-critic loop with a person in the loop."""
    ctx.ensure_object(dict)
    ctx.obj["config"] = config_path


class RichBatchProgress(Progress):
    def __init__(self, bar: RichProgress):
        self.bar = bar
        self.task = bar.add_task("briefs", total=0)

    def batch_started(self, total: int) -> None:
        self.bar.update(self.task, total=total)

    def brief_started(self, brief_id: str) -> None:
        self.bar.update(self.task, description=f"writing {brief_id}")

    def brief_finished(self, result: BriefResult) -> None:
        self.bar.advance(self.task)
        self.bar.console.print(escape(describe_result(result)), highlight=False, soft_wrap=True)


def describe_result(r: BriefResult) -> str:
    icon = ICONS.get(r.outcome, "•")
    rec = r.record or {}
    parts = [f"{icon} {r.brief_id}: {r.outcome}"]
    if rec.get("score") is not None:
        parts.append(f"score {rec['score']:.1f}")
    if rec.get("rounds"):
        parts.append(f"{rec['rounds']} round(s)")
    if r.model_calls:
        parts.append(f"{r.model_calls} model call(s), {r.seconds:.1f}s")
    if rec.get("needs_from_human") and r.outcome in ("awaiting_human", "waiting"):
        parts.append(f"needs {len(rec['needs_from_human'])} fact(s) from a person")
    line = ", ".join(parts)
    if r.error:
        line += f"\n    {r.error}"
    return line


def print_summary(summary: BatchSummary) -> None:
    counts = summary.counts
    table = Table(title="briefloop run", show_header=True)
    table.add_column("outcome")
    table.add_column("briefs", justify="right")
    order = ["approved", "approved_by_human", "awaiting_human", "waiting", "max_rounds",
             "no_progress", "rejected_by_human", "skipped", "busy", "error"]
    labels = {"waiting": "still awaiting human", "skipped": "already done",
              "busy": "busy in another process"}
    for key in order + sorted(set(counts) - set(order)):
        if counts.get(key):
            table.add_row(labels.get(key, key.replace("_", " ")), str(counts[key]))
    table.add_row("total", str(len(summary.results)), style="bold")
    out.print(table)
    out.print(f"{summary.model_calls} model call(s) in {summary.seconds:.1f}s")
    if summary.skipped_files:
        out.print(f"not briefs, ignored: {', '.join(summary.skipped_files)}")
    for warning in summary.warnings:
        err.print(f"[yellow]warning:[/yellow] {escape(warning)}", soft_wrap=True)
    sent = [f"{r.sent} row(s) to {r.sink}" for r in summary.sync if r.sent]
    if sent:
        out.print("run log synced: " + "; ".join(sent), highlight=False, soft_wrap=True)


@cli.command()
@click.argument("source")
@click.option("--rerun", is_flag=True, help="Start fresh threads even for finished briefs.")
@click.option("--concurrency", type=click.IntRange(1, 64),
              help="Briefs processed at once (default from config: run.concurrency).")
@click.option("--max-rounds", type=click.IntRange(1, 50), help="Writer-critic rounds at most.")
@click.option("--threshold", type=click.FloatRange(0, 100),
              help="Score (0-100) a draft needs, overriding the rubric's.")
@click.option("--review", type=click.Choice(["when_needed", "always", "never"]),
              help="When to pause for a person.")
@click.option("--output", "output_dir", type=click.Path(file_okay=False),
              help="Folder for the finished texts.")
@click.option("--debug", is_flag=True, help="Show tracebacks of unexpected errors.")
@click.pass_context
def run(ctx: click.Context, source: str, rerun: bool, concurrency: int | None,
        max_rounds: int | None, threshold: float | None, review: str | None,
        output_dir: str | None, debug: bool) -> None:
    """Run every brief in SOURCE through the writer-critic loop.

    SOURCE is a folder of briefs, a .csv or .xlsx file with one brief per row
    ('file.xlsx#Worksheet' for a named worksheet), or gsheet://KEY/WORKSHEET.

    Finished briefs are skipped, interrupted ones resume, briefs waiting for a person
    stay waiting. Exit code 0 when no brief ended in error, 1 otherwise, 2 for usage or
    configuration errors.
    """
    settings = load_settings(ctx, **{"loop.max_rounds": max_rounds, "loop.threshold": threshold,
                                     "loop.review": review, "paths.output": output_dir,
                                     "run.concurrency": concurrency})
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
               TimeElapsedColumn())
    try:
        with RichProgress(*columns, console=err, transient=True) as bar:
            summary = run_source(settings, source, rerun=rerun, concurrency=concurrency,
                                 progress=RichBatchProgress(bar), strict=debug)
    except BriefloopError as e:
        raise UserError(str(e)) from None
    print_summary(summary)
    sys.exit(1 if summary.failed else 0)


@cli.command()
@click.option("--json", "as_json", is_flag=True, help="Print the records as JSON.")
@click.option("--status", type=click.Choice(["running", "awaiting_human", "finished", "failed"]),
              help="Only runs with this status.")
@click.pass_context
def runs(ctx: click.Context, as_json: bool, status: str | None) -> None:
    """List the run log: one record per brief thread."""
    settings = load_settings(ctx)
    records = list_runs(settings, status)
    if as_json:
        click.echo(json.dumps(records, indent=2, ensure_ascii=False))
        return
    table = Table(show_header=True)
    for col in ("run", "brief", "status", "stop reason", "rounds", "scores", "calls",
                "needs", "seconds"):
        table.add_column(col, overflow="fold")
    for r in records:
        table.add_row(r["run_id"], r["brief_id"], r["status"], r["stop_reason"] or "",
                      str(r["rounds"]), " → ".join(f"{s:g}" for s in r["score_history"]),
                      str(r["model_calls"]), str(len(r["needs_from_human"])),
                      f"{r['seconds']:.1f}")
    out.print(table)
    if not records:
        out.print("no runs yet")


@cli.command()
@click.option("--all", "resend", is_flag=True,
              help="Send every row again, not only pending ones (e.g. after deleting a sheet).")
@click.pass_context
def sync(ctx: click.Context, resend: bool) -> None:
    """Send run-log rows not yet in a spreadsheet to every configured sink.

    SQLite is the record; rows a sink missed (a locked file, no network, a rate limit)
    wait there until a sync takes them. Exit code 1 if a sink still failed.
    """
    settings = load_settings(ctx)
    try:
        results = sync_now(settings, resend=resend)
    except BriefloopError as e:
        raise UserError(str(e)) from None
    if not results:
        out.print("no spreadsheet sink is configured (log.format = none, no log.gsheet)")
    for r in results:
        if r.error:
            err.print(f"[yellow]{escape(r.sink)}[/yellow]: {r.pending} row(s) still pending: "
                      f"{escape(r.error)}", soft_wrap=True)
        else:
            out.print(f"{r.sink}: sent {r.sent} row(s)", highlight=False, soft_wrap=True)
    sys.exit(1 if any(r.error for r in results) else 0)


def main() -> None:
    cli(obj={})
