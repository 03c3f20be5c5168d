"""The exports of a Java file: `public` types and their public members."""

from __future__ import annotations

from typing import TYPE_CHECKING

from batch.judging.exports.reader import Reader, field_of, top_level

if TYPE_CHECKING:
    from tree_sitter import Node


_JAVA_TYPES = {
    "class_declaration": "class",
    "interface_declaration": "interface",
    "enum_declaration": "enum",
    "record_declaration": "record",
    "annotation_type_declaration": "annotation",
}
_JAVA_IMPLICITLY_PUBLIC = frozenset({"interface", "annotation"})


def _java_modifiers(node: Node) -> set[str]:
    for child in node.children:
        if child.type == "modifiers":
            return {m.type for m in child.children if not m.is_named}
    return set()


def java_file(r: Reader, root: Node) -> None:
    for node in top_level(root):
        if node.type in _JAVA_TYPES and "public" in _java_modifiers(node):
            _java_type(r, node, "")


def _java_type(r: Reader, node: Node, prefix: str) -> None:
    kind = _JAVA_TYPES[node.type]
    name = prefix + r.text(field_of(node, "name"))
    body = field_of(node, "body")
    r.add(name, kind, r.header(node, body))
    if body is None:
        return
    members = list(body.named_children)
    for child in list(members):  # an enum's methods follow its constants
        if child.type == "enum_body_declarations":
            members += child.named_children
    for member in members:
        modifiers = _java_modifiers(member)
        public = (
            "private" not in modifiers if kind in _JAVA_IMPLICITLY_PUBLIC else "public" in modifiers
        )
        if not public:
            continue
        if member.type in _JAVA_TYPES:
            _java_type(r, member, name + ".")
        elif member.type in ("method_declaration", "annotation_type_element_declaration"):
            r.add(
                f"{name}.{r.text(field_of(member, 'name'))}",
                "method",
                r.header(member, field_of(member, "body")),
            )
        elif member.type in ("constructor_declaration", "compact_constructor_declaration"):
            r.add(
                f"{name}.{r.text(field_of(member, 'name'))}",
                "constructor",
                r.header(member, field_of(member, "body")),
            )
