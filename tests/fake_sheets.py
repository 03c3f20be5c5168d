"""An in-process fake of the Google Sheets v4 REST API, mounted as a `requests` adapter.

gspread talks to Google through a `requests.Session`; mounting `FakeSheets` on that session
lets gspread's real client code run unchanged in tests, with no network and no credentials:

    fake = FakeSheets()
    fake.add_spreadsheet("key1", worksheets={"Runs": [["run_id", "status"], ["r1", "ok"]]})
    client = fake.client()                      # gspread.Client(auth=None, session=...)
    ws = client.open_by_key("key1").worksheet("Runs")
    ws.append_rows([["r2", "ok"]], value_input_option="RAW", insert_data_option="INSERT_ROWS",
                   table_range="A1")
    assert fake.values("key1", "Runs")[-1] == ["r2", "ok"]
    assert fake.count("write") == 1

Paths, parameters and answer shapes follow gspread.urls and Google's reference, so what a
test sees is what production would see:

    GET  /v4/spreadsheets/{key}                         spreadsheets.get (metadata only)
    POST /v4/spreadsheets/{key}:batchUpdate             addSheet, deleteSheet,
                                                        updateSheetProperties, appendDimension,
                                                        insertDimension
    GET  /v4/spreadsheets/{key}/values/{range}          values.get
    PUT  /v4/spreadsheets/{key}/values/{range}          values.update
    POST /v4/spreadsheets/{key}/values/{range}:append   values.append
    POST /v4/spreadsheets/{key}/values/{range}:clear    values.clear
    GET  /v4/spreadsheets/{key}/values:batchGet         values.batchGet
    POST /v4/spreadsheets/{key}/values:batchUpdate      values.batchUpdate
    POST /v4/spreadsheets/{key}/values:batchClear       values.batchClear
    GET  https://www.googleapis.com/drive/v3/files/{key}   minimal Drive metadata

Anything else answers 501 naming the method and path (and an unsupported batchUpdate
request names its type), so a test that strays off the modelled surface fails loudly
instead of passing against behaviour Google does not have.

Modelled as Google does it: grids (1000 x 26 by default) that values.update and
values.batchUpdate may not write past ("exceeds grid limits", 400) while values.append grows
them; the 10,000,000-cell workbook limit and the 50,000-character cell limit; the "table"
search of values.append (see `_find_table`: a blank row inside the data moves the append
point up, and a gap in the last row of a whole-sheet append shifts it right, as on Google);
trailing empty cells and rows trimmed from reads; a missing valueInputOption
rejected; text holding an unpaired surrogate (a "\ud800" escape in the JSON body, which is
no Unicode character) rejected with 400 "Invalid JSON payload received" (the rest of the
message is the fake's own); values.batchUpdate and batchUpdate applied all-or-nothing;
unknown keys 404, unshared ones 403.

Not modelled: formulas are never evaluated (a formula cell reads back as its text, and is
recorded in `formulas`), USER_ENTERED recognises only numbers, TRUE/FALSE, a leading
apostrophe and a leading "=" (no dates, currencies, percentages or thousands separators),
named ranges, R1C1 notation, cell formats, and quotas (use `fail` to inject 429s).

Every request is recorded in `requests`; `fail` injects Google-style errors for the next
matching requests. One lock serialises everything, so threads may share a fake.
"""

from __future__ import annotations

import copy
import io
import json
import re
import threading
import zlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from http import HTTPStatus
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

import gspread
import requests
from requests.adapters import BaseAdapter
from requests.structures import CaseInsensitiveDict

SHEETS_BASE = "https://sheets.googleapis.com"
DRIVE_BASE = "https://www.googleapis.com"
SHEETS_PREFIX = "/v4/spreadsheets/"
DRIVE_PREFIX = "/drive/v3/files/"

DEFAULT_ROWS = 1000
DEFAULT_COLS = 26
WORKBOOK_CELL_LIMIT = 10_000_000
CELL_CHAR_LIMIT = 50_000

VALUE_INPUT_OPTIONS = ("RAW", "USER_ENTERED")
INSERT_DATA_OPTIONS = ("OVERWRITE", "INSERT_ROWS")
RENDER_OPTIONS = ("FORMATTED_VALUE", "UNFORMATTED_VALUE", "FORMULA")

READ_KINDS = frozenset({"get", "values.get", "values.batchGet", "drive.get"})

# Google's canonical status names; APIError shows them, and retry code may key on them.
STATUS_NAMES = {
    400: "INVALID_ARGUMENT",
    401: "UNAUTHENTICATED",
    403: "PERMISSION_DENIED",
    404: "NOT_FOUND",
    409: "ABORTED",
    429: "RESOURCE_EXHAUSTED",
    500: "INTERNAL",
    501: "UNIMPLEMENTED",
    503: "UNAVAILABLE",
    504: "DEADLINE_EXCEEDED",
}

DEFAULT_MESSAGES = {
    400: "Invalid request.",
    401: "Request had invalid authentication credentials. Expected OAuth 2 access token, "
    "login cookie or other valid authentication credential.",
    403: "The caller does not have permission",
    404: "Requested entity was not found.",
    409: "The operation was aborted.",
    500: "Internal error encountered.",
    503: "The service is currently unavailable.",
    504: "The service is currently unavailable.",
}

# What Google's front end sends for a 502 instead of JSON; gspread then reports code -1.
HTML_ERROR_PAGE = (
    "<!DOCTYPE html>\n<html lang=en><meta charset=utf-8><title>Error {status} (Server Error)!!1"
    "</title><p><b>{status}.</b> <ins>That's an error.</ins><p>The server encountered a "
    "temporary error and could not complete your request.<p>Please try again in 30 seconds. "
    "<ins>That's all we know.</ins></html>\n"
)

_CELL_RE = re.compile(r"^([A-Za-z]*)([0-9]*)$")
_NUMBER_RE = re.compile(r"^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$")
_BARE_NAME_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_LOOKS_LIKE_CELL_RE = re.compile(r"^(?:[A-Za-z]{1,3}\d+|[Rr]\d*[Cc]\d*)$")
_SURROGATE_RE = re.compile("[\ud800-\udfff]")


class Formula(str):
    """Text entered with USER_ENTERED that starts with "=": a formula on Google."""


@dataclass
class FakeWorksheet:
    """One grid: its properties and its cells (ragged rows; "" is an empty cell)."""

    sheet_id: int
    title: str
    row_count: int = DEFAULT_ROWS
    column_count: int = DEFAULT_COLS
    # Cells keep their type (str, int, float, bool, Formula) so each render option of a
    # read can answer as Google would.
    cells: list[list[Any]] = field(default_factory=list)

    def properties(self, index: int) -> dict[str, Any]:
        return {
            "sheetId": self.sheet_id,
            "title": self.title,
            "index": index,
            "sheetType": "GRID",
            "gridProperties": {"rowCount": self.row_count, "columnCount": self.column_count},
        }

    def get(self, row: int, col: int) -> Any:
        if row < len(self.cells) and col < len(self.cells[row]):
            return self.cells[row][col]
        return ""

    def set(self, row: int, col: int, value: Any) -> None:
        while len(self.cells) <= row:
            self.cells.append([])
        line = self.cells[row]
        if len(line) <= col:
            line.extend([""] * (col + 1 - len(line)))
        line[col] = value


@dataclass
class FakeSpreadsheet:
    key: str
    title: str
    shared: bool = True
    sheets: list[FakeWorksheet] = field(default_factory=list)

    def find(self, title: str) -> FakeWorksheet | None:
        # Google treats sheet names case-insensitively, in ranges and for uniqueness.
        folded = title.casefold()
        return next((s for s in self.sheets if s.title.casefold() == folded), None)

    def by_id(self, sheet_id: Any) -> FakeWorksheet | None:
        return next((s for s in self.sheets if s.sheet_id == sheet_id), None)

    def cell_total(self) -> int:
        return sum(s.row_count * s.column_count for s in self.sheets)

    def new_sheet_id(self, title: str) -> int:
        if not self.sheets:
            return 0  # Google gives a spreadsheet's first sheet gid 0
        used = {s.sheet_id for s in self.sheets}
        # Stable across runs and shaped like Google's (large positive ints).
        candidate = zlib.crc32(f"{self.key}/{title}".encode()) & 0x7FFFFFFF
        while candidate in used:
            candidate += 1
        return candidate


@dataclass(frozen=True)
class RecordedRequest:
    """One request as the fake saw it. `path` is percent-decoded for readability."""

    method: str
    path: str
    params: dict[str, Any]
    json: Any
    kind: str  # e.g. "values.append"; see FakeSheets.count
    status: int
    injected: bool  # answered by a fault from `fail`, not by the model

    @property
    def failed(self) -> bool:
        return self.status >= 400

    @property
    def is_read(self) -> bool:
        return self.kind in READ_KINDS


@dataclass(frozen=True)
class RecordedWrite:
    """A values write attempt (update, append or one entry of a values.batchUpdate)."""

    kind: str
    key: str
    range: str
    value_input_option: str | None
    insert_data_option: str | None
    values: Any
    status: int


@dataclass
class _Fault:
    status: int
    remaining: int
    match: str | None
    retry_after: str | None
    message: str | None
    html: bool


class _Reject(Exception):
    """Answer the current request with a Google-style error."""

    def __init__(self, status: int, message: str, extra: Mapping[str, Any] | None = None):
        super().__init__(message)
        self.status = status
        self.message = message
        self.extra = dict(extra or {})


@dataclass(frozen=True)
class _Range:
    """A parsed A1 range: 0-based inclusive bounds, None meaning "to the grid's edge"."""

    text: str
    sheet: FakeWorksheet
    row: int
    col: int
    last_row: int | None
    last_col: int | None
    single: bool  # one cell: an anchor for writes and a search start for appends


class FakeSheets(BaseAdapter):
    """The fake itself; mount it on a requests.Session (see `session` and `client`)."""

    def __init__(self) -> None:
        super().__init__()
        self._lock = threading.RLock()
        self._books: dict[str, FakeSpreadsheet] = {}
        self._faults: list[_Fault] = []
        self.requests: list[RecordedRequest] = []
        self.writes: list[RecordedWrite] = []
        # Every cell ever entered as a formula, as (key, sheet title, "B7"). Never shrinks,
        # so a test can assert that nothing the code wrote was ever live on Google.
        self.formulas: set[tuple[str, str, str]] = set()

    # ----------------------------------------------------------------- test set-up

    def add_spreadsheet(
        self,
        key: str,
        title: str = "Untitled spreadsheet",
        worksheets: Mapping[str, Iterable[Iterable[Any]]] | None = None,
        *,
        shared: bool = True,
        rows: int = DEFAULT_ROWS,
        cols: int = DEFAULT_COLS,
    ) -> FakeSheets:
        """Register a spreadsheet. Seeded values are stored as text (as RAW would), each
        grid `rows` x `cols` or larger if the seed needs it. `shared=False` makes every
        request for it answer 403, as for a sheet the service account was not given."""
        with self._lock:
            book = FakeSpreadsheet(key=key, title=title, shared=shared)
            self._books[key] = book
            for name, values in (worksheets if worksheets is not None else {"Sheet1": []}).items():
                self.add_worksheet(key, name, values, rows=rows, cols=cols)
        return self

    def add_worksheet(
        self,
        key: str,
        title: str,
        values: Iterable[Iterable[Any]] = (),
        *,
        rows: int = DEFAULT_ROWS,
        cols: int = DEFAULT_COLS,
    ) -> None:
        """Add a worksheet to a registered spreadsheet behind the API's back."""
        with self._lock:
            book = self._books[key]
            if book.find(title) is not None:
                raise ValueError(f"{key} already has a sheet named {title!r}")
            grid = [["" if v is None else str(v) for v in row] for row in values]
            sheet = FakeWorksheet(
                sheet_id=book.new_sheet_id(title),
                title=title,
                row_count=max(rows, len(grid)),
                column_count=max(cols, max((len(r) for r in grid), default=0)),
                cells=grid,
            )
            book.sheets.append(sheet)

    def set_shared(self, key: str, shared: bool) -> None:
        with self._lock:
            self._books[key].shared = shared

    def fail(
        self,
        status: int,
        times: int = 1,
        match: str | None = None,
        retry_after: float | str | None = None,
        message: str | None = None,
        *,
        html: bool = False,
    ) -> FakeSheets:
        """Answer the next `times` requests whose "METHOD /decoded/path" contains `match`
        (any request when None) with `status` and Google's error body, plus a Retry-After
        header when given. Faults queue in order; the model is not touched. `html=True`
        sends the HTML page Google's front end uses for 502s instead of JSON."""
        with self._lock:
            self._faults.append(
                _Fault(
                    status=status,
                    remaining=times,
                    match=match,
                    retry_after=None if retry_after is None else _header_number(retry_after),
                    message=message,
                    html=html,
                )
            )
        return self

    def clear_faults(self) -> None:
        with self._lock:
            self._faults.clear()

    # -------------------------------------------------------------- test read-back

    def values(self, key: str, title: str) -> list[list[str]]:
        """A worksheet as `get_all_values()` shows it: formatted strings, a rectangle as
        wide as the widest row; [] when the sheet is empty."""
        with self._lock:
            sheet = self._sheet(key, title)
            rows = _trim([[_format(v) for v in row] for row in sheet.cells])
            width = max((len(r) for r in rows), default=0)
            return [r + [""] * (width - len(r)) for r in rows]

    def grid(self, key: str, title: str) -> tuple[int, int]:
        """(rowCount, columnCount) of a worksheet."""
        with self._lock:
            sheet = self._sheet(key, title)
            return sheet.row_count, sheet.column_count

    def sheet_titles(self, key: str) -> list[str]:
        with self._lock:
            return [s.title for s in self._books[key].sheets]

    def count(self, kind: str | None = None, *, include_injected: bool = True) -> int:
        """Requests seen. `kind`: None for all; "read" (GETs, Google's read quota) or
        "write" (the rest); or one of "get", "batchUpdate", "values.get", "values.batchGet",
        "values.update", "values.append", "values.clear", "values.batchUpdate",
        "values.batchClear", "drive.get", "unknown"."""
        with self._lock:
            seen = [r for r in self.requests if include_injected or not r.injected]
            if kind is None:
                return len(seen)
            if kind == "read":
                return sum(r.is_read for r in seen)
            if kind == "write":
                return sum(not r.is_read for r in seen)
            return sum(r.kind == kind for r in seen)

    def reset_counts(self) -> None:
        """Forget the request and write logs (not `formulas`, which is an ever-created set)."""
        with self._lock:
            self.requests.clear()
            self.writes.clear()

    # ------------------------------------------------------------------ plumbing

    def session(self) -> requests.Session:
        """A Session with this fake mounted for the Sheets and Drive hosts."""
        s = requests.Session()
        s.mount(SHEETS_BASE, self)
        s.mount(DRIVE_BASE, self)
        return s

    def client(self, http_client: type[gspread.HTTPClient] = gspread.HTTPClient) -> gspread.Client:
        return gspread.Client(auth=None, session=self.session(), http_client=http_client)

    def close(self) -> None:
        pass

    def send(
        self,
        request: requests.PreparedRequest,
        stream: bool = False,
        timeout: Any = None,
        verify: Any = True,
        cert: Any = None,
        proxies: Any = None,
    ) -> requests.Response:
        parts = urlsplit(request.url or "")
        method = (request.method or "GET").upper()
        raw_path = parts.path
        path = unquote(raw_path)
        params = _params(parts.query)
        body = _body(request.body)
        with self._lock:
            kind = _kind(parts.netloc, method, raw_path)
            fault = self._take_fault(f"{method} {path}")
            if fault is not None:
                status, payload, headers = self._fault_answer(fault, method)
                injected = True
            else:
                status, payload, headers = self._answer(
                    parts.netloc, method, raw_path, params, body, kind
                )
                injected = False
            self.requests.append(
                RecordedRequest(
                    method=method,
                    path=path,
                    params=params,
                    json=copy.deepcopy(body),
                    kind=kind,
                    status=status,
                    injected=injected,
                )
            )
        return _response(request, status, payload, headers)

    def _take_fault(self, target: str) -> _Fault | None:
        for fault in self._faults:
            if fault.match is None or fault.match in target:
                fault.remaining -= 1
                if fault.remaining <= 0:
                    self._faults.remove(fault)
                return fault
        return None

    def _fault_answer(self, fault: _Fault, method: str) -> tuple[int, Any, dict[str, str]]:
        headers = {} if fault.retry_after is None else {"Retry-After": fault.retry_after}
        if fault.html:
            return fault.status, HTML_ERROR_PAGE.format(status=fault.status), headers
        message = fault.message or _default_message(fault.status, method)
        extra: dict[str, Any] = {}
        if fault.status == 429:
            # Google's 429 carries an ErrorInfo naming the quota; retry code may read it.
            extra["details"] = [
                {
                    "@type": "type.googleapis.com/google.rpc.ErrorInfo",
                    "reason": "RATE_LIMIT_EXCEEDED",
                    "domain": "googleapis.com",
                    "metadata": {
                        "service": "sheets.googleapis.com",
                        "quota_metric": "sheets.googleapis.com/"
                        + ("read_requests" if method == "GET" else "write_requests"),
                    },
                }
            ]
        return fault.status, _error(fault.status, message, extra), headers

    def _answer(
        self, host: str, method: str, raw_path: str, params: dict[str, Any], body: Any, kind: str
    ) -> tuple[int, Any, dict[str, str]]:
        try:
            if host == "www.googleapis.com":
                return 200, self._drive(method, raw_path), {}
            return 200, self._sheets(method, raw_path, params, body, kind), {}
        except _Reject as r:
            return r.status, _error(r.status, r.message, r.extra), {}

    # ----------------------------------------------------------------- routing

    def _drive(self, method: str, raw_path: str) -> Any:
        rest = raw_path[len(DRIVE_PREFIX) :] if raw_path.startswith(DRIVE_PREFIX) else ""
        if method != "GET" or not rest or "/" in rest:
            raise _unimplemented(method, raw_path)
        key = unquote(rest)
        book = self._books.get(key)
        if book is None or not book.shared:
            # Drive hides files the caller cannot see behind a 404, in its own error shape.
            message = f"File not found: {key}."
            raise _Reject(
                404,
                message,
                {
                    "errors": [
                        {
                            "message": message,
                            "domain": "global",
                            "reason": "notFound",
                            "location": "fileId",
                            "locationType": "parameter",
                        }
                    ]
                },
            )
        return {
            "id": key,
            "name": book.title,
            "createdTime": "2024-01-01T00:00:00.000Z",
            "modifiedTime": "2024-01-01T00:00:00.000Z",
        }

    def _sheets(
        self, method: str, raw_path: str, params: dict[str, Any], body: Any, kind: str
    ) -> Any:
        if kind == "unknown":
            raise _unimplemented(method, raw_path)
        rest = raw_path[len(SHEETS_PREFIX) :]
        key = unquote(re.split(r"[/:]", rest, maxsplit=1)[0])
        book = self._book(key)
        range_text = ""
        if "/values/" in rest:
            segment = rest.split("/values/", 1)[1]
            for suffix in (":append", ":clear"):
                if segment.endswith(suffix):
                    segment = segment[: -len(suffix)]
            range_text = unquote(segment)

        # Every write is applied to a copy, kept only if the whole request succeeds,
        # because Google's batch calls are all-or-nothing.
        if kind in ("get", "values.get", "values.batchGet"):
            return self._read(book, kind, range_text, params)
        work = copy.deepcopy(book)
        formulas: set[tuple[str, str, str]] = set()
        writes: list[RecordedWrite] = []
        try:
            answer = self._write(work, kind, range_text, params, body, formulas, writes)
        except _Reject as r:
            self.writes.extend(_with_status(w, r.status) for w in writes)
            raise
        self._books[key] = work
        self.formulas |= formulas
        self.writes.extend(writes)
        return answer

    def _book(self, key: str) -> FakeSpreadsheet:
        book = self._books.get(key)
        if book is None:
            raise _Reject(404, DEFAULT_MESSAGES[404])
        if not book.shared:
            raise _Reject(403, DEFAULT_MESSAGES[403])
        return book

    def _sheet(self, key: str, title: str) -> FakeWorksheet:
        sheet = self._books[key].find(title)
        if sheet is None:
            raise KeyError(f"{key} has no sheet {title!r}")
        return sheet

    # ------------------------------------------------------------------- reads

    def _read(
        self, book: FakeSpreadsheet, kind: str, range_text: str, params: dict[str, Any]
    ) -> Any:
        if kind == "get":
            return {
                "spreadsheetId": book.key,
                "properties": {
                    "title": book.title,
                    "locale": "en_US",
                    "autoRecalc": "ON_CHANGE",
                    "timeZone": "Etc/GMT",
                },
                "sheets": [{"properties": s.properties(i)} for i, s in enumerate(book.sheets)],
                "spreadsheetUrl": f"https://docs.google.com/spreadsheets/d/{book.key}/edit",
            }
        render = _one(params, "valueRenderOption") or "FORMATTED_VALUE"
        if render not in RENDER_OPTIONS:
            raise _Reject(400, f"Invalid value at 'value_render_option' ({render})")
        major = _one(params, "majorDimension") or "ROWS"
        if kind == "values.get":
            return _value_range(_parse_range(book, range_text), major, render)
        ranges = params.get("ranges") or []
        ranges = [ranges] if isinstance(ranges, str) else ranges
        return {
            "spreadsheetId": book.key,
            "valueRanges": [_value_range(_parse_range(book, r), major, render) for r in ranges],
        }

    # ------------------------------------------------------------------ writes

    def _write(
        self,
        book: FakeSpreadsheet,
        kind: str,
        range_text: str,
        params: dict[str, Any],
        body: Any,
        formulas: set,
        writes: list,
    ) -> Any:
        body = body if isinstance(body, dict) else {}
        if kind == "batchUpdate":
            return self._batch_update(book, body)
        if kind in ("values.clear", "values.batchClear"):
            texts = [range_text] if kind == "values.clear" else list(body.get("ranges") or [])
            cleared = [_clear(_parse_range(book, t)) for t in texts]
            if kind == "values.clear":
                return {"spreadsheetId": book.key, "clearedRange": cleared[0]}
            return {"spreadsheetId": book.key, "clearedRanges": cleared}

        include = _truthy(
            _one(params, "includeValuesInResponse")
            if kind != "values.batchUpdate"
            else body.get("includeValuesInResponse")
        )
        if kind == "values.batchUpdate":
            option = body.get("valueInputOption")
            data = body.get("data") or []
            for item in data:
                writes.append(
                    RecordedWrite(
                        kind,
                        book.key,
                        item.get("range", ""),
                        option,
                        None,
                        copy.deepcopy(item.get("values")),
                        200,
                    )
                )
            option = _input_option(option)
            responses = [
                _update(
                    book,
                    _parse_range(book, item.get("range", "")),
                    item.get("values"),
                    item.get("majorDimension"),
                    option,
                    include,
                    formulas,
                )
                for item in data
            ]
            return {
                "spreadsheetId": book.key,
                "totalUpdatedRows": sum(r.get("updatedRows", 0) for r in responses),
                "totalUpdatedColumns": sum(r.get("updatedColumns", 0) for r in responses),
                "totalUpdatedCells": sum(r.get("updatedCells", 0) for r in responses),
                "totalUpdatedSheets": len(
                    {
                        r["updatedRange"].rpartition("!")[0]
                        for r in responses
                        if r.get("updatedCells")
                    }
                ),
                "responses": responses,
            }

        option = _one(params, "valueInputOption")
        insert = _one(params, "insertDataOption") if kind == "values.append" else None
        writes.append(
            RecordedWrite(
                kind, book.key, range_text, option, insert, copy.deepcopy(body.get("values")), 200
            )
        )
        option = _input_option(option)
        target = _parse_range(book, range_text)
        if kind == "values.update":
            return _update(
                book,
                target,
                body.get("values"),
                body.get("majorDimension"),
                option,
                include,
                formulas,
            )
        insert = insert or "OVERWRITE"
        if insert not in INSERT_DATA_OPTIONS:
            raise _Reject(400, f"Invalid value at 'insert_data_option' ({insert})")
        return _append(
            book,
            target,
            body.get("values"),
            body.get("majorDimension"),
            option,
            insert,
            include,
            formulas,
        )

    def _batch_update(self, book: FakeSpreadsheet, body: Mapping[str, Any]) -> Any:
        requests_ = body.get("requests") or []
        if not requests_:
            raise _Reject(400, "Must specify at least one request.")
        replies = []
        for i, req in enumerate(requests_):
            ((name, spec),) = req.items()
            handler = _BATCH_HANDLERS.get(name)
            if handler is None:
                raise _Reject(501, f"FakeSheets does not implement batchUpdate request {name!r}")
            try:
                replies.append(handler(book, spec))
            except _Reject as r:
                raise _Reject(r.status, f"Invalid requests[{i}].{name}: {r.message}") from None
        return {"spreadsheetId": book.key, "replies": replies}


FakeSheetsAdapter = FakeSheets  # the name the design notes use


# ---------------------------------------------------------------- batchUpdate requests


def _add_sheet(book: FakeSpreadsheet, spec: Mapping[str, Any]) -> dict[str, Any]:
    props = spec.get("properties") or {}
    title = props.get("title")
    if title is None:
        n = len(book.sheets) + 1
        while book.find(f"Sheet{n}") is not None:
            n += 1
        title = f"Sheet{n}"
    if book.find(title) is not None:
        raise _Reject(
            400, f'A sheet with the name "{title}" already exists. Please enter another name.'
        )
    grid = props.get("gridProperties") or {}
    sheet_id = props.get("sheetId")
    if sheet_id is None:
        sheet_id = book.new_sheet_id(title)
    elif book.by_id(sheet_id) is not None:
        raise _Reject(400, f"A sheet with the id {sheet_id} already exists.")
    sheet = FakeWorksheet(
        sheet_id=sheet_id,
        title=title,
        row_count=int(grid.get("rowCount", DEFAULT_ROWS)),
        column_count=int(grid.get("columnCount", DEFAULT_COLS)),
    )
    index = props.get("index")
    index = len(book.sheets) if index is None else max(0, min(int(index), len(book.sheets)))
    book.sheets.insert(index, sheet)
    _check_cell_limit(book)
    return {"addSheet": {"properties": sheet.properties(index)}}


def _delete_sheet(book: FakeSpreadsheet, spec: Mapping[str, Any]) -> dict[str, Any]:
    sheet = _sheet_by_id(book, spec.get("sheetId"))
    if len(book.sheets) == 1:
        raise _Reject(400, "You can't remove all the sheets in a document.")
    book.sheets.remove(sheet)
    return {}


def _update_sheet_properties(book: FakeSpreadsheet, spec: Mapping[str, Any]) -> dict[str, Any]:
    props = spec.get("properties") or {}
    sheet = _sheet_by_id(book, props.get("sheetId"))
    fields = {f.strip().replace(".", "/") for f in str(spec.get("fields", "")).split(",")}
    grid = props.get("gridProperties") or {}
    if "title" in fields or "*" in fields:
        other = book.find(props.get("title", ""))
        if other is not None and other is not sheet:
            raise _Reject(
                400,
                f'A sheet with the name "{props["title"]}" already exists. '
                "Please enter another name.",
            )
        sheet.title = props.get("title", sheet.title)
    if {"gridProperties/rowCount", "gridProperties", "*"} & fields and "rowCount" in grid:
        sheet.row_count = int(grid["rowCount"])
        del sheet.cells[sheet.row_count :]
    if {"gridProperties/columnCount", "gridProperties", "*"} & fields and "columnCount" in grid:
        sheet.column_count = int(grid["columnCount"])
        for row in sheet.cells:
            del row[sheet.column_count :]
    if "index" in fields and "index" in props:
        book.sheets.remove(sheet)
        book.sheets.insert(max(0, min(int(props["index"]), len(book.sheets))), sheet)
    _check_cell_limit(book)
    return {}


def _append_dimension(book: FakeSpreadsheet, spec: Mapping[str, Any]) -> dict[str, Any]:
    sheet = _sheet_by_id(book, spec.get("sheetId"))
    length = int(spec.get("length", 0))
    if spec.get("dimension") == "COLUMNS":
        sheet.column_count += length
    else:
        sheet.row_count += length
    _check_cell_limit(book)
    return {}


def _insert_dimension(book: FakeSpreadsheet, spec: Mapping[str, Any]) -> dict[str, Any]:
    rng = spec.get("range") or {}
    sheet = _sheet_by_id(book, rng.get("sheetId"))
    start, end = int(rng.get("startIndex", 0)), int(rng.get("endIndex", 0))
    n = end - start
    if rng.get("dimension") == "COLUMNS":
        for row in sheet.cells:
            if start < len(row):
                row[start:start] = [""] * n
        sheet.column_count += n
    else:
        sheet.cells[start:start] = [[] for _ in range(n)]
        sheet.row_count += n
    _check_cell_limit(book)
    return {}


_BATCH_HANDLERS = {
    "addSheet": _add_sheet,
    "deleteSheet": _delete_sheet,
    "updateSheetProperties": _update_sheet_properties,
    "appendDimension": _append_dimension,
    "insertDimension": _insert_dimension,
}


def _sheet_by_id(book: FakeSpreadsheet, sheet_id: Any) -> FakeWorksheet:
    sheet = book.by_id(sheet_id)
    if sheet is None:
        raise _Reject(400, f"No grid with id: {sheet_id}")
    return sheet


def _check_cell_limit(book: FakeSpreadsheet) -> None:
    if book.cell_total() > WORKBOOK_CELL_LIMIT:
        raise _Reject(
            400,
            "This action would increase the number of cells in the workbook "
            f"above the limit of {WORKBOOK_CELL_LIMIT} cells.",
        )


# -------------------------------------------------------------------------- ranges


def _col_index(letters: str) -> int:
    n = 0
    for ch in letters.upper():
        n = n * 26 + ord(ch) - ord("A") + 1
    return n - 1


def _col_letters(index: int) -> str:
    letters = ""
    index += 1
    while index:
        index, rem = divmod(index - 1, 26)
        letters = chr(ord("A") + rem) + letters
    return letters


def _a1(row: int, col: int) -> str:
    return f"{_col_letters(col)}{row + 1}"


def _sheet_ref(title: str) -> str:
    # Google quotes a sheet name in the ranges it returns only when it has to.
    if _BARE_NAME_RE.match(title) and not _LOOKS_LIKE_CELL_RE.match(title):
        return title
    return "'" + title.replace("'", "''") + "'"


def _span(sheet: FakeWorksheet, row: int, col: int, last_row: int, last_col: int) -> str:
    if (row, col) == (last_row, last_col):
        return f"{_sheet_ref(sheet.title)}!{_a1(row, col)}"
    return f"{_sheet_ref(sheet.title)}!{_a1(row, col)}:{_a1(last_row, last_col)}"


def _split_sheet_name(text: str) -> tuple[str | None, str | None]:
    """("Runs", "A1:B2") from "'Runs'!A1:B2"; (None, text) when no sheet is named."""
    if text.startswith("'"):
        name, i = [], 1
        while i < len(text):
            if text[i] == "'":
                if text[i + 1 : i + 2] == "'":
                    name.append("'")
                    i += 2
                    continue
                break
            name.append(text[i])
            i += 1
        else:
            raise _unparsable(text)
        rest = text[i + 1 :]
        if not rest:
            return "".join(name), None
        if not rest.startswith("!"):
            raise _unparsable(text)
        return "".join(name), rest[1:]
    if "!" in text:
        name, _, a1 = text.rpartition("!")
        return name, a1
    return None, text


def _parse_a1(a1: str) -> tuple[int, int, int | None, int | None, bool] | None:
    start, colon, end = a1.partition(":")
    m1 = _CELL_RE.match(start)
    if not colon:
        if not m1 or not m1.group(1) or not m1.group(2) or int(m1.group(2)) < 1:
            return None
        r, c = int(m1.group(2)) - 1, _col_index(m1.group(1))
        return r, c, r, c, True
    m2 = _CELL_RE.match(end)
    if not m1 or not m2 or not (start and end):
        return None
    if any(m.group(2) and int(m.group(2)) < 1 for m in (m1, m2)):
        return None
    r1 = int(m1.group(2)) - 1 if m1.group(2) else 0
    c1 = _col_index(m1.group(1)) if m1.group(1) else 0
    r2 = int(m2.group(2)) - 1 if m2.group(2) else None
    c2 = _col_index(m2.group(1)) if m2.group(1) else None
    # Google accepts corners in either order ("B2:A1") and answers the normalised range.
    if r2 is not None and r2 < r1:
        r1, r2 = r2, r1
    if c2 is not None and c2 < c1:
        c1, c2 = c2, c1
    return r1, c1, r2, c2, False


def _parse_range(book: FakeSpreadsheet, text: str) -> _Range:
    name, a1 = _split_sheet_name(text)
    if name is None:
        # A bare name is a sheet if one has it, else A1 notation on the first sheet.
        sheet = book.find(text)
        if sheet is not None:
            a1 = None
        elif book.sheets and _parse_a1(text):
            sheet = book.sheets[0]
        else:
            raise _unparsable(text)
    else:
        sheet = book.find(name)
        if sheet is None:
            raise _unparsable(text)
    if not a1:
        return _Range(text, sheet, 0, 0, None, None, False)
    parsed = _parse_a1(a1)
    if parsed is None:
        raise _unparsable(text)
    r1, c1, r2, c2, single = parsed
    return _Range(text, sheet, r1, c1, r2, c2, single)


def _check_within_grid(rng: _Range) -> None:
    sheet = rng.sheet
    if (
        rng.row >= sheet.row_count
        or rng.col >= sheet.column_count
        or (rng.last_row is not None and rng.last_row >= sheet.row_count)
        or (rng.last_col is not None and rng.last_col >= sheet.column_count)
    ):
        label = rng.text.partition("!")[2] if "!" in rng.text else rng.text
        raise _exceeds(sheet, f"{_sheet_ref(sheet.title)}!{label.upper()}")


def _exceeds(sheet: FakeWorksheet, label: str) -> _Reject:
    return _Reject(
        400,
        f"Range ({label}) exceeds grid limits. Max rows: {sheet.row_count}, "
        f"max columns: {sheet.column_count}",
    )


def _unparsable(text: str) -> _Reject:
    return _Reject(400, f"Unable to parse range: {text}")


# ------------------------------------------------------------------ reads and writes


def _value_range(rng: _Range, major: str, render: str) -> dict[str, Any]:
    _check_within_grid(rng)
    sheet = rng.sheet
    last_row = sheet.row_count - 1 if rng.last_row is None else rng.last_row
    last_col = sheet.column_count - 1 if rng.last_col is None else rng.last_col
    block = [
        [_render(sheet.get(r, c), render) for c in range(rng.col, last_col + 1)]
        for r in range(rng.row, min(last_row + 1, len(sheet.cells)))
    ]
    if major == "COLUMNS":
        width = last_col - rng.col + 1
        block = [[row[c] for row in block] for c in range(width)] if block else []
    answer: dict[str, Any] = {
        "range": _span(sheet, rng.row, rng.col, last_row, last_col),
        "majorDimension": major,
    }
    values = _trim(block)
    if values:
        answer["values"] = values
    return answer


def _trim(block: list[list[Any]]) -> list[list[Any]]:
    # Google drops trailing empty cells of each row and trailing empty rows; empty rows
    # in the middle stay as [].
    rows = []
    for row in block:
        end = len(row)
        while end and row[end - 1] == "":
            end -= 1
        rows.append(row[:end])
    while rows and not rows[-1]:
        rows.pop()
    return rows


def _matrix(values: Any, major: Any) -> list[list[Any]]:
    if values is None:
        return []
    if not isinstance(values, list) or not all(isinstance(r, list) for r in values):
        raise _Reject(400, "Invalid value at 'data.values': expected a list of lists")
    if major == "COLUMNS":
        height = max((len(c) for c in values), default=0)
        return [[c[r] if r < len(c) else None for c in values] for r in range(height)]
    return values


def _write_block(
    book: FakeSpreadsheet,
    sheet: FakeWorksheet,
    row: int,
    col: int,
    matrix: list[list[Any]],
    option: str,
    formulas: set,
) -> int:
    cells = 0
    for i, line in enumerate(matrix):
        for j, value in enumerate(line):
            if value is None:
                continue  # null leaves the cell as it is, as on Google
            stored = _convert(value, option, i, j)
            if isinstance(stored, Formula):
                formulas.add((book.key, sheet.title, _a1(row + i, col + j)))
            sheet.set(row + i, col + j, stored)
            cells += 1
    return cells


def _update(
    book: FakeSpreadsheet,
    rng: _Range,
    values: Any,
    major: Any,
    option: str,
    include: bool,
    formulas: set,
) -> dict[str, Any]:
    sheet = rng.sheet
    matrix = _matrix(values, major)
    height = len(matrix)
    width = max((len(r) for r in matrix), default=0)
    if not rng.single:
        _check_within_grid(rng)
        if rng.last_row is not None and height and rng.row + height - 1 > rng.last_row:
            raise _Reject(
                400,
                f"Requested writing within range [{rng.text}], but tried "
                f"writing to row [{rng.row + height}]",
            )
        if rng.last_col is not None and width and rng.col + width - 1 > rng.last_col:
            raise _Reject(
                400,
                f"Requested writing within range [{rng.text}], but tried "
                f"writing to column [{_col_letters(rng.col + width - 1)}]",
            )
    if rng.row >= sheet.row_count or rng.col >= sheet.column_count:
        raise _exceeds(sheet, f"{_sheet_ref(sheet.title)}!{_a1(rng.row, rng.col)}")
    if (
        height
        and width
        and (rng.row + height > sheet.row_count or rng.col + width > sheet.column_count)
    ):
        raise _exceeds(
            sheet, _span(sheet, rng.row, rng.col, rng.row + height - 1, rng.col + width - 1)
        )
    cells = _write_block(book, sheet, rng.row, rng.col, matrix, option, formulas)
    answer: dict[str, Any] = {"spreadsheetId": book.key}
    if height and width:
        span = _span(sheet, rng.row, rng.col, rng.row + height - 1, rng.col + width - 1)
        answer.update(
            updatedRange=span, updatedRows=height, updatedColumns=width, updatedCells=cells
        )
    else:
        answer["updatedRange"] = _span(sheet, rng.row, rng.col, rng.row, rng.col)
    if include:
        answer["updatedData"] = _value_range(
            _parse_range(book, answer["updatedRange"]), "ROWS", "FORMATTED_VALUE"
        )
    return answer


def _append(
    book: FakeSpreadsheet,
    rng: _Range,
    values: Any,
    major: Any,
    option: str,
    insert: str,
    include: bool,
    formulas: set,
) -> dict[str, Any]:
    sheet = rng.sheet
    _check_within_grid(rng)
    matrix = _matrix(values, major)
    height = len(matrix)
    width = max((len(r) for r in matrix), default=0)

    table = _find_table(rng)
    if table is None:
        row, col = rng.row, rng.col
    else:
        top, left, bottom, right = table
        row, col = bottom + 1, left

    if height:
        if insert == "INSERT_ROWS":
            if row < len(sheet.cells):
                sheet.cells[row:row] = [[] for _ in range(height)]
            sheet.row_count += height
        else:
            # OVERWRITE still adds rows when the data runs off the end of the grid.
            sheet.row_count = max(sheet.row_count, row + height)
        sheet.column_count = max(sheet.column_count, col + width)
        _check_cell_limit(book)
    cells = _write_block(book, sheet, row, col, matrix, option, formulas)

    updates: dict[str, Any] = {"spreadsheetId": book.key}
    if height and width:
        updates.update(
            updatedRange=_span(sheet, row, col, row + height - 1, col + width - 1),
            updatedRows=height,
            updatedColumns=width,
            updatedCells=cells,
        )
        if include:
            updates["updatedData"] = _value_range(
                _parse_range(book, updates["updatedRange"]), "ROWS", "FORMATTED_VALUE"
            )
    answer: dict[str, Any] = {"spreadsheetId": book.key, "updates": updates}
    if table is not None:
        answer["tableRange"] = _span(sheet, *table)
    return answer


def _find_table(rng: _Range) -> tuple[int, int, int, int] | None:
    """The "table" values.append extends, as (top, left, bottom, right), or None.

    Google's rule is undocumented; this reproduces what gspread's recorded tests and issues
    (#537, #603) show. A table is the region around a seed cell grown while any cell on
    its border is non-empty (a spreadsheet's "current region"). A one-cell range seeds at
    that cell and finds no table when the cell is empty, so the data goes there (which
    gspread's insert_rows relies on). A larger range, a whole sheet included, seeds at its
    last non-empty cell (bottom row, then rightmost), so a row with a gap can make the
    next append start in a later column.
    """
    sheet = rng.sheet
    if rng.single:
        if sheet.get(rng.row, rng.col) == "":
            return None
        seed = (rng.row, rng.col)
        top, left, bottom, right = 0, 0, sheet.row_count - 1, sheet.column_count - 1
    else:
        top, left = rng.row, rng.col
        bottom = sheet.row_count - 1 if rng.last_row is None else rng.last_row
        right = sheet.column_count - 1 if rng.last_col is None else rng.last_col
        seed = next(
            (
                (r, c)
                for r in range(min(bottom, len(sheet.cells) - 1), top - 1, -1)
                for c in range(min(right, len(sheet.cells[r]) - 1), left - 1, -1)
                if sheet.cells[r][c] != ""
            ),
            None,
        )
        if seed is None:
            return None
    r1 = r2 = seed[0]
    c1 = c2 = seed[1]

    def any_data(rows: range, cols: range) -> bool:
        return any(sheet.get(r, c) != "" for r in rows for c in cols)

    # Rows first and as far as they go, then columns: a long log table is found in one
    # pass down its rows instead of one cell border per round.
    grew = True
    while grew:
        grew = False
        cols = range(max(left, c1 - 1), min(right, c2 + 1) + 1)
        while r1 > top and any_data(range(r1 - 1, r1), cols):
            r1, grew = r1 - 1, True
        while r2 < bottom and any_data(range(r2 + 1, r2 + 2), cols):
            r2, grew = r2 + 1, True
        rows = range(max(top, r1 - 1), min(bottom, r2 + 1) + 1)
        while c1 > left and any_data(rows, range(c1 - 1, c1)):
            c1, grew = c1 - 1, True
        while c2 < right and any_data(rows, range(c2 + 1, c2 + 2)):
            c2, grew = c2 + 1, True
    return r1, c1, r2, c2


def _clear(rng: _Range) -> str:
    _check_within_grid(rng)
    sheet = rng.sheet
    last_row = sheet.row_count - 1 if rng.last_row is None else rng.last_row
    last_col = sheet.column_count - 1 if rng.last_col is None else rng.last_col
    for r in range(rng.row, min(last_row + 1, len(sheet.cells))):
        line = sheet.cells[r]
        for c in range(rng.col, min(last_col + 1, len(line))):
            line[c] = ""
    return _span(sheet, rng.row, rng.col, last_row, last_col)


def _input_option(option: Any) -> str:
    if option is None or option == "":
        raise _Reject(400, "'valueInputOption' is required but not specified")
    if option not in VALUE_INPUT_OPTIONS:
        raise _Reject(400, f"Invalid value at 'value_input_option' ({option})")
    return str(option)


def _convert(value: Any, option: str, i: int, j: int) -> Any:
    if isinstance(value, bool | int | float):
        return value
    if not isinstance(value, str):
        kind = "struct_value" if isinstance(value, dict) else "list_value"
        raise _Reject(400, f"Invalid values[{i}][{j}]: {kind} {json.dumps(value)}")
    if _SURROGATE_RE.search(value):
        # json.loads takes a lone "\ud800" escape; Google's JSON parser does not.
        raise _Reject(
            400,
            f"Invalid JSON payload received. Invalid values[{i}][{j}]: "
            "unpaired surrogate in a string.",
        )
    if len(value) > CELL_CHAR_LIMIT:
        raise _Reject(
            400,
            f"Your input contains more than the maximum of {CELL_CHAR_LIMIT} "
            "characters in a single cell.",
        )
    if option == "RAW":
        return value
    if value.startswith("=") and len(value) > 1:
        return Formula(value)
    if value.startswith("'"):
        return value[1:]  # the apostrophe forces text and is not part of the value
    stripped = value.strip()
    if _NUMBER_RE.match(stripped):
        number = float(stripped)
        return int(number) if number.is_integer() and abs(number) < 1e15 else number
    if stripped.upper() in ("TRUE", "FALSE"):
        return stripped.upper() == "TRUE"
    return value


def _format(value: Any) -> str:
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return str(int(value)) if value.is_integer() and abs(value) < 1e15 else repr(value)
    return str(value)


def _render(value: Any, render: str) -> Any:
    # Unformatted and formula renders keep numbers and booleans as JSON types, as Google
    # does; formulas are never evaluated here, so every render shows their text.
    if render == "FORMATTED_VALUE" or isinstance(value, str):
        return _format(value)
    return value


# ------------------------------------------------------------------------- HTTP bits


def _kind(host: str, method: str, raw_path: str) -> str:
    if host == "www.googleapis.com":
        return "drive.get" if method == "GET" and raw_path.startswith(DRIVE_PREFIX) else "unknown"
    if host != "sheets.googleapis.com" or not raw_path.startswith(SHEETS_PREFIX):
        return "unknown"
    rest = raw_path[len(SHEETS_PREFIX) :]
    key, sep, tail = rest.partition("/")
    if not sep:
        if ":" in key:
            return "batchUpdate" if key.endswith(":batchUpdate") and method == "POST" else "unknown"
        return "get" if method == "GET" else "unknown"
    table = {
        ("GET", "values:batchGet"): "values.batchGet",
        ("POST", "values:batchUpdate"): "values.batchUpdate",
        ("POST", "values:batchClear"): "values.batchClear",
    }
    if (method, tail) in table:
        return table[(method, tail)]
    if not tail.startswith("values/") or "/" in tail[len("values/") :]:
        return "unknown"
    if tail.endswith(":append"):
        return "values.append" if method == "POST" else "unknown"
    if tail.endswith(":clear"):
        return "values.clear" if method == "POST" else "unknown"
    return {"GET": "values.get", "PUT": "values.update"}.get(method, "unknown")


def _unimplemented(method: str, raw_path: str) -> _Reject:
    return _Reject(501, f"FakeSheets does not implement {method} {unquote(raw_path)}")


def _params(query: str) -> dict[str, Any]:
    parsed = parse_qs(query, keep_blank_values=True)
    return {k: v[0] if len(v) == 1 else v for k, v in parsed.items()}


def _one(params: Mapping[str, Any], name: str) -> str | None:
    value = params.get(name)
    return value[-1] if isinstance(value, list) else value


def _truthy(value: Any) -> bool:
    return value is True or str(value).lower() == "true"


def _body(raw: Any) -> Any:
    if raw is None or raw == b"" or raw == "":
        return None
    text = raw.decode("utf-8") if isinstance(raw, bytes) else raw
    try:
        return json.loads(text)
    except ValueError:
        return text


def _header_number(value: float | str) -> str:
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _default_message(status: int, method: str) -> str:
    if status == 429:
        metric = "Read requests" if method == "GET" else "Write requests"
        return (
            f"Quota exceeded for quota metric '{metric}' and limit '{metric} per minute "
            "per user' of service 'sheets.googleapis.com' for consumer "
            "'project_number:000000000000'."
        )
    if status in DEFAULT_MESSAGES:
        return DEFAULT_MESSAGES[status]
    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return "Error"


def _error(status: int, message: str, extra: Mapping[str, Any] | None = None) -> dict:
    error = {"code": status, "message": message, "status": STATUS_NAMES.get(status, "UNKNOWN")}
    error.update(extra or {})
    return {"error": error}


def _with_status(write: RecordedWrite, status: int) -> RecordedWrite:
    return RecordedWrite(
        write.kind,
        write.key,
        write.range,
        write.value_input_option,
        write.insert_data_option,
        write.values,
        status,
    )


def _response(
    request: requests.PreparedRequest, status: int, payload: Any, headers: Mapping[str, str]
) -> requests.Response:
    if isinstance(payload, str):
        data = payload.encode("utf-8")
        content_type = "text/html; charset=UTF-8"
    else:
        data = json.dumps(payload, indent=2).encode("utf-8")
        content_type = "application/json; charset=UTF-8"
    response = requests.Response()
    response.status_code = status
    response.headers = CaseInsensitiveDict(
        {
            "Content-Type": content_type,
            "Content-Length": str(len(data)),
            **headers,
        }
    )
    response._content = data
    response._content_consumed = True
    response.raw = io.BytesIO(data)
    response.url = request.url or ""
    response.request = request
    response.encoding = "utf-8"
    try:
        response.reason = HTTPStatus(status).phrase
    except ValueError:
        response.reason = ""
    return response
