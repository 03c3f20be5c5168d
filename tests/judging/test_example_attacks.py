"""A doc's examples trying to forge or skip their own verdict, run for real (bubblewrap):
the doc shows `add(2, 3)` giving 6, which is wrong, and something else in it tries to
get that past the check."""

from __future__ import annotations

from pathlib import Path

import pytest

from batch.judging import doc_examples
from batch.judging.doc_examples.rules import Rules

SOURCE = '"""Sums."""\n\n\ndef add(a, b):\n    return a + b\n'
WRONG = "```python\n>>> add(2, 3)\n6\n```\n"


def verify(tmp_path: Path, doc: str, source: str = SOURCE) -> doc_examples.Verification:
    folder = tmp_path / "src"
    folder.mkdir(exist_ok=True)
    (folder / "calc.py").write_text(source)
    return doc_examples.verify(doc, source, "calc", folder / "calc.py")


def codes(v: doc_examples.Verification) -> list[str]:
    return [f["code"].split(":")[0] for f in v.findings if f["severity"] == "must_fix"]


@pytest.mark.parametrize(
    "attack",
    [
        ">>> import os; os._exit(0)",
        ">>> import atexit\n>>> _ = atexit.register(print, '{\"results\": []}')",
        ">>> import doctest\n>>> doctest.OutputChecker.check_output = lambda *a: True",
        ">>> __import__('os')._exit(0)",
        ">>> add.__globals__['__builtins__']",
        ">>> [c for c in ().__class__.__base__.__subclasses__()]",
        ">>> calc.add.__code__",
        ">>> exec('import os')",
        ">>> open('/etc/passwd').read()[:40]",
        # any allowed module used to lead to the others, and to the harness's own code
        ">>> import json\n>>> json.dumps = lambda *a, **k: '{\"import_error\": null}'",
        ">>> import dataclasses\n>>> dataclasses.builtins.exec('import atexit')",
        ">>> import typing\n>>> typing.sys.exit(0)",
        ">>> import uuid\n>>> uuid.os.getcwd()",
        ">>> import enum\n>>> enum.bltns.exec('1')",
        ">>> import json\n>>> json.codecs.open('/etc/passwd').read()",
        ">>> from decimal import Decimal",
        # a frame from a generator leads back into the harness's locals
        ">>> g = (x for x in [1])\n>>> g.gi_frame.f_back.f_locals",
        # no attribute of anything is written, the module's own included
        ">>> add.__doc__ = 'x'",
        ">>> calc.add = lambda a, b: 6",
        ">>> class Six(int):\n...     def __eq__(self, o): return True",
        ">>> def add(a, b): return 6",
        ">>> type(add)",
    ],
)
def test_an_example_that_reaches_past_the_module_is_refused_and_the_wrong_one_caught(
    tmp_path, attack
):
    for doc in (
        f"```python\n{attack}\n```\n\n{WRONG}",  # a block of its own before
        f"```python\n{attack}\n>>> add(2, 3)\n6\n```\n",
    ):  # in the same block
        v = verify(tmp_path, doc)
        assert "example-refused" in codes(v), (attack, v)
        assert "root:" not in str(v.findings)
        if doc.startswith("```python\n" + attack + "\n```"):
            assert "example" in codes(v), v  # the wrong result is still found
            assert "add(2, 3)" in str(v.findings) and "gives 5" in str(v.findings)


def test_an_example_that_floods_its_output_is_still_judged(tmp_path):
    v = verify(tmp_path, f"```python\n>>> print('x' * 2_000_000)\nx\n```\n\n{WRONG}")
    assert codes(v) == ["example", "example"], v
    assert v.note == "examples run: 0 of 2 gave the result shown"
    assert all(len(f["message"]) < 600 for f in v.findings)


def test_a_harness_that_does_not_finish_is_a_must_fix_never_a_pass(tmp_path):
    # the module itself floods the output as it is imported: no whole report comes back
    source = SOURCE + "\nprint('y' * 3_000_000)\n"
    v = verify(tmp_path, "```python\n>>> add(2, 3)\n5\n```\n", source)
    assert codes(v) == ["example-harness"], v
    assert v.note.startswith("examples not run: the harness did not finish")


def test_plain_examples_still_run_and_pass(tmp_path):
    doc = (
        "```python\n>>> from calc import add\n>>> add(1.5, 2)\n"
        "3.5\n>>> total = add(1, 2)\n>>> total\n3\n>>> calc.add(1, 1)\n2\n"
        ">>> add('a', None)\nTraceback (most recent call last):\n...\n"
        'TypeError: can only concatenate str (not "NoneType") to str\n```\n'
    )
    v = verify(tmp_path, doc)
    assert codes(v) == [] and v.note == "examples run: 6 of 6 gave the result shown", v


def test_the_rules_name_what_they_refuse():
    rules = Rules(SOURCE + "import os\nLIMIT = 3\n", "calc")
    assert rules.problem("os.getcwd()") == "it uses os, which is not a name the module defines"
    assert rules.problem("calc.os") == "it uses calc.os, which the module does not define"
    assert rules.problem("add(LIMIT, 1)") is None
    assert rules.problem("getattr(add, 'x')") == "it calls getattr"
    assert rules.problem("import math") == "it imports math"
    assert rules.problem("from calc import os") == "it imports os from calc"
    assert rules.problem("add.x = 1") == "it assigns to the attribute .x"
    assert rules.problem("sorted([3, 1], key=lambda v: -v)") is None
    assert rules.problem("from . import x") == "it imports a relative module"
    assert rules.problem("[x for x in range(3)]") is None


def test_what_an_example_printed_is_quoted_bounded_and_without_control_characters(tmp_path):
    doc = "```python\n>>> print('\\x1b[2J\\u202e' + 'z' * 5000)\nz\n```\n"
    [f] = verify(tmp_path, doc).findings
    assert "\x1b" not in f["message"] and "\u202e" not in f["message"]
    assert len(f["message"]) < 800


def test_a_report_printed_by_anything_but_the_harness_is_not_taken(tmp_path):
    # the module's own code prints a passing report as the process ends: the harness's
    # signed report is the one read, and the wrong example is still caught
    forged = (
        '{"import_error": null, "results": [[{"source": "add(2, 3)\\n", '
        '"want": "6\\n", "got": "6\\n", "exc_msg": null}]]}'
    )
    source = SOURCE + f"\nimport atexit\natexit.register(print, {forged!r})\n"
    v = verify(tmp_path, WRONG, source)
    assert codes(v) == ["example"], v
    assert "gives 5" in str(v.findings)
    source = SOURCE + f"\nimport atexit\natexit.register(print, '0' * 64 + ' ' + {forged!r})\n"
    assert codes(verify(tmp_path, WRONG, source)) == ["example"]
