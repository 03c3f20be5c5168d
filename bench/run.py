"""briefloop benchmarks. `python -m bench` runs all; `python -m bench overhead sheets` some.

Each benchmark measures (it asserts nothing) and writes bench/results/<name>.json; the
run ends by writing bench/results/summary.md from every result file present. Baselines
run side by side in the same process. The model servers are the test doubles in tests/
(an Ollama-protocol HTTP server with a fixed latency, run in a process of its own by
bench/fake_server.py where the client's own cost is measured; an in-process Sheets v4
API), so the real ChatOllama and gspread code paths are what is measured.
"""

from __future__ import annotations

import functools
import json
import platform
import shutil
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
RESULTS = REPO / "bench" / "results"
sys.path.insert(0, str(REPO / "tests"))  # the test doubles

from batch import config as config_mod  # noqa: E402
from batch.nightly.job import run_job  # noqa: E402
from batch.outcomes import is_approved  # noqa: E402
from batch.store.retention import db_bytes, prune  # noqa: E402
from batch.store.runlog import RunLog  # noqa: E402
from bench.fake_server import FakeOllamaProcess, rounds_responder  # noqa: E402
from bench.stack_floor import (  # noqa: E402
    chat_model,
    http_model,
    run_bare_calls,
    run_bare_graph,
    sleeping_model,
)

from fake_ollama import FakeOllama  # noqa: E402
from fake_sheets import FakeSheets  # noqa: E402


def machine() -> dict[str, Any]:
    import os

    cpu = ""
    try:
        cpu = next(
            line.split(":", 1)[1].strip()
            for line in Path("/proc/cpuinfo").read_text().splitlines()
            if line.startswith("model name")
        )
    except (OSError, StopIteration):
        cpu = platform.processor()
    return {
        "cpu": cpu,
        "cores": os.cpu_count(),
        "python": platform.python_version(),
        "platform": platform.platform(),
    }


def project(n_briefs: int, body: str = "---\nid: {bid}\n---\nOffice closed on Friday.") -> Path:
    root = Path(tempfile.mkdtemp(prefix="briefloop-bench-"))
    shutil.copytree(REPO / "rubrics", root / "rubrics")
    shutil.copytree(REPO / "house_rules", root / "house_rules")
    (root / "briefs").mkdir()
    (root / "briefloop.toml").write_text("")
    for i in range(n_briefs):
        bid = f"brief-{i:04d}"
        (root / "briefs" / f"{bid}.md").write_text(body.format(bid=bid))
    return root


def ollama_settings(root: Path, base_url: str, **flat: Any) -> config_mod.Settings:
    model = {"provider": "ollama", "model": "qwen2.5:7b", "base_url": base_url, "timeout": 30}
    overrides = {
        "paths.root": str(root),
        "models.writer": model,
        "models.critic": model,
        "log.format": "csv",
        "log.path": "output/runs.csv",
        **flat,
    }
    cfg = root / "briefloop.toml"
    cfg.write_text("")
    return config_mod.load(cfg, overrides=overrides, environ={})


def timed_batch(settings, root: Path, concurrency: int = 1) -> tuple[float, Any]:
    started = time.perf_counter()
    summary = run_job(settings, root / "briefs", concurrency=concurrency)
    return time.perf_counter() - started, summary


# -- 1. orchestration overhead ------------------------------------------------------------


class Timers:
    """Wall time spent inside chosen functions, from any thread (cProfile sees only the
    thread that started it, and LangGraph runs nodes on its own threads)."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = {}
        self._undo: list[Callable[[], None]] = []
        self._local = threading.local()

    def wrap(self, label: str, owner: Any, name: str) -> None:
        original = getattr(owner, name)

        @functools.wraps(original)
        def timed(*args: Any, **kwargs: Any) -> Any:
            # only the outermost timed call counts, so nested parts are not counted twice
            depth = getattr(self._local, "depth", 0)
            self._local.depth = depth + 1
            t = time.perf_counter()
            try:
                return original(*args, **kwargs)
            finally:
                self._local.depth = depth
                if depth == 0 or label.startswith("~"):
                    self.seconds[label] = self.seconds.get(label, 0.0) + (time.perf_counter() - t)

        setattr(owner, name, timed)
        self._undo.append(lambda: setattr(owner, name, original))

    def restore(self) -> None:
        for undo in reversed(self._undo):
            undo()


def instrument() -> Timers:
    """Timers over the parts of a batch. The graph's time is that of Pregel.invoke and
    get_state (every call, the runner's too); what the nodes' functions spend, the
    checkpointer and the model calls are taken out of it, so "LangGraph itself" is the
    framework's own work (scheduling, channels, checkpoint building, routing)."""
    from langgraph.checkpoint.sqlite import SqliteSaver
    from langgraph.pregel import Pregel

    from batch.judging import checks
    from batch.loop import nodes
    from batch.loop.nodes import Nodes
    from batch.loop.writing import docs, drafts, repair_round
    from batch.models import chat
    from batch.run import runner
    from batch.store import runlog

    timers = Timers()
    for name in ("invoke", "get_state"):
        timers.wrap("~graph (invoke, get_state)", Pregel, name)
    timers.wrap("~deterministic checks", checks, "judge")
    # The nodes' functions, with all they call; one called by another (the critic node
    # runs the checks) counts once.
    depth = threading.local()

    def outermost(label: str, owner: Any, name: str) -> None:
        original = getattr(owner, name)

        @functools.wraps(original)
        def timed(*args: Any, **kwargs: Any) -> Any:
            level = getattr(depth, "level", 0)
            depth.level = level + 1
            t = time.perf_counter()
            try:
                return original(*args, **kwargs)
            finally:
                depth.level = level
                if level == 0:
                    timers.seconds[label] = timers.seconds.get(label, 0.0) + (
                        time.perf_counter() - t
                    )

        setattr(owner, name, timed)
        timers._undo.append(lambda: setattr(owner, name, original))

    for name in ("writer", "critic", "review", "finish"):
        outermost("~node functions", Nodes, name)
    timers.wrap("~model calls (ChatOllama + HTTP + fake latency)", chat.ChatRoleModel, "complete")
    # batch.models.ask beyond the client: the JSON schema sent, the answer's validation
    for module in (nodes, repair_round, docs):
        timers.wrap("~structured answers", module, "ask")
    for name in ("put", "put_writes", "get_tuple"):
        timers.wrap("~checkpoints (SqliteSaver)", SqliteSaver, name)
    # the names the nodes and the writer's strategies call them by (a wrap of
    # batch.prompting would not be seen)
    timers.wrap("~prompt building", drafts, "writer_messages")
    timers.wrap("~prompt building", repair_round, "repair_messages")
    timers.wrap("~prompt building", docs, "doc_messages")
    timers.wrap("~prompt building", nodes, "critic_messages")
    for name in ("upsert", "by_thread"):
        timers.wrap("~run log (SQLite)", runlog.RunLog, name)
    timers.wrap("~sheet sync (CSV file)", runner.Runner, "sync")
    timers.wrap("~source scan", runner, "scan_source")
    return timers


def bench_overhead(n: int = 50, rounds: int = 3, latency: float = 0.05) -> dict[str, Any]:
    """The client's cost per model call beyond the model's latency.

    The fake server runs in a process of its own, as Ollama does (in this process its
    request handling would compete with the client for the GIL and be counted as the
    client's); the same batch against the server in this process is reported beside it,
    for comparison. A one-brief batch first warms the process up (the Ollama client
    stack is imported on the first model call, once per process); what that first batch
    costs beyond the same batch again is reported as `first_batch_extra_s`. The server
    reports how long it held the calls: `per_step_overhead_ms_beyond_server` is the
    client's own time per call, without the fake's lateness beyond its latency (its
    timer wakes up late on a busy VM, its Python writes the answer).

    Beside each plain run, the same calls go through the stack alone (a bare LangGraph
    writer / critic / finish graph over SqliteSaver calling ChatOllama, nothing of ours:
    bench/stack_floor.py) and as bare HTTP exchanges: `stack_alone_ms_per_call` is what
    the chosen stack costs per call on this machine whatever briefloop does, and
    `briefloop_own_ms_per_call` the product's part beyond it."""
    calls = n * rounds * 2
    # The critic's verdict decides here (in "advice" mode the code checks would approve
    # the first draft and every brief would take one round).
    gate = {"models.critic_mode": "gate"}
    model_time = calls * latency

    def batch_of(
        briefs: int, in_process: bool = False, lat: float = latency
    ) -> tuple[float, Any, Any]:
        server = (
            FakeOllama(default=rounds_responder(rounds), latency=lat)
            if in_process
            else FakeOllamaProcess(rounds, lat)
        )
        with server:
            root = project(briefs)
            wall, summary = timed_batch(ollama_settings(root, server.base_url, **gate), root)
        assert server.chat_count == briefs * rounds * 2, (
            f"each brief should take exactly {rounds} rounds"
        )
        return wall, summary, server

    def floor_of(run: Callable[[str], float]) -> tuple[float, float]:
        """(wall, server seconds) of the same calls through a layer of the stack alone."""
        with FakeOllamaProcess(rounds, latency) as server:
            wall = run(server.base_url)
        assert server.chat_count == calls, "the stack alone should make the same calls"
        return wall, server.chat_seconds

    def over_http(url: str) -> float:
        model, close = http_model(url)
        try:
            return run_bare_calls(model, n, rounds)
        finally:
            close()

    layers: dict[str, Callable[[], tuple[float, float]]] = {
        "stack": lambda: floor_of(lambda url: run_bare_graph(chat_model(url), n)),
        "graph": lambda: (run_bare_graph(sleeping_model(latency, rounds), n), model_time),
        "chat": lambda: floor_of(lambda url: run_bare_calls(chat_model(url), n, rounds)),
        "http": lambda: floor_of(over_http),
    }

    first, _, _ = batch_of(1)
    again, _, _ = batch_of(1)
    # Plain runs, each beside the same calls through layers of the stack alone
    # (bench/stack_floor.py), in turn, three times; the medians are reported. Then the
    # batch with the server in this process, then an instrumented one for the parts.
    runs: list[tuple[float, float, Any]] = []
    layer_runs: dict[str, list[tuple[float, float]]] = {name: [] for name in layers}
    for _ in range(3):
        wall, summary, server = batch_of(n)
        runs.append((wall, server.chat_seconds, summary))
        for name, run in layers.items():
            layer_runs[name].append(run())

    def per_call(wall: float) -> float:
        return 1000 * (wall - model_time) / calls

    wall, server_time, summary = sorted(runs, key=lambda r: r[0])[1]
    layer = {name: sorted(found)[1] for name, found in layer_runs.items()}
    wall_in_process, _, _ = batch_of(n, in_process=True)
    client_model = sum(r.record["model_seconds"] for r in summary.results)
    timers = instrument()
    try:
        timed_wall, _, timed_server = batch_of(n)
    finally:
        timers.restore()
    parts = {label.lstrip("~"): round(v, 3) for label, v in timers.seconds.items()}
    graph = parts.pop("graph (invoke, get_state)")
    node_functions = parts.pop("node functions")
    model = parts.pop("model calls (ChatOllama + HTTP + fake latency)")
    structured = parts.pop("structured answers")
    # what the client waited for beyond the latency: the fake's lateness (its timer, its
    # Python), then the client's own part of the call
    parts["fake server beyond its latency (not the client's)"] = round(
        timed_server.chat_seconds - model_time, 3
    )
    parts["model client overhead (ChatOllama + HTTP, beyond the server's time)"] = round(
        model - timed_server.chat_seconds, 3
    )
    parts["structured answers (schema, validation; batch.models.ask)"] = round(
        structured - model, 3
    )
    # the nodes' own code: cleanup, the verdict, the output file (checks and prompts
    # are parts of their own; the nodes call the checks, the checkpointer does not)
    parts["node code (cleanup, verdict, output file)"] = round(
        node_functions
        - structured
        - parts.get("deterministic checks", 0)
        - parts.get("prompt building", 0),
        3,
    )
    parts["LangGraph itself (graph time minus nodes' parts)"] = round(
        graph - node_functions - parts.get("checkpoints (SqliteSaver)", 0), 3
    )
    # run log, sheet sync and source scan are parts of their own: the parts add up to the
    # instrumented wall time minus the fake latency
    parts["outside the graph, the rest (runner, locks, ...)"] = round(
        timed_wall
        - graph
        - parts.get("run log (SQLite)", 0)
        - parts.get("sheet sync (CSV file)", 0)
        - parts.get("source scan", 0),
        3,
    )
    # the same at a latency closer to a real local model (fewer briefs, same shape)
    slow_n, slow_latency = 8, 0.5
    slow_wall, _, _ = batch_of(slow_n, lat=slow_latency)
    slow_model = slow_n * rounds * 2 * slow_latency
    return {
        "overhead_ratio_at_500ms": round((slow_wall - slow_model) / slow_wall, 4),
        "per_step_overhead_ms": round(per_call(wall), 2),
        "per_step_overhead_ms_runs": sorted(round(per_call(r[0]), 2) for r in runs),
        # the same calls through layers of the stack alone, side by side (medians)
        "stack_alone_ms_per_call": round(per_call(layer["stack"][0]), 2),
        "graph_alone_ms_per_call": round(per_call(layer["graph"][0]), 2),
        "chat_alone_ms_per_call": round(per_call(layer["chat"][0]), 2),
        "bare_http_ms_per_call": round(per_call(layer["http"][0]), 2),
        "layer_runs_ms_per_call": {
            name: sorted(round(per_call(w), 2) for w, _ in found)
            for name, found in layer_runs.items()
        },
        "briefloop_own_ms_per_call": round(per_call(wall) - per_call(layer["stack"][0]), 2),
        "per_step_overhead_ms_in_process_server": round(per_call(wall_in_process), 2),
        "per_step_overhead_ms_beyond_server": round(1000 * (wall - server_time) / calls, 2),
        "server_ms_beyond_latency_per_call": round(1000 * (server_time - model_time) / calls, 2),
        "first_batch_extra_s": round(first - again, 3),
        "server": "fake Ollama in a process of its own (tests/fake_ollama.py, "
        "bench/fake_server.py), after a one-brief warm-up batch",
        "briefs": n,
        "rounds": rounds,
        "model_calls": calls,
        "latency_per_call_s": latency,
        "wall_s": round(wall, 2),
        "wall_s_in_process_server": round(wall_in_process, 2),
        "model_s": round(model_time, 2),
        "server_s": round(server_time, 2),
        "model_s_seen_by_client": round(client_model, 2),
        "overhead_ratio": round((wall - model_time) / wall, 4),
        "instrumented_wall_s": round(timed_wall, 2),
        "overhead_parts_s": dict(sorted(parts.items(), key=lambda kv: -kv[1])),
    }


# -- 2. concurrency scaling ---------------------------------------------------------------


def bench_concurrency(n: int = 24, rounds: int = 3, latency: float = 0.05) -> dict[str, Any]:
    out: dict[str, Any] = {"briefs": n, "rounds": rounds, "server_slots": 4, "runs": {}}
    for workers in (1, 2, 4, 8):
        with FakeOllama(
            default=rounds_responder(rounds), latency=latency, max_parallel=4
        ) as server:
            root = project(n)
            wall, _ = timed_batch(ollama_settings(root, server.base_url), root, workers)
            out["runs"][str(workers)] = {
                "wall_s": round(wall, 2),
                "peak_parallel": server.peak_parallel,
            }
    base = out["runs"]["1"]["wall_s"]
    for run in out["runs"].values():
        run["speedup"] = round(base / run["wall_s"], 2)
    return out


# -- 3. embedded model efficiency and the prompt cache -------------------------------------


def bench_embedded(repeats: int = 3) -> dict[str, Any]:
    from llama_cpp import Llama

    from batch.inputs.briefs import load_brief_file
    from batch.loop.answers import critic_schema
    from batch.models.base import ask
    from batch.models.gguf import verified_model_path
    from batch.models.llamacpp import build_embedded
    from batch.prompting import critic_messages
    from batch.run.runner import Runner

    settings = config_mod.load(REPO / "config" / "briefloop.toml", environ={})
    cache = settings.path(settings.paths.model_cache)
    ours = build_embedded(settings.models.critic, cache, "bench-critic")
    root = project(0)
    s = config_mod.load(
        root / "briefloop.toml",
        overrides={"paths.root": str(root), "log.format": "none"},
        environ={},
    )
    with Runner(s, models={"writer": None, "critic": None}) as runner:
        state, _ = runner.initial_state(
            load_brief_file(REPO / "examples" / "briefs" / "office-closure.md", 10**6)
        )
    from batch.loop.checking import rubric_of

    rubric = rubric_of(state)
    schema_type = critic_schema(rubric)
    drafts = [
        f"The office is closed this Friday from 15:00 (variant {i}). Save your work."
        for i in range(repeats)
    ]
    path = verified_model_path(settings.models.critic.model, cache)
    import os

    # the same thread count as ours (llama.cpp's own default is half the cores)
    bare = Llama(
        model_path=str(path),
        n_ctx=settings.models.critic.num_ctx,
        n_threads=ours.chat.threads or max(1, os.cpu_count() or 1),
        verbose=False,
    )

    def bare_call(messages):
        return bare.create_chat_completion(
            messages=messages,
            response_format={"type": "json_object", "schema": schema_type.model_json_schema()},
            temperature=0.0,
            max_tokens=settings.models.critic.max_tokens,
            repeat_penalty=1.1,
            seed=settings.models.critic.seed,
        )

    ours_s, bare_s = [], []
    for draft in drafts:  # alternate, same prompts, same process
        messages = critic_messages({**state, "draft": draft}, rubric)
        t = time.perf_counter()
        ask(ours, "critic", messages, schema_type, [])
        ours_s.append(time.perf_counter() - t)
        t = time.perf_counter()
        bare_call(messages)
        bare_s.append(time.perf_counter() - t)

    # The prompt cache: the same critic prompt with only the draft changed, prompt
    # evaluation only (max_tokens=1), stable text first (ours) vs the draft first.
    def prompt_eval(messages):
        t = time.perf_counter()
        bare.create_chat_completion(messages=messages, max_tokens=1, temperature=0.0)
        return time.perf_counter() - t

    def reordered(messages):
        system, user = messages[0]["content"], messages[1]["content"]
        head, _, draft_part = user.partition("DRAFT TO JUDGE:")
        return [
            {"role": "system", "content": "DRAFT TO JUDGE:" + draft_part + "\n" + system},
            {"role": "user", "content": head},
        ]

    cache_rows = {}
    for label, shape in (("stable text first", lambda m: m), ("draft first", reordered)):
        first = critic_messages({**state, "draft": drafts[0]}, rubric)
        second = critic_messages({**state, "draft": drafts[1]}, rubric)
        bare.reset()
        cold = prompt_eval(shape(first))
        warm = prompt_eval(shape(second))
        cache_rows[label] = {"first_call_s": round(cold, 3), "next_round_s": round(warm, 3)}
    return {
        "calls_each": repeats,
        "ours_mean_s": round(sum(ours_s) / len(ours_s), 3),
        "bare_llama_mean_s": round(sum(bare_s) / len(bare_s), 3),
        "ours_vs_bare": round(sum(ours_s) / sum(bare_s), 3),
        "prompt_eval": cache_rows,
        "prompt_tokens": len(
            bare.tokenize(
                json.dumps(critic_messages({**state, "draft": drafts[0]}, rubric)).encode()
            )
        ),
    }


# -- 4. storage growth and retention --------------------------------------------------------


def bench_storage(n: int = 1000) -> dict[str, Any]:
    with FakeOllama(default=rounds_responder(2)) as server:
        root = project(n)
        settings = ollama_settings(root, server.base_url, **{"log.format": "none"})
        one = project(1)
        s1 = ollama_settings(one, server.base_url, **{"log.format": "none"})
        run_job(s1, one / "briefs")
        per_brief = db_bytes(s1.checkpoint_path)
        started = time.perf_counter()
        run_job(settings, root / "briefs")
        wall = time.perf_counter() - started
    before = db_bytes(settings.checkpoint_path)
    t = time.perf_counter()
    report = prune(settings, keep_days=0)
    gc_s = time.perf_counter() - t
    log = RunLog(settings.runs_db_path)
    finished = len(log.all("finished"))
    log.close()
    return {
        "briefs": n,
        "rounds": 2,
        "finished": finished,
        "db_bytes_after_1_brief": per_brief,
        "db_bytes_after_all": before,
        "bytes_per_brief": round(before / n),
        "after_gc_bytes": report.bytes_after,
        "gc_ratio": round(report.bytes_after / before, 4),
        "checkpoints_deleted": report.checkpoints_deleted,
        "gc_s": round(gc_s, 2),
        "batch_wall_s": round(wall, 1),
    }


# -- 5. sheet traffic ---------------------------------------------------------------------


def bench_sheets() -> dict[str, Any]:
    from batch.config import GSheetLog
    from batch.sheets.google import client_class
    from batch.sheets.run_rows import GSheetSink
    from batch.sheets.sync import sync_sink

    out = {}
    for n in (1, 10, 100, 1000):
        fake = FakeSheets()
        key = "1BenchSheetKey0123456789abcdef"
        fake.add_spreadsheet(key, worksheets={"Sheet1": []})
        settings = config_mod.Settings()
        sink = GSheetSink(
            GSheetLog(spreadsheet=key),
            lambda f=fake, s=settings: f.client(http_client=client_class(s.google)),
        )
        tmp = Path(tempfile.mkdtemp(prefix="briefloop-bench-"))
        log = RunLog(tmp / "runs.sqlite")
        for i in range(n):
            log.upsert(f"t{i}", brief_id=f"b{i}", status="finished", stop_reason="approved")
        sync_sink(log, sink)  # creates the worksheet
        for i in range(n):
            log.upsert(f"t{i}", score=90.0)
            log.upsert(f"new{i}", brief_id=f"n{i}", status="running")
        fake.reset_counts()
        t = time.perf_counter()
        sent = sync_sink(log, sink).sent
        out[str(n)] = {
            "rows_sent": sent,
            "requests": fake.count(),
            "seconds": round(time.perf_counter() - t, 3),
        }
        log.close()
    return {"pending_rows_per_sync (n updated + n new)": out}


# -- 6. cost per brief: the loop vs a single writer pass -----------------------------------


def bench_cost() -> dict[str, Any]:
    from batch.inputs.briefs import scan_folder
    from batch.loop.answers import WriterAnswer
    from batch.models import ask
    from batch.prompting import writer_messages
    from batch.run.runner import Runner

    root = project(0)
    for f in (REPO / "examples" / "briefs").iterdir():
        shutil.copy(f, root / "briefs" / f.name)
    settings = config_mod.load(
        root / "briefloop.toml",
        overrides={"paths.root": str(root), "log.format": "none"},
        environ={},
    )
    t = time.perf_counter()
    summary = run_job(settings, root / "briefs")
    loop_wall = time.perf_counter() - t
    records = [r.record for r in summary.results]
    approved = sum(is_approved(r["stop_reason"]) for r in records)
    single: list[Any] = []
    t = time.perf_counter()
    with Runner(settings) as runner:
        for brief in scan_folder(root / "briefs", 10**6).briefs:
            state, _ = runner.initial_state(brief)
            ask(runner.models.get("writer"), "writer", writer_messages(state), WriterAnswer, single)
    single_wall = time.perf_counter() - t
    briefs = len(records)
    loop_tokens = sum(r["input_tokens"] + r["output_tokens"] for r in records)
    return {
        "briefs": briefs,
        "approved_by_the_loop": approved,
        "stop_reasons": {r["brief_id"]: r["stop_reason"] for r in records},
        "loop": {
            "model_calls": sum(r["model_calls"] for r in records),
            "tokens": loop_tokens,
            "wall_s": round(loop_wall, 1),
            "calls_per_brief": round(sum(r["model_calls"] for r in records) / briefs, 2),
            "tokens_per_brief": round(loop_tokens / briefs),
        },
        "single_writer_pass": {
            "model_calls": len(single),
            "tokens": sum(c.input_tokens + c.output_tokens for c in single),
            "wall_s": round(single_wall, 1),
        },
        "loop_vs_single_tokens": round(
            loop_tokens / max(1, sum(c.input_tokens + c.output_tokens for c in single)), 2
        ),
    }


BENCHMARKS: dict[str, Callable[[], dict[str, Any]]] = {
    "overhead": bench_overhead,
    "concurrency": bench_concurrency,
    "sheets": bench_sheets,
    "storage": bench_storage,
    "embedded": bench_embedded,
    "cost": bench_cost,
}


def summary_markdown(results: dict[str, dict[str, Any]]) -> str:
    lines = ["# briefloop benchmark results", ""]
    m = next(iter(results.values()), {}).get("machine", {})
    if m:
        lines += [f"Machine: {m['cpu']}, {m['cores']} cores, Python {m['python']}.", ""]
    lines += ["| benchmark | result |", "|---|---|"]
    if "overhead" in results:
        r = results["overhead"]
        parts = ", ".join(f"{k} {v:.2f} s" for k, v in r["overhead_parts_s"].items())
        lines.append(
            f"| orchestration overhead | {r['overhead_ratio']:.1%} of wall time "
            f"({r['briefs']} briefs x {r['rounds']} rounds, {r['model_calls']} calls "
            f"at {r['latency_per_call_s'] * 1000:.0f} ms; wall {r['wall_s']} s vs "
            f"model {r['model_s']} s; {r['per_step_overhead_ms']} ms per model "
            f"call, the fake server in a process of its own, of which "
            f"{r.get('server_ms_beyond_latency_per_call', '?')} ms the server's "
            f"lateness beyond its latency: "
            f"{r.get('per_step_overhead_ms_beyond_server', '?')} ms the client's own; "
            f"{r.get('per_step_overhead_ms_in_process_server', '?')} ms with the "
            f"server in the bench's process); {r['overhead_ratio_at_500ms']:.1%} at "
            f"500 ms per call. "
            f"The same calls through the stack alone (LangGraph, SqliteSaver, "
            f"ChatOllama; nothing of ours): "
            f"{r.get('stack_alone_ms_per_call', '?')} ms per call (the graph "
            f"alone, nodes sleeping: {r.get('graph_alone_ms_per_call', '?')} ms; "
            f"ChatOllama alone: {r.get('chat_alone_ms_per_call', '?')} ms; bare "
            f"HTTP: {r.get('bare_http_ms_per_call', '?')} ms); briefloop's own "
            f"part: {r.get('briefloop_own_ms_per_call', '?')} ms. "
            f"Parts: {parts} |"
        )
    if "concurrency" in results:
        runs = results["concurrency"]["runs"]
        lines.append(
            "| concurrency scaling (4 server slots) | "
            + ", ".join(f"{k}: {v['speedup']}x" for k, v in runs.items())
            + " |"
        )
    if "embedded" in results:
        r = results["embedded"]
        cache = "; ".join(
            f"{k}: next round {v['next_round_s']} s vs first {v['first_call_s']} s"
            for k, v in r["prompt_eval"].items()
        )
        lines.append(
            f"| embedded provider vs bare llama.cpp | {r['ours_vs_bare']}x "
            f"({r['ours_mean_s']} s vs {r['bare_llama_mean_s']} s per critic call). "
            f"Prompt eval with the cache: {cache} |"
        )
    if "storage" in results:
        r = results["storage"]
        lines.append(
            f"| checkpoint storage | {r['bytes_per_brief']:,} bytes per finished "
            f"brief; {r['db_bytes_after_all']:,} bytes after {r['briefs']}; "
            f"{r['after_gc_bytes']:,} after `briefloop gc` "
            f"({r['gc_ratio']:.1%}) |"
        )
    if "sheets" in results:
        per = results["sheets"]["pending_rows_per_sync (n updated + n new)"]
        lines.append(
            "| Google Sheets requests per sync | "
            + ", ".join(f"{2 * int(k)} rows: {v['requests']}" for k, v in per.items())
            + " |"
        )
    if "cost" in results:
        r = results["cost"]
        lines.append(
            f"| cost per brief, embedded model | loop {r['loop']['calls_per_brief']} "
            f"calls, {r['loop']['tokens_per_brief']} tokens per brief "
            f"({r['approved_by_the_loop']}/{r['briefs']} approved); single writer "
            f"pass {r['single_writer_pass']['model_calls']} calls, "
            f"{r['single_writer_pass']['tokens']} tokens in all; the loop costs "
            f"{r['loop_vs_single_tokens']}x the tokens |"
        )
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> None:
    names = (argv if argv is not None else sys.argv[1:]) or list(BENCHMARKS)
    unknown = set(names) - set(BENCHMARKS)
    if unknown:
        sys.exit(
            f"unknown benchmark(s): {', '.join(sorted(unknown))} (known: {', '.join(BENCHMARKS)})"
        )
    RESULTS.mkdir(parents=True, exist_ok=True)
    for name in names:
        print(f"running {name} ...", flush=True)
        t = time.perf_counter()
        result = BENCHMARKS[name]()
        result["machine"] = machine()
        result["bench_seconds"] = round(time.perf_counter() - t, 1)
        (RESULTS / f"{name}.json").write_text(json.dumps(result, indent=2) + "\n")
        print(json.dumps(result, indent=2), flush=True)
    results = {p.stem: json.loads(p.read_text()) for p in sorted(RESULTS.glob("*.json"))}
    (RESULTS / "summary.md").write_text(summary_markdown(results))
    print((RESULTS / "summary.md").read_text())
