#!/usr/bin/env bash
# Table 3's every row and the five changes since 2017 (and all five together), three seeds each, on one GPU, in the
# budget of one lent device call: experiments/table3.py with JOBS runs at a time (each one CPU thread: an eager step of
# the mini model is bound by the host launching kernels), no run started after DEADLINE seconds, the runs under way
# finished. The base's seeds run first, then every run of seed 0, then seed 1, then seed 2, so a sweep cut short keeps
# whole seeds. Records go to $OUT/results/table3_gpu.json and since2017_gpu.json (never mixed with the CPU's files), each
# run's validation translations to $OUT/results/hyps/, the log to $OUT/table3_sweep.log; then, while time is left,
# the verdicts (seed_verdicts: per-seed Δ against the base of the same seed, t-test over seeds, Holm) and each run's paired
# bootstrap against that base (`--compare`: *_significance.json). The commands stored name the run folders runs/table3.
#   OUT=/tmp/out bash experiments/gpu/table3_sweep.sh          JOBS=12 SEEDS=0,1,2 STEPS=800 DEADLINE=390 COMPARE=60
#   DRY=1 bash experiments/gpu/table3_sweep.sh                 on a CPU: the tiny preset, 5 updates, two runs a family
source experiments/gpu/setup.sh
JOBS=${JOBS:-12}; SEEDS=${SEEDS:-0,1,2}; STEPS=${STEPS:-800}; DEADLINE=${DEADLINE:-390}; COMPARE=${COMPARE:-60}
ONLY=${ONLY:-all,since2017}; RUNS=${RUNS:-/tmp/t3runs}; mkdir -p "$OUT/results" "$RUNS"
ARGS=(--only "$ONLY" --seeds "$SEEDS" --steps "$STEPS" --jobs "$JOBS" --threads 1 --runs "$RUNS"
      --results-dir "$OUT/results" --suffix _gpu --deadline "$DEADLINE")
DATA_ARGS=(); [ -d "$DATA" ] && DATA_ARGS=(--data-dir "$DATA"); ARGS+=("${DATA_ARGS[@]}")
if [ -n "$DRY" ]; then ARGS+=(--preset tiny --steps 5 --device cpu --only "${ONLY_DRY:-base,A-h1,preln,all5}" --seeds 0); else ARGS+=(--device cuda); fi
{ nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader 2>/dev/null || echo "no GPU"; python3 -c "import torch; print('torch', torch.__version__)"; } > "$OUT/machine.txt"
echo "[$SECONDS s] python3 experiments/table3.py ${ARGS[*]}" | tee "$OUT/table3_sweep.log"
timeout -s KILL $((DEADLINE + 150)) python3 experiments/table3.py "${ARGS[@]}" >> "$OUT/table3_sweep.log" 2>&1
echo "[$SECONDS s] sweep exited with $?" | tee -a "$OUT/table3_sweep.log"
timeout -s KILL "$COMPARE" python3 experiments/table3.py --compare --results-dir "$OUT/results" --suffix _gpu --runs "$RUNS" \
  "${DATA_ARGS[@]}" >> "$OUT/table3_sweep.log" 2>&1 || echo "[$SECONDS s] compare left unfinished: run it on the CPU" | tee -a "$OUT/table3_sweep.log"
python3 - "$OUT/results" <<'PY' | tee -a "$OUT/table3_sweep.log"
import json, sys, pathlib
for f in sorted(pathlib.Path(sys.argv[1]).glob('*_gpu.json')):
    recs = json.loads(f.read_text()); print(f"{f.name}: {len(recs)} runs", *(f"{r['id']} {r['bleu']:.2f}" for r in recs), sep='\n  ')
PY
echo "[$SECONDS s] done"
