"""One place decides what a source file is: `CALC.PY` is documented and judged exactly
as `calc.py` is, from a folder or a sheet, by every reader of exports."""

from __future__ import annotations

import pytest

from batch.inputs.briefs import load_brief_file
from batch.loop.checking import checklist_of, context_of, findings_update
from batch.loop.writing.round import python_source
from batch.run.starting import start_state
from batch.source_files import is_python, is_source, suffix_of

from conftest import make_settings

CALC = '''"""Small sums."""


def add(a, b):
    """The sum of a and b."""
    return a + b


def mul(a, b):
    """The product of a and b."""
    return a * b
'''
JS = "export function add(a, b) { return a + b; }\nexport function mul(a, b) { return a * b; }\n"
# docs that leave `mul` out, and show a wrong example
DOC = "# calc\n\nSmall sums.\n\n## `add(a, b)`\n\nThe sum of a and b.\n"


@pytest.mark.parametrize("name", ["CALC.PY", "Calc.Py", "calc.pY"])
def test_a_python_file_is_python_whatever_the_case_of_its_suffix(name):
    assert suffix_of(name) == ".py" and is_python(name) and is_source(name)


def _judged(project, name: str, source: str) -> tuple[dict, list[str]]:
    path = project / "briefs" / name
    path.parent.mkdir(exist_ok=True)
    path.write_text(source, encoding="utf-8")
    brief = load_brief_file(path, 1_000_000)
    state, _ = start_state(make_settings(project), brief)
    state.update(draft=DOC, needs_from_human=[])
    codes = sorted(
        f["code"] for f in findings_update(state)["findings"] if f["severity"] == "must_fix"
    )
    return state, codes


@pytest.mark.parametrize(
    "upper,lower,source",
    [("CALC.PY", "calc.py", CALC), ("Calc.Py", "calc.py", CALC), ("CALC.JS", "calc.js", JS)],
)
def test_an_upper_case_suffix_gets_every_check_the_lower_case_one_gets(
    project, upper, lower, source
):
    state_upper, found_upper = _judged(project, upper, source)
    state_lower, found_lower = _judged(project, lower, source)
    assert found_lower and found_upper == found_lower  # `mul` is missing in both
    assert [r["kind"] for r in checklist_of(state_upper)] == [
        r["kind"] for r in checklist_of(state_lower)
    ]
    assert context_of(state_upper).source_suffix == context_of(state_lower).source_suffix
    assert python_source(state_upper) == python_source(state_lower)
