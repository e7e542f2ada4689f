#!/usr/bin/env python
"""Beam search's wall time, this tree against an earlier one: whole `tnb-translate` processes, interleaved.

Each run is one process that translates the Multi30k test2016 source sentences (1,000 lines) with a published model
(both: `pretrained:multi30k-de-en` reads the German side, `pretrained:multi30k-en-de` the English one), beam 4,
float32, one thread, as a user runs it:

    tnb-translate pretrained:multi30k-de-en --beam 4 --precision fp32 --threads 1 -i test_2016_flickr.de -o OUT

The runs alternate old, new, old, new, ... (`--pairs` pairs), so a change in the machine's load falls on both sides.
A process is timed from its start to its end (loading the model and Python included), and its CPU time (user + system)
is read from the operating system. Printed: each side's median, and new / old for both, with the load average
before and after, and per model how many translations differ, how many of those were empty before (the old beam
search could end at its first step), and the empty ones on each side. `--old` is a checkout of the earlier commit (e.g. `git worktree add ../old HEAD~1`) holding its
own `models/`; each side runs with its own folder as the current one, so Python imports that tree's package.

Not a test: it prints figures, and `--json` records them with the machine.

    python bench/bench_one_decode.py --old ../old --pairs 4 --json results/one_decode.json
"""
import argparse, gzip, json, os, platform, resource, statistics, subprocess, sys, tempfile, time
from pathlib import Path
from _common import ROOT, multi30k_file, command, load_average, rel

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
    ap.add_argument('--models', nargs='+', default=['de-en', 'en-de'], help='published Multi30k models (their pairs), each timed in turn')
    ap.add_argument('--data-dir', default=None, help='the Multi30k folder (default: $TNB_MULTI30K or shared/data/multi30k found upwards)')
    ap.add_argument('--beam', type=int, default=4)
    ap.add_argument('--pairs', type=int, default=4, help='old/new pairs of runs (default 4)')
    ap.add_argument('--n', type=int, default=None, help='the first N sentences (default: all 1,000)')
    ap.add_argument('--json', default=None, help='write the results here, a JSON file')
    a = ap.parse_args(argv)
    old, tmp = Path(a.old).resolve(), Path(tempfile.mkdtemp())
    if not (old / 'transformer_nb').is_dir(): sys.exit(f"--old {a.old}: not a checkout of this repository (no transformer_nb/)")
    load0, results = load_average(), {}
    for pair in a.models:
        src = multi30k_file(f"test_2016_flickr.{pair.split('-')[0]}.gz", a.data_dir)
        plain = tmp / f'{pair}.src'                               # both sides read the same plain file
        with gzip.open(src, 'rt', encoding='utf-8') as f: plain.write_text(''.join(f.readlines()[:a.n]), encoding='utf-8')
        times, model = {'old': [], 'new': []}, f'pretrained:multi30k-{pair}'
        for i in range(a.pairs):
            for side, tree in (('old', old), ('new', ROOT)):
                times[side].append(run(tree, model, plain, tmp / f'{pair}.{side}', a.beam))
                print(f"{pair} pair {i + 1} {side}: {times[side][-1][0]:.2f} s wall, {times[side][-1][1]:.2f} s CPU", flush=True)
        outs = {s: (tmp / f'{pair}.{s}').read_text(encoding='utf-8').split('\n') for s in times}
        differ = [i for i, (o, n) in enumerate(zip(outs['old'], outs['new'])) if o != n]
        med = {s: {k: round(statistics.median(t[j] for t in times[s]), 3) for j, k in enumerate(('wall_s', 'cpu_s'))} for s in times}
        results[model] = dict(n_sentences=sum(1 for _ in plain.open(encoding='utf-8')), median=med,
                              new_over_old={k: round(med['new'][k] / med['old'][k], 3) for k in ('wall_s', 'cpu_s')},
                              runs={s: [[round(w, 3), round(c, 3)] for w, c in times[s]] for s in times},
                              differ=len(differ), differ_were_empty=sum(outs['old'][i] == '' for i in differ),
                              empty={s: sum(l == '' for l in outs[s][:-1]) for s in outs})
    for model, r in results.items():
        print(f"{model}: {r['n_sentences']} sentences, beam {a.beam}, fp32, 1 thread; medians of {a.pairs} interleaved runs each")
        for s in ('old', 'new'): print(f"  {s}: {r['median'][s]['wall_s']:.2f} s wall, {r['median'][s]['cpu_s']:.2f} s CPU")
        print(f"  new / old: {r['new_over_old']['wall_s']:.3f} wall, {r['new_over_old']['cpu_s']:.3f} CPU")
        print(f"  {r['differ']} translations differ, {r['differ_were_empty']} of them empty before; empty: {r['empty']['old']} old, {r['empty']['new']} new")
    if a.json:
        import torch
        rec = dict(date=time.strftime('%Y-%m-%dT%H:%M:%S'), hardware=f"{cpu_name()}, {os.cpu_count()} cores (CPU), torch {torch.__version__}",
                   torch=torch.__version__, threads=1, precision='fp32', beam=a.beam, pairs=a.pairs,
                   load_average_before=load0, load_average_after=load_average(), results=results,
                   command=command('bench_one_decode.py', argv).replace(rel(old), 'OLD'))
        Path(a.json).write_text(json.dumps(rec, indent=1) + '\n')

if __name__ == '__main__': main()
