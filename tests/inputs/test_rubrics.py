import pytest
from pydantic import ValidationError

from batch.errors import InputError
from batch.inputs.house_rules import load_house_rules, parse_banned_phrases
from batch.inputs.rubrics import load_rubric
from batch.loop.answers import critic_schema

from conftest import REPO


@pytest.mark.parametrize("name", ["memo", "product-description", "api-docs"])
def test_shipped_rubrics_load(name):
    r = load_rubric(REPO / "rubrics", name)
    assert r.criteria and 0 < r.threshold <= 100


def test_weighted_score_is_computed_in_code():
    r = load_rubric(REPO / "rubrics", "memo")
    top = {c.name: 5 for c in r.criteria}
    bottom = {c.name: 1 for c in r.criteria}
    assert r.weighted_score(top) == 100.0
    assert r.weighted_score(bottom) == 0.0
    mixed = dict(top, covers_brief=1)  # weight 3 of 9
    assert r.weighted_score(mixed) == pytest.approx(66.7)
    with pytest.raises(ValueError, match="outside"):
        r.weighted_score(dict(top, clarity=9))


def test_critic_schema_requires_every_criterion_in_range():
    r = load_rubric(REPO / "rubrics", "memo")
    schema = critic_schema(r)
    ok = {"must_fix": [], "would_improve": [], "scores": {c.name: 3 for c in r.criteria}}
    assert schema.model_validate(ok).scores.clarity == 3
    with pytest.raises(ValidationError):
        schema.model_validate({**ok, "scores": {"clarity": 3}})
    with pytest.raises(ValidationError):
        schema.model_validate({**ok, "scores": {c.name: 0 for c in r.criteria}})
    assert set(schema.model_json_schema()["required"]) == {"must_fix", "would_improve", "scores"}


def test_unknown_rubric_lists_the_known_ones():
    with pytest.raises(InputError, match="known in .*memo"):
        load_rubric(REPO / "rubrics", "nope")
    with pytest.raises(InputError):
        load_rubric(REPO / "rubrics", "../house_rules/default")


def test_banned_phrases_from_house_rules():
    text = '# Rules\n- be nice\n## Banned phrases\n- "leverage"\n- synergy\n## Other\n- x\n'
    assert parse_banned_phrases(text) == ("leverage", "synergy")
    assert "leverage" in load_house_rules(REPO / "house_rules", "default").banned_phrases
