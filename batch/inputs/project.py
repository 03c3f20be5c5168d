"""A new project folder: the shipped config, rubrics and house rules, and a briefs folder.

The starter files are the repository's own `config/`, `rubrics/` and `house_rules/`
(linked into the package as `batch/starter/`), so a new project starts from exactly
what the examples run with.
"""

from __future__ import annotations

import shutil
from importlib import resources
from pathlib import Path

from batch.errors import BriefloopError

STARTER_FOLDERS = ("config", "rubrics", "house_rules")


def init_project(target: Path) -> tuple[list[Path], list[Path]]:
    """Copy the starter files into `target`; returns (written, kept). A file that is
    already there is kept as it is: init never overwrites a person's edits."""
    if target.exists() and not target.is_dir():
        raise BriefloopError(f"{target} is a file, not a folder")
    starter = resources.files("batch") / "starter"
    written: list[Path] = []
    kept: list[Path] = []
    for folder in STARTER_FOLDERS:
        source = starter / folder
        if not source.is_dir():
            raise BriefloopError(
                f"this installation lacks its starter files ({folder}/); reinstall briefloop"
            )
        for item in sorted(source.iterdir(), key=lambda p: p.name):
            if not item.is_file() or item.name.startswith("."):
                continue
            dest = target / folder / item.name
            if dest.exists():
                kept.append(dest)
                continue
            try:
                dest.parent.mkdir(parents=True, exist_ok=True)
                with item.open("rb") as src, dest.open("xb") as out:
                    shutil.copyfileobj(src, out)
            except OSError as e:
                raise BriefloopError(f"cannot write {dest}: {e.strerror or e}") from None
            written.append(dest)
    (target / "briefs").mkdir(parents=True, exist_ok=True)
    return written, kept
