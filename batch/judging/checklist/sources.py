"""The checklist of a source file, and `build_checklist`, which gives a brief's or a
source file's by the brief's kind.

A source file's checklist is its public API: for a Python file, from its AST, every
public function, class and method and the exceptions each raises itself
(`source_checklist`); for a file in another language, every exported name its
tree-sitter parser finds (`exports_checklist`, batch.judging.exports).
"""

from __future__ import annotations

import ast

from batch.check_types import Requirement
from batch.judging.checklist.reading import brief_checklist
from batch.judging.exports import exported_names
from batch.source_files import is_python, suffix_of
from batch.thread_inputs import ThreadBrief


def source_checklist(source: str) -> list[Requirement]:
    """Every public function, class and method of a Python file, from its AST."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return []
    out: list[Requirement] = []
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            if node.name.startswith("_"):
                continue
            kind = "class" if isinstance(node, ast.ClassDef) else "function"
            out.append(_api(len(out), f"{kind} {node.name}", node.name))
            out += _raises(len(out), node.name, node)
            if isinstance(node, ast.ClassDef):
                for sub in node.body:
                    if isinstance(sub, ast.FunctionDef | ast.AsyncFunctionDef) and (
                        not sub.name.startswith("_") or sub.name == "__init__"
                    ):
                        if sub.name != "__init__":
                            out.append(_api(len(out), f"method {node.name}.{sub.name}", sub.name))
                        owner = node.name if sub.name == "__init__" else f"{node.name}.{sub.name}"
                        out += _raises(len(out), owner, sub)
    return out


def _raises(index: int, owner: str, node: ast.AST) -> list[Requirement]:
    """The exceptions a function raises itself (`raise ValueError(...)`), by name; not
    those of nested functions or classes, and not a bare re-raise."""
    names: list[str] = []
    body = node.body if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) else []
    stack: list[ast.AST] = list(body)
    while stack:
        n = stack.pop()
        if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef | ast.Lambda):
            continue
        if isinstance(n, ast.Raise) and n.exc is not None:
            target = n.exc.func if isinstance(n.exc, ast.Call) else n.exc
            name = (
                target.id
                if isinstance(target, ast.Name)
                else (target.attr if isinstance(target, ast.Attribute) else None)
            )
            if name and name not in names:
                names.append(name)
        stack.extend(ast.iter_child_nodes(n))
    return [
        Requirement(
            id=f"R{index + i + 1}",
            kind="raises",
            text=f"{owner} raises {name}",
            terms=[name],
            numbers=[],
            subject=name,
        )
        for i, name in enumerate(names)
    ]


def _api(index: int, text: str, name: str) -> Requirement:
    return Requirement(
        id=f"R{index + 1}", kind="api", text=text, terms=[name], numbers=[], subject=name
    )


def exports_checklist(source: str, suffix: str) -> list[Requirement]:
    """Every exported name of a file in another language, through its tree-sitter
    parser ([] when there is none for the language: see batch.judging.exports)."""
    found = exported_names(source, suffix) or []
    out: list[Requirement] = []
    seen: set[str] = set()
    for export in found:
        if export.name in seen or export.kind == "reexport":
            continue
        seen.add(export.name)
        out.append(_api(len(out), f"{export.kind} {export.name}", export.name.split(".")[-1]))
    return out


def build_checklist(brief: ThreadBrief) -> list[Requirement]:
    if brief.kind == "source":
        name = brief.origin_name
        if is_python(name) or not name:
            return source_checklist(brief.source_text)
        return exports_checklist(brief.source_text, suffix_of(name))
    return brief_checklist(brief.text)
