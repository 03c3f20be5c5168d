"""The types the code checks speak in: what a brief asks (Requirement), what a check
finds (Finding) and how it would be repaired (Repair), a sentence that adds to the brief
(Addition). Plain typed dicts over the standard library alone: an API doc's examples run
in a sandbox that imports batch.judging.doc_examples and nothing of the virtualenv."""

from __future__ import annotations

from typing import Literal, NotRequired, TypedDict

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


class ChecklistFix(TypedDict):
    """A person's fix to one item of a brief's checklist as read
    (batch.judging.checklist.fixes), as a thread's state and the run-log database keep it."""

    item: str  # the item's id where it was fixed ("R4"), for the record
    read: str  # the words the item was read from: what the fix holds for
    was: str  # the kind it was read as
    action: Literal["drop", "kind", "value"]
    kind: str  # "kind": the kind it is (a name of fixes.KIND_NAMES); else ""
    value: str  # "value": its words as they should read; else ""
    by: NotRequired[str]
    at: NotRequired[str]


class Repair(TypedDict, total=False):
    """How the check that found a problem would have it fixed: one small, local change
    (batch.loop.writing.repairs carries it out). Only `action` is always there."""

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
