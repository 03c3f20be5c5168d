"""Where briefs come from: a folder, a CSV or XLSX file, or a Google Sheet.

    briefloop run examples/briefs               a folder (see batch.inputs.briefs)
    briefloop run briefs.csv                    one brief per row
    briefloop run briefs.xlsx                   the first worksheet
    briefloop run 'briefs.xlsx#Worksheet'       a named worksheet
    briefloop run gsheet://<key>/<worksheet>    a Google Sheet (worksheet optional)

A sheet has a header row. Columns, matched case-insensitively: `id` and `brief`
(required), `title`, `rubric`, `house_rules`, `min_words`, `max_words`, `source_file`.
Every value is read as text ("007" stays "007"). A bad row becomes a BadBrief naming
the row; the other rows still run.
"""

from __future__ import annotations

import csv
import os
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from batch.errors import BriefloopError, SourceError, one_line
from batch.inputs.briefs import (
    CONTROL_CHARS,
    MAX_WORDS,
    BadBrief,
    Brief,
    brief_from_fields,
    is_brief_file,
    read_text_file,
    scan_file,
    scan_folder,
)
from batch.inputs.workbooks import SheetTooLarge, read_sheet
from batch.source_files import is_source, suffix_of

REQUIRED_COLUMNS = ("id", "brief")
OPTIONAL_COLUMNS = ("title", "rubric", "house_rules", "min_words", "max_words", "source_file")
GSHEET_PREFIX = "gsheet://"


@dataclass
class SourceScan:
    briefs: list[Brief | BadBrief]
    skipped: list[str] = field(default_factory=list)  # files that are not briefs at all
    warnings: list[str] = field(default_factory=list)


def cell_text(value: Any) -> str:
    """A cell as text; whole-number floats (how XLSX stores 7) lose their '.0'."""
    if value is None:
        return ""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value).strip()


def _int_or_none(value: str, column: str) -> int | None:
    if not value:
        return None
    try:
        number = int(value)
    except ValueError:
        raise ValueError(f"{column} must be a whole number, got {value!r}") from None
    if not 1 <= number <= MAX_WORDS:
        raise ValueError(f"{column} must be from 1 to {MAX_WORDS:,}, got {value:.20}")
    return number


_UNDECODED = re.compile("[\udc80-\udcff]")  # what surrogateescape makes of a bad byte


def briefs_from_rows(
    rows: Sequence[Sequence[Any]],
    origin: str,
    base_dir: Path | None,
    max_bytes: int,
) -> SourceScan:
    """Header + rows to briefs. `base_dir` resolves relative `source_file` paths."""
    if not rows:
        raise BriefloopError(f"{origin}: the sheet is empty (it needs a header row)")
    header = [_UNDECODED.sub("\ufffd", cell_text(h)).lower() for h in rows[0]]
    missing = [c for c in REQUIRED_COLUMNS if c not in header]
    if missing:
        raise BriefloopError(
            f"{origin}: missing required column(s) {', '.join(missing)} in the header row "
            f"(found: {', '.join(h for h in header if h) or 'nothing'})"
        )
    scan = SourceScan(briefs=[])
    known = set(REQUIRED_COLUMNS) | set(OPTIONAL_COLUMNS)
    unknown = [h for h in header if h and h not in known]
    if unknown:
        scan.warnings.append(f"{origin}: ignoring unknown column(s): {', '.join(unknown)}")
    col = {name: header.index(name) for name in known if name in header}
    seen: dict[str, int] = {}
    for number, row in enumerate(rows[1:], start=2):
        values = {name: cell_text(row[i]) if i < len(row) else "" for name, i in col.items()}
        if not any(values.values()):
            continue  # blank rows are common at the end of sheets
        where = f"{origin} row {number}"
        undecoded = [name for name, value in values.items() if _UNDECODED.search(value)]
        if undecoded:
            scan.briefs.append(
                BadBrief(
                    id=f"row-{number}",
                    origin=where,
                    reason=f"not UTF-8 text in column {undecoded[0]!r} (a byte that is no "
                    f"character): save the sheet as UTF-8",
                )
            )
            continue
        brief_id = values.get("id", "")
        if not brief_id or CONTROL_CHARS.search(brief_id):
            problem = (
                "id is empty"
                if not brief_id
                else f"id {brief_id!r:.60} has a line break or another control character"
            )
            scan.briefs.append(BadBrief(id=f"row-{number}", origin=where, reason=problem))
            continue
        if brief_id in seen:
            scan.briefs.append(
                BadBrief(
                    id=brief_id,
                    origin=where,
                    reason=f"duplicate id {brief_id!r} (also on row {seen[brief_id]})",
                )
            )
            continue
        seen[brief_id] = number
        try:
            scan.briefs.append(_row_brief(values, where, base_dir, max_bytes))
        except ValueError as e:
            scan.briefs.append(BadBrief(id=brief_id, origin=where, reason=str(e)))
    return scan


def _row_brief(values: dict[str, str], where: str, base_dir: Path | None, max_bytes: int) -> Brief:
    text = values.get("brief", "")
    if not text:
        raise ValueError("the brief column is empty")
    if len(text.encode("utf-8")) > max_bytes:
        raise ValueError(f"too large: the brief is over loop.max_brief_bytes = {max_bytes}")
    brief = brief_from_fields(
        id=values["id"],
        text=text,
        origin=where,
        title=values.get("title", ""),
        rubric=values.get("rubric") or None,
        house_rules=values.get("house_rules") or None,
        min_words=_int_or_none(values.get("min_words", ""), "min_words"),
        max_words=_int_or_none(values.get("max_words", ""), "max_words"),
    )
    source_file = values.get("source_file", "")
    if not source_file:
        return brief
    # Whoever can edit the sheet must not be able to send any file of this machine to a
    # model: only files inside the sheet's own folder, and none from a remote sheet.
    if base_dir is None:
        raise ValueError(
            "source_file is not allowed in a Google Sheet (the sheet cannot "
            "name files on this machine); use a local CSV or XLSX"
        )
    path = Path(source_file)
    root = base_dir.resolve()
    if path.is_absolute() or source_file.startswith("~"):
        raise ValueError(f"source_file {source_file!r} must be relative to the sheet's folder")
    path = (root / path).resolve()
    if root not in path.parents:
        raise ValueError(f"source_file {source_file!r} is outside the sheet's folder")
    if not is_source(path):
        raise ValueError(f"source_file {source_file!r} is not a source file we document")
    code = read_text_file(path, max_bytes)
    return Brief(
        **{
            **brief.__dict__,
            "kind": "source",
            "source_text": code,
            "source_path": str(path),
            "title": brief.title or f"API documentation for {path.name}",
        }
    )


def read_csv_rows(path: Path) -> list[list[str]]:
    """The rows of a CSV file. A cell may be as long as the file: csv's own limit
    (131,072 characters) would refuse the whole sheet for one long brief, which is
    that row's to refuse (loop.max_brief_bytes)."""
    try:
        # a byte that is no UTF-8 is kept as a lone surrogate in its cell: that row is
        # refused (briefs_from_rows), not the whole sheet
        with path.open(newline="", encoding="utf-8-sig", errors="surrogateescape") as f:
            limit = max(csv.field_size_limit(), os.fstat(f.fileno()).st_size + 1)
            csv.field_size_limit(limit)
            return [list(r) for r in csv.reader(f)]
    except (OSError, csv.Error) as e:
        raise BriefloopError(f"{path}: cannot read: {e}") from None


def read_xlsx_rows(path: Path, worksheet: str | None) -> list[list[Any]]:
    try:
        return read_sheet(path, worksheet)
    except KeyError as e:
        raise BriefloopError(f"{path}: no worksheet {worksheet!r} (it has: {e.args[0]})") from None
    except SheetTooLarge as e:
        raise BriefloopError(f"{path}: {e}") from None
    except Exception as e:  # noqa: BLE001 - not a zip, broken XML, a bad cell: the file's error
        raise BriefloopError(f"{path}: cannot read as a workbook: {one_line(e)}") from None


def parse_gsheet(spec: str) -> tuple[str, str | None]:
    rest = spec[len(GSHEET_PREFIX) :].strip("/")
    key, _, worksheet = rest.partition("/")
    if not key:
        raise BriefloopError(f"{spec}: expected gsheet://<spreadsheet-key>/<worksheet>")
    return key, worksheet or None


def scan_source(
    spec: str,
    max_bytes: int,
    read_gsheet: Callable[[str, str | None], list[list[Any]]] | None = None,
) -> SourceScan:
    """Every brief of a source spec (see the module docstring)."""
    if spec.startswith(GSHEET_PREFIX):
        if read_gsheet is None:
            raise BriefloopError("reading Google Sheets is not set up")
        key, worksheet = parse_gsheet(spec)
        return briefs_from_rows(read_gsheet(key, worksheet), spec, None, max_bytes)
    path, worksheet = check_source(spec)
    if path.is_dir():
        folder = scan_folder(path, max_bytes)
        return SourceScan(briefs=folder.briefs, skipped=folder.skipped)
    suffix = suffix_of(path)
    if suffix == ".csv":
        return briefs_from_rows(read_csv_rows(path), str(path), path.parent, max_bytes)
    if suffix in (".xlsx", ".xlsm"):
        rows = read_xlsx_rows(path, worksheet or None)
        return briefs_from_rows(rows, spec, path.parent, max_bytes)
    # one brief file: a batch of one
    return SourceScan(briefs=[scan_file(path, path.parent.resolve(), max_bytes)])


def check_source(spec: str) -> tuple[Path, str]:
    """A local source's path (and worksheet), or a SourceError saying why it is none:
    before any batch is recorded, a usage mistake is one line and nothing else. A
    gsheet:// source is checked by reading it."""
    if spec.startswith(GSHEET_PREFIX):
        return Path(), ""
    path_part, _, worksheet = spec.partition("#") if ".xlsx#" in spec.lower() else (spec, "", "")
    path = Path(path_part)
    if path.is_dir():
        return path, worksheet
    if not path.exists():
        raise SourceError(f"{path}: no such folder or file")
    if not path.is_file():  # a fifo would block the batch before it starts
        raise SourceError(f"{path}: not a regular file")
    if suffix_of(path) in (".csv", ".xlsx", ".xlsm") or is_brief_file(path):
        return path, worksheet
    raise SourceError(
        f"{path}: a source is a folder of briefs, one brief file (.md, "
        f".txt, a source file), a .csv or .xlsx sheet, or gsheet://..."
    )
