"""Code holds a text to what it can be sure of, in any usual form, and shows a person what
it cannot: the examples of careful texts that were refused and wrong texts that were
approved, each with variants of its own class."""

from __future__ import annotations

import pytest

from batch.inputs.briefs import load_brief_file
from batch.judging.checklist.coverage import signed_by
from batch.judging.checklist.reading import brief_checklist
from batch.judging.checks.facts import check_names, check_numbers
from batch.reading.corrections import given_back, stale
from batch.reading.figures import figures
from batch.run.text_check import judge_text
from tests.conftest import write_brief


def verdict(settings, project, brief: str, text: str, **front):
    path = write_brief(project, "b.md", brief, id="b", rubric="memo", **front)
    return judge_text(settings, load_brief_file(path, 1 << 20), text)


# -- figures in any usual form --------------------------------------------------------


@pytest.mark.parametrize(
    "given,said",
    [
        ("Price £39", "it costs £39"),
        ("Price £39", "It is 39 pounds."),
        ("Volume: 28 litres", "holds 28 litres"),
        ("Friday 6 June", "Friday 6th June"),
        ("Fri 6/6", "on June 6"),
        ("closes 20:00", "closes at 8pm"),
        ("doors 19:30", "doors at half seven"),
        ("open 9 till 1", "open 9am to 1pm"),
        ("starts 10:30", "starts at ten thirty"),
        ("lasts fifteen minutes", "lasts 15 minutes"),
        ("lunch 12:00", "lunch at noon"),
        ("runs 06:30-08:30", "runs 6.30 to 8.30am"),
        ("DTSTART:20250612T123000", "on 12 June at 12.30pm"),
        ("due 2025-06-12", "due 12th June"),
        ("due 12.06.2025", "due June 12"),
        ("14:00-15:30", "2-3.30pm"),
    ],
)
def test_a_figure_in_another_usual_form_is_the_same_figure(given, said):
    assert check_numbers(said, [given], "must_fix") == []
    assert set(figures(said)) & set(figures(given)) or said.endswith("1pm")


@pytest.mark.parametrize(
    "given,said",
    [
        ("closes 20:00", "closes at 9pm"),
        ("Price £39", "it costs £49"),
        ("on 6/6", "on 7 June"),
        ("doors 6.30", "doors at 7.30pm"),
    ],
)
def test_a_wrong_figure_in_any_form_is_a_must_fix(given, said):
    found = check_numbers(said, [given], "must_fix")
    assert found and found[0]["severity"] == "must_fix"


def test_a_price_is_not_a_time():
    assert figures("costs 4.50, doors 6.30") == ["4.5", "6:30"]
    assert figures("£3.50 per child, 2.30 kg") == ["3.5", "2.3"]


# -- what a correction takes back ----------------------------------------------------


@pytest.mark.parametrize(
    "brief,old",
    [
        ("Fire drill Monday the 3rd, no, wait, Wednesday the 5th of March.", "3"),
        ("The fee is £48 now not £45.", "45"),
        ("make that Sun 20:00 not 18:00", "6:00"),
        ("Weight was 1.4 kg on the old sheet - 1.2 is correct", "1.4"),
        ("Meet at 10, sorry, 11 o'clock", "10"),
        ("Claim ~~40p~~ 45p a mile.", "40"),
        ("Claims within <del>60</del> 30 days.", "60"),
        ("credit £11.60 ... no, scrap that, a flat £25 credit.", "11.6"),
        ("it's 1pm-2pm now, not 12.30", "12:30"),
        ("Fri 2 Jan,Sat 3 Jan\nFri 2 Jan is NOT Sat 3rd any more, it's Monday 5 January", "3/1"),
        ("The meeting is no longer at 3pm, it is at 4pm.", "3:00"),
    ],
)
def test_a_value_a_correction_replaces_is_never_asked_and_never_given(brief, old):
    assert old in stale(brief)
    draft = f"The value is {dict([('6:00', '6pm'), ('12:30', '12.30pm')]).get(old, old)}."
    assert given_back(draft, brief)


@pytest.mark.parametrize(
    "brief",
    [
        "At 10am, sorry for the short notice, the lift is off.",
        "The turnout was 23 people.",
        "Floor 2 use stairwell B, floor 3 stairwell A - sorry, other way round",
        "Claim ~~on form EX2~~ 45p a mile, and 45p on form EX2 for trains.",
        "Parking is not free after 6pm, it costs £2.",
    ],
)
def test_an_apology_or_a_past_fact_takes_nothing_back(brief):
    assert stale(brief) == set()


def test_a_time_taken_back_leaves_a_date_of_the_same_day_number():
    assert stale("Start 9.30 til 12 - sorry 12.30 not 12. Thurs 12 Sept.") == {"12"}


def test_the_frame_of_a_message_is_no_fact():
    brief = (
        "On Fri, 28 Feb 2025 at 16:02, Gary <g@x.org> wrote:\n"
        "> Permits run out on 31 March.\n"
        "[09:12] Dev: the system is down Friday 21:00\n"
        "Voice memo - Dave - 28/2 - auto transcript\n"
        "Dispute between flats 4B & 7A - NOT for circulation"
    )
    gone = stale(brief)
    assert {"28/2", "4:02", "9:12", "4", "7"} <= gone
    assert "31/3" not in gone and "9:00" not in gone


# -- a brief line with nothing checkable is never held against a text -----------------


def test_chatter_fillers_corrections_and_faq_questions_are_not_demanded(settings, project):
    brief = (
        "ok so um this is for the all-staff notice, can you tidy it up. Right.\n"
        "Fire drill Monday the 3rd, no, wait, Wednesday the 5th of March at 10:30.\n"
        "Q: how does a customer return an item? - within 30 days with the receipt.\n"
        "Be friendly. This goes in the newsletter. The dates are day/month. Thanks!\n"
        "I think that's everything."
    )
    text = (
        "There is a fire drill on Wednesday 5 March at 10.30am.\n\n"
        "Returns: bring the item back within 30 days with your receipt."
    )
    v = verdict(settings, project, brief, text)
    assert v.outcome == "approved", [f["message"] for f in [*v.must_fix, *v.holds]]


def test_a_dropped_figure_waits_for_a_person_and_a_taken_back_one_is_refused(settings, project):
    brief = "Fire drill Monday the 3rd, no wait, Wednesday the 5th of March at 10:30."
    dropped = verdict(settings, project, brief, "There is a fire drill on Wednesday 5 March.")
    assert dropped.outcome == "held"
    old = verdict(settings, project, brief, "There is a fire drill on 3 March at 10:30am.")
    assert old.outcome == "refused"
    assert any(f["code"].startswith("taken-back:") for f in old.must_fix)


# -- signatures, names, placeholders --------------------------------------------------


@pytest.mark.parametrize(
    "text,who,signed",
    [
        ("Lift out.\n\nAnna Berg, Office Manager", "me, Anna Berg, Office Manager", True),
        ("Lift out.\n\nThanks,\nDave\nFacilities Manager", "Dave, Facilities Manager", True),
        ("Lift out.\n\nBest wishes, Dave", "Dave, Facilities Manager", True),
        ("Lift out.\n\nThis note is the facilities team.", "the facilities team", False),
        ("The facilities team fixed it. More.\n\nThanks", "the facilities team", False),
        # the usual forms a sign-off takes
        ("Lift out.\n\n**Dave**\n_Facilities Manager_", "Dave, Facilities Manager", True),
        ("Lift out.\n\nKind regards,\nDr Sarah Collins\nHead of Research", "Sarah Collins", True),
        (
            "Lift out.\n\nBest,\nDave\nFacilities Manager\nBrackfield Ltd\n"
            "0161 496 0000 | facilities@brackfield.co.uk",
            "Dave, Facilities Manager",
            True,
        ),
        ("Lift out.\n\n> Thanks - Priya", "Priya (Facilities)", True),
        (
            "Dave\nThe lift is out all week and the stairs are the only way up, so allow "
            "extra time.",
            "Dave",
            False,
        ),
    ],
)
def test_a_signature_is_its_name_on_a_line_of_its_own(text, who, signed):
    assert signed_by(text, who) is signed


def test_a_name_at_the_end_not_read_as_a_signoff_waits_for_a_person(settings, project):
    brief = "Lift out Monday. Sign it from Dave, Facilities Manager."
    unread = verdict(settings, project, brief, "The lift is out on Monday. Dave will update you.")
    assert unread.outcome == "held"
    unsigned = verdict(settings, project, brief, "The lift is out on Monday.")
    assert unsigned.outcome == "refused"


@pytest.mark.parametrize(
    "text,sources,invented",
    [
        ("Read our FAQ.", ["the frequently asked questions"], []),
        ("Ask HR.", ["questions go to human resources"], []),
        ("He worked in Poznań.", ["pracował w Poznaniu"], []),
        ("• Cost: £48\n• Deadline: Friday", ["fee 48, by Fri"], []),
        ("SUMMER HOLIDAY TIMETABLE", ["summer hols"], []),
        ("The sale is on Friday 6 June 2025.", ["sale 6/6/2025"], []),
        ("The sale is on Friday 6 June.", ["sale Thurs 6/6"], ["name:friday"]),
        ("Talk to Julia Marsh.", ["talk to Kwame"], ["name:julia", "name:marsh"]),
    ],
)
def test_names_from_nowhere_and_names_that_are_not(text, sources, invented):
    assert [f["code"] for f in check_names(text, sources)] == invented


def test_a_placeholder_named_for_what_it_is_is_a_placeholder(settings, project):
    brief = "Team dinner Friday 6 June at 19:00. The venue is not booked yet."
    text = "Our team dinner is on Friday 6 June at 7pm at [VENUE NEEDED: where the dinner is]."
    v = verdict(settings, project, brief, text)
    assert v.outcome == "approved", [f["message"] for f in [*v.must_fix, *v.holds]]
    assert v.needs_from_human == ["[VENUE NEEDED: where the dinner is]"]


@pytest.mark.parametrize(
    "brief",
    [
        "Team dinner Friday 6 June at 19:00. Venue: TBC.",
        "Team dinner Friday 6 June at 19:00. We don't know the venue yet, leave a gap.",
        "Team dinner Friday 6 June at 19:00. Venue to be confirmed.",
        # the thing said not to be had yet, by its kind of value
        "Team dinner Friday 6 June at 19:00. We don't have the venue yet.",
        "Team dinner Friday 6 June at 19:00. We haven't got a venue name yet.",
        "Team dinner Friday 6 June at 19:00. I can't give the venue yet.",
    ],
)
def test_an_unknown_marked_for_certain_and_no_placeholder_is_refused(settings, project, brief):
    v = verdict(settings, project, brief, "Our team dinner is on Friday 6 June at 7pm.")
    assert v.outcome == "refused"
    assert any(f["code"].startswith("missing-placeholder:") for f in v.must_fix)


@pytest.mark.parametrize(
    "chatter",
    [
        "She hasn't told the others yet.",
        "I just haven't fixed the calendar entry yet.",
        "Ticket status: Open - awaiting agent reply.",
        # no value of the text's said to be missing
        "I don't have a clue yet what to wear.",
        "We don't have the minutes yet.",
    ],
)
def test_chatter_that_sounds_like_an_unknown_is_never_a_must_fix(settings, project, chatter):
    brief = f"Team dinner Friday 6 June at 19:00 at the Old Bell. {chatter}"
    text = "Our team dinner is on Friday 6 June at 7pm at the Old Bell."
    v = verdict(settings, project, brief, text)
    assert not any(f["code"].startswith("missing-placeholder:") for f in v.must_fix)


@pytest.mark.parametrize(
    "brief",
    [
        # a moved room: "not in" is where it no longer is, not a figure not in yet
        "Planning meeting has moved, not in rm 2.14 anymore, it's in the boardroom. "
        "Lunch place tbc, leave a gap.",
        # the same unknown said again, by a reviewer or in a chat
        "Lunch: the place is still being decided.\n[comment JB: we don't have a name yet - "
        "put a placeholder]",
        "Lunch: the place is still being decided.\n[09:12] Dev: TBC, leave a gap",
        # an order's reason, in its own words
        "Lunch place tbc, leave a gap. Please don't say it's Kelly's leaving do, she "
        "hasn't told the others yet.",
    ],
)
def test_one_unknown_is_one_placeholder(settings, project, brief):
    text = (
        "The planning meeting is in the boardroom, with lunch after at [VENUE NEEDED: lunch place]."
    )
    v = verdict(settings, project, brief, text)
    assert not [f for f in [*v.must_fix, *v.holds] if f["code"].startswith("missing-placeholder")]
    unknowns = [r for r in v.checklist if r["kind"] in ("missing", "gap")]
    assert len(unknowns) == 1, unknowns


@pytest.mark.parametrize(
    "line",
    [
        "- no finish date yet; leave a gap for it.",
        "no finish date yet, leave a gap for it and I'll fill it in",
        "No review finish date yet - put a placeholder.",
    ],
)
def test_no_value_yet_with_a_gap_to_leave_is_an_unknown_not_a_leave_out(settings, project, line):
    brief = (
        f"Apology to Mr Desai for the outage.\nWe've opened a review of the cancelled "
        f"visit.\n{line}"
    )
    text = (
        "Dear Mr Desai, we are sorry for the outage. We have opened a review of the "
        "cancelled visit and expect to finish it by [DATE NEEDED: review finish date]."
    )
    v = verdict(settings, project, brief, text)
    found = [f["code"] for f in [*v.must_fix, *v.holds]]
    assert not [c for c in found if c.startswith(("left-in", "adds:placeholder"))], found
    [unknown] = [r for r in brief_checklist(brief) if r["kind"] in ("missing", "gap")]
    assert "finish date" in unknown["subject"]


def test_an_order_to_leave_out_what_is_not_known_yet_stays_an_order():
    from batch.judging.orders import order_kind

    assert order_kind("Don't mention the move yet, it's confidential") == "leave_out"
    assert order_kind("no mention of the delay yet, please") == "leave_out"
    assert order_kind("no prices") == "leave_out"


@pytest.mark.parametrize(
    "brief",
    [
        "Q when's the new booking app coming - not confirmed yet!! dont guess a date, put a "
        "placeholder",
        "The booking app launch date is not confirmed yet, dont guess a date, put a placeholder",
        "Booking app launch: TBC - don't guess it. Leave a gap.",
    ],
)
def test_an_unknown_with_an_order_not_to_guess_is_one_unknown(settings, project, brief):
    text = "Our new booking app launches on [DATE NEEDED: booking app launch date]."
    v = verdict(settings, project, brief, text)
    found = [f["code"] for f in [*v.must_fix, *v.holds]]
    assert not [c for c in found if c.startswith(("missing-placeholder", "adds:placeholder"))]
    unknowns = [r for r in brief_checklist(brief) if r["kind"] in ("missing", "gap")]
    assert len(unknowns) == 1, unknowns


def test_an_order_not_to_guess_alone_is_no_unknown():
    assert [r["kind"] for r in brief_checklist("Don't guess prices.")] == ["rule"]
    read = brief_checklist("Venue not decided yet. Don't guess it.")
    assert [r["kind"] for r in read] == ["missing", "rule"]


def test_an_unknown_said_again_with_a_name_of_its_own_is_another_unknown():
    read = brief_checklist("Lunch: the place is still being decided. Price per head: TBC.")
    assert [r["kind"] for r in read if r["kind"] in ("missing", "gap")] == ["missing", "missing"]
    assert [r["kind"] for r in brief_checklist("Date: TBC. Venue: TBC.")] == ["missing"] * 2
    assert [r["kind"] for r in brief_checklist("The Q3 figures are not in yet.")] == ["missing"]


def test_which_placeholder_is_which_unknown_is_a_persons_to_read(settings, project):
    brief = "Team dinner Friday 6 June at 19:00. Venue: TBC. Price per head: TBC."
    text = "Our team dinner is on Friday 6 June at 7pm at [VENUE NEEDED: where we eat]."
    v = verdict(settings, project, brief, text)
    assert v.outcome == "held", [f["message"] for f in v.must_fix]


# -- the wrong texts an adversarial writer had approved --------------------------------


@pytest.mark.parametrize(
    "brief,text",
    [
        ("Invitation to the summer party, Friday 6 June at 18:00.", "You are not invited."),
        ("Invitation to the summer party on 6/6.", "The party on 6 June: you are not invited."),
        ("Apology to customers for the outage on 3 May.", "We refuse to apologise for it."),
        ("Apology to customers for the outage on 3 May.", "We won't apologise for 3 May."),
        ("Welcome note for Priya, who starts on 2 June.", "She is not welcome here."),
        (
            "Thank-you note to the volunteers of the fair on 12/4.",
            "Thanks to the rain, the fair on 12 April moved inside.",
        ),
    ],
)
def test_an_act_denied_is_refused(settings, project, brief, text):
    v = verdict(settings, project, brief, text)
    assert v.outcome == "refused"
    assert any(f["code"].startswith("act:") for f in v.must_fix)


@pytest.mark.parametrize(
    "text",
    [
        "The shop closes permanently on 3 May.",
        "Dear staff, free pizza for everyone!\n\nThe shop closes on 3 May.",
        "The shop closes on 3 May.\n\nBest wishes and a bonus for everyone,\nMaria",
        "The shop closes on 3 May, and every customer gets a free gift.",
        "The shop closes on 3 May. Lunch is provided for all staff.",
        "The shop closes on 3 May.\n\nWell done, Maria, and enjoy the extra day off,\nMaria",
        "The shop closes on 3 May, and the party after is paid for by the company.",
        "The shop closes on 3 May. Drinks are on us!",
    ],
)
def test_an_invented_claim_waits_in_the_body_a_greeting_or_a_sign_off(settings, project, text):
    v = verdict(settings, project, "Tell staff the shop closes on 3 May.", text)
    assert v.outcome != "approved"
    assert any(f["code"].startswith("adds:") for f in v.holds)


@pytest.mark.parametrize(
    "text",
    [
        "The office closes at 8am and reopens at 3pm.",
        "Closing time is 8am; we reopen at 3pm.",
    ],
)
def test_two_figures_swapped_wait_for_a_person(settings, project, text):
    v = verdict(settings, project, "Office closes at 3pm, reopens at 8am on Monday.", text)
    assert v.outcome != "approved"
    assert any(f["code"].startswith("tie:") for f in v.holds)


def test_the_same_figures_said_in_other_words_are_no_swap(settings, project):
    v = verdict(
        settings,
        project,
        "Office closes at 3pm, reopens at 8am on Monday.",
        "We shut at 3pm and open again on Monday at 8am.",
    )
    assert not any(f["code"].startswith("tie:") for f in v.holds)


def test_a_copied_order_with_its_order_words_is_refused(settings, project):
    brief = "pls send round a msg re the lift: it is out of order until 14:00 on Monday."
    text = "Please pls send round a msg re the lift: it is out of order until 2pm on Monday."
    v = verdict(settings, project, brief, text)
    assert v.outcome != "approved"


@pytest.mark.parametrize(
    "text",
    [
        "It costs £39 and holds 28 litres. On sale Friday 6th June from 8pm.",
        "It is £39. Volume: 28 L. Sale: 6/6, 20:00.",
        "For 39 pounds you get 28 litres, on sale from eight o'clock on June 6.",
    ],
)
def test_the_same_fact_in_other_words_is_said(settings, project, text):
    brief = "Price £39\nVolume: 28 litres\nOn sale Friday 6 June at 20:00"
    v = verdict(settings, project, brief, text)
    assert not [f for f in [*v.must_fix, *v.holds] if f["code"].startswith(("uncovered", "number"))]


LIFT_NOTES = (
    "Notice for residents, pls:\n"
    "- lift out of order from Mon 3 March\n"
    "- engineer due Tues 4 March 10:00\n"
    "- use stairs or goods lift meanwhile\n"
    "- questions to caretaker on ext 2231\n"
)


@pytest.mark.parametrize(
    "text",
    [
        # each note with "The" put before it
        "The lift out of order from Mon 3 March.\nThe engineer due Tues 4 March 10:00.\n"
        "The use stairs or goods lift meanwhile.\nThe questions to caretaker on ext 2231.",
        # each with "is" put in
        "Lift is out of order from Mon 3 March.\nEngineer is due Tues 4 March 10:00.\n"
        "Use stairs or goods lift meanwhile.\nQuestions are to caretaker on ext 2231.",
        # both, and "please"
        "The lift is out of order from Mon 3 March. The engineer is due Tues 4 March 10:00. "
        "Please use stairs or goods lift meanwhile. Questions to caretaker on ext 2231.",
    ],
)
def test_the_briefs_notes_with_a_word_put_in_each_are_still_its_notes(settings, project, text):
    v = verdict(settings, project, LIFT_NOTES, text)
    assert v.outcome != "approved"
    assert any(f["code"].startswith("notes:") for f in v.holds)


@pytest.mark.parametrize(
    "brief,text",
    [
        (
            LIFT_NOTES,
            "The lift will be out of order from Monday 3 March. An engineer is due on Tuesday "
            "4 March at 10:00.\n\nUntil it is fixed, please use the stairs or the goods lift. "
            "If you have any questions, call the caretaker on extension 2231.",
        ),
        # a one-line brief said as a sentence is the text, not notes handed back
        (
            "notice: lift out of order from Mon 3 March",
            "The lift is out of order from Mon 3 March.",
        ),
        # a brief's paragraph reused sentence by sentence is its prose, not its notes
        (
            "Write a notice.\n\nFrom 1 April the plan goes up from 29 euros to 32 euros a month. "
            "Speeds and the included router stay the same.\n",
            "From 1 April the plan goes up from 29 euros to 32 euros a month. The speeds and "
            "the included router stay the same.",
        ),
    ],
)
def test_a_note_made_a_sentence_of_ones_own_is_no_note_handed_back(settings, project, brief, text):
    v = verdict(settings, project, brief, text)
    assert not any(f["code"].startswith("notes:") for f in v.holds), [f["message"] for f in v.holds]


# -- a negation read from words --------------------------------------------------------


@pytest.mark.parametrize(
    "brief,text",
    [
        ("Payroll is not affected by the upgrade.", "Is payroll affected? No, it runs as normal."),
        ("Yoga is £6 a class. Non-members can't book it.", "Yoga is £6 a class, for members only."),
        ("Wear hi-vis and safety boots.", "Wear hi-vis. Without boots we cannot let you in."),
    ],
)
def test_a_question_or_a_restriction_is_no_contradiction(settings, project, brief, text):
    v = verdict(settings, project, brief, text)
    assert not any(f["code"].startswith("contradiction:") for f in [*v.must_fix, *v.holds])


def test_a_statement_the_other_way_round_still_waits(settings, project):
    brief = "The office will not close on Friday 6 June."
    v = verdict(settings, project, brief, "The office will close on Friday 6 June.")
    assert any(f["code"].startswith("contradiction:") for f in v.holds)


def test_text_struck_through_is_neither_asked_for_nor_left_out(settings, project):
    brief = (
        "From ~~1 April~~ 1 June 2025 staff can claim ~~40p~~ 45p per mile. Claims go "
        "~~on paper form EX2~~ through the Expenses tab within ~~60~~ 30 days."
    )
    text = (
        "From 1 June 2025 you can claim 45p per mile. Make your claim through the "
        "Expenses tab within 30 days."
    )
    v = verdict(settings, project, brief, text)
    assert not v.must_fix, [f["message"] for f in v.must_fix]
    assert not any("EX2" in f["message"] for f in v.holds)
    old = verdict(settings, project, brief, text.replace("45p", "40p"))
    assert old.outcome == "refused"


def test_a_sentence_giving_the_briefs_values_in_its_own_words_is_no_addition(settings, project):
    brief = (
        "Email server upgrade Sat 14/6, 22:00 to 02:00. Urgent problems: IT on ext 4455. "
        "Tomasz joins on 2 June; he worked five years at a bakery in Poznań."
    )
    text = (
        "The email server will be offline from 10pm on Saturday 14 June until 2am the "
        "following morning while it is upgraded. For anything urgent, call IT on extension "
        "4455. Tomasz, who joins us on 2 June, spent five years working at a bakery in Poznań."
    )
    v = verdict(settings, project, brief, text)
    assert not any(f["code"].startswith("adds:") for f in v.holds), [f["message"] for f in v.holds]


def test_a_month_a_numeric_date_gives_is_no_name_from_nowhere():
    assert check_names("The meeting is in September.", ["thurs 12/9, 9.30 til 12.30"]) == []


def test_a_weekday_is_refused_only_where_the_calendar_says_otherwise(settings, project):
    brief = "Open day on 2025-06-12 from 10:00."
    wrong = verdict(settings, project, brief, "Open day on Friday 12 June 2025 from 10am.")
    assert any(f["code"] == "name:friday" for f in wrong.must_fix)
    right = verdict(settings, project, brief, "Open day on Thursday 12 June 2025 from 10am.")
    assert not any(f["code"].startswith("name:") for f in [*right.must_fix, *right.holds])
    unsure = verdict(settings, project, "Open day at 10:00.", "See you on Friday at 10am!")
    assert any(f["code"] == "name:friday" for f in unsure.holds)
    assert not any(f["code"].startswith("name:") for f in unsure.must_fix)


def test_a_reviewers_aside_takes_only_its_own_values_out(settings, project):
    brief = (
        "From 1 June staff can claim 45p per mile. [comment SM: 45p was signed off by the "
        "board on 30 Apr - no need to say so in the notice]"
    )
    v = verdict(settings, project, brief, "From 1 June you can claim 45p per mile.")
    assert not v.must_fix, [f["message"] for f in v.must_fix]
    told = verdict(
        settings,
        project,
        brief,
        "From 1 June you can claim 45p per mile, as the board agreed on 30 April.",
    )
    assert any(f["code"].startswith("left-in:") for f in told.must_fix)


def test_an_emails_own_subject_line_is_its_form_and_the_briefs_is_a_note(settings, project):
    brief = (
        "To: All staff\nFrom: Finance\nSubject: mileage changes pls tidy up and send round\n\n"
        "From 1 June staff can claim 45p per mile."
    )
    own = verdict(
        settings,
        project,
        brief,
        "To: All staff\nSubject: Mileage from 1 June\n\nFrom 1 June you can claim 45p per mile.",
    )
    assert not any(f["code"] == "echo:notes" for f in own.must_fix)
    pasted = verdict(
        settings,
        project,
        brief,
        "Subject: mileage changes pls tidy up and send round\n\nFrom 1 June you can claim "
        "45p per mile.",
    )
    assert any(f["code"] == "echo:notes" for f in pasted.must_fix)


def test_a_sentence_whose_words_another_says_is_advice_and_a_twin_a_must_fix():
    from batch.judging.checks.form import check_repeated

    wider = check_repeated(
        "Graham Boyd's session on family history is now at 2.30pm in Room 3. "
        "Family history session at 2.30pm in Room 3."
    )
    assert wider and all(f["severity"] == "warn" for f in wider)
    twin = check_repeated("The hall opens at 9am on Monday. The hall opens at 9am on Monday.")
    assert [f["severity"] for f in twin] == ["must_fix"]


def test_an_unknown_to_tell_is_refused_only_where_the_text_is_silent_on_it(settings, project):
    brief = "Quiz night Friday 6 June at 19:00. The venue is not confirmed yet - say so."
    silent = verdict(settings, project, brief, "Quiz night is on Friday 6 June at 7pm.")
    assert any(f["code"].startswith("uncovered:") for f in silent.must_fix)
    other_words = verdict(
        settings,
        project,
        brief,
        "Quiz night is on Friday 6 June at 7pm. We will let you know the venue soon.",
    )
    assert not any(f["code"].startswith("uncovered:") for f in other_words.must_fix)


def test_fine_meaning_all_right_is_no_penalty():
    from batch.judging.support import claims_in

    assert claims_in("Stay until they tell you it is fine to go back.", frozenset()) == ()
    assert claims_in("Latecomers will face a penalty.", frozenset()) == ("penalty",)


def test_a_second_reading_decides_which_missing_values_wait(settings, project):
    path = write_brief(
        project,
        "b.md",
        "Quiz night Friday 6 June at 19:00. Ticket ref 4471.",
        id="b",
        rubric="memo",
    )
    brief = load_brief_file(path, 1 << 20)
    text = "Quiz night is on Friday 6 June at 7pm."
    alone = judge_text(settings, brief, text)
    assert any("4471" in f["message"] for f in alone.holds)
    read = judge_text(settings, brief, text, read_values=frozenset({"6/6", "7:00"}))
    assert not any("4471" in f["message"] for f in read.holds)
    assert any("4471" in f["message"] for f in read.would_improve)
    dropped = judge_text(settings, brief, "Quiz night is on Friday 6 June.", frozenset({"7:00"}))
    assert any(f["code"].startswith("uncovered:") for f in dropped.holds)


@pytest.mark.parametrize(
    "ending",
    ["This note is the facilities team.", "It comes from the facilities team, who fixed it."],
)
def test_a_signer_turned_into_a_sentence_is_no_signature(settings, project, ending):
    brief = "Lift out of order Monday 3 March. Sign it from the facilities team."
    text = f"The lift is out of order on Monday 3 March.\n\n{ending}"
    v = verdict(settings, project, brief, text)
    assert v.outcome != "approved"
