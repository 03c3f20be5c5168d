"""A text that adds what its brief does not say waits for a person, who sees each added
word marked on every channel, and whose approval says the additions are fine, by name."""

from __future__ import annotations

from click.testing import CliRunner

from batch.cli import cli
from batch.review import threads
from batch.run.runner import Runner

from conftest import ScriptedModel, critic_answer, make_settings, write_brief, writer_answer

BRIEF = (
    "Letter to parents: the Year 4 trip to the Science Museum is on Thursday 12 June. "
    "The coach leaves at 8:30."
)
TEXT = (
    "The Year 4 trip to the Science Museum is on Thursday 12 June. The coach leaves at "
    "8:30. Remember to pack a lunch and a waterproof coat."
)


def held_thread(project):
    settings = make_settings(project, **{"paths.root": str(project)})
    write_brief(project, "trip.md", BRIEF, id="trip")
    models = {
        "writer": ScriptedModel([writer_answer(TEXT)]),
        "critic": ScriptedModel([critic_answer(5)]),
    }
    with Runner(settings, models=models, strict=True) as batch:
        [r] = batch.run(project / "briefs").results
    return settings, models, r


def test_a_text_that_adds_waits_with_each_added_word_named(project):
    settings, models, r = held_thread(project)
    assert r.outcome == "awaiting_human"
    assert not list((project / "output").glob("*.md"))  # nothing went out
    with Runner(settings, models=models) as runner:
        item = threads.waiting(runner, r.thread_id)
        payload = runner.snapshot(r.thread_id).interrupts[0].value
    assert item is not None and item.waits_for() == "your look"
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


def test_review_show_marks_the_added_words_and_the_page_marks_them_too(project):
    from test_web import client_for

    settings, models, r = held_thread(project)
    cfg = project / "briefloop.toml"
    cfg.write_text('[paths]\nroot = "."\n[log]\nformat = "csv"\npath = "output/runs.csv"\n')
    shown = CliRunner().invoke(cli, ["--config", str(cfg), "review", "show", r.thread_id])
    assert shown.exit_code == 0, shown.output
    assert "1 sentence adds what the brief does not say" in shown.output
    assert "«lunch»" in shown.output and "«coat»" in shown.output and "«coach»" not in shown.output
    with client_for(settings, models) as client:
        page = client.get(f"/thread/{r.thread_id}").text
    assert 'id="additions"' in page
    assert '<mark class="added">lunch</mark>' in page and '<mark class="added">coach' not in page


def test_approving_as_shown_vouches_for_the_additions_by_name(project):
    settings, models, r = held_thread(project)
    cfg = project / "briefloop.toml"
    cfg.write_text('[paths]\nroot = "."\n[log]\nformat = "csv"\npath = "output/runs.csv"\n')
    done = CliRunner().invoke(
        cli, ["--config", str(cfg), "review", "answer", r.thread_id, "--approve", "--by", "Ana"]
    )
    assert done.exit_code == 0, done.output
    with Runner(settings, models=models) as runner:
        record = runner.runlog.by_thread(r.thread_id)
    assert record["stop_reason"] == "approved_by_human" and record["decided_by"] == "Ana"
    assert record["decision_note"] == "the 1 sentence adding to the brief is fine"


def test_a_person_who_cuts_the_addition_vouches_for_nothing(project):
    settings, models, r = held_thread(project)
    cfg = project / "briefloop.toml"
    cfg.write_text('[paths]\nroot = "."\n[log]\nformat = "csv"\npath = "output/runs.csv"\n')
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
