"""`briefloop review`: list, show, answer, serve and pull the threads waiting for a
person. Each command is a few lines over batch.review."""

from __future__ import annotations

import json
import sys
from datetime import date
from pathlib import Path

import click
import yaml
from rich.markup import escape

from batch import config, placeholders
from batch.cli.base import (
    UserError,
    cli,
    load_settings,
    named_thread,
    open_batch,
    out,
    print_pulled,
    print_result,
    refresh_review_sheet,
    user_errors,
)
from batch.cli.stories import print_calls, print_story
from batch.cli.terminal import fitted_table, json_for_terminal
from batch.cluster import hand_to_workers
from batch.decision import Action
from batch.errors import one_line
from batch.inputs.briefs import load_yaml, read_text_file
from batch.judging.checklist.fixes import KIND_NAMES, fix_words
from batch.judging.record import why_lines
from batch.judging.support import pieces
from batch.nightly.job import pull_reviews
from batch.review import attempts, threads
from batch.review.history import story
from batch.review.pages import local_time
from batch.run.runner import Runner

# a token other machines can try: long enough that guessing it is out of reach
MIN_TOKEN_CHARS = 16
CALL_TEXT_CHARS = 600  # of each message and answer `review calls` prints without --full


def marked_words(addition: dict) -> str:
    """A sentence that adds to the brief, each added word in «» (and bold on a terminal)."""
    return "".join(
        f"[bold]«{escape(text)}»[/]" if is_added else escape(text)
        for text, is_added in pieces(addition["sentence"], addition["added"])
    )


def print_why(record: dict) -> None:
    """Why an ended thread's text is where it is, from its run-log record."""
    title = record.get("title") or record.get("brief_id") or ""
    ending = str(record.get("stop_reason") or record.get("status"))
    out.print(
        f"[bold]{escape(title)}[/] ({escape(record['thread_id'])}): {escape(ending)}",
        soft_wrap=True,
    )
    if record.get("decided_by"):
        note = f": {record['decision_note']}" if record.get("decision_note") else ""
        out.print(f"decided by {escape(record['decided_by'])}{escape(note)}", soft_wrap=True)
    if record.get("output_path"):
        out.print(f"output: {escape(record['output_path'])}", soft_wrap=True)
    lines = why_lines(record.get("judgement") or {})
    if not lines:
        out.print("no record of the checks was kept for this run (it ran before they were)")
    for line in lines:
        out.print(f"  - {escape(line)}", soft_wrap=True)


def highlight_placeholders(text: str) -> str:
    return placeholders.PATTERN.sub(
        lambda m: f"[reverse bold]{escape(m.group(0))}[/]", escape(text)
    )


@cli.group()
def review() -> None:
    """Answer the threads waiting for a person: fill placeholders, approve, reject, revise."""


# `review list`'s columns, most needed first (batch.cli.terminal.fitted_table)
_WAITING_COLUMNS = [
    ("thread", 0, lambda i: i.thread_id),  # whole: what `review answer` takes
    ("waits for", 0, lambda i: i.waits_for()),
    ("brief", 12, lambda i: i.brief_id),
    ("open", 4, lambda i: str(len(i.needs))),
    ("waiting since", 0, lambda i: local_time(i.waiting_since)),
    ("score", 5, lambda i: f"{i.score:.1f}" if i.score is not None else ""),
    (
        "title",
        16,
        lambda i: (
            i.title
            + (f" (superseded by {i.superseded_by['thread_id']})" if i.superseded_by else "")
        ),
    ),
]


@review.command("list")
@click.option("--json", "as_json", is_flag=True, help="Print the waiting threads as JSON.")
@click.pass_context
def review_list(ctx: click.Context, as_json: bool) -> None:
    """List every thread waiting for a person."""
    with open_batch(ctx) as runner:
        items = threads.list_waiting(runner)
    if as_json:
        click.echo(
            json_for_terminal(
                json.dumps([i.as_dict() for i in items], indent=2, ensure_ascii=False)
            )
        )
        return
    if not items:
        out.print("nothing is waiting for a person")
        return
    table = fitted_table(
        _WAITING_COLUMNS, items, out.width, whole=("thread", "waits for", "waiting since")
    )
    out.print(table)


@review.command("history")
@click.argument("thread")
@click.pass_context
def review_history(ctx: click.Context, thread: str) -> None:
    """Show a thread's story, waiting or not: every round's findings, what the writer was
    asked to do, what changed in the draft, the score, and every decision."""
    with open_batch(ctx) as runner:
        found = story(runner, named_thread(runner, thread))
    if found is None:
        raise UserError(f"no thread {thread!r} (briefloop runs lists them)")
    print_story(found)


@review.command("calls")
@click.argument("thread")
@click.option("--json", "as_json", is_flag=True, help="Print the calls as JSON.")
@click.option("--full", is_flag=True, help="Print each message and answer whole.")
@click.pass_context
def review_calls(ctx: click.Context, thread: str, as_json: bool, full: bool) -> None:
    """Show every model call of THREAD in order: its role, the messages sent, the raw
    answer, latency, tokens, and each retry with why."""
    with open_batch(ctx) as runner:
        calls = runner.runlog.calls(named_thread(runner, thread))
    if as_json:
        click.echo(json_for_terminal(json.dumps(calls, indent=2, ensure_ascii=False)))
        return
    if not calls:
        out.print(
            "no model call recorded for this thread (calls are kept from this "
            "version on, and pruned with its checkpoints)"
        )
        return
    print_calls(calls, full, CALL_TEXT_CHARS)


@review.command("retry")
@click.argument("thread")
@click.pass_context
@user_errors
def review_retry(ctx: click.Context, thread: str) -> None:
    """Run a new attempt of a failed or finished THREAD's brief, as the thread holds it,
    under today's configuration. The new thread is linked to the old one (run log
    column retry_of, both thread pages)."""
    with open_batch(ctx) as runner:
        thread = named_thread(runner, thread)
        result = attempts.retry(runner, thread)
        refresh_review_sheet(runner)
    out.print(
        f"retry of {escape(thread)}: new thread {escape(result.thread_id)}",
        highlight=False,
        soft_wrap=True,
    )
    assert result is not None  # an answer, not a check_only one
    print_result(result)
    sys.exit(1 if result.outcome == "error" else 0)


@review.command("reopen")
@click.argument("thread")
@click.option("--reason", required=True, help="What is wrong with the approved text.")
@click.option("--by", help="Who reopens it (default: $BRIEFLOOP_REVIEWER or your user name).")
@click.pass_context
@user_errors
def review_reopen(ctx: click.Context, thread: str, reason: str, by: str | None) -> None:
    """Take back an approved THREAD: it waits for a person again, its output moves to
    needs-work/, the reason is recorded. An automatic approval taken back is saved as a
    judged case in paths.judged."""
    with open_batch(ctx) as runner:
        done = attempts.reopen(runner, named_thread(runner, thread), reason, by)
        refresh_review_sheet(runner)
    print_result(done.result)
    if done.moved_to:
        out.print(f"output moved aside to {done.moved_to}", highlight=False, soft_wrap=True)
    if done.case:
        out.print(f"saved as a judged case: {done.case}", highlight=False, soft_wrap=True)


@review.command("fix")
@click.argument("thread")
@click.argument("item")
@click.option(
    "--drop",
    is_flag=True,
    help="The item is not for the readers: nothing is asked of the text for it.",
)
@click.option(
    "--kind",
    type=click.Choice(list(KIND_NAMES)),
    help="The item is of this kind: " + "; ".join(f"{k}: {v}" for k, v in KIND_NAMES.items()) + ".",
)
@click.option(
    "--value", metavar="WORDS", help="The item's words as they should read (the figure, the name)."
)
@click.option(
    "--approve",
    is_flag=True,
    help="Approve the text in the same step when nothing else holds it back.",
)
@click.option("--by", help="Who fixes it (default: $BRIEFLOOP_REVIEWER or your user name).")
@click.pass_context
@user_errors
def review_fix(
    ctx: click.Context,
    thread: str,
    item: str,
    drop: bool,
    kind: str | None,
    value: str | None,
    approve: bool,
    by: str | None,
) -> None:
    """Fix ITEM (R1, R2, ...) of a waiting THREAD's checklist, the brief as the checks
    read it (review show lists it first): one of --drop, --kind, --value. The text is
    judged again at once against the fixed list; the fix is kept for every later run of
    the same brief, and counted (briefloop runs --fixes)."""
    chosen = [name for name, on in (("drop", drop), ("kind", kind), ("value", value)) if on]
    if len(chosen) != 1:
        raise UserError("give one of --drop, --kind KIND, --value WORDS")
    with open_batch(ctx) as runner:
        thread = named_thread(runner, thread)
        done = threads.fix_item(
            runner, thread, item, chosen[0], kind or "", value or "", by, approve=approve
        )
        refresh_review_sheet(runner)
    fix = done.fix
    out.print(
        f"{escape(fix['item'])} ({escape(fix['was'])}: {escape(fix['read'])}) fixed: "
        f"{escape(fix_words(fix))}; kept for later runs of this brief",
        highlight=False,
        soft_wrap=True,
    )
    if done.approved is not None:
        print_result(done.approved)
        sys.exit(1 if done.approved.outcome == "error" else 0)
    if done.item is None:
        out.print("the text is judged again by a worker: review show tells the verdict")
        return
    print_standing(done.item, approve)


def print_standing(item: threads.Waiting, approve_asked: bool) -> None:
    """What still holds a text back after a fix, or that nothing does."""
    if item.nothing_stands():
        tail = (
            ""
            if approve_asked
            else f": approve it with briefloop review answer {item.thread_id} --approve"
        )
        out.print(f"[green]nothing else holds it back[/]{escape(tail)}", soft_wrap=True)
        return
    out.print("[yellow]it waits on[/]; what still stands:", soft_wrap=True)
    for line in [*item.must_fix, *item.holds]:
        out.print(f"  - {escape(line)}", soft_wrap=True)
    if item.needs:
        out.print(f"  - {len(item.needs)} placeholder(s) to fill", soft_wrap=True)
    if item.superseded_by:
        out.print(f"  - {escape(item.superseded_note())}", soft_wrap=True)


@review.command("show")
@click.argument("thread")
@click.pass_context
@user_errors
def review_show(ctx: click.Context, thread: str) -> None:
    """Show a waiting thread: the draft, what it needs from you, deviations, notes. For
    one that ended, why: who or what decided, the checks that ran, their findings, and
    what each sentence of the text carries and adds (from the run log, after gc too)."""
    with open_batch(ctx) as runner:
        thread = named_thread(runner, thread)
        item = threads.waiting(runner, thread)
        record = threads.ended(runner, thread) if item is None else None
    if item is None:
        print_why(record or {})
        return
    out.print(f"[bold]{escape(item.title or item.brief_id)}[/] ({escape(item.thread_id)})")
    if item.reopened:
        out.print(f"[yellow]{escape(item.reopened)}[/]", soft_wrap=True)
    if item.checklist:
        out.print(
            "[bold]The brief as the checks read it[/] (wrong? briefloop review fix "
            f"{escape(item.thread_id)} ITEM --drop | --kind KIND | --value WORDS)",
            soft_wrap=True,
        )
        for rid, kind, text, ok in item.checklist:
            mark = "[dim]·[/]" if ok is None else "[green]✓[/]" if ok else "[red]✗[/]"
            note = " [dim](not checked)[/]" if ok is None else ""
            out.print(f"  {mark} {rid} {kind}: {escape(text)}{note}", soft_wrap=True)
    history = " → ".join(f"{s:g}" for s in item.score_history)
    out.print(f"score {item.score:.1f}; history {history}", highlight=False)
    if item.stopped:
        out.print(
            f"[yellow]the machine could not approve it ({escape(item.stopped)})[/]; "
            f"this is its best draft. What the code checks still find (approve over "
            f'it with --override "reason", or --edit, --revise, --reject):',
            soft_wrap=True,
        )
        for line in item.must_fix:
            out.print(f"  - {escape(line)}", soft_wrap=True)
        if item.revision_note:
            out.print(escape(item.revision_note), soft_wrap=True)
    if item.holds:
        out.print(
            "[yellow]the checks cannot vouch for it[/]: read it before it goes out",
            soft_wrap=True,
        )
        for line in item.other_holds():
            out.print(f"  - {escape(line)}", soft_wrap=True)
        if item.additions:
            n = len(item.additions)
            out.print(
                f"{n} sentence{'s' if n != 1 else ''} add{'' if n != 1 else 's'} what the brief "
                "does not say (the added words in «»): cut them with --edit, or "
                "approve and say they are fine:",
                soft_wrap=True,
            )
            for a in item.additions:
                out.print(f"  - sentence {a['n']}: {marked_words(a)}", soft_wrap=True)
    if item.unchecked_orders:
        out.print("the brief's orders no check can hold the text to (read it for these):")
        for line in item.unchecked_orders:
            out.print(f"  - {escape(line)}", soft_wrap=True)
    if item.superseded_by:
        out.print(
            f"[yellow]{escape(item.superseded_note())}[/]: approving it is refused; "
            f"close it with --reject",
            soft_wrap=True,
        )
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
            out.print(
                f"  {n}. {escape(need['placeholder'])}{value}: {escape(need['question'])}",
                soft_wrap=True,
            )
    for title, lines in (
        ("Deliberate deviations", [f"{d['point']}: {d['reason']}" for d in item.deviations]),
        ("Critic's suggestions (would improve)", item.would_improve),
    ):
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


# what a file a person hands in may hold: answers are short, an edited text is a text
MAX_ANSWERS_FILE_BYTES = 1 << 20
MAX_EDITED_FILE_BYTES = 4 * threads.MAX_EDITED_CHARS


def read_person_file(path: str, what: str, max_bytes: int) -> str:
    """A file a person names: a regular file (a FIFO would hang the command), within
    `max_bytes`, UTF-8; else one line saying why."""
    try:
        return read_text_file(Path(path), max_bytes)
    except ValueError as e:
        raise UserError(f"{path}: cannot read {what}: {e}") from None


def read_answers_file(path: str) -> dict[str, str]:
    text = read_person_file(path, "answers", MAX_ANSWERS_FILE_BYTES)
    try:
        data = load_yaml(text)  # JSON is YAML too
    except yaml.YAMLError as e:
        raise UserError(f"{path}: cannot read answers: {one_line(e)}") from None
    if not isinstance(data, dict):
        raise UserError(f"{path}: expected a mapping of placeholder to value")
    answers: dict[str, str] = {}
    for key, value in data.items():
        if isinstance(value, bool):  # YAML reads yes/no/on/off as booleans
            raise UserError(
                f"{path}: the value of {str(key)!r} reads as a yes/no; put it "
                f"in quotes if it is the text to fill in"
            )
        if isinstance(value, date):  # YAML reads 2026-12-01 as a date
            value = value.isoformat()
        if not (value is None or isinstance(value, str | int | float)):
            # a list or a mapping would go into the text as its Python repr
            raise UserError(
                f"{path}: the value of {str(key)!r} must be text or a number, "
                f"not a {type(value).__name__}"
            )
        answers[str(key)] = "" if value is None else str(value)
    return answers


def ask_interactively(item: threads.Waiting) -> tuple[dict[str, str], Action, str | None]:
    answers: dict[str, str] = {}
    for need in item.needs:
        default = item.answers.get(need["placeholder"], "")
        value = click.prompt(
            f"{need['placeholder']} ({need['question']})",
            default=default or "",
            show_default=bool(default),
        )
        answers[need["placeholder"]] = value
    decision: Action = click.prompt("Decision", type=click.Choice(["approve", "reject", "revise"]))
    text = None
    if decision != "approve":
        text = click.prompt("Reason" if decision == "reject" else "Notes for the writer")
    return answers, decision, text


@review.command("answer")
@click.argument("thread")
@click.option(
    "--set",
    "sets",
    multiple=True,
    metavar="KEY=VALUE",
    help="A placeholder's value; KEY is the placeholder, the text after NEEDED:, "
    "or its number in `review show`. Repeatable.",
)
@click.option(
    "--answers",
    "answers_file",
    type=click.Path(dir_okay=False),
    help="A YAML or JSON file mapping placeholders to values.",
)
@click.option("--approve", is_flag=True, help="Approve: fill the placeholders, write the text.")
@click.option("--reject", metavar="REASON", help="Reject the text, with a reason.")
@click.option("--revise", metavar="NOTES", help="Send it back to the writer with these notes.")
@click.option(
    "--rounds",
    type=int,
    metavar="N",
    help="With --revise: how many more rounds the writer gets (1-10; default loop.max_rounds).",
)
@click.option("--by", help="Who decides (default: $BRIEFLOOP_REVIEWER or your user name).")
@click.option(
    "--edit",
    "edit_file",
    is_flag=False,
    flag_value="-",
    default=None,
    metavar="FILE",
    help="Approve your own version of the text, from FILE (on a terminal, --edit "
    "alone opens $EDITOR on the draft). The code checks run on it.",
)
@click.option(
    "--override",
    metavar="REASON",
    help="Approve over what the code checks still find, giving the reason.",
)
@click.pass_context
@user_errors
def review_answer(
    ctx: click.Context,
    thread: str,
    sets: tuple[str, ...],
    answers_file: str | None,
    approve: bool,
    reject: str | None,
    revise: str | None,
    by: str | None,
    edit_file: str | None,
    override: str | None,
    rounds: int | None,
) -> None:
    """Answer a waiting THREAD: fill its placeholders and approve, reject or revise.

    Without a decision flag, on a terminal, it asks for each placeholder and then for
    the decision. With --edit the decision is approve.
    """
    if edit_file is not None:
        if reject is not None or revise is not None:
            raise UserError(
                "--edit approves your version: it does not go with --reject or --revise"
            )
        approve = True
    options: tuple[tuple[Action, bool], ...] = (
        ("approve", approve),
        ("reject", reject is not None),
        ("revise", revise is not None),
    )
    chosen = [name for name, on in options if on]
    if len(chosen) > 1:
        raise UserError("choose one of --approve, --reject, --revise")
    answers = read_answers_file(answers_file) if answers_file else {}
    answers.update(parse_sets(sets))
    with open_batch(ctx) as runner:
        thread = named_thread(runner, thread)
        if chosen:
            decision, text = chosen[0], reject if reject is not None else revise
        elif interactive():
            item = threads.require_waiting(runner, thread)
            asked, decision, text = ask_interactively(item)
            answers = {**asked, **answers}
        else:
            raise UserError("give a decision: --approve, --reject REASON or --revise NOTES")
        edited = read_edit(runner, thread, edit_file) if edit_file is not None else None
        result = threads.answer(
            runner,
            thread,
            decision,
            answers,
            text,
            by,
            edited=edited,
            override=override,
            rounds=rounds,
        )
        refresh_review_sheet(runner)
    assert result is not None  # an answer, not a check_only one
    print_result(result)
    sys.exit(1 if result.outcome == "error" else 0)


def read_edit(runner: Runner, thread: str, source: str) -> str:
    """The person's version of the text: from a file, or from $EDITOR on a terminal."""
    if source != "-":
        return read_person_file(source, "the edited text", MAX_EDITED_FILE_BYTES)
    if not interactive():
        raise UserError("--edit without a FILE opens $EDITOR, which needs a terminal")
    edited = click.edit(threads.require_waiting(runner, thread).draft, extension=".md")
    if edited is None:
        raise UserError("the editor was closed without saving: nothing was changed")
    return edited


@review.command("serve")
@click.option(
    "--host",
    default="127.0.0.1",
    show_default=True,
    help="Address to listen on; anything but loopback needs --token.",
)
@click.option(
    "--port",
    type=click.IntRange(1, 65535),
    default=8765,
    show_default=True,
    help="Port to listen on.",
)
@click.option(
    "--token",
    envvar=config.ENV_REVIEW_TOKEN,
    help="Required to open the page (once as ?token=...; then a cookie). "
    "Default: $BRIEFLOOP_REVIEW_TOKEN.",
)
@click.pass_context
@user_errors
def review_serve(ctx: click.Context, host: str, port: int, token: str | None) -> None:
    """Serve the review page: the waiting threads, each with its draft, placeholders,
    findings and history, to approve, edit, revise or reject in a browser."""
    from batch.review.web import serve

    settings = load_settings(ctx)
    if not config.is_loopback(host) and not token:
        raise UserError(
            f"the review page would be reachable from other machines on {host}: "
            f"give --token (or $BRIEFLOOP_REVIEW_TOKEN), or bind to 127.0.0.1"
        )
    if not config.is_loopback(host) and len(token or "") < MIN_TOKEN_CHARS:
        raise UserError(
            f"a token that guards a page other machines reach needs at least "
            f'{MIN_TOKEN_CHARS} characters (`python -c "import secrets; '
            f'print(secrets.token_urlsafe())"` makes one)'
        )
    where = f"http://{host if ':' not in host else f'[{host}]'}:{port}/"

    def ready() -> None:
        shown = f"review page on {where}" + ("?token=..." if token else "")
        out.print(escape(shown + " (Ctrl-C stops it)"), highlight=False)

    serve(settings, host=host, port=port, token=token, resumer=hand_to_workers, on_ready=ready)


@review.command("pull")
@click.pass_context
@user_errors
def review_pull(ctx: click.Context) -> None:
    """Act on the answers and decisions people typed into the Review worksheet.

    Rows it consumed are marked done; rows of threads no longer waiting are skipped
    with the reason; then rows for every thread still waiting are added. `briefloop run`
    pulls first too.
    """
    settings = load_settings(ctx)
    pulled = pull_reviews(settings)
    print_pulled(pulled)
    if not pulled:
        out.print("no decisions to act on in the review sheet")
    sys.exit(1 if any(p.outcome in ("error", "not taken") for p in pulled) else 0)
