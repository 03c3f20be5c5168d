"""What a text adds to its brief waits for a person, each addition named; what the brief
gives, said in other words, and the greetings every letter has, do not.

The cases are the issue's (a desk lamp's invented benefits, a kitchen notice's invented
instruction, a memo's invented motive, a flask's fact said the other way round, a
placeholder nobody needs) and variants of each class written for these tests."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from batch.judging import checks
from batch.judging.checklist import brief_checklist
from batch.judging.support import support_map

LAMP = (
    "Write the shop-page description of the Lumo desk lamp.\n\n"
    "Facts: aluminium arm, warm-to-cool colour temperature dial, USB-C charging port in the\n"
    "base, 5 brightness levels, folds flat for travel. Audience: people who work from home."
)
KITCHEN = (
    "Notice for the staff kitchen: the dishwasher is being replaced on Monday 3 March. "
    "It will be out of action all day, so wash your own mugs."
)
FRIDGE = (
    "Memo to all staff: the office fridge is cleared out on Friday at 4pm. Anything left "
    "in it is thrown away."
)
FLASK = (
    "Product blurb for the Fjell flask: keeps drinks hot for 12 hours and cold for 24 "
    "hours, 750 ml, steel."
)
TRIP = (
    "Letter to parents: the Year 4 trip to the Science Museum is on Thursday 12 June. "
    "The coach leaves at 8:30. The trip costs £14."
)


def findings(brief: str, draft: str, severity: str = "hold", answers=()) -> list[dict]:
    ctx = checks.CheckContext(
        draft=draft,
        sources=(brief, *answers),
        brief=brief,
        checklist=brief_checklist(brief),
        addition_severity=severity,
    )
    return [f for f in checks.judge(ctx).findings if f["code"].startswith("adds")]


def held(brief: str, draft: str, **kw) -> list[str]:
    return [f["code"] for f in findings(brief, draft, **kw) if f["severity"] == "hold"]


@pytest.mark.parametrize(
    "brief,sentence,named",
    [
        # the issue's
        (
            LAMP,
            "With an aluminium arm, the Lumo desk lamp provides a secure and durable base "
            "for your computer or laptop.",
            "durable",
        ),
        (
            LAMP,
            "The USB-C charging port in the base makes it easy to charge your device while "
            "on the go.",
            "device",
        ),
        (
            KITCHEN,
            "Switch the machine off at night to save energy and prevent any water damage.",
            "energy",
        ),
        (FRIDGE, "This is to ensure everyone knows where to find their food.", "food"),
        (
            FLASK,
            "It is perfect for anyone who wants to keep their drinks cold on chilly days and "
            "hot on sunny ones.",
            "sunny",
        ),
        # variants: a feature, an instruction, a motive, a promise, a comparison
        (FLASK, "It is dishwasher safe and comes with a lifetime guarantee.", "dishwasher"),
        (TRIP, "Remember to pack a lunch and a waterproof coat.", "lunch"),
        (TRIP, "We chose the museum so that every child sees real fossils up close.", "fossils"),
        (KITCHEN, "The new machine will be quieter and faster than the old one.", "quieter"),
        (FRIDGE, "Fresh fruit will be delivered to the kitchen every Monday morning.", "fruit"),
    ],
)
def test_a_sentence_that_adds_waits_for_a_person_with_its_words_named(brief, sentence, named):
    faithful = {
        LAMP: "The Lumo desk lamp has an aluminium arm and folds flat for travel.",
        KITCHEN: "The kitchen dishwasher is being replaced on Monday 3 March.",
        FRIDGE: "The office fridge is cleared out on Friday at 4pm.",
        FLASK: "The Fjell flask keeps drinks hot for 12 hours.",
        TRIP: "The Year 4 trip to the Science Museum is on Thursday 12 June.",
    }[brief]
    found = findings(brief, f"{faithful} {sentence}")
    assert [f["code"] for f in found] == ["adds:2"], found
    # a claim a reader acts on, or something new beside nothing of the brief, waits for a
    # person; a sentence that carries a fact with a few words of the writer's own is shown
    shown_only = named in ("device", "sunny")
    assert found[0]["severity"] == ("warn" if shown_only else "hold")
    assert repr(named) in found[0]["message"] and sentence in found[0]["message"]


@pytest.mark.parametrize(
    "brief,draft",
    [
        (
            LAMP,
            "The Lumo desk lamp has an aluminium arm, a warm-to-cool colour temperature dial "
            "and 5 brightness levels. The base has a USB-C charging port, and it folds "
            "flat for travel: for people who work from home.",
        ),
        (
            KITCHEN,
            "The kitchen dishwasher is being replaced on Monday 3 March. It will be out of "
            "action all day, so please wash your own mugs.",
        ),
        (
            FRIDGE,
            "Dear all,\nThe office fridge will be cleared out on Friday at 4pm, and anything "
            "left in it will be thrown away.\nThank you for your understanding.\nKind regards,",
        ),
        (
            TRIP,
            "Dear parents,\nI hope this message finds you well. The Year 4 trip to the Science "
            "Museum is on Thursday 12 June; the coach leaves at 8:30. The trip costs £14.\n"
            "If you have any questions, please feel free to contact us.\nBest wishes,",
        ),
        # the greeting run into the first sentence, and thanks said as gratitude
        (
            FRIDGE,
            "Dear colleagues, the office fridge will be cleared out on Friday at 4pm, and "
            "anything left in it will be thrown away. We are grateful for your help.",
        ),
    ],
)
def test_what_the_brief_gives_in_other_words_and_a_letters_greetings_are_not_held(brief, draft):
    assert held(brief, draft) == []


@pytest.mark.parametrize(
    "brief,draft",
    [
        (
            "Gym notice. New hours from 1 May: Mon-Fri 7am-9pm, Sat-Sun 8am-6pm.",
            "From 1 May the gym is open Monday to Friday 7am to 9pm, Saturday and Sunday "
            "8am to 6pm.",
        ),
        (
            "Gym notice. New hours from 1 May: Monday to Friday 7am-9pm, weekends 8am-6pm.",
            "From 1 May the gym is open Mon-Fri 7am-9pm.",
        ),
        (
            "Choir notice. Rehearsals restart Thurs 4 Sept in the hall.",
            "Rehearsals restart on Thursday 4 September in the hall.",
        ),
        # the plural end of a compound the brief gives in the singular
        (
            "Flu clinic notice. Flu jabs Saturday 9-12 at the surgery, walk-in ok, "
            "sign-up optional.",
            "Flu jabs on Saturday 9-12 at the surgery. Walk-ins are ok and sign-ups are optional.",
        ),
    ],
)
def test_the_briefs_words_written_short_or_in_another_form_add_nothing(brief, draft):
    assert held(brief, draft) == []


def test_a_persons_answer_is_a_source():
    draft = (
        "The Year 4 trip to the Science Museum is on Thursday 12 June. "
        "Meet at the Mill Lane depot gates."
    )
    assert held(TRIP, draft) == ["adds:2"]
    assert held(TRIP, draft, answers=("the Mill Lane depot gates",)) == []


@pytest.mark.parametrize(
    "brief,placeholder,asked",
    [
        # the brief names no help desk: a person would be asked to invent one
        (KITCHEN, "[NUMBER NEEDED: help desk phone]", False),
        (TRIP, "[NAME NEEDED: coach company]", False),
        # the brief says it is not known: that is what placeholders are for
        (TRIP + " The return time is not confirmed yet.", "[TIME NEEDED: return time]", True),
        (FRIDGE + " Who runs the clear-out: TBC.", "[NAME NEEDED: who runs the clear-out]", True),
    ],
)
def test_a_placeholder_for_what_the_brief_never_needs_is_an_addition(brief, placeholder, asked):
    draft = f"{brief.split(':', 1)[1].strip().split('.')[0]}. Call {placeholder}."
    codes = [c for c in held(brief, draft) if c.startswith("adds:placeholder")]
    assert (codes == []) is asked, (codes, draft)


def test_the_rubric_sets_how_many_new_words_make_an_addition():
    draft = "The office fridge is cleared out on Friday at 4pm. Fresh fruit arrives."
    assert held(FRIDGE, draft) == ["adds:2"]  # "Fresh", "fruit", "arrives"
    ctx = checks.CheckContext(
        draft=draft,
        sources=(FRIDGE,),
        brief=FRIDGE,
        checklist=brief_checklist(FRIDGE),
        addition_words=4,
    )
    assert not [f for f in checks.judge(ctx).findings if f["code"].startswith("adds")]


def test_the_rubric_makes_an_addition_a_warning_or_nothing():
    draft = "The office fridge is cleared out on Friday at 4pm. Fresh fruit arrives every Monday."
    assert held(FRIDGE, draft) == ["adds:2"]
    [warned] = findings(FRIDGE, draft, severity="warn")
    assert warned["severity"] == "warn"
    assert findings(FRIDGE, draft, severity="off") == []


def test_the_support_map_says_what_each_sentence_carries_and_adds():
    checklist = brief_checklist(TRIP)
    draft = (
        "Dear parents,\nThe Year 4 trip to the Science Museum is on Thursday 12 June. "
        "Pack a lunch and a raincoat."
    )
    greeting, trip, lunch = support_map(draft, checklist, [TRIP])
    assert greeting.glue and not greeting.items
    assert trip.items and trip.added == ()
    assert not lunch.items and set(lunch.added) == {"Pack", "lunch", "raincoat"}


LABELS = Path(__file__).resolve().parents[2] / "bench" / "additions" / "labels"


def test_the_labelled_sentences_are_whole_and_labelled():
    files = sorted(LABELS.glob("*.yaml"))
    sentences = [s for f in files for s in yaml.safe_load(f.read_text())["sentences"]]
    assert len(files) >= 40 and len(sentences) >= 300
    assert {s["label"] for s in sentences} <= {"supported", "glue", "hard", "soft"}
    assert all(s.get("adds") for s in sentences if s["label"] in ("hard", "soft"))
