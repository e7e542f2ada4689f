#!/usr/bin/env python
"""01_attention's retrieval sweep, stored in `results/retrieval_sweep.json`, which the notebook loads.

Additive attention, unscaled and scaled dot products, trained to find the key a noisy query came from, for d_k from 4
to 1024 and three seeds (`retrieval_experiment`'s defaults: 45 training runs, about 4 minutes on one CPU core).

    python experiments/retrieval_sweep.py            # writes results/retrieval_sweep.json
    python experiments/retrieval_sweep.py -o my.json
"""
import argparse, datetime, inspect, json, time
from pathlib import Path
from transformer_nb.lib.layers import retrieval_experiment
from transformer_nb.lib.machine import hardware, git_commit

ROOT = Path(__file__).resolve().parents[1]

def main(argv=None):
    p = argparse.ArgumentParser(allow_abbrev=False, description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument('-o', '--out', type=Path, default=ROOT / 'results' / 'retrieval_sweep.json')
    a = p.parse_args(argv)
    t0 = time.perf_counter(); res = retrieval_experiment()
    args = {k: v.default for k, v in inspect.signature(retrieval_experiment).parameters.items()}
    rec = dict(args=args, machine=hardware(), commit=git_commit(), date=str(datetime.date.today()),
               seconds=round(time.perf_counter() - t0), d_k=res['d_k'], chance=res['chance'], ideal_acc=res['ideal_acc'],
               acc={k: v.tolist() for k, v in res['acc'].items()}, loss={k: v.tolist() for k, v in res['loss'].items()})
    tmp = a.out.with_suffix('.tmp'); tmp.write_text(json.dumps(rec, indent=1)); tmp.replace(a.out)
    print(f"{a.out}: {rec['seconds']} s")

if __name__ == '__main__': main()
