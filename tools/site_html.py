"""The docs site's own HTML, as nbdev docs processors (`doc_procs` in pyproject.toml): they change what the site shows and
nothing a notebook stores, so Jupyter, Colab and README keep the notebooks as they are.

- `live_explorer`: every attention explorer (apps_attention_explorer) gets the live translator: a module script that imports the
  site's `live/app.mjs` and attaches it to that explorer (`attach`).
- `front_translator`: the front page's translator. The one markdown cell of index.ipynb that holds `MARKER` keeps what
  stands before the marker (its heading and the line that says what the model knows); what follows the marker (the
  words for readers of README and Jupyter) becomes the translator (`front` of `live/app.mjs`).
- `raw_html`: each HTML output goes to the page as a raw HTML block, so that Quarto adds no require.js and jQuery from a
  CDN (it does for any HTML output, for widgets), which would also hide `window.katex` and leave the page's maths raw.
- `whole_names`: a table cell that holds one name with hyphens and nothing else (a run's record `m30k-de-en-small-avg5-beam4`,
  a row `C-dff1024`, a seed `base-seed1`) becomes a span of class `tnb-whole`, which styles.css keeps on one line: a
  browser may break after any hyphen, and a name broken there reads as two. In a cell of words, each name with hyphens
  that is no English compound (a file `multi30k-de-en.pt`, `EN-DE`, `SHA-256`, `pre-LN`: a digit, a capital, a dot or an
  underscore in it) and each arrow `->` (which broke as '-' at a line's end and '>' at the next one's start) becomes
  such a span too; a compound of lower-case words ('self-attention') may break at its hyphen as in running text, and
  the cell still wraps at its spaces. Code, links, maths and HTML in a cell are left as they are.
- `colab_badge`: the Colab badge's image comes from the site itself (colab-badge.svg, a resource in _quarto.yml), not
  from colab.research.google.com; the badge still links to Colab.

README.md is made from index.ipynb by the same processors (tools/make_readme.py), and it must keep the cell's words and
Colab's badge: the two processors that change what README would show act only when the site is built, which
tools/preview.py says by setting the environment variable TNB_SITE=1.

Docs-build code, not part of the installed package: the docs build imports it from tools/ (python tools/preview.py puts
tools/ on PYTHONPATH; so do tools/check_docs.py and tools/make_readme.py, which run from tools/). Nothing here fetches
anything: the scripts it writes load `live/app.mjs` from the site's own folder (Quarto's `quarto:offset` meta gives the
way from the page to the site's root).
"""
import json, os, re

MARKER = '<!-- live translator -->'
COLAB_IMG = 'https://colab.research.google.com/assets/colab-badge.svg'
_EXPLORER = re.compile(r'<div class="tnb-x" id="(tnb-x-[0-9a-f]+)">')

def _module_script(call:str, failed:str='', cls:str='') -> str:
    "An inline module script that imports the site's live/app.mjs and runs `call` (JavaScript, `m` the module), else `failed`."
    attr = f' class="{cls}"' if cls else ''
    return (f'<script type="module"{attr}>\n'
            "const root = document.querySelector('meta[name=\"quarto:offset\"]')?.content || './';\n"
            f"import(new URL(root + 'live/app.mjs', location.href).href).then(m => {call}, () => {{ {failed} }});\n</script>")

def _html(o) -> str|None:
    h = o.get('data', {}).get('text/html')
    return None if h is None else h if isinstance(h, str) else ''.join(h)

def live_explorer(cell):
    "nbdev docs processor: each attention explorer among `cell`'s HTML outputs gets the site's live translator."
    for o in cell.get('outputs', []):
        h = _html(o)
        if h is None or 'tnb-live-hook' in h: continue
        ids = _EXPLORER.findall(h)
        if not ids: continue
        hooks = ''.join(_module_script(f'm.attach(document.getElementById({json.dumps(i)}))', cls='tnb-live-hook') for i in ids)
        o['data']['text/html'] = h + hooks

FRONT = ('<div class="tnb-front" id="tnb-front"><p class="tnb-wait">The translator opens here, in your browser.</p></div>\n' +
         _module_script("m.front(document.getElementById('tnb-front'))",
                        "document.querySelector('#tnb-front .tnb-wait').textContent = 'This build of the site has no live "
                        "translator: python tools/preview.py builds one.';"))

def site() -> bool:
    "Whether the site is being built (tools/preview.py sets TNB_SITE=1), not README."
    return os.environ.get('TNB_SITE') == '1'

def front_translator(cell):
    "nbdev docs processor: the markdown cell that holds `MARKER` ends with the front page's translator instead of its words."
    if not site() or cell.get('cell_type') != 'markdown' or MARKER not in cell['source']: return
    before = cell['source'].split(MARKER, 1)[0].rstrip()
    fence = '`' * 4
    cell['source'] = f"{before}\n\n{fence}{{=html}}\n{FRONT}\n{fence}\n"

def colab_badge(cell):
    "nbdev docs processor: the Colab badge's image from the site itself (colab-badge.svg); its link still opens Colab."
    if site() and cell.get('cell_type') == 'markdown' and COLAB_IMG in cell['source']:
        cell['source'] = cell['source'].replace(f'src="{COLAB_IMG}"', 'src="colab-badge.svg"')

_WHOLE = re.compile(r'[A-Za-z0-9][\w.+]*(?:-[\w.+]+)+')   # one name with hyphens: no space, no markup

# In a cell of words: a name with hyphens (not inside a longer run of letters, hyphens or dots), or an arrow `->`
_NAME = re.compile(r'(?<![\w.+\-])[A-Za-z0-9][\w.+]*(?:-[\w+]+(?:\.[\w+]+)*)+(?![\w\-])|(?<![-=<])->(?![->])')
# What a cell's text leaves as it is: code, maths, a link or a span (text and target), HTML, an escaped character
_KEEP = re.compile(r'(`+).*?\1|\$[^$]*\$|!?\[[^\]]*\](?:\([^)]*\)|\{[^}]*\})|<[^>]*>|\\.')

def _is_name(tok:str) -> bool:
    "An arrow, or a name with hyphens that is no compound of lower-case words ('self-attention' may break, 'pre-LN' not)."
    return tok == '->' or not re.fullmatch(r'[a-z]+(?:-[a-z]+)+', tok)

def _whole_words(text:str) -> str:
    "A cell of words with each name with hyphens (see `_is_name`) and each arrow as a `tnb-whole` span."
    out, at = [], 0
    for k in [*_KEEP.finditer(text), None]:
        end = k.start() if k else len(text)
        out.append(_NAME.sub(lambda m: f'[{m.group(0)}]{{.tnb-whole}}' if _is_name(m.group(0)) else m.group(0), text[at:end]))
        if k: out.append(k.group(0)); at = k.end()
    return ''.join(out)

def _whole_row(line:str) -> str:
    "A pipe table's row with each cell that is one hyphenated name as a `tnb-whole` span, and in the other cells each name"
    " with hyphens that is no English compound and each arrow `->` as one; other rows as they are."
    s = line.strip()
    if not (s.startswith('|') and s.endswith('|')) or '\\|' in s or set(s) <= set('|-: '): return line
    cells = s[1:-1].split('|')
    new = [f' [{c.strip()}]{{.tnb-whole}} ' if _WHOLE.fullmatch(c.strip()) else _whole_words(c) for c in cells]
    return line if new == cells else line[:len(line) - len(line.lstrip())] + '|' + '|'.join(new) + '|'

def whole_names(cell):
    "nbdev docs processor: in the site's tables (markdown cells and Markdown outputs), a cell that is one hyphenated name stays whole."
    if not site(): return
    def fix(md:str) -> str:                                                    # rows outside fenced code only
        out, fence = [], None
        for l in md.split('\n'):
            m = re.match(r'\s*(`{3,}|~{3,})', l)
            if m and fence is None: fence = m.group(1)[0] * len(m.group(1))
            elif m and fence and m.group(1).startswith(fence): fence = None
            out.append(l if fence or m else _whole_row(l))
        return '\n'.join(out)
    if cell.get('cell_type') == 'markdown': cell['source'] = fix(cell['source'] if isinstance(cell['source'], str) else ''.join(cell['source']))
    for o in cell.get('outputs', []):
        d = o.get('data', {})
        if 'text/markdown' in d: d['text/markdown'] = fix(d['text/markdown'] if isinstance(d['text/markdown'], str) else ''.join(d['text/markdown']))

def raw_html(cell):
    "nbdev docs processor: each HTML output of `cell` goes to the page as a raw HTML block, so Quarto adds no scripts."
    for o in cell.get('outputs', []):
        d = o.get('data', {})
        if 'text/html' not in d: continue
        h = d.pop('text/html')
        h = h if isinstance(h, str) else ''.join(h)
        fence = '`' * max([3] + [len(b) + 1 for b in re.findall('`+', h)])     # longer than any run of backticks inside
        d['text/markdown'] = f'{fence}{{=html}}\n{h}\n{fence}\n'
