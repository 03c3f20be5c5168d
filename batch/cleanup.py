"""Strip the chatter small models wrap around a text ("Sure! Here is...", "I hope this helps").

Conservative by design: a short non-heading opener before the first heading, and trailing
lines that read as talk about the text rather than text, are removed; nothing else.
"""

from __future__ import annotations

import re

_PREAMBLE = re.compile(
    r"^(sure|certainly|of course|okay|ok|here is|here's|below is|as requested|absolutely)\b",
    re.IGNORECASE,
)
_META_PREFIXES = (
    "note:", "note that", "i hope", "hope this", "this concludes", "let me know", "feel free",
    "please let me know", "if you have any", "if you need", "no formatting errors",
    "no contradictions", "no errors",
)
_META_KEYWORDS = ("errors or contradictions", "contradictions were found", "errors were found")
_FENCE = re.compile(r"\A```(?:markdown|md)?[ \t]*\n(.*?)\n```[ \t]*\Z", re.DOTALL)


def strip_chatter(text: str) -> str:
    text = text.strip()
    fenced = _FENCE.match(text)
    if fenced:  # the whole answer wrapped in one code fence
        text = fenced.group(1).strip()

    lines = text.split("\n")
    # Preamble: the first line is an opener, ends with a colon or names what follows.
    if len(lines) > 1:
        first = lines[0].strip()
        if first and not first.startswith("#") and len(first) < 200 and (
            _PREAMBLE.match(first) or (first.endswith(":") and "here" in first.lower())
        ):
            lines = lines[1:]

    while lines:
        last = lines[-1].strip()
        if not last:
            lines.pop()
            continue
        lowered = last.lower()
        structural = lowered.startswith(("#", "|", "-", "*", ">", "`", "[")) or lowered[0].isdigit()
        meta = not structural and (
            lowered.startswith(_META_PREFIXES) or any(k in lowered for k in _META_KEYWORDS)
        )
        if not meta:
            break
        lines.pop()
    return "\n".join(lines).strip() + "\n"
