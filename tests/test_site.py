"""The docs site as its readers meet it: the sidebar (nbs/sidebar.yml, kept by nbdev) lists every notebook once in course
order (the paper, then the library's notebooks, the applications' and the course's, each wing a section of its own),
every notebook's previous and next links follow that one order, every wing's notebook has a title that says what it is,
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

WINGS = ('lib', 'apps', 'course')           # the package's wings past the paper, in the sidebar's order

def wing_of(name:str) -> str|None: return next((w for w in WINGS if name.startswith(w + '_')), None)

def sections(text:str) -> dict[str, list[str]]:
    "A sidebar's sections: title -> the notebooks it lists."
    import yaml                                                       # nbdev's own dependency
    return {e['section']: e['contents'] for e in yaml.safe_load(text)['website']['sidebar']['contents'] if isinstance(e, dict)}

def test_the_sidebar_reads_in_course_order():
    text = (NBS / 'sidebar.yml').read_text(encoding='utf-8')
    order = sidebar_entries(text)
    paper = sorted(p.name for p in NBS.glob('[0-9][0-9]_*.ipynb'))
    assert order[0] == 'index.ipynb' and order[-1] == 'pitfalls.ipynb'
    assert order[1:1 + len(paper)] == paper
    wings = [wing_of(n) for n in order if wing_of(n)]
    assert wings == sorted(wings, key=WINGS.index), "the library's notebooks, then the applications', then the course's"
    assert all(n.endswith('.ipynb') and (re.match(r'\d\d_', n) or wing_of(n) or n in ('index.ipynb', 'use.ipynb', 'developers.ipynb', 'pitfalls.ipynb'))
               for n in order), "a notebook is a paper section, a wing's, or one of the four pages"

def test_each_wing_is_a_sidebar_section_of_its_own():
    by_section = sections((NBS / 'sidebar.yml').read_text(encoding='utf-8'))
    wings = {t: {wing_of(n) for n in names} for t, names in by_section.items() if any(wing_of(n) for n in names)}
    assert sorted(w for ws in wings.values() for w in ws) == sorted(WINGS), wings
    assert all(len(ws) == 1 for ws in wings.values()), f"a section mixes wings: {wings}"

def test_the_wing_checks_can_fail():
    text = 'website:\n  sidebar:\n    contents:\n      - index.ipynb\n      - section: "A"\n        contents:\n          - lib_a.ipynb\n          - apps_b.ipynb\n      - c.ipynb\n'
    assert sections(text) == {'A': ['lib_a.ipynb', 'apps_b.ipynb']}
    assert wing_of('lib_trainer.ipynb') == 'lib' and wing_of('library.ipynb') is None

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
    assert nav('[← lib_treebank](lib_treebank.ipynb) · [index](index.ipynb) · [pitfalls →](pitfalls.ipynb)') == ('lib_treebank.ipynb', 'pitfalls.ipynb')

@pytest.mark.parametrize('p', sorted(p for p in NBS.glob('*.ipynb') if wing_of(p.name)), ids=lambda p: p.stem)
def test_wing_titles_say_what_each_is(p):
    "A wing's notebook is titled by what it holds ('# The trainer'), never by a number or its file name."
    title = ''.join(cells(p)[0]['source']).splitlines()[0]
    assert re.fullmatch(r'# [A-Z`]\S*( \S+)*', title) and not re.search(r'Appendix|\bA\d+\b|_', title.split('`')[0]), \
        f"{p.name}: {title!r} should say what the notebook holds"

def pandoc_page(title:str) -> str:
    "A page as Quarto's Pandoc writes it: smart quotes, HTML entities, the title in its own element."
    t = check_site.shown_title(title).replace("'", '\u2019').replace('&', '&amp;')
    return f'<html><head><title>{t} – transformer_nb</title></head><body><h1 class="title">{t}</h1></body></html>'

def test_check_site_reads_titles_as_pandoc_writes_them(tmp_path):
    nbs, site = tmp_path / 'nbs', tmp_path / '_docs'
    nbs.mkdir(); site.mkdir()
    titles = {'index': 'transformer_nb', 'apps_commands': "apps_commands: the commands' machinery",
              '03_ffn': 'The `FeedForward` *block* & friends'}
    page = lambda stem: site / nbpath2html(nbs / f'{stem}.ipynb').name
    for stem, title in titles.items():
        (nbs / f'{stem}.ipynb').write_text(json.dumps({'cells': [{'cell_type': 'markdown', 'source': [f'# {title}']}]}))
        page(stem).write_text(pandoc_page(title), encoding='utf-8')
    assert 'the commands’ machinery' in page('apps_commands').read_text(encoding='utf-8')
    assert check_site.problems(site, nbs) == []
    page('apps_commands').write_text(pandoc_page('apps_commands: another title'), encoding='utf-8')
    page('03_ffn').unlink()
    assert [b.split(':')[0] for b in check_site.problems(site, nbs)] == ['03_ffn.ipynb', 'apps_commands.ipynb']

import check_docs                                                      # noqa: E402

def _showdoc_cell(md:str) -> dict:
    return {'cell_type': 'code', 'source': ['show_doc(f)'], 'outputs': [{'data': {'text/markdown': md}}]}

NOISY = ('---\n\n### model_from_checkpoint\n\n```python\ndef model_from_checkpoint(\n    ckpt_or_path, device:NoneType=None,\n'
         '    name:NoneType=None, # how errors name a checkpoint given as a dict\n)->tuple:\n```\n\n*A model.*')

def test_the_api_check_finds_noise_and_missing_source_links():
    assert check_docs.api_problems({'lib_checkpoints.ipynb': [_showdoc_cell(NOISY)]}) == [
        "lib_checkpoints.ipynb: model_from_checkpoint: 'NoneType' in its signature", 'lib_checkpoints.ipynb: model_from_checkpoint: no link to its source']
    for noise in ('cfg:__main__.TransformerConfig', 'backward:function=<lambda>', 'x=<function f at 0x7f>'):
        md = NOISY.replace('ckpt_or_path', noise).replace('---\n\n', '---\n\n[source](https://github.com/a/b/blob/main/m.py#L1)\n\n')
        assert len(check_docs.api_problems({'x.ipynb': [_showdoc_cell(md)]})) == 1, noise

def test_api_entries_are_written_from_the_source():
    from apidocs import api_entries, api_entry                        # tools/apidocs.py: the site's code, not the package's
    cell = _showdoc_cell(NOISY)
    api_entries(cell)
    md = cell['outputs'][0]['data']['text/markdown']
    assert 'device=None' in md and 'NoneType' not in md and '# how errors name a checkpoint' in md, md
    assert check_docs.api_problems({'lib_checkpoints.ipynb': [cell]}) == [], md
    assert '/blob/main/transformer_nb/lib/checkpoints.py#L' in md
    cls = api_entry('---\n\n### AttentionExplorer\n\n```python\ndef AttentionExplorer(\n    data:dict, start:VAR_KEYWORD\n):\n```\n')
    assert 'class AttentionExplorer(' in cls and 'def AttentionExplorer' not in cls
    prop = api_entry('---\n\n### ModelConfig.max_positions\n\n```python\ndef max_positions(\n    \n):\n```\n')
    assert '/blob/main/transformer_nb/lib/options.py#L' in prop and '->int|None' in prop, prop   # a property

def test_the_docs_workflow_builds_with_the_preview_script_and_checks_for_other_hosts():
    "KaTeX and the live translator come from the site: _quarto.yml's maths URL is relative, and the docs workflow builds"
    " the site with the contributor's command, tools/preview.py, which writes _docs/live/ after rendering (nbdev never"
    " meets node_modules) with both published models, and fails on any load from another host (tools/check_hosts.py)."
    import yaml
    q = yaml.safe_load((NBS / '_quarto.yml').read_text(encoding='utf-8'))
    url = q['format']['html']['html-math-method']['url']
    assert not re.match(r'\w+:|//', url) and url == 'live/katex/', url
    assert 'colab-badge.svg' in q['project']['resources'] and (NBS / 'colab-badge.svg').is_file()
    flow = (ROOT / '.github' / 'workflows' / 'deploy.yaml').read_text(encoding='utf-8')
    assert flow.index('python tools/preview.py --no-serve') < flow.index('tools/check_hosts.py _docs') < flow.index('Publish')
    import preview                                                     # tools/preview.py
    steps = ' '.join(__import__('inspect').getsource(f) for f in (preview.pages, preview.live, preview.check))
    for step in ('nbdev-docs', "'npm'", "'ci'", 'vendor.mjs', 'tnb-export', 'check_site.py', 'check_hosts.py'):
        assert step in steps, f"tools/preview.py does not run {step}"
    assert set(preview.MODELS) == {'de-en', 'en-de'} and preview.site_env()['TNB_SITE'] == '1'
    assert str(ROOT / 'tools') in preview.site_env()['PYTHONPATH'].split(__import__('os').pathsep)

def test_the_preview_script_says_its_recipe():
    import contextlib, io, preview
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf), pytest.raises(SystemExit) as e: preview.main(['--help'])
    assert e.value.code == 0 and 'python tools/preview.py' in buf.getvalue() and 'npm ci' in buf.getvalue()

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

# --- no page loads anything from another host (tools/check_hosts.py) -------------------------------------------------

import check_hosts                                                     # noqa: E402

def test_the_host_check_finds_every_kind_of_load():
    page = """<script src="https://cdn.example/x.js"></script><link rel="stylesheet" href="//fonts.example/a.css">
    <img srcset="a.png 1x, https://img.example/b.png 2x"><iframe src="http://frame.example/"></iframe>
    <div style="background:url('https://bg.example/i.png')"></div><style>@import "https://css.example/c.css";</style>
    <script type="module">import x from 'https://esm.example/m.js'; fetch(`https://api.example/q`);</script>
    <object data="https://obj.example/o.swf"></object><video poster="https://vid.example/p.jpg"></video>"""
    assert sorted(check_hosts.html_loads(page)) == sorted(['https://cdn.example/x.js', '//fonts.example/a.css', 'https://img.example/b.png',
        'http://frame.example/', 'https://esm.example/m.js', 'https://api.example/q', 'https://obj.example/o.swf',
        'https://vid.example/p.jpg', 'https://css.example/c.css', 'https://bg.example/i.png'])
    fine = """<a href="https://github.com/x">source</a><link rel="canonical" href="https://site.example/p.html">
    <meta property="og:image" content="https://site.example/i.png"><img src="figure.png"><script src="site_libs/q.js"></script>
    <script type="application/json">{"u": "https://data.example/"}</script><p>see https://example.org</p>
    <script>const ns = 'http://www.w3.org/2000/svg'; fetch(new URL('live/x', location.href))</script>"""
    assert check_hosts.html_loads(fine) == []
    assert check_hosts.css_loads("a{src:url(fonts/k.woff2)} b{src:url( 'https://f.example/k.woff2' )}") == ['https://f.example/k.woff2']
    assert check_hosts.markdown_loads('![a](https://i.example/a.png) [a link](https://example.org) ![b](b.png)') == ['https://i.example/a.png']

def test_the_host_check_reads_a_built_site(tmp_path):
    (tmp_path / 'a.html').write_text('<img src="https://x.example/i.png"><a href="https://ok.example">ok</a>', encoding='utf-8')
    (tmp_path / 'site_libs').mkdir()
    (tmp_path / 'site_libs' / 's.css').write_text('@font-face{src:url(https://fonts.example/f.woff2)}', encoding='utf-8')
    (tmp_path / 'b.mjs').write_text("export const m = await import('https://esm.example/m.js');", encoding='utf-8')
    (tmp_path / 'c.html.md').write_text('![x](https://md.example/x.png)', encoding='utf-8')      # a Markdown copy: no page
    assert check_hosts.site_problems(tmp_path) == ['a.html: loads https://x.example/i.png', 'b.mjs: loads https://esm.example/m.js',
                                                   'site_libs/s.css: loads https://fonts.example/f.woff2']
    assert check_hosts.main([str(tmp_path)]) == 1
    for p in tmp_path.rglob('*.*'): p.unlink()
    assert check_hosts.site_problems(tmp_path) == [] and check_hosts.main([str(tmp_path)]) == 0

def _nb(tmp_path, cells, metadata=None) -> Path:
    p = tmp_path / 'x.ipynb'
    p.write_text(json.dumps({'cells': cells, 'metadata': metadata or {}}), encoding='utf-8')
    return p

def test_the_host_check_finds_widgets_and_loads_in_notebooks(tmp_path):
    badge = {'cell_type': 'markdown', 'id': 'colab-badge', 'source': [f'<a href="https://colab.research.google.com/x"><img src="{check_hosts.COLAB_BADGE}" alt="Open In Colab"></a>']}
    prose = {'cell_type': 'markdown', 'source': ['Read [the paper](https://arxiv.org/abs/1706.03762).']}
    assert check_hosts.notebook_problems(_nb(tmp_path, [badge, prose])) == []
    widget = {'cell_type': 'code', 'id': 'w', 'source': ['for x in tqdm(xs): pass'], 'outputs': [
        {'output_type': 'display_data', 'data': {check_hosts.WIDGET: {'model_id': 'a'}, 'text/plain': ['  0%|']}}]}
    html = {'cell_type': 'code', 'source': ['HTML(...)'], 'outputs': [
        {'output_type': 'execute_result', 'data': {'text/html': ['<script src="https://unpkg.com/x@*/embed.js"></script>']}}]}
    image = {'cell_type': 'markdown', 'source': ['![chart](https://img.example/c.png)']}
    bad = check_hosts.notebook_problems(_nb(tmp_path, [badge, widget, html, image], {'widgets': {'state': {}}}))
    assert bad == ['x.ipynb: stores widget state (metadata.widgets)',
                   'x.ipynb cell 1 (w): a stored widget output (its page would load widget scripts from a CDN)',
                   'x.ipynb cell 2: its text/html output loads https://unpkg.com/x@*/embed.js',
                   'x.ipynb cell 3: Markdown loads https://img.example/c.png'], bad

@pytest.mark.parametrize('p', sorted(NBS.glob('*.ipynb')), ids=lambda p: p.stem)
def test_no_notebook_makes_its_page_load_from_another_host(p):
    "No stored output, widget or Markdown image of a notebook loads anything from another host on its page."
    bad = check_hosts.notebook_problems(p)
    assert not bad, '\n'.join(bad)

# --- the site's own docs processors (tools/site_html.py) --------------------------------------------------------------

import site_html                                                       # noqa: E402

def test_the_front_translator_replaces_the_cells_words_on_the_site_only(monkeypatch):
    cell = {'cell_type': 'markdown', 'source': f"## Try it\n\nWhat the model knows.\n\n{site_html.MARKER}\nOn the site it runs here."}
    readme = {**cell}
    monkeypatch.delenv('TNB_SITE', raising=False)
    site_html.front_translator(readme)
    assert readme['source'] == cell['source'], "README keeps the cell's words"
    monkeypatch.setenv('TNB_SITE', '1')
    site_html.front_translator(cell)
    assert cell['source'].startswith('## Try it\n\nWhat the model knows.\n\n````{=html}\n<div class="tnb-front" id="tnb-front">')
    assert 'On the site it runs here' not in cell['source'] and "m.front(document.getElementById('tnb-front'))" in cell['source']
    nb = json.loads((NBS / 'index.ipynb').read_text(encoding='utf-8'))
    assert sum(site_html.MARKER in ''.join(c['source']) for c in nb['cells'] if c['cell_type'] == 'markdown') == 1

def test_a_table_cell_that_is_one_hyphenated_name_stays_whole_on_the_site_only(monkeypatch):
    "A run's record, a row or a seed alone in a table cell becomes a `tnb-whole` span (styles.css: nowrap); in cells of"
    " words only a name with hyphens does (pre-LN; see the next test); numbers, code and the rule line stay as they are,"
    " as do rows in fenced code and README's copy."
    table = ("| data | record | Δ |\n|---|---|---:|\n| multi30k de-en | m30k-de-en-small-e14-avg5-beam4 | -0.91 |\n"
             "| `tnb-train` | C-dff1024 | pre-LN and rope |\n\n```\n| a-b | c |\n```")
    cell = {'cell_type': 'markdown', 'source': table, 'outputs': []}
    out = {'cell_type': 'code', 'source': '', 'outputs': [{'data': {'text/markdown': table.split('\n\n')[0]}}]}
    monkeypatch.delenv('TNB_SITE', raising=False)
    site_html.whole_names(cell)
    assert cell['source'] == table, "README keeps the table as it is"
    monkeypatch.setenv('TNB_SITE', '1')
    site_html.whole_names(cell); site_html.whole_names(out)
    rows = cell['source'].split('\n')
    assert rows[:2] == table.split('\n')[:2]
    assert rows[2] == "| multi30k de-en | [m30k-de-en-small-e14-avg5-beam4]{.tnb-whole} | -0.91 |"
    assert rows[3] == "| `tnb-train` | [C-dff1024]{.tnb-whole} | [pre-LN]{.tnb-whole} and rope |"
    assert rows[-2] == "| a-b | c |", "a row inside fenced code is code"
    assert out['outputs'][0]['data']['text/markdown'] == '\n'.join(rows[:4])
    css = (NBS / 'styles.css').read_text(encoding='utf-8')
    assert re.search(r'main table \.tnb-whole \{\s*white-space: nowrap;', css)
    procs = (ROOT / 'pyproject.toml').read_text(encoding='utf-8')
    assert 'site_html:whole_names' in procs

def test_names_in_a_cell_of_words_stay_whole_on_the_site(monkeypatch):
    "In a cell of words, a name with hyphens that is no compound of lower-case words (a file, a language pair, a hash's"
    " name, pre-LN) and an arrow `->` become `tnb-whole` spans: use's table of the published models showed"
    " 'multi30k-de-/en.pt' and 'German -/> English' on a phone. A compound ('self-attention') may still break at its"
    " hyphen; code, links, maths and HTML in the cell are left as they are."
    monkeypatch.setenv('TNB_SITE', '1')
    from frontpage import models_table                                 # tools/frontpage.py: use's table of the published models
    cell = {'cell_type': 'code', 'source': '', 'outputs': [{'data': {'text/markdown': models_table().data}}]}
    site_html.whole_names(cell)
    md = cell['outputs'][0]['data']['text/markdown']
    assert '| German [->]{.tnb-whole} English, Multi30k' in md and '| [multi30k-de-en.pt]{.tnb-whole}, ' in md, md
    assert '`multi30k-de-en`' in md and '{.tnb-whole}`' not in md and '`[' not in md, "code stays as it is"
    row = "| a self-attention row | pre-LN, EN-DE and SHA-256 -> [m-1](06_model.ipynb#x-y) $d_{k}-1$ <b>C-1</b> `tnb-train --seed` |"
    assert site_html._whole_row(row) == ("| a self-attention row | [pre-LN]{.tnb-whole}, [EN-DE]{.tnb-whole} and [SHA-256]{.tnb-whole} "
                                         "[->]{.tnb-whole} [m-1](06_model.ipynb#x-y) $d_{k}-1$ <b>[C-1]{.tnb-whole}</b> `tnb-train --seed` |")
    assert site_html._whole_row(site_html._whole_row(row)) == site_html._whole_row(row), "a second pass changes nothing"

def test_the_colab_badge_comes_from_the_site(monkeypatch):
    md = f'<a href="https://colab.research.google.com/github/x"><img src="{site_html.COLAB_IMG}" alt="Open In Colab"></a>'
    monkeypatch.setenv('TNB_SITE', '1')
    cell = {'cell_type': 'markdown', 'source': md}
    site_html.colab_badge(cell)
    assert check_hosts.markdown_loads(cell['source']) == [] and 'href="https://colab.research.google.com/github/x"' in cell['source']
    monkeypatch.delenv('TNB_SITE')
    cell = {'cell_type': 'markdown', 'source': md}
    site_html.colab_badge(cell)
    assert cell['source'] == md

def test_the_link_check_reads_code_as_code(tmp_path):
    "A link written inside a fenced code block (apps_api_entries shows source that builds `[source]({url})`) is not checked; one outside"
    " it, or an image inside a raw HTML block, is."
    md = lambda s: {'cell_type': 'markdown', 'source': [s]}
    pages = {'a.ipynb': [md('```python\nf"[source]({url})"\n```\n\n[b](b.ipynb)\n\n```{=html}\n<img src="x.png">\n```\n')]}
    assert check_docs.check_links(pages, tmp_path) == ['a.ipynb: b.ipynb: there is no notebook b.ipynb',
                                                      f"a.ipynb: x.png resolves to nothing ({(tmp_path / 'x.png').resolve()})"]

def test_no_docs_page_has_a_cell_that_nbdev_warns_of():
    "nbdev's docs build runs every cell with an import (for the API entries) and warns, printing the whole cell, of one"
    " that also holds other code: each such cell is split, its imports apart. Checked with nbdev's own rules (`_do_eval`,"
    " and `add_show_docs`, which says which pages have API entries), on every notebook as the build reads it."
    import warnings
    from nbdev.process import NBProcessor
    from nbdev.processors import _do_eval, add_show_docs
    warned = []
    for path in sorted(NBS.glob('*.ipynb')):
        proc = NBProcessor(path, procs=[add_show_docs], rm_directives=False)
        proc.process()
        nb = proc.nb
        if not nb.has_docs_: continue                                   # nbdev runs no cell of a page without API entries
        for c in nb.cells:
            with warnings.catch_warnings(record=True) as w:
                warnings.simplefilter('always')
                _do_eval(c)
            if any('Found cells containing imports' in str(x.message) for x in w): warned.append(f"{path.name}: {c.source.splitlines()[0]}")
    assert not warned, warned

def test_the_preview_script_says_each_step_and_its_time(tmp_path):
    "tools/preview.py announces each step, stamps each line its tools print with the time since the step began, says when"
    " a tool is silent a while (Quarto renders in silence), ends with the steps' times, and --record writes them with the"
    " machine and its load, as the developers' page quotes them (results/site_build.json)."
    import contextlib, io, sys, preview
    preview.TIMES.clear()
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        with preview.step(1, 'a quick one'):
            preview.run(sys.executable, '-c', 'import time; print("first", flush=True); time.sleep(1.3); print("second")', quiet_after=0.5)
        preview.summary(str(tmp_path / 'times.json'), [0.5, 0.4, 0.3])
    out = buf.getvalue().splitlines()
    assert out[0] == 'preview: step 1/5: a quick one' and out[1].startswith('$ ') and out[2] == '  [ 0:00] first', out
    assert any(l.endswith('is still at work)') for l in out) and any(l.endswith('] second') for l in out), out
    assert re.fullmatch(r'preview: step 1/5 took \d+ s', out[out.index('preview: the build\'s steps took') - 1]), out
    rec = json.loads((tmp_path / 'times.json').read_text())
    assert [s['step'] for s in rec['steps']] == ['1. a quick one'] and rec['seconds'] > 0 and rec['load_before'] == [0.5, 0.4, 0.3]
    assert {'hardware', 'amx', 'cores', 'date', 'load_after', 'about'} <= set(rec)
    assert preview.clock(42.4) == '42 s' and preview.clock(185) == '3 min 05 s'
    preview.TIMES.clear()

def test_an_anchor_that_is_no_heading_is_set_by_the_page_script():
    "check_docs.SCRIPT_ANCHORS: each id it accepts without a heading is one the live translator's script gives its host."
    app = (ROOT/'nbs'/'live'/'app.mjs').read_text(encoding='utf-8')
    for page, ids in check_docs.SCRIPT_ANCHORS.items():
        assert (ROOT/'nbs'/page).is_file(), page
        for i in ids: assert f"host.id = '{i}'" in app, (page, i)
    assert check_docs.check_links({'a.ipynb': [{'cell_type': 'markdown', 'source': ['[x](b.ipynb#translator)']}],
                                   'b.ipynb': [{'cell_type': 'markdown', 'source': ['# B']}]}, ROOT/'nbs') == \
        ['a.ipynb: b.ipynb#translator: no heading #translator in b.ipynb']


def test_a_wide_figure_enlarged_on_a_phone_pans_at_a_readable_size():
    "GLightbox fits an enlarged figure to a phone's width (its img: width 100vw at most, object-fit: cover, a flex item"
    " that the 390-px box shrinks): on a phone styles.css gives the image 85% of the screen's height, its width"
    " following (flex: none, so the box cannot shrink it; object-fit: contain, so nothing is cropped), in a box that"
    " scrolls sideways. Checked in Chromium at 390 px on 12's four attention maps (1086x285): 2,734 px wide, panned."
    css = (NBS / 'styles.css').read_text(encoding='utf-8')
    block = re.search(r'@media \(max-width: 600px\) \{\s*\.glightbox-container \.gslide-media\.gslide-image \{(.*?)\}\s*'
                      r'\.glightbox-container \.gslide-image img \{(.*?)\}', css, re.S)
    assert block, "the phone's lightbox rules are gone from styles.css"
    box, img = (dict(re.findall(r'([\w-]+):\s*([^;]+);', re.sub(r'/\*.*?\*/', '', b, flags=re.S))) for b in block.groups())
    assert box['overflow-x'] == 'auto' and box['max-width'].startswith('100vw')
    assert {k: img[k].replace(' !important', '') for k in ('width', 'height', 'max-width', 'object-fit', 'flex')} == \
        {'width': 'auto', 'height': '85vh', 'max-width': 'none', 'object-fit': 'contain', 'flex': 'none'}
    assert all(img[k].endswith('!important') for k in ('width', 'max-width', 'object-fit', 'flex')), "GLightbox's own rules would win"


def _rule(css:str, selector:str) -> dict:
    "The declarations of the rule whose selector list holds `selector` (comments left out)."
    css = re.sub(r'/\*.*?\*/', '', css, flags=re.S)
    for sels, body in re.findall(r'([^{}]+)\{([^{}]*)\}', css):
        if selector in [s.strip() for s in sels.split(',')]: return dict(re.findall(r'([\w-]+):\s*([^;]+);', body))
    raise AssertionError(f"styles.css has no rule for {selector}")

def test_names_in_tables_stay_whole_over_the_rules_that_would_break_them():
    "Code in a table never breaks at a hyphen, by a rule as specific as the one that lets code elsewhere wrap and after it;"
    " links wrap at spaces only, by a rule more specific than Bootstrap's `.table a { word-break: break-word }` (which"
    " split 'Sennrich' on 14's first table at 390 px); a table's first column in an output stays whole."
    css = (NBS / 'styles.css').read_text(encoding='utf-8')
    wrap, whole = 'main table :not(pre) > code:not(.sourceCode)', 'main table code'
    assert _rule(css, whole)['white-space'] == 'nowrap' and _rule(css, wrap)['white-space'] == 'nowrap'
    anywhere = 'main :not(pre) > code:not(.sourceCode)'                  # code elsewhere wraps (break-spaces): the table rule comes after it
    assert _rule(css, anywhere)['white-space'] == 'break-spaces' and css.index(f'{wrap}, {whole}') > css.index(anywhere + ' {')
    link = _rule(css, 'main .table a')                                   # (0,1,2) > Bootstrap's (0,1,1)
    assert link['word-break'] == 'keep-all' and link['overflow-wrap'] == 'normal' and link['white-space'] == 'normal'
    assert _rule(css, '.cell-output-display table td:first-child')['white-space'] == 'nowrap'


# --- the site's tables in a real browser (tests/site_names.mjs; the tier of slow tests) ----------------------------------

def quarto_table_html(md:str, output:bool) -> str:
    "A Markdown table as Quarto writes it on the site: test_live's `table_html`, its `tnb-whole` spans as spans, the"
    " column widths Pandoc gives a pipe table with a line longer than 72 characters (the share of each column's dashes),"
    " and a cell output's classes (Quarto's `table-sm table-striped small`)."
    from test_live import table_html
    html = re.sub(r'\[([^\]]*)\]\{\.tnb-whole\}', r'<span class="tnb-whole">\1</span>', table_html(md))
    lines = md.strip().splitlines()
    if max(map(len, lines)) > 72:
        dashes = [len(c.strip(' :')) for c in lines[1].strip()[1:-1].split('|')]
        html = html.replace('<thead>', '<colgroup>' + ''.join(f'<col style="width: {100 * d / sum(dashes):.0f}%">' for d in dashes) + '</colgroup><thead>', 1)
    return html.replace('class="caption-top table"', 'class="caption-top table table-sm table-striped small"') if output else html

def site_tables_page(folder:Path) -> Path:
    "Every Markdown table of the notebooks (test_live's `markdown_tables`) as the site's docs processors leave it"
    " (site_html.whole_names) and Quarto lays it out, with the site's stylesheet."
    import shutil
    from test_live import QUARTO_TABLES, markdown_tables
    folder.mkdir(parents=True, exist_ok=True)
    shutil.copy(NBS / 'styles.css', folder / 'styles.css')
    parts = []
    for i, (nb, t, output) in enumerate(markdown_tables(kinds=True)):
        cell = {'cell_type': 'code', 'source': '', 'outputs': [{'data': {'text/markdown': t}}]}
        site_html.whole_names(cell)
        table = quarto_table_html(cell['outputs'][0]['data']['text/markdown'], output)
        parts.append(f'<div class="cell-output cell-output-display" data-from="{nb} {i}">{table}</div>' if output else f'<section data-from="{nb} {i}">{table}</section>')
    small = ' .table-sm>:not(caption)>*>*{padding:.25rem .25rem} .small{font-size:.875em}'
    (folder / 'index.html').write_text('<!doctype html><html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">'
                                       f'<link rel="icon" href="data:,"><style>{QUARTO_TABLES}{small}</style><link rel="stylesheet" href="styles.css"></head>'
                                       f'<body><main>{"".join(parts)}</main></body></html>', encoding='utf-8')
    return folder

@pytest.mark.slow
def test_names_in_the_sites_tables_stay_on_one_line_in_chromium(tmp_path, monkeypatch):
    "Every Markdown table of the notebooks as the site shows it (whole_names, Quarto's column widths and classes, the"
    " site's stylesheet), in headless Chromium 390 and 1,400 px wide: no name of a cell on two lines, measured on its"
    " line boxes (a file 'multi30k-de-en.pt', an arrow '->', a row 'C-dff1024', code `tnb-train`), every table within"
    " the window or scrolling in its own box, the page no wider than the window. Before names in cells of words were"
    " kept whole, use's table of the published models split 'multi30k-de-/en.pt' and '-/>' at 390 px."
    import os, subprocess
    from test_live import chromium, playwright, serve
    playwright(); chromium()
    monkeypatch.setenv('TNB_SITE', '1')
    with serve(site_tables_page(tmp_path / 'site')) as url:
        got = {}
        for width in (390, 1400):
            r = subprocess.run(['node', ROOT / 'tests' / 'site_names.mjs', url], capture_output=True, text=True, encoding='utf-8', timeout=120,
                               env={**os.environ, 'CHROMIUM': chromium(), 'WIDTH': str(width)})
            assert r.returncode == 0, r.stderr[-2000:]
            got[width] = json.loads(r.stdout)
    for width, out in got.items():
        assert not out['errors'], out['errors']
        assert any(t['from'].startswith('use.ipynb') for t in out['tables']), "use's table of the published models is measured"
        assert not out['split'], (width, out['split'][:5])
        assert all(t['right'] <= out['width'][1] for t in out['tables']), (width, [t for t in out['tables'] if t['right'] > out['width'][1]][:3])
        assert out['width'][0] <= out['width'][1], (width, out['width'])
