#!/usr/bin/env python
"""SentencePiece encoding of the apps_wmt14 data path (`encode_to_disk`), before and after it was made parallel, on a reduced
synthetic corpus (bench_data_scale.py's generator and vocabulary): runs interleaved (before, after, before, after, ...),
each in a fresh process, so that a load that comes and goes falls on both alike; their medians and the ratio.

- `before`: the encoder as it was: each side of a block encoded in turn (SentencePiece's `--threads`), then its ids
  flattened through a Python list, the block written, and the next block read only then; the arrays saved whole.
- `before-default`: the same, with the thread count `tnb-train` gave it (`num_threads=0`: SentencePiece's one thread).
- `after`: `encode_to_disk` now: both sides in one call on `--threads`, the next block read and encoded on a thread while
  this one is flattened in NumPy and written, the arrays copied into place a chunk at a time.

Each run's files are checked byte-equal to the first `before` run's.

    nice -n 5 python bench/bench_encode.py --pairs 300000 --repeats 3 --json results/encode_speed.json
    python bench/bench_encode.py --pairs 2000 --sample 4000 --vocab 200 --repeats 1       # a smoke run
"""
import argparse, json, os, shutil, statistics, subprocess, sys, tempfile, time
from pathlib import Path
sys.path.insert(0, str(Path(__file__).resolve().parent))

def encode_before(tok, src_path, tgt_path, out, max_len=256, block=100_000, num_threads=0):
    "The encoder before: `encode_to_disk` as it was (its files are the same)."
    import numpy as np
    from transformer_nb.core import BOS_ID, EOS_ID
    from transformer_nb.apps.wmt14 import iter_pairs
    out = Path(out); out.mkdir(parents=True, exist_ok=True)
    dt = np.uint16 if tok.vocab_size <= 65_536 else np.int32
    lens, files = {'src': [], 'tgt': []}, {s: open(out / f"{s}.bin", 'wb') for s in ('src', 'tgt')}
    for a, b in iter_pairs(src_path, tgt_path, block):
        ea, eb = tok.sp.encode(a, out_type=int, num_threads=num_threads), tok.sp.encode(b, out_type=int, num_threads=num_threads)
        la, lb = np.fromiter(map(len, ea), np.int64, len(ea)) + 1, np.fromiter(map(len, eb), np.int64, len(eb)) + 2
        some, short = (la > 1) & (lb > 2), np.ones(len(a), bool) if max_len is None else (la <= max_len) & (lb <= max_len)
        keep = some & short
        for side, enc, extra, ln in (('src', ea, ([], [EOS_ID]), la), ('tgt', eb, ([BOS_ID], [EOS_ID]), lb)):
            flat = np.asarray([t for i in np.flatnonzero(keep) for t in (*extra[0], *enc[i], *extra[1])], dt)
            files[side].write(flat.tobytes()); lens[side].append(ln[keep])
    for f in files.values(): f.close()
    for s in ('src', 'tgt'):
        ln = np.concatenate(lens[s]) if lens[s] else np.zeros(0, np.int64)
        np.save(out / f"{s}.offsets.npy", np.concatenate([[0], np.cumsum(ln)]).astype(np.int64))
        ids = np.fromfile(out / f"{s}.bin", dtype=dt); np.save(out / f"{s}.ids.npy", ids); del ids
        (out / f"{s}.bin").unlink()

def child(a):
    "One timed run of `--run`, in this fresh process: its wall seconds as a JSON line."
    from transformer_nb.lib.tokens import StoredTokenizer
    from transformer_nb.apps import wmt14
    work = Path(a.dir); tok = StoredTokenizer((work / 'spm.model').read_bytes()); out = work / f'out-{a.run}'
    shutil.rmtree(out, ignore_errors=True)
    t0 = time.perf_counter()
    if a.run == 'after': wmt14.encode_to_disk(tok, work / 'train.en', work / 'train.de', out, num_threads=a.threads)
    else: encode_before(tok, work / 'train.en', work / 'train.de', out, num_threads=0 if a.run == 'before-default' else a.threads)
    print(json.dumps({'seconds': round(time.perf_counter() - t0, 2)}), flush=True)

def files_of(folder:Path) -> dict: return {n: (folder / n).read_bytes() for n in ('src.ids.npy', 'tgt.ids.npy', 'src.offsets.npy', 'tgt.offsets.npy')}

def main(argv=None):
    ap = argparse.ArgumentParser(allow_abbrev=False, description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--pairs', type=int, default=300_000, help='sentence pairs in the synthetic corpus (default 300,000)')
    ap.add_argument('--sample', type=int, default=200_000, help="sentences in the tokenizer's sample (default 200,000)")
    ap.add_argument('--vocab', type=int, default=37_000, help='pieces of the shared vocabulary (default 37,000: the paper EN-DE)')
    ap.add_argument('--threads', type=int, default=2, help='threads for SentencePiece (default 2)')
    ap.add_argument('--repeats', type=int, default=3, help='runs of each variant, interleaved (default 3)')
    ap.add_argument('--variants', default='before,before-default,after', help='the encoders compared (default: all three)')
    ap.add_argument('--dir', default=None, help="the run's own folder (default: a new temporary folder, removed at the end)")
    ap.add_argument('--json', default=None, help='append the figures to this JSON list')
    ap.add_argument('--run', help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    if a.run: return child(a)
    from bench_data_scale import generate
    from transformer_nb.apps import wmt14
    from transformer_nb.lib.tokens import StoredTokenizer
    from transformer_nb.lib.machine import hardware
    from transformer_nb.lib.safeguards import atomic_write
    work = Path(a.dir) if a.dir else Path(tempfile.mkdtemp(prefix='tnb-encode-'))
    work.mkdir(parents=True, exist_ok=True)
    variants = a.variants.split(',')
    runs, cpu, peak, load0 = {v: [] for v in variants}, {v: [] for v in variants}, {v: [] for v in variants}, os.getloadavg()
    try:
        generate(work, a.pairs)
        tok = StoredTokenizer.train(wmt14.sample_lines([work / 'train.en', work / 'train.de'], a.sample), vocab_size=a.vocab, num_threads=a.threads)
        (work / 'spm.model').write_bytes(tok.sp.serialized_model_proto())
        ref = None
        for r in range(a.repeats):
            for v in variants:
                p = subprocess.Popen([sys.executable, __file__, '--run', v, '--dir', str(work), '--threads', str(a.threads)], stdout=subprocess.PIPE, text=True)
                got = p.stdout.read(); _, status, use = os.wait4(p.pid, 0)       # this run's own CPU time (all its threads) and peak memory
                if os.waitstatus_to_exitcode(status): sys.exit(f"run {v} failed (exit {os.waitstatus_to_exitcode(status)})")
                runs[v].append(json.loads(got.strip().splitlines()[-1])['seconds'])
                cpu[v].append(round(use.ru_utime + use.ru_stime, 1)); peak[v].append(round(use.ru_maxrss / 1024, 1))   # Linux: KiB
                got = files_of(work / f'out-{v}'); ref = ref or got
                if got != ref: sys.exit(f"{v}: its files differ from the first run's")
                print(f"repeat {r + 1} {v:15s} {runs[v][-1]:7.1f} s, cpu {cpu[v][-1]:7.1f} s, peak {peak[v][-1]:7.1f} MB", flush=True)
    finally:
        if not a.dir: shutil.rmtree(work, ignore_errors=True)
    med = {v: statistics.median(x) for v, x in runs.items()}
    ratios = {f"{v}/after": round(med[v] / med['after'], 2) for v in variants if v != 'after' and 'after' in med}
    print(f"medians {', '.join(f'{v} {s:.1f} s' for v, s in med.items())}; {', '.join(f'{k} {x}' for k, x in ratios.items())} "
          f"({a.pairs:,} pairs on {hardware()}, load {os.getloadavg()[0]:.1f})")
    if a.json:
        rec = dict(about="bench/bench_encode.py: encode_to_disk before and after, interleaved runs in fresh processes, the files checked byte-equal; cpu_seconds each run's CPU time (all threads), peak_rss_mb its maximum resident set",
                   machine=hardware(), cores=os.cpu_count(), date=time.strftime('%Y-%m-%d'),
                   load_before=[round(x, 2) for x in load0], load_after=[round(x, 2) for x in os.getloadavg()],
                   args={k: v for k, v in vars(a).items() if k not in ('run', 'dir', 'json')},
                   seconds=runs, median_seconds=med, cpu_seconds=cpu, median_cpu_seconds={v: statistics.median(x) for v, x in cpu.items()}, peak_rss_mb=peak, ratios=ratios, identical=True)
        old = json.loads(Path(a.json).read_text(encoding='utf-8')) if Path(a.json).is_file() else []
        atomic_write(a.json, json.dumps([*(old if isinstance(old, list) else [old]), rec], indent=1) + "\n")   # one record a run, appended

if __name__ == '__main__':
    main()
