"""Every way a brief can end up, as typed values, in one place.

Three different things, kept apart:

    StopReason   why a thread's loop ended: batch.loop.routing names approved,
                 max_rounds, no_progress and budget (decide, machine_ending); the writer node
                 error; batch.loop.decisions approved_by_human and rejected_by_human;
                 and the runner's recorder (batch.run.recorder) error for a thread that
                 failed outside a node.
                 routing.final_reason reads it for the finish node and the run log
    RunStatus    where a thread's run-log row stands: running, awaiting_human,
                 finished, failed, or stopped (part way, when the batch's hours ran
                 out: the next run resumes it)
    Outcome      what one batch did with one brief: a stop reason, or that it paused
                 for a person, was already done, is still waiting, is busy in another
                 process, or was not started because the batch was stopped

The run log's `stop_reason` column holds a StopReason, or "awaiting_human" while a
thread waits for a person (AWAITING), so a sheet can be filtered on one column.
"""

from __future__ import annotations

from typing import Final, Literal, get_args

StopReason = Literal[
    "approved",
    "max_rounds",
    "no_progress",
    "budget",
    "held",
    "error",
    "approved_by_human",
    "rejected_by_human",
]
RunStatus = Literal["running", "awaiting_human", "finished", "failed", "stopped"]
# queued / in_queue: handed to a cluster's workers now / already (batch.cluster);
# stopped: started, and stopped part way when the batch's hours ran out
Outcome = Literal[
    StopReason,
    "awaiting_human",
    "waiting",
    "skipped",
    "busy",
    "not_started",
    "stopped",
    "queued",
    "in_queue",
]

STOP_REASONS: Final = frozenset(get_args(StopReason))
RUN_STATUSES: Final = get_args(RunStatus)
AWAITING: Final = "awaiting_human"  # the run log's status and stop_reason while it waits
# A thread that ended with one of these finished its work; `error` failed and resumes.
TERMINAL_REASONS: Final[frozenset[str]] = STOP_REASONS - {"error"}
APPROVED_REASONS: Final[frozenset[str]] = frozenset({"approved", "approved_by_human"})
# The endings of a text the machine could not finish (routing.machine_ending).
# held: nothing left to fix, but the checks cannot vouch for the text (a brief they
# could not read into a checklist), and no person was to be asked (review = "never")
UNFINISHED: Final[frozenset[str]] = frozenset({"max_rounds", "no_progress", "budget", "held"})

# For people: how `briefloop run` lists outcomes, in this order, and their icons.
OUTCOME_ORDER: Final[tuple[Outcome, ...]] = (
    "approved",
    "approved_by_human",
    "awaiting_human",
    "waiting",
    "max_rounds",
    "no_progress",
    "budget",
    "held",
    "rejected_by_human",
    "queued",
    "in_queue",
    "skipped",
    "busy",
    "stopped",
    "not_started",
    "error",
)
OUTCOME_LABELS: Final[dict[str, str]] = {
    "waiting": "still awaiting human",
    "skipped": "already done",
    "busy": "busy in another process",
    "not_started": "not started (stopped)",
    "stopped": "stopped part way (the next run resumes it)",
    "budget": "budget (model time spent)",
    "held": "held (the checks cannot vouch for it)",
    "queued": "queued for the workers",
    "in_queue": "already queued or running",
}
OUTCOME_ICONS: Final[dict[str, str]] = {
    "busy": "⧗",
    "approved": "✓",
    "approved_by_human": "✓",
    "awaiting_human": "⏸",
    "waiting": "⏸",
    "skipped": "·",
    "error": "✗",
    "max_rounds": "…",
    "no_progress": "…",
    "rejected_by_human": "✗",
    "queued": "→",
    "in_queue": "⧗",
    "budget": "…",
    "held": "…",
    "stopped": "‖",
}


# What a runs view filters by: how runs ended, and what else a batch counts them as.
VIEW_OUTCOMES: Final[tuple[str, ...]] = tuple(
    dict.fromkeys((*OUTCOME_ORDER, *sorted(STOP_REASONS), AWAITING, "failed"))
)

# How an outcome reads at a glance, for colours: done well, waits for a person, needs a
# person's look after the machine gave up, failed, or nothing happened.
OUTCOME_TONES: Final[dict[str, str]] = {
    "approved": "good",
    "approved_by_human": "good",
    "finished": "good",
    "ok": "good",
    "awaiting_human": "wait",
    "waiting": "wait",
    "queued": "wait",
    "in_queue": "wait",
    "running": "wait",
    "busy": "wait",
    "max_rounds": "unfinished",
    "no_progress": "unfinished",
    "stopped": "unfinished",
    "budget": "unfinished",
    "held": "unfinished",
    "error": "bad",
    "failed": "bad",
    "unrecorded": "bad",
    "rejected_by_human": "muted",
    "skipped": "muted",
    "not_started": "muted",
}


def tone(outcome: str | None) -> str:
    return OUTCOME_TONES.get(outcome or "", "muted")


def is_approved(reason: str | None) -> bool:
    return reason in APPROVED_REASONS


def status_for(reason: StopReason) -> RunStatus:
    return "finished" if reason in TERMINAL_REASONS else "failed"


# Why the machine could not finish a text, in the words a message or a list uses.
UNFINISHED_WORDS: Final[dict[str, str]] = {
    "max_rounds": "max rounds",
    "no_progress": "no progress",
    "budget": "its model time ran out",
    "held": "the checks cannot vouch for it",
}


def unfinished_words(reason: str) -> str:
    return UNFINISHED_WORDS.get(reason, reason.replace("_", " "))


def label(outcome: str) -> str:
    return OUTCOME_LABELS.get(outcome, outcome.replace("_", " "))
