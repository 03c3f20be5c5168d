"""Every brief's text has a file of its own: two briefs never share one, and a text is
never written over another brief's."""

from __future__ import annotations

from pathlib import Path

import pytest

from batch.errors import OutputError
from batch.nightly.job import run_job
from batch.output import safe_filename, write_output, written_for

from conftest import ScriptedModel, critic_answer, write_brief, writer_answer

GOOD = "The office is closed on Friday from 15:00."


@pytest.mark.parametrize(
    "ids",
    [
        ("a b", safe_filename("a b")),  # the reported pair
        ("x/y", safe_filename("x/y")),
        ("memo?", safe_filename("memo?")),
        ("q3-memo-deadbeef", "q3 memo"),  # a clean id that reads like a hashed one
    ],
)
def test_no_two_ids_share_a_file_name(ids):
    first, second = ids
    assert first != second
    assert safe_filename(first) != safe_filename(second)


def test_a_file_of_another_brief_is_never_overwritten(tmp_path):
    write_output(tmp_path, "Memo", {"brief_id": "Memo"}, "first text")
    target = tmp_path / f"{safe_filename('Memo')}.md"
    # as on a case-insensitive disk: the other brief's file is found under this name
    target.rename(tmp_path / f"{safe_filename('memo')}.md")
    with pytest.raises(OutputError, match="holds the text of brief 'Memo'"):
        write_output(tmp_path, "memo", {"brief_id": "memo"}, "second text")
    assert "first text" in (tmp_path / f"{safe_filename('memo')}.md").read_text()
    # a file a person put there is not overwritten either
    (tmp_path / "notes.md").write_text("my own notes\n")
    with pytest.raises(OutputError, match="another file"):
        write_output(tmp_path, "notes", {"brief_id": "notes"}, "text")
    # the brief's own earlier text is replaced
    write_output(tmp_path, "plan", {"brief_id": "plan"}, "v1")
    write_output(tmp_path, "plan", {"brief_id": "plan"}, "v2")
    assert (
        "v2" in (tmp_path / "plan.md").read_text() and written_for(tmp_path / "plan.md") == "plan"
    )


def test_two_briefs_whose_names_met_are_both_written(project, settings):
    write_brief(project, "one.md", "Office closed Friday from 15:00.", id="a b")
    write_brief(project, "two.md", "Office closed Friday from 15:00.", id="a-b-c8687a08")
    writer = ScriptedModel([writer_answer(GOOD), writer_answer(GOOD)])
    critic = ScriptedModel([critic_answer(5), critic_answer(5)])
    summary = run_job(
        settings, project / "briefs", models={"writer": writer, "critic": critic}, strict=True
    )
    paths = {r.record["brief_id"]: r.record["output_path"] for r in summary.results}
    assert paths["a b"] and paths["a-b-c8687a08"] and paths["a b"] != paths["a-b-c8687a08"]
    assert {written_for(Path(p)) for p in paths.values()} == {"a b", "a-b-c8687a08"}


def test_a_clash_with_a_file_already_there_is_that_briefs_error(project, settings):
    (project / "output").mkdir(exist_ok=True)
    (project / "output" / "closure.md").write_text("---\nbrief_id: other\n---\n\nkeep me\n")
    write_brief(project, "closure.md", "Office closed Friday from 15:00.")
    write_brief(project, "second.md", "Office closed Friday from 15:00.")
    writer = ScriptedModel([writer_answer(GOOD), writer_answer(GOOD)])
    critic = ScriptedModel([critic_answer(5), critic_answer(5)])
    summary = run_job(
        settings, project / "briefs", models={"writer": writer, "critic": critic}, strict=True
    )
    by_id = {r.record["brief_id"]: r for r in summary.results}
    assert "keep me" in (project / "output" / "closure.md").read_text()
    assert by_id["second"].outcome == "approved"  # the batch went on
    assert by_id["closure"].outcome != "approved"
    assert "holds the text of brief 'other'" in str(by_id["closure"].record)
