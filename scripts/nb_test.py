#!/usr/bin/env python
"""Test one notebook the way `nbdev_test --path NB [--flags F]` does, and time every cell.

    python scripts/nb_test.py nbs/03_paged_bf16.ipynb [--flags "cuda_build"] [--timings out/timings/x.json]

It calls nbdev's own `test_nb` with the same skip/force flags `nbdev_test` computes (settings.ini
`tst_flags` minus `--flags`), from the nbs folder, with the project root on sys.path; the only
addition is a wrapper around execnb's `CaptureShell.cell` that records each cell's wall time, its
index, its CPU seconds and its first line (written as JSON to `--timings`, also when the notebook fails).
Prints `Success.` and exits 0 when every cell ran, as nbdev_test does; exits 1 otherwise.
"""
import argparse, json, os, resource, sys, time
from pathlib import Path

ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
ap.add_argument('notebook')
ap.add_argument('--flags', default='', help='space separated test flags to run that are normally skipped')
ap.add_argument('--timings', default=None, help='write per-cell wall times here (JSON)')
args = ap.parse_args()

from execnb.shell import CaptureShell
from nbdev.config import get_config
from nbdev.test import test_nb
from fastcore.xtras import working_directory

def cpu_secs():
    "CPU seconds of this process (every thread: the emulator runs blocks on several) and of its finished children (compilers)."
    c = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + c.ru_utime + c.ru_stime

cells = []
_cell = CaptureShell.cell
def timed_cell(self, cell, *a, **kw):
    "execnb's CaptureShell.cell, timed: wall and CPU seconds (an exception still records the cell)."
    t, c = time.perf_counter(), cpu_secs()
    try: return _cell(self, cell, *a, **kw)
    finally:
        if cell.cell_type == 'code':
            first = next((l for l in cell.source.splitlines() if l.strip() and not l.startswith('#|')), '')
            cells.append(dict(idx=cell.idx_, secs=round(time.perf_counter() - t, 3), cpu=round(cpu_secs() - c, 3), first=first[:100]))
CaptureShell.cell = timed_cell

cfg = get_config()
nb = Path(args.notebook).absolute()
skip, force = cfg.tst_flags.split(), args.flags.split()
t0, c0 = time.time(), cpu_secs()
with working_directory(cfg.nbs_path):
    ok, _ = test_nb(nb, skip_flags=skip, force_flags=force, do_print=True, basepath=cfg.config_path)
secs, cpu = time.time() - t0, cpu_secs() - c0
if args.timings:
    p = Path(args.timings); p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(json.dumps(dict(notebook=nb.name, flags=args.flags, ok=ok, secs=round(secs, 1), cpu=round(cpu, 1), cells=cells), indent=1))
print('Success.' if ok else f'nbdev test failed: {nb.name}', flush=True)
sys.exit(0 if ok else 1)
