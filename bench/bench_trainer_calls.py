"""The Python calls an update makes: the `Trainer`'s (what `tnb-train` runs) against 09's own loop (`opt.zero_grad()`,
`accumulate_grads` of the update's batches collated by 08's `collate`, `opt.step()`, `sched.step()`), on the tiny model
and the copy task, one thread, on the same micro-batches. A call is what cProfile counts: a Python function or a
built-in one, in every thread (the trainer builds its next batches on one of its own). An update's count is the
difference between a run of 2U updates and one of U, over U: what a run does once (its start, its end) cancels out.
The count does not depend on the machine's speed, except for the few calls a thread makes while it waits for the other.

  python bench/bench_trainer_calls.py                 # 20 updates a side
  python bench/bench_trainer_calls.py --top 15        # and the functions the trainer's update calls most

It also counts the calls of `nn.Module.train` per update, each a walk of the model's module tree: the trainer sets the
mode once a run and again after each validation, so between validations an update makes none."""
import argparse, collections, datetime, itertools, json, sys, threading
from dataclasses import replace
from pathlib import Path
import torch, torch.nn as nn
from transformer_nb.core import set_seed
from transformer_nb.data import collate
from transformer_nb.model import Transformer
from transformer_nb.training import copy_ids, make_optimizer, accumulate_grads
from transformer_nb.lib.machine import limit_threads, hardware
from transformer_nb.lib.transformer import build_model
from transformer_nb.lib.options import get_config, get_model_config, TrainConfig
from transformer_nb.lib.trainer import Trainer

class Calls:
    "A profiler (`sys.setprofile`, and `threading.setprofile` for the threads started inside it) counting every call, `nn.Module.train`'s apart, and by function when asked."
    TRAIN = nn.Module.train.__code__
    def __init__(self, by:bool=False):
        self.n, self.train, self.by = itertools.count(), itertools.count(), collections.Counter() if by else None   # `next` on a count: one step, whatever the thread
    def __call__(self, frame, event, arg):
        if event == 'call':
            next(self.n)
            if frame.f_code is self.TRAIN: next(self.train)
            if self.by is not None: self.by[f"{Path(frame.f_code.co_filename).name}:{frame.f_code.co_name}"] += 1
        elif event == 'c_call':
            next(self.n)
            if self.by is not None: self.by[f"built-in {getattr(arg, '__qualname__', arg)}"] += 1
    def __enter__(self): threading.setprofile(self); sys.setprofile(self); return self
    def __exit__(self, *exc): sys.setprofile(None); threading.setprofile(None)
    def counts(self) -> tuple[int, int]: return next(self.n), next(self.train)   # read once, at the end

def per_update(run, updates:int, by:bool=False) -> dict:
    "Calls and `nn.Module.train` calls per update of `run(k)` (k more updates), from runs of `updates` and of 2x `updates`; the functions called, if `by`."
    with Calls(by) as one: run(updates)
    with Calls(by) as two: run(2 * updates)
    (n1, t1), (n2, t2) = one.counts(), two.counts()
    out = dict(calls=(n2 - n1) / updates, train_calls=(t2 - t1) / updates)
    if by: out['by'] = {k: v / updates for k, v in (two.by - one.by).most_common()}
    return out

def main(argv=None):
    p = argparse.ArgumentParser(allow_abbrev=False, description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument('--updates', type=int, default=20, help='U: updates of the shorter counted run (default 20)')
    p.add_argument('--vocab', type=int, default=20); p.add_argument('--max-tokens', type=int, default=200, help='padded tokens a side per micro-batch (default 200)')
    p.add_argument('--accum', type=int, default=1, help='micro-batches an update (default 1)')
    p.add_argument('--log-every', type=int, default=None, help="the trainer's log_every (default: its own, 1 on a CPU: each update reads its loss back, as 09's loop does)")
    p.add_argument('--top', type=int, default=0, help="print the trainer's N most called functions per update")
    p.add_argument('--json', default=None, help='append the figures to this JSON list')
    a = p.parse_args(argv)
    limit_threads(1)
    data = copy_ids(40 * a.accum * (3 * a.updates + 4), a.vocab, seed=0)   # one epoch holds every counted update
    tc = TrainConfig(max_tokens=a.max_tokens, accum=a.accum, steps=2, warmup=10, device='cpu', precision='fp32', progress=False, log_every=a.log_every)
    set_seed(0); tr = Trainer(build_model(get_model_config('tiny', src_vocab=a.vocab, tgt_vocab=a.vocab)), data, tc=tc, say=lambda m: None)
    tr.fit()                                                           # warm: the first updates, and the epoch's batches made
    def run_trainer(k): tr.tc = replace(tr.tc, steps=tr.step + k); tr.fit()
    tr.sampler.set_epoch(0); batches = list(tr.sampler)                  # the trainer's micro-batches, for 09's loop too
    groups = [batches[i:i + a.accum] for i in range(0, len(batches), a.accum)]
    set_seed(0); model = Transformer(get_config('tiny', src_vocab=a.vocab, tgt_vocab=a.vocab))   # as 09 builds it
    opt, sched = make_optimizer(model, model.cfg.d_model, warmup=10)
    done = itertools.count()
    def run_09(k):                                                     # 09's loop, as the notebook writes it
        for _ in range(k):
            group = groups[next(done) % len(groups)]
            opt.zero_grad(); accumulate_grads(model, [collate([data[i] for i in idx]) for idx in group])
            opt.step(); sched.step()
    run_09(2)
    mine, theirs = per_update(run_trainer, a.updates, by=a.top > 0), per_update(run_09, a.updates)
    ratio = mine['calls'] / theirs['calls']
    print(f"{hardware()}; tiny model, copy task (vocab {a.vocab}), {a.max_tokens} tokens a side x accum {a.accum}, log_every {tr.log_every}; "
          f"per update, from runs of {a.updates} and {2 * a.updates} updates")
    print(f"Python calls per update: Trainer {mine['calls']:,.0f}, 09's loop {theirs['calls']:,.0f}; Trainer / 09's loop {ratio:.3f}")
    print(f"nn.Module.train calls per update: Trainer {mine['train_calls']:g}, 09's loop {theirs['train_calls']:g}")
    for k, v in list(mine.get('by', {}).items())[:a.top]: print(f"  {v:8.1f}  {k}")
    out = dict(date=datetime.date.today().isoformat(), hardware=hardware(), torch=torch.__version__, updates=a.updates, vocab=a.vocab,
               max_tokens=a.max_tokens, accum=a.accum, log_every=tr.log_every, trainer_calls=round(mine['calls'], 1),
               loop_09_calls=round(theirs['calls'], 1), ratio=round(ratio, 3), trainer_train_calls=mine['train_calls'],
               loop_09_train_calls=theirs['train_calls'],
               command=' '.join(['python', 'bench/bench_trainer_calls.py', *(sys.argv[1:] if argv is None else map(str, argv))]))
    if a.json:
        path = Path(a.json); recs = json.loads(path.read_text()) if path.exists() else []
        path.write_text(json.dumps(recs + [out], indent=1) + '\n')
    return out

if __name__ == '__main__': main()
