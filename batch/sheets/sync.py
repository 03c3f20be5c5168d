"""The spreadsheet views: every sink and the review table built here, and the run
log's outbox sent to every sink.

SQLite is the record. A sink that fails (locked file, network, 429, auth) keeps its
rows pending and the batch goes on; the next sync sends them. Rows are marked synced
with the version that was sent, so a run that changed meanwhile stays pending.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import gspread

from batch.config import Settings
from batch.errors import SinkError
from batch.sheets.google import GSheetTable
from batch.sheets.run_rows import CsvSink, GSheetSink, RunLogSink, XlsxSink
from batch.sheets.tables import CsvTable, Table, XlsxTable
from batch.store.runlog import RunLog


@dataclass(frozen=True)
class SyncResult:
    sink: str
    sent: int
    pending: int  # left unsent (all of them when the sink failed)
    error: str | None = None


def make_sinks(settings: Settings, google: Callable[[], gspread.Client]) -> list[RunLogSink]:
    """Every run-log view the config asks for; `google` is the process's shared client
    (batch.sheets.google.client_opener)."""
    sinks: list[RunLogSink] = []
    log = settings.log
    if log.format == "csv":
        sinks.append(CsvSink(settings.path(log.path)))
    elif log.format == "xlsx":
        sinks.append(XlsxSink(settings.path(log.path), log.worksheet, settings.notify.review_page))
    if log.gsheet is not None:
        sinks.append(GSheetSink(log.gsheet, google))
    return sinks


def review_table(settings: Settings, google: Callable[[], gspread.Client]) -> Table | None:
    """Where people answer waiting threads: the shared Google sheet when one is
    configured, else the local workbook (CSV: a -review.csv beside it)."""
    log = settings.log
    if log.gsheet is not None:
        return GSheetTable(log.gsheet.spreadsheet, log.review_worksheet, google)
    path = settings.path(log.path)
    if log.format == "xlsx":
        return XlsxTable(path, log.review_worksheet)
    if log.format == "csv":
        return CsvTable(path.with_name(f"{path.stem}-review.csv"))
    return None


def sync_sink(runlog: RunLog, sink: RunLogSink) -> SyncResult:
    pending = runlog.pending(sink.name)
    if not pending:
        return SyncResult(sink.name, 0, 0)
    try:
        sink.upsert(pending)
    except (SinkError, OSError) as e:
        return SyncResult(sink.name, 0, len(pending), str(e))
    except Exception as e:  # noqa: BLE001 - whatever breaks a view must not break the batch
        return SyncResult(sink.name, 0, len(pending), f"{e.__class__.__name__}: {e}")
    runlog.mark_synced(sink.name, pending)
    return SyncResult(sink.name, len(pending), 0)


def sync_all(runlog: RunLog, sinks: list[RunLogSink]) -> list[SyncResult]:
    return [sync_sink(runlog, sink) for sink in sinks]
