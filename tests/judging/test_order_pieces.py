"""A piece of an order counts as the order pasted only when it carries the order's own
words: a piece the brief also gives as a fact ("(red pepper)" inside "Prices are £6.50
(red pepper) ... but no prices on the menu") is the fact, said as the text should."""

from __future__ import annotations

import pytest

from batch.judging import checks
from batch.judging.checklist import build_checklist
from batch.thread_inputs import ThreadBrief


def echoes(brief: str, draft: str) -> list[str]:
    """The echo:brief findings on `draft`, with the messages they would show."""
    checklist = build_checklist(ThreadBrief(id="b", text=brief))
    found = checks.judge(
        checks.CheckContext(draft=draft, sources=(brief,), brief=brief, checklist=checklist)
    ).findings
    return [f["message"] for f in found if f["code"].startswith("echo:brief")]


SOUPS = (
    "- Need menu blurbs for our two new soups.\n"
    "- Roasted red pepper & tomato: smoked paprika, and it's vegan.\n"
    "- Chicken, leek & barley: with thyme.\n"
    "- Prices are £6.50 (red pepper) and £7.25 (chicken), but no prices on the menu.\n"
)
CAFE = (
    "Write a short post for the café's page.\n"
    "- The café is cosy, with a fire in winter.\n"
    "- Keep it warm (the café is cosy), no jargon.\n"
)
CLOSURE = (
    "A note for staff about the closure.\n"
    "- The office closes on Friday at 15:00 for maintenance by the facilities team.\n"
    "- Keep it friendly, not pushy, and short (the facilities team).\n"
)


@pytest.mark.parametrize(
    ("brief", "draft"),
    [
        # the reported text: the soup's name is the fact, not the price order
        (
            SOUPS,
            "Roasted red pepper & tomato: smoked paprika, and it's vegan.\n"
            "Chicken, leek & barley: with thyme.",
        ),
        (SOUPS, "**Chicken, leek & barley**: slow-cooked with thyme."),
        # an aside of a tone order that the brief also gives as a fact
        (CAFE, "The café is cosy, with a fire in winter. Come in from the cold."),
        # an aside of the order that is a fact the brief gives
        (CLOSURE, "The office closes on Friday at 15:00. The facilities team does the work."),
    ],
)
def test_a_piece_the_brief_gives_as_a_fact_is_no_pasted_order(brief, draft):
    assert echoes(brief, draft) == []


@pytest.mark.parametrize(
    ("brief", "draft", "order"),
    [
        (SOUPS, "Roasted red pepper & tomato, vegan. No prices on the menu.", "no prices"),
        (CAFE, "The café is cosy, with a fire in winter. No jargon here.", "no jargon"),
        (
            CLOSURE,
            "The office closes on Friday at 15:00. Friendly, not pushy: the team.",
            "not pushy",
        ),
    ],
)
def test_a_piece_with_the_orders_own_words_is_still_the_order_pasted(brief, draft, order):
    found = echoes(brief, draft)
    assert len(found) == 1 and order.split()[-1] in found[0].lower(), found


# "Tell staff X", "Write a note that X": the text that says X carries the order out
TELL_STAFF = (
    "Tell staff the office closes on Friday at 15:00.",
    "The office closes on Friday at 15:00.",
)
RELAYS = [
    TELL_STAFF,
    (
        "Write a note that the lift is out of order until Monday.",
        "The lift is out of order until Monday.",
    ),
    (
        "Let everyone know the canteen opens at 8:00 from Monday.",
        "The canteen opens at 8:00 from Monday.",
    ),
]


@pytest.mark.parametrize(
    ("brief", "draft"),
    [
        # the order's 3-word runs are most of what it hands over ("the office closes on
        # Friday"): the order counts as copied only with its own word ("tell"), so
        # saying what it hands over is not copying it
        TELL_STAFF,
        *RELAYS[1:],
    ],
)
def test_a_text_that_says_what_a_relay_order_hands_over_does_not_copy_the_order(brief, draft):
    assert echoes(brief, draft) == []


@pytest.mark.parametrize(("brief", "draft"), RELAYS)
def test_the_relay_order_itself_pasted_is_still_refused(brief, draft):
    assert echoes(brief, brief + " " + draft) != []
