"""Workbooks are read by the cells they hold: a declared range or one cell far out
never makes a brief sheet or the run log's own workbook take memory for the range."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from openpyxl import Workbook, load_workbook
from openpyxl.styles import Font

from batch.errors import BriefloopError, SinkError
from batch.inputs.sources import scan_source
from batch.inputs.workbooks import MAX_COLUMNS, MAX_ROWS
from batch.sheets.tables import XlsxTable, text_key, upsert_rows

HEADER = ["id", "brief"]
BRIEF = ["office", "Office closed Friday 6 June for the deep clean."]
# the peak memory of a process reading one small sheet (KiB, as getrusage gives it):
# the same reads walked the declared range and grew past 2.8 GB
PEAK_KIB = 400 * 1024


def workbook(path: Path, title: str, rows: list[list[str]], far: dict[str, object]) -> Path:
    wb = Workbook()
    ws = wb.active
    ws.title = title
    for row in rows:
        ws.append(row)
    for ref, value in far.items():
        ws[ref] = value
        if value is None:
            ws[ref].font = Font(bold=True)  # a formatted cell with nothing in it
    wb.save(path)
    return path


def declare_range(path: Path, ref: str) -> None:
    """Rewrite the first sheet's <dimension> tag to `ref`, as another program may."""
    name = "xl/worksheets/sheet1.xml"
    with zipfile.ZipFile(path) as z:
        parts = {n: z.read(n) for n in z.namelist()}
    xml = parts[name].decode()
    xml, n = re.subn(r'<dimension ref="[^"]*"\s*/>', f'<dimension ref="{ref}"/>', xml)
    assert n == 1
    parts[name] = xml.encode()
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for n_, data in parts.items():
            z.writestr(n_, data)


# Run in a child whose address space is capped, so a read that walks the grid fails
# fast instead of taking the machine's memory; its own peak is returned.
CHILD = """
import json, resource, sys
resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))
from batch.errors import BriefloopError
{setup}
try:
    out = {{"ok": {call}}}
except BriefloopError as e:
    out = {{"error": str(e)}}
out["peak_kib"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps(out))
"""


def in_child(call: str, setup: str = "from batch.inputs.sources import scan_source") -> dict:
    done = subprocess.run(
        [sys.executable, "-c", CHILD.format(setup=setup, call=call)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout)


def scanned_ids(path: Path) -> str:
    return f"[b.id for b in scan_source({str(path)!r}, 10_000).briefs]"


@pytest.mark.parametrize("ref", ["XFD1048576", f"A{MAX_ROWS + 1}", "IW1"])
def test_a_brief_sheet_with_a_value_far_out_is_refused_naming_sheet_and_cell(tmp_path, ref):
    path = workbook(tmp_path / "briefs.xlsx", "Briefs", [HEADER, BRIEF], {ref: "x"})
    assert path.stat().st_size < 10_000
    with pytest.raises(BriefloopError) as caught:
        scan_source(str(path), 10_000)
    message = str(caught.value)
    assert "'Briefs'" in message and ref in message and f"{MAX_COLUMNS} columns" in message
    assert str(path) in message
    child = in_child(scanned_ids(path))
    assert child["error"] == message and child["peak_kib"] < PEAK_KIB


@pytest.mark.parametrize(
    "far",
    [
        {"XFD1048576": None},  # formatted, empty
        {"XFD1048576": ""},
        {f"IV{MAX_ROWS}": "kept"},  # the last row and column a sheet may use
    ],
)
def test_a_brief_sheet_reads_its_briefs_whatever_lies_far_out_without_a_value(tmp_path, far):
    path = workbook(tmp_path / "briefs.xlsx", "Briefs", [HEADER, BRIEF], far)
    child = in_child(scanned_ids(path))
    assert child["ok"] == ["office"] and child["peak_kib"] < PEAK_KIB


def test_a_declared_range_of_the_whole_grid_costs_nothing(tmp_path):
    path = workbook(
        tmp_path / "briefs.xlsx", "Briefs", [HEADER, BRIEF, [], ["desk", "A lamp."]], {}
    )
    declare_range(path, "A1:XFD1048576")
    scan = scan_source(str(path), 10_000)
    assert [b.id for b in scan.briefs] == ["office", "desk"]
    assert [b.origin for b in scan.briefs][1].endswith("row 4")  # a gap keeps row numbers
    child = in_child(scanned_ids(path))
    assert child["ok"] == ["office", "desk"] and child["peak_kib"] < PEAK_KIB


def test_the_run_log_workbook_with_a_cell_far_out_is_refused_and_left_as_it_was(tmp_path):
    path = workbook(tmp_path / "runs.xlsx", "Runs", [["k", "v"], ["a", "1"]], {"XFD1048576": "x"})
    before = path.read_bytes()
    table = XlsxTable(path, "Runs")
    for act in (
        table.read,
        lambda: upsert_rows(table, ["k", "v"], [["b", "2"]], key=lambda r: text_key(r, [0])),
    ):
        with pytest.raises(SinkError, match=r"'Runs' has a cell at XFD1048576") as caught:
            act()
        assert str(path) in str(caught.value)
    assert path.read_bytes() == before
    setup = (
        f"from batch.sheets.tables import XlsxTable\ntable = XlsxTable(Path({str(path)!r}), 'Runs')"
    )
    child = in_child("table.read()", "from pathlib import Path\n" + setup)
    assert "XFD1048576" in child["error"] and child["peak_kib"] < PEAK_KIB


def test_the_run_log_workbook_writes_past_a_formatted_row_without_walking_the_grid(tmp_path):
    # a whole row formatted out to the last column, and a gap: the rows a run writes go
    # after the last row with a value, and the file stays small
    path = workbook(
        tmp_path / "runs.xlsx", "Runs", [["k", "v"], ["a", "1"]], {f"IV{MAX_ROWS}": None}
    )
    ws_wb = load_workbook(path)
    ws_wb["Runs"].column_dimensions.group("C", "XFD", hidden=False)
    ws_wb.save(path)
    table = XlsxTable(path, "Runs")
    upsert_rows(table, ["k", "v"], [["b", "2"]], key=lambda r: text_key(r, [0]))
    rows = table.read()
    assert rows == [["k", "v"], ["a", "1"], ["b", "2"]]
    assert path.stat().st_size < 50_000


def test_the_run_log_grows_past_a_brief_sheets_rows_and_formatting_far_out_is_no_value(
    tmp_path,
):
    far = {f"A{MAX_ROWS + 5}": "a late run", "XFD20": None}  # a row far down; a bold cell
    path = workbook(tmp_path / "runs.xlsx", "Runs", [["k", "v"], ["a", "1"]], far)
    table = XlsxTable(path, "Runs")
    upsert_rows(table, ["k", "v"], [["b", "2"]], key=lambda r: text_key(r, [0]))
    rows = table.read()
    assert rows[MAX_ROWS + 4] == ["a late run", None] and rows[-1] == ["b", "2"]
