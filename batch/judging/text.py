"""What code measures of a text: its numbers, words, sentences and runs of words.

Shared by the checks, the repairs and the loop's no-progress rule, so a number or a
"near copy" means the same everywhere.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from batch import placeholders as ph
from batch.judging import wording
from batch.judging.wording import NUMBER, WORD

_LIST_MARKER = re.compile(r"^(\s*)\d+[.)]\s", re.MULTILINE)


def numbers_in(text: str) -> set[str]:
    text = ph.without(text)
    text = _LIST_MARKER.sub(r"\1", text)
    return {wording.normalize_number(m.group(0)) for m in NUMBER.finditer(text)}


def word_count(text: str) -> int:
    return len(WORD.findall(text))


def sentences_where(draft: str, test) -> list[str]:
    """The draft's sentences (list items and headings too, as the draft has them) for
    which `test` holds: what a repair rewrites or drops."""
    return [s for s in wording.sentences(draft) if test(s)]


def words(text: str) -> list[str]:
    return [w.lower() for w in WORD.findall(ph.without(text))]


def grams(tokens: list[str], n: int) -> set[tuple[str, ...]]:
    return {tuple(tokens[i:i + n]) for i in range(max(0, len(tokens) - n + 1))}


def word_grams(text: str, n: int) -> set[tuple[str, ...]]:
    """The runs of n words of a text, lower-cased, placeholders left out."""
    return grams(words(text), n)


def is_degenerate(text: str | None) -> bool:
    """Empty, or runaway repetition of one or two tokens (seen from small models)."""
    stripped = (text or "").strip()
    tokens = stripped.split()
    return (
        not stripped
        or len(set(stripped)) <= 4
        or (len(tokens) > 5 and len(set(tokens)) <= 2)
    )


def shingles(text: str, n: int = 4) -> set[tuple[str, ...]]:
    """The runs of n words of a text, placeholders' words included."""
    return grams([w.lower() for w in WORD.findall(text)], n)


def is_echo(item: str, texts: Iterable[str], share: float = 0.7) -> bool:
    """A "problem" that is mostly a copy of the draft or brief says nothing about either.

    Small models under a JSON grammar often fill must_fix with sentences lifted from the
    text they judge; taken as must_fix they would block approval for no reason.
    """
    mine = shingles(item)
    if len(mine) < 3:
        return False
    theirs: set[tuple[str, ...]] = set()
    for text in texts:
        theirs |= shingles(text)
    return len(mine & theirs) / len(mine) >= share
