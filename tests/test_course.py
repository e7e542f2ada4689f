"""The shape of the course: the paper path reads §3 to §6.3 in order, each paper notebook stays short enough to read
(at most 70 cells and 5,000 words of prose, the Colab cells counted; at most 2,000 words before "Going deeper"), and every notebook links its neighbours by their `.ipynb` names, which
work in Jupyter and which Quarto turns into the site's pages."""
import ast, json, re
from pathlib import Path
import pytest

NBS = Path(__file__).resolve().parents[1] / 'nbs'
PAPER = sorted(p for p in NBS.glob('[0-9][0-9]_*.ipynb'))

COLAB = ('colab-badge', 'colab-setup')      # the same two cells in every notebook (tools/colab.py): not the course's text

def cells(p): return [c for c in json.loads(p.read_text(encoding='utf-8'))['cells'] if c.get('id') not in COLAB]
def all_cells(p): return json.loads(p.read_text(encoding='utf-8'))['cells']
def words(cs:list) -> int:
    "Words of the markdown cells, counted as runs of word characters (formulas, code spans and links included)."
    return len(re.findall(r'\w+', '\n'.join(''.join(c['source']) for c in cs if c['cell_type'] == 'markdown')))

def test_the_paper_path_is_complete_and_in_order():
    assert [p.name[:2] for p in PAPER] == ['00', '01', '02', '03', '04', '05', '06', '07', '08', '09', '10', '11', '12', '13', '14']

# A paper notebook's length is counted over every cell, the two Colab cells included (a learner scrolls past them
# too): at most 70 cells (exported cells a screen at most: more, shorter cells) and 5,000 words of prose.
CELLS_MAX, PROSE_MAX = 70, 5000

def length_problems(cs:list) -> list[str]:
    "What is over the caps in a paper notebook's cells `cs` (all of them): the number of cells, the words of prose."
    n, w = len(cs), words(cs)
    return ([f"{n} cells (at most {CELLS_MAX})"] if n > CELLS_MAX else []) + \
           ([f"{w:,} words of prose (at most {PROSE_MAX:,})"] if w > PROSE_MAX else [])

BADGE = ('<a href="https://colab.research.google.com/github/o/r/blob/main/nbs/01_x.ipynb"><img '
         'src="https://colab.research.google.com/assets/colab-badge.svg" alt="Open In Colab"></a>')

def test_the_length_caps_can_fail():
    md = lambda s, cid='x': {'cell_type': 'markdown', 'id': cid, 'source': [s]}
    badge = md(BADGE, 'colab-badge')
    assert length_problems([badge] + [md('w')] * (CELLS_MAX - 1)) == []
    assert length_problems([badge] + [md('w')] * CELLS_MAX) == [f"{CELLS_MAX + 1} cells (at most {CELLS_MAX})"]  # the badge counts
    assert length_problems([md('w ' * PROSE_MAX)]) == []
    assert length_problems([md('w ' * PROSE_MAX), badge]) == [f"{PROSE_MAX + words([badge]):,} words of prose (at most {PROSE_MAX:,})"]

@pytest.mark.parametrize('p', PAPER, ids=lambda p: p.stem)
def test_paper_notebooks_stay_short(p):
    assert not length_problems(all_cells(p)), f"{p.name}: {length_problems(all_cells(p))}"

@pytest.mark.parametrize('p', sorted(NBS.glob('*.ipynb')), ids=lambda p: p.stem)
def test_navigation_links_notebooks(p):
    md = [''.join(c['source']) for c in cells(p) if c['cell_type'] == 'markdown']
    links = [l for t in md for l in re.findall(r'\]\(([^)#\s]+)', t) if not l.startswith(('http', 'mailto'))]
    assert not [l for l in links if l.endswith('.html')], f"{p.name} links pages by their .html name"
    for l in links:
        if l.endswith('.ipynb'): assert (NBS / l).is_file(), f"{p.name} links {l}, which does not exist"
    if p.stem != 'index': assert '(index.ipynb)' in md[1] and '(index.ipynb)' in md[-1], f"{p.name}: no navigation at the top and bottom"

# The appendix notebooks read like the paper ones: short cells, and each exported cell shown at work at once.
APPENDIX = sorted(p for w in ('lib', 'apps', 'course') for p in NBS.glob(f'{w}_*.ipynb'))   # the wings' notebooks
CHECKS = re.compile(r'\b(test_eq|test_ne|test_close|test_fail|test_is|test_eq_type|test_shuffled|assert)\b')

def imports_only(s:str) -> bool:
    "True for a cell of import statements alone (the module's imports, shown at work by every cell after them)."
    body = '\n'.join(l for l in s.splitlines() if not l.startswith('#|'))
    try: return all(isinstance(n, (ast.Import, ast.ImportFrom)) for n in ast.parse(body).body)
    except SyntaxError: return False

def appendix_problems(cs:list) -> list[str]:
    "Code cells over 40 lines, and `#| export` cells (but imports) not followed at once by a code cell that checks something (export cells in a row share it)."
    out = []
    for i, c in enumerate(cs):
        if c['cell_type'] != 'code': continue
        s = ''.join(c['source'])
        if len(s.splitlines()) > 40: out.append(f"cell {i}: {len(s.splitlines())} lines")
        if re.search(r'^#\|\s*export', s, re.M) and not imports_only(s):
            j = i + 1                                 # export cells in a row (one definition group split by its directive: `#| exporti`) share the check after them
            while j < len(cs) and cs[j]['cell_type'] == 'code' and re.search(r'^#\|\s*exporti?\s*$', ''.join(cs[j]['source']), re.M) and not imports_only(''.join(cs[j]['source'])): j += 1
            nxt = cs[j] if j < len(cs) else None
            shown = nxt is not None and nxt['cell_type'] == 'code' and not re.search(r'^#\|\s*export', ''.join(nxt['source']), re.M)
            if not (shown and CHECKS.search(''.join(nxt['source']))): out.append(f"cell {i}: an export not followed by a check")
    return out

def test_the_appendix_check_can_fail():
    code = lambda s: {'cell_type': 'code', 'source': [s]}
    md = {'cell_type': 'markdown', 'source': ['words']}
    assert appendix_problems([code('#| export\ndef f(): pass'), code('test_eq(f(), None)')]) == []
    assert appendix_problems([code('#| export\ndef f(): pass'), md, code('test_eq(f(), None)')]) == ['cell 0: an export not followed by a check']
    assert appendix_problems([code('#| export\ndef f(): pass'), code('f()')]) == ['cell 0: an export not followed by a check']
    assert appendix_problems([code('x = 1\n' * 41)]) == ['cell 0: 41 lines']
    assert appendix_problems([code('#| export\nimport os\nfrom pathlib import Path'), md]) == []
    assert appendix_problems([code('#| export\ndef f(): pass'), code('#| exporti\ndef g(): pass'), code('test_eq(g(), f())')]) == []
    assert appendix_problems([code('#| export\ndef f(): pass'), code('#| exporti\ndef g(): pass'), md]) == ['cell 0: an export not followed by a check', 'cell 1: an export not followed by a check']

@pytest.mark.parametrize('p', APPENDIX, ids=lambda p: p.stem)
def test_appendix_cells_are_short_and_every_export_is_shown(p):
    assert not appendix_problems(cells(p)), f"{p.name}: {appendix_problems(cells(p))}"

# Proof out of the learner's way: Jupyter and Colab show `#| hide` cells (the site does not), so hidden code, the Colab
# setup cell included, stays a small share of each paper notebook's code lines, and the whole path's hidden lines a
# count that may only fall (a share of the path would grow each time a main line gets shorter).
HIDDEN_MAX, PATH_HIDDEN_LINES_MAX = 0.10, 150   # 140 for 00-13, and 14_since_2017's 10 (its Colab, threads and prose cells)

def code_lines(cells:list) -> tuple[int, int]:
    "(code lines, hidden code lines) of a notebook's cells: lines of every code cell, and of those with `#| hide`."
    srcs = [''.join(c['source']) for c in cells if c['cell_type'] == 'code']
    n = sum(len(s.splitlines()) for s in srcs)
    return n, sum(len(s.splitlines()) for s in srcs if re.search(r'^#\|\s*hide', s, re.M))

def test_the_hidden_line_count_can_fail():
    code = lambda s: {'cell_type': 'code', 'source': [s]}
    cs = [code('#| hide\na = 1\nb = 2'), code('x = 1\n' * 7), {'cell_type': 'markdown', 'source': ['#| hide\ntext']}]
    assert code_lines(cs) == (10, 3)                  # 30% hidden: over the budget
    assert code_lines([code('#| export\n#|  hide\nx = 1'), code('# not hidden: #| hide')]) == (4, 3)

@pytest.mark.parametrize('p', PAPER, ids=lambda p: p.stem)
def test_hidden_code_is_at_most_a_tenth_of_a_paper_notebook(p):
    n, h = code_lines(all_cells(p))
    assert h <= HIDDEN_MAX * n, f"{p.name}: {h} of {n} code lines hidden ({100 * h / n:.1f}%, at most {100 * HIDDEN_MAX:.0f}%)"

def test_the_paper_path_hides_at_most_its_bound_of_code_lines():
    counts = {p.name: code_lines(all_cells(p)) for p in PAPER}
    n, h = sum(n for n, _ in counts.values()), sum(h for _, h in counts.values())
    worst = sorted(counts, key=lambda k: -counts[k][1])[:3]
    assert h <= PATH_HIDDEN_LINES_MAX, (f"the paper path hides {h} of {n} code lines, at most {PATH_HIDDEN_LINES_MAX}; "
                                        "most hidden: " + ', '.join(f"{k} {counts[k][1]}" for k in worst))

# Each notebook's prose checks run from one hidden cell that `exec`s its file in tests/prose/ as UTF-8 (whatever the
# learner's locale), never through `%run`, which prints a failing check's traceback and lets the cell pass.
PROSE_CELL = re.compile(r"#\| hide\nexec\(compile\(open\('\.\./tests/prose/(\w+)\.py', encoding='utf-8'\)\.read\(\), "
                        r"'\.\./tests/prose/\1\.py', 'exec'\)\)")

def prose_runs(p) -> list[str]:
    "The prose files that notebook `p` runs, each checked to run in the one form that fails the cell."
    srcs = [''.join(c['source']) for c in all_cells(p) if c['cell_type'] == 'code' and 'tests/prose/' in ''.join(c['source'])]
    for s in srcs: assert PROSE_CELL.match(s), f"{p.name} runs its prose checks otherwise than by exec as UTF-8:\n{s}"
    return [PROSE_CELL.match(s).group(1) for s in srcs]

def test_the_prose_cell_check_can_fail(tmp_path):
    nb = tmp_path / 'x.ipynb'
    nb.write_text(json.dumps({'cells': [{'cell_type': 'code', 'source': "#| hide\n%run -i ../tests/prose/x.py"}]}))
    with pytest.raises(AssertionError, match='otherwise than by exec'): prose_runs(nb)

def test_every_prose_file_is_run_once_by_its_own_notebook():
    runs = {p.stem: prose_runs(p) for p in sorted(NBS.glob('*.ipynb'))}
    files = sorted(f.stem for f in (NBS.parent / 'tests' / 'prose').glob('*.py'))
    assert sorted(r for rs in runs.values() for r in rs) == files, runs
    assert all(rs in ([], [nb]) for nb, rs in runs.items()), {nb: rs for nb, rs in runs.items() if rs not in ([], [nb])}

# The main line a learner finishes: from the title to the exercises, at most 2,000 words of prose in each paper
# notebook (what goes deeper follows a "Going deeper" heading), counted over every markdown cell before that heading,
# the Colab badge included; 00, the set-up rather than a paper section, at most 600 words of its own text in all, Going
# deeper included (the Colab cells left out). Teaching cells hold the method:
# at most 10 `raise` statements in the exported cells of the paper path's main lines and at most 3 exported cells over
# 30 lines there (a module's input checks, called once at each public entry, follow its notebook's main line under
# "Going deeper", or live in an appendix's module).
GOING_DEEPER = re.compile(r'^#+\s*Going deeper', re.M | re.I)
MAIN_LINE_MAX, CORE_MAX, RAISES_MAX, LONG_MAX, SCREEN = 2000, 600, 10, 5, 50   # SCREEN: about the lines a laptop screen shows of a cell in Jupyter

def main_line(cs:list) -> list:
    "The cells before the first 'Going deeper' heading."
    i = next((i for i, c in enumerate(cs) if c['cell_type'] == 'markdown' and GOING_DEEPER.search(''.join(c['source']))), len(cs))
    return cs[:i]

def main_line_problem(cs:list, most:int=MAIN_LINE_MAX) -> str|None:
    "The words of prose before 'Going deeper' in cells `cs`, if more than `most`."
    n = words(main_line(cs))
    return f"{n:,} words of prose before 'Going deeper' (at most {most:,})" if n > most else None

def exported(cs:list) -> list[str]:
    return [s for c in cs if c['cell_type'] == 'code' and re.match(r'#\|\s*export', s := ''.join(c['source']))]

def raises(srcs:list[str]) -> int:
    "`raise` statements in the cells' code (one-line `if ...: raise` included), counted on the syntax tree."
    body = lambda s: '\n'.join(l for l in s.splitlines() if not l.lstrip().startswith('#|'))
    return sum(isinstance(n, ast.Raise) for s in srcs for n in ast.walk(ast.parse(body(s))))
def long_cells(srcs:list[str]) -> int: return sum(len(s.splitlines()) > 30 for s in srcs)

def test_the_main_line_measures_can_fail():
    md = lambda s: {'cell_type': 'markdown', 'source': [s]}
    code = lambda s: {'cell_type': 'code', 'source': [s]}
    cs = [md('# Title\none two'), md('## Going deeper\nthree four five')]
    assert words(main_line(cs)) == 3 and words(cs) == 8
    src = '#| export\ndef f(x):\n    if x: raise ValueError(x)\n    raise KeyError(x)\n' + 'y = 1\n' * 30
    assert raises(exported([code(src), code('raise X')])) == 2 and long_cells(exported([code(src)])) == 1

def test_the_main_line_check_counts_the_badge():
    md = lambda s, cid='x': {'cell_type': 'markdown', 'id': cid, 'source': [s]}
    badge = md(BADGE, 'colab-badge')
    text = md('# Title\n' + 'word ' * (MAIN_LINE_MAX - 1 - words([badge])))
    assert main_line_problem([text, badge]) is None
    assert main_line_problem([text, badge, md('two more')]) == f"{MAIN_LINE_MAX + 2:,} words of prose before 'Going deeper' (at most {MAIN_LINE_MAX:,})"
    assert main_line_problem([text, badge, md('## Going deeper\n' + 'word ' * 100)]) is None     # what follows is not counted
    assert main_line_problem([text, md('two more')]) is None                                    # without the badge: under

def core_problem(cs:list, most:int=CORE_MAX) -> str|None:
    "The words of prose of 00's whole page (`cs`, its Colab cells left out), if more than `most`."
    n = words(cs)
    return f"{n:,} words of prose in all (at most {most:,})" if n > most else None

def test_the_core_measure_counts_going_deeper_too():
    md = lambda s: {'cell_type': 'markdown', 'source': [s]}
    cs = [md('# Core\n' + 'word ' * (CORE_MAX - 3)), md('## Going deeper\none more')]
    assert main_line_problem(cs, CORE_MAX) is None and core_problem(cs) == f"{CORE_MAX + 2:,} words of prose in all (at most {CORE_MAX:,})"

def core_promise_problems(cs:list, last:str) -> list[str]:
    """What 00 (`cs`) fails of its row in the path table: its title names it the set-up for 01 to `last`, no paper section;
    a main-line code cell picks `cuda` where present and moves a model and a batch there with `.to(device)`, run."""
    title = ''.join(cs[0]['source']).splitlines()[0] if cs else ''
    out = [] if re.search(rf'set-up for 01.{last}\b.*no section of the paper', title) else [f"title {title!r} does not say set-up for 01-{last}, no section of the paper"]
    dev = [c for c in main_line(cs) if c['cell_type'] == 'code' and "torch.cuda.is_available()" in (s := ''.join(c['source']))
           and "'cuda'" in s and len(re.findall(r'\.to\(device\)', s)) >= 2]
    return out + ([] if dev and all(c.get('outputs') for c in dev) else ['no run main-line cell picks cuda where present and moves a model and a batch'])

def test_the_core_promise_check_can_fail():
    md = lambda s: {'cell_type': 'markdown', 'source': [s]}
    cell = {'cell_type': 'code', 'source': ["device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')\nm, x = m.to(device), x.to(device)"],
            'outputs': [{'text': 'cpu'}]}
    good = [md('# Core: the set-up for 01–13, no section of the paper'), cell]
    assert core_promise_problems(good, '13') == []
    assert len(core_promise_problems([md('# Core: token ids'), cell], '13')) == 1
    assert len(core_promise_problems([good[0], {**cell, 'outputs': []}], '13')) == 1                  # stored unrun
    assert len(core_promise_problems([good[0], md('## Going deeper'), cell], '13')) == 1              # not in the main line

def test_core_teaches_the_device_it_promises():
    core = next(p for p in PAPER if p.name.startswith('00'))
    assert core_promise_problems(cells(core), PAPER[-1].name[:2]) == []

@pytest.mark.parametrize('p', PAPER, ids=lambda p: p.stem)
def test_the_main_line_is_short(p):
    problem = core_problem(cells(p)) if p.name.startswith('00') else main_line_problem(all_cells(p))
    assert problem is None, f"{p.name}: {problem}"

def test_teaching_cells_hold_the_method():
    srcs = {p.name: exported(main_line(cells(p))) for p in PAPER}
    r, l = sum(raises(s) for s in srcs.values()), sum(long_cells(s) for s in srcs.values())
    where = lambda f: ', '.join(f"{k} {f(s)}" for k, s in srcs.items() if f(s))
    assert r <= RAISES_MAX, f"{r} raise statements in the main lines' exported cells (at most {RAISES_MAX}): {where(raises)}"
    assert l <= LONG_MAX, f"{l} exported cells over 30 lines in the main lines (at most {LONG_MAX}): {where(long_cells)}"
    assert not (big := where(lambda s: sum(len(x.splitlines()) > SCREEN for x in s))), f"main-line cells over a screen ({SCREEN} lines): {big}"   # a class whole, as nanoGPT writes it, but one screen

@pytest.mark.parametrize('p', PAPER, ids=lambda p: p.stem)
def test_each_paper_notebook_links_the_paper(p):
    md = '\n'.join(''.join(c['source']) for c in main_line(cells(p)) if c['cell_type'] == 'markdown')
    assert 'arxiv.org/abs/1706.03762' in md, f"{p.name} does not link the paper (arXiv 1706.03762)"

# The figures are part of the course, stored with the notebooks: a cell that draws with `plt.show()` (outside a function,
# in a cell Run All runs) keeps its image. Executing with MPLBACKEND=Agg leaves every such cell without one.
SKIPPED = re.compile(r'^#\|\s*(slow|cuda|export|eval:\s*false)\b', re.M)

def shows_a_figure(src:str) -> bool:
    "True when the cell's own code (not a function or class it defines) calls `plt.show()`."
    try: tree = ast.parse('\n'.join(l for l in src.splitlines() if not l.lstrip().startswith(('#|', '%', '!'))))
    except SyntaxError: return False
    todo = list(tree.body)
    while todo:
        n = todo.pop()
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)): continue
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == 'show' and \
           isinstance(n.func.value, ast.Name) and n.func.value.id == 'plt': return True
        todo.extend(ast.iter_child_nodes(n))
    return False

def figures_missing(cs:list) -> list[str]:
    "Ids of the code cells that show a figure in Run All but store no image."
    img = lambda c: any(k.startswith('image/') for o in c.get('outputs', []) for k in o.get('data', {}))
    return [c.get('id') for c in cs if c['cell_type'] == 'code' and not SKIPPED.search(s := ''.join(c['source']))
            and shows_a_figure(s) and not img(c)]

def test_the_figure_check_can_fail():
    code = lambda s, outs=(): {'cell_type': 'code', 'id': 'x', 'source': [s], 'outputs': list(outs)}
    png = {'output_type': 'display_data', 'data': {'image/png': 'iVBOR', 'text/plain': ['<Figure>']}}
    drawn = 'fig, ax = plt.subplots()\nfor i in range(2): ax.plot([i])\nplt.show()'
    assert figures_missing([code(drawn, [png])]) == []
    assert figures_missing([code(drawn)]) == ['x']                                          # run under Agg: no image
    assert figures_missing([code('if True:\n    plt.show()')]) == ['x']
    assert figures_missing([code('def f():\n    plt.show()'), code('#| slow\nplt.show()'), code('print(1)')]) == []

@pytest.mark.parametrize('p', sorted(NBS.glob('*.ipynb')), ids=lambda p: p.stem)
def test_notebooks_store_their_figures(p):
    "Every notebook, paper path, appendices and pages alike."
    assert not figures_missing(all_cells(p)), f"{p.name}: cells {figures_missing(all_cells(p))} show a figure but store no image (execute it without MPLBACKEND=Agg)"

# Every notebook that runs code caps PyTorch's threads in its first cells, so that Run All finishes beside other work:
# a paper notebook with lib_machine's `notebook_threads()`, an appendix with lib_machine's `limit_threads`; both read TNB_THREADS.
THREADS_TOP, THREADS_CALL = 14, re.compile(r'\b(notebook_threads|limit_threads)\(\s*\d*\s*\)')

def threads_problem(cs:list, name:str) -> str|None:
    "None when one of the first cells of notebook `name` calls the thread cap its wing may use, else what is missing."
    want = 'notebook_threads' if name[:2].isdigit() else 'limit_threads'
    src = [''.join(c['source']) if c['cell_type'] == 'code' else '' for c in cs]
    where = next((i for i, t in enumerate(src) if re.search(rf'^def {want}\(', t, re.M)), None)
    if where is not None:   # the notebook that writes the cap (00_core) calls it within the three cells after its definition
        calls = {m for t in src[where + 1:where + 4] for m in THREADS_CALL.findall(t)}
        return None if want in calls else f"{name}: no {want}() within three cells of its definition"
    calls = {m for t in src[:THREADS_TOP] for m in THREADS_CALL.findall(t)}
    return None if want in calls else f"{name}: no {want}() in its first {THREADS_TOP} cells"

def test_the_threads_check_can_fail():
    code = lambda s: {'cell_type': 'code', 'source': [s]}
    assert threads_problem([code('notebook_threads();')], '01_x.ipynb') is None
    assert threads_problem([code('limit_threads(1)')], 'A01_x.ipynb') is None
    assert threads_problem([code('limit_threads()')], '01_x.ipynb') == "01_x.ipynb: no notebook_threads() in its first 14 cells"
    assert threads_problem([code('x = 1')] * 14 + [code('limit_threads()')], 'A01_x.ipynb') == "A01_x.ipynb: no limit_threads() in its first 14 cells"
    defined = code('def notebook_threads():\n    return 1')
    assert threads_problem([code('x = 1')] * 20 + [defined, code('y = 2'), code('notebook_threads()')], '00_x.ipynb') is None
    assert threads_problem([defined] + [code('x = 1')] * 3 + [code('notebook_threads()')], '00_x.ipynb') == "00_x.ipynb: no notebook_threads() within three cells of its definition"

@pytest.mark.parametrize('p', PAPER + APPENDIX, ids=lambda p: p.stem)
def test_every_notebook_caps_its_threads_first(p):
    assert threads_problem(all_cells(p), p.name) is None
