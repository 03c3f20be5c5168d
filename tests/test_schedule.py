"""The schedule with the real APScheduler and SQLite job store, real processes and signals.

Triggers are seconds away (six-field crons), so each test takes seconds, not minutes.
"""

from __future__ import annotations

import signal
import time
from datetime import datetime, timedelta
from pathlib import Path

import pytest
from apscheduler.schedulers.background import BackgroundScheduler
from click.testing import CliRunner

from batch import config as config_mod
from batch.cli import cli
from batch.schedule import make_scheduler, reconcile

from conftest import UNIVERSAL, briefloop_process, make_settings, ollama_config, query
from fake_ollama import FakeOllama


def briefs(project: Path, n: int) -> list[str]:
    ids = [f"brief-{i}" for i in range(n)]
    for bid in ids:
        (project / "briefs" / f"{bid}.md").write_text(
            f"---\nid: {bid}\n---\nOffice closed on Friday.")
    return ids


def job_toml(cron: str, grace: float = 60) -> str:
    return (f"[schedule]\nmisfire_grace_seconds = {grace}\nlock_wait_seconds = 30\n"
            f'[[schedule.jobs]]\nname = "nightly"\ncron = "{cron}"\nsource = "briefs"\n')


def seconds_from_now(*offsets: int) -> tuple[str, list[datetime]]:
    """A cron firing at these many seconds from now (each minute), and those times."""
    now = datetime.now().astimezone().replace(microsecond=0)
    times = [now + timedelta(seconds=o) for o in offsets]
    return f"{','.join(str(t.second) for t in times)} * * * * *", times


def wait_until(predicate, timeout: float, what: str, proc=None) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if proc is not None and proc.poll() is not None:
            raise AssertionError(f"process ended early: {proc.stdout.read().decode()}")
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.1)


def batches(project: Path) -> list[tuple]:
    return query(project / "checkpoints" / "runs.sqlite",
                 "SELECT job, started_at, ended_at, status FROM batches ORDER BY id")


def stop(proc) -> str:
    proc.send_signal(signal.SIGTERM)
    out = proc.communicate(timeout=60)[0].decode()
    assert proc.returncode == 0, out
    return out


def test_a_job_fires_processes_the_folder_and_stops_cleanly(project):
    ids = briefs(project, 2)
    with FakeOllama(default=UNIVERSAL) as server:
        cfg = ollama_config(project, server.base_url, job_toml("*/2 * * * * *"))
        proc = briefloop_process(cfg, "schedule")
        runs = project / "checkpoints" / "runs.sqlite"
        wait_until(lambda: len(query(runs, "SELECT 1 FROM runs WHERE status='finished'"))
                   == len(ids), 60, "the scheduled batch", proc)
        out = stop(proc)
    assert "job nightly: next run" in out and "batch done" in out
    assert "briefloop schedule: stopped" in out
    assert (project / "checkpoints" / "schedule.log").read_text().count("batch done") >= 1
    assert all(b[0] == "nightly" and b[3] == "ok" for b in batches(project))


def test_a_run_missed_while_down_is_caught_up_once(project):
    briefs(project, 1)
    with FakeOllama(default=UNIVERSAL) as server:
        cron, (first, second) = seconds_from_now(9, 11)
        cfg = ollama_config(project, server.base_url, job_toml(cron))
        proc = briefloop_process(cfg, "schedule")
        store = project / "checkpoints" / "schedule.sqlite"
        wait_until(lambda: query(store, "SELECT next_run_time FROM apscheduler_jobs"), 30,
                   "the job to be stored", proc)
        assert datetime.now().astimezone() < first, "the machine was too slow for this test"
        stop(proc)  # down through both fire times
        wait_until(lambda: datetime.now().astimezone() > second + timedelta(seconds=1), 30,
                   "the missed fire times")
        assert batches(project) == []
        proc = briefloop_process(cfg, "schedule")  # the restart keeps the stored next run
        wait_until(lambda: len(batches(project)) >= 1 and batches(project)[0][2], 30,
                   "the catch-up batch", proc)
        time.sleep(2)
        stop(proc)
    done = batches(project)
    assert len(done) == 1 and done[0][3] == "ok"  # two missed runs, coalesced into one


def test_a_run_missed_beyond_the_grace_time_is_skipped(project):
    briefs(project, 1)
    with FakeOllama(default=UNIVERSAL) as server:
        cron, (first,) = seconds_from_now(8)
        cfg = ollama_config(project, server.base_url, job_toml(cron, grace=1))
        proc = briefloop_process(cfg, "schedule")
        wait_until(lambda: query(project / "checkpoints" / "schedule.sqlite",
                                 "SELECT 1 FROM apscheduler_jobs"), 30, "the job", proc)
        stop(proc)
        wait_until(lambda: datetime.now().astimezone() > first + timedelta(seconds=3), 30,
                   "the fire time to pass the grace time")
        proc = briefloop_process(cfg, "schedule")
        time.sleep(4)
        out = stop(proc)
    assert batches(project) == [] and "missed" in out.lower()


def test_changing_the_cron_reschedules_and_restarts_keep_the_next_run(project):
    settings = make_settings(project, **{"schedule.jobs": [
        {"name": "nightly", "cron": "0 2 * * *", "timezone": "Europe/Berlin",
         "source": "briefs"}]})

    def stored_next(s):
        scheduler = make_scheduler(s, BackgroundScheduler)
        scheduler.start(paused=True)
        changes = reconcile(scheduler, s, None)
        job = scheduler.get_job("briefloop:nightly")
        scheduler.shutdown(wait=False)
        return changes, job.next_run_time

    changes, first = stored_next(settings)
    assert changes == ["added nightly"] and (first.hour, first.minute) == (2, 0)
    assert str(first.tzinfo) == "Europe/Berlin"
    changes, again = stored_next(settings)
    assert changes == [] and again == first  # a restart changes nothing
    moved = make_settings(project, **{"schedule.jobs": [
        {"name": "nightly", "cron": "30 3 * * sat", "timezone": "Europe/Berlin",
         "source": "briefs"}]})
    changes, after = stored_next(moved)
    assert changes == ["rescheduled nightly"]
    assert (after.hour, after.minute, after.strftime("%a")) == (3, 30, "Sat")
    listed = CliRunner().invoke(cli, ["--config", str(write_cfg(project, "30 3 * * sat")),
                                      "schedule", "--list"])
    assert listed.exit_code == 0 and "03:30:00" in listed.output and "never run" in listed.output


def write_cfg(project: Path, cron: str) -> Path:
    cfg = project / "sched.toml"
    cfg.write_text('[paths]\nroot = "."\n' + job_toml(cron).replace(
        'source = "briefs"', 'source = "briefs"\ntimezone = "Europe/Berlin"'))
    return cfg


def test_two_batches_never_run_at_once(project):
    briefs(project, 3)
    with FakeOllama(default=UNIVERSAL, latency=0.2) as server:
        cfg = ollama_config(project, server.base_url, "[run]\nlock_wait_seconds = 60\n")
        first = briefloop_process(cfg, "run", str(project / "briefs"))
        second = briefloop_process(cfg, "run", str(project / "briefs"))
        outs = [p.communicate(timeout=120)[0].decode() for p in (first, second)]
    assert [p.returncode for p in (first, second)] == [0, 0], outs
    (_, s1, e1, _), (_, s2, e2, _) = batches(project)
    assert e1 <= s2 or e2 <= s1  # one after the other, never overlapping
    assert len(server.chat_requests) == 6  # and the second found the work done


def test_a_batch_that_cannot_get_the_lock_says_so(project):
    from batch.jobs import batch_lock

    briefs(project, 1)
    settings = make_settings(project)
    with batch_lock(settings, 0):
        result = CliRunner().invoke(cli, ["--config", str(project / "briefloop.toml"), "run",
                                          str(project / "briefs")])
    assert result.exit_code == 2 and "another briefloop batch is running" in result.output


def test_sigterm_mid_batch_then_the_next_run_finishes_the_rest(project):
    ids = briefs(project, 5)
    with FakeOllama(default=UNIVERSAL, latency=0.3) as server:
        cfg = ollama_config(project, server.base_url)
        proc = briefloop_process(cfg, "run", str(project / "briefs"))
        runs = project / "checkpoints" / "runs.sqlite"
        wait_until(lambda: query(runs, "SELECT 1 FROM runs WHERE status='finished'"), 60,
                   "a finished brief", proc)
        out = stop(proc)
        assert "not started (stopped)" in out
        done = {r[0] for r in query(runs, "SELECT brief_id FROM runs WHERE status='finished'")}
        assert 1 <= len(done) < len(ids)
        before = len(server.chat_requests)
        rerun = briefloop_process(cfg, "run", str(project / "briefs"))
        assert rerun.communicate(timeout=120)[0] and rerun.returncode == 0
        redone = [b for b in server.chat_requests[before:]
                  if any(f"(id {d})" in m["content"] for m in b["messages"] for d in done)]
        assert redone == []
    assert {r[0] for r in query(runs, "SELECT brief_id FROM runs WHERE status='finished'")} \
        == set(ids)
    assert [b[3] for b in batches(project)] == ["stopped", "ok"]


@pytest.mark.parametrize("cron,tz,message", [
    ("61 2 * * *", "UTC", "higher than the maximum"),
    ("0 2 *", "UTC", "expected 5 fields"),
    ("0 2 * * *", "Mars/Olympus", "No time zone found"),
])
def test_bad_cron_or_timezone_is_a_config_error(project, cron, tz, message):
    cfg = project / "bad.toml"
    cfg.write_text(f'[[schedule.jobs]]\nname = "n"\ncron = "{cron}"\ntimezone = "{tz}"\n'
                   f'source = "briefs"\n')
    result = CliRunner().invoke(cli, ["--config", str(cfg), "schedule", "--list"])
    assert result.exit_code == 2 and "schedule.jobs.0" in result.output
    assert message in result.output and "Traceback" not in result.output


def test_crontab_weekday_numbers_mean_what_crontab_means():
    trigger = config_mod.parse_cron("0 2 * * 0", "UTC")  # 0 = Sunday in crontab
    monday = datetime(2026, 11, 30, tzinfo=trigger.timezone)
    assert trigger.get_next_fire_time(None, monday).strftime("%a") == "Sun"


def test_run_now_uses_the_same_path(project):
    ids = briefs(project, 1)
    with FakeOllama(default=UNIVERSAL) as server:
        cfg = ollama_config(project, server.base_url, job_toml("0 2 * * *"))
        proc = briefloop_process(cfg, "schedule", "--run-now", "nightly")
        out = proc.communicate(timeout=60)[0].decode()
        assert proc.returncode == 0, out
        missing = briefloop_process(cfg, "schedule", "--run-now", "weekly")
        assert "no scheduled job 'weekly'" in missing.communicate(timeout=60)[0].decode()
    assert "batch done" in out and [b[0] for b in batches(project)] == ["nightly"]
    assert query(project / "checkpoints" / "runs.sqlite", "SELECT brief_id FROM runs") == [
        (ids[0],)]
    listed = CliRunner().invoke(cli, ["--config", str(cfg), "schedule", "--list"])
    assert "ok (approved 1)" in listed.output
