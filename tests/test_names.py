"""One definition per name: no module of the package defines a top-level function or class twice, so the name a
learner reads in a notebook's main line is the one the package exports. Read statically (AST). A method added with
fastcore's `@patch`/`@patch_to` and a `typing.overload` stub are not definitions of a module-level name.
`KNOWN` lists the names still defined twice; an entry that no longer is fails too, so the list cannot go stale."""
import ast
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
