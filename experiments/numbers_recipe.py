#!/usr/bin/env python
"""How the defaults of `tnb-train` on the number corpus (its main job) were chosen: train, average the last checkpoints, score the test.

The main job has to finish in about three minutes on a 2-core CPU, on the one thread `tnb-train` takes there, and
still translate every magnitude of the test split (0-99, 100-999, 1,000-99,999, 100,000-999,999) and what people
type first ('Seven', 'THREE', 'zero', 'Three Hundred Forty-Two'). This script trains one configuration for each of
`--seeds` and adds one record per seed to `--results` (a JSON list; a record with the same id is replaced). A record
holds the configuration, the scores of the test split (exact match, per magnitude, chrF, BLEU on characters) for each
decoding asked for (`--decode`: the last checkpoint or the average of the last `--avg` checkpoints, greedy or beam 4),
the probes below (capitals, 'zero'), a check for outputs that run away (a piece repeated three times in a row, or an
output longer than any German number), the wall and CPU time of each phase with the load average, and the
provenance: command, commit, hardware, date.

Two ways to run it:

    # train in this process with the options below (one thread by default), e.g. the recipe that became the default
    python experiments/numbers_recipe.py --name v1024-N2-1050-w300s.5-cd200-e25 --vocab 1024 \\
        --spm normalization_rule_name=nmt_nfkc_cf,byte_fallback=true --N 2 --steps 1050 --warmup 300 --lr-scale 0.5 \\
        --cooldown 200 --save-every 25 --avg 5 --keep 10 --seeds 0,1,2

    # run the real command, `tnb-train --seed S` with its defaults (and its thread count), then probe its average.pt
    python experiments/numbers_recipe.py --name tnb-train --cli --seeds 0,1,2

    # the same, on the current code: the main job's figures the front page quotes (tests/prose/index.py checks them)
    TNB_THREADS=1 nice python experiments/numbers_recipe.py --name tnb-train --cli --seeds 0,1,2 --results results/main_job.json

With `--cli` the record holds the wall and CPU time of the whole command (imports, data, tokenizer, training,
averaging, test), as `/usr/bin/time` would measure them; extra options for `tnb-train` follow `--`. CPU time is the
figure to compare on a busy machine; wall time equals it on a quiet one when one thread trains.

How the defaults came about (the records are in results/numbers_recipe.json; CPU seconds on one thread of a 2-core
AMD EPYC with AVX2 that other jobs shared, so they are somewhat inflated):

- The earlier default (`base`: vocabulary 256, 3 layers, 1,200 updates, the paper's schedule, the last checkpoint
  tested) scored 99.4% but knew no capital letters: 'Seven', 'THREE', 'Zero' and 'Three Hundred Forty-Two' came out
  wrong (2 of 10 probes right), and 'zero' ran away ('zweitausendneuntausendneun...'), with the learning rate still
  at 1.3e-3 at the end.
- SentencePiece's case folding (normalization_rule_name=nmt_nfkc_cf) and byte fallback make the tokenizer read what
  people type; 1,024 pieces cut a number into fewer pieces, so that an update of 1,000 tokens holds more numbers.
  Fewer updates did not do: 700 updates of a 3-layer model reached 2% (warm-up 100, scale 0.3) and 90% (warm-up 300,
  scale 0.5).
- Two layers for 1,050 updates (`v1024-N2-1050-w300s.5`, the average of the last 5 checkpoints written 50 updates
  apart): 98.6%, 99.1%, 98.4% on seeds 0, 1, 2, every probe right, no runaway, about 150 s of CPU time.
- A linear cool-down does not make a shorter run enough: with 900 updates (the last 225 cooled) the last checkpoint
  scored 98.5%, 99.2%, 98.3%, but the average of 5 checkpoints 50 updates apart only 97.1%, 98.0%, 96.4% (0-99 at 90%
  for seed 2): in so short a run, checkpoints 200 updates apart differ too much to average.
- The default (`v1024-N2-1050-w300s.5-cd200-e25`): 1,050 updates, the last 200 cooled to 0, checkpoints every 25
  updates and the average of the last 5, so that the average covers the last 100 updates of the cool-down: 99.2%,
  99.6%, 99.1%, every magnitude above 98.6%, every probe right, no runaway; and the same through `tnb-train`
  itself (`tnb-train`, with --cli): 153 to 162 s of CPU time for the whole command.
"""
import argparse, json, os, re, resource, shlex, subprocess, sys, time
from pathlib import Path

T_START = (time.perf_counter(), time.process_time())        # before torch is imported: as `tnb-train` pays for it
import torch
from transformer_nb.core import set_seed, count_params
from transformer_nb.lib.machine import hardware, git_commit, limit_threads
from transformer_nb.lib.machine import _default_threads
from transformer_nb.lib.datasets import load_dataset, de_number, en_number
from transformer_nb.apps.numbers import number_scores
from transformer_nb.lib.checkpoints import average_checkpoints, model_from_checkpoint
from transformer_nb.lib.runs import RunFolder
from transformer_nb.lib.scoring import evaluate
from transformer_nb.lib.options import Decoding
from transformer_nb.lib.fast_decoding import translate
from transformer_nb.lib.records import today
from transformer_nb.apps.workflow import train_model
ROOT = Path(__file__).resolve().parents[1]
PROBES = ['Seven', 'THREE', 'zero', 'Zero', 'ZERO', 'Three Hundred Forty-Two', 'three hundred forty-two',
          'Nine Hundred Ninety-Nine Thousand Nine Hundred Ninety-Nine', 'One Hundred Thousand', 'seventy-seven thousand seven']
_EN = None

def expected(s:str) -> str:
    "The German words of an English probe (any capitalisation)."
    global _EN
    if _EN is None: _EN = {en_number(n): n for n in range(1_000_000)}
    return de_number(_EN[' '.join(s.lower().split())])

def clock() -> tuple: return time.perf_counter(), time.process_time()
def since(t0) -> dict:
    w, c = clock()
    return {'wall_s': round(w - t0[0], 1), 'cpu_s': round(c - t0[1], 1)}

def spm_options(text:str) -> dict:
    "'a=1,b=true,c=x' -> {'a': 1, 'b': True, 'c': 'x'}: SentencePiece options for `Tokenizer.train`."
    out = {}
    for kv in filter(None, (x.strip() for x in (text or '').split(','))):
        k, v = kv.split('=', 1)
        out[k] = {'true': True, 'false': False}.get(v.lower(), int(v) if v.lstrip('-').isdigit() else
                                                     float(v) if re.fullmatch(r'-?\d*\.\d+', v) else v)
    return out

LONGEST_DE = max(len(de_number(n)) for n in range(1_000_000))

def runaway(hyps:list[str], refs:list[str]) -> dict:
    "Outputs that run away: three copies of a piece in a row, or longer than any German number."
    rep = re.compile(r'(.{2,}?)\1\1')
    bad = [i for i, h in enumerate(hyps) if rep.search(h) or len(h) > LONGEST_DE]
    over = sorted(range(len(hyps)), key=lambda i: len(hyps[i]) - len(refs[i]), reverse=True)[:3]
    return {'n_runaway': len(bad), 'runaway_examples': [(hyps[i][:120], refs[i]) for i in bad[:5]],
            'longest_output_chars': max(len(h) for h in hyps), 'longest_german_number_chars': LONGEST_DE,
            'most_over_reference': [(hyps[i], refs[i], len(hyps[i]) - len(refs[i])) for i in over]}

def score(model, tok, pairs, beam) -> dict:
    "The test split's scores with `beam` (alpha 0.6, as tnb-train), the runaway check and the probes."
    t0 = clock()
    sc, hyps = evaluate(model, tok, pairs, Decoding(beam=beam, alpha=0.6))
    sc.update(number_scores(pairs, hyps))
    t = since(t0)
    refs = [r for _, r in pairs]
    probes = translate(model, tok, PROBES, beam=beam)
    res = {'exact_match': sc['exact_match'], 'chrf': round(sc['chrf'], 2), 'bleu_char': sc['bleu_char'],
           'by_magnitude': {k: v['exact_match'] for k, v in sc['exact_by_magnitude'].items()},
           'n_wrong': sum(h.strip() != r.strip() for h, r in zip(hyps, refs)), 'decode': t, **runaway(hyps, refs),
           'wrong_examples': [(s, h, r) for (s, r), h in zip(pairs, hyps) if h.strip() != r.strip()][:8],
           'probes': {p: (o, o == expected(p)) for p, o in zip(PROBES, probes)}}
    res['probes_ok'] = sum(ok for _, ok in res['probes'].values())
    return res

def provenance(rec:dict, load0) -> dict:
    rec['loadavg_start'], rec['loadavg_end'] = [round(x, 2) for x in load0], [round(x, 2) for x in os.getloadavg()]
    rec.update(command=shlex.join(['python', *sys.argv]), commit=git_commit(), hardware=hardware(), date=today())
    return rec

def run_one(args, seed:int) -> dict:
    "Train in this process with the script's options; score the decodings of `--decode`."
    t_run = clock(); load0 = os.getloadavg()
    limit_threads(args.threads)
    set_seed(seed)
    data = load_dataset('numbers')
    t_data = since(t_run)
    out = Path(args.runs) / f"{args.name}-s{seed}"
    settings = dict(max_tokens=args.max_tokens, steps=args.steps, warmup=args.warmup, lr_scale=args.lr_scale,
                    cooldown=args.cooldown, clip=args.clip, out=str(out), overwrite=True, save_every=args.save_every,
                    keep=args.keep or max(args.avg, 1), seed=seed, valid_every=args.valid_every, progress=False, eps_ls=args.eps_ls)
    model_kw = dict(d_model=args.d_model, N=args.N, h=args.h, d_ff=args.d_ff, p_drop=args.p_drop)
    t0 = clock()
    tr = train_model(data, preset='small', vocab_size=args.vocab, spm=spm_options(args.spm), say=lambda msg: None, **model_kw, **settings)
    t_train = since(t0)
    hist = tr.history['train']
    tail = hist[int(0.8 * len(hist)):]
    rec = dict(id=f"{args.name}-s{seed}", name=args.name, seed=seed,
               config=dict(vocab=args.vocab, spm=spm_options(args.spm), steps=args.steps, warmup=args.warmup,
                           lr_scale=args.lr_scale, cooldown=args.cooldown, clip=args.clip, max_tokens=args.max_tokens,
                           save_every=args.save_every, avg=args.avg, valid_every=args.valid_every, threads=args.threads,
                           model=model_kw),
               vocab_size=tr.tokenizer.vocab_size, params=count_params(tr.model),
               lr_peak=max(s['lr'] for s in hist), lr_last=hist[-1]['lr'],
               loss_last100=round(sum(s['loss'] for s in hist[-100:]) / len(hist[-100:]), 4),
               loss_max_last20pct=round(max(s['loss'] for s in tail), 3),
               valid=[{k: round(v[k], 4) if isinstance(v[k], float) else v[k] for k in ('step', 'loss', 'ppl')} for v in tr.history['valid']],
               tokens_trained=sum(s['tokens'] for s in hist),
               time={'before_training': t_data, 'train_model': t_train})
    results, t_avg = {}, None
    ckpts = RunFolder(out).checkpoints()
    for what in args.decode.split(','):
        which, beam = what.split(':'); beam = int(beam)
        if which == 'avg':
            t0 = clock()
            use = ckpts[-args.avg:]
            model, tok, _ = model_from_checkpoint(average_checkpoints(use))
            t_avg = since(t0); rec['averaged'] = [p.name for p in use]
        else: model, tok = tr.model.eval(), tr.tokenizer
        results[what] = score(model, tok, data.test, beam)
    rec['results'], rec['time']['average'] = results, t_avg
    first = args.decode.split(',')[0]
    # what the default run would cost: everything up to the end of training, the averaging and one test decoding
    parts = [T_IMPORT, t_data, t_train, *([t_avg] if first.startswith('avg') else []), results[first]['decode']]
    rec['time']['default_run_estimate'] = {'wall_s': round(sum(p['wall_s'] for p in parts), 1),
                                           'cpu_s': round(sum(p['cpu_s'] for p in parts), 1),
                                           'includes': f"imports, data, tokenizer, training, {first}"}
    rec['time']['imports'] = T_IMPORT
    rec['torch_threads'] = torch.get_num_threads()
    return provenance(rec, load0)

def run_cli(args, seed:int) -> dict:
    "Run `tnb-train --seed SEED` itself, timed as a whole; then score and probe the averaged model it wrote."
    out = Path(args.runs) / f"{args.name}-s{seed}"
    shown = os.path.relpath(out, ROOT) if out.resolve().is_relative_to(ROOT) else str(out)   # as typed in the repository
    cmd = ['tnb-train', '--seed', str(seed), '--out', shown, '--overwrite', '--no-progress', *args.extra]
    load0, before = os.getloadavg(), resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    p = subprocess.run([sys.executable, '-c', 'from transformer_nb.apps.cli import train_main; train_main()', *cmd[1:]],
                       capture_output=True, text=True, cwd=ROOT)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if p.returncode: sys.exit(f"{shlex.join(cmd)} failed ({p.returncode}):\n{p.stderr[-3000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    avg = out / 'average.pt'
    model, tok, ck = model_from_checkpoint(avg if avg.is_file() else RunFolder(out).checkpoints()[-1])
    hist = ck.meta.get('history', {}).get('train', [])
    limit_threads(1)
    res = score(model, tok, load_dataset('numbers').test, 4)
    lines = p.stdout.splitlines()
    rec = dict(id=f"{args.name}-s{seed}", name=args.name, seed=seed, tnb_train=shlex.join(cmd),
               config={'model': {k: getattr(ck.config, k) for k in ck.config.__dataclass_fields__}, 'train': ck.train_config},
               tokenizer=tok.options, vocab_size=tok.vocab_size, params=count_params(model),
               averaged=ck.meta.get('averaged_from'), lr_peak=max((s['lr'] for s in hist), default=None),
               lr_last=hist[-1]['lr'] if hist else None,
               printed=[l for l in lines if l.startswith(('test (', 'exact match per magnitude', 'trained ', 'averaged '))],
               results={'tnb-train (avg:4)': res},
               time={'whole_command': {'wall_s': round(wall, 1), 'cpu_s': round(cpu, 1)}},
               threads=int(os.environ.get('TNB_THREADS') or _default_threads()))   # what tnb-train took (no --threads)
    return provenance(rec, load0)

def add(path:Path, rec:dict):
    recs = json.loads(path.read_text()) if path.exists() else []
    recs = [r for r in recs if r['id'] != rec['id']] + [rec]
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix('.tmp'); tmp.write_text(json.dumps(recs, indent=1, ensure_ascii=False) + '\n'); tmp.replace(path)

def summary(rec:dict) -> str:
    t = rec['time'].get('whole_command') or rec['time']['default_run_estimate']
    lines = [f"{rec['id']}: lr last {rec['lr_last']:.2e}, time {t}, load {rec['loadavg_start']}->{rec['loadavg_end']}"]
    for k, r in rec['results'].items():
        lines.append(f"  {k}: EM {r['exact_match']} {r['by_magnitude']} chrF {r['chrf']} BLEUc {r['bleu_char']} "
                     f"runaway {r['n_runaway']} longest {r['longest_output_chars']} probes {r['probes_ok']}/{len(PROBES)}")
    return '\n'.join(lines)

def main(argv=None):
    global T_IMPORT
    w, c = clock(); T_IMPORT = {'wall_s': round(w - T_START[0], 1), 'cpu_s': round(c - T_START[1], 1)}
    argv = sys.argv[1:] if argv is None else argv
    extra = argv[argv.index('--') + 1:] if '--' in argv else []
    argv = argv[:argv.index('--')] if '--' in argv else argv
    p = argparse.ArgumentParser(allow_abbrev=False, description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument('--name', required=True, help="names the records (NAME-sSEED) and the run folders")
    p.add_argument('--seeds', default='0', help="comma-separated seeds, one run each (default 0)")
    p.add_argument('--cli', action='store_true', help="run tnb-train itself with its defaults (options after -- go to it)")
    g = p.add_argument_group('training in this process (ignored with --cli)')
    g.add_argument('--vocab', type=int, default=256)
    g.add_argument('--spm', default='', help="SentencePiece options, e.g. normalization_rule_name=nmt_nfkc_cf,byte_fallback=true")
    g.add_argument('--steps', type=int, default=1200); g.add_argument('--warmup', type=int, default=300)
    g.add_argument('--lr-scale', type=float, default=0.5)
    g.add_argument('--cooldown', type=int, default=0, help="updates at the end whose learning rate falls linearly to 0")
    g.add_argument('--clip', type=float, default=None)
    g.add_argument('--max-tokens', type=int, default=1000)
    g.add_argument('--d-model', type=int, default=128); g.add_argument('--N', type=int, default=3)
    g.add_argument('--h', type=int, default=4); g.add_argument('--d-ff', type=int, default=512)
    g.add_argument('--p-drop', type=float, default=0.1); g.add_argument('--eps-ls', type=float, default=0.1)
    g.add_argument('--save-every', type=int, default=500); g.add_argument('--avg', type=int, default=1)
    g.add_argument('--keep', type=int, default=None, help="checkpoints kept (default: --avg)")
    g.add_argument('--valid-every', type=int, default=0)
    g.add_argument('--decode', default='avg:4,last:4', help="comma-separated WHICH:BEAM, WHICH in avg|last; the first is the default run's")
    g.add_argument('--threads', type=int, default=1)
    p.add_argument('--runs', default=str(ROOT / 'runs' / 'recipe'), help="run folders go here (default runs/recipe)")
    p.add_argument('--results', default=str(ROOT / 'results' / 'numbers_recipe.json'))
    args = p.parse_args(argv); args.extra = extra
    for seed in map(int, args.seeds.split(',')):
        rec = run_cli(args, seed) if args.cli else run_one(args, seed)
        add(Path(args.results), rec)
        print(summary(rec), flush=True)

if __name__ == '__main__': main()
