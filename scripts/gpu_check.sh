#!/usr/bin/env bash
# scripts/gpu_check.sh OUTDIR - the project's one-shot GPU check.
#
# On a machine with an NVIDIA GPU (the lent H200, an RTX PRO 6000 Blackwell box, ...): build every
# kernel family for this GPU, then execute every notebook that has `#| gpu` cells in "gpu-only"
# mode (export/import cells + gpu cells; the CPU emulator tests are CI's job), keeping their
# outputs (measured numbers, plots, with GPU name and date) in the notebooks. Writes to OUTDIR:
#   gpu_check.log        everything printed
#   summary.txt          one line per step (PASS/FAIL, seconds) - printed last
#   notebooks.tgz        the executed notebooks (copy them back into nbs/ to keep the outputs)
#   nvidia-smi.txt       the card as found
#   check/               verify-kernel check's report.md, check.json and plots (step 0)
# Budget: under 8 minutes on one H200 (each notebook's gpu cells are sized for it).
# Dependencies: uses .venv/bin/python if present, else python3 plus .gpu_payload/ (made here by
# scripts/prepare_gpu_payload.sh and carried to the device machine) installed to /tmp/vk_site.
set -uo pipefail
OUT=${1:?usage: scripts/gpu_check.sh OUTDIR}
mkdir -p "$OUT"; OUT=$(cd "$OUT" && pwd)
cd "$(dirname "$0")/.."
export PYTHONUNBUFFERED=1
export CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
exec > >(tee "$OUT/gpu_check.log") 2>&1
summary="$OUT/summary.txt"; : > "$summary"
step() { # step NAME CMD... : run, time, record PASS/FAIL
  local name=$1; shift; local t0=$(date +%s)
  echo "=== $name"
  if "$@"; then echo "PASS $name ($(( $(date +%s)-t0 )) s)" >> "$summary"
  else echo "FAIL $name ($(( $(date +%s)-t0 )) s)" >> "$summary"; fi
}
t_start=$(date +%s)
date -u +"date: %Y-%m-%d %H:%M UTC"
nvidia-smi > "$OUT/nvidia-smi.txt" 2>&1 || echo "nvidia-smi failed"
head -15 "$OUT/nvidia-smi.txt"

if [ -x .venv/bin/python ]; then PY=.venv/bin/python
else
  PY=python3
  if [ -d .gpu_payload ]; then
    $PY -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/vk_site .gpu_payload/wheels/*.whl \
      && tar -C /tmp/vk_site -xzf .gpu_payload/sglang-*-py.tgz \
      || echo "WARNING: installing .gpu_payload failed"
    export PYTHONPATH=/tmp/vk_site:$PWD${PYTHONPATH:+:$PYTHONPATH}
  else
    echo "WARNING: no .venv and no .gpu_payload: notebooks need fastcore<2 and execnb<0.2 (run scripts/prepare_gpu_payload.sh here and carry .gpu_payload)"
    export PYTHONPATH=$PWD${PYTHONPATH:+:$PYTHONPATH}
  fi
fi
$PY - <<'PY'
import torch, sys, platform
print('python', platform.python_version(), '| torch', torch.__version__, '| cuda', torch.version.cuda)
if torch.cuda.is_available():
    p = torch.cuda.get_device_properties(0)
    print(f'GPU: {p.name}, cc {p.major}.{p.minor}, {p.multi_processor_count} SMs, {p.total_memory/2**30:.0f} GiB')
try:
    import triton; print('triton', triton.__version__)
except Exception as e: print('triton unavailable:', e)
PY

# 0. the one ordered verdict (verify-kernel check: emulator fidelity, kernel parity at serving sizes,
#    SGLang's kit, CUDA graph capture, benchmark; stops at the first failing layer): report.md + check.json
step "verify-kernel check (trust order)" timeout 480 $PY -c "import sys; from verify_kernel.cli import main; sys.exit(main(['check', '--out', '$OUT/check']))"
[ -f "$OUT/check/report.md" ] && head -30 "$OUT/check/report.md"

# 1. every kernel family built for this GPU, in parallel (16 cores there; the notebooks then load
#    them from torch's extension cache). Failures show the compiler's errors.
build_family() { # build_family MODULE ATTR
  $PY -c "import time; from verify_kernel import build; import importlib
f = getattr(importlib.import_module('$1'), '$2'); t = time.time(); build.load(f, 'cuda')
print(f'  built {f.name} for {build.build_archs()} in {time.time()-t:.0f} s')"
}
build_all() {
  local pids=() rc=0
  build_family verify_kernel.build PROBE & pids+=($!)
  build_family verify_kernel.flash FLASH & pids+=($!)
  build_family verify_kernel.paged PAGED & pids+=($!)
  $PY -c "from verify_kernel import simt; import time; t=time.time(); from verify_kernel import build; simt.load_selftest('cuda', build.build_archs()); print(f'  built the SIMT self-test for the GPU in {time.time()-t:.0f} s')" & pids+=($!)
  for p in "${pids[@]}"; do wait $p || rc=1; done
  return $rc
}
step "build kernel families for this GPU" build_all

# 2. the gpu cells of every notebook that has them (outputs kept in the notebooks)
nbs=$(grep -l '^ *"#| gpu' nbs/*.ipynb 2>/dev/null | sort)   # notebooks with gpu-flagged code cells
for nb in $nbs; do
  step "gpu cells of $(basename $nb)" timeout 420 $PY scripts/execute_nb.py --gpu-only --flags "gpu" "$nb"
done
tar -czf "$OUT/notebooks.tgz" $nbs 2>/dev/null

echo; echo "=== summary (total $(( $(date +%s)-t_start )) s)"; cat "$summary"
! grep -q '^FAIL' "$summary"
