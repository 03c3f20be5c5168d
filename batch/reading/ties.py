"""What each figure of a brief is tied to: the words beside it in its clause ("closes at
3pm, reopens at 8am": 3:00 is the closing's, 8:00 the reopening's). A text that puts a
figure beside the words the brief ties to another figure of its kind, and none of its
own, has swapped them ("closes at 8am, reopens at 3pm"). A paraphrase that uses other
words beside a figure ties it to nothing the brief says, and is never taken for a swap.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from collections.abc import Set as AbstractSet

from batch.reading.figures import placed_figures

# the stemmer the caller reads words with (batch.judging.wording.stem): handed down, as
# this room imports nothing above it
Stem = Callable[[str], str]

_WORD = re.compile(r"[^\W\d_]+(?:['’][^\W\d_]+)?")
_CLAUSE_END = re.compile(r"[.;:!?\n|]|,\s|\s[-–—]\s|\band\b|\bbut\b|\bthen\b")
_BEFORE, _AFTER = 4, 3  # words beside a figure that tie it


def _kind(figure: str) -> str:
    return "time" if ":" in figure else "date" if "/" in figure else "number"


_ADDRESS = re.compile(r"\S+@\S+|\b(?:https?://|www\.)\S+")
_LABEL = re.compile(r"(?m)^[\s>*•-]*([^\W\d_][^\n:]{0,30}?):")
_NOT_FIGURES = frozenset({"1"})  # "one" is as often a pronoun


def ties(text: str, stem: Stem, skip: frozenset[str]) -> dict[str, set[str]]:
    """Each figure of `text` -> the stems of the words beside it in its clause (before
    it back to the clause's start or the figure before, a few after it up to the next),
    and its line's label ("Date: Thurs 14 November": "date"), without `skip` (words that
    tie nothing: stopwords, days and months). A figure with no words of its own before
    it shares the one's before it ("closed Fri 13th from 2pm": the closing's)."""
    text = _ADDRESS.sub(lambda m: " " * len(m.group(0)), text)
    labels = [(m.start(), m.group(1)) for m in _LABEL.finditer(text)]
    out: dict[str, set[str]] = {}
    placed = [p for p in placed_figures(text) if p[2] not in _NOT_FIGURES]
    previous: set[str] = set()
    for i, (start, end, figure) in enumerate(placed):
        lo = placed[i - 1][1] if i > 0 else 0
        hi = placed[i + 1][0] if i + 1 < len(placed) else len(text)
        before = text[lo:start]
        cut = list(_CLAUSE_END.finditer(before))
        before_words = _WORD.findall(before[cut[-1].end() :] if cut else before)[-_BEFORE:]
        after = text[end:hi]
        stop = _CLAUSE_END.search(after)
        words = before_words + _WORD.findall(after[: stop.start()] if stop else after)[:_AFTER]
        line_start = text.rfind("\n", 0, start) + 1
        words += [w for at, label in labels if at == line_start for w in _WORD.findall(label)]
        stems = {stem(w.lower()) for w in words if w.lower() not in skip}
        stems -= skip
        if not any(w.lower() not in skip for w in before_words) and not cut:
            stems |= previous
        previous = stems
        out.setdefault(figure, set()).update(stems)
    return out


def swapped(
    draft: str, brief: str, stem: Stem, skip: frozenset[str], stale: AbstractSet[str]
) -> list[tuple[str, str, set[str]]]:
    """The figures `draft` ties to what the brief ties to another figure of the same
    kind and to nothing of their own: (the figure, the other figure, the words)."""
    given = {f: w for f, w in ties(brief, stem, skip).items() if f not in stale and w}
    said = ties(draft, stem, skip)
    out = []
    for figure, words in said.items():
        own = given.get(figure)
        if own is None or not words or words & own:
            continue
        for other, theirs in given.items():
            if other == figure or _kind(other) != _kind(figure) or other not in said:
                continue
            shared = words & (theirs - own)
            if shared:
                out.append((figure, other, shared))
                break
    return out
