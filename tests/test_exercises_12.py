"""12_parsing's exercises, proven away from the learner's names: the linearisation check accepts the solution the
notebook prints, reports an unwritten stub without failing, and rejects each likely mistake with a message that
names the tree and the mistake; the change of the "break the repair" exercise makes exactly the checks its solution
names fail, in the notebook and in tests/test_parsing.py."""
import pytest
from nbtools import assert_break_it, assert_stub_reported, _body, cells, code_blocks, namespace

NB = '12_parsing'
EXERCISES = '648f626b'

def lin_ns(): return namespace(NB, 'c3df4a72', 'c1225d6b', 'c1225d6c', 'c1225d6a', 'f8de6c71', 'e12c0001')   # linearize, the grammar, _sample_tree, the check
SOLUTION = code_blocks(NB, EXERCISES)[0]

def test_linearize_solution_passes(capsys):
    ns = lin_ns(); exec(SOLUTION, ns)
    assert ns['check_linearize'](ns['my_linearize']) is True and 'writes 4 trees as linearize does' in capsys.readouterr().out

def test_linearize_stub_is_reported_as_not_written(capsys):
    ns = namespace(NB, 'c3df4a72', 'c1225d6b', 'c1225d6c', 'c1225d6a', 'f8de6c71', 'e12c0001', 'e12c0002')   # the stub cell runs the check, as Run All does
    assert_stub_reported(ns, 'check_linearize', 'my_linearize', capsys)

@pytest.mark.parametrize('old, new, case, mistake', [
    ("    if is_preterminal(tree): return tree[0]                          # (NNP John) -> John\n",
     "    if isinstance(tree, str): return tree\n", "John's tree", 'a POS tag in the output'),
    ("return tree[0]", "return f'{tree.label()} {tree[0]}'", "John's tree", 'a POS tag in the output'),
    ("f'){lab}'", "')'", "John's tree", "a bare ')'"),
    ("lab = coarse_label(tree.label())", "lab = tree.label()", "John's tree", 'a function tag kept'),
    ("return tree[0]", "return 'XX'", "John's tree", "token 2 is 'XX' where linearize writes 'John'"),
    ("return ' '.join(", "return (", "John's tree", 'return one string'),
])
def test_linearize_mistakes_are_named(old, new, case, mistake):
    assert old in SOLUTION, old
    ns = lin_ns(); exec(SOLUTION.replace(old, new), ns)
    with pytest.raises(AssertionError) as e: ns['check_linearize'](ns['my_linearize'])
    assert str(e.value).startswith(case) and mistake in str(e.value), str(e.value)

def test_linearize_mistake_only_in_sampled_trees_is_named():
    "A walk that forgets the words under a phrase's bare leaves still passes John's tree; a sampled tree shows it."
    ns = lin_ns(); exec(SOLUTION, ns); sol = ns['my_linearize']
    with pytest.raises(AssertionError) as e: ns['check_linearize'](lambda t: sol(t).replace(' . )S', ' )S') if t.label() != 'S' or 'NP-SBJ' not in str(t) else sol(t))
    assert str(e.value).startswith('sampled tree 3'), str(e.value)

# --- exercise 2: break the repair ---

OLD = "if not stack: fixes['dropped closing bracket(s) with nothing open'] += 1; continue"
NEW = "if not stack: raise ValueError(f'a closing bracket {tok!r} with nothing open')"

def broken_source():
    src = _body(cells(NB)['6b63e4a8'][1])
    assert OLD in src
    return src.replace(OLD, NEW)

def test_break_the_repair_stops_the_repair_cell_at_its_stray_bracket():
    ns = namespace(NB, 'c3df4a72', '6b63e4a6', '6b63e4a7', broken_source(), 'cbca9625')
    with pytest.raises(ValueError, match=r"a closing bracket '\)S' with nothing open"): exec(_body(cells(NB)['5ec88712'][1]), ns)
    text = ' '.join(cells(NB)[EXERCISES][1].split())
    assert 'The repair cell stops at its case `)S (S ...`' in text

def test_break_the_repair_fails_exactly_the_two_named_tests():
    "The change made to the notebook's cell and to transformer_nb/parsing.py: tests/test_parsing.py's fast tests that fail."
    failed = {'tests/test_parsing.py::test_random_token_soup_is_repaired_or_fails_cleanly',
              'tests/test_parsing.py::test_results_file_has_every_system_with_provenance'}
    assert_break_it(NB, '6b63e4a8', OLD, NEW, 'parsing', ['tests/test_parsing.py'], notebook=False, pytest_args=['-m', 'not slow'],
                    fail_tests=failed)
    text = ' '.join(cells(NB)[EXERCISES][1].split())
    assert all(f"`{t.split('::')[1]}`" in text for t in failed)
