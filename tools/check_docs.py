"""Process every notebook into its docs page offline, as the deploy workflow's Quarto build would see it, and check
every internal link and image of the pages.

nbdev's `proc_nbs` runs the docs processors (directives, `show_doc`, exported and import cells) on each notebook and
raises when a page's cells fail. Quarto itself cannot be installed on machines without GitHub access, so this is the
check CI can run. It fails when a page would break, when any notebook produced no page, and when a link or an image of
a page resolves to nothing:

- a link to a notebook (`10_decoding.ipynb`, which works in Jupyter and which Quarto turns into the site's page) must
  name a notebook that exists, and an anchor after it (`#beam-search`) a heading of that notebook;
- an anchor alone (`#beam-search`) must name a heading of the page itself;
- a link to a bare `.html` page is refused: it opens nothing in Jupyter (link the `.ipynb`);
- any other relative link or image (`../results/x.json`, `figure.png`) must be a file that exists;
- a page link the live translator writes in its modules (`nbs/live/*.mjs`, a string such as
  `'apps_attention_explorer.html#translator'`) must name a notebook's page, and its anchor a heading of it or an id the
  script gives (SCRIPT_ANCHORS).

An anchor is the id Quarto (pandoc) gives the heading, which drops everything before the heading's first letter: the
heading "## 11_results" is `#results`, never `#11_results`.

It also reads every API entry (the output of `show_doc`) as the page will show it: a signature must name the package's
own types as the code writes them (no `__main__.`, no `NoneType` made up from a default of None, no `<lambda>` or
`<class ...>` or `<... object at 0x...>` reprs of defaults), and each entry links its source on GitHub.

    python tools/check_docs.py
"""
import json, re, sys, unicodedata
from pathlib import Path
from nbdev.config import get_config
from nbdev.serve import proc_nbs

LINK = re.compile(r'!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)')   # [text](target), ![alt](src)
IMG = re.compile(r'<img[^>]*\ssrc=["\']([^"\']+)["\']')
CODE = re.compile(r'^(`{3,}|~{3,})(?!\{=html\})[^\n]*\n.*?^\1[ \t]*$', re.M | re.S)   # a fenced code block (not a raw HTML one)

def prose(text:str) -> str:
    "`text` without its fenced code blocks: what looks like a link inside code (`[source]({url})`) is code, not a link."
    return CODE.sub('', text)

def slug(heading:str) -> str:
    "The anchor Quarto (pandoc) gives a heading: lower case, markup and punctuation dropped, spaces to hyphens, and"
    " everything before the first letter dropped (an id starts with a letter: '11_results' is 'results'), else 'section'."
    t = re.sub(r'`([^`]*)`', r'\1', heading)                         # code spans keep their text
    t = re.sub(r'\[([^\]]*)\]\([^)]*\)', r'\1', t)                    # links keep their text
    t = re.sub(r'\$[^$]*\$', lambda m: m.group(0)[1:-1], t)          # maths keeps its letters
    t = unicodedata.normalize('NFKC', t).lower()
    t = ''.join(ch for ch in t if ch.isalnum() or ch in ' -_.')
    t = re.sub(r'\s+', '-', t.strip()).strip('-')
    first = next((i for i, ch in enumerate(t) if ch.isalpha()), len(t))
    return t[first:] or 'section'

def headings(cells) -> set[str]:
    out = set()
    for c in cells:
        if c['cell_type'] != 'markdown': continue
        for line in ''.join(c['source']).splitlines():
            if m := re.match(r'#{1,6}\s+(.*?)\s*(\{#([^}]+)\})?\s*$', line):
                out.add(m.group(3) or slug(m.group(1)))
    return out

# Anchors that are no heading: the id the live translator gives the first attention explorer's translator on a page
# (nbs/live/app.mjs, `attach`), which 10_decoding links to land with the translator in view.
SCRIPT_ANCHORS = {'apps_attention_explorer.ipynb': {'translator'}}

def page_anchors(pages:dict) -> dict[str, set[str]]:
    "The anchors of each page of `pages` {notebook name: processed cells}: its headings' ids and those its script sets."
    return {name: headings(cells) | SCRIPT_ANCHORS.get(name, set()) for name, cells in pages.items()}

def check_links(pages:dict, nbs:Path) -> list[str]:
    "Problems with the internal links and images of `pages` {notebook name: processed cells}; [] when all resolve."
    anchors = page_anchors(pages)
    bad = []
    for name, cells in pages.items():
        for c in cells:
            text = ''.join(c['source']) if c['cell_type'] == 'markdown' else ''.join(
                o.get('data', {}).get('text/markdown', '') if isinstance(o.get('data', {}).get('text/markdown', ''), str)
                else ''.join(o['data']['text/markdown']) for o in c.get('outputs', []))
            text = prose(text)
            for target in [m.group(1) for m in LINK.finditer(text)] + IMG.findall(text):
                if re.match(r'^[a-z][a-z0-9+.-]*:', target): continue      # http:, https:, mailto:, data:
                path, _, anchor = target.partition('#')
                if not path:
                    if anchor not in anchors[name]: bad.append(f"{name}: #{anchor} is no heading of this page")
                elif path.endswith('.html') and '/' not in path:
                    bad.append(f"{name}: {target} links a docs page, which does not open in Jupyter: link the .ipynb")
                elif path.endswith('.ipynb') and '/' not in path:
                    if path not in pages: bad.append(f"{name}: {target}: there is no notebook {path}")
                    elif anchor and anchor not in anchors[path]: bad.append(f"{name}: {target}: no heading #{anchor} in {path}")
                elif not (nbs / path).exists():
                    bad.append(f"{name}: {target} resolves to nothing ({(nbs / path).resolve()})")
    return bad

# A page of the site written in the live translator's modules, at the end of a string or a template (before its quote,
# or a query): 'name.html', `${offset}name.html`, 'name.html#anchor'
LIVE_LINK = re.compile(r"""(?<![\w.-])([A-Za-z0-9_-][A-Za-z0-9_.-]*\.html)(?:#([\w-]*))?(?=['"`?])""")

def live_links(live:Path) -> list[tuple[str, str, str]]:
    "Every page link written in `live`'s modules (*.mjs): [(module, page, anchor or '')]."
    return [(f.name, m.group(1), m.group(2) or '') for f in sorted(live.glob('*.mjs'))
            for m in LIVE_LINK.finditer(f.read_text(encoding='utf-8'))]

def check_live_links(pages:dict, live:Path) -> list[str]:
    "Problems with the page links of the live translator's modules in `live` (a page that is no notebook of `pages`,"
    " an anchor that is no heading of it); [] when all resolve."
    anchors, bad = page_anchors(pages), []
    for module, page, anchor in live_links(live):
        nb = page.removesuffix('.html') + '.ipynb'
        if nb not in pages: bad.append(f"live/{module}: {page}: the site has no such page (no notebook {nb})")
        elif anchor and anchor not in anchors[nb]: bad.append(f"live/{module}: {page}#{anchor}: no heading #{anchor} in {nb}")
    return bad

NOISE = re.compile(r'__main__\.|NoneType|<lambda>|<class |<function |object at 0x')

def api_problems(pages:dict) -> list[str]:
    "Noise in the signatures of the API entries of `pages` {notebook name: processed cells}, and entries without a source link."
    bad = []
    for name, cells in pages.items():
        for c in cells:
            if c['cell_type'] != 'code' or 'show_doc(' not in ''.join(c['source']): continue
            for o in c.get('outputs', []):
                md = o.get('data', {}).get('text/markdown')
                if md is None: continue
                md = md if isinstance(md, str) else ''.join(md)
                for entry in md.split('\n---\n'):
                    head = re.search(r'^#+ (\S+)', entry, re.M)
                    sig = re.search(r'```python\n(.*?)\n```', entry, re.S)
                    if not (head and sig): continue
                    if m := NOISE.search(sig.group(1)): bad.append(f"{name}: {head.group(1)}: {m.group(0)!r} in its signature")
                    if '[source](https://github.com/' not in entry: bad.append(f"{name}: {head.group(1)}: no link to its source")
    return bad

def main():
    cfg = get_config()
    nbs = Path(cfg.nbs_path)
    cache = Path(proc_nbs(n_workers=2, skip_folder_re=r'^[_.]|^node_modules$'))   # nbs/live's npm packages are no pages
    srcs = sorted(p.relative_to(nbs) for p in nbs.glob('*.ipynb'))
    missing = [str(s) for s in srcs if not (cache/s).exists()]
    if missing: sys.exit(f"docs processing produced no page for {missing}")
    pages = {str(s): json.loads((cache/s).read_text())['cells'] for s in srcs}
    empty = [s for s, cells in pages.items() if not cells]
    if empty: sys.exit(f"docs pages without cells: {empty}")
    bad = check_links(pages, nbs) + check_live_links(pages, nbs / 'live')
    if bad: sys.exit(f"{len(bad)} broken link(s) in the docs pages:\n" + '\n'.join(bad))
    bad = api_problems(pages)
    if bad: sys.exit(f"{len(bad)} API entries that read as noise:\n" + '\n'.join(bad))
    n = sum(len(LINK.findall(''.join(c['source']))) for cells in pages.values() for c in cells if c['cell_type'] == 'markdown')
    entries = sum(len(re.findall(r'^#+ \S', ''.join(o['data']['text/markdown']), re.M)) for cells in pages.values() for c in cells
                  if 'show_doc(' in ''.join(c['source']) for o in c.get('outputs', []) if 'text/markdown' in o.get('data', {}))
    print(f"{len(srcs)} docs pages processed; their {n} links and images resolve; {entries} API entries read clean and link their source")

if __name__ == '__main__': main()
