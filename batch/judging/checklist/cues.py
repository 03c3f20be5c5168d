"""The patterns and word lists that more than one step of the checklist reads by: the
shape of a labelled line and where a list splits, the nouns that name the text asked
for ("memo", "notice", "blurb"), the readers as a brief speaks of them and the verbs
their orders open with, the labels of orders and signatures, the names of days and
months. classify.py and reading.py read a brief by them, coverage.py a draft, and two
checks a draft by the nouns that name a text and the verbs of a sentence (echo, notes);
a pattern only one module uses lives with it.
"""

from __future__ import annotations

import re

from batch.judging.wording import (
    CALENDAR_NAMES,
    CALENDAR_SHORT,
    WORD,
)

_LABEL_LINE = re.compile(r"^\s*([A-Za-z][\w '/-]{0,30}?)\s*:\s+(.+)$")

DOC_NOUNS = (
    r"(?:memo|email|e-mail|note|letter|announcement|message|post|description|"
    r"copy|text|page|documentation|docs|blurb|notice|update|invitation|invite|"
    r"reminder|newsletter|flyer|brochure|reply|answer|summary|report|listing|label|"
    r"card|bio|intro|introduction|paragraph|para|section|write-?up|round-?up|recap|"
    r"release|press\s+release|advert|poster|leaflet|caption|statement|item|piece|"
    r"call\s+for\s+\w+|call-?out)s?"
)
_TASK_SENTENCE = re.compile(
    # "Memo to team leads", "An email to a customer"; not "Reply to this email if ...",
    # the readers' order
    # up to three words that name it ("Lost property notice for"), none of them a verb
    # ("Ledger-7 replicates every message to three nodes" is a fact)
    r"^(?:(?:a|an|the)\s+)?(?:(?!(?:is|are|was|were|has|have|had|will|can|must|should)\b)"
    r"[\w'&-]+(?<!ed)(?<!es)\s+(?!(?:every|a|an|the|all|our|their|its|his|her|your)\b)){0,3}?"
    + DOC_NOUNS
    + r"(?:\s+(?:to|for|about|on|of)\b(?!\s+(?:this|that|it|us|me)\b)|\s+(?:please|pls)\b"
    r"|\s*[,:]\s|\s+[-–—]\s)"
    r"|^(?:we|i)\s+(?:need|want|would like)\s+(?:a|an|the)\s+[\w\s-]{0,40}?" + DOC_NOUNS + r"\b"
    # a title naming the text's form alone: "Release notes.", "Customer notice"
    # (not what the readers bring or show: "bring vaccination card", "show this post")
    r"|^(?!(?:bring|show|wear|carry|keep|return|collect|hand|present|fill|sign|complete|"
    r"pick|drop|display|scan|print|post)\b)(?:[\w'-]+\s+){0,2}" + DOC_NOUNS + r"s?\s*[.:!]?\s*$",
    re.IGNORECASE,
)

# Verbs an order to the readers opens with ("Reply by 5 May", "Bring your badge")
_ORDERS = frozenset(
    {
        "come",
        "join",
        "bring",
        "send",
        "reply",
        "fill",
        "update",
        "book",
        "check",
        "visit",
        "call",
        "contact",
        "email",
        "register",
        "sign",
        "submit",
        "save",
        "shut",
        "park",
        "follow",
        "attach",
        "head",
        "stop",
        "leave",
        "drop",
        "pop",
        "meet",
        "confirm",
        "pick",
        "return",
        "claim",
        "collect",
        "wear",
        "share",
        "post",
        "move",
        "clear",
        "switch",
        "turn",
        "log",
        "install",
        "download",
        "lock",
        "print",
        "order",
        "arrive",
        "remember",
        "rsvp",
        "plan",
        "expect",
        "allow",
        "reserve",
        "ring",
        "phone",
        "show",
        "donate",
        "give",
        "text",
        "arrange",
        "rearrange",
        "cancel",
        "tell",
        "read",
        "wait",
        "queue",
        "unplug",
        "keep",
        "use",
        "go",
        "take",
        "avoid",
        "report",
        "pay",
        "apply",
        "complete",
        "renew",
        "vote",
        "enter",
        "upload",
        "select",
        "click",
        "tap",
        "recycle",
        "wash",
        "refill",
        "speak",
        "talk",
    }
)


def _first_word(text: str) -> str:
    m = WORD.search(text)
    return m.group(0).lower() if m else ""


_JOINED = re.compile(r";\s+|,\s+(?:and|but)\s+")


def joined_clauses(sentence: str) -> list[str]:
    """The clauses a sentence joins with "; " or ", and" / ", but", stripped."""
    return [c.strip(" ,;") for c in _JOINED.split(sentence)]


def _lead(text: str) -> str:
    """A task's first words: what copying it into the text starts with."""
    return " ".join(WORD.findall(text)[:4])


_SIGN = re.compile(
    r"^(?:(?:please|pls|plz|kindly)\s+)?sign(?:\s+(?:it|this|the\s+\w+))?(?:\s+off)?\s+"
    r"(?:as|from|with|by|in the name of)\s+(?P<who>[^.;]{2,80}?)\s*[.;]?$",
    re.IGNORECASE,
)


# labels whose value is an order to the writer ("Leave out: prices", "Length: 80 words")
_ORDER_LABELS = {
    "leave out": "leave_out",
    "leave off": "leave_out",
    "avoid": "leave_out",
    "don't": "leave_out",
    "dont": "leave_out",
    "do not": "leave_out",
    "not": "leave_out",
    "no": "leave_out",
    "exclude": "leave_out",
    "omit": "leave_out",
    "skip": "leave_out",
    "don't mention": "leave_out",
    "do not mention": "leave_out",
    "length": "length",
    "word count": "length",
    "words": "length",
    "max words": "length",
    "limit": "length",
    "word limit": "length",
    "format": "layout",
    "layout": "layout",
    "structure": "layout",
    "style": "tone",
    "tone": "tone",
    "voice": "tone",
}
_SIGN_LABELS = frozenset(
    {
        "from",
        "signed",
        "sign off",
        "sign-off",
        "signoff",
        "signature",
        "sender",
        "sign as",
        "signed by",
        "sign",
        "sign from",
        "sign it from",
        "sign it",
        "signed off",
    }
)

# who the readers are, as a brief speaks of them ("customers should", "he must", "staff
# to:"); an obligation on them is an ask, whatever shape it comes in
_READERS = (
    r"(?:(?:all|the|our|any|every|each)\s+)?(?:customers?|people|staff|members?|guests?|"
    r"tenants?|clients?|players?|kids|children|owners?|patients?|growers?|everyone|everybody|"
    r"anyone|residents?|parents?|users?|visitors?|attendees|volunteers?|employees?|"
    r"colleagues|readers?|drivers?|students?|donors?|couples?|participants?|travell?ers?|"
    r"fans|supporters|shoppers|diners|passengers|commuters|neighbours|families|pupils|"
    r"learners|subscribers|listeners|followers|"
    r"team|he|she|they|you|nobody|no\s+one|none\s+of\s+you)"
)
# a writer's lead before what the readers must do: "Please make clear people shouldn't…"
_MAKE_CLEAR = r"make\s+(?:it\s+)?(?:clear|sure)\s+"
_READERS_OBLIGED = re.compile(
    r"(?i)(?:^|\bso\s+(?:that\s+)?|\bthat\s+|\bwhich\s+|:\s*|,\s*(?:and\s+)?|→\s*|->\s*|"
    r"^(?:and|also)\s+|"
    r"\b" + _MAKE_CLEAR + r"|"
    r"\b(?:i|we)(?:['’]d|\s+would)\s+like\s+)"
    + _READERS
    + r"(?:['’](?:ll|d|re))?\s+(?:(?:all|also|just|still|then|will)\s+)?(?:should(?:n['’]t)?|"
    r"must(?:n['’]t)?|need(?:s)?\s+to|have\s+to|has\s+to|are\s+asked\s+to|is\s+asked\s+to|"
    r"will\s+need\s+to|need\s+to|are\s+expected\s+to|ought\s+to|are\s+to|is\s+to|to|"
    r"(?:is|are)\s+(?:invited|welcome|reminded|requested|encouraged|urged|required)\s+to|"
    r"(?:can|could)(?=\s+(?:come|join|drop|pop|stop\s+by|check\s+(?:in|out)|"
    # "members can reserve a copy at the library", "she can book online or call": how
    # they do it, which is asking them to
    r"reserve|book|call|ring|phone|email|e-mail|reply|register|sign\s+up|order|pay|collect|"
    r"donate|apply|rsvp|contact|get\s+in\s+touch|pick\s+(?:\w+\s+)?up|drop\s+off)\b))"
    # an action, not a state: "must be at least 21" is a condition, a fact
    r"\s+(?!be\b|have\s+(?:held|been|had)\b)"
    # an obligation with no subject ("must bring photo ID"), or the readers and a verb
    # that orders ("Customers show this post at the till", "cake in the kitchen Fri 4pm
    # → everyone come"): the labelled corpus reads those as asks in every shape
    r"|(?i:^(?:must|should|need\s+to|have\s+to|will\s+need\s+to)\s+"
    r"(?!be\b|sound\b|read\b|feel\b|look\b|fit\b|come\s+across\b)\w)"
    r"|(?i:(?:^|→\s*|->\s*)" + _READERS + r"\s+(?:just\s+|simply\s+|then\s+|also\s+|first\s+)?"
    r"(?=(?:" + "|".join(sorted(_ORDERS)) + r")\b(?!\s+of\b)(?!\s+(?:on\s+)?\w+ing\b)))"
)

# the names of days and months, and their short forms, longest first
_CALENDAR = "|".join(sorted({*CALENDAR_NAMES, *CALENDAR_SHORT}, key=len, reverse=True))

_READERS_FIRST = re.compile(r"(?i)^" + _READERS + r"\s+(?!with\b)\w")

# a day, a month (or its short form), or a word of time: not a name of its own
_DATE_NAME = re.compile(r"(?i)^(?:" + _CALENDAR + r"|next|this|today|tomorrow|now|then)\b")

_POLITE_LEAD = re.compile(r"(?i)^(?:please|pls|plz|kindly)\s+")

HAS_VERB = re.compile(
    r"(?i)\b(?:is|are|was|were|will|has|have|had|can|must|should|does|do|did|need|needs)\b"
    r"|['’](?:ll|re|ve|s|d)\b"
)


# A label that hands the writer its material ("Use only these facts:", "Include these
# points:", "Based on the following details:"): the writer's, not the readers'. What
# follows it is the items; the label itself is none.
_WRITER_LABEL = re.compile(
    r"^(?:(?:please\s+)?(?:use|include|cover|mention|state|give|work\s+from|based\s+on|"
    r"draw\s+on|stick\s+to|here\s+are|with|key|main|the)\b[\w\s'-]{0,30}?\b)?"
    r"(?:facts?|points?|details?|information|info|notes?|data|material|bullets?)"
    r"(?:\s+(?:only|to\s+use|below|here|as\s+given))?$",
    re.IGNORECASE,
)


# Where a list of items splits: at a semicolon or comma, but not inside parentheses and
# not in a number ("more than 5,000 invoices" is one item)
_LIST_COMMA = re.compile(r";|,(?!\d{3}\b)(?![^()]*\))")
