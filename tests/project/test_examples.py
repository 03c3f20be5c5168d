"""Examples in API docs, found and run against the real module in the sandbox."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from batch.judging import doc_examples

SOURCE = '''"""Small sums."""


def add(a: int, b: int = 1) -> int:
    """a + b; raises ValueError for negative numbers."""
    if a < 0 or b < 0:
        raise ValueError("no negative numbers")
    return a + b
'''

GOOD = """# sums

## add(a, b=1)

```python
>>> add(2, 3)
5
>>> add(2)
3
>>> add(-1)
Traceback (most recent call last):
ValueError: no negative numbers
```
"""


def write_module(folder: Path, source: str = SOURCE, name: str = "sums") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.py"
    path.write_text(source, encoding="utf-8")
    return path


def test_doctests_fenced_or_not_and_annotated_blocks_are_examples():
    doc = (
        "Use it:\n\n    >>> add(1, 2)\n    3\n\n"
        "```python\ntotal = add(2, 2)  # -> 4\nprint(total)\n```\n"
        "```python\ndef add(a: int, b: int = 1) -> int\n```\n"  # a signature, not code
        "```bash\nadd 1 2\n```\n"
        "```python\nimport os\nos.getcwd()\n```\n"
    )  # calls nothing of the module
    found = doc_examples.examples_in(doc, {"add"})
    assert [e.text for e in found] == [
        ">>> add(1, 2)\n3\n",
        # the value an assignment's comment shows is checked too
        ">>> total = add(2, 2)\n>>> total\n4\n>>> print(total)\n",
    ]


def test_annotated_expression_is_compared_with_the_comment():
    [example] = doc_examples.examples_in("```python\nadd(2, 2)  # -> 4\n```\n", {"add"})
    assert example.text == ">>> add(2, 2)\n4\n"


def test_a_doc_whose_examples_are_right_passes(tmp_path):
    v = doc_examples.verify(GOOD, SOURCE, "sums", write_module(tmp_path))
    assert v.findings == [] and v.note == "examples run: 3 of 3 gave the result shown"
    assert v.seconds < 10


def test_a_wrong_result_is_a_must_fix_with_the_real_one(tmp_path):
    doc = GOOD.replace(">>> add(2, 3)\n5", ">>> add(2, 3)\n6")
    v = doc_examples.verify(doc, SOURCE, "sums", write_module(tmp_path))
    [f] = v.findings
    assert f["severity"] == "must_fix" and "shows 6" in f["message"]
    assert "gives 5" in f["message"] and v.note.startswith("examples run: 2 of 3")


def test_an_example_that_raises_is_a_must_fix_with_the_exception(tmp_path):
    doc = "```python\n>>> add(-5, 1)\n4\n```\n"
    [f] = doc_examples.verify(doc, SOURCE, "sums", write_module(tmp_path)).findings
    assert "raises ValueError: no negative numbers" in f["message"]


def test_sibling_and_relative_imports_work_from_a_copy_of_the_folder(tmp_path):
    write_module(tmp_path, "STEP = 7\n", name="settings")
    absolute = "from settings import STEP\n\n\ndef step():\n    return STEP\n"
    doc = "```python\n>>> step()\n7\n```\n"
    v = doc_examples.verify(doc, absolute, "steps", write_module(tmp_path, absolute, "steps"))
    assert v.findings == [] and "1 of 1" in v.note
    relative = absolute.replace("from settings", "from .settings")
    v = doc_examples.verify(doc, relative, "steps2", write_module(tmp_path, relative, "steps2"))
    assert v.findings == [] and "1 of 1" in v.note
    assert not (tmp_path / "__pycache__").exists()  # the real folder is never written


def test_a_module_that_cannot_be_imported_is_not_verified_and_waits_for_a_person(tmp_path):
    source = "import not_installed_anywhere\n\n\ndef add(a, b):\n    return a + b\n"
    doc = "```python\n>>> add(1, 2)\n3\n```\n"
    v = doc_examples.verify(doc, source, "needs", write_module(tmp_path, source, "needs"))
    [finding] = v.findings
    assert finding["code"] == "example-unverified" and finding["severity"] == "must_fix"
    assert "not_installed_anywhere" in finding["message"]
    assert v.note.startswith("examples not run: needs cannot be imported")
    assert "not_installed_anywhere" in v.note


def test_no_example_at_all_is_a_must_fix(tmp_path):
    v = doc_examples.verify(
        "# sums\n\n## add(a, b=1)\n\nAdds.\n", SOURCE, "sums", write_module(tmp_path)
    )
    assert [f["code"] for f in v.findings] == ["example-none"]


def test_an_example_that_never_ends_is_stopped_and_reported(tmp_path):
    doc = "```python\n>>> while True: add(1)\n```\n"
    v = doc_examples.verify(doc, SOURCE, "sums", write_module(tmp_path), timeout=2)
    assert [f["code"] for f in v.findings] == ["example-timeout"] and v.seconds < 8


def test_an_example_that_opens_a_file_is_refused_and_never_run(tmp_path):
    # (what the sandbox itself allows a write to: tests/judging/test_sandbox.py)
    target = Path.home() / "briefloop-escape-test.txt"
    target.unlink(missing_ok=True)
    doc = f"```python\n>>> add(1)\n2\n>>> open({str(target)!r}, 'w').write('x')\n1\n```\n"
    v = doc_examples.verify(doc, SOURCE, "sums", write_module(tmp_path / "src"))
    assert not target.exists()
    [f] = v.findings
    assert f["severity"] == "must_fix" and "it calls open" in f["message"]
    assert f"open({str(target)!r}, 'w')" in f["message"]


def test_without_a_sandbox_nothing_runs_and_a_person_checks(tmp_path, monkeypatch):
    from batch.judging.doc_examples import running

    monkeypatch.setattr(running, "sandbox_problem", lambda: "bubblewrap is not installed")
    v = doc_examples.verify(GOOD, SOURCE, "sums", write_module(tmp_path))
    assert [f["code"] for f in v.findings] == ["example-unverified"]
    assert "bubblewrap is not installed" in v.findings[0]["message"]
    assert v.note == "examples not run: no sandbox (bubblewrap is not installed)"


@pytest.mark.parametrize("name", ["correct-1", "correct-2", "invented-number-1"])
def test_the_judged_loan_docs(name):
    root = Path(__file__).resolve().parents[2] / "bench" / "judge"
    source = root / "briefs" / "loan_calc.py"
    _, head, body = (
        (root / "drafts" / "loan_calc" / f"{name}.md").read_text(encoding="utf-8").split("---\n", 2)
    )
    meta = yaml.safe_load(head)
    v = doc_examples.verify(body, source.read_text(encoding="utf-8"), "loan_calc", source)
    assert bool(v.findings) == (meta["defect"] == "invented_number")


def test_a_module_named_like_a_standard_one_is_the_one_run(tmp_path):
    source = "def issue(n):\n    return n + 1\n"
    doc = "```python\n>>> issue(2)\n3\n```\n"
    v = doc_examples.verify(doc, source, "token", write_module(tmp_path, source, "token"))
    assert v.findings == [] and "1 of 1" in v.note
