"""Briefs from CSV and XLSX sheets, one per row."""

from __future__ import annotations

import csv

import pytest
from openpyxl import Workbook

from batch.errors import BriefloopError
from batch.inputs.briefs import BadBrief, Brief
from batch.inputs.sources import parse_gsheet, scan_source
from batch.nightly.job import run_job

from conftest import ScriptedModel, critic_answer, writer_answer

HEADER = ["ID", "Brief", "Title", "Max_Words", "Colour"]


def write_csv(path, rows):
    with open(path, "w", newline="", encoding="utf-8") as f:
        csv.writer(f).writerows(rows)
    return path


def write_xlsx(path, sheets: dict[str, list[list]]):
    wb = Workbook()
    wb.remove(wb.active)
    for title, rows in sheets.items():
        ws = wb.create_sheet(title)
        for row in rows:
            ws.append(row)
    wb.save(path)
    return path


ROWS = [
    HEADER,
    ["007", "Announce the new canteen menu.", "Menu", "80", "red"],
    ["", "A brief without an id.", "", "", ""],
    ["dup", "First.", "", "", ""],
    ["dup", "Second.", "", "", ""],
    ["empty", "", "", "", ""],
    ["limits", "Text.", "", "many", ""],
    ["", "", "", "", ""],  # a blank row is not a brief
]


def check_scan(scan, origin):
    by_id = {(b.id, b.origin): b for b in scan.briefs}
    good = by_id[("007", f"{origin} row 2")]
    assert isinstance(good, Brief)
    assert (good.text, good.title, good.max_words) == ("Announce the new canteen menu.", "Menu", 80)
    reasons = {b.origin.rsplit(" ", 1)[1]: b.reason for b in scan.briefs if isinstance(b, BadBrief)}
    assert reasons == {
        "3": "id is empty",
        "5": "duplicate id 'dup' (also on row 4)",
        "6": "the brief column is empty",
        "7": "max_words must be a whole number, got 'many'",
    }
    assert len(scan.briefs) == 6
    assert scan.warnings == [f"{origin}: ignoring unknown column(s): colour"]


def test_csv_rows(tmp_path):
    path = write_csv(tmp_path / "briefs.csv", ROWS)
    check_scan(scan_source(str(path), 10_000), str(path))


def test_xlsx_rows_first_or_named_worksheet(tmp_path):
    numeric = [list(r) for r in ROWS]
    numeric[1][3] = 80  # a number cell still reads as the text "80"
    path = write_xlsx(tmp_path / "briefs.xlsx", {"Other": [["x"]], "Briefs": numeric})
    check_scan(scan_source(f"{path}#Briefs", 10_000), f"{path}#Briefs")
    with pytest.raises(BriefloopError, match="missing required column"):
        scan_source(str(path), 10_000)  # the first worksheet has no id/brief header
    with pytest.raises(BriefloopError, match="no worksheet 'Nope'"):
        scan_source(f"{path}#Nope", 10_000)


def test_missing_required_column_names_it(tmp_path):
    path = write_csv(tmp_path / "b.csv", [["id", "text"], ["a", "b"]])
    with pytest.raises(BriefloopError, match=r"missing required column\(s\) brief"):
        scan_source(str(path), 10_000)


def test_source_file_column_documents_code(tmp_path):
    (tmp_path / "calc.py").write_text("def add(a, b):\n    return a + b\n")
    path = write_csv(
        tmp_path / "b.csv",
        [
            ["id", "brief", "source_file"],
            ["calc-docs", "Document it for new hires.", "calc.py"],
            ["bad", "x", "missing.py"],
            ["abs", "x", "/etc/passwd.py"],
            ["up", "x", "../outside.py"],
            ["home", "x", "~/secret.py"],
        ],
    )
    (tmp_path.parent / "outside.py").write_text("SECRET = 1\n")
    scan = scan_source(str(path), 10_000)
    good, bad, absolute, up, home = scan.briefs
    assert good.kind == "source" and "return a + b" in good.source_text
    assert isinstance(bad, BadBrief) and "cannot read" in bad.reason
    assert "must be relative" in absolute.reason and "must be relative" in home.reason
    assert "outside the sheet's folder" in up.reason


def test_unknown_source_kinds(tmp_path):
    (tmp_path / "x.json").write_text("{}")
    with pytest.raises(BriefloopError, match="a source is a folder"):
        scan_source(str(tmp_path / "x.json"), 10)
    with pytest.raises(BriefloopError, match="no such folder or file"):
        scan_source(str(tmp_path / "nope.csv"), 10)
    assert parse_gsheet("gsheet://abc/Briefs") == ("abc", "Briefs")
    assert parse_gsheet("gsheet://abc") == ("abc", None)
    with pytest.raises(BriefloopError):
        parse_gsheet("gsheet://")


def test_a_csv_batch_runs_and_keeps_ids_as_text(project, settings):
    path = write_csv(project / "briefs.csv", [["id", "brief"], ["007", "Office closed Friday."]])
    writer = ScriptedModel([writer_answer("The office is closed on Friday.")])
    summary = run_job(
        settings,
        path,
        models={"writer": writer, "critic": ScriptedModel([critic_answer(5)])},
        strict=True,
    )
    [r] = summary.results
    assert r.outcome == "approved" and r.record["brief_id"] == "007"
    assert r.record["source"] == f"{path} row 2"
    assert (project / "output" / "007.md").exists()


def test_a_google_sheet_cannot_name_local_files():
    from batch.inputs.sources import briefs_from_rows

    scan = briefs_from_rows(
        [["id", "brief", "source_file"], ["a", "x", "calc.py"]], "gsheet://k/Briefs", None, 10_000
    )
    assert "not allowed in a Google Sheet" in scan.briefs[0].reason


def test_a_row_id_with_a_line_break_is_refused_and_never_printed_raw(tmp_path):
    path = write_csv(
        tmp_path / "b.csv", [["id", "brief"], ["a\nb", "Office closed."], ["ok", "Office open."]]
    )
    bad, good = scan_source(str(path), 10_000).briefs
    assert isinstance(bad, BadBrief) and bad.id == "row-2" and "line break" in bad.reason
    assert "\n" not in bad.reason and good.id == "ok"


def test_one_brief_file_is_a_batch_of_one(project):
    from conftest import ScriptedModel, critic_answer, make_settings, write_brief, writer_answer

    write_brief(project, "a.md", "Office closed Friday from 15:00.", id="a")
    write_brief(project, "b.md", "Office closed Monday.", id="b")
    good = "The office is closed on Friday from 15:00."
    models = {
        "writer": ScriptedModel([writer_answer(good)]),
        "critic": ScriptedModel([critic_answer(5)]),
    }
    summary = run_job(
        make_settings(project), project / "briefs" / "a.md", models=models, strict=True
    )
    assert [(r.brief_id, r.outcome) for r in summary.results] == [("a", "approved")]
    assert (project / "output" / "a.md").exists()
    assert not (project / "output" / "b.md").exists()


@pytest.mark.parametrize("name,target", [("out.md", "outside.md"), ("loop.md", "loop.md")])
def test_one_brief_file_that_is_a_link_out_or_a_loop_is_its_error(tmp_path, name, target):
    (tmp_path / "briefs").mkdir()
    (tmp_path / "outside.md").write_text("Write a memo.\n")
    link = tmp_path / "briefs" / name
    link.symlink_to(tmp_path / target if target == "outside.md" else link)
    if target == "outside.md":
        [found] = scan_source(str(link), 100_000).briefs
        assert isinstance(found, BadBrief) and "outside" in found.reason
    else:  # a link to itself is no file at all: the source given is none
        with pytest.raises(BriefloopError, match="no such"):
            scan_source(str(link), 100_000)


@pytest.mark.parametrize(
    "bad_cell", [b"caf\xe9 opens at 8", b"\xff\xfe", b"price \x80 tbc"], ids=["latin1", "bom", "c1"]
)
@pytest.mark.parametrize("column", ["brief", "title", "id"])
def test_a_bad_byte_in_one_csv_cell_refuses_that_row_only(tmp_path, bad_cell, column):
    cells = {"id": b"b-2", "brief": b"The cafe opens at 8 on Monday.", "title": b"Cafe"}
    cells[column] = bad_cell
    path = tmp_path / "briefs.csv"
    path.write_bytes(
        b"id,brief,title\n"
        b"b-1,The shop closes at 5 on Friday.,Shop\n"
        + b",".join(b'"' + cells[c] + b'"' for c in ("id", "brief", "title"))
        + b"\nb-3,The gym opens at 6 on Sunday.,Gym\n"
    )
    scan = scan_source(str(path), 10_000)
    good = [b.id for b in scan.briefs if isinstance(b, Brief)]
    bad = [b for b in scan.briefs if isinstance(b, BadBrief)]
    assert good == ["b-1", "b-3"]
    assert [b.id for b in bad] == ["row-3"] and "not UTF-8" in bad[0].reason
    assert repr(column) in bad[0].reason
    bad[0].reason.encode("utf-8")  # what is shown can be printed


def test_a_bad_byte_in_the_header_is_named_and_printable(tmp_path):
    path = tmp_path / "briefs.csv"
    path.write_bytes(b"id,br\xefef\nb-1,The shop closes at 5.\n")
    with pytest.raises(BriefloopError, match="missing required column") as e:
        scan_source(str(path), 10_000)
    str(e.value).encode("utf-8")
