"""What the runs page and a thread's story page show, gathered for their templates: a
page of batches with their runs, or one batch's runs a page at a time (the paging and
the filters are the run log's query, never the whole log in a page)."""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Callable, Mapping
from datetime import UTC, datetime, timedelta
from typing import Any
from urllib.parse import urlencode

from batch import placeholders
from batch.outcomes import (
    APPROVED_REASONS,
    AWAITING,
    OUTCOME_ORDER,
    STOP_REASONS,
    UNFINISHED_WORDS,
    VIEW_OUTCOMES,
    label,
    tone,
    unfinished_words,
)
from batch.review.history import Story
from batch.review.render import changes_html, mark_added, render_draft, score_chart
from batch.review.threads import Waiting, marked_checklist
from batch.run.notify import one_line_text
from batch.sheets.run_rows import render_cell, row_for
from batch.sheets.tables import csv_safe
from batch.store.runlog import FIELDS, RunLog

BATCHES_PER_PAGE = 10
RUNS_PER_BATCH = 20  # under each batch of the runs page; its own page has them all
RUNS_PER_PAGE = 50
OUTCOMES = VIEW_OUTCOMES
BATCH_STATUS_WORDS = {
    "ok": "finished",
    "finished": "finished",
    "running": "running",
    "stopped": "stopped (resumes next run)",
    "queued": "queued",
    "enqueueing": "enqueueing",
    "failed": "failed",
}


def counts_in_order(counts: dict[str, int]) -> list[tuple[str, int]]:
    """A batch's counts by outcome, labelled, in the order outcomes are shown."""
    order: dict[str, int] = {o: i for i, o in enumerate(OUTCOME_ORDER)}
    return [
        (label(k), v)
        for k, v in sorted(counts.items(), key=lambda kv: (order.get(kv[0], 99), kv[0]))
    ]


WHY_CHARS = 160  # a list's "why" column


def why(record: Mapping[str, Any]) -> str:
    """Why a run stands where it stands, in one short line for a list: the error of a
    failed run, the first thing the checks still find in an unfinished one, what a
    waiting one waits for; "" for a text that went out or a run with nothing to say."""
    counted = record.get("counted") or record.get("stop_reason") or record.get("status") or ""
    if record.get("status") == "failed" or counted == "error":
        return one_line_text(record.get("error") or "failed, with no error recorded", WHY_CHARS)
    must_fix = record.get("open_must_fix") or []
    needs = placeholders.named(record.get("needs_from_human") or [])
    stopped = record.get("unfinished") or (counted if counted in UNFINISHED_WORDS else "")
    to_fill = f"to fill: {', '.join(needs)}" if needs else ""
    if stopped == "held":
        said = "; ".join(filter(None, ["your look: the checks cannot vouch for it", to_fill]))
    elif stopped:
        head = f"needs work ({unfinished_words(stopped)})"
        said = f"{head}: {must_fix[0]}" if must_fix else "; ".join(filter(None, [head, to_fill]))
    elif counted in (AWAITING, "waiting"):
        said = to_fill or "waits for your look"
    elif counted == "rejected_by_human":
        said = record.get("decision_note") or ""
    else:
        said = ""
    return one_line_text(said, WHY_CHARS)


def parse_time(iso: object) -> datetime | None:
    """An ISO time of the run log as an aware datetime (a time without a zone is UTC),
    or None when it is none."""
    if not iso:
        return None
    try:
        when = datetime.fromisoformat(str(iso).replace("Z", "+00:00"))
    except ValueError:
        return None
    return when if when.tzinfo is not None else when.replace(tzinfo=UTC)


def local_time(iso: str | None) -> str:
    """An ISO time from the run log (UTC) in this machine's local time, to the minute."""
    if not iso:
        return ""
    when = parse_time(iso)
    if when is None:
        return str(iso)[:16]
    return when.astimezone().strftime("%Y-%m-%d %H:%M %Z").strip()


def ago(iso: str | None, now: datetime | None = None) -> str:
    """How long ago an ISO time was, as a person says it: "just now", "12 min ago",
    "3 h ago", "2 days ago"."""
    when = parse_time(iso)
    if when is None:
        return ""
    seconds = ((now or datetime.now(UTC)) - when).total_seconds()
    if seconds < 60:
        return "just now"
    if seconds < 3600:
        return f"{int(seconds // 60)} min ago"
    if seconds < 2 * 86400:
        return f"{int(seconds // 3600)} h ago"
    return f"{int(seconds // 86400)} days ago"


# What the Waiting page filters by: what a text waits for
WAITS: dict[str, tuple[str, Callable[[Waiting], bool]]] = {
    "fill": ("placeholders to fill", lambda i: bool(i.needs)),
    "work": ("needs work", lambda i: bool(i.stopped)),
    "look": ("your look", lambda i: bool(i.holds) and not i.stopped),
    "plain": ("can be approved as it is", lambda i: i.plain_approval()),
}
SORTS = {
    "oldest": ("oldest first", lambda i: i.waiting_since or ""),
    "newest": ("newest first", lambda i: i.waiting_since or ""),
    "score": ("lowest score first", lambda i: i.score if i.score is not None else -1),
    "brief": ("brief id", lambda i: i.brief_id),
}


def waiting_view(items: list[Any], query: Any, now: datetime | None = None) -> dict[str, Any]:
    """The Waiting page: the threads that wait for a person, filtered by what they wait
    for and a text their brief id, title or source holds, sorted; each with its local
    and relative waiting time and its placeholders by name."""
    waits = query.get("waits") or ""
    text = (query.get("q") or "").strip()
    sort = query.get("sort") if query.get("sort") in SORTS else "oldest"
    shown = [i for i in items if waits not in WAITS or WAITS[waits][1](i)]
    if text:
        low = text.lower()
        shown = [
            i
            for i in shown
            if any(low in (v or "").lower() for v in (i.brief_id, i.title, i.source))
        ]
    shown.sort(key=SORTS[sort][1], reverse=sort == "newest")
    rows = [
        {
            "item": i,
            "since": local_time(i.waiting_since),
            "ago": ago(i.waiting_since, now),
            "placeholders": placeholders.named(i.needs),
            "source": i.source.rsplit("/", 1)[-1] if "://" not in i.source else i.source,
        }
        for i in shown
    ]
    return {
        "rows": rows,
        "total": len(items),
        "waits": waits if waits in WAITS else "",
        "q": text,
        "sort": sort,
        "waits_choices": {k: v[0] for k, v in WAITS.items()},
        "sort_choices": {k: v[0] for k, v in SORTS.items()},
        "plain": sum(1 for r in rows if r["item"].plain_approval()),
    }


def duration(seconds: float | None) -> str:
    """Seconds as a person reads a duration: 45 s, 3 min 12 s, 2 h 05 min."""
    if seconds is None:
        return ""
    whole = int(round(float(seconds)))
    if whole < 60:
        return f"{whole} s"
    if whole < 3600:
        return f"{whole // 60} min {whole % 60:02d} s"
    return f"{whole // 3600} h {whole % 3600 // 60:02d} min"


def span(started: str | None, ended: str | None) -> float | None:
    """Seconds between two ISO times, or None when either is missing."""
    try:
        a = datetime.fromisoformat(str(started))
        b = datetime.fromisoformat(str(ended))
    except (TypeError, ValueError):
        return None
    return max(0.0, (b - a).total_seconds())


def run_row(record: dict[str, Any]) -> dict[str, Any]:
    """A run as the runs page lists it. `counted` (a batch's own page): the outcome the
    batch counted it as; `now` is how the run stands today, when that differs."""
    history = record.get("score_history") or []
    now = record.get("stop_reason") or record.get("status") or ""
    counted = record.get("counted") or now
    return {
        "thread_id": record.get("thread_id") or "",
        "brief_id": record.get("brief_id", ""),
        "title": record.get("title") or "",
        "outcome": label(counted),
        "tone": tone(counted),
        "counted": counted,
        "now": "" if not now or now == counted or _same_now(counted, now) else label(now),
        "now_tone": tone(now),
        "status": record.get("status", ""),
        "rounds": record.get("rounds", 0),
        "history": history,
        "chart": score_chart(history, width=120, height=36),
        "calls": record.get("model_calls", 0),
        "tokens": f"{record.get('input_tokens', 0)}/{record.get('output_tokens', 0)}",
        "model_seconds": record.get("model_seconds", 0.0),
        "time": render_cell("time_split", record.get("time_split") or {}),
        "started": local_time(record.get("started_at")),
        "took": duration(record.get("seconds")) if record.get("run_id") else "",
        "needs": placeholders.named(record.get("needs_from_human") or []),
        "retry_of": record.get("retry_of") or "",
        "unfinished": record.get("unfinished") or "",
        "why": why(record),
    }


def _same_now(counted: str, now: str) -> bool:
    """A run counted as still waiting that still waits, or as already done that is
    done: its outcome today says nothing new."""
    return (counted == "waiting" and now == AWAITING) or (
        counted == "skipped" and now in STOP_REASONS
    )


def day_bounds(day: str | None) -> tuple[str, str] | None:
    """A local calendar day (YYYY-MM-DD) as the UTC ISO times it runs from and to, or
    None for no day or one that is not a date."""
    if not day:
        return None
    try:
        start = datetime.strptime(day.strip(), "%Y-%m-%d").astimezone()
    except ValueError:
        return None
    end = start + timedelta(days=1)
    return (
        start.astimezone(UTC).isoformat(timespec="seconds")[:19],
        end.astimezone(UTC).isoformat(timespec="seconds")[:19],
    )


def batch_row(row: dict[str, Any]) -> dict[str, Any]:
    """A batch's heading: local times, how long it took, its status in words."""
    status = BATCH_STATUS_WORDS.get(row.get("status", ""), row.get("status", ""))
    took = span(row.get("started_at"), row.get("ended_at"))
    state = row.get("status")
    failed = (row.get("counts") or {}).get("error", 0)
    if failed and state in ("ok", "finished"):
        # a batch that ran to its end with a brief failed is not "finished" in green
        status, state = f"finished, {failed} failed", "error"
    return {
        **row,
        "started": local_time(row.get("started_at")),
        "ended": local_time(row.get("ended_at")) if row.get("ended_at") else "",
        "took": duration(took) if took is not None else "",
        "status_words": status,
        "status_tone": tone(state),
    }


def _group(
    log: RunLog,
    row: dict[str, Any],
    outcome: str | None,
    brief: str | None,
    limit: int,
    offset: int,
) -> dict[str, Any]:
    records, total = log.runs_counted(row, outcome, brief, limit, offset)
    return {
        "batch": batch_row(row),
        "counts": counts_in_order(row.get("counts") or {}),
        "runs": [run_row(r) for r in records],
        "total": total,
    }


def runs_view(
    log: RunLog,
    batch_id: int | None,
    page: int,
    outcome: str | None,
    brief: str | None,
    day: str | None = None,
) -> dict[str, Any] | None:
    """The runs page (`batch_id` None: the latest batches, newest first, of `day` if
    given) or one batch's page; None when there is no such batch."""
    outcome = outcome if outcome in OUTCOMES else None
    bounds = day_bounds(day) if batch_id is None else None
    if batch_id is None:
        batches, total = log.latest_batches(
            BATCHES_PER_PAGE, (page - 1) * BATCHES_PER_PAGE, between=bounds
        )
        groups = [_group(log, b, outcome, brief, RUNS_PER_BATCH, 0) for b in batches]
        if outcome or brief:
            # a filter shows the batches it finds runs in, not every batch empty
            groups = [g for g in groups if g["total"]]
        pages = math.ceil(total / BATCHES_PER_PAGE)
    else:
        row = log.batch(batch_id)
        if row is None:
            return None
        groups = [_group(log, row, outcome, brief, RUNS_PER_PAGE, (page - 1) * RUNS_PER_PAGE)]
        pages = math.ceil(groups[0]["total"] / RUNS_PER_PAGE)
    day = (day or "").strip() if bounds else ""
    filters = {k: v for k, v in (("outcome", outcome), ("brief", brief), ("day", day)) if v}
    return {
        "groups": groups,
        "page": page,
        "pages": max(pages, 1),
        "batch_id": batch_id,
        "outcome": outcome or "",
        "brief": brief or "",
        "day": day,
        "outcomes": OUTCOMES,
        "label": label,
        "filters": urlencode(filters),
        "per_batch": RUNS_PER_BATCH if batch_id is None else None,
    }


def runs_csv(
    log: RunLog,
    batch_id: int | None,
    outcome: str | None,
    brief: str | None,
    day: str | None = None,
) -> str | None:
    """Every run of the view (every page of it) as CSV: the batch, the outcome it was
    counted as, then the run log's columns as the sheets show them. None: no batch.
    It opens with a BOM, which tells Excel it is UTF-8 ("→", "•" and names intact)."""
    outcome = outcome if outcome in OUTCOMES else None
    if batch_id is None:
        batches, _ = log.latest_batches(None, 0, between=day_bounds(day))
    else:
        row = log.batch(batch_id)
        if row is None:
            return None
        batches = [row]
    buffer = io.StringIO()
    buffer.write("\ufeff")
    writer = csv.writer(buffer)
    writer.writerow(["batch_id", "counted_as", *FIELDS])
    for b in batches:
        records, _ = log.runs_counted(b, outcome, brief, None, 0)
        for r in records:
            counted = r.get("counted") or r.get("stop_reason") or r.get("status") or ""
            writer.writerow([csv_safe(v) for v in (b["id"], counted, *row_for(r))])
    return buffer.getvalue()


def story_view(story: Story) -> dict[str, Any]:
    """A thread's rounds as the pages draw them: every draft rendered the same way,
    each after the first with what changed against the one before, folded."""
    rounds = []
    for number, r in enumerate(story.rounds):
        rounds.append(
            {
                "round": r,
                "first": number == 0,
                "draft_html": render_draft(r.draft, []),
                "changes_html": changes_html(r.changes) if number else "",
                # a round that rewrote nothing: no diff that is the whole text again
                "changed": any(c.op != "=" for c in r.changes),
                "support": [
                    {**s, "html": mark_added(s["text"], s.get("added") or [])} for s in r.support
                ],
            }
        )
    record = story.record
    uncovered = set(record.get("uncovered") or [])
    drafted = any(r.draft for r in story.rounds)
    checklist = marked_checklist(story.checklist, uncovered, drafted)
    status, reason = story.status, story.stop_reason
    return {
        "story": story,
        "rounds": rounds,
        "checklist": checklist,
        "can_retry": status == "failed" or (status == "finished" and bool(story.brief)),
        "can_reopen": status == "finished" and reason in APPROVED_REASONS,
        "error": "",
        "form": {"name": "", "reason": ""},
        "label": label,
        "story_chart": score_chart(
            record.get("score_history") or [r.score for r in story.rounds if r.score is not None]
        ),
        "ended": label(story.stop_reason or story.status),
        "output_name": (record.get("output_path") or "").rsplit("/", 1)[-1],
        "published_html": render_draft(story.published, []) if story.published else "",
        "time_split": render_cell("time_split", record.get("time_split") or {}),
    }
