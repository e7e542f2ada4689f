#!/usr/bin/env python
"""The `cpu-hour` recipe measured: Multi30k on a 2-core CPU within an hour, with its time-to-quality curve (09_training).

    python experiments/cpu_hour.py --src-lang de --tgt-lang en --out runs/cpu-hour-de-en --results results/cpu_hour.json
    python experiments/cpu_hour.py --src-lang en --tgt-lang de --out runs/cpu-hour-en-de --results results/cpu_hour.json

Each run is the one command a learner types, timed from start to exit as `/usr/bin/time` would time it (imports, data,
tokenizer, training, averaging, the test with beam 4):

    tnb-train --dataset multi30k --data-dir DIR --src-lang de --tgt-lang en --recipe cpu-hour --keep 0 --out RUN

`--keep 0` keeps every checkpoint (the recipe keeps the 5 it averages) so that the curve can be drawn afterwards,
outside the timed command: each `--every`-th checkpoint is translated with beam 4 and scored with sacreBLEU, at the
minute it was written (its time stamp, from the start of the command). The validation set decides between the last
checkpoint and the average (both are scored on it); test2016 is scored for every point, and reported, never used to
choose. A record per direction goes into `--results` (a record of the same direction is replaced): the command, its
wall time, the hardware and load average, the curve, and the final scores.

`--existing --out RUN --started EPOCH_SECONDS --wall SECONDS --command '...' [--load-before x,y,z]` records a run
made earlier by the same command (or by the flags the recipe stands for) instead of starting one.
"""
import argparse, datetime, json, os, shlex, subprocess, sys, time
from pathlib import Path
ROOT = Path(__file__).resolve().parents[1]
from transformer_nb.lib.machine import hardware, git_commit, limit_threads
from transformer_nb.lib.checkpoints import model_from_checkpoint, open_checkpoint
from transformer_nb.lib.datasets import load_dataset, find_multi30k
from transformer_nb.lib.scoring import evaluate
from transformer_nb.lib.options import PAPER_DECODING
from transformer_nb.lib.runs import RunFolder

def load_avg() -> list[float]: return [round(x, 2) for x in os.getloadavg()]

def score(path, pairs, beam=4) -> dict:
    model, tok, _ = model_from_checkpoint(path, device='cpu')
    s, _ = evaluate(model, tok, pairs, PAPER_DECODING.but(beam=beam))
    return {k: s[k] for k in ('bleu', 'bleu_lc', 'chrf')}

def main(argv=None):
    ap = argparse.ArgumentParser(allow_abbrev=False, description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--src-lang', default='de'); ap.add_argument('--tgt-lang', default='en')
    ap.add_argument('--data-dir', default=None, help='Multi30k (default: $TNB_MULTI30K or shared/data/multi30k found upwards)')
    ap.add_argument('--out', required=True, help='the run folder')
    ap.add_argument('--every', type=int, default=300, help='score every N-th update on the curve (default 300)')
    ap.add_argument('--results', default='results/cpu_hour.json')
    ap.add_argument('--existing', action='store_true', help='record the run already in --out (see --started, --wall, --command)')
    ap.add_argument('--started', type=float); ap.add_argument('--wall', type=float); ap.add_argument('--command')
    ap.add_argument('--load-before', help="with --existing: the load average when the run started, as 'x,y,z'")
    a = ap.parse_args(argv)
    d = Path(a.data_dir) if a.data_dir else find_multi30k(ROOT)
    if d is None: sys.exit("Multi30k not found: give --data-dir or set TNB_MULTI30K")
    load_before = load_avg()
    if a.existing:
        if None in (a.started, a.wall, a.command): sys.exit("--existing needs --started, --wall and --command")
        started, wall, command = a.started, a.wall, a.command
        load_before = [float(x) for x in a.load_before.split(',')] if a.load_before else None
    else:
        cmd = ['tnb-train', '--dataset', 'multi30k', '--data-dir', os.path.relpath(d), '--src-lang', a.src_lang, '--tgt-lang',
               a.tgt_lang, '--recipe', 'cpu-hour', '--keep', '0', '--out', a.out, '--no-progress']
        command, started = shlex.join(cmd), time.time()
        r = subprocess.run(cmd)
        wall = time.time() - started
        if r.returncode: sys.exit(f"{command} failed ({r.returncode})")
    load_after_run = load_avg()
    limit_threads(0)                                                   # scoring is outside the timed command: every core
    data = load_dataset('multi30k', a.src_lang, a.tgt_lang, d)
    run = RunFolder(a.out)
    cks = {int(open_checkpoint(p, None, mmap=True).step): p for p in run.checkpoints()}
    last = max(cks)
    curve = []
    for step in sorted(s for s in cks if s % a.every == 0 or s == last):
        ck = open_checkpoint(cks[step], None, mmap=True)
        curve.append(dict(step=step, minutes=round((ck.meta['time'] - started) / 60, 2), **score(cks[step], data.test)))
        print(f"update {step}: {curve[-1]['minutes']:.1f} min, test BLEU {curve[-1]['bleu_lc']:.2f} (lowercased)", flush=True)
    avg = Path(a.out) / 'average.pt'
    final = {}
    for name, path in (('last', cks[last]), ('average', avg)):
        if path.exists(): final[name] = dict(valid=score(path, data.valid), test=score(path, data.test))
    chosen = max(final, key=lambda k: final[k]['valid']['bleu_lc'])
    ck = open_checkpoint(cks[last], None, mmap=True)
    rec = dict(direction=f"{a.src_lang}-{a.tgt_lang}", recipe='cpu-hour', command=command, wall_s=round(wall, 1),
               hardware=hardware(), cpu_count=os.cpu_count(), date=datetime.date.today().isoformat(), commit=git_commit(),
               load_average_before=load_before, load_average_after_run=load_after_run,
               train_config=ck.train_config, updates=last,
               curve=curve, final=final, chosen_on_valid=chosen, test_bleu_lc=final[chosen]['test']['bleu_lc'],
               decoding='beam 4, alpha 0.6, exact search', metric='sacreBLEU on test2016 (bleu_lc: lowercased)')
    p = Path(a.results)
    recs = [r for r in (json.loads(p.read_text()) if p.exists() else []) if r['direction'] != rec['direction']]
    p.write_text(json.dumps(sorted(recs + [rec], key=lambda r: r['direction']), indent=1) + '\n')
    print(f"{rec['direction']}: {rec['test_bleu_lc']} lowercased BLEU on test2016 ({chosen}, chosen on valid) in "
          f"{wall / 60:.1f} minutes; wrote {p}")

if __name__ == '__main__': main()
