"""Commands that run briefs: `run`, `resume`, `worker`, and the run log's `runs` and
`sync`."""

from __future__ import annotations

import json
import sys
from typing import Any

import click
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, TextColumn, TimeElapsedColumn
from rich.progress import Progress as RichProgress
from rich.table import Table

from batch import config
from batch.cli.base import (
    UserError,
    cli,
    describe_result,
    err,
    load_settings,
    named_thread,
    open_batch,
    out,
    print_pulled,
    print_result,
    refresh_review_sheet,
    user_errors,
    warn,
)
from batch.cli.stories import print_batch
from batch.cli.terminal import fitted_table, json_for_terminal
from batch.judging.checklist.fixes import fix_words
from batch.nightly.job import run_job
from batch.outcomes import (
    OUTCOME_ORDER,
    RUN_STATUSES,
    UNFINISHED,
    VIEW_OUTCOMES,
    label,
)
from batch.review import pending, threads
from batch.review.pages import why
from batch.run import signals
from batch.run.runner import (
    BatchSummary,
    BriefResult,
    Progress,
    Runner,
    batch_runs,
    list_runs,
    reader_fixes,
    sync_now,
)


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


def print_summary(summary: BatchSummary) -> None:
    print_pulled(summary.pulled)
    counts = summary.counts
    table = Table(title="briefloop run", show_header=True)
    table.add_column("outcome")
    table.add_column("briefs", justify="right")
    for key in [*OUTCOME_ORDER, *sorted(set(counts) - set(OUTCOME_ORDER))]:
        if counts.get(key):
            table.add_row(label(key), str(counts[key]))
    table.add_row("total", str(len(summary.results)), style="bold")
    out.print(table)
    out.print(f"{summary.model_calls} model call(s) in {summary.seconds:.1f}s")
    if summary.skipped_files:
        out.print(f"not briefs, ignored: {', '.join(summary.skipped_files)}")
    set_aside = sum(1 for r in summary.results if r.outcome in UNFINISHED)
    if set_aside:
        out.print(
            f"[yellow]{set_aside} unfinished text(s) set aside in needs-work/[/]: "
            f'loop.review = "when_needed" does not hold them for a person '
            f'("unfinished" would)',
            soft_wrap=True,
        )
    for warning in summary.warnings:
        warn(warning)
    sent = [f"{r.sent} row(s) to {r.sink}" for r in summary.sync if r.sent]
    if sent:
        out.print("run log synced: " + "; ".join(sent), highlight=False, soft_wrap=True)


@cli.command()
@click.argument("source")
@click.option("--rerun", is_flag=True, help="Start fresh threads even for finished briefs.")
@click.option(
    "--concurrency",
    type=click.IntRange(1, 64),
    help="Briefs processed at once (default from config: run.concurrency).",
)
@click.option("--max-rounds", type=click.IntRange(1, 50), help="Writer-critic rounds at most.")
@click.option(
    "--threshold",
    type=click.FloatRange(0, 100),
    help="Score (0-100) a draft needs, overriding the rubric's.",
)
@click.option(
    "--review",
    type=click.Choice(["when_needed", "unfinished", "always", "never"]),
    help="Which endings pause for a person (see loop.review in docs/review-cycle.md).",
)
@click.option(
    "--output",
    "output_dir",
    type=click.Path(file_okay=False),
    help="Folder for the finished texts.",
)
@click.option("--debug", is_flag=True, help="Show tracebacks of unexpected errors.")
@click.option(
    "--wait",
    "wait_seconds",
    type=click.FloatRange(0),
    is_flag=False,
    flag_value=0.0,
    default=None,
    metavar="[SECONDS]",
    help="With a cluster: wait for the workers to finish the batch (at most "
    "SECONDS; 0 or no value: as long as it takes).",
)
@click.pass_context
@user_errors
def run(
    ctx: click.Context,
    source: str,
    rerun: bool,
    concurrency: int | None,
    max_rounds: int | None,
    threshold: float | None,
    review: str | None,
    output_dir: str | None,
    debug: bool,
    wait_seconds: float | None,
) -> None:
    """Run every brief in SOURCE through the writer-critic loop.

    SOURCE is a folder of briefs, one brief file (.md, .txt, or a source file to
    document), a .csv or .xlsx file with one brief per row ('file.xlsx#Worksheet' for
    a named worksheet), or gsheet://KEY/WORKSHEET. A SOURCE that is none of these is a
    usage error: no batch is recorded and no message sent.

    Finished briefs are skipped, interrupted ones resume, briefs waiting for a person
    stay waiting. Exit code 0 when no brief ended in error, 1 otherwise, 2 for usage or
    configuration errors.

    With [cluster] broker set, the briefs that need work are queued for `briefloop
    worker` processes (each thread once) and the command returns, or waits with --wait.
    """
    settings = load_settings(
        ctx,
        **{
            "loop.max_rounds": max_rounds,
            "loop.threshold": threshold,
            "loop.review": review,
            "paths.output": output_dir,
            "run.concurrency": concurrency,
        },
    )
    columns = (
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
    )
    with (
        signals.handle_signals(settings.run.stop_grace_seconds),
        RichProgress(*columns, console=err, transient=True) as bar,
    ):
        summary = run_job(
            settings,
            source,
            rerun=rerun,
            concurrency=concurrency,
            progress=RichBatchProgress(bar),
            strict=debug,
        )
    print_summary(summary)
    if summary.batch_id is not None:
        finished = follow_batch(settings, summary.batch_id, wait_seconds)
        row = finished or {}
        sys.exit(
            1
            if summary.failed
            or row.get("status") == "failed"
            or (row.get("counts") or {}).get("error")
            else 0
        )
    sys.exit(1 if summary.failed else 0)


def follow_batch(
    settings: config.Settings, batch_id: int, wait_seconds: float | None
) -> dict | None:
    """A cluster's batch: say where it stands, and wait for it with --wait. (A
    BriefloopError reaches the person through `run`'s user_errors.)"""
    if wait_seconds is None:
        out.print(
            f"batch {batch_id} queued; the workers run it (`briefloop runs` shows "
            f"progress, `briefloop run ... --wait` waits)",
            highlight=False,
        )
        return None
    from batch.cluster.queue import wait_for_batch  # Celery: for a cluster only

    with Runner(settings) as runner:
        row = wait_for_batch(runner, batch_id, timeout=wait_seconds or None)
    counts = ", ".join(f"{label(k)} {v}" for k, v in sorted(row["counts"].items()))
    out.print(f"batch {batch_id} {row['status']}: {counts or 'nothing to do'}", highlight=False)
    return row


@cli.command()
@click.option(
    "--concurrency",
    type=click.IntRange(1, 256),
    default=None,
    help="Briefs run at once, each in its own process (default: run.concurrency).",
)
@click.option(
    "--loglevel",
    type=click.Choice(["DEBUG", "INFO", "WARNING", "ERROR"]),
    default="INFO",
    show_default=True,
    help="How much the worker logs.",
)
@click.pass_context
def worker(ctx: click.Context, concurrency: int | None, loglevel: str) -> None:
    """Run briefs queued by `briefloop run` in a cluster ([cluster] broker), until
    SIGTERM or Ctrl-C.

    A worker needs the config (models, [store], [cluster]), not the briefs: each task
    carries its brief. Start one per machine next to the model hosts; a worker killed
    mid-brief costs the model call in flight, and another worker resumes the thread.
    """
    settings = load_settings(ctx)
    if not settings.clustered:
        raise UserError(
            'no cluster configured: set [cluster] broker = "redis://..." '
            '(and [store] backend = "postgres") in the config'
        )
    from batch.cluster.worker import run_worker

    run_worker(settings, concurrency or settings.run.concurrency, loglevel)


@cli.command()
@click.option("--json", "as_json", is_flag=True, help="Print the records as JSON.")
@click.option("--status", type=click.Choice(RUN_STATUSES), help="Only runs with this status.")
@click.option(
    "--batch",
    "which",
    metavar="last|ID",
    help="Only the runs of one batch (`last`: the newest), with its counts.",
)
@click.option(
    "--outcome",
    type=click.Choice(VIEW_OUTCOMES),
    help="Only runs that ended so (with --batch: that the batch counted so, "
    "e.g. waiting or skipped).",
)
@click.option(
    "--brief", metavar="TEXT", help="Only briefs whose id or title holds TEXT (in any case)."
)
@click.option(
    "--fixes",
    is_flag=True,
    help="List the fixes people made to briefs' checklists as read (review fix), and "
    "what they say of the reader: the items it read wrong, by kind.",
)
@click.pass_context
@user_errors
def runs(
    ctx: click.Context,
    as_json: bool,
    status: str | None,
    which: str | None,
    outcome: str | None,
    brief: str | None,
    fixes: bool,
) -> None:
    """List the run log: one record per brief thread (or one batch's, with --batch)."""
    settings = load_settings(ctx)
    if fixes:
        print_fixes(*reader_fixes(settings), as_json)
        return
    batch_row, records = (
        batch_runs(settings, which, outcome, brief)
        if which
        else (None, list_runs(settings, status, outcome, brief))
    )
    if status and batch_row is not None:
        records = [r for r in records if r["status"] == status]
    if as_json:
        click.echo(
            json_for_terminal(
                json.dumps(
                    records if batch_row is None else {"batch": batch_row, "runs": records},
                    indent=2,
                    ensure_ascii=False,
                )
            )
        )
        return
    if batch_row is not None:
        print_batch(batch_row, records)
        return
    if not records:
        out.print("no runs match" if (status or outcome or brief) else "no runs yet")
        return
    out.print(runs_table(records, out.width))


# The runs table's columns, most needed first, each with the width it needs at least: a
# narrow terminal drops the last ones rather than folding every one to a few letters
_RUN_COLUMNS = [
    ("thread", 0, lambda r: r["thread_id"]),  # as wide as the longest: never folded
    ("ended", 14, lambda r: label(r["stop_reason"] or r["status"])),
    ("why", 16, why),
    # as wide as the longest, never folded mid-word: the thread id holds it anyway
    ("brief", 0, lambda r: r["brief_id"]),
    ("rounds", 6, lambda r: str(r["rounds"])),
    ("score", 7, lambda r: f"{r['score_history'][-1]:g}" if r["score_history"] else ""),
    ("needs", 5, lambda r: str(len(r["needs_from_human"]))),
    ("title", 20, lambda r: r["title"] or ""),
    ("scores", 16, lambda r: " → ".join(f"{s:g}" for s in r["score_history"])),
    ("calls", 5, lambda r: str(r["model_calls"])),
    ("seconds", 7, lambda r: f"{r['seconds']:.1f}"),
]


def print_fixes(rows: list[dict[str, Any]], counts: dict[str, Any], as_json: bool) -> None:
    """The fixes people made to the reader's checklists, and their counts."""
    if as_json:
        click.echo(
            json_for_terminal(
                json.dumps({"fixes": rows, "counts": counts}, indent=2, ensure_ascii=False)
            )
        )
        return
    if not rows:
        out.print("no fixes to a checklist yet (briefloop review fix THREAD ITEM makes one)")
        return
    for r in rows:
        out.print(
            f"{escape(r['at'])} {escape(r['brief_id'])} {escape(r['item'])} "
            f"({escape(r['was'])}: {escape(r['read'])}) -> {escape(fix_words(r))}"
            + (f" by {escape(r['by'])}" if r["by"] else ""),
            highlight=False,
            soft_wrap=True,
        )
    right = counts["read_right"]
    share = (
        f"; {right:.1%} of the {counts['items_read']} items of the briefs' latest runs read right"
        if right is not None
        else ""
    )
    kinds = ", ".join(f"{k} {n}" for k, n in counts["by_kind_read"].items())
    out.print(
        f"{counts['items_fixed']} item(s) read wrong ({counts['fixes']} fix(es); read as: "
        f"{kinds}){share}",
        highlight=False,
        soft_wrap=True,
    )


def runs_table(records: list[dict], width: int) -> Table:
    """The run log as a table that fits `width` columns: the thread id (what `review
    history` and `resume` take) and how it ended always; more as the width allows."""
    return fitted_table(_RUN_COLUMNS, records, width, whole=("thread", "ended", "brief", "rounds"))


@cli.command()
@click.option(
    "--all",
    "resend",
    is_flag=True,
    help="Send every row again, not only pending ones (e.g. after deleting a sheet).",
)
@click.pass_context
@user_errors
def sync(ctx: click.Context, resend: bool) -> None:
    """Send run-log rows not yet in a spreadsheet to every configured sink.

    SQLite is the record; rows a sink missed (a locked file, no network, a rate limit)
    wait there until a sync takes them. Exit code 1 if a sink still failed.
    """
    settings = load_settings(ctx)
    results = sync_now(settings, resend=resend)
    if not results:
        out.print("no spreadsheet sink is configured (log.format = none, no log.gsheet)")
    for r in results:
        if r.error:
            err.print(
                f"[yellow]{escape(r.sink)}[/yellow]: {r.pending} row(s) still pending: "
                f"{escape(r.error)}",
                soft_wrap=True,
            )
        else:
            out.print(f"{r.sink}: sent {r.sent} row(s)", highlight=False, soft_wrap=True)
    sys.exit(1 if any(r.error for r in results) else 0)


@cli.command()
@click.pass_context
@user_errors
def repair(ctx: click.Context) -> None:
    """Finish every retry, reopen or one-tap approval that was cut short (a crash, a
    kill, a full disk), and write out approvals whose text could not be written.
    Each touches the thread's state, the run log and the output files; it is finished
    as it was asked, with the same result as if nothing had happened. The nightly run
    does this first."""
    with open_batch(ctx) as runner:
        done = pending.finish_pending(runner)
        if done:
            refresh_review_sheet(runner)
    if not done:
        out.print("nothing to repair", highlight=False)
    for f in done:
        what = (
            "still under way in another process; left alone"
            if f.outcome == "busy"
            else f"finished: {f.outcome}"
        )
        out.print(
            f"{f.kind} of thread {escape(f.thread_id)} (begun {f.started_at}): {what}",
            highlight=False,
            soft_wrap=True,
        )


@cli.command()
@click.argument("thread")
@click.pass_context
@user_errors
def resume(ctx: click.Context, thread: str) -> None:
    """Resume an unfinished THREAD by id (one that crashed or failed), from its last
    checkpoint."""
    with open_batch(ctx) as runner:
        thread = named_thread(runner, thread)
        where, result = threads.resume(runner, thread)
    out.print(f"resumed {thread} at {where}", highlight=False, soft_wrap=True)
    print_result(result)
    sys.exit(1 if result.outcome == "error" else 0)
