#!/usr/bin/env bash
# The GPU check of tnb-train's gap to the benchmark (paper_recipe.sh against paper_scale.sh), in two parts.
#
# `variants` (the default): the paper-base recipe on the synthetic WMT14-shaped corpus of paper_recipe.sh, in four
# variants of recipe_gap.py (the recipe as it is, compiled and eager; the update as one 25,000-token micro-batch,
# compiled and eager). Each prints its update times (median, p10, p90, max) and dynamo's counts (graphs,
# recompilations, graph breaks); recompilations are also logged (TORCH_LOGS=recompiles, with the run's standard error)
# to $OUT/recipe_gap.recompiles.log. About 8 minutes on one H200.
#
# `trainer`: the trainer's update against the raw step (bench/bench_trainer_step.py) at the paper's update, 25,000
# padded tokens a side as one micro-batch, lengths 10-60 (about WMT14's), bf16, compiled, for paper-base and
# paper-big: target tokens/s of each, their ratio (median over interleaved repeats), MFU against the bf16 dense peak
# (989 TFLOP/s, H100 and H200 SXM), the profiler's top operations and a trace of two of the trainer's updates. About 7
# minutes on one H100 or H200 (each size under its own timeout); the base half alone: SIZES=base.
# DRY=1 runs the same on the CPU, the tiny preset at a small update, to check the script before a GPU is lent.
#   bash experiments/gpu/recipe_gap.sh              # writes $OUT/recipe_gap.json (one line a variant)
#   bash experiments/gpu/recipe_gap.sh trainer      # writes $OUT/trainer_vs_step_gpu.json, $OUT/trace-{base,big}.json.gz
#   DRY=1 bash experiments/gpu/recipe_gap.sh trainer
set -uo pipefail
PART=${1:-variants}
case "$PART" in variants|trainer) ;; *) echo "recipe_gap.sh: unknown part '$PART' (variants or trainer)" >&2; exit 2;; esac

if [ "$PART" = trainer ]; then
  NO_CORPUS=1 source experiments/gpu/wmt_slice.sh   # the wheels, PYTHONPATH, $OUT; the bench makes its own batches
  J=$OUT/trainer_vs_step_gpu.json; rm -f "$J"
  if [ "${DRY:-}" = 1 ]; then
    ARGS="--device cpu --precision fp32 --vocab 64 --max-tokens 300 --lengths 4 12 --updates 2 --repeats 1 --threads 1"; LIMIT=300
  else
    ARGS="--device cuda --precision bf16 --compile --vocab 37000 --max-tokens 25000 --lengths 10 60 --updates 20 --repeats 3 --mfu"; LIMIT=${LIMIT:-200}
  fi
  for size in ${SIZES:-base big}; do
    preset=$size; [ "${DRY:-}" = 1 ] && preset=tiny
    extra=0; [ "$size" = big ] && extra=60                                # big compiles and steps longer
    echo "== paper-$size: the trainer's update against the raw step"
    timeout $(( LIMIT + extra )) python3 bench/bench_trainer_step.py --preset $preset $ARGS --label paper-$size --json "$J" \
      --trace "$OUT/trace-$size.json.gz" 2>&1 | tail -6
  done
  [ -s "$J" ] || { echo "recipe_gap.sh: no figures in $J" >&2; exit 1; }
  python3 - "$J" <<'PY'
import json, sys
for r in json.load(open(sys.argv[1])):
    print(f"{r['label']} ({r['preset']}): trainer {r['trainer_tok_s']:,} against raw {r['raw_tok_s']:,} target tokens/s, ratio {r['median_ratio']}, "
          f"MFU {r.get('trainer_mfu')} ({r['hardware']})")
PY
  exit 0
fi

source experiments/gpu/wmt_slice.sh     # the wheels, PYTHONPATH, $OUT, and the corpus in $D
STEPS=${STEPS:-30}; R="python3 experiments/gpu/recipe_gap.py --data $D --steps $STEPS --json $OUT/recipe_gap.json"
rm -f "$OUT/recipe_gap.json"
echo "== recipe (3,125 x accum 8), compiled"; TORCH_LOGS=recompiles timeout 220 $R --variant recipe 2> "$OUT/recipe_gap.recompiles.log"; tail -3 "$OUT/recipe_gap.recompiles.log"
echo "== recipe, eager";                      timeout 90 $R --variant eager 2>&1 | tail -3
echo "== one batch of 25,000, compiled";      timeout 180 $R --variant one-batch 2>&1 | tail -3
echo "== one batch of 25,000, eager";         timeout 90 $R --variant one-batch-eager 2>&1 | tail -3
echo "recompilations logged: $(grep -c 'Recompiling' "$OUT/recipe_gap.recompiles.log")"
