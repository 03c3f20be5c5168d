"""What the docs say of the code is generated from it, and stays so: a test fails
when the committed text and the code differ (`UPDATE_DOCS=1` rewrites it, as
UPDATE_PROMPTS does the prompt snapshots)."""

from __future__ import annotations

import os
from pathlib import Path

from cogapp import Cog

from batch.store.runlog import FIELDS, INTERNAL_FIELDS
from batch.store.schema import runs

REPO = Path(__file__).resolve().parents[2]
# the files with generated blocks: `[[[cog ... ]]]` runs the code, up to `[[[end]]]` is its output
GENERATED = ["README.md", "docs/configuration.md", "docs/how-it-works.md", "docs/run-log.md"]


def test_the_generated_blocks_of_the_docs_are_the_codes(monkeypatch):
    monkeypatch.chdir(REPO)
    update = os.environ.get("UPDATE_DOCS") == "1"
    status = Cog().main(["cog", *(["-r"] if update else ["--check", "--diff"]), *GENERATED])
    assert status == 0, "run UPDATE_DOCS=1 pytest tests/project/test_docs.py"


def test_every_run_log_column_is_in_the_sheets_or_named_internal_once():
    names = [*FIELDS, *INTERNAL_FIELDS]
    assert len(names) == len(set(names))
    assert set(names) == set(runs.c.keys())


def test_every_stop_reason_has_its_cell_colour_in_the_sheets():
    from batch.outcomes import AWAITING, STOP_REASONS
    from batch.sheets.tables import VALUE_FILLS

    assert STOP_REASONS | {AWAITING, "failed"} <= set(VALUE_FILLS)


def test_every_configuration_key_is_described():
    from pydantic import BaseModel

    from batch.config.reference import _section_of
    from batch.config.sections import ScheduleJob, Settings

    def undescribed(model: type[BaseModel], where: str) -> list[str]:
        out = []
        for key, field in model.model_fields.items():
            section = _section_of(field.annotation)
            if field.exclude:
                continue
            if section is not None and key != "base_url":
                out += undescribed(section, f"{where}.{key}")
            elif not field.description:
                out.append(f"{where}.{key}")
        return out

    assert undescribed(Settings, "") + undescribed(ScheduleJob, "schedule.jobs") == []
