"""The `briefloop` command: a thin layer over the library (batch.run.runner and friends).

Errors meant for a person (BriefloopError) are printed as one line without a
traceback, exit code 2; anything else is a bug and shows its traceback.
"""

from __future__ import annotations

import contextlib
import json
import sys
from datetime import date
from pathlib import Path
from typing import Any

import click
import yaml
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, TextColumn, TimeElapsedColumn
from rich.progress import Progress as RichProgress
from rich.table import Table

from batch import config as config_mod
from batch import placeholders as ph
from batch.errors import BriefloopError, LockBusy, StoreError
from batch.inputs.briefs import load_yaml
from batch.inputs.project import init_project
from batch.nightly import schedule as schedule_mod
from batch.nightly.job import batch_lock, pull_reviews, run_job
from batch.outcomes import AWAITING, OUTCOME_ICONS, OUTCOME_ORDER, RUN_STATUSES, is_approved, label
from batch.review import threads as review_mod
from batch.run import signals as stopping
from batch.run.runner import (
    Batch,
    BatchSummary,
    BriefResult,
    Progress,
    list_runs,
    sync_now,
)
from batch.store.backends import open_store
from batch.store.retention import prune
from batch.store.runlog import store_failure

err = Console(stderr=True)
out = Console()



class UserError(click.ClickException):
    def __init__(self, message: str, exit_code: int = 2):
        super().__init__(message)
        self.exit_code = exit_code

    def show(self, file: Any = None) -> None:
        err.print(f"[red]error:[/red] {escape(self.message)}", highlight=False, soft_wrap=True)


def user_error(e: BriefloopError) -> UserError:
    # A failing disk is not a usage mistake: exit 1, as for a batch with errors.
    return UserError(str(e), exit_code=1 if isinstance(e, StoreError) else 2)


class Commands(click.Group):
    """The command group; an SQLite fault of the disk (full, I/O error) raised anywhere,
    a read in `runs` included, is one line and exit 1, never a traceback."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except Exception as e:
            # A fault of the store, from anywhere: an SQLite disk full or failing, a
            # PostgreSQL server that cannot be reached. Anything else is raised as it is.
            if store_failure(e, Path()) is None:
                raise
            folder = Path("the checkpoints folder")
            # It loaded a moment ago; if it no longer does, the folder is named generically.
            with contextlib.suppress(BriefloopError):
                folder = config_mod.load(ctx.obj.get("config")).checkpoint_path.parent
            raise user_error(store_failure(e, folder)) from None


def load_settings(ctx: click.Context, **flags: Any):
    try:
        return config_mod.load(ctx.obj.get("config"), overrides=flags)
    except BriefloopError as e:
        raise user_error(e) from None


CONFIG_HELP = ("Config file (default: $BRIEFLOOP_CONFIG, else config/briefloop.toml here or "
               "in a folder above).")


@click.group(cls=Commands, context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--config", "config_path", type=click.Path(dir_okay=False), help=CONFIG_HELP)
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
    icon = OUTCOME_ICONS.get(r.outcome, "•")
    rec = r.record or {}
    parts = [f"{icon} {r.brief_id}: {r.outcome}"]
    if rec.get("score") is not None:
        parts.append(f"score {rec['score']:.1f}")
    if rec.get("rounds"):
        parts.append(f"{rec['rounds']} round(s)")
    if r.model_calls:
        parts.append(f"{r.model_calls} model call(s), {r.seconds:.1f}s")
    if rec.get("needs_from_human") and r.outcome in (AWAITING, "waiting"):
        parts.append(f"needs {len(rec['needs_from_human'])} fact(s) from a person")
    line = ", ".join(parts)
    if r.error:
        line += f"\n    {r.error}"
    return line


def print_pulled(pulled: list) -> None:
    for p in pulled:
        line = f"review sheet: {p.thread_id}: {p.outcome}"
        out.print(escape(line + (f" ({p.message})" if p.message else "")), highlight=False,
                  soft_wrap=True)


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
@click.option("--review", type=click.Choice(["when_needed", "unfinished", "always", "never"]),
              help="Which endings pause for a person (see loop.review in docs/review-cycle.md).")
@click.option("--output", "output_dir", type=click.Path(file_okay=False),
              help="Folder for the finished texts.")
@click.option("--debug", is_flag=True, help="Show tracebacks of unexpected errors.")
@click.option("--wait", "wait_seconds", type=click.FloatRange(0), is_flag=False,
              flag_value=0.0, default=None, metavar="[SECONDS]",
              help="With a cluster: wait for the workers to finish the batch (at most "
                   "SECONDS; 0 or no value: as long as it takes).")
@click.pass_context
def run(ctx: click.Context, source: str, rerun: bool, concurrency: int | None,
        max_rounds: int | None, threshold: float | None, review: str | None,
        output_dir: str | None, debug: bool, wait_seconds: float | None) -> None:
    """Run every brief in SOURCE through the writer-critic loop.

    SOURCE is a folder of briefs, a .csv or .xlsx file with one brief per row
    ('file.xlsx#Worksheet' for a named worksheet), or gsheet://KEY/WORKSHEET.

    Finished briefs are skipped, interrupted ones resume, briefs waiting for a person
    stay waiting. Exit code 0 when no brief ended in error, 1 otherwise, 2 for usage or
    configuration errors.

    With [cluster] broker set, the briefs that need work are queued for `briefloop
    worker` processes (each thread once) and the command returns, or waits with --wait.
    """
    settings = load_settings(ctx, **{"loop.max_rounds": max_rounds, "loop.threshold": threshold,
                                     "loop.review": review, "paths.output": output_dir,
                                     "run.concurrency": concurrency})
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
               TimeElapsedColumn())
    try:
        with stopping.handle_signals(settings.run.stop_grace_seconds), \
                RichProgress(*columns, console=err, transient=True) as bar:
            summary = run_job(settings, source, rerun=rerun, concurrency=concurrency,
                                 progress=RichBatchProgress(bar), strict=debug)
    except BriefloopError as e:
        raise user_error(e) from None
    print_summary(summary)
    if summary.batch_id is not None:
        finished = follow_batch(settings, summary.batch_id, wait_seconds)
        sys.exit(1 if summary.failed or (finished or {}).get("status") == "failed" else 0)
    sys.exit(1 if summary.failed else 0)


def follow_batch(settings: config_mod.Settings, batch_id: int,
                 wait_seconds: float | None) -> dict | None:
    """A cluster's batch: say where it stands, and wait for it with --wait."""
    if wait_seconds is None:
        out.print(f"batch {batch_id} queued; the workers run it (`briefloop runs` shows "
                  f"progress, `briefloop run ... --wait` waits)", highlight=False)
        return None
    from batch.cluster.queue import wait_for_batch  # Celery: for a cluster only

    try:
        with Batch(settings) as batch:
            row = wait_for_batch(batch, batch_id, timeout=wait_seconds or None)
    except BriefloopError as e:
        raise user_error(e) from None
    counts = ", ".join(f"{label(k)} {v}" for k, v in sorted(row["counts"].items()))
    out.print(f"batch {batch_id} {row['status']}: {counts or 'nothing to do'}",
              highlight=False)
    return row


@cli.command()
@click.option("--concurrency", type=click.IntRange(1, 256), default=None,
              help="Briefs run at once, each in its own process (default: run.concurrency).")
@click.option("--loglevel", type=click.Choice(["DEBUG", "INFO", "WARNING", "ERROR"]),
              default="INFO", show_default=True, help="How much the worker logs.")
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
        raise UserError("no cluster configured: set [cluster] broker = \"redis://...\" "
                        "(and [store] backend = \"postgres\") in the config")
    from batch.cluster.worker import run_worker

    run_worker(settings, concurrency or settings.run.concurrency, loglevel)


@cli.command()
@click.option("--json", "as_json", is_flag=True, help="Print the records as JSON.")
@click.option("--status", type=click.Choice(RUN_STATUSES),
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
        table.add_row(escape(r["run_id"]), escape(r["brief_id"]), r["status"],
                      r["stop_reason"] or "",
                      str(r["rounds"]), " → ".join(f"{s:g}" for s in r["score_history"]),
                      str(r["model_calls"]), str(len(r["needs_from_human"])),
                      f"{r['seconds']:.1f}")
    out.print(table if records else "no runs yet")


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
        raise user_error(e) from None
    if not results:
        out.print("no spreadsheet sink is configured (log.format = none, no log.gsheet)")
    for r in results:
        if r.error:
            err.print(f"[yellow]{escape(r.sink)}[/yellow]: {r.pending} row(s) still pending: "
                      f"{escape(r.error)}", soft_wrap=True)
        else:
            out.print(f"{r.sink}: sent {r.sent} row(s)", highlight=False, soft_wrap=True)
    sys.exit(1 if any(r.error for r in results) else 0)


# -- human review ------------------------------------------------------------------------

def open_batch(ctx: click.Context) -> Batch:
    return Batch(load_settings(ctx))


def highlight_placeholders(text: str) -> str:
    return ph.PATTERN.sub(lambda m: f"[reverse bold]{escape(m.group(0))}[/]", escape(text))


def print_result(r: BriefResult) -> None:
    out.print(escape(describe_result(r)), highlight=False, soft_wrap=True)
    if r.outcome == "queued":
        out.print("a worker runs it on (`briefloop runs` shows when it is done)",
                  highlight=False)
    elif r.record and r.record.get("output_path") and r.outcome != AWAITING:
        approved = is_approved(r.record.get("stop_reason"))
        label = "output" if approved else "not approved, set aside in"
        out.print(f"{label}: {r.record['output_path']}", highlight=False, soft_wrap=True)


@cli.group()
def review() -> None:
    """Answer the threads waiting for a person: fill placeholders, approve, reject, revise."""


@review.command("list")
@click.option("--json", "as_json", is_flag=True, help="Print the waiting threads as JSON.")
@click.pass_context
def review_list(ctx: click.Context, as_json: bool) -> None:
    """List every thread waiting for a person."""
    with open_batch(ctx) as batch:
        items = review_mod.list_waiting(batch)
    if as_json:
        click.echo(json.dumps([i.as_dict() for i in items], indent=2, ensure_ascii=False))
        return
    if not items:
        out.print("nothing is waiting for a person")
        return
    table = Table(show_header=True)
    for col in ("thread", "brief", "title", "score", "open", "waiting since"):
        table.add_column(col, overflow="fold")
    for i in items:
        title = i.title + (f" (superseded by {i.superseded_by['thread_id']})"
                           if i.superseded_by else "")
        table.add_row(escape(i.thread_id), escape(i.brief_id), escape(title),
                      f"{i.score:.1f}" if i.score is not None else "", str(len(i.needs)),
                      i.waiting_since[:19])
    out.print(table)


@review.command("show")
@click.argument("thread")
@click.pass_context
def review_show(ctx: click.Context, thread: str) -> None:
    """Show a waiting thread: the draft, what it needs from you, deviations, notes."""
    with open_batch(ctx) as batch:
        try:
            item = review_mod.require_waiting(batch, thread)
        except BriefloopError as e:
            raise user_error(e) from None
    out.print(f"[bold]{escape(item.title or item.brief_id)}[/] ({escape(item.thread_id)})")
    history = " → ".join(f"{s:g}" for s in item.score_history)
    out.print(f"score {item.score:.1f}; history {history}", highlight=False)
    if item.stopped:
        out.print(f"[yellow]the machine could not approve it ({escape(item.stopped)})[/]; "
                  f"this is its best draft. What the code checks still find (approve over "
                  f"it with --override \"reason\", or --edit, --revise, --reject):",
                  soft_wrap=True)
        for line in item.must_fix:
            out.print(f"  - {escape(line)}", soft_wrap=True)
    if item.superseded_by:
        out.print(f"[yellow]{escape(item.superseded_note())}[/]: approving it is refused; "
                  f"close it with --reject", soft_wrap=True)
    if item.problem:
        out.print(f"[yellow]last answer not taken:[/] {escape(item.problem)}")
    out.print()
    out.print(highlight_placeholders(item.draft), soft_wrap=True)
    out.print()
    if item.needs:
        out.print("[bold]Needed from you[/]")
        for n, need in enumerate(item.needs, start=1):
            given = item.answers.get(need["placeholder"])
            value = f" = {escape(given)}" if given else ""
            out.print(f"  {n}. {escape(need['placeholder'])}{value}: {escape(need['question'])}",
                      soft_wrap=True)
    if item.checklist:
        out.print("[bold]What the brief asks (checked by code)[/]")
        for rid, kind, text, ok in item.checklist:
            mark = "[green]✓[/]" if ok else "[red]✗[/]"
            out.print(f"  {mark} {rid} {kind}: {escape(text)}", soft_wrap=True)
    for title, lines in (("Deliberate deviations",
                          [f"{d['point']}: {d['reason']}" for d in item.deviations]),
                         ("Critic's suggestions (would improve)", item.would_improve)):
        if lines:
            out.print(f"[bold]{title}[/]")
            for line in lines:
                out.print(f"  - {escape(line)}", soft_wrap=True)


def interactive() -> bool:
    return sys.stdin.isatty()


def parse_sets(values: tuple[str, ...]) -> dict[str, str]:
    out_: dict[str, str] = {}
    for item in values:
        key, sep, value = item.partition("=")
        if not sep:
            raise UserError(f"--set takes KEY=VALUE, got {item!r}")
        out_[key.strip()] = value
    return out_


def read_answers_file(path: str) -> dict[str, str]:
    try:
        data = load_yaml(Path(path).read_text(encoding="utf-8"))  # JSON is YAML too
    except (OSError, yaml.YAMLError) as e:
        raise UserError(f"{path}: cannot read answers: {e}") from None
    if not isinstance(data, dict):
        raise UserError(f"{path}: expected a mapping of placeholder to value")
    answers: dict[str, str] = {}
    for key, value in data.items():
        if isinstance(value, bool):  # YAML reads yes/no/on/off as booleans
            raise UserError(f"{path}: the value of {str(key)!r} reads as a yes/no; put it "
                            f"in quotes if it is the text to fill in")
        if isinstance(value, date):  # YAML reads 2026-12-01 as a date
            value = value.isoformat()
        if not (value is None or isinstance(value, str | int | float)):
            # a list or a mapping would go into the text as its Python repr
            raise UserError(f"{path}: the value of {str(key)!r} must be text or a number, "
                            f"not a {type(value).__name__}")
        answers[str(key)] = "" if value is None else str(value)
    return answers


def ask_interactively(item: review_mod.Waiting) -> tuple[dict[str, str], str, str | None]:
    answers: dict[str, str] = {}
    for need in item.needs:
        default = item.answers.get(need["placeholder"], "")
        value = click.prompt(f"{need['placeholder']} ({need['question']})",
                             default=default or "", show_default=bool(default))
        answers[need["placeholder"]] = value
    decision = click.prompt("Decision", type=click.Choice(["approve", "reject", "revise"]))
    text = None
    if decision != "approve":
        text = click.prompt("Reason" if decision == "reject" else "Notes for the writer")
    return answers, decision, text


@review.command("answer")
@click.argument("thread")
@click.option("--set", "sets", multiple=True, metavar="KEY=VALUE",
              help="A placeholder's value; KEY is the placeholder, the text after NEEDED:, "
                   "or its number in `review show`. Repeatable.")
@click.option("--answers", "answers_file", type=click.Path(dir_okay=False),
              help="A YAML or JSON file mapping placeholders to values.")
@click.option("--approve", is_flag=True, help="Approve: fill the placeholders, write the text.")
@click.option("--reject", metavar="REASON", help="Reject the text, with a reason.")
@click.option("--revise", metavar="NOTES", help="Send it back to the writer with these notes.")
@click.option("--by", help="Who decides (default: $BRIEFLOOP_REVIEWER or your user name).")
@click.option("--edit", "edit_file", is_flag=False, flag_value="-", default=None,
              metavar="FILE",
              help="Approve your own version of the text, from FILE (on a terminal, --edit "
                   "alone opens $EDITOR on the draft). The code checks run on it.")
@click.option("--override", metavar="REASON",
              help="Approve over what the code checks still find, giving the reason.")
@click.pass_context
def review_answer(ctx: click.Context, thread: str, sets: tuple[str, ...],
                  answers_file: str | None, approve: bool, reject: str | None,
                  revise: str | None, by: str | None, edit_file: str | None,
                  override: str | None) -> None:
    """Answer a waiting THREAD: fill its placeholders and approve, reject or revise.

    Without a decision flag, on a terminal, it asks for each placeholder and then for
    the decision. With --edit the decision is approve.
    """
    if edit_file is not None:
        if reject is not None or revise is not None:
            raise UserError("--edit approves your version: it does not go with --reject "
                            "or --revise")
        approve = True
    chosen = [name for name, on in (("approve", approve), ("reject", reject is not None),
                                    ("revise", revise is not None)) if on]
    if len(chosen) > 1:
        raise UserError("choose one of --approve, --reject, --revise")
    answers = read_answers_file(answers_file) if answers_file else {}
    answers.update(parse_sets(sets))
    with open_batch(ctx) as batch:
        try:
            if chosen:
                decision, text = chosen[0], reject if reject is not None else revise
            elif interactive():
                item = review_mod.require_waiting(batch, thread)
                asked, decision, text = ask_interactively(item)
                answers = {**asked, **answers}
            else:
                raise UserError("give a decision: --approve, --reject REASON or --revise NOTES")
            edited = read_edit(batch, thread, edit_file) if edit_file is not None else None
            result = review_mod.answer(batch, thread, decision, answers, text, by,
                                       edited=edited, override=override)
        except BriefloopError as e:
            raise user_error(e) from None
    print_result(result)
    sys.exit(1 if result.outcome == "error" else 0)


def read_edit(batch: Batch, thread: str, source: str) -> str:
    """The person's version of the text: from a file, or from $EDITOR on a terminal."""
    if source != "-":
        try:
            return Path(source).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as e:
            raise UserError(f"{source}: cannot read the edited text: {e}") from None
    if not interactive():
        raise UserError("--edit without a FILE opens $EDITOR, which needs a terminal")
    edited = click.edit(review_mod.require_waiting(batch, thread).draft, extension=".md")
    if edited is None:
        raise UserError("the editor was closed without saving: nothing was changed")
    return edited


@review.command("serve")
@click.option("--host", default="127.0.0.1", show_default=True,
              help="Address to listen on; anything but loopback needs --token.")
@click.option("--port", type=click.IntRange(1, 65535), default=8765, show_default=True,
              help="Port to listen on.")
@click.option("--token", envvar="BRIEFLOOP_REVIEW_TOKEN",
              help="Required to open the page (once as ?token=...; then a cookie). "
                   "Default: $BRIEFLOOP_REVIEW_TOKEN.")
@click.pass_context
def review_serve(ctx: click.Context, host: str, port: int, token: str | None) -> None:
    """Serve the review page: the waiting threads, each with its draft, placeholders,
    findings and history, to approve, edit, revise or reject in a browser."""
    from batch.review.web import serve

    settings = load_settings(ctx)
    if not config_mod.is_loopback(host) and not token:
        raise UserError(f"the review page would be reachable from other machines on {host}: "
                        f"give --token (or $BRIEFLOOP_REVIEW_TOKEN), or bind to 127.0.0.1")
    where = f"http://{host if ':' not in host else f'[{host}]'}:{port}/"
    out.print(escape(f"review page on {where}" + ("?token=..." if token else "")
                     + " (Ctrl-C stops it)"), highlight=False)
    try:
        serve(settings, host=host, port=port, token=token)
    except BriefloopError as e:
        raise user_error(e) from None


@review.command("pull")
@click.pass_context
def review_pull(ctx: click.Context) -> None:
    """Act on the answers and decisions people typed into the Review worksheet.

    Rows it consumed are marked done; rows of threads no longer waiting are skipped
    with the reason; then rows for every thread still waiting are added. `briefloop run`
    pulls first too.
    """
    settings = load_settings(ctx)
    try:
        pulled = pull_reviews(settings)
    except BriefloopError as e:
        raise user_error(e) from None
    print_pulled(pulled)
    if not pulled:
        out.print("no decisions to act on in the review sheet")
    sys.exit(1 if any(p.outcome in ("error", "not taken") for p in pulled) else 0)


@cli.command()
@click.argument("thread")
@click.pass_context
def resume(ctx: click.Context, thread: str) -> None:
    """Resume an unfinished THREAD by id (one that crashed or failed), from its last
    checkpoint."""
    with open_batch(ctx) as batch:
        try:
            where, result = review_mod.resume(batch, thread)
        except BriefloopError as e:
            raise user_error(e) from None
    out.print(f"resumed {thread} at {where}", highlight=False, soft_wrap=True)
    print_result(result)
    sys.exit(1 if result.outcome == "error" else 0)


@cli.command()
@click.argument("folder", default=".", type=click.Path(file_okay=False))
def init(folder: str) -> None:
    """Make FOLDER (default: here) a briefloop project: config/briefloop.toml, the
    shipped rubrics and house rules, and an empty briefs/ folder. Files already there
    are kept."""
    try:
        written, kept = init_project(Path(folder))
    except BriefloopError as e:
        raise user_error(e) from None
    for path in written:
        out.print(escape(f"wrote {path}"), highlight=False, soft_wrap=True)
    for path in kept:
        out.print(escape(f"kept {path} (already there)"), highlight=False, soft_wrap=True)
    out.print(escape(f"next: put briefs in {Path(folder) / 'briefs'}, then "
                     f"`cd {folder} && briefloop run briefs`"), highlight=False, soft_wrap=True)


@cli.command()
@click.option("--keep-days", type=click.FloatRange(0),
              help="Prune finished threads older than this (default: retention.keep_days).")
@click.pass_context
def gc(ctx: click.Context, keep_days: float | None) -> None:
    """Shrink the checkpoint database: finished threads keep only their final checkpoint,
    then VACUUM gives the space back. Waiting, running and failed threads are untouched.
    """
    settings = load_settings(ctx)
    try:
        with open_store(settings) as store, batch_lock(store,
                                                        settings.run.lock_wait_seconds):
            report = prune(settings, keep_days, store=store)
    except LockBusy:
        raise UserError("a batch is running; run gc when it is done") from None
    mib = 1024 * 1024
    out.print(f"{report.threads} finished thread(s) pruned: {report.checkpoints_deleted} "
              f"checkpoint(s) and {report.writes_deleted} write(s) deleted; "
              f"{report.bytes_before / mib:.1f} MiB -> {report.bytes_after / mib:.1f} MiB",
              highlight=False)


@cli.command()
@click.option("--list", "list_only", is_flag=True,
              help="Print the jobs, their next run times and last results, and exit.")
@click.option("--run-now", metavar="JOB", help="Run one job now, through the same code path.")
@click.pass_context
def schedule(ctx: click.Context, list_only: bool, run_now: str | None) -> None:
    """Run the scheduled jobs of [schedule] in the foreground until SIGTERM or Ctrl-C.

    Jobs are stored in SQLite, so a run missed while the machine slept or the process
    was down runs once on start (within schedule.misfire_grace_seconds). Never two
    batches at once: scheduled and manual runs share one lock.
    """
    settings = load_settings(ctx)
    config_path = resolved_config_path(ctx)
    try:
        if list_only:
            print_schedule(schedule_mod.status(settings))
        elif run_now:
            schedule_mod.run_now(settings, config_path, run_now)
        else:
            schedule_mod.serve(settings, config_path)
    except BriefloopError as e:
        raise user_error(e) from None


def resolved_config_path(ctx: click.Context) -> str | None:
    """The config file as an absolute path, for jobs that load it again later."""
    import os

    raw = ctx.obj.get("config") or os.environ.get(config_mod.ENV_CONFIG_PATH)
    path = Path(raw) if raw else config_mod.DEFAULT_CONFIG
    return str(path.resolve()) if path.is_file() else None


def print_schedule(jobs: list) -> None:
    if not jobs:
        out.print(escape("no jobs in [schedule]"))
        return
    for j in jobs:
        last = j.last or {}
        counts = ", ".join(f"{k} {v}" for k, v in sorted(last.get("counts", {}).items()))
        result = (f"{(last.get('started_at') or '')[:19]} {last.get('status', '')}"
                  f"{f' ({counts})' if counts else ''}") if last else "never run"
        next_run = j.next_run.isoformat(timespec="seconds") if j.next_run else "not scheduled"
        out.print(escape(f"{j.name}: {j.cron} ({j.timezone}), source {j.source}\n"
                         f"  next run: {next_run}\n  last run: {result}"),
                  highlight=False, soft_wrap=True)


def _remember_config(ctx: click.Context, param: click.Parameter, value: str | None) -> None:
    if value is not None:
        ctx.find_root().ensure_object(dict)["config"] = value


def _accept_config_after_the_command(group: click.Group) -> None:
    """`briefloop run SOURCE --config F` as well as `briefloop --config F run SOURCE`."""
    for command in group.commands.values():
        command.params.append(click.Option(
            ["--config"], type=click.Path(dir_okay=False), expose_value=False,
            callback=_remember_config, help=CONFIG_HELP))
        if isinstance(command, click.Group):
            _accept_config_after_the_command(command)


_accept_config_after_the_command(cli)


def main() -> None:
    cli(obj={})
