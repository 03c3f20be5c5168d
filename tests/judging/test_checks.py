import pytest

from batch.draft_cleanup import html_to_markdown, strip_chatter
from batch.judging import feedback
from batch.judging.checklist import brief_checklist, build_checklist
from batch.judging.checks import facts, form, gaps
from batch.judging.wording import is_degenerate, numbers_in, word_count
from batch.thread_inputs import ThreadBrief

from conftest import run_checks


def test_placeholder_listed_and_present_is_fine():
    draft = "Revenue was [FIGURE NEEDED: Q3 revenue]."
    needs = [{"placeholder": "[FIGURE NEEDED:  Q3 revenue]", "question": "?"}]
    assert gaps.check_placeholders(draft, needs) == []


def test_placeholder_unlisted_and_listed_missing_are_must_fix():
    found = gaps.check_placeholders(
        "Revenue was [FIGURE NEEDED: Q3 revenue].",
        [{"placeholder": "[DATE NEEDED: launch]", "question": "when?"}],
    )
    codes = sorted(f["code"] for f in found)
    assert codes == [
        "need-missing:[DATE NEEDED: LAUNCH]",
        "placeholder-unlisted:[FIGURE NEEDED: Q3 REVENUE]",
    ]
    assert all(f["severity"] == "must_fix" for f in found)


def test_malformed_need_is_must_fix():
    found = gaps.check_placeholders("text", [{"placeholder": "Q3 revenue", "question": "?"}])
    assert [f["code"].split(":")[0] for f in found] == ["need-malformed"]


def test_numbers_must_come_from_a_source():
    sources = ["We closed 42 accounts, up from 35. Revenue 1,200.50 EUR."]
    draft = (
        "1. First point\n2. We closed 42 accounts (up from 35), revenue 1200.5 EUR, "
        "growth 20%, [FIGURE NEEDED: 2024 margin]."
    )
    found = facts.check_numbers(draft, sources, "must_fix")
    assert [f["code"] for f in found] == ["number:20"]
    assert facts.check_numbers(draft, sources, "warn")[0]["severity"] == "warn"
    assert facts.check_numbers(draft, sources, "off") == []


def test_numbers_with_units_and_lists():
    assert numbers_in("4.2M EUR, 15km, 1,200 staff, items 1,2,3, Q3, H2O") == {
        "4.2",
        "15",
        "1200",
        "1",
        "2",
        "3",
    }


def test_number_from_a_person_is_allowed():
    assert (
        facts.check_numbers("Q3 revenue was 4.2M", ["brief without it", "4.2M"], "must_fix") == []
    )


def test_word_limits():
    assert form.check_length("one two three", None, 2)[0]["code"] == "too-long"
    assert form.check_length("one two", 3, None)[0]["code"] == "too-short"
    assert form.check_length("one two three", 1, 3) == []
    assert word_count("It's a well-known fact, isn't it?") == 6


def test_banned_phrases_whole_words_case_insensitive():
    found = form.check_banned("We Leverage synergies.", ["leverage", "synergy"])
    assert [f["code"] for f in found] == ["banned:leverage"]


def test_empty_draft():
    found = run_checks("  ", [], [], "must_fix", None, None, [])
    assert found[0]["code"] == "empty-draft"


def test_degenerate_feedback_is_replaced():
    assert is_degenerate("")
    assert is_degenerate("../../../../../../../../")
    assert is_degenerate("fix fix fix fix fix fix fix")
    assert not is_degenerate("Add who to contact with questions.")
    cleaned = feedback.sanitize_feedback(["", "../" * 200, "Add the date.", "Add the date."])
    assert cleaned == [feedback.GENERIC_FEEDBACK, "Add the date."]


def test_echo_of_the_draft_is_not_a_critique():
    draft = "The office is closed this Friday from 15:00 for electrical maintenance."
    echo = "The office is closed this Friday from 15:00 for electrical maintenance."
    real = "The draft does not say who to contact; add the facilities team."
    kept, echoes = feedback.split_echoes([echo, real], [draft])
    assert kept == [real] and echoes == 1


def test_strip_chatter():
    text = (
        "Sure! Here is the memo:\n# Memo\n\nBody text.\n\nI hope this helps!\n"
        "Let me know if you'd like any changes."
    )
    assert strip_chatter(text) == "# Memo\n\nBody text.\n"
    assert strip_chatter("```markdown\n# T\n\nx\n```") == "# T\n\nx\n"
    kept = "# Memo\n\n- Note: the office is closed.\n"
    assert strip_chatter(kept) == kept
    # sentences that belong to the text stay
    content = (
        "The canteen closes on Friday at 15:00.\n"
        "Please let me know by Thursday if your team needs a packed lunch.\n"
        "If you have any questions, call Ana on extension 4242.\n"
    )
    assert strip_chatter(content) == content
    absolutely = "Absolutely no visitors in the lab after 18:00.\nBadges are checked.\n"
    assert strip_chatter(absolutely) == absolutely


@pytest.mark.parametrize(
    "html, markdown",
    [
        (
            "<p><strong>Lumo desk lamp</strong> is a lamp.</p>\n<p>It <em>folds</em> flat.</p>",
            "**Lumo desk lamp** is a lamp.\n\nIt *folds* flat.\n",
        ),
        (
            "<h2>Opening hours</h2><p>From 9:00.</p><ul><li>Mon</li>\n<li><b> Tue </b></li></ul>",
            "## Opening hours\n\nFrom 9:00.\n\n- Mon\n- **Tue**\n",
        ),
        (
            'See <a href="https://example.org/x">the site</a>.<br>Then call.',
            "See [the site](https://example.org/x).\nThen call.\n",
        ),
    ],
)
def test_simple_html_becomes_markdown_and_passes_the_html_check(html, markdown):
    assert form.check_html(html)
    assert html_to_markdown(html) == markdown
    assert form.check_html(markdown) == []


def test_html_to_markdown_leaves_code_and_tagless_text_as_written():
    code = "Returns `<p>text</p>`:\n\n```html\n<p><b>x</b></p>\n```\n"
    assert html_to_markdown(code) == code
    plain = "A < b and b > c, nothing to convert.  "
    assert html_to_markdown(plain) is plain
    # no plain Markdown for a table: it stays, for the html check to report
    table = "Prices: <table><tr><td>4</td></tr></table>"
    assert html_to_markdown(table) == table and form.check_html(table)


def test_a_draft_that_copies_the_brief_is_refused_for_its_orders_and_warned_of():
    brief = (
        "Write a two-sentence note to the finance team. First sentence: the Q3 revenue, "
        "which is not known yet. Second sentence: thank the team for closing the quarter."
    )
    checklist = brief_checklist(brief)
    copied = run_checks(
        brief, [], [brief], "must_fix", None, None, [], brief=brief, checklist=checklist
    )
    found = {(f["code"].split(":")[0], f["severity"]) for f in copied}
    # the copy as a whole is a warning (a template brief is rightly copied); the
    # brief's orders to the writer in it are what refuses it
    assert ("copies-brief", "warn") in found and ("echo", "must_fix") in found
    own = "Q3 revenue was [FIGURE NEEDED: Q3 revenue]. Thank you all for closing the quarter."
    needs = [{"placeholder": "[FIGURE NEEDED: Q3 revenue]", "question": "?"}]
    assert (
        run_checks(
            own, needs, [brief], "must_fix", None, None, [], brief=brief, checklist=checklist
        )
        == []
    )
    # "so smoothly and on time" is the writer's praise, not the brief's: shown to a person
    # (a sentence that carries a fact of the brief, with no claim word, is not held)
    praised = own.replace("quarter.", "quarter so smoothly and on time this year.")
    held = run_checks(
        praised, needs, [brief], "must_fix", None, None, [], brief=brief, checklist=checklist
    )
    assert [(f["code"], f["severity"]) for f in held] == [("adds:2", "warn")]


def test_letter_furniture_is_stripped_but_content_stays():
    text = (
        "Dear Engineering Team,\n\nI hope this memo helps.\nThe build server moves on "
        "Saturday.\nThank you for your attention.\nBest regards,\n[Your Name]\n"
    )
    assert strip_chatter(text) == "The build server moves on Saturday.\n"
    kept = "Hi all, the office is closed on Friday.\nThanks to facilities for the work."
    assert strip_chatter(kept) == kept + "\n"


def test_html_tags_outside_code_are_must_fix():
    html = "<p><strong>Lumo</strong> is a desk lamp.</p>"
    [f] = form.check_html(html)
    assert f["severity"] == "must_fix" and "<p>" in f["message"] and "Markdown" in f["message"]
    assert form.check_html("**Lumo** is a desk lamp.\n\nIt folds flat.") == []
    # tags shown as code in API docs are the docs' subject, not markup
    assert form.check_html("Returns `<p>text</p>`:\n\n```html\n<br/>\n```\n") == []
    assert form.check_html("Use a < b and b > c.") == []


def test_a_fact_the_brief_gives_wrapped_in_a_placeholder_is_unwrapped_by_its_repair():
    brief = "The all-hands starts at 15:00 CET in the main hall."
    draft = "The all-hands starts at [TIME NEEDED: 15:00 CET] in the main hall."
    [given] = [f for f in gaps.check_given_as_gap(draft, brief)]
    assert given["repair"] == {
        "action": "replace",
        "old": "[TIME NEEDED: 15:00 CET]",
        "new": "15:00 CET",
    }
    # a gap that holds no figure of the brief is a real gap
    assert not gaps.check_given_as_gap(
        "Revenue was [FIGURE NEEDED: Q3 revenue].", "Q3 revenue is not known yet."
    )
    assert not gaps.check_given_as_gap("[DATE NEEDED: 3 May]", "It opens on 1 May.")


def test_a_gap_worded_as_the_brief_words_what_it_does_not_know_is_a_real_gap():
    brief = (
        "- The car park is resurfaced from 9 to 13 June.\n"
        "- The exact reopening time on 13 June is not confirmed yet."
    )
    checklist = build_checklist(ThreadBrief(id="b", text=brief))
    draft = (
        "The car park is resurfaced from 9 to 13 June. It reopens on 13 June at "
        "[DATE NEEDED: reopening time on 13 June]."
    )
    needs = [{"placeholder": "[DATE NEEDED: reopening time on 13 June]", "question": "?"}]
    found = run_checks(
        draft=draft,
        needs=needs,
        sources=[brief],
        number_severity="must_fix",
        min_words=None,
        max_words=None,
        banned_phrases=[],
        brief=brief,
        checklist=checklist,
    )
    assert [f["code"] for f in found if f["severity"] == "must_fix"] == []
    # the same label is a given fact wrapped when the brief does not call it unknown
    assert gaps.check_given_as_gap(
        draft, "It reopens on 13 June at 8:00. The reopening time on 13 June is 8:00."
    )


def test_another_form_of_a_word_the_brief_gives_is_not_an_invented_name():
    assert not facts.check_names(
        "We are closed on Fridays in August.", ["The office closes on Friday in August."]
    )
    [name] = facts.check_names("Ask Priya about Fridays.", ["Closed on Friday."])
    assert name["code"] == "name:priya"


def test_a_sentence_said_twice_is_must_fix_and_its_repair_drops_the_copy():
    text = (
        "The flask keeps drinks hot for 12 hours. It holds 750 ml. **The flask keeps "
        "drinks hot for 12 hours.**"
    )
    [f] = form.check_repeated(text)
    assert f["repair"] == {
        "action": "drop",
        "sentences": ["**The flask keeps drinks hot for 12 hours.**"],
    }
    placeholder = "Time: [DATE NEEDED: reopening time].\n\n**Time:** [DATE NEEDED: reopening time]"
    assert form.check_repeated(placeholder)
    assert not form.check_repeated("Save your work. Save your files before you leave.")


@pytest.mark.parametrize(
    "text,repeated",
    [
        # a repair said again a fact a longer sentence carries
        (
            "The Fjell flask is double-walled stainless steel and keeps drinks hot for 12 "
            "hours. The Fjell flask keeps drinks hot for 12 hours. It holds 750 ml.",
            "The Fjell flask keeps drinks hot for 12 hours.",
        ),
        (
            "The leak-proof lid fits car cup holders, perfect for commuters and hikers. "
            "Perfect for commuters and hikers!",
            "Perfect for commuters and hikers!",
        ),
        # a heading, a name line, a new figure, the other way round: not said again
        ("## Water supply off on Tuesday\n\nThe water supply is off on Tuesday from 8:00.", None),
        (
            "Thanks to Dr Helen Mbeki, project lead, for her help.\n\nDr Helen Mbeki, project lead",
            None,
        ),
        ("The office is closed on Friday. On Friday the office is closed from 15:00.", None),
        (
            "A message is confirmed once two nodes have stored it. A message is not "
            "confirmed until two nodes have stored it.",
            None,
        ),
    ],
)
def test_a_sentence_another_one_says_already_is_a_repeat(text, repeated):
    found = [f["repair"]["sentences"][0] for f in form.check_repeated(text)]
    assert found == ([repeated] if repeated else []), found
