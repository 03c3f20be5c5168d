"""Every benchmark module imports: a benchmark is run by hand, seldom, so a broken
import would otherwise be found only by whoever next needs its numbers."""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench"


@pytest.mark.parametrize(
    "module", sorted(p.stem for p in BENCH.glob("*.py") if p.stem != "__main__")
)
def test_every_benchmark_module_imports(module):
    importlib.import_module(f"bench.{module}")


def test_the_batch_bench_times_parts_the_package_has():
    """bench/run.py wraps the package's functions by name: a move or a rename must move
    its wraps too (a name it no longer finds fails here, not in a run by hand)."""
    from bench.run import instrument

    timers = instrument()
    timers.restore()
