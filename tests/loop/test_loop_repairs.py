"""Repairs by findings through the whole loop: the real graph and checkpointer, scripted
models. Round 1 is a whole draft; later rounds repair the best draft so far."""

from __future__ import annotations

import json
from pathlib import Path

from batch.nightly.job import run_job
from batch.run.runner import Runner

from conftest import ScriptedModel, critic_answer, make_settings, write_brief, writer_answer

LAMP = (
    "Write the shop-page description of the Lumo desk lamp.\n\n"
    "Facts: aluminium arm, USB-C charging port in the base, 5 brightness levels, "
    "folds flat for travel."
)
NO_ARM = (
    "The Lumo desk lamp has a USB-C charging port in the base and 5 brightness "
    "levels. It folds flat for travel."
)
CRITERIA = {"accuracy": 4, "benefits": 4, "tone": 4, "length_fit": 4}


def settings_for(project, **overrides):
    return make_settings(
        project,
        **{
            "loop.repairs": True,
            "models.critic_mode": "advice",
            "loop.max_rounds": 3,
            "loop.review": "never",
            **overrides,
        },
    )


def critic():
    return ScriptedModel([critic_answer(CRITERIA)] * 6)


def body(path: str) -> str:
    return Path(path).read_text(encoding="utf-8").split("---\n", 2)[2].strip()


def run(settings, project, writer, critic_model):
    return run_job(
        settings, project / "briefs", models={"writer": writer, "critic": critic_model}, strict=True
    )


def test_a_missing_fact_is_repaired_in_round_two_and_approved(project):
    write_brief(project, "lamp.md", LAMP, id="lamp", rubric="product-description")
    writer = ScriptedModel([writer_answer(NO_ARM), {"text": "Its arm is aluminium."}])
    settings = settings_for(project)
    [r] = run(settings, project, writer, critic()).results
    assert r.outcome == "approved", r.record
    assert r.record["rounds"] == 2 and r.record["score_history"][-1] == 100.0
    text = body(r.record["output_path"])
    assert NO_ARM in text and "Its arm is aluminium." in text
    # the second writer call was one small task, not a whole rewrite
    assert writer.schemas[1]["title"] == "RepairAnswer"
    task = writer.sent[1][-1]["content"]
    assert "aluminium arm" in task and NO_ARM in task
    with Runner(settings) as runner:
        log = runner.snapshot(r.thread_id).values["writer_log"]
    [repaired] = [e for e in log if e["kind"] == "repairs"]
    assert repaired["round"] == 2
    assert [a["kept"] for a in repaired["attempts"]] == [True]


def test_repairs_the_checks_refuse_are_rolled_back_and_the_best_draft_is_kept(project):
    write_brief(project, "lamp.md", LAMP, id="lamp", rubric="product-description")
    # every repair invents a name; the whole rewrite after them is worse still
    writer = ScriptedModel(
        [
            writer_answer(NO_ARM),
            {"text": "Its arm is aluminium, made by Acme."},
            {"text": "The arm is aluminium, chosen by Jenny."},
            writer_answer("A lamp."),
            writer_answer("A lamp."),
        ]
    )
    settings = settings_for(project, **{"loop.max_rounds": 2})
    [r] = run(settings, project, writer, critic()).results
    # the arm is a plain fact with nothing checkable: the repairer tries to state it,
    # its repairs invent names and are rolled back, and the text goes on as it was
    # (words alone never hold a text: docs/briefs.md)
    assert r.outcome == "approved"
    assert body(r.record["output_path"]) == NO_ARM
    # whole drafts come as plain text (no schema), repairs as one short JSON string
    assert [s and s["title"] for s in writer.schemas] == [None, "RepairAnswer", "RepairAnswer"]
    # the samples differ: another seed, warmer
    samplings = writer.samplings[1:3]
    assert samplings[0].seed != samplings[1].seed
    assert samplings[1].temperature > samplings[0].temperature


def test_best_of_n_first_drafts_stop_at_the_first_the_checks_pass(project):
    write_brief(project, "lamp.md", LAMP, id="lamp", rubric="product-description")
    good = NO_ARM.replace("It folds", "Its arm is aluminium. It folds")
    # the first sample gives a figure no source gives: a must-fix
    wrong = NO_ARM.replace("5 brightness", "7 brightness")
    writer = ScriptedModel([writer_answer(wrong), writer_answer(good), writer_answer("x")])
    settings = settings_for(project, **{"loop.drafts": 3})
    [r] = run(settings, project, writer, critic()).results
    assert r.outcome == "approved" and r.record["rounds"] == 1
    assert body(r.record["output_path"]) == good
    assert writer.calls == 2  # the second passed: no third was drawn
    assert writer.samplings[0] is None and writer.samplings[1].seed is not None
    with Runner(settings) as runner:
        [entry] = runner.snapshot(r.thread_id).values["writer_log"]
    assert entry["kind"] == "first drafts"
    assert [s["must_fix"] for s in entry["samples"]] == [1, 0]
    assert entry["chosen"] == 1  # what a thread's story says the checks chose


def test_best_of_n_keeps_the_best_when_none_passes_and_skips_invalid_samples(project):
    write_brief(project, "lamp.md", LAMP, id="lamp", rubric="product-description")
    # none passes: each gives figures no source gives, the last the fewest
    worse = "The Lumo desk lamp has 7 levels and a 3-year warranty."
    looping = "The Lumo desk lamp is a lamp.\n" * 5  # stopped and retried, then again
    best = NO_ARM.replace("travel.", "travel, with a 2-year warranty.")
    writer = ScriptedModel([writer_answer(worse), looping, looping, writer_answer(best)])
    settings = settings_for(project, **{"loop.drafts": 3, "loop.max_rounds": 1})
    [r] = run(settings, project, writer, critic()).results
    assert r.outcome == "max_rounds"
    assert body(r.record["output_path"]) == best
    with Runner(settings) as runner:
        [entry] = runner.snapshot(r.thread_id).values["writer_log"]
    assert [s["valid"] for s in entry["samples"]] == [True, False, True]
    json.dumps(entry)  # the log is plain data, fit for the checkpoint and a page
