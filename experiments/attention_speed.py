#!/usr/bin/env python
"""Fused attention's speed note (14_since_2017): the `mini` model trained one update at a time, 06's own `Transformer`
(01's explicit attention, the n x n weights written out) against `build_model`'s (02's projections through PyTorch's
`scaled_dot_product_attention`), from the same weights, on the same batches, with the same dropout draws. Records the
largest difference of the two losses, and the median time per update of each, interleaved so that both meet the same
load, into results/attention_speed.json.

    python experiments/attention_speed.py --updates 20 --threads 1
"""
import argparse, json, os, shlex, statistics, sys, time
from pathlib import Path
import torch, torch.nn.functional as F
from transformer_nb.model import Transformer
from transformer_nb.lib.options import get_model_config
from transformer_nb.lib.transformer import build_model
from transformer_nb.lib.machine import hardware, git_commit
from transformer_nb.lib.records import today
from transformer_nb.lib.safeguards import atomic_write
ROOT = Path(__file__).resolve().parents[1]

def batches(n:int, B:int, S:int, V:int, seed:int=0) -> list:
    "`n` random (src, tgt) batches of B sentences of S pieces (B * S tokens a side), ids 4 .. V-1."
    g = torch.Generator().manual_seed(seed)
    return [(torch.randint(4, V, (B, S), generator=g), torch.randint(4, V, (B, S + 1), generator=g)) for _ in range(n)]

def update(model, opt, src, tgt, step:int) -> float:
    "One training update (teacher forcing, cross-entropy); the dropout draws seeded by `step`. Returns the loss."
    torch.manual_seed(step)
    loss = F.cross_entropy(model(src, tgt[:, :-1]).flatten(0, 1), tgt[:, 1:].flatten())
    opt.zero_grad(); loss.backward(); opt.step()
    return loss.item()

def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument('--preset', default='mini'); p.add_argument('--vocab', type=int, default=8000)
    p.add_argument('--updates', type=int, default=20, help="timed updates of each model (two more first, untimed)")
    p.add_argument('--sentences', type=int, default=160); p.add_argument('--length', type=int, default=25, help="pieces a sentence (160 x 25: 4,000 tokens a side, the sweep's batch)")
    p.add_argument('--threads', type=int, default=1)
    p.add_argument('--out', default=str(ROOT / 'results' / 'attention_speed.json'))
    a = p.parse_args(argv)
    torch.set_num_threads(a.threads)
    cfg = get_model_config(a.preset, src_vocab=a.vocab, tgt_vocab=a.vocab)
    torch.manual_seed(0); explicit = Transformer(cfg).train()
    torch.manual_seed(0); fused = build_model(cfg).train()
    assert all(torch.equal(x, y) for x, y in zip(explicit.state_dict().values(), fused.state_dict().values())), "not the same weights"
    opts = {m: torch.optim.Adam(m.parameters(), lr=1e-4) for m in (explicit, fused)}
    data, losses, times = batches(a.updates + 2, a.sentences, a.length, a.vocab), {explicit: [], fused: []}, {explicit: [], fused: []}
    load = os.getloadavg()[0]
    for i, (src, tgt) in enumerate(data):
        for m in ((explicit, fused) if i % 2 else (fused, explicit)):       # interleaved, each first in turn
            t0 = time.perf_counter(); losses[m].append(update(m, opts[m], src, tgt, i)); dt = time.perf_counter() - t0
            if i >= 2: times[m].append(dt)
    diff = max(abs(x - y) for x, y in zip(losses[explicit], losses[fused]))
    rec = dict(preset=a.preset, vocab=a.vocab, params=sum(p.numel() for p in {id(p): p for p in fused.parameters()}.values()),
               batch=f"{a.sentences} x {a.length} tokens a side", updates=a.updates, threads=a.threads,
               max_loss_diff=diff, loss_first=losses[fused][0], loss_last=losses[fused][-1],
               explicit_ms=round(1000 * statistics.median(times[explicit]), 1), fused_ms=round(1000 * statistics.median(times[fused]), 1),
               load_average=[round(load, 2), round(os.getloadavg()[0], 2)], machine=hardware(), date=today(), commit=git_commit(),
               command=shlex.join(['python', 'experiments/attention_speed.py', *(argv if argv is not None else sys.argv[1:])]))
    atomic_write(Path(a.out), json.dumps(rec, indent=1) + '\n')
    print(json.dumps(rec, indent=1))

if __name__ == '__main__': main()
