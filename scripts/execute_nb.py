#!/usr/bin/env python
"""Execute notebooks in place and store their outputs (the engineering log), the way nbdev_test runs them.

    python scripts/execute_nb.py nbs/00_oracle.ipynb [more.ipynb] [--flags "gpu slow"] [--gpu-only]

Cells flagged with a test flag from settings.ini (`#| gpu`, `#| cuda_build`, `#| slow`) run only
when that flag is passed; a cell that does not run keeps the outputs it already had, so outputs
measured on a GPU survive a later CPU run. Stops at the first error (nothing is written then).

--gpu-only (used by scripts/gpu_check.sh): run only the cells that define the notebook's code
(`#| export`-style cells and cells holding nothing but imports) and the cells flagged with
--flags; the CPU tests in between are skipped (CI runs them). So a `#| gpu` cell may use only
exported names, imports and names defined in other `#| gpu` cells.
"""
import argparse, os, re, sys, time
from pathlib import Path
from execnb.nbio import read_nb, write_nb
from execnb.shell import CaptureShell
from fastcore.xtras import working_directory

ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
ap.add_argument('notebooks', nargs='+')
ap.add_argument('--flags', default='', help='space separated test flags to run (e.g. "gpu cuda_build")')
ap.add_argument('--gpu-only', action='store_true', help='run only code-defining cells and the flagged cells')
args = ap.parse_args()

root = Path(__file__).resolve().parent.parent
all_flags = set()
for line in (root/'settings.ini').read_text().splitlines():
    if line.startswith('tst_flags'): all_flags = set(line.split('=', 1)[1].split())
run_flags = set(args.flags.split())
skip = all_flags - run_flags
directive = re.compile(r'^\s*#\|\s*([\w-]+)')

def flags_of(src):
    out = set()
    for line in src.splitlines():
        m = directive.match(line)
        if not m:
            if line.strip(): break
            continue
        out.add(m[1])
    return out

def defines_code(src):
    "An export cell, or a cell of nothing but imports (comments and directives aside)."
    if any(f.startswith('export') for f in flags_of(src)): return True
    body = [l for l in src.splitlines() if l.strip() and not l.lstrip().startswith('#')]
    return bool(body) and all(re.match(r'\s*(import|from)\s', l) for l in body)

def should_run(src):
    f = flags_of(src)
    if f & skip: return False
    if args.gpu_only: return bool(f & run_flags) or defines_code(src)
    return True

failed = False
for fn in map(Path, args.notebooks):
    fn = fn.resolve()
    nb = read_nb(fn)
    shell = CaptureShell(fn)
    t0 = time.time()
    print(f'executing {fn.name} (flags: {" ".join(sorted(run_flags)) or "none"}) ...', flush=True)
    os.environ['IN_TEST'] = '1'
    with working_directory(fn.parent):
        for i, cell in enumerate(nb.cells):
            if cell.cell_type != 'code' or not should_run(cell.source): continue
            shell.cell(cell)
            if shell.exc:
                print(shell.prettytb(fname=fn), file=sys.stderr)
                print(f'FAILED at cell {i} of {fn.name}; notebook not written', file=sys.stderr)
                failed = True
                break
    if not shell.exc:
        write_nb(nb, fn)
        print(f'  wrote {fn.name} in {time.time()-t0:.0f} s', flush=True)
sys.exit(1 if failed else 0)
