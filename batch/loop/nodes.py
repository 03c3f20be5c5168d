"""The graph's nodes: writer, critic, review, finish.

Each node takes the state and returns only what it changes. Model-calling nodes go
through `batch.models.ask`, which validates the structured answer; every score,
threshold and verdict is computed here in code. The deterministic checks
(batch.loop.checking, also used to validate a person's edited text) are run by the
critic node first: a super-step of their own would cost a checkpoint per round and buy
nothing, since nothing can happen between them and the critic.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

from langgraph.config import get_config
from langgraph.types import interrupt

from batch import placeholders
from batch.errors import OutOfBudget
from batch.judging import doc_examples
from batch.judging.checks.facts import check_requirements
from batch.judging.wording import numbers_in, word_count
from batch.loop import inbox, writing
from batch.loop.answers import FinalizerAnswer, critic_schema_of
from batch.loop.checking import checklist_of, findings_update
from batch.loop.decisions import apply_review_response
from batch.loop.routing import final_reason, model_seconds
from batch.loop.verdict import verdict
from batch.loop.writing.round import calls_of
from batch.models import CallStat, ModelSet, RoleModel, ask
from batch.models.budget import Spending, charge_call, room, spending
from batch.outcomes import is_approved
from batch.output import NEEDS_WORK, no_link_between, write_output, written_for
from batch.prompting import critic_messages, finalizer_messages
from batch.state import LoopState
from batch.thread_inputs import brief_of, limits_of, rubric_of


def _spending(state: LoopState) -> AbstractContextManager[Spending]:
    """Charge a node's model calls, and the examples its checks run, to its thread's
    budget (batch.models.budget)."""
    return spending(
        limits_of(state).max_model_seconds,
        model_seconds(state),
        sum(state.get("example_seconds", [])),
    )


def _check_time(outside_calls: float, examples: float) -> dict[str, list[float]]:
    """A step's time outside its model calls, the examples it ran apart (time_split)."""
    return {
        "check_seconds": [round(max(0.0, outside_calls - examples), 3)],
        "example_seconds": [round(examples, 3)],
    }


def _outside_calls(started: float, stats: list[CallStat]) -> float:
    """A step's seconds since `started` that its model calls did not take."""
    return round(max(0.0, time.perf_counter() - started - sum(s.seconds for s in stats)), 3)


UNASKED_CRITIC = "The critic was not asked: the brief's model time was spent."


def _running_thread() -> str | None:
    """The id of the thread the graph is running this node for; None when a node is
    called outside a graph (a test, a bench), which has no thread to be replaced."""
    try:
        config = get_config()
    except RuntimeError:
        return None
    return (config.get("configurable") or {}).get("thread_id")


@dataclass
class Nodes:
    """The graph's nodes (batch.loop.graph wires them): `writer` drafts, repairs or
    rewrites; `critic` runs the code checks and, as `critic_mode` says, a critic model,
    and computes the verdict; `review` pauses for a person; `finish` writes the text.
    Each takes the state and returns its update; routing between them is pure
    (batch.loop.routing). `models` are the roles' models, `output_dir` where finished
    texts go."""

    models: ModelSet
    output_dir: Path
    critic_mode: str = "checks"
    # the thread that replaced a thread, by its id (a newer run of its brief, a retry),
    # or None: a replaced thread never writes output/ (see `finish`)
    replaced_by: Callable[[str], str | None] | None = None

    # -- writer ------------------------------------------------------------------------
    def writer(self, state: LoopState) -> dict[str, Any]:
        """A round's draft, by the first of the writer's strategies that applies
        (batch.loop.writing): the best draft repaired, the text at the bar kept, API docs
        name by name, a whole draft or a rewrite."""
        w = writing.WriterRound(self.models, state)
        started = time.perf_counter()
        # the examples the checks run are charged to the brief as they run
        with _spending(state), doc_examples.timed(room, charge_call) as examples:
            try:
                update = writing.write(w)
            except OutOfBudget:
                if not state.get("best"):
                    raise  # nothing judged yet to set aside
                # no new draft: the loop ends with the best one (batch.loop.routing)
                update = {"out_of_budget": True, **w.unchanged()}
        return {**update, **_check_time(_outside_calls(started, w.stats), examples[0])}

    # -- critic ------------------------------------------------------------------------
    def critic(self, state: LoopState) -> dict[str, Any]:
        """The code checks, then the critic model, then the verdict of both. The checks
        come first: one that fails costs no model call. A retried or resumed node runs
        them again (they are deterministic).

        In checks mode the critic model is never asked. In advice mode it is asked only
        about a draft the checks pass: on one they refuse, its points could not change
        the verdict, and the next round repairs what the checks found, not what the
        critic said."""
        started = time.perf_counter()
        with _spending(state), doc_examples.timed(room, charge_call) as examples:
            checked = findings_update(state)
        checking = time.perf_counter() - started
        judged = cast(LoopState, {**state, **checked})
        rubric = rubric_of(judged)
        stats: list[CallStat] = []
        refused = any(f["severity"] == "must_fix" for f in checked["findings"])
        answer, unasked = None, False
        if self.critic_mode == "gate" or (self.critic_mode == "advice" and not refused):
            try:
                with _spending(state):
                    answer = ask(
                        self.models.required("critic"),
                        "critic",
                        critic_messages(judged, rubric),
                        critic_schema_of(rubric),
                        stats,
                    )
            except OutOfBudget:
                unasked = True
        update = {**checked, **verdict(judged, answer, "checks" if unasked else self.critic_mode)}
        if unasked:
            # Advice: the critic's points never decide, so the verdict stands without
            # them. A gate is not passed unasked.
            update["would_improve"] = [*update["would_improve"], UNASKED_CRITIC]
            update["meets_bar"] = update["meets_bar"] and self.critic_mode != "gate"
        update["calls"] = calls_of(stats)
        return {**update, **_check_time(checking, examples[0])}

    # -- review (human) ----------------------------------------------------------------
    def review(self, state: LoopState) -> dict[str, Any]:
        # Nothing with side effects may come before interrupt(): this node re-runs from
        # its first line when the thread is resumed.
        payload = inbox.interrupt_payload(state)
        response = interrupt(payload)
        return apply_review_response(state, response)

    # -- finish ------------------------------------------------------------------------
    def finish(self, state: LoopState) -> dict[str, Any]:
        reason = final_reason(state)
        approved = is_approved(reason)
        best = state.get("best")
        if approved or best is None:
            text, needs, score = state["draft"], state.get("needs_from_human", []), state["score"]
            must_fix = [] if approved else state.get("must_fix", [])
        else:
            text, needs, score = best["draft"], best["needs_from_human"], best["score"]
            must_fix = best.get("must_fix", [])
        answers = state.get("human_answers") or {}
        text = placeholders.fill(text, answers)
        update: dict[str, Any] = {"stop_reason": reason}
        finalizer = self.models.get("finalizer")
        if finalizer is not None and approved:
            stats: list[CallStat] = []
            text = self._polished(state, finalizer, text, stats)
            update["calls"] = calls_of(stats)
        # Open needs: placeholders still in the text (an entry for one the text does not
        # contain is a writer's mistake, already reported as must_fix, not a question).
        in_text = {placeholders.normalize(p) for p in placeholders.find(text)}
        open_needs = [n for n in needs if placeholders.normalize(n["placeholder"]) in in_text]
        brief = brief_of(state)
        meta: dict[str, Any] = {
            "brief_id": brief.id,
            # which run wrote it: a brief put back to an earlier version finds its text
            "thread_id": _running_thread(),
            "title": brief.title or None,
            "stop_reason": reason,
            "approved": approved,
            "score": score,
            "rounds": state.get("round", 0),
            "score_history": list(state.get("score_history", [])),
            "needs_from_human": [n["placeholder"] for n in open_needs] or None,
        }
        decision = state.get("decision") or {}
        if reason == "approved_by_human":
            meta["approved_by"] = decision.get("by")
            meta["approved_at"] = decision.get("at")
        if reason == "rejected_by_human":
            # set aside like any text nobody approved, with who said no and why
            meta["rejected_by"] = decision.get("by")
            meta["rejected_at"] = decision.get("at")
            meta["rejected_because"] = decision.get("reason")
        if state.get("writer_error"):
            meta["error"] = state["writer_error"]
        if not approved:
            # Not a finished text: it goes aside, with what is still wrong with it.
            uncovered = check_requirements(text, checklist_of(state))
            meta["open_must_fix"] = list(must_fix) or None
            meta["uncovered_requirements"] = [
                f["code"].split(":", 1)[1] + ": " + r["text"]
                for f in uncovered
                for r in checklist_of(state)
                if r["id"] == f["code"].split(":", 1)[1]
            ] or None
        meta = {k: v for k, v in meta.items() if v is not None}
        # What the run log reports is the text that was written, not the last round.
        update["final"] = {"score": score, "must_fix": list(must_fix), "needs": open_needs}
        if not text.strip():
            # No text, no file: an empty output would read as a finished text.
            update["output_path"] = None
            return update
        thread_id = _running_thread()
        if self.replaced_by is not None and thread_id and self.replaced_by(thread_id):
            # A newer run of this brief, or a retry, is its live thread now: this older
            # one ends without touching the newer one's file (the run log keeps its text).
            update["output_path"] = None
            return update
        target = self.output_dir if approved else self.output_dir / NEEDS_WORK
        path = write_output(no_link_between(self.output_dir, target), brief.id, meta, text)
        if approved:
            # An earlier run's unfinished text of this brief is superseded now.
            earlier = self.output_dir / NEEDS_WORK / path.name
            if written_for(earlier) == brief.id:
                earlier.unlink(missing_ok=True)
        update["output_path"] = str(path)
        return update

    def _polished(
        self, state: LoopState, finalizer: RoleModel, text: str, stats: list[CallStat]
    ) -> str:
        """The approved text polished by the finalizer; as it is when the brief's model
        time is spent (the polish is optional)."""
        try:
            with _spending(state):
                return self._finalize(finalizer, text, stats)
        except OutOfBudget:
            return text

    def _finalize(self, model: RoleModel, text: str, stats: list[CallStat]) -> str:
        """Optional polish pass, kept only if it changed no fact the checks can see."""
        answer = ask(model, "finalizer", finalizer_messages(text), FinalizerAnswer, stats)
        polished = answer.text
        same_placeholders = sorted(placeholders.find(polished)) == sorted(placeholders.find(text))
        no_new_numbers = numbers_in(polished) <= numbers_in(text)
        close_length = abs(word_count(polished) - word_count(text)) <= max(
            10, word_count(text) // 10
        )
        if polished.strip() and same_placeholders and no_new_numbers and close_length:
            return polished
        return text
