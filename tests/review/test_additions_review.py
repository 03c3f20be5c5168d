"""A text that adds what its brief does not say waits for a person, who sees each added
word marked on every channel, and whose approval says the additions are fine, by name."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from batch.cli import cli
from batch.review import threads
from batch.run.runner import Runner

from conftest import (
    WHOLE_REWRITES,
    ScriptedModel,
    critic_answer,
    csv_log_config,
    make_settings,
    run_one,
    write_brief,
    writer_answer,
)

BRIEF = (
    "Letter to parents: the Year 4 trip to the Science Museum is on Thursday 12 June. "
    "The coach leaves at 8:30."
)
TEXT = (
    "The Year 4 trip to the Science Museum is on Thursday 12 June. The coach leaves at "
    "8:30. Remember to pack a lunch and a waterproof coat."
)


def held_thread(project):
    return run_one(project, BRIEF, TEXT, "trip")


@pytest.mark.settings(**WHOLE_REWRITES)
def test_a_text_that_adds_waits_with_each_added_word_named(project):
    settings, models, r = held_thread(project)
    assert r.outcome == "awaiting_human"
    assert not list((project / "output").glob("*.md"))  # nothing went out
    with Runner(settings, models=models) as runner:
        item = threads.waiting(runner, r.thread_id)
        payload = runner.snapshot(r.thread_id).interrupts[0].value
    assert item is not None and item.waits_for() == "your look (1 sentence adds)"
    [added] = item.additions
    assert added["n"] == 3 and set(added["added"]) == {
        "Remember",
        "pack",
        "lunch",
        "waterproof",
        "coat",
    }
    assert item.other_holds() == []
    assert "Remember to pack a lunch" in payload["description"]


@pytest.mark.settings(**WHOLE_REWRITES)
def test_review_show_marks_the_added_words_and_the_page_marks_them_too(project):
    from test_web import client_for

    settings, models, r = held_thread(project)
    cfg = csv_log_config(project)
    shown = CliRunner().invoke(cli, ["--config", str(cfg), "review", "show", r.thread_id])
    assert shown.exit_code == 0, shown.output
    assert "1 sentence adds what the brief does not say" in shown.output
    assert "«lunch»" in shown.output and "«coat»" in shown.output and "«coach»" not in shown.output
    with client_for(settings, models) as client:
        page = client.get(f"/thread/{r.thread_id}").text
    assert 'id="additions"' in page
    assert '<mark class="added">lunch</mark>' in page and '<mark class="added">coach' not in page
    # every round's support map, in the story below
    assert 'class="support"' in page and "1 of 3 use words the brief does not give" in page
    assert "no checklist item" in page


@pytest.mark.settings(**WHOLE_REWRITES)
def test_approving_as_shown_vouches_for_the_additions_by_name(project):
    settings, models, r = held_thread(project)
    cfg = csv_log_config(project)
    done = CliRunner().invoke(
        cli, ["--config", str(cfg), "review", "answer", r.thread_id, "--approve", "--by", "Ana"]
    )
    assert done.exit_code == 0, done.output
    with Runner(settings, models=models) as runner:
        record = runner.runlog.by_thread(r.thread_id)
    assert record["stop_reason"] == "approved_by_human" and record["decided_by"] == "Ana"
    assert record["decision_note"] == "the 1 sentence adding to the brief is fine"


@pytest.mark.settings(**WHOLE_REWRITES)
def test_a_person_who_cuts_the_addition_vouches_for_nothing(project):
    settings, models, r = held_thread(project)
    cfg = csv_log_config(project)
    edited = project / "edited.md"
    edited.write_text(TEXT.replace(" Remember to pack a lunch and a waterproof coat.", ""))
    done = CliRunner().invoke(
        cli,
        [
            "--config",
            str(cfg),
            "review",
            "answer",
            r.thread_id,
            "--edit",
            str(edited),
            "--by",
            "Ana",
        ],
    )
    assert done.exit_code == 0, done.output
    with Runner(settings, models=models) as runner:
        record = runner.runlog.by_thread(r.thread_id)
    assert record["decision_note"] == "edited by the reviewer"


# -- the loop removes what it can before it holds -----------------------------------------


def repairing(project, writer, **kw):
    settings = make_settings(
        project,
        **{"paths.root": str(project), "loop.repairs": True, "models.critic_mode": "checks", **kw},
    )
    write_brief(project, "trip.md", BRIEF, id="trip")
    models = {"writer": writer, "critic": ScriptedModel([])}
    with Runner(settings, models=models, strict=True) as runner:
        [r] = runner.run(project / "briefs").results
        log = runner.snapshot(r.thread_id).values["writer_log"]
    return r, log


def test_a_sentence_that_only_adds_is_dropped_by_code_and_the_text_approved(project):
    r, log = repairing(project, ScriptedModel([writer_answer(TEXT)]))
    assert r.outcome == "approved", r.record
    body = Path(r.record["output_path"]).read_text().split("---\n", 2)[2]
    assert "lunch" not in body and "Thursday 12 June" in body and "8:30" in body
    [repaired] = [e for e in log if e["kind"] == "repairs"]
    assert [(a["action"], a["by"], a["kept"]) for a in repaired["attempts"]] == [
        ("drop", "code", True)
    ]


def test_a_sentence_with_a_fact_and_an_addition_is_said_again_with_the_fact_alone(project):
    text = (
        "The Year 4 trip to the Science Museum is on Thursday 12 June, a wonderful day of "
        "hands-on discovery. The coach leaves at 8:30."
    )
    writer = ScriptedModel(
        [
            writer_answer(text),
            {"text": "The Year 4 trip to the Science Museum is on Thursday 12 June."},
        ]
    )
    r, log = repairing(project, writer)
    assert r.outcome == "approved", r.record
    body = Path(r.record["output_path"]).read_text()
    assert "wonderful" not in body and "Thursday 12 June" in body
    # the model was asked for that sentence alone, with the fact it must keep
    task = writer.sent[1][-1]["content"]
    assert "wonderful day" in task and "Thursday 12 June" in task


def test_a_repair_that_would_lose_a_fact_is_rolled_back_and_the_text_goes_on(project):
    text = (
        "The Year 4 trip to the Science Museum is on Thursday 12 June, a wonderful day of "
        "hands-on discovery. The coach leaves at 8:30."
    )
    # both samples drop the date with the addition: never kept
    writer = ScriptedModel(
        [writer_answer(text), {"text": "It is a museum trip."}, {"text": "A trip, for Year 4."}]
    )
    r, log = repairing(project, writer)
    # words of the writer's own beside a fact are shown, not held: the text keeps its
    # date and goes on as it was
    assert r.outcome == "approved"
    assert "Thursday 12 June" in Path(r.record["output_path"]).read_text()
    [repaired] = [e for e in log if e["kind"] == "repairs"]
    assert [a["kept"] for a in repaired["attempts"]] == [False]
    assert writer.calls == 3  # no whole rewrite of a text that meets the bar


@pytest.mark.settings(**WHOLE_REWRITES)
def test_the_review_sheet_and_the_morning_message_mark_the_added_words(project):
    from openpyxl import load_workbook

    from batch.nightly.job import run_job
    from batch.review.sheet import COLUMNS
    from batch.run.notify import Report, message, waiting_of

    settings = make_settings(project, **{"log.format": "xlsx", "log.path": "output/runs.xlsx"})
    write_brief(project, "trip.md", BRIEF, id="trip")
    models = {
        "writer": ScriptedModel([writer_answer(TEXT)]),
        "critic": ScriptedModel([critic_answer(5)]),
    }
    [r] = run_job(settings, project / "briefs", models=models, strict=True).results
    assert r.outcome == "awaiting_human"
    ws = load_workbook(project / "output" / "runs.xlsx")["Review"]
    [row] = [dict(zip(COLUMNS, v, strict=False)) for v in ws.iter_rows(min_row=2, values_only=True)]
    assert row["note"].startswith("1 sentence adds what the brief does not say")
    assert "«Remember» to «pack» a «lunch»" in row["note"]
    _, body = message(Report({"awaiting_human": 1}, [waiting_of(r.record)], [], "briefs"))
    assert "1 sentence adds what the brief does not say" in body
    assert "«waterproof» «coat»" in body
