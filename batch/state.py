"""The one object the loop carries from node to node (and the checkpointer stores).

Lists that grow round by round use `operator.add` reducers, so each node returns only
what it adds. Counters (model calls, tokens) are derived from `calls`, never kept twice.
"""

from __future__ import annotations

import operator
from typing import Annotated, Any, Literal, NotRequired, TypedDict, cast

from batch.outcomes import StopReason
from batch.thread_inputs import HouseRules, Limits, Rubric, ThreadBrief

# What a brief asks, as the code checks it (batch.judging.checklist builds it)
Kind = Literal["fact", "ask", "missing", "gap", "api", "raises", "task", "style", "rule", "sign"]


class Requirement(TypedDict):
    id: str
    kind: Kind
    text: str
    terms: list[str]  # stems of the content words
    numbers: list[str]
    subject: str  # missing/gap: what is not known; api: the name; task: the lead phrase
    # fact/ask: its words no other item of the brief has ("meet", "once" of "Buddies meet
    # their new starter once a week" beside "Every new starter gets a buddy for 6 weeks")
    own: NotRequired[list[str]]


class Repair(TypedDict, total=False):
    """How the check that found a problem would have it fixed: one small, local change
    (batch.loop.repairs carries it out). Only `action` is always there."""

    action: Literal[
        "state", "rewrite", "drop", "shorten", "lengthen", "placeholder", "replace", "append"
    ]
    sentences: list[str]  # the sentences at fault, exactly as the draft has them
    goal: str  # what the new sentence must do, said to the model ("without the name X")
    fact: str  # state / rewrite: the brief's words the new sentence must say
    placeholder: str  # placeholder: the exact placeholder the sentence must carry
    words: int  # shorten / lengthen: the length limit the text must meet
    keep: list[str]  # shorten: stems of what the brief asks; a clause with none is a cut
    old: str  # replace: these exact words of the draft ...
    new: str  # ... by these; append: this last line (code does both; no model);
    # state: the brief's own sentence of the fact, which code says as it is when no
    # sentence of the model's holds


Severity = Literal["must_fix", "warn", "hold"]


class Finding(TypedDict):
    code: str  # stable key, e.g. "number:4.2" - the same problem gets the same code
    message: str
    # must_fix: blocks approval, the loop repairs it; warn: passed on as advice; hold:
    # nothing the writer can fix, but the text may not go out until a person has
    # looked (what the checks cannot vouch for: a brief they could not read)
    severity: Severity
    repair: NotRequired[Repair]
    # a sentence that adds what no source says: the sentence, and the words it adds
    sentence: NotRequired[str]
    added: NotRequired[list[str]]


class Addition(TypedDict):
    """A sentence of a draft that adds what the brief does not say, for a person to see."""

    n: int  # its place in the draft, from 1
    sentence: str
    added: list[str]  # the words it adds, as the draft writes them
    message: str  # the hold's message, as the holds list has it


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
    checklist: list[Requirement]  # built once (batch.judging.checklist)
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
    # what the writer did each round: the repairs tried (batch.loop.repairs.Attempt), the
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
