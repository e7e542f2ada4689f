"""Helpers for the tests that prove the course's exercises and prose (tests/test_exercises_NN.py), away from the learner:
a notebook's cells by id, code from them run in a namespace of its own (never the learner's), an exercise's text and
the tests its solution names, the checks' verdicts, and `break_it`, the one harness of the "break it" exercises.

`break_it(nb, cell, old, new, module, tests)` makes an exercise's change as a learner would, and as `nbdev-export`
carries it: `old` -> `new` in code cell `cell` of notebook `nb` and in `transformer_nb/<module>.py` of a copy of the
package (`old` must occur exactly once in each). Then, each in a fresh interpreter that imports the changed copy:
notebook `nb`'s code cells run top to bottom in an IPython shell, from nbs/, as `nbdev-test` runs them (cells flagged
`slow`, `cuda` or `eval: false` left out; every cell runs, whatever the ones before it did), and pytest runs `tests`
(files or node ids). It returns the cells that raised and the node ids of the tests that failed (parameters dropped),
for the test to compare with what the solution names; `assert_break_it` makes that comparison. The repository is never
changed."""
import ast, contextlib, io, json, os, re, shutil, subprocess, sys, tempfile, textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
NBS = ROOT / 'nbs'

def cells(nb:str) -> dict:
    "Cell id -> (cell type, source text) of notebook `nb` ('01_attention' or '01_attention.ipynb'), in order."
    p = NBS / (nb if nb.endswith('.ipynb') else f'{nb}.ipynb')
    return {c['id']: (c['cell_type'], ''.join(c['source'])) for c in json.loads(p.read_text(encoding='utf-8'))['cells']}

def code_blocks(nb:str, cell_id:str) -> list[str]:
    "The ```python blocks of markdown cell `cell_id` (an exercise's solution), dedented."
    return [textwrap.dedent(b) for b in re.findall(r"```python\n(.*?)```", cells(nb)[cell_id][1], re.S)]

def _body(src:str) -> str: return '\n'.join(l for l in src.splitlines() if not l.startswith('#|'))

def imports_only(src:str) -> bool:
    "True for a code cell of import statements alone."
    try: return all(isinstance(n, (ast.Import, ast.ImportFrom)) for n in ast.parse(_body(src)).body)
    except SyntaxError: return False

def namespace(nb:str, *sources:str) -> dict:
    """A fresh namespace holding notebook `nb`'s import cells, then each of `sources` run in order: a cell id (its code,
    or a markdown cell's first ```python block) or literal code."""
    cs, ns = cells(nb), {}
    for kind, src in cs.values():
        if kind == 'code' and imports_only(src) and '%' not in src: exec(_body(src), ns)
    for s in sources:
        if s in cs: s = _body(cs[s][1]) if cs[s][0] == 'code' else code_blocks(nb, s)[0]
        exec(s, ns)
    return ns

def changed(text:str, old:str, new:str) -> str:
    "`text` with `old`, which must occur exactly once (else the exercise's text has moved), replaced by `new`."
    assert text.count(old) == 1, f"{old!r} occurs {text.count(old)} times; the exercise's text has moved"
    return text.replace(old, new)

# ---------------------------------------------------------------- an exercise's text, and what its solution names
def exercise(nb:str, cell_id:str, n:int) -> str:
    "The text of exercise `n` (an item `n. **...`) of markdown cell `cell_id`, its solution included."
    return next(p for p in re.split(r'(?m)^(?=\d+\. \*\*)', cells(nb)[cell_id][1]) if p.startswith(f'{n}. '))

def exercise_code(nb:str, cell_id:str, n:int) -> str:
    "The first ```python block of exercise `n` of markdown cell `cell_id`: its printed solution."
    return re.findall(r"```python\n(.*?)```", exercise(nb, cell_id, n), re.S)[0]

def named_tests(text:str, test_file:str) -> set:
    "The test functions of `test_file` that `text` (a solution) names."
    defined = set(re.findall(r'^def (test_\w+)', (ROOT / test_file).read_text(encoding='utf-8'), re.M))
    return set(re.findall(r'test_\w+', text)) & defined

def assert_no_cell_runs_a_solution(nb:str, *names:str):
    "No code cell of `nb` runs a solution, and each of the learner's `names` is defined once (by the stub they replace)."
    code = [src for kind, src in cells(nb).values() if kind == 'code']
    assert not [s for s in code if re.search(r'\bsolution\(|code_blocks\(', s)]
    for name in names:
        assert sum(bool(re.search(rf'^(def|class) {name}\b|^{name}\s*=', s, re.M)) for s in code) == 1, name

# ---------------------------------------------------------------- a check's verdicts
def assert_rejects(check, *answer, says:str):
    """`check(*answer)` refuses the answer, naming the mistake: a check of `transformer_nb.course` returns False (never
    True) and prints a line that matches the regular expression `says`; a check that raises fails with an AssertionError
    whose message matches it."""
    out = io.StringIO()
    try:
        with contextlib.redirect_stdout(out): ok = check(*answer)
    except AssertionError as e:
        assert re.search(says, str(e)), f"the check failed with {str(e)!r}, which does not match {says!r}"
        return
    assert ok is not True, f"the check passed the wrong answer: {out.getvalue()!r}"
    assert re.search(says, out.getvalue()), f"the check said {out.getvalue()!r}, which does not match {says!r}"

def assert_stub_reported(ns:dict, check:str, name:str, capsys):
    "The stub cell, run into `ns`, printed that `name` is not written yet, and `ns[check]` returns False on the stub."
    assert f'{name} is not written yet' in capsys.readouterr().out
    assert ns[check](ns[name]) is False

def assert_stub_then_solution(ns:dict, check:str, name:str, nb:str, solution_cell:str, capsys) -> dict:
    """`ns[check]` returns False on the empty stub `ns[name]` (without raising) and says so first, and passes the printed
    solution (the first ```python block of markdown cell `solution_cell`); returns a copy of `ns` that holds the solution."""
    assert ns[check](ns[name]) is False
    assert capsys.readouterr().out.startswith(f'{name} is still the empty stub')
    sol = dict(ns); exec(code_blocks(nb, solution_cell)[0], sol)
    assert ns[check](sol[name]) is True
    return sol

def run_check(ns:dict, check:str, solution:str, old:str|None=None, new:str='', says:str|None=None):
    """Run the printed `solution` (with `old`, if given, replaced by `new`: a wrong answer) and then the printed `check`,
    both code, in namespace `ns`; with `says`, the check must fail with an AssertionError whose message matches it."""
    exec(solution if old is None else changed(solution, old, new), ns)
    if says is None: exec(check, ns)
    else: assert_rejects(exec, check, ns, says=says)

# ---------------------------------------------------------------- "break it": the change made, which checks fail
_NOT_RUN = re.compile(r'^#\|\s*(eval:\s*false|slow|cuda)\b', re.M)      # what nbdev-test leaves out, here as there
_HIDDEN = re.compile(r'^#\|\s*hide\b', re.M)

# Runs [cell id, source] pairs in order in one IPython shell (whose `get_ipython` 00_core's cells use) and writes
# {cell id: [error type, message]} for the cells that raised.
_CELLS = r'''
import json, sys
from IPython.core.interactiveshell import InteractiveShell
run, failed = json.load(open(sys.argv[1], encoding='utf-8')), {}
shell = InteractiveShell.instance()
for cid, src in run:
    r = shell.run_cell(src, silent=True, store_history=False)
    e = r.error_before_exec or r.error_in_exec
    if e is not None: failed[cid] = [type(e).__name__, str(e)[:300]]
    if 'matplotlib.pyplot' in sys.modules: sys.modules['matplotlib.pyplot'].close('all')
json.dump(failed, open(sys.argv[2], 'w', encoding='utf-8'))
'''

# A pytest plugin that writes the node ids of the tests that failed (in setup, call or teardown) and where the package
# the tests imported came from.
_PLUGIN = r'''
import json, os
failed = []
def pytest_runtest_logreport(report):
    if report.failed: failed.append(report.nodeid)
def pytest_sessionfinish(session):
    import transformer_nb
    with open(os.environ['BREAK_IT_OUT'], 'w', encoding='utf-8') as f: json.dump([transformer_nb.__file__, failed], f)
'''
_BOOT = "import sys; sys.path[:] = [p for p in sys.path if p not in ('', '.')]; import pytest; sys.exit(pytest.main(sys.argv[1:]))"

def break_it(nb:str, cell:str|None=None, old:str='', new:str='', module:str|None=None, tests=(), *, notebook:bool=True,
             hidden:bool=True, prose:bool=True, skip=(), name_errors:bool=True, pytest_args=(), timeout:int=900
             ) -> tuple[dict, set]:
    """({id: 'Error: message'} of the code cells of notebook `nb` that raise, {node ids of the tests in `tests` that
    fail}) with `old` -> `new` made in code cell `cell` and in the package's `module` (no change without `cell`).
    The cells: all that `nbdev-test` runs, a `#| hide` one not counted with `hidden=False` (the Colab setup, the threads
    and tolerances, the prose checks: they run, as in Jupyter),
    the prose checks' cell with `prose=False`, the ids in `skip`; none with `notebook=False`. With `name_errors=False` a
    cell that fails with a NameError (a name an earlier failing cell never defined) is not counted. `pytest_args` go
    to pytest before `tests` (`['-m', 'not slow']`); without a `-m` there, the tests marked slow run too."""
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        pkg = shutil.copytree(ROOT / 'transformer_nb', tmp / 'transformer_nb', ignore=shutil.ignore_patterns('__pycache__'))
        if module is not None:
            mod = pkg / f"{module.replace('.', '/')}.py"    # 'attention', 'lib.machine'
            mod.write_text(changed(mod.read_text(encoding='utf-8'), old, new), encoding='utf-8')
        code = [(cid, src) for cid, (kind, src) in cells(nb).items() if kind == 'code']
        if cell is not None:
            assert cell in dict(code), f"{nb} has no code cell {cell}"
            code = [(cid, changed(src, old, new) if cid == cell else src) for cid, src in code]
        env = {k: v for k, v in os.environ.items() if not k.startswith(('PYTEST_', 'COV_'))}
        env.update(PYTHONPATH=str(tmp), MPLBACKEND='Agg', TNB_THREADS='1', OMP_NUM_THREADS='1',
                   IPYTHONDIR=str(tmp / 'ipython'), TNB_PRETRAINED=str(ROOT / 'models'))   # the copy has no models/ beside it
        failed_cells, failed_tests = {}, set()
        if notebook:
            run = [(cid, src) for cid, src in code if not _NOT_RUN.search(src) and cid not in skip
                   and (prose or 'tests/prose/' not in src)]
            unseen = set() if hidden else {cid for cid, src in run if _HIDDEN.search(src)}   # run, as in Jupyter, not counted
            assert cell is None or cell in dict(run), f"{nb}'s cell {cell} is not among the cells that run"
            (tmp / 'cells.json').write_text(json.dumps(run), encoding='utf-8')
            (tmp / 'cells.py').write_text(_CELLS, encoding='utf-8')
            r = subprocess.run([sys.executable, str(tmp / 'cells.py'), str(tmp / 'cells.json'), str(tmp / 'failed.json')],
                               cwd=NBS, env=env, capture_output=True, text=True, timeout=timeout)
            assert r.returncode == 0, f"running {nb}'s cells failed:\n{r.stdout[-2000:]}\n{r.stderr[-3000:]}"
            failed_cells = {cid: f'{err}: {msg}' for cid, (err, msg) in json.loads((tmp / 'failed.json').read_text()).items()
                            if (name_errors or err != 'NameError') and cid not in unseen}
        if tests:
            (tmp / '_break_it_plugin.py').write_text(_PLUGIN, encoding='utf-8')
            r = subprocess.run([sys.executable, '-c', _BOOT, '-q', '-p', 'no:cacheprovider', '-p', '_break_it_plugin',
                                f'--rootdir={ROOT}', *(() if '-m' in pytest_args else ('--slow',)), *pytest_args, *tests],
                               cwd=ROOT, capture_output=True, text=True,
                               env={**env, 'BREAK_IT_OUT': str(tmp / 'tests.json')}, timeout=timeout)
            assert r.returncode in (0, 1), \
                f"pytest {' '.join(tests)} could not run (exit {r.returncode}):\n{r.stdout[-3000:]}{r.stderr[-2000:]}"
            where, failed = json.loads((tmp / 'tests.json').read_text())
            assert Path(where).is_relative_to(tmp), f"the tests imported {where}, not the changed copy"
            failed_tests = {re.sub(r'\[.*', '', t) for t in failed}
        return failed_cells, failed_tests

def assert_break_it(*args, fail_cells=(), fail_tests=(), **kw):
    "`break_it(*args, **kw)`, and the cells that fail are exactly `fail_cells`, the tests exactly `fail_tests` (node ids)."
    got_cells, got_tests = break_it(*args, **kw)
    assert set(got_cells) == set(fail_cells), f"failing cells {got_cells}, expected {sorted(fail_cells)}"
    assert got_tests == set(fail_tests), f"failing tests {sorted(got_tests)}, expected {sorted(fail_tests)}"

def assert_break_it_exercise(nb:str, exercises:str, n:int, test_file:str, *, cell:str, old:str, new:str, module:str,
                             cells:dict, tests:set, said:str|None=None):
    """Exercise `n` of markdown cell `exercises` (a "break it") still asks for the change (`said` is in its text, where
    given), and its solution names exactly the `tests` of `test_file`; with the change made, exactly the learner's
    `cells` fail (visible cells only, a cell that fails with a NameError not counted) and exactly those tests."""
    text = exercise(nb, exercises, n)
    if said is not None: assert said in text, "the exercise no longer asks for this change"
    assert named_tests(text, test_file) == tests, "the solution names other tests"
    assert_break_it(nb, cell, old, new, module, [test_file], hidden=False, name_errors=False,
                    fail_cells=cells, fail_tests={f'{test_file}::{t}' for t in tests})
