"""The proof that 05_positional_encoding's exercises are right, away from the learner: each check (transformer_nb.course.positional,
taught in course_positional) passes the printed solution, reports the unwritten stub as not written, and refuses every wrong variant
with a message that names the case (multiplying by 10000^(2i/d_model) and a flipped relative offset included);
each "break it" exercise, applied to the code, makes exactly the checks its solution names fail (tests/nbtools.py's
`break_it`: the notebook's cells, but the prose checks, and the named pytest tests)."""
import pytest, torch
from nbtools import break_it
from nbtools import assert_break_it, assert_no_cell_runs_a_solution, assert_rejects, assert_stub_reported, _body, cells, changed, code_blocks, namespace
from transformer_nb.course.positional import check_encoding, check_relative_bias

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
    (lambda n, d: [[0.0] * d] * n, 'tensor'),
    (lambda n, d: _variant(start=1)(1, d).expand(n, d), 'every row of your table is the same .*: it does not depend on pos'),   # pos never used
    (lambda n, d: _variant()(1, d).expand(n, d), 'every row of your table is the same')])
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

# ---------------------------------------------------------------- fresh wrong answers, written as new learners would
import math
import torch.nn as nn
from transformer_nb.course import positional as _ex
FRESH = {}   # label: (checker, answer, the words its message must contain)
def add(checker, label, kw, *args): FRESH[checker, label] = args

# 05 my_encoding: each answer and the words its message must contain
def pe_ref(n, d, f=lambda pos, i, d: pos / 10000 ** (2 * i / d)):
    pe = torch.zeros(n, d)
    for pos in range(n):
        for i in range(d // 2):
            pe[pos, 2 * i], pe[pos, 2 * i + 1] = math.sin(f(pos, i, d)), math.cos(f(pos, i, d))
    return pe
def en_2i_index(n, d):   # uses the dimension index (2i) as i -> exponent 4i/d
    return pe_ref(n, d, lambda pos, i, d: pos / 10000 ** (4 * i / d))
add('check_encoding', 'exponent 4i/d (uses dimension index for i)', ['2i', 'exponent', 'dimension', 'pair'], en_2i_index)
def en_halves(n, d):
    pos = torch.arange(n)[:, None].float(); w = 10000 ** (-torch.arange(0, d, 2).float() / d)
    return torch.cat([torch.sin(pos * w), torch.cos(pos * w)], -1)
add('check_encoding', 'concatenated halves not interleaved', ['halves', 'interleav', 'even', 'concat'], en_halves)
def en_swap(n, d):
    pe = pe_ref(n, d); return pe.view(n, d // 2, 2).flip(-1).reshape(n, d)
add('check_encoding', 'cos in even, sin in odd', ['swap', 'even', 'sin', 'cos'], en_swap)
def en_start1(n, d): return pe_ref(n + 1, d)[1:]
add('check_encoding', 'positions from 1', ['position', 'start', '0', '1'], en_start1)
def en_mul(n, d): return pe_ref(n, d, lambda pos, i, d: pos * 10000 ** (2 * i / d))
add('check_encoding', 'multiplies by 10000^(2i/d)', ['multipl', 'divide'], en_mul)
def en_base(n, d): return pe_ref(n, d, lambda pos, i, d: pos / 1000 ** (2 * i / d))
add('check_encoding', 'base 1000', ['10000', 'base'], en_base)
def en_f64(n, d): return pe_ref(n, d).double().tolist()
add('check_encoding', 'returns a list', ['list', 'tensor'], en_f64)
def en_dexp(n, d): return pe_ref(n, d, lambda pos, i, d: pos / 10000 ** (i / d))
add('check_encoding', 'exponent i/d (forgot the 2)', ['2i', 'exponent'], en_dexp)
def en_shape(n, d): return pe_ref(n, d).T
add('check_encoding', 'transposed (d, n)', ['shape', 'transpose'], en_shape)
SAYS_CHECK_ENCODING = {
"exponent 4i/d (uses dimension index for i)": "written\\ with\\ the\\ dimension\\ j\\ =\\ 2i,\\ it\\ is\\ j/d_model",
"concatenated halves not interleaved": "PE\\[0,\\ 1\\]\\ is\\ 0\\.00000,\\ the\\ formula\\ gives\\ 1\\.00000:\\ your\\ table\\ has\\ the\\ sines\\ and\\ the\\ cosines\\ i",
"cos in even, sin in odd": "PE\\[0,\\ 0\\]\\ is\\ 1\\.00000,\\ the\\ formula\\ gives\\ 0\\.00000:\\ your\\ table\\ has\\ sine\\ and\\ cosine\\ swapped\\ \\(th",
"positions from 1": "PE\\[0,\\ 0\\]\\ is\\ 0\\.84147,\\ the\\ formula\\ gives\\ 0\\.00000:\\ your\\ table\\ has\\ positions\\ counted\\ from\\ 1\\ \\(t",
"multiplies by 10000^(2i/d)": "PE\\[1,\\ 2\\]\\ is\\ \\-0\\.02068,\\ the\\ formula\\ gives\\ 0\\.31098:\\ your\\ table\\ has\\ pos\\ multiplied\\ by\\ 10000\\^\\(2",
"base 1000": "PE\\[1,\\ 2\\]\\ is\\ 0\\.40931,\\ the\\ formula\\ gives\\ 0\\.31098:\\ your\\ table\\ has\\ the\\ base\\ 1000\\ instead\\ of\\ 10",
"returns a list": "expected\\ a\\ tensor\\ of\\ shape\\ \\(1,\\ 2\\)",
"exponent i/d (forgot the 2)": "PE\\[1,\\ 2\\]\\ is\\ 0\\.53317,\\ the\\ formula\\ gives\\ 0\\.31098:\\ your\\ table\\ has\\ the\\ exponent\\ i/d_model\\ inst",
"transposed (d, n)": "expected\\ a\\ tensor\\ of\\ shape\\ \\(1,\\ 2\\)"
}

@pytest.mark.parametrize('label', list(SAYS_CHECK_ENCODING))
def test_fresh_wrong_answers_named_by_check_encoding(label):
    "Each wrong answer a new learner writes is refused, with a message that names its mistake."
    assert_rejects(_ex.check_encoding, *FRESH['check_encoding', label], says=SAYS_CHECK_ENCODING[label])

# 05 RelativeBias: each answer and the words its message must contain
class _RB(nn.Module):
    def __init__(self, h, K):
        super().__init__(); self.h, self.K = h, K; self.table = nn.Parameter(torch.randn(2 * K + 1, h))
    def off(self, n_q, n_k): return torch.arange(n_k)[None] - torch.arange(n_q)[:, None]
    def forward(self, n_q, n_k):
        return self.table[self.off(n_q, n_k).clamp(-self.K, self.K) + self.K].permute(2, 0, 1)
class RB_ij(_RB):
    def off(self, n_q, n_k): return torch.arange(n_q)[:, None] - torch.arange(n_k)[None]
add('check_relative_bias', 'offset i - j instead of j - i', ['j - i', 'i - j', 'sign', 'offset'], RB_ij)
class RB_noclip(_RB):
    def forward(self, n_q, n_k):
        o = self.off(n_q, n_k) + self.K
        return self.table[o % (2 * self.K + 1)].permute(2, 0, 1)
add('check_relative_bias', 'wraps instead of clipping', ['clip'], RB_noclip)
class RB_noK(_RB):
    def forward(self, n_q, n_k):
        return self.table[self.off(n_q, n_k).clamp(0, 2 * self.K)].permute(2, 0, 1)
add('check_relative_bias', 'forgot + K (clamps into 0..2K)', ['+ k', 'shift', 'clip', 'offset', 'index'], RB_noK)
class RB_perm(_RB):
    def forward(self, n_q, n_k):
        return self.table[self.off(n_q, n_k).clamp(-self.K, self.K) + self.K].permute(2, 1, 0) if n_q == n_k else self.table[self.off(n_q, n_k).clamp(-self.K, self.K) + self.K].transpose(0, 2).transpose(1, 2)
add('check_relative_bias', 'transposes the square case', ['transpose', 'j - i', 'i - j', 'offset'], RB_perm)
class RB_shape(_RB):
    def forward(self, n_q, n_k): return self.table[self.off(n_q, n_k).clamp(-self.K, self.K) + self.K]
add('check_relative_bias', 'returns (n_q, n_k, h)', ['shape', '(h, n_q, n_k)'], RB_shape)
class RB_detach(_RB):
    def forward(self, n_q, n_k):
        idx = self.off(n_q, n_k).clamp(-self.K, self.K) + self.K
        return torch.tensor(self.table.detach().numpy()[idx.numpy()]).permute(2, 0, 1)
add('check_relative_bias', 'builds it through numpy: no gradient', ['gradient', 'grad'], RB_detach)
class RB_tableshape(_RB):
    def __init__(self, h, K):
        super().__init__(h, K); self.table = nn.Parameter(torch.randn(h, 2 * K + 1))
    def forward(self, n_q, n_k): return self.table[:, self.off(n_q, n_k).clamp(-self.K, self.K) + self.K]
add('check_relative_bias', 'table of shape (h, 2K+1)', ['(2k + 1, h)', 'table', 'shape'], RB_tableshape)
class RB_2K(_RB):
    def __init__(self, h, K):
        super().__init__(h, K); self.table = nn.Parameter(torch.randn(2 * K, h))
    def forward(self, n_q, n_k): return self.table[self.off(n_q, n_k).clamp(-self.K, self.K - 1) + self.K].permute(2, 0, 1)
add('check_relative_bias', 'table with 2K rows', ['2k + 1', 'rows', 'table', 'shape'], RB_2K)
SAYS_CHECK_RELATIVE_BIAS = {
"offset i - j instead of j - i": "it\\ is\\ j\\ \\-\\ i,\\ key\\ minus\\ query,\\ so\\ that\\ keys\\ after\\ the\\ query\\ get\\ the\\ positive\\ offsets",
"wraps instead of clipping": "clip\\ it\\ to\\ \\[\\-K,\\ K\\]\\ instead\\ of\\ taking\\ it\\ modulo\\ 2K\\ \\+\\ 1,\\ so\\ that\\ every\\ far\\ key\\ shares\\ the\\ ro",
"forgot + K (clamps into 0..2K)": "clip\\ j\\ \\-\\ i\\ to\\ \\[\\-K,\\ K\\],\\ then\\ add\\ K\\ to\\ index\\ the\\ table",
"transposes the square case": "it\\ is\\ j\\ \\-\\ i,\\ key\\ minus\\ query,\\ so\\ that\\ keys\\ after\\ the\\ query\\ get\\ the\\ positive\\ offsets",
"returns (n_q, n_k, h)": "expected\\ \\(h,\\ n_q,\\ n_k\\)\\ =\\ \\(3,\\ 4,\\ 4\\)",
"builds it through numpy: no gradient": "index\\ the\\ nn\\.Parameter\\ itself,\\ table\\[idx\\],\\ not\\ a\\ copy\\ \\(\\.detach\\(\\),\\ \\.numpy\\(\\),\\ \\.tolist\\(\\)\\ or\\ t",
"table of shape (h, 2K+1)": "it\\ has\\ \\[\\(3,\\ 5\\)\\]",
"table with 2K rows": "it\\ has\\ \\[\\(4,\\ 3\\)\\]"
}

@pytest.mark.parametrize('label', list(SAYS_CHECK_RELATIVE_BIAS))
def test_fresh_wrong_answers_named_by_check_relative_bias(label):
    "Each wrong answer a new learner writes is refused, with a message that names its mistake."
    assert_rejects(_ex.check_relative_bias, *FRESH['check_relative_bias', label], says=SAYS_CHECK_RELATIVE_BIAS[label])

# ---------------------------------------------------------------- wrong clamping, named
class RB_clip(_RB):
    lo, hi = -1, 1
    def forward(self, n_q, n_k): return self.table[self.off(n_q, n_k).clamp(self.lo, self.hi) + self.K].permute(2, 0, 1)
class RB_clip_low(RB_clip): lo, hi = -2, 1
class RB_clip_one_side(_RB):
    def forward(self, n_q, n_k): return self.table[self.off(n_q, n_k).clamp(max=self.K) + self.K].permute(2, 0, 1)
class RB_clip_h(_RB):
    def forward(self, n_q, n_k): return self.table[self.off(n_q, n_k).clamp(-self.h, self.h) + self.K].permute(2, 0, 1)

@pytest.mark.parametrize('cls, says', [
    (RB_clip, r"the offset is clipped to \[-1, 1\], not \[-K, K\] = \[-2, 2\]: clamp\(j - i, -K, K\), then add K"),
    (RB_clip_low, r"the offset is clipped to \[-2, 1\], not \[-K, K\] = \[-2, 2\]"),
    (RB_clip_one_side, r"the offset is clipped on one side only, to at most 2: clamp\(j - i, -K, K\), then add K"),
    (RB_clip_h, r"forward\(4, 4\) raised (IndexError|RuntimeError) .*an offset j - i beyond ±K = ±2 indexed past the table's 2K \+ 1 = 5 rows; clip it on both sides"),
], ids=['[-1, 1]', '[-2, 1]', 'upper side only', 'clipped to h'])
def test_relative_bias_wrong_clamping_is_named(cls, says):
    assert_rejects(check_relative_bias, cls, says=says)

class _RBIndex(_RB):
    "A RelativeBias whose index into the table is `index(self, offset)`."
    def forward(self, n_q, n_k): return self.table[type(self).index(self, self.off(n_q, n_k))].permute(2, 0, 1)
def _rb(index): return type('RelativeBias', (_RBIndex,), {'index': index})

@pytest.mark.parametrize('index, says', [
    (lambda s, o: o.clamp(-s.K + 1, s.K - 1) + s.K, r"the offset is clipped to \[-1, 1\], not \[-K, K\] = \[-2, 2\]"),
    (lambda s, o: torch.clip(o, 0, s.K) + s.K, r"the offset is clipped to \[0, 2\], not \[-K, K\] = \[-2, 2\]"),
    (lambda s, o: (o + s.K).clamp(0, 2 * s.K + 1), r"raised IndexError .*clip it on both sides, clamp\(j - i, -K, K\), then add K"),
    (lambda s, o: o.clamp(-s.K - 1, s.K + 1) + s.K, r"raised IndexError .*clip it on both sides"),
    (lambda s, o: o.clamp(min=-s.K) + s.K, r"raised IndexError .*clip it on both sides"),
    (lambda s, o: o.clamp(-s.K, s.K), r"the clipped offset indexes the table without \+ K"),
    (lambda s, o: o.clamp(-s.K, s.K) + s.K - 1, r"it is table\[1\]: the clipped offset is shifted by K - 1: row 0 holds offset -K, so add exactly K"),
    (lambda s, o: o.abs().clamp(max=s.K) + s.K, r"it is table\[3\]: the offset lost its sign \(abs\): a key before the query and one after it share a row"),
    (lambda s, o: o.abs().clamp(max=s.K), r"the offset lost its sign \(abs\)"),
], ids=['[-K+1, K-1]', '[0, K]', 'after + K, to 2K + 1', '[-K-1, K+1]', 'below only', 'no + K', '+ K - 1', 'abs, + K', 'abs'])
def test_relative_bias_names_each_way_of_clipping_wrong(index, says):
    assert_rejects(check_relative_bias, _rb(index), says=says)

def test_relative_bias_names_k_added_before_the_clipping():
    assert_rejects(check_relative_bias, _rb(lambda s, o: (o + s.K).clamp(-s.K, s.K)),
                   says=r"it is table\[2\]: K was added before the clipping; clip j - i to \[-K, K\] first, then add K")

@pytest.mark.parametrize('cls, says', [
    (_rb(lambda s, o: o.clamp(-2 * s.K, 2 * s.K) // 2 + s.K), r"it is table\[2\]: the offset is halved, \(j - i\) // 2, so two offsets share a row"),
    (type('RelativeBias', (_RB,), {'forward': lambda self, n_q, n_k: _RB.forward(self, n_q, n_k) * (self.off(n_q, n_k) == 0)}),
     r"it is no row of the table: only the diagonal \(offset 0\) has its bias and every other entry is 0"),
], ids=['offset halved', 'diagonal only'])
def test_relative_bias_names_a_halved_offset_or_the_diagonal_alone(cls, says):
    assert_rejects(check_relative_bias, cls, says=says)


def test_a_half_precision_table_is_named():
    from transformer_nb.positional import sinusoidal_encoding
    assert_rejects(_ex.check_encoding, lambda n, d: sinusoidal_encoding(n, d).half(),
                   says=r"is torch\.float16, which rounds the table to about 3 digits: return float32 \(or compute in float64\)")
    assert _ex.check_encoding(sinusoidal_encoding) is True

# ---------------------------------------------------------------- mistakes nobody listed, named by what the answer does
def _pe_by(ang=lambda pos, i, d: pos / 10000 ** (2 * i / d), odd=torch.cos):
    "The sinusoidal table with pair i's angle `ang(pos, i, d)` and `odd` in the odd dimensions."
    def my_encoding(n, d):
        pos, i = torch.arange(n, dtype=torch.float64)[:, None], torch.arange(d // 2, dtype=torch.float64)
        a = ang(pos, i, d); return torch.stack([a.sin(), odd(a)], -1).flatten(1).float()
    return my_encoding

@pytest.mark.parametrize('answer, says', [
    (_pe_by(ang=lambda pos, i, d: pos / 10000 ** (3 * i / d)), r"d_model=16: PE\[1, 2\] .*: your pair i turns by 1 x 10000\^\(-3 i / d_model\) per position"),
    (_pe_by(ang=lambda pos, i, d: pos / 10000 ** (2 * (i + 1) / d)), r"your pair i turns as the formula's pair i \+ 1: the pairs are numbered from 1"),
    (_pe_by(ang=lambda pos, i, d: pos / 10000 ** (2 * (i + 2) / d)), r"your pair i turns as the formula's pair i \+ 2: the pairs are numbered from 2"),
    (_pe_by(ang=lambda pos, i, d: pos / 10000 ** (2 * (i + 0.5) / d)), r"your exponents are \(2i \+ 1\)/d_model, from the odd dimensions' indices"),
    (_pe_by(odd=torch.sin), r"d_model=2: .*dimensions 2i and 2i \+ 1 hold the same numbers, the sine of the pair's angle twice"),
    (_pe_by(ang=lambda pos, i, d: pos / (1 + i)), r"pair 2 \(dimensions 4, 5\) turns by 0\.3333 per position, the formula's by 1 / 10000\^\(2\*2/16\) = 0\.1"),
])
def test_encoding_mistakes_nobody_listed_are_named_by_property(answer, says):
    assert_rejects(check_encoding, answer, says=says)

def test_encoding_in_float64_passes():
    assert check_encoding(lambda n, d: _pe_by()(n, d).double()) is True

class _RelBiasBy(nn.Module):
    "RelativeBias whose table row for the pair (i, j) is row(i, j, K)."
    row = staticmethod(lambda i, j, K: min(max(j - i, -K), K) + K)
    def __init__(self, h, K): super().__init__(); self.K, self.table = K, nn.Parameter(torch.randn(2 * K + 1, h))
    def forward(self, n_q, n_k):
        idx = torch.tensor([[self.row(i, j, self.K) for j in range(n_k)] for i in range(n_q)])
        return self.table[idx].permute(2, 0, 1)

class _RelBiasByQuery(_RelBiasBy):
    row = staticmethod(lambda i, j, K: min(max(j - i, -K), K) + K if i else K)        # the first query gets offset 0's row everywhere

class _RelBiasShifted(_RelBiasBy):
    row = staticmethod(lambda i, j, K: min(max(j - i - 1, -K), K) + K)                 # offsets counted from the next key

@pytest.mark.parametrize('cls, says', [
    (_RelBiasByQuery, r"forward\(4, 4\)\[:, 0, 1\] should be table\[3\] .*: \(i, j\) = \(0, 1\) and \(1, 2\) have the same offset j - i = 1 but get rows 2 and 3"),
    (_RelBiasShifted, r"forward\(4, 4\)\[:, 0, 0\] should be table\[2\] .*: every offset is one too small, j - i - 1 \(the queries' positions counted from 1, torch.arange\(1, n \+ 1\), or the offset taken from the next key\)"),
])
def test_relative_bias_mistakes_nobody_listed_are_mapped_by_offset(cls, says):
    assert_rejects(check_relative_bias, cls, says=says)


# ---------------------------------------------------------------- more mistakes, each named by what the answer does
import transformer_nb.course.positional as _named

def _pe(n, d, floor=False):
    "The sinusoidal table, the angles rounded down if `floor`."
    a = torch.arange(n, dtype=torch.float64)[:, None] / 10000 ** (torch.arange(0, d, 2, dtype=torch.float64) / d)
    a = a.floor() if floor else a
    return torch.stack([a.sin(), a.cos()], -1).reshape(n, d).float()

def test_a_transposed_table_and_whole_angles_are_named():
    assert_rejects(_named.check_encoding, lambda n, d: _pe(n, d).T, says=r"gave \(2, 1\); expected a tensor of shape \(1, 2\): yours is \(d_model, n\)")
    assert_rejects(_named.check_encoding, lambda n, d: _pe(n, d, floor=True), says=r"d_model=16: .*your angles are whole numbers: .*rounded down")

def _bias(shape):
    "RelativeBias whose (n_q, n_k, h) lookup is turned into its output by `shape`."
    class RelativeBias(nn.Module):
        def __init__(self, h, K): super().__init__(); self.K = K; self.table = nn.Parameter(torch.randn(2 * K + 1, h))
        def forward(self, n_q, n_k):
            o = (torch.arange(n_k)[None] - torch.arange(n_q)[:, None]).clamp(-self.K, self.K) + self.K
            return shape(self.table[o], n_q, n_k)
    return RelativeBias

@pytest.mark.parametrize('shape, says', [
    (lambda b, n_q, n_k: b.reshape(-1, n_q, n_k), r"it is no row of the table: your bias holds the right entries in other places: a reshape or view"),
    (lambda b, n_q, n_k: b.permute(2, 1, 0), r"forward\(3, 6\) has shape \(3, 6, 3\); .*: yours is \(h, n_k, n_q\) \(forward\(2, 5\) has shape \(3, 5, 2\)\)"),
    (lambda b, n_q, n_k: b, r"forward\(4, 4\) has shape \(4, 4, 3\); .*: yours is \(n_q, n_k, h\)"),
])
def test_a_bias_with_its_axes_elsewhere_is_named(shape, says):
    assert_rejects(_named.check_relative_bias, _bias(shape), says=says)


# ---------------------------------------------------------------- a table in half precision, one frequency for every pair, keys from n_q
import torch.nn as nn

def _pe_from(angles, n, d_model, dtype=torch.float32):
    pe = torch.zeros(n, d_model, dtype=dtype); pe[:, 0::2], pe[:, 1::2] = angles.sin(), angles.cos(); return pe.float()

def test_a_table_computed_in_float16_is_named():
    half = lambda n, d: _pe_from(torch.arange(n, dtype=torch.float16)[:, None] / (10000 ** (torch.arange(0, d, 2) / d)).half(), n, d, torch.float16)
    assert_rejects(_named.check_encoding, half, says=r"every entry of your table is a torch\.float16 number, off the formula by up to .*; compute in float32")

def test_one_frequency_for_every_pair_is_named():
    floor = lambda n, d: _pe_from(torch.arange(n, dtype=torch.float64)[:, None] / 10000 ** (torch.arange(0, d, 2) // d).double(), n, d)
    assert_rejects(_named.check_encoding, floor, says=r"your pairs all turn by 1 per position, one frequency for every pair: .*integer division")

class _KeysFromQueries(nn.Module):
    "A relative bias whose offsets take the keys from the queries' length."
    def __init__(self, h, K): super().__init__(); self.K, self.table = K, nn.Parameter(torch.randn(2 * K + 1, h))
    def forward(self, n_q, n_k):
        off = torch.arange(n_q)[None, :] - torch.arange(n_q)[:, None]
        return self.table[off.clamp(-self.K, self.K) + self.K].permute(2, 0, 1)

def test_offsets_of_the_keys_taken_from_the_queries_are_named():
    assert_rejects(_named.check_relative_bias, _KeysFromQueries,
                   says=r"forward\(3, 6\) has shape \(3, 3, 3\); expected \(h, n_q, n_k\) = \(3, 3, 6\): the key axis has n_q entries")

# ---------------------------------------------------------------- a fresh blind set: wrong answers written before reading the messages
import re as _n9re
from nbtools import assert_rejects as _n9_rejects
import math as _n9math
from transformer_nb.course.positional import check_encoding as _n9_enc, check_relative_bias as _n9_rb
def _n9_pe(n, d, start=0, exp=2, mul=False, halves=False):
    pos = torch.arange(start, start + n, dtype=torch.float64)[:, None]; i = torch.arange(d // 2, dtype=torch.float64)
    a = pos * 10000 ** (exp * i / d) if mul else pos / 10000 ** (exp * i / d)
    if halves: return torch.cat([a.sin(), a.cos()], -1)
    pe = torch.zeros(n, d, dtype=torch.float64); pe[:, 0::2] = a.sin(); pe[:, 1::2] = a.cos(); return pe
def _n9_annotated(log):
    def enc(n, d):   # The Annotated Transformer's div_term, with another logarithm
        pe, pos = torch.zeros(n, d), torch.arange(n).float()[:, None]
        div = torch.exp(torch.arange(0, d, 2).float() * -(log(10000.0) / d))
        pe[:, 0::2], pe[:, 1::2] = torch.sin(pos * div), torch.cos(pos * div); return pe
    return enc
def _n9_RB(off, layout=lambda b: b.permute(2, 0, 1)):
    class RB(nn.Module):
        def __init__(self, h, K): super().__init__(); self.K = K; self.table = nn.Parameter(torch.randn(2 * K + 1, h))
        def forward(self, n_q, n_k): return layout(self.table[off(torch.arange(n_q)[:, None], torch.arange(n_k)[None], self.K)])
    return RB
NINTH = [('sin and cos in two halves', _n9_enc, (lambda n, d: _n9_pe(n, d, halves=True),), "the sines and the cosines in two halves"),
         ('exponent i/d', _n9_enc, (lambda n, d: _n9_pe(n, d, exp=1),), "the exponent i/d_model instead of 2i/d_model"),
         ('positions from 1', _n9_enc, (lambda n, d: _n9_pe(n, d, start=1),), "positions counted from 1"),
         ('pos times 10000^(2i/d)', _n9_enc, (lambda n, d: _n9_pe(n, d, mul=True),), "pos multiplied by 10000^(2i/d_model)"),
         ('log10 in the div term', _n9_enc, (_n9_annotated(_n9math.log10),), "math.log10(10000) = 4 where the natural log belongs"),
         ('log2 in the div term', _n9_enc, (_n9_annotated(_n9math.log2),), "math.log2(10000) = 13.3 where the natural log belongs"),
         ('base 10', _n9_enc, (_n9_annotated(lambda x: _n9math.log(10.0)),), "the base 10 instead of 10000"),
         ('offset i - j', _n9_rb, (_n9_RB(lambda i, j, K: (i - j).clamp(-K, K) + K),), "you used the offset i - j"),
         ('offset wraps', _n9_rb, (_n9_RB(lambda i, j, K: (j - i + K) % (2 * K + 1)),), "the offset wraps around"),
         ('(n_q, n_k, h) layout', _n9_rb, (_n9_RB(lambda i, j, K: (j - i).clamp(-K, K) + K, lambda b: b),), "yours is (n_q, n_k, h)")]

def test_ninth_right_encoding_with_the_natural_log_passes():
    assert _n9_enc(_n9_annotated(_n9math.log)) is True
class _n9_RBT(nn.Module):
    def __init__(self, h, K): super().__init__(); self.K = K; self.table = nn.Parameter(torch.randn(h, 2 * K + 1))
    def forward(self, n_q, n_k): return self.table[:, (torch.arange(n_k)[None] - torch.arange(n_q)[:, None]).clamp(-self.K, self.K) + self.K]
NINTH += [('table (h, 2K + 1)', _n9_rb, (_n9_RBT,), "the table of shape (5, 3), a row per clipped offset; it has [(3, 5)]")]

@pytest.mark.parametrize('label', [c[0] for c in NINTH])
def test_ninth_blind_answers_named(label):
    "Each answer of the blind set is refused with a message that names its mistake."
    _, check, answer, words = next(c for c in NINTH if c[0] == label)
    _n9_rejects(check, *answer, says=_n9re.escape(words))


# ---------------------------------------------------------------- the fifteenth blind set's misses (results/checker_answers.json)
def test_a_leading_batch_axis_is_named():
    "The right table with a batch axis in front, (1, n, d_model), as the Annotated Transformer stores its buffer."
    from transformer_nb.positional import sinusoidal_encoding
    assert_rejects(check_encoding, lambda n, d: sinusoidal_encoding(n, d).float()[None],
                   says=r"gave \(1, 1, 2\); expected a tensor of shape \(1, 2\): yours has a leading axis of size 1, a batch axis \(pe\.unsqueeze\(0\)\)")

# ---------------------------------------------------------------- the sixteenth blind set's misses
def _rb16(offset=lambda n_q, n_k: torch.arange(n_k)[None, :] - torch.arange(n_q)[:, None], swap=False):
    "The solution with its offsets computed otherwise, or its forward's arguments read as (n_k, n_q)."
    class RelativeBias(nn.Module):
        def __init__(self, h, K):
            super().__init__()
            self.K = K
            self.table = nn.Parameter(torch.randn(2 * K + 1, h) * 0.02)
        def forward(self, a, b):
            n_q, n_k = (b, a) if swap else (a, b)
            return self.table[offset(n_q, n_k).clamp(-self.K, self.K) + self.K].permute(2, 0, 1)
    return RelativeBias

@pytest.mark.parametrize('check, answer, says', [
    (check_encoding, lambda n, d_model: nn.Embedding(n, d_model).weight.detach(), "your table changes from one call to the next: it is drawn"),
    (check_relative_bias, _rb16(offset=lambda n_q, n_k: torch.arange(n_k)[None, :] - torch.arange(n_q)[:, None] - (n_k - n_q)),
     r"every offset is shifted by -3, j - i - \(n_k - n_q\): the queries aligned with the last keys"),
    (check_relative_bias, _rb16(swap=True), r"your forward reads its arguments the other way round, as \(n_k, n_q\)"),
], ids=['a drawn table', 'aligned to the last keys', 'arguments swapped'])
def test_the_sixteenth_sets_misses_are_named(check, answer, says):
    assert_rejects(check, answer, says=says)

# ---------------------------------------------------------------- the seventeenth blind set's miss
def test_an_encoding_with_its_pairs_left_stacked_is_named():
    def my_encoding(n, d_model):
        angle = torch.arange(n, dtype=torch.float64)[:, None] / 10000 ** (torch.arange(0, d_model, 2, dtype=torch.float64) / d_model)
        return torch.stack([angle.sin(), angle.cos()], dim=-1).float()          # (n, d_model/2, 2): flatten(1) would be right
    assert_rejects(check_encoding, my_encoding, says=r"gave \(1, 1, 2\); .*stacked on a last axis of 2, \(n, d_model/2, 2\)")
    assert check_encoding(lambda n, d_model: my_encoding(n, d_model).flatten(1)) is True

# ---------------------------------------------------------------- the nineteenth blind set's misses
def test_an_encoding_with_the_base_models_width_written_in_is_named():
    def my_encoding(n, d_model):
        angle = torch.arange(n, dtype=torch.float64)[:, None] / 10000 ** (torch.arange(0, d_model, 2, dtype=torch.float64) / 512)
        return torch.stack([angle.sin(), angle.cos()], dim=-1).flatten(1).float()
    assert_rejects(check_encoding, my_encoding, says=r"d_model=16: .*your pair i turns by 10000\^\(-2i / 512\) per position: a width of 512 is written in")

def test_a_relative_bias_with_a_leading_batch_axis_is_named():
    class RelativeBias(_rb16()):
        def forward(self, n_q, n_k): return super().forward(n_q, n_k)[None]
    assert_rejects(check_relative_bias, RelativeBias, says=r"has shape \(1, 3, 4, 4\); .*: a leading axis of 1, \(1, h, n_q, n_k\), as Hugging Face's T5 position_bias")


# ---------------------------------------------------------------- the twenty-first blind set's misses
from transformer_nb.course.positional import check_encoding as _t21_check_encoding
from nbtools import assert_rejects as _t21_rejects

_T21_PRELUDE = ''   # the names the exercise's cell sees
_T21 = {   # label: (the exercise's function, the answer's code, what its message must say)
    'positions 0 .. n inclusive: n + 1 rows': ('my_encoding', '\ndef my_encoding(n, d_model):\n    pos = torch.arange(n + 1, dtype=torch.float64)[:, None]\n    two_i = torch.arange(0, d_model, 2, dtype=torch.float64)\n    angle = pos / 10000 ** (two_i / d_model)\n    pe = torch.zeros(n + 1, d_model, dtype=torch.float64)\n    pe[:, 0::2], pe[:, 1::2] = angle.sin(), angle.cos()\n    return pe.float()',
        '\\+1 row, positions 0 \\.\\. 1: the n positions are 0 \\.\\. n \\- 1'),
    "fairseq's frequencies 10000^(-i/(d/2 - 1)), interleaved": ('my_encoding', '\ndef my_encoding(n, d_model):\n    half = d_model // 2\n    freq = torch.exp(torch.arange(half, dtype=torch.float64) * -(math.log(10000) / (half - 1)))\n    angle = torch.arange(n, dtype=torch.float64)[:, None] * freq\n    pe = torch.zeros(n, d_model, dtype=torch.float64)\n    pe[:, 0::2], pe[:, 1::2] = angle.sin(), angle.cos()\n    return pe.float()',
        'a denominator d_model/2 \\- 1 is 0'),
}

@pytest.mark.parametrize('label', list(_T21))
def test_the_twenty_first_sets_misses_are_named(label):
    import math, torch, torch.nn as nn, torch.nn.functional as F
    fn, src, says = _T21[label]
    ns = dict(math=math, torch=torch, nn=nn, F=F)
    exec(_T21_PRELUDE, ns); exec(src, ns)
    check = {'my_encoding': _t21_check_encoding}[fn]
    dtype, grad = torch.get_default_dtype(), torch.is_grad_enabled()
    try: _t21_rejects(check, ns[fn], says=says)
    finally: torch.set_default_dtype(dtype); torch.set_grad_enabled(grad)   # an answer that changes them must not change the next test


# ---------------------------------------------------------------- the twenty-third blind set's misses
from transformer_nb.course.positional import check_encoding as _t23_check_encoding, check_relative_bias as _t23_check_relative_bias
from nbtools import assert_rejects as _t23_rejects

_T23_PRELUDE = ''   # the names the exercise's cell sees
_T23 = {   # label: (the exercise's function, the answer's code, what its message must say)
    'computed in bfloat16': ('my_encoding', '\ndef my_encoding(n, d_model):\n    pos = torch.arange(n, dtype=torch.bfloat16)[:, None]\n    two_i = torch.arange(0, d_model, 2, dtype=torch.bfloat16)\n    angle = pos / 10000 ** (two_i / d_model)\n    pe = torch.zeros(n, d_model, dtype=torch.bfloat16)\n    pe[:, 0::2], pe[:, 1::2] = angle.sin(), angle.cos()\n    return pe.float()',
        'every\\ entry\\ of\\ your\\ table\\ is\\ a\\ torch\\.bfloat16\\ number'),
    'exponents from linspace(0, 1, d/2): the last one 1, not (d - 2)/d': ('my_encoding', '\ndef my_encoding(n, d_model):\n    pos = torch.arange(n, dtype=torch.float64)[:, None]\n    two_i = torch.arange(0, d_model, 2, dtype=torch.float64)\n    angle = pos / 10000 ** (torch.linspace(0, 1, d_model // 2, dtype=torch.float64))\n    pe = torch.zeros(n, d_model, dtype=torch.float64)\n    pe[:, 0::2], pe[:, 1::2] = angle.sin(), angle.cos()\n    return pe.float()',
        'your\\ exponents\\ run\\ from\\ 0\\ to\\ 1,\\ both\\ ends\\ included'),
    'a 5000-row table built once and returned as a view (table[:n]): edits reach the cache': ('my_encoding', '\n_PE = {}\ndef my_encoding(n, d_model):\n    if d_model not in _PE:\n        pos = torch.arange(5000, dtype=torch.float64)[:, None]\n        angle = pos / 10000 ** (torch.arange(0, d_model, 2, dtype=torch.float64) / d_model)\n        pe = torch.zeros(5000, d_model, dtype=torch.float64)\n        pe[:, 0::2], pe[:, 1::2] = angle.sin(), angle.cos()\n        _PE[d_model] = pe.float()\n    return _PE[d_model][:n]',
        'returns\\ a\\ view\\ of\\ a\\ table\\ it\\ keeps\\ between\\ calls'),
    'sin and cos stacked on a new first axis and reshaped to (n, d_model): rows mixed': ('my_encoding', '\ndef my_encoding(n, d_model):\n    pos = torch.arange(n, dtype=torch.float64)[:, None]\n    two_i = torch.arange(0, d_model, 2, dtype=torch.float64)\n    angle = pos / 10000 ** (two_i / d_model)\n    pe = torch.zeros(n, d_model, dtype=torch.float64)\n    pe = torch.stack([angle.sin(), angle.cos()], 0).reshape(n, d_model)\n    return pe.float()',
        'your\\ sines\\ and\\ cosines\\ were\\ stacked\\ on\\ a\\ new\\ first\\ axis'),
    'the table a plain tensor attribute, not an nn.Parameter': ('RelativeBias', '\nclass RelativeBias(nn.Module):\n    def __init__(self, h, K):\n        super().__init__()\n        self.K = K\n        self.table = (torch.randn(2 * K + 1, h) * 0.02).requires_grad_()\n    def forward(self, n_q, n_k):\n        offset = torch.arange(n_k)[None, :] - torch.arange(n_q)[:, None]\n        return self.table[offset.clamp(-self.K, self.K) + self.K].permute(2, 0, 1)',
        'self\\.table\\ is\\ a\\ plain\\ tensor\\ attribute'),
    'one column shared by the heads, expanded to h': ('RelativeBias', '\nclass RelativeBias(nn.Module):\n    def __init__(self, h, K):\n        super().__init__()\n        self.K, self.h = K, h\n        self.table = nn.Parameter(torch.randn(2 * K + 1, 1) * 0.02)\n    def forward(self, n_q, n_k):\n        offset = torch.arange(n_k)[None, :] - torch.arange(n_q)[:, None]\n        return self.table[offset.clamp(-self.K, self.K) + self.K].permute(2, 0, 1).expand(self.h, n_q, n_k)',
        'one\\ column\\ shared\\ by\\ the\\ 3\\ heads'),
    'the table created in forward on each call': ('RelativeBias', '\nclass RelativeBias(nn.Module):\n    def __init__(self, h, K):\n        super().__init__()\n        self.K, self.h = K, h\n    def forward(self, n_q, n_k):\n        self.table = nn.Parameter(torch.randn(2 * self.K + 1, self.h) * 0.02)\n        offset = torch.arange(n_k)[None, :] - torch.arange(n_q)[:, None]\n        return self.table[offset.clamp(-self.K, self.K) + self.K].permute(2, 0, 1)',
        'forward\\ made\\ a\\ new\\ table'),
}

@pytest.mark.parametrize('label', list(_T23))
def test_the_twenty_third_sets_misses_are_named(label):
    import math, torch, torch.nn as nn, torch.nn.functional as F
    fn, src, says = _T23[label]
    ns = dict(math=math, torch=torch, nn=nn, F=F)
    exec(_T23_PRELUDE, ns); exec(src, ns)
    check = {'my_encoding': _t23_check_encoding, 'RelativeBias': _t23_check_relative_bias}[fn]
    dtype, grad = torch.get_default_dtype(), torch.is_grad_enabled()
    try: _t23_rejects(check, ns[fn], says=says)
    finally: torch.set_default_dtype(dtype); torch.set_grad_enabled(grad)   # an answer that changes them must not change the next test


# ---------------------------------------------------------------- the twenty-fourth blind set's misses
from transformer_nb.course.positional import check_encoding as _t24_check_encoding, check_relative_bias as _t24_check_relative_bias
from nbtools import assert_rejects as _t24_rejects

_T24_PRELUDE = 'import math, copy, random, torch, torch.nn as nn, torch.nn.functional as F\nfrom collections import Counter\nfrom transformer_nb.core import *\nfrom transformer_nb.positional import *'   # the names the exercise's cell sees
_T24 = {   # label: (the exercise, the answer's code, what its message must say)
    "a table of the base model's 512 rows, sliced: at most 512 positions": ('my_encoding', '\ndef my_encoding(n, d_model, max_len=512):\n    pos = torch.arange(max_len, dtype=torch.float64)[:, None]\n    angle = pos / 10000 ** (torch.arange(0, d_model, 2, dtype=torch.float64) / d_model)\n    pe = torch.zeros(max_len, d_model, dtype=torch.float64)\n    pe[:, 0::2], pe[:, 1::2] = angle.sin(), angle.cos()\n    return pe[:n].float()',
        'my_encoding\\(600, 2\\) gave \\(512, 2\\); expected a tensor of shape \\(600, 2\\): 512 rows for n = 600, .*a table of max_len = 512 rows sliced'),
    'positions and frequencies broadcast the other way: angle (d_model/2, n), assigned transposed': ('my_encoding', '\ndef my_encoding(n, d_model):\n    pos = torch.arange(n, dtype=torch.float64)\n    freq = 10000 ** (torch.arange(0, d_model, 2, dtype=torch.float64) / d_model)\n    angle = (pos[None, :] / freq[:, None]).reshape(n, d_model // 2)\n    pe = torch.zeros(n, d_model, dtype=torch.float64)\n    pe[:, 0::2], pe[:, 1::2] = angle.sin(), angle.cos()\n    return pe.float()',
        'your angles are the \\(d_model/2, n\\) table, frequency by position, reshaped to \\(n, d_model/2\\)'),
    'the angle in degrees: torch.deg2rad applied before sin/cos': ('my_encoding', '\ndef my_encoding(n, d_model):\n    pos = torch.arange(n, dtype=torch.float64)[:, None]\n    two_i = torch.arange(0, d_model, 2, dtype=torch.float64)\n    angle = pos / 10000 ** (two_i / d_model)\n    pe = torch.zeros(n, d_model, dtype=torch.float64)\n    pe[:, 0::2], pe[:, 1::2] = torch.deg2rad(angle).sin(), torch.deg2rad(angle).cos()\n    return pe.float()',
        'your angles are read as degrees'),
    'the index table precomputed in __init__ for 64 positions and sliced: longer inputs cut': ('RelativeBias', "\nclass RelativeBias(nn.Module):\n    def __init__(self, h, K, max_len=64):\n        super().__init__()\n        self.K = K\n        self.table = nn.Parameter(torch.randn(2 * K + 1, h) * 0.02)\n        off = torch.arange(max_len)[None, :] - torch.arange(max_len)[:, None]\n        self.register_buffer('idx', off.clamp(-K, K) + K, persistent=False)\n    def forward(self, n_q, n_k):\n        return self.table[self.idx[:n_q, :n_k]].permute(2, 0, 1)",
        'forward\\(70, 90\\) has shape \\(3, 64, 64\\); .*it stops at \\(64, 64\\) and is right-sized for short inputs'),
}

@pytest.mark.parametrize('label', list(_T24))
def test_the_twenty_fourth_sets_misses_are_named(label):
    import torch
    ex, src, says = _T24[label]
    ns = {}
    exec(_T24_PRELUDE, ns); exec(src, ns)
    run = {'RelativeBias': lambda ns: _t24_check_relative_bias(ns['RelativeBias']), 'my_encoding': lambda ns: _t24_check_encoding(ns['my_encoding'])}[ex]
    dtype, grad = torch.get_default_dtype(), torch.is_grad_enabled()
    try: _t24_rejects(lambda: run(ns), says=says)
    finally: torch.set_default_dtype(dtype); torch.set_grad_enabled(grad)   # an answer that changes them must not change the next test


# ---------------------------------------------------------------- the twenty-sixth blind set's misses
from nbtools import assert_rejects as _t26_rejects

_T26_PRELUDE = 'import math, copy, random, torch, torch.nn as nn, torch.nn.functional as F\nfrom collections import Counter\nfrom transformer_nb.core import *\nfrom transformer_nb.positional import *\nfrom transformer_nb.course.positional import check_encoding, check_relative_bias'   # the names the exercise's cell sees
_T26 = {   # label: (the exercise, the answer's code, what its message must say)
    'a C-style loop over the pairs to d_model // 2 - 1: the last pair left zero': ('my_encoding', '\ndef my_encoding(n, d_model):\n    pe = torch.zeros(n, d_model)\n    for pos in range(n):\n        for i in range(d_model // 2 - 1):\n            pe[pos, 2 * i] = math.sin(pos / 10000 ** (2 * i / d_model))\n            pe[pos, 2 * i + 1] = math.cos(pos / 10000 ** (2 * i / d_model))\n    return pe',
        'the last pair, dimensions 0 and 1, is all zero'),
    "a table cached per d_model from the first call's n (state kept between calls)": ('my_encoding', '\n_tables = {}\ndef my_encoding(n, d_model):\n    if d_model not in _tables:\n        pos = torch.arange(n, dtype=torch.float64)[:, None]\n        angle = pos / 10000 ** (torch.arange(0, d_model, 2, dtype=torch.float64) / d_model)\n        pe = torch.zeros(n, d_model, dtype=torch.float64)\n        pe[:, 0::2], pe[:, 1::2] = angle.sin(), angle.cos()\n        _tables[d_model] = pe.float()\n    return _tables[d_model][:n]',
        'your table keeps the length of an earlier call with the same d_model'),
    "head 0's column for every head (right only for h = 1)": ('RelativeBias', '\nclass RelativeBias(nn.Module):\n    def __init__(self, h, K):\n        super().__init__()\n        self.K = K\n        self.table = nn.Parameter(torch.randn(2 * K + 1, h) * 0.02)\n    def forward(self, n_q, n_k):\n        offset = torch.arange(n_k)[None, :] - torch.arange(n_q)[:, None]\n        return self.table[offset.clamp(-self.K, self.K) + self.K][..., :1].permute(2, 0, 1).expand(self.table.shape[1], -1, -1)',
        "one entry of column 0 for every head: each head gets head 0's bias"),
    'offsets from float aranges (arange(n, dtype=torch.float32)): float indices': ('RelativeBias', '\nclass RelativeBias(nn.Module):\n    def __init__(self, h, K):\n        super().__init__()\n        self.K = K\n        self.table = nn.Parameter(torch.randn(2 * K + 1, h) * 0.02)\n    def forward(self, n_q, n_k):\n        offset = torch.arange(n_k, dtype=torch.float32)[None, :] - torch.arange(n_q, dtype=torch.float32)[:, None]\n        return self.table[offset.clamp(-self.K, self.K) + self.K].permute(2, 0, 1)',
        'your offsets j \\- i are floats'),
}

@pytest.mark.parametrize('label', list(_T26))
def test_the_twenty_sixth_sets_misses_are_named(label):
    import torch
    ex, src, says = _T26[label]
    ns = {}
    exec(_T26_PRELUDE, ns); exec(src, ns)
    calls = {'RelativeBias': 'check_relative_bias(RelativeBias)', 'my_encoding': 'check_encoding(my_encoding)'}
    dtype, grad = torch.get_default_dtype(), torch.is_grad_enabled()
    try: _t26_rejects(lambda: eval(calls[ex], ns), says=says)
    finally: torch.set_default_dtype(dtype); torch.set_grad_enabled(grad)   # an answer that changes them must not change the next test


# ---------------------------------------------------------------- the twenty-ninth blind set's misses
from transformer_nb.course.positional import check_encoding as _t29_check_encoding, check_relative_bias as _t29_check_relative_bias
from nbtools import assert_rejects as _t29_rejects

_T29_PRELUDE = 'import math, copy, random, torch, torch.nn as nn, torch.nn.functional as F\nfrom collections import Counter\nfrom transformer_nb.core import *\nfrom transformer_nb.positional import *'   # the names the exercise's cell sees
_T29 = {   # label: (the exercise, the answer's code, what its message must say)
    '10e4 typed for 10000 (that is 100000)': ('my_encoding', '\ndef my_encoding(n, d_model):\n    pos = torch.arange(n, dtype=torch.float64)[:, None]\n    two_i = torch.arange(0, d_model, 2, dtype=torch.float64)\n    angle = pos / 10e4 ** (two_i / d_model)\n    pe = torch.zeros(n, d_model, dtype=torch.float64)\n    pe[:, 0::2], pe[:, 1::2] = angle.sin(), angle.cos()\n    return pe.float()',
        'the base is 100000, not 10000 (10e4 is 10 x 10^4 = 100000'),
    'positions by linspace(0, n, n): spaced n/(n - 1) apart': ('my_encoding', '\ndef my_encoding(n, d_model):\n    pos = torch.linspace(0, n, n, dtype=torch.float64)[:, None]\n    two_i = torch.arange(0, d_model, 2, dtype=torch.float64)\n    angle = pos / 10000 ** (two_i / d_model)\n    pe = torch.zeros(n, d_model, dtype=torch.float64)\n    pe[:, 0::2], pe[:, 1::2] = angle.sin(), angle.cos()\n    return pe.float()',
        'positions run evenly from 0 to 50, 1.02 apart (torch.linspace(0, 50, n))'),
    'the bias cached per (n_q, n_k) on the first call: stale once the table changes': ('RelativeBias', '\nclass RelativeBias(nn.Module):\n    def __init__(self, h, K):\n        super().__init__()\n        self.K, self.cache = K, {}\n        self.table = nn.Parameter(torch.randn(2 * K + 1, h) * 0.02)\n    def forward(self, n_q, n_k):\n        if (n_q, n_k) not in self.cache:\n            offset = torch.arange(n_k)[None, :] - torch.arange(n_q)[:, None]\n            self.cache[n_q, n_k] = self.table[offset.clamp(-self.K, self.K) + self.K].permute(2, 0, 1)\n        return self.cache[n_q, n_k]',
        'a bias kept from an earlier call (a cache per (n_q, n_k))'),
    'squeeze() at the end: h = 1 (or n_q = 1) loses an axis': ('RelativeBias', '\nclass RelativeBias(nn.Module):\n    def __init__(self, h, K):\n        super().__init__()\n        self.K = K\n        self.table = nn.Parameter(torch.randn(2 * K + 1, h) * 0.02)\n    def forward(self, n_q, n_k):\n        offset = torch.arange(n_k)[None, :] - torch.arange(n_q)[:, None]\n        return self.table[offset.clamp(-self.K, self.K) + self.K].permute(2, 0, 1).squeeze()',
        'the axis of n_q = 1 is gone: .squeeze() without a dim'),
    'F.one_hot of the clipped index without num_classes: breaks when the offsets do not reach K': ('RelativeBias', '\nclass RelativeBias(nn.Module):\n    def __init__(self, h, K):\n        super().__init__()\n        self.K = K\n        self.table = nn.Parameter(torch.randn(2 * K + 1, h) * 0.02)\n    def forward(self, n_q, n_k):\n        offset = torch.arange(n_k)[None, :] - torch.arange(n_q)[:, None]\n        return (F.one_hot(offset.clamp(-self.K, self.K) + self.K).float() @ self.table).permute(2, 0, 1)',
        'F.one_hot(idx, num_classes=2 * K + 1)'),
    '(a variant) linspace 0..1': ('my_encoding', '\ndef my_encoding(n, d_model):\n    pos = torch.linspace(0, 1, n, dtype=torch.float64)[:, None]\n    two_i = torch.arange(0, d_model, 2, dtype=torch.float64)\n    angle = pos / 10000 ** (two_i / d_model)\n    pe = torch.zeros(n, d_model, dtype=torch.float64)\n    pe[:, 0::2], pe[:, 1::2] = angle.sin(), angle.cos()\n    return pe.float()',
        'positions run evenly from 0 to 1'),
    '(a variant) base 20000': ('my_encoding', '\ndef my_encoding(n, d_model):\n    pos = torch.arange(n, dtype=torch.float64)[:, None]\n    two_i = torch.arange(0, d_model, 2, dtype=torch.float64)\n    angle = pos / 20000 ** (two_i / d_model)\n    pe = torch.zeros(n, d_model, dtype=torch.float64)\n    pe[:, 0::2], pe[:, 1::2] = angle.sin(), angle.cos()\n    return pe.float()',
        'the base is 20000, not 10000'),
    '(a variant) squeeze(0)': ('RelativeBias', '\nclass RelativeBias(nn.Module):\n    def __init__(self, h, K):\n        super().__init__()\n        self.K = K\n        self.table = nn.Parameter(torch.randn(2 * K + 1, h) * 0.02)\n    def forward(self, n_q, n_k):\n        offset = torch.arange(n_k)[None, :] - torch.arange(n_q)[:, None]\n        return self.table[offset.clamp(-self.K, self.K) + self.K].permute(2, 0, 1).squeeze(1)',
        'the axis of n_q = 1 is gone'),
    '(a variant) bias stored on self at first call': ('RelativeBias', '\nclass RelativeBias(nn.Module):\n    def __init__(self, h, K):\n        super().__init__()\n        self.K = K\n        self.table = nn.Parameter(torch.randn(2 * K + 1, h) * 0.02)\n    def forward(self, n_q, n_k):\n        if hasattr(self, "b"): return self.b\n        offset = torch.arange(n_k)[None, :] - torch.arange(n_q)[:, None]\n        self.b = self.table[offset.clamp(-self.K, self.K) + self.K].permute(2, 0, 1); return self.b',
        'whatever n_q and n_k: a bias kept from the first call'),
    '(a variant) squeeze at end (my_encoding)': ('my_encoding', '\ndef my_encoding(n, d_model):\n    pos = torch.arange(n, dtype=torch.float64)[:, None]\n    two_i = torch.arange(0, d_model, 2, dtype=torch.float64)\n    angle = pos / 10000 ** (two_i / d_model)\n    pe = torch.zeros(n, d_model, dtype=torch.float64)\n    pe[:, 0::2], pe[:, 1::2] = angle.sin(), angle.cos()\n    return pe.float().squeeze()',
        '.squeeze() without a dim drops every axis of size 1'),
}

@pytest.mark.parametrize('label', list(_T29))
def test_the_twenty_ninth_sets_misses_are_named(label):
    import re, torch
    ex, src, says = _T29[label]
    ns = {}
    exec(_T29_PRELUDE, ns); exec(src, ns)
    run = {'RelativeBias': lambda ns: _t29_check_relative_bias(ns['RelativeBias']), 'my_encoding': lambda ns: _t29_check_encoding(ns['my_encoding'])}[ex]
    dtype, grad = torch.get_default_dtype(), torch.is_grad_enabled()
    try: _t29_rejects(lambda: run(ns), says=re.escape(says))
    finally: torch.set_default_dtype(dtype); torch.set_grad_enabled(grad)   # an answer that changes them must not change the next test


# ---------------------------------------------------------------- the thirty-third blind set's misses
from transformer_nb.course.positional import check_encoding as _t33_check_encoding, check_relative_bias as _t33_check_relative_bias
from nbtools import assert_rejects as _t33_rejects

_T33_PRELUDE = 'import math, copy, random, torch, torch.nn as nn, torch.nn.functional as F\nfrom collections import Counter\nfrom transformer_nb.core import *\nfrom transformer_nb.positional import *'   # the names the exercise's cell sees
_T33 = {   # label: (the exercise, the answer's code, what its message must say)
    '10000 ** two_i / d_model: precedence': ('my_encoding', '\ndef my_encoding(n, d_model):\n    pos = torch.arange(n, dtype=torch.float64)[:, None]\n    two_i = torch.arange(0, d_model, 2, dtype=torch.float64)\n    angle = pos / 10000 ** two_i / d_model\n    pe = torch.zeros(n, d_model, dtype=torch.float64)\n    pe[:, 0::2], pe[:, 1::2] = angle.sin(), angle.cos()\n    return pe.float()',
        'your angles are pos / 10000^(2i) / d_model: the division by d_model is outside the power'),
    'the exponent over d_model - 1': ('my_encoding', '\ndef my_encoding(n, d_model):\n    pos = torch.arange(n, dtype=torch.float64)[:, None]\n    two_i = torch.arange(0, d_model, 2, dtype=torch.float64)\n    angle = pos / 10000 ** (two_i / (d_model - 1))\n    pe = torch.zeros(n, d_model, dtype=torch.float64)\n    pe[:, 0::2], pe[:, 1::2] = angle.sin(), angle.cos()\n    return pe.float()',
        'your exponents are 2i/(d_model - 1)'),
    '__init__(K, h): the arguments the other way': ('RelativeBias', '\nclass RelativeBias(nn.Module):\n    def __init__(self, K, h):\n        super().__init__()\n        self.K = K\n        self.table = nn.Parameter(torch.randn(2 * K + 1, h) * 0.02)\n    def forward(self, n_q, n_k):\n        offset = torch.arange(n_k)[None, :] - torch.arange(n_q)[:, None]\n        return self.table[offset.clamp(-self.K, self.K) + self.K].permute(2, 0, 1)',
        'your __init__ reads its arguments the other way, (K, h)'),
    'the positions clamped to K before the subtraction, not the offset': ('RelativeBias', '\nclass RelativeBias(nn.Module):\n    def __init__(self, h, K):\n        super().__init__()\n        self.K = K\n        self.table = nn.Parameter(torch.randn(2 * K + 1, h) * 0.02)\n    def forward(self, n_q, n_k):\n        offset = torch.arange(n_k).clamp(max=self.K)[None, :] - torch.arange(n_q).clamp(max=self.K)[:, None]\n        return self.table[offset.clamp(-self.K, self.K) + self.K].permute(2, 0, 1)',
        'the positions were clipped to K before the subtraction'),
    '(a variant) pos / (10000 ** two_i / d_model)': ('my_encoding', '\ndef my_encoding(n, d_model):\n    pos = torch.arange(n, dtype=torch.float64)[:, None]\n    two_i = torch.arange(0, d_model, 2, dtype=torch.float64)\n    angle = pos / (10000 ** two_i / d_model)\n    pe = torch.zeros(n, d_model, dtype=torch.float64)\n    pe[:, 0::2], pe[:, 1::2] = angle.sin(), angle.cos()\n    return pe.float()',
        'your angles are pos * d_model / 10000^(2i)'),
    '(a variant) a loop with the exponent 2 * i / (d_model + 1)': ('my_encoding', '\ndef my_encoding(n, d_model):\n    pe = torch.zeros(n, d_model)\n    for pos in range(n):\n        for i in range(d_model // 2):\n            a = pos / 10000 ** (2 * i / (d_model + 1))\n            pe[pos, 2 * i], pe[pos, 2 * i + 1] = math.sin(a), math.cos(a)\n    return pe',
        'your exponents are 2i/(d_model + 1)'),
    '(a variant) a table (h, 2K + 1), transposed': ('RelativeBias', '\nclass RelativeBias(nn.Module):\n    def __init__(self, h, K):\n        super().__init__()\n        self.K = K\n        self.table = nn.Parameter(torch.randn(h, 2 * K + 1) * 0.02)\n    def forward(self, n_q, n_k):\n        offset = torch.arange(n_k)[None, :] - torch.arange(n_q)[:, None]\n        return self.table[:, offset.clamp(-self.K, self.K) + self.K]',
        'the table is transposed, (h, 2K + 1)'),
    '(a variant) positions clamped with torch.minimum': ('RelativeBias', '\nclass RelativeBias(nn.Module):\n    def __init__(self, h, K):\n        super().__init__()\n        self.K = K\n        self.table = nn.Parameter(torch.randn(2 * K + 1, h) * 0.02)\n    def forward(self, n_q, n_k):\n        K = torch.tensor(self.K)\n        offset = torch.minimum(torch.arange(n_k), K)[None, :] - torch.minimum(torch.arange(n_q), K)[:, None]\n        return self.table[offset.clamp(-self.K, self.K) + self.K].permute(2, 0, 1)',
        'the positions were clipped to K before the subtraction'),
    '(another kind) the exponent (2i + 1)/d_model from the odd dimensions': ('my_encoding', '\ndef my_encoding(n, d_model):\n    pos = torch.arange(n, dtype=torch.float64)[:, None]\n    two_i = torch.arange(1, d_model, 2, dtype=torch.float64)\n    angle = pos / 10000 ** (two_i / d_model)\n    pe = torch.zeros(n, d_model, dtype=torch.float64)\n    pe[:, 0::2], pe[:, 1::2] = angle.sin(), angle.cos()\n    return pe.float()',
        'your exponents are (2i + 1)/d_model'),
    '(another kind) every angle times 2 pi': ('my_encoding', '\ndef my_encoding(n, d_model):\n    pos = torch.arange(n, dtype=torch.float64)[:, None]\n    two_i = torch.arange(0, d_model, 2, dtype=torch.float64)\n    angle = 2 * math.pi * pos / 10000 ** (two_i / d_model)\n    pe = torch.zeros(n, d_model, dtype=torch.float64)\n    pe[:, 0::2], pe[:, 1::2] = angle.sin(), angle.cos()\n    return pe.float()',
        'your angles are 2π times the formula'),
}

@pytest.mark.parametrize('label', list(_T33))
def test_the_thirty_third_sets_misses_are_named(label):
    import re, torch
    ex, src, says = _T33[label]
    ns = {}
    exec(_T33_PRELUDE, ns); exec(src, ns)
    run = {'my_encoding': lambda ns: _t33_check_encoding(ns['my_encoding']), 'RelativeBias': lambda ns: _t33_check_relative_bias(ns['RelativeBias'])}[ex]
    dtype, grad = torch.get_default_dtype(), torch.is_grad_enabled()
    try: _t33_rejects(lambda: run(ns), says=re.escape(says))
    finally: torch.set_default_dtype(dtype); torch.set_grad_enabled(grad)   # an answer that changes them must not change the next test


# ---------------------------------------------------------------- the thirty-seventh blind set's misses
from transformer_nb.course.positional import check_encoding as _t37_check_encoding, check_relative_bias as _t37_check_relative_bias
from nbtools import assert_rejects as _t37_rejects

_T37_PRELUDE = 'import math, copy, random, torch, torch.nn as nn, torch.nn.functional as F\nfrom collections import Counter\nfrom transformer_nb.core import *\nfrom transformer_nb.positional import *'   # the names the exercise's cell sees
_T37 = {   # label: (the exercise, the answer's code, what its message must say)
    '10000 ** 2i in int64, then the root': ('my_encoding', '\ndef my_encoding(n, d_model):\n    pos = torch.arange(n, dtype=torch.float64)[:, None]\n    two_i = torch.arange(0, d_model, 2)\n    angle = pos / (10000 ** two_i) ** (1 / d_model)\n    pe = torch.zeros(n, d_model, dtype=torch.float64)\n    pe[:, 0::2], pe[:, 1::2] = angle.sin(), angle.cos()\n    return pe.float()',
        'pairs 0 to 2 are right and every pair from 3 on is wrong (NaN): 10000^(2i) at 2i = 6 is 1e24, past the largest int64'),
    '(a variant) 10000.0 ** two_i in float32, then the root': ('my_encoding', '\ndef my_encoding(n, d_model):\n    pos = torch.arange(n, dtype=torch.float64)[:, None]\n    two_i = torch.arange(0, d_model, 2, dtype=torch.float32)\n    angle = pos / ((10000.0 ** two_i) ** (1 / d_model)).double()\n    pe = torch.zeros(n, d_model, dtype=torch.float64)\n    pe[:, 0::2], pe[:, 1::2] = angle.sin(), angle.cos()\n    return pe.float()',
        'past the largest float32'),
    'pos / 10000 ** 2*i / d_model: the parentheses lost': ('my_encoding', '\ndef my_encoding(n, d_model):\n    pos = torch.arange(n, dtype=torch.float64)[:, None]\n    i = torch.arange(d_model // 2, dtype=torch.float64)\n    angle = pos / 10000 ** 2*i / d_model\n    pe = torch.zeros(n, d_model, dtype=torch.float64)\n    pe[:, 0::2], pe[:, 1::2] = angle.sin(), angle.cos()\n    return pe.float()',
        "the exponent's parentheses are lost"),
    '(a variant) pos / 10000 ** 2*i / d_model with i = 0, 2, 4': ('my_encoding', '\ndef my_encoding(n, d_model):\n    pos = torch.arange(n, dtype=torch.float64)[:, None]\n    two_i = torch.arange(0, d_model, 2, dtype=torch.float64)\n    angle = pos / 10000 ** 2 * two_i / d_model\n    pe = torch.zeros(n, d_model, dtype=torch.float64)\n    pe[:, 0::2], pe[:, 1::2] = angle.sin(), angle.cos()\n    return pe.float()',
        "the exponent's parentheses are lost"),
    'the exponent over n': ('my_encoding', '\ndef my_encoding(n, d_model):\n    pos = torch.arange(n, dtype=torch.float64)[:, None]\n    two_i = torch.arange(0, d_model, 2, dtype=torch.float64)\n    angle = pos / 10000 ** (two_i / n)\n    pe = torch.zeros(n, d_model, dtype=torch.float64)\n    pe[:, 0::2], pe[:, 1::2] = angle.sin(), angle.cos()\n    return pe.float()',
        'your exponents are 2i/n, over the number of positions n = 50'),
    '(a variant) the exponent over n in the exp form': ('my_encoding', '\ndef my_encoding(n, d_model):\n    pos = torch.arange(n, dtype=torch.float64)[:, None]\n    div = torch.exp(torch.arange(0, d_model, 2, dtype=torch.float64) * (-math.log(10000.0) / n))\n    pe = torch.zeros(n, d_model, dtype=torch.float64)\n    pe[:, 0::2], pe[:, 1::2] = torch.sin(pos * div), torch.cos(pos * div)\n    return pe.float()',
        'over the number of positions'),
    'ln(10000) rounded to 9.2': ('my_encoding', '\ndef my_encoding(n, d_model):\n    pos = torch.arange(n, dtype=torch.float64)[:, None]\n    div = torch.exp(torch.arange(0, d_model, 2, dtype=torch.float64) * (-9.2 / d_model))\n    pe = torch.zeros(n, d_model, dtype=torch.float64)\n    pe[:, 0::2], pe[:, 1::2] = torch.sin(pos * div), torch.cos(pos * div)\n    return pe.float()',
        'the base is 9897.13 = e^9.2, not 10000 = e^9.2103'),
    '(a variant) ln(10000) written as 9': ('my_encoding', '\ndef my_encoding(n, d_model):\n    pos = torch.arange(n, dtype=torch.float64)[:, None]\n    div = torch.exp(torch.arange(0, d_model, 2, dtype=torch.float64) * (-9.0 / d_model))\n    pe = torch.zeros(n, d_model, dtype=torch.float64)\n    pe[:, 0::2], pe[:, 1::2] = torch.sin(pos * div), torch.cos(pos * div)\n    return pe.float()',
        'in the exp form, exp(-2i/d_model · ln 10000), the log is math.log(10000), not rounded'),
    'positions divided by n': ('my_encoding', '\ndef my_encoding(n, d_model):\n    pos = torch.arange(n, dtype=torch.float64)[:, None] / n\n    two_i = torch.arange(0, d_model, 2, dtype=torch.float64)\n    angle = pos / 10000 ** (two_i / d_model)\n    pe = torch.zeros(n, d_model, dtype=torch.float64)\n    pe[:, 0::2], pe[:, 1::2] = angle.sin(), angle.cos()\n    return pe.float()',
        'your positions are divided by n = 50 (normalised to [0, 1))'),
    'the sine in the odd dimensions too': ('my_encoding', '\ndef my_encoding(n, d_model):\n    pos = torch.arange(n, dtype=torch.float64)[:, None]\n    two_i = torch.arange(0, d_model, 2, dtype=torch.float64)\n    angle = pos / 10000 ** (two_i / d_model)\n    pe = torch.zeros(n, d_model, dtype=torch.float64)\n    pe[:, 0::2] = torch.sin(angle)\n    pe[:, 1::2] = torch.sin(angle)\n    return pe.float()',
        'dimensions 2i and 2i + 1 hold the same numbers, the sine of the pair'),
    '(a variant) the cosine in both dimensions': ('my_encoding', '\ndef my_encoding(n, d_model):\n    pos = torch.arange(n, dtype=torch.float64)[:, None]\n    two_i = torch.arange(0, d_model, 2, dtype=torch.float64)\n    angle = pos / 10000 ** (two_i / d_model)\n    pe = torch.zeros(n, d_model, dtype=torch.float64)\n    pe[:, 0::2] = torch.cos(angle)\n    pe[:, 1::2] = torch.cos(angle)\n    return pe.float()',
        'the cosine of the pair'),
    'the bias negated': ('RelativeBias', '\nclass RelativeBias(nn.Module):\n    def __init__(self, h:int, K:int):\n        super().__init__()\n        self.K, self.table = K, nn.Parameter(torch.randn(2 * K + 1, h) * 0.02)\n    def forward(self, n_q:int, n_k:int):\n        rel = torch.arange(n_k)[None, :] - torch.arange(n_q)[:, None]\n        b = self.table[rel.clamp(-self.K, self.K) + self.K]                    # (n_q, n_k, h)\n        return -b.permute(2, 0, 1)',
        "your bias is the table's rows negated"),
    '(a variant) 0 - table[...]': ('RelativeBias', '\nclass RelativeBias(nn.Module):\n    def __init__(self, h:int, K:int):\n        super().__init__()\n        self.K, self.table = K, nn.Parameter(torch.randn(2 * K + 1, h) * 0.02)\n    def forward(self, n_q:int, n_k:int):\n        rel = torch.arange(n_k)[None, :] - torch.arange(n_q)[:, None]\n        b = self.table[rel.clamp(-self.K, self.K) + self.K]                    # (n_q, n_k, h)\n        return (0 - b).permute(2, 0, 1)',
        'it is -table[2], a row negated'),
    'the table in float64': ('RelativeBias', '\nclass RelativeBias(nn.Module):\n    def __init__(self, h:int, K:int):\n        super().__init__()\n        self.K, self.table = K, nn.Parameter(torch.randn(2 * K + 1, h, dtype=torch.float64) * 0.02)\n    def forward(self, n_q:int, n_k:int):\n        rel = torch.arange(n_k)[None, :] - torch.arange(n_q)[:, None]\n        b = self.table[rel.clamp(-self.K, self.K) + self.K]                    # (n_q, n_k, h)\n        return b.permute(2, 0, 1)',
        'your table is torch.float64'),
    '(a variant) the table .double()': ('RelativeBias', '\nclass RelativeBias(nn.Module):\n    def __init__(self, h:int, K:int):\n        super().__init__()\n        self.K, self.table = K, nn.Parameter(torch.randn(2 * K + 1, h).double())\n    def forward(self, n_q:int, n_k:int):\n        rel = torch.arange(n_k)[None, :] - torch.arange(n_q)[:, None]\n        return self.table[rel.clamp(-self.K, self.K) + self.K].permute(2, 0, 1)',
        'make the table in the default dtype'),
    'the keys counted from 1': ('RelativeBias', '\nclass RelativeBias(nn.Module):\n    def __init__(self, h:int, K:int):\n        super().__init__()\n        self.K, self.table = K, nn.Parameter(torch.randn(2 * K + 1, h) * 0.02)\n    def forward(self, n_q:int, n_k:int):\n        rel = torch.arange(1, n_k + 1)[None, :] - torch.arange(n_q)[:, None]\n        return self.table[rel.clamp(-self.K, self.K) + self.K].permute(2, 0, 1)',
        "every offset is one too large, j - i + 1 (the keys' positions counted from 1"),
    '(a variant) the queries counted from 1': ('RelativeBias', '\nclass RelativeBias(nn.Module):\n    def __init__(self, h:int, K:int):\n        super().__init__()\n        self.K, self.table = K, nn.Parameter(torch.randn(2 * K + 1, h) * 0.02)\n    def forward(self, n_q:int, n_k:int):\n        rel = torch.arange(n_k)[None, :] - torch.arange(1, n_q + 1)[:, None]\n        return self.table[rel.clamp(-self.K, self.K) + self.K].permute(2, 0, 1)',
        "every offset is one too small, j - i - 1 (the queries' positions counted from 1"),
    'offsets past K get 0': ('RelativeBias', '\nclass RelativeBias(nn.Module):\n    def __init__(self, h:int, K:int):\n        super().__init__()\n        self.K, self.table = K, nn.Parameter(torch.randn(2 * K + 1, h) * 0.02)\n    def forward(self, n_q:int, n_k:int):\n        rel = torch.arange(n_k)[None, :] - torch.arange(n_q)[:, None]\n        b = self.table[rel.clamp(-self.K, self.K) + self.K]                    # (n_q, n_k, h)\n        b = b.masked_fill((rel.abs() > self.K)[..., None], 0.0)   # too far: no bias\n        return b.permute(2, 0, 1)',
        'the offsets past ±K get a bias of 0'),
    '(a variant) torch.where for the far offsets': ('RelativeBias', '\nclass RelativeBias(nn.Module):\n    def __init__(self, h:int, K:int):\n        super().__init__()\n        self.K, self.table = K, nn.Parameter(torch.randn(2 * K + 1, h) * 0.02)\n    def forward(self, n_q:int, n_k:int):\n        rel = torch.arange(n_k)[None, :] - torch.arange(n_q)[:, None]\n        b = self.table[rel.clamp(-self.K, self.K) + self.K]                    # (n_q, n_k, h)\n        return torch.where((rel.abs() <= self.K)[..., None], b, torch.zeros_like(b)).permute(2, 0, 1)',
        'the offsets past ±K get a bias of 0'),
}

@pytest.mark.parametrize('label', list(_T37))
def test_the_thirty_seventh_sets_misses_are_named(label):
    import re, torch
    ex, src, says = _T37[label]
    ns = {}
    exec(_T37_PRELUDE, ns); exec(src, ns)
    run = {'my_encoding': lambda ns: _t37_check_encoding(ns['my_encoding']), 'RelativeBias': lambda ns: _t37_check_relative_bias(ns['RelativeBias'])}[ex]
    dtype, grad = torch.get_default_dtype(), torch.is_grad_enabled()
    try: _t37_rejects(lambda: run(ns), says=re.escape(says))
    finally: torch.set_default_dtype(dtype); torch.set_grad_enabled(grad)   # an answer that changes them must not change the next test
