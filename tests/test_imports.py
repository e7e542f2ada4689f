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
MODULES = sorted(p.stem for p in PKG.glob('*.py') if p.stem not in ('__init__', '_modidx'))

# Bottom to top. A module may import modules of its own layer that come before it, and modules of lower layers.
LAYERS = [
    ['checks', 'core', 'machine', 'safeguards', 'process', 'textio', 'runs'],
    ['attention', 'multihead', 'ffn', 'embeddings', 'positional', 'model_checks', 'model'],
    ['datasets', 'data'],
    ['decoding', 'options', 'checkpoints', 'records', 'pretrained', 'distributed', 'training', 'speed', 'trainer'],
    ['fast_decoding', 'evaluation', 'variations', 'significance'],
    ['tasks', 'test_sets', 'workflow', 'numbers', 'complexity', 'treebank', 'parsing', 'export', 'explorer', 'exercises'],
    ['commands', 'cli', 'wmt14'],
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

def imports_in(source:str) -> set[str]:
    "The package modules that `source` imports anywhere (module level or inside functions, `import_module` included)."
    out = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call) and (target := _import_module_target(node)) and target.startswith('transformer_nb'):
            out.add(target.split('.')[1] if '.' in target else target)
        if isinstance(node, ast.ImportFrom):
            if node.level == 1:                                     # from .x import y / from . import x
                out |= {node.module.split('.')[0]} if node.module else {a.name for a in node.names}
            elif node.module and node.module.startswith('transformer_nb.'): out.add(node.module.split('.')[1])
            elif node.module == 'transformer_nb': out |= {a.name for a in node.names}
        elif isinstance(node, ast.Import):
            out |= {a.name.split('.')[1] for a in node.names if a.name.startswith('transformer_nb.')}
    return out & (set(MODULES) | {'?'})

def built_in_tasks() -> dict:
    "`tasks.BUILT_IN` read statically: task name -> (module, its datasets)."
    tree = ast.parse((PKG / 'tasks.py').read_text())
    node = next(n for n in tree.body if isinstance(n, ast.Assign) and any(getattr(t, 'id', None) == 'BUILT_IN' for t in n.targets))
    return ast.literal_eval(node.value)

RAW = {m: imports_in((PKG / f'{m}.py').read_text()) for m in MODULES}
GRAPH = {m: RAW[m] - ({'?'} if m == 'tasks' else set()) for m in MODULES}   # the registry's loads by name: checked below

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

@pytest.mark.parametrize('module', MODULES)
def test_imports_point_down(module):
    up = sorted(m for m in GRAPH[module] if ORDER[m] >= ORDER[module])
    assert not up, f"transformer_nb.{module} imports {up}, which sit at or above it in the layers"

def test_no_cycle():
    "Independent of the layer table: a depth-first search over the import graph finds no cycle."
    assert find_cycle(GRAPH) is None, 'import cycle: ' + ' -> '.join(find_cycle(GRAPH))

def test_the_registry_loads_only_its_plugins_by_name():
    "Only `tasks` imports by a computed name, and only the modules `BUILT_IN` names: each above it, each registering into it."
    assert [m for m in MODULES if '?' in RAW[m]] == ['tasks']
    for name, (module, _) in built_in_tasks().items():
        m = module.split('.')[1]
        assert ORDER[m] > ORDER['tasks'] and 'tasks' in GRAPH[m], f"BUILT_IN[{name!r}]: {module} must sit above tasks and register into it"

def test_the_checks_can_fail():
    "A function-level import counts, and the search finds the cycles of the package's history."
    assert imports_in("def f():\n    from transformer_nb.cli import x\n    from .core import y\n") == {'cli', 'core'}
    assert imports_in("import transformer_nb.trainer as t") == {'trainer'}
    assert imports_in("import importlib\ndef f(): importlib.import_module('transformer_nb.parsing')") == {'parsing'}
    assert imports_in("from importlib import import_module\nimport_module('.cli', 'transformer_nb')") == {'cli'}
    old = {'checkpoints': {'data'}, 'data': {'datasets'}, 'datasets': {'parsing'}, 'parsing': {'decoding'},
           'decoding': {'checkpoints'}, 'trainer': {'training'}, 'training': {'trainer'}}
    assert find_cycle(old) == ['checkpoints', 'data', 'datasets', 'parsing', 'decoding', 'checkpoints']
    assert find_cycle({'a': {'b'}, 'b': set()}) is None

@pytest.mark.parametrize('module', MODULES)
def test_no_shims(module):
    "No module `__getattr__`, and no name imported from another package module only to be re-exported in `__all__`."
    tree = ast.parse((PKG / f'{module}.py').read_text())
    assert not any(isinstance(n, ast.FunctionDef) and n.name == '__getattr__' for n in tree.body), module
    exported = next((ast.literal_eval(n.value) for n in tree.body if isinstance(n, ast.Assign)
                     and any(getattr(t, 'id', None) == '__all__' for t in n.targets)), [])
    imported = {a.asname or a.name for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and (n.level or
                (n.module or '').startswith('transformer_nb')) for a in n.names}
    assert not set(exported) & imported, f"{module} re-exports {sorted(set(exported) & imported)}"
    text = (PKG / f'{module}.py').read_text().lower()
    assert 'for compatibility' not in text and 'old import' not in text, f"{module}: no shims, the package has not been released"

# ---------------------------------------------------------------------------------------------------------------
# Components register themselves: no module but a registry's owner tests a task or dataset by its name.
# ---------------------------------------------------------------------------------------------------------------
OWNERS = {'datasets', 'tasks', 'numbers', 'parsing', 'wmt14'}   # the registries, and the modules of the tasks they hold

def _registered_names() -> set[str]:
    from transformer_nb.tasks import TASKS, load_all
    load_all()                                      # every built-in task, with its corpora
    from transformer_nb.datasets import DATASETS
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
    bad = name_tests((PKG / f'{module}.py').read_text(), _registered_names())
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
    bad = private_imports((PKG / f'{module}.py').read_text())
    assert not bad, f"transformer_nb.{module} imports private names of other modules: {bad}"

def test_the_private_check_can_fail():
    assert private_imports("from .trainer import _names, Trainer") == ['trainer._names']
    assert private_imports("def f():\n    from transformer_nb.cli import _train") == ['transformer_nb.cli._train']

def private_attributes(source:str) -> list[str]:
    """Private names reached as attributes of a package module: `m._y` where `m` is bound by `import transformer_nb.x as m`,
    `from transformer_nb import x`, `from . import x` or `m = importlib.import_module('transformer_nb.x')`, and
    `transformer_nb.x._y` or `sys.modules['transformer_nb.x']._y`."""
    tree, mods = ast.parse(source), {}
    for n in ast.walk(tree):
        if isinstance(n, ast.Import):
            mods |= {a.asname: a.name for a in n.names if a.asname and a.name.startswith('transformer_nb.')}
        elif isinstance(n, ast.ImportFrom) and (n.level or n.module == 'transformer_nb'):
            mods |= {a.asname or a.name: f"transformer_nb.{a.name}" for a in n.names if a.name in MODULES and not n.module}
            if n.module == 'transformer_nb': mods |= {a.asname or a.name: f"transformer_nb.{a.name}" for a in n.names}
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
    bad = private_attributes((PKG / f'{module}.py').read_text())
    assert not bad, f"transformer_nb.{module} reaches private names of other modules: {bad}"

def test_the_private_attribute_check_can_fail():
    assert private_attributes("import transformer_nb.tasks as t\nt._split({})") == ['transformer_nb.tasks._split']
    assert private_attributes("from . import runs\nruns._HELD") == ['transformer_nb.runs._HELD']
    assert private_attributes("import sys\nsys.modules['transformer_nb.commands']._CTRL_C") == ['transformer_nb.commands._CTRL_C']
    assert private_attributes("import importlib\nm = importlib.import_module('transformer_nb.cli')\nm._train([])") == ['transformer_nb.cli._train']
    assert private_attributes("import transformer_nb.tasks as t\nt.TASKS; t.__name__") == []
