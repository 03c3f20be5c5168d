"""A whole draft from the brief: a thread's first, sampled up to `limits.drafts` times
with the code checks choosing; a later one a rewrite from the last round's notes."""

from __future__ import annotations

from typing import Any

from batch import placeholders
from batch.errors import ModelOutputInvalid, OutOfBudget
from batch.loop.answers import WriterAnswer
from batch.loop.checking import findings_of
from batch.loop.writing.kept import must_fix
from batch.loop.writing.round import WriterRound
from batch.models import write
from batch.prompting import writer_messages
from batch.thread_inputs import limits_of


def whole_draft(w: WriterRound) -> tuple[str, list[dict[str, str]], WriterAnswer]:
    """A whole draft, its needs and the writer's answer. The first of a thread is
    sampled up to `limits.drafts` times: the code checks pick the one they find least
    wrong with, and sampling stops at the first they pass. ModelOutputInvalid only when
    no sample was valid."""
    state = w.state
    first = not state.get("draft")
    samples = limits_of(state).drafts if first else 1
    start = len(w.stats)
    # a rewrite after repairs that changed nothing starts afresh: shown the same
    # draft, a small model gives it back
    prompt_state = state if first or not w.log else {**state, "repeats": 1}
    messages = writer_messages(prompt_state)
    # (must_fix, score, draft, needs, answer, which sample)
    best: tuple[int, float, str, list[dict[str, str]], WriterAnswer, int] | None = None
    problem: ModelOutputInvalid | None = None
    tried: list[dict[str, Any]] = []
    for sample in range(samples):
        try:
            # plain text: a draft inside grammar-constrained JSON can run on to
            # max_tokens, and a text that repeats itself is stopped and retried
            answer = WriterAnswer.from_text(
                write(w.models.required("writer"), "writer", messages, w.stats, w.sampling(sample))
            )
        except ModelOutputInvalid as e:
            problem = e
            tried.append({"sample": sample, "valid": False})
            continue
        except OutOfBudget:
            if best is None:
                raise
            break  # the samples so far are all the budget buys
        draft = w.cleaned(answer.draft)
        needs = placeholders.with_unlisted(draft, [n.model_dump() for n in answer.needs_from_human])
        if samples == 1:
            best = (0, 0.0, draft, needs, answer, sample)
            break
        judged = findings_of(state, draft, needs)
        wrong, score = len(must_fix(judged["findings"])), judged["score"]
        tried.append({"sample": sample, "valid": True, "must_fix": wrong, "score": score})
        if best is None or (wrong, -score) < (best[0], -best[1]):
            best = (wrong, score, draft, needs, answer, sample)
        if wrong == 0:
            break  # the checks pass it: no need for more
    w.log.append(
        {
            "round": w.number,
            "kind": "first drafts" if first else "rewrite",
            "samples": tried,
            "chosen": best[5] if best is not None else None,
            **w.spent(start),
        }
    )
    if best is None:
        assert problem is not None
        raise problem
    return best[2], best[3], best[4]
