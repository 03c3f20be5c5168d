"""The exports of a JavaScript or TypeScript file (ES modules and CommonJS)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from batch.judging.exports.reader import Reader, field_of, top_level

if TYPE_CHECKING:
    from tree_sitter import Node


_JS_FUNCTION_DECLS = frozenset(
    {"function_declaration", "generator_function_declaration", "function_signature"}
)
_JS_CLASS_DECLS = frozenset({"class_declaration", "abstract_class_declaration"})
_JS_FUNCTION_VALUES = frozenset(
    {"function_expression", "function", "arrow_function", "generator_function"}
)
_TS_KINDS = {
    "interface_declaration": "interface",
    "type_alias_declaration": "type",
    "enum_declaration": "enum",
    "internal_module": "namespace",
}


@dataclass(frozen=True)
class _Decl:
    kind: str
    signature: str
    members: Node | None  # a class or interface body, a namespace's statements


def _js_declarations(r: Reader, node: Node) -> list[tuple[str, _Decl]]:
    """The (name, declaration) pairs a declaration statement introduces."""
    if node.type == "ambient_declaration":  # `declare function f(): void;`
        return [d for child in node.named_children for d in _js_declarations(r, child)]
    name = r.text(field_of(node, "name"))
    body = field_of(node, "body")
    if node.type in _JS_FUNCTION_DECLS:
        return [(name, _Decl("function", r.header(node, body), None))]
    if node.type in _JS_CLASS_DECLS:
        return [(name, _Decl("class", r.header(node, body), body))]
    if node.type in _TS_KINDS:
        kind = _TS_KINDS[node.type]
        if kind == "type":
            return [(name, _Decl(kind, r.header(node), None))]
        return [(name, _Decl(kind, r.header(node, body), body))]
    if node.type in ("lexical_declaration", "variable_declaration"):
        keyword = r.text(node.children[0]) if node.children else "var"
        out = []
        for declarator in node.named_children:
            if declarator.type != "variable_declarator":
                continue
            names = _js_pattern_names(r, field_of(declarator, "name"))
            value = field_of(declarator, "value")
            if (
                value is not None
                and len(names) == 1
                and (value.type in _JS_FUNCTION_VALUES or value.type == "class")
            ):
                value_body = field_of(value, "body")
                kind = "class" if value.type == "class" else "function"
                signature = f"{keyword} {r.header(declarator, value_body)}"
                out.append(
                    (names[0], _Decl(kind, signature, value_body if kind == "class" else None))
                )
                continue
            kind = "const" if keyword == "const" else "variable"
            signature = f"{keyword} {r.header(declarator, value)}"
            out += [(n, _Decl(kind, signature, None)) for n in names]
        return out
    if node.type == "import_alias":  # TS `export import A = NS.B;`
        idents = [c for c in node.named_children if c.type == "identifier"]
        return [(r.text(idents[0]), _Decl("alias", r.header(node), None))] if idents else []
    return []


def _js_pattern_names(r: Reader, pattern: Node | None) -> list[str]:
    """The names a binding pattern binds: `a`, `{ a, b: c }` -> a, c, `[x, ...y]`."""
    if pattern is None:
        return []
    if pattern.type in ("identifier", "shorthand_property_identifier_pattern"):
        return [r.text(pattern)]
    if pattern.type == "pair_pattern":
        return _js_pattern_names(r, field_of(pattern, "value"))
    if pattern.type in ("assignment_pattern", "object_assignment_pattern"):
        return _js_pattern_names(r, field_of(pattern, "left"))
    return [n for child in pattern.named_children for n in _js_pattern_names(r, child)]


def _js_value(
    r: Reader, value: Node, header_of: Node, local: dict[str, list[_Decl]]
) -> list[_Decl]:
    """What an exported expression is: a local name's declarations, a function, a class
    or a plain value (its signature `header_of` up to the value or the function body)."""
    if value.type == "identifier" and r.text(value) in local:
        return local[r.text(value)]
    if value.type in _JS_FUNCTION_VALUES:
        return [_Decl("function", r.header(header_of, field_of(value, "body")), None)]
    if value.type == "class":
        body = field_of(value, "body")
        return [_Decl("class", r.header(header_of, body), body)]
    if value.type == "identifier":
        return [_Decl("reexport", "", None)]
    signature = r.header(header_of, value).rstrip(":").rstrip() if header_of != value else ""
    return [_Decl("variable", signature, None)]


def _js_emit(r: Reader, name: str, decls: list[_Decl]) -> None:
    for decl in decls:
        r.add(name, decl.kind, decl.signature)
        if decl.members is None:
            continue
        if decl.kind == "namespace":
            js_program(r, decl.members, name + ".")
        else:
            _js_members(r, name, decl.members)


def _js_members(r: Reader, owner: str, body: Node) -> None:
    """The public methods of a class body or an interface body."""
    for member in body.named_children:
        if member.type not in (
            "method_definition",
            "method_signature",
            "abstract_method_signature",
        ):
            continue
        name = r.text(field_of(member, "name"))
        if not name or name.startswith(("#", "_")):
            continue
        if any(
            c.type == "accessibility_modifier" and r.text(c) in ("private", "protected")
            for c in member.children
        ):
            continue
        kind = "constructor" if name == "constructor" else "method"
        r.add(f"{owner}.{name}", kind, r.header(member, field_of(member, "body")))


def _js_local(r: Reader, statements: list[Node]) -> dict[str, list[_Decl]]:
    """Every top-level declaration, exported or not: name -> its declarations."""
    local: dict[str, list[_Decl]] = {}
    for statement in statements:
        declaration = (
            field_of(statement, "declaration")
            if statement.type == "export_statement"
            else statement
        )
        if declaration is not None:
            for name, decl in _js_declarations(r, declaration):
                local.setdefault(name, []).append(decl)
    return local


def js_program(r: Reader, container: Node, prefix: str) -> None:
    statements = list(top_level(container))
    local = _js_local(r, statements)
    for statement in statements:
        if statement.type == "export_statement":
            _js_export(r, statement, prefix, local)
        elif statement.type == "expression_statement" and not prefix:
            _commonjs(r, statement, local)


def _js_export(r: Reader, statement: Node, prefix: str, local: dict[str, list[_Decl]]) -> None:
    declaration = field_of(statement, "declaration")
    if declaration is not None:
        for name, decl in _js_declarations(r, declaration):
            _js_emit(r, prefix + name, [decl])
        return
    value = field_of(statement, "value")
    if value is not None:  # `export default <expression>`
        name = r.text(value) if value.type == "identifier" else "default"
        _js_emit(r, prefix + name, _js_value(r, value, value, local))
        return
    source = field_of(statement, "source")
    for child in statement.named_children:
        if child.type == "export_clause":
            for spec in child.named_children:
                if spec.type != "export_specifier":
                    continue
                inner = r.text(field_of(spec, "name"))
                exported = r.text(field_of(spec, "alias")) or inner
                decls = local.get(inner) if source is None else None
                _js_emit(r, prefix + exported, decls or [_Decl("reexport", "", None)])
        elif child.type == "namespace_export":  # `export * as ns from "./m"`
            names = [c for c in child.named_children if c.type == "identifier"]
            if names:
                r.add(prefix + r.text(names[0]), "reexport", "")
        elif child.type == "identifier" and source is None:  # TS `export = name;`
            _js_emit(r, prefix + r.text(child), _js_value(r, child, child, local))


def _is_module_exports(r: Reader, node: Node | None) -> bool:
    return (
        node is not None
        and node.type == "member_expression"
        and r.text(field_of(node, "object")) == "module"
        and r.text(field_of(node, "property")) == "exports"
    )


def _commonjs(r: Reader, statement: Node, local: dict[str, list[_Decl]]) -> None:
    """`module.exports = {...}` / `= name`, `module.exports.a = ...`, `exports.a = ...`."""
    assignment = statement.named_children[0] if statement.named_children else None
    if assignment is None or assignment.type != "assignment_expression":
        return
    left, right = field_of(assignment, "left"), field_of(assignment, "right")
    if left is None or right is None or left.type != "member_expression":
        return
    if _is_module_exports(r, left):
        if right.type == "object":
            for prop in right.named_children:
                if prop.type == "shorthand_property_identifier":
                    name = r.text(prop)
                    _js_emit(r, name, local.get(name) or [_Decl("reexport", "", None)])
                elif prop.type == "pair":
                    key, value = field_of(prop, "key"), field_of(prop, "value")
                    if (
                        key is not None
                        and value is not None
                        and key.type in ("property_identifier", "identifier")
                    ):
                        _js_emit(r, r.text(key), _js_value(r, value, prop, local))
                elif prop.type == "method_definition":
                    r.add(
                        r.text(field_of(prop, "name")),
                        "function",
                        r.header(prop, field_of(prop, "body")),
                    )
        else:
            own = field_of(right, "name")
            name = r.text(right) if right.type == "identifier" else r.text(own) or "default"
            _js_emit(r, name, _js_value(r, right, assignment, local))
        return
    target = field_of(left, "object")
    if _is_module_exports(r, target) or (
        target is not None and target.type == "identifier" and r.text(target) == "exports"
    ):
        member = field_of(left, "property")
        if member is not None and member.type == "property_identifier":
            _js_emit(r, r.text(member), _js_value(r, right, assignment, local))


# --- Go ---------------------------------------------------------------------------
