"""One thread's whole life in this process, for the checkpoint-write drills: a batch
whose brief needs two rounds and then a person, and the person's approval.

    python tests/kill_driver.py PROJECT

With KILL_AT=n in the environment the process ends (exit 77) right after the n-th
checkpoint write lands: SqliteSaver.put and put_writes, counted together. Without it,
it prints how many writes the life took and what it ended with, as JSON.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from langgraph.checkpoint.sqlite import SqliteSaver  # noqa: E402

from batch.nightly.job import run_job  # noqa: E402
from batch.review import threads as review  # noqa: E402
from batch.run.runner import Runner  # noqa: E402

from conftest import ScriptedModel, critic_answer, make_settings, writer_answer  # noqa: E402

PH = "[FIGURE NEEDED: Q3 revenue]"
FIRST = "The team closed 42 new accounts."
FIX = "Say that we opened the Berlin office."
SECOND = f"The team closed 42 new accounts. We opened the Berlin office. Revenue: {PH}."
BRIEF = (
    "Memo to the sales team.\n\n- The team closed 42 new accounts.\n"
    "- We opened the Berlin office.\n- Q3 revenue: not known yet.\n"
)

writes = 0
kill_at = int(os.environ.get("KILL_AT", "0"))


def _counted(real):
    def write(self, *args, **kwargs):
        global writes
        out = real(self, *args, **kwargs)
        writes += 1
        if writes == kill_at:
            os._exit(77)  # as a power cut: no cleanup, no atexit, no flush
        return out

    return write


SqliteSaver.put = _counted(SqliteSaver.put)
SqliteSaver.put_writes = _counted(SqliteSaver.put_writes)


def _writer(messages):
    text = "\n".join(m["content"] for m in messages)
    draft = SECOND if FIX in text else FIRST
    return writer_answer(draft, needs=[(PH, "What was Q3 revenue?")] if draft == SECOND else [])


def _critic(messages):
    text = "\n".join(m["content"] for m in messages)
    return (
        critic_answer(2, must_fix=[FIX])
        if "Berlin" not in text.split("DRAFT")[-1]
        else critic_answer(5)
    )


def models() -> dict:
    return {
        "writer": ScriptedModel([_writer] * 20, name="writer"),
        "critic": ScriptedModel([_critic] * 20, name="critic"),
    }


def life(project: Path) -> dict:
    settings = make_settings(project, **{"loop.review": "when_needed", "loop.max_rounds": 3})
    run_job(settings, project / "briefs", models=models())
    with Runner(settings, models=models()) as runner:
        for rec in runner.runlog.all():
            if rec["status"] == "awaiting_human":
                review.answer(runner, rec["thread_id"], "approve", {PH: "4.2M EUR"}, by="drill")
    with Runner(settings, models=models()) as runner:
        rows = [
            {
                k: rec[k]
                for k in (
                    "brief_id",
                    "run_id",
                    "status",
                    "stop_reason",
                    "rounds",
                    "score_history",
                    "output_path",
                )
            }
            for rec in runner.runlog.all()
        ]
    outputs = sorted(
        str(p.relative_to(project / "output")) for p in (project / "output").rglob("*.md")
    )
    return {
        "writes": writes,
        "runs": rows,
        "outputs": outputs,
        "text": (project / "output" / "ph.md").read_text(encoding="utf-8")
        if (project / "output" / "ph.md").exists()
        else None,
    }


if __name__ == "__main__":
    print(json.dumps(life(Path(sys.argv[1])), default=str))
