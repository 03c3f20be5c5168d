"""A thread's story from its checkpoints (batch.review.history), in the terminal
(`review history`, `runs --batch`), and the batches each run belongs to."""

from __future__ import annotations

import json
import random
import time

import pytest
from click.testing import CliRunner

from batch.cli import cli
from batch.nightly.job import run_job
from batch.review import history
from batch.review import threads as review
from batch.review.history import diff
from batch.run.runner import Runner

from conftest import (
    WHOLE_REWRITES,
    ScriptedModel,
    critic_answer,
    make_settings,
    write_brief,
    writer_answer,
)

BRIEF = "Memo on Q3: revenue was 4M; we opened Berlin."
FIRST = "Q3 revenue was 5M. We opened Berlin."  # a figure no source gives
SECOND = "Q3 revenue was 4M. We opened Berlin."


def two_rounds(project, **overrides):
    """A brief whose first draft invents a figure and whose rewrite has the brief's, paused for a
    person (loop.review = always), then approved by ana."""
    s = make_settings(
        project, **{"models.critic_mode": "advice", "loop.review": "always", **overrides}
    )
    write_brief(project, "q3.md", BRIEF, id="q3", title="Q3 memo")
    models = {
        "writer": ScriptedModel([writer_answer(FIRST), writer_answer(SECOND)]),
        "critic": ScriptedModel([critic_answer(5)]),
    }
    summary = run_job(s, project / "briefs", models=models)
    [r] = summary.results
    assert r.outcome == "awaiting_human"
    with Runner(s, models=models) as runner:
        done = review.answer(runner, r.thread_id, "approve", {}, by="ana")
    assert done.outcome == "approved_by_human"
    return s, r.thread_id, models


def test_diff_marks_insertions_and_deletions_word_by_word():
    changes = history.diff("The dock closes at 16:00 today.", "The dock closes at 14:00 today.")
    assert [(c.op, c.text) for c in changes] == [
        ("=", "The dock closes at "),
        ("-", "16:00 "),
        ("+", "14:00 "),
        ("=", "today."),
    ]
    # a rewritten run of words is one deletion and one insertion, not an interleave
    rewritten = history.diff(
        "And with its foldable design, you can carry it.",
        "The lamp folds flat for travel, so carry it.",
    )
    assert [c.op for c in rewritten] == ["-", "+", "="]
    assert history.diff("same", "same") == [history.Change("=", "same")]


@pytest.mark.settings(**WHOLE_REWRITES)
def test_a_story_holds_every_round_what_changed_and_the_decision(project):
    s, tid, _ = two_rounds(project)
    with Runner(s) as runner:
        told = history.story(runner, tid)
    assert told is not None and told.brief_id == "q3" and told.title == "Q3 memo"
    assert told.stop_reason == "approved_by_human" and not told.pruned
    first, second = told.rounds
    assert (first.number, first.draft, second.number, second.draft) == (1, FIRST, 2, SECOND)
    assert any("The number 5" in m for m in first.must_fix) and second.must_fix == []
    assert first.writer == ["wrote the first draft"]
    assert second.writer == ["wrote a new version from the brief and the last round's notes"]
    assert [(c.op, c.text) for c in second.changes] == [
        ("=", "Q3 revenue was "),
        ("-", "5M. "),
        ("+", "4M. "),
        ("=", "We opened Berlin."),
    ]
    assert second.score_change is not None and second.score_change > 0
    assert second.inserted == 1 and second.deleted == 1
    [decision] = told.decisions
    assert (decision.kind, decision.by) == ("approve", "ana") and decision.at


def test_a_kept_repair_is_told_with_what_it_fixed(project):
    s = make_settings(project, **{"models.critic_mode": "advice", "loop.repairs": True})
    write_brief(project, "q3.md", BRIEF, id="q3")
    invented = f"{SECOND} Sales rose 17%."  # a figure no source gives, in a sentence of its own
    models = {
        "writer": ScriptedModel([writer_answer(invented)]),
        "critic": ScriptedModel([critic_answer(5)]),
    }
    [r] = Runner(s, models=models, strict=True).run(project / "briefs").results
    assert r.outcome == "approved"
    with Runner(s) as runner:
        first, second = history.story(runner, r.thread_id).rounds
    assert any("The number 17" in m for m in first.must_fix)
    assert second.writer == [
        "dropped the sentence 'Sales rose 17%.' (done by code; the checks kept it)"
    ]
    assert [(c.op, c.text) for c in second.changes][-1] == ("-", "Sales rose 17%.")


@pytest.mark.parametrize(
    "attempt, told",
    [
        (
            {
                "code": "fact:R2",
                "action": "state",
                "by": "model",
                "kept": True,
                "fixed": ["fact:R2"],
                "problem": "The text misses R2",
                "subject": "folds flat for travel",
            },
            "stated the missing fact 'folds flat for travel' (written by the model; the checks "
            "kept it)",
        ),
        (
            {
                "code": "length:max",
                "action": "shorten",
                "by": "model",
                "kept": True,
                "fixed": ["echo:brief:R4"],
                "fixed_problems": ["The text repeats the brief"],
                "subject": "120 words",
            },
            "shortened the text to 120 words (written by the model; kept because the checks "
            "found less elsewhere: The text repeats the brief; this problem is still found)",
        ),
        (
            {
                "code": "echo:brief:R4",
                "action": "drop",
                "by": "code",
                "kept": False,
                "subject": "Write a memo to staff.",
            },
            "dropped the sentence 'Write a memo to staff.' (done by code; not kept: the checks "
            "did not find less)",
        ),
        (
            {
                "code": "number:9",
                "action": "placeholder",
                "by": "model",
                "kept": True,
                "fixed": ["number:9"],
                "subject": "[FIGURE NEEDED: levels]",
            },
            "put a placeholder for what only a person knows: [FIGURE NEEDED: levels] (written "
            "by the model; the checks kept it)",
        ),
        # a log written before the words were kept: no code names, still plain
        (
            {
                "code": "echo:brief:R4",
                "action": "drop",
                "by": "code",
                "kept": True,
                "fixed": ["echo:brief:R4"],
            },
            "dropped the sentence (finding echo:brief:R4) (done by code; the checks kept it)",
        ),
    ],
)
def test_each_repair_is_told_in_plain_words(attempt, told):
    assert history.writer_steps([{"kind": "repairs", "attempts": [attempt]}]) == [told]


def test_no_story_for_a_thread_that_is_not_there(project, settings):
    with Runner(settings) as runner:
        assert history.story(runner, "nope") is None


@pytest.mark.settings(**WHOLE_REWRITES)
def test_review_history_prints_the_rounds_the_diff_and_the_decision(project):
    s, tid, _ = two_rounds(project)
    cfg = project / "config" / "briefloop.toml"
    cfg.parent.mkdir(exist_ok=True)
    cfg.write_text(f'[paths]\nroot = "{project}"\n[loop]\nrepairs = false\n')
    result = CliRunner().invoke(cli, ["--config", str(cfg), "review", "history", tid])
    assert result.exit_code == 0, result.output
    out = result.output
    assert "round 1" in out and "round 2" in out and "writer: wrote the first draft" in out
    assert "changed: +1 / -1 words" in out and "was [-5M. -]{+4M. +}We opened" in out
    assert "to fix:" in out and "decision: approved by ana" in out
    missing = CliRunner().invoke(cli, ["--config", str(cfg), "review", "history", "nope"])
    assert missing.exit_code == 2 and "no thread or brief 'nope'" in missing.output


@pytest.mark.settings(**WHOLE_REWRITES)
def test_runs_of_the_last_batch_in_the_terminal_and_as_json(project):
    s, tid, _ = two_rounds(project)
    cfg = project / "config" / "briefloop.toml"
    cfg.parent.mkdir(exist_ok=True)
    cfg.write_text(f'[paths]\nroot = "{project}"\n')
    runner = CliRunner()
    shown = runner.invoke(cli, ["--config", str(cfg), "runs", "--batch", "last"])
    assert shown.exit_code == 0, shown.output
    assert "batch 1:" in shown.output and f"thread {tid}" in shown.output
    assert "⏸ q3 (Q3 memo): awaiting human (now approved by human) · 2 round(s)" in " ".join(
        shown.output.split()
    )
    as_json = json.loads(
        runner.invoke(cli, ["--config", str(cfg), "runs", "--batch", "last", "--json"]).output
    )
    assert as_json["batch"]["id"] == 1 and [r["thread_id"] for r in as_json["runs"]] == [tid]
    assert as_json["runs"][0]["batch_id"] == 1
    none = runner.invoke(cli, ["--config", str(cfg), "runs", "--batch", "7"])
    assert none.exit_code == 2 and "no batch '7'" in none.output
    filtered = runner.invoke(
        cli, ["--config", str(cfg), "runs", "--batch", "last", "--outcome", "max_rounds"]
    )
    assert filtered.exit_code == 0 and tid not in filtered.output
    # without --batch: over every batch
    every = runner.invoke(cli, ["--config", str(cfg), "runs", "--outcome", "approved_by_human"])
    assert every.exit_code == 0 and tid in every.output


def _parts(changes, ops):
    return "".join(c.text for c in changes if c.op in ops)


def _periodic(n_words: int, offset: int = 0) -> str:
    words = ["the", "plan", "is", "due", "on", "Friday.", "Send", "it", "to", "Ana."]
    return " ".join(words[(i + offset) % len(words)] for i in range(n_words))


@pytest.mark.parametrize(
    "before,after",
    [
        (_periodic(1000), _periodic(1000, 3)),  # the reported pair
        (_periodic(5000), _periodic(5000, 1)),
        (_periodic(5000), "A wholly new text. " * 1000),
        ("One. " * 3000, "One. " * 2999 + "Two."),
        ("", _periodic(4000)),
    ],
)
def test_a_diff_of_long_repeating_drafts_is_bounded_and_still_whole(before, after):
    started = time.perf_counter()
    changes = diff(before, after)
    seconds = time.perf_counter() - started
    assert seconds < 0.5, seconds  # was 10 s for the first pair, 147 s at 2,000 words
    # whatever the display, kept and inserted text is the new draft, kept and deleted
    # words are the old one's
    assert _parts(changes, "=+") == after
    assert [w for c in changes if c.op in "=-" for w in c.text.split()] == before.split()


@pytest.mark.parametrize("seed", range(30))
def test_a_diff_gives_back_both_drafts_for_any_edit(seed):
    rng = random.Random(seed)
    vocab = ["alpha", "beta", "gamma.", "delta", "epsilon!", "zeta", "eta?", "\n"]
    before = " ".join(rng.choice(vocab) for _ in range(rng.randint(0, 300)))
    words = before.split(" ")
    for _ in range(rng.randint(0, 20)):
        i = rng.randint(0, len(words))
        words.insert(i, rng.choice(vocab)) if rng.random() < 0.5 or not words else words.pop(
            min(i, len(words) - 1)
        )
    after = " ".join(words)
    changes = diff(before, after)
    assert _parts(changes, "=+") == after
    assert [w for c in changes if c.op in "=-" for w in c.text.split()] == before.split()


@pytest.mark.parametrize("fault", ["ModelNotFound", "ModelOutputInvalid"])
def test_review_history_of_a_failed_thread_says_why(project, fault):
    from batch import errors

    write_brief(project, "a.md", "Office closed Friday.", id="a")
    exc = getattr(errors, fault)(f"the writer failed: {fault} in round 1")
    summary = run_job(
        make_settings(project),
        project / "briefs",
        models={
            "writer": ScriptedModel([exc] * 4),
            "critic": ScriptedModel([critic_answer(5)] * 4),
        },
    )
    [r] = summary.results
    assert r.outcome == "error"
    cfg = project / "briefloop.toml"
    cfg.write_text(f'[paths]\nroot = "{project}"\n')
    result = CliRunner().invoke(cli, ["--config", str(cfg), "review", "history", r.thread_id])
    assert result.exit_code == 0, result.output
    assert "failed:" in result.output and fault in result.output, result.output


def test_a_failed_run_is_listed_with_its_batch(project):
    from batch import errors

    write_brief(project, "a.md", "Office closed Friday.", id="a")
    write_brief(project, "b.md", "Office closed Friday.", id="b")
    good = writer_answer("The office is closed on Friday.")

    def write(messages):
        if "BRIEF (id b)" in "\n".join(m["content"] for m in messages):
            raise errors.ModelNotFound("no such model")
        return good

    run_job(
        make_settings(project),
        project / "briefs",
        models={
            "writer": ScriptedModel([write] * 6),
            "critic": ScriptedModel([critic_answer(5)] * 6),
        },
    )
    cfg = project / "briefloop.toml"
    cfg.write_text(f'[paths]\nroot = "{project}"\n')
    shown = json.loads(
        CliRunner().invoke(cli, ["--config", str(cfg), "runs", "--batch", "last", "--json"]).output
    )
    assert sorted(r["brief_id"] for r in shown["runs"]) == ["a", "b"]
    assert {r["brief_id"]: r["batch_id"] for r in shown["runs"]} == {"a": 1, "b": 1}
    assert shown["batch"]["counts"] == {"approved": 1, "error": 1}


def test_the_thread_page_of_a_failed_thread_without_a_draft_checks_nothing(project):
    from starlette.testclient import TestClient

    from batch import errors
    from batch.review import web

    write_brief(project, "a.md", "Write a note: the office is closed on Friday.", id="a")
    s = make_settings(project)
    exc = errors.ModelNotFound("the writer failed")
    models = {"writer": ScriptedModel([exc] * 4), "critic": ScriptedModel([critic_answer(5)] * 4)}
    [r] = run_job(s, project / "briefs", models=models).results
    assert r.outcome == "error"
    with TestClient(web.create_app(s, models=models, strict=True)) as client:
        page = client.get(f"/thread/{r.thread_id}").text
    checklist = page[
        page.index('id="checklist"') : page.index("</section>", page.index('id="checklist"'))
    ]
    assert "✓" not in checklist and "✗" not in checklist
    assert "(not checked)" in checklist
    # the list starts at its first item, the request, shown but not checked
    assert "· R1 task" in checklist


@pytest.mark.settings(**WHOLE_REWRITES)
def test_a_round_that_changed_nothing_says_so_instead_of_the_whole_text(project):
    from starlette.testclient import TestClient

    from batch.review import web

    s = make_settings(project, **{"models.critic_mode": "advice", "loop.review": "always"})
    write_brief(project, "q3.md", BRIEF, id="q3", title="Q3 memo")
    same = "Q3 revenue was 5M. We opened Berlin."  # refused twice, rewritten the same
    models = {
        "writer": ScriptedModel([writer_answer(same), writer_answer(same), writer_answer(SECOND)]),
        "critic": ScriptedModel([critic_answer(5)] * 3),
    }
    [r] = run_job(s, project / "briefs", models=models).results
    with TestClient(web.create_app(s, models=models, strict=True)) as client:
        page = client.get(f"/thread/{r.thread_id}").text
    assert page.count("The same text as the round before.") >= 1
    assert page.count("What changed from the round before") >= 1  # the round that changed
