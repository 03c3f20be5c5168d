"""API docs checked against the Python source they document, from its AST.

Two checks a small model's opinion cannot replace:
- every name the docs present as API (a heading, or code such as `name(...)`) exists
  in the source: no invented functions, methods or classes;
- every signature the docs show (`slugify(text, max_length=60)`) has the real
  parameters, in the real order, with the real defaults.

A shown call with values (`slugify("Hello")`) is an example, not a signature: only an
argument list that parses as parameters is compared.
"""

from __future__ import annotations

import ast
import builtins
import re
from dataclasses import dataclass

from batch.check_types import Finding


@dataclass(frozen=True)
class Api:
    names: frozenset[str]  # every function, class, method and parameter name defined
    signatures: dict[str, list[tuple[str, str | None]]]  # name -> [(param, default)]


def params_of(
    node: ast.FunctionDef | ast.AsyncFunctionDef, skip_self: bool
) -> list[tuple[str, str | None]]:
    args = node.args
    positional = [*args.posonlyargs, *args.args]
    defaults: list[str | None] = [None] * (len(positional) - len(args.defaults))
    defaults += [ast.unparse(d) for d in args.defaults]
    out = [(a.arg, d) for a, d in zip(positional, defaults, strict=True)]
    if args.vararg:
        out.append(("*" + args.vararg.arg, None))
    out += [
        (a.arg, None if d is None else ast.unparse(d))
        for a, d in zip(args.kwonlyargs, args.kw_defaults, strict=True)
    ]
    if args.kwarg:
        out.append(("**" + args.kwarg.arg, None))
    if skip_self and out and out[0][0] in ("self", "cls"):
        out = out[1:]
    return out


def definitions(tree: ast.Module) -> dict[str, ast.AST]:
    """Every function and class of a module by its name, and every method of a class as
    `Class.method`, in source order."""
    out: dict[str, ast.AST] = {}
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            out[node.name] = node
            if isinstance(node, ast.ClassDef):
                for sub in node.body:
                    if isinstance(sub, ast.FunctionDef | ast.AsyncFunctionDef):
                        out[f"{node.name}.{sub.name}"] = sub
    return out


def api_of(source: str) -> Api | None:
    """The public API of a Python source, or None when it does not parse."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return None
    names: set[str] = set()
    signatures: dict[str, list[tuple[str, str | None]]] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.arg):
            names.add(node.arg)
        elif isinstance(node, ast.Name):
            names.add(node.id)
        elif isinstance(node, ast.alias):
            names.add(node.asname or node.name.split(".")[0])
        elif isinstance(node, ast.Attribute):
            names.add(node.attr)
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            signatures[node.name] = params_of(node, skip_self=False)
        elif isinstance(node, ast.ClassDef):
            for sub in node.body:
                if isinstance(sub, ast.FunctionDef | ast.AsyncFunctionDef):
                    params = params_of(sub, skip_self=True)
                    if sub.name == "__init__":
                        signatures[node.name] = params
                    else:
                        signatures[f"{node.name}.{sub.name}"] = params
                        signatures.setdefault(sub.name, params)
    return Api(frozenset(names), signatures)


_SHOWN = re.compile(r"(?<![\w.])((?:[A-Za-z_]\w*\.)?[A-Za-z_]\w*)\(([^()\n]*)\)")
_CODE_SPAN = re.compile(r"`([^`\n]+)`")
_HEADING = re.compile(r"^#{1,6}\s+(.*)$", re.MULTILINE)
_KNOWN = frozenset(dir(builtins)) | {"self", "cls"}


def _api_places(doc: str) -> list[str]:
    """The pieces of a doc that present API: headings and inline code (not examples)."""
    no_blocks = re.sub(r"```.*?(?:```|\Z)", " ", doc, flags=re.DOTALL)
    return [*_HEADING.findall(no_blocks), *_CODE_SPAN.findall(no_blocks)]


def _as_params(text: str) -> list[tuple[str, str | None]] | None:
    """'text, max_length=60' -> [('text', None), ('max_length', '60')], or None when the
    text is not a parameter list (a call with values)."""
    try:
        fn = ast.parse(f"def _f({text}):\n    pass").body[0]
    except SyntaxError:
        return None
    assert isinstance(fn, ast.FunctionDef)  # the one statement parsed is the def
    return params_of(fn, skip_self=True)


def render_signature(name: str, params: list[tuple[str, str | None]]) -> str:
    return f"{name}(" + ", ".join(p if d is None else f"{p}={d}" for p, d in params) + ")"


def check_api_docs(doc: str, source: str, module: str = "") -> list[Finding]:
    """Findings for the API a doc of `source` (the module `module`) presents."""
    api = api_of(source)
    if api is None:
        return []
    if module:
        api = Api(api.names | {module}, api.signatures)
    out: list[Finding] = []
    seen: set[str] = set()

    # the documented file itself, by its module or its file name ("# savings.py")
    own = {module, f"{module}.py"} if module else set()

    def invented(full: str) -> bool:
        """Report `full` once if the source defines no such name."""
        if full in own or full.split(".")[-1] in api.names or full.split(".")[-1] in _KNOWN:
            return False
        if full not in seen:
            seen.add(full)
            out.append(
                Finding(
                    code=f"api-invented:{full}",
                    severity="must_fix",
                    message=f"The docs present `{full}`, which the source file does not "
                    f"define: document only what the code has.",
                )
            )
        return True

    for place in _api_places(doc):
        for m in _SHOWN.finditer(place):
            full, args = m.group(1), m.group(2)
            name = full.split(".")[-1]
            owner = full.split(".")[0] if "." in full else None
            if owner is not None and owner not in api.names:
                continue  # a method of something else (list.append), not this file's
            if invented(full):
                continue
            real = api.signatures.get(full) or api.signatures.get(name)
            shown = _as_params(args)
            if real is None or shown is None or full in seen:
                continue
            if shown != real:
                seen.add(full)
                out.append(
                    Finding(
                        code=f"api-signature:{full}",
                        severity="must_fix",
                        message=f"The docs show `{render_signature(full, shown)}`; the real "
                        f"signature is `{render_signature(full, real)}`.",
                    )
                )
        # a heading that is a bare code name: "## amortize_all", "### Box.clear()"
        heading_name = re.fullmatch(
            r"`?((?:[A-Za-z_]\w*\.)?[a-z_]\w*)`?(?:\(\))?\s*", place.strip()
        )
        if heading_name and (
            "_" in heading_name.group(1)
            or "." in heading_name.group(1)
            or place.strip().endswith("()")
        ):
            invented(heading_name.group(1))
    return out + _parameters_left_out(doc, api)


_PARAMETERS_LABEL = re.compile(
    r"^\s*[*_]{0,2}(?:parameters|params|arguments|args)[*_]{0,2}"
    r"\s*:?\s*[*_]{0,2}\s*$",
    re.IGNORECASE,
)
_OTHER_PART = re.compile(
    r"^\s*(?:#{1,6}\s|[*_]{0,2}(?:examples?|returns|raises|usage)\b)", re.IGNORECASE
)


def _parameters_left_out(doc: str, api: Api) -> list[Finding]:
    """A section that lists its name's parameters ("Parameters:") lists every one of
    them: a list that lost a line tells the reader the call takes less than it does."""
    out: list[Finding] = []
    lines = doc.split("\n")
    for i, line in enumerate(lines):
        shown = _SHOWN.search(line) if line.lstrip().startswith("#") else None
        real = api.signatures.get(shown.group(1)) if shown else None
        if not real or shown is None:
            continue
        end = next(
            (j for j in range(i + 1, len(lines)) if lines[j].lstrip().startswith("#")), len(lines)
        )
        start = next((j for j in range(i + 1, end) if _PARAMETERS_LABEL.match(lines[j])), None)
        if start is None:
            continue
        stop = next((j for j in range(start + 1, end) if _OTHER_PART.match(lines[j])), end)
        listed = "\n".join(lines[start + 1 : stop])
        for param, _ in real:
            bare = param.lstrip("*")
            if not re.search(rf"(?<![\w]){re.escape(bare)}(?!\w)", listed):
                out.append(
                    Finding(
                        code=f"api-parameter:{shown.group(1)}.{bare}",
                        severity="must_fix",
                        message=f"The parameters of `{shown.group(1)}` leave out `{bare}`: "
                        f"say what it is.",
                    )
                )
    return out
