"""The soak benchmark (bench/soak.py), shortened: a few hundred briefs through three
workers while one is SIGKILLed twice and Redis and PostgreSQL restart once each. Every
brief comes out exactly once: in the run log, in output/, in the sheet; a repeated
model call is only one cut off in flight."""

from __future__ import annotations

import pytest

from bench import soak

pytestmark = [pytest.mark.cluster, pytest.mark.slow]

BRIEFS, WORKERS, KILLS = 300, 3, 2


def test_a_shortened_soak_loses_and_doubles_nothing(postgres_server, redis_server):
    out = soak.soak(
        postgres_server,
        redis_server,
        BRIEFS,
        WORKERS,
        KILLS,
        latency=0.02,
        log_folder=postgres_server.folder,
    )
    assert sorted(f["fault"] for f in out["faults"]) == ["kill"] * KILLS + [
        "restart postgres",
        "restart redis",
    ]
    assert out["batch"] == {"status": "finished", "counts": {"approved": BRIEFS}}
    assert (out["run_log_rows"], out["briefs_in_run_log"], out["briefs_twice_in_run_log"]) == (
        BRIEFS,
        BRIEFS,
        0,
    )
    assert out["ended"] == {"finished/approved": BRIEFS}
    assert (out["texts_in_output"], out["briefs_with_a_text"], out["briefs_with_two_texts"]) == (
        BRIEFS,
        BRIEFS,
        0,
    )
    assert (out["sheet_rows"], out["briefs_in_sheet"]) == (BRIEFS, BRIEFS)
    assert out["ledger"] == {"done": BRIEFS}
    # at most the call each killed worker, and each worker cut off by the database's
    # restart, had in flight
    assert 0 <= out["calls_repeated"] <= KILLS + WORKERS
    assert out["memory"]["rss_mb_at_end"] - out["memory"]["rss_mb_at_tenth"] < 50
