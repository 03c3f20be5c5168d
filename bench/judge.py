"""The judged benchmark: does a verdict tell a correct draft from a broken one?

    python -m bench judge [--config FILE] [--models NAME,NAME] [--limit N] [--data DIR]

Data in bench/judge/: briefs, and per brief correct drafts and one-defect variants, each
labelled `expect: approve | reject` with its defect class. Every draft is judged the way
the loop judges a round (the checks node, then the critic) and the verdict is computed
for each way of weighing the critic:

- code:        the code checks alone (= the "advice" mode: the model's points do not
               change the verdict, whichever model gives them)
- gate:        code checks + the critic model's score and must_fix
- model alone: the critic model's score and must_fix without the code checks, to show
               what the model's opinion is worth by itself

Per configured model and mode it reports the detection rate per defect class, correct
drafts approved, defective drafts rejected, balanced accuracy and seconds per judgment.
Results: bench/results/judge.json and the table in bench/results/judge.md.

`--data DIR` judges another set of the same layout instead: a project's own reversals,
the automatic approvals its people reopened (briefloop's `paths.judged`, default
`judged/`), written to DIR/results/.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import statistics
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

import yaml

from batch import config as config_mod
from batch.inputs.briefs import load_brief_file, split_front_matter
from batch.loop import checking
from batch.loop.answers import critic_schema
from batch.loop.verdict import verdict
from batch.models import CallStat, ModelSet, ask
from batch.prompting import critic_messages
from batch.run.starting import start_state
from batch.thread_inputs import limits_of, rubric_of

REPO = Path(__file__).resolve().parent.parent
DATA = REPO / "bench" / "judge"
RESULTS = REPO / "bench" / "results"
PACKAGED = ("qwen2.5-coder-0.5b-instruct", "qwen2.5-coder-1.5b-instruct")
# Each model's answer per critic prompt (keyed by the prompt's hash), so a change to the
# code checks is measured again without asking the models again.
ANSWERS_FILE = RESULTS / "judge-answers.json"
ANSWERS: dict[str, dict[str, Any]] = (
    json.loads(ANSWERS_FILE.read_text()) if ANSWERS_FILE.exists() else {}
)


def load_cases(data: Path = DATA) -> list[dict[str, Any]]:
    """Every labelled draft with the brief it answers."""
    briefs = {}
    for path in sorted((data / "briefs").iterdir()):
        brief = load_brief_file(path, 1_000_000)
        briefs[brief.id] = brief
    cases = []
    for folder in sorted((data / "drafts").iterdir()):
        for path in sorted(folder.glob("*.md")):
            meta, body = split_front_matter_free(path.read_text(encoding="utf-8"))
            cases.append(
                {
                    "brief": briefs[folder.name],
                    "name": f"{folder.name}/{path.stem}",
                    "expect": meta["expect"],
                    "defect": meta.get("defect") or "none",
                    "claim": meta.get("claim", ""),
                    "needs": meta.get("needs_from_human") or [],
                    "deviations": meta.get("deliberate_deviations") or [],
                    "draft": body.strip(),
                }
            )
    return cases


def split_front_matter_free(text: str) -> tuple[dict[str, Any], str]:
    """Draft files carry their own keys (expect, defect...), not a brief's."""
    try:
        return split_front_matter(text)
    except ValueError:
        head, body = text.split("\n---", 1)
        return yaml.safe_load(head.removeprefix("---\n")), body.split("\n", 1)[1]


def judge_state(settings: config_mod.Settings, case: dict[str, Any]) -> dict[str, Any]:
    state, _ = start_state(settings, case["brief"])
    state.update(
        round=1, draft=case["draft"], needs_from_human=case["needs"], deviations=case["deviations"]
    )
    return state


def verdicts(state: dict[str, Any], answer: Any | None) -> dict[str, dict[str, Any]]:
    """approve/reject per mode for one judged draft."""
    threshold = limits_of(state).threshold
    findings = state["findings"]
    code_must = [f for f in findings if f["severity"] == "must_fix"]
    # a hold waits for a person: the machine approves nothing held
    held = [f for f in findings if f["severity"] == "hold"]
    out = {
        "code": {
            "approve": not code_must and not held,
            "fired": sorted({f["code"] for f in [*code_must, *held]}),
        }
    }
    if answer is None:
        return out
    gate = verdict(state, answer, "gate")
    out["gate"] = {"approve": gate["meets_bar"], "score": gate["score"]}
    rubric = rubric_of(state)
    score = rubric.weighted_score(answer.scores.model_dump())
    out["model alone"] = {"approve": score >= threshold and not answer.must_fix, "score": score}
    return out


def metrics(rows: list[dict[str, Any]], mode: str) -> dict[str, Any]:
    good = [r for r in rows if r["expect"] == "approve"]
    bad = [r for r in rows if r["expect"] == "reject"]
    approved = sum(r["verdicts"][mode]["approve"] for r in good)
    rejected = sum(not r["verdicts"][mode]["approve"] for r in bad)
    per_class: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for r in bad:
        per_class[r["defect"]][0] += not r["verdicts"][mode]["approve"]
        per_class[r["defect"]][1] += 1
    tpr = approved / len(good) if good else 0.0
    tnr = rejected / len(bad) if bad else 0.0
    return {
        "correct_approved": f"{approved}/{len(good)}",
        "correct_approved_rate": round(tpr, 3),
        "defective_rejected": f"{rejected}/{len(bad)}",
        "defective_rejected_rate": round(tnr, 3),
        "balanced_accuracy": round((tpr + tnr) / 2, 3),
        "detection_by_class": {k: round(v[0] / v[1], 3) for k, v in sorted(per_class.items())},
        "detected_by_class": {k: f"{v[0]}/{v[1]}" for k, v in sorted(per_class.items())},
    }


def critic_settings(base: config_mod.Settings, model: str) -> config_mod.Settings:
    """The configured critic, or a packaged embedded model by name in its place."""
    if model == "config":
        return base
    critic = base.models.critic.model_copy(update={"provider": "embedded", "model": model})
    models = base.models.model_copy(update={"critic": critic})
    return base.model_copy(update={"models": models})


def run(
    config: str | None, models: list[str], limit: int | None, data: Path = DATA
) -> dict[str, Any]:
    base = config_mod.load(config or REPO / "config" / "briefloop.toml")
    cases = load_cases(data)
    cases = cases[:limit] if limit else cases
    if not cases:
        raise SystemExit(f"{data}: no labelled drafts in drafts/<brief id>/")
    states = []
    for case in cases:
        state = judge_state(base, case)
        started = time.perf_counter()
        state["findings"] = checking.findings_update(state)["findings"]
        case["check_seconds"] = time.perf_counter() - started
        states.append(state)
    code_rows = [
        {
            "name": c["name"],
            "expect": c["expect"],
            "defect": c["defect"],
            "verdicts": verdicts(s, None),
        }
        for c, s in zip(cases, states, strict=True)
    ]
    code_seconds = sum(c["check_seconds"] for c in cases) / len(cases)
    result: dict[str, Any] = {
        "drafts": len(cases),
        "briefs": len({c["brief"].id for c in cases}),
        "modes": {
            "code checks (= advice mode, any model)": {
                **metrics(code_rows, "code"),
                "seconds_per_judgment": round(code_seconds, 4),
            }
        },
        "misjudged": {
            "code": [
                r["name"]
                for r in code_rows
                if r["verdicts"]["code"]["approve"] != (r["expect"] == "approve")
            ]
        },
        "fired": {r["name"]: r["verdicts"]["code"]["fired"] for r in code_rows},
    }
    for model in models:
        settings = critic_settings(base, model)
        model_set = ModelSet(settings.models, settings.path(settings.paths.model_cache))
        critic = model_set.get("critic")
        rows, seconds, invalid = [], [], 0
        cache = ANSWERS.setdefault(critic.name, {})
        for i, (case, state) in enumerate(zip(cases, states, strict=True), 1):
            rubric = rubric_of(state)
            messages = critic_messages(state, rubric)
            key = hashlib.sha256(json.dumps(messages).encode()).hexdigest()[:16]
            stats: list[CallStat] = []
            started = time.perf_counter()
            answer = None
            if key in cache:  # the same prompt to the same model: its recorded answer
                seconds.append(cache[key]["seconds"])
                if cache[key]["answer"] is not None:
                    answer = critic_schema(rubric).model_validate(cache[key]["answer"])
                else:
                    invalid += 1
            else:
                try:
                    answer = ask(critic, "critic", messages, critic_schema(rubric), stats)
                except Exception as e:  # noqa: BLE001 - an invalid answer is a reject, counted
                    invalid += 1
                    print(f"  {case['name']}: critic failed: {e}", flush=True)
                seconds.append(time.perf_counter() - started)
                cache[key] = {
                    "seconds": round(seconds[-1], 2),
                    "answer": None if answer is None else answer.model_dump(),
                }
                ANSWERS_FILE.write_text(json.dumps(ANSWERS, indent=1) + "\n")
            v = verdicts(state, answer)
            if answer is None:  # an unparseable answer is never an approval
                v["gate"] = v["model alone"] = {"approve": False, "score": None}
            rows.append(
                {
                    "name": case["name"],
                    "expect": case["expect"],
                    "defect": case["defect"],
                    "verdicts": v,
                }
            )
            print(
                f"  [{model}] {i}/{len(cases)} {case['name']}: expect {case['expect']}, "
                f"gate {'approve' if v['gate']['approve'] else 'reject'} "
                f"(score {v['gate']['score']}), {seconds[-1]:.1f}s",
                flush=True,
            )
        label = critic.name
        # the median: one judgment slowed by other work on the machine does not move it
        per_call = round(statistics.median(seconds), 2)
        for mode in ("gate", "model alone"):
            result["modes"][f"{label} {mode}"] = {
                **metrics(rows, mode),
                "seconds_per_judgment": per_call,
                "invalid_answers": invalid,
            }
        result["misjudged"][f"{label} gate"] = [
            r["name"]
            for r in rows
            if r["verdicts"]["gate"]["approve"] != (r["expect"] == "approve")
        ]
        result.setdefault("scores", {})[label] = {
            r["name"]: r["verdicts"]["gate"]["score"] for r in rows
        }
    return result


def table(result: dict[str, Any]) -> str:
    classes = sorted({k for m in result["modes"].values() for k in m["detection_by_class"]})
    head = [
        "mode",
        "correct approved",
        "defective rejected",
        "balanced accuracy",
        "s / judgment",
        *classes,
    ]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for name, m in result["modes"].items():
        cells = [
            name,
            m["correct_approved"],
            m["defective_rejected"],
            f"{m['balanced_accuracy']:.2f}",
            f"{m['seconds_per_judgment']:g}",
        ]
        cells += [m["detected_by_class"].get(c, "-") for c in classes]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m bench judge",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--config", help="config file whose critic is judged as 'config'")
    parser.add_argument(
        "--models",
        default=",".join(PACKAGED),
        help="critic models to judge with, comma-separated: packaged "
        "embedded model names, 'config' for the configured critic, "
        "or '' for the code checks only (default: both packaged)",
    )
    parser.add_argument("--limit", type=int, help="judge only the first N drafts")
    parser.add_argument(
        "--data",
        type=Path,
        default=DATA,
        help="a folder of briefs/ and drafts/<brief id>/ to judge, e.g. a "
        "project's judged/ (default: bench/judge)",
    )
    args = parser.parse_args(argv)
    models = [m for m in args.models.split(",") if m.strip()]
    result = run(args.config, models, args.limit, args.data)
    results = RESULTS if args.data == DATA else args.data / "results"
    results.mkdir(parents=True, exist_ok=True)
    (results / "judge.json").write_text(json.dumps(result, indent=2) + "\n")
    md = table(result)
    (results / "judge.md").write_text(md)
    print(md)
