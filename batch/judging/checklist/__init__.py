"""What a brief asks, as a checklist code can verify a draft against.

Built once when a thread starts and frozen in its state, so every round is judged
against the same list and a person sees the same list in `review show` and the run log.

Kinds:
- fact:    something the text must say ("The team closed 42 new accounts")
- ask:     something the text must ask its readers to do ("update the CRM by Friday")
- missing: a fact the brief says is not known yet; the text carries a placeholder
- gap:     a fact not known yet that the brief asks to be *told* to the reader
- api:     a public name of a source file that the docs must cover
- raises:  an exception a public function of a source file raises itself
- sign:    who the text is signed from ("Sign it from the billing team"): its last lines
- task / style / rule: instructions to the writer ("Write a memo…", "Tone: warm",
  "Don't mention prices"); never covered, but never copied into the text either

The modules, by job:

    reading.py    a brief's text -> its requirements (`brief_checklist`)
    classify.py   one item of a brief -> its kind, the text to cover, its subject
    missing.py    a fact not known yet: how a brief says so, what it is, and the
                  order to tell the readers so
    cues.py       the patterns and word lists more than one of these reads by
    sources.py    a source file's checklist (its public API); `build_checklist`, a
                  brief's or a source file's
    coverage.py   whether a draft covers a requirement (`covered`)
"""

from __future__ import annotations

from batch.judging.checklist.coverage import (
    asks_readers,
    clauses,
    covered,
    signed_by,
    tells_gap,
    unsigned_for_certain,
)
from batch.judging.checklist.cues import joined_clauses
from batch.judging.checklist.missing import CERTAIN_GAP, MISSING_CUE, TELLS_INSIDE
from batch.judging.checklist.reading import COVERED_KINDS, INSTRUCTION_KINDS, brief_checklist
from batch.judging.checklist.sources import build_checklist, exports_checklist, source_checklist

__all__ = [
    "COVERED_KINDS",
    "INSTRUCTION_KINDS",
    "CERTAIN_GAP",
    "MISSING_CUE",
    "TELLS_INSIDE",
    "asks_readers",
    "brief_checklist",
    "build_checklist",
    "clauses",
    "covered",
    "exports_checklist",
    "joined_clauses",
    "unsigned_for_certain",
    "signed_by",
    "source_checklist",
    "tells_gap",
]
