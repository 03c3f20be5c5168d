"""A fact the brief does not have yet: the kinds missing (the text carries a placeholder)
and gap (the text tells its readers it is not known).

How a brief says so (MISSING_CUE: "not known yet", "TBC", "still waiting on the lab",
"can't give a date"; "Price: ?"), and what is not known, in a few words
(`_missing_subject`: "The launch date is to be confirmed" -> "launch date"); how it asks
the text to tell the readers so ("not set yet - say so": TELLS_INSIDE, `_TELL_TAIL`,
`_tells_the_gap`); and a given fact said to be open to change ("the time may move"),
which is passed on, not a gap (`_HEDGE`).
"""

from __future__ import annotations

import re

from batch.judging.checklist.cues import _LABEL_LINE
from batch.judging.wording import (
    STOPWORDS,
    WORD,
    content_terms,
    numbers_of,
)

# the values a brief says it has not got yet ("no venue yet", "don't have the figure yet")
_GAP_VALUES = r"(?:date|time|figure|price|cost|venue|place|name|number|details?|decision)"
# The markers of an unknown no reader mistakes: "TBC", "to be confirmed", "not decided
# yet", "don't know yet", "leave a gap". MISSING_CUE reads many more ways of saying it,
# and chatter with them ("she hasn't told the others yet", "awaiting agent reply"): an
# unknown read from those alone is never held against a text
CERTAIN_GAP = re.compile(
    r"(?i)\bTB[CDA]\b|\b(?:to be|yet to be|still to be)\s+(?:confirmed|decided|announced|"
    r"agreed|arranged|determined|finali[sz]ed)\b"
    r"|\b(?:not|isn't|aren't|isn’t|aren’t)\s+(?:been\s+)?(?:yet\s+)?(?:known|decided|"
    r"confirmed|agreed|finali[sz]ed|announced|booked)\b"
    r"|\b(?:haven't|hasn't|have not|has not|haven’t|hasn’t)\s+(?:yet\s+)?(?:been\s+)?"
    r"(?:decided|confirmed|agreed|finali[sz]ed|announced|booked)\b"
    r"|\b(?:don't|do not|don’t|doesn't|doesn’t|does not)\s+know\b|\b(?:nobody|no one)\s+knows\b"
    r"|\bunknown\b|\bundecided\b|\bunconfirmed\b|\bno idea\b|\bnot sure\b"
    r"|\bleave\s+(?:a|an|the)?\s*(?:gap|blank|space|placeholder)\b|\bplaceholder\b"
    r"|\bfill\s+(?:it|that|this|them)\s+in\b|\b(?:don'?t|do not|never)\s+guess\b"
    r"|\bno\s+(?:\w+\s+){0,3}" + _GAP_VALUES + r"\s+yet\b"
    r"|\bwaiting\s+to\s+hear\b|\bstill\s+waiting\b"
    r"|\b(?:don't|do not|don’t|haven't|have not|haven’t|can't|cannot|can’t)\s+"
    r"(?:have\s+|got\s+|give\s+)?(?:the|a|an|any)\s+(?:[\w-]+\s+){0,3}" + _GAP_VALUES + r"\s+yet\b"
    r"|:\s*\?+\s*$"
)


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
    r"approved|signed|settled|chosen|published|released|ready)\b(?:\s+yet)?"
    # "the figures are not in (yet)"; not "not in room 2.14 any more"
    r"|\b(?:not|isn't|aren't|hasn't|haven't)\s+(?:been\s+|yet\s+)?in\b"
    r"(?:\s+yet\b|(?=\s*(?:[,.;:)!?]|$)))"
    r"|\b(?:to be|yet to be|still to be)\s+(?:confirmed|decided|announced|determined|set|"
    r"agreed|defined|fixed|finali[sz]ed)\b"
    r"|\bno\s+(?P<no_what>(?:[\w'’-]+\s+){0,3}?(?:results|figures?|numbers?|data|decision|"
    r"date|price|time|venue|name|details?))\s+yet\b"
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


# A given fact said to be open to change: passed on, not a gap.
_HEDGE = re.compile(
    r"\b(?:may|might|could|can)\s+(?:still\s+)?(?:move|change|shift|slip|"
    r"vary)\b|\bsubject to change\b|\bprovisional(?:ly)?\b|\btentative(?:ly)?\b",
    re.IGNORECASE,
)


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
    if cue and cue.group("no_what") and len(cue.group("no_what").split()) > 1:
        # "no finish date yet": the cue names it ("so no date yet": the clause before)
        return cue.group("no_what").strip()
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


def _tells_the_gap(part: str) -> bool:
    """A line after a fact not known yet that only asks to tell the readers so ("The
    letter should say so.", "Please say so, and that we'll let everyone know once it
    is.", "We'll tell them when it is.")."""
    told = _TELL_TAIL.match(part)
    if told:
        rest = _WHEN_KNOWN.sub(" ", part[told.end() :])
        return len(content_terms(re.sub(r"(?i)\b(?:so|that|and|this|it|is|once)\b", " ", rest))) < 2
    return bool(_WHEN_KNOWN.search(part)) and len(content_terms(part)) <= 3 and not numbers_of(part)
