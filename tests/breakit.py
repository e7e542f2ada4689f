"""Helpers for the tests of the "break it" exercises: apply an exercise's change to the library and see which checks fail.

`break_it(nb, cell_id, old, new, module, test_file)` makes the change twice, as a learner would: in the notebook's
exported cell `cell_id` (then every code cell a learner sees is run in order, in a fresh interpreter, and the cells
that raise are noted; later cells still run, and a cell that fails only with a NameError, a name that an earlier
failing cell never defined, is not counted) and in a copy of the package's `module` (then `pytest test_file` runs
against that copy, and the tests that fail are noted). `old` must occur exactly once in each. It returns the two sets,
cell ids and test function names (parameters dropped), for the test to compare with what the solution names.

The repository is never changed: the package is copied into a temporary folder, which both runs put first on
`sys.path` (as the working directory of pytest, as the script's folder for the cells)."""
import json, os, re, shutil, subprocess, sys, tempfile
import xml.etree.ElementTree as ET
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# Runs a notebook's visible code cells (not `#| hide`, not `#| eval: false`) in one namespace, one exercise's change
# made in one cell, and writes the ids of the cells that raised.
RUNNER = r'''
import json, re, sys
nb, cell_id, old, new, out = sys.argv[1:6]
ns, failed, changed = {}, [], 0
for c in json.load(open(nb, encoding='utf-8'))['cells']:
    src = ''.join(c['source'])
    if c['cell_type'] != 'code' or re.search(r'^#\|\s*(hide|eval:\s*false)', src, re.M): continue
    if c['id'] == cell_id:
        assert src.count(old) == 1, f"cell {cell_id}: the change's text occurs {src.count(old)} times"
        src, changed = src.replace(old, new), changed + 1
    body = '\n'.join(l for l in src.splitlines() if not l.startswith('#|'))
    try: exec(compile(body, f"<cell {c['id']}>", 'exec'), ns)
    except Exception as e: failed.append((c['id'], type(e).__name__, str(e)[:300]))
assert changed == 1, f"no code cell {cell_id}"
json.dump(failed, open(out, 'w'))
'''

def break_it(nb:str, cell_id:str, old:str, new:str, module:str, test_file:str, timeout:int=600) -> tuple[set, set]:
    "(ids of the visible cells of `nb` that fail, names of the tests of `test_file` that fail) with `old` -> `new`."
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        pkg = shutil.copytree(ROOT / 'transformer_nb', tmp / 'transformer_nb')
        mod = pkg / f'{module}.py'
        src = mod.read_text(encoding='utf-8')
        assert src.count(old) == 1, f"transformer_nb/{module}.py: the change's text occurs {src.count(old)} times"
        mod.write_text(src.replace(old, new), encoding='utf-8')
        env = {k: v for k, v in os.environ.items() if not k.startswith(('PYTEST_', 'COV_'))}
        env.update(PYTHONPATH=str(tmp), MPLBACKEND='Agg', TNB_THREADS='1', OMP_NUM_THREADS='1')
        (tmp / 'run.py').write_text(RUNNER, encoding='utf-8')
        r = subprocess.run([sys.executable, str(tmp / 'run.py'), f'{nb}.ipynb', cell_id, old, new, str(tmp / 'cells.json')],
                           cwd=ROOT / 'nbs', env=env, capture_output=True, text=True, timeout=timeout)
        assert r.returncode == 0, f"running {nb}'s cells failed:\n{r.stderr[-3000:]}"
        cells = {i for i, err, _ in json.loads((tmp / 'cells.json').read_text()) if err != 'NameError'}
        r = subprocess.run([sys.executable, '-m', 'pytest', '-q', '-p', 'no:cacheprovider', f'--junitxml={tmp / "junit.xml"}',
                            f'--rootdir={ROOT}', str(ROOT / test_file)], cwd=tmp, env=env, capture_output=True, text=True, timeout=timeout)
        assert r.returncode in (0, 1), f"pytest {test_file} could not run (exit {r.returncode}):\n{r.stdout[-3000:]}"
        tests = {re.sub(r'\[.*', '', tc.get('name')) for tc in ET.parse(tmp / 'junit.xml').iter('testcase')
                 if tc.find('failure') is not None or tc.find('error') is not None}
        return cells, tests

def named_tests(text:str, test_file:str) -> set:
    "The test functions of `test_file` that `text` (a solution) names."
    defined = set(re.findall(r'^def (test_\w+)', (ROOT / test_file).read_text(encoding='utf-8'), re.M))
    return set(re.findall(r'test_\w+', text)) & defined
