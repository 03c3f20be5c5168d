"""The examples in API docs of a Python file, run against the real module in a sandbox.

An example is a doctest (`>>> call(...)` and the result shown under it), in a fenced
block or in the text, or a fenced Python block that calls the module; a line of such a
block may show its result in a comment (`total(2, 3)  # -> 5`). Each runs in a fresh
namespace holding the module's names, through `doctest`, inside batch.sandbox (the
examples are model-written code). A shown result that differs from the real one, or an
example that raises, is a must_fix carrying the real output, so the values a finished
doc shows come from running the code, never from the model.

The module is imported from a copy of its folder (sibling imports work, relative ones
too); a module that cannot be imported, or no sandbox on this machine, means the doc is
judged without running anything, and the verification note says so.
"""

from __future__ import annotations

import ast
import json
import re
import shutil
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from batch.sandbox import run_sandboxed, sandbox_problem
from batch.state import Finding

_FENCE = re.compile(r"^```[ \t]*([\w+-]*)[^\n]*\n(.*?)^```[ \t]*$", re.DOTALL | re.MULTILINE)
_PYTHON_FENCES = {"", "python", "py", "python3", "pycon", "doctest"}
_SHOWN_IN_COMMENT = re.compile(r"#\s*(?:->|=>|→|returns?:?|output:?|gives:?)\s*(.+?)\s*$",
                               re.IGNORECASE)
_PROMPT_LINE = re.compile(r"^[ \t]*>>> ", re.MULTILINE)
COPY_LIMIT_BYTES = 20 * 1024 * 1024  # of the source's folder copied beside it
TIMEOUT_SECONDS = 20.0
HARNESS = Path(__file__).with_name("example_harness.py")


@dataclass(frozen=True)
class Example:
    text: str  # as a doctest: ">>> " lines and the output each should give
    line: int  # where it starts in the doc, 1-based


@dataclass
class Verification:
    findings: list[Finding] = field(default_factory=list)
    note: str = ""  # for the run record: what was run, or why nothing was
    seconds: float = 0.0


def _doctest_of_block(code: str, names: set[str]) -> str | None:
    """A fenced block as a doctest, or None when it is not an example of this module
    (does not parse, or calls none of its names). Statements run for their effect; an
    expression whose line shows a result in a comment is compared with it."""
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return None  # a signature shown as code, a shell line: not a runnable example
    called = {n.func.id if isinstance(n.func, ast.Name) else n.func.attr
              for n in ast.walk(tree) if isinstance(n, ast.Call)
              and isinstance(n.func, ast.Name | ast.Attribute)}
    if not called & names:
        return None
    lines = code.splitlines()
    out: list[str] = []
    for stmt in tree.body:
        source = ast.get_source_segment(code, stmt) or ""
        shown = None
        if isinstance(stmt, ast.Expr) and stmt.end_lineno is not None:
            m = _SHOWN_IN_COMMENT.search(lines[stmt.end_lineno - 1])
            shown = m.group(1) if m else None
        if isinstance(stmt, ast.Expr) and shown is None:
            source = f"_ = {source}"  # run it; its value was not shown, so not compared
        first, *rest = source.splitlines()
        out.append(">>> " + first)
        out += ["... " + r for r in rest]
        if shown is not None:
            out.append(shown)
    return "\n".join(out) + "\n"


def examples_in(doc: str, names: set[str]) -> list[Example]:
    """Every example in a doc; `names` are the module's public names and its own."""
    found: list[Example] = []
    spans: list[tuple[int, int]] = []
    for m in _FENCE.finditer(doc):
        spans.append(m.span())
        if m.group(1).lower() not in _PYTHON_FENCES:
            continue
        body = m.group(2)
        line = doc.count("\n", 0, m.start(2)) + 1
        if _PROMPT_LINE.search(body):
            found.append(Example(_dedent_doctest(body), line))
        elif (text := _doctest_of_block(body, names)) is not None:
            found.append(Example(text, line))
    # doctests in the running text, outside any fence
    outside = doc
    for start, end in reversed(spans):
        outside = outside[:start] + "\n" * doc.count("\n", start, end) + outside[end:]
    for m in re.finditer(r"(?:^[ \t]*>>> .*\n(?:^[ \t]*\S.*\n?)*)", outside, re.MULTILINE):
        found.append(Example(_dedent_doctest(m.group(0)), outside.count("\n", 0, m.start()) + 1))
    return sorted(found, key=lambda e: e.line)


def _dedent_doctest(text: str) -> str:
    lines = text.splitlines()
    indent = min((len(x) - len(x.lstrip()) for x in lines if x.strip()), default=0)
    return "\n".join(x[indent:] for x in lines).strip("\n") + "\n"


def public_names(source: str) -> set[str]:
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return set()
    return {n.name for n in tree.body
            if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
            and not n.name.startswith("_")}


def _copy_folder(source_path: Path | None, module: str, source: str, into: Path) -> None:
    """The source's folder (its .py files and packages, within a size limit) as the
    package `_src` in `into`, with the module file holding exactly `source`."""
    pkg = into / "_src"
    pkg.mkdir()
    folder = source_path.parent if source_path is not None else None
    if folder is not None and folder.is_dir():
        budget = COPY_LIMIT_BYTES
        for item in sorted(folder.iterdir()):
            if item.name.startswith("."):
                continue
            if item.is_file() and item.suffix == ".py":
                size = item.stat().st_size
                if size <= budget:
                    shutil.copyfile(item, pkg / item.name)
                    budget -= size
            elif item.is_dir() and (item / "__init__.py").is_file():
                size = sum(f.stat().st_size for f in item.rglob("*.py"))
                if size <= budget:
                    shutil.copytree(item, pkg / item.name,
                                    ignore=shutil.ignore_patterns("__pycache__", ".*"))
                    budget -= size
    (pkg / f"{module}.py").write_text(source, encoding="utf-8")
    if not (pkg / "__init__.py").exists():
        (pkg / "__init__.py").write_text("", encoding="utf-8")


def _short(text: str, limit: int = 300) -> str:
    text = text.strip()
    return text if len(text) <= limit else text[: limit - 1] + "…"


@dataclass(frozen=True)
class CallResult:
    got: str  # what the call printed as its value ("" when it raised)
    error: str = ""  # the exception, "ValueError: below absolute zero"


def _run_harness(texts: list[str], source: str, module: str, source_path: Path | None,
                 timeout: float) -> tuple[dict | None, str, bool]:
    """(the harness's report, or None; why there is none; whether it timed out) for
    doctest texts run against the module in the sandbox."""
    problem = sandbox_problem()
    if problem is not None:
        return None, f"no sandbox ({problem})", False
    with tempfile.TemporaryDirectory(prefix="briefloop-examples-") as tmp:
        work = Path(tmp)
        _copy_folder(source_path, module, source, work)
        shutil.copyfile(HARNESS, work / "_harness.py")
        spec = {"module": module, "examples": texts}
        (work / "_examples.json").write_text(json.dumps(spec), encoding="utf-8")
        run = run_sandboxed([sys.executable, "-I", "_harness.py"], work, timeout=timeout)
    if run.timed_out:
        return None, "stopped at the time limit", True
    try:
        report = json.loads(run.stdout.strip().splitlines()[-1])
    except (IndexError, json.JSONDecodeError):
        return None, f"the harness failed ({_short(run.stderr, 200)})", False
    if report.get("import_error"):
        return None, (f"{module} cannot be imported "
                      f"({_short(report['import_error'], 200)})"), False
    return report, "", False


def run_calls(calls: list[str], source: str, module: str, source_path: Path | None = None,
              timeout: float = TIMEOUT_SECONDS) -> tuple[list[CallResult] | None, str]:
    """What each call (a Python expression) gives when run against the module, in the
    sandbox: the values a doc shows under its examples. (None, why) when nothing ran."""
    report, why, _ = _run_harness([f">>> {c}\n" for c in calls], source, module,
                                  source_path, timeout)
    if report is None:
        return None, why
    out = []
    for rows in report["results"]:
        row = rows[0] if rows else {"got": "", "error": "no result"}
        out.append(CallResult(got=row.get("got") or "", error=row.get("error") or ""))
    return out, ""


def verify(doc: str, source: str, module: str, source_path: Path | None = None,
           timeout: float = TIMEOUT_SECONDS) -> Verification:
    """Run every example of `doc` against `source` (the module `module`, at
    `source_path` if it is a file) and report what differs."""
    started = time.perf_counter()
    names = public_names(source)
    examples = examples_in(doc, names | {module})
    result = Verification()
    if not examples:
        if names:
            result.findings.append(Finding(
                code="example-none", severity="must_fix",
                message=f"The docs show no example that runs: add a short doctest-style "
                        f"example (`>>> {sorted(names)[0]}(...)` and its result) for the "
                        f"public functions."))
        result.note = "no examples to run"
        return result
    report, why, timed_out = _run_harness([e.text for e in examples], source, module,
                                          source_path, timeout)
    result.seconds = time.perf_counter() - started
    if timed_out:
        result.findings.append(Finding(
            code="example-timeout", severity="must_fix",
            message=f"Running the examples took longer than {timeout:g}s and was stopped: "
                    f"show examples that finish quickly."))
        result.note = "examples stopped at the time limit"
        return result
    if report is None:
        result.note = f"examples not run: {why}"
        return result
    ran = failed = 0
    for rows in report["results"]:
        for row in rows:
            ran += 1
            if row["ok"]:
                continue
            failed += 1
            call = _short(row["source"].strip(), 120)
            if row.get("error"):
                message = (f"The example `{call}` raises {_short(row['error'], 200)} when "
                           f"run against the code: fix the example, or show that "
                           f"exception as its result.")
            else:
                message = (f"The example `{call}` shows {_short(row['want']) or 'nothing'}; "
                           f"run against the code it gives {_short(row['got']) or 'nothing'}"
                           f": show the real result.")
            result.findings.append(Finding(code=f"example:{call[:60]}", severity="must_fix",
                                           message=message))
    result.note = (f"examples run: {ran - failed} of {ran} gave the result shown"
                   if ran else "no examples to run")
    return result
