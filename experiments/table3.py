#!/usr/bin/env python
"""Table 3 at Multi30k scale: train the paper's variations of a base model with one budget and score them (12_variations).

Every variant of `table3_variants(PRESETS[--preset])` that `--only` names is trained by `tnb-train` for `--steps`
updates (same batch size, schedule, seed, data and BPE vocabulary), then scored by `tnb-evaluate` on the validation
split with beam 4 and no checkpoint averaging, as in the paper. Each finished variant adds one record (its commands,
commit, hardware, date, validation perplexity and sacreBLEU scores) to `--results`; variants already there are skipped,
so an interrupted sweep continues where it stopped. `base-seed1` is `base` with seed 1, to measure run-to-run noise.

    python experiments/table3.py --only base,base-seed1,A-h1,B-dk4 --jobs 2
    python experiments/table3.py --only all --steps 2000 --device cuda --jobs 1 --threads 8
"""
import argparse, json, os, shlex, subprocess, sys, time
from concurrent.futures import ThreadPoolExecutor, as_completed
from pathlib import Path
from transformer_nb.core import count_params
from transformer_nb.lib.machine import hardware, git_commit
from transformer_nb.lib.options import PRESETS
from transformer_nb.lib.checkpoints import open_checkpoint, model_from_checkpoint
from transformer_nb.lib.runs import RunFolder
from transformer_nb.variations import table3_variants
from transformer_nb.lib.scoring import TABLE3_KEYS
from transformer_nb.lib.records import add_result, load_results, train_time, today
ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / 'shared' / 'data' / 'multi30k'

def flags(overrides:dict) -> list[str]:
    "tnb-train options for `ModelConfig` overrides: {'d_k': 16} -> ['--d-k', '16']."
    return [x for k, v in overrides.items() for x in (f"--{k.replace('_', '-')}", str(v))]

def run(cmd:list[str], log:Path, env:dict) -> None:
    "Run `cmd`, its output going to `log`; a failure raises with the log's last lines."
    with open(log, 'a') as f:
        f.write(f"$ {shlex.join(cmd)}\n"); f.flush()
        rc = subprocess.run(cmd, stdout=f, stderr=subprocess.STDOUT, env=env).returncode
    if rc: raise RuntimeError(f"{shlex.join(cmd[:2])} ... exited with {rc}; last lines of {log}:\n" + ''.join(open(log).readlines()[-5:]))

def variant(name:str, args) -> dict:
    "Train and score one variant; returns its record."
    base_name, seed = (name.split('-seed')[0], int(name.split('-seed')[1])) if '-seed' in name else (name, args.seed)
    overrides = table3_variants(PRESETS[args.preset])[base_name]
    out = Path(args.runs) / name; out.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, 'OMP_NUM_THREADS': str(args.threads), 'TNB_THREADS': str(args.threads)}
    common = ['--dataset', 'multi30k', '--src-lang', args.src_lang, '--tgt-lang', args.tgt_lang] + (
        ['--data-dir', args.data_dir] if args.data_dir else [])
    train = ['tnb-train', *common, '--preset', args.preset, *flags(overrides), '--vocab-size', str(args.vocab_size),
             '--max-tokens', str(args.max_tokens), '--steps', str(args.steps), '--warmup', str(args.warmup),
             '--lr-scale', str(args.lr_scale), '--seed', str(seed), '--threads', str(args.threads), '--out', str(out),
             '--save-every', '0', '--keep', '1', '--valid-every', str(args.steps), '--test-limit', '0', '--no-progress']
    if args.device: train += ['--device', args.device]
    evaluate = ['tnb-evaluate', str(out), *common, '--split', 'valid', '--beam', '4', '--json',
                '--hyp-out', str(out / 'valid.beam4.txt')] + (['--device', args.device] if args.device else [])
    t0 = time.time()
    run(train, out / 'log.txt', env)
    rc = subprocess.run(evaluate, capture_output=True, text=True, env=env)
    if rc.returncode: raise RuntimeError(f"tnb-evaluate failed for {name}: {rc.stderr.strip()}")
    sc = json.loads(rc.stdout)
    (out / 'valid.json').write_text(rc.stdout)                         # written only once the scores are complete
    hyps = Path(args.hyps) / f"table3-{name}.valid.beam4.txt"           # kept beside the results: paired bootstrap reads them
    hyps.parent.mkdir(parents=True, exist_ok=True); hyps.write_bytes((out / 'valid.beam4.txt').read_bytes())
    ck = open_checkpoint(RunFolder(out).latest())
    hist = ck.meta['history']
    valid = [v for v in hist['valid'] if v['step'] == args.steps]
    if not valid: raise RuntimeError(f"{name}: no validation at update {args.steps} in {out}")
    params = count_params(model_from_checkpoint(ck)[0])                 # tied weights counted once
    print(f"{name}: valid ppl {valid[-1]['ppl']:.2f}, BLEU {sc['bleu']:.2f} ({time.time() - t0:.0f}s)", flush=True)
    return dict(id=name, variant=base_name, overrides=overrides, seed=seed, params=params, steps=args.steps,
                valid_ppl=round(valid[-1]['ppl'], 3), **{k: sc[k] for k in ('bleu', 'bleu_lc', 'chrf', 'bleu_signature')},
                hyps=os.path.relpath(hyps, ROOT), train_time_s=train_time(ck), hardware=ck.meta.get('hardware', hardware()), date=today(),
                commit=ck.meta.get('commit', git_commit()), command=f"{shlex.join(train)}; {shlex.join(evaluate)}")

def main(argv=None):
    p = argparse.ArgumentParser(allow_abbrev=False, description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument('--only', default='base,base-seed1,A-h1,A-h16,B-dk4,C-N1,C-d64,D-drop0.0,D-ls0.0,E-learned',
                   help="comma-separated variants in the order to run them ('all': every row, plus base-seed1)")
    p.add_argument('--preset', default='mini', choices=list(PRESETS), metavar='NAME', help="the base model (default: mini)")
    p.add_argument('--src-lang', default='en'); p.add_argument('--tgt-lang', default='de')
    p.add_argument('--data-dir', default=str(DATA) if DATA.is_dir() else None,
                   help="the Multi30k folder (default: ../shared/data/multi30k beside the repository, else as tnb-train finds it)")
    p.add_argument('--vocab-size', type=int, default=8000)
    p.add_argument('--steps', type=int, default=800, help="optimiser updates per variant (the one budget)")
    p.add_argument('--max-tokens', type=int, default=4000)
    p.add_argument('--warmup', type=int, default=400)
    p.add_argument('--lr-scale', type=float, default=0.5)
    p.add_argument('--seed', type=int, default=0)
    p.add_argument('--device', default=None)
    p.add_argument('--jobs', type=int, default=2, help="variants trained at the same time")
    p.add_argument('--threads', type=int, default=1, help="CPU threads per job")
    p.add_argument('--runs', default=str(ROOT / 'runs' / 'table3'), help="folder for the runs")
    p.add_argument('--results', default=str(ROOT / 'results' / 'table3.json'), help="the results file to add records to")
    p.add_argument('--hyps', default=str(ROOT / 'results' / 'hyps'), help="folder for each run's validation translations")
    p.add_argument('--redo', default='', help="comma-separated finished variants to run again (their records are replaced)")
    args = p.parse_args(argv)
    rows = table3_variants(PRESETS[args.preset])
    names = [*rows, 'base-seed1'] if args.only == 'all' else [n.strip() for n in args.only.split(',') if n.strip()]
    bad = [n for n in names if n.split('-seed')[0] not in rows]
    if bad: p.error(f"unknown variant(s) {bad}; choose from {', '.join(rows)} (and NAME-seedK)")
    done = {r['id'] for r in load_results(args.results, TABLE3_KEYS)}
    redo = {n.strip() for n in args.redo.split(',') if n.strip()}
    todo = [n for n in names if n not in done or n in redo]
    print(f"{len(todo)} variant(s) to run, {len(names) - len(todo)} already in {args.results}", flush=True)
    failed = []
    with ThreadPoolExecutor(args.jobs) as pool:
        futs = {pool.submit(variant, n, args): n for n in todo}
        for f in as_completed(futs):
            try: add_result(args.results, f.result(), TABLE3_KEYS)
            except Exception as e: failed.append(futs[f]); print(f"{futs[f]} failed: {e}", file=sys.stderr, flush=True)
    if failed: sys.exit(f"failed: {', '.join(failed)}")

if __name__ == '__main__': main()
