"""Worksheets as keyed tables: a CSV file, a worksheet of an XLSX file, a Google worksheet.

Each backend reads all rows once and writes changed rows plus appended ones in one go;
`upsert_rows` does the keying, so the run log and the review sheet share one mechanism.
Text a spreadsheet program would take for a formula (=, +, -, @, tab, CR) stays text in
every backend.

Cells keep their type where the format has one: numbers stay numbers (a CSV file has
none, so a row read back from CSV is all text; keys compare as text for that reason).
An XLSX worksheet is also laid out for a person: bold, frozen header row with a filter,
column widths fitted to the content, long and multi-line text wrapped, and the
stop_reason (or status) column coloured by its value.
"""

from __future__ import annotations

import csv
import io
import math
import re
import zipfile
from collections.abc import Callable, Collection, Mapping, Sequence
from contextlib import AbstractContextManager
from datetime import UTC, datetime, tzinfo
from pathlib import Path
from typing import Any, Protocol

from openpyxl.styles import Alignment, Font, PatternFill
from openpyxl.utils import get_column_letter
from openpyxl.utils.exceptions import InvalidFileException

from batch.draft_cleanup import encodable
from batch.errors import SinkError
from batch.files import atomic_replace
from batch.inputs.workbooks import (
    SHEET_ROWS,
    SheetTooLarge,
    cells_present,
    check_extent,
    last_row_with_value,
    read_sheet,
)
from batch.store.locks import file_lock

FORMULA_PREFIXES = ("=", "+", "-", "@", "\t", "\r")
XLSX_CELL_LIMIT = 32_000  # Excel's own limit is 32,767 characters per cell
TRUNCATION_MARKER = " …[cut: the full text is in the run log database]"

# Everything outside XML 1.0's Char production: #x9 | #xA | #xD | [#x20-#xD7FF] |
# [#xE000-#xFFFD] | [#x10000-#x10FFFF]. openpyxl's own ILLEGAL_CHARACTERS_RE misses
# U+FFFE, U+FFFF and surrogates: it then writes a workbook no XML parser (openpyxl's
# included) can load again.
XML_ILLEGAL_RE = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")

XLSX_MAX_WIDTH = 60  # characters; longer text wraps
XLSX_MIN_WIDTH = 8
HEADER_FONT = Font(bold=True)
LINK_FONT = Font(color="0563C1", underline="single")  # as spreadsheet programs show links
TOP = Alignment(vertical="top")
WRAPPED = Alignment(wrap_text=True, vertical="top")
COLOURED_COLUMNS = ("stop_reason", "status")  # the first of these a worksheet has


def _fill(rgb: str) -> PatternFill:
    return PatternFill(fill_type="solid", start_color=rgb, end_color=rgb)


GREEN, AMBER, ORANGE, RED, GREY = (
    _fill(c) for c in ("C6EFCE", "FFEB9C", "F8CBAD", "FFC7CE", "E7E6E6")
)
# Stop reasons and run statuses (batch.outcomes) and review-row
# statuses (batch.review.sheet).
VALUE_FILLS = {
    "approved": GREEN,
    "approved_by_human": GREEN,
    "done": GREEN,
    "awaiting_human": AMBER,
    "open": AMBER,
    "max_rounds": ORANGE,
    "no_progress": ORANGE,
    "budget": ORANGE,
    "held": ORANGE,
    "stopped": AMBER,
    "error": RED,
    "failed": RED,
    "rejected_by_human": RED,
    "skipped": GREY,
}
NO_FILL = PatternFill(fill_type=None)

Row = list[Any]


class Table(Protocol):
    name: str  # identifies the table, e.g. in the outbox: another file is another table

    def lock(self) -> AbstractContextManager[Any]:
        """Held around a read-modify-write of the table."""

    def read(self) -> list[Row]:
        """Every row, the header first; [] when the table does not exist yet."""

    def write(
        self, header: list[str], updates: dict[int, Row], appends: list[Row], rewrite_header: bool
    ) -> None:
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
    """Text every XML 1.0 parser accepts: anything else (a stray ESC from a model, U+FFFE,
    a lone surrogate) becomes U+FFFD. For XLSX, and for Google, whose API takes no lone
    surrogate and whose own exports are XML."""
    return XML_ILLEGAL_RE.sub("\ufffd", value) if isinstance(value, str) else value


def utf8_safe(value: Any) -> Any:
    """Text UTF-8 can encode (for CSV): only lone surrogates are replaced, by U+FFFD."""
    return encodable(value) if isinstance(value, str) else value


def cut(value: Any, limit: int) -> Any:
    if isinstance(value, str) and len(value) > limit:
        return value[: limit - len(TRUNCATION_MARKER)] + TRUNCATION_MARKER
    return value


def key_text(value: Any) -> str:
    """A key cell as text, the same whatever type it comes back as: CSV and Google's
    formatted values give '3' and '28.6', XLSX gives 3 and 28.6, and a float written as
    100.0 comes back from XLSX as the int 100."""
    if value is None:
        return ""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def text_key(row: Sequence[Any], columns: Sequence[int]) -> tuple[str, ...]:
    return tuple("" if i >= len(row) else key_text(row[i]) for i in columns)


def upsert_rows(
    table: Table,
    header: list[str],
    rows: list[Row],
    key: Callable[[Sequence[Any]], tuple[str, ...]],
    existing: list[Row] | None = None,
    only_new: bool = False,
) -> tuple[int, int]:
    """Update the rows whose key exists (unless `only_new`), append the others; returns
    (updated, appended). Pass `existing` when the table was just read (appends never
    move existing rows, so its row numbers stay right).

    A table whose header names the columns in another order (written by an older
    version) is laid out again by name, every row; a column of its own that `header`
    lacks (a person's notes, say) is kept, after ours."""
    with table.lock():
        existing = table.read() if existing is None else existing
        header_ok = bool(existing) and [str(c) for c in existing[0][: len(header)]] == header
        written, relaid = header, False
        if existing and not header_ok and _names_ours(existing[0], header):
            written, existing = _relaid(existing, header)
            relaid = True
        index: dict[tuple[str, ...], list[int]] = {}
        for n, r in enumerate(existing[1:], start=2):
            if any(c not in (None, "") for c in r):
                # a key found twice (e.g. an append that was retried) updates every copy
                index.setdefault(key(r), []).append(n)
        updates: dict[int, Row] = (
            {n: r for n, r in enumerate(existing[1:], start=2)} if relaid else {}
        )
        new: dict[tuple[str, ...], Row] = {}
        updated: set[int] = set()
        for row in rows:
            k = key(row)
            if k in index:
                if not only_new:
                    for n in index[k]:
                        # a re-laid row keeps its own columns past ours
                        updates[n] = row + (updates[n][len(row) :] if n in updates else [])
                        updated.add(n)
            else:
                new[k] = row  # the same key twice in one write: the later row wins
        if updates or new or not header_ok:
            table.write(written, updates, list(new.values()), rewrite_header=not header_ok)
        return len(updated), len(new)


def _names_ours(old_header: Row, header: list[str]) -> bool:
    """Whether a table's header is ours in another order (or with columns added or
    dropped): most of its named columns are ours."""
    names = [str(c) for c in old_header if c not in (None, "")]
    return bool(names) and sum(n in header for n in names) * 2 > len(names)


def _relaid(existing: list[Row], header: list[str]) -> tuple[list[str], list[Row]]:
    """(the header to write, every row in its order): `header`, then the old header's
    columns it lacks; cells past the old width written empty."""
    old = ["" if c is None else str(c) for c in existing[0]]
    written = header + [n for n in old if n and n not in header]
    where = {name: i for i, name in enumerate(old) if name}
    width = max(len(old), len(written))
    rows = []
    for r in existing[1:]:
        laid = [r[where[n]] if n in where and where[n] < len(r) else None for n in written]
        rows.append(laid + [None] * (width - len(laid)))
    return written, [written + [None] * (width - len(written)), *rows]


class FileTable:
    """What CSV and XLSX tables share: a file, and a lock so that two processes (a batch
    and a reviewer, say) never write it at the same time and lose each other's rows."""

    path: Path

    def lock(self):
        return file_lock(
            self.path.with_name(f".{self.path.name}.lock"), wait=60.0, what=str(self.path)
        )


class CsvTable(FileTable):
    def __init__(self, path: Path):
        self.path = path
        self.name = f"csv:{path}"

    def read(self) -> list[Row]:
        if not self.path.exists():
            return []
        try:
            # utf-8-sig: with or without the BOM this class writes (files from before)
            with self.path.open(newline="", encoding="utf-8-sig") as f:
                return [[csv_unescape(v) for v in r] for r in csv.reader(f)]
        except (UnicodeDecodeError, csv.Error) as e:
            raise SinkError(f"{self.path} cannot be read as CSV ({e}); move it away") from None

    def write(
        self, header: list[str], updates: dict[int, Row], appends: list[Row], rewrite_header: bool
    ) -> None:
        rows = self.read() or [header]
        if rewrite_header:
            rows[0] = header
        for number, row in updates.items():
            rows[number - 1] = row
        rows.extend(appends)
        buf = io.StringIO()
        writer = csv.writer(buf)
        for n, row in enumerate(rows):
            row = [utf8_safe(v) for v in row]  # a lone surrogate would fail the encoding
            writer.writerow(row if n == 0 else [csv_safe(v) for v in row])

        # a BOM first: Excel reads a CSV without one in the machine's code page ("→" as
        # "â†'"); every CSV reader of UTF-8 skips it
        def write(tmp: str) -> None:
            Path(tmp).write_text(buf.getvalue(), encoding="utf-8-sig", newline="")

        atomic_replace(self.path, write)


def local_naive(text: str, zone: tzinfo | None = None) -> tuple[datetime, str] | None:
    """An ISO-8601 time as a naive datetime in `zone` (this machine's when None), and
    that zone's name at that moment ("CET", "CEST", "UTC"): XLSX cells hold no time zone,
    so the cell's format names it. A time without a zone is taken as UTC (the run log
    writes UTC). None when the text is no time."""
    try:
        moment = datetime.fromisoformat(text.strip())
    except ValueError:
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    local = moment.astimezone(zone)
    return local.replace(tzinfo=None), local.tzname() or "UTC"


def time_format(zone_name: str) -> str:
    """The number format of a time cell in the zone named `zone_name`."""
    return f'yyyy-mm-dd hh:mm "{zone_name.replace(chr(34), "")}"'


def xlsx_value(value: Any, is_time: bool, zone: tzinfo | None = None) -> Any:
    """A cell value as XLSX should hold it: None for empty (an empty cell, not a text
    cell holding ""), a (datetime, zone name) for a time, a number as a number, text
    XML-safe."""
    if value is None or value == "":
        return None
    if is_time and isinstance(value, str):
        moment = local_naive(value, zone)
        if moment is not None:
            return moment
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)  # Excel has no inf or nan
    return xml_safe(cut(value, XLSX_CELL_LIMIT))


def display_width(value: Any) -> int:
    """About how many characters wide a cell shows its value."""
    if value is None:
        return 0
    if isinstance(value, datetime):
        return len("2026-01-31 23:59 CEST")
    if isinstance(value, int | float):
        return min(len(str(value)), 12)  # "General" shows about 11 digits
    return max((len(line) for line in str(value).splitlines()), default=0)


# what openpyxl raises for a file it cannot read as a workbook
_UNREADABLE = (
    zipfile.BadZipFile,
    InvalidFileException,
    KeyError,
    OSError,
    SyntaxError,
    ValueError,
    TypeError,
)


def _unreadable(path: Path, e: Exception) -> SinkError:
    """Why the workbook at `path` cannot be read, for the person running the batch."""
    if isinstance(e, SheetTooLarge):
        return SinkError(f"{path}: {e}")
    if isinstance(e, zipfile.BadZipFile | InvalidFileException | KeyError | OSError):
        return SinkError(
            f"{path} cannot be opened as a workbook ({e.__class__.__name__}: {e}); "
            f"close it if it is open elsewhere, or move it away"
        )
    # A zip whose XML is broken: xml.etree's ParseError (a SyntaxError, as is lxml's
    # XMLSyntaxError when openpyxl parses with lxml), or ValueError/TypeError from content
    # openpyxl cannot convert (text in a number cell, say). Every later write would fail
    # the same way: say so instead of a traceback.
    first_line = (str(e).splitlines() or [""])[0]
    return SinkError(
        f"{path} cannot be read: its XML is broken ({e.__class__.__name__}: "
        f"{first_line}); move it away (the run log database keeps every row)"
    )


class XlsxTable(FileTable):
    def __init__(
        self,
        path: Path,
        worksheet: str,
        time_columns: Collection[str] = (),
        *,
        zone: tzinfo | None = None,
        links: Mapping[str, Callable[[Mapping[str, Any]], str | None]] | None = None,
        folded: Collection[str] = (),
    ):
        self.path = path
        self.worksheet = worksheet
        self.name = f"xlsx:{path}#{worksheet}"
        # Columns holding ISO-8601 times: written as date-time cells in `zone` (this
        # machine's time zone when None), the zone named in each cell's format.
        self.time_columns = frozenset(time_columns)
        self.zone = zone
        # column -> the address a cell of it links to, from its row by column name (None:
        # no link)
        self.links = dict(links or {})
        # columns folded away in a collapsed group when the header is (re)written
        self.folded = frozenset(folded)

    def _load(self):
        from openpyxl import Workbook, load_workbook

        if not self.path.exists():
            wb = Workbook()
            wb.remove(wb.active)
            return wb
        try:
            return load_workbook(self.path)
        except _UNREADABLE as e:
            raise _unreadable(self.path, e) from None

    def read(self) -> list[Row]:
        if not self.path.exists():
            return []
        try:
            rows = read_sheet(self.path, self.worksheet, formulas=True, max_rows=SHEET_ROWS)
        except KeyError:
            return []  # the sheet is made at the first write
        except _UNREADABLE as e:
            raise _unreadable(self.path, e) from None
        # every row as wide as the widest, as a sheet's range reads
        width = max(map(len, rows), default=0)
        return [r + [None] * (width - len(r)) for r in rows]

    def write(
        self, header: list[str], updates: dict[int, Row], appends: list[Row], rewrite_header: bool
    ) -> None:
        wb = self._load()
        if self.worksheet in wb.sheetnames:
            ws = wb[self.worksheet]
            try:
                check_extent(ws, SHEET_ROWS)
            except SheetTooLarge as e:
                raise SinkError(f"{self.path}: {e}") from None
        else:
            ws = wb.create_sheet(self.worksheet)
        if rewrite_header:
            for col, name in enumerate(header, start=1):
                ws.cell(row=1, column=col).value = xml_safe(name)
        times = {i for i, name in enumerate(header) if name in self.time_columns}
        links = {i: self.links[name] for i, name in enumerate(header) if name in self.links}
        targets = list(updates.items())
        first_new = max(last_row_with_value(ws), 1) + 1
        targets += [(first_new + i, row) for i, row in enumerate(appends)]
        for number, row in targets:
            by_name = dict(zip(header, row, strict=False))
            for i, value in enumerate(row):
                cell = ws.cell(row=number, column=i + 1)
                # Assigned, not passed to ws.cell(): ws.cell(value=None) would keep the old
                # value of a cell that is now empty.
                shown = xlsx_value(value, i in times, self.zone)
                cell.value, zone_name = shown if isinstance(shown, tuple) else (shown, "")
                if is_formula_like(cell.value):
                    # A string cell with Excel's "quote prefix": shown as text, never
                    # evaluated, and it stays text when someone edits the cell.
                    cell.data_type = "s"
                    cell.quotePrefix = True
                elif cell.quotePrefix:
                    cell.quotePrefix = False  # the cell held formula-like text before
                if isinstance(cell.value, datetime):
                    cell.number_format = time_format(zone_name)
                if i in links:
                    target = links[i](by_name) if value not in (None, "") else None
                    cell.hyperlink = target  # None takes an old link away
                    cell.font = LINK_FONT if target else Font()
                long = isinstance(cell.value, str) and (
                    "\n" in cell.value or len(cell.value) > XLSX_MAX_WIDTH
                )
                cell.alignment = WRAPPED if long else TOP
        lay_out(ws, header)
        if rewrite_header:
            fold(ws, header, self.folded)
        atomic_replace(self.path, wb.save)


def lay_out(ws: Any, header: list[str]) -> None:
    """Bold header row, frozen, with a filter over the used range; the stop_reason (or
    status) column coloured by value, every row (so rows written before, or edited by a
    person, follow too); columns as wide as their content (up to XLSX_MAX_WIDTH). Widths
    only grow: a column a person widened stays wide."""
    width = max(len(header), ws.max_column)
    for cell in ws[1][: len(header)]:
        cell.font = HEADER_FONT
    coloured = next((header.index(c) + 1 for c in COLOURED_COLUMNS if c in header), None)
    # only the cells the sheet holds: walking its range would make every empty one
    cells = cells_present(ws)
    if coloured is not None:
        for cell in cells:
            if cell.column == coloured and cell.row >= 2:
                key = str(cell.value or "").strip().lower().replace(" ", "_")
                cell.fill = VALUE_FILLS.get(key, NO_FILL)
    if ws.freeze_panes is None:  # a person's own choice stays
        ws.freeze_panes = "A2"
    ws.auto_filter.ref = f"A1:{get_column_letter(width)}{max(last_row_with_value(ws), 1)}"
    needed = [0] * width
    for cell in cells:
        if cell.column <= width:
            # room for the header's filter button
            chars = display_width(cell.value) + (4 if cell.row == 1 else 2)
            needed[cell.column - 1] = max(needed[cell.column - 1], chars)
    split_column_groups(ws, width)
    for i, chars in enumerate(needed, start=1):
        letter = get_column_letter(i)
        fitted = min(XLSX_MAX_WIDTH, max(XLSX_MIN_WIDTH, chars))
        known = ws.column_dimensions[letter].width if letter in ws.column_dimensions else 0
        ws.column_dimensions[letter].width = max(fitted, known or 0)


def fold(ws: Any, header: list[str], folded: Collection[str]) -> None:
    """The `folded` columns in a collapsed outline group (a "+" above them shows them).
    Done when the header is written, so a person who unfolds them later keeps them open."""
    for i, name in enumerate(header, start=1):
        dim = ws.column_dimensions[get_column_letter(i)]
        inside = name in folded
        dim.outlineLevel = 1 if inside else 0
        dim.hidden = inside
    ws.sheet_properties.outlinePr.summaryRight = False  # the "+" at the group's left


def split_column_groups(ws: Any, width: int) -> None:
    """Excel saves adjacent columns of one width as one <col min= max=> entry, which
    openpyxl keys by its first column; setting the width of a column inside such a group
    would write overlapping entries. Give every column of a group up to `width` (those
    laid out) an entry of its own; the rest of a group (often out to column 16384, a
    whole row formatted) stays one entry."""
    from copy import copy

    for dim in list(ws.column_dimensions.values()):
        if dim.min is None or dim.max is None or dim.max <= dim.min or dim.min > width:
            continue
        end = dim.max
        for index in range(dim.min + 1, min(end, width) + 1):
            twin = copy(dim)
            twin.index = get_column_letter(index)
            twin.min = twin.max = index
            ws.column_dimensions[twin.index] = twin
        if end > width:
            rest = copy(dim)
            rest.index = get_column_letter(width + 1)
            rest.min, rest.max = width + 1, end
            ws.column_dimensions[rest.index] = rest
        dim.max = dim.min
