"""House rules: a markdown file the critic reads whole, some of it checked by code.

Under a heading `## Banned phrases`, every list item is a phrase the draft must not
contain (case-insensitive); the code checks (run first in the critic node) enforce those,
not the model.
"""

from __future__ import annotations

import re
from pathlib import Path

from batch.errors import InputError
from batch.thread_inputs import HouseRules

__all__ = ["HouseRules", "load_house_rules", "parse_banned_phrases"]

_HEADING = re.compile(r"^#{1,6}\s+(.*?)\s*$")
_ITEM = re.compile(r"^\s*[-*]\s+(.*?)\s*$")


def parse_banned_phrases(text: str) -> tuple[str, ...]:
    phrases: list[str] = []
    in_section = False
    for line in text.splitlines():
        heading = _HEADING.match(line)
        if heading:
            in_section = heading.group(1).strip().lower() == "banned phrases"
            continue
        item = _ITEM.match(line) if in_section else None
        if item:
            phrase = item.group(1).strip().strip("\"'“”`").strip()
            if phrase:
                phrases.append(phrase)
    return tuple(phrases)


def load_house_rules(directory: Path, name: str) -> HouseRules:
    if not re.match(r"^[A-Za-z0-9_-]+$", name):
        raise InputError(f"unknown house rules {name!r}")
    path = directory / f"{name}.md"
    if not path.is_file():
        raise InputError(f"unknown house rules {name!r} (no {path})")
    text = path.read_text(encoding="utf-8")
    return HouseRules(name=name, text=text.strip(), banned=parse_banned_phrases(text))
