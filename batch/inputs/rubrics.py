"""Rubrics read from their TOML files (the model, `Rubric`, is batch.thread_inputs's: a
thread keeps its rubric in its state)."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

from pydantic import ValidationError

from batch.errors import ConfigError, InputError
from batch.thread_inputs import AdditionSeverity, Criterion, Rubric, Severity

__all__ = ["AdditionSeverity", "Criterion", "Rubric", "Severity", "load_rubric"]


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
