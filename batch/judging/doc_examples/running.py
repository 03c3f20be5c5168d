"""What each statement of a doc's examples prints when run against the real module,
in the sandbox (batch.judging.doc_examples.sandbox).

Nothing that runs in the sandbox is trusted to say where a statement's output ends, or
what it was: the module's code and the example's run there, and either could print a
line that looks like a boundary or a report. So the only boundary is the process. For
an example of statements s1..sn, process P_k runs s1..sk in a fresh interpreter
(harness.py) and exits; what sk printed is what P_k printed after everything P_(k-1)
printed, P_0 being the module's import alone, and likewise for the exception it raised
(written to standard error as one line marked with a nonce of that process, apart from
what it printed). When P_(k-1)'s output is not where P_k's starts, or when the whole
example run again gives another output, the statement's output changes from run to run
and it has no result. Each process has a hash seed of its own, drawn at random, so a
set of strings whose order is a matter of chance is told apart this way too: the whole
example is run again four times, ten when what it printed could show a collection (a
two-item set's other order is then missed once in 16, once in a thousand); a value the
prompt displays with such a set in it is marked as it is shown. No process is ever told a
result the doc shows, holds a key, or sees another example: what one example does can
change only what its own statements print, as it would in a fresh interactive session.

An example of n statements costs n + 5 to n + 11 processes (about 0.05 s each). The
source's folder is copied once, and each process gets its own copy: a file one of them
writes is not there for the next.
"""

from __future__ import annotations

import ast
import dataclasses
import json
import os
import re
import secrets
import shutil
import stat
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path

from batch.draft_cleanup import TERMINAL_CONTROLS
from batch.judging.doc_examples.harness import (
    DISPLAYED,
    EXCEPTION,
    IMPORT_FAILED,
    MARK,
    UNORDERED,
)
from batch.judging.doc_examples.reading import parsed
from batch.judging.doc_examples.rules import defined_names
from batch.judging.doc_examples.sandbox import (
    OUTPUT_LIMIT_BYTES,
    run_sandboxed,
    sandbox_problem,
)

COPY_LIMIT_BYTES = 20 * 1024 * 1024  # of the source's folder copied beside it
TIMEOUT_SECONDS = 20.0  # for all the processes of one doc
HARNESS = Path(__file__).with_name("harness.py")


@dataclass(frozen=True)
class Printed:
    """What one statement printed."""

    got: str = ""  # what it printed
    displayed: bool = False  # the prompt displayed a value (not only text printed)
    raised: str = ""  # the exception it raised, as doctest reads it ("ValueError: below zero")
    unjudged: str = ""  # why its output cannot be told, when it cannot


@dataclass(frozen=True)
class Outcome:
    printed: list[list[Printed]] | None  # per example, per statement; None: nothing ran
    why: str = ""  # why nothing ran
    kind: str = ""  # "" | "no-sandbox" | "import" | "timeout" | "failed" | "budget"


@dataclass
class _Timing:
    spent: list[float]
    left: Callable[[], float | None] | None
    charge: Callable[[float], None] | None


# the seconds the examples run in this context take, and the budget they are part of
_TIMING: ContextVar[_Timing | None] = ContextVar("briefloop_example_timing", default=None)


@contextmanager
def timed(
    left: Callable[[], float | None] | None = None,
    charge: Callable[[float], None] | None = None,
) -> Iterator[list[float]]:
    """The seconds the examples run in this context take, summed into the one-item list
    it yields: the run log's `time_split` counts them apart from the other checks.
    `left` says how many seconds the brief may still spend (None: no limit), `charge`
    is told each run's seconds as they pass: a brief's budget counts its examples'
    time, and once it is spent no example is run."""
    spent = [0.0]
    token = _TIMING.set(_Timing(spent, left, charge))
    try:
        yield spent
    finally:
        _TIMING.reset(token)


def _left() -> float | None:
    timing = _TIMING.get()
    return timing.left() if timing is not None and timing.left is not None else None


@contextmanager
def _counted() -> Iterator[None]:
    started = time.perf_counter()
    try:
        yield
    finally:
        timing = _TIMING.get()
        if timing is not None:
            elapsed = time.perf_counter() - started
            timing.spent[0] += elapsed
            if timing.charge is not None:
                timing.charge(elapsed)


def run_statements(
    examples: list[list[str]],
    source: str,
    module: str,
    source_path: Path | None = None,
    timeout: float = TIMEOUT_SECONDS,
    names: set[str] | None = None,
) -> Outcome:
    """What each statement of each example (its source code) prints, run against
    `source` (the module `module`, at `source_path` if it is a file); within `timeout`
    seconds for them all. The statements see the module's `names` (default: every name
    its source defines at the top) and the module under its own name."""
    problem = sandbox_problem()
    if problem is not None:
        return Outcome(None, f"no sandbox ({problem})", "no-sandbox")
    left = _left()
    if left is not None and left <= 0:
        why = "the brief's time (loop.max_model_seconds) is spent"
        return Outcome(None, why, "budget")
    deadline = time.monotonic() + (timeout if left is None else min(timeout, left))
    with _counted(), tempfile.TemporaryDirectory(prefix="briefloop-example-src-") as tmp:
        template = Path(tmp)
        _copy_folder(source_path, module, source, template)
        shutil.copyfile(HARNESS, template / "_harness.py")
        shown = sorted(defined_names(source) if names is None else names)
        session = _Session(template, module, shown, deadline)
        imported = session.run([])
        if isinstance(imported, Outcome):
            return imported
        if imported.cut:
            why = f"importing {module} printed more than {OUTPUT_LIMIT_BYTES} bytes"
            return Outcome(None, why, "failed")
        printed = []
        for statements in examples:
            rows = session.example(statements, imported)
            if isinstance(rows, Outcome):
                return rows
            printed.append(rows)
    return Outcome(printed)


@dataclass(frozen=True)
class _Ran:
    """One process that ended well: what it printed, and the marks the harness left."""

    stdout: str
    marks: list[str]
    cut: bool  # its output was longer than the sandbox keeps


@dataclass
class _Session:
    template: Path  # the module's folder and the harness, copied for each process
    module: str
    names: list[str]  # of the module, that the statements see
    deadline: float

    def run(self, statements: list[str]) -> _Ran | Outcome:
        """One fresh process running `statements`, with a hash seed of its own drawn at
        random (a seed known beforehand could be tested for); an Outcome when it did not
        end well."""
        remaining = self.deadline - time.monotonic()
        if remaining <= 0:
            return Outcome(None, "stopped at the time limit", "timeout")
        with tempfile.TemporaryDirectory(prefix="briefloop-examples-") as tmp:
            work = Path(tmp)
            shutil.copytree(self.template, work, dirs_exist_ok=True)
            nonce = secrets.token_hex(8)
            spec = {
                "module": self.module,
                "names": self.names,
                "statements": statements,
                "mark": nonce,
            }
            # not -I nor -E: they would drop the environment the sandbox sets (the hash
            # seed, unbuffered output), and that environment is all there is
            run = run_sandboxed(
                [sys.executable, "-s", "-B", "-u", "_harness.py"],
                work,
                timeout=remaining,
                stdin=json.dumps(spec),
                hash_seed=secrets.randbelow(2**32),
                # nothing an example or the module writes reaches the host's disk: the
                # sandbox's own /tmp (64 MiB) is where it can write
                writable=False,
            )
        if run.timed_out:
            return Outcome(None, "stopped at the time limit", "timeout")
        if run.returncode == IMPORT_FAILED and not statements:
            said = quoted(run.stderr.strip(), 200)
            return Outcome(None, f"{self.module} cannot be imported ({said})", "import")
        if run.returncode != 0:
            said = quoted(run.stderr.strip(), 200) or "no message"
            return Outcome(None, f"the example ended with exit {run.returncode} ({said})", "failed")
        return _Ran(run.stdout, _marks(run.stderr, nonce), run.cut)

    def example(self, statements: list[str], imported: _Ran) -> list[Printed] | Outcome:
        """What each statement printed: P_k's output after P_(k-1)'s."""
        rows: list[Printed] = []
        before = imported
        changes = "what the statements before it print changes from run to run"
        first_import = next(
            (k for k, s in enumerate(statements, 1) if _imports(s, self.module)), None
        )
        for k in range(1, len(statements) + 1):
            run = self.run(statements[:k])
            if isinstance(run, Outcome):
                return run
            if not (
                run.stdout.startswith(before.stdout)
                and run.marks[: len(before.marks)] == before.marks
            ):
                return rows + [Printed(unjudged=changes)] * (len(statements) - len(rows))
            printed = _printed(run.stdout[len(before.stdout) :], run.marks[len(before.marks) :])
            if k == first_import:
                # in a reader's session the module is imported here: what that prints
                printed = dataclasses.replace(printed, got=imported.stdout + printed.got)
            rows.append(printed)
            if run.cut:
                why = f"a statement before it printed more than {OUTPUT_LIMIT_BYTES} bytes"
                return rows + [Printed(unjudged=why)] * (len(statements) - len(rows))
            before = run
        # the whole example again, under other hash seeds: more times when what it
        # printed could hold something whose order is a matter of chance
        again = 4 if not _ORDERED.search(before.stdout) else 10
        for _ in range(again if statements else 0):
            run = self.run(statements)
            if isinstance(run, Outcome):
                return run
            if (run.stdout, run.marks) != (before.stdout, before.marks):
                rows[-1] = Printed(unjudged="what it prints changes from run to run")
                break
        return rows


# output that may show a collection, whose order can change with the hash seed
_ORDERED = re.compile(r"[{\[(,]")


def _imports(statement: str, module: str) -> bool:
    """The statement imports the module (`import calc`, `from calc import add`)."""
    tree = parsed(statement)
    return tree is not None and any(
        (isinstance(n, ast.ImportFrom) and n.module == module)
        or (isinstance(n, ast.Import) and any(a.name == module for a in n.names))
        for n in ast.walk(tree)
    )


def _marks(stderr: str, nonce: str) -> list[str]:
    """The marks the harness wrote (harness.MARK with this process's nonce), without
    it; the rest of standard error (a module's warnings, which name its folder,
    different for each process, or its log, which may echo what it was given) is not
    read."""
    head = f"{MARK}{nonce} "
    return [x[len(head) :] for x in stderr.splitlines() if x.startswith(head)]


def _printed(got: str, marks: list[str]) -> Printed:
    """What a statement printed, from its output and the marks it left."""
    if UNORDERED in marks:
        return Printed(
            got=got,
            unjudged="it shows a set of text, whose order changes from one run of Python "
            "to the next: show it sorted (sorted(...))",
        )
    displayed = DISPLAYED in marks
    raised = [m for m in marks if m.startswith(EXCEPTION + " ")]
    if not raised:
        return Printed(got=got, displayed=displayed)
    try:
        message = json.loads(raised[-1][len(EXCEPTION) + 1 :])
    except json.JSONDecodeError:
        message = None
    if not isinstance(message, str):
        return Printed(got=got, unjudged="the exception it raised could not be read")
    return Printed(got=got, raised=message)


def quoted(text: str, limit: int = 300) -> str:
    """What an example printed, as a finding may quote it: bounded, and without control
    characters (a terminal's escape codes, text-direction overrides)."""
    text = TERMINAL_CONTROLS.sub("", text).strip()
    return text if len(text) <= limit else text[: limit - 1] + "…"


# --- the copy of the source's folder -------------------------------------------------


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
