#!/usr/bin/env python
"""Why `tnb-train --recipe paper-base` may train slower than the benchmark's step (paper_scale.sh): one variant of the
run, in this process, so that torch.compile's own counters can be read after it. Appends one JSON line to `--json`:
the run's timing windows (the trainer reads its figures back every `--log-every` updates and synchronizes the device
at each window's ends, nowhere else: `experiments/gpu/steady.py`), their target tokens per second in steady state (the
windows that start within the first `--warm` updates, which hold torch.compile's compilation and the warm-up, left
out), the seconds an update takes there, and how many graphs dynamo compiled, recompiled and broke.

Variants (each on the corpus in `--data`, as paper_recipe.sh writes it):
- `recipe`: the recipe's micro-batches on one GPU: 3,125 tokens a side each, accumulated 8 times (`--no-one-batch`), compiled;
- `eager`: the same, not compiled;
- `one-batch`: the update as one micro-batch of the whole update's tokens (`--one-batch`: accum 1), compiled, as the
  benchmark's step is one batch;
- `one-batch-eager`: that, not compiled.

    python experiments/gpu/recipe_gap.py --variant recipe --data /tmp/wmt/wmt14-en-de --json $OUT/recipe_gap.json
"""
import argparse, json, sys, time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from steady import steady  # noqa: E402

VARIANTS = {'recipe': ['--compile', '--no-one-batch'], 'eager': ['--no-one-batch'], 'one-batch': ['--compile', '--one-batch'], 'one-batch-eager': ['--one-batch']}

def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--variant', choices=VARIANTS, required=True)
    ap.add_argument('--data', required=True, help='the corpus folder (train/valid/test .en/.de)')
    ap.add_argument('--steps', type=int, default=30, help='updates (default 30)')
    ap.add_argument('--log-every', type=int, default=5, help='updates between reads back, the timing windows (default 5)')
    ap.add_argument('--warm', type=int, default=10, help='leave out the windows that start within these first updates (default 10)')
    ap.add_argument('--device', default='cuda')
    ap.add_argument('--runs', default='/tmp', help='the run folders go here, run-gap-VARIANT (default /tmp)')
    ap.add_argument('--extra', default='', help="more tnb-train options, e.g. a dry run on a CPU: '--preset tiny --vocab-size 60 --tokens-per-update 600'")
    ap.add_argument('--json', required=True, help='append the figures here, one JSON line')
    ap.add_argument('--no-compile', action='store_true', help="run a compiled variant eager: a dry run on a CPU, which checks the script, not the compiler")
    a = ap.parse_args(argv)
    import torch
    from torch._dynamo.utils import counters
    from transformer_nb.apps.cli import train_main
    from transformer_nb.lib.checkpoints import open_checkpoint
    from transformer_nb.lib.machine import hardware
    out = Path(a.runs) / f'run-gap-{a.variant}'
    argv = ['--dataset', 'wmt14', '--data-dir', a.data, '--src-lang', 'en', '--tgt-lang', 'de', '--recipe', 'paper-base',
            '--device', a.device, '--steps', str(a.steps), '--log-every', str(a.log_every), '--valid-every', '0',
            '--test-limit', '0', '--no-progress', '--overwrite', '--out', str(out), *a.extra.split(),
            *[x for x in VARIANTS[a.variant] if not (a.no_compile and x == '--compile')]]
    sys.argv[0] = 'tnb-train'; counters.clear(); t0 = time.perf_counter()
    try: train_main(argv)
    except SystemExit as e:
        if e.code: raise
    wall = time.perf_counter() - t0
    ck = open_checkpoint(out, 'resume', mmap=True)
    s = steady(ck.meta['history']['train'], a.warm)
    rec = dict(variant=a.variant, hardware=hardware(), steps=ck.step, wall_seconds=round(wall, 1), accum=ck.meta['train_config']['accum'],
               max_tokens=ck.meta['train_config']['max_tokens'], log_every=a.log_every, **s,
               steady_update_s=round(s['steady_seconds'] / s['steady_updates'], 4),
               dynamo={k: dict(counters[k]) for k in ('stats', 'recompiles', 'graph_break', 'frames')},
               max_memory_gb=round(torch.cuda.max_memory_allocated() / 2**30, 1) if torch.cuda.is_available() else None)
    with open(a.json, 'a') as f: f.write(json.dumps(rec) + '\n')
    print({k: rec[k] for k in ('variant', 'accum', 'steady_tok_s', 'steady_update_s', 'steady_updates', 'wall_seconds')},
          [w['tok_s'] for w in s['windows']], rec['dynamo']['stats'], flush=True)

if __name__ == '__main__':
    main()
