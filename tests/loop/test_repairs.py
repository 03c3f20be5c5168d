"""Repairs by findings (batch.loop.writing.repairs): the real checks judge, a scripted
`ask` answers.

No model and no graph: each test gives a draft, lets the real code checks find its
problems, and scripts what the model would answer for each small task.
"""

from __future__ import annotations

import pytest

from batch import placeholders as ph
from batch.judging.checklist import build_checklist
from batch.judging.wording import word_count
from batch.loop.writing import repairs, splicing
from batch.thread_inputs import ThreadBrief

from conftest import run_checks

LAMP = (
    "Write the shop-page description of the Lumo desk lamp.\n\n"
    "Facts: aluminium arm, USB-C charging port in the base, 5 brightness levels, "
    "folds flat for travel."
)
MEMO = (
    "Write a short memo to the sales team about the third quarter.\n\n"
    "- Q3 revenue: not known yet; finance will confirm it on Monday.\n"
    "- The team closed 42 new accounts in Q3.\n"
    "- Ask everyone to update their pipeline in the CRM by Friday.\n"
)


def judge_for(brief: str, max_words: int | None = None, min_words: int | None = None):
    checklist = build_checklist(ThreadBrief(id="b", text=brief))

    def judge(draft: str, needs):
        return run_checks(
            draft=draft,
            needs=needs,
            sources=[brief],
            number_severity="must_fix",
            min_words=min_words,
            max_words=max_words,
            banned_phrases=["world-class"],
            brief=brief,
            checklist=checklist,
        )

    return judge


class Script:
    """`ask` answering from a list, recording each task it was given."""

    def __init__(self, *answers):
        self.answers = list(answers)
        self.tasks: list[str] = []

    def __call__(self, draft, task, sample, words):
        self.tasks.append(task)
        return self.answers.pop(0) if self.answers else None


def codes(findings):
    """What the repairer works on: the must-fix, and a fact the text may not tell (advice
    it acts on: batch.judging.checks.facts)."""
    return sorted(
        f["code"]
        for f in findings
        if f["severity"] == "must_fix" or f["code"].startswith("uncovered:")
    )


def run(brief, draft, ask, needs=(), **limits):
    judge = judge_for(brief, **limits)
    before = judge(draft, list(needs))
    out = repairs.Repairer(judge=judge, ask=ask, samples=2).run(draft, list(needs), before)
    return before, out, judge


def test_a_missing_fact_is_stated_in_one_sentence_and_kept():
    draft = (
        "The Lumo desk lamp has a USB-C charging port in the base and 5 brightness "
        "levels. It folds flat for travel."
    )
    ask = Script("Its arm is made of aluminium.")
    before, out, judge = run(LAMP, draft, ask)
    assert any(c.startswith("uncovered:") for c in codes(before))
    assert out.changed and codes(out.findings) == []
    assert "aluminium" in out.draft and draft.split(".")[0] in out.draft
    assert codes(judge(out.draft, out.needs)) == []  # the state it reports is the real one
    assert "aluminium arm" in ask.tasks[0]


PRICE = (
    "Write a notice to customers on the Standard plan of Fernhill Broadband.\n\n"
    "From 1 April the Standard plan goes up from 29 euros to 32 euros a month. "
    "Speeds and the included router stay the same.\n"
)


@pytest.mark.parametrize("answers", [(), ("The price rises to 32 euros a month.",) * 3])
def test_a_fact_the_model_cannot_say_is_said_in_the_briefs_own_sentence(answers):
    """After the model's sentences fail (none, or each missing the old price), the brief's
    sentence takes the place of the one that half said it: the fact is told once."""
    draft = (
        "Dear customers on the Standard plan of Fernhill Broadband. From 1 April, the "
        "Standard plan will increase to 32 euros per month. The speeds and the "
        "included router stay the same."
    )
    before, out, judge = run(PRICE, draft, Script(*answers))
    assert [c for c in codes(before) if c.startswith("uncovered")]
    assert codes(out.findings) == [] and codes(judge(out.draft, out.needs)) == []
    assert "Broadband. From 1 April the Standard plan goes up from 29 euros" in out.draft
    assert "increase to 32" not in out.draft and out.attempts[-1].by == "code"


@pytest.mark.parametrize(
    "brief,asked",
    [
        (
            "Invite all staff to the dinner on Saturday 20 September at 19:00.\n\nAsk everyone to "
            "RSVP to Tom Reyes by 5 September and to tell him about any dietary needs when they "
            "reply.\n",
            "Please RSVP to Tom Reyes by 5 September and tell him about any dietary needs when "
            "you reply.",
        ),
        (
            "Invite all staff to the dinner on Saturday 20 September at 19:00.\n\n- Ask guests to "
            "Reply by 5 September so we can plan the catering.\n",
            "Please reply by 5 September so we can plan the catering.",
        ),
    ],
)
def test_an_ask_the_model_cannot_make_is_asked_in_the_briefs_words_to_the_readers(brief, asked):
    draft = "You are invited to the dinner on Saturday 20 September at 19:00."
    before, out, judge = run(brief, draft, Script())
    assert [c for c in codes(before) if c.startswith("uncovered")]
    assert asked in out.draft and codes(judge(out.draft, out.needs)) == []


@pytest.mark.parametrize(
    "ask",
    [
        "Remind everyone that they must bring their badges on Monday 4 May.",
        "Ask everyone to please reply by Monday 4 May.",
        "Ask Tom to call the office by Monday 4 May.",
    ],
)
def test_an_ask_not_of_the_readers_or_not_opening_on_their_doing_is_never_pasted(ask):
    brief = "Invite all staff to the dinner on Saturday 20 September at 19:00.\n\n" + ask
    _, out, _ = run(
        brief, "You are invited to the dinner on Saturday 20 September at 19:00.", Script()
    )
    assert "Please you" not in out.draft and "Please please" not in out.draft
    assert "Please call" not in out.draft


def test_an_ask_ending_in_an_exclamation_is_asked_with_one_stop():
    from batch.judging.checks.facts import _asked_as_is

    assert _asked_as_is("Reply by Friday!") == "Please reply by Friday."
    assert _asked_as_is("Bring your badge?") == "Please bring your badge."


def test_an_invitation_still_worded_to_the_writer_is_never_asked_of_the_readers():
    brief = (
        "Invite all staff of Kestrel Studio, and their partners, to the studio's "
        "anniversary dinner on Saturday 20 September at 19:00.\n"
    )
    _, out, _ = run(brief, "The dress code is smart casual for everyone.", Script())
    assert "Please invite" not in out.draft and "your partners" not in out.draft


def test_the_briefs_own_sentence_never_takes_the_place_of_one_that_says_more():
    draft = (
        "From 1 April, the Standard plan of Fernhill Broadband will increase to 32 "
        "euros per month. The speeds and the included router stay the same."
    )
    _, out, _ = run(PRICE, draft, Script())
    assert "Fernhill Broadband" in out.draft and "from 29 euros to 32 euros" in out.draft
    # a sentence whose words are mostly its own, with no figure or name in it, invents
    # (features nobody built): it is cut, the fact is said, and the rest stays
    draft = (
        "Dear customers on the Standard plan of Fernhill Broadband. The plan will "
        "cost more, and we hope you will enjoy the many new features we built for "
        "you. The speeds and the included router stay the same."
    )
    _, out, _ = run(PRICE, draft, Script())
    assert "many new features" not in out.draft and "from 29 euros to 32 euros" in out.draft
    assert "The speeds and the included router stay the same." in out.draft


@pytest.mark.parametrize(
    "brief,fact",
    [
        (
            "Write the shop-page description of the Lumo desk lamp.\n\nFacts: aluminium arm, "
            "5 brightness levels.\n",
            "5 brightness levels",
        ),
        (
            "Email to a customer whose order is delayed.\n\n- The customer can cancel for a full "
            "refund at any time before dispatch.\n",
            "The customer can cancel",
        ),
        ("Notice.\n\n- Price: 40 euros a month, paid yearly.\n", "Price: 40 euros"),
    ],
)
def test_a_note_or_a_fact_about_the_reader_is_never_pasted_as_it_is(brief, fact):
    draft = "Thank you for your order, which we are preparing with care for you today."
    _, out, _ = run(brief, draft, Script())
    assert fact not in out.draft


def test_a_repair_that_breaks_something_else_is_rolled_back_and_the_next_sample_tried():
    draft = (
        "The Lumo desk lamp has a USB-C charging port in the base and 5 brightness "
        "levels. It folds flat for travel."
    )
    # the first answer states the fact but invents a name; the second is clean
    ask = Script("Designed by Acme Studios, its arm is aluminium.", "Its arm is aluminium.")
    _, out, _ = run(LAMP, draft, ask)
    assert "Acme" not in out.draft and "Its arm is aluminium." in out.draft
    assert len(ask.tasks) == 2 and codes(out.findings) == []


def test_a_text_too_long_and_missing_a_fact_gets_the_fact_then_the_cut():
    draft = (
        "The Lumo desk lamp has an aluminium arm and a USB-C charging port in the "
        "base. It is a lamp that many people will like to use every single day. "
        "Its light suits long evenings at a desk as well as early mornings. "
        "It has 5 brightness levels."
    )
    ask = Script("It folds flat for travel.")
    before, out, _ = run(LAMP, draft, ask, max_words=40)
    assert codes(before) == ["too-long", "uncovered:R5"]
    assert codes(out.findings) == [] and "It folds flat for travel." in out.draft
    # then the sentence left that only adds ("Its light suits long evenings") goes too
    assert [a.action for a in out.attempts] == ["state", "shorten", "drop"]
    assert "evenings" not in out.draft


def test_a_fact_half_said_is_said_whole_in_its_own_sentence_not_twice():
    draft = (
        "The Lumo desk lamp has an aluminium arm, a USB-C charging port in the base "
        "and 5 brightness levels. Its foldable design is made for travel."
    )
    ask = Script("Its design folds flat for travel.")
    before, out, _ = run(LAMP, draft, ask)
    assert "uncovered:R5" in codes(before) and codes(out.findings) == []
    assert "foldable" not in out.draft and out.draft.count("travel") == 1
    assert "Its foldable design is made for travel." in ask.tasks[0]


def test_a_half_said_fact_the_rewrite_misses_gets_a_sentence_of_its_own():
    draft = (
        "The Lumo desk lamp has an aluminium arm, a USB-C charging port in the base "
        "and 5 brightness levels. Its foldable design is made for travel."
    )
    ask = Script("Its design is made for travel.", "It folds flat for travel.")
    _, out, _ = run(LAMP, draft, ask)
    assert codes(out.findings) == [] and out.draft.rstrip().endswith("It folds flat for travel.")
    assert len(ask.tasks) == 2
    # the half-said sentence, now only the writer's words beside the fact, is dropped
    assert "Its foldable design" not in out.draft


def test_nearest_sentence_shares_most_words_and_none_is_none():
    draft = "# Lumo\n\nIt has a dial. It folds away for travel.\n"
    assert splicing.nearest_sentence(draft, "folds flat for travel") == "It folds away for travel."
    assert splicing.nearest_sentence(draft, "aluminium arm") == ""
    assert splicing.nearest_sentence("# Lumo lamp\n\nIt is bright.", "Lumo lamp") == ""


def test_no_valid_answer_is_never_a_repair():
    draft = (
        "The Lumo desk lamp has a USB-C charging port in the base and 5 brightness "
        "levels. It folds flat for travel."
    )
    before, out, _ = run(LAMP, draft, Script(None, None))
    assert not out.changed and out.draft == draft
    assert codes(out.findings) == codes(before)
    assert [a.kept for a in out.attempts] == [False]


def test_an_order_to_the_writer_copied_as_text_is_dropped_by_code():
    draft = (
        "Write the shop-page description of the Lumo desk lamp.\n\nThe Lumo desk lamp "
        "has an aluminium arm, a USB-C charging port in the base and 5 brightness "
        "levels, and it folds flat for travel."
    )
    judge = judge_for(LAMP)
    before = judge(draft, [])
    assert any(c.startswith("echo") for c in codes(before))
    ask = Script()
    out = repairs.Repairer(judge=judge, ask=ask).run(draft, [], before)
    assert codes(out.findings) == [] and not ask.tasks  # no model call was needed
    assert not out.draft.startswith("Write")


def test_a_copied_ask_is_said_to_the_readers_by_code():
    """The brief's lead ("Ask everyone to") comes off and what it asks is said to the
    readers ("their" -> "your"), with no model call."""
    draft = (
        "Q3 revenue: [FIGURE NEEDED: Q3 revenue].\n\nThe team closed 42 new accounts "
        "in Q3.\n\nAsk everyone to update their pipeline in the CRM by Friday."
    )
    needs = [{"placeholder": "[FIGURE NEEDED: Q3 revenue]", "question": "?"}]
    ask = Script("Please update your pipeline in the CRM by Friday.")
    before, out, _ = run(MEMO, draft, ask, needs)
    assert any(c.startswith("echo:brief") for c in codes(before))
    assert codes(out.findings) == []
    assert "Update your pipeline in the CRM by Friday." in out.draft
    assert "Ask everyone" not in out.draft and not ask.tasks


@pytest.mark.parametrize(
    "brief, draft, gone, kept",
    [
        # the order to sign pasted with the name: the name signs it
        (
            "Notice for tenants.\n\n- Bins go out on Tuesdays from 3 March.\n"
            "- Sign it from Helen Okafor, Chair.\n",
            "Bins go out on Tuesdays from 3 March.\n\nSign it from Helen Okafor, Chair.",
            "Sign it from",
            "Helen Okafor, Chair",
        ),
        (
            "Notice for tenants.\n\n- Bins go out on Tuesdays from 3 March.\n"
            "- Sign it from Marta.\n",
            "Bins go out on Tuesdays from 3 March.\n\nBest wishes, and sign it from Marta.",
            "sign it from",
            "Best wishes, Marta.",
        ),
        # the order to tell a gap, pasted after it
        (
            "Reminder for dog owners.\n\n- Biscuit's booster is due by 30 June.\n"
            "- This year's price is not set yet, tell her that.\n",
            "Biscuit's booster is due by 30 June. This year's price is not set yet, tell her that.",
            "tell her",
            "This year's price is not set yet.",
        ),
        # the brief's lead before what the readers are told
        (
            "Summary for staff.\n\n- Email was down on Tuesday 11 February.\n"
            "- Please tell people: don't resend messages from that morning.\n",
            "Email was down on Tuesday 11 February.\n\nPlease tell people: don't resend "
            "messages from that morning.",
            "Please tell people",
            "Don't resend messages from that morning.",
        ),
    ],
)
def test_an_order_pasted_around_what_it_hands_over_is_cut_by_code(brief, draft, gone, kept):
    ask = Script()
    before, out, _ = run(brief, draft, ask)
    assert any(c.startswith("echo:brief") for c in codes(before)), before
    assert not [c for c in codes(out.findings) if c.startswith("echo")], out.findings
    assert gone not in out.draft and kept in out.draft, out.draft
    assert not ask.tasks


def test_a_fact_told_as_unknown_becomes_its_placeholder_by_code():
    draft = (
        "Q3 revenue is not known yet; finance will confirm it on Monday.\n\n"
        "The team closed 42 new accounts in Q3. Please update your pipeline in the "
        "CRM by Friday."
    )
    ask = Script()
    before, out, _ = run(MEMO, draft, ask)
    assert {c.split(":")[0] for c in codes(before)} >= {"missing-placeholder", "gap-told"}
    assert codes(out.findings) == [], out.findings
    assert "[FIGURE NEEDED: Q3 revenue]" in out.draft
    assert [n["placeholder"] for n in out.needs] == ["[FIGURE NEEDED: Q3 revenue]"]
    assert not ask.tasks


def test_a_gap_beside_a_given_fact_is_added_and_the_fact_kept():
    brief = (
        "Notice to all tenants.\n\n- The lifts are serviced from 3 to 7 March.\n"
        "- Use the stairs on those days.\n"
        "- The exact restart time on 7 March is not confirmed yet."
    )
    draft = "The lifts are serviced from 3 to 7 March. Please use the stairs on those days."
    before, out, judge = run(brief, draft, Script())
    assert [c.split(":")[0] for c in codes(before)] == ["missing-placeholder"]
    assert codes(out.findings) == [] and codes(judge(out.draft, out.needs)) == []
    assert "serviced from 3 to 7 March" in out.draft
    [need] = out.needs
    assert need["placeholder"] in out.draft


def test_too_long_cuts_sentences_that_carry_nothing_the_brief_asks():
    filler = " ".join(["It is a lamp that many people will enjoy using at their desk."] * 3)
    draft = (
        "The Lumo desk lamp has an aluminium arm, a USB-C charging port in the base "
        "and 5 brightness levels. It folds flat for travel. " + filler
    )
    before, out, _ = run(LAMP, draft, Script(), max_words=40)
    assert "too-long" in codes(before)
    assert codes(out.findings) == []
    assert "aluminium arm" in out.draft and word_count(out.draft) <= 40


def test_what_code_cannot_cut_far_enough_the_model_shortens_from_the_cut():
    draft = (
        "## Lumo\n\n### Features\nThe Lumo desk lamp has an aluminium arm that "
        "bends easily, a USB-C charging port in the base that charges quickly, and 5 "
        "brightness levels for every hour of the working day. It folds flat for "
        "travel, so it fits into a bag.\n\n### Why\nMany people will enjoy it."
    )
    ask = Script(
        "The Lumo desk lamp has an aluminium arm, a USB-C charging port in the "
        "base and 5 brightness levels. It folds flat for travel."
    )
    before, out, _ = run(LAMP, draft, ask, max_words=30)
    assert "too-long" in codes(before) and codes(out.findings) == []
    # the model was given the paragraph code left, without the sentence code cut
    assert "Many people" not in ask.tasks[0] and "charges quickly" in ask.tasks[0]
    assert "### Why" not in out.draft and "### Features" in out.draft


@pytest.mark.parametrize(
    "draft,gone",
    [
        # the sentences all carry an item: what is cut is the clauses that carry none
        (
            "As you may be aware, the Lumo desk lamp has an aluminium arm and a USB-C charging "
            "port in the base. In the meantime, if you are keen on a tidy desk, it folds flat for "
            "travel. It has 5 brightness levels.",
            ["As you may be aware", "if you are keen"],
        ),
        (
            "- Of course, the Lumo desk lamp has an aluminium arm, which we are sure you will "
            "love, and a USB-C charging port in the base.\n- It folds flat for travel and has 5 "
            "brightness levels.",
            ["Of course", "which we are sure"],
        ),
    ],
)
def test_too_long_with_no_sentence_to_spare_cuts_clauses_that_say_nothing_asked(draft, gone):
    before, out, judge = run(LAMP, draft, Script(), max_words=30)
    assert "too-long" in codes(before)
    assert codes(out.findings) == [] and codes(judge(out.draft, out.needs)) == []
    for words in gone:
        assert words not in out.draft
    for fact in ("aluminium arm", "USB-C charging port", "folds flat", "5 brightness"):
        assert fact in out.draft
    assert [a.by for a in out.attempts] == ["code"]


@pytest.mark.parametrize(
    "tail",
    [
        "making it a favourite of many desks",
        "ensuring comfort through long evenings",
        "which is both stylish and durable",
        "giving you more freedom",
    ],
)
def test_a_last_clause_that_only_hangs_on_its_sentence_is_filler_too(tail):
    draft = (
        "The Lumo desk lamp has an aluminium arm and a USB-C charging port in the "
        f"base, {tail}. It folds flat for travel. It has 5 brightness levels."
    )
    before, out, judge = run(LAMP, draft, Script(), max_words=27)
    assert "too-long" in codes(before) and codes(out.findings) == []
    assert tail not in out.draft and "USB-C charging port in the base. It folds" in out.draft


@pytest.mark.parametrize(
    "tail",
    [
        "including 5 brightness levels",
        "during which it folds flat for travel",
        "and it folds flat for travel",
        "parking is free",
        "bring a warm jacket",
        "swimming",
    ],
)
def test_a_last_clause_with_what_the_brief_asks_or_that_is_no_tail_stays(tail):
    draft = (
        "The Lumo desk lamp has an aluminium arm and a USB-C charging port in the "
        f"base, {tail}. It folds flat for travel and has 5 brightness levels."
    )
    before, out, _ = run(LAMP, draft, Script(), max_words=20)
    assert "too-long" in codes(before) and tail in out.draft


def test_a_sentence_the_next_one_points_back_to_is_not_cut():
    """ "It features …" after its subject is cut reads as a text with a hole."""
    draft = (
        "## Lumo\n\nThe Lumo desk lamp is made for people who work late. It has an "
        "aluminium arm and a USB-C charging port in the base. It folds flat for travel "
        "and has 5 brightness levels. Many people will enjoy it."
    )
    cuts = list(splicing.sentence_cuts(draft))
    assert len(cuts) == 3 and all("The Lumo desk lamp is made" in c for c in cuts)
    # within the paragraph, "It" has its lamp still
    assert any("It has an aluminium" not in c for c in cuts)


def test_a_clause_that_says_what_the_brief_asks_is_never_cut():
    draft = (
        "The Lumo desk lamp, which has an aluminium arm and a USB-C charging port in the "
        "base, folds flat for travel. It has 5 brightness levels."
    )
    before, out, _ = run(LAMP, draft, Script(), max_words=20)
    assert "too-long" in codes(before) and "too-long" in codes(out.findings)
    assert out.draft == draft


def test_a_heading_left_with_nothing_under_it_goes():
    text = "# A\n\n## B\n\n## C\ntext\n\n### D\n\n## E\n"
    assert splicing.without_empty_headings(text) == "# A\n\n## C\ntext\n"


def test_an_invented_name_is_dropped_with_its_sentence_when_it_carries_nothing():
    draft = (
        "The Lumo desk lamp has an aluminium arm, a USB-C charging port in the base "
        "and 5 brightness levels. It folds flat for travel. Jenny from Acme loves it."
    )
    _, out, _ = run(LAMP, draft, Script())
    assert codes(out.findings) == [] and "Acme" not in out.draft


def test_placements_keep_a_list_a_list():
    draft = "Facts about the lamp:\n\n- It has 5 brightness levels.\n- It folds flat.\n"
    inside, apart = splicing.placements(draft, "It has an aluminium arm.", "aluminium arm lamp")
    assert "- It folds flat.\n- It has an aluminium arm." in inside
    assert apart.endswith("- It folds flat.\n\nIt has an aluminium arm.\n")


def test_replace_and_drop_keep_markers_and_tidy_lines():
    draft = "Intro line.\n\n1. First item.\n2. Second item.\n"
    assert splicing.replace_sentence(draft, "2. Second item.", "Another item.") == (
        "Intro line.\n\n1. First item.\n2. Another item.\n"
    )
    assert splicing.replace_sentence(draft, "2. Second item.", "") == (
        "Intro line.\n\n1. First item.\n"
    )
    assert splicing.replace_sentence(draft, "Not there.", "x") == draft


def test_the_sentence_a_model_returns_is_cleaned():
    assert splicing.clean_sentence('"Its arm is aluminium."\n') == "Its arm is aluminium."
    assert splicing.clean_sentence("- Its arm\nis aluminium.") == "Its arm is aluminium."
    assert splicing.clean_sentence(None) == ""


def test_needs_follow_the_placeholders_of_the_spliced_text():
    listed = [{"placeholder": "[DATE NEEDED: launch]", "question": "When?"}]
    text = "We launch on [DATE NEEDED: launch] at [FACT NEEDED: venue]."
    assert splicing.needs_for(text, listed) == [
        listed[0],
        {"placeholder": "[FACT NEEDED: venue]", "question": ph.question("[FACT NEEDED: venue]")},
    ]
    assert splicing.needs_for("No gaps now.", listed) == []


def test_a_missing_signature_is_added_by_code():
    brief = "- Invoices are due in 30 days.\n- Sign it from the billing team."
    draft = "Your invoice is due in 30 days."
    before, out, _ = run(brief, draft, Script())
    assert any(c.startswith("uncovered") for c in codes(before))
    assert codes(out.findings) == [] and out.draft == (
        "Your invoice is due in 30 days.\n\nThe billing team\n"
    )


def test_dropping_a_sentence_leaves_the_other_lines_as_they_are():
    draft = (
        "# Title\n\nIntro. Drop me.\n\n```python\n>>> f(1)\n2\n```\n\n---\n\n"
        "- keep\n- Drop me too.\n"
    )
    out = splicing.drop_sentences(draft, ["Drop me.", "- Drop me too."])
    assert out == "# Title\n\nIntro.\n\n```python\n>>> f(1)\n2\n```\n\n---\n\n- keep\n"


def test_dropping_the_first_sentence_of_a_line_leaves_no_leading_space():
    assert splicing.drop_sentences("A one.\n\nC three. D four.\n", ["C three."]) == (
        "A one.\n\nD four.\n"
    )


def test_an_answer_that_is_the_whole_text_with_the_sentence_in_it_gives_the_sentence():
    """Asked for one sentence, the 1.5B model answered with the whole draft and the
    sentence at its end (or cut off part way), and every repair of the kind was lost."""
    draft = (
        "The Lumo desk lamp has a USB-C charging port in the base and 5 brightness "
        "levels. It folds flat for travel. It is a lamp that many people will enjoy "
        "using at their desk every single day of the working week, at home or in the "
        "office, whatever the weather outside."
    )
    whole = "Dear all,\n\n" + draft + "\n\nIts arm is made of aluminium."
    cut_off = draft.replace("whatever the weather outside.", "whatever the wea")
    ask = Script(cut_off, whole)
    before, out, _ = run(LAMP, draft, ask)
    assert any(c.startswith("uncovered:") for c in codes(before))
    assert codes(out.findings) == []
    assert out.draft.count("Its arm is made of aluminium.") == 1
    assert out.draft.count("It folds flat for travel.") == 1
    assert (
        splicing.only_new("Its arm is made of aluminium.", draft) == "Its arm is made of aluminium."
    )


def test_a_fact_stated_past_the_limit_is_made_room_for_by_cutting_what_carries_nothing():
    """Stating the missing fact took the text over its limit, and the repair was rolled
    back round after round: room is made by code, and the fact is kept."""
    draft = (
        "The Lumo desk lamp has a USB-C charging port in the base and 5 brightness "
        "levels. It folds flat for travel. Many people enjoy it."
    )
    ask = Script("Its arm is made of aluminium.")
    before, out, judge = run(LAMP, draft, ask, max_words=27)
    assert [c.split(":")[0] for c in codes(before)] == ["uncovered"]
    assert codes(out.findings) == [] and codes(judge(out.draft, out.needs)) == []
    assert "aluminium" in out.draft and "Many people" not in out.draft


def test_a_salutation_run_into_the_next_sentence_is_not_new():
    draft = "# Welcome\n\nDear Design Team,\n\nI hope this message finds you well. Tom joins."
    answer = (
        "Dear Design Team, I hope this message finds you well. Please say hello at "
        "the coffee point at 10:00 on Monday."
    )
    assert splicing.only_new(answer, draft) == (
        "Please say hello at the coffee point at 10:00 on Monday."
    )


def test_each_attempt_is_charged_the_model_questions_asked_for_it():
    """What `bench loop` weighs against how often a kind of repair is kept: every model
    question is charged to the one finding it was asked for, kept or not."""
    draft = "The Lumo desk lamp has a USB-C charging port in the base and 5 brightness levels."
    ask = Script(None, None, None, "It folds flat for travel.", "Its arm is aluminium.")
    before, out, _ = run(LAMP, draft, ask)
    assert [(a.by, a.kept, a.calls) for a in out.attempts] == [
        ("model", False, 2),  # two samples asked, neither kept
        ("model", True, 2),
    ]  # kept at its second
    assert sum(a.calls for a in out.attempts) == len(ask.tasks)
    assert all(a.seconds >= 0 for a in out.attempts)
    assert all({"calls", "seconds"} <= set(e) for e in out.log())
