#!/usr/bin/env python
"""Decoding speed: sentences/s with and without the key/value cache, greedy vs beam 4, with the readable decoders of
10_decoding (§6.1). (Against OpenNMT-py and CTranslate2: bench/bench_peers.py; where beam search spends its time:
bench/profile_decode.py; what each speed-up of the fast decoders buys: bench/ablate_beam.py.)

Not a test: it prints figures. Each setting is timed `--repeats` times and the median is reported, with ratios
against the baseline measured in the same run (uncached greedy), so figures from one run compare with each other.

With `--checkpoint`, the checkpoint's model and tokenizer translate the Multi30k test 2016 source sentences
(`--src`, default test_2016_flickr.de.gz in `$TNB_MULTI30K` or the first shared/data/multi30k in or above the
repository, e.g. ../shared/data/multi30k). Without one, a randomly initialised model of
`--preset` decodes a synthetic id-level input with the same length distribution (the sentences' whitespace word counts
x `--pieces-per-word`, plus EOS). There EOS is forbidden, so every greedy and beam output runs to its cap (equal work); the cap is
set to the input length (`--max-extra 0`) so output lengths match real translations roughly. Both cases are printed.

    python bench/bench_decode.py                       # random 'small' model, 200 sentences, CPU
    python bench/bench_decode.py --checkpoint runs/mini-de-en --n 1000 --threads 1
"""
import argparse, gzip, statistics, sys, time
from pathlib import Path
import torch
from transformer_nb.core import PAD_ID, EOS_ID, set_seed
from transformer_nb.lib.machine import get_device
from transformer_nb.lib.transformer import build_model
from transformer_nb.lib.options import get_model_config
from transformer_nb.lib.datasets import find_multi30k
from transformer_nb.lib.fast_decoding import greedy_decode_batch, beam_search_batch
from transformer_nb.lib.tokens import pad_ids
from transformer_nb.lib.fast_decoding import length_batches
ROOT = Path(__file__).resolve().parents[1]
DEFAULT_SRC = (find_multi30k(ROOT) or ROOT.parent / 'shared' / 'data' / 'multi30k') / 'test_2016_flickr.de.gz'

def read_lines(path):
    op = gzip.open if str(path).endswith('.gz') else open
    with op(path, 'rt', encoding='utf-8') as f: return [l.rstrip('\n') for l in f]

def no_eos(model):
    "`model` that never ends a sentence: its output layer (the same weight) gets a bias of -inf at EOS, so every output runs to its cap."
    old = model.generator.proj
    new = torch.nn.Linear(old.in_features, old.out_features, device=old.weight.device, dtype=old.weight.dtype)
    new.weight = old.weight
    with torch.no_grad(): new.bias.zero_(); new.bias[EOS_ID] = float('-inf')
    model.generator.proj = new
    return model

def load(args):
    "(model, list of source id lists, description)."
    dev = get_device(args.device)
    lines = read_lines(args.src)[:args.n] if Path(args.src).is_file() else None
    if args.checkpoint:
        from transformer_nb.lib.checkpoints import model_from_checkpoint
        model, tok, ck = model_from_checkpoint(args.checkpoint, device=dev)
        if tok is None: sys.exit(f"{args.checkpoint} holds no tokenizer")
        if lines is None: sys.exit(f"source file {args.src} not found")
        srcs = [tok.encode(l.strip()) + [EOS_ID] for l in lines if l.strip()]
        what = f"checkpoint {args.checkpoint} on {len(srcs)} sentences of {Path(args.src).name}"
        return model, srcs, what, args.max_extra if args.max_extra is not None else 50
    set_seed(0)
    cfg = get_model_config(args.preset, src_vocab=args.vocab, tgt_vocab=args.vocab, p_drop=0.0)
    model = no_eos(build_model(cfg)).to(dev).eval()
    g = torch.Generator().manual_seed(0)
    if lines is not None:
        lens = [max(1, round(len(l.split()) * args.pieces_per_word)) + 1 for l in lines if l.strip()]
        origin = f"lengths of {Path(args.src).name} (words x {args.pieces_per_word} + EOS)"
    else:
        lens = torch.randint(8, 25, (args.n,), generator=g).tolist()
        origin = "lengths uniform in 8..24 (source file not found)"
    srcs = [torch.randint(4, args.vocab, (n - 1,), generator=g).tolist() + [EOS_ID] for n in lens]
    extra = args.max_extra if args.max_extra is not None else 0
    what = (f"RANDOM-INIT '{args.preset}' model, synthetic ids with {origin}, {len(srcs)} sentences; "
            f"EOS is forbidden, so every output runs to input length + {extra}")
    return model, srcs, what, extra

def run(model, srcs, fn, max_tokens, **kw):
    dev = next(model.parameters()).device
    for batch in length_batches([len(s) for s in srcs], max_tokens):
        fn(model, pad_ids([srcs[i] for i in batch], PAD_ID).to(dev), **kw)
    if dev.type == 'cuda': torch.cuda.synchronize()

def main(argv=None):
    ap = argparse.ArgumentParser(allow_abbrev=False, description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--checkpoint', help='a transformer_nb checkpoint (model + tokenizer); default: random model')
    ap.add_argument('--src', default=str(DEFAULT_SRC), help='source sentences (text or .gz), one per line')
    ap.add_argument('--n', type=int, default=200, help='first N sentences (default 200)')
    ap.add_argument('--device', default='cpu', help="'cpu', 'cuda', 'auto' (default cpu)")
    ap.add_argument('--threads', type=int, default=2, help='CPU threads (default 2)')
    ap.add_argument('--preset', default='small', help="random model's preset (default 'small', the Multi30k one)")
    ap.add_argument('--vocab', type=int, default=8000, help="random model's vocabulary (default 8000)")
    ap.add_argument('--pieces-per-word', type=float, default=1.3, help='synthetic lengths: BPE pieces per word')
    ap.add_argument('--max-extra', type=int, default=None, help='output cap = input + this (default 50; 0 for random)')
    ap.add_argument('--max-tokens', type=int, default=2000, help='source tokens per batch (default 2000)')
    ap.add_argument('--beam', type=int, default=4)
    ap.add_argument('--repeats', type=int, default=3, help='timings per setting; the median is reported')
    ap.add_argument('--skip-uncached-beam', action='store_true', help='skip the slowest setting')
    args = ap.parse_args(argv)
    torch.set_num_threads(args.threads)
    model, srcs, what, extra = load(args)
    dev = next(model.parameters()).device
    name = torch.cuda.get_device_name(dev) if dev.type == 'cuda' else f"CPU, {torch.get_num_threads()} threads"
    print(f"# {what}\n# device: {name}; torch {torch.__version__}; max_tokens {args.max_tokens}; "
          f"median of {args.repeats}")
    settings = [('greedy', 'uncached', greedy_decode_batch, dict(use_cache=False)),
                ('greedy', 'cached', greedy_decode_batch, dict(use_cache=True)),
                (f'beam {args.beam}', 'uncached', beam_search_batch, dict(use_cache=False, beam=args.beam)),
                (f'beam {args.beam}', 'cached', beam_search_batch, dict(use_cache=True, beam=args.beam))]
    if args.skip_uncached_beam: settings.pop(2)
    run(model, srcs[:8], greedy_decode_batch, args.max_tokens, max_extra=extra)              # warm-up
    res = {}
    for dec, cache, fn, kw in settings:
        ts = []
        for _ in range(args.repeats):
            t0 = time.perf_counter(); run(model, srcs, fn, args.max_tokens, max_extra=extra, **kw)
            ts.append(time.perf_counter() - t0)
        res[dec, cache] = statistics.median(ts)
        print(f"{dec:>7} {cache:>8}: {len(srcs) / res[dec, cache]:8.1f} sentences/s   "
              f"(median {res[dec, cache]:.2f}s, runs {', '.join(f'{t:.2f}' for t in ts)})", flush=True)
    base = res['greedy', 'uncached']
    print("# ratios (speed relative to uncached greedy, same run):")
    for k, t in res.items(): print(f"{k[0]:>7} {k[1]:>8}: {base / t:6.2f}x")
    for dec in ('greedy', f'beam {args.beam}'):
        if (dec, 'uncached') in res: print(f"# cache speed-up, {dec}: {res[dec, 'uncached'] / res[dec, 'cached']:.2f}x")

if __name__ == '__main__': main()
