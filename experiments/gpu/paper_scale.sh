#!/usr/bin/env bash
# The paper's two models at the paper's batch, one GPU: training steps per second, target tokens per second and MFU,
# bf16, eager and torch.compile, for the cost table of "Reproduce Table 2 on a cluster" (apps_cluster).
# Shapes: a shared vocabulary of 37,000 pieces (EN-DE) and 256 sentence pairs of 100 + 100 tokens per step, that is
# 25,600 source and 25,600 target tokens, the paper's ~25,000 + 25,000 of one update (§5.1), on one GPU.
#   bash experiments/gpu/paper_scale.sh          # writes $OUT/bench_paper_gpu.json
set -uo pipefail
export PYTHONUNBUFFERED=1 MPLBACKEND=Agg OMP_NUM_THREADS=${OMP_NUM_THREADS:-4}
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
if ! python3 -c "import fastcore, sentencepiece, tqdm" 2>/dev/null; then    # a bare GPU machine: the carried wheels
  python3 -m pip install -q --no-index --find-links .whl --target /tmp/site fastcore tqdm sentencepiece packaging
  export PYTHONPATH=$PWD:/tmp/site
else
  export PYTHONPATH=$PWD
fi
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader
python3 -c "import torch; print(torch.__version__, torch.cuda.get_device_name(), torch.cuda.is_bf16_supported())"
B="python3 bench/bench_train.py --device cuda --precision bf16 --mfu --threads 4 --only ours --vocab 37000 --batch 256 --len 100 --json $OUT/bench_paper_gpu.json"
for preset in base big; do
  echo "== $preset, eager"; timeout 150 $B --preset $preset --steps 20 --warmup 5 --repeats 3
  echo "== $preset, torch.compile"; timeout 300 $B --preset $preset --steps 20 --warmup 3 --repeats 3 --compile
done
