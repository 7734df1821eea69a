"""scripts/gpu_perf.py - the paged kernel's schedule knobs timed on a GPU, and one call for a profiler to catch.

    python scripts/gpu_perf.py sweep OUT.json   # split floor (min_tiles_per_split) x target CTAs (num_sms multiple) x
                                                #   KV layout (shuffled page-1 slots / one contiguous run) at short and long contexts
    python scripts/gpu_perf.py one N n H [F]    # plan (split floor F alone; default the backend's knobs) + 3 calls of one layer (for ncu), then exit
    python scripts/gpu_perf.py torch_check      # a workspace one byte short: the C++ check must arrive as a Python exception

Run by scripts/gpu_check.sh (its `perf` and `ncu` steps). Every time is a CUDA-graph replay with L2 flushed
(`paged.time_graph`), the median of `reps`; nothing here is a model. Issue 30 item 5 reads this data to choose the defaults.
"""
import json, sys, time, itertools
import os
import torch
from verify_kernel import paged
from verify_kernel.bench import batch_plan

DEV = os.environ.get('VK_PERF_DEVICE', 'cuda')   # 'cpu': a smoke test of this script on the emulator (times meaningless)

def timed(fn, reps):
    if DEV == 'cuda': return paged.time_graph(fn, reps=reps)
    t = time.perf_counter(); fn(); return (time.perf_counter() - t) * 1e3

def inputs(N, n, H, bs, layout):
    d = paged.gpu_verify_inputs(N, n, H, bs=bs, seed=N + n + H + bs, device=DEV)
    if layout == 'run':   # every request's prefix one ascending run of slots, rows moved with them (what a defragmented cache gives)
        from verify_kernel.defrag import contiguous_inputs
        d = contiguous_inputs(d)
    return d

def time_one(d, min_tiles, num_sms, reps, balance=0.0):
    ws = paged._aligned_bytes(paged.workspace_bytes(d['qo_indptr'].numel() - 1, d['q_extend'].shape[1], d['max_len_extend'],
                                                    num_sms=num_sms, kv_indices_len=d['kv_indices'].numel(),
                                                    impl='cuda' if DEV == 'cuda' else 'simt'), DEV)
    plan = paged.plan_verify(d['qo_indptr'], d['kv_indptr'], d['kv_indices'], d['custom_mask'], d['mask_indptr'], d['max_len_extend'],
                             num_tokens=d['q_extend'].shape[0], num_heads=d['q_extend'].shape[1], workspace=ws, num_sms=num_sms,
                             min_tiles_per_split=min_tiles, split_balance=balance)
    t = plan.table()
    us = timed(lambda: paged.verify_attn_fwd(**d, plan=plan, check_args=False), reps) * 1e3
    return us, t['ctas_used'], t['chunk_tiles']

def sweep(out, reps=10):
    cuda = DEV == 'cuda'
    sms = torch.cuda.get_device_properties(0).multi_processor_count if cuda else 4
    name = torch.cuda.get_device_name(0) if cuda else 'H200 (cpu smoke test)'
    bw, peak = paged.gpu_peaks(name)
    rule = paged.builtin_knobs(name)['split_balance'] if cuda else 0.05   # the smoke test on the CPU times the rule too
    if not cuda: shapes = [(64, 4, 8, 1), (64, 4, 8, 2)]
    else: shapes = [(N, n, H, 1) for N in (1024, 4096, 16384, 65536) for n in (4, 8, 16) for H in (8, 16)] + \
             [(4096, 8, 8, 4), (4096, 16, 8, 8), (16384, 16, 8, 4)]
    rows, t0 = [], time.time()
    for N, n, H, bs in shapes:
        nbytes, flops = paged.verify_cost(N, n, H, bs)
        t_min = max(nbytes / bw, flops / peak) * 1e6
        for layout in ('shuffled', 'run'):
            d = inputs(N, n, H, bs, layout)
            knobs = [(mt, mult, 0.0) for mt, mult in itertools.product((1, 2, 4, 8, 16), (1, 2))] if layout == 'shuffled' else [(8, 1, 0.0), (2, 1, 0.0), (2, 2, 0.0)]
            knobs += [(1, 1, rule * x) for x in (1, 2, 4)] if rule else []   # the live-work rule at 1x (chapter 03's default here), 2x, 4x the model's balance
            for mt, mult, bal in knobs:
                us, ctas, chunk = time_one(d, mt, sms * mult, reps, bal)
                r = dict(N=N, n=n, H=H, bs=bs, layout=layout, min_tiles=mt, split_balance=bal, sms_mult=mult, us=round(us, 2), ctas=ctas,
                         chunk_tiles=chunk, t_min_us=round(t_min, 2), pct_roofline=round(100 * t_min / us, 1))
                rows.append(r)
                print(json.dumps(r), flush=True)
            del d
        if cuda: torch.cuda.empty_cache()
    json.dump(dict(gpu=name, sms=sms, date=time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime()), torch=torch.__version__,
                   reps=reps, seconds=round(time.time() - t0, 1), rows=rows), open(out, 'w'), indent=1)
    best = {}
    for r in rows:
        k = (r['N'], r['n'], r['H'], r['bs'], r['layout'])
        if k not in best or r['us'] < best[k]['us']: best[k] = r
    print('\nbest per shape (us; "default" = min_tiles 8 alone, 1x SMs; the live-work rule is the backend\'s default on cards with a model balance):')
    for k, r in best.items():
        dflt = next(x for x in rows if (x['N'], x['n'], x['H'], x['bs'], x['layout']) == k and x['min_tiles'] == 8 and x['sms_mult'] == 1
                    and not x['split_balance'])
        print(f"N={k[0]:>6} n={k[1]:>2} H={k[2]:>2} bs={k[3]} {k[4]:>8}: default {dflt['us']:8.1f}  best {r['us']:8.1f} "
              f"(min_tiles {r['min_tiles']}, balance {r['split_balance']:g}, {r['sms_mult']}x SMs, {r['ctas']} CTAs)  t_min {r['t_min_us']:.1f}")

def one(N, n, H, min_tiles=None):
    d = inputs(N, n, H, 1, 'shuffled')
    plan = batch_plan(d, min_tiles=min_tiles, balance=None if min_tiles is None else 0.0)   # F given: that floor alone; else the backend's knobs
    for _ in range(3): paged.verify_attn_fwd(**d, plan=plan, check_args=False)
    if DEV == 'cuda': torch.cuda.synchronize()

def torch_check():
    "A workspace one byte short for its plan: the extension's TORCH_CHECK must reach Python as a RuntimeError naming it."
    d = inputs(1024, 4, 8, 1, 'shuffled')
    sms = torch.cuda.get_device_properties(0).multi_processor_count if DEV == 'cuda' else 4
    impl = 'cuda' if DEV == 'cuda' else 'simt'
    need = paged.workspace_bytes(1, 8, 4, impl=impl, num_sms=2 * sms, kv_indices_len=d['kv_indices'].numel())
    ws = paged._aligned_bytes(need - 1, DEV)[:need - 1]
    try:
        paged.plan_verify(d['qo_indptr'], d['kv_indptr'], d['kv_indices'], d['custom_mask'], d['mask_indptr'], d['max_len_extend'],
                          num_tokens=d['q_extend'].shape[0], num_heads=8, workspace=ws, num_sms=2 * sms)
        print('torch_check: no error raised (a workspace one byte short was accepted)'); sys.exit(1)
    except (RuntimeError, ValueError) as e:
        print(f'torch_check: {type(e).__name__} raised as expected: {str(e).splitlines()[0][:200]}')

if __name__ == '__main__':
    if sys.argv[1] == 'sweep': sweep(sys.argv[2])
    elif sys.argv[1] == 'one': one(*map(int, sys.argv[2:6]))
    elif sys.argv[1] == 'torch_check': torch_check()
    else: sys.exit(__doc__)
