"""The package's imports point one way. Read statically (AST, every `import` in a module, function-level ones included):
no module imports another module of a higher layer, so no import cycle is possible, and no module re-exports names
that live elsewhere or looks names up lazily (a module `__getattr__`). The one import by a computed name is the task
registry's: `tasks.BUILT_IN` names, as data, the modules of the package's own tasks, which import `tasks` to register
into it; the registry imports one when its task is first asked for (a plugin, not a dependency), and a test below
reads that table and checks it."""
import ast
from pathlib import Path
import pytest

PKG = Path(__file__).resolve().parents[1] / 'transformer_nb'
# Dotted names under the package: 'attention' (the paper), 'lib.trainer', 'apps.cli', 'course.attention'.
# `_modidx` (nbdev's index) and `_export` (nbdev-export's own step, run when the notebooks are exported) are the build's.
MODULES = sorted('.'.join(p.relative_to(PKG).with_suffix('').parts) for p in PKG.rglob('*.py')
                 if p.name not in ('__init__.py', '_modidx.py', '_export.py'))
def source(module:str) -> str: return (PKG / (module.replace('.', '/') + '.py')).read_text(encoding='utf-8')

# The wings (../shared/COURSE.md): the paper's modules at the top of the package, `lib` (what the tools run), `apps`
# (tasks, corpora, commands, export), `course` (the exercises' checkers). Each may import only the wings named here.
WINGS = {'paper': {'paper'}, 'lib': {'paper', 'lib'}, 'apps': {'paper', 'lib', 'apps'}, 'course': {'paper', 'lib', 'course'}}
def wing(module:str) -> str: return module.split('.')[0] if '.' in module else 'paper'

# Bottom to top: the paper, the library, the applications and the course, each in an order where a module imports only
# modules before it (of its own layer or a lower one).
LAYERS = [
    ['core', 'attention', 'multihead', 'ffn', 'embeddings', 'positional', 'config', 'model', 'data', 'training_config', 'training', 'decoding_config', 'decoding', 'evaluation', 'complexity', 'variations_config', 'variations', 'parsing', 'since2017'],
    ['lib.options', 'lib.machine', 'lib.safeguards', 'lib.runs', 'lib.datasets', 'lib.tokens', 'lib.layers', 'lib.transformer', 'lib.checkpoints', 'lib.records', 'lib.distributed', 'lib.speed', 'lib.trainer', 'lib.fast_decoding', 'lib.significance', 'lib.treebank', 'lib.scoring'],
    ['apps.pretrained', 'apps.tasks', 'apps.test_sets', 'apps.workflow', 'apps.numbers', 'apps.export', 'apps.explorer', 'apps.parsing_task', 'course.checking', 'course.core', 'course.attention', 'course.multihead', 'course.ffn', 'course.embeddings', 'course.positional', 'course.model', 'course.complexity', 'course.data', 'course.training', 'course.decoding', 'course.evaluation', 'course.variations', 'course.parsing', 'course.since2017', 'apps.wmt14', 'apps.cli'],
]
ORDER = {m: i for i, m in enumerate(m for layer in LAYERS for m in layer)}

def _import_module_target(node) -> str|None:
    "'transformer_nb.x' for `importlib.import_module('transformer_nb.x')` / `import_module('.x', 'transformer_nb')`, else None."
    f = node.func
    if not (isinstance(f, ast.Attribute) and f.attr == 'import_module' or isinstance(f, ast.Name) and f.id in ('import_module', '__import__')):
        return None
    args = [a.value for a in node.args if isinstance(a, ast.Constant) and isinstance(a.value, str)]
    if not args: return 'transformer_nb.?'                              # a computed name: cannot be checked, so it is refused
    return (args[1] + args[0]) if args[0].startswith('.') and len(args) > 1 else args[0]

def _known(name:str) -> set[str]:
    "The package module that dotted `name` (relative to the package) is, or that names a module of: {} if neither."
    return {name} if name in MODULES or name == '?' else set()

def imports_in(source:str, module:str='x') -> set[str]:
    """The package modules (dotted, relative to the package) that `source`, the text of `module`, imports anywhere
    (module level or inside functions, `import_module` included); relative imports resolve from `module`'s package."""
    out, package = set(), module.split('.')[:-1]
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call) and (target := _import_module_target(node)) and target.startswith('transformer_nb'):
            out |= _known(target.partition('.')[2] or '?')
        if isinstance(node, ast.ImportFrom):
            if node.level:                                          # from .x import y / from ..lib import x / from . import x
                base = package[:len(package) - node.level + 1] if node.level > 1 else package
                stem = '.'.join(base + ([node.module] if node.module else []))
            elif node.module == 'transformer_nb' or (node.module or '').startswith('transformer_nb.'):
                stem = node.module.partition('.')[2]
            else: continue
            for a in node.names:
                out |= _known(f'{stem}.{a.name}'.lstrip('.')) or _known(stem)
        elif isinstance(node, ast.Import):
            out |= {m for a in node.names if a.name.startswith('transformer_nb.') for m in _known(a.name.partition('.')[2])}
    return out

def built_in_tasks() -> dict:
    "`tasks.BUILT_IN` read statically: task name -> (module, its datasets, its named recipes)."
    tree = ast.parse(source('apps.tasks'))
    node = next(n for n in tree.body if isinstance(n, ast.Assign) and any(getattr(t, 'id', None) == 'BUILT_IN' for t in n.targets))
    return ast.literal_eval(node.value)

RAW = {m: imports_in(source(m), m) for m in MODULES}
GRAPH = {m: RAW[m] - ({'?'} if m == 'apps.tasks' else set()) for m in MODULES}   # the registry's loads by name: checked below

def find_cycle(graph:dict) -> list|None:
    "A cycle of `graph` (module -> modules it imports) as a path, found by depth-first search; None if there is none."
    state = {}
    def visit(m, path):
        if state.get(m) == 'done': return None
        if state.get(m) == 'open': return path[path.index(m):] + [m]
        state[m] = 'open'
        for n in sorted(graph.get(m, ())):
            if (c := visit(n, path + [m])): return c
        state[m] = 'done'
    return next((c for m in sorted(graph) if (c := visit(m, []))), None)

def test_every_module_has_a_layer():
    assert set(MODULES) == set(ORDER), f"modules without a layer: {set(MODULES) - set(ORDER)}; gone: {set(ORDER) - set(MODULES)}"

# Imports that still cross the wings the wrong way (module -> the modules it imports): each entry only shrinks, and an
# entry that no longer holds fails, so the list cannot go stale.
KNOWN_OUTSIDE = {}

def test_known_outside_modules_exist():
    assert set(KNOWN_OUTSIDE) <= set(MODULES) and all(v <= set(MODULES) for v in KNOWN_OUTSIDE.values())

@pytest.mark.parametrize('module', MODULES)
def test_wings(module):
    "The paper imports only the paper; lib imports no app and not the course; the course imports no app."
    out = {m for m in GRAPH[module] if wing(m) not in WINGS[wing(module)]}
    known = KNOWN_OUTSIDE.get(module, set())
    assert not out - known, f"transformer_nb.{module} ({wing(module)}) imports {sorted(out - known)}, outside the wings it may import"
    assert not known - out, f"transformer_nb.{module} no longer imports {sorted(known - out)}: remove them from KNOWN_OUTSIDE"

def test_the_wing_check_can_fail():
    assert wing('attention') == 'paper' and wing('lib.trainer') == 'lib' and wing('apps.cli') == 'apps'
    assert 'lib' not in WINGS['paper'] and 'apps' not in WINGS['lib'] and 'apps' not in WINGS['course']

@pytest.mark.parametrize('module', MODULES)
def test_imports_point_down(module):
    up = sorted(m for m in GRAPH[module] - KNOWN_OUTSIDE.get(module, set()) if ORDER[m] >= ORDER[module])
    assert not up, f"transformer_nb.{module} imports {up}, which sit at or above it in the layers"

def test_no_cycle():
    "Independent of the layer table: a depth-first search over the import graph finds no cycle."
    assert find_cycle(GRAPH) is None, 'import cycle: ' + ' -> '.join(find_cycle(GRAPH))

def test_the_registry_loads_only_its_plugins_by_name():
    "Only `tasks` imports by a computed name, and only the modules `BUILT_IN` names: each above it, each registering into it."
    assert [m for m in MODULES if '?' in RAW[m]] == ['apps.tasks']
    for name, (module, *_) in built_in_tasks().items():
        m = module.partition('.')[2]
        assert ORDER[m] > ORDER['apps.tasks'] and 'apps.tasks' in GRAPH[m], f"BUILT_IN[{name!r}]: {module} must sit above tasks and register into it"

def test_the_checks_can_fail():
    "A function-level import counts, and the search finds the cycles of the package's history."
    assert imports_in("def f():\n    from transformer_nb.apps.cli import x\n    from ..core import y\n", 'lib.trainer') == {'apps.cli', 'core'}
    assert imports_in("from .options import x\nfrom ..apps import cli\nfrom .. import model", 'lib.trainer') == {'lib.options', 'apps.cli', 'model'}
    assert imports_in("from .attention import x\nfrom .lib.options import y", 'model') == {'attention', 'lib.options'}
    assert imports_in("import transformer_nb.lib.trainer as t") == {'lib.trainer'}
    assert imports_in("import importlib\ndef f(): importlib.import_module('transformer_nb.parsing')") == {'parsing'}
    assert imports_in("from importlib import import_module\nimport_module('.apps.cli', 'transformer_nb')") == {'apps.cli'}
    old = {'checkpoints': {'data'}, 'data': {'datasets'}, 'datasets': {'parsing'}, 'parsing': {'decoding'},
           'decoding': {'checkpoints'}, 'trainer': {'training'}, 'training': {'trainer'}}
    assert find_cycle(old) == ['checkpoints', 'data', 'datasets', 'parsing', 'decoding', 'checkpoints']
    assert find_cycle({'a': {'b'}, 'b': set()}) is None

@pytest.mark.parametrize('module', MODULES)
def test_no_shims(module):
    "No module `__getattr__`, and no name imported from another package module only to be re-exported in `__all__`."
    tree = ast.parse(source(module))
    assert not any(isinstance(n, ast.FunctionDef) and n.name == '__getattr__' for n in tree.body), module
    exported = next((ast.literal_eval(n.value) for n in tree.body if isinstance(n, ast.Assign)
                     and any(getattr(t, 'id', None) == '__all__' for t in n.targets)), [])
    imported = {a.asname or a.name for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and (n.level or
                (n.module or '').startswith('transformer_nb')) for a in n.names}
    assert not set(exported) & imported, f"{module} re-exports {sorted(set(exported) & imported)}"
    text = source(module).lower()
    assert 'for compatibility' not in text and 'old import' not in text, f"{module}: no shims, the package has not been released"

# ---------------------------------------------------------------------------------------------------------------
# Components register themselves: no module but a registry's owner tests a task or dataset by its name.
# ---------------------------------------------------------------------------------------------------------------
OWNERS = {'lib.datasets', 'apps.tasks', 'apps.numbers', 'apps.parsing_task', 'apps.wmt14'}   # the registries, and the modules of the tasks they hold

def _registered_names() -> set[str]:
    from transformer_nb.apps.tasks import TASKS, load_all
    load_all()                                      # every built-in task, with its corpora
    from transformer_nb.lib.datasets import DATASETS
    return set(TASKS) | set(DATASETS)

def name_tests(source:str, names:set) -> list[str]:
    "Comparisons (==, !=, in, not in) and str.startswith/endswith calls in `source` that test against one of `names`."
    found = []
    def consts(n):
        if isinstance(n, ast.Constant) and isinstance(n.value, str): return [n.value]
        if isinstance(n, (ast.Tuple, ast.List, ast.Set)): return [c for e in n.elts for c in consts(e)]
        return []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Compare):
            hits = [c for part in (node.left, *node.comparators) for c in consts(part) if c in names]
            if hits: found.append(f"line {node.lineno}: compares with {hits}")
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in ('startswith', 'endswith'):
            hits = [c for a in node.args for c in consts(a) if c in names or c in ('tree', 'trees')]
            if hits: found.append(f"line {node.lineno}: {node.func.attr}({hits})")
    return found

@pytest.mark.parametrize('module', [m for m in MODULES if m not in OWNERS])
def test_no_module_tests_a_task_or_dataset_by_name(module):
    bad = name_tests(source(module), _registered_names())
    assert not bad, f"transformer_nb.{module} tests names the registries own: {bad}"

SCRIPTS = sorted(str(p.relative_to(PKG.parent)) for d in ('bench', 'experiments', 'tools') for p in (PKG.parent / d).rglob('*.py'))

@pytest.mark.parametrize('script', SCRIPTS)
def test_no_script_tests_a_task_or_dataset_by_name(script):
    "The benchmarks, experiments and tools ask the registries too (a dataset named in a call is fine; a test of a name is not)."
    bad = name_tests((PKG.parent / script).read_text(), _registered_names())
    assert not bad, f"{script} tests names the registries own: {bad}"

def test_the_name_check_can_fail():
    names = {'parsing', 'numbers'}
    assert name_tests("if task == 'parsing': pass", names) == ["line 1: compares with ['parsing']"]
    assert name_tests("x = d in ('numbers', 'copy')", names) == ["line 1: compares with ['numbers']"]
    assert name_tests("lang.startswith('tree')", names) == ["line 1: startswith(['tree'])"]
    assert name_tests("t = TASKS['parsing']", names) == []                 # a lookup in a registry is not a test

# ---------------------------------------------------------------------------------------------------------------
# Private names stay in their module: what another module needs is public.
# ---------------------------------------------------------------------------------------------------------------
def private_imports(source:str) -> list[str]:
    "Names starting with '_' that `source` imports from a package module (`from transformer_nb.x import _y`, `from .x import _y`)."
    return [f"{n.module}.{a.name}" for n in ast.walk(ast.parse(source)) if isinstance(n, ast.ImportFrom)
            and (n.level or (n.module or '').startswith('transformer_nb')) for a in n.names if a.name.startswith('_')]

@pytest.mark.parametrize('module', MODULES)
def test_no_private_name_crosses_modules(module):
    bad = private_imports(source(module))
    assert not bad, f"transformer_nb.{module} imports private names of other modules: {bad}"

def test_the_private_check_can_fail():
    assert private_imports("from .trainer import _names, Trainer") == ['trainer._names']
    assert private_imports("def f():\n    from transformer_nb.apps.cli import _train") == ['transformer_nb.apps.cli._train']

def private_attributes(source:str, module:str='lib.x') -> list[str]:
    """Private names reached as attributes of a package module: `m._y` where `m` is bound by `import transformer_nb.x as m`,
    `from transformer_nb import x`, `from . import x` or `m = importlib.import_module('transformer_nb.x')`, and
    `transformer_nb.x._y` or `sys.modules['transformer_nb.x']._y`."""
    tree, mods = ast.parse(source), {}
    for n in ast.walk(tree):
        if isinstance(n, ast.Import):
            mods |= {a.asname: a.name for a in n.names if a.asname and a.name.startswith('transformer_nb.')}
        elif isinstance(n, ast.ImportFrom) and (n.level or (n.module or '').startswith('transformer_nb')):
            package = module.split('.')[:-1]
            stem = ('.'.join((package[:len(package) - n.level + 1] if n.level > 1 else package) + ([n.module] if n.module else []))
                    if n.level else n.module.partition('.')[2])
            mods |= {a.asname or a.name: f"transformer_nb.{f'{stem}.{a.name}'.lstrip('.')}" for a in n.names
                     if f'{stem}.{a.name}'.lstrip('.') in MODULES}
        elif isinstance(n, ast.Assign) and isinstance(n.value, ast.Call) and (t := _import_module_target(n.value)):
            mods |= {x.id: t for x in n.targets if isinstance(x, ast.Name)}
    def module_of(v) -> str|None:
        if isinstance(v, ast.Name): return mods.get(v.id)
        if isinstance(v, ast.Attribute) and isinstance(v.value, ast.Name) and v.value.id == 'transformer_nb': return f"transformer_nb.{v.attr}"
        if isinstance(v, ast.Subscript) and isinstance(v.slice, ast.Constant) and str(v.slice.value).startswith('transformer_nb.'):
            return v.slice.value
        return None
    return [f"{m}.{n.attr}" for n in ast.walk(tree) if isinstance(n, ast.Attribute) and n.attr.startswith('_')
            and not n.attr.startswith('__') and (m := module_of(n.value))]

@pytest.mark.parametrize('module', MODULES)
def test_no_private_attribute_crosses_modules(module):
    bad = private_attributes(source(module), module)
    assert not bad, f"transformer_nb.{module} reaches private names of other modules: {bad}"

def test_the_private_attribute_check_can_fail():
    assert private_attributes("import transformer_nb.apps.tasks as t\nt._split({})") == ['transformer_nb.apps.tasks._split']
    assert private_attributes("from . import runs\nruns._HELD") == ['transformer_nb.lib.runs._HELD']
    assert private_attributes("import sys\nsys.modules['transformer_nb.apps.cli']._CTRL_C") == ['transformer_nb.apps.cli._CTRL_C']
    assert private_attributes("import importlib\nm = importlib.import_module('transformer_nb.apps.cli')\nm._train([])") == ['transformer_nb.apps.cli._train']
    assert private_attributes("import transformer_nb.apps.tasks as t\nt.TASKS; t.__name__") == []
