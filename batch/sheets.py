"""Spreadsheet views of the run log: CSV and XLSX files, upserted by run id.

The sink reads the file once, replaces the rows of the given runs (matched by run id),
appends new ones, and writes the file atomically (temp file + rename). Text that a
spreadsheet program would read as a formula (=, +, -, @, tab, CR) is stored as text.
"""

from __future__ import annotations

import csv
import io
import zipfile
from pathlib import Path
from typing import Any, Protocol

from batch.errors import SinkError
from batch.output import atomic_replace
from batch.runlog import FIELDS

FORMULA_PREFIXES = ("=", "+", "-", "@", "\t", "\r")
XLSX_CELL_LIMIT = 32_000  # Excel's own limit is 32,767 characters per cell
TRUNCATION_MARKER = " …[cut: the full text is in the run log database]"


def render_cell(field: str, value: Any) -> Any:
    """One record value as one readable cell (lists become lines)."""
    if value is None:
        return ""
    if field == "score_history":
        return " → ".join(f"{s:g}" for s in value)
    if field == "open_must_fix":
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


def is_formula_like(value: Any) -> bool:
    return isinstance(value, str) and value.startswith(FORMULA_PREFIXES)


def csv_safe(value: Any) -> Any:
    # The leading apostrophe is the convention spreadsheet programs honour for CSV.
    return "'" + value if is_formula_like(value) else value


def cut(value: Any, limit: int) -> Any:
    if isinstance(value, str) and len(value) > limit:
        return value[: limit - len(TRUNCATION_MARKER)] + TRUNCATION_MARKER
    return value


class SheetSink(Protocol):
    name: str  # identifies the sink in the outbox: another path is another sink

    def upsert(self, records: list[dict[str, Any]]) -> int:
        """Write these run records; returns how many rows were written."""


def _merge(existing: list[list[Any]], records: list[dict[str, Any]]) -> list[list[Any]]:
    """Upsert rows by run id (column 0), keeping the existing order."""
    rows = list(existing)
    index = {str(r[0]): i for i, r in enumerate(rows) if r}
    for record in records:
        row = row_for(record)
        at = index.get(record["run_id"])
        if at is None:
            index[record["run_id"]] = len(rows)
            rows.append(row)
        else:
            rows[at] = row
    return rows


class CsvSink:
    def __init__(self, path: Path):
        self.path = path
        self.name = f"csv:{path}"

    def read_rows(self) -> list[list[str]]:
        if not self.path.exists():
            return []
        with self.path.open(newline="", encoding="utf-8") as f:
            rows = list(csv.reader(f))
        return rows[1:] if rows and rows[0] == FIELDS else rows

    def upsert(self, records: list[dict[str, Any]]) -> int:
        rows = _merge(self.read_rows(), records)
        buf = io.StringIO()
        writer = csv.writer(buf)
        writer.writerow(FIELDS)
        for row in rows:
            writer.writerow([csv_safe(v) for v in row])

        def write(tmp: str) -> None:
            Path(tmp).write_text(buf.getvalue(), encoding="utf-8", newline="")

        atomic_replace(self.path, write)
        return len(records)


class XlsxSink:
    def __init__(self, path: Path, worksheet: str = "Runs"):
        self.path = path
        self.worksheet = worksheet
        self.name = f"xlsx:{path}#{worksheet}"

    def upsert(self, records: list[dict[str, Any]]) -> int:
        from openpyxl import Workbook, load_workbook
        from openpyxl.utils.exceptions import InvalidFileException

        if self.path.exists():
            try:
                wb = load_workbook(self.path)
            except (zipfile.BadZipFile, InvalidFileException, KeyError, OSError) as e:
                raise SinkError(
                    f"{self.path} cannot be opened as a workbook ({e.__class__.__name__}: "
                    f"{e}); close it if it is open elsewhere, or move it away") from None
        else:
            wb = Workbook()
            wb.remove(wb.active)
        existing: list[list[Any]] = []
        if self.worksheet in wb.sheetnames:
            ws = wb[self.worksheet]
            existing = [list(r) for r in ws.iter_rows(min_row=2, values_only=True)]
            wb.remove(ws)
        rows = _merge(existing, records)
        ws = wb.create_sheet(self.worksheet, 0)
        ws.append(FIELDS)
        for row in rows:
            ws.append([cut(v, XLSX_CELL_LIMIT) if v is not None else "" for v in row])
        for cells in ws.iter_rows(min_row=2):
            for cell in cells:
                if is_formula_like(cell.value):
                    # Stored as a string cell with Excel's "quote prefix": shown as text,
                    # never evaluated, and it stays text when someone edits the cell.
                    cell.data_type = "s"
                    cell.quotePrefix = True
        atomic_replace(self.path, wb.save)
        return len(records)
