#!/usr/bin/env python
"""The data path of the paper's scale (apps_wmt14) on a synthetic corpus as large as WMT14 EN-DE: 4.5 million sentence
pairs, written into this run's own folder. Each stage runs in a fresh process, so its peak memory (the child's maximum
resident set size) is its own; the stages and what each does:

- `generate`: the synthetic corpus (not part of the data path: it stands for the download), two aligned text files;
- `load`: both files read through once, in blocks of aligned lines (`iter_pairs`), as the encoder reads them;
- `vocab`: the SentencePiece sample (`sample_lines`, reservoir sampling over both sides) and a shared vocabulary of
  `--vocab` pieces learnt from it (`StoredTokenizer.train`, the course's BPE);
- `encode`: both sides encoded a block at a time into token ids on disk (`encode_to_disk`), opened memory-mapped;
- `batch`: the token batches of one epoch from the lengths alone (`EncodedCorpus.sampler`, `--max-tokens` a side);
- `shard`: one of `--world` processes' share of the batches, as DDP reads them (its cost is each process's), and a check
  that the `--world` shares hold every pair exactly once.

Target (stated, and checked into the JSON): every stage of the data path within `--target-gb` GB of peak memory (8),
and the data path (load to shard) within `--target-minutes` minutes (15) on 2 cores. The corpus is never held as Python
strings, whole or twice: the largest thing in memory is the tokenizer's sample.

    nice -n 5 python bench/bench_data_scale.py --json results/data_scale.json          # 4.5 million pairs
    python bench/bench_data_scale.py --pairs 2000 --sample 4000 --vocab 200            # a smoke run
"""
import argparse, json, os, shutil, subprocess, sys, tempfile, time
from pathlib import Path

STAGES = ('generate', 'load', 'vocab', 'encode', 'batch', 'shard')
PATH = STAGES[1:]                                                  # the data path: the stages the target is about

def generate(folder:Path, pairs:int, seed:int=0):
    "Two aligned files of `pairs` synthetic sentences: Zipf-distributed pseudo-words, lengths about as WMT14's (mean ~23)."
    import numpy as np
    rng = np.random.default_rng(seed)
    syl = np.array(['ka', 'to', 're', 'mi', 'sa', 'lo', 'ne', 'di', 'pu', 'ga', 'te', 'ri', 'so', 'va', 'el', 'an', 'ur', 'ix'])
    def lexicon(n, k):
        parts = rng.integers(0, len(syl), size=(n, k))
        return np.array([''.join(syl[p[:2 + i % (k - 1)]]) + s for i, (p, s) in enumerate(zip(parts, np.arange(n).astype(str)))])
    words = {'en': lexicon(40_000, 4), 'de': lexicon(60_000, 5)}
    with open(folder / 'train.en', 'w', encoding='utf-8') as fe, open(folder / 'train.de', 'w', encoding='utf-8') as fd:
        for start in range(0, pairs, 100_000):
            n = min(100_000, pairs - start)
            lens = np.clip(rng.gamma(3.0, 7.5, n).astype(int) + 1, 1, 120)
            for f, lang, scale in ((fe, 'en', 1.0), (fd, 'de', 1.05)):
                ln = np.maximum(1, (lens * scale).astype(int)); ids = rng.zipf(1.2, ln.sum()) % len(words[lang])
                toks, cuts = words[lang][ids], np.cumsum(ln)[:-1]
                f.writelines(' '.join(s) + ' .\n' for s in np.split(toks, cuts))

def stage(name:str, a, work:Path) -> dict:
    "Run stage `name` in this process (the child); returns what it measured besides time and memory."
    import numpy as np
    from transformer_nb.apps import wmt14
    from transformer_nb.lib.tokens import StoredTokenizer
    if name == 'generate': generate(work, a.pairs); return {'bytes': sum((work / f).stat().st_size for f in ('train.en', 'train.de'))}
    if name == 'load':
        n = sum(len(x) for x, _ in wmt14.iter_pairs(work / 'train.en', work / 'train.de')); return {'pairs': n}
    if name == 'vocab':
        t0 = time.perf_counter(); sample = wmt14.sample_lines([work / 'train.en', work / 'train.de'], a.sample, seed=0)
        t1 = time.perf_counter(); tok = StoredTokenizer.train(sample, vocab_size=a.vocab, num_threads=a.threads)
        (work / 'spm.model').write_bytes(tok.sp.serialized_model_proto())
        return {'sample_sentences': len(sample), 'sample_seconds': round(t1 - t0, 1), 'pieces': tok.vocab_size}
    if name == 'encode':
        tok = StoredTokenizer((work / 'spm.model').read_bytes())
        enc = wmt14.encode_to_disk(tok, work / 'train.en', work / 'train.de', work / 'encoded', max_len=a.max_len, num_threads=a.threads, overwrite=True)   # the stage's own output, made again
        size = sum(p.stat().st_size for p in (work / 'encoded').iterdir())
        return {'pairs_kept': len(enc), 'src_tokens': int(enc.src_lens.sum()), 'tgt_tokens': int(enc.tgt_lens.sum()), 'bytes_on_disk': size}
    enc = wmt14.EncodedCorpus(work / 'encoded')
    if name == 'batch':
        b = enc.sampler(a.max_tokens).all_batches(0)
        return {'batches': len(b), 'max_tokens': a.max_tokens}
    if name == 'shard':
        s = enc.sampler(a.max_tokens, rank=0, world_size=a.world)
        mine = s.batches(0)                                        # what one process builds and keeps: its share
        shares = [s.all_batches(0)[r::a.world] for r in range(a.world)]
        seen = np.bincount(np.concatenate([np.asarray(b) for sh in shares for b in sh]), minlength=len(enc))
        assert (seen == 1).all() and len({len(sh) for sh in shares}) == 1, 'every pair in exactly one share, the same number of batches each'
        first = enc[int(mine[0][0])]                               # read from the memory map
        return {'world': a.world, 'batches_per_process': len(mine), 'first_example_tokens': [len(first[0]), len(first[1])]}

def child(a):
    "The stage of `--stage`, its result as a JSON line on standard output."
    work = Path(a.dir)
    import numpy, transformer_nb.apps.wmt14, transformer_nb.data             # noqa: F401  (imported before the clock starts)
    t0 = time.perf_counter(); out = stage(a.stage, a, work); out['seconds'] = round(time.perf_counter() - t0, 1)
    print(json.dumps(out), flush=True)

def run_stage(name:str, argv:list, work:Path) -> dict:
    "Run one stage in a fresh interpreter; its figures, with its peak resident memory from the kernel's accounting of that child."
    p = subprocess.Popen([sys.executable, __file__, *argv, '--stage', name, '--dir', str(work)], stdout=subprocess.PIPE, text=True)
    out = p.stdout.read(); _, status, usage = os.wait4(p.pid, 0); p.returncode = os.waitstatus_to_exitcode(status)
    if p.returncode: sys.exit(f"stage {name} failed (exit {p.returncode})")
    res = json.loads(out.strip().splitlines()[-1])
    res['peak_rss_mb'] = round(usage.ru_maxrss / 1024, 1)          # Linux: KiB
    res['cpu_seconds'] = round(usage.ru_utime + usage.ru_stime, 1)  # on a shared machine, what the stage itself used
    return res

def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    from transformer_nb.apps.wmt14 import SPM_SAMPLE
    ap = argparse.ArgumentParser(allow_abbrev=False, description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--pairs', type=int, default=4_500_000, help='sentence pairs in the synthetic corpus (default 4,500,000: WMT14 EN-DE)')
    ap.add_argument('--sample', type=int, default=SPM_SAMPLE, help=f"sentences in the tokenizer's sample, both sides together (default {SPM_SAMPLE:,}: the wmt14 task's)")
    ap.add_argument('--vocab', type=int, default=37_000, help='pieces of the shared vocabulary (default 37,000: the paper EN-DE)')
    ap.add_argument('--max-tokens', type=int, default=3125, help='padded tokens a side per batch and process (default 3,125: 25,000 on 8)')
    ap.add_argument('--max-len', type=int, default=256, help='drop pairs longer than this many tokens (default 256)')
    ap.add_argument('--world', type=int, default=8, help='processes to shard the batches over (default 8, as the paper)')
    ap.add_argument('--threads', type=int, default=2, help='threads for SentencePiece (default 2)')
    ap.add_argument('--dir', default=None, help="the run's own folder (default: a new temporary folder, removed at the end)")
    ap.add_argument('--keep', action='store_true', help='keep the folder (the corpus and its encoding)')
    ap.add_argument('--target-gb', type=float, default=8.0, help='the stated target: peak memory of every stage (default 8)')
    ap.add_argument('--target-minutes', type=float, default=15.0, help='the stated target: the data path, load to shard (default 15)')
    ap.add_argument('--json', default=None, help='write the figures here')
    ap.add_argument('--stage', choices=STAGES, help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    if a.stage: return child(a)
    from transformer_nb.lib.machine import hardware
    from transformer_nb.lib.safeguards import atomic_write
    work = Path(a.dir) if a.dir else Path(tempfile.mkdtemp(prefix='tnb-data-scale-'))
    work.mkdir(parents=True, exist_ok=True)
    passed = [x for x in argv if x not in ('--keep',)]
    load0, res = os.getloadavg(), {}
    try:
        for name in STAGES:
            res[name] = r = run_stage(name, passed, work)
            print(f"{name:9s} {r['seconds']:8.1f} s  peak {r['peak_rss_mb'] / 1024:6.2f} GB  " +
                  ', '.join(f"{k} {v:,}" if isinstance(v, int) else f"{k} {v}" for k, v in r.items() if k not in ('seconds', 'peak_rss_mb', 'cpu_seconds')), flush=True)
    finally:
        if not (a.keep or a.dir): shutil.rmtree(work, ignore_errors=True)
    total, peak = sum(res[s]['seconds'] for s in PATH), max(res[s]['peak_rss_mb'] for s in PATH) / 1024
    met = total <= 60 * a.target_minutes and peak <= a.target_gb
    print(f"data path (load to shard): {total / 60:.1f} minutes, peak {peak:.2f} GB; target <= {a.target_minutes:g} minutes and "
          f"<= {a.target_gb:g} GB: {'met' if met else 'NOT met'} ({a.pairs:,} pairs on {hardware()})")
    if a.json:
        rec = dict(about="bench/bench_data_scale.py: the apps_wmt14 data path on a synthetic corpus; each stage in a fresh process, "
                         "peak_rss_mb its maximum resident set", machine=hardware(), cores=os.cpu_count(),
                   load_before=[round(x, 2) for x in load0], load_after=[round(x, 2) for x in os.getloadavg()],
                   date=time.strftime('%Y-%m-%d'), args={k: v for k, v in vars(a).items() if k not in ('stage', 'dir', 'json', 'keep')},
                   stages=res, data_path_seconds=round(total, 1), data_path_peak_gb=round(peak, 2),
                   target={'minutes': a.target_minutes, 'gb': a.target_gb}, target_met=met)
        atomic_write(a.json, json.dumps(rec, indent=1) + "\n")

if __name__ == '__main__':
    main()
