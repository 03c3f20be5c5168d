"""Additions: does a sentence's count of words no source gives point at what it invents?

    python -m bench additions [--json FILE]

The sentences of texts the loop wrote, labelled by hand before any signal was computed
on them (bench/additions/labels/, its README says how): supported, glue, or invented,
hard (a checkable fact or feature the brief does not give) or soft (a motive, a benefit,
praise). Every signal is scored **per sentence**: each invented sentence against each
supported one (the AUC: the chance that a random invented sentence scores above a random
supported one, ties counting half). Comparing one invented sentence with the *highest*
score over all sentences of a correct text, as bench/claims.py does, is a maximum over
six against one draw; it says little about the signal.

Signals, each the checks' own code (batch.judging.support):

- `added`: content words of the sentence no source gives (the brief and its title), by
  the checks' stems: what the Additions check counts;
- `added_share`: that count over the sentence's content words;
- `no_item`: 1 when the sentence carries no checklist item, else 0;
- `added_with_rules`: `added` with the rubric and the house rules as sources too.

Then, for each threshold of `added` (the one the Additions check uses is marked): the
invented sentences flagged (hard, soft), the supported and glue sentences flagged, the
texts with no invented sentence that would be held, and the texts with a hard invented
sentence that no flag catches. Results: bench/results/additions.json and .md.
"""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path
from typing import Any

import yaml

from batch import config as config_mod
from batch.inputs.briefs import load_brief_file
from batch.inputs.house_rules import load_house_rules
from batch.inputs.rubrics import load_rubric
from batch.judging.checklist import brief_checklist
from batch.judging.support import added_words, carried_items, is_glue, known_stems
from batch.judging.wording import content_terms
from bench.projects import copied_project, judged_as_draft

REPO = Path(__file__).resolve().parent.parent
LABELS = REPO / "bench" / "additions" / "labels"
RESULTS = REPO / "bench" / "results"
THRESHOLDS = (1, 2, 3, 4, 5, 6)
INVENTED = ("hard", "soft")


def auc(positive: list[float], negative: list[float]) -> float:
    """P(a random positive scores above a random negative), ties half."""
    if not positive or not negative:
        return float("nan")
    wins = 0.0
    for p in positive:
        for n in negative:
            wins += 1.0 if p > n else 0.5 if p == n else 0.0
    return wins / (len(positive) * len(negative))


def _rubric_text(name: str | None) -> str:
    """The rubric as the loop gives it to the checks (`Rubric.as_prompt`)."""
    return load_rubric(REPO / "rubrics", name or "memo").as_prompt()


def _house_rules_text(name: str | None) -> str:
    return load_house_rules(REPO / "house_rules", name or "default").text


def scored_sentences(folder: Path = LABELS) -> list[dict[str, Any]]:
    """Every labelled sentence with its signals."""
    out: list[dict[str, Any]] = []
    for path in sorted(folder.glob("*.yaml")):
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        brief = load_brief_file(REPO / data["brief"], 1_000_000)
        checklist = brief_checklist(brief.text)
        known = known_stems([brief.text, brief.title])
        with_rules = known_stems(
            [
                brief.text,
                brief.title,
                _rubric_text(brief.rubric),
                _house_rules_text(brief.house_rules),
            ]
        )
        for s in data["sentences"]:
            label = str(s.get("label") or "").strip()
            if not label:
                raise SystemExit(f"{path.name}: sentence {s['n']} is not labelled")
            added = added_words(s["say"], known)
            content = content_terms(s["say"])
            out.append(
                {
                    "text": path.stem,
                    "outcome": data.get("outcome"),
                    "n": s["n"],
                    "say": s["say"],
                    "label": label,
                    "adds": s.get("adds", ""),
                    "added_words": list(added),
                    "added": len(added),
                    "added_share": len(added) / max(1, len(content)),
                    "no_item": 0 if carried_items(s["say"], checklist) else 1,
                    "added_with_rules": len(added_words(s["say"], with_rules)),
                    "glue_rule": is_glue(s["say"]),
                }
            )
    return out


def verdicts_now(folder: Path = LABELS) -> dict[str, dict[str, Any]]:
    """Each labelled text, judged as a draft by today's checks and the loop's own verdict
    (code checks as the critic, the shipped config): whether it would now be approved
    with nobody checking it (at the bar, no must-fix, no hold: placeholders to fill are
    a person's anyway, but they are not asked to read the rest), whether it meets the
    bar before the holds, and the sentences the Additions check holds."""
    project = copied_project([], prefix="briefloop-additions-")
    settings = config_mod.load(project / "briefloop.toml")
    out: dict[str, dict[str, Any]] = {}
    for path in sorted(folder.glob("*.yaml")):
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        brief = load_brief_file(REPO / data["brief"], 1_000_000)
        draft = "\n".join(s["say"] for s in data["sentences"])
        state, judged = judged_as_draft(settings, brief, draft)
        held = [
            f
            for f in state["findings"]
            if f["code"].startswith("adds:") and not f["code"].startswith("adds:placeholder:")
        ]
        out[path.stem] = {
            "auto": bool(judged["meets_bar"]) and not judged.get("holds"),
            "meets_bar": bool(judged["meets_bar"]),
            "refused": [f["code"] for f in state["findings"] if f["severity"] == "must_fix"],
            "added_sentences": sorted(int(f["code"].split(":")[1]) for f in held),
            "score": judged["score"],
            # what each refusing or holding finding points at: its message and sentences
            "pointed": [
                f["message"] + " " + " ".join((f.get("repair") or {}).get("sentences") or [])
                for f in state["findings"]
                if f["severity"] in ("must_fix", "hold")
            ],
            "holds": [f["code"] for f in state["findings"] if f["severity"] == "hold"],
            "placeholders": len(state["needs_from_human"]),
            "unasked_placeholders": [
                f["code"] for f in state["findings"] if f["code"].startswith("adds:placeholder:")
            ],
        }
    return out


def with_every_check(rows: list[dict[str, Any]], now: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """What today's checks, all of them, make of the labelled texts: invented sentences
    that would ship with nobody looking, and correct texts a person must now see."""
    texts: dict[str, list[dict[str, Any]]] = {}
    for r in rows:
        texts.setdefault(r["text"], []).append(r)
    correct = [t for t, rs in texts.items() if not any(r["label"] in INVENTED for r in rs)]
    invented = [r for r in rows if r["label"] in INVENTED]
    shown = [
        r
        for r in invented
        if not now[r["text"]]["auto"]
        and (r["n"] in now[r["text"]]["added_sentences"] or r["added"])
    ]
    passing = [t for t in correct if now[t]["meets_bar"]]
    return {
        "texts_auto_approved": sum(1 for v in now.values() if v["auto"]),
        # the cost of the hold alone: correct texts every other check passes
        "correct_meeting_the_bar": len(passing),
        "of_those_held_for_additions": sum(1 for t in passing if not now[t]["auto"]),
        "correct_auto_approved": sum(1 for t in correct if now[t]["auto"]),
        "correct_texts": len(correct),
        "hard_shipped_unseen": [
            f"{r['text']}#{r['n']}" for r in rows if r["label"] == "hard" and now[r["text"]]["auto"]
        ],
        "soft_shipped_unseen": [
            f"{r['text']}#{r['n']}" for r in rows if r["label"] == "soft" and now[r["text"]]["auto"]
        ],
        "invented_in_texts_a_person_sees": sum(1 for r in invented if not now[r["text"]]["auto"]),
        "invented_highlighted": len(shown),
        # not marked word by word, but quoted by another check's finding (an order pasted
        # in, a signature copied): at least 60 % of the sentence's words in what it says
        "invented_named_by_a_finding": sum(
            1 for r in invented if r not in shown and _named(r, now[r["text"]]["pointed"])
        ),
        "invented": len(invented),
    }


def _named(row: dict[str, Any], pointed: list[str]) -> bool:
    words = set(re.findall(r"\w+", row["say"].lower()))
    return any(len(words & set(re.findall(r"\w+", p.lower()))) >= 0.6 * len(words) for p in pointed)


def measure(rows: list[dict[str, Any]], threshold: int) -> dict[str, Any]:
    invented = [r for r in rows if r["label"] in INVENTED]
    supported = [r for r in rows if r["label"] == "supported"]
    glue = [r for r in rows if r["label"] == "glue"]
    signals = ("added", "added_share", "no_item", "added_with_rules")
    aucs = {
        sig: {
            "invented": round(auc([r[sig] for r in invented], [r[sig] for r in supported]), 3),
            "hard": round(
                auc(
                    [r[sig] for r in invented if r["label"] == "hard"],
                    [r[sig] for r in supported],
                ),
                3,
            ),
            "soft": round(
                auc(
                    [r[sig] for r in invented if r["label"] == "soft"],
                    [r[sig] for r in supported],
                ),
                3,
            ),
        }
        for sig in signals
    }
    texts: dict[str, list[dict[str, Any]]] = {}
    for r in rows:
        texts.setdefault(r["text"], []).append(r)
    table = []
    for t in THRESHOLDS:
        flagged = [r for r in rows if r["added"] >= t and not r["glue_rule"]]
        held_correct = [
            name
            for name, rs in texts.items()
            if not any(r["label"] in INVENTED for r in rs)
            and any(r["added"] >= t and not r["glue_rule"] for r in rs)
        ]
        missed_hard = [
            name
            for name, rs in texts.items()
            if any(r["label"] == "hard" for r in rs)
            and not any(r["added"] >= t and not r["glue_rule"] for r in rs)
        ]
        table.append(
            {
                "threshold": t,
                "hard_flagged": sum(1 for r in flagged if r["label"] == "hard"),
                "soft_flagged": sum(1 for r in flagged if r["label"] == "soft"),
                "supported_flagged": sum(1 for r in flagged if r["label"] == "supported"),
                "glue_flagged": sum(1 for r in flagged if r["label"] == "glue"),
                "correct_texts_held": len(held_correct),
                "texts_with_hard_unflagged": sorted(missed_hard),
            }
        )
    correct_texts = sum(1 for rs in texts.values() if not any(r["label"] in INVENTED for r in rs))
    return {
        "texts": len(texts),
        "correct_texts": correct_texts,
        "sentences": len(rows),
        "labels": {
            k: sum(1 for r in rows if r["label"] == k) for k in ("supported", "glue", *INVENTED)
        },
        "approved_texts_with_invented": sum(
            1
            for rs in texts.values()
            if rs[0]["outcome"] == "approved" and any(r["label"] in INVENTED for r in rs)
        ),
        "approved_texts": sum(1 for rs in texts.values() if rs[0]["outcome"] == "approved"),
        "auc": aucs,
        "glue_rule": {
            "glue_caught": sum(1 for r in glue if r["glue_rule"]),
            "glue": len(glue),
            "non_glue_caught": sum(1 for r in rows if r["glue_rule"] and r["label"] != "glue"),
        },
        "threshold_used": threshold,
        "by_threshold": table,
    }


def markdown(result: dict[str, Any]) -> str:
    lines = [
        "# Additions: the words a sentence adds, per sentence",
        "",
        f"{result['sentences']} sentences of {result['texts']} texts the loop wrote, labelled "
        f"by hand: {result['labels']}. {result['approved_texts_with_invented']} of "
        f"{result['approved_texts']} approved texts carry an invented sentence.",
        "",
        "| signal | AUC invented | AUC hard | AUC soft |",
        "|---|---|---|---|",
    ]
    for sig, a in result["auc"].items():
        lines.append(f"| {sig} | {a['invented']} | {a['hard']} | {a['soft']} |")
    lines += [
        "",
        f"Greetings and closings told apart by rule: {result['glue_rule']}.",
        "",
        f"With every check of today on these texts: {result.get('every_check')}",
        "",
        f"Held out (written after the signal was fixed): {result.get('heldout')}",
        "",
        "| added >= | hard | soft | supported | glue | correct texts held | texts with a hard "
        "addition unflagged |",
        "|---|---|---|---|---|---|---|",
    ]
    for row in result["by_threshold"]:
        mark = " (used)" if row["threshold"] == result["threshold_used"] else ""
        lines.append(
            f"| {row['threshold']}{mark} | {row['hard_flagged']} | {row['soft_flagged']} | "
            f"{row['supported_flagged']} | {row['glue_flagged']} | {row['correct_texts_held']} "
            f"of {result['correct_texts']} | {len(row['texts_with_hard_unflagged'])} |"
        )
    return "\n".join(lines) + "\n"


HELDOUT = REPO / "bench" / "additions" / "heldout"


def heldout(folder: Path = HELDOUT, threshold: int = 2) -> dict[str, Any]:
    """The held-out set (bench/additions/heldout/): briefs written with a faithful and an
    embellished text each, every sentence labelled by its writer, after the signal and
    its stock words were fixed. Per sentence the AUC; per text, how many faithful texts
    the check would hold and how many embellished ones it catches."""
    rows: list[dict[str, Any]] = []
    for path in sorted(folder.glob("*.yaml")):
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        known = known_stems([data["brief"]])
        for text in data["texts"]:
            for n, s in enumerate(text["sentences"], start=1):
                added = added_words(s["say"], known)
                rows.append(
                    {
                        "text": f"{path.stem}/{text['name']}",
                        "n": n,
                        "label": s["label"],
                        "added": len(added),
                        "flagged": len(added) >= threshold and not is_glue(s["say"]),
                    }
                )
    invented = [r["added"] for r in rows if r["label"] in INVENTED]
    supported = [r["added"] for r in rows if r["label"] == "supported"]
    texts: dict[str, list[dict[str, Any]]] = {}
    for r in rows:
        texts.setdefault(r["text"], []).append(r)
    faithful = [t for t in texts if t.endswith("/faithful")]
    embellished = [t for t in texts if t.endswith("/embellished")]
    return {
        "sentences": len(rows),
        "labels": {
            k: sum(1 for r in rows if r["label"] == k) for k in ("supported", "glue", *INVENTED)
        },
        "auc_invented": round(auc(invented, supported), 3),
        "invented_flagged": sum(1 for r in rows if r["label"] in INVENTED and r["flagged"]),
        "hard_flagged": sum(1 for r in rows if r["label"] == "hard" and r["flagged"]),
        "soft_flagged": sum(1 for r in rows if r["label"] == "soft" and r["flagged"]),
        "supported_flagged": sum(1 for r in rows if r["label"] == "supported" and r["flagged"]),
        "glue_flagged": sum(1 for r in rows if r["label"] == "glue" and r["flagged"]),
        "faithful_texts_held": sum(1 for t in faithful if any(r["flagged"] for r in texts[t])),
        "faithful_texts": len(faithful),
        "embellished_texts_held": sum(
            1 for t in embellished if any(r["flagged"] for r in texts[t])
        ),
        "embellished_texts": len(embellished),
    }


def main(argv: list[str]) -> int:
    from batch.judging.checks.support import ADDED_WORDS

    parser = argparse.ArgumentParser(
        prog="python -m bench additions",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--json", type=Path, default=RESULTS / "additions.json")
    parser.add_argument("--rows", type=Path, help="also write every scored sentence here")
    args = parser.parse_args(argv)
    rows = scored_sentences()
    result = measure(rows, ADDED_WORDS)
    result["every_check"] = with_every_check(rows, verdicts_now())
    if HELDOUT.exists():
        result["heldout"] = heldout(threshold=ADDED_WORDS)
    args.json.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    args.json.with_suffix(".md").write_text(markdown(result), encoding="utf-8")
    if args.rows:
        args.rows.write_text(json.dumps(rows, indent=1) + "\n", encoding="utf-8")
    print(markdown(result))
    return 0
