"""12_variations's exercises, proven away from the learner's names: each check (`transformer_nb.exercises`, A26) accepts
the solution the notebook prints, reports an unwritten stub without failing, and names each likely mistake with the
case it fails, returning False and never raising; the change of the "break it" exercise makes exactly the check its
solution names fail."""
import contextlib, io
import pytest
from nbtools import NBS, _body, cells, code_blocks, exercise, namespace
from transformer_nb.exercises import check_beyond_noise, check_heads_looking

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
    with pytest.raises(AssertionError, match="h=1"): exec(test, ns)
    exec(test, namespace(NB, src))                                                       # the cell as written passes
    assert 'fails at `A-h1`' in exercise(NB, EXERCISES, 1)

# --- exercise 2: beyond the noise ---

BEYOND = code_blocks(NB, EXERCISES)[0]

def beyond(src=BEYOND):
    ns = {}; exec(src, ns); return ns['beyond_noise']

def test_beyond_solution_passes(in_nbs):
    assert said(check_beyond_noise, beyond()) == (True, 'beyond_noise finds the variants beyond the noise in 6 tables')

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
    assert said(check_heads_looking, ns['heads_looking']) == (True, 'heads_looking reads a made-up map and the 5 readings of the text from the stored maps')

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
