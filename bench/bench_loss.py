"""09's label-smoothed loss against the fused one the trainer used before it took 09's: the loss's forward and backward
pass alone on scores (N, V), and a whole `Trainer.update` of a model with each loss. The two alternate, repeat after
repeat, so both see the same machine; each figure is a median over the repeats, and the ratio (09's time / the fused
one's) is the median of the per-repeat ratios: above 1, the fused loss is the faster.

  python bench/bench_loss.py                                  # CPU, one thread: N = 1,600 and 3,780 scores of 8,000 pieces; the mini model
  python bench/bench_loss.py --json results/bench_loss.json   # the same, stored

The fused loss (`SmoothedNLL` below) is kept here, and only here, to measure what the trainer gave up when it took 09's
`label_smoothed_nll`: the same sums and gradient, as one autograd node that walks the scores in blocks of 512 KB and
writes the gradient over them. One loss serves the tools and 09, so there is one function to read and to trust."""
import argparse, datetime, json, os, statistics, sys, time
from pathlib import Path
import torch
from transformer_nb.core import PAD_ID, set_seed
from transformer_nb.lib.machine import hardware, limit_threads
from transformer_nb.training import label_smoothed_nll

class SmoothedNLL(torch.autograd.Function):
    "09's `label_smoothed_nll` of scores (N, V) as one node: its sums, and its gradient in one pass per block of `rows`, written over the scores."
    @staticmethod
    def forward(ctx, logits, target, eps:float, pad_id:int, rows:int):
        keep, lse, mean = target != pad_id, logits.new_empty(len(logits)), logits.new_empty(len(logits))
        for i in range(0, len(logits), rows):
            torch.logsumexp(logits[i:i + rows], -1, out=lse[i:i + rows]); torch.mean(logits[i:i + rows], -1, out=mean[i:i + rows])
        x_y = logits.gather(-1, target[:, None]).squeeze(-1)
        nll = (lse - x_y).masked_fill_(~keep, 0)
        loss = (nll + eps * (x_y - mean)).masked_fill_(~keep, 0)
        ctx.save_for_backward(logits, target, lse, keep); ctx.eps, ctx.rows = eps, rows
        return loss.sum(), nll.sum()
    @staticmethod
    def backward(ctx, g_loss, g_nll):
        logits, target, lse, keep = ctx.saved_tensors
        eps, V, rows, dt = ctx.eps, logits.shape[-1], ctx.rows, logits.dtype
        w, c = ((g_loss + g_nll) * keep).to(dt)[:, None], (g_loss * eps / V * keep).to(dt)[:, None]
        grad = logits                                                  # the scores are not needed again: overwritten
        for i in range(0, len(logits), rows):
            torch.sub(logits[i:i + rows], lse[i:i + rows, None], out=grad[i:i + rows]).exp_().mul_(w[i:i + rows]).sub_(c[i:i + rows])
        grad.scatter_add_(-1, target[:, None], -((g_loss * (1 - eps) + g_nll) * keep).to(dt)[:, None])
        return grad, None, None, None, None

def fused(logits, target, eps=0.1, pad_id=PAD_ID):
    "What `label_smoothed_nll` returns (loss sum, NLL sum, tokens), through `SmoothedNLL`."
    V = logits.shape[-1]
    x, y = logits.float().reshape(-1, V), target.reshape(-1)
    loss, nll = SmoothedNLL.apply(x, y, eps, pad_id, max(1, len(x)) if x.is_cuda else max(1, 2**17 // V))
    return loss, nll, (y != pad_id).sum()

LOSSES = {'09': label_smoothed_nll, 'fused': fused}

def check_same():
    "The two losses compute the same sums, token count and gradient (to rounding), padding included, before either is timed."
    x, y = torch.randn(37, 50, dtype=torch.float64), torch.randint(4, 50, (37,)); y[-5:] = PAD_ID
    got = {}
    for k, f in LOSSES.items():
        z = x.clone().requires_grad_(); loss, nll, n = f(z * 1, y); (loss / n + nll).backward(); got[k] = (loss, nll, n, z.grad)
    for a, b in zip(got['09'], got['fused']): torch.testing.assert_close(a, b)

def time_loss(fn, x:torch.Tensor, y:torch.Tensor) -> float:
    "Seconds for the forward and backward pass of `fn` on scores made from `x` by one operation (as a model's are: not a leaf)."
    z = x.detach().clone().requires_grad_()
    t0 = time.perf_counter()
    loss, _, n = fn(z * 1, y); (loss / n).backward()
    return time.perf_counter() - t0

def alternate(timers:dict, repeats:int) -> dict:
    "Each timer once a repeat, in turn (their order swapped every other repeat), after one untimed round: {name: [seconds]}."
    for f in timers.values(): f()
    got = {k: [] for k in timers}
    for r in range(repeats):
        for k in (list(timers) if r % 2 == 0 else list(timers)[::-1]): got[k].append(timers[k]())
    return got

def summary(got:dict) -> dict:
    ratios = [a / b for a, b in zip(got['09'], got['fused'])]
    return {'09_ms': round(statistics.median(got['09']) * 1e3, 3), 'fused_ms': round(statistics.median(got['fused']) * 1e3, 3),
            'ratio': round(statistics.median(ratios), 3), 'ratio_min': round(min(ratios), 3), 'ratio_max': round(max(ratios), 3)}

def update_timers(preset:str, vocab:int, max_tokens:int, updates:int) -> dict:
    "A timer per loss: `updates` updates of a `Trainer` of `preset` on synthetic pairs, its loss 09's (as it is) or the fused one."
    from dataclasses import replace
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from bench_trainer_step import corpus
    from transformer_nb.lib.transformer import build_model
    from transformer_nb.lib.options import get_model_config, TrainConfig
    from transformer_nb.lib.trainer import Trainer
    cfg, data = get_model_config(preset, src_vocab=vocab, tgt_vocab=vocab), corpus(max(200, 60 * updates * max_tokens // 40), vocab, 6, 40)
    tc = TrainConfig(max_tokens=max_tokens, accum=1, steps=1, warmup=4000, device='cpu', precision='fp32', progress=False)
    def trainer(loss):
        set_seed(0); t = Trainer(build_model(cfg), data, tc=tc, say=lambda m: None)
        t._loss_sums = lambda src, tgt: loss(t.net(src, tgt[:, :-1]), tgt[:, 1:], t.tc.eps_ls, PAD_ID)
        def run():
            t.tc = replace(t.tc, steps=t.step + updates); t0 = time.perf_counter(); t.fit()
            return (time.perf_counter() - t0) / updates
        return run
    return {k: trainer(f) for k, f in LOSSES.items()}

def main(argv=None):
    p = argparse.ArgumentParser(allow_abbrev=False, description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument('--tokens', type=int, nargs='+', default=[1600, 3780], help='target tokens N of the loss alone (default 1600 3780)')
    p.add_argument('--vocab', type=int, default=8000, help='pieces V (default 8,000, as Multi30k\'s)')
    p.add_argument('--repeats', type=int, default=11, help='timed repeats of each (default 11)')
    p.add_argument('--preset', default='mini', help="the model of the whole update (default 'mini')")
    p.add_argument('--max-tokens', type=int, default=1500, help='padded tokens a side per update (default 1,500)')
    p.add_argument('--updates', type=int, default=3, help='updates a repeat of the whole update (default 3; 0: the loss alone)')
    p.add_argument('--threads', type=int, default=1)
    p.add_argument('--json', default=None, help='append the figures (with the machine, its threads and load) to this JSON list')
    a = p.parse_args(argv)
    limit_threads(a.threads); set_seed(0)
    check_same()
    load, machine = os.getloadavg(), hardware()
    print(f"{machine}; threads={torch.get_num_threads()}; median of {a.repeats} repeats, the two losses in turn", flush=True)
    out = dict(date=datetime.date.today().isoformat(), hardware=machine, threads=torch.get_num_threads(), repeats=a.repeats,
               load_average_before=[round(x, 2) for x in load], loss_alone=[])
    for n in a.tokens:
        x, y = torch.randn(n, a.vocab), torch.randint(4, a.vocab, (n,)); y[-max(1, n // 20):] = PAD_ID   # 5% padding
        s = summary(alternate({k: lambda f=f: time_loss(f, x, y) for k, f in LOSSES.items()}, a.repeats))
        out['loss_alone'].append(dict(tokens=n, vocab=a.vocab, **s))
        print(f"  loss alone, N={n:,} V={a.vocab:,}: 09's {s['09_ms']:.1f} ms, fused {s['fused_ms']:.1f} ms; 09's / fused {s['ratio']:.2f} "
              f"(min {s['ratio_min']:.2f}, max {s['ratio_max']:.2f})", flush=True)
    if a.updates:
        s = summary(alternate(update_timers(a.preset, a.vocab, a.max_tokens, a.updates), a.repeats))
        out['update'] = dict(preset=a.preset, vocab=a.vocab, max_tokens=a.max_tokens, updates=a.updates, **s)
        print(f"  a Trainer update, {a.preset} V={a.vocab:,}, {a.max_tokens:,} tokens a side: 09's {s['09_ms']:.0f} ms, fused {s['fused_ms']:.0f} ms; "
              f"09's / fused {s['ratio']:.2f} (min {s['ratio_min']:.2f}, max {s['ratio_max']:.2f})")
    out.update(load_average_after=[round(x, 2) for x in os.getloadavg()],
               command=' '.join(['python', 'bench/bench_loss.py', *(sys.argv[1:] if argv is None else map(str, argv))]))
    if a.json:
        path = Path(a.json); recs = json.loads(path.read_text()) if path.exists() else []
        path.write_text(json.dumps(recs + [out], indent=1) + '\n')
    return out

if __name__ == '__main__': main()
