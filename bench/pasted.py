"""A pasted brief is never approved: each brief of the shape corpus, in each of its
shapes, handed to the checks as if it were the finished text.

    python -m bench pasted [--set DIR]

The verdict is the loop's own (batch.loop.verdict, code checks as the critic, the
shipped config): approved only with the score at the bar, no must-fix and no hold.
Prints each shape that would be approved, and the count.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from batch import config as config_mod
from batch.inputs.briefs import load_brief_file
from bench.projects import copied_project, judged_as_draft
from bench.shapes import CORPUS, load_corpus


def pasted_verdicts(folder: Path = CORPUS) -> list[tuple[str, str, bool, list[str]]]:
    """(brief id, shape, approved, the findings that refuse it) for every shape file."""
    project = copied_project([], prefix="briefloop-pasted-")
    settings = config_mod.load(project / "briefloop.toml")
    out = []
    for brief in load_corpus(folder):
        for shape in brief.shapes:
            parsed = load_brief_file(brief.shape_path(shape), 1 << 20)
            state, judged = judged_as_draft(settings, parsed, parsed.text)
            approved = bool(judged["meets_bar"]) and not judged.get("holds")
            refusing = [
                f["code"] for f in state["findings"] if f["severity"] in ("must_fix", "hold")
            ]
            out.append((brief.id, shape, approved, refusing))
    return out


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench pasted", description=__doc__)
    parser.add_argument("--set", type=Path, default=CORPUS)
    args = parser.parse_args(argv)
    rows = pasted_verdicts(args.set)
    for brief_id, shape, approved, _ in rows:
        if approved:
            print(f"APPROVED {brief_id}/{shape}")
    print(f"{sum(r[2] for r in rows)} of {len(rows)} pasted briefs approved")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
