#!/usr/bin/env python
"""Make one of the published models (models/NAME.pt, apps_pretrained) from a finished run, choosing on validation.

    python experiments/make_pretrained.py multi30k-de-en runs/cpu-hour-de-en
    python experiments/make_pretrained.py multi30k-en-de runs/cpu-hour-en-de
    python experiments/make_pretrained.py numbers runs/numbers

The run's last checkpoint and its average (of the last five) are both scored on the validation set with the task's
decoding (`tnb-evaluate --split valid`, beam 4 and alpha 0.6 for translation); the better one, by lowercased BLEU for
Multi30k and by exact match for the number corpus, is published: `make_pretrained` writes its float16 copy with the
provenance (both validation scores, the choice, and the chosen float32 model's test scores, measured after the choice
and used for nothing). The script prints the file's sha256 and size, which go into `PRETRAINED` (lib_checkpoints).

Then the published file itself is scored and recorded, once `PRETRAINED` knows its checksum:

    tnb-evaluate pretrained:NAME --record results/results.json --id pretrained-NAME --hyp-out results/hyps/pretrained-NAME.test.txt --overwrite
"""
import argparse, json, shlex, subprocess, sys
from pathlib import Path
ROOT = Path(__file__).resolve().parents[1]
from transformer_nb.lib.checkpoints import open_checkpoint, PRETRAINED
from transformer_nb.lib.datasets import DATASETS, find_multi30k
from transformer_nb.lib.safeguards import sha256_file
from transformer_nb.apps.pretrained import make_pretrained
from transformer_nb.lib.runs import RunFolder

METRIC = {'multi30k': 'bleu_lc', 'numbers': 'exact_match'}      # what validation chooses by

def scores(ckpt, *args) -> dict:
    "The scores `tnb-evaluate CKPT ARGS --json` prints."
    cmd = ['tnb-evaluate', str(ckpt), '--json', *args]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode: sys.exit(f"{shlex.join(cmd)} failed ({r.returncode}): {r.stderr.strip()[-500:]}")
    return json.loads(r.stdout.strip().splitlines()[-1])

def main(argv=None):
    ap = argparse.ArgumentParser(allow_abbrev=False, description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('name', choices=sorted(PRETRAINED)); ap.add_argument('run', help='the finished run folder')
    ap.add_argument('--out', default=None, help='default: models/<the file PRETRAINED names>')
    a = ap.parse_args(argv)
    run = RunFolder(a.run)
    last = run.checkpoints()[-1]
    cands = {'last': last, **({'average': run.path / 'average.pt'} if (run.path / 'average.pt').is_file() else {})}
    dataset = open_checkpoint(last, None, mmap=True).meta['dataset']
    metric = METRIC[dataset]
    downloaded = not DATASETS[dataset].generated                      # Multi30k: $TNB_MULTI30K, or shared/ beside the clone
    data = ['--data-dir', str(find_multi30k(ROOT))] if downloaded else []
    valid = {k: scores(p, '--split', 'valid', *data) for k, p in cands.items()}
    for k, s in valid.items(): print(f"valid, {k}: {metric} {s[metric]}", flush=True)
    chosen = max(valid, key=lambda k: (valid[k][metric], k == 'average'))   # a tie goes to the average
    test = scores(cands[chosen], *data)                                           # measured after the choice, for the record
    print(f"chosen by validation: {chosen}; its test {metric}: {test[metric]}", flush=True)
    steps = open_checkpoint(cands[chosen], None, mmap=True).meta.get('averaged_steps')
    out = Path(a.out) if a.out else ROOT / 'models' / PRETRAINED[a.name].file
    out.parent.mkdir(exist_ok=True)
    make_pretrained(cands[chosen], out, {
        'name': a.name, 'chosen': chosen, 'averaged_steps': steps, 'chosen_by': f'validation {metric}', 'valid': valid,
        'test_run': test, 'decoding': 'the task default (beam 4, alpha 0.6 for translation)',
        'made_by': shlex.join(['python', 'experiments/make_pretrained.py', *(argv or sys.argv[1:])])}, overwrite=True)   # the published file, made again
    print(json.dumps({'name': a.name, 'file': str(out), 'sha256': sha256_file(out), 'size': out.stat().st_size}))

if __name__ == '__main__': main()
