"""Checks of API docs against the code they document: the names and signatures they
present, the examples they show (run in the sandbox), and, for a language whose
examples are not run, whether its exported names could be read at all."""

from __future__ import annotations

from batch.check_types import Finding
from batch.judging import doc_examples
from batch.judging.apidocs import check_api_docs
from batch.judging.bleed import check_bleed
from batch.judging.checks.base import Check, CheckContext
from batch.judging.exports import coverage_problem


class ApiDocs(Check):
    """Every name and signature the docs present is the code's own: a documented
    function, method or class that the file does not define, or a shown signature whose
    parameters, order or defaults differ from the real one (the message gives the real
    one), is a must-fix. The documented file's own name (`# savings.py`) is the source
    itself, not an invented name."""

    codes = ("api-invented", "api-signature", "api-parameter")

    def applies(self, ctx: CheckContext) -> bool:
        return ctx.documents_python

    def run(self, ctx: CheckContext) -> list[Finding]:
        return check_api_docs(ctx.draft, ctx.source_code, ctx.module)


class Bleed(Check):
    """A name's docs that speak of what only another name of the file does: a word of
    the other's identifier ("unique" of `unique_slug` in the docs of `slugify`) that
    nothing of its own code, docstring or callees has."""

    codes = ("api-bleed",)
    repairs = frozenset({"rewrite"})

    def applies(self, ctx: CheckContext) -> bool:
        return ctx.documents_python

    def run(self, ctx: CheckContext) -> list[Finding]:
        return check_bleed(ctx.draft, ctx.source_code)


class Examples(Check):
    """Every example of the docs, run against the real module, gives the result it
    shows (batch.judging.doc_examples)."""

    codes = (
        "example",
        "example-none",
        "example-refused",
        "example-directive",
        "example-unchecked",
        "example-timeout",
        "example-harness",
        "example-unverified",
    )

    def applies(self, ctx: CheckContext) -> bool:
        return ctx.documents_python

    def run(self, ctx: CheckContext) -> list[Finding]:
        return self.verify(ctx)[0]

    def verify(self, ctx: CheckContext) -> tuple[list[Finding], str | None]:
        run = doc_examples.verify(ctx.draft, ctx.source_code, ctx.module, ctx.source_path)
        return list(run.findings), run.note


class Coverage(Check):
    """A source file in another language: its exported names are items of the checklist
    (Requirements checks them); the run record says whether they could be read."""

    scored = False

    def applies(self, ctx: CheckContext) -> bool:
        return ctx.documents_source and not ctx.documents_python

    def run(self, ctx: CheckContext) -> list[Finding]:
        return []

    def verify(self, ctx: CheckContext) -> tuple[list[Finding], str | None]:
        problem = coverage_problem(ctx.source_suffix)
        if problem:
            return [], f"coverage not checked: {problem}"
        return [], (
            f"coverage of {len(ctx.checklist)} exported name(s) checked; "
            f"examples are run for Python only"
        )
