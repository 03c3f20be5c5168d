"""The checklist built from a brief and the code checks that judge a draft against it.
Each check is shown passing a sound draft and failing a broken one."""

from __future__ import annotations

from batch.draft_cleanup import strip_prompt_lines
from batch.judging import checks
from batch.judging.checklist import brief_checklist, build_checklist, covered
from batch.judging.checks import facts, form, gaps
from batch.loop.writing.round import near_copy
from batch.placeholders import suggest as suggested_placeholder
from batch.thread_inputs import ThreadBrief

from conftest import run_checks

BRIEF = """Tell the warehouse team that the loading dock closes at 14:00 on Thursday for
resurfacing. Trucks are rerouted to gate B for the afternoon.

- Forklifts must be parked in bay 4 before noon.
- The reopening date is not confirmed yet; facilities will confirm it next week.

Tone: short and practical.
"""


def kinds(checklist):
    return [(r["kind"], r["text"]) for r in checklist]


def test_a_brief_becomes_facts_asks_missing_facts_and_style():
    found = kinds(brief_checklist(BRIEF))
    assert found == [
        ("fact", "the loading dock closes at 14:00 on Thursday for resurfacing."),
        ("fact", "Trucks are rerouted to gate B for the afternoon."),
        ("fact", "Forklifts must be parked in bay 4 before noon."),
        (
            "missing",
            "The reopening date is not confirmed yet; facilities will confirm it next week.",
        ),
        ("style", "Tone: short and practical."),
    ]


def test_a_labelled_list_is_one_item_whose_every_member_is_asked_for():
    # one item, as "The kettle has a glass body, holds 1.7 litres and shuts off by
    # itself" is: the checklist does not depend on the brief's shape
    checklist = brief_checklist(
        "Write the product page for the Kumo kettle.\n\n"
        "Features: glass body, 1.7 litres, auto shut-off."
    )
    assert kinds(checklist) == [
        ("task", "Write the product page for the Kumo kettle."),
        # what the request names is the text's subject: the page names the Kumo kettle, by
        # its name (what it is, the writer may word as it likes)
        ("fact", "Kumo"),
        ("fact", "Features: glass body, 1.7 litres, auto shut-off."),
    ]
    assert checklist[2]["numbers"] == ["1.7"]
    said = "The Kumo kettle has a glass body, holds 1.7 litres and has an auto shut-off."
    assert covered(checklist[2], said)
    for dropped in ("a glass body, ", "holds 1.7 litres and ", " and has an auto shut-off"):
        assert not covered(checklist[2], said.replace(dropped, " ")), dropped


def test_a_gap_the_brief_asks_to_tell_needs_no_placeholder():
    checklist = brief_checklist(
        "The venue is not decided yet. Say that it will be announced on the intranet."
    )
    assert [r["kind"] for r in checklist] == ["gap", "gap"]
    told = "We will announce the venue on the intranet soon."
    assert not facts.check_requirements(told, checklist)
    assert not gaps.check_missing_facts(told, checklist)


def test_source_files_list_every_public_name_from_the_ast():
    source = (
        "def area(w, h):\n    return w * h\n\ndef _hidden():\n    pass\n\n"
        "class Box:\n    def grow(self):\n        pass\n    def _secret(self):\n"
        "        pass\n"
    )
    checklist = build_checklist(
        ThreadBrief(id="box", kind="source", source_text=source, origin_name="box.py")
    )
    assert [r["text"] for r in checklist] == ["function area", "class Box", "method Box.grow"]
    doc = "# box\n\n## area(w, h)\nArea.\n\n## Box\n### grow()\nGrows."
    assert facts.check_requirements(doc, checklist) == []
    missing = facts.check_requirements(doc.replace("grow", "enlarge"), checklist)
    assert [f["code"] for f in missing] == ["uncovered:R3"]


GOOD = (
    "The loading dock closes at 14:00 on Thursday for resurfacing, so trucks go to "
    "gate B for the afternoon. Park every forklift in bay 4 before noon. The dock "
    "reopens on [DATE NEEDED: reopening date]."
)
NEEDS = [{"placeholder": "[DATE NEEDED: reopening date]", "question": "When?"}]


def run(draft, needs=NEEDS, **kw):
    return run_checks(
        draft=draft,
        needs=needs,
        sources=[BRIEF],
        number_severity="must_fix",
        min_words=None,
        max_words=None,
        banned_phrases=["synergy"],
        brief=BRIEF,
        checklist=brief_checklist(BRIEF),
        **kw,
    )


def codes(findings):
    """What stops the machine from approving: must-fix, and what waits for a person."""
    return sorted(f["code"] for f in findings if f["severity"] in ("must_fix", "hold"))


def test_a_sound_draft_passes_every_check():
    assert codes(run(GOOD)) == []
    ctx = checks.CheckContext(
        draft=GOOD, sources=(BRIEF,), brief=BRIEF, checklist=brief_checklist(BRIEF)
    )
    assert checks.code_score(run(GOOD), ctx) == 100.0


def test_coverage_tolerates_a_paraphrase_but_not_a_missing_fact():
    checklist = brief_checklist(BRIEF)
    paraphrase = "Trucks will be sent to gate B all afternoon."
    assert covered(checklist[1], paraphrase)
    dropped = GOOD.replace("Park every forklift in bay 4 before noon. ", "")
    assert codes(run(dropped)) == ["uncovered:R3"]


def test_a_number_the_requirement_holds_must_be_there():
    assert "uncovered:R1" in codes(run(GOOD.replace("14:00", "the afternoon")))


def test_contradictions_by_negation_and_by_opposite():
    negated = GOOD.replace("so trucks go to gate B", "so trucks do not go to gate B")
    assert "contradiction:R2" in codes(run(negated))
    reversed_ = GOOD.replace("before noon", "after noon")
    assert "contradiction:R3" in codes(run(reversed_))
    # a negation away from the requirement's words is not a contradiction
    aside = GOOD + " There is no need to call anyone."
    assert not [c for c in codes(run(aside)) if c.startswith("contradiction")]


def test_names_no_source_gives_are_flagged():
    invented = GOOD + " Ask Priya Sharma at Northwind Logistics if in doubt."
    found = codes(run(invented))
    assert {"name:priya", "name:sharma", "name:northwind", "name:logistics"} <= set(found)
    wrong_day = GOOD.replace("on Thursday", "on Friday")
    assert "name:friday" in codes(run(wrong_day))
    # sentence starts, headings and the brief's own names are fine
    assert codes(run("# Dock Closure Notice\n\n" + GOOD)) == []


def test_missing_fact_needs_a_placeholder_not_a_guess_nor_a_remark():
    guessed = GOOD.replace("[DATE NEEDED: reopening date]", "Monday 9 June")
    found = codes(run(guessed, needs=[]))
    assert "missing-placeholder:R4" in found
    told = GOOD.replace(
        "The dock reopens on [DATE NEEDED: reopening date].",
        "The reopening date is not confirmed yet.",
    )
    assert "gap-told:R4" in codes(run(told, needs=[]))
    # a person's answer fills it
    answered = GOOD.replace("[DATE NEEDED: reopening date]", "16 June")
    assert (
        codes(
            run_checks(
                draft=answered,
                needs=[],
                sources=[BRIEF, "16 June"],
                number_severity="must_fix",
                min_words=None,
                max_words=None,
                banned_phrases=[],
                brief=BRIEF,
                checklist=brief_checklist(BRIEF),
                answered=["[DATE NEEDED: reopening date]"],
            )
        )
        == []
    )


def test_prompt_and_instruction_echo():
    prompts = [
        "Problems found in it. Your new text must fix every one marked MUST FIX.",
        "Answer with one JSON object: needs_from_human, draft.",
    ]
    leaked = GOOD + "\n\nYour new text must fix every one marked MUST FIX."
    assert "echo:prompt" in codes(run(leaked, prompt_texts=prompts))
    assert "echo:prompt" in codes(run(GOOD + " See needs_from_human.", prompt_texts=prompts))
    assert codes(run(GOOD, prompt_texts=prompts)) == []
    relay = "Tell the warehouse team that the loading dock closes at 14:00 on Thursday. " + GOOD
    assert "echo:brief:R1" in codes(run(relay))
    styled = GOOD + "\n\nTone: short and practical."
    assert "echo:brief:R5" in codes(run(styled))


def test_placeholders_in_other_spellings_are_must_fix():
    for gap in ("[TBD]", "[Date Needed: reopening]", "[DATE NEEDED reopening]", "[?]"):
        found = codes(run(GOOD + f" Contact: {gap}."))
        assert any(c.startswith("placeholder-form:") for c in found), gap
    assert not [
        c
        for c in codes(run(GOOD + " See [the map](https://example.org)."))
        if c.startswith("placeholder-form")
    ]


def test_suggested_placeholder_labels():
    assert suggested_placeholder("Q3 revenue") == "[FIGURE NEEDED: Q3 revenue]"
    assert suggested_placeholder("launch date") == "[DATE NEEDED: launch date]"
    assert suggested_placeholder("contact person") == "[NAME NEEDED: contact person]"
    assert suggested_placeholder("venue") == "[FACT NEEDED: venue]"


def test_prompt_lines_copied_whole_are_stripped_and_near_copies_seen():
    prompt = ["Now write the complete revised text for its readers."]
    text = "The dock is closed.\nNow write the complete revised text for its readers.\n"
    assert strip_prompt_lines(text, prompt) == "The dock is closed.\n"
    assert near_copy(GOOD, GOOD + " ")
    assert not near_copy(GOOD, "A different text about forklifts and gate B entirely now.")


def test_a_sentence_with_both_opposites_is_not_a_contradiction():
    checklist = brief_checklist(
        "Ask: merge urgent fixes before Friday, and report problems after the move."
    )
    both = "Merge urgent fixes before Friday and report problems after the move."
    assert facts.check_contradictions(both, checklist) == []
    flipped = "Merge urgent fixes after Friday. Report problems after the move."
    assert [f["code"] for f in facts.check_contradictions(flipped, checklist)] == [
        "contradiction:R1"
    ]


def test_a_suggested_wording_may_be_taken_up_but_a_critique_point_not_pasted():
    critique = ["Say it plainly: forklifts must be parked in bay 4 before noon today."]
    taken_up = GOOD.replace(
        "Park every forklift in bay 4 before noon.",
        "Forklifts must be parked in bay 4 before noon today.",
    )
    assert "echo:prompt" not in codes(run(taken_up, critique=critique))
    pasted = GOOD + "\n\nThe text does not say what the brief gives as the dock times."
    found = codes(
        run(pasted, critique=["The text does not say what the brief gives as the dock times."])
    )
    assert "echo:prompt" in found


SOURCE = '''def area(width, height=1):
    """Width times height."""
    return width * height


class Box:
    def grow(self, by=2):
        return by
'''


def test_api_docs_names_and_signatures_come_from_the_code():
    from batch.judging.apidocs import check_api_docs

    good = "# shapes\n\n## `area(width, height=1)`\nArea.\n\n## Box\n### `Box.grow(by=2)`\n"
    assert check_api_docs(good, SOURCE, "shapes") == []
    wrong = good.replace("area(width, height=1)", "area(height, width=1)")
    [f] = check_api_docs(wrong, SOURCE, "shapes")
    assert f["code"] == "api-signature:area" and "area(width, height=1)" in f["message"]
    invented = good + "\n### `Box.shrink()`\nShrinks.\n\n## `perimeter(width)`\n"
    codes_ = sorted(f["code"] for f in check_api_docs(invented, SOURCE, "shapes"))
    assert codes_ == ["api-invented:Box.shrink", "api-invented:perimeter"]
    # a call with values is an example, not a signature; builtins are not invented
    assert check_api_docs(good + "\nUse `area(3, 4)` or `len(x)`.\n", SOURCE, "shapes") == []


def test_docs_that_paste_the_source_are_refused():
    source = "\n".join(
        f"def f{i}(value):\n    return value * {i} + compute_offset(value)" for i in range(5)
    )
    pasted = "# mod\n\n" + source
    assert [f["code"] for f in form.check_copied_source(pasted, source)] == ["copies-source"]
    explained = "# mod\n\n## f1(value)\nReturns value times 1 plus its offset."
    assert form.check_copied_source(explained, source) == []


def test_talk_about_the_draft_and_prompt_tags_are_echo():
    assert "echo:prompt" in codes(run(GOOD + " You can review this draft for revisions."))
    assert "echo:prompt" in codes(run("<brief-1a2b3c4d>\n" + GOOD + "\n</brief-1a2b3c4d>"))
    assert "echo:prompt" in codes(run("Write a short memo to the warehouse team. " + GOOD))


RAISING = """def parse(text):
    if not text:
        raise ValueError("empty")

    def helper():
        raise KeyError("inner")  # a nested function's, not parse's
    return text


class Store:
    def __init__(self, size):
        if size < 1:
            raise ValueError("size")

    def get(self, key):
        raise LookupError(key)

    def _private(self):
        raise RuntimeError("never documented")
"""


def test_exceptions_the_code_raises_itself_must_be_documented():
    checklist = build_checklist(
        ThreadBrief(id="s", kind="source", origin_name="store.py", source_text=RAISING)
    )
    assert [r["text"] for r in checklist if r["kind"] == "raises"] == [
        "parse raises ValueError",
        "Store raises ValueError",
        "Store.get raises LookupError",
    ]
    good = (
        "# store\n\n## parse(text)\nRaises ValueError when empty.\n\n## Store(size)\n"
        "Raises ValueError below 1.\n\n### Store.get(key)\nRaises LookupError.\n"
    )
    assert facts.check_requirements(good, checklist) == []
    silent = good.replace("Raises LookupError.", "Returns the value.")
    [f] = facts.check_requirements(silent, checklist)
    assert "LookupError" in f["message"] and "Store.get raises LookupError" in f["message"]


def test_other_languages_get_their_exported_names_as_the_checklist():
    js = (
        "export function total(items) { return 0 }\nfunction hidden() {}\n"
        "export class Cart { add(item) {} }\n"
    )
    checklist = build_checklist(
        ThreadBrief(id="c", kind="source", origin_name="cart.js", source_text=js)
    )
    assert [r["text"] for r in checklist] == ["function total", "class Cart", "method Cart.add"]
    doc = "# cart\n\n## total(items)\n\n## Cart\n### add(item)\n"
    assert facts.check_requirements(doc, checklist) == []
    assert [f["code"] for f in facts.check_requirements("# cart\n## total\n", checklist)] == [
        "uncovered:R2",
        "uncovered:R3",
    ]
    # a language with no parser here: no checklist, and the run record says why
    assert (
        build_checklist(
            ThreadBrief(
                id="x", kind="source", origin_name="x.cobol", source_text="IDENTIFICATION DIVISION."
            )
        )
        == []
    )


def test_a_small_number_written_as_a_word_covers_the_figure():
    checklist = build_checklist(ThreadBrief(id="b", text="Facts: 5 brightness levels, folds flat."))
    assert (
        facts.check_requirements("It has five brightness levels and folds flat.", checklist) == []
    )
    assert facts.check_requirements("It has six brightness levels and folds flat.", checklist) != []


def test_a_fact_the_brief_says_nothing_is_known_about_is_missing():
    [offline, licence] = brief_checklist(
        "- The app works offline for 30 days.\n- Nothing is known about the license."
    )
    assert offline["kind"] == "fact"
    assert licence["kind"] == "missing" and licence["subject"] == "license"


def test_an_uncertainty_the_brief_passes_on_is_a_fact_not_a_gap():
    [start, hedge] = brief_checklist(
        "- The all-hands starts at 15:00 CET.\n- The time may move; IT will confirm it on the day."
    )
    assert start["kind"] == "fact" and hedge["kind"] == "fact"
    [gap] = brief_checklist("- The start time is not decided yet.")
    assert gap["kind"] == "missing"


def test_an_order_about_who_signs_the_text_is_its_signature():
    [fact, sign] = brief_checklist(
        "- Invoices are due in 30 days.\n- Sign it from the billing team."
    )
    assert fact["kind"] == "fact"
    assert sign["kind"] == "sign" and sign["subject"] == "the billing team"
    assert covered(sign, "Invoices are due in 30 days.\n\nThe billing team")
    assert not covered(sign, "The billing team says invoices are due.\n\nMore text.\n\nThanks")
