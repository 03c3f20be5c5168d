"""The reader on real use: the fixes people made to briefs' checklists as read, each a
labelled example of the reader's error, replayed against today's reader.

    python -m bench fixes --config PATH [--json FILE]

For a project (its config), every fix kept in its run-log database (`briefloop review
fix`, the thread page): the items read wrong by the kind they were read as, the share of
the items of each brief's latest run read right, and, for each fixed item whose brief
the thread still holds (its checkpoints not yet pruned), whether today's reader still
reads the brief's words as it did (the error stands) or no longer gives that item (it
was fixed in the reader since). Nothing here is tuned on: the fixes are people's.

Results: printed, and written with --json.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from batch import config as config_mod
from batch.judging.checklist import build_checklist
from batch.judging.checklist.fixes import shown_kind, words_key
from batch.run.runner import Runner, reader_fixes
from batch.thread_inputs import brief_of


def replayed(settings: config_mod.Settings, rows: list[dict[str, Any]]) -> dict[str, int]:
    """Each fixed item read again from its thread's brief by today's reader: "stands"
    (read as it was), "changed" (read as another kind, or not at all), "gone" (the
    thread's brief is no longer kept)."""
    counts = {"stands": 0, "changed": 0, "gone": 0}
    with Runner(settings) as runner:
        for row in rows:
            values = runner.snapshot(row["thread_id"]).values
            if not values.get("brief"):
                counts["gone"] += 1
                continue
            today = {words_key(r["text"]): shown_kind(r) for r in build_checklist(brief_of(values))}
            counts["stands" if today.get(words_key(row["read"])) == row["was"] else "changed"] += 1
    return counts


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench fixes", description=__doc__)
    parser.add_argument("--config", required=True, help="the project's briefloop.toml")
    parser.add_argument("--json", help="write the results here too")
    args = parser.parse_args(argv)
    settings = config_mod.load(Path(args.config))
    rows, counts = reader_fixes(settings)
    result = {"counts": counts, "replayed": replayed(settings, rows)}
    print(json.dumps(result, indent=2))
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    return 0
