"""The fake Sheets API itself, driven only through real gspread 6 calls, so its paths and
answer shapes stay those gspread gets from Google. The request lists asserted here are
what a sync design can count on: each gspread call below costs exactly these requests."""

from __future__ import annotations

import threading

import gspread
import pytest
from gspread.exceptions import APIError, SpreadsheetNotFound, WorksheetNotFound
from gspread.utils import ValueInputOption

from fake_sheets import FakeSheets

KEY = "sheet-key-1"
RAW = ValueInputOption.raw


@pytest.fixture
def fake() -> FakeSheets:
    f = FakeSheets()
    f.add_spreadsheet(
        KEY,
        title="Briefloop runs",
        worksheets={"Runs": [["run_id", "status"], ["r1", "ok"]], "Other": []},
    )
    return f


@pytest.fixture
def client(fake: FakeSheets) -> gspread.Client:
    return fake.client()


def calls(fake: FakeSheets) -> list[tuple[str, str]]:
    return [(r.method, r.path) for r in fake.requests]


META = ("GET", f"/v4/spreadsheets/{KEY}")


def test_open_worksheet_and_read_cost_one_request_each(fake, client):
    sheet = client.open_by_key(KEY)
    assert sheet.title == "Briefloop runs"
    assert calls(fake) == [META]
    assert fake.requests[0].params == {"includeGridData": "false"}

    ws = sheet.worksheet("Runs")
    assert (ws.title, ws.row_count, ws.col_count) == ("Runs", 1000, 26)
    assert calls(fake) == [META, META]

    assert ws.get_all_values() == [["run_id", "status"], ["r1", "ok"]]
    assert calls(fake)[2] == ("GET", f"/v4/spreadsheets/{KEY}/values/'Runs'")
    assert fake.count() == 3 and fake.count("read") == 3 and fake.count("write") == 0


def test_missing_worksheet_is_worksheet_not_found(fake, client):
    sheet = client.open_by_key(KEY)
    with pytest.raises(WorksheetNotFound):
        sheet.worksheet("Nope")
    assert calls(fake) == [META, META]


def test_values_get_trims_like_google_and_names_the_clipped_range(fake, client):
    fake.add_worksheet(KEY, "Gappy", [["a", "", ""], [], ["", "b", ""], ["", ""]])
    sheet = client.open_by_key(KEY)

    answer = sheet.values_get("Gappy!A1:X")
    assert answer == {
        "range": "Gappy!A1:X1000",
        "majorDimension": "ROWS",
        "values": [["a"], [], ["", "b"]],
    }
    assert sheet.values_get("'Gappy'!A2:B3")["values"] == [[], ["", "b"]]
    assert sheet.values_get("'Other'") == {"range": "Other!A1:Z1000", "majorDimension": "ROWS"}
    # An empty sheet reads as [[]] through gspread, not [].
    assert sheet.worksheet("Other").get_all_values() == [[]]


def test_add_worksheet_is_one_batch_update(fake, client):
    sheet = client.open_by_key(KEY)
    fake.reset_counts()

    ws = sheet.add_worksheet("Log", rows=100, cols=5)

    assert calls(fake) == [("POST", f"/v4/spreadsheets/{KEY}:batchUpdate")]
    assert fake.requests[0].json["requests"][0]["addSheet"]["properties"]["title"] == "Log"
    assert (ws.title, ws.row_count, ws.col_count, ws.index) == ("Log", 100, 5, 2)
    assert fake.grid(KEY, "Log") == (100, 5)
    assert sheet.worksheet("Log").id == ws.id

    with pytest.raises(APIError) as err:
        sheet.add_worksheet("log", rows=1, cols=1)  # names are unique ignoring case
    assert err.value.code == 400 and "already exists" in err.value.error["message"]


def test_append_rows_goes_after_the_table_and_grows_the_grid(fake, client):
    ws = client.open_by_key(KEY).worksheet("Runs")
    fake.reset_counts()

    res = ws.append_rows(
        [["r2", "ok"], ["r3", '=IMPORTXML("x","//a")']],
        value_input_option=RAW,
        insert_data_option="INSERT_ROWS",
        table_range="A1",
    )

    assert calls(fake) == [("POST", f"/v4/spreadsheets/{KEY}/values/'Runs'!A1:append")]
    assert fake.requests[0].params == {"valueInputOption": "RAW", "insertDataOption": "INSERT_ROWS"}
    assert res["tableRange"] == "Runs!A1:B2"
    assert res["updates"]["updatedRange"] == "Runs!A3:B4"
    assert res["updates"]["updatedRows"] == 2
    assert fake.values(KEY, "Runs")[2:] == [["r2", "ok"], ["r3", '=IMPORTXML("x","//a")']]
    assert fake.grid(KEY, "Runs") == (1002, 26)
    assert ws.row_count == 1002  # gspread adds the rows to its cached count itself
    assert fake.formulas == set()
    assert [(w.kind, w.value_input_option) for w in fake.writes] == [("values.append", "RAW")]


def test_append_from_a1_lands_in_the_first_blank_row(fake, client):
    fake.add_worksheet(KEY, "Gap", [["h"], ["1"], [], ["3"]])
    ws = client.open_by_key(KEY).worksheet("Gap")

    res = ws.append_rows(
        [["2"]], value_input_option=RAW, insert_data_option="INSERT_ROWS", table_range="A1"
    )

    assert res["tableRange"] == "Gap!A1:A2"
    assert res["updates"]["updatedRange"] == "Gap!A3"
    assert fake.values(KEY, "Gap") == [["h"], ["1"], ["2"], [""], ["3"]]


def test_append_without_table_range_follows_the_last_cell_as_google_does(fake, client):
    # gspread's tests recorded against Google (issue #537): a gap in the last row shifts
    # an append on the whole sheet; table_range="A1" pins it to column A.
    sheet = client.open_by_key(KEY)
    shifted, pinned = (sheet.add_worksheet(t, rows=10, cols=10) for t in ("Shift", "Pin"))
    for ws in (shifted, pinned):
        ws.append_row(["t1", "", "t2"])

    res = shifted.append_row(["t1", "", "t2"])
    assert res["tableRange"] == "Shift!C1"
    assert fake.values(KEY, "Shift")[1] == ["", "", "t1", "", "t2"]

    pinned.append_row(["t1", "", "t2"], table_range="A1")
    assert fake.values(KEY, "Pin")[1] == ["t1", "", "t2"]


def test_insert_row_writes_into_the_inserted_row(fake, client):
    ws = client.open_by_key(KEY).worksheet("Runs")
    fake.reset_counts()
    ws.insert_row(["r0", "new"], index=2)
    assert fake.values(KEY, "Runs") == [["run_id", "status"], ["r0", "new"], ["r1", "ok"]]
    assert [r.kind for r in fake.requests] == ["batchUpdate", "values.append"]


def test_values_batch_update_is_one_request_and_all_or_nothing(fake, client):
    sheet = client.open_by_key(KEY)
    fake.reset_counts()

    res = sheet.values_batch_update(
        {
            "valueInputOption": RAW,
            "data": [
                {"range": "'Runs'!B2", "values": [["failed"]]},
                {"range": "'Other'!A1:B1", "values": [["x", "y"]]},
            ],
        }
    )

    assert calls(fake) == [("POST", f"/v4/spreadsheets/{KEY}/values:batchUpdate")]
    assert res["totalUpdatedCells"] == 3 and res["totalUpdatedSheets"] == 2
    assert fake.values(KEY, "Runs")[1] == ["r1", "failed"]
    assert fake.values(KEY, "Other") == [["x", "y"]]

    with pytest.raises(APIError) as err:
        sheet.values_batch_update(
            {
                "valueInputOption": "RAW",
                "data": [
                    {"range": "'Runs'!B2", "values": [["again"]]},
                    {"range": "'Runs'!A1001", "values": [["off the grid"]]},
                ],
            }
        )
    assert err.value.code == 400
    assert err.value.error["message"] == (
        "Range (Runs!A1001) exceeds grid limits. Max rows: 1000, max columns: 26"
    )
    assert fake.values(KEY, "Runs")[1] == ["r1", "failed"]  # the first range was not kept
    assert [w.status for w in fake.writes] == [200, 200, 400, 400]


def test_update_raw_keeps_text_verbatim(fake, client):
    ws = client.open_by_key(KEY).worksheet("Runs")
    fake.reset_counts()

    res = ws.update(
        [["007", '=IMPORTXML("http://x","//a")', 7, 1.5, True]], "A3", value_input_option="RAW"
    )

    assert calls(fake) == [("PUT", f"/v4/spreadsheets/{KEY}/values/'Runs'!A3")]
    assert fake.requests[0].params == {"valueInputOption": "RAW"}
    assert res["updatedRange"] == "Runs!A3:E3"
    assert ws.get_all_values()[2] == ["007", '=IMPORTXML("http://x","//a")', "7", "1.5", "TRUE"]
    assert fake.formulas == set()
    assert ws.get("A3", value_render_option="UNFORMATTED_VALUE") == [["007"]]
    assert ws.get("C3:E3", value_render_option="UNFORMATTED_VALUE") == [[7, 1.5, True]]


def test_user_entered_makes_formulas_and_numbers(fake, client):
    ws = client.open_by_key(KEY).worksheet("Runs")

    ws.update(
        [["007", '=IMPORTXML("http://x","//a")', "'=kept as text"]],
        "A3",
        value_input_option="USER_ENTERED",
    )

    assert fake.values(KEY, "Runs")[2][:3] == ["7", '=IMPORTXML("http://x","//a")', "=kept as text"]
    assert fake.formulas == {(KEY, "Runs", "B3")}
    assert fake.writes[-1].value_input_option == "USER_ENTERED"


def test_a_write_without_value_input_option_is_refused(fake, client):
    sheet = client.open_by_key(KEY)
    with pytest.raises(APIError) as err:
        sheet.values_update("'Runs'!A1", body={"values": [["x"]]})
    assert err.value.code == 400 and "valueInputOption" in err.value.error["message"]
    assert fake.writes[-1].value_input_option is None and fake.writes[-1].status == 400


def test_update_past_the_grid_is_400_while_append_grows_it(fake, client):
    sheet = client.open_by_key(KEY)
    ws = sheet.add_worksheet("Small", rows=2, cols=2)
    ws.update([["a", "b"], ["c", "d"]], "A1", value_input_option="RAW")

    with pytest.raises(APIError) as err:
        ws.update([["e", "f"]], "A3", value_input_option="RAW")
    assert err.value.code == 400
    assert err.value.error["status"] == "INVALID_ARGUMENT"
    assert "exceeds grid limits. Max rows: 2, max columns: 2" in err.value.error["message"]
    with pytest.raises(APIError, match="exceeds grid limits"):
        ws.update([["e", "f", "g"]], "A1", value_input_option="RAW")
    with pytest.raises(APIError, match=r"but tried writing to row \[2\]"):
        ws.update([["x"], ["y"]], "A1:B1", value_input_option="RAW")

    ws.append_rows(
        [["e", "f", "g"]],
        value_input_option=RAW,
        insert_data_option="INSERT_ROWS",
        table_range="A1",
    )
    assert fake.grid(KEY, "Small") == (3, 3)
    assert fake.values(KEY, "Small") == [["a", "b", ""], ["c", "d", ""], ["e", "f", "g"]]


def test_429_with_retry_after_surfaces_as_api_error(fake, client):
    ws = client.open_by_key(KEY).worksheet("Runs")
    fake.fail(429, retry_after=7, match=":append")

    with pytest.raises(APIError) as err:
        ws.append_rows(
            [["r2", "ok"]],
            value_input_option=RAW,
            insert_data_option="INSERT_ROWS",
            table_range="A1",
        )

    e = err.value
    assert e.code == 429 and e.error["status"] == "RESOURCE_EXHAUSTED"
    assert "Write requests per minute per user" in e.error["message"]
    assert e.response.headers["Retry-After"] == "7"
    assert e.response.headers["content-type"].startswith("application/json")
    assert fake.requests[-1].injected and fake.requests[-1].status == 429
    assert len(fake.values(KEY, "Runs")) == 2  # nothing was written

    ws.get_all_values()  # a read does not match, and the fault was used up anyway
    ws.append_rows(
        [["r2", "ok"]], value_input_option=RAW, insert_data_option="INSERT_ROWS", table_range="A1"
    )
    assert fake.values(KEY, "Runs")[-1] == ["r2", "ok"]
    assert fake.count("values.append") == 2
    assert fake.count("values.append", include_injected=False) == 1


def test_faults_count_down_and_match_any_request_without_match(fake, client):
    fake.fail(503, times=2)
    for _ in range(2):
        with pytest.raises(APIError) as err:
            client.open_by_key(KEY)
        assert err.value.code == 503 and err.value.error["status"] == "UNAVAILABLE"
    assert client.open_by_key(KEY).title == "Briefloop runs"


def test_an_html_502_reaches_gspread_as_code_minus_one(fake, client):
    # Retry code that keys on APIError.code misses these; the status is on the response.
    fake.fail(502, html=True)
    with pytest.raises(APIError) as err:
        client.open_by_key(KEY)
    assert err.value.code == -1
    assert err.value.response.status_code == 502


def test_unshared_and_unknown_keys(fake, client):
    fake.add_spreadsheet("private", shared=False)

    with pytest.raises(PermissionError) as denied:
        client.open_by_key("private")
    cause = denied.value.__cause__
    assert isinstance(cause, APIError) and cause.code == 403
    assert cause.error["message"] == "The caller does not have permission"
    assert cause.error["status"] == "PERMISSION_DENIED"

    with pytest.raises(SpreadsheetNotFound) as missing:
        client.open_by_key("no-such-key")
    assert isinstance(missing.value.__cause__, APIError)
    assert missing.value.__cause__.code == 404
    assert [r.status for r in fake.requests] == [403, 404]


def test_unknown_endpoints_answer_501_naming_the_path(fake, client):
    sheet = client.open_by_key(KEY)
    ws = sheet.worksheet("Runs")

    with pytest.raises(APIError) as err:
        ws.copy_to("elsewhere")
    assert err.value.code == 501
    assert f"POST /v4/spreadsheets/{KEY}/sheets/{ws.id}:copyTo" in err.value.error["message"]

    with pytest.raises(APIError) as err:
        sheet.duplicate_sheet(ws.id)
    assert err.value.code == 501 and "duplicateSheet" in err.value.error["message"]
    assert fake.count("unknown") == 1


def test_drive_metadata_answers_minimally(fake, client):
    sheet = client.open_by_key(KEY)
    assert sheet.creationTime == "2024-01-01T00:00:00.000Z"
    assert calls(fake)[-1] == ("GET", f"/drive/v3/files/{KEY}")


def test_counting_by_kind_and_reset(fake, client):
    sheet = client.open_by_key(KEY)
    ws = sheet.worksheet("Runs")
    ws.get_all_values()
    ws.update([["x"]], "C1", value_input_option="RAW")
    sheet.values_batch_update(
        {"valueInputOption": "RAW", "data": [{"range": "'Runs'!D1", "values": [["y"]]}]}
    )

    assert fake.count() == 5
    assert (fake.count("read"), fake.count("write")) == (3, 2)
    assert (fake.count("get"), fake.count("values.get")) == (2, 1)
    assert (fake.count("values.update"), fake.count("values.batchUpdate")) == (1, 1)

    fake.reset_counts()
    assert fake.count() == 0 and fake.writes == []


def test_concurrent_appends_lose_nothing(fake):
    def worker(n: int) -> None:
        ws = fake.client().open_by_key(KEY).worksheet("Runs")
        for i in range(10):
            ws.append_rows(
                [[f"t{n}-{i}", "ok"]],
                value_input_option=RAW,
                insert_data_option="INSERT_ROWS",
                table_range="A1",
            )

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()

    rows = fake.values(KEY, "Runs")
    assert len(rows) == 42
    assert {r[0] for r in rows[2:]} == {f"t{n}-{i}" for n in range(4) for i in range(10)}
    assert fake.grid(KEY, "Runs") == (1040, 26)


def test_unpaired_surrogates_are_refused_like_google_does(fake, client):
    ws = client.open_by_key(KEY).worksheet("Runs")
    with pytest.raises(APIError) as err:
        ws.update([["lone \ud800"]], "A3", value_input_option=RAW)
    assert err.value.code == 400 and "Invalid JSON payload" in err.value.error["message"]
    ws.update([["pair \U0001f600"]], "A3", value_input_option=RAW)  # a whole character is fine
    assert fake.values(KEY, "Runs")[2][0] == "pair \U0001f600"
