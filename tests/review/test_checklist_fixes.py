"""A person fixes the brief as the checks read it: an item not for the readers, of
another kind, or with its words read wrong. The text is judged again at once, approved
in one step when nothing else stands, and the fix holds for the brief's later runs and
is counted as the reader's error."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from batch.cli import cli
from batch.errors import BriefloopError
from batch.judging.checklist.fixes import fix_counts, fixed, kept_fix, make_fix
from batch.judging.checklist.reading import brief_checklist
from batch.review import threads
from batch.run.runner import Runner, reader_fixes

from conftest import (
    ScriptedModel,
    critic_answer,
    csv_log_config,
    make_settings,
    run_one,
    write_brief,
    writer_answer,
)

ONE_ROUND = {"loop.repairs": False, "loop.max_rounds": 1}
BRIEF = "Memo to staff: we opened the Berlin office. We hired 12 people in Leeds."
# a careful text that leaves out what the brief's writer later says is not for these readers
TEXT = "We opened the Berlin office this week."


def waiting_on_leeds(project):
    settings, models, r = run_one(project, BRIEF, TEXT, "memo", **ONE_ROUND)
    assert r.outcome == "awaiting_human"
    runner = Runner(settings, models=models)
    item = threads.require_waiting(runner, r.thread_id)
    leeds = next(rid for rid, _, text, _ in item.checklist if "Leeds" in text)
    assert item.holds and any("12" in h for h in item.holds)  # the checks cannot vouch
    return runner, r.thread_id, leeds


def test_an_item_set_aside_lets_the_text_be_approved_in_the_same_step(project):
    runner, tid, leeds = waiting_on_leeds(project)
    with runner:
        done = threads.fix_item(runner, tid, leeds.lower(), "drop", by="ana", approve=True)
        assert done.approved is not None and done.approved.outcome == "approved_by_human"
        record = runner.runlog.by_thread(tid)
        assert record["decided_by"] == "ana"
        assert (project / "output" / "memo.md").exists()
        [kept] = runner.runlog.fixes("memo")
    assert (kept["item"], kept["read"], kept["was"], kept["action"], kept["by"]) == (
        leeds,
        "We hired 12 people in Leeds.",
        "fact",
        "drop",
        "ana",
    )


def test_without_approve_the_text_waits_judged_again(project):
    runner, tid, leeds = waiting_on_leeds(project)
    with runner:
        # the line was for another audience: the text must keep it out, and does
        done = threads.fix_item(runner, tid, leeds, "kind", kind="leave-out", by="ana")
        assert done.approved is None and done.item is not None
        assert done.item.holds == [] and done.item.must_fix == []
        assert done.item.plain_approval()  # one step: approve, nothing to fill or vouch for
        kinds = {rid: kind for rid, kind, _, _ in done.item.checklist}
        assert kinds[leeds] == "rule"
        story = runner.snapshot(tid).values["decision"]
        assert story["type"] == "fix" and story["by"] == "ana"


def test_a_value_read_wrong_is_fixed_to_the_words_the_readers_need(project):
    # the head count is the brief writer's own: the readers are told of the hiring only
    text = "We opened the Berlin office. We hired people in Leeds."
    settings, models, r = run_one(project, BRIEF, text, "memo", **ONE_ROUND)
    with Runner(settings, models=models) as runner:
        item = threads.require_waiting(runner, r.thread_id)
        leeds = next(rid for rid, _, words, _ in item.checklist if "Leeds" in words)
        done = threads.fix_item(runner, r.thread_id, leeds, "value", value="We hired in Leeds")
        assert done.item is not None and done.item.holds == []
        [(_, _, words, ok)] = [c for c in done.item.checklist if c[0] == leeds]
        assert (words, ok) == ("We hired in Leeds", True)
        # fixed again: the fix is made from the brief's own words, not the first fix's
        again = threads.fix_item(runner, r.thread_id, leeds, "value", value="We hired")
        assert again.fix["read"] == "We hired 12 people in Leeds."


def test_a_fix_that_asks_more_of_the_text_leaves_it_waiting_with_what_it_lacks(project):
    runner, tid, leeds = waiting_on_leeds(project)
    with runner:
        done = threads.fix_item(runner, tid, leeds, "drop")
        assert done.item is not None and done.item.plain_approval()
        # the person says the readers need the opening's date, which the text lacks
        berlin = next(rid for rid, _, words, _ in done.item.checklist if "Berlin" in words)
        more = threads.fix_item(
            runner,
            tid,
            berlin,
            "value",
            value="We opened the Berlin office on 3 March.",
            approve=True,
        )
        assert more.approved is None  # approve asked, but the text lacks what is asked now
        assert more.item is not None and not more.item.plain_approval()
        assert any("3 March" in line for line in [*more.item.holds, *more.item.must_fix])
        assert len(runner.runlog.fixes("memo")) == 2


@pytest.mark.parametrize(
    ("item", "action", "kind", "value", "said"),
    [
        ("R99", "drop", "", "", "not an item of this thread's checklist"),
        ("R2", "rename", "", "", "a fix is one of drop, kind, value"),
        ("R2", "kind", "headline", "", "the kind is one of"),
        ("R2", "kind", "fact", "", "read as fact already"),
        ("R2", "value", "", "   ", "needs its words"),
        ("R2", "value", "", "x" * 1_001, "the limit is 1,000"),
    ],
)
def test_a_fix_that_cannot_be_made_is_refused_and_changes_nothing(
    project, item, action, kind, value, said
):
    runner, tid, _ = waiting_on_leeds(project)
    with runner:
        mark = threads.state_mark(runner, tid)
        with pytest.raises(BriefloopError, match=said):
            threads.fix_item(runner, tid, item, action, kind, value)
        assert threads.state_mark(runner, tid) == mark
        assert runner.runlog.fixes() == []


def test_a_fix_from_a_page_opened_before_the_thread_moved_is_refused(project):
    runner, tid, leeds = waiting_on_leeds(project)
    with runner:
        with pytest.raises(BriefloopError, match="has changed since this page was opened"):
            threads.fix_item(runner, tid, leeds, "drop", seen="an-older-checkpoint")
        assert runner.runlog.fixes() == []


def test_the_fix_holds_for_a_rerun_of_the_same_brief(project):
    runner, tid, leeds = waiting_on_leeds(project)
    with runner:
        threads.fix_item(runner, tid, leeds, "drop", by="ana", approve=True)
    settings = make_settings(project, **ONE_ROUND)
    models = {
        "writer": ScriptedModel([writer_answer(TEXT)]),
        "critic": ScriptedModel([critic_answer(5)]),
    }
    with Runner(settings, models=models, strict=True) as again:
        [result] = again.run(project / "briefs", rerun=True).results
        values = again.snapshot(result.thread_id).values
    assert result.thread_id != tid
    assert [f["read"] for f in values["checklist_fixes"]] == ["We hired 12 people in Leeds."]
    assert result.outcome == "approved"  # nothing held: the line is not for these readers


def test_review_show_lists_the_brief_as_read_before_the_text_and_fix_reports(project):
    runner, tid, leeds = waiting_on_leeds(project)
    runner.close()
    cfg = str(csv_log_config(project))
    shown = CliRunner().invoke(cli, ["--config", cfg, "review", "show", tid])
    assert shown.exit_code == 0, shown.output
    at = shown.output.index("The brief as the checks read it")
    assert at < shown.output.index(TEXT)
    assert f"{leeds} fact: We hired 12 people in Leeds." in shown.output
    both = CliRunner().invoke(cli, ["--config", cfg, "review", "fix", tid, leeds])
    assert both.exit_code != 0 and "give one of --drop" in both.output
    fixed_now = CliRunner().invoke(
        cli, ["--config", cfg, "review", "fix", tid, leeds, "--drop", "--by", "bo"]
    )
    assert fixed_now.exit_code == 0, fixed_now.output
    assert "not for the readers" in fixed_now.output
    assert "nothing else holds it back" in fixed_now.output
    listed = CliRunner().invoke(cli, ["--config", cfg, "runs", "--fixes", "--json"])
    data = json.loads(listed.output)
    assert data["counts"]["items_fixed"] == 1 and data["counts"]["by_kind_read"] == {"fact": 1}
    assert 0 < data["counts"]["read_right"] < 1


def test_the_thread_page_puts_the_checklist_first_and_fixes_from_a_form(project):
    from test_web import client_for, csrf_of

    settings, models, r = run_one(project, BRIEF, TEXT, "memo", **ONE_ROUND)
    with client_for(settings, models) as client:
        page = client.get(f"/thread/{r.thread_id}").text
        assert page.index('id="checklist"') < page.index('id="answer"')
        leeds = next(
            line.split('id="item-')[1].split('"')[0]
            for line in page.splitlines()
            if 'id="item-' in line and "Leeds" in page[page.index(line) : page.index(line) + 400]
        )
        seen = page.split('name="seen" value="')[1].split('"')[0]
        sent = client.post(
            f"/thread/{r.thread_id}",
            data={
                "csrf": csrf_of(page),
                "seen": seen,
                "action": "fix",
                "fix_item": leeds,
                "fix_as": "drop",
                "fix_approve": "1",
                "name": "cy",
            },
        )
        assert sent.status_code == 200, sent.text
        assert "fixed" in sent.text and "Approved" in sent.text
    with Runner(settings, models=models) as runner:
        assert runner.runlog.by_thread(r.thread_id)["decided_by"] == "cy"
        assert [f["by"] for f in runner.runlog.fixes()] == ["cy"]


def test_fixes_are_made_by_the_words_read_not_the_item_number():
    read = brief_checklist("Note: the bins go out on Monday. Um, that's everything, thanks!")
    chatter = next(r for r in read if "everything" in r["text"])
    fix = make_fix(read, chatter["id"], "drop")
    # the brief edited: a line before it moves every number on; the fix still finds it
    edited = brief_checklist(
        "Note: the gate code is 4471. The bins go out on Monday. Um, that's everything, thanks!"
    )
    assert not any("everything" in r["text"] for r in fixed(edited, [fix]))
    assert len(fixed(edited, [fix])) == len(edited) - 1
    # a brief without those words: the fix does nothing
    other = brief_checklist("Note: the bins go out on Tuesday.")
    assert fixed(other, [fix]) == other
    # an action this version does not know changes nothing
    odd = kept_fix({**fix, "action": "merge"})
    assert fixed(read, [odd]) == read


def test_fix_counts_count_each_item_read_wrong_once():
    read = brief_checklist("Note: the bins go out on Monday. Um, that's everything, thanks!")
    chatter = next(r for r in read if "everything" in r["text"])
    first = make_fix(read, chatter["id"], "kind", kind="style")
    second = make_fix(read, chatter["id"], "drop")
    counts = fix_counts([("bins", first), ("bins", second)], items_read=10)
    assert counts["fixes"] == 2 and counts["items_fixed"] == 1
    assert counts["by_fix"] == {"drop": 1} and counts["read_right"] == 0.9
    assert fix_counts([], 0)["read_right"] is None


def test_reader_fixes_reads_an_empty_project(project):
    write_brief(project, "x.md", "Memo: hello.", id="x")
    rows, counts = reader_fixes(make_settings(project))
    assert rows == [] and counts["items_fixed"] == 0


def test_bench_fixes_replays_each_fix_against_todays_reader(project, tmp_path):
    from bench.fixes import main as bench_fixes

    runner, tid, leeds = waiting_on_leeds(project)
    with runner:
        threads.fix_item(runner, tid, leeds, "drop")
    out = tmp_path / "fixes.json"
    assert bench_fixes(["--config", str(csv_log_config(project)), "--json", str(out)]) == 0
    result = json.loads(out.read_text())
    assert result["counts"]["items_fixed"] == 1
    # today's reader reads the line as the fixed reading did: the error stands
    assert result["replayed"] == {"stands": 1, "changed": 0, "gone": 0}
