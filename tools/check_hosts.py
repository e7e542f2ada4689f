"""Check that the docs site loads nothing from another host: every script, style sheet, image, font, frame and fetch
comes from the site itself, so that a page reads the same offline, behind a firewall, or when a CDN is down, and tells
no other host who reads it.

What counts as a load: in HTML, `<script src>`, `<img src|srcset>`, `<source>`, `<video>`, `<audio>`, `<track>`,
`<iframe>`, `<embed>`, `<object data>`, `<input type=image>`, and `<link href>` of a kind the browser fetches (style
sheet, icon, preload, prefetch, manifest; not `canonical` or `alternate`); in CSS (files, `<style>`, `style=""`),
`url(...)` and `@import`; in JavaScript (files, inline scripts, notebook outputs), `import` and `import()` of a URL,
`fetch`, `new Worker`, `importScripts` and `.src =` with a URL written out. A URL names another host when it starts with
`http:`, `https:` or `//`. What does not count: links a reader follows (`<a href>`, Markdown links), text, and
`<meta>` (the social cards' addresses, which no browser fetches to show the page).

Notebooks (nbs/*.ipynb) are checked for the same in their outputs, and for what would make the site load widget
scripts from a CDN: a stored widget output (`application/vnd.jupyter.widget-view+json`) or widget state in the
notebook's metadata. Their Markdown may show images only from the repository, but for the Colab badge, whose image the
site serves itself (tools/site_html.py's `colab_badge`).

    python tools/check_hosts.py _docs          # the built site (tools/preview.py and the docs workflow run this)
    python tools/check_hosts.py --notebooks    # every notebook in nbs/ (tests/test_site.py runs this check)
"""
import json, re, sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUTSIDE = r'(?:https?:)?//(?!127\.0\.0\.1[:/]|localhost[:/])'         # a URL on another host
COLAB_BADGE = 'https://colab.research.google.com/assets/colab-badge.svg'
WIDGET = 'application/vnd.jupyter.widget-view+json'

_TAG = re.compile(r'<(script|img|source|video|audio|track|iframe|embed|object|input|link|image|use)\b([^>]*)>', re.I | re.S)
_ATTR = re.compile(r'''([\w:-]+)\s*=\s*("[^"]*"|'[^']*'|[^\s>]+)''', re.S)
_LINK_LOADS = {'stylesheet', 'icon', 'shortcut', 'apple-touch-icon', 'preload', 'modulepreload', 'prefetch', 'manifest',
               'mask-icon', 'preconnect', 'dns-prefetch', 'prerender'}
_CSS = [re.compile(rf'''url\(\s*['"]?({OUTSIDE}[^'")\s]*)''', re.I), re.compile(rf'''@import\s+['"]({OUTSIDE}[^'"]*)''', re.I)]
_JS = [re.compile(rf'''\bimport\s*\(\s*['"`]({OUTSIDE}[^'"`]*)'''), re.compile(rf'''\bfrom\s*['"]({OUTSIDE}[^'"]*)'''),
       re.compile(rf'''\bimport\s*['"]({OUTSIDE}[^'"]*)'''), re.compile(rf'''\bfetch\s*\(\s*['"`]({OUTSIDE}[^'"`]*)'''),
       re.compile(rf'''\bnew\s+(?:Shared)?Worker\s*\(\s*['"`]({OUTSIDE}[^'"`]*)'''), re.compile(rf'''\bimportScripts\s*\(\s*['"`]({OUTSIDE}[^'"`]*)'''),
       re.compile(rf'''\.src\s*=\s*['"`]({OUTSIDE}[^'"`]*)'''), re.compile(rf'''\.setAttribute\(\s*['"](?:src|href)['"]\s*,\s*['"`]({OUTSIDE}[^'"`]*)''')]
_SCRIPT = re.compile(r'<script\b([^>]*)>(.*?)</script>', re.I | re.S)
_STYLE = re.compile(r'<style\b[^>]*>(.*?)</style>', re.I | re.S)

def _outside(url:str) -> bool: return re.match(OUTSIDE, url.strip()) is not None

def css_loads(text:str) -> list[str]:
    "URLs on other hosts that CSS `text` loads."
    return [m.group(1) for r in _CSS for m in r.finditer(text)]

def js_loads(text:str) -> list[str]:
    "URLs on other hosts that JavaScript `text` loads, where it writes them out."
    return [m.group(1) for r in _JS for m in r.finditer(text)]

def html_loads(text:str) -> list[str]:
    "URLs on other hosts that HTML `text` loads: its elements, its styles and its inline scripts."
    out = []
    for tag, attrs in _TAG.findall(text):
        a = {k.lower(): v.strip('"\'') for k, v in _ATTR.findall(attrs)}
        tag = tag.lower()
        if tag == 'link':
            if set(a.get('rel', '').lower().split()) & _LINK_LOADS and _outside(a.get('href', '')): out.append(a['href'])
            continue
        if tag == 'input' and a.get('type', '').lower() != 'image': continue
        for k in ('src', 'data', 'poster', 'href', 'xlink:href') if tag in ('image', 'use') else ('src', 'data', 'poster'):
            if k in a and _outside(a[k]): out.append(a[k])
        for part in a.get('srcset', '').split(','):
            if part.strip() and _outside(part.split()[0]): out.append(part.split()[0])
        if 'style' in a: out += css_loads(a['style'])
    for attrs, body in _SCRIPT.findall(text):
        if not re.search(r'type\s*=\s*["\']?(application/json|text/plain)', attrs, re.I): out += js_loads(body)
    for body in _STYLE.findall(text): out += css_loads(body)
    out += [u for u in re.findall(r'''style\s*=\s*"([^"]*)"''', text) for u in css_loads(u)]
    return list(dict.fromkeys(out))

def markdown_loads(text:str) -> list[str]:
    "URLs on other hosts that Markdown `text` loads: images (`![..](url)`) and the HTML inside it."
    imgs = [m.group(1) for m in re.finditer(r'!\[[^\]]*\]\(\s*<?([^)\s>]+)', text) if _outside(m.group(1))]
    return list(dict.fromkeys(imgs + html_loads(text)))

def site_problems(site:Path) -> list[str]:
    "One line per file of the built site `site` that loads something from another host."
    bad = []
    for p in sorted(site.rglob('*')):
        if not p.is_file() or p.suffix not in ('.html', '.htm', '.css', '.js', '.mjs', '.svg'): continue
        text = p.read_text(encoding='utf-8', errors='replace')
        found = {'.css': css_loads, '.js': js_loads, '.mjs': js_loads}.get(p.suffix, html_loads)(text)
        bad += [f"{p.relative_to(site)}: loads {u}" for u in found]
    return bad

def notebook_problems(path:Path) -> list[str]:
    "One line per output, widget or Markdown image of the notebook `path` that would make its page load from another host."
    nb, bad = json.loads(path.read_text(encoding='utf-8')), []
    if 'widgets' in nb.get('metadata', {}): bad.append(f"{path.name}: stores widget state (metadata.widgets)")
    for i, c in enumerate(nb['cells']):
        where = f"{path.name} cell {i}" + (f" ({c['id']})" if c.get('id') else '')
        if c['cell_type'] == 'markdown':
            found = markdown_loads(''.join(c['source']).replace(f'src="{COLAB_BADGE}"', ''))
            bad += [f"{where}: Markdown loads {u}" for u in found]
            continue
        for o in c.get('outputs', []):
            d = o.get('data', {})
            if WIDGET in d: bad.append(f"{where}: a stored widget output (its page would load widget scripts from a CDN)")
            for mime, check in (('text/html', html_loads), ('text/markdown', markdown_loads), ('image/svg+xml', html_loads),
                                ('application/javascript', js_loads), ('text/javascript', js_loads)):
                if mime in d:
                    text = d[mime] if isinstance(d[mime], str) else ''.join(d[mime])
                    bad += [f"{where}: its {mime} output loads {u}" for u in check(text)]
    return bad

def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv == ['--notebooks']:
        bad = [b for p in sorted((ROOT / 'nbs').glob('*.ipynb')) for b in notebook_problems(p)]
        what = 'the notebooks'
    elif len(argv) == 1 and not argv[0].startswith('-'):
        site = Path(argv[0])
        if not site.is_dir(): print(f"{site}: no such folder (build the site first: python tools/preview.py --no-serve)", file=sys.stderr); return 1
        bad, what = site_problems(site), str(site)
    else:
        print(__doc__, file=sys.stderr); return 2
    for b in bad: print(b, file=sys.stderr)
    print(f"{what}: {len(bad)} load(s) from another host" if bad else f"{what}: nothing is loaded from another host")
    return 1 if bad else 0

if __name__ == '__main__': sys.exit(main())
