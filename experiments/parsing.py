#!/usr/bin/env python
"""§6.3 on one CPU: train the parser on the generated treebank, score it greedy and with beam 21 (alpha 0.3, output length
<= input + 300), and score the grammar's Viterbi parse (the ceiling) and right-branching trees (the floor) on the same
test split. Every result becomes a record in `--results` with its commands, commit, hardware and date (13_parsing).

    python experiments/parsing.py                              # train with tnb-train --dataset parsing, then score all
    python experiments/parsing.py --skip-train --only greedy   # rescore an existing run
"""
import argparse, os, shlex, subprocess, sys, time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SYSTEMS = ('greedy', 'beam21', 'viterbi', 'right-branching')

def run(cmd:list[str], env:dict, log:Path|None=None) -> None:
    "Run `cmd` (its output into `log` if given); a failure raises with the last lines of output."
    print(f"$ {shlex.join(cmd)}", flush=True)
    if log is None: rc = subprocess.run(cmd, env=env).returncode
    else:
        with open(log, 'a') as f:
            f.write(f"$ {shlex.join(cmd)}\n"); f.flush()
            rc = subprocess.run(cmd, stdout=f, stderr=subprocess.STDOUT, env=env).returncode
    if rc: raise SystemExit(f"{shlex.join(cmd[:3])} ... exited with {rc}" + (f"; see {log}" if log else ''))

def main(argv=None):
    p = argparse.ArgumentParser(allow_abbrev=False, description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument('--run', default='runs/parsing', help="run folder of the training (default runs/parsing)")
    p.add_argument('--results', default='results/parsing.json', help="results file (default results/parsing.json; run from the repository root)")
    p.add_argument('--threads', type=int, default=1, help="CPU threads for training and decoding (default 1)")
    p.add_argument('--steps', type=int, default=None, help="optimiser updates (default: tnb-train's default for parsing)")
    p.add_argument('--skip-train', action='store_true', help="score the checkpoint already in --run")
    p.add_argument('--only', default=','.join(SYSTEMS), help=f"comma-separated subset of {','.join(SYSTEMS)}")
    a = p.parse_args(argv)
    only = a.only.split(',')
    if bad := [s for s in only if s not in SYSTEMS]: p.error(f"unknown system(s) {bad}; choose from {', '.join(SYSTEMS)}")
    env = {**os.environ, 'OMP_NUM_THREADS': str(a.threads), 'TNB_THREADS': str(a.threads), 'MPLBACKEND': 'Agg'}
    run_dir = Path(a.run); run_dir.mkdir(parents=True, exist_ok=True)
    if not a.skip_train and ({'greedy', 'beam21'} & set(only)):
        train = ['tnb-train', '--dataset', 'parsing', '--threads', str(a.threads), '--out', str(run_dir), '--save-every', '0',
                 '--keep', '1', '--test-limit', '0', '--no-progress'] + (['--steps', str(a.steps)] if a.steps else [])
        run(train, env, run_dir / 'log.txt')
    evaluate = ['tnb-evaluate', str(run_dir), '--dataset', 'parsing', '--record', a.results]
    if 'greedy' in only: run(evaluate + ['--beam', '1', '--id', 'parsing-greedy'], env)
    if 'beam21' in only: run(evaluate + ['--beam', '21', '--alpha', '0.3', '--max-tokens', '1000', '--id', 'parsing-beam21'], env)
    if {'viterbi', 'right-branching'} & set(only):
        from transformer_nb.lib.machine import limit_threads
        from transformer_nb.lib.records import add_result
        from transformer_nb.parsing import linearize
        from transformer_nb.apps.parsing_task import parsing_corpus, viterbi_parse, right_branching, _common_labels
        from transformer_nb.lib.treebank import PARSE_KEYS
        limit_threads(a.threads)
        data, command = parsing_corpus(), shlex.join(['python', 'experiments/parsing.py', *(sys.argv[1:] if argv is None else argv)])
        if 'viterbi' in only:
            t0 = time.time()
            hyps = [linearize(t) if (t := viterbi_parse(s)) is not None else '' for s, _ in data.test]
            rec = _reference_record('parsing-viterbi', 'Viterbi parse under the true PCFG (ceiling)', data.test, hyps,
                                   time.time() - t0, command)
            add_result(a.results, rec, PARSE_KEYS); print(f"viterbi: F1 {rec['f1']}")
        if 'right-branching' in only:
            root, label = _common_labels(data.train)
            t0 = time.time()
            hyps = [linearize(right_branching(s, root, label)) for s, _ in data.test]
            rec = _reference_record('parsing-right-branching', f'right-branching trees, labels {root}/{label} (floor)', data.test,
                                   hyps, time.time() - t0, command)
            add_result(a.results, rec, PARSE_KEYS); print(f"right-branching: F1 {rec['f1']}")

def _reference_record(id:str, system:str, pairs:list, hyps:list[str], seconds:float, command:str, dataset:str='parsing') -> dict:
    "A `results/parsing.json` record for a parser that is not trained (the Viterbi ceiling, the right-branching floor); `seconds` to parse."
    from transformer_nb.lib.machine import hardware, git_commit
    from transformer_nb.lib.records import today
    from transformer_nb.apps.parsing_task import parse_scores
    from transformer_nb.lib.treebank import _SCORE_KEYS, _examples
    scores, _ = parse_scores(pairs, hyps)
    return dict(id=id, system=system, dataset=dataset, params=0, decoding=f"{seconds:.0f} s to parse",
                **{k: scores[k] for k in _SCORE_KEYS}, examples=_examples(pairs, hyps), valid_nll=[], train_time_s=0.0,
                hardware=hardware(), date=today(), commit=git_commit(), command=command)

if __name__ == '__main__': main()
