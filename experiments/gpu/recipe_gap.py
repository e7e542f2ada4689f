#!/usr/bin/env python
"""Why `tnb-train --recipe paper-base` trains slower than the benchmark's step (paper_scale.sh): one variant of the
run, in this process, so that torch.compile's own counters can be read after it. Appends one JSON line to `--json`:
the seconds of every update (from the checkpoint's history: its target tokens / its tokens per second), their median,
10th and 90th percentiles and maximum, and how many graphs dynamo compiled, recompiled and broke.

Variants (each on the corpus in `--data`, as paper_recipe.sh writes it):
- `recipe`: the recipe as it is on one GPU: 3,125 tokens a side per micro-batch, accumulated 8 times, compiled;
- `eager`: the same, not compiled;
- `one-batch`: the update as one micro-batch of 25,000 tokens a side (`--max-tokens 25000`: accum 1), compiled, as the
  benchmark's step is one batch;
- `one-batch-eager`: that, not compiled.

    python experiments/gpu/recipe_gap.py --variant recipe --data /tmp/wmt/wmt14-en-de --json $OUT/recipe_gap.json
"""
import argparse, json, statistics, sys, time

VARIANTS = {'recipe': ['--compile'], 'eager': [], 'one-batch': ['--compile', '--max-tokens', '25000'], 'one-batch-eager': ['--max-tokens', '25000']}

def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--variant', choices=VARIANTS, required=True)
    ap.add_argument('--data', required=True, help='the corpus folder (train/valid/test .en/.de)')
    ap.add_argument('--steps', type=int, default=30, help='updates (default 30); the first 5 are left out of the figures')
    ap.add_argument('--device', default='cuda')
    ap.add_argument('--extra', default='', help="more tnb-train options, e.g. a smoke run on a CPU: '--preset tiny --vocab-size 60 --tokens-per-update 600'")
    ap.add_argument('--json', required=True, help='append the figures here, one JSON line')
    a = ap.parse_args()
    import torch
    from torch._dynamo.utils import counters
    from transformer_nb.apps.cli import train_main
    from transformer_nb.lib.checkpoints import open_checkpoint
    from transformer_nb.lib.machine import hardware
    out = f'/tmp/run-gap-{a.variant}'
    argv = ['--dataset', 'wmt14', '--data-dir', a.data, '--src-lang', 'en', '--tgt-lang', 'de', '--recipe', 'paper-base',
            '--device', a.device, '--steps', str(a.steps), '--valid-every', '0', '--test-limit', '0', '--no-progress',
            '--overwrite', '--out', out, *a.extra.split(), *VARIANTS[a.variant]]
    sys.argv[0] = 'tnb-train'; counters.clear(); t0 = time.perf_counter()
    try: train_main(argv)
    except SystemExit as e:
        if e.code: raise
    wall = time.perf_counter() - t0
    ck = open_checkpoint(out, None, mmap=True)
    h = ck.meta['history']['train']; sec = [r['tokens'] / r['tok_s'] for r in h]; late = sec[5:] or sec
    q = statistics.quantiles(late, n=10) if len(late) > 1 else late * 9
    rec = dict(variant=a.variant, hardware=hardware(), steps=len(h), wall_seconds=round(wall, 1), accum=ck.meta['train_config']['accum'],
               max_tokens=ck.meta['train_config']['max_tokens'], median_tokens=statistics.median(r['tokens'] for r in h),
               update_seconds=[round(x, 4) for x in sec], median_s=round(statistics.median(late), 4), p10_s=round(q[0], 4),
               p90_s=round(q[-1], 4), max_s=round(max(late), 4),
               median_tok_s=round(statistics.median(r['tok_s'] for r in h[5:] or h)),
               dynamo={k: dict(counters[k]) for k in ('stats', 'recompiles', 'graph_break', 'frames')},
               max_memory_gb=round(torch.cuda.max_memory_allocated() / 2**30, 1) if torch.cuda.is_available() else None)
    with open(a.json, 'a') as f: f.write(json.dumps(rec) + '\n')
    print({k: rec[k] for k in ('variant', 'accum', 'median_s', 'p10_s', 'p90_s', 'max_s', 'median_tok_s', 'wall_seconds')}, rec['dynamo']['stats'], flush=True)

if __name__ == '__main__':
    main()
