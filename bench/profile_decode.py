#!/usr/bin/env python
"""Where beam search spends its time (10_decoding, issue 13): the PyTorch profiler's self CPU time per operator,
grouped into what the code does, for the readable reference beam search and the fast one, on a trained checkpoint.

    python bench/profile_decode.py --checkpoint runs/mini-de-en --json results/decode_profile.json

Each decoder translates the first `--n` sentences of Multi30k test2016 in length-sorted batches of `--max-tokens`
source tokens (beam 4, alpha 0.6, cap source + 50), once to warm up and once under `torch.profiler`. Operators are
grouped: the decoder's matrix products (`linear`), attention (`scaled dot-product attention`), the output softmax,
top-k, indexing/gathering (cache reordering, hypothesis bookkeeping), concatenation (cache appends, prefixes), the
rest of the tensor operators (`other operators`), and `Python and dispatch`: the wall time no operator accounts for
(the interpreter running the search loop, the model's Python, PyTorch's dispatcher). Not a test: it prints a table.
"""
import argparse, gzip, json, os, sys, time, datetime
from pathlib import Path
import torch
from torch.profiler import profile, ProfilerActivity
from transformer_nb.core import EOS_ID, PAD_ID, hardware, git_commit, limit_threads
from transformer_nb.training import model_from_checkpoint
from transformer_nb.decoding import beam_search_nbest, length_batches

GROUPS = [('linear layers', ('aten::addmm', 'aten::mm', 'aten::linear', 'aten::matmul', 'aten::bmm')),
          ('attention', ('scaled_dot_product', 'flash_attention', 'aten::_softmax', 'aten::baddbmm')),
          ('log-softmax of the output', ('aten::_log_softmax',)),
          ('top-k', ('aten::topk', 'aten::sort', 'aten::argsort')),
          ('index / gather (cache reorder, bookkeeping)', ('aten::index', 'aten::gather', 'aten::index_select', 'aten::take',
                                                           'aten::nonzero', 'aten::masked_select', 'aten::index_put', 'aten::index_fill')),
          ('concatenation (cache append, prefixes)', ('aten::cat',)),
          ('layer norm, ReLU, residual adds', ('aten::native_layer_norm', 'aten::relu', 'aten::clamp_min', 'aten::add'))]

def group_of(name):
    for g, keys in GROUPS:
        if any(k in name for k in keys): return g
    return 'other operators'

def read_lines(path):
    op = gzip.open if str(path).endswith('.gz') else open
    with op(path, 'rt', encoding='utf-8') as f: return [l.rstrip('\n') for l in f]

def run(fn, model, srcs, max_tokens):
    for batch in length_batches([len(s) for s in srcs], max_tokens):
        src = torch.full((len(batch), len(srcs[batch[0]])), PAD_ID, dtype=torch.long)
        for r, i in enumerate(batch): src[r, :len(srcs[i])] = torch.tensor(srcs[i])
        fn(model, src, beam=4)

def breakdown(fn, model, srcs, max_tokens):
    "(wall seconds, {group: seconds}) of one profiled run; the rest of the wall time is 'Python and dispatch'."
    run(fn, model, srcs[:50], max_tokens)                                    # warm-up
    t0 = time.perf_counter()
    with profile(activities=[ProfilerActivity.CPU]) as prof: run(fn, model, srcs, max_tokens)
    wall = time.perf_counter() - t0
    groups = {g: 0.0 for g, _ in GROUPS} | {'other operators': 0.0}
    for e in prof.key_averages():
        if e.key.startswith('aten::') or 'attention' in e.key: groups[group_of(e.key)] += e.self_cpu_time_total / 1e6
    groups['Python and dispatch'] = max(0.0, wall - sum(groups.values()))
    return wall, groups

def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--checkpoint', required=True)
    ap.add_argument('--src', default=None, help='source sentences (default: Multi30k test2016 German)')
    ap.add_argument('--n', type=int, default=300)
    ap.add_argument('--max-tokens', type=int, default=2000)
    ap.add_argument('--threads', type=int, default=1)
    ap.add_argument('--json', default=None)
    a = ap.parse_args(argv)
    limit_threads(a.threads)
    root = Path(__file__).resolve().parents[1]
    src = a.src or next((str(p / 'shared/data/multi30k/test_2016_flickr.de.gz') for p in root.parents
                         if (p / 'shared/data/multi30k/test_2016_flickr.de.gz').is_file()), None)
    if src is None: sys.exit("test_2016_flickr.de.gz not found: give --src")
    model, tok, ck = model_from_checkpoint(a.checkpoint, device='cpu')
    srcs = [tok.encode(l.strip()) + [EOS_ID] for l in read_lines(src)[:a.n]]
    decoders = {'fast': beam_search_nbest}
    try:
        from transformer_nb.decoding import beam_search_reference
        decoders = {'reference': beam_search_reference, **decoders}
    except ImportError: pass
    load = os.getloadavg()
    out = {}
    for name, fn in decoders.items():
        wall, groups = breakdown(fn, model, srcs, a.max_tokens)
        out[name] = dict(wall_s=round(wall, 3), sentences_per_s=round(len(srcs) / wall, 1),
                         groups={g: round(s, 3) for g, s in groups.items()})
    names = list(out)
    print(f"# beam 4 on {len(srcs)} sentences of {Path(src).name}; {hardware()}; {a.threads} thread(s); "
          f"load average {load[0]:.1f}; profiled (the profiler slows everything a little)")
    print(f"{'':48}" + ''.join(f"{n:>22}" for n in names))
    for g in out[names[0]]['groups']:
        print(f"{g:48}" + ''.join(f"{out[n]['groups'][g]:10.2f}s ({100 * out[n]['groups'][g] / out[n]['wall_s']:4.1f}%)" for n in names))
    print(f"{'total (wall)':48}" + ''.join(f"{out[n]['wall_s']:10.2f}s ({out[n]['sentences_per_s']:6.1f}/s)" for n in names))
    if a.json:
        rec = dict(date=datetime.datetime.now().isoformat(timespec='seconds'), commit=git_commit(), hardware=hardware(),
                   torch=torch.__version__, threads=a.threads, checkpoint=str(a.checkpoint), n_sentences=len(srcs),
                   beam=4, max_tokens=a.max_tokens, load_average=[round(x, 2) for x in load],
                   command=' '.join(['python', 'bench/profile_decode.py', *(sys.argv[1:] if argv is None else argv)]),
                   decoders=out)
        Path(a.json).parent.mkdir(parents=True, exist_ok=True)
        Path(a.json).write_text(json.dumps(rec, indent=1) + '\n')
        print(f"# wrote {a.json}")

if __name__ == '__main__': main()
