"""docs/extending.md's example check, built from the guide's own code block: it runs,
it is scored as the guide says, the loop repairs it one sentence at a time, and the docs
list it. If the guide's code or its claims drift from the product, this fails."""

from __future__ import annotations

import re
from pathlib import Path

from batch.judging import checks
from batch.judging.checklist import brief_checklist
from batch.judging.checks import CheckContext, check_reference
from batch.loop.writing.repairs import Repairer

GUIDE = Path(__file__).resolve().parents[2] / "docs" / "extending.md"
BRIEF = (
    "Write a short memo to the warehouse team.\n\n"
    "- The loading dock closes at 14:00 on Thursday for resurfacing.\n"
    "- Trucks go to gate B for the afternoon.\n"
)
CALM = (
    "The loading dock closes at 14:00 on Thursday for resurfacing. Trucks go to gate "
    "B for the afternoon. Thank you for your patience."
)
LOUD = (
    "The loading dock closes at 14:00 on Thursday for resurfacing! Trucks go to gate "
    "B for the afternoon!! Thank you for your patience."
)


def guide_module() -> dict:
    block = re.search(
        r"<!-- example check: begin -->\n```python\n(.*?)```\n"
        r"<!-- example check: end -->",
        GUIDE.read_text(encoding="utf-8"),
        re.S,
    )
    assert block, "docs/extending.md has lost its example check"
    namespace: dict = {"__name__": "guide_example"}
    exec(compile(block[1], str(GUIDE), "exec"), namespace)
    return namespace


def context(draft: str, brief: str = BRIEF) -> CheckContext:
    return CheckContext(
        draft=draft,
        sources=(brief,),
        brief=brief,
        checklist=brief_checklist(brief) if brief else [],
    )


def registry_with_example():
    return (*checks.REGISTRY, guide_module()["Exclaims"]())


def test_the_guides_check_runs_on_a_memo_and_not_on_api_docs():
    exclaims = guide_module()["Exclaims"]()
    found = list(exclaims.run(context(LOUD)))
    assert len(found) == 2 and len({f["code"] for f in found}) == 2
    assert all(checks.prefix(f["code"]) in exclaims.codes for f in found)
    assert list(exclaims.run(context(CALM))) == []
    assert not exclaims.applies(context("`a != b` is true!", brief=""))


def test_the_guides_check_is_one_unit_however_many_sentences_it_finds():
    registry = registry_with_example()
    calm = checks.judge(context(CALM), registry)
    assert calm.units == checks.judge(context(CALM)).units + 1
    assert calm.score == 100.0 and not calm.must_fix
    one = checks.judge(context(LOUD.replace("!!", ".")), registry)
    two = checks.judge(context(LOUD), registry)
    assert len(two.must_fix) == 2 and len(one.must_fix) == 1
    assert two.score == one.score == round(100 * (calm.units - 1) / calm.units, 1)


def repair(draft: str, registry) -> tuple[str, list]:
    def judge(text, needs):
        return checks.judge(context(text), registry).findings

    outcome = Repairer(judge=judge, ask=lambda *a: None).run(draft, [], judge(draft, []))
    return outcome.draft, outcome.attempts


def test_the_loop_repairs_it_one_sentence_at_a_time_and_loses_no_word():
    draft, attempts = repair(LOUD, registry_with_example())
    assert draft == CALM  # every word kept
    assert [(a.action, a.by, a.kept, len(a.fixed)) for a in attempts] == [
        ("replace", "code", True, 1),
        ("replace", "code", True, 1),
    ]


def test_under_one_code_for_all_a_partial_repair_would_be_rolled_back():
    """What the guide warns of: the same check with one code for every sentence."""
    module = guide_module()

    class OneCode(module["Exclaims"]):
        def run(self, ctx):
            return [{**f, "code": "exclaims"} for f in module["check_exclaims"](ctx.draft)]

    draft, attempts = repair(LOUD, (*checks.REGISTRY, OneCode()))
    assert draft == LOUD and not any(a.kept for a in attempts)


def test_the_docs_list_it_from_its_docstring():
    registry = registry_with_example()
    assert (
        "**Exclaims** (`exclaims`; one unit; repairs: replace): An exclamation mark"
        in check_reference(registry)
    )
    assert check_reference(registry, brief=True).endswith(
        "- An exclamation mark in a text brief's answer\n"
    )
