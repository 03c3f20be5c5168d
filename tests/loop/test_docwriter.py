"""API docs name by name (batch.loop.writing.docwriter): names from the AST, prose from a scripted
writer, results from really running the examples in the sandbox."""

from __future__ import annotations

from batch.judging import doc_examples
from batch.judging.checklist import source_checklist
from batch.judging.checks import facts
from batch.loop.writing import docwriter

SOURCE = '''"""Convert temperatures."""


def to_celsius(fahrenheit: float) -> float:
    """Degrees Fahrenheit in degrees Celsius."""
    if fahrenheit < -459.67:
        raise ValueError("below absolute zero")
    return (fahrenheit - 32) * 5 / 9


class Scale:
    """A named scale."""

    def __init__(self, name: str, offset: float = 0.0):
        self.name = name
        self.offset = offset

    def shift(self, value: float) -> float:
        """value moved by the offset."""
        return value + self.offset

    def _private(self):
        return None


def _helper():
    return 1
'''


def answers(**by_name):
    """A scripted writer: per qualname, the answers of its samples in order."""
    asked: list[tuple[str, int]] = []

    def ask(name, sample):
        asked.append((name.qualname, sample))
        script = by_name.get(name.qualname, [])
        return script[sample] if sample < len(script) else None

    return ask, asked


def doc(summary, example="", **params):
    return docwriter.NameDoc(summary=summary, parameters=params, example=example)


def real_runner(calls):
    return doc_examples.run_calls(calls, SOURCE, "temps")[0]


def written(module, source, ask=None):
    """The doc of `source`, one sample per name, no example run."""
    return docwriter.DocWriter(
        ask=ask or answers()[0], run_calls=lambda calls: [], samples=1
    ).write(module, source)[0]


def doc_must_fix(doc, module, source):
    """What the registry's checks would block in `doc`, its examples aside."""
    from pathlib import Path

    from conftest import run_checks

    found = run_checks(
        draft=doc,
        sources=(source,),
        checklist=source_checklist(source),
        source_code=source,
        module=module,
        source_suffix=".py",
        source_path=Path(f"{module}.py"),
    )
    return [
        f["code"]
        for f in found
        if f["severity"] == "must_fix" and not f["code"].startswith("example")
    ]


def test_public_names_in_source_order_with_real_signatures_and_raises():
    names = docwriter.names_of(SOURCE)
    assert [(n.qualname, n.kind, n.signature) for n in names] == [
        ("to_celsius", "function", "to_celsius(fahrenheit)"),
        ("Scale", "class", "Scale(name, offset=0.0)"),
        ("Scale.shift", "method", "Scale.shift(value)"),
    ]
    assert names[0].raises == [("ValueError", "below absolute zero")]
    assert "return (fahrenheit - 32)" in names[0].code


def test_an_example_must_be_one_expression_calling_the_name():
    [to_celsius, _, shift] = docwriter.names_of(SOURCE)
    assert docwriter.usable_example(">>> to_celsius(212)", to_celsius) == "to_celsius(212)"
    assert docwriter.usable_example("`to_celsius(50)`", to_celsius) == "to_celsius(50)"
    assert docwriter.usable_example("print(3)", to_celsius) == ""
    assert docwriter.usable_example("x = to_celsius(3)", to_celsius) == ""
    assert docwriter.usable_example(">>> to_celsius(32)\n0.0", to_celsius) == "to_celsius(32)"
    assert docwriter.usable_example("to_celsius(32) -> 0.0", to_celsius) == "to_celsius(32)"
    assert docwriter.usable_example("to_celsius(32)  # 0.0", to_celsius) == "to_celsius(32)"
    assert docwriter.usable_example("```python\nto_celsius(5)\n```", to_celsius) == "to_celsius(5)"
    assert docwriter.usable_example("Scale('k', 2).shift(1)", shift) == "Scale('k', 2).shift(1)"


def test_the_doc_is_assembled_by_code_and_shows_what_running_gives():
    ask, asked = answers(
        to_celsius=[
            doc(
                "Converts Fahrenheit to Celsius.",
                "to_celsius(212)",
                fahrenheit="degrees Fahrenheit",
            )
        ],
        # the first answer's example is no call of the name: a second sample is drawn
        Scale=[
            doc("A scale with an offset.", "len('x')"),
            doc("A scale with an offset.", "Scale('kelvin')"),
        ],
        **{"Scale.shift": [doc("Moves a value by the offset.", "Scale('k', 2.5).shift(1)")]},
    )
    text, log = docwriter.DocWriter(ask, real_runner).write("temps", SOURCE)
    assert asked == [("to_celsius", 0), ("Scale", 0), ("Scale", 1), ("Scale.shift", 0)]
    assert text.startswith("# `temps`\n\nConvert temperatures.\n\n## `to_celsius(fahrenheit)`")
    assert "- `fahrenheit`: degrees Fahrenheit" in text
    assert "Raises `ValueError` (below absolute zero)." in text
    assert ">>> to_celsius(212)\n100.0\n```" in text
    assert "### `Scale.shift(value)`" in text and ">>> Scale('k', 2.5).shift(1)\n3.5" in text
    # a value whose repr changes from run to run (an object's address) is not shown
    assert ">>> Scale('kelvin')" not in text
    assert [e["example_ran"] for e in log] == [True, False, True]
    # and the checks the loop runs on it agree: every example gives the result shown
    verified = doc_examples.verify(text, SOURCE, "temps")
    assert verified.note == "examples run: 2 of 2 gave the result shown", verified.findings
    assert not facts.check_requirements(text, source_checklist(SOURCE))


def test_a_raising_example_shows_its_exception_and_a_silent_writer_leaves_the_docstring():
    ask, _ = answers(to_celsius=[doc("Converts.", "to_celsius(-500)")])
    text, log = docwriter.DocWriter(ask, real_runner).write("temps", SOURCE)
    assert (
        ">>> to_celsius(-500)\nTraceback (most recent call last):\n    ...\n"
        "ValueError: below absolute zero\n```"
    ) in text
    # no answer for Scale: its docstring stands in, and no example is made up
    assert "## `Scale(name, offset=0.0)`\n\nA named scale.\n\nParameters:" in text
    assert [e["answered"] for e in log] == [True, False, False]
    assert doc_examples.verify(text, SOURCE, "temps").note.startswith("examples run: 1 of 1")


def test_nothing_ran_means_no_example_is_shown():
    ask, _ = answers(to_celsius=[doc("Converts.", "to_celsius(1)")])
    text, log = docwriter.DocWriter(ask, lambda calls: None).write("temps", SOURCE)
    assert ">>>" not in text and not log[0]["example_ran"]


def test_an_example_that_fails_for_another_reason_is_left_out():
    # Scale.shift returns a float: chaining another call on it is the example's mistake
    ask, _ = answers(**{"Scale.shift": [doc("Moves a value.", "Scale('k').shift(1).real()")]})
    text, log = docwriter.DocWriter(ask, real_runner).write("temps", SOURCE)
    assert "Scale('k').shift(1)" not in text and "Traceback" not in text
    assert not log[2]["example_ran"]


def test_a_function_named_like_its_module_is_the_function_in_its_examples():
    source = (
        '"""Chunks."""\n\n\ndef chunks(items, size):\n'
        "    return [items[i:i + size] for i in range(0, len(items), size)]\n"
    )
    results, why = doc_examples.run_calls(["chunks([1, 2, 3], 2)"], source, "chunks")
    assert why == "" and results[0].got.strip() == "[[1, 2], [3]]"


def test_a_names_docstring_is_its_prose_and_the_summary_stands_in_only_without_one():
    """What the author wrote of a name's behaviour is never lost to, nor contradicted by,
    a model's summary; a name without a docstring gets the summary."""
    source = SOURCE.replace('        """value moved by the offset."""\n', "")
    ask, _ = answers(
        to_celsius=[
            docwriter.NameDoc(
                "It subtracts 32 and drops any value below absolute zero.",
                {"fahrenheit": "a temperature"},
                "",
            )
        ],
        Scale=[docwriter.NameDoc("A scale that rounds its values.", {}, "")],
        **{"Scale.shift": [docwriter.NameDoc("The value plus the scale's offset.", {}, "")]},
    )
    doc, _ = docwriter.DocWriter(ask=ask, run_calls=lambda calls: [], samples=1).write(
        "temps", source
    )
    assert "Degrees Fahrenheit in degrees Celsius." in doc
    assert "A named scale." in doc
    assert "drops any value" not in doc and "rounds" not in doc
    assert "The value plus the scale's offset." in doc


def test_a_docstrings_prose_ends_at_its_first_section_or_doctest():
    assert (
        docwriter.docstring_prose(
            "Record a request.\n\nA refused request   is not recorded.\n\nArgs:\n    key: who\n"
        )
        == "Record a request. A refused request is not recorded."
    )
    assert docwriter.docstring_prose("Whole seconds.\n\n>>> f('1h')\n3600") == "Whole seconds."
    assert docwriter.docstring_prose("Sum.\n\nParameters\n----------\nx : int") == "Sum."
    assert (
        docwriter.docstring_prose("Note: prose that opens with a label.")
        == "Note: prose that opens with a label."
    )


RING = '''"""A buffer of the most recent items."""

from __future__ import annotations


class BufferError(ValueError):
    """A capacity that cannot hold anything."""


class Ring:
    """Holds at most capacity items."""

    def __init__(self, capacity: int):
        if capacity < 1:
            raise BufferError(f"capacity must be at least 1, not {capacity}")
        self.items = []
        self.capacity = capacity

    def __len__(self) -> int:
        return len(self.items)

    def __iter__(self):
        return iter(self.items)
'''


def test_what_code_knows_of_a_class_is_said_and_passes_the_checks():
    """Its base classes, what Python's syntax does with it (len(), for … in), and an
    f-string message with its fill-ins elided: facts of the code, said by code."""
    ask, _ = answers(
        Ring=[docwriter.NameDoc("", {"capacity": "how many items"}, "")],
        BufferError=[docwriter.NameDoc("", {}, "")],
    )
    doc = written("ring", RING, ask)
    assert "`BufferError` is a subclass of `ValueError`." in doc
    assert "`Ring` works with `len()` and iteration (`for … in`)." in doc
    assert "Raises `BufferError` (capacity must be at least 1, not …)." in doc
    assert not doc_must_fix(doc, "ring", RING)


def test_what_a_name_returns_is_said_from_its_annotation_and_passes_the_checks():
    """A caller's first question is what comes back: the annotation as written, for a
    function and a method; nothing for None, no annotation, a class or __init__."""
    source = (
        SOURCE
        + '''

def is_freezing(celsius: float) -> bool:
    """Whether water freezes at this temperature."""
    return celsius <= 0


def log(message: str) -> None:
    """Print a message."""
    print(message)


def untyped(value):
    """value as it is."""
    return value
'''
    )
    doc = written("temps", source)
    sections = {s.split("`")[1].split("(")[0]: s for s in doc.split("\n#")[1:]}
    assert "Returns `bool`." in sections["is_freezing"]
    assert "Returns `float`." in sections["to_celsius"]
    assert "Returns `float`." in sections["Scale.shift"]
    for quiet in ("log", "untyped", "Scale"):
        assert "Returns" not in sections[quiet], quiet
    assert not doc_must_fix(doc, "temps", source)


def test_a_return_annotation_that_says_nothing_to_a_caller_is_left_out():
    source = '''"""m."""
from typing import NoReturn


def fail(message: str) -> NoReturn:
    """Raise always."""
    raise SystemExit(message)


def key(value: int) -> "Key":
    """The key of a value."""
    return value
'''
    doc = written("m", source)
    assert "Returns `NoReturn`" not in doc and "Returns `Key`." in doc
