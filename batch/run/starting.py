"""How a brief becomes a thread: its id, and its starting state with the rubric, the
house rules and the checklist frozen in it."""

from __future__ import annotations

import hashlib
import uuid
from pathlib import Path
from typing import Any, cast

from pydantic import BaseModel

from batch.config import Settings
from batch.inputs.briefs import Brief
from batch.inputs.house_rules import load_house_rules
from batch.inputs.rubrics import load_rubric
from batch.judging.checklist import build_checklist
from batch.judging.checks.obey import unchecked_orders
from batch.output import safe_filename
from batch.state import LoopState
from batch.thread_inputs import KEPT, Limits, ThreadBrief


def thread_id_for(brief: Brief, fingerprint: str, rerun: bool) -> str:
    base = f"{safe_filename(brief.id)[:48]}-{fingerprint[:12]}"
    return f"{base}-{uuid.uuid4().hex[:6]}" if rerun else base


def of_version(thread_id: str, version: str) -> bool:
    """Whether `thread_id` is a run of the brief version whose first thread is `version`
    (that thread, or a rerun or retry of it: the same id with a suffix)."""
    return thread_id == version or thread_id.startswith(version + "-")


def bad_thread_id(brief_id: str, origin: str) -> str:
    """Stable per place, so a brief that stays broken keeps one row, not one a night."""
    digest = hashlib.sha256(f"{brief_id}\0{origin}".encode()).hexdigest()[:16]
    return f"bad-{digest}"


def start_state(settings: Settings, brief: Brief) -> tuple[LoopState, str]:
    """A thread's starting state (rubric, house rules and checklist frozen in it) and the
    fingerprint of everything that shapes it."""
    loop = settings.loop
    rubric_name = brief.rubric or (loop.source_rubric if brief.kind == "source" else loop.rubric)
    rubric = load_rubric(settings.path(settings.paths.rubrics), rubric_name)
    rules = load_house_rules(
        settings.path(settings.paths.house_rules), brief.house_rules or loop.house_rules
    )
    threshold = loop.threshold if loop.threshold is not None else rubric.threshold
    thread_brief = ThreadBrief(
        id=brief.id,
        title=brief.title or "",
        text=brief.text,
        kind="source" if brief.kind == "source" else "brief",
        source_text=brief.source_text or "",
        # a source file by its own name (how it is checked), and its own path, so its
        # examples run beside its siblings: the same whether a folder or a sheet's row
        # named it
        origin_name=Path(brief.source_path or brief.origin).name,
        source_path=brief.source_path
        if brief.kind == "source" and Path(brief.source_path).is_file()
        else "",
        min_words=brief.min_words,
        max_words=brief.max_words,
    )
    checklist = build_checklist(thread_brief)
    state: LoopState = {
        "brief": thread_brief,
        "rubric": rubric,
        "house_rules": rules,
        "checklist": checklist,
        "unchecked_orders": unchecked_orders(checklist),
        "limits": Limits(
            max_rounds=loop.max_rounds,
            rounds_per_revision=loop.max_rounds,
            no_progress_rounds=loop.no_progress_rounds,
            review=loop.review,
            threshold=threshold,
            max_revisions=loop.max_revisions,
            drafts=loop.drafts,
            repair_samples=loop.repair_samples if loop.repairs else 0,
            max_model_seconds=loop.max_model_seconds,
            spend=loop.spend,
            model_seconds_per_revision=loop.max_model_seconds,
        ),
        "round": 0,
    }
    return state, brief.fingerprint(rubric.text, rules.text)


def as_message(state: LoopState) -> dict[str, Any]:
    """A starting state as plain JSON values, for a cluster's queue (batch.cluster)."""
    return {
        k: v.model_dump(mode="json") if isinstance(v, BaseModel) else v for k, v in state.items()
    }


def from_message(values: dict[str, Any]) -> LoopState:
    """`as_message`'s form back to the starting state, its models as models."""
    typed = {k: model.model_validate(values[k]) for k, model in KEPT.items() if k in values}
    return cast(LoopState, {**values, **typed})
