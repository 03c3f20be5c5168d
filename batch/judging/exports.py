"""The exported (public) names of a non-Python source file, read with tree-sitter.

`.py` sources are read by Python's own `ast` (batch/judging/apidocs.py); for the languages below
the file is parsed by tree-sitter with the grammar that its PyPI package ships compiled
(nothing is downloaded at run time). Only top-level declarations count, plus the public
methods of the exported classes, structs, traits and interfaces; fields and properties do
not. A member is named `Owner.member` (`Account.deposit`), a declaration in an exported
TypeScript namespace or inline Rust module `Space.name`.

What counts as exported:
- JavaScript (.js .mjs .cjs .jsx): `export function/class/const/let/var`, `export default
  function name` / `class name` (a nameless default export is named `default`), `export {
  a, b as c }` (the exported names: `a`, `c`), `export { a } from "./m"` and `export * as
  ns from "./m"` (kind `reexport`; `export * from` names nothing), CommonJS at top level:
  `module.exports = { a, b: ..., c() {} }`, `module.exports = name`, `module.exports.a =
  ...` and `exports.a = ...`. A name exported by a list or by CommonJS takes the kind and
  signature of its top-level declaration (kind `reexport` when the file declares none).
  Methods of exported classes, except names starting with `#` or `_`; the constructor is
  listed as `Class.constructor` (kind `constructor`).
- TypeScript (.ts .mts .cts .tsx): as JavaScript, plus `export interface`, `export type`,
  `export enum`, `export abstract class`, `export declare ...`, `export namespace` (its
  exported declarations as `Space.name`), `export = name`, overload signatures (one entry
  each); class methods marked `private` or `protected` are left out; the method
  signatures of exported interfaces are listed as `Interface.method`.
- Go: top-level func, type, const and var whose name starts with an upper-case letter;
  methods with such a name on such a receiver type as `Type.Method`; the exported
  methods of exported interfaces as `Interface.Method`.
- Rust: items marked exactly `pub` (not `pub(crate)`, `pub(super)`, `pub(in ...)`): fn,
  struct, enum, union, trait (with its methods as `Trait.method`), const, static, type,
  mod (an inline module's `pub` items as `module.item`), `pub use` (kind `reexport`,
  glob imports name nothing), and `#[macro_export] macro_rules!`; the `pub fn` and `pub
  const` of inherent `impl Type` blocks as `Type.method` (not for a type this file
  declares without `pub`; trait impls add nothing: their methods are the trait's).
- Java: `public` top-level classes, interfaces, enums, records and annotation types; in
  them, recursively, `public` methods (`Class.method`), constructors (`Class.Class`, kind
  `constructor`) and nested types (`Class.Inner`); in an interface or annotation type
  every member not marked `private` is public.

Kinds: function, method, constructor, class, interface, type, enum, const, variable,
namespace, reexport, alias, struct, union, trait, static, module, macro, record,
annotation. The signature is the declaration's header as written (modifiers included,
annotations, decorators, comments and the body left out) on one line, "" when there is
none (re-exports). A syntax error does not stop the reading: tree-sitter recovers, and
every declaration it could still recognise is returned.
"""

from __future__ import annotations

import functools
import importlib
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tree_sitter import Node


@dataclass(frozen=True)
class Export:
    name: str  # "slugify", "Account", "Account.deposit"
    kind: str  # "function", "class", "method", "type", "const", "variable", ...
    signature: str  # the declaration's header as written, on one line; "" if none


LANGUAGES: dict[str, str] = {
    ".js": "javascript", ".mjs": "javascript", ".cjs": "javascript", ".jsx": "javascript",
    ".ts": "typescript", ".mts": "typescript", ".cts": "typescript", ".tsx": "typescript",
    ".go": "go", ".rs": "rust", ".java": "java",
}

# grammar -> (module of its PyPI package, function returning the compiled language)
_GRAMMARS: dict[str, tuple[str, str]] = {
    "javascript": ("tree_sitter_javascript", "language"),
    "typescript": ("tree_sitter_typescript", "language_typescript"),
    "tsx": ("tree_sitter_typescript", "language_tsx"),
    "go": ("tree_sitter_go", "language"),
    "rust": ("tree_sitter_rust", "language"),
    "java": ("tree_sitter_java", "language"),
}

_MAX_SIGNATURE = 240
_COMMENTS = frozenset({"comment", "line_comment", "block_comment"})
_ANNOTATIONS = frozenset({"decorator", "annotation", "marker_annotation", "attribute_item"})


def _suffix(suffix: str) -> str:
    suffix = suffix.lower()
    return suffix if suffix.startswith(".") else "." + suffix


def _grammar(suffix: str) -> str | None:
    return "tsx" if suffix == ".tsx" else LANGUAGES.get(suffix)


@functools.cache
def _language(grammar: str) -> Any:
    """The tree-sitter Language of `grammar`, or a one-line reason it cannot be had."""
    module_name, function = _GRAMMARS[grammar]
    package = module_name.replace("_", "-")
    try:
        tree_sitter = importlib.import_module("tree_sitter")
    except ImportError:
        return "the tree-sitter package is not installed"
    try:
        language = tree_sitter.Language(getattr(importlib.import_module(module_name),
                                                function)())
        tree_sitter.Parser(language)  # an ABI the bindings do not support fails here
    except ImportError:
        return f"the {package} package is not installed"
    except (AttributeError, TypeError, ValueError) as e:
        return f"the {package} grammar does not load with this tree-sitter: {e}"
    return language


def coverage_problem(suffix: str) -> str | None:
    """None when the exported names of `suffix` files can be read, else why not."""
    suffix = _suffix(suffix)
    grammar = _grammar(suffix)
    if grammar is None:
        return f"no exported-name reader for {suffix} files"
    found = _language(grammar)
    return found if isinstance(found, str) else None


def exported_names(source: str, suffix: str) -> list[Export] | None:
    """The exported names of `source` (a file ending in `suffix`), in source order, or
    None when the language is not supported or its parser is not installed."""
    suffix = _suffix(suffix)
    grammar = _grammar(suffix)
    if grammar is None:
        return None
    language = _language(grammar)
    if isinstance(language, str):
        return None
    parser = importlib.import_module("tree_sitter").Parser(language)
    src = source.encode("utf-8", "surrogatepass")
    reader = _Reader(src)
    root = parser.parse(src).root_node
    if grammar in ("javascript", "typescript", "tsx"):
        _js_program(reader, root, "")
    elif grammar == "go":
        _go_file(reader, root)
    elif grammar == "rust":
        _rust_items(reader, root, "")
    else:
        _java_file(reader, root)
    return reader.out


class _Reader:
    """The source bytes and the exports found so far."""

    def __init__(self, src: bytes) -> None:
        self.src = src
        self.out: list[Export] = []
        self._seen: set[Export] = set()

    def text(self, node: Node | None) -> str:
        if node is None:
            return ""
        return self.src[node.start_byte:node.end_byte].decode("utf-8", "replace")

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
            pieces.append(self.src[pos:comment.start_byte])
            pos = comment.end_byte
        pieces.append(self.src[pos:end])
        text = " ".join(b" ".join(pieces).decode("utf-8", "replace").split())
        text = text.rstrip("{;= ")
        if len(text) > _MAX_SIGNATURE:
            text = text[:_MAX_SIGNATURE - 1].rstrip() + "…"
        return text


def _start(node: Node) -> int:
    """Where `node` begins once leading annotations, decorators and comments are skipped."""
    for child in node.children:
        if child.type in _COMMENTS or child.type in _ANNOTATIONS:
            continue
        if child.type == "modifiers":  # Java keeps annotations among the modifiers
            for modifier in child.children:
                if modifier.type not in _COMMENTS and modifier.type not in _ANNOTATIONS:
                    return modifier.start_byte
            continue
        return child.start_byte
    return node.start_byte


def _comments(node: Node, start: int, end: int) -> Iterator[Node]:
    """The comments inside `node` that lie between the bytes `start` and `end`."""
    for child in node.children:
        if child.end_byte <= start or child.start_byte >= end:
            continue
        if child.type in _COMMENTS:
            if child.start_byte >= start and child.end_byte <= end:
                yield child
        else:
            yield from _comments(child, start, end)


def _field(node: Node, name: str) -> Node | None:
    return node.child_by_field_name(name)


def _top_level(root: Node) -> Iterator[Node]:
    """The statements of a file; those tree-sitter wrapped in an ERROR node too."""
    for child in root.named_children:
        if child.type == "ERROR":
            yield from _top_level(child)
        else:
            yield child


# --- JavaScript and TypeScript ------------------------------------------------------

_JS_FUNCTION_DECLS = frozenset({"function_declaration", "generator_function_declaration",
                                "function_signature"})
_JS_CLASS_DECLS = frozenset({"class_declaration", "abstract_class_declaration"})
_JS_FUNCTION_VALUES = frozenset({"function_expression", "function", "arrow_function",
                                 "generator_function"})
_TS_KINDS = {"interface_declaration": "interface", "type_alias_declaration": "type",
             "enum_declaration": "enum", "internal_module": "namespace"}


@dataclass(frozen=True)
class _Decl:
    kind: str
    signature: str
    members: Node | None  # a class or interface body, a namespace's statements


def _js_declarations(r: _Reader, node: Node) -> list[tuple[str, _Decl]]:
    """The (name, declaration) pairs a declaration statement introduces."""
    if node.type == "ambient_declaration":  # `declare function f(): void;`
        return [d for child in node.named_children for d in _js_declarations(r, child)]
    name = r.text(_field(node, "name"))
    body = _field(node, "body")
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
            names = _js_pattern_names(r, _field(declarator, "name"))
            value = _field(declarator, "value")
            if value is not None and len(names) == 1 and (
                    value.type in _JS_FUNCTION_VALUES or value.type == "class"):
                value_body = _field(value, "body")
                kind = "class" if value.type == "class" else "function"
                signature = f"{keyword} {r.header(declarator, value_body)}"
                out.append((names[0], _Decl(kind, signature, value_body
                                            if kind == "class" else None)))
                continue
            kind = "const" if keyword == "const" else "variable"
            signature = f"{keyword} {r.header(declarator, value)}"
            out += [(n, _Decl(kind, signature, None)) for n in names]
        return out
    if node.type == "import_alias":  # TS `export import A = NS.B;`
        names = [c for c in node.named_children if c.type == "identifier"]
        return [(r.text(names[0]), _Decl("alias", r.header(node), None))] if names else []
    return []


def _js_pattern_names(r: _Reader, pattern: Node | None) -> list[str]:
    """The names a binding pattern binds: `a`, `{ a, b: c }` -> a, c, `[x, ...y]`."""
    if pattern is None:
        return []
    if pattern.type in ("identifier", "shorthand_property_identifier_pattern"):
        return [r.text(pattern)]
    if pattern.type == "pair_pattern":
        return _js_pattern_names(r, _field(pattern, "value"))
    if pattern.type in ("assignment_pattern", "object_assignment_pattern"):
        return _js_pattern_names(r, _field(pattern, "left"))
    return [n for child in pattern.named_children for n in _js_pattern_names(r, child)]


def _js_value(r: _Reader, value: Node, header_of: Node,
              local: dict[str, list[_Decl]]) -> list[_Decl]:
    """What an exported expression is: a local name's declarations, a function, a class
    or a plain value (its signature `header_of` up to the value or the function body)."""
    if value.type == "identifier" and r.text(value) in local:
        return local[r.text(value)]
    if value.type in _JS_FUNCTION_VALUES:
        return [_Decl("function", r.header(header_of, _field(value, "body")), None)]
    if value.type == "class":
        body = _field(value, "body")
        return [_Decl("class", r.header(header_of, body), body)]
    if value.type == "identifier":
        return [_Decl("reexport", "", None)]
    signature = r.header(header_of, value).rstrip(":").rstrip() if header_of != value else ""
    return [_Decl("variable", signature, None)]


def _js_emit(r: _Reader, name: str, decls: list[_Decl]) -> None:
    for decl in decls:
        r.add(name, decl.kind, decl.signature)
        if decl.members is None:
            continue
        if decl.kind == "namespace":
            _js_program(r, decl.members, name + ".")
        else:
            _js_members(r, name, decl.members)


def _js_members(r: _Reader, owner: str, body: Node) -> None:
    """The public methods of a class body or an interface body."""
    for member in body.named_children:
        if member.type not in ("method_definition", "method_signature",
                               "abstract_method_signature"):
            continue
        name = r.text(_field(member, "name"))
        if not name or name.startswith(("#", "_")):
            continue
        if any(c.type == "accessibility_modifier" and r.text(c) in ("private", "protected")
               for c in member.children):
            continue
        kind = "constructor" if name == "constructor" else "method"
        r.add(f"{owner}.{name}", kind, r.header(member, _field(member, "body")))


def _js_local(r: _Reader, statements: list[Node]) -> dict[str, list[_Decl]]:
    """Every top-level declaration, exported or not: name -> its declarations."""
    local: dict[str, list[_Decl]] = {}
    for statement in statements:
        declaration = (_field(statement, "declaration")
                       if statement.type == "export_statement" else statement)
        if declaration is not None:
            for name, decl in _js_declarations(r, declaration):
                local.setdefault(name, []).append(decl)
    return local


def _js_program(r: _Reader, container: Node, prefix: str) -> None:
    statements = list(_top_level(container))
    local = _js_local(r, statements)
    for statement in statements:
        if statement.type == "export_statement":
            _js_export(r, statement, prefix, local)
        elif statement.type == "expression_statement" and not prefix:
            _commonjs(r, statement, local)


def _js_export(r: _Reader, statement: Node, prefix: str,
               local: dict[str, list[_Decl]]) -> None:
    declaration = _field(statement, "declaration")
    if declaration is not None:
        for name, decl in _js_declarations(r, declaration):
            _js_emit(r, prefix + name, [decl])
        return
    value = _field(statement, "value")
    if value is not None:  # `export default <expression>`
        name = r.text(value) if value.type == "identifier" else "default"
        _js_emit(r, prefix + name, _js_value(r, value, value, local))
        return
    source = _field(statement, "source")
    for child in statement.named_children:
        if child.type == "export_clause":
            for spec in child.named_children:
                if spec.type != "export_specifier":
                    continue
                inner = r.text(_field(spec, "name"))
                exported = r.text(_field(spec, "alias")) or inner
                decls = local.get(inner) if source is None else None
                _js_emit(r, prefix + exported, decls or [_Decl("reexport", "", None)])
        elif child.type == "namespace_export":  # `export * as ns from "./m"`
            names = [c for c in child.named_children if c.type == "identifier"]
            if names:
                r.add(prefix + r.text(names[0]), "reexport", "")
        elif child.type == "identifier" and source is None:  # TS `export = name;`
            _js_emit(r, prefix + r.text(child), _js_value(r, child, child, local))


def _is_module_exports(r: _Reader, node: Node | None) -> bool:
    return (node is not None and node.type == "member_expression"
            and r.text(_field(node, "object")) == "module"
            and r.text(_field(node, "property")) == "exports")


def _commonjs(r: _Reader, statement: Node, local: dict[str, list[_Decl]]) -> None:
    """`module.exports = {...}` / `= name`, `module.exports.a = ...`, `exports.a = ...`."""
    assignment = statement.named_children[0] if statement.named_children else None
    if assignment is None or assignment.type != "assignment_expression":
        return
    left, right = _field(assignment, "left"), _field(assignment, "right")
    if left is None or right is None or left.type != "member_expression":
        return
    if _is_module_exports(r, left):
        if right.type == "object":
            for prop in right.named_children:
                if prop.type == "shorthand_property_identifier":
                    name = r.text(prop)
                    _js_emit(r, name, local.get(name) or [_Decl("reexport", "", None)])
                elif prop.type == "pair":
                    key, value = _field(prop, "key"), _field(prop, "value")
                    if key is not None and value is not None and key.type in (
                            "property_identifier", "identifier"):
                        _js_emit(r, r.text(key), _js_value(r, value, prop, local))
                elif prop.type == "method_definition":
                    r.add(r.text(_field(prop, "name")), "function",
                          r.header(prop, _field(prop, "body")))
        else:
            own = _field(right, "name")
            name = r.text(right) if right.type == "identifier" else r.text(own) or "default"
            _js_emit(r, name, _js_value(r, right, assignment, local))
        return
    target = _field(left, "object")
    if _is_module_exports(r, target) or (target is not None and target.type == "identifier"
                                         and r.text(target) == "exports"):
        prop = _field(left, "property")
        if prop is not None and prop.type == "property_identifier":
            _js_emit(r, r.text(prop), _js_value(r, right, assignment, local))


# --- Go ---------------------------------------------------------------------------


def _go_exported(name: str) -> bool:
    return bool(name) and name[0].isupper()


def _go_receiver(r: _Reader, method: Node) -> str:
    """The receiver's type name: `(a *Account)` and `(l *List[T])` -> Account, List."""
    receiver = _field(method, "receiver")
    params = [p for p in receiver.named_children
              if p.type == "parameter_declaration"] if receiver else []
    node = _field(params[0], "type") if params else None
    while node is not None and node.type in ("pointer_type", "generic_type",
                                             "parenthesized_type"):
        node = (_field(node, "type") if node.type == "generic_type"
                else node.named_children[0] if node.named_children else None)
    return r.text(node) if node is not None and node.type == "type_identifier" else ""


def _go_file(r: _Reader, root: Node) -> None:
    for node in _top_level(root):
        if node.type == "function_declaration":
            name = r.text(_field(node, "name"))
            if _go_exported(name):
                r.add(name, "function", r.header(node, _field(node, "body")))
        elif node.type == "method_declaration":
            name, owner = r.text(_field(node, "name")), _go_receiver(r, node)
            if _go_exported(name) and _go_exported(owner):
                r.add(f"{owner}.{name}", "method", r.header(node, _field(node, "body")))
        elif node.type == "type_declaration":
            for spec in node.named_children:
                if spec.type in ("type_spec", "type_alias"):
                    _go_type(r, spec)
        elif node.type in ("const_declaration", "var_declaration"):
            keyword = "const" if node.type == "const_declaration" else "var"
            _go_values(r, node, keyword)


def _go_type(r: _Reader, spec: Node) -> None:
    name = r.text(_field(spec, "name"))
    if not _go_exported(name):
        return
    shape = _field(spec, "type")
    kind, stop = "type", None
    if shape is not None and shape.type == "struct_type":
        kind = "struct"
        stop = next((c for c in shape.children if c.type == "field_declaration_list"), None)
    elif shape is not None and shape.type == "interface_type":
        kind = "interface"
        stop = next((c for c in shape.children if c.type == "{"), None)
    r.add(name, kind, "type " + r.header(spec, stop))
    if kind == "interface":
        for elem in shape.named_children:
            method = r.text(_field(elem, "name"))
            if elem.type == "method_elem" and _go_exported(method):
                r.add(f"{name}.{method}", "method", r.header(elem))


def _go_values(r: _Reader, node: Node, keyword: str) -> None:
    for spec in node.named_children:
        if spec.type in ("var_spec_list", "const_spec_list"):
            _go_values(r, spec, keyword)
            continue
        if spec.type not in ("const_spec", "var_spec"):
            continue
        shape = _field(spec, "type")
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

_RUST_KINDS = {"function_item": "function", "struct_item": "struct", "enum_item": "enum",
               "union_item": "union", "trait_item": "trait", "const_item": "const",
               "static_item": "static", "type_item": "type", "mod_item": "module"}


def _rust_pub(r: _Reader, item: Node) -> bool:
    return any(c.type == "visibility_modifier" and r.text(c) == "pub" for c in item.children)


def _rust_signature(r: _Reader, item: Node) -> str:
    if item.type in ("const_item", "static_item"):
        return r.header(item, _field(item, "value"))
    return r.header(item, _field(item, "body"))


def _rust_impl_type(r: _Reader, impl: Node) -> str:
    node = _field(impl, "type")
    if node is not None and node.type == "generic_type":
        node = _field(node, "type")
    return r.text(node) if node is not None and node.type == "type_identifier" else ""


def _rust_items(r: _Reader, container: Node, prefix: str) -> None:
    items = list(_top_level(container))
    private_types = {r.text(_field(i, "name")) for i in items
                     if i.type in ("struct_item", "enum_item", "union_item", "type_item")
                     and not _rust_pub(r, i)}
    previous: Node | None = None
    for item in items:
        if item.type in _RUST_KINDS and _rust_pub(r, item):
            name = prefix + r.text(_field(item, "name"))
            r.add(name, _RUST_KINDS[item.type], _rust_signature(r, item))
            body = _field(item, "body")
            if item.type == "trait_item" and body is not None:
                for member in body.named_children:
                    if member.type in ("function_item", "function_signature_item"):
                        r.add(f"{name}.{r.text(_field(member, 'name'))}", "method",
                              _rust_signature(r, member))
            elif item.type == "mod_item" and body is not None:
                _rust_items(r, body, name + ".")
        elif item.type == "impl_item" and _field(item, "trait") is None:
            owner = _rust_impl_type(r, item)
            body = _field(item, "body")
            if owner and owner not in private_types and body is not None:
                for member in body.named_children:
                    if member.type in ("function_item", "const_item") and _rust_pub(r, member):
                        kind = "method" if member.type == "function_item" else "const"
                        r.add(f"{prefix}{owner}.{r.text(_field(member, 'name'))}", kind,
                              _rust_signature(r, member))
        elif item.type == "use_declaration" and _rust_pub(r, item):
            for name in _rust_use_names(r, _field(item, "argument")):
                r.add(prefix + name, "reexport", "")
        elif (item.type == "macro_definition" and previous is not None
              and previous.type == "attribute_item"
              and "macro_export" in r.text(previous)):
            rules = [c for c in item.named_children if c.type == "macro_rule"]
            r.add(prefix + r.text(_field(item, "name")), "macro",
                  r.header(item, rules[0] if rules else None))
        if item.type not in _COMMENTS:
            previous = item


def _rust_use_names(r: _Reader, tree: Node | None) -> list[str]:
    """The names a `use` tree brings in: `a::B` -> B, `a::{B, c::D as E}` -> B, E."""
    if tree is None:
        return []
    if tree.type in ("identifier", "type_identifier"):
        return [r.text(tree)]
    if tree.type == "scoped_identifier":
        return [r.text(_field(tree, "name"))]
    if tree.type == "use_as_clause":
        return [r.text(_field(tree, "alias"))]
    if tree.type == "scoped_use_list":
        return _rust_use_names(r, _field(tree, "list"))
    if tree.type == "use_list":
        return [n for child in tree.named_children for n in _rust_use_names(r, child)]
    return []  # `use a::*;` names nothing


# --- Java -------------------------------------------------------------------------

_JAVA_TYPES = {"class_declaration": "class", "interface_declaration": "interface",
               "enum_declaration": "enum", "record_declaration": "record",
               "annotation_type_declaration": "annotation"}
_JAVA_IMPLICITLY_PUBLIC = frozenset({"interface", "annotation"})


def _java_modifiers(node: Node) -> set[str]:
    for child in node.children:
        if child.type == "modifiers":
            return {m.type for m in child.children if not m.is_named}
    return set()


def _java_file(r: _Reader, root: Node) -> None:
    for node in _top_level(root):
        if node.type in _JAVA_TYPES and "public" in _java_modifiers(node):
            _java_type(r, node, "")


def _java_type(r: _Reader, node: Node, prefix: str) -> None:
    kind = _JAVA_TYPES[node.type]
    name = prefix + r.text(_field(node, "name"))
    body = _field(node, "body")
    r.add(name, kind, r.header(node, body))
    if body is None:
        return
    members = list(body.named_children)
    for child in list(members):  # an enum's methods follow its constants
        if child.type == "enum_body_declarations":
            members += child.named_children
    for member in members:
        modifiers = _java_modifiers(member)
        public = ("private" not in modifiers if kind in _JAVA_IMPLICITLY_PUBLIC
                  else "public" in modifiers)
        if not public:
            continue
        if member.type in _JAVA_TYPES:
            _java_type(r, member, name + ".")
        elif member.type in ("method_declaration", "annotation_type_element_declaration"):
            r.add(f"{name}.{r.text(_field(member, 'name'))}", "method",
                  r.header(member, _field(member, "body")))
        elif member.type in ("constructor_declaration", "compact_constructor_declaration"):
            r.add(f"{name}.{r.text(_field(member, 'name'))}", "constructor",
                  r.header(member, _field(member, "body")))
