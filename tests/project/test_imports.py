"""No module of `batch` imports itself round a circle, at module level or inside a
function: every import of a `batch` module counts (a lazy import hides a cycle from
Python, not from the reader). And the rooms are layers: a room imports only the rooms
below it (LAYERS), but for the exceptions named with their reason. `python
tests/project/test_imports.py` prints every cycle and every upward import, for `make lint`."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "batch"


def imported_names(tree: ast.AST, module: str, is_package: bool) -> set[str]:
    """Every module name `module` imports: absolute, relative (resolved against its
    package) and `importlib.import_module("...")` with a literal name."""
    package = module if is_package else module.rpartition(".")[0]
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                up = parts[: len(parts) - (node.level - 1)] if node.level > 1 else parts
                base = ".".join([*up, base] if base else up)
            if base:
                names.update([base, *(f"{base}.{a.name}" for a in node.names)])
        elif isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
        elif (
            isinstance(node, ast.Call)
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
            and ast.unparse(node.func) in ("importlib.import_module", "import_module", "__import__")
        ):
            names.add(node.args[0].value)
    return names


def import_graph(package: Path) -> dict[str, set[str]]:
    """Each module of `package` -> the modules of it that it imports."""
    modules = {}
    for path in package.rglob("*.py"):
        parts = path.relative_to(package.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        modules[name] = path
    graph: dict[str, set[str]] = {name: set() for name in modules}
    for name, path in modules.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        targets = imported_names(tree, name, path.name == "__init__.py")
        graph[name].update(t for t in targets if t in modules and t != name)
    return graph


def room_graph(graph: dict[str, set[str]]) -> dict[str, set[str]]:
    """Each room (a folder or a top-level module of the package) -> the rooms it
    imports: a loop between two folders is a cycle even when no module is on it twice."""
    rooms: dict[str, set[str]] = {}
    for module, targets in graph.items():
        mine = room_of(module)
        if mine:
            rooms.setdefault(mine, set()).update(
                room_of(t) for t in targets if room_of(t) not in ("", mine)
            )
    for targets in list(rooms.values()):
        for room in targets:
            rooms.setdefault(room, set())
    return rooms


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


# The rooms of `batch`, top to bottom (docs/architecture.md): each may import the rooms
# of the layers below its own, and nothing above or beside it.
LAYERS: list[list[str]] = [
    ["__main__"],
    ["cli"],
    ["nightly"],
    ["cluster"],
    ["review"],
    ["run"],
    ["sheets"],
    ["loop"],
    ["store"],
    ["prompting"],
    ["inputs", "models"],
    ["judging", "retrying"],
    [
        "config",
        "state",
        "decision",
        "output",
        "prompts",
        "placeholders",
        "draft_cleanup",
    ],
    ["check_types", "errors", "files", "outcomes", "source_files", "thread_inputs"],
    ["reading"],
]
# (importer, imported): the imports allowed to run up a layer, each with its reason.
# None: what a low room needs from a high one is handed down to it (Runner's resumer).
UPWARD_ALLOWED: set[tuple[str, str]] = set()


def room_of(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def layer_violations(
    graph: dict[str, set[str]], layers: list[list[str]], allowed: set[tuple[str, str]] = frozenset()
) -> list[str]:
    """Every import of a room at its own layer or above, and every module in no room
    of `layers`."""
    level = {room: i for i, rooms in enumerate(layers) for room in rooms}
    out = []
    for module, targets in sorted(graph.items()):
        mine = room_of(module)
        if not mine:
            continue  # the package itself
        if mine not in level:
            out.append(f"{module} is in no layer")
            continue
        wrong: dict[str, str] = {}  # room -> the module of it imported, named once
        for target in sorted(targets, key=len):
            theirs = room_of(target)
            if theirs in ("", mine) or (module, target) in allowed:
                continue
            if theirs not in level or level[theirs] <= level[mine]:
                wrong[theirs] = target
        out += [f"{module} -> {target}" for target in sorted(wrong.values())]
    return out


def test_every_room_imports_only_the_layers_below_it():
    assert layer_violations(import_graph(PACKAGE), LAYERS, UPWARD_ALLOWED) == []


def test_an_import_up_a_layer_or_beside_it_is_found(tmp_path):
    package = tmp_path / "batch"
    for room in ("top", "low", "side"):
        (package / room).mkdir(parents=True)
        (package / room / "__init__.py").write_text("")
    (package / "__init__.py").write_text("")
    (package / "top" / "a.py").write_text("from batch.low import b\n")  # down: fine
    (package / "low" / "b.py").write_text("def f():\n    import batch.top.a\n")  # up
    (package / "low" / "c.py").write_text("from batch.side import d\n")  # beside
    (package / "side" / "d.py").write_text("")
    (package / "stray.py").write_text("")
    layers = [["top"], ["low", "side"]]
    assert layer_violations(import_graph(package), layers) == [
        "batch.low.b -> batch.top.a",
        "batch.low.c -> batch.side.d",
        "batch.stray is in no layer",
    ]
    assert layer_violations(import_graph(package), layers, {("batch.low.b", "batch.top.a")}) == [
        "batch.low.c -> batch.side.d",
        "batch.stray is in no layer",
    ]


def test_no_module_of_batch_imports_itself_round_a_circle():
    assert cycles(import_graph(PACKAGE)) == []


def test_no_room_of_batch_imports_itself_round_a_circle():
    assert cycles(room_graph(import_graph(PACKAGE))) == []


def test_a_circle_between_rooms_is_found_with_no_module_on_it_twice(tmp_path):
    package = tmp_path / "batch"
    for room in ("a", "b"):
        (package / room).mkdir(parents=True)
        (package / room / "__init__.py").write_text("")
    (package / "__init__.py").write_text("")
    (package / "a" / "one.py").write_text("from batch.b import two\n")
    (package / "b" / "two.py").write_text("")
    (package / "b" / "three.py").write_text("from batch.a import four\n")
    (package / "a" / "four.py").write_text("")
    graph = import_graph(package)
    assert cycles(graph) == []
    assert cycles(room_graph(graph)) == [["a", "b"]]


@pytest.mark.parametrize(
    "line",
    [
        "from ..top import a\n",
        "from ..top.a import f\n",
        "from .. import top\n",
        "import importlib\nimportlib.import_module('batch.top.a')\n",
        "from importlib import import_module\ndef f():\n    import_module('batch.top.a')\n",
    ],
)
def test_a_relative_or_importlib_import_up_a_layer_is_found(tmp_path, line):
    package = tmp_path / "batch"
    for room in ("top", "low"):
        (package / room).mkdir(parents=True)
        (package / room / "__init__.py").write_text("")
    (package / "__init__.py").write_text("")
    (package / "top" / "a.py").write_text("def f():\n    pass\n")
    (package / "low" / "b.py").write_text(line)
    found = layer_violations(import_graph(package), [["top"], ["low"]])
    assert len(found) == 1 and found[0].startswith("batch.low.b -> batch.top")


def test_a_relative_import_in_batch_fails_lint():
    """Relative imports are refused outright (ruff TID252), so the graph above is the
    absolute one the reader sees."""
    config = (PACKAGE.parent / "pyproject.toml").read_text(encoding="utf-8")
    assert '"TID"' in config and 'ban-relative-imports = "all"' in config


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
    graph = import_graph(PACKAGE)
    found = cycles(graph)
    for component in found:
        print("import cycle: " + " -> ".join(component), file=sys.stderr)
    for component in cycles(room_graph(graph)):
        print("import cycle between rooms: " + " -> ".join(component), file=sys.stderr)
        found.append(component)
    upward = layer_violations(graph, LAYERS, UPWARD_ALLOWED)
    for line in upward:
        print(
            f"import against the layers (tests/project/test_imports.py LAYERS): {line}",
            file=sys.stderr,
        )
    sys.exit(1 if found or upward else 0)
