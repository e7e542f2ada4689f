#!/usr/bin/env python
"""On a CPU, the trainer's update against the benchmark's step (bench/bench_train.py) on the same batch, eager, one
thread, the trainer configured as on a GPU (no CPU levers): whether the trainer's own code (collating, the fused loss,
the accounting, the syncs) costs more than the step, and what splitting the batch into 8 micro-batches costs. Runs
interleaved, medians of 10 after 2 warm-ups, in milliseconds.

    python experiments/trainer_vs_bench_cpu.py
"""
import sys, time, statistics, json, torch, numpy as np
torch.set_num_threads(1)
from pathlib import Path
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / 'bench'))
from bench_train import make_step
from transformer_nb.lib.transformer import build_model
from transformer_nb.lib.options import ModelConfig
from transformer_nb.lib.trainer import Trainer
from transformer_nb.lib.options import TrainConfig
from transformer_nb.lib.speed import CpuLevers
from transformer_nb.data import collate
V, B, L = 2000, 64, 24
rng = np.random.default_rng(0)
data = [(np.r_[rng.integers(4, V, L - 1), 2], np.r_[1, rng.integers(4, V, L - 1), 2]) for _ in range(B)]
cfg = ModelConfig(src_vocab=V, tgt_vocab=V, d_model=64, N=2, h=4, d_ff=256, p_drop=0.1)
src, tgt = collate(data)
torch.manual_seed(0); step = make_step(build_model(cfg), cfg, src, tgt, torch.device('cpu'), 'fp32', False)
torch.manual_seed(0)
tr = Trainer(build_model(cfg), data, tc=TrainConfig(max_tokens=B * L, accum=1, warmup=4000, progress=False, device='cpu', precision='fp32'), say=lambda m: None)
tr.levers, tr.short_attention = CpuLevers(tr.model, dropout=False), 0     # as on a GPU
one, eighth = [list(range(B))], [list(range(i, i + B // 8)) for i in range(0, B, B // 8)]
t = {'bench step, one batch': [], 'trainer update, one batch': [], 'trainer update, 8 micro-batches of 1/8': []}
for r in range(12):
    for k, f in (('bench step, one batch', step), ('trainer update, one batch', lambda: tr.update(one)), ('trainer update, 8 micro-batches of 1/8', lambda: tr.update(eighth))):
        t0 = time.perf_counter(); f(); t[k].append(time.perf_counter() - t0)
med = {k: round(statistics.median(v[2:]) * 1000, 1) for k, v in t.items()}
print(json.dumps(med))
