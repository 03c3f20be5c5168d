"""Fill the prompt templates from the loop state.

The stable text (role, house rules, rubric, brief, source) always comes first and the
changing text (draft, critique) last, so a local model can reuse its prompt cache for
the shared prefix across rounds.
"""

from __future__ import annotations

import hashlib
import re
from functools import cache
from importlib import resources
from string import Template
from typing import Any

from batch.requirements import Requirement, build_checklist, suggested_placeholder
from batch.rubrics import Rubric
from batch.state import LoopState

TEMPLATES = ("writer_system", "writer_task", "writer_first", "writer_revise",
             "writer_afresh",
             "critic_system", "critic_task", "finalizer")


@cache
def template(name: str) -> Template:
    return Template(resources.files("batch.prompts").joinpath(f"{name}.md").read_text("utf-8"))


def fence(name: str, text: str) -> tuple[str, str]:
    """(the tag, the text between an opening and a closing tag) for material in a prompt.

    The tag carries a hash of the text, so text inside cannot close it (it would have to
    contain its own hash) and the same text always gets the same tag, which keeps a
    local model's prompt cache warm across rounds.
    """
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()
    size = 6
    while f"{name}-{digest[:size]}" in text:
        size += 2
    tag = f"{name}-{digest[:size]}"
    return f"<{tag}>", f"<{tag}>\n{text.strip()}\n</{tag}>"


def checklist_block(checklist: list[Requirement]) -> str:
    """The brief's requirements as the writer must meet them, checked by code later."""
    must = [r for r in checklist if r["kind"] in ("fact", "ask", "gap")]
    missing = [r for r in checklist if r["kind"] == "missing"]
    api = [r for r in checklist if r["kind"] == "api"]
    lines: list[str] = []
    if must:
        lines.append("\nThe text must say each of these points, in full sentences and in "
                     "your own words:")
        for r in must:
            prefix = {"gap": "say that it is not known yet: ",
                      "ask": "ask the readers to: "}.get(r["kind"], "")
            lines.append(f"- {prefix}{r['text']}")
    if missing:
        lines.append("\nThe brief does not give these facts. Write the placeholder shown, "
                     "exactly, where the fact belongs, and list it in needs_from_human:")
        for r in missing:
            lines.append(f"- {r['subject']}: {suggested_placeholder(r['subject'])}")
    if api:
        lines.append("\nDocument every one of these public names, each in its own section:")
        lines.append("- " + ", ".join(r["text"] for r in api))
    return "\n".join(lines) + "\n" if lines else ""


def _brief_fields(state: LoopState) -> dict[str, str]:
    brief: dict[str, Any] = state["brief"]
    source = ""
    if brief.get("source_text"):
        _, block = fence("source", brief["source_text"].rstrip())
        source = f"\nSOURCE FILE {brief.get('origin_name', '')}:\n{block}\n"
    limits = []
    if brief.get("min_words"):
        limits.append(f"at least {brief['min_words']} words")
    if brief.get("max_words"):
        limits.append(f"at most {brief['max_words']} words")
    limits_block = f"\nLength: {' and '.join(limits)}.\n" if limits else ""
    answers = state.get("human_answers") or {}
    facts = ""
    if answers:
        lines = "\n".join(f"- {k} = {v}" for k, v in answers.items())
        facts = f"\nFacts supplied by a person (use them in place of the placeholders):\n{lines}\n"
    notes = state.get("human_notes") or []
    if notes:
        lines = "\n".join(f"- {n}" for n in notes)
        facts += f"\nRequests from a reviewer (the text must satisfy them):\n{lines}\n"
    return {
        "brief_id": brief["id"],
        # one line: a title cannot start a section of its own in the prompt
        "title_line": f", title: {' '.join(brief['title'].split())}" if brief.get("title")
        else "",
        "brief_block": fence("brief", brief["text"])[1],
        "source_block": source,
        "limits_block": limits_block,
        "facts_block": facts,
    }


def instruction_texts(state: LoopState, rubric: Rubric) -> list[str]:
    """The instructions a draft must not contain: the prompt templates, the house rules
    and the rubric."""
    texts = [re.sub(r"\$\w+", " ", template(name).template) for name in TEMPLATES]
    return [*texts, state["house_rules"]["text"], rubric.as_prompt()]


def critique_texts(state: LoopState) -> list[str]:
    """The critique the writer was last given: its points must not be pasted in whole
    (a suggested wording taken up is fine)."""
    return [*state.get("must_fix", []), *state.get("would_improve", [])]


def _points(state: LoopState) -> str:
    points = [f"{i}. MUST FIX: {p}" for i, p in enumerate(state.get("must_fix", []), 1)]
    points += [f"{i}. SUGGESTION: {p}" for i, p in
               enumerate(state.get("would_improve", []), len(points) + 1)]
    return "\n".join(points) or "- (no open points; tighten the text)"


def writer_messages(state: LoopState) -> list[dict[str, str]]:
    system = template("writer_system").substitute(house_rules=state["house_rules"]["text"])
    checklist = state.get("checklist") or build_checklist(state["brief"])
    task = template("writer_task").substitute(_brief_fields(state),
                                              checklist_block=checklist_block(checklist))
    if not state.get("draft"):
        tail = template("writer_first").substitute()
    elif state.get("repeats"):
        # The last revision changed nothing: showing the draft again invites the same
        # copy. Start afresh from the brief, with the problems named.
        tail = template("writer_afresh").substitute(points=_points(state))
    else:
        tag, block = fence("draft", state["draft"])
        tail = template("writer_revise").substitute(
            round=state.get("round", 0),
            draft_tag=tag,
            draft_block=block,
            points=_points(state),
        )
    return [{"role": "system", "content": system}, {"role": "user", "content": task + tail}]


def critic_messages(state: LoopState, rubric: Rubric) -> list[dict[str, str]]:
    system = template("critic_system").substitute(
        house_rules=state["house_rules"]["text"], rubric=rubric.as_prompt())
    deviations = state.get("deviations") or []
    block = ""
    if deviations:
        items = "\n".join(f"- {d['point']}: {d['reason']}" for d in deviations)
        block = f"\nTHE WRITER'S DELIBERATE DEVIATIONS:\n{items}\n"
    tag, draft_block = fence("draft", state.get("draft", ""))
    task = template("critic_task").substitute(
        _brief_fields(state), draft_tag=tag, draft_block=draft_block, deviations_block=block)
    return [{"role": "system", "content": system}, {"role": "user", "content": task}]


def finalizer_messages(text: str) -> list[dict[str, str]]:
    return [{"role": "system", "content": template("finalizer").substitute()},
            {"role": "user", "content": text}]
