"""The proof that 05_positional_encoding's exercises are right, away from the learner: each check (transformer_nb.exercises,
taught in A26) passes the printed solution, reports the unwritten stub as not written, and refuses every wrong variant
with a message that names the case (multiplying by 10000^(2i/d_model) and a flipped relative offset included);
each "break it" exercise, applied to the code, makes exactly the checks its solution names fail (tests/nbtools.py's
`break_it`: the notebook's cells, but the prose checks, and the named pytest tests)."""
import pytest, torch
from nbtools import break_it
from nbtools import assert_break_it, assert_no_cell_runs_a_solution, assert_rejects, assert_stub_reported, _body, cells, changed, code_blocks, namespace
from transformer_nb.exercises import check_encoding, check_relative_bias

NB = '05_positional_encoding'

# --- exercise "write it yourself": my_encoding --------------------------------------------------------------------------

def _check():
    ns = namespace(NB)
    return ns, check_encoding

def test_encoding_solution_passes_and_stub_is_reported(capsys):
    ns, check = _check()
    sol = namespace(NB, 'b5d0a004')
    assert check(sol['my_encoding']) is True
    exec(_body(cells(NB)['b5d0a003'][1]).split('\ncheck_encoding')[0], ns)   # the stub, as the learner finds it
    assert check(ns['my_encoding']) is False
    assert 'is not written yet' in capsys.readouterr().out
    assert check(namespace(NB, 'e322c005', '51a78696')['sinusoidal_encoding']) is True   # the library passes too

def _variant(base=10000, exp=2, halves=False, swap=False, shape=None, start=0, multiply=False):
    def my_encoding(n, d):
        pos, w = torch.arange(start, start + n, dtype=torch.float64)[:, None], base ** (exp * torch.arange(d // 2) / d)
        angle = pos * w if multiply else pos / w
        a, b = (angle.cos(), angle.sin()) if swap else (angle.sin(), angle.cos())
        pe = torch.cat([a, b], -1) if halves else torch.stack([a, b], -1).flatten(1)
        return pe[:, :shape] if shape else pe.float()
    return my_encoding

@pytest.mark.parametrize('wrong, says', [
    (_variant(base=torch.e), 'base e instead of 10000'), (_variant(exp=1), 'exponent i/d_model'), (_variant(halves=True), 'two halves'),
    (_variant(swap=True), 'sine and cosine swapped'), (_variant(shape=3), 'shape'), (_variant(start=1), 'positions counted from 1'),
    (_variant(multiply=True), r'pos multiplied by 10000\^\(2i/d_model\): divide by it'),
    (lambda n, d: [[0.0] * d] * n, 'tensor')])
def test_encoding_wrong_answers_are_named(wrong, says):
    assert_rejects(_check()[1], wrong, says=says)

# --- exercise 6: RelativeBias ----------------------------------------------------------------------------------------

def test_relative_bias_solution_passes(capsys):
    ns = namespace(NB, '0c5c1cbc')
    assert check_relative_bias(ns['RelativeBias']) is True
    assert 'every row of its table learns' in capsys.readouterr().out

WRONG_BIAS = {
    'wraps': ("offset.clamp(-self.K, self.K) + self.K", "offset % (2 * self.K + 1)",
              r'should be table\[2\] \(offset j - i = 0, plus K\); it is table\[0\]: the offset wraps around; clip it to \[-K, K\]'),
    'i - j': ("torch.arange(n_k)[None, :] - torch.arange(n_q)[:, None]", "torch.arange(n_q)[:, None] - torch.arange(n_k)[None, :]",
              r'you used the offset i - j \(query minus key\); it is j - i, key minus query'),
    'no permute': (".permute(2, 0, 1)", ".permute(2, 1, 0)", 'expected \\(h, n_q, n_k\\)'),
    'two tables': ("self.table = nn.Parameter(torch.randn(2 * K + 1, h) * 0.02)",
                   "self.table = nn.Parameter(torch.randn(2 * K + 1, h) * 0.02); self.extra = nn.Parameter(torch.zeros(1))", 'one parameter'),
}

@pytest.mark.parametrize('name', WRONG_BIAS)
def test_relative_bias_wrong_answers_are_named(name):
    old, new, says = WRONG_BIAS[name]
    ns = namespace(NB, changed(code_blocks(NB, '0c5c1cbc')[0], old, new))
    assert_rejects(check_relative_bias, ns['RelativeBias'], says=says)

def test_relative_bias_stub_is_reported(capsys):
    ns = namespace(NB, 'f5e0f003')                           # the stub cell calls the check itself
    assert_stub_reported(ns, 'check_relative_bias', 'RelativeBias', capsys)

def test_no_cell_runs_a_solution_or_rebinds_the_learners_names():
    assert_no_cell_runs_a_solution(NB, 'my_encoding', 'RelativeBias')

# --- "break it": exactly the checks each solution names fail ------------------------------------------------------------

AFTER_ENCODING, ROTATION, AFTER_FREQUENCIES = '6784a200', 'b6cf0554', 'c451f5f6'
SINUSOIDAL = 'tests/test_blocks.py::test_sinusoidal_matches_numpy_reference'

@pytest.mark.slow
def test_break_it_1_swap_sine_and_cosine():
    assert_break_it(NB, '51a78696', "torch.stack([angle.sin(), angle.cos()], dim=-1)", "torch.stack([angle.cos(), angle.sin()], dim=-1)",
                    'positional', [SINUSOIDAL], prose=False, fail_cells={AFTER_ENCODING, ROTATION}, fail_tests={SINUSOIDAL})

@pytest.mark.slow
def test_break_it_2_exponent():
    assert_break_it(NB, 'e322c005', "-torch.arange(0, d_model, 2).double() / d_model",
                    "-torch.arange(0, d_model // 2).double() / d_model", 'positional', [SINUSOIDAL], prose=False,
                    fail_cells={AFTER_FREQUENCIES, AFTER_ENCODING}, fail_tests={SINUSOIDAL})


BREAKS = {1: dict(cell='51a78696', old="torch.stack([angle.sin(), angle.cos()], dim=-1)", new="torch.stack([angle.cos(), angle.sin()], dim=-1)"),
          2: dict(cell='e322c005', old="-torch.arange(0, d_model, 2).double() / d_model", new="-torch.arange(0, d_model // 2).double() / d_model")}

@pytest.mark.slow
@pytest.mark.parametrize('n', BREAKS)
def test_no_hidden_cell_fails_when_a_break_it_change_is_made(n):
    "The learner who makes a break-it change sees the cells its solution names fail, never the hidden prose checks."
    b = BREAKS[n]
    failed, _ = break_it(NB, b['cell'], b['old'], b['new'], 'positional')
    hidden = {cid for cid, (kind, src) in cells(NB).items() if kind == 'code' and src.startswith('#| hide')}
    assert hidden and not set(failed) & hidden, {c: failed[c] for c in set(failed) & hidden}
