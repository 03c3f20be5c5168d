"""What a brief asks, as a checklist code can verify a draft against.

Built once when a thread starts and frozen in its state, so every round is judged
against the same list and a person sees the same list in `review show` and the run log.

    brief text -> items (list items, "Label: a, b, c" lines, sentences)
               -> Requirement(kind, text, terms, numbers)

Kinds:
- fact:    something the text must say ("The team closed 42 new accounts")
- ask:     something the text must ask its readers to do ("update the CRM by Friday")
- missing: a fact the brief says is not known yet; the text carries a placeholder
- gap:     a fact not known yet that the brief asks to be *told* to the reader
- api:     a public name of a source file that the docs must cover
- sign:    who the text is signed from ("Sign it from the billing team"): its last lines
- task / style: instructions to the writer ("Write a memo…", "Tone: warm"); never
  covered, but never copied into the text either

A requirement is covered when one sentence of the draft, or two adjacent ones, hold
every number it holds and at least half of its key terms (content words, lightly
stemmed), and keep its negation; a figure is said in a clause that names what it is
about ("processed within 5 days" is not "reaches the card within 5 days"). Lenient on
wording, since a paraphrase keeps most content words; strict on place, since a fact's
words scattered over the text (an "item" here, a "refund" there) do not tell the
reader the fact.
"""

from __future__ import annotations

import ast
import functools
import re
from dataclasses import dataclass
from typing import Any

from batch.judging.brief_lines import (
    fragments,
    logical_lines,
    lower_case_sentences,
    run_on_clauses,
    signer,
)
from batch.judging.exports import exported_names
from batch.judging.orders import (
    MONEY,
    NO_GUESS_TAIL,
    PRICE_WORDS,
    TEXT_PARTS,
    emphasis_split,
    is_text_request,
    left_out,
    order_kind,
    request_split,
)
from batch.judging.wording import (
    CALENDAR_NAMES,
    CALENDAR_SHORT,
    STOPWORDS,
    WORD,
    content_terms,
    negated_terms,
    negation_near,
    numbers_of,
    sentences,
    stem,
    stems_of,
)
from batch.source_files import is_python, suffix_of
from batch.state import Kind, Requirement

COVERED_KINDS = frozenset({"fact", "ask", "gap", "api", "raises", "sign"})
# orders to the writer: never said, never copied; a rule's subject says what it orders
# (batch.judging.orders: leave_out, length, layout, tone, no_guess)
INSTRUCTION_KINDS = frozenset({"task", "style", "rule"})


_LIST_ITEM = re.compile(r"^\s*(?:[-*•]|\d+[.)])\s+(.*)$")
_LABEL_LINE = re.compile(r"^\s*([A-Za-z][\w '/-]{0,30}?)\s*:\s+(.+)$")

# what a brief says it cannot give yet ("can't give a date", "don't have the figure")
_INFO_WORDS = (
    r"date|dates|time|times|day|figure|figures|number|numbers|total|price|prices|cost|"
    r"costs|amount|name|names|venue|location|place|details?|answer|info|information|"
    r"deadline|result|results|rate|rates|fee|fees|timing|schedule|start|end"
)
_INFO_NOUN = r"(?:" + _INFO_WORDS + r")\b"
# "not known yet", "to be confirmed", "finance will confirm it on Monday", "TBD" ...
MISSING_CUE = re.compile(
    r"\b(?:not|isn't|aren't|hasn't|haven't)\s+(?:been\s+|yet\s+)?"
    r"(?:known|decided|confirmed|set|fixed|final(?:ised|ized)?|agreed|available|announced|"
    r"approved|signed|settled|chosen|published|released|ready|in)\b(?:\s+yet)?"
    r"|\b(?:to be|yet to be|still to be)\s+(?:confirmed|decided|announced|determined|set|"
    r"agreed|defined|fixed|finali[sz]ed)\b"
    r"|\bno\s+(?:results|figures?|numbers?|data|decision|date|price)\s+yet\b"
    r"|\bnot\s+yet\b|\bnot\b[^.;:]{0,40}?\byet\b"
    r"|\bwill\s+(?:be\s+)?(?:confirm|announce|decide|share|publish|tell|inform)(?:e?d)?\b"
    r"|\bunknown\b|\bundecided\b|\bunconfirmed\b|\bpending\b|\bTB[CDA]\b|\bstill open\b"
    r"|\bleave a (?:gap|placeholder|blank)\b|\b(?:nobody|no one)\s+(?:knows|has)\b"
    r"|\bnothing is (?:yet\s+)?known\b|\bno (?:information|details?|word)\s+(?:yet\s+)?"
    r"(?:on|about|of|regarding)\b"
    # the ways a busy colleague says it: "still waiting on the lab", "we don't have the
    # figure yet", "can't give a date", "no idea yet", "haven't heard back from the
    # venue", "ask me nearer the time", "details to follow", "don't guess it"
    r"|\b(?:still|we'?re|we are|i'?m|i am)\s+waiting\s+(?:on|for|to hear)\b"
    r"|\bwaiting\s+(?:on|to hear from)\b|\bawaiting\b"
    # "don't have a figure", "can't give a date": not "we don't have parking" or "we
    # can't give refunds", which are facts
    r"|\b(?:don'?t|do not|doesn'?t|does not|didn'?t|did not)\s+(?:have|know)\s+"
    r"(?:(?:the|a|an|any|its|their|our)\s+)?(?:exact\s+|final\s+)?" + _INFO_NOUN + r""
    r"|\b(?:don'?t|do not|doesn'?t|does not|didn'?t|did not)\s+(?:have|know)\b[^.;]{0,40}\byet\b"
    r"|\b(?:don'?t|do not|doesn'?t|does not)\s+know\s+(?:when|what|how|who|where|if|whether)\b"
    r"|\b(?:can'?t|cannot|can not|couldn'?t)\s+(?:give|say|tell|share|confirm|promise|"
    r"put)\s+(?:you\s+)?(?:(?:the|a|an|any|its|their|our)\s+)?(?:exact\s+|final\s+)?"
    r"(?:[a-z][\w-]*\s+)?"  # "can't give a launch date"
    + _INFO_NOUN
    + r"|\bno idea\b|\b(?:not sure|unsure)\s+(?:yet\b|of\b|about\b|when\b|what\b|how\b|"
    r"who\b|where\b)|\bno\s+(?:\w+\s+){0,2}(?:yet|so\s+far)\b"
    r"|\b(?:haven'?t|hasn'?t|have not|has not)\s+(?:yet\s+)?(?:heard|had|got|received)\b"
    r"|\bask me\s+(?:later|nearer|closer|again)\b|\b(?:details|more|info)\s+to follow\b"
    r"|\bbeing\s+(?:finali[sz]ed|decided|confirmed|worked out|agreed|checked)\b"
    r"|\b(?:haven'?t|hasn'?t|isn'?t|aren'?t|wasn'?t|weren'?t|didn'?t|won'?t|can'?t|cannot|"
    r"couldn'?t)\b[^.;:]{0,50}?\byet\b"
    r"|\b(?:haven'?t|hasn'?t|have not|has not)\s+(?:yet\s+)?(?:been\s+)?(?:worked out|sorted|"
    r"decided|fixed|set|agreed|confirmed|chosen|booked|arranged|said|sent|replied|given|"
    r"shared|provided|supplied|told|announced|got back|come back|finali[sz]ed)\b"
    r"|\bcan'?t\s+(?:say|tell|confirm)\s+(?:yet|for sure|at the moment|right now)\b"
    r"|\b(?:ha(?:s|ve)|is|are)\s+yet\s+to\s+(?:confirm|decide|agree|set|fix|finali[sz]e|"
    r"announce|choose|pick|book|reply|say|send|sign|get back)\b"
    r"|['’]ll\s+be\s+(?:announced|confirmed|decided|set|shared|published)\b"
    r"|\b(?:don'?t|do not|never)\s+(?:guess|make (?:it|one|anything) up|invent)\b"
    # "is anyone's guess", "still up in the air", "it's unclear when", "till the supplier
    # gets back to us", "no word yet from the printer"
    r"|\banyone['’]s guess\b|\bup in the air\b"
    r"|\bunclear\s+(?:yet\s+)?(?:when|whether|if|how|who|what|where)\b"
    r"|\b(?:until|till)\b[^.;:]{1,40}?\b(?:gets?|comes?)\s+back\s+to\s+(?:us|me)\b"
    r"|\bno\s+word\s+(?:yet\s+)?from\b"
    # "still checking", "we're chasing the printer", "chicken from ??? farm", "…, placeholder"
    r"|\bstill\s+(?:checking|chasing|confirming|finding\s+out)\b"
    r"|\b(?:i['’]m|we['’]re|we\s+are|i\s+am)\s+(?:still\s+)?(?:checking|chasing|confirming)\b"
    r"|(?:^|\s)\?{2,}(?=\s)"
    r"|(?:^|[,;:–—-]\s*)(?:(?:use|put|leave|add)\s+(?:a\s+)?)?placeholder(?:\s+(?:pls|please))?"
    r"\s*[.!]?$",
    re.IGNORECASE,
)
# A value given as a question mark ("Battery life: ?", "Price ??"): not known.
_UNKNOWN_VALUE = re.compile(r"(?:^|:|\s)\?{1,3}\s*(?:[.;]\s*)?(?:\([^)]*\)\s*)?$")
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


# A given fact said to be open to change: passed on, not a gap.
_HEDGE = re.compile(
    r"\b(?:may|might|could|can)\s+(?:still\s+)?(?:move|change|shift|slip|"
    r"vary)\b|\bsubject to change\b|\bprovisional(?:ly)?\b|\btentative(?:ly)?\b",
    re.IGNORECASE,
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
_DOC_NOUNS = (
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
    + _DOC_NOUNS
    + r"(?:\s+(?:to|for|about|on|of)\b(?!\s+(?:this|that|it|us|me)\b)|\s+(?:please|pls)\b"
    r"|\s*[,:]\s|\s+[-–—]\s)"
    r"|^(?:we|i)\s+(?:need|want|would like)\s+(?:a|an|the)\s+[\w\s-]{0,40}?" + _DOC_NOUNS + r"\b"
    # a title naming the text's form alone: "Release notes.", "Customer notice"
    # (not what the readers bring or show: "bring vaccination card", "show this post")
    r"|^(?!(?:bring|show|wear|carry|keep|return|collect|hand|present|fill|sign|complete|"
    r"pick|drop|display|scan|print|post)\b)(?:[\w'-]+\s+){0,2}" + _DOC_NOUNS + r"s?\s*[.:!]?\s*$",
    re.IGNORECASE,
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
_RELAY = re.compile(
    r"^(?P<lead>(?:please\s+)?(?:" + "|".join(RELAY_VERBS) + r")\b(?:\s+[\w'-]+){0,8}?"
    r"\s+(?:that|to|about|know that|know)\b)\s*(?P<rest>.+)$",
    re.IGNORECASE,
)


# -- building the checklist ----------------------------------------------------------------


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
    + _DOC_NOUNS
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
# the phrase a request names its subject in: from the first "for", "about", "on", "to"
# or "of" after the text it asks for, up to the end or a comma


# a name inside a phrase ("customers on the Standard plan of Fernhill Broadband"): told
# apart from every other topic as a figure is
_NAMED = re.compile(r"(?<=\s)[A-Z][a-z]+")


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
# the names of days and months, and their short forms, longest first
_CALENDAR = "|".join(sorted({*CALENDAR_NAMES, *CALENDAR_SHORT}, key=len, reverse=True))
# the occasion a request names with its day: "after the meeting on Wednesday 5 March",
# "for the open day on Saturday 14 June"
_WHEN_OCCASION = re.compile(
    r"(?i)\b(?:after|before|following|ahead\s+of|for|from|of)\s+((?:the|our|this|next|last|"
    r"yesterday['’]s|today['’]s)\s+[\w'’& -]{1,40}?\s+(?:on|at|in|of)\s+(?:(?:"
    + _CALENDAR
    + r")\b|\d)[^,;.()?!]*?)(?=\s+(?:for|to|please|pls)\b|\s*[,;.()?!]|\s*$)"
)
# a deadline: "by Friday", "by 28 June", "by Fri 28 June", "by the end of May"
_BY_DATE = (
    r"\bby\s+(?:the\s+end\s+of\s+)?(?:\d|(?:" + _CALENDAR + r")\b|tomorrow|tonight|noon|midday)"
)
_BY_WHEN = re.compile(r"(?i)" + _BY_DATE)
_READERS_FIRST = re.compile(r"(?i)^" + _READERS + r"\s+(?!with\b)\w")
_SIGNED_BY = re.compile(
    r"(?i)^(?:and\s+)?(?:signed(?:\s+(?:off|by|from|as))*|sign\s+off\s+as|sign(?:\s+it)?(?:\s+off)?:?|"
    r"from)\s+(?P<who>(?:the\s+)?(?-i:[A-Z])[^,;.0-9]{1,60}?(?:,\s*(?![\d£$€])[^,;.]{1,40}){0,2})"
    r"\s*[.;]?$"
    # "Marcus Webb, IT Manager (sign)"
    r"|^(?P<named>(?-i:[A-Z])[^;.0-9()]{1,80}?)\s*\((?:sign(?:ed)?|sign-?off|signature|"
    r"sender|from)\)\s*\.?$"
)
# a day, a month (or its short form), or a word of time: not a name of its own
_DATE_NAME = re.compile(r"(?i)^(?:" + _CALENDAR + r"|next|this|today|tomorrow|now|then)\b")
_QUOTED = re.compile(r"^[\"“”'‘’]+|[\"“”'‘’]+(?=[.,;!]?$)")
_READERS_DONT = re.compile(r"(?i)^(?:please\s+|pls\s+|kindly\s+)?(?:don'?t|do\s+not|never)\s+\w")
_POLITE_LEAD = re.compile(r"(?i)^(?:please|pls|plz|kindly)\s+")


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


# work not finished yet: with an order to say so, an unknown the text tells
_PENDING_WORK = re.compile(
    r"(?i)\b(?:(?:is|are|was|isn['’]t|aren['’]t)\s+)?(?:still\s+)?(?:not\s+(?:yet\s+)?"
    r"(?:done|finished|complete|completed|over|through|ready)|unfinished|incomplete|"
    r"in\s+progress|ongoing|under\s+way|underway|being\s+(?:done|worked\s+on|written|"
    r"prepared|carried\s+out))\b(?:\s+yet)?"
)


TELLS_INSIDE = re.compile(
    r"(?i)(?:[,;:→]|->|\s[-–—]|\bso\b|\band\b)\s*(?:please\s+|pls\s+|just\s+)?(?:say\s+(?:so|that|it)|say\s+(?:we|they)(?:['’]ll|\s+will)\b|"
    r"tell\s+(?:them|her|him|everyone|people|readers|residents|staff|customers|guests|clients|"
    r"tenants|members|parents)\b|mention\s+(?:that|it)|let\s+(?:them|everyone|people)\s+know|"
    r"(?:the|this|our)\s+(?:notice|letter|note|text|email|post|message|memo|card|update|"
    r"summary|reply|page|listing|description|blurb|section|advert|ad|label|release)\s+"
    r"(?:should|must|can|could|needs?\s+to)\s+(?:say|tell|explain)\s+(?:so|that)\b)"
)
_READERS_TOLD = re.compile(
    r"(?i)\b(?:will|['’]ll)\s+(?:hear|be\s+told|be\s+let\s+know|let\s+(?:you|them|everyone|"
    r"people|staff|residents|customers|clients)\s+know|tell\s+(?:you|them|everyone)|follow)\b"
)


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
        and not _HAS_VERB.search(item)
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
        or (_PLEASE_END.search(item) and not _HAS_VERB.search(item))
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
    r"(?i)^(?!(?:we|i|he|she|they|you|it|there|to|and)\b)(?:[\w'&-]+\s+){0,3}?" + _DOC_NOUNS + r"\b"
)
_HAS_VERB = re.compile(
    r"(?i)\b(?:is|are|was|were|will|has|have|had|can|must|should|does|do|did|need|needs)\b"
    r"|['’](?:ll|re|ve|s|d)\b"
)
# a clause that goes on with what the readers are to do: "…, and to bring a waterproof"
_AND_TO = re.compile(r"(?i)^(?:and\s+|also\s+)?to\s+(?!be\b)(?=[a-z]+\s+\w)")
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


# Words of the cue itself, never what is missing ("dispatch date", not "date known").
_NOT_SUBJECT = frozenset(
    {
        "yet",
        "still",
        "sent",
        "given",
        "told",
        "has",
        "have",
        "known",
        "decided",
        "confirmed",
        "set",
        "fixed",
        "final",
        "finalised",
        "finalized",
        "agreed",
        "available",
        "announced",
        "approved",
        "signed",
        "settled",
        "chosen",
        "published",
        "released",
        "ready",
        "exact",
        # adverbs, which name nothing: "booked with the hygienist straight after"
        "straight",
        "right",
        "just",
        "also",
    }
)
# "that time's not confirmed": the "'s" of "is", not of an owner
_IS_CONTRACTED = re.compile(
    r"(?i)(?<=\w)['’]s(?=\s+(?:not|still|yet|tbc|tbd|unknown|undecided|unconfirmed|pending|"
    r"being|to\s+be|up\s+in)\b)"
)


_GENERIC_SUBJECTS = frozenset(
    {
        "date",
        "time",
        "day",
        "number",
        "figure",
        "price",
        "amount",
        "name",
        "place",
        "venue",
        "it",
        "one",
    }
)


# "How many stories there will be at launch is still open": a question as the subject
_WH_SUBJECT = re.compile(
    r"(?i)^\s*(how many|how much|when|who|where)\s+(.+?)\s+(?:is|are|has|have)\s+"
    r"(?:still\s+|yet\s+)?(?:open|not|unknown|undecided|unconfirmed|pending|to be|TB[CDA])\b"
)
_WH_AS_NOUN = {
    "how many": "number of {}",
    "how much": "amount of {}",
    "when": "date {}",
    "who": "person who {}",
    "where": "place where {}",
}


def _missing_subject(item: str, context: str = "") -> str:
    """What is not known, in a few words (see `_subject_of`); when that is only who does
    not know it ("we're still waiting on the number from the call centre"), what they
    are waiting for or asking about, named by the clause before it when it is a bare
    "number" or "date" ("There will be a helpline, but …" -> "helpline number")."""
    item = _IS_CONTRACTED.sub(" is", item)
    heard = _HEARD_ABOUT.search(item)
    if heard:
        # "waiting to hear from the council about the date": the date, not the council
        return heard.group(1).strip()
    asked = _ASKED_ABOUT.search(item)
    if asked:
        # "People keep asking about gluten-free buns, but …": the buns
        what = re.split(r"[,;.]|\s(?:but|and|so|because)\s", item[asked.end() :])[0].strip()
        if what:
            lead = asked.group(0).split()[-1].lower()
            return what if lead in ("about", "for") else f"{lead} {what}"
    whether = _NOT_SURE_IF.search(item)
    if whether:
        # "Not sure yet if the showers will be back by the evening"
        return "whether " + whether.group(1).strip()
    undone = _NOT_YET_DONE.search(item)
    # a label or a question names it better ("Hotel: the agency hasn't confirmed it",
    # "How many stories there will be is open: nobody has decided the number")
    if undone and not _WH_SUBJECT.match(item) and not _LABEL_LINE.match(item):
        # "We haven't fixed the bank holiday dates yet", "The council hasn't confirmed
        # the venue": what is not done, not who has not done it
        return undone.group(1).strip()
    found = _UNCLEAR_LEAD.sub("", _subject_of(item, context))
    if not _WHO_WAITS.match(found) and found.strip():
        return found
    cue = MISSING_CUE.search(item)
    after = item[cue.start() :] if cue else item
    what = _WAITED_FOR.search(after)
    named = what.group(1).strip() if what else ""
    before = item[: cue.start()] if cue else ""
    prior = [
        w
        for w in WORD.findall(re.split(r"\b(?:but|and|so|because)\b", before)[0])
        if w.lower() not in STOPWORDS and w.lower() not in _NOT_SUBJECT and not _WHO_WAITS.match(w)
    ]
    if named and (not prior or named.split()[-1].lower() not in _GENERIC_SUBJECTS):
        return named
    if prior:
        return " ".join([*prior[-2:], *(named.split()[-1:] if named else [])])
    return found


# a label naming a part of the text, not a fact: "First sentence: the Q3 revenue, which
# is not known yet"
_TEXT_PART = re.compile(
    r"(?i)^\s*(?:first|second|third|last|final|opening|closing|next)\s+(?:sentence|line|"
    r"paragraph|part|bit|section)|^\s*(?:intro|introduction|heading|headline|title|opening|"
    r"closing|ending|end|start)\s*$"
)


# the thing a cue itself names: "don't know the date", "can't give a time"
_CUE_NAMES = re.compile(
    r"(?i)\b(?:have|know|give|say|tell|share|confirm|promise|put)\s+(?:you\s+)?"
    r"(?:(?:the|a|an|any|its|their|our)\s+)?((?:exact\s+|final\s+)?\w+)$"
)
# what a word from someone is awaited about, and how an unclear fact is led in
_HEARD_ABOUT = re.compile(
    r"(?i)\b(?:(?:hear|heard|word)\s+(?:back\s+|yet\s+)?from\s+[\w'’\s]{1,30}?|(?:reply|"
    r"replied|respond|responded|get\s+back|got\s+back|come\s+back)(?:\s+to\s+us)?)\s+"
    r"(?:about|on)\s+"
    r"(?:the\s+)?(.+?)(?=\s+(?:yet|so|and|but|because|until|till|which)\b|\s*[,.;(]|\s*$)"
)
_NOT_SURE_IF = re.compile(
    r"(?i)\b(?:not\s+sure|unsure|don['’]t\s+know|do\s+not\s+know|no\s+idea|unclear|"
    r"can['’]t\s+say)\s+(?:yet\s+)?(?:if|whether)\s+(.+?)(?=\s+(?:yet|so|but|because)\b|"
    r"\s*[,.;:?!(]|\s*$)"
)
# what someone has not yet settled: "haven't fixed the bank holiday dates yet"
_NOT_YET_DONE = re.compile(
    r"(?i)\b(?:ha(?:s|ve)n['’]t|ha(?:s|ve)\s+not|ha(?:s|ve)\s+yet\s+to)\s+(?:yet\s+)?"
    r"(?:fixed|set|confirmed|decided(?:\s+on)?|agreed(?:\s+on)?|finali[sz]ed|chosen|picked|"
    r"booked|announced|published|settled|worked\s+out|sorted(?:\s+out)?|named|(?:fix|set|"
    r"confirm|decide|agree|finali[sz]e|choose|pick|book|announce|publish|settle|name)"
    r"(?:\s+on)?)\s+(?:(?:the|a|an|its|their|our|your)\s+)?"
    r"((?:[\w'’-]+\s+){0,5}?[\w'’-]+?)(?=\s+(?:yet|so|and|but|because|for|until|till)\b|"
    r"\s*[,.;:()]|\s*$)"
)
_UNCLEAR_LEAD = re.compile(r"(?i)^(?:it['’]s|it\s+is)\s+(?:still\s+)?unclear\s+")
# who is waiting, not what for: "we're", "We still haven't heard back from the age…"
_WHO_WAITS = re.compile(
    r"(?i)^(?:we|we['’]re|we['’]ve|i|i['’]m|they|they['’]re|you|it|us|our)\b"
    r"(?:\s+(?:still|are|have|haven['’]t|don['’]t|do|can['’]t)\b.*)?$"
)
_WAITED_FOR = re.compile(
    # "waiting on engineering for the device limit": what for, not on whom
    r"(?i)\b(?:waiting\s+(?:on|for)\s+[\w'’\s]{1,30}?\s+(?:for|about)|waiting\s+(?:on|for)|"
    r"heard\s+back\s+(?:from\s+[\w\s]{1,30}?\s+)?about|(?:told|sent|given)\s+us|"
    r"(?:hear|word)\s+(?:yet\s+)?from\s+[\w'’\s]{1,30}?\s+(?:about|on)|"
    r"(?:not\s+sure|unsure)(?:\s+yet)?|about|know|"
    r"have)\s+(?:the\s+|a\s+|an\s+|their\s+|our\s+)?"
    r"((?:[\w'’-]+\s+){0,6}?[\w'’-]+?)(?=\s+(?:from|to|yet|by|until|till|for|so|and|but|"
    r"because|which)\b|\s*[,.;)]|\s*$)"
)


def _subject_of(item: str, context: str = "") -> str:
    """What is not known, in a few words: the label of "Price: not decided yet", else
    the clause before the cue ("The launch date is to be confirmed" -> "launch date");
    a question as a name ("How many stories there will be" -> "number of stories")."""
    wh = _WH_SUBJECT.match(item)
    if wh:
        rest = re.sub(r"(?i)\bthere\s+(?:will\s+be|would\s+be|are|is)\s+", "", wh.group(2))
        costs = re.match(r"(?i)(.+?)\s+(?:will\s+)?costs?$", rest)
        if wh.group(1).lower() == "how much" and costs:  # "how much the ticket costs"
            return f"price of {costs.group(1)}"
        return _WH_AS_NOUN[wh.group(1).lower()].format(" ".join(rest.split()))
    label = _LABEL_LINE.match(item)
    if label and MISSING_CUE.search(label.group(2)) and not _TEXT_PART.match(label.group(1)):
        return label.group(1).strip()
    cue = MISSING_CUE.search(item)
    before = item[: cue.start()] if cue else item
    if cue and not before.strip():  # "Nobody knows the Q3 revenue yet: ..."
        # "Nothing is known yet about the license": what follows, a leading "yet" off
        before = re.split(r"[,;:.]|\byet\b", re.sub(r"^\s*yet\b", "", item[cue.end() :]))[0]
    clause = re.split(r"[,;:]|\b(?:but|and|so|because|while)\b", before)[-1]

    def words(text: str) -> list[str]:
        return [
            w
            for w in WORD.findall(text)
            if w.lower() not in STOPWORDS and w.lower() not in _NOT_SUBJECT
        ]

    inner = ""
    if cue and cue.group(0).lower().startswith("not") and cue.group(0).lower().endswith("yet"):
        inner = cue.group(0)[3:-3]  # "has not sent us the address yet": the address
    elif cue and cue.group(0).lower().endswith("yet"):
        # "we don't have the battery life figure yet": the battery life figure
        inner = re.sub(
            r"(?i)^\w+n['’]?t\s+(?:have|know|got|received|heard|sent|been|give|say|tell|share|"
            r"confirm)?\s*(?:you\s+|us\s+)?|\s*yet$",
            "",
            cue.group(0),
        )
        if not re.match(r"(?i)(?:the|a|an|any|our|their|its)\s", inner):
            inner = ""  # "the page link isn't live yet": "live" says how, not what
    named = _CUE_NAMES.search(cue.group(0)) if cue and not words(before) else None
    if named and cue and not words(inner):
        # "We still don't know the date of the summer open day (…)": the cue names it,
        # and what follows it up to a break says whose
        tail = re.split(r"[,;:(.]|\b(?:yet|so|and|but|because|until|till)\b", item[cue.end() :])[0]
        inner = named.group(1) + tail
    if words(inner):
        clause = inner
    subject = words(clause)
    if not subject or (len(subject) == 1 and subject[0].lower() in _GENERIC_SUBJECTS):
        # "Its date is not fixed yet": whose date, from the sentence before
        subject = words(context + " " + before)[-3:] or subject
        return " ".join(subject[-4:]) or item[:40]
    # the clause as written, without the words around it that are not the subject:
    # "The name of the guest speaker is" -> "name of the guest speaker"
    tokens = WORD.findall(clause)
    skip = STOPWORDS | _NOT_SUBJECT | {"us", "them", "me"}
    while tokens and tokens[0].lower() in skip:
        tokens.pop(0)
    while tokens and tokens[-1].lower() in skip:
        tokens.pop()
    return " ".join(tokens[-6:]) if 0 < len(tokens) <= 8 else " ".join(subject[-4:])


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
# and where a note's dash or arrow joins two things ("base can overheat -> fire risk")
_CLAUSE_BREAK = re.compile(r";|,(?!\d{3}\b)(?![^()]*\))|\s+(?:-{1,2}|–|—|->|→|=>)\s+")


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


# after a fact not known yet: the order to tell the readers so ("say so", "tell them
# that", "the notice should say that", "please tell residents they'll be announced")
_TELL_TAIL = re.compile(
    r"(?i)^(?:and\s+|so\s+|but\s+|→\s*|->\s*|[-–—]\s*)*(?:please\s+|pls\s+|just\s+)?"
    r"(?:(?:also\s+)?(?:say|mention|note|explain|tell\s+(?:them|her|him|everyone|people|readers|"
    r"residents|staff|customers|guests|clients|tenants|members|parents))\b"
    r"|(?:the|this|our)\s+(?:notice|letter|note|text|email|post|message|memo|card|update|"
    r"summary|reply|page|listing|description|blurb|section|advert|ad|label|release)\s+"
    r"(?:should|must|can|could|needs?\s+to)\s+(?:say|mention|tell|explain)\b"
    r"|let\s+(?:them|her|him|everyone|people|readers)\s+know\b)"
)
# …and that the readers will hear once it is known: part of telling the gap
_WHEN_KNOWN = re.compile(
    r"(?i)\b(?:once|when|as\s+soon\s+as)\s+(?:it|they|that|the\s+\w+)(?:['’]s|\s+is|\s+are|"
    r"\s+has\s+been|\s+have\s+been|['’]re)\b|\b(?:will|['’]ll)\s+(?:follow|hear|be\s+told|"
    r"let\s+(?:you|them|everyone)\s+know|tell\s+(?:you|them|everyone)|announce|update)\b"
)


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


def brief_checklist(text: str) -> list[Requirement]:
    out: list[Requirement] = []

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
    for r in out:
        if r["kind"] in ("fact", "ask"):
            others = {
                t for o in out if o is not r and o["kind"] in COVERED_KINDS for t in o["terms"]
            }
            r["own"] = [t for t in r["terms"] if t not in others]
    return out


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
        and not _HAS_VERB.search(piece)
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


# people asking about a thing: what the unknown is about, not a fact of its own ("People
# keep asking about gluten-free buns, but the supplier hasn't got back to me")
_ASKED_ABOUT = re.compile(
    r"(?i)\b(?:ask(?:s|ed|ing)?|wonder(?:s|ed|ing)?|enquir(?:e|es|ed|ing)|inquir(?:e|es|ed|ing)|"
    r"want(?:s|ed)?\s+to\s+know)\s+(?:me\s+|us\s+)?(?:about|whether|if|when|what|how|for)\b"
)
# the unknown of the clause before, named by a bare noun: "She mentions her new
# cookbook, but the title isn't settled yet", "…, but the partners haven't sent the
# figure yet", "…, so no name yet": one unknown, the clause before says whose
_ITS_UNKNOWN = re.compile(
    r"(?i)(?:^|\b(?:the|that|this|its|their|his|her|no|a)\s+)(?:title|titles|" + _INFO_WORDS + r")"
    r"(?=\s*(?:[.,;!]|$)|\s+(?:is|are|was|isn['’]t|aren['’]t|hasn['’]t|has|yet|still|tb[cda]|"
    r"unknown|not)\b)"
)


def _has_own_content(text: str) -> bool:
    return bool(numbers_of(text)) or len(content_terms(text)) >= 2


def _tells_the_gap(part: str) -> bool:
    """A line after a fact not known yet that only asks to tell the readers so ("The
    letter should say so.", "Please say so, and that we'll let everyone know once it
    is.", "We'll tell them when it is.")."""
    told = _TELL_TAIL.match(part)
    if told:
        rest = _WHEN_KNOWN.sub(" ", part[told.end() :])
        return len(content_terms(re.sub(r"(?i)\b(?:so|that|and|this|it|is|once)\b", " ", rest))) < 2
    return bool(_WHEN_KNOWN.search(part)) and len(content_terms(part)) <= 3 and not numbers_of(part)


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
            if plain and (plain <= mine if len(plain) <= 2 else len(plain & mine) >= 2):
                r.update({"kind": "rule", "subject": "leave_out"})


def _req(index: int, kind: Kind, text: str, subject: str) -> Requirement:
    text = text.strip()
    if kind in ("missing", "gap"):
        # The unknown value is not a term to find; what it is about is.
        terms = content_terms(subject + " " + MISSING_CUE.sub(" ", text))
        numbers: list[str] = []
    else:
        terms, numbers = content_terms(text), numbers_of(text)
    return Requirement(
        id=f"R{index + 1}", kind=kind, text=text, terms=terms, numbers=numbers, subject=subject
    )


def source_checklist(source: str) -> list[Requirement]:
    """Every public function, class and method of a Python file, from its AST."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return []
    out: list[Requirement] = []
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            if node.name.startswith("_"):
                continue
            kind = "class" if isinstance(node, ast.ClassDef) else "function"
            out.append(_api(len(out), f"{kind} {node.name}", node.name))
            out += _raises(len(out), node.name, node)
            if isinstance(node, ast.ClassDef):
                for sub in node.body:
                    if isinstance(sub, ast.FunctionDef | ast.AsyncFunctionDef) and (
                        not sub.name.startswith("_") or sub.name == "__init__"
                    ):
                        if sub.name != "__init__":
                            out.append(_api(len(out), f"method {node.name}.{sub.name}", sub.name))
                        owner = node.name if sub.name == "__init__" else f"{node.name}.{sub.name}"
                        out += _raises(len(out), owner, sub)
    return out


def _raises(index: int, owner: str, node: ast.AST) -> list[Requirement]:
    """The exceptions a function raises itself (`raise ValueError(...)`), by name; not
    those of nested functions or classes, and not a bare re-raise."""
    names: list[str] = []
    body = node.body if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) else []
    stack: list[ast.AST] = list(body)
    while stack:
        n = stack.pop()
        if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef | ast.Lambda):
            continue
        if isinstance(n, ast.Raise) and n.exc is not None:
            target = n.exc.func if isinstance(n.exc, ast.Call) else n.exc
            name = (
                target.id
                if isinstance(target, ast.Name)
                else (target.attr if isinstance(target, ast.Attribute) else None)
            )
            if name and name not in names:
                names.append(name)
        stack.extend(ast.iter_child_nodes(n))
    return [
        Requirement(
            id=f"R{index + i + 1}",
            kind="raises",
            text=f"{owner} raises {name}",
            terms=[name],
            numbers=[],
            subject=name,
        )
        for i, name in enumerate(names)
    ]


def _api(index: int, text: str, name: str) -> Requirement:
    return Requirement(
        id=f"R{index + 1}", kind="api", text=text, terms=[name], numbers=[], subject=name
    )


def exports_checklist(source: str, suffix: str) -> list[Requirement]:
    """Every exported name of a file in another language, through its tree-sitter
    parser ([] when there is none for the language: see batch.judging.exports)."""
    found = exported_names(source, suffix) or []
    out: list[Requirement] = []
    seen: set[str] = set()
    for export in found:
        if export.name in seen or export.kind == "reexport":
            continue
        seen.add(export.name)
        out.append(_api(len(out), f"{export.kind} {export.name}", export.name.split(".")[-1]))
    return out


def build_checklist(brief: dict[str, Any]) -> list[Requirement]:
    if brief.get("kind") == "source":
        name = str(brief.get("origin_name", ""))
        if is_python(name) or not name:
            return source_checklist(brief.get("source_text", ""))
        return exports_checklist(brief.get("source_text", ""), suffix_of(name))
    return brief_checklist(brief.get("text", ""))


# -- judging a draft against it ------------------------------------------------------------


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
    return tuple(_Window(t, frozenset(numbers_of(t)), frozenset(stems_of(t))) for t in texts)


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
    """The text ends with `who` as its signature: in one of its last two lines."""
    lines = [ln.strip(" *_-—,") for ln in draft.strip().splitlines() if ln.strip()]
    # "sign it from the Facilities Team" is signed "Facilities Team" as well
    want = re.sub(r"^(?:the|our)\s+", "", " ".join(who.lower().split()))
    return any(want in " ".join(ln.lower().split()) for ln in lines[-2:])


def tells_gap(draft: str, subject: str) -> bool:
    """The draft tells its readers that `subject` is not known (instead of a placeholder)."""
    want = set(content_terms(subject))
    return any(
        MISSING_CUE.search(s) and (not want or bool(want & stems_of(s))) for s in sentences(draft)
    )
