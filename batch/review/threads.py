"""Human review: list the threads waiting for a person, show one, answer it, resume one.

An answer becomes an Agent Inbox response (`edit` with the placeholder values to
approve, `response` with notes to revise, `ignore` with a reason to reject) sent with
`Command(resume=...)`, so other LangGraph tooling can drive these threads the same way.
Every answer is given under the thread's file lock and only while the thread is still
waiting: answering twice, or racing another process, never gives two outputs.
"""

from __future__ import annotations

import getpass
import os
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from functools import cached_property
from pathlib import Path
from typing import Any

from langgraph.types import StateSnapshot

from batch import placeholders
from batch.check_types import ChecklistFix, Requirement
from batch.decision import Action, Approve, Decision, Fix, Reject, Revise, as_dict
from batch.draft_cleanup import from_a_person
from batch.errors import BriefloopError
from batch.judging.checks.facts import check_requirements
from batch.loop.checking import checklist_of
from batch.loop.decisions import refusal
from batch.loop.fixing import fix_of
from batch.outcomes import AWAITING, unfinished_words
from batch.run.runner import BriefResult, Runner, has_work
from batch.state import LoopState, loop_state
from batch.thread_inputs import brief_of


@dataclass
class Waiting:
    thread_id: str
    brief_id: str
    title: str
    score: float | None
    needs: list[dict[str, str]]
    waiting_since: str
    draft: str = ""
    deviations: list[dict[str, str]] = field(default_factory=list)
    would_improve: list[str] = field(default_factory=list)
    score_history: list[float] = field(default_factory=list)
    answers: dict[str, str] = field(default_factory=dict)
    problem: str = ""  # why the last answer was not taken, if it was not
    # the run of a newer version of the brief (or a rerun) that replaces this thread
    superseded_by: dict[str, Any] | None = None
    # a run the machine could not approve: why it stopped, what the checks still find
    stopped: str | None = None
    # sent back for more rounds and stopped before they all ran: how many, and why
    revision_note: str = ""
    # taken back after its approval: by whom, when and why, for the page's top
    reopened: str = ""
    source: str = ""  # where its brief came from (a file, a sheet row)
    mark: str = ""  # state_mark of the thread as listed: an answer must see the same
    must_fix: list[str] = field(default_factory=list)
    # what the checks cannot vouch for: the text waits for a person's look
    holds: list[str] = field(default_factory=list)
    # the sentences among them that add what the brief does not say, with the words
    additions: list[dict[str, Any]] = field(default_factory=list)
    # the brief's orders no check can hold the text to: for the person to read it for
    unchecked_orders: list[str] = field(default_factory=list)
    # the thread's state at the pause, which an answer is checked against
    state: LoopState = field(default_factory=lambda: LoopState(), repr=False)

    @cached_property
    def checklist(self) -> list[tuple[str, str, str, bool | None]]:
        """What the brief asks, as code checks it: (id, kind, text, covered by the draft
        shown). Worked out when a page or a list reads it: an answer does not."""
        return checklist_status(self.state, self.draft) if self.state.get("brief") else []

    def as_dict(self) -> dict[str, Any]:
        newer = self.superseded_by
        return {
            "thread_id": self.thread_id,
            "brief_id": self.brief_id,
            "title": self.title,
            "score": self.score,
            "open_placeholders": len(self.needs),
            "needs_from_human": self.needs,
            "waiting_since": self.waiting_since,
            "problem": self.problem or None,
            "stopped": self.stopped,
            "waits_for": self.waits_for(),
            "open_must_fix": self.must_fix,
            "holds": self.holds,
            "additions": self.additions,
            "superseded_by": newer["thread_id"] if newer else None,
        }

    def plain_approval(self) -> bool:
        """An approval that needs nothing typed and no look the checks ask for: no
        placeholder, finished by the machine, nothing it cannot vouch for, no newer
        thread, no refused answer. Only these may be approved several at once."""
        return not (self.needs or self.stopped or self.holds or self.superseded_by or self.problem)

    def nothing_stands(self) -> bool:
        """Nothing holds the text back: a plain approval with no must-fix (a fix of the
        checklist may have left one in a text at the bar)."""
        return self.plain_approval() and not self.must_fix

    def other_holds(self) -> list[str]:
        """The holds that are not sentences adding to the brief (those are shown marked)."""
        marked = {a.get("message") for a in self.additions}
        return [h for h in self.holds if h not in marked]

    def waits_for(self) -> str:
        """What it waits for, in a few words."""
        if self.superseded_by:
            return f"reject: superseded by {self.superseded_by['thread_id']}"
        if self.stopped:
            return f"needs work ({unfinished_words(self.stopped)})"
        if self.holds:
            look = "placeholders and your look" if self.needs else "your look"
            n = len(self.additions)
            return (
                f"{look} ({n} sentence{'s' if n != 1 else ''} add{'' if n != 1 else 's'})"
                if n
                else look
            )
        return "placeholders" if self.needs else "your review"

    def superseded_note(self) -> str:
        """One line on what replaced this thread, or "" if nothing did."""
        newer = self.superseded_by
        if not newer:
            return ""
        state = newer.get("stop_reason") or newer.get("status") or "running"
        # the file's name, not where the server keeps it
        where = f", output {Path(newer['output_path']).name}" if newer.get("output_path") else ""
        return (
            f"superseded by thread {newer['thread_id']} (a newer version of brief "
            f"{self.brief_id!r}, {state}{where})"
        )


def reviewer_name(explicit: str | None = None) -> str:
    if explicit:
        return explicit
    for var in ("BRIEFLOOP_REVIEWER", "USER", "LOGNAME"):
        if os.environ.get(var):
            return os.environ[var]
    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return "unknown"


def waiting(runner: Runner, thread_id: str) -> Waiting | None:
    """The thread's review state, or None if it is not waiting for a person."""
    snapshot = runner.snapshot(thread_id)
    if not snapshot.interrupts:
        return None
    values = snapshot.values
    args = snapshot.interrupts[0].value["action_request"]["args"]
    record = runner.runlog.by_thread(thread_id) or {}
    brief = brief_of(values)
    return Waiting(
        thread_id=thread_id,
        brief_id=brief.id,
        title=brief.title,
        score=args.get("score", values.get("score")),  # of the draft shown
        needs=list(args["needs_from_human"]),
        waiting_since=snapshot.created_at or record.get("updated_at", ""),
        draft=args["draft"],
        deviations=list(args["deliberate_deviations"]),
        would_improve=list(args["would_improve"]),
        score_history=list(args["score_history"]),
        answers=dict(values.get("human_answers") or {}),
        problem=(values.get("decision") or {}).get("problem", ""),
        superseded_by=runner.runlog.newer_of_brief(thread_id),
        stopped=args.get("stopped"),
        revision_note=revision_note(values, args.get("stopped")),
        reopened=reopen_note(values),
        source=str(record.get("source") or ""),
        mark=mark_of(snapshot),
        must_fix=list(args.get("must_fix") or []),
        holds=list(args.get("holds") or []),
        additions=list(args.get("additions") or []),
        unchecked_orders=list(args.get("unchecked_orders") or []),
        state=loop_state(values),
    )


# why a send-back stopped before its rounds, as a reviewer reads it
_STOPPED_EARLY = {
    "no_progress": "a whole rewrite did not beat the best draft, so another would not either",
    "budget": "its model time ran out",
    "held": "the checks cannot vouch for the text",
}


def reopen_note(values: dict[str, Any]) -> str:
    """ "Reopened by ana at …: the price is wrong" for a thread waiting after a reopen."""
    decision = values.get("decision") or {}
    if decision.get("type") == "fix":
        decision = decision.get("reopen") or {}  # a fix of the checklist leaves it open
    if decision.get("type") != "reopen":
        return ""
    by = f" by {decision['by']}" if decision.get("by") else ""
    at = f" at {decision['at']}" if decision.get("at") else ""
    return f"Reopened{by}{at}: {decision.get('reason') or 'no reason given'}"


def revision_note(values: dict[str, Any], stopped: str | None) -> str:
    """ "You asked for 3 more rounds; it ran 1 and stopped: …" when a send-back stopped
    before the rounds it gave, else ""."""
    decision = values.get("decision") or {}
    given, start = decision.get("rounds_given"), decision.get("from_round")
    if not stopped or not isinstance(given, int) or not isinstance(start, int):
        return ""
    ran = values.get("round", 0) - start
    if ran >= given:
        return ""
    why = _STOPPED_EARLY.get(stopped, stopped.replace("_", " "))
    return (
        f"Sent back for {given} more round{'s' if given != 1 else ''}, it ran {ran} and "
        f"stopped: {why}."
    )


def marked_checklist(
    checklist: list[Requirement], missing: set[str], drafted: bool
) -> list[tuple[str, str, str, bool | None]]:
    """Each item of a checklist with its mark on a page: True (said), False (one of the
    `missing` ids), or None where nothing was checked: the request itself and style
    notes (never items the code checks), or every item of a thread with no draft."""
    return [
        (
            r["id"],
            r["kind"],
            r["text"],
            None if not drafted or r.get("kind") in ("task", "style") else r["id"] not in missing,
        )
        for r in checklist
    ]


def checklist_status(state: LoopState, draft: str) -> list[tuple[str, str, str, bool | None]]:
    """The thread's checklist marked against `draft`."""
    checklist = checklist_of(state)
    failing = {f["code"].split(":", 1)[1] for f in check_requirements(draft, checklist)}
    return marked_checklist(checklist, failing, bool(draft.strip()))


def list_waiting(runner: Runner) -> list[Waiting]:
    out = []
    for record in runner.runlog.all(status=AWAITING):
        item = waiting(runner, record["thread_id"])
        if item is not None:
            out.append(item)
    return out


def ended(runner: Runner, thread_id: str) -> dict[str, Any]:
    """The run-log record of a thread that is not waiting for a person: why it ended
    where it did (its `judgement` survives `gc`, which drops the checkpoints)."""
    record = runner.runlog.by_thread(thread_id)
    if record is None:
        raise BriefloopError(f"no thread {thread_id!r} (briefloop runs lists them)")
    if record.get("status") == "running":
        raise BriefloopError(f"thread {thread_id} is still running")
    return record


def state_mark(runner: Runner, thread_id: str) -> str:
    """Which state of the thread this is: its last checkpoint's id ("" before any)."""
    return mark_of(runner.snapshot(thread_id))


def mark_of(snapshot: StateSnapshot) -> str:
    """`state_mark` of a snapshot already read."""
    config = snapshot.config or {}
    return str((config.get("configurable") or {}).get("checkpoint_id") or "")


def require_unmoved(runner: Runner, thread_id: str, seen: str | None) -> None:
    """Refuse an answer given to a page opened before the thread moved (`seen` is the
    `state_mark` the page showed; None: an answer not held to one)."""
    if seen is not None and seen != state_mark(runner, thread_id):
        raise BriefloopError(
            f"thread {thread_id} has changed since this page was opened (answered, "
            f"reopened or run on meanwhile): reload it and answer the text it shows now"
        )


def require_waiting(runner: Runner, thread_id: str) -> Waiting:
    item = waiting(runner, thread_id)
    if item is not None:
        return item
    record = runner.runlog.by_thread(thread_id)
    if record is None and not runner.snapshot(thread_id).values:
        raise BriefloopError(
            f"no thread {thread_id!r} (briefloop review list shows the waiting ones)"
        )
    status = (record or {}).get("stop_reason") or (record or {}).get("status") or "unknown"
    raise BriefloopError(f"thread {thread_id} is not waiting for a person (it is {status})")


def resolve_answers(needs: list[dict[str, str]], given: dict[str, str]) -> dict[str, str]:
    """Map the keys a person typed to placeholders: the whole placeholder, the part after
    'NEEDED:', or its number in the list (1, 2, ...)."""
    by_key: dict[str, str] = {}
    for number, need in enumerate(needs, start=1):
        placeholder = need["placeholder"]
        by_key[placeholders.normalize(placeholder)] = placeholder
        by_key[placeholders.normalize(placeholders.detail(placeholder))] = placeholder
        by_key[str(number)] = placeholder
    out: dict[str, str] = {}
    for key, value in given.items():
        found = by_key.get(placeholders.normalize(str(key)))
        if found is None:
            known = ", ".join(n["placeholder"] for n in needs) or "none"
            raise BriefloopError(f"{key!r} is not a placeholder of this thread (open: {known})")
        if str(value).strip():
            out[found] = str(value).strip()
    return out


# What a person's answer may hold, from the CLI or a link holder's form: every check
# and the story's diff run over an edited text, so its size is what their cost follows
MAX_EDITED_CHARS = 100_000
MAX_NOTE_CHARS = 4_000
MAX_NAME_CHARS = 200


def _within_limits(
    answers: dict[str, str],
    text: str | None,
    by: str | None,
    edited: str | None,
    override: str | None,
) -> None:
    limits = [
        ("the edited text", edited, MAX_EDITED_CHARS),
        ("the reason or notes", text, MAX_NOTE_CHARS),
        ("the override reason", override, MAX_NOTE_CHARS),
        ("the name", by, MAX_NAME_CHARS),
    ]
    limits += [
        (f"the value of {key[:60]!r}", value, MAX_NOTE_CHARS) for key, value in answers.items()
    ]
    for what, value, limit in limits:
        if value is not None and len(value) > limit:
            raise BriefloopError(f"{what} is {len(value):,} characters; the limit is {limit:,}")


def answer(
    runner: Runner,
    thread_id: str,
    decision: Action,
    answers: dict[str, str],
    text: str | None = None,
    by: str | None = None,
    wait: float = 10.0,
    edited: str | None = None,
    override: str | None = None,
    rounds: int | str | None = None,
    seen: str | None = None,
    check_only: bool = False,
) -> BriefResult | None:
    """Answer a waiting thread and run it on until it finishes or pauses again.
    `check_only`: every check an answer passes, and nothing done (None): a page that
    runs the answer in the background tells at once what would refuse it.

    `seen` is the `state_mark` of the thread as the person saw it (a page's form carries
    it): the answer is refused when the thread has moved since, so a page or a link
    opened before a reopen or another answer never decides a text nobody looked at.

    `edited` (with approve) is the person's own version of the text; the code checks
    run on it, and approving over what they find, or over what they found in a text
    the machine could not approve, needs an `override` reason. `rounds` (with revise)
    is how many more rounds the writer gets (default: loop.max_rounds)."""
    # argv and files can carry lone surrogates (undecodable bytes), a paste can carry
    # escape sequences: neither goes into the text
    answers, text, by = from_a_person(answers), from_a_person(text), from_a_person(by)
    edited, override = from_a_person(edited), from_a_person(override)
    _within_limits(answers, text, by, edited, override)
    if edited is not None and decision != "approve":
        raise BriefloopError("an edited text goes with approve")
    if rounds is not None and decision != "revise":
        raise BriefloopError("more rounds go with revise (send it back)")
    with runner.store.thread_lock(thread_id, wait=wait):
        # Checked under the lock: a second answer finds the thread no longer waiting.
        item = require_waiting(runner, thread_id)
        require_unmoved(runner, thread_id, seen)
        if item.superseded_by and decision != "reject":
            # Its text answers an older brief and would replace the current output.
            raise BriefloopError(
                f"thread {thread_id} is {item.superseded_note()}: "
                f"{decision} is refused so the current text stays; answer "
                f"that thread, or close this one with --reject"
            )
        # The placeholders of the text to approve, as the review node counts them: those in
        # the draft shown (listed or not), or in the person's own version.
        needs = placeholders.needs_of(item.draft if edited is None else edited, item.needs)
        given = {k: v for k, v in answers.items() if str(v).strip()}
        known = needs + [
            n
            for n in item.needs
            if placeholders.normalize(n["placeholder"])
            not in {placeholders.normalize(m["placeholder"]) for m in needs}
        ]
        resolved = {**item.answers, **resolve_answers(known, given)}
        who = reviewer_name(by)
        taken: Decision
        if decision == "approve":
            taken = Approve(resolved, edited, override or None, who)
        elif decision == "revise":
            taken = Revise(text or "", resolved, rounds if rounds not in (None, "") else None, who)
        else:
            taken = Reject(text or "", who)
        problem = refusal(item.state, taken)
        if problem:
            raise BriefloopError(problem)
        if check_only:
            return None
        at = datetime.now(UTC).isoformat(timespec="seconds")
        if isinstance(taken, Revise) and taken.rounds is not None:
            taken = replace(taken, rounds=int(str(taken.rounds).strip()))  # refusal checked it
        taken = replace(taken, at=at)
        # The run log is not touched before the checkpointer takes the answer: a crash in
        # between must leave the thread listed as waiting, which it still is.
        result = runner.run_on(thread_id, as_dict(taken))
        if isinstance(taken, Approve) and result.outcome == "error":
            result = _kept_unwritten(runner, thread_id, taken, result)
    return result


# An approval taken whose text could not be written to output/ (a full disk, a folder
# that cannot be written): kept as an action `briefloop repair` finishes
# (batch.review.pending), never lost to a retry.
PUBLISH = "write approved text"


def _kept_unwritten(
    runner: Runner, thread_id: str, taken: Approve, result: BriefResult
) -> BriefResult:
    """The result of an approval whose last step failed: when the checkpointer holds the
    approval and its text is still to be written, that is recorded and said."""
    snapshot = runner.snapshot(thread_id)
    decision = snapshot.values.get("decision") or {}
    if not (has_work(snapshot) and decision.get("type") == "approve"):
        return result
    if not [a for a in runner.runlog.open_actions(thread_id) if a["kind"] == PUBLISH]:
        runner.runlog.action_begun(thread_id, PUBLISH, {"by": taken.by, "at": taken.at})
    result.error = (
        f"approved by {taken.by}, but its text could not be written ({result.error}); the "
        f"approval is kept: `briefloop repair` writes it once that is fixed (the next "
        f"nightly run does too)"
    )
    return result


def run_to_end(runner: Runner, thread_id: str, wait: float = 10.0) -> BriefResult:
    """A thread whose answer the checkpointer took, run on to its end under its lock (or
    recorded as its checkpoint has it, when nothing is left to run)."""
    with runner.store.thread_lock(thread_id, wait=wait):
        snapshot = runner.snapshot(thread_id)
        if not has_work(snapshot):
            return runner.settle(thread_id)
        return runner.advance(thread_id, None, None, snapshot=snapshot)


def finish_publish(runner: Runner, thread_id: str, action: int) -> str:
    """Write out an approval kept by `_kept_unwritten` (or found written meanwhile, by
    the nightly run): its outcome; one that still cannot write leaves the action for
    the next try."""
    result = run_to_end(runner, thread_id)
    if result.outcome == "error":
        return f"still not written: {result.error}"
    runner.runlog.action_ended(action)
    return result.outcome


@dataclass
class FixDone:
    """What a fix of the checklist did: the fix kept, the thread as it waits now (None
    in a cluster, where a worker judges it again), and the approval it led to, if any."""

    fix: ChecklistFix
    item: Waiting | None
    approved: BriefResult | None = None


def fix_item(
    runner: Runner,
    thread_id: str,
    item: str,
    action: str,
    kind: str = "",
    value: str = "",
    by: str | None = None,
    seen: str | None = None,
    approve: bool = False,
    wait: float = 10.0,
) -> FixDone:
    """Fix one item of a waiting thread's checklist as read ("drop": it is not for the
    readers; "kind": it is `kind`; "value": its words are `value`), judge the text shown
    again at once, and keep the fix for the brief's later runs. With `approve`, a text
    that nothing else holds back (no must-fix, no hold, nothing to fill in) is approved
    in the same step; otherwise it waits on, with what still stands."""
    value, by = from_a_person(value) or "", from_a_person(by)
    _within_limits({}, None, by, None, None)
    who = reviewer_name(by)
    with runner.store.thread_lock(thread_id, wait=wait):
        shown = require_waiting(runner, thread_id)
        require_unmoved(runner, thread_id, seen)
        at = datetime.now(UTC).isoformat(timespec="seconds")
        decision = Fix(
            item.strip().upper(), action.strip().lower(), kind.strip().lower(), value, who, at
        )
        problem = refusal(shown.state, decision)
        if problem:
            raise BriefloopError(problem)
        # the fix the review node makes of the same state and decision
        fix = fix_of(shown.state, decision)
        result = runner.run_on(thread_id, as_dict(decision))
        runner.runlog.add_fix(shown.brief_id, thread_id, fix)
        now = waiting(runner, thread_id) if result.outcome != "queued" else None
    done = FixDone(fix, now)
    if approve and now is not None and now.nothing_stands():
        done.approved = answer(runner, thread_id, "approve", {}, by=who, wait=wait)
    return done


def resume(runner: Runner, thread_id: str) -> tuple[str, BriefResult]:
    """Resume any unfinished thread; returns where it picked up and the result."""
    with runner.store.thread_lock(thread_id, wait=10.0):
        snapshot = runner.snapshot(thread_id)
        if not snapshot.values:
            raise BriefloopError(f"no thread {thread_id!r}")
        if snapshot.interrupts:
            raise BriefloopError(
                f"thread {thread_id} is waiting for a person: answer it with "
                f"briefloop review answer {thread_id}"
            )
        if not has_work(snapshot):
            reason = snapshot.values.get("stop_reason", "finished")
            raise BriefloopError(f"thread {thread_id} has finished ({reason})")
        step = snapshot.next or tuple(f"the writes of {t.name}" for t in snapshot.tasks)
        where = f"round {snapshot.values.get('round', 0)}, before {', '.join(step)}"
        runner.records.resumed(thread_id)
        return where, runner.advance(thread_id, None, None)
