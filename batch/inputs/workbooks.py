"""A workbook's rows, read by the cells it holds and never by the range it declares.

A sheet's `<dimension>` tag, or one stray cell at XFD1048576, says the sheet is a
million rows by sixteen thousand columns. openpyxl fills every row of such a range up
to its last column, and every gap between two rows with empty ones: a 5 KB file then
takes gigabytes. Here rows are read as they are stored, only up to their last cell with
a value, gaps cost nothing, and a value beyond the limits below is refused with the
sheet named: nobody keeps briefs or a run log that far out, and a person who put one
there by mistake is shown where it is.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from openpyxl.utils import get_column_letter

# Rows and columns a sheet may use: far more than a night of briefs or years of run
# log rows, far less than memory would hold as openpyxl cells.
MAX_ROWS = 100_000
MAX_COLUMNS = 256
# the run log's own workbook grows a row a run: Excel's own limit, so years of runs fit
# (its memory grows with its cells, never with a declared range)
SHEET_ROWS = 1_048_576


class SheetTooLarge(ValueError):
    """A cell with a value beyond MAX_ROWS or MAX_COLUMNS (the message names it)."""


def _empty(value: Any) -> bool:
    return value is None or value == ""


def beyond_limits(sheet: str, row: int, column: int, max_rows: int = MAX_ROWS) -> SheetTooLarge:
    return SheetTooLarge(
        f"worksheet {sheet!r} has a cell at {get_column_letter(min(column, 16384))}{row}, "
        f"beyond the {max_rows:,} rows and {MAX_COLUMNS} columns a sheet may use: clear "
        f"it (or the rows and columns out to it) and save the sheet again"
    )


def bounded_rows(
    sheet: str, rows: Iterable[tuple[Any, ...]], max_rows: int = MAX_ROWS
) -> list[list[Any]]:
    """`rows` (each row of the sheet in order, from row 1) cut after their last value,
    and the empty rows at the end dropped. An empty row inside is kept as [] so row
    numbers stay the sheet's; a value past the limits raises SheetTooLarge."""
    out: list[list[Any]] = []
    gap = 0
    for number, row in enumerate(rows, start=1):
        last = next((i for i in range(len(row) - 1, -1, -1) if not _empty(row[i])), -1)
        if last < 0:
            gap += 1
            continue
        if number > max_rows or last >= MAX_COLUMNS:
            raise beyond_limits(sheet, number, last + 1, max_rows)
        out.extend([] for _ in range(gap))
        gap = 0
        out.append(list(row[: last + 1]))
    return out


def read_sheet(
    path: Path, worksheet: str | None, formulas: bool = False, max_rows: int = MAX_ROWS
) -> list[list[Any]]:
    """The rows of `worksheet` (the first one when None) of the workbook at `path`,
    bounded as above: a formula cell as its last computed value, or with `formulas` as
    the formula (a workbook read to be written back keeps them). Raises KeyError for a
    worksheet the book does not have (with its names), SheetTooLarge, and openpyxl's own
    errors for a file that is no workbook."""
    from openpyxl import load_workbook

    # read-only: the sheet's XML is parsed as the rows are asked for, one at a time
    wb = load_workbook(path, read_only=True, data_only=not formulas)
    try:
        if worksheet is None:
            ws = wb.worksheets[0]
        elif worksheet in wb.sheetnames:
            ws = wb[worksheet]
        else:
            raise KeyError(", ".join(wb.sheetnames))
        # without the declared size, a row is as long as its own last cell and a gap
        # between rows is one shared empty tuple a row
        ws.reset_dimensions()
        return bounded_rows(ws.title, ws.iter_rows(values_only=True), max_rows)
    finally:
        wb.close()


def check_extent(ws: Any, max_rows: int = MAX_ROWS) -> None:
    """A fully loaded worksheet (openpyxl keeps only the cells its file holds) with a
    value past the limits raises SheetTooLarge: laid out, filtered and widened, the
    range up to such a cell would be made cell by cell. Formatting alone is no value."""
    if ws.max_row <= max_rows and ws.max_column <= MAX_COLUMNS:
        return
    for cell in cells_present(ws):
        if not _empty(cell.value) and (cell.row > max_rows or cell.column > MAX_COLUMNS):
            raise beyond_limits(ws.title, cell.row, cell.column, max_rows)


def cells_present(ws: Any) -> Iterable[Any]:
    """The cells a fully loaded worksheet holds, without making the empty ones between
    them (openpyxl's iter_rows makes every cell of the range it walks). openpyxl's own
    writer walks the same private map."""
    return list(ws._cells.values())


def last_row_with_value(ws: Any) -> int:
    """The number of the last row of a fully loaded worksheet with a value (0: none)."""
    return max((c.row for c in cells_present(ws) if not _empty(c.value)), default=0)
