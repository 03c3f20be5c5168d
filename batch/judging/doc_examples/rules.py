"""What a doc's example may do before it is run: call the module, nothing else.

Examples are model-written code, and the verdict on a doc rests on what running them
gives. Code that can reach the process it runs in can forge that verdict (patch
doctest, register an exit hook that prints a report, end the process early) or read
the machine (open a file, use a module the source imported). So an example is read
before it runs, and runs only when every name it uses is one of:

- a name the source defines at its top level (function, class, constant), or the
  module's own name, with attributes that do not start with "_";
- a name the example binds itself (assignment, loop, comprehension, lambda);
- a builtin other than the ones that reach outside the example (open, exec, eval,
  compile, __import__, globals, locals, vars, getattr, setattr, delattr, input,
  breakpoint, exit, quit, help, memoryview);
- a module of PURE_MODULES the example imports (decimal, fractions, datetime, math...),
  or the module itself.

Anything else (import os, a dunder, a name the source only imported) refuses the
example with the reason; it is never run. This is what the examples may do, not a
sandbox: the sandbox (batch.judging.doc_examples.sandbox) still bounds what the module's
own code can do.
"""

from __future__ import annotations

import ast
import builtins
import doctest

PURE_MODULES = frozenset({
    "math", "cmath", "decimal", "fractions", "statistics", "datetime", "collections",
    "itertools", "functools", "operator", "string", "textwrap", "re", "enum",
    "dataclasses", "typing", "json", "random", "numbers", "heapq", "bisect", "array",
    "copy", "pprint", "calendar", "zoneinfo", "uuid", "unicodedata",
})
BLOCKED_BUILTINS = frozenset({
    "open", "exec", "eval", "compile", "__import__", "globals", "locals", "vars",
    "getattr", "setattr", "delattr", "input", "breakpoint", "exit", "quit", "help",
    "memoryview", "__build_class__", "__loader__", "__spec__",
})
SAFE_BUILTINS = frozenset(n for n in dir(builtins) if not n.startswith("_")) - BLOCKED_BUILTINS


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
            if isinstance(node, ast.Import | ast.ImportFrom):
                names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                         else [node.module or ""])
                for name in names:
                    root = name.split(".")[0]
                    if getattr(node, "level", 0) or (root not in PURE_MODULES
                                                     and root != self.module):
                        return f"it imports {name or 'a relative module'}"
            elif isinstance(node, ast.Attribute) and node.attr.startswith("_"):
                return f"it uses the private attribute .{node.attr}"
            elif isinstance(node, ast.Global | ast.Nonlocal):
                return "it declares a global name"
        bound |= _bound_by(tree)
        allowed = self.defined | bound | SAFE_BUILTINS | {self.module}
        for node in ast.walk(tree):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
                if node.id.startswith("_") and node.id != "_":
                    return f"it uses {node.id}"
                if node.id not in allowed:
                    return (f"it uses {node.id}, which is not a name the module defines"
                            if node.id not in BLOCKED_BUILTINS else f"it calls {node.id}")
            elif (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
                  and node.value.id == self.module and node.value.id not in bound
                  and node.attr not in self.defined):
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
