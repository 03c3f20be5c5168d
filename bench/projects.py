"""A throwaway project for a benchmark that runs the shipped loop on folders of briefs:
the repo's rubrics and house rules, the briefs copied into one folder, and the shipped
config (or another) with its paths made to resolve inside the project."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

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
