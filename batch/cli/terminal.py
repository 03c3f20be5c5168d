"""What reaches a terminal: text from briefs, drafts, reviewers and file names never
carries a control character. An escape sequence in a title could clear the screen,
rewrite what was printed, or plant a link (OSC 8) that reads as something else.

Everything the commands print goes through one of these: the consoles (SafeConsole),
and JSON (json_for_terminal). Rich's own styling and cursor codes are kept; only the
text they style is cleaned.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from rich.console import Console, ConsoleOptions, RenderableType
from rich.markup import escape
from rich.segment import Segment
from rich.table import Table

from batch.draft_cleanup import TERMINAL_CONTROLS


def for_terminal(text: str) -> str:
    """`text` with every control character shown as U+FFFD, so that it is seen, not
    obeyed."""
    return TERMINAL_CONTROLS.sub("\ufffd", text)


def json_for_terminal(text: str) -> str:
    """JSON text (json.dumps with ensure_ascii=False) with the control characters JSON
    leaves as they are (DEL, C1, bidi overrides) written as \\u escapes: the same data,
    nothing a terminal obeys."""
    return TERMINAL_CONTROLS.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


class SafeConsole(Console):
    """A rich Console that cleans the text of everything it renders: strings, tables,
    Text objects, progress descriptions."""

    def render(
        self, renderable: RenderableType, options: ConsoleOptions | None = None
    ) -> Iterable[Segment]:
        for segment in super().render(renderable, options):
            if segment.control:
                yield segment  # rich's own cursor moves (a live progress bar)
            else:
                yield Segment(for_terminal(segment.text), segment.style)


Column = tuple[str, int, Callable[[Any], str]]  # name, least width (0: its longest), value


def fitted_table(
    columns: list[Column], rows: list[Any], width: int, whole: tuple[str, ...] = ()
) -> Table:
    """A table of `rows` that fits `width` terminal columns: the columns in the order
    given, each with at least its width, the last ones left out rather than every one
    folded to a few letters. Columns named in `whole` are never folded."""
    chosen: list[tuple[str, Callable[[Any], str]]] = []
    used = 1  # the table's outer border
    for name, least, value in columns:
        least = least or max((len(value(r)) for r in rows), default=len(name))
        if chosen and used + least + 3 > width:
            break
        chosen.append((name, value))
        used += least + 3
    table = Table(show_header=True)
    for name, _ in chosen:
        table.add_column(name, overflow="fold", no_wrap=name in whole)
    for r in rows:
        table.add_row(*(escape(value(r)) for _, value in chosen))
    return table
