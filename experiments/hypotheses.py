#!/usr/bin/env python
"""Store the translations behind the CPU comparisons of 10_decoding and 11_results, so that every "A beats B" can be
tested with sacreBLEU's paired bootstrap without the checkpoints (runs/ is not part of the repository).

It decodes run folders that `experiments/table3.py` trained (`--runs runs/table3`), and writes one text file of
hypotheses per decoding into `results/hyps/` plus a manifest, `results/hyps/hyps.json`, with each file's scores, the
commands, commit, hardware and date, and whether the run reproduced the record of `results/table3_fp32.json` (same
validation BLEU with beam 4: the run is then the one in the table).

- every Table 3 variant found: validation set, beam 4 (the decoding of Table 3);
- the base run (`--base`), trained with the command of its `results/table3_fp32.json` record plus `--save-every 50
  --keep 5`, so that it keeps its last five checkpoints (saving does not change the training: the run reproduces the
  record): validation and test set, greedy, beam 4, and beam 4 on the average of its last five checkpoints.

    tnb-train --dataset multi30k --src-lang en --tgt-lang de --preset mini --vocab-size 8000 --max-tokens 4000 \
        --steps 800 --warmup 400 --lr-scale 0.5 --seed 0 --threads 1 --valid-every 800 --test-limit 0 --no-progress \
        --save-every 50 --keep 5 --out runs/table3/base                            # about 16 min on one CPU thread
    python experiments/table3.py --only base-seed1,B-dk4,C-d64 --runs runs/table3 --results runs/table3.json
    python experiments/hypotheses.py --runs runs/table3                            # a few minutes
"""
import argparse, json, shlex, subprocess, os
from pathlib import Path
from transformer_nb.lib.machine import hardware, git_commit
from transformer_nb.lib.runs import RunFolder
from transformer_nb.lib.scoring import TABLE3_KEYS
from transformer_nb.lib.records import load_results, today
from transformer_nb.lib.datasets import find_multi30k

ROOT = Path(__file__).resolve().parents[1]

def evaluate(ckpt:Path, split:str, beam:int, hyp:Path, data_dir, threads:int) -> tuple[dict, str]:
    "Run tnb-evaluate; returns its JSON scores and the command."
    cmd = ['tnb-evaluate', str(ckpt), '--dataset', 'multi30k', '--split', split, '--beam', str(beam), '--json',
           '--hyp-out', str(hyp)] + (['--data-dir', str(data_dir)] if data_dir else [])
    env = {**os.environ, 'OMP_NUM_THREADS': str(threads), 'TNB_THREADS': str(threads)}
    r = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if r.returncode: raise RuntimeError(f"{shlex.join(cmd)} failed: {r.stderr.strip()}")
    return json.loads(r.stdout), shlex.join(cmd).replace(f'{ROOT}/', '')     # paths relative to the repository

def main(argv=None):
    p = argparse.ArgumentParser(allow_abbrev=False, description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument('--runs', default=str(ROOT / 'runs' / 'table3'), help="folder of the Table 3 run folders")
    p.add_argument('--base', default='base', help="the run folder (in --runs) with five checkpoints")
    p.add_argument('--out', default=str(ROOT / 'results' / 'hyps'))
    p.add_argument('--table3', default=str(ROOT / 'results' / 'table3_fp32.json'))
    p.add_argument('--data-dir', default=None)
    p.add_argument('--threads', type=int, default=1)
    a = p.parse_args(argv)
    runs, out, data_dir = Path(a.runs), Path(a.out), a.data_dir or find_multi30k()
    out.mkdir(parents=True, exist_ok=True)
    manifest_path = out / 'hyps.json'
    manifest = json.loads(manifest_path.read_text()) if manifest_path.exists() else {}
    stored = {r['id']: r for r in load_results(a.table3, TABLE3_KEYS)}
    jobs = [(d.name, d, 'valid', 4) for d in sorted(runs.iterdir()) if d.is_dir() and RunFolder(d).checkpoints()]
    base = runs / a.base
    if len(RunFolder(base).checkpoints()) >= 5:
        avg = base / 'average.pt'
        if not avg.exists():
            subprocess.run(['tnb-average', str(base), '--last', '5', '-o', str(avg)], check=True, capture_output=True)
        jobs += [(a.base, base, 'valid', 1), (f'{a.base}-avg5', avg, 'valid', 4)]
        jobs += [(a.base, base, 'test', 1), (a.base, base, 'test', 4), (f'{a.base}-avg5', avg, 'test', 4)]
    for name, ckpt, split, beam in jobs:
        key = f"table3-{name}.{split}.{'greedy' if beam == 1 else f'beam{beam}'}"
        if key in manifest: print(f"{key}: already stored"); continue
        sc, cmd = evaluate(ckpt, split, beam, out / f'{key}.txt', data_dir, a.threads)
        rec = dict(file=f'{key}.txt', run=name, split=split, beam=beam,
                   **{k: sc[k] for k in ('bleu', 'bleu_lc', 'chrf', 'exact_match', 'bleu_signature')},
                   command=cmd, hardware=hardware(), commit=git_commit(), date=today())
        if split == 'valid' and beam == 4 and name in stored:      # the Table 3 decoding: is this the stored run?
            rec['table3_bleu'] = stored[name]['bleu']; rec['reproduces_table3'] = abs(stored[name]['bleu'] - sc['bleu']) < 0.005
        manifest[key] = rec
        manifest_path.write_text(json.dumps(manifest, indent=1) + '\n')     # after each file: an interruption loses nothing
        print(f"{key}: BLEU {sc['bleu']:.2f} (lc {sc['bleu_lc']:.2f})"
              + (f", Table 3 record {rec['table3_bleu']:.2f}" if 'table3_bleu' in rec else ''), flush=True)

if __name__ == '__main__': main()
