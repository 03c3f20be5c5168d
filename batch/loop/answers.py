"""The structured answers the models must give, as pydantic models.

The JSON schema of each model is what constrains the model's output (Ollama's `format`,
llama.cpp's grammar); pydantic validates the parsed answer afterwards, because neither
grammar enforces every constraint (integer ranges, for one).
"""

from __future__ import annotations

import re
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, create_model

from batch import placeholders
from batch.inputs.rubrics import Rubric

MAX_ITEMS = 8


class Deviation(BaseModel):
    point: str = Field(description="the critique point you chose not to follow")
    reason: str = Field(description="why following it would make the text worse")


class HumanNeed(BaseModel):
    # The pattern is enforced by llama.cpp's grammar too, so even a small model can only
    # write a well-formed placeholder here (batch.placeholders).
    placeholder: str = Field(
        description="the exact placeholder as it appears in the draft",
        pattern=placeholders.SCHEMA_PATTERN,
    )
    question: str = Field(description="what a person must supply to fill it")


_DEVIATIONS = re.compile(r"(?im)^[ \t]*(?:[*_#]+[ \t]*)?deviations[*_]*[ \t]*:[*_]*[ \t]*$")
_DEVIATION_LINE = re.compile(r"^\s*(?:[-*•]|\d+[.)])?\s*(.+?)\s*(?::|—|–| - )\s+(.+?)\s*$")


class WriterAnswer(BaseModel):
    """The writer's answer. It comes as plain text (`from_text`): the draft, then,
    only when it chose not to follow a critique point, a DEVIATIONS: section. The
    placeholders the text holds are listed by code (batch.placeholders.with_unlisted)."""

    model_config = ConfigDict(extra="ignore")
    # No defaults: a required field is one the grammar makes the model write. The missing
    # facts come first: a model that has named them writes their placeholders into the
    # draft; asked after the draft, a small model forgets to list what it wrote.
    needs_from_human: list[HumanNeed] = Field(max_length=MAX_ITEMS)
    draft: str = Field(description="the complete text, in Markdown")
    # maxItems bounds what the grammar lets a small model repeat: without it one runaway
    # list fills max_tokens and the answer is cut off mid-JSON.
    deliberate_deviations: list[Deviation] = Field(max_length=MAX_ITEMS)

    @classmethod
    def from_text(cls, text: str) -> WriterAnswer:
        """The draft and its deviations from a plain-text answer. A deviation line that
        does not read "point: reason" is kept whole as the point, its reason unknown."""
        parts = _DEVIATIONS.split(text, maxsplit=1)
        deviations: list[Deviation] = []
        if len(parts) == 2:
            for line in parts[1].splitlines():
                if not line.strip():
                    continue
                m = _DEVIATION_LINE.match(line)
                point, reason = (
                    (m.group(1), m.group(2)) if m else (line.strip(" -*•"), "no reason given")
                )
                deviations.append(Deviation(point=point, reason=reason))
        return cls(
            needs_from_human=[],
            draft=parts[0].strip(),
            deliberate_deviations=deviations[:MAX_ITEMS],
        )


class RepairAnswer(BaseModel):
    """The new words only: one sentence or one paragraph."""

    model_config = ConfigDict(extra="ignore")
    text: str


class ParameterDoc(BaseModel):
    name: str
    meaning: str


class DocAnswer(BaseModel):
    """One public name of a source file, documented."""

    model_config = ConfigDict(extra="ignore")
    summary: str
    parameters: list[ParameterDoc] = Field(max_length=MAX_ITEMS)
    example: str


class FinalizerAnswer(BaseModel):
    model_config = ConfigDict(extra="ignore")
    text: str


class CriticBase(BaseModel):
    model_config = ConfigDict(extra="ignore")


def critic_schema(rubric: Rubric) -> type[CriticBase]:
    """A critic answer with one integer field per rubric criterion.

    One named field per criterion (rather than a free list) lets the grammar force the
    model to score every criterion and no other.
    """
    lo, hi = rubric.scale
    scores = create_model(  # type: ignore[call-overload]  # fields named at run time
        f"Scores_{rubric.name.replace('-', '_')}",
        # An enum, not minimum/maximum: llama.cpp's grammar enforces enums but not
        # integer bounds, and a small model does answer 0 on a 1-5 scale.
        **{
            c.name: (Literal[tuple(range(lo, hi + 1))], Field(description=c.description))
            for c in rubric.criteria
        },
    )
    # Problems before scores: the model names what is wrong, then scores with that in
    # view (scores-first made the small embedded model score every draft the same).
    return create_model(
        f"CriticAnswer_{rubric.name.replace('-', '_')}",
        __base__=CriticBase,
        must_fix=(list[str], Field(max_length=MAX_ITEMS)),
        would_improve=(list[str], Field(max_length=MAX_ITEMS)),
        scores=(scores, ...),
    )


_CRITIC_SCHEMAS: dict[tuple[Any, ...], type[CriticBase]] = {}


def critic_schema_of(rubric: Rubric) -> type[CriticBase]:
    """`critic_schema(rubric)`, built once per rubric: building a pydantic model takes
    milliseconds, and every round of every brief of a batch asks for the same one. The
    key is all the schema is made of."""
    key = (
        rubric.name,
        tuple(rubric.scale),
        tuple((c.name, c.description) for c in rubric.criteria),
    )
    schema = _CRITIC_SCHEMAS.get(key)
    if schema is None:
        if len(_CRITIC_SCHEMAS) >= 64:  # rubrics edited under a long-lived process
            _CRITIC_SCHEMAS.clear()
        schema = _CRITIC_SCHEMAS[key] = critic_schema(rubric)
    return schema
