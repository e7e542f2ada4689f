"""The proof that 07_why_self_attention's exercises are right, away from the learner: exercise 5's check passes the
printed `restricted_attention` and names the case a wrong one gets wrong; each "break it" exercise, applied to the
code, makes exactly the checks its solution names fail."""
import pytest
from nbtools import code_blocks, namespace
from test_exercises_05 import edited, run_cells, failing_tests

NB = '07_why_self_attention'

def _ex5():
    return namespace(NB, '65dbd85c', 'fbed2b84'), code_blocks(NB, '91c9e62c')

def test_restricted_attention_solution_passes(capsys):
    ns, (check, solution) = _ex5()
    exec(solution, ns); exec(check, ns)
    assert 'agrees with full attention under local_mask' in capsys.readouterr().out

@pytest.mark.parametrize('old, new, says', [
    ("n, w = q.shape[-2], r // 2", "n, w = q.shape[-2], r", r'n=10, r=3: restricted_attention differs'),       # |i - j| <= r
    ("s = s.masked_fill((j < 0) | (j >= n), float('-inf'))", "s = s", r'n=10, r=3: restricted_attention differs'),  # pads seen
    ("/ q.shape[-1] ** 0.5", "", r'n=10, r=3: restricted_attention differs'),                                  # no 1/sqrt(d_k)
])
def test_restricted_attention_wrong_answers_are_named(old, new, says):
    ns, (check, solution) = _ex5()
    assert solution.count(old) == 1
    exec(solution.replace(old, new), ns)
    with pytest.raises(AssertionError, match=says): exec(check, ns)

AFTER_MAKE_LAYER, PATHS, STACKS, PATH_TESTS = '8c7195fc', '92895e98', 'dfef6b00', '0aa4a5a9'

def test_break_it_1_conv_padded_on_both_sides():
    src = edited(NB, "6896f973", "self.conv(F.pad(x.transpose(1, 2), (self.pad, 0)))", "self.conv(F.pad(x.transpose(1, 2), (self.pad // 2, self.pad - self.pad // 2)))")
    got = set(run_cells(NB, {'6896f973': src}))
    assert got == {AFTER_MAKE_LAYER, PATHS, STACKS}, got
    assert failing_tests('complexity', src, ['tests/test_complexity.py::test_conv_is_causal_and_sees_k_positions']) == \
        {'tests/test_complexity.py::test_conv_is_causal_and_sees_k_positions'}

def test_break_it_2_path_length_off_by_one():
    src = edited(NB, 'ad972bfa', "return math.ceil((n - 1) / (k - 1))", "return math.ceil((n - 1) / k)")
    got = set(run_cells(NB, {'ad972bfa': src}))
    assert got == {STACKS, PATH_TESTS}, got
    assert failing_tests('complexity', src, ['tests/test_complexity.py::test_max_path_length']) == \
        {'tests/test_complexity.py::test_max_path_length'}
