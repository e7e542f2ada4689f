# Sourced by paper_recipe.sh and recipe_gap.sh: the carried wheels where the machine lacks them, this checkout on
# PYTHONPATH, $OUT, and in $D (default /tmp/wmt/wmt14-en-de) a synthetic corpus laid out as `tnb-data wmt14` writes it
# ($PAIRS pairs, default 100,000, from bench/bench_data_scale.py's generator, lengths about as WMT14's; valid and test:
# its first 500 pairs), made within 90 s or not at all; with NO_CORPUS=1, no corpus (a script that makes its own batches).
export PYTHONUNBUFFERED=1 MPLBACKEND=Agg OMP_NUM_THREADS=${OMP_NUM_THREADS:-4}
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
if ! python3 -c "import fastcore, sentencepiece, tqdm" 2>/dev/null; then
  python3 -m pip install -q --no-index --find-links .whl --target /tmp/site fastcore tqdm sentencepiece packaging
  export PYTHONPATH=$PWD:/tmp/site
else export PYTHONPATH=$PWD${PYTHONPATH:+:$PYTHONPATH}; fi   # what the caller put there (carried wheels) stays
D=${D:-/tmp/wmt/wmt14-en-de}
[ "${NO_CORPUS:-}" = 1 ] && return 0
mkdir -p "$D"
timeout 90 python3 - "$D" "${PAIRS:-100000}" <<'PY' || { echo "wmt_slice.sh: the synthetic corpus was not made in $D" >&2; return 1; }
import sys; sys.path.insert(0, 'bench')
from pathlib import Path
from bench_data_scale import generate
d = Path(sys.argv[1]); generate(d, int(sys.argv[2]))
for sp in ('valid', 'test'):
    for l in ('en', 'de'):
        with open(d / f'train.{l}', encoding='utf-8') as f: head = [next(f) for _ in range(500)]
        (d / f'{sp}.{l}').write_text(''.join(head), encoding='utf-8')
PY
