"""The figures that 00_core's prose quotes, checked against the results file they come from (run from nbs/ by
the notebook's last (hidden) cell, which `exec`s this file (`%run` would print a failure without failing the cell)): the CPU threads section says two threads are about ten times
slower than one on a busy 2-core machine, which bench/bench_threads.py measured into results/bench_threads.json."""
import json
from pathlib import Path
from transformer_nb.core import NotebookFile

_nbf = NotebookFile('00_core.ipynb')
_bench = json.loads(Path('../results/bench_threads.json').read_text(encoding='utf-8'))     # bench/bench_threads.py
_one, _two = (next(r for r in _bench['rows'] if r['threads'] == t) for t in (1, 2))
for _key in ('quiet_ms', 'loaded_ms'): assert 8 < _two[_key] / _one[_key] < 13, (_key, _two[_key] / _one[_key])
_nbf.quoted('5b0e2c61', 'about ten times *slower* with two threads than with one')
