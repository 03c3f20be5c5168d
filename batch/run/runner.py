"""The batch runner: every brief of a source through the graph, N at a time.

Per brief it decides from the run log and the checkpointer what is left to do:
finished threads are skipped, threads waiting for a person stay waiting, interrupted
ones resume from their last checkpoint, new ones start. Each outcome is written to the
run log (SQLite) and then to the spreadsheet view.
"""

from __future__ import annotations

import threading
import time
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import gspread
from langchain_core.runnables import RunnableConfig
from langgraph.config import get_config
from langgraph.graph.state import CompiledStateGraph
from langgraph.types import Command, StateSnapshot

from batch.config import Settings
from batch.errors import BatchTimeUp, BriefloopError, LockBusy, OutOfBudget, StoreError
from batch.inputs.briefs import BadBrief, Brief
from batch.inputs.sources import scan_source
from batch.judging.checklist.fixes import fix_counts, kept_fix
from batch.judging.doc_examples.sandbox import sandbox_problem
from batch.models import ModelSet, RoleModel
from batch.models.budget import batch_ends_at, journaled_from
from batch.models.journal import CallRecord, journal_to
from batch.outcomes import AWAITING, Outcome, is_approved
from batch.output import front_matter_of, safe_filename, withdraw
from batch.run.clashes import clash_message, clash_of
from batch.run.recorder import RunRecorder
from batch.run.resources import Resources
from batch.run.signals import STOP
from batch.run.starting import bad_thread_id, of_version, start_state, thread_id_for
from batch.sheets.google import client_opener, read_rows
from batch.sheets.run_rows import RunLogSink
from batch.sheets.sync import SyncResult, make_sinks, sync_all, sync_sink
from batch.source_files import is_python
from batch.state import LoopState, loop_state
from batch.store.backends import Store, open_runlog
from batch.store.runlog import RunLog, store_failure
from batch.thread_inputs import brief_of


@dataclass
class BriefResult:
    brief_id: str
    thread_id: str
    outcome: Outcome
    record: dict[str, Any] | None = None
    model_calls: int = 0  # made in this batch
    seconds: float = 0.0
    error: str = ""


def has_work(snapshot: StateSnapshot) -> bool:
    """The thread's last checkpoint has a step to take: a task still to run, or one that
    ran and whose writes were saved (put_writes) before the process ended, with no
    checkpoint after them yet. LangGraph leaves the second out of `next`, and applies
    its writes when the thread is invoked with None; a thread read as finished there
    would lose the step (an approval never written out), and one started again from its
    brief would repeat every round."""
    return bool(snapshot.tasks)


@dataclass
class BatchSummary:
    results: list[BriefResult] = field(default_factory=list)
    skipped_files: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    sync: list[SyncResult] = field(default_factory=list)
    pulled: list[Any] = field(default_factory=list)  # review answers acted on first
    seconds: float = 0.0
    batch_id: int | None = None  # the run log's batches row (set by a cluster's enqueuer)
    time_up: bool = False  # the batch's hours (run.max_hours) ran out before its end

    @property
    def counts(self) -> Counter[str]:
        return Counter(r.outcome for r in self.results)

    @property
    def model_calls(self) -> int:
        return sum(r.model_calls for r in self.results)

    @property
    def failed(self) -> bool:
        return any(r.outcome == "error" for r in self.results)


class Progress:
    """Hooks the CLI uses to show progress; the library prints nothing itself."""

    def batch_started(self, total: int) -> None: ...
    def brief_started(self, brief_id: str) -> None: ...
    def brief_finished(self, result: BriefResult) -> None: ...


# How a person's answer reaches a cluster's workers (batch.cluster.hand_to_workers).
Resumer = Callable[["Runner", str, Any], "BriefResult"]


class Runner:
    """Runs briefs through the graph and records them: a batch of a source, one thread
    moved on (`advance`, `resume`), or looked at (`snapshot`). Everything it works with
    comes from one Resources object, opened here (or passed in) and closed with it."""

    def __init__(
        self,
        settings: Settings,
        models: dict[str, RoleModel | None] | None = None,
        progress: Progress | None = None,
        strict: bool = False,
        google_client: Callable[[], gspread.Client] | None = None,
        resources: Resources | None = None,
        local: bool = False,
        resumer: Resumer | None = None,
    ):
        """`models` replaces configured models by role and `google_client` how the
        Google client is opened (tests); `strict` re-raises bugs instead of recording
        them; `local` runs threads in this process even when a cluster is configured
        (what a worker does). `resumer` hands a person's answer on in a cluster
        (`run_on`): it is chosen above this layer, by whoever opens the batch."""
        self.settings = settings
        self.progress = progress or Progress()
        self.strict = strict
        self.resources = resources or Resources(settings, models, google_client)
        self.local = local or not settings.clustered
        self.resumer = resumer
        self._sync_lock = threading.Lock()
        self._last_sync: dict[str, float] = {}
        self._runs = 0  # batches under way in run(): log.sync_interval applies meanwhile
        # the run log's batches row of the batch under way, recorded with each run it runs
        self.batch_id: int | None = None
        # time.monotonic() past which no brief and no model call starts (run.max_hours)
        self.ends_at: float | None = None

    # What the batch works with, by the names the code reads them by.
    @property
    def runlog(self) -> RunLog:
        return self.resources.runlog

    @property
    def records(self) -> RunRecorder:
        """The one writer of its run-log rows."""
        return RunRecorder(self.runlog, self.batch_id)

    @property
    def graph(self) -> CompiledStateGraph[Any]:
        return self.resources.graph

    @property
    def models(self) -> ModelSet:
        return self.resources.models

    @property
    def google(self) -> Callable[[], gspread.Client]:
        return self.resources.google

    @property
    def sinks(self) -> list[RunLogSink]:
        return self.resources.sinks

    @property
    def store(self) -> Store:
        return self.resources.store

    def close(self) -> None:
        self.resources.close()

    def __enter__(self) -> Runner:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- one thread ---------------------------------------------------------------------
    def snapshot(self, thread_id: str) -> StateSnapshot:
        """The thread's last checkpoint: its values, what runs next, its interrupts."""
        return self.graph.get_state(self.config_for(thread_id))

    def resume(self, thread_id: str, response: Any) -> BriefResult:
        """Answer the thread's interrupt with `response` (an Agent Inbox response, see
        batch.loop.inbox) and run it on, here. The caller holds the thread's lock."""
        return self.advance(thread_id, None, Command(resume=response))

    def run_on(self, thread_id: str, response: Any) -> BriefResult:
        """Run a waiting thread on with a person's answer: here, or, in a cluster, where
        the resumer sends it (the workers; the outcome is then "queued")."""
        if self.local:
            return self.resume(thread_id, response)
        if self.resumer is None:
            raise RuntimeError(
                "a batch of a cluster was opened without a resumer: an "
                "answer would run here, beside the workers"
            )
        return self.resumer(self, thread_id, response)

    def read_gsheet(self, key: str, worksheet: str | None) -> list[list[str]]:
        return read_rows(self.google(), key, worksheet)

    # -- the batch ---------------------------------------------------------------------
    def run(
        self, source: str | Path, rerun: bool = False, concurrency: int | None = None
    ) -> BatchSummary:
        started = time.perf_counter()
        hours = self.settings.run.max_hours
        self.ends_at = None if hours is None else time.monotonic() + hours * 3600
        scan = scan_source(
            str(source), self.settings.loop.max_brief_bytes, read_gsheet=self.read_gsheet
        )
        summary = BatchSummary(skipped_files=scan.skipped, warnings=list(scan.warnings))
        if (
            any(isinstance(b, Brief) and is_python(b.origin) for b in scan.briefs)
            and (problem := sandbox_problem()) is not None
        ):
            # never run model-written code unsandboxed: the docs are judged without it
            summary.warnings.append(f"examples in API docs are not run, so not verified: {problem}")
        self.progress.batch_started(len(scan.briefs))
        workers = concurrency or self.settings.run.concurrency
        with self._sync_lock:
            self._runs += 1
        try:
            if workers == 1:  # in this thread: simpler tracebacks and profiles
                summary.results = [self.process(b, rerun) for b in scan.briefs]
            else:
                with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="brief") as pool:
                    summary.results = list(pool.map(lambda b: self.process(b, rerun), scan.briefs))
        finally:
            with self._sync_lock:
                self._runs -= 1
        summary.time_up = self.time_up() and any(
            r.outcome in ("stopped", "not_started") for r in summary.results
        )
        self.ends_at = None  # a thread moved on later (a review answer) has no batch hours
        summary.sync = self.sync(force=True)
        summary.warnings += [
            f"{r.sink}: {r.pending} row(s) left pending: {r.error}" for r in summary.sync if r.error
        ]
        summary.seconds = time.perf_counter() - started
        return summary

    def process(
        self,
        item: Brief | BadBrief,
        rerun: bool = False,
        prepared: tuple[str, LoopState] | None = None,
    ) -> BriefResult:
        """One brief: started, resumed, or found done or waiting. `prepared` is its
        thread id and starting state when they were made elsewhere (a cluster's
        enqueuer, see batch.cluster)."""
        if STOP.is_set() or self.time_up():  # a clean stop: no new brief; a rerun does it
            return self._counted(BriefResult(item.id, "", "not_started"))
        self.progress.brief_started(item.id)
        if isinstance(item, BadBrief):
            result = self.record_bad(
                item.id, item.origin, item.reason, bad_thread_id(item.id, item.origin)
            )
        else:
            try:
                result = self._process_brief(item, rerun, prepared)
            except StoreError:
                raise  # the state is out of reach: not this brief's fault, see below
            except BriefloopError as e:
                result = self.record_bad(
                    item.id, item.origin, str(e), bad_thread_id(item.id, item.origin)
                )
            except Exception as e:  # a bug must cost one brief, not the night's batch
                failure = store_failure(e, self.settings.checkpoint_path.parent)
                if failure is not None:
                    # The disk under the state is full or failing: every later brief
                    # would fail the same way, and so would recording it. Stop the batch.
                    raise failure from None
                if self.strict:
                    raise
                result = self.record_bad(
                    item.id,
                    item.origin,
                    f"unexpected {e.__class__.__name__}: {e}",
                    bad_thread_id(item.id, item.origin),
                )
        self.progress.brief_finished(result)
        return self._counted(result)

    def time_up(self) -> bool:
        """The batch's hours (run.max_hours) are up."""
        return self.ends_at is not None and time.monotonic() >= self.ends_at

    def _counted(self, result: BriefResult) -> BriefResult:
        """The result, kept as one of the batch's (its page lists what it counts)."""
        if self.batch_id is not None:
            self.runlog.batch_counted(
                self.batch_id, result.thread_id, result.brief_id, result.outcome, result.seconds
            )
        return result

    def record_bad(self, brief_id: str, origin: str, reason: str, thread_id: str) -> BriefResult:
        record = self.records.unreadable(thread_id, brief_id, origin, reason)
        self.sync(force=False)
        return BriefResult(brief_id, thread_id, "error", record, error=reason)

    def initial_state(self, brief: Brief) -> tuple[LoopState, str]:
        """A thread's starting state, with the fixes a person made to an earlier reading
        of the same brief (its thread id does not depend on them)."""
        state, fingerprint = start_state(self.settings, brief)
        fixes = [kept_fix(row) for row in self.runlog.fixes(brief.id)]
        if fixes:
            state["checklist_fixes"] = fixes
        return state, fingerprint

    def config_for(self, thread_id: str) -> RunnableConfig:
        return {
            "configurable": {"thread_id": thread_id},
            "recursion_limit": self.settings.loop.recursion_limit,
        }

    def prepare(self, brief: Brief, rerun: bool = False) -> tuple[str, LoopState]:
        """The brief's thread id and starting state."""
        state, fingerprint = self.initial_state(brief)
        return thread_id_for(brief, fingerprint, rerun), state

    def _process_brief(
        self, brief: Brief, rerun: bool, prepared: tuple[str, LoopState] | None = None
    ) -> BriefResult:
        if prepared is None:
            self.check_clash(brief)
        thread_id, state = prepared or self.prepare(brief, rerun)
        version = thread_id  # every run of this version of the brief starts with it
        existing = self.runlog.by_thread(thread_id)
        retried = self.runlog.latest_retry(thread_id) if existing and not prepared else None
        if retried is not None:
            # A person tried this brief again: its live thread is the retry, never the
            # attempt it replaced (resumed, that one would write over the retry's text).
            thread_id, existing = retried["thread_id"], retried
        if existing and not prepared and self.put_back(brief, version, thread_id, existing):
            return self._process_brief(brief, rerun=True)
        if existing and existing["status"] == "finished":
            return BriefResult(brief.id, thread_id, "skipped", existing)
        try:
            # Decide and advance under the thread's lock: a reviewer answering this very
            # thread from another process must not interleave with us.
            with self.store.thread_lock(thread_id):
                return self._continue(thread_id, brief, state, existing)
        except LockBusy:
            return BriefResult(brief.id, thread_id, "busy", existing)

    def check_clash(self, brief: Brief) -> None:
        """BriefloopError when another source still holds a brief of the same id
        (batch.run.clashes): neither runs, nothing is written over."""
        other = clash_of(
            brief,
            self.runlog.origins_of(brief.id),
            self.settings.path("."),
            self.settings.loop.max_brief_bytes,
            self.read_gsheet,
        )
        if other is not None:
            raise BriefloopError(clash_message(brief, other))

    def put_back(
        self, brief: Brief, version: str, thread_id: str, existing: dict[str, Any]
    ) -> bool:
        """A brief put back to a version that ran before, after another version of it ran
        (Friday, then Monday, then Friday again): its thread of this version becomes the
        brief's current one, and output/ holds no other version's text. True when it
        must run again: it was approved, and its text is no longer in output/ (the
        other version's took its place)."""
        newer = self.runlog.newer_of_brief(thread_id)
        if newer is None or of_version(newer["thread_id"], version):
            return False
        out_dir = self.settings.output_dir
        found = front_matter_of(out_dir / f"{safe_filename(brief.id)}.md")
        writer = str(found[0].get("thread_id") or "") if found else ""
        if found is not None and not writer:
            writer = self._wrote(brief.id, out_dir / f"{safe_filename(brief.id)}.md")
        ours = bool(writer) and of_version(writer, version)
        if found is not None and not ours:
            moved = withdraw(
                out_dir,
                brief.id,
                writer or brief.id,
                {"approved": False, "stop_reason": "superseded", "superseded_by": thread_id},
            )
            if moved is not None and writer and self.runlog.by_thread(writer):
                self.records.set_aside(writer, str(moved))
        approved = existing["status"] == "finished" and is_approved(existing.get("stop_reason"))
        if approved and not ours:
            return True
        self.runlog.make_current(thread_id)
        return False

    def _wrote(self, brief_id: str, path: Path) -> str:
        """The thread whose run-log row names `path` as its output, the latest: for a
        file written before output files named their thread; "" when none does."""
        named = [
            r
            for r in self.runlog.all(brief=brief_id)
            if r.get("output_path")
            and Path(r["output_path"]).name == path.name
            and Path(r["output_path"]).parent.name == path.parent.name
        ]
        return str(max(named, key=lambda r: r.get("seq") or 0)["thread_id"]) if named else ""

    def _continue(
        self, thread_id: str, brief: Brief, state: LoopState, existing: dict[str, Any] | None
    ) -> BriefResult:
        cfg = self.config_for(thread_id)
        snapshot = self.graph.get_state(cfg)
        if snapshot.values.get("stop_reason") and not has_work(snapshot):
            # Finished in the checkpointer but the run log missed it (a crash between the
            # two): record it, call no model.
            record = self._settled(thread_id, brief, loop_state(snapshot.values), 0.0)
            return BriefResult(brief.id, thread_id, "skipped", record)
        if snapshot.interrupts:
            if existing and existing["status"] == AWAITING:
                return BriefResult(brief.id, thread_id, "waiting", existing)
            record = self._settled(thread_id, brief, loop_state(snapshot.values), 0.0, waiting=True)
            return BriefResult(brief.id, thread_id, "waiting", record)
        labels = self.models.labels()
        running = self.records.started(thread_id, brief, labels)
        # Resume where it stopped; a thread that never got past its start (the disk
        # filled, or the process died, as it began) starts again from the brief.
        resume = (
            has_work(snapshot)
            and snapshot.next != ("__start__",)
            and bool(snapshot.values.get("round"))
        )
        return self.advance(
            thread_id, brief, None if resume else state, snapshot=snapshot, row=running
        )

    def advance(
        self,
        thread_id: str,
        brief: Brief | None,
        start: Any,
        *,
        snapshot: StateSnapshot | None = None,
        row: dict[str, Any] | None = None,
    ) -> BriefResult:
        """Run a thread until it finishes, pauses or fails; `start` is the initial state,
        None to resume, or a Command to answer an interrupt. The caller holds the
        thread's lock. `snapshot` and `row`: the thread's last checkpoint and run-log row,
        when the caller has just read them (under the lock they stay as read)."""
        # max_concurrency=1: LangGraph opens a thread pool for each invoke; as the graph
        # runs one node at a time, inline, the pool only writes checkpoints, which wait
        # for each other anyway, and one thread is started per brief instead of up to
        # cpus+4. (A graph with parallel branches or subgraphs would need this lifted.)
        # durability="sync": a step's checkpoint is written before the next step (a
        # model call) starts, so a crash never repeats an answered call.
        cfg: RunnableConfig = {**self.config_for(thread_id), "max_concurrency": 1}
        if snapshot is None:
            snapshot = self.graph.get_state(cfg)
        before = snapshot.values.get("calls", [])
        started = time.perf_counter()
        error, stopped = "", ""
        try:
            _, by_step = self.runlog.call_totals(thread_id)
            with (
                journaled_from(sum(seconds for _, _, seconds in by_step)) as journaled,
                journal_to(self._call_sink(thread_id, snapshot.values.get("round", 0), journaled)),
                batch_ends_at(self.ends_at),
            ):
                self.graph.invoke(start, cfg, durability="sync")
        except BatchTimeUp as e:
            stopped = str(e)  # not the thread's failure: it resumes from its checkpoint
        except (BriefloopError, OutOfBudget) as e:
            # out of budget before any draft was judged: nothing to set aside
            error = str(e)
        except Exception as e:  # a bug, or a library failure we did not foresee
            failure = store_failure(e, self.settings.checkpoint_path.parent)
            if failure is not None:
                # The state itself is out of reach (disk full, database down): recording
                # an error would fail too, or mark a sound thread failed. The caller
                # stops or retries; the thread resumes from its last checkpoint.
                raise failure from None
            if self.strict:
                raise
            error = f"unexpected {e.__class__.__name__}: {e}"
        seconds = time.perf_counter() - started
        snapshot = self.graph.get_state(cfg)
        values = loop_state(snapshot.values)
        made = len(values.get("calls", [])) - len(before)
        brief_id = brief.id if brief else (brief_of(values).id if "brief" in values else "")
        if stopped:
            record = self.records.part_way(thread_id, values, seconds, row, stopped)
            self.sync(force=False)
            return BriefResult(brief_id, thread_id, "stopped", record, made, seconds, stopped)
        if error:
            record = self.records.failed(thread_id, values, seconds, row, error)
            self.sync(force=False)
            return BriefResult(brief_id, thread_id, "error", record, made, seconds, error)
        waiting = bool(snapshot.interrupts)
        record = self._settled(thread_id, brief, values, seconds, waiting=waiting, previous=row)
        outcome: Outcome = AWAITING if waiting else record["stop_reason"]
        return BriefResult(brief_id, thread_id, outcome, record, made, seconds)

    def _call_sink(
        self, thread_id: str, round_now: int, journaled: list[float]
    ) -> Callable[[CallRecord], None]:
        """Where the model calls of one invoke of `thread_id` go: its rows in the run log,
        each with the node that made it and the round (a writer step starts the next)."""
        current: dict[str, Any] = {"round": round_now, "writer_step": None}

        def sink(call: CallRecord) -> None:
            meta = get_config().get("metadata") or {}
            node, step = str(meta.get("langgraph_node", "")), meta.get("langgraph_step")
            if node == "writer" and step != current["writer_step"]:
                current["round"] += 1
                current["writer_step"] = step
            journaled[0] += call.seconds  # what the thread's budget counts as spent
            self.runlog.record_call(
                thread_id,
                node=node,
                round=current["round"],
                role=call.role,
                model=call.model,
                host=call.host,
                attempt=call.attempt,
                messages=call.messages,
                answer=call.answer,
                seconds=call.seconds,
                input_tokens=call.input_tokens,
                output_tokens=call.output_tokens,
                problem=call.problem,
            )

        return sink

    def settle(self, thread_id: str) -> BriefResult:
        """Record the thread as its last checkpoint has it (waiting, or ended) without
        running it: for a step that was cut short after the checkpointer took it."""
        snapshot = self.snapshot(thread_id)
        values = loop_state(snapshot.values)
        waiting = bool(snapshot.interrupts)
        record = self._settled(thread_id, None, values, 0.0, waiting=waiting)
        outcome: Outcome = AWAITING if waiting else record["stop_reason"]
        brief_id = brief_of(values).id if "brief" in values else ""
        return BriefResult(brief_id, thread_id, outcome, record)

    def _settled(
        self,
        thread_id: str,
        brief: Brief | None,
        values: LoopState,
        seconds: float,
        waiting: bool = False,
        previous: dict[str, Any] | None = None,
    ) -> dict[str, Any]:
        record = self.records.settled(
            thread_id,
            brief,
            values,
            seconds,
            self.models.labels(),
            waiting=waiting,
            previous=previous,
        )
        self.sync(force=False)
        return record

    # -- the spreadsheet views ---------------------------------------------------------
    def sync(self, force: bool = True) -> list[SyncResult]:
        """Send the outbox to every sink; unforced (after each brief), a sink with a
        sync_interval (Google's) is skipped until that many seconds have passed since
        its last sync, and so is every sink during a batch (run) for log.sync_interval:
        a local file is read and rewritten whole at each sync, and the batch ends with a
        sync anyway. Outside a batch (a review answer, a resumed thread) the local file
        is written at once."""
        results = []
        with self._sync_lock:
            during_batch = self.settings.log.sync_interval if self._runs else 0.0
            for sink in self.sinks:
                interval = max(sink.interval, during_batch)
                last = self._last_sync.get(sink.name)
                if not force and last is not None and time.monotonic() - last < interval:
                    continue
                self._last_sync[sink.name] = time.monotonic()
                results.append(sync_sink(self.runlog, sink))
        return results


def sync_now(
    settings: Settings,
    google_client: Callable[[], gspread.Client] | None = None,
    resend: bool = False,
) -> list[SyncResult]:
    """Push every pending run-log row (every row, with `resend`) to every configured sink."""
    with open_runlog(settings) as log:
        sinks = make_sinks(settings, client_opener(settings.google, google_client))
        if resend:
            for sink in sinks:
                log.forget_synced(sink.name)
        return sync_all(log, sinks)


def list_runs(
    settings: Settings,
    status: str | None = None,
    outcome: str | None = None,
    brief: str | None = None,
) -> list[dict[str, Any]]:
    with open_runlog(settings) as log:
        return log.all(status, outcome, brief)


def reader_fixes(settings: Settings) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Every fix people made to a brief's checklist as read, oldest first, and what they
    count to (`fix_counts`) over the items of each brief's latest run."""
    with open_runlog(settings) as log:
        rows = log.fixes()
        latest: dict[str, dict[str, Any]] = {}
        for record in log.all():
            latest[record["brief_id"]] = record  # oldest first: the last one stays
    items = sum(len(r.get("checklist") or []) for r in latest.values())
    return rows, fix_counts([(r["brief_id"], kept_fix(r)) for r in rows], items)


def batch_runs(
    settings: Settings, which: str, outcome: str | None = None, brief: str | None = None
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """A batch (`last` or its id) and every run it counted, in order."""
    with open_runlog(settings) as log:
        row = log.resolve_batch(which)
        if row is None:
            raise BriefloopError(
                f"no batch {which!r} in the run log" if which != "last" else "no batch has run yet"
            )
        records, _ = log.runs_counted(row, outcome, brief, limit=None)
    return row, records
