"""A night on a budget: a brief stops with `budget` before a round it cannot pay for,
no model call starts once its seconds are spent (so it passes them by one call at most),
a batch past its hours stops cleanly and the next run resumes it, and the run log says
where each run's time went."""

from __future__ import annotations

import re
import time

import pytest

from batch.errors import BatchTimeUp, ModelUnavailable, OutOfBudget
from batch.loop.routing import machine_ending, over_budget
from batch.models import ask, base
from batch.models.budget import batch_ends_at, spending
from batch.nightly.job import run_job
from batch.review import threads as review
from batch.run.records import time_split
from batch.run.runner import Runner
from batch.sheets.run_rows import time_words
from batch.store.backends import open_runlog
from batch.thread_inputs import limits_of

from conftest import (
    CRITIC_GATE,
    LOOP_ENDS_ALONE,
    WHOLE_REWRITES,
    ScriptedModel,
    critic_answer,
    make_settings,
    write_brief,
    writer_answer,
)

GOOD = "The office is closed on Friday from 15:00."
MUST = "Name the team that closes the office."


class Clock:
    """Model time that passes only when a model answers: what a call costs is exact."""

    def __init__(self) -> None:
        self.now = 0.0

    def perf_counter(self) -> float:
        return self.now


class CostlyModel(ScriptedModel):
    def __init__(self, answers, clock: Clock, cost: float, name: str = "costly"):
        super().__init__(answers, name=name)
        self.clock, self.cost = clock, cost

    def complete(self, messages, schema, max_tokens=None, sampling=None):
        self.clock.now += self.cost
        return super().complete(messages, schema, max_tokens, sampling)


@pytest.fixture
def clock(monkeypatch) -> Clock:
    clock = Clock()
    monkeypatch.setattr(base, "time", clock)  # the clock that times each model call
    return clock


def stuck(
    clock: Clock, rounds: int, writer_cost: float, critic_cost: float, text: str = GOOD
) -> dict[str, ScriptedModel]:
    """A writer and a critic that never agree, each call costing what is given."""
    return {
        "writer": CostlyModel(
            [writer_answer(f"{text}\n\nRevision {i}.") for i in range(rounds)],
            clock,
            writer_cost,
            "writer",
        ),
        "critic": CostlyModel(
            [critic_answer(3, must_fix=[MUST])] * rounds, clock, critic_cost, "critic"
        ),
    }


def budget_settings(project, limit, **over):
    return make_settings(
        project,
        **{
            "loop.review": "unfinished",
            "loop.max_rounds": 5,
            "loop.max_model_seconds": limit,
            **over,
        },
    )


def night(project, settings, models):
    write_brief(
        project,
        "closure.md",
        "Office closed Friday from 15:00.",
        id="closure",
        title="Office closure",
    )
    return run_job(settings, project / "briefs", models=models, strict=True)


def state_of(costs: list[float], rounds: int, limit: float | None, max_rounds: int = 9):
    return {
        "round": rounds,
        "calls": [{"seconds": c} for c in costs],
        "limits": {
            "max_rounds": max_rounds,
            "no_progress_rounds": 9,
            "review": "never",
            "threshold": 80,
            "max_revisions": 3,
            "max_model_seconds": limit,
        },
        "score_history": [],
        "must_fix_history": [],
    }


# -- the routing's estimate: pure -------------------------------------------------------


@pytest.mark.parametrize(
    "costs, rounds, limit, ending",
    [
        ([30, 30], 1, 100, "budget"),  # 60 spent, a round costs 60: 120 > 100
        ([20, 20], 1, 100, None),  # 40 + 40 = 80: one more round fits
        ([20, 20, 20, 20], 2, 100, "budget"),  # 80 + 40 = 120
        ([20, 20, 20, 20], 2, 130, None),  # 120 <= 130
        ([10] * 8, 4, None, None),  # no limit
        ([200], 1, 100, "budget"),  # already past it
    ],
)
def test_a_round_that_would_pass_the_budget_is_not_started(costs, rounds, limit, ending):
    state = state_of(costs, rounds, limit)
    assert machine_ending(state) == ending
    assert over_budget(state) == (ending == "budget")


def stepped_state(
    spent: list[tuple[str, float]],
    limit: float,
    *,
    best_round: int = 1,
    rounds: int = 1,
    repairable: bool = True,
    repair_samples: int = 2,
    logged: list[tuple[str, float]] | None = None,
) -> dict:
    """A thread `rounds` rounds in whose calls cost `spent` (role, seconds) and whose
    writer steps are `logged` (kind, seconds); its best draft from `best_round`, with a
    must-fix that has a repair or one that has none."""
    finding = {"code": "number:23", "message": "23 is in no source", "severity": "must_fix"}
    if repairable:
        finding["repair"] = {"kind": "placeholder"}
    state = state_of([], rounds, limit)
    state["limits"]["repair_samples"] = repair_samples
    state["calls"] = [{"role": role, "seconds": s} for role, s in spent]
    state["writer_log"] = [
        {"round": 1, "kind": kind, "seconds": s}
        for kind, s in (logged if logged is not None else [("first drafts", spent[0][1])])
    ]
    state["best"] = {
        "draft": "text",
        "score": 50.0,
        "round": best_round,
        "needs_from_human": [],
        "deviations": [],
        "must_fix": ["23"],
    }
    state["findings"] = [finding]
    return state


@pytest.mark.parametrize(
    "spent, limit, kw, ending",
    [
        # a round of API docs cost 165 of 300 s; its repairs may start, cut at the edge
        ([("writer", 165)], 300, {}, None),
        ([("writer", 165)], 165, {}, "budget"),  # nothing left at all
        # the last round did not beat the best: the next writes the whole text again
        ([("writer", 165), ("writer", 20)], 300, {"best_round": 1, "rounds": 2}, "budget"),
        ([("writer", 165)], 300, {"repairable": False}, "budget"),  # no repair applies
        ([("writer", 165)], 300, {"repair_samples": 0}, "budget"),  # loop.repairs = false
        ([("writer", 165)], 331, {"repairable": False}, None),  # a whole round still fits
        # a whole round costs the dearest whole draft and critic call (100 + 30), not the
        # average round (70): 140 spent + 130 > 250, <= 280
        (
            [("writer", 100), ("critic", 30), ("writer", 10)],
            250,
            {
                "repairable": False,
                "rounds": 2,
                "best_round": 2,
                "logged": [("first drafts", 100), ("repairs", 10)],
            },
            "budget",
        ),
        (
            [("writer", 100), ("critic", 30), ("writer", 10)],
            280,
            {
                "repairable": False,
                "rounds": 2,
                "best_round": 2,
                "logged": [("first drafts", 100), ("repairs", 10)],
            },
            None,
        ),
    ],
)
def test_a_repair_round_starts_while_seconds_are_left_a_whole_round_only_if_it_fits(
    spent, limit, kw, ending
):
    state = stepped_state(spent, limit, **kw)
    assert machine_ending(state) == ending
    assert over_budget(state) == (ending == "budget")


def test_max_rounds_is_named_before_the_budget_and_old_threads_have_no_budget():
    assert machine_ending(state_of([90], 3, 100, max_rounds=3)) == "max_rounds"
    old = state_of([500], 1, None)
    del old["limits"]["max_model_seconds"]  # a thread begun before budgets existed
    assert machine_ending(old) is None


# -- the hard edge: no call starts once the seconds are spent ---------------------------


def test_no_call_starts_once_the_brief_has_spent_its_seconds(clock):
    model = CostlyModel([critic_answer(4)] * 3, clock, 6.0)
    stats: list = []
    with spending(10.0, 3.0):  # 3 of 10 spent: one call may start, and runs over
        ask(model, "critic", [{"role": "user", "content": "x"}], _Answer, stats)
        assert sum(s.seconds for s in stats) == 6.0
        ask(model, "critic", [{"role": "user", "content": "x"}], _Answer, stats)  # 9 < 10
        with pytest.raises(OutOfBudget, match="15 of 10 s"):
            ask(model, "critic", [{"role": "user", "content": "x"}], _Answer, stats)
    assert model.calls == 2  # the refused call never reached the model
    with spending(None, 1e9):  # no limit
        ask(model, "critic", [{"role": "user", "content": "x"}], _Answer, stats)
    assert model.calls == 3


def test_no_call_starts_after_the_batch_hours_end(clock):
    model = CostlyModel([critic_answer(4)], clock, 1.0)
    with batch_ends_at(time.monotonic() - 1), pytest.raises(BatchTimeUp):
        ask(model, "critic", [{"role": "user", "content": "x"}], _Answer, [])
    assert model.calls == 0
    with batch_ends_at(time.monotonic() + 60):
        ask(model, "critic", [{"role": "user", "content": "x"}], _Answer, [])
    assert model.calls == 1


def test_stop_signals_are_not_errors_and_the_batch_end_passes_every_budget_handler(clock):
    """A handler of the brief's budget (`except OutOfBudget`) never takes the batch's
    end, and no handler of a person's errors (`except BriefloopError`) takes either."""
    from batch.errors import BriefloopError

    model = CostlyModel([critic_answer(4)], clock, 1.0)
    with pytest.raises(BatchTimeUp):  # passes the budget handler
        try:
            with batch_ends_at(time.monotonic() - 1):
                ask(model, "critic", [{"role": "user", "content": "x"}], _Answer, [])
        except OutOfBudget:
            pytest.fail("the batch's end was taken for the brief's budget")
    for signal in (OutOfBudget, BatchTimeUp):
        with pytest.raises(signal):
            try:
                raise signal("time is up")
            except BriefloopError:
                pytest.fail(f"{signal.__name__} was taken for a person's error")


from pydantic import BaseModel  # noqa: E402


class _Answer(BaseModel):
    must_fix: list[str]
    would_improve: list[str]
    scores: dict[str, int]


# -- the loop ---------------------------------------------------------------------------


@pytest.mark.parametrize("limit, writer_rounds", [(100, 1), (200, 3), (None, 5)])
@pytest.mark.settings(**CRITIC_GATE, **WHOLE_REWRITES)
def test_the_loop_stops_with_budget_and_the_text_waits_as_needs_work(
    project, clock, limit, writer_rounds
):
    s = budget_settings(project, limit)
    models = stuck(clock, 5, writer_cost=40, critic_cost=20)
    summary = night(project, s, models)
    [result] = summary.results
    assert result.outcome == "awaiting_human"
    assert models["writer"].calls == writer_rounds
    with Runner(s) as runner:
        [item] = review.list_waiting(runner)
        record = runner.runlog.by_thread(result.thread_id)
    ending = "budget" if limit is not None else "max_rounds"
    assert record["unfinished"] == ending and item.stopped == ending
    if limit is not None:
        assert item.waits_for() == "needs work (its model time ran out)"
        assert record["model_seconds"] <= limit
    # where the time went: the first draft, the later rounds, the critic
    split = record["time_split"]
    assert split["first draft"] == 40 and split["critic"] == 20 * writer_rounds
    assert split.get("repairs", 0) == 40 * (writer_rounds - 1)


def test_a_round_cut_at_its_spent_budget_passes_it_by_one_call_at_most(project, clock):
    # four first drafts are sampled, each 40 s, none passing the checks; 100 s allowed
    s = budget_settings(project, 100, **{"loop.drafts": 4})
    bad = "The office is closed on Friday."  # the hour is missing: the checks refuse it
    models = stuck(clock, 4, writer_cost=40, critic_cost=20, text=bad)
    summary = night(project, s, models)
    [result] = summary.results
    with Runner(s) as runner:
        record = runner.runlog.by_thread(result.thread_id)
        values = runner.snapshot(result.thread_id).values
    assert models["writer"].calls == 3  # 0, 40, 80 spent when each started; 120: no
    assert models["critic"].calls == 0  # the gate is never passed unasked
    assert record["model_seconds"] == 120 <= 100 + 40
    assert result.outcome == "awaiting_human" and record["unfinished"] == "budget"
    assert values["best"]["draft"].startswith(bad)  # the best sampled draft is kept


def test_a_dear_first_draft_is_still_repaired_within_the_seconds_left(project, clock):
    # 70 of 100 s on the first draft: a second whole draft would not fit, but repairs
    # of the first may start (here made by code, for nothing)
    s = budget_settings(project, 100, **{"loop.repairs": True, "models.critic_mode": "checks"})
    models = {
        "writer": CostlyModel(
            [writer_answer(f"{GOOD} We leverage Friday to tidy up.")], clock, 70, "writer"
        ),
        "critic": ScriptedModel([], name="critic"),
    }
    summary = night(project, s, models)
    [result] = summary.results
    with Runner(s) as runner:
        values = runner.snapshot(result.thread_id).values
    assert result.outcome == "approved", values.get("must_fix")
    assert values["round"] == 2 and "leverage" not in values["draft"]
    assert models["writer"].calls == 1 and models["critic"].calls == 0


def test_advice_mode_approves_a_passing_draft_without_the_unasked_critic(project, clock):
    s = budget_settings(project, 30, **{"models.critic_mode": "advice"})
    models = {
        "writer": CostlyModel([writer_answer(GOOD)], clock, 40, "writer"),
        "critic": CostlyModel([critic_answer(5)], clock, 20, "critic"),
    }
    summary = night(project, s, models)
    [result] = summary.results
    assert result.outcome == "approved" and models["critic"].calls == 0
    with Runner(s) as runner:
        values = runner.snapshot(result.thread_id).values
    assert any("critic was not asked" in w for w in values["would_improve"])


@pytest.mark.settings(**CRITIC_GATE, **WHOLE_REWRITES)
def test_a_send_back_after_the_budget_gives_as_many_seconds_again(project, clock):
    s = budget_settings(project, 100)
    models = stuck(clock, 1, writer_cost=40, critic_cost=20)
    summary = night(project, s, models)
    tid = summary.results[0].thread_id
    models["writer"].queue(writer_answer(f"{GOOD}\n\nThe facilities team closes it."))
    models["critic"].queue(critic_answer(3, must_fix=[MUST]))
    with Runner(s, models=models, strict=True) as runner:
        result = review.answer(runner, tid, "revise", {}, text="Name the team.", by="ana", rounds=3)
        values = runner.snapshot(tid).values
        record = runner.runlog.by_thread(tid)
        note = review.waiting(runner, tid).revision_note
    # the person is told why fewer rounds ran than they gave
    assert note == "Sent back for 3 more rounds, it ran 1 and stopped: its model time ran out."
    # a new round ran (not stopped at once), and the estimate stopped it after one
    assert models["writer"].calls == 2 and values["round"] == 2
    assert result.outcome == "awaiting_human" and record["unfinished"] == "budget"
    assert limits_of(values).max_model_seconds == 160  # 60 spent + 100 again


@pytest.mark.settings(**CRITIC_GATE, **WHOLE_REWRITES)
def test_the_message_and_the_brief_line_say_the_model_time_ran_out(project, clock, webhook):
    url, received = webhook
    s = budget_settings(project, 100, **{"notify.webhook_url": url})
    summary = night(project, s, stuck(clock, 1, writer_cost=40, critic_cost=20))
    [sent] = [body["text"] for body in received]
    assert re.search(
        r"needs work: the machine could not finish it \(its model time ran "
        r"out\)",
        sent,
    ), sent
    from batch.cli.base import describe_result

    line = describe_result(summary.results[0])
    assert "time: first draft 40 s, critic 20 s" in line, line


def test_time_split_tells_the_examples_apart_from_the_other_checks():
    split = time_split(
        [("writer", 1, 30.0), ("writer", 2, 12.0), ("critic", 1, 8.0)], [0.5, 0.25], [4.0, 2.0]
    )
    assert split == {
        "first draft": 30.0,
        "repairs": 12.0,
        "critic": 8.0,
        "examples": 6.0,
        "checks": 0.8,
    }
    # a text brief runs no example: no such step in its line
    assert "examples" not in time_split([("writer", 1, 30.0)], [0.5], [0.0, 0.0])


def test_time_words_reads_like_a_sentence():
    split = {"first draft": 33.3, "repairs": 29.2, "critic": 80.6, "checks": 0.4}
    assert time_words(split) == "first draft 33 s, repairs 29 s, critic 81 s, checks 0.4 s"


@pytest.mark.settings(**CRITIC_GATE, **WHOLE_REWRITES)
def test_the_page_says_why_it_stopped_and_where_the_time_went(project, clock):
    from starlette.testclient import TestClient

    from batch.review import web

    s = budget_settings(project, 100)
    models = stuck(clock, 1, writer_cost=40, critic_cost=20)
    tid = night(project, s, models).results[0].thread_id
    client = TestClient(web.create_app(s, models=models, strict=True))
    assert 'class="needs-work">needs work (its model time ran out)' in client.get("/").text
    with Runner(s, models=models, strict=True) as runner:
        review.answer(runner, tid, "approve", {}, by="ana", override="good enough")
    story = client.get(f"/thread/{tid}").text
    assert "Model time: 60 s in 2 call(s) · first draft 40 s, critic 20 s" in story
    runs = client.get("/runs").text
    assert 'title="first draft 40 s, critic 20 s"' in runs


# -- the batch's hours ------------------------------------------------------------------


class SlowModel(ScriptedModel):
    """Real seconds per call: the batch's hours are wall-clock time."""

    def __init__(self, answers, seconds: float, name: str):
        super().__init__(answers, name=name)
        self.seconds = seconds
        self.started: list[float] = []  # when each call began (time.monotonic)

    def complete(self, messages, schema, max_tokens=None, sampling=None):
        self.started.append(time.monotonic())
        time.sleep(self.seconds)
        return super().complete(messages, schema, max_tokens, sampling)


def slow_models(seconds: float, rounds: int) -> dict[str, ScriptedModel]:
    return {
        "writer": SlowModel(
            [writer_answer(f"{GOOD}\n\nRevision {i}.") for i in range(rounds)], seconds, "writer"
        ),
        "critic": SlowModel([critic_answer(3, must_fix=[MUST])] * rounds, seconds, "critic"),
    }


@pytest.mark.settings(**CRITIC_GATE, **WHOLE_REWRITES, **LOOP_ENDS_ALONE)
def test_a_batch_past_its_hours_stops_cleanly_and_the_next_run_resumes_it(project, webhook):
    url, received = webhook
    call, seconds = 0.4, 2.0
    hours = seconds / 3600
    s = make_settings(
        project,
        **{
            "loop.max_rounds": 3,
            "run.max_hours": hours,
            "loop.max_model_seconds": None,
            "notify.webhook_url": url,
        },
    )
    for name in ("a", "b", "c"):
        write_brief(project, f"{name}.md", "Office closed Friday from 15:00.", id=name)
    models = slow_models(call, 3 * 3)
    started = time.monotonic()
    summary = run_job(s, project / "briefs", models=models, strict=True)
    took = time.monotonic() - started
    outcomes = {r.brief_id: r.outcome for r in summary.results}
    assert outcomes == {"a": "stopped", "b": "not_started", "c": "not_started"}, outcomes
    # the hours plus the one call in flight, plus what the batch does around its calls
    assert took <= seconds + call + 1.5, took
    begun = sorted(models["writer"].started + models["critic"].started)
    # none began past the hours (counted from before the first call began)
    assert begun and all(t < begun[0] + seconds for t in begun)
    [sent] = [body["text"] for body in received]
    assert "out of time" in sent and "1 brief(s) stopped part way, 2 not started" in sent
    with open_runlog(s) as log:
        row = log.by_thread(summary.results[0].thread_id)
        batch_row = log.batches()[0]
    assert row["status"] == "stopped" and "next run" in row["error"]
    assert batch_row["status"] == "stopped"

    # the next night, with no limit: every brief ends as an uninterrupted run would
    s2 = make_settings(
        project, **{"loop.max_rounds": 3, "run.max_hours": None, "loop.max_model_seconds": None}
    )
    summary2 = run_job(s2, project / "briefs", models=models, strict=True)
    assert {r.brief_id: r.outcome for r in summary2.results} == dict.fromkeys("abc", "max_rounds")
    # nothing asked twice: a's answered calls were kept, only the rest made now
    assert models["writer"].calls + models["critic"].calls == 3 * 6
    with open_runlog(s2) as log:
        row = log.by_thread(summary.results[0].thread_id)
    assert row["status"] == "finished" and row["rounds"] == 3 and not row["error"]


@pytest.mark.settings(**CRITIC_GATE, **WHOLE_REWRITES, **LOOP_ENDS_ALONE)
def test_twenty_briefs_on_a_budget_of_hours_end_within_it_plus_one_call(project):
    """The night's promise at the size of a night: 20 briefs, hours for a handful; the
    batch ends within its hours and one call, and every brief is finished, stopped part
    way or not started: none lost, none twice. The next run finishes them all, asking
    nothing already answered."""
    call, seconds, briefs = 0.1, 2.0, 20
    s = make_settings(
        project,
        **{"loop.max_rounds": 2, "run.max_hours": seconds / 3600, "loop.max_model_seconds": None},
    )
    for i in range(briefs):
        write_brief(project, f"b{i:02}.md", f"Office {i} closed Friday from 15:00.", id=f"b{i:02}")
    models = slow_models(call, 2 * briefs)
    started = time.monotonic()
    summary = run_job(s, project / "briefs", models=models, strict=True)
    took = time.monotonic() - started
    assert took <= seconds + call + 1.5, took
    outcomes = [r.outcome for r in summary.results]
    assert sorted(r.brief_id for r in summary.results) == [f"b{i:02}" for i in range(briefs)]
    done = outcomes.count("max_rounds")
    assert 1 <= done < briefs and outcomes.count("stopped") <= 1
    assert done + outcomes.count("stopped") + outcomes.count("not_started") == briefs
    answered = models["writer"].calls + models["critic"].calls

    s2 = make_settings(
        project, **{"loop.max_rounds": 2, "run.max_hours": None, "loop.max_model_seconds": None}
    )
    summary2 = run_job(s2, project / "briefs", models=models, strict=True)
    again = {r.brief_id: r.outcome for r in summary2.results}
    assert sorted(again) == [f"b{i:02}" for i in range(briefs)]
    assert set(again.values()) == {"max_rounds"} | ({"skipped"} if done else set()), again
    # each brief's four calls made once across both nights
    assert models["writer"].calls + models["critic"].calls == 4 * briefs
    assert answered < 4 * briefs


@pytest.mark.parametrize("attempts", [3, 10])
def test_failed_attempts_are_charged_so_retries_stop_at_the_budget(project, clock, attempts):
    s = budget_settings(project, 1, **{"retry.attempts": attempts})
    models = {
        # each call costs 0.4 s and fails as a lost connection does: a fault the graph
        # retries
        "writer": CostlyModel(
            [ModelUnavailable("connection reset by peer")] * 12, clock, 0.4, "writer"
        ),
        "critic": CostlyModel([critic_answer(5)], clock, 0.1, "critic"),
    }
    summary = night(project, s, models)
    [result] = summary.results
    with Runner(s) as runner:
        record = runner.runlog.by_thread(result.thread_id)
    # started at 0, 0.4 and 0.8 spent; at 1.2 no further attempt is made
    assert models["writer"].calls == min(3, attempts), record
    assert record["model_seconds"] <= 1 + 0.4
    if attempts > 3:
        # no draft was ever made: nothing to show a person, and the error says why
        assert "model time is spent" in record["error"], record


def test_a_docs_examples_time_is_part_of_the_briefs_budget(project):
    # a module that takes 1 s to import: each example's processes pay it again
    (project / "briefs" / "slow.py").write_text(
        '"""Sums."""\nimport time\n\ntime.sleep(1)\n\n\ndef add(a, b):\n    return a + b\n'
    )
    s = make_settings(
        project, **{"loop.max_model_seconds": 3, "loop.max_rounds": 4, "loop.review": "unfinished"}
    )
    answer = {"summary": "Adds a and b.", "example": "add(2, 3)", "parameters": []}
    scores = {"technical_accuracy": 5, "completeness": 5, "examples": 5, "structure": 5}
    models = {
        "writer": ScriptedModel([answer] * 8),
        "critic": ScriptedModel([critic_answer(scores)] * 8),
    }
    started = time.monotonic()
    [result] = run_job(s, project / "briefs", models=models, strict=True).results
    took = time.monotonic() - started
    with Runner(s) as runner:
        record = runner.runlog.by_thread(result.thread_id)
    # stopped by its budget: the examples could not all be run within it, so nothing
    # vouches for the doc and it waits for a person
    assert result.outcome != "approved", record
    assert record["time_split"]["examples"] <= 3 + 2.5, record["time_split"]
    assert took < 30, took
    assert record["unfinished"] == "budget", record
