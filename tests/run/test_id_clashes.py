"""Two sources with the same brief id: neither runs while both hold it, both are named,
and nothing in output/ is written over. A brief that moved is no clash."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from batch.output import front_matter_of
from batch.run.runner import Runner

from conftest import ScriptedModel, critic_answer, make_settings, write_brief, writer_answer

FOLDER_TEXT = "The office is closed on Friday from 15:00."
SHEET_TEXT = "The office is closed on Monday from 15:00."


def write_sheet(path: Path, rows: list[list[str]]) -> Path:
    with path.open("w", newline="", encoding="utf-8") as f:
        csv.writer(f).writerows([["id", "brief"], *rows])
    return path


def run_once(settings, models, source, text: str | None = None):
    if text is not None:
        models["writer"].queue(writer_answer(text))
        models["critic"].queue(critic_answer(5))
    with Runner(settings, models=models) as runner:
        return runner.run(source).results


def output_text(project: Path) -> str | None:
    found = front_matter_of(project / "output" / "office.md")
    return found[1].strip() if found else None


@pytest.fixture
def setup(project):
    s = make_settings(project, **{"loop.max_rounds": 2, "retry.attempts": 1})
    models = {"writer": ScriptedModel([]), "critic": ScriptedModel([])}
    folder_brief = write_brief(
        project, "office.md", "Office closed Friday from 15:00.", id="office"
    )
    [first] = run_once(s, models, project / "briefs", FOLDER_TEXT)
    assert first.outcome == "approved" and output_text(project) == FOLDER_TEXT
    return s, models, folder_brief


def test_a_sheet_row_with_a_folder_briefs_id_runs_neither_and_writes_nothing(project, setup):
    s, models, folder_brief = setup
    sheet = write_sheet(project / "briefs.csv", [["office", "Office closed Monday from 15:00."]])
    sent = len(models["writer"].sent)
    [from_sheet] = run_once(s, models, sheet)
    assert from_sheet.outcome == "error"
    assert "also the id of a brief in" in from_sheet.error and str(folder_brief) in from_sheet.error
    [from_folder] = run_once(s, models, project / "briefs")
    # the folder's brief is named the other way round, and does not run either
    assert from_folder.outcome == "error" and str(sheet) in from_folder.error
    assert len(models["writer"].sent) == sent and output_text(project) == FOLDER_TEXT
    # one taken out of the sheet: the folder's brief is itself again
    write_sheet(sheet, [["other", "Something else."]])
    [again] = run_once(s, models, project / "briefs")
    assert again.outcome == "skipped" and output_text(project) == FOLDER_TEXT


def test_a_brief_that_moved_from_the_folder_to_a_sheet_is_no_clash(project, setup):
    s, models, folder_brief = setup
    folder_brief.unlink()
    sheet = write_sheet(project / "briefs.csv", [["office", "Office closed Monday from 15:00."]])
    [moved] = run_once(s, models, sheet, SHEET_TEXT)
    assert moved.outcome == "approved" and output_text(project) == SHEET_TEXT


def test_two_folders_with_one_id_clash(project, setup):
    s, models, folder_brief = setup
    other = project / "more-briefs"
    other.mkdir()
    (other / "office.md").write_text("Office closed Monday from 15:00.", encoding="utf-8")
    [second] = run_once(s, models, other)
    assert second.outcome == "error" and str(folder_brief) in second.error
    assert output_text(project) == FOLDER_TEXT


def test_one_brief_named_two_ways_is_one_place(project, setup, monkeypatch):
    s, models, folder_brief = setup
    monkeypatch.chdir(project)
    [one] = run_once(s, models, Path("briefs") / "office.md")
    assert one.outcome == "skipped" and output_text(project) == FOLDER_TEXT


def test_two_worksheets_of_one_workbook_and_its_rows_moving_are_one_place(project):
    s = make_settings(project, **{"loop.max_rounds": 2, "retry.attempts": 1})
    models = {"writer": ScriptedModel([]), "critic": ScriptedModel([])}
    sheet = write_sheet(project / "briefs.csv", [["office", "Office closed Friday from 15:00."]])
    [first] = run_once(s, models, sheet, FOLDER_TEXT)
    # a row put above it: the brief is on row 3 now, the same sheet
    write_sheet(sheet, [["desk", "A desk lamp."], ["office", "Office closed Friday from 15:00."]])
    models["writer"].queue(writer_answer("The desk lamp is new."))
    models["critic"].queue(critic_answer(5))
    results = {r.brief_id: r for r in run_once(s, models, sheet)}
    assert results["office"].outcome == "skipped", results["office"].error
    assert first.thread_id == results["office"].thread_id


def test_a_project_copied_with_its_run_log_is_no_clash_with_the_original(project, setup):
    import shutil

    s, models, folder_brief = setup
    copy = project.parent / "copied-project"
    shutil.copytree(project, copy)
    s2 = make_settings(copy, **{"loop.max_rounds": 2, "retry.attempts": 1})
    [again] = run_once(s2, models, copy / "briefs")
    # the original still holds the brief, at the same place in its own folder
    assert folder_brief.exists() and again.outcome == "skipped", again.error
