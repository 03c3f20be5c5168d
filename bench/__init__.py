"""Benchmarks for briefloop: `python -m bench [name ...]` (see bench/run.py)."""
