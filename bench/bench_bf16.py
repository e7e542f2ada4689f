#!/usr/bin/env python
"""bf16 autocast against float32 on this CPU: matrix products, a training step, decoding speed and BLEU. It decides
whether `precision='auto'` picks bf16 on a CPU with AVX512_BF16 and no AMX (`transformer_nb.lib.machine.BF16_ON_AVX512`).

Every comparison alternates the two precisions, repeat after repeat, so both see the same load on a shared machine;
the figures are medians. The record holds the CPU's flags, PyTorch's version and the load average before and after
each part. Parts (`--parts`, default all; each part's figures replace that part in `--out`):

- `matmul`: GFLOP/s of (560 x 128) . (128 x 8,000) and (2,500 x 256) . (256 x 1,024), float32 against bf16 autocast,
  one thread;
- `train`: seconds per `Trainer.update` of the `small` model (vocabulary 8,000, 2,500 target tokens, Adam), each
  precision with the Trainer's own speed-ups for it;
- `decode`: seconds to translate the first `--n` Multi30k test2016 sentences with `translate`, greedy and beam 4;
- `bleu`: lowercased BLEU of the test2016 sentences (`--bleu-n`: the first N), both precisions, with sacreBLEU's paired
  bootstrap;
- `widths`: the model's width against bf16's gain, for `choose_precision`'s `d_model` threshold: for d_model 64, 128,
  256 and 512 (`--widths`; N=3, d_ff=4 d_model, h=4 below 256 else 8, a vocabulary of `--vocab`), seconds per
  `Trainer.update` (2,000 target tokens, Adam) and per greedy decoding of one batch as `translate` makes it (4,000
  source tokens, `DECODE_BATCH_TOKENS`: 160 random sources of 24 tokens and EOS; 25 more tokens each, the fast
  decoder's cache) from a randomly initialised model, fp32 and bf16 alternating (which goes first
  alternates too), each one's median and bf16's speed-up over the fp32 run beside it (`--width-repeats` each), on the
  package's default threads or on each count of `--width-threads`.

Each part records the machine it ran on (CPU model, vector instructions, its bf16 units and flags, PyTorch) beside its
figures: the parts of one file may come from different machines. With `ONEDNN_MAX_CPU_ISA` set in the environment (e.g.
`AVX512_CORE_BF16`: oneDNN, which computes PyTorch's bf16 matrix products on a CPU, then leaves AMX unused, as on a CPU
with AVX512_BF16 alone), `widths` is saved as `widths_<that ISA>`, beside the run on every unit the CPU has.

    python bench/bench_bf16.py --checkpoint /path/to/run-or-checkpoint          # de->en; Multi30k found as the tests do
    python bench/bench_bf16.py --parts matmul,train
    python bench/bench_bf16.py --parts widths --widths 64,128,256,512 --width-repeats 15
"""
import argparse, datetime, json, os, platform, statistics, sys, time
from pathlib import Path
import torch
sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import ROOT, multi30k_file, command, load_average
from transformer_nb.core import set_seed
from transformer_nb.lib.machine import limit_threads, hardware, cpu_features, choose_precision, autocast, _cpuinfo_flags
from transformer_nb.lib.datasets import read_lines

PRECISIONS = ('fp32', 'bf16')

def interleaved(fns:dict, repeats:int) -> dict:
    "Median seconds of each of `fns` (name -> callable), called in turn `repeats` times."
    times = {k: [] for k in fns}
    for _ in range(repeats):
        for k, f in fns.items():
            t0 = time.perf_counter(); f(); times[k].append(time.perf_counter() - t0)
    return {k: statistics.median(v) for k, v in times.items()} | {'all': {k: [round(x, 4) for x in v] for k, v in times.items()}}

def part_matmul(a) -> dict:
    torch.set_num_threads(1)
    out = {'threads': 1, 'rows': []}
    for M, K, N in ((560, 128, 8000), (2500, 256, 1024)):
        x, w = torch.randn(M, K), torch.randn(K, N)
        def run(p, reps=5):
            def f():
                with autocast('cpu', p):
                    for _ in range(reps): x @ w
            return f
        for p in PRECISIONS: run(p)()                                             # warm-up
        t = interleaved({p: run(p) for p in PRECISIONS}, a.repeats * 3)
        flops = 2 * M * K * N * 5
        row = dict(shape=f"({M} x {K}) . ({K} x {N})", **{f'{p}_gflops': round(flops / t[p] / 1e9, 1) for p in PRECISIONS})
        row['speedup'] = round(row['bf16_gflops'] / row['fp32_gflops'], 2)
        out['rows'].append(row); print('matmul', row, flush=True)
    limit_threads()
    return out

def part_train(a) -> dict:
    from transformer_nb.lib.transformer import build_model
    from transformer_nb.lib.options import get_model_config
    from transformer_nb.lib.trainer import Trainer
    from transformer_nb.lib.options import TrainConfig
    cfg = get_model_config('small', src_vocab=8000, tgt_vocab=8000)
    g = torch.Generator().manual_seed(0)
    data = [(torch.randint(4, 8000, (25,), generator=g).tolist(), torch.randint(4, 8000, (26,), generator=g).tolist())
            for _ in range(100)]                                                   # 100 x 25 = 2,500 target tokens
    trainers = {}
    for p in PRECISIONS:
        set_seed(0)
        trainers[p] = Trainer(build_model(cfg), data, tc=TrainConfig(max_tokens=2600, precision=p, progress=False, device='cpu'),
                              say=lambda m: None)
    group = [list(range(100))]
    for p in PRECISIONS: trainers[p].update(group)                                 # warm-up
    t = interleaved({p: (lambda p=p: trainers[p].update(group)) for p in PRECISIONS}, a.repeats)
    out = dict(model='small', vocab=8000, target_tokens=2500, threads=torch.get_num_threads(),
               **{f'{p}_s': round(t[p], 3) for p in PRECISIONS}, speedup=round(t['fp32'] / t['bf16'], 2), times=t['all'])
    print('train', {k: v for k, v in out.items() if k != 'times'}, flush=True)
    return out

def _model(a):
    from transformer_nb.lib.checkpoints import resolve_checkpoint, model_from_checkpoint
    path, _ = resolve_checkpoint(a.checkpoint)
    model, tok, ck = model_from_checkpoint(path, 'cpu')
    return model.eval(), tok, ck, path

def part_decode(a) -> dict:
    from transformer_nb.lib.fast_decoding import translate
    model, tok, ck, path = _model(a)
    src = read_lines(multi30k_file('test_2016_flickr.de.gz', a.data_dir))[:a.n]
    out = dict(checkpoint=ck.meta.get('preset'), step=ck.step, sentences=len(src), threads=torch.get_num_threads(),
               config={k: getattr(ck.config, k) for k in ('d_model', 'N', 'h', 'd_ff', 'tgt_vocab')})
    for beam in (1, 4):
        for p in PRECISIONS: translate(model, tok, src[:20], beam=beam, precision=p)   # warm-up
        t = interleaved({p: (lambda p=p: translate(model, tok, src, beam=beam, precision=p)) for p in PRECISIONS}, a.repeats)
        key = 'greedy' if beam == 1 else f'beam{beam}'
        out[key] = dict(**{f'{p}_s': round(t[p], 2) for p in PRECISIONS}, speedup=round(t['fp32'] / t['bf16'], 2), times=t['all'])
        print('decode', key, {k: v for k, v in out[key].items() if k != 'times'}, flush=True)
    return out

def part_bleu(a, save=lambda r: None) -> dict:
    from transformer_nb.lib.fast_decoding import translate
    from transformer_nb.evaluation import corpus_scores
    from transformer_nb.lib.significance import _paired_bootstrap
    model, tok, ck, path = _model(a)
    src = read_lines(multi30k_file('test_2016_flickr.de.gz', a.data_dir))[:a.bleu_n]
    ref = read_lines(multi30k_file('test_2016_flickr.en.gz', a.data_dir))[:a.bleu_n]
    out = dict(step=ck.step, sentences=len(src), test='multi30k test2016 de-en', run=ck.meta.get('run'))
    for beam in (4, 1):                                                            # the paper's beam first
        hyps = {p: translate(model, tok, src, beam=beam, precision=p) for p in PRECISIONS}
        sc = {p: corpus_scores(hyps[p], ref) for p in PRECISIONS}
        bs = _paired_bootstrap(ref, hyps['fp32'], hyps['bf16'], 'bleu_lc')
        key = 'greedy' if beam == 1 else f'beam{beam}'
        out[key] = dict(**{f'{p}_bleu_lc': sc[p]['bleu_lc'] for p in PRECISIONS}, **{f'{p}_bleu': sc[p]['bleu'] for p in PRECISIONS},
                        same_outputs=sum(x == y for x, y in zip(hyps['fp32'], hyps['bf16'])), p_value=bs['p_value'],
                        fp32_ci=bs['baseline_ci'], bf16_ci=bs['system_ci'])
        print('bleu', key, out[key], flush=True); save(out)
    return out

def _width_rows(d:int, a) -> dict:
    "One width's training step and greedy decoding, fp32 and bf16 interleaved: medians, all times, speed-ups."
    from transformer_nb.lib.transformer import build_model
    from transformer_nb.lib.options import get_model_config
    from transformer_nb.lib.trainer import Trainer
    from transformer_nb.lib.options import TrainConfig
    from transformer_nb.core import EOS_ID
    from transformer_nb.lib.fast_decoding import greedy_decode_batch
    from transformer_nb.lib.options import DECODE_BATCH_TOKENS
    cfg = get_model_config('small', d_model=d, h=4 if d < 256 else 8, d_ff=4 * d, src_vocab=a.vocab, tgt_vocab=a.vocab)
    g = torch.Generator().manual_seed(0)
    data = [(torch.randint(4, a.vocab, (25,), generator=g).tolist(), torch.randint(4, a.vocab, (26,), generator=g).tolist())
            for _ in range(80)]                                                    # 80 x 25 = 2,000 target tokens
    rows = DECODE_BATCH_TOKENS // 25                                               # translate's batch: 160 sources of 25 tokens
    src = torch.cat([torch.randint(4, a.vocab, (rows, 24), generator=g), torch.full((rows, 1), EOS_ID)], 1)
    trainers = {}
    for p in PRECISIONS:
        set_seed(0)
        trainers[p] = Trainer(build_model(cfg), data, tc=TrainConfig(max_tokens=2100, precision=p, progress=False, device='cpu'),
                              say=lambda m: None)
    group, model = [list(range(80))], trainers['fp32'].model
    def decode(p):
        with autocast('cpu', p): greedy_decode_batch(model, src, 25)
    jobs = {'train': {p: (lambda p=p: trainers[p].update(group)) for p in PRECISIONS}, 'greedy': {p: (lambda p=p: decode(p)) for p in PRECISIONS}}
    row = dict(d_model=d, N=cfg.N, h=cfg.h, d_ff=cfg.d_ff, params=sum(x.numel() for x in model.parameters()))
    for job, fns in jobs.items():
        for p in PRECISIONS: fns[p]()                                              # warm-up
        times = {p: [] for p in PRECISIONS}
        for i in range(a.width_repeats):
            for p in (PRECISIONS if i % 2 == 0 else PRECISIONS[::-1]):            # which goes first alternates
                t0 = time.perf_counter(); fns[p](); times[p].append(time.perf_counter() - t0)
        med = {p: statistics.median(v) for p, v in times.items()}
        row[job] = dict(**{f'{p}_s': round(med[p], 4) for p in PRECISIONS}, speedup=round(med['fp32'] / med['bf16'], 2),
                        times={p: [round(x, 4) for x in v] for p, v in times.items()})
        print('widths', d, torch.get_num_threads(), 'threads', job, {k: v for k, v in row[job].items() if k != 'times'}, 'load', load_average(), flush=True)
    return row

def part_widths(a, save=lambda r: None) -> dict:
    out = dict(vocab=a.vocab, target_tokens=2000, greedy='160 sources of 24 tokens and EOS (4,000 tokens), 25 more tokens each', repeats=a.width_repeats, rows=[])
    for n in (map(int, a.width_threads.split(',')) if a.width_threads else [None]):
        threads = limit_threads(n)
        for d in map(int, a.widths.split(',')):
            out['rows'].append(dict(threads=threads, **_width_rows(d, a))); save(out)
    limit_threads()
    return out

def machine() -> dict:
    "The machine a part ran on: CPU model and vector instructions, its bf16 units, the flags that matter here, PyTorch."
    flags = sorted(f for f in _cpuinfo_flags() if f.startswith(('avx', 'amx', 'fma', 'f16c')))
    return dict(hardware=hardware(), cpu_flags=flags, cpu_features=cpu_features(), auto=choose_precision('cpu'),
                torch=torch.__version__, python=platform.python_version(), cores=os.cpu_count(),
                **({'onednn_max_cpu_isa': os.environ['ONEDNN_MAX_CPU_ISA']} if os.environ.get('ONEDNN_MAX_CPU_ISA') else {}))

def main(argv=None):
    p = argparse.ArgumentParser(allow_abbrev=False, description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument('--parts', default='matmul,train,decode,bleu')
    p.add_argument('--checkpoint', help="a de->en checkpoint or run folder (for decode and bleu)")
    p.add_argument('--data-dir'); p.add_argument('--n', type=int, default=200, help="sentences timed in `decode`")
    p.add_argument('--bleu-n', type=int, default=None, help="score only the first N test sentences in `bleu` (default: all 1,000)")
    p.add_argument('--repeats', type=int, default=5); p.add_argument('--out', default=str(ROOT / 'results' / 'bf16_cpu.json'))
    p.add_argument('--widths', default='64,128,256,512', help="d_model values timed in `widths`")
    p.add_argument('--vocab', type=int, default=1000, help="the vocabulary of the `widths` models")
    p.add_argument('--width-repeats', type=int, default=15, help="timed runs of each precision per width and job in `widths`")
    p.add_argument('--width-threads', help="CPU thread counts to time `widths` on, e.g. 1,2 (default: the package's)")
    a = p.parse_args(argv)
    limit_threads()
    out = Path(a.out)
    rec = json.loads(out.read_text()) if out.exists() else {}
    here = machine()
    isa = os.environ.get('ONEDNN_MAX_CPU_ISA', '').lower()
    for part in a.parts.split(','):
        before, t0, key = load_average(), time.time(), part + (f'_{isa}' if isa and part == 'widths' else '')
        def save(r, part=part, before=before, t0=t0, key=key):                 # after the part, or after each of its steps
            args = (['--parts', part] + ([] if part in ('matmul', 'train', 'widths') else ['--checkpoint', str(a.checkpoint)]) +
                    (['--bleu-n', str(a.bleu_n)] if part == 'bleu' and a.bleu_n else []) +
                    (['--widths', a.widths, '--vocab', str(a.vocab), '--width-repeats', str(a.width_repeats)] +
                     (['--width-threads', a.width_threads] if a.width_threads else []) if part == 'widths' else []))
            env = f"ONEDNN_MAX_CPU_ISA={os.environ['ONEDNN_MAX_CPU_ISA']} " if key != part else ''
            rec[key] = dict(r, machine=here, load_average_before=before, load_average_after=load_average(), seconds=round(time.time() - t0),
                            date=datetime.datetime.now(datetime.timezone.utc).isoformat(timespec='minutes'),
                            command=env + command('bench_bf16.py', args))
            out.write_text(json.dumps(rec, indent=1) + '\n')
        f = globals()[f'part_{part}']
        save(f(a, save) if part in ('bleu', 'widths') else f(a))
    print(f"wrote {out}")

if __name__ == '__main__': main()
