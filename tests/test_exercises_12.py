"""12_variations's exercises, proven away from the learner's names: each check (`transformer_nb.course.variations`, course_variations) accepts
the solution the notebook prints, reports an unwritten stub without failing, and names each likely mistake with the
case it fails, returning False and never raising; the change of the "break it" exercise makes exactly the check its
solution names fail."""
import contextlib, io
import pytest
from nbtools import NBS, _body, cells, code_blocks, exercise, namespace
from transformer_nb.course.variations import check_beyond_noise, check_heads_looking

NB = '12_variations'
EXERCISES = '12a00010'                      # the exercises' markdown cell: the solutions of exercises 2 and 3

def said(check, *answer, **kw) -> tuple:
    "What `check(*answer)` returns, and the line it prints."
    with contextlib.redirect_stdout(io.StringIO()) as out: ok = check(*answer, **kw)
    return ok, out.getvalue().strip()

@pytest.fixture
def in_nbs(monkeypatch): monkeypatch.chdir(NBS)                     # the checks read ../results, as the notebook does

# --- exercise 1: break `table3_variants` ---

def test_break_table3_variants_fails_the_paper_rows_check_at_a_h1():
    src = _body(cells(NB)['55f988cf'][1])
    old = "dict(h=k, d_k=d // k, d_v=d // k)"
    new = 'dict(h=k, d_k=d_k, d_v=d_k)'
    assert old in src and f'`{new}` instead of `{old}`' in ' '.join(exercise(NB, EXERCISES, 1).split())
    ns = namespace(NB, src.replace(old, new))
    test = _body(cells(NB)['e152138c'][1])
    with pytest.raises(AssertionError, match="'h': 1, 'd_k': 64"): exec(test, ns)
    exec(test, namespace(NB, src))                                                       # the cell as written passes
    assert 'fails at `A-h1`' in exercise(NB, EXERCISES, 1)

# --- exercise 2: beyond the noise ---

BEYOND = code_blocks(NB, EXERCISES)[0]

def beyond(src=BEYOND):
    ns = {}; exec(src, ns); return ns['beyond_noise']

def test_beyond_solution_passes(in_nbs):
    assert said(check_beyond_noise, beyond()) == (True, 'beyond_noise finds the variants beyond the noise in 9 tables')

def test_beyond_stub_is_reported_as_not_written(in_nbs, capsys):
    ns = namespace(NB, 'e12c0002')
    assert 'beyond_noise is not written yet' in capsys.readouterr().out
    assert said(check_beyond_noise, ns['beyond_noise'])[0] is False

@pytest.mark.parametrize('old, new, case, mistake', [
    ("abs(r['bleu'] - base) > noise]", "r['bleu'] - base < -noise]", "case 'a gain beyond the noise'", 'either sign counts'),
    ("abs(r['bleu'] - base) > noise]", "r['bleu'] - base > noise]", "case 'a loss beyond the noise'", "either sign counts: a loss"),
    ("abs(r['bleu'] - base) > noise]", "abs(r['bleu'] - base) >= noise]", "case 'a variant exactly at the spread'", '>, not >='),
    ("noise = max(abs(r['bleu'] - base) for r in recs if r['variant'] == 'base' and r['id'] != 'base')",
     "noise = next(abs(r['bleu'] - base) for r in recs if r['variant'] == 'base' and r['id'] != 'base')",
     "case 'two other seeds'", "not the first one's"),                                   # the first seed's spread only
    ("noise = max(abs(r['bleu'] - base) for r in recs if r['variant'] == 'base' and r['id'] != 'base')",
     "noise = (lambda ds: sum(ds) / len(ds))([abs(r['bleu'] - base) for r in recs if r['variant'] == 'base' and r['id'] != 'base'])",
     "case 'two other seeds'", "not their mean"),                                         # the mean spread
    ("return [r['id'] for r in recs", "return [r for r in recs", "case 'a loss beyond the noise'", "return a list of the variants' ids"),
])
def test_beyond_mistakes_are_named(in_nbs, old, new, case, mistake):
    assert old in BEYOND, old
    ok, line = said(check_beyond_noise, beyond(BEYOND.replace(old, new)))
    assert not ok and line.startswith(f'Not yet: {case}') and mistake in line, line

def test_beyond_that_lists_the_seed_runs_is_named(in_nbs):
    sol = beyond()
    ok, line = said(check_beyond_noise, lambda recs: sol(recs) + [r['id'] for r in recs if r['variant'] == 'base' and r['id'] != 'base'])
    assert not ok and "the other runs of 'base' are the noise" in line, line

def test_beyond_against_the_papers_deltas_is_not_passed(in_nbs):
    "Reading the paper's column, or comparing with base-seed1 instead of base, does not pass."
    ok, line = said(check_beyond_noise, lambda recs: ['B-dk4', 'C-d64'])
    assert not ok and line.startswith("Not yet: case 'a loss beyond the noise'"), line
    sol = beyond()
    ok, line = said(check_beyond_noise, lambda recs: sol([dict(r, id='base' if r['id'] == 'base-seed1' else 'base-seed1' if r['id'] == 'base' else r['id']) for r in recs]))
    assert not ok, line

# --- exercise 3: reading the maps with code ---

HEADS = code_blocks(NB, EXERCISES)[1]

def test_heads_solution_passes(in_nbs):
    ns = {}; exec(HEADS, ns)
    assert said(check_heads_looking, ns['heads_looking']) == (True, 'heads_looking reads four made-up maps and the 5 readings of the text from the stored maps')

def test_heads_stub_is_reported_as_not_written(in_nbs, capsys):
    ns = namespace(NB, 'e11c0003')
    assert 'heads_looking is not written yet' in capsys.readouterr().out
    assert said(check_heads_looking, ns['heads_looking'])[0] is False

@pytest.mark.parametrize('wrong, case, mistake', [
    ('lambda w, rows, col: [h for h in range(w.shape[0]) if all(w[h, r].argmax() == col for r in rows)]',
     "case 'a made-up map: rows 1 and 2 -> key 3'", 'numbered from 1'),
    ('lambda w, rows, col: [h + 1 for h in range(w.shape[0]) if any(w[h, r].argmax() == col for r in rows)]',
     "case 'a made-up map: rows 1 and 2 -> key 3'", 'not any'),
    ('lambda w, rows, col: [h + 1 for h in range(w.shape[0]) if all(w[h, :, col].argmax() == r for r in rows)]',
     "case 'a made-up map: rows 1 and 2 -> key 3'", 'over the keys'),
    ('lambda w, rows, col: None', "case 'a made-up map: rows 1 and 2 -> key 3'", 'return a list'),
    ('lambda w, rows, col: [1]', "case 'a made-up map: rows 1 and 2 -> key 3'", "compare each row's argmax"),
    ('lambda w, rows, col: [h + 1 for h in range(w.shape[0]) if all(w.mean(0)[r].argmax() == col for r in rows)]',
     "case 'a made-up map: rows 1 and 2 -> key 3'", 'the heads averaged'),                                  # a heads summary over the wrong axis
    ('lambda w, rows, col: [h + 1 for h in range(w.shape[0]) if w[h, rows].mean(0).argmax() == col]',
     "case 'a made-up map: rows 1 and 2 -> key 3'", 'the rows averaged'),
    ('lambda w, rows, col: [h + 1 for h in range(w.shape[0]) if w[h].mean(0).argmax() == col]',
     "case 'a made-up map: rows 1 and 2 -> key 3'", 'averaged over every query'),
    ('lambda w, rows, col: [h + 1 for h in range(w.shape[0]) if all(w[h, r].mean(0) == col for r in rows)]',
     "case 'a made-up map: rows 1 and 2 -> key 3'", "w[h, r].argmax()"),                                    # a mean where an argmax belongs
])
def test_heads_mistakes_are_named(in_nbs, wrong, case, mistake):
    ok, line = said(check_heads_looking, eval(wrong))
    assert not ok and line.startswith(f'Not yet: {case}') and mistake in line, line

def test_a_check_that_raises_inside_the_answer_says_so_and_returns_false(in_nbs):
    def broken(w, rows, col): return 1 / 0
    ok, line = said(check_heads_looking, broken)
    assert not ok and line == 'broken raised ZeroDivisionError: division by zero', line

# ---------------------------------------------------------------- fresh wrong answers, written as new learners would
import torch
from transformer_nb.course import variations as _ex
from nbtools import assert_rejects
FRESH = {}   # label: (checker, answer, the words its message must contain)
def add(checker, label, kw, *args): FRESH[checker, label] = args

# 12 beyond_noise: each answer and the words its message must contain
def bn(f):
    f.__name__ = 'beyond_noise'; return f
def _base(recs): return next(r['bleu'] for r in recs if r['id'] == 'base')
add('check_beyond_noise', 'only improvements (no abs)', ['sign', 'either', 'abs', 'below', 'worse'], bn(lambda recs: [r['id'] for r in recs if r['variant'] != 'base' and r['bleu'] - _base(recs) > max(abs(s['bleu'] - _base(recs)) for s in recs if s['variant'] == 'base' and s['id'] != 'base')]))
# seed runs never exceed the spread by definition: not a wrong answer
_x = ('check_beyond_noise', 'includes the seed runs', ['seed'], bn(lambda recs: [r['id'] for r in recs if r['id'] != 'base' and abs(r['bleu'] - _base(recs)) > max(abs(s['bleu'] - _base(recs)) for s in recs if s['variant'] == 'base' and s['id'] != 'base')]))
add('check_beyond_noise', '>= instead of >', ['more than', '>=', 'equal', 'strictly'], bn(lambda recs: [r['id'] for r in recs if r['variant'] != 'base' and abs(r['bleu'] - _base(recs)) >= max(abs(s['bleu'] - _base(recs)) for s in recs if s['variant'] == 'base' and s['id'] != 'base')]))
add('check_beyond_noise', 'noise = max - min of seeds', ['spread', 'largest', 'base', 'range'], bn(lambda recs: (lambda seeds: [r['id'] for r in recs if r['variant'] != 'base' and abs(r['bleu'] - _base(recs)) > max(seeds) - min(seeds)])([s['bleu'] for s in recs if s['variant'] == 'base'])))
add('check_beyond_noise', 'noise = std of seeds', ['spread', 'largest', 'std'], bn(lambda recs: (lambda seeds: [r['id'] for r in recs if r['variant'] != 'base' and abs(r['bleu'] - _base(recs)) > torch.tensor(seeds).std().item()])([s['bleu'] for s in recs if s['variant'] == 'base'])))
add('check_beyond_noise', 'hard-coded noise 1.0 BLEU', ['spread', 'noise', 'hard'], bn(lambda recs: [r['id'] for r in recs if r['variant'] != 'base' and abs(r['bleu'] - _base(recs)) > 1.0]))
add('check_beyond_noise', 'base = first record', ['base', 'first'], bn(lambda recs: [r['id'] for r in recs[1:] if r['variant'] != 'base' and abs(r['bleu'] - recs[0]['bleu']) > max(abs(s['bleu'] - recs[0]['bleu']) for s in recs if s['variant'] == 'base' and s is not recs[0])]))
add('check_beyond_noise', 'returns variant names not ids', ['id', 'variant'], bn(lambda recs: [r['variant'] for r in recs if r['variant'] != 'base' and abs(r['bleu'] - _base(recs)) > max(abs(s['bleu'] - _base(recs)) for s in recs if s['variant'] == 'base' and s['id'] != 'base')]))
add('check_beyond_noise', 'noise from base-vs-mean of seeds', ['spread', 'largest', 'mean'], bn(lambda recs: (lambda seeds: [r['id'] for r in recs if r['variant'] != 'base' and abs(r['bleu'] - _base(recs)) > abs(sum(seeds) / len(seeds) - _base(recs))])([s['bleu'] for s in recs if s['variant'] == 'base' and s['id'] != 'base'])))
SAYS_CHECK_BEYOND_NOISE = {
"only improvements (no abs)": "either\\ sign\\ counts:\\ a\\ loss\\ beyond\\ the\\ spread\\ is\\ as\\ real\\ as\\ a\\ gain\\ \\(compare\\ \\|BLEU\\ \\-\\ base\\ BL",
">= instead of >": "beyond\\ means\\ more\\ than\\ the\\ spread:\\ >,\\ not\\ >=",
"noise = max - min of seeds": r"the band is the largest \|BLEU - base BLEU\| among the other base seeds, measured from base's own run, not a max - min spread: yours is the range of the base runs, max - min",
"noise = std of seeds": "the\\ spread\\ is\\ the\\ largest\\ \\|BLEU\\ \\-\\ base\\ BLEU\\|\\ over\\ every\\ other\\ run\\ of\\ 'base',\\ not\\ the\\ stand",
"hard-coded noise 1.0 BLEU": "one\\ fixed\\ threshold\\ for\\ every\\ table:\\ the\\ spread\\ comes\\ from\\ each\\ table's\\ own\\ runs\\ of\\ 'base'",
"base = first record": "the\\ base\\ run\\ is\\ the\\ record\\ whose\\ id\\ is\\ 'base',\\ wherever\\ it\\ stands\\ in\\ the\\ list,\\ not\\ the\\ fir",
"returns variant names not ids": "return\\ the\\ ids\\ of\\ the\\ records\\ \\('A\\-h4'\\),\\ not\\ their\\ variant\\ names\\ \\('A'\\)",
"noise from base-vs-mean of seeds": "the\\ spread\\ is\\ the\\ largest\\ \\|BLEU\\ \\-\\ base\\ BLEU\\|\\ over\\ every\\ other\\ run\\ of\\ 'base',\\ not\\ the\\ dista"
}

@pytest.mark.parametrize('label', list(SAYS_CHECK_BEYOND_NOISE))
def test_fresh_wrong_answers_named_by_check_beyond_noise(label, in_nbs):
    "Each wrong answer a new learner writes is refused, with a message that names its mistake."
    assert_rejects(_ex.check_beyond_noise, *FRESH['check_beyond_noise', label], says=SAYS_CHECK_BEYOND_NOISE[label])

# 12 heads_looking: each answer and the words its message must contain
def hl(f):
    f.__name__ = 'heads_looking'; return f
add('check_heads_looking', 'numbered from 0', ['from 1', 'numbered', '0'], hl(lambda w, rows, col: [h for h in range(w.shape[0]) if all(w[h, r].argmax() == col for r in rows)]))
add('check_heads_looking', 'any row instead of every row', ['every', 'all', 'any'], hl(lambda w, rows, col: [h + 1 for h in range(w.shape[0]) if any(w[h, r].argmax() == col for r in rows)]))
add('check_heads_looking', 'argmax over queries (column)', ['axis', 'key', 'row', 'column', 'query'], hl(lambda w, rows, col: [h + 1 for h in range(w.shape[0]) if all(w[h, :, r].argmax() == col for r in rows)]))
add('check_heads_looking', 'averages rows then argmax', ['every', 'mean', 'average'], hl(lambda w, rows, col: [h + 1 for h in range(w.shape[0]) if w[h, list(rows)].mean(0).argmax() == col]))
add('check_heads_looking', 'threshold 0.5 instead of argmax', ['largest', 'argmax', 'threshold', 'hardest'], hl(lambda w, rows, col: [h + 1 for h in range(w.shape[0]) if all(w[h, r, col] > 0.5 for r in rows)]))
add('check_heads_looking', 'averaged over heads axis (mean over dim 0)', ['head', 'axis', 'mean'], hl(lambda w, rows, col: [h + 1 for h in range(w.shape[0]) if all(w.mean(0)[r].argmax() == col for r in rows)]))
add('check_heads_looking', 'returns a tensor of bools per head', ['list', 'numbers', 'heads'], hl(lambda w, rows, col: torch.tensor([all(w[h, r].argmax() == col for r in rows) for h in range(w.shape[0])])))
add('check_heads_looking', 'only the last row checked', ['every', 'one row', 'only'], hl(lambda w, rows, col: [h + 1 for h in range(w.shape[0]) if w[h, rows[-1]].argmax() == col]))
SAYS_CHECK_HEADS_LOOKING = {
"numbered from 0": "heads\\ are\\ numbered\\ from\\ 1,\\ as\\ in\\ the\\ plots'\\ titles:\\ add\\ 1",
"any row instead of every row": "every\\ row\\ of\\ `rows`\\ must\\ put\\ its\\ largest\\ weight\\ on\\ `col`\\ \\(all\\ of\\ them,\\ not\\ any\\)",
"argmax over queries (column)": "a\\ row's\\ largest\\ weight\\ is\\ over\\ the\\ keys,\\ the\\ last\\ axis:\\ w\\[h,\\ r\\]\\.argmax\\(\\),\\ not\\ an\\ argmax\\ do",
"averages rows then argmax": "the\\ rows\\ averaged\\ before\\ the\\ argmax:\\ every\\ row\\ of\\ `rows`\\ must\\ look\\ hardest\\ at\\ `col`\\ on\\ its",
"threshold 0.5 instead of argmax": "a\\ weight\\ above\\ 0\\.5\\ is\\ not\\ the\\ largest\\ weight:\\ compare\\ each\\ row's\\ argmax\\ over\\ the\\ keys\\ with",
"averaged over heads axis (mean over dim 0)": "the\\ heads\\ averaged\\ \\(w\\.mean\\(0\\),\\ axis\\ 0\\):\\ read\\ each\\ head's\\ map\\ on\\ its\\ own,\\ w\\[h\\]",
"returns a tensor of bools per head": "return\\ the\\ numbers\\ of\\ the\\ heads\\ whose\\ flag\\ is\\ set,\\ numbered\\ from\\ 1:\\ \\[3\\]",
"only the last row checked": "only\\ the\\ last\\ row\\ of\\ `rows`\\ was\\ read:\\ every\\ row\\ of\\ `rows`\\ must\\ look\\ hardest\\ at\\ `col`"
}

@pytest.mark.parametrize('label', list(SAYS_CHECK_HEADS_LOOKING))
def test_fresh_wrong_answers_named_by_check_heads_looking(label, in_nbs):
    "Each wrong answer a new learner writes is refused, with a message that names its mistake."
    assert_rejects(_ex.check_heads_looking, *FRESH['check_heads_looking', label], says=SAYS_CHECK_HEADS_LOOKING[label])

# --- exercise 4: build rows (A) and (B) ---
from transformer_nb.course.variations import check_rows_ab

ROWS_AB = code_blocks(NB, EXERCISES)[2]

def rows(old=None, new=''):
    "The printed `rows_ab` (exercise 4's solution), with `old` replaced by `new`: a wrong answer."
    src = ROWS_AB
    if old is not None:
        assert src.count(old) == 1, old
        src = src.replace(old, new)
    ns = {}; exec(src, ns); return ns['rows_ab']

def test_rows_ab_stub_is_reported_and_the_solution_passes(in_nbs):
    stub = namespace(NB, _body(cells(NB)['e12c0b04'][1]).split('\ncheck_rows_ab')[0])['rows_ab']
    ok, line = said(check_rows_ab, stub)
    assert ok is False and line.startswith('rows_ab is not written yet'), line
    assert said(check_rows_ab, rows()) == (True, "rows_ab scales Table 3's rows (A) and (B) to any base, as table3_variants does")

@pytest.mark.parametrize('old, new, says', [
    ("dict(h=k, d_k=d // k, d_v=d // k)", "dict(h=k, d_k=d_k, d_v=d_k)", "row (A) keeps each head's size: it keeps the computation constant"),
    ("dict(d_k=k, d_v=d_k)", "dict(d_k=k, d_v=k)", "row (B) changes the key size d_k alone: d_v stays the base model's"),
    ("(max(1, h // 8), h // 2, 2 * h, 4 * h)", "(1, 4, 16, 32)", "those are the paper's numbers of heads (1, 4, 16, 32)"),
    ("(d_k // 4, d_k // 2)", "(16, 32)", "those are the paper's key sizes (16, 32)"),
    ("(max(1, h // 8), h // 2, 2 * h, 4 * h)", "(max(1, h // 8), h // 2, 2 * h, 8 * h)", "row (A) has [1, 4, 16, 64] heads, not [1, 4, 16, 32]: h/8 (at least 1), h/2, 2h and 4h"),
    ("f'B-dk{k}'", "f'B{k}'", "names row (B)'s variants [], not ['B-dk16', 'B-dk32']"),
    ("(max(1, h // 8), h // 2, 2 * h, 4 * h)", "(h // 8, h // 2, 2 * h, 4 * h)", "divided by zero: with fewer than 8 heads h // 8 is 0"),
], ids=['A keeps d_k', 'B changes d_v', "the paper's heads", "the paper's key sizes", 'a wrong factor', 'names', 'no head'])
def test_rows_ab_mistakes_are_named(old, new, says):
    ok, line = said(check_rows_ab, rows(old, new))
    assert ok is False and line.startswith('Not yet: ') and says in line, line

def test_beyond_noise_names_base_taken_as_the_mean_of_the_base_runs(in_nbs):
    def beyond_noise(recs):
        runs = [r['bleu'] for r in recs if r['variant'] == 'base']; base = sum(runs) / len(runs)
        noise = max(abs(b - base) for b in runs)
        return [r['id'] for r in recs if r['variant'] != 'base' and abs(r['bleu'] - base) > noise]
    ok, out = said(check_beyond_noise, beyond_noise)
    assert ok is False and "Likely mistake: the base BLEU is the run whose id is 'base', not the mean of the base runs" in out, out

@pytest.mark.parametrize('old, new, says', [
    ("dict(h=k, d_k=d // k, d_v=d // k) for k in (max(1, h // 8),", "dict(h=k, d_k=d // max(k, 1), d_v=d // max(k, 1)) for k in (h // 8,",
     "rows_ab(PRESETS['tiny']) (d_model=32, h=4, d_k=8): A-h0 has no heads: with fewer than 8 heads h // 8 is 0; the first variant has at least one head, max(1, h // 8)"),
    ("d_k = base.get('d_k') or d // h", "d_k = d // h",
     "rows_ab(a base with its own d_k) (d_model=256, h=4, d_k=32): the base's own key size is base.get('d_k') or d_model // h"),
], ids=['h // 8 not floored, A-h0 dropped from the division', 'the base\'s d_k ignored'])
def test_rows_ab_names_a_variant_with_no_heads_and_a_base_with_its_own_d_k(old, new, says):
    "An A-h0 variant (h // 8 without max(1, ...), the division skipped) is named as that, not as a naming slip; a base that sets its own d_k is checked."
    ok, line = said(check_rows_ab, rows(old, new))
    assert ok is False and line.startswith(f'Not yet: {says}'), line
    assert said(check_rows_ab, rows())[0] is True


def _rows(base, halves=2):
    "Rows (A) and (B) scaled to `base`; `halves=4` writes h/4 heads where row (A) has h/2."
    d, h = base['d_model'], base['h']; d_k = base.get('d_k') or d // h
    return {**{f'A-h{k}': dict(h=k, d_k=d // k, d_v=d // k) for k in (max(1, h // 8), max(1, h // halves), 2 * h, 4 * h)},
            **{f'B-dk{k}': dict(d_k=k, d_v=d_k) for k in (d_k // 4, d_k // 2)}}

def test_other_numbers_of_heads_are_named_as_such():
    "h/4 heads for h/2 gives other names too: the check says the numbers of heads, not the naming."
    assert_rejects(_ex.check_rows_ab, lambda base: _rows(base, 4),
                   says=r"row \(A\) has \[1, 2, 16, 32\] heads, not \[1, 4, 16, 32\]: h/8 \(at least 1\), h/2, 2h and 4h of the base's h = 8")
    assert _ex.check_rows_ab(_rows) is True

# ---------------------------------------------------------------- mistakes nobody listed, named by what the answer does
def _rows_by(A=lambda k, d, h, dk, dv: dict(h=k, d_k=d // k, d_v=d // k), B=lambda x, d, h, dk, dv: dict(d_k=x, d_v=dv)):
    "rows_ab with the overrides of row (A) made by `A(k, ...)` and of row (B) by `B(x, ...)`."
    def rows_ab(base):
        d, h = base['d_model'], base['h']; dk = base.get('d_k') or d // h; dv = base.get('d_v') or dk
        return {**{f'A-h{k}': A(k, d, h, dk, dv) for k in (max(1, h // 8), h // 2, 2 * h, 4 * h)},
                **{f'B-dk{x}': B(x, d, h, dk, dv) for x in (dk // 4, dk // 2)}}
    return rows_ab

@pytest.mark.parametrize('answer, says', [
    (_rows_by(A=lambda k, d, h, dk, dv: dict(h=k, d_k=h * dk // k, d_v=h * dk // k)),
     r"a base with its own d_k\) .*: A-h1: d_k is 128, expected 256: h x d_k stays the base's 128, yet row \(A\) divides d_model = 256"),
    (_rows_by(B=lambda x, d, h, dk, dv: dict(h=h, d_k=x, d_v=dv)), r"B-dk16: h is 8, which row \(B\) does not set: row \(B\) keeps the base's h: set d_k and d_v only"),
    (_rows_by(A=lambda k, d, h, dk, dv: dict(h=k, d_k=d // k)), r"A-h1: d_v is None, expected 512: A-h1 has no d_v"),
    (_rows_by(A=lambda k, d, h, dk, dv: dict(h=k)),                   # row (A) read as "change h", the head size left to the base
     r"A-h1 sets h alone, \{'h': 1\}: row \(A\) keeps the computation constant, so each variant also sets d_k = d_v = d_model // h = 512 // 1 = 512; "
     r"without them its heads keep the base's size, 64"),
])
def test_rows_ab_mistakes_nobody_listed_are_named_field_by_field(answer, says):
    assert_rejects(_ex.check_rows_ab, answer, says=says)

def test_rows_ab_written_otherwise_passes():
    assert _ex.check_rows_ab(_rows_by()) is True

def _beyond_by(threshold):
    "beyond_noise with the spread replaced by threshold(the other base runs' |BLEU - base BLEU|)."
    def beyond_noise(recs):
        base = next(r['bleu'] for r in recs if r['id'] == 'base')
        seeds = [abs(r['bleu'] - base) for r in recs if r['variant'] == 'base' and r['id'] != 'base']
        return [r['id'] for r in recs if r['variant'] != 'base' and abs(r['bleu'] - base) > threshold(seeds)]
    return beyond_noise

def test_beyond_noise_threshold_nobody_listed_is_placed(in_nbs):
    assert_rejects(_ex.check_beyond_noise, _beyond_by(lambda s: 4 * max(s)),
                   says=r"case 'a loss beyond the noise': got \[\], want \['A'\]\. .*missing A \(\|d\| = 1\.5\), extra none; yours keeps the variants "
                        r"with \|d\| above some T in \[1\.5, inf\), the spread is 1")

def test_heads_looking_mistake_nobody_listed_is_placed_head_by_head(in_nbs):
    top2 = lambda w, rows, col: [h + 1 for h in range(w.shape[0]) if all(col in torch.as_tensor(w[h, r]).topk(2).indices for r in rows)]
    assert_rejects(_ex.check_heads_looking, top2, says=r"Likely mistake: yours adds head 1 \(row indices \[0, 1\] peak at key indices \[0, 2\]\), col = 2: compare each row's argmax")


# ---------------------------------------------------------------- more mistakes, each named by what the answer does

def _bn(measure):
    "beyond_noise with the spread from base's own run, each variant measured by `measure(variant bleu, base bleu, recs)`."
    def beyond_noise(recs):
        base = next(r['bleu'] for r in recs if r['id'] == 'base')
        noise = max(abs(r['bleu'] - base) for r in recs if r['variant'] == 'base' and r['id'] != 'base')
        return [r['id'] for r in recs if r['variant'] != 'base' and measure(r['bleu'], base, recs) > noise]
    return beyond_noise

@pytest.mark.parametrize('answer, says', [
    (_bn(lambda b, base, recs: abs(b - recs[0]['bleu'])), r"yours measures each variant from the first record's BLEU"),
    (_bn(lambda b, base, recs: abs(b - base) / base), r"\|BLEU - base BLEU\| / base BLEU, a relative change, is compared with the spread"),
])
def test_beyond_noise_mistakes_named_by_property(answer, says, in_nbs):
    assert_rejects(_ex.check_beyond_noise, answer, says=says)

@pytest.mark.parametrize('answer, says', [
    (lambda w, rows, col: [h + 1 for h in range(w.shape[0]) if all(w[:, r, col].argmax() == h for r in rows)], r"the argmax ran over the heads, w\[:, r, col\]\.argmax\(\)"),
    (lambda w, rows, col: torch.tensor([h + 1 for h in range(w.shape[0]) if all(w[h, r].argmax() == col for r in rows)]), r"got a Tensor, tensor\(\[3\]\); return a list of head numbers"),
])
def test_heads_looking_mistakes_named_by_property(answer, says, in_nbs):
    assert_rejects(_ex.check_heads_looking, answer, says=says)

def test_sizes_from_float_division_are_named():
    def rows_ab(base):
        d, h = base['d_model'], base['h']; d_k = base.get('d_k') or d // h
        return {**{f'A-h{k}': dict(h=k, d_k=d / k, d_v=d / k) for k in (max(1, h // 8), h // 2, 2 * h, 4 * h)},
                **{f'B-dk{k}': dict(d_k=k, d_v=d_k) for k in (d_k // 4, d_k // 2)}}
    assert_rejects(_ex.check_rows_ab, rows_ab, says=r"A-h1 has d_k=512\.0, a float: sizes are whole numbers, d // k")

@pytest.mark.parametrize('axis, what', [(1, 'queries'), (2, 'keys')])
def test_heads_looped_over_another_axis_are_named(axis, what, in_nbs):
    "A loop over w.shape[1] or w.shape[2] reads only as many heads as the map has queries or keys: a map of 2 queries shows it."
    def loop(w, rows, col): return [h + 1 for h in range(min(w.shape[axis], w.shape[0])) if all(w[h, r].argmax() == col for r in rows)]
    assert_rejects(check_heads_looking, loop, says=rf"7 heads, 2 queries and 3 keys.*the loop ran over w.shape\[{axis}\] \({what}\), not the heads")

@pytest.mark.parametrize('t', [0.25, 0.3, 0.4])
def test_a_weight_threshold_is_told_from_the_rows_averaged(t, in_nbs):
    "A threshold on the weight and the rows' mean pick the same heads of the text's maps: a made-up head tells them apart."
    def above(w, rows, col): return [h + 1 for h in range(w.shape[0]) if all(w[h, r, col] > t for r in rows)]
    assert_rejects(check_heads_looking, above, says=rf"Likely mistake: a weight above {t} is not the largest weight")
    def mean(w, rows, col): return [h + 1 for h in range(w.shape[0]) if w[h, list(rows)].mean(0).argmax() == col]
    assert_rejects(check_heads_looking, mean, says=r"Likely mistake: the rows averaged before the argmax")


# ---------------------------------------------------------------- more mistakes, each named by what the answer computes
def _beyond(ref_of, spread_of):
    "beyond_noise with the base BLEU `ref_of(recs)` and the spread `spread_of(deviations of the other base runs)`."
    def beyond_noise(recs):
        ref = ref_of(recs)
        nz = spread_of([abs(r['bleu'] - ref) for r in recs if r['variant'] == 'base' and r['id'] != 'base'])
        return [r['id'] for r in recs if r['variant'] != 'base' and abs(r['bleu'] - ref) > nz]
    return beyond_noise

@pytest.mark.parametrize('answer, says', [
    (_beyond(lambda recs: [r['bleu'] for r in recs if r['variant'] == 'base'][-1], max), "not the last run of 'base' in the list"),
    (_beyond(lambda recs: next(r['bleu'] for r in recs if r['id'] == 'base'), min), r"over every other run of 'base', not the smallest"),
])
def test_beyond_noise_base_and_spread_mistakes_are_named(in_nbs, answer, says):
    assert_rejects(check_beyond_noise, answer, says=says)

@pytest.mark.parametrize('answer, says', [
    (lambda w, rows, col: [h + 1 for h in range(w.shape[0]) if w[h, list(rows)].argmax() == col], r"the argmax ran over the rows and the keys together"),
    (lambda w, rows, col: [h + 1 for h in range(w.shape[1]) if all(w[r, h].argmax() == col for r in rows if r < w.shape[0])], r"the head and query axes swapped, w\[r, h\]"),
    (lambda w, rows, col: [h + 1 for h in range(w.shape[0]) if all(w[h, r].argmax() == col - 1 for r in rows)], r"`col` is an index from 0, like the rows"),
])
def test_heads_looking_axis_and_index_mistakes_are_named(in_nbs, answer, says):
    assert_rejects(check_heads_looking, answer, says=says)

def test_rows_ab_names_with_another_separator_are_named(in_nbs):
    assert_rejects(check_rows_ab, rows("f'A-h{k}'", "f'A_h{k}'"),
                   says=r"names row \(A\)'s variants \['A_h1', .*\]: a '-' goes between the row and the number, \['A-h1', ")

@pytest.mark.parametrize('answer, says', [
    (lambda w, rows, col: [h + 1 for h in range(w.shape[0]) if all(w[h, r].argmax() == col for r in rows) and w[h].argmax() % w.shape[-1] == col],
     r"the head's largest weight over its whole map, w\[h\]\.argmax\(\) with the rows and keys flattened, was asked to fall on col too"),
    (lambda w, rows, col: [h + 1 for h in range(w.shape[0]) if w[h].argmax() % w.shape[-1] == col],
     r"the head's largest weight over its whole map, w\[h\]\.argmax\(\) with the rows and keys flattened: only the rows of `rows` count"),
    (lambda w, rows, col: [h + 1 for h in range(w.shape[0]) if all(w[r % w.shape[0], h % w.shape[1]].argmax() == col for r in rows)],
     r"the head and query axes swapped, w\[r, h\] \(the indices wrapped to fit\)"),
])
def test_heads_looking_whole_map_and_wrapped_axes_are_named(in_nbs, answer, says):
    assert_rejects(check_heads_looking, answer, says=says)

def test_a_spread_over_every_run_is_named(in_nbs):
    "The spread taken over every run but base, the variants' own differences included: named, not as a relative change."
    def every_run(recs):
        base = next(r['bleu'] for r in recs if r['id'] == 'base')
        noise = max(abs(r['bleu'] - base) for r in recs if r['id'] != 'base')
        return [r['id'] for r in recs if r['variant'] != 'base' and abs(r['bleu'] - base) > noise]
    ok, line = said(check_beyond_noise, every_run)
    assert ok is False and "or the spread was taken over every run, the variants too, which leaves no variant beyond it: the spread is the largest" in line, line

def test_a_row_weight_compared_with_the_map_maximum_is_named(in_nbs):
    looking = lambda w, rows, col: [h + 1 for h in range(w.shape[0]) if all(w[h, r, col] == w[h].max() for r in rows)]
    ok, line = said(check_heads_looking, looking)
    assert ok is False and "each row's weight on col was compared with the largest weight of the head's whole map, w[h].max(): a row looks hardest at col when" in line, line

# ---------------------------------------------------------------- slips of later blind answers, named by property
def _beyond(recs, named_only=False, signed=False, first_base=False):
    "beyond_noise, or a slip: only runs whose id is their variant's name, signed seed gaps, the first run of 'base' as base."
    b = next(r for r in recs if r['variant'] == 'base' and (first_base or r['id'] == 'base'))
    gaps = [(x['bleu'] - b['bleu']) * (1 if signed else -1 if x['bleu'] < b['bleu'] else 1) for x in recs if x['variant'] == 'base' and x is not b]
    return [r['id'] for r in recs if r['variant'] != 'base' and (r['id'] == r['variant'] or not named_only) and abs(r['bleu'] - b['bleu']) > max(gaps)]

@pytest.mark.parametrize('kw, says', [
    (dict(named_only=True), r"every run of a variant counts, whatever its id"),
    (dict(signed=True), r"take each seed's \|BLEU - base BLEU\|; a seed below base widens the spread as much as one above"),
    (dict(first_base=True), r"the base run is the record whose id is 'base', not the first run of variant 'base'"),
])
def test_beyond_slips_of_later_answers_are_named(in_nbs, kw, says):
    assert said(check_beyond_noise, _beyond)[0] is True
    assert_rejects(check_beyond_noise, lambda recs: _beyond(recs, **kw), says=says)

@pytest.mark.parametrize('answer, says', [
    (lambda w, rows, col: [h + 1 for h in range(w.shape[0]) if all(w[r, h].argmax() == col for r in rows)],
     r"raised IndexError .*: the head and query axes swapped, w\[r, h\]"),
    (lambda w, rows, col: [h + 1 for h in range(w.shape[-1]) if all(w[..., h][r].argmax() == col for r in rows)],
     r"raised IndexError .*: the heads read from the last axis, w\[\.\.\., h\]"),
    (lambda w, rows, col: [h + 1 for h in range(w.shape[0]) if bool((w[h, list(rows)].argmax(0) == col).all())],
     r"yours finds no head in any case, though each case has one at least"),
    (lambda w, rows, col: [int(w[:, list(rows), col].mean(-1).argmax()) + 1], r"one head, the one whose mean weight on col is the largest"),
])
def test_heads_slips_of_later_answers_are_named(in_nbs, answer, says):
    assert_rejects(check_heads_looking, answer, says=says)

def _rows_ab(base, first=lambda h: max(1, h // 8), paper=False):
    d, h = (512, 8) if paper else (base['d_model'], base['h']); dk = 64 if paper else base.get('d_k') or d // h
    return {**{f'A-h{k}': dict(h=k, d_k=d // k, d_v=d // k) for k in (first(h), h // 2, 2 * h, 4 * h)},
            **{f'B-dk{k}': dict(d_k=k, d_v=dk) for k in (dk // 4, dk // 2)}}

@pytest.mark.parametrize('answer, says', [
    (lambda base: _rows_ab(base, first=lambda h: 1), r"rows_ab\(PRESETS\['big'\]\) .*row \(A\)'s first variant has 1 head where the base's h/8 is more"),
    (lambda base: _rows_ab(base, paper=True), r"rows_ab\(PRESETS\['mini'\]\) .*those are Table 3's own rows, for the base model"),
])
def test_rows_ab_slips_of_later_answers_are_named(answer, says):
    assert said(check_rows_ab, _rows_ab)[0] is True
    assert_rejects(check_rows_ab, answer, says=says)

# ---------------------------------------------------------------- a base taken from another run; argmin; an argmax down column col
def _beyond_from(pick):
    "beyond_noise measuring each variant from `pick(recs)`, the spread measured from the run whose id is 'base'."
    def beyond_noise(recs):
        own, b = next(r['bleu'] for r in recs if r['id'] == 'base'), pick(recs)
        spread = max(abs(r['bleu'] - own) for r in recs if r['variant'] == 'base' and r['id'] != 'base')
        return [r['id'] for r in recs if r['variant'] != 'base' and abs(r['bleu'] - b) > spread]
    return beyond_noise

@pytest.mark.parametrize('pick, says', [
    (lambda recs: sum(r['bleu'] for r in recs if r['variant'] == 'base') / sum(r['variant'] == 'base' for r in recs), r"each variant is measured from the mean of the runs of 'base'"),
    (lambda recs: next(r['bleu'] for r in recs if r['variant'] == 'base'), r"the first run of variant 'base' \(a seed may come first\)"),
])
def test_a_base_taken_from_another_run_is_named(pick, says, in_nbs):
    assert_rejects(check_beyond_noise, _beyond_from(pick), says=says)

@pytest.mark.parametrize('answer, says', [
    (lambda w, rows, col: [h + 1 for h in range(w.shape[0]) if all(w[h, r].argmin() == col for r in rows)], r"argmin: the row's smallest weight"),
    (lambda w, rows, col: [h + 1 for h in range(w.shape[0]) if int(w[h, :, col].argmax()) in rows], r"the argmax ran down column col, over the queries, w\[h, :, col\].argmax\(\) in rows"),
])
def test_argmin_and_an_argmax_down_the_column_are_named(answer, says, in_nbs):
    assert_rejects(check_heads_looking, answer, says=says)

# ---------------------------------------------------------------- rows read as a range between the first and the last
def test_rows_read_as_a_range_are_named(in_nbs):
    span = lambda w, rows, col: [h + 1 for h in range(w.shape[0]) if all(w[h, r].argmax() == col for r in range(rows[0], rows[-1]))]
    assert_rejects(check_heads_looking, span, says=r"Likely mistake: the rows read are not `rows` itself: range\(rows\[0\], rows\[-1\]\) stops before "
                                                   r"the last row")

# ---------------------------------------------------------------- a fresh blind set: wrong answers written before reading the messages
import re as _n9re
from nbtools import assert_rejects as _n9_rejects
from transformer_nb.course.variations import check_beyond_noise as _n9_bn
def _n9_band(band_of):
    def beyond_noise(recs):
        base = next(r['bleu'] for r in recs if r['id'] == 'base')
        seeds = [r['bleu'] for r in recs if r['variant'] == 'base' and r['id'] != 'base']
        return [r['id'] for r in recs if r['variant'] != 'base' and abs(r['bleu'] - base) > band_of(seeds, base)]
    return beyond_noise
NINTH = [('band = max - min of the other seeds', _n9_bn, (_n9_band(lambda s, b: max(s) - min(s)),),
          "not a max - min spread: yours is the range of the other seeds' BLEU, max - min"),
         ('band = max - min of every base run', _n9_bn, (_n9_band(lambda s, b: max(s + [b]) - min(s + [b])),),
          "not a max - min spread: yours is the range of the base runs, max - min"),
         ('signed seed gaps', _n9_bn, (_n9_band(lambda s, b: max(x - b for x in s)),), "a seed below base widens the spread as much as one above")]

def test_ninth_right_band_passes_on_the_stored_table(in_nbs):
    "The stored table's answer is read from the file with the band's definition: the largest |BLEU - base| among the other seeds."
    assert _n9_bn(_n9_band(lambda s, b: max(abs(x - b) for x in s))) is True
from transformer_nb.course.variations import check_heads_looking as _n9_hl, check_rows_ab as _n9_rab
def _n9_rows_fixed_dk(base):
    d, h = base['d_model'], base['h']; d_k = base.get('d_k') or d // h
    return {**{f'A-h{k}': dict(h=k, d_k=d_k, d_v=d_k) for k in (max(1, h // 8), h // 2, 2 * h, 4 * h)},
            **{f'B-dk{k}': dict(d_k=k, d_v=d_k) for k in (d_k // 4, d_k // 2)}}
NINTH += [('heads numbered from 0', _n9_hl, (lambda w, rows, col: [h for h in range(w.shape[0]) if all(w[h, r].argmax() == col for r in rows)],), "heads are numbered from 1"),
          ('row (A) keeps d_k', _n9_rab, (_n9_rows_fixed_dk,), "it keeps the computation constant, d_k = d_v = d_model / h for each h")]
def _n9_rows(name_a='A-h{}', name_b='B-dk{}', dv_b=False):
    def rows_ab(base):
        d, h = base['d_model'], base['h']; d_k = base.get('d_k') or d // h
        return {**{name_a.format(k): dict(h=k, d_k=d // k, d_v=d // k) for k in (max(1, h // 8), h // 2, 2 * h, 4 * h)},
                **{name_b.format(k): dict(d_k=k, d_v=k if dv_b else d_k) for k in (d_k // 4, d_k // 2)}}
    return rows_ab
NINTH += [('rows averaged before the argmax', _n9_hl, (lambda w, rows, col: [h + 1 for h in range(w.shape[0]) if w[h, list(rows)].mean(0).argmax() == col],),
           "the rows averaged before the argmax"),
          ('argmax down the column', _n9_hl, (lambda w, rows, col: [h + 1 for h in range(w.shape[0]) if all(w[h, :, r].argmax() == col for r in rows)],),
           "not an argmax down the column"),
          ("rows named 'A4'", _n9_rab, (_n9_rows(name_a='A{}', name_b='B{}'),), "as table3_variants names them"),
          ('row (B) shrinks d_v too', _n9_rab, (_n9_rows(dv_b=True),), "row (B) changes the key size d_k alone")]

def test_ninth_right_rows_pass():
    assert _n9_rab(_n9_rows()) is True

@pytest.mark.parametrize('label', [c[0] for c in NINTH])
def test_ninth_blind_answers_named(label, in_nbs):
    "Each answer of the blind set is refused with a message that names its mistake."
    _, check, answer, words = next(c for c in NINTH if c[0] == label)
    _n9_rejects(check, *answer, says=_n9re.escape(words))

# ---------------------------------------------------------------- the sixteenth blind set's miss
def test_row_a_named_from_the_head_size_is_named():
    def rows_ab(base):
        d, h = base['d_model'], base['h']; d_k = base.get('d_k') or d // h
        return {**{f'A-h{d // k}': dict(h=k, d_k=d // k, d_v=d // k) for k in (max(1, h // 8), h // 2, 2 * h, 4 * h)},
                **{f'B-dk{k}': dict(d_k=k, d_v=d_k) for k in (d_k // 4, d_k // 2)}}
    from nbtools import assert_rejects
    assert_rejects(check_rows_ab, rows_ab, says=r"row \(A\)'s variants have the right heads, \[1, 4, 16, 32\], but are named .*not its head size d_k = d_model / h")


# ---------------------------------------------------------------- the twentieth blind set's misses (results/checker_answers.json)
def _noise20(container):
    def beyond_noise(recs):
        base = next(r['bleu'] for r in recs if r['id'] == 'base')
        noise = max(abs(r['bleu'] - base) for r in recs if r['variant'] == 'base' and r['id'] != 'base')
        return container({r['id']: r['bleu'] - base for r in recs if r['variant'] != 'base' and abs(r['bleu'] - base) > noise})
    return beyond_noise

@pytest.mark.parametrize('container, says', [(set, r"got a set, \{'A'\}; return a list of the variants' ids"), (dict, r"got a dict, \{'A': -1.5\}; return a list")])
def test_ids_in_a_set_or_a_dict_are_named(container, says, in_nbs):
    from nbtools import assert_rejects
    assert_rejects(check_beyond_noise, _noise20(container), says=says)

@pytest.mark.parametrize('heads_looking, says', [
    (lambda w, rows, col: [h + 1 for h in range(w.shape[0]) if 2 * sum(int(w[h, r].argmax() == col) for r in rows) > len(rows)],
     r"2 heads and 3 queries.*most rows of `rows` look hardest at `col` in a head yours keeps, not every row"),
    (lambda w, rows, col: [h + 1 for h in range(8) if all(w[h, r].argmax() == col for r in rows)],
     r"it runs on a map of 66 heads and fails on one of 6: a number of heads of your own \(range\(8\)\?\)")])
def test_a_majority_of_rows_and_a_fixed_number_of_heads_are_named(heads_looking, says, in_nbs):
    from nbtools import assert_rejects
    assert_rejects(check_heads_looking, heads_looking, says=says)

# --- the twenty-second blind set's answers that the checks first missed, each named now --------------------------------
from nbtools import assert_rejects as _t22_rejects
from transformer_nb.course.variations import check_heads_looking as _t22_hl, check_rows_ab as _t22_rab
_T22_PRELUDE = "import math, torch, torch.nn.functional as F\nfrom collections import Counter\nfrom transformer_nb.core import *\n"
def _t22_answer(code:str, *names):
    "The answer's functions, its code run in a fresh namespace with the notebook's imports."
    ns = {}; exec(_T22_PRELUDE + code, ns); return tuple(ns[n] for n in names)
TWENTY_SECOND = [   # (label, the answer's code, its names, the check, what its message must say)
    ('the preset edited in place', "\ndef rows_ab(base):\n    base.setdefault('d_k', base['d_model'] // base['h'])\n    d, h = base['d_model'], base['h']; d_k = base['d_k']\n    return {**{f'A-h{k}': dict(h=k, d_k=d // k, d_v=d // k) for k in (max(1, h // 8), h // 2, 2 * h, 4 * h)}, **{f'B-dk{k}': dict(d_k=k, d_v=d_k) for k in (d_k // 4, d_k // 2)}}\n",
     ('rows_ab',), _t22_rab, 'your rows_ab changed the preset it was given \\(d_k=64\\)'),
    ('a return inside the loop', '\ndef heads_looking(w, rows, col):\n    for h in range(w.shape[0]):\n        if all(w[h, r].argmax() == col for r in rows): return [h + 1]\n    return []\n',
     ('heads_looking',), _t22_hl, 'a return inside the loop over the heads'),
]

@pytest.mark.parametrize('label, code, names, check, says', TWENTY_SECOND, ids=[r[0] for r in TWENTY_SECOND])
def test_twenty_second_blind_answers_named(in_nbs, label, code, names, check, says):
    _t22_rejects(check, *_t22_answer(code, *names), says=says)


# --- the twenty-fifth blind set's answers that the checks first missed, each named now ---------------------------------
from nbtools import assert_rejects as _t25_rejects
from transformer_nb.course.variations import check_beyond_noise as _t25_beyond_noise, check_heads_looking as _t25_heads_looking, check_rows_ab as _t25_rows_ab
_T25_PRELUDE = 'import math, torch, torch.nn.functional as F\nfrom collections import Counter\nfrom transformer_nb.core import *\n'
def _t25_answer(code:str, *names):
    "The answer's functions, its code run in a fresh namespace with the notebook's imports."
    ns = {}; exec(_T25_PRELUDE + code, ns); return tuple(ns[n] for n in names)
TWENTY_FIFTH = [   # (label, the answer's code, its names, the check, what its message must say)
    ('seeds found by their ids', "\ndef beyond_noise(recs):\n    base = next(r['bleu'] for r in recs if r['id'] == 'base')\n    noise = max(abs(r['bleu'] - base) for r in recs if r['id'].startswith('base') and r['id'] != 'base')\n    return [r['id'] for r in recs if not r['id'].startswith('base') and abs(r['bleu'] - base) > noise]\n",
     ('beyond_noise',), _t25_beyond_noise, "a\\ run\\ belongs\\ to\\ 'base'\\ by\\ its\\ variant,\\ not\\ its\\ id"),
    ('records sorted in place', "\ndef beyond_noise(recs):\n    recs.sort(key=lambda r: -r['bleu'])\n    base = next(r['bleu'] for r in recs if r['id'] == 'base')\n    noise = max(abs(r['bleu'] - base) for r in recs if r['variant'] == 'base' and r['id'] != 'base')\n    return [r['id'] for r in recs if r['variant'] != 'base' and abs(r['bleu'] - base) > noise]\n",
     ('beyond_noise',), _t25_beyond_noise, 'reordered\\ them:\\ a\\ sort\\(\\)'),
    ('rows as an inclusive range', '\ndef heads_looking(w, rows, col):\n    rs = range(rows[0], rows[-1] + 1)\n    return [h + 1 for h in range(w.shape[0]) if all(w[h, r].argmax() == col for r in rs)]\n',
     ('heads_looking',), _t25_heads_looking, 'range\\(rows\\[0\\],\\ rows\\[\\-1\\]\\ \\+\\ 1\\)'),
    ('whole configurations', "\ndef rows_ab(base):\n    d, h = base['d_model'], base['h']; d_k = base.get('d_k') or d // h\n    return {**{f'A-h{k}': {**base, 'h': k, 'd_k': d // k, 'd_v': d // k} for k in (max(1, h // 8), h // 2, 2 * h, 4 * h)}, **{f'B-dk{k}': {**base, 'd_k': k, 'd_v': d_k} for k in (d_k // 4, d_k // 2)}}\n",
     ('rows_ab',), _t25_rows_ab, "the\\ base's\\ whole\\ configuration:\\ return\\ the\\ overrides\\ alone"),
]

@pytest.mark.parametrize('label, code, names, check, says', TWENTY_FIFTH, ids=[r[0] for r in TWENTY_FIFTH])
def test_twenty_fifth_blind_answers_named(in_nbs, label, code, names, check, says):
    _t25_rejects(check, *_t25_answer(code, *names), says=says)

# --- the thirty-first blind set's answers that the checks first missed, each named now ---------------------------------
from nbtools import assert_rejects as _t31_rejects
from transformer_nb.course.variations import check_beyond_noise as _t31_check_beyond_noise, check_heads_looking as _t31_check_heads_looking, check_rows_ab as _t31_check_rows_ab
_T31_PRELUDE = 'import math, torch, torch.nn.functional as F\nfrom collections import Counter\nfrom transformer_nb.core import *\nfrom transformer_nb.lib.options import PAPER_TABLE3, PRESETS\n'
def _t31_answer(code:str, *names):
    "The answer's functions, its code run in a fresh namespace with the notebook's imports."
    ns = {}; exec(_T31_PRELUDE + code, ns); return tuple(ns[n] for n in names)
THIRTY_FIRST = [   # (label, the answer's code, its names, the check, what its message must say)
    ('the ids sorted by the size of the difference, largest first,', "\ndef beyond_noise(recs):\n    base = next(r['bleu'] for r in recs if r['id'] == 'base')\n    noise = max(abs(r['bleu'] - base) for r in recs if r['variant'] == 'base' and r['id'] != 'base')\n    return [r['id'] for r in sorted(recs, key=lambda r: -abs(r['bleu'] - base)) if r['variant'] != 'base' and abs(r['bleu'] - base) > noise]\n",
     ('beyond_noise',), _t31_check_beyond_noise, "got\\ \\['C\\-d64',\\ 'B\\-dk4',\\ 'C\\-d256'\\],\\ the\\ right\\ ids\\ in\\ another\\ order,\\ by"),
    ('differences rounded to one decimal, as the table prints them', "\ndef beyond_noise(recs):\n    base = next(r['bleu'] for r in recs if r['id'] == 'base')\n    noise = max(abs(r['bleu'] - base) for r in recs if r['variant'] == 'base' and r['id'] != 'base')\n    return [r['id'] for r in recs if r['variant'] != 'base' and round(abs(r['bleu'] - base), 1) > round(noise, 1)]\n",
     ('beyond_noise',), _t31_check_beyond_noise, "got\\ \\[\\],\\ want\\ \\['P',\\ 'Q'\\]:\\ the\\ differences\\ were\\ rounded\\ before"),
    ("the difference relative to base's BLEU (in percent) compared", "\ndef beyond_noise(recs):\n    base = next(r['bleu'] for r in recs if r['id'] == 'base')\n    noise = max(abs(r['bleu'] - base) for r in recs if r['variant'] == 'base' and r['id'] != 'base')\n    return [r['id'] for r in recs if r['variant'] != 'base' and 100 * abs(r['bleu'] - base) / base > noise]\n",
     ('beyond_noise',), _t31_check_beyond_noise, "your\\ difference\\ is\\ in\\ percent\\ of\\ base's\\ BLEU,\\ 100\\ \\|BLEU\\ \\-\\ base\\ BLEU\\|"),
    ('the last head missed: range(w.shape[0] - 1)', '\ndef heads_looking(w, rows, col):\n    return [h + 1 for h in range(w.shape[0] - 1) if all(w[h, r].argmax() == col for r in rows)]\n',
     ('heads_looking',), _t31_check_heads_looking, 'the\\ last\\ head\\ is\\ never\\ read:\\ range\\(w\\.shape\\[0\\]\\ \\-\\ 1\\)\\ stops\\ one\\ short;'),
    ('the argmax of the whole block of rows, flattened, taken modu', '\ndef heads_looking(w, rows, col):\n    return [h + 1 for h in range(w.shape[0]) if w[h, rows].argmax() % w.shape[-1] == col]\n',
     ('heads_looking',), _t31_check_heads_looking, 'one\\ argmax\\ over\\ the\\ rows\\ and\\ keys\\ together,\\ w\\[h,\\ rows\\]\\.argmax\\(\\)\\ %'),
    ('min(1, h // 8) for "at least one"', "\ndef rows_ab(base):\n    d, h = base['d_model'], base['h']; d_k = base.get('d_k') or d // h\n    return {**{f'A-h{k}': dict(h=k, d_k=d // k, d_v=d // k) for k in (min(1, h // 8), h // 2, 2 * h, 4 * h)}, **{f'B-dk{k}': dict(d_k=k, d_v=d_k) for k in (d_k // 4, d_k // 2)}}\n",
     ('rows_ab',), _t31_check_rows_ab, "row\\ \\(A\\)'s\\ first\\ variant\\ has\\ 1\\ head\\ where\\ the\\ base's\\ h/8\\ is\\ more:\\ 'h/8"),
    ("the base's own h in row (A) too", "\ndef rows_ab(base):\n    d, h = base['d_model'], base['h']; d_k = base.get('d_k') or d // h\n    return {**{f'A-h{k}': dict(h=k, d_k=d // k, d_v=d // k) for k in (max(1, h // 8), h // 2, h, 2 * h, 4 * h)}, **{f'B-dk{k}': dict(d_k=k, d_v=d_k) for k in (d_k // 4, d_k // 2)}}\n",
     ('rows_ab',), _t31_check_rows_ab, "the\\ base's\\ own\\ number\\ of\\ heads\\ is\\ in\\ your\\ row\\ \\(A\\):\\ it\\ is\\ the\\ base"),
]

@pytest.mark.parametrize('label, code, names, check, says', THIRTY_FIRST, ids=[r[0] for r in THIRTY_FIRST])
def test_thirty_first_blind_answers_named(in_nbs, label, code, names, check, says):
    _t31_rejects(check, *_t31_answer(code, *names), says=says)


# --- the thirty-fifth blind set's answers that the checks first missed, variants of their kinds, and a few more kinds found while fixing them, each named now
from nbtools import assert_rejects as _t35_rejects
from transformer_nb.course.variations import check_beyond_noise as _t35_check_beyond_noise, check_heads_looking as _t35_check_heads_looking
_T35_PRELUDE = ('import math, torch, torch.nn.functional as F\nfrom collections import Counter\nfrom transformer_nb.core import *\n')
def _t35_answer(code:str, name:str):
    "The answer's function, its code run in a fresh namespace with the notebook's imports."
    ns = {}; exec(_T35_PRELUDE + code, ns); return ns[name]
THIRTY_FIFTH = [   # (label, the answer's code, its name, the check, what its message must say)
    ("base's BLEU the best of its runs", "\ndef beyond_noise(recs):\n    base = max(r['bleu'] for r in recs if r['variant'] == 'base')\n    noise = max(abs(r['bleu'] - base) for r in recs if r['variant'] == 'base' and r['id'] != 'base')\n    return [r['id'] for r in recs if r['variant'] != 'base' and abs(r['bleu'] - base) > noise]\n",
     'beyond_noise', _t35_check_beyond_noise, "your\\ base\\ BLEU\\ is\\ the\\ best\\ of\\ the\\ runs\\ of\\ 'base'"),
    ("base's BLEU the worst of its runs", "\ndef beyond_noise(recs):\n    base = min(r['bleu'] for r in recs if r['variant'] == 'base')\n    noise = max(abs(r['bleu'] - base) for r in recs if r['variant'] == 'base' and r['id'] != 'base')\n    return [r['id'] for r in recs if r['variant'] != 'base' and abs(r['bleu'] - base) > noise]\n",
     'beyond_noise', _t35_check_beyond_noise, "your\\ base\\ BLEU\\ is\\ the\\ worst\\ of\\ the\\ runs\\ of\\ 'base'"),
    ("the spread from the runs' mean", "\ndef beyond_noise(recs):\n    base = next(r['bleu'] for r in recs if r['id'] == 'base')\n    noise = max(abs(r['bleu'] - sum(x['bleu'] for x in recs if x['variant'] == 'base') / sum(x['variant'] == 'base' for x in recs)) for r in recs if r['variant'] == 'base')\n    return [r['id'] for r in recs if r['variant'] != 'base' and abs(r['bleu'] - base) > noise]\n",
     'beyond_noise', _t35_check_beyond_noise, "your\\ spread\\ is\\ measured\\ from\\ the\\ runs'\\ mean"),
    ("the spread from the other seeds' mean", "\ndef beyond_noise(recs):\n    base = next(r['bleu'] for r in recs if r['id'] == 'base')\n    noise = max(abs(r['bleu'] - sum(x['bleu'] for x in recs if x['variant'] == 'base' and x['id'] != 'base') / sum(x['variant'] == 'base' and x['id'] != 'base' for x in recs)) for r in recs if r['variant'] == 'base')\n    return [r['id'] for r in recs if r['variant'] != 'base' and abs(r['bleu'] - base) > noise]\n",
     'beyond_noise', _t35_check_beyond_noise, "your\\ spread\\ is\\ measured\\ from\\ the\\ runs'\\ mean"),
    ('the heads listed last to first', '\ndef heads_looking(w, rows, col):\n    return [h + 1 for h in reversed(range(w.shape[0])) if all(w[h, r].argmax() == col for r in rows)]\n',
     'heads_looking', _t35_check_heads_looking, 'the\\ right\\ heads\\ in\\ another\\ order'),   # found while fixing the set's misses
    ('the heads sorted by their weight on col', '\ndef heads_looking(w, rows, col):\n    return sorted([h + 1 for h in range(w.shape[0]) if all(w[h, r].argmax() == col for r in rows)], key=lambda h: -float(w[h - 1, rows[0], col]))\n',
     'heads_looking', _t35_check_heads_looking, 'the\\ right\\ heads\\ in\\ another\\ order'),   # found while fixing the set's misses
    ('the spread doubled', "\ndef beyond_noise(recs):\n    base = next(r['bleu'] for r in recs if r['id'] == 'base')\n    noise = 2 * max(abs(r['bleu'] - base) for r in recs if r['variant'] == 'base' and r['id'] != 'base')\n    return [r['id'] for r in recs if r['variant'] != 'base' and abs(r['bleu'] - base) > noise]\n",
     'beyond_noise', _t35_check_beyond_noise, 'your\\ spread\\ is\\ a\\ multiple\\ of\\ the\\ largest'),   # found while fixing the set's misses
]

@pytest.mark.parametrize('label, code, name, check, says', THIRTY_FIFTH, ids=[r[0] for r in THIRTY_FIFTH])
def test_thirty_fifth_blind_answers_named(in_nbs, label, code, name, check, says):
    _t35_rejects(check, _t35_answer(code, name), says=says)

# --- the thirty-ninth blind set's answers that the checks first missed, and a second answer of each kind, each named now
from nbtools import assert_rejects as _t39_rejects
from transformer_nb.course.variations import check_beyond_noise as _t39_check_beyond_noise, check_heads_looking as _t39_check_heads_looking, check_rows_ab as _t39_check_rows_ab
_T39_PRELUDE = ('import math, torch, torch.nn.functional as F\nfrom collections import Counter\nfrom transformer_nb.core import *\n')
def _t39_answer(code:str, name:str):
    "The answer's function, its code run in a fresh namespace with the notebook's imports."
    ns = {}; exec(_T39_PRELUDE + code, ns); return ns[name]
THIRTY_NINTH = [   # (label, the answer's code, its name, the check, what its message must say)
    ("base found as the base run of seed 0 (r['seed'], a field the records need not carry), not by its id", "\ndef beyond_noise(recs):\n    base = next(r['bleu'] for r in recs if r['variant'] == 'base' and r['seed'] == 0)\n    noise = max(abs(r['bleu'] - base) for r in recs if r['variant'] == 'base' and r['seed'] != 0)\n    return [r['id'] for r in recs if r['variant'] != 'base' and abs(r['bleu'] - base) > noise]\n",
     'beyond_noise', _t39_check_beyond_noise, "your\\ function\\ read\\ r\\['seed'\\],\\ a\\ field\\ these\\ records\\ do\\ not\\ carry"),
    ("each variant compared with the base run of its own seed (the table's paired delta), not with 'base'", "\ndef beyond_noise(recs):\n    base = next(r['bleu'] for r in recs if r['id'] == 'base')\n    noise = max(abs(r['bleu'] - base) for r in recs if r['variant'] == 'base' and r['id'] != 'base')\n    by_seed = {r.get('seed', 0): r['bleu'] for r in recs if r['variant'] == 'base'}\n    return [r['id'] for r in recs if r['variant'] != 'base' and abs(r['bleu'] - by_seed.get(r.get('seed', 0), base)) > noise]\n",
     'beyond_noise', _t39_check_beyond_noise, "each\\ variant\\ is\\ measured\\ from\\ the\\ run\\ of\\ 'base'\\ with\\ its\\ own\\ seed"),
    ("each variant compared with its nearest base run, not with the record 'base'", "\ndef beyond_noise(recs):\n    base = next(r['bleu'] for r in recs if r['id'] == 'base')\n    runs = [r['bleu'] for r in recs if r['variant'] == 'base']\n    noise = max(abs(b - base) for b in runs)\n    return [r['id'] for r in recs if r['variant'] != 'base' and min(abs(r['bleu'] - b) for b in runs) > noise]\n",
     'beyond_noise', _t39_check_beyond_noise, "each\\ variant\\ is\\ measured\\ from\\ its\\ nearest\\ run\\ of\\ 'base'"),
    ("a variant's seeds averaged first, then all its ids returned when the mean is beyond", "\ndef beyond_noise(recs):\n    base = next(r['bleu'] for r in recs if r['id'] == 'base')\n    noise = max(abs(r['bleu'] - base) for r in recs if r['variant'] == 'base' and r['id'] != 'base')\n    runs = {}\n    for r in recs:\n        if r['variant'] != 'base': runs.setdefault(r['variant'], []).append(r)\n    out = []\n    for v, rs in runs.items():\n        if abs(sum(r['bleu'] for r in rs) / len(rs) - base) > noise: out += [r['id'] for r in rs]\n    return out\n",
     'beyond_noise', _t39_check_beyond_noise, "each\\ variant's\\ runs\\ were\\ averaged"),
    ("one run per variant (a dict keyed by variant): a variant's other seeds lost", "\ndef beyond_noise(recs):\n    base = next(r['bleu'] for r in recs if r['id'] == 'base')\n    noise = max(abs(r['bleu'] - base) for r in recs if r['variant'] == 'base' and r['id'] != 'base')\n    last = {r['variant']: r for r in recs if r['variant'] != 'base'}\n    return [r['id'] for r in last.values() if abs(r['bleu'] - base) > noise]\n",
     'beyond_noise', _t39_check_beyond_noise, 'one\\ run\\ per\\ variant,\\ its\\ last'),
    ("the base record removed from the caller's list (recs.remove)", "\ndef beyond_noise(recs):\n    b = next(r for r in recs if r['id'] == 'base')\n    recs.remove(b)                        # the rest are compared with it\n    noise = max(abs(r['bleu'] - b['bleu']) for r in recs if r['variant'] == 'base')\n    return [r['id'] for r in recs if r['variant'] != 'base' and abs(r['bleu'] - b['bleu']) > noise]\n",
     'beyond_noise', _t39_check_beyond_noise, 'your\\ function\\ removed\\ records\\ from\\ the\\ list\\ it\\ was\\ given'),
    ('base and noise computed at the first call and kept in a global: a second table reuses them', "\n_SEEN = {}\ndef beyond_noise(recs):\n    if not _SEEN:\n        _SEEN['base'] = next(r['bleu'] for r in recs if r['id'] == 'base')\n        _SEEN['noise'] = max(abs(r['bleu'] - _SEEN['base']) for r in recs if r['variant'] == 'base' and r['id'] != 'base')\n    base, noise = _SEEN['base'], _SEEN['noise']\n    return [r['id'] for r in recs if r['variant'] != 'base' and abs(r['bleu'] - base) > noise]\n",
     'beyond_noise', _t39_check_beyond_noise, "every\\ table\\ after\\ the\\ first\\ is\\ read\\ with\\ the\\ first\\ table's\\ base\\ BLEU\\ and\\ spread"),
    ('the complement: the variants within the noise (<=) returned', "\ndef beyond_noise(recs):\n    base = next(r['bleu'] for r in recs if r['id'] == 'base')\n    noise = max(abs(r['bleu'] - base) for r in recs if r['variant'] == 'base' and r['id'] != 'base')\n    return [r['id'] for r in recs if r['variant'] != 'base' and abs(r['bleu'] - base) <= noise]\n",
     'beyond_noise', _t39_check_beyond_noise, 'yours\\ returns\\ the\\ variants\\ within\\ the\\ spread'),
    ("range(1, h) indexing w[h]: head h+1's answer labelled h, head 1 never read", '\ndef heads_looking(w, rows, col):\n    return [h for h in range(1, w.shape[0]) if all(w[h, r].argmax() == col for r in rows)]\n',
     'heads_looking', _t39_check_heads_looking, 'range\\(1,\\ w\\.shape\\[0\\]\\)\\ with\\ w\\[h\\]'),
    ("a batch axis assumed (attention_maps' (B, h, n_q, n_k)): w[0] taken", '\ndef heads_looking(w, rows, col):\n    w = w[0]                              # the first sentence of the batch\n    return [h + 1 for h in range(w.shape[0]) if all(w[h, r].argmax() == col for r in rows)]\n',
     'heads_looking', _t39_check_heads_looking, 'yours\\ gives\\ the\\ right\\ heads\\ for\\ w\\[None\\],\\ a\\ batch\\ of\\ one'),
    ('a set of head numbers, not a list', '\ndef heads_looking(w, rows, col):\n    return {h + 1 for h in range(w.shape[0]) if all(w[h, r].argmax() == col for r in rows)}\n',
     'heads_looking', _t39_check_heads_looking, 'got\\ a\\ set'),
    ('all() over every head at once (no axis): every head or none', '\ndef heads_looking(w, rows, col):\n    hits = (w[:, rows].argmax(-1) == col).all()\n    return [h + 1 for h in range(w.shape[0]) if hits]\n',
     'heads_looking', _t39_check_heads_looking, 'one\\ verdict\\ for\\ every\\ head'),
    ('a head listed once per row that looks at col (any row, repeated)', '\ndef heads_looking(w, rows, col):\n    return [h + 1 for h in range(w.shape[0]) for r in rows if w[h, r].argmax() == col]\n',
     'heads_looking', _t39_check_heads_looking, 'a\\ head\\ is\\ listed\\ once\\ for\\ each\\ row\\ of\\ `rows`\\ that\\ looks\\ at\\ col'),
    ("base['d_k'] read directly: a preset without d_k fails", "\ndef rows_ab(base):\n    d, h, dk = base['d_model'], base['h'], base['d_k']\n    return {**{f'A-h{k}': dict(h=k, d_k=d // k, d_v=d // k) for k in (max(1, h // 8), h // 2, 2 * h, 4 * h)},\n            **{f'B-dk{k}': dict(d_k=k, d_v=dk) for k in (dk // 4, dk // 2)}}\n",
     'rows_ab', _t39_check_rows_ab, 'the\\ preset\\ has\\ no\\ d_k'),
    ("one dict reused for every entry of a row: each shows the row's last overrides", "\ndef rows_ab(base):\n    d, h = base['d_model'], base['h']\n    dk = base.get('d_k') or d // h\n    out, o = {}, {}\n    for k in (max(1, h // 8), h // 2, 2 * h, 4 * h):\n        o['h'], o['d_k'], o['d_v'] = k, d // k, d // k\n        out[f'A-h{k}'] = o\n    o = {}\n    for k in (dk // 4, dk // 2):\n        o['d_k'], o['d_v'] = k, dk\n        out[f'B-dk{k}'] = o\n    return out\n",
     'rows_ab', _t39_check_rows_ab, 'are\\ one\\ dict,\\ shared'),
    ("row (A) named from the base's h: its four entries under one key", "\ndef rows_ab(base):\n    d, h = base['d_model'], base['h']\n    dk = base.get('d_k') or d // h\n    out = {}\n    for k in (max(1, h // 8), h // 2, 2 * h, 4 * h): out[f'A-h{h}'] = dict(h=k, d_k=d // k, d_v=d // k)\n    for k in (dk // 4, dk // 2): out[f'B-dk{k}'] = dict(d_k=k, d_v=dk)\n    return out\n",
     'rows_ab', _t39_check_rows_ab, "row\\ \\(A\\)\\ holds\\ one\\ variant,\\ A\\-h8,\\ named\\ from\\ the\\ base's\\ own\\ h\\ =\\ 8"),
    ("the library's table3_variants returned whole: base and rows C to E too", '\nfrom transformer_nb.variations_config import table3_variants\ndef rows_ab(base): return table3_variants(base)\n',
     'rows_ab', _t39_check_rows_ab, 'returns\\ more\\ than\\ rows\\ \\(A\\)\\ and\\ \\(B\\):\\ C\\-N2'),
    ('the seeds found by r["seed"]', "\ndef beyond_noise(recs):\n    base = next(r['bleu'] for r in recs if r['id'] == 'base')\n    noise = max(abs(r['bleu'] - base) for r in recs if r['variant'] == 'base' and r['seed'] > 0)\n    return [r['id'] for r in recs if r['variant'] != 'base' and abs(r['bleu'] - base) > noise]\n",
     'beyond_noise', _t39_check_beyond_noise, "your\\ function\\ read\\ r\\['seed'\\],\\ a\\ field\\ these\\ records\\ do\\ not\\ carry"),   # a second answer of the kind
    ('each variant paired with the base run of its seed, a dict built in a loop', "\ndef beyond_noise(recs):\n    base = next(r['bleu'] for r in recs if r['id'] == 'base')\n    noise = max(abs(r['bleu'] - base) for r in recs if r['variant'] == 'base' and r['id'] != 'base')\n    pair = {}\n    for r in recs:\n        if r['variant'] == 'base': pair[r.get('seed', 0)] = r['bleu']\n    return [r['id'] for r in recs if r['variant'] != 'base' and abs(r['bleu'] - pair[r.get('seed', 0)]) > noise]\n",
     'beyond_noise', _t39_check_beyond_noise, "each\\ variant\\ is\\ measured\\ from\\ the\\ run\\ of\\ 'base'\\ with\\ its\\ own\\ seed"),   # a second answer of the kind
    ('each variant measured from its nearest base run, sorted distances', "\ndef beyond_noise(recs):\n    base = next(r['bleu'] for r in recs if r['id'] == 'base')\n    runs = [r['bleu'] for r in recs if r['variant'] == 'base']\n    noise = max(abs(b - base) for b in runs)\n    return [r['id'] for r in recs if r['variant'] != 'base' and sorted(abs(r['bleu'] - b) for b in runs)[0] > noise]\n",
     'beyond_noise', _t39_check_beyond_noise, "each\\ variant\\ is\\ measured\\ from\\ its\\ nearest\\ run\\ of\\ 'base'"),   # a second answer of the kind
    ("a variant's runs averaged with a defaultdict", "\nfrom collections import defaultdict\ndef beyond_noise(recs):\n    base = next(r['bleu'] for r in recs if r['id'] == 'base')\n    noise = max(abs(r['bleu'] - base) for r in recs if r['variant'] == 'base' and r['id'] != 'base')\n    by = defaultdict(list)\n    for r in recs:\n        if r['variant'] != 'base': by[r['variant']].append(r)\n    return [r['id'] for rs in by.values() if abs(sum(x['bleu'] for x in rs) / len(rs) - base) > noise for r in rs]\n",
     'beyond_noise', _t39_check_beyond_noise, "each\\ variant's\\ runs\\ were\\ averaged"),   # a second answer of the kind
    ('the first run of each variant only (a set of variants seen)', "\ndef beyond_noise(recs):\n    base = next(r['bleu'] for r in recs if r['id'] == 'base')\n    noise = max(abs(r['bleu'] - base) for r in recs if r['variant'] == 'base' and r['id'] != 'base')\n    seen, out = set(), []\n    for r in recs:\n        if r['variant'] == 'base' or r['variant'] in seen: continue\n        seen.add(r['variant'])\n        if abs(r['bleu'] - base) > noise: out.append(r['id'])\n    return out\n",
     'beyond_noise', _t39_check_beyond_noise, 'one\\ run\\ per\\ variant,\\ its\\ first'),   # a second answer of the kind
    ("the base record popped from the caller's list", "\ndef beyond_noise(recs):\n    b = recs.pop(next(i for i, r in enumerate(recs) if r['id'] == 'base'))\n    noise = max(abs(r['bleu'] - b['bleu']) for r in recs if r['variant'] == 'base')\n    return [r['id'] for r in recs if r['variant'] != 'base' and abs(r['bleu'] - b['bleu']) > noise]\n",
     'beyond_noise', _t39_check_beyond_noise, 'your\\ function\\ removed\\ records\\ from\\ the\\ list\\ it\\ was\\ given'),   # a second answer of the kind
    ('base and spread kept in a default argument', "\ndef beyond_noise(recs, _kept={}):\n    if 'base' not in _kept:\n        _kept['base'] = next(r['bleu'] for r in recs if r['id'] == 'base')\n        _kept['noise'] = max(abs(r['bleu'] - _kept['base']) for r in recs if r['variant'] == 'base' and r['id'] != 'base')\n    return [r['id'] for r in recs if r['variant'] != 'base' and abs(r['bleu'] - _kept['base']) > _kept['noise']]\n",
     'beyond_noise', _t39_check_beyond_noise, "every\\ table\\ after\\ the\\ first\\ is\\ read\\ with\\ the\\ first\\ table's\\ base\\ BLEU\\ and\\ spread"),   # a second answer of the kind
    ('the complement written as not (> noise)', "\ndef beyond_noise(recs):\n    base = next(r['bleu'] for r in recs if r['id'] == 'base')\n    noise = max(abs(r['bleu'] - base) for r in recs if r['variant'] == 'base' and r['id'] != 'base')\n    return [r['id'] for r in recs if r['variant'] != 'base' and not abs(r['bleu'] - base) > noise]\n",
     'beyond_noise', _t39_check_beyond_noise, 'yours\\ returns\\ the\\ variants\\ within\\ the\\ spread'),   # a second answer of the kind
    ('range(1, h) with a vectorised all()', '\ndef heads_looking(w, rows, col):\n    return [h for h in range(1, w.shape[0]) if bool((w[h, rows].argmax(-1) == col).all())]\n',
     'heads_looking', _t39_check_heads_looking, 'range\\(1,\\ w\\.shape\\[0\\]\\)\\ with\\ w\\[h\\]'),   # a second answer of the kind
    ('the last layer of a list of maps assumed: w[-1]', '\ndef heads_looking(w, rows, col):\n    m = w[-1]\n    return [h + 1 for h in range(m.shape[0]) if all(m[h, r].argmax() == col for r in rows)]\n',
     'heads_looking', _t39_check_heads_looking, 'yours\\ gives\\ the\\ right\\ heads\\ for\\ w\\[None\\],\\ a\\ batch\\ of\\ one'),   # a second answer of the kind
    ('a set built with set()', '\ndef heads_looking(w, rows, col):\n    return set(h + 1 for h in range(w.shape[0]) if all(w[h, r].argmax() == col for r in rows))\n',
     'heads_looking', _t39_check_heads_looking, 'got\\ a\\ set'),   # a second answer of the kind
    ('one all() over every head and row in a loop', '\ndef heads_looking(w, rows, col):\n    ok = all(w[h, r].argmax() == col for h in range(w.shape[0]) for r in rows)\n    return [h + 1 for h in range(w.shape[0]) if ok]\n',
     'heads_looking', _t39_check_heads_looking, 'one\\ verdict\\ for\\ every\\ head'),   # a second answer of the kind
    ('the heads of each row appended in turn', '\ndef heads_looking(w, rows, col):\n    out = []\n    for r in rows: out += [h + 1 for h in range(w.shape[0]) if w[h, r].argmax() == col]\n    return out\n',
     'heads_looking', _t39_check_heads_looking, 'is\\ listed\\ more\\ than\\ once'),   # a second answer of the kind
    ("base['d_v'] read directly", "\ndef rows_ab(base):\n    d, h = base['d_model'], base['h']; dk = base.get('d_k') or d // h\n    return {**{f'A-h{k}': dict(h=k, d_k=d // k, d_v=d // k) for k in (max(1, h // 8), h // 2, 2 * h, 4 * h)},\n            **{f'B-dk{k}': dict(d_k=k, d_v=base['d_v']) for k in (dk // 4, dk // 2)}}\n",
     'rows_ab', _t39_check_rows_ab, 'the\\ preset\\ has\\ no\\ d_v'),   # a second answer of the kind
    ('one dict updated for every entry', "\ndef rows_ab(base):\n    d, h = base['d_model'], base['h']; dk = base.get('d_k') or d // h; out, row = {}, dict()\n    for k in (max(1, h // 8), h // 2, 2 * h, 4 * h):\n        row.update(h=k, d_k=d // k, d_v=d // k); out[f'A-h{k}'] = row\n    for k in (dk // 4, dk // 2): out[f'B-dk{k}'] = dict(d_k=k, d_v=dk)\n    return out\n",
     'rows_ab', _t39_check_rows_ab, 'are\\ one\\ dict,\\ shared'),   # a second answer of the kind
    ("row (B) named from the base's d_k", "\ndef rows_ab(base):\n    d, h = base['d_model'], base['h']; dk = base.get('d_k') or d // h; out = {}\n    for k in (max(1, h // 8), h // 2, 2 * h, 4 * h): out[f'A-h{k}'] = dict(h=k, d_k=d // k, d_v=d // k)\n    for k in (dk // 4, dk // 2): out[f'B-dk{dk}'] = dict(d_k=k, d_v=dk)\n    return out\n",
     'rows_ab', _t39_check_rows_ab, 'row\\ \\(B\\)\\ holds\\ one\\ variant'),   # a second answer of the kind
    ('table3_variants without its base row', "\nfrom transformer_nb.variations_config import table3_variants\ndef rows_ab(base): return {k: v for k, v in table3_variants(base).items() if k != 'base'}\n",
     'rows_ab', _t39_check_rows_ab, 'returns\\ more\\ than\\ rows\\ \\(A\\)\\ and\\ \\(B\\):\\ C\\-N'),   # a second answer of the kind
]

@pytest.mark.parametrize('label, code, name, check, says', THIRTY_NINTH, ids=[r[0] for r in THIRTY_NINTH])
def test_thirty_ninth_blind_answers_named(in_nbs, label, code, name, check, says):
    _t39_rejects(check, _t39_answer(code, name), says=says)
