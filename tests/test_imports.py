"""No module of `batch` imports itself round a circle, at module level or inside a
function: every import of a `batch` module counts (a lazy import hides a cycle from
Python, not from the reader). `python tests/test_imports.py` prints the graph's cycles,
for `make lint`."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "batch"


def import_graph(package: Path) -> dict[str, set[str]]:
    """Each module of `package` -> the modules of it that it imports."""
    modules = {}
    for path in package.rglob("*.py"):
        parts = path.relative_to(package.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        modules[name] = path
    graph: dict[str, set[str]] = {name: set() for name in modules}
    for name, path in modules.items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                targets = [node.module, *(f"{node.module}.{a.name}" for a in node.names)]
            elif isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            else:
                continue
            graph[name].update(t for t in targets if t in modules and t != name)
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return sorted(found)


def test_no_module_of_batch_imports_itself_round_a_circle():
    assert cycles(import_graph(PACKAGE)) == []


def test_a_circle_is_found_also_through_an_import_inside_a_function(tmp_path):
    package = tmp_path / "batch"
    (package / "sub").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "sub" / "__init__.py").write_text("")
    (package / "a.py").write_text("from batch.sub import b\n")
    (package / "sub" / "b.py").write_text("import batch.c\n")
    (package / "c.py").write_text("def f():\n    from batch.a import x\n")
    (package / "d.py").write_text("from batch import a\n")  # into the circle, not of it
    assert cycles(import_graph(package)) == [["batch.a", "batch.c", "batch.sub.b"]]


if __name__ == "__main__":
    found = cycles(import_graph(PACKAGE))
    for component in found:
        print("import cycle: " + " -> ".join(component), file=sys.stderr)
    sys.exit(1 if found else 0)
