"""Each check right in both directions, by class: a correct text that a wrong finding
used to block is approved, and the text that finding exists for is still refused.
Every class holds the reported example and variants written apart from it."""

from __future__ import annotations

from pathlib import Path

import pytest

from batch.judging.apidocs import check_api_docs
from batch.judging.checklist import brief_checklist

from conftest import run_checks


def judge(brief: str, draft: str, needs: list[dict] | None = None) -> list[str]:
    """The codes of the registry on `draft` for a text brief that stop the machine from
    approving it: must-fix, and what waits for a person (what a sentence adds is
    tests/judging/test_additions.py's)."""
    if needs is None:
        from batch import placeholders as ph

        needs = [{"placeholder": p, "question": "?"} for p in ph.find(draft)]
    found = run_checks(
        draft=draft, needs=needs, sources=(brief,), brief=brief, checklist=brief_checklist(brief)
    )
    return sorted(
        f["code"]
        for f in found
        if f["severity"] == "must_fix" or (f["severity"] == "hold" and f["code"][:5] != "adds:")
    )


def prefixes(codes: list[str]) -> set[str]:
    return {c.split(":")[0] for c in codes}


def told_both_ways(brief: str, good: str, bad: str) -> None:
    """`good` tells the readers everything the brief asks, `bad` leaves something out."""
    assert not [c for c in judge(brief, good) if c.startswith("uncovered")]
    assert [c for c in judge(brief, bad) if c.startswith("uncovered")]


# -- a fact still to come, told beside its placeholder -------------------------------------

Q3 = """Write a short memo to the sales team about the third quarter.

- Q3 revenue: not known yet; finance will confirm it on Monday.
- The team closed 42 new accounts in Q3, up from 35 in Q2.
- Ask everyone to update their pipeline in the CRM by Friday.
"""
Q3_FACTS = (
    "The team closed 42 new accounts in Q3, up from 35 in Q2. Please update "
    "your pipeline in the CRM by Friday."
)

TRAVEL = """Memo to all staff about the new travel policy.

- Book every trip through the travel desk at least 14 days ahead.
- Economy class for flights under 6 hours.
- The daily meal allowance (per diem) has not been confirmed by Finance yet.
"""
TRAVEL_FACTS = (
    "Please book every trip through the travel desk at least 14 days ahead. "
    "Flights under 6 hours are economy class."
)


@pytest.mark.parametrize(
    "brief,facts,gap",
    [
        (
            Q3,
            Q3_FACTS,
            "Q3 revenue is not known yet; finance will confirm it on Monday: "
            "[FIGURE NEEDED: Q3 revenue].",
        ),
        (
            Q3,
            Q3_FACTS,
            "Q3 revenue: [FIGURE NEEDED: Q3 revenue]. Finance will confirm the figure on Monday.",
        ),
        (
            Q3,
            Q3_FACTS,
            "Finance has not confirmed the Q3 revenue yet ([FIGURE NEEDED: Q3 revenue]).",
        ),
        (
            TRAVEL,
            TRAVEL_FACTS,
            "Finance has not yet confirmed the daily meal allowance "
            "(per diem); it will be [FIGURE NEEDED: daily meal allowance].",
        ),
        (
            TRAVEL,
            TRAVEL_FACTS,
            "The daily meal allowance is still to be confirmed. It will be "
            "[FIGURE NEEDED: daily meal allowance].",
        ),
    ],
)
def test_a_pending_fact_told_beside_its_placeholder_is_honest(brief, facts, gap):
    assert judge(brief, facts + "\n\n" + gap) == []


@pytest.mark.parametrize(
    "brief,facts,told",
    [
        (Q3, Q3_FACTS, "Q3 revenue is not known yet; finance will confirm it on Monday."),
        (TRAVEL, TRAVEL_FACTS, "Finance has not yet confirmed the daily meal allowance."),
    ],
)
def test_telling_it_instead_of_the_placeholder_is_still_refused(brief, facts, told):
    found = prefixes(judge(brief, facts + "\n\n" + told))
    assert {"missing-placeholder", "gap-told"} <= found


def test_a_guess_beside_the_placeholder_is_still_refused():
    guessed = Q3_FACTS + "\n\nQ3 revenue was about 4 million ([FIGURE NEEDED: Q3 revenue])."
    assert "number:4" in judge(Q3, guessed)


# -- an instruction to the writer is not an item --------------------------------------------

LEDGER = """Write an FAQ answer to "What happens to my messages if a node fails?"

Use only these facts: Ledger-7 replicates every message to three nodes; a message is
confirmed once two nodes have stored it; a failed node rejoins by itself.
"""
LEDGER_ANSWER = (
    "Ledger-7 replicates every message to three nodes, and a message is "
    "confirmed once two of them have stored it. So losing a single node does "
    "not lose a confirmed message. A failed node rejoins the cluster by itself."
)


@pytest.mark.parametrize(
    "prefix",
    [
        "Use only these facts:",
        "Facts:",
        "Include these points:",
        "Key facts to use:",
        "Based on these facts:",
        "Work from these facts only:",
        "Use the following facts:",
    ],
)
def test_a_prefix_that_hands_the_writer_its_facts_is_not_an_ask(prefix):
    brief = LEDGER.replace("Use only these facts:", prefix)
    checklist = brief_checklist(brief)
    assert not [r for r in checklist if r["kind"] == "ask"], checklist
    facts = [r["text"] for r in checklist if r["kind"] == "fact"]
    assert len(facts) == 3 and not any(prefix.rstrip(":").lower() in f.lower() for f in facts), (
        facts
    )
    assert judge(brief, LEDGER_ANSWER) == []
    # a fact with nothing checkable (no figure, name or address) is never held against
    # the text by its words (docs/briefs.md, "What a text is held to")
    without = LEDGER_ANSWER.replace(" A failed node rejoins the cluster by itself.", "")
    assert judge(brief, without) == []


def test_an_order_to_the_readers_with_a_label_is_still_an_ask():
    brief = "Notice for tenants.\n\nUse the side entrance: the main door is being painted.\n"
    assert [r["kind"] for r in brief_checklist(brief)][-1] == "ask"


# -- a negation that states a consequence is not a contradiction ----------------------------


@pytest.mark.parametrize(
    "sentence",
    [
        "So losing a single node does not lose a confirmed message.",
        "A confirmed message is never lost when one node goes down.",
        "One node failing does not put a confirmed message at risk.",
        "A message is not confirmed until two nodes have stored it.",
    ],
)
def test_a_consequence_with_a_negation_is_not_a_contradiction(sentence):
    answer = LEDGER_ANSWER.replace(
        "So losing a single node does not lose a confirmed message.", sentence
    )
    assert judge(LEDGER, answer) == []


@pytest.mark.parametrize(
    "old,new",
    [
        (
            "Ledger-7 replicates every message to three nodes",
            "Ledger-7 does not replicate messages to three nodes",
        ),
        (
            "a message is confirmed once two of them have stored it",
            "a message is never confirmed once two of them have stored it",
        ),
        (
            "A failed node rejoins the cluster by itself.",
            "A failed node does not rejoin the cluster by itself.",
        ),
    ],
)
def test_a_negation_that_denies_what_the_brief_states_is_a_contradiction(old, new):
    answer = LEDGER_ANSWER.replace(old, new)
    assert "contradiction" in prefixes(judge(LEDGER, answer))


# -- a negation the brief gives beside a reason is the brief's, not a denial of the reason --

TRIP = (
    "Can you write the travel advice for the team trip to Lisbon, it's 9 to 12 October, "
    "and tell everyone don't book your own flights because the travel desk has booked "
    "them, and the currency is the euro."
)
PARKING = (
    "Notice for residents.\n\n- Please don't park in bays 4 to 6 next week: the painters "
    "are repainting the bays.\n- The car park reopens fully on Monday 9 June.\n"
)
REFUNDS = (
    "Note for the shop floor.\n\n- Full-price items are refunded within 30 days.\n"
    "- Sale items are not refunded.\n"
)


@pytest.mark.parametrize(
    "brief,sentence",
    [
        (
            TRIP,
            "Do Not Book Your Own Flights: as per the travel desk's booking, all flights "
            "have already been allocated.",
        ),
        (TRIP, "Please do not book your own flights, because the travel desk has booked them."),
        (
            PARKING,
            "Please do not park in bays 4 to 6 next week, as the painters are repainting the bays.",
        ),
    ],
)
def test_a_negation_the_brief_gives_beside_its_reason_is_not_a_contradiction(brief, sentence):
    assert "contradiction" not in prefixes(judge(brief, sentence))


@pytest.mark.parametrize(
    "sentence",
    [
        "Full-price items are not refunded within 30 days. Sale items are not refunded.",
        "Sale items are not refunded, and full-price items are not refunded within 30 days.",
    ],
)
def test_a_negation_beside_another_denial_still_contradicts_the_fuller_match(sentence):
    assert "contradiction" in prefixes(judge(REFUNDS, sentence))


# -- carrying out an instruction is not copying it ------------------------------------------

WELCOME = """Write a short welcome note to the design team.

- Tom Okafor joins as a senior designer on 3 March.
- He comes from Brightline Studio, where he led the mobile app work.
- Say hello at the coffee point at 10:00 on Monday.
"""
# a welcome note welcomes (batch.judging.checks.acts): the facts told, and the welcome
WELCOME_FACTS = (
    "Please welcome Tom Okafor, who joins us as a senior designer on 3 March. He comes "
    "from Brightline Studio, where he led the mobile app work."
)


@pytest.mark.parametrize(
    "meetup",
    [
        "Come and meet him at the coffee point at 10:00 on Monday.",
        "Please say hello to Tom at the coffee point at 10:00 on Monday.",
        "Join us at the coffee point at 10:00 on Monday to say hello.",
    ],
)
def test_carrying_out_an_instruction_is_not_echo(meetup):
    assert judge(WELCOME, WELCOME_FACTS + " " + meetup) == []


def test_a_welcome_note_that_only_tells_the_facts_does_not_welcome():
    facts = (
        "Tom Okafor joins us as a senior designer on 3 March. He comes from Brightline "
        "Studio, where he led the mobile app work. Say hello at the coffee point at 10:00 "
        "on Monday."
    )
    assert "act:welcome" in judge(WELCOME, facts)


def test_the_meetup_is_required_and_cannot_be_dropped():
    assert "uncovered" in prefixes(judge(WELCOME, WELCOME_FACTS))


@pytest.mark.parametrize(
    "brief,pasted",
    [
        (WELCOME, "Write a short welcome note to the design team."),
        (Q3, "Write a short memo to the sales team about the third quarter."),
    ],
)
def test_an_order_to_the_writer_pasted_is_still_echo(brief, pasted):
    facts = (
        WELCOME_FACTS + " Come and meet him at the coffee point at 10:00 on Monday."
        if brief is WELCOME
        else Q3_FACTS + " Q3 revenue: [FIGURE NEEDED: Q3 revenue]."
    )
    assert "echo" in prefixes(judge(brief, pasted + "\n\n" + facts))


# -- the documented file's own name --------------------------------------------------------

SAVINGS = '''"""Savings goals."""


def months_to_goal(goal: float, monthly: float) -> int:
    """Whole months of saving `monthly` until `goal` is reached."""
    if monthly <= 0:
        raise ValueError("monthly must be positive")
    return -(-int(goal * 100) // int(monthly * 100))
'''


@pytest.mark.parametrize(
    "heading",
    [
        "# savings.py",
        "# `savings.py`",
        "# savings",
        "# The `savings` module",
        "# savings.py: savings goals",
    ],
)
def test_a_heading_that_names_the_documented_file_is_the_source(heading):
    doc = (
        f"{heading}\n\n## `months_to_goal(goal, monthly)`\n\nWhole months of saving "
        "`monthly` until `goal` is reached. Raises `ValueError` when `monthly` is not "
        "positive.\n"
    )
    assert check_api_docs(doc, SAVINGS, "savings") == []


def test_another_file_or_an_invented_name_is_still_refused():
    doc = (
        "# savings.py\n\n## `months_to_goal(goal, monthly)`\n\nSee also "
        "`budget_plan()` in `budget.py`.\n"
    )
    found = {f["code"] for f in check_api_docs(doc, SAVINGS, "savings")}
    assert "api-invented:budget_plan" in found


# -- coverage means the reader is told ------------------------------------------------------

SALE = """Write an FAQ answer to "Can I return something I bought in the sale?"

Facts: sale items can be exchanged but not refunded; exchanges within 30 days; bring
the receipt.
"""
SALE_OK = (
    "Yes, within limits. Sale items can be exchanged but not refunded. Exchanges "
    "are possible within 30 days, and please bring the receipt."
)


@pytest.mark.parametrize(
    "said",
    [
        "Sale items can be exchanged but not refunded.",
        "You can exchange a sale item, but we cannot refund it.",
        "Sale items are exchangeable but non-refundable.",
        "We will gladly exchange sale items. We do not refund them, though.",
    ],
)
def test_a_negated_fact_in_other_words_is_covered(said):
    assert judge(SALE, SALE_OK.replace("Sale items can be exchanged but not refunded.", said)) == []


# A figure is said of what the item says it of: the event a time limit bounds, the thing
# an amount or a date belongs to, not another one beside the same words.
REFUND = """Email to a customer confirming their refund.

- We have refunded 48.50 euros for the returned running shoes.
- The money reaches the original card within 5 working days.
- Ask the customer to reply to this email if it has not arrived by then.
"""
REFUND_OPENING = "We have refunded 48.50 euros for your returned running shoes. "
REFUND_ASK = " Please reply to this email if the money has not arrived by then."


@pytest.mark.parametrize(
    "said",
    [
        "The money reaches your original card within 5 working days.",
        "You will see the money back on your original card within five working days.",
        "Within 5 working days the money will be on the card you paid with.",
        # what "it" is, the sentence before says
        "It should reach your original card within 5 working days.",
    ],
)
def test_a_figure_said_of_its_own_event_is_covered(said):
    assert judge(REFUND, REFUND_OPENING + said + REFUND_ASK) == []


KETTLE = """Product description of our gooseneck kettle.

- Keeps the water at the set temperature for up to 30 minutes.
- Holds 0.9 litres.
"""


# -- repairs never lose what the brief asked for -------------------------------------------


def _repairer(brief, banned=()):
    from batch.loop.writing.repairs import Repairer

    def check(draft, needs):
        return run_checks(
            draft=draft,
            needs=needs,
            sources=(brief,),
            brief=brief,
            checklist=brief_checklist(brief),
            banned_phrases=banned,
        )

    asked: list[str] = []

    def ask(draft, task, sample, words):
        asked.append(task)
        return None  # no model: only code's candidates

    return Repairer(judge=check, ask=ask), check, asked


@pytest.mark.parametrize(
    "bad",
    [
        "Sale items, sadly, can be exchanged but not refunded.",
        "Sadly, sale items can be exchanged but not refunded.",
    ],
)
def test_a_sentence_that_carries_an_item_is_not_dropped_to_fix_it(bad):
    text = (
        SALE_OK.replace("Sale items can be exchanged but not refunded.", bad)
        + " A refund for a full-price item takes five days."
    )
    repairer, check, asked = _repairer(SALE, banned=("sadly",))
    findings = check(text, [])
    assert [f["code"] for f in findings if f["severity"] == "must_fix"] == ["banned:sadly"]
    outcome = repairer.run(text, [], findings)
    assert bad in outcome.draft  # dropping it would lose the fact: rolled back
    assert outcome.attempts[0].kept is False
    assert asked and bad.rstrip(".") in asked[0]  # the model was asked to rewrite it


def test_an_api_doc_that_lost_its_only_parameter_line_is_refused():
    from batch.judging.checks.form import check_empty_sections

    doc = (
        "# `colors`\n\n## `parse_hex(text)`\n\nThe colour as (red, green, blue).\n\n"
        "Parameters:\n\n- `text`: a colour such as `#ff8800`.\n\nExample:\n\n"
        "```python\n>>> parse_hex('#ff8800')\n(255, 136, 0)\n```\n"
    )
    assert check_empty_sections(doc) == []
    lost = doc.replace("- `text`: a colour such as `#ff8800`.\n\n", "")
    assert [f["code"] for f in check_empty_sections(lost)] == [
        "empty-section:`parse_hex(text)` / parameters"
    ]
    no_example = doc.split("```python")[0].rstrip() + "\n"
    assert [f["code"] for f in check_empty_sections(no_example)] == [
        "empty-section:`parse_hex(text)` / example"
    ]
    # a heading with nothing under it before the next of its level, and a comment line
    # inside a code block that is no heading
    assert [f["code"] for f in check_empty_sections("# A\n\n# B\n\ntext\n")] == ["empty-section:a"]
    assert check_empty_sections("# A\n\n```python\n# a comment\nx = 1\n```\n") == []


def test_a_parameter_left_out_of_a_parameter_list_is_refused():
    source = (
        "def scale(value, factor=2):\n    '''value times factor.'''\n    return value * factor\n"
    )
    doc = (
        "# `m`\n\n## `scale(value, factor=2)`\n\nMultiplies.\n\nParameters:\n\n"
        "- `value`: the number.\n- `factor`: how many times.\n\nExample:\n\n"
        "```python\n>>> scale(2)\n4\n```\n"
    )
    assert check_api_docs(doc, source, "m") == []
    lost = doc.replace("- `factor`: how many times.\n", "")
    assert [f["code"] for f in check_api_docs(lost, source, "m")] == ["api-parameter:scale.factor"]
    # docs with no parameter list at all are not held to one
    assert (
        check_api_docs(
            doc.replace(
                "Parameters:\n\n- `value`: the number.\n- `factor`: how many times.\n\n", ""
            ),
            source,
            "m",
        )
        == []
    )


@pytest.mark.parametrize(
    "answer,call",
    [
        ("parse_hex('#ff8800') -> (255, 136, 0)", "parse_hex('#ff8800')"),
        ("parse_hex('#ff8800')", "parse_hex('#ff8800')"),
        ('parse_hex("#000")  # (0, 0, 0)', 'parse_hex("#000")'),
        ("parse_hex('a -> b returns #1') returns None", "parse_hex('a -> b returns #1')"),
        (">>> parse_hex('#fff')\n(255, 255, 255)", "parse_hex('#fff')"),
    ],
)
def test_an_example_with_a_marker_inside_a_string_keeps_its_call(answer, call):
    from batch.loop.writing import docwriter

    source = "def parse_hex(text):\n    return text\n"
    [name] = docwriter.names_of(source)
    assert docwriter.usable_example(answer, name) == call


# -- a fact nobody gave: a placeholder, never a guess beside it -----------------------------

LICENSE = """Write an FAQ answer to "Can I use Ledger-7 in a commercial product?"

Facts: Ledger-7 is written in Rust; it runs on Linux and macOS.
Nothing is known yet about the license.
"""
LICENSE_FACTS = "Ledger-7 is written in Rust, and it runs on Linux and macOS."


@pytest.mark.parametrize(
    "guess",
    [
        "The license allows users to use, modify, and distribute the software without any "
        "restrictions.",
        "Its license is permissive, so commercial use is fine.",
    ],
)
def test_a_guess_about_a_missing_fact_beside_its_placeholder_is_refused(guess):
    text = f"{LICENSE_FACTS} License: [FACT NEEDED: license]. {guess}"
    assert "gap-guessed:R4" in judge(LICENSE, text)


@pytest.mark.parametrize(
    "honest",
    [
        "License: [FACT NEEDED: license].",
        "The license is not known yet: [FACT NEEDED: license].",
        "We cannot say yet which license applies ([FACT NEEDED: license]).",
    ],
)
def test_the_placeholder_alone_or_told_as_pending_is_fine(honest):
    assert judge(LICENSE, f"{LICENSE_FACTS} {honest}") == []


def test_a_persons_answer_is_the_fact_not_a_guess():
    text = f"{LICENSE_FACTS} The license is Apache 2.0, so commercial use is allowed."
    found = run_checks(
        draft=text,
        needs=[],
        sources=(LICENSE, "Apache 2.0"),
        brief=LICENSE,
        checklist=brief_checklist(LICENSE),
        answered=["[FACT NEEDED: license]"],
    )
    assert [f["code"] for f in found if f["severity"] == "must_fix"] == []


# -- a need for what the brief says it does without -----------------------------------------

SHELF = """Write the shop-page description of the Perch monitor shelf.

- The shelf clips onto any desk up to 4 cm thick.
- It fits without tools.
- Holds up to 10 kg.
"""
SHELF_FACTS = "The Perch shelf clips onto any desk up to 4 cm thick and holds up to 10 kg."


@pytest.mark.parametrize(
    "sentence",
    [
        "Installation needs tools.",
        "You will need a few tools to fit it.",
        "Fitting it requires a screwdriver and some tools.",
    ],
)
def test_needing_what_the_brief_says_it_does_without_is_a_contradiction(sentence):
    text = f"{SHELF_FACTS} It fits without tools. {sentence}"
    assert "contradiction:R3" in judge(SHELF, text)


@pytest.mark.parametrize(
    "sentence",
    [
        "No tools are needed.",
        "It needs no tools.",
        "You will not need any tools.",
        "It fits in seconds, without tools.",
    ],
)
def test_saying_it_needs_none_is_not(sentence):
    assert judge(SHELF, f"{SHELF_FACTS} {sentence}") == []


def test_the_doc_prompt_of_a_name_holds_its_own_code_not_its_neighbours():
    from pathlib import Path

    from batch.loop.writing import docwriter
    from batch.prompting import doc_messages

    source = (Path(__file__).resolve().parents[2] / "examples" / "briefs" / "slugify.py").read_text(
        encoding="utf-8"
    )
    names = {n.qualname: n for n in docwriter.names_of(source)}
    state = {"brief": {"id": "slugify", "source_text": source, "origin_name": "slugify.py"}}
    slugify = doc_messages(state, names["slugify"])[1]["content"]
    unique = doc_messages(state, names["unique_slug"])[1]["content"]
    assert "while slug in taken" not in slugify and "unique_slug" not in slugify
    assert "Turn titles into URL slugs" in slugify
    # unique_slug calls slugify: what it does through it is its own
    assert "while slug in taken" in unique and "def slugify" in unique


# -- an ask is asked --------------------------------------------------------------------


@pytest.mark.parametrize(
    "asked",
    [
        "Please update your pipeline in the CRM by Friday.",
        "Update your pipeline in the CRM by Friday.",
        "Make sure your CRM pipeline is up to date by Friday.",
        "We ask everyone to update their pipeline in the CRM by Friday.",
        "Everyone should update their pipeline in the CRM by Friday.",
    ],
)
def test_an_ask_said_to_the_readers_covers_it(asked):
    text = f"{Q3_FACTS.split(' Please')[0]} {asked} Q3 revenue: [FIGURE NEEDED: Q3 revenue]."
    assert judge(Q3, text) == []


# -- an order to the writer, whatever verb opens it, is never the text ---------------------

FAQ = """Answer this question for the help centre of Trailnote, our app, in one short
paragraph.

Question: Can I use Trailnote offline?

Facts:
- Notes you opened in the last 30 days are available offline on the phone apps.
- The web app does not work offline.
"""
FAQ_TEXT = (
    "Yes, on your phone: notes you opened in the last 30 days are available offline "
    "in the phone apps. The web app does not work offline."
)


@pytest.mark.parametrize(
    "order",
    [
        "Answer this question for the help centre of Trailnote, our app, in one short paragraph.",
        "Reply to the question for the help centre.",
        "Explain the offline mode in two short paragraphs.",
    ],
)
def test_an_order_that_names_the_texts_form_is_the_writers(order):
    brief = FAQ.replace(
        "Answer this question for the help centre of Trailnote, our app, in one short\nparagraph.",
        order,
    )
    first = brief_checklist(brief)[0]
    assert first["kind"] == "task", first
    assert judge(brief, FAQ_TEXT) == []
    assert "echo" in prefixes(judge(brief, order + "\n\n" + FAQ_TEXT))


def test_a_readers_reply_is_still_an_ask():
    brief = (
        "Email to a customer.\n\n- Reply to this email if the parcel has not arrived by Friday.\n"
    )
    assert [r["kind"] for r in brief_checklist(brief)][-1] == "ask"


@pytest.mark.parametrize(
    "pasted",
    [
        "Say that the facilities team will announce it next week.",
        "Mention that the facilities team will announce the date next week.",
        "Please explain that the date comes next week.",
    ],
)
def test_an_order_to_pass_something_on_pasted_is_echo(pasted):
    brief = (
        "Tell everyone that there is a fire drill on Tuesday at 10:30.\n\nFloor 1 will have "
        "its own drill later. Say that the facilities team will announce it next week.\n"
    )
    good = (
        "There is a fire drill on Tuesday at 10:30. Floor 1 will have its own drill later; "
        "the facilities team will announce its date next week."
    )
    assert judge(brief, good) == []
    assert "echo:relay:1" in judge(brief, good + " " + pasted)


@pytest.mark.parametrize(
    "pasted,told",
    [
        (
            "Say that the facilities team will announce it next week.",
            "The facilities team will announce it next week.",
        ),
        ("**Mention that the car park closes at 18:00.**", "**The car park closes at 18:00.**"),
        ("- Please explain that refunds take 5 days.", "- Refunds take 5 days."),
    ],
)
def test_an_order_to_pass_something_on_is_told_by_code_not_dropped(pasted, told):
    """Dropping the pasted order dropped what it carries (the repair was rolled back and
    the text ended max_rounds); said without the order, the fact stays."""
    from batch.judging.checks.echo import unrelayed
    from batch.loop.writing import repairs

    assert unrelayed(pasted) == told
    brief = (
        "Tell everyone that there is a fire drill on Tuesday at 10:30.\n\nFloor 1 will have "
        "its own drill later, but its date is not set yet. Say that the facilities team "
        "will announce it next week.\n"
    )
    checklist = brief_checklist(brief)

    def check(draft, needs):
        return run_checks(
            draft=draft, needs=needs, sources=(brief,), brief=brief, checklist=checklist
        )

    draft = (
        "There is a fire drill on Tuesday at 10:30. Floor 1 will have its own drill "
        "later, but its date is not set yet. Say that the facilities team will announce "
        "it next week."
    )
    before = check(draft, [])
    assert "echo:relay:1" in repairs.must_fix(before)
    out = repairs.Repairer(judge=check, ask=lambda *a: None).run(draft, [], before)
    assert not repairs.must_fix(out.findings), out.findings
    assert "The facilities team will announce it next week." in out.draft


@pytest.mark.parametrize(
    "fine",
    [
        "Note that the lifts will be out of use.",
        "Tell the organiser that you need a vegetarian meal.",
    ],
)
def test_a_sentence_to_the_readers_that_opens_so_is_not(fine):
    brief = "Tell everyone that there is a fire drill on Tuesday at 10:30.\n"
    assert "echo:prompt" not in judge(brief, "There is a fire drill on Tuesday at 10:30. " + fine)


def test_a_number_with_a_thousands_comma_stays_one_item():
    brief = (
        "Release notes.\n\nChanges:\n- Faster: the invoice list loads twice as fast for "
        "accounts with more than 5,000 invoices.\n- Fixed: long names, addresses and "
        "notes are no longer cut off.\n"
    )
    texts = [r["text"] for r in brief_checklist(brief)]
    assert any("5,000 invoices" in t for t in texts), texts
    assert not any(t.startswith("000") for t in texts), texts
    good = (
        "The invoice list now loads twice as fast for accounts with more than 5,000 "
        "invoices. Long names, addresses and notes are no longer cut off."
    )
    assert not [c for c in judge(brief, good) if c.startswith("uncovered")]


@pytest.mark.parametrize(
    "invited",
    [
        "We look forward to seeing you at the coffee point at 10:00 on Monday.",
        "Drop by the coffee point at 10:00 on Monday to say hello.",
        "Hope to see you at the coffee point at 10:00 on Monday!",
    ],
)
def test_an_invitation_to_the_readers_asks_them(invited):
    assert judge(WELCOME, WELCOME_FACTS + " " + invited) == []


@pytest.mark.parametrize(
    "word,flagged",
    [
        ("URL-friendly", False),
        ("JSON-based", False),
        ("Priya-Sharma", True),
        ("Northwind-style", True),
    ],
)
def test_only_the_parts_of_a_compound_written_as_names_need_a_source(word, flagged):
    from batch.judging.checks.facts import check_names

    found = check_names(f"It gives a {word} slug.", ["Turn titles into URL slugs with JSON."])
    assert bool(found) is flagged, found


@pytest.mark.parametrize(
    "summary,ok",
    [
        ("Turns a title into a slug.", True),
        ("Returns `text` in lower case (ASCII only).", True),
        ("It uses the `unicodedata.normalize(", False),
        ("It joins the words with hyphens and", False),
        ("", False),
    ],
)
def test_a_summary_cut_off_mid_sentence_is_no_summary(summary, ok):
    from batch.loop.writing import docwriter

    assert docwriter.finished(summary) is ok
    # no docstring: the summary is the only prose the section can have
    source = "def slug(text):\n    return text.lower()\n"
    writer = docwriter.DocWriter(
        ask=lambda name, sample: docwriter.NameDoc(summary, {"text": "a title"}, ""),
        run_calls=lambda calls: [],
    )
    doc, _ = writer.write("m", source)
    if summary:
        assert (summary in doc) is ok
    section = doc.split("## `slug(text)`")[1].split("Parameters:")[0]
    assert bool(section.strip()) is ok


SLUGS = (Path(__file__).resolve().parents[2] / "examples" / "briefs" / "slugify.py").read_text(
    encoding="utf-8"
)
SLUG_DOC = (
    "# `slugify`\n\n## `slugify(text, max_length=60)`\n\n{slugify}\n\n"
    "## `unique_slug(text, taken)`\n\n{unique}\n"
)


@pytest.mark.parametrize(
    "slugify,flagged",
    [
        ("Turns a title into lower-case ASCII words joined by hyphens.", False),
        ("It is useful for creating unique slugs from titles.", True),
        ("If the slug is taken, it appends numbers to make it unique.", True),
    ],
)
def test_a_summary_that_speaks_of_another_names_behaviour_is_refused(slugify, flagged):
    from batch.judging.bleed import check_bleed

    doc = SLUG_DOC.format(
        slugify=slugify,
        unique="A slug of the text that is not taken, "
        "made unique by adding -2, -3 and so on; it slugifies the text.",
    )
    found = [f["code"] for f in check_bleed(doc, SLUGS)]
    assert bool(found) is flagged, found
    # unique_slug calls slugify: it may say what slugify does
    assert not [c for c in found if c.startswith("api-bleed:unique_slug")]


# -- an item told by its own words, not by those it shares with the others -----------------

BUDDIES = """Memo to team leads.

- Every new starter gets an onboarding buddy for their first 6 weeks.
- Buddies meet their new starter at least once a week.
- Team leads pick the buddy before the start date.
- Ask team leads to send the buddy's name to HR one week before the start date.
"""
BUDDIES_GIVEN = (
    "Every new starter gets an onboarding buddy for their first 6 weeks. Please "
    "send the buddy's name to HR one week before the start date."
)
PARKING = """Notice to staff and visitors about parking.

- Staff park in the north car park on weekdays.
- Visitors park in the north car park at weekends.
- Staff with a disability park next to the main entrance.
"""
PARKING_GIVEN = "Staff with a disability park next to the main entrance."


# -- what an order to the writer says about the world ---------------------------------------


@pytest.mark.parametrize(
    "brief",
    [
        "Write a short memo to the sales team about the third quarter.\n\n- The team closed 42 "
        "new accounts.\n",
        "Memo to all staff about the new parking rules.\n\n- The team closed 42 new accounts.\n",
        "Release notes.\n\n- The team closed 42 new accounts.\n",
        "Customer newsletter:\n\n- The team closed 42 new accounts.\n",
        # an invitation's readers are not what it is to
        "Invitation to our partners.\n\n- The team closed 42 new accounts.\n",
        "Invitation to the board to approve the plan.\n\n- The team closed 42 new accounts.\n",
    ],
)
def test_a_topic_or_title_without_a_fact_of_its_own_is_no_item(brief):
    assert [r["kind"] for r in brief_checklist(brief)] == ["task", "fact"]
    # an invitation must still invite (batch.judging.checks.acts): that is no item
    found = judge(brief, "The team closed 42 new accounts.")
    assert found == (["act:invite"] if brief.startswith("Invitation") else [])


@pytest.mark.parametrize(
    "brief,pasted",
    [
        (
            "Storynest is a reading app for children aged 5 to 8, and we need the text for its app "
            "store page.\n",
            "we need the text for its app store page",
        ),
        (
            "Acme sells garden tools from Leeds; we need a description for the shop page.\n",
            "we need a description for the shop page",
        ),
    ],
)
def test_the_writers_clause_inside_a_fact_is_not_copied(brief, pasted):
    fact = brief.split(",")[0].split(";")[0].strip()
    assert not judge(brief, f"{fact}.")
    assert [c for c in judge(brief, f"{fact}, and {pasted}.") if c.startswith("echo")]


# -- a fact missing as a question ("How many stories there will be ... is still open") -----


@pytest.mark.parametrize(
    "item,subject,label",
    [
        (
            "How many stories there will be at launch is still open: the content team has not "
            "confirmed the number yet.",
            "number of stories at launch",
            "FIGURE",
        ),
        ("How much the ticket costs is not decided yet.", "price of the ticket", "FIGURE"),
        ("When the new office opens is not known yet.", "date the new office opens", "DATE"),
        (
            "Who will host the evening is still to be confirmed.",
            "person who will host the evening",
            "NAME",
        ),
    ],
)
def test_a_missing_fact_asked_as_a_question_is_named_as_a_thing(item, subject, label):
    from batch import placeholders as ph

    [r] = [r for r in brief_checklist(item) if r["kind"] == "missing"]
    assert r["subject"] == subject
    assert ph.suggest(r["subject"]).startswith(f"[{label} NEEDED:")


# -- a model or part code is said as written ------------------------------------------------


@pytest.mark.parametrize(
    "brief,good,bad",
    [
        (
            "Write the shop-page description of the Pebble key finder.\n\nFacts:\n- Runs on a "
            "CR2032 coin battery that lasts about a year.\n",
            "The Pebble runs on a CR2032 coin battery, which lasts about a year.",
            "The Pebble runs on a coin battery that lasts about a year.",
        ),
        (
            "Product text.\n\n- Splash-resistant (IPX4), not waterproof.\n",
            "It is splash-resistant to IPX4, but not waterproof.",
            "It is splash-resistant, but not waterproof.",
        ),
        (
            "Product text.\n\n- Charges over USB3 in 2 hours.\n",
            "It charges over USB3 in 2 hours.",
            "It charges over USB in 2 hours.",
        ),
    ],
)
def test_a_product_code_is_said_as_written(brief, good, bad):
    told_both_ways(brief, good, bad)


# -- what a reader may do is said with the doing -------------------------------------------


@pytest.mark.parametrize(
    "brief,draft,kept",
    [
        (
            "Storynest is a reading app for children aged 5 to 8, and we need the text for its app "
            "store page.\n",
            "Storynest is a reading app for children aged 5 to 8, and we need the text for its app "
            "store page.",
            "Storynest is a reading app for children aged 5 to 8.",
        ),
        (
            "Acme sells garden tools from Leeds; we need a description for the shop page.\n",
            "Acme sells garden tools from Leeds; we need a description for the shop page.",
            "Acme sells garden tools from Leeds.",
        ),
    ],
)
def test_the_writers_clause_pasted_goes_and_the_fact_beside_it_stays(brief, draft, kept):
    from batch.loop.writing import repairs

    checklist = brief_checklist(brief)

    def check(text, needs):
        return run_checks(
            draft=text, needs=needs, sources=(brief,), brief=brief, checklist=checklist
        )

    before = check(draft, [])
    assert [c for c in repairs.must_fix(before) if c.startswith("echo")]
    out = repairs.Repairer(judge=check, ask=lambda *a: None).run(draft, [], before)
    assert not repairs.must_fix(out.findings), out.findings
    assert out.draft.strip() == kept


# -- a clock time's hour is no count ---------------------------------------------------------


@pytest.mark.parametrize(
    "draft,invented",
    [
        ("Tom brings over 10 years of experience. Say hello at 10:00 on Monday.", True),
        ("He has led 10 projects. Say hello at 10:00 on Monday.", True),
        ("Say hello at 10 am on Monday.", False),
        ("Say hello at 10.00 on Monday.", False),
        ("Say hello at 10 o'clock on Monday.", False),
        ("Say hello at the coffee point on Monday, 10:00.", False),
        ("**Monday 10:00:** say hello at the coffee point.", False),
    ],
)
def test_a_number_the_brief_gives_only_as_a_time_of_day_is_no_count(draft, invented):
    from batch.judging.checks.facts import check_numbers

    brief = "Write a welcome note.\n\n- Say hello at the coffee point at 10:00 on Monday.\n"
    found = [f["code"] for f in check_numbers(draft, [brief], "must_fix")]
    assert (found == ["number:10"]) is invented, found


# -- a template's slot is a gap --------------------------------------------------------------


@pytest.mark.parametrize(
    "slot,gap",
    [
        ("[REPLY BY]", True),
        ("[Date]", True),
        ("[Your Name]", True),
        ("[Company Name]", True),
        ("[1]", False),
        ("[x]", False),
        ("[see below]", False),
    ],
)
def test_a_template_slot_left_in_the_text_is_refused(slot, gap):
    brief = "Invitation to the team dinner.\n\n- Ask everyone to RSVP to Tom by 5 September.\n"
    text = f"Please RSVP to Tom by 5 September {slot}."
    assert ("placeholder-form" in prefixes(judge(brief, text))) is gap


# -- the readers called "they" in the brief's words, in a sentence to them ---------------


@pytest.mark.parametrize(
    "brief,draft,said",
    [
        (
            "Ask everyone to RSVP to Tom Reyes by 5 September and to tell him about any dietary "
            "needs when they reply.\n",
            "Please RSVP to Tom Reyes by 5 September and tell him about any dietary needs when "
            "they reply.",
            "Please RSVP to Tom Reyes by 5 September and tell him about any dietary needs when "
            "you reply.",
        ),
        (
            "Ask staff to return the loan laptops with their chargers by Friday 3 May.\n",
            "Please return the loan laptops with their chargers by Friday 3 May.",
            "Please return the loan laptops with your chargers by Friday 3 May.",
        ),
        (
            "Ask guests to leave the key at reception before they go home on Sunday 4 May.\n",
            "Leave the key at reception before they go home on Sunday 4 May.",
            "Leave the key at reception before you go home on Sunday 4 May.",
        ),
    ],
)
def test_an_ask_that_calls_the_readers_they_is_said_to_them(brief, draft, said):
    from batch.loop.writing import repairs as rp

    codes = judge(brief, draft)
    assert [c for c in codes if c.startswith("echo:they")]
    fixed = rp.Repairer(
        judge=lambda d, n: run_checks(
            draft=d, needs=n, sources=(brief,), brief=brief, checklist=brief_checklist(brief)
        ),
        ask=lambda *a: None,
    ).run(
        draft,
        [],
        run_checks(
            draft=draft, needs=[], sources=(brief,), brief=brief, checklist=brief_checklist(brief)
        ),
    )
    assert fixed.draft.strip() == said and not judge(brief, said)


@pytest.mark.parametrize(
    "brief,draft",
    [
        # "them" the things, "they" before a passive, the brief already saying "your", a
        # sentence about the readers rather than to them
        (
            "- Keep your receipts and claim them through the usual expenses form.\n",
            "Keep your receipts and claim them through the usual expenses form.",
        ),
        (
            "Ask everyone to return the loan laptops by Friday 3 May so they can be checked.\n",
            "Please return the loan laptops by Friday 3 May so they can be checked.",
        ),
        (
            "Ask guests to tell reception when they arrive on Friday 3 May.\n",
            "Guests tell reception when they arrive on Friday 3 May.",
        ),
        # the people or things the ask names, not the readers
        (
            "Ask parents to tell their children that they must wear helmets on Friday 3 May.\n",
            "Please tell your children that they must wear helmets on Friday 3 May.",
        ),
        (
            "Ask everyone to keep the receipts as they prove the purchase on Friday 3 May.\n",
            "Please keep the receipts as they prove the purchase on Friday 3 May.",
        ),
    ],
)
def test_they_that_is_not_the_readers_is_left_alone(brief, draft):
    assert not [c for c in judge(brief, draft) if c.startswith("echo:they")]


def test_a_checklist_frozen_before_the_stemmer_took_ment_off_still_matches():
    """A thread started before "retirement" was stemmed as "retire" keeps its terms in
    its state: they are read as stems are made today."""
    from batch.judging.checklist import covered
    from batch.loop.checking import checklist_of

    brief = (
        "Invitation to the whole office to Marta's retirement farewell.\n\n- The "
        "farewell is on Friday 27 June at 16:00 in the canteen.\n"
    )
    frozen = brief_checklist(brief)
    for r in frozen:
        r["terms"] = [t.replace("retir", "retirement") for t in r["terms"]]
        if "own" in r:
            r["own"] = [t.replace("retir", "retirement") for t in r["own"]]
    text = "A colleague is retiring: join her farewell on Friday 27 June at 16:00 in the canteen."
    assert not all(covered(r, text) for r in frozen if r["kind"] == "fact")
    read = checklist_of({"checklist": frozen, "brief": {}})
    assert all(covered(r, text) for r in read if r["kind"] == "fact")


@pytest.mark.parametrize(
    "british, base",
    [
        ("grovelling", "grovel"),
        ("cancelled", "cancel"),
        ("travelling", "travel"),
        ("labelled", "label"),
        ("modelling", "model"),
        ("fulfilled", "fulfil"),
        ("installed", "install"),
    ],
)
def test_a_doubled_l_of_british_spelling_is_the_same_word(british, base):
    from batch.judging.wording import stem

    assert stem(british) == stem(base)


@pytest.mark.parametrize("word, other", [("spelling", "spel"), ("filled", "fil"), ("calls", "cal")])
def test_a_one_syllable_word_keeps_its_double_l(word, other):
    from batch.judging.wording import stem

    assert stem(word) != stem(other)
    assert stem(word).endswith("ll")


def test_a_checklist_frozen_before_one_l_still_matches():
    """A thread started when "cancelled" was stemmed "cancell" keeps that term: it is
    read as stems are made today, and "cancelled" in a draft still covers it."""
    from batch.judging.checklist import covered
    from batch.loop.checking import checklist_of

    brief = "Notice for members.\n\n- The Friday class is cancelled this week.\n"
    frozen = brief_checklist(brief)
    for r in frozen:
        r["terms"] = [t.replace("cancel", "cancell") for t in r["terms"]]
    text = "This week's Friday class is cancelled."
    read = checklist_of({"checklist": frozen, "brief": {}})
    assert any("cancel" in r["terms"] for r in read)
    assert all(covered(r, text) for r in read if r["kind"] == "fact")


LADDER_NOTES = """safety notice - stepladder
- 3m aluminium stepladder, Store Room B → withdrawn, 3rd rung bent
- DON'T use it, not even for quick jobs
- use the platform steps from the workshop till the replacement comes
- replacement arrives Mon 9 June
- heading in capitals
- from Karen Doyle, Facilities
"""
VET_LABELS = """What: vaccination reminder for a pet owner
To: Mrs Jean Hollis
Pet: Biscuit (dog), due his annual booster
Due by: 30 June
Tone: friendly, don't nag
Signed: Nurse Sophie, Greenfield Vets
"""
CAR_NOTES = """summary of membership terms - Northside Car Club
- membership £60/yr
- cars £6.50/hr incl fuel + insurance
- min age 21, licence held 2+ yrs
- leave car w/ at least a quarter tank
- plain English
"""
WORKSHOP_LABELS = """What: listing for a photo workshop
Led by: Ines Barros
When: Saturday 18 October, 10am-1pm
Price: £45 per person
Tone: friendly
"""
KITCHEN_PROSE = """Write a note for staff. The kitchen closes on Friday 3 May for a deep clean.
Please take your food home by Thursday evening. Keep it short."""


@pytest.mark.parametrize(
    "brief, draft",
    [
        # lines of notes printed as the text: an arrow, a short form, a lower-case start
        (
            LADDER_NOTES,
            "**SAFETY NOTICE**\n\n**3m Aluminium Stepladder, Store Room B → "
            "Withdrawn, 3rd Rung Bent**\n- Please don't use it, not even for quick jobs.",
        ),
        (
            LADDER_NOTES,
            "SAFETY NOTICE\n\nThe stepladder in Store Room B is withdrawn.\n"
            "- replacement arrives Mon 9 June",
        ),
        (CAR_NOTES, "Membership terms\n\nMembership: £60/yr\nCars: £6.50/hr incl fuel + insurance"),
        (CAR_NOTES, "Our terms.\n\nleave car w/ at least a quarter tank"),
        # a label that frames the brief, kept in the text
        (
            VET_LABELS,
            "Dear Mrs Hollis,\n\nBiscuit is due his annual booster by 30 June.\n\n"
            "Tone: friendly.\n\nNurse Sophie, Greenfield Vets",
        ),
        (VET_LABELS, "What: vaccination reminder\n\nBiscuit is due his annual booster by 30 June."),
    ],
)
def test_the_briefs_notes_printed_as_the_text_are_a_must_fix(brief, draft):
    from batch.judging.checks.echo import check_pasted_lines

    found = check_pasted_lines(draft, brief, brief_checklist(brief))
    assert [f["code"] for f in found] == ["echo:notes"] and found[0]["severity"] == "must_fix"


@pytest.mark.parametrize(
    "brief, draft",
    [
        # the same facts said as sentences
        (
            LADDER_NOTES,
            "SAFETY NOTICE\n\nThe 3m aluminium stepladder in Store Room B is "
            "withdrawn: its third rung is bent. Please don't use it, not even for quick jobs.",
        ),
        (
            CAR_NOTES,
            "Membership costs £60 a year. Cars cost £6.50 an hour, including fuel and insurance.",
        ),
        # labelled facts a listing prints as they are
        (
            WORKSHOP_LABELS,
            "Photo workshop\n\nLed by: Ines Barros\nWhen: Saturday 18 October, "
            "10am-1pm\nPrice: £45 per person",
        ),
        # a brief's own well-formed sentence, kept
        (
            KITCHEN_PROSE,
            "The kitchen closes on Friday 3 May for a deep clean. Please take your "
            "food home by Thursday evening.",
        ),
        # a memo's own head, in the words the brief used
        (VET_LABELS, "To: Mrs Jean Hollis\n\nBiscuit is due his annual booster by 30 June."),
        # a date written short in a fixtures list
        (
            "Fixtures post.\n- Sat 5 Oct: home v Hillcrest Juniors, 10am kick-off\n",
            "October fixtures\n\nSat 5 Oct: home v Hillcrest Juniors, 10am kick-off",
        ),
    ],
)
def test_facts_told_as_sentences_or_listed_under_their_own_labels_are_not(brief, draft):
    from batch.judging.checks.echo import check_pasted_lines

    assert check_pasted_lines(draft, brief, brief_checklist(brief)) == []


# -- a heading in bold is a heading: its Title Case words are not names ------------------

TRIP_SOURCES = ["Check your passport is valid until at least 12 January. Don't book flights."]


@pytest.mark.parametrize(
    "text",
    [
        "- **Check Passport Validity**: make sure it is valid until 12 January.",
        "**Do Not Book Your Own Flights**: the desk has done it.",
        "__Passport Validity__ - it must be valid until 12 January.",
        "1. **Key Points to Remember**",
    ],
)
def test_title_case_words_of_a_bold_heading_are_not_names(text):
    from batch.judging.checks.facts import check_names

    assert check_names(text, TRIP_SOURCES) == []


@pytest.mark.parametrize(
    "text,name",
    [
        # a whole sentence in bold is prose, not a heading
        ("- **Book your flights through Acme Travel.**", "name:acme"),
        # a heading's words said again in prose are checked there
        ("**Travel Tips**: ask Priya at the desk.", "name:priya"),
        # a bold word inside a sentence is not a lead-in
        ("Please check with **Marta** before you go.", "name:marta"),
        # digits or inner capitals are names even in a heading
        ("**Flights on the AX200**: check in early.", "name:ax200"),
    ],
)
def test_names_beside_or_outside_a_bold_heading_are_still_checked(text, name):
    from batch.judging.checks.facts import check_names

    assert name in [f["code"] for f in check_names(text, TRIP_SOURCES)]


# -- a gap pasted with its order to tell it inside: the order's words go, the gap stays ----

NOTICE_LEAD = "Notice for residents.\n\n- Leave your bin at the kerb by 7am.\n- "


def _echo_repairs(brief: str, draft: str) -> list[dict]:
    found = run_checks(
        draft=draft, needs=[], sources=(brief,), brief=brief, checklist=brief_checklist(brief)
    )
    return [f["repair"] for f in found if f["code"].startswith("echo") and f.get("repair")]


@pytest.mark.parametrize(
    "line,kept",
    [
        (
            "The office move date hasn't been decided, so please say so and that we'll let "
            "everyone know once it is.",
            "The office move date hasn't been decided; we'll let everyone know once it is.",
        ),
        (
            "The root-cause review isn't finished yet, so say it will follow once it's done.",
            "The root-cause review isn't finished yet; it will follow once it's done.",
        ),
        (
            "We haven't fixed the bank holiday collection dates yet; please tell residents "
            "they'll be announced later.",
            "We haven't fixed the bank holiday collection dates yet; they'll be announced later.",
        ),
        (
            "Parking isn't confirmed yet - just tell them it'll be sorted by Friday.",
            "Parking isn't confirmed yet; it'll be sorted by Friday.",
        ),
    ],
)
def test_a_pasted_gap_loses_its_order_to_tell_and_keeps_what_it_hands_over(line, kept):
    brief = NOTICE_LEAD + line + "\n"
    draft = f"Leave your bin at the kerb by 7am. {line}"
    assert {"action": "replace", "old": line, "new": kept} in _echo_repairs(brief, draft)
    # and what the repair leaves is no longer refused as a copy
    assert "echo" not in prefixes(judge(brief, f"Leave your bin at the kerb by 7am. {kept}"))


@pytest.mark.parametrize(
    "line,subject",
    [
        (
            "We haven't fixed the bank holiday collection dates yet; please tell residents "
            "they'll be announced later.",
            "bank holiday collection dates",
        ),
        ("The council hasn't confirmed the dates yet.", "dates"),
        ("Facilities have yet to confirm the parking arrangements.", "parking arrangements"),
        ("The venue is yet to reply about the date.", "date"),
        ("The caterer hasn't got back to us on the menu yet.", "menu"),
        ("We have not agreed the opening hours yet, tell them it's coming.", "opening hours"),
    ],
)
def test_what_is_not_settled_yet_is_named_by_its_own_words_not_the_line_before(line, subject):
    brief = "Notice for residents.\n\n- Leave your bin at the kerb, that's the bit people miss.\n- "
    [unknown] = [r for r in brief_checklist(brief + line + "\n") if r["kind"] in ("gap", "missing")]
    assert unknown["subject"] == subject
    assert "miss" not in unknown["terms"]


# -- a fact's names are said: the author beside the title, the whole of a quoted title ----


@pytest.mark.parametrize(
    "fact,left_out,told",
    [
        (
            "Our next book is Salt and Stone by Marta Lindqvist.",
            "Our next book is Salt and Stone.",
            "Our next book is Salt and Stone, by Lindqvist.",
        ),
        (
            'Talk: "Blue Carbon: What Seagrass Stores"',
            "Her talk looks at how seagrass is storing carbon.",
            "Her talk is Blue Carbon - What Seagrass Stores.",
        ),
        (
            'The film is "The Long Way Home", showing in the main hall.',
            "The film, about the long way home, is showing in the main hall.",
            "The Long Way Home is showing in the main hall.",
        ),
        (
            "Speaker: Dr Amara Okafor, marine biologist, University of Plymouth",
            "Our speaker is a marine biologist from a university in Plymouth.",
            "Dr Okafor is a marine biologist at the University of Plymouth.",
        ),
    ],
)
def test_a_fact_is_told_only_with_its_names(fact, left_out, told):
    brief = f"Note for the members.\n\n- {fact}\n- We meet on Thursday 24 April.\n"
    r = [r for r in brief_checklist(brief) if fact[:12] in r["text"] or fact[-12:] in r["text"]]
    assert r, brief_checklist(brief)
    from batch.judging.checklist import covered

    assert not covered(r[0], left_out)
    assert covered(r[0], told)


@pytest.mark.parametrize(
    "fact,told",
    [
        # a day, a month or a title is not a name that must be said
        (
            "The talk moved from Tuesday to the Thursday evening session.",
            "The talk moved to the Thursday evening session, not the earlier one.",
        ),
        # its first word is a sentence's capital, not a name
        (
            "Parking is free after 6pm in the Mill Lane car park.",
            "After 6pm the Mill Lane car park is free.",
        ),
        # a quoted sentence is said in other words, not as a title
        ('The chair said "we are proud of this year".', "The chair is proud of this year."),
    ],
)
def test_words_that_only_look_like_names_need_not_be_said(fact, told):
    from batch.judging.checklist import covered

    [r] = [
        r for r in brief_checklist(f"Note for the members.\n\n- {fact}\n") if r["kind"] == "fact"
    ][-1:]
    assert covered(r, told), r


@pytest.mark.parametrize(
    "line,subject",
    [
        (
            "He's also booked with the hygienist straight after but that time's not confirmed yet.",
            "booked hygienist time",
        ),
        ("The room's still TBC.", "room"),
        ("The start time's not been set yet.", "start time"),
    ],
)
def test_an_is_contracted_onto_the_unknown_is_not_part_of_its_name(line, subject):
    brief = f"Reminder for Daniel Reyes.\n\n- His check-up is on Tuesday 18 March.\n- {line}\n"
    [unknown] = [r for r in brief_checklist(brief) if r["kind"] == "missing"]
    assert unknown["subject"] == subject


# -- a part labelled for the editor is not the readers' text -----------------------------

LOST = (
    "Lost property notice.\n\n- We found a navy coat after the concert.\n"
    "- We haven't worked out the box office hours over Christmas yet; say so.\n"
)


@pytest.mark.parametrize(
    "labelled,said",
    [
        (
            "It is not known yet: We haven't worked out the box office hours over Christmas yet.",
            "We haven't worked out the box office hours over Christmas yet.",
        ),
        (
            "Deviations: - The box office hours over Christmas are not decided yet.",
            "The box office hours over Christmas are not decided yet.",
        ),
        (
            "**Note to the editor:** the box office hours over Christmas are not set yet.",
            "The box office hours over Christmas are not set yet.",
        ),
    ],
)
def test_a_label_for_the_editor_is_cut_and_what_it_heads_kept(labelled, said):
    draft = f"We found a navy coat after the concert. {labelled}"
    assert "echo" in prefixes(judge(LOST, draft))
    repairs = [r for r in _echo_repairs(LOST, draft) if r.get("action") == "replace"]
    assert {"action": "replace", "old": labelled, "new": said} in repairs
    assert "echo" not in prefixes(judge(LOST, f"We found a navy coat after the concert. {said}"))


@pytest.mark.parametrize(
    "line",
    [
        "Missing: a navy coat, left after the concert.",  # a notice's own label
        "Note: the box office is closed over Christmas.",
        "Not known yet: the box office hours over Christmas.",  # tells the readers
    ],
)
def test_a_readers_label_is_not_one_for_the_editor(line):
    from batch.judging.checks.echo import without_editor_label

    assert without_editor_label(line) is None


# -- an aside that tells the writer what to stress is not the readers' text -------------

BINS = (
    "Notice to residents.\n\n- Recycling moves from Tuesday to Thursday.\n"
    "- Leave your bin at the kerb by 7am on collection day, {aside}.\n"
)


@pytest.mark.parametrize(
    "aside",
    [
        "that's the bit people always miss",
        "this is the important part",
        "people always forget this",
        "that is the step everyone tends to miss",
    ],
)
def test_an_aside_for_the_writer_is_an_order_not_part_of_the_ask(aside):
    brief = BINS.format(aside=aside)
    good = (
        "Recycling moves from Tuesday to Thursday. Please leave your bin at the kerb by "
        "7am on collection day."
    )
    assert judge(brief, good) == []
    copied = good.rstrip(".") + f", {aside}."
    assert "echo" in prefixes(judge(brief, copied))


def test_a_clause_on_a_thing_people_like_is_still_a_fact():
    brief = "Menu note.\n\n- The soup of the day is leek, and that's the one we sell most.\n"
    kinds = [r["kind"] for r in brief_checklist(brief)]
    assert kinds.count("fact") == 2 and "rule" not in kinds


@pytest.mark.parametrize(
    "brief,said,pasted",
    [
        (
            "Invitation to the spring garden party\n\n- Saturday 17 May, 2pm, the allotments\n",
            "You are invited to the spring garden party on Saturday 17 May at 2pm at the "
            "allotments.",
            "Invitation to the spring garden party\n\nSaturday 17 May at 2pm at the allotments.",
        ),
        (
            "Invitation to the spring garden party\n\n- Saturday 17 May, 2pm, the allotments\n",
            "Do come to the spring garden party on Saturday 17 May at 2pm at the allotments.",
            "Invitation to the spring garden party\n\nSaturday 17 May at 2pm at the allotments.",
        ),
        (
            "Write a reminder about the staff book club.\n\n- Next meeting Tuesday 6 May, 1pm.\n",
            "A reminder: the staff book club meets next on Tuesday 6 May at 1pm.",
            "Write a reminder about the staff book club. The next meeting is on Tuesday 6 May "
            "at 1pm.",
        ),
    ],
    ids=["invitation", "readers-verb", "reminder"],
)
def test_the_subject_of_a_task_said_again_is_not_the_order_copied(brief, said, pasted):
    """What the text is about ("the spring garden party") may be said; the order itself,
    with the kind of text or the verb asking for it, may not."""
    assert not [c for c in judge(brief, said) if c.startswith("echo")]
    assert [c for c in judge(brief, pasted) if c.startswith("echo:brief")]
