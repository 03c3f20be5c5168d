"""The brief's notes handed back as the text wait for a person; a text that reuses the
brief's sentences, or keeps a list beside sentences of its own, does not.

The briefs and texts here are variants written for these tests, none of bench/notes/
(which the threshold was chosen on)."""

import pytest

from batch.judging.checks import CheckContext, judge, repaired_hold
from batch.judging.checks.notes import check_notes_handed_back, note_units
from batch.loop.routing import repairable
from batch.loop.writing.kept import better

NOTES_BRIEF = """\
Event: staff quiz night
Date: Thursday 20 November, 6pm
Place: the canteen, 2nd floor
Teams: up to 6 people
Prizes: vouchers for the top 3 teams
"""

FRAGMENT_BRIEF = """\
reminder to tenants
bins out by 7am Wednesday
bulky waste pickup first Monday of the month
lift out of service 3-5 Dec
"""

PROSE_BRIEF = (
    "Tell the volunteers that the food bank moves to the church hall on 1 March. "
    "Opening hours stay the same. The van keys are now kept at reception."
)

SPEC_BRIEF = """\
Product card for the Fenn kettle.
- 1.7 litres
- 2200 W, boils 1 litre in 2.5 minutes
- brushed steel
- price 59 EUR
"""


@pytest.mark.parametrize(
    "brief,draft",
    [
        # labelled lines as they stand, bold added
        (
            NOTES_BRIEF,
            "**Event:** staff quiz night\n\n**Date:** Thursday 20 November, 6pm\n\n"
            "**Place:** the canteen, 2nd floor\n\n**Teams:** up to 6 people\n\n"
            "**Prizes:** vouchers for the top 3 teams",
        ),
        # relabelled: the values are the brief's, the labels the writer's
        (
            NOTES_BRIEF,
            "Staff quiz night\n\n- When: Thursday 20 November, 6pm\n- Where: the canteen, "
            "2nd floor\n- Team size: up to 6 people\n- Prizes: vouchers for the top 3 teams",
        ),
        # fragments with capitals and full stops added, a greeting and thanks around them
        (
            FRAGMENT_BRIEF,
            "Hello all,\n\nBins out by 7am Wednesday.\n\nBulky waste pickup first Monday of "
            "the month.\n\nLift out of service 3-5 Dec.\n\nThanks!",
        ),
        # a one-line brief turned into a heading
        (
            "new flavour: salted caramel, weekends only, 3.50",
            "# New Flavour: Salted Caramel, Weekends Only, 3.50",
        ),
    ],
    ids=["bold-labels", "relabelled", "fragments-greeted", "one-liner-heading"],
)
def test_notes_handed_back_wait_for_a_person(brief, draft):
    findings = check_notes_handed_back(draft, brief)
    assert findings, note_units(draft, brief)
    assert {f["severity"] for f in findings} == {"hold"}
    # each note is shown, and the loop is told to say it as a sentence first
    assert all(f["sentence"] in draft for f in findings)
    assert all(f["repair"]["action"] == "rewrite" for f in findings)
    assert all(f["repair"]["sentences"] == [f["sentence"]] for f in findings)


@pytest.mark.parametrize(
    "brief,draft",
    [
        # the same notes, written as sentences
        (
            NOTES_BRIEF,
            "Our staff quiz night is on Thursday 20 November at 6pm in the canteen on the "
            "2nd floor. Teams can have up to 6 people, and the top 3 teams win vouchers.",
        ),
        (
            FRAGMENT_BRIEF,
            "A reminder to tenants: please put your bins out by 7am on Wednesday. Bulky "
            "waste is picked up on the first Monday of the month. The lift is out of "
            "service from 3 to 5 December.",
        ),
        # a prose brief's own sentences reused: they are sentences already
        (
            PROSE_BRIEF,
            "The food bank moves to the church hall on 1 March. Opening hours stay the "
            "same. The van keys are now kept at reception.",
        ),
        # a card: sentences of its own, and the brief's specifications as its list
        (
            SPEC_BRIEF,
            "The Fenn kettle boils a litre of water in two and a half minutes, in a "
            "brushed steel body that holds 1.7 litres. It is a kettle for a busy kitchen "
            "that wants to look good on the worktop.\n\nSpecifications:\n- 1.7 litres\n"
            "- 2200 W\n- price 59 EUR",
        ),
        # a list brief's full sentences in the plain present, no article needed: sentences
        (
            "Notice for the tenants of Ash Court.\n\n- Bins go out on Tuesdays from 3 March.\n"
            "- Doors open at 7am on weekdays.\n",
            "Bins go out on Tuesdays from 3 March.\n\nDoors open at 7am on weekdays.",
        ),
        # a label of the writer's own before a sentence is prose, not a note
        (
            NOTES_BRIEF,
            "Save the date: the staff quiz night is on Thursday 20 November at 6pm. "
            "It takes place in the canteen, 2nd floor. Teams can have up to 6 people and "
            "the top 3 teams win vouchers.",
        ),
        # a prose brief's sentence cut short under the writer's own label: the writer's
        # fragment, not the brief's notes
        (
            "Write a short memo to the sales team. The team closed 42 new accounts in Q3, up "
            "from 35 in Q2. The Berlin office opens on 1 November.",
            "Great work: 42 new accounts in Q3, up from 35 in Q2. Our Berlin office opens on "
            "1 November.",
        ),
    ],
    ids=[
        "notes-written",
        "fragments-written",
        "prose-reused",
        "card-with-list",
        "plain-present",
        "own-label",
        "prose-shortened",
    ],
)
def test_a_text_written_for_its_readers_is_not_held(brief, draft):
    assert check_notes_handed_back(draft, brief) == [], note_units(draft, brief)


@pytest.mark.parametrize(
    "brief",
    [
        "Timetable for the swimming pool, winter:\n- Lanes: 7-9am\n- Family swim: Sat 10-12\n",
        "What: listing for the flea market\nWhen: Sunday 4 May, 9-2\nWhere: Elm Street car park\n",
        "Menu for the quiz night supper:\n- chilli con carne\n- jacket potatoes\n",
    ],
    ids=["timetable", "listing", "menu"],
)
def test_a_kind_of_text_made_of_labelled_lines_keeps_them(brief):
    from batch.judging.checklist import brief_checklist

    lines = [ln for ln in brief.splitlines()[1:] if ln.strip()]
    draft = "\n".join(ln.lstrip("- ") for ln in lines)
    assert check_notes_handed_back(draft, brief), "the notes are the text's words"
    found = judge(CheckContext(draft=draft, brief=brief, checklist=brief_checklist(brief)))
    assert not [f for f in found.findings if f["code"].startswith("notes:")]


def test_a_few_notes_in_a_written_text_are_left_to_it():
    draft = (
        "Our staff quiz night is on Thursday 20 November at 6pm, in the canteen on the 2nd "
        "floor, and teams of up to 6 people are welcome to sign up with the organisers.\n\n"
        "Prizes: vouchers for the top 3 teams"
    )
    notes, share = note_units(draft, NOTES_BRIEF)
    assert notes == ["Prizes: vouchers for the top 3 teams"]
    assert share < 0.5
    assert check_notes_handed_back(draft, NOTES_BRIEF) == []


def test_the_check_runs_in_the_registry_and_never_on_source_docs():
    draft = "Bins out by 7am Wednesday.\n\nLift out of service 3-5 Dec."
    found = judge(CheckContext(draft=draft, brief=FRAGMENT_BRIEF)).findings
    assert [f["code"] for f in found if f["code"].startswith("notes:")] == ["notes:1", "notes:2"]
    as_docs = CheckContext(draft=draft, brief=FRAGMENT_BRIEF, source_suffix=".py")
    assert not [f for f in judge(as_docs).findings if f["code"].startswith("notes:")]


def _note(n: int) -> dict:
    return {
        "code": f"notes:{n}",
        "severity": "hold",
        "message": "a note",
        "sentence": "Bins out by 7am Wednesday.",
        "repair": {"action": "rewrite", "sentences": ["Bins out by 7am Wednesday."]},
    }


def test_the_repairer_tries_notes_and_keeps_a_repair_that_leaves_fewer():
    assert repaired_hold(_note(1)) and repairable(_note(1))
    assert better([_note(1), _note(2)], [_note(1)])
    # renumbered after a sentence went: still one fewer
    assert better([_note(1), _note(2)], [_note(2)])
    assert not better([_note(1)], [_note(1)])
    # a repair that lifts a note but adds a must-fix is not kept
    worse = {"code": "missing:R1", "severity": "must_fix", "message": "m"}
    assert not better([_note(1), _note(2)], [_note(1), worse])


def test_a_notes_code_is_its_place_so_a_rewrite_keeps_the_others():
    draft = (
        "Bins out by 7am Wednesday.\n\nBulky waste pickup first Monday of the month.\n\n"
        "Lift out of service 3-5 Dec."
    )
    codes = [f["code"] for f in check_notes_handed_back(draft, FRAGMENT_BRIEF)]
    assert codes == ["notes:1", "notes:2", "notes:3"]
    rewritten = draft.replace(
        "Bins out by 7am Wednesday.", "Please put your bins out by 7am on Wednesday."
    )
    # the repairer tries each code once: the notes left keep theirs
    assert [f["code"] for f in check_notes_handed_back(rewritten, FRAGMENT_BRIEF)] == [
        "notes:2",
        "notes:3",
    ]


def test_a_repair_that_trades_additions_for_a_note_is_not_kept():
    adds = [
        {"code": f"adds:{n}", "severity": "hold", "message": "a", "repair": {"action": "drop"}}
        for n in range(1, 6)
    ]
    assert not better(adds, [*adds[:3], _note(1)])
    assert better(adds, adds[:3])
