#!/usr/bin/env bash
# Multi30k on one GPU. An eager training step is bound by the host launching kernels, so two runs share the GPU at a
# time (one CPU core each) with large batches. Each wave trains for MINUTES;
# while the next wave trains, the last 5 checkpoints (about one epoch apart) of the previous one are averaged, and
# valid (for choosing) and test2016 (greedy, beam 4, average + beam 4) translations are scored with sacreBLEU.
#   bash experiments/gpu/train.sh MINUTES PAIR:RECIPE [PAIR:RECIPE ...]     e.g. 3 de-en:w512n6 en-de:w512n6
# Records (results.json format) go to $OUT/rec/, logs to $OUT/logs/, curves and scores to $OUT/gpu_runs.json.
source experiments/gpu/setup.sh
MIN=${1:?minutes}; shift; JOBS=("$@")
RUNS=${RUNS:-/tmp/runs}; mkdir -p "$RUNS" "$OUT/logs" "$OUT/rec"
recipe() {  # width 512 (Table 3's strongest lever at this scale), dropout 0.3 as for small data, 12k-token batches
  local common="--d-model 512 --h 8 --d-ff 2048 --p-drop 0.3 --p-attn 0.1 --p-ffn 0.1 --max-tokens 12288 --warmup 1000 --lr-scale 0.5"
  case $1 in
    w512n6) echo "$common --N 6" ;;
    w512n3) echo "$common --N 3" ;;
    *) echo "unknown recipe $1" >&2; return 1 ;;
  esac
}
train_one() {  # PAIR RECIPE
  local s=${1%-*} t=${1#*-} name=m30k-$1-gpu-$2
  tnb-train --dataset multi30k --data-dir "$DATA" --src-lang $s --tgt-lang $t --vocab-size 8000 --epochs 1000 \
    --max-time "$MIN" --save-every 42 --keep 6 --test-limit 0 --no-progress --threads 1 --seed 0 \
    --out "$RUNS/$name" $(recipe $2) > "$OUT/logs/$name.log" 2>&1 || { echo "$name: training failed"; tail -3 "$OUT/logs/$name.log"; }
}
eval_one() {  # PAIR RECIPE
  local s=${1%-*} t=${1#*-} name=m30k-$1-gpu-$2; local dir=$RUNS/$name log=$OUT/logs/$name.log
  local ev="tnb-evaluate --dataset multi30k --data-dir $DATA --src-lang $s --tgt-lang $t --device ${EVAL_DEVICE:-cuda}"
  tnb-average "$dir" --last 5 -o "$dir/average.pt" >> "$log" 2>&1
  $ev "$dir/average.pt" --split valid --beam 4 --json > "$dir/valid.avg5-beam4.json" 2>> "$log"
  $ev "$dir" --beam 1 --record "$OUT/rec/$name.json" --id "$name-greedy" >> "$log" 2>&1
  $ev "$dir" --beam 4 --record "$OUT/rec/$name.json" --id "$name-beam4" >> "$log" 2>&1
  $ev "$dir/average.pt" --beam 4 --record "$OUT/rec/$name.json" --id "$name-avg5-beam4" \
    --hyp-out "$OUT/logs/$name.test.avg5-beam4.txt" >> "$log" 2>&1
  echo "[$SECONDS s] $name: evaluated: $(tail -4 "$log" | head -2 | tr '\n' ' ')"
}
evals=()
for ((i = 0; i < ${#JOBS[@]}; i += 2)); do
  wave=("${JOBS[@]:i:2}"); pids=()
  echo "[$SECONDS s] training ${wave[*]} for $MIN min"
  for j in "${wave[@]}"; do train_one ${j%%:*} ${j##*:} & pids+=($!); done
  wait "${pids[@]}"
  for j in "${wave[@]}"; do eval_one ${j%%:*} ${j##*:} & evals+=($!); done
done
wait "${evals[@]}"
echo "[$SECONDS s] all runs trained and evaluated"
python3 experiments/gpu/collect.py "$RUNS" "$OUT/gpu_runs.json"
for d in "$RUNS"/*/; do cp "$d/loss.png" "$OUT/logs/$(basename "$d").loss.png" 2>/dev/null; done
