"""The figures that lib_machine's prose quotes, checked against the results file they come from (run from nbs/ by
the notebook's last (hidden) cell, which `exec`s this file (`%run` would print a failure without failing the cell)): the CPU threads section says two threads are about ten times
slower than one on a busy 2-core machine, which bench/bench_threads.py measured into results/bench_threads.json."""
import json
from pathlib import Path
from transformer_nb.lib.machine import NotebookFile

_nbf = NotebookFile('lib_machine.ipynb')
_bench = json.loads(Path('../results/bench_threads.json').read_text(encoding='utf-8'))     # bench/bench_threads.py
_one, _two = (next(r for r in _bench['rows'] if r['threads'] == t) for t in (1, 2))
for _key in ('quiet_ms', 'loaded_ms'): assert 8 < _two[_key] / _one[_key] < 13, (_key, _two[_key] / _one[_key])
_nbf.quoted('5b0e2c61', 'about ten times *slower* with two threads than with one')

# The bf16 section: on a CPU with AMX, bf16 was faster at every width measured (bench/bench_bf16.py --parts widths), so
# choose_precision does not weigh d_model; the figures, in the order of the widths.
_w = json.loads(Path('../results/bf16_cpu.json').read_text(encoding='utf-8'))['widths']
assert _w['machine']['cpu_features']['amx'] and 'avx512_bf16' in _w['machine']['cpu_flags'] and 'Xeon' in _w['machine']['hardware']
_rows = sorted(_w['rows'], key=lambda r: r['d_model'])
assert [r['d_model'] for r in _rows] == [64, 128, 256, 512] and {r['threads'] for r in _rows} == {1}
assert all(r[j]['speedup'] > 1 for r in _rows for j in ('train', 'greedy')), 'bf16 was not faster at every width: weigh the width'
_loads = [x for k in ('load_average_before', 'load_average_after') for x in _w[k][:1]]
_say = lambda j: ', '.join(f"{r[j]['speedup']:.2f}" for r in _rows[:-1]) + f" and {_rows[-1][j]['speedup']:.2f}"
_nbf.quoted('bf16c0a1', f"load average {int(min(_loads))} to {round(max(_loads))}", f"vocabulary of {_w['vocab']:,}",
            f"training step of {_w['target_tokens']:,} target tokens was {_say('train')} times faster in bf16",
            f"(4,000 source tokens) {_say('greedy')} times", "so `'auto'` does not weigh the model's width")
