#!/usr/bin/env bash
# tnb-train itself with the paper-base recipe on one GPU: a synthetic corpus laid out as `tnb-data wmt14` writes it
# (100,000 pairs from bench/bench_data_scale.py's generator, lengths about as WMT14's), the recipe's 37,000-piece shared
# vocabulary and 25,000 tokens a side per update, bf16, torch.compile, as `tnb-train --recipe paper-base --compile`
# runs on one GPU. Its figure is the trainer's throughput in steady state (experiments/gpu/steady.py): the run reads its
# figures back every LOG_EVERY updates, the device synchronized at each window's ends and nowhere else; the windows
# that start within the first WARM updates (compilation, the allocator's and the kernels' warm-up) are left out, and
# the others' target tokens are summed over their seconds. Each window's rate is recorded too.
#   bash experiments/gpu/paper_recipe.sh          # writes $OUT/paper_recipe_gpu.json; within 8 minutes on one H100 or H200
set -uo pipefail
source experiments/gpu/wmt_slice.sh || exit 1    # the wheels, PYTHONPATH, $OUT, and the corpus in $D
STEPS=${STEPS:-60} LOG_EVERY=${LOG_EVERY:-10} WARM=${WARM:-20}
RUN=/tmp/run-paper-base
rm -rf "$RUN"
timeout 360 python3 -c "import sys; sys.argv[0] = 'tnb-train'; from transformer_nb.apps.cli import train_main; train_main()" \
  --dataset wmt14 --data-dir "$D" --src-lang en --tgt-lang de --recipe paper-base --device cuda --compile \
  --steps "$STEPS" --log-every "$LOG_EVERY" --valid-every 0 --test-limit 0 --no-progress --out "$RUN" 2>&1 | tail -15
rc=${PIPESTATUS[0]}
[ "$rc" = 0 ] || { echo "paper_recipe.sh: tnb-train failed (exit $rc$( [ "$rc" = 124 ] && echo ': out of time'))" >&2; exit 1; }
python3 experiments/gpu/steady.py "$RUN" --warm "$WARM" --json "$OUT/paper_recipe_gpu.json" \
  --command "bash experiments/gpu/paper_recipe.sh (STEPS=$STEPS LOG_EVERY=$LOG_EVERY WARM=$WARM)"
