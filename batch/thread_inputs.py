"""What a thread is given when it starts and keeps unchanged to its end: the brief as the
loop reads it, the rubric, the house rules and the limits, as typed models.

The checkpoint stores them as they are (the checkpointer's serializer is told these
types: `CHECKPOINT_TYPES`, batch.store.backends), with the fields the plain dicts of
earlier threads had, so code from before reads what this code writes. A thread started
before they were typed holds plain dicts, and so does a checkpoint read by a serializer
that does not know them; `brief_of`, `rubric_of`, `house_rules_of` and `limits_of` read
either form, so such a thread resumes as it was. Code reads these four through them,
never by key.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, model_validator

Severity = Literal["must_fix", "warn", "off"]
# what a sentence that adds to the brief does to the text: wait for a person, a warning
AdditionSeverity = Literal["hold", "warn", "off"]
Review = Literal["when_needed", "unfinished", "always", "never"]
_NAME = re.compile(r"^[a-z][a-z0-9_]*$")


class ThreadBrief(BaseModel):
    """A brief as the loop reads it: its text, or the source file it documents."""

    model_config = ConfigDict(frozen=True)

    id: str
    title: str = ""
    text: str = ""
    kind: Literal["brief", "source"] = "brief"
    source_text: str = ""
    # a source file by its own name (how it is checked), and its own path, so its
    # examples run beside its siblings ("" when it is not a file on this machine)
    origin_name: str = ""
    source_path: str = ""
    min_words: int | None = None
    max_words: int | None = None


class Criterion(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str
    weight: float = Field(gt=0)
    description: str

    @model_validator(mode="after")
    def _name_is_identifier(self) -> Criterion:
        if not _NAME.match(self.name):
            raise ValueError(f"criterion name {self.name!r} must be lower_snake_case")
        return self


class Rubric(BaseModel):
    """The criteria the critic scores, their weights and scale, and the pass mark. The
    model only gives per-criterion scores; `weighted_score` turns them into 0-100 here."""

    model_config = ConfigDict(extra="forbid")
    name: str
    description: str = ""
    scale: tuple[int, int] = (1, 5)
    threshold: float = Field(75, ge=0, le=100)
    number_check: Severity = "must_fix"
    additions: AdditionSeverity = "hold"
    # how many words no source gives make a sentence an addition (docs/benchmarks.md)
    additions_words: int = Field(2, ge=1, le=12)
    criteria: list[Criterion] = Field(min_length=1)
    # the file's text, for the brief's fingerprint; not kept in the checkpoint
    text: str = Field("", exclude=True)

    @model_validator(mode="after")
    def _check(self) -> Rubric:
        lo, hi = self.scale
        if lo >= hi:
            raise ValueError("scale must be [low, high] with low < high")
        names = [c.name for c in self.criteria]
        if len(set(names)) != len(names):
            raise ValueError("criterion names must be unique")
        return self

    def weighted_score(self, scores: dict[str, int]) -> float:
        """0-100, computed in code from the critic's per-criterion scores."""
        lo, hi = self.scale
        total = sum(c.weight for c in self.criteria)
        acc = 0.0
        for c in self.criteria:
            value = scores[c.name]
            if not lo <= value <= hi:
                raise ValueError(f"score for {c.name} is {value}, outside {lo}..{hi}")
            acc += c.weight * (value - lo) / (hi - lo)
        return round(100.0 * acc / total, 1)

    def as_prompt(self) -> str:
        lo, hi = self.scale
        mid = (lo + hi) // 2
        lines = [
            f"Rubric: {self.name}. {self.description}".strip(),
            f"Score each criterion with a whole number: {lo} = fails it, {mid} = "
            f"acceptable with clear gaps, {hi} = fully meets it, nothing to add.",
        ]
        for c in self.criteria:
            lines.append(f"- {c.name} (weight {c.weight:g}): {c.description}")
        return "\n".join(lines)


class HouseRules(BaseModel):
    """A house rules file: the critic reads `text` whole; code enforces its banned
    phrases."""

    model_config = ConfigDict(frozen=True)

    name: str
    text: str
    # named as a thread kept it before this model: a checkpoint or a queued message this
    # code writes is read by the code before it too (a rollback, an older worker)
    banned: tuple[str, ...] = ()

    @property
    def banned_phrases(self) -> tuple[str, ...]:
        return self.banned


class Limits(BaseModel):
    """How far a thread may go: rounds, send-backs, model seconds, when a person looks.
    The defaults are what a thread started before a limit existed behaves as."""

    model_config = ConfigDict(frozen=True)

    max_rounds: int
    no_progress_rounds: int
    review: Review
    threshold: float
    max_revisions: int
    drafts: int = 1
    repair_samples: int = 2  # 0: no repairs, every round a whole rewrite
    # the rounds a send-back gives when the person names none (the configured
    # max_rounds; max_rounds itself grows with each send-back); None: max_rounds
    rounds_per_revision: int | None = None
    # model seconds the thread may spend in all (None: no limit; grows by
    # model_seconds_per_revision with each send-back)
    max_model_seconds: float | None = None
    model_seconds_per_revision: float | None = None
    # whether a round's rewrite is paid for when the last brought no gain (loop.spend)
    spend: Literal["where_it_pays", "every_round"] = "every_round"

    @property
    def revision_rounds(self) -> int:
        """The rounds a send-back gives when the person names none."""
        return self.rounds_per_revision or self.max_rounds


# the state's keys these models are kept under
KEPT: dict[str, type[BaseModel]] = {
    "brief": ThreadBrief,
    "rubric": Rubric,
    "house_rules": HouseRules,
    "limits": Limits,
}
# what the checkpointer's serializer may rebuild from a checkpoint (batch.store.backends)
_REBUILT: list[type[BaseModel]] = [*KEPT.values(), Criterion]
CHECKPOINT_TYPES = tuple((__name__, m.__name__) for m in _REBUILT)


M = TypeVar("M", bound=BaseModel)


def _read(value: Any, model: type[M]) -> M:
    return value if isinstance(value, model) else model.model_validate(value)


def brief_of(state: Mapping[str, Any]) -> ThreadBrief:
    return _read(state["brief"], ThreadBrief)


def rubric_of(state: Mapping[str, Any]) -> Rubric:
    return _read(state["rubric"], Rubric)


def house_rules_of(state: Mapping[str, Any]) -> HouseRules:
    return _read(state["house_rules"], HouseRules)


def limits_of(state: Mapping[str, Any]) -> Limits:
    return _read(state["limits"], Limits)
