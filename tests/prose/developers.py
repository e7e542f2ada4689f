"""The figures the developers' page (developers.ipynb) quotes, checked against their sources.

Run by the page's last (hidden) cell, which `exec`s this file in the page's namespace (from nbs/), so `nbdev-test`
fails when one drifts: the oldest versions supported (pyproject.toml's floors), and the machines of the table, which
must be every `hardware` string the results files hold, no more and no fewer. Names defined here start with `_` and
are deleted at the end."""
import json as _json, re as _re
from pathlib import Path as _Path
from transformer_nb.lib.machine import NotebookFile as _NotebookFile

_q = _NotebookFile('developers.ipynb').quoted

def _hardware_of(x):                                              # every 'hardware' string in a results file
    if isinstance(x, dict): return {x['hardware']} if 'hardware' in x else set().union(set(), *map(_hardware_of, x.values()))
    return set().union(set(), *map(_hardware_of, x)) if isinstance(x, list) else set()
_hw = set().union(*(_hardware_of(_json.loads(p.read_text(encoding='utf-8'))) for p in _Path('../results').rglob('*.json')))
assert _hw == {'AMD EPYC, 2 cores (CPU), torch 2.13.0+cpu', 'AMD EPYC (AVX2), 2 cores (CPU), torch 2.13.0+cpu',
               'AMD EPYC (AVX512), 2 cores (CPU), torch 2.13.0+cpu', 'NVIDIA H100 80GB HBM3 (CUDA), torch 2.11.0+cu130',
               'NVIDIA H200 (CUDA), torch 2.11.0+cu130',
               'Intel(R) Xeon(R) Processor (AVX512), 2 cores (CPU), torch 2.13.0+cpu',
               'Intel(R) Xeon(R) Processor @ 2.50GHz (AVX512), 2 cores (CPU), torch 2.13.0+cpu'}, _hw   # the table's machines
_q('c0b1a8e3', 'AMD EPYC with AVX2, 2 cores', 'AMD EPYC with AVX-512 and AVX512_BF16, 2 cores', 'NVIDIA H100 80GB', 'NVIDIA H200',
   'Intel Xeon with AMX and AVX512_BF16, 2 cores', 'Intel Xeon with AVX-512 (no AMX), 2 cores')

_pp = _Path('../pyproject.toml').read_text(encoding='utf-8')      # the floors are the versions the text says were tested
_py, _torch = _re.search(r'requires-python = ">=([\d.]+)"', _pp).group(1), _re.search(r'"torch>=([\d.]+)"', _pp).group(1)
_q('ad2a834a', f"the oldest versions supported, Python {_py} and torch {_torch},")

_sb = _json.loads(_Path('../results/site_build.json').read_text(encoding='utf-8'))   # tools/preview.py --no-serve --record
_clock = lambda x: (lambda m, s: f"{m} min {s:02d} s" if m else f"{s} s")(*divmod(round(x), 60))   # tools/preview.py's clock
assert _sb['hardware'].startswith('Intel(R) Xeon(R)') and _sb['amx'] and _sb['cores'] == 2, _sb['hardware']
assert _sb['steps'][0]['step'].startswith('1. the pages') and len(_sb['steps']) == 5
_q('d0e0a003', f"took {_clock(_sb['seconds'])} on a 2-core Intel Xeon with AMX, {_clock(_sb['steps'][0]['seconds'])} of it in step 1",
   f"a load average of {_sb['load_before'][0]:.1f} when it began and {_sb['load_after'][0]:.1f} when it ended")

_ci = _json.loads(_Path('../results/ci_times.json').read_text(encoding='utf-8'))   # python tools/ci_times.py _LOG --json
_min = lambda x: f"{x / 60:.0f}"
assert _ci['hardware'].startswith('Intel(R) Xeon(R)') and _ci['total_s'] < 50 * 60, _ci   # CI's time limit: 50 minutes
_q('d0e0a004', f"the last whole run took **{_min(_ci['total_s'])} minutes**: {_min(_ci['fast_tier_s'])} for README's",
   f"{_min(_ci['avx2_pass_s'])} for its pytest again on the AVX2 kernels,",
   f"{_min(_ci['slow_tier_s'])} for the slow tier ({_min(_ci['slow_pytest_s'])} of pytest, {_min(_ci['portability_s'])} for the portability pass)")

del _json, _re, _Path, _NotebookFile, _q, _hardware_of, _hw, _pp, _py, _torch, _sb, _clock, _ci, _min
