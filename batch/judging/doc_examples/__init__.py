"""The examples in API docs of a Python file, run against the real module in a sandbox.

An example is a doctest (`>>> call(...)` and the result shown under it), in a fenced
block or in the text, or a fenced Python block that calls the module; a line of such a
block may show its result in a comment (`total(2, 3)  # -> 5`). Each runs in a fresh
namespace holding the module's names, inside the sandbox (`sandbox`: the examples are
model-written code), each statement's output read from outside the process
(`running`). A shown result that differs from the real one, or an
example that raises, is a must_fix carrying the real output, so the values a finished
doc shows come from running the code, never from the model.

Before anything runs, batch.judging.doc_examples.rules reads each example: one that does more than
call the module (an import of os, a dunder, open) is refused, never run. What each
example printed comes back from the sandbox and is compared here, outside it, the way
doctest compares (no directive changes that: one is itself a must_fix); a run that does
not come back whole is a must_fix, never a pass.

The module is imported from a copy of its folder (sibling imports work, relative ones
too). A module that cannot be imported, or no sandbox on this machine, means nothing is
run: a must_fix says so (a person checks the examples), and so does the verification
note.
"""

from __future__ import annotations

import ast
import doctest
import io
import re
import time
import tokenize
from dataclasses import dataclass, field
from pathlib import Path

from batch.check_types import Finding
from batch.judging.doc_examples.reading import (
    Example,
    Unchecked,
    a_value,
    outside_strings,
    read_examples,
)
from batch.judging.doc_examples.rules import Rules, defined_names, top_level
from batch.judging.doc_examples.running import (
    TIMEOUT_SECONDS,
    Outcome,
    Printed,
    quoted,
    run_statements,
    timed,
)

__all__ = ["CallResult", "Example", "Verification", "examples_in", "run_calls", "timed", "verify"]


@dataclass
class Verification:
    findings: list[Finding] = field(default_factory=list)
    note: str = ""  # for the run record: what was run, or why nothing was
    seconds: float = 0.0


def examples_in(doc: str, names: set[str]) -> list[Example]:
    """Every example in a doc; `names` are the module's names and its own."""
    return read_examples(doc, names)[0]


def public_names(source: str) -> set[str]:
    """The functions and classes the source defines at its top level, not private."""
    return {
        n.name
        for n in top_level(source)
        if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
        and not n.name.startswith("_")
    }


@dataclass(frozen=True)
class CallResult:
    got: str  # what the call printed as its value ("" when it raised)
    error: str = ""  # the exception, "ValueError: below absolute zero"


def run_calls(
    calls: list[str],
    source: str,
    module: str,
    source_path: Path | None = None,
    timeout: float = TIMEOUT_SECONDS,
) -> tuple[list[CallResult] | None, str]:
    """What each call (a Python expression) gives when run against the module, in the
    sandbox, each in a fresh interpreter: the values a doc shows under its examples.
    (None, why) when nothing ran. A call batch.judging.doc_examples.rules refuses is not
    run: its result is that refusal."""
    rules = Rules(source, module)
    refused = {i: rules.problem(c) for i, c in enumerate(calls)}
    to_run = [[c] for i, c in enumerate(calls) if refused[i] is None]
    results: list[CallResult] = []
    if to_run:
        run = run_statements(to_run, source, module, source_path, timeout)
        if run.printed is None:
            return None, run.why
        for [printed] in run.printed:
            error = printed.raised or (f"not run: {printed.unjudged}" if printed.unjudged else "")
            results.append(CallResult(got=printed.got, error=error))
    ran = iter(results)
    return [
        CallResult(got="", error=f"not run: {refused[i]}") if refused[i] is not None else next(ran)
        for i in range(len(calls))
    ], ""


# doctest's comparison, less lenient: "1" is not shown for True
_FLAGS = doctest.DONT_ACCEPT_TRUE_FOR_1
_LINE_BREAK = re.compile(r"[ \t]*\n[ \t]*")
_CLOSING = {"[": "]", "(": ")", "{": "}"}


def _same(checker: doctest.OutputChecker, want: str, got: str, value: bool = False) -> bool:
    """`got` as `want` shows it, the way doctest compares, white space at the end of a
    line aside (a page does not show it). Two differences more are allowed for a value
    the prompt displayed (`value`): the same value written another way (`"a"` for
    `'a'`, as Python reads both), and one value printed on one line (a list, a tuple, a
    dict) shown broken over several to fit the page, each break where the value has a
    space. Nothing else may differ: a string shown with one space where the code gives
    two, or text printed on one line shown on three, does not pass."""
    want, got = _trailing_blanks(want), _trailing_blanks(got)
    if checker.check_output(want, got, _FLAGS):
        return True
    if not value:
        return False
    line = got.removesuffix("\n")
    if "\n" in line:
        return False
    shown = want.removesuffix("\n")
    if _one_bracketed_value(line):
        joined = _LINE_BREAK.sub(" ", shown)
        return joined == line or _same_value(joined, line)
    return "\n" not in shown and _same_value(shown, line)


def _same_value(a: str, b: str) -> bool:
    """`a` and `b` are one Python value written two ways: token for token the same,
    but for how each string is quoted and the spaces between tokens (`"a"` and `'a'`,
    `Decimal("1")` and `Decimal('1')`). A number must be written as the code wrote it:
    `10000000000000001.0` is not `1e+16`, though Python reads both as one float."""
    if not (a_value(a) and a_value(b)):
        return False
    return _value_tokens(a) == _value_tokens(b) is not None


def _value_tokens(text: str) -> list[tuple[int, object]] | None:
    skip = {tokenize.NL, tokenize.NEWLINE, tokenize.ENDMARKER, tokenize.INDENT, tokenize.DEDENT}
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(text.strip()).readline))
        return [
            (t.type, ast.literal_eval(t.string) if t.type == tokenize.STRING else t.string)
            for t in tokens
            if t.type not in skip
        ]
    except (tokenize.TokenError, SyntaxError, ValueError, MemoryError, RecursionError):
        return None


def _trailing_blanks(text: str) -> str:
    return re.sub(r"[ \t]+$", "", text, flags=re.MULTILINE)


def _one_bracketed_value(line: str) -> bool:
    """`line` is one bracketed value: its first bracket closes at its last character
    (`[1] [2]`, two values printed side by side, is not)."""
    if not line or line[0] not in _CLOSING:
        return False
    depth = 0
    for i, ch in outside_strings(line):
        if ch in "[({":
            depth += 1
        elif ch in "])}":
            depth -= 1
            if depth == 0:
                return i == len(line) - 1
    return False


def gave_what_it_shows(
    example: doctest.Example, printed: Printed, checker: doctest.OutputChecker
) -> bool:
    """The verdict on one statement, made here and not in the sandbox: a shown result
    against what it printed, a shown exception against the last line of the one it
    raised."""
    if printed.unjudged:
        return False
    if example.exc_msg is not None or printed.raised:
        return (
            example.exc_msg is not None
            and bool(printed.raised)
            and _same(checker, example.exc_msg, printed.raised + "\n")
        )
    return _same(checker, example.want, printed.got, printed.displayed)


def _message(example: doctest.Example, printed: Printed) -> str:
    call = quoted(example.source.strip(), 120)
    if printed.unjudged:
        return f"The example `{call}` could not be checked: {printed.unjudged}."
    if printed.raised and example.exc_msg is None:
        return (
            f"The example `{call}` raises {quoted(printed.raised, 200)} when run against "
            f"the code: fix the example, or show that exception as its result."
        )
    shown = quoted(example.exc_msg or example.want) or "nothing"
    gives = quoted(printed.raised or printed.got) or "nothing"
    return (
        f"The example `{call}` shows {shown}; run against the code it gives {gives}: "
        f"show the real result."
    )


def _statements(text: str) -> list[doctest.Example] | str:
    """The statements of a doctest-style example, or why it is not a valid one."""
    try:
        return doctest.DocTestParser().get_examples(text)
    except ValueError as e:
        return f"it is not a valid example ({quoted(str(e), 200)})"


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
    doc = doc.replace("\r\n", "\n").replace("\r", "\n")
    names = public_names(source)
    examples, unchecked = read_examples(doc, names | defined_names(source) | {module})
    result = Verification(findings=[_unchecked_finding(u) for u in unchecked])
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
    runnable: list[list[doctest.Example]] = []
    unshown: list[frozenset[int]] = []
    for e in examples:
        refusal = rules.doctest_problem(e.text)
        parsed = _statements(e.text)
        if refusal is None and isinstance(parsed, str):
            refusal = (" ".join(e.text.split()), parsed)
        if refusal is not None:
            statement, problem = refusal
            line = quoted(" ".join(statement.split()), 120)
            result.findings.append(
                Finding(
                    code=f"example-refused:{line[:60]}",
                    severity="must_fix",
                    message=f"The example `{line}` was not run: {problem}. An example shows "
                    f"plain calls of the module's own names.",
                )
            )
            continue
        assert not isinstance(parsed, str)
        runnable.append(parsed)
        unshown.append(e.unshown)
        result.findings += _directive_findings(parsed)
    refused = len(examples) - len(runnable)
    if not runnable:
        result.note = f"examples not run: {len(examples)} refused"
        return result
    run = run_statements(
        [[s.source for s in statements] for statements in runnable],
        source,
        module,
        source_path,
        timeout,
    )
    result.seconds = time.perf_counter() - started
    if run.printed is None:
        result.findings.append(_not_run(run, timeout))
        result.note = f"examples not run: {run.why}"
        return result
    checker = doctest.OutputChecker()
    shown = failed = 0
    for statements, printed, effect_only in zip(runnable, run.printed, unshown, strict=True):
        for index, (example, out) in enumerate(zip(statements, printed, strict=True)):
            right = gave_what_it_shows(example, out, checker) or (
                # run for its effect: what it printed is not shown, so not compared
                index in effect_only and not out.raised and not out.unjudged
            )
            # a statement that shows nothing and gives nothing vouches for no result
            shows = bool(example.want.strip()) or example.exc_msg is not None
            shown += shows or not right
            if right:
                continue
            failed += 1
            call = quoted(example.source.strip(), 120)
            result.findings.append(
                Finding(
                    code=f"example:{call[:60]}",
                    severity="must_fix",
                    message=_message(example, out),
                )
            )
    result.note = (
        (
            f"examples run: {shown - failed} of {shown} gave the result shown"
            if shown
            else "examples run: none shows a result"
        )
        + (f"; {refused} refused" if refused else "")
        + (f"; {len(unchecked)} line(s) showing a result not run" if unchecked else "")
    )
    return result


def _unchecked_finding(line: Unchecked) -> Finding:
    text = quoted(line.text, 120)
    return Finding(
        code=f"example-unchecked:{text[:60]}",
        severity="must_fix",
        message=f"Line {line.line} (`{text}`) shows a call or a result that is never run: "
        f"write it as a doctest (`>>> call` and the result under it) in a python block, or "
        f"take the result out.",
    )


def _directive_findings(statements: list[doctest.Example]) -> list[Finding]:
    """A doctest directive (`# doctest: +SKIP`, `+ELLIPSIS`...) turns doctest's check off
    or loosens it for a statement. Here they change nothing (each statement is run and
    compared the same way), and a doc that keeps one tells its readers the example may
    not hold: each is a must-fix."""
    out = []
    for example in statements:
        if example.options:
            call = quoted(example.source.strip(), 120)
            out.append(
                Finding(
                    code=f"example-directive:{call[:60]}",
                    severity="must_fix",
                    message=f"The example `{call}` carries a doctest directive, which turns "
                    f"the check of its result off or loosens it: remove the directive and "
                    f"show the real result.",
                )
            )
    return out


def _not_run(run: Outcome, timeout: float) -> Finding:
    """The must-fix of a doc whose examples gave no result: whatever the reason, nothing
    shows that the results it shows are the real ones."""
    if run.kind == "timeout":
        return Finding(
            code="example-timeout",
            severity="must_fix",
            message=f"Running the examples took longer than {timeout:g}s and was stopped: "
            f"show examples that finish quickly.",
        )
    if run.kind == "failed":
        return Finding(
            code="example-harness",
            severity="must_fix",
            message="Running the examples did not finish normally (the run ended early "
            "or printed too much): show plain calls that return their result.",
        )
    return Finding(
        code="example-unverified",
        severity="must_fix",
        message=f"The examples could not be run ({quoted(run.why, 200)}), so nothing "
        f"shows that the results they show are real: a person has to check them.",
    )
