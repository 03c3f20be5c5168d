"""Fill the prompt templates from the loop state.

Every word a model reads comes from a template in batch/prompts/ (tests/prompts/ holds
each prompt as rendered for fixed states, so a change to one is a visible diff); the
code here only picks the templates and fills in the material.

The stable text (role, house rules, rubric, brief, source) always comes first and the
changing text (draft, critique) last, so a local model can reuse its prompt cache for
the shared prefix across rounds.
"""

from __future__ import annotations

import ast
import hashlib
import re
from functools import cache
from typing import Any

from batch import prompts
from batch.check_types import Requirement
from batch.inputs.rubrics import Rubric
from batch.judging.checklist import build_checklist
from batch.judging.checklist.fixes import fixed
from batch.placeholders import suggest as suggested_placeholder
from batch.state import LoopState
from batch.thread_inputs import brief_of, house_rules_of


def _bullets(items: list[str]) -> str:
    return "\n".join(f"- {item}" for item in items)


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
    must = [r for r in checklist if r["kind"] in ("fact", "ask", "gap", "sign")]
    missing = [r for r in checklist if r["kind"] == "missing"]
    api = [r for r in checklist if r["kind"] == "api"]
    blocks: list[str] = []
    if must:
        items = [
            prompts.fragment(f"checklist_{r['kind']}", text=r["text"])
            if r["kind"] in ("gap", "ask", "sign")
            else r["text"]
            for r in must
        ]
        blocks.append(prompts.template("checklist_must").substitute(items=_bullets(items)))
    if missing:
        items = [f"{r['subject']}: {suggested_placeholder(r['subject'])}" for r in missing]
        blocks.append(prompts.template("checklist_missing").substitute(items=_bullets(items)))
    if api:
        blocks.append(
            prompts.template("checklist_api").substitute(names=", ".join(r["text"] for r in api))
        )
    return "".join(blocks)


def _brief_fields(state: LoopState) -> dict[str, str]:
    brief = brief_of(state)
    source = ""
    if brief.source_text:
        _, block = fence("source", brief.source_text.rstrip())
        source = prompts.template("brief_source").substitute(name=brief.origin_name, block=block)
    low, high = brief.min_words, brief.max_words
    length = (
        "brief_length_range"
        if low and high
        else "brief_length_min"
        if low
        else "brief_length_max"
        if high
        else ""
    )
    limits_block = (
        prompts.template(length).substitute(min_words=low, max_words=high) if length else ""
    )
    answers = state.get("human_answers") or {}
    facts = ""
    if answers:
        facts = prompts.template("brief_facts").substitute(
            answers=_bullets([f"{k} = {v}" for k, v in answers.items()])
        )
    notes = state.get("human_notes") or []
    if notes:
        facts += prompts.template("brief_notes").substitute(notes=_bullets(notes))
    return {
        "brief_id": brief.id,
        # one line: a title cannot start a section of its own in the prompt
        "title_line": prompts.fragment("brief_title", title=" ".join(brief.title.split()))
        if brief.title
        else "",
        "brief_block": fence("brief", brief.text)[1],
        "source_block": source,
        "limits_block": limits_block,
        "facts_block": facts,
    }


def instruction_texts(state: LoopState, rubric: Rubric) -> list[str]:
    """The instructions a draft must not contain: the prompt templates, the house rules
    and the rubric."""
    return [*_template_texts(), house_rules_of(state).text, rubric.as_prompt()]


@cache
def _template_texts() -> tuple[str, ...]:
    """Every template's words, its fields blanked."""
    return tuple(
        re.sub(r"\$\w+", " ", prompts.template(name).template) for name in prompts.TEMPLATES
    )


def critique_texts(state: LoopState) -> list[str]:
    """The critique the writer was last given: its points must not be pasted in whole
    (a suggested wording taken up is fine)."""
    return [*state.get("must_fix", []), *state.get("would_improve", [])]


def _points(state: LoopState) -> str:
    points = [
        prompts.fragment("point_must_fix", number=i, point=p)
        for i, p in enumerate(state.get("must_fix", []), 1)
    ]
    points += [
        prompts.fragment("point_suggestion", number=i, point=p)
        for i, p in enumerate(state.get("would_improve", []), len(points) + 1)
    ]
    return "\n".join(points) or prompts.fragment("points_none")


def writer_messages(state: LoopState) -> list[dict[str, str]]:
    system = prompts.template("writer_system").substitute(house_rules=house_rules_of(state).text)
    checklist = fixed(
        state.get("checklist") or build_checklist(brief_of(state)),
        state.get("checklist_fixes", []),
    )
    task = prompts.template("writer_task").substitute(
        _brief_fields(state), checklist_block=checklist_block(checklist)
    )
    if not state.get("draft"):
        tail = prompts.template("writer_first").substitute()
    elif state.get("repeats"):
        # The last revision changed nothing: showing the draft again invites the same
        # copy. Start afresh from the brief, with the problems named.
        tail = prompts.template("writer_afresh").substitute(points=_points(state))
    else:
        tag, block = fence("draft", state["draft"])
        tail = prompts.template("writer_revise").substitute(
            round=state.get("round", 0),
            draft_tag=tag,
            draft_block=block,
            points=_points(state),
        )
    return [{"role": "system", "content": system}, {"role": "user", "content": task + tail}]


def critic_messages(state: LoopState, rubric: Rubric) -> list[dict[str, str]]:
    system = prompts.template("critic_system").substitute(
        house_rules=house_rules_of(state).text, rubric=rubric.as_prompt()
    )
    deviations = state.get("deviations") or []
    block = ""
    if deviations:
        block = prompts.template("critic_deviations").substitute(
            items=_bullets([f"{d['point']}: {d['reason']}" for d in deviations])
        )
    tag, draft_block = fence("draft", state.get("draft", ""))
    task = prompts.template("critic_task").substitute(
        _brief_fields(state), draft_tag=tag, draft_block=draft_block, deviations_block=block
    )
    return [{"role": "system", "content": system}, {"role": "user", "content": task}]


def repair_messages(state: LoopState, draft: str, task: str) -> list[dict[str, str]]:
    """One small change to `draft` (batch.loop.writing.repairs): the brief first, as in the writer's
    prompt, then the draft as it stands, then the one task."""
    system = prompts.template("repair_system").substitute(house_rules=house_rules_of(state).text)
    fields = _brief_fields(state)
    tag, block = fence("draft", draft)
    user = prompts.template("repair_task").substitute(
        brief_id=fields["brief_id"],
        title_line=fields["title_line"],
        brief_block=fields["brief_block"],
        source_block=fields["source_block"],
        facts_block=fields["facts_block"],
        draft_tag=tag,
        draft_block=block,
        task=task,
    )
    return [{"role": "system", "content": system}, {"role": "user", "content": user}]


def doc_messages(state: LoopState, name: Any) -> list[dict[str, str]]:
    """One public name of a Python file to document (batch.loop.writing.docwriter.Name): what the
    module is for, the name's own code and the code of what it calls, and never the
    code of the file's other names, whose behaviour would bleed into its summary
    (a `slugify` said to number its slugs as `unique_slug` does)."""
    brief = brief_of(state)
    module_doc = _module_docstring(brief.source_text)
    tag, block = fence(
        "source",
        (f'"""{module_doc}"""\n\n' if module_doc else "")
        + (name.calls or "(it calls nothing else of the file)"),
    )
    short = name.qualname.split(".")[-1]
    instance = (
        prompts.fragment("doc_instance", owner=name.qualname.split(".")[0], short=short)
        if name.kind == "method"
        else ""
    )
    user = prompts.template("doc_name").substitute(
        file=brief.origin_name,
        source_tag=tag,
        source_block=block,
        kind=name.kind,
        signature=name.signature,
        code_block=fence("code", name.code)[1],
        short=short,
        instance=instance,
        call=f"{short}({name.arguments})" if name.kind != "class" else name.signature,
        params=", ".join(f"`{p}`" for p in name.parameters) or "none (an empty list)",
    )
    return [
        {"role": "system", "content": prompts.template("doc_system").substitute()},
        {"role": "user", "content": user},
    ]


def _module_docstring(source: str) -> str:
    try:
        return (ast.get_docstring(ast.parse(source)) or "").strip()
    except SyntaxError:
        return ""


def finalizer_messages(text: str) -> list[dict[str, str]]:
    return [
        {"role": "system", "content": prompts.template("finalizer").substitute()},
        {"role": "user", "content": text},
    ]
