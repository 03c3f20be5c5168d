"""One definition of a placeholder: the schema, the checks, filling and suggesting agree."""

from __future__ import annotations

import re

import pytest
from pydantic import ValidationError

from batch import placeholders as ph
from batch.judging.checks import gaps
from batch.loop.answers import HumanNeed

CANDIDATES = [
    "[FIGURE NEEDED: Q3 revenue]",
    "[DATE NEEDED: launch]",
    "[QUOTE NEEDED: CEO]",
    "[REVENUE NEEDED: Q3]",
    "[Figure Needed: Q3 revenue]",
    "[FIGURE NEEDED Q3]",
    "[NEEDED: x]",
    "[TBD]",
    '[FACT NEEDED: a "quoted" thing]',
]


@pytest.mark.parametrize("text", CANDIDATES)
def test_what_the_schema_admits_the_checks_count(text):
    try:
        HumanNeed(placeholder=text, question="?")
        admitted = True
    except ValidationError:
        admitted = False
    in_draft = f"Revenue was {text}."
    counted = ph.find(in_draft) == [text]
    if admitted:
        assert counted and ph.is_placeholder(text) and not ph.misspelled(in_draft)
        assert gaps.check_placeholders(in_draft, [{"placeholder": text, "question": "?"}]) == []
    elif not counted:
        # not a placeholder, yet written as a gap: reported, never taken as finished text
        assert ph.misspelled(in_draft) == [text]


@pytest.mark.parametrize(
    "text",
    ["[REVENUE NEEDED: Q3]", "[VENUE NEEDED: where the dinner is]", "[START TIME NEEDED: x]"],
)
def test_a_label_that_names_what_is_missing_is_a_placeholder_in_a_text(text):
    """A person writes the label for what is missing: the checks count it as they count
    the schema's own labels (the writer's schema keeps its closed list, its grammar)."""
    in_draft = f"The dinner is at {text}."
    assert ph.find(in_draft) == [text] and not ph.misspelled(in_draft)
    assert gaps.check_placeholders(in_draft, ph.needs_of(in_draft, [])) == []
    assert ph.needs_of(in_draft, []) == [{"placeholder": text, "question": ""}]


@pytest.mark.parametrize("text", ["[Venue Needed: x]", "[NEEDED: x]", "[X NEEDED: y]"])
def test_other_spellings_stay_gaps(text):
    assert ph.find(f"At {text}.") == [] and ph.misspelled(f"At {text}.") == [text]


def test_every_label_and_every_suggestion_is_a_placeholder():
    for label in ph.LABELS:
        assert ph.is_placeholder(f"[{label} NEEDED: something]")
    for subject in ("Q3 revenue", "launch date", "contact person", "venue", 'a [b] "c"'):
        suggestion = ph.suggest(subject)
        assert re.fullmatch(ph.SCHEMA_PATTERN, suggestion) and ph.find(suggestion)
    assert ph.is_placeholder(ph.EXAMPLE)


def test_fill_matches_answers_across_spacing_and_case():
    text = "Revenue [FIGURE NEEDED:  Q3 revenue], opening [DATE NEEDED: Berlin]."
    filled = ph.fill(text, {"[figure needed: q3 revenue]": "4.2M EUR"})
    assert filled == "Revenue 4.2M EUR, opening [DATE NEEDED: Berlin]."
    needs = [{"placeholder": "[DATE NEEDED: Berlin]", "question": "When?"}]
    assert ph.unanswered(needs, {"[DATE NEEDED:Berlin]": "May"}) == []
    assert ph.detail("[DATE NEEDED: Berlin]") == "Berlin"


def test_the_writer_is_told_exactly_the_labels_the_schema_admits():
    from batch.prompts import template

    wording = " ".join(template("writer_system").template.split())
    told = re.search(r"one of the words (.+?), then \" NEEDED: \"", wording).group(1)
    assert re.split(r", | or ", told) == list(ph.LABELS)


def test_every_answer_schema_becomes_a_llama_cpp_grammar():
    """llama-cpp-python falls back to "any JSON" when a schema does not convert (a
    `(?:` in the placeholder pattern did that once): each schema must convert, and the
    placeholder rule must be in the grammar."""
    pytest.importorskip("llama_cpp", reason="the embedded extra is not installed")
    from batch.inputs.rubrics import load_rubric
    from batch.loop.answers import FinalizerAnswer, WriterAnswer, critic_schema
    from batch.models.llamacpp import grammar_of

    from conftest import REPO

    writer = grammar_of(WriterAnswer.model_json_schema())
    assert '" NEEDED:"' in writer and '"FIGUR"' in writer
    for name in ("memo", "product-description", "api-docs"):
        grammar_of(critic_schema(load_rubric(REPO / "rubrics", name)).model_json_schema())
    grammar_of(FinalizerAnswer.model_json_schema())
    with pytest.raises(ValueError, match="cannot become a llama.cpp grammar"):
        grammar_of({"type": "string", "pattern": r"^(?:a|b)$"})


def test_the_question_for_a_placeholder_is_drawn_from_its_label_and_detail():
    assert ph.question("[DATE NEEDED: Berlin opening]") == "When is the Berlin opening?"
    assert ph.question("[FIGURE NEEDED: Q3 revenue]") == "What is the Q3 revenue?"
    assert ph.question("[NAME NEEDED: the guest speaker]") == "Who is the guest speaker?"
    assert ph.question("[FACT NEEDED: a venue]") == "What is a venue?"
