"""What a brief asks, as a checklist code can verify a draft against (reading.py)."""

from __future__ import annotations

from batch.judging.checklist.reading import (
    COVERED_KINDS,
    INSTRUCTION_KINDS,
    MISSING_CUE,
    TELLS_INSIDE,
    asks_readers,
    brief_checklist,
    build_checklist,
    clauses,
    covered,
    exports_checklist,
    joined_clauses,
    signed_by,
    source_checklist,
    tells_gap,
)

__all__ = [
    "COVERED_KINDS",
    "INSTRUCTION_KINDS",
    "MISSING_CUE",
    "TELLS_INSIDE",
    "asks_readers",
    "brief_checklist",
    "build_checklist",
    "clauses",
    "covered",
    "exports_checklist",
    "joined_clauses",
    "signed_by",
    "source_checklist",
    "tells_gap",
]
