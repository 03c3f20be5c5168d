"""Rubrics: the criteria the critic scores, their weights and scale, and the pass mark.

The model only gives per-criterion scores; `weighted_score` turns them into 0-100 here.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from batch.errors import ConfigError, InputError

Severity = Literal["must_fix", "warn", "off"]
# what a sentence that adds to the brief does to the text: wait for a person, a warning
AdditionSeverity = Literal["hold", "warn", "off"]
_NAME = re.compile(r"^[a-z][a-z0-9_]*$")


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


def load_rubric(directory: Path, name: str) -> Rubric:
    if not re.match(r"^[A-Za-z0-9_-]+$", name):
        raise InputError(f"unknown rubric {name!r}: a rubric name is letters, digits, - and _")
    path = directory / f"{name}.toml"
    if not path.is_file():
        known = ", ".join(sorted(p.stem for p in directory.glob("*.toml"))) or "none"
        raise InputError(f"unknown rubric {name!r} (known in {directory}: {known})")
    try:
        text = path.read_text(encoding="utf-8")
        data = tomllib.loads(text)
        data.setdefault("name", name)
        rubric = Rubric.model_validate(data)
    except (tomllib.TOMLDecodeError, ValidationError, OSError, UnicodeDecodeError) as e:
        raise ConfigError(f"{path}: invalid rubric: {e}") from None
    rubric.text = text
    return rubric
