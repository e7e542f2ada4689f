"""The docs site's API entries (apps_api_entries): nbdev writes each exported function's and class's entry while it runs the
notebook's cells, where classes live in `__main__` and fastcore makes up a type from each default (`cfg:__main__.X`,
`device:NoneType=None`). `api_entries`, an nbdev docs processor (`doc_procs` in pyproject.toml), writes each entry again
from the package's own source: annotations and defaults as written, `class` for a class, a link to the line on GitHub.

Docs-build code, not part of the installed package: the docs build imports it from tools/ (python tools/preview.py puts
tools/ on PYTHONPATH; so do tools/check_docs.py and tools/make_readme.py, which run from tools/).
"""
from pathlib import Path

def _source_params(obj) -> tuple[dict, str|None]:
    "({parameter: (annotation, default)} as the source writes them, the return annotation) of a function or a class."
    import ast, inspect, textwrap
    import dataclasses
    target = obj.__init__ if inspect.isclass(obj) and '__init__' in vars(obj) and not dataclasses.is_dataclass(obj) else obj
    src = textwrap.dedent(inspect.getsource(target))
    node = ast.parse(src).body[0]
    seg = lambda n: None if n is None else ast.get_source_segment(src, n)
    if isinstance(node, ast.ClassDef):                 # a dataclass: its fields
        return {n.target.id: (seg(n.annotation), seg(n.value)) for n in node.body
                if isinstance(n, ast.AnnAssign) and isinstance(n.target, ast.Name)}, None
    a = node.args
    pos = a.posonlyargs + a.args
    out = {p.arg: (seg(p.annotation), seg(d)) for p, d in zip(pos, [None] * (len(pos) - len(a.defaults)) + a.defaults)}
    out |= {p.arg: (seg(p.annotation), seg(d)) for p, d in zip(a.kwonlyargs, a.kw_defaults)}
    out |= {p.arg: (seg(p.annotation), None) for p in (a.vararg, a.kwarg) if p is not None}
    return out, seg(node.returns)

def _index() -> dict:
    "nbdev's index of the package (transformer_nb/_modidx.py), read as data."
    import ast, importlib.util
    f = Path(importlib.util.find_spec('transformer_nb').origin).with_name('_modidx.py')
    return ast.literal_eval(f.read_text(encoding='utf-8').split('=', 1)[1])

def _package_object(name:str):
    "The package's own (module, object) for an entry's name, found in nbdev's index of the package; else None."
    import pkgutil
    d = _index()
    hits = [(mod, k) for mod, syms in d['syms'].items() for k in syms if k == f'{mod}.{name}'] or \
           [(mod, k) for mod, syms in d['syms'].items() for k in syms if k.endswith('.' + name)]   # else a method patched onto a class
    if len(hits) != 1: return None
    return hits[0][0], pkgutil.resolve_name(hits[0][1])

def _source_link(mod:str, obj) -> str:
    import inspect
    st, line = _index()['settings'], inspect.getsourcelines(obj)[1]
    return f"{st['git_url']}/blob/{st['branch']}/{mod.replace('.', '/')}.py#L{line}"

def api_entry(md:str) -> str:
    "One nbdev API entry (markdown) written from the package's source: its signature as the code says it, and a source link."
    import inspect, re
    from fastcore.docments import DocmentText
    m = re.search(r'^#+ (\S+)\n', md, re.M)
    found = m and _package_object(m.group(1).replace('\\', ''))
    if not found: return md
    mod, obj = found
    if isinstance(obj, property): obj = obj.fget       # a property (`@patch(as_prop=True)`): its getter's source and line
    try: params, ret = _source_params(obj)
    except (OSError, TypeError, SyntaxError, IndexError): return md
    try: real = inspect.signature(obj).parameters
    except (TypeError, ValueError): real = {}
    class Written(DocmentText):
        def _fmt_param(self, nm, p):
            if nm not in params:                       # inherited from another library: no type made up from the default
                if nm in real and real[nm].annotation is inspect.Parameter.empty: p = {**p, 'anno': inspect.Parameter.empty}
                return super()._fmt_param(nm, p)
            (anno, default), kind = params[nm], p.get('kind')
            pre = '*' if kind == inspect.Parameter.VAR_POSITIONAL else '**' if kind == inspect.Parameter.VAR_KEYWORD else ''
            return pre + nm + (f':{anno}' if anno else '') + (f'={default}' if default is not None else '')
        @property
        def _ret_str(self): return ')' + (f'->{ret}' if ret else '') + ':'
    sig = str(Written(obj, maxline=110, docstring=False))
    if inspect.isclass(obj): sig = 'class' + sig.removeprefix('def')
    md = re.sub(r'```python\n.*?\n```', lambda _: f'```python\n{sig}\n```', md, count=1, flags=re.S)
    url = _source_link(mod, obj)
    if '[source](' in md:                              # nbdev's link: for an object imported from the package it reads #LNone
        md = re.sub(r'\[source\]\([^)\s]*\)', lambda _: f'[source]({url})', md, count=1)
    else: md = md.replace('---\n\n', f'---\n\n[source]({url}){{target="_blank" style="float:right; font-size:smaller"}}\n\n', 1)
    return md

def api_entries(cell):
    "nbdev docs processor: every `show_doc` output of `cell` rewritten by `api_entry`."
    for o in cell.get('outputs', []):
        text = o.get('data', {}).get('text/markdown')
        if text is None: continue
        new = api_entry(text if isinstance(text, str) else ''.join(text))
        o['data']['text/markdown'] = new if isinstance(text, str) else new.splitlines(keepends=True)
