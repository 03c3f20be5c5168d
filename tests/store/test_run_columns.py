"""The run log's columns are declared once (batch.store.run_columns), and everything else
follows from that declaration: the `runs` table, the docs' column reference, the sheets'
headers, how each cell is rendered. A column declared once more shows up in all of them;
only its migration step is written apart, and the migrations test finds it missing."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest
import sqlalchemy as sa

from batch.sheets.run_rows import JSON_CELLS, TIME_FIELDS
from batch.store.run_columns import (
    INTERNAL,
    KINDS,
    NUMBER,
    RUN_COLUMNS,
    TEXT,
    RunColumn,
    names_of,
    sheet_order,
)
from batch.store.runlog import FIELDS, INTERNAL_FIELDS, JSON_FIELDS
from batch.store.schema import RUN_COLUMN_DOCS, runs

from conftest import REPO

# The sheets' headers as users' sheets had them before the lead columns came first: each
# is still written, so such a sheet is laid out again by name, nothing lost.
SHEET_HEADERS = [
    "run_id",
    "thread_id",
    "brief_id",
    "title",
    "source",
    "status",
    "stop_reason",
    "rounds",
    "score",
    "score_history",
    "open_must_fix",
    "needs_from_human",
    "deviations",
    "models",
    "model_calls",
    "input_tokens",
    "output_tokens",
    "model_seconds",
    "seconds",
    "started_at",
    "ended_at",
    "output_path",
    "error",
    "decided_by",
    "decided_at",
    "decision_note",
    "updated_at",
    "uncovered",
    "checklist",
    "verification",
    "hosts",
    "unfinished",
    "retry_of",
    "time_split",
    "judgement",
]


def test_every_column_has_a_description_and_exactly_one_kind():
    for column in RUN_COLUMNS:
        assert column.doc.strip(), column.name
        assert RUN_COLUMN_DOCS[column.name] == column.doc
    by_kind = {kind: names_of(kind) for kind in KINDS}
    kinds_of = {c.name: [k for k, names in by_kind.items() if c.name in names] for c in RUN_COLUMNS}
    assert {name: kinds for name, kinds in kinds_of.items() if len(kinds) != 1} == {}
    assert list(runs.c.keys()) == [c.name for c in RUN_COLUMNS]


def test_a_column_without_a_description_or_with_no_known_kind_is_refused():
    with pytest.raises(ValueError, match="no description"):
        RunColumn("cost", sa.Float, NUMBER, "  ")
    with pytest.raises(ValueError, match="kind"):
        RunColumn("cost", sa.Float, "money", "what the run cost")
    with pytest.raises(ValueError, match="not in the sheets"):
        RunColumn("lease", sa.Integer, INTERNAL, "who holds it", sheet_after="run_id")


def test_the_sheets_keep_the_headers_existing_sheets_have():
    # every column an existing sheet has is still written (a sheet in the older order
    # is laid out again by name: tests/sheets/test_sheets.py), what a person reads a
    # run by first
    assert set(SHEET_HEADERS) <= set(FIELDS)
    assert FIELDS[:5] == ["brief_id", "title", "stop_reason", "status", "judgement"]
    assert TIME_FIELDS == ("started_at", "ended_at", "decided_at", "updated_at")
    assert INTERNAL_FIELDS == ("version", "seq", "batch_id")


def test_sheet_after_places_a_column_and_those_that_follow_it():
    columns = [
        RunColumn("a", sa.Text, TEXT, "a"),
        RunColumn("c", sa.Text, TEXT, "c", sheet_after="b"),
        RunColumn("b", sa.Text, TEXT, "b"),
        RunColumn("d", sa.Text, TEXT, "d", sheet_after="c"),
        RunColumn("x", sa.Text, INTERNAL, "x"),
        RunColumn("e", sa.Text, TEXT, "e"),
    ]
    assert sheet_order(columns) == ["a", "b", "c", "d", "e"]
    with pytest.raises(ValueError, match="do not show"):
        sheet_order([*columns, RunColumn("f", sa.Text, TEXT, "f", sheet_after="x")])


def test_each_json_column_shown_in_words_is_a_json_column():
    assert set(JSON_CELLS) <= JSON_FIELDS


# Declares four more columns, one of each kind, only in RUN_COLUMNS, before anything
# derived from it is imported; then reports where they show up.
ONE_MORE_COLUMN = r"""
import json, sys
from pathlib import Path
import sqlalchemy as sa
from openpyxl import load_workbook
from batch.store.run_columns import INTERNAL, JSON, NUMBER, RUN_COLUMNS, TIME, RunColumn

RUN_COLUMNS.extend([
    RunColumn("cost", sa.Float, NUMBER, "what the run cost", nullable=False,
              server_default="0"),
    RunColumn("tags", sa.Text, JSON, "its tags", nullable=False, server_default="[]"),
    RunColumn("reviewed_at", sa.Text, TIME, "when it was reviewed (UTC)"),
    RunColumn("lease", sa.Integer, INTERNAL, "who holds it"),
])

from batch.sheets import run_rows
from batch.store import runlog, schema

new = ["cost", "tags", "reviewed_at", "lease"]
folder = Path(sys.argv[1])
out = {
    "table": {n: [type(schema.runs.c[n].type).__name__, schema.runs.c[n].nullable,
                  getattr(schema.runs.c[n].server_default, "arg", None)] for n in new},
    "docs": {n: schema.RUN_COLUMN_DOCS[n] for n in new},
    "reference": [line for line in runlog.column_reference().splitlines()
                  if any(f"`{n}`" in line for n in new)],
    "fields_tail": runlog.FIELDS[-3:],
    "internal": list(runlog.INTERNAL_FIELDS),
    "json": "tags" in runlog.JSON_FIELDS,
    "number": "cost" in run_rows.NUMBER_FIELDS,
    "time": "reviewed_at" in run_rows.TIME_FIELDS,
}
row = run_rows.row_for({"run_id": "r1", "cost": "12.5", "tags": ["a", "ü"],
                        "reviewed_at": "2024-05-01T10:00:00+00:00", "lease": 7})
out["row_tail"] = row[-3:]
out["row_length"] = [len(row), len(runlog.FIELDS)]
sink = run_rows.XlsxSink(folder / "runs.xlsx")
sink.upsert([{"run_id": "r1", "cost": "12.5", "reviewed_at": "2024-05-01T10:00:00+00:00"}])
ws = load_workbook(folder / "runs.xlsx")["Runs"]
cells = dict(zip([c.value for c in ws[1]], [c.value for c in ws[2]], strict=True))
out["xlsx"] = [type(cells["cost"]).__name__, type(cells["reviewed_at"]).__name__]

# a database made by the migrations as they are has no such column ...
engine = sa.create_engine(f"sqlite:///{folder / 'runs.sqlite'}")
schema.migrate(engine)
out["without_step"] = sorted(set(schema.runs.c.keys())
                             - {c["name"] for c in sa.inspect(engine).get_columns("runs")})
engine.dispose()
# ... until its step is added at the end: then that database has it too
schema.MIGRATIONS.append(lambda conn: schema._add_columns(conn, schema.runs, *new))
with runlog.RunLog(folder / "runs.sqlite") as log:
    made = log.upsert("t1", cost=2.5, tags=["x"], reviewed_at="2024-05-01T10:00:00+00:00")
    out["stored"] = [made["cost"], made["tags"], made["reviewed_at"], made["lease"]]
print(json.dumps(out))
"""


def test_a_column_declared_once_is_in_the_table_the_docs_the_sheets_and_its_kind(tmp_path):
    done = subprocess.run(
        [sys.executable, "-c", ONE_MORE_COLUMN, str(tmp_path)],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["table"] == {
        "cost": ["Float", False, "0"],
        "tags": ["Text", False, "[]"],
        "reviewed_at": ["Text", True, None],
        "lease": ["Integer", True, None],
    }
    assert out["docs"] == {
        "cost": "what the run cost",
        "tags": "its tags",
        "reviewed_at": "when it was reviewed (UTC)",
        "lease": "who holds it",
    }
    assert out["reference"] == [
        "| `cost` | what the run cost |",
        "| `tags` | its tags (JSON list) |",
        "| `reviewed_at` | when it was reviewed (UTC) |",
        "| `lease` | who holds it; not in the sheets |",
    ]
    # the shown ones follow the headers users' sheets have; the internal one is left out
    assert out["fields_tail"] == ["cost", "tags", "reviewed_at"]
    assert out["internal"] == ["version", "seq", "batch_id", "lease"]
    assert out["json"] and out["number"] and out["time"]
    assert out["row_tail"] == [12.5, '["a", "ü"]', "2024-05-01T10:00:00+00:00"]
    assert out["row_length"][0] == out["row_length"][1] == len(SHEET_HEADERS) + 3
    assert out["xlsx"] == ["float", "datetime"]
    assert out["without_step"] == ["cost", "lease", "reviewed_at", "tags"]
    assert out["stored"] == [2.5, ["x"], "2024-05-01T10:00:00+00:00", None]


def runlog_writes(package: Path) -> list[str]:
    """Every `<...>.runlog.upsert(...)` / `runlog.upsert(...)` call in `package`."""
    found = []
    for path in sorted(package.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr == "upsert"
            ):
                owner = node.func.value
                name = owner.attr if isinstance(owner, ast.Attribute) else getattr(owner, "id", "")
                if name in ("runlog", "_runlog"):
                    found.append(f"{path.relative_to(package.parent)}:{node.lineno}")
    return found


def test_one_module_writes_run_log_rows():
    """batch.run.recorder is the one writer: each way a run moves is a method there."""
    package = Path(__file__).resolve().parents[2] / "batch"
    writers = {w.split(":")[0] for w in runlog_writes(package)}
    assert writers == {"batch/run/recorder.py"}, runlog_writes(package)
