#!/usr/bin/env python
"""`make test`: every CPU test of the workbook, each counted as one unit in out/test-results.txt.

Units: the export is in sync with the notebooks (nbdev_export changes nothing), the notebooks are
clean (nbdev_clean changes nothing), each notebook under `nbdev_test`, and each notebook holding
`#| cuda_build` cells under `nbdev_test --flags cuda_build`, and the rendered docs opened page by page in
headless Chromium (`verify-kernel-docs check`). Prints `N passed, N failed` last.
"""
import hashlib, os, re, subprocess, sys, time
from pathlib import Path

root = Path(__file__).resolve().parent.parent
os.chdir(root)
bin_ = Path(sys.executable).parent
out = root/'out'; out.mkdir(exist_ok=True)
results_path = out/'test-results.txt'
results = []

def record(name, ok, secs, detail=''):
    results.append((name, ok))
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

def nbdev_test(nb, flags=None):
    cmd = [str(bin_/'nbdev_test'), '--path', str(nb), '--do_print']
    if flags: cmd += ['--flags', flags]
    t = time.time()
    r = subprocess.run(cmd, capture_output=True, text=True)
    ok = r.returncode == 0 and 'Success' in (r.stdout + r.stderr)
    if not ok: print((r.stdout + r.stderr)[-6000:], flush=True)
    record(f"{nb.name}{' [--flags '+flags+']' if flags else ''}", ok, time.time() - t)

results_path.write_text('')
t0 = time.time()
unchanged_by('export in sync with notebooks (nbdev_export)', [str(bin_/'nbdev_export')], ['verify_kernel'])
unchanged_by('notebooks clean (nbdev_clean)', [str(bin_/'nbdev_clean')], ['nbs'])
nbs = sorted(p for p in (root/'nbs').glob('*.ipynb') if not p.name.startswith('_'))
only = os.environ.get('VK_TEST_ONLY')  # optional regex to run a subset while developing
if only: nbs = [p for p in nbs if re.search(only, p.name)]
for nb in nbs: nbdev_test(nb)
for nb in nbs:
    if re.search(r'^\s*"#\|\s*cuda_build', nb.read_text(), re.M): nbdev_test(nb, 'cuda_build')  # a code cell flagged cuda_build
def docs_in_browser():
    "Render the notebooks (make docs) and open every page in headless Chromium; the committed sidebar.yml/_quarto.yml/nbdev.yml must stay as they are."
    t = time.time(); ymls = sorted((root/'nbs').glob('*.yml'))
    before = {p: p.read_bytes() for p in ymls}
    r = subprocess.run([str(bin_/'verify-kernel-docs'), 'check'], capture_output=True, text=True)
    out = r.stdout + r.stderr
    stale = [p.name for p in ymls if p.read_bytes() != before[p]]
    ok = r.returncode == 0 and not stale
    if not ok: print(out[-6000:], flush=True)
    last = [l for l in out.splitlines() if 'pages pass' in l or 'could not run' in l]
    record('docs rendered, every page in headless Chromium (verify-kernel-docs check)', ok, time.time() - t,
           '; '.join(last[-1:] + ([f"{', '.join(stale)} out of date: rewritten by the render, commit it"] if stale else [])))

if not only or re.search(only, 'docs'): docs_in_browser()
passed = sum(ok for _, ok in results); failed = len(results) - passed
print(f"total {time.time() - t0:.0f} s")
print(f"{passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
