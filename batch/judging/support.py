"""What each sentence of a draft rests on: the support map.

For every sentence, the checklist items it carries and the words it *adds*: content words
no source gives (the brief, its title, a person's answers), by the checks' own stems. A
sentence that adds several such words says something the brief never said more often
than not: a feature, a motive, a benefit, an instruction to the readers. bench/additions
measures how often, per sentence, on texts the loop wrote, labelled by hand. That is good
enough to decide which texts a person must see, and which sentences to show them; it is
not good enough to refuse a text on its own, so the check built on it
(`checks.support.Additions`) holds, it does not reject.

The rubric's and the house rules' words are not sources: counted as known, they hid the
writer's talk about its own text ("This text adheres to all the given rules") and
separated invented sentences no better. Greetings and closings ("Dear residents,", "Kind
regards,") are glue: they claim nothing.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable
from dataclasses import dataclass

from batch import placeholders
from batch.check_types import Requirement
from batch.judging.checklist import covered
from batch.judging.wording import (
    CALENDAR_NAMES,
    CALENDAR_SHORT,
    NUMBER,
    STOPWORDS,
    content_terms,
    sentences,
    stem,
    stems_of,
)
from batch.reading.figures import said_otherwise
from batch.reading.values import values_said

# the kinds of item a sentence carries: what the text must tell
_CARRIED = frozenset({"fact", "ask", "gap", "sign"})
_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)?")
# a greeting, a sign-off, thanks: said by every letter, about nothing in the world
_GLUE = re.compile(
    r"(?i)^(?:dear|hi|hello|hey|good\s+(?:morning|afternoon|evening))\b[^.!?]{0,60}[,!:]?$"
    r"|^(?:(?:with\s+)?(?:best|kind|warm|many)\s+(?:regards|wishes|thanks)|regards|cheers|"
    r"sincerely|yours(?:\s+(?:sincerely|faithfully|truly))?|thanks|thank\s+you|"
    r"all\s+the\s+best|best)\b[^.!?]{0,40}[,.!]?$"
)


# The words of stock business English that claim nothing about the world: how a letter
# opens, closes, thanks, announces and schedules ("We are pleased to announce", "will take
# place", "feel free to contact us", "due to"). Written from common usage, not from any
# one text; bench/additions measures them on sentences they were not chosen on.
STOCK_WORDS = frozenset(
    stem(w)
    for w in re.findall(
        r"\w+",
        "take place taking took held due currently recently still usual usually remain "
        "remains unchanged scheduled aware pleased delighted excited thrilled happy glad "
        "announce share report inform informing writing let know hope finds well look "
        "looking forward feel free reach contact hesitate question questions concern "
        "concerns assistance information help thank thanks appreciate understanding "
        "cooperation patience support apologise apologize sorry inconvenience caused "
        "dear grateful gratitude "
        "note kindly please available offer offers include including provide allow "
        "located want need like between regarding following detail details below above "
        "also just simply find out more",
    )
)
_ORDINAL = re.compile(r"(?i)^\d+(?:st|nd|rd|th)$")

# The words that make a claim a reader acts on: a benefit or an offer (free, lunch,
# prizes), a promise or an absolute (guaranteed, always, 24/7), a property of a product
# (waterproof), a change of status (cancelled, exempt, frozen). A sentence that adds one
# of these that no source gives, greeting and sign-off included, waits for a person;
# other words a sentence adds are a writer's own ("sounds", "head out", "heads-up") and
# are shown, not held. Written from common usage by class, not from any one text;
# bench/unseen measures them on briefs they were not chosen on.
CLAIM_WORDS = frozenset(
    stem(w)
    for w in re.findall(
        r"[\w-]+",
        # benefits and offers
        "free complimentary discount discounted cheaper half-price refund refunded "
        "reimburse reimbursed exempt waived bonus prize prizes reward rewards gift gifts "
        "voucher vouchers giveaway upgrade upgraded lunch breakfast dinner supper food drinks "
        "drink coffee tea snacks refreshments cake cakes pizza buffet wine champagne "
        "transport taxi taxis shuttle minibus coach accommodation hotel childcare creche "
        "day-off lieu overtime "
        # promises and absolutes
        "guarantee guaranteed guarantees promise promised always never permanent "
        "permanently forever unlimited lifetime round-the-clock definitely certainly "
        "assured "
        # properties a product is said to have
        "waterproof water-resistant windproof eco-friendly organic certified award-winning "
        "bestselling best-selling durable unbreakable hypoallergenic recyclable "
        "biodegradable handmade vegan gluten-free lightest strongest fastest cheapest "
        # changes of status and consequences
        "cancelled canceled postponed delayed extended increased reduced installed approved "
        "penalty penalties banned compulsory mandatory",
    )
)


CLAIM_PHRASES = re.compile(
    r"(?i)\b(?:(?:a|an|the|extra|half)\s+)?(?:days?|time|afternoon|morning)\s+off\b"
    r"|\bpaid\s+for\s+by\b|\bat\s+no\s+(?:extra\s+)?(?:cost|charge)\b|\bno\s+charge\b"
    r"|\bon\s+(?:us|me|the\s+house|the\s+company)\b|\bfor\s+nothing\b"
)


@dataclass(frozen=True)
class SentenceSupport:
    """One sentence of a draft, and what it rests on."""

    n: int  # its place in the draft, from 1
    text: str
    items: tuple[str, ...]  # the ids of the checklist items it carries
    added: tuple[str, ...]  # the words it uses that no source gives, as written
    glue: bool  # a greeting or a closing
    # of `added`, the words that make a claim a reader acts on (CLAIM_WORDS)
    claims: tuple[str, ...] = ()
    # the values of the sources it gives (figures, addresses, names): what it is about
    values: tuple[str, ...] = ()

    def as_dict(self) -> dict[str, object]:
        return {
            "n": self.n,
            "text": self.text,
            "items": list(self.items),
            "added": list(self.added),
            "glue": self.glue,
            "claims": list(self.claims),
            "values": list(self.values),
        }


def known_stems(texts: Iterable[str]) -> frozenset[str]:
    """Every stem the sources give: a sentence may use these without adding anything."""
    out: set[str] = set()
    for text in texts:
        out |= stems_of(text or "")
    # "Mon-Fri" gives "Monday to Friday", and "Monday" gives "Mon"
    out |= {stem(CALENDAR_SHORT[s]) for s in out if s in CALENDAR_SHORT}
    out |= {short for short, full in CALENDAR_SHORT.items() if stem(full) in out}
    return frozenset(out)


def added_words(sentence: str, known: frozenset[str]) -> tuple[str, ...]:
    """The content words of `sentence` that no source gives, as written, in order, each
    once. Placeholders ask, they add nothing; figures are the number check's."""
    out: list[str] = []
    seen: set[str] = set()
    for word in _WORD.findall(placeholders.without(sentence)):
        low = word.lower()
        if low in STOPWORDS or NUMBER.fullmatch(word) or _ORDINAL.match(word) or len(low) < 2:
            continue
        if (
            low.endswith("s")
            and low[:-1] in STOPWORDS
            and re.search(r"\w-" + re.escape(word) + r"\b", sentence)
        ):
            continue  # the plural end of a compound: "walk-ins", "sign-ups", "add-ons"
        if not content_terms(word):  # a word the checks never count (meta words)
            continue
        s = stem(low)
        if s in known or s in seen or s in STOCK_WORDS:
            continue
        seen.add(s)
        out.append(word)
    return tuple(out)


def pieces(sentence: str, added: Iterable[str]) -> list[tuple[str, bool]]:
    """The sentence cut into (text, whether it is a word the sentence adds), in order:
    what a page or a terminal marks."""
    words = [w for w in added if w]
    if not words:
        return [(sentence, False)]
    pattern = re.compile(r"(?<![\w'’])(?:" + "|".join(map(re.escape, words)) + r")(?![\w'’])")
    out: list[tuple[str, bool]] = []
    last = 0
    for m in pattern.finditer(sentence):
        if m.start() > last:
            out.append((sentence[last : m.start()], False))
        out.append((m.group(0), True))
        last = m.end()
    if last < len(sentence):
        out.append((sentence[last:], False))
    return out


def marked(sentence: str, added: Iterable[str]) -> str:
    """The sentence as plain text, each word it adds in «»: for a message or a sheet."""
    return "".join(f"«{text}»" if is_added else text for text, is_added in pieces(sentence, added))


def is_glue(sentence: str) -> bool:
    return bool(_GLUE.match(sentence.strip()))


def carried_items(sentence: str, checklist: list[Requirement]) -> tuple[str, ...]:
    """The items a sentence carries: it tells the item by the checks' own rule, or it
    holds half the item's words at least (an item told over two sentences is carried by
    each)."""
    mine = stems_of(sentence)
    out: list[str] = []
    for r in checklist:
        if r["kind"] not in _CARRIED:
            continue
        terms = set(r["terms"])
        if (terms and 2 * len(terms & mine) >= len(terms)) or covered(r, sentence):
            out.append(r["id"])
    return tuple(out)


def support_map(
    draft: str, checklist: list[Requirement], sources: Iterable[str]
) -> list[SentenceSupport]:
    """The support map of `draft`: each sentence, the items it carries, the words it adds."""
    sources = list(sources)
    known = known_stems(sources)
    given = source_values(tuple(sources))
    out = []
    for n, s in enumerate(sentences(draft), start=1):
        added = added_words(s, known)
        out.append(
            SentenceSupport(
                n=n,
                text=s,
                items=carried_items(s, checklist),
                added=added,
                glue=is_glue(s),
                claims=claims_in(s, known),
                values=values_given(s, given),
            )
        )
    return out


# a name as a sentence writes it: capitalised, of any script ("Poznań", "O'Neill")
_NAME = re.compile(r"(?<![\w'’])[^\W\d_a-z][^\W_]+(?:['’-][^\W_]+)*")


@functools.lru_cache(maxsize=64)
def source_values(sources: tuple[str, ...]) -> tuple[frozenset[str], frozenset[str]]:
    """The values the sources give: their figures and addresses (in the forms a text may
    write them), and the names they write with a capital. The same for every round and
    repair candidate of a thread: read once."""
    figures: set[str] = set()
    names: set[str] = set()
    for text in sources:
        figures |= values_said(text or "")
        names |= {w.lower() for w in _NAME.findall(text or "")}
    names -= STOPWORDS | {w.lower() for w in CALENDAR_NAMES} | set(CALENDAR_SHORT)
    return frozenset(said_otherwise(figures)), frozenset(names)


def values_given(sentence: str, given: tuple[frozenset[str], frozenset[str]]) -> tuple[str, ...]:
    """The values of the sources `sentence` gives: a figure or an address, or a name
    written inside it (not the capital that opens it)."""
    figures, names = given
    text = placeholders.without(sentence)
    out = sorted(values_said(text) & figures)
    for m in _NAME.finditer(text):
        if m.start() > 0 and m.group(0).lower() in names:
            out.append(m.group(0))
    return tuple(dict.fromkeys(out))


def claims_in(sentence: str, known: frozenset[str]) -> tuple[str, ...]:
    """The claim words (CLAIM_WORDS) `sentence` uses that no source gives, as written;
    "24/7" and "24 hours" too, which `added_words` leaves to the figures."""
    out = []
    # "feel free to contact us", "free to ask": an idiom, no benefit
    idiom = re.search(r"(?i)\bfeel\s+free\b|\bfree\s+to\s+\w", sentence) is not None
    for word in re.findall(r"[^\W_]+(?:[-'’][^\W_]+)*", placeholders.without(sentence)):
        if idiom and word.lower() == "free":
            continue
        s = stem(word.lower())
        parts = [stem(p) for p in re.split(r"[-'’]", word.lower())]
        claim = s in CLAIM_WORDS or any(p in CLAIM_WORDS for p in parts[1:])
        if claim and s not in known and not all(p in known for p in parts if p in CLAIM_WORDS):
            out.append(word)
    if re.search(r"\b24\s*/\s*7\b|\b24\s+hours?\s+a\s+day\b", sentence) and not {"24"} <= known:
        out.append("24/7")
    # an offer said in a phrase, not a word: "a day off", "paid for by the company"
    for m in CLAIM_PHRASES.finditer(placeholders.without(sentence)):
        if not all(stem(w.lower()) in known for w in re.findall(r"\w+", m.group(0))):
            out.append(m.group(0))
    return tuple(dict.fromkeys(out))
