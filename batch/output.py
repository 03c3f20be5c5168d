"""Output files: safe names inside the output folder, written atomically."""

from __future__ import annotations

import hashlib
import os
import re
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml

from batch.errors import OutputError


def safe_filename(brief_id: str) -> str:
    """A file name made from a brief id that cannot leave its folder (`../x`, `/etc/x`)."""
    stem = re.sub(r"[^A-Za-z0-9._-]+", "-", brief_id).strip(".-")[:80]
    if not stem:
        stem = "brief"
    if stem != brief_id:
        # two ids that clean up to the same stem must not share a file
        stem += "-" + hashlib.sha256(brief_id.encode("utf-8")).hexdigest()[:8]
    return stem


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def atomic_replace(path: Path, write: Callable[[str], None]) -> None:
    """Have `write(tmp_path)` write a temp file beside `path`, then rename it over `path`:
    readers see the old file or the new one, never half of one."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    os.close(fd)
    try:
        write(tmp)
        # mkstemp makes the file private (0600); give it the mode a plain open() would.
        os.chmod(tmp, 0o666 & ~_umask())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def atomic_write_text(path: Path, text: str) -> None:
    def write(tmp: str) -> None:
        with open(tmp, "w", encoding="utf-8", newline="\n") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())

    atomic_replace(path, write)


def write_output(out_dir: Path, brief_id: str, meta: dict[str, Any], body: str) -> Path:
    out_dir = out_dir.resolve()
    path = (out_dir / f"{safe_filename(brief_id)}.md").resolve()
    if path.parent != out_dir:  # belt and braces: safe_filename already guarantees this
        raise ValueError(f"output path {path} escapes {out_dir}")
    front = yaml.safe_dump(meta, sort_keys=False, allow_unicode=True).strip()
    try:
        atomic_write_text(path, f"---\n{front}\n---\n\n{body.strip()}\n")
    except OSError as e:
        raise OutputError(f"cannot write {path}: {e.strerror or e}") from None
    return path
