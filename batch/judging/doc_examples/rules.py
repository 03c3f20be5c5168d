"""What a doc's example may do before it is run: call the module, nothing else.

Examples are model-written code, and the verdict on a doc rests on what running them
gives. Code that can reach the process it runs in can forge that verdict (patch
json.dumps, register an exit hook that prints a report, end the process early) or read
the machine. Any module leads to the others (`typing.sys`, `dataclasses.builtins`), so
the rules are an allowlist, read before anything runs. An example may use:

- a name the source defines at its top level (function, class, constant), or the
  module's own name with such a name after it (`calc.add`);
- a name the example binds itself (assignment, loop, comprehension, lambda argument);
- a builtin of ALLOWED_BUILTINS: pure functions on values (len, sorted, round, ...),
  the built-in types and the exceptions;
- `import <the module>` or `from <the module> import <its names>`, and nothing else.

And it may not: import anything else, define a function or a class, assign to or
delete an attribute, use a name or an attribute that starts with "_", or an attribute
of a frame, a code object, a generator or a traceback (`gi_frame`, `f_back`,
`tb_frame`), which lead back into the harness. Anything else refuses the example with
the reason; it is never run. The sandbox (batch.judging.doc_examples.sandbox) still
bounds what the module's own code can do, and the harness signs its report with a key
the examples never see, so a report they print is not taken.
"""

from __future__ import annotations

import ast
import builtins
import doctest
import re

ALLOWED_BUILTINS = frozenset(
    {
        "abs",
        "all",
        "any",
        "ascii",
        "bin",
        "bool",
        "bytearray",
        "bytes",
        "callable",
        "chr",
        "complex",
        "dict",
        "divmod",
        "enumerate",
        "filter",
        "float",
        "format",
        "frozenset",
        "hash",
        "hex",
        "int",
        "isinstance",
        "issubclass",
        "iter",
        "len",
        "list",
        "map",
        "max",
        "min",
        "next",
        "oct",
        "ord",
        "pow",
        "print",
        "range",
        "repr",
        "reversed",
        "round",
        "set",
        "slice",
        "sorted",
        "str",
        "sum",
        "tuple",
        "zip",
        "Ellipsis",
        "NotImplemented",
    }
    | {
        n
        for n in dir(builtins)
        if isinstance(getattr(builtins, n), type)
        and issubclass(getattr(builtins, n), BaseException)
        and not n.startswith("_")
    }
)
# attributes of frames, code objects, generators, coroutines and tracebacks: from any
# of them the harness's own frame, and its locals, are a few steps away
_INTERNALS = re.compile(r"^(?:f|co|gi|cr|ag|tb)_")
_STATEMENTS = (
    ast.Expr,
    ast.Assign,
    ast.AugAssign,
    ast.AnnAssign,
    ast.For,
    ast.If,
    ast.While,
    ast.With,
    ast.Try,
    ast.Assert,
    ast.Pass,
    ast.Break,
    ast.Continue,
    ast.Delete,
    ast.Import,
    ast.ImportFrom,
)


def defined_names(source: str) -> set[str]:
    """Names the source defines at its top level (not those it imports)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return set()
    out: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            out.add(node.name)
        elif isinstance(node, ast.Assign | ast.AnnAssign | ast.AugAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                out |= {n.id for n in ast.walk(target) if isinstance(n, ast.Name)}
    return {n for n in out if not n.startswith("_")}


_WHAT = {
    ast.FunctionDef: "defines a function",
    ast.AsyncFunctionDef: "defines a function",
    ast.ClassDef: "defines a class",
    ast.Global: "declares a global name",
    ast.Nonlocal: "declares a global name",
    ast.Raise: "raises an exception itself",
}


def _bound_by(tree: ast.AST) -> set[str]:
    """Names an example binds itself: stored names, arguments, imports it may make."""
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store | ast.Del):
            out.add(node.id)
        elif isinstance(node, ast.arg):
            out.add(node.arg)
        elif isinstance(node, ast.alias):
            out.add((node.asname or node.name).split(".")[0])
    return out


class Rules:
    """The names the examples of one module may use."""

    def __init__(self, source: str, module: str):
        self.module = module
        self.defined = defined_names(source)

    def problem(self, code: str, bound: set[str] | None = None) -> str | None:
        """Why this example code may not run, or None. `bound`: names the earlier
        statements of the same example bound (updated with this one's)."""
        try:
            tree = ast.parse(code)
        except SyntaxError:
            return None  # it cannot run at all: doctest reports that as its result
        bound = set() if bound is None else bound
        for node in ast.walk(tree):
            if isinstance(node, ast.stmt) and not isinstance(node, _STATEMENTS):
                return f"it {_WHAT.get(type(node), 'has a ' + type(node).__name__)}"
            if isinstance(node, ast.Import | ast.ImportFrom):
                refused = self._import_problem(node)
                if refused:
                    return refused
            elif isinstance(node, ast.Attribute):
                refused = self._attribute_problem(node, bound)
                if refused:
                    return refused
            elif isinstance(node, ast.Await | ast.Yield | ast.YieldFrom):
                return "it awaits or yields"
        bound |= _bound_by(tree)
        allowed = self.defined | bound | ALLOWED_BUILTINS | {self.module}
        for node in ast.walk(tree):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
                if node.id.startswith("_") and node.id != "_":
                    return f"it uses {node.id}"
                if node.id not in allowed:
                    return (
                        f"it calls {node.id}"
                        if hasattr(builtins, node.id)
                        else f"it uses {node.id}, which is not a name the module defines"
                    )
        return None

    def _import_problem(self, node: ast.Import | ast.ImportFrom) -> str | None:
        if isinstance(node, ast.ImportFrom):
            if node.level or node.module != self.module:
                return f"it imports {node.module or 'a relative module'}"
            wrong = [a.name for a in node.names if a.name not in self.defined]
            return f"it imports {wrong[0]} from {self.module}" if wrong else None
        for alias in node.names:
            if alias.name != self.module:
                return f"it imports {alias.name}"
        return None

    def _attribute_problem(self, node: ast.Attribute, bound: set[str]) -> str | None:
        if isinstance(node.ctx, ast.Store | ast.Del):
            return f"it assigns to the attribute .{node.attr}"
        if node.attr.startswith("_"):
            return f"it uses the private attribute .{node.attr}"
        if _INTERNALS.match(node.attr):
            return f"it uses .{node.attr}, which reaches into the interpreter"
        if (
            isinstance(node.value, ast.Name)
            and node.value.id == self.module
            and self.module not in bound
            and node.attr not in self.defined
        ):
            return f"it uses {self.module}.{node.attr}, which the module does not define"
        return None

    def doctest_problem(self, text: str) -> tuple[str, str] | None:
        """(the statement, why it may not run) for the first statement of a
        doctest-style example that may not, or None."""
        try:
            parsed = doctest.DocTestParser().get_examples(text)
        except ValueError:
            return None  # malformed: the harness reports it as not a valid example
        bound: set[str] = set()
        for example in parsed:
            problem = self.problem(example.source, bound)
            if problem is not None:
                return example.source.strip(), problem
        return None
