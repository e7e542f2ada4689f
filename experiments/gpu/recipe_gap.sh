#!/usr/bin/env bash
# The GPU check of tnb-train's gap to the benchmark (paper_recipe.sh against paper_scale.sh): the paper-base recipe on
# the synthetic WMT14-shaped corpus of paper_recipe.sh, in four variants of recipe_gap.py (the recipe as it is, compiled
# and eager; the update as one 25,000-token micro-batch, compiled and eager). Each prints its update times (median, p10,
# p90, max) and dynamo's counts (graphs, recompilations, graph breaks); recompilations are also logged
# (TORCH_LOGS=recompiles, with the run's standard error) to $OUT/recipe_gap.recompiles.log. About 8 minutes on one H200.
#   bash experiments/gpu/recipe_gap.sh          # writes $OUT/recipe_gap.json (one line a variant)
set -uo pipefail
source experiments/gpu/wmt_slice.sh     # the wheels, PYTHONPATH, $OUT, and the corpus in $D
STEPS=${STEPS:-30}; R="python3 experiments/gpu/recipe_gap.py --data $D --steps $STEPS --json $OUT/recipe_gap.json"
rm -f "$OUT/recipe_gap.json"
echo "== recipe (3,125 x accum 8), compiled"; TORCH_LOGS=recompiles timeout 220 $R --variant recipe 2> "$OUT/recipe_gap.recompiles.log"; tail -3 "$OUT/recipe_gap.recompiles.log"
echo "== recipe, eager";                      timeout 90 $R --variant eager 2>&1 | tail -3
echo "== one batch of 25,000, compiled";      timeout 180 $R --variant one-batch 2>&1 | tail -3
echo "== one batch of 25,000, eager";         timeout 90 $R --variant one-batch-eager 2>&1 | tail -3
echo "recompilations logged: $(grep -c 'Recompiling' "$OUT/recipe_gap.recompiles.log")"
