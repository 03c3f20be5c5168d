"""API docs of a Python file as a round's draft: one public name at a time
(batch.loop.writing.docwriter), each name's example run for the result it shows."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from batch.errors import ModelOutputInvalid, OutOfBudget
from batch.judging import doc_examples
from batch.judging.doc_examples import CallResult
from batch.loop.answers import DocAnswer
from batch.loop.writing.docwriter import DocWriter, Name, NameDoc
from batch.loop.writing.round import REPAIR_TEMPERATURE, WriterRound
from batch.models import ask
from batch.prompting import doc_messages
from batch.thread_inputs import brief_of

DOC_TOKENS = 400  # one name's summary, parameters and example call


def documented(w: WriterRound) -> dict[str, Any]:
    """The round's update with the file's docs. A later round's docs are sampled on
    other seeds: the same ones again would be the same answers."""
    state = w.state
    brief = brief_of(state)
    model = w.models.required("writer")
    offset = state.get("round", 0)

    def ask_name(name: Name, sample: int) -> NameDoc | None:
        try:
            answer = ask(
                model,
                "writer",
                doc_messages(state, name),
                DocAnswer,
                w.stats,
                w.sampling(sample, REPAIR_TEMPERATURE, offset * 2),
                max_tokens=min(model.max_tokens, DOC_TOKENS),
            )
        except ModelOutputInvalid:
            return None
        except OutOfBudget:
            return None  # this name goes undocumented; the checks will say so
        return NameDoc(
            summary=answer.summary,
            parameters={p.name.strip("`* "): p.meaning for p in answer.parameters},
            example=answer.example,
        )

    module = Path(brief.origin_name).stem
    source_path = Path(brief.source_path) if brief.source_path else None

    def run(calls: list[str]) -> list[CallResult] | None:
        return doc_examples.run_calls(calls, brief.source_text, module, source_path)[0]

    start = len(w.stats)
    draft, names = DocWriter(ask_name, run).write(module, brief.source_text)
    w.log.append({"round": w.number, "kind": "docs by name", "names": names, **w.spent(start)})
    return w.update(draft, [], [])
