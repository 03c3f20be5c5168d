"""What every language's reader shares: the source bytes, the exports found so far, a
declaration's header as written, and walking a tree-sitter tree."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from batch.judging.exports.names import Export

if TYPE_CHECKING:
    from tree_sitter import Node


MAX_SIGNATURE = 240
COMMENTS = frozenset({"comment", "line_comment", "block_comment"})
_ANNOTATIONS = frozenset({"decorator", "annotation", "marker_annotation", "attribute_item"})


class Reader:
    """The source bytes and the exports found so far."""

    def __init__(self, src: bytes) -> None:
        self.src = src
        self.out: list[Export] = []
        self._seen: set[Export] = set()

    def text(self, node: Node | None) -> str:
        if node is None:
            return ""
        return self.src[node.start_byte : node.end_byte].decode("utf-8", "replace")

    def add(self, name: str, kind: str, signature: str) -> None:
        export = Export(name, kind, signature)
        if name and export not in self._seen:
            self._seen.add(export)
            self.out.append(export)

    def header(self, node: Node, stop: Node | None = None) -> str:
        """`node` as written, from its first token that is not an annotation or a comment
        up to `stop` (else its end), on one line, without comments or a trailing { ; =."""
        start = _start(node)
        end = stop.start_byte if stop is not None and stop.start_byte > start else node.end_byte
        pieces, pos = [], start
        for comment in _comments(node, start, end):
            pieces.append(self.src[pos : comment.start_byte])
            pos = comment.end_byte
        pieces.append(self.src[pos:end])
        text = " ".join(b" ".join(pieces).decode("utf-8", "replace").split())
        text = text.rstrip("{;= ")
        if len(text) > MAX_SIGNATURE:
            text = text[: MAX_SIGNATURE - 1].rstrip() + "…"
        return text


def _start(node: Node) -> int:
    """Where `node` begins once leading annotations, decorators and comments are skipped."""
    for child in node.children:
        if child.type in COMMENTS or child.type in _ANNOTATIONS:
            continue
        if child.type == "modifiers":  # Java keeps annotations among the modifiers
            for modifier in child.children:
                if modifier.type not in COMMENTS and modifier.type not in _ANNOTATIONS:
                    return modifier.start_byte
            continue
        return child.start_byte
    return node.start_byte


def _comments(node: Node, start: int, end: int) -> Iterator[Node]:
    """The comments inside `node` that lie between the bytes `start` and `end`."""
    for child in node.children:
        if child.end_byte <= start or child.start_byte >= end:
            continue
        if child.type in COMMENTS:
            if child.start_byte >= start and child.end_byte <= end:
                yield child
        else:
            yield from _comments(child, start, end)


def field_of(node: Node, name: str) -> Node | None:
    return node.child_by_field_name(name)


def top_level(root: Node) -> Iterator[Node]:
    """The statements of a file; those tree-sitter wrapped in an ERROR node too."""
    for child in root.named_children:
        if child.type == "ERROR":
            yield from top_level(child)
        else:
            yield child


# --- JavaScript and TypeScript ------------------------------------------------------
