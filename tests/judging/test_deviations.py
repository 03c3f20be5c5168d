"""The writer's deliberate deviations are held to the draft they describe: one that says
a placeholder was filled while it is still open, or that a phrase was cut or added when
the text shows otherwise, is a finding; a true one, or one that says nothing checkable,
is not. The issue's case and variants written for these tests."""

from __future__ import annotations

import pytest

from batch.judging import checks

BRIEF = "Invite staff to the talk on Friday 6 June at 12:00. The speaker is not confirmed yet."
OPEN = "Join us on Friday 6 June at 12:00 for a talk by [NAME NEEDED: speaker's name]."
FILLED = "Join us on Friday 6 June at 12:00 for a talk."


def found(draft: str, point: str, reason: str = "") -> list[str]:
    ctx = checks.CheckContext(
        draft=draft,
        sources=(BRIEF,),
        brief=BRIEF,
        deviations=({"point": point, "reason": reason},),
    )
    return [f["message"] for f in checks.judge(ctx).findings if f["code"].startswith("deviation")]


@pytest.mark.parametrize(
    "point",
    [
        "The placeholder for the speaker's name has been filled in.",
        "I filled in the missing speaker name.",
        "Replaced the gap for the speaker with their name.",
        "The placeholder was removed, as the critic asked.",
    ],
)
def test_a_placeholder_said_to_be_filled_that_is_still_open_is_false(point):
    [message] = found(OPEN, point)
    assert "[NAME NEEDED: speaker's name] is still in the text" in message
    assert found(FILLED, point) == []  # true of a text with no placeholder left


@pytest.mark.parametrize(
    "draft,point,false",
    [
        (OPEN, "Removed 'for a talk' as the critic suggested.", True),
        (FILLED, "Removed 'in the canteen' as the critic suggested.", False),
        (FILLED, 'Added "bring your lunch" as asked.', True),
        (FILLED + " Bring your lunch.", "Added 'bring your lunch' as asked.", False),
        # a deviation that says what it kept, with reasons, claims nothing false
        (OPEN, "Kept 'for a talk': shorter would lose the point.", False),
        (OPEN, "Did not add a speaker's name, since the brief has none.", False),
    ],
)
def test_a_phrase_said_to_be_cut_or_added_is_checked_in_the_text(draft, point, false):
    assert bool(found(draft, point)) is false, found(draft, point)


def test_a_persons_own_version_is_not_held_to_the_writers_account(settings):
    from batch.inputs.briefs import brief_from_fields
    from batch.loop.checking import edit_problems
    from batch.run.starting import start_state

    state, _ = start_state(settings, brief_from_fields(id="talk", text=BRIEF, origin="talk.md"))
    state["deviations"] = [{"point": "The placeholder has been filled in.", "reason": ""}]
    problems = edit_problems(state, OPEN, {"[NAME NEEDED: speaker's name]": "Dr Ada Park"})
    assert not [p for p in problems if "deliberate deviation" in p], problems
