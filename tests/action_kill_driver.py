"""One person's action on a thread, cut short after any write to any store, and what the
next nightly run makes of it: for the kill drills of tests/run/test_action_kills.py.

    python tests/action_kill_driver.py PROJECT ACTION PHASE

ACTION: reopen | retry | approve | reject | pull (an approval filled in the Review
worksheet, taken by `review pull`) | one_tap (an approve link of the digest, pressed).
PHASE:
- setup: the batch that leaves the thread for the action (approved, or waiting);
- act: the action. With KILL_AT=n in the environment the process ends (exit 77) right
  after the n-th write lands: a checkpoint write (SqliteSaver.put, put_writes), a
  commit to the run log, or a file renamed into place (every file briefloop writes is
  written beside and renamed: the output, the judged case, the spreadsheet views).
  Without it, it prints how many writes the action took;
- recover: `briefloop repair` (reopen, retry, one_tap) or the next nightly run (approve, reject:
  a thread the checkpointer took an answer for is resumed there) and, if the action
  left no trace (the kill came
  before its first step), the person giving it again. Prints what the stores hold,
  as JSON.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import sqlalchemy as sa  # noqa: E402
from langgraph.checkpoint.sqlite import SqliteSaver  # noqa: E402

from batch.nightly.job import pull_reviews, run_job  # noqa: E402
from batch.output import front_matter_of  # noqa: E402
from batch.review import attempts, one_tap  # noqa: E402
from batch.review import sheet as review_sheet  # noqa: E402
from batch.review import threads as review  # noqa: E402
from batch.review.links import SECRET_NAME  # noqa: E402
from batch.review.pending import finish_pending  # noqa: E402
from batch.run.runner import Runner  # noqa: E402

from conftest import ScriptedModel, critic_answer, make_settings, writer_answer  # noqa: E402

PH = "[FIGURE NEEDED: Q3 revenue]"
BRIEFS = {
    "approved": "Office closed on Friday from 15:00.",
    "plain": "Office closed on Friday from 15:00.",
    "waiting": "Memo on Q3: revenue not known yet; we opened Berlin.",
}
TEXTS = {
    "approved": "The office is closed on Friday from 15:00.",
    "plain": "The office is closed on Friday from 15:00.",
    "waiting": f"Q3 revenue was {PH}. We opened Berlin.",
}

writes = 0
kill_at = int(os.environ.get("KILL_AT", "0"))


def _count() -> None:
    global writes
    writes += 1
    if writes == kill_at:
        os._exit(77)  # as a power cut: no cleanup, no atexit, no flush


def _counted(real):
    def write(*args, **kwargs):
        out = real(*args, **kwargs)
        _count()
        return out

    return write


def count_every_write() -> None:
    SqliteSaver.put = _counted(SqliteSaver.put)
    SqliteSaver.put_writes = _counted(SqliteSaver.put_writes)
    os.replace = _counted(os.replace)
    sa.event.listen(sa.engine.Engine, "commit", lambda conn: _count())


def models(kind: str) -> dict:
    needs = [(PH, "What was Q3 revenue?")] if kind == "waiting" else []
    return {
        "writer": ScriptedModel([writer_answer(TEXTS[kind], needs=needs)] * 5, name="writer"),
        "critic": ScriptedModel([critic_answer(5)] * 5, name="critic"),
    }


def kind_of(action: str) -> str:
    if action == "one_tap":
        return "plain"  # approved by the checks, and waiting for a person's yes
    return "waiting" if action in ("approve", "reject", "pull") else "approved"


def settings_of(project: Path, action: str):
    review_mode = "always" if action == "one_tap" else "when_needed"
    return make_settings(
        project,
        **{"loop.review": review_mode, "log.format": "xlsx", "log.path": "output/runs.xlsx"},
    )


def approve_token(project: Path, runner: Runner, thread_id: str) -> str:
    """The token of the approve link the morning's mail gave (kept in the project, so
    the person presses the same link again)."""
    kept = project / "approve-token.txt"
    if not kept.exists():
        item = review.waiting(runner, thread_id)
        secret = runner.runlog.secret(SECRET_NAME)
        kept.write_text(one_tap.sign(secret, thread_id, item.mark, int(time.time()) + 86400))
    return kept.read_text()


def fill_review_sheet(project: Path) -> None:
    """The person's approval, written in the Review worksheet."""
    from openpyxl import load_workbook

    from batch.review.sheet import COLUMNS

    book = project / "output" / "runs.xlsx"
    wb = load_workbook(book)
    ws = wb["Review"]
    for row in ws.iter_rows(min_row=2):
        if row[COLUMNS.index("placeholder")].value == PH:
            row[COLUMNS.index("answer")].value = "4.2M EUR"
        row[COLUMNS.index("decision")].value = "approve"
        row[COLUMNS.index("by")].value = "drill"
    wb.save(book)


def review_rows(project: Path) -> list[str]:
    from openpyxl import load_workbook

    from batch.review.sheet import COLUMNS

    book = load_workbook(project / "output" / "runs.xlsx")
    if "Review" not in book.sheetnames:
        return []
    rows = list(book["Review"].iter_rows(min_row=2, values_only=True))
    return [str(r[COLUMNS.index("status")]) for r in rows]


def the_thread(runner: Runner) -> str:
    [first] = [r for r in runner.runlog.all() if not r.get("retry_of")]
    return first["thread_id"]


def act(runner: Runner, action: str, thread_id: str) -> None:
    """The action as the CLI takes it: the Review worksheet brought up to date after."""
    take(runner, action, thread_id)
    if action != "pull":
        review_sheet.refresh(runner)


def take(runner: Runner, action: str, thread_id: str) -> None:
    if action == "reopen":
        attempts.reopen(runner, thread_id, "the closing time is wrong", by="drill")
    elif action == "retry":
        attempts.retry(runner, thread_id)
    elif action == "approve":
        review.answer(runner, thread_id, "approve", {PH: "4.2M EUR"}, by="drill")
    elif action == "pull":
        pull_reviews(runner.settings)
    elif action == "one_tap":
        secret = runner.runlog.secret(SECRET_NAME)
        token = approve_token(runner.settings.path("."), runner, thread_id)
        one_tap.approve(runner, secret, thread_id, token, by="drill")
    else:
        review.answer(runner, thread_id, "reject", {}, text="not what we meant", by="drill")


def not_taken(runner: Runner, action: str, thread_id: str) -> bool:
    """The action left no trace (the kill came before its first step): the person, who
    sees that, gives it again."""
    if action in ("approve", "reject", "pull", "one_tap"):
        return bool(runner.snapshot(thread_id).interrupts)
    if action == "retry":
        return not runner.runlog.retries_of(thread_id)
    return (runner.runlog.by_thread(thread_id) or {}).get("stop_reason") == "approved"


def state(project: Path, runner: Runner) -> dict:
    ids = {}
    rows = []
    for r in sorted(runner.runlog.all(), key=lambda r: bool(r.get("retry_of"))):
        ids[r["thread_id"]] = "retry" if r.get("retry_of") else "first"
        snapshot = runner.snapshot(r["thread_id"])
        rows.append(
            {
                "thread": ids[r["thread_id"]],
                "status": r["status"],
                "stop_reason": r["stop_reason"],
                "waits": bool(snapshot.interrupts),
                "decision": (snapshot.values.get("decision") or {}).get("type"),
            }
        )
    files = {}
    for folder in ("output", "judged"):
        for path in sorted((project / folder).rglob("*.md")):
            found = front_matter_of(path)
            front = found[0] if found else {}
            files[str(path.relative_to(project))] = {
                k: front.get(k) for k in ("approved", "stop_reason", "expect") if k in front
            }
    return {
        "runs": rows,
        "files": files,
        "open_actions": len(runner.runlog.open_actions()),
        "review_rows": review_rows(project),
    }


def main(project: Path, action: str, phase: str) -> None:
    settings = settings_of(project, action)
    kind = kind_of(action)
    if phase == "setup":
        (project / "briefs" / "a.md").write_text(f"---\nid: a\n---\n{BRIEFS[kind]}\n")
        run_job(settings, project / "briefs", models=models(kind))
        if action == "pull":
            fill_review_sheet(project)
        return
    if phase == "act":
        with Runner(settings, models=models(kind)) as runner:
            thread_id = the_thread(runner)
            if action == "one_tap":
                approve_token(project, runner, thread_id)  # the mail, before the tap
        count_every_write()
        with Runner(settings, models=models(kind)) as runner:
            act(runner, action, thread_id)
        print(json.dumps({"writes": writes}))
        return
    if action in ("reopen", "retry", "one_tap"):
        # `briefloop repair`, which needs no brief file: a retry's brief may be gone
        with Runner(settings, models=models(kind)) as runner:
            finish_pending(runner)
            review_sheet.refresh(runner)
    else:
        run_job(settings, project / "briefs", models=models(kind))
    with Runner(settings, models=models(kind)) as runner:
        thread_id = the_thread(runner)
        if not_taken(runner, action, thread_id):
            act(runner, action, thread_id)  # the person sees nothing happened: again
        print(json.dumps(state(project, runner), default=str))


if __name__ == "__main__":
    main(Path(sys.argv[1]), sys.argv[2], sys.argv[3])
