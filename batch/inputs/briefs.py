"""Briefs and the folder source: one text file (or one source file to document) per brief.

A brief file is `.md` or `.txt`, optionally opening with YAML front matter:

    ---
    id: q3-memo
    title: Q3 update for the sales team
    rubric: memo
    max_words: 250
    ---
    The text of the brief...

A source file (`.py`, `.js`, ...) becomes the task "document this file" with the
`api-docs` rubric. A file that cannot be used becomes a `BadBrief` with the reason; the
batch records it as a run with stop reason `error` and goes on.
"""

from __future__ import annotations

import hashlib
import os
import re
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from batch.draft_cleanup import encodable
from batch.errors import one_line
from batch.prompts import fragment
from batch.source_files import SOURCE_SUFFIXES, suffix_of

BRIEF_SUFFIXES = {".md", ".txt", ".markdown"}
FRONT_MATTER_KEYS = {"id", "title", "rubric", "house_rules", "min_words", "max_words"}

# The brief of a source file to document is the template batch/prompts/source_task.md.


@dataclass(frozen=True)
class Brief:
    id: str
    text: str
    origin: str  # where it came from: a path, or a sheet and row
    title: str = ""
    kind: str = "brief"  # "brief" | "source"
    source_text: str = ""  # the code to document, for kind == "source"
    # the file it was read from, for kind == "source", whichever source named it (a
    # folder, a sheet row): its name says how it is checked, its folder is where its
    # examples run
    source_path: str = ""
    rubric: str | None = None
    house_rules: str | None = None
    min_words: int | None = None
    max_words: int | None = None

    def fingerprint(self, *extra: str) -> str:
        """Hash of everything that shapes the result, so a changed brief gets a new thread."""
        h = hashlib.sha256()
        for part in (
            self.id,
            self.title,
            self.text,
            self.source_text,
            str(self.min_words),
            str(self.max_words),
            *extra,
        ):
            h.update(part.encode("utf-8"))
            h.update(b"\x00")
        return h.hexdigest()


@dataclass(frozen=True)
class BadBrief:
    id: str
    origin: str
    reason: str
    raw_fingerprint: str = field(default="")


@dataclass
class FolderScan:
    briefs: list[Brief | BadBrief]
    skipped: list[str]  # entries that are not briefs (other files, hidden ones, folders)


# CR LF, CR, NEL, LINE SEPARATOR, PARAGRAPH SEPARATOR, VT, FF: what str.splitlines
# splits on (but the file and group separators, which no editor writes as a line end)
_LINE_ENDS = re.compile(r"\r\n|[\r\x85\u2028\u2029\x0b\x0c]")
_FRONT = re.compile(r"\A---[ \t]*\r?\n(.*?)\r?\n---[ \t]*(?:\r?\n|\Z)", re.DOTALL)


MAX_YAML_DEPTH = 32
MAX_WORDS = 100_000  # a length limit beyond any text this tool writes
MAX_FRONT_MATTER_BYTES = 16_384


class _BoundedLoader(yaml.SafeLoader):
    """YAML without anchors and aliases, nested at most MAX_YAML_DEPTH deep: a few
    hundred bytes of nested aliases expand to billions of values, and 400 nested `[`
    exhaust Python's stack (a brief's front matter or an answers file needs neither)."""

    _depth = 0

    def compose_node(self, parent, index):
        if self.check_event(yaml.AliasEvent):
            event = self.peek_event()
            raise yaml.composer.ComposerError(
                None, None, "aliases (*name) are not allowed here", event.start_mark
            )
        if self._depth >= MAX_YAML_DEPTH:
            raise yaml.composer.ComposerError(
                None,
                None,
                f"nested more than {MAX_YAML_DEPTH} levels deep",
                self.peek_event().start_mark,
            )
        self._depth += 1
        try:
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1


def load_yaml(text: str) -> Any:
    """yaml.safe_load, refusing aliases and deep nesting (YAMLError)."""
    return yaml.load(text, Loader=_BoundedLoader)  # noqa: S506 - a SafeLoader subclass


def split_front_matter(text: str) -> tuple[dict, str]:
    """Return (front matter mapping, body). Raises ValueError if the front matter is bad."""
    m = _FRONT.match(text)
    if not m:
        return {}, text
    if len(m.group(1).encode("utf-8")) > MAX_FRONT_MATTER_BYTES:
        raise ValueError(f"front matter is over {MAX_FRONT_MATTER_BYTES} bytes")
    try:
        data = load_yaml(m.group(1))
    except yaml.YAMLError as e:
        raise ValueError(f"front matter does not parse: {str(e).splitlines()[0]}") from None
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise ValueError("front matter must be a mapping of key: value")
    unknown = sorted(set(map(str, data)) - FRONT_MATTER_KEYS)
    if unknown:
        raise ValueError(
            f"unknown front matter key(s): {', '.join(unknown)} "
            f"(known: {', '.join(sorted(FRONT_MATTER_KEYS))})"
        )
    return data, text[m.end() :]


def _word_limit(data: dict, key: str) -> int | None:
    value = data.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_WORDS:
        raise ValueError(
            f"{key} must be a whole number from 1 to {MAX_WORDS:,}, got {str(value)[:20]!r}"
        )
    return value


CONTROL_CHARS = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")

_N = r"(\d{1,5})"
_RANGE = re.compile(r"(?i)\b(?:between\s+)?" + _N + r"\s*(?:to|-|–|—|and)\s*" + _N + r"\s*words\b")
_AT_MOST = re.compile(
    r"(?i)\b(?:under|below|at most|no more than|not more than|up to|"
    r"fewer than|less than|maximum(?: of)?|max\.?|within|no longer than)\s+" + _N + r"\s*words\b"
)
_AT_LEAST = re.compile(
    r"(?i)\b(?:at least|no fewer than|no less than|not less than|"
    r"minimum(?: of)?|min\.?|(?<!no )(?<!not )more than|over)\s+" + _N + r"\s*words\b"
)


def prose_word_limits(text: str) -> tuple[int | None, int | None]:
    """The length limits a brief writes in its text ("60 to 120 words", "under 100
    words", "at least 50 words"), as (min_words, max_words); None where it sets none.
    A range that reads backwards ("120 to 60") is taken the right way round."""
    low = high = None
    if m := _RANGE.search(text):
        a, b = sorted((int(m.group(1)), int(m.group(2))))
        low, high = a or None, b or None
    if high is None and (m := _AT_MOST.search(text)):
        high = int(m.group(1)) or None
    if low is None and (m := _AT_LEAST.search(text)):
        low = int(m.group(1)) or None
    return low, high


def brief_from_fields(
    *,
    id: str,
    text: str,
    origin: str,
    title: str = "",
    rubric: str | None = None,
    house_rules: str | None = None,
    min_words: int | None = None,
    max_words: int | None = None,
) -> Brief:
    if CONTROL_CHARS.search(id):
        raise ValueError(f"id {id!r:.60} has a line break or another control character")
    if min_words is None and max_words is None:
        # limits the brief writes in words are limits all the same; given as fields
        # (front matter, sheet columns), the fields win
        min_words, max_words = prose_word_limits(text)
    if min_words and max_words and min_words > max_words:
        raise ValueError(f"min_words ({min_words}) is larger than max_words ({max_words})")
    return Brief(
        id=encodable(id),
        text=encodable(text.strip()),
        origin=origin,
        title=encodable(title),
        rubric=rubric,
        house_rules=house_rules,
        min_words=min_words,
        max_words=max_words,
    )


def read_text_file(path: Path, max_bytes: int) -> str:
    """Read a brief's bytes with every check a user would want named. Raises ValueError.

    Only a regular file is read: a fifo would block the batch forever, a device would
    never end. The open does not block (O_NONBLOCK), and what it opened is checked
    before a byte is read."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError as e:
        raise ValueError(f"cannot read: {e.strerror or e}") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise ValueError("not a regular file (a fifo, a socket or a device)")
        if info.st_size > max_bytes:
            raise ValueError(
                f"too large: {info.st_size} bytes (limit loop.max_brief_bytes = {max_bytes})"
            )
        chunks, got = [], 0
        while got <= max_bytes:  # a file that grows while it is read stops at the limit
            chunk = os.read(fd, min(1 << 20, max_bytes + 1 - got))
            if not chunk:
                break
            chunks.append(chunk)
            got += len(chunk)
    except OSError as e:
        raise ValueError(f"cannot read: {e.strerror or e}") from None
    finally:
        os.close(fd)
    data = b"".join(chunks)
    if len(data) > max_bytes:
        raise ValueError(f"too large: over {max_bytes} bytes (loop.max_brief_bytes)")
    if not data.strip():
        raise ValueError("empty file")
    if b"\x00" in data:
        raise ValueError("binary file (contains NUL bytes), not a text brief")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise ValueError(f"not UTF-8 text (bad byte at offset {e.start})") from None
    # Windows and old Mac line ends: with "\r" alone, the front matter was not seen and
    # the whole file was one line
    return text.replace("\r\n", "\n").replace("\r", "\n")


def load_brief_file(path: Path, max_bytes: int) -> Brief:
    """One file to one Brief. Raises ValueError with a reason a person can act on."""
    text = read_text_file(path, max_bytes)
    suffix = suffix_of(path)
    if suffix in SOURCE_SUFFIXES:
        return Brief(
            id=path.stem if suffix == ".py" else path.name,
            origin=str(path),
            title=f"API documentation for {path.name}",
            kind="source",
            text=fragment("source_task", name=path.name),
            source_text=text,
            source_path=str(path),
        )
    # a brief's other line ends too (NEL, U+2028, VT, FF...): with any of them, its front
    # matter was not seen; a source file's text stays as written (a string literal's)
    data, body = split_front_matter(_LINE_ENDS.sub("\n", text))
    if not body.strip():
        raise ValueError("the brief has front matter but no text")
    raw_id = data.get("id", path.stem)
    if raw_id is None or str(raw_id).strip() == "":
        raise ValueError("id is empty")
    if isinstance(raw_id, bool | list | dict):
        raise ValueError(f"id must be text or a number, got {raw_id!r:.60}")
    for key in ("title", "rubric", "house_rules"):
        if key in data and not isinstance(data[key], str):
            raise ValueError(f"{key} must be text, got {data[key]!r}")
    return brief_from_fields(
        id=str(raw_id).strip(),
        text=body,
        origin=str(path),
        title=data.get("title", "") or "",
        rubric=data.get("rubric"),
        house_rules=data.get("house_rules"),
        min_words=_word_limit(data, "min_words"),
        max_words=_word_limit(data, "max_words"),
    )


def scan_folder(folder: Path, max_bytes: int) -> FolderScan:
    """Every brief in `folder` (not recursive), in name order, bad ones included."""
    folder = folder.resolve()
    out: list[Brief | BadBrief] = []
    skipped: list[str] = []
    seen: dict[str, str] = {}
    for path in sorted(folder.iterdir()):
        if path.is_dir():
            skipped.append(f"{path.name}/ (a folder: briefs are read from the top level only)")
            continue
        if path.name.startswith("."):
            skipped.append(f"{path.name} (hidden)")
            continue
        if not is_brief_file(path):
            skipped.append(path.name)
            continue
        brief = scan_file(path, folder, max_bytes)
        if isinstance(brief, Brief):
            if brief.id in seen:
                reason = f"duplicate id {brief.id!r} (also used by {seen[brief.id]})"
                brief = BadBrief(id=brief.id, origin=str(path), reason=reason)
            else:
                seen[brief.id] = path.name
        out.append(brief)
    return FolderScan(briefs=out, skipped=skipped)


def is_brief_file(path: Path) -> bool:
    """A file name a brief or a source to document may have."""
    return suffix_of(path) in BRIEF_SUFFIXES | SOURCE_SUFFIXES


def scan_file(path: Path, folder: Path, max_bytes: int) -> Brief | BadBrief:
    """One brief file of `folder` (resolved): the Brief, or a BadBrief saying why not.
    A link may point only inside the folder; whatever the file does is its own error."""
    try:
        real = path.resolve(strict=True)
    except (OSError, RuntimeError) as e:  # RuntimeError: a symlink loop, on 3.11
        return BadBrief(id=path.stem, origin=str(path), reason=f"cannot read: {e}")
    if real.parent != folder and folder not in real.parents:
        return BadBrief(
            id=path.stem, origin=str(path), reason=f"symlink to {real}, outside the brief folder"
        )
    try:
        return load_brief_file(path, max_bytes)
    except ValueError as e:
        return BadBrief(id=path.stem, origin=str(path), reason=str(e))
    except Exception as e:  # noqa: BLE001 - whatever one file does is that file's error
        return BadBrief(id=path.stem, origin=str(path), reason=one_line(e))
