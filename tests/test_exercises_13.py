"""13_parsing's exercises, proven away from the learner's names: each check (`transformer_nb.exercises`, A26) accepts
the solution the notebook prints, reports an unwritten stub without failing, and names each likely mistake with the
tree or case it fails, returning False and never raising; the change of the "break the repair" exercise makes exactly
the checks its solution names fail, in the notebook and in tests/test_parsing.py; so does "break the linearisation"."""
import contextlib, io
import pytest
from nbtools import assert_break_it, _body, cells, code_blocks, exercise, namespace
from transformer_nb.exercises import check_linearize, check_corpus_prf
from transformer_nb.treebank import coarse_label, is_preterminal

NB = '13_parsing'
EXERCISES = '648f626b'
MORE = 'e12c0d01'                          # More exercises, under Going deeper

def said(check, *answer) -> tuple:
    "What `check(*answer)` returns, and the line it prints."
    with contextlib.redirect_stdout(io.StringIO()) as out: ok = check(*answer)
    return ok, out.getvalue().strip()

# --- exercise 1: write the linearisation ---

SOLUTION = code_blocks(NB, EXERCISES)[0]

def solution(src=SOLUTION):
    ns = {'coarse_label': coarse_label, 'is_preterminal': is_preterminal}      # what the notebook's imports give the learner
    exec(src, ns); return ns['my_linearize']

def test_linearize_solution_passes():
    assert said(check_linearize, solution()) == (True, 'my_linearize writes 5 trees as linearize does')

def test_linearize_stub_is_reported_as_not_written(capsys):
    ns = namespace(NB, 'e12c0002')                                   # the stub cell runs the check, as Run All does
    assert 'my_linearize is not written yet' in capsys.readouterr().out
    assert said(check_linearize, ns['my_linearize'])[0] is False

@pytest.mark.parametrize('old, new, case, mistake', [
    ("    if is_preterminal(tree): return tree[0]                          # (NNP John) -> John\n",
     "    if isinstance(tree, str): return tree\n", "John's tree", 'a POS tag in the output'),
    ("return tree[0]", "return f'{tree.label()} {tree[0]}'", "John's tree", 'a POS tag in the output'),
    ("f'){lab}'", "')'", "John's tree", "a bare ')'"),
    ("lab = coarse_label(tree.label())", "lab = tree.label()", "John's tree", 'a function tag kept'),
    ("lab = coarse_label(tree.label())", "lab = tree.label().split('-')[0]", "the gapping tree",        # right on NP-SBJ,
     "a label kept its index ((NP=1); `label.split('-')[0]` strips a function tag but not the '=1'"),   # wrong on NP=1
    ("return tree[0]", "return 'XX'", "John's tree", "token 2 is 'XX' where linearize writes 'John'"),
    ("return ' '.join(", "return (", "John's tree", 'return one string'),
])
def test_linearize_mistakes_are_named(old, new, case, mistake):
    assert old in SOLUTION, old
    ok, line = said(check_linearize, solution(SOLUTION.replace(old, new)))
    assert not ok and line.startswith(f'Not yet: {case}') and mistake in line, line

def test_linearize_mistake_only_in_sampled_trees_is_named():
    "A walk that loses the sentence-final period of a sampled tree passes the hand-written trees; a sampled tree shows it."
    sol = solution()
    hand = lambda t: t.label() == 'S' and 'NNP John' in str(t)
    ok, line = said(check_linearize, lambda t: sol(t) if hand(t) else sol(t).replace(' . )S', ' )S'))
    assert not ok and line.startswith('Not yet: sampled tree 1'), line

# --- exercise 2: break the linearisation ---

def test_break_linearize_fails_the_first_check_of_the_cell_after_it():
    src = _body(cells(NB)['c3df4a72'][1])
    old = "out.append(f'){lab}')"
    assert old in src and "close every phrase with a bare `)` instead of `){lab}`" in ' '.join(exercise(NB, EXERCISES, 2).split())
    ns = namespace(NB, src.replace(old, "out.append(')')"))
    lines = _body(cells(NB)['cbca9625'][1]).splitlines()
    with pytest.raises(AssertionError, match=r"\(S \(NP John \) \(VP has \(NP a dog \) \) \. \)"): exec(lines[0] + '\n' + lines[1], ns)
    assert '`(S (NP John ) (VP has (NP a dog ) ) . )`' in exercise(NB, EXERCISES, 2)

# --- exercise 4 (More exercises, under Going deeper): break the repair ---

OLD = "if not stack: fixes['dropped closing bracket(s) with nothing open'] += 1; continue"
NEW = "if not stack: raise ValueError(f'a closing bracket {tok!r} with nothing open')"

def broken_source():
    src = _body(cells(NB)['6b63e4a8'][1])
    assert OLD in src
    return src.replace(OLD, NEW)

def test_break_the_repair_stops_the_repair_cell_at_its_stray_bracket():
    ns = namespace(NB, 'c3df4a72', 'e12g0005', broken_source(), 'cbca9625')   # linearize, checked as under Going deeper
    with pytest.raises(ValueError, match=r"a closing bracket '\)S' with nothing open"): exec(_body(cells(NB)['5ec88712'][1]), ns)
    text = ' '.join(cells(NB)[MORE][1].split())
    assert 'The repair cell stops at its case `)S (S ...`' in text

@pytest.mark.slow
def test_break_the_repair_fails_exactly_the_two_named_tests():
    "The change made to the notebook's cell and to transformer_nb/parsing.py: tests/test_parsing.py's fast tests that fail."
    failed = {'tests/test_parsing.py::test_random_token_soup_is_repaired_or_fails_cleanly',
              'tests/test_parsing.py::test_results_file_has_every_system_with_provenance'}
    assert_break_it(NB, '6b63e4a8', OLD, NEW, 'parsing', ['tests/test_parsing.py'], notebook=False, pytest_args=['-m', 'not slow'],
                    fail_tests=failed)
    text = ' '.join(cells(NB)[MORE][1].split())
    assert all(f"`{t.split('::')[1]}`" in text for t in failed)

# --- exercise 3: score a test set ---

PRF = code_blocks(NB, EXERCISES)[1]

def corpus(src=PRF):
    ns = {}; exec(src, ns); return ns['my_corpus_prf']

def test_corpus_prf_solution_passes():
    assert said(check_corpus_prf, corpus()) == (True, 'my_corpus_prf scores 3 test sets as EVALB sums them')

def test_corpus_prf_stub_is_reported_as_not_written(capsys):
    ns = namespace(NB, 'e12c0004')
    assert 'my_corpus_prf is not written yet' in capsys.readouterr().out
    assert said(check_corpus_prf, ns['my_corpus_prf'])[0] is False

@pytest.mark.parametrize('old, new, case, mistake', [
    ("p, r = 100 * m / t, 100 * m / g", "p, r = 100 * m / g, 100 * m / t", "case 'one sentence'", 'precision and recall swapped'),
    ("p, r = 100 * m / t, 100 * m / g", "p, r = m / t, m / g", "case 'one sentence'", 'in percent'),
    ("return p, r, 2 * p * r / (p + r)", "return p, r, (p + r) / 2", "case 'one sentence'", 'the harmonic mean'),
    ("    m, g, t = (sum(c[i] for c in counts) for i in range(3))          # summed over the test set\n"
     "    p, r = 100 * m / t, 100 * m / g                                    # over the parse's, the reference's brackets\n",
     "    p = sum(100 * m / t for m, g, t in counts) / len(counts)\n    r = sum(100 * m / g for m, g, t in counts) / len(counts)\n",
     "case 'a failed parse'", 'ZeroDivisionError. Likely mistake: a failed parse has no brackets'),
])
def test_corpus_prf_mistakes_are_named(old, new, case, mistake):
    assert old in PRF, old
    ok, line = said(check_corpus_prf, corpus(PRF.replace(old, new)))
    assert not ok and line.startswith(f'Not yet: {case}') and mistake in line, line

def test_corpus_prf_sentence_average_is_named():
    from transformer_nb.treebank import prf
    ok, line = said(check_corpus_prf, lambda cs: tuple(sum(prf(*c)[i] for c in cs) / len(cs) for i in range(3)))
    assert not ok and "case 'a failed parse'" in line and "an average of the sentences' scores" in line, line

def test_the_exercises_are_three_and_each_has_its_check():
    text = cells(NB)[EXERCISES][1]
    assert [exercise(NB, EXERCISES, n)[:3] for n in (1, 2, 3)] == ['1. ', '2. ', '3. ']
    assert 'check_linearize(my_linearize)' in cells(NB)['e12c0002'][1] and 'check_corpus_prf(my_corpus_prf)' in cells(NB)['e12c0004'][1]
    assert '`NP=1`' in text                                          # the rule the check holds: indices stripped too
