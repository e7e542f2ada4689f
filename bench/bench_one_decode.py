#!/usr/bin/env python
"""Beam search's wall time, this tree against an earlier one: whole `tnb-translate` processes, interleaved.

Each run is one process that translates the Multi30k test2016 source sentences (1,000 lines) with a published model
(`pretrained:multi30k-de-en` by default), beam 4, float32, one thread, as a user runs it:

    tnb-translate pretrained:multi30k-de-en --beam 4 --precision fp32 --threads 1 -i test_2016_flickr.de -o OUT

The runs alternate old, new, old, new, ... (`--pairs` pairs), so a change in the machine's load falls on both sides.
A process is timed from its start to its end (loading the model and Python included), and its CPU time (user + system)
is read from the operating system. Printed: each side's median, and new / old for both, with the load average
before and after. `--old` is a checkout of the earlier commit (e.g. `git worktree add ../old HEAD~1`) holding its
own `models/`; each side runs with its own folder as the current one, so Python imports that tree's package.

Not a test: it prints figures, and `--json` records them with the machine.

    python bench/bench_one_decode.py --old ../old --pairs 5 --json results/one_decode.json
"""
import argparse, gzip, json, os, platform, resource, statistics, subprocess, sys, tempfile, time
from pathlib import Path
from _common import ROOT, multi30k_file, command, load_average

RUN = "import sys; from transformer_nb.apps.cli import translate_main; sys.argv[0] = 'tnb-translate'; translate_main()"

def run(tree:Path, model:str, src:Path, out:Path, beam:int) -> tuple[float, float]:
    "(wall seconds, CPU seconds) of one tnb-translate process run in `tree`."
    env = {**os.environ, 'TNB_THREADS': '1', 'OMP_NUM_THREADS': '1', 'PYTHONDONTWRITEBYTECODE': '1'}
    before, t0 = resource.getrusage(resource.RUSAGE_CHILDREN), time.perf_counter()
    subprocess.run([sys.executable, '-c', RUN, model, '--beam', str(beam), '--precision', 'fp32', '--threads', '1',
                    '-i', str(src), '-o', str(out), '--overwrite'], cwd=tree, env=env, check=True, stderr=subprocess.DEVNULL)
    wall, after = time.perf_counter() - t0, resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)

def cpu_name() -> str:
    try: return next(l.split(':', 1)[1].strip() for l in open('/proc/cpuinfo') if l.startswith('model name'))
    except (OSError, StopIteration): return platform.processor() or platform.machine()

def main(argv=None):
    ap = argparse.ArgumentParser(allow_abbrev=False, description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--old', required=True, help='a checkout of the earlier commit, with its models/')
    ap.add_argument('--model', default='pretrained:multi30k-de-en', help='the model both sides translate with')
    ap.add_argument('--src', default=None, help='source sentences (default: test_2016_flickr.de.gz of --data-dir)')
    ap.add_argument('--data-dir', default=None, help='the Multi30k folder (default: $TNB_MULTI30K or shared/data/multi30k found upwards)')
    ap.add_argument('--beam', type=int, default=4)
    ap.add_argument('--pairs', type=int, default=5, help='old/new pairs of runs (default 5)')
    ap.add_argument('--json', default=None, help='write the results here, a JSON file')
    a = ap.parse_args(argv)
    old, tmp = Path(a.old).resolve(), Path(tempfile.mkdtemp())
    if not (old / 'transformer_nb').is_dir(): sys.exit(f"--old {a.old}: not a checkout of this repository (no transformer_nb/)")
    src = Path(a.src) if a.src else multi30k_file('test_2016_flickr.de.gz', a.data_dir)
    plain = tmp / 'src.txt'                                       # both sides read the same plain file
    with (gzip.open if src.suffix == '.gz' else open)(src, 'rt', encoding='utf-8') as f: plain.write_text(f.read(), encoding='utf-8')
    n = sum(1 for _ in plain.open(encoding='utf-8'))
    times, load0 = {'old': [], 'new': []}, load_average()
    for i in range(a.pairs):
        for side, tree in (('old', old), ('new', ROOT)):
            times[side].append(run(tree, a.model, plain, tmp / f'{side}.txt', a.beam))
            print(f"pair {i + 1} {side}: {times[side][-1][0]:.2f} s wall, {times[side][-1][1]:.2f} s CPU", flush=True)
    same = (tmp / 'old.txt').read_text(encoding='utf-8') == (tmp / 'new.txt').read_text(encoding='utf-8')
    med = {s: {k: round(statistics.median(t[j] for t in times[s]), 3) for j, k in enumerate(('wall_s', 'cpu_s'))} for s in times}
    ratio = {k: round(med['new'][k] / med['old'][k], 3) for k in ('wall_s', 'cpu_s')}
    print(f"{n} sentences, beam {a.beam}, fp32, 1 thread; medians of {a.pairs} interleaved runs each")
    for s in ('old', 'new'): print(f"  {s}: {med[s]['wall_s']:.2f} s wall, {med[s]['cpu_s']:.2f} s CPU")
    print(f"  new / old: {ratio['wall_s']:.3f} wall, {ratio['cpu_s']:.3f} CPU; the same translations: {same}")
    if a.json:
        import torch
        rec = dict(date=time.strftime('%Y-%m-%dT%H:%M:%S'), hardware=f"{cpu_name()}, {os.cpu_count()} cores (CPU), torch {torch.__version__}",
                   torch=torch.__version__, threads=1, precision='fp32', model=a.model, beam=a.beam, n_sentences=n, pairs=a.pairs,
                   load_average_before=load0, load_average_after=load_average(), median=med, new_over_old=ratio,
                   same_translations=same, runs={s: [[round(w, 3), round(c, 3)] for w, c in times[s]] for s in times},
                   command=command('bench_one_decode.py', argv).replace(str(old), 'OLD'))
        Path(a.json).write_text(json.dumps(rec, indent=1) + '\n')

if __name__ == '__main__': main()
