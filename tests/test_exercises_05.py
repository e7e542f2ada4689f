"""The proof that 05_positional_encoding's exercises are right, away from the learner: each check passes the printed
solution, reports the unwritten stub as not written, and fails every wrong variant with a message that names the case;
each "break it" exercise, applied to the code, makes exactly the checks its solution names fail.

The helpers `run_cells` and `failing_tests` (used by tests/test_exercises_06.py to _08.py too) run a notebook's cells,
or named pytest tests, with one exported cell changed, in a namespace or a process of their own."""
import contextlib, io, os, re, subprocess, sys, warnings
import pytest, torch
import matplotlib
matplotlib.use('Agg')
from nbtools import NBS, cells, code_blocks, namespace, _body

ROOT = NBS.parent
NB = '05_positional_encoding'

# --- helpers: a notebook run with one cell changed, and pytest tests run against changed library code -----------------

def _flags(src:str) -> set:
    top = [l for l in src.splitlines() if l.startswith('#|')]
    return {w for l in top for w in l[2:].replace(':', ' ').split()}

def edited(nb:str, cell_id:str, old:str, new:str) -> str:
    "The source of code cell `cell_id` with `old` (which must occur exactly once) replaced by `new`."
    src = cells(nb)[cell_id][1]
    assert src.count(old) == 1, f"{nb} {cell_id}: {old!r} occurs {src.count(old)} times; the exercise's text has moved"
    return src.replace(old, new)

def run_cells(nb:str, edits:dict|None=None, skip:tuple=()) -> dict:
    """Run notebook `nb`'s code cells top to bottom in a namespace of their own, as `nbdev-test` does (cells flagged slow,
    cuda or `eval: false`, and IPython magics, left out), with `edits` {cell_id: new source} applied first. Every cell
    runs, whatever the ones before it did (but the hidden cell that runs the prose checks): returns {cell_id: exception}
    for those that raised."""
    import matplotlib.pyplot as plt
    from IPython.display import display
    edits, ns, failed = edits or {}, {'display': display, '__name__': '__main__'}, {}
    cwd = os.getcwd(); os.chdir(NBS)
    try:
        for cid, (kind, src) in cells(nb).items():
            src = edits.get(cid, src)
            if kind != 'code' or cid in skip or _flags(src) & {'slow', 'cuda', 'false'} or '%' in _body(src)[:1]: continue
            if 'tests/prose/' in src: continue                   # the prose checks: the course's proof, not a learner's cell
            if 'default_exp' in _flags(src): continue
            with contextlib.redirect_stdout(io.StringIO()), warnings.catch_warnings():
                warnings.simplefilter('ignore')
                try: exec(compile(_body(src), f'<{nb} {cid}>', 'exec'), ns)
                except Exception as e: failed[cid] = e
            plt.close('all')
    finally: os.chdir(cwd)
    return failed

_PATCH = '''
import importlib, sys
mod = importlib.import_module(MODULE)
before = dict(vars(mod))
exec(compile(SOURCE, '<changed cell>', 'exec'), vars(mod))       # the changed exported cell, in its own module
for name, obj in list(vars(mod).items()):                         # and everywhere the old objects were imported to
    if name in before and before[name] is not obj:
        for m in list(sys.modules.values()):
            if getattr(m, name, None) is before[name] and m is not mod: setattr(m, name, obj)
import pytest
sys.exit(pytest.main(['-q', '-rf', '-p', 'no:cacheprovider', *NODES]))
'''

def failing_tests(module:str, source:str, nodes:list[str]) -> set:
    """Run the pytest `nodes` in a fresh interpreter in which the exported cell `source` (changed) replaces its code in
    `transformer_nb.<module>`; the names of the test functions that fail (parameters dropped)."""
    code = f"MODULE, SOURCE, NODES = {'transformer_nb.' + module!r}, {_body(source)!r}, {nodes!r}\n" + _PATCH
    env = {**os.environ, 'PYTHONPATH': f"{ROOT}{os.pathsep}{ROOT / 'tests'}", 'OMP_NUM_THREADS': '1', 'MPLBACKEND': 'Agg'}
    r = subprocess.run([sys.executable, '-c', code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert r.returncode in (0, 1), f"pytest did not run ({r.returncode}):\n{r.stdout[-2000:]}\n{r.stderr[-2000:]}"
    return {re.sub(r'\[.*', '', l.split()[1]) for l in r.stdout.splitlines() if l.startswith('FAILED ')}

def failed_ids(failed:dict) -> set: return set(failed)

# --- exercise "write it yourself": my_encoding --------------------------------------------------------------------------

def _check():
    ns = namespace(NB, 'b5d0a002')
    return ns, ns['check_encoding']

def test_encoding_solution_passes_and_stub_is_reported(capsys):
    ns, check = _check()
    sol = namespace(NB, 'b5d0a002', 'b5d0a004')
    assert check(sol['my_encoding']) is True
    exec(_body(cells(NB)['b5d0a003'][1]).split('\ncheck_encoding')[0], ns)   # the stub, as the learner finds it
    assert check(ns['my_encoding']) is False
    assert 'is not written yet' in capsys.readouterr().out
    assert check(namespace(NB, 'e322c005', '51a78696')['sinusoidal_encoding']) is True   # the library passes too

def _variant(base=10000, exp=2, halves=False, swap=False, shape=None):
    def my_encoding(n, d):
        angle = torch.arange(n, dtype=torch.float64)[:, None] / base ** (exp * torch.arange(d // 2) / d)
        a, b = (angle.cos(), angle.sin()) if swap else (angle.sin(), angle.cos())
        pe = torch.cat([a, b], -1) if halves else torch.stack([a, b], -1).flatten(1)
        return pe[:, :shape] if shape else pe.float()
    return my_encoding

@pytest.mark.parametrize('wrong, says', [
    (_variant(base=torch.e), 'base e instead of 10000'), (_variant(exp=1), 'exponent i/d_model'), (_variant(halves=True), 'two halves'),
    (_variant(swap=True), 'sine and cosine swapped'), (_variant(shape=3), 'shape'),
    (lambda n, d: [[0.0] * d] * n, 'tensor')])
def test_encoding_wrong_answers_are_named(wrong, says):
    _, check = _check()
    with pytest.raises(AssertionError, match=says): check(wrong)

# --- exercise 6: RelativeBias ----------------------------------------------------------------------------------------

def test_relative_bias_solution_passes(capsys):
    ns = namespace(NB, 'f5e0f002', '0c5c1cbc')
    ns['check_relative_bias'](ns['RelativeBias'])
    assert 'every row of its table learns' in capsys.readouterr().out

WRONG_BIAS = {
    'wraps': ("offset.clamp(-self.K, self.K) + self.K", "offset % (2 * self.K + 1)", r'should be table\[2\] \(offset j - i = 0, plus K\); it is table\[0\]'),
    'i - j': ("torch.arange(n_k)[None, :] - torch.arange(n_q)[:, None]", "torch.arange(n_q)[:, None] - torch.arange(n_k)[None, :]", 'j - i'),
    'no permute': (".permute(2, 0, 1)", ".permute(2, 1, 0)", 'expected \\(h, n_q, n_k\\)'),
    'two tables': ("self.table = nn.Parameter(torch.randn(2 * K + 1, h) * 0.02)",
                   "self.table = nn.Parameter(torch.randn(2 * K + 1, h) * 0.02); self.extra = nn.Parameter(torch.zeros(1))", 'one parameter'),
}

@pytest.mark.parametrize('name', WRONG_BIAS)
def test_relative_bias_wrong_answers_are_named(name):
    old, new, says = WRONG_BIAS[name]
    sol = code_blocks(NB, '0c5c1cbc')[0]
    assert sol.count(old) == 1
    ns = namespace(NB, 'f5e0f002', sol.replace(old, new))
    with pytest.raises(AssertionError, match=says): ns['check_relative_bias'](ns['RelativeBias'])

def test_relative_bias_stub_is_reported(capsys):
    ns = namespace(NB, 'f5e0f002', 'class RelativeBias(nn.Module):\n    def __init__(self, h, K): raise NotImplementedError')
    assert ns['check_relative_bias'](ns['RelativeBias']) is False
    assert 'not written yet' in capsys.readouterr().out

# --- "break it": exactly the checks each solution names fail ------------------------------------------------------------

AFTER_ENCODING, ROTATION, AFTER_FREQUENCIES = '6784a200', 'b6cf0554', 'c451f5f6'

def test_break_it_1_swap_sine_and_cosine():
    src = edited(NB, '51a78696', "torch.stack([angle.sin(), angle.cos()], dim=-1)", "torch.stack([angle.cos(), angle.sin()], dim=-1)")
    assert failed_ids(run_cells(NB, {'51a78696': src})) == {AFTER_ENCODING, ROTATION}
    assert failing_tests('positional', src, ['tests/test_blocks.py::test_sinusoidal_matches_numpy_reference']) == \
        {'tests/test_blocks.py::test_sinusoidal_matches_numpy_reference'}

def test_break_it_2_exponent():
    src = edited(NB, 'e322c005', "-torch.arange(0, d_model, 2, dtype=dtype) / d_model", "-torch.arange(0, d_model // 2, dtype=dtype) / d_model")
    assert failed_ids(run_cells(NB, {'e322c005': src})) == {AFTER_FREQUENCIES, AFTER_ENCODING}
    assert failing_tests('positional', src, ['tests/test_blocks.py::test_sinusoidal_matches_numpy_reference']) == \
        {'tests/test_blocks.py::test_sinusoidal_matches_numpy_reference'}

