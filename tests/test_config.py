"Project configuration stays consistent: pyproject.toml vs settings.ini, README vs CI, notebooks vs modules."
import configparser, json, re, subprocess, sys
try: import tomllib                              # Python 3.11+
except ModuleNotFoundError: import tomli as tomllib   # Python 3.10 (the dev extras install it there)
import pytest
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

def pyproject(): return tomllib.loads((ROOT/'pyproject.toml').read_text())
def settings():
    cp = configparser.ConfigParser(); cp.read(ROOT/'settings.ini'); return cp['DEFAULT']

def test_settings_ini_says_nbdev3_ignores_it():
    head = (ROOT/'settings.ini').read_text().splitlines()[:4]
    assert any('nbdev 3' in l and 'pyproject.toml' in ' '.join(head) for l in head), head

def mismatches(pp, st):
    "Every setting where settings.ini disagrees with pyproject.toml, as readable strings."
    proj, nbd, bad = pp['project'], pp['tool']['nbdev'], []
    def chk(key, ini, toml):
        if ini != toml: bad.append(f"{key}: settings.ini has {ini!r}, pyproject.toml has {toml!r}")
    for k, v in nbd.items():
        if k != 'cell_timeout': chk(k, st.get(k), ' '.join(v) if isinstance(v, list) else str(v))   # a list: space-separated
    chk('lib_name', st.get('lib_name'), proj['name'])
    for k in 'description', 'license': chk(k, st.get(k), proj[k])
    chk('author', st.get('author'), proj['authors'][0]['name'])
    chk('author_email', st.get('author_email'), proj['authors'][0]['email'])
    chk('keywords', st.get('keywords', '').split(), proj['keywords'])
    chk('min_python', '>=' + st.get('min_python', ''), proj['requires-python'])
    chk('git_url', st.get('git_url'), proj['urls']['Repository'])
    chk('doc_url', st.get('doc_host', '') + st.get('doc_baseurl', '') + '/', proj['urls']['Documentation'])
    chk('requirements', st.get('requirements', '').split(), proj['dependencies'])
    chk('dev_requirements', st.get('dev_requirements', '').split(), proj['optional-dependencies']['dev'])
    return bad

def test_settings_ini_mirrors_pyproject():
    assert mismatches(pyproject(), settings()) == []

def test_settings_mismatch_is_caught():
    "The comparison can fail: a changed value or a changed dependency in settings.ini is reported."
    txt = (ROOT/'settings.ini').read_text()
    for old, new, key in [('tst_flags = slow cuda', 'tst_flags = slow', 'tst_flags'), ('torch>=2.4', 'torch>=2.0', 'requirements')]:
        cp = configparser.ConfigParser(); cp.read_string(txt.replace(old, new))
        bad = mismatches(pyproject(), cp['DEFAULT'])
        assert len(bad) == 1 and bad[0].startswith(key), bad

def test_readme_test_command_is_what_ci_runs():
    ci = (ROOT/'.ci/run').read_text()
    cmd = re.search(r"^TEST_CMD='(.+)'$", ci, re.M).group(1)
    readme = (ROOT/'README.md').read_text()
    assert f"\n{cmd}\n" in readme, f"README.md does not give CI's test command {cmd!r}"
    assert 'pytest' in cmd and 'nbdev-test' in cmd

@pytest.mark.slow
def test_readme_is_generated_from_index():
    r = subprocess.run([sys.executable, 'tools/make_readme.py', '--check'], cwd=ROOT, capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr

def notebooks(): return sorted([*(ROOT/'nbs').glob('[0-9][0-9]_*.ipynb'), *(p for w in ('lib', 'apps', 'course') for p in (ROOT/'nbs').glob(f'{w}_*.ipynb'))])

NO_MODULE = {'lib_benchmarks.ipynb',   # measurements, demonstrations and tests of stored results: nothing to export
             'apps_api_entries.ipynb',                         # the site's build code, which lives in tools/apidocs.py, not in the package
             'apps_cluster.ipynb'}                             # commands to run on a cluster: the tools, a Slurm script

def test_one_notebook_one_module():
    mods, SECOND = {}, {}
    for nb in notebooks():
        src = [''.join(c['source']) for c in json.loads(nb.read_text())['cells']]
        exp = [m for s in src for m in re.findall(r'^#\|\s*default_exp\s+(\S+)', s, re.M)]
        into = {m for s in src for m in re.findall(r'^#\|\s*export[s]?[ \t]+(\S+)', s, re.M)}   # `#| export other_module`
        for m in into - set(exp):                    # a second module of the notebook's own (06's `config`), no one else's
            assert m not in mods and m not in SECOND, f"{nb.name} writes into {m}, another notebook's module"
            SECOND[m] = nb.name
        if nb.name in NO_MODULE:
            assert exp == [], f"{nb.name} exports {exp}; it is meant to have no module"
            continue
        assert len(exp) == 1, f"{nb.name} should have exactly one default_exp, found {exp}"
        assert exp[0] not in mods and exp[0] not in SECOND, f"{nb.name} and {mods.get(exp[0], SECOND.get(exp[0]))} both export to {exp[0]}"
        mods[exp[0]] = nb.name
        assert (ROOT/'transformer_nb'/f"{exp[0].replace('.', '/')}.py").exists(), f"{nb.name}: transformer_nb/{exp[0]}.py not exported"
    assert len(mods) >= 6
    assert {mods.get(m) for m in ('lib.fast_decoding', 'apps.cli', 'lib.records')} == \
           {'lib_fast_decoding.ipynb', 'apps_cli.ipynb', 'lib_records.ipynb'}, mods
    assert NO_MODULE <= {nb.name for nb in notebooks()}, "a notebook listed in NO_MODULE does not exist"
    exported = {'.'.join(p.relative_to(ROOT/'transformer_nb').with_suffix('').parts) for p in (ROOT/'transformer_nb').rglob('*.py') if not p.name.startswith('_')}
    assert exported == set(mods) | set(SECOND), f"modules without a notebook: {sorted(exported - set(mods) - set(SECOND))}"

def test_notebooks_open_with_title_and_summary():
    for nb in sorted((ROOT/'nbs').glob('*.ipynb')):   # the section notebooks, index, pitfalls
        first = ''.join(json.loads(nb.read_text())['cells'][0]['source'])
        assert re.match(r'# \S', first), f"{nb.name} does not open with '# Title'"
        assert re.search(r'^> \S', first, re.M), f"{nb.name} has no '> summary' line"

def test_scripts_exist():
    import importlib
    for name, target in pyproject()['project'].get('scripts', {}).items():
        mod, fn = target.split(':')
        assert callable(getattr(importlib.import_module(mod), fn)), f"{name} -> {target} is not callable"

def test_a_plain_pytest_leaves_out_the_slow_tier_and_says_so():
    "README's pytest is the fast tier: the tests marked slow are deselected and that is said at the end; `--slow` keeps them."
    def collect(*args):
        r = subprocess.run([sys.executable, '-m', 'pytest', '--collect-only', '-q', '-p', 'no:cacheprovider', *args,
                            'tests/test_exercises_10.py'], cwd=ROOT, capture_output=True, text=True)
        assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]
        return {l for l in r.stdout.splitlines() if '::' in l}, r.stdout
    (fast, out), (every, _) = collect(), collect('--slow')
    slow = every - fast
    assert slow and fast and fast < every, (len(fast), len(every))
    assert all('test_break_it' in t for t in slow) and not any('test_break_it' in t for t in fast)
    assert '`pytest -n 2 --dist loadfile --slow` runs every test' in out

def test_every_test_gates_every_landing():
    """`.ci/run` runs README's test command (the fast tier), its pytest again on ATen's AVX2 kernels, and then `.ci/slow`:
    pytest's slow tier and the portability pass, which runs every notebook, every cell, under the portable kernels.
    Nothing runs only elsewhere."""
    slow, ci = (ROOT/'.ci/slow').read_text(), (ROOT/'.ci/run').read_text()
    steps = [l.strip() for l in ci.splitlines() if l.strip() and not l.lstrip().startswith('#')]
    assert 'bash .ci/slow' in steps, "`.ci/run` does not run the slow tier"
    assert steps.index('bash .ci/slow') > next(i for i, l in enumerate(steps) if l.startswith('bash -o pipefail -c "$TEST_CMD"'))
    assert 'pytest -n 2 --dist loadfile -m slow' in slow
    port = next(l for l in slow.splitlines() if l.startswith('ATEN_CPU_CAPABILITY=default python tools/run_notebooks.py'))
    assert not re.search(r'--(flagged-only|compares-floats|native|also)|\.ipynb', port), port   # every notebook, every cell, on the portable kernels
    avx2 = next(l for l in steps if l.startswith('ATEN_CPU_CAPABILITY=avx2 '))  # README's pytest again, on the AVX2 kernels
    test_cmd = re.search(r"TEST_CMD='(.*)'", ci)[1]
    assert avx2.endswith(test_cmd.split(' && ')[-1]) and steps.index(avx2) < steps.index('bash .ci/slow'), avx2
    flagged = [nb.name for nb in sorted((ROOT/'nbs').glob('*.ipynb'))
               if any(re.search(r'^#\|\s*(slow|cuda)\b', ''.join(c['source']), re.M) for c in json.loads(nb.read_text())['cells'])]
    assert '09_training.ipynb' in flagged, flagged               # the notebook whose training runs rounding changes most
    wf = (ROOT/'.github/workflows/test.yaml').read_text()
    assert 'run: bash .ci/run' in wf and 'run: bash .ci/slow' not in wf, "the workflow runs the slow tier through .ci/run"

def test_ci_times_reads_each_tier_from_a_log():
    "tools/ci_times.py: the tiers' seconds from `.ci/run`'s stamps (`.ci/slow`'s count from its own start); a partial log is refused."
    sys.path.insert(0, str(ROOT/'tools'))
    import ci_times
    log = '\n'.join(['== [0s] 1. PyTorch', '== [40s] 5. README\'s test command', 'noise', '== [250s] 5b. README\'s test command again',
                     '== [400s] 6. the slow tier: bash .ci/slow',
                     '== [0s] 1. pytest\'s slow tier', '== [1500s] 2. portability', '== [1800s] done', '== [2210s] 7. docs pages', '== [2240s] done'])
    assert ci_times.parse(log) == dict(total_s=2240, setup_s=40, fast_tier_s=210, avx2_pass_s=150, slow_tier_s=1810, slow_pytest_s=1500,
                                       portability_s=300, docs_s=30)
    with pytest.raises(ValueError, match='lacks the stamps of steps 7, done'):
        ci_times.parse('\n'.join(log.splitlines()[:-2]))

def _export_copy(tmp_path:Path, *extra:tuple[str, str]) -> Path:
    "A copy of the project's configuration, 06_model, the paper modules it imports and nbdev-export's step, in `tmp_path`, plus `extra` (path, text)."
    for f in ('pyproject.toml', 'settings.ini', 'nbs/06_model.ipynb', *(f'transformer_nb/{m}.py' for m in
              ('__init__', '_export', 'core', 'attention', 'multihead', 'ffn', 'embeddings', 'positional', 'config', 'model'))):
        (tmp_path / f).parent.mkdir(parents=True, exist_ok=True); (tmp_path / f).write_bytes((ROOT / f).read_bytes())
    for f, text in extra: (tmp_path / f).write_text(text)
    return tmp_path

def _nbdev_export(where:Path, nb:str):
    r = subprocess.run([sys.executable, '-c', 'from nbdev.doclinks import nbdev_export; nbdev_export.__wrapped__(path=' + repr(nb) + ')'],
                       cwd=where, capture_output=True, text=True, timeout=300)   # the copy's package first
    assert r.returncode == 0, r.stderr[-2000:]

def test_a_second_module_is_written_whole_by_every_export(tmp_path):
    "06_model writes `model` and, from its `#| export config` cells, `config`: each export writes both whole and the same, as committed (nbdev alone would append `config`'s cells again at every export)."
    where = _export_copy(tmp_path)
    (where / 'transformer_nb/config.py').unlink()                 # a first export, from no config.py at all
    for _ in range(2):
        _nbdev_export(where, 'nbs/06_model.ipynb')
        for m in ('config', 'model'):
            assert (where / f'transformer_nb/{m}.py').read_text() == (ROOT / f'transformer_nb/{m}.py').read_text(), m
    assert 'import torch' not in (ROOT / 'transformer_nb/config.py').read_text()   # what the commands' --help reads

def test_a_module_another_notebook_writes_is_left_to_it(tmp_path):
    "A notebook's `#| export NAME` into a module that another notebook writes leaves that module's text as nbdev does: appended, never started afresh."
    other = '"""Not 06_model\'s."""\n\n# AUTOGENERATED! DO NOT EDIT! File to edit: ../nbs/99_other.ipynb.\n\n# %% auto #0\n__all__ = []\n'
    nb = json.loads((ROOT / 'nbs/06_model.ipynb').read_text())
    nb['cells'].append({'cell_type': 'code', 'execution_count': None, 'id': 'x1', 'metadata': {}, 'outputs': [],
                        'source': ['#| export other\n', 'def f(): return 1']})
    where = _export_copy(tmp_path, ('transformer_nb/other.py', other), ('nbs/06_model.ipynb', json.dumps(nb)))
    _nbdev_export(where, 'nbs/06_model.ipynb')
    text = (where / 'transformer_nb/other.py').read_text()
    assert text.startswith(other.split('__all__')[0]) and 'def f(): return 1' in text
