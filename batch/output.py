"""Output files: the finished texts under safe names inside the output folder, written
atomically (batch.files)."""

from __future__ import annotations

import hashlib
import os
import re
from pathlib import Path
from typing import Any

import yaml

from batch.errors import OutputError
from batch.files import atomic_write_text

_HASHED = re.compile(r"-[0-9a-f]{8}$")
NEEDS_WORK = "needs-work"  # beside the finished texts, for every text not approved
# beside them too: an approved text of a brief's version that is no longer its current one
SUPERSEDED = "superseded"


def safe_filename(brief_id: str) -> str:
    """A file name made from a brief id that cannot leave its folder (`../x`, `/etc/x`).
    Two ids never share one: an id that had to be cleaned, or that reads like a cleaned
    one ("a-b-c8687a08", the name of "a b"), gets a hash of itself appended."""
    stem = re.sub(r"[^A-Za-z0-9._-]+", "-", brief_id).strip(".-")[:80]
    if not stem:
        stem = "brief"
    if stem != brief_id or _HASHED.search(stem):
        stem += "-" + hashlib.sha256(brief_id.encode("utf-8")).hexdigest()[:8]
    return stem


def _front(text: str) -> tuple[dict[str, Any], int] | None:
    """The front matter at the start of `text` and where it ends, or None when there
    is none that reads as a mapping."""
    m = re.match(r"---\n(.*?)\n---\n", text, re.DOTALL)
    if not m:
        return None
    try:
        front = yaml.safe_load(m.group(1))
    except yaml.YAMLError:
        return None
    return (front, m.end()) if isinstance(front, dict) else None


def written_for(path: Path) -> str | None:
    """The brief id an output file was written for (its front matter's brief_id), or
    None when it holds none that can be read."""
    try:
        with path.open(encoding="utf-8", errors="replace") as f:
            head = f.read(4096)
    except OSError:
        return None
    found = _front(head)
    brief_id = found[0].get("brief_id") if found else None
    return None if brief_id is None else str(brief_id)


def front_matter_of(path: Path) -> tuple[dict[str, Any], str] | None:
    """An output file's front matter and body, or None when it has none that reads."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    found = _front(text)
    return (found[0], text[found[1] :]) if found else None


def restamp(path: Path, changes: dict[str, Any]) -> None:
    """Change fields of an output file's front matter (a text taken back is no longer
    `approved: true`), its body as it was; written atomically. A file without front
    matter that reads is left alone."""
    found = front_matter_of(path)
    if found is None:
        return
    front, body = found
    updated = {**front, **changes}
    if updated == front:
        return
    text = yaml.safe_dump(updated, sort_keys=False, allow_unicode=True).strip()
    atomic_write_text(path, f"---\n{text}\n---\n{body}")


def in_this_project(output_dir: Path, stored: str) -> Path:
    """The file a run record's output path names, in this project's output folder: only
    its name (and whether it was set aside in `needs-work/`) is taken from the path, so
    a project copied or moved elsewhere acts on its own files, never on the folder the
    path was recorded in."""
    path = Path(stored)
    folder = output_dir / NEEDS_WORK if path.parent.name == NEEDS_WORK else output_dir
    return folder / path.name


def write_output(out_dir: Path, brief_id: str, meta: dict[str, Any], body: str) -> Path:
    """Write a brief's text to its file. Raises OutputError when the file holds another
    brief's text (a name that clashes on a case-insensitive disk, or a file put there by
    hand): that text is never overwritten."""
    out_dir = out_dir.resolve()
    path = (out_dir / f"{safe_filename(brief_id)}.md").resolve()
    if path.parent != out_dir:  # belt and braces: safe_filename already guarantees this
        raise ValueError(f"output path {path} escapes {out_dir}")
    if path.exists() and written_for(path) != brief_id:
        other = written_for(path)
        raise OutputError(
            f"cannot write {path}: it holds "
            f"{'the text of brief ' + repr(other) if other else 'another file'}"
            f"; rename this brief's id or move that file"
        )
    front = yaml.safe_dump(meta, sort_keys=False, allow_unicode=True).strip()
    try:
        atomic_write_text(path, f"---\n{front}\n---\n\n{body.strip()}\n")
    except OSError as e:
        raise OutputError(f"cannot write {path}: {e.strerror or e}") from None
    return path


def no_link_between(root: Path, folder: Path) -> Path:
    """`folder`, made if missing, after checking that no folder from `root` down to it
    is a symbolic link: a link planted there (`needs-work/` pointing at another
    project, at /etc) would have every file written "inside" land where it points.
    `root` itself may be a link: that is the person's choice of where it lives."""
    try:
        parts = folder.relative_to(root).parts
    except ValueError:
        raise OutputError(f"{folder} is not inside {root}") from None
    here = root
    for part in parts:
        here = here / part
        if here.is_symlink():
            raise OutputError(
                f"{here} is a symbolic link: briefloop writes only into real folders "
                f"inside {root}; remove the link"
            )
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def withdraw(out_dir: Path, brief_id: str, name: str, changes: dict[str, Any]) -> Path | None:
    """The brief's text in `out_dir` moved to superseded/`name`.md, its front matter
    changed by `changes` (no longer approved, and why): where it went, or None when
    `out_dir` holds no text of this brief. Kept, not deleted: it was approved once."""
    path = out_dir / f"{safe_filename(brief_id)}.md"
    if not path.is_file() or written_for(path) != brief_id:
        return None
    target = no_link_between(out_dir, out_dir / SUPERSEDED) / f"{safe_filename(name)}.md"
    os.replace(path, target)
    restamp(target, changes)
    return target
