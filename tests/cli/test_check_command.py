"""`briefloop check BRIEF TEXT`: a text of one's own judged by the loop's checks, its exit
code the verdict."""

from __future__ import annotations

import json

from click.testing import CliRunner

from batch.cli import cli
from tests.conftest import make_settings, write_brief

BRIEF = (
    "Tell all staff that the office is closed this Friday from 15:00 for electrical "
    "maintenance. Questions go to the facilities team.\n"
)
GOOD = (
    "The office is closed this Friday from 15:00 for electrical maintenance. "
    "If you have questions, please ask the facilities team.\n"
)


def invoke(project, *args, stdin=None):
    make_settings(project)  # writes the project's config
    return CliRunner().invoke(
        cli, ["--config", str(project / "briefloop.toml"), "check", *args], input=stdin
    )


def test_a_faithful_text_is_approved_exit_0(project):
    brief = write_brief(project, "closure.md", BRIEF, id="closure", rubric="memo")
    text = project / "text.md"
    text.write_text(GOOD)
    result = invoke(project, str(brief), str(text))
    assert result.exit_code == 0, result.output
    assert result.output.startswith("approved: score 100.0")


def test_a_wrong_time_is_refused_exit_4_with_the_finding(project):
    brief = write_brief(project, "closure.md", BRIEF, id="closure", rubric="memo")
    result = invoke(project, str(brief), "-", stdin=GOOD.replace("15:00", "16:00"))
    assert result.exit_code == 4, result.output
    assert "refused" in result.output and "16" in result.output


def test_json_lists_the_checklist_and_the_findings(project):
    brief = write_brief(project, "closure.md", BRIEF, id="closure", rubric="memo")
    result = invoke(project, str(brief), "-", "--json", stdin=GOOD + "Free pizza at 17:30.\n")
    data = json.loads(result.output)
    assert data["outcome"] == "refused" and result.exit_code == 4
    assert any("17" in f["message"] for f in data["must_fix"])
    assert data["checklist"] and all("kind" in r and "text" in r for r in data["checklist"])


def test_placeholders_are_named_for_a_person(project):
    brief = write_brief(
        project,
        "memo.md",
        "Tell staff the party is on 12 December. The venue is not decided yet.\n",
        id="party",
    )
    text = "The staff party is on 12 December at [FACT NEEDED: the venue].\n"
    result = invoke(project, str(brief), "-", stdin=text)
    assert "a person fills in:" in result.output
    assert "[FACT NEEDED: the venue]" in result.output


def test_unreadable_inputs_are_one_line_exit_2(project):
    brief = write_brief(project, "b.md", BRIEF)
    empty = project / "empty.md"
    empty.write_text("  \n")
    result = invoke(project, str(brief), str(empty))
    assert result.exit_code == 2 and "text" in result.output and "empty" in result.output
    binary = project / "bin.md"
    binary.write_bytes(b"\xff\xfe\x00\x01")
    result = invoke(project, str(brief), str(binary))
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert result.output.startswith("error: text")
    blank = invoke(project, str(brief), "-", stdin="\n\n")
    assert blank.exit_code == 2 and "the text is empty" in blank.output
    result = invoke(project, str(project / "nope.md"), str(empty))
    assert result.exit_code == 2 and "does not exist" in result.output
