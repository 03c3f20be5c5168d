"""The values of a brief's item that a text can be held to with certainty: its figures
(batch.reading.figures) and its contact details (e-mail addresses, web addresses), but
the figures a correction or a message's frame makes stale (batch.reading.corrections)
and the figures of an order about the text itself ("under 150 words", "3 paragraphs").

And whether an item is plainly a fact for the readers, or a line the reader is unsure
of: chatter to the writer ("can you tidy it up", "thanks!", "my notes after the dash"),
a question, a correction, a filler ("um", "ok so"). A value missing from a plain fact is
a must-fix; one missing from a doubtful line is shown to a person.
"""

from __future__ import annotations

import re
from collections.abc import Set as AbstractSet

from batch.reading.corrections import in_frame
from batch.reading.figures import LIST_MARKER, loosened, placed_figures

EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
WEB = re.compile(r"(?i)\b(?:https?://|www\.)[^\s<>()\"']+[\w/]")
# a figure that measures the text, not the world: "under 150 words", "2 paragraphs"
_TEXT_MEASURE = re.compile(
    r"(?i)^[\s-]*(?:words?|characters?|chars?|lines?|sentences?|paragraphs?|bullets?|"
    r"bullet points?|points?\b(?=\s*(?:max|or|long|$)))\b"
)
# "one" is as often a pronoun as a figure ("not the on-off one")
_NOT_FIGURES = frozenset({"0", "1"})

# what marks a line as talk to the writer, not a fact for the readers
_CHATTER = re.compile(
    r"(?i)\b(?:can|could|would|will)\s+you\b|\bpl(?:ea)?se?\s+(?:write|make|turn|tidy|"
    r"keep|do|put|send|add|use|check|confirm)\b|\bpls\b|\bthx\b|\bthanks\b|\bcheers\b|"
    r"\bta\b!?|\bsorry\b|\bI(?:'ve|'m|'ll| think| guess| reckon)\b|\bmy notes?\b|"
    r"\bsee\b.{0,30}\bbelow\b|\bheads up\b|\bbtw\b|\bfyi\b|\b(?:um+|er+|erm|uh)\b|"
    r"\bok so\b|\byep\b|\bright\?|\?\s*$|\bno wait\b|\bactually\b|\bscratch that\b|"
    r"\bnot\s+[£$€]?\d|\bwas\s+[£$€]?\d|\bold\b|\bwrote:|^\s*\[\d|^#|\bpresent\s*:|"
    r"\battendees\s*:|\bapologies\s*:|\bmob(?:ile)?\s*:|\btranscript\b|\bvoice memo\b"
)


# a model or part code ("CR2032", "IPX4", "USB3"): said as written or not at all
PRODUCT_CODE = re.compile(r"(?<![\w-])(?:[A-Z]{2,}\d+[A-Z\d]*|\d+[A-Z]{2,}[A-Z\d]*)(?![\w-])")


def contacts(text: str) -> list[str]:
    """The e-mail and web addresses and the product codes of `text` (addresses
    lower-cased)."""
    found = [m.group(0).lower().rstrip(".") for m in (*EMAIL.finditer(text), *WEB.finditer(text))]
    return found + [m.group(0) for m in PRODUCT_CODE.finditer(text)]


def item_values(text: str, stale: AbstractSet[str]) -> list[str]:
    """The values of a brief's item a text must give: its figures (but stale ones, and
    those that measure the text itself) and its contact details."""
    if in_frame(text):
        return []
    plain = LIST_MARKER.sub(r"\1", EMAIL.sub(" ", WEB.sub(" ", text)))
    out = []
    for _, end, figure in placed_figures(plain):
        if figure in stale or figure in _NOT_FIGURES or _TEXT_MEASURE.match(plain[end:]):
            continue
        out.append(figure)
    return list(dict.fromkeys([*out, *contacts(text)]))


def values_said(draft: str) -> set[str]:
    """What a text gives of the values above, each in its looser forms too."""
    return loosened({f for _, _, f in placed_figures(draft)}) | set(contacts(draft))


def doubtful(text: str) -> bool:
    """The reader cannot be sure the item is a fact for the readers."""
    return _CHATTER.search(text) is not None
