"""A brief's text read into its checklist (`brief_checklist`), item by item.

    brief text -> items (list items, "Label: a, b, c" lines, sentences)
               -> Requirement(kind, text, terms, numbers)

The items are the sentences of the brief's lines (batch.judging.brief_lines), a writer's
label ("Facts: a, b, c") split on its commas and a fact of several whole clauses split
into them; each gets its kind from classify.py. What is read here is what ties the items
together: an order to the writer gives back the facts it carries ("a memo about the
launch on 14 April"), a request that hands over what to say ("Write a note that X") is
the writer's and X the text's, a known fact and an unknown one in one sentence are two
items, a leave-out order takes what it speaks of out of the text (`_withhold`), and a
signer the brief names without the word "sign" is found (`_name_the_signer`).

COVERED_KINDS are the kinds a draft must cover (coverage.py); INSTRUCTION_KINDS the
orders to the writer, never said and never copied.
"""

from __future__ import annotations

import re

from batch.check_types import Kind, Requirement
from batch.judging.brief_lines import (
    fragments,
    logical_lines,
    lower_case_sentences,
    run_on_clauses,
    signer,
)
from batch.judging.checklist.classify import _classify
from batch.judging.checklist.cues import (
    _CALENDAR,
    _DATE_NAME,
    _LABEL_LINE,
    _LIST_COMMA,
    _ORDER_LABELS,
    _ORDERS,
    _POLITE_LEAD,
    _READERS_FIRST,
    _READERS_OBLIGED,
    _SIGN,
    _SIGN_LABELS,
    _TASK_SENTENCE,
    _WRITER_LABEL,
    DOC_NOUNS,
    HAS_VERB,
    _first_word,
    _lead,
    joined_clauses,
)
from batch.judging.checklist.missing import (
    _ASKED_ABOUT,
    _HEDGE,
    _ITS_UNKNOWN,
    _TELL_TAIL,
    _WH_SUBJECT,
    _WHEN_KNOWN,
    CERTAIN_GAP,
    MISSING_CUE,
    _subject_of,
    _tells_the_gap,
)
from batch.judging.orders import (
    MONEY,
    PRICE_WORDS,
    emphasis_split,
    left_out,
    order_kind,
    request_split,
)
from batch.judging.wording import (
    WORD,
    content_terms,
    numbers_of,
    sentences,
)
from batch.reading.corrections import STRUCK

COVERED_KINDS = frozenset({"fact", "ask", "gap", "api", "raises", "sign"})
# orders to the writer: never said, never copied; a rule's subject says what it orders
# (batch.judging.orders: leave_out, length, layout, tone, no_guess)
INSTRUCTION_KINDS = frozenset({"task", "style", "rule"})


_LIST_ITEM = re.compile(r"^\s*(?:[-*•]|\d+[.)])\s+(.*)$")

# Notes about the text, not items of it; "Question:" is what an answer answers
STYLE_LABELS = frozenset(
    {
        "write for",
        "written for",
        "for",
        "aimed at",
        "aim at",
        "pitch at",
        "target",
        "target audience",
        "who for",
        "tone",
        "style",
        "audience",
        "voice",
        "format",
        "length",
        "register",
        "reader",
        "readers",
        "language",
        "channel",
        "question",
        "q",
    }
)


def _split_task_clauses(item: str) -> tuple[list[str], list[str]]:
    """ "Storynest is a reading app, and we need the text for its page" -> the fact, and
    the writer's clause apart (never an item to cover, but never to be copied either).
    A writer's clause that leads into content ("Memo on Q3: revenue not known yet")
    gives the content back."""
    parts = joined_clauses(item)
    if len(parts) < 2 or not any(_TASK_SENTENCE.match(c) for c in parts):
        return [item], []
    kept: list[str] = []
    dropped: list[str] = []
    for part in parts:
        lead, colon, rest = part.partition(":")
        if not _TASK_SENTENCE.match(part):
            kept.append(part)
        elif colon and rest.strip():
            dropped.append(lead.strip())
            kept.append(rest.strip())
        else:
            dropped.append(part)
    if not kept:
        return [item], []
    return [k.rstrip(".") + "." for k in kept], dropped


# What an order to the writer also says about the world: what the text is about ("a memo
# about the travel rules that start on 1 July"), the occasion ("Invitation to our
# partners to the launch of the new booking app"), readers named by a fact ("everyone
# who works on floors 2 and 3") and what they are to be told ("an email …, telling them
# it is cancelled because our kiln is broken"). The text must say these too.
_TOLD_ALONG = re.compile(
    r"(?i),?\s+(?:telling|informing|reminding|warning|letting|asking|inviting|encouraging|"
    r"urging)\s+(?:them|everyone|readers|people|customers|staff|members|guests|parents|"
    r"residents|tenants|colleagues|volunteers|players|visitors|students)\s+(?:know\s+)?"
    r"(?:that\s+)?(.+)$"
)
_TOPIC = re.compile(
    r"(?i)\b(?:about|announcing|on the subject of|regarding)\s+(.+?)\s*[.;]?$"
    r"|^(?:(?:a|an|the)\s+)?(?:invitation|invite)\s+(?:(?:to|for)\s+)?\w[^.;]*?\sto\s+"
    r"((?:the|our|a|an|[A-Z][\w-]*['’]s)\s.+?)\s*[.;]?$"
)
_AUDIENCE = re.compile(
    r"(?i)^(?:\w+\s+){0,5}?(?:to|for|tell|inform|remind|warn|invite|notify)\s+"
    r"((?:everyone|everybody|all|anyone|those|people|staff|customers|members|residents|"
    r"guests|parents|employees|tenants)\b(?:(?!\s(?:that|about|to)\b)[^,.;])*)"
)


def _told_by_task(item: str) -> list[tuple[Kind, str]]:
    """(kind, text) of each item an order to the writer carries (`_facts_of_task`): what
    the readers are reminded or told *to do* is an ask ("reminding staff to lock the
    doors"), the rest facts."""
    out: list[tuple[Kind, str]] = []
    for said in _facts_of_task(item):
        to_do = _AND_TO.match(said)
        out.append(("ask", said[to_do.end() :]) if to_do else ("fact", said))
    return out


def _facts_of_task(item: str) -> list[str]:
    """The facts inside an order to the writer (see `_TOLD_ALONG` above). What it relays
    is one when it has two words of content; the occasion an invitation is to, always;
    its topic or readers only with a figure or a name of their own: "a memo about the
    third quarter" is told by any memo on Q3, "the rules that start on 1 July" and
    "customers of Fernhill Broadband" are not."""
    out: list[str] = []
    told = _TOLD_ALONG.search(item)
    if told and (numbers_of(told.group(1)) or len(content_terms(told.group(1))) >= 2):
        out.append(told.group(1).strip(" ."))
        item = item[: told.start()]
    topic = _TOPIC.search(item)
    audience = _AUDIENCE.search(item)
    if topic and topic.group(2):
        # an invitation that does not say what it is to invites to nothing
        out.append(topic.group(2).strip(" ."))
    for found in (topic.group(1) if topic else "", audience.group(1) if audience else ""):
        if found and (numbers_of(found) or _NAMED.search(found)):
            out.append(found.strip(" ."))
    occasion = _WHEN_OCCASION.search(item)
    if occasion and not any(occasion.group(1) in o or o in occasion.group(1) for o in out):
        # "a follow-up email to the team after the meeting on Wednesday 5 March": which
        # meeting, when
        out.append(occasion.group(1).strip(" ."))
    # the name it gives its subject, unless what it tells already says it ("…to the
    # Riverside relaunch team after the meeting on Wednesday 5 March")
    named = _named_subject(item)
    if named and not any(set(content_terms(named)) <= set(content_terms(o)) for o in out):
        return [*out, named]
    return out


# where a text goes, not what it is about: "for the help centre", "for the website"
_CHANNEL = re.compile(
    r"(?i)^(?:the\s+|our\s+|this\s+|next\s+|a\s+)?(?:help\s*cent(?:re|er)|faq|website|site|"
    r"newsletter|intranet|blog|app\s+store|menu(?:\s+board)?|brochure|programme|program|"
    r"notice\s*board|foyer|lobby|staff\s+room|page|feed|socials|instagram|facebook|"
    r"linkedin|twitter|x|shop\s+window|window|wall|board|guest\s+rooms?|rooms?|"
    r"team|staff|everyone|all\s+staff|customers|clients|members|residents|parents|guests)\b"
)


def _named_subject(request: str) -> str:
    """What a request names as its text's subject, by a name, a figure or a title: "a
    blurb for the website for our Full Service package at Spokes & Co" -> "our Full
    Service package at Spokes & Co"; "weekend offer post: Rise & Crumb" -> "Rise &
    Crumb"; "the description for episode 42 of Small Plates". "" when it names none
    ("a note for the staff kitchen")."""
    text = _TITLE_JOINER.sub(_joined_title, _LENGTH_PHRASE.sub(" ", request))
    head, colon, tail = text.partition(":")
    if colon and _has_name(tail):
        return _names_only(tail).replace(_JOIN, " ")
    parts = _SUBJECT_PREP.split(text)
    # parts: [before, prep, phrase, prep, phrase, ...]; every phrase that names one ("a
    # progress update to the Hartley Foundation on our Reading Buddies grant")
    found: list[str] = []
    for phrase in parts[2::2]:
        if re.match(r"[\"“'‘]", phrase.strip()):
            continue  # a question it answers ('an FAQ answer to "What happens if …?"')
        phrase = re.split(r"[,;?!]|\.(?:\s|$)|\s(?:please|pls)\b", phrase)[0]
        if _CHANNEL.match(phrase):
            continue
        if _has_name(phrase):
            found.append(_names_only(phrase).replace(_JOIN, " "))
    if found:
        return ", ".join(dict.fromkeys(found))
    # a name before the text's own noun: "write the Hollow Lane Community Garden item"
    before = _NAME_BEFORE_NOUN.search(parts[0])
    # (a name in Title case: "an FAQ answer", "the HR update" name a kind of text)
    if before and _has_name(before.group(1)) and re.search(r"[A-Z][a-z]", before.group(1)):
        return _names_only(before.group(1)).replace(_JOIN, " ")
    return ""


# a title whose words are joined by a small word ("Introduction to Bookbinding", "Lord of
# the Isles"): one name, not a name and a preposition. Not at the request's start
# ("Reply to Daniel Reyes" is the reply's verb and whom it is to)
_JOIN = "\u2060"
_TITLE_JOINER = re.compile(r"(?<=\S\s)([A-Z][\w'’-]+) (to|in|for|on|at) (?=[A-Z][a-z])")


def _joined_title(m: re.Match[str]) -> str:
    return f"{m.group(1)}{_JOIN}{m.group(2)}{_JOIN}"


_NAME_BEFORE_NOUN = re.compile(
    r"\b(?:the|our|this|a|an)\s+((?:[A-Z][\w'’&-]*\s+){1,5})(?:[a-z][\w-]*\s+){0,2}"
    + DOC_NOUNS
    + r"\b"
)


_NAME_RUN = re.compile(
    r"[\"“][^\"”]+[\"”]"
    r"|(?:[A-Z][\w'’.-]*|\d[\w.-]*)(?:[\s\u2060]+(?:(?:&|of|and|de|la|the|on|upon|to|in|for)[\s\u2060]+)?"
    r"(?:[A-Z][\w'’.-]*|\d[\w.-]*))*"
)


def _names_only(phrase: str) -> str:
    """The names and titles of a phrase, which is what a text must say of what its
    request names: "the Lumo 2 speaker launch" -> "Lumo 2"; "our Full Service package at
    Spokes & Co" -> "Full Service, Spokes & Co" ("speaker launch", "package" are the
    writer's words for it, not the readers')."""
    runs = [m.group(0).strip() for m in _NAME_RUN.finditer(phrase)]
    runs = [r for r in runs if not _DATE_NAME.match(r) or len(r.split()) > 1]
    return ", ".join(runs) if runs else phrase.strip(" .?!,")


# the phrase a request names its subject in: from the first "for", "about", "on", "to"
# or "of" after the text it asks for, up to the end or a comma
_SUBJECT_PREP = re.compile(r"(?i)\b(for|about|on|to|at|regarding|announcing)\s+")


def _has_name(phrase: str) -> bool:
    """A name or a title ("Daniel Reyes", "Small Plates", '"Salt and Stone"'), not a day,
    a month or a figure alone ("Memo on Q3" is told by any memo on the quarter)."""
    names = re.findall(r"(?:^|\s)([A-Z][a-z]+|[A-Z]{2,}\b)", phrase.strip())
    return bool(re.search(r"[\"“]", phrase)) or any(not _DATE_NAME.match(n) for n in names)


# a length the request gives with what it names ("of under 60 words for our tomato")
_LENGTH_PHRASE = re.compile(
    r"(?i)\b(?:of\s+)?(?:under|over|about|around|max(?:imum)?|at\s+most|up\s+to|no\s+more\s+than|"
    r"less\s+than|fewer\s+than)?\s*\d+\s*(?:-\s*\d+\s*)?words?\b"
)


# a name inside a phrase ("customers on the Standard plan of Fernhill Broadband"): told
# apart from every other topic as a figure is
_NAMED = re.compile(r"(?<=\s)[A-Z][a-z]+")

# the occasion a request names with its day: "after the meeting on Wednesday 5 March",
# "for the open day on Saturday 14 June"
_WHEN_OCCASION = re.compile(
    r"(?i)\b(?:after|before|following|ahead\s+of|for|from|of)\s+((?:the|our|this|next|last|"
    r"yesterday['’]s|today['’]s)\s+[\w'’& -]{1,40}?\s+(?:on|at|in|of)\s+(?:(?:"
    + _CALENDAR
    + r")\b|\d)[^,;.()?!]*?)(?=\s+(?:for|to|please|pls)\b|\s*[,;.()?!]|\s*$)"
)

# a clause that goes on with what the readers are to do: "…, and to bring a waterproof"
_AND_TO = re.compile(r"(?i)^(?:and\s+|also\s+)?to\s+(?!be\b)(?=[a-z]+\s+\w)")


def _with_asides(said: list[str]) -> list[str]:
    """Sentences, an aside in brackets kept with the one before it ("link: ? (page not set
    up yet)" is split after its question mark)."""
    out: list[str] = []
    for sentence in said:
        if out and sentence.startswith("("):
            out[-1] += " " + sentence
        else:
            out.append(sentence)
    return out


def _items(text: str) -> list[tuple[str, str | None, str]]:
    """(item text, label, the sentence before it) triples: the sentences of the brief's
    lines (batch.judging.brief_lines: a line of notes is one even with no full stop, a
    wrapped prose line is not), a note's dashes made labels or split, a writer's label
    ("Facts: a, b, c") split on its commas."""
    out: list[tuple[str, str | None, str]] = []
    previous = ""
    for line in logical_lines(text):
        said = [part for s in sentences(line) for part in lower_case_sentences(s)]
        for sentence in _with_asides(said):
            for piece in fragments(sentence):
                out.extend((part, label, previous) for part, label in _split_label(piece))
            previous = sentence
    return out


def _split_label(sentence: str) -> list[tuple[str, str | None]]:
    label = _LABEL_LINE.match(sentence)
    if label and _WRITER_LABEL.match(label.group(1).strip()):
        value = label.group(2).strip()
        # clauses with commas of their own are split on semicolons only
        parts = [
            p.strip(" .") for p in (value.split(";") if ";" in value else _LIST_COMMA.split(value))
        ]
        return [(p, None) for p in parts if p]
    if not label or len(label.group(1).split()) > 3:
        return [(sentence, None)]
    name, value = label.group(1).strip().lower(), label.group(2)
    if name in STYLE_LABELS and not (
        name == "target" and numbers_of(value) and order_kind(value) != "length"
    ):
        # ("Target: 60 children" is a figure the text tells, not whom it is for)
        return [(sentence, "style")]
    # "Leek soup: leeks, potato, chives" is one fact, as "Leek soup is made with leeks,
    # potato and chives" is: the same item whatever the shape (coverage asks for each
    # member of the list: see `covered`)
    return [(sentence, None)]


# "Reply to Daniel Reyes, his order came late": the text is the reply
_REPLY_TO = re.compile(
    r"(?i)^(?:please\s+)?(?:reply|respond|write\s+back|answer)\s+to\s+(?:(?:mr|mrs|ms|miss|dr)\b|"
    r"(?-i:[A-Z][a-z])|(?:the|this|a|an|his|her|their)\s+(?:\w+\s+){0,3}?(?:complaint|claim|"
    r"email|letter|message|enquiry|inquiry|review|question|customer|request))"
)


# a request that hands over what the text is to say
_RELAYS = re.compile(
    r"(?i)\b(?:saying|to\s+say|telling|informing|letting|explaining|announcing|that)\b"
)


def _is_request(item: str) -> bool:
    return (
        bool(_REPLY_TO.match(item))
        or order_kind(item) == "request"
        or bool(_TASK_SENTENCE.match(item))
        or _first_word(item) in ("write", "draft", "compose", "prepare", "produce", "create")
    )


def _said(text: str) -> list[str]:
    """What a request hands over to be said, as items: its sentences, each split where
    it joins whole clauses ("…, and staff should take their food home")."""
    out: list[str] = []
    for sentence in sentences(text):
        for piece in fragments(sentence):
            out += [p for p in _clause_items(piece) if p.strip(" .")]
    return out


def _clause_items(sentence: str) -> list[str]:
    """A sentence as its clauses (`brief_lines.run_on_clauses`), each with words of its
    own: a clause of fewer than two content words, or one that speaks of the one before
    ("that time's not confirmed yet", "it isn't final"), stays with it."""
    out: list[str] = []
    parts: list[str] = []
    for part in (p for clause in run_on_clauses(sentence) for p in emphasis_split(clause)):
        head, colon, rest = part.partition(": ")
        if colon and rest.strip() and order_kind(head) in ("layout", "tone", "length"):
            # "decisions first, then owners: the launch moves to 14 April"
            parts += [head, rest]
        else:
            parts.append(part)
    for part in parts:
        short = (
            len(content_terms(part)) < 2
            and not numbers_of(part)
            and order_kind(part) is None
            and not _SIGN.match(part)
            and not _READERS_OBLIGED.search(part)  # "so they should not resend it"
        )
        if out and (short or _BACK_TO_PREVIOUS.match(part)):
            out[-1] += ", " + part
        else:
            out.append(part)
    return [p.rstrip(".") + "." if len(out) > 1 else p for p in out] if out else [sentence]


# a clause about the one before it: its gap, its hedge ("that time's not confirmed yet",
# "it may move", "which …")
_BACK_TO_PREVIOUS = re.compile(
    r"(?i)^(?:but\s+|although\s+|though\s+)?(?:which|who|whose|where|that\s+(?:time|date|"
    r"day|price|figure|number|one|part|bit)|(?:it|this|that|these|those|they)(?:(?:['’]s|\s+is|"
    r"\s+are|\s+was)\s+(?:not|still|only|yet)\b|\s+isn['’]t|\s+aren['’]t|\s+wasn['’]t|\s+may|"
    r"\s+might|\s+could|\s+will\s+be\s+(?:confirmed|announced|decided|set)\b))"
    # "…, but nobody needs to know that in advance": who must not hear the one before
    r"|(?i:^but\s+(?:nobody|no\s+one|none\s+of\s+(?:them|you|us))\b)"
    # "don't resend messages from that morning, they all went through": what became of
    # what the clause before names
    r"|(?i:^(?:they|these|those)(?:\s+all|\s+both)?\s+(?:went|came|got|arrived|worked|were|"
    r"did|have\s+been)\b)"
    # "Westgate Library has 6 copies, so people can reserve one there": "there" is the
    # place the clause before names
    r"|(?i:^(?:so\s+|and\s+)?[^,;]{0,60}\b(?:one|some|them|it)(?:\s+up)?\s+there\s*[.!]?$)"
)


def _fact_clauses(item: str) -> list[str]:
    """A fact of several whole clauses as one item per clause, the way a list or a set
    of labelled lines gives them; kept whole when a clause alone would read otherwise
    ("The time may move; IT will confirm it on the day" is one hedged fact)."""
    label = _LABEL_LINE.match(item)
    labelled_order = label and (
        label.group(1).strip().lower() in {*_ORDER_LABELS, *_SIGN_LABELS, *STYLE_LABELS}
    )
    if labelled_order or _HEDGE.search(item) or _classify(item)[0] == "sign":
        # "Leave out: the price; also the word organic" is one order, "The time may
        # move; IT will confirm it on the day" one hedged fact; but for a signature at
        # its end ("Tone: friendly, not pushy, and sign it from me")
        signed = _SIGN_AT_END.search(item)
        before = _POLITE_LEAD.sub("", item[: signed.start()] + " ") if signed else ""
        if signed and content_terms(before) and _SIGN.match(signed.group(1)):
            return [item[: signed.start()].strip(" ,;"), signed.group(1)]
        return [item]
    pieces: list[str] = []
    for piece in _clause_items(item):
        kind, _, subject = _classify(piece)
        before, _, before_subject = _classify(pieces[-1]) if pieces else ("", "", "")
        if _withholds_before(before, piece, kind, subject, pieces[-1] if pieces else ""):
            # "The landlord is Gerald Pike, leave his name out": the fact is what the
            # order keeps out of the text, one order with it
            pieces[-1] = pieces[-1].rstrip(".") + ", " + piece
        elif before == "rule" and before_subject == "leave_out" and _IT_AGAIN.match(piece):
            # "Don't mention the old price; it used to be £75.": what it leaves out
            pieces[-1] = pieces[-1].rstrip(".") + "; " + piece
        elif before in ("missing", "gap") and (
            _TELL_TAIL.match(piece) or _WHEN_KNOWN.search(piece)
        ):
            # "…not decided yet - say so", "…; we'll tell them when it is": told, not filled
            pieces[-1] = pieces[-1].rstrip(".") + ", " + piece
        elif pieces and kind == "missing" and (before == "missing" or _POINTS_BACK.search(piece)):
            # "…not confirmed yet; facilities will confirm it next week": one unknown
            pieces[-1] = pieces[-1].rstrip(".") + "; " + piece
        else:
            pieces.append(piece)
    return pieces if len(pieces) > 1 else [item]


_SIGN_AT_END = re.compile(r"(?i)(?:[,;]\s*|\s+)(?:and\s+)?((?:please\s+)?sign\b.*)$")
_IT_AGAIN = re.compile(r"(?i)^(?:it|that|this|they|those|which|its|their)\b")
_PROPER_NAME = re.compile(r"(?<=\w\s)[A-Z][a-z]+|\b[A-Z][a-z]+\s+[A-Z][a-z]+")


def _withholds_before(
    before: str, piece: str, kind: str, subject: str, previous: str, same_sentence: bool = True
) -> bool:
    """A leave-out order right after a fact, speaking of it: by a pronoun ("leave his name
    out", "keep it out"), by its words in the same sentence ("insured £40,000 - leave out
    the insurance value"), or naming what the fact names ("don't name the manufacturer"
    after "made by Kaiyo Appliances")."""
    if before != "fact" or kind != "rule" or subject != "leave_out":
        return False
    about, given = left_out(piece)
    if not same_sentence and given.strip(" ,;:.-"):
        return False  # "The landlord is Gerald Pike, but leave his name out": its own
    pronouns = (
        r"his|her|its|their|it|them|that|this|these|those"
        if same_sentence
        else r"his|her|their|that|this|these|those"  # "it" is the text's subject as often
    )
    if re.search(rf"(?i)\b(?:{pronouns})\b", piece):
        return True
    # a word's first letters: "insured" and "insurance" stem apart ("insur", "insuranc")
    if same_sentence and {t[:5] for t in about if len(t) >= 5} & {
        t[:5] for t in content_terms(previous)
    }:
        return True
    names = [n for n in _PROPER_NAME.findall(previous) if not _DATE_NAME.match(n)]
    return bool(re.search(r"(?i)\bnames?\b", piece) and names)


_STATE_IT = re.compile(
    r"(?i)^(?:and\s+|but\s+)?(?:the|this|our)\s+(?:page|notice|letter|note|text|email|post|"
    r"listing|description|blurb|section|advert|memo|card|label)\s+(?:should|must|needs?\s+to|"
    r"has\s+to)\s+(?:state|show|give|include|mention|carry|have)\s+(?:it|that|them|this|the\s+\w+)"
    r"\s*[.!]?$"
)
_POINTS_BACK = re.compile(r"(?i)\b(?:it|them|that|this|these|those|one)\b")


# a bracketed aside after a line's own words ("… 10,000 miles. [comment SM: no need to say
# so]"): a reviewer's note, read as a line of its own, so an order in it does not take
# the line's facts with it. Not a placeholder, nor a short bracket ("Room [B12]")
_ASIDE = re.compile(r"(?<=\S)[ \t]*(\[(?![A-Z ]+NEEDED\b)[^\]\n]*?\S+\s+\S+\s+\S+[^\]\n]*\])")


def brief_checklist(text: str) -> list[Requirement]:
    # text struck through is deleted: nothing in it is asked for (its figures are taken
    # back: batch.reading.corrections)
    text = _ASIDE.sub(r"\n\1", STRUCK.sub(" ", text))
    out: list[Requirement] = []
    item_start = 0  # where the items of the brief's item being read begin in `out`

    def add(part: str, previous: str) -> None:
        kind, _, subject = _classify(part, previous)
        halves = _known_beside_unknown(part, previous) if kind in _UNKNOWN else []
        if halves:
            for half in halves:
                add(half, previous)
            return
        last = out[-1] if out else None
        if (
            last
            and previous
            and _withholds_before(last["kind"], part, kind, subject, last["text"], False)
        ):
            # "The largest gift was £2,000 from the Patel family. Don't name individual
            # donors.": the fact before is what the order keeps out
            last.update({"kind": "rule", "subject": "leave_out", "text": f"{last['text']} {part}"})
            return
        if (
            last
            and len(out) > item_start
            and last["kind"] == "rule"
            and last["subject"] == "leave_out"
            and kind in _UNKNOWN
            and not CERTAIN_GAP.search(part)
        ):
            # "don't say it's maternity cover for Kelly, she hasn't told the others yet":
            # the order's reason, not an unknown of the text's
            last.update({"text": f"{last['text'].rstrip('.')}, {part}"})
            return
        same = (
            last
            if last and last["kind"] in _UNKNOWN
            else next((r for r in reversed(out[item_start:]) if r["kind"] in _UNKNOWN), None)
        )
        if same is not None and kind in _UNKNOWN and _names_nothing(part):
            # "Electric cars: the rate is still being agreed. [comment JB: we don't have
            # a figure yet - put a placeholder]", "The launch date is not confirmed yet,
            # dont guess a date, put a placeholder": the same unknown said again
            same.update({"text": f"{same['text'].rstrip('.')}; {part}"})
            return

        if last and last["kind"] == "missing" and _STATE_IT.match(part):
            # "…not confirmed yet, and the page must state it": the fact belongs in the
            # text (a placeholder until a person gives it), not an item of its own
            last.update({"text": f"{last['text'].rstrip('.')}, {part}"})
            return
        if last and last["kind"] in ("missing", "gap") and _tells_the_gap(part):
            # "…not set yet. The letter should say so.": the gap is told, not filled
            gap = _req(int(last["id"][1:]) - 1, "gap", f"{last['text'].rstrip('.')}. {part}", "")
            last.update({"kind": "gap", "text": gap["text"]})
            return
        kind, body, subject = _classify(part, previous)
        if (
            kind == "ask"
            and last
            and last["kind"] == "ask"
            and body[:1].islower()
            and _READERS_FIRST.match(last["text"])
            and not _READERS_FIRST.match(body)
            and _first_word(body) in _ORDERS
        ):
            # "they leave by the stairs, and go to the assembly point": the second ask
            # is theirs too, and may be told as the first is, as a statement
            body = f"{last['text'].split()[0]} {body}"
        unknown = _NO_GUESS_ORDER.split(body, maxsplit=1)[0]
        if (
            kind == "rule"
            and subject == "no_guess"
            and MISSING_CUE.search(unknown)
            and not _names_nothing(unknown)
        ):
            # "when's the new booking app coming - not confirmed yet!! dont guess a
            # date": a fact not known, its placeholder what the order asks for
            kind, subject = "missing", _subject_of(body, previous)
        to_do = _AND_TO.match(body)
        if kind == "fact" and last and last["kind"] == "ask" and to_do:
            # "telling guests to keep their ticket with them, and to bring a waterproof":
            # the second thing they are told to do
            kind, body = "ask", body[to_do.end() :]
        out.append(_req(len(out), kind, body, subject))
        if kind == "task" or (kind in ("fact", "ask") and subject):
            # the order itself (kept whole, so that copying it is seen) or a relay's
            # lead
            for told_kind, told in _told_by_task(part if kind == "task" else subject):
                out.append(_req(len(out), told_kind, told, ""))

    for item, label, previous in _items(text):
        item_start = len(out)
        if label == "style":
            out.append(_req(len(out), "style", item, item.split(":")[0].strip() + ":"))
            continue
        split = request_split(item) if _is_request(item) else None
        if split:
            # "Write a note that X": the request is the writer's, X the text's
            lead, content = split
            joint = item[len(lead) : len(item) - len(content)]
            # the request itself is the writer's, whatever verb opens it ("Note to the
            # relaunch team: …" is no "Note that …")
            out.append(_req(len(out), "task", lead, _lead(lead)))
            for told_kind, told in _told_by_task(lead):
                out.append(_req(len(out), told_kind, told, ""))
            for n, part in enumerate(_said(content)):
                if n == 0 and joint.strip() == "," and _topic_only(part):
                    # "IT notice, all staff - password resets": whom it is for and what
                    # about, with no name or figure, are the request's, as in "IT notice
                    # for all staff about password resets"
                    task = out[-1]
                    joined = f"{task['text']}, {part}"
                    task.update(_req(int(task["id"][1:]) - 1, "task", joined, task["subject"]))
                    continue
                add(part, previous)
                # only what the relay hands over directly: a remark later in the run
                # ("…; we're still waiting on the number") is the writer's to fill
                # ("…, and that whether there's parking is still to be confirmed" is
                # handed over as the first part is)
                relayed = (n == 0 and _RELAYS.search(joint)) or re.match(
                    r"(?i)^(?:and\s+)?that\s", part
                )
                if relayed and out[-1]["kind"] == "missing":
                    # "Write a memo saying the date is not decided yet": told
                    out[-1]["kind"] = "gap"
            continue
        parts, writers = _split_task_clauses(item)
        for clause in writers:
            out.append(_req(len(out), "task", clause, _lead(clause)))
        for part in parts:
            for piece in _fact_clauses(part):
                add(piece, previous)
    # A missing fact right before "Say that it will be announced..." is told, not filled.
    for i, r in enumerate(out[:-1]):
        if r["kind"] == "missing" and out[i + 1]["kind"] == "gap":
            r["kind"] = "gap"
    _withhold(out)
    _name_the_signer(out, text)
    mark_own_terms(out)
    return out


def mark_own_terms(checklist: list[Requirement]) -> None:
    """Give each fact and ask its `own` terms: those no other item the text covers has."""
    for r in checklist:
        if r["kind"] in ("fact", "ask"):
            others = {
                t
                for o in checklist
                if o is not r and o["kind"] in COVERED_KINDS
                for t in o["terms"]
            }
            r["own"] = [t for t in r["terms"] if t not in others]
        else:
            r.pop("own", None)


# "sign it from me": the asker, as a pasted email's foot names them
_SIGNER_PRONOUN = re.compile(r"(?i)^(?:me|us|myself|ourselves|me\s+please|us\s+please)$")
# a person (or a desk) and what they are, on a line of their own: "Sam, Customer Care,
# Kettleworks", "Dr Helen Mbeki, project lead"
_NAME_AND_ROLE = re.compile(
    r"^(?:(?:Mr|Mrs|Ms|Miss|Mx|Dr|Prof|Coach|Nurse|Rev|Sister|Father)\.?\s+)?"
    r"[A-Z][a-z'’-]+(?:\s+[A-Z][a-z'’-]+){0,2}(?P<roles>(?:\s*,\s*(?![\d£$€])[^,;.:]{2,40}){1,2})\.?$"
)
_ROLE_WORDS = re.compile(
    r"(?i)\b(?:care|support|service|services|team|manager|director|lead|head|chair|officer|"
    r"coordinator|co-ordinator|teacher|nurse|desk|office|department|hr|admin|secretary|"
    r"treasurer|founder|owner|editor|guide|coach|captain|ceo|cto|cfo|coo|president|"
    r"chairperson|organiser|organizer|volunteer|receptionist|assistant|partner|clerk|"
    r"principal|headteacher|vicar|warden|council|committee|staff|trust|foundation)\b"
)


def _name_the_signer(out: list[Requirement], text: str) -> None:
    """Who the text is signed from, where the brief names them without the word "sign":
    "sign it from me" in a pasted email is from the name at its foot; a notes brief's
    last line that is only a name and a role ("Sam, Customer Care, Kettleworks") is its
    signature, as it is on a letter."""
    for r in out:
        if r["kind"] == "sign" and _SIGNER_PRONOUN.match(r["subject"].strip(" .")):
            who = signer(text)
            if who:
                r.update({"text": who, "subject": who})
    if not out or any(r["kind"] == "sign" for r in out):
        return
    last = out[-1]
    lines = logical_lines(text)
    named = _NAME_AND_ROLE.match(last["text"].strip())
    if (
        last["kind"] == "fact"
        and lines
        and last["text"].strip() == lines[-1].strip()
        and _LIST_ITEM.match(_last_written_line(text))
        and named
        and _ROLE_WORDS.search(named.group("roles"))
    ):
        who = last["text"].strip().rstrip(".")
        last.update(_req(int(last["id"][1:]) - 1, "sign", who, who))


def _topic_only(piece: str) -> bool:
    """A few words naming whom a text is for or what it is about, with no name, figure
    or verb of their own ("all staff: password resets", "residents - bin changes")."""
    return (
        _classify(piece)[0] == "fact"
        and not _AND_TO.match(piece)
        and len(WORD.findall(piece)) <= 6
        and not numbers_of(piece)
        and not re.search(r"[A-Z]", piece[1:])
        and not HAS_VERB.search(piece)
        and not _FINITE_VERB.search(piece)
    )


_FINITE_VERB = re.compile(r"(?i)\b\w+(?:ed|s)\s+(?:on|at|in|by|from|to|the|a|an|every)\b")


def _last_written_line(text: str) -> str:
    written = [ln for ln in text.splitlines() if ln.strip()]
    return written[-1] if written else ""


# where a known fact and an unknown one meet in one sentence: "…by courier on Thursday 14
# November but the tracking number isn't through yet", "…for the training, trainer TBC"
_KNOWN_BREAK = re.compile(r",?\s+but\s+|,\s+|;\s+")
_UNKNOWN = ("missing", "gap")
# what an unknown said again names beside how it says so: the kind of value, the order
# to leave a gap for it, a reviewer's label ("[comment JB:", "Dev:")
_UNKNOWN_ONLY = frozenset(
    content_terms(
        "figure figures number numbers date dates time times price cost detail details "
        "placeholder gap blank space guess put leave please sorry comment note reply one "
        "value amount"
    )
)
_SPEAKER_LABEL = re.compile(
    r"^\s*(?:\[\d{1,2}[:.]\d{2}\]\s*[A-Z][\w'’-]*(?:\s+[A-Z][\w'’-]*)?"
    r"|\[?\s*(?:comment|note|reply)\s+[A-Z][\w'’-]*|[A-Z]{2,3})\s*:\s*"
)


# where an order not to guess begins: what comes before it may say what is not known
_NO_GUESS_ORDER = re.compile(
    r"(?i)\b(?:don['’]?t|do\s+not|never|no|pls\s+don['’]?t|please\s+don['’]?t)\s+"
    r"(?:guess|invent|make\s+\w+\s+up|fill)"
)


def _names_nothing(part: str) -> bool:
    """An unknown that names nothing but that something is not known: "TBC", "we don't
    have a figure yet - put a placeholder", "[comment JB: no date yet, leave a gap]"."""
    plain = MISSING_CUE.sub(" ", CERTAIN_GAP.sub(" ", _SPEAKER_LABEL.sub("", part)))
    return not set(content_terms(plain)) - _UNKNOWN_ONLY


# a clause that speaks of the one before, or opens on its verb: not a fact of its own
_NOT_ITS_OWN = re.compile(
    r"(?i)^(?:then\s+)?(?:it|that|this|they|those|which|who|whose|where|is|are|was|were|has|"
    r"have|had|will|isn['’]t|aren['’]t|so|and|or)\b"
)


def _known_beside_unknown(part: str, previous: str = "") -> list[str]:
    """An unknown (`part`, read as missing or gap) that also says a known fact in the
    same sentence, as the two items they are; [] when it says no fact of its own. Read
    as one unknown, the known half was never asked of the text: a placeholder for all
    of it, the date and the courier lost."""
    # an aside in brackets that is the unknown: "Customer Apps (lead not yet named)"
    for aside in re.finditer(r"\s*\(([^()]+)\)", part):
        if _classify(aside.group(1))[0] not in _UNKNOWN:
            continue
        rest = (part[: aside.start()] + part[aside.end() :]).strip()
        if _classify(rest, previous)[0] == "fact" and _has_own_content(rest):
            what = aside.group(1).strip()
            if not re.match(r"(?i)(?:the|a|an|our|its|their|his|her|this|we|i)\b", what):
                # "Customer Apps (lead not yet named)": whose lead
                owner = re.findall(r"[\w'’&-]+", part[: aside.start()])[-2:]
                what = " ".join([*owner, what])
            return [rest, what]
    masked = re.sub(r"\([^()]*\)", lambda m: "\x00" * len(m.group(0)), part)
    for m in _KNOWN_BREAK.finditer(masked):
        left, right = part[: m.start()].strip(), part[m.end() :].strip()
        if not left or not right or (_NOT_ITS_OWN.match(right) and not _WH_SUBJECT.match(right)):
            # ("…, who owns the press announcement is still undecided" is its own)
            continue
        kinds = (_classify(left, previous)[0], _classify(right, previous)[0])
        if (
            kinds[0] == "fact"
            and kinds[1] in _UNKNOWN
            and _has_own_content(left)
            and not _ITS_UNKNOWN.search(right)
            and not _ASKED_ABOUT.search(left)
        ) or (kinds[0] in _UNKNOWN and kinds[1] == "fact" and _has_own_content(right)):
            return [left, right]
    return []


def _has_own_content(text: str) -> bool:
    return bool(numbers_of(text)) or len(content_terms(text)) >= 2


def _withhold(checklist: list[Requirement]) -> None:
    """What a leave-out order elsewhere in the brief speaks of is not for the text: a fact
    of the brief that says it ("Her new salary is £52,000." beside "Don't mention her
    salary") becomes part of the order, and "no prices" takes the amounts of money out
    of every fact (the soup's description stays, its price goes)."""
    orders = [r for r in checklist if r["kind"] == "rule" and r["subject"] == "leave_out"]
    for order in orders:
        about, _ = left_out(order["text"])
        for r in checklist:
            if r["kind"] not in ("fact", "ask") or r is order:
                continue
            if about and about <= PRICE_WORDS and MONEY.search(r["text"]):
                rest = MONEY.sub("", r["text"])
                # and what said it: "… and costs", "(at )", "£7 each"
                rest = re.sub(
                    r"\(\s*\)|\s*\b(?:and\s+)?(?:costs?|priced\s+at|at|for)\s*(?=[.;,]|$)", "", rest
                )
                rest = rest.strip(" ,;:.-")
                if len(content_terms(rest)) < 2:
                    r.update({"kind": "rule", "subject": "leave_out"})
                else:
                    r.update(
                        {"text": rest, "terms": content_terms(rest), "numbers": numbers_of(rest)}
                    )
                continue
            mine = set(r["terms"])
            plain = about - PRICE_WORDS
            if (
                plain
                and (plain <= mine if len(plain) <= 2 else len(plain & mine) >= 2)
                or _labelled_as(r["text"], plain)
            ):
                r.update({"kind": "rule", "subject": "leave_out"})


_SHORT_LABEL = re.compile(r"^\s*([^\W\d_]{3,})\.?\s*:")


def _labelled_as(text: str, about: set[str]) -> bool:
    """`text` is a labelled line whose label is short for what an order leaves out
    ("Mob: 07700 900461" beside "don't put his mobile in")."""
    label = _SHORT_LABEL.match(text)
    if not label:
        return False
    short = label.group(1).lower()
    return any(len(a) > len(short) and a.startswith(short) for a in about)


def _req(index: int, kind: Kind, text: str, subject: str) -> Requirement:
    return requirement(f"R{index + 1}", kind, text, subject)


def requirement(rid: str, kind: Kind, text: str, subject: str) -> Requirement:
    """An item of a checklist: its words, and the terms and figures code checks for."""
    text = text.strip()
    if kind in ("missing", "gap"):
        # The unknown value is not a term to find; what it is about is.
        terms = content_terms(subject + " " + MISSING_CUE.sub(" ", text))
        numbers: list[str] = []
    else:
        terms, numbers = content_terms(text), numbers_of(text)
    return Requirement(id=rid, kind=kind, text=text, terms=terms, numbers=numbers, subject=subject)
