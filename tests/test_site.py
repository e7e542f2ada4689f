"""The docs site as its readers meet it: the sidebar (nbs/sidebar.yml, kept by nbdev) lists every notebook once in course
order, every notebook's previous and next links follow that one order, every appendix is titled "Appendix AN: ...",
and tools/check_site.py finds the titles on pages written as Pandoc writes them."""
import json, re, sys
from pathlib import Path
import pytest

ROOT = Path(__file__).resolve().parents[1]
NBS = ROOT / 'nbs'
sys.path.insert(0, str(ROOT / 'tools'))
import check_site                                                      # noqa: E402
from nbdev.config import nbpath2html                                   # noqa: E402

COLAB = ('colab-badge', 'colab-setup')

def cells(p): return [c for c in json.loads(p.read_text(encoding='utf-8'))['cells'] if c.get('id') not in COLAB]

def sidebar_entries(text:str) -> list[str]:
    "The notebooks a sidebar.yml lists, in its order (sections flattened)."
    return re.findall(r'^\s*-\s+([\w.-]+\.ipynb)\s*$', text, re.M)

def course_order() -> list[str]:
    "The sidebar's notebooks that exist (an entry whose notebook is not in nbs/ yet is skipped)."
    return [n for n in sidebar_entries((NBS / 'sidebar.yml').read_text(encoding='utf-8')) if (NBS / n).is_file()]

def nav(cell_text:str) -> tuple[str|None, str|None]:
    "(previous, next) notebook of a navigation line: `[← X](X.ipynb)` and `[X →](X.ipynb)`."
    prev = re.search(r'\[←[^\]]*\]\(([\w.-]+\.ipynb)\)', cell_text)
    nxt = re.search(r'\[[^\]]*→\]\(([\w.-]+\.ipynb)\)', cell_text)
    return (prev and prev.group(1)), (nxt and nxt.group(1))

def chain_problems(order:list[str], navs:dict) -> list[str]:
    "Each notebook's (top and bottom) navigation against `order`: the previous and next notebooks, none past either end."
    bad = []
    for i, name in enumerate(order):
        want = (order[i - 1] if i else None, order[i + 1] if i + 1 < len(order) else None)
        for where, got in zip(('top', 'bottom'), navs[name]):
            if got != want: bad.append(f"{name} ({where}): links {got}, the course order wants {want}")
    return bad

def test_the_sidebar_is_kept_and_lists_every_notebook_once():
    assert 'nbs/sidebar.yml' not in (ROOT / '.gitignore').read_text(encoding='utf-8').split()
    assert re.search(r'^custom_sidebar\s*=\s*true\b', (ROOT / 'pyproject.toml').read_text(encoding='utf-8'), re.M)
    listed = sidebar_entries((NBS / 'sidebar.yml').read_text(encoding='utf-8'))
    assert len(listed) == len(set(listed)), f"listed twice: {sorted({n for n in listed if listed.count(n) > 1})}"
    assert not {p.name for p in NBS.glob('*.ipynb')} - set(listed), "notebooks missing from nbs/sidebar.yml"

def test_the_sidebar_reads_in_course_order():
    order = sidebar_entries((NBS / 'sidebar.yml').read_text(encoding='utf-8'))
    paper = sorted(p.name for p in NBS.glob('[0-9][0-9]_*.ipynb'))
    apps = [n for n in order if re.match(r'A\d+_', n)]
    assert order[0] == 'index.ipynb' and order[-1] == 'pitfalls.ipynb'
    assert order[1:1 + len(paper)] == paper
    assert [int(re.match(r'A(\d+)', n)[1]) for n in apps] == sorted(int(re.match(r'A(\d+)', n)[1]) for n in apps)

def test_previous_and_next_links_follow_the_sidebar():
    order = course_order()
    navs = {}
    for name in order:
        md = [''.join(c['source']) for c in cells(NBS / name) if c['cell_type'] == 'markdown']
        navs[name] = (nav(md[1]), nav(md[-1]))
    assert not chain_problems(order, navs), '\n'.join(chain_problems(order, navs))

def test_the_chain_check_can_fail():
    order = ['index.ipynb', 'a.ipynb', 'b.ipynb']
    good = {'index.ipynb': ((None, 'a.ipynb'),) * 2, 'a.ipynb': (('index.ipynb', 'b.ipynb'),) * 2, 'b.ipynb': (('a.ipynb', None),) * 2}
    assert chain_problems(order, good) == []
    bad = {**good, 'b.ipynb': (('a.ipynb', None), ('index.ipynb', None))}
    assert chain_problems(order, bad) == ["b.ipynb (bottom): links ('index.ipynb', None), the course order wants ('a.ipynb', None)"]
    assert nav('[← A15_treebank](A15_treebank.ipynb) · [index](index.ipynb) · [pitfalls →](pitfalls.ipynb)') == ('A15_treebank.ipynb', 'pitfalls.ipynb')

@pytest.mark.parametrize('p', sorted(NBS.glob('A[0-9]*_*.ipynb')), ids=lambda p: p.stem)
def test_appendix_titles_follow_one_pattern(p):
    title = ''.join(cells(p)[0]['source']).splitlines()[0]
    n = int(re.match(r'A(\d+)_', p.name)[1])                  # the file's two digits, the title's number: A01_ is Appendix A1
    assert re.fullmatch(rf'# Appendix A{n}: \S.*', title), f"{p.name}: {title!r} is not '# Appendix A{n}: ...'"

def pandoc_page(title:str) -> str:
    "A page as Quarto's Pandoc writes it: smart quotes, HTML entities, the title in its own element."
    t = check_site.shown_title(title).replace("'", '\u2019').replace('&', '&amp;')
    return f'<html><head><title>{t} – transformer_nb</title></head><body><h1 class="title">{t}</h1></body></html>'

def test_check_site_reads_titles_as_pandoc_writes_them(tmp_path):
    nbs, site = tmp_path / 'nbs', tmp_path / '_docs'
    nbs.mkdir(); site.mkdir()
    titles = {'index': 'transformer_nb', 'A17_commands': "Appendix A17: the commands' machinery",
              '03_ffn': 'The `FeedForward` *block* & friends'}
    page = lambda stem: site / nbpath2html(nbs / f'{stem}.ipynb').name
    for stem, title in titles.items():
        (nbs / f'{stem}.ipynb').write_text(json.dumps({'cells': [{'cell_type': 'markdown', 'source': [f'# {title}']}]}))
        page(stem).write_text(pandoc_page(title), encoding='utf-8')
    assert 'the commands’ machinery' in page('A17_commands').read_text(encoding='utf-8')
    assert check_site.problems(site, nbs) == []
    page('A17_commands').write_text(pandoc_page('Appendix A17: another title'), encoding='utf-8')
    page('03_ffn').unlink()
    assert [b.split(':')[0] for b in check_site.problems(site, nbs)] == ['03_ffn.ipynb', 'A17_commands.ipynb']

import check_docs                                                      # noqa: E402

def _showdoc_cell(md:str) -> dict:
    return {'cell_type': 'code', 'source': ['show_doc(f)'], 'outputs': [{'data': {'text/markdown': md}}]}

NOISY = ('---\n\n### model_from_checkpoint\n\n```python\ndef model_from_checkpoint(\n    ckpt_or_path, device:NoneType=None,\n'
         '    name:NoneType=None, # how errors name a checkpoint given as a dict\n)->tuple:\n```\n\n*A model.*')

def test_the_api_check_finds_noise_and_missing_source_links():
    assert check_docs.api_problems({'A5.ipynb': [_showdoc_cell(NOISY)]}) == [
        "A5.ipynb: model_from_checkpoint: 'NoneType' in its signature", 'A5.ipynb: model_from_checkpoint: no link to its source']
    for noise in ('cfg:__main__.TransformerConfig', 'backward:function=<lambda>', 'x=<function f at 0x7f>'):
        md = NOISY.replace('ckpt_or_path', noise).replace('---\n\n', '---\n\n[source](https://github.com/a/b/blob/main/m.py#L1)\n\n')
        assert len(check_docs.api_problems({'x.ipynb': [_showdoc_cell(md)]})) == 1, noise

def test_api_entries_are_written_from_the_source():
    from transformer_nb.apidocs import api_entries, api_entry
    cell = _showdoc_cell(NOISY)
    api_entries(cell)
    md = cell['outputs'][0]['data']['text/markdown']
    assert 'device=None' in md and 'NoneType' not in md and '# how errors name a checkpoint' in md, md
    assert check_docs.api_problems({'A5.ipynb': [cell]}) == [], md
    assert '/blob/main/transformer_nb/checkpoints.py#L' in md
    cls = api_entry('---\n\n### AttentionExplorer\n\n```python\ndef AttentionExplorer(\n    data:dict, start:VAR_KEYWORD\n):\n```\n')
    assert 'class AttentionExplorer(' in cls and 'def AttentionExplorer' not in cls

def test_the_site_loads_no_script_from_another_host():
    "KaTeX and the live translator come from the site: _quarto.yml's maths URL is relative, and the docs workflow puts"
    " them (and the exported model) into the built site's live/ after rendering, where nbdev never meets node_modules."
    import yaml
    q = yaml.safe_load((NBS / '_quarto.yml').read_text(encoding='utf-8'))
    url = q['format']['html']['html-math-method']['url']
    assert not re.match(r'\w+:|//', url) and url == 'live/katex/', url
    flow = (ROOT / '.github' / 'workflows' / 'deploy.yaml').read_text(encoding='utf-8')
    for step in ('npm ci --prefix nbs/live', 'node nbs/live/vendor.mjs _docs/live', 'tnb-export --format onnx pretrained:multi30k-de-en -o _docs/live/model'):
        assert flow.index('nbdev-docs') < flow.index(step) < flow.index('Publish'), f"the docs workflow runs `{step}` after rendering"
    assert 'katex.min.js' in flow and 'ort-wasm-simd-threaded.wasm' in flow, "the workflow checks they are in the site"

def test_the_pages_packages_are_pinned_with_their_lock():
    "nbs/live/package.json names exact versions (no range), and package-lock.json resolves each to that version."
    live = NBS / 'live'
    pkg, lock = (json.loads((live / f).read_text(encoding='utf-8')) for f in ('package.json', 'package-lock.json'))
    deps = {**pkg['dependencies'], **pkg.get('devDependencies', {})}
    assert {'onnxruntime-web', 'katex', 'playwright-core'} <= set(deps)
    for name, v in deps.items():
        assert re.fullmatch(r'\d+\.\d+\.\d+', v), f"{name}: {v} is a range, not a pinned version"
        assert lock['packages'][f'node_modules/{name}']['version'] == v, f"{name}: the lock holds another version"
    assert 'node_modules/' in (live / '.gitignore').read_text(encoding='utf-8').split()
