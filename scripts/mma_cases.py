#!/usr/bin/env python
"""Dump mma.sync m16n8k16 (fp32 accumulation) results of this GPU on structured inputs, for identifying its accumulation offline.

    python scripts/mma_cases.py OUT.pt [--cases 256]

Check step (a)'s probe (verify_kernel.cli.mma_probe) matches a card against named models; when none matches, these inputs
locate what the hardware does: per output, C plus 1-3 nonzero products at random exponent gaps of 0-40 (how many bits of a
small term survive alignment, and toward where they are cut), the sign mixes of each, the products' positions k in 0-15 (the
block structure), and dense random tiles like the probe's. Writes {dtype: [(A, B, C, D), ...]} with the inputs on the CPU.
"""
import argparse, sys, torch
from pathlib import Path
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from verify_kernel import simt, build

def cases(dtype, n, seed=0):
    g = torch.Generator().manual_seed(seed)
    out = []
    for c in range(n):
        kind = c % 4
        A = torch.zeros(16, 16); B = torch.zeros(16, 8)
        C = torch.randn(16, 8, generator=g) * 2.0 ** torch.randint(-3, 4, (16, 8), generator=g)
        if kind == 3:                                   # dense, like the probe
            A = torch.randn(16, 16, generator=g) * 2.0 ** torch.randint(-6, 7, (16, 16), generator=g)
            B = torch.randn(16, 8, generator=g) * 2.0 ** torch.randint(-6, 7, (16, 8), generator=g)
        else:                                           # 1-3 products a row, at row-chosen positions, exponents 0-40 below C's
            for i in range(16):
                ks = torch.randperm(16, generator=g)[:kind + 1]
                for k in ks.tolist():
                    A[i, k] = (1 + torch.rand(1, generator=g)) * 2.0 ** -int(torch.randint(0, 41, (1,), generator=g)) * (1 if torch.rand(1, generator=g) < 0.5 else -1)
            B = (1 + torch.rand(16, 8, generator=g)) * torch.where(torch.rand(16, 8, generator=g) < 0.5, -1.0, 1.0)
            if c % 8 == 1: C.zero_()                        # no accumulator: the products alone
        out.append((A.to(dtype), B.to(dtype), C.float()))
    return out

ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
ap.add_argument('out'); ap.add_argument('--cases', type=int, default=256)
a = ap.parse_args()
native = simt.load_selftest('cuda', [build.detect_arch()])
res = {}
for dt in (torch.bfloat16, torch.float16):
    rows = []
    for A, B, C in cases(dt, a.cases):
        D = native.st_mma(A.cuda(), B.cuda(), C.cuda(), False)
        rows.append((A, B, C, D.cpu()))
    torch.cuda.synchronize()
    res[str(dt).replace('torch.', '')] = rows
torch.save(res, a.out)
print(f"{a.out}: {sum(len(v) for v in res.values())} m16n8k16 products on {torch.cuda.get_device_name()}")
