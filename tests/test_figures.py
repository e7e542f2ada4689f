"""The figures a learner reads are legible: every image stored in a paper notebook is at least 500 px wide and drawn at
100 dpi or more (matplotlib writes its dpi into the PNG's pHYs chunk), and each notebook's main line (before "Going
deeper") holds at least two figures. `CHECKED` lists the notebooks held to it so far."""
import base64, json, re, struct, zlib
from pathlib import Path
import pytest

NBS = Path(__file__).resolve().parents[1] / 'nbs'
CHECKED = ['00_core', '01_attention', '02_multihead', '03_ffn', '04_embeddings', '05_positional_encoding',
           '11_results', '12_variations', '13_parsing', '14_since_2017']
MIN_WIDTH, MIN_DPI, MIN_FIGURES = 500, 100, 2
GOING_DEEPER = re.compile(r'^#+\s*Going deeper', re.M | re.I)

def png_size(data:bytes) -> tuple[int, int, float|None]:
    "(width, height, dpi) of a PNG: the IHDR chunk, and the pHYs chunk's pixels per metre (None if it has none)."
    assert data[:8] == b'\x89PNG\r\n\x1a\n', "not a PNG"
    w, h = struct.unpack('>II', data[16:24])
    i = data.find(b'pHYs')
    dpi = None if i < 0 else struct.unpack('>I', data[i + 4:i + 8])[0] * 0.0254
    return w, h, dpi

def figures(cells:list) -> list[tuple[str, bool, bytes]]:
    "(cell id, before 'Going deeper', PNG bytes) of every stored image."
    out, main = [], True
    for c in cells:
        if c['cell_type'] == 'markdown' and GOING_DEEPER.search(''.join(c['source'])): main = False
        for o in c.get('outputs', []):
            if 'image/png' in o.get('data', {}): out.append((c.get('id'), main, base64.b64decode(o['data']['image/png'])))
    return out

def problems(cells:list) -> list[str]:
    "What is not legible in a notebook's cells: narrow or low-resolution images, fewer than two figures in its main line."
    out = []
    for cid, _, png in figures(cells):
        w, h, dpi = png_size(png)
        if w < MIN_WIDTH: out.append(f"cell {cid}: {w} px wide (at least {MIN_WIDTH})")
        if dpi is None or dpi < MIN_DPI - 0.5: out.append(f"cell {cid}: {'no' if dpi is None else f'{dpi:.0f}'} dpi (at least {MIN_DPI})")
    n = sum(main for _, main, _ in figures(cells))
    return out + ([f"{n} figures before 'Going deeper' (at least {MIN_FIGURES})"] if n < MIN_FIGURES else [])

def _png(w:int, h:int, dpi:float) -> bytes:
    "A minimal PNG of w x h grey pixels with a pHYs chunk for `dpi`."
    chunk = lambda kind, body: struct.pack('>I', len(body)) + kind + body + struct.pack('>I', zlib.crc32(kind + body))
    raw = b''.join(b'\x00' + b'\x80' * w for _ in range(h))
    return (b'\x89PNG\r\n\x1a\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', w, h, 8, 0, 0, 0, 0)) +
            chunk(b'pHYs', struct.pack('>IIB', round(dpi / 0.0254), round(dpi / 0.0254), 1)) +
            chunk(b'IDAT', zlib.compress(raw)) + chunk(b'IEND', b''))

def test_the_figure_checks_can_fail():
    img = lambda cid, w, dpi=100: {'cell_type': 'code', 'id': cid, 'source': ['plt.show()'],
                                   'outputs': [{'output_type': 'display_data', 'data': {'image/png': base64.b64encode(_png(w, 2, dpi)).decode()}}]}
    deeper = {'cell_type': 'markdown', 'id': 'gd', 'source': ['## Going deeper']}
    assert png_size(_png(640, 2, 100))[:2] == (640, 2) and round(png_size(_png(640, 2, 100))[2]) == 100
    assert problems([img('a', 640), img('b', 500)]) == []
    assert problems([img('a', 363), img('b', 640, dpi=80)]) == ["cell a: 363 px wide (at least 500)", "cell b: 80 dpi (at least 100)"]
    assert problems([img('a', 640), deeper, img('b', 640)]) == ["1 figures before 'Going deeper' (at least 2)"]

@pytest.mark.parametrize('nb', CHECKED)
def test_figures_are_legible(nb):
    cells = json.loads((NBS / f'{nb}.ipynb').read_text(encoding='utf-8'))['cells']
    assert not problems(cells), f"{nb}: {problems(cells)}"
