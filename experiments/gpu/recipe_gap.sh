#!/usr/bin/env bash
# The GPU check of tnb-train's speed against the benchmark's step (paper_recipe.sh against paper_scale.sh), in two parts,
# each within 10 minutes of device time (its timeouts, the corpus's included, add up to 9 minutes at most; the setup
# that installs the carried wheels takes seconds).
#
# `variants` (the default): the paper-base recipe on the synthetic WMT14-shaped corpus of paper_recipe.sh, in four
# variants of recipe_gap.py (the recipe's 8 micro-batches an update, compiled and eager; the update as one micro-batch
# of 25,000 tokens, compiled and eager). Each reports its timing windows, read back every 5 updates with the device
# synchronized at each window's ends, and its target tokens/s in steady state (the windows of the first 10 updates,
# compilation and warm-up, left out), and dynamo's counts (graphs, recompilations, graph breaks); recompilations are also
# logged (TORCH_LOGS=recompiles, with the run's standard error) to $OUT/recipe_gap.recompiles.log.
#
# `trainer`: the trainer's update against the raw step (bench/bench_trainer_step.py) at the paper's update, 25,000
# padded tokens a side as one micro-batch, lengths 10-60 (about WMT14's), bf16, compiled, for paper-base and
# paper-big: target tokens/s of each, their ratio (median over interleaved repeats), MFU against the bf16 dense peak
# (989 TFLOP/s, H100 and H200 SXM), the profiler's top operations and a trace of two of the trainer's updates (each
# size under its own timeout); the base half alone: SIZES=base.
#
# DRY=1 runs either part on the CPU, the tiny preset at a small update and a small corpus, to check the script before a
# GPU is lent: nothing is compiled (the compiled variants run eager, whose figures are then no measurement), so it ends
# within minutes on a busy 2-core machine, each variant within 120 s; EXTRA adds tnb-train options to every variant, TIMEOUTS="recipe=200" sets a variant's timeout (seconds).
# Exits 0 only when every variant (every size) wrote its figures; else 1, naming those that failed.
#   bash experiments/gpu/recipe_gap.sh              # writes $OUT/recipe_gap.json (one line a variant)
#   bash experiments/gpu/recipe_gap.sh trainer      # writes $OUT/trainer_vs_step_gpu.json, $OUT/trace-{base,big}.json.gz
#   DRY=1 bash experiments/gpu/recipe_gap.sh        # VARIANTS="recipe eager" runs those alone
set -uo pipefail
PART=${1:-variants}
case "$PART" in variants|trainer) ;; *) echo "recipe_gap.sh: unknown part '$PART' (variants or trainer)" >&2; exit 2;; esac
DRY=${DRY:-}
failed=()

if [ "$PART" = trainer ]; then
  NO_CORPUS=1 source experiments/gpu/wmt_slice.sh   # the wheels, PYTHONPATH, $OUT; the bench makes its own batches
  J=$OUT/trainer_vs_step_gpu.json; rm -f "$J"
  if [ "$DRY" = 1 ]; then
    ARGS="--device cpu --precision fp32 --vocab 64 --max-tokens 300 --lengths 4 12 --updates 2 --repeats 1 --threads 1"
  else
    ARGS="--device cuda --precision bf16 --compile --vocab 37000 --max-tokens 25000 --lengths 10 60 --updates 20 --repeats 3 --mfu"
  fi
  for size in ${SIZES:-base big}; do
    preset=$size; [ "$DRY" = 1 ] && preset=tiny
    case "$size" in base) limit=200;; big) limit=260;; *) echo "recipe_gap.sh: unknown size '$size' (base or big)" >&2; exit 2;; esac   # big compiles and steps longer
    [ "$DRY" = 1 ] && limit=${DRY_LIMIT:-120}                      # eager on a CPU, tiny (ARGS: no --compile); no device time is spent
    echo "== paper-$size: the trainer's update against the raw step"
    n=$( [ -s "$J" ] && python3 -c "import json,sys; print(len(json.load(open(sys.argv[1]))))" "$J" || echo 0 )
    timeout $limit python3 bench/bench_trainer_step.py --preset $preset $ARGS --label paper-$size --json "$J" \
      --trace "$OUT/trace-$size.json.gz" 2>&1 | tail -6
    rc=${PIPESTATUS[0]}
    m=$( [ -s "$J" ] && python3 -c "import json,sys; print(len(json.load(open(sys.argv[1]))))" "$J" || echo 0 )
    if [ "$rc" != 0 ] || [ "$m" -le "$n" ]; then failed+=("paper-$size (exit $rc$( [ "$rc" = 124 ] && echo ': out of time'))"); fi
  done
  if [ -s "$J" ]; then python3 - "$J" <<'PY'
import json, sys
for r in json.load(open(sys.argv[1])):
    print(f"{r['label']} ({r['preset']}): trainer {r['trainer_tok_s']:,} against raw {r['raw_tok_s']:,} target tokens/s, ratio {r['median_ratio']}, "
          f"MFU {r.get('trainer_mfu')} ({r['hardware']})")
PY
  fi
else
  if [ "$DRY" = 1 ]; then export PAIRS=${PAIRS:-3000} D=${D:-$OUT/wmt14-en-de}; fi
  source experiments/gpu/wmt_slice.sh || exit 1     # the wheels, PYTHONPATH, $OUT, and the corpus in $D
  J=$OUT/recipe_gap.json; rm -f "$J" "$OUT/recipe_gap.recompiles.log"
  R=(python3 experiments/gpu/recipe_gap.py --data "$D" --json "$J" --runs "$OUT")
  if [ "$DRY" = 1 ]; then
    echo "recipe_gap.sh: DRY=1, a check of the script on the CPU: nothing is compiled (the compiled variants run eager), each variant within ${DRY_LIMIT:-120} s"
    R+=(--device cpu --no-compile --steps 12 --log-every 3 --warm 3 --extra "--preset tiny --vocab-size 4000 --tokens-per-update 2048 --max-tokens 512 --precision fp32 --threads 1 ${EXTRA:-}")
  else
    R+=(--steps 30 --log-every 5 --warm 10 --extra "${EXTRA:-}")
  fi
  declare -A LIMIT=([recipe]=170 [eager]=80 [one-batch]=150 [one-batch-eager]=70)   # seconds; with the corpus's 90: 560 s
  if [ "$DRY" = 1 ]; then for v in "${!LIMIT[@]}"; do LIMIT[$v]=${DRY_LIMIT:-120}; done; fi   # eager on a CPU, tiny: no device time is spent
  for kv in ${TIMEOUTS:-}; do LIMIT[${kv%%=*}]=${kv#*=}; done   # TIMEOUTS="recipe=200 eager=60": a variant's own timeout, in seconds
  declare -A SAID=([recipe]="the recipe's micro-batches (3,125 x accum 8), compiled" [eager]="the recipe's micro-batches, eager"
                   [one-batch]="one micro-batch of 25,000, compiled" [one-batch-eager]="one micro-batch of 25,000, eager")
  for v in ${VARIANTS:-recipe eager one-batch one-batch-eager}; do
    [ -n "${LIMIT[$v]:-}" ] || { echo "recipe_gap.sh: unknown variant '$v' (recipe, eager, one-batch or one-batch-eager)" >&2; exit 2; }
    echo "== $v: ${SAID[$v]}$( [ "$DRY" = 1 ] && [[ ${SAID[$v]} == *compiled ]] && echo ', run eager here (DRY=1)')"
    n=$( [ -s "$J" ] && wc -l < "$J" || echo 0 )
    TORCH_LOGS=recompiles timeout ${LIMIT[$v]} "${R[@]}" --variant "$v" > "$OUT/recipe_gap.$v.log" 2>&1
    rc=$?
    cat "$OUT/recipe_gap.$v.log" >> "$OUT/recipe_gap.recompiles.log"; tail -3 "$OUT/recipe_gap.$v.log"
    m=$( [ -s "$J" ] && wc -l < "$J" || echo 0 )
    if [ "$rc" != 0 ] || [ "$m" -le "$n" ]; then failed+=("$v (exit $rc$( [ "$rc" = 124 ] && echo ': out of time'))"); fi
  done
  echo "recompilations logged: $(grep -c 'Recompiling' "$OUT/recipe_gap.recompiles.log")"
fi

if [ ${#failed[@]} -gt 0 ]; then
  echo "recipe_gap.sh: ${#failed[@]} of the runs failed, their figures are missing: ${failed[*]}" >&2
  exit 1
fi
