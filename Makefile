# `make demo` and `make test` each set up the virtualenv first (once; again when
# pyproject.toml changes). llama-cpp-python builds from source: ~4 minutes the first time.
VENV ?= .venv
PYTHON ?= python3
BIN = $(VENV)/bin

.PHONY: setup demo test lint bench

setup: $(VENV)/.installed

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	CMAKE_BUILD_PARALLEL_LEVEL=$$(nproc) $(BIN)/python -m pip install -e '.[embedded,embedded-1.5b,cluster,test]'
	touch $@

demo: setup
	$(BIN)/briefloop run examples/briefs

test: setup
	$(BIN)/ruff check batch tests bench
	$(BIN)/python tests/test_imports.py
	$(BIN)/python -m pytest

lint: setup
	$(BIN)/ruff check batch tests bench
	$(BIN)/python tests/test_imports.py

bench: setup
	$(BIN)/python -m bench
