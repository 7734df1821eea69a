#!/usr/bin/env python
"""`make test` / `make test-all`: every CPU test of the workbook, each counted as one unit in out/test-results.txt.

    python scripts/run_tests.py [--all] [--workers N]

Units: the export is in sync with the notebooks (nbdev_export changes nothing), the notebooks are
clean (nbdev_clean changes nothing), each notebook under nbdev's `test_nb` (scripts/nb_test.py: what
`nbdev_test --path NB` runs, every cell timed) - a notebook holding `#| cuda_build` cells with
`--flags cuda_build`, which runs its default cells as well (until 2026-12-03 such a notebook ran twice,
once without the flag: the same cells again) - and the rendered docs opened page by page in headless
Chromium (`verify-kernel-docs check`). `--all` (make test-all) adds the `slow` flag to every notebook unit.

The notebooks are independent (each builds or loads its kernels through the shared torch extension
cache, whose builds are lock-protected), so they run `--workers` at a time (default: the number of
cores), longest first by the durations of the last run (out/timings/), else by `EXPECTED` below.
Writes out/test-results.txt (out/test-all-results.txt for --all), out/test-timings.md (per unit and the
slowest cells; out/test-all-timings.md) and prints `N passed, N failed` last.
"""
import argparse, hashlib, json, os, re, subprocess, sys, time
from concurrent.futures import ThreadPoolExecutor, as_completed
from pathlib import Path

ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
ap.add_argument('--all', action='store_true', help='also run the `#| slow` cells (make test-all)')
ap.add_argument('--workers', type=int, default=int(os.environ.get('VK_TEST_WORKERS', 0)) or os.cpu_count() or 1)
args = ap.parse_args()

root = Path(__file__).resolve().parent.parent
os.chdir(root)
bin_ = Path(sys.executable).parent
out = root/'out'; out.mkdir(exist_ok=True)
suite = 'test-all' if args.all else 'test'
timing_dir = out/f'timings-{suite}'; timing_dir.mkdir(exist_ok=True)
results_path = out/f'{suite}-results.txt'
results = []

# Seconds a unit took in a cold `make test` on a fresh 2-core machine (new checkout, empty extension cache, two at a
# time, as CI runs it; 2026-12-07: 746 s in all); used only to start the longest first when out/timings-*/ holds no
# earlier run. With `--all` a unit's name carries `slow` too: the same notebook's figure is used.
EXPECTED = {
    '03_paged_bf16.ipynb [--flags cuda_build]': 303,
    '90_bench.ipynb': 149,
    '01_simt.ipynb [--flags cuda_build]': 126,
    '02_flash.ipynb [--flags cuda_build]': 117,
    '01c_racecheck.ipynb': 113,
    '04_sglang_backend.ipynb': 102,
    '80_check.ipynb': 76,
    '06b_defrag_sim.ipynb': 60,
    '00c_sglang.ipynb': 47,
    '01a_buildlock.ipynb': 46,
    '05_cuda_graphs.ipynb': 39,
    '08_campaign.ipynb': 32,
    '81_ab.ipynb': 32,
    '05b_server_flows.ipynb': 31,
    '91_docs.ipynb': 27,
    '07_models.ipynb': 27,
    '06_kv_defrag.ipynb': 15,
    '01b_build.ipynb [--flags cuda_build]': 9,
    '04a_backend_class.ipynb': 6,
    '00a_workloads.ipynb': 5,
    '04_serving.ipynb': 4,
    '00b_parity.ipynb': 4,
    '00_env.ipynb': 4,
    '04b_vllm.ipynb': 3,
    '00_oracle.ipynb': 2,
    '04c_vllm_plugin.ipynb': 2,
    '01d_pch.ipynb': 2,
    'index.ipynb': 0,
}

def record(name, ok, secs, detail=''):
    results.append((name, ok, secs))
    line = f"{'PASS' if ok else 'FAIL'} {name} ({secs:.0f} s){' - '+detail if detail else ''}"
    print(line, flush=True)
    with results_path.open('a') as f: f.write(line + '\n')

def snapshot(*dirs):
    "Content hash of every file under `dirs` (to see whether a command changed anything)."
    h = {}
    for d in dirs:
        for p in sorted(Path(d).rglob('*')):
            if p.is_file() and '__pycache__' not in p.parts and '.ipynb_checkpoints' not in p.parts:
                h[str(p)] = hashlib.sha1(p.read_bytes()).hexdigest()
    return h

def unchanged_by(name, cmd, dirs):
    t = time.time(); before = snapshot(*dirs)
    r = subprocess.run(cmd, capture_output=True, text=True)
    after = snapshot(*dirs)
    changed = sorted(k for k in before.keys() | after.keys() if before.get(k) != after.get(k))
    ok = r.returncode == 0 and not changed
    detail = (r.stdout + r.stderr)[-2000:] if r.returncode else ('changed: ' + ', '.join(changed[:10]) if changed else '')
    record(name, ok, time.time() - t, detail)

def unit_name(nb, flags): return f"{nb.name}{' [--flags '+flags+']' if flags else ''}"
def timing_file(nb, flags): return timing_dir/f"{nb.stem}{'--' + flags.replace(' ', '-') if flags else ''}.json"

def expected(name, path):
    if path.exists():
        try: return json.loads(path.read_text())['secs']
        except Exception: pass
    return EXPECTED.get(re.sub(r'\[--flags (slow ?)?', '[--flags ', name).replace(' [--flags ]', ''), 60)

# With several notebooks at a time, one BLAS/OpenMP thread each: otherwise every process's thread pool spins for
# the cores the other notebooks hold (SGLang's interpreted Triton through numpy ran 3-6x slower beside another
# notebook, 2026-12-03). The SIMT emulator's own block workers are not OpenMP threads and are unaffected.
ONE_THREAD = {k: '1' for k in ('OMP_NUM_THREADS', 'OPENBLAS_NUM_THREADS', 'MKL_NUM_THREADS')}
child_env = {**os.environ, **({k: v for k, v in ONE_THREAD.items() if k not in os.environ} if args.workers > 1 else {})}

def run_notebook(nb, flags):
    "One notebook unit in its own process; returns (name, ok, secs, output)."
    t = time.time(); tf = timing_file(nb, flags)
    cmd = [sys.executable, str(root/'scripts'/'nb_test.py'), str(nb), '--timings', str(tf)] + (['--flags', flags] if flags else [])
    r = subprocess.run(cmd, capture_output=True, text=True, env=child_env)
    text = r.stdout + r.stderr
    return unit_name(nb, flags), r.returncode == 0 and 'Success.' in r.stdout, time.time() - t, text

def docs_in_browser():
    """Render the notebooks (make docs) and open every page in headless Chromium; the committed sidebar.yml/_quarto.yml/nbdev.yml must stay as they are.
    It renders into _docs/ and _proc/; 91_docs' slow cell (beside it under --all) renders into a temporary directory of its own, and
    docs.render_lock orders what both rewrite in shared places (verify_kernel/_modidx.py, nbs/*.yml)."""
    t = time.time(); ymls = sorted((root/'nbs').glob('*.yml'))
    before = {p: p.read_bytes() for p in ymls}
    r = subprocess.run([str(bin_/'verify-kernel-docs'), 'check'], capture_output=True, text=True)
    text = r.stdout + r.stderr
    stale = [p.name for p in ymls if p.read_bytes() != before[p]]
    ok = r.returncode == 0 and not stale
    last = [l for l in text.splitlines() if 'pages pass' in l or 'could not run' in l]
    detail = '; '.join(last[-1:] + ([f"{', '.join(stale)} out of date: rewritten by the render, commit it"] if stale else []))
    return 'docs rendered, every page in headless Chromium (verify-kernel-docs check)', ok, time.time() - t, text, detail

results_path.write_text('')
t0 = time.time()
print(f"make {suite}: {args.workers} at a time", flush=True)
unchanged_by('export in sync with notebooks (nbdev_export)', [str(bin_/'nbdev_export')], ['verify_kernel'])
unchanged_by('notebooks clean (nbdev_clean)', [str(bin_/'nbdev_clean')], ['nbs'])
# a `#| slow` cell above the definitions it uses fails only under --flags slow (CI's test-all, 2026-12-05: 90's NameError)
unchanged_by('cells use only names defined above them (scripts/nb_order.py)', [sys.executable, str(root/'scripts'/'nb_order.py')], ['nbs'])
nbs = sorted(p for p in (root/'nbs').glob('*.ipynb') if not p.name.startswith('_'))
only = os.environ.get('VK_TEST_ONLY')  # optional regex to run a subset while developing
if only: nbs = [p for p in nbs if re.search(only, p.name)]
base = ['slow'] if args.all else []
def flags_for(nb):
    "A notebook holding `#| cuda_build` cells runs once with that flag: every default cell runs in that run too."
    return ' '.join(base + (['cuda_build'] if re.search(r'^\s*"#\|\s*cuda_build', nb.read_text(), re.M) else []))
jobs = [(nb, flags_for(nb)) for nb in nbs]
want_docs = not only or re.search(only, 'docs')

# the docs unit last: headless Chromium runs several processes, which slowed the notebook beside it (measured
# 2026-12-03: 00c 59 -> 109 s when the two overlapped); at the end it shares the cores with the last short units
tasks = sorted(((expected(unit_name(*j), timing_file(*j)), run_notebook, j) for j in jobs), key=lambda t: -t[0])
if want_docs: tasks.append((0, docs_in_browser, ()))
with ThreadPoolExecutor(max_workers=args.workers) as pool:
    futs = [pool.submit(fn, *a) for _, fn, a in tasks]
    for f in as_completed(futs):
        name, ok, secs, text, *detail = f.result()
        if not ok: print(f"--- output of {name} (last 6000 characters)\n{text[-6000:]}", flush=True)
        record(name, ok, secs, detail[0] if detail else '')

wall = time.time() - t0
passed = sum(ok for _, ok, _ in results); failed = len(results) - passed

# The timing table: every unit, and the slowest cells (a place to look when the suite grows).
cells, cpu = [], {}
for nb, flags in jobs:
    tf = timing_file(nb, flags)
    if tf.exists():
        d = json.loads(tf.read_text())
        cpu[unit_name(nb, flags)] = d.get('cpu', 0)
        cells += [(c['secs'], c.get('cpu', 0), unit_name(nb, flags), c['idx'], c['first']) for c in d['cells']]
cells.sort(reverse=True)
crow = ['| wall s | CPU s | unit | cell | first line |', '|---:|---:|---|---:|---|'] + [
    f"| {s:.1f} | {c:.1f} | {u} | {i} | `{f.replace('|', '/')}` |" for s, c, u, i, f in cells[:25]]
rows = ['| unit | wall s | CPU s |', '|---|---:|---:|'] + [f"| {n} | {s:.0f} | {cpu[n]:.0f} |" if n in cpu else f"| {n} | {s:.0f} | |"
                                                        for n, _, s in sorted(results, key=lambda r: -r[2])]
(out/f'{suite}-timings.md').write_text(f"# make {suite}: {wall:.0f} s wall, {args.workers} at a time\n\n"
                                   + '\n'.join(rows) + '\n\n## slowest cells\n\n' + '\n'.join(crow) + '\n')
print(f"total {wall:.0f} s (timings: out/{suite}-timings.md)")
print(f"{passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
