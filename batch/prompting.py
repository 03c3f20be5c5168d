"""Fill the prompt templates from the loop state.

The stable text (role, house rules, rubric, brief, source) always comes first and the
changing text (draft, critique) last, so a local model can reuse its prompt cache for
the shared prefix across rounds.
"""

from __future__ import annotations

from functools import cache
from importlib import resources
from string import Template
from typing import Any

from batch.rubrics import Rubric
from batch.state import LoopState


@cache
def template(name: str) -> Template:
    return Template(resources.files("batch.prompts").joinpath(f"{name}.md").read_text("utf-8"))


def _brief_fields(state: LoopState) -> dict[str, str]:
    brief: dict[str, Any] = state["brief"]
    source = ""
    if brief.get("source_text"):
        fence = "````" if "```" in brief["source_text"] else "```"
        source = (f"\nSOURCE FILE {brief.get('origin_name', '')}:\n{fence}\n"
                  f"{brief['source_text'].rstrip()}\n{fence}\n")
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
        "title_line": f", title: {brief['title']}" if brief.get("title") else "",
        "brief_text": brief["text"],
        "source_block": source,
        "limits_block": limits_block,
        "facts_block": facts,
    }


def writer_messages(state: LoopState) -> list[dict[str, str]]:
    system = template("writer_system").substitute(house_rules=state["house_rules"]["text"])
    task = template("writer_task").substitute(_brief_fields(state))
    if not state.get("draft"):
        tail = template("writer_first").substitute()
    else:
        points = [f"- MUST FIX: {p}" for p in state.get("must_fix", [])]
        points += [f"- IMPROVE: {p}" for p in state.get("would_improve", [])]
        tail = template("writer_revise").substitute(
            round=state.get("round", 0),
            score=f"{state.get('score', 0):g}",
            draft=state["draft"],
            points="\n".join(points) or "- (no open points; tighten the text)",
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
    task = template("critic_task").substitute(
        _brief_fields(state), draft=state.get("draft", ""), deviations_block=block)
    return [{"role": "system", "content": system}, {"role": "user", "content": task}]


def finalizer_messages(text: str) -> list[dict[str, str]]:
    return [{"role": "system", "content": template("finalizer").substitute()},
            {"role": "user", "content": text}]
