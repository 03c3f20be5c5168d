"""How code reads a sentence: its words and numbers, their stems, its sentences, and
whether one says a thing the other way round (a negation, an opposite); and what code
measures of a text: its numbers, its word count, runs of words, a near copy. The
checklist, the checks, the repairs and the loop's no-progress rule read briefs and
drafts alike through these, so a number or a "near copy" means the same everywhere."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import Any

from batch import placeholders
from batch.reading.figures import LIST_MARKER, MONTHS, figures
from batch.reading.figures import NUMBER as NUMBER

WORD = re.compile(r"[^\W_]+(?:['’-][^\W_]+)*")
# a sentence ends at . ! ? (or just inside bold or italics: "**Closed.** Next"), before
# a capital, a digit, a quote or bold or italics opening the next one
_SENTENCE_END = re.compile(
    r"(?:(?<=[.!?])|(?<=[.!?][*_])|(?<=[.!?][*_]{2}))\s+(?=[*_]{0,2}[A-Z0-9\"'“(])"
)

STOPWORDS = frozenset(
    {
        "a",
        "an",
        "the",
        "and",
        "or",
        "but",
        "if",
        "then",
        "so",
        "than",
        "that",
        "this",
        "these",
        "those",
        "there",
        "here",
        "of",
        "to",
        "in",
        "on",
        "at",
        "by",
        "for",
        "from",
        "with",
        "without",
        "into",
        "onto",
        "over",
        "under",
        "about",
        "as",
        "is",
        "are",
        "was",
        "were",
        "be",
        "been",
        "being",
        "am",
        "do",
        "does",
        "did",
        "doing",
        "have",
        "has",
        "had",
        "having",
        "it",
        "its",
        "it's",
        "they",
        "them",
        "their",
        "theirs",
        "we",
        "us",
        "our",
        "ours",
        "you",
        "your",
        "yours",
        "he",
        "him",
        "his",
        "she",
        "her",
        "i",
        "me",
        "my",
        "mine",
        "who",
        "whom",
        "whose",
        "which",
        "what",
        "when",
        "where",
        "why",
        "how",
        "all",
        "any",
        "both",
        "each",
        "every",
        "few",
        "more",
        "most",
        "other",
        "some",
        "such",
        "no",
        "nor",
        "not",
        "only",
        "own",
        "same",
        "too",
        "very",
        "can",
        "will",
        "just",
        "should",
        "would",
        "could",
        "may",
        "might",
        "must",
        "shall",
        "also",
        "up",
        "down",
        "out",
        "off",
        "again",
        "further",
        "once",
        "one",
        "ever",
        "new",
        "please",
        "let",
        "make",
        "sure",
        "get",
        "got",
        "s",
        "t",
        "don't",
        "isn't",
        "aren't",
        "won't",
        "can't",
        "via",
        "per",
        "etc",
        "e.g",
        "i.e",
        "within",
        "before",
        "after",
        "while",
        "during",
        "until",
        "everyone",
        "everybody",
        "anyone",
        "anybody",
        "someone",
        "somebody",
        "people",
    }
)
# Opposites a contradiction can hide in (either direction), and negations.
OPPOSITES = (
    ("up", "down"),
    ("increase", "decrease"),
    ("rise", "fall"),
    ("rose", "fell"),
    ("grew", "shrank"),
    ("higher", "lower"),
    ("more", "fewer"),
    ("more", "less"),
    ("before", "after"),
    ("open", "closed"),
    ("opens", "closes"),
    ("open", "close"),
    ("allowed", "forbidden"),
    ("allowed", "banned"),
    ("earlier", "later"),
    ("gain", "loss"),
    ("include", "exclude"),
    ("includes", "excludes"),
    ("required", "optional"),
    ("always", "never"),
    ("true", "false"),
    ("above", "below"),
    ("maximum", "minimum"),
    ("inside", "outside"),
    ("enabled", "disabled"),
    ("mandatory", "optional"),
    ("free", "paid"),
    ("slow", "fast"),
    ("slim", "wide"),
    ("narrow", "wide"),
    ("small", "large"),
    ("light", "heavy"),
    ("hot", "cold"),
    ("short", "long"),
    ("early", "late"),
    ("cheap", "expensive"),
    ("online", "offline"),
    ("internal", "external"),
    ("weekday", "weekend"),
    ("morning", "afternoon"),
    ("morning", "evening"),
    ("add", "remove"),
    ("added", "removed"),
    ("accept", "reject"),
    ("accepted", "rejected"),
    ("win", "lose"),
    ("success", "failure"),
    ("safe", "unsafe"),
    ("copy", "original"),
    ("new", "existing"),
    ("still", "longer"),
)
NEGATIONS = re.compile(
    r"\b(?:not|never|no longer|cannot|can't|won't|don't|doesn't|isn't|aren't|wasn't|"
    r"weren't|mustn't|shouldn't|no|none|nobody|nothing|neither|nor|without)\b",
    re.IGNORECASE,
)
# Negations that do not reverse what they stand beside.
_LITOTES = re.compile(
    r"\b(?:don't|do not|never) forget\b|\bnot only\b|\bno later than\b|\bnot later than\b|"
    r"\bno matter\b|\bno more than\b|\bnot more than\b|\bno fewer than\b|\bno sooner\b",
    re.IGNORECASE,
)
# Words about the writing job, not about what the text must say.
META_TERMS = frozenset(
    {
        "need",
        "needs",
        "text",
        "write",
        "writ",
        "memo",
        "description",
        "descript",
        "copy",
        "draft",
        "brief",
        "wording",
        "words",
    }
)
# Past forms that no suffix rule reaches: "paid" is "pay", "not sold" denies "sell".
# words whose "ly" is no adverb's ending: cut, "reply" met "rep" and "apply" met "app"
_LY_WORDS = frozenset(
    {
        "reply",
        "apply",
        "supply",
        "comply",
        "multiply",
        "imply",
        "daily",
        "early",
        "family",
        "assembly",
        "italy",
        "rally",
        "tally",
        "belly",
        "jelly",
        "anomaly",
        "monopoly",
        "ally",
    }
)
_IRREGULAR = {
    "paid": "pay",
    "sold": "sell",
    "lost": "lose",
    "kept": "keep",
    "made": "make",
    "left": "leave",
    "sent": "send",
    "built": "build",
    "brought": "bring",
    "bought": "buy",
    "held": "hold",
    "told": "tell",
    "gave": "give",
    "given": "give",
    "took": "take",
    "taken": "take",
    "chose": "choose",
    "chosen": "choose",
    "wrote": "write",
    "written": "write",
    "began": "begin",
    "begun": "begin",
    "ran": "run",
    "met": "meet",
    "spent": "spend",
    "found": "find",
    "thought": "think",
    "won": "win",
    "shut": "shut",
    "grew": "grow",
    "grown": "grow",
    "rose": "rise",
    "risen": "rise",
    "fell": "fall",
    "fallen": "fall",
    "drove": "drive",
    "driven": "drive",
    "ate": "eat",
    "eaten": "eat",
    "flew": "fly",
    "flown": "fly",
}


# the names of days and months, and the short forms notes write them in ("Fri 3 May",
# "Mar–Aug", "Thurs"): a short form stands for its name
CALENDAR_NAMES = [
    "monday",
    "tuesday",
    "wednesday",
    "thursday",
    "friday",
    "saturday",
    "sunday",
    *MONTHS,
]
CALENDAR_SHORT = {
    short: full
    for full in CALENDAR_NAMES
    for short in {full[:3], full[:4], *({"tues", "thur", "thurs", "sept"} & {full[:4], full[:5]})}
    if short != full
}


def stem(word: str) -> str:
    """A light stemmer: enough to match close, closed, closes and closing, retire and
    retirement, and the past forms of common irregular verbs (paid, sold, kept)."""
    w = word.lower().replace("’", "'")
    if w.endswith("'s"):
        w = w[:-2]
    w = _IRREGULAR.get(w, w)
    if w in _LY_WORDS:  # "reply" is no "rep" + "ly": "replies" and "replied" give "reply"
        return w
    for suffix in ("ations", "ation", "ings", "ing", "edly", "ies", "ied", "ed", "es", "ly", "s"):
        if len(w) - len(suffix) >= 3 and w.endswith(suffix):
            w = w[: -len(suffix)] + ("y" if suffix in ("ies", "ied") else "")
            break
    return _without_ment(w)


def _without_ment(w: str) -> str:
    if len(w) >= 8 and w.endswith("ment"):  # retirement, announcement, implemented
        w = w[:-4]
    if len(w) > 3 and w.endswith("e"):
        w = w[:-1]
    return _single_l(w)


_VOWELS = re.compile(r"[aeiouy]+")


def _single_l(w: str) -> str:
    """British spelling doubles a final l before -ed and -ing ("cancelled",
    "travelling", "grovelling"): one l, in a word of two syllables or more, names
    the same word. A word of one ("spell", "fill") keeps its two."""
    if w.endswith("ll") and len(_VOWELS.findall(w[:-2])) >= 2:
        return w[:-1]
    return w


def restem(term: str) -> str:
    """A term `stem` gave before it took -ment off ("retirement"), or cut the "ly" of
    "reply", as it gives it now ("retir", "reply"): a thread's checklist is frozen when it
    starts."""
    if term in _CUT_LY:
        return _CUT_LY[term]
    return _without_ment(term) if term.endswith("ment") else _single_l(term)


# what `stem` once made of those words, where it names no other word ("app" and "ear" do)
_CUT_LY = {"rep": "reply", "supp": "supply", "dai": "daily", "fami": "family", "assemb": "assembly"}


def numbers_of(text: str) -> list[str]:
    """The figures a text states, each in its canonical form (batch.reading.figures): a
    small number written as a word included, so a brief's "5 brightness levels" is
    covered by "five brightness levels", its "20:00" by "8pm", its "6/6" by "6th June"."""
    return sorted(figures(text))


_PART = re.compile(r"[^\W_]+(?:['’][^\W_]+)?")


def content_terms(text: str) -> list[str]:
    """Stems of the words that carry meaning, in order, without repeats. Hyphenated
    words count by their parts: "warm-to-cool" is matched by "warm to cool"."""
    out: list[str] = []
    for word in _PART.findall(text):
        lw = word.lower()
        if lw in STOPWORDS or NUMBER.fullmatch(word) or len(lw) < 2:
            continue
        s = stem(lw)
        if s not in out and lw not in META_TERMS and s not in META_TERMS:
            out.append(s)
    return out


def stems_of(text: str) -> set[str]:
    return {stem(w) for w in _PART.findall(text)}


def sentences(text: str) -> list[str]:
    out: list[str] = []
    for line in text.splitlines():
        line = line.strip()
        if line:
            out += [s.strip() for s in _SENTENCE_END.split(line) if s.strip()]
    return out


# Words a negation reaches past to the word it denies: "is not yet allowed" denies
# "allowed", "no longer accepted" denies "accepted", "do not go to gate B" denies
# "gate". A light verb ("go", "get", "happen") says too little to be what is denied.
_PAST_NEGATION = STOPWORDS | frozenset(
    {
        "yet",
        "ever",
        "even",
        "always",
        "longer",
        "really",
        "necessarily",
        "actually",
        "currently",
        "usually",
        "go",
        "goes",
        "going",
        "went",
        "gone",
        "come",
        "comes",
        "get",
        "gets",
        "happen",
        "happens",
        "take",
        "takes",
        "apply",
        "applies",
        "single",
        "one",
    }
)
_NEGATION_WORD = re.compile(
    r"(?:not|never|cannot|can't|won't|don't|doesn't|didn't|isn't|aren't|wasn't|weren't|"
    r"mustn't|shouldn't|no|none|nobody|nothing|neither|nor|without)",
    re.IGNORECASE,
)
# "not confirmed until two nodes have stored it": a condition, which denies nothing
_CONDITION = frozenset({"until", "unless", "till"})
_CONDITION_REACH = 8  # words after the denied one that a condition must stand within


def negated_terms(text: str, terms: set[str]) -> set[str]:
    """The terms a negation in `text` denies: the first word after it that carries
    meaning ("work is not allowed": allowed; "no refunds": refund). A consequence says a
    word of its own there ("losing one node does not lose a message": lose), so it
    denies none of a brief's terms; a condition ("not confirmed until ...") denies
    nothing."""
    words = [w.lower() for w in WORD.findall(_LITOTES.sub(" ", text))]
    out: set[str] = set()
    for i, w in enumerate(words):
        if not _NEGATION_WORD.fullmatch(w):
            continue
        j = i + 1
        while j < len(words) and words[j] in _PAST_NEGATION and j - i <= 4:
            j += 1
        if j >= len(words) or _CONDITION & set(words[j + 1 : j + 1 + _CONDITION_REACH]):
            continue
        if stem(words[j]) in terms:
            out.add(stem(words[j]))
    return out


def negation_near(text: str, terms: set[str], near: int = 4) -> set[str]:
    """The terms with a negation within `near` words of them ("tools are not needed",
    "you will not need any tools"): where a text keeps a brief's negation in its own
    words. Looser than `negated_terms`, which says what a negation denies."""
    words = [w.lower() for w in WORD.findall(_LITOTES.sub(" ", text))]
    out: set[str] = set()
    for i, w in enumerate(words):
        if stem(w) in terms and any(
            _NEGATION_WORD.fullmatch(x) for x in words[max(0, i - near) : i + near + 1]
        ):
            out.add(stem(w))
    return out


def opposite_of(source: str, sentence: str) -> str | None:
    """A word in `sentence` whose opposite the `source` has, and the source not it."""
    src_words = {w.lower() for w in WORD.findall(source)}
    sen_words = {w.lower() for w in WORD.findall(sentence)}
    for a, b in OPPOSITES:
        for mine, theirs in ((a, b), (b, a)):
            # a sentence with both words ("fix it before Friday, report after") is
            # not saying the one instead of the other
            if (
                mine in sen_words
                and theirs not in sen_words
                and mine not in src_words
                and theirs in src_words
            ):
                return f"{mine!r} where the brief says {theirs!r}"
    return None


_RESTATES_NEGATION = re.compile(
    r"(?i)\?\s*$|\b(?:only|without|unless|except|if|until|till|instead|rather|otherwise|"
    r"either|neither|nor)\b"
)


def polarity_clash(source: str, sentence: str, terms: list[str]) -> str | None:
    """A negation or an opposite in `sentence` that the `source` does not have."""
    opposite = opposite_of(source, sentence)
    if opposite:
        return opposite
    if _RESTATES_NEGATION.search(sentence) or _RESTATES_NEGATION.search(source):
        # a question asserts nothing ("Is payroll affected?"), and a restriction or a
        # condition says a negation's other side ("members only" for "non-members can't
        # book", "without boots we can't let you in" for "safety boots"): the count of
        # negations says nothing either way
        return None
    wanted = set(terms)
    flipped = negated_terms(sentence, wanted) - negated_terms(source, wanted)
    if flipped and len(NEGATIONS.findall(sentence)) > len(NEGATIONS.findall(source)):
        return f"a negation the brief does not have (near {sorted(flipped)[0]!r})"
    # ... or the brief's negation gone: "no longer accepted" said as "still accepted"
    present = {stem(w) for w in WORD.findall(sentence)}
    dropped = (negated_terms(source, wanted) & present) - negated_terms(sentence, wanted)
    if dropped and len(NEGATIONS.findall(sentence)) < len(NEGATIONS.findall(source)):
        return f"no negation where the brief has one (near {sorted(dropped)[0]!r})"
    return None


# The readers as an ask of the brief speaks of them to the writer ("Ask everyone to RSVP
# … when they reply"). Not "them", as often the things they are asked about ("keep your
# receipts and claim them"); "they" only as the one who acts in a "when", "if",
# "before" … of the ask ("when they reply"), not the things or people it names ("tell
# their children that they must wear helmets", "so they can be checked")
THEY_TO_YOU = {"they": "you", "their": "your", "theirs": "yours", "themselves": "yourselves"}
_THEY_WORD = re.compile(r"(?i)\b(?:" + "|".join(THEY_TO_YOU) + r")\b")
_READERS_ACT = re.compile(
    r"(?i)\b(?:when|whenever|if|once|before|after|until|while|unless)"
    r"\s+$"
)
_PASSIVE = re.compile(r"(?i)^(?:\s+\w+)?\s+(?:be|been|being|is|are|was|were)\s+\w+(?:ed|en)\b")


def readers_they(text: str, at: int) -> bool:
    """The pronoun of `text` at `at` is the readers' "they" (see THEY_TO_YOU)."""
    m = _THEY_WORD.match(text, at)
    if m is None or _PASSIVE.match(text[m.end() :]):
        return False
    return m.group(0).lower() != "they" or _READERS_ACT.search(text[:at]) is not None


def to_you(word: str) -> str:
    said = THEY_TO_YOU[word.lower()]
    return said.capitalize() if word[0].isupper() else said


def said_to_readers(text: str) -> str:
    """An ask said to its readers: their "they" made "you" ("when they reply" -> "when
    you reply")."""
    return _THEY_WORD.sub(
        lambda m: to_you(m.group(0)) if readers_they(text, m.start()) else m.group(0), text
    )


# -- what code measures of a text -----------------------------------------------------


def numbers_in(text: str, words: bool = False) -> set[str]:
    """The figures a text gives (batch.reading.figures), but those inside placeholders
    and a numbered list's markers; `words`: numbers written as words too."""
    text = placeholders.without(text)
    text = LIST_MARKER.sub(r"\1", text)
    return set(figures(text, words=words))


def word_count(text: str) -> int:
    return len(WORD.findall(text))


def sentences_where(draft: str, test: Callable[..., Any]) -> list[str]:
    """The draft's sentences (list items and headings too, as the draft has them) for
    which `test` holds: what a repair rewrites or drops."""
    return [s for s in sentences(draft) if test(s)]


def words(text: str) -> list[str]:
    return [w.lower() for w in WORD.findall(placeholders.without(text))]


def grams(tokens: list[str], n: int) -> set[tuple[str, ...]]:
    return {tuple(tokens[i : i + n]) for i in range(max(0, len(tokens) - n + 1))}


def word_grams(text: str, n: int) -> set[tuple[str, ...]]:
    """The runs of n words of a text, lower-cased, placeholders left out."""
    return grams(words(text), n)


def is_degenerate(text: str | None) -> bool:
    """Empty, or runaway repetition of one or two tokens (seen from small models)."""
    stripped = (text or "").strip()
    tokens = stripped.split()
    return not stripped or len(set(stripped)) <= 4 or (len(tokens) > 5 and len(set(tokens)) <= 2)


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
