"""The spreadsheet views: upsert by run id, formula-safe text, nothing lost on failure."""

from __future__ import annotations

import csv
import zipfile

import pytest
from openpyxl import load_workbook
from openpyxl.utils import get_column_letter

from batch.run.runner import Runner
from batch.sheets.run_rows import CsvSink, XlsxSink
from batch.sheets.tables import XLSX_CELL_LIMIT
from batch.store.runlog import FIELDS, RunLog

from conftest import ScriptedModel, critic_answer, make_settings, write_brief, writer_answer

HOSTILE = ['=IMPORTXML("http://evil","//a")', "+1+1", "-2+3", "@SUM(A1)", "\tx", "\rcmd"]


def record(run_id: str, **kw):
    base = {f: "" for f in FIELDS}
    base.update(
        run_id=run_id,
        thread_id=f"t-{run_id}",
        brief_id=run_id,
        status="running",
        score_history=[50.0, 70.5],
        open_must_fix=["a", "b"],
        needs_from_human=[{"placeholder": "[FIGURE NEEDED: x]", "question": "x?"}],
        deviations=[{"point": "p", "reason": "r"}],
        models={"writer": "w"},
        rounds=2,
        score=70.5,
    )
    base.update(kw)
    return base


def read_csv(path):
    with open(path, newline="", encoding="utf-8-sig") as f:
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
    assert [(r[0], r[FIELDS.index("status")]) for r in rows[1:]] == [
        ("r1", "finished"),
        ("r2", "running"),
    ]


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
    with Runner(s, models={"writer": writer, "critic": critic}, strict=True) as runner:
        summary = runner.run(project / "briefs")
        assert [r.outcome for r in summary.results] == ["approved", "approved"]
        assert summary.warnings and "2 row(s) left pending" in summary.warnings[0]
        assert "cannot be opened as a workbook" in summary.warnings[0]
        assert len(runner.runlog.all()) == 2  # SQLite has everything
        sheet.unlink()
        # the next sync sends every pending row
        [result] = runner.sync()
        assert (result.sent, result.error) == (2, None)
        assert runner.sync()[0].sent == 0  # and nothing twice
    rows = list(load_workbook(sheet)["Runs"].iter_rows(min_row=2, values_only=True))
    assert sorted(r[FIELDS.index("brief_id")] for r in rows) == ["a", "b"]


def test_control_characters_do_not_break_the_workbook(tmp_path):
    path = tmp_path / "runs.xlsx"
    XlsxSink(path).upsert([record("r1", open_must_fix=["bad \x1b[31m escape \x0b"])])
    value = load_workbook(path)["Runs"].cell(row=2, column=FIELDS.index("open_must_fix") + 1)
    assert "escape" in value.value and "\x1b" not in value.value


@pytest.mark.parametrize("text", ["-3%", "+49 30 1234", "=1+1", "'quoted'"])
def test_csv_values_survive_read_write_rounds(tmp_path, text):
    from batch.sheets.tables import CsvTable, text_key, upsert_rows

    table = CsvTable(tmp_path / "t.csv")
    for n in range(3):  # every round reads the file back and writes it again
        upsert_rows(
            table, ["k", "v"], [["a", text], [f"b{n}", "x"]], key=lambda r: text_key(r, [0])
        )
    rows = table.read()
    assert rows[1] == ["a", text] and len(rows) == 5


def test_two_writers_never_lose_each_others_rows(tmp_path):
    import threading

    from batch.sheets.tables import XlsxTable, text_key, upsert_rows

    path = tmp_path / "shared.xlsx"

    def writer(prefix):
        table = XlsxTable(path, "Runs")  # its own instance, as another process would have
        for i in range(8):
            upsert_rows(table, ["k", "v"], [[f"{prefix}{i}", "x"]], key=lambda r: text_key(r, [0]))

    threads = [threading.Thread(target=writer, args=(p,)) for p in "ab"]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    keys = sorted(r[0] for r in XlsxTable(path, "Runs").read()[1:])
    assert keys == sorted(f"{p}{i}" for p in "ab" for i in range(8))


# -- cells an XML parser accepts ---------------------------------------------------------

XML_FORBIDDEN = [
    ("Closure \ufffe notice", "Closure \ufffd notice"),
    ("\uffff", "\ufffd"),
    ("\ud800", "\ufffd"),
    ("pair \ud83d\ude00 split", "pair \ufffd\ufffd split"),
    ("ok \U0001f600 \t tab", "ok \U0001f600 \t tab"),
]


@pytest.mark.parametrize("text,expected", XML_FORBIDDEN)
def test_xml_forbidden_characters_never_break_the_workbook(tmp_path, text, expected):
    path = tmp_path / "runs.xlsx"
    XlsxSink(path).upsert([record("r1", title=text, deviations=[{"point": text, "reason": "r"}])])
    XlsxSink(path).upsert([record("r2", title=text)])  # the file loads again for the next run
    ws = load_workbook(path)["Runs"]
    assert ws.cell(row=2, column=FIELDS.index("title") + 1).value == expected
    assert ws.cell(row=2, column=FIELDS.index("deviations") + 1).value == f"{expected} — r"
    assert ws.cell(row=3, column=FIELDS.index("title") + 1).value == expected


def test_xml_forbidden_characters_in_a_header_are_replaced(tmp_path):
    from batch.sheets.tables import XlsxTable, text_key, upsert_rows

    path = tmp_path / "t.xlsx"
    upsert_rows(
        XlsxTable(path, "T"), ["k", "v\uffff"], [["a", "\ud800"]], key=lambda r: text_key(r, [0])
    )
    assert [list(r) for r in load_workbook(path)["T"].iter_rows(values_only=True)] == [
        ["k", "v\ufffd"],
        ["a", "\ufffd"],
    ]


def corrupt_workbook(path, sheet_xml: bytes):
    XlsxSink(path).upsert([record("r1")])
    broken = path.with_suffix(".tmp")
    with zipfile.ZipFile(path) as src, zipfile.ZipFile(broken, "w") as dst:
        for item in src.infolist():
            data = src.read(item.filename)
            dst.writestr(item, sheet_xml if item.filename == "xl/worksheets/sheet1.xml" else data)
    broken.replace(path)


SHEET_OPEN = (
    b'<?xml version="1.0" encoding="UTF-8"?><worksheet xmlns='
    b'"http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>'
)


@pytest.mark.parametrize(
    "sheet_xml",
    [
        # what the old code wrote for a title holding U+FFFE: not well-formed XML
        SHEET_OPEN
        + '<row r="1"><c r="A1" t="inlineStr"><is><t>x \ufffe y</t></is></c></row>'.encode()
        + b"</sheetData></worksheet>",
        SHEET_OPEN + b"<row r=",  # cut off
        # well-formed, but a number cell holding text
        SHEET_OPEN + b'<row r="1"><c r="A1" t="n"><v>abc</v></c></row></sheetData></worksheet>',
    ],
    ids=["fffe", "truncated", "bad-number"],
)
def test_a_workbook_that_cannot_be_parsed_is_a_sink_error(tmp_path, sheet_xml):
    from xml.etree.ElementTree import ParseError

    from batch.errors import SinkError
    from batch.sheets.tables import XlsxTable

    path = tmp_path / "runs.xlsx"
    corrupt_workbook(path, sheet_xml)
    with pytest.raises(Exception) as raw:  # what load_workbook itself raises
        load_workbook(path)
    assert isinstance(raw.value, ParseError | ValueError | TypeError)
    with pytest.raises(SinkError) as e:
        XlsxTable(path, "Runs").read()
    message = str(e.value)
    assert "\n" not in message and str(path) in message
    assert "cannot be read" in message and "move it away" in message
    with pytest.raises(SinkError, match="move it away"):
        XlsxSink(path).upsert([record("r2")])


def test_csv_replaces_only_what_utf8_cannot_encode(tmp_path):
    path = tmp_path / "runs.csv"
    CsvSink(path).upsert([record("r1", title="lone \ud800 half", error="keep \ufffe here")])
    row = read_csv(path)[0]
    assert row["title"] == "lone \ufffd half"
    assert row["error"] == "keep \ufffe here"  # fine in UTF-8 text, so left alone


# -- the workbook as people use it ---------------------------------------------------------


def cell(ws, row, field):
    return ws.cell(row=row, column=FIELDS.index(field) + 1)


def test_numbers_are_numbers_and_times_are_datetimes_in_xlsx(tmp_path):
    from datetime import UTC, datetime

    path = tmp_path / "runs.xlsx"
    XlsxSink(path, zone=UTC).upsert(
        [
            record(
                "r1",
                rounds=3,
                score=28.6,
                model_calls=8,
                model_seconds=1.25,
                started_at="2026-11-30T10:21:04+00:00",
                ended_at="2026-11-30T12:00:00+01:00",
                updated_at="2026-11-30T11:00:00+00:00",
            ),
            # values as a JSON outbox or a CSV round trip would hand them over: text
            record(
                "r2",
                rounds="3",
                score="28.6",
                model_calls="8",
                input_tokens="1572",
                started_at="2026-11-30T10:21:04+00:00",
                score_history=[93.3],
            ),
        ]
    )
    ws = load_workbook(path)["Runs"]
    for row in (2, 3):
        assert cell(ws, row, "rounds").value == 3 and cell(ws, row, "rounds").data_type == "n"
        assert cell(ws, row, "score").value == pytest.approx(28.6)
        assert isinstance(cell(ws, row, "score").value, float)
        assert cell(ws, row, "model_calls").value == 8
        started = cell(ws, row, "started_at")
        assert started.value == datetime(2026, 11, 30, 10, 21, 4)
        assert started.is_date and "UTC" in started.number_format
    assert cell(ws, 2, "ended_at").value == datetime(2026, 11, 30, 11, 0, 0)  # to UTC
    assert cell(ws, 3, "input_tokens").value == 1572
    assert cell(ws, 3, "score_history").value == "93.3"  # a list of scores stays text
    # an empty value is an empty cell, not a text cell holding ""
    assert cell(ws, 3, "ended_at").value is None and cell(ws, 3, "ended_at").data_type == "n"


def test_xlsx_times_are_local_with_their_zone_and_the_brief_and_file_are_links(tmp_path):
    from datetime import datetime
    from zoneinfo import ZoneInfo

    path = tmp_path / "log" / "runs.xlsx"
    path.parent.mkdir()
    text = tmp_path / "output" / "q3 memo.md"
    XlsxSink(path, review_url="http://127.0.0.1:8765/", zone=ZoneInfo("Europe/Paris")).upsert(
        [
            record(
                "r1",
                thread_id="q3-abc",
                output_path=str(text),
                started_at="2026-11-30T10:21:04+00:00",  # winter: CET, +1
                ended_at="2026-07-01T10:00:00+00:00",  # summer: CEST, +2
            ),
            record("r2", thread_id="lift-1", output_path=""),
        ]
    )
    ws = load_workbook(path)["Runs"]
    started, ended = cell(ws, 2, "started_at"), cell(ws, 2, "ended_at")
    assert started.value == datetime(2026, 11, 30, 11, 21, 4) and '"CET"' in started.number_format
    assert ended.value == datetime(2026, 7, 1, 12, 0) and '"CEST"' in ended.number_format
    # the text's file, relative to the workbook; the brief, its thread's review page
    assert cell(ws, 2, "output_path").hyperlink.target == "../output/q3%20memo.md"
    assert cell(ws, 2, "brief_id").hyperlink.target == "http://127.0.0.1:8765/thread/q3-abc"
    assert cell(ws, 3, "output_path").hyperlink is None  # no file, no link
    # a person reads the run first: its brief, how it ended and why; the ids come later
    assert [c.value for c in ws[1]][:4] == ["brief_id", "title", "stop_reason", "status"]
    # the columns of cost and machinery are folded away, the others shown
    hidden = {
        ws.cell(row=1, column=i).value
        for i in range(1, len(FIELDS) + 1)
        if ws.column_dimensions[get_column_letter(i)].hidden
    }
    assert {"run_id", "thread_id", "input_tokens", "hosts"} <= hidden
    assert not hidden & {"brief_id", "stop_reason", "judgement", "needs_from_human", "score"}
    assert all(
        ws.column_dimensions[get_column_letter(FIELDS.index(n) + 1)].outlineLevel == 1
        for n in hidden
    )


def test_a_column_a_person_unfolded_stays_unfolded(tmp_path):
    path = tmp_path / "runs.xlsx"
    XlsxSink(path).upsert([record("r1")])
    wb = load_workbook(path)
    letter = get_column_letter(FIELDS.index("run_id") + 1)
    wb["Runs"].column_dimensions[letter].hidden = False
    wb.save(path)
    XlsxSink(path).upsert([record("r2")])
    assert not load_workbook(path)["Runs"].column_dimensions[letter].hidden


def test_xlsx_is_formatted_for_people(tmp_path):
    path = tmp_path / "runs.xlsx"
    long = "a long sentence " * 10
    XlsxSink(path).upsert(
        [
            record(
                "r1",
                stop_reason="approved",
                status="finished",
                error=long,
                title="Office closed for maintenance",
                started_at="2026-11-30T10:21:04+00:00",
            ),
            record("r2", stop_reason="awaiting_human", status="awaiting_human"),
            record("r3", stop_reason="max_rounds", status="finished"),
            record("r4", stop_reason="error", status="failed"),
            record("r5", stop_reason=None, status="running"),
        ]
    )
    ws = load_workbook(path)["Runs"]
    assert ws.freeze_panes == "A2"
    last = get_column_letter(len(FIELDS))
    assert ws.auto_filter.ref == f"A1:{last}6"  # every column, header and five rows
    assert all(c.font.b for c in ws[1])
    widths = {
        name: ws.column_dimensions[c.column_letter].width
        for name, c in zip(FIELDS, ws[1], strict=True)
    }
    assert widths["title"] >= len("Office closed for maintenance")
    assert widths["error"] == 60  # capped: the text wraps
    assert widths["rounds"] <= 12 and widths["started_at"] >= len("2026-01-31 23:59:59 UTC")
    assert cell(ws, 2, "open_must_fix").alignment.wrap_text  # "• a\n• b"
    assert cell(ws, 2, "error").alignment.wrap_text
    assert cell(ws, 2, "open_must_fix").alignment.vertical == "top"
    fills = {row: cell(ws, row, "stop_reason").fill for row in range(2, 7)}
    rgb = {row: f.fgColor.rgb[-6:] for row, f in fills.items() if f.fill_type == "solid"}
    assert rgb[2] == "C6EFCE"  # approved: green
    assert rgb[3] == "FFEB9C"  # awaiting a person: amber
    assert rgb[4] == "F8CBAD"  # max_rounds: orange
    assert rgb[5] == "FFC7CE"  # error: red
    assert 6 not in rgb  # nothing to say yet
    # a row that changes takes the colour of its new value
    XlsxSink(path).upsert([record("r2", stop_reason="approved_by_human")])
    fill = cell(load_workbook(path)["Runs"], 3, "stop_reason").fill
    assert fill.fill_type == "solid" and fill.fgColor.rgb.endswith("C6EFCE")


def test_a_workbook_from_before_is_laid_out_on_the_next_write(tmp_path):
    from openpyxl import Workbook

    path = tmp_path / "runs.xlsx"
    wb = Workbook()
    ws = wb.active
    ws.title = "Runs"
    # an older version's columns, in the run log table's order
    ws.append(["run_id", "thread_id", "brief_id", "title", "source", "status", "stop_reason"])
    ws.append(["r0", "t-r0", "b", "", "", "finished", "approved"])
    wb.save(path)
    XlsxSink(path).upsert([record("r1")])
    ws = load_workbook(path)["Runs"]
    last = get_column_letter(len(FIELDS))
    assert ws.freeze_panes == "A2" and ws.auto_filter.ref == f"A1:{last}3"
    assert [c.value for c in ws[1]] == FIELDS  # the header in today's order
    assert cell(ws, 2, "stop_reason").fill.fgColor.rgb.endswith("C6EFCE")
    # the old row laid out again by its column names
    assert (cell(ws, 2, "run_id").value, cell(ws, 2, "brief_id").value) == ("r0", "b")
    assert cell(ws, 2, "stop_reason").value == "approved" and cell(ws, 3, "run_id").value == "r1"


@pytest.mark.parametrize("kind", ["csv", "xlsx"])
def test_a_sheet_in_another_order_is_relaid_by_name_and_keeps_a_persons_column(tmp_path, kind):
    """An older version's order (the run id first), with a column a person added: every
    row is laid out again by name, the person's column kept after ours, and a run
    written again updates its row in place instead of adding a second."""
    old = ["run_id", "brief_id", "stop_reason", "score", "my notes"]
    rows = [old, ["r0", "b0", "approved", 80, "call Ana"], ["r1", "b1", "max_rounds", 40, ""]]
    path = tmp_path / f"runs.{kind}"
    if kind == "csv":
        import csv

        with path.open("w", newline="", encoding="utf-8") as f:
            csv.writer(f).writerows(rows)
        sink = CsvSink(path)
    else:
        from openpyxl import Workbook

        wb = Workbook()
        wb.active.title = "Runs"
        for r in rows:
            wb.active.append(r)
        wb.save(path)
        sink = XlsxSink(path)
    sink.upsert([record("r1", brief_id="b1", stop_reason="approved", score=90)])
    got = sink.table.read()
    assert [str(c) for c in got[0]] == [*FIELDS, "my notes"]
    by_run = {str(r[FIELDS.index("run_id")]): r for r in got[1:]}
    assert sorted(by_run) == ["r0", "r1"] and len(got) == 3  # updated, not added
    at = {f: FIELDS.index(f) for f in ("brief_id", "stop_reason", "score")}
    assert [by_run["r0"][at[f]] for f in at] in (["b0", "approved", 80], ["b0", "approved", "80"])
    assert by_run["r0"][len(FIELDS)] == "call Ana"  # the person's column, kept
    assert by_run["r1"][at["stop_reason"]] == "approved"
    assert str(by_run["r1"][at["score"]]) in ("90", "90.0")


def test_a_review_worksheet_is_formatted_too(tmp_path):
    from batch.sheets.tables import XlsxTable, text_key, upsert_rows

    path = tmp_path / "runs.xlsx"
    columns = ["thread_id", "round", "question", "status", "note"]
    upsert_rows(
        XlsxTable(path, "Review"),
        columns,
        [["t1", "2", "line one\nline two", "open", ""], ["t2", "1", "q", "done", "approved"]],
        key=lambda r: text_key(r, [0, 1]),
    )
    ws = load_workbook(path)["Review"]
    assert ws.freeze_panes == "A2" and ws.auto_filter.ref == "A1:E3" and ws["A1"].font.b
    assert ws["C2"].alignment.wrap_text
    assert ws["B2"].value == "2" and ws["B2"].data_type == "s"  # given as text, stays text
    assert ws["D2"].fill.fgColor.rgb.endswith("FFEB9C")  # open: a person is needed
    assert ws["D3"].fill.fgColor.rgb.endswith("C6EFCE")


def test_formula_like_text_stays_quoted_after_reformatting_and_updates(tmp_path):
    path = tmp_path / "runs.xlsx"
    XlsxSink(path).upsert([record("r1", title="=1+1", stop_reason="approved")])
    XlsxSink(path).upsert([record("r1", title="plain", error="-1", stop_reason="approved")])
    ws = load_workbook(path)["Runs"]
    title, error = cell(ws, 2, "title"), cell(ws, 2, "error")
    assert title.value == "plain" and not title.quotePrefix
    assert error.value == "-1" and error.data_type == "s" and error.quotePrefix
    assert cell(ws, 2, "stop_reason").fill.fgColor.rgb.endswith("C6EFCE")


@pytest.mark.parametrize("existing,new", [(3, "3"), (28.6, "28.6"), (100.0, "100"), (100, 100.0)])
def test_keys_match_whatever_type_a_number_comes_back_as(tmp_path, existing, new):
    from batch.sheets.tables import XlsxTable, text_key, upsert_rows

    table = XlsxTable(tmp_path / "t.xlsx", "T")
    upsert_rows(table, ["k", "v"], [[existing, "old"]], key=lambda r: text_key(r, [0]))
    assert upsert_rows(table, ["k", "v"], [[new, "new"]], key=lambda r: text_key(r, [0])) == (1, 0)
    assert [r[1] for r in table.read()[1:]] == ["new"]


def test_column_groups_saved_by_excel_are_split_not_overlapped(tmp_path):
    path = tmp_path / "runs.xlsx"
    XlsxSink(path).upsert([record("r1")])
    wb = load_workbook(path)
    ws = wb["Runs"]
    # Excel saves adjacent columns of one width as one <col min="2" max="5">
    group = ws.column_dimensions["B"]
    group.min, group.max, group.width = 2, 5, 30
    for letter in "CDE":
        ws.column_dimensions.pop(letter, None)
    wb.save(path)
    XlsxSink(path).upsert([record("r2")])
    with zipfile.ZipFile(path) as z:
        sheet_xml = z.read("xl/worksheets/sheet1.xml").decode()
    import re

    spans = [
        (int(a), int(b)) for a, b in re.findall(r'<col [^>]*min="(\d+)" max="(\d+)"', sheet_xml)
    ]
    covered = [i for a, b in spans for i in range(a, b + 1)]
    assert len(covered) == len(set(covered))  # no column in two <col> entries
    ws = load_workbook(path)["Runs"]
    assert [ws.column_dimensions[c].width for c in "BCDE"] == [30, 30, 30, 30]  # kept


def test_a_forbidden_character_in_a_brief_never_stops_a_later_batch(project):
    from batch.nightly.job import run_job

    s = make_settings(project, **{"log.format": "xlsx", "log.path": "output/runs.xlsx"})
    write_brief(
        project,
        "a.md",
        "Office closed Friday from 15:00.",
        title='"Closure \\uFFFE notice \\uFFFF"',
    )  # YAML escapes

    def models():
        good = "The office is closed on Friday from 15:00."
        return {
            "writer": ScriptedModel([writer_answer(good, deviations=[("x\ufffe", "y")])] * 3),
            "critic": ScriptedModel([critic_answer(5)] * 3),
        }

    first = run_job(s, project / "briefs", models=models(), strict=True)
    assert first.results[0].outcome == "approved", first.results[0].record
    assert not first.warnings
    write_brief(project, "b.md", "Office closed Friday from 15:00, again.")
    second = run_job(s, project / "briefs", models=models(), strict=True)
    assert [r.outcome for r in second.results] == ["skipped", "approved"]
    assert not second.warnings
    titles = [
        r[FIELDS.index("title")]
        for r in load_workbook(project / "output" / "runs.xlsx")["Runs"].iter_rows(
            min_row=2, values_only=True
        )
    ]
    assert "Closure \ufffd notice \ufffd" in titles


def test_an_unreadable_workbook_is_a_warning_and_the_batch_runs(project):
    from batch.nightly.job import run_job

    s = make_settings(project, **{"log.format": "xlsx", "log.path": "output/runs.xlsx"})
    book = project / "output" / "runs.xlsx"
    book.parent.mkdir()
    corrupt_workbook(book, SHEET_OPEN + b"<row r=")
    write_brief(project, "a.md", "Office closed Friday from 15:00.")
    models = {
        "writer": ScriptedModel([writer_answer("The office is closed on Friday from 15:00.")]),
        "critic": ScriptedModel([critic_answer(5)]),
    }
    summary = run_job(s, project / "briefs", models=models, strict=True)
    assert summary.results[0].outcome == "approved"
    assert any(
        "review answers not pulled" in w and "cannot be read" in w for w in summary.warnings
    ), summary.warnings
    assert any("left pending" in w for w in summary.warnings), summary.warnings
    with RunLog(s.runs_db_path) as log:
        assert log.pending(f"xlsx:{book}#Runs")  # kept for when the file is fixed


def test_the_csv_opens_with_a_bom_and_a_file_from_before_without_one_is_kept(tmp_path):
    from batch.sheets.tables import CsvTable

    path = tmp_path / "runs.csv"
    # a run log written before the BOM: read as it is, rewritten with one
    path.write_text("run_id,title\nr1,Café → opens\n", encoding="utf-8", newline="")
    table = CsvTable(path)
    assert table.read() == [["run_id", "title"], ["r1", "Café → opens"]]
    table.write(["run_id", "title"], {}, [["r2", "Notes • two"]], False)
    raw = path.read_bytes()
    assert raw.startswith(b"\xef\xbb\xbfrun_id,")
    assert raw.count(b"\xef\xbb\xbf") == 1  # once, at the start
    assert table.read() == [["run_id", "title"], ["r1", "Café → opens"], ["r2", "Notes • two"]]
