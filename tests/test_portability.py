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


# ---- float comparisons that another CPU cannot break ----------------------------------------------------------------
# A CPU's kernels add in their own order (vector width, BLAS blocking, a batch of another shape), so a float computed two
# ways agrees only to rounding, and how far depends on the magnitude and on how many terms were summed. A check compares
# floats with `lib.machine.rounding_tol(magnitude, terms)`, derived from the computation, never with a tolerance tuned on
# one machine. The scan below finds, in every notebook's code and every test, each comparison that uses an ABSOLUTE
# tolerance under 1e-4 (fastcore's `test_close`, whose eps is absolute, by default 1e-5; `allclose`, `isclose`,
# `assert_close`, `assert_allclose` with rtol=0; `abs(a - b) < eps` written out; and wrappers that take such an eps).
# Each must be listed: in ABOVE_ONE, for values above 1 in magnitude, with the reason a CPU cannot break it; or in
# AT_MOST_ONE, where the values compared are at most 1 (there an absolute tolerance is at least as wide as the same
# relative one). An unlisted one fails; so does a listed one that is gone.
TOL_LIMIT = 1e-4
COMPARE = {'test_close', 'is_close', 'allclose', 'isclose', 'assert_close', 'assert_allclose'}
ABSOLUTE_ONLY = {'test_close': 1e-5, 'is_close': 1e-5}             # fastcore's: |a - b| < eps, no relative part
ABS_KW, REL_KW = ('eps', 'atol', 'abs_tol'), ('rtol', 'rel_tol')

def _sources():
    "(file, code) of every notebook code cell (its %magic and !shell lines blanked) and every Python file under tests/."
    for nb in NBS:
        for c in cells(nb):
            if c['cell_type'] == 'code':
                yield f"nbs/{nb.name}", '\n'.join('' if l.lstrip().startswith(('%', '!')) else l for l in ''.join(c['source']).splitlines())
    for f in sorted((ROOT / 'tests').rglob('*.py')): yield str(f.relative_to(ROOT)), f.read_text(encoding='utf-8')

def _name(f): return f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else None

def _number(node, env):
    "The value of `node` if it is a number, arithmetic of numbers, or a name bound to one in the same file; else None."
    if isinstance(node, ast.Name): return env.get(node.id)
    if not all(isinstance(n, (ast.Constant, ast.UnaryOp, ast.BinOp, ast.operator, ast.unaryop, ast.expr_context)) for n in ast.walk(node)): return None
    try: v = eval(compile(ast.Expression(node), '<tol>', 'eval'), {'__builtins__': {}})
    except Exception: return None
    return float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else None

def _is_difference(node) -> bool:
    "abs(a - b), (a - b).abs(), and either's .max() / .amax() / .item(), or max(...) of them."
    while isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in ('max', 'item', 'amax'):
        node = node.func.value
    if isinstance(node, ast.Call) and _name(node.func) == 'max' and node.args: node = node.args[0]
    if isinstance(node, (ast.GeneratorExp, ast.ListComp)): return _is_difference(node.elt)
    sub = lambda n: isinstance(n, ast.BinOp) and isinstance(n.op, ast.Sub)
    if isinstance(node, ast.Call) and _name(node.func) == 'abs' and node.args: return sub(node.args[0])
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == 'abs' and sub(node.func.value)

def absolute_tolerances(sources=None) -> list[tuple[str, str, float]]:
    "(file, the comparison as written, its absolute tolerance) for every float comparison with an absolute tolerance under 1e-4."
    files = {}
    for f, src in (sources if sources is not None else _sources()):
        try: files.setdefault(f, []).append((src, ast.parse(src)))
        except SyntaxError: pass
    out = []
    for f, parts in files.items():
        env, wrappers = {}, {}
        for src, tree in parts:                                          # numbers bound to names; functions that take a tolerance on
            for n in ast.walk(tree):
                if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name) and (v := _number(n.value, {})) is not None:
                    env[n.targets[0].id] = v
                if isinstance(n, ast.FunctionDef):
                    tol = [a.arg for a in n.args.args + n.args.kwonlyargs if a.arg in ABS_KW + ('tol',)]
                    if tol and any((isinstance(c, ast.Call) and _name(c.func) in COMPARE) or (isinstance(c, ast.Compare) and _is_difference(c.left)) for c in ast.walk(n)):
                        wrappers[n.name] = tol
        def found(src, node, val, text=None):
            if val is not None and val < TOL_LIMIT: out.append((f, text or ' '.join(ast.get_source_segment(src, node).split()), val))
        for src, tree in parts:
            for n in ast.walk(tree):
                if isinstance(n, ast.FunctionDef) and n.name in wrappers:        # a wrapper's own default
                    args = n.args.args
                    for a, d in zip(args[len(args) - len(n.args.defaults):], n.args.defaults):
                        if a.arg in wrappers[n.name]: found(src, d, _number(d, env), f"def {n.name}(..., {a.arg}={ast.unparse(d)})")
                elif isinstance(n, ast.Compare) and len(n.ops) == 1 and isinstance(n.ops[0], (ast.Lt, ast.LtE)) and _is_difference(n.left):
                    found(src, n, _number(n.comparators[0], env))
                elif isinstance(n, ast.Call) and (fn := _name(n.func)) in COMPARE | set(wrappers):
                    kw = {k.arg: k.value for k in n.keywords if k.arg}
                    if fn in ABSOLUTE_ONLY:
                        found(src, n, _number(kw['eps'], env) if 'eps' in kw else _number(n.args[2], env) if len(n.args) > 2 else ABSOLUTE_ONLY[fn])
                    elif fn in COMPARE:
                        if any(k in kw and _number(kw[k], env) == 0 for k in REL_KW):
                            found(src, n, next((_number(kw[k], env) for k in ABS_KW if k in kw), 0.0))
                    elif given := [kw[k] for k in wrappers[fn] if k in kw]: found(src, n, _number(given[0], env))
    return out

def test_the_scan_finds_each_kind_of_absolute_tolerance():
    src = ("test_close(a, b)\ntest_close(a, b, eps=1e-6)\ntest_close(a, b, eps=rounding_tol(b, 64))\ntest_close(a, b, 1e-3)\n"
           "torch.allclose(a, b, atol=1e-9, rtol=0)\ntorch.allclose(a, b, atol=1e-9)\nassert abs(x - y) < 1e-6\n"
           "assert (x - y).abs().max() <= 2 ** -20\nassert abs(x - y) < tol\nE = 1e-7\nnp.isclose(a, b, rtol=0, atol=E)\n"
           "def near(a, b, eps=1e-5): assert abs(a - b) < eps\nnear(x, y, eps=0.01)\nnear(x, y, eps=1e-8)\n")
    got = sorted(t for _, t, _ in absolute_tolerances([('f.py', src)]))
    assert got == sorted(['test_close(a, b)', 'test_close(a, b, eps=1e-6)', 'torch.allclose(a, b, atol=1e-9, rtol=0)', 'abs(x - y) < 1e-6',
                          '(x - y).abs().max() <= 2 ** -20', 'np.isclose(a, b, rtol=0, atol=E)', 'def near(..., eps=1e-05)',
                          'near(x, y, eps=1e-8)']), got                 # not: a derived eps, 1e-3, a relative part, a name, 0.01

def test_every_tight_absolute_tolerance_is_listed_with_its_reason():
    found = {t: f for f, t, _ in absolute_tolerances()}
    unlisted = sorted(f"{f}: {t}" for t, f in found.items() if t not in ABOVE_ONE and t not in AT_MOST_ONE)
    assert not unlisted, ("absolute tolerances under 1e-4 that no list justifies (compare with lib.machine.rounding_tol("
                          "magnitude, terms), derived from the computation, or list the check with its reason):\n" + '\n'.join(unlisted))
    gone = sorted((set(ABOVE_ONE) | set(AT_MOST_ONE)) - set(found))
    assert not gone, "listed, but no such comparison is left (remove it from the list):\n" + '\n'.join(gone)
    assert not set(ABOVE_ONE) & set(AT_MOST_ONE) and all(len(why) > 40 for why in ABOVE_ONE.values())

F64_ROUND = "float64, whose unit roundoff is 1.1e-16: "
ABOVE_ONE = {   # the comparison as written: why an absolute tolerance under 1e-4 on values above 1 cannot break on another CPU
    # 05_positional_encoding
    'test_close(expected, expected.flip(0))':
        F64_ROUND + "sums of 64 cosines at most 1 (pe_frequencies is float64), so rounding moves them by ~2·64·u·64 ≈ 1e-12, far below 1e-5",
    'test_close(G[p, p + ks[ks < 200 - p]], expected[ks < 200 - p], eps=1e-9)':
        F64_ROUND + "a 128-term Gram sum of sinusoids at angles up to 200 radians: ~2·128·u·200 ≈ 6e-12 at most, below 1e-9",
    # 07_why_self_attention
    "test_close(f['recurrent'] / f['self-attention'], 512 / 30)":
        "integer FLOP counts: both sides are the correctly rounded float64 quotient of the same rational number, d / n = 512 / 30",
    # 10_decoding, lib_checkpoints
    "test_close(same['model'][k], v, eps=1e-7)":
        "the average of a checkpoint with itself: (p + p) / 2 is p exactly in binary floating point, whatever the kernel",
    # 11_results, lib_significance
    "test_close(bleu, BLEU(tokenize='none', smooth_method='none').corpus_score([hyp], [[ref]]).score, eps=1e-9)":
        F64_ROUND + "BLEU of one sentence's counts, four logs and one exp: ~1e-14 of 42 at most, far below 1e-9",
    'test_close(s.score, 100 * math.exp(1 - 10 / 9) * (7 / 9 * 4 / 7 * 2 / 5 * 1 / 3) ** 0.25, eps=1e-9)':
        F64_ROUND + "BLEU of two sentences' counts, a few logs and one exp: ~1e-14 of 44 at most, far below 1e-9",
    # 13_parsing
    'test_close(fig.get_size_inches(), (0.6 * 13, 6))':
        "the figure's size as it was set, 0.6 × 13 and 6 inches: the same float64 values, with no arithmetic between them",
    # course_exercises: the checkers
    'abs(c - 1) < 1e-6':
        "a hint's heuristic, not a pass or a fail: it only decides whether a learner's wrong gradient is named as a scale factor of PyTorch's",
    'test_close(_model_variant(tm, rule=lambda n, x, f: n(x) + f(x)).encoder[0].sub[0](x30, torch.sin), tm.encoder[0].sub[0].norm(x30) + x30.sin())':
        "the same two operations (the layer norm, then sin) on the same tensor, through a variant that shares the module: bit-identical",
    'abs(2 * e - round(2 * e)) < 1e-6':
        F64_ROUND + "a checker's test whether an exponent it recovered (a ratio of float64 logs of small integers) is a multiple of 1/2: ~1e-15 from it when it is",
    'abs(2 * (ew := math.log(k) / math.log(w)) - round(2 * ew)) < 1e-6':
        F64_ROUND + "a checker's test whether a ratio of float64 logs of small integers is a multiple of 1/2: ~1e-15 from it when it is",
    'abs(2 * b - round(2 * b)) < 1e-6':
        F64_ROUND + "a checker's test whether the power of warmup in a warm-up term is a multiple of 1/2: a float64 ratio of two logs of small integers' powers, ~1e-15 from it when it is",
    'abs(u - round(u)) < 1e-6':
        F64_ROUND + "a checker's test whether the warm-up its formula implies is a whole number of steps: float64 powers of small integers, ~1e-12 from it when it is",
    'abs(x - right) < 1e-6':
        F64_ROUND + "a learner's precision, recall or F1 in percent (counts below 100) against the scorer's: another order of the same few float64 operations, ~1e-14 apart",
    'abs(x - forms[name] / 100) < 1e-6':
        F64_ROUND + "a learner's score against the scorer's, divided by 100: a few float64 operations on small counts, ~1e-14 apart",
    'abs(x - round(v, k)) < 1e-9':
        "a hint's heuristic, not a pass or a fail: whether a learner's number equals the right one rounded to k decimals, both float64 from small counts",
    'abs(float(x) - y) < 1e-6':
        F64_ROUND + "a learner's precision, recall or F1 in percent from small counts against lib.treebank's prf: ~1e-14 apart",
    'abs(x - y) < 1e-6':
        F64_ROUND + "a learner's corpus precision, recall or F1 in percent from small counts against lib.treebank's prf: ~1e-14 apart",
    # lib_benchmarks
    "test_close(r['ratio'], r['three_ms'] / r['one_ms'])":
        "the same float64 division of the same two timings that the function made: equal to the last bit",
    # lib_fast_decoding
    'test_close(log_probs(torch.tensor([[1e4, 0.]])), torch.tensor([[0., -1e4]]))':
        "exact on every CPU: exp(-1e4) underflows to 0, so the log-softmax of [1e4, 0] is [0, -1e4] to the last bit",
    # lib_layers
    'test_close(2 * s_scaled, s_dot)':
        "scaling by 1/sqrt(d_k) = 1/2, a power of two, is exact: twice the scaled scores are the dot products to the last bit",
    # lib_trainer
    "test_close((f['loss'], f['nll']), (rec['tot'][0].item() / rec['n'], rec['tot'][1].item() / rec['n']), eps=1e-6)":
        "the same float64 division of the same two numbers (a float32 sum read back exactly, and a token count): equal to the last bit",
    "test_close(v['ppl'], math.exp(v['nll']), eps=1e-6)":
        "the perplexity is math.exp of the same float64 NLL that evaluate returns: equal to the last bit",
    # lib_treebank
    'test_close(prf(6, 6, 7), (600 / 7, 100.0, 2 * (600 / 7) * 100 / (600 / 7 + 100)), eps=1e-9)':
        F64_ROUND + "percentages of counts below 10, the same few operations in another order: an ulp or two of 100, ~1e-14",
    'test_close(my_bracket_f1(g, t), theirs, eps=1e-6)':
        F64_ROUND + "a learner's precision, recall and F1 in percent from small counts, in whatever order: ~1e-14 from the scorer's",
    # pitfalls
    'test_close(length_penalty(n, 0.6), ((5 + n) / 6) ** 0.6, eps=1e-12)':
        "the length penalty of an int is this very float64 expression, ((5 + n) / 6) ** alpha: equal to the last bit",
    # tests/test_attention.py: float64 throughout (`qkv`)
    'torch.testing.assert_close(out, ref, rtol=0, atol=1e-12)':
        F64_ROUND + "attention of 5 queries over 5 keys with d = 8 against PyTorch's: ~2·18·u·2.6 ≈ 1e-14, below 1e-12",
    'torch.testing.assert_close(fused, ref, rtol=0, atol=1e-12)':
        F64_ROUND + "PyTorch's fused attention against the reference, d = 8 and 5 keys: ~1e-14, below 1e-12",
    'torch.testing.assert_close(fn(q, k2, v2, m), out, rtol=0, atol=1e-12)':
        F64_ROUND + "masked keys changed: their weights are exactly 0, and the rest is the same float64 sum, ~1e-14 at most",
    'torch.testing.assert_close(F.scaled_dot_product_attention(q, k, v, attn_mask=bias), attention(q, k, v, m)[0], rtol=0, atol=1e-12)':
        F64_ROUND + "a 0/-inf bias against a boolean mask, d = 8 and 5 keys: ~1e-14, below 1e-12",
    'torch.testing.assert_close(F.scaled_dot_product_attention(q, k, v, attn_mask=b), by_hand, rtol=0, atol=1e-12)':
        F64_ROUND + "PyTorch's attention against the same equation by hand, d = 8 and 5 keys: ~1e-14, below 1e-12",
    'torch.testing.assert_close(add(q, k, v2, m)[0], out, rtol=0, atol=0)':
        "a masked value gets weight exactly 0 on every CPU (its score is -inf), so it adds exactly 0: bit-identical",
    'torch.testing.assert_close(a, s, rtol=0, atol=1e-10)':
        F64_ROUND + "gradients of attention, d = 8 and 5 keys, through two kernels: ~2·40·u·3.7 ≈ 3e-14, far below 1e-10",
    'torch.testing.assert_close(out2[0, :t], out[0, :t], rtol=0, atol=1e-12)':
        F64_ROUND + "the same causal attention over a longer input, d = 8: the positions before t differ by ~1e-14 at most",
    # tests/test_blocks.py
    'torch.testing.assert_close(pe[pos] @ M.T, pe[pos + k], rtol=0, atol=1e-9)':
        F64_ROUND + "a 2×2 rotation of sinusoids at angles up to 400 radians: the angle's rounding, ~400·u ≈ 5e-14, far below 1e-9",
    'torch.testing.assert_close(M @ M.T, torch.eye(d_model, dtype=torch.float64), rtol=0, atol=1e-12)':
        F64_ROUND + "2×2 rotation blocks: cos² + sin² is 1 to a few ulps, ~1e-16, far below 1e-12",
    # tests/test_decoding.py
    'abs(length_penalty(20, 0.6) - (25 / 6) ** 0.6) < 1e-12':
        "the length penalty of an int is this very float64 expression, ((5 + n) / 6) ** alpha: equal to the last bit",
    'abs(s - teacher_forced_score(model, row, ids, alpha, ended)) < 1e-6':
        F64_ROUND + "the model fixture is float64: the search's score and the teacher-forced one differ by ~1e-13 (score_tol in float64), far below 1e-6",
    # tests/test_multihead.py
    'assert_close(k2[:, :, :3], k[a[b]], rtol=0, atol=0)':
        "rows selected by index are copies of the same values: exact on every CPU",
    'assert_close(v2[:, :, :3], v[a[b]], rtol=0, atol=0)':
        "rows selected by index are copies of the same values: exact on every CPU",
}

AT_MOST_ONE = {   # the comparison as written: the file it is in, and the largest |value| it compared where it ran (at most 1)
    'test_close(_rotate_odd(q, 0)[0][1], q)': ('nbs/course_since2017.ipynb', 1),
    'test_close(_rotate_odd(q, 1)[1][1], _turn_pairs(q.double(), torch.tensor([0.01, 1e-4], dtype=torch.float64)))': ('nbs/course_since2017.ipynb', 1),
    'test_close(w, e / e.sum(-1, keepdim=True), eps=1e-12)': ('nbs/01_attention.ipynb', 0.427),
    'test_close(w.sum(-1), torch.ones(B, n_q))': ('nbs/01_attention.ipynb', 1),
    'test_close(w[0], torch.tensor([1/(1+math.e), math.e/(1+math.e), 0.]))': ('nbs/01_attention.ipynb', 0.731),
    'test_close(fast(x, mask=causal_mask(5)), mha(x, mask=causal_mask(5)), eps=1e-5)': ('nbs/02_multihead.ipynb', 0.836),
    'test_close(fast(x, mem), mha(x, mem), eps=1e-5)': ('nbs/02_multihead.ipynb', 0.836),
    'test_close(mha(x, m_), by_hand(mha, x, m_), eps=1e-5)': ('nbs/02_multihead.ipynb', 0.45),
    'test_close(mha(x, mask=keep), ref(x, x, x, key_padding_mask=~keep[:, 0, 0], need_weights=False)[0], eps=1e-5)': ('nbs/02_multihead.ipynb', 0.536),
    'test_close(mha(xs2, mask=pad_mask(src))[1, :3], mha(xs, mask=pad_mask(src))[1, :3], eps=1e-5)': ('nbs/02_multihead.ipynb', 0.496),
    'test_close(ref(x, x, x, key_padding_mask=~keep[:, 0, 0])[1], w.mean(1), eps=1e-5)': ('nbs/02_multihead.ipynb', 0.4),
    'test_close(w, w_ref, eps=1e-5)': ('nbs/02_multihead.ipynb', 0.663),
    'test_close(y, y_ref, eps=1e-5)': ('nbs/02_multihead.ipynb', 0.663),
    'test_close(y2[:, :t], y[:, :t], eps=1e-6)': ('nbs/02_multihead.ipynb', 0.946),
    'test_close(yf, fig_mha(xq, xm), eps=1e-5)': ('nbs/02_multihead.ipynb', 0.433),
    'test_close(emb(t)[0, 2], torch.zeros(8))': ('nbs/04_embeddings.ipynb', 0),
    'test_close(pe64[:-k] @ pe_shift_matrix(k, d).T, pe64[k:], eps=1e-9)': ('nbs/05_positional_encoding.ipynb', 1),
    'test_close(pe[pos, 2*i + 1], math.cos(angle), eps=1e-6)': ('nbs/05_positional_encoding.ipynb', 1),
    'test_close(pe[pos, 2*i], math.sin(angle), eps=1e-6)': ('nbs/05_positional_encoding.ipynb', 1),
    'test_close(w[-1], 10000 ** (-510 / 512))': ('nbs/05_positional_encoding.ipynb', 0.000104),
    'test_close(w[0], 1.0)': ('nbs/05_positional_encoding.ipynb', 1),
    'test_close([noam_lr(0), noam_lr(4000)], [0.0, 512 ** -0.5 * 4000 ** -0.5], eps=1e-12)': ('nbs/09_training.ipynb', 0.000699),
    'test_close(a, b, eps=1e-5)': ('nbs/09_training.ipynb', 0.215),
    "test_close(opt.param_groups[0]['lr'], noam_lr(s, 64, 10), eps=1e-12)": ('nbs/09_training.ipynb', 0.0395),
    "test_close(enc_attn, torch.stack(maps['encoder'])[:, 0], eps=1e-5)": ('nbs/apps_export.ipynb', 1),
    "test_close(full[1 + 2 * N + i][0], maps['decoder'][i][0], eps=1e-5)": ('nbs/apps_export.ipynb', 1),
    "test_close(full[1 + 3 * N + i][0], maps['cross'][i][0], eps=1e-5)": ('nbs/apps_export.ipynb', 1),
    "test_close(steps[-1][1 + 2 * N + i][0, :, 0], maps['decoder'][i][0][:, -1], eps=1e-5)": ('nbs/apps_export.ipynb', 1),
    'test_close(_HEADS_MADE_UP.sum(-1), torch.ones(4, 3))': ('nbs/course_exercises.ipynb', 1),
    'test_close(_Unscaled(e)(torch.tensor([5])), e(torch.tensor([5])) / e.scale)': ('nbs/course_exercises.ipynb', 0.532),
    'test_close(_mha_variant(mha, x16), mha(x16), eps=1e-5)': ('nbs/course_exercises.ipynb', 0.482),
    'test_close(_pe_table(3, 4, multiply=True)[2, 2], math.sin(2 * 100.0))': ('nbs/course_exercises.ipynb', 0.873),
    'test_close(_pe_table(50, 16), sinusoidal_encoding(50, 16), eps=1e-12)': ('nbs/course_exercises.ipynb', 1),
    "test_close(avg['model']['encoder.0.ffn.w_1.weight'], torch.stack([s['encoder.0.ffn.w_1.weight'] for s in snaps]).mean(0))": ('nbs/lib_checkpoints.ipynb', 0.283),
    'test_close(search()[1], (math.log(0.45) + 4 * math.log(0.99) + math.log(0.98)) / length_penalty(7))': ('nbs/lib_fast_decoding.ipynb', 0.57),
    'test_close(search(alpha=1.0)[1], lp45 / length_penalty(7, 1.0))': ('nbs/lib_fast_decoding.ipynb', 0.48),
    "test_close(search(stop='early')[1], math.log(0.5) / length_penalty(2))": ('nbs/lib_fast_decoding.ipynb', 0.63),
    'test_close(add.scores(q, k).softmax(-1), add(q, k, v)[1])': ('nbs/lib_layers.ipynb', 0.268),
    'test_close(sc(q, k), sc.add.scores(q, k))': ('nbs/lib_layers.ipynb', 0.384),
    'test_close(w[1, 2], torch.stack([e_hand(1, 2, j) for j in range(5)]).softmax(-1))': ('nbs/lib_layers.ipynb', 0.262),
    'test_close(ax.patches[0].get_width(), -1.0)': ('nbs/lib_scoring.ipynb', 1),
    'test_close(ax.patches[1].get_width(), -0.9)': ('nbs/lib_scoring.ipynb', 1),
    "test_close(torch.tensor(fig.axes[1].images[0].get_array().data), back['maps']['cross'][0][3])": ('nbs/lib_scoring.ipynb', 0.838),
    'test_close(x.grad, lin.weight.sum(0).expand(5, 2, 4))': ('nbs/lib_speed.ipynb', 0.816),
    'test_close(rates_of(22), [noam_lr_with_cooldown(i + 1, 64, 10, 0.5, 20, 4) for i in range(22)], eps=1e-12)': ('nbs/lib_trainer.ipynb', 0.0198),
    "test_close(snaps[-1]['generator.proj.weight'], m.generator.proj.weight)": ('nbs/lib_trainer.ipynb', 0.673),
    'test_close(length_penalty(1, 0.6), 1.0)': ('nbs/pitfalls.ipynb', 1),
    'test_close(mha(x, mask=allowed), torch_mha(x, ~allowed), eps=1e-5)': ('nbs/pitfalls.ipynb', 0.913),
    'test_close(y_post.mean(-1), torch.zeros(2, 5), eps=1e-5)': ('nbs/pitfalls.ipynb', 5.96e-08),
    "test_close(loss_test['baseline'], g['word_loss'](g['model']).mean().item(), eps=1e-5)": ('tests/prose/10_decoding.py', 0.835),
    'test_close(spe(x) - x, sinusoidal_encoding(20, 16).float().expand(2, 20, 16))': ('nbs/05_positional_encoding.ipynb', 1),
    'test_close(sum(p.prob() for p in g.productions(lhs=lhs)), 1.0, eps=1e-9)': ('nbs/apps_parsing_task.ipynb', 1),
    'test_close(w.sum(-1), torch.ones(2, 3))': ('nbs/lib_layers.ipynb', 1),
    "test_close(maps_m['encoder'][1].sum(-1), torch.ones(2, 4, 4))": ('nbs/lib_scoring.ipynb', 1),
}


# ---- every test leaves the process as it found it -------------------------------------------------------------------
def test_a_test_that_leaves_the_process_changed_is_named_and_the_change_undone(tmp_path, monkeypatch):
    "conftest's check after every test (`leaves_the_process_as_found`): a handler, a thread and the working folder left behind are each named, and put back."
    import signal, threading
    import conftest
    before = conftest.process_state()
    signal.signal(signal.SIGUSR1, lambda sig, frame: None)
    stop = threading.Event(); t = threading.Thread(target=stop.wait, name='left-running'); t.start()
    os.chdir(tmp_path)
    monkeypatch.setattr(conftest, 'THREAD_GRACE_S', 0.2)
    try: leaked = conftest.restore_process_state(before)
    finally: stop.set(); t.join(10)
    assert len(leaked) == 3, leaked
    assert leaked[0].startswith('the handler of SIGUSR1 is test_portability.') and leaked[0].endswith('was SIG_DFL'), leaked
    assert "thread 'left-running' (Thread, running " in leaked[1] and f"the working folder is {tmp_path}" in leaked[2], leaked
    assert signal.getsignal(signal.SIGUSR1) == signal.SIG_DFL and os.getcwd() == before['cwd']   # put back
    assert conftest.restore_process_state(conftest.process_state()) == []                        # nothing changed: nothing said
