"""A thread that ended, tried again or taken back.

- `retry`: a new attempt of a failed or finished thread's brief, as the thread holds it
  (a new thread, its run-log row linked to the old one by `retry_of`). The brief is
  started afresh under today's configuration: a retry after a fix picks the fix up.
- `reopen`: an approved text goes back to waiting for a person, with the reason. Its
  output file is moved aside to `needs-work/`; an automatic approval taken back this
  way is saved as a judged case (the brief, the text, the person's reason) in the
  project's `paths.judged` folder, for `python -m bench judge --data` to measure the
  checks on the project's own reversals.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import yaml

from batch import thread_inputs
from batch.config import Settings
from batch.draft_cleanup import from_a_person
from batch.errors import BriefloopError
from batch.files import atomic_write_text
from batch.inputs.briefs import Brief, load_brief_file
from batch.outcomes import APPROVED_REASONS, AWAITING
from batch.output import (
    NEEDS_WORK,
    in_this_project,
    no_link_between,
    restamp,
    safe_filename,
    written_for,
)
from batch.review.threads import MAX_NOTE_CHARS, PUBLISH, reviewer_name
from batch.run.runner import BriefResult, Runner, has_work

MIN_REASON_CHARS = 3


def _ended(runner: Runner, thread_id: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """The run-log record and last state of a thread that has ended; else why not."""
    record = runner.runlog.by_thread(thread_id)
    snapshot = runner.snapshot(thread_id)
    if record is None and not snapshot.values:
        raise BriefloopError(f"no thread {thread_id!r} (briefloop runs lists them)")
    status = (record or {}).get("status")
    if snapshot.interrupts or status == AWAITING:
        raise BriefloopError(
            f"thread {thread_id} is waiting for a person: answer it "
            f"(briefloop review answer {thread_id})"
        )
    if status == "running" or (status != "failed" and has_work(snapshot)):
        raise BriefloopError(
            f"thread {thread_id} has not ended: resume it (briefloop resume {thread_id})"
        )
    return record or {}, snapshot.values


def brief_of(values: dict[str, Any], record: dict[str, Any]) -> Brief:
    """The brief as the thread holds it (text, limits, rubric and house rules by name)."""
    fields = thread_inputs.brief_of(values)
    return Brief(
        id=fields.id,
        text=fields.text,
        title=fields.title,
        origin=record.get("source") or fields.origin_name,
        kind=fields.kind,
        source_text=fields.source_text,
        source_path=fields.source_path,
        rubric=thread_inputs.rubric_of(values).name if values.get("rubric") else None,
        house_rules=thread_inputs.house_rules_of(values).name
        if values.get("house_rules")
        else None,
        min_words=fields.min_words,
        max_words=fields.max_words,
    )


def retry(runner: Runner, thread_id: str) -> BriefResult:
    """Run a new attempt of a failed or finished thread's brief, linked to it. One live
    thread per brief: a thread a newer run replaced, or one already retried, is not
    tried again (its attempt would write over the newer text); the check and the new
    attempt's row are made under the old thread's lock, so retries sent at once give one
    attempt."""
    with runner.store.thread_lock(thread_id, wait=10.0):
        cut_short = [a for a in runner.runlog.open_actions(thread_id) if a["kind"] == "retry"]
        if cut_short:
            # this retry was asked before and cut short: it is finished, not made twice
            intent, action = cut_short[0]["payload"], cut_short[0]["id"]
        else:
            intent, action = _begin_retry(runner, thread_id)
    result = finish_retry(runner, thread_id, intent, action)
    if result.outcome in ("busy", "skipped"):
        # another caller, finding this retry recorded, is running it or just ran it to
        # its end: one attempt, and this caller is told where it is
        now = "is being" if result.outcome == "busy" else "was already"
        raise BriefloopError(
            f"thread {thread_id} {now} retried as thread {intent['new']}: see that "
            f"one (briefloop review show {intent['new']})"
        )
    return result


def _begin_retry(runner: Runner, thread_id: str) -> tuple[dict[str, Any], int]:
    """Check that the thread may be retried and record the retry (its new thread id):
    the intent and the action's id. The caller holds the thread's lock."""
    kept = [a for a in runner.runlog.open_actions(thread_id) if a["kind"] == PUBLISH]
    if kept:
        # a new attempt would lose an approval that only waits to be written out
        raise BriefloopError(
            f"thread {thread_id} was approved by {kept[0]['payload'].get('by') or 'a person'}; "
            f"only its text could not be written: run `briefloop repair` once output/ can "
            f"be written, instead of a retry"
        )
    record, values = _ended(runner, thread_id)
    if not values.get("brief"):
        why = f" ({record['error']})" if record.get("error") else ""
        raise BriefloopError(
            f"thread {thread_id} failed before its brief was read{why}: there is "
            f"nothing to retry from; fix the brief and run its file or folder again"
        )
    again = runner.runlog.latest_retry(thread_id)
    if again is not None:
        raise BriefloopError(
            f"thread {thread_id} was already retried as thread {again['thread_id']} "
            f"({again.get('status')}): see that one (briefloop review show "
            f"{again['thread_id']})"
        )
    newer = runner.runlog.newer_of_brief(thread_id)
    if newer is not None:
        raise BriefloopError(
            f"thread {thread_id} is superseded by thread {newer['thread_id']} (a newer "
            f"run of brief {thread_inputs.brief_of(values).id!r}): retry that one if it needs it"
        )
    new_id, _ = runner.prepare(brief_of(values, record), rerun=True)
    intent = {"new": new_id}
    # recorded before the new attempt's row: a retry cut short anywhere after this is
    # finished by `briefloop repair` (batch.review.pending), never left an orphan row
    # that can be neither resumed nor retried
    return intent, runner.runlog.action_begun(thread_id, "retry", intent)


def finish_retry(
    runner: Runner, thread_id: str, intent: dict[str, Any], action: int
) -> BriefResult:
    """The steps of a retry of `thread_id` into thread intent["new"], each of which may
    have been done already: its run-log row, then its run (resumed where it stopped)."""
    record, values = runner.runlog.by_thread(thread_id) or {}, runner.snapshot(thread_id).values
    brief = brief_of(values, record)
    new_id = intent["new"]
    if runner.runlog.by_thread(new_id) is None:
        runner.records.retry_started(new_id, brief, retry_of=thread_id)
    state, _ = runner.initial_state(brief)
    result = runner.process(brief, prepared=(new_id, state))
    if result.outcome not in ("busy", "not_started"):
        runner.runlog.action_ended(action)
    return result


@dataclass(frozen=True)
class Reopened:
    result: BriefResult  # the thread, waiting for a person again
    moved_to: Path | None  # where its output file went
    case: Path | None  # the judged case saved, for an automatic approval


def reopen(runner: Runner, thread_id: str, reason: str, by: str | None = None) -> Reopened:
    """Send an approved text back to a person: it waits again (approve, edit, send
    back or reject), its output is moved aside, and the reason is recorded."""
    reason = " ".join(from_a_person(reason or "").split())
    if len(reason) < MIN_REASON_CHARS:
        raise BriefloopError("reopening needs a reason: what is wrong with the text")
    if len(reason) > MAX_NOTE_CHARS:
        raise BriefloopError(
            f"the reason is {len(reason):,} characters; the limit is {MAX_NOTE_CHARS:,}"
        )
    who = reviewer_name(by)
    with runner.store.thread_lock(thread_id, wait=10.0):
        cut_short = [a for a in runner.runlog.open_actions(thread_id) if a["kind"] == "reopen"]
        if cut_short:
            # a reopen asked before and cut short: finished as it was asked
            return finish_reopen(runner, thread_id, cut_short[0]["payload"], cut_short[0]["id"])
        record, values = _ended(runner, thread_id)
        reason_was = record.get("stop_reason") or values.get("stop_reason")
        if reason_was not in APPROVED_REASONS:
            raise BriefloopError(
                f"only an approved text can be reopened; thread "
                f"{thread_id} ended {reason_was or 'without a text'}"
                + (": retry it instead" if reason_was == "error" else "")
            )
        newer = runner.runlog.newer_of_brief(thread_id)
        if newer is not None:
            # its file, if any, is the newer run's text now: never moved aside from here
            raise BriefloopError(
                f"thread {thread_id} is superseded by thread "
                f"{newer['thread_id']} (a newer run of brief "
                f"{thread_inputs.brief_of(values).id!r}): reopen that one"
            )
        intent = {
            "reason": reason,
            "by": who,
            "at": datetime.now(UTC).isoformat(timespec="seconds"),
            "was": reason_was,
            "output": record.get("output_path") or values.get("output_path") or "",
        }
        if reason_was == "approved":
            judged_root(runner.settings)  # refused before anything is written
        output = _output_file(runner, intent)
        if output is not None:
            # where the file will go is checked before anything is written
            no_link_between(output.parent, output.parent / NEEDS_WORK)
        # recorded before the first step: a reopen cut short anywhere after this is
        # finished by `briefloop repair` (batch.review.pending)
        action = runner.runlog.action_begun(thread_id, "reopen", intent)
        return finish_reopen(runner, thread_id, intent, action)


def finish_reopen(runner: Runner, thread_id: str, intent: dict[str, Any], action: int) -> Reopened:
    """The steps of a reopen, each of which may have been done already: the judged case
    (written over), the file moved aside and marked as no longer approved, the
    thread's state, its pause and its run-log row. The caller holds the thread's lock."""
    record = runner.runlog.by_thread(thread_id) or {}
    values = runner.snapshot(thread_id).values
    case = (
        save_judged_case(runner, values, record, intent["reason"], intent["by"], intent["at"])
        if intent["was"] == "approved"
        else None
    )
    moved = _move_aside(_output_file(runner, intent), thread_inputs.brief_of(values).id)
    if moved is not None:
        restamp(
            moved,
            {
                "approved": False,
                "stop_reason": "reopened",
                "reopened_by": intent["by"],
                "reopened_at": intent["at"],
                "reopened_because": intent["reason"],
            },
        )
    decision = values.get("decision") or {}
    if not (decision.get("type") == "reopen" and decision.get("at") == intent["at"]):
        runner.graph.update_state(
            runner.config_for(thread_id),
            {
                # back to the person, whatever the review mode it ran under
                "limits": thread_inputs.limits_of(values).model_copy(update={"review": "always"}),
                "decision": {
                    "type": "reopen",
                    "by": intent["by"],
                    "at": intent["at"],
                    "reason": intent["reason"],
                    "was": intent["was"],
                },
                "stop_reason": None,
                "final": None,
                "output_path": None,
                # the text shown is the approved one (a person's edit included)
                "best": None,
            },
            as_node="critic",
        )
    snapshot = runner.snapshot(thread_id)
    result = (
        runner.settle(thread_id)
        if snapshot.interrupts
        else runner.advance(thread_id, None, None, snapshot=snapshot)
    )
    runner.runlog.action_ended(action)
    return Reopened(result, moved, case)


def _output_file(runner: Runner, intent: dict[str, Any]) -> Path | None:
    """The reopened text's file in this project (batch.output.in_this_project)."""
    if not intent.get("output"):
        return None
    settings = runner.settings
    return in_this_project(settings.path(settings.paths.output), intent["output"])


def _move_aside(path: Path | None, brief_id: str) -> Path | None:
    """The approved text's file moved into needs-work/, if it is there and still this
    brief's; where it is when a step before moved it already."""
    if path is None:
        return None
    target = no_link_between(path.parent, path.parent / NEEDS_WORK) / path.name
    if path.is_file() and written_for(path) == brief_id:
        os.replace(path, target)
        return target
    if target.is_file() and written_for(target) == brief_id:
        return target  # moved before the step after it was cut short
    return None  # gone, or since replaced by another brief's text: left alone


def judged_root(settings: Settings) -> Path:
    """The folder the cases of texts taken back go in; refused when it is a symbolic link
    (a link planted as `judged/` would have every case written where it points)."""
    # settings.path() resolves links away: walk the path as written instead
    written = Path(os.path.expanduser(settings.paths.judged))
    project = settings.path(".")
    root = written if written.is_absolute() else project / written
    # inside the project, no folder down to it may be a link; elsewhere, it itself
    inside = root.relative_to(project).parts if root.is_relative_to(project) else ()
    for step in [project.joinpath(*inside[: n + 1]) for n in range(len(inside))] or [root]:
        if step.is_symlink():
            raise BriefloopError(
                f"{step} is a symbolic link: the cases of texts taken back are written "
                f"only into a folder of the project; replace the link with a folder"
            )
    return root


def save_judged_case(
    runner: Runner, values: dict[str, Any], record: dict[str, Any], reason: str, by: str, at: str
) -> Path:
    """The brief and the text a person took back, as a labelled case of `bench judge`:
    judged/briefs/<brief file>, judged/drafts/<brief id>/<thread>.md (expect: reject)."""
    settings = runner.settings
    root = judged_root(settings)
    briefs = no_link_between(root, root / "briefs")
    fields = thread_inputs.brief_of(values)
    if fields.kind == "source":
        brief_path = briefs / Path(fields.origin_name or f"{fields.id}.py").name
        atomic_write_text(brief_path, fields.source_text)
    else:
        front = {
            k: v
            for k, v in (
                ("id", fields.id),
                ("title", fields.title),
                ("rubric", thread_inputs.rubric_of(values).name if values.get("rubric") else None),
                (
                    "house_rules",
                    thread_inputs.house_rules_of(values).name
                    if values.get("house_rules")
                    else None,
                ),
                ("min_words", fields.min_words),
                ("max_words", fields.max_words),
            )
            if v
        }
        brief_path = briefs / f"{safe_filename(fields.id)}.md"
        # written beside and renamed over: a link planted as the file is replaced, not
        # written through
        atomic_write_text(
            brief_path,
            "---\n"
            + yaml.safe_dump(front, allow_unicode=True, sort_keys=False)
            + "---\n"
            + fields.text.rstrip()
            + "\n",
        )
    # the id the benchmark will read back, whatever the file's name makes of it
    brief_id = load_brief_file(brief_path, settings.loop.max_brief_bytes).id
    drafts = no_link_between(root, root / "drafts" / safe_filename(brief_id))
    meta = {
        "expect": "reject",
        "defect": "reopened",
        "claim": reason,
        "by": by,
        "at": at,
        "thread_id": record.get("thread_id") or "",
        "score": values.get("score"),
        "needs_from_human": values.get("needs_from_human") or [],
        "deliberate_deviations": values.get("deviations") or [],
    }
    path = drafts / f"{safe_filename(record.get('thread_id') or brief_id)}.md"
    atomic_write_text(
        path,
        "---\n"
        + yaml.safe_dump(meta, allow_unicode=True, sort_keys=False)
        + "---\n"
        + values.get("draft", "").rstrip()
        + "\n",
    )
    return path
