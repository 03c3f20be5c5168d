"""The run log as spreadsheet rows: one row per run, upserted by run id into a table
(batch.sheets.tables: CSV, XLSX or Google).

Counts, scores and seconds are numbers in the record (SQLite's INTEGER and REAL columns)
and stay numbers in every cell that can hold one: a number cell, in XLSX, and a JSON
number sent RAW, to Google; `render_cell` also turns them back into numbers should they
arrive as text. Times are ISO-8601 text with a zone in the record; XLSX gets them as
date-time cells in local time, the zone named in the cell's format (TIME_FIELDS), Google
and CSV as that text. Which column is which
is declared with the column (batch.store.run_columns); a JSON column is shown in words by
its own function in JSON_CELLS, or else as JSON text.
"""

from __future__ import annotations

import json
import math
import os
import re
from collections import Counter
from collections.abc import Callable, Mapping
from datetime import tzinfo
from pathlib import Path
from typing import Any
from urllib.parse import quote

import gspread

from batch.config import GSheetLog, thread_page
from batch.judging.record import why_lines
from batch.sheets.google import GSheetTable
from batch.sheets.tables import CsvTable, Table, XlsxTable, text_key, upsert_rows
from batch.store.run_columns import NUMBER, SHEET_DETAIL, TIME, names_of
from batch.store.runlog import FIELDS, JSON_FIELDS

NUMBER_FIELDS = frozenset(names_of(NUMBER))
KEY = FIELDS.index("run_id")  # the column each row is upserted by
TIME_FIELDS = tuple(names_of(TIME))
_INT_RE = re.compile(r"[+-]?\d+")
_FLOAT_RE = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")


def as_number(value: Any) -> Any:
    """A number field's value as an int or float; text that is no number stays text, and
    so do inf and nan, which no spreadsheet or JSON number holds."""
    if isinstance(value, str):
        text = value.strip()
        if _INT_RE.fullmatch(text):
            return int(text)
        if _FLOAT_RE.fullmatch(text):
            value = float(text)
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    return value


def time_words(split: dict[str, float]) -> str:
    """A run's `time_split` in a line: "first draft 33 s, repairs 29 s, critic 81 s"."""
    return ", ".join(f"{k} {v:.0f} s" if v >= 1 else f"{k} {v:.1f} s" for k, v in split.items())


def _bullets(items: list[Any]) -> str:
    return "\n".join(f"• {item}" for item in items)


# The JSON columns shown in words, each by its own function.
JSON_CELLS: dict[str, Callable[[Any], Any]] = {
    "score_history": lambda v: " → ".join(f"{s:g}" for s in v),
    "open_must_fix": _bullets,
    "uncovered": _bullets,
    "checklist": _bullets,
    "needs_from_human": lambda v: "\n".join(
        f"{n['placeholder']} — {n.get('question', '')}".rstrip(" —") for n in v
    ),
    "deviations": lambda v: "\n".join(f"{d['point']} — {d['reason']}" for d in v),
    "models": lambda v: ", ".join(f"{role}={name}" for role, name in v.items()),
    "time_split": lambda v: time_words(v) if isinstance(v, dict) else v,
    "judgement": lambda v: "\n".join(why_lines(v)) if isinstance(v, dict) else v,
    # one entry per call: shown as calls per role and host
    "hosts": lambda v: ", ".join(f"{host} ×{n}" for host, n in Counter(v).items()),
}


def render_cell(field: str, value: Any) -> Any:
    """One record value as one readable cell (lists become lines, numbers stay numbers)."""
    if value is None:
        return ""
    if field in NUMBER_FIELDS:
        return as_number(value)
    if field in JSON_CELLS:
        return JSON_CELLS[field](value)
    if field in JSON_FIELDS and not isinstance(value, str):
        # a cell holds no list or object: a JSON column not yet shown in words is its JSON
        return json.dumps(value, ensure_ascii=False)
    return value


def row_for(record: dict[str, Any]) -> list[Any]:
    return [render_cell(f, record.get(f)) for f in FIELDS]


class RunLogSink:
    """The run log in one table, keyed by run id."""

    def __init__(self, table: Table, interval: float = 0.0):
        self.table = table
        self.name = table.name
        # During a batch, write at most this often (a remote sheet has a request quota).
        self.interval = interval

    def upsert(self, records: list[dict[str, Any]]) -> int:
        upsert_rows(
            self.table, FIELDS, [row_for(r) for r in records], key=lambda row: text_key(row, [KEY])
        )
        return len(records)


def CsvSink(path: Path) -> RunLogSink:  # noqa: N802 - reads like the class it stands for
    return RunLogSink(CsvTable(path))


def XlsxSink(  # noqa: N802 - reads like the class it stands for
    path: Path, worksheet: str = "Runs", review_url: str = "", zone: tzinfo | None = None
) -> RunLogSink:
    """The run log in a worksheet a person reads: times in local time (`zone`, else
    this machine's), the text's file linked from its path, each brief linked to its
    thread's page on the review page at `review_url` (when given), and the columns of
    cost and machinery folded away."""
    links: dict[str, Callable[[Mapping[str, Any]], str | None]] = {
        "output_path": lambda row: file_link(path.parent, row.get("output_path"))
    }
    if review_url:
        links["brief_id"] = lambda row: thread_link(review_url, row.get("thread_id"))
    return RunLogSink(
        XlsxTable(
            path, worksheet, time_columns=TIME_FIELDS, zone=zone, links=links, folded=SHEET_DETAIL
        )
    )


def file_link(folder: Path, target: Any) -> str | None:
    """A link to the file `target` relative to `folder` (the workbook's), so it still
    works when the project folder is moved or opened from another machine's share."""
    if not target:
        return None
    try:
        relative = os.path.relpath(Path(str(target)), folder)
    except ValueError:  # another drive (Windows): only the absolute path reaches it
        relative = str(target)
    return quote(Path(relative).as_posix())


def thread_link(review_url: str, thread_id: Any) -> str | None:
    return thread_page(review_url, str(thread_id)) if thread_id else None


def GSheetSink(
    settings: GSheetLog,  # noqa: N802 - reads like the class it stands for
    client: Callable[[], gspread.Client],
) -> RunLogSink:
    return RunLogSink(
        GSheetTable(settings.spreadsheet, settings.worksheet, client),
        interval=settings.sync_interval,
    )
