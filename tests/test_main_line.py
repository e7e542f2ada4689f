"""The paper path's main lines, as a learner meets them in Jupyter or Colab: every code cell before the first "Going
deeper" heading counts, folded or not (`#| code-fold` folds only on the site), except `#| hide` cells; lines are
counted without blanks and `#|` directives. Each paper notebook shows at most 100 such lines (`OVER` would name a main
line still longer, with its count, which may only fall; none is), and the whole path at most `PATH_CODE_MAX` (the goal
is 1,100, The Annotated Transformer's size; the bound rises only for what the path is asked to add, said beside it); each main line holds at least 2 stored figures and the path at least 30, each legible (at least 500 px wide, at
least 100 dpi); each notebook has at least 3 exercises, whose checks live in `transformer_nb.course`, not in the
notebook; no paper notebook imports `hardware` or `git_commit` or sets threads; "Going deeper" is a level-2 heading
and everything under it level 3 or deeper. Each measure is shown failing on made-up cells first."""
import base64, json, re, struct
from pathlib import Path
import pytest

NBS = Path(__file__).resolve().parents[1] / 'nbs'
PAPER = sorted(NBS.glob('[0-9][0-9]_*.ipynb'))
CODE_MAX, PATH_CODE_MAX, FIGS_MIN, PATH_FIGS_MIN, EXERCISES_MIN = 100, 1_211, 2, 30, 3   # the path: 1,091 for 00-13, then 12's whole Table 3 (+10, and +1 for the GPU's table), 14_since_2017 (+100), 09's and 10's constants declared where they are taught (+2), rounding_tol imported where 01, 03, 04, 05, 07, 09 and 10 first use it (+7)
OVER = {}   # main lines still past CODE_MAX, with the most lines each may show: only falls, gone at CODE_MAX
WIDTH_MIN, DPI_MIN = 500, 100
GOING_DEEPER = re.compile(r'^(#+)\s*Going deeper', re.M | re.I)

def cells(p:Path) -> list: return json.loads(p.read_text(encoding='utf-8'))['cells']
def src(c) -> str: return ''.join(c['source'])

def main_line(cs:list) -> list:
    "The cells before the first 'Going deeper' heading."
    i = next((i for i, c in enumerate(cs) if c['cell_type'] == 'markdown' and GOING_DEEPER.search(src(c))), len(cs))
    return cs[:i]

def shown(c) -> bool: return c['cell_type'] == 'code' and not re.search(r'^#\|\s*hide\b', src(c), re.M)

def code_lines(cs:list) -> int:
    "Lines of code a learner sees in the main line: shown code cells, without blank lines and `#|` directives."
    return sum(1 for c in main_line(cs) if shown(c) for l in src(c).splitlines() if l.strip() and not l.strip().startswith('#|'))

def pngs(cs:list) -> list[bytes]:
    "The stored PNG images of the main line's code cells."
    return [base64.b64decode(''.join(o['data']['image/png']) if isinstance(o['data']['image/png'], list) else o['data']['image/png'])
            for c in main_line(cs) if c['cell_type'] == 'code' for o in c.get('outputs', []) if 'image/png' in o.get('data', {})]

def png_size(b:bytes) -> tuple[int, int, float|None]:
    "(width px, height px, dots per inch or None) of a PNG: its IHDR chunk, and its pHYs chunk if it has one."
    assert b[:8] == b'\x89PNG\r\n\x1a\n', 'not a PNG'
    w, h = struct.unpack('>II', b[16:24])
    i = b.find(b'pHYs')
    if i < 0: return w, h, None
    ppx, _, unit = struct.unpack('>IIB', b[i + 4:i + 13])
    return w, h, ppx * 0.0254 if unit == 1 else None

def exercises(cs:list) -> int:
    "Numbered exercises (`N. **Title.**`) in markdown cells under an 'Exercises' heading, anywhere in the notebook."
    n, under = 0, False
    for c in cs:
        if c['cell_type'] != 'markdown': continue
        s = src(c)
        if re.search(r'^#+\s', s, re.M): under = bool(re.search(r'^#+\s.*exercises', s, re.M | re.I))
        if under: n += len(re.findall(r'^\d+\. \*\*', s, re.M))
    return n

def heading_problems(cs:list) -> list[str]:
    "'Going deeper' must be a level-2 heading, and every heading after it level 3 or deeper."
    out, after = [], False
    for c in cs:
        if c['cell_type'] != 'markdown': continue
        for m in re.finditer(r'^(#+)\s+(.*)$', src(c), re.M):
            level, text = len(m[1]), m[2].strip()
            if re.match(r'going deeper', text, re.I):
                if level != 2: out.append(f"'{text}' is a level-{level} heading, not level 2")
                after = True
            elif after and level < 3: out.append(f"'{text}' (level {level}) is under Going deeper: make it level 3")
    return out

ENGINE = re.compile(r'''(?<!['"])\b(hardware|git_commit|limit_threads)\b(?!['"])''')   # names, not a record's 'hardware' field
def engineering(cs:list) -> list[str]:
    "The machine-room names a paper notebook's code uses (it must use none)."
    return sorted({m for c in cs if c['cell_type'] == 'code' for m in ENGINE.findall(src(c))})

def local_checkers(cs:list) -> list[str]:
    "Exercise checkers defined in the notebook itself (a `def check_...` in a cell that is not exported)."
    return [m for c in cs if c['cell_type'] == 'code' and not re.match(r'\s*#\|\s*export', src(c))
            for m in re.findall(r'^def (check_\w+)', src(c), re.M)]

# ---------------------------------------------------------------- each measure, shown failing
def _md(s): return {'cell_type': 'markdown', 'source': [s]}
def _code(s, outs=()): return {'cell_type': 'code', 'source': [s], 'outputs': list(outs)}

def _png(w, h, dpi):
    ihdr = b'\x00\x00\x00\rIHDR' + struct.pack('>II', w, h) + b'\x08\x06\x00\x00\x00' + b'\0' * 4
    phys = b'\x00\x00\x00\tpHYs' + struct.pack('>IIB', round(dpi / 0.0254), round(dpi / 0.0254), 1) + b'\0' * 4
    return {'output_type': 'display_data', 'data': {'image/png': base64.b64encode(b'\x89PNG\r\n\x1a\n' + ihdr + phys).decode()}}

def test_the_measures_can_fail():
    cs = [_code('a = 1\n\n#| code-fold: true\nb = 2'), _code('#| hide\nsecret = 1'), _code('x = 1', [_png(400, 300, 72)]),
          _md('## Going deeper'), _code('y = 2\n' * 500, [_png(800, 600, 100)])]
    assert code_lines(cs) == 3 and len(pngs(cs)) == 1                    # folded counts; hidden and deeper do not
    assert png_size(pngs(cs)[0])[:2] == (400, 300) and round(png_size(pngs(cs)[0])[2]) == 72
    assert exercises([_md('## Exercises\n\n1. **One.** a\n2. **Two.** b'), _md('### More exercises\n3. **Three.**'), _md('## Other\n4. **No.**')]) == 3
    assert heading_problems([_md('## Going deeper'), _md('### Fine'), _md('## Not fine')]) == ["'Not fine' (level 2) is under Going deeper: make it level 3"]
    assert heading_problems([_md('# Going deeper')]) == ["'Going deeper' is a level-1 heading, not level 2"]
    assert engineering([_code('from transformer_nb.lib.machine import hardware, limit_threads')]) == ['hardware', 'limit_threads']
    assert engineering([_code("print(r['hardware'], rec[\"hardware\"])")]) == []            # a record's field is not the machine room
    assert local_checkers([_code('def check_me(f):\n    pass'), _code('#| export\ndef check_rule(x): pass')]) == ['check_me']

# ---------------------------------------------------------------- the paper path
@pytest.mark.parametrize('p', PAPER, ids=lambda p: p.stem)
def test_a_main_line_shows_at_most_100_lines_of_code(p):
    most = OVER.get(p.stem, CODE_MAX)
    assert code_lines(cells(p)) <= most, f"{p.name}: {code_lines(cells(p))} lines of code before Going deeper (at most {most})"
    if p.stem in OVER: assert code_lines(cells(p)) > CODE_MAX, f"{p.name} is within {CODE_MAX} lines now: remove it from OVER"

def test_the_path_shows_at_most_its_bound_of_code():
    n = {p.stem: code_lines(cells(p)) for p in PAPER}
    assert sum(n.values()) <= PATH_CODE_MAX, f"{sum(n.values())} lines of code in the main lines (at most {PATH_CODE_MAX}): {n}"

@pytest.mark.parametrize('p', PAPER, ids=lambda p: p.stem)
def test_a_main_line_holds_two_legible_figures(p):
    imgs = [png_size(b) for b in pngs(cells(p))]
    assert len(imgs) >= FIGS_MIN, f"{p.name}: {len(imgs)} figures before Going deeper (at least {FIGS_MIN})"
    small = [(w, h, dpi and round(dpi)) for w, h, dpi in imgs if w < WIDTH_MIN or dpi is None or dpi < DPI_MIN - 0.5]
    assert not small, f"{p.name}: figures under {WIDTH_MIN} px wide or {DPI_MIN} dpi (width, height, dpi): {small}"

def test_the_path_holds_thirty_figures():
    n = {p.stem: len(pngs(cells(p))) for p in PAPER}
    assert sum(n.values()) >= PATH_FIGS_MIN, f"{sum(n.values())} figures in the main lines (at least {PATH_FIGS_MIN}): {n}"

@pytest.mark.parametrize('p', PAPER, ids=lambda p: p.stem)
def test_three_exercises_with_their_checks_in_the_module(p):
    cs = cells(p)
    assert exercises(cs) >= EXERCISES_MIN, f"{p.name}: {exercises(cs)} exercises (at least {EXERCISES_MIN})"
    assert not local_checkers(cs), f"{p.name} defines exercise checks {local_checkers(cs)}: they live in transformer_nb.course (one module a paper notebook, course_<module>)"

@pytest.mark.parametrize('p', PAPER, ids=lambda p: p.stem)
def test_no_machine_room_in_a_paper_notebook(p):
    assert not engineering(cells(p)), f"{p.name} uses {engineering(cells(p))}: a paper notebook imports only what its lesson uses"

@pytest.mark.parametrize('p', PAPER, ids=lambda p: p.stem)
def test_going_deeper_is_level_2_and_its_parts_level_3(p):
    assert not heading_problems(cells(p)), f"{p.name}: {heading_problems(cells(p))}"
