"""How fast the review pages answer with a large run log: `python -m bench pages`.

Builds a project whose run log holds `--runs` runs (default 10,000) in batches of 100,
and a few threads with real checkpoints of several rounds (the scripted models of the
tests), then asks each page `--repeats` times through Starlette's test client, in this
process: the runs page, one batch's page, both filtered, a finished thread's story and a
waiting thread's page. The waiting list (`/`, a page that reads no batches) is measured
beside them as the baseline. Results in bench/results/pages.json and pages.md.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
RESULTS = REPO / "bench" / "results"
sys.path.insert(0, str(REPO / "tests"))

from starlette.testclient import TestClient  # noqa: E402

from batch.nightly.job import run_job  # noqa: E402
from batch.review import web  # noqa: E402
from batch.store.backends import open_runlog  # noqa: E402

from conftest import (  # noqa: E402
    ScriptedModel,
    critic_answer,
    make_settings,
    write_brief,
    writer_answer,
)

PH = "[FIGURE NEEDED: Q3 revenue]"
OUTCOMES = ["approved"] * 6 + ["max_rounds", "no_progress", "awaiting_human", "error"]


def build(root: Path, total: int) -> tuple[Any, dict[str, str], int]:
    """The project: real threads first (one batch), then `total` logged runs."""
    shutil.copytree(REPO / "rubrics", root / "rubrics")
    shutil.copytree(REPO / "house_rules", root / "house_rules")
    (root / "briefs").mkdir()
    s = make_settings(
        root, **{"models.critic_mode": "advice", "loop.max_rounds": 3, "log.format": "none"}
    )
    write_brief(root, "dock.md", "Memo: the dock closes at 14:00 on Thursday.", id="dock")
    write_brief(root, "q3.md", "Memo on Q3: revenue not known yet; we opened Berlin.", id="q3")
    writer = ScriptedModel(
        [
            writer_answer("The dock closes at 16:00 on Thursday."),
            writer_answer("The dock closes at 15:00 on Thursday."),
            writer_answer("The dock closes at 14:00 on Thursday."),
            writer_answer(f"Q3 revenue was {PH}. We opened Berlin.", needs=[(PH, "How much?")]),
        ]
    )
    summary = run_job(
        s,
        root / "briefs",
        models={"writer": writer, "critic": ScriptedModel([critic_answer(5)] * 4)},
    )
    threads = {r.brief_id: r.thread_id for r in summary.results}
    with open_runlog(s) as log:
        batch_id = 0
        for n in range(total):
            if n % 100 == 0:
                if batch_id:
                    log.batch_finished(batch_id, "ok", {"approved": 60, "max_rounds": 10})
                batch_id = log.batch_started(f"briefs-{n // 100}")
            reason = OUTCOMES[n % len(OUTCOMES)]
            log.upsert(
                f"bulk-{n:06d}",
                brief_id=f"brief-{n:06d}",
                title=f"Brief {n}",
                status="awaiting_human"
                if reason == "awaiting_human"
                else "failed"
                if reason == "error"
                else "finished",
                stop_reason=reason,
                rounds=3,
                score_history=[60.0, 80.0, 100.0],
                model_calls=5,
                input_tokens=4000,
                output_tokens=600,
                model_seconds=40.0,
                batch_id=batch_id,
                needs_from_human=[PH] if reason == "awaiting_human" else [],
            )
        log.batch_finished(batch_id, "ok", {"approved": 60, "max_rounds": 10})
    return s, threads, batch_id


def timed(client: TestClient, path: str, repeats: int) -> dict[str, float]:
    seconds = []
    for _ in range(repeats):
        started = time.perf_counter()
        response = client.get(path)
        seconds.append(time.perf_counter() - started)
        assert response.status_code == 200, (path, response.status_code)
    seconds.sort()
    return {
        "median_ms": round(1000 * statistics.median(seconds), 1),
        "p95_ms": round(1000 * seconds[max(0, int(0.95 * len(seconds)) - 1)], 1),
    }


def run(total: int, repeats: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        s, threads, last = build(root, total)
        pages = {
            "/ (waiting list, baseline)": "/",
            "/runs": "/runs",
            "/runs?outcome=max_rounds": "/runs?outcome=max_rounds",
            "/runs?brief=000123": "/runs?brief=000123",
            f"/runs/{last} (one batch)": f"/runs/{last}",
            f"/runs/{last}?page=2": f"/runs/{last}?page=2",
            "thread story (3 rounds, finished)": f"/thread/{threads['dock']}",
            "thread page (waiting, with its story)": f"/thread/{threads['q3']}",
        }
        with TestClient(web.create_app(s, strict=True)) as client:
            rows = {name: timed(client, path, repeats) for name, path in pages.items()}
    base = rows["/ (waiting list, baseline)"]["median_ms"]
    for row in rows.values():
        row["vs_baseline"] = round(row["median_ms"] / base, 2) if base else None
    return {"runs": total, "repeats": repeats, "pages": rows}


def table(result: dict[str, Any]) -> str:
    lines = [
        f"Pages with {result['runs']:,} runs in the run log, {result['repeats']} "
        f"requests each (Starlette test client, one process):",
        "",
        "| page | median ms | p95 ms | × the waiting list |",
        "|---|---|---|---|",
    ]
    for name, row in result["pages"].items():
        lines.append(f"| {name} | {row['median_ms']} | {row['p95_ms']} | {row['vs_baseline']} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m bench pages",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--runs", type=int, default=10_000)
    parser.add_argument("--repeats", type=int, default=20)
    args = parser.parse_args(argv)
    result = run(args.runs, args.repeats)
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "pages.json").write_text(json.dumps(result, indent=2) + "\n")
    md = table(result)
    (RESULTS / "pages.md").write_text(md)
    print(md)
