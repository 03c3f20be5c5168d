"""The graph's nodes: writer, critic, review, finish.

Each node takes the state and returns only what it changes. Model-calling nodes go
through `batch.models.ask`, which validates the structured answer; every score,
threshold and verdict is computed here in code. The deterministic checks are a
function of their own (`Nodes.checks`, also used by the review of an edited text) that
the critic node runs first: a super-step of their own would cost a checkpoint per round
and buy nothing, since nothing can happen between them and the critic.
"""

from __future__ import annotations

import ast
import dataclasses
import hashlib
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from langgraph.types import interrupt

from batch import placeholders as ph
from batch.cleanup import html_to_markdown, strip_chatter, strip_fence_tags, strip_prompt_lines
from batch.errors import ModelOutputInvalid
from batch.inputs.house_rules import HouseRules
from batch.inputs.rubrics import Rubric
from batch.judging import checks, examples
from batch.judging.checklist import Requirement, build_checklist
from batch.judging.exports import coverage_problem
from batch.loop import docwriter, inbox, repairs
from batch.loop.answers import (
    CriticBase,
    DocAnswer,
    FinalizerAnswer,
    RepairAnswer,
    WriterAnswer,
    critic_schema,
)
from batch.loop.routing import final_reason
from batch.models import CallStat, ModelSet, RoleModel, Sampling, ask, write
from batch.outcomes import is_approved
from batch.output import write_output
from batch.prompting import (
    critic_messages,
    critique_texts,
    doc_messages,
    finalizer_messages,
    instruction_texts,
    repair_messages,
    writer_messages,
)
from batch.state import BestDraft, LoopState


def _calls(stats: list[CallStat]) -> list[dict[str, Any]]:
    return [dataclasses.asdict(s) for s in stats]


def rubric_of(state: LoopState) -> Rubric:
    return Rubric.model_validate(state["rubric"])


_CRITIC_SCHEMAS: dict[tuple[Any, ...], type[CriticBase]] = {}


def critic_schema_of(rubric: Rubric) -> type[CriticBase]:
    """`critic_schema(rubric)`, built once per rubric: building a pydantic model takes
    milliseconds, and every round of every brief of a batch asks for the same one. The
    key is all the schema is made of."""
    key = (rubric.name, tuple(rubric.scale),
           tuple((c.name, c.description) for c in rubric.criteria))
    schema = _CRITIC_SCHEMAS.get(key)
    if schema is None:
        if len(_CRITIC_SCHEMAS) >= 64:  # rubrics edited under a long-lived process
            _CRITIC_SCHEMAS.clear()
        schema = _CRITIC_SCHEMAS[key] = critic_schema(rubric)
    return schema


def house_rules_of(state: LoopState) -> HouseRules:
    hr = state["house_rules"]
    return HouseRules(name=hr["name"], text=hr["text"], banned_phrases=tuple(hr["banned"]))


def sources_of(state: LoopState) -> list[str]:
    """Every text a number in the draft may legitimately come from."""
    brief = state["brief"]
    answers = state.get("human_answers") or {}
    limits = [str(brief[k]) for k in ("min_words", "max_words") if brief.get(k)]
    return [brief["text"], brief.get("title", ""), brief.get("source_text", ""),
            *limits, *answers.values()]


NEEDS_WORK = "needs-work"  # beside the finished texts, for every text not approved
# Each further sample of a first draft or a repair this much warmer than the one before.
SAMPLE_WARMING = 0.3
# A repair is one sentence to get right, not a text to vary: sampled cool, warming after.
REPAIR_TEMPERATURE = 0.3
DOC_TOKENS = 400  # one name's summary, parameters and example call


def _python_source(state: LoopState) -> bool:
    """A Python file to document: its docs are written name by name (batch.loop.docwriter)."""
    brief = state["brief"]
    if brief.get("kind") != "source" or not str(brief.get("origin_name", "")).endswith(".py"):
        return False
    try:
        ast.parse(brief.get("source_text", ""))
    except SyntaxError:
        return False  # documented as a whole text, as another language's file is
    return True


def _round(state: LoopState, draft: str, needs: list[dict[str, str]],
           deviations: list[dict[str, str]], stats: list[CallStat],
           log: list[dict[str, Any]], progressed: bool = False) -> dict[str, Any]:
    """The state update of a writer round that gave `draft`, however it was made.
    `progressed`: the checks found less in it (a kept repair), however small the change,
    so it is no repeat of the draft before."""
    previous = state.get("draft", "")
    return {
        "round": state.get("round", 0) + 1,
        "draft": draft,
        # how many rounds in a row gave back the draft before them
        "repeats": (state.get("repeats", 0) + 1
                    if not progressed and previous and near_copy(previous, draft) else 0),
        "deviations": deviations,
        "needs_from_human": needs,
        "calls": _calls(stats),
        "meets_bar": False,
        "writer_log": log,
    }


def checklist_of(state: LoopState) -> list[Requirement]:
    """The thread's frozen checklist (threads started before it existed build it now)."""
    if "checklist" in state:
        return state["checklist"]
    return build_checklist(state["brief"])


def near_copy(a: str, b: str, share: float = 0.9) -> bool:
    """Two drafts that share almost every three-word run: a revision that changed nothing."""
    ga, gb = checks.word_grams(a, 3), checks.word_grams(b, 3)
    if not ga or not gb:
        return a.strip() == b.strip()
    return len(ga & gb) / len(ga | gb) >= share


@dataclass
class Nodes:
    models: ModelSet
    output_dir: Path
    critic_mode: str = "advice"

    # -- writer ------------------------------------------------------------------------
    def writer(self, state: LoopState) -> dict[str, Any]:
        """A round's draft: the best draft so far repaired where the checks found
        problems (batch.loop.repairs), or, where no repair applies or none was kept, a whole
        draft: the first one sampled `limits.drafts` times with the checks choosing, a
        later one a rewrite."""
        stats: list[CallStat] = []
        log: list[dict[str, Any]] = []
        repaired = self._repaired(state, stats, log)
        if repaired is not None:
            return repaired
        if _python_source(state):
            return self._documented(state, stats, log)
        try:
            draft, needs, answer = self._whole_draft(state, stats, log)
        except ModelOutputInvalid as e:
            if not state.get("best"):
                raise  # nothing judged yet to set aside: the run fails as a whole
            # A revision that never came back valid: the loop ends here, and the best
            # draft so far is set aside with what is wrong with it (never approved).
            return {"writer_error": str(e), "stop_reason": "error", "calls": _calls(stats),
                    "writer_log": log}
        return _round(state, draft, needs,
                      [d.model_dump() for d in answer.deliberate_deviations], stats, log)

    def _cleaned(self, state: LoopState, text: str) -> str:
        """The writer's text as the checks and the critic judge it. Cleaned before either:
        the text judged (and approved) is the text written. Whole lines of the prompt a
        small model copied go too; anything subtler is left for the echo check."""
        draft = strip_fence_tags(text)
        if state["brief"].get("kind") != "source":
            # API docs may name tags in prose; a text brief's HTML is a format slip
            draft = html_to_markdown(draft)
        # The brief's orders to the writer ("Write a short memo to ...") are never text
        # for its readers either; only whole lines go, as with the prompts.
        orders = [r["text"] for r in checklist_of(state) if r["kind"] == "task"]
        return strip_prompt_lines(strip_chatter(draft),
                                  [*instruction_texts(state, rubric_of(state)),
                                   *critique_texts(state), *orders]).strip()

    def _findings(self, state: LoopState, draft: str, needs: list[dict[str, str]]):
        return self.checks({**state, "draft": draft, "needs_from_human": needs})["findings"]

    def _sampling(self, sample: int, temperature: float | None = None,
                  seeds_used: int = 0) -> Sampling | None:
        """Sample 0 as configured (or at `temperature`); each later one warmer, on
        another seed, so it is another answer and not the same one again. `seeds_used`:
        seeds an earlier round already tried for the same question, skipped."""
        settings = self.models.settings_for("writer")
        base = settings.temperature if temperature is None else temperature
        if sample == 0 and temperature is None and not seeds_used:
            return None
        return Sampling(temperature=min(1.2, base + SAMPLE_WARMING * sample),
                        seed=settings.seed + seeds_used + sample)

    def _whole_draft(self, state: LoopState, stats: list[CallStat], log: list[dict[str, Any]]
                     ) -> tuple[str, list[dict[str, str]], WriterAnswer]:
        """A whole draft. The first of a thread is sampled up to `limits.drafts` times:
        the code checks pick the one they find least wrong with, and sampling stops at
        the first they pass. ModelOutputInvalid only when no sample was valid."""
        first = not state.get("draft")
        samples = state["limits"].get("drafts", 1) if first else 1
        # a rewrite after repairs that changed nothing starts afresh: shown the same
        # draft, a small model gives it back
        prompt_state = state if first or not log else {**state, "repeats": 1}
        messages = writer_messages(prompt_state)
        best: tuple[int, float, str, list[dict[str, str]], WriterAnswer] | None = None
        problem: ModelOutputInvalid | None = None
        tried = []
        for sample in range(samples):
            try:
                # plain text: a draft inside grammar-constrained JSON can run on to
                # max_tokens, and a text that repeats itself is stopped and retried
                answer = WriterAnswer.from_text(write(
                    self.models.get("writer"), "writer", messages, stats,
                    self._sampling(sample)))
            except ModelOutputInvalid as e:
                problem = e
                tried.append({"sample": sample, "valid": False})
                continue
            draft = self._cleaned(state, answer.draft)
            needs = ph.with_unlisted(draft, [n.model_dump() for n in answer.needs_from_human])
            if samples == 1:
                best = (0, 0.0, draft, needs, answer)
                break
            findings = self._findings(state, draft, needs)
            wrong = len(repairs.must_fix(findings))
            score = checks.code_score(findings, checklist_of(state))
            tried.append({"sample": sample, "valid": True, "must_fix": wrong, "score": score})
            if best is None or (wrong, -score) < (best[0], -best[1]):
                best = (wrong, score, draft, needs, answer)
            if wrong == 0:
                break  # the checks pass it: no need for more
        log.append({"round": state.get("round", 0) + 1,
                    "kind": "first drafts" if first else "rewrite", "samples": tried})
        if best is None:
            assert problem is not None
            raise problem
        return best[2], best[3], best[4]

    def _documented(self, state: LoopState, stats: list[CallStat],
                    log: list[dict[str, Any]]) -> dict[str, Any]:
        """API docs of a Python file, one public name at a time (batch.loop.docwriter), each
        name's example run for the result it shows. A later round's docs are sampled
        on other seeds: the same ones again would be the same answers."""
        brief = state["brief"]
        model = self.models.get("writer")
        offset = state.get("round", 0)

        def ask_name(name: docwriter.Name, sample: int) -> docwriter.NameDoc | None:
            try:
                answer = ask(model, "writer", doc_messages(state, name), DocAnswer, stats,
                             self._sampling(sample, REPAIR_TEMPERATURE, offset * 2),
                             max_tokens=min(model.max_tokens, DOC_TOKENS))
            except ModelOutputInvalid:
                return None
            return docwriter.NameDoc(
                summary=answer.summary,
                parameters={p.name.strip("`* "): p.meaning for p in answer.parameters},
                example=answer.example)

        module = Path(str(brief["origin_name"])).stem
        source_path = Path(brief["source_path"]) if brief.get("source_path") else None

        def run(calls: list[str]):
            return examples.run_calls(calls, brief["source_text"], module, source_path)[0]

        draft, names = docwriter.DocWriter(ask_name, run).write(module, brief["source_text"])
        log.append({"round": offset + 1, "kind": "docs by name", "names": names})
        return _round(state, draft, [], [], stats, log)

    def _repaired(self, state: LoopState, stats: list[CallStat],
                  log: list[dict[str, Any]]) -> dict[str, Any] | None:
        """The best draft so far with the checks' findings repaired one by one, or None
        when there is nothing to repair (no best draft, no finding with a repair, the
        best draft already tried) or no repair was kept."""
        best = state.get("best")
        samples = state["limits"].get("repair_samples", 2)
        if not best or not best["draft"].strip() or samples < 1:
            return None
        key = hashlib.sha256(best["draft"].encode("utf-8")).hexdigest()[:16]
        if any(e.get("repaired") == key for e in state.get("writer_log", [])):
            return None  # its repairs were all tried; the same tries would fail again
        findings = self._findings(state, best["draft"], best["needs_from_human"])
        if not any(f.get("repair") for f in findings if f["severity"] == "must_fix"):
            return None
        model = self.models.get("writer")

        # a later round's tries of the same repair are other samples, not the same again
        offset = state.get("round", 0) * samples

        def propose(draft: str, task: str, sample: int, words: int) -> str | None:
            try:
                return ask(model, "writer", repair_messages(state, draft, task), RepairAnswer,
                           stats, self._sampling(sample, REPAIR_TEMPERATURE, offset),
                           max_tokens=min(model.max_tokens, 2 * words + 40)).text
            except ModelOutputInvalid:
                return None  # this sample gave no repair; the next may

        outcome = repairs.Repairer(
            judge=lambda d, n: self._findings(state, d, n), ask=propose,
            samples=samples,
        ).run(best["draft"], best["needs_from_human"], findings)
        log.append({"round": state.get("round", 0) + 1, "kind": "repairs", "repaired": key,
                    "attempts": outcome.log()})
        if not outcome.changed:
            return None
        return _round(state, outcome.draft, outcome.needs, best["deviations"], stats, log,
                      progressed=True)

    # -- checks (no model; run by the critic node) -------------------------------------
    def checks(self, state: LoopState) -> dict[str, Any]:
        """The code checks' findings on the state's draft (and what running its examples
        verified): the state update they make."""
        brief = state["brief"]
        findings = checks.run_checks(
            draft=state.get("draft", ""),
            needs=state.get("needs_from_human", []),
            sources=sources_of(state),
            number_severity=rubric_of(state).number_check,
            min_words=brief.get("min_words"),
            max_words=brief.get("max_words"),
            banned_phrases=house_rules_of(state).banned_phrases,
            brief=brief["text"] if brief.get("kind") != "source" else "",
            checklist=checklist_of(state),
            prompt_texts=instruction_texts(state, rubric_of(state)),
            critique=critique_texts(state),
            answered=list((state.get("human_answers") or {}).keys()),
            source_code=brief.get("source_text", "") if str(
                brief.get("origin_name", "")).endswith(".py") else "",
            module=Path(str(brief.get("origin_name", ""))).stem,
        )
        update: dict[str, Any] = {"findings": findings}
        if str(brief.get("origin_name", "")).endswith(".py") and not any(
                f["code"] in checks.NO_TEXT for f in findings):
            run = examples.verify(state.get("draft", ""), brief.get("source_text", ""),
                                  Path(str(brief["origin_name"])).stem,
                                  Path(brief["source_path"]) if brief.get("source_path")
                                  else None)
            update["findings"] = [*findings, *run.findings]
            update["verification"] = run.note
        elif brief.get("kind") == "source":
            suffix = Path(str(brief.get("origin_name", ""))).suffix
            problem = coverage_problem(suffix)
            update["verification"] = (
                f"coverage not checked: {problem}" if problem else
                f"coverage of {len(checklist_of(state))} exported name(s) checked; "
                f"examples are run for Python only")
        return update

    # -- critic ------------------------------------------------------------------------
    def critic(self, state: LoopState) -> dict[str, Any]:
        """The code checks, then the critic model, then the verdict of both. The checks
        come first: one that fails costs no model call. A retried or resumed node runs
        them again (they are deterministic).

        In advice mode the critic is asked only about a draft the checks pass: on one
        they refuse, its points could not change the verdict, and the next round repairs
        what the checks found, not what the critic said."""
        checked = self.checks(state)
        judged: LoopState = {**state, **checked}
        rubric = rubric_of(judged)
        stats: list[CallStat] = []
        refused = any(f["severity"] == "must_fix" for f in checked["findings"])
        answer = None
        if self.critic_mode == "gate" or not refused:
            answer = ask(self.models.get("critic"), "critic", critic_messages(judged, rubric),
                         critic_schema_of(rubric), stats)
        update = {**checked, **self.verdict(judged, answer, self.critic_mode)}
        update["calls"] = _calls(stats)
        return update

    @staticmethod
    def verdict(state: LoopState, answer: Any, mode: str) -> dict[str, Any]:
        """The score, the must_fix and the verdict from the code checks' findings and the
        critic's answer, as `mode` ("gate" or "advice") weighs the model. `answer` is
        None when the critic was not asked (advice on a draft the checks refuse)."""
        rubric = rubric_of(state)
        asked = answer is not None
        scores = answer.scores.model_dump() if asked else {}
        critic_score = rubric.weighted_score(scores) if asked else None
        findings = state.get("findings", [])
        judged = [state.get("draft", ""), *sources_of(state)]
        critic_must, echoes = checks.split_echoes(
            checks.sanitize_feedback(answer.must_fix if asked else []), judged)
        critic_improve, more = checks.split_echoes(
            checks.sanitize_feedback(answer.would_improve if asked else []), judged)
        must_fix = [f["message"] for f in findings if f["severity"] == "must_fix"]
        would_improve = [f["message"] for f in findings if f["severity"] == "warn"]
        if any(f["code"] in checks.NO_TEXT for f in findings):
            score = 0.0  # whatever a model says of it, no text scores nothing
        elif mode == "gate":
            score = critic_score
            must_fix += [m for m in critic_must if m not in must_fix]
        else:
            # Advice: the code checks carry the verdict; the model's points are passed on
            # to the writer as suggestions only.
            score = checks.code_score(findings, checklist_of(state))
            would_improve += critic_must
        would_improve += critic_improve
        if echoes + more:
            would_improve.append(checks.GENERIC_FEEDBACK)
        threshold = state["limits"]["threshold"]
        meets_bar = score >= threshold and not must_fix
        # Codes for the deterministic findings, normalised text for the model's own points:
        # the no-progress rule needs "the same problem" to compare equal across rounds.
        keys = sorted({f["code"] for f in findings if f["severity"] == "must_fix"}
                      | {checks.feedback_key(m) for m in must_fix
                         if m not in {f["message"] for f in findings}})
        update: dict[str, Any] = {
            "scores": scores,
            "critic_score": critic_score,
            "score": score,
            "must_fix": must_fix,
            "would_improve": would_improve,
            "meets_bar": meets_bar,
            "score_history": [score],
            "must_fix_history": [keys],
        }
        best = state.get("best")
        # a tie keeps the earlier draft: a later one was never shown to be better (and
        # the repairs of the earlier one may not have been tried yet)
        if best is None or (score, -len(must_fix)) > (best["score"],
                                                      -len(best.get("must_fix", []))):
            update["best"] = BestDraft(
                draft=state["draft"], score=score, round=state.get("round", 0),
                needs_from_human=state.get("needs_from_human", []),
                deviations=state.get("deviations", []), must_fix=must_fix)
        return update

    # -- review (human) ----------------------------------------------------------------
    def review(self, state: LoopState) -> dict[str, Any]:
        # Nothing with side effects may come before interrupt(): this node re-runs from
        # its first line when the thread is resumed.
        payload = inbox.payload(state)
        response = interrupt(payload)
        return apply_review_response(state, response)

    # -- finish ------------------------------------------------------------------------
    def finish(self, state: LoopState) -> dict[str, Any]:
        reason = final_reason(state)
        if reason == "rejected_by_human":
            return {"stop_reason": reason}
        approved = is_approved(reason)
        best = state.get("best")
        if approved or best is None:
            text, needs, score = state["draft"], state.get("needs_from_human", []), state["score"]
            must_fix = [] if approved else state.get("must_fix", [])
        else:
            text, needs, score = best["draft"], best["needs_from_human"], best["score"]
            must_fix = best.get("must_fix", [])
        answers = state.get("human_answers") or {}
        text = ph.fill(text, answers)
        update: dict[str, Any] = {"stop_reason": reason}
        finalizer = self.models.get("finalizer")
        if finalizer is not None and approved:
            text, stats = self._finalize(finalizer, text)
            update["calls"] = _calls(stats)
        # Open needs: placeholders still in the text (an entry for one the text does not
        # contain is a writer's mistake, already reported as must_fix, not a question).
        in_text = {ph.normalize(p) for p in ph.find(text)}
        open_needs = [n for n in needs if ph.normalize(n["placeholder"]) in in_text]
        brief = state["brief"]
        meta: dict[str, Any] = {
            "brief_id": brief["id"],
            "title": brief.get("title") or None,
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
        if state.get("writer_error"):
            meta["error"] = state["writer_error"]
        if not approved:
            # Not a finished text: it goes aside, with what is still wrong with it.
            uncovered = checks.check_requirements(text, checklist_of(state))
            meta["open_must_fix"] = list(must_fix) or None
            meta["uncovered_requirements"] = [
                f["code"].split(":", 1)[1] + ": " + r["text"] for f in uncovered
                for r in checklist_of(state) if r["id"] == f["code"].split(":", 1)[1]] or None
        meta = {k: v for k, v in meta.items() if v is not None}
        # What the run log reports is the text that was written, not the last round.
        update["final"] = {"score": score, "must_fix": list(must_fix), "needs": open_needs}
        if not text.strip():
            # No text, no file: an empty output would read as a finished text.
            update["output_path"] = None
            return update
        target = self.output_dir if approved else self.output_dir / NEEDS_WORK
        path = write_output(target, brief["id"], meta, text)
        if approved:
            # An earlier run's unfinished text of this brief is superseded now.
            (self.output_dir / NEEDS_WORK / path.name).unlink(missing_ok=True)
        update["output_path"] = str(path)
        return update

    def _finalize(self, model: RoleModel, text: str) -> tuple[str, list[CallStat]]:
        """Optional polish pass, kept only if it changed no fact the checks can see."""
        stats: list[CallStat] = []
        answer = ask(model, "finalizer", finalizer_messages(text),
                     FinalizerAnswer, stats)
        polished = answer.text
        same_placeholders = sorted(ph.find(polished)) == sorted(
            ph.find(text))
        no_new_numbers = checks.numbers_in(polished) <= checks.numbers_in(text)
        close_length = abs(checks.word_count(polished) - checks.word_count(text)) <= max(
            10, checks.word_count(text) // 10)
        if polished.strip() and same_placeholders and no_new_numbers and close_length:
            return polished, stats
        return text, stats


# -- the human review decision ------------------------------------------------------

def apply_review_response(state: LoopState, response: Any) -> dict[str, Any]:
    decision = inbox.decode(response)
    decision.setdefault("at", datetime.now(UTC).isoformat(timespec="seconds"))
    answers = {**(state.get("human_answers") or {}),
               **{k: str(v) for k, v in (decision.get("answers") or {}).items()
                  if str(v).strip()}}
    kind = decision["type"]
    if kind == "approve":
        # What is approved: the text the person was shown (for a run the machine could not
        # approve, its best draft), or the person's own version of it.
        shown = inbox.shown(state)
        draft = decision.get("draft", shown["draft"])
        needs = ph.needs_of(draft, shown["needs_from_human"])
        missing = [n["placeholder"] for n in ph.unanswered(needs, answers)]
        if missing:
            return {"human_answers": answers,
                    "decision": {"type": "invalid",
                                 "problem": "approve needs a value for " + ", ".join(missing)}}
        if "draft" not in decision and shown["must_fix"] and not decision.get("override"):
            return {"human_answers": answers, "decision": {"type": "invalid", "problem": (
                f"the machine could not approve this text ({shown['stopped']}); approving "
                f"it over what the checks still find needs an override reason")}}
        return {"human_answers": answers, "decision": decision, "draft": draft,
                "needs_from_human": needs, "deviations": shown["deviations"],
                "score": shown["score"], "stop_reason": "approved_by_human"}
    if kind == "reject":
        return {"decision": decision, "stop_reason": "rejected_by_human"}
    if kind == "revise":
        revisions = state.get("revisions", 0)
        limits = state["limits"]
        if revisions >= limits["max_revisions"]:
            return {"decision": {"type": "invalid", "problem":
                                 f"this thread has had {revisions} revisions, the limit "
                                 f"(loop.max_revisions)"}}
        notes = [n.strip() for n in str(decision.get("notes", "")).split("\n") if n.strip()]
        return {
            "human_answers": answers,
            "human_notes": [*state.get("human_notes", []), *notes],
            "must_fix": [f"A reviewer asks: {n}" for n in notes] or
                        ["A reviewer sent the text back: improve it."],
            "decision": decision,
            "revisions": revisions + 1,
            "meets_bar": False,
            # The text sent back is not a fallback any more: if the revision runs out of
            # rounds, the best of the new drafts is written, not the rejected one.
            "best": None,
            "limits": {**limits, "max_rounds": state.get("round", 0) + limits["max_rounds"]},
        }
    return {"decision": decision}
