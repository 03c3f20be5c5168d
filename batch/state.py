"""The one object the loop carries from node to node (and the checkpointer stores).

Lists that grow round by round use `operator.add` reducers, so each node returns only
what it adds. Counters (model calls, tokens) are derived from `calls`, never kept twice.
"""

from __future__ import annotations

import operator
from typing import Annotated, Any, NotRequired, TypedDict, cast

from batch.check_types import Addition, ChecklistFix, Finding, Requirement
from batch.outcomes import StopReason
from batch.thread_inputs import HouseRules, Limits, Rubric, ThreadBrief


class BestDraft(TypedDict):
    draft: str
    score: float
    round: int
    needs_from_human: list[dict[str, str]]
    deviations: list[dict[str, str]]
    must_fix: list[str]
    holds: NotRequired[list[str]]
    additions: NotRequired[list[Addition]]
    judgement: NotRequired[dict[str, Any]]  # batch.judging.record.Judgement of this draft


class FinalText(TypedDict):
    """What finish wrote: the run log reports these, not the last round's."""

    score: float  # the verdict's score: the critic's (gate) or the code checks' (else)
    critic_score: float | None  # None: the critic model was not asked
    must_fix: list[str]
    needs: list[dict[str, str]]


class LoopState(TypedDict, total=False):
    # fixed for the thread (a send-back gives more rounds and seconds: new Limits). A
    # dict: a thread started before these were typed; read them with
    # batch.thread_inputs.brief_of, rubric_of, house_rules_of, limits_of
    brief: ThreadBrief | dict[str, Any]
    rubric: Rubric | dict[str, Any]
    house_rules: HouseRules | dict[str, Any]
    limits: Limits | dict[str, Any]
    checklist: list[Requirement]  # built once (batch.judging.checklist), as read
    # a person's fixes to the checklist as read: what every check and page reads is the
    # list with these made (batch.judging.checklist.fixes.fixed)
    checklist_fixes: list[ChecklistFix]
    # the values a second reading of the brief says are for its readers (a model's
    # restatement, checked against the brief by code): a value missing from the text is
    # held only where this reading gives it too. Absent: the rules' reading alone
    read_values: list[str]
    # the brief's orders no check can hold a text to, for the person who reviews it
    # (batch.judging.checks.obey); absent: a thread started before they were kept
    unchecked_orders: list[str]
    # the current round
    round: int
    draft: str
    repeats: int  # rounds in a row whose draft was (almost) the draft before it
    writer_error: str  # a revision that never came back valid (the loop then ends)
    # the brief's model seconds ran out before the writer had a new draft: the loop ends
    # with the best one (batch.loop.routing)
    out_of_budget: bool
    deviations: list[dict[str, str]]
    needs_from_human: list[dict[str, str]]
    findings: list[Finding]
    judgement: dict[str, Any]  # batch.judging.record.Judgement: the draft's, made once
    verification: str  # what running code verified this round (API docs), or why not
    scores: dict[str, int]
    score: float  # the verdict's score: the critic's (gate) or the code checks' (else)
    critic_score: float | None  # None: the critic model was not asked
    must_fix: list[str]
    would_improve: list[str]
    holds: list[str]  # the findings a person must see before the text goes out
    additions: list[Addition]  # the sentences among them that add to the brief
    meets_bar: bool
    # across rounds
    score_history: Annotated[list[float], operator.add]
    must_fix_history: Annotated[list[list[str]], operator.add]
    calls: Annotated[list[dict[str, Any]], operator.add]
    # the seconds each writer and critic step spent outside model calls: the code checks,
    # the repairs' re-checks, an API doc's examples run in the sandbox
    check_seconds: Annotated[list[float], operator.add]
    example_seconds: Annotated[list[float], operator.add]  # API docs' examples run
    # what the writer did each round: the repairs tried (batch.loop.writing.kept.Attempt), the
    # first drafts sampled, a whole rewrite
    writer_log: Annotated[list[dict[str, Any]], operator.add]
    best: BestDraft | None
    # the human side
    human_answers: dict[str, str]
    human_notes: list[str]
    decision: dict[str, Any]
    revisions: int
    # the end
    stop_reason: StopReason
    output_path: str
    final: FinalText


def loop_state(values: dict[str, Any]) -> LoopState:
    """A checkpoint's values (LangGraph hands them over as a plain dict) as the loop's
    state: what the graph wrote is what LoopState declares."""
    return cast(LoopState, values)
