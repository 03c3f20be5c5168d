"""A text whose kind is an act does it: a thank-you note thanks, an apology apologises.

The briefs and texts are variants written for these tests, none of bench/acts/ (which
the patterns were measured on)."""

import pytest

from batch.judging.checklist import brief_checklist
from batch.judging.checks import CheckContext, judge
from batch.judging.checks.acts import acts_asked, check_acts

CASES = [
    # (brief, a text that does the act, one that only reports the facts, the act)
    (
        "Apology email to the members: Thursday's pottery class is cancelled, the tutor is "
        "ill. It moves to Thursday 20 March, same time.",
        "We are sorry to cancel Thursday's pottery class: the tutor is ill. The class "
        "moves to Thursday 20 March at the same time.",
        "Thursday's pottery class is cancelled because the tutor is ill. It moves to "
        "Thursday 20 March at the same time.",
        "apologise",
    ),
    (
        "Invitation: launch of Ada Park's new novel, Wednesday 2 April, 7pm, Corner Books.",
        "Please join us for the launch of Ada Park's new novel on Wednesday 2 April at 7pm "
        "at Corner Books.",
        "Ada Park's new novel launches on Wednesday 2 April at 7pm at Corner Books.",
        "invite",
    ),
    (
        "Welcome letter for the new tenants of flat 5: bins go out on Tuesdays, the "
        "caretaker is Sam (07700 900123).",
        "Welcome to Ash Court! Bins go out on Tuesdays, and Sam, our caretaker, is on "
        "07700 900123.",
        "Bins go out on Tuesdays. The caretaker is Sam, on 07700 900123.",
        "welcome",
    ),
    (
        "Note to the night shift: please thank them for covering the flu weeks in January.",
        "Many thanks to the night shift for covering the flu weeks in January.",
        "The night shift covered the flu weeks in January.",
        "thank",
    ),
    (
        "Message to the under-12 team: congratulations on winning the county cup, 3-1 "
        "against Oakfield.",
        "Well done, under-12s: you won the county cup 3-1 against Oakfield!",
        "The under-12 team won the county cup 3-1 against Oakfield.",
        "congratulate",
    ),
    (
        "Card to Jo from the office: our sympathies on the death of her father.",
        "Dear Jo, all of us in the office are so sorry about the death of your father.",
        "Jo's father has died.",
        "sympathise",
    ),
    (
        "Email to the volunteers before the holidays: wish them a restful break; the "
        "shop reopens on 3 January.",
        "We wish you all a restful break. The shop reopens on 3 January.",
        "The shop closes for the holidays and reopens on 3 January.",
        "wish",
    ),
]


@pytest.mark.parametrize("brief,does,misses,act", CASES, ids=[c[3] for c in CASES])
def test_a_text_that_does_the_act_passes_and_one_that_reports_fails(brief, does, misses, act):
    checklist = brief_checklist(brief)
    assert [a.name for a, _ in acts_asked(checklist)] == [act]
    assert check_acts(does, checklist) == []
    [finding] = check_acts(misses, checklist)
    # no words of it do the act: it waits for a person, after the repairer has tried
    # (a denial is a must-fix: tests/judging/test_certain_checks.py)
    assert finding["code"] == f"act:{act}" and finding["severity"] == "hold"
    # the repair asks for a sentence that does it, with the brief's item as the fact
    assert finding["repair"]["action"] == "state"
    assert finding["repair"]["fact"].rstrip(".").lower() in brief.lower()


@pytest.mark.parametrize(
    "brief",
    [
        "Notice: the price of a clean goes up to 65 from 1 May. Don't apologise for the rise.",
        "Update for staff: thanks to the new rota system, shift swaps now take a day.",
        "Reminder: the invite link for the webinar is in your calendar.",
        "Poster: the cafe is open 8-4 daily. Dogs welcome.",
        "Memo: there is no need to thank anyone by name in the report.",
        "Reply to the complaint. We shouldn't apologise: the delay was the courier's.",
        "Notice about the outage. Nobody needs to apologise for the outage.",
        "Customer email: new delivery slots. No apology needed.",
        "Customer email: new delivery slots. Apologies are not needed here.",
        # an item that reports the act asks nothing of the text
        "Write a memo. The mayor congratulated the team on the award.",
        "Write a note. The CEO sent her condolences to the family on Monday.",
        "Write a memo: the invitation to tender closes on 3 May.",
        "Write a notice: the supplier sent an apology letter for the late parts.",
        "Write a memo. We wish them to return forms by Friday.",
    ],
    ids=[
        "denied",
        "thanks-to-because",
        "invite-link",
        "dogs-welcome",
        "no-need",
        "shouldnt",
        "nobody-needs",
        "not-needed-before",
        "not-needed-after",
        "reported-congratulations",
        "reported-condolences",
        "invitation-to-tender",
        "reported-apology",
        "wish-as-want",
    ],
)
def test_a_brief_that_names_no_act_asks_for_none(brief):
    assert acts_asked(brief_checklist(brief), brief) == []


def test_naming_the_act_is_not_doing_it():
    checklist = brief_checklist("thank-you note to the bell ringers: 40 years of Sunday bells")
    assert check_acts("This is a thank-you note to the bell ringers.", checklist)
    assert not check_acts("Thank you, bell ringers, for 40 years of Sunday bells.", checklist)


def test_the_check_runs_in_the_registry_and_never_on_source_docs():
    brief = "Apology to the parents: the school trip on Friday is off (coach broke down)."
    checklist = brief_checklist(brief)
    draft = "The school trip on Friday is off: the coach broke down."
    found = judge(CheckContext(draft=draft, brief=brief, checklist=checklist)).findings
    assert [f["code"] for f in found if f["code"].startswith("act:")] == ["act:apologise"]
    as_docs = CheckContext(draft=draft, brief=brief, checklist=checklist, source_suffix=".py")
    assert not [f for f in judge(as_docs).findings if f["code"].startswith("act:")]


def test_an_act_not_to_forget_is_asked():
    checklist = brief_checklist("Memo to the stewards. Don't forget to thank the volunteers.")
    assert [a.name for a, _ in acts_asked(checklist)] == ["thank"]


@pytest.mark.parametrize(
    "brief,reported",
    [
        (
            "Write a welcome note for the new starters: induction on Monday at 9.",
            "The welcome desk opens at 9 on Monday for the induction.",
        ),
        (
            "Invitation to the school fair, Saturday 14 June.",
            "Invitations went to 300 families for the school fair on Saturday 14 June.",
        ),
        (
            "thank-you cards for the volunteers: 40 years of Sunday bells",
            "Thank-you cards go to the volunteers for 40 years of Sunday bells.",
        ),
    ],
    ids=["welcome-desk", "invitations-went", "thank-you-cards"],
)
def test_naming_a_thing_after_the_act_does_not_do_it(brief, reported):
    checklist = brief_checklist(brief)
    assert acts_asked(checklist)
    assert check_acts(reported, checklist)
