"""What a batch (or a review command) works with, opened once and closed once.

The models (built on first use), the run log, the checkpointer and the graph over it,
the process's one Google client (opened on first use) and the run-log views built on
it. The runner (batch.runner) uses these; it opens nothing itself.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path

import gspread
from langgraph.checkpoint.sqlite import SqliteSaver

from batch.config import Settings
from batch.graph import build_graph
from batch.gsheets import client_opener
from batch.models import ModelSet, RoleModel
from batch.nodes import Nodes
from batch.runlog import RunLog
from batch.sheets import SheetSink
from batch.sync import make_sinks


def open_checkpointer(path: Path) -> SqliteSaver:
    path.parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(path, check_same_thread=False, timeout=30)
    saver = SqliteSaver(conn)
    saver.setup()  # turns on WAL
    # In WAL mode, NORMAL keeps every commit through a process crash (kill -9): only an
    # OS crash or power cut can lose the last few, which a rerun then repeats. FULL
    # (the default) fsyncs every checkpoint and was the largest cost of a batch.
    conn.execute("PRAGMA synchronous = NORMAL")
    return saver


class Resources:
    """`models` replaces configured models by role and `google_client` how the Google
    client is opened (tests)."""

    def __init__(self, settings: Settings,
                 models: dict[str, RoleModel | None] | None = None,
                 google_client: Callable[[], gspread.Client] | None = None):
        self.settings = settings
        self.models = ModelSet(settings.models, settings.path(settings.paths.model_cache),
                               ready=models)
        self.runlog = RunLog(settings.runs_db_path)
        try:
            self.checkpointer = open_checkpointer(settings.checkpoint_path)
        except BaseException:
            self.runlog.close()
            raise
        self.nodes = Nodes(models=self.models, output_dir=settings.output_dir,
                           critic_mode=settings.models.critic_mode)
        self.graph = build_graph(self.nodes, settings.retry, self.checkpointer)
        self.google = client_opener(settings.google, google_client)
        self.sinks: list[SheetSink] = make_sinks(settings, self.google)

    @property
    def lock_dir(self) -> Path:
        return self.settings.checkpoint_path.parent / "locks"

    def close(self) -> None:
        try:
            self.runlog.close()
        finally:
            self.checkpointer.conn.close()

    def __enter__(self) -> Resources:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
