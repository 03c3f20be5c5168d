"""A night of a cluster, compressed: thousands of briefs through several workers while
its parts fail, then a count of what came out.

    python -m bench soak [--briefs 5000] [--workers 4] [--kills K] [--latency S]

Real PostgreSQL and Redis servers (tests/servers.py) in a temporary folder, real
`briefloop worker` processes (one Celery process each, `--concurrency 1`) and the fake
Ollama server in this process, answering every call after `--latency` seconds with the
same answers (each brief is approved in one round: a writer and a critic call). The whole batch is
enqueued once; then, as the briefs get done:

- K times (by default one per 1,000 briefs, spread evenly over the run) a worker is
  SIGKILLed with its pool process, as a machine that dies, and a new one is started in
  its place. Worker 0 is never killed: its memory, sampled every few seconds, is the
  run's whole series;
- Redis is restarted once at a third of the briefs, PostgreSQL (fast shutdown: every
  client disconnected) once at two thirds.

Counted at the end, each from the stores themselves: run-log rows and distinct briefs,
how each ended, the texts in output/ (one per brief), the rows of the synced sheet, the
model calls per brief (a call repeated is one a killed worker, or one cut off by a
restart, had in flight), the queue ledger's states, worker 0's memory (RSS at a tenth
of the briefs and at the end, and the slope between), and the database's size per
brief beside the same briefs (the first `--baseline` of them) run on one machine,
in-process, on a fresh database of the same server. Results: bench/results/soak.{json,md}.
"""

from __future__ import annotations

import argparse
import collections
import csv
import json
import re
import shutil
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
RESULTS = REPO / "bench" / "results"
sys.path.insert(0, str(REPO / "tests"))

import sqlalchemy as sa  # noqa: E402

from batch import config as config_mod  # noqa: E402
from batch.cluster.queue import wait_for_batch  # noqa: E402
from batch.nightly.job import run_job  # noqa: E402
from batch.run.runner import Runner  # noqa: E402
from batch.store.backends import open_runlog  # noqa: E402
from bench.run import machine, project  # noqa: E402

from fake_ollama import FakeOllama  # noqa: E402
from servers import PostgresServer, RedisServer, _descendants, query  # noqa: E402
from workers import Worker  # noqa: E402

CALLS_PER_BRIEF = 2
SAMPLE_EVERY = 3.0  # seconds between two samples of worker 0's memory
VISIBILITY = 30  # seconds: a killed worker's brief is handed out again after this


def approving(body: dict) -> str:
    """The same answers however often a call is made: a call repeated after a fault
    gets what the first got (rounds_responder counts drafts, so it would not)."""
    if "format" not in body:  # the writer: plain text
        return "The office is closed on Friday."
    return json.dumps(
        {
            "must_fix": [],
            "would_improve": [],
            "scores": {c: 5 for c in ("covers_brief", "accuracy", "clarity", "actionable")},
        }
    )


def soak_toml(root: Path, base_url: str, dsn: str, broker: str | None) -> Path:
    model = f'provider = "ollama"\nmodel = "qwen2.5:7b"\nbase_url = "{base_url}"\ntimeout = 60\n'
    cluster = (
        (f'[cluster]\nbroker = "{broker}"\nvisibility_timeout = {VISIBILITY}\nstore_retries = 60\n')
        if broker
        else ""
    )
    cfg = root / "briefloop.toml"
    cfg.write_text(
        f'[models]\ncritic_mode = "gate"\n'
        f"[models.writer]\n{model}\n[models.critic]\n{model}\n"
        '[log]\nformat = "csv"\npath = "output/runs.csv"\n'
        "[retry]\nattempts = 6\ninitial_seconds = 0.2\n"
        f'[store]\nbackend = "postgres"\ndsn = "{dsn}"\n' + cluster,
        encoding="utf-8",
    )
    return cfg


def tables_bytes(dsn: str) -> int:
    """Every table of ours with its indexes and TOAST: not the catalogue, not the WAL."""
    return int(
        query(
            dsn, "SELECT coalesce(sum(pg_total_relation_size(relid)), 0) FROM pg_stat_user_tables"
        )[0][0]
    )


def rss_mb(worker: Worker) -> float:
    """The worker's memory: its main process and its pool process, resident."""
    total = 0
    for pid in [worker.proc.pid, *_descendants(worker.proc.pid)]:
        try:
            status = Path(f"/proc/{pid}/status").read_text()
        except OSError:
            continue
        found = re.search(r"^VmRSS:\s+(\d+) kB", status, re.M)
        total += int(found.group(1)) if found else 0
    return total / 1024


def brief_ids(requests: list[dict]) -> collections.Counter:
    out: collections.Counter = collections.Counter()
    for body in requests:
        text = "\n".join(m["content"] for m in body["messages"])
        found = re.search(r"BRIEF \(id ([^)]+)\)", text)
        out[found.group(1) if found else "?"] += 1
    return out


class Faults:
    """The faults of one run, each at its share of the briefs done."""

    def __init__(self, n: int, kills: int):
        self.plan = sorted(
            [(n * (i + 1) // (kills + 1), "kill") for i in range(kills)]
            + [(n // 3, "restart redis"), (2 * n // 3, "restart postgres")]
        )
        self.done: list[dict[str, Any]] = []

    def due(self, finished: int, restarts: bool) -> list[str]:
        """The faults due now; with `restarts` False a server restart waits (and the
        faults after it with it)."""
        out = []
        while self.plan and self.plan[0][0] <= finished:
            if self.plan[0][1] != "kill" and not restarts:
                break
            out.append(self.plan.pop(0)[1])
        return out


def soak(
    pg: PostgresServer,
    redis: RedisServer,
    n: int,
    workers: int,
    kills: int,
    latency: float,
    log_folder: Path,
) -> dict[str, Any]:
    root = project(n)
    dsn = pg.create_database(f"soak_{time.time_ns()}")
    redis.flush()
    out: dict[str, Any] = {}
    with FakeOllama(default=approving, latency=latency) as server:
        cfg = soak_toml(root, server.base_url, dsn, redis.url)
        started = 0

        def new_worker() -> Worker:
            nonlocal started
            w = Worker(cfg, log_folder / f"worker-{started}.log")
            started += 1
            return w

        open_runlog(config_mod.load(cfg, environ={})).close()  # its tables, before anyone
        pool = [new_worker() for _ in range(workers)]
        try:
            for w in pool:
                w.wait_ready(120)
            settings = config_mod.load(cfg, environ={})
            t0 = time.perf_counter()
            # The workers start on the first briefs while the rest are enqueued, and a
            # worker may be killed meanwhile; the servers restart only once it is done
            # (a database lost mid-enqueue is a failed batch, tested on its own).
            enqueued: dict[str, Any] = {}
            enqueuer = threading.Thread(target=_enqueue, args=(settings, root, enqueued, t0))
            enqueuer.start()
            faults, memory, victim = Faults(n, kills), [], 1
            last_sample, last_print = 0.0, 0.0
            while True:
                if "error" in enqueued:
                    raise enqueued["error"]
                summary = enqueued.get("summary")
                try:
                    finished = query(dsn, "SELECT count(*) FROM runs WHERE status = 'finished'")[0][
                        0
                    ]
                    closed = (
                        summary is not None
                        and query(
                            dsn, f"SELECT ended_at FROM batches WHERE id = {summary.batch_id}"
                        )[0][0]
                        is not None
                    )
                except sa.exc.OperationalError:  # restarting: look again
                    time.sleep(0.5)
                    continue
                now = time.perf_counter() - t0
                if now - last_sample >= SAMPLE_EVERY:
                    memory.append((finished, round(rss_mb(pool[0]), 1)))
                    last_sample = now
                if now - last_print >= 30:
                    print(
                        f"{now:6.0f}s  {finished}/{n} finished, worker 0 at {memory[-1][1]} MB",
                        flush=True,
                    )
                    last_print = now
                for fault in faults.due(finished, restarts=summary is not None):
                    at = {"fault": fault, "finished": finished, "second": round(now, 1)}
                    if fault == "kill" and workers > 1:
                        pool[victim].kill()
                        at["worker"] = victim
                        pool[victim] = new_worker().wait_ready(120)
                        victim = victim % (workers - 1) + 1
                    elif fault == "restart redis":
                        redis.restart()
                    elif fault == "restart postgres":
                        pg.restart()
                    faults.done.append(at)
                    print(f"{now:6.0f}s  {fault} at {finished} finished", flush=True)
                if closed:
                    break
                if now > 3 * 3600:
                    raise RuntimeError(
                        f"the batch is not closed after {now:.0f}s ({finished}/{n} finished)"
                    )
                time.sleep(0.5)
            wall = time.perf_counter() - t0
            enqueuer.join()
            enqueue_s = enqueued["seconds"]
            memory.append((n, round(rss_mb(pool[0]), 1)))
            with Runner(settings) as runner:
                row = wait_for_batch(runner, summary.batch_id, timeout=60)
        finally:
            for w in pool:
                w.stop()
        calls = brief_ids(server.chat_requests)
    out.update(
        wall_s=round(wall, 1),
        enqueue_s=round(enqueue_s, 1),
        briefs_per_minute=round(60 * n / wall, 1),
        faults=faults.done,
        batch={"status": row["status"], "counts": row["counts"]},
        workers_started=started,
    )
    out.update(count(root, dsn, n, calls, summary.batch_id))
    out["memory"] = memory_summary(memory, n)
    out["db_bytes_per_brief"] = round(tables_bytes(dsn) / n)
    shutil.rmtree(root, ignore_errors=True)
    pg.drop_database(dsn.rsplit("/", 1)[1])
    return out


def _enqueue(settings: config_mod.Settings, root: Path, out: dict[str, Any], t0: float) -> None:
    try:
        out["summary"] = run_job(settings, root / "briefs")
        out["seconds"] = round(time.perf_counter() - t0, 1)
        print(f"enqueued in {out['seconds']}s", flush=True)
    except BaseException as e:  # noqa: BLE001 - handed to the main thread, raised there
        out["error"] = e


def count(
    root: Path, dsn: str, n: int, calls: collections.Counter, batch_id: int
) -> dict[str, Any]:
    """What came out, counted from the run log, the output folder, the sheet and the
    model calls: every brief once."""
    runs = query(dsn, "SELECT brief_id, status, stop_reason FROM runs")
    by_brief = collections.Counter(r[0] for r in runs)
    texts = collections.Counter(p.stem.split("--")[0] for p in (root / "output").glob("*.md"))
    sheet = root / "output" / "runs.csv"
    deadline = time.monotonic() + 120  # the batch's sync runs after its close
    sheet_rows: collections.Counter = collections.Counter()
    while time.monotonic() < deadline:
        if sheet.exists():
            with sheet.open(newline="", encoding="utf-8-sig") as f:
                sheet_rows = collections.Counter(r["brief_id"] for r in csv.DictReader(f))
            if sum(sheet_rows.values()) >= n:
                break
        time.sleep(1)
    ledger = dict(
        query(dsn, f"SELECT state, count(*) FROM tasks WHERE batch_id = {batch_id} GROUP BY state")
    )
    per_brief = collections.Counter(calls[f"brief-{i:04d}"] for i in range(n))
    return {
        "run_log_rows": len(runs),
        "briefs_in_run_log": len(by_brief),
        "briefs_twice_in_run_log": sum(1 for c in by_brief.values() if c > 1),
        "ended": dict(collections.Counter(f"{r[1]}/{r[2]}" for r in runs)),
        "texts_in_output": sum(texts.values()),
        "briefs_with_a_text": len(texts),
        "briefs_with_two_texts": sum(1 for c in texts.values() if c > 1),
        "sheet_rows": sum(sheet_rows.values()),
        "briefs_in_sheet": len(sheet_rows),
        "model_calls": sum(calls.values()),
        "calls_repeated": sum(calls.values()) - CALLS_PER_BRIEF * n,
        "briefs_by_calls": {str(k): v for k, v in sorted(per_brief.items())},
        "ledger": ledger,
    }


def memory_summary(samples: list[tuple[int, float]], n: int) -> dict[str, Any]:
    """Worker 0's RSS: at a tenth of the briefs (warmed up) and at the end, and the
    least-squares slope over the samples between, in MB per 1,000 briefs."""
    warm = [s for s in samples if s[0] >= n // 10] or samples
    xs, ys = [s[0] for s in warm], [s[1] for s in warm]
    mean_x, mean_y = sum(xs) / len(xs), sum(ys) / len(ys)
    var = sum((x - mean_x) ** 2 for x in xs)
    slope = (
        sum((x - mean_x) * (y - mean_y) for x, y in zip(xs, ys, strict=True)) / var if var else 0.0
    )
    return {
        "rss_mb_at_tenth": ys[0],
        "rss_mb_at_end": ys[-1],
        "rss_mb_peak": max(ys),
        "slope_mb_per_1000_briefs": round(1000 * slope, 2),
        "samples": len(samples),
    }


def one_machine(pg: PostgresServer, n: int, latency: float) -> dict[str, Any]:
    """The same briefs run in-process (no broker) on a fresh database: its size per brief."""
    root = project(n)
    dsn = pg.create_database(f"soak_base_{time.time_ns()}")
    with FakeOllama(default=approving, latency=latency) as server:
        settings = config_mod.load(soak_toml(root, server.base_url, dsn, None), environ={})
        t = time.perf_counter()
        summary = run_job(settings, root / "briefs")
        wall = time.perf_counter() - t
    out = {
        "briefs": n,
        "wall_s": round(wall, 1),
        "counts": dict(summary.counts),
        "db_bytes_per_brief": round(tables_bytes(dsn) / n),
    }
    shutil.rmtree(root, ignore_errors=True)
    pg.drop_database(dsn.rsplit("/", 1)[1])
    return out


def run(n: int, workers: int, kills: int | None, latency: float, baseline: int) -> dict[str, Any]:
    kills = max(1, n // 1000) if kills is None else kills
    tmp = Path(tempfile.mkdtemp(prefix="briefloop-bench-soak-"))
    out: dict[str, Any] = {
        "briefs": n,
        "workers": workers,
        "kills": kills,
        "latency_per_call_s": latency,
    }
    try:
        with PostgresServer(tmp / "pg") as pg, RedisServer(tmp / "redis") as redis:
            out["soak"] = soak(pg, redis, n, workers, kills, latency, tmp)
            out["one_machine"] = one_machine(pg, min(n, baseline), latency)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    out["db_size_ratio"] = round(
        out["soak"]["db_bytes_per_brief"] / out["one_machine"]["db_bytes_per_brief"], 2
    )
    return out


def markdown(r: dict[str, Any]) -> str:
    s, m = r["soak"], r["soak"]["memory"]
    faults = ", ".join(f"{f['fault']} at {f['finished']}" for f in s["faults"])
    lines = [
        f"# Soak: {r['briefs']} briefs, {r['workers']} workers, faults injected",
        "",
        f"Machine: {r['machine']['cpu']}, {r['machine']['cores']} cores; PostgreSQL, "
        f"Redis, the workers and the fake Ollama ({r['latency_per_call_s'] * 1000:.0f} ms "
        f"a call) on it.",
        "",
        f"Faults: {faults}.",
        "",
        "| what | count |",
        "|---|---|",
        f"| wall time | {s['wall_s']} s ({s['briefs_per_minute']} briefs/min) |",
        f"| batch | {s['batch']['status']}, {s['batch']['counts']} |",
        f"| run-log rows / distinct briefs / briefs twice | {s['run_log_rows']} / "
        f"{s['briefs_in_run_log']} / {s['briefs_twice_in_run_log']} |",
        f"| how they ended | {s['ended']} |",
        f"| texts in output/ / briefs with a text / with two | {s['texts_in_output']} / "
        f"{s['briefs_with_a_text']} / {s['briefs_with_two_texts']} |",
        f"| sheet rows / distinct briefs | {s['sheet_rows']} / {s['briefs_in_sheet']} |",
        f"| model calls (repeated) | {s['model_calls']} ({s['calls_repeated']}) |",
        f"| briefs by model calls made | {s['briefs_by_calls']} |",
        f"| queue ledger | {s['ledger']} |",
        f"| worker 0 RSS at 1/10, at the end, peak | {m['rss_mb_at_tenth']} / "
        f"{m['rss_mb_at_end']} / {m['rss_mb_peak']} MB |",
        f"| worker 0 RSS slope | {m['slope_mb_per_1000_briefs']} MB per 1,000 briefs |",
        f"| database per brief: soak / one machine ({r['one_machine']['briefs']} briefs) | "
        f"{s['db_bytes_per_brief']} / {r['one_machine']['db_bytes_per_brief']} bytes "
        f"({r['db_size_ratio']}x) |",
    ]
    return "\n".join(lines) + "\n"


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m bench soak",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--briefs", type=int, default=5000)
    parser.add_argument("--workers", type=int, default=4)
    parser.add_argument(
        "--kills",
        type=int,
        default=None,
        help="workers SIGKILLed over the run (default: one per 1,000 briefs)",
    )
    parser.add_argument(
        "--latency", type=float, default=0.02, help="seconds per model call (default 0.02)"
    )
    parser.add_argument(
        "--baseline", type=int, default=300, help="briefs of the one-machine run (default 300)"
    )
    parser.add_argument("--out", default="soak", help="results file name (default soak)")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    result = run(args.briefs, args.workers, args.kills, args.latency, args.baseline)
    result["machine"] = machine()
    result["bench_seconds"] = round(time.perf_counter() - started, 1)
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / f"{args.out}.json").write_text(json.dumps(result, indent=2) + "\n")
    (RESULTS / f"{args.out}.md").write_text(markdown(result))
    print(markdown(result))
