"""What the runs page and a thread's story page show, gathered for their templates: a
page of batches with their runs, or one batch's runs a page at a time (the paging and
the filters are the run log's query, never the whole log in a page)."""

from __future__ import annotations

import math
from typing import Any
from urllib.parse import urlencode

from batch.outcomes import APPROVED_REASONS, AWAITING, OUTCOME_ORDER, STOP_REASONS, label
from batch.review.history import Story
from batch.review.render import changes_html, render_draft, score_chart
from batch.store.runlog import RunLog

BATCHES_PER_PAGE = 10
RUNS_PER_BATCH = 20  # under each batch of the runs page; its own page has them all
RUNS_PER_PAGE = 50
OUTCOMES = (*sorted(STOP_REASONS), AWAITING, "failed")


def counts_in_order(counts: dict[str, int]) -> list[tuple[str, int]]:
    """A batch's counts by outcome, labelled, in the order outcomes are shown."""
    order = {o: i for i, o in enumerate(OUTCOME_ORDER)}
    return [(label(k), v) for k, v in sorted(counts.items(),
                                             key=lambda kv: (order.get(kv[0], 99), kv[0]))]


def placeholders_of(needs: list[Any]) -> list[str]:
    """The placeholders of a run's needs_from_human (entries with their questions)."""
    return [n["placeholder"] if isinstance(n, dict) else str(n) for n in needs]


def run_row(record: dict[str, Any]) -> dict[str, Any]:
    history = record.get("score_history") or []
    return {
        "thread_id": record["thread_id"], "brief_id": record["brief_id"],
        "title": record.get("title", ""),
        "outcome": label(record.get("stop_reason") or record.get("status") or ""),
        "status": record.get("status", ""), "rounds": record.get("rounds", 0),
        "history": history, "chart": score_chart(history, width=120, height=36),
        "calls": record.get("model_calls", 0),
        "tokens": f"{record.get('input_tokens', 0)}/{record.get('output_tokens', 0)}",
        "model_seconds": record.get("model_seconds", 0.0),
        "needs": placeholders_of(record.get("needs_from_human") or []),
    }


def _group(log: RunLog, row: dict[str, Any], outcome: str | None, brief: str | None,
           limit: int, offset: int) -> dict[str, Any]:
    records, total = log.runs_of_batch(row["id"], outcome, brief, limit, offset, row=row)
    return {"batch": row, "counts": counts_in_order(row.get("counts") or {}),
            "runs": [run_row(r) for r in records], "total": total}


def runs_view(log: RunLog, batch_id: int | None, page: int, outcome: str | None,
              brief: str | None) -> dict[str, Any] | None:
    """The runs page (`batch_id` None: the latest batches, newest first) or one batch's
    page; None when there is no such batch."""
    outcome = outcome if outcome in OUTCOMES else None
    if batch_id is None:
        batches, total = log.latest_batches(BATCHES_PER_PAGE, (page - 1) * BATCHES_PER_PAGE)
        groups = [_group(log, b, outcome, brief, RUNS_PER_BATCH, 0) for b in batches]
        pages = math.ceil(total / BATCHES_PER_PAGE)
    else:
        row = log.batch(batch_id)
        if row is None:
            return None
        groups = [_group(log, row, outcome, brief, RUNS_PER_PAGE, (page - 1) * RUNS_PER_PAGE)]
        pages = math.ceil(groups[0]["total"] / RUNS_PER_PAGE)
    filters = {k: v for k, v in (("outcome", outcome), ("brief", brief)) if v}
    return {"groups": groups, "page": page, "pages": max(pages, 1), "batch_id": batch_id,
            "outcome": outcome or "", "brief": brief or "", "outcomes": OUTCOMES,
            "label": label, "filters": urlencode(filters),
            "per_batch": RUNS_PER_BATCH if batch_id is None else None}


def story_view(story: Story) -> dict[str, Any]:
    """A thread's rounds as the pages draw them: the first draft whole, each later one
    with what changed against the one before."""
    rounds = []
    for number, r in enumerate(story.rounds):
        rounds.append({"round": r, "first": number == 0,
                       "draft_html": render_draft(r.draft, []) if number == 0 else "",
                       "changes_html": changes_html(r.changes)})
    record = story.record
    uncovered = set(record.get("uncovered") or [])
    checklist = [(r["id"], r["kind"], r["text"], r["id"] not in uncovered)
                 for r in story.checklist if r.get("kind") not in ("task", "style")]
    status, reason = story.status, story.stop_reason
    return {"story": story, "rounds": rounds, "checklist": checklist,
            "can_retry": status == "failed" or (status == "finished" and bool(story.brief)),
            "can_reopen": status == "finished" and reason in APPROVED_REASONS,
            "error": "", "form": {"name": "", "reason": ""}, "label": label,
            "story_chart": score_chart(record.get("score_history") or
                                       [r.score for r in story.rounds if r.score is not None]),
            "ended": label(story.stop_reason or story.status),
            "output_name": (record.get("output_path") or "").rsplit("/", 1)[-1]}
