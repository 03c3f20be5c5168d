"""The brief's orders to the writer, obeyed: what it says to leave out is not in the text,
a length it sets for each piece is kept. Not copying an order is the echo check's;
carrying it out is this one's ("no prices" means no price, "don't mention
integrations" means none, "keep each blurb under 35 words" is a limit).

An order code cannot turn into a rule ("friendly, not gushing", "name in bold, then two
lines") is never checked by pretending: `unchecked_orders` lists it for the person who
reviews the text."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from batch.check_types import Finding, Requirement
from batch.judging import wording
from batch.judging.brief_lines import logical_lines
from batch.judging.checklist import COVERED_KINDS
from batch.judging.checks.base import Check, CheckContext, rewrite
from batch.judging.orders import MONEY, PRICE_WORDS, left_out
from batch.judging.wording import content_terms, sentences_where, stem

_EMOJI = re.compile("[\U0001f300-\U0001faff\u2600-\u27bf]")
# "keep each blurb under 35 words", "each under 40 words", "max 30 words each"
_EACH_LIMIT = re.compile(
    r"(?i)\beach\b[^.;]{0,30}?\b(?:under|below|max(?:imum)?|at\s+most|no\s+more\s+than|"
    r"up\s+to|less\s+than|fewer\s+than|within|<)\s*(\d{1,4})\s*words?"
    r"|\b(?:under|max(?:imum)?|at\s+most|no\s+more\s+than|up\s+to|<)\s*(\d{1,4})\s*words?"
    r"\s+(?:each|apiece|per\s+\w+)"
)


@dataclass(frozen=True)
class Forbidden:
    """What one leave-out order keeps out of the text."""

    order: Requirement
    stems: frozenset[str] = field(default_factory=frozenset)  # its subject's words
    exact: tuple[str, ...] = ()  # names and figures it gives to be left out
    money: bool = False  # "no prices": no amount of money at all
    marks: str = ""  # "!" for "no exclamation marks"
    compares: bool = False  # "don't compare it with other brands": no comparison
    # the words of what it gives to be left out that no item of the brief says ("Leave
    # out the roadmap: mobile support comes in the autumn"): two of them in a sentence
    withheld: frozenset[str] = field(default_factory=frozenset)

    def hits(self, sentence: str) -> str | None:
        """What of this order's the sentence says, or None."""
        plain = sentence.replace("*", "")
        if self.money and (m := MONEY.search(plain)):
            return m.group(0)
        for e in self.exact:
            if re.search(rf"(?i)(?<!\w){re.escape(e)}(?!\w)", plain):
                return e
        if self.compares and (m := _COMPARING.search(plain)):
            return m.group(0)
        # by the first letters of a long word too: "integrations" and "integrates"
        # stem apart ("integr", "integrat")
        stems = {s[:5] if len(s) >= 5 else s for s in wording.stems_of(plain)}
        mine = {s[:5] if len(s) >= 5 else s for s in self.stems}
        if mine and (mine <= stems if len(mine) <= 2 else len(mine & stems) >= 2):
            return " ".join(sorted(mine & stems))
        withheld = {s[:5] if len(s) >= 5 else s for s in self.withheld}
        if len(withheld & stems) >= min(2, len(withheld)) and withheld & stems:
            return " ".join(sorted(withheld & stems))
        if "!" in self.marks and "!" in plain:
            return "!"
        if "☺" in self.marks and (m := _EMOJI.search(plain)):
            return m.group(0)
        return None

    @property
    def checkable(self) -> bool:
        return bool(
            self.stems or self.exact or self.money or self.marks or self.compares or self.withheld
        )


def forbidden_by(order: Requirement, checklist: list[Requirement]) -> Forbidden:
    """What a leave-out order keeps out: the names and figures it gives to be left out
    ("the landlord is Gerald Pike but leave his name out": "Gerald Pike"), all money for
    "no prices", "!" for "no exclamation marks", and the words of what it speaks of when
    no fact of the brief says them ("don't mention integrations": "integration")."""
    text = order["text"]
    about, given = left_out(text)
    said = {t for r in checklist if r["kind"] in COVERED_KINDS for t in r["terms"]}
    # what the brief's own facts give is no leave-out of this order's ("SKU: RL-28-GRN"
    # beside "Capacity: 28 L": the 28 stays, the code goes)
    facts = " ".join(r["text"] for r in checklist if r["kind"] in ("fact", "ask"))
    exact = tuple(
        sorted(
            e
            # the amounts it gives, or names in its own words ("the usual price of £9"),
            # a code as a whole ("RL-28-GRN"), a figure on its own
            for e in {m.group(0) for m in MONEY.finditer(given or text)}
            | {n for n in _names(given)}
            | {m.group(0) for m in _CODE_OR_FIGURE.finditer(given)}
            if not re.search(rf"(?i)(?<![\w-]){re.escape(e)}(?![\w-])", facts)
        )
    )
    lowered = text.lower()
    compares = stem("compare") in about or "comparing" in lowered
    plain = about - said - PRICE_WORDS - _GENERIC - {stem("compare"), stem("comparing")}
    return Forbidden(
        order=order,
        stems=frozenset() if re.search(r"(?i)exclamation|emoji", text) else frozenset(plain),
        exact=exact,
        # "no prices" keeps out all money; "don't mention the old price (was £75)" only
        # the amount it gives: the new price is the text's to say
        money=bool(about & PRICE_WORDS)
        and not (about - PRICE_WORDS - said - _GENERIC)
        and not MONEY.search(given or text)
        and not _ONE_PRICE.search(text),
        marks=("!" if "exclamation" in lowered else "") + ("☺" if "emoji" in lowered else ""),
        compares=compares,
        withheld=frozenset(
            t
            for t in content_terms(MONEY.sub(" ", given))
            if len(t) >= 4 and t not in said and t not in _GENERIC and not t.isdigit()
        ),
    )


_CODE_OR_FIGURE = re.compile(
    r"(?<![\w-])(?:[A-Za-z0-9]+(?:-[A-Za-z0-9]+)+|\d+(?:[.,]\d+)*%?)(?![\w-])"
)
_ONE_PRICE = re.compile(
    r"(?i)\b(?:old|previous|former|usual|original|normal|regular|last\s+year['’]?s?)\s+"
    r"(?:prices?|costs?|fees?|rates?|figures?)\b"
)
# words that say too little alone to be what an order leaves out
_GENERIC = frozenset(
    stem(w)
    for w in ["old", "new", "other", "any", "some", "one", "more", "less", "us", "we", "them"]
)
_COMPARING = re.compile(
    r"(?i)\b(?:than|unlike|compared|compare[sd]?|comparison|versus|vs\.?|competitors?|"
    r"rivals?|other\s+(?:brands?|makes?|shops?|cleaners?|companies|firms|suppliers|products))\b"
)


def _names(text: str) -> set[str]:
    """Names a phrase gives: runs of capitalised words not at its start ("Kaiyo
    Appliances", "Gerald Pike", "BrightHome")."""
    out = set()
    for m in re.finditer(r"(?<![.!?]\s)(?<!^)\b([A-Z][\w'’-]*(?:\s+[A-Z][\w'’-]*)*)", text.strip()):
        word = m.group(1)
        if word.lower() not in wording.STOPWORDS and len(word) > 2 and word not in ("It", "The"):
            out.add(word)
    return out


def check_orders(draft: str, checklist: list[Requirement]) -> list[Finding]:
    out: list[Finding] = []
    for order in checklist:
        if order["kind"] != "rule":
            continue
        if order["subject"] == "leave_out":
            out += _left_in(draft, forbidden_by(order, checklist))
        elif order["subject"] == "length":
            out += _pieces_too_long(draft, order)
    return out


def _left_in(draft: str, rule: Forbidden) -> list[Finding]:
    hits = [(what, s) for s in wording.sentences(draft) if (what := rule.hits(s))]
    if not hits:
        return []
    what, where = hits[0]
    # a name, a figure, money or a mark it leaves out is found for certain; the words of
    # what it speaks of may be said of something else: a person reads those
    certain = rule.money or what in rule.exact or what in ("!", "☺") or bool(_EMOJI.match(what))
    return [
        Finding(
            code=f"left-in:{rule.order['id']}",
            severity="must_fix" if certain else "hold",
            message=f"The brief says {rule.order['text'][:120]!r}, but the text has {what!r} "
            f"({where[:100]!r}): leave it out.",
            repair=rewrite(
                [s for _, s in hits],
                f"leaves out what the brief says to leave out: {rule.order['text'][:100]}",
            ),
        )
    ]


def each_limit(order: Requirement) -> int | None:
    m = _EACH_LIMIT.search(order["text"])
    return int(m.group(1) or m.group(2)) if m else None


def _pieces_too_long(draft: str, order: Requirement) -> list[Finding]:
    limit = each_limit(order)
    if not limit:
        return []
    pieces = [p for p in re.split(r"\n\s*\n|\n(?=#)", draft) if wording.word_count(p) > 0]
    long = [p for p in pieces if wording.word_count(p) > limit]
    if not long:
        return []
    return [
        Finding(
            code=f"piece-too-long:{order['id']}",
            severity="must_fix",
            message=f"The brief says {order['text'][:80]!r}, but a piece of the text has "
            f"{wording.word_count(long[0])} words ({long[0].strip()[:60]!r}…): cut it.",
            repair=rewrite(
                sentences_where(long[0], lambda s: True)[-1:],
                f"keeps the piece under {limit} words",
            ),
        )
    ]


def unchecked_orders(checklist: list[Requirement]) -> list[str]:
    """The brief's orders to the writer no check can hold the text to (a tone, a layout,
    what to leave out when it names nothing code can find): for the person who reviews
    it to read against the text."""
    out = []
    for r in checklist:
        if r["kind"] == "style" or (r["kind"] == "rule" and r["subject"] in ("tone", "layout")):
            out.append(r["text"])
        elif r["kind"] == "rule" and r["subject"] == "leave_out":
            if not forbidden_by(r, checklist).checkable:
                out.append(r["text"])
        elif (
            r["kind"] == "rule"
            and r["subject"] == "length"
            and not each_limit(r)
            and not re.search(r"\d", r["text"])
        ):
            out.append(r["text"])
    return out


class Obeyed(Check):
    """What the brief's orders say to leave out is not in the text (a price after "no
    prices", a name it gives to be left out, the subject of "don't mention …"), and a
    length it sets for each piece is kept. Orders no check can hold a text to are listed
    for the person who reviews it."""

    codes = ("left-in", "piece-too-long")
    repairs = frozenset({"rewrite"})
    repaired_holds = True  # what it may leave in: rewritten first, then read by a person

    def applies(self, ctx: CheckContext) -> bool:
        return bool(ctx.brief)

    def run(self, ctx: CheckContext) -> list[Finding]:
        return check_orders(ctx.draft, ctx.checklist)


def unread(brief: str, checklist: list[Requirement], set_aside: tuple[str, ...] = ()) -> str:
    """Why the brief was not read into a checklist, or "": one item (or none) for a brief
    that plainly holds several facts; an item so long it was never taken apart; figures
    of the brief that no item carries (nor an item a person fixed)."""
    said = [r for r in checklist if r["kind"] in COVERED_KINDS or r["kind"] == "missing"]
    read = "\n".join(logical_lines(brief))  # an email's greeting and signature are not its
    if any(
        r["kind"] == "rule" and r["subject"] == "leave_out" and forbidden_by(r, checklist).money
        for r in checklist
    ):
        read = MONEY.sub(" ", read)  # "no prices": its prices are in no item, rightly
    figures = set(wording.numbers_of(read))
    words = wording.word_count(read)
    if len(said) <= 1 and len(figures) >= 3 and not set_aside:
        return (
            f"it holds {len(figures)} figure(s) and {words} words, and only "
            f"{len(said)} item was found in it"
        )
    long = next((r for r in said if wording.word_count(r["text"]) > 40), None)
    if long:
        return f"one item is {wording.word_count(long['text'])} words long: {long['text'][:80]!r}…"
    carried = {n for r in checklist for n in wording.numbers_of(r["text"])}
    carried |= {n for line in set_aside for n in wording.numbers_of(line)}
    lost = sorted(figures - carried, key=len)
    if lost:
        return f"no item carries its figure(s) {', '.join(lost[:4])}"
    return ""


class BriefRead(Check):
    """The brief was read into a checklist: a brief with several facts gives more than
    one item, no item is a long run the reader never took apart, every figure of the
    brief is in an item. When it was not, the checks cannot vouch for the text, and it
    waits for a person (a hold: never approved by default)."""

    codes = ("brief-unread",)
    scored = False

    def applies(self, ctx: CheckContext) -> bool:
        return bool(ctx.brief) and not ctx.documents_source

    def run(self, ctx: CheckContext) -> list[Finding]:
        why = unread(ctx.brief, ctx.checklist, ctx.set_aside)
        if not why:
            return []
        return [
            Finding(
                code="brief-unread",
                severity="hold",
                message=f"The brief could not be read into a checklist ({why}): the checks "
                f"cannot vouch for this text, so read it against the brief before it goes out.",
            )
        ]
