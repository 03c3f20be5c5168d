"""Send the run log's outbox to every configured spreadsheet view.

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
from batch.runlog import RunLog
from batch.sheets import CsvSink, SheetSink, XlsxSink


@dataclass(frozen=True)
class SyncResult:
    sink: str
    sent: int
    pending: int  # left unsent (all of them when the sink failed)
    error: str | None = None


def make_sinks(settings: Settings,
               google_client: Callable[[], gspread.Client] | None = None) -> list[SheetSink]:
    sinks: list[SheetSink] = []
    log = settings.log
    if log.format == "csv":
        sinks.append(CsvSink(settings.path(log.path)))
    elif log.format == "xlsx":
        sinks.append(XlsxSink(settings.path(log.path), log.worksheet))
    if log.gsheet is not None:
        from batch.gsheets import GSheetSink, open_client

        factory = google_client or (lambda: open_client(settings.google))
        sinks.append(GSheetSink(log.gsheet, factory))
    return sinks


def sync_sink(runlog: RunLog, sink: SheetSink) -> SyncResult:
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


def sync_all(runlog: RunLog, sinks: list[SheetSink]) -> list[SyncResult]:
    return [sync_sink(runlog, sink) for sink in sinks]
