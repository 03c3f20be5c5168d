"""What one writer round works with, whatever its strategy: the thread's state, the
roles' models, the calls it makes and its log; and what every strategy does alike:
sample another answer, clean the model's text, judge a draft, and make the round's
state update."""

from __future__ import annotations

import ast
import dataclasses
from dataclasses import dataclass, field
from typing import Any

from batch.check_types import Finding
from batch.draft_cleanup import (
    html_to_markdown,
    strip_chatter,
    strip_fence_tags,
    strip_prompt_lines,
)
from batch.judging.wording import word_grams
from batch.loop.checking import checklist_of, findings_of
from batch.models import CallStat, ModelSet, Sampling
from batch.prompting import critique_texts, instruction_texts
from batch.source_files import is_python
from batch.state import LoopState
from batch.thread_inputs import brief_of, rubric_of

# Each further sample of a first draft or a repair this much warmer than the one before.
SAMPLE_WARMING = 0.3
# A repair is one sentence to get right, not a text to vary: sampled cool, warming after.
REPAIR_TEMPERATURE = 0.3


def calls_of(stats: list[CallStat]) -> list[dict[str, Any]]:
    """Model calls as the state keeps them."""
    return [dataclasses.asdict(s) for s in stats]


def near_copy(a: str, b: str, share: float = 0.9) -> bool:
    """Two drafts that share almost every three-word run: a revision that changed nothing."""
    ga, gb = word_grams(a, 3), word_grams(b, 3)
    if not ga or not gb:
        return a.strip() == b.strip()
    return len(ga & gb) / len(ga | gb) >= share


def python_source(state: LoopState) -> bool:
    """A Python file to document: its docs are written name by name
    (batch.loop.writing.docwriter)."""
    brief = brief_of(state)
    if brief.kind != "source" or not is_python(brief.origin_name):
        return False
    try:
        ast.parse(brief.source_text)
    except SyntaxError:
        return False  # documented as a whole text, as another language's file is
    return True


@dataclass
class WriterRound:
    """One writer round: `stats` collects its model calls, `log` what it did (the
    writer_log entries)."""

    models: ModelSet
    state: LoopState
    stats: list[CallStat] = field(default_factory=list)
    log: list[dict[str, Any]] = field(default_factory=list)

    @property
    def number(self) -> int:
        """This round's number (the state's round is the last one's)."""
        return self.state.get("round", 0) + 1

    def sampling(
        self, sample: int, temperature: float | None = None, seeds_used: int = 0
    ) -> Sampling | None:
        """Sample 0 as configured (or at `temperature`); each later one warmer, on
        another seed, so it is another answer and not the same one again. `seeds_used`:
        seeds an earlier round already tried for the same question, skipped."""
        settings = self.models.settings.writer
        base = settings.temperature if temperature is None else temperature
        if sample == 0 and temperature is None and not seeds_used:
            return None
        return Sampling(
            temperature=min(1.2, base + SAMPLE_WARMING * sample),
            seed=settings.seed + seeds_used + sample,
        )

    def cleaned(self, text: str) -> str:
        """The writer's text as the checks and the critic judge it. Cleaned before either:
        the text judged (and approved) is the text written. Whole lines of the prompt a
        small model copied go too; anything subtler is left for the echo check."""
        state = self.state
        draft = strip_fence_tags(text)
        if brief_of(state).kind != "source":
            # API docs may name tags in prose; a text brief's HTML is a format slip
            draft = html_to_markdown(draft)
        # The brief's orders to the writer ("Write a short memo to ...") are never text
        # for its readers either; only whole lines go, as with the prompts.
        orders = [r["text"] for r in checklist_of(state) if r["kind"] == "task"]
        return strip_prompt_lines(
            strip_chatter(draft),
            [*instruction_texts(state, rubric_of(state)), *critique_texts(state), *orders],
        ).strip()

    def findings(self, draft: str, needs: list[dict[str, str]]) -> list[Finding]:
        """What the code checks find in `draft` (with `needs`) as the thread's draft."""
        return findings_of(self.state, draft, needs)["findings"]

    def spent(self, start: int) -> dict[str, Any]:
        """What the model calls since `start` cost, for a writer_log entry."""
        stats = self.stats[start:]
        return {"calls": len(stats), "seconds": round(sum(s.seconds for s in stats), 3)}

    def unchanged(self) -> dict[str, Any]:
        """The update of a round that gave no new draft: its calls and log only."""
        return {"calls": calls_of(self.stats), "writer_log": self.log}

    def update(
        self,
        draft: str,
        needs: list[dict[str, str]],
        deviations: list[dict[str, str]],
        progressed: bool = False,
    ) -> dict[str, Any]:
        """The state update of a writer round that gave `draft`, however it was made.
        `progressed`: the checks found less in it (a kept repair), however small the
        change, so it is no repeat of the draft before."""
        state = self.state
        previous = state.get("draft", "")
        return {
            "round": self.number,
            "draft": draft,
            # how many rounds in a row gave back the draft before them
            "repeats": (
                state.get("repeats", 0) + 1
                if not progressed and previous and near_copy(previous, draft)
                else 0
            ),
            "deviations": deviations,
            "needs_from_human": needs,
            "calls": calls_of(self.stats),
            "meets_bar": False,
            "writer_log": self.log,
        }
