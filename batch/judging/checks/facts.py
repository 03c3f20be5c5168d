"""Checks of the text's facts against its sources: numbers and names no source gives,
what the brief asks for that the text leaves out, and what it says the other way round."""

from __future__ import annotations

import datetime
import functools
import re
from collections.abc import Iterable

from batch import placeholders
from batch.check_types import Finding, Repair, Requirement, Severity
from batch.draft_cleanup import CODE
from batch.judging import checklist as req
from batch.judging import wording
from batch.judging.checks.base import Check, CheckContext, rewrite
from batch.judging.wording import numbers_in, sentences_where
from batch.reading.corrections import given_back, stale
from batch.reading.figures import MONTHS, as_written, figures, loosened, said_otherwise
from batch.reading.ties import swapped
from batch.reading.values import doubtful, item_values, values_said


def _may_not_say(r: Requirement) -> Finding:
    """A plain fact the text's words may not tell: never a must-fix nor a hold (words
    are not certain), but advice the repairer tries, stating it in one sentence."""
    what = "ask its readers" if r["kind"] == "ask" else "say"
    return Finding(
        code=f"uncovered:{r['id']}",
        severity="warn",
        message=f"The text may not {what} what the brief gives as {r['text']!r}.",
        repair=_stated(r),
    )


def _stated(r: Requirement) -> Repair:
    """The repair that states item `r` in one sentence: by code in the brief's own words
    where they read as the text's (a whole sentence of fact, an ask to the readers)."""
    repair = Repair(
        action="state",
        fact=r["text"],
        goal=(
            f"tells the readers that {r['subject']} is not known yet"
            if r["kind"] == "gap"
            else "asks the readers to do this"
            if r["kind"] == "ask"
            else "states this fact of the brief"
        ),
    )
    if r["kind"] == "fact" and _TOLD_AS_IS.match(r["text"]):
        repair["new"] = r["text"]
    elif (
        r["kind"] == "ask"
        and _ASKED_AS_IS.match(r["text"])
        and not _NAMED_LEAD.search(r["subject"] or "")
    ):
        repair["new"] = _asked_as_is(r["text"])
    return repair


def _mentions(draft: str, subject: str) -> bool:
    """The text speaks of `subject`: half its content words (at least one) in a sentence,
    or in a placeholder."""
    want = set(wording.content_terms(subject))
    if not want:
        return False
    return any(2 * len(want & wording.stems_of(s)) >= len(want) for s in wording.sentences(draft))


def _plain(figure: str) -> bool:
    """A count or an amount, not a time of day or a date."""
    return ":" not in figure and "/" not in figure


def check_numbers(draft: str, sources: Iterable[str], severity: str) -> list[Finding]:
    if severity == "off":
        return []
    given: set[str] = set()
    for source in sources:
        # a source may write a figure as a word ("fifteen minutes"); the text as digits
        given |= numbers_in(source, words=True)
    allowed = said_otherwise(given)
    # a count must be a count of a source, or a day it dates: a clock time's hour is no
    # count ("10:00" does not give "over 10 years")
    counted = {f for f in given if _plain(f)} | {f.split("/")[0] for f in given if "/" in f}
    used = numbers_in(draft)
    invented = {f for f in used if f not in allowed or (_plain(f) and f not in counted)}
    out: list[Finding] = []
    written = as_written(placeholders.without(draft))
    for number in sorted(invented):
        shown = written.get(number, number)
        out.append(
            Finding(
                code=f"number:{number}",
                repair=rewrite(
                    sentences_where(draft, lambda s, n=number: n in numbers_in(s)),
                    f"no longer gives the number {shown} (no source gives it)",
                ),
                message=f"The number {shown} appears in no source (brief, source file or a "
                f"person's answer). Do not invent figures: use a placeholder such as "
                f"[FIGURE NEEDED: what it measures] and list it in needs_from_human.",
                severity="must_fix" if severity == "must_fix" else "warn",
            )
        )
    return out


def check_requirements(
    draft: str,
    checklist: list[Requirement],
    brief: str = "",
    read_values: frozenset[str] | None = None,
) -> list[Finding]:
    """Every signature, gap to tell and public name the brief asks for is in the text,
    and every value of its facts and asks (batch.reading.values): a value missing from a
    plain fact is a must-fix; one missing from a line the reader is unsure of (chatter,
    a question, a correction) waits for a person; an item with no value is never held
    against the text by its words."""
    out: list[Finding] = []
    taken_back = stale(brief) if brief else frozenset()
    said = values_said(draft)
    for r in checklist:
        if r["kind"] not in req.COVERED_KINDS:
            continue
        severity: Severity = "must_fix"
        if r["kind"] in ("fact", "ask"):
            # an item with nothing to check with certainty is never held against the
            # text by its words (held for a person, such items held 13 more correct
            # texts of bench/unseen's tune half and caught no dropped fact)
            written = as_written(r["text"])
            missing = [
                written.get(v, v)
                for v in item_values(r["text"], taken_back)
                if v not in said and (read_values is None or v in read_values)
            ]
            if not missing:
                if not doubtful(r["text"]) and not req.covered(r, draft):
                    out.append(_may_not_say(r))  # advice the repairer acts on
                continue
            # a value the brief gives is not surely one for the readers (a header's
            # date, a count in the minutes' attendance): a person reads it, after the
            # repairer has tried a plain fact's
            severity = "hold"
            ok = False
        else:
            ok = req.covered(r, draft)
        if r["kind"] == "gap":
            ok = ok and req.tells_gap(draft, r["subject"])
        if ok:
            continue
        if r["kind"] == "api":
            message = (
                f"The docs do not cover the public {r['text']}: add a section for `{r['subject']}`."
            )
        elif r["kind"] == "raises":
            message = (
                f"The code raises {r['subject']} ({r['text']}); the docs do not say "
                f"so: say when it is raised."
            )
        elif r["kind"] == "gap":
            message = (
                f"The brief asks the text to say that {r['subject']} is not known "
                f"yet ({r['text']!r}); say so."
            )
            if _mentions(draft, r["subject"] or r["text"]):
                # told in words the reader does not know, or as a placeholder: a person
                # reads it (a text silent on it altogether stays a must-fix)
                severity = "hold"
        elif r["kind"] == "sign":
            message = f"The brief asks the text to be signed {r['subject']!r}; end with it."
            if not req.unsigned_for_certain(draft, r["subject"]):
                # a signer read without a name, or a name at the end in a form not
                # read as a sign-off: a person looks
                severity = "hold"
                message = (
                    f"The text may not be signed as the brief asks ({r['subject']!r}): "
                    f"check its sign-off."
                )
        else:
            what = "ask its readers" if r["kind"] == "ask" else "say"
            message = (
                f"The text does not give {', '.join(missing)}: it may not {what} what the "
                f"brief gives as {r['text']!r}. Read it for these, in case the readers "
                f"need them."
            )
        finding = Finding(code=f"uncovered:{r['id']}", message=message, severity=severity)
        if severity == "hold" and doubtful(r["text"]):
            out.append(finding)  # a person reads it; no repair writes chatter in
            continue
        if r["kind"] == "sign":
            signature = r["subject"][0].upper() + r["subject"][1:]
            finding["repair"] = Repair(action="append", new=signature)
        elif r["kind"] in ("fact", "ask", "gap"):
            # API docs are sections, not sentences: those are left to a whole rewrite
            finding["repair"] = _stated(r)
        out.append(finding)
    return out


# A fact the brief writes as a whole sentence ("From 1 April the Standard plan goes up
# from 29 euros to 32 euros a month."), not a note ("28-litre main compartment", "Price:
# 40 euros"), not about the reader in the third person ("The customer can cancel …"),
# not opening on what a sentence before it named ("They can cancel at any time.")
_TOLD_AS_IS = re.compile(
    r"^(?!(?i:[^.]*\b(?:the|a|each|every) (?:customer|reader|recipient|guest|user|client)"
    r"s?\b))(?!(?:They|He|She|It|This|These|Those|That)\b)"
    r"[A-Z][^:\n]*\s\S+\s\S+\s[^:\n]*[.!]$"
)


# An ask that opens on what the readers do ("RSVP to Tom …", "reply by 5 May …"): not one
# still in its order to the writer ("Invite all staff … to the dinner": "Please invite"
# would ask the readers to do the writer's job), nor one that opens on who does it
# ("that they must bring …"), nor one already saying please
_ASKED_AS_IS = re.compile(
    r"(?i)^(?!(?:invite|ask|tell|remind|encourage|inform|notify|warn|let|get|have|make|"
    r"please|that|they|he|she|it|we|you|everyone|everybody|all|them|him|her|us)\b)[a-z]"
)
# "Ask Tom to call the office": asked of someone else than the readers
_NAMED_LEAD = re.compile(r"(?<=\s)[A-Z]")


def _asked_as_is(ask: str) -> str:
    """An ask of the brief (its order's lead gone) as the text's own request: "RSVP to Tom
    by 5 September and to tell him … when they reply." -> "Please RSVP to Tom by 5
    September and tell him … when you reply." """
    first, _, rest = ask.strip().rstrip(".!?").partition(" ")
    first = first if first.isupper() or first[1:] != first[1:].lower() else first.lower()
    said = wording.said_to_readers(f"{first} {rest}".strip())
    return "Please " + re.sub(r"\b(and|or) to (?=\w)", r"\1 ", said) + "."


# "needs tools" where the brief says "without tools": what the brief denies, asked for
_NEEDS = re.compile(
    r"(?i)\b(?:needs?|needed|requires?|required|must\s+(?:use|have|bring))"
    r"((?:\s+[\w'-]+){1,6})"
)


def _asks_for_denied(denied: set[str], sentence: str) -> str | None:
    if not denied:
        return None
    for m in _NEEDS.finditer(sentence):
        verb = wording.stem(m.group(0).split()[0])
        asked = {wording.stem(w) for w in wording.WORD.findall(m.group(1))} & denied
        # "will not need any tools", "needs no tools": the sentence denies it too
        if asked and not wording.negated_terms(sentence, asked | {verb}):
            return f"{m.group(0).strip()!r} where the brief says it goes without"
    return None


def check_contradictions(draft: str, checklist: list[Requirement]) -> list[Finding]:
    """A sentence that says a requirement the other way round: a negation the brief does
    not have (or lacks one it has), a word's opposite ("after" for "before"), or a need
    for what the brief says it does without ("needs tools" for "fits without tools")."""
    out: list[Finding] = []
    draft_sentences = [
        (s, wording.stems_of(s)) for s in wording.sentences(placeholders.without(draft))
    ]
    said = [r for r in checklist if r["kind"] in ("fact", "ask") and r["terms"]]
    # what the brief denies, read once per requirement, not once per sentence
    denials = {r["id"]: wording.negated_terms(r["text"], set(r["terms"])) for r in said}
    for r in said:
        denied = denials[r["id"]]
        for sentence, stems in draft_sentences:
            clash = _clash(r, denied, sentence, stems)
            if clash and not _says_a_denial(sentence, stems, r, said, denials):
                out.append(
                    Finding(
                        code=f"contradiction:{r['id']}",
                        # read from its words, never certain: a person reads it
                        severity="hold",
                        message=f"The text says {sentence[:160]!r}, with {clash}: the brief "
                        f"gives {r['text']!r}. Say what the brief says.",
                        repair=rewrite([sentence], "says what the brief says", r["text"]),
                    )
                )
                break
    return out


def _share(r: Requirement, stems: set[str]) -> float:
    return len(set(r["terms"]) & stems) / len(r["terms"])


def _says_a_denial(
    sentence: str,
    stems: set[str],
    r: Requirement,
    said: list[Requirement],
    denials: dict[str, set[str]],
) -> bool:
    """`sentence` clashes with `r` but says, at least as fully, another requirement that
    carries the negation and agrees with it: "Do not book your own flights: the travel
    desk has booked them" is the brief's "don't book your own flights", not a denial of
    its "the travel desk has booked them". The fuller match wins, so "full-price items
    are not refunded" still denies "full-price items are refunded" beside "sale items
    are not refunded", and a sentence with more negations than the two requirements
    together ("sale items are not refunded, and full-price items are not refunded")
    still denies one."""
    least = _share(r, stems)
    negations = len(wording.NEGATIONS.findall(sentence)) - len(wording.NEGATIONS.findall(r["text"]))
    return any(
        other is not r
        and denials[other["id"]]
        and negations <= len(wording.NEGATIONS.findall(other["text"]))
        and _share(other, stems) >= least
        and _share(other, stems) > 0.5
        and wording.polarity_clash(other["text"], sentence, other["terms"]) is None
        for other in said
    )


def _clash(r: Requirement, denied: set[str], sentence: str, stems: set[str]) -> str | None:
    """How `sentence` says `r` the other way round (`denied`: what `r` denies), or None."""
    terms = set(r["terms"])
    needed = _asks_for_denied(denied, sentence)
    if needed:
        return needed
    shared = len(terms & stems)
    share = shared / len(terms)
    # An opposite is a strong cue: a sentence on the same subject is enough. A negation
    # is a weak one: the sentence must say more than half of the requirement ("a
    # refund for a full-price item" is not about "sale items ... not refunded", though
    # it shares two of its four words).
    if share > 0.5 and shared >= min(2, len(terms)):
        return wording.polarity_clash(r["text"], sentence, r["terms"])
    if share >= 0.5 and shared >= min(2, len(terms)) or shared >= 2:
        return wording.opposite_of(r["text"], sentence)
    return None


GENERIC_NAMES = frozenset(
    {
        "i",
        "ok",
        "true",
        "false",
        "none",
        "python",
        "markdown",
        "api",
        "url",
        "ascii",
        "unicode",
        "utf-8",
        "json",
    }
)
# a capital after these opens a phrase: "Note – Bring your ID", "When: Saturday"
_INITIAL_BEFORE = set(".!?:;–—•|")
_MARKUP = set(" \t*_`>[(\"'“‘#-|")
# A heading in bold at a line's start: a few words, not a sentence (no full stop inside)
_BOLD_LEAD = re.compile(r"(\*\*|__)(?=\S)(?:(?![.!?]\1)[^*_\n]){1,60}?(?<![.!?\s])\1")
# letters of any script: "Poznań" is one word, not "Pozna" and a stray "ń"
_TOKEN = re.compile(r"(?<![^\W_])[^\W\d_][^\W_]*(?:['’-][^\W_]+)*")
_BULLET = re.compile(r"^\s*(?:[-*+•◦▪‣·–—]|\d+[.)])\s+")


def _source_words(sources: Iterable[str]) -> set[str]:
    words: set[str] = set()
    for text in sources:
        for w in _TOKEN.findall(text or ""):
            lw = w.lower().replace("’", "'")
            words.add(lw)
            words.update(p for p in re.split(r"['-]", lw) if p)
    # a day or a month a note abbreviates ("Fri 3 May", "Mar–Aug", "Weds") is given by name
    short = wording.CALENDAR_SHORT
    words |= {short[w] for w in words if w in short}
    words |= {short[w[:-1]] for w in words if w.endswith("s") and w[:-1] in short}
    return words


def _inflected(name: str, words: set[str]) -> bool:
    """`name` is a source's word in another inflection ("Poznań" for "Poznaniu", "Lis"
    for "Lisa" is not: five letters at least must agree, all but the last two)."""
    n = name.lower()
    stem = n[: max(5, len(n) - 2)]
    return len(n) >= 5 and any(w.startswith(stem) for w in words if len(w) >= len(stem))


def _heading(line: str) -> bool:
    """A line that is a heading: marked ("# ..."), in capitals ("MAIN POOL – SUMMER
    TIMETABLE"), or a short title-case line with no full stop ("Your Questions
    Answered", "Summer Opening Hours"): its capitals are the heading's, not names."""
    stripped = line.strip().strip("*_ ")
    letters = re.sub(r"[^\w]|\d", "", stripped)
    if stripped.startswith("#") or (len(letters) > 3 and letters.isupper()):
        return True
    words = _TOKEN.findall(stripped)
    long = [w for w in words if len(w) > 3]
    return (
        2 <= len(words) <= 8
        and not re.search(r"[.!?,;]$", stripped)
        and bool(long)
        and all(w[0].isupper() for w in long)
    )


def names_in(text: str) -> list[str]:
    """Words that read as names: capitalised inside a sentence, acronyms, and mixed
    letters and digits (X200, iPhone). Sentence starts and headings are not taken as
    names unless the word has digits or inner capitals. Code is left to the code checks."""
    text = CODE.sub(" ", placeholders.without(text))
    found: list[str] = []
    for line in text.splitlines():
        heading = _heading(line)
        body = _BULLET.sub("", line)
        lead = _BOLD_LEAD.match(body)
        for m in _TOKEN.finditer(body):
            if lead and m.start() < lead.end() and not re.search(r"\d|[a-z][A-Z]", m.group(0)):
                continue  # a heading written as a bold lead-in ("**Check Passport Validity**:")
            word = m.group(0)
            if re.search(r"['’]s$", word):
                word = word[:-2]
            letters = re.sub(r"[^A-Za-z]", "", word)
            mixed = bool(re.search(r"\d", word)) or bool(re.search(r"[a-z][A-Z]", word))
            acronym = len(letters) >= 2 and letters.isupper()
            capital = word[0].isupper()
            if not (mixed or acronym or capital):
                continue
            before = body[: m.start()].rstrip("".join(_MARKUP))
            initial = not before or before[-1] in _INITIAL_BEFORE or before[-1].isdigit()
            if mixed or (not heading and (acronym or not initial)):
                found.append(word)
    return found


_DAY_NAMES = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_WEEKDAY = re.compile(r"(?i)\b(" + "|".join(_DAY_NAMES) + r")s?\b")
_YEAR = re.compile(r"(?:19|20)\d\d")


def weekdays_of_dates(draft: str, sources: Iterable[str]) -> set[str]:
    """The weekdays the text puts with a date of its sources where the calendar agrees,
    in a year the sources give, or last year, this year or the next ("Friday 6 June" for
    the brief's "6/6", in a year when 6 June is a Friday), and no line of a source gives
    that date another weekday: a weekday said of a date is read off the calendar, not
    invented. The date is the one written beside the weekday ("Thursday 12 June", "12
    June (Thursday)"), or, with none beside it, any date the sources give."""
    sources = list(sources)
    lines = [ln for s in sources for ln in s.splitlines()]
    given = {f for ln in lines for f in figures(ln) if "/" in f}
    years = _calendar_years(sources)
    out = set()
    for m in _WEEKDAY.finditer(draft):
        weekday = m.group(1).lower()
        beside = [f for f in figures(draft[m.end() : m.end() + 20]) if "/" in f][:1] or [
            f for f in figures(draft[max(0, m.start() - 20) : m.start()]) if "/" in f
        ][-1:]
        dates = beside if beside else sorted(given)
        for date in dates:
            if date not in given:
                continue
            named = {
                w.lower()
                for ln in lines
                if date in figures(ln)
                for w in _WEEKDAY.findall(wording_days(ln))
            }
            if named - {weekday}:
                continue
            stated = _years_with(date, [draft[m.end() : m.end() + 30], *lines])
            if weekday in _weekdays_on(date, stated or years):
                out.add(weekday)
    return out


def _calendar_years(sources: list[str]) -> set[int]:
    """The years a weekday may be read in: those the sources give, and last, this and
    next year."""
    this_year = datetime.date.today().year
    return {this_year - 1, this_year, this_year + 1} | {
        int(f) for s in sources for f in figures(s, words=False) if _YEAR.fullmatch(f)
    }


def _weekdays_on(date: str, years: Iterable[int]) -> set[str]:
    """The weekdays the date "d/m" falls on in `years`."""
    day, month = (int(x) for x in date.split("/"))
    out = set()
    for year in years:
        try:
            out.add(datetime.date(year, month, day).strftime("%A").lower())
        except ValueError:
            continue
    return out


def _years_with(date: str, texts: Iterable[str]) -> set[int]:
    """The years `texts` write right after `date` ("12 June 2025", "2025-06-12")."""
    out = set()
    for text in texts:
        found = figures(text, words=False)
        for i, f in enumerate(found[:-1]):
            if f == date and _YEAR.fullmatch(found[i + 1]):
                out.add(int(found[i + 1]))
    return out


def months_of_dates(sources: Iterable[str]) -> set[str]:
    """The months of the dates the sources give in figures: "12/9" names September."""
    months = {int(f.split("/")[1]) for s in sources for f in figures(s) if "/" in f}
    return {MONTHS[m - 1] for m in months if 1 <= m <= 12}


def weekdays_against_dates(draft: str, sources: Iterable[str]) -> set[str]:
    """The weekdays the text puts beside a date of its sources that falls on another
    day in every year the sources give (or last, this and next year): certainly wrong."""
    sources = list(sources)
    given = {f for s in sources for f in figures(s) if "/" in f}
    years = _calendar_years(sources)
    out = set()
    for m in _WEEKDAY.finditer(draft):
        dates = [f for f in figures(draft[m.end() : m.end() + 20]) if "/" in f][:1]
        if not dates or dates[0] not in given:
            continue
        stated = _years_with(dates[0], [draft[m.end() : m.end() + 30], *sources])
        named = _weekdays_on(dates[0], stated or years)
        if named and m.group(1).lower() not in named:
            out.add(m.group(1).lower())
    return out


def wording_days(line: str) -> str:
    """`line` with its short weekday names written out ("Thurs 6/6": "thursday 6/6")."""
    short = wording.CALENDAR_SHORT
    return re.sub(
        r"(?i)\b[a-z]{3,5}\b",
        lambda w: short.get(
            w.group(0).lower().rstrip("s"), short.get(w.group(0).lower(), w.group(0))
        ),
        line,
    )


def initialisms(sources: Iterable[str]) -> frozenset[str]:
    """The initials of each run of two to six words of the sources, lower-cased: "FAQ"
    is given by "frequently asked questions", "HR" by "human resources"."""
    return _initialisms(tuple(sources))


@functools.lru_cache(maxsize=64)
def _initialisms(sources: tuple[str, ...]) -> frozenset[str]:
    # the sources are the same for every round and repair candidate: read once
    out: set[str] = set()
    for text in sources:
        for line in (text or "").splitlines():
            heads = [w[0].lower() for w in _TOKEN.findall(line)]
            for size in range(2, 7):
                out |= {"".join(heads[i : i + size]) for i in range(len(heads) - size + 1)}
    return frozenset(out)


def check_names(draft: str, sources: Iterable[str]) -> list[Finding]:
    """Names in the text that no source gives: an invented person, firm, place or day."""
    allowed = _source_words(sources) | GENERIC_NAMES
    weekdays = weekdays_of_dates(draft, sources) | months_of_dates(sources)
    wrong_days = weekdays_against_dates(draft, sources)
    initials = initialisms(sources)
    # "Fridays" for the brief's "Friday", "Mondays'": another form of a word it gives
    stems = {wording.stem(w) for w in allowed}
    out: list[Finding] = []
    seen: set[str] = set()
    for name in names_in(draft):
        key = name.lower().replace("’", "'")
        # "URL-friendly": only the parts written as a name must come from a source
        parts = [
            p.lower() for p in re.split(r"['-]", name.replace("’", "'")) if p and not p.islower()
        ]
        if (
            key in allowed
            or key in seen
            or (parts and all(p in allowed or wording.stem(p) in stems for p in parts))
            or _inflected(name, allowed)
            or key in weekdays
            or key in initials
        ):
            continue
        seen.add(key)
        # a weekday no source gives is certainly wrong only beside a date of theirs the
        # calendar puts on another day; elsewhere a person checks it
        day_unsure = key in _DAY_NAMES and key not in wrong_days
        out.append(
            Finding(
                code=f"name:{key}",
                severity="hold" if day_unsure else "must_fix",
                repair=rewrite(
                    sentences_where(draft, lambda s, n=name: n in names_in(s)),
                    f"no longer names {name!r} (no source gives it)",
                ),
                message=f"The text names {name!r}, which no source gives (brief, source file or "
                f"a person's answer). Remove it, or use a placeholder such as "
                f"[NAME NEEDED: who or what] and list it in needs_from_human.",
            )
        )
    return out


class Numbers(Check):
    """A number no source gives: an invented figure. A time of day gives no count
    ("10:00" is not the 10 of "10 years"). The rubric's `number_check` says how much it
    weighs (must_fix, a warning, or not checked)."""

    codes = ("number",)
    vouched = frozenset({"number"})
    repairs = frozenset({"rewrite"})

    def applies(self, ctx: CheckContext) -> bool:
        return ctx.number_severity != "off"

    def run(self, ctx: CheckContext) -> list[Finding]:
        return check_numbers(ctx.draft, ctx.sources, ctx.number_severity)


class Requirements(Check):
    """Every value of the brief's facts and asks, every gap to tell, signature and public
    name is in the text; one unit of the score per such item of the checklist. A fact or
    an ask is checked by what code can be sure of, its values (figures in any usual form,
    e-mail and web addresses, product codes), but values a correction took back or only
    a message's frame gives; a value missing waits for a person (the line may be no fact
    for the readers), after the repairer has tried. An item with nothing checkable is
    never held against the text by its words: when its words are not said together (each
    clause in one sentence or two adjacent ones, half its key terms, its negation kept),
    that is advice the repairer acts on, and a repair may not lose it. A signature is its
    name on a line of its own or after a closing; for docs, every public name."""

    codes = ("uncovered",)
    item_kinds = req.COVERED_KINDS
    repairs = frozenset({"append", "state"})
    repaired_holds = True  # a plain fact's missing value: the repairer states it first

    def run(self, ctx: CheckContext) -> list[Finding]:
        return check_requirements(ctx.draft, ctx.checklist, ctx.brief, ctx.read_values)


class Contradictions(Check):
    """A sentence that may say an item of the checklist the other way round, held for a
    person (a negation read from words is never certain): on a
    requirement's subject, with a negation that denies what the brief states (the word it
    governs is the brief's: "is not replicated"), or without a negation the brief has, or
    with a word's opposite (after/before, open/closed, up/down, fast/slow...). A negation
    that states a consequence ("losing a node does not lose a confirmed message") or a
    condition ("not confirmed until two nodes have it") denies nothing. Its failures count
    against the score; the items it reads are units of Requirements already."""

    codes = ("contradiction",)
    scored = False
    repairs = frozenset({"rewrite"})
    repaired_holds = True

    def run(self, ctx: CheckContext) -> list[Finding]:
        return check_contradictions(ctx.draft, ctx.checklist)


class Names(Check):
    """A name no source gives (brief, title, source file, a person's answer):
    capitalised words inside sentences, acronyms and names with digits; an invented
    person, firm, place or weekday."""

    codes = ("name",)
    vouched = frozenset({"name"})
    repairs = frozenset({"rewrite"})

    def run(self, ctx: CheckContext) -> list[Finding]:
        return check_names(ctx.draft, ctx.sources)


_TIE_SKIP = frozenset(
    {*wording.STOPWORDS, *wording.CALENDAR_NAMES, *wording.CALENDAR_SHORT}
    | {"am", "pm", "st", "nd", "rd", "th", "from", "to", "until", "till", "at", "on", "by"}
)


def check_ties(draft: str, brief: str) -> list[Finding]:
    """Figures the text ties to what the brief ties to another figure (batch.reading.ties)."""
    out: list[Finding] = []
    for figure, other, words in swapped(draft, brief, wording.stem, _TIE_SKIP, stale(brief)):
        out.append(
            Finding(
                code=f"tie:{figure}",
                severity="hold",
                message=f"The text puts {as_written(draft).get(figure, figure)} with "
                f"{', '.join(sorted(words))!r}, which the brief says of "
                f"{as_written(brief).get(other, other)}: read it for swapped figures.",
                repair=rewrite(
                    sentences_where(draft, lambda s, f=figure: f in numbers_in(s)),
                    f"gives {figure} for what the brief gives it for",
                ),
            )
        )
    return out


def check_taken_back(draft: str, brief: str) -> list[Finding]:
    """Figures a correction of the brief takes back that the text gives."""
    return [
        Finding(
            code=f"taken-back:{figure}",
            severity="must_fix",
            message=f"The text gives {as_written(draft).get(figure, figure)}, which the brief "
            f"takes back (a correction "
            f"replaces it): give the corrected value.",
            repair=rewrite(
                sentences_where(draft, lambda s, f=figure: f in loosened(numbers_in(s))),
                f"no longer gives {figure}, which the brief corrects",
            ),
        )
        for figure in sorted(given_back(draft, brief))
    ]


class Ties(Check):
    """Each figure is said of what the brief says it of: a figure the text puts beside
    the words the brief ties to another figure of its kind, and beside none of its own,
    may be swapped ("closes at 8am, reopens at 3pm" for "closes at 3pm, reopens at
    8am"). Read from words beside figures, so it waits for a person; a paraphrase ties a
    figure to nothing the brief says and is never taken for a swap."""

    codes = ("tie",)
    scored = False
    repairs = frozenset({"rewrite"})
    repaired_holds = True

    def applies(self, ctx: CheckContext) -> bool:
        return bool(ctx.brief) and not ctx.documents_source

    def run(self, ctx: CheckContext) -> list[Finding]:
        return check_ties(ctx.draft, ctx.brief)


class TakenBack(Check):
    """A value a correction of the brief replaces is not in the text (not the 3rd after
    "Monday the 3rd, no wait, Wednesday the 5th", not £45 after "£48 now not £45")."""

    codes = ("taken-back",)
    vouched = frozenset({"taken-back"})
    repairs = frozenset({"rewrite"})

    def applies(self, ctx: CheckContext) -> bool:
        return bool(ctx.brief) and not ctx.documents_source

    def run(self, ctx: CheckContext) -> list[Finding]:
        return check_taken_back(ctx.draft, ctx.brief)
