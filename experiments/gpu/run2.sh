#!/usr/bin/env bash
# The Multi30k runs (two waves of two runs, 2.75 minutes each), then decoding speed on the GPU.
set -o pipefail
bash experiments/gpu/train.sh 2.75 de-en:w512n6 en-de:w512n6 en-fr:w512n6 en-de:w512n3
source experiments/gpu/setup.sh
(cd "$OUT" && tar czf train_bundle.tgz logs rec && rm -rf logs rec)    # the device returns at most 8 files
timeout 75 python3 experiments/gpu/decode_speed.py /tmp/runs/m30k-de-en-gpu-w512n6/average.pt "$DATA/test_2016_flickr.de.gz" \
  "$OUT/decode_gpu.json" --n 1000 --n1 60
ls -la "$OUT"; echo "[$SECONDS s] done"
