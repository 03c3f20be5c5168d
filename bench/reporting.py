"""What a benchmark that writes one result shares: its command line (where the JSON
goes) and writing the JSON and its Markdown report."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any


def results_args(prog: str, doc: str | None, default_json: Path, argv: list[str]) -> Path:
    """The command line of a benchmark that writes one result: where its JSON goes (its
    Markdown beside it)."""
    parser = argparse.ArgumentParser(
        prog=prog, description=doc, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--json", type=Path, default=default_json)
    return Path(parser.parse_args(argv).json)


def save_results(result: dict[str, Any], json_path: Path, markdown: str) -> None:
    """The result as JSON, its report as Markdown beside it, and the report printed."""
    json_path.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    json_path.with_suffix(".md").write_text(markdown, encoding="utf-8")
    print(markdown)
