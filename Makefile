# `make demo` and `make test` each set up the virtualenv first (once; again when
# pyproject.toml changes). llama-cpp-python builds from source: ~4 minutes the first time.
VENV ?= .venv
PYTHON ?= python3
BIN = $(VENV)/bin
# llama.cpp is built for this CPU (-march=native), which on an Intel Xeon with AMX
# (4th generation and later) turns on its AMX kernels; they crash the process in the
# first matrix multiply (ggml-org/llama.cpp#20824). Explicit -mno-* flags win over
# -march=native. --no-cache-dir: pip's cache of built wheels ignores CMAKE_ARGS, and a
# wheel built before this would come back.
NO_AMX = -mno-amx-tile -mno-amx-int8 -mno-amx-bf16
LLAMA_CMAKE_ARGS = $(if $(filter x86_64,$(shell uname -m)),-DCMAKE_C_FLAGS="$(NO_AMX)" -DCMAKE_CXX_FLAGS="$(NO_AMX)")

# The system programs the demo needs besides Python, a compiler and cmake: installed
# when this machine lets us (apt-get as root or through password-less sudo), else named
# with the one command that installs them, and setup stops. Then the sandbox is tried
# for real: examples in API docs run only inside it. NO_SANDBOX=1 goes on without it,
# and every doc whose examples could not be run then waits for a person, saying so.
DEMO_NEEDS = 'bwrap:bubblewrap:examples in API docs run in its sandbox' \
	'prlimit:util-linux:the limits an example runs under'

.PHONY: setup demo test lint bench

setup: $(VENV)/.installed
	@scripts/system-packages $(if $(NO_SANDBOX),--optional) $(DEMO_NEEDS)
	@$(BIN)/briefloop doctor --only sandbox || { [ -n "$(NO_SANDBOX)" ] && \
		echo "make setup: going on without the sandbox (NO_SANDBOX=1)" >&2; } || { \
		echo "make setup: fix the line above, or run 'make setup NO_SANDBOX=1' to go on" \
		"without running the examples of API docs" >&2; exit 1; }

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	CMAKE_ARGS='$(LLAMA_CMAKE_ARGS)' CMAKE_BUILD_PARALLEL_LEVEL=$$(nproc) \
		$(BIN)/python -m pip install --no-cache-dir -e '.[embedded,embedded-1.5b,cluster,test]'
	touch $@

demo: setup
	$(BIN)/briefloop run examples/briefs

test: lint
	$(BIN)/python -m pytest

# ruff's lint and format, the types ([tool.mypy]) and the layer contract
# (tests/project/test_imports.py)
lint: setup
	$(BIN)/ruff check batch tests bench
	$(BIN)/ruff format --check batch tests bench
	$(BIN)/mypy batch
	$(BIN)/python tests/project/test_imports.py

bench: setup
	$(BIN)/python -m bench
