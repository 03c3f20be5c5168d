"""What a person hands in (answers, an edited text, a reason, a name; a file of them)
reaches the text as text: no escape sequence a terminal would obey, line ends as "\\n",
and a file that is no regular file, or too large, is one line of error, never a hang."""

from __future__ import annotations

import os
import threading

import pytest
from click.testing import CliRunner
from test_review import PH, body_of, paused

from batch.cli import cli
from batch.review import attempts
from batch.review import threads as review
from batch.run.runner import Runner

from conftest import csv_log_config, make_settings

# what a paste from a terminal or a crafted sheet cell can carry
CONTROLS = [
    "\x1b[31m",  # colour
    "\x1b]8;;https://evil.example\x1b\\",  # a hyperlink (OSC 8)
    "\x1b[2J",  # clear the screen
    "\x9b31m",  # C1 CSI
    "\u202e",  # right-to-left override
    "\x07",  # bell
]


@pytest.mark.parametrize("control", CONTROLS)
def test_a_control_sequence_in_an_answer_never_reaches_the_output(project, settings, control):
    runner, tid, *_ = paused(project, settings)
    with runner:
        done = review.answer(runner, tid, "approve", {PH: f"4.2M{control}"}, by=f"ana{control}")
    body = body_of(done.record["output_path"])
    assert "4.2M" in body and control not in body and "\x1b" not in body
    assert done.record["decided_by"] == "ana"


def test_an_edited_text_keeps_its_lines_and_loses_its_controls(project, settings):
    runner, tid, *_ = paused(project, settings)
    edited = "Q3 revenue was 4.2M.\r\nWe opened \x1b[1mBerlin\x1b[0m.\rThanks."
    with runner:
        done = review.answer(runner, tid, "approve", {}, edited=edited, override="checked")
    body = body_of(done.record["output_path"])
    assert body == "Q3 revenue was 4.2M.\nWe opened Berlin.\nThanks."


def test_a_reopen_reason_loses_its_controls(project, settings):
    runner, tid, *_ = paused(project, settings)
    with runner:
        review.answer(runner, tid, "approve", {PH: "4.2M"})
        attempts.reopen(runner, tid, "wrong \x1b[31mfigure\x1b[0m")
        assert "\x1b" not in str(runner.snapshot(tid).values["decision"]["reason"])


def cli_answer(project, tid, *args):
    cfg = csv_log_config(project)
    return CliRunner().invoke(cli, ["--config", str(cfg), "review", "answer", tid, *args])


def paused_cli(project):
    runner, tid, *_ = paused(project, make_settings(project, **{"paths.root": str(project)}))
    runner.close()
    return tid


@pytest.mark.parametrize("option", ["--answers", "--edit"])
def test_a_fifo_handed_in_is_refused_at_once(project, option):
    tid = paused_cli(project)
    fifo = project / "answers.fifo"
    os.mkfifo(fifo)
    got: list = []
    worker = threading.Thread(
        target=lambda: got.append(cli_answer(project, tid, option, str(fifo), "--approve")),
        daemon=True,
    )
    worker.start()
    worker.join(20)
    assert got, "the command hung on a FIFO"
    assert got[0].exit_code == 2 and "not a regular file" in got[0].output, got[0].output


@pytest.mark.parametrize("option,size", [("--answers", 2 << 20), ("--edit", 1 << 20)])
def test_a_file_handed_in_past_its_limit_is_refused_with_one_line(project, option, size):
    tid = paused_cli(project)
    big = project / "big.txt"
    big.write_text("a" * size)
    result = cli_answer(project, tid, option, str(big), "--approve")
    assert result.exit_code == 2 and "too large" in result.output, result.output
    assert len(result.output.strip().splitlines()) == 1
    with Runner(make_settings(project, **{"paths.root": str(project)})) as again:
        assert review.waiting(again, tid) is not None


def test_a_brief_with_old_mac_line_ends_keeps_its_front_matter(project):
    from batch.inputs.briefs import load_brief_file

    path = project / "cr.md"
    path.write_bytes(
        b"---\rid: cr-brief\rtitle: CR brief\r---\r"
        b"The kitchen closes on Friday.\rBring your mugs home."
    )
    brief = load_brief_file(path, 1 << 20)
    assert (brief.id, brief.title) == ("cr-brief", "CR brief")
    assert brief.text.splitlines() == ["The kitchen closes on Friday.", "Bring your mugs home."]
    windows = project / "crlf.md"
    windows.write_bytes(path.read_bytes().replace(b"\r", b"\r\n"))
    assert load_brief_file(windows, 1 << 20).text == brief.text
