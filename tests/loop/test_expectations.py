"""The hand-written expectations (bench/expect/) and their evaluator: every brief the
loop benchmark runs has one, every pattern compiles, and the evaluator's own rules
(facts, gaps as placeholders, numbers from the brief, limits) hold both ways."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from bench import expectations
from bench.loop import DEFAULT_BRIEFS

EXPECT = expectations.load_all()


def _brief_ids() -> list[str]:
    ids = []
    for folder in DEFAULT_BRIEFS:
        for path in sorted(folder.iterdir()):
            if path.suffix == ".md":
                head = path.read_text(encoding="utf-8").split("---\n")
                found = re.search(r"(?m)^id:\s*(\S+)", head[1]) if len(head) > 2 else None
                ids.append(found.group(1) if found else path.stem)
            elif path.suffix == ".py":
                ids.append(path.stem)
    return ids


def test_every_benchmarked_brief_has_expectations():
    missing = sorted(set(_brief_ids()) - set(EXPECT))
    assert not missing, f"no bench/expect/<id>.yaml for {missing}"


@pytest.mark.parametrize("brief_id", sorted(EXPECT))
def test_every_expectation_names_its_brief_and_compiles(brief_id):
    exp = EXPECT[brief_id]
    assert exp.brief.is_file(), exp.brief
    for entry in [*exp.facts, *exp.must_not]:
        assert entry["say"] and entry["match"], entry
        for pattern in entry["match"]:
            re.compile(pattern)
    for gap in exp.gaps:
        re.compile(gap["placeholder"])
    for pattern in [*exp.may_ask, *exp.no_copy]:
        re.compile(pattern)


def test_the_evaluator_imports_nothing_of_the_checks():
    tree = ast.parse(Path(expectations.__file__).read_text(encoding="utf-8"))
    imported = {n.module or "" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
    imported |= {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    assert not [m for m in imported if m.startswith("batch")]


Q3 = (
    "The team closed 42 new accounts in Q3, up from 35 in Q2. The Berlin office opens "
    "on 1 November. Please update your pipeline in the CRM by Friday. Q3 revenue: "
    "[FIGURE NEEDED: Q3 revenue]."
)


def test_a_text_that_meets_the_q3_expectations_and_ones_that_break_them():
    exp = EXPECT["q3-sales-memo"]
    assert expectations.broken(exp, Q3) == []
    assert expectations.usable("awaiting_human", [])
    assert not expectations.usable("max_rounds", [])
    lost = expectations.broken(exp, Q3.replace(" The Berlin office opens on 1 November.", ""))
    assert [p for p in lost if p.startswith("fact left out")]
    guessed = expectations.broken(exp, Q3.replace("[FIGURE NEEDED: Q3 revenue]", "4.2M EUR"))
    assert any(p.startswith("gap not a placeholder") for p in guessed)
    assert any(p.startswith("numbers no source gives: 4.2") for p in guessed)
    asked = expectations.broken(exp, Q3 + " Office: [DATE NEEDED: Berlin opening day].")
    assert any(p.startswith("placeholder for what the brief gives") for p in asked)
    long = expectations.broken(exp, Q3 + " More." * 200)
    assert any(p.startswith("too long") for p in long)
