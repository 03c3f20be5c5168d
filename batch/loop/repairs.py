"""Small, local repairs of a draft, driven by what the code checks found.

    must_fix findings, each with the Repair its check describes
      -> candidates: made by code (drop a sentence, a placeholder sentence) or asked of
         the writer model (one sentence, one paragraph: a short JSON string)
      -> spliced into the draft by code -> judged again by the same checks
      -> kept only when the checks then find strictly less: the must_fix codes after
         are a strict subset of those before (a repair that fixes one problem and makes
         another is rolled back, so the best draft so far is never lost)

A small model does small tasks well and whole rewrites badly; the checks are the
verifier that tells a good candidate from a bad one, so each model task is sampled a
few times (another seed, a warmer temperature) and the first candidate the checks
accept is kept. Nothing here calls a model or runs a check itself: `judge` and `ask`
are given, so the whole procedure is tested without either.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

from batch import placeholders
from batch.draft_cleanup import strip_chatter
from batch.judging import wording
from batch.judging.checks.facts import names_in
from batch.judging.checks.support import is_addition
from batch.judging.wording import word_count
from batch.loop.routing import repairable
from batch.prompts import fragment
from batch.state import Finding, Repair

Needs = list[dict[str, str]]
# (draft, needs) -> the checks' findings on it
Judge = Callable[[str, Needs], list[Finding]]
# (the draft as it stands, the task said to the model, which sample (0 first), the most
# words the answer may need) -> the model's text, or None when it gave no valid answer
# (never taken as a repair)
Ask = Callable[[str, str, int, int], str | None]

_MARKER = re.compile(r"^(\s*(?:[-*+•]|\d+[.)])\s+|\s*#{1,6}\s+|\s*>\s*)")
MAX_SENTENCE_WORDS = 60
_LENGTH_ACTIONS = ("shorten", "lengthen")
MIN_SENTENCE_WORDS = 4  # "750 ml" is a fragment, not the sentence that was asked for


def must_fix(findings: list[Finding]) -> frozenset[str]:
    return frozenset(f["code"] for f in findings if f["severity"] == "must_fix")


def additions(findings: list[Finding]) -> int:
    """How many sentences (and placeholders) add what the brief does not say."""
    return sum(1 for f in findings if is_addition(f))


def other_holds(findings: list[Finding]) -> frozenset[str]:
    return frozenset(f["code"] for f in findings if f["severity"] == "hold" and not is_addition(f))


def better(before: list[Finding], after: list[Finding]) -> bool:
    """The checks find strictly less: every problem after was there before, and at
    least one is gone; or the same problems and fewer sentences that add to the brief
    (their codes are places in the text, which a dropped sentence renumbers: counted)."""
    if must_fix(after) < must_fix(before):
        return True
    return (
        must_fix(after) <= must_fix(before)
        and other_holds(after) <= other_holds(before)
        and additions(after) < additions(before)
    )


@dataclass
class Attempt:
    """One repair tried: which finding, how, and whether the checks kept it."""

    code: str
    action: str
    by: Literal["code", "model"]
    kept: bool
    fixed: list[str] = field(default_factory=list)  # the must_fix codes it removed
    # for the story, in words: what the finding said, what the repair was about (the
    # fact stated, the sentence dropped...), and what the kept change fixed
    problem: str = ""
    subject: str = ""
    fixed_problems: list[str] = field(default_factory=list)
    # what it cost: the model questions asked for it and the seconds they took (what
    # `bench loop` weighs against how often each kind is kept)
    calls: int = 0
    seconds: float = 0.0


@dataclass
class Repaired:
    """A draft as the repairs left it: its needs and findings, and every repair tried."""

    draft: str
    needs: Needs
    findings: list[Finding]
    attempts: list[Attempt]

    @property
    def changed(self) -> bool:
        return any(a.kept for a in self.attempts)

    def log(self) -> list[dict[str, Any]]:
        return [asdict(a) for a in self.attempts]


# -- splicing (code) -------------------------------------------------------------------


def _blocks(draft: str) -> list[str]:
    return [b for b in re.split(r"\n\s*\n", draft.strip()) if b.strip()]


def _join(blocks: list[str]) -> str:
    return "\n\n".join(b.strip("\n") for b in blocks if b.strip()).strip() + "\n"


def _is_list(block: str) -> bool:
    lines = [ln for ln in block.splitlines() if ln.strip()]
    return bool(lines) and all(
        _MARKER.match(ln) and not ln.lstrip().startswith(("#", ">")) for ln in lines
    )


def _is_heading(block: str) -> bool:
    return block.lstrip().startswith("#") and "\n" not in block.strip()


def replace_sentence(draft: str, sentence: str, new: str) -> str:
    """`sentence` (as the draft has it) replaced by `new`; a list item or heading keeps
    its marker. An empty `new` drops the sentence, and its line when nothing is left."""
    if sentence not in draft:
        return draft
    marker = _MARKER.match(sentence)
    prefix = marker.group(1) if marker else ""
    if new.strip():
        return draft.replace(sentence, prefix + _MARKER.sub("", new.strip()), 1)
    lines = draft.split("\n")
    i = next((n for n, ln in enumerate(lines) if sentence in ln), None)
    if i is None:  # a sentence across lines: as a whole
        out = draft.replace(sentence, "", 1)
    else:
        rest = re.sub(r"(?<=\S)[ \t]{2,}", " ", lines[i].replace(sentence, "", 1)).rstrip()
        if not lines[i][:1].isspace():
            rest = rest.lstrip()  # the sentence that opened the line took its place
        # a line left with a list marker or punctuation only goes with the sentence
        lines[i : i + 1] = [rest] if wording.WORD.search(rest) else []
        out = "\n".join(lines)
    return re.sub(r"\n{3,}", "\n\n", out).strip() + "\n"


def drop_sentences(draft: str, sentences: list[str]) -> str:
    for s in sentences:
        draft = replace_sentence(draft, s, "")
    return draft


def _body(blocks: list[str]) -> list[int]:
    """The blocks a new sentence may join: not a heading, not a line that leads into a
    list, not a one-line sign-off."""
    out = [i for i, b in enumerate(blocks) if not _is_heading(b) and not b.rstrip().endswith(":")]
    if len(out) > 1 and len(wording.WORD.findall(blocks[out[-1]])) <= 4:
        out.pop()  # "Thanks, Anna" or a signature: the text ends after it
    return out or list(range(len(blocks)))


def placements(draft: str, sentence: str, about: str) -> list[str]:
    """The draft with `sentence` added where it fits: in the paragraph (or as an item of
    the list) that shares most words with `about`, and as a paragraph of its own after
    it. Both are candidates; the checks choose."""
    blocks = _blocks(draft)
    if not blocks:
        return [sentence.strip() + "\n"]
    terms = set(wording.content_terms(about))
    body = _body(blocks)
    scores = {i: len(terms & wording.stems_of(blocks[i])) for i in body}
    best = max(body, key=lambda i: (scores[i], i))
    if scores[best] == 0:
        best = body[-1]
    block = blocks[best]
    if _is_list(block):
        found = _MARKER.match(block.splitlines()[-1])
        assert found is not None  # _is_list: its last line has a marker
        marker = found.group(1).lstrip("\n")
        number = re.match(r"\s*(\d+)([.)])", marker)
        if number:
            marker = marker.replace(number.group(1), str(int(number.group(1)) + 1), 1)
        joined = block.rstrip() + "\n" + marker + sentence.strip()
    else:
        joined = block.rstrip() + " " + sentence.strip()
    inside = _join([*blocks[:best], joined, *blocks[best + 1 :]])
    apart = _join([*blocks[: best + 1], sentence.strip(), *blocks[best + 1 :]])
    return [inside, apart] if inside != apart else [inside]


def clean_sentence(text: str | None) -> str:
    """The model's sentence as a sentence: chatter, quotes, markers and line breaks off."""
    if not text:
        return ""
    text = strip_chatter(text).strip()
    text = " ".join(text.split())
    text = _MARKER.sub("", text).strip().strip('"“”').strip()
    return text


def only_new(answer: str, draft: str) -> str:
    """What an answer adds to the draft. Asked for one sentence, a small model often
    answers with the whole text and the sentence in it: the sentences (or the cut-off
    end of one) the draft already has are not the answer."""
    said = wording.sentences(answer)
    if len(said) < 2:
        return answer  # one sentence: the answer, even when it rewrites one of the draft
    # a sentence of the draft, or two adjacent ones run together ("Dear team, I hope
    # this finds you well." of a salutation line and the sentence after it)
    mine = [set(wording.WORD.findall(s.lower())) for s in wording.sentences(draft)]
    known = mine + [a | b for a, b in zip(mine, mine[1:], strict=False)]

    def seen(sentence: str) -> bool:
        said = set(wording.WORD.findall(sentence.lower()))
        return not said or any(len(said & k) >= 0.8 * len(said) for k in known)

    return " ".join(s for s in said if not seen(s))


def without_empty_headings(text: str) -> str:
    """The text without a heading that has nothing under it before the next heading of
    its level or above (or the end)."""
    lines = text.split("\n")

    def level(line: str) -> int:
        m = re.match(r"^\s*(#{1,6})\s", line)
        return len(m.group(1)) if m else 0

    keep = []
    for i, line in enumerate(lines):
        own = level(line)
        if own:
            rest = next((ln for ln in lines[i + 1 :] if ln.strip()), "")
            if not rest or 0 < level(rest) <= own:
                continue
        keep.append(line)
    return re.sub(r"\n{3,}", "\n\n", "\n".join(keep)).strip() + "\n"


def nearest_sentence(draft: str, fact: str) -> str:
    """The sentence of the draft (not a heading) that shares most words with `fact`,
    or "" when none shares any."""
    terms = set(wording.content_terms(fact))
    best, most = "", 0
    for block in _blocks(draft):
        if _is_heading(block):
            continue
        for sentence in wording.sentences(block):
            shared = len(terms & wording.stems_of(sentence))
            if shared > most and word_count(sentence) <= MAX_SENTENCE_WORDS:
                best, most = sentence, shared
    return best


def placeholder_sentence(subject: str, placeholder: str) -> str:
    """What code writes where a fact is not known: the subject and its placeholder."""
    subject = " ".join(subject.split()).strip(" .:;") or "To be confirmed"
    return f"{subject[0].upper()}{subject[1:]}: {placeholder}."


# -- the procedure ---------------------------------------------------------------------


def _longest_first(draft: str) -> list[str]:
    """The draft's paragraphs (and lists) of body text, the longest first."""
    blocks = _blocks(draft)
    return [blocks[i] for i in sorted(_body(blocks), key=lambda i: -word_count(blocks[i]))]


def _sentence_cuts(draft: str) -> Iterator[str]:
    """The draft without one sentence each: the last of the longest paragraph first;
    never a paragraph's opening one when the next points back to it ("It features …")."""
    for block in _longest_first(draft):
        said = [s for s in wording.sentences(block) if not s.lstrip().startswith("#")]
        for i in reversed(range(len(said))):
            s = said[i]
            if i == 0 and len(said) > 1 and _POINTS_BACK.match(said[1].lstrip()):
                continue
            yield without_empty_headings(replace_sentence(draft, s, ""))


# a sentence that opens on what the one before it named
_POINTS_BACK = re.compile(
    r"(?:It|Its|This|These|That|Those|They|Their|He|His|She|Her|"
    r"Then|Also|However|But|So|Both|Each)\b"
)


_CLAUSE = re.compile(r",\s+")
# a sentence's last clause that only hangs on it: ", making it ideal for …",
# ", ensuring comfort …", ", which is durable" (not "during …", "including …")
# ("parking is free" has a verb of its own; "swimming." is one item of a list)
_TAIL = re.compile(
    r"(?:which\b|(?!during|including|nothing|something|anything|everything"
    r"|morning|evening|spring|string)[a-z]{3,}ing\b"
    r"(?!\s+(?:is|are|was|were|has|have|will)\b))(?=(?:\s+\S+){2})"
)


def _filler_cuts(draft: str, keep: frozenset[str]) -> Iterator[str]:
    """The draft without one clause each that holds no number, no placeholder and at
    most one word of what the brief asks, longest paragraph first; a sentence's last
    clause only when it hangs on the rest (its main one as often as not)."""
    for block in _longest_first(draft):
        for s in wording.sentences(block):
            lead = s[: len(s) - len(s.lstrip("*_>- "))]  # a list marker, bold
            pieces = _CLAUSE.split(s[len(lead) :])
            for n, piece in enumerate(pieces):
                last = n == len(pieces) - 1
                if last and (n == 0 or not _TAIL.match(piece)):
                    continue
                # a tail's own connective ("making") is not what it says
                said = piece.split(None, 1)[-1] if last else piece
                if (
                    wording.numbers_of(piece)
                    or placeholders.find(piece)
                    or "[" in piece
                    or len(set(wording.content_terms(said)) & keep) > 1
                ):
                    continue
                new = ", ".join(pieces[:n] + pieces[n + 1 :])
                if last:  # its full stop stays with the sentence
                    new = new.rstrip() + piece[len(piece.rstrip(".!?*_\"'”’)")) :]
                yield replace_sentence(draft, s, lead + new[:1].upper() + new[1:])


def subject_of(repair: Repair) -> str:
    """What a repair is about, in the draft's or the brief's own words: the fact to
    state, the sentence at fault, the words replaced, the placeholder, the limit."""
    if repair.get("fact"):
        return repair["fact"]
    if repair.get("placeholder"):
        return repair["placeholder"]
    if repair.get("old"):
        return f"{repair['old']} → {repair.get('new', '')}"
    if repair.get("new"):
        return repair["new"]
    if repair.get("words"):
        return f"{repair['words']} words"
    return " ".join(repair.get("sentences") or [])


@dataclass
class Repairer:
    """Carries out the repairs the findings describe, one finding at a time (`run`):
    candidates by code first, then by the model (`ask`), each judged by `judge` and kept
    only when the must-fix codes shrink. It calls no model and runs no check itself, so
    the whole procedure is tested with plain functions."""

    judge: Judge
    ask: Ask
    samples: int = 2  # model answers tried per task before giving up on it
    max_tasks: int = 8  # findings tried per call (each costs up to `samples` model calls)
    # the model questions asked so far and their seconds: each attempt is charged its own
    _calls: int = field(default=0, init=False, repr=False)
    _seconds: float = field(default=0.0, init=False, repr=False)

    def _ask(self, draft: str, task: str, sample: int, words: int) -> str | None:
        started = time.perf_counter()
        try:
            return self.ask(draft, task, sample, words)
        finally:
            self._calls += 1
            self._seconds += time.perf_counter() - started

    def run(self, draft: str, needs: Needs, findings: list[Finding]) -> Repaired:
        """Every must_fix finding with a repair tried once, each on the draft as the
        repairs before it left it: what the text says first, in the checks' order, and
        its length last (a fact stated after the cut would make it too long again)."""
        state = Repaired(draft, needs_for(draft, needs), findings, [])
        tried: set[str] = set()
        while len(tried) < self.max_tasks:
            todo = [f for f in state.findings if repairable(f) and f["code"] not in tried]
            if not todo:
                break
            # what must be fixed before what only a person would be shown; length last
            finding = min(
                todo,
                key=lambda f: (
                    f["severity"] != "must_fix",
                    f["repair"]["action"] in _LENGTH_ACTIONS,
                ),
            )
            tried.add(finding["code"])
            self._repair(state, finding)
        return state

    def _repair(self, state: Repaired, finding: Finding) -> None:
        repair: Repair = finding["repair"]
        action = repair["action"]
        by: Literal["code", "model"] = "code"
        calls, seconds = self._calls, self._seconds
        for by, make in self._candidates(state.draft, repair, state.findings):
            for candidate in make():
                if candidate is None or candidate.strip() == state.draft.strip():
                    continue
                needs = needs_for(candidate, state.needs)
                after = self.judge(candidate, needs)
                if action not in _LENGTH_ACTIONS and not better(state.findings, after):
                    # a fact stated that takes the text over its limit: made room for
                    # by code, cutting only what loses nothing, else rolled back
                    candidate, after = self._room_made(candidate, needs, state, after)
                if better(state.findings, after):
                    fixed = sorted(must_fix(state.findings) - must_fix(after))
                    said = {f["code"]: f["message"] for f in state.findings}
                    state.attempts.append(
                        Attempt(
                            finding["code"],
                            action,
                            by,
                            True,
                            fixed,
                            finding["message"],
                            subject_of(repair),
                            [said[c] for c in fixed if c in said],
                            *self._spent_since(calls, seconds),
                        )
                    )
                    state.draft, state.needs, state.findings = candidate, needs, after
                    return
        spent_calls, spent_seconds = self._spent_since(calls, seconds)
        state.attempts.append(
            Attempt(
                finding["code"],
                action,
                by,
                False,
                problem=finding["message"],
                subject=subject_of(repair),
                calls=spent_calls,
                seconds=spent_seconds,
            )
        )

    def _spent_since(self, calls: int, seconds: float) -> tuple[int, float]:
        return self._calls - calls, round(self._seconds - seconds, 3)

    def _room_made(
        self, candidate: str, needs: Needs, state: Repaired, after: list[Finding]
    ) -> tuple[str, list[Finding]]:
        too_long = next((f for f in after if f["code"] == "too-long"), None)
        if (
            too_long is None
            or "too-long" in must_fix(state.findings)
            or must_fix(after) - must_fix(state.findings) != {"too-long"}
        ):
            return candidate, after
        repair = too_long.get("repair") or {}
        cut, within = self._cut_by_code(
            candidate, repair.get("words", 0), after, frozenset(repair.get("keep", ()))
        )
        if not within:
            return candidate, after
        return cut, self.judge(cut, needs_for(cut, needs))

    def _candidates(
        self, draft: str, repair: Repair, findings: list[Finding]
    ) -> Iterator[tuple[Literal["code", "model"], Callable[[], Iterable[str | None]]]]:
        """(who made them, a generator of candidate drafts): code's first, since they
        cost nothing, then the model's, one sample at a time (a sample stops being drawn
        as soon as one is kept)."""
        action = repair["action"]
        sentences = [s for s in repair.get("sentences", []) if s in draft]
        if action == "replace":
            yield "code", lambda: [draft.replace(repair["old"], repair["new"])]
        elif action == "append":
            yield "code", lambda: [draft.rstrip() + "\n\n" + repair["new"] + "\n"]
        elif action == "drop":
            yield "code", lambda: [drop_sentences(draft, sentences)] if sentences else []
        elif action == "rewrite":
            if sentences:
                yield "code", lambda: [drop_sentences(draft, sentences)]
                yield "model", lambda: self._rewritten(draft, sentences, repair)
        elif action == "state":
            yield "model", lambda: self._stated(draft, repair)
            if repair.get("new"):
                # what the model could not say, the brief's own sentence says
                yield "code", lambda: self._stated_as_is(draft, repair)
        elif action == "placeholder":
            yield "code", lambda: self._placeholder_by_code(draft, sentences, repair)
            yield "model", lambda: self._placeholder_by_model(draft, sentences, repair)
        elif action == "shorten":
            cut, within = self._cut_by_code(
                draft, repair["words"], findings, frozenset(repair.get("keep", ()))
            )
            if within:
                yield "code", lambda: [cut]
            # what code could not cut far enough, the model shortens further: the
            # longest paragraph of the text code cut, not of the text as it was
            yield "model", lambda: self._shortened(cut, repair["words"])
        elif action == "lengthen":
            yield "model", lambda: self._lengthened(draft, repair["words"])

    # each of these yields candidate drafts

    def _sentences_from_model(
        self, draft: str, task: str, samples: int | None = None
    ) -> Iterator[str]:
        for sample in range(self.samples if samples is None else samples):
            text = only_new(
                clean_sentence(self._ask(draft, task, sample, MAX_SENTENCE_WORDS)), draft
            )
            if text and MIN_SENTENCE_WORDS <= len(wording.WORD.findall(text)) <= MAX_SENTENCE_WORDS:
                yield text

    def _rewritten(self, draft: str, sentences: list[str], repair: Repair) -> Iterator[str]:
        target = sentences[0]
        fact = (
            fragment("repair_fact", fact=repair["fact"].strip().rstrip("."))
            if repair.get("fact")
            else ""
        )
        task = fragment(
            "repair_rewrite",
            sentence=_MARKER.sub("", target).strip(),
            goal=repair["goal"],
            fact_line=fact,
        )
        for new in self._sentences_from_model(draft, task):
            # the other sentences with the same fault go: one rewritten sentence is enough
            yield drop_sentences(replace_sentence(draft, target, new), sentences[1:])

    def _stated(self, draft: str, repair: Repair) -> Iterator[str]:
        fact = repair["fact"].strip().rstrip(".")
        near = nearest_sentence(draft, fact)
        if near:
            # a sentence that says part of it already ("its foldable design" for "folds
            # flat"): said whole there, the text does not say it twice
            task = fragment(
                "repair_rewrite",
                sentence=_MARKER.sub("", near).strip(),
                goal="also " + repair["goal"],
                fact_line=fragment("repair_fact", fact=fact),
            )
            for new in self._sentences_from_model(draft, task, samples=1):
                yield replace_sentence(draft, near, new)
        task = fragment("repair_state", fact=fact, goal=repair["goal"])
        for new in self._sentences_from_model(draft, task):
            yield from placements(draft, new, repair["fact"])

    @staticmethod
    def _stated_as_is(draft: str, repair: Repair) -> Iterator[str]:
        near = nearest_sentence(draft, repair["fact"])
        said = set(wording.numbers_of(repair["new"])) | set(names_in(repair["new"]))
        words = set(wording.content_terms(near))
        if (
            near
            and set(wording.numbers_of(near)) | set(names_in(near)) <= said
            and 2 * len(words - set(wording.content_terms(repair["new"]))) <= len(words)
        ):
            # in place of the sentence that says part of it, not twice, when that one
            # says nothing more: no figure or name of its own ("the Standard plan of
            # Fernhill Broadband"), most of its words the brief's sentence's
            yield replace_sentence(draft, near, repair["new"])
        yield from placements(draft, repair["new"], repair["fact"])

    def _placeholder_by_code(
        self, draft: str, sentences: list[str], repair: Repair
    ) -> Iterator[str]:
        subject = placeholders.detail(repair["placeholder"])
        line = placeholder_sentence(subject, repair["placeholder"])
        if sentences:
            yield drop_sentences(replace_sentence(draft, sentences[0], line), sentences[1:])
            yield from placements(drop_sentences(draft, sentences), line, subject)
        # the sentences near the gap may state what the brief does give ("resurfaced
        # from 9 to 13 June" beside the unknown reopening time): kept, the line added
        yield from placements(draft, line, subject)

    def _placeholder_by_model(
        self, draft: str, sentences: list[str], repair: Repair
    ) -> Iterator[str]:
        placeholder = repair["placeholder"]
        if sentences:
            task = fragment(
                "repair_placeholder_rewrite",
                placeholder=placeholder,
                sentence=_MARKER.sub("", sentences[0]).strip(),
            )
        else:
            task = fragment(
                "repair_placeholder_state",
                placeholder=placeholder,
                fact=repair.get("fact") or placeholders.detail(placeholder),
            )
        for new in self._sentences_from_model(draft, task):
            if placeholder not in new:
                continue  # the one thing asked for
            if sentences:
                yield drop_sentences(replace_sentence(draft, sentences[0], new), sentences[1:])
            else:
                yield from placements(draft, new, placeholders.detail(placeholder))

    def _cut_by_code(
        self, draft: str, limit: int, findings: list[Finding], keep: frozenset[str] = frozenset()
    ) -> tuple[str, bool]:
        """Sentences dropped, the last of the longest paragraph first, as long as no new
        problem appears (beside the `findings` the draft has), until the text is within
        `limit` words; then, if it is not, the clauses of its sentences that say nothing
        the brief asks (`keep`: its items' words) — "As you may be aware," "if you are
        interested in continuing your journey with us," — the same way. (The text cut,
        whether it is within.) A heading is never a sentence to drop, but goes when
        nothing is left under it."""
        current = draft
        before = must_fix(findings)
        for cuts in (_sentence_cuts, lambda text: _filler_cuts(text, keep)):
            while word_count(current) > limit:
                for candidate in cuts(current):
                    if (
                        not must_fix(self.judge(candidate, needs_for(candidate, [])))
                        - before
                        - {"too-long"}
                    ):
                        current = candidate
                        break
                else:  # each cut loses something the brief asks for, or there is none
                    break
        return current, word_count(current) <= limit

    def _shortened(self, draft: str, limit: int) -> Iterator[str]:
        blocks = _blocks(draft)
        i, head, paragraph = _longest(blocks, _body(blocks))
        excess = word_count(draft) - limit
        budget = max(10, word_count(paragraph) - excess - max(5, limit // 20))
        task = fragment("repair_shorten", words=budget, paragraph=paragraph.strip())
        for sample in range(self.samples):
            text = strip_chatter(self._ask(draft, task, sample, budget) or "").strip()
            if text and word_count(text) <= budget + 5:
                yield _join([*blocks[:i], head + text, *blocks[i + 1 :]])

    def _lengthened(self, draft: str, limit: int) -> Iterator[str]:
        blocks = _blocks(draft)
        body = [i for i in _body(blocks) if not _is_list(blocks[i])] or _body(blocks)
        i, _, paragraph = _longest(blocks, body)
        missing = limit - word_count(draft) + max(5, limit // 20)
        task = fragment("repair_lengthen", words=missing, paragraph=paragraph.strip())
        for sample in range(self.samples):
            text = " ".join(strip_chatter(self._ask(draft, task, sample, missing) or "").split())
            if text:
                yield _join([*blocks[:i], blocks[i].rstrip() + " " + text, *blocks[i + 1 :]])


def _longest(blocks: list[str], among: list[int]) -> tuple[int, str, str]:
    """(which block, its opening heading lines, the paragraph under them) of the block
    among `among` whose paragraph has the most words."""
    i = max(among, key=lambda j: word_count(_under_heading(blocks[j])[1]))
    return (i, *_under_heading(blocks[i]))


def _under_heading(block: str) -> tuple[str, str]:
    """(the heading lines that open a block, with their line breaks; the rest): a
    paragraph written right under its heading is rewritten without it."""
    lines = block.split("\n")
    n = 0
    while n < len(lines) and lines[n].lstrip().startswith("#"):
        n += 1
    head = "\n".join(lines[:n]) + "\n" if n else ""
    return head, "\n".join(lines[n:])


def needs_for(draft: str, needs: Needs) -> Needs:
    """The needs of a spliced draft: the listed entries of the placeholders it still
    has, and one (its question drawn from it) for each new one."""
    present = {placeholders.normalize(p) for p in placeholders.find(draft)}
    return placeholders.with_unlisted(
        draft, [n for n in needs if placeholders.normalize(n["placeholder"]) in present]
    )
