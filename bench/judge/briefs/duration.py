"""Parse and format short durations such as "1h30m"."""

import re

_PART = re.compile(r"(\d+)([hms])")
_SECONDS = {"h": 3600, "m": 60, "s": 1}


def parse_duration(text: str) -> int:
    """Whole seconds in a duration like "2h", "45m", "1h30m" or "90s".

    Case and surrounding spaces are ignored. Raises ValueError when text is
    empty or is not made only of <number><h|m|s> parts.
    """
    text = text.strip().lower()
    parts = _PART.findall(text)
    if not text or "".join(n + u for n, u in parts) != text:
        raise ValueError(f"not a duration: {text!r}")
    return sum(int(n) * _SECONDS[u] for n, u in parts)


def format_duration(seconds: int) -> str:
    """The "1h30m"-style text for a number of seconds; "0s" for 0.

    Raises ValueError for a negative number.
    """
    if seconds < 0:
        raise ValueError("seconds must not be negative")
    h, rest = divmod(seconds, 3600)
    m, s = divmod(rest, 60)
    text = (f"{h}h" if h else "") + (f"{m}m" if m else "") + (f"{s}s" if s else "")
    return text or "0s"
