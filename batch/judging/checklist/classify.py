"""One item of a brief -> its kind, the text a draft must cover and its subject
(`_classify`): a fact to say, an ask of the readers, a fact not known yet (missing) or
one to tell as not known (gap), who signs the text, or an order to the writer (task,
style, rule).

The verbs and patterns only this reading needs are here: the verbs a writer's task or a
relay opens with, the labels of a notes brief ("Action:", "Book:", "Staff to:"), the
many shapes of an ask ("Reply by Friday", "£14 -> ParentPay by 9 May", "kids there 30
minutes before KO"). Those reading.py needs as well are in cues.py; those of a fact not
known yet in missing.py.
"""

from __future__ import annotations

import re

from batch.check_types import Kind
from batch.judging.checklist.cues import (
    _CALENDAR,
    _DATE_NAME,
    _LABEL_LINE,
    _LIST_COMMA,
    _MAKE_CLEAR,
    _ORDER_LABELS,
    _ORDERS,
    _POLITE_LEAD,
    _READERS,
    _READERS_OBLIGED,
    _SIGN,
    _SIGN_LABELS,
    _TASK_SENTENCE,
    _WRITER_LABEL,
    DOC_NOUNS,
    HAS_VERB,
    _first_word,
    _lead,
)
from batch.judging.checklist.missing import (
    _HEDGE,
    _PENDING_WORK,
    _READERS_TOLD,
    _TELL_TAIL,
    _UNKNOWN_VALUE,
    MISSING_CUE,
    TELLS_INSIDE,
    _missing_subject,
)
from batch.judging.orders import (
    NO_GUESS_TAIL,
    TEXT_PARTS,
    is_text_request,
    order_kind,
)
from batch.judging.wording import (
    WORD,
    content_terms,
    numbers_of,
)

# Verbs that open an order to the writer ("Keep it short", "Use a warm tone") as often
# as one to the readers ("Keep your receipts"): the writer's only when it is about the
# text.
_READER_VERBS = frozenset({"keep", "use", "avoid", "give", "do"})
_ABOUT_THE_TEXT = re.compile(
    r"(?i)\b(?:it|this|text|memo|email|e-mail|note|letter|copy|page|description|notice|"
    r"tone|style|voice|words?|sentences?|paragraphs?|short|brief|concise|jargon|language|"
    r"formal|informal|friendly|plain|bullet|bullets|headings?|title|format|markdown|"
    r"exclamation|emoji|length|register|wording|phrases?|adjectives?)\b"
)

TASK_VERBS = (
    "write",
    "draft",
    "create",
    "produce",
    "prepare",
    "compose",
    "document",
    "describe",
    "generate",
    "give",
    "keep",
    "use",
    "avoid",
    "do",
)
RELAY_VERBS = (
    "tell",
    "inform",
    "remind",
    "announce",
    "explain",
    "mention",
    "say",
    "let",
    "notify",
    "warn",
    "ask",
    "invite",
    "encourage",
    "note",
)

# The form of the text ("in one short paragraph", "for the help centre", "answer this
# question"): an order that names it is the writer's, whatever verb opens it.
_TEXT_FORM = re.compile(
    r"(?i)\b(?:in|as|with)\s+(?:one|two|three|a|an|\d+)?\s*(?:short\s+|single\s+|brief\s+)?"
    r"(?:paragraphs?|sentences?|words?|bullets?|bullet points?|lines?)\b"
    r"|\bfor the (?:help ?cent(?:re|er)|faq|website|newsletter|intranet|blog|app store|"
    r"shop page|product page)\b|\b(?:answer|respond to|reply to) (?:this|the following|"
    r"the) (?:question|faq|query)\b"
)

_WRITER_VERBS = frozenset(
    {
        "answer",
        "respond",
        "reply",
        "summarise",
        "summarize",
        "outline",
        "list",
        "cover",
        "address",
        "turn",
        "rewrite",
        "explain",
    }
)

_RELAY = re.compile(
    r"^(?P<lead>(?:please\s+)?(?:" + "|".join(RELAY_VERBS) + r")\b(?:\s+[\w'-]+){0,8}?"
    r"\s+(?:that|to|about|know that|know)\b)\s*(?P<rest>.+)$",
    re.IGNORECASE,
)

_TASK_LABELS = frozenset(
    {
        "task",
        "request",
        "need",
        "needed",
        "job",
        "piece",
        "deliverable",
        "output",
        "type",
        "doc",
        "document",
        "subject",
        "re",
        "asking for",
        "writing",
    }
)
_READERS_LABEL_NAME = re.compile(r"(?i)^\w+(?:\s+\w+)?\s+(?:must|should|to|need\s+to|have\s+to)$")
_TO_DO_LABEL = re.compile(r"(?i)^\w+\s+to$|^to[\s-]?do$")
# a label's value that is an order: its verb, then what it acts on ("ring 01632 960418",
# "Keep your key card…"); not a noun that can be a verb ("Head of Customer Support")
_IMPERATIVE_VALUE = re.compile(
    r"(?i)^(?:please\s+|pls\s+)?(?:don['’]?t\s+|do\s+not\s+|never\s+)?[a-z]+\s+"
    r"(?:your|the|a|an|it|them|to|at|by|on|in|for|up|off|out|back|away|one|this|these|any|"
    r"all|their|his|her|via|online|early|before|after|now|today|with|from|\d)"
)
_READER_LABEL = re.compile(
    r"(?i)^(?:action|actions|to do|todo|to-do|please|action needed|what to do|"
    r"next steps?|call to action|cta|rsvp|reply|bring|please bring|wear|remember|"
    r"don't forget|dont forget|you'll need|you will need|what to bring|to bring|pack|"
    r"(?:and\s+)?(?:please\s+)?(?:ask|asks|remind|tell|warn)(?:\s+(?:him|her|them|everyone|"
    r"everybody|people|customers|guests|staff|readers|residents|parents|tenants|members|"
    r"players|clients|owners))?|(?:customers|staff|guests|residents|"
    r"parents|members|readers|everyone|people|tenants|users|visitors|attendees|"
    r"volunteers|you|owners|clients|patients|students|players|drivers)\s+"
    r"(?:must|should|need to|needs to|have to|has to|can|may|will need to|are asked to)"
    r"(?:\s+\w+)?)$"
)
# a fact given with an order to leave it out, in the same sentence or line
_WITHHOLDS = re.compile(
    r"(?i)(?:[;,(:–—-]|\bbut\b|\band\b)\s*(?:but\s+)?(?:please\s+|pls\s+)?"
    r"(?:(?:don'?t|do\s+not|never)\s+(?:mention|name|include|say|give|list|quote|use|"
    r"print|publish|state|share|put|call|spoil|reveal|give\s+away)\b|(?:obviously\s+|just\s+)?leave\s+(?:[\w'’-]+\s+){1,4}?"
    r"(?:out|off)\b|leave\s+out\b|not\s+for\s+(?:the\s+text|publication|print)\b|"
    r"keep\s+(?:[\w'’-]+\s+){1,3}?out\b|"
    r"off\s+the\s+record\b|no\s+(?:\w+\s+){0,2}?(?:prices?|pricing|costs?|fees?|figures?|"
    r"names?|mention)\b|(?:she|he|they|we)['’]d\s+rather\s+(?:we|you)\s+(?:didn['’]?t|not)\b|"
    r"keep\s+(?:it|that|this|them)\s+out\b|(?:internal|background)\s+only\b|"
    r"no\s+need\s+to\s+(?:mention|say|include)\b)"
)

# words a brief's clause opens with that say the readers are asked ("asking them to
# donate online", "to bring a waterproof", "that they update their standing order")
_ASK_LEAD = re.compile(
    r"(?i)^(?:(?:and\s+)?(?:asking|ask|reminding|remind|inviting|invite|encouraging|"
    r"encourage|telling|tell|urging|urge)\s+(?:them|everyone|everybody|people|staff|"
    r"guests|customers|members|readers|residents|parents|him|her|colleagues|all)\s+to\s+)"
)
# what joined a clause to the one before ("and sign it from Maria", "also bring a coat")
_JOINING_WORD = re.compile(r"(?i)^(?:and|also|plus|then)\s+(?=\w)")
_GAP_FOR = re.compile(
    r"(?i)^(?:please\s+|just\s+)?(?:leave|put|add)\s+(?:a|an)\s+(?:gap|space|blank|placeholder)"
    r"\s+(?:for|where)\s+(?:the\s+)?(.+?)(?:\s+(?:because|as|since|until|till)\b.*)?[.;]?$"
)
_TOLD_QUOTE = re.compile(
    r"(?i)^(?:please\s+)?(?:tell|remind|ask|warn)\s+(?:them|everyone|people|him|her|readers|"
    r"guests|customers|staff|tenants|residents|parents)\s*[:,]?\s*(?:[\"“](.+?)[\"”]?\s*[.]?$"
    r"|(?:that\s+)?((?:don['’]?t|do\s+not|never|please)\b.+)$)"
)
_MAKE_CLEAR_LEAD = re.compile(r"(?i)^(?:please\s+)?" + _MAKE_CLEAR + r"(?:that\s+)?")
_OBLIGED_LEAD = re.compile(
    r"(?i)^" + _READERS + r"(?:['’](?:ll|d|re))?\s+(?:(?:all|also|just|still|then|will)\s+)?"
    r"(?:should|must|need(?:s)?\s+to|have\s+to|has\s+to|are\s+asked\s+to|is\s+asked\s+to|"
    r"will\s+need\s+to|are\s+expected\s+to|ought\s+to|are\s+to|is\s+to)\s+(?=\w)"
)
_READERS_NAME = re.compile(r"(?i)^" + _READERS + r"$")

# a deadline: "by Friday", "by 28 June", "by Fri 28 June", "by the end of May"
_BY_DATE = (
    r"\bby\s+(?:the\s+end\s+of\s+)?(?:\d|(?:" + _CALENDAR + r")\b|tomorrow|tonight|noon|midday)"
)
_BY_WHEN = re.compile(r"(?i)" + _BY_DATE)

_SIGNED_BY = re.compile(
    r"(?i)^(?:and\s+)?(?:signed(?:\s+(?:off|by|from|as))*|sign\s+off\s+as|sign(?:\s+it)?(?:\s+off)?:?|"
    r"from)\s+(?P<who>(?:the\s+)?(?-i:[A-Z])[^,;.0-9]{1,60}?(?:,\s*(?![\d£$€])[^,;.]{1,40}){0,2})"
    r"\s*[.;]?$"
    # "Marcus Webb, IT Manager (sign)"
    r"|^(?P<named>(?-i:[A-Z])[^;.0-9()]{1,80}?)\s*\((?:sign(?:ed)?|sign-?off|signature|"
    r"sender|from)\)\s*\.?$"
)

_QUOTED = re.compile(r"^[\"“”'‘’]+|[\"“”'‘’]+(?=[.,;!]?$)")
_READERS_DONT = re.compile(r"(?i)^(?:please\s+|pls\s+|kindly\s+)?(?:don'?t|do\s+not|never)\s+\w")


def _classify(item: str, previous: str = "") -> tuple[Kind, str, str]:
    """(kind, the text that must be covered, subject or lead phrase). A fact not known
    yet that the brief asks to tell the readers about ("not set yet - say so", "staff
    will hear when it is") is a gap to tell, not a placeholder to fill."""
    told = TELLS_INSIDE.search(item)
    if told and _PENDING_WORK.search(item[: told.start()]):
        # "root-cause review not done -> say it'll follow": work not finished, which the
        # text is to say will follow; neither a fact to state as done nor an ask
        core = item[: told.start()].strip(" ,;:-")
        return "gap", item, _missing_subject(_PENDING_WORK.sub(" ", core), previous)
    kind, body, subject = _classify_one(item, previous)
    if kind == "missing" and (told or _READERS_TOLD.search(item)):
        return "gap", body, subject
    return kind, body, subject


# a label that names the text or a part of it, whose length a value may limit
_TEXT_LABEL = re.compile(r"(?i)\b(?:" + TEXT_PARTS + r")\b")


def _classify_one(item: str, previous: str = "") -> tuple[Kind, str, str]:
    item = _JOINING_WORD.sub("", item)
    signed = _SIGN.match(item.strip())
    if signed:
        # an order about the text itself: who signs it, not a fact to say
        return "sign", signed.group("who").strip(), signed.group("who").strip()
    label = _LABEL_LINE.match(item)
    if label and _RELAY.match(item) and _first_word(item) in RELAY_VERBS:
        label = None  # "Ask guests to: reply by Friday" is a relay, read below
    name = label.group(1).strip().lower() if label else ""
    if label and MISSING_CUE.search(name) and order_kind(label.group(2)) in (None, "no_guess"):
        # "price tbc: don't guess", "venue not confirmed: leave a gap"
        return "missing", item, _missing_subject(name, previous)
    if name in _ORDER_LABELS:
        return "rule", item, _ORDER_LABELS[name]
    if (
        label
        and order_kind(name) in ("layout", "length", "tone")
        and not numbers_of(label.group(2))
        and len(content_terms(label.group(2))) <= 3
    ):
        # "Split it into two sections: before and after": the value is the order's own
        return "rule", item, order_kind(name) or ""
    if label and order_kind(name) == "leave_out":
        # "No prices: Saturday hire is £4,800, but …": what the text leaves out
        return "rule", item, "leave_out"
    if label and name in _SIGN_LABELS:
        who = label.group(2).strip(" .")
        return "sign", who, who
    if label and (
        name in _TASK_LABELS
        or (name in ("what", "for", "item") and is_text_request(label.group(2)))
    ):
        # "What: safety recall notice", "Subject: kettle recall": the text asked for
        return "task", item, _lead(item)
    if (
        label
        # ("Next step: we email him a courier label" is what we do, a fact)
        and not _WE_DO.match(label.group(2).strip())
        and (
            _READER_LABEL.match(name)
            or _TO_DO_LABEL.match(name)
            or _READERS_DONT.match(name)
            or _READERS_OBLIGED.search(name + " ")
            or (_first_word(name) in _ORDERS and _IMPERATIVE_VALUE.match(name + " "))
        )
    ):
        # "Customers must: stop using it", "Action: reply by Friday", "Staff to: read";
        # its label is the brief's, never the text's ("Owner should: book online")
        if re.match(r"(?i)^(?:and\s+)?(?:please\s+)?(?:ask|remind|tell|warn)\b", name):
            return "ask", label.group(2).strip(), label.group(1).strip()
        return "ask", item, label.group(1).strip() if _READERS_LABEL_NAME.match(name) else ""
    if label and (
        (_ACT_LABEL.match(name) and _CONTACT.search(label.group(2)))
        or (_FETCH_LABEL.match(name) and _WHERE_WHEN.search(label.group(2)))
    ):
        # "Book: greenfieldvets.co.uk / 01632 488120", "Sign up: northsidefoodbank.org":
        # where the readers do it is asking them to
        return "ask", item, ""
    if label and _READERS_NAME.match(name) and _first_word(label.group(2)) in _ORDERS:
        # "tenants: update standing order before the first April payment"
        return "ask", item, ""
    if label and len(name.split()) <= 5 and not _WRITER_LABEL.match(name):
        # "Booking: ring 01632 960418", "Guests: Keep your key card away from your
        # phone": what the value is, the line is; never what its name is ("Collect:",
        # "Claim ref:", "Book:" name a thing, not an order)
        value = label.group(2).strip()
        value_kind, _, value_subject = _classify(value, previous)
        if value_kind == "ask" and not (
            _IMPERATIVE_VALUE.match(value)
            or _READERS_DONT.match(value)
            or _ASK_LEAD.match(value)
            or _READERS_OBLIGED.search(value)
        ):
            value_kind = "fact"
        if value_kind == "missing":
            return "missing", item, _missing_subject(item, previous)
        if value_kind == "rule" and order_kind(value) == "length" and not _TEXT_LABEL.search(name):
            # "New passwords: at least 14 characters": a length of something in the world
            return "fact", item, ""
        if value_kind in ("ask", "rule", "gap"):
            return value_kind, item, value_subject if value_kind != "ask" else ""
        if value_kind == "fact" and any(
            _first_word(p) in _ORDERS and _IMPERATIVE_VALUE.match(p.strip() + " ")
            for p in _LIST_COMMA.split(value)[1:]
        ):
            # "Cost: £14, pay on ParentPay by 9 May": what it is, then what they do
            return "ask", item, ""
        if value_kind in ("fact", "task", "style", "sign"):
            return "fact", item, ""
    signed = _SIGNED_BY.match(item.strip())
    who = (signed.group("who") or signed.group("named") or "").strip() if signed else ""
    if who and not _DATE_NAME.match(who):
        # "…, signed Coach Dave Pryor", "from the Homewise Customer Safety Team"
        return "sign", who, who
    unquoted = _QUOTED.sub("", item.strip())
    if unquoted != item.strip() and unquoted:
        # '"Don't park on the school grounds"': the brief quotes what the text says
        return _classify(unquoted, previous)
    asked = _ASK_LEAD.match(item)
    if asked and asked.group(0).split()[-3].lower().endswith("ing"):
        # "asking them to donate online": what they are asked, after its lead
        return "ask", item[asked.end() :], asked.group(0).strip()
    if _READERS_OBLIGED.search(item):
        # "Staff should save their work…": the ask is what they are to do; "Please make
        # clear people shouldn't book…": the lead is the writer's
        item = _MAKE_CLEAR_LEAD.sub("", item)
        obliged = _OBLIGED_LEAD.match(item)
        return "ask", item[obliged.end() :] if obliged else item, ""
    if _WITHHOLDS.search(item) and order_kind(item) is None:
        # "It's made by Kaiyo Appliances, but don't name the manufacturer": what the
        # text must leave out, given so the writer knows what not to say
        return "rule", item, "leave_out"
    gap_for = _GAP_FOR.match(item)
    if gap_for:
        # "leave a gap for the end-of-year reading scores because we're still waiting"
        return "missing", item, _missing_subject(gap_for.group(1), previous)
    quoted = _TOLD_QUOTE.match(item)
    if quoted:
        # 'Tell them "Use your flat number as the payment reference"': what they are told,
        # and its lead the brief's ("Please tell people" is never the text's)
        told = quoted.group(1) or quoted.group(2)
        kind, body, subject = _classify(told, previous)
        lead = item[: item.find(told)].strip(' :,"“')
        return kind, body, subject or (lead if kind in ("fact", "ask") else "")
    tail = NO_GUESS_TAIL.search(item)
    core = item[: tail.start()].strip(" ,;:-") if tail else item
    if tail and not core:
        # "Don't guess it.": the writer's, and a cue for the fact before it
        return "rule", item, "no_guess"
    if _UNKNOWN_VALUE.search(core) or (tail and not MISSING_CUE.search(core)):
        # "Battery life: ?", "Battery life, don't guess it": not known
        return "missing", item, _missing_subject(core.rstrip(" ?:"), previous)
    if MISSING_CUE.search(core) and not _HEDGE.search(core) and order_kind(core) is None:
        told = _TELL_TAIL.match(core)
        if told and not _RELAY.match(core) and core[told.end() :].strip():
            # "Tell residents they will be announced later": the gap is told
            rest = core[told.end() :].strip()
            return "gap", rest, _missing_subject(rest, previous)
        if not _RELAY.match(core):
            return "missing", item, _missing_subject(core, previous)
    order = order_kind(item)
    if order == "request":
        return "task", item, _lead(item)
    if order is not None:
        return "rule", item, order
    if _READERS_DONT.match(item) or (
        _POLITE_LEAD.match(item) and _first_word(_POLITE_LEAD.sub("", item)) in _ORDERS
    ):
        # "Don't park in the loading bay", "Please reply by Friday": the readers'
        return "ask", item, ""
    if _LET_US_KNOW.match(item):
        # "Let us know about allergies by Friday": the readers tell us; not a relay
        return "ask", item, ""
    first = _first_word(item)
    relay = _RELAY.match(item)
    if relay and first == "please":
        first = _first_word(_POLITE_LEAD.sub("", item))
    if relay and first in RELAY_VERBS:
        rest = relay.group("rest")
        if MISSING_CUE.search(rest):
            # "Say that the date will be announced next week": the gap is told.
            return "gap", rest, _missing_subject(rest)
        relayed: Kind = "ask" if first in ("ask", "invite", "encourage", "remind") else "fact"
        return relayed, rest, relay.group("lead")
    if first in _READER_VERBS and (
        # "Keep it short", "Use a warm tone": about the text within its first words;
        # "Use a bag with your child's name on it" is not
        not _ABOUT_THE_TEXT.search(" ".join(item.split()[:4]))
        or re.match(r"(?i)^\w+\s+(?:your|their)\b", item)
        # "use the online page to donate": what the page is for is the readers' act
        or _READERS_PURPOSE.search(item)
    ):
        # "Keep your receipts", "Use the side entrance": what the readers must do
        return "ask", item, ""
    if first in ("reply", "respond", "rsvp") and _BY_WHEN.search(item):
        # "Reply to the invitation by Friday 28 June": a deadline is the readers'; the
        # writer's own reply ("Reply to this complaint") has none
        return "ask", item, ""
    if (
        first in _CHOICE_VERBS
        and re.match(r"(?i)^\w+\s+(?:which|what|when|how|who|where)\b", item)
        and not _BY_WHEN.search(item)
        and not re.search(r"(?i)\b(?:and|then|please|pls)\s+\w", item)
    ):
        # "pick which folders sync to each device": what a product lets one do, said
        # in notes; not an order to the readers
        return "fact", item, ""
    if (
        first in _ORDERS
        # "Email and calendar were down": a noun that is also an order's verb
        and not re.match(r"(?i)^\w+\s+(?:and|or|is|are|was|were|has|have|had|will|of)\b", item)
        and not _NOUN_FIRST.match(item)
        and first not in TASK_VERBS
        and first not in RELAY_VERBS
        and not _TASK_SENTENCE.match(item)
        and not _TEXT_FORM.search(item)
    ):
        # "Reply to this email if it has not arrived", "Bring your badge": an order to
        # the readers
        return "ask", item, ""
    if (
        (first in _WRITER_VERBS or first in TASK_VERBS or first in RELAY_VERBS)
        and _TEXT_FORM.search(item)
        and not _RELAY.match(item)
    ):
        # "Answer this question for the help centre in one short paragraph"
        return "task", item, _lead(item)
    if item.rstrip().endswith(":") and len(WORD.findall(item)) <= 6:
        # "Facts:", "Include these points:" on a line of its own, the list below it
        return "task", item, _lead(item)
    if first in RELAY_VERBS and first not in ("tell", "let") and not _TASK_SENTENCE.match(item):
        # "Say hello at the coffee point at 10:00", "Mention the new parking rules": a
        # relay verb with no "that" or "to", and something to carry out. What the text
        # must do, in its own words; no lead of the writer's to copy.
        rest = item.split(None, 1)[1] if len(item.split()) > 1 else ""
        if first == "say" and (_READERS_TOLD.search(rest) or MISSING_CUE.search(rest)):
            # "so say results will follow": what is not known yet, told
            return "gap", rest, _missing_subject(rest, previous)
        if len(content_terms(rest)) >= 2 or numbers_of(rest):
            kind = "ask" if first in ("say", "ask", "invite", "encourage", "remind") else "fact"
            return kind, item if kind == "ask" else rest, ""
    if first in TASK_VERBS or first in RELAY_VERBS or _TASK_SENTENCE.match(item):
        # "Write a memo...", "Memo to all staff.", or a relay with nothing to relay
        return "task", item, _lead(item)
    if MISSING_CUE.search(item) and not _HEDGE.search(item):
        return "missing", item, _missing_subject(item, previous)
    if (
        not previous
        and _TITLE_REQUEST.match(item)
        and not HAS_VERB.search(item)
        and len(item.split()) <= 8
        and not _NOUN_FIRST.match(item)
    ):
        # the brief's first line, naming the text in a few words and no verb: "menu
        # blurbs x2 new soups", "booster reminder → Mrs Hollis"
        return "task", item, _lead(item)
    if (
        _READERS_BE_THERE.search(item)
        or _PAY_BY.search(item)
        or _DONE_TO_THEIRS.search(item)
        or (_MAKE_SURE.match(item) and not _ABOUT_THE_TEXT.search(item))
        or (_POLITE_LEAD.match(item) and _first_word(_POLITE_LEAD.sub("", item)) not in _NOT_ASKS)
        or (_PLEASE_END.search(item) and not HAS_VERB.search(item))
        or (first in _DEADLINE_VERBS and _BY_WHEN.search(item))
        or (_REQUIRED_THING.search(item) and not _NONE_REQUIRED.search(item))
        or _NAMED_BELONGING.search(item)
    ):
        # "kids there 30 minutes before KO", "£14 → ParentPay by 9 May", "to be paid on
        # ParentPay by 9 May": where the readers must be, or what they pay, by when
        return "ask", item, ""
    # "The time may move; IT will confirm it on the day": an uncertainty about a fact
    # the brief gives, for the text to pass on; nothing to ask a person
    return "fact", item, ""


# a label naming what the readers do, and a way to reach where they do it
_ACT_LABEL = re.compile(
    r"(?i)^(?:to\s+)?(?:book|booking|bookings|call|ring|phone|pay|payment|register|"
    r"registration|apply|applications?|order|orders|reserve|reservations?|rsvp|sign\s*-?up|"
    r"enrol|enroll|enrolment|donate|donations?|tickets?|replies|reply|respond)$"
)
_CONTACT = re.compile(
    r"(?i)\b[\w-]+(?:\.[\w-]+)*\.(?:com|org|net|co\.uk|org\.uk|gov\.uk|ac\.uk|uk|io|app|"
    r"info|local|eu|de|fr|ie)\b|\bwww\.|https?://|[\w.+-]+@[\w-]+\.[\w.]+"
    r"|(?:\+?\d[\d ()-]{8,}\d)"
)
_TITLE_REQUEST = re.compile(
    r"(?i)^(?!(?:we|i|he|she|they|you|it|there|to|and)\b)(?:[\w'&-]+\s+){0,3}?" + DOC_NOUNS + r"\b"
)

# verbs an order opens with that are also other things; an order with a deadline
# ("reset network pw by Fri 14 March 5pm")
_DEADLINE_VERBS = frozenset({"reset", "change", "renew", "finish", "review", "update", "read"})
# a thing the readers must have or do, said as required: "passport valid until 12 January
# min", "photo ID required", "booking essential", "helmets compulsory"
_REQUIRED_THING = re.compile(
    r"(?i)^(?:[\w'’-]+\s+){1,3}(?:required|essential|compulsory|mandatory|a\s+must)\b"
    r"|^(?:your\s+)?(?:passports?|ids?|photo\s+id|tickets?|licen[cs]es?|visas?|cards?|"
    r"membership)\s+(?:must\s+be\s+)?valid\s+(?:until|till|to|for)\b"
)
# belongings to be marked with their owner's name: "packed lunch in a bag w/ child's name
# on", "named water bottle", "coats labelled with your name"
_NAMED_BELONGING = re.compile(
    r"(?i)\b(?:with|w/)\s*(?:their|your|the|his|her|a|child['’]s|(?:\w+['’]s))\s+"
    r"(?:(?:child['’]s|own|full)\s+)?name\s+on\b"
    r"|\b(?:named|labelled|labeled|name-?tagged)\s+(?:bags?|bottles?|water\s+bottles?|coats?|"
    r"kit|clothes|clothing|lunch\s*box(?:es)?|boxes|jumpers?|items|belongings)\b"
    r"|\b(?:bags?|bottles?|coats?|kit|clothes|clothing|lunch\s*box(?:es)?|jumpers?|items|"
    r"belongings)\s+(?:clearly\s+)?(?:named|labelled|labeled|marked)\b"
)
_NONE_REQUIRED = re.compile(r"(?i)^(?:no|none|not)\b|\b(?:not|none|no)\s+(?:required|needed)\b")
# the readers somewhere by a time, said without a verb
_READERS_BE_THERE = re.compile(
    r"(?i)^" + _READERS + r"\s+(?:there|here|in|at|on|to)\b[^.;]{0,60}?"
    r"\b(?:before|by|no\s+later\s+than|early|sharp|latest|on\s+time)\b"
)
# a payment or a form due by a date: "£14 → ParentPay by 9 May", "to be paid on ParentPay
# by 9 May", "forms to be returned by Friday"
_PAY_BY = re.compile(
    r"(?i)(?:\bto\s+be\s+(?:paid|returned|handed\s+in|submitted|sent|signed|completed|"
    r"filled\s+in|booked)\b|[£$€]\s?\d[\d.,]*\s*(?:→|->|\bvia\b|\bon\b|\bto\b|\bat\b))"
    r"[^.;]{0,60}?" + _BY_DATE
)
_CHOICE_VERBS = frozenset({"pick", "choose", "decide", "control", "select", "set", "see"})
# a thing handed back by a date: "forms back to the office by Wed". (A passive
# obligation, "Forklifts must be parked in bay 4", stays a fact, as the judged set reads
# it: a text says it with its "must", which asks.)
_DONE_TO_THEIRS = re.compile(r"(?i)\bback\s+(?:to|with|in)\b[^.;]{0,40}?" + _BY_DATE)
_LET_US_KNOW = re.compile(r"(?i)^(?:please\s+|pls\s+)?let\s+(?:us|me)\s+know\b")
_MAKE_SURE = re.compile(r"(?i)^(?:please\s+|pls\s+)?(?:make|be)\s+sure\s+")
# "Please hand keys in at reception": after "please", an order; not a relay ("Please
# note…", "Please tell…") nor the writer's ("Please write…")
_NOT_ASKS = frozenset(
    {
        *RELAY_VERBS,
        *TASK_VERBS,
        *_WRITER_VERBS,
        "make",
        "sign",
        "send",
        "include",
        "add",
        "put",
        "insert",
        "feature",
        "credit",
        "quote",
        "cite",
        "list",
    }
)
# "sturdy shoes pls", "no bags on the seats please": a thing asked for, with no verb
_PLEASE_END = re.compile(r"(?i)\b(?:please|pls|plz)\s*[.!]*\s*$")
# a label naming what the readers fetch or hand in, and a value saying where or when:
# "Collect: box office, Monday–Friday, 10am–4pm", "Drop off: reception by Friday"
_FETCH_LABEL = re.compile(
    r"(?i)^(?:to\s+)?(?:collect|collection|pick\s*-?\s*up|drop\s*-?\s*off|hand\s+in|bring)$"
)
_WHERE_WHEN = re.compile(
    r"(?i)\b(?:" + _CALENDAR + r")\b|\d\s*(?:am|pm)\b|\d:\d\d|\b(?:from|at|by|before)\s+"
    r"|\b(?:reception|box\s+office|front\s+desk|desk|office|counter|library|hall)\b"
)
# what a thing is used for, when that is something the readers do
_READERS_PURPOSE = re.compile(
    r"(?i)\bto\s+(?:donate|book|pay|register|apply|order|buy|sign\s+up|reserve|give|vote|"
    r"enter|report|join|log\s+in|check\s+in|rsvp|reply|contact|get\s+in\s+touch)\b"
)
_WE_DO = re.compile(r"(?i)^(?:we|we['’]ll|we['’]re|i|i['’]ll|our\s+\w+)\b")
# an order's verb that is a noun here: one of a list ("email + calendar down"), or what
# a number or a reference names ("order 48213 arrived late", "claim reference KW-20931")
_NOUN_FIRST = re.compile(
    r"(?i)^\w+\s*(?:\+|&)\s*\w"
    # "claim approved", "order delayed until Monday", "booking confirmed": the noun and
    # what became of it; not "collect signed forms", whose participle names a thing
    r"|^\w+\s+(?:\w{2,}ed|down|late|full|closed|shut)"
    r"(?:\s*$|\s*[,.;:!?)]|\s+(?:by|until|till|on|at|for|in|from|to|due|because|as|and|but|"
    r"after|since|today|yesterday|again)\b)"
    r"|^(?:order|claim|ticket|case|invoice|flight|room|table|form|item|booking)\s+"
    r"(?:(?:ref(?:erence)?|no\.?|number|id)\s+)?#?[A-Z]*-?\d"
)
