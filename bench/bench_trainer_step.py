"""The trainer's update against the raw step: `Trainer.fit` over U updates (its own loop: the batches built on its
background thread, the accounting, the reads back at log steps) against forward + backward + Adam + schedule on the
same batches, already padded and on the device, with the same model code, loss and speed levers, and no trainer. The
two alternate, repeat after repeat, so both see the same machine; the figure is the median over the repeats of
(raw step's time / trainer's time): 1.0 means the trainer costs nothing beyond the step it runs.

  python bench/bench_trainer_step.py                                                # CPU: 'mini', one thread
  python bench/bench_trainer_step.py --json results/trainer_vs_step.json            # the same, stored
  python bench/bench_trainer_step.py --device cuda --preset base --vocab 37000 --max-tokens 25000 --precision bf16 \\
      --compile --lengths 10 60 --updates 20 --repeats 3 --mfu --trace $OUT/trace.json.gz     # a GPU: the paper's update

Tokens/s counts target tokens (the labels, as fairseq's wps does) in the padded batches' real tokens. With --mfu, the
model FLOP utilisation of each side against --peak-tflops (default: H100/H200 SXM dense bf16, 989 TFLOP/s). With
--trace, a torch.profiler trace of two of the trainer's updates (Chrome's format; gzip if the name ends in .gz)."""
import argparse, datetime, gzip, json, os, statistics, sys, time
from dataclasses import replace
from pathlib import Path
import numpy as np
import torch
from transformer_nb.core import PAD_ID
sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_train import train_flops
from transformer_nb.core import set_seed
from transformer_nb.lib.machine import get_device
from transformer_nb.lib.machine import autocast, limit_threads, hardware
from transformer_nb.lib.transformer import build_model
from transformer_nb.lib.options import get_model_config
from transformer_nb.training import make_optimizer, label_smoothed_nll
from transformer_nb.lib.trainer import Trainer, pad_rows, _PAD_TO
from transformer_nb.lib.options import TrainConfig
from transformer_nb.lib.speed import attention_backend, kept_output

def corpus(n:int, vocab:int, lo:int, hi:int, seed:int=0) -> list:
    "`n` synthetic pairs of ids, their lengths drawn between `lo` and `hi` (BOS/EOS included), as a corpus's vary."
    rng = np.random.default_rng(seed)
    ls, lt = rng.integers(lo, hi + 1, n), rng.integers(lo, hi + 1, n)
    return [(np.r_[rng.integers(4, vocab, s - 1), 2], np.r_[1, rng.integers(4, vocab, t - 2), 2]) for s, t in zip(ls, lt)]

def raw_step(tr:Trainer, model, device):
    "Forward, backward, Adam and schedule of `model` on one padded micro-batch on the device: the trainer's model code, loss and levers (`tr`'s, copied), and nothing else."
    opt, sched = make_optimizer(model, model.cfg.d_model, tr.tc.warmup)
    cpu, compiled = device.type == 'cpu', tr.tc.compile
    from transformer_nb.lib.speed import CpuLevers
    CpuLevers(model, dropout=cpu, buffered=cpu and tr.precision == 'fp32' and not compiled).__enter__()   # in for good: the model is the step's own
    eps, pad, short = tr.tc.eps_ls, PAD_ID, tr.short_attention
    sums = lambda src, tgt: label_smoothed_nll(model(src, tgt[:, :-1]), tgt[:, 1:], eps, pad)
    if compiled: sums = torch.compile(sums, dynamic=True)
    model.train()
    def step(src, tgt, n):
        opt.zero_grad(set_to_none=True)
        with autocast(device, tr.precision), kept_output(model), attention_backend(device, max(src.shape[1], tgt.shape[1]), short):
            loss = sums(src, tgt)[0]
            (loss * (1 / n)).backward()
        opt.step(); sched.step()
    return step

def sync(device):
    if device.type == 'cuda': torch.cuda.synchronize()

def main(argv=None):
    p = argparse.ArgumentParser(allow_abbrev=False, description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument('--preset', default='mini'); p.add_argument('--vocab', type=int, default=8000)
    p.add_argument('--max-tokens', type=int, default=1500, help='padded tokens a side per update (one micro-batch; default 1,500)')
    p.add_argument('--lengths', type=int, nargs=2, default=(6, 40), metavar=('LO', 'HI'), help='the pairs\' lengths a side (default 6 40)')
    p.add_argument('--updates', type=int, default=8, help='updates per repeat and side (default 8)')
    p.add_argument('--repeats', type=int, default=7, help='timed repeats, each side once a repeat (default 7), after one untimed')
    p.add_argument('--device', default='cpu'); p.add_argument('--precision', default='fp32')
    p.add_argument('--compile', action='store_true', help='torch.compile both (the model with its loss)')
    p.add_argument('--log-every', type=int, default=None, help="the trainer's log_every (default: its own, by device)")
    p.add_argument('--threads', type=int, default=1)
    p.add_argument('--mfu', action='store_true'); p.add_argument('--peak-tflops', type=float, default=989.0, help='dense peak for MFU (H100/H200 SXM bf16: 989)')
    p.add_argument('--trace', default=None, help="write a torch.profiler trace of two of the trainer's updates here")
    p.add_argument('--label', default=None, help="what the figures are of, stored with them (e.g. 'paper-base')")
    p.add_argument('--json', default=None, help='append this run\'s figures (with the machine, its threads and load) to this JSON list')
    a = p.parse_args(argv)
    if a.threads: limit_threads(a.threads)
    device = get_device(a.device)
    cfg = get_model_config(a.preset, src_vocab=a.vocab, tgt_vocab=a.vocab)
    per_batch = max(1, a.max_tokens // a.lengths[1])                  # pairs a batch holds at least
    need = a.updates * (a.repeats + 1) + 2 * (a.trace is not None)
    data = corpus(int(need * per_batch * 1.5) + 64, a.vocab, *a.lengths)
    tc = TrainConfig(max_tokens=a.max_tokens, accum=1, steps=1, warmup=4000, compile=a.compile, device=str(device),
                     precision=a.precision, progress=False, log_every=a.log_every)
    set_seed(0); tr = Trainer(build_model(cfg), data, tc=tc, say=lambda m: None)
    tr.sampler.set_epoch(0); batches = list(tr.sampler)
    if len(batches) < need: sys.exit(f"the corpus gives {len(batches)} batches, fewer than the {need} needed: lower --updates or --repeats")
    mult = _PAD_TO if a.compile else 1
    on_dev = [tuple(pad_rows([data[i][side] for i in b], PAD_ID, mult).to(device) for side in (0, 1)) for b in batches[:need]]
    tokens = [int((t[:, 1:] != PAD_ID).sum()) for _, t in on_dev]
    set_seed(0); step = raw_step(tr, build_model(cfg).to(device), device)
    print(f"{a.preset} d_model={cfg.d_model} N={cfg.N} vocab={a.vocab}; {a.max_tokens:,} padded tokens a side per update, lengths "
          f"{a.lengths[0]}-{a.lengths[1]}; {device} {a.precision} threads={torch.get_num_threads()} compile={a.compile} "
          f"log_every={tr.log_every}; {a.updates} updates x {a.repeats} repeats", flush=True)

    def run_raw(r):
        sync(device); t0 = time.perf_counter()
        for k in range(r * a.updates, (r + 1) * a.updates): step(on_dev[k][0], on_dev[k][1], tokens[k])
        sync(device); return time.perf_counter() - t0
    def run_trainer(r):
        assert tr.step == r * a.updates                               # the same batches as the raw step's
        tr.tc = replace(tr.tc, steps=(r + 1) * a.updates)
        sync(device); t0 = time.perf_counter(); tr.fit(); sync(device)
        return time.perf_counter() - t0
    load_before, raw, mine = os.getloadavg(), [], []
    t0 = time.perf_counter(); run_raw(0); run_trainer(0)               # warm-up (compilation included)
    print(f"  warm-up {time.perf_counter() - t0:.1f}s", flush=True)
    for r in range(1, a.repeats + 1):
        pair = (('raw', run_raw), ('trainer', run_trainer)) if r % 2 else (('trainer', run_trainer), ('raw', run_raw))
        got = {name: f(r) for name, f in pair}
        raw.append(got['raw']); mine.append(got['trainer'])
        print(f"  repeat {r}: raw {got['raw'] / a.updates * 1e3:.1f} ms, trainer {got['trainer'] / a.updates * 1e3:.1f} ms a update, "
              f"ratio {got['raw'] / got['trainer']:.3f}", flush=True)
    ratios = [x / y for x, y in zip(raw, mine)]
    timed_tokens = sum(tokens[a.updates:(a.repeats + 1) * a.updates]) / a.repeats   # a repeat's target tokens
    flops = statistics.mean(train_flops(cfg, s.shape[0], s.shape[1], t.shape[1] - 1) for s, t in on_dev[a.updates:(a.repeats + 1) * a.updates]) * a.updates
    out = dict(label=a.label or a.preset, date=datetime.date.today().isoformat(), hardware=hardware(), device=str(device), threads=torch.get_num_threads(),
               cpu_count=os.cpu_count(), load_average_before=[round(x, 2) for x in load_before],
               load_average_after=[round(x, 2) for x in os.getloadavg()], preset=a.preset, vocab=a.vocab, max_tokens=a.max_tokens,
               lengths=list(a.lengths), precision=a.precision, compile=a.compile, log_every=tr.log_every, updates=a.updates,
               repeats=a.repeats, raw_s=[round(x, 4) for x in raw], trainer_s=[round(x, 4) for x in mine],
               ratios=[round(x, 3) for x in ratios], median_ratio=round(statistics.median(ratios), 3),
               raw_tok_s=round(timed_tokens / statistics.median(raw)), trainer_tok_s=round(timed_tokens / statistics.median(mine)),
               command=' '.join(['python', 'bench/bench_trainer_step.py', *(sys.argv[1:] if argv is None else map(str, argv))]))
    if a.mfu:
        for name, ts in (('raw', raw), ('trainer', mine)): out[f'{name}_mfu'] = round(flops / statistics.median(ts) / (a.peak_tflops * 1e12), 4)
    print(f"target tokens/s: raw step {out['raw_tok_s']:,}, trainer {out['trainer_tok_s']:,}"
          + (f"; MFU raw {out['raw_mfu']:.1%}, trainer {out['trainer_mfu']:.1%}" if a.mfu else ''))
    print(f"trainer / raw step: median ratio {out['median_ratio']:.3f} over {a.repeats} interleaved repeats "
          f"(min {min(ratios):.3f}, max {max(ratios):.3f})")
    if a.trace:
        from torch.profiler import profile, ProfilerActivity
        acts = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if device.type == 'cuda' else [])
        tr.tc = replace(tr.tc, steps=tr.step + 2)
        with profile(activities=acts) as prof: tr.fit(); sync(device)
        path = Path(a.trace); tmp = path.with_name(path.name.removesuffix('.gz') + '.tmp.json')
        prof.export_chrome_trace(str(tmp))
        if path.suffix == '.gz':
            with open(tmp, 'rb') as f, gzip.open(path, 'wb') as g: g.write(f.read())
            tmp.unlink()
        else: tmp.replace(path)
        table = prof.key_averages().table(sort_by='cuda_time_total' if device.type == 'cuda' else 'cpu_time_total', row_limit=15)
        out['trace'], out['profile_top'] = str(path.name), table.splitlines()
        print(f"trace of 2 updates: {path}; the profiler's top operations are in the JSON")
    if a.json:
        path = Path(a.json); recs = json.loads(path.read_text()) if path.exists() else []
        path.write_text(json.dumps(recs + [out], indent=1) + '\n')
    return out

if __name__ == '__main__': main()
