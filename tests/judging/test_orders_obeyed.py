"""A brief's orders to the writer, in the text: never copied, always carried out. Each
case of the kind that was approved before (a pasted brief, an order pasted into a press
release, a price a menu brief says to leave out, a whole brief read as one item), and
variants of it written for these tests."""

from __future__ import annotations

import pytest

from batch.judging import checks
from batch.judging.checklist import brief_checklist
from batch.judging.checks.obey import unchecked_orders, unread


def findings(brief: str, draft: str, needs=()) -> list[tuple[str, str]]:
    checklist = brief_checklist(brief)
    ctx = checks.CheckContext(
        draft=draft,
        needs=[{"placeholder": p, "question": "?"} for p in needs],
        sources=(brief,),
        brief=brief,
        checklist=checklist,
    )
    return [(f["code"].split(":")[0], f["severity"]) for f in checks.judge(ctx).findings]


def refused(brief: str, draft: str, needs=()) -> set[str]:
    return {code for code, sev in findings(brief, draft, needs) if sev in ("must_fix", "hold")}


SOUPS = {
    "notes": (
        "Need blurbs for the two new soups for the menu board.\n"
        "Leek soup - leeks, potato, chives. £7\n"
        "Mushroom soup - chestnut mushrooms, thyme, cream. £7.50\n"
        "Name in bold, then two lines, no prices.\n"
    ),
    "labels": (
        "What: menu board blurbs for two new soups\n"
        "Leek soup: leeks, potato, chives (£7)\n"
        "Mushroom soup: chestnut mushrooms, thyme, cream (£7.50)\n"
        "Layout: name in bold, then two lines\n"
        "Leave out: the prices\n"
    ),
    "prose": (
        "I need a blurb for each of our two new soups for the menu board. The leek soup "
        "is made with leeks, potato and chives and costs £7; the mushroom soup has chestnut "
        "mushrooms, thyme and cream and costs £7.50. Put the name in bold, then two lines, "
        "and leave the prices off.\n"
    ),
}
SOUP_TEXT = (
    "**Leek soup**\nLeeks and potato, with chives on top.\n\n"
    "**Mushroom soup**\nChestnut mushrooms with thyme and cream."
)


@pytest.mark.parametrize("shape", sorted(SOUPS))
def test_a_soup_brief_pasted_back_is_refused_in_every_shape(shape):
    brief = SOUPS[shape]
    assert refused(brief, brief)


@pytest.mark.parametrize("shape", sorted(SOUPS))
def test_the_blurbs_that_carry_it_out_pass_and_a_price_in_them_does_not(shape):
    brief = SOUPS[shape]
    assert refused(brief, SOUP_TEXT) == set(), findings(brief, SOUP_TEXT)
    priced = SOUP_TEXT.replace("on top.", "on top. Only £7.")
    assert "left-in" in refused(brief, priced)
    # what the brief never said is shown to a person, named (beside a fact of the brief,
    # with no claim word, it does not hold the text)
    sold = SOUP_TEXT.replace("on top.", "on top, slow-cooked every morning in our kitchen.")
    assert ("adds", "warn") in findings(brief, sold)


PRESS = (
    "Press release for the Lumo 2 speaker launch. It ships on 4 March. Battery life: "
    "still waiting on the lab, so don't guess it. Do not compare it with other brands."
)
PRESS_TEXT = "Lumo 2 ships on 4 March. Battery life: [FIGURE NEEDED: battery life of the Lumo 2]."


def test_a_press_release_that_obeys_its_brief_passes():
    assert refused(PRESS, PRESS_TEXT, ["[FIGURE NEEDED: battery life of the Lumo 2]"]) == set()


@pytest.mark.parametrize(
    "pasted",
    [
        "Do not compare it with other brands.",  # the order itself
        "So don't guess it.",  # the missing fact's order
        "It is louder than any other speaker its size.",  # the order broken
        "Unlike other brands, it ships on time.",
    ],
)
def test_an_order_pasted_or_broken_in_the_press_release_is_refused(pasted):
    needs = ["[FIGURE NEEDED: battery life of the Lumo 2]"]
    assert refused(PRESS, f"{PRESS_TEXT} {pasted}", needs) & {"echo", "left-in"}


@pytest.mark.parametrize(
    "unknown",
    [
        "Battery life: still waiting on the lab, so don't guess it.",
        "Battery life: TBC.",
        "We don't have the battery life figure yet.",
        "Battery life - unknown at this point.",
        "Battery life: ? (the lab hasn't sent it)",
        "Can't give the battery life yet, still waiting on the lab.",
    ],
)
def test_a_fact_not_known_in_any_wording_must_be_a_placeholder_not_a_guess(unknown):
    brief = f"Press release for the Lumo 2 speaker launch. It ships on 4 March. {unknown}"
    guessed = "Lumo 2 ships on 4 March. Its battery lasts a full day."
    assert "missing-placeholder" in refused(brief, guessed)
    filled = "Lumo 2 ships on 4 March. Battery life: [FIGURE NEEDED: battery life]."
    assert "missing-placeholder" not in refused(brief, filled, ["[FIGURE NEEDED: battery life]"])


KITCHEN_FACTS = (
    "the kitchen will be closed on Friday 3 May for a deep clean, and staff should take "
    "their food home by Thursday 2 May."
)


@pytest.mark.parametrize(
    "lead",
    ["Write a note that", "Write a memo saying", "Write a note:", "Draft an email telling staff"],
)
def test_a_write_that_brief_is_not_one_unchecked_item(lead):
    brief = f"{lead} {KITCHEN_FACTS}"
    unrelated = "The new coffee machine arrives next week. Enjoy your coffee."
    assert refused(brief, unrelated) & {"uncovered", "brief-unread"}
    good = (
        "The kitchen will be closed on Friday 3 May for a deep clean. Please take your food "
        "home by Thursday 2 May."
    )
    assert refused(brief, good) == set(), findings(brief, good)


@pytest.mark.parametrize(
    "order,broken",
    [
        ("Don't mention integrations.", "Driftbox also integrates with Slack."),
        ("No prices.", "It costs £12 a month."),
        ("Leave the prices out.", "Plans start at 12 pounds."),
        ("No exclamation marks.", "Your files, everywhere!"),
        ("The landlord is Gerald Pike, but leave his name out.", "Contact Gerald Pike."),
        ("Don't compare it with other brands.", "It is faster than other sync tools."),
    ],
)
def test_what_an_order_says_to_leave_out_is_not_in_the_text(order, broken):
    brief = (
        "Write a landing-page section for Driftbox Selective Sync. It syncs chosen folders. "
        + order
    )
    ok = "Driftbox Selective Sync syncs the folders you choose."
    assert "left-in" not in refused(brief, ok), findings(brief, ok)
    assert "left-in" in refused(brief, f"{ok} {broken}")


def test_a_length_for_each_piece_is_kept():
    brief = SOUPS["notes"] + "Keep each blurb under 12 words.\n"
    assert "piece-too-long" not in refused(brief, SOUP_TEXT)
    long = SOUP_TEXT.replace(
        "Leeks and potato, with chives on top.",
        "Leeks and floury potato, slowly simmered and finished with plenty of chives.",
    )
    assert "piece-too-long" in refused(brief, long)


def test_carrying_out_a_readers_order_is_not_copying_it():
    brief = (
        "Invite the team to the summer lunch on Friday 5 July.\n"
        "Please reply to the invitation by Friday 28 June."
    )
    text = (
        "You are invited to the summer lunch on Friday 5 July. "
        "Please reply to the invitation by Friday 28 June."
    )
    assert refused(brief, text) == set(), findings(brief, text)


def test_orders_no_check_can_hold_a_text_to_are_listed_for_the_person():
    brief = SOUPS["notes"] + "Friendly but not gushing.\nDon't mention integrations.\n"
    listed = unchecked_orders(brief_checklist(brief))
    assert any("gushing" in o for o in listed)
    assert any("bold" in o for o in listed)
    # an order a check holds the text to is not listed
    assert not any("integrations" in o for o in listed)


@pytest.mark.parametrize(
    "brief",
    [
        "Kitchen closed Fri 3 May deep clean staff take food home Thu 2 May fridge emptied 5pm",
        "kitchen shut fri 3 may deep clean staff take food home by thu 2 may fridge emptied "
        "5pm thu cleaners in 7am sat 4 may back to normal mon 6 may",
    ],
)
def test_a_brief_read_as_one_item_waits_for_a_person(brief):
    assert unread(brief, brief_checklist(brief))
    assert ("brief-unread", "hold") in findings(brief, "The kitchen is closed.")


def test_a_brief_read_well_is_not_held():
    for brief in [*SOUPS.values(), PRESS, f"Write a note that {KITCHEN_FACTS}"]:
        assert unread(brief, brief_checklist(brief)) == "", brief


@pytest.mark.parametrize(
    "line,subject",
    [
        (
            "There will be a helpline, but we're still waiting on the number from the call centre.",
            "helpline number",
        ),
        ("We still haven't heard back from the agency about the hotel name.", "hotel name"),
        ("We don't have the battery life figure yet.", "battery life figure"),
        ("Device limit per account: engineering haven't told us yet.", "Device limit per account"),
        (
            "We're still waiting on engineering for the device limit per account.",
            "device limit per account",
        ),
        (
            "We haven't heard back from the council about the date of the summer open day.",
            "date of the summer open day",
        ),
    ],
)
def test_the_placeholder_names_what_is_missing_not_who_is_waiting(line, subject):
    [missing] = [r for r in brief_checklist(line) if r["kind"] == "missing"]
    assert missing["subject"] == subject


TOLD = (
    "Reminder to Mrs Hollis that Biscuit's booster is due on 3 March.\n"
    "This year's booster price: not set yet - tell her that.\n"
    "Warm, apologise once. Keep it under 80 words.\n"
)
TOLD_TEXT = (
    "Dear Mrs Hollis, Biscuit's booster is due on 3 March. This year's booster price is "
    "not set yet."
)


@pytest.mark.parametrize(
    "pasted",
    ["We were asked to tell her that.", "Apologise once.", "This note is under 80 words."],
)
def test_a_piece_of_an_order_pasted_is_an_echo(pasted):
    assert "echo" not in refused(TOLD, TOLD_TEXT), findings(TOLD, TOLD_TEXT)
    assert "echo" in refused(TOLD, f"{TOLD_TEXT} {pasted}")


def test_what_an_order_gives_to_be_left_out_is_not_said_in_other_words():
    brief = (
        "Write a landing-page section for Driftbox Selective Sync. It syncs chosen folders.\n"
        "Leave out the roadmap: mobile support comes in the autumn, but it isn't public."
    )
    ok = "Driftbox Selective Sync syncs the folders you choose."
    assert "left-in" not in refused(brief, ok)
    assert "left-in" in refused(brief, f"{ok} Mobile support arrives this autumn.")


def test_a_signature_order_pasted_with_the_name_is_an_echo():
    brief = "Note to the relaunch team: the launch moves to 14 April. Sign it from Marta."
    good = "The launch moves to 14 April.\n\nMarta"
    assert refused(brief, good) == set(), findings(brief, good)
    assert "echo" in refused(brief, "The launch moves to 14 April.\n\nSign it from Marta")


def test_the_lead_of_an_order_to_tell_the_readers_is_never_the_texts():
    brief = (
        "Summary for all staff: email was down on Tuesday.\n"
        "Please tell people: don't resend messages."
    )
    good = "Email was down on Tuesday. Please don't resend your messages."
    assert "echo" not in refused(brief, good), findings(brief, good)
    assert "echo" in refused(
        brief, "Email was down on Tuesday. Please tell people: don't resend messages."
    )


@pytest.mark.parametrize(
    "line,subject",
    [
        ("The page link isn't live yet.", "page link"),
        (
            "The summer open day date: we haven't heard back from the council yet.",
            "The summer open day date",
        ),
    ],
)
def test_a_placeholder_must_name_what_is_missing_not_how_the_brief_said_so(line, subject):
    brief = f"Newsletter item for the garden club. We meet on Sundays. {line}"
    [missing] = [r for r in brief_checklist(brief) if r["kind"] == "missing"]
    assert missing["subject"] == subject
    named = f"We meet on Sundays. [FACT NEEDED: {subject.lower()}]."
    assert "missing-placeholder" not in refused(brief, named, [f"[FACT NEEDED: {subject.lower()}]"])
    if "council" in line:
        cue = "We meet on Sundays. [FACT NEEDED: we haven't heard back from the council]."
        assert "missing-placeholder" in refused(
            brief, cue, ["[FACT NEEDED: we haven't heard back from the council]"]
        )


@pytest.mark.parametrize(
    "meta",
    [
        "Priya Shah, Customer Care, asks the readers to keep the damaged panel.",
        "We ask the readers to keep the damaged panel.",
        "This note tells the readers to keep the damaged panel.",
    ],
)
def test_the_prompts_words_for_the_readers_are_never_the_texts(meta):
    brief = (
        "Reply to Daniel Reyes. Ask him to keep the damaged panel until the courier collects it."
    )
    good = "Please keep the damaged panel until the courier collects it."
    assert "echo" not in refused(brief, good)
    assert "echo" in refused(brief, meta)


LUNCH = "Invite the team to the summer lunch on Friday 5 July.\n"
INVITED = "You are invited to the summer lunch on Friday 5 July."


@pytest.mark.parametrize(
    "line,asked",
    [
        ("Please reply to the invitation by Friday 28 June.", None),
        ("Ask everyone to reply to the invitation by Friday 28 June.", None),
        ("Remind them to reply to the invitation by Friday 28 June.", None),
        ("Everyone should reply to the invitation by Friday 28 June.", None),
        ("Guests must reply to the invitation by Friday 28 June.", None),
        ("Reply to the invitation by Friday 28 June", None),
        ("- reply to the invitation by Fri 28 June pls", None),
        ("Replies by Friday 28 June, please.", "Please reply by Friday 28 June."),
        ("RSVP by Friday 28 June please.", "Please RSVP by Friday 28 June."),
        (
            "Tell them that they need to reply to the invitation by Friday 28 June.",
            "You need to reply to the invitation by Friday 28 June.",
        ),
    ],
)
def test_an_ask_carried_out_in_any_wording_is_neither_copying_nor_cut(line, asked):
    """The class of "Please reply to the invitation by Friday", which a code repair once
    deleted as a copied instruction: an order to the readers, asked of them, whatever
    words the brief gave it in."""
    from batch.loop.writing import repairs

    brief = LUNCH + line + "\n"
    asked = asked or "Please reply to the invitation by Friday 28 June."
    text = f"{INVITED} {asked}"
    assert refused(brief, text) == set(), findings(brief, text)

    def judge(draft, needs):
        ctx = checks.CheckContext(
            draft=draft, sources=(brief,), brief=brief, checklist=brief_checklist(brief)
        )
        return checks.judge(ctx).findings

    out = repairs.Repairer(judge=judge, ask=lambda *a: None).run(text, [], judge(text, []))
    assert asked in out.draft and not out.attempts


@pytest.mark.parametrize(
    "order",
    [
        "don't mention old price (was £75)",
        "Don't mention the previous price.",
        "Leave out the usual price of £9.",
    ],
)
def test_an_order_about_one_price_keeps_out_that_price_not_the_one_to_say(order):
    brief = f"Blurb for our Full Service package: £85, gears and brakes adjusted.\n{order}\n"
    ok = "Our Full Service package costs £85, with gears and brakes adjusted."
    assert "left-in" not in refused(brief, ok), findings(brief, ok)
    if "£" in order:
        old = order.split("£")[1].rstrip(").")
        assert "left-in" in refused(brief, f"{ok} It was £{old}.")
    # "no prices" still keeps out every price
    assert "left-in" in refused(brief.replace(order, "No prices."), ok)
