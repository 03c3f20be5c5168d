"""Checks of the text's form: no text at all, length, banned phrases, HTML, a sentence
said twice, and a text that copies its brief or the code it should explain."""

from __future__ import annotations

import re
from collections.abc import Iterable

from batch.check_types import Finding, Repair
from batch.draft_cleanup import CODE
from batch.judging import wording
from batch.judging.checks.base import Check, CheckContext, rewrite
from batch.judging.wording import WORD, grams, is_degenerate, is_echo, sentences_where, word_count


def check_length(
    draft: str, min_words: int | None, max_words: int | None, keep: Iterable[str] = ()
) -> list[Finding]:
    """Within the limits; a cut is told the words of what the brief asks (`keep`)."""
    words = word_count(draft)
    if max_words and words > max_words:
        return [
            Finding(
                code="too-long",
                message=f"The text has {words} words; the brief allows at most "
                f"{max_words}. Cut it.",
                severity="must_fix",
                repair=Repair(action="shorten", words=max_words, keep=sorted(set(keep))),
            )
        ]
    if min_words and words < min_words:
        return [
            Finding(
                code="too-short",
                message=f"The text has {words} words; the brief asks for at least {min_words}.",
                severity="must_fix",
                repair=Repair(action="lengthen", words=min_words),
            )
        ]
    return []


def check_banned(draft: str, phrases: Iterable[str]) -> list[Finding]:
    out: list[Finding] = []
    for phrase in phrases:
        pattern = r"(?<!\w)" + re.escape(phrase) + r"(?!\w)"
        if re.search(pattern, draft, re.IGNORECASE):
            out.append(
                Finding(
                    code=f"banned:{phrase.lower()}",
                    message=f"The house rules ban the phrase {phrase!r}.",
                    severity="must_fix",
                    repair=rewrite(
                        sentences_where(
                            draft, lambda s, p=pattern: re.search(p, s, re.IGNORECASE) is not None
                        ),
                        f"no longer uses the phrase {phrase!r} and says the same thing plainly",
                    ),
                )
            )
    return out


_DOCSTRING_START = ("#", '"' * 3, "'" * 3)


def check_copied_source(draft: str, source: str) -> list[Finding]:
    """Docs that paste the code they should explain: a fifth or more of the source's
    substantial lines, verbatim."""
    lines = {
        re.sub(r"\s+", " ", ln.strip())
        for ln in source.splitlines()
        if len(ln.strip()) >= 16 and not ln.strip().startswith(_DOCSTRING_START)
    }
    if not lines:
        return []
    text = {re.sub(r"\s+", " ", ln.strip()) for ln in draft.splitlines()}
    copied = len(lines & text)
    if copied / len(lines) < 0.2:
        return []
    return [
        Finding(
            code="copies-source",
            severity="must_fix",
            message=f"The text pastes {copied} lines of the source code: explain "
            f"what the code does and how to call it instead.",
        )
    ]


def check_copied_brief(draft: str, brief: str) -> list[Finding]:
    """A draft that is mostly the brief's own sentences has probably not done the task.

    A warning, not must_fix: it is a heuristic, and a template brief ("send exactly
    this, filled in") is rightly reproduced almost word for word.
    """
    if len(WORD.findall(draft)) < 12 or not is_echo(draft, [brief], share=0.6):
        return []
    return [
        Finding(
            code="copies-brief",
            message="The text repeats much of the brief word for word: write the "
            "finished text for its readers, not the instructions.",
            severity="warn",
        )
    ]


def check_repeated(draft: str) -> list[Finding]:
    """A sentence the text says twice, word for word or nearly (the same three-word runs
    at least 80 %): a small model's slip no reader wants. Its repair drops the copy."""
    seen: list[tuple[str, set[tuple[str, ...]]]] = []
    out: list[Finding] = []
    for sentence in wording.sentences(CODE.sub(" ", draft)):
        words = [w.lower() for w in WORD.findall(sentence)]  # placeholders' words too
        if len(words) < 4:
            continue
        runs = grams(words, 3) or {tuple(words)}
        twin = next(
            (
                s
                for s, g in seen
                if g == runs or (len(words) >= 8 and len(g & runs) / len(g | runs) >= 0.8)
            ),
            None,
        )
        if twin is None:
            seen.append((sentence, runs))
            continue
        if sentence not in draft:
            continue
        out.append(
            Finding(
                code=f"repeated:{' '.join(words[:8])}",
                severity="must_fix",
                message=f"The text says {twin[:120]!r} twice: say it once.",
                repair=Repair(action="drop", sentences=[sentence]),
            )
        )
    return out + _said_before(draft, {f["repair"]["sentences"][0] for f in out})


# a heading, a bold title line, a name under a letter: no sentence, and rightly said
# again by the text below it
_HEADING_LIKE = re.compile(r"^\s*(?:#|\*\*[^*]+\*\*\s*$|[-*]\s)|^[^.!?]*$")


_NEGATION = re.compile(r"(?i)\b(?:not|never|no|none|nothing|without)\b|n['’]t\b")


def _said_before(draft: str, dropped: set[str]) -> list[Finding]:
    """A sentence every word and figure of which another sentence already says ("The
    flask keeps drinks hot for 12 hours." after "a steel flask that keeps drinks hot for
    12 hours, with a leak-proof lid"): it tells the reader nothing new. Seen when a
    repair says a fact again that a longer sentence carries."""
    said = [
        (s, set(wording.content_terms(s)), set(wording.numbers_of(s)))
        for s in wording.sentences(CODE.sub(" ", draft))
        if s not in dropped
    ]
    out: list[Finding] = []
    for i, (sentence, terms, numbers) in enumerate(said):
        if len(terms) < 3 or sentence not in draft or _HEADING_LIKE.match(sentence):
            continue
        wider = next(
            (
                other
                for j, (other, others, figures) in enumerate(said)
                if j != i
                and terms < others
                and numbers <= figures
                # "not confirmed until two nodes have stored it": said the other way
                # round, which is more than the same words
                and bool(_NEGATION.search(sentence)) <= bool(_NEGATION.search(other))
            ),
            None,
        )
        if wider is None:
            continue
        words = [w.lower() for w in WORD.findall(sentence)]
        out.append(
            Finding(
                code=f"repeated:{' '.join(words[:8])}",
                # read from shared words, never certain (a list item beside the note
                # that it moved): advice the repairer acts on, not a must-fix
                severity="warn",
                message=(
                    f"{sentence[:120]!r} says nothing {wider[:120]!r} does not say already: "
                    "say it once."
                ),
                repair=Repair(action="drop", sentences=[sentence]),
            )
        )
    return out


_HTML_TAG = re.compile(
    r"</?(?:p|br|strong|b|em|i|u|div|span|ul|ol|li|h[1-6]|a|table|tr|td|"
    r"th|img|pre|blockquote|hr)\b[^<>\n]*/?>",
    re.IGNORECASE,
)


def check_html(draft: str) -> list[Finding]:
    """The text is Markdown: HTML tags outside code (a small model's `<p><strong>`) show
    up as tags wherever the text is read as Markdown or plain text."""
    tags = sorted({m.group(0) for m in _HTML_TAG.finditer(CODE.sub(" ", draft))})
    if not tags:
        return []
    return [
        Finding(
            code="html",
            severity="must_fix",
            message=f"The text uses HTML tags ({', '.join(tags[:4])}); write it in "
            f"Markdown: **bold**, a blank line between paragraphs.",
        )
    ]


# A label that opens a part of a section ("Parameters:", "**Example**", "Returns:")
_PART_LABEL = re.compile(
    r"^\s*[*_]{0,2}(parameters|params|arguments|args|examples?|returns|"
    r"raises|attributes|usage|options)[*_]{0,2}\s*:?\s*[*_]{0,2}\s*$",
    re.IGNORECASE,
)
_HEADING_LEVEL = re.compile(r"^\s*(#{1,6})\s+\S")


def check_empty_sections(draft: str) -> list[Finding]:
    """A heading, or a label such as "Parameters:" or "Example:", with nothing under it
    before the next heading of its level or above, the next label, or the end: a part
    of the text that lost its last line (a cut or a repair took it) or never had one.
    Lines inside a code fence are content, never headings."""
    marks: list[tuple[int, str]] = []  # (heading level, or 0 for a label, or -1 content)
    fenced = False
    for line in draft.split("\n"):
        if line.lstrip().startswith(("```", "~~~")):
            fenced = not fenced
            marks.append((-1, line))
        elif not line.strip():
            continue
        elif not fenced and (heading := _HEADING_LEVEL.match(line)):
            marks.append((len(heading.group(1)), line))
        elif not fenced and _PART_LABEL.match(line):
            marks.append((0, line))
        else:
            marks.append((-1, line))
    out: list[Finding] = []
    under = ""  # the heading a label stands under: one finding per empty part
    for i, (level, line) in enumerate(marks):
        if level < 0:
            continue
        name = line.strip(" #*_:")[:60]
        if level > 0:
            under = name
        after = marks[i + 1][0] if i + 1 < len(marks) else None
        # a label ends at any heading or label; a heading at one of its level or above
        empty = after is None or (after >= 0 if level == 0 else 0 < after <= level)
        if empty:
            where = f"{under} / {name}" if level == 0 and under else name
            out.append(
                Finding(
                    code=f"empty-section:{where.lower()}",
                    severity="must_fix",
                    message=f"{where!r} has nothing under it: give it its content, or remove "
                    f"the heading.",
                )
            )
    return out


class NoText(Check):
    """No text to judge: empty, or one word or symbol repeated. Its finding ends the
    checks, and such a draft scores nothing."""

    codes = ("empty-draft", "degenerate-draft")
    scored = False

    def run(self, ctx: CheckContext) -> list[Finding]:
        if not ctx.draft.strip():
            return [Finding(code="empty-draft", message="The draft is empty.", severity="must_fix")]
        if is_degenerate(ctx.draft):
            return [
                Finding(
                    code="degenerate-draft",
                    severity="must_fix",
                    message="The draft is one word or symbol repeated, not a text.",
                )
            ]
        return []


class CopiedBrief(Check):
    """Mostly the brief's own sentences: a warning, never a unit of the score."""

    codes = ("copies-brief",)
    scored = False

    def run(self, ctx: CheckContext) -> list[Finding]:
        return check_copied_brief(ctx.draft, ctx.brief)


class Repeated(Check):
    """A sentence said twice. Not for API docs, which rightly say a parameter's meaning
    again for each function."""

    codes = ("repeated",)
    repairs = frozenset({"drop"})

    def applies(self, ctx: CheckContext) -> bool:
        return bool(ctx.brief)

    def run(self, ctx: CheckContext) -> list[Finding]:
        return check_repeated(ctx.draft)


class Html(Check):
    """HTML tags in a Markdown text."""

    codes = ("html",)

    def run(self, ctx: CheckContext) -> list[Finding]:
        return check_html(ctx.draft)


class Length(Check):
    """Within the brief's word limits (`min_words`, `max_words`)."""

    codes = ("too-long", "too-short")
    repairs = frozenset({"shorten", "lengthen"})

    def run(self, ctx: CheckContext) -> list[Finding]:
        return check_length(
            ctx.draft, ctx.min_words, ctx.max_words, (t for r in ctx.checklist for t in r["terms"])
        )


class Banned(Check):
    """None of the house rules' banned phrases."""

    codes = ("banned",)
    repairs = frozenset({"rewrite"})

    def run(self, ctx: CheckContext) -> list[Finding]:
        return check_banned(ctx.draft, ctx.banned_phrases)


class EmptySections(Check):
    """A heading, or a `Parameters:` / `Example:` part, with nothing under it, and (API
    docs) a parameter list that leaves out one of the real parameters: what a cut or a
    repair must never leave behind."""

    codes = ("empty-section",)

    def run(self, ctx: CheckContext) -> list[Finding]:
        return check_empty_sections(ctx.draft)


class CopiedSource(Check):
    """Docs that paste the code they should explain."""

    codes = ("copies-source",)

    def applies(self, ctx: CheckContext) -> bool:
        return ctx.documents_python

    def run(self, ctx: CheckContext) -> list[Finding]:
        return check_copied_source(ctx.draft, ctx.source_code)
