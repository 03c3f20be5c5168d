"""Runs inside the sandbox (batch.judging.doc_examples): import the module, run each example through
doctest, print one JSON line of results. Standard library only; imports nothing of
briefloop, whose code is not what is being tested.

Reads _examples.json ({"module": name, "examples": [doctest text, ...]}) from the
working folder, where the source's folder was copied as the package `_src`, and a key
on its standard input, which it reads and closes before anything else runs. Its last
line is `<HMAC-SHA256 of the report under that key> <the report as JSON>`: a report an
example prints does not carry a valid signature, since no example can read the key.
"""

import doctest
import hashlib
import hmac
import importlib
import io
import json
import os
import sys
import traceback

GOT_LIMIT = 4000


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


class Recorder(doctest.DocTestRunner):
    def __init__(self):
        # NORMALIZE_WHITESPACE: line breaks in a long shown value; never ELLIPSIS, which
        # would let "..." stand in for any result
        super().__init__(verbose=False, optionflags=doctest.NORMALIZE_WHITESPACE)
        self.rows = []

    def report_start(self, out, test, example):
        pass

    # What each example gave, for briefloop to judge: the comparison with the result
    # shown is made outside the sandbox. `got` is cut, so that one example printing a
    # flood still leaves a report that fits.
    def _row(self, example, got, **more):
        return {
            "source": example.source,
            "want": example.want,
            "got": got[:GOT_LIMIT],
            "exc_msg": example.exc_msg,
            **more,
        }

    def report_success(self, out, test, example, got):
        self.rows.append(self._row(example, got))

    def report_failure(self, out, test, example, got):
        self.rows.append(self._row(example, got))

    def report_unexpected_exception(self, out, test, example, exc_info):
        error = "".join(traceback.format_exception_only(exc_info[0], exc_info[1])).strip()
        self.rows.append(self._row(example, "", error=error))


def take_key():
    """The signing key from standard input, which is then closed: nothing that runs
    after this can read it again."""
    key = sys.stdin.buffer.readline().strip()
    sys.stdin.close()
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.close(devnull)
    sys.stdin = io.StringIO("")
    return key


def signed(key, report):
    payload = json.dumps(report)
    return hmac.new(key, payload.encode("utf-8"), hashlib.sha256).hexdigest() + " " + payload


def main():
    key = take_key()
    with open("_examples.json", encoding="utf-8") as f:
        spec = json.load(f)
    report = {"import_error": None, "results": []}
    try:
        module = load(spec["module"])
    except BaseException as e:  # noqa: BLE001 - any failure to import is the report
        report["import_error"] = "".join(traceback.format_exception_only(type(e), e)).strip()
        print(signed(key, report))
        return
    parser = doctest.DocTestParser()
    for index, text in enumerate(spec["examples"]):
        names = {k: v for k, v in vars(module).items() if not k.startswith("__")}
        # the module's own names win over the module's name: `chunks` in chunks.py is
        # the function, not the module
        globs = {spec["module"]: module, **names, "__name__": "__example__"}
        runner = Recorder()
        try:
            test = parser.get_doctest(text, globs, f"example {index + 1}", None, 0)
        except ValueError as e:  # malformed doctest text
            runner.rows.append(
                {
                    "source": text,
                    "want": "",
                    "got": "",
                    "exc_msg": None,
                    "error": f"not a valid example: {e}",
                }
            )
        else:
            runner.run(test, out=io.StringIO().write, clear_globs=True)
        report["results"].append(runner.rows)
    print("\n" + signed(key, report))


if __name__ == "__main__":
    main()
