"""Google Sheets through gspread: the client, bounded retries, briefs in, run log out.

- Credentials: a service-account JSON file (google.credentials or
  $GOOGLE_APPLICATION_CREDENTIALS). Its contents never reach a log, a run record or an
  error message; only its path and the service account's e-mail address do.
- Retries: gspread's plain client does not retry and its BackOffHTTPClient retries
  without bound, so `BoundedRetryClient` retries 408/429/5xx and network faults by the
  one retry policy (batch.retrying: exponential backoff with jitter, Retry-After
  honoured), and gives up after a number of attempts or a total time, whichever comes
  first.
- The sink writes every pending row with a constant number of requests: one metadata
  read, one values read (indexed by run id, never find() per row), at most one batch
  update for changed rows and one append for new rows. Every write is RAW, so text that
  looks like a formula stays text; numbers go as JSON numbers (RAW keeps their type),
  times as their ISO-8601 text, text XML-safe (`cell`).
"""

from __future__ import annotations

import json
import math
import os
import threading
import time
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from pathlib import Path
from typing import Any

import google.auth.exceptions
import gspread
import requests
from gspread.exceptions import APIError, SpreadsheetNotFound, WorksheetNotFound
from gspread.http_client import HTTPClient
from gspread.utils import ValueInputOption, rowcol_to_a1

from batch.config import Google
from batch.errors import BriefloopError, SinkError
from batch.retrying import retrying
from batch.sheets.tables import cut, xml_safe

CELL_LIMIT = 50_000  # Google's limit per cell
RETRY_STATUSES = {408, 429, 500, 502, 503, 504}


class BoundedRetryClient(HTTPClient):
    """gspread's HTTP client with bounded retries (see the module docstring)."""

    settings: Google = Google()
    sleep: Callable[[float], None] = staticmethod(time.sleep)

    def request(self, *args: Any, **kwargs: Any) -> requests.Response:
        method, endpoint = (list(args) + [kwargs.get("method"), kwargs.get("endpoint")])[:2]
        if str(method).upper() == "POST" and ":append" in str(endpoint):
            # Not idempotent: Google may have applied an append whose answer was lost, and
            # a retry would add the rows twice. The rows stay pending; the next sync reads
            # the sheet and updates by key.
            return super().request(*args, **kwargs)
        s = self.settings.retry
        for attempt in retrying(
            s,
            transient,
            asked_wait=lambda e: retry_after(e.response) if isinstance(e, APIError) else None,
            total_seconds=s.total_seconds,
            sleep=self.sleep,
        ):
            with attempt:
                return super().request(*args, **kwargs)
        raise AssertionError("unreachable: the last attempt returns or raises")


def transient(e: BaseException) -> bool:
    """A fault Google may not give again: 408, 429, a 5xx, or the network's."""
    if isinstance(e, APIError):
        # e.code is -1 when the error body is not JSON (Google's HTML 502 page): the
        # HTTP status is what tells a transient fault.
        return status_of(e) in RETRY_STATUSES
    return isinstance(
        e, requests.ConnectionError | requests.Timeout | google.auth.exceptions.TransportError
    )


def status_of(e: APIError) -> int:
    return e.response.status_code if e.response is not None else e.code


def retry_after(response: requests.Response | None) -> float | None:
    value = (response.headers.get("Retry-After") if response is not None else None) or ""
    try:
        return max(0.0, float(value))
    except ValueError:
        return None


def cell(value: Any) -> Any:
    """A value as one cell of a RAW write: a JSON number stays a number; text is cut to
    Google's limit and made XML-safe (Google refuses a lone surrogate, and a sheet
    holding U+FFFE or a control character would export to a broken XLSX file)."""
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)  # JSON has no inf or nan; requests would refuse the whole body
    return xml_safe(cut(value, CELL_LIMIT))


def client_class(settings: Google) -> type[BoundedRetryClient]:
    return type("ConfiguredRetryClient", (BoundedRetryClient,), {"settings": settings})


def credentials_path(settings: Google, environ: dict[str, str] | None = None) -> Path:
    env = os.environ if environ is None else environ
    raw = settings.credentials or env.get("GOOGLE_APPLICATION_CREDENTIALS")
    if not raw:
        raise BriefloopError(
            "no Google credentials: set google.credentials in the config, or "
            "GOOGLE_APPLICATION_CREDENTIALS, to a service-account JSON file"
        )
    return Path(os.path.expanduser(raw))


def open_client(settings: Google, environ: dict[str, str] | None = None) -> gspread.Client:
    path = credentials_path(settings, environ)
    try:
        info = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise BriefloopError(f"Google credentials file {path} does not exist") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        # Name the problem, never the contents.
        raise BriefloopError(
            f"Google credentials file {path} cannot be read as JSON ({e.__class__.__name__})"
        ) from None
    try:
        client = gspread.service_account_from_dict(info, http_client=client_class(settings))
    except (ValueError, KeyError) as e:
        raise BriefloopError(
            f"Google credentials file {path} is not a service-account key "
            f"(missing or bad field: {str(e).split(':')[0]})"
        ) from None
    client.set_timeout(settings.timeout)
    # for error messages
    client.service_account_email = info.get("client_email", "")  # type: ignore[attr-defined]
    return client


def explain(e: APIError | None, key: str, client: gspread.Client, code: int = 0) -> str:
    """One line that says what to do."""
    code = status_of(e) if e is not None else code
    who = getattr(client, "service_account_email", "") or "the service account"
    if code == 403:
        return (
            f"spreadsheet {key}: permission denied; share the sheet with {who} "
            f"(as Editor to write the run log)"
        )
    if code == 404:
        return f"spreadsheet {key} not found: check the key (the long id in the sheet's URL)"
    assert e is not None
    if e.code == 429:
        return f"spreadsheet {key}: Google's rate limit (429) still hit after retries"
    return f"spreadsheet {key}: Google answered {code}: {e.error.get('message', '')}"


def open_spreadsheet(client: gspread.Client, key: str) -> gspread.Spreadsheet:
    # gspread turns 404 and 403 on opening into exceptions of its own (and 403 into the
    # builtin PermissionError): give them the same one-line explanations.
    try:
        return client.open_by_key(key)
    except SpreadsheetNotFound:
        raise BriefloopError(explain(None, key, client, 404)) from None
    except PermissionError:
        raise BriefloopError(explain(None, key, client, 403)) from None


def unreachable(key: str, e: Exception) -> str:
    if isinstance(e, google.auth.exceptions.RefreshError):
        return (
            f"spreadsheet {key}: Google refused the service-account key "
            f"({e.__class__.__name__}); check that the key is still valid"
        )
    return f"spreadsheet {key}: cannot reach Google ({e.__class__.__name__})"


def read_rows(client: gspread.Client, key: str, worksheet: str | None) -> list[list[str]]:
    """All values of a worksheet as text (the briefs source)."""
    try:
        sheet = open_spreadsheet(client, key)
        ws = sheet.worksheet(worksheet) if worksheet else sheet.get_worksheet(0)
        return ws.get_all_values()
    except WorksheetNotFound:
        raise BriefloopError(f"spreadsheet {key} has no worksheet {worksheet!r}") from None
    except APIError as e:
        raise BriefloopError(explain(e, key, client)) from None
    except (requests.RequestException, google.auth.exceptions.GoogleAuthError) as e:
        raise BriefloopError(unreachable(key, e)) from None


class GSheetTable:
    """A Google worksheet as a batch.sheets.tables.Table, created (with header) on first write.

    Straight on gspread's HTTP client: its Spreadsheet and Worksheet objects each fetch
    the metadata again on creation, which would add requests to every sync. A read is
    one metadata request and one values request; a write one batch update and one append.
    """

    def __init__(self, key: str, worksheet: str, client_factory: Callable[[], gspread.Client]):
        self.key = key
        self.worksheet = worksheet
        self._client_factory = client_factory
        self._client: gspread.Client | None = None
        self._exists = False
        self.name = f"gsheet:{key}/{worksheet}"

    @property
    def client(self) -> gspread.Client:
        if self._client is None:
            try:
                self._client = self._client_factory()
            except BriefloopError as e:  # credentials
                raise SinkError(str(e)) from None
        return self._client

    def lock(self) -> AbstractContextManager[None]:
        # Google serialises writes itself; the upsert keys make a concurrent writer
        # harmless (a duplicate appended row is updated with its twin).
        return nullcontext()

    @property
    def quoted(self) -> str:
        return "'" + self.worksheet.replace("'", "''") + "'"

    def _call(self, fn: Callable[[], Any]) -> Any:
        try:
            return fn()
        except APIError as e:
            raise SinkError(explain(e, self.key, self.client)) from None
        except (requests.RequestException, google.auth.exceptions.GoogleAuthError) as e:
            raise SinkError(unreachable(self.key, e)) from None

    def read(self) -> list[list[Any]]:
        http = self.client.http_client
        meta = self._call(lambda: http.fetch_sheet_metadata(self.key))
        titles = {s["properties"]["title"] for s in meta.get("sheets", [])}
        self._exists = self.worksheet in titles
        if not self._exists:
            return []
        return self._call(lambda: http.values_get(self.key, self.quoted)).get("values", [])

    def write(
        self,
        header: list[str],
        updates: dict[int, list[Any]],
        appends: list[list[Any]],
        rewrite_header: bool,
    ) -> None:
        http = self.client.http_client
        if not self._exists:
            self._call(
                lambda: http.batch_update(
                    self.key,
                    {
                        "requests": [
                            {
                                "addSheet": {
                                    "properties": {
                                        "title": self.worksheet,
                                        "gridProperties": {
                                            "rowCount": 100,
                                            "columnCount": max(26, len(header)),
                                        },
                                    }
                                }
                            }
                        ]
                    },
                )
            )
            self._exists = True
        data = (
            [{"range": f"{self.quoted}!A1", "values": [[cell(v) for v in header]]}]
            if rewrite_header
            else []
        )
        data += [
            {
                "range": f"{self.quoted}!{rowcol_to_a1(number, 1)}",
                "values": [[cell(v) for v in row]],
            }
            for number, row in sorted(updates.items())
        ]
        if data:
            self._call(
                lambda: http.values_batch_update(
                    self.key, {"valueInputOption": ValueInputOption.raw, "data": data}
                )
            )
        if appends:
            rows = [[cell(v) for v in row] for row in appends]
            self._call(
                lambda: http.values_append(
                    self.key,
                    f"{self.quoted}!A1",
                    {"valueInputOption": ValueInputOption.raw, "insertDataOption": "INSERT_ROWS"},
                    {"values": rows},
                )
            )


def client_opener(
    settings: Google, factory: Callable[[], gspread.Client] | None = None
) -> Callable[[], gspread.Client]:
    """The one way briefloop gets its Google client: opened on first use (a folder batch
    never needs one) and then shared by every sheet of the process. `factory` replaces
    how it is opened (tests: a client on the fake Sheets API)."""
    opened: list[gspread.Client] = []
    lock = threading.Lock()

    def client() -> gspread.Client:
        with lock:
            if not opened:
                opened.append(factory() if factory is not None else open_client(settings))
            return opened[0]

    return client
