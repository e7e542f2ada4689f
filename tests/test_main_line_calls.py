"""Every call that a paper notebook's main line (the cells before "Going deeper", as tests/test_main_line.py finds them)
makes of a package name is one the exported package accepts: the name as `transformer_nb` exports it (imported from a
`transformer_nb` module, or defined in one of the notebook's exported cells) takes the call's arguments
(`inspect.signature(...).bind`). A definition under Going deeper that took the main line's name with another signature
would fail here: Python keeps the last definition, so the package would not be the code the learner reads.

Calls are read statically, in function bodies too; a call with `*args` or `**kwargs` is bound only for what it names.
The measure is shown failing on made-up cells first."""
import ast, importlib, inspect, re
import pytest
from test_main_line import PAPER, cells, src, main_line

def _code_of(c) -> str:
    "A code cell's Python, its `%magic` and `!shell` lines blanked."
    return '\n'.join('' if re.match(r'\s*[%!]', l) else l for l in src(c).splitlines())

def _exported(c) -> bool: return bool(re.match(r'\s*#\|\s*exports?\b', src(c)))
def _target(c) -> str|None:
    "The module an `#| export NAME` cell writes (06's `config`), or None: the notebook's own."
    m = re.match(r'\s*#\|\s*exports?[ \t]+(\S+)', src(c)); return m and m[1]

def _top_names(tree) -> set[str]:
    "Names a cell binds at its top level by def, class or assignment."
    out = set()
    for n in tree.body:
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)): out.add(n.name)
        elif isinstance(n, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            for t in (n.targets if isinstance(n, ast.Assign) else [n.target]):
                out |= {x.id for x in ast.walk(t) if isinstance(x, ast.Name)}
    return out

def _bind(obj, call:ast.Call) -> str|None:
    "None if `obj`'s signature takes the call's positional and keyword arguments (placeholders), else why not."
    try: sig = inspect.signature(obj)
    except (TypeError, ValueError): return None                 # a builtin without a signature: nothing to check
    if any(isinstance(a, ast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords):
        params = sig.parameters.values()
        if any(p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) for p in params): return None
        named = {k.arg for k in call.keywords if k.arg}
        bad = sorted(named - set(sig.parameters))
        return f"unexpected keyword(s) {bad}" if bad else None
    try: sig.bind(*[None] * len(call.args), **{k.arg: None for k in call.keywords}); return None
    except TypeError as e: return str(e)

def call_problems(stem:str, cs:list, module:str|None) -> list[str]:
    "The calls of package names in the main line `cs` of notebook `stem` that the exported package refuses."
    names, out = {}, []                                          # name -> (module, attribute) in the package
    for c in cs:
        if c['cell_type'] != 'code': continue
        try: tree = ast.parse(_code_of(c))
        except SyntaxError: continue
        for n in ast.walk(tree):
            if isinstance(n, ast.ImportFrom) and n.level == 0 and (n.module or '').split('.')[0] == 'transformer_nb':
                for a in n.names:
                    if a.name == '*':
                        m = importlib.import_module(n.module)
                        names.update({k: (n.module, k) for k in getattr(m, '__all__', [])})
                    else: names[a.asname or a.name] = (n.module, a.name)
        bound = _top_names(tree)
        if module and _exported(c): names.update({k: (f'transformer_nb.{_target(c) or module}', k) for k in bound})
        else: names = {k: v for k, v in names.items() if k not in bound}   # the notebook's own object, not the package's
        for n in ast.walk(tree):
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in names:
                mod, attr = names[n.func.id]
                obj = getattr(importlib.import_module(mod), attr, None)
                if obj is None: out.append(f"{stem} cell {c.get('id')}: {n.func.id} is not in {mod}"); continue
                if callable(obj) and (why := _bind(obj, n)):
                    out.append(f"{stem} cell {c.get('id')} line {n.lineno}: {ast.unparse(n)[:80]} fails on {mod}.{attr}: {why}")
    return out

def own_module(cs:list) -> str|None:
    for c in cs:
        m = re.search(r'^#\|\s*default_exp\s+(\S+)', src(c), re.M)
        if m: return m[1]

# ---------------------------------------------------------------- the measure, shown failing
def _code(s, cid='x'): return {'cell_type': 'code', 'source': [s], 'id': cid}

def test_the_measure_can_fail():
    ok = [_code('from transformer_nb.training import noam_lr'), _code('noam_lr(1, 512, warmup=4000)')]
    assert call_problems('09_training', ok, None) == []
    bad = [_code('from transformer_nb.training import noam_lr'), _code('def f(): return noam_lr(1, lr=0.3)', 'b')]
    assert 'fails on transformer_nb.training.noam_lr' in call_problems('09_training', bad, None)[0]
    starred = [_code('from transformer_nb.training import noam_lr'), _code('noam_lr(*a, warmup=2, lr=1)')]
    assert "unexpected keyword(s) ['lr']" in call_problems('09_training', starred, None)[0]
    own = [_code('#| export\ndef noam_lr(step, d_model=512, warmup=4000): pass'), _code('noam_lr(1, lr=0.3)')]
    assert call_problems('09_training', own, 'training')                          # the package's, not the cell's
    local = [_code('from transformer_nb.training import noam_lr'), _code('def noam_lr(**kw): pass\nnoam_lr(lr=1)')]
    assert call_problems('09_training', local, None) == []                        # the notebook's own function

# ---------------------------------------------------------------- the paper path
@pytest.mark.parametrize('p', PAPER, ids=lambda p: p.stem)
def test_every_main_line_call_works_on_the_package(p):
    cs = cells(p)
    problems = call_problems(p.stem, main_line(cs), own_module(cs))
    assert not problems, '\n'.join(problems)
