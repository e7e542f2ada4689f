"""The proof that 07_why_self_attention's exercises are right, away from the learner: `check_restricted` passes the
printed `restricted_attention` (exercise 3), reports the stub, and names the case a wrong one gets wrong; each "break it" exercise, applied to the
code, makes exactly the checks its solution names fail."""
import pytest
from nbtools import _body, assert_break_it, cells, code_blocks, namespace, run_check

NB = '07_why_self_attention'

def _ex5():
    ns = namespace(NB, '65dbd85c', 'fbed2b84', 'a07e0011')
    return ns, "assert check_restricted(restricted_attention) is True", code_blocks(NB, 'a07e0013')[0]

def test_restricted_attention_stub_is_reported(capsys):
    ns = _ex5()[0]
    exec(_body(cells(NB)['a07e0012'][1]), ns)
    assert 'restricted_attention is not written yet' in capsys.readouterr().out

def test_restricted_attention_solution_passes(capsys):
    run_check(*_ex5())
    assert 'agrees with full attention under local_mask' in capsys.readouterr().out

@pytest.mark.parametrize('old, new, says', [
    ("n, w = q.shape[-2], r // 2", "n, w = q.shape[-2], r", r'n=10, r=3: restricted_attention differs.*: a query sees the keys j with \|i - j\| <= r // 2, not r'),
    ("s = s.masked_fill((j < 0) | (j >= n), float('-inf'))", "s = s", r'n=10, r=3: .*: only the queries within 1 of an end are wrong: the padded rows'),
    ("/ q.shape[-1] ** 0.5", "", r'n=10, r=3: .*: divide the scores by sqrt\(d_k\)'),
    ("s.softmax(-1)", "s.softmax(-2)", r'n=10, r=3: .*: softmax over the window'),
    ("return torch.einsum('bhnw,bhndw->bhnd', s.softmax(-1), win(v))", "return s.softmax(-1)", r'n=10, r=3: restricted_attention must return shape \(2, 4, 10, 16\)'),
])
def test_restricted_attention_wrong_answers_are_named(old, new, says):
    run_check(*_ex5(), old, new, says)

AFTER_MAKE_LAYER, PATHS, STACKS, PATH_TESTS = '8c7195fc', '92895e98', 'dfef6b00', '0aa4a5a9'

def test_break_it_1_conv_padded_on_both_sides():
    causal = 'tests/test_complexity.py::test_conv_is_causal_and_sees_k_positions'
    assert_break_it(NB, '6896f973', "self.conv(F.pad(x.transpose(1, 2), (self.pad, 0)))",
                    "self.conv(F.pad(x.transpose(1, 2), (self.pad // 2, self.pad - self.pad // 2)))",
                    'complexity', [causal], prose=False, fail_cells={AFTER_MAKE_LAYER, PATHS, STACKS}, fail_tests={causal})

def test_break_it_2_path_length_off_by_one():
    paths = 'tests/test_complexity.py::test_max_path_length'
    assert_break_it(NB, 'ad972bfa', "return math.ceil((n - 1) / (k - 1))", "return math.ceil((n - 1) / k)",
                    'complexity', [paths], prose=False, fail_cells={STACKS, PATH_TESTS}, fail_tests={paths})
