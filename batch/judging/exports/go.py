"""The exports of a Go file: names that start with an upper-case letter."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from batch.judging.exports.reader import Reader, field_of, top_level

if TYPE_CHECKING:
    from tree_sitter import Node


def _go_exported(name: str) -> bool:
    return bool(name) and name[0].isupper()


def _go_receiver(r: Reader, method: Node) -> str:
    """The receiver's type name: `(a *Account)` and `(l *List[T])` -> Account, List."""
    receiver = field_of(method, "receiver")
    params = (
        [p for p in receiver.named_children if p.type == "parameter_declaration"]
        if receiver
        else []
    )
    node = field_of(params[0], "type") if params else None
    while node is not None and node.type in ("pointer_type", "generic_type", "parenthesized_type"):
        node = (
            field_of(node, "type")
            if node.type == "generic_type"
            else node.named_children[0]
            if node.named_children
            else None
        )
    return r.text(node) if node is not None and node.type == "type_identifier" else ""


def go_file(r: Reader, root: Node) -> None:
    for node in top_level(root):
        if node.type == "function_declaration":
            name = r.text(field_of(node, "name"))
            if _go_exported(name):
                r.add(name, "function", r.header(node, field_of(node, "body")))
        elif node.type == "method_declaration":
            name, owner = r.text(field_of(node, "name")), _go_receiver(r, node)
            if _go_exported(name) and _go_exported(owner):
                r.add(f"{owner}.{name}", "method", r.header(node, field_of(node, "body")))
        elif node.type == "type_declaration":
            for spec in node.named_children:
                if spec.type in ("type_spec", "type_alias"):
                    _go_type(r, spec)
        elif node.type in ("const_declaration", "var_declaration"):
            keyword = "const" if node.type == "const_declaration" else "var"
            _go_values(r, node, keyword)


def _go_type(r: Reader, spec: Node) -> None:
    name = r.text(field_of(spec, "name"))
    if not _go_exported(name):
        return
    shape = field_of(spec, "type")
    kind, stop = "type", None
    if shape is not None and shape.type == "struct_type":
        kind = "struct"
        stop = next((c for c in shape.children if c.type == "field_declaration_list"), None)
    elif shape is not None and shape.type == "interface_type":
        kind = "interface"
        stop = next((c for c in shape.children if c.type == "{"), None)
    r.add(name, kind, "type " + r.header(spec, stop))
    if kind == "interface" and shape is not None:
        for elem in shape.named_children:
            method = r.text(field_of(elem, "name"))
            if elem.type == "method_elem" and _go_exported(method):
                r.add(f"{name}.{method}", "method", r.header(elem))


def _go_values(r: Reader, node: Node, keyword: str) -> None:
    for spec in node.named_children:
        if spec.type in ("var_spec_list", "const_spec_list"):
            _go_values(r, spec, keyword)
            continue
        if spec.type not in ("const_spec", "var_spec"):
            continue
        shape = field_of(spec, "type")
        for child, field in _named_with_fields(spec):
            name = r.text(child)
            if field == "name" and _go_exported(name):
                signature = f"{keyword} {name}" + (f" {r.header(shape)}" if shape else "")
                r.add(name, "const" if keyword == "const" else "variable", signature)


def _named_with_fields(node: Node) -> Iterator[tuple[Node, str | None]]:
    for i, child in enumerate(node.children):
        if child.is_named:
            yield child, node.field_name_for_child(i)


# --- Rust -------------------------------------------------------------------------
