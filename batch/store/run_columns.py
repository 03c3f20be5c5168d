"""The run log's columns, each declared once: its SQL type and constraints, what kind of
value it holds, and what it holds in words.

The `runs` table (batch.store.schema), the columns' reference in docs/run-log.md, the
sheets' headers and how each cell is rendered (batch.sheets.run_rows) are all derived
from RUN_COLUMNS. A new column is one more RunColumn at the end of it, and one more
migration step at the end of batch.store.schema.MIGRATIONS (tests/store/test_store.py fails
while the step is missing).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import KW_ONLY, dataclass
from typing import Any

import sqlalchemy as sa

# What a column holds. Shown in the sheets: TEXT as it is, JSON (a list or object, stored
# as TEXT on both engines: the run log is read whole, never queried inside a JSON value),
# NUMBER (a count or seconds: a number cell), TIME (ISO-8601 UTC text: a date-time cell in
# XLSX). INTERNAL: the run log's own bookkeeping, left out of the sheets.
TEXT, JSON, NUMBER, TIME, INTERNAL = "text", "json", "number", "time", "internal"
KINDS = (TEXT, JSON, NUMBER, TIME, INTERNAL)


@dataclass(frozen=True)
class RunColumn:
    name: str
    sql_type: type[sa.types.TypeEngine]
    kind: str
    doc: str  # one line of docs/run-log.md's column reference
    _: KW_ONLY
    nullable: bool = True
    server_default: str | None = None
    index: bool = False
    primary_key: bool = False
    unique: bool = False
    # The sheets' column this one follows, where the sheets' order is not the table's:
    # existing sheets have their headers in that order, and a changed order would rewrite
    # them.
    sheet_after: str | None = None

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"run column {self.name}: kind {self.kind!r} is not one of {KINDS}")
        if not self.doc.strip():
            raise ValueError(f"run column {self.name}: no description")
        if self.sheet_after and not self.shown:
            raise ValueError(f"run column {self.name}: not in the sheets, so in no order there")

    @property
    def shown(self) -> bool:
        return self.kind != INTERNAL

    def sa_column(self) -> sa.Column:
        flags: dict[str, Any] = {
            k: True for k in ("primary_key", "unique", "index") if getattr(self, k)
        }
        if not self.nullable:
            flags["nullable"] = False
        if self.server_default is not None:
            flags["server_default"] = self.server_default
        return sa.Column(self.name, self.sql_type, **flags)


# In the table's order, which is the order the migrations added them in.
RUN_COLUMNS: list[RunColumn] = [
    RunColumn(
        "run_id",
        sa.Text,
        TEXT,
        "the run's id: the key each sheet row is upserted by",
        primary_key=True,
        nullable=False,
    ),
    RunColumn(
        "thread_id",
        sa.Text,
        TEXT,
        "the LangGraph thread (`briefloop run THREAD`, `review answer THREAD`)",
        nullable=False,
        unique=True,
    ),
    RunColumn(
        "brief_id",
        sa.Text,
        TEXT,
        "the brief's id (front matter `id`, the file's name, or the sheet's `id`)",
        nullable=False,
        index=True,
    ),
    RunColumn("title", sa.Text, TEXT, "the brief's title", nullable=False, server_default=""),
    RunColumn(
        "source",
        sa.Text,
        TEXT,
        "where the brief came from: its file, or `sheet.csv row 7`",
        nullable=False,
        server_default="",
    ),
    RunColumn(
        "status",
        sa.Text,
        TEXT,
        "`running`, `awaiting_human`, `finished`, `failed`, or `stopped` (part way, "
        "when the batch's hours ran out; the next run resumes it)",
        nullable=False,
        index=True,
    ),
    RunColumn(
        "stop_reason",
        sa.Text,
        TEXT,
        "why the loop stopped: `approved`, `max_rounds`, `no_progress`, `budget` (its "
        "model seconds spent), `held` (the checks cannot vouch for it and no person was "
        "to be asked), `error`, `approved_by_human`, `rejected_by_human`; "
        "`awaiting_human` while it waits",
    ),
    RunColumn(
        "rounds", sa.Integer, NUMBER, "writer–critic rounds run", nullable=False, server_default="0"
    ),
    RunColumn("score", sa.Float, NUMBER, "the code's score (0–100) of the text the run stands for"),
    RunColumn(
        "score_history",
        sa.Text,
        JSON,
        "the score of every round, in order",
        nullable=False,
        server_default="[]",
    ),
    RunColumn(
        "open_must_fix",
        sa.Text,
        JSON,
        "the findings that still block approval",
        nullable=False,
        server_default="[]",
    ),
    RunColumn(
        "needs_from_human",
        sa.Text,
        JSON,
        "the placeholders a person still has to fill",
        nullable=False,
        server_default="[]",
    ),
    RunColumn(
        "deviations",
        sa.Text,
        JSON,
        "critique points the writer rejected on purpose, with its reasons",
        nullable=False,
        server_default="[]",
    ),
    RunColumn(
        "models", sa.Text, JSON, "the model of each role", nullable=False, server_default="{}"
    ),
    RunColumn(
        "model_calls", sa.Integer, NUMBER, "model calls made", nullable=False, server_default="0"
    ),
    RunColumn(
        "input_tokens",
        sa.Integer,
        NUMBER,
        "prompt tokens, all calls",
        nullable=False,
        server_default="0",
    ),
    RunColumn(
        "output_tokens",
        sa.Integer,
        NUMBER,
        "generated tokens, all calls",
        nullable=False,
        server_default="0",
    ),
    RunColumn(
        "model_seconds",
        sa.Float,
        NUMBER,
        "seconds spent in model calls",
        nullable=False,
        server_default="0",
    ),
    RunColumn(
        "seconds", sa.Float, NUMBER, "wall seconds of the run", nullable=False, server_default="0"
    ),
    RunColumn("started_at", sa.Text, TIME, "when the run started (UTC)", nullable=False),
    RunColumn("ended_at", sa.Text, TIME, "when it ended (UTC); empty while it runs or waits"),
    RunColumn("output_path", sa.Text, TEXT, "the text written to `output/`"),
    RunColumn("error", sa.Text, TEXT, "the error of a failed run, in one line"),
    RunColumn(
        "updated_at",
        sa.Text,
        TIME,
        "the row's last change (UTC)",
        nullable=False,
        sheet_after="decision_note",
    ),
    RunColumn(
        "version",
        sa.Integer,
        INTERNAL,
        "bumped by every change; a sheet has the run once it holds this version",
        nullable=False,
        server_default="1",
    ),
    RunColumn("decided_by", sa.Text, TEXT, "who approved, rejected or sent back the text"),
    RunColumn("decided_at", sa.Text, TIME, "when they did (UTC)"),
    RunColumn(
        "decision_note",
        sa.Text,
        TEXT,
        "their reason or notes; an approval over the checks' findings says so",
    ),
    RunColumn(
        "checklist",
        sa.Text,
        JSON,
        "what the brief asks, as the code checks it (`R1 fact: …`)",
        nullable=False,
        server_default="[]",
        sheet_after="uncovered",
    ),
    RunColumn(
        "uncovered",
        sa.Text,
        JSON,
        "the checklist items the text misses",
        nullable=False,
        server_default="[]",
    ),
    RunColumn(
        "verification",
        sa.Text,
        TEXT,
        "what running an API doc's examples verified, or why nothing was run",
        nullable=False,
        server_default="",
    ),
    # nanoseconds, so that starts within one second are ordered too (newer_of_brief)
    RunColumn(
        "seq",
        sa.BigInteger,
        INTERNAL,
        "the start order across processes and machines",
        nullable=False,
        server_default="0",
    ),
    RunColumn(
        "hosts",
        sa.Text,
        JSON,
        "which model host served each call, in order (`writer@http://gpu-1:11434`)",
        nullable=False,
        server_default="[]",
    ),
    # unset for a run from before batches were kept with their runs
    RunColumn(
        "batch_id",
        sa.Integer,
        INTERNAL,
        "the batch that last ran the thread (the runs page groups by it)",
        index=True,
    ),
    RunColumn(
        "unfinished",
        sa.Text,
        TEXT,
        "why the machine could not finish the text "
        "(`max_rounds`, `no_progress`, `budget`, `held`), while it waits for a person and "
        "after",
    ),
    RunColumn(
        "retry_of",
        sa.Text,
        TEXT,
        "the thread this run is a new attempt of (`review retry`)",
        index=True,
    ),
    RunColumn(
        "time_split",
        sa.Text,
        JSON,
        "where the run's time went, in seconds: model "
        "time of the first draft, the repairs and rewrites, the critic and the "
        "finalizer; the seconds an API doc's examples took to run in the sandbox; and "
        "the other code checks",
        nullable=False,
        server_default="{}",
    ),
    RunColumn(
        "judgement",
        sa.Text,
        JSON,
        "why the text is where it is: the record the checks made of it (the checks that "
        "ran and their units, their findings, the code score, each sentence's checklist "
        "items and the words it adds, and a fingerprint of the checks' code)",
        nullable=False,
        server_default="{}",
    ),
]


def runs_table(metadata: sa.MetaData, columns: Iterable[RunColumn] = RUN_COLUMNS) -> sa.Table:
    return sa.Table("runs", metadata, *(c.sa_column() for c in columns))


def column_docs(columns: Iterable[RunColumn] = RUN_COLUMNS) -> dict[str, str]:
    return {c.name: c.doc for c in columns}


# What a person reads a run by, first in every sheet: which brief, how it ended and why,
# what it still needs, and where its text is. The ids and the bookkeeping follow.
SHEET_LEAD = (
    "brief_id",
    "title",
    "stop_reason",
    "status",
    "judgement",
    "error",
    "score",
    "needs_from_human",
    "output_path",
    "decided_by",
    "started_at",
)
# Columns for whoever looks into a run's cost or its machinery: an XLSX folds them away
# (a column group, collapsed; a click on its "+" shows them).
SHEET_DETAIL = frozenset(
    {
        "run_id",
        "thread_id",
        "models",
        "model_calls",
        "input_tokens",
        "output_tokens",
        "model_seconds",
        "hosts",
        "time_split",
        "updated_at",
        "verification",
        "retry_of",
        "checklist",
        "score_history",
        "deviations",
    }
)


def sheet_order(columns: Iterable[RunColumn] = RUN_COLUMNS) -> list[str]:
    """The shown columns in the sheets' order: SHEET_LEAD first, then the table's, but
    for those placed `sheet_after` another."""
    columns = list(columns)
    shown = {c.name for c in columns if c.shown}
    following: dict[str, list[str]] = {}
    for c in columns:
        if c.sheet_after:
            if c.sheet_after not in shown:
                raise ValueError(
                    f"run column {c.name} follows {c.sheet_after!r}, which the sheets do not show"
                )
            following.setdefault(c.sheet_after, []).append(c.name)
    order: list[str] = []

    def place(name: str) -> None:
        order.append(name)
        for after in following.get(name, []):
            place(after)

    for c in columns:
        if c.shown and not c.sheet_after:
            place(c.name)
    lead = [n for n in SHEET_LEAD if n in order]
    return lead + [n for n in order if n not in lead]


def names_of(kind: str, columns: Iterable[RunColumn] = RUN_COLUMNS) -> list[str]:
    """The columns of one kind, in the sheets' order (the table's for INTERNAL)."""
    columns = list(columns)
    kinds = {c.name: c.kind for c in columns}
    names = [c.name for c in columns] if kind == INTERNAL else sheet_order(columns)
    return [n for n in names if kinds[n] == kind]


def _check(columns: list[RunColumn]) -> None:
    names = [c.name for c in columns]
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise ValueError(f"run columns declared twice: {twice}")
    if sorted(sheet_order(columns)) != sorted(c.name for c in columns if c.shown):
        raise ValueError("run columns placed after each other round a circle in the sheets")


_check(RUN_COLUMNS)
