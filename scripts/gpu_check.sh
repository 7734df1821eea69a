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
# Budget: about 12 minutes on one H200 (builds ~3 min on 16 cores, verify-kernel check ~4 min, each notebook's gpu cells sized to fit).
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

# 0. the one ordered verdict, as a GPU owner runs it: `verify-kernel build` (every family for this GPU, 4 at a time,
#    and the emulator's self-test build that check step (a) compares the GPU against), then `verify-kernel check`
#    (emulator fidelity, kernel parity at serving sizes, SGLang's kit, CUDA graph capture, benchmark; stops at the
#    first failing layer): report.md + check.json in $OUT/check. The notebooks below load the cached builds.
vk() { $PY -c "import sys; from verify_kernel.cli import main; sys.exit(main(sys.argv[1:]))" "$@"; }
step "verify-kernel build (this GPU)" vk build -j 4
step "verify-kernel build --impl simt --family selftest" vk build --impl simt --family selftest
step "verify-kernel check (trust order)" timeout 600 $PY -c "import sys; from verify_kernel.cli import main; sys.exit(main(['check', '--out', '$OUT/check']))"
[ -f "$OUT/check/report.md" ] && head -30 "$OUT/check/report.md"

# 2. the gpu cells of every notebook that has them (outputs kept in the notebooks)
nbs=$(grep -l '^ *"#| gpu' nbs/*.ipynb 2>/dev/null | sort)   # notebooks with gpu-flagged code cells
for nb in $nbs; do
  step "gpu cells of $(basename $nb)" timeout 420 $PY scripts/execute_nb.py --gpu-only --flags "gpu" "$nb"
done
tar -czf "$OUT/notebooks.tgz" $nbs 2>/dev/null

echo; echo "=== summary (total $(( $(date +%s)-t_start )) s)"; cat "$summary"
! grep -q '^FAIL' "$summary"
