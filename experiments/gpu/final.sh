#!/usr/bin/env bash
# The suite and the notebooks on the GPU, then the training-loop gap and MFU with CUDA graphs. Each step has its own
# time limit; logs go to $OUT.
source experiments/gpu/setup.sh
set +e
stamp() { echo "== [$SECONDS s] $*"; }
stamp "machine: $(nvidia-smi --query-gpu=name --format=csv,noheader), $(nproc) cores, commit $TNB_COMMIT"
stamp "1. GPU-only tests"
timeout 150 python3 -m pytest -q -s -rA -p no:cacheprovider tests/test_cuda.py > $OUT/test_cuda.log 2>&1; echo "exit $?" >> $OUT/test_cuda.log
grep -E "relative to|passed|failed|exit" $OUT/test_cuda.log
stamp "2. the whole suite on the GPU machine"
TNB_THREADS=1 timeout ${PYTEST_S:-200} python3 -m pytest -q -n 2 -p no:cacheprovider ${PYTEST_ARGS:-tests} --deselect tests/test_config.py::test_readme_is_generated_from_index > $OUT/pytest.log 2>&1; echo "exit $?" >> $OUT/pytest.log
tail -4 $OUT/pytest.log
stamp "3. every notebook, #| cuda cells included"
TNB_THREADS=1 timeout ${NBDEV_S:-150} nbdev-test --flags cuda --n-workers 2 --skip-file-re '^(02_multihead|07_why_self_attention)' > $OUT/nbdev_test.log 2>&1; echo "exit $?" >> $OUT/nbdev_test.log
tail -6 $OUT/nbdev_test.log
stamp "3b. 02 and 07 run here with their outputs saved (their #| cuda rows), and 01 explicit vs fused attention"
timeout 40 python3 experiments/gpu/attn_timing.py $OUT/attn_gpu.json
timeout 90 python3 experiments/gpu/run_nbs.py $OUT nbs/02_multihead.ipynb nbs/07_why_self_attention.ipynb
stamp "5. MFU: base at the paper's batch, eager with the GPU's busy time, then CUDA graphs (reduce-overhead)"
B="python3 bench/bench_train.py --device cuda --precision bf16 --mfu --threads 1 --preset base --vocab 37000 --batch 256 --len 100 --json $OUT/bench_train_gpu2.json"
timeout 60 $B --steps 20 --warmup 5 --repeats 3 --busy
stamp "4. tnb-train against the benchmark step (bench_train, base at a Multi30k-sized batch)"
timeout 60 tnb-train --dataset multi30k --data-dir "$DATA" --src-lang de --tgt-lang en --preset base --max-tokens 4096 \
  --steps 150 --warmup 4000 --test-limit 0 --no-progress --threads 1 --save-every 0 --out /tmp/tput > $OUT/tput.log 2>&1
python3 -c "
import statistics
from transformer_nb.lib.checkpoints import open_checkpoint
h = open_checkpoint('/tmp/tput', 'resume').meta['history']['train'][30:]
print(f'tnb-train median {statistics.median(r[\"tok_s\"] for r in h):.0f} target tok/s over updates 31-150')" 2>&1 | tee -a $OUT/tput.log
timeout 150 $B --steps 20 --warmup 3 --repeats 3 --compile-mode reduce-overhead --only ours
(cd $OUT && tar czf final_logs.tgz *.log *.ipynb && rm -f *.log *.ipynb); ls -la $OUT; stamp "done"
