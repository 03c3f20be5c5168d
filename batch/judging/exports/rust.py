"""The exports of a Rust file: items marked exactly `pub`."""

from __future__ import annotations

from typing import TYPE_CHECKING

from batch.judging.exports.reader import COMMENTS, Reader, field_of, top_level

if TYPE_CHECKING:
    from tree_sitter import Node


_RUST_KINDS = {
    "function_item": "function",
    "struct_item": "struct",
    "enum_item": "enum",
    "union_item": "union",
    "trait_item": "trait",
    "const_item": "const",
    "static_item": "static",
    "type_item": "type",
    "mod_item": "module",
}


def _rust_pub(r: Reader, item: Node) -> bool:
    return any(c.type == "visibility_modifier" and r.text(c) == "pub" for c in item.children)


def _rust_signature(r: Reader, item: Node) -> str:
    if item.type in ("const_item", "static_item"):
        return r.header(item, field_of(item, "value"))
    return r.header(item, field_of(item, "body"))


def _rust_impl_type(r: Reader, impl: Node) -> str:
    node = field_of(impl, "type")
    if node is not None and node.type == "generic_type":
        node = field_of(node, "type")
    return r.text(node) if node is not None and node.type == "type_identifier" else ""


def rust_items(r: Reader, container: Node, prefix: str) -> None:
    items = list(top_level(container))
    private_types = {
        r.text(field_of(i, "name"))
        for i in items
        if i.type in ("struct_item", "enum_item", "union_item", "type_item") and not _rust_pub(r, i)
    }
    previous: Node | None = None
    for item in items:
        if item.type in _RUST_KINDS and _rust_pub(r, item):
            name = prefix + r.text(field_of(item, "name"))
            r.add(name, _RUST_KINDS[item.type], _rust_signature(r, item))
            body = field_of(item, "body")
            if item.type == "trait_item" and body is not None:
                for member in body.named_children:
                    if member.type in ("function_item", "function_signature_item"):
                        r.add(
                            f"{name}.{r.text(field_of(member, 'name'))}",
                            "method",
                            _rust_signature(r, member),
                        )
            elif item.type == "mod_item" and body is not None:
                rust_items(r, body, name + ".")
        elif item.type == "impl_item" and field_of(item, "trait") is None:
            owner = _rust_impl_type(r, item)
            body = field_of(item, "body")
            if owner and owner not in private_types and body is not None:
                for member in body.named_children:
                    if member.type in ("function_item", "const_item") and _rust_pub(r, member):
                        kind = "method" if member.type == "function_item" else "const"
                        r.add(
                            f"{prefix}{owner}.{r.text(field_of(member, 'name'))}",
                            kind,
                            _rust_signature(r, member),
                        )
        elif item.type == "use_declaration" and _rust_pub(r, item):
            for name in _rust_use_names(r, field_of(item, "argument")):
                r.add(prefix + name, "reexport", "")
        elif (
            item.type == "macro_definition"
            and previous is not None
            and previous.type == "attribute_item"
            and "macro_export" in r.text(previous)
        ):
            rules = [c for c in item.named_children if c.type == "macro_rule"]
            r.add(
                prefix + r.text(field_of(item, "name")),
                "macro",
                r.header(item, rules[0] if rules else None),
            )
        if item.type not in COMMENTS:
            previous = item


def _rust_use_names(r: Reader, tree: Node | None) -> list[str]:
    """The names a `use` tree brings in: `a::B` -> B, `a::{B, c::D as E}` -> B, E."""
    if tree is None:
        return []
    if tree.type in ("identifier", "type_identifier"):
        return [r.text(tree)]
    if tree.type == "scoped_identifier":
        return [r.text(field_of(tree, "name"))]
    if tree.type == "use_as_clause":
        return [r.text(field_of(tree, "alias"))]
    if tree.type == "scoped_use_list":
        return _rust_use_names(r, field_of(tree, "list"))
    if tree.type == "use_list":
        return [n for child in tree.named_children for n in _rust_use_names(r, child)]
    return []  # `use a::*;` names nothing


# --- Java -------------------------------------------------------------------------
