"""The writer's strategies, apart from the graph that runs them (batch.loop.nodes).

A round's draft is, in this order:
- the best draft so far repaired where the checks found problems (repair_round.py:
  repairs.py the procedure, candidates.py what each repair tries, splicing.py the
  edits by code, kept.py when a repair is kept);
- the text as it is, when it meets the bar and no repair was kept;
- API docs of a Python file, one public name at a time (docs.py over docwriter.py);
- a whole draft: a thread's first, sampled with the checks choosing, or a rewrite
  (drafts.py).
round.py is what every strategy shares: sampling, cleaning, judging, the update.
"""

from __future__ import annotations

from typing import Any

from batch.errors import ModelOutputInvalid
from batch.loop.writing.docs import documented
from batch.loop.writing.drafts import whole_draft
from batch.loop.writing.repair_round import repaired
from batch.loop.writing.round import WriterRound, python_source

__all__ = ["WriterRound", "write"]


def write(w: WriterRound) -> dict[str, Any]:
    """The round's state update, by the first strategy that applies (see above)."""
    update = repaired(w)
    if update is not None:
        return update
    state = w.state
    if state.get("meets_bar"):
        # sent back only for what a text at the bar adds, and no repair was kept:
        # no rewrite of a text that passes; it goes on as it is, judged already
        return w.unchanged()
    if python_source(state):
        return documented(w)
    try:
        draft, needs, answer = whole_draft(w)
    except ModelOutputInvalid as e:
        if not state.get("best"):
            raise  # nothing judged yet to set aside: the run fails as a whole
        # A revision that never came back valid: the loop ends here, and the best
        # draft so far is set aside with what is wrong with it (never approved).
        return {"writer_error": str(e), "stop_reason": "error", **w.unchanged()}
    return w.update(draft, needs, [d.model_dump() for d in answer.deliberate_deviations])
