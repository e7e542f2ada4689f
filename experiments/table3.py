#!/usr/bin/env python
"""Table 3 at Multi30k scale, and the Transformer since 2017 (12_variations, 14_since_2017): one resumable runner.

Every variant that `--only` names, of Table 3's rows (`table3_variants(PRESETS[--preset])`, 12's module) or of the
changes since 2017 (`since2017_variants`, 14's module, with `paper`, 06's model unchanged, as the sweep's own
reference), is trained by `tnb-train` for `--steps` updates with each seed
of `--seeds` (same batch size, schedule, data and BPE vocabulary for all), then scored by `tnb-evaluate` on the
validation split with beam 4 and no checkpoint averaging, as in the paper. Each finished run adds one record (its
commands, seed, commit, hardware, precision, date, training time, validation perplexity, sacreBLEU scores and training
curve) to its family's results file, `table3{SUFFIX}.json` or `since2017{SUFFIX}.json` in `--results-dir`, and keeps
its validation translations in `hyps/` beside them; a run already recorded is never run again (unless `--redo` names
it; the file is read again before each run, so two sweeps never make one run twice), so an interrupted sweep continues where it stopped: Ctrl-C ends every run it started, records none of them, and
exits with 130. A run's id is its variant's name, with `-seedK` for a seed other than 0 (`base-seed1`; `base-seed0` is
`base`). The precision `auto` resolves to on this machine is pinned in every command run and stored (`--precision
bf16` or `fp32`), and Multi30k is read where `find_multi30k` finds it (`$TNB_MULTI30K`, else `../shared/data/multi30k`).

`--compare` then applies the one verdict rule, `seed_verdicts` (lib_significance), to each results file: each row
paired seed by seed with the unchanged model's run of the same seed on the same set-up (hardware and precision): Table
3's `base`, else 14's `paper` (the same model); for a change since 2017 its sweep's own `paper` first. Mean, sd and
95% t-interval of the per-seed Δ, the paired t-test's p over seeds, Holm's adjustment across the file's rows, and the
verdict go into `{family}{SUFFIX}_significance.json` (`rows`, `family`), beside sacreBLEU's paired bootstrap of each run
against that reference (`bootstrap`), a diagnostic of one run, not of a change.

    python experiments/table3.py --only base,A-h1,B-dk4 --jobs 2                 # Table 3's rows, seed 0
    python experiments/table3.py --only base --seeds 1,2                          # the base's seed band
    python experiments/table3.py --only since2017 --seeds 0,1,2,3,4 --jobs 2      # the five changes, all five and paper, five seeds
    python experiments/table3.py --compare                                        # the verdicts, and each run's bootstrap
    python experiments/table3.py --only all,since2017 --seeds 0,1,2 --device cuda --jobs 12 --suffix _gpu   # one GPU
"""
import argparse, json, os, shlex, signal, subprocess, sys, threading, time
from concurrent.futures import ThreadPoolExecutor, as_completed
from pathlib import Path
from transformer_nb.core import count_params
from transformer_nb.lib.machine import hardware, git_commit, choose_precision
from transformer_nb.lib.options import PRESETS
from transformer_nb.lib.checkpoints import open_checkpoint, model_from_checkpoint
from transformer_nb.lib.runs import RunFolder
from transformer_nb.variations_config import table3_variants
from transformer_nb.since2017 import since2017_variants
from transformer_nb.lib.scoring import TABLE3_KEYS
from transformer_nb.lib.records import add_result, load_results, train_time, today
from transformer_nb.lib.datasets import find_multi30k
from transformer_nb.lib.significance import seed_verdicts
from transformer_nb.lib.safeguards import atomic_write
ROOT = Path(__file__).resolve().parents[1]
FAMILIES = ('table3', 'since2017')                       # the results files, each with its own variants
REFERENCES = ('base', 'paper')                           # each family's reference: Table 3's base; since 2017's, 06's model unchanged
CURVE_EVERY = 10                                          # a record's training curve: the loss every this many updates

def variants(preset:str) -> dict:
    "family -> {variant: its overrides} for the base model `preset` (a name of `PRESETS`)."
    return {'table3': table3_variants(PRESETS[preset]), 'since2017': {'paper': {}, **since2017_variants(PRESETS[preset])}}

def flags(overrides:dict) -> list[str]:
    "tnb-train options for `ModelConfig` overrides: {'d_k': 16} -> ['--d-k', '16'], {'rope': True} -> ['--rope']."
    opt = lambda k: f"--{k.replace('_', '-')}"
    return [x for k, v in overrides.items() for x in ([opt(k)] if v is True else [f"--no-{opt(k)[2:]}"] if v is False else [opt(k), str(v)])]

def run_id(variant:str, seed:int) -> str: return variant if seed == 0 else f"{variant}-seed{seed}"

def canonical(name:str) -> str:
    "A run's id as records spell it: 'base-seed0' -> 'base', 'A-h1-seed1' unchanged."
    return run_id(*parse_id(name))

def parse_id(name:str) -> tuple[str, int]:
    "'base-seed1' -> ('base', 1); 'A-h1' -> ('A-h1', 0)."
    v, _, s = name.partition('-seed')
    return (v, int(s)) if s.isdigit() else (name, 0)

class Stopped(Exception): "A run ended or not started because the sweep was stopped (Ctrl-C)."
STOP = threading.Event()                                  # set by Ctrl-C: no run starts, every running process is ended
GRACE = 10                                                # seconds a process has to end after SIGTERM, before SIGKILL

def call(cmd:list[str], **kw) -> tuple[int, str|None]:
    "Run `cmd` (`subprocess.Popen`'s keywords), ended if the sweep is stopped: (exit status, its stdout if piped)."
    if STOP.is_set(): raise Stopped()
    p, asked = subprocess.Popen(cmd, **kw), None
    while True:
        try: out, _ = p.communicate(timeout=1); break
        except subprocess.TimeoutExpired:
            if not STOP.is_set(): continue
            if asked is None: p.terminate(); asked = time.time()
            elif time.time() > asked + GRACE: p.kill()
    if STOP.is_set(): raise Stopped()
    return p.returncode, out

def run(cmd:list[str], log:Path, env:dict) -> None:
    "Run `cmd`, its output going to `log`; a failure raises with the log's last lines."
    with open(log, 'a') as f:
        f.write(f"$ {shlex.join(cmd)}\n"); f.flush()
        rc, _ = call(cmd, stdout=f, stderr=subprocess.STDOUT, env=env)
    if rc: raise RuntimeError(f"{shlex.join(cmd[:2])} ... exited with {rc}; last lines of {log}:\n" + ''.join(open(log).readlines()[-5:]))

def curve(ck) -> list[list]:
    "The training loss every `CURVE_EVERY` updates (and the last), from the history an opened checkpoint holds: [[step, loss], ...]."
    tr = [s for s in ck.meta.get('history', {}).get('train', []) if isinstance(s.get('step'), int) and 'loss' in s]
    return [[s['step'], round(s['loss'], 4)] for s in tr if s['step'] % CURVE_EVERY == 0 or s is tr[-1]]

class Late(Exception): "A run not started: the sweep's `--deadline` had passed."
class Recorded(Exception): "A run not started: another sweep recorded it after this one read the results file."

def train_and_score(family:str, name:str, args) -> tuple[dict, str]:
    "Train and score one run (`name`: a variant of `family`, with -seedK for seed K): its record, and its validation translations."
    if STOP.is_set(): raise Stopped(name)
    if args.deadline and time.time() > args.start + args.deadline: raise Late(name)
    if name not in args.redo_ids and name in {r['id'] for r in load_results(results_file(args, family), TABLE3_KEYS)}:
        raise Recorded(name)                                            # read again now: two sweeps never make one run twice
    variant, seed = parse_id(name)
    overrides = variants(args.preset)[family][variant]
    out = Path(args.runs) / name; out.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, 'OMP_NUM_THREADS': str(args.threads), 'TNB_THREADS': str(args.threads)}
    common = ['--dataset', 'multi30k', '--src-lang', args.src_lang, '--tgt-lang', args.tgt_lang] + (
        ['--data-dir', args.data_dir] if args.data_dir else [])
    on = (['--device', args.device] if args.device else []) + ['--precision', args.precision]   # resolved: pinned in the record
    train = ['tnb-train', *common, '--preset', args.preset, *flags(overrides), '--vocab-size', str(args.vocab_size),
             '--max-tokens', str(args.max_tokens), '--steps', str(args.steps), '--warmup', str(args.warmup),
             '--lr-scale', str(args.lr_scale), '--seed', str(seed), '--threads', str(args.threads), '--out', str(out),
             '--save-every', '0', '--keep', '1', '--valid-every', str(args.steps), '--test-limit', '0', '--no-progress', *on]
    evaluate = ['tnb-evaluate', str(out), *common, '--split', 'valid', '--beam', '4', '--json',
                '--hyp-out', str(out / 'valid.beam4.txt'), '--overwrite', *on]
    if any(out.iterdir()): train.append('--overwrite')                # a stopped run's folder (this runner's): start it over
    t0 = time.time()
    run(train, out / 'log.txt', env)
    with open(out / 'evaluate.err', 'w') as err: rc, stdout = call(evaluate, stdout=subprocess.PIPE, stderr=err, text=True, env=env)
    if rc: raise RuntimeError(f"tnb-evaluate failed for {name}: {(out / 'evaluate.err').read_text().strip()}")
    sc = json.loads(stdout)
    (out / 'valid.json').write_text(stdout)                            # written only once the scores are complete
    results = Path(args.results_dir)
    hyps = results / 'hyps' / f"{family}{args.suffix}-{name}.valid.beam4.txt"   # kept beside the results (written with the record)
    ck = open_checkpoint(RunFolder(out).latest())
    valid = [v for v in ck.meta['history']['valid'] if v['step'] == args.steps]
    if not valid: raise RuntimeError(f"{name}: no validation at update {args.steps} in {out}")
    params = count_params(model_from_checkpoint(ck)[0])                 # tied weights counted once
    print(f"{family} {name}: valid ppl {valid[-1]['ppl']:.2f}, BLEU {sc['bleu']:.2f} ({time.time() - t0:.0f}s)", flush=True)
    return dict(id=name, variant=variant, overrides=overrides, seed=seed, params=params, steps=args.steps,
                valid_ppl=round(valid[-1]['ppl'], 3), **{k: sc[k] for k in ('bleu', 'bleu_lc', 'chrf', 'bleu_signature')},
                hyps=hyps.relative_to(results.parent).as_posix(), train_time_s=train_time(ck),
                hardware=ck.meta.get('hardware', hardware()), precision=args.precision,
                threads=args.threads, jobs=args.jobs, date=today(), commit=ck.meta.get('commit', git_commit()),
                curve=curve(ck), command=portable(f"{shlex.join(train)}; {shlex.join(evaluate)}", args.runs)), (out / 'valid.beam4.txt').read_text(encoding='utf-8')

def portable(command:str, runs:str|None=None) -> str:
    "`command` as typed in the repository's root: the folders of the machine that ran it left out of the records (`runs`, the run folders' parent, as runs/table3)."
    if runs and not Path(runs).resolve().is_relative_to(ROOT): command = command.replace(f"{Path(runs).resolve()}/", 'runs/table3/').replace(f"{runs.rstrip('/')}/", 'runs/table3/')
    return command.replace(f"{ROOT.parent / 'shared'}/", '../shared/').replace(f"{ROOT}/", '')

def results_file(args, family:str) -> Path: return Path(args.results_dir) / f"{family}{args.suffix}.json"

def chosen(only:str, seeds:list[int], preset:str, error) -> list[tuple[str, str]]:
    "(family, run id) for `--only`: 'all' (Table 3's rows), 'since2017' (the five changes, all five and paper), names, NAME-seedK."
    fams, out = variants(preset), []
    for item in (x.strip() for x in only.split(',') if x.strip()):
        if item in ('all', 'since2017'):
            fam = 'table3' if item == 'all' else 'since2017'
            out += [(fam, run_id(v, s)) for s in seeds for v in fams[fam]]
            continue
        v, s = parse_id(item)
        fam = next((f for f in FAMILIES if v in fams[f]), None)
        if fam is None: error(f"unknown variant(s) [{item!r}]; choose from {', '.join(n for f in FAMILIES for n in fams[f])} (and NAME-seedK), all or since2017")
        out += [(fam, run_id(v, s))] if '-seed' in item else [(fam, run_id(v, s)) for s in seeds]   # base-seed0 is base
    out = list(dict.fromkeys(out))                                         # the references' seeds first, then seed by seed
    return sorted(out, key=lambda fn: (parse_id(fn[1])[0] not in REFERENCES, parse_id(fn[1])[1], out.index(fn)))

# ---------------------------------------------------------------- the verdicts, and each run's bootstrap
def compare(args) -> dict:
    """The one verdict rule (`seed_verdicts`) over each results file of `--suffix`, with sacreBLEU's paired bootstrap of each
    run with translations against the reference the rule paired it with (a reference's other seeds: against its seed 0),
    into `{family}{SUFFIX}_significance.json`; family -> what was written."""
    from transformer_nb.lib.significance import _paired_bootstrap
    results, out, refs = Path(args.results_dir), {}, None
    recs = {f: load_results(results_file(args, f), TABLE3_KEYS) for f in FAMILIES}
    def hyps_of(r, fam):
        "The run's validation translations: its record's file, or the file named as this runner names it whose BLEU is the record's (a run recorded before records named their file)."
        nonlocal refs
        f = results.parent / r['hyps'] if r.get('hyps') else results / 'hyps' / f"{fam}{args.suffix}-{r['id']}.valid.beam4.txt"
        if not f.is_file(): return None
        if refs is None:
            from transformer_nb.lib.datasets import load_dataset
            refs = [t for _, t in load_dataset('multi30k', args.src_lang, args.tgt_lang, data_dir=args.data_dir, download=False).valid]
        from sacrebleu.metrics import BLEU
        lines = f.read_text(encoding='utf-8').splitlines()
        return lines if r.get('hyps') or round(BLEU().corpus_score(lines, [refs]).score, 2) == r['bleu'] else None
    references = [(f, r) for f in FAMILIES for r in recs[f] if r['variant'] in REFERENCES]
    for fam in FAMILIES:
        path = results_file(args, fam)
        if not path.exists(): continue
        sig = Path(str(path)[:-5] + '_significance.json')
        old = json.loads(sig.read_text()).get('bootstrap', {}) if sig.exists() else {}
        order = REFERENCES if fam == 'table3' else REFERENCES[::-1]               # a change since 2017: its sweep's own paper first
        mine = [r for r in recs[fam] if r['variant'] not in REFERENCES]
        v = seed_verdicts(mine + [r for _, r in references], order)
        ref_of = {r['id']: (f, r) for f, r in references}                          # the references' ids differ from one family to the other
        pairs = [(fam, r, ref_of[v['rows'][r['variant']]['vs'][r['seed']]]) for r in mine if r['seed'] in v['rows'][r['variant']]['vs']]
        pairs += [(fam, r, (fam, r0)) for r in recs[fam] if r['variant'] in REFERENCES and r['seed'] != 0
                  for r0 in recs[fam] if r0['variant'] == r['variant'] and r0['seed'] == 0]   # a reference's other seeds against its seed 0
        tests = {}
        for f, r, (bf, b) in pairs:
            key = [b['id'], b.get('date'), r.get('date'), b['bleu'], r['bleu']]
            if old.get(r['id'], {}).get('key') == key: tests[r['id']] = old[r['id']]; continue   # unchanged: kept
            if (h := hyps_of(r, f)) is None or (bh := hyps_of(b, bf)) is None: continue
            t = _paired_bootstrap(refs, bh, h, metric='bleu', n_samples=args.samples)
            tests[r['id']] = dict(vs=b['id'], **t, key=key)
            print(f"{fam} {r['id']} vs {b['id']}: {t['delta']:+.2f} BLEU, bootstrap p = {t['p_value']}", flush=True)
        for name, row in v['rows'].items():
            print(f"{fam} {name}: {row['n_seeds']} seed(s), mean Δ {row['mean']:+.2f}" if row['mean'] is not None else f"{fam} {name}:",
                  f"holm p {row['holm_p']}, {row['verdict']}" if row['p'] is not None else row['verdict'], flush=True)
        out[fam] = dict(rule="seed_verdicts (lib_significance): per-seed Δ against the same-seed reference of the same set-up, "
                             "paired t-test over seeds, Holm across this file's rows, separates when Holm p < 0.05",
                        **v, bootstrap=tests)
        atomic_write(sig, json.dumps(out[fam], indent=1, ensure_ascii=False) + '\n')
    return out

def add_curves(args):
    "Add a training curve to each record that lacks one, from its run folder in `--runs` where that still holds the checkpoint."
    for fam in FAMILIES:
        path = results_file(args, fam)
        if not path.exists(): continue
        for r in load_results(path, TABLE3_KEYS):
            folder = Path(args.runs) / r['id']
            if 'curve' in r or not (folder.is_dir() and RunFolder(folder).checkpoints()): continue
            add_result(path, {**r, 'curve': curve(open_checkpoint(RunFolder(folder).latest()))}, TABLE3_KEYS)
            print(f"{fam} {r['id']}: curve added from {folder}", flush=True)

def main(argv=None):
    p = argparse.ArgumentParser(allow_abbrev=False, description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument('--only', default='', help="comma-separated variants in the order to run them ('all': every row of Table 3; 'since2017': the five changes and all five; NAME-seedK: one run)")
    p.add_argument('--seeds', default='0', help="comma-separated seeds: each variant named without -seedK runs with each (default: 0)")
    p.add_argument('--preset', default='mini', choices=list(PRESETS), metavar='NAME', help="the base model (default: mini)")
    p.add_argument('--src-lang', default='en'); p.add_argument('--tgt-lang', default='de')
    p.add_argument('--data-dir', default=str(d) if (d := find_multi30k(ROOT)) else None,
                   help="the Multi30k folder (default: where find_multi30k finds it: $TNB_MULTI30K, else ../shared/data/multi30k beside the repository)")
    p.add_argument('--vocab-size', type=int, default=8000)
    p.add_argument('--steps', type=int, default=800, help="optimiser updates per run (the one budget)")
    p.add_argument('--max-tokens', type=int, default=4000)
    p.add_argument('--warmup', type=int, default=400)
    p.add_argument('--lr-scale', type=float, default=0.5)
    p.add_argument('--device', default=None, help="tnb-train's and tnb-evaluate's --device (default: theirs)")
    p.add_argument('--precision', default='auto', choices=('auto', 'bf16', 'fp32'), help="what the runs compute in; auto is resolved here for --device and pinned in every command (default: auto)")
    p.add_argument('--jobs', type=int, default=2, help="runs at the same time")
    p.add_argument('--threads', type=int, default=1, help="CPU threads per job")
    p.add_argument('--runs', default=str(ROOT / 'runs' / 'table3'), help="folder for the run folders")
    p.add_argument('--results-dir', default=str(ROOT / 'results'), help="folder of the results files (and hyps/ for the translations)")
    p.add_argument('--suffix', default='', help="the results files' suffix: table3SUFFIX.json, since2017SUFFIX.json ('_gpu' for a GPU's runs)")
    p.add_argument('--redo', default='', help="comma-separated finished runs to run again (their records are replaced)")
    p.add_argument('--compare', action='store_true', help="then (or alone) test every run with translations against its reference run of the same seed (base; since 2017's: its own paper run)")
    p.add_argument('--samples', type=int, default=1000, help="paired bootstrap resamples (--compare)")
    p.add_argument('--deadline', type=float, default=None, help="start no run after this many seconds (a device lent for a while); runs under way finish")
    args = p.parse_args(argv)
    args.start = time.time()
    try: seeds = [int(s) for s in args.seeds.split(',') if s.strip()]
    except ValueError: p.error(f"--seeds {args.seeds!r}: comma-separated whole numbers, e.g. 0,1,2")
    todo = chosen(args.only, seeds, args.preset, p.error)
    if not todo and not args.compare: p.error("nothing to do: name variants with --only, or ask for --compare")
    redo = args.redo_ids = {canonical(n.strip()) for n in args.redo.split(',') if n.strip()}
    for f in FAMILIES:                                                         # a file that is not records: refused, untouched
        try: load_results(results_file(args, f), TABLE3_KEYS)
        except ValueError as e: print(f"table3.py: {e}", file=sys.stderr); sys.exit(2)
    if args.precision == 'auto': args.precision = choose_precision(args.device or 'cpu')[0]   # pinned: a record says what its run computed in
    done = {f: {r['id'] for r in load_results(results_file(args, f), TABLE3_KEYS)} for f in FAMILIES}
    left = [(f, n) for f, n in todo if n not in done[f] or n in redo]
    print(f"{len(left)} run(s) to make, {len(todo) - len(left)} already recorded in {args.results_dir}", flush=True)
    failed, late, taken, made = [], [], [], 0
    STOP.clear(); before = signal.signal(signal.SIGINT, lambda *_: STOP.set())   # Ctrl-C: end every run, record none of them
    try:
        with ThreadPoolExecutor(max(1, args.jobs)) as pool:
            futs = {pool.submit(train_and_score, f, n, args): (f, n) for f, n in left}
            for fut in as_completed(futs):
                f, n = futs[fut]
                try: record, hyps = fut.result()
                except Late: late.append(n); continue
                except Recorded: taken.append(n); print(f"{f} {n}: recorded by another sweep meanwhile, not run again", flush=True); continue
                except Stopped: continue                                       # ended by Ctrl-C: not recorded
                except Exception as e:
                    if not STOP.is_set(): failed.append(n); print(f"{n} failed: {e}", file=sys.stderr, flush=True)
                    continue
                path = Path(args.results_dir).parent / record['hyps']
                path.parent.mkdir(parents=True, exist_ok=True); atomic_write(path, hyps)   # its translations, then its record
                Path(args.results_dir).mkdir(parents=True, exist_ok=True)   # the results' folder, the sweep's own: a file goes into a folder that is there
                add_result(results_file(args, f), record, TABLE3_KEYS); made += 1
    finally: signal.signal(signal.SIGINT, before)
    if STOP.is_set():
        print(f"stopped: {made} run(s) recorded, {len(left) - made} ended or not started and not recorded; the same command continues", file=sys.stderr, flush=True)
        sys.exit(130)
    if taken: print(f"{len(taken)} run(s) recorded by another sweep while this one ran: {', '.join(taken)}", flush=True)
    if late: print(f"{len(late)} run(s) not started, past the deadline of {args.deadline:.0f} s: {', '.join(late)}", flush=True)
    if args.compare: add_curves(args); compare(args)
    if failed: sys.exit(f"failed: {', '.join(failed)}")

if __name__ == '__main__': main()
