"""What a batch (or a review command) works with, opened once and closed once.

The models (built on first use), the run log, the checkpointer and the graph over it,
the process's one Google client (opened on first use) and the run-log views built on
it. The runner (batch.run.runner) uses these; it opens nothing itself.
"""

from __future__ import annotations

from collections.abc import Callable

import gspread

from batch.config import Settings
from batch.loop.graph import build_graph
from batch.loop.nodes import Nodes
from batch.models import ModelSet, RoleModel
from batch.sheets.google import client_opener
from batch.sheets.run_rows import RunLogSink
from batch.sheets.sync import make_sinks
from batch.store.backends import open_store
from batch.store.runlog import RunLog


class Resources:
    """`models` replaces configured models by role and `google_client` how the Google
    client is opened (tests)."""

    def __init__(
        self,
        settings: Settings,
        models: dict[str, RoleModel | None] | None = None,
        google_client: Callable[[], gspread.Client] | None = None,
    ):
        self.settings = settings
        self.store = open_store(settings)
        gate = self.store.model_slots() if settings.cluster.shared_max_parallel else None
        self.models = ModelSet(
            settings.models, settings.path(settings.paths.model_cache), ready=models, gate=gate
        )
        self.runlog: RunLog = self.store.runlog
        try:
            self.checkpointer = self.store.checkpointer
        except BaseException:
            self.store.close()
            raise
        self.nodes = Nodes(
            models=self.models,
            output_dir=settings.output_dir,
            critic_mode=settings.models.critic_mode,
            replaced_by=self._replaced_by,
        )
        self.graph = build_graph(self.nodes, settings.retry, self.checkpointer)
        self.google = client_opener(settings.google, google_client)
        self.sinks: list[RunLogSink] = make_sinks(settings, self.google)

    def _replaced_by(self, thread_id: str) -> str | None:
        newer = self.runlog.latest_retry(thread_id) or self.runlog.newer_of_brief(thread_id)
        return newer["thread_id"] if newer else None

    def close(self) -> None:
        self.store.close()

    def __enter__(self) -> Resources:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
