"""Training throughput of transformer_nb's Transformer vs `torch.nn.Transformer` (with the same embeddings, sinusoidal
positions, dropout and tied output layer), same config and batch, one process: median tokens/s over repeats, and the
ratio. With --mfu it also reports model FLOP utilisation against a peak (default: H100 SXM dense bf16, 989 TFLOP/s).

  python bench/bench_train.py                                  # CPU: the 'small' preset, 32 x 32 tokens
  python bench/bench_train.py --threads 1 --json results/bench_train_cpu.json   # the same, one thread, stored
  python bench/bench_train.py --device cuda --preset base --vocab 37000 --precision bf16 --batch 256 --len 100 --mfu --compile

Tokens/s counts target tokens (the labels), as fairseq's wps does; a full synthetic batch has no padding."""
import argparse, datetime, json, math, os, statistics, sys, time
from pathlib import Path
import torch, torch.nn as nn
from transformer_nb.core import PAD_ID, set_seed
from transformer_nb.lib.machine import get_device
from transformer_nb.lib.machine import autocast, limit_threads, hardware
from transformer_nb.lib.transformer import build_model
from transformer_nb.lib.options import get_model_config
from transformer_nb.positional import sinusoidal_encoding
from transformer_nb.training import seq2seq_loss
from transformer_nb.lib.trainer import make_optimizer_with_cooldown
from transformer_nb.lib.options import TrainConfig

class TorchTransformer(nn.Module):
    "nn.Transformer plus what the paper adds around it: scaled embeddings + sinusoids + dropout, tied output layer."
    def __init__(self, cfg):
        super().__init__()
        self.cfg, d = cfg, cfg.d_model
        self.emb = nn.Embedding(cfg.src_vocab, d, padding_idx=PAD_ID)
        self.drop = nn.Dropout(cfg.p_drop)
        self.tf = nn.Transformer(d, cfg.h, cfg.N, cfg.N, cfg.d_ff, cfg.p_drop, batch_first=True, norm_first=cfg.norm_first)
        self.out = nn.Linear(d, cfg.tgt_vocab, bias=False); self.out.weight = self.emb.weight
        self.register_buffer('pe', sinusoidal_encoding(cfg.max_len, d).float(), persistent=False)

    def embed(self, x): return self.drop(self.emb(x) * math.sqrt(self.cfg.d_model) + self.pe[:x.shape[1]])

    def forward(self, src, tgt):
        causal = nn.Transformer.generate_square_subsequent_mask(tgt.shape[1], device=tgt.device, dtype=torch.bool)
        spad, tpad = src == PAD_ID, tgt == PAD_ID
        h = self.tf(self.embed(src), self.embed(tgt), tgt_mask=causal, src_key_padding_mask=spad,
                    tgt_key_padding_mask=tpad, memory_key_padding_mask=spad, tgt_is_causal=True)
        return self.out(h)

def train_flops(cfg, B, S, T) -> float:
    "Matmul FLOPs of one training step (forward + backward = 3 x forward), attention scores included."
    d, dk, N = cfg.d_model, cfg.d_k, cfg.N
    hd = cfg.h * dk
    enc = N * (2 * S * (3 * d * hd + hd * d + 2 * d * cfg.d_ff) + 2 * 2 * S * S * hd)
    dec = N * (2 * T * (3 * d * hd + hd * d + 2 * d * cfg.d_ff) + 2 * 2 * T * T * hd         # self-attention, FFN
               + 2 * (T * d * hd + 2 * S * d * hd + T * hd * d) + 2 * 2 * T * S * hd)        # cross-attention
    out = 2 * T * d * cfg.tgt_vocab
    return 3 * B * (enc + dec + out)

def make_step(model, cfg, src, tgt, device, precision, compile_, mode=None):
    "One training step (forward, backward, Adam, schedule) of `model` on the fixed batch, as a closure."
    model.to(device).train()
    opt, sched = make_optimizer_with_cooldown(model, cfg.d_model, warmup=4000)         # fused Adam on CUDA
    net = torch.compile(model, mode=mode) if compile_ else model
    def step():
        opt.zero_grad(set_to_none=True)
        with autocast(device, precision): loss, _, n = seq2seq_loss(net, src, tgt, TrainConfig.eps_ls, PAD_ID)   # the paper's label smoothing (a training setting)
        (loss / n).backward(); opt.step(); sched.step()
    return step

def timed(step, steps, device) -> float:
    "Median seconds per step over `steps` steps (each synchronised on CUDA)."
    times = []
    for _ in range(steps):
        if device.type == 'cuda': torch.cuda.synchronize()
        t0 = time.perf_counter(); step()
        if device.type == 'cuda': torch.cuda.synchronize()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)

def gpu_busy(step, steps=5) -> float:
    "Seconds per step that CUDA kernels keep the GPU busy (the profiler's kernel time; overlaps counted once)."
    from torch.profiler import profile, ProfilerActivity
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(steps): step()
        torch.cuda.synchronize()
    iv = sorted((e.time_range.start, e.time_range.end) for e in prof.events() if e.device_type.name == 'CUDA')
    busy, end = 0, None
    for a, b in iv:                                                # union of the kernels' intervals (microseconds)
        if end is None or a > end: busy += b - a; end = b
        elif b > end: busy += b - end; end = b
    return busy / 1e6 / steps

def main(argv=None):
    p = argparse.ArgumentParser(allow_abbrev=False, description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument('--preset', default='small'); p.add_argument('--vocab', type=int, default=8000)
    p.add_argument('--batch', type=int, default=32); p.add_argument('--len', type=int, default=32)
    p.add_argument('--device', default='cpu'); p.add_argument('--precision', default='fp32')
    p.add_argument('--steps', type=int, default=10); p.add_argument('--warmup', type=int, default=3)
    p.add_argument('--repeats', type=int, default=3); p.add_argument('--threads', type=int, default=None)
    p.add_argument('--compile', action='store_true', help='torch.compile both models (compiled once, timed after warm-up)')
    p.add_argument('--compile-mode', default=None, help="torch.compile mode, e.g. 'reduce-overhead' (CUDA graphs)")
    p.add_argument('--busy', action='store_true', help='CUDA: also measure the GPU busy time per step with the profiler')
    p.add_argument('--mfu', action='store_true')
    p.add_argument('--peak-tflops', type=float, default=989.0, help='dense peak for MFU (H100 SXM bf16: 989)')
    p.add_argument('--only', choices=['ours', 'torch'], default=None)
    p.add_argument('--json', help='append the figures of this run, with the hardware and date, to this JSON list file')
    a = p.parse_args(argv)
    if a.threads: limit_threads(a.threads)
    device = get_device(a.device)
    cfg = get_model_config(a.preset, src_vocab=a.vocab, tgt_vocab=a.vocab)
    g = torch.Generator().manual_seed(0)
    src = torch.randint(4, a.vocab, (a.batch, a.len), generator=g).to(device)
    tgt = torch.randint(4, a.vocab, (a.batch, a.len + 1), generator=g).to(device)
    tokens = a.batch * a.len                                      # target tokens per step
    print(f"{a.preset} {cfg.d_model=} {cfg.N=} {cfg.h=} {cfg.d_ff=} vocab={a.vocab}; batch {a.batch} x {a.len}; "
          f"{device} {a.precision} threads={torch.get_num_threads()} compile={a.compile_mode or a.compile}")
    names = [a.only] if a.only else ['ours', 'torch']
    steps = {}
    for name in names:                                             # build (and compile) each model once
        set_seed(0)
        m = build_model(cfg) if name == 'ours' else TorchTransformer(cfg)
        steps[name] = make_step(m, cfg, src, tgt, device, a.precision, a.compile or bool(a.compile_mode), a.compile_mode)
        t0 = time.perf_counter()
        for _ in range(a.warmup): steps[name]()
        if device.type == 'cuda': torch.cuda.synchronize()
        print(f"  {name}: warm-up ({a.warmup} steps{', compilation included' if a.compile else ''}) {time.perf_counter() - t0:.1f}s")
    res, load_before = {}, os.getloadavg()
    for r in range(a.repeats):
        for name in names:                                         # alternate, so both see the same machine load
            res.setdefault(name, []).append(timed(steps[name], a.steps, device))
    flops = train_flops(cfg, a.batch, a.len, a.len)
    out = dict(preset=a.preset, vocab=a.vocab, batch=a.batch, len=a.len, precision=a.precision,
               compile=a.compile_mode or a.compile,
               device=str(device), hardware=hardware(), date=datetime.date.today().isoformat(), flops_per_step=flops,
               threads=torch.get_num_threads(), load_average_before=[round(x, 2) for x in load_before],
               load_average_after=[round(x, 2) for x in os.getloadavg()], repeats=a.repeats, steps=a.steps,
               command=' '.join(['python', 'bench/bench_train.py', *(sys.argv[1:] if argv is None else argv)]))
    for name in names:
        t = statistics.median(res[name])
        line = f"{name:>5}: {tokens / t:10.0f} tgt tok/s  ({t * 1e3:.1f} ms/step, median of {a.repeats} x {a.steps})"
        out[name] = dict(tok_s=round(tokens / t), ms_step=round(t * 1e3, 2), tflops=round(flops / t / 1e12, 1),
                         gflops=round(flops / t / 1e9, 1),
                         mfu=round(flops / t / (a.peak_tflops * 1e12), 4))
        if a.mfu: line += f"  {flops / t / 1e12:.1f} TFLOP/s, MFU {flops / t / (a.peak_tflops * 1e12):.1%}"
        if a.busy and device.type == 'cuda':
            try:
                b = gpu_busy(steps[name]); out[name]['gpu_busy_ms'] = round(b * 1e3, 2)
                line += f"; GPU busy {b * 1e3:.1f} ms/step ({b / t:.0%} of the step)"
            except Exception as e: line += f"; GPU busy time not measured ({type(e).__name__}: {e})"
        print(line)
    if len(names) == 2:
        out['ratio'] = round(statistics.median(res['torch']) / statistics.median(res['ours']), 3)
        print(f"ratio ours / nn.Transformer: {out['ratio']:.3f}")
    if a.json:
        path = Path(a.json); recs = json.loads(path.read_text()) if path.exists() else []
        path.write_text(json.dumps(recs + [out], indent=1) + '\n')

if __name__ == '__main__': main()
