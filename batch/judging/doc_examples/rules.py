"""What a doc's example may do before it is run: call the module, nothing else.

These rules keep a doc's examples plain: what a reader can copy and run. They are not
what protects the verdict. That is the process boundary (batch.judging.doc_examples.
running): each example runs in fresh interpreters that are never told the results the
doc shows and hold nothing of the verdict, so whatever an example's code does, it can
change only what its own statements print. An example may use:

- a name the source defines at its top level (function, class, constant), or the
  module's own name with such a name after it (`calc.add`);
- a name the example binds itself (assignment, loop, comprehension, lambda argument),
  when it is not one of the module's names nor a builtin's it may not call;
- a builtin of ALLOWED_BUILTINS: pure functions on values (len, sorted, round, ...),
  the built-in types and the exceptions;
- `import <the module>` or `from <the module> import <its names>`, under their own
  names, and nothing else.

And it may not: import anything else, define a function or a class, rebind a name of
the module (`add = lambda a, b: 7`), use the module itself as a value (`x = calc`, then
`x.os`), assign to or delete an attribute, use a name or an attribute that starts with
"_", an attribute of a frame, a code object, a generator or a traceback (`gi_frame`,
`f_back`, `tb_frame`), or `.format` / `.format_map`, which read attributes by names
held as text (unless the module's classes define a method of that name and it is
called on an object one of them has just made: `Money(5).format()`). Anything else
refuses the example with the reason; it is never run. The sandbox
(batch.judging.doc_examples.sandbox) bounds what any code run there can do to the
machine.
"""

from __future__ import annotations

import ast
import builtins
import doctest
import re
import string

from batch.judging.doc_examples.reading import parsed

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
# builtins an example may give another meaning (`id = ...`, `sum = ...`): a binding of
# one that never runs leaves a builtin it may call anyway. Any other builtin's name
# (eval, open, getattr, vars) bound, even where the binding never runs, would make that
# builtin usable past the rule that refuses it.
SHADOWABLE = ALLOWED_BUILTINS | {"id", "input"}
# attributes of frames, code objects, generators, coroutines and tracebacks: from any
# of them the harness's own frame, and its locals, are a few steps away
_INTERNALS = re.compile(r"^(?:f|co|gi|cr|ag|tb)_")
_FORMATTERS = frozenset({"format", "format_map"})
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


def top_level(source: str) -> list[ast.stmt]:
    """The statements at the top of a source; none when it does not parse."""
    try:
        return ast.parse(source).body
    except SyntaxError:
        return []


def defined_names(source: str) -> set[str]:
    """Names the source defines at its top level (not those it imports), also in the
    branches of a top-level `if` or `try` (a definition per platform or version)."""
    out: set[str] = set()
    pending = list(top_level(source))
    while pending:
        node = pending.pop()
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            out.add(node.name)
        elif isinstance(node, ast.Assign | ast.AnnAssign | ast.AugAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                out |= {n.id for n in ast.walk(target) if isinstance(n, ast.Name)}
        elif isinstance(node, ast.If):
            pending += node.body + node.orelse
        elif isinstance(node, ast.Try):
            pending += node.body + node.orelse + node.finalbody
            pending += [stmt for handler in node.handlers for stmt in handler.body]
    return {n for n in out if not n.startswith("_")}


_WHAT = {
    ast.FunctionDef: "defines a function",
    ast.AsyncFunctionDef: "defines a function",
    ast.ClassDef: "defines a class",
    ast.Global: "declares a global name",
    ast.Nonlocal: "declares a global name",
    ast.Raise: "raises an exception itself",
}


def class_methods(source: str) -> dict[str, set[str]]:
    """Each class the source defines at its top level -> the methods it defines."""
    return {
        n.name: {
            item.name for item in n.body if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef)
        }
        for n in top_level(source)
        if isinstance(n, ast.ClassDef)
    }


def _plain_template(node: ast.expr) -> bool:
    """A string written in the example whose fields name no attribute and no item
    (`'{} has {:.2f}'`): its .format reads nothing by name."""
    if not (isinstance(node, ast.Constant) and isinstance(node.value, str)):
        return False
    try:
        fields = [f for _, f, spec, _ in string.Formatter().parse(node.value) if f is not None]
        specs = [spec for _, f, spec, _ in string.Formatter().parse(node.value) if spec]
    except ValueError:
        return False
    return all("." not in f and "[" not in f for f in fields) and not any(
        "{" in spec for spec in specs
    )


def _stored(tree: ast.AST) -> list[str]:
    """Names an example's own code binds, imports aside: stored or deleted names,
    arguments of a lambda, the name of a caught exception."""
    out: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store | ast.Del):
            out.append(node.id)
        elif isinstance(node, ast.arg):
            out.append(node.arg)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            out.append(node.name)
    return out


def _bound_by(tree: ast.AST) -> set[str]:
    """Names an example binds itself: stored names, arguments, imports it may make."""
    out = set(_stored(tree))
    for node in ast.walk(tree):
        if isinstance(node, ast.alias):
            out.add((node.asname or node.name).split(".")[0])
    return out


class Rules:
    """The names the examples of one module may use."""

    def __init__(self, source: str, module: str):
        self.module = module
        self.defined = defined_names(source)
        self.classes = class_methods(source)

    def problem(self, code: str, bound: set[str] | None = None) -> str | None:
        """Why this example code may not run, or None. `bound`: names the earlier
        statements of the same example bound (updated with this one's)."""
        try:
            tree = ast.parse(code)
        except SyntaxError:
            return None  # it cannot run at all: doctest reports that as its result
        except (ValueError, MemoryError, RecursionError):
            return "it cannot be read (nested too deep, or a NUL in it)"
        bound = set() if bound is None else bound
        refused = self._rebinding_problem(tree)
        if refused:
            return refused
        for node in ast.walk(tree):
            if isinstance(node, ast.stmt) and not isinstance(node, _STATEMENTS):
                return f"it {_WHAT.get(type(node), 'has a ' + type(node).__name__)}"
            if isinstance(node, ast.Import | ast.ImportFrom):
                refused = self._import_problem(node)
                if refused:
                    return refused
            elif isinstance(node, ast.Attribute):
                refused = self._attribute_problem(node)
                if refused:
                    return refused
            elif isinstance(node, ast.Await | ast.Yield | ast.YieldFrom):
                return "it awaits or yields"
        refused = self._module_value_problem(tree)
        if refused:
            return refused
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

    def _rebinding_problem(self, tree: ast.AST) -> str | None:
        """A name of the module bound to something else: `add = lambda a, b: 7` makes
        every later `add(2, 3)` show what the example chose, not what the code gives.
        Nor a builtin's name: a binding the example never runs (`if False: open = 0`)
        would leave the name meaning the builtin, past the rule on builtins."""
        for name in _stored(tree):
            if name in self.defined or name == self.module:
                return f"it rebinds {name}, a name of the module"
            if hasattr(builtins, name) and name not in SHADOWABLE:
                return f"it binds {name}, the name of a builtin"
        return None

    def _module_value_problem(self, tree: ast.AST) -> str | None:
        """The module itself used as a value (`x = calc`, `[calc][0]`, `f(calc)`): under
        another name its imports (`x.os`) are one attribute away. It may only be read
        as `calc.<a name it defines>`."""
        allowed = {
            id(node.value)
            for node in ast.walk(tree)
            if isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.attr in self.defined
        }
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Name)
                and node.id == self.module
                and isinstance(node.ctx, ast.Load)
                and id(node) not in allowed
                and self.module not in self.defined
            ):
                return f"it uses the module {self.module} itself as a value"
        return None

    def _own_method(self, node: ast.expr, method: str) -> bool:
        """`node` is an object a class of the module has just made (`Money(5)`,
        `calc.Money(5)`), and that class itself defines `method`: it is the module's
        method, not str.format (a class of the module may be a str)."""
        if not isinstance(node, ast.Call):
            return False
        func = node.func
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
            name = func.attr if func.value.id == self.module else ""
        else:
            name = func.id if isinstance(func, ast.Name) else ""
        return method in self.classes.get(name, set())

    def _import_problem(self, node: ast.Import | ast.ImportFrom) -> str | None:
        renamed = [a for a in node.names if a.asname and a.asname != a.name]
        if isinstance(node, ast.ImportFrom):
            if node.level or node.module != self.module:
                return f"it imports {node.module or 'a relative module'}"
            wrong = [a.name for a in node.names if a.name not in self.defined | {"*"}]
            if wrong:
                return f"it imports {wrong[0]} from {self.module}"
        else:
            for alias in node.names:
                if alias.name != self.module:
                    return f"it imports {alias.name}"
        if renamed:
            return f"it imports {renamed[0].name} under another name ({renamed[0].asname})"
        return None

    def _attribute_problem(self, node: ast.Attribute) -> str | None:
        if isinstance(node.ctx, ast.Store | ast.Del):
            return f"it assigns to the attribute .{node.attr}"
        if node.attr.startswith("_"):
            return f"it uses the private attribute .{node.attr}"
        if _INTERNALS.match(node.attr):
            return f"it uses .{node.attr}, which reaches into the interpreter"
        if node.attr in _FORMATTERS and not (
            self._own_method(node.value, node.attr) or _plain_template(node.value)
        ):
            # "{0.__globals__}".format(add): a format string reads attributes by names
            # the example holds as text, where no rule can see them. A method of the
            # module's own called format is called on the module's own objects only.
            return f"it formats text with .{node.attr}, which reads attributes by name"
        if (
            isinstance(node.value, ast.Name)
            and node.value.id == self.module
            and self.module not in self.defined
            and node.attr not in self.defined
        ):
            return f"it uses {self.module}.{node.attr}, which the module does not define"
        return None

    def doctest_problem(self, text: str) -> tuple[str, str] | None:
        """(the statement, why it may not run) for the first statement of a
        doctest-style example that may not, or None."""
        try:
            statements = doctest.DocTestParser().get_examples(text)
        except ValueError:
            return None  # malformed: the harness reports it as not a valid example
        bound: set[str] = set()
        imported = self._imported(statements)
        for example in statements:
            problem = self.problem(example.source, bound) or self._unimported(
                example.source, imported, bound
            )
            if problem is not None:
                return example.source.strip(), problem
        return None

    def _imported(self, statements: list[doctest.Example]) -> set[str] | None:
        """The module's names an example that imports the module gives itself (`from
        calc import add`: add; `import calc`: none bare), or None when it imports
        nothing: then, as in doctest, every name of the module is there."""
        names: set[str] | None = None
        for example in statements:
            tree = parsed(example.source)
            for node in ast.walk(tree) if tree is not None else ():
                if isinstance(node, ast.ImportFrom) and node.module == self.module:
                    got = {a.name for a in node.names}
                    names = (names or set()) | (self.defined if "*" in got else got)
                elif isinstance(node, ast.Import) and any(
                    a.name == self.module for a in node.names
                ):
                    names = names or set()
        return names

    def _unimported(self, code: str, imported: set[str] | None, bound: set[str]) -> str | None:
        """A bare name of the module used by an example that imports the module but not
        that name: in a reader's session it is a NameError."""
        if imported is None:
            return None
        tree = parsed(code)
        for node in ast.walk(tree) if tree is not None else ():
            if (
                isinstance(node, ast.Name)
                and isinstance(node.ctx, ast.Load)
                and node.id in self.defined
                and node.id not in imported | bound
            ):
                return f"it uses {node.id}, which the example does not import"
        return None
