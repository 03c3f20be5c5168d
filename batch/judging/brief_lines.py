"""A brief's text as the lines a reader would take one by one, whatever its shape.

People paste briefs as prose wrapped at 80 characters, as bullets, as labelled lines, as
terse notes typed line by line with no full stops, or as an email with a greeting and a
sign-off. A line of notes is a unit of its own even without a full stop ("Leek soup -
leeks, potato, chives" then "£7" then "no prices"); a wrapped prose line is not (it goes
on, lower-case, on the next line); an email's greeting, sign-off and headers are for
the writer, not for the text.

    logical_lines(text) -> ["Leek soup - leeks, potato, chives. £7", "no prices", ...]
    fragments(sentence) -> "Leek soup: leeks, potato, chives" (a name before a dash is
                           a label), or the pieces a dash or an arrow joins
"""

from __future__ import annotations

import re

from batch.judging.wording import CALENDAR_SHORT

_LIST_ITEM = re.compile(r"^\s*(?:[-*•‣◦·]|\d+[.)]|\(?[a-z]\))\s+(.*)$")
_GREETING = re.compile(
    r"(?i)^(?:hi|hiya|hey|hello|dear|morning|good\s+(?:morning|afternoon|evening)|"
    r"afternoon|greetings)\b[^.!?:]{0,40}[,!.:–—-]?\s*$"
)
_SIGN_OFF = re.compile(
    r"(?i)^(?:many\s+|huge\s+|big\s+)?(?:thanks|thank\s+you|thx|ta|cheers|best|"
    r"regards|kind\s+regards|best\s+regards|warm\s+regards|best\s+wishes|all\s+the\s+best|"
    r"speak\s+soon|talk\s+soon|ttyl|x+)(?:\s+(?:so\s+much|again|in\s+advance|a\s+lot|"
    r"all|very\s+much|heaps|loads))?\s*[,!.]*\s*(?:[-–—]\s*)?(?:[A-Z][\w'’-]*\.?\s*){0,2}$"
)
_HEADER = re.compile(r"(?i)^(?:from|to|cc|bcc|sent|date|subject|re|fwd?)\s*:")
_LABEL = re.compile(r"^\s*[A-Za-z][\w '/&-]{0,30}?\s*(?<!\d):(?!\d)\s*\S")
# "Leek soup - leeks, potato, chives": a short name, a spaced dash, what it is
_DASH = re.compile(r"\s+(?:-{1,2}|–|—|->|→|=>|>)\s+")
# a line that stops on a word no sentence ends on ("Leave out the" / "roadmap: …")
_DANGLING = re.compile(
    r"(?i)(?:^|\s)(?:the|a|an|of|to|and|or|for|with|in|on|at|by|from|that|this|my|our|your|their|"
    r"his|her|its|is|are|was|were|be|but|as|than)$"
)
# "…and they'll hear when it is", "…not set yet - tell her that": a clause may end on
# its verb or a pronoun; a capitalised label on the next line ("Staff to: read…", "Tone:
# friendly") then starts a line of its own
_ENDS_ON_VERB = re.compile(r"(?i)\s(?:is|are|was|were|be|that|this)$")
_CLOSED = re.compile(r"[.!?:;]['\"’”)]*$")


def _starts_unit(line: str) -> bool:
    return bool(_LIST_ITEM.match(line) or _LABEL.match(line) or _DASH.search(line[:40]))


# a table's rule row ("|---|:--:|"), and the quote marks of a forwarded email ("> ")
_TABLE_RULE = re.compile(r"^\|?\s*:?-{2,}:?\s*(?:\|\s*:?-{2,}:?\s*)*\|?$")
_QUOTED_LINE = re.compile(r"^\s*(?:>\s?)+")
_FORWARDED = re.compile(
    r"(?i)^(?:fwd?|forwarded)(?:\s+(?:from|message|email|mail)\b[^:]{0,40})?\s*:?\s*$"
    r"|^-{2,}\s*forwarded\s+message\s*-{2,}$"
)
# a greeting that opens a line of content ("Hi both, quick one - can we get a notice up")
_GREETING_LEAD = re.compile(
    r"(?i)^(?:hi|hiya|hey|hello|morning)\b[^,.!?:-]{0,25}[,!]\s*"
    r"(?:(?:quick|small|just\s+a\s+quick)\s+(?:one|q|question|favour|favor)\s*[-–—:,]\s*)?"
)


# emoji and pictographs, which a chat message uses between its sentences
_EMOJI = re.compile(
    "[\U0001f000-\U0001faff\u2600-\u27bf\u2b00-\u2bff\u2300-\u23ff]+[\ufe0f\u200d]*"
)


def _at_emoji(line: str) -> list[str]:
    """A chat line cut at its emoji, each piece closed as the sentence it is."""
    if not _EMOJI.search(line):
        return [line]  # blank lines too: they part paragraphs
    parts = [p.strip() for p in _EMOJI.split(line)]
    parts = [p for p in parts if p]
    if len(parts) <= 1:
        return [_EMOJI.sub("", line)]
    return [p if _CLOSED.search(p) else p + "." for p in parts[:-1]] + parts[-1:]


# a sentence typed in lower case after a full stop ("back tues as normal. don't mention
# the refit"), not after an abbreviation ("bring NHS no. under 160 chars")
_LOWER_NEXT = re.compile(r"(?<=[^\W\d_][.!?])\s+(?=[a-z])")
_ABBREVIATION = re.compile(
    r"(?i)(?:^|\s)(?:no|nos|approx|e\.?g|i\.?e|etc|vs|incl|min|max|st|rd|nr|tel|ext|dept|est|"
    r"ref|wk|wks|hrs?|mins?|a\.?m|p\.?m|mr|mrs|ms|dr|prof|co|ltd|inc|[a-z]|"
    # the short forms of notes: "avail. from 1 September", "appt. on Tue"
    r"avail|yrs?|mos?|mgr|govt|qty|dbl|sgl|bdrm|pkg|addr|mob|wknd|appts?|reqd?|approx|"
    + "|".join(CALENDAR_SHORT)  # "sat.", "tues.", "sept."
    + r")\.$"
)


def lower_case_sentences(sentence: str) -> list[str]:
    """`sentence` cut where a brief typed in lower case starts its next sentence."""
    out: list[str] = []
    start = 0
    for m in _LOWER_NEXT.finditer(sentence):
        if _ABBREVIATION.search(sentence[start : m.start()]):
            continue
        out.append(sentence[start : m.start()].strip())
        start = m.end()
    out.append(sentence[start:].strip())
    return [s for s in out if s]


_QUESTION = re.compile(r"(?i)^\s*(?:q|question)\s*[:.)-]\s*(.+?)\s*$")
_ANSWER = re.compile(r"(?i)^\s*(?:a|answer)\s*[:.)-]\s*(.+?)\s*$")


def _unboxed(lines: list[str]) -> list[str]:
    """The lines of a pasted table as labelled lines ("| When | Sunday 13 April |" ->
    "When: Sunday 13 April"; its header row and rule off), of a forwarded email without
    its quote marks, of a chat message split at its emoji, and a question and its answer
    as one labelled line ("Q: When does it reopen?" "A: Not confirmed yet." -> "When
    does it reopen: Not confirmed yet.")."""
    lines = [part for line in lines for part in _at_emoji(_QUOTED_LINE.sub("", line))]
    out: list[str] = []
    for n, line in enumerate(lines):
        question = _QUESTION.match(line)
        answer = _ANSWER.match(lines[n + 1]) if question and n + 1 < len(lines) else None
        if question and answer:
            lines[n + 1] = f"{question.group(1).rstrip('?').strip()}: {answer.group(1)}"
            continue
        if question:
            continue  # a question with no answer under it asks nothing of the text
        stripped = line.strip()
        if stripped.startswith("|") and stripped.endswith("|") and stripped.count("|") >= 3:
            if _TABLE_RULE.match(stripped):
                continue
            after = lines[n + 1].strip() if n + 1 < len(lines) else ""
            if _TABLE_RULE.match(after):
                continue  # the header row names the columns, it says nothing
            cells = [c.strip() for c in stripped.strip("|").split("|") if c.strip()]
            line = f"{cells[0]}: {cells[1]}" if len(cells) == 2 else ", ".join(cells)
        out.append(line)
    return out


def logical_lines(text: str) -> list[str]:
    """The brief's lines, list markers off, a wrapped line joined to the one it goes on
    from, an email's greeting, headers and sign-off (with the name under it) left out,
    a pasted table's rows as labelled lines."""
    raw = _unboxed([ln.rstrip() for ln in text.splitlines()])
    headers = sum(1 for ln in raw[:8] if _HEADER.match(ln.strip()))
    # a pasted email: a greeting at its top, its writer's name at its foot
    greeted = any(_GREETING.match(ln.strip()) for ln in raw[:3] if ln.strip())
    if greeted:
        raw = _without_signature(raw)
    out: list[str] = []
    joinable = False  # the last line may go on on the next one
    raw_last = ""  # the last line as written (not joined), for its length
    signed_off = False
    for line in raw:
        stripped = line.strip()
        if re.fullmatch(r"[-*_=~#]{3,}", stripped):
            stripped = ""  # a rule between parts, no text of its own
        if not stripped:
            joinable = False
            continue
        if signed_off and len(stripped.split()) <= 5 and not _CLOSED.search(stripped):
            # after "Thanks," comes who wrote it: a name, a role, a phone number
            continue
        # a longer line after a sign-off is the brief going on (under a forwarded email)
        signed_off = False
        if _FORWARDED.match(stripped):
            continue
        stripped = _GREETING_LEAD.sub("", stripped) or stripped
        line = _GREETING_LEAD.sub("", line.strip()) or line
        if (
            headers >= 2
            and _HEADER.match(stripped)
            and not stripped.lower().startswith(("subject", "re:"))
        ):
            continue
        if _GREETING.match(stripped) and len(stripped.split()) <= 6:
            joinable = False
            continue
        if _SIGN_OFF.match(stripped) and len(stripped.split()) <= 5:
            signed_off = bool(out)
            joinable = False
            continue
        item = _LIST_ITEM.match(line)
        if item:
            out.append(item.group(1).strip())
            joinable = not _CLOSED.search(out[-1])
            raw_last = stripped
            continue
        # a line wrapped in a paragraph: the one before it runs to the wrap width with no
        # full stop. A short line of notes is a unit of its own, whatever case it opens
        # with ("follow-up email - …, Wed 5 March" then "decisions first, then owners")
        goes_on = (
            joinable
            and bool(out)
            and (
                (len(raw_last) >= 65 and not _starts_unit(stripped))
                # "… online shop, in 90" then "words or fewer: …": a lower-case label
                # after a line cut mid-phrase goes on from it
                or (
                    len(raw_last) >= 65
                    and stripped[:1].islower()
                    and not _LIST_ITEM.match(stripped)
                )
                or (
                    bool(_DANGLING.search(raw_last))
                    and not (
                        _ENDS_ON_VERB.search(raw_last)
                        and stripped[:1].isupper()
                        and _LABEL.match(stripped)
                    )
                )
            )
        )
        if goes_on:
            out[-1] += " " + stripped
        else:
            out.append(stripped)
        raw_last = stripped
        joinable = not _CLOSED.search(out[-1])
    return out


def _without_signature(raw: list[str]) -> list[str]:
    """An email's last lines up to its last sentence, when they are a sign-off and a
    name ("Happy reading,", "Louise"; "Best,", "Tom Reid", "Accounts"): short lines,
    no figures, the first of them ending with a comma or on its own."""
    lines = list(raw)
    while lines and not lines[-1].strip():
        lines.pop()
    for tail, line in enumerate(reversed(lines), start=1):
        text = line.strip()
        if not text or len(text.split()) > 4 or re.search(r"\d|[.!?:;]$", text):
            break
        if text.endswith(",") or _SIGN_OFF.match(text):
            return lines[: len(lines) - tail]
    return lines


def signer(text: str) -> str:
    """Who wrote a pasted email, as its sign-off names them ("Thanks so much," then "Tom
    (Tom Reid, Accounts)"; "Cheers, Mel"): what "sign it from me" means. "" when the
    brief is no email or its foot names no one."""
    raw = _unboxed([ln.rstrip() for ln in text.splitlines()])
    if not any(_GREETING.match(ln.strip()) for ln in raw[:3] if ln.strip()):
        return ""
    kept = _without_signature(raw)
    foot = [ln.strip() for ln in raw[len(kept) :] if ln.strip()]
    names: list[str] = []
    for line in foot:
        closing = _SIGN_OFF.match(line)
        if closing or line.endswith(","):
            # "Cheers, Mel": the name on the sign-off's own line
            tail = re.split(r"[,!.]\s*|\s[-–—]\s*", line, maxsplit=1)
            rest = tail[1].strip() if len(tail) > 1 else ""
            if rest:
                names.append(rest)
            continue
        names.append(line)
    return ", ".join(names)


def fragments(sentence: str) -> list[str]:
    """A line of notes as the label form it stands for: a short name before the first
    dash is a label ("Leek soup - leeks, potato, chives" -> "Leek soup: leeks, potato,
    chives"). Other dashes and arrows stay: what they join is one item, as the same
    words joined by "and" are, and coverage reads it piece by piece."""
    parts = [p.strip() for p in _DASH.split(sentence, maxsplit=1) if p.strip()]
    if len(parts) < 2:
        return [sentence]
    head = parts[0]
    if len(head.split()) <= 4 and not re.search(r"\d", head) and ":" not in head:
        return [f"{head}: {parts[1]}"]
    return [sentence]


# Where a run-on sentence of a brief starts a new clause: at "; ", at ", and" / ", so" /
# ", plus", at "and" before a new subject ("and he should arrive early", "and there's a
# fee"), and at a comma before an order ("…, keep it friendly") or a new subject ("…,
# his check-up is on Tuesday"). Not at "but": what follows it qualifies what went
# before ("exchanged, but not refunded"; "a £25 fee, but don't mention it").
_SUBJECT = (
    r"(?:(?-i:he|she|they|we|you|it|there|i|He|She|They|We|You|It|There|I)(?:['’](?:s|re|ll|ve|d|m))?\s"
    r"|(?:his|her|their|our|its|my|your|the|this|that)\s+[\w'’-]+(?:\s+[\w'’-]+){0,3}?\s+"
    r"(?:is|are|was|were|will|can|must|should|has|have|had|needs?|starts?|opens?|closes?|"
    r"runs?|costs?)\b)"
)
_ORDER_START = (
    r"(?:keep|don['’]?t|do\s+not|no|please|pls|sign|use|make|avoid|leave|start|mention|"
    r"say|include|end|open|add|put|write|tell|ask|remind|invite|reply|bring|call|email|"
    r"book|send|register|aim|stick|tone|max|under|nothing|skip|omit|just|with\s+no|"
    r"without|plant|sow|water|feed|park|wear|arrive|collect|return|reserve|ring|phone|"
    r"visit|check|fill|submit|complete|read|join|come|meet|pick|drop|stop|unplug|show|"
    r"sign|signed)\b"
)
# a clause of a list of clauses: "…, the budget stays at €18,000, Jonas owns the content
# migration": a subject of a few words, then its verb
_FINITE = (
    r"(?:is|are|was|were|will|won['’]t|can|can['’]t|must|should|has|have|had|stays?|moves?|"
    r"owns?|leads?|starts?|opens?|closes?|runs?|costs?|goes|comes?|takes?|gets?|needs?|"
    r"includes?|changes?|remains?|becomes?|keeps?|arrives?|ends?|begins?|applies|"
    r"happens?|works?|lasts?|holds?|sits?|sleeps?|serves?|offers?|gives?|makes?|helps?|"
    r"means?|covers?|counts?|meets?|joins?|follows?|replaces?|reopens?|returns?|shows?|"
    r"sells?|ships?|launches?|raised|paid|joined|went|came|got|broke|found|won|left)\b"
)
# a subject of one to four words, then its verb: a clause that opens on the verb ("…,
# which the council has to fix, is not known yet") goes on the one before
_CLAUSE_SUBJECT = (
    r"(?:(?:the|a|an|our|their|his|her|its|this|that|these|those|every|each|all|no|both)\s+"
    r"(?:[\w][\w'’&-]*\s+){0,3}?|(?:[\w][\w'’&-]*\s+){1,3}?)" + _FINITE + r"\s+\w"
)
_CLAUSE_SPLIT = re.compile(
    r"\s*;\s+|,\s+(?:and|so|plus|also)\s+(?!(?:\w+\s+){0,1}(?:and|or)\b)"
    r"|,?\s+(?:and\s+)?(?:saying|telling\s+(?:them|everyone|people|staff|readers|her|him))"
    r"(?:\s+that)?\s+(?!to\b)"
    r"|,\s+(?:and\s+)?that\s+"
    r"|,?\s+(?=(?:and\s+)?(?:asking|reminding|inviting|encouraging|telling|urging)\s+\w+\s+to\b)"
    r"|\s+and\s+(?=" + _SUBJECT + r"|(?:keep|sign|put|use|don['’]?t|no|leave)\b"
    r"|(?:reply|rsvp|register|pay)(?![\w-]))"
    # "…in Room 4B and people should send their questions…": the readers' own clause
    r"|\s+and\s+(?=(?:all\s+)?(?:people|everyone|everybody|staff|customers|guests|members|"
    r"parents|residents|tenants|visitors|players|volunteers|students|kids|children|"
    r"colleagues|attendees|owners|drivers)\s+(?:should|must|need\s+to|have\s+to|will\s+need\s+to|"
    r"are\s+asked\s+to)\b)"
    r"|,\s+(?=(?:and\s+)?" + _ORDER_START + r")"
    r"|,\s+(?=" + _SUBJECT + r")"
    r"|,\s+(?=" + _CLAUSE_SUBJECT + r")"
    r"|,\s+(?=with\s+(?:the|a|an|no)\b)"
    # "…, bring NHS no. under 160 chars": a length for the text, at the end of a line
    r"|(?<=[.!?])\s+(?=(?:under|max(?:imum)?|no\s+more\s+than|up\s+to|less\s+than|at\s+most)\s+\d+\s*"
    r"(?:words?|chars?|characters?|lines?)\W*$)"
    # "…was delivered by 11:30 so they should not resend messages": what they must do
    r"|\s+(?=so\s+(?:they|everyone|everybody|staff|people|you|customers|guests|readers|"
    r"residents|members|parents|tenants)\s+(?:should|must|need|have\s+to|don['’]t|do\s+not|"
    r"shouldn['’]t|mustn['’]t)\b)"
    r"|,\s+(?=(?:for|about|on)\s+(?:the\s+|our\s+)?(?-i:[A-Z]))"
    # "…by 5pm on Friday because a phishing email last week collected some logins": the
    # reason is a fact of its own ("because it is checked at the castle" stays: "it")
    r"|,?\s+(?=because\s+(?:a|an|the|our|some|several|many|two|three)\s+\w+(?:\s+\w+){0,3}\s+"
    r"(?:\w+ed|is|are|was|were|has|have|had)\b)"
    # "Use the platform steps until the replacement arrives on Monday 9 June": when it
    # ends is a fact of its own
    r"|,?\s+(?=until\s+(?:the|a|an|our)\s+\w+(?:\s+\w+)?\s+(?:arrives?|comes?|opens?|"
    r"reopens?|returns?|starts?|is\s+(?:fixed|replaced|repaired|back|ready))\b)",
    re.IGNORECASE,
)


def run_on_clauses(sentence: str) -> list[str]:
    """The clauses of a run-on sentence (see `_CLAUSE_SPLIT`), stripped of the "and" that
    joined them. A sentence that is not a run-on comes back whole."""
    # what stands in brackets is one aside, whatever commas it has: "(so leave out that
    # the largest gift, £2,000, came from the Patel family)"
    asides: list[str] = []

    def keep(m: re.Match[str]) -> str:
        asides.append(m.group(0))
        return f"\x00{len(asides) - 1}\x00"

    masked = re.sub(r"\([^()]*\)", keep, sentence)
    out = []
    for c in _CLAUSE_SPLIT.split(masked):
        if not c or not c.strip(" ,;"):
            continue
        listed: list[str] = []
        for m in re.finditer(r"\x00(\d+)\x00", c):
            inner = asides[int(m.group(1))][1:-1]
            if inner.count(";") >= 1:
                # "…by date (Sat 5 Oct home v Hillcrest, 10am; Sat 12 Oct away …; and the
                # cup game, whose date we don't have yet)": a list, one clause a member
                listed += [re.sub(r"^(?:and|or)\s+", "", p.strip()) for p in inner.split(";")]
        if listed:
            c = re.sub(r"\s*\x00(\d+)\x00", "", c)
        text = re.sub(r"\x00(\d+)\x00", lambda m: asides[int(m.group(1))], c.strip(" ,;"))
        out += [t for t in [text, *listed] if t.strip(" ,;")]
    return out
