#!/usr/bin/env bash
# tnb-train itself with the paper-base recipe on one GPU: a synthetic corpus laid out as `tnb-data wmt14` writes it
# (100,000 pairs from bench/bench_data_scale.py's generator, lengths about as WMT14's), the recipe's 37,000-piece shared
# vocabulary, its 3,125 tokens a side per micro-batch (8 processes' share of 25,000) accumulated 8 times on one GPU, bf16,
# torch.compile. Prints the run's median target tokens per second over updates 11 to the end, from its checkpoint.
#   bash experiments/gpu/paper_recipe.sh          # writes $OUT/paper_recipe_gpu.json
set -uo pipefail
source experiments/gpu/wmt_slice.sh     # the wheels, PYTHONPATH, $OUT, and the corpus in $D
STEPS=${STEPS:-60}
timeout 420 python3 -c "import sys; sys.argv[0] = 'tnb-train'; from transformer_nb.apps.cli import train_main; train_main()" \
  --dataset wmt14 --data-dir $D --src-lang en --tgt-lang de --recipe paper-base --device cuda --compile \
  --steps $STEPS --valid-every 0 --test-limit 0 --no-progress --out /tmp/run-paper-base 2>&1 | tail -15
python3 - "$OUT/paper_recipe_gpu.json" "$STEPS" <<'PY'
import json, statistics, sys, datetime
from transformer_nb.lib.checkpoints import open_checkpoint
from transformer_nb.lib.machine import hardware
ck = open_checkpoint('/tmp/run-paper-base', None, mmap=True)
h = ck.meta['history']['train']; late = h[10:] or h
rec = dict(recipe='paper-base', pair='en-de', steps=ck.step, hardware=hardware(), date=datetime.date.today().isoformat(),
           command=f"bash experiments/gpu/paper_recipe.sh (STEPS={sys.argv[2]})", train_config=ck.meta['train_config'],
           median_tok_s=round(statistics.median(r['tok_s'] for r in late)), median_tokens=round(statistics.median(r['tokens'] for r in late)),
           updates_measured=len(late))
json.dump(rec, open(sys.argv[1], 'w'), indent=1); print({k: rec[k] for k in ('steps', 'median_tok_s', 'median_tokens', 'hardware')})
PY
