"""Check a rendered docs site (after `nbdev-docs`, which needs Quarto): every notebook in nbs/ produced its page, and
each page carries its notebook's title as Pandoc writes it: markdown emphasis and code marks dropped (underscores inside
words, as in transformer_nb, kept), straight quotes and apostrophes compared with Pandoc's curly ones. The deploy
workflow runs this after rendering, on pull requests too.

    python tools/check_site.py            # the site in _docs/ (pyproject.toml's doc_path)
    python tools/check_site.py SITE_DIR
"""
import html, json, re, sys
from pathlib import Path
from nbdev.config import nbpath2html
try: import tomllib                              # Python 3.11+
except ModuleNotFoundError: import tomli as tomllib

ROOT = Path(__file__).resolve().parents[1]

QUOTES = str.maketrans({'\u2018': "'", '\u2019': "'", '\u201c': '"', '\u201d': '"'})

def plain(text:str) -> str:
    "`text` with Pandoc's smart quotes made straight and runs of white space made one space, for comparing titles."
    return re.sub(r'\s+', ' ', text.translate(QUOTES))

def shown_title(title:str) -> str:
    "A markdown title as the page shows it: code marks and emphasis (`*x*`, `_x_` at word edges) dropped, quotes straight."
    t = re.sub(r'`([^`]*)`', r'\1', title)
    t = re.sub(r'(\*{1,2})(\S(?:.*?\S)?)\1', r'\2', t)
    t = re.sub(r'(?<!\w)(_{1,2})(\S(?:.*?\S)?)\1(?!\w)', r'\2', t)
    return plain(t)

def problems(site:Path, nbs:Path) -> list[str]:
    "One line per notebook whose page is missing from `site` or does not show its title; [] when all are there."
    bad = []
    for nb in sorted(nbs.glob('*.ipynb')):
        page = site / nbpath2html(nb).name
        title = re.match(r'#\s+(.*)', ''.join(json.loads(nb.read_text(encoding='utf-8'))['cells'][0]['source'])).group(1).strip()
        if not page.is_file(): bad.append(f"{nb.name}: no page {page}"); continue
        text = plain(html.unescape(re.sub(r'<[^>]+>', '', page.read_text(encoding='utf-8', errors='replace'))))
        if shown_title(title) not in text: bad.append(f"{nb.name}: {page} does not show its title {title!r}")
    return bad

def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    cfg = tomllib.loads((ROOT / 'pyproject.toml').read_text(encoding='utf-8'))['tool']['nbdev']
    site = Path(argv[0]) if argv else ROOT / cfg['doc_path']
    nbs = ROOT / cfg['nbs_path']
    if not site.is_dir(): print(f"{site}: no such folder (run nbdev-docs first)", file=sys.stderr); return 1
    bad = problems(site, nbs)
    for b in bad: print(b, file=sys.stderr)
    n = len(list(nbs.glob('*.ipynb')))
    print(f"{n - len(bad)} of {n} notebooks have their page in {site}")
    return 1 if bad else 0

if __name__ == '__main__': sys.exit(main())
