"""Deterministic checks on a draft: findings code makes and the model cannot talk away.

Each finding has a stable `code`, so the same problem in two rounds is recognisably the
same (the no-progress rule compares them), and a severity: `must_fix` findings block
approval whatever the critic scores; `warn` findings go to would_improve.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from batch.state import Finding

# [FIGURE NEEDED: Q3 revenue], [DATE NEEDED: launch], [NAME NEEDED: owner] ...
PLACEHOLDER = re.compile(r"\[(?:[A-Z][A-Z0-9_-]*\s+)*NEEDED\s*:\s*[^\[\]]*?\]")
# Thousands groups only in threes ("1,200" is one number, "1,2,3" three); a unit glued on
# ("4.2M", "15km") does not stop the number, so "4.2M" is 4.2, never a stray 4.
_NUMBER = re.compile(r"(?<![\w.])[-+]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?%?")
_LIST_MARKER = re.compile(r"^(\s*)\d+[.)]\s", re.MULTILINE)
_WORD = re.compile(r"[^\W_]+(?:['’-][^\W_]+)*")
GENERIC_FEEDBACK = "Re-read the brief and the rubric, and fix the weakest part of the text."


def normalize_placeholder(text: str) -> str:
    return re.sub(r"\s+", " ", text.strip()).upper()


def placeholders_in(text: str) -> list[str]:
    return [m.group(0) for m in PLACEHOLDER.finditer(text)]


def _normalize_number(token: str) -> str:
    n = token.lstrip("+").rstrip("%").replace(",", "")
    if "." in n:
        n = n.rstrip("0").rstrip(".") or "0"
    return n


def unanswered(needs: list[dict[str, str]], answers: dict[str, str]) -> list[dict[str, str]]:
    """The needs_from_human entries a person has not given a value for."""
    answered = {normalize_placeholder(k) for k in answers}
    return [n for n in needs if normalize_placeholder(n["placeholder"]) not in answered]


def numbers_in(text: str) -> set[str]:
    text = PLACEHOLDER.sub(" ", text)
    text = _LIST_MARKER.sub(r"\1", text)
    return {_normalize_number(m.group(0)) for m in _NUMBER.finditer(text)}


def word_count(text: str) -> int:
    return len(_WORD.findall(text))


def check_placeholders(draft: str, needs: list[dict[str, str]]) -> list[Finding]:
    found = {normalize_placeholder(p): p for p in placeholders_in(draft)}
    listed: dict[str, str] = {}
    out: list[Finding] = []
    for need in needs:
        raw = need.get("placeholder", "")
        if not PLACEHOLDER.fullmatch(raw.strip()):
            out.append(Finding(
                code=f"need-malformed:{normalize_placeholder(raw)[:80]}",
                message=f"needs_from_human lists {raw!r}, which is not a placeholder of the "
                        f"form [FIGURE NEEDED: what is missing]",
                severity="must_fix"))
            continue
        listed[normalize_placeholder(raw)] = raw
    for key, raw in found.items():
        if key not in listed:
            out.append(Finding(
                code=f"placeholder-unlisted:{key}",
                message=f"The text contains {raw} but needs_from_human does not list it: "
                        f"add it there with the question a person must answer.",
                severity="must_fix"))
    for key, raw in listed.items():
        if key not in found:
            out.append(Finding(
                code=f"need-missing:{key}",
                message=f"needs_from_human lists {raw} but the text does not contain it: put "
                        f"the placeholder where the fact belongs, or drop the entry.",
                severity="must_fix"))
    return out


def check_numbers(draft: str, sources: Iterable[str], severity: str) -> list[Finding]:
    if severity == "off":
        return []
    allowed: set[str] = set()
    for source in sources:
        allowed |= numbers_in(source)
    out: list[Finding] = []
    for number in sorted(numbers_in(draft) - allowed):
        out.append(Finding(
            code=f"number:{number}",
            message=f"The number {number} appears in no source (brief, source file or a "
                    f"person's answer). Do not invent figures: use a placeholder such as "
                    f"[FIGURE NEEDED: what it measures] and list it in needs_from_human.",
            severity="must_fix" if severity == "must_fix" else "warn"))
    return out


def check_length(draft: str, min_words: int | None, max_words: int | None) -> list[Finding]:
    words = word_count(draft)
    if max_words and words > max_words:
        return [Finding(code="too-long",
                        message=f"The text has {words} words; the brief allows at most "
                                f"{max_words}. Cut it.",
                        severity="must_fix")]
    if min_words and words < min_words:
        return [Finding(code="too-short",
                        message=f"The text has {words} words; the brief asks for at least "
                                f"{min_words}.",
                        severity="must_fix")]
    return []


def check_banned(draft: str, phrases: Iterable[str]) -> list[Finding]:
    out: list[Finding] = []
    for phrase in phrases:
        pattern = r"(?<!\w)" + re.escape(phrase) + r"(?!\w)"
        if re.search(pattern, draft, re.IGNORECASE):
            out.append(Finding(code=f"banned:{phrase.lower()}",
                               message=f"The house rules ban the phrase {phrase!r}.",
                               severity="must_fix"))
    return out


def check_copied_brief(draft: str, brief: str) -> list[Finding]:
    """A draft that is mostly the brief's own sentences has probably not done the task.

    A warning, not must_fix: it is a heuristic, and a template brief ("send exactly
    this, filled in") is rightly reproduced almost word for word.
    """
    if len(_WORD.findall(draft)) < 12 or not is_echo(draft, [brief], share=0.6):
        return []
    return [Finding(code="copies-brief",
                    message="The text repeats much of the brief word for word: write the "
                            "finished text for its readers, not the instructions.",
                    severity="warn")]


def run_checks(
    draft: str,
    needs: list[dict[str, str]],
    sources: Iterable[str],
    number_severity: str,
    min_words: int | None,
    max_words: int | None,
    banned_phrases: Iterable[str],
    brief: str = "",
) -> list[Finding]:
    if not draft.strip():
        return [Finding(code="empty-draft", message="The draft is empty.", severity="must_fix")]
    if is_degenerate(draft):
        return [Finding(code="degenerate-draft", severity="must_fix",
                        message="The draft is one word or symbol repeated, not a text.")]
    return [
        *check_copied_brief(draft, brief),
        *check_placeholders(draft, needs),
        *check_numbers(draft, sources, number_severity),
        *check_length(draft, min_words, max_words),
        *check_banned(draft, banned_phrases),
    ]


def is_degenerate(text: str | None) -> bool:
    """Empty, or runaway repetition of one or two tokens (seen from small models)."""
    stripped = (text or "").strip()
    words = stripped.split()
    return (
        not stripped
        or len(set(stripped)) <= 4
        or (len(words) > 5 and len(set(words)) <= 2)
    )


def sanitize_feedback(items: Iterable[str]) -> list[str]:
    """Drop empty items, replace degenerate ones with one generic instruction, dedupe."""
    out: list[str] = []
    for item in items:
        text = (item or "").strip()
        if not text:
            continue
        if is_degenerate(text):
            text = GENERIC_FEEDBACK
        text = text[:1000]
        if text not in out:
            out.append(text)
    return out


def _shingles(text: str, n: int = 4) -> set[tuple[str, ...]]:
    words = [w.lower() for w in _WORD.findall(text)]
    return {tuple(words[i:i + n]) for i in range(max(0, len(words) - n + 1))}


def is_echo(item: str, texts: Iterable[str], share: float = 0.7) -> bool:
    """A "problem" that is mostly a copy of the draft or brief says nothing about either.

    Small models under a JSON grammar often fill must_fix with sentences lifted from the
    text they judge; taken as must_fix they would block approval for no reason.
    """
    mine = _shingles(item)
    if len(mine) < 3:
        return False
    theirs: set[tuple[str, ...]] = set()
    for text in texts:
        theirs |= _shingles(text)
    return len(mine & theirs) / len(mine) >= share


def split_echoes(items: list[str], texts: list[str]) -> tuple[list[str], int]:
    """(items that are real feedback, how many were echoes)."""
    kept = [i for i in items if not is_echo(i, texts)]
    return kept, len(items) - len(kept)


def feedback_key(item: str) -> str:
    return re.sub(r"\W+", " ", item.lower()).strip()
