#!/usr/bin/env bash
# Prepare .gpu_payload/ (git-ignored) for scripts/gpu_check.sh on a lent GPU machine, which has
# python3 3.12 with torch/triton/nvcc but no network and none of our Python dependencies.
# Contents: pure-Python wheels (nbdev 2 stack for executing notebooks, SGLang's light import
# deps) and the Python sources of sglang 0.5.23 (its wheel is cp311-only and 39 MB; we need its
# .py files, imported the way verify_kernel.sglang_support does, plus the JIT kernels' include/ and csrc/ trees, whose presence
# sglang.kernels.jit checks at import time). pyzmq: sglang.srt.utils imports zmq at module top, and the device image has
# none, nor apache-tvm-ffi (sglang.kernels.jit), pydantic (SGLang's Triton attention ops), astunparse (nbdev) or IPython
# (execnb, to run the notebooks' gpu cells): found 2026-12-04 by importing under torch 2.11 / triton 3.6, the device image's
# versions, and on the first lent H200 run. Carry it with the run:
#   run(command="scripts/gpu_check.sh $OUT", carry=[".gpu_payload"])
set -euo pipefail
cd "$(dirname "$0")/.."
P=.gpu_payload
rm -rf "$P"; mkdir -p "$P/wheels"
PY=.venv/bin/python
$PY -m pip download -q --no-deps --only-binary=:all: -d "$P/wheels" \
  nbdev==2.4.14 execnb==0.1.18 fastcore==1.14.5 ghapi==1.0.16 \
  openai==2.8.0 partial_json_parser dill loguru gguf compressed-tensors==0.18.0 sniffio distro astunparse==1.6.3 \
  pydantic==2.14.4 annotated-types==0.8.0 typing-inspection==0.4.5 \
  ipython==9.18.1 ipython_pygments_lexers traitlets jedi parso prompt_toolkit wcwidth stack_data asttokens executing pure_eval \
  matplotlib-inline pexpect ptyprocess 2>&1 | grep -v "is ignored" || true
# compiled packages sglang.srt.utils imports: wheels for the device image's CPython 3.12
$PY -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
  --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 \
  --platform manylinux1_x86_64 -d "$P/wheels" msgspec orjson pybase64 pyzmq apache-tvm-ffi==0.1.11 pydantic_core==2.50.5 2>&1 | grep -v "is ignored" || true
SG=$($PY -c "import importlib.util, pathlib; print(pathlib.Path(importlib.util.find_spec('sglang').origin).parent.parent)")
tar -C "$SG" -czf "$P/sglang-0.5.23-py.tgz" --exclude='__pycache__' \
  $(cd "$SG" && { find sglang -name '*.py' -not -path '*/multimodal_gen/*'; find sglang/kernels/jit/include sglang/kernels/jit/csrc -type f -not -name '*.pyc'; } | sort)
du -sh "$P"/* | sed 's/^/  /'
echo "payload ready in $P ($(du -sh $P | cut -f1)); the working tree + payload must stay under 64 MiB"
