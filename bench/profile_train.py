#!/usr/bin/env python
"""Where a training update's time goes on a CPU (lib_benchmarks): PyTorch's profiler over `Trainer.update`, the
operators grouped by what they do, as shares of the operators' own time.

    python bench/profile_train.py --threads 1 --json results/train_profile.json

The model and batches are those of `bench/bench_train_peers.py` (the pre-LN `mini` with dropout 0.1 on each sub-layer
and after the FFN's ReLU, Multi30k de->en batches of at most 4,000 tokens); the first `--warmup` updates are not
profiled. Not a test: it prints the groups and, with --json, stores them with the machine and the command.
"""
import argparse, collections, datetime, json, os, sys
from pathlib import Path
import torch
from _common import ROOT, command, load_average
from transformer_nb.core import set_seed
from transformer_nb.lib.machine import hardware, git_commit, limit_threads
from transformer_nb.lib.tokens import StoredTokenizer, encode_corpus, DistributedTokenBatchSampler
from transformer_nb.lib.datasets import load_dataset, find_multi30k
from transformer_nb.lib.transformer import build_model
from transformer_nb.lib.options import get_model_config
from transformer_nb.lib.trainer import Trainer
from transformer_nb.lib.options import TrainConfig

GROUPS = [  # (group, operator name fragments), first match wins
    ('matrix products', ('aten::mm', 'aten::addmm', 'aten::bmm', 'aten::matmul')),   # the math backend's attention too
    ('attention: the flash kernel, or the math backend\'s softmax', ('scaled_dot_product', 'aten::_softmax')),
    ('dropout masks', ('bernoulli', 'native_dropout', 'aten::random_', 'aten::ge')),
    ('softmax over the vocabulary (the loss)', ('log_softmax', 'logsumexp', 'aten::exp')),
    ('loss: gather, scatter, reductions', ('gather', 'scatter', 'aten::sum', 'aten::mean', 'masked_fill', 'aten::fill_', 'aten::zero_')),
    ('element-wise (scale, residual, ReLU, masks)', ('aten::div', 'aten::mul', 'aten::add', 'threshold', 'clamp', 'aten::where', 'aten::sub')),
    ('layer norm', ('layer_norm',)),
    ('Adam', ('Optimizer.step', '_foreach', 'addcdiv', 'addcmul', 'lerp', 'sqrt')),
]

def group_of(name:str) -> str:
    return next((g for g, keys in GROUPS if any(k in name for k in keys)), 'other')

def main(argv=None):
    ap = argparse.ArgumentParser(allow_abbrev=False, description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--data-dir', default=None)
    ap.add_argument('--threads', type=int, default=1)
    ap.add_argument('--max-tokens', type=int, default=4000)
    ap.add_argument('--warmup', type=int, default=2); ap.add_argument('--updates', type=int, default=6)
    ap.add_argument('--json', default=None)
    a = ap.parse_args(argv)
    d = Path(a.data_dir) if a.data_dir else find_multi30k(ROOT)
    if d is None: sys.exit("Multi30k not found: give --data-dir, or set TNB_MULTI30K (e.g. ../shared/data/multi30k)")
    limit_threads(a.threads)
    data = load_dataset('multi30k', 'de', 'en', d)
    tok = StoredTokenizer.train(data, vocab_size=8000)
    pairs = encode_corpus(tok, data.train, max_len=256)
    groups = DistributedTokenBatchSampler([len(s) for s, _ in pairs], [len(t) for _, t in pairs], a.max_tokens, seed=0).batches()
    set_seed(0)
    model = build_model(get_model_config('mini', src_vocab=tok.vocab_size, tgt_vocab=tok.vocab_size, norm_first=True, p_ffn=0.1))
    tr = Trainer(model, pairs, None, tc=TrainConfig(max_tokens=a.max_tokens, progress=False), say=lambda m: None)
    for g in groups[:a.warmup]: tr.update([g])
    load_before = load_average()
    from torch.profiler import profile, ProfilerActivity
    with profile(activities=[ProfilerActivity.CPU]) as prof:
        for g in groups[a.warmup:a.warmup + a.updates]: tr.update([g])
    own = collections.Counter()
    for e in prof.key_averages(): own[group_of(e.key)] += e.self_cpu_time_total
    total = sum(own.values())
    share = {g: round(t / total, 4) for g, t in own.most_common()}
    print(f"# {hardware()}; {a.threads} thread(s); {a.updates} updates profiled, {total / 1e6 / a.updates:.2f} s of operator "
          f"time each (profiler overhead included)")
    for g, s in share.items(): print(f"{g:>45}: {s:6.1%}")
    if a.json:
        rec = dict(date=datetime.datetime.now().isoformat(timespec='seconds'), commit=git_commit(), hardware=hardware(),
                   torch=torch.__version__, threads=a.threads, cpu_count=os.cpu_count(), updates=a.updates,
                   seconds_per_update=round(total / 1e6 / a.updates, 3), load_average_before=load_before,
                   load_average_after=load_average(), command=command('profile_train.py', argv), share=share)
        Path(a.json).write_text(json.dumps(rec, indent=1) + '\n')
        print(f"# wrote {a.json}")

if __name__ == '__main__': main()
