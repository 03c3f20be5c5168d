"""Worksheets as keyed tables: a CSV file, a worksheet of an XLSX file, a Google worksheet.

Each backend reads all rows once and writes changed rows plus appended ones in one go;
`upsert_rows` does the keying, so the run log and the review sheet share one mechanism.
Text a spreadsheet program would take for a formula (=, +, -, @, tab, CR) stays text in
every backend.
"""

from __future__ import annotations

import csv
import io
import zipfile
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any, Protocol

from openpyxl.cell.cell import ILLEGAL_CHARACTERS_RE

from batch.errors import SinkError
from batch.locks import file_lock
from batch.output import atomic_replace

FORMULA_PREFIXES = ("=", "+", "-", "@", "\t", "\r")
XLSX_CELL_LIMIT = 32_000  # Excel's own limit is 32,767 characters per cell
TRUNCATION_MARKER = " …[cut: the full text is in the run log database]"

Row = list[Any]


class Table(Protocol):
    name: str  # identifies the table, e.g. in the outbox: another file is another table

    def lock(self) -> AbstractContextManager[Any]:
        """Held around a read-modify-write of the table."""

    def read(self) -> list[Row]:
        """Every row, the header first; [] when the table does not exist yet."""

    def write(self, header: list[str], updates: dict[int, Row], appends: list[Row],
              rewrite_header: bool) -> None:
        """Replace rows by 1-based row number, append rows, (re)write the header row."""


def is_formula_like(value: Any) -> bool:
    return isinstance(value, str) and value.startswith(FORMULA_PREFIXES)


def csv_safe(value: Any) -> Any:
    # The leading apostrophe is the convention spreadsheet programs honour for CSV.
    return "'" + value if is_formula_like(value) else value


def csv_unescape(value: str) -> str:
    """Undo csv_safe on read, so a value survives any number of read-write rounds."""
    return value[1:] if value.startswith("'") and is_formula_like(value[1:]) else value


def xml_safe(value: Any) -> Any:
    # Control characters (a stray ESC from a model) are illegal in XLSX's XML; openpyxl
    # refuses the whole workbook over one of them.
    return ILLEGAL_CHARACTERS_RE.sub("\ufffd", value) if isinstance(value, str) else value


def cut(value: Any, limit: int) -> Any:
    if isinstance(value, str) and len(value) > limit:
        return value[: limit - len(TRUNCATION_MARKER)] + TRUNCATION_MARKER
    return value


def text_key(row: Sequence[Any], columns: Sequence[int]) -> tuple[str, ...]:
    return tuple("" if i >= len(row) or row[i] is None else str(row[i]) for i in columns)


def upsert_rows(table: Table, header: list[str], rows: list[Row],
                key: Callable[[Sequence[Any]], tuple[str, ...]],
                existing: list[Row] | None = None, only_new: bool = False) -> tuple[int, int]:
    """Update the rows whose key exists (unless `only_new`), append the others; returns
    (updated, appended). Pass `existing` when the table was just read (appends never
    move existing rows, so its row numbers stay right)."""
    with table.lock():
        existing = table.read() if existing is None else existing
        header_ok = bool(existing) and [str(c) for c in existing[0][:len(header)]] == header
        index: dict[tuple[str, ...], list[int]] = {}
        for n, r in enumerate(existing[1:], start=2):
            if any(c not in (None, "") for c in r):
                # a key found twice (e.g. an append that was retried) updates every copy
                index.setdefault(key(r), []).append(n)
        updates: dict[int, Row] = {}
        new: dict[tuple[str, ...], Row] = {}
        for row in rows:
            k = key(row)
            if k in index:
                if not only_new:
                    updates.update({n: row for n in index[k]})
            else:
                new[k] = row  # the same key twice in one write: the later row wins
        if updates or new or not header_ok:
            table.write(header, updates, list(new.values()), rewrite_header=not header_ok)
        return len(updates), len(new)


class FileTable:
    """What CSV and XLSX tables share: a file, and a lock so that two processes (a batch
    and a reviewer, say) never write it at the same time and lose each other's rows."""

    path: Path

    def lock(self):
        return file_lock(self.path.with_name(f".{self.path.name}.lock"), wait=60.0,
                         what=str(self.path))


class CsvTable(FileTable):
    def __init__(self, path: Path):
        self.path = path
        self.name = f"csv:{path}"

    def read(self) -> list[Row]:
        if not self.path.exists():
            return []
        try:
            with self.path.open(newline="", encoding="utf-8") as f:
                return [[csv_unescape(v) for v in r] for r in csv.reader(f)]
        except (UnicodeDecodeError, csv.Error) as e:
            raise SinkError(f"{self.path} cannot be read as CSV ({e}); move it away") from None

    def write(self, header: list[str], updates: dict[int, Row], appends: list[Row],
              rewrite_header: bool) -> None:
        rows = self.read() or [header]
        if rewrite_header:
            rows[0] = header
        for number, row in updates.items():
            rows[number - 1] = row
        rows.extend(appends)
        buf = io.StringIO()
        writer = csv.writer(buf)
        for n, row in enumerate(rows):
            writer.writerow(row if n == 0 else [csv_safe(v) for v in row])
        atomic_replace(self.path, lambda tmp: Path(tmp).write_text(
            buf.getvalue(), encoding="utf-8", newline=""))


class XlsxTable(FileTable):
    def __init__(self, path: Path, worksheet: str):
        self.path = path
        self.worksheet = worksheet
        self.name = f"xlsx:{path}#{worksheet}"

    def _load(self):
        from openpyxl import Workbook, load_workbook
        from openpyxl.utils.exceptions import InvalidFileException

        if not self.path.exists():
            wb = Workbook()
            wb.remove(wb.active)
            return wb
        try:
            return load_workbook(self.path)
        except (zipfile.BadZipFile, InvalidFileException, KeyError, OSError) as e:
            raise SinkError(
                f"{self.path} cannot be opened as a workbook ({e.__class__.__name__}: {e}); "
                f"close it if it is open elsewhere, or move it away") from None

    def read(self) -> list[Row]:
        wb = self._load()
        if self.worksheet not in wb.sheetnames:
            return []
        return [list(r) for r in wb[self.worksheet].iter_rows(values_only=True)]

    def write(self, header: list[str], updates: dict[int, Row], appends: list[Row],
              rewrite_header: bool) -> None:
        wb = self._load()
        if self.worksheet in wb.sheetnames:
            ws = wb[self.worksheet]
        else:
            ws = wb.create_sheet(self.worksheet)
        if rewrite_header:
            for col, name in enumerate(header, start=1):
                ws.cell(row=1, column=col, value=name)
        targets = list(updates.items())
        first_new = max(ws.max_row, 1) + 1
        targets += [(first_new + i, row) for i, row in enumerate(appends)]
        for number, row in targets:
            for col, value in enumerate(row, start=1):
                cell = ws.cell(row=number, column=col,
                               value="" if value is None else xml_safe(cut(value,
                                                                          XLSX_CELL_LIMIT)))
                if is_formula_like(cell.value):
                    # A string cell with Excel's "quote prefix": shown as text, never
                    # evaluated, and it stays text when someone edits the cell.
                    cell.data_type = "s"
                    cell.quotePrefix = True
        atomic_replace(self.path, wb.save)
