#!/usr/bin/env bash
# Correctness and throughput on one GPU machine, in one go: see README.md here. Timings first, on a quiet machine.
source experiments/gpu/setup.sh
set +e
stamp() { echo "== [$SECONDS s] $*"; }
stamp "machine"
nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.max.sm --format=csv,noheader
python3 -c "import torch, sys; print(sys.version.split()[0], torch.__version__, torch.cuda.get_device_name(), torch.cuda.get_device_capability(), torch.backends.cuda.flash_sdp_enabled())"
echo "cores $(nproc); git: $(ls -d .git 2>/dev/null || echo none); commit $TNB_COMMIT"

B="python3 bench/bench_train.py --device cuda --precision bf16 --mfu --threads 4 --json $OUT/bench_train_gpu.json"
stamp "1. bench_train: base (paper: 37k shared vocabulary), batch 256 x 100 = 25.6k target tokens, eager"
timeout 120 $B --preset base --vocab 37000 --batch 256 --len 100 --steps 20 --warmup 5 --repeats 3
stamp "2. the same, torch.compile"
timeout 300 $B --preset base --vocab 37000 --batch 256 --len 100 --steps 20 --warmup 3 --repeats 3 --compile
stamp "3. a Multi30k-sized batch (4096 target tokens = 256 x 16), base, 8k vocabulary, eager: the bound for tnb-train"
timeout 60 $B --preset base --vocab 8000 --batch 256 --len 16 --steps 30 --warmup 5 --repeats 3
stamp "4. tnb-train itself on Multi30k: base, --max-tokens 4096, 300 updates"
timeout 120 tnb-train --dataset multi30k --data-dir "$DATA" --src-lang de --tgt-lang en --preset base --max-tokens 4096 \
  --steps 300 --warmup 4000 --test-limit 0 --no-progress --threads 4 --save-every 0 --out /tmp/tput > $OUT/tput.log 2>&1
tail -2 $OUT/tput.log
python3 - <<'PY'
import statistics
from transformer_nb.lib.checkpoints import open_checkpoint
h = open_checkpoint('/tmp/tput', 'resume').meta['history']['train'][50:]
print(f"tnb-train median {statistics.median(r['tok_s'] for r in h):.0f} target tok/s (non-pad) over updates 51-300; "
      f"median batch {statistics.median(r['tokens'] for r in h):.0f} target tokens")
PY

stamp "5. in parallel: CUDA tests, the whole suite, every notebook with #| cuda cells, a 45-second train.sh smoke test"
( timeout 300 python3 -m pytest -q -s -rA tests/test_cuda.py > $OUT/test_cuda.log 2>&1; echo "test_cuda exit $?" >> $OUT/test_cuda.log ) &
( TNB_THREADS=1 timeout 300 python3 -m pytest -q -n 6 -p no:cacheprovider tests --deselect tests/test_config.py::test_readme_is_generated_from_index > $OUT/pytest.log 2>&1; echo "pytest exit $?" >> $OUT/pytest.log ) &
( TNB_THREADS=1 timeout 300 nbdev-test --flags cuda --n-workers 4 > $OUT/nbdev_test.log 2>&1; echo "nbdev-test exit $?" >> $OUT/nbdev_test.log ) &
( RUNS=/tmp/smoke timeout 300 bash experiments/gpu/train.sh 0.5 de-en:w512n6 en-de:w512n3 > $OUT/smoke.log 2>&1; (cd $OUT && tar czf smoke.tgz logs rec && rm -rf logs rec); echo "smoke exit $?" >> $OUT/smoke.log ) &
wait
for f in test_cuda pytest nbdev_test smoke; do stamp "$f"; tail -25 $OUT/$f.log; done
(cd "$OUT" && tar czf check_bundle.tgz *.log *.tgz 2>/dev/null && rm -f *.log train_bundle.tgz)
ls -la "$OUT"; stamp "done"
