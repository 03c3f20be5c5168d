"""Hand-written expectations of finished texts (bench/expect/*.yaml), applied apart
from the loop's own checks.

    python -m bench expect [TEXT_DIR]     # every expectation against texts on disk

The loop keeps whatever its checks like better, so a benchmark scored by those checks
says nothing about them. These expectations are written by a person from each brief
alone (bench/expect/README.md says how), and this module reads them with its own
plain rules: regular expressions, the brief's numbers, the placeholders. It imports
nothing from `batch`, on purpose.
"""

from __future__ import annotations

import argparse
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

REPO = Path(__file__).resolve().parent.parent
EXPECT = REPO / "bench" / "expect"
USABLE_OUTCOMES = frozenset({"approved", "awaiting_human", "approved_by_human", "held"})

_PLACEHOLDER = re.compile(r"\[([A-Z][A-Z ]*?)\s+NEEDED:\s*([^\]]*)\]")
_DIGITS = re.compile(r"\d+(?:[.,]\d+)*")
_FENCE = re.compile(r"```.*?(?:```|\Z)", re.DOTALL)
_INLINE_CODE = re.compile(r"`[^`\n]*`")
_WORDS = re.compile(r"[^\W_]+(?:['’-][^\W_]+)*")


@dataclass
class Expectation:
    brief_id: str
    brief: Path
    facts: list[dict[str, Any]] = field(default_factory=list)
    gaps: list[dict[str, Any]] = field(default_factory=list)
    may_ask: list[str] = field(default_factory=list)
    must_not: list[dict[str, Any]] = field(default_factory=list)
    no_copy: list[str] = field(default_factory=list)
    max_words: int | None = None
    min_words: int | None = None

    @property
    def documents_code(self) -> bool:
        return self.brief.suffix != ".md" and self.brief.suffix != ".txt"


def load(path: Path) -> Expectation:
    data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    return Expectation(
        brief_id=path.stem,
        brief=REPO / data["brief"],
        facts=data.get("facts") or [],
        gaps=data.get("gaps") or [],
        may_ask=data.get("may_ask") or [],
        must_not=data.get("must_not") or [],
        no_copy=data.get("no_copy") or [],
        max_words=data.get("max_words"),
        min_words=data.get("min_words"),
    )


def load_all(folder: Path = EXPECT) -> dict[str, Expectation]:
    return {p.stem: load(p) for p in sorted(folder.glob("*.yaml"))}


def plain(text: str) -> str:
    """The text as the patterns see it: no bold, italics or code marks, one space for
    every run of white space."""
    text = text.replace("`", "").replace("*", "")
    text = re.sub(r"(?<!\w)_+|_+(?!\w)", "", text)
    return " ".join(text.split())


def _numbers(text: str) -> set[str]:
    return {m.group(0).replace(",", "") for m in _DIGITS.finditer(text)}


def _brief_numbers(text: str) -> set[str]:
    """The numbers of a brief, and the other fair ways of writing its clock times:
    "15:00" may be "3 pm", "08:00" "8 am"."""
    out = _numbers(text)
    for hour in re.findall(r"\b(\d{1,2})[:.]\d{2}\b", text):
        out |= {str(int(hour)), str(int(hour) % 12 or 12)}
    return out


def _found(patterns: list[str], text: str) -> bool:
    return any(re.search(p, text, re.IGNORECASE) for p in patterns)


def broken(exp: Expectation, text: str) -> list[str]:
    """Every expectation `text` breaks, each as a line a person can check."""
    brief_text = exp.brief.read_text(encoding="utf-8")
    body = text
    if body.startswith("---\n"):  # an output file: its front matter is not the text
        body = body.split("---\n", 2)[2] if body.count("---\n") >= 2 else body
    flat = plain(body)
    out: list[str] = []
    for fact in exp.facts:
        if not _found(fact["match"], flat):
            out.append(f"fact left out: {fact['say']}")
    holes = [(label, inner.strip()) for label, inner in _PLACEHOLDER.findall(body)]
    for gap in exp.gaps:
        if not any(re.search(gap["placeholder"], inner, re.IGNORECASE) for _, inner in holes):
            out.append(f"gap not a placeholder: {gap['say']}")
    for label, inner in holes:
        fair = [g["placeholder"] for g in exp.gaps] + list(exp.may_ask)
        if not any(re.search(p, inner, re.IGNORECASE) for p in fair):
            out.append(
                f"placeholder for what the brief gives or nobody asked: [{label} NEEDED: {inner}]"
            )
    for claim in exp.must_not:
        for p in claim["match"]:
            m = re.search(p, flat, re.IGNORECASE)
            if m:
                out.append(f"claim it must not make: {claim['say']} ({m.group(0)!r})")
                break
    for order in exp.no_copy:
        m = re.search(order, flat, re.IGNORECASE)
        if m:
            out.append(f"the brief's instruction copied: {m.group(0)!r}")
    prose = _PLACEHOLDER.sub(" ", body)
    if exp.documents_code:  # example results come from running the code
        prose = _INLINE_CODE.sub(" ", _FENCE.sub(" ", prose))
    invented = sorted(_numbers(prose) - _brief_numbers(brief_text), key=len)
    if invented:
        out.append(f"numbers no source gives: {', '.join(invented[:6])}")
    words = len(_WORDS.findall(body))
    if exp.max_words and words > exp.max_words:
        out.append(f"too long: {words} words, at most {exp.max_words}")
    if exp.min_words and words < exp.min_words:
        out.append(f"too short: {words} words, at least {exp.min_words}")
    return out


def usable(outcome: str, problems: list[str]) -> bool:
    """Approved or waiting for a person, and meeting every expectation."""
    return outcome in USABLE_OUTCOMES and not problems


def texts_in(folder: Path) -> dict[str, tuple[str, Path]]:
    """brief id -> (outcome, file) of the texts a run left in an output folder: the
    approved ones at its top, the rest in needs-work/."""
    out: dict[str, tuple[str, Path]] = {}
    for path in sorted(folder.glob("*.md")):
        out[path.stem] = ("approved", path)
    for path in sorted((folder / "needs-work").glob("*.md")):
        head = path.read_text(encoding="utf-8").split("---\n", 2)
        reason = re.search(r"(?m)^stop_reason:\s*(\S+)", head[1]) if len(head) > 2 else None
        out[path.stem] = (reason.group(1) if reason else "needs-work", path)
    return out


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bench expect",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "texts",
        nargs="?",
        type=Path,
        default=REPO / "bench" / "results" / "loop-texts",
        help="an output folder (default: the last `bench loop`'s texts)",
    )
    args = parser.parse_args(argv)
    expectations = load_all()
    found = texts_in(args.texts)
    good = 0
    for brief_id, (outcome, path) in found.items():
        exp = expectations.get(brief_id)
        if exp is None:
            print(f"{brief_id}: no expectations written")
            continue
        problems = broken(exp, path.read_text(encoding="utf-8"))
        good += usable(outcome, problems)
        mark = "usable" if usable(outcome, problems) else "NOT usable"
        print(f"{brief_id}: {outcome}, {mark}" + "".join(f"\n    - {p}" for p in problems))
    print(f"\n{good} of {len(found)} usable by the hand-written expectations")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
