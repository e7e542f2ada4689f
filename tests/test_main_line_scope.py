"""What a paper notebook's main line (the cells before "Going deeper", as tests/test_main_line.py counts them) may use
and what it may export.

No forward references: every name a main-line code cell uses is bound by an earlier main-line cell (or the cell
itself), or comes from the standard library, torch, a listed dependency (pyproject.toml), IPython's display, or a
`transformer_nb` module that an earlier paper notebook exports or an appendix exports (the library the course stands on:
checks, datasets, exercises...). A name imported from the notebook's own module must already be bound by an earlier
main-line cell, so nothing written under Going deeper is used above it; a module of a later paper notebook is never
imported. Names are read statically (`symtable`): the uses in function bodies count too. At the exercises, the
names a natural answer uses are in scope (`STUB_NAMES`).

Only the paper's method: an exported main-line cell holds no input check, cache, rank, dtype handling or option the
paper lacks (`ENGINEERING`, a denylist of the tokens such code is written with); what the library needs beyond the
paper joins the same class under Going deeper (`@patch`, a subclass, or fields declared there). `ALLOWED` lists the
few lines kept on purpose, each with its reason; `TO_MOVE` lists, per notebook, the lines that still are to move (it
may only shrink: a line in it that is gone fails the test, so the list stays true).

Each measure is shown failing on made-up cells first."""
import ast, builtins, importlib, re, symtable, sys
import pytest
from test_main_line import NBS, PAPER, cells, src, main_line, shown
try: import tomllib
except ModuleNotFoundError: import tomli as tomllib   # Python 3.10

ROOT = NBS.parent
THROUGH = '99'                                     # the notebooks these rules hold for: every paper notebook
CHECKED = [p for p in PAPER if p.stem[:2] <= THROUGH]

def module_of() -> dict[str, str]:
    "module name -> the notebook that exports it (its `#| default_exp`, and a second module its `#| export NAME` cells write)."
    out = {}
    for p in sorted(NBS.glob('*.ipynb')):
        for c in cells(p):
            for m in re.finditer(r'^#\|\s*(?:default_exp|exports?)[ \t]+(\S+)', src(c), re.M): out[m[1]] = p.stem
    return out

def dependencies() -> set[str]:
    "Top-level import names of pyproject.toml's dependencies, plus what a notebook runs in (IPython)."
    deps = tomllib.loads((ROOT / 'pyproject.toml').read_text())['project']['dependencies']
    names = {re.match(r'[A-Za-z0-9_.-]+', d)[0].lower().replace('-', '_') for d in deps}
    return names | {'IPython', 'fastcore', 'matplotlib', 'numpy'}

def code_of(c) -> str:
    "A code cell's Python, its `%magic` and `!shell` lines blanked."
    return '\n'.join('' if re.match(r'\s*[%!]', l) else l for l in src(c).splitlines())

def bound_and_used(code:str) -> tuple[set, set]:
    "(names the cell binds at its top level, names it uses as globals, in function bodies included)."
    top = symtable.symtable(code, '<cell>', 'exec')
    binds = lambda s: s.is_assigned() or s.is_imported() or s.is_namespace()
    bound, used = {s.get_name() for s in top.get_symbols() if binds(s)}, set()
    def walk(t, is_top):
        for s in t.get_symbols():
            if s.is_referenced() and (not binds(s) if is_top else s.is_global()): used.add(s.get_name())
        for ch in t.get_children(): walk(ch, False)
    walk(top, True)
    return bound, used

def star_names(mod:str) -> set[str]:
    m = importlib.import_module(mod)
    return set(getattr(m, '__all__', [n for n in dir(m) if not n.startswith('_')]))

def scope_problems(stem:str, cs:list, mods:dict, deps:set, stubs:tuple=(), known:set=frozenset()) -> list[str]:
    "Forward references and imports from later or unlisted modules in the main line `cs` of notebook `stem`, but for `known`."
    own = {m for m, nb in mods.items() if nb == stem}      # its module, and a second one (06's config)
    scope, out = set(dir(builtins)) | {'display', 'get_ipython'}, []
    for c in cs:
        if c['cell_type'] != 'code': continue
        code, cid = code_of(c), c.get('id')
        bound, used = bound_and_used(code)
        for n in ast.walk(ast.parse(code)):
            if isinstance(n, ast.Import): heads = [(a.name, None) for a in n.names]
            elif isinstance(n, ast.ImportFrom) and n.level == 0: heads = [(n.module, n.names)]
            else: continue
            for mod, names in heads:
                top, sub = mod.split('.')[0], mod.partition('.')[2]      # 'attention', 'lib.trainer'; `from transformer_nb.lib import trainer` too
                if top == 'transformer_nb':
                    sub = next((m for m in [sub, *(f'{sub}.{a.name}'.lstrip('.') for a in names or [])] if m in mods), sub)
                    nb = mods.get(sub, '?')
                    if sub in own:
                        late = [a.name for a in names or [] if a.name != '*' and a.name not in scope | known]
                        if late: out.append(f"{stem} cell {cid}: imports {late} from its own module before they are written")
                    elif nb == '?' or (nb[:1].isdigit() and nb >= stem):
                        out.append(f"{stem} cell {cid}: imports from transformer_nb.{sub} ({nb}), not an earlier notebook's module")
                elif top not in sys.stdlib_module_names and top not in deps and top != 'torch':
                    out.append(f"{stem} cell {cid}: imports {mod}, neither the standard library, torch nor a dependency")
                if names and any(a.name == '*' for a in names): bound |= star_names(mod)
        late = sorted(used - scope - bound - known)
        if late: out.append(f"{stem} cell {cid}: uses {late} before they are defined or imported")
        scope |= bound
        if cid in dict(stubs):
            missing = sorted(set(dict(stubs)[cid]) - scope - known)
            if missing: out.append(f"{stem} exercise cell {cid}: {missing} not in scope for a natural answer")
    return out

# What a natural answer uses, in scope at each exercise stub: notebook -> (stub cell id, names).
STUB_NAMES = {'02_multihead': (('b2d0a003', ('math', 'torch')), ('b2e1f007', ('math', 'attention', 'nn', 'torch', 'count_params'))),
              '06_model': (('b6d0a003', ('nn', 'F')), ('a06e0012', ('F', 'torch', 'pad_mask', 'make_tgt_mask')),
                           ('b06f0011', ('TransformerConfig', 'count_params', 'Transformer'))),
              '10_decoding': (('c0b1e021', ('PAD_ID', 'BOS_ID', 'EOS_ID', 'torch')),),
              '11_results': (('e11c0001', ('math', 'Counter')),),
              '12_variations': (('e12c0002', ('read',)), ('e11c0003', ('torch', 'layer3', 'lab'))),
              '13_parsing': (('e12c0002', ('Tree', 'is_preterminal', 'coarse_label', 'john')), ('e12c0004', ('evalb_counts',))),
              '14_since_2017': (('s14h0002', ('torch',)), ('s14h0003', ('torch', 'pe_frequencies', 'rotate')), ('s14h0004', ('torch', 'GroupedKV')))}

# ---------------------------------------------------------------- the paper's method only
ENGINEERING = re.compile(r'\braise\b|\bassert\b|\bcheck_\w+|\bvalidate\(|\bcache\b|\bcached?_\w*|\w*_cache\b|\brank\b|'
                         r'\bworld_size\b|\bdtype\b|\.to\(|\bdevice\b|persistent\s*=|\bwarnings\.|\bnorm_first\b|\bp_attn\b|'
                         r'\bp_ffn\b|\btorch\.__version__')

def engineering_lines(cs:list) -> list[str]:
    "Lines of exported main-line cells written with engineering tokens (comments aside)."
    out = []
    for c in cs:
        s = src(c)
        if c['cell_type'] != 'code' or not re.match(r'\s*#\|\s*export', s): continue
        for line in s.splitlines():
            code = re.sub(r'#.*', '', re.sub(r'(["\']).*?\1', '""', line))     # strings and comments aside
            if ENGINEERING.search(code): out.append(line.strip())
    return out

# Kept on purpose (notebook -> {line: reason}): what 06's model needs to run on a GPU, and nothing more.
ALLOWED = {
    '01_attention': {
        'def causal_mask(n:int, device=None) -> torch.Tensor: # (1, 1, n, n) bool':
            "the model on a GPU (00's device): the causal mask is made where the target's tokens are",
        'return torch.ones(n, n, dtype=torch.bool, device=device).tril()[None, None]': 'the same: made on that device, not copied there',
        "return pad_mask(tgt, pad_id) & causal_mask(tgt.shape[1], tgt.device)   # on the tokens' device": 'the same, for the decoder',
    },
    '14_since_2017': {
        "a = torch.arange(start, start + x.shape[-2], device=x.device)[:, None] * pe_frequencies(x.shape[-1]).to(x.device)   # (n, d/2) angles, float64":
            "the model on a GPU (00's device): the rows' positions and 05's frequencies made where the queries are, as 01's causal mask is",
        "one = {'preln': dict(norm_first=True), 'rmsnorm': dict(norm='rms'), 'rope': dict(rope=True), 'swiglu': dict(ffn='swiglu', d_ff=round(2 * base['d_ff'] / 3)), 'gqa': dict(kv_groups=max(1, base['h'] // 4))}":
            "pre-LN is this page's first change: `norm_first` names it as the model's options and tnb-train do",
    },
    '05_positional_encoding': {
        "self.register_buffer('pe', sinusoidal_encoding(max_len, d_model).float(), persistent=False)   # (max_len, d_model), computed once":
            "the table a buffer, so .to(device) and .to(dtype) move it with the model; not saved, as a computed table is not (checkpoints never held it)",
    },
}
# Still to move under Going deeper (notebook -> lines); only shrinks.
TO_MOVE = {
}

# Names still used ahead of their definition (notebook -> names); only shrinks. Figure helpers (`plot_*`, `draw_model`)
# and input checks are written under Going deeper and imported at the top; they are to move into the main line or out of it.
KNOWN_FORWARD = {
}

# ---------------------------------------------------------------- each measure, shown failing
def _code(s, cid='x'): return {'cell_type': 'code', 'source': [s], 'id': cid}

def test_the_measures_can_fail():
    mods, deps = {'attention': '01_attention', 'multihead': '02_multihead', 'positional': '05_positional_encoding'}, {'fastcore'}
    ok = [_code('import math\nfrom transformer_nb.attention import attention'), _code('def f(x): return math.sqrt(attention)')]
    assert scope_problems('02_multihead', ok, mods, deps) == []
    late = [_code('def f(x): return show_heads(x)', 'a'), _code('def show_heads(w): pass', 'b')]
    assert scope_problems('02_multihead', late, mods, deps) == ["02_multihead cell a: uses ['show_heads'] before they are defined or imported"]
    own = [_code('from transformer_nb.multihead import show_heads', 'c')]
    assert 'before they are written' in scope_problems('02_multihead', own, mods, deps)[0]
    ahead = [_code('from transformer_nb.positional import sinusoidal_encoding', 'd')]
    assert 'not an earlier notebook' in scope_problems('04_embeddings', ahead, mods, deps)[0]
    assert 'neither the standard library' in scope_problems('02_multihead', [_code('import pandas')], mods, deps)[0]
    stub = [_code('import torch', 's0'), _code('def answer(): raise NotImplementedError', 's1')]
    assert scope_problems('02_multihead', stub, mods, deps, (('s1', ('math',)),)) == ["02_multihead exercise cell s1: ['math'] not in scope for a natural answer"]
    exported = [_code('#| export\nclass M:\n    def __init__(self, d):\n        check_sizes(d)  # refuse\n'
                      '        if d < 1: raise ValueError("d")\n        self.x = torch.zeros(d, dtype=torch.bool)\n'
                      '    def f(self, x, cache=None): return x  # no cache here\n'), _code('raise SystemExit')]
    assert engineering_lines(exported) == ['check_sizes(d)  # refuse', 'if d < 1: raise ValueError("d")',
                                           'self.x = torch.zeros(d, dtype=torch.bool)', 'def f(self, x, cache=None): return x  # no cache here']

# ---------------------------------------------------------------- the paper path
@pytest.mark.parametrize('p', CHECKED, ids=lambda p: p.stem)
def test_no_forward_references(p):
    args = p.stem, main_line(cells(p)), module_of(), dependencies(), STUB_NAMES.get(p.stem, ())
    known = KNOWN_FORWARD.get(p.stem, set())
    problems = scope_problems(*args, known=known)
    assert not problems, '\n'.join(problems)
    still = {n for m in scope_problems(*args) for n in re.findall(r"'(\w+)'", m)}
    assert known <= still, f"{p.name}: {sorted(known - still)} no longer used ahead of their definition: drop them from KNOWN_FORWARD"

def test_every_stub_named_is_a_main_line_cell():
    for stem, stubs in STUB_NAMES.items():
        for cid, _ in stubs: assert any(c.get('id') == cid for c in main_line(cells(NBS / f'{stem}.ipynb'))), f"{stem}: no main-line cell {cid}"

@pytest.mark.parametrize('p', CHECKED, ids=lambda p: p.stem)
def test_main_line_exports_only_the_paper(p):
    lines, allowed, to_move = engineering_lines(main_line(cells(p))), ALLOWED.get(p.stem, {}), TO_MOVE.get(p.stem, [])
    extra = [l for l in lines if l not in allowed and l not in to_move]
    assert not extra, f"{p.name}: engineering in the main line's exported cells (move it under Going deeper):\n" + '\n'.join(extra)
    gone = [l for l in list(allowed) + to_move if l not in lines]
    assert not gone, f"{p.name}: listed in ALLOWED or TO_MOVE but no longer in the main line (drop them from the list): {gone}"

# ---------------------------------------------------------------- the library in the main lines
# A main line uses what the path teaches: in all, at most LIB_NAMES_MAX distinct names imported from `transformer_nb.lib`
# or `transformer_nb.apps` by the shown main-line code cells (the threads cell, `threads0`, every notebook's set-up, left
# out where it is hidden; 00 shows it), each counted once however many pages import it, each module's page linked in
# that main line's prose, where the name is used; and no shown cell uses a library name that only a hidden cell imports.
LIB_NAMES_MAX = 6

def library_names(cs:list) -> list[tuple[str, str]]:
    "(module, name) of each import from transformer_nb.lib or .apps in the shown main-line code cells of `cs`, the threads cell left out."
    out = []
    for c in main_line(cs):
        if not shown(c) or c.get('id') == 'threads0': continue
        for n in ast.walk(ast.parse(code_of(c))):
            if isinstance(n, ast.ImportFrom) and re.match(r'transformer_nb\.(lib|apps)(\.|$)', n.module or ''):
                out += [(n.module.removeprefix('transformer_nb.'), a.name) for a in n.names]
            elif isinstance(n, ast.Import):
                out += [(a.name.removeprefix('transformer_nb.'), a.name) for a in n.names if re.match(r'transformer_nb\.(lib|apps)(\.|$)', a.name)]
    return out

def unlinked(cs:list, names:list[tuple[str, str]], mods:dict[str, str]) -> list[str]:
    "The names whose module's page (`mods`: module -> notebook) no markdown cell of the main line links."
    prose = '\n'.join(src(c) for c in main_line(cs) if c['cell_type'] == 'markdown')
    return [f"{name} ({mod})" for mod, name in names if f"({mods.get(mod, mod)}.ipynb" not in prose]

def test_the_library_measures_can_fail():
    md = lambda s: {'cell_type': 'markdown', 'source': [s]}
    cs = [_code('from transformer_nb.lib.options import PRESETS, get_config\nimport transformer_nb.apps.workflow', 'a'),
          _code('#| hide\nfrom transformer_nb.lib.records import load_results', 'b'), _code('from transformer_nb.lib.machine import notebook_threads', 'threads0'),
          _code('from transformer_nb.course.data import check_bpe', 'c'), md('[lib_options](lib_options.ipynb)'), md('## Going deeper'),
          _code('from transformer_nb.lib.records import headline_table', 'd')]
    assert library_names(cs) == [('lib.options', 'PRESETS'), ('lib.options', 'get_config'), ('apps.workflow', 'transformer_nb.apps.workflow')]
    assert unlinked(cs, library_names(cs), {'lib.options': 'lib_options', 'apps.workflow': 'apps_workflow'}) == ['transformer_nb.apps.workflow (apps.workflow)']

def hidden_library_names(cs:list) -> dict[str, str]:
    "name -> module of each import from transformer_nb.lib or .apps in the main line's hidden (`#| hide`) code cells."
    out = {}
    for c in main_line(cs):
        if c['cell_type'] != 'code' or shown(c): continue
        for n in ast.walk(ast.parse(code_of(c))):
            if isinstance(n, ast.ImportFrom) and re.match(r'transformer_nb\.(lib|apps)(\.|$)', n.module or ''):
                out |= {a.asname or a.name: n.module.removeprefix('transformer_nb.') for a in n.names}
    return out

def out_of_sight(cs:list) -> list[str]:
    "Library names that a shown main-line code cell uses but that only a hidden cell imports: the learner reads a name never imported."
    hidden, out, seen = hidden_library_names(cs), [], set()
    for c in main_line(cs):
        if not shown(c): continue
        bound, used = bound_and_used(code_of(c))
        out += [f"{n} ({hidden[n]}) in cell {c.get('id')}" for n in sorted((used & set(hidden)) - seen)]
        seen |= bound
    return out

def main_line_library_names(cs:list) -> set[tuple[str, str]]:
    "(module, name) of every library name a main line shows: imported by a shown code cell, the set-up's threads cell too where it is shown (00)."
    return set(library_names(cs)) | {(m, n) for c in main_line(cs) if shown(c) and c.get('id') == 'threads0'
                                    for m, n in library_names([{**c, 'id': 'shown-threads'}])}

def test_the_sight_measures_can_fail():
    cs = [_code('#| hide\nfrom transformer_nb.lib.machine import notebook_threads, rounding_tol', 'threads0'),
          _code('test_close(1, 1, eps=rounding_tol(1, 2))', 'a'), _code('from transformer_nb.lib.machine import rounding_tol\nrounding_tol(1, 1)', 'b')]
    assert out_of_sight(cs) == ['rounding_tol (lib.machine) in cell a']
    assert out_of_sight(cs[:1] + cs[2:]) == []
    shown00 = [_code('from transformer_nb.lib.machine import notebook_threads', 'threads0'), _code('from transformer_nb.lib.machine import rounding_tol', 'x')]
    assert main_line_library_names(shown00) == {('lib.machine', 'notebook_threads'), ('lib.machine', 'rounding_tol')}

# Still imported out of sight (notebook -> names); only shrinks. None is left.
OUT_OF_SIGHT = {}

@pytest.mark.parametrize('p', CHECKED, ids=lambda p: p.stem)
def test_no_main_line_uses_a_library_name_imported_out_of_sight(p):
    "Every library name a shown main-line cell uses is imported where the learner sees it (and its page linked), not in a hidden cell."
    bad, known = out_of_sight(cells(p)), OUT_OF_SIGHT.get(p.stem, set())
    assert not [b for b in bad if b.split()[0] not in known], f"{p.name}: library names used in the main line but imported only in a hidden cell: {bad}"
    gone = known - {b.split()[0] for b in bad}
    assert not gone, f"{p.name}: {sorted(gone)} no longer imported out of sight: drop them from OUT_OF_SIGHT"

def test_the_main_lines_show_at_most_six_library_names_in_all():
    "The names from lib or apps that the main lines show, counted once each however many pages import them."
    names = {p.stem: main_line_library_names(cells(p)) for p in CHECKED}
    every = set().union(*names.values())
    assert len(every) <= LIB_NAMES_MAX, f"{len(every)} library names in the main lines (at most {LIB_NAMES_MAX}): {sorted(n for _, n in every)}"

def test_main_lines_use_few_library_names_each_linked():
    mods = module_of()
    names = {p.stem: library_names(cells(p)) for p in CHECKED}
    missing = {p.stem: u for p in CHECKED if (u := unlinked(cells(p), names[p.stem], mods))}
    assert not missing, f"library names used in a main line whose page it does not link: {missing}"
