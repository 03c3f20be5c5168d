"""The graph's nodes: writer, critic, review, finish.

Each node takes the state and returns only what it changes. Model-calling nodes go
through `batch.models.ask`, which validates the structured answer; every score,
threshold and verdict is computed here in code. The deterministic checks
(batch.loop.checking, also used to validate a person's edited text) are run by the
critic node first: a super-step of their own would cost a checkpoint per round and buy
nothing, since nothing can happen between them and the critic.
"""

from __future__ import annotations

import ast
import dataclasses
import time
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

from langgraph.config import get_config
from langgraph.types import interrupt

from batch import placeholders
from batch.draft_cleanup import (
    html_to_markdown,
    strip_chatter,
    strip_fence_tags,
    strip_prompt_lines,
)
from batch.errors import ModelOutputInvalid, OutOfBudget
from batch.judging import doc_examples
from batch.judging.checks.facts import check_requirements
from batch.judging.doc_examples import CallResult
from batch.judging.wording import numbers_in, word_count, word_grams
from batch.loop import docwriter, inbox, repairs
from batch.loop.answers import (
    DocAnswer,
    FinalizerAnswer,
    RepairAnswer,
    WriterAnswer,
    critic_schema_of,
)
from batch.loop.checking import (
    checklist_of,
    findings_of,
    findings_update,
)
from batch.loop.decisions import apply_review_response
from batch.loop.routing import final_reason, has_repair, model_seconds, repair_key, repairs_tried
from batch.loop.verdict import verdict
from batch.models import CallStat, ModelSet, RoleModel, Sampling, ask, write
from batch.models.budget import Spending, charge_call, room, spending
from batch.outcomes import is_approved
from batch.output import NEEDS_WORK, no_link_between, write_output, written_for
from batch.prompting import (
    critic_messages,
    critique_texts,
    doc_messages,
    finalizer_messages,
    instruction_texts,
    repair_messages,
    writer_messages,
)
from batch.source_files import is_python
from batch.state import Finding, LoopState
from batch.thread_inputs import brief_of, limits_of, rubric_of


def _calls(stats: list[CallStat]) -> list[dict[str, Any]]:
    return [dataclasses.asdict(s) for s in stats]


def _spending(state: LoopState) -> AbstractContextManager[Spending]:
    """Charge a node's model calls, and the examples its checks run, to its thread's
    budget (batch.models.budget)."""
    return spending(
        limits_of(state).max_model_seconds,
        model_seconds(state),
        sum(state.get("example_seconds", [])),
    )


def _spent(stats: list[CallStat], start: int) -> dict[str, Any]:
    """What a writer step's model calls (`stats[start:]`) cost, for its writer_log entry."""
    return {"calls": len(stats) - start, "seconds": round(sum(s.seconds for s in stats[start:]), 3)}


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


# Each further sample of a first draft or a repair this much warmer than the one before.
SAMPLE_WARMING = 0.3
# A repair is one sentence to get right, not a text to vary: sampled cool, warming after.
REPAIR_TEMPERATURE = 0.3
DOC_TOKENS = 400  # one name's summary, parameters and example call


def _python_source(state: LoopState) -> bool:
    """A Python file to document: its docs are written name by name (batch.loop.docwriter)."""
    brief = brief_of(state)
    if brief.kind != "source" or not is_python(brief.origin_name):
        return False
    try:
        ast.parse(brief.source_text)
    except SyntaxError:
        return False  # documented as a whole text, as another language's file is
    return True


def _round(
    state: LoopState,
    draft: str,
    needs: list[dict[str, str]],
    deviations: list[dict[str, str]],
    stats: list[CallStat],
    log: list[dict[str, Any]],
    progressed: bool = False,
) -> dict[str, Any]:
    """The state update of a writer round that gave `draft`, however it was made.
    `progressed`: the checks found less in it (a kept repair), however small the change,
    so it is no repeat of the draft before."""
    previous = state.get("draft", "")
    return {
        "round": state.get("round", 0) + 1,
        "draft": draft,
        # how many rounds in a row gave back the draft before them
        "repeats": (
            state.get("repeats", 0) + 1
            if not progressed and previous and near_copy(previous, draft)
            else 0
        ),
        "deviations": deviations,
        "needs_from_human": needs,
        "calls": _calls(stats),
        "meets_bar": False,
        "writer_log": log,
    }


def near_copy(a: str, b: str, share: float = 0.9) -> bool:
    """Two drafts that share almost every three-word run: a revision that changed nothing."""
    ga, gb = word_grams(a, 3), word_grams(b, 3)
    if not ga or not gb:
        return a.strip() == b.strip()
    return len(ga & gb) / len(ga | gb) >= share


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
        """A round's draft: the best draft so far repaired where the checks found
        problems (batch.loop.repairs), or, where no repair applies or none was kept, a whole
        draft: the first one sampled `limits.drafts` times with the checks choosing, a
        later one a rewrite."""
        stats: list[CallStat] = []
        log: list[dict[str, Any]] = []
        started = time.perf_counter()
        # the examples the checks run are charged to the brief as they run
        with _spending(state), doc_examples.timed(room, charge_call) as examples:
            try:
                update = self._write(state, stats, log)
            except OutOfBudget:
                if not state.get("best"):
                    raise  # nothing judged yet to set aside
                # no new draft: the loop ends with the best one (batch.loop.routing)
                update = {"out_of_budget": True, "calls": _calls(stats), "writer_log": log}
        return {**update, **_check_time(_outside_calls(started, stats), examples[0])}

    def _write(
        self, state: LoopState, stats: list[CallStat], log: list[dict[str, Any]]
    ) -> dict[str, Any]:
        repaired = self._repaired(state, stats, log)
        if repaired is not None:
            return repaired
        if state.get("meets_bar"):
            # sent back only for what a text at the bar adds, and no repair was kept:
            # no rewrite of a text that passes; it goes on as it is, judged already
            return {"calls": _calls(stats), "writer_log": log}
        if _python_source(state):
            return self._documented(state, stats, log)
        try:
            draft, needs, answer = self._whole_draft(state, stats, log)
        except ModelOutputInvalid as e:
            if not state.get("best"):
                raise  # nothing judged yet to set aside: the run fails as a whole
            # A revision that never came back valid: the loop ends here, and the best
            # draft so far is set aside with what is wrong with it (never approved).
            return {
                "writer_error": str(e),
                "stop_reason": "error",
                "calls": _calls(stats),
                "writer_log": log,
            }
        return _round(
            state, draft, needs, [d.model_dump() for d in answer.deliberate_deviations], stats, log
        )

    def _cleaned(self, state: LoopState, text: str) -> str:
        """The writer's text as the checks and the critic judge it. Cleaned before either:
        the text judged (and approved) is the text written. Whole lines of the prompt a
        small model copied go too; anything subtler is left for the echo check."""
        draft = strip_fence_tags(text)
        if brief_of(state).kind != "source":
            # API docs may name tags in prose; a text brief's HTML is a format slip
            draft = html_to_markdown(draft)
        # The brief's orders to the writer ("Write a short memo to ...") are never text
        # for its readers either; only whole lines go, as with the prompts.
        orders = [r["text"] for r in checklist_of(state) if r["kind"] == "task"]
        return strip_prompt_lines(
            strip_chatter(draft),
            [*instruction_texts(state, rubric_of(state)), *critique_texts(state), *orders],
        ).strip()

    def _findings(self, state: LoopState, draft: str, needs: list[dict[str, str]]) -> list[Finding]:
        return findings_of(state, draft, needs)["findings"]

    def _sampling(
        self, sample: int, temperature: float | None = None, seeds_used: int = 0
    ) -> Sampling | None:
        """Sample 0 as configured (or at `temperature`); each later one warmer, on
        another seed, so it is another answer and not the same one again. `seeds_used`:
        seeds an earlier round already tried for the same question, skipped."""
        settings = self.models.settings.writer
        base = settings.temperature if temperature is None else temperature
        if sample == 0 and temperature is None and not seeds_used:
            return None
        return Sampling(
            temperature=min(1.2, base + SAMPLE_WARMING * sample),
            seed=settings.seed + seeds_used + sample,
        )

    def _whole_draft(
        self, state: LoopState, stats: list[CallStat], log: list[dict[str, Any]]
    ) -> tuple[str, list[dict[str, str]], WriterAnswer]:
        """A whole draft. The first of a thread is sampled up to `limits.drafts` times:
        the code checks pick the one they find least wrong with, and sampling stops at
        the first they pass. ModelOutputInvalid only when no sample was valid."""
        first = not state.get("draft")
        samples = limits_of(state).drafts if first else 1
        start = len(stats)
        # a rewrite after repairs that changed nothing starts afresh: shown the same
        # draft, a small model gives it back
        prompt_state = state if first or not log else {**state, "repeats": 1}
        messages = writer_messages(prompt_state)
        # (must_fix, score, draft, needs, answer, which sample)
        best: tuple[int, float, str, list[dict[str, str]], WriterAnswer, int] | None = None
        problem: ModelOutputInvalid | None = None
        tried: list[dict[str, Any]] = []
        for sample in range(samples):
            try:
                # plain text: a draft inside grammar-constrained JSON can run on to
                # max_tokens, and a text that repeats itself is stopped and retried
                answer = WriterAnswer.from_text(
                    write(
                        self.models.required("writer"),
                        "writer",
                        messages,
                        stats,
                        self._sampling(sample),
                    )
                )
            except ModelOutputInvalid as e:
                problem = e
                tried.append({"sample": sample, "valid": False})
                continue
            except OutOfBudget:
                if best is None:
                    raise
                break  # the samples so far are all the budget buys
            draft = self._cleaned(state, answer.draft)
            needs = placeholders.with_unlisted(
                draft, [n.model_dump() for n in answer.needs_from_human]
            )
            if samples == 1:
                best = (0, 0.0, draft, needs, answer, sample)
                break
            judged = findings_of(state, draft, needs)
            wrong, score = len(repairs.must_fix(judged["findings"])), judged["score"]
            tried.append({"sample": sample, "valid": True, "must_fix": wrong, "score": score})
            if best is None or (wrong, -score) < (best[0], -best[1]):
                best = (wrong, score, draft, needs, answer, sample)
            if wrong == 0:
                break  # the checks pass it: no need for more
        log.append(
            {
                "round": state.get("round", 0) + 1,
                "kind": "first drafts" if first else "rewrite",
                "samples": tried,
                "chosen": best[5] if best is not None else None,
                **_spent(stats, start),
            }
        )
        if best is None:
            assert problem is not None
            raise problem
        return best[2], best[3], best[4]

    def _documented(
        self, state: LoopState, stats: list[CallStat], log: list[dict[str, Any]]
    ) -> dict[str, Any]:
        """API docs of a Python file, one public name at a time (batch.loop.docwriter), each
        name's example run for the result it shows. A later round's docs are sampled
        on other seeds: the same ones again would be the same answers."""
        brief = brief_of(state)
        model = self.models.required("writer")
        offset = state.get("round", 0)

        def ask_name(name: docwriter.Name, sample: int) -> docwriter.NameDoc | None:
            try:
                answer = ask(
                    model,
                    "writer",
                    doc_messages(state, name),
                    DocAnswer,
                    stats,
                    self._sampling(sample, REPAIR_TEMPERATURE, offset * 2),
                    max_tokens=min(model.max_tokens, DOC_TOKENS),
                )
            except ModelOutputInvalid:
                return None
            except OutOfBudget:
                return None  # this name goes undocumented; the checks will say so
            return docwriter.NameDoc(
                summary=answer.summary,
                parameters={p.name.strip("`* "): p.meaning for p in answer.parameters},
                example=answer.example,
            )

        module = Path(brief.origin_name).stem
        source_path = Path(brief.source_path) if brief.source_path else None

        def run(calls: list[str]) -> list[CallResult] | None:
            return doc_examples.run_calls(calls, brief.source_text, module, source_path)[0]

        start = len(stats)
        draft, names = docwriter.DocWriter(ask_name, run).write(module, brief.source_text)
        log.append(
            {"round": offset + 1, "kind": "docs by name", "names": names, **_spent(stats, start)}
        )
        return _round(state, draft, [], [], stats, log)

    def _repaired(
        self, state: LoopState, stats: list[CallStat], log: list[dict[str, Any]]
    ) -> dict[str, Any] | None:
        """The best draft so far with the checks' findings repaired one by one, or None
        when there is nothing to repair (no best draft, no finding with a repair, the
        best draft already tried) or no repair was kept."""
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
            else self._findings(state, best["draft"], best["needs_from_human"])
        )
        if not has_repair(findings):
            return None
        model = self.models.required("writer")

        # a later round's tries of the same repair are other samples, not the same again
        offset = state.get("round", 0) * samples

        def propose(draft: str, task: str, sample: int, words: int) -> str | None:
            try:
                return ask(
                    model,
                    "writer",
                    repair_messages(state, draft, task),
                    RepairAnswer,
                    stats,
                    self._sampling(sample, REPAIR_TEMPERATURE, offset),
                    max_tokens=min(model.max_tokens, 2 * words + 40),
                ).text
            except ModelOutputInvalid:
                return None  # this sample gave no repair; the next may
            except OutOfBudget:
                return None  # no model repair any more; those made by code still go

        start = len(stats)
        outcome = repairs.Repairer(
            judge=lambda d, n: self._findings(state, d, n),
            ask=propose,
            samples=samples,
        ).run(best["draft"], best["needs_from_human"], findings)
        log.append(
            {
                "round": state.get("round", 0) + 1,
                "kind": "repairs",
                "repaired": key,
                "attempts": outcome.log(),
                **_spent(stats, start),
            }
        )
        if not outcome.changed:
            return None
        return _round(
            state, outcome.draft, outcome.needs, best["deviations"], stats, log, progressed=True
        )

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
        update["calls"] = _calls(stats)
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
            update["calls"] = _calls(stats)
        # Open needs: placeholders still in the text (an entry for one the text does not
        # contain is a writer's mistake, already reported as must_fix, not a question).
        in_text = {placeholders.normalize(p) for p in placeholders.find(text)}
        open_needs = [n for n in needs if placeholders.normalize(n["placeholder"]) in in_text]
        brief = brief_of(state)
        meta: dict[str, Any] = {
            "brief_id": brief.id,
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
