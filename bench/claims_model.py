"""Invented claims: does a signal from the embedded writer model tell them apart?

    python -m bench claims-model [--model NAME] [--loop-texts]

Code alone does not separate an invented claim ("it is dishwasher safe") from a
sentence that turns a given fact into a benefit (bench claims). Two signals from the
model the loop already loads, measured side by side:

- pmi: how much more likely the model finds the sentence after the brief than after
  an empty brief, per token: log P(sentence | brief) - log P(sentence | no brief),
  averaged over its tokens (pointwise mutual information). A sentence the brief
  supports should gain from it; an invented one should not.
- ask: the model asked "Does the brief say this?" about the sentence; the signal is
  log P(" yes") - log P(" no") of its next token.

Labelled sentences: the judged set's invented claims (the `claim:` of each
invented_claim draft) against every sentence of its correct drafts of text briefs,
and the hand-written set in bench/claims/sentences.yaml (supported vs invented).
For each signal: the area under the ROC curve (1.0 separates perfectly, 0.5 is a
coin) and, at each threshold, the share of invented sentences flagged and of
supported ones flagged. Results: bench/results/claims-model.json and .md.

--loop-texts scores pmi instead for every sentence of the texts the last `bench loop`
approved (bench/results/loop-texts), lowest first, to be read beside the claims a
person found in them: bench/results/claims-loop.json and .md.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any

import yaml

from batch import config as config_mod
from batch.inputs.briefs import load_brief_file
from batch.judging import wording
from batch.models.gguf import verified_model_path
from bench.judge import load_cases

REPO = Path(__file__).resolve().parent.parent
RESULTS = REPO / "bench" / "results"
SENTENCES = REPO / "bench" / "claims" / "sentences.yaml"
CONTEXT = 2048
_SYSTEM = "You write short texts for readers, from the brief you are given."


def labelled() -> list[dict[str, Any]]:
    """(brief text, sentence, invented?, set) for every labelled sentence."""
    out: list[dict[str, Any]] = []
    for case in load_cases():
        brief = case["brief"]
        if brief.kind == "source":
            continue
        source = f"{brief.title}\n{brief.text}".strip()
        if case["defect"] == "invented_claim" and case["claim"]:
            lead = case["claim"][:30]
            said = [s for s in wording.sentences(case["draft"]) if lead in s]
            out += [
                {
                    "brief": source,
                    "sentence": s,
                    "invented": True,
                    "set": "judged",
                    "name": case["name"],
                }
                for s in said[:1]
            ]
        elif case["defect"] == "none":
            out += [
                {
                    "brief": source,
                    "sentence": s,
                    "invented": False,
                    "set": "judged",
                    "name": case["name"],
                }
                for s in wording.sentences(case["draft"])
                if len(wording.WORD.findall(s)) >= 5
                and "NEEDED" not in s
                and not s.lstrip().startswith("#")
            ]
    for entry in yaml.safe_load(SENTENCES.read_text(encoding="utf-8")):
        brief = load_brief_file(REPO / entry["brief"], 1_000_000)
        source = f"{brief.title}\n{brief.text}".strip()
        for key, invented in (("supported", False), ("invented", True)):
            out += [
                {
                    "brief": source,
                    "sentence": s,
                    "invented": invented,
                    "set": "hand-written",
                    "name": brief.id,
                }
                for s in entry[key]
            ]
    return out


class Scorer:
    """Log-probabilities of text after a prompt, from one llama.cpp model, reusing the
    evaluated prompt across the sentences that share it."""

    def __init__(self, path: Path, threads: int):
        # its own Llama, not the loop's shared one: scoring needs every position's logits
        from llama_cpp import Llama

        self.llama = Llama(
            model_path=str(path),
            n_ctx=CONTEXT,
            n_threads=threads or None,
            logits_all=True,
            verbose=False,
        )
        self._evaluated: list[int] = []

    def _chat(self, user: str, answer_start: str = "") -> str:
        return (
            f"<|im_start|>system\n{_SYSTEM}<|im_end|>\n<|im_start|>user\n{user}"
            f"<|im_end|>\n<|im_start|>assistant\n{answer_start}"
        )

    def logprob(self, prompt: str, text: str) -> tuple[float, int]:
        """(sum of log P of `text`'s tokens after `prompt`, their number). The tokens the
        last call evaluated are reused as far as they agree, as llama.cpp's own cache
        does, so sentences scored after the same brief pay for it once."""
        prefix = self.llama.tokenize(prompt.encode("utf-8"), add_bos=False, special=True)
        tokens = self.llama.tokenize(text.encode("utf-8"), add_bos=False, special=False)
        full = prefix + tokens
        same = 0
        for a, b in zip(self._evaluated, full[:-1], strict=False):
            if a != b:
                break
            same += 1
        self.llama.n_tokens = same
        self.llama.eval(full[same:])
        self._evaluated = full
        import numpy as np

        rows = np.asarray(self.llama.scores[len(prefix) - 1 : len(full) - 1], dtype=np.float64)
        top = rows.max(axis=1, keepdims=True)
        norm = (top + np.log(np.exp(rows - top).sum(axis=1, keepdims=True)))[:, 0]
        picked = rows[np.arange(len(tokens)), tokens]
        return float((picked - norm).sum()), len(tokens)

    def given(self, brief: str, sentence: str) -> float:
        """log P(sentence | brief) per token."""
        lp, n = self.logprob(self._chat(f"Brief:\n{brief}\n\nWrite the text."), " " + sentence)
        return lp / max(1, n)

    def alone(self, sentence: str) -> float:
        """log P(sentence | no brief) per token."""
        lp, n = self.logprob(self._chat("Brief:\n(none)\n\nWrite the text."), " " + sentence)
        return lp / max(1, n)

    def ask(self, brief: str, sentence: str) -> float:
        question = (
            f"Brief:\n{brief}\n\nSentence: {sentence}\n\nDoes the brief say this, "
            f"or plainly imply it? Answer yes or no."
        )
        prompt = self._chat(question)
        yes, _ = self.logprob(prompt, "yes")
        no, _ = self.logprob(prompt, "no")
        return yes - no


def auc(invented: list[float], supported: list[float]) -> float:
    """P(a supported sentence scores above an invented one): the area under the ROC
    curve when a low score flags a sentence."""
    if not invented or not supported:
        return float("nan")
    wins = sum((s > i) + 0.5 * (s == i) for s in supported for i in invented)
    return wins / (len(invented) * len(supported))


def roc_rows(invented: list[float], supported: list[float]) -> list[dict[str, Any]]:
    """At each threshold (a sentence scoring below it is flagged): the share of each."""
    rows = []
    for t in sorted(set(invented + supported)):
        rows.append(
            {
                "threshold": round(t, 3),
                "invented_flagged": sum(i < t for i in invented),
                "supported_flagged": sum(s < t for s in supported),
            }
        )
    return rows


def run(model_name: str, threads: int) -> dict[str, Any]:
    settings = config_mod.load(REPO / "config" / "briefloop.toml", environ={})
    path = verified_model_path(model_name, settings.path(settings.paths.model_cache))
    scorer = Scorer(path, threads)
    items = labelled()
    started = time.perf_counter()
    # grouped by prompt, so each brief's tokens are evaluated once for all its sentences
    items.sort(key=lambda i: i["brief"])
    for n, item in enumerate(items, 1):
        item["given"] = scorer.given(item["brief"], item["sentence"])
        item["ask"] = round(scorer.ask(item["brief"], item["sentence"]), 4)
        if n % 10 == 0:
            print(f"{n}/{len(items)} sentences ({time.perf_counter() - started:.0f} s)", flush=True)
    for item in items:
        item["pmi"] = round(item.pop("given") - scorer.alone(item["sentence"]), 4)
    result: dict[str, Any] = {
        "model": model_name,
        "sentences": len(items),
        "seconds": round(time.perf_counter() - started, 1),
        "signals": {},
    }
    for signal in ("pmi", "ask"):
        per_set = {}
        for name in ("judged", "hand-written", "all"):
            mine = [i for i in items if name == "all" or i["set"] == name]
            inv = [i[signal] for i in mine if i["invented"]]
            sup = [i[signal] for i in mine if not i["invented"]]
            per_set[name] = {
                "invented": len(inv),
                "supported": len(sup),
                "auc": round(auc(inv, sup), 3),
                "roc": roc_rows(inv, sup),
            }
        result["signals"][signal] = per_set
    result["items"] = [{k: v for k, v in i.items() if k != "brief"} for i in items]
    return result


def table(result: dict[str, Any]) -> str:
    lines = [
        "| signal | set | invented | supported | AUC | best threshold: invented "
        "flagged / supported flagged |",
        "|---|---|---|---|---|---|",
    ]
    for signal, sets in result["signals"].items():
        for name, r in sets.items():
            # the threshold that flags most invented sentences while flagging at most
            # one supported sentence in ten
            ok = [row for row in r["roc"] if row["supported_flagged"] * 10 <= r["supported"]]
            best = max(ok, key=lambda row: row["invented_flagged"], default=None)
            cell = (
                f"{best['invented_flagged']}/{r['invented']} / "
                f"{best['supported_flagged']}/{r['supported']} (below {best['threshold']})"
                if best
                else "-"
            )
            lines.append(
                f"| {signal} | {name} | {r['invented']} | {r['supported']} | {r['auc']} | {cell} |"
            )
    return "\n".join(lines) + "\n"


def loop_sentences() -> list[dict[str, Any]]:
    """(brief, sentence) for each sentence of five words or more of the text briefs the
    last `bench loop` approved."""
    from bench.expectations import texts_in
    from bench.loop import DEFAULT_BRIEFS

    briefs = {}
    for folder in DEFAULT_BRIEFS:
        for path in sorted(folder.glob("*.md")):
            brief = load_brief_file(path, 1_000_000)
            briefs[brief.id] = f"{brief.title}\n{brief.text}".strip()
    out = []
    for brief_id, (outcome, path) in texts_in(RESULTS / "loop-texts").items():
        if outcome != "approved" or brief_id not in briefs:
            continue
        text = path.read_text(encoding="utf-8").split("---\n", 2)[-1]
        out += [
            {"brief_id": brief_id, "brief": briefs[brief_id], "sentence": s}
            for s in wording.sentences(text)
            if len(wording.WORD.findall(s)) >= 5 and not s.lstrip().startswith("#")
        ]
    return out


def run_loop_texts(model_name: str, threads: int) -> dict[str, Any]:
    settings = config_mod.load(REPO / "config" / "briefloop.toml", environ={})
    scorer = Scorer(
        verified_model_path(model_name, settings.path(settings.paths.model_cache)), threads
    )
    items = loop_sentences()
    started = time.perf_counter()
    for item in items:
        item["given"] = scorer.given(item["brief"], item["sentence"])
    for item in items:
        item["pmi"] = round(item.pop("given") - scorer.alone(item["sentence"]), 3)
        del item["brief"]
    items.sort(key=lambda i: i["pmi"])
    return {
        "model": model_name,
        "sentences": len(items),
        "seconds": round(time.perf_counter() - started, 1),
        "items": items,
    }


def loop_table(result: dict[str, Any]) -> str:
    lines = ["| pmi | brief | sentence |", "|---|---|---|"]
    lines += [
        f"| {i['pmi']} | {i['brief_id']} | {i['sentence'].replace('|', '/')} |"
        for i in result["items"]
    ]
    return "\n".join(lines) + "\n"


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m bench claims-model",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--model",
        default="qwen2.5-coder-1.5b-instruct",
        help="a packaged embedded model (default: the writer's)",
    )
    parser.add_argument("--threads", type=int, default=0)
    parser.add_argument(
        "--loop-texts",
        action="store_true",
        help="score every sentence of the last bench loop's approved texts",
    )
    args = parser.parse_args(argv)
    RESULTS.mkdir(parents=True, exist_ok=True)
    if args.loop_texts:
        found = run_loop_texts(args.model, args.threads)
        (RESULTS / "claims-loop.json").write_text(json.dumps(found, indent=2) + "\n")
        (RESULTS / "claims-loop.md").write_text(loop_table(found))
        print(
            f"{found['sentences']} sentences in {found['seconds']} s: bench/results/claims-loop.md"
        )
        return
    result = run(args.model, args.threads)
    (RESULTS / "claims-model.json").write_text(json.dumps(result, indent=2) + "\n")
    (RESULTS / "claims-model.md").write_text(table(result))
    print(table(result))
