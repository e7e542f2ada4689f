"""The shape of the course: the paper path reads §3 to §6.3 in order, each paper notebook stays short enough to read
(at most 70 cells and 5,000 words of prose), and every notebook links its neighbours by their `.ipynb` names, which
work in Jupyter and which Quarto turns into the site's pages."""
import json, re
from pathlib import Path
import pytest

NBS = Path(__file__).resolve().parents[1] / 'nbs'
PAPER = sorted(p for p in NBS.glob('[0-9][0-9]_*.ipynb'))

COLAB = ('colab-badge', 'colab-setup')      # the same two cells in every notebook (tools/colab.py): not the course's text

def cells(p): return [c for c in json.loads(p.read_text(encoding='utf-8'))['cells'] if c.get('id') not in COLAB]
def prose_words(p) -> int:
    "Words of the markdown cells, counted as runs of word characters (formulas and code spans included)."
    return len(re.findall(r'\w+', '\n'.join(''.join(c['source']) for c in cells(p) if c['cell_type'] == 'markdown')))

def test_the_paper_path_is_complete_and_in_order():
    assert [p.name[:2] for p in PAPER] == ['00', '01', '02', '03', '04', '05', '06', '07', '08', '09', '10', '11', '12']

@pytest.mark.parametrize('p', PAPER, ids=lambda p: p.stem)
def test_paper_notebooks_stay_short(p):
    assert len(cells(p)) <= 70, f"{p.name}: {len(cells(p))} cells"
    assert prose_words(p) <= 5000, f"{p.name}: {prose_words(p):,} words of prose"

@pytest.mark.parametrize('p', sorted(NBS.glob('*.ipynb')), ids=lambda p: p.stem)
def test_navigation_links_notebooks(p):
    md = [''.join(c['source']) for c in cells(p) if c['cell_type'] == 'markdown']
    links = [l for t in md for l in re.findall(r'\]\(([^)#\s]+)', t) if not l.startswith(('http', 'mailto'))]
    assert not [l for l in links if l.endswith('.html')], f"{p.name} links pages by their .html name"
    for l in links:
        if l.endswith('.ipynb'): assert (NBS / l).is_file(), f"{p.name} links {l}, which does not exist"
    if p.stem != 'index': assert '(index.ipynb)' in md[1] and '(index.ipynb)' in md[-1], f"{p.name}: no navigation at the top and bottom"
