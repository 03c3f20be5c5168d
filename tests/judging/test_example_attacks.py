"""A doc's examples trying to forge or skip their own verdict, run for real (bubblewrap):
the doc shows `add(2, 3)` giving 6, which is wrong, and something else in it tries to
get that past the check. Two layers are tested apart: the rules (what an example may
say, read before it runs) and the process boundary (what running one can change,
tested with the rules out of the way)."""

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
    assert v.note.startswith("examples not run: importing calc printed more than")
    # a module that ends the process as it is imported, or one that cannot be imported:
    # nothing ran, so nothing is verified, and a person checks it
    for broken, code in (
        ("import os\nos._exit(9)\n", "example-harness"),
        ("1/0\n", "example-unverified"),
    ):
        v = verify(tmp_path, "```python\n>>> add(2, 3)\n5\n```\n", SOURCE + broken)
        assert codes(v) == [code], (broken, v)


def test_plain_examples_still_run_and_pass(tmp_path):
    doc = (
        "```python\n>>> from calc import add\n>>> add(1.5, 2)\n"
        "3.5\n>>> total = add(1, 2)\n>>> total\n3\n>>> calc.add(1, 1)\n2\n"
        ">>> add('a', None)\nTraceback (most recent call last):\n...\n"
        'TypeError: can only concatenate str (not "NoneType") to str\n```\n'
    )
    v = verify(tmp_path, doc)
    # the import and the assignment show nothing: they vouch for no result
    assert codes(v) == [] and v.note == "examples run: 4 of 4 gave the result shown", v


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


def test_what_the_module_prints_as_it_ends_is_no_statement_s_output(tmp_path):
    # the module's own code prints a passing report as the process ends: no report is
    # read at all, and what exit hooks print is not taken for the last statement's
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


SOURCE_TWO = SOURCE + "\n\ndef mul(a, b):\n    return a * b\n"


@pytest.mark.parametrize(
    "attack",
    [
        # the module under another name leads to what it imports
        ">>> x = calc\n>>> x.os",
        ">>> [calc][0].os",
        ">>> (m := calc)",
        ">>> import calc as c",
        ">>> {'m': calc}['m']",
        ">>> print(calc)",
        ">>> for m in [calc]:\n...     m",
        ">>> import calc\n>>> calc.os.getcwd()",
        # a name of the module made to mean something else
        ">>> add = lambda a, b: 6",
        ">>> from calc import mul as add",
        ">>> from calc import add as plus",
        ">>> for add in [lambda a, b: 6]:\n...     pass",
        ">>> (add := lambda a, b: 6)",
        ">>> del add",
        ">>> calc = [1]",
        ">>> sorted([1], key=lambda add: add)",
        ">>> try:\n...     mul(1, None)\n... except TypeError as add:\n...     pass",
        # a format string reads attributes by names the rules never see
        ">>> '{0.__globals__}'.format(add)",
        ">>> '{a.__code__}'.format_map({'a': add})",
        ">>> s = '{0.gi_frame}'\n>>> s.format((x for x in [1]))",
    ],
)
def test_an_example_may_not_rename_or_rebind_the_module_or_format_by_name(tmp_path, attack):
    v = verify(tmp_path, f"```python\n{attack}\n```\n\n{WRONG}", SOURCE_TWO)
    assert "example-refused" in codes(v), (attack, v)
    assert "gives 5" in str(v.findings), v  # the wrong one is still caught


def test_the_rules_still_let_plain_examples_through():
    rules = Rules(
        SOURCE_TWO + "\n\nclass Money:\n    def format(self):\n        return 'x'\n", "calc"
    )
    for fine in (
        "calc.add(1, 2)",
        "import calc",
        "from calc import add, mul",
        "total = add(1, 2)",
        "[mul(x, 2) for x in range(3)]",
        "Money().format()",  # the module's own method called format
        "f'{add(1, 2)}'",
    ):
        assert rules.problem(fine) is None, fine
    # a module named like its own function: that name is the function
    chunks = Rules("def chunks(xs, n):\n    return [xs]\n", "chunks")
    assert chunks.problem("chunks([1, 2], 1)") is None


@pytest.mark.parametrize(
    "directive,shown",
    [
        ("+SKIP", "6"),
        ("+ELLIPSIS", "..."),
        ("+NORMALIZE_WHITESPACE", "6"),
        ("+IGNORE_EXCEPTION_DETAIL", "6"),
        ("+SKIP, +ELLIPSIS", "6"),
    ],
)
def test_a_doctest_directive_is_a_finding_and_changes_no_comparison(tmp_path, directive, shown):
    v = verify(tmp_path, f"```python\n>>> add(2, 3)  # doctest: {directive}\n{shown}\n```\n")
    assert "example-directive" in codes(v), v
    assert "example" in codes(v) and "gives 5" in str(v.findings), v  # still run, still wrong
    assert v.note == "examples run: 0 of 1 gave the result shown"
    # on a right result the directive is still a finding
    right = verify(tmp_path, f"```python\n>>> add(2, 3)  # doctest: {directive}\n5\n```\n")
    assert codes(right) == ["example-directive"], right


@pytest.mark.parametrize(
    "call,shown,passes",
    [
        ("'a  b'", "'a b'", False),  # one space shown where the code gives two
        ("1 == 1", "1", False),  # True shown as 1
        (
            "list(range(30))",
            "[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14,\n"
            " 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29]",
            True,
        ),
        ("print('a\\n\\nb')", "a\n<BLANKLINE>\nb", True),
        ("add(2, 3)", "5", True),
    ],
)
def test_a_result_compares_as_shown_only_its_line_breaks_may_differ(tmp_path, call, shown, passes):
    v = verify(tmp_path, f"```python\n>>> {call}\n{shown}\n```\n")
    assert (codes(v) == []) is passes, v


# -- the process boundary, with the rules out of the way: what running an example can
# change is what its own statements print, nothing else


def run_raw(tmp_path, examples, source=SOURCE):
    from batch.judging.doc_examples import running

    folder = tmp_path / "src"
    folder.mkdir(exist_ok=True)
    (folder / "calc.py").write_text(source)
    return running.run_statements(examples, source, "calc", folder / "calc.py")


@pytest.mark.parametrize(
    "attack",
    [
        # rewrite the module file for whoever imports it next
        ["open('_src/calc.py', 'w').write('def add(a, b):\\n    return 6\\n')"],
        # make every later value print as 6: the display hook, stdout, builtins
        ["import sys", "sys.displayhook = lambda v: print(6)"],
        ["import sys, io", "sys.stdout.write = lambda t: 0"],
        ["import builtins", "builtins.repr = lambda v: '6'"],
        # end the process early, or print what a report or a boundary could look like
        ["import os", "os.write(1, b'6\\n')", "os._exit(0)"],
        ["import atexit", "atexit.register(print, '6')"],
        ["import gc", "[o.clear() for o in gc.get_objects() if isinstance(o, list)]"],
        [
            "import threading, time, os",
            "threading.Thread(target=lambda: (time.sleep(0.2), os.write(1, b'6\\n'))).start()",
        ],
    ],
)
def test_one_example_cannot_change_what_another_prints(tmp_path, attack):
    outcome = run_raw(tmp_path, [attack, ["add(2, 3)"], ["add(1, 1)"]])
    assert outcome.printed is not None, outcome
    assert outcome.printed[1][0].got == "5\n" and outcome.printed[2][0].got == "2\n"


def test_the_sandbox_is_never_told_a_result_the_doc_shows(tmp_path, monkeypatch):
    from batch.judging.doc_examples import running

    sent = []
    real = running.run_sandboxed

    def recording(argv, workdir, **kw):
        sent.append(kw.get("stdin") or "")
        sent.extend(p.read_text(errors="replace") for p in Path(workdir).rglob("*") if p.is_file())
        return real(argv, workdir, **kw)

    monkeypatch.setattr(running, "run_sandboxed", recording)
    doc = "```python\n>>> add(20, 30)\n4711\n>>> add(1, 2)  # a comment\n'shown-result'\n```\n"
    v = verify(tmp_path, doc)
    assert codes(v) == ["example", "example"]
    assert sent and not any("4711" in s or "shown-result" in s for s in sent)


def test_statements_of_one_example_see_each_other_as_in_a_session(tmp_path):
    outcome = run_raw(
        tmp_path,
        [["x = add(1, 2)", "print('between')", "x", "add(x, None)", "x + 1"]],
    )
    [rows] = outcome.printed
    assert [r.got for r in rows] == ["", "between\n", "3\n", "", "4\n"]
    assert rows[3].raised.startswith("TypeError: unsupported operand")


def test_output_that_changes_from_run_to_run_is_not_judged(tmp_path):
    source = SOURCE + "\nimport random\n\n\ndef roll():\n    print(random.random())\n"
    outcome = run_raw(tmp_path, [["roll()", "add(2, 3)"]], source)
    [rows] = outcome.printed
    assert rows[1].unjudged, rows  # what came before it differs between the two runs


# -- a second adversarial pass: each doc shows something a fresh session would not
# print, or hides a result from the check; none may pass

F = "```"
ADD = SOURCE
IMPORT_PRINT = '"""Sums."""\nprint("calc ready")\n\n\ndef add(a, b):\n    return a + b\n'
TAGS = '"""Tags."""\n\n\ndef tags(text):\n    return set(text.split())\n'
WRAP = (
    '"""Text."""\n\n\ndef wrap(text, width):\n    return text\n\n\n'
    'def pad(s, n):\n    return " " * n + s\n'
)
PARSE = (
    '"""Parse."""\n\n\ndef parse(s):\n    if not s.isdigit():\n'
    '        raise ValueError(f"cannot parse {s!r}\\nexpected digits only")\n    return int(s)\n'
)
ALIAS = '"""Sums."""\nimport operator\n\nadd = operator.add\n'
INSTANCE = (
    '"""Parse."""\n\n\nclass Parser:\n    def parse(self, s):\n        return int(s) * 2\n\n\n'
    "default = Parser()\n"
)
MONEY = (
    '"""Money."""\nimport os\n\n\nclass Money:\n    def format(self):\n        return "x"\n\n\n'
    "def total():\n    return 1\n\n\ndef greet(name):\n    return 'Hello ' + name\n"
)
NOTED = (
    '"""Checks."""\n\n\ndef check(i):\n    try:\n        raise ValueError("bad value")\n'
    '    except ValueError as e:\n        e.add_note(f"on line {i}")\n        raise\n'
)

WRONG_BUT_HIDDEN = {
    # a binding that never runs leaves the builtin's name usable
    "builtin bound, never run": (
        ADD,
        '>>> if False: eval = 0\n>>> eval("globals().update(add=lambda a, b: 7)")\n'
        ">>> add(2, 2)\n7\n",
    ),
    "builtin bound to itself": (ADD, ">>> open = open\n>>> add(2, 2)\n7\n"),
    "builtin as a lambda default": (ADD, ">>> (lambda vars=vars: vars)()\n>>> add(2, 2)\n7\n"),
    # what the module prints as it is imported is not the first statement's
    "import output credited": (IMPORT_PRINT, ">>> add(2, 3)\ncalc ready\n5\n"),
    # the order of a set of strings is a matter of chance
    "set order": (
        '"""Tags."""\n\n\ndef tags(t):\n    return set(t.split())\n',
        ">>> tags('red green blue')\n{'red', 'green', 'blue'}\n",
    ),
    "hash of the seed": (ADD, '>>> add(2, 2) + (hash("a") == 4644417185603328019)\n5\n'),
    # white space: only a value's line breaks may differ
    "one line shown as three": (WRAP, '>>> print(wrap("aaa bbb ccc", 3))\naaa\nbbb\nccc\n'),
    "leading spaces dropped": (WRAP, '>>> print(pad("7", 3))\n7\n'),
    "blank lines dropped": (WRAP, '>>> print("\\n\\n" + wrap("x", 1))\nx\n'),
    # exceptions: the whole message, and only a real one
    "last line of a message": (
        PARSE,
        '>>> parse("x")\nTraceback (most recent call last):\nexpected digits only\n',
    ),
    "assert with a message": (
        ADD,
        '>>> assert add(2, 2) == 5, "sum\\nTypeError: unsupported operand"\n'
        "Traceback (most recent call last):\nTypeError: unsupported operand\n",
    ),
    "printed traceback": (
        ADD,
        '>>> print(add(2, 2)); print("Traceback (most recent call last):"); '
        'print("ValueError: no")\nTraceback (most recent call last):\nValueError: no\n',
    ),
    "bare printed header": (
        ADD,
        '>>> print(add(2, 3)); print("Traceback (most recent call last):")\n5\n',
    ),
    # examples hidden from the check by where they stand or how they show a result
    "text fence": (ADD, f"{F}text\n>>> add(2, 3)\n6\n{F}\n"),
    "python-repl fence": (ADD, f"{F}python-repl\n>>> add(2, 3)\n6\n{F}\n"),
    "tab after the prompt": (ADD, ">>>\tadd(2, 3)\n6\n"),
    "block quote": (ADD, "> >>> add(2, 3)\n> 6\n"),
    "indented fence": (ADD, f"1. Call it:\n\n   {F}python\n   add(2, 3)  # -> 6\n   {F}\n"),
    "assignment comment": (ADD, f"{F}python\ntotal = add(2, 3)  # -> 6\n{F}\n"),
    "first-line comment": (ADD, f"{F}python\nadd(2,  # -> 6\n    3)\n{F}\n"),
    "bare comment": (ADD, f"{F}python\nadd(2, 3)  # 6\n{F}\n"),
    "== comment": (ADD, f"{F}python\nadd(2, 3)  # == 6\n{F}\n"),
    "result: comment": (ADD, f"{F}python\nadd(2, 3)  # result: 6\n{F}\n"),
    "code after a doctest": (ADD, f"{F}python\n>>> add(1, 1)\n2\n\nadd(2, 3)  # -> 6\n{F}\n"),
    "prompt in a string": (
        ADD,
        f'{F}python\nadd(2, 3)  # -> 6\nx = """\n>>> print(1)\n"""\n{F}\n',
    ),
    "a name assigned, not defined": (ALIAS, f"{F}python\nadd(2, 3)  # -> 6\n{F}\n"),
    "an instance's method": (INSTANCE, f"{F}python\ndefault.parse('2')  # -> 5\n{F}\n"),
    # a third pass: fences that were read wrong or not at all
    "block with an indented line": (
        ADD,
        f"{F}python\nadd(2, 3)  # -> 6\nfor i in range(2):\n    add(i, 1)\n{F}\n",
    ),
    "block that does not parse": (ADD, f"{F}python\nadd(2, 3)  # -> 6\nadd(<a>, <b>)\n{F}\n"),
    "tilde fence": (ADD, "~~~python\nadd(2, 3)  # -> 6\n~~~\n"),
    "ipython fence": (ADD, f"{F}ipython\nIn [1]: add(2, 3)\nOut[1]: 6\n{F}\n"),
    "fence in a markdown fence": (
        ADD,
        f"````markdown\n{F}python\nadd(2, 3)  # -> 6\n{F}\n````\n",
    ),
    "constructor-looking comment": (ADD, f"{F}python\nadd(2, 3)  # Decimal('6')\n{F}\n"),
    "comment on a doctest line": (ADD, ">>> total = add(2, 3)  # -> 6\n"),
    "comment contradicting its doctest": (ADD, ">>> add(2, 3)  # -> 6\n5\n"),
    "block continuing another": (
        ADD,
        f"{F}python\nt = add(2, 3)\n{F}\n\n{F}python\nt * 2  # -> 11\n{F}\n",
    ),
    "two values printed side by side": (ADD, ">>> print([add(1, 0)], [add(1, 1)])\n[1]\n[2]\n"),
    "the prompt's underscore": (
        ADD,
        f"{F}python\nadd(2, 3)\nadd(1, 1)  # -> 2\n_ + 1  # -> 6\n{F}\n",
    ),
    "a two-word set": (TAGS, ">>> tags('green x')\n{'x', 'green'}\n"),
    "a set inside a list": (TAGS, ">>> [tags('cat apple')]\n[{'cat', 'apple'}]\n"),
    "a header inside a message": (
        ADD,
        '>>> assert add(2, 2) == 5, "\\nTraceback (most recent call last):\\nTypeError: no"\n'
        "Traceback (most recent call last):\nTypeError: no\n",
    ),
    "only an exception's note": (
        NOTED,
        ">>> check(2)\nTraceback (most recent call last):\non line 2\n",
    ),
    "format on a module function's string": (
        MONEY,
        ">>> greet('{0.__globals__[os]}').format(greet)\n'x'\n",
    ),
    # a third pass
    "dict built from a set": (
        '"""Words."""\n\n\ndef lengths(t):\n    return {w: len(w) for w in set(t.split())}\n',
        ">>> lengths('apple pear')\n{'pear': 4, 'apple': 5}\n",
    ),
    "a set printed": (TAGS, ">>> print(tags('apple pear'))\n{'pear', 'apple'}\n"),
    "the hashes of two seeds": (
        ADD,
        '>>> add(2, 2) + (hash("a") in (-3012895188637184397, 6352457989142756797))\n5\n',
    ),
    "an exception forged through the module's log": (
        '"""Levels."""\nimport logging\n\n\ndef level(name):\n'
        '    logging.warning("unknown level %s", name)\n    return "INFO"\n',
        ">>> level('loud\\n\\x00briefloop-exception \"ValueError: no\"\\n')\n"
        "Traceback (most recent call last):\nValueError: no\n",
    ),
    "indented prompts in a text fence": (ADD, f"{F}text\nUsage:\n    >>> add(2, 3)\n    6\n{F}\n"),
    "a fence closed by a longer one": (
        ADD,
        f"{F}text\nnothing\n````\n\n{F}python\nadd(2, 3)  # -> 6\n{F}\n",
    ),
    "an indented code block": (ADD, "Call it:\n\n    add(2, 3)  # -> 6\n"),
    "a py3 fence": (ADD, f"{F}py3\nadd(2, 3)  # -> 6\n{F}\n"),
    "a comment in a text fence": (ADD, f"{F}text\nadd(2, 3)  # -> 6\n{F}\n"),
    "line ends of another system": (ADD, f"{F}python\r\n>>> add(2, 3)\r\n6\r\n{F}\r\n"),
    "a printed claim": (ADD, f"{F}python\nprint(add(2, 3))  # prints: 6\n{F}\n"),
    "an output comment over lines": (
        ADD,
        f"{F}python\nprint(add(2, 3))  # Output:\n# 6\n{F}\n",
    ),
    "printed text in brackets over lines": (
        ADD,
        ">>> print(f'({add(2, 1)} passed, {add(0, 1)} failed)')\n(3\npassed, 1\nfailed)\n",
    ),
    "str subclass beside a format method": (
        '"""R."""\nimport os\n\n\nclass Slug(str):\n    pass\n\n\n'
        "class Report:\n    def format(self):\n        return 'r'\n",
        ">>> Slug('{0.__class__}').format(Report())\n'x'\n",
    ),
    "a very deep expression": (ADD, ">>> add(1, " + "-" * 3000 + "1)\n2\n"),
    "the module's import output under its import": (
        IMPORT_PRINT,
        ">>> import calc\n>>> add(1, 1)\n2\n",
    ),
    "a name the example does not import": (
        SOURCE_TWO,
        ">>> from calc import add\n>>> mul(2, 3)\n6\n",
    ),
    # a fourth pass
    "a # in a string before the comment": (
        ADD,
        f'{F}python\nadd(len("#ab"), 0)  # (7, 1)\n{F}\n\n    add(len("#a"), 0)  # -> 9\n',
    ),
    "output in a fence of its own": (
        ADD,
        f"{F}python\nprint(add(2, 3))\n{F}\n\nOutput:\n\n{F}\n6\n{F}\n",
    ),
    "other arrows": (
        ADD,
        f"{F}python\nadd(2, 3)  # ==> 6\nadd(2, 3)  # --> 6\nadd(2, 3)  # Out: 6\n"
        f"add(2, 3)  # evaluates to 6\nadd(2, 3)  # returned: 6\nadd(2, 3)  # ⇒ 6\n{F}\n",
    ),
    "a text set joined": (
        TAGS,
        ">>> print(' '.join(tags('a b c d')))\na b c d\n",
    ),
    "a prompt in a comment shifting the rest": (
        ADD,
        f"{F}python\nNone  # -> >>> None\nadd(2, 3)  # -> 6\ny = 1\n{F}\n",
    ),
    # a fifth pass
    "a comment after a string over lines": (
        '"""W."""\n\n\ndef word_count(text):\n    return len(text.split())\n',
        f'{F}python\nword_count("""The cat\ndidn\'t sit""")  # -> 5\n{F}\n',
    ),
    "an arrow on a line of a block never run": (
        ADD,
        "Call it:\n\n    total = add(2, 3)\n    total  # -> 6\n\n"
        f"{F}text\nadd(2,\n    3)  # -> 6\n{F}\n",
    ),
    "a float with more digits than it holds": (ADD, ">>> add(1e16, 1.0)\n10000000000000001.0\n"),
    "a string broken over lines": (
        '"""G."""\n\n\ndef greet(n):\n    return "Hello, " + n\n',
        ">>> greet('Ann')\n'Hello,\nAnn'\n",
    ),
    # the module's own method called format, on a string of the example's
    "format beside a format method": (
        MONEY,
        '>>> "{0.__globals__[os].environ}".format(total)\n{}\n',
    ),
}


@pytest.mark.parametrize("case", list(WRONG_BUT_HIDDEN))
def test_a_wrong_or_hidden_result_never_passes(tmp_path, case):
    source, doc = WRONG_BUT_HIDDEN[case]
    v = verify(tmp_path, doc + "\n>>> 1 + 1\n2\n", source)
    assert codes(v), (case, v)
    assert v.note != "examples run: 2 of 2 gave the result shown", v


RIGHT = {
    "import output apart": (IMPORT_PRINT, ">>> add(2, 3)\n5\n"),
    "set of small numbers": (ADD, ">>> {add(1, 1), add(0, 1)}\n{1, 2}\n"),
    "whole message": (
        PARSE,
        '>>> parse("x")\nTraceback (most recent call last):\n    ...\n'
        "ValueError: cannot parse 'x'\nexpected digits only\n",
    ),
    "text fence": (ADD, f"{F}text\n>>> add(2, 3)\n5\n{F}\n"),
    "indented fence": (ADD, f"1. Call it:\n\n   {F}python\n   add(2, 3)  # -> 5\n   {F}\n"),
    "assignment comment": (ADD, f"{F}python\ntotal = add(2, 3)  # -> 5\nadd(total, 1)\n{F}\n"),
    "an instance's method": (INSTANCE, f"{F}python\ndefault.parse('2')  # -> 4\n{F}\n"),
    "the module's own format": (MONEY, ">>> Money().format()\n'x'\n"),
    "a comment that is prose": (ADD, f"{F}python\n# add two numbers\nadd(2, 3)  # -> 5\n{F}\n"),
    "prose comments on assignments": (
        ADD,
        f"{F}python\nscores = {{}}  # {{player: points}}\nprice = add(100, 50)  # (in cents)\n"
        f"result = add(2, 3)  # returns the sum\nadd(price, 0)  # -> 150\n{F}\n",
    ),
    "a block that prints": (
        ADD,
        f"{F}python\nfrom calc import add\nprint(add(2, 3))\n{F}\n\n>>> add(1, 1)\n2\n",
    ),
    "a block with a loop": (
        ADD,
        f"{F}python\ntotal = 0\nfor i in range(3):\n    total = add(total, i)\n"
        f"total  # -> 3\n{F}\n",
    ),
    "an annotated assignment": (ADD, f"{F}python\nx: int = add(2, 3)  # -> 5\n{F}\n"),
    "a signature shown as code": (
        ADD,
        f"{F}python\nadd(a, b)\n{F}\n\n{F}python\ndef add(a: int, b: int) -> int: ...\n{F}\n"
        ">>> add(1, 1)\n2\n",
    ),
    "a fenced traceback in full": (
        PARSE,
        f'{F}python\n>>> parse("x")\nTraceback (most recent call last):\n'
        f'  File "<stdin>", line 1, in <module>\n'
        f"ValueError: cannot parse 'x'\nexpected digits only\n{F}\n",
    ),
    "fenced leading spaces": (WRAP, f'{F}python\n>>> print(pad("7", 3))\n   7\n{F}\n'),
    "a warning on stderr": (
        '"""Sums."""\nimport warnings\n\n\ndef add(a, b):\n'
        '    warnings.warn("old")\n    return a + b\n',
        ">>> add(2, 3)\n5\n>>> add(1, 1)\n2\n",
    ),
    "trailing spaces in the result": (ADD, ">>> add(2, 3)\n5  \n"),
    "a common name that is a builtin's": (ADD, ">>> id = add(1, 2)\n>>> id\n3\n"),
    "a whole exception with its note": (
        NOTED,
        ">>> check(2)\nTraceback (most recent call last):\n    ...\n"
        "ValueError: bad value\non line 2\n",
    ),
    "a set of numbers": (ADD, ">>> {add(1, 1), add(0, 1)}\n{1, 2}\n"),
    "None in a comment": (ADD, f"{F}python\nprint(add(1, 1))  # prints: 2\nNone  # -> None\n{F}\n"),
    "another quote style": (
        '"""G."""\n\n\ndef greet(n):\n    return "Hello, " + n\n',
        f'{F}python\ngreet("Ann")  # -> "Hello, Ann"\n{F}\n',
    ),
    "an underscore loop": (
        ADD,
        f"{F}python\ntotal = 0\nfor _ in range(3):\n    total = add(total, 1)\n"
        f"total  # -> 3\n{F}\n",
    ),
    "a plain template": (ADD, ">>> '{} has {:.1f}'.format('a', add(1, 1))\n'a has 2.0'\n"),
    "import of every name": (ADD, ">>> from calc import *\n>>> add(1, 2)\n3\n"),
    "import output shown under the import": (
        IMPORT_PRINT,
        ">>> from calc import add\ncalc ready\n>>> add(1, 1)\n2\n",
    ),
    "the module's names through its import": (ADD, ">>> import calc\n>>> calc.add(1, 1)\n2\n"),
    "prose comments about printing": (
        ADD,
        f"{F}python\n# Print the sum\nprint(add(2, 3))  # print it\n"
        f"out = add(2, 3)  # output value\nadd(2, 3)  # outputs it\n"
        f"result = add(2, 3)  # ...\n{F}\n",
    ),
    "a constructor written with other quotes": (
        '"""Money."""\nfrom decimal import Decimal\n\n\ndef price(x):\n    return Decimal(x)\n',
        f'{F}python\nprice("12.00")  # -> Decimal("12.00")\n{F}\n',
    ),
    "a # inside a string": (
        '"""Q."""\n\n\ndef select(q):\n    return q.upper()\n',
        f"{F}python\nselect(\"#output\")  # -> '#OUTPUT'\n{F}\n",
    ),
    "a definition per platform": (
        '"""N."""\nimport sys\n\nif sys.platform == "win32":\n'
        '    def newline():\n        return "\\r\\n"\n'
        'else:\n    def newline():\n        return "\\n"\n',
        ">>> from calc import newline\n>>> len(newline()) >= 1\nTrue\n",
    ),
    "a module's own format method": (
        '"""R."""\n\n\nclass Report:\n    def format(self):\n        return "r"\n',
        ">>> Report().format()\n'r'\n",
    ),
}


@pytest.mark.parametrize("case", list(RIGHT))
def test_a_right_result_still_passes(tmp_path, case):
    source, doc = RIGHT[case]
    v = verify(tmp_path, doc, source)
    assert codes(v) == [], (case, v)


def test_nothing_an_example_or_the_module_writes_reaches_the_hosts_disk(tmp_path):
    # many files, each under the per-file limit: written to the host, they once added up
    # to gigabytes
    source = SOURCE + (
        "\nimport os\n\n\ndef flood(where):\n"
        "    written = 0\n"
        "    try:\n"
        "        for i in range(30):\n"
        "            with open(os.path.join(where, f'flood{i}.bin'), 'wb') as f:\n"
        "                for _ in range(10):\n"
        "                    f.write(b'x' * 1024 * 1024)\n"
        "                    written += 1\n"
        "    except OSError:\n"
        "        pass\n"
        "    return written\n"
    )
    outcome = run_raw(
        tmp_path,
        [["flood('.')"], ["import os", "flood(os.environ['HOME']) <= 64"], ["flood('/tmp') <= 64"]],
        source,
    )
    assert outcome.printed is not None, outcome
    assert outcome.printed[0][0].got == "0\n"  # its own folder is read-only
    assert outcome.printed[1][1].got == "True\n"  # its home is that /tmp
    assert outcome.printed[2][0].got == "True\n"  # /tmp is a small private tmpfs
