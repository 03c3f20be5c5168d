"""Review from a spreadsheet: a `Review` worksheet people fill in, and a pull that acts on it.

One row per open placeholder of each waiting thread (one row with no placeholder when a
thread waits with none). A person types the value into `answer` and, on any row of the
thread, a `decision`: `approve` (`approve: reason` to approve over what the code
checks still find), `reject: reason` or `revise: notes` (`revise 2: notes` gives the
writer 2 more rounds) (and may sign in `by`). `pull`
resumes those threads and marks the rows it consumed `done`; a row for a thread that is
no longer waiting is marked `skipped` with the reason; an answer that cannot be taken
(approve with a value missing) stays `open` with the reason in `note`.
Rows are keyed by thread, round and placeholder, so a thread that pauses again after a
revision gets fresh rows.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, time, timedelta
from typing import Any

from batch.decision import Action
from batch.errors import BriefloopError
from batch.inputs.sources import cell_text
from batch.judging.support import marked
from batch.outcomes import AWAITING
from batch.review import threads as review
from batch.review.render import reviewer_words
from batch.run.runner import Runner
from batch.sheets.sync import review_table
from batch.sheets.tables import Table, text_key, upsert_rows

COLUMNS = [
    "thread_id",
    "brief_id",
    "round",
    "placeholder",
    "question",
    "answer",
    "decision",
    "by",
    "status",
    "note",
    # what a person reads to decide from the sheet alone (added after the columns above:
    # a sheet made before gains them at its end)
    "title",
    "draft",
    "findings",
]
CELL_CHARS = 45_000  # below Google's 50,000 characters a cell
KEY = [0, 2, 3]  # thread_id, round, placeholder
C = {name: i for i, name in enumerate(COLUMNS)}


def answer_text(value: Any) -> str | None:
    """An answer cell as the person saw it typed: text as it is, a whole number without
    the ".0" a workbook stores it with, TRUE/FALSE as the sheet shows them; None for a
    date or a time, which a workbook shows as its format says (6/6/2026, 6 June) but
    stores as a value whose text is neither."""
    if isinstance(value, datetime | date | time | timedelta):
        return None
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    return cell_text(value)


def _cell(row: list[Any], name: str) -> str:
    i = C[name]
    return "" if i >= len(row) or row[i] is None else str(row[i]).strip()


def refresh(runner: Runner) -> str | None:
    """Bring the Review worksheet up to date after an answer given elsewhere (the CLI,
    the page): the decided thread's rows closed, a thread that waits again listed, so
    nobody fills in a row for work already done. None, or why the sheet could not be
    written (the answer itself stands)."""
    table = review_table(runner.settings, runner.google)
    if table is None:
        return None
    try:
        publish(runner, table)
    except BriefloopError as e:
        return f"the review sheet {table.name} was not updated: {e}"
    return None


def publish(runner: Runner, table: Table) -> int:
    """Add rows for every waiting thread not yet in the sheet, and close the open rows of
    threads that no longer wait (decided from the CLI, or paused again in a later round),
    so nobody fills in answers for finished work. Returns rows added."""
    existing = table.read()
    rows: list[list[Any]] = []
    waiting_rounds: set[tuple[str, str]] = set()
    for item in review.list_waiting(runner):
        state_round = runner.snapshot(item.thread_id).values["round"]
        waiting_rounds.add((item.thread_id, str(state_round)))
        needs = item.needs or [{"placeholder": "", "question": ask_about(item)}]
        note = item.superseded_note()
        if note:
            note += ": only reject is taken"
        elif item.stopped and item.needs:
            note = ask_about(item)
        elif item.additions:
            note = additions_note(item)
        for n, need in enumerate(needs):
            rows.append(
                [
                    item.thread_id,
                    item.brief_id,
                    state_round,
                    need["placeholder"],
                    need["question"],
                    item.answers.get(need["placeholder"], ""),
                    "",
                    "",
                    "open",
                    note,
                    item.title,
                    # the text and what the checks find, once a thread: on its first row
                    item.draft[:CELL_CHARS] if n == 0 else "(the thread's first row)",
                    findings_cell(item) if n == 0 else "",
                ]
            )
    # never over a person's typing: a row still open is left as it is. A closed one of a
    # thread that waits again in the same round (reopened) is its row again, opened.
    present = {text_key(r, KEY) for r in existing[1:] if _cell(r, "status") in ("", "open")}
    added = [r for r in rows if text_key(r, KEY) not in present]
    closed = []
    for row in existing[1:]:
        thread_id = _cell(row, "thread_id")
        if not thread_id or _cell(row, "status") not in ("", "open"):
            continue
        if (thread_id, _cell(row, "round")) in waiting_rounds:
            continue
        row = list(row) + [""] * (len(COLUMNS) - len(row))
        row[C["status"]], row[C["note"]] = "done", decided_note(runner, thread_id)
        closed.append(row)
    if added or closed:
        upsert_rows(
            table, COLUMNS, closed + added, key=lambda r: text_key(r, KEY), existing=existing
        )
    return len(added)


def findings_cell(item: review.Waiting) -> str:
    """What the checks still find in the text, and what they cannot vouch for, in a
    reviewer's words, one per line."""
    lines = [f"to fix: {m}" for m in item.must_fix]
    lines += [f"for your look: {h}" for h in item.other_holds()]
    lines += [f"adds: {marked(a['sentence'], a['added'])}" for a in item.additions]
    return reviewer_words("\n".join(lines))[:CELL_CHARS] or "nothing"


def ask_about(item: review.Waiting) -> str:
    """The question on the row of a thread that waits with no placeholder open."""
    if item.stopped:
        found = _plural(len(item.must_fix), "finding")
        return (
            f"needs work ({item.stopped.replace('_', ' ')}; the checks still find "
            f"{found}): approve: reason, reject: reason or revise N: notes"
        )
    return "approve, reject or revise"


def additions_note(item: review.Waiting) -> str:
    """The sentences that add what the brief does not say, the added words in «»."""
    n = len(item.additions)
    return (
        f"{_plural(n, 'sentence')} {'adds' if n == 1 else 'add'} what the brief does not say: "
        + " | ".join(marked(a["sentence"], a["added"]) for a in item.additions)
    )


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def decided_note(runner: Runner, thread_id: str) -> str:
    """What became of a thread that no longer waits, for the rows that asked about it."""
    record = runner.runlog.by_thread(thread_id) or {}
    if record.get("status") == AWAITING:
        return "answered: the thread waits again in a later round (see its new rows)"
    outcome = record.get("stop_reason") or record.get("status") or "no longer waiting"
    who = f" by {record['decided_by']}" if record.get("decided_by") else ""
    when = f" at {str(record['decided_at'])[:19]}" if record.get("decided_at") else ""
    return f"decided elsewhere: {outcome}{who}{when}"


@dataclass(frozen=True)
class Pulled:
    thread_id: str
    outcome: str  # a stop reason, awaiting_human, "skipped", "not taken"
    message: str = ""


def parse_decision(text: str) -> tuple[Action, str | None, str | None]:
    """(decision, its reason or notes, the more rounds a revise asks for)."""
    head, _, rest = text.partition(":")
    word, _, rounds = head.strip().lower().partition(" ")
    if word not in ("approve", "reject", "revise") or (rounds.strip() and word != "revise"):
        raise BriefloopError(
            f"decision {text!r}: write approve, reject: reason, revise: notes or revise N: notes"
        )
    return word, rest.strip() or None, rounds.strip() or None  # type: ignore[return-value]


def _taken_already(state: dict[str, Any], rows: list[list[Any]], said: str) -> bool:
    """The thread's last decision is the one these rows give (the same kind, by the
    same person): taken by an earlier pull that stopped before it marked them."""
    decision = state.get("decision") or {}
    try:
        kind = parse_decision(said)[0]
    except BriefloopError:
        return False
    by = next((_cell(r, "by") for r in rows if _cell(r, "by")), None)
    return decision.get("type") == kind and (by is None or decision.get("by") == by)


def pull(runner: Runner, table: Table) -> list[Pulled]:
    """Act on every thread whose open rows carry a decision (see the module docstring)."""
    existing = table.read()
    by_thread: dict[str, list[list[Any]]] = {}
    number_of: dict[int, int] = {}  # id of a row -> its row number in the sheet
    for number, row in enumerate(existing[1:], start=2):
        if _cell(row, "thread_id") and _cell(row, "status") in ("", "open"):
            copy = list(row)
            number_of[id(copy)] = number
            by_thread.setdefault(_cell(row, "thread_id"), []).append(copy)
    results: list[Pulled] = []

    def mark(rows: list[list[Any]], status: str, note: str) -> None:
        # Written per thread, right after acting on it: a crash or a failed write later
        # must not leave acted-on rows open, to be replayed on the thread's next pause.
        # By row number, not by key: two rows of one placeholder (a row copied to give
        # another answer) each keep what their person typed.
        for row in rows:
            row += [""] * (len(COLUMNS) - len(row))
            row[C["status"]], row[C["note"]] = status, note
        with table.lock():
            table.write(COLUMNS, {number_of[id(r)]: r for r in rows}, [], False)

    def not_taken(thread_id: str, rows: list[list[Any]], why: str) -> None:
        # the rows stay open, saying why, for the person to put right
        mark(rows, "open", f"not taken: {why}")
        results.append(Pulled(thread_id, "not taken", why))

    for thread_id, all_rows in by_thread.items():
        if not any(_cell(r, "decision") for r in all_rows):
            continue
        state = runner.snapshot(thread_id).values
        current = str(state.get("round", "")) if state else ""
        stale = [r for r in all_rows if _cell(r, "round") != current]
        if stale:
            mark(stale, "skipped", f"answers an earlier pause (round {current} is waiting)")
        rows = [r for r in all_rows if _cell(r, "round") == current]
        decisions = [_cell(r, "decision") for r in rows if _cell(r, "decision")]
        if not decisions:
            continue
        said = sorted({" ".join(d.split()).lower() for d in decisions})
        if len(said) > 1:
            # two people, or one twice, said different things: neither is taken
            why = " and ".join(repr(d) for d in said)
            not_taken(thread_id, rows, f"its rows say {why}; leave one decision")
            continue
        if review.waiting(runner, thread_id) is None:
            record = runner.runlog.by_thread(thread_id) or {}
            ended = record.get("stop_reason") or "unknown"
            if _taken_already(state, rows, decisions[0]):
                # this very answer was taken, and the write of its rows cut short
                mark(rows, "done", ended)
                results.append(Pulled(thread_id, ended))
                continue
            note = f"not waiting any more ({ended})"
            mark(rows, "skipped", note)
            results.append(Pulled(thread_id, "skipped", note))
            continue
        given: dict[str, list[str]] = {}
        unreadable = ""
        for r in rows:
            placeholder = _cell(r, "placeholder")
            raw = r[C["answer"]] if C["answer"] < len(r) else None
            if not placeholder or raw is None or str(raw).strip() == "":
                continue
            answer = answer_text(raw)
            if answer is None:
                unreadable = unreadable or placeholder
                continue
            seen = given.setdefault(placeholder, [])
            if " ".join(answer.split()) not in (" ".join(a.split()) for a in seen):
                seen.append(answer)
        if unreadable:
            not_taken(
                thread_id,
                rows,
                f"the answer to {unreadable} is a date or time cell, which the sheet shows as "
                f"its format says, not as it is stored; type it as text (start it with ')",
            )
            continue
        twice = {p: a for p, a in given.items() if len(a) > 1}
        if twice:
            # two rows answer one placeholder differently: neither is taken
            p, said_ = next(iter(twice.items()))
            not_taken(
                thread_id,
                rows,
                f"its rows answer {p} with "
                + " and ".join(repr(a) for a in said_)
                + "; leave one answer",
            )
            continue
        answers = {p: a[0] for p, a in given.items()}
        formulas = [p for p, a in answers.items() if a.lstrip().startswith("=")]
        if formulas:
            # what a workbook gives back for a formula is its text, not the value the
            # reviewer saw: never into the output
            not_taken(thread_id, rows, f"the answer to {formulas[0]} is a formula; type the value")
            continue
        by = next((_cell(r, "by") for r in rows if _cell(r, "by")), None)
        try:
            decision, text, rounds = parse_decision(decisions[0])
            # "approve: reason" approves over what the code checks still find
            override = text if decision == "approve" else None
            result = review.answer(
                runner,
                thread_id,
                decision,
                answers,
                None if decision == "approve" else text,
                by,
                override=override,
                rounds=rounds,
            )
        except BriefloopError as e:
            not_taken(thread_id, rows, str(e))
            continue
        again = review.waiting(runner, thread_id)
        same_round = (
            again is not None and str(runner.snapshot(thread_id).values.get("round", "")) == current
        )
        if again is not None and same_round and again.problem:
            # the graph did not take it (the thread asks again)
            not_taken(thread_id, rows, again.problem)
            continue
        assert result is not None  # an answer, not a check_only one
        mark(rows, "done", result.outcome)
        results.append(Pulled(thread_id, result.outcome, result.error or ""))
    return results
