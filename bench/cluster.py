"""Throughput of a cluster on this machine: briefs per minute with 1, 2 and 4 worker
processes, beside the in-process thread pool with as many threads.

    python -m bench cluster [--briefs N] [--latency S] [--rounds R]

Every model call goes to the fake Ollama server (tests/fake_ollama.py) with a fixed
latency (200 ms) and 8 slots; each brief takes R rounds (2 calls a round). The cluster
runs on real PostgreSQL and Redis servers started in a temporary folder
(tests/servers.py) and real `briefloop worker` processes, one Celery process each. Timed
from the first enqueue to the batch closed by its last worker (the sheet sync excluded).
Both sides run in this one process, one after the other, on fresh state. Results:
bench/results/cluster.{json,md}.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
RESULTS = REPO / "bench" / "results"
sys.path.insert(0, str(REPO / "tests"))

from batch import config as config_mod  # noqa: E402
from batch.cluster.queue import wait_for_batch  # noqa: E402
from batch.nightly.job import run_job  # noqa: E402
from batch.run.runner import Runner  # noqa: E402
from bench.run import machine, ollama_settings, project, rounds_responder  # noqa: E402

from fake_ollama import FakeOllama  # noqa: E402
from servers import PostgresServer, RedisServer  # noqa: E402
from workers import Worker  # noqa: E402

WORKER_COUNTS = (1, 2, 4)
LIMITED_WORKERS, LIMITED_MAX_PARALLEL = 4, 2


def cluster_toml(
    root: Path, base_url: str, dsn: str, broker: str, max_parallel: int = 4, shared: bool = True
) -> Path:
    model = (
        f'provider = "ollama"\nmodel = "qwen2.5:7b"\nbase_url = "{base_url}"\n'
        f"timeout = 60\nmax_parallel = {max_parallel}\n"
    )
    cfg = root / "briefloop.toml"
    cfg.write_text(
        # gate: the scripted critic's verdict decides, so every brief takes R rounds
        f'[models]\ncritic_mode = "gate"\n'
        f"[models.writer]\n{model}\n[models.critic]\n{model}\n"
        '[log]\nformat = "csv"\npath = "output/runs.csv"\n'
        f'[store]\nbackend = "postgres"\ndsn = "{dsn}"\n'
        f'[cluster]\nbroker = "{broker}"\nvisibility_timeout = 600\n'
        f"shared_max_parallel = {str(shared).lower()}\n",
        encoding="utf-8",
    )
    return cfg


def timed_cluster(
    pg: PostgresServer,
    redis: RedisServer,
    server: FakeOllama,
    n: int,
    workers: int,
    max_parallel: int = 4,
    shared: bool = True,
) -> dict[str, Any]:
    root = project(n)
    dsn = pg.create_database(f"bench_{workers}_{time.time_ns()}")
    redis.flush()
    cfg = cluster_toml(root, server.base_url, dsn, redis.url, max_parallel, shared)
    started = [Worker(cfg, root / f"worker-{i}.log") for i in range(workers)]
    try:
        for w in started:
            w.wait_ready(60)
        settings = config_mod.load(cfg, environ={})
        calls_before = len(server.chat_requests)
        t = time.perf_counter()
        summary = run_job(settings, root / "briefs")
        with Runner(settings) as runner:
            row = wait_for_batch(runner, summary.batch_id, timeout=1800, poll=0.05)
        wall = time.perf_counter() - t
    finally:
        for w in started:
            w.stop()
    shutil.rmtree(root, ignore_errors=True)
    return {
        "wall_s": round(wall, 2),
        "briefs_per_minute": round(60 * n / wall, 1),
        "counts": row["counts"],
        "model_calls": len(server.chat_requests) - calls_before,
        "peak_parallel_calls": server.peak_parallel,
    }


def timed_threads(server: FakeOllama, n: int, threads: int) -> dict[str, Any]:
    root = project(n)
    settings = ollama_settings(root, server.base_url, **{"models.critic_mode": "gate"})
    t = time.perf_counter()
    summary = run_job(settings, root / "briefs", concurrency=threads)
    wall = time.perf_counter() - t
    shutil.rmtree(root, ignore_errors=True)
    return {
        "wall_s": round(wall, 2),
        "briefs_per_minute": round(60 * n / wall, 1),
        "counts": {k: v for k, v in summary.counts.items()},
    }


def run(n: int, latency: float, rounds: int, slots: int) -> dict[str, Any]:
    out: dict[str, Any] = {
        "briefs": n,
        "rounds": rounds,
        "calls_per_brief": 2 * rounds,
        "latency_per_call_s": latency,
        "server_slots": slots,
        "cluster": {},
        "thread_pool": {},
    }
    tmp = Path(tempfile.mkdtemp(prefix="briefloop-bench-cluster-"))
    with PostgresServer(tmp / "pg") as pg, RedisServer(tmp / "redis") as redis:
        pg.start()
        redis.start()
        for workers in WORKER_COUNTS:
            with FakeOllama(
                default=rounds_responder(rounds), latency=latency, max_parallel=slots
            ) as server:
                out["cluster"][str(workers)] = timed_cluster(pg, redis, server, n, workers)
                print(
                    f"cluster, {workers} worker process(es): {out['cluster'][str(workers)]}",
                    flush=True,
                )
            with FakeOllama(
                default=rounds_responder(rounds), latency=latency, max_parallel=slots
            ) as server:
                out["thread_pool"][str(workers)] = timed_threads(server, n, workers)
                print(
                    f"thread pool, {workers} thread(s): {out['thread_pool'][str(workers)]}",
                    flush=True,
                )
        # What counting the slots together costs: the same 4 workers, each counting its
        # own (the hosts' limit is not reached either way).
        with FakeOllama(
            default=rounds_responder(rounds), latency=latency, max_parallel=slots
        ) as server:
            out["unshared"] = timed_cluster(pg, redis, server, n, WORKER_COUNTS[-1], shared=False)
            print(
                f"cluster, {WORKER_COUNTS[-1]} workers, slots per process: {out['unshared']}",
                flush=True,
            )
        # max_parallel is the cluster's, not each worker's: 4 workers, a host set to 2.
        with FakeOllama(
            default=rounds_responder(rounds), latency=latency, max_parallel=slots
        ) as server:
            out["limited"] = timed_cluster(
                pg, redis, server, n, LIMITED_WORKERS, max_parallel=LIMITED_MAX_PARALLEL
            )
            out["limited"].update(workers=LIMITED_WORKERS, max_parallel=LIMITED_MAX_PARALLEL)
            print(
                f"cluster, {LIMITED_WORKERS} workers, host max_parallel "
                f"{LIMITED_MAX_PARALLEL}: {out['limited']}",
                flush=True,
            )
    shutil.rmtree(tmp, ignore_errors=True)
    for side in ("cluster", "thread_pool"):
        base = out[side]["1"]["wall_s"]
        for r in out[side].values():
            r["speedup"] = round(base / r["wall_s"], 2)
    return out


def markdown(r: dict[str, Any]) -> str:
    lines = [
        f"# Cluster throughput ({r['briefs']} briefs x {r['calls_per_brief']} model "
        f"calls at {r['latency_per_call_s'] * 1000:.0f} ms, fake Ollama with "
        f"{r['server_slots']} slots)",
        "",
        f"Machine: {r['machine']['cpu']}, {r['machine']['cores']} cores.",
        "",
        "| processes / threads | cluster: briefs/min | speedup | thread pool: "
        "briefs/min | speedup |",
        "|---|---|---|---|---|",
    ]
    for k in map(str, WORKER_COUNTS):
        c, t = r["cluster"][k], r["thread_pool"][k]
        lines.append(
            f"| {k} | {c['briefs_per_minute']} | {c['speedup']}x | "
            f"{t['briefs_per_minute']} | {t['speedup']}x |"
        )
    lines += [
        "",
        "Most calls the server had at once (each worker process makes one call at a time):",
        "",
        "| worker processes | host `max_parallel` | peak calls at the server | briefs/min |",
        "|---|---|---|---|",
    ]
    for k in map(str, WORKER_COUNTS):
        c = r["cluster"][k]
        lines.append(f"| {k} | 4 | {c['peak_parallel_calls']} | {c['briefs_per_minute']} |")
    if "limited" in r:
        c = r["limited"]
        lines.append(
            f"| {c['workers']} | {c['max_parallel']} | {c['peak_parallel_calls']} "
            f"| {c['briefs_per_minute']} |"
        )
    if "unshared" in r:
        shared, unshared = r["cluster"][str(WORKER_COUNTS[-1])], r["unshared"]
        ratio = shared["wall_s"] / unshared["wall_s"]
        lines += [
            "",
            f"Slots counted cluster-wide vs per process, {WORKER_COUNTS[-1]} "
            f"workers: {shared['briefs_per_minute']} vs {unshared['briefs_per_minute']} "
            f"briefs/min (cluster-wide: {ratio:.2f}x the wall time).",
        ]
    return "\n".join(lines) + "\n"


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m bench cluster",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--briefs", type=int, default=24)
    parser.add_argument("--latency", type=float, default=0.2)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--slots", type=int, default=8)
    args = parser.parse_args(argv)
    started = time.perf_counter()
    result = run(args.briefs, args.latency, args.rounds, args.slots)
    result["machine"] = machine()
    result["bench_seconds"] = round(time.perf_counter() - started, 1)
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "cluster.json").write_text(json.dumps(result, indent=2) + "\n")
    (RESULTS / "cluster.md").write_text(markdown(result))
    print(markdown(result))
