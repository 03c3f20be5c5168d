"""The code checks of the loop's state: what they are given (`context_of`), the state
update they make (`findings_update`), and the one validator of a person's own version of
the text (`edit_problems`), used by the review node and by `review.answer` alike."""

from __future__ import annotations

import hashlib
import json
from collections import OrderedDict
from pathlib import Path
from typing import Any

from batch import placeholders
from batch.check_types import Requirement
from batch.judging import checks, record
from batch.judging.checklist import build_checklist
from batch.judging.checklist.fixes import fixed
from batch.judging.record import Judgement
from batch.judging.wording import restem
from batch.prompting import critique_texts, instruction_texts
from batch.source_files import is_python, suffix_of
from batch.state import LoopState
from batch.thread_inputs import brief_of, house_rules_of, rubric_of


def checklist_of(state: LoopState) -> list[Requirement]:
    """The thread's frozen checklist (threads started before it existed build it now),
    its terms stemmed as drafts are stemmed today."""
    if "checklist" not in state:
        return fixed(build_checklist(brief_of(state)), state.get("checklist_fixes", []))
    out: list[Requirement] = []
    for r in state["checklist"]:
        r = {**r, "terms": [restem(t) for t in r["terms"]]}
        if "own" in r:
            r["own"] = [restem(t) for t in r["own"]]
        out.append(r)
    return fixed(out, state.get("checklist_fixes", []))


def sources_of(state: LoopState) -> list[str]:
    """Every text a number in the draft may legitimately come from."""
    brief = brief_of(state)
    answers = state.get("human_answers") or {}
    limits = [str(n) for n in (brief.min_words, brief.max_words) if n]
    return [brief.text, brief.title, brief.source_text, *limits, *answers.values()]


def context_of(state: LoopState) -> checks.CheckContext:
    """The state's draft and everything the checks judge it against."""
    brief = brief_of(state)
    rubric = rubric_of(state)
    origin = brief.origin_name
    kind_source = brief.kind == "source"
    python = is_python(origin)
    return checks.CheckContext(
        draft=state.get("draft", ""),
        needs=list(state.get("needs_from_human", [])),
        sources=tuple(sources_of(state)),
        number_severity=rubric.number_check,
        addition_severity=rubric.additions,
        addition_words=rubric.additions_words,
        deviations=tuple(state.get("deviations", [])),
        min_words=brief.min_words,
        max_words=brief.max_words,
        banned_phrases=house_rules_of(state).banned_phrases,
        brief=brief.text if not kind_source else "",
        checklist=checklist_of(state),
        prompt_texts=tuple(instruction_texts(state, rubric)),
        critique=tuple(critique_texts(state)),
        answered=tuple((state.get("human_answers") or {}).keys()),
        source_code=brief.source_text if python else "",
        module=Path(origin).stem,
        source_path=Path(brief.source_path) if python and brief.source_path else None,
        source_suffix=suffix_of(origin) if kind_source else "",
        read_values=frozenset(state["read_values"]) if "read_values" in state else None,
        set_aside=tuple(f["read"] for f in state.get("checklist_fixes", [])),
    )


def findings_update(state: LoopState) -> dict[str, Any]:
    """The judgement of the state's draft (batch.judging.record), and its findings and
    what running its examples verified: the state update they make."""
    made = record.judged(context_of(state))
    # always set: a draft whose checks ran nothing must not keep an earlier one's note
    return {
        "findings": made["findings"],
        "judgement": made,
        "verification": made.get("verification", ""),
    }


def findings_of(state: LoopState, draft: str, needs: list[dict[str, str]]) -> Judgement:
    """The judgement of `draft` (with `needs`) as the state's draft."""
    return record.judged(context_of({**state, "draft": draft, "needs_from_human": needs}))


# An edit is checked before the thread is resumed (to refuse it at once) and again by the
# review node, in the same process, which then records what running its examples showed;
# an API doc's checks run its examples in a sandbox, seconds each time. A clean result is
# kept for those looks, keyed by the whole edited state, and taken out by the approval
# that uses it: a refused edit is not kept (no node follows it), so the same edit sent
# again is checked afresh, as is any other text or value. (Not batch.judging.record's
# cache: that keeps refusals too, and a person who sends an edit again after an example
# timed out must get it run again.)
_EDIT_CHECKS: OrderedDict[str, tuple[list[str], str]] = OrderedDict()
_EDIT_CHECKS_KEPT = 8


def _checked_edit(
    state: LoopState, text: str, answers: dict[str, str], *, take: bool
) -> tuple[list[str], str]:
    """The must-fix messages that stand in a person's own version of the text, and what
    running its examples showed."""
    edited: LoopState = {
        **state,
        "draft": text,
        "needs_from_human": placeholders.needs_of(text, []),
        "human_answers": {**(state.get("human_answers") or {}), **answers},
        # the writer's account is of its draft, not of a person's own version
        "deviations": [],
    }
    key = hashlib.sha256(
        json.dumps(edited, sort_keys=True, default=repr).encode("utf-8", "surrogatepass")
    ).hexdigest()
    kept = _EDIT_CHECKS.pop(key, None) if take else _EDIT_CHECKS.get(key)
    if kept is None:
        judged = checks.judge(context_of(edited))
        kept = [f["message"] for f in judged.unvouched()], judged.verification or ""
        if not kept[0] and not take:
            _EDIT_CHECKS[key] = kept
            while len(_EDIT_CHECKS) > _EDIT_CHECKS_KEPT:
                _EDIT_CHECKS.popitem(last=False)
    return list(kept[0]), kept[1]


def edit_problems(state: LoopState, text: str, answers: dict[str, str]) -> list[str]:
    """What the code checks find in a person's own version of the text, the
    placeholders counted as answered by `answers`: the must-fix messages that stand
    (a figure or a name the person wrote is theirs to vouch for)."""
    return _checked_edit(state, text, answers, take=False)[0]


def edit_verification(state: LoopState, text: str, answers: dict[str, str]) -> str:
    """What running the examples of a person's own version showed, for the approval
    that takes it (the run log must not keep the note of a draft it replaced)."""
    return _checked_edit(state, text, answers, take=True)[1]
