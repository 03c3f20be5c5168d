"""docs/architecture.md names the package's files as they are: every module or folder
it names in backticks, or in its map of the house, exists, and every room of the
package is on the map. A move that forgets the doc fails here."""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
DOC = (REPO / "docs" / "architecture.md").read_text(encoding="utf-8")
PACKAGE = REPO / "batch"
# `loop/nodes.py`, `judging/checklist/`, `state.py` (a path of the package)
NAMED = re.compile(r"`((?:[a-z_]+/)*[a-z_]+(?:\.py|/))`")
# the map's lines: "  name.py   what it holds" at some depth under "batch/"
MAP_LINE = re.compile(r"^( +)([a-z_]+(?:\.py|/))(?:,\s*[a-z_]+\.py)*\s")


def _exists(path: str) -> bool:
    for root in (PACKAGE, REPO):
        if (root / path).exists():
            return True
    # a file named inside its room's paragraph: somewhere in the package
    return any(PACKAGE.rglob(path.rstrip("/")))


def test_every_path_the_doc_names_exists():
    missing = [p for p in NAMED.findall(DOC) if not _exists(p)]
    assert not missing, f"docs/architecture.md names what is not there: {missing}"


def test_the_map_follows_the_folders_and_shows_every_room():
    block = DOC.split("```")[1]
    stack: list[tuple[int, Path]] = [(0, PACKAGE)]
    on_map: set[str] = set()
    for line in block.splitlines()[2:]:
        m = MAP_LINE.match(line)
        if not m or line.startswith(("rubrics/", "bench/")):
            continue
        depth, name = len(m.group(1)), m.group(2)
        while len(stack) > 1 and stack[-1][0] >= depth:
            stack.pop()
        where = stack[-1][1] / name
        assert where.exists(), f"the map's {name!r} is not at {where.relative_to(REPO)}"
        if where.parent == PACKAGE:
            on_map.add(name.rstrip("/").removesuffix(".py"))
            # "output.py  the finished texts; files.py atomic writes": two on one line
            on_map.update(
                n for n in re.findall(r"\b([a-z_]+)\.py\b", line) if (PACKAGE / f"{n}.py").exists()
            )
        if name.endswith("/"):
            stack.append((depth, where))
    rooms = {
        p.name if p.is_dir() else p.stem
        for p in PACKAGE.iterdir()
        if (p.is_dir() and (p / "__init__.py").exists())
        or (p.suffix == ".py" and p.stem not in ("__init__", "__main__"))
    }
    assert not rooms - on_map, f"rooms missing from the map: {sorted(rooms - on_map)}"
