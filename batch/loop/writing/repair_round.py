"""A round of repairs: the best draft so far with the checks' findings repaired one by
one (batch.loop.writing.repairs), the writer model asked for one sentence at a time."""

from __future__ import annotations

from typing import Any

from batch.errors import ModelOutputInvalid, OutOfBudget
from batch.loop.answers import RepairAnswer
from batch.loop.routing import has_repair, repair_key, repairs_tried
from batch.loop.writing.repairs import Repairer
from batch.loop.writing.round import REPAIR_TEMPERATURE, WriterRound
from batch.models import ask
from batch.prompting import repair_messages
from batch.thread_inputs import limits_of


def repaired(w: WriterRound) -> dict[str, Any] | None:
    """The round's update with the best draft repaired, or None when there is nothing
    to repair (no best draft, no finding with a repair, the best draft already tried) or
    no repair was kept."""
    state = w.state
    best = state.get("best")
    samples = limits_of(state).repair_samples
    if not best or not best["draft"].strip() or samples < 1:
        return None
    key = repair_key(best["draft"])
    if repairs_tried(state):
        return None  # its repairs were all tried; the same tries would fail again
    # the best draft's own record: judged when it was written, not again here
    made = best.get("judgement")
    findings = (
        made["findings"]
        if made is not None
        else w.findings(best["draft"], best["needs_from_human"])
    )
    if not has_repair(findings):
        return None
    model = w.models.required("writer")

    # a later round's tries of the same repair are other samples, not the same again
    offset = state.get("round", 0) * samples

    def propose(draft: str, task: str, sample: int, words: int) -> str | None:
        try:
            return ask(
                model,
                "writer",
                repair_messages(state, draft, task),
                RepairAnswer,
                w.stats,
                w.sampling(sample, REPAIR_TEMPERATURE, offset),
                max_tokens=min(model.max_tokens, 2 * words + 40),
            ).text
        except ModelOutputInvalid:
            return None  # this sample gave no repair; the next may
        except OutOfBudget:
            return None  # no model repair any more; those made by code still go

    start = len(w.stats)
    outcome = Repairer(judge=w.findings, ask=propose, samples=samples).run(
        best["draft"], best["needs_from_human"], findings
    )
    w.log.append(
        {
            "round": w.number,
            "kind": "repairs",
            "repaired": key,
            "attempts": outcome.log(),
            **w.spent(start),
        }
    )
    if not outcome.changed:
        return None
    return w.update(outcome.draft, outcome.needs, best["deviations"], progressed=True)
