"""The examples in API docs of a Python file, run against the real module in a sandbox.

An example is a doctest (`>>> call(...)` and the result shown under it), in a fenced
block or in the text, or a fenced Python block that calls the module; a line of such a
block may show its result in a comment (`total(2, 3)  # -> 5`). Each runs in a fresh
namespace holding the module's names, through `doctest`, inside the sandbox (`sandbox`:
the examples are model-written code). A shown result that differs from the real one, or an
example that raises, is a must_fix carrying the real output, so the values a finished
doc shows come from running the code, never from the model.

Before anything runs, batch.judging.doc_examples.rules reads each example: one that does more than
call the module (an import of os, a dunder, open) is refused, never run. What each
example printed comes back from the sandbox and is compared here, outside it; a run that
does not come back whole is a must_fix, never a pass.

The module is imported from a copy of its folder (sibling imports work, relative ones
too); a module that cannot be imported, or no sandbox on this machine, means the doc is
judged without running anything, and the verification note says so.
"""

from __future__ import annotations

import ast
import doctest
import hashlib
import hmac
import json
import os
import re
import secrets
import shutil
import stat
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from pathlib import Path

from batch.draft_cleanup import TERMINAL_CONTROLS
from batch.judging.doc_examples.rules import Rules
from batch.judging.doc_examples.sandbox import run_sandboxed, sandbox_problem
from batch.state import Finding

_FENCE = re.compile(r"^```[ \t]*([\w+-]*)[^\n]*\n(.*?)^```[ \t]*$", re.DOTALL | re.MULTILINE)
_PYTHON_FENCES = {"", "python", "py", "python3", "pycon", "doctest"}
_SHOWN_IN_COMMENT = re.compile(
    r"#\s*(?:->|=>|→|returns?:?|output:?|gives:?)\s*(.+?)\s*$", re.IGNORECASE
)
_PROMPT_LINE = re.compile(r"^[ \t]*>>> ", re.MULTILINE)
COPY_LIMIT_BYTES = 20 * 1024 * 1024  # of the source's folder copied beside it
TIMEOUT_SECONDS = 20.0
HARNESS = Path(__file__).with_name("harness.py")


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
    called = {
        n.func.id if isinstance(n.func, ast.Name) else n.func.attr
        for n in ast.walk(tree)
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name | ast.Attribute)
    }
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
    return {
        n.name
        for n in tree.body
        if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
        and not n.name.startswith("_")
    }


def _copy_folder(source_path: Path | None, module: str, source: str, into: Path) -> None:
    """The source's folder (its .py files and packages, within a size limit) as the
    package `_src` in `into`, with the module file holding exactly `source`. Only
    regular files that are not links are copied, from inside the folder: a link named
    `leak.py` would carry any file this process can read (the run log, a private key)
    into the sandbox."""
    pkg = into / "_src"
    pkg.mkdir()
    folder = source_path.parent if source_path is not None else None
    if folder is not None and folder.is_dir() and not folder.is_symlink():
        budget = COPY_LIMIT_BYTES
        for item in sorted(folder.iterdir()):
            if item.name.startswith("."):
                continue
            if _regular(item) and item.suffix == ".py":
                budget = _copy_within(budget, [(item, pkg / item.name)])
            elif _plain_dir(item) and _regular(item / "__init__.py"):
                files = [(f, pkg / f.relative_to(folder)) for f in _package_files(item)]
                budget = _copy_within(budget, files)
    (pkg / f"{module}.py").write_text(source, encoding="utf-8")
    if not (pkg / "__init__.py").exists():
        (pkg / "__init__.py").write_text("", encoding="utf-8")


def _regular(path: Path) -> bool:
    """A regular file, not a link to one."""
    try:
        return stat.S_ISREG(path.lstat().st_mode)
    except OSError:
        return False


def _plain_dir(path: Path) -> bool:
    """A folder, not a link to one."""
    try:
        return stat.S_ISDIR(path.lstat().st_mode)
    except OSError:
        return False


def _package_files(package: Path) -> list[Path]:
    """The package's .py files, walked without following a link."""
    out = []
    for root, dirs, files in os.walk(package, followlinks=False):
        dirs[:] = sorted(
            d
            for d in dirs
            if not d.startswith(".") and d != "__pycache__" and _plain_dir(Path(root) / d)
        )
        out += [
            Path(root) / f
            for f in sorted(files)
            if f.endswith(".py") and not f.startswith(".") and _regular(Path(root) / f)
        ]
    return out


def _copy_within(budget: int, pairs: list[tuple[Path, Path]]) -> int:
    """Copy every (file, to) pair if together they fit in `budget`; what is left of it.
    Each file is opened without following a link, so one swapped for a link between
    the look and the copy is not read."""
    sizes = []
    for src, _ in pairs:
        try:
            sizes.append(src.lstat().st_size)
        except OSError:
            return budget
    if sum(sizes) > budget:
        return budget
    for src, dst in pairs:
        try:
            fd = os.open(src, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
        except OSError:
            continue
        with os.fdopen(fd, "rb") as f:
            if not stat.S_ISREG(os.fstat(f.fileno()).st_mode):
                continue
            dst.parent.mkdir(parents=True, exist_ok=True)
            dst.write_bytes(f.read(COPY_LIMIT_BYTES + 1))
    return budget - sum(sizes)


def _short(text: str, limit: int = 300) -> str:
    """What an example printed, as a finding may quote it: bounded, and without control
    characters (a terminal's escape codes, text-direction overrides)."""
    text = TERMINAL_CONTROLS.sub("", text).strip()
    return text if len(text) <= limit else text[: limit - 1] + "…"


@dataclass(frozen=True)
class CallResult:
    got: str  # what the call printed as its value ("" when it raised)
    error: str = ""  # the exception, "ValueError: below absolute zero"


@dataclass(frozen=True)
class HarnessRun:
    report: dict | None  # the harness's report, or None
    why: str = ""  # why there is none
    kind: str = ""  # "" (a report) | "no-sandbox" | "import" | "timeout" | "failed"


def _signed_payload(stdout: str, key: str) -> str:
    """The last line of `stdout` that the harness signed with `key`, without its
    signature: a report anything else printed (an exit hook, the module) is passed over.
    Raises IndexError when there is none."""
    for line in reversed(stdout.splitlines()):
        mac, _, payload = line.strip().partition(" ")
        want = hmac.new(key.encode(), payload.encode("utf-8"), hashlib.sha256).hexdigest()
        if hmac.compare_digest(mac.encode(), want.encode()):
            return payload
    raise IndexError("no signed report")


# where the seconds of the examples run in this context go (see `timed`)
_EXAMPLE_SECONDS: ContextVar[list[float] | None] = ContextVar(
    "briefloop_example_seconds", default=None
)


@contextmanager
def timed() -> Iterator[list[float]]:
    """The seconds the examples run in this context take, summed into the one-item list
    it yields: the run log's `time_split` counts them apart from the other checks."""
    spent = [0.0]
    token = _EXAMPLE_SECONDS.set(spent)
    try:
        yield spent
    finally:
        _EXAMPLE_SECONDS.reset(token)


@contextmanager
def _counted() -> Iterator[None]:
    started = time.perf_counter()
    try:
        yield
    finally:
        spent = _EXAMPLE_SECONDS.get()
        if spent is not None:
            spent[0] += time.perf_counter() - started


def _run_harness(
    texts: list[str], source: str, module: str, source_path: Path | None, timeout: float
) -> HarnessRun:
    """Doctest texts run against the module in the sandbox. The report is taken only
    when it is whole: one JSON line last, with a result for every text (a harness that
    was ended early, or whose output overflowed, gave none)."""
    problem = sandbox_problem()
    if problem is not None:
        return HarnessRun(None, f"no sandbox ({problem})", "no-sandbox")
    with _counted(), tempfile.TemporaryDirectory(prefix="briefloop-examples-") as tmp:
        work = Path(tmp)
        _copy_folder(source_path, module, source, work)
        shutil.copyfile(HARNESS, work / "_harness.py")
        spec = {"module": module, "examples": texts}
        (work / "_examples.json").write_text(json.dumps(spec), encoding="utf-8")
        key = secrets.token_hex(32)
        run = run_sandboxed(
            [sys.executable, "-I", "_harness.py"], work, timeout=timeout, stdin=key + "\n"
        )
    if run.timed_out:
        return HarnessRun(None, "stopped at the time limit", "timeout")
    try:
        report = json.loads(_signed_payload(run.stdout, key))
        whole = (
            run.returncode == 0
            and isinstance(report, dict)
            and (report.get("import_error") or len(report["results"]) == len(texts))
        )
    except (IndexError, KeyError, TypeError, UnicodeError, json.JSONDecodeError):
        whole = False
    if not whole:
        return HarnessRun(
            None,
            f"the harness did not finish (exit {run.returncode}; "
            f"{_short(run.stderr, 200) or 'no message'})",
            "failed",
        )
    if report.get("import_error"):
        return HarnessRun(
            None, (f"{module} cannot be imported ({_short(report['import_error'], 200)})"), "import"
        )
    return HarnessRun(report)


def run_calls(
    calls: list[str],
    source: str,
    module: str,
    source_path: Path | None = None,
    timeout: float = TIMEOUT_SECONDS,
) -> tuple[list[CallResult] | None, str]:
    """What each call (a Python expression) gives when run against the module, in the
    sandbox: the values a doc shows under its examples. (None, why) when nothing ran.
    A call batch.judging.doc_examples.rules refuses is not run: its result is that refusal."""
    rules = Rules(source, module)
    refused = {i: rules.problem(c) for i, c in enumerate(calls)}
    to_run = [c for i, c in enumerate(calls) if refused[i] is None]
    results: list[CallResult] = []
    if to_run:
        run = _run_harness([f">>> {c}\n" for c in to_run], source, module, source_path, timeout)
        if run.report is None:
            return None, run.why
        for rows in run.report["results"]:
            row = rows[0] if rows else {"got": "", "error": "no result"}
            results.append(CallResult(got=row.get("got") or "", error=row.get("error") or ""))
    ran = iter(results)
    return [
        CallResult(got="", error=f"not run: {refused[i]}") if refused[i] is not None else next(ran)
        for i in range(len(calls))
    ], ""


def gave_what_it_shows(row: dict, checker: doctest.OutputChecker) -> bool:
    """The verdict on one example's row, made here and not in the sandboxed process
    (whose code the example could have changed): as doctest judges it, a shown result
    against what it printed, a shown exception against the last line of what it raised."""
    if row.get("error"):
        return False
    got, flags = str(row.get("got", "")), doctest.NORMALIZE_WHITESPACE
    if row.get("exc_msg") is not None:
        last = (got.strip().splitlines() or [""])[-1] + "\n"
        return got.startswith("Traceback") and checker.check_output(
            str(row["exc_msg"]), last, flags
        )
    return checker.check_output(str(row.get("want", "")), got, flags)


def verify(
    doc: str,
    source: str,
    module: str,
    source_path: Path | None = None,
    timeout: float = TIMEOUT_SECONDS,
) -> Verification:
    """Run every example of `doc` against `source` (the module `module`, at
    `source_path` if it is a file) and report what differs."""
    started = time.perf_counter()
    names = public_names(source)
    examples = examples_in(doc, names | {module})
    result = Verification()
    if not examples:
        if names:
            result.findings.append(
                Finding(
                    code="example-none",
                    severity="must_fix",
                    message=f"The docs show no example that runs: add a short doctest-style "
                    f"example (`>>> {sorted(names)[0]}(...)` and its result) for the "
                    f"public functions.",
                )
            )
        result.note = "no examples to run"
        return result
    rules = Rules(source, module)
    runnable = []
    for e in examples:
        refusal = rules.doctest_problem(e.text)
        if refusal is None:
            runnable.append(e)
            continue
        statement, problem = refusal
        line = _short(" ".join(statement.split()), 120)
        result.findings.append(
            Finding(
                code=f"example-refused:{line[:60]}",
                severity="must_fix",
                message=f"The example `{line}` was not run: {problem}. An example shows "
                f"plain calls of the module's own names.",
            )
        )
    if not runnable:
        result.note = f"examples not run: {len(examples)} refused"
        return result
    run = _run_harness([e.text for e in runnable], source, module, source_path, timeout)
    result.seconds = time.perf_counter() - started
    if run.kind == "timeout":
        result.findings.append(
            Finding(
                code="example-timeout",
                severity="must_fix",
                message=f"Running the examples took longer than {timeout:g}s and was stopped: "
                f"show examples that finish quickly.",
            )
        )
        result.note = "examples stopped at the time limit"
        return result
    if run.kind == "failed":
        # what the examples did ended the harness or flooded its output: whatever the
        # reason, nothing shows that the doc's results are the real ones
        result.findings.append(
            Finding(
                code="example-harness",
                severity="must_fix",
                message="Running the examples did not finish normally (the run ended early "
                "or printed too much): show plain calls that return their result.",
            )
        )
        result.note = f"examples not run: {run.why}"
        return result
    if run.report is None:
        result.note = f"examples not run: {run.why}"
        return result
    checker = doctest.OutputChecker()
    ran = failed = 0
    for rows in run.report["results"]:
        for row in rows:
            ran += 1
            if gave_what_it_shows(row, checker):
                continue
            failed += 1
            call = _short(row["source"].strip(), 120)
            if row.get("error"):
                message = (
                    f"The example `{call}` raises {_short(row['error'], 200)} when "
                    f"run against the code: fix the example, or show that "
                    f"exception as its result."
                )
            else:
                message = (
                    f"The example `{call}` shows {_short(row['want']) or 'nothing'}; "
                    f"run against the code it gives {_short(row['got']) or 'nothing'}"
                    f": show the real result."
                )
            result.findings.append(
                Finding(code=f"example:{call[:60]}", severity="must_fix", message=message)
            )
    refused = len(examples) - len(runnable)
    result.note = (
        f"examples run: {ran - failed} of {ran} gave the result shown"
        if ran
        else "no examples to run"
    ) + (f"; {refused} refused" if refused else "")
    return result
