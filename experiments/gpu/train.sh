#!/usr/bin/env bash
# Multi30k on one GPU: every (direction, recipe) pair trains at once, for MINUTES each, then its last 5 checkpoints
# (about one epoch apart) are averaged, and greedy / beam-4 translations of test2016 are scored with sacreBLEU.
#   bash experiments/gpu/train.sh MINUTES ["de-en en-de en-fr"] ["w512n3 w512n6"]
# Records (results.json format) go to $OUT/rec/, logs to $OUT/logs/, curves and scores to $OUT/gpu_runs.json.
source experiments/gpu/setup.sh
MIN=${1:?minutes}; PAIRS=${2:-"de-en en-de en-fr"}; RECIPES=${3:-"w512n3 w512n6"}
RUNS=${RUNS:-/tmp/runs}; mkdir -p "$RUNS" "$OUT/logs" "$OUT/rec"
recipe() {  # the recipes: width 512 (Table 3's strongest lever at this scale), dropout 0.3 as for small data
  case $1 in
    w512n3) echo "--d-model 512 --N 3 --h 8 --d-ff 2048 --p-drop 0.3 --p-attn 0.1 --p-ffn 0.1 --warmup 1500" ;;
    w512n6) echo "--d-model 512 --N 6 --h 8 --d-ff 2048 --p-drop 0.3 --p-attn 0.1 --p-ffn 0.1 --warmup 2500" ;;
    w256n3) echo "--d-model 256 --N 3 --h 8 --d-ff 1024 --p-drop 0.3 --p-attn 0.1 --p-ffn 0.1 --warmup 1500" ;;
    *) echo "unknown recipe $1" >&2; return 1 ;;
  esac
}
one() {  # PAIR RECIPE
  local s=${1%-*} t=${1#*-} name=m30k-$1-gpu-$2 dir=$RUNS/m30k-$1-gpu-$2 log=$OUT/logs/m30k-$1-gpu-$2.log
  local ev="tnb-evaluate --dataset multi30k --data-dir $DATA --src-lang $s --tgt-lang $t --device ${EVAL_DEVICE:-cuda}"
  tnb-train --dataset multi30k --data-dir "$DATA" --src-lang $s --tgt-lang $t --vocab-size 8000 --max-tokens 4096 \
    --epochs 1000 --max-time "$MIN" --save-every 123 --keep 6 --test-limit 0 --no-progress --threads 2 --seed 0 \
    --out "$dir" $(recipe $2) > "$log" 2>&1 || { echo "$name: training failed"; tail -3 "$log"; return 1; }
  tnb-average "$dir" --last 5 -o "$dir/average.pt" >> "$log" 2>&1
  $ev "$dir/average.pt" --split valid --beam 4 --json > "$dir/valid.avg5-beam4.json" 2>> "$log"
  $ev "$dir" --beam 1 --record "$OUT/rec/$name.json" --id "$name-greedy" >> "$log" 2>&1
  $ev "$dir" --beam 4 --record "$OUT/rec/$name.json" --id "$name-beam4" >> "$log" 2>&1
  $ev "$dir/average.pt" --beam 4 --record "$OUT/rec/$name.json" --id "$name-avg5-beam4" \
    --hyp-out "$dir/test.avg5-beam4.txt" >> "$log" 2>&1
  echo "$name: done $(tail -1 "$log")"
}
t0=$(date +%s)
for p in $PAIRS; do for r in $RECIPES; do one $p $r & done; done
wait
echo "== all runs ended after $(( $(date +%s) - t0 ))s"
python3 experiments/gpu/collect.py "$RUNS" "$OUT/gpu_runs.json"
for d in "$RUNS"/*/; do cp "$d/loss.png" "$OUT/logs/$(basename "$d").loss.png" 2>/dev/null; done
(cd "$OUT" && tar czf train_bundle.tgz logs rec && rm -rf logs rec)    # the device returns at most 8 files
