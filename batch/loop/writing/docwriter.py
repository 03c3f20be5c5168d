"""API docs of a Python file written one public name at a time, assembled by code.

    source (AST) -> its public functions, classes and methods in source order, each
                    with its real signature, its docstring, what it raises
      -> per name one small structured answer of the writer: a summary, what each
         parameter means, one example call (short strings: nothing to run away with)
      -> assembled by code: a heading per name with the real signature, its parameters,
         what it raises, its example
      -> every example run against the real module (batch.judging.doc_examples, in the sandbox):
         the result a doc shows is the one running it gives, never the model's; an
         example that does not run is left out, and then the example check says so

A small model asked for a whole API doc in one answer forgets names, invents
signatures and runs on; asked about one name, with the signature and the raises put
in place by code, it has one sentence of prose to get right.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from batch.judging.apidocs import definitions, params_of, render_signature
from batch.judging.doc_examples import CallResult

# (the name to document, which sample (0 first)) -> the writer's answer for it, or None
# when it gave no valid one
AskName = Callable[["Name", int], "NameDoc | None"]
# (the example calls, each an expression) -> what running each gives
RunCalls = Callable[[list[str]], list[CallResult] | None]


@dataclass(frozen=True)
class Name:
    """One public name of the source, as code reads it."""

    qualname: str  # slugify, SlugSet, SlugSet.add
    kind: str  # function | class | method
    signature: str  # slugify(text, max_length=60), as apidocs renders the real one
    arguments: str  # what is between its parentheses: text, max_length=60
    parameters: tuple[str, ...]  # text, max_length (*args and **kwargs with their stars)
    docstring: str
    code: str  # its own source lines
    raises: list[tuple[str, str]] = field(default_factory=list)  # (exception, message)
    # the code of what it calls in the same file (helpers, its own class's methods), so
    # what it does through them is its own; never the code of a name it does not reach
    calls: str = ""
    # a class: the classes it derives from, and what Python's own syntax does with it
    # through its special methods ("len(buffer)", "for item in buffer")
    bases: tuple[str, ...] = ()
    protocols: tuple[str, ...] = ()
    # a function's or method's return annotation as written ("bool", "list[str]"); ""
    # for none or None: what a caller gets back is the first thing a reader looks for
    returns: str = ""


@dataclass
class NameDoc:
    summary: str
    parameters: dict[str, str]  # parameter -> what it means
    example: str  # one call, a Python expression; "" for none


def names_of(source: str) -> list[Name]:
    """The public functions and classes of a module, and the public methods of each
    class, in source order."""
    tree = ast.parse(source)
    defs = definitions(tree)
    out: list[Name] = []
    for node in tree.body:
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            continue
        if node.name.startswith("_"):
            continue
        if isinstance(node, ast.ClassDef):
            init = next(
                (s for s in node.body if isinstance(s, ast.FunctionDef) and s.name == "__init__"),
                None,
            )
            params = params_of(init, skip_self=True) if init else []
            out.append(
                replace(
                    _name(source, node, node.name, "class", params, init, defs),
                    bases=tuple(b for b in map(ast.unparse, node.bases) if b != "object"),
                    protocols=_protocols(node),
                )
            )
            for sub in node.body:
                if isinstance(
                    sub, ast.FunctionDef | ast.AsyncFunctionDef
                ) and not sub.name.startswith("_"):
                    out.append(
                        _name(
                            source,
                            sub,
                            f"{node.name}.{sub.name}",
                            "method",
                            params_of(sub, skip_self=True),
                            sub,
                            defs,
                        )
                    )
        else:
            out.append(
                _name(
                    source,
                    node,
                    node.name,
                    "function",
                    params_of(node, skip_self=False),
                    node,
                    defs,
                )
            )
    return out


# special methods and what a reader writes to use them
_PROTOCOLS = {
    "__len__": "`len()`",
    "__iter__": "iteration (`for … in`)",
    "__contains__": "`in`",
    "__getitem__": "indexing (`[…]`)",
    "__enter__": "`with`",
    "__call__": "calling it like a function",
    "__eq__": "`==`",
    "__lt__": "ordering (`<`, `sorted()`)",
    "__add__": "`+`",
    "__bool__": "truth tests (`if …`)",
}


def _protocols(node: ast.ClassDef) -> tuple[str, ...]:
    own = {s.name for s in node.body if isinstance(s, ast.FunctionDef | ast.AsyncFunctionDef)}
    return tuple(v for k, v in _PROTOCOLS.items() if k in own)


def _message(node: ast.expr) -> str:
    """An exception's message as the code writes it: a string, or an f-string with
    what it fills in shown as …"""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(str(v.value) if isinstance(v, ast.Constant) else "…" for v in node.values)
    return ""


# the nodes that may have a docstring
_DOCUMENTED = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Module)


def _name(
    source: str,
    node: ast.AST,
    qualname: str,
    kind: str,
    params: list[tuple[str, str | None]],
    body: ast.AST | None,
    defs: dict[str, ast.AST],
) -> Name:
    return Name(
        qualname=qualname,
        kind=kind,
        signature=render_signature(qualname, params),
        arguments=render_signature("", params)[1:-1],
        parameters=tuple(p for p, _ in params),
        docstring=(
            (ast.get_docstring(node) if isinstance(node, _DOCUMENTED) else None) or ""
        ).strip(),
        code=ast.get_source_segment(source, node) or "",
        raises=_raises(body) if body is not None else [],
        calls=_called_code(source, node, defs),
        returns=_returns(node),
    )


def _returns(node: ast.AST) -> str:
    if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) or node.returns is None:
        return ""
    text = ast.unparse(node.returns).strip("'\"")
    # (a call inside one, Annotated[int, Field(gt=0)], would read as API of its own)
    if text in ("None", "NoReturn", "Never") or "(" in text or node.name == "__init__":
        return ""
    return text


MAX_CALLED_CHARS = 3000


def _called_code(source: str, node: ast.AST, defs: dict[str, ast.AST]) -> str:
    """The code of the module's functions and methods that `node` calls, and that they
    call in turn, in the order first reached: what it does through them."""
    seen = {id(node)}
    order: list[ast.AST] = []
    todo = [node]
    while todo:
        for n in ast.walk(todo.pop(0)):
            if not isinstance(n, ast.Call):
                continue
            name = (
                n.func.id
                if isinstance(n.func, ast.Name)
                else (n.func.attr if isinstance(n.func, ast.Attribute) else "")
            )
            # a function of the module, else the first method of that name
            target = defs.get(name) or next(
                (d for k, d in defs.items() if k.endswith("." + name)), None
            )
            if target is not None and id(target) not in seen and not _encloses(node, target):
                seen.add(id(target))
                order.append(target)
                todo.append(target)
    text = "\n\n".join(ast.get_source_segment(source, t) or "" for t in order)
    return text[:MAX_CALLED_CHARS]


def _encloses(outer: ast.AST, inner: ast.AST) -> bool:
    return any(n is inner for n in ast.walk(outer))


def _raises(node: ast.AST) -> list[tuple[str, str]]:
    """(exception, its message when it is a plain string) for each `raise` of a function
    itself, in order."""
    out: list[tuple[str, str]] = []
    for n in ast.walk(node):
        if not isinstance(n, ast.Raise) or n.exc is None:
            continue
        call = n.exc if isinstance(n.exc, ast.Call) else None
        target = call.func if call else n.exc
        name = (
            target.id
            if isinstance(target, ast.Name)
            else (target.attr if isinstance(target, ast.Attribute) else "")
        )
        message = _message(call.args[0]) if call and call.args else ""
        if name and name not in [r[0] for r in out]:
            out.append((name, message))
    return out


def parameter_names(name: Name) -> list[str]:
    return [p.lstrip("*") for p in name.parameters]


def usable_example(call: str, name: Name) -> str:
    """The model's example as one expression that calls `name`, or "" when it is not.
    A doctest the model wrote anyway gives its first call; the result it shows is
    dropped (running the call gives the real one)."""
    lines = [
        ln.strip().strip("`").strip()
        for ln in call.strip().splitlines()
        if not ln.strip().startswith(("```", "#"))
    ]
    lines = [ln for ln in lines if ln]
    prompts = [ln for ln in lines if ln.startswith(">>>")]
    call = (prompts or lines or [""])[0].removeprefix(">>>").strip()
    call = _call_part(call)
    if not call or len(call) > 200:
        return ""
    try:
        tree = ast.parse(call, mode="eval")
    except SyntaxError:
        return ""
    short = name.qualname.split(".")[-1]
    called = {
        n.func.id if isinstance(n.func, ast.Name) else n.func.attr
        for n in ast.walk(tree)
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name | ast.Attribute)
    }
    return call if short in called else ""


_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+>")
_SHOWN_AFTER = re.compile(r"\s*(?:->|=>|→|#|\breturns?\b|\bgives\b)")


def _call_part(line: str) -> str:
    """The call of a line that may show a result after it ("f(2) -> 4", "f(2)  # 4"):
    the model's result, not the code's, so it goes. A marker inside a string is the
    call's own (`parse_hex('#ff8800')`): the cut is the first one whose part before
    it parses as an expression, else the line is the call."""
    for m in _SHOWN_AFTER.finditer(line):
        head = line[: m.start()].strip()
        try:
            ast.parse(head, mode="eval")
        except SyntaxError:
            continue
        return head
    return line.strip()


def _doctest_result(result: CallResult, raises: list[tuple[str, str]]) -> str | None:
    """The lines a doctest shows under a call, from what running it gave. An exception
    is shown only when it is one the name raises on purpose (an example of its error);
    any other means the example is wrong, and it is left out."""
    if result.error:
        if result.error.split(":", 1)[0].strip() not in {exc for exc, _ in raises}:
            return None
        return "Traceback (most recent call last):\n    ...\n" + result.error
    if _ADDRESS.search(result.got):
        return None  # "<Scale object at 0x7f…>" differs on every run: nothing to show
    return result.got.rstrip("\n")


def finished(text: str) -> bool:
    """Prose that ends as a sentence ends, its code spans and brackets closed."""
    text = text.strip()
    return (
        bool(text)
        and text[-1] in ".!?)`'\""
        and text.count("`") % 2 == 0
        and text.count("(") == text.count(")")
    )


@dataclass
class DocWriter:
    ask: AskName
    run_calls: RunCalls
    samples: int = 2

    def write(self, module: str, source: str) -> tuple[str, list[dict[str, Any]]]:
        """The doc, and a log line per name (its samples, whether its example ran)."""
        names = names_of(source)
        docs: list[NameDoc | None] = []
        log: list[dict[str, Any]] = []
        for name in names:
            doc = None
            for sample in range(self.samples):
                doc = self.ask(name, sample)
                if doc is not None and not finished(doc.summary):
                    # a summary cut off mid-sentence ("It uses the `unicodedata.normalize(")
                    # is no summary: the docstring stands in for it
                    doc.summary = ""
                if doc is not None and doc.summary.strip():
                    doc.example = usable_example(doc.example, name)
                    if doc.example or sample == self.samples - 1:
                        break
            docs.append(doc)
            log.append(
                {
                    "name": name.qualname,
                    "answered": doc is not None,
                    "example": bool(doc and doc.example),
                }
            )
        pairs = [
            (d.example, n) for d, n in zip(docs, names, strict=True) if d is not None and d.example
        ]
        calls = [c for c, _ in pairs]
        results = self.run_calls(calls) if calls else []
        shown: dict[str, str] = {}
        for (call, name), result in zip(pairs, results or [], strict=False):
            lines = _doctest_result(result, name.raises)
            if lines is not None:
                shown[call] = lines
        for entry, doc in zip(log, docs, strict=True):
            entry["example_ran"] = bool(doc and doc.example in shown)
        return assemble(module, source, names, docs, shown), log


# where a docstring's prose ends: "Args:", "Returns", "Parameters\n----------", ">>> f(1)"
_DOC_SECTION = re.compile(
    r"^\s*(?:>>>|[A-Z][A-Za-z ]{1,30}:[ \t]*(?:\n|$)|[A-Z][a-z]+\s*\n\s*-{3,})"
)


def docstring_prose(docstring: str) -> str:
    """A docstring's paragraphs of prose, up to its first section or doctest, as one."""
    kept: list[str] = []
    for paragraph in docstring.split("\n\n"):
        if _DOC_SECTION.match(paragraph):
            break
        kept.append(" ".join(paragraph.split()))
    return " ".join(kept)


def _prose(name: Name, summary: str) -> str:
    """What a section says of its name: the docstring's prose where there is one, the
    author's own account of its behaviour; else the writer's summary. A small model's
    summary beside a docstring mostly says it again, and where it says more it is as
    often wrong ("appends hyphens until unique" of a loop that appends -2, -3)."""
    return docstring_prose(name.docstring) or " ".join(summary.split())


def _listed(items: tuple[str, ...]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def assemble(
    module: str, source: str, names: list[Name], docs: list[NameDoc | None], shown: dict[str, str]
) -> str:
    """The Markdown doc: the module, then a section per name in source order."""
    tree = ast.parse(source)
    lines = [f"# `{module}`", ""]
    summary = (ast.get_docstring(tree) or "").strip().split("\n\n")[0]
    if summary:
        lines += [" ".join(summary.split()), ""]
    for name, doc in zip(names, docs, strict=True):
        level = "###" if name.kind == "method" else "##"
        lines += [f"{level} `{name.signature}`", ""]
        text = _prose(name, doc.summary if doc else "")
        if text:
            lines += [text, ""]
        if name.bases:
            lines += [
                f"`{name.qualname}` is a subclass of "
                + " and ".join(f"`{b}`" for b in name.bases)
                + ".",
                "",
            ]
        if name.protocols:
            lines += [f"`{name.qualname}` works with " + _listed(name.protocols) + ".", ""]
        params = parameter_names(name)
        meanings = doc.parameters if doc else {}
        if params:
            lines.append("Parameters:")
            lines.append("")
            for p in params:
                meaning = " ".join((meanings.get(p) or "").split())
                lines.append(f"- `{p}`" + (f": {meaning}" if meaning else ""))
            lines.append("")
        if name.returns:
            lines += [f"Returns `{name.returns}`.", ""]
        for exc, message in name.raises:
            lines += [f"Raises `{exc}`" + (f" ({message})." if message else "."), ""]
        if doc and doc.example in shown:
            lines += [
                "Example:",
                "",
                "```python",
                f">>> {doc.example}",
                shown[doc.example],
                "```",
                "",
            ]
    return "\n".join(lines).strip() + "\n"
