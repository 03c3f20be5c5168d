"""The one writer of run-log rows. Each way a run moves is one method: started (or
started as a retry), unreadable (a brief that never got a thread), resumed, stopped part
way, failed, and settled (ended, or waiting for a person). What a row holds after each
is read here, and nothing else in the package writes one."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from batch.inputs.briefs import Brief
from batch.loop.routing import final_reason
from batch.outcomes import AWAITING, status_for
from batch.run.records import record_fields, time_split
from batch.state import LoopState
from batch.store.runlog import RunLog, now

Row = dict[str, Any]


@dataclass(frozen=True)
class RunRecorder:
    """The run-log rows of one Runner: `batch_id` is the batches row of the batch under
    way, recorded with every run it moves (None outside a batch)."""

    runlog: RunLog
    batch_id: int | None = None

    def started(self, thread_id: str, brief: Brief, models: dict[str, str]) -> Row:
        return self.runlog.upsert(
            thread_id,
            brief_id=brief.id,
            title=brief.title,
            source=brief.origin,
            status="running",
            stop_reason=None,
            error=None,
            models=models,
        )

    def retry_started(self, thread_id: str, brief: Brief, retry_of: str) -> Row:
        """Linked before it runs: an attempt that crashes is still known as the retry it
        was."""
        return self.runlog.upsert(
            thread_id,
            brief_id=brief.id,
            title=brief.title,
            source=brief.origin,
            status="running",
            retry_of=retry_of,
        )

    def set_aside(self, thread_id: str, path: str) -> Row:
        """Its text moved out of output/ (another version of its brief is current)."""
        return self.runlog.upsert(thread_id, output_path=path)

    def resumed(self, thread_id: str) -> Row:
        return self.runlog.upsert(thread_id, status="running")

    def unreadable(self, thread_id: str, brief_id: str, origin: str, reason: str) -> Row:
        """A brief that could not be read or started: a failed run with no thread."""
        return self.runlog.upsert(
            thread_id,
            brief_id=brief_id,
            source=origin,
            status="failed",
            stop_reason="error",
            error=reason,
            ended_at=now(),
        )

    def part_way(
        self, thread_id: str, values: LoopState, seconds: float, previous: Row | None, why: str
    ) -> Row:
        """Stopped by the batch (its hours, a signal), not by the thread: the next run
        resumes it."""
        return self.runlog.upsert(
            thread_id,
            status="stopped",
            stop_reason=None,
            error=why,
            ended_at=None,
            **self._accumulated(thread_id, values, seconds, previous),
        )

    def failed(
        self, thread_id: str, values: LoopState, seconds: float, previous: Row | None, error: str
    ) -> Row:
        return self.runlog.upsert(
            thread_id,
            status="failed",
            stop_reason="error",
            error=error,
            ended_at=now(),
            **self._accumulated(thread_id, values, seconds, previous),
        )

    def settled(
        self,
        thread_id: str,
        brief: Brief | None,
        values: LoopState,
        seconds: float,
        models: dict[str, str],
        waiting: bool = False,
        previous: Row | None = None,
    ) -> Row:
        """Ended (its stop reason) or waiting for a person, as the state says."""
        fields = self._accumulated(thread_id, values, seconds, previous)
        if brief is not None:
            fields.update(brief_id=brief.id, title=brief.title, source=brief.origin)
        if waiting:
            fields.update(status=AWAITING, stop_reason=AWAITING, ended_at=None)
        else:
            reason = final_reason(values)
            fields.update(status=status_for(reason), stop_reason=reason, ended_at=now())
        fields.setdefault("models", models)
        return self.runlog.upsert(thread_id, error=values.get("writer_error"), **fields)

    def _accumulated(
        self, thread_id: str, values: LoopState, seconds: float, previous: Row | None = None
    ) -> Row:
        """The run-log fields of `values`, its seconds added to the run's, and the batch
        it ran in (however it ended: a failed run is one of its batch's runs too);
        `previous`: the run's row if the caller has it at hand."""
        fields = record_fields(values) if values else {}
        # Every call made, as journaled: a failed node's and a retried one's included,
        # which the state (written only by nodes that succeeded) leaves out.
        journaled, by_step = self.runlog.call_totals(thread_id)
        # (a thread begun before calls were journaled has more in its state)
        if journaled and journaled["model_calls"] >= fields.get("model_calls", 0):
            fields.update(journaled)
        fields["time_split"] = time_split(
            by_step,
            (values or {}).get("check_seconds", []),
            (values or {}).get("example_seconds", []),
        )
        if previous is None:
            previous = self.runlog.by_thread(thread_id)
        fields["seconds"] = round((previous or {}).get("seconds", 0.0) + seconds, 3)
        if self.batch_id is not None:
            fields["batch_id"] = self.batch_id
        return fields
