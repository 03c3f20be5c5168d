"""What an extra first draft costs: best-of-N sampling with the embedded writer.

    python -m bench drafts [--config FILE] [--samples N]

For each example brief the writer's first-draft prompt is sent N times in a row, each
on another seed and warmer, as `loop.drafts = N` does (without stopping at the first
that passes, so every sample is timed). The embedded model keeps the prompt it has just
processed in its KV cache, so a repeat of the same prompt should cost its generation
only. Reported per sample: model seconds, prompt and answer tokens; and the ratio of an
extra sample's seconds to the first's. Results: bench/results/drafts.json.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path
from typing import Any

from batch import config as config_mod
from batch.inputs.briefs import Brief
from batch.inputs.sources import scan_source
from batch.loop.writing.round import SAMPLE_WARMING
from batch.models import CallStat, ModelSet, Sampling, write
from batch.prompting import writer_messages
from batch.run.starting import start_state

REPO = Path(__file__).resolve().parent.parent
RESULTS = REPO / "bench" / "results"


def run(config: str | None, samples: int) -> dict[str, Any]:
    cfg = Path(config) if config else REPO / "config" / "briefloop.toml"
    settings = config_mod.load(cfg, overrides={"log.format": "none"}, environ={})
    models = ModelSet(settings.models, settings.path(settings.paths.model_cache))
    writer = models.get("writer")
    base = models.settings_for("writer")
    briefs = [
        b
        for b in scan_source(str(REPO / "examples" / "briefs"), 1_000_000).briefs
        if isinstance(b, Brief) and b.kind != "source"
    ]
    rows = []
    for brief in briefs:
        state, _ = start_state(settings, brief)
        messages = writer_messages(state)
        for sample in range(samples):
            stats: list[CallStat] = []
            sampling = (
                None
                if sample == 0
                else Sampling(
                    temperature=base.temperature + SAMPLE_WARMING * sample, seed=base.seed + sample
                )
            )
            started = time.perf_counter()
            write(writer, "writer", messages, stats, sampling)
            rows.append(
                {
                    "brief": brief.id,
                    "sample": sample + 1,
                    "seconds": round(time.perf_counter() - started, 2),
                    "input_tokens": sum(s.input_tokens for s in stats),
                    "output_tokens": sum(s.output_tokens for s in stats),
                    "calls": len(stats),
                }
            )
            print(rows[-1], flush=True)
    first = [r["seconds"] for r in rows if r["sample"] == 1]
    extra = [r["seconds"] for r in rows if r["sample"] > 1]
    per_token_first = [r["seconds"] / max(1, r["output_tokens"]) for r in rows if r["sample"] == 1]
    per_token_extra = [r["seconds"] / max(1, r["output_tokens"]) for r in rows if r["sample"] > 1]
    return {
        "model": writer.name,
        "samples": samples,
        "rows": rows,
        "median_first_seconds": statistics.median(first),
        "median_extra_seconds": statistics.median(extra) if extra else None,
        "median_seconds_per_answer_token_first": round(statistics.median(per_token_first), 4),
        "median_seconds_per_answer_token_extra": round(statistics.median(per_token_extra), 4)
        if extra
        else None,
    }


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m bench drafts",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--config", help="config file (default: config/briefloop.toml)")
    parser.add_argument("--samples", type=int, default=3, help="drafts per brief (3)")
    args = parser.parse_args(argv)
    result = run(args.config, args.samples)
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "drafts.json").write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps({k: v for k, v in result.items() if k != "rows"}, indent=2))
