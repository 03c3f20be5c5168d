"""A text that did not come from the loop (a person's own, another tool's) judged against
its brief by the same checks and the same verdict as a round's draft: what
`briefloop check` prints, and what the labelled-set benchmarks measure."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from batch import placeholders
from batch.check_types import Finding
from batch.config import Settings
from batch.inputs.briefs import Brief
from batch.loop.checking import findings_update
from batch.loop.verdict import verdict
from batch.run.starting import start_state
from batch.state import LoopState
from batch.thread_inputs import limits_of

# approved: the machine would approve it (a person may still have placeholders to fill);
# held: nothing to fix, but something the checks cannot vouch for waits for a person;
# refused: a must-fix stands, or the score is under the bar.
Outcome = Literal["approved", "held", "refused"]
EXIT_CODES: dict[Outcome, int] = {"approved": 0, "held": 3, "refused": 4}


@dataclass
class TextVerdict:
    outcome: Outcome
    score: float
    threshold: float
    must_fix: list[Finding]
    holds: list[Finding]
    would_improve: list[Finding]
    needs_from_human: list[str]
    checklist: list[dict[str, Any]] = field(default_factory=list)
    # the thread's state after the round, and the verdict's own update of it
    state: LoopState = field(default_factory=lambda: LoopState(), repr=False)
    update: dict[str, Any] = field(default_factory=dict, repr=False)

    def as_json(self) -> dict[str, Any]:
        def shown(fs: list[Finding]) -> list[dict[str, Any]]:
            return [{"code": f["code"], "message": f["message"]} for f in fs]

        return {
            "outcome": self.outcome,
            "score": self.score,
            "threshold": self.threshold,
            "must_fix": shown(self.must_fix),
            "holds": shown(self.holds),
            "would_improve": shown(self.would_improve),
            "needs_from_human": self.needs_from_human,
            "checklist": self.checklist,
        }


def outcome_of(meets_bar: bool, findings: list[Finding]) -> Outcome:
    """The loop's own reading of a judged draft (batch.loop.routing.decide): a must-fix
    or a score under the bar refuses it; holds make it wait; else it is approved."""
    if not meets_bar or any(f["severity"] == "must_fix" for f in findings):
        return "refused"
    if any(f["severity"] == "hold" for f in findings):
        return "held"
    return "approved"


def judge_text(
    settings: Settings, brief: Brief, text: str, read_values: frozenset[str] | None = None
) -> TextVerdict:
    """`text` judged as the loop judges its brief's draft: the thread's starting state
    (rubric, house rules, checklist), today's checks, the verdict with the code checks as
    the critic. `read_values`: a second reading's values for the readers, if any."""
    state, _ = start_state(settings, brief)
    if read_values is not None:
        state["read_values"] = sorted(read_values)
    state["draft"] = text
    state["needs_from_human"] = placeholders.needs_of(text, [])
    state.update(findings_update(state))  # type: ignore[typeddict-item]
    judged = verdict(state, None, "checks")
    state.update(judged)  # type: ignore[typeddict-item]
    findings: list[Finding] = list(state.get("findings", []))
    return TextVerdict(
        outcome=outcome_of(bool(judged["meets_bar"]), findings),
        score=float(judged["score"]),
        threshold=float(limits_of(state).threshold),
        must_fix=[f for f in findings if f["severity"] == "must_fix"],
        holds=[f for f in findings if f["severity"] == "hold"],
        would_improve=[f for f in findings if f["severity"] == "warn"],
        needs_from_human=placeholders.named(state["needs_from_human"]),
        checklist=[
            {"id": r["id"], "kind": r["kind"], "text": r["text"]}
            for r in state.get("checklist", [])
        ],
        state=state,
        update=judged,
    )
