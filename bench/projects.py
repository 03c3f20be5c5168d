"""A throwaway project for a benchmark that runs the shipped loop on folders of briefs:
the repo's rubrics and house rules, the briefs copied into one folder, and the shipped
config (or another) with its paths made to resolve inside the project."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
# "No limit" as a config override: a None override means "not given" and leaves the
# config's own limit in place, so no limit is one never reached.
NO_LIMIT = 1e9


def copied_project(
    brief_dirs: list[Path], config: Path | None = None, prefix: str = "briefloop-bench-"
) -> Path:
    work = Path(tempfile.mkdtemp(prefix=prefix))
    for name in ("rubrics", "house_rules"):
        shutil.copytree(REPO / name, work / name)
    (work / "briefs").mkdir()
    for folder in brief_dirs:
        for f in sorted(folder.iterdir()):
            if f.is_file():
                shutil.copy(f, work / "briefs" / f.name)
    shipped = config or REPO / "config" / "briefloop.toml"
    (work / "briefloop.toml").write_text(
        shipped.read_text(encoding="utf-8").replace('root = ".."', 'root = "."')
    )
    return work


def judged_as_draft(settings: Any, brief: Any, draft: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """`draft` judged as the loop would judge its brief's draft (batch.run.text_check):
    the state with its findings, and the verdict's update."""
    from batch.run.text_check import judge_text

    judged = judge_text(settings, brief, draft)
    return dict(judged.state), judged.update


def brief_from_text(
    folder: Path, brief_id: str, text: str, rubric: str = "memo", **front: Any
) -> Any:
    """A brief given as its text (a labelled set's `brief:`), as the loop reads it: written
    as a brief file in `folder` with `front` (max_words...) in its front matter, and
    loaded."""
    from batch.inputs.briefs import load_brief_file

    head = "".join(f"{k}: {v}\n" for k, v in front.items() if v is not None)
    path = folder / f"{brief_id}.md"
    path.write_text(f"---\nid: {brief_id}\nrubric: {rubric}\n{head}---\n{text}", encoding="utf-8")
    return load_brief_file(path, 1 << 20)
