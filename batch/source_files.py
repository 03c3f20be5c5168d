"""What kind of file a source to document is. The one place that decides it, for
folders, sheets and every reader of exports: `CALC.PY` is Python as `calc.py` is."""

from __future__ import annotations

from pathlib import PurePath

SOURCE_SUFFIXES = frozenset(
    {
        ".py",
        ".js",
        ".mjs",
        ".ts",
        ".tsx",
        ".jsx",
        ".go",
        ".rs",
        ".java",
        ".kt",
        ".c",
        ".h",
        ".cc",
        ".cpp",
        ".hpp",
        ".cs",
        ".rb",
        ".php",
        ".swift",
        ".scala",
        ".sh",
        ".sql",
        ".lua",
    }
)


def suffix_of(name: str | PurePath) -> str:
    """The file name's suffix, lower-cased: ".py" for "CALC.PY"."""
    return PurePath(str(name)).suffix.lower()


def is_source(name: str | PurePath) -> bool:
    return suffix_of(name) in SOURCE_SUFFIXES


def is_python(name: str | PurePath) -> bool:
    return suffix_of(name) == ".py"
