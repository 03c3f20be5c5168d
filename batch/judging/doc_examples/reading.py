"""Where a doc shows examples, and every line that claims a result no example checks.

An example is a doctest (`>>> call(...)` and the result shown under it) anywhere: in a
fence of any tag (``` or ~~~, indented in a list item or not), or in the text. A fenced
Python block that uses the module is one too: each statement runs in order, and a
result shown in a comment on the last line of an expression, or of an assignment to
one name, is compared (`total(2, 3)  # -> 5`); the other statements run for their
effect, their output not compared (an exception they raise is).

A comment shows a result when it is marked with an arrow (`# -> 5`, `# => 5`, `# → 5`:
whatever follows), with a word or `==` followed by a Python value (`# returns 5`,
`# == 5`, `# result: [1, 2]`), or when it is a Python value alone (`# 5`,
`# Decimal('6')`); prose (`# the sum of a and b`, `# {player: points}`) is not.

Every other line that looks like an example or shows a result is `Unchecked`: a `>>>`
in a quote or a string, an IPython `In [1]:` / `Out[1]:`, a result comment on a
statement that is not compared, on a doctest's own line, or in a block that cannot run
(it does not parse, uses none of the module's names, or reads `_`). Telling a reader a
result nobody ran is a must-fix (batch.judging.doc_examples.verify).
"""

from __future__ import annotations

import ast
import builtins
import doctest
import io
import re
import tokenize
from collections.abc import Iterator
from dataclasses import dataclass

# a fence closes with a run of the same character at least as long as it opened with
_FENCE = re.compile(
    r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})[ \t]*(?P<tag>[\w.+-]*)[^\n]*\n"
    r"(?P<body>.*?)^[ \t]*(?P=fence)(?P=fence)?[`~]*[ \t]*$",
    re.DOTALL | re.MULTILINE,
)
PYTHON_FENCES = {"", "python", "py", "python3", "py3", "pycon", "doctest"}
_MARKDOWN_FENCES = {"markdown", "md"}
# the comment of a line: these read from its `#`, the first outside a string
_ARROW = re.compile(
    r"^#\s*(?:result\s*)?(?:-{1,2}>|={1,2}>|→|⇒|⟶)\s*(?P<value>.+?)\s*$", re.IGNORECASE
)
_WORD = re.compile(
    r"^#\s*(?:==|=|returned|returns?|gives|result|value|evaluates to)\s*:?\s*"
    r"(?P<value>.+?)\s*$",
    re.IGNORECASE,
)
# what is printed or displayed, after a colon: any text after it is a claim, and one
# with nothing after it (`# Output:`, the lines below holding the text) is a claim no
# example compares
_PRINTS = re.compile(r"^#\s*(?:prints?|output|out)\s*:\s*(?P<value>.*?)\s*$", re.IGNORECASE)
_BARE = re.compile(r"^#\s*(?P<value>.+?)\s*$")
_IPYTHON = re.compile(r"^\s*(?:In|Out)\s*\[\d+\]:")
# a line of prose that says the fence below it holds what code printed
_OUTPUT_LEAD = re.compile(
    r"^[*_]*(?:output|result|prints?|this prints|it prints|which prints)\s*:?[*_]*\s*:?$",
    re.IGNORECASE,
)
_PROMPT = ">>>"


@dataclass(frozen=True)
class Example:
    text: str  # as a doctest: ">>> " lines and the output each should give
    line: int  # where it starts in the doc, 1-based
    # the statements (by their order in the doctest) run for their effect only: what
    # they print is not compared (a fenced block's statements with no result shown)
    unshown: frozenset[int] = frozenset()


@dataclass(frozen=True)
class Unchecked:
    """A line that looks like an example, or shows a result, that is never run."""

    line: int  # in the doc, 1-based
    text: str


def parsed(code: str, mode: str = "exec") -> ast.AST | None:
    """`code` as Python reads it, or None when it does not read (a syntax error, a NUL,
    nesting too deep for the parser)."""
    try:
        return ast.parse(code, mode=mode)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return None


def a_value(text: str) -> bool:
    """`text` is a Python value as a result is printed: literals, containers of them,
    a constructor with such arguments (`Point(x=1, y=2)`, `Decimal('6')`); not prose
    that happens to parse (`{player: points}`, `the sum`)."""
    tree = parsed(text.strip(), mode="eval")
    if not isinstance(tree, ast.Expression):
        return False
    for node in ast.walk(tree.body):
        if isinstance(node, ast.Name) and not _called(tree.body, node):
            return False
        if not isinstance(
            node,
            ast.Constant
            | ast.List
            | ast.Tuple
            | ast.Set
            | ast.Dict
            | ast.Call
            | ast.Name
            | ast.Attribute
            | ast.UnaryOp
            | ast.USub
            | ast.UAdd
            | ast.keyword
            | ast.Load,
        ):
            return False
    return True


def _called(root: ast.AST, name: ast.Name) -> bool:
    """`name` is what is called (`Point` of `Point(1)`, `decimal` of `decimal.Decimal(1)`)."""
    for node in ast.walk(root):
        if isinstance(node, ast.Call):
            func = node.func
            while isinstance(func, ast.Attribute):
                func = func.value
            if func is name:
                return True
    return False


def outside_strings(line: str) -> Iterator[tuple[int, str]]:
    """The characters of one line of Python that are not inside a string (quotes that
    open and close one are not given either), with where each is."""
    quote = ""
    escaped = False
    for i, ch in enumerate(line):
        if quote:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == quote:
                quote = ""
        elif ch in "'\"":
            quote = ch
        else:
            yield i, ch


def comment_at(line: str) -> int | None:
    """Where a line's comment starts: its first `#` outside a string, or None."""
    return next((i for i, ch in outside_strings(line) if ch == "#"), None)


def shown_in(line: str) -> str | None:
    """The result a line's comment shows, or None."""
    at = comment_at(line)
    return None if at is None else shown_in_comment(line[at:])


def shown_in_comment(comment: str) -> str | None:
    """The result a comment (from its `#`) shows, or None. A value that would read as
    more doctest (`>>>`, a `...` line) is none: it could not be compared as it stands."""
    value = None
    m = _ARROW.search(comment) or _PRINTS.search(comment)
    if m:
        value = m.group("value")
    else:
        m = _WORD.search(comment) or _BARE.search(comment)
        if m and a_value(m.group("value")) and m.group("value").strip() != "...":
            value = m.group("value")
    if value is None or _PROMPT in value or value.lstrip().startswith("..."):
        return None
    return value


def comments_of(code: str) -> dict[int, str]:
    """The comments of Python code by line (0-based), as the tokenizer finds them: a
    `#` or a quote inside a string over several lines is not a comment's start. Code
    that does not tokenize is read line by line."""
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(code).readline))
    except (tokenize.TokenError, SyntaxError, ValueError):
        lines = code.splitlines()
        return {i: x[at:] for i, x in enumerate(lines) if (at := comment_at(x)) is not None}
    return {t.start[0] - 1: t.string for t in tokens if t.type == tokenize.COMMENT}


def _claims_on_code(line: str, names: set[str]) -> bool:
    """A line where no example runs it (an indented code block, a fence of another
    language) that shows a result in its comment: marked by an arrow or `prints:` on
    any line of code, a bare value when the line uses the module."""
    at = comment_at(line)
    if at is None or shown_in(line) is None:
        return False
    if _ARROW.search(line[at:]) or _PRINTS.search(line[at:]):
        return bool(line[:at].strip())
    tree = parsed(line[:at].strip())
    if tree is None:
        return False
    used = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
    used |= {n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute)}
    return bool(used & names)


def _assigned_name(stmt: ast.stmt) -> str | None:
    if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
        target = stmt.targets[0]
    elif isinstance(stmt, ast.AnnAssign) and stmt.value is not None:
        target = stmt.target
    else:
        return None
    return target.id if isinstance(target, ast.Name) else None


def _block_example(code: str, names: set[str]) -> tuple[str, frozenset[int], set[int]] | None:
    """A fenced Python block as a doctest: its text, the statements not compared, and
    the lines (0-based) whose comments are compared. None when it is not an example
    of this module: it does not parse, uses none of its names, reads `_` (set by the
    interactive prompt, not by a script), or shows no result and defines a function or
    uses names it never gets (a signature written as code: `add(a, b)`)."""
    tree = parsed(code)
    if not isinstance(tree, ast.Module):
        return None
    loaded = {
        n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)
    }
    used = loaded | {n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute)}
    if not used & names or "_" in loaded:
        return None
    comments = comments_of(code)
    claims = any(shown_in_comment(c) is not None for c in comments.values())
    if not claims:
        bound = {
            n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)
        }
        unknown = loaded - names - bound - set(dir(builtins))
        defines = any(
            isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
            for n in ast.walk(tree)
        )
        if unknown or defines:
            return None
    out: list[str] = []
    unshown: set[int] = set()
    compared: set[int] = set()
    count = 0
    for stmt in tree.body:
        source = ast.get_source_segment(code, stmt) or ""
        last = (stmt.end_lineno or stmt.lineno) - 1
        shown = shown_in_comment(comments[last]) if last in comments else None
        named = _assigned_name(stmt)
        if not isinstance(stmt, ast.Expr) and named is None:
            shown = None
        first, *rest = source.splitlines()
        out.append(">>> " + first)
        out += ["... " + r for r in rest]
        if shown is None:
            unshown.add(count)
        elif named is not None:
            compared.add(last)
            unshown.add(count)  # the assignment; its value is shown by the line after
            count += 1
            out.append(f">>> {named}")  # the value assigned, shown as the comment says
            if shown.strip() != "None":
                out.append(shown)
        else:
            compared.add(last)
            if shown.strip() != "None":  # the prompt displays nothing for None
                out.append(shown)
        count += 1
    return "\n".join(out) + "\n", frozenset(unshown), compared


def _doctest_lines(text: str) -> tuple[set[int], set[int]]:
    """The lines (0-based) of a doctest text that its examples take (the source and the
    result shown under it), and those of their source. All of them when it does not
    parse (verify says why)."""
    try:
        parsed = doctest.DocTestParser().get_examples(text)
    except ValueError:
        every = set(range(text.count("\n") + 1))
        return every, set()
    taken: set[int] = set()
    sources: set[int] = set()
    for e in parsed:
        end_of_source = e.lineno + e.source.count("\n")
        sources |= set(range(e.lineno, end_of_source))
        taken |= set(range(e.lineno, end_of_source + e.want.count("\n")))
    return taken, sources


def _dedent(lines: list[str]) -> list[str]:
    indent = min((len(x) - len(x.lstrip()) for x in lines if x.strip()), default=0)
    return [x[indent:] for x in lines]


def read_examples(doc: str, names: set[str]) -> tuple[list[Example], list[Unchecked]]:
    """Every example in a doc, and every line that claims a result no example checks.
    `names` are the module's names and its own."""
    found: list[Example] = []
    unchecked: list[Unchecked] = []
    fenced: set[int] = set()
    for m in _FENCE.finditer(doc):
        body_start = doc.count("\n", 0, m.start("body"))
        fenced |= set(range(body_start - 1, doc.count("\n", 0, m.end()) + 1))
        indent = len(m.group("indent"))
        body = [
            x[indent:] if x[:indent].strip() == "" else x.lstrip()
            for x in m.group("body").splitlines()
        ]
        tag = m.group("tag").lower()
        if tag in _MARKDOWN_FENCES:
            inner, left = read_examples("\n".join(body) + "\n", names)
            found += [Example(e.text, e.line + body_start, e.unshown) for e in inner]
            unchecked += [Unchecked(u.line + body_start, u.text) for u in left]
            continue
        first = next((i for i, x in enumerate(body) if x.strip()), len(body))
        body = _dedent(body[first:])
        at = body_start + first + 1  # the doc's line of body[0], 1-based
        compared: set[int] = set()
        sources: set[int] = set()
        lead = doc[: m.start()].rstrip().rsplit("\n", 1)[-1].strip()
        if body and _OUTPUT_LEAD.match(lead) and not any(_PROMPT in x for x in body):
            # "Output:" and a fence: a result shown apart from the code, never compared
            unchecked.append(Unchecked(at, body[0].strip()))
            continue
        if any(x.lstrip().startswith(_PROMPT) for x in body):
            # a doctest in any block, whatever its tag says (text, console, python-repl)
            text = "\n".join(body).strip("\n") + "\n"
            found.append(Example(text, at))
            taken, sources = _doctest_lines(text)
        elif tag in PYTHON_FENCES:
            text = "\n".join(body) + "\n"
            made = _block_example(text, names)
            if made is not None:
                found.append(Example(made[0], at, made[1]))
                compared = made[2]
            taken = set()
        else:
            unchecked += [
                Unchecked(at + i, x.strip())
                for i, x in enumerate(body)
                if _IPYTHON.match(x) or _claims_on_code(x, names)
            ]
            continue
        comments = comments_of(text) if not taken else {}
        for i, x in enumerate(body):
            stray = (_PROMPT in x or _IPYTHON.match(x)) and i not in taken
            claim = i not in compared and (i in sources or i not in taken)
            if taken:  # a doctest: its lines are read one by one
                shows = shown_in(x) is not None
            else:
                shows = i in comments and shown_in_comment(comments[i]) is not None
            if stray or (claim and shows):
                unchecked.append(Unchecked(at + i, x.strip()))
    # doctests in the running text, outside any fence
    lines = doc.splitlines()
    outside = "\n".join("" if i in fenced else x for i, x in enumerate(lines)) + "\n"
    covered: set[int] = set(fenced)
    for m in re.finditer(r"(?:^[ \t]*>>> .*\n(?:^[ \t]*\S.*\n?)*)", outside, re.MULTILINE):
        start = outside.count("\n", 0, m.start())
        text = "\n".join(_dedent(m.group(0).splitlines())).strip("\n") + "\n"
        found.append(Example(text, start + 1))
        taken, sources = _doctest_lines(text)
        covered |= set(range(start, start + m.group(0).rstrip("\n").count("\n") + 1))
        for i in sources:
            if shown_in(text.splitlines()[i]) is not None:
                unchecked.append(Unchecked(start + i + 1, text.splitlines()[i].strip()))
    for i, x in enumerate(lines):
        if i not in covered and (_PROMPT in x or _IPYTHON.match(x) or _claims_on_code(x, names)):
            unchecked.append(Unchecked(i + 1, x.strip()))
    return sorted(found, key=lambda e: e.line), sorted(unchecked, key=lambda u: u.line)
