"""Helpers for the tests that prove the course's exercises and prose, away from the learner: a notebook's cells by id,
and code from them run in a namespace of its own (never the learner's)."""
import ast, json, re, textwrap
from pathlib import Path

NBS = Path(__file__).resolve().parents[1] / 'nbs'

def cells(nb:str) -> dict:
    "Cell id -> (cell type, source text) of notebook `nb` ('01_attention' or '01_attention.ipynb'), in order."
    p = NBS / (nb if nb.endswith('.ipynb') else f'{nb}.ipynb')
    return {c['id']: (c['cell_type'], ''.join(c['source'])) for c in json.loads(p.read_text(encoding='utf-8'))['cells']}

def code_blocks(nb:str, cell_id:str) -> list[str]:
    "The ```python blocks of markdown cell `cell_id` (an exercise's solution), dedented."
    return [textwrap.dedent(b) for b in re.findall(r"```python\n(.*?)```", cells(nb)[cell_id][1], re.S)]

def _body(src:str) -> str: return '\n'.join(l for l in src.splitlines() if not l.startswith('#|'))

def imports_only(src:str) -> bool:
    "True for a code cell of import statements alone."
    try: return all(isinstance(n, (ast.Import, ast.ImportFrom)) for n in ast.parse(_body(src)).body)
    except SyntaxError: return False

def namespace(nb:str, *sources:str) -> dict:
    """A fresh namespace holding notebook `nb`'s import cells, then each of `sources` run in order: a cell id (its code,
    or a markdown cell's first ```python block) or literal code."""
    cs, ns = cells(nb), {}
    for kind, src in cs.values():
        if kind == 'code' and imports_only(src) and '%' not in src: exec(_body(src), ns)
    for s in sources:
        if s in cs: s = _body(cs[s][1]) if cs[s][0] == 'code' else code_blocks(nb, s)[0]
        exec(s, ns)
    return ns
