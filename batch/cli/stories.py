"""The night and a text's story in the terminal: a batch's runs (`runs --batch`) and a
thread's rounds with their findings and diffs (`review history`), printed with rich."""

from __future__ import annotations

from typing import Any

from rich.markup import escape
from rich.text import Text

from batch.cli.base import out
from batch.outcomes import OUTCOME_ICONS, label
from batch.review.history import Story
from batch.review.pages import batch_row, counts_in_order, run_row
from batch.review.render import reviewer_words

_BARS = "▁▂▃▄▅▆▇█"


def sparkline(scores: list[float]) -> str:
    """Scores 0-100 as one bar each: the score history at a glance."""
    return "".join(_BARS[min(len(_BARS) - 1, int(s / 100 * len(_BARS)))] for s in scores)


def print_batch(row: dict[str, Any], records: list[dict[str, Any]]) -> None:
    """A batch and every run it counted, two lines a run, wrapped at words to the
    terminal's width."""
    b = batch_row(row)
    counts = ", ".join(f"{name} {n}" for name, n in counts_in_order(row.get("counts", {})))
    job = f" (job {row['job']})" if row.get("job") else ""
    took = f", took {b['took']}" if b["took"] else ""
    out.print(
        Text(
            f"batch {row['id']}{job}: {row['source']}, {b['started']}{took}, "
            f"{b['status_words']}{': ' + counts if counts else ''}"
        ),
        highlight=False,
    )
    if not records:
        out.print("no runs in this batch")
        return
    done_before = []
    for r in records:
        shown = run_row(r)
        if shown["counted"] == "skipped":
            # already done in an earlier batch: one line for them all, below
            done_before.append(shown["brief_id"])
            continue
        history = r.get("score_history") or []
        scores = (
            f" · {sparkline(history)} {' → '.join(f'{s:g}' for s in history)}" if history else ""
        )
        title = f" ({shown['title']})" if shown["title"] else ""
        now = f" (now {shown['now']})" if shown["now"] else ""
        line = Text(f"{OUTCOME_ICONS.get(shown['counted'], '·')} {shown['brief_id']}{title}: ")
        line.append(shown["outcome"], style=TONE_STYLES[shown["tone"]])
        line.append(f"{now} · {shown['rounds']} round(s){scores}")
        if shown["why"]:
            line.append(f" · {shown['why']}")
        out.print(line, highlight=False)
        facts = [f"thread {shown['thread_id']}" if shown["thread_id"] else "no thread"]
        if r.get("run_id"):
            facts.append(
                f"{shown['calls']} call(s), {shown['tokens']} tokens, "
                f"{shown['model_seconds']:.1f} model s, took {shown['took']}"
            )
        if shown["needs"]:
            facts.append(f"needs {', '.join(shown['needs'])}")
        if shown["retry_of"]:
            facts.append(f"retry of {shown['retry_of']}")
        out.print(Text("    " + " · ".join(facts)), highlight=False)
    if done_before:
        out.print(
            Text(
                f"· already done before this batch ({len(done_before)}): {', '.join(done_before)}"
            ),
            highlight=False,
        )


# rich styles of the outcome tones (batch.outcomes.OUTCOME_TONES)
TONE_STYLES = {
    "good": "green",
    "wait": "yellow",
    "unfinished": "dark_orange",
    "bad": "red",
    "muted": "dim",
}


def changes_text(story_round: Any) -> Text:
    """A round's draft with what changed against the round before, as wdiff writes it:
    `{+inserted+}` in green, `[-deleted-]` in red and struck through (the marks stay
    readable where there is no colour: a log, a pipe)."""
    text = Text()
    for change in story_round.changes:
        if change.op == "+":
            text.append("{+" + change.text + "+}", style="green")
        elif change.op == "-":
            text.append("[-" + change.text + "-]", style="red strike")
        else:
            text.append(change.text)
    return text


def print_story(story: Story) -> None:
    title = f" — {story.title}" if story.title else ""
    ended = label(story.stop_reason or story.status)
    out.print(
        escape(f"thread {story.thread_id}: brief {story.brief_id}{title} ({ended})"),
        highlight=False,
        soft_wrap=True,
    )
    if story.record.get("error"):
        out.print(escape(f"failed: {story.record['error']}"), highlight=False, soft_wrap=True)
    if story.pruned:
        out.print(
            "earlier rounds were pruned by `briefloop gc`: only the last is kept", highlight=False
        )
    for r in story.rounds:
        moved = "" if r.score_change is None else f" ({r.score_change:+g})"
        score = "" if r.score is None else f", score {r.score:g}{moved}"
        out.rule(escape(f"round {r.number}{score}"))
        for step in r.writer:
            out.print(escape(f"  writer: {step}"), highlight=False, soft_wrap=True)
        if r.changes:
            out.print(escape(f"  changed: +{r.inserted} / -{r.deleted} words"), highlight=False)
            out.print(changes_text(r), soft_wrap=True)
        else:
            out.print(Text(r.draft), soft_wrap=True)
        for point in r.must_fix:
            out.print(escape(f"  to fix: {reviewer_words(point)}"), highlight=False, soft_wrap=True)
        for point in r.would_improve:
            said = escape(f"  suggestion: {reviewer_words(point)}")
            out.print(said, highlight=False, soft_wrap=True)
    for d in story.decisions:
        who = f" by {d.by}" if d.by else ""
        when = f" at {d.at}" if d.at else ""
        note = f": {reviewer_words(d.note)}" if d.note else ""
        out.print(escape(f"decision: {d.words}{who}{when}{note}"), highlight=False, soft_wrap=True)


def call_heading(number: int, call: dict[str, Any]) -> str:
    """One line on a model call: which, when, how long, how big, and why it was retried."""
    node = f" ({call['node']})" if call.get("node") and call["node"] != call["role"] else ""
    where = f" round {call['round']}" if call.get("round") is not None else ""
    retry = f" · try {call['attempt']}" if call.get("attempt", 1) > 1 else ""
    problem = f" · not taken: {call['problem']}" if call.get("problem") else ""
    host = f" on {call['host']}" if call.get("host") else ""
    return (
        f"#{number}{where} · {call['role']}{node} · {call['model']}{host} · "
        f"{call['seconds']:.1f}s · {call['input_tokens']} → {call['output_tokens']} "
        f"tokens{retry}{problem}"
    )


def print_calls(calls: list[dict[str, Any]], full: bool, limit: int) -> None:
    """Each call in order: its heading, the messages sent and the raw answer (each cut
    at `limit` characters unless `full`)."""

    def cut(text: str) -> str:
        return (
            text
            if full or len(text) <= limit
            else text[:limit] + f" … ({len(text) - limit:,} more characters; --full shows all)"
        )

    for number, call in enumerate(calls, start=1):
        out.print(f"[bold]{escape(call_heading(number, call))}[/]", highlight=False)
        for message in call["messages"]:
            out.print(
                f"  [cyan]{escape(str(message.get('role', '')))}:[/] "
                f"{escape(cut(str(message.get('content', ''))))}",
                soft_wrap=True,
                highlight=False,
            )
        out.print(
            f"  [green]answer:[/] {escape(cut(call['answer']) or '(none)')}",
            soft_wrap=True,
            highlight=False,
        )
        out.print()
