#!/usr/bin/env python
"""Where beam search spends its time (lib_fast_decoding): a py-spy profile of the readable beam search of 10_decoding,
of the fast one of lib_fast_decoding and of the fast one with the early stop, on a trained checkpoint, grouped by what the code does.

    pip install py-spy
    python bench/profile_decode.py --checkpoint runs/mini-de-en --json results/decode_profile.json
    python bench/profile_decode.py --checkpoint runs/mini-de-en --n 50 --repeats 1 --json /tmp/decode_profile.json  # a trial

Each decoder translates the first `--n` sentences of Multi30k test2016 (`--src`, else `test_2016_flickr.de.gz` in
`--data-dir`, else in `$TNB_MULTI30K` or the first `shared/data/multi30k` in or above the repository; beam 4, alpha
0.6, cap source + 50, batches of `--max-tokens` source tokens, one thread) in a child process sampled by py-spy
(`--rate` samples/s, Python stacks; a native call is charged to the Python line that made it, so a line's share is its
share of the wall time). Samples are grouped by stack: the encoder; the decoder's attention (softmax(QK^T)V), its
output projection (the pre-softmax linear layer, |V| wide), the rest of its layers (projections, FFN, LayerNorm,
embeddings, the model's Python); the log-softmax over the vocabulary (its normaliser in `topk_log_probs`, `log_probs`,
and the PAD/BOS mask); top-k and candidate scores; reordering the key/value caches and the rows of the encoder output
(`select`, `_select_cat` when the next append does a pending select, `_follow_parents`); and the search's own
bookkeeping (every other line of the search loop). Then each decoder is timed without the profiler (median of
`--repeats`, in turn), and the decoder rows (hypotheses x steps) each computes are counted. The decoders:
- `readable`: `beam_search` (10_decoding), its n-best lists;
- `fast`: `beam_search_batch(..., nbest=1)` (lib_fast_decoding), what `translate` and the tools run;
- `early stop`: `beam_search_batch(..., nbest=1, stop='early')`, which also ends a sentence as soon as its best
  candidate is EOS (OpenNMT-py's rule; faster, not the exact search).
Not a test: it prints a table and, with --json, stores it.
"""
import argparse, json, linecache, statistics, subprocess, sys, tempfile, time, datetime, shutil
from pathlib import Path
from _common import decode_options, multi30k_file, source_ids, id_batches, command, rel, load_average
from transformer_nb.core import PAD_ID

GROUPS = ('encoder', 'decoder: attention', 'decoder: output projection', 'decoder: other layer work',
          'log-softmax over the vocabulary', 'top-k and candidate scores', 'cache reorder', 'search bookkeeping')

def parse_frame(f):
    "'func (path:line)' -> (func, path, line)."
    func, _, rest = f.rpartition(' (')
    path, _, line = rest.rstrip(')').rpartition(':')
    return func.split('.')[-1], path, int(line) if line.isdigit() else 0    # 'Transformer.decode' -> 'decode'

def source(path, line, roots):
    for r in roots:
        p = Path(r) / path
        if p.is_file(): return linecache.getline(str(p), line)
    return linecache.getline(path, line)

def classify(stack, search_fn, roots):
    "The group of one sampled stack (a list of frames, outermost first), or None outside the search."
    frames = [parse_frame(f) for f in stack]
    idx = [i for i, (fn, p, _) in enumerate(frames) if fn == search_fn and p.endswith('decoding.py')]
    if not idx: return None
    inner = frames[idx[-1] + 1:]
    names = [(fn, p) for fn, p, _ in inner]
    innermost = source(*inner[-1][1:], roots) if inner else ''
    if any(fn == 'encode' and p.endswith('model.py') for fn, p in names): return 'encoder'
    if any(fn in ('_select_cat', '_apply_select', '_follow_parents') or (fn == 'select' and p.endswith('decoding.py'))
           for fn, p in names): return 'cache reorder'                # a pending select is done inside the next append
    dec = [(fn, p, l) for fn, p, l in inner if fn == 'decode' and p.endswith('model.py')]   # 06's decode: every decoder's step
    if dec:
        if any(p.endswith('attention.py') for _, p in names) or 'scaled_dot_product_attention' in innermost:
            return 'decoder: attention'
        if 'generator' in source(dec[0][1], dec[0][2], roots): return 'decoder: output projection'
        return 'decoder: other layer work'
    if any(fn in ('next_token_logits', 'log_probs') for fn, _ in names): return 'log-softmax over the vocabulary'
    if any(fn == 'topk_rows' for fn, _ in names): return 'top-k and candidate scores'
    if any(fn == 'topk_log_probs' for fn, _ in names): return 'log-softmax over the vocabulary'   # its normaliser
    fn, p, l = frames[idx[-1]]
    text = source(p, l, roots)
    if 'log_softmax' in text or 'log_probs(' in text: return 'log-softmax over the vocabulary'
    if 'topk' in text or 'cand' in text: return 'top-k and candidate scores'
    if '.select(' in text or 'mem[rows]' in text: return 'cache reorder'     # the readable search's memory rows too
    return 'search bookkeeping'

def load(a):
    from transformer_nb.lib.machine import limit_threads
    from transformer_nb.lib.checkpoints import model_from_checkpoint
    from transformer_nb.lib.datasets import read_lines
    limit_threads(a.threads)
    model, tok, _ = model_from_checkpoint(a.checkpoint, device='cpu')
    if tok is None: sys.exit(f"{a.checkpoint} holds no tokenizer")
    return model, source_ids(tok, read_lines(a.src)[:a.n])

def run(fn, model, srcs, max_tokens):
    for _, src in id_batches(srcs, max_tokens): fn(model, src, beam=4)

def decoders():
    "{name: (function(model, src, beam), name of the search function in the stacks)}."
    from transformer_nb.decoding import beam_search
    from transformer_nb.lib.fast_decoding import beam_search_batch
    readable = lambda m, s, beam: [beam_search(m, r[r != PAD_ID], k=beam) for r in s]   # 10's, one sentence at a time
    return {'readable': (readable, 'beam_search'),
            'fast': (lambda m, s, beam: beam_search_batch(m, s, beam=beam, nbest=1), 'beam_search_batch'),
            'early stop': (lambda m, s, beam: beam_search_batch(m, s, beam=beam, nbest=1, stop='early'), 'beam_search_batch')}

def count_rows(model, srcs, max_tokens):
    "{decoder name: decoder rows (hypotheses x new positions)} over the same batches, counted at the target embedding."
    out = {}
    hook = model.tgt_emb.register_forward_hook(lambda m, args, y: rows.__setitem__(0, rows[0] + args[0].shape[0]))   # both decoders embed each step's new tokens
    try:
        for name, (fn, _) in decoders().items():
            rows = [0]; run(fn, model, srcs, max_tokens); out[name] = rows[0]
    finally: hook.remove()
    return out

def main(argv=None):
    ap = decode_options(__doc__, 3, 'unprofiled timings per decoder, in turn; the median is kept')
    ap.add_argument('--rate', type=int, default=250, help='py-spy samples per second (default 250)')
    ap.add_argument('--worker', default=None, help=argparse.SUPPRESS)   # internal: run one decoder (under py-spy)
    a = ap.parse_args(argv)
    a.src = str(a.src or multi30k_file('test_2016_flickr.de.gz', a.data_dir))
    if a.worker:                                                       # load, warm up, wait for py-spy, run
        model, srcs = load(a); fn = decoders()[a.worker][0]
        run(fn, model, srcs[:50], a.max_tokens)
        print('ready', flush=True); sys.stdin.readline()
        run(fn, model, srcs, a.max_tokens); return
    spy = shutil.which('py-spy') or str(Path(sys.executable).parent / 'py-spy')
    if not Path(spy).exists(): sys.exit("py-spy not found: pip install py-spy")
    if a.n < 1: sys.exit("--n must be at least 1")
    import torch, transformer_nb
    from transformer_nb.lib.machine import hardware, git_commit
    roots = [str(Path(transformer_nb.__file__).parents[1]), *sys.path]
    names, out, work = list(decoders()), {}, Path(tempfile.mkdtemp(prefix='profile_decode.'))
    load_before = load_average()
    for name in names:
        raw = work / f'{name}.txt'
        args = ['--checkpoint', str(a.checkpoint)]
        worker = subprocess.Popen([sys.executable, __file__, *args, '--src', a.src, '--n', str(a.n), '--max-tokens',
                                   str(a.max_tokens), '--threads', str(a.threads), '--worker', name],
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        if worker.stdout.readline().strip() != 'ready': sys.exit(f"the {name} worker failed")
        spy_p = subprocess.Popen([spy, 'record', '--format', 'raw', '--rate', str(a.rate), '-o', str(raw), '--pid',
                                  str(worker.pid)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        time.sleep(2)                                                  # let py-spy attach before the timed run starts
        worker.stdin.write('go\n'); worker.stdin.flush(); worker.wait()
        err = spy_p.communicate()[1]
        if not raw.is_file(): sys.exit(f"py-spy failed: {err.strip()[-500:]}")
        counts = {g: 0 for g in GROUPS}
        search_fn = decoders()[name][1]
        for line in raw.read_text().splitlines():
            stack, _, n = line.rpartition(' ')
            g = classify(stack.split(';'), search_fn, roots)
            if g: counts[g] += int(n)
        total = sum(counts.values())
        out[name] = dict(samples=total, share={g: round(c / total, 4) for g, c in counts.items()})
    model, srcs = load(a)
    fns = {k: f for k, (f, _) in decoders().items()}
    for name in names: run(fns[name], model, srcs[:50], a.max_tokens)        # warm-up
    times = {name: [] for name in names}
    for _ in range(a.repeats):
        for name in names:
            t0 = time.perf_counter(); run(fns[name], model, srcs, a.max_tokens); times[name].append(time.perf_counter() - t0)
    for name in names:
        med = statistics.median(times[name])
        out[name].update(wall_s=round(med, 3), runs_s=[round(t, 3) for t in times[name]], sentences_per_s=round(len(srcs) / med, 1))
    rows = count_rows(model, srcs, a.max_tokens)
    load_after = load_average()
    print(f"# beam 4 on {len(srcs)} sentences of {Path(a.src).name}; {hardware()}; {a.threads} thread(s); py-spy at "
          f"{a.rate}/s; load average {load_before[0]:.1f} -> {load_after[0]:.1f} (shares of the wall time)")
    print(f"{'':34}" + ''.join(f"{n:>24}" for n in names))
    for g in GROUPS:
        print(f"{g:34}" + ''.join(f"{100 * out[n]['share'][g]:8.1f}% = {out[n]['share'][g] * out[n]['wall_s']:6.2f} s  " for n in names))
    print(f"{'wall time, unprofiled (median)':34}" + ''.join(f"{out[n]['wall_s']:9.2f} s {out[n]['sentences_per_s']:6.1f}/s  " for n in names))
    print("# decoder rows computed (hypotheses x steps): " + ', '.join(f"{k} {v}" for k, v in rows.items()))
    if a.json:
        rec = dict(date=datetime.datetime.now().isoformat(timespec='seconds'), commit=git_commit(), hardware=hardware(),
                   torch=torch.__version__, threads=a.threads, checkpoint=rel(a.checkpoint), n_sentences=len(srcs), beam=4,
                   max_tokens=a.max_tokens, profiler=f"py-spy {a.rate} samples/s", repeats=a.repeats,
                   load_average_before=load_before, load_average_after=load_after, command=command('profile_decode.py', argv),
                   groups=list(GROUPS), decoders=out, decoder_rows=rows)
        Path(a.json).parent.mkdir(parents=True, exist_ok=True)
        Path(a.json).write_text(json.dumps(rec, indent=1) + '\n')
        print(f"# wrote {a.json}")

if __name__ == '__main__': main()
