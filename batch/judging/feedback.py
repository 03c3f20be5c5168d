"""The critic model's feedback, made fit to pass on: empty, degenerate and echoed points
dropped, and a key by which the same point in two rounds compares equal."""

from __future__ import annotations

import re
from collections.abc import Iterable

from batch.judging.wording import is_degenerate, is_echo

GENERIC_FEEDBACK = "Re-read the brief and the rubric, and fix the weakest part of the text."


def sanitize_feedback(items: Iterable[str]) -> list[str]:
    """Drop empty items, replace degenerate ones with one generic instruction, dedupe."""
    out: list[str] = []
    for item in items:
        text = (item or "").strip()
        if not text:
            continue
        if is_degenerate(text):
            text = GENERIC_FEEDBACK
        text = text[:1000]
        if text not in out:
            out.append(text)
    return out


def split_echoes(items: list[str], texts: list[str]) -> tuple[list[str], int]:
    """(items that are real feedback, how many were echoes)."""
    kept = [i for i in items if not is_echo(i, texts)]
    return kept, len(items) - len(kept)


def feedback_key(item: str) -> str:
    return re.sub(r"\W+", " ", item.lower()).strip()
