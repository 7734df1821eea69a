# verify_kernel: two commands for a fresh machine (see README.md)
#   make demo   set up .venv, then run the main job (verify-kernel check)
#   make test   set up .venv, then every CPU test (export in sync, clean notebooks, every notebook under
#               nbdev's test_nb (cuda_build cells too), the rendered docs in headless Chromium), two at a
#               time; writes out/test-results.txt and out/test-timings.md
#   make test-all  the same with the `#| slow` cells as well; writes out/test-all-results.txt
#   make docs   render the notebooks into _docs/ (Quarto where installed, nbconvert otherwise)
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
export CUDA_HOME ?= /usr/local/cuda

.PHONY: venv demo test test-all check full clean export nbclean help docs chromium

help:
	@echo "make demo  - set up, then run the main job (verify-kernel check)"
	@echo "make test  - set up, then run every CPU test"
	@echo "make test-all - make test plus the slow cells"
	@echo "make docs  - render the engineering log into _docs/"

# The venv is rebuilt only when the requirement files change (idempotent).
$(STAMP): requirements.txt requirements-nodeps.txt setup.py settings.ini
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q -r requirements.txt 2>&1 | grep -v "is ignored" || true
	$(BIN)/pip install -q --no-deps -r requirements-nodeps.txt 2>&1 | grep -v "is ignored\|requires\|dependency resolver" || true
	$(BIN)/pip install -q --no-deps -e . 2>&1 | grep -v "is ignored" || true
	$(BIN)/python -c "import torch, nbdev, triton; from importlib.metadata import version as v; print('venv ready: torch', torch.__version__, '| triton', triton.__version__, '| nbdev', v('nbdev'), '| sglang', v('sglang'))"
	@touch $(STAMP)

venv: $(STAMP)

demo: venv
	$(BIN)/verify-kernel check

full: venv
	$(BIN)/verify-kernel check --full

test: venv chromium
	@$(BIN)/python scripts/run_tests.py

test-all: venv chromium
	@$(BIN)/python scripts/run_tests.py --all

docs: venv
	$(BIN)/verify-kernel-docs render

# Debian's Chromium for the docs' browser check; when it cannot be installed the check says so and fails.
chromium:
	@command -v chromium >/dev/null 2>&1 || { echo "installing Debian's chromium for the browser check ..."; \
	  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium) >/dev/null 2>&1 \
	  || echo "could not install chromium (apt-get failed): the browser check will fail"; }

export: venv
	$(BIN)/nbdev_export

nbclean: venv
	$(BIN)/nbdev_clean

clean:
	rm -rf build dist *.egg-info _docs _proc out
