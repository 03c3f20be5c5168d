"""The nightly job: pull review answers, run the batch, publish what waits for a person.

The batch itself (batch.runner) knows nothing of the review sheet; this module puts the
three steps in order, so `briefloop run` and the scheduler do exactly the same thing.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import gspread

from batch import review_sheet
from batch.config import Settings
from batch.errors import BriefloopError
from batch.models import RoleModel
from batch.runner import Batch, BatchSummary, Progress


def run_job(settings: Settings, source: str | Path, *, rerun: bool = False,
            concurrency: int | None = None, progress: Progress | None = None,
            models: dict[str, RoleModel | None] | None = None, strict: bool = False,
            google_client: Callable[[], gspread.Client] | None = None) -> BatchSummary:
    with Batch(settings, models=models, progress=progress, strict=strict,
               google_client=google_client) as batch:
        table = review_sheet.review_table(settings, batch.google)
        pulled: list[review_sheet.Pulled] = []
        warnings: list[str] = []
        if table is not None:
            try:
                pulled = review_sheet.pull(batch, table)
            except BriefloopError as e:  # the sheet is unreachable: tonight's work goes on
                warnings.append(f"review answers not pulled from {table.name}: {e}")
        summary = batch.run(source, rerun=rerun, concurrency=concurrency)
        if table is not None:
            try:
                review_sheet.publish(batch, table)
            except BriefloopError as e:
                warnings.append(f"review rows not written to {table.name}: {e}")
        summary.pulled = pulled
        summary.warnings += warnings
        return summary


def pull_reviews(settings: Settings,
                 google_client: Callable[[], gspread.Client] | None = None
                 ) -> list[review_sheet.Pulled]:
    """Act on the answers in the review sheet, then list what waits now."""
    with Batch(settings, google_client=google_client) as batch:
        table = review_sheet.review_table(settings, batch.google)
        if table is None:
            raise BriefloopError("no review sheet: set log.format to xlsx or csv, or "
                                 "configure [log.gsheet]")
        results = review_sheet.pull(batch, table)
        review_sheet.publish(batch, table)
        batch.sync()
        return results
