"""What a check is, and what every check is given.

A check is one small object (a subclass of `Check`): the code prefixes of its findings,
`run(ctx)`, whether it is a unit of the code score, which of its findings a person's own
edit of the text vouches for, and which repairs its findings carry. `CheckContext` is
everything the checks look at, built once per judged draft (batch.loop.checking builds it
from the loop's state), so no check reaches into the state itself.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import ClassVar

from batch.check_types import Finding, Repair, Requirement
from batch.judging.support import SentenceSupport, support_map


@dataclass(frozen=True)
class CheckContext:
    """A draft and everything it is judged against."""

    draft: str
    needs: list[dict[str, str]] = field(default_factory=list)  # its needs_from_human
    # the texts a fact may come from: brief, title, source file, a person's answers
    sources: tuple[str, ...] = ()
    number_severity: str = "must_fix"  # the rubric's number_check: must_fix, warn or off
    min_words: int | None = None
    max_words: int | None = None
    banned_phrases: tuple[str, ...] = ()
    brief: str = ""  # the brief's own text ("" for a source file to document)
    checklist: list[Requirement] = field(default_factory=list)
    # every instruction text the draft must not contain: prompts, house rules, rubric
    prompt_texts: tuple[str, ...] = ()
    critique: tuple[str, ...] = ()  # the points the writer was last given
    answered: tuple[str, ...] = ()  # the placeholders a person has filled
    source_code: str = ""  # the Python file the text documents, if it documents one
    module: str = ""  # that file's module name
    source_path: Path | None = None  # where it lies, when it is a file
    source_suffix: str = ""  # of any source file to document (".py", ".js", ...)
    addition_severity: str = "hold"  # the rubric's additions: hold, warn or off
    addition_words: int = 2  # the rubric's additions_words: how many new words add
    # the writer's deliberate deviations: what it says of this draft
    deviations: tuple[dict[str, str], ...] = ()
    # the values a second reading of the brief gives its readers (None: the rules'
    # reading alone decides which missing values wait for a person)
    read_values: frozenset[str] | None = None
    # the brief's words of the items a person fixed (batch.judging.checklist.fixes): read
    # by a person, and what they hold asked of the text only as the fix says
    set_aside: tuple[str, ...] = ()

    @cached_property
    def support(self) -> list[SentenceSupport]:
        """The draft's support map (batch.judging.support), made once: the Additions
        check and the judgement record both read it."""
        return support_map(self.draft, self.checklist, self.sources)

    @property
    def documents_python(self) -> bool:
        return bool(self.source_code)

    @property
    def documents_source(self) -> bool:
        return bool(self.source_suffix)


class Check:
    """One code check. Subclasses set the class attributes and write `run`."""

    # the prefixes of its findings' codes (the part before ":"), unique in the registry
    codes: ClassVar[tuple[str, ...]] = ()
    # one unit of the code score when it runs on a text; per-checklist-item checks say
    # which kinds of item are units instead (`item_kinds`). Its findings fail at most its
    # units (one, if it has none), so give each finding its own code: the repairer keeps
    # a change only when the must-fix codes shrink
    scored: ClassVar[bool] = True
    item_kinds: ClassVar[frozenset[str]] = frozenset()
    # the codes a person's own edit of the text vouches for: a person is a source, and
    # a figure or a name they wrote is theirs to stand by
    vouched: ClassVar[frozenset[str]] = frozenset()
    # the Repair actions its findings carry (batch.loop.writing.repairs carries them out)
    repairs: ClassVar[frozenset[str]] = frozenset()
    # its holds are tried by the repairer before a person sees them, like a must-fix;
    # their codes are places in the text (a dropped sentence renumbers them), so a repair
    # is kept when there are fewer of them, not when a code is gone
    repaired_holds: ClassVar[bool] = False

    def applies(self, ctx: CheckContext) -> bool:
        """Whether it runs on this draft at all (a check of API docs on a memo does not)."""
        return True

    def run(self, ctx: CheckContext) -> Iterable[Finding]:
        raise NotImplementedError

    def units(self, ctx: CheckContext) -> int:
        """How many units of the code score it is on this draft."""
        if self.item_kinds:
            return sum(1 for r in ctx.checklist if r["kind"] in self.item_kinds)
        return int(self.scored)

    def verify(self, ctx: CheckContext) -> tuple[list[Finding], str | None]:
        """Its findings, and a line for the run record on what it verified by running
        something, for a check that does (the examples of API docs): one run gives both."""
        return list(self.run(ctx)), None


def rewrite(sentences: list[str], goal: str, fact: str = "") -> Repair:
    repair = Repair(action="rewrite", sentences=sentences, goal=goal)
    if fact:
        repair["fact"] = fact
    return repair
