"""What a brief takes back, and what stands in it only as the frame of a message: figures
a text must never be held to give.

- A correction replaces a figure: "Monday the 3rd, no wait, Wednesday the 5th", "it's
  £48 now not £45", "make that 20:00 not 18:00", "Weight was 1.4 kg on the old sheet".
  The replaced figure (3rd, £45, 18:00, 1.4) is not for the readers, and a text that
  gives it gives a value the brief took back.
- A message's frame carries figures that are no facts for the readers: the "On Fri, 28
  Feb 2025 at 16:02, X wrote:" of a quoted reply, the "[09:12]" of a chat line, the
  Date:/Sent: line of a header.
"""

from __future__ import annotations

import functools
import re

from batch.reading.figures import loosened, placed_figures

# a spoken or written take-back right after a figure ("the 3rd, no wait, ...")
_TAKE_BACK = re.compile(
    r"(?i)(?:st|nd|rd|th)?[\s,;:.…–—-]*(?:no,?\s+(?:wait|(?:scratch|scrap|strike)\s+that)|"
    r"no,?\s+sorry|sorry(?!,?\s+other way)|actually(?:,?\s+no)?|"
    r"(?:scratch|scrap|strike|forget|ignore)\s+that|correction|i\s+mean|no\s*[-–—,]|"
    r"wait,?\s+no|make\s+(?:that|it))\b"
)
# a figure put right by the one before it: "£48 now not £45", "20:00 instead of 18:00"
_NOT_THE = re.compile(
    r"(?i)^(?:st|nd|rd|th)?[\s,;:–—-]*(?:now\b\s*)?(?:,\s*)?(?:not|instead\s+of|rather\s+than)"
    r"\s*(?:the\s+)?[£$€]?\s*$"
)
# a figure said to be the old one: "was 1.4 kg", "the old price of £3.50", "1.4 on the
# old sheet", "the old one - it's £4.50 now"
_WAS_BEFORE = re.compile(
    r"(?i)\b(?:was|were|used\s+to\s+be|previously|formerly|old(?:\s+\w+){0,2}\s+(?:of|was|is))"
    r"\s*(?:[£$€]\s*)?$"
)
# a figure said to be no longer the one: "Fri 2 Jan is NOT Sat 3rd any more, it's Monday
# 5 January", "the meeting is no longer at 3pm, it's at 4"
_NO_LONGER_BEFORE = re.compile(
    r"(?i)\b(?:(?:is|are|'s)\s+not|isn'?t|aren'?t|no\s+longer)\s+(?:on|at|in|the|\s)*"
    r"(?:[a-z]{3,9}\.?\s+)?$"
)
_NO_LONGER_AFTER = re.compile(
    r"(?i)^(?:st|nd|rd|th)?\s*(?:\w+\s+)?(?:any\s*more|now)?\s*[,;:–—-]+\s*"
    r"(?:it'?s|it\s+is|they'?re|but|now|instead)\b"
)
_OLD_AFTER = re.compile(r"(?i)^\s*(?:\w+\s+){0,2}(?:on|in|from)\s+the\s+old\b")

# the frame of a message: a quoted reply's header, a chat line's time, a header line, a
# chat channel's name, a recording's label, a meeting's attendance
_FRAME = re.compile(
    r"(?im)^[\s>]*On\b[^\n]{3,160}?\bwrote:\s*$"
    r"|^[\s>]*(?:Sent|Received|Subject|Re|Fwd?)\s*:[^\n]*$"
    r"|\[\d{1,2}:\d{2}(?::\d{2})?\s*(?:[ap]m)?\]"
    r"|^\s*\d{1,2}:\d{2}(?:\s*[ap]m)?\s+(?=[A-Z][\w.' -]{0,40}:)"
    r"|^\s*#[\w-]+\b[^\n]*$"
    r"|^[^\n]*\b(?:(?:auto[- ]?)?transcri(?:pt|bed|ption)|voice\s+(?:memo|note))\b[^\n]*$"
    r"|^\s*(?:present|attendees|attending|in\s+attendance|apologies)\s*:[^\n]*$"
)
# a line that says it is not for the readers: its figures are none of theirs
_PRIVATE = re.compile(
    r"(?i)\b(?:not\s+for\s+(?:circulation|staff|publication|the\s+(?:notice|text|memo|"
    r"readers?|public))|internal\s+only|confidential|off\s+the\s+record|"
    r"(?:handle|deal\s+with|discuss(?:ed)?)\s+(?:it\s+)?privately)\b"
)


# a line that corrects: what makes "was 1.4 kg" a replaced value, not a past fact
_CORRECTING = re.compile(r"(?i)\b(?:now|old|instead|correct(?:ed|ion)?|updated?|changed?|new)\b")


def _kind(figure: str) -> str:
    return "time" if ":" in figure else "date" if "/" in figure else "number"


def _same_kind(old: str, new: str) -> bool:
    """A correction puts a figure for one of its kind: a time for a time, a date (or a
    day of the month: "the 3rd, no wait, the 5th of March") for a date, a count for one."""
    kinds = {_kind(old), _kind(new)}
    if len(kinds) == 1:
        return True
    bare = old if _kind(old) == "number" else new
    if not bare.isdigit():
        return False
    # "the 3rd, no wait, the 5th of March"; "at 10, sorry, 11 o'clock"
    return (kinds == {"number", "date"} and 1 <= int(bare) <= 31) or (
        kinds == {"number", "time"} and int(bare) <= 24
    )


# text struck through, as tracked changes and Markdown write it: "~~£40~~ £45"
STRUCK = re.compile(r"~~(?!\s)[^~\n]+?~~|<(del|s|strike)>[^<]*</\1>", re.IGNORECASE)


@functools.lru_cache(maxsize=256)
def replaced(text: str) -> frozenset[str]:
    """The figures of `text` a correction takes back (read once per brief: every round
    and every repair candidate is judged against the same one): struck through, or
    put right in words."""
    out: set[str] = {f for m in STRUCK.finditer(text) for _, _, f in placed_figures(m.group(0))}
    kept = {f for _, _, f in placed_figures(STRUCK.sub(" ", text))}
    out -= kept  # struck in one place, given in another: not taken back
    placed = placed_figures(text)
    for i, (start, end, figure) in enumerate(placed):
        after = text[end : end + 40]
        nxt = placed[i + 1] if i + 1 < len(placed) else None
        if (
            _TAKE_BACK.match(after)
            and nxt is not None
            and nxt[0] - end < 45
            and _same_kind(figure, nxt[2])
        ):
            out.add(figure)  # "the 3rd, no wait, ... the 5th": a figure of its kind follows
        if i > 0 and _NOT_THE.match(text[placed[i - 1][1] : start]):
            out.add(figure)  # "£48 now not £45"
        line = text[
            text.rfind("\n", 0, start) + 1 : (text.find("\n", end) + 1 or len(text) + 1) - 1
        ]
        if (
            _WAS_BEFORE.search(text[max(0, start - 30) : start]) and _CORRECTING.search(line)
        ) or _OLD_AFTER.match(after):
            out.add(figure)
        if _NO_LONGER_BEFORE.search(text[max(0, start - 24) : start]) and _NO_LONGER_AFTER.match(
            after
        ):
            out.add(figure)
    # "Sat 3rd" taken back is the brief's "Sat 3 Jan" where a table gives it in full
    days = {f for f in out if f.isdigit() and re.search(rf"\b{f}(?:st|nd|rd|th)\b", text)}
    if days:
        dated = {f for _, _, f in placed if "/" in f and f.split("/")[0] in days}
        out |= dated - _current(placed, out)
    return frozenset(out)


def _current(placed: list[tuple[int, int, str]], taken: set[str]) -> set[str]:
    """Of the figures `placed` (as placed_figures gives them), those a correction gives
    as the current ones: right after a taken-back one ("the 3rd, no wait, the 5th of
    March" gives 5/3)."""
    return {
        placed[i + 1][2]
        for i in range(len(placed) - 1)
        if placed[i][2] in taken and placed[i + 1][0] - placed[i][1] < 45
    }


# a header block's date: "Date:" beside "From:", "To:" or "Subject:" (a form's own "Date:"
# field is a fact)
_HEADER_LINE = re.compile(r"(?i)^\s*(?:from|to|cc|subject|re)\s*:")
_DATE_LINE = re.compile(r"(?i)^\s*date\s*:")


def framed(text: str) -> set[str]:
    """The figures that stand only in the frame of a message (headers, chat times), or
    on a line that says it is not for the readers."""
    out = {f for m in _FRAME.finditer(text) for _, _, f in placed_figures(m.group(0))}
    out |= {
        f for line in text.splitlines() if _PRIVATE.search(line) for _, _, f in placed_figures(line)
    }
    lines = text.splitlines()
    for i, line in enumerate(lines):
        near = lines[max(0, i - 3) : i] + lines[i + 1 : i + 4]
        if _DATE_LINE.match(line) and sum(bool(_HEADER_LINE.match(n)) for n in near) >= 2:
            out |= {f for _, _, f in placed_figures(line)}
    return out


@functools.lru_cache(maxsize=256)
def stale(brief: str) -> frozenset[str]:
    """The figures of `brief` that are no facts for the readers: taken back by a
    correction (wherever else they stand: "Fee is £45" above "it's £48 now not £45"),
    or given only in a message's frame."""
    frame = framed(brief)
    outside = {
        f
        for line in _FRAME.sub(" ", brief).splitlines()
        if not _DATE_LINE.match(line) and not _PRIVATE.search(line)
        for _, _, f in placed_figures(line)
    }
    return replaced(brief) | (frame - outside)  # a frozenset, as replaced's


def in_frame(text: str) -> bool:
    """`text` (an item of the brief) is the frame of a message, or says it is not for
    the readers: no value of it is one a text must give."""
    return bool(_PRIVATE.search(text)) or any(
        len(m.group(0).strip()) >= 0.6 * len(text.strip()) for m in _FRAME.finditer(text)
    )


def given_back(draft: str, brief: str) -> set[str]:
    """The figures a correction of `brief` took back that `draft` gives."""
    taken = replaced(brief)
    if not taken:
        return set()
    said = loosened(set(f for _, _, f in placed_figures(draft, words=False)))
    current = {f for _, _, f in placed_figures(brief)} - taken
    return {f for f in taken & said if f not in loosened(current)}
