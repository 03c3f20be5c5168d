"""Prompt templates: every sentence a model reads, kept out of code.

`$name` fields are filled by batch.prompting and the modules that ask a model
(string.Template; a literal dollar is `$$`). A file's line breaks are the prompt's: a
long line stays one line. A block template (a message, or a section of one) ends with
its last line's newline; a fragment (part of a line, or a whole message such as the
retry turns) is filled with `fragment`, which drops the file's final newline. Every
file is listed in `TEMPLATES`, and tests/prompting/test_prompt_texts.py renders each one.
"""

from __future__ import annotations

from functools import cache
from importlib import resources
from string import Template

# Every template in batch/prompts/: all of it is instruction text a draft must not
# contain (see instruction_texts).
TEMPLATES = (
    # the writer's, the critic's and the finalizer's messages
    "writer_system",
    "writer_task",
    "writer_first",
    "writer_revise",
    "writer_afresh",
    "critic_system",
    "critic_task",
    "finalizer",
    # the blocks and lines filled into them
    "brief_title",
    "brief_source",
    "brief_length_min",
    "brief_length_max",
    "brief_length_range",
    "brief_facts",
    "brief_notes",
    "checklist_must",
    "checklist_ask",
    "checklist_gap",
    "checklist_missing",
    "checklist_api",
    "checklist_sign",
    "point_must_fix",
    "point_suggestion",
    "points_none",
    "critic_deviations",
    # batch.inputs.briefs: the brief of a source file to document
    "source_task",
    # batch.models.base: the turn after an invalid or cut-off answer
    "retry_invalid",
    "retry_shorter",
    "retry_runaway",
    # batch.models.base.write: the turn after a plain-text answer that ran away
    "retry_repeating",
    "retry_cut_off",
    # batch.loop.writing.repairs: one small change asked of the writer
    "repair_system",
    "repair_task",
    "repair_rewrite",
    "repair_fact",
    "repair_state",
    "repair_placeholder_rewrite",
    "repair_placeholder_state",
    "repair_shorten",
    "repair_lengthen",
    # batch.loop.writing.docwriter: API docs of a Python file, one public name at a time
    "doc_system",
    "doc_name",
    "doc_instance",
)


@cache
def template(name: str) -> Template:
    return Template(resources.files("batch.prompts").joinpath(f"{name}.md").read_text("utf-8"))


def fragment(name: str, /, **fields: object) -> str:
    """A template filled in, without the file's final newline: for a part of a line or
    a message of its own. (A block template ends its last line: use template().)"""
    return template(name).substitute(fields).removesuffix("\n")
