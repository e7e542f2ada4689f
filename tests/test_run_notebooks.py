"tools/run_notebooks.py, CI's learner-style run of the notebooks: it names the failing cell, stops a notebook over its budget, and leaves out the cells nbdev-test leaves out."
import importlib.util
from pathlib import Path
import pytest
pytestmark = pytest.mark.slow        # every test here runs the tools in fresh processes (`pytest -m 'not slow'` skips them)

ROOT = Path(__file__).resolve().parents[1]

def runner():
    spec = importlib.util.spec_from_file_location('run_notebooks', ROOT / 'tools' / 'run_notebooks.py')
    mod = importlib.util.module_from_spec(spec); spec.loader.exec_module(mod)
    return mod

def notebook(path, *cells):
    import nbformat
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in cells])
    for i, c in enumerate(nb.cells): c['id'] = f'cell{i}'
    nbformat.write(nb, path); return path

def test_run_notebooks_names_the_failing_cell_and_runs_without_ci_variables(tmp_path, monkeypatch):
    monkeypatch.setenv('TNB_THREADS', '1'); monkeypatch.setenv('MPLBACKEND', 'Agg')
    nb = notebook(tmp_path / 'bad.ipynb', "import os\nassert 'TNB_THREADS' not in os.environ and os.environ.get('MPLBACKEND') != 'Agg'",
                  "x = 1", "#| slow\nraise ValueError('broken on purpose')", "y = 2")
    r = runner().run_one(str(nb), budget=120, save_to=None, keep_env=False)
    assert r['status'] == 'error' and r['error'] == 'ValueError: broken on purpose', r
    assert r['where'].startswith('cell 2 (code cell 3, id cell2)') and "raise ValueError('broken on purpose')" in r['where'], r

def test_run_notebooks_stops_a_notebook_over_its_budget(tmp_path):
    nb = notebook(tmp_path / 'slow.ipynb', "import time", "time.sleep(60)")
    r = runner().run_one(str(nb), budget=8, save_to=None, keep_env=False)
    assert r['status'] == 'over budget' and r['seconds'] < 40, r
    assert 'code cell 2' in r['where'] and 'time.sleep(60)' in r['where'], r

def test_flagged_cells_are_the_ones_nbdev_test_skips(tmp_path):
    try: import tomllib
    except ModuleNotFoundError: import tomli as tomllib   # Python 3.10
    rn = runner()
    nb = notebook(tmp_path / 'f.ipynb', "#| export\nx = 1", "#| slow\ny = 2", "#|cuda\nz = 3", "#| hide\n#| slow\nw = 4",
                  "# not a flag: #| slow", "s = '#| cuda'", "x = 1\n#| slow")
    assert rn.flagged_cells(nb) == 3
    assert rn.flagged_cells(notebook(tmp_path / 'g.ipynb', "#| export\nx = 1", "y = 2")) == 0
    flags = tomllib.loads((ROOT / 'pyproject.toml').read_text())['tool']['nbdev']['tst_flags'].split()
    assert sorted(rn.FLAGS) == sorted(flags), (rn.FLAGS, flags)   # the cells nbdev-test leaves out, no more, no fewer

def test_ci_runs_every_notebook_as_a_learner():
    "CI's learner run (in `.ci/slow`, which `.ci/run` runs) takes every notebook, every cell, after README's test command ran them natively."
    ci, slow = (ROOT / '.ci' / 'run').read_text(), (ROOT / '.ci' / 'slow').read_text()
    line = next(l for l in slow.splitlines() if 'python tools/run_notebooks.py' in l and not l.lstrip().startswith('#'))
    assert '--budget 900' in line and not any(f in line for f in ('--compares-floats', '--flagged-only', '--also', '.ipynb')), line
    assert ci.index('bash -o pipefail -c "$TEST_CMD"') < ci.index('\nbash .ci/slow')

def test_the_portability_pass_takes_every_notebook_that_compares_floats(tmp_path):
    "`--compares-floats` finds a float check in any code cell (fastcore's test_close, torch's allclose, a derived rounding_tol...), not in prose."
    rn = runner()
    assert rn.compares_floats(notebook(tmp_path / 'a.ipynb', "x = 1", "test_close(a, b, eps=rounding_tol(b, 8))"))
    assert rn.compares_floats(notebook(tmp_path / 'b.ipynb', "assert torch.allclose(a, b)"))
    assert not rn.compares_floats(notebook(tmp_path / 'c.ipynb', "test_eq(1, 1)", "s = 'allclose'"))
    chosen = [nb for nb in sorted((ROOT / 'nbs').glob('*.ipynb')) if rn.flagged_cells(nb) or rn.compares_floats(nb)]
    names = {nb.name for nb in chosen}
    assert {'10_decoding.ipynb', 'lib_fast_decoding.ipynb', '09_training.ipynb', '03_ffn.ipynb'} <= names and len(names) > 20, names
