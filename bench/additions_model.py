"""What the word count cannot see: can the embedded model?

    python -m bench additions-model [--model NAME] [--threads N]

The Additions check counts the words a sentence adds (bench/additions). A sentence that
says a given fact differently with one new word ("The refund will be processed within
5 working days" for "the money reaches the card within 5 working days") is below its
threshold, and so are as many supported paraphrases. This asks the embedded model, of
every labelled sentence with exactly one added word (glue left out), "Does the brief say
this, or plainly imply it?" (bench/claims_model's question: log P(yes) - log P(no)),
and reports how well that separates the invented ones (hard and soft) from the supported
ones: the area under the ROC curve (0.5 is a coin) and each sentence's score.
Results: bench/results/additions-model.json and .md.
"""

from __future__ import annotations

import argparse
import json
import time
from typing import Any

import yaml

from batch import config as config_mod
from batch.inputs.briefs import load_brief_file
from batch.models.gguf import verified_model_path
from bench.additions import INVENTED, LABELS, REPO, scored_sentences
from bench.claims_model import Scorer, auc

RESULTS = REPO / "bench" / "results"


def run(model_name: str, threads: int) -> dict[str, Any]:
    rows = [r for r in scored_sentences() if r["added"] == 1 and r["label"] != "glue"]
    briefs: dict[str, str] = {}
    for path in LABELS.glob("*.yaml"):
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        brief = load_brief_file(REPO / data["brief"], 1_000_000)
        briefs[path.stem] = f"{brief.title}\n{brief.text}".strip()
    settings = config_mod.load(REPO / "config" / "briefloop.toml", environ={})
    scorer = Scorer(
        verified_model_path(model_name, settings.path(settings.paths.model_cache)), threads
    )
    started = time.perf_counter()
    rows.sort(key=lambda r: r["text"])  # one brief's prompt evaluated once for its sentences
    for r in rows:
        r["ask"] = round(scorer.ask(briefs[r["text"]], r["say"]), 3)
    invented = [r["ask"] for r in rows if r["label"] in INVENTED]
    supported = [r["ask"] for r in rows if r["label"] == "supported"]
    return {
        "model": model_name,
        "sentences": len(rows),
        "invented": len(invented),
        "supported": len(supported),
        "auc": round(auc(invented, supported), 3),
        "seconds": round(time.perf_counter() - started, 1),
        "rows": [
            {k: r[k] for k in ("text", "n", "label", "added_words", "ask", "say")}
            for r in sorted(rows, key=lambda r: r["ask"])
        ],
    }


def markdown(result: dict[str, Any]) -> str:
    lines = [
        "# Sentences with one added word: the embedded model's yes/no",
        "",
        f"{result['sentences']} labelled sentences ({result['invented']} invented, "
        f"{result['supported']} supported), model {result['model']}: AUC "
        f"**{result['auc']}** (a low score flags; 0.5 is a coin), {result['seconds']} s.",
        "",
        "| score | label | text | sentence |",
        "|---:|---|---|---|",
    ]
    lines += [
        f"| {r['ask']} | {r['label']} | {r['text']}#{r['n']} | {r['say'][:90]} |"
        for r in result["rows"]
    ]
    return "\n".join(lines) + "\n"


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bench additions-model",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--model", default="qwen2.5-coder-1.5b-instruct")
    parser.add_argument("--threads", type=int, default=0, help="llama.cpp threads (0: all)")
    args = parser.parse_args(argv)
    result = run(args.model, args.threads)
    (RESULTS / "additions-model.json").write_text(json.dumps(result, indent=2) + "\n")
    (RESULTS / "additions-model.md").write_text(markdown(result))
    print(markdown(result).split("\n\n")[1])
    return 0
