"""Runs inside the sandbox (batch.judging.doc_examples): import the module, then run
the statements of one example as a fresh interactive session would: what each prints
(an expression's value through the display hook) goes to standard output, an exception
it raises to standard error as a marked line (MARK), and so does a note when the prompt
displayed a value, and when that value holds a set of text; nothing else is written.
Standard library only; imports nothing of briefloop, whose code is not what is being
tested.

It holds nothing that decides the verdict: it is never told the results the doc shows,
it writes no report, it holds no key and nothing of any other example. briefloop, outside
the sandbox, reads what the whole process printed and compares it there.

Reads {"module": name, "names": [...], "statements": [source, ...], "mark": text} as
JSON on its standard input, which is closed before the module is imported; the folder was
copied into the working folder as the package `_src`. The statements see the module
under its name and the names listed (those the source defines), nothing else of it.
Exits with IMPORT_FAILED, the reason on standard error, when the module cannot be
imported.
"""

import importlib
import io
import json
import os
import sys
import traceback

IMPORT_FAILED = 3
# lines of standard error that briefloop reads, each starting with MARK and the spec's
# "mark" (new for each process: text an example or the module's log echoes cannot carry
# it): an exception a statement raised (its message as JSON, so no message can end the
# line early), a value the prompt displayed, and one with a set of text in it, whose
# order differs from one run of Python to the next
MARK = "\x00briefloop-"
EXCEPTION = "exception"
DISPLAYED = "displayed"
UNORDERED = "unordered"
_mark = ""


def mark(kind, payload=""):
    sys.stdout.flush()
    sys.stderr.write(f"{MARK}{_mark} {kind} {payload}".rstrip() + "\n")
    sys.stderr.flush()


def load(name):
    here = os.getcwd()
    sys.path[:0] = [os.path.join(here, "_src"), here]
    # A file named like a standard module that Python has loaded already (token.py,
    # types.py...) must be the one the examples run against, also in their own imports.
    sys.modules.pop(name, None)
    try:
        return importlib.import_module(name)
    except ImportError as e:
        if "relative import" not in str(e):
            raise
    return importlib.import_module("_src." + name)  # a module of a package: as one


def take_spec():
    """The spec from standard input, which is then closed and replaced by an empty one."""
    spec = json.loads(sys.stdin.buffer.read().decode("utf-8"))
    sys.stdin.close()
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.close(devnull)
    sys.stdin = io.StringIO("")
    return spec


def show_exception(error):
    """An exception as Python shows its last lines (the type, the message, any notes),
    on one line of standard error."""
    lines = traceback.format_exception_only(type(error), error)
    # a SyntaxError's first lines point into the code; the message starts at the first
    # line that is not indented
    first = next((i for i, x in enumerate(lines) if not x[:1].isspace()), 0)
    mark(EXCEPTION, json.dumps("".join(lines[first:]).rstrip("\n")))


def textual(value):
    """Hashed by its text, which a hash seed orders differently on each run."""
    return isinstance(value, str | bytes) or (
        isinstance(value, tuple) and any(textual(v) for v in value)
    )


def unordered(value, depth=0):
    """`value` holds a set of text (str or bytes) of more than one item."""
    if depth > 4:
        return False
    if isinstance(value, set | frozenset):
        if len(value) > 1 and any(textual(v) for v in value):
            return True
        items = list(value)
    elif isinstance(value, dict):
        items = list(value.values())[:1000]
    elif isinstance(value, list | tuple):
        items = list(value[:1000])
    else:
        return False
    return any(unordered(v, depth + 1) for v in items)


def displayhook(value):
    try:
        mixed = unordered(value)
    except Exception:  # noqa: BLE001 - a value that cannot be looked into is not a set
        mixed = False
    if mixed:
        mark(UNORDERED)
    sys.__displayhook__(value)
    if value is not None:
        mark(DISPLAYED)


def end():
    """End here, without the exit hooks: what the module prints as the process ends
    belongs to no statement, and would be read as the last one's."""
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)


def main():
    global _mark
    spec = take_spec()
    _mark = spec["mark"]
    try:
        module = load(spec["module"])
    except BaseException as e:  # noqa: BLE001 - any failure to import is the answer
        sys.stderr.write("".join(traceback.format_exception_only(type(e), e)))
        sys.stderr.flush()
        os._exit(IMPORT_FAILED)
    own = vars(module)
    names = {k: own[k] for k in spec["names"] if k in own}
    # the module's own names win over the module's name: `chunks` in chunks.py is the
    # function, not the module
    namespace = {spec["module"]: module, **names, "__name__": "__example__"}
    sys.displayhook = displayhook
    for index, source in enumerate(spec["statements"]):
        try:
            # "single": an expression's value is printed, as at the interactive prompt
            code = compile(source, f"<example statement {index + 1}>", "single", dont_inherit=True)
            exec(code, namespace)
        except BaseException as e:  # noqa: BLE001 - an exception is the statement's output
            show_exception(e)
        sys.stdout.flush()
    end()


if __name__ == "__main__":
    main()
