"""The figures a text states, each in one canonical form, so a figure written one way in
the brief and another way in the text is the same figure:

    20:00, 8pm, 8 p.m., eight o'clock     -> "8:00"
    10:30, 10.30am, half ten, ten thirty  -> "10:30"
    noon, midday                          -> "12:00"
    6/6, 6th June, June 6, 6 June 2025    -> "6/6" (and "2025")
    £39, 39 pounds, 39.00                 -> "39"
    fifteen, 15; twenty-five, 25          -> "15"; "25"

A time keeps no am or pm (20:00 and 8am are both "8:00"): a text says "8" for "20:00"
as often as not, and a flipped am/pm is rarer than a time written the other way. A
date is day/month, as the briefs write it, unless its first part cannot be a month's
day and its second can ("12/25" is 25 December). A figure given one way may be said
in a looser one (`loosened`): "9 till 1" in a brief by "9am to 1pm", "the 5th" by
"5 March"; `said_otherwise` is what a text may say for the figures of its sources.
"""

from __future__ import annotations

import re

MONTHS = [
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
]
# "Sept", "Sep", "Jan": the short forms a note writes ("May" is already whole)
_MONTH_OF = {m: i + 1 for i, m in enumerate(MONTHS)} | {m[:3]: i + 1 for i, m in enumerate(MONTHS)}
_MONTH_OF["sept"] = 9
_MONTH = r"(?P<month>" + "|".join(sorted(_MONTH_OF, key=len, reverse=True)) + r")\.?"

_UNITS = [
    "zero",
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
    "thirteen",
    "fourteen",
    "fifteen",
    "sixteen",
    "seventeen",
    "eighteen",
    "nineteen",
]
_TENS = {
    w: 10 * n
    for n, w in enumerate(
        ["twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"], 2
    )
}
_WORD_VALUE = {w: n for n, w in enumerate(_UNITS)} | _TENS
_NUMBER_WORD = re.compile(
    r"(?i)\b(?:(?P<tens>" + "|".join(_TENS) + r")(?:[- ](?P<unit>"
    + "|".join(_UNITS[1:10]) + r"))?|(?P<word>" + "|".join(_UNITS) + r"))\b"
)  # fmt: skip

_NOT_AFTER = r"(?<![\w.:/£$€])"  # no figure glued before, no currency
_MERIDIEM = r"(?P<mer>[ap]\.?\s?m\b\.?|o'?clock\b)"
_HOUR_WORD = "|".join(_UNITS[1:13])
_SPAN_WORDS = r"(?:an?\s+)?(?:hour|day|week|month|year|term|price|marathon)"  # "half a day"
# a time with am/pm or o'clock, a 24-hour time, a dotted one (read by `_dotted_time`),
# noon, and the spoken forms ("half ten", "quarter to nine", "ten thirty")
_TIME = re.compile(
    r"(?i)" + _NOT_AFTER + r"(?P<h>\d{1,2})(?:(?P<sep>[:.])(?P<m>[0-5]\d))?\s*" + _MERIDIEM
    + r"|" + _NOT_AFTER + r"(?P<h2>\d{1,2}):(?P<m2>[0-5]\d)(?![\d:]|\.\d)"
    + r"|" + _NOT_AFTER + r"(?P<h3>\d{1,2})\.(?P<m3>[0-5]\d)(?![\d%]|\.\d)"
    + r"|(?:(?<![\w.:])12\s*)?\b(?P<noon>noon|midday|midnight)\b"
    + r"|\bhalf\s+(?:past\s+)?(?P<half>\d{1,2}|" + _HOUR_WORD + r")\b(?!\s*" + _SPAN_WORDS + r")"
    + r"|\bquarter\s+(?P<qdir>past|to)\s+(?P<quarter>\d{1,2}|" + _HOUR_WORD + r")\b"
    + r"|\b(?P<spoken>" + _HOUR_WORD + r")\s+(?P<spokenm>fifteen|thirty|forty[- ]five|o'?clock)\b"
)  # fmt: skip
# a range whose end carries am/pm: "2-3.30pm", "6.30 to 8.30am": the start takes it too
_RANGE_START = re.compile(
    r"(?i)" + _NOT_AFTER + r"(?P<h>\d{1,2})(?:[:.](?P<m>[0-5]\d))?\s*(?:-|–|—|to|till|until)\s*"
    r"(?=(?P<eh>\d{1,2})(?:[:.][0-5]\d)?\s*(?P<emer>[ap])\.?\s?m\b)"
)  # fmt: skip
# what stands before a dotted time with no am/pm ("from 6.30"): not a price ("4.50")
_TIME_CUE = re.compile(r"(?i)(?:\b(?:at|from|until|till|to|by|before|after|between|and)|[-–—])\s*$")
# ... or what makes a dotted figure on the quarter hour ("doors 6.30") a price or a size
_PRICE_CUE = re.compile(
    r"(?i)(?:[£$€]|\b(?:costs?|price[sd]?|fee|charge[sd]?|pay|paid|eur|gbp|usd))\s*$"
)
_UNIT_AFTER = re.compile(
    r"(?i)[ \t]*(?:%|per\b|pounds?\b|euros?\b|dollars?\b|(?:k?g|kgs|kilos?|m?l|cl|lit[er]{2}s?|"
    r"(?:c|m|k)?m|met[er]{2}s?|miles?|mph|km/h|in|inch(?:es)?|ft|feet|lbs?|oz|hours?|hrs?|"
    r"mins?|minutes?|days?|weeks?|years?|x)\b)"
)
_DATE = re.compile(
    r"(?i)(?<![\w/.:])(?P<a>\d{1,2})/(?P<b>\d{1,2})(?:/(?P<y>\d{2}|\d{4}))?(?![\w/]|\.\d)"
    r"|(?<![\w.])(?P<d>\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?" + _MONTH + r"(?!\w)"
    r"|\b" + _MONTH.replace("month", "month2")
    + r"\s+(?:the\s+)?(?P<d2>\d{1,2})(?:st|nd|rd|th)?(?![\w:]|\.\d)"
    # ISO and calendar-file dates ("2025-06-12", "20250612T123000"), and a dotted date
    # with its year ("12.06.2025"; "12.06" alone may be a time or a price)
    r"|(?<![\w.])(?P<iy>(?:19|20)\d{2})-(?P<im>[01]?\d)-(?P<id>[0-3]?\d)(?![\w-]|\.\d)"
    r"|(?<!\d)(?P<cy>(?:19|20)\d{2})(?P<cm>[01]\d)(?P<cd>[0-3]\d)"
    r"(?:T(?P<ch>[0-2]\d)(?P<cmin>[0-5]\d)(?:\d\d)?Z?)?(?![\dA-SU-Za-z])"
    r"|(?<![\w.])(?P<pd>[0-3]?\d)\.(?P<pm>[01]?\d)\.(?P<py>(?:19|20)\d{2})(?![\w.]|\.\d)"
)  # fmt: skip
# Thousands groups only in threes ("1,200" is one number, "1,2,3" three); a unit glued on
# ("4.2M", "15km") does not stop the number, so "4.2M" is 4.2, never a stray 4.
NUMBER = re.compile(r"(?<![\w.])[-+]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?%?")


# a numbered list's marker ("2. Leave by the stairs"): no figure of the text's
LIST_MARKER = re.compile(r"^(\s*)\d+[.)]\s", re.MULTILINE)


def normalize_number(token: str) -> str:
    n = token.lstrip("+").rstrip("%").replace(",", "")
    if "." in n:
        n = n.rstrip("0").rstrip(".") or "0"
    return n


def _hour_of(word: str) -> int:
    return int(word) if word.isdigit() else _WORD_VALUE[word.lower()]


def _clock(hour: int, minute: int) -> list[str]:
    """A time of day as its canonical figure: the 12-hour clock."""
    return [f"{hour % 12 or 12}:{minute:02d}"]


def _time_figures(m: re.Match[str]) -> list[str]:
    if m["h"] is not None:
        return _clock(int(m["h"]), int(m["m"] or 0))
    if m["h2"] is not None:
        return _clock(int(m["h2"]), int(m["m2"]))
    if m["h3"] is not None:
        return _clock(int(m["h3"]), int(m["m3"]))
    if m["noon"]:
        return _clock(12, 0)
    if m["half"]:
        return _clock(_hour_of(m["half"]), 30)
    if m["quarter"]:
        hour = _hour_of(m["quarter"])
        return _clock(hour, 15) if m["qdir"].lower() == "past" else _clock(hour - 1, 45)
    minutes = {"fifteen": 15, "thirty": 30}.get(m["spokenm"].lower(), 0)
    if m["spokenm"].lower().startswith("forty"):
        minutes = 45
    return _clock(_hour_of(m["spoken"]), minutes)


def _dotted_time(text: str, m: re.Match[str]) -> bool:
    """A dotted figure with no am/pm is a time after "at", "from", "until" (or in a
    range), or when it falls on the quarter hour and is no price and has no unit."""
    before = text[max(0, m.start() - 12) : m.start()]
    if _TIME_CUE.search(before):
        return True
    return (
        m["m3"] in ("00", "15", "30", "45")
        and int(m["h3"]) <= 12
        and not _PRICE_CUE.search(before)
        and not _UNIT_AFTER.match(text, m.end())
    )


def _date_figures(m: re.Match[str]) -> list[str]:
    for y, mo, d in (("iy", "im", "id"), ("cy", "cm", "cd"), ("py", "pm", "pd")):
        if m[y] is not None:
            day, month = int(m[d]), int(m[mo])
            if not (1 <= day <= 31 and 1 <= month <= 12):
                return [m.group(0)]
            time = _clock(int(m["ch"]), int(m["cmin"])) if y == "cy" and m["ch"] else []
            return [f"{day}/{month}", str(int(m[y])), *time]
    if m["a"] is not None:
        a, b = int(m["a"]), int(m["b"])
        day, month = (b, a) if a <= 12 < b <= 31 else (a, b)
        if not (1 <= day <= 31 and 1 <= month <= 12):
            return [str(a), str(b)]
        return [f"{day}/{month}", *([normalize_number(m["y"])] if m["y"] else [])]
    day = int(m["d"] if m["d"] is not None else m["d2"])
    month = _MONTH_OF[(m["month"] or m["month2"]).lower()]
    if not 1 <= day <= 31:
        return [str(day)]
    return [f"{day}/{month}"]


def _number_word(m: re.Match[str]) -> str:
    if m["tens"]:
        return str(_TENS[m["tens"].lower()] + (_WORD_VALUE[m["unit"].lower()] if m["unit"] else 0))
    return str(_WORD_VALUE[m["word"].lower()])


def figures(text: str, words: bool = True) -> list[str]:
    """The canonical figures `text` states, in order of where they stand, without
    repeats. `words`: numbers written as words count too ("five brightness levels")."""
    return list(dict.fromkeys(f for _, _, f in placed_figures(text, words)))


def placed_figures(text: str, words: bool = True) -> list[tuple[int, int, str]]:
    """Each figure `text` states with where it stands (start, end), in order."""
    found: list[tuple[int, int, str]] = []
    taken = list(text)

    def take(m: re.Match[str], values: list[str]) -> None:
        found.extend((m.start(), m.end(), v) for v in values)
        taken[m.start() : m.end()] = " " * (m.end() - m.start())

    for m in _DATE.finditer(text):
        take(m, _date_figures(m))
    rest = "".join(taken)
    for m in _RANGE_START.finditer(rest):
        hour = int(m["h"])
        if m["emer"].lower() == "p" and hour < 12 and hour <= int(m["eh"]):
            hour += 12
        end = m.end("m") if m["m"] else m.end("h")
        found.extend((m.start(), end, v) for v in _clock(hour, int(m["m"] or 0)))
        taken[m.start() : end] = " " * (end - m.start())
    rest = "".join(taken)
    for m in _TIME.finditer(rest):
        if m["h3"] is not None and not _dotted_time(rest, m):
            continue  # "4.50" is a price, not ten to five
        take(m, _time_figures(m))
    rest = "".join(taken)
    for m in NUMBER.finditer(rest):
        found.append((m.start(), m.end(), normalize_number(m.group(0))))
    if words:
        for m in _NUMBER_WORD.finditer(rest):
            found.append((m.start(), m.end(), _number_word(m)))
    return sorted(found, key=lambda f: f[0])


def loosened(found: set[str]) -> set[str]:
    """`found` with the looser figures each of them says too: a time its hour, a date
    its day ("9am" says "9", "5 March" says "the 5th"). Not noon's: "lunch at noon" does
    not say "12 desks"."""
    return (
        found
        | {f.split(":")[0] for f in found if ":" in f and f != "12:00"}
        | {f.split("/")[0] for f in found if "/" in f}
    )


_DAY_MONTH = re.compile(r"\d{1,2}/\d{1,2}")


def said_otherwise(given: set[str]) -> set[str]:
    """The figures a text may use for `given`, the figures of its sources, written
    another way: a time's hour or a date's day alone, a bare hour as a time ("9 till 1"
    as "9am to 1pm"), a day the source names with a month it names ("Monday the 3rd",
    "in March" as "3 March")."""
    loose = loosened(given)
    days = {int(f) for f in loose if f.isdigit() and 1 <= int(f) <= 31}
    months = {int(f.split("/")[1]) for f in given if _DAY_MONTH.fullmatch(f)}
    hours = {f"{d}:00" for d in days if d <= 12}
    return loose | hours | {f"{d}/{m}" for d in days for m in months}


def as_written(text: str) -> dict[str, str]:
    """Each canonical figure of `text` -> how `text` first writes it ("3:00" -> "15:00"),
    for a message a person reads."""
    out: dict[str, str] = {}
    for start, end, figure in placed_figures(text):
        out.setdefault(figure, text[start:end].strip())
    return out
