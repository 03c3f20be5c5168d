"""What the docs say of the code is generated from it, and stays so: a test fails
when the committed text and the code differ (`UPDATE_DOCS=1` rewrites it, as
UPDATE_PROMPTS does the prompt snapshots)."""

from __future__ import annotations

import os
import re
from pathlib import Path

from batch.store.runlog import FIELDS, INTERNAL_FIELDS, column_reference
from batch.store.schema import runs

RUN_LOG_DOC = Path(__file__).resolve().parents[2] / "docs" / "run-log.md"
BLOCK = re.compile(r"(<!-- run-log columns: begin -->\n)(.*?)(<!-- run-log columns: end -->)", re.S)


def test_every_run_log_column_is_in_the_sheets_or_named_internal_once():
    names = [*FIELDS, *INTERNAL_FIELDS]
    assert len(names) == len(set(names))
    assert set(names) == set(runs.c.keys())


def test_the_run_log_columns_in_the_docs_are_the_codes():
    text = RUN_LOG_DOC.read_text(encoding="utf-8")
    found = BLOCK.search(text)
    assert found, "docs/run-log.md has lost its run-log columns block"
    if os.environ.get("UPDATE_DOCS") == "1":
        RUN_LOG_DOC.write_text(
            BLOCK.sub(lambda m: m[1] + column_reference() + m[3], text), encoding="utf-8"
        )
        return
    assert found[2] == column_reference(), "run UPDATE_DOCS=1 pytest tests/project/test_docs.py"


def test_every_stop_reason_has_its_cell_colour_in_the_sheets():
    from batch.outcomes import AWAITING, STOP_REASONS
    from batch.sheets.tables import VALUE_FILLS

    assert STOP_REASONS | {AWAITING, "failed"} <= set(VALUE_FILLS)


CONFIG_DOC = RUN_LOG_DOC.with_name("configuration.md")
CONFIG_BLOCK = re.compile(
    r"(<!-- configuration keys: begin -->\n)(.*?)"
    r"(<!-- configuration keys: end -->)",
    re.S,
)


def test_the_configuration_keys_in_the_docs_are_the_codes():
    from batch.config.reference import configuration_reference

    text = CONFIG_DOC.read_text(encoding="utf-8")
    found = CONFIG_BLOCK.search(text)
    assert found, "docs/configuration.md has lost its configuration keys block"
    want = configuration_reference().replace("### ", "#### ")
    if os.environ.get("UPDATE_DOCS") == "1":
        CONFIG_DOC.write_text(
            CONFIG_BLOCK.sub(lambda m: m[1] + want + m[3], text), encoding="utf-8"
        )
        return
    assert found[2] == want, "run UPDATE_DOCS=1 pytest tests/project/test_docs.py"


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


def generated(path: Path, name: str, want: str, indent: str = "") -> None:
    """The block between `<!-- {name}: begin -->` and its end in `path` is `want`."""
    block = re.compile(
        rf"({indent}<!-- {name}: begin -->\n)(.*?)({indent}<!-- {name}: end -->)", re.S
    )
    text = path.read_text(encoding="utf-8")
    found = block.search(text)
    assert found, f"{path.name} has lost its {name} block"
    if os.environ.get("UPDATE_DOCS") == "1":
        path.write_text(block.sub(lambda m: m[1] + want + m[3], text), encoding="utf-8")
        return
    assert found[2] == want, "run UPDATE_DOCS=1 pytest tests/project/test_docs.py"


def test_the_checks_in_the_readme_and_how_it_works_are_the_registry():
    from batch.judging.checks import check_reference

    generated(
        RUN_LOG_DOC.parent.parent / "README.md",
        "checks",
        check_reference(brief=True, indent="   "),
        indent="   ",
    )
    generated(RUN_LOG_DOC.with_name("how-it-works.md"), "checks", check_reference())
