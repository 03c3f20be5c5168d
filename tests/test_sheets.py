"""The spreadsheet views: upsert by run id, formula-safe text, nothing lost on failure."""

from __future__ import annotations

import csv
import zipfile

import pytest
from openpyxl import load_workbook

from batch.runlog import FIELDS, RunLog
from batch.runner import Batch
from batch.sheets import CsvSink, XlsxSink
from batch.tables import XLSX_CELL_LIMIT

from conftest import ScriptedModel, critic_answer, make_settings, write_brief, writer_answer

HOSTILE = ["=IMPORTXML(\"http://evil\",\"//a\")", "+1+1", "-2+3", "@SUM(A1)", "\tx", "\rcmd"]


def record(run_id: str, **kw):
    base = {f: "" for f in FIELDS}
    base.update(run_id=run_id, thread_id=f"t-{run_id}", brief_id=run_id, status="running",
                score_history=[50.0, 70.5], open_must_fix=["a", "b"],
                needs_from_human=[{"placeholder": "[FIGURE NEEDED: x]", "question": "x?"}],
                deviations=[{"point": "p", "reason": "r"}], models={"writer": "w"},
                rounds=2, score=70.5)
    base.update(kw)
    return base


def read_csv(path):
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def test_csv_upsert_by_run_id(tmp_path):
    sink = CsvSink(tmp_path / "runs.csv")
    sink.upsert([record("r1"), record("r2")])
    sink.upsert([record("r1", status="finished", stop_reason="approved")])
    rows = read_csv(tmp_path / "runs.csv")
    assert [r["run_id"] for r in rows] == ["r1", "r2"]
    assert rows[0]["status"] == "finished"
    assert rows[0]["score_history"] == "50 → 70.5"
    assert rows[0]["open_must_fix"] == "• a\n• b"
    assert rows[0]["needs_from_human"] == "[FIGURE NEEDED: x] — x?"


def test_xlsx_upsert_keeps_other_sheets(tmp_path):
    path = tmp_path / "runs.xlsx"
    sink = XlsxSink(path, "Runs")
    sink.upsert([record("r1")])
    wb = load_workbook(path)
    wb.create_sheet("Notes")["A1"] = "mine"
    wb.save(path)
    sink.upsert([record("r1", status="finished"), record("r2")])
    wb = load_workbook(path)
    assert wb.sheetnames == ["Runs", "Notes"] and wb["Notes"]["A1"].value == "mine"
    rows = list(wb["Runs"].iter_rows(values_only=True))
    assert rows[0] == tuple(FIELDS)
    assert [(r[0], r[FIELDS.index("status")]) for r in rows[1:]] == [("r1", "finished"),
                                                                      ("r2", "running")]


@pytest.mark.parametrize("text", HOSTILE)
def test_formulas_stay_text_in_csv(tmp_path, text):
    CsvSink(tmp_path / "runs.csv").upsert([record("r1", title=text, error=text)])
    row = read_csv(tmp_path / "runs.csv")[0]
    assert row["title"] == "'" + text


def test_formulas_stay_text_in_xlsx(tmp_path):
    path = tmp_path / "runs.xlsx"
    XlsxSink(path).upsert([record(f"r{i}", title=t) for i, t in enumerate(HOSTILE)])
    ws = load_workbook(path)["Runs"]
    col = FIELDS.index("title") + 1
    for i, text in enumerate(HOSTILE, start=2):
        cell = ws.cell(row=i, column=col)
        # XML turns a stored CR into LF; what matters is that it is a string cell
        assert cell.value.replace("\n", "\r") == text.replace("\n", "\r")
        assert cell.data_type == "s" and cell.quotePrefix
    with zipfile.ZipFile(path) as z:
        sheet_xml = z.read("xl/worksheets/sheet1.xml").decode()
    assert "<f>" not in sheet_xml  # no formula element anywhere


def test_xlsx_cuts_huge_cells_with_a_marker(tmp_path):
    path = tmp_path / "runs.xlsx"
    XlsxSink(path).upsert([record("r1", error="x" * 100_000)])
    value = load_workbook(path)["Runs"].cell(row=2, column=FIELDS.index("error") + 1).value
    assert len(value) <= XLSX_CELL_LIMIT and value.endswith("in the run log database]")


def test_runlog_upsert_is_one_row_per_thread(tmp_path):
    log = RunLog(tmp_path / "runs.sqlite")
    a = log.upsert("t1", brief_id="b", status="running")
    b = log.upsert("t1", status="finished", stop_reason="approved", score_history=[1.0])
    assert a["run_id"] == b["run_id"] and len(log.all()) == 1
    assert log.by_thread("t1")["score_history"] == [1.0]
    with pytest.raises(KeyError):
        log.upsert("t1", nonsense=1)
    log.close()
    assert RunLog(tmp_path / "runs.sqlite").all()[0]["status"] == "finished"  # migrated once


def test_unwritable_sheet_leaves_rows_pending_then_catches_up(project):
    s = make_settings(project, **{"log.format": "xlsx", "log.path": "output/runs.xlsx"})
    for name in ("a", "b"):
        write_brief(project, f"{name}.md", "Office closed on Friday.")
    writer = ScriptedModel([writer_answer("Closed on Friday.")] * 2)
    critic = ScriptedModel([critic_answer(5)] * 2)
    sheet = project / "output" / "runs.xlsx"
    sheet.parent.mkdir()
    sheet.write_bytes(b"this is not a workbook")  # a corrupt or foreign file
    with Batch(s, models={"writer": writer, "critic": critic}, strict=True) as batch:
        summary = batch.run(project / "briefs")
        assert [r.outcome for r in summary.results] == ["approved", "approved"]
        assert summary.warnings and "2 row(s) left pending" in summary.warnings[0]
        assert "cannot be opened as a workbook" in summary.warnings[0]
        assert len(batch.runlog.all()) == 2  # SQLite has everything
        sheet.unlink()
        # the next sync sends every pending row
        [result] = batch.sync()
        assert (result.sent, result.error) == (2, None)
        assert batch.sync()[0].sent == 0  # and nothing twice
    rows = list(load_workbook(sheet)["Runs"].iter_rows(min_row=2, values_only=True))
    assert sorted(r[FIELDS.index("brief_id")] for r in rows) == ["a", "b"]


def test_control_characters_do_not_break_the_workbook(tmp_path):
    path = tmp_path / "runs.xlsx"
    XlsxSink(path).upsert([record("r1", open_must_fix=["bad \x1b[31m escape \x0b"])])
    value = load_workbook(path)["Runs"].cell(row=2, column=FIELDS.index("open_must_fix") + 1)
    assert "escape" in value.value and "\x1b" not in value.value


@pytest.mark.parametrize("text", ["-3%", "+49 30 1234", "=1+1", "'quoted'"])
def test_csv_values_survive_read_write_rounds(tmp_path, text):
    from batch.tables import CsvTable, text_key, upsert_rows

    table = CsvTable(tmp_path / "t.csv")
    for n in range(3):  # every round reads the file back and writes it again
        upsert_rows(table, ["k", "v"], [["a", text], [f"b{n}", "x"]],
                    key=lambda r: text_key(r, [0]))
    rows = table.read()
    assert rows[1] == ["a", text] and len(rows) == 5


def test_two_writers_never_lose_each_others_rows(tmp_path):
    import threading

    from batch.tables import XlsxTable, text_key, upsert_rows

    path = tmp_path / "shared.xlsx"

    def writer(prefix):
        table = XlsxTable(path, "Runs")  # its own instance, as another process would have
        for i in range(8):
            upsert_rows(table, ["k", "v"], [[f"{prefix}{i}", "x"]],
                        key=lambda r: text_key(r, [0]))

    threads = [threading.Thread(target=writer, args=(p,)) for p in "ab"]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    keys = sorted(r[0] for r in XlsxTable(path, "Runs").read()[1:])
    assert keys == sorted(f"{p}{i}" for p in "ab" for i in range(8))
