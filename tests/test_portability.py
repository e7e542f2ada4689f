"""The course on other machines: every notebook's Colab badge opens that notebook, its setup cell is current and works
in a (faked) Colab, the package names an encoding wherever it opens text (Windows would pick cp1252), and the docs
site check of the workflow finds a missing page."""
import ast, configparser, json, os, re, subprocess, sys, venv
from pathlib import Path
import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / 'tools'))
import colab, check_site

NBS = sorted((ROOT / 'nbs').glob('*.ipynb'))

def cells(nb): return json.loads(nb.read_text(encoding='utf-8'))['cells']

def test_every_badge_opens_its_own_notebook():
    "The badge cell follows the title, and its address is this notebook's path in the GitHub repository of settings.ini."
    st = configparser.ConfigParser(); st.read(ROOT / 'settings.ini'); st = st['DEFAULT']
    for nb in NBS:
        cs = cells(nb)
        assert cs[1]['id'] == colab.BADGE_ID and cs[1]['cell_type'] == 'markdown', f"{nb.name}: no badge after the title"
        links = re.findall(r'href="(https://colab\.research\.google\.com/github/[^"]+)"', ''.join(cs[1]['source']))   # an inline HTML link
        want = f"https://colab.research.google.com/github/{st['user']}/{st['repo']}/blob/{st['branch']}/{st['nbs_path']}/{nb.name}"
        assert links == [want], f"{nb.name}: the badge opens {links}, not {want}"
        assert sum(c.get('id') == colab.BADGE_ID for c in cs) == 1

def test_setup_cells_are_current_short_and_do_nothing_outside_colab(tmp_path):
    r = subprocess.run([sys.executable, str(ROOT / 'tools' / 'colab.py'), '--check'], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    for nb in NBS:
        cs = cells(nb)
        setup = ''.join(cs[2]['source'])
        assert cs[2]['id'] == colab.SETUP_ID and cs[2]['cell_type'] == 'code', nb.name
        assert setup.startswith('#| hide\n'), f"{nb.name}: the setup cell must be hidden"
        assert len(setup.splitlines()) <= 6, f"{nb.name}: the setup cell has grown past 6 lines"
        assert not cs[2]['outputs'], nb.name
        assert 'pip' in setup and "iu.find_spec('transformer_nb'), 'origin', None)" in setup, nb.name   # installs only when not importable
        assert not re.search(r'==|<=|~=', setup), f"{nb.name}: the setup cell pins a version"
    r = subprocess.run([sys.executable, '-c', f"exec({setup!r}); import os; print(os.getcwd())"], cwd=tmp_path,
                       capture_output=True, text=True)             # outside Colab: no clone, no install, no output
    assert r.returncode == 0 and r.stdout.strip() == str(tmp_path) and list(tmp_path.iterdir()) == [], r.stdout + r.stderr

def test_colab_tool_is_idempotent_and_keeps_other_cells():
    nb = json.loads(NBS[0].read_text(encoding='utf-8'))
    once = colab.updated(nb, NBS[0].name)
    assert colab.updated(once, NBS[0].name) == once
    assert [c['id'] for c in once['cells'] if c['id'] not in (colab.BADGE_ID, colab.SETUP_ID)] == \
           [c['id'] for c in nb['cells'] if c['id'] not in (colab.BADGE_ID, colab.SETUP_ID)]
    moved = {**nb, 'cells': [once['cells'][0], *once['cells'][3:], *once['cells'][1:3]]}   # an edit moved them to the end
    assert colab.updated(moved, NBS[0].name) == once
    with pytest.raises(ValueError, match='first cell'): colab.updated({**nb, 'cells': nb['cells'][1:]}, NBS[0].name)

def _opens_text_without_encoding(tree) -> list[int]:
    "Lines of calls that open text with the platform's encoding: open() in a text mode, Path.read_text/write_text."
    bad = []
    for n in ast.walk(tree):
        if not isinstance(n, ast.Call): continue
        kws = {k.arg for k in n.keywords}
        name = n.func.attr if isinstance(n.func, ast.Attribute) else n.func.id if isinstance(n.func, ast.Name) else ''
        if name in ('read_text', 'write_text') and 'encoding' not in kws: bad.append(n.lineno)
        if name == 'open' and isinstance(n.func, ast.Name) and 'encoding' not in kws:
            mode = n.args[1] if len(n.args) > 1 else next((k.value for k in n.keywords if k.arg == 'mode'), None)
            if not (isinstance(mode, ast.Constant) and 'b' in str(mode.value)): bad.append(n.lineno)
    return bad

def test_package_names_an_encoding_wherever_it_opens_text():
    "On Windows Python (before 3.15) opens text as cp1252: German and French sentences would be misread."
    bad = {p.name: ls for p in sorted((ROOT / 'transformer_nb').rglob('*.py'))
           if (ls := _opens_text_without_encoding(ast.parse(p.read_text(encoding='utf-8'))))}
    assert not bad, f"text opened without encoding= (file: lines): {bad}"
    assert _opens_text_without_encoding(ast.parse("open('a')\nPath('b').read_text()\nopen('c', 'rb')\nopen('d', encoding='utf-8')")) == [1, 2]

def test_site_check_finds_missing_pages(tmp_path):
    nbs = tmp_path / 'nbs'; nbs.mkdir(); site = tmp_path / '_docs'; site.mkdir()
    for name, title in (('00_core.ipynb', 'Core helpers'), ('lib_checkpoints.ipynb', 'Checkpoints')):
        (nbs / name).write_text(json.dumps({'cells': [{'cell_type': 'markdown', 'source': [f'# {title}\n', '\n', '> s']}]}))
    (site / 'core.html').write_text('<h1 class="title">Core helpers</h1>')
    assert check_site.problems(site, nbs) == [f"lib_checkpoints.ipynb: no page {site / 'lib_checkpoints.html'}"]
    (site / 'lib_checkpoints.html').write_text('<h1>something else</h1>')
    assert check_site.problems(site, nbs) == [f"lib_checkpoints.ipynb: {site / 'lib_checkpoints.html'} does not show its title 'Checkpoints'"]
    (site / 'lib_checkpoints.html').write_text('<h1>Checkpoints</h1>')
    assert check_site.problems(site, nbs) == []

@pytest.mark.slow
@pytest.mark.skipif(os.name != 'posix', reason="builds a venv and a git clone with POSIX paths")
def test_setup_cell_in_a_faked_colab(tmp_path):
    """A fresh venv that sees the machine's packages but not transformer_nb, a faked `google.colab`, and GitHub
    redirected to a local clone: the setup cell clones, installs the package (offline: no index, no build isolation) and
    moves into nbs/, after which the notebook's own checks find their file and the package imports from the clone.
    Run a second time, it does nothing."""
    pytest.importorskip('setuptools', minversion='77', reason="building the package offline, without build isolation, needs setuptools>=77 here")
    clone = tmp_path / 'origin'
    subprocess.run(['git', 'clone', '--quiet', '--depth', '1', f'file://{ROOT}', str(clone)], check=True)
    env_dir = tmp_path / 'venv'
    venv.create(env_dir, with_pip=False)
    py = env_dir / 'bin' / 'python'
    purelib = Path(subprocess.run([str(py), '-c', 'import sysconfig; print(sysconfig.get_paths()["purelib"])'],
                                  capture_output=True, text=True, check=True).stdout.strip())
    # the machine's packages as plain paths (their .pth files, such as an editable transformer_nb, are not processed)
    machine = [p for p in sys.path if p.endswith(('site-packages', 'dist-packages')) and Path(p).is_dir()]
    (purelib / 'machine.pth').write_text('\n'.join(machine) + '\n')
    fake = tmp_path / 'fake'; (fake / 'google' / 'colab').mkdir(parents=True)
    (fake / 'google' / 'colab' / '__init__.py').write_text('')
    work = tmp_path / 'content'; work.mkdir()
    nb = json.loads((ROOT / 'nbs' / '06_model.ipynb').read_text(encoding='utf-8'))
    setup = next(''.join(c['source']) for c in nb['cells'] if c.get('id') == colab.SETUP_ID)
    url = colab.project()['url']
    program = (f"import sys; sys.path.append({str(fake)!r}); import google.colab\n"            # what Colab's kernel imports
               f"import importlib.util; assert importlib.util.find_spec('transformer_nb') is None, 'importable before the cell'\n"
               f"exec({setup!r})\nexec({setup!r})\n"                                               # twice: the second does nothing
               "import os, transformer_nb; from transformer_nb.lib.machine import NotebookFile\n"
               "print(os.getcwd()); print(transformer_nb.__file__); print(len(NotebookFile('06_model.ipynb').text))\n")
    env = {k: v for k, v in os.environ.items() if k not in ('PYTHONPATH', 'PYTHONHOME', 'VIRTUAL_ENV')}
    env.update(PIP_NO_INDEX='1', PIP_NO_BUILD_ISOLATION='0',     # pip reads '0' here as --no-build-isolation
               PIP_DISABLE_PIP_VERSION_CHECK='1', GIT_CONFIG_COUNT='1', GIT_CONFIG_KEY_0=f'url.file://{clone}.insteadOf', GIT_CONFIG_VALUE_0=url)
    r = subprocess.run([str(py), '-c', program], cwd=work, env=env, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-3000:]
    cwd, where, n_cells = r.stdout.strip().splitlines()[-3:]
    assert Path(cwd) == work / url.split('/')[-1] / 'nbs'
    assert Path(where).resolve().is_relative_to(env_dir.resolve()), where          # installed into the venv, from the clone
    assert int(n_cells) > 10 and r.stdout.count('Running every cell takes') == 1     # its time: one line, printed once
