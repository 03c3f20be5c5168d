"""The checks' registry holds each check to what it declares: the codes of its findings,
the repairs they carry, the score's units and what a person's edit vouches for."""

from __future__ import annotations

import typing

import pytest

from batch.check_types import Finding, Repair
from batch.judging import checks
from batch.judging.checklist import brief_checklist, source_checklist
from batch.judging.checks import Check, CheckContext
from batch.loop.writing.repairs import Repairer

BRIEF = (
    "Write a short memo to the warehouse team.\n\n"
    "- The loading dock closes at 14:00 on Thursday for resurfacing.\n"
    "- Trucks go to gate B for the afternoon.\n"
    "- The reopening date is not known yet.\n"
)
# a draft that breaks most of what a text brief is checked for
BROKEN = (
    "<p>Write a short memo about the dock.</p> The dock closes at 16:00 on Thursday, "
    "as Maria Okafor of Dockworks said. It is a world-class plan. It is a "
    "world-class plan. The dock reopens on Monday. [TBD] [FIGURE NEEDED: cost]\n\n"
    "Per the house rules, this draft answers must_fix."
)
SOURCE = '''def total(a, b):
    """Add two numbers."""
    return a + b
'''
BAD_DOC = (
    "# calc\n\n## total(a, b, c)\n\nAdds.\n\n```python\n>>> total(2, 3)\n6\n```\n\n"
    "## average(xs)\n\nThe mean.\n"
)


def contexts() -> list[CheckContext]:
    text = CheckContext(
        draft=BROKEN,
        needs=[{"placeholder": "[NAME NEEDED: who]"}],
        sources=(BRIEF,),
        max_words=20,
        banned_phrases=("world-class",),
        brief=BRIEF,
        checklist=brief_checklist(BRIEF),
        prompt_texts=("Per the house rules, this draft answers must_fix.",),
    )
    short = CheckContext(
        draft="The loading dock does not close on Thursday for resurfacing.",
        sources=(BRIEF,),
        min_words=40,
        brief=BRIEF,
        checklist=brief_checklist(BRIEF),
    )
    docs = CheckContext(
        draft=BAD_DOC + "\n" + SOURCE,
        sources=(SOURCE,),
        checklist=source_checklist(SOURCE),
        source_code=SOURCE,
        module="calc",
        source_suffix=".py",
    )
    return [text, short, docs, CheckContext(draft="  "), CheckContext(draft="la la la la la la")]


def test_every_check_is_documented_and_its_codes_are_its_own():
    seen: dict[str, str] = {}
    for check in checks.REGISTRY:
        assert (type(check).__doc__ or "").strip(), type(check).__name__
        for code in check.codes:
            assert code not in seen, f"{code} of {type(check).__name__} and {seen[code]}"
            seen[code] = type(check).__name__
        assert check.vouched <= set(check.codes)


def test_each_finding_has_a_declared_code_and_repair():
    actions = set(typing.get_args(typing.get_type_hints(Repair)["action"]))
    fired: set[str] = set()
    for ctx in contexts():
        for check in checks.REGISTRY:
            if not check.applies(ctx):
                continue
            for f in check.run(ctx):
                assert checks.prefix(f["code"]) in check.codes, (type(check).__name__, f)
                if f.get("repair"):
                    assert f["repair"]["action"] in check.repairs, (type(check).__name__, f)
                fired.add(checks.prefix(f["code"]))
        for check in checks.REGISTRY:
            assert check.repairs <= actions
    # the contexts reach the checks that can fail a text, each at least once
    for name in (
        "NoText",
        "Placeholders",
        "PlaceholderForms",
        "Repeated",
        "Html",
        "Numbers",
        "Length",
        "Banned",
        "Requirements",
        "MissingFacts",
        "Contradictions",
        "Names",
        "Echo",
        "ApiDocs",
        "CopiedSource",
        "Examples",
    ):
        [check] = [c for c in checks.REGISTRY if type(c).__name__ == name]
        assert set(check.codes) & fired, name


def test_every_repair_action_is_one_the_repairer_carries_out():
    draft = "The dock closes at 16:00. Trucks go to gate A.\n"
    repairer = Repairer(
        judge=lambda d, n: [],
        ask=lambda d, t, s, w: "The dock closes at 14:00 on Thursday.",
        samples=1,
    )
    for action in typing.get_args(typing.get_type_hints(Repair)["action"]):
        repair = Repair(
            action=action,
            sentences=["The dock closes at 16:00."],
            goal="x",
            fact="the dock closes at 14:00",
            placeholder="[DATE NEEDED: when]",
            words=4 if action == "shorten" else 40,
            old="16:00",
            new="14:00",
        )
        assert list(repairer._candidates.of(draft, repair, [])), action


class Shouting(Check):
    """A text in capitals."""

    codes = ("shouting",)
    vouched = frozenset({"shouting"})

    def run(self, ctx: CheckContext) -> list[Finding]:
        if ctx.draft.isupper():
            return [Finding(code="shouting", message="Do not shout.", severity="must_fix")]
        return []


def test_a_check_added_to_the_registry_is_run_scored_and_vouched_for():
    ctx = CheckContext(draft="THE DOCK CLOSES AT 14:00.", sources=("14:00",))
    before = checks.judge(ctx)
    after = checks.judge(ctx, (*checks.REGISTRY, Shouting()))
    assert after.units == before.units + 1
    assert [f["code"] for f in after.must_fix] == [f["code"] for f in before.must_fix] + [
        "shouting"
    ]
    assert after.score < before.score
    assert "shouting" not in {f["code"] for f in after.unvouched()}


def test_the_score_counts_the_checks_that_ran_and_the_checklist_items():
    checklist = brief_checklist(BRIEF)
    ctx = CheckContext(
        draft="The dock closes at 14:00 on Thursday.",
        sources=(BRIEF,),
        brief=BRIEF,
        checklist=checklist,
    )
    judged = checks.judge(ctx)
    ran = [c for c in checks.REGISTRY if c.applies(ctx) and type(c).__name__ != "NoText"]
    assert judged.units == sum(c.units(ctx) for c in ran)
    items = sum(
        1
        for r in checklist
        if r["kind"] in checks.facts.Requirements.item_kinds | checks.gaps.MissingFacts.item_kinds
    )
    assert judged.units == items + sum(1 for c in ran if c.scored and not c.item_kinds)
    assert judged.score == round(
        100 * (judged.units - checks.failed_units(judged.must_fix, judged.weights)) / judged.units,
        1,
    )
    assert checks.judge(CheckContext(draft="")).score == 0.0


def test_a_persons_figures_and_names_are_vouched_for_but_not_a_banned_phrase():
    ctx = CheckContext(
        draft="Maria Okafor says revenue was 4.2M, a world-class result.",
        sources=("Memo on revenue.",),
        banned_phrases=("world-class",),
    )
    stands = {checks.prefix(f["code"]) for f in checks.judge(ctx).unvouched()}
    assert stands == {"banned"}
    assert checks.vouched_codes() == {
        "number",
        "name",
        "missing-placeholder",
        "gap-guessed",
        "taken-back",
    }


def test_each_finding_of_a_check_has_its_own_code():
    """The repairer keeps a change only when the must-fix codes shrink: two findings
    under one code would roll back every repair that fixes one of them."""
    for ctx in contexts():
        for check in checks.REGISTRY:
            if check.applies(ctx):
                codes = [f["code"] for f in check.run(ctx)]
                assert len(codes) == len(set(codes)), (type(check).__name__, codes)


class Loud(Check):
    """Each sentence with an exclamation mark (one unit, however many)."""

    codes = ("loud",)

    def run(self, ctx: CheckContext) -> list[Finding]:
        return [
            Finding(code=f"loud:{n}", message="Calm down.", severity="must_fix")
            for n, s in enumerate(ctx.draft.split("."))
            if "!" in s
        ]


def loud_score(draft: str, registry: tuple[Check, ...]) -> tuple[float, int]:
    judged = checks.judge(CheckContext(draft=draft, sources=(draft,)), registry)
    return judged.score, judged.units


@pytest.mark.parametrize("loud", [1, 2, 5])
def test_a_check_fails_at_most_its_own_units_however_much_it_finds(loud):
    registry = (*checks.REGISTRY, Loud(), Shouting())
    calm, units = loud_score("The dock closes at noon. Trucks use gate B.", registry)
    draft = " ".join(["Trucks use gate B!."] * loud) + " The dock closes at noon."
    score, _ = loud_score(draft, registry)
    assert calm == 100.0 and score == round(100 * (units - 1) / units, 1)


def test_an_item_check_fails_one_unit_per_item_and_an_unscored_one_fails_one():
    weights = {"Requirements": 3, "Contradictions": 0, "Numbers": 1}
    finding = lambda code: Finding(code=code, message=code, severity="must_fix")  # noqa: E731
    uncovered = [finding(f"uncovered:R{n}") for n in range(1, 5)]
    assert checks.failed_units(uncovered[:2], weights) == 2
    assert checks.failed_units(uncovered, weights) == 3  # four items' findings, three units
    assert (
        checks.failed_units([finding("contradiction:R1"), finding("contradiction:R2")], weights)
        == 1
    )
    assert (
        checks.failed_units(
            [finding("number:4"), finding("number:5"), finding("uncovered:R1")], weights
        )
        == 2
    )
    warn = Finding(code="number:6", message="x", severity="warn")
    assert checks.failed_units([warn], weights) == 0
