"""A brief's lines read the same whatever their shape: an order to the writer is told apart
from an order to the readers, a fact and a fact that is not known yet, in prose, notes,
labels, bullets and pasted emails alike.

Each case is one brief line and what a careful assistant reads in it, written before the
reading was changed to pass them; the variants are the point, not the one example."""

from __future__ import annotations

import re

import pytest

from batch.judging.checklist import brief_checklist

INSTRUCTION = {"task", "style", "rule"}


def kinds(text: str) -> list[str]:
    return [r["kind"] for r in brief_checklist(text)]


# orders to the writer: never an item the text must say
WRITER = [
    "Need blurbs for the two new soups for the menu board.",
    "need a short press release for the launch",
    "Could you write a note for the staff kitchen?",
    "Can you put together a quick notice for the lobby?",
    "Pls draft something for the newsletter.",
    "Looking for a short welcome card for the rooms.",
    "Name in bold, then two lines.",
    "Name in bold, then two lines, no prices.",
    "no prices",
    "No prices pls.",
    "Leave the prices out.",
    "Leave out the supplier's name.",
    "Don't mention integrations.",
    "Do not compare it with other brands.",
    "don't compare w/ other brands",
    "Don't name the old supplier.",
    "Keep it under 80 words.",
    "Keep each blurb under 40 words.",
    "keep it short and friendly",
    "Friendly but not gushing.",
    "Tone: warm, plain English.",
    "No exclamation marks.",
    "British spelling please.",
    "Use the product name as a heading.",
    "Start with the date.",
    "One short paragraph.",
    "Max 60 words.",
    "Under 100 words please.",
    "Don't make up a battery figure.",
    "Avoid jargon.",
    "No emojis, no hashtags.",
    "Nothing about the old price.",
    "Put each soup name in bold.",
    "Soup name bold, one line under it.",
    "Headline first, then the details.",
    "Split it into two sections: before and after.",
    "Three short sections please.",
    "Add a heading with the date.",
    "Bold the prices.",
    "Each tweet: max 280 characters",
    "Target: under 100 words",
    "Max: 80 words",
    "Plain English for families please.",
    "Plain English for kids, please.",
    "plain lang.",
    "Could you write a short blurb for our bike service, for the website?",
    "Can you do a notice, for the staff noticeboard?",
]

# orders to the readers: the text must ask them
READERS = [
    "Don't park in the loading bay.",
    "Keep your receipt.",
    "Leave bikes in the rack by the gate.",
    "Use the side entrance on Mill Lane.",
    "Please reply by Friday 12 May.",
    "Bring your badge.",
    "Don't leave bags in the corridor.",
    "Keep the fire doors closed.",
    # the readers and what they do, as a statement: an order all the same
    "Customers show this post at the till.",
    "Players arrive 30 minutes before kick-off in full kit.",
    "Visitors sign in at reception.",
    "Staff park in the north car park on weekdays.",
    "People book by ringing 01632 960418.",
    "Call 01632 960418 to book.",
    "Order online at shop.example.com.",
    "Next step: book a slot online",
    # how they can do it is asking them to
    "Members can reserve a copy at Westgate Library.",
    "She can book online at greenfieldvets.co.uk or call 01632 488120.",
    "Everyone can come along to the cake at 4pm.",
    "Parents can pay on ParentPay by 9 May.",
    # a relay that makes an order of the readers' clear
    "Please make clear people shouldn't book their own flights.",
    "Make it clear that guests must not smoke indoors.",
    # common orders to readers that opened with a verb no rule knew
    "Report damaged items to reception.",
    "report any damage to the caretaker",
    "Pay at the desk on arrival.",
    "Apply online by 30 June.",
    "Complete the form before the course.",
    "Renew your membership by Friday.",
]

# facts the text must tell
FACTS = [
    "Leek soup - leeks, potato, chives.",
    "The kitchen closes on Friday 3 May for a deep clean.",
    "Ships 4 March, £129.",
    "We don't have parking on site.",
    "We can't give refunds on sale items.",
    "No dogs allowed in the garden.",
    "The lifts keep working as normal.",
    "Doors open at 19:00.",
    # the readers and what they get or are: not an order
    "Customers get 10% off all week.",
    "Members receive a free tote bag.",
    "Visitors love the walled garden.",
    "Staff with a disability park next to the main entrance.",
    # the words of a layout order, used of the world
    "The headline act is Mavis Staples.",
    "The headline rate is 4.5%.",
    "Our bold new menu starts on 3 May.",
    "The bold flavours come from smoked paprika.",
    "The park has three sections.",
    "The museum's new section opens on 1 June.",
    "The sign over the door is in capitals.",
    # a label naming a thing of the world, and its size: not a length for the text
    "New passwords: at least 14 characters",
    "Target: 60 children",
    "Rope: 30 metres",
    "Group size: at least 8 people",
    # an order's verb as a noun: of a list, or of a number
    "order 48213, the Oslo bookcase, arrived 6 days late",
    "email + calendar down Tue 11 Feb, 09:40-11:15",
    "Email & phone lines are down.",
    "claim reference KW-20931.",
    # an order's verb as a noun, and what became of it
    "claim approved",
    "order delayed until Monday",
    "booking confirmed.",
    "Call cancelled due to the strike.",
    "Ticket 5512 was refunded on Monday.",
    # what we do next, under a label for the next step
    "Next step: we email him a prepaid courier label and the courier collects the machine",
    "Action: we will send the forms on Monday",
    # what they can do that is no action asked of them
    "Members can use the gym for free.",
    "Children under 5 can travel free.",
]

# facts the brief says are not known
MISSING = [
    "Battery life: still waiting on the lab, so don't guess it.",
    "Battery life - TBC",
    "battery life ??",
    "We don't have the Q3 revenue figure yet.",
    "Can't give a launch date, still waiting on legal.",
    "The speaker's name is unknown at this point.",
    "Venue: no idea yet",
    "Haven't heard back from the venue about the start time.",
    "Start time: ask me nearer the time",
    "Price: tbd",
    # idioms of not knowing
    "Whether we'll have gluten-free buns is anyone's guess till the flour supplier gets back.",
    "The start time is still up in the air.",
    "It's unclear when the lift will be fixed.",
    "Waiting to hear from the council about the date.",
    "No word yet from the printer on the delivery day.",
    "We're not sure yet who will host.",
    # "no X yet" does not know X; it does not order X left out
    "Cup game v Oakfield: no date yet",
    "No prices yet.",
    "Price: no figure yet",
    "Speaker: no name so far",
    # a label that says it is not known, and a writer's order with it
    "price tbc: don't guess",
    "venue not confirmed: leave a gap",
]


@pytest.mark.parametrize("line", WRITER)
def test_an_order_to_the_writer_is_never_an_item_to_say(line):
    got = kinds(line)
    assert got and set(got) <= INSTRUCTION, (line, got)


@pytest.mark.parametrize("line", READERS)
def test_an_order_to_the_readers_is_an_ask(line):
    assert kinds(line) == ["ask"], line


@pytest.mark.parametrize("line", FACTS)
def test_a_fact_is_a_fact(line):
    assert kinds(line) == ["fact"], line


@pytest.mark.parametrize("line", MISSING)
def test_a_fact_not_known_yet_is_missing_in_any_wording(line):
    got = [k for k in kinds(line) if k not in INSTRUCTION]
    assert got == ["missing"], (line, kinds(line))


@pytest.mark.parametrize(
    "lead",
    [
        "Write a note that",
        "Write a memo saying",
        "Write a short notice to say",
        "Draft an email telling everyone that",
        "Write a note:",
        "Quick note for the team -",
    ],
)
def test_write_a_note_that_gives_its_facts_not_one_item(lead):
    brief = (
        f"{lead} the kitchen will be closed on Friday 3 May for a deep clean, and "
        "staff should take their food home by Thursday 2 May."
    )
    cl = brief_checklist(brief)
    said = [r for r in cl if r["kind"] not in INSTRUCTION]
    assert len(said) >= 2, cl
    assert any("3/5" in r["numbers"] for r in said) and any("2/5" in r["numbers"] for r in said)
    # the lead itself is the writer's, and never to be said
    assert not any(r["text"].lower().startswith(lead.lower()[:5]) for r in said), cl


@pytest.mark.parametrize(
    "draft,asked",
    [
        ("Customers show this post at the till to get the offer.", True),
        ("Just show this post at the till.", True),
        ("Please show this post at the till.", True),
        ("The offer runs all weekend at the till.", False),
    ],
)
def test_an_ask_worded_as_a_statement_may_be_told_as_one(draft, asked):
    from batch.judging.checklist import covered

    (ask,) = [r for r in brief_checklist("Customers show this post at the till.")]
    assert covered(ask, draft) is asked


@pytest.mark.parametrize(
    "line,subject",
    [
        ("Waiting to hear from the council about the date.", "date"),
        ("No word yet from the printer on the delivery day.", "delivery day"),
        ("We're not sure yet who will host.", "who will host"),
        ("It's unclear when the lift will be fixed.", "when the lift will be fixed"),
        ("The start time is still up in the air.", "start time"),
        (
            "We still don't know the date of the summer open day (the council hasn't got back).",
            "date of the summer open day",
        ),
        ("We can't give a date for the reopening yet.", "date for the reopening"),
        (
            "no word from the council about the date of the open day so leave that open",
            "date of the open day",
        ),
        ("Can't give the battery life yet, still waiting on the lab.", "battery life"),
        ("I can't give you the deposit yet, still waiting on the agency.", "deposit"),
    ],
)
def test_what_is_not_known_is_named_not_who_we_wait_on(line, subject):
    [item] = brief_checklist(line)
    assert item["subject"] == subject


@pytest.mark.parametrize(
    "line",
    [
        "Our bakery is open till 2pm.",
        "We'll get back to you within a day.",
        "The air conditioning is up and running.",
        "The lift is fixed.",
    ],
)
def test_a_fact_with_the_idioms_words_is_still_a_fact(line):
    assert kinds(line) == ["fact"]


# regressions found by checking the labelled texts of bench/additions against the checks:
# the reader must not cut a sentence where a request would be cut


@pytest.mark.parametrize(
    "line",
    [
        "After the move, any script that calls the build server must use its new hostname.",
        "After lunch, every guest who wants a tour meets at the gate.",
        "After the update, the page that lists orders loads faster.",
    ],
)
def test_a_sentence_opening_with_after_is_no_request(line):
    assert "task" not in kinds(line), brief_checklist(line)


@pytest.mark.parametrize(
    "line",
    [
        "Write the release notes for Ledgerly 3.2, our invoicing app, for our customers.",
        "Write a blurb for Kumo, our new kettle, for the shop page.",
    ],
)
def test_a_request_naming_its_subject_again_and_its_readers_is_one_task(line):
    items = brief_checklist(line)
    assert items[0]["kind"] == "task" and items[0]["text"] == line
    assert not [r for r in items if r["text"].lower().startswith("our ")]


def test_a_wrapped_line_going_on_in_a_lower_case_label_is_joined():
    brief = (
        "Write the answer to this question for the FAQ page of the Linden & Co online shop, in 90\n"
        'words or fewer: "Can I return something I bought in the sale?"\n'
    )
    items = brief_checklist(brief)
    assert any(r["kind"] == "rule" and "90 words" in r["text"] for r in items), items
    assert not any(r["text"] == "in 90" for r in items)


@pytest.mark.parametrize(
    "tail,kind",
    [
        # say that it is not known: a gap to tell
        ("and the listing should say so", "gap"),
        ("and the page should say that", "gap"),
        # state the fact itself: a placeholder until a person gives it
        ("and the page must state it", "missing"),
        ("and the description must mention it", "missing"),
    ],
)
def test_a_fact_not_known_that_the_text_must_state_or_say_is_unknown(tail, kind):
    line = f"How many stories there will be at launch is still open: not confirmed yet, {tail}."
    assert kinds(line) == [kind], brief_checklist(line)


def test_an_ask_split_from_the_readers_clause_before_it_keeps_their_name():
    from batch.judging.checklist import covered

    brief = (
        "When the alarm sounds, they leave by the stairs, not the lifts, and go to the "
        "assembly point in the front car park."
    )
    asks = [r for r in brief_checklist(brief) if r["kind"] == "ask"]
    assert [r["text"].split()[0] for r in asks] == ["they", "they"]
    told = (
        "When the alarm sounds, everyone leaves by the stairs, not the lifts, and goes to "
        "the assembly point in the front car park."
    )
    assert all(covered(r, told) for r in asks)
    assert not covered(asks[1], "Everyone leaves by the stairs, not the lifts.")


# A fact and a fact not known yet in one sentence: two items. Read as one unknown, the
# known half was never asked of the text (a placeholder for all of it, the date lost).
KNOWN_AND_UNKNOWN = [
    (
        "we're sending a replacement panel by courier on Thursday 14 November but the "
        "tracking number isn't through yet.",
        "courier",
        "tracking",
    ),
    (
        "The morning is a guided visit to Carrick Castle, then lunch, but I still haven't "
        "heard back from the restaurant.",
        "Carrick",
        "restaurant",
    ),
    (
        "lunch somewhere we have no idea of yet, a boat trip on Loch Fenna in the afternoon.",
        "Fenna",
        "lunch",
    ),
    (
        "from Monday 7 April Product Engineering splits into two teams, Platform (led by "
        "Nadia Haddad) and Customer Apps (lead not yet named).",
        "Nadia",
        "lead",
    ),
    # variants
    (
        "The gala is on 3 May at the Town Hall, but the start time isn't confirmed yet.",
        "Town",
        "start",
    ),
    ("Tickets cost £12 (the concession price is still TBC).", "12", "concession"),
    ("Doors open at 7pm, the headline act is still to be announced.", "7pm", "headline"),
    (
        "the new desks arrive on 2 June but we don't know the installer's name yet",
        "desks",
        "installer",
    ),
    ("Room 4B is booked for the training, trainer TBC.", "4B", "trainer"),
    (
        "Leila owns accessibility testing, who owns the press announcement is still undecided.",
        "Leila",
        "press",
    ),
    ("The hall is booked, when the doors open is not known yet.", "hall", "doors"),
    # what is known of an unknown is told too
    ("The price is not decided yet, but it will be under £20.", "20", "price"),
]


@pytest.mark.parametrize("line,known,unknown", KNOWN_AND_UNKNOWN)
def test_a_fact_joined_to_an_unknown_is_two_items(line, known, unknown):
    cl = brief_checklist(line)
    facts = [r for r in cl if r["kind"] == "fact"]
    gaps = [r for r in cl if r["kind"] in ("missing", "gap")]
    assert any(known.lower() in r["text"].lower() for r in facts), cl
    assert any(unknown in r["text"].lower() for r in gaps), cl
    assert not any(known.lower() in r["text"].lower() for r in gaps), cl


# ...but a sentence that is all one unknown, or hedges it, stays one item
ONE_UNKNOWN = [
    "The date of the open day, which the council still has to fix, is not known yet.",
    "We don't know the start time yet, the council hasn't confirmed it.",
    "Still waiting on the lab for the battery figure, so don't guess it.",
    # the unknown of the clause before, by a bare noun
    "She mentions her new cookbook, but the title isn't settled yet.",
    "Cookbook: she has a new one coming, title unknown at this point",
    "Hotel: no reply from the agency yet, name unknown",
    "I'd love to say how many families we helped, but the partners haven't sent the figure yet.",
]


@pytest.mark.parametrize("line", ONE_UNKNOWN)
def test_one_unknown_in_several_clauses_stays_one(line):
    got = [k for k in kinds(line) if k not in INSTRUCTION]
    assert got in (["missing"], ["gap"]), (line, brief_checklist(line))


@pytest.mark.parametrize(
    "line",
    [
        "Write a note, for the staff kitchen, that the fridge is cleared on Friday.",
        "Could you draft a notice, for the lobby, saying the fridge is cleared on Friday?",
        "Write a post, on Instagram, that the fridge is cleared on Friday.",
    ],
)
def test_where_a_text_goes_is_no_fact_to_say(line):
    said = [r for r in brief_checklist(line) if r["kind"] not in INSTRUCTION]
    assert [r["numbers"] or r["text"] for r in said] and len(said) == 1, said
    assert "fridge" in said[0]["text"], said


@pytest.mark.parametrize(
    "line",
    [
        "Please sign it from Karen in HR.",
        "Pls sign it from Karen in HR",
        "Kindly sign it as Karen in HR.",
    ],
)
def test_a_polite_signature_order_is_one_signature(line):
    assert kinds(line) == ["sign"], brief_checklist(line)


@pytest.mark.parametrize(
    "line,members",
    [
        (
            "Write a notice for members listing next week's classes (Monday yoga, 7pm; "
            "Wednesday pilates, 6pm; and Friday spin, whose instructor we don't know yet), "
            "saying all classes are in Studio 2.",
            ["7pm", "6pm", "instructor", "Studio 2"],
        ),
        (
            "The shop hours change next week (Monday closed; Tuesday to Friday 9am to 5pm; "
            "Saturday 10am to 2pm) and the café stays open as usual.",
            ["Monday", "5pm", "2pm", "café"],
        ),
    ],
)
def test_a_list_in_brackets_is_one_item_a_member(line, members):
    said = [r for r in brief_checklist(line) if r["kind"] not in INSTRUCTION]
    for member in members:
        holding = [r for r in said if member.lower() in r["text"].lower()]
        assert len(holding) == 1, (member, said)
    assert len({r["id"] for r in said if any(m in r["text"] for m in members)}) == len(members)


@pytest.mark.parametrize(
    "line,day",
    [
        (
            "Write a follow-up email to the website team after the meeting on Wednesday "
            "5 March, decisions first.",
            "5/3",
        ),
        (
            "Please write a thank-you note to volunteers for the litter pick on Sunday 8 June.",
            "8/6",
        ),
        ("Could you write a summary of the board meeting on Tuesday 4 March for staff?", "4/3"),
        ("Write a reminder for the quiz night on 12 May at the Red Lion.", "12/5"),
    ],
)
def test_the_occasion_a_request_names_with_its_day_is_a_fact(line, day):
    facts = [r for r in brief_checklist(line) if r["kind"] == "fact"]
    assert any(day in r["numbers"] for r in facts), brief_checklist(line)
    # and nothing of the request but the occasion
    assert not any(re.search(r"(?i)\b(?:write|staff|decisions)\b", r["text"]) for r in facts)


@pytest.mark.parametrize(
    "line", ["Decisions first.", "The news first, then the dates.", "dates first"]
)
def test_what_comes_first_is_an_order(line):
    assert set(kinds(line)) <= INSTRUCTION, brief_checklist(line)


@pytest.mark.parametrize("label", ["Morning", "Afternoon", "Evening", "Hello Kitty bag", "Dear"])
def test_a_labelled_line_is_no_greeting_whatever_its_first_word(label):
    brief = (
        f"Hi Fiona,\nCould you write the itinerary?\n{label}: guided visit to Carrick Castle"
        "\nThanks"
    )
    facts = [r for r in brief_checklist(brief) if r["kind"] == "fact"]
    assert any("Carrick" in r["text"] for r in facts), brief_checklist(brief)


@pytest.mark.parametrize(
    "line",
    [
        "The lift is broken so staff should use the stairs.",
        "The road is closed so you need to park on Mill Lane.",
        "Everything sent during the outage was delivered by 11:30 so they should not resend it.",
    ],
)
def test_a_fact_then_what_the_readers_must_do_about_it_is_a_fact_and_an_ask(line):
    assert kinds(line) == ["fact", "ask"], brief_checklist(line)


TABLE = """| what | detail |
|---|---|
| Event | Spring plant swap |
| When | Sunday 13 April, 10am-1pm |
| Bring | cuttings or seedlings in labelled pots |
| Parking | not sorted yet |
| Tone | friendly, under 100 words |
"""


def test_a_pasted_table_reads_as_its_labelled_lines():
    cl = brief_checklist(TABLE)
    assert [r["kind"] for r in cl] == ["fact", "fact", "ask", "missing", "style"], cl
    assert not any("|" in r["text"] or "---" in r["text"] for r in cl), cl
    # the same facts as labelled lines read the same
    lines = "\n".join(row.strip("|").replace(" | ", ": ").strip() for row in TABLE.splitlines()[2:])
    assert [r["kind"] for r in brief_checklist(lines)] == [r["kind"] for r in cl]


def test_a_wider_table_gives_one_item_a_row():
    table = (
        "| Date | Opponent | Kick-off |\n|:--|:--|--:|\n"
        "| Sat 5 Oct | Hillcrest (home) | 10am |\n| Sat 12 Oct | Marsh Lane (away) | 9:30am |\n"
    )
    cl = brief_checklist(table)
    assert [r["kind"] for r in cl] == ["fact", "fact"], cl
    assert "Hillcrest" in cl[0]["text"] and "Marsh Lane" in cl[1]["text"]


FORWARDED = """Fwd from Sam:

> Hi both, quick one - can we get a notice up about the boiler?
> It's being replaced on Tuesday 8 April, hot water off 8am to 4pm.
> Not sure yet if the showers will be back by the evening.
> Don't say anything about the cost (£4,200).
> Thanks, Sam

Keep it short and sign it from the Facilities Team.
"""


def test_a_forwarded_email_reads_as_its_lines_and_the_note_under_it():
    cl = brief_checklist(FORWARDED)
    assert [r["kind"] for r in cl] == ["task", "fact", "missing", "rule", "rule", "sign"], cl
    assert cl[2]["subject"] == "whether the showers will be back by the evening"
    assert cl[-1]["text"] == "the Facilities Team"  # the lines after Sam's sign-off count
    assert not any(r["text"].startswith((">", "Fwd", "Thanks")) for r in cl), cl


@pytest.mark.parametrize(
    "line",
    [
        "can we get a notice up about the boiler?",
        "Can you get a post out about the sale?",
        "Could we have a short blurb for the menu?",
    ],
)
def test_can_we_get_a_text_is_a_request(line):
    assert kinds(line) == ["task"], brief_checklist(line)


@pytest.mark.parametrize(
    "line", ["Can we get the boiler fixed by Friday?", "We can get a refund for the tickets."]
)
def test_can_we_get_a_thing_is_no_request(line):
    assert "task" not in kinds(line), brief_checklist(line)


@pytest.mark.parametrize(
    "order,signature,signed",
    [
        ("Sign it from the Facilities Team.", "Facilities Team", True),
        ("Sign it from the Facilities Team.", "The Facilities Team", True),
        ("Sign it from our Events Team.", "Events Team", True),
        ("Sign it from the Facilities Team.", "Events Team", False),
    ],
)
def test_a_signature_need_not_carry_the_orders_article(order, signature, signed):
    from batch.judging.checklist import covered

    (sign,) = brief_checklist(order)
    assert covered(sign, f"The boiler is replaced on Tuesday.\n\n{signature}") is signed


@pytest.mark.parametrize(
    "brief",
    [
        "hey team 👋 need a quick post for insta: we're closed mon 14th for staff training 🙏 "
        "back tues as normal. don't mention the refit",
        "need a quick post for insta: we're closed mon 14th for staff training. back tues as "
        "normal. don't mention the refit",
        "need a quick post for insta 📣 we're closed mon 14th for staff training ✨ back tues "
        "as normal 🙂 don't mention the refit",
    ],
)
def test_a_chat_message_in_lower_case_or_cut_by_emoji_reads_sentence_by_sentence(brief):
    cl = brief_checklist(brief)
    assert [r["kind"] for r in cl] == ["task", "fact", "fact", "rule"], cl
    assert "14th" in cl[1]["text"] and "tues" in cl[2]["text"], cl
    assert not any(ch in r["text"] for r in cl for ch in "👋🙏📣✨🙂"), cl


def test_an_abbreviation_does_not_end_a_lower_case_sentence():
    brief = (
        "pls write txt reminder 2 patients: flu jabs sat 9-12 @ surgery, walk-in ok, "
        "bring NHS no. under 160 chars"
    )
    cl = brief_checklist(brief)
    assert [r["kind"] for r in cl] == ["task", "fact", "ask", "rule"], cl
    assert cl[2]["text"] == "bring NHS no."


QA = """Q: What's happening?
A: The car park is being resurfaced.
Q: When?
A: 9 to 13 June.
Q: When does it reopen?
A: Not confirmed yet.
Q: Anything else?
Write this up as a short memo to staff, signed Facilities."""


def test_a_question_and_its_answer_are_one_item_named_by_the_question():
    cl = brief_checklist(QA)
    assert [r["kind"] for r in cl] == ["fact", "fact", "missing", "task", "sign"], cl
    assert "reopen" in cl[2]["subject"], cl
    assert not any(r["text"].startswith(("Q:", "A:", "Anything")) for r in cl), cl


@pytest.mark.parametrize("gap", ["\n\n", "\n \n", "\n\n\n"])
def test_a_blank_line_parts_two_paragraphs_of_notes(gap):
    brief = (
        "Kitchen closed Fri 3 May deep clean staff take food home Thu 2 May fridge emptied "
        f"5pm{gap}Friendly but not gushing."
    )
    assert kinds(brief)[-1] == "rule", brief_checklist(brief)
    assert not any("gushing" in r["text"] for r in brief_checklist(brief)[:-1])


CHAT = (
    "hey team 👋 need a quick post for insta: we're closed mon 14th for staff training 🙏 "
    "back tues as normal. don't mention the refit"
)
SMS = (
    "pls write txt reminder 2 patients: flu jabs sat 9-12 @ surgery, walk-in ok, "
    "bring NHS no. under 160 chars"
)


@pytest.mark.parametrize(
    "brief", [TABLE, FORWARDED, QA, CHAT, SMS], ids=["table", "forwarded", "qa", "chat", "sms"]
)
def test_a_brief_of_a_new_shape_pasted_as_its_text_is_never_approved(tmp_path, brief):
    from batch import config as config_mod
    from batch.inputs.briefs import load_brief_file
    from bench.projects import copied_project, judged_as_draft

    settings = config_mod.load(copied_project([], prefix="bl-pasted-") / "briefloop.toml")
    path = tmp_path / "b.md"
    path.write_text(f"---\nid: b\ntitle: Note\nrubric: memo\n---\n{brief}\n", encoding="utf-8")
    parsed = load_brief_file(path, 1 << 20)
    state, judged = judged_as_draft(settings, parsed, parsed.text)
    assert not (judged["meets_bar"] and not judged.get("holds")), state["findings"]


@pytest.mark.parametrize(
    "brief, who",
    [
        # the last line of notes that is only a name and a role signs the text
        (
            "Reply to Mr Patel.\n\n- claim approved\n- warm tone\n"
            "- Sam, Customer Care, Kettleworks",
            "Sam",
        ),
        ("Letter to parents.\n\n- trip Thu 22 May\n- Mrs Okoro, Y4 teacher", "Okoro"),
        ("Notice for tenants.\n\n* bins move to Tuesdays\n* Dana Kerr, Facilities Manager", "Dana"),
        # "from" and a role that holds a figure
        ("Letter to parents.\n\n- trip Thu 22 May\n- from Mrs Okoro, Y4 teacher", "Okoro"),
        ("Notice.\n\n- lift out of order\n- from Jo Bell, Block 2 caretaker", "Jo Bell"),
        # "sign it from me" in a pasted email: the name at its foot
        (
            "Hi Kat,\n\nCould you write the email? The run is on Sunday. Sign it from me.\n\n"
            "Thanks so much,\nTom (Tom Reid, Accounts)",
            "Tom",
        ),
        (
            "Hi Kat,\n\nCould you write the post? We open on Sunday. Please sign it from me.\n\n"
            "Cheers, Mel",
            "Mel",
        ),
        (
            "Hello,\n\nCan you do the notice? Fire drill Monday 10am. Sign from us.\n\nBest,\n"
            "Ana and Joe",
            "Ana",
        ),
    ],
)
def test_a_signer_named_without_the_word_sign_signs_the_text(brief, who):
    signs = [r for r in brief_checklist(brief) if r["kind"] == "sign"]
    assert len(signs) == 1 and who in signs[0]["subject"], brief_checklist(brief)


@pytest.mark.parametrize(
    "brief",
    [
        # a place, a list of towns, a contact in the middle: no signature
        "Reply to Mr Patel.\n\n- claim approved\n- Riverside Park, pitch 3",
        "Notice.\n\n- buses run to Leeds, Manchester, York",
        "Notice.\n\n- stops at: Leeds, Manchester, York",
        "Notice.\n\n- Sam, Customer Care, on 01632 960418\n- open 9 to 5",
        # prose with a name and a role at its end is a sentence, not a signature line
        "Write a welcome note. Our new starter is Sam, Customer Care.",
    ],
)
def test_a_name_that_is_not_the_last_line_of_notes_signs_nothing(brief):
    assert not [r for r in brief_checklist(brief) if r["kind"] == "sign"], brief_checklist(brief)


@pytest.mark.parametrize(
    "line",
    [
        "root-cause review not done → say it'll follow",
        "review not finished, say so",
        "The root-cause review is still in progress: say it will be shared when it's finished.",
        "audit in progress - tell staff the report will follow",
        "Survey still ongoing; say so.",
        "The survey is ongoing, so say results will follow.",
    ],
)
def test_work_not_finished_that_the_text_must_say_will_follow_is_told(line):
    got = [k for k in kinds(f"Note for staff.\n\n- {line}") if k not in INSTRUCTION]
    assert "gap" in got and "ask" not in got, (line, got)


@pytest.mark.parametrize(
    "line", ["The review is not done.", "The building work is in progress.", "Audit ongoing"]
)
def test_work_not_finished_with_no_order_to_say_so_is_a_fact(line):
    assert kinds(f"Note for staff.\n\n- {line}")[1:] == ["fact"], line


@pytest.mark.parametrize(
    "first",
    [
        "Office move date: tbd; tell staff they'll hear when it is",
        "Office move: not decided, we'll say when it is",
        "Parking: ask at reception whether there is",
        "Refunds: yes, as long as the receipt is",
        "Price: this year's price not set yet - tell her that",
        "Parking: none on site, we told them this",
    ],
)
def test_a_line_ending_on_its_verb_does_not_swallow_the_next_label(first):
    from batch.judging.brief_lines import logical_lines

    lines = logical_lines(f"What: notice for staff\n{first}\nStaff to: read the minutes on Friday")
    assert lines[-1] == "Staff to: read the minutes on Friday", lines


# lines of notes and labels that ask the readers to do something, in shapes no rule knew
NOTES_ASKS = [
    "use the online page to donate, no cash pls",
    "Use the form to register.",
    "bring vaccination card",
    "Show this card at the door",
    "book: greenfieldvets.co.uk / 01632 488120",
    "Tickets: wegottickets.com/quiz",
    "Sign up: by 30 November at northsidefoodbank.org/help",
    "Call: 01632 960418",
    "kids there 30 minutes before KO, full kit",
    "everyone in the hall by 9am",
    "players at the ground by 10",
    "£14 → ParentPay by 9 May",
    "to be paid on ParentPay by 9 May.",
    "forms to be returned by Friday 3 May",
]


@pytest.mark.parametrize("line", NOTES_ASKS)
def test_a_line_of_notes_asking_the_readers_is_an_ask(line):
    got = [k for k in kinds(f"Notice for members.\n\n- {line}") if k not in INSTRUCTION]
    assert "ask" in got and "task" not in kinds(f"Notice.\n\n- {line}")[1:], (line, got)


# the same words, or near them, that ask nothing
NOTES_FACTS = [
    "Use this page to describe the product.",
    "Tickets: £5 at the door",
    "Book: The Salt Path by Raynor Winn",
    "Contact: Sam on 07700 900312",
    "Staff at the gate from 8:30",
    "Prices rise to £6 by June",
    "Customers keep asking for oat milk.",
    "Staff keep on parking in the bay.",
    "skipped files show as placeholders",
]


@pytest.mark.parametrize("line", NOTES_FACTS)
def test_a_line_near_an_ask_that_asks_nothing_is_no_ask(line):
    got = kinds(f"Notice for members.\n\n- {line}")[1:]
    assert "ask" not in got and "missing" not in got, (line, got)


@pytest.mark.parametrize(
    "line",
    [
        "chicken from ??? farm - still checking, placeholder",
        "chicken from ??? farm",
        "farm: still checking",
        "Supplier name - placeholder pls",
        "we're chasing the printer for the date",
    ],
)
def test_a_fact_still_being_checked_is_missing(line):
    got = [k for k in kinds(f"Menu blurbs.\n\n- {line}") if k not in INSTRUCTION]
    assert got == ["missing"], (line, got)


@pytest.mark.parametrize(
    "brief, asks",
    [
        # a run-on that turns to what the readers must do
        (
            "Write the announcement, there's a Q&A on Thursday at 2pm in Room 4B and people "
            "should send their questions to their manager before it.",
            ["send their questions to their manager before it"],
        ),
        # "…, and to bring a waterproof": told to do it as the clause before
        (
            "Write an itinerary for guests on the tour, telling guests to keep their ticket "
            "with them all day, and to bring a waterproof.",
            ["keep their ticket", "bring a waterproof"],
        ),
        (
            "Write a notice asking parents to pay by Friday, and to label coats.",
            ["pay by Friday", "label coats"],
        ),
        (
            "Write a notice reminding staff to lock the doors, and to switch off the lights.",
            ["lock the doors", "switch off the lights"],
        ),
    ],
)
def test_what_the_readers_are_told_to_do_inside_a_run_on_is_each_an_ask(brief, asks):
    got = [r["text"] for r in brief_checklist(brief) if r["kind"] == "ask"]
    for ask in asks:
        assert any(ask in g for g in got), (ask, brief_checklist(brief))


@pytest.mark.parametrize(
    "brief",
    [
        "Write a warm call for volunteers, under 90 words, saying the food bank needs 12 "
        "volunteers on Saturdays, that no experience is needed, and that whether there's "
        "parking is still to be confirmed.",
        "Write a memo, saying the office closes on Friday, and that the reopening date "
        "is not decided yet.",
        "Parking: not known yet whether there is any - say we'll confirm",
        "Venue: not booked yet, say they'll hear soon",
    ],
)
def test_an_unknown_the_request_hands_over_to_say_is_told(brief):
    got = [r["kind"] for r in brief_checklist(brief)]
    assert "gap" in got and "missing" not in got, brief_checklist(brief)


@pytest.mark.parametrize(
    "first", ["menu blurbs x2 new soups", "booster reminder → Mrs Jean Hollis", "Y4 parents letter"]
)
def test_a_first_line_naming_the_text_is_the_request(first):
    assert kinds(f"{first}\n- leek soup: leeks, potato\n- £7")[0] == "task"


@pytest.mark.parametrize(
    "line", ["we'll email him a prepaid courier label", "email + calendar down Tue 11 Feb"]
)
def test_a_first_clause_with_a_text_noun_and_a_verb_is_no_request(line):
    assert kinds(f"{line}, and the courier collects the machine.")[0] == "fact"


@pytest.mark.parametrize(
    "asked, name",
    [
        (
            "Could you write the Hollow Lane Community Garden item for this month's newsletter?",
            "Hollow Lane Community Garden",
        ),
        (
            "Write a course description for beginners of our evening course Introduction to "
            "Bookbinding.",
            "Introduction to Bookbinding",
        ),
        ("Can you write the Riverside Rovers fixtures post?", "Riverside Rovers"),
        ("Please write a blurb for our course Cooking for Beginners.", "Cooking for Beginners"),
    ],
)
def test_the_name_a_request_gives_its_subject_is_one_item(asked, name):
    facts = [r["text"] for r in brief_checklist(asked) if r["kind"] == "fact"]
    assert facts == [name], brief_checklist(asked)


@pytest.mark.parametrize(
    "line, subject",
    [
        (
            "People keep asking about gluten-free buns, but the flour supplier hasn't got back "
            "to me, so I can't say yet.",
            "gluten-free buns",
        ),
        (
            "Customers have asked whether we deliver, but we haven't decided yet.",
            "whether we deliver",
        ),
        ("Members keep wondering about the AGM date - no idea yet", "AGM date"),
    ],
)
def test_what_people_ask_about_is_what_is_not_known(line, subject):
    got = [r for r in brief_checklist(line) if r["kind"] not in INSTRUCTION]
    assert [r["kind"] for r in got] == ["missing"] and subject in got[0]["subject"], got


@pytest.mark.parametrize(
    "line, kind",
    [
        # "there", "they", "nobody" point back: one item with the clause before
        ("Westgate Library has 6 copies, so people can reserve one there.", "ask"),
        ("The box office has spare tickets, and fans can pick them up there.", "ask"),
        (
            "Please tell people: don't resend messages from that morning, they all went through.",
            "ask",
        ),
        ("Don't reprint the flyers, they were all delivered on Monday.", "ask"),
        (
            "Don't spoil the ending - the sister leaves for America, but nobody needs to know "
            "that in advance.",
            "rule",
        ),
    ],
)
def test_a_clause_pointing_back_stays_with_the_one_before(line, kind):
    got = [r for r in brief_checklist(line) if r["kind"] not in ("task",)]
    assert [r["kind"] for r in got] == [kind], got


@pytest.mark.parametrize(
    "line", ["Cost: £14, pay on ParentPay by 9 May", "Price: £20, book at the desk"]
)
def test_a_labelled_value_then_what_the_readers_do_is_an_ask(line):
    assert "ask" in kinds(line), brief_checklist(line)


@pytest.mark.parametrize(
    "line", ["Cost: £14, payable on ParentPay", "Schedule: check-in 9am, talks 10am"]
)
def test_a_labelled_value_of_several_parts_is_a_fact(line):
    assert kinds(line) == ["fact"], brief_checklist(line)


@pytest.mark.parametrize(
    "asked, names",
    [
        (
            "Write a progress update to the Hartley Foundation on our Reading Buddies grant.",
            ["Hartley Foundation", "Reading Buddies"],
        ),
        (
            "Write a follow-up email to the Riverside relaunch team after the meeting on "
            "Wednesday 5 March.",
            ["Riverside"],
        ),
        ("Please write a note to Daniel Reyes about his Aria 2 order.", ["Daniel Reyes", "Aria 2"]),
    ],
)
def test_every_name_a_request_gives_is_asked_of_the_text(asked, names):
    facts = " | ".join(r["text"] for r in brief_checklist(asked) if r["kind"] == "fact")
    assert all(n in facts for n in names), (names, facts)


@pytest.mark.parametrize("short", ["avail.", "appt.", "approx.", "yr."])
def test_a_short_form_of_notes_does_not_end_the_line(short):
    got = [r["text"] for r in brief_checklist(f"Listing pls\n- {short} from 1 September")]
    assert got[1:] == [f"{short} from 1 September"], got


@pytest.mark.parametrize(
    "line",
    [
        "reset network pw by Fri 14 March 5pm",
        "renew your parking permit by 30 June",
        "passport valid until 12 January min",
        "photo ID required",
        "booking essential",
        "helmets compulsory on the ride",
    ],
)
def test_what_the_readers_must_have_or_do_by_a_date_is_an_ask(line):
    assert kinds(f"Notice.\n- {line}")[1:] == ["ask"], brief_checklist(f"Notice.\n- {line}")


@pytest.mark.parametrize(
    "line",
    [
        "no experience required",
        "Experience: none needed",
        "change of venue on 3 May",
        "review of the year: profits up 4%",
    ],
)
def test_what_is_not_required_or_a_noun_of_change_is_no_ask(line):
    assert "ask" not in kinds(f"Notice.\n- {line}"), brief_checklist(f"Notice.\n- {line}")


@pytest.mark.parametrize(
    "line, fact",
    [
        (
            "Everyone has to reset their password by 5pm on Friday because a phishing email "
            "last week collected some logins.",
            "a phishing email last week collected some logins",
        ),
        (
            "Use the platform steps from the workshop until the replacement arrives on Monday "
            "9 June.",
            "the replacement arrives on Monday 9 June",
        ),
        (
            "Please use the side door until the lift is fixed on Thursday.",
            "the lift is fixed on Thursday",
        ),
    ],
)
def test_the_reason_or_the_end_of_an_ask_is_a_fact_of_its_own(line, fact):
    got = brief_checklist(line)
    assert [r["kind"] for r in got] == ["ask", "fact"] and fact in got[1]["text"], got


def test_a_reason_told_by_it_stays_with_its_ask():
    line = "Keep your ticket with you all day because it is checked at the castle."
    assert kinds(line) == ["ask"]


@pytest.mark.parametrize(
    "first",
    [
        "IT notice, all staff - password resets",
        "Notice, residents - bin collection changes",
        "Email, volunteers - rota update",
    ],
)
def test_a_first_line_giving_audience_and_topic_is_all_request(first):
    got = kinds(f"{first}\n- bins go out on Tuesday 4 March")
    assert got == ["task", "fact"], brief_checklist(f"{first}\n- bins go out on Tuesday 4 March")


@pytest.mark.parametrize(
    "first", ["IT notice, all staff - Northgate portal", "Notice, residents - from 3 March"]
)
def test_a_first_line_topic_with_a_name_or_figure_stays_an_item(first):
    assert "fact" in kinds(first + "\n- reset by Friday")[:2]


# orders to the writer in wordings the rules were not built on, written as a probe before
# the reader was changed: how it should sound, whose words and style it takes, whom it
# is readable for, where it goes, what to steer clear of, how short
MORE_WRITER = [
    "Should sound warm but professional",
    "Make it sound exciting",
    "Use British spelling",
    "Use 'we' not 'the company'",
    "Address them as 'you'",
    "Readable for 10-year-olds",
    "Easy to follow for beginners",
    "For: local residents",
    "Short - it's going on a poster",
    "This goes in the newsletter",
    "Avoid mentioning the delay",
    "Steer clear of politics",
    "Stay away from the costs",
    "Same style as last month's",
    "Match the tone of our website",
    "Nothing longer than a tweet",
    "Must fit on a postcard",
]


@pytest.mark.parametrize("line", MORE_WRITER)
@pytest.mark.parametrize("shape", ["notes", "prose"])
def test_an_order_to_the_writer_in_other_words_is_never_an_item_to_say(line, shape):
    brief = (
        f"Notice for members.\n\n- Lunch is at 1pm on Friday 3 May.\n- {line}"
        if shape == "notes"
        else f"Notice for members. Lunch is at 1pm on Friday 3 May. {line}"
    )
    got = [(r["kind"], r["text"]) for r in brief_checklist(brief)[1:]]
    assert [k for k, t in got if k not in INSTRUCTION and "Lunch" not in t] == [], got


# facts in the words of a layout or a tone order
LOOK_LIKE_ORDERS = [
    "Bold flavours, slow-cooked for 12 hours.",
    "First person to book gets a free mug.",
    "Headline sponsor is Kettleworks.",
    "Title race decided on Saturday 4 May.",
    "The sound system is new this year.",
    "Short courses run every Monday.",
]


@pytest.mark.parametrize("line", LOOK_LIKE_ORDERS)
def test_a_fact_in_an_orders_words_is_a_fact(line):
    assert kinds(f"Notice for members.\n\n- {line}")[1:] == ["fact"], brief_checklist(line)


@pytest.mark.parametrize(
    "line",
    [
        "Name in bold, then two lines",
        "Put the times in bold",
        "Title in caps",
        "Bold the dates",
        "block capitals please",
        "Write in the first person",
        "First person, from me",
    ],
)
def test_a_layout_order_with_those_words_is_still_an_order(line):
    got = kinds(f"Notice for members.\n\n- Lunch at 1pm.\n- {line}")[2:]
    assert got and set(got) <= INSTRUCTION, (line, got)


@pytest.mark.parametrize(
    "line, want",
    [
        # a label naming what the readers fetch, and where or when: an ask
        ("Collect: box office, Monday–Friday, 10am–4pm", ["ask"]),
        ("Drop off: reception by Friday 3 May", ["ask"]),
        ("Collect: 2 parcels waiting", ["fact"]),
        ("Return: back at Market Square around 6:30 pm", ["fact"]),
        # what a product lets one choose, said in notes: a fact
        ("pick which folders sync to each device", ["fact"]),
        ("choose what gets shared with the team", ["fact"]),
        # a choice and an order after it: the order is still the readers'
        ("Choose which session you want and reply by Friday", ["fact", "ask"]),
        ("Fill in the form and pay by Monday", ["ask", "ask"]),
        ("Tea and pay-as-you-go coffee", ["fact"]),
    ],
)
def test_notes_that_name_an_action_read_as_what_they_ask(line, want):
    assert kinds(f"Notice.\n- {line}")[1:] == want, brief_checklist(f"Notice.\n- {line}")


@pytest.mark.parametrize(
    "line, kind",
    [
        ("packed lunch in a bag w/ child's name on", "ask"),
        ("named water bottle", "ask"),
        ("coats clearly labelled", "ask"),
        ("PE kit in a bag with your child's name on it", "ask"),
        ("Lunch is served in the hall", "fact"),
        ("The name on the cup is wrong", "fact"),
        ("Our bags are made from recycled cotton", "fact"),
    ],
)
def test_belongings_to_be_marked_with_a_name_are_an_ask(line, kind):
    assert kinds(f"Letter to parents.\n- {line}")[1:] == [kind]


# asks to the readers in 30 wordings, and 15 facts near them, written as a probe before
# the reader was changed (9 of the 30 were read as facts). One of the 30, "tickets must
# be shown at the door", is left out: a passive obligation is a fact to the judged set's
# labels (tests/judging/test_requirements.py), and a text that says it with its "must"
# covers either reading.
PROBE_ASKS = [
    "Wear sturdy shoes.",
    "sturdy shoes pls",
    "bring a packed lunch",
    "Arrive by 9:15 so we can start on time",
    "everyone to sign the register on arrival",
    "RSVP to Jo by 12 June",
    "Let us know about allergies by Friday",
    "parents: sign and return the consent form",
    "park in the overflow car park, not the main one",
    "no bags on the seats please",
    "Please keep noise down after 10pm",
    "remember your swimming kit on Thursdays",
    "forms back to the office by Wed",
    "Register online before 1 May",
    "Book early - places are limited",
    "Text Sam on 07700 900123 if you're running late",
    "log your hours on the timesheet every Friday",
    "Check your spam folder for the invite",
    "Switch off your phones during the talk",
    "Don't forget your ID",
    "Make sure the back door is locked when you leave",
    "Staff are asked to clear their desks by Thursday",
    "Residents should put bins out by 7am",
    "Drivers must report any damage straight away",
    "Please hand keys in at reception",
    "Members are reminded to renew by 31 March",
    "Volunteers need to complete the safety training first",
    "Guests can check out any time before 11am",
    "Call ahead if you need step-free access",
]
PROBE_NOT_ASKS = [
    "Doors open at 7pm.",
    "We've booked the main hall for the evening.",
    "The team will send the agenda on Monday.",
    "Parking is free after 6pm.",
    "Tickets are £8 on the door.",
    "The café sells hot drinks and cakes.",
    "Members get 10% off.",
    "The course runs for six weeks.",
    "Our volunteers built the new shed.",
    "The bins were emptied on Tuesday.",
    "Staff voted for the new rota.",
    "Residents raised £400 for the hospice.",
    "Guests loved the garden tour last year.",
    "The register is kept at reception.",
    "Drivers are paid weekly.",
]


@pytest.mark.parametrize("line", PROBE_ASKS)
@pytest.mark.parametrize("shape", ["notes", "prose"])
def test_an_ask_in_any_of_thirty_wordings_is_an_ask(line, shape):
    brief = (
        f"Notice for members.\n\n- {line}" if shape == "notes" else f"Notice for members. {line}"
    )
    assert "ask" in kinds(brief)[1:], brief_checklist(brief)


@pytest.mark.parametrize("line", PROBE_NOT_ASKS)
def test_a_fact_near_an_ask_is_a_fact(line):
    assert kinds(f"Notice for members.\n\n- {line}")[1:] == ["fact"]


@pytest.mark.parametrize(
    "line",
    [
        "Please include this quote from our CEO: we built it for listeners.",
        "Please note the office closes at 5pm.",
        "Make sure it mentions the new opening hours.",
        "Plain English please",
        "Short please",
    ],
)
def test_please_before_an_order_to_the_writer_or_a_relay_asks_nothing(line):
    assert "ask" not in kinds(f"Notice for members.\n\n- {line}"), brief_checklist(line)
