"""What every command shares: the group and its --config, one-line user errors, the
consoles, and how a brief's result is printed."""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Callable
from pathlib import Path
from typing import Any, ParamSpec, TypeVar

import click
from rich.markup import escape

from batch import config
from batch.cli.terminal import SafeConsole
from batch.cluster import hand_to_workers
from batch.errors import BriefloopError, StoreError
from batch.outcomes import AWAITING, OUTCOME_ICONS, is_approved
from batch.review import sheet as review_sheet
from batch.run.runner import (
    BriefResult,
    Runner,
)
from batch.sheets.run_rows import time_words
from batch.store.runlog import store_failure

err = SafeConsole(stderr=True)


def warn(message: str) -> None:
    """A warning on stderr, in one line: what went wrong beside a result that stands."""
    err.print(f"[yellow]warning:[/yellow] {escape(message)}", soft_wrap=True)


def refresh_review_sheet(runner: Runner) -> None:
    """The Review worksheet brought up to date after an action here; one that could not
    be written is a warning (batch.review.sheet.refresh)."""
    unsynced = review_sheet.refresh(runner)
    if unsynced:
        warn(unsynced)


out = SafeConsole()

CONFIG_HELP = (
    "Config file (default: $BRIEFLOOP_CONFIG, else config/briefloop.toml here or "
    "in a folder above)."
)


class UserError(click.ClickException):
    def __init__(self, message: str, exit_code: int = 2):
        super().__init__(message)
        self.exit_code = exit_code  # type: ignore[misc]  # click's is a class default

    def show(self, file: Any = None) -> None:
        err.print(f"[red]error:[/red] {escape(self.message)}", highlight=False, soft_wrap=True)


def user_error(e: BriefloopError) -> UserError:
    # A failing disk is not a usage mistake: exit 1, as for a batch with errors.
    return UserError(str(e), exit_code=1 if isinstance(e, StoreError) else 2)


_P = ParamSpec("_P")
_R = TypeVar("_R")


def user_errors(command: Callable[_P, _R]) -> Callable[_P, _R]:
    """`command` with a BriefloopError it raises shown as one line (user_error), no
    traceback. It goes right above the `def`, under the click decorators, so that click
    still reads the command's docstring and parameters."""

    @functools.wraps(command)
    def shown(*args: _P.args, **kwargs: _P.kwargs) -> _R:
        try:
            return command(*args, **kwargs)
        except BriefloopError as e:
            raise user_error(e) from None

    return shown


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
                folder = config.load(ctx.obj.get("config")).checkpoint_path.parent
            failure = store_failure(e, folder)
            if failure is None:
                raise
            raise user_error(failure) from None


def load_settings(ctx: click.Context, **flags: Any):
    try:
        return config.load(ctx.obj.get("config"), overrides=flags)
    except BriefloopError as e:
        raise user_error(e) from None


@click.group(cls=Commands, context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--config", "config_path", type=click.Path(dir_okay=False), help=CONFIG_HELP)
@click.version_option(package_name="briefloop")
@click.pass_context
def cli(ctx: click.Context, config_path: str | None) -> None:
    """briefloop: batch writing through a writer-critic loop with a person in the loop."""
    ctx.ensure_object(dict)
    ctx.obj["config"] = config_path


def open_batch(ctx: click.Context) -> Runner:
    return Runner(load_settings(ctx), resumer=hand_to_workers)


def named_thread(runner: Runner, ref: str) -> str:
    """THREAD as a person gives it: a thread id, or the id of a brief exactly one thread
    ran. A thread only its checkpoints know (cut short before its record) is its id."""
    try:
        return runner.runlog.thread_named(ref)
    except BriefloopError as e:
        if runner.snapshot(ref).values:
            return ref
        raise UserError(str(e)) from None


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
        if rec.get("time_split"):
            parts.append(f"time: {time_words(rec['time_split'])}")
    if rec.get("needs_from_human") and r.outcome in (AWAITING, "waiting"):
        parts.append(f"needs {len(rec['needs_from_human'])} fact(s) from a person")
    line = ", ".join(parts)
    if r.error:
        line += f"\n    {r.error}"
    return line


def print_result(r: BriefResult) -> None:
    out.print(escape(describe_result(r)), highlight=False, soft_wrap=True)
    if r.outcome == "queued":
        out.print("a worker runs it on (`briefloop runs` shows when it is done)", highlight=False)
    elif r.record and r.record.get("output_path") and r.outcome != AWAITING:
        approved = is_approved(r.record.get("stop_reason"))
        label = "output" if approved else "not approved, set aside in"
        out.print(f"{label}: {r.record['output_path']}", highlight=False, soft_wrap=True)


def print_pulled(pulled: list) -> None:
    for p in pulled:
        line = f"review sheet: {p.thread_id}: {p.outcome}"
        out.print(
            escape(line + (f" ({p.message})" if p.message else "")), highlight=False, soft_wrap=True
        )


def resolved_config_path(ctx: click.Context) -> str | None:
    """The config file as an absolute path, for jobs that load it again later."""
    import os

    raw = ctx.obj.get("config") or os.environ.get(config.ENV_CONFIG_PATH)
    path = Path(raw) if raw else config.DEFAULT_CONFIG
    return str(path.resolve()) if path.is_file() else None


def _remember_config(ctx: click.Context, param: click.Parameter, value: str | None) -> None:
    if value is not None:
        ctx.find_root().ensure_object(dict)["config"] = value


def _accept_config_after_the_command(group: click.Group) -> None:
    """`briefloop run SOURCE --config F` as well as `briefloop --config F run SOURCE`."""
    for command in group.commands.values():
        command.params.append(
            click.Option(
                ["--config"],
                type=click.Path(dir_okay=False),
                expose_value=False,
                callback=_remember_config,
                help=CONFIG_HELP,
            )
        )
        if isinstance(command, click.Group):
            _accept_config_after_the_command(command)
