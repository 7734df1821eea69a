#!/usr/bin/env bash
# scripts/gpu_check.sh OUTDIR - the project's one-shot GPU check, sized to one lent-machine call.
#
# On a machine with an NVIDIA GPU (the lent H200, an RTX PRO 6000 Blackwell box, ...): build every kernel family for this
# GPU, run `verify-kernel check` one step at a time (each step's report kept as soon as it ends), then the `#| gpu` cells of
# the notebooks while time is left, keeping their outputs (measured numbers, plots, GPU name and date) in the notebooks.
#
# Time: the whole script keeps to VK_GPU_BUDGET_S seconds (default 540: a lent machine's call is cut at 600 s). Each step
# has its own cap below and never starts with less than its floor left; a step that does not fit is recorded as SKIP.
# Caps (seconds), from what each step runs, not measured on a GPU yet (the first run's summary.txt gives the real times):
#   install 30; build 240 (5 builds at once: nvcc of the paged/flash/probe/self-test families for one arch and the
#   emulator's self-test build, 117 + 65 + 140 + 60 CPU s on the 2-core CPU machine, 2026-12-03: the longest, the
#   self-test's nvcc, bounds the wall time); check (a) 90 (8 fidelity kernels x 60 calls + the accumulation probe's 16
#   calls and 50 models x 2,048 outputs in Python, ~20 s on the CPU; the mma.sync rate probe: 6 launches of 4 blocks an SM x
#   8 warps x 2,048 rounds x 8 mma, ~1 ms each at the modelled peaks); (b) 120 (4 serving batches, 8K-128K, fp64 oracle);
#   (d) 60 (one capture, 20 replays); (e) 150 (8 shapes x 20 reps, two kernels, Triton's JIT); (c) 90 (SGLang's kit);
#   notebooks: what is left, 240 a notebook at most; then compute-sanitizer over (b) and (d), 300 (needs 120 left).
# Writes to OUTDIR (at most 8 files come back from a lent machine, so the reports travel as one archive):
#   gpu_check.log   everything printed
#   summary.txt     one line a step: PASS / FAIL / SKIP with seconds (printed last)
#   results.tgz     check-<step>/ (report.md, check.json, plots, mma_probe.pt, mma_rate.json, smem_rate.json), nvidia-smi.txt; rewritten after every step,
#                   so a run cut short still brings back what it measured
#   notebooks.tgz   the notebooks whose gpu cells ran, outputs kept (copy them into nbs/)
# Dependencies: .venv/bin/python if present, else python3 plus .gpu_payload/ (scripts/prepare_gpu_payload.sh, carried to the
# device machine): installed to /tmp/vk_site.
set -uo pipefail
OUT=${1:?usage: scripts/gpu_check.sh OUTDIR}
mkdir -p "$OUT"; OUT=$(cd "$OUT" && pwd)
cd "$(dirname "$0")/.."
export PYTHONUNBUFFERED=1 VK_PCH=${VK_PCH:-0}   # one build a flag set here: a precompiled header would cost more than it saves
export CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
BUDGET=${VK_GPU_BUDGET_S:-540}
STAGE=$(mktemp -d /tmp/vk_gpu_results.XXXX)
exec > >(tee "$OUT/gpu_check.log") 2>&1
summary="$OUT/summary.txt"; : > "$summary"
t_start=$(date +%s)
left() { echo $(( BUDGET - ($(date +%s) - t_start) )); }
pack() { tar -C "$STAGE" -czf "$OUT/results.tgz.tmp" . 2>/dev/null && mv "$OUT/results.tgz.tmp" "$OUT/results.tgz"; }
only() { [ -z "${VK_GPU_ONLY:-}" ] || [[ " $VK_GPU_ONLY " == *" $1 "* ]]; }   # VK_GPU_ONLY="c 05_cuda_graphs": a subset
step() { # step NAME CAP FLOOR CMD... : run under min(CAP, time left), record PASS/FAIL/SKIP, repack the results
  local name=$1 cap=$2 floor=$3; shift 3
  local l=$(left); local t=$(( cap < l ? cap : l ))
  if [ "$t" -lt "$floor" ]; then echo "SKIP $name (only ${l} s left, needs ${floor})" | tee -a "$summary"; return; fi
  echo "=== $name (cap ${t} s)"; local t0=$(date +%s)
  timeout "$t" bash -c '"$@"' _ "$@"; local rc=$?   # bash -c: the steps may be this script's functions (exported)
  local s="PASS"; [ $rc -ne 0 ] && s="FAIL"; [ $rc -eq 124 ] && s="FAIL (timed out)"
  echo "$s $name ($(( $(date +%s)-t0 )) s)" >> "$summary"; tail -1 "$summary"
  pack
}
date -u +"date: %Y-%m-%d %H:%M UTC"
nvidia-smi > "$STAGE/nvidia-smi.txt" 2>&1 || echo "nvidia-smi failed"
head -15 "$STAGE/nvidia-smi.txt"

if [ -x .venv/bin/python ]; then PY=.venv/bin/python
else
  PY=python3
  if [ -d .gpu_payload ]; then
    install_payload() {
      $PY -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/vk_site .gpu_payload/wheels/*.whl \
        && tar -C /tmp/vk_site -xzf .gpu_payload/sglang-*-py.tgz
    }
    export PY; export -f install_payload
    step "install .gpu_payload" 30 10 install_payload
    export PYTHONPATH=/tmp/vk_site:$PWD${PYTHONPATH:+:$PYTHONPATH}
    # SGLang's server modules import sgl_kernel at module level when CUDA is present; an image without it gets the stand-in
    # (scripts/gpu_shims: every name raises when called), appended to the path so that a real one always wins
    if ! $PY -c "import sgl_kernel" 2>/dev/null; then
      export PYTHONPATH=$PYTHONPATH:$PWD/scripts/gpu_shims
      echo "sgl_kernel: not installed here; SGLang's modules import scripts/gpu_shims/sgl_kernel (its names raise if called)"
    fi
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

vk() { $PY -c "import sys; from verify_kernel.cli import main; sys.exit(main(sys.argv[1:]))" "$@"; }
# the emulator runs in the accumulation mode measured for this card's architecture where one is known (cli.KNOWN_MMA_MODES):
# check step (a) then tests that mode against the card instead of failing on the known difference from 'exact'
if [ -z "${VK_SIMT_MMA:-}" ]; then
  VK_SIMT_MMA=$($PY -c "import torch; from verify_kernel.cli import known_mma_mode
if torch.cuda.is_available(): print(known_mma_mode(torch.cuda.get_device_capability()) or '')" 2>/dev/null)
  if [ -n "$VK_SIMT_MMA" ]; then export VK_SIMT_MMA; echo "VK_SIMT_MMA=$VK_SIMT_MMA (the accumulation measured for this architecture)"
  else unset VK_SIMT_MMA; echo "VK_SIMT_MMA unset: no accumulation mode measured for this architecture (the emulator runs 'exact')"; fi
fi
# 1. every family for this GPU plus the emulator's self-test build (check step a compares the two), all at once
# VK_GPU_FAMILIES="paged flash": build only these (a short call that needs no check step (a) skips the emulator's build too)
build_all() {
  local fam=() f; for f in ${VK_GPU_FAMILIES:-}; do fam+=(--family "$f"); done
  local simt=""; if only a; then vk build --impl simt --family selftest > "$STAGE/build-simt.log" 2>&1 & simt=$!; fi
  vk build -j 4 "${fam[@]}"; local rc=$? rs=0
  if [ -n "$simt" ]; then wait $simt; rs=$?; cat "$STAGE/build-simt.log"; fi
  return $(( rc || rs ))
}
export PY STAGE VK_GPU_ONLY; export -f vk build_all only
step "verify-kernel build (this GPU + the emulator's self-test)" 240 60 build_all

# 1b. the schedule's knobs timed (split floor x target CTAs x KV layout, 1K-64K; scripts/gpu_perf.py, issue 30) and the paged
#     kernels under Nsight Compute at one long and one short shape (where the time goes against the model's bound)
perf_sweep() {   # first: does a C++ argument error (TORCH_CHECK) reach Python as an exception here? (a subprocess: it may crash)
  # (2026-12-04, H200 image, torch 2.11: it segfaulted, rc 139; the Python stack and, where cuda-gdb is, the C++ one say where)
  $PY -X faulthandler scripts/gpu_perf.py torch_check > "$STAGE/torch_check.log" 2>&1; local rc=$?
  echo "torch_check rc=$rc" >> "$STAGE/torch_check.log"
  if [ $rc -ge 128 ] && command -v cuda-gdb > /dev/null; then
    timeout 60 cuda-gdb -batch -ex run -ex bt --args $PY scripts/gpu_perf.py torch_check >> "$STAGE/torch_check.log" 2>&1
  fi
  tail -40 "$STAGE/torch_check.log"
  $PY scripts/gpu_perf.py sweep "$STAGE/perf_sweep.json"
}
ncu_profile() {
  local NCU; NCU=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu /usr/local/cuda/bin/ncu 2>/dev/null | head -1)
  [ -n "$NCU" ] || { echo "no ncu on this machine"; return 1; }
  local rc=0
  # the backend's default knobs (the live-work rule on the cards with a model balance, else the 8-tile floor), and last a 1-tile
  # split floor alone: the partials' L2 traffic against the rule's at the same shape (issue 30)
  for shape in "65536 16 8" "4096 8 8" "1024 16 8" "1024 16 8 1"; do
    local tag="ncu_$(echo $shape | tr ' ' _)"
    "$NCU" --clock-control none --set full -k regex:paged_verify --launch-count 8 -f -o "$STAGE/$tag" \
      $PY scripts/gpu_perf.py one $shape > "$STAGE/$tag.log" 2>&1 || rc=1
    tail -5 "$STAGE/$tag.log"
    "$NCU" --import "$STAGE/$tag.ncu-rep" --page details > "$STAGE/$tag.txt" 2>&1 || rc=1
    "$NCU" --import "$STAGE/$tag.ncu-rep" --page raw --csv > "$STAGE/$tag.raw.csv" 2>&1 || rc=1
    grep -E "paged_verify|Duration|DRAM Throughput|Memory Throughput|Achieved Occupancy|Registers Per|Compute \(SM\)" "$STAGE/$tag.txt" | head -40
    # DRAM bytes per launch and the card's L2 bandwidth from the SMs as ncu defines its peak: what bench.GPUS[...]['l2_Bps'] needs (chapter 90)
    $PY -c "import sys; from verify_kernel.bench import ncu_dram_bytes
for r in ncu_dram_bytes(sys.argv[1]): print(f\"{r['kernel'][:44]:44s} DRAM read {r['read_B'] / 1e6:8.3f} MB, written {r['write_B'] / 1e6:7.3f} MB; L2 {r['l2_slices']:.0f} slices, peak {r['l2_peak_Bps'] / 1e12:.2f} TB/s\")" "$STAGE/$tag.raw.csv" || rc=1
  done
  return $rc
}
export -f perf_sweep ncu_profile
only perf && step "schedule knobs timed (scripts/gpu_perf.py sweep)" 120 40 perf_sweep
only ncu && step "Nsight Compute: paged kernels at 64K n16 H8, 4K n8 H8, 1K n16 H8 (default knobs) and 1K floor 1" 180 40 ncu_profile

# 2. `verify-kernel check`, one step a process so that each report is kept when it ends: (a) fidelity and the accumulation
#    probe, (b) parity at serving sizes, (d) CUDA graph capture, (e) the benchmark, (c) SGLang's kit
check_step() { vk check --steps "$1" --no-progress --keep-going --out "$STAGE/check-$1"; local rc=$?; head -40 "$STAGE/check-$1/report.md" 2>/dev/null; return $rc; }
export -f check_step
only a && step "check (a) emulator fidelity + mma accumulation probe" 90 30 check_step a
only a && step "mma.sync cases for offline analysis (scripts/mma_cases.py)" 40 15 $PY scripts/mma_cases.py "$STAGE/mma_cases.pt"
only b && step "check (b) parity at serving sizes" 120 40 check_step b
only d && step "check (d) CUDA graph capture" 60 20 check_step d
only e && step "check (e) benchmark vs SGLang's Triton kernel" 150 60 check_step e
only c && step "check (c) SGLang's kit through the backend" 90 40 check_step c

# 3. the gpu cells of the notebooks that have them, most informative first, while time is left (outputs kept in the notebooks)
ran=()
for nb in nbs/90_bench.ipynb nbs/03_paged_bf16.ipynb nbs/05_cuda_graphs.ipynb nbs/02_flash.ipynb nbs/01_simt.ipynb \
          nbs/04_sglang_backend.ipynb nbs/06_kv_defrag.ipynb nbs/00c_sglang.ipynb nbs/01b_build.ipynb; do
  grep -q '^ *"#| gpu' "$nb" 2>/dev/null || continue
  only "$(basename $nb .ipynb)" || continue
  # 01's cells compare every self-test kernel with the emulator: launches blocking, so a fault names the launch that made it
  blocking=0; [ "$(basename $nb)" = 01_simt.ipynb ] && blocking=1
  step "gpu cells of $(basename $nb)" 240 45 env CUDA_LAUNCH_BLOCKING=$blocking $PY scripts/execute_nb.py --gpu-only --flags "gpu" "$nb"; ran+=("$nb")
done
[ ${#ran[@]} -gt 0 ] && tar -czf "$OUT/notebooks.tgz" "${ran[@]}" 2>/dev/null

# 4. with what time is left: steps (b) and (d) under compute-sanitizer's memcheck and racecheck (`check --sanitize`)
sanitize() { vk check --steps s --sanitize --no-progress --keep-going --out "$STAGE/check-s"; local rc=$?; head -40 "$STAGE/check-s/report.md" 2>/dev/null; return $rc; }
export -f sanitize
only s && step "check --sanitize: (b) and (d) under memcheck and racecheck" 300 120 sanitize
pack
echo; echo "=== summary (total $(( $(date +%s)-t_start )) s of ${BUDGET})"; cat "$summary"
! grep -q '^FAIL' "$summary"
