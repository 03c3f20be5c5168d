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
