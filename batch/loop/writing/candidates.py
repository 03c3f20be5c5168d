"""The candidate drafts of one repair, made by code first (they cost nothing), then
asked of the writer model one sample at a time: a sentence rewritten, a fact stated,
a placeholder put where the gap is, a paragraph shortened or lengthened. The Repairer
(batch.loop.writing.repairs) judges each and keeps the first the checks find less in."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Literal

from batch import placeholders
from batch.check_types import Finding, Repair
from batch.draft_cleanup import strip_chatter
from batch.judging import wording
from batch.judging.checks.facts import names_in
from batch.judging.wording import word_count
from batch.loop.writing.kept import loses_nothing, must_fix
from batch.loop.writing.splicing import (
    LINE_MARKER,
    MAX_SENTENCE_WORDS,
    Needs,
    body_blocks,
    clean_sentence,
    drop_sentences,
    filler_cuts,
    is_list_block,
    join_blocks,
    longest_block,
    nearest_sentence,
    needs_for,
    only_new,
    placeholder_sentence,
    placements,
    replace_sentence,
    sentence_cuts,
    split_blocks,
)
from batch.prompts import fragment

# (draft, needs) -> the checks' findings on it
Judge = Callable[[str, Needs], list[Finding]]
# (the draft as it stands, the task said to the model, which sample (0 first), the most
# words the answer may need) -> the model's text, or None when it gave no valid answer
# (never taken as a repair)
Ask = Callable[[str, str, int, int], str | None]

MIN_SENTENCE_WORDS = 4  # "750 ml" is a fragment, not the sentence that was asked for


@dataclass
class Candidates:
    """The candidates of a repair (`of`), and code's cuts that shorten a text
    (`cut_by_code`). `ask` is the model (each call counted by the Repairer), `judge` the
    checks, `samples` the model answers tried per task."""

    judge: Judge
    ask: Ask
    samples: int = 2

    def of(
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
            cut, within = self.cut_by_code(
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
                clean_sentence(self.ask(draft, task, sample, MAX_SENTENCE_WORDS)), draft
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
            sentence=LINE_MARKER.sub("", target).strip(),
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
                sentence=LINE_MARKER.sub("", near).strip(),
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
                sentence=LINE_MARKER.sub("", sentences[0]).strip(),
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

    def cut_by_code(
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
        for cuts in (sentence_cuts, lambda text: filler_cuts(text, keep)):
            while word_count(current) > limit:
                for candidate in cuts(current):
                    after = self.judge(candidate, needs_for(candidate, []))
                    if not must_fix(after) - before - {"too-long"} and loses_nothing(
                        findings, after
                    ):
                        current = candidate
                        break
                else:  # each cut loses something the brief asks for, or there is none
                    break
        return current, word_count(current) <= limit

    def _shortened(self, draft: str, limit: int) -> Iterator[str]:
        blocks = split_blocks(draft)
        i, head, paragraph = longest_block(blocks, body_blocks(blocks))
        excess = word_count(draft) - limit
        budget = max(10, word_count(paragraph) - excess - max(5, limit // 20))
        task = fragment("repair_shorten", words=budget, paragraph=paragraph.strip())
        for sample in range(self.samples):
            text = strip_chatter(self.ask(draft, task, sample, budget) or "").strip()
            if text and word_count(text) <= budget + 5:
                yield join_blocks([*blocks[:i], head + text, *blocks[i + 1 :]])

    def _lengthened(self, draft: str, limit: int) -> Iterator[str]:
        blocks = split_blocks(draft)
        body = [i for i in body_blocks(blocks) if not is_list_block(blocks[i])] or body_blocks(
            blocks
        )
        i, _, paragraph = longest_block(blocks, body)
        missing = limit - word_count(draft) + max(5, limit // 20)
        task = fragment("repair_lengthen", words=missing, paragraph=paragraph.strip())
        for sample in range(self.samples):
            text = " ".join(strip_chatter(self.ask(draft, task, sample, missing) or "").split())
            if text:
                yield join_blocks([*blocks[:i], blocks[i].rstrip() + " " + text, *blocks[i + 1 :]])
