#!/usr/bin/env bash
# The GPU check of tnb-train's gap to the benchmark (paper_recipe.sh against paper_scale.sh): the paper-base recipe on
# the synthetic WMT14-shaped corpus of paper_recipe.sh, in four variants of recipe_gap.py (the recipe as it is, compiled
# and eager; the update as one 25,000-token micro-batch, compiled and eager). Each prints its update times (median, p10,
# p90, max) and dynamo's counts (graphs, recompilations, graph breaks); recompilations are also logged
# (TORCH_LOGS=recompiles, with the run's standard error) to $OUT/recipe_gap.recompiles.log. About 8 minutes on one H200.
#   bash experiments/gpu/recipe_gap.sh          # writes $OUT/recipe_gap.json (one line a variant)
set -uo pipefail
export PYTHONUNBUFFERED=1 MPLBACKEND=Agg OMP_NUM_THREADS=${OMP_NUM_THREADS:-4}
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
if ! python3 -c "import fastcore, sentencepiece, tqdm" 2>/dev/null; then
  python3 -m pip install -q --no-index --find-links .whl --target /tmp/site fastcore tqdm sentencepiece packaging
  export PYTHONPATH=$PWD:/tmp/site
else export PYTHONPATH=$PWD; fi
D=/tmp/wmt/wmt14-en-de; mkdir -p $D
python3 - "$D" <<'PY'
import sys; sys.path.insert(0, 'bench')
from pathlib import Path
from bench_data_scale import generate
d = Path(sys.argv[1]); generate(d, 100_000)
for sp in ('valid', 'test'):
    for l in ('en', 'de'):
        with open(d / f'train.{l}', encoding='utf-8') as f: head = [next(f) for _ in range(500)]
        (d / f'{sp}.{l}').write_text(''.join(head), encoding='utf-8')
PY
STEPS=${STEPS:-30}; R="python3 experiments/gpu/recipe_gap.py --data $D --steps $STEPS --json $OUT/recipe_gap.json"
rm -f "$OUT/recipe_gap.json"
echo "== recipe (3,125 x accum 8), compiled"; TORCH_LOGS=recompiles timeout 220 $R --variant recipe 2> "$OUT/recipe_gap.recompiles.log"; tail -3 "$OUT/recipe_gap.recompiles.log"
echo "== recipe, eager";                      timeout 90 $R --variant eager 2>&1 | tail -3
echo "== one batch of 25,000, compiled";      timeout 180 $R --variant one-batch 2>&1 | tail -3
echo "== one batch of 25,000, eager";         timeout 90 $R --variant one-batch-eager 2>&1 | tail -3
echo "recompilations logged: $(grep -c 'Recompiling' "$OUT/recipe_gap.recompiles.log")"
