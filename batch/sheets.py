"""The run log as spreadsheet rows: one row per run, upserted by run id into a table
(batch.tables: CSV, XLSX or Google)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from batch.runlog import FIELDS
from batch.tables import CsvTable, Table, XlsxTable, text_key, upsert_rows


def render_cell(field: str, value: Any) -> Any:
    """One record value as one readable cell (lists become lines)."""
    if value is None:
        return ""
    if field == "score_history":
        return " → ".join(f"{s:g}" for s in value)
    if field in ("open_must_fix", "uncovered", "checklist"):
        return "\n".join(f"• {item}" for item in value)
    if field == "needs_from_human":
        return "\n".join(f"{n['placeholder']} — {n.get('question', '')}".rstrip(" —")
                         for n in value)
    if field == "deviations":
        return "\n".join(f"{d['point']} — {d['reason']}" for d in value)
    if field == "models":
        return ", ".join(f"{role}={name}" for role, name in value.items())
    return value


def row_for(record: dict[str, Any]) -> list[Any]:
    return [render_cell(f, record.get(f)) for f in FIELDS]


class RunLogSink:
    """The run log in one table, keyed by run id (column 0)."""

    def __init__(self, table: Table, interval: float = 0.0):
        self.table = table
        self.name = table.name
        # During a batch, write at most this often (a remote sheet has a request quota).
        self.interval = interval

    def upsert(self, records: list[dict[str, Any]]) -> int:
        upsert_rows(self.table, FIELDS, [row_for(r) for r in records],
                    key=lambda row: text_key(row, [0]))
        return len(records)


def CsvSink(path: Path) -> RunLogSink:  # noqa: N802 - reads like the class it stands for
    return RunLogSink(CsvTable(path))


def XlsxSink(path: Path, worksheet: str = "Runs") -> RunLogSink:  # noqa: N802
    return RunLogSink(XlsxTable(path, worksheet))


SheetSink = RunLogSink
