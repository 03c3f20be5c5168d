"""The whole loop with scripted models, the real graph and the real SQLite checkpointer."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest
import yaml

from batch.errors import ModelUnavailable
from batch.nightly.job import run_job
from batch.run.runner import Runner

from conftest import (
    CRITIC_GATE,
    LOOP_ENDS_ALONE,
    WHOLE_REWRITES,
    ScriptedModel,
    critic_answer,
    make_settings,
    settings_mark,
    write_brief,
    writer_answer,
)

GOOD = "The office is closed on Friday from 15:00."


def run(settings, project, writer, critic, **kw):
    return run_job(
        settings, project / "briefs", models={"writer": writer, "critic": critic}, strict=True, **kw
    )


def front_matter(path):
    text = Path(path).read_text(encoding="utf-8")
    _, fm, body = text.split("---\n", 2)
    return yaml.safe_load(fm), body.strip()


@pytest.mark.settings(**CRITIC_GATE)
def test_approved_in_one_round(project, settings):
    write_brief(project, "closure.md", "Office closed Friday from 15:00.")
    writer = ScriptedModel([writer_answer("Sure! Here is the memo:\n" + GOOD)])
    critic = ScriptedModel([critic_answer(5)])
    summary = run(settings, project, writer, critic)
    [r] = summary.results
    assert r.outcome == "approved"
    rec = r.record
    assert rec["status"] == "finished" and rec["stop_reason"] == "approved"
    assert rec["score_history"] == [100.0] and rec["rounds"] == 1
    assert rec["model_calls"] == 2 and rec["input_tokens"] > 0
    meta, body = front_matter(rec["output_path"])
    assert meta["stop_reason"] == "approved" and meta["score"] == 100.0
    assert body == GOOD  # the chatty preamble is gone


@pytest.mark.settings(**CRITIC_GATE)
def test_a_text_answered_in_html_is_written_and_judged_as_markdown(project, settings):
    write_brief(
        project, "closure.md", "Office closed Friday from 15:00. Save your work before you leave."
    )
    html = (
        "<p><strong>The office is closed on Friday</strong> from 15:00.</p>"
        "<p>Save your work before you leave.</p>"
    )
    writer = ScriptedModel([writer_answer(html)])
    critic = ScriptedModel([critic_answer(5)])
    [r] = run(settings, project, writer, critic).results
    assert r.outcome == "approved"
    _, body = front_matter(r.record["output_path"])
    assert body == (
        "**The office is closed on Friday** from 15:00.\n\nSave your work before you leave."
    )
    # the critic judged the Markdown, not the tags
    assert "<p>" not in critic.sent[0][-1]["content"]


def test_the_briefs_order_to_the_writer_copied_as_a_line_is_dropped(project, settings):
    write_brief(
        project,
        "q3.md",
        "Write a short memo to the sales team about Q3.\n\n"
        "- The team closed 42 new accounts in Q3.",
    )
    copied = (
        "Write a short memo to the sales team about Q3.\n\n"
        "The team closed 42 new accounts in Q3. Well done, everyone."
    )
    writer = ScriptedModel([writer_answer(copied)])
    critic = ScriptedModel([critic_answer(5)])
    [r] = run(settings, project, writer, critic).results
    assert r.outcome == "approved"
    _, body = front_matter(r.record["output_path"])
    assert body == "The team closed 42 new accounts in Q3. Well done, everyone."


@pytest.mark.settings(**CRITIC_GATE, **WHOLE_REWRITES)
def test_revision_answers_the_critique_and_critic_sees_no_history(project, settings):
    write_brief(project, "closure.md", "Office closed Friday from 15:00.")
    writer = ScriptedModel(
        [
            writer_answer("Closed Friday."),
            writer_answer(GOOD, deviations=[("Use bullets", "too short")]),
        ]
    )
    critic = ScriptedModel(
        [
            critic_answer(
                2, must_fix=["Say from when the office is closed."], would_improve=["Use bullets."]
            ),
            critic_answer(5),
        ]
    )
    [r] = run(settings, project, writer, critic).results
    assert r.outcome == "approved" and r.record["score_history"] == [25.0, 100.0]
    revise_prompt = writer.sent[1][-1]["content"]
    assert "MUST FIX: Say from when the office is closed." in revise_prompt
    assert "SUGGESTION: Use bullets." in revise_prompt
    assert "Closed Friday." in revise_prompt and "score 25" not in revise_prompt
    second_critic_prompt = "\n".join(m["content"] for m in critic.sent[1])
    assert "score 25" not in second_critic_prompt and "25.0" not in second_critic_prompt
    assert "round 1" not in second_critic_prompt.lower()
    assert critic.sent[1][0] == critic.sent[0][0]  # the same system prompt every round
    assert "Use bullets: too short" in second_critic_prompt  # the deviation, to judge


@pytest.mark.settings(**CRITIC_GATE, **LOOP_ENDS_ALONE)
def test_high_score_with_must_fix_is_not_approved(project, settings):
    write_brief(project, "a.md", "Office closed Friday from 15:00.")
    writer = ScriptedModel(
        [writer_answer(f"{GOOD}\n\nThis is version {w}.") for w in ("one", "two", "three")]
    )
    critic = ScriptedModel([critic_answer(5, must_fix=[f"Problem {i}."]) for i in range(3)])
    [r] = run(settings, project, writer, critic).results
    assert r.outcome == "max_rounds"
    assert r.record["score_history"] == [100.0, 100.0, 100.0]
    # three drafts judged alike: the text set aside is the first, with its own problem
    assert r.record["open_must_fix"] == ["Problem 0."]
    assert "version one" in (project / "output" / "needs-work" / "a.md").read_text()


@pytest.mark.parametrize(
    "spend, rounds, outcome",
    [("where_it_pays", 2, "no_progress"), ("every_round", 3, "max_rounds")],
)
@pytest.mark.settings(**CRITIC_GATE, **LOOP_ENDS_ALONE)
def test_a_rewrite_that_did_not_beat_the_best_is_not_paid_for_again(
    project, spend, rounds, outcome
):
    write_brief(project, "a.md", "Office closed Friday from 15:00.")
    writer = ScriptedModel(
        [writer_answer(f"{GOOD}\n\nThis is version {w}.") for w in ("one", "two", "three")]
    )
    # round two's rewrite is judged worse than round one's draft
    critic = ScriptedModel([critic_answer(s, must_fix=["Problem."]) for s in (4, 2, 3)])
    s = make_settings(project, **{"loop.spend": spend})
    [r] = run(s, project, writer, critic).results
    assert r.outcome == outcome
    assert len(r.record["score_history"]) == rounds
    assert writer.calls == rounds  # the third rewrite was never asked for
    # the text set aside is the best one, round one's
    assert "version one" in (project / "output" / "needs-work" / "a.md").read_text()


@pytest.mark.settings(**WHOLE_REWRITES, **LOOP_ENDS_ALONE)
def test_invented_number_blocks_approval_whatever_the_critic_says(project, settings):
    write_brief(project, "a.md", "Office closed Friday from 15:00.")
    writer = ScriptedModel([writer_answer(GOOD + " Revenue grew 17%.")] * 2)
    critic = ScriptedModel([critic_answer(5)] * 2)
    s = make_settings(project, **{"loop.max_rounds": 2})
    [r] = run(s, project, writer, critic).results
    assert r.outcome == "max_rounds"
    assert any("17" in m for m in r.record["open_must_fix"])
    assert "The number 17% appears in no source" in writer.sent[1][-1]["content"]


@pytest.mark.settings(**WHOLE_REWRITES)
def test_word_limit_and_banned_phrase(project, settings):
    write_brief(project, "a.md", "Announce the new desk.", max_words=5)
    writer = ScriptedModel(
        [
            writer_answer("We leverage a new desk for all of you now."),
            writer_answer("A new desk is here."),
        ]
    )
    critic = ScriptedModel([critic_answer(5), critic_answer(5)])
    [r] = run(settings, project, writer, critic).results
    assert r.outcome == "approved"
    prompt = writer.sent[1][-1]["content"]
    assert "at most 5" in prompt and "ban the phrase 'leverage'" in prompt


@pytest.mark.settings(**CRITIC_GATE, **LOOP_ENDS_ALONE)
def test_no_progress_stops_the_loop(project):
    s = make_settings(project, **{"loop.max_rounds": 6, "loop.no_progress_rounds": 2})
    write_brief(project, "a.md", "Office closed Friday from 15:00.")
    drafts = [
        f"{GOOD}\n\nThis is revision {w} of the memo."
        for w in ("one", "two", "three", "four", "five", "six")
    ]
    writer = ScriptedModel([writer_answer(d) for d in drafts])
    critic = ScriptedModel([critic_answer(3, must_fix=["Name the team."])] * 6)
    [r] = run(s, project, writer, critic).results
    assert r.outcome == "no_progress" and r.record["rounds"] == 3
    assert writer.calls == 3


@pytest.mark.settings(**CRITIC_GATE, **LOOP_ENDS_ALONE)
def test_a_revision_identical_to_the_last_draft_stops_early(project):
    s = make_settings(project, **{"loop.max_rounds": 6, "loop.no_progress_rounds": 4})
    write_brief(project, "a.md", "Office closed Friday from 15:00.")
    writer = ScriptedModel([writer_answer(GOOD)] * 6)
    critic = ScriptedModel([critic_answer(3, must_fix=["Name the team."])] * 6)
    [r] = run(s, project, writer, critic).results
    # The second round changed nothing: the third starts afresh, without the old draft
    # to copy; when that changes nothing either, the loop stops.
    assert r.outcome == "no_progress" and r.record["rounds"] == 3
    assert writer.calls == 3 and critic.calls == 3
    afresh = writer.sent[2][-1]["content"]
    assert "again from the start" in afresh and "<draft-" not in afresh
    assert "MUST FIX: Name the team." in afresh


def test_missing_fact_pauses_for_a_person(project, settings):
    write_brief(project, "q3.md", "Memo on Q3. Revenue: not known yet.")
    draft = "Q3 revenue was [FIGURE NEEDED: Q3 revenue]."
    writer = ScriptedModel(
        [writer_answer(draft, needs=[("[FIGURE NEEDED: Q3 revenue]", "What is the Q3 revenue?")])]
    )
    critic = ScriptedModel([critic_answer(5)])
    with Runner(settings, models={"writer": writer, "critic": critic}, strict=True) as runner:
        [r] = runner.run(project / "briefs").results
        assert r.outcome == "awaiting_human"
        assert r.record["status"] == "awaiting_human"
        assert r.record["needs_from_human"][0]["placeholder"] == "[FIGURE NEEDED: Q3 revenue]"
        snap = runner.snapshot(r.thread_id)
        assert snap.next == ("review",)
        payload = snap.interrupts[0].value
        assert payload["action_request"]["args"]["draft"] == draft
        assert payload["action_request"]["args"]["score"] == 100.0
        assert "What is the Q3 revenue?" in payload["description"]
        # the next night leaves it waiting and calls no model
        [again] = runner.run(project / "briefs").results
        assert again.outcome == "waiting" and again.model_calls == 0


def test_every_placeholder_of_the_text_is_asked_for_with_a_question_drawn_from_it(
    project, settings
):
    write_brief(project, "q3.md", "Memo on Q3. Revenue: not known yet.")
    draft = "Q3 revenue was [FIGURE NEEDED: Q3 revenue]; [DATE NEEDED: launch] is next."
    writer = ScriptedModel([writer_answer(draft)])
    critic = ScriptedModel([critic_answer(5)])
    with Runner(settings, models={"writer": writer, "critic": critic}, strict=True) as runner:
        [r] = runner.run(project / "briefs").results
        assert r.outcome == "awaiting_human"
        # in the order of the text, each asked for what the placeholder names
        assert r.record["needs_from_human"] == [
            {"placeholder": "[FIGURE NEEDED: Q3 revenue]", "question": "What is the Q3 revenue?"},
            {"placeholder": "[DATE NEEDED: launch]", "question": "When is the launch?"},
        ]
        values = runner.snapshot(r.thread_id).values
        assert not any(f["code"].startswith("placeholder-unlisted") for f in values["findings"])
        payload = runner.snapshot(r.thread_id).interrupts[0].value
        assert "What is the Q3 revenue?" in payload["description"]


@pytest.mark.settings(**CRITIC_GATE)
def test_unparseable_answer_is_never_success_and_resumes_later(project, settings):
    write_brief(project, "a.md", "Office closed Friday from 15:00.")
    writer = ScriptedModel([writer_answer(GOOD)])
    critic = ScriptedModel(["{not json", '{"scores": {"clarity": 99}}'])
    summary = run(settings, project, writer, critic)
    [r] = summary.results
    assert r.outcome == "error" and summary.failed
    assert "invalid answer twice" in r.record["error"]
    assert r.record["status"] == "failed" and r.record["output_path"] is None
    retry_prompt = critic.sent[1][-1]["content"]
    assert "not valid JSON" in retry_prompt
    # next run resumes at the critic: the writer is not asked again
    critic.queue(critic_answer(5))
    [r2] = run(settings, project, writer, critic).results
    assert r2.outcome == "approved" and writer.calls == 1 and critic.calls == 3
    assert r2.record["run_id"] == r.record["run_id"]


def test_transient_faults_are_retried_with_backoff(project):
    s = make_settings(project, **{"retry.attempts": 3})
    write_brief(project, "a.md", "Office closed Friday from 15:00.")
    writer = ScriptedModel(
        [ModelUnavailable("refused"), ModelUnavailable("refused"), writer_answer(GOOD)]
    )
    critic = ScriptedModel([critic_answer(5)])
    [r] = run(s, project, writer, critic).results
    assert r.outcome == "approved" and writer.calls == 3


def test_server_down_for_the_whole_batch_is_an_error_not_a_crash(project):
    s = make_settings(project, **{"retry.attempts": 2})
    write_brief(project, "a.md", "One.")
    write_brief(project, "b.md", "Two.")
    writer = ScriptedModel([ModelUnavailable("cannot reach Ollama")] * 4)
    summary = run(s, project, writer, ScriptedModel())
    assert [r.outcome for r in summary.results] == ["error", "error"]
    assert all("cannot reach Ollama" in r.error for r in summary.results)


@pytest.mark.settings(**CRITIC_GATE)
def test_rerun_of_finished_folder_makes_no_model_calls(project, settings):
    write_brief(project, "a.md", "Office closed Friday from 15:00.")
    write_brief(project, "b.md", "Office closed Friday from 15:00 too.")
    writer = ScriptedModel([writer_answer(GOOD)] * 2)
    critic = ScriptedModel([critic_answer(5)] * 2)
    first = run(settings, project, writer, critic)
    assert first.model_calls == 4
    second = run(settings, project, writer, critic)
    assert second.model_calls == 0 and [r.outcome for r in second.results] == ["skipped"] * 2
    with open(project / "output" / "runs.csv", newline="", encoding="utf-8-sig") as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == 2 and {r["stop_reason"] for r in rows} == {"approved"}


def test_changed_brief_gets_a_new_thread_and_rerun_flag_forces_one(project, settings):
    path = write_brief(project, "a.md", "Office closed Friday from 15:00.")
    writer = ScriptedModel([writer_answer(GOOD)] * 3)
    critic = ScriptedModel([critic_answer(5)] * 3)
    t1 = run(settings, project, writer, critic).results[0].thread_id
    path.write_text("Office closed on Friday from 15:00. Tell everyone.")
    t2 = run(settings, project, writer, critic).results[0].thread_id
    t3 = run(settings, project, writer, critic, rerun=True).results[0].thread_id
    assert len({t1, t2, t3}) == 3 and writer.calls == 3


def test_bad_inputs_are_recorded_and_the_batch_goes_on(project, settings):
    (project / "briefs" / "empty.md").write_text("")
    write_brief(project, "unknown-rubric.md", "Text.", rubric="nope")
    write_brief(project, "ok.md", "Office closed Friday from 15:00.")
    writer = ScriptedModel([writer_answer(GOOD)])
    critic = ScriptedModel([critic_answer(5)])
    summary = run(settings, project, writer, critic)
    outcomes = {r.brief_id: r.outcome for r in summary.results}
    assert outcomes == {"empty": "error", "unknown-rubric": "error", "ok": "approved"}
    errors = {r.brief_id: r.error for r in summary.results if r.error}
    assert "empty file" in errors["empty"] and "unknown rubric 'nope'" in errors["unknown-rubric"]
    # again: the same error rows are updated, not duplicated
    run(settings, project, writer, critic)
    with open(project / "output" / "runs.csv", newline="", encoding="utf-8-sig") as f:
        assert len(list(csv.DictReader(f))) == 3


@pytest.mark.settings(**CRITIC_GATE)
def test_source_file_uses_api_docs_rubric_and_is_documented_name_by_name(project, settings):
    (project / "briefs" / "calc.py").write_text(
        '"""Small sums."""\n\n\ndef add(a, b):\n    return a + b\n\n\n'
        'def half(x):\n    if x is None:\n        raise ValueError("no value")\n'
        "    return x / 2\n"
    )
    writer = ScriptedModel(
        [
            {
                "summary": "Returns a plus b.",
                "example": "add(1, 2)",
                "parameters": [
                    {"name": "a", "meaning": "a number"},
                    {"name": "`b`", "meaning": "another number"},
                ],
            },
            # an example that is not a call of the name documented is left out
            {"summary": "Half of x.", "example": "print('x')", "parameters": []},
            {"summary": "Half of x.", "example": "half(7)", "parameters": []},
        ]
    )
    scores = {"technical_accuracy": 5, "completeness": 5, "examples": 5, "structure": 5}
    critic = ScriptedModel([critic_answer(scores)])
    [r] = run(settings, project, writer, critic).results
    assert r.outcome == "approved", r.record
    # one small question per public name, each with the whole source and its own code
    assert [s["title"] for s in writer.schemas] == ["DocAnswer"] * 3
    assert "return a + b" in writer.sent[0][-1]["content"]
    assert "`add(a, b)`" in writer.sent[0][-1]["content"]
    _, body = front_matter(r.record["output_path"])
    assert body.startswith("# `calc`\n\nSmall sums.\n\n## `add(a, b)`\n\nReturns a plus b.")
    assert "- `a`: a number\n- `b`: another number" in body
    assert "Raises `ValueError` (no value)." in body
    # the results shown are the ones running the calls gave, not the model's
    assert ">>> add(1, 2)\n3\n```" in body and ">>> half(7)\n3.5\n```" in body
    assert r.record["verification"] == "examples run: 2 of 2 gave the result shown"
    # the examples' sandbox time is told apart from the other checks'
    assert r.record["time_split"]["examples"] > 0
    assert set(
        critic.schemas[0]["$defs"][next(iter(critic.schemas[0]["$defs"]))]["properties"]
    ) == set(scores)


@pytest.mark.parametrize("named_by", ["folder", "csv row"])
def test_a_source_file_is_checked_the_same_whichever_source_names_it(project, settings, named_by):
    code = '"""Sums."""\n\n\ndef add(a, b):\n    return a + b\n'
    if named_by == "folder":
        (project / "briefs" / "calc.py").write_text(code)
        source = project / "briefs"
    else:
        (project / "sheet").mkdir()
        (project / "sheet" / "calc.py").write_text(code)
        (project / "sheet" / "rows.csv").write_text(
            "id,brief,source_file\ncalc,Document this file.,calc.py\n"
        )
        source = project / "sheet" / "rows.csv"
    # the model's example shows a wrong result: running it must catch that
    writer = ScriptedModel([{"summary": "Adds.", "example": "add(2, 3)", "parameters": []}])
    critic = ScriptedModel(
        [critic_answer({"technical_accuracy": 5, "completeness": 5, "examples": 5, "structure": 5})]
    )
    [r] = run_job(
        settings, source, models={"writer": writer, "critic": critic}, strict=True
    ).results
    assert r.outcome == "approved"
    assert r.record["verification"] == "examples run: 1 of 1 gave the result shown"
    _, body = front_matter(r.record["output_path"])
    assert ">>> add(2, 3)\n5\n```" in body


def test_concurrency_runs_all_briefs(project):
    s = make_settings(project, **{"run.concurrency": 3})
    for i in range(5):
        write_brief(project, f"b{i}.md", "Office closed Friday from 15:00.", id=f"b{i}")
    writer = ScriptedModel([writer_answer(GOOD)] * 5)
    critic = ScriptedModel([critic_answer(5)] * 5)
    summary = run(s, project, writer, critic)
    assert sorted(r.outcome for r in summary.results) == ["approved"] * 5


def test_unexpected_errors_surface_under_strict(project, settings):
    write_brief(project, "a.md", "x")
    writer = ScriptedModel([RuntimeError("bug")])
    with pytest.raises(RuntimeError, match="bug"):
        run(settings, project, writer, ScriptedModel())
    # outside strict mode the same bug is a recorded error, and the batch goes on
    writer.queue(RuntimeError("bug"))
    summary = run_job(
        settings,
        project / "briefs",
        models={"writer": writer, "critic": ScriptedModel()},
        rerun=True,
    )
    assert summary.results[0].outcome == "error"
    assert "unexpected RuntimeError: bug" in summary.results[0].error


@pytest.mark.settings(**CRITIC_GATE)
def test_finalizer_polish_is_kept_only_when_it_changes_no_fact(project, settings):
    write_brief(project, "a.md", "Office closed Friday from 15:00.")
    write_brief(project, "b.md", "Office closed Friday from 15:00, again.")
    writer = ScriptedModel([writer_answer(GOOD)] * 2)
    critic = ScriptedModel([critic_answer(5)] * 2)
    polished = "# Closure\n\n" + GOOD
    finalizer = ScriptedModel([{"text": polished}, {"text": GOOD + " It costs 300 EUR."}])
    summary = run_job(
        settings,
        project / "briefs",
        strict=True,
        models={"writer": writer, "critic": critic, "finalizer": finalizer},
    )
    bodies = [front_matter(r.record["output_path"])[1] for r in summary.results]
    assert bodies == [polished.strip(), GOOD]  # the second added a number: discarded
    assert all(r.record["model_calls"] == 3 for r in summary.results)


@pytest.mark.settings(**LOOP_ENDS_ALONE)
def test_only_approved_texts_in_output_the_rest_in_needs_work(project, settings):
    # GOOD's 15:00 is no figure of this brief: a must-fix the one round cannot fix
    write_brief(project, "a.md", "Office closed Friday from 14:00. Staff work from home.")
    settings = make_settings(project, **{"loop.max_rounds": 1})
    writer = ScriptedModel([writer_answer(GOOD)])
    critic = ScriptedModel([critic_answer(5)])
    [r] = run(settings, project, writer, critic).results
    assert r.outcome == "max_rounds"
    path = Path(r.record["output_path"])
    assert path == project / "output" / "needs-work" / "a.md"
    assert not (project / "output" / "a.md").exists()
    meta, _ = front_matter(path)
    assert meta["approved"] is False and meta["uncovered_requirements"] == [
        "R1: Office closed Friday from 14:00.",
        "R2: Staff work from home.",
    ]
    assert any("15:00" in m for m in meta["open_must_fix"])
    assert r.record["uncovered"] == ["R1", "R2"]
    assert r.record["checklist"] == [
        "R1 fact: Office closed Friday from 14:00.",
        "R2 fact: Staff work from home.",
    ]
    # the brief is fixed, the text approved: it lands in output/ and the aside is gone
    (project / "briefs" / "a.md").write_text("Office closed Friday from 15:00.")
    writer.queue(writer_answer(GOOD))
    critic.queue(critic_answer(5))
    [done] = run(settings, project, writer, critic).results
    assert done.outcome == "approved" and Path(done.record["output_path"]) == (
        project / "output" / "a.md"
    )
    assert not path.exists()


def test_advice_mode_the_code_checks_decide_and_the_critic_advises(project):
    s = make_settings(project, **{"models.critic_mode": "advice"})
    write_brief(project, "a.md", "Office closed Friday from 15:00.")
    writer = ScriptedModel([writer_answer(GOOD)])
    critic = ScriptedModel([critic_answer(1, must_fix=["Add a friendly greeting."])])
    [r] = run(s, project, writer, critic).results
    # a low model score and a model must_fix do not block a text every check passes
    assert r.outcome == "approved" and r.record["score_history"] == [100.0]
    state = r.record
    assert state["open_must_fix"] == []


@pytest.mark.settings(**LOOP_ENDS_ALONE)
def test_advice_mode_a_failed_check_still_blocks(project):
    s = make_settings(project, **{"models.critic_mode": "advice", "loop.max_rounds": 1})
    write_brief(project, "a.md", "Office closed Friday from 14:00. Remote work is fine.")
    writer = ScriptedModel([writer_answer(GOOD)])
    critic = ScriptedModel([critic_answer(5)])
    [r] = run(s, project, writer, critic).results
    # GOOD gives 15:00, which no source gives: a must-fix
    assert r.outcome == "max_rounds" and any("15:00" in m for m in r.record["open_must_fix"])
    assert r.record["score"] < 100
    # the critic's points could not change that verdict: it was not asked
    assert critic.calls == 0


@pytest.mark.parametrize(
    "draft, outcome",
    [
        (GOOD, "approved"),
        pytest.param(
            "The office is closed on Friday from 16:00.",  # an hour no source gives
            "max_rounds",
            marks=settings_mark(WHOLE_REWRITES, LOOP_ENDS_ALONE),
        ),
    ],
)
def test_checks_mode_never_asks_the_critic_model_and_the_checks_decide(project, draft, outcome):
    s = make_settings(project, **{"models.critic_mode": "checks", "loop.max_rounds": 2})
    write_brief(project, "a.md", "Office closed Friday from 15:00.")
    writer = ScriptedModel([writer_answer(draft)] * 2)
    critic = ScriptedModel([], name="critic")  # any call would fail the run
    [r] = run(s, project, writer, critic).results
    assert r.outcome == outcome and critic.calls == 0
    assert r.record["models"] == {"writer": writer.name}  # no critic model was asked
    assert (r.record["open_must_fix"] == []) == (outcome == "approved")


@pytest.mark.parametrize("mode, asked", [("checks", 0), ("advice", 1), ("gate", 2)])
@pytest.mark.settings(**WHOLE_REWRITES)
def test_the_critic_is_asked_about_a_refused_draft_only_when_it_gates(project, mode, asked):
    s = make_settings(project, **{"models.critic_mode": mode, "loop.max_rounds": 2})
    write_brief(project, "a.md", "Office closed Friday from 15:00. Remote work is fine.")
    # round 1 gives an hour no source gives: refused; round 2 is right
    wrong = "The office is closed on Friday from 16:00."
    writer = ScriptedModel([writer_answer(wrong), writer_answer(GOOD + " Remote work is fine.")])
    critic = ScriptedModel([critic_answer(5), critic_answer(5)])
    [r] = run(s, project, writer, critic).results
    assert r.outcome == "approved" and critic.calls == asked


@pytest.mark.settings(**CRITIC_GATE)
def test_a_revision_that_never_comes_back_valid_sets_the_best_draft_aside(project, settings):
    write_brief(project, "a.md", "Office closed Friday from 15:00.")
    looping = "The office is closed.\n" * 6
    writer = ScriptedModel([writer_answer(GOOD), looping, looping])
    critic = ScriptedModel([critic_answer(5, must_fix=["Name the team."])])
    [r] = run(settings, project, writer, critic).results
    assert r.outcome == "error" and "no usable text twice" in r.record["error"]
    assert "kept repeating 'The office is closed.'" in r.record["error"]
    # every call counted, the failed ones too
    assert r.record["model_calls"] == 4
    path = Path(r.record["output_path"])
    assert path.parent.name == "needs-work"
    meta, body = front_matter(path)
    assert body == GOOD and meta["stop_reason"] == "error" and "repeating" in meta["error"]


@pytest.mark.parametrize("mode", ["gate", "advice", "checks"])
@pytest.mark.parametrize("empty", ["", "   \n\t "])
def test_an_empty_draft_scores_zero_and_writes_no_file(project, mode, empty):
    settings = make_settings(project, **{"models.critic_mode": mode})
    write_brief(project, "a.md", "Office closed Friday from 15:00.")
    writer = ScriptedModel([writer_answer(empty)] * 3)
    critic = ScriptedModel([critic_answer(5)] * 3)
    [r] = run(settings, project, writer, critic).results
    assert r.outcome != "approved"
    assert r.record["score"] == 0.0 and set(r.record["score_history"]) == {0.0}
    assert not r.record["output_path"]
    assert not [p for p in (project / "output").rglob("*.md")]


@pytest.mark.parametrize(
    "gap",
    [
        "[Figure Needed: Q3 revenue]",
        "[FIGURE NEEDED Q3 revenue]",
        "[TBD]",
        "[TK]",
        "[XXX]",
        "[TODO: revenue]",
        "[?]",
    ],
)
@pytest.mark.settings(**WHOLE_REWRITES)
def test_a_placeholder_in_another_spelling_is_never_approved(project, settings, gap):
    write_brief(project, "a.md", "Memo on Q3. Revenue grew. Office closed Friday from 15:00.")
    draft = f"Office closed Friday from 15:00. Revenue grew; Q3 revenue was {gap}."
    writer = ScriptedModel([writer_answer(draft)] * 3)
    critic = ScriptedModel([critic_answer(5)] * 3)
    [r] = run(settings, project, writer, critic).results
    assert r.outcome != "approved"
    assert any(gap in m for m in r.record["open_must_fix"]), r.record["open_must_fix"]
    assert not (project / "output" / "a.md").exists()


def test_lone_surrogates_from_a_model_or_a_brief_never_break_a_run(project, settings):
    write_brief(
        project, "a.md", "Office closed Friday from 15:00.", title='"Closure \\ud800 notice"'
    )  # a YAML escape
    writer = ScriptedModel(
        [writer_answer(GOOD + " \ud800", deviations=[("Use \udfff bullets", "short")])]
    )
    critic = ScriptedModel([critic_answer(5, would_improve=["Tone \ud800."])])
    summary = run(settings, project, writer, critic)
    [r] = summary.results
    assert r.outcome == "approved", r.error
    meta, body = front_matter(r.record["output_path"])
    assert body.endswith("\ufffd") and meta["title"] == "Closure \ufffd notice"
    assert r.record["deviations"][0]["point"] == "Use \ufffd bullets"


@pytest.mark.settings(**WHOLE_REWRITES)
def test_a_stopped_text_waiting_for_a_person_is_recorded_as_the_page_shows_it(project):
    from batch.loop import inbox

    s = make_settings(project, **{"loop.review": "always", "loop.max_rounds": 2})
    write_brief(project, "a.md", "Office closed Friday from 14:00. Remote work is fine.")
    # round 1 gives an hour no source gives (15:00); round 2 is worse (and has a
    # placeholder): the text a person gets is round 1's
    worse = "The office closes at [TIME NEEDED: closing time] on 3 June."
    writer = ScriptedModel(
        [
            writer_answer(GOOD),
            writer_answer(worse, needs=[("[TIME NEEDED: closing time]", "When does it close?")]),
        ]
    )
    critic = ScriptedModel([critic_answer(5), critic_answer(5)])
    [r] = run(s, project, writer, critic).results
    assert r.outcome == "awaiting_human"
    with Runner(s) as runner:
        shown = inbox.shown(runner.snapshot(r.thread_id).values)
        record = runner.runlog.by_thread(r.thread_id)
    assert shown["draft"] == GOOD and shown["stopped"] == "max_rounds"
    assert record["needs_from_human"] == [] == shown["needs_from_human"]
    assert record["open_must_fix"] == shown["must_fix"] and record["score"] == shown["score"]
    assert any("15:00" in m for m in record["open_must_fix"])


UNREAD = "Kitchen closed Fri 3 May deep clean staff take food home Thu 2 May fridge emptied 5pm"
UNREAD_TEXT = (
    "The kitchen is closed on Friday 3 May for a deep clean. Please take your food home "
    "by Thursday 2 May; the fridge is emptied at 5pm."
)


def test_a_brief_the_checks_could_not_read_waits_for_a_person_with_why(project, settings):
    # the brief is one run of notes with no break: one item for four figures. The text
    # may well be right, but the checks cannot vouch for it: never approved by default
    write_brief(project, "kitchen.md", UNREAD)
    writer = ScriptedModel([writer_answer(UNREAD_TEXT)])
    critic = ScriptedModel([critic_answer(5)])
    [r] = run(settings, project, writer, critic).results
    assert r.outcome == "awaiting_human"
    runner = Runner(settings, models={"writer": writer, "critic": critic})
    try:
        from batch.review import threads

        item = threads.waiting(runner, r.thread_id)
        assert item is not None and item.holds and "could not be read" in item.holds[0]
        assert item.waits_for() == "your look"
        payload = runner.snapshot(r.thread_id).interrupts[0].value
        assert "The checks cannot vouch for it" in payload["description"]
    finally:
        runner.close()
    assert not list((project / "output").glob("*.md"))  # nothing approved went out


def test_a_held_text_with_no_review_ends_held_and_is_set_aside(project):
    settings = make_settings(project, **{"loop.review": "never"})
    write_brief(project, "kitchen.md", UNREAD)
    writer = ScriptedModel([writer_answer(UNREAD_TEXT)])
    critic = ScriptedModel([critic_answer(5)])
    [r] = run(settings, project, writer, critic).results
    assert r.outcome == "held" and r.record["stop_reason"] == "held"
    assert not list((project / "output").glob("*.md"))
    assert list((project / "output" / "needs-work").glob("*.md"))
