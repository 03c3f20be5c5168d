"""The placeholder: how a text marks a fact only a person can give, in one place.

    [FIGURE NEEDED: Q3 revenue]   [DATE NEEDED: launch]   [NAME NEEDED: owner]

A label in capitals, " NEEDED: ", what is missing. The writer's schema (and so
llama.cpp's grammar) admits only the labels of a closed list in needs_from_human; in a
text, a label that names what is missing ("[VENUE NEEDED: where the dinner is]") is a
placeholder too, as a person writes one. The checks report anything else that reads as
a gap ("[TBD]", "[Figure Needed: x]"); answers are matched to placeholders after
`normalize`; the prompts show `EXAMPLE` and `LABELS`.
"""

from __future__ import annotations

import re

# Closed: an open "[A-Z]+" label let a small model spell capitals until it ran out of
# tokens, and a label outside the list could not be listed in needs_from_human.
LABELS = ("FIGURE", "DATE", "NAME", "FACT", "NUMBER", "DETAIL", "LINK", "QUOTE")
EXAMPLE = "[FIGURE NEEDED: what is missing]"

_LABEL = "(?:" + "|".join(LABELS) + ")"
# What the model must write in needs_from_human (the JSON schema's pattern): exact form.
# A plain group, not (?:...): llama.cpp turns this pattern into its grammar, and its
# converter does not take (?:, which left the small model unconstrained.
SCHEMA_PATTERN = r"^\[(" + "|".join(LABELS) + r") NEEDED: [^\]\[\n\"]+\]$"
# A placeholder in a text: the same form with any label in capitals of up to three words
# ("VENUE", "START TIME"), forgiving only of spacing around the colon.
_ANY_LABEL = r"[A-Z][A-Z'-]{1,19}(?: [A-Z][A-Z'-]{1,19}){0,2}"
PATTERN = re.compile(r"\[" + _ANY_LABEL + r" NEEDED\s*:\s*[^\[\]\n]*?\]")

# Bracketed text that is meant as a gap but is not a placeholder.
BRACKETED = re.compile(r"\[([^\[\]\n]{0,100})\](?!\()")  # not a Markdown link
_GAP_WORDS = re.compile(
    r"(?i)\b(?:needed|tbd|tbc|tba|tk|xxx+|todo|fixme|insert|placeholder|"
    r"fill in|to come)\b|^\s*\?+\s*$|^\s*\.\.\.\s*$"
)

# a template's slot: "[REPLY BY]", "[Date]", "[Your Name]" (capitalised words, no digits)
_TEMPLATE_SLOT = re.compile(r"^\s*(?:[A-Z][A-Za-z'-]*\s+){0,4}[A-Z][A-Za-z'-]*\s*$")


def named(needs: list) -> list[str]:
    """The placeholders of a needs_from_human list (entries with their questions, or the
    bare placeholders of an older record)."""
    return [str(n["placeholder"]) if isinstance(n, dict) else str(n) for n in needs]


def normalize(text: str) -> str:
    """The key two spellings of one placeholder share (case and spacing aside)."""
    upper = re.sub(r"\s+", " ", text.strip()).upper()
    return re.sub(r"\bNEEDED ?: ?", "NEEDED: ", upper)  # PATTERN forgives this spacing


def find(text: str) -> list[str]:
    """Every placeholder in `text`, in order."""
    return [m.group(0) for m in PATTERN.finditer(text)]


def is_placeholder(text: str) -> bool:
    return PATTERN.fullmatch(text.strip()) is not None


def without(text: str, replacement: str = " ") -> str:
    """`text` with every placeholder replaced (the checks read the rest)."""
    return PATTERN.sub(replacement, text)


def fill(text: str, answers: dict[str, str]) -> str:
    """Each placeholder a person answered replaced by the answer; others stay."""
    by_key = {normalize(k): v for k, v in answers.items()}
    return PATTERN.sub(lambda m: by_key.get(normalize(m.group(0)), m.group(0)), text)


def unanswered(needs: list[dict[str, str]], answers: dict[str, str]) -> list[dict[str, str]]:
    """The needs_from_human entries a person has not given a value for."""
    answered = {normalize(k) for k in answers}
    return [n for n in needs if normalize(n["placeholder"]) not in answered]


def needs_of(text: str, listed: list[dict[str, str]]) -> list[dict[str, str]]:
    """The needs_from_human entries of the placeholders `text` holds, in order: the
    listed entry where there is one, else the placeholder with no question."""
    by_key = {normalize(n["placeholder"]): n for n in listed}
    return [
        by_key.get(normalize(p), {"placeholder": p, "question": ""})
        for p in dict.fromkeys(find(text))
    ]


def with_unlisted(text: str, listed: list[dict[str, str]]) -> list[dict[str, str]]:
    """`listed`, then an entry for each placeholder of `text` it lacks, asking for what
    the placeholder names: a person is asked for every gap the text leaves, whether or not
    the writer remembered to list it (listing is bookkeeping code can do; the gap itself
    is the writer's call)."""
    keys = {normalize(n["placeholder"]) for n in listed}
    added = []
    for placeholder in find(text):
        if normalize(placeholder) not in keys:
            keys.add(normalize(placeholder))
            added.append({"placeholder": placeholder, "question": question(placeholder)})
    return [*listed, *added]


_ASK = {
    "DATE": "When is",
    "NAME": "Who is",
    "LINK": "What is the link for",
    "QUOTE": "What is the quote for",
}


def question(placeholder: str) -> str:
    """What a person is asked for a placeholder: drawn from its label and what it names
    ("[DATE NEEDED: Berlin opening]" -> "When is the Berlin opening?")."""
    label = placeholder.strip().lstrip("[").split(" ", 1)[0].upper()
    what = detail(placeholder)
    article = "" if what.lower().startswith(("the ", "a ", "an ")) else "the "
    return f"{_ASK.get(label, 'What is')} {article}{what}?"


def misspelled(text: str) -> list[str]:
    """Bracketed gaps that are not placeholders: [TBD], [Figure Needed: x], [?] ..."""
    return [
        m.group(0)
        for m in BRACKETED.finditer(text)
        if not is_placeholder(m.group(0))
        and (_GAP_WORDS.search(m.group(1)) or _TEMPLATE_SLOT.match(m.group(1)))
    ]


def detail(placeholder: str) -> str:
    """What is missing: the part after NEEDED:."""
    return placeholder.strip().strip("[]").split(":", 1)[-1].strip()


_DATE_WORDS = re.compile(r"(?i)\b(?:date|day|when|deadline|time|start|launch|week|month)\b")
_NAME_WORDS = re.compile(r"(?i)\b(?:name|who|owner|contact|person|manager|speaker|lead)\b")
_FIGURE_WORDS = re.compile(
    r"(?i)\b(?:revenue|price|cost|figure|number|count|amount|rate|budget|total|sales|"
    r"percent|percentage|margin|profit|salary|fee|size|weight|capacity|how many|how much)\b"
)


def suggest(subject: str) -> str:
    """The placeholder the writer is told to use for a fact the brief lacks."""
    what = re.sub(r"[\[\]\"\n]+", " ", subject).strip(" :.;") or "missing fact"
    if _FIGURE_WORDS.search(what):
        label = "FIGURE"
    elif _DATE_WORDS.search(what):
        label = "DATE"
    elif _NAME_WORDS.search(what):
        label = "NAME"
    else:
        label = "FACT"
    return f"[{label} NEEDED: {what}]"
