"""`briefloop check`: a text of one's own judged against its brief by the loop's checks."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click
from rich.markup import escape

from batch.cli.base import UserError, cli, load_settings, out, user_errors
from batch.inputs.briefs import load_brief_file, read_text_file
from batch.run.text_check import EXIT_CODES, TextVerdict, judge_text

_HEADINGS = (
    ("must_fix", "must fix"),
    ("holds", "waits for a person"),
    ("would_improve", "would improve"),
)


def print_verdict(v: TextVerdict) -> None:
    out.print(
        f"{v.outcome}: score {v.score:.1f} (bar {v.threshold:.0f}), "
        f"{len(v.must_fix)} must fix, {len(v.holds)} for a person",
        highlight=False,
        soft_wrap=True,
    )
    for attr, heading in _HEADINGS:
        found = getattr(v, attr)
        if found:
            out.print(f"{heading}:", highlight=False)
            for f in found:
                out.print(f"  - {escape(f['message'])}", highlight=False, soft_wrap=True)
    if v.needs_from_human:
        out.print("a person fills in:", highlight=False)
        for p in v.needs_from_human:
            out.print(f"  - {escape(p)}", highlight=False, soft_wrap=True)


@cli.command()
@click.argument("brief", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.argument("text", type=click.Path(exists=True, dir_okay=False, allow_dash=True))
@click.option("--json", "as_json", is_flag=True, help="Print the verdict as JSON.")
@click.pass_context
@user_errors
def check(ctx: click.Context, brief: Path, text: str, as_json: bool) -> None:
    """Judge TEXT (a file, or - for standard input) against BRIEF with the checks the
    loop judges its drafts by: what must be fixed, what waits for a person, and the
    facts a person still fills in. No model is asked.

    Exit code: 0 approved, 3 held for a person, 4 refused (2: the input could not be
    read)."""
    settings = load_settings(ctx)
    limit = settings.loop.max_brief_bytes
    try:
        parsed = load_brief_file(brief, limit)
    except (OSError, ValueError) as e:
        raise UserError(f"brief {brief}: {e}") from None
    try:
        body = sys.stdin.read() if text == "-" else read_text_file(Path(text), limit)
    except (OSError, ValueError) as e:
        raise UserError(f"text {text}: {e}") from None
    if not body.strip():
        raise UserError(f"text {text}: the text is empty")
    verdict = judge_text(settings, parsed, body)
    if as_json:
        out.print_json(json.dumps(verdict.as_json()))
    else:
        print_verdict(verdict)
    sys.exit(EXIT_CODES[verdict.outcome])
