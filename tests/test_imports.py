"""The package's imports point one way. Read statically (AST, every `import` in a module, function-level ones included):
no module imports another module of a higher layer, so no import cycle is possible, and no module re-exports names
that live elsewhere or looks names up lazily (a module `__getattr__`)."""
import ast
from pathlib import Path
import pytest

PKG = Path(__file__).resolve().parents[1] / 'transformer_nb'
MODULES = sorted(p.stem for p in PKG.glob('*.py') if p.stem not in ('__init__', '_modidx'))

# Bottom to top. A module may import modules of its own layer that come before it, and modules of lower layers.
LAYERS = [
    ['core', 'safeguards'],
    ['attention', 'multihead', 'ffn', 'embeddings', 'positional', 'model'],
    ['datasets', 'data', 'records'],
    ['checkpoints', 'distributed', 'training', 'trainer'],
    ['decoding', 'fast_decoding', 'evaluation'],
    ['complexity', 'parsing', 'export'],
    ['cli'],
]
ORDER = {m: i for i, m in enumerate(m for layer in LAYERS for m in layer)}

def imports_in(source:str) -> set[str]:
    "The package modules that `source` imports anywhere (module level or inside functions)."
    out = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom):
            if node.level == 1:                                     # from .x import y / from . import x
                out |= {node.module.split('.')[0]} if node.module else {a.name for a in node.names}
            elif node.module and node.module.startswith('transformer_nb.'): out.add(node.module.split('.')[1])
            elif node.module == 'transformer_nb': out |= {a.name for a in node.names}
        elif isinstance(node, ast.Import):
            out |= {a.name.split('.')[1] for a in node.names if a.name.startswith('transformer_nb.')}
    return out & set(MODULES)

GRAPH = {m: imports_in((PKG / f'{m}.py').read_text()) for m in MODULES}

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

def test_the_checks_can_fail():
    "A function-level import counts, and the search finds the cycles of the package's history."
    assert imports_in("def f():\n    from transformer_nb.cli import x\n    from .core import y\n") == {'cli', 'core'}
    assert imports_in("import transformer_nb.trainer as t") == {'trainer'}
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
