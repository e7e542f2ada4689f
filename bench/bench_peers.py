#!/usr/bin/env python
"""Decoding speed against OpenNMT-py 3.5.1 and CTranslate2 (lib_benchmarks): sentences/s of greedy decoding and beam 4
on Multi30k test2016, one thread, the same model weights, the same sentences, the same batches and length cap.

Not a test: it prints figures and, with --json, stores them (results/decode_bench.json, shown in lib_benchmarks).

    python bench/bench_peers.py --checkpoint runs/mini-preln-de-en --also runs/mini-de-en --peer opennmt \\
        --peer-python ../onmt-venv/bin/python --ctranslate2 --n 1000 --repeats 5 --json results/decode_bench.json
    python bench/bench_peers.py --checkpoint runs/mini-preln-de-en --also runs/mini-de-en --peer opennmt \\
        --ctranslate2 --n 50 --repeats 1 --json /tmp/decode_bench.json            # a quick trial ($ONMT_PYTHON set)

OpenNMT-py runs in its own virtual environment, outside the repository: `--peer-python`, else `$ONMT_PYTHON`
(bench/peer_opennmt.py says how to make it). CTranslate2 (`--ctranslate2`) is the `ctranslate2` package in ours
(`pip install ctranslate2`). The test files come from `--src`/`--ref`, else from `--data-dir`, else from
`$TNB_MULTI30K` or the first `shared/data/multi30k` in or above the repository (e.g. ../shared/data/multi30k).

The two checkpoints (1000 updates each, about 25 minutes on one CPU thread; tnb-train has no pre-LN flag, hence the
Python for the second):

    tnb-train --dataset multi30k --data-dir ../shared/data/multi30k --src-lang de --tgt-lang en --preset mini \\
        --vocab-size 8000 --max-tokens 4000 --steps 1000 --warmup 400 --lr-scale 0.5 --seed 0 --threads 1 --save-every 0 \\
        --keep 1 --test-limit 0 --out runs/mini-de-en
    python -c "from transformer_nb.core import set_seed; from transformer_nb.lib.machine import limit_threads; from transformer_nb.lib.datasets import load_dataset
    from transformer_nb.apps.workflow import train_model; limit_threads(1)
    train_model(load_dataset('multi30k', 'de', 'en', '../shared/data/multi30k'), preset='mini', vocab_size=8000, norm_first=True,
        max_tokens=4000, steps=1000, warmup=400, lr_scale=0.5, seed=0, out='runs/mini-preln-de-en', save_every=0, keep=1)"

Systems, timed in turn (round robin) `--repeats` times each; the median is reported, with ratios between medians of
the same run (the machine may be shared: the load average before and after is stored with the figures):
- `ours`: `greedy_decode` with the fast cache / `beam_search_batch(nbest=1)` of transformer_nb (lib_fast_decoding), what `translate`
  and the tools use;
- `ours, readable decoders (10_decoding)`: `greedy_decode` / `beam_search` (its n-best lists, the best of each kept),
  the decoders the course teaches: the same translations, without the speed-ups (`--no-readable` skips them);
- `ours (early stop)`: `beam_search_batch(..., stop='early')`, which also ends a sentence when its best candidate is
  EOS (OpenNMT-py's rule: not the exact search, compared like for like with OpenNMT-py);
- `opennmt-py`: OpenNMT-py 3.5.1 in its own virtual environment, with our weights ported into its Transformer
  (bench/peer_opennmt.py: an exact port, so it searches the same distribution). OpenNMT-py's Transformer is pre-LN
  only, hence `--checkpoint` must be a pre-LN model (`norm_first=True`); `--also` adds a second checkpoint (e.g. the
  paper's post-LN) for our decoders and CTranslate2 only;
- `ctranslate2 float32`, `ctranslate2 int8`: the checkpoint exported with `tnb-export --ctranslate2`, loaded with
  compute_type float32 / int8 (`--ctranslate2`).

Fairness: every system gets the same source pieces (SentencePiece encoding done once, outside the timings) and returns
pieces; detokenisation is outside the timings. Ours and CTranslate2 decode the same length-sorted batches of at most
`--max-tokens` source tokens. OpenNMT-py batches with its own iterator (`-batch_type tokens -batch_size --max-tokens`
and, as a second setting, its default of 30 sentences per batch) and is timed inside its own process. Length cap:
ours stops each sentence at its source length + 50 tokens; CTranslate2 takes one cap per batch (the longest source in
it + 50), OpenNMT-py one cap per run (longest source + 50, `-max_length_ratio 0`): never less than ours. Beam search:
beam 4, GNMT length penalty alpha = 0.6 for all (OpenNMT-py `-length_penalty wu`). BLEU: sacreBLEU against the
test2016 references, per system, with how many outputs are identical to ours.
"""
import argparse, json, os, statistics, subprocess, sys, tempfile, time, datetime, platform
from pathlib import Path
import torch
from transformer_nb.core import PAD_ID
from _common import ROOT, multi30k_file, source_ids, id_batches, command, rel, load_average
from transformer_nb.lib.machine import hardware, git_commit, limit_threads
from transformer_nb.lib.checkpoints import model_from_checkpoint, open_checkpoint
from transformer_nb.lib.runs import RunFolder
from transformer_nb.lib.datasets import read_lines
from transformer_nb.decoding import greedy_decode, beam_search
from transformer_nb.lib.fast_decoding import greedy_decode_batch, beam_search_batch
from transformer_nb.lib.fast_decoding import length_batches
from transformer_nb.evaluation import corpus_scores

OURS, READABLE, EARLY = 'ours', 'ours, readable decoders (10_decoding)', 'ours (early stop)'

def _best(hyps): return [h[0][0] for h in hyps]
DECODERS = {  # system: (greedy, beam search), each (model, src, beam, max_extra) -> token ids per sentence
    OURS: (lambda m, s, beam, x: greedy_decode_batch(m, s, max_extra=x),
           lambda m, s, beam, x: _best(beam_search_batch(m, s, beam=beam, max_extra=x, nbest=1))),
    READABLE: (lambda m, s, beam, x: [greedy_decode(m, r[r != PAD_ID], max_extra=x) for r in s],    # one sentence at a time
               lambda m, s, beam, x: [beam_search(m, r[r != PAD_ID], k=beam, max_extra=x)[0][0] for r in s]),
    EARLY: (None, lambda m, s, beam, x: _best(beam_search_batch(m, s, beam=beam, max_extra=x, nbest=1, stop='early'))),
}

class Ours:
    "One of our decoders on pre-encoded id lists, in length-sorted batches of at most max_tokens source tokens."
    def __init__(self, model, max_tokens, fns): self.model, self.max_tokens, self.fns = model, max_tokens, fns
    def __call__(self, srcs, beam, max_extra):
        out = [None] * len(srcs)
        fn = self.fns[beam != 1]
        for batch, src in id_batches(srcs, self.max_tokens):
            for i, h in zip(batch, fn(self.model, src, beam, max_extra)): out[i] = h
        return out

class CT2:
    "A CTranslate2 translator on the same batches (pieces in, pieces out); one length cap per batch."
    def __init__(self, model_dir, compute_type, threads, max_tokens, sp):
        import ctranslate2
        self.tr = ctranslate2.Translator(str(model_dir), device='cpu', compute_type=compute_type, inter_threads=1,
                                         intra_threads=threads)
        self.max_tokens, self.sp = max_tokens, sp
    def __call__(self, srcs, beam, max_extra):
        out = [None] * len(srcs)
        for batch in length_batches([len(s) for s in srcs], self.max_tokens):
            pieces = [[self.sp.id_to_piece(t) for t in srcs[i][:-1]] for i in batch]     # the model adds the EOS
            res = self.tr.translate_batch(pieces, beam_size=beam, length_penalty=0.6, min_decoding_length=0,
                                          max_decoding_length=len(srcs[batch[0]]) + max_extra, max_input_length=0)
            for i, r in zip(batch, res): out[i] = [self.sp.piece_to_id(p) for p in r.hypotheses[0]]
        return out

def portable_checkpoint(ours_ckpt, out) -> Path:
    "A copy of our checkpoint that any torch reads with weights_only=True: config, weights, tokenizer as a uint8 tensor."
    c = open_checkpoint(ours_ckpt)
    tok = torch.frombuffer(bytearray(c.tokenizer_bytes), dtype=torch.uint8)
    torch.save({'config': {k: getattr(c.config, k) for k in c.config.__dataclass_fields__}, 'model': c.weights, 'tokenizer': tok}, out)
    return Path(out)

def peer_python(arg) -> str:
    "OpenNMT-py's interpreter: --peer-python, else $ONMT_PYTHON; a message saying how to make it when there is none."
    py = arg or os.environ.get('ONMT_PYTHON')
    if not py: sys.exit("--peer opennmt needs OpenNMT-py's interpreter: give --peer-python or set ONMT_PYTHON. Make its "
                        "virtual environment outside the repository, e.g.\n  python -m venv ../onmt-venv && "
                        "../onmt-venv/bin/pip install OpenNMT-py==3.5.1 'numpy<2' sentencepiece\n"
                        "then: --peer-python ../onmt-venv/bin/python (see bench/peer_opennmt.py)")
    if not Path(py).is_file(): sys.exit(f"OpenNMT-py's interpreter {py} not found (see bench/peer_opennmt.py for the setup)")
    return os.path.abspath(py)                         # not resolved: a virtual environment's python is a symlink

class OpenNMT:
    "OpenNMT-py 3.5.1 in its own interpreter (bench/peer_opennmt.py serve), timed inside that process."
    def __init__(self, python, ours_ckpt, workdir, threads, batch_type, batch_size, sp):
        Path(workdir).mkdir(parents=True, exist_ok=True)
        env = {**os.environ, 'TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD': '1', 'OMP_NUM_THREADS': str(threads),
               'PYTHONWARNINGS': 'ignore'}
        env.pop('PYTHONPATH', None)                                      # nothing of ours in OpenNMT-py's process
        stubs = write_stubs(python, env, workdir)
        if stubs: env['PYTHONPATH'] = str(stubs)
        self.ckpt = Path(workdir) / 'opennmt.pt'
        script = str(ROOT / 'bench' / 'peer_opennmt.py')
        r = subprocess.run([python, script, 'convert', str(portable_checkpoint(ours_ckpt, Path(workdir) / 'ours.pt')),
                            str(self.ckpt)], env=env, capture_output=True, text=True)
        if r.returncode: sys.exit(f"OpenNMT-py conversion failed: {r.stderr.strip().splitlines()[-1] if r.stderr.strip() else r.returncode}")
        self.version, self.torch = subprocess.run(
            [python, '-c', 'import onmt, torch; print(onmt.__version__, torch.__version__)'], env=env, capture_output=True,
            text=True).stdout.split()
        self.p = subprocess.Popen([python, script, 'serve', str(self.ckpt)], env=env,
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        self.threads, self.batch_type, self.batch_size, self.sp = threads, batch_type, batch_size, sp
        self.seconds = None
    def __call__(self, srcs, beam, max_extra):
        lines = [' '.join(self.sp.id_to_piece(t) for t in s) for s in srcs]               # source EOS included
        q = dict(src=lines, beam=beam, max_length=max(map(len, srcs)) + max_extra, batch_size=self.batch_size,
                 batch_type=self.batch_type, threads=self.threads)
        self.p.stdin.write(json.dumps(q) + '\n'); self.p.stdin.flush()
        line = self.p.stdout.readline()
        if not line: sys.exit("the OpenNMT-py process ended without an answer")
        r = json.loads(line)
        self.seconds = r['seconds']                                                       # its own timing, for the record
        return [[self.sp.piece_to_id(p) for p in h.split()] for h in r['hyps']]
    def close(self): self.p.stdin.close(); self.p.wait()

def write_stubs(python, env, workdir) -> Path|None:
    """One-line stand-ins for spacy and fasttext where OpenNMT-py's environment lacks them: it imports both at start-up,
    for transforms this benchmark does not use (an environment made with `pip install --no-deps`, see peer_opennmt.py)."""
    missing = [m for m in ('spacy', 'fasttext')
               if subprocess.run([python, '-c', f'import {m}'], env=env, capture_output=True).returncode]
    if not missing: return None
    d = Path(workdir) / 'stubs'; d.mkdir(parents=True, exist_ok=True)
    for m in missing:
        (d / f'{m}.py').write_text(f'"Stub: OpenNMT-py imports {m} only for a transform this benchmark does not use."\n')
    return d

def checkpoint_file(path) -> Path:
    p = Path(path)
    if p.is_file(): return p
    f = RunFolder(p).latest() if p.is_dir() else None
    if f is None: sys.exit(f"no checkpoint at {path}")
    return f

def main(argv=None):
    ap = argparse.ArgumentParser(allow_abbrev=False, description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--checkpoint', required=True, help='checkpoint (or run folder) of the compared model; pre-LN for --peer opennmt')
    ap.add_argument('--also', default=None, help='a second checkpoint (e.g. post-LN) timed with ours and CTranslate2 only')
    ap.add_argument('--data-dir', default=None, help='the Multi30k folder (default: $TNB_MULTI30K or shared/data/multi30k found upwards)')
    ap.add_argument('--src', default=None, help='source sentences (default: test_2016_flickr.de.gz of --data-dir)')
    ap.add_argument('--ref', default=None, help='references (default: test_2016_flickr.en.gz of --data-dir)')
    ap.add_argument('--n', type=int, default=1000, help='first N sentences (default: all 1000 of test2016)')
    ap.add_argument('--threads', type=int, default=1)
    ap.add_argument('--max-tokens', type=int, default=2000, help='source tokens per batch (default 2000)')
    ap.add_argument('--max-extra', type=int, default=50)
    ap.add_argument('--beam', type=int, default=4)
    ap.add_argument('--repeats', type=int, default=5)
    ap.add_argument('--peer', choices=['opennmt'], default=None)
    ap.add_argument('--peer-python', default=None,
                    help="OpenNMT-py's interpreter (default: $ONMT_PYTHON; see bench/peer_opennmt.py for the setup)")
    ap.add_argument('--peer-batches', nargs='+', default=['tokens:2000', 'sents:30'],
                    help="OpenNMT-py batchings to time, TYPE:SIZE (default: 2000 tokens as ours, and its own default of 30 sentences)")
    ap.add_argument('--ctranslate2', action='store_true', help='also time the CTranslate2 export (float32 and int8)')
    ap.add_argument('--no-readable', action='store_true', help="skip the readable decoders of 10_decoding")
    ap.add_argument('--json', default=None, help='write the results here (e.g. results/decode_bench.json)')
    a = ap.parse_args(argv)
    limit_threads(a.threads)
    py = peer_python(a.peer_python) if a.peer == 'opennmt' else None
    src_path = Path(a.src) if a.src else multi30k_file('test_2016_flickr.de.gz', a.data_dir)
    ref_path = Path(a.ref) if a.ref else multi30k_file('test_2016_flickr.en.gz', a.data_dir)
    load_before = load_average()
    lines, refs = read_lines(src_path)[:a.n], read_lines(ref_path)[:a.n]
    work = Path(tempfile.mkdtemp(prefix='bench_peers.'))
    systems, models = [], {}
    ours = [OURS] + ([] if a.no_readable else [READABLE]) + [EARLY]
    for name, path in (('compared', a.checkpoint), ('also', a.also)):
        if path is None: continue
        model, tok, ck = model_from_checkpoint(path, device='cpu')
        if tok is None: sys.exit(f"{path} holds no tokenizer")
        preset = str(ck.meta.get('preset', '?')).split(' ')[0]
        label = f"{preset} {'pre-LN' if model.cfg.norm_first else 'post-LN'}"
        models[name] = dict(checkpoint=rel(path), label=label, step=ck.step, norm_first=model.cfg.norm_first,
                            params=sum(p.numel() for p in {id(p): p for p in model.parameters()}.values()),
                            vocab=tok.vocab_size, srcs=source_ids(tok, lines), tok=tok)
        systems += [(name, s, Ours(model, a.max_tokens, DECODERS[s])) for s in ours]
        if name == 'compared' and a.peer == 'opennmt':
            if not model.cfg.norm_first: sys.exit(f"{path} is post-LN: OpenNMT-py's Transformer is pre-LN only (see --also)")
            for pb in a.peer_batches:
                bt, size = pb.split(':')
                peer = OpenNMT(py, checkpoint_file(path), work / bt, a.threads, bt, int(size), tok.sp)
                models[name].update(opennmt_version=peer.version, opennmt_torch=peer.torch)
                systems.append((name, f"opennmt-py ({size} {'tokens' if bt == 'tokens' else 'sentences'})", peer))
        if a.ctranslate2:
            from transformer_nb.apps.export import export_ctranslate2
            d = export_ctranslate2(path, work / f'ct2-{name}')
            for ct in ('float32', 'int8'): systems.append((name, f'ctranslate2 {ct}', CT2(d, ct, a.threads, a.max_tokens, tok.sp)))
    decodings = [1, a.beam]
    print(f"# {len(lines)} sentences of {src_path.name}; {hardware()}; {a.threads} thread(s); max_tokens {a.max_tokens}; "
          f"cap source+{a.max_extra}; median of {a.repeats}; load average {load_before[0]:.1f} at start")
    for n, m in models.items(): print(f"# {n}: {m['checkpoint']} ({m['label']}, {m['params'] / 1e6:.2f}M params)")
    times, outs = {}, {}
    skip = lambda sysname, beam: sysname == EARLY and beam == 1                  # greedy has no stopping rule
    for name, sysname, fn in systems:                                    # warm-up
        for beam in decodings:
            if not skip(sysname, beam): fn(models[name]['srcs'][:20], beam, a.max_extra)
    for rep in range(a.repeats):
        for beam in decodings:
            for name, sysname, fn in systems:
                if skip(sysname, beam): continue
                srcs = models[name]['srcs']
                t0 = time.perf_counter(); hyps = fn(srcs, beam, a.max_extra); dt = time.perf_counter() - t0
                if isinstance(fn, OpenNMT): dt = fn.seconds                 # timed inside its process: no pipe overhead
                times.setdefault((name, sysname, beam), []).append(dt)
                if rep == 0: outs[name, sysname, beam] = hyps
        print(f"# repeat {rep + 1}/{a.repeats} done, load average {load_average()[0]:.1f}", flush=True)
    for s in systems:
        if isinstance(s[2], OpenNMT): s[2].close()
    load_after = load_average()
    rows = []
    for (name, sysname, beam), ts in times.items():
        tok, base = models[name]['tok'], outs[name, OURS, beam]
        hyps = outs[name, sysname, beam]
        sc = corpus_scores([tok.decode(h) for h in hyps], refs)
        med = statistics.median(ts)
        rows.append(dict(model=name, system=sysname, decoding='greedy' if beam == 1 else f'beam {beam}',
                         sentences_per_s=round(len(lines) / med, 1), median_s=round(med, 3), runs_s=[round(t, 3) for t in ts],
                         bleu=sc['bleu'], identical_to_ours=sum(x == y for x, y in zip(hyps, base))))
    for r in rows:
        print(f"{models[r['model']]['label']:>13} {r['system']:>38} {r['decoding']:>7}: {r['sentences_per_s']:7.1f} sent/s "
              f"(median {r['median_s']:.2f}s of {', '.join(f'{t:.2f}' for t in r['runs_s'])}); BLEU {r['bleu']:.2f}; "
              f"identical to ours {r['identical_to_ours']}/{len(lines)}")
    ratios = {}
    def speed(model, system, dec): return next((r['sentences_per_s'] for r in rows if (r['model'], r['system'], r['decoding']) == (model, system, dec)), None)
    peers = [s for _, s, f in systems if isinstance(f, OpenNMT)]
    print("# ratios of sentences/s (same run):")
    for model in models:
        for dec in ('greedy', f'beam {a.beam}'):
            base = speed(model, OURS, dec)
            for other in [READABLE, EARLY, *peers, 'ctranslate2 float32', 'ctranslate2 int8']:
                o = speed(model, other, dec)
                if o is None or base is None: continue
                ratios[f"{model}: {other} / ours, {dec}"] = round(o / base, 3)
                print(f"{models[model]['label']:>13} {dec:>7}: ours is {base / o:5.2f}x {other}  ({other} / ours = {o / base:.2f})")
    for model in models:                                             # like for like: both stop when the best candidate is EOS
        dec = f'beam {a.beam}'; e = speed(model, EARLY, dec)
        for other in peers:
            o = speed(model, other, dec)
            if o is None or e is None: continue
            ratios[f"{model}: {other} / ours (early stop), {dec}"] = round(o / e, 3)
            print(f"{models[model]['label']:>13} {dec:>7}: ours (early stop) is {e / o:5.2f}x {other}")
    if a.json:
        rec = dict(date=datetime.datetime.now().isoformat(timespec='seconds'), commit=git_commit(), hardware=hardware(),
                   python=platform.python_version(), torch=torch.__version__, threads=a.threads, n_sentences=len(lines),
                   source=src_path.name, max_tokens=a.max_tokens, max_extra=a.max_extra, repeats=a.repeats,
                   load_average_before=load_before, load_average_after=load_after, cpu_count=os.cpu_count(),
                   command=command('bench_peers.py', argv),
                   models={n: {k: v for k, v in m.items() if k not in ('srcs', 'tok')} for n, m in models.items()},
                   results=rows, ratios=ratios)
        try:
            import ctranslate2; rec['ctranslate2'] = ctranslate2.__version__
        except ImportError: pass
        Path(a.json).parent.mkdir(parents=True, exist_ok=True)
        Path(a.json).write_text(json.dumps(rec, indent=1) + '\n')
        print(f"# wrote {a.json}")

if __name__ == '__main__': main()
