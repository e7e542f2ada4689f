"""One definition per name: no module of the package defines a top-level function or class twice, so the name a
learner reads in a notebook's main line is the one the package exports. Read statically (AST). A method added with
fastcore's `@patch`/`@patch_to` and a `typing.overload` stub are not definitions of a module-level name.
`KNOWN` lists the names still defined twice; an entry that no longer is fails too, so the list cannot go stale."""
import ast, functools
from collections import Counter
from pathlib import Path
import pytest

PKG = Path(__file__).resolve().parents[1] / 'transformer_nb'
MODULES = sorted('.'.join(p.relative_to(PKG).with_suffix('').parts) for p in PKG.rglob('*.py') if p.stem not in ('__init__', '_modidx'))
NOT_A_DEFINITION = {'patch', 'patch_to', 'overload', 'typing.overload'}

KNOWN = {}   # module -> names it defines twice (none): an entry here must be a name still defined twice

def _decorator_name(d:ast.expr) -> str:
    "'patch' for `@patch`, `@patch(as_prop=True)` and `@fastcore.basics.patch`; the dotted name otherwise."
    d = d.func if isinstance(d, ast.Call) else d
    name = ast.unparse(d)
    return name.rsplit('.', 1)[-1] if name.rsplit('.', 1)[-1] in ('patch', 'patch_to') else name

def defined_twice(source:str) -> set[str]:
    "The top-level function and class names that `source` defines more than once."
    counts = Counter(n.name for n in ast.parse(source).body
                     if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
                     and not {_decorator_name(d) for d in n.decorator_list} & NOT_A_DEFINITION)
    return {name for name, c in counts.items() if c > 1}

def test_reader():
    src = "def f(): pass\ndef f(): pass\nclass C: pass\n@patch\ndef g(self:C): pass\n@patch(as_prop=True)\ndef g(self:C): pass\n" \
          "@typing.overload\ndef h(x:int): ...\ndef h(x): pass\nclass C: pass\n"
    assert defined_twice(src) == {'f', 'C'}

def test_known_modules_exist():
    assert set(KNOWN) <= set(MODULES)

@pytest.mark.parametrize('module', MODULES)
def test_one_definition_per_name(module):
    twice = defined_twice((PKG / f"{module.replace('.', '/')}.py").read_text(encoding='utf-8'))
    known = KNOWN.get(module, set())
    assert not twice - known, f"{module}.py defines {sorted(twice - known)} twice: give the second version a name of its own"
    assert not known - twice, f"{module}.py no longer defines {sorted(known - twice)} twice: remove them from KNOWN"


# --- each of the paper's constants is declared once, in the paper module that teaches it ---

# name: (value, the module that declares it, the settings it is the value of: a parameter's or a field's default, a keyword).
CONSTANTS = {
    'WARMUP':    (4000, 'training_config', {'warmup'}),                         # §5.3, taught in 09_training
    'BETAS':     ((0.9, 0.98), 'training_config', {'betas'}),
    'ADAM_EPS':  (1e-9, 'training_config', {'eps', 'adam_eps'}),
    'EPS_LS':    (0.1, 'training_config', {'eps', 'eps_ls', 'label_smoothing'}),   # §5.4
    'BEAM':      (4, 'decoding_config', {'beam', 'k', 'beam_size'}),            # §6.1, taught in 10_decoding
    'ALPHA':     (0.6, 'decoding_config', {'alpha'}),
    'MAX_EXTRA': (50, 'decoding_config', {'max_extra'}),
}
# Values rare enough to be looked for anywhere in the code, not only as a setting's value; the unrelated uses, with why.
ANYWHERE = {'WARMUP': 4000, 'BETAS': 0.98}
UNRELATED = {
    ('lib.options', 'DECODE_BATCH_TOKENS = 4000'): 'source tokens per decoding batch: a batch size, not the warm-up',
}

def _same(a, b) -> bool: return type(a) is type(b) and a == b

def _literal(node):
    "The value of a constant or of a tuple of constants, else None."
    try: return ast.literal_eval(node) if isinstance(node, (ast.Constant, ast.Tuple)) else None
    except ValueError: return None

@functools.lru_cache(maxsize=None)
def _tree(source:str) -> ast.AST: return ast.parse(source)

def constant_uses(source:str, name:str) -> list[tuple[int, str]]:
    """(line, what) for each place `source` writes constant `name`'s value: as a setting it is the value of (a parameter's
    default, a keyword argument, a dataclass field, a dict entry), as an assignment to `name`, or (for `ANYWHERE`'s) anywhere.
    Comments and strings are not code: a value written in them is not counted."""
    value, _, keys = CONSTANTS[name]
    out = []
    def hit(node, what):
        if node is not None and _same(_literal(node), value): out.append((node.lineno, what))
    for n in ast.walk(_tree(source)):
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            a = n.args
            for p, d in [*zip((a.posonlyargs + a.args)[::-1], a.defaults[::-1]), *zip(a.kwonlyargs, a.kw_defaults)]:
                if p.arg in keys: hit(d, f'default of {p.arg}')
        elif isinstance(n, ast.keyword) and n.arg in keys: hit(n.value, f'{n.arg}=')
        elif isinstance(n, ast.AnnAssign) and isinstance(n.target, ast.Name) and n.target.id in keys: hit(n.value, f'field {n.target.id}')
        elif isinstance(n, ast.Dict):
            for k, v in zip(n.keys, n.values):
                if isinstance(k, ast.Constant) and k.value in keys: hit(v, f"'{k.value}':")
        elif isinstance(n, ast.Assign):
            for t in n.targets:
                if isinstance(t, ast.Name) and t.id == name: hit(n.value, name)
                elif isinstance(t, ast.Tuple) and isinstance(n.value, ast.Tuple):
                    for tt, v in zip(t.elts, n.value.elts):
                        if isinstance(tt, ast.Name) and tt.id == name: hit(v, name)
        if name in ANYWHERE and isinstance(n, ast.Constant) and _same(n.value, ANYWHERE[name]):
            out.append((n.lineno, 'the value'))
    return sorted({l: w for l, w in sorted(out, reverse=True)}.items())   # one use a line: a tuple (0.9, 0.98) and its 0.98 are one

def test_constant_reader():
    src = ("def f(step, warmup=4000, *, k=4): pass\nx = dict(warmup=4000, eps_ls=0.1)\nclass C:\n    alpha: float = 0.6\n"
           "WARMUP, BETAS = 4000, (0.9, 0.98)\nopt = Adam(betas=(0.9, 0.98), eps=1e-9)\ny = {'max_extra': 50}\n"
           "z = 4000 * 2   # 4000 in a comment\ns = 'warmup=4000'\ndef g(p_drop=0.1, h=4, eps=1e-6): pass\n")
    assert [l for l, _ in constant_uses(src, 'WARMUP')] == [1, 2, 5, 8]
    assert [l for l, _ in constant_uses(src, 'BETAS')] == [5, 6]
    assert constant_uses(src, 'ADAM_EPS') == [(6, 'eps=')]
    assert constant_uses(src, 'EPS_LS') == [(2, 'eps_ls=')]
    assert constant_uses(src, 'BEAM') == [(1, 'default of k')]
    assert constant_uses(src, 'ALPHA') == [(4, 'field alpha')]
    assert constant_uses(src, 'MAX_EXTRA') == [(7, "'max_extra':")]

@functools.lru_cache(maxsize=None)
def _text(module:str) -> str: return (PKG / f"{module.replace('.', '/')}.py").read_text(encoding='utf-8')

def _uses_in_package(name:str) -> dict:
    "module -> [(line, what)] of constant `name` across the package, the unrelated uses left out."
    out = {}
    for module in MODULES:
        text = _text(module)
        lines = text.splitlines()
        uses = [(l, w) for l, w in constant_uses(text, name)
                if not any(m == module and snippet in lines[l - 1] for m, snippet in UNRELATED)]
        if uses: out[module] = uses
    return out

def test_unrelated_uses_are_still_there():
    "Each unrelated use listed is in its module: the list cannot go stale."
    for (module, snippet), why in UNRELATED.items():
        assert snippet in (PKG / f"{module.replace('.', '/')}.py").read_text(encoding='utf-8'), f"{module} no longer has {snippet!r} ({why}): remove it from UNRELATED"

@pytest.mark.parametrize('name', CONSTANTS)
def test_each_paper_constant_is_declared_once(name):
    """The value of each of the paper's constants is written in one module, the paper module that teaches it, once; every
    other module imports the name (lib.options' fields, the trainer's defaults, the tasks' recipes, the course's checkers)."""
    import importlib
    value, home, _ = CONSTANTS[name]
    assert _same(getattr(importlib.import_module(f'transformer_nb.{home}'), name), value)
    uses = _uses_in_package(name)
    assert list(uses) == [home] and len(uses[home]) == 1, f"{name} ({value!r}) is written in {uses}: import it from transformer_nb.{home}"


# --- the library exports what another wing, a command or README's "Use the library" calls; the rest is private ---

LIB_EXPORTS_AT_MOST = 250   # names in the `__all__` of `transformer_nb.lib`'s modules together
TWIN_NAMES_AT_MOST = 10     # public names of the twin form (`checked_X`, `X_strict`, `X_on`) in the whole package

def _exports(module:str) -> list[str]:
    "The names in `module`'s `__all__`, read statically."
    for n in ast.parse(_text(module)).body:
        if isinstance(n, ast.Assign) and any(getattr(t, 'id', None) == '__all__' for t in n.targets): return [e.value for e in n.value.elts]
    return []

def _twin_form(name:str) -> bool: return name.startswith('checked_') or name.endswith(('_strict', '_on'))

def test_lib_exports_few_names():
    n = sum(len(_exports(m)) for m in MODULES if m.startswith('lib.'))
    assert 0 < n <= LIB_EXPORTS_AT_MOST, f"transformer_nb.lib exports {n} names (at most {LIB_EXPORTS_AT_MOST}): make the ones no other wing, command or README's 'Use the library' calls private"

def test_few_twin_names():
    twins = [f'{m}.{x}' for m in MODULES for x in _exports(m) if _twin_form(x)]
    assert len(twins) <= TWIN_NAMES_AT_MOST, f"{len(twins)} public names of the twin form (at most {TWIN_NAMES_AT_MOST}): {twins}"

def test_the_export_reader():
    assert sorted(_exports('config')) == ['BIG', 'TransformerConfig'] and 'build_model' in _exports('lib.transformer')
    assert [_twin_form(x) for x in ('checked_x', 'x_strict', 'mask_on', 'checkpoint', 'strictly', 'one')] == [True, True, True, False, False, False]


# --- Table 3's base and big are declared once, in 06's `config` ---

TABLE3_MODELS = {'base': (512, 2048), 'big': (1024, 4096)}   # (d_model, d_ff): the pair that tells the two apart

def model_sizes(source:str) -> set[tuple]:
    "(d_model, d_ff) of each model written in `source`: a class's field defaults, a call's keywords or a dict's keys that give both (a layer's own parameter defaults are not a model)."
    found = set()
    for n in ast.walk(_tree(source)):
        if isinstance(n, ast.ClassDef): pairs = [(a.target.id, a.value) for a in n.body if isinstance(a, ast.AnnAssign) and isinstance(a.target, ast.Name) and a.value is not None]
        elif isinstance(n, ast.Call): pairs = [(k.arg, k.value) for k in n.keywords if k.arg]
        elif isinstance(n, ast.Dict): pairs = [(k.value, v) for k, v in zip(n.keys, n.values) if isinstance(k, ast.Constant)]
        else: continue
        got = {k: v.value for k, v in pairs if isinstance(v, ast.Constant)}
        if 'd_model' in got and 'd_ff' in got: found.add((got['d_model'], got['d_ff']))
    return found

def test_model_size_reader():
    assert model_sizes("class C:\n    d_model: int = 512\n    N: int = 6\n    d_ff: int = 2048") == {(512, 2048)}
    assert model_sizes("x = dict(d_model=1024, h=16, d_ff=4096)\ny = {'d_model': 8, 'd_ff': 16}") == {(1024, 4096), (8, 16)}
    assert model_sizes("dict(d_ff=4096)\ndef f(d_model=512, d_ff=2048): pass") == set()

@pytest.mark.parametrize('name', TABLE3_MODELS)
def test_table3_models_are_declared_once(name):
    "Table 3's base (`TransformerConfig`'s defaults) and big (`BIG`) are written in 06's `config` alone; lib_options' presets build on them."
    where = [m for m in MODULES if TABLE3_MODELS[name] in model_sizes(_text(m))]
    assert where == ['config'], f"Table 3's {name} model is written in {where}: import it from transformer_nb.config"


# --- apps exports what a command, README, another wing or another page uses; the rest is private ---

ROOT = PKG.parent

def _notebook_of(module:str) -> str:
    "The notebook `module` is exported from (its 'File to edit' line)."
    import re
    return Path(re.search(r'File to edit: (\S+\.ipynb)', _text(module))[1]).name

@functools.cache
def _other_texts() -> dict:
    "Every text an export can be used from, by where it is: package modules, notebooks, README, pyproject's commands, tests, tools, benchmarks, experiments and the live page."
    texts = {f'module {m}': _text(m) for m in MODULES}
    texts |= {f'notebook {p.name}': p.read_text(encoding='utf-8') for p in (ROOT / 'nbs').glob('*.ipynb')}
    texts |= {f'{p.relative_to(ROOT)}': p.read_text(encoding='utf-8') for p in (ROOT / 'README.md', ROOT / 'pyproject.toml')}
    for d in ('tests', 'tools', 'bench', 'experiments'): texts |= {str(p.relative_to(ROOT)): p.read_text(encoding='utf-8') for p in (ROOT / d).rglob('*.py')}
    texts |= {str(p.relative_to(ROOT)): p.read_text(encoding='utf-8') for p in (ROOT / 'nbs' / 'live').rglob('*') if p.suffix in ('.js', '.mjs', '.html', '.py')}
    return texts

@functools.cache
def _words(text:str) -> frozenset:
    "The words (maximal runs of word characters) written in `text`: read once, so that each name is a set lookup, not a scan."
    import re
    return frozenset(re.findall(r'\w+', text))

def used_elsewhere(name:str, texts:dict, own:set) -> list[str]:
    "Where `name` (an identifier) is written as a word, outside the texts in `own`."
    assert name.isidentifier(), f"{name!r} is not an identifier"
    return [k for k, t in texts.items() if k not in own and name in _words(t)]

def test_the_use_reader():
    texts = {'module a': 'x = used_one(1)', 'notebook a.ipynb': 'unused_one()', 'README.md': 'call `other.used_two()`', 'b': '_used_three'}
    assert [bool(used_elsewhere(n, texts, {'module a', 'notebook a.ipynb'})) for n in ('used_one', 'unused_one', 'used_two', 'used_three')] == [False, False, True, False]
    assert used_elsewhere('ab', {'x': 'abc ab_ xab', 'y': 'f(ab)'}, set()) == ['y']   # a word, not a part of one

@pytest.mark.parametrize('module', [m for m in MODULES if m.startswith('apps.')])
def test_apps_exports_are_used_elsewhere(module):
    "Each name in an apps module's `__all__` is used by another module, another page, README, a command, a test, a tool, a benchmark or an experiment: the rest are private."
    texts, own = _other_texts(), {f'module {module}', f'notebook {_notebook_of(module)}'}
    unused = [x for x in _exports(module) if not used_elsewhere(x, texts, own)]
    assert not unused, f"transformer_nb.{module} exports {unused}, used nowhere else: make them private"


# --- no two names of the package differ only by leading underscores (`step` and `_step` are one name to a reader) ---

def top_level_names(source:str) -> set[str]:
    "The names `source` defines at module level: functions, classes and assigned names (dunders left out)."
    found = set()
    for n in _tree(source).body:
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)): found.add(n.name)
        elif isinstance(n, (ast.Assign, ast.AnnAssign)):
            for t in (n.targets if isinstance(n, ast.Assign) else [n.target]): found |= {e.id for e in ast.walk(t) if isinstance(e, ast.Name)}
    return {x for x in found if not (x.startswith('__') and x.endswith('__'))}

def underscore_twins(names:set) -> set[str]:
    "The names (without their leading underscores) written in `names` in more than one way."
    ways = {}
    for x in names: ways.setdefault(x.lstrip('_'), set()).add(x)
    return {k for k, v in ways.items() if len(v) > 1}

def test_the_twin_reader():
    assert top_level_names("def f(): pass\n_f = 1\nclass C: pass\nx: int = 2\na, (b, _c) = 1, (2, 3)\n__all__ = []") == {'f', '_f', 'C', 'x', 'a', 'b', '_c'}
    assert underscore_twins({'f', '_f', 'g', '__g', 'h', 'hh', '_k'}) == {'f', 'g'}

def test_no_two_names_differ_only_by_an_underscore():
    twins = underscore_twins(set().union(*(top_level_names(_text(m)) for m in MODULES)))
    assert not twins, f"names written both with and without a leading underscore: {sorted(twins)}: rename one to say what it is"
