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
from typing import Any

from batch.judging.exports.go import go_file
from batch.judging.exports.java import java_file
from batch.judging.exports.javascript import js_program
from batch.judging.exports.names import Export
from batch.judging.exports.reader import Reader
from batch.judging.exports.rust import rust_items

__all__ = ["LANGUAGES", "Export", "coverage_problem", "exported_names"]


LANGUAGES: dict[str, str] = {
    ".js": "javascript",
    ".mjs": "javascript",
    ".cjs": "javascript",
    ".jsx": "javascript",
    ".ts": "typescript",
    ".mts": "typescript",
    ".cts": "typescript",
    ".tsx": "typescript",
    ".go": "go",
    ".rs": "rust",
    ".java": "java",
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
        language = tree_sitter.Language(getattr(importlib.import_module(module_name), function)())
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
    reader = Reader(src)
    root = parser.parse(src).root_node
    if grammar in ("javascript", "typescript", "tsx"):
        js_program(reader, root, "")
    elif grammar == "go":
        go_file(reader, root)
    elif grammar == "rust":
        rust_items(reader, root, "")
    else:
        java_file(reader, root)
    return reader.out
