"""Output files: the finished texts under safe names inside the output folder, written
atomically (batch.files)."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path
from typing import Any

import yaml

from batch.errors import OutputError
from batch.files import atomic_write_text


def safe_filename(brief_id: str) -> str:
    """A file name made from a brief id that cannot leave its folder (`../x`, `/etc/x`)."""
    stem = re.sub(r"[^A-Za-z0-9._-]+", "-", brief_id).strip(".-")[:80]
    if not stem:
        stem = "brief"
    if stem != brief_id:
        # two ids that clean up to the same stem must not share a file
        stem += "-" + hashlib.sha256(brief_id.encode("utf-8")).hexdigest()[:8]
    return stem


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
