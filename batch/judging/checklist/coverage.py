"""Whether a draft covers a requirement of its checklist (`covered`), and the tests that
make it up: `signed_by` (a signature), `tells_gap` (a fact not known yet told as such),
`asks_readers` (an ask is asked of the readers), `clauses` (an item's clauses, each to
be said whole).

A requirement is covered when one sentence of the draft, or two adjacent ones, hold
every number it holds and at least half of its key terms (content words, lightly
stemmed), and keep its negation; a figure is said in a clause that names what it is
about ("processed within 5 days" is not "reaches the card within 5 days"). Lenient on
wording, since a paraphrase keeps most content words; strict on place, since a fact's
words scattered over the text (an "item" here, a "refund" there) do not tell the
reader the fact.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from batch.check_types import Requirement
from batch.judging.checklist.cues import (
    _LABEL_LINE,
    _ORDERS,
    _READERS_FIRST,
    _first_word,
    joined_clauses,
)
from batch.judging.checklist.missing import MISSING_CUE
from batch.judging.wording import (
    CALENDAR_NAMES,
    CALENDAR_SHORT,
    STOPWORDS,
    content_terms,
    negated_terms,
    negation_near,
    numbers_of,
    sentences,
    stem,
    stems_of,
)
from batch.reading.figures import loosened


def covered(req: Requirement, draft: str) -> bool:
    """The draft tells its readers what `req` asks for. A fact or an ask is covered
    only where its content is said together: in one sentence or two adjacent ones,
    every number it holds and at least half of its key terms, with its negation kept
    ("not refunded" is not covered by "refund" somewhere else). Words of it scattered
    over the text tell the reader nothing."""
    if req["kind"] == "sign":
        return signed_by(draft, req["subject"])
    if req["kind"] in ("api", "raises"):
        # a method may be written with its class: `Store.get` covers method Store.get
        owner = req["text"].split()[-1].rpartition(".")[0] if req["kind"] == "api" else ""
        prefix = rf"(?:{re.escape(owner)}\.)?" if owner else ""
        pattern = r"(?<![\w.])" + prefix + re.escape(req["subject"]) + r"(?!\w)"
        return re.search(pattern, draft) is not None
    windows = _windows(draft)
    if req["kind"] not in ("fact", "ask"):
        denied = negated_terms(req["text"], set(req["terms"]))
        return any(_says(req["terms"], req["numbers"], denied, w) for w in windows)
    if req["kind"] == "ask" and not _READERS_FIRST.match(req["text"]):
        # an ask is asked: "The team is eager to update the CRM by Friday" tells the
        # readers nothing they must do. One the brief words as a statement of what the
        # readers do ("Visitors park in the north car park") may be told the same way
        lead = stem(_first_word(req["text"]))
        windows = tuple(w for w in windows if asks_readers(w.text, lead))
    # a fact of several clauses ("the morning is a review, and the afternoon a
    # workshop, so bring a laptop") may be told over several places, each clause whole
    own = set(req.get("own", ()))
    for clause in clauses(req["text"]):
        terms, numbers = content_terms(clause), numbers_of(clause)
        denied = negated_terms(clause, set(terms))
        # what tells this item from the others must be there, half of it at least: a
        # sentence made of the words it shares with them says one of the others. Its
        # figures tell it apart already (asking half its own words beside them refused
        # 2 of 26 correct drafts of the judged set)
        mine = own & set(terms) if not numbers else set()
        codes = [
            re.compile(rf"(?i)(?<![\w-]){re.escape(c)}(?![\w-])")
            for c in _PRODUCT_CODE.findall(clause)
        ]
        # what a reader may do is the claim ("can cancel for a full refund"): a sentence
        # with the refund and without the cancelling says something else. (Not "must
        # use", "will wear": obligations and plans are paraphrased by their verb as
        # often as not, and asking for it refused 3 correct drafts of the judged set.)
        claims = {stem(m.group(1)) for m in _MODAL_VERB.finditer(clause)} & set(terms)
        measured = _measured(clause, terms) if len(numbers) == 1 else set()
        named = req["kind"] == "fact"
        members = [*_members(clause), *(_named(clause) if named else ())]
        titles = _titles(clause) if named else ()
        if not any(
            _says(terms, numbers, denied, w)
            and all(m & w.stems for m in members)
            and all(t.search(w.text) for t in titles)
            and 2 * len(mine & w.stems) >= len(mine)
            and all(c.search(w.text) for c in codes)
            and claims <= w.stems
            and _said_of(measured, numbers, w.text)
            for w in windows
        ):
            return False
    return True


_DATE_WORDS = frozenset(stem(w) for w in CALENDAR_NAMES)


def _measured(clause: str, terms: list[str]) -> set[str]:
    """The terms of a clause that say what its figure is about: not the figure's unit,
    the words written right after it ("5 working days", "48.50 euros", "27 June"), nor
    the names of days and months."""
    words = re.findall(r"[^\W_]+", clause)  # "28-litre" is a figure and its unit
    unit: set[str] = set()
    for i, word in enumerate(words):
        if not numbers_of(word):
            continue
        for after in words[i + 1 : i + 3]:
            if after.lower() in STOPWORDS or numbers_of(after):
                break
            unit.add(stem(after))
    return set(terms) - unit - _DATE_WORDS - _LIGHT_VERBS


# Verbs that say little of their own about a figure: "It takes about 15 minutes" is said
# by "lasting around 15 minutes", "Holds 0.9 litres" by "Capacity: 0.9 litres"
_LIGHT_VERBS = frozenset(
    stem(w)
    for w in (
        "take",
        "takes",
        "last",
        "lasts",
        "hold",
        "holds",
        "have",
        "has",
        "come",
        "comes",
        "give",
        "gives",
        "cost",
        "costs",
        "need",
        "needs",
        "weigh",
        "weighs",
        "measure",
        "measures",
        "run",
        "runs",
        "start",
        "starts",
        "begin",
        "begins",
        "end",
        "ends",
    )
)


def _said_of(measured: set[str], numbers: list[str], text: str) -> bool:
    """A figure is said of what the item says it of: the clause of the text that holds
    it holds a word of that too. "The refund will be processed within 5 working days"
    does not say "The money reaches the original card within 5 working days", though
    "the money" and "the card" stand in the sentences around it."""
    if not measured:
        return True
    before = ""
    for sentence in sentences(text):
        for part in joined_clauses(sentence):
            about = stems_of(part)
            # "It should arrive within 5 working days", "and then holds it there for
            # 30 minutes": what "it" is, the clause before says
            if _BACK_REFERENCE.search(part):
                about |= stems_of(before)
            if set(numbers) <= set(numbers_of(part)) and measured & about:
                return True
            before = part
    return False


_BACK_REFERENCE = re.compile(r"(?i)\b(?:it|they|them|this|these|those|he|she|him|there)\b")


# A model or part code ("CR2032", "IPX4", "USB3"): said as written or not at all, like
# a number
_PRODUCT_CODE = re.compile(r"(?<![\w-])(?:[A-Z]{2,}\d+[A-Z\d]*|\d+[A-Z]{2,}[A-Z\d]*)(?![\w-])")
_NAME_TOKEN = re.compile(r"[A-Za-z][\w'’-]*|[.!?:;,()\"“”]")
_NOT_NAMES = frozenset(w.lower() for w in (*CALENDAR_NAMES, *CALENDAR_SHORT)) | {
    "dr",
    "mr",
    "mrs",
    "ms",
    "prof",
}
_NAME_GLUE = frozenset({"of", "and", "the", "&"})
_QUOTED_TITLE = re.compile(r"[\"“‘]([A-Z][^\"”’\n]{2,80}?)[\"”’]")


@functools.lru_cache(maxsize=1024)
def _named(clause: str) -> tuple[frozenset[str], ...]:
    """What a fact names, as a reader would look for it: each run of capitalised words
    inside it (not its first word, not a day or a month, not "Dr"), of which at least one
    word must be said ("by Marta Lindqvist" is not told by the book's title alone)."""
    value = clause.split(":", 1)[1] if _LABEL_LINE.match(clause) else clause
    runs: list[list[str]] = []
    run: list[str] = []
    starts = True
    for m in _NAME_TOKEN.finditer(value):
        word = re.sub(r"['’]s$", "", m.group(0))
        lower = word.lower()
        if not word[0].isalpha():
            starts = word in '.!?:;"“”('
            if run:
                runs.append(run)
                run = []
            continue
        if word[0].isupper() and not starts and lower not in _NOT_NAMES | STOPWORDS:
            run.append(word)
        elif not (run and lower in _NAME_GLUE):
            if run:
                runs.append(run)
            run = []
        starts = False
    if run:
        runs.append(run)
    return tuple(n for n in (frozenset(content_terms(" ".join(r))) for r in runs) if n)


@functools.lru_cache(maxsize=1024)
def _titles(clause: str) -> tuple[re.Pattern[str], ...]:
    """The quoted titles of a clause ("Blue Carbon: What Seagrass Stores"), each to be
    written whole, as a title is: its words in order and capitalised as given (its
    punctuation may differ: "Blue Carbon - What Seagrass Stores"). A quoted sentence is
    not a title: most of a title's words are capitalised and it ends without a stop."""
    out = []
    for title in _QUOTED_TITLE.finditer(clause):
        words = re.findall(r"[\w'’]+", title.group(1))
        capitals = sum(w[0].isupper() for w in words if w.lower() not in STOPWORDS)
        if len(words) >= 2 and 2 * capitals > len(words) and not title.group(1).endswith("."):
            out.append(re.compile(r"(?<!\w)" + r"\W+".join(map(re.escape, words)) + r"(?!\w)"))
    return tuple(out)


_MODAL_VERB = re.compile(
    r"(?i)\b(?:can|cannot|can't|may)\s+"
    r"(?:(?:not|still|also|only|now|then|always|never|just|easily|be|been|get)\s+)*"
    r"([a-z]{3,})\b"
)


_ASKING = re.compile(
    r"(?i)\b(?:please|kindly|make sure|be sure|remember|don'?t forget|do not forget|must|"
    r"needs? to|have to|has to|should|(?:are|is|were) asked|we ask|ask(?:ed)? (?:you|everyone|"
    r"all|that)|remind\w*|required to|expected to|(?:can|could|would|will) you|"
    r"you(?:'ll| will)? need|let (?:us|me|them|him|her) know|join us|invit\w*|"
    r"welcome to|we(?:'d| would) love|rsvp|don'?t miss|be there|see you|"
    r"(?:look(?:ing)? forward to|hope to|(?:'d|would) love to) (?:seeing|see|meeting|meet|"
    r"welcoming|hearing from) you|(?:drop|stop|come|pop) (?:by|in|over))\b"
)
# A sentence to the readers may open with any of these, or with the words a brief opens
# its order with but that also open the writer's ("Use the side entrance", "Say hello")
_IMPERATIVES = frozenset(
    stem(w)
    for w in (
        *_ORDERS,
        "keep",
        "use",
        "avoid",
        "do",
        "don't",
        "take",
        "let",
        "make",
        "give",
        "say",
        "ask",
        "tell",
        "note",
        "see",
        "find",
        "get",
        "add",
        "read",
        "start",
        "go",
        "try",
        "write",
        "open",
        "close",
    )
)
_OPENING = re.compile(r"^[\s>*_#-]*(?:\d+[.)]\s+)?([^\W\d_]+(?:'[a-z]+)?)")


def asks_readers(text: str, lead: str = "") -> bool:
    """The text asks its readers to do something: a word that asks ("please", "make
    sure", "you will need"), or a sentence that opens with an order ("Reply by 5 May",
    or the verb of the ask itself)."""
    if _ASKING.search(text):
        return True
    for sentence in sentences(text):
        first = _OPENING.match(sentence)
        if first and (stem(first.group(1)) in _IMPERATIVES or stem(first.group(1)) == lead):
            return True
    return False


# Where an item's clauses split: where its list splits (a semicolon or a comma, not inside
# parentheses, not in a number: see cues._LIST_COMMA), and where a note's dash or arrow
# joins two things ("base can overheat -> fire risk")
_CLAUSE_BREAK = re.compile(r";|,(?!\d{3}\b)(?![^()]*\))|\s+(?:-{1,2}|–|—|->|→|=>)\s+")


def clauses(text: str) -> list[str]:
    """The clauses of an item, split at its commas and semicolons; a piece with fewer
    than two words of content ("not the lifts") stays with the one before it."""
    out: list[str] = []
    for piece in _CLAUSE_BREAK.split(text):
        if not piece.strip():
            continue
        if out and len(content_terms(piece)) < 2 and not numbers_of(piece):
            out[-1] += "," + piece
        else:
            out.append(piece)
    if len(out) > 1 and len(content_terms(out[0])) < 2:
        first = out.pop(0)
        out[0] = first + "," + out[0]
    return out or [text]


_LIST_AND = re.compile(r"(?i),\s*(?:and|or|&|plus)\s+|,\s*|\s+(?:and|or|&|plus)\s+")


def _members(clause: str) -> list[set[str]]:
    """The members of a list a clause holds ("leeks, potato and chives", "Wi-Fi, desk,
    lockers"): each said, not half of them. Only a list of three or more, and only its
    short members (a word or two of content, no figure: a longer piece is a clause of
    its own, judged by its words)."""
    value = clause.split(":", 1)[1] if ":" in clause else clause
    pieces = [p for p in _LIST_AND.split(value) if p.strip()]
    if len(pieces) < 3:
        return []
    out = []
    for piece in pieces:
        terms = content_terms(piece)
        if 1 <= len(terms) <= 2 and not numbers_of(piece):
            out.append(set(terms))
    return out if len(out) >= 2 else []


@dataclass(frozen=True)
class _Window:
    text: str
    numbers: frozenset[str]
    stems: frozenset[str]


@functools.lru_cache(maxsize=64)
def _windows(draft: str) -> tuple[_Window, ...]:
    """Each sentence of the draft, and each two adjacent ones: where a fact may be said."""
    said = sentences(draft) or [draft]
    texts = said + [f"{a} {b}" for a, b in zip(said, said[1:], strict=False)]
    # a time says its hour, a date its day: "9am to 1pm" tells "9 till 1"
    return tuple(
        _Window(t, frozenset(loosened(set(numbers_of(t)))), frozenset(stems_of(t))) for t in texts
    )


def _says(terms: list[str], numbers: list[str], denied: set[str], window: _Window) -> bool:
    if any(n not in window.numbers for n in numbers):
        return False
    found = sum(1 for t in terms if t in window.stems)
    # its figures are there, and figures are what a paraphrase keeps: beside one, a
    # word or two of it; beside two or more ("your 5- to 8-year-old" for "children
    # aged 5 to 8"), one
    if len(numbers) >= 2:
        if terms and found == 0:
            return False
    elif terms and not (numbers and len(terms) <= 2) and found * 2 < len(terms):
        return False
    return (
        not denied
        or bool(negation_near(window.text, denied))
        or any(re.search(rf"(?i)\b(?:non-?|un){re.escape(t)}", window.text) for t in denied)
    )


def signed_by(draft: str, who: str) -> bool:
    """The text ends with `who` as its signature: its words in order in the last three
    lines ("Dave, Facilities Manager" is signed "Dave" over "Facilities Manager"), on a
    line of its own or after a closing ("Thanks, Dave"), never inside a sentence ("This
    note is the facilities team."). The name is what must be there: "Dave" signs for
    "Dave, Facilities Manager", and "me, Anna Berg, Office Manager" is signed "Anna
    Berg"."""
    lines = [
        _CLOSING.sub("", _SIGN_MARKUP.sub("", ln)).strip().lower()
        for ln in draft.strip().splitlines()
        if _SIGN_WORD.search(ln)
    ]
    # a sign-off may have a contact block under it (a team, a phone, an address)
    lines = lines[-5:]
    parts = [p for p in re.split(r"\s*[,(]\s*|\s+[-–—]\s+", who.strip()) if p.strip(" )")]
    parts = [p for p in parts if p.lower().strip() not in ("me", "myself", "us")]
    # the brief's words around the name may be read with it ("Ana Lima at the bottom")
    named = _NAME_RUN.search(who)
    for want in dict.fromkeys([", ".join(parts), *parts[:1], *([named.group()] if named else [])]):
        # "sign it from the Facilities Team" is signed "Facilities Team" as well
        words = _SIGN_WORD.findall(re.sub(r"(?i)^\s*(?:the|our)\s+", "", want))
        if not words:
            continue
        name = (
            r"(?:(?:the|our)\s+|"
            + _HONORIFIC
            + r")?"
            + r"\W+".join(re.escape(w.lower()) for w in words)
        )
        for i, line in enumerate(lines):
            # it opens its line, and what follows on it is set apart ("Dave, Facilities
            # Manager", "Priya (Facilities)"), not a sentence going on
            # or it ends its line after a dash or a comma ("Hope you can make it – Deepa")
            opens = re.match(rf"{name}(?:\s*$|\s*[,(–—|-])", line)
            if not opens and not re.search(rf"[,–—-]\s*{name}\W*$", line):
                continue
            # what follows is a contact block, a line of a few words each, no more text
            if all(len(_SIGN_WORD.findall(ln)) <= 10 for ln in lines[i + 1 :]):
                return True
    return False


def unsigned_for_certain(draft: str, who: str) -> bool:
    """No sign-off can be `who`'s: the brief's signer has a name (capitalised words),
    and none of its words is in the text's last lines. A signer read without a name, or
    a name at the end in a form `signed_by` does not read, is for a person to look at."""
    names = _NAME_WORD.findall(who)
    tail = " ".join(draft.strip().splitlines()[-5:]).lower()
    return bool(names) and not any(
        re.search(rf"(?<!\w){re.escape(w.lower())}(?!\w)", tail) for w in names
    )


# a closing a signature may follow on its line: "Thanks,", "Best wishes -", "From"
_CLOSING = re.compile(
    r"(?i)^\W*(?:(?:with\s+)?(?:many\s+|kind\s+|best\s+|warm\s+)?(?:thanks|thank\s+you|"
    r"regards|wishes|best)(?:\s+again)?|cheers|sincerely|yours(?:\s+\w+)?|all\s+the\s+best|"
    r"love|from|signed|see\s+you(?:\s+there)?)\b[\s,.!:–—-]*"
)


_SIGN_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)*")
# the markup a sign-off line may wear: "**Dave**", "_Facilities Manager_", "> Dave", "- Dave"
_SIGN_MARKUP = re.compile(r"^[\s>*_~`#•-]+|[\s*_~`]+$|(?<=\w)[*_~`]+(?=[\s,]|$)")
# a name in a signer's words: capitalised, not a sentence's or an order's own word
_ORDER_WORDS = "The|Our|Me|From|Sign|Signed|Please|It"
_NAME_WORD = re.compile(
    rf"(?<![\w'’])(?!(?:{_ORDER_WORDS}|Us|And|Or|With|By)\b)[A-Z][^\W\d_]*(?:['’-][^\W\d_]+)*"
)
_NAME_RUN = re.compile(rf"(?!(?:{_ORDER_WORDS})\b)[A-Z][^\W\d_]*(?:\s+[A-Z][^\W\d_]*)*")
# a title before the name: "Dr Sarah Collins" signs for "Sarah Collins"
_HONORIFIC = r"(?:(?:dr|mr|mrs|ms|mx|miss|prof|professor|rev|sir|dame|cllr)\.?\s+)"


def tells_gap(draft: str, subject: str) -> bool:
    """The draft tells its readers that `subject` is not known (instead of a placeholder)."""
    want = set(content_terms(subject))
    return any(
        MISSING_CUE.search(s) and (not want or bool(want & stems_of(s))) for s in sentences(draft)
    )
