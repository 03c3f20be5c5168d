"""The schedule with the real APScheduler and SQLite job store, real processes and signals.

Triggers are seconds away (six-field crons), so each test takes seconds, not minutes.
No test sleeps and then looks: each waits, with a generous deadline, for something the
scheduler or the batch does (a job stored, a log line, a batch row, a held model call),
and "it did not happen" is only ever concluded after something that must come later.
"""

from __future__ import annotations

import re
import shutil
import signal
import threading
import time
from datetime import datetime, timedelta
from pathlib import Path

import pytest
from apscheduler.schedulers.background import BackgroundScheduler
from click.testing import CliRunner

from batch import config as config_mod
from batch.cli import cli
from batch.nightly.schedule import make_scheduler, reconcile

from conftest import UNIVERSAL, briefloop_process, make_settings, ollama_config, query
from fake_ollama import FakeOllama


def briefs(project: Path, n: int) -> list[str]:
    ids = [f"brief-{i}" for i in range(n)]
    for bid in ids:
        (project / "briefs" / f"{bid}.md").write_text(
            f"---\nid: {bid}\n---\nOffice closed on Friday."
        )
    return ids


def job_toml(cron: str, grace: float = 60) -> str:
    return (
        f"[schedule]\nmisfire_grace_seconds = {grace}\nlock_wait_seconds = 30\n"
        f'[[schedule.jobs]]\nname = "nightly"\ncron = "{cron}"\nsource = "briefs"\n'
    )


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
    return query(
        project / "checkpoints" / "runs.sqlite",
        "SELECT job, started_at, ended_at, status FROM batches ORDER BY id",
    )


def stored_next_runs(project: Path) -> list[datetime]:
    """The next run times in the job store (APScheduler keeps UTC timestamps)."""
    rows = query(
        project / "checkpoints" / "schedule.sqlite", "SELECT next_run_time FROM apscheduler_jobs"
    )
    return [datetime.fromtimestamp(r[0]).astimezone() for r in rows if r[0] is not None]


def schedule_log(project: Path, since: int = 0) -> str:
    """The schedule's log file from character `since` on: pass what `log_end` gave before
    starting a process to see only what that process logged."""
    path = project / "checkpoints" / "schedule.log"
    return path.read_text(encoding="utf-8")[since:] if path.exists() else ""


def log_end(project: Path) -> int:
    return len(schedule_log(project))


def announced_next_runs(log_text: str) -> list[datetime]:
    """The next run times `briefloop schedule` announced when it started."""
    return [
        datetime.fromisoformat(t)
        for t in re.findall(r"job nightly: next run (.+)$", log_text, re.M)
    ]


def runs_scheduled_at(log_text: str) -> list[datetime]:
    """The fire times APScheduler ran the job for, from its "Running job" lines."""
    return [
        datetime.fromisoformat(t)
        for t in re.findall(r'Running job ".*" \(scheduled at ([^)]+)\)$', log_text, re.M)
    ]


def stop(proc) -> str:
    proc.send_signal(signal.SIGTERM)
    out = proc.communicate(timeout=60)[0].decode()
    assert proc.returncode == 0, out
    return out


def stored_then_stopped(
    project: Path, server: FakeOllama, offsets: tuple[int, ...], grace: float = 60
) -> tuple[Path, list[datetime]]:
    """A `briefloop schedule` process that stored a job firing at these many seconds from
    now, stopped before the first of them: the job is due while it is down.

    Returns the config and the fire times. Whether the job was stored and the process
    went down in time is checked, not assumed: on a machine too busy to start and stop a
    process before the first fire time, the fire times move twice as far out and it
    tries again.
    """
    for attempt in range(3):
        cron, times = seconds_from_now(*(o * 2**attempt for o in offsets))
        cfg = ollama_config(project, server.base_url, job_toml(cron, grace))
        mark = log_end(project)
        proc = briefloop_process(cfg, "schedule")
        wait_until(
            lambda m=mark: "job nightly: next run" in schedule_log(project, m),
            60,
            "the job to be stored",
            proc,
        )
        stop(proc)
        if batches(project) == [] and stored_next_runs(project) == [times[0]]:
            return cfg, times  # stored, and never fired: the process was down in time
        shutil.rmtree(project / "checkpoints")  # it fired while up: too slow, again
        shutil.rmtree(project / "output", ignore_errors=True)
    pytest.fail(f"could not stop `briefloop schedule` within {offsets[0] * 4}s of starting it")


def test_a_job_fires_processes_the_folder_and_stops_cleanly(project):
    ids = briefs(project, 2)
    with FakeOllama(default=UNIVERSAL) as server:
        # Once a minute: no second firing can overlap the stop below. Should the process
        # start after that second, the job fires a minute later, within the deadline.
        cron, _ = seconds_from_now(5)
        cfg = ollama_config(project, server.base_url, job_toml(cron))
        proc = briefloop_process(cfg, "schedule")
        runs = project / "checkpoints" / "runs.sqlite"
        wait_until(
            lambda: "executed successfully" in schedule_log(project),
            90,
            "the scheduled batch",
            proc,
        )
        assert len(query(runs, "SELECT 1 FROM runs WHERE status='finished'")) == len(ids)
        out = stop(proc)
    assert "job nightly: next run" in out and "batch done" in out
    assert "briefloop schedule: stopped" in out
    assert (project / "checkpoints" / "schedule.log").read_text().count("batch done") >= 1
    done = batches(project)
    assert len(done) == 1 and all(b[0] == "nightly" and b[3] == "finished" for b in done)


def test_a_run_missed_while_down_is_caught_up_once(project):
    briefs(project, 1)
    with FakeOllama(default=UNIVERSAL) as server:
        cfg, (first, second) = stored_then_stopped(project, server, (9, 11))
        wait_until(
            lambda: datetime.now().astimezone() > second + timedelta(seconds=1),
            60,
            "the missed fire times",
        )
        assert batches(project) == []
        mark = log_end(project)
        proc = briefloop_process(cfg, "schedule")
        wait_until(
            lambda: announced_next_runs(schedule_log(project, mark)), 60, "the restart", proc
        )
        assert announced_next_runs(schedule_log(project, mark)) == [first]  # kept, though due
        # "executed successfully" comes once APScheduler has run the job for every fire
        # time it was handed: a second run for the missed times would have come before it.
        wait_until(
            lambda: "executed successfully" in schedule_log(project, mark),
            60,
            "the catch-up batch",
            proc,
        )
        out = stop(proc)
    done = batches(project)
    assert len(done) == 1 and done[0][3] == "finished"  # two missed runs, coalesced into one
    assert runs_scheduled_at(out) == [second], out  # once, for the later of the two
    assert stored_next_runs(project) == [first + timedelta(minutes=1)]  # next: in a minute


def test_a_run_missed_beyond_the_grace_time_is_skipped(project):
    briefs(project, 1)
    with FakeOllama(default=UNIVERSAL) as server:
        cfg, (first,) = stored_then_stopped(project, server, (8,), grace=1)
        wait_until(
            lambda: datetime.now().astimezone() > first + timedelta(seconds=3),
            60,
            "the fire time to pass the grace time",
        )
        mark = log_end(project)
        proc = briefloop_process(cfg, "schedule")
        wait_until(
            lambda: announced_next_runs(schedule_log(project, mark)), 60, "the restart", proc
        )
        assert announced_next_runs(schedule_log(project, mark)) == [first]  # kept, though due
        # APScheduler logs what it did with the due run: skipped it, or ran it.
        wait_until(
            lambda: re.search(r"was missed by|Running job", schedule_log(project, mark)),
            60,
            "the late run to be handled",
            proc,
        )
        wait_until(
            lambda: stored_next_runs(project) == [first + timedelta(minutes=1)],
            60,
            "the next run to be stored",
            proc,
        )
        out = stop(proc)
    assert batches(project) == [] and "missed" in out.lower()
    assert runs_scheduled_at(out) == []


def test_changing_the_cron_reschedules_and_restarts_keep_the_next_run(project):
    settings = make_settings(
        project,
        **{
            "schedule.jobs": [
                {
                    "name": "nightly",
                    "cron": "0 2 * * *",
                    "timezone": "Europe/Berlin",
                    "source": "briefs",
                }
            ]
        },
    )

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
    moved = make_settings(
        project,
        **{
            "schedule.jobs": [
                {
                    "name": "nightly",
                    "cron": "30 3 * * sat",
                    "timezone": "Europe/Berlin",
                    "source": "briefs",
                }
            ]
        },
    )
    changes, after = stored_next(moved)
    assert changes == ["rescheduled nightly"]
    assert (after.hour, after.minute, after.strftime("%a")) == (3, 30, "Sat")
    listed = CliRunner().invoke(
        cli, ["--config", str(write_cfg(project, "30 3 * * sat")), "schedule", "--list"]
    )
    assert listed.exit_code == 0 and "03:30:00" in listed.output and "never run" in listed.output


def write_cfg(project: Path, cron: str) -> Path:
    cfg = project / "sched.toml"
    cfg.write_text(
        '[paths]\nroot = "."\n'
        + job_toml(cron).replace(
            'source = "briefs"', 'source = "briefs"\ntimezone = "Europe/Berlin"'
        )
    )
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
    # one writer call a brief (the code checks judge), and the second found the work done
    assert len(server.chat_requests) == 3


def test_a_batch_that_cannot_get_the_lock_says_so(project):
    from batch.nightly.job import batch_lock
    from batch.store.backends import open_store

    briefs(project, 1)
    settings = make_settings(project)
    with open_store(settings) as store, batch_lock(store, 0):
        result = CliRunner().invoke(
            cli, ["--config", str(project / "briefloop.toml"), "run", str(project / "briefs")]
        )
    assert result.exit_code == 2 and "another briefloop batch is running" in result.output


def test_sigterm_mid_batch_then_the_next_run_finishes_the_rest(project):
    ids = briefs(project, 5)
    held, release = threading.Event(), threading.Event()

    def hold(n, body):
        if n == 2:  # the second brief's first call: the first brief is done by now
            held.set()
            release.wait(60)

    with FakeOllama(default=UNIVERSAL, on_chat=hold) as server:
        cfg = ollama_config(project, server.base_url)
        proc = briefloop_process(cfg, "run", str(project / "briefs"))
        runs = project / "checkpoints" / "runs.sqlite"
        try:
            wait_until(held.is_set, 60, "the second brief's first model call", proc)
            # SIGTERM lands while that call is held: the second brief is in flight, the
            # third has not started, so the stop falls mid-batch whatever the timing.
            proc.send_signal(signal.SIGTERM)
        finally:
            release.set()
        out = proc.communicate(timeout=60)[0].decode()
        assert proc.returncode == 0, out
        assert "not started (stopped)" in out
        done = {r[0] for r in query(runs, "SELECT brief_id FROM runs WHERE status='finished'")}
        assert 1 <= len(done) < len(ids)
        assert done == set(ids[:2])  # the brief in flight finished, no new one began
        before = len(server.chat_requests)
        rerun = briefloop_process(cfg, "run", str(project / "briefs"))
        assert rerun.communicate(timeout=120)[0] and rerun.returncode == 0
        redone = [
            b
            for b in server.chat_requests[before:]
            if any(f"(id {d})" in m["content"] for m in b["messages"] for d in done)
        ]
        assert redone == []
    assert {r[0] for r in query(runs, "SELECT brief_id FROM runs WHERE status='finished'")} == set(
        ids
    )
    assert [b[3] for b in batches(project)] == ["stopped", "finished"]


@pytest.mark.parametrize(
    "cron,tz,message",
    [
        ("61 2 * * *", "UTC", "higher than the maximum"),
        ("0 2 *", "UTC", "expected 5 fields"),
        ("0 2 * * *", "Mars/Olympus", "No time zone found"),
    ],
)
def test_bad_cron_or_timezone_is_a_config_error(project, cron, tz, message):
    cfg = project / "bad.toml"
    cfg.write_text(
        f'[[schedule.jobs]]\nname = "n"\ncron = "{cron}"\ntimezone = "{tz}"\nsource = "briefs"\n'
    )
    result = CliRunner().invoke(cli, ["--config", str(cfg), "schedule", "--list"])
    assert result.exit_code == 2 and "schedule.jobs[0]" in result.output
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
        (ids[0],)
    ]
    # one line per brief with its outcome, and none per HTTP call to the model server
    assert re.search(rf"job nightly: {ids[0]}: approved, score \d", out), out
    assert "httpx" not in out and "HTTP Request" not in out
    listed = CliRunner().invoke(cli, ["--config", str(cfg), "schedule", "--list"])
    assert "finished (approved 1)" in listed.output


def digest_toml(cron: str, url: str) -> str:
    """A nightly job that never fires during the test, and the digest on `cron`; every
    text waits for a person, and the message goes to `url` once a morning."""
    return (
        '[loop]\nreview = "always"\n'
        f'[notify]\nwebhook_url = "{url}"\ndigest = true\n'
        'review_url = "http://127.0.0.1:8765/"\n'
        "[schedule]\nmisfire_grace_seconds = 60\n"
        '[[schedule.jobs]]\nname = "nightly"\ncron = "0 2 * * *"\nsource = "briefs"\n'
        f'[schedule.digest]\ncron = "{cron}"\n'
    )


def test_the_digest_fires_on_its_cron_and_tells_what_waits(project, webhook):
    url, received = webhook
    [bid] = briefs(project, 1)
    with FakeOllama(default=UNIVERSAL) as server:
        cfg = ollama_config(project, server.base_url, digest_toml("0 7 * * *", url))
        night = briefloop_process(cfg, "schedule", "--run-now", "nightly")
        out = night.communicate(timeout=90)[0].decode()
        assert night.returncode == 0 and "awaiting_human" in out, out
        assert received == []  # with [notify] digest, no message after the batch

        # the digest's cron moved to a few seconds from now: the scheduler sends it
        cron, _ = seconds_from_now(5)
        cfg = ollama_config(project, server.base_url, digest_toml(cron, url))
        proc = briefloop_process(cfg, "schedule")
        wait_until(lambda: len(received) == 1, 90, "the digest", proc)
        out = stop(proc)
    assert "job digest: next run" in out and "digest: sent" in out, out
    [sent] = received
    assert "1 text waits for you" in sent["text"] and f"- {bid}" in sent["text"]
    assert (
        "approve (opens it with one Approve button): http://127.0.0.1:8765/thread/"
        in (sent["text"])
    )
    listed = CliRunner().invoke(cli, ["--config", str(cfg), "schedule", "--list"])
    assert listed.exit_code == 0, listed.output
    digest_lines = listed.output[listed.output.index("digest: ") :]
    assert "the morning digest" in digest_lines and " sent" in digest_lines


def test_a_digest_with_nothing_to_tell_is_not_sent(project, webhook):
    url, received = webhook
    cfg = ollama_config(project, "http://127.0.0.1:9", digest_toml("30 7 * * *", url))
    proc = briefloop_process(cfg, "schedule", "--run-now", "digest")
    out = proc.communicate(timeout=60)[0].decode()
    assert proc.returncode == 0, out
    assert "digest: nothing waits" in out and received == []
    unknown = briefloop_process(cfg, "schedule", "--run-now", "weekly")
    assert "(jobs: nightly, digest)" in unknown.communicate(timeout=60)[0].decode()


def test_only_a_digest_is_a_schedule(project):
    """[schedule.digest] alone is a schedule to run; it is stored beside no batch job."""
    s = make_settings(project, **{"schedule.digest": {"cron": "30 7 * * 1-5"}})
    scheduler = make_scheduler(s, BackgroundScheduler)
    scheduler.start(paused=True)
    try:
        assert reconcile(scheduler, s, None) == ["added digest"]
        assert [j.id for j in scheduler.get_jobs()] == ["briefloop@digest"]
        assert reconcile(scheduler, s, None) == []  # kept, not re-added
        gone = make_settings(project)
        assert reconcile(scheduler, gone, None) == ["removed briefloop@digest"]
    finally:
        scheduler.shutdown(wait=False)
