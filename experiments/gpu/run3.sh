#!/usr/bin/env bash
# The recipe that trained (w512n3, chosen on en-de's validation BLEU) for de-en and en-fr.
set -o pipefail
bash experiments/gpu/train.sh 2.75 de-en:w512n3 en-fr:w512n3
source experiments/gpu/setup.sh
(cd "$OUT" && tar czf train_bundle.tgz logs rec && rm -rf logs rec)    # the device returns at most 8 files
ls -la "$OUT"; echo "[$SECONDS s] done"
