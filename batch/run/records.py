"""A thread's state as the fields of its run-log record: the text it stands for, its
score and must_fix, what is still needed from a person, the decision, the model calls."""

from __future__ import annotations

from typing import Any

from batch import placeholders
from batch.judging.checks.facts import check_requirements
from batch.judging.record import draft_hash
from batch.loop import inbox
from batch.loop.checking import checklist_of
from batch.loop.routing import machine_ending
from batch.outcomes import is_approved, label
from batch.state import LoopState


def call_totals(calls: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        # which server answered each call, in order ("writer@http://gpu-1:11434");
        # the embedded model names none
        "hosts": [f"{c['role']}@{c['host']}" for c in calls if c.get("host")],
        "model_calls": len(calls),
        "input_tokens": sum(c["input_tokens"] for c in calls),
        "output_tokens": sum(c["output_tokens"] for c in calls),
        "model_seconds": round(sum(c["seconds"] for c in calls), 3),
    }


# The steps a run's time is split into (the run log's `time_split`), in this order.
TIME_STEPS = ("first draft", "repairs", "critic", "finalizer", "examples", "checks")


def time_split(
    call_seconds: list[tuple[str, int, float]],
    check_seconds: list[float],
    example_seconds: list[float],
) -> dict[str, float]:
    """Where a run's time went: the model seconds of its journaled calls by step (node
    and round: the writer's first round is the first draft, its later ones the repairs
    and rewrites), the seconds the API docs' examples took to run in the sandbox, and
    the seconds its steps spent on the other checks outside model calls."""
    split = dict.fromkeys(TIME_STEPS, 0.0)
    for node, round_, seconds in call_seconds:
        step = (
            ("first draft" if round_ <= 1 else "repairs")
            if node == "writer"
            else ("finalizer" if node == "finish" else "critic" if node == "critic" else None)
        )
        if step is not None:
            split[step] += seconds
    split["examples"] = sum(example_seconds)
    split["checks"] = sum(check_seconds)
    return {k: round(v, 1) for k, v in split.items() if v >= 0.05}


def record_fields(values: LoopState) -> dict[str, Any]:
    """Run-log fields derived from a thread's state."""
    final = values.get("final")
    approved = values.get("meets_bar") or is_approved(values.get("stop_reason"))
    score: float | None
    deviations = list(values.get("deviations", []))
    if final is not None:
        score, must_fix, needs = final["score"], final["must_fix"], final["needs"]
        # The text the run stands for: the approved one, else the best round's.
        best = values.get("best")
        text = best["draft"] if best and not approved else values.get("draft", "")
    elif values.get("brief"):
        # Not finished (waiting for a person, or still going): the text a person is shown
        # (inbox.shown: the best draft of one that stopped unapproved), so the record,
        # the sheet and the review page describe the same text.
        view = inbox.shown(values)
        text, score, needs = view["draft"], view["score"], view["needs_from_human"]
        must_fix, deviations = view["must_fix"], list(view["deviations"])
    else:
        text, score, must_fix, needs = "", values.get("score"), [], []
    open_needs = placeholders.unanswered(needs, values.get("human_answers") or {})
    checklist = checklist_of(values) if values.get("brief") else []
    made = judgement_of(values, text)
    found = (
        made["findings"]
        if made is not None
        # a person's own version, or a thread from before records were kept
        else check_requirements(text, checklist)
        if text
        else []
    )
    uncovered = [f["code"].split(":", 1)[1] for f in found if f["code"].startswith("uncovered:")]
    return {
        "unfinished": unfinished(values),
        "checklist": [f"{r['id']} {r['kind']}: {r['text']}" for r in checklist],
        "uncovered": uncovered,
        "rounds": values.get("round", 0),
        "score": score,
        "score_history": list(values.get("score_history", [])),
        "open_must_fix": list(must_fix),
        "needs_from_human": open_needs,
        "deviations": deviations,
        "output_path": values.get("output_path"),
        # of the text the run stands for: the last round's may be of another draft
        "verification": (made or {}).get("verification", values.get("verification", "")),
        "judgement": made or {},
        **decision_fields(values.get("decision") or {}),
        **call_totals(values.get("calls", [])),
    }


def judgement_of(values: LoopState, text: str) -> dict[str, Any] | None:
    """The record the checks made of `text`, the text the run stands for: the current
    round's or the best draft's; None for a text no record is of (a person's own)."""
    if not text:
        return None
    key = draft_hash(text)
    best = values.get("best")
    for made in (values.get("judgement"), best.get("judgement") if best else None):
        if made and made.get("draft") == key:
            return made
    return None


def unfinished(values: LoopState) -> str | None:
    """Why the machine could not finish the text (max_rounds, no_progress), or None: one
    it approved, one still going, one that failed."""
    if not values.get("brief") or values.get("writer_error"):
        return None
    if values.get("meets_bar"):
        return "held" if values.get("holds") else None
    return machine_ending(values)


def decision_note(decision: dict[str, Any]) -> str | None:
    """A person's decision in words: their reason or notes, that they approved over the
    checks' findings, that they approved their own version."""
    note = decision.get("reason") or decision.get("notes") or None
    if decision.get("type") == "reopen":
        return f"reopened (it was {label(decision.get('was') or 'approved')}): {note}"
    if decision.get("after_reopen"):
        again = f"approved again after it was reopened ({decision['after_reopen']})"
        note = f"{again}; {note}" if note else again
    if decision.get("override"):
        note = f"approved over the checks' findings: {decision['override']}"
    if decision.get("draft") is not None:
        note = f"edited by the reviewer; {note}" if note else "edited by the reviewer"
    if decision.get("vouched"):
        note = f"{decision['vouched']}; {note}" if note else decision["vouched"]
    return note


def decision_fields(decision: dict[str, Any]) -> dict[str, Any]:
    if decision.get("type") not in ("approve", "reject", "revise", "reopen"):
        return {}
    return {
        "decided_by": decision.get("by"),
        "decided_at": decision.get("at"),
        "decision_note": decision_note(decision),
    }
