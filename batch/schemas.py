"""The structured answers the models must give, as pydantic models.

The JSON schema of each model is what constrains the model's output (Ollama's `format`,
llama.cpp's grammar); pydantic validates the parsed answer afterwards, because neither
grammar enforces every constraint (integer ranges, for one).
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, create_model

from batch.rubrics import Rubric


class Deviation(BaseModel):
    point: str = Field(description="the critique point you chose not to follow")
    reason: str = Field(description="why following it would make the text worse")


class HumanNeed(BaseModel):
    placeholder: str = Field(description="the exact placeholder as it appears in the draft")
    question: str = Field(description="what a person must supply to fill it")


class WriterAnswer(BaseModel):
    model_config = ConfigDict(extra="ignore")
    # No defaults: a required field is one the grammar makes the model write.
    draft: str = Field(description="the complete text, in Markdown")
    deliberate_deviations: list[Deviation]
    needs_from_human: list[HumanNeed]


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
    scores = create_model(
        f"Scores_{rubric.name.replace('-', '_')}",
        **{c.name: (int, Field(ge=lo, le=hi, description=c.description))
           for c in rubric.criteria},
    )
    # Problems before scores: the model names what is wrong, then scores with that in
    # view (scores-first made the small embedded model score every draft the same).
    return create_model(
        f"CriticAnswer_{rubric.name.replace('-', '_')}",
        __base__=CriticBase,
        must_fix=(list[str], ...),
        would_improve=(list[str], ...),
        scores=(scores, ...),
    )
