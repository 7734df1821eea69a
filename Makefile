# verify_kernel: two commands for a fresh machine (see README.md)
#   make demo   set up .venv, then run the main job (verify-kernel check)
#   make test   set up .venv, then every CPU test (export in sync, clean notebooks, every notebook under
#               nbdev's test_nb (cuda_build cells too), the rendered docs in headless Chromium), two at a
#               time; writes out/test-results.txt and out/test-timings.md
#   make test-all  the same with the `#| slow` cells as well; writes out/test-all-results.txt
#   make docs   render the notebooks into _docs/ (Quarto where installed, nbconvert otherwise)
#   make venv-vllm  .venv-vllm: vLLM 0.33.0's own environment (it pins torch 2.14.0; .venv has 2.14.1 for SGLang)
#   make test-vllm  set up .venv-vllm, then the vLLM chapter's tests there (nbs/04b_vllm.ipynb with --flags vllm)
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
export CUDA_HOME ?= /usr/local/cuda

.PHONY: venv demo test test-all check full clean export nbclean help docs chromium venv-vllm test-vllm

help:
	@echo "make demo  - set up, then run the main job (verify-kernel check)"
	@echo "make test  - set up, then run every CPU test"
	@echo "make test-all - make test plus the slow cells"
	@echo "make docs  - render the engineering log into _docs/"
	@echo "make venv-vllm - set up .venv-vllm (vLLM 0.33.0's own environment)"
	@echo "make test-vllm - set up .venv-vllm, then run the vLLM chapter's tests in it"

# The venv is rebuilt only when the requirement files change (idempotent).
$(STAMP): requirements.txt requirements-nodeps.txt setup.py settings.ini
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q -r requirements.txt 2>&1 | grep -v "is ignored" || true
	$(BIN)/pip install -q --no-deps -r requirements-nodeps.txt 2>&1 | grep -v "is ignored\|requires\|dependency resolver" || true
	$(BIN)/pip install -q --no-deps -e . 2>&1 | grep -v "is ignored" || true
	$(BIN)/python -c "import torch, nbdev, triton; from importlib.metadata import version as v; print('venv ready: torch', torch.__version__, '| triton', triton.__version__, '| nbdev', v('nbdev'), '| sglang', v('sglang'))"
	@touch $(STAMP)

venv: $(STAMP)

# vLLM 0.33.0 pins torch==2.14.0 exactly (and torchvision, torchaudio, flashinfer-python): its own venv, with this
# package installed editable there too (--no-deps: its requirements are in requirements-vllm.txt).
VVENV := .venv-vllm
VBIN := $(VVENV)/bin
VSTAMP := $(VVENV)/.installed
$(VSTAMP): requirements-vllm.txt setup.py settings.ini
	@test -x $(VBIN)/python || $(PYTHON) -m venv $(VVENV)
	$(VBIN)/pip install -q -r requirements-vllm.txt 2>&1 | grep -v "is ignored" || true
	$(VBIN)/pip install -q --no-deps -e . 2>&1 | grep -v "is ignored" || true
	$(VBIN)/python -c "import torch, vllm, triton; from importlib.metadata import version as v; print('venv-vllm ready: vllm', vllm.__version__, '| torch', torch.__version__, '| triton', triton.__version__)"
	@touch $(VSTAMP)

venv-vllm: $(VSTAMP)

# The vLLM chapter's cells flagged `vllm` (skipped by make test) in .venv-vllm, on the CPU: no CUDA device visible
# (vLLM then imports as UnspecifiedPlatform and keeps the real triton, whose interpreter runs its Triton MLA kernels),
# and its own torch-extension cache (the emulated kernel is built against this venv's torch). Writes out/test-vllm-results.txt.
VK_VLLM_EXT ?= $(or $(TORCH_EXTENSIONS_DIR),$(HOME)/.cache/torch_extensions)/venv-vllm
test-vllm: venv-vllm
	@mkdir -p out
	@start=$$(date +%s); CUDA_VISIBLE_DEVICES= TRITON_INTERPRET=1 TORCH_EXTENSIONS_DIR=$(VK_VLLM_EXT) \
	  $(VBIN)/python scripts/nb_test.py nbs/04b_vllm.ipynb --flags vllm --timings out/timings-test-vllm/04b_vllm--vllm.json \
	  > out/test-vllm-log.txt 2>&1; rc=$$?; secs=$$(( $$(date +%s) - start )); tail -40 out/test-vllm-log.txt; \
	  if [ $$rc -eq 0 ]; then r=PASS; else r=FAIL; fi; \
	  echo "$$r 04b_vllm.ipynb [--flags vllm] in .venv-vllm ($$secs s)" | tee out/test-vllm-results.txt; \
	  if [ $$rc -eq 0 ]; then echo "1 passed, 0 failed"; else echo "0 passed, 1 failed"; fi; exit $$rc

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
