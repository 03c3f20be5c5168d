"""Every prompt a model receives, rendered for fixed states and compared with
tests/prompts/<name>.txt, so that any change to what a model reads is a visible diff.

Each expected file holds the messages of one prompt, each after a header line
`===== <role> =====`, then the JSON schema the role's answer must follow (its field
descriptions reach the model too). The states are built by the real code paths
(`start_state` with the repo's rubrics and house rules, `load_brief_file`, `ask`), so
the fence tags, hashes of fixed content, are fixed too.

A deliberate prompt change: regenerate the expected files, then read their diff before
committing it:

    UPDATE_PROMPTS=1 .venv/bin/pytest -q tests/prompting/test_prompt_texts.py
    git diff tests/prompts/
"""

from __future__ import annotations

import difflib
import json
import os
from collections.abc import Callable
from importlib import resources
from pathlib import Path

import pytest

from batch import prompts
from batch.config import Settings
from batch.inputs.briefs import Brief, load_brief_file
from batch.inputs.rubrics import load_rubric
from batch.loop.answers import DocAnswer, FinalizerAnswer, RepairAnswer, WriterAnswer, critic_schema
from batch.loop.writing.docwriter import names_of
from batch.models.base import Completion, ask, write
from batch.prompting import (
    critic_messages,
    doc_messages,
    finalizer_messages,
    repair_messages,
    writer_messages,
)
from batch.prompts import fragment
from batch.run.starting import start_state
from batch.state import LoopState
from batch.thread_inputs import rubric_of

from conftest import ScriptedModel, make_settings, writer_answer

EXPECTED = Path(__file__).resolve().parents[1] / "prompts"
UPDATE = os.environ.get("UPDATE_PROMPTS") == "1"

MEMO = """Write a short memo to the sales team about the third quarter.

- Q3 revenue: not known yet; finance will confirm it on Monday.
- The team closed 42 new accounts in Q3, up from 35 in Q2.
- The Berlin office opens on 1 November.
- The opening party date is not decided yet. Say that the date is not announced yet.
- Ask everyone to update their pipeline in the CRM by Friday.
"""
CLOSURE = """Tell all staff that the office is closed this Friday from 15:00 for electrical
maintenance. Staff should save their work and shut down their computers before they
leave. Questions go to the facilities team. Sign it from the facilities team.
"""
LAMP = """Write the shop-page description of the Lumo desk lamp.

Facts: aluminium arm, USB-C charging port in the base, 5 brightness levels.
"""
SOURCE = '''"""Turn titles into URL slugs."""

import re


def slugify(text: str, max_length: int = 60) -> str:
    """Lower-case ASCII words joined by hyphens, cut at max_length characters."""
    words = re.findall(r"[a-z0-9]+", text.lower())
    return "-".join(words)[:max_length].rstrip("-")


class SlugSet:
    """The slugs handed out so far."""

    def add(self, text: str) -> str:
        """A slug of text not handed out before."""
        return slugify(text)
'''
DRAFT = """# Q3 results

The team closed 42 new accounts in Q3, up from 35 in Q2. Q3 revenue was
[FIGURE NEEDED: Q3 revenue].
"""
# Critique points (in a run: batch.judging.checks findings and the critic's own), fixed here so
# that the framing around them is what this test watches.
MUST_FIX = [
    "The text does not say: The Berlin office opens on 1 November.",
    "The banned phrase 'synergy' is in the text: say it plainly.",
]
WOULD_IMPROVE = ["Put the CRM deadline in the first paragraph."]


def _memo_brief() -> Brief:
    return Brief(
        id="q3-memo",
        text=MEMO,
        origin="briefs/q3-memo.md",
        rubric="memo",
        title="Q3 results memo\nfor the sales team",
        min_words=60,
        max_words=150,
    )


def _state(settings: Settings, brief: Brief, **extra) -> LoopState:
    state, _ = start_state(settings, brief)
    return {**state, **extra}


def _revised(settings: Settings, **extra) -> LoopState:
    """The memo in round 2: critique points, a person's answer and a reviewer's note."""
    return _state(
        settings,
        _memo_brief(),
        draft=DRAFT,
        round=2,
        must_fix=MUST_FIX,
        would_improve=WOULD_IMPROVE,
        human_answers={"[FIGURE NEEDED: Q3 revenue]": "EUR 4.2 million"},
        human_notes=["Sign the memo as Dana, head of sales."],
        **extra,
    )


def _source_brief(settings: Settings) -> Brief:
    path = settings.path(settings.paths.root) / "briefs" / "slugify.py"
    path.write_text(SOURCE, encoding="utf-8")
    return load_brief_file(path, 100_000)


def _render(messages: list[dict[str, str]], schema: dict | None = None) -> str:
    parts = [f"===== {m['role']} =====\n{m['content']}\n" for m in messages]
    if schema is not None:
        parts.append(
            "===== JSON schema of the answer =====\n"
            + json.dumps(schema, indent=2, ensure_ascii=False)
            + "\n"
        )
    return "".join(parts)


def _writer(state: LoopState) -> str:
    """The writer answers in plain text: no schema goes with its prompt."""
    return _render(writer_messages(state))


def _critic(settings: Settings, state: LoopState) -> str:
    rubric = load_rubric(settings.path(settings.paths.rubrics), rubric_of(state).name)
    return _render(critic_messages(state, rubric), critic_schema(rubric).model_json_schema())


# -- the prompts ---------------------------------------------------------------------------


def writer_first(settings: Settings) -> str:
    """First round of a memo brief with a fact it does not give."""
    return _writer(_state(settings, _memo_brief()))


def writer_revise(settings: Settings) -> str:
    return _writer(_revised(settings))


def writer_revise_no_points(settings: Settings) -> str:
    brief = Brief(id="closure", text=CLOSURE, origin="briefs/closure.md", max_words=90)
    return _writer(_state(settings, brief, draft="The office closes on Friday.", round=1))


def writer_afresh(settings: Settings) -> str:
    """The last revision came back unchanged (repeats >= 1)."""
    brief = Brief(
        id="lamp",
        text=LAMP,
        origin="briefs/lamp.md",
        title="Lumo desk lamp",
        rubric="product-description",
        min_words=40,
    )
    return _writer(
        _state(
            settings,
            brief,
            draft="A lamp.",
            round=3,
            repeats=1,
            must_fix=MUST_FIX[:1],
            would_improve=WOULD_IMPROVE,
        )
    )


def critic_deviations(settings: Settings) -> str:
    return _critic(
        settings,
        _revised(
            settings,
            deviations=[
                {
                    "point": WOULD_IMPROVE[0],
                    "reason": "the revenue is the news; the deadline follows",
                },
                {
                    "point": "Use bullet points.",
                    "reason": "a memo this short reads better as prose",
                },
            ],
        ),
    )


def writer_source(settings: Settings) -> str:
    """A Python file to document: the task of batch/prompts/source_task.md."""
    return _writer(_state(settings, _source_brief(settings)))


def doc_names(settings: Settings) -> str:
    """API docs of a Python file, one public name at a time: a function, then a method."""
    state = _state(settings, _source_brief(settings))
    function, _, method = names_of(SOURCE)
    return "".join(
        _render(doc_messages(state, n), DocAnswer.model_json_schema()) for n in (function, method)
    )


def critic_source(settings: Settings) -> str:
    return _critic(
        settings,
        _state(
            settings,
            _source_brief(settings),
            draft="# slugify\n\nTurns titles into slugs.\n",
            round=1,
        ),
    )


def finalizer(settings: Settings) -> str:
    text = "# Q3 results\nThe team closed 42 new accounts.\n* Update the CRM by Friday.\n"
    return _render(finalizer_messages(text), FinalizerAnswer.model_json_schema())


def _repair(settings: Settings, task: str) -> str:
    state = _revised(settings)
    return _render(repair_messages(state, DRAFT, task), RepairAnswer.model_json_schema())


def repair_rewrite(settings: Settings) -> str:
    """One sentence rewritten (batch.loop.writing.repairs): an invented name, with the
    brief's words."""
    fact = fragment("repair_fact", fact="The Berlin office opens on 1 November.")
    return _repair(
        settings,
        fragment(
            "repair_rewrite",
            sentence="Anna opens the Berlin office on 1 November.",
            goal="no longer names 'Anna' (no source gives it)",
            fact_line=fact,
        ),
    )


def repair_state(settings: Settings) -> str:
    return _repair(
        settings,
        fragment(
            "repair_state",
            goal="states this fact of the brief",
            fact="The Berlin office opens on 1 November.",
        ),
    )


def repair_placeholders(settings: Settings) -> str:
    """A fact not known yet: a sentence rewritten with its placeholder, or a new one."""
    rewrite = fragment(
        "repair_placeholder_rewrite",
        placeholder="[FIGURE NEEDED: Q3 revenue]",
        sentence="Q3 revenue is not known yet.",
    )
    state = fragment(
        "repair_placeholder_state",
        placeholder="[FIGURE NEEDED: Q3 revenue]",
        fact="Q3 revenue: not known yet",
    )
    return _repair(settings, rewrite) + _repair(settings, state)


def repair_length(settings: Settings) -> str:
    paragraph = "The team closed 42 new accounts in Q3, up from 35 in Q2."
    return _repair(settings, fragment("repair_shorten", words=12, paragraph=paragraph)) + _repair(
        settings, fragment("repair_lengthen", words=20, paragraph=paragraph)
    )


# The retry turns of batch.models.base.ask after a first answer that fails, shown after
# a stand-in for the role's prompt.
_PROMPT = [
    {"role": "system", "content": "(the role's system message)"},
    {"role": "user", "content": "(the role's task)"},
]


def _retry(first: str | Completion, num_ctx: int = 32_000) -> str:
    model = ScriptedModel([first, writer_answer("A text.")], num_ctx=num_ctx, max_tokens=1000)
    ask(model, "writer", _PROMPT, WriterAnswer, [])
    return (
        _render(model.sent[1])
        + f"===== max_tokens of the retry =====\n{model.max_tokens_sent[1]}\n"
    )


def _write_retry(first: str | Completion) -> str:
    model = ScriptedModel([first, "A text."], max_tokens=1000)
    write(model, "writer", _PROMPT, [])
    return _render(model.sent[1]) + f"===== sampling of the retry =====\n{model.samplings[1]}\n"


def write_repeating(settings: Settings) -> str:
    """A plain-text answer that repeats itself: stopped, and asked again on a new seed."""
    return _write_retry("The office is closed.\n" * 6)


def write_cut_off(settings: Settings) -> str:
    return _write_retry(Completion("# Q3\nThe team closed", 10, 1000, truncated=True))


def retry_invalid(settings: Settings) -> str:
    """An answer that does not follow the schema: the error goes back to the model."""
    return _retry(json.dumps({"draft": 3, "deliberate_deviations": []}))


def retry_shorter(settings: Settings) -> str:
    """Cut off at max_tokens, with no room in num_ctx to double it: ask for less."""
    return _retry(Completion('{"draft": "# Q3', 10, 1000, truncated=True), num_ctx=1400)


def retry_runaway(settings: Settings) -> str:
    """Cut off at max_tokens while repeating one line over and over."""
    text = '{"draft": "# Q3\n' + "```\n" * 60
    return _retry(Completion(text, 10, 1000, truncated=True))


CASES: dict[str, Callable[[Settings], str]] = {
    f.__name__: f
    for f in (
        writer_first,
        writer_revise,
        writer_revise_no_points,
        writer_afresh,
        critic_deviations,
        writer_source,
        critic_source,
        finalizer,
        retry_invalid,
        retry_shorter,
        retry_runaway,
        repair_rewrite,
        repair_state,
        repair_placeholders,
        repair_length,
        doc_names,
        write_repeating,
        write_cut_off,
    )
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_prompt_text(name: str, project: Path):
    actual = CASES[name](make_settings(project))
    path = EXPECTED / f"{name}.txt"
    if UPDATE:
        path.parent.mkdir(exist_ok=True)
        path.write_bytes(actual.encode("utf-8"))
        return
    expected = path.read_bytes().decode("utf-8") if path.exists() else ""
    if actual != expected:
        diff = "".join(
            difflib.unified_diff(
                expected.splitlines(keepends=True),
                actual.splitlines(keepends=True),
                f"tests/prompts/{name}.txt (expected)",
                f"{name} (rendered now)",
            )
        )
        pytest.fail(
            f"The {name} prompt changed:\n{diff}\nIf the change is meant, "
            f"rerun with UPDATE_PROMPTS=1 and commit tests/prompts/.",
            pytrace=False,
        )


def test_every_expected_file_is_a_prompt_rendered_here():
    stale = sorted(p.name for p in EXPECTED.glob("*.txt") if p.stem not in CASES)
    assert not stale, f"tests/prompts/ files no case renders (delete them): {stale}"


def test_every_template_is_an_instruction_text_and_in_a_snapshot(project, monkeypatch):
    """A template file not in TEMPLATES would escape the echo checks; one that no case
    renders would change without a visible diff."""
    files = {
        p.name.removesuffix(".md")
        for p in resources.files("batch.prompts").iterdir()
        if p.name.endswith(".md")
    }
    assert files == set(prompts.TEMPLATES)
    used: set[str] = set()
    original = prompts.template

    def recording(name: str):
        used.add(name)
        return original(name)

    monkeypatch.setattr(prompts, "template", recording)
    settings = make_settings(project)
    for render in CASES.values():
        render(settings)
    assert set(prompts.TEMPLATES) - used == set()
