#!/usr/bin/env python
"""05_positional_encoding's extrapolation experiment (the copy task), stored in `results/extrapolation.json`, which the
notebook loads.

Tiny Transformers with sinusoidal or learned positions, trained on strings of length 1 to 8 and tested on longer ones
(`extrapolation_experiment`'s defaults: 6 models, about 3 minutes on one CPU core). The experiment is written in the
notebook, under *Going deeper*, since it trains 06_model's `Transformer`: this script runs the notebook's own cells
(`copy_batch`, `extrapolation_experiment`), so it always runs the code the notebook shows.

    python experiments/extrapolation.py              # writes results/extrapolation.json
    python experiments/extrapolation.py -o my.json
"""
import argparse, datetime, inspect, json, time
from pathlib import Path
import torch
from transformer_nb.lib.machine import hardware, git_commit

ROOT = Path(__file__).resolve().parents[1]
NB, CELLS = ROOT / 'nbs' / '05_positional_encoding.ipynb', ('dc032b7d', '34a707fb', '34a707fc')   # imports, the two functions

def experiment():
    "The notebook's `extrapolation_experiment`, its cells run in a namespace of their own."
    cells = {c['id']: ''.join(c['source']) for c in json.loads(NB.read_text(encoding='utf-8'))['cells']}
    ns = {'torch': torch, 'nn': torch.nn}
    from transformer_nb.core import set_seed; ns['set_seed'] = set_seed
    for cid in CELLS: exec(cells[cid], ns)
    return ns['extrapolation_experiment']

def main(argv=None):
    p = argparse.ArgumentParser(allow_abbrev=False, description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument('-o', '--out', type=Path, default=ROOT / 'results' / 'extrapolation.json')
    a = p.parse_args(argv)
    run = experiment()
    t0 = time.perf_counter(); r = run()
    rec = dict(about="05_positional_encoding's extrapolation experiment (copy task), stored so that the notebook runs in "
                     "under a minute; python experiments/extrapolation.py repeats it",
               args={k: v.default for k, v in inspect.signature(run).parameters.items()}, machine=hardware(),
               threads=torch.get_num_threads(), commit=git_commit(), date=str(datetime.date.today()),
               seconds=round(time.perf_counter() - t0), L=r['L'], test_len=r['test_len'], rows_untouched=r['rows_untouched'],
               **{key: {k: v.tolist() for k, v in r[key].items()} for key in ('per_pos', 'exact', 'eos_at_L1')})
    tmp = a.out.with_suffix('.tmp'); tmp.write_text(json.dumps(rec, indent=1)); tmp.replace(a.out)
    print(f"{a.out}: {rec['seconds']} s")

if __name__ == '__main__': main()
