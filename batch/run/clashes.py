"""Two sources with the same brief id: a clash. Both name `output/<id>.md`, so one would
write over the other's text. While both places still hold a brief of that id, neither
runs: each is recorded as an error naming the other, and nothing is written. A brief
that moved (its old file gone, its old row deleted) is no clash."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from batch.errors import BriefloopError
from batch.inputs.briefs import Brief
from batch.inputs.sources import GSHEET_PREFIX, scan_source

_ROW = re.compile(r" row \d+$")


def place_of(origin: str) -> str:
    """The source a brief's origin names: a sheet for one of its rows ("briefs.csv row
    7" -> "briefs.csv"), else the origin itself (a brief's file)."""
    return _ROW.sub("", origin)


def _file_of(place: str) -> str:
    """A local place's file: a workbook's worksheet (`briefs.xlsx#Autumn`) cut off, a
    `#` elsewhere in a path kept (as batch.inputs.sources.check_source reads it)."""
    found = re.search(r"(?i)\.xls[xm]#", place)
    return place[: found.end() - 1] if found else place


def _sheet_key(place: str) -> str:
    """A Google sheet by its spreadsheet key: `gsheet://KEY` and `gsheet://KEY/Sheet1`
    may be the same worksheet, so any two spellings of one spreadsheet are one place."""
    return place[len(GSHEET_PREFIX) :].strip("/").split("/", 1)[0]


def _local(place: str) -> Path:
    """A local place's file, without a worksheet, resolved when it can be."""
    path = Path(_file_of(place))
    try:
        return path.resolve()
    except OSError:
        return path


def _same_place(recorded: str, current: str, project: Path) -> bool:
    """Whether a place recorded in the run log is the current place: the same Google
    sheet, the same file, or the same path under another project folder (a project
    copied or moved: its run log came with it, naming the folder it was in, which may
    be gone or still be there)."""
    if recorded.startswith(GSHEET_PREFIX) or current.startswith(GSHEET_PREFIX):
        both = recorded.startswith(GSHEET_PREFIX) and current.startswith(GSHEET_PREFIX)
        return both and _sheet_key(recorded) == _sheet_key(current)
    was, now = _local(recorded), _local(current)
    if was == now:
        return True
    if was.exists() and now.exists() and was.samefile(now):
        return True  # one file named in two spellings (a case-insensitive disk)
    try:
        inside = now.relative_to(project.resolve()).parts
    except (ValueError, OSError):
        return False
    return bool(inside) and was.parts[-len(inside) :] == inside


def _still_holds(
    place: str,
    brief_id: str,
    max_bytes: int,
    read_gsheet: Callable[[str, str | None], list[list[Any]]] | None,
) -> bool:
    """Whether the source at `place` is seen to still have a brief of `brief_id`. A
    place gone, or one that cannot be read now (a Google sheet renamed, its access taken
    away), is not: a clash is refused only where it is certain."""
    if not place.startswith(GSHEET_PREFIX) and not Path(_file_of(place)).exists():
        return False
    try:
        scan = scan_source(place, max_bytes, read_gsheet)
    except BriefloopError:
        return False
    return any(b.id == brief_id for b in scan.briefs if isinstance(b, Brief))


def clash_of(
    brief: Brief,
    origins: Iterable[str],
    project: Path,
    max_bytes: int,
    read_gsheet: Callable[[str, str | None], list[list[Any]]] | None = None,
) -> str | None:
    """Another place among `origins` (where runs of the brief's id came from) that still
    holds a brief of its id, or None. `project`: the project's folder."""
    mine = place_of(brief.origin)
    for place in dict.fromkeys(place_of(o) for o in origins):
        if _same_place(place, mine, project):
            continue
        if _still_holds(place, brief.id, max_bytes, read_gsheet):
            return place
    return None


def clash_message(brief: Brief, other: str) -> str:
    return (
        f"brief id {brief.id!r} is also the id of a brief in {other}: both would write "
        f"output/ under that id, so neither runs while both hold it (nothing is written "
        f"over); give one of them another id, or take it out of one place"
    )
