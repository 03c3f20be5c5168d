"""Strip the chatter small models wrap around a text ("Sure! Here is...", "I hope this helps"),
and turn the simple HTML they sometimes answer in into the Markdown asked for.

Conservative by design: a short non-heading opener before the first heading, and trailing
lines that read as talk about the text rather than text, are removed; of HTML, only tags
with a plain Markdown equivalent are rewritten, outside code; nothing else.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from typing import Any

# Only talk about the text, never a sentence that could belong to it: "Please let me
# know by Thursday..." or "Absolutely no visitors..." are content and stay.
_PREAMBLE = re.compile(
    r"^(sure|certainly|of course|okay)[!,.]|^(here is|here's|below is)\b.*:$",
    re.IGNORECASE,
)
_META_PREFIXES = (
    "i hope this",
    "hope this helps",
    "this concludes the",
    "thank you for your attention",
    "let me know if you'd like",
    "let me know if you would like",
    "let me know if you want",
    "feel free to ask",
    "feel free to let me know",
    "no formatting errors",
    "no contradictions were",
)
_META_KEYWORDS = ("errors or contradictions", "contradictions were found", "errors were found")
_FENCE = re.compile(r"\A```(?:markdown|md)?[ \t]*\n(.*?)\n```[ \t]*\Z", re.DOTALL)
# Letter furniture the house style has no use for: "Dear team," on the first line, and
# a sign-off ("Best regards,") with whatever signature follows it in the last lines.
_GREETING = re.compile(r"^(?:dear|hi|hello|hey|greetings)\b[^.!?\n]{0,60},?$", re.IGNORECASE)
_SIGN_OFF = re.compile(
    r"^(?:best|kind|warm)?\s*(?:regards|wishes|best|sincerely|cheers|"
    r"thanks|thank you|yours(?: truly| sincerely)?)[,.!]?$",
    re.IGNORECASE,
)


def strip_chatter(text: str) -> str:
    text = text.strip()
    fenced = _FENCE.match(text)
    if fenced:  # the whole answer wrapped in one code fence
        text = fenced.group(1).strip()

    lines = text.split("\n")
    # Preamble: the first line is an opener, ends with a colon or names what follows.
    if len(lines) > 1:
        first = lines[0].strip()
        if first and not first.startswith("#") and len(first) < 200 and _PREAMBLE.match(first):
            lines = lines[1:]

    if len(lines) > 1 and _GREETING.match(lines[0].strip()):
        lines = lines[1:]
    while len(lines) > 1 and (
        not lines[0].strip() or lines[0].strip().lower().startswith(_META_PREFIXES)
    ):
        lines = lines[1:]
    tail = [
        i
        for i, line in enumerate(lines[-5:], start=max(0, len(lines) - 5))
        if _SIGN_OFF.match(line.strip())
    ]
    if tail and tail[0] > 0:
        lines = lines[: tail[0]]

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


def strip_prompt_lines(text: str, prompt_texts: list[str]) -> str:
    """Drop the lines of a draft that are, whole, a line of the prompts (a small model
    sometimes carries "CRITIQUE TO ANSWER. Fix every MUST FIX point." into its text)."""
    known = frozenset().union(*(_prompt_line_keys(prompt) for prompt in prompt_texts))
    kept = [line for line in text.split("\n") if _line_key(line) not in known]
    return "\n".join(kept).strip() + "\n"


@functools.lru_cache(maxsize=512)
def _prompt_line_keys(prompt: str) -> frozenset[str]:
    """The keys of a prompt text's lines long enough to tell: a prompt text (a template,
    the house rules, the rubric) comes again every round, so once per text."""
    return frozenset(key for line in prompt.splitlines() if len(key := _line_key(line)) >= 12)


def _line_key(line: str) -> str:
    return re.sub(r"\s+", " ", line.strip(" \t-*#>\"'`")).lower()


# The tags prompts put around material (<brief-1a2b3c> ... </brief-1a2b3c>): small models
# wrap their answer in them. They are ours, never the writer's text.
FENCE_TAG = re.compile(r"</?(?:brief|source|draft)-[0-9a-f]{4,}>")


def strip_fence_tags(text: str) -> str:
    return FENCE_TAG.sub("", text).strip() + "\n"


# What a terminal obeys rather than shows: C0 controls but newline and tab, DEL and
# C1, and the bidirectional overrides that make it show text in another order
TERMINAL_CONTROLS = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")

# A whole escape sequence, not only its first byte (what is left of "ESC [31m" is
# "[31m"): CSI (ESC [ or C1 0x9b), OSC to its terminator (a hyperlink, a window
# title), and the two-byte ESC forms
ESCAPE_SEQUENCE = re.compile(
    r"(?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]"
    r"|(?:\x1b\]|\x9d)[^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)?"
    r"|\x1b[ -/]*[0-~]"
)

_UNSTORABLE = re.compile("[\ud800-\udfff\x00]")


def _on_strings(value: Any, clean: Callable[[str], str]) -> Any:
    """`value` with `clean` applied to every string in it, keys of mappings included."""
    if isinstance(value, str):
        return clean(value)
    if isinstance(value, dict):
        return {_on_strings(k, clean): _on_strings(v, clean) for k, v in value.items()}
    if isinstance(value, list):
        return [_on_strings(v, clean) for v in value]
    return value


def encodable(value: Any) -> Any:
    """`value` with every lone surrogate (a JSON "\\ud800" escape, a YAML "\\ud800")
    and every NUL replaced by U+FFFD: no UTF-8 file, database or sheet can store the
    first, and PostgreSQL refuses the second in text."""
    return _on_strings(value, lambda text: _UNSTORABLE.sub("\ufffd", text))


def from_a_person(value: Any) -> Any:
    """What a person typed or pasted (an answer, an edited text, a reason, a name), as a
    text can hold it: storable (see `encodable`), its line ends "\\n", and without the
    control characters a terminal obeys: an escape sequence pasted into an answer would
    land in the output file and act in every terminal that shows it."""

    def typed(text: str) -> str:
        text = ESCAPE_SEQUENCE.sub("", text.replace("\r\n", "\n").replace("\r", "\n"))
        return TERMINAL_CONTROLS.sub("", text)

    return _on_strings(encodable(value), typed)


# Code (fenced blocks, inline spans): left as written here (a tag there is meant), and
# left out of the checks that read prose.
CODE = re.compile(r"```.*?(?:```|\Z)|`[^`\n]*`", re.DOTALL)
_LINK = re.compile(
    r"""<a\s[^<>\n]*?href\s*=\s*["']([^"'<>\s]+)["'][^<>\n]*>(.*?)</a\s*>""",
    re.IGNORECASE | re.DOTALL,
)
_HEADING = re.compile(r"<h([1-6])\b[^<>\n]*>(.*?)</h\1\s*>", re.IGNORECASE | re.DOTALL)
# (pattern, replacement) in order; tables, images, <pre> and the like have no plain
# equivalent and stay, for the html check to report.
_TAG_RULES = [
    (re.compile(pattern, re.IGNORECASE | re.DOTALL), replacement)
    for pattern, replacement in (
        (r"<br\s*/?>", "\n"),
        (r"<hr\s*/?>", "\n\n---\n\n"),
        (r"<(strong|b)\s*>\s*(.*?)\s*</\1\s*>", r"**\2**"),
        (r"<(em|i)\s*>\s*(.*?)\s*</\1\s*>", r"*\2*"),
        (r"</?(?:strong|b|em|i)\s*>", ""),  # one left unpaired
        (r"</?u\s*>", ""),
        (r"</li\s*>\s*", ""),
        (r"<li\b[^<>\n]*>", "\n- "),
        (r"</?(?:ul|ol)\b[^<>\n]*>", "\n\n"),
        (r"</?(?:p|div|blockquote)\b[^<>\n]*>", "\n\n"),
        (r"</?span\b[^<>\n]*>", ""),
    )
]


def html_to_markdown(text: str) -> str:
    """`text` with its simple HTML (<p>, <strong>, <em>, <br>, lists, headings, links)
    written as Markdown, outside code; text without such tags comes back as it was."""
    pieces, last = [], 0
    for code in CODE.finditer(text):
        pieces += [_prose_to_markdown(text[last : code.start()]), code.group(0)]
        last = code.end()
    pieces.append(_prose_to_markdown(text[last:]))
    converted = "".join(pieces)
    if converted == text:
        return text
    converted = re.sub(r"[ \t]+\n", "\n", converted)
    return re.sub(r"\n{3,}", "\n\n", converted).strip() + "\n"


def _prose_to_markdown(prose: str) -> str:
    prose = _LINK.sub(lambda m: f"[{m.group(2).strip()}]({m.group(1)})", prose)
    prose = _HEADING.sub(lambda m: f"\n\n{'#' * int(m.group(1))} {m.group(2).strip()}\n\n", prose)
    for pattern, replacement in _TAG_RULES:
        prose = pattern.sub(replacement, prose)
    return prose
