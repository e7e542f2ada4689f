"""01_attention's exercises, proven away from the learner: each check (transformer_nb.course.attention, taught in course_attention) passes
the printed solution and other right answers, reports the stub as not written yet, and refuses every wrong variant
with a message that names the case and the likely mistake; each "break it" solution names exactly the checks that fail
when its change is made to the library. The solutions run in namespaces of their own (tests/nbtools.py), never in the
notebook's."""
import math
import pytest, torch
from nbtools import break_it, cells
from nbtools import assert_break_it_exercise, assert_no_cell_runs_a_solution, assert_rejects, assert_stub_reported, namespace
from transformer_nb.course.attention import check_attention, check_restricted

NB, EXERCISES, TESTS = '01_attention', '83ef81e9', 'tests/test_attention.py'

def test_no_cell_runs_a_solution_or_rebinds_the_learners_names():
    assert_no_cell_runs_a_solution(NB, 'my_attention', 'restricted_mask')

# ---------------------------------------------------------------- "Write it yourself first": check_attention
def variant(scale=None, fill=float('-inf'), dim=-1, fix_empty=True, invert=False):
    "The solution with one mistake."
    def my_attention(q, k, v, mask=None):
        s = q @ k.mT * (1 / math.sqrt(q.shape[-1]) if scale is None else scale)
        if mask is not None and invert: mask = ~mask                   # True read as "blocked"
        if mask is not None: s = s.masked_fill(~mask, fill)
        w = s.softmax(dim)
        if mask is not None and fix_empty: w = w.masked_fill(~mask, 0.0)
        return w @ v, w
    return my_attention

def other_right_answer(q, k, v, mask=None):
    "A right answer written differently from the solution: einsum, torch.where, nan_to_num."
    s = torch.einsum('...id,...jd->...ij', q, k) / q.size(-1) ** 0.5
    if mask is not None: s = torch.where(mask, s, -torch.inf)
    w = torch.softmax(s, -1).nan_to_num(0.0)
    return torch.einsum('...ij,...jd->...id', w, v), w

def testcheck_attention_passes_right_answers(capsys):
    ns = namespace(NB, 'b1d0a004')
    assert ns['check_attention'](ns['my_attention']) is True
    assert ns['check_attention'](other_right_answer) is True
    assert capsys.readouterr().out.count('computes equation (1) with masks') == 2

def testcheck_attention_reports_the_stub(capsys):
    ns = namespace(NB, 'b1d0a003')                                       # the stub cell calls the check itself
    assert_stub_reported(ns, 'check_attention', 'my_attention', capsys)

@pytest.mark.parametrize('wrong, message', [
    (variant(scale=1.0), r"no mask: the weights differ .*the scores are not scaled: divide them by sqrt\(d_k\)"),
    (variant(scale=1 / 8), r"no mask: the weights differ .*you divided the scores by d_k = 8: divide them by sqrt\(d_k\) = 2.82843"),
    (variant(fill=0.0), r"padding mask: the weights differ .*masked scores were set to 0: set them to -inf before the softmax"),
    (variant(fill=1.0), r"padding mask: the weights differ .*masked scores were set to 1: set them to -inf before the softmax"),
    (variant(dim=-2), r"no mask: the weights differ .*the softmax ran over the queries \(dim=-2\): it must run over the keys"),
    (variant(invert=True), r"padding mask: the weights differ .*the mask is inverted: True means 'may attend'"),
    (variant(fix_empty=False), r"a query with no allowed key must get zero weights .*not NaN"),
    (variant(fill=-1e9, fix_empty=False), r"a query with no allowed key .*not the weights \[0.167, 0.167, 0.167, 0.167, 0.167, 0.167\] \(a large negative fill"),
    (variant(scale=2.0), r"no mask: the weights differ .*your scores q k\^T are multiplied by 2: the paper divides them by sqrt\(d_k\) = 2.83"),
    (lambda q, k, v, mask=None: None, r"no mask: return a pair \(output, weights\), not NoneType"),
    (lambda q, k, v, mask=None: variant()(q, k, v, mask)[::-1], r"no mask: output \(2, 3, 4, 6\), weights \(2, 3, 4, 5\); expected"),
], ids=['no scale', '1/d_k', 'filled with 0', 'filled with 1', 'softmax over queries', 'inverted mask', 'NaN rows', 'filled with -1e9',
        'another scale', 'returns None', 'swapped'])
def testcheck_attention_names_each_mistake(wrong, message):
    assert_rejects(check_attention, wrong, says=message)

# ---------------------------------------------------------------- exercise 4: check_restricted
def band(f):
    return lambda n, r: torch.tensor([[f(i, j, r) for j in range(n)] for i in range(n)])[None, None]

def test_check_restricted_passes_right_answers(capsys):
    ns = namespace(NB, EXERCISES)
    assert ns['check_restricted'](ns['restricted_mask']) is True
    other = lambda n, r: torch.ones(n, n, dtype=torch.bool).triu(-(r // 2)).tril(r // 2)[None, None]
    assert ns['check_restricted'](other) is True
    assert capsys.readouterr().out.count('the neighbourhood of size r centred on it') == 2

def test_check_restricted_reports_the_stub(capsys):
    ns = namespace(NB, 'a7d1e011')
    assert_stub_reported(ns, 'check_restricted', 'restricted_mask', capsys)

@pytest.mark.parametrize('wrong, message', [
    (band(lambda i, j, r: abs(i - j) <= r), r"n=5, r=1: query 0 and key 1 should be False; it is the mask \|i - j\| <= r, a neighbourhood of size 2r \+ 1"),
    (band(lambda i, j, r: 0 <= i - j <= r // 2), r"n=6, r=3: query 0 and key 1 should be True; the neighbourhood is centred on the query"),
    (band(lambda i, j, r: abs(i - j) > r // 2), r"n=5, r=1: query 0 and key 0 should be True; True must mean 'may attend': your mask is inverted"),
    (band(lambda i, j, r: abs(i - j) < r // 2), r"n=5, r=1: query 0 and key 0 should be True; the neighbourhood includes its edges: \|i - j\| <= r // 2, not <"),
    (lambda n, r: band(lambda i, j, r: abs(i - j) <= r // 2)(n, r).float(), r"n=5, r=1: return a bool tensor .*not torch.float32"),
    (lambda n, r: band(lambda i, j, r: abs(i - j) <= r // 2)(n, r)[0, 0], r"n=5, r=1: shape \(5, 5\); expected \(1, 1, 5, 5\)"),
], ids=['|i-j| <= r', 'one-sided', 'inverted', 'strict', 'float', '2-d'])
def test_check_restricted_names_each_mistake(wrong, message):
    assert_rejects(check_restricted, wrong, says=message)

def test_restricted_r_means_what_the_paper_and_07_mean():
    "Exercise 4's r is the size of the whole neighbourhood, centred on the query: 07's `local_mask`, the same mask."
    from transformer_nb.complexity import local_mask
    ns = namespace(NB, EXERCISES)
    for n, r in [(7, 3), (9, 5), (6, 4), (5, 1)]:
        assert torch.equal(ns['restricted_mask'](n, r).squeeze(), local_mask(n, r).squeeze()), (n, r)

# ---------------------------------------------------------------- the "break it" exercises
BREAK = {
    1: dict(cell='dc5e0805', old="(1 / math.sqrt(q.shape[-1]) if scale is None else scale)",
            new="(1 / q.shape[-1] if scale is None else scale)",
            cells={'95f30e13': "the test right after `attention` (loops and math.exp, then check_attention)",
                   '78f0f1b7': "the worked example's check",
                   'c762e63d': "the fast path's test against F.scaled_dot_product_attention"},
            tests={'test_values_match_hand_and_pytorch', 'test_shapes_and_broadcasting', 'test_float32_and_bfloat16_parity',
                   'test_gradients_match', 'test_float_masks_are_additive_in_pytorch'}),
    2: dict(cell='f979d0fa', old="    return w.masked_fill(~mask, 0.0)", new="    return w",
            cells={'02e83d6d': "the test right after `masked_softmax`",
                   '95f30e13': "the test after `attention`, whose check_attention has a query that sees nothing",
                   'c762e63d': "the fast path's test, whose per-query mask has an empty row"},
            tests={'test_masked_softmax', 'test_empty_row_gives_zeros_on_both_paths', 'test_values_match_hand_and_pytorch',
                   'test_gradients_match'}),
}

@pytest.mark.slow
@pytest.mark.skipif(tuple(int(x) for x in torch.__version__.split('+')[0].split('.')[:2]) < (2, 5),
                    reason="torch < 2.5: PyTorch's kernel gives NaN for a query that sees nothing, so other tests fail")
@pytest.mark.parametrize('n', BREAK)
def test_break_it_solution_names_exactly_the_checks_that_fail(n):
    assert_break_it_exercise(NB, EXERCISES, n, TESTS, module='attention', **BREAK[n])


@pytest.mark.slow
@pytest.mark.parametrize('n', BREAK)
def test_no_hidden_cell_fails_when_a_break_it_change_is_made(n):
    "The learner who makes a break-it change sees the cells its solution names fail, never the hidden prose checks."
    b = BREAK[n]
    failed, _ = break_it(NB, b['cell'], b['old'], b['new'], 'attention')
    hidden = {cid for cid, (kind, src) in cells(NB).items() if kind == 'code' and src.startswith('#| hide')}
    assert hidden and not set(failed) & hidden, {c: failed[c] for c in set(failed) & hidden}


def test_an_answer_that_raises_is_named_and_run_all_goes_on(capsys):
    "A learner's error is one printed line, and the check returns False: Run All never stops at an exercise."
    def broken(q, k, v, mask=None): return q @ v, None        # (..., n_q, d_k) @ (..., n_k, d_v): a size error
    assert check_attention(broken) is False
    assert capsys.readouterr().out.startswith('broken raised RuntimeError: ')

# ---------------------------------------------------------------- fresh wrong answers, written as new learners would
from transformer_nb.course import attention as _ex
FRESH = {}   # label: (checker, answer, the words its message must contain)
def add(checker, label, kw, *args): FRESH[checker, label] = args

# 01 my_attention: each answer and the words its message must contain
def at_noscale(q, k, v, mask=None):
    s = q @ k.transpose(-2, -1)
    if mask is not None: s = s.masked_fill(~mask, float('-inf'))
    w = s.softmax(-1); return w @ v, w
add('check_attention', 'no 1/sqrt(d_k)', ['sqrt', 'scale'], at_noscale)
def at_dk(q, k, v, mask=None):
    s = q @ k.transpose(-2, -1) / q.shape[-1]
    if mask is not None: s = s.masked_fill(~mask, float('-inf'))
    w = s.softmax(-1).nan_to_num(0.0); return w @ v, w
add('check_attention', 'scale 1/d_k', ['1/d_k', 'sqrt', 'scale'], at_dk)
def at_nk(q, k, v, mask=None):
    s = q @ k.transpose(-2, -1) / math.sqrt(k.shape[-2])
    if mask is not None: s = s.masked_fill(~mask, float('-inf'))
    w = s.softmax(-1).nan_to_num(0.0); return w @ v, w
add('check_attention', 'sqrt of number of keys', ['n_k', 'number of keys', 'sequence length', 'keys'], at_nk)
def at_dim(q, k, v, mask=None):
    s = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if mask is not None: s = s.masked_fill(~mask, float('-inf'))
    w = s.softmax(-2).nan_to_num(0.0); return w @ v, w
add('check_attention', 'softmax over queries', ['dim', 'axis', 'queries'], at_dim)
def at_invert(q, k, v, mask=None):
    s = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if mask is not None: s = s.masked_fill(mask, float('-inf'))
    w = s.softmax(-1).nan_to_num(0.0); return w @ v, w
add('check_attention', 'mask inverted', ['true', 'invert', 'opposite'], at_invert)
def at_zero(q, k, v, mask=None):
    s = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if mask is not None: s = s.masked_fill(~mask, 0.0)
    w = s.softmax(-1); return w @ v, w
add('check_attention', 'masked scores 0 not -inf', ['-inf', '0'], at_zero)
def at_nan(q, k, v, mask=None):
    s = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if mask is not None: s = s.masked_fill(~mask, float('-inf'))
    w = s.softmax(-1); return w @ v, w
add('check_attention', 'NaN on fully masked row', ['nan', 'all masked', 'every key'], at_nan)
def at_mulmask(q, k, v, mask=None):
    s = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    w = s.softmax(-1)
    if mask is not None: w = w * mask
    return w @ v, w
add('check_attention', 'masks after the softmax without renormalising', ['after the softmax', 'renormal', 'sum to'], at_mulmask)
def at_noT(q, k, v, mask=None):
    s = torch.einsum('...id,...jd->...ij', q, k) / math.sqrt(q.shape[-1])
    if mask is not None: s = s.masked_fill(~mask, float('-inf'))
    w = s.softmax(-1).nan_to_num(0.0); return w @ v, w.transpose(-2, -1)
add('check_attention', 'returns transposed weights', ['transpose', 'shape', '(n_k, n_q)'], at_noT)
def at_fill1(q, k, v, mask=None):
    s = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if mask is not None: s = s.masked_fill(~mask, -1.0)
    w = s.softmax(-1); return w @ v, w
add('check_attention', 'masked scores -1', ['-inf'], at_fill1)
SAYS_CHECK_ATTENTION = {
"no 1/sqrt(d_k)": "the\\ weights\\ differ\\ from\\ PyTorch's\\ by\\ 0\\.45:\\ the\\ scores\\ are\\ not\\ scaled:\\ divide\\ them\\ by\\ sqrt\\(",
"scale 1/d_k": "the\\ weights\\ differ\\ from\\ PyTorch's\\ by\\ 0\\.4:\\ you\\ divided\\ the\\ scores\\ by\\ d_k\\ =\\ 8:\\ divide\\ them\\ b",
"sqrt of number of keys": "the\\ weights\\ differ\\ from\\ PyTorch's\\ by\\ 0\\.073:\\ you\\ divided\\ the\\ scores\\ by\\ sqrt\\(n_k\\)\\ =\\ sqrt\\(6\\),",
"softmax over queries": "the\\ weights\\ differ\\ from\\ PyTorch's\\ by\\ 0\\.47:\\ the\\ softmax\\ ran\\ over\\ the\\ queries\\ \\(dim=\\-2\\):\\ it\\ m",
"mask inverted": "the\\ weights\\ differ\\ from\\ PyTorch's\\ by\\ 0\\.97:\\ the\\ mask\\ is\\ inverted:\\ True\\ means\\ 'may\\ attend',\\ ",
"masked scores 0 not -inf": "the\\ weights\\ differ\\ from\\ PyTorch's\\ by\\ 0\\.21:\\ masked\\ scores\\ were\\ set\\ to\\ 0:\\ set\\ them\\ to\\ \\-inf\\ b",
"NaN on fully masked row": "a\\ query\\ with\\ no\\ allowed\\ key\\ must\\ get\\ zero\\ weights\\ and\\ a\\ zero\\ output,\\ not\\ NaN",
"masks after the softmax without renormalising": "fill\\ the\\ masked\\ scores\\ with\\ \\-inf\\ before\\ the\\ softmax",
"returns transposed weights": "return\\ them\\ \\(\\.\\.\\.,\\ n_q,\\ n_k\\),\\ one\\ row\\ per\\ query",
"masked scores -1": "set\\ the\\ masked\\ scores\\ to\\ \\-inf\\ before\\ the\\ softmax\\ \\(e\\^\\-inf\\ =\\ 0\\)"
}

@pytest.mark.parametrize('label', list(SAYS_CHECK_ATTENTION))
def test_fresh_wrong_answers_named_bycheck_attention(label):
    "Each wrong answer a new learner writes is refused, with a message that names its mistake."
    assert_rejects(_ex.check_attention, *FRESH['check_attention', label], says=SAYS_CHECK_ATTENTION[label])

# 01 restricted_mask: each answer and the words its message must contain
def rm_r(n, r):
    i = torch.arange(n); return ((i[:, None] - i[None]).abs() <= r)[None, None]
add('check_restricted', 'uses r not r//2', ['r // 2', 'r//2', 'half', 'wide'], rm_r)
def rm_lt(n, r):
    i = torch.arange(n); return ((i[:, None] - i[None]).abs() < r // 2)[None, None]
add('check_restricted', '< instead of <=', ['<=', 'narrow', 'edge', 'r // 2'], rm_lt)
def rm_2d(n, r):
    i = torch.arange(n); return (i[:, None] - i[None]).abs() <= r // 2
add('check_restricted', 'shape (n, n)', ['shape', '(1, 1, n, n)'], rm_2d)
def rm_float(n, r):
    i = torch.arange(n); return ((i[:, None] - i[None]).abs() <= r // 2).float()[None, None]
add('check_restricted', 'float mask', ['bool', 'float'], rm_float)
def rm_inv(n, r):
    i = torch.arange(n); return ((i[:, None] - i[None]).abs() > r // 2)[None, None]
add('check_restricted', 'inverted', ['true', 'invert', 'opposite'], rm_inv)
def rm_causal(n, r):
    i = torch.arange(n); d = i[:, None] - i[None]; return ((d >= 0) & (d <= r // 2))[None, None]
add('check_restricted', 'one-sided window (past only)', ['one side', 'centered', 'centred', 'both sides', 'future', 'past'], rm_causal)
def rm_triu(n, r):
    return torch.ones(n, n, dtype=torch.bool).triu(-(r // 2)).tril(r // 2 - 1)[None, None]
add('check_restricted', 'off by one on the right edge', ['right', 'after', 'symmetric', 'future', 'edge', 'r // 2'], rm_triu)
def rm_r2float(n, r):
    i = torch.arange(n); return ((i[:, None] - i[None]).abs() <= r / 2)[None, None]
# rm_r2float (|i-j| <= r/2) is right for integer offsets: not a wrong answer
SAYS_CHECK_RESTRICTED = {
"uses r not r//2": "it\\ is\\ the\\ mask\\ \\|i\\ \\-\\ j\\|\\ <=\\ r,\\ a\\ neighbourhood\\ of\\ size\\ 2r\\ \\+\\ 1:\\ r\\ is\\ the\\ size\\ of\\ the\\ whole\\ ne",
"< instead of <=": "the\\ neighbourhood\\ includes\\ its\\ edges:\\ \\|i\\ \\-\\ j\\|\\ <=\\ r\\ //\\ 2,\\ not\\ <",
"shape (n, n)": "expected\\ \\(1,\\ 1,\\ 5,\\ 5\\),\\ which\\ broadcasts\\ over\\ batch\\ and\\ heads",
"float mask": "return\\ a\\ bool\\ tensor\\ \\(True\\ =\\ may\\ attend\\),\\ not\\ torch\\.float32",
"inverted": "True\\ must\\ mean\\ 'may\\ attend':\\ your\\ mask\\ is\\ inverted",
"one-sided window (past only)": "your\\ mask\\ is\\ not\\ symmetric\\ \\(n=6,\\ r=3:\\ query\\ 1\\ may\\ see\\ key\\ 0,\\ query\\ 0\\ may\\ not\\ see\\ key\\ 1\\)",
"off by one on the right edge": "your band stops one key short on one side, j - i from -\\(r // 2\\) to r // 2 - 1"
}

@pytest.mark.parametrize('label', list(SAYS_CHECK_RESTRICTED))
def test_fresh_wrong_answers_named_by_check_restricted(label):
    "Each wrong answer a new learner writes is refused, with a message that names its mistake."
    assert_rejects(_ex.check_restricted, *FRESH['check_restricted', label], says=SAYS_CHECK_RESTRICTED[label])

# ---------------------------------------------------------------- the pair swapped, the axes counted from the front
def _att(q, k, v, mask=None, dims=(-2, -1)):
    s = q @ k.transpose(*dims) / math.sqrt(q.shape[-1])
    if mask is not None: s = s.masked_fill(~mask, float('-inf'))
    w = s.softmax(-1).nan_to_num(0.0)
    return w @ v, w

@pytest.mark.parametrize('wrong, says', [
    (lambda q, k, v, mask=None: _att(q, k, v, mask)[::-1], r"^Not yet: no mask: output \(2, 3, 4, 6\), weights \(2, 3, 4, 5\); .*: the output and the weights are swapped"),
    (lambda q, k, v, mask=None: _att(q, k, v, mask, dims=(1, 2)),
     r"^Not yet: no mask: raised RuntimeError \(.*\) on q, k, v of four axes \(B, h, n, d\), and runs on three: count the axes from the end"),
], ids=['(weights, output)', 'k.transpose(1, 2)'])
def testcheck_attention_names_the_pair_swapped_and_axes_from_the_front(wrong, says):
    assert_rejects(check_attention, wrong, says=says)

# ---------------------------------------------------------------- the scale taken from the values' size
def testcheck_attention_names_the_scale_by_sqrt_d_v(capsys):
    "q and k have 8 features, v 5: dividing by sqrt(d_v) is named as that, and equation (1) still passes."
    def by_d_v(q, k, v, mask=None):
        s = q @ k.mT / math.sqrt(v.shape[-1])
        if mask is not None: s = s.masked_fill(~mask, float('-inf'))
        w = s.softmax(-1).nan_to_num(0.0); return w @ v, w
    assert_rejects(_ex.check_attention, by_d_v, says=r"^Not yet: no mask: the weights differ from PyTorch's by 0\.12: you divided the "
                   r"scores by sqrt\(d_v\) = sqrt\(5\), the size of a value vector: .* divide by sqrt\(d_k\) = 2\.82843$")
    assert _ex.check_attention(lambda q, k, v, mask=None: _att(q, k, v, mask)) is True


def _att_named(q, k, v, mask=None, kt=lambda k: k.transpose(-2, -1), after=False):
    "Equation (1); `kt` transposes k, `after` scales the weights after the softmax instead of the scores before it."
    s = q @ kt(k) / (1 if after else math.sqrt(q.shape[-1]))
    if mask is not None: s = s.masked_fill(~mask, float('-inf'))
    w = s.softmax(-1) / (math.sqrt(q.shape[-1]) if after else 1)
    if mask is not None: w = w.masked_fill(~mask, 0.0)
    return w @ v, w

def test_k_transposed_on_its_leading_axes_is_named():
    assert_rejects(_ex.check_attention, lambda q, k, v, mask=None: _att_named(q, k, v, mask, kt=lambda k: k.transpose(0, 1)),
                   says=r"runs on two \(plain matrices\): count the axes from the end.*; k\.T and k\.transpose\(0, 1\) swap the leading axes")
    assert _ex.check_attention(_att_named) is True

def test_scaling_after_the_softmax_is_named():
    assert_rejects(_ex.check_attention, lambda q, k, v, mask=None: _att_named(q, k, v, mask, after=True),
                   says=r"the weights were divided by sqrt\(d_k\) = 2\.82843 after the softmax, so a query's sum to 0\.354: scale the scores before it")

# ---------------------------------------------------------------- mistakes nobody listed, named by what the answer does

def _att_by(scale=None, dim=-1, mul=False, post=None, kT=lambda k: k.transpose(-2, -1), inplace=False):
    "Equation (1) miswritten one way: the scores times `scale(d_k)`, a softmax over `dim`, a 0/1 mask multiplied in, ..."
    def attention(q, k, v, mask=None):
        if inplace: q /= math.sqrt(q.shape[-1])
        s = q @ kT(k) * (1.0 if inplace else q.shape[-1] ** -0.5 if scale is None else scale(q.shape[-1]))
        if mask is not None: s = s * mask + (~mask) * float('-inf') if mul else s.masked_fill(~mask, float('-inf'))
        w = s.softmax(dim)
        return post(w, v) if post else (w @ v, w)
    return attention

@pytest.mark.parametrize('answer, says', [
    (_att_by(scale=lambda d: (d + 1) ** -0.5), r"no mask: .*your scores q k\^T are multiplied by 0\.333: the paper divides them by sqrt\(d_k\) = 2\.83"),
    (_att_by(scale=lambda d: 0.5 * d ** -0.5), r"no mask: .*multiplied by 0\.177 = 1/\(2 sqrt\(d_k\)\)"),
    (_att_by(dim=1), r"at \[batch \d, head \d, query \d\] they sum to [\d.]+, and it is the head axis \(dim=1\) that sums to 1"),
    (_att_by(mul=True), r"padding mask: .*your weights have NaN, first at \[batch 0, head 0, query 0, key 0\], at allowed keys too: -inf times 0"),
    (_att_by(post=lambda w, v: ((w @ v).float(), w.float())), r"no mask: your output is torch\.float32, the inputs torch\.float64: keep the inputs' dtype"),
    (_att_by(post=lambda w, v: (w @ v + 0.01, w)), r"no mask: the outputs differ .*the output is weights @ v: at \[batch \d, head \d, query \d, feature \d\] yours is .*, expected .* \(120 of 120 entries differ\)"),
    (_att_by(kT=lambda k: k.flip(-2).transpose(-2, -1)), r"the rows sum to 1 and the mask is kept, so the scores differ .*: at \[batch \d, head \d, query \d, key \d\] yours is"),
    (_att_by(inplace=True), r"no mask: attention changed its input q in place \(an in-place operation"),
])
def test_attention_mistakes_nobody_listed_are_named_by_property(answer, says):
    assert_rejects(check_attention, answer, says=says)

def test_attention_computed_otherwise_still_passes():
    def attention(q, k, v, mask=None):                 # einsum over any leading axes, float64 kept, masked_fill on a copy
        s = torch.einsum('...qd,...kd->...qk', q, k) / math.sqrt(k.shape[-1])
        if mask is not None: s = s.masked_fill(~mask, float('-inf'))
        w = torch.nan_to_num(s.softmax(-1))
        return torch.einsum('...qk,...kd->...qd', w, v), w
    assert check_attention(attention) is True

def _mask_by(f, post=lambda m: m[None, None]):
    "restricted_mask(n, r) as f(i, j, r) over the query and key indices, shaped by `post`."
    def restricted_mask(n, r):
        i = torch.arange(n); return post(f(i[:, None], i[None], r))
    return restricted_mask

@pytest.mark.parametrize('answer, says', [
    (_mask_by(lambda i, j, r: ((i - j).abs() <= r // 2).float()), r"n=5, r=1: return a bool tensor .*: yours is a 0/1 torch\.float32 mask"),
    (_mask_by(lambda i, j, r: (i - j).abs() <= r // 2, post=lambda m: m), r"shape \(5, 5\); .*: add the batch and head axes, m\[None, None\]"),
    (_mask_by(lambda i, j, r: (i - j).abs() <= r // 2 + 2), r"n=5, r=1: .*your mask lets query i see keys i - 2 \.\. i \+ 2; the paper's neighbourhood is i - 0 \.\. i \+ 0"),
])
def test_restricted_mask_mistakes_nobody_listed_are_named_by_property(answer, says):
    assert_rejects(check_restricted, answer, says=says)


# ---------------------------------------------------------------- more mistakes, each named by what the answer does
import transformer_nb.course.attention as _named

def _att_bias(q, k, v, mask=None):                  # the bool mask added to the scores as a number
    s = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if mask is not None: s = s + mask.to(s.dtype)
    w = s.softmax(-1)
    return w @ v, w

def test_a_bool_mask_added_to_the_scores_is_named():
    assert_rejects(_named.check_attention, _att_bias, says=r"padding mask: .*the bool mask was added to the scores as a number \(True = 1, False = 0\)")

def test_a_half_width_rounded_up_is_named():
    def restricted_mask(n, r):
        i = torch.arange(n); return ((i[:, None] - i[None]).abs() <= math.ceil(r / 2))[None, None]
    assert_rejects(_named.check_restricted, restricted_mask, says=r"n=5, r=1: .*your half-width is r / 2 rounded up, \(r \+ 1\) // 2")

def test_scores_k_q_transposed_are_named():
    "K Q^T, normalised over its last axis and transposed back, is the softmax over the queries: the message says both."
    def att(q, k, v, mask=None):
        s = k @ q.transpose(-2, -1) / math.sqrt(q.shape[-1])
        if mask is not None: s = s.masked_fill(~mask.transpose(-2, -1), float('-inf'))
        w = s.softmax(-1).transpose(-2, -1)
        return w @ v, w
    assert_rejects(check_attention, att, says=r"the softmax ran over the queries \(dim=-2\): it must run over the keys.*\(K Q\^T normalised over its last axis is the same mistake\)")


# ---------------------------------------------------------------- a mask that is no band: the far keys kept, the near ones dropped
def test_a_mask_that_keeps_the_far_keys_is_named():
    def far(n, r):                                                  # triu and tril with the signs of the diagonals swapped, and their union
        ones = torch.ones(n, n, dtype=torch.bool)
        return (torch.triu(ones, diagonal=r // 2) | torch.tril(ones, diagonal=-(r // 2)))[None, None]
    assert_rejects(_named.check_restricted, far,
                   says=r"n=6, r=3: your mask lets each query see the keys far from it, \|i - j\| >= 1, and not the near ones")

@pytest.mark.parametrize('half', [lambda r: (r - 1) / 2, lambda r: (r - 1) // 2], ids=['float', 'int'])
def test_a_half_width_right_for_odd_r_only_is_named(half):
    "|i - j| <= (r - 1) / 2 is the paper's band for an odd r and one key short on each side for an even r: named as such, not as a strict <."
    def restricted_mask(n, r):
        i = torch.arange(n); return ((i[:, None] - i[None, :]).abs() <= half(r))[None, None]
    assert_rejects(_named.check_restricted, restricted_mask,
                   says=r"n=6, r=4: query 0 and key 2 should be True; your half-width is \(r - 1\) / 2: right for an odd r, but for an even r")

# ---------------------------------------------------------------- slips of later blind answers, named by property
@pytest.mark.parametrize('answer, says', [
    (lambda n, r: ((torch.arange(n)[None] - torch.arange(n)[:, None]).abs() <= r // 4)[None, None],
     r"your mask is a band centred on the query, of half-width \{1: 0, 3: 0, 4: 1, 5: 1\} by r; the paper's is r // 2, .*: yours is r // 4"),
    (lambda n, r: (abs(torch.arange(n)[None] - torch.arange(n)[:, None]) <= r // 2)[None, None].numpy(),
     r"return a bool tensor .*: yours is a NumPy ndarray; attention needs a torch tensor"),
])
def test_restricted_mask_band_widths_and_numpy_masks_are_named(answer, says):
    assert_rejects(check_restricted, answer, says=says)

# ---------------------------------------------------------------- weights that ignore the mask, or keep a share for the masked keys
def _scores(q, k): return q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])

def _unmasked_weights(q, k, v, mask=None):
    "The output from PyTorch's kernel, the weights from a softmax that never saw the mask."
    return torch.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=mask), _scores(q, k).softmax(-1)

def _finite_then_zeroed(q, k, v, mask=None):
    "Masked scores set to the row's minimum less 1, then the masked weights zeroed: the allowed keys' weights sum to less than 1."
    s = _scores(q, k)
    if mask is None: w = s.softmax(-1)
    else: w = s.where(mask, s.amin(-1, keepdim=True) - 1).softmax(-1) * mask
    return w @ v, w

def test_weights_that_ignore_the_mask_or_keep_a_share_for_masked_keys_are_named():
    assert_rejects(check_attention, _unmasked_weights, says=r"padding mask: the weights differ .*: the weights ignore the mask: they are the softmax of every score, masked keys included")
    assert_rejects(check_attention, _finite_then_zeroed, says=r"padding mask: .*the masked keys took a share of the softmax and were zeroed after it: .*fill the masked scores with -inf before the softmax")

# ---------------------------------------------------------------- a band that holds no key at all
def _empty_band(n, r):
    "triu and tril with the offsets' signs swapped: for r >= 2 the band is empty, no query sees any key."
    m = torch.ones(n, n, dtype=torch.bool)
    return (m.triu(r // 2) & m.tril(-(r // 2)))[None, None]

def test_a_mask_that_lets_no_query_see_any_key_is_named():
    assert_rejects(check_restricted, _empty_band, says=r"n=6, r=3: .*your mask is all False: no query may see any key, not even itself; "
                                                     r"the paper's neighbourhood is i - 1 \.\. i \+ 1")

# ---------------------------------------------------------------- a fresh blind set: wrong answers written before reading the messages
import re as _n9re
from nbtools import assert_rejects as _n9_rejects
import math as _n9math
from transformer_nb.course.attention import check_attention as _n9_att, check_restricted as _n9_res
def _n9_after(q, k, v, mask=None):
    w = torch.softmax(q @ k.transpose(-2, -1) / _n9math.sqrt(q.shape[-1]), -1)
    if mask is not None: w = w * mask
    return w @ v, w
def _n9_sqrt_nk(q, k, v, mask=None):
    s = q @ k.transpose(-2, -1) / _n9math.sqrt(k.shape[-2])
    if mask is not None: s = s.masked_fill(~mask, float('-inf'))
    w = torch.softmax(s, -1).nan_to_num(0.0); return w @ v, w
def _n9_big_negative(q, k, v, mask=None):
    s = q @ k.transpose(-2, -1) / _n9math.sqrt(q.shape[-1])
    if mask is not None: s = s.masked_fill(~mask, -1e9)
    w = torch.softmax(s, -1); return w @ v, w
def _n9_over_queries(q, k, v, mask=None):
    s = q @ k.transpose(-2, -1) / _n9math.sqrt(q.shape[-1])
    if mask is not None: s = s.masked_fill(~mask, float('-inf'))
    w = torch.softmax(s, -2).nan_to_num(0.0); return w @ v, w
_n9_d = lambda n: torch.arange(n)[:, None] - torch.arange(n)[None]
def _n9_triu_slip(n, r):
    o = torch.ones(n, n, dtype=torch.bool); return (o.tril(r // 2) & o.triu(-r // 2))[None, None]   # -r // 2 is (-r) // 2
def _n9_triu_right(n, r):
    o = torch.ones(n, n, dtype=torch.bool); return (o.tril(r // 2) & o.triu(-(r // 2)))[None, None]
NINTH = [('mask applied after the softmax', _n9_att, (_n9_after,), "the weights were masked after the softmax"),
         ('divided by sqrt(n_k)', _n9_att, (_n9_sqrt_nk,), "you divided the scores by sqrt(n_k)"),
         ('-1e9 fill: an all-masked row uniform', _n9_att, (_n9_big_negative,), "a large negative fill spreads them over the masked keys"),
         ('softmax over the queries', _n9_att, (_n9_over_queries,), "the softmax ran over the queries (dim=-2)"),
         ('|i - j| < r // 2', _n9_res, (lambda n, r: (_n9_d(n).abs() < r // 2)[None, None],), "|i - j| <= r // 2, not <"),
         ('an (n, n) mask', _n9_res, (lambda n, r: _n9_d(n).abs() <= r // 2,), "add the batch and head axes, m[None, None]"),
         ('a causal band', _n9_res, (lambda n, r: ((_n9_d(n) >= 0) & (_n9_d(n) <= r // 2))[None, None],), "your mask is not symmetric"),
         ('|i - j| <= r', _n9_res, (lambda n, r: (_n9_d(n).abs() <= r)[None, None],), "a neighbourhood of size 2r + 1"),
         ('triu(-r // 2): the precedence slip', _n9_res, (_n9_triu_slip,), "-r // 2 is (-r) // 2")]

def test_ninth_right_restricted_with_triu_passes():
    assert _n9_res(_n9_triu_right) is True
def _n9_att_with(fill_where=lambda m: ~m, scale=True, pair=True):
    def att(q, k, v, mask=None):
        s = q @ k.transpose(-2, -1) / (_n9math.sqrt(q.shape[-1]) if scale else 1.0)
        if mask is not None: s = s.masked_fill(fill_where(mask), float('-inf'))
        w = torch.softmax(s, -1).nan_to_num(0.0); return (w @ v, w) if pair else w @ v
    return att
NINTH += [('no scaling', _n9_att, (_n9_att_with(scale=False),), "the scores are not scaled: divide them by sqrt(d_k)"),
          ('mask inverted', _n9_att, (_n9_att_with(fill_where=lambda m: m),), "the mask is inverted"),
          ('the output alone', _n9_att, (_n9_att_with(pair=False),), "return a pair (output, weights)")]

@pytest.mark.parametrize('label', [c[0] for c in NINTH])
def test_ninth_blind_answers_named(label):
    "Each answer of the blind set is refused with a message that names its mistake."
    _, check, answer, words = next(c for c in NINTH if c[0] == label)
    _n9_rejects(check, *answer, says=_n9re.escape(words))


# ---------------------------------------------------------------- the fourteenth blind set's misses (results/checker_answers.json)
def _indexed(q, k, v, mask=None):
    "Right but for the masking: boolean indexing, s[~mask] = -inf, which needs a mask of the scores' full shape."
    s = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if mask is not None: s[~mask] = float('-inf')
    w = torch.nan_to_num(s.softmax(-1))
    return w @ v, w

def test_a_mask_taken_by_boolean_indexing_is_named():
    assert_rejects(check_attention, _indexed, says=r"^Not yet: padding mask: raised IndexError \(.*\) with a mask of shape \(2, 1, 1, 6\), and runs "
                   r"with it expanded to the scores' \(2, 3, 4, 6\): .*boolean indexing, s\[~mask\] = \.\.\., does not broadcast: use s\.masked_fill")

def test_a_mask_expanded_to_the_scores_by_the_answer_itself_passes():
    def expanded(q, k, v, mask=None):
        s = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
        if mask is not None: s[~mask.expand(s.shape)] = float('-inf')
        w = torch.nan_to_num(s.softmax(-1))
        return w @ v, w
    assert check_attention(expanded) is True

# ---------------------------------------------------------------- the sixteenth blind set's misses
def _exp_over_sum(q, k, v, mask=None):
    "A softmax written as exp / sum with no max subtracted: right until a score passes 709."
    e = (q @ k.mT / math.sqrt(q.shape[-1])).exp()
    if mask is not None: e = e.masked_fill(~mask, 0.0)
    w = e / e.sum(-1, keepdim=True).clamp_min(1e-300)
    return w @ v, w

def test_a_softmax_that_overflows_on_large_scores_is_named():
    assert_rejects(check_attention, _exp_over_sum, says=r"^Not yet: scores up to \d+: your weights have NaN or inf: exp\(\) of a score past 709 overflows")

def test_restricted_mask_with_its_arguments_swapped_is_named():
    def swapped(r, n):
        i = torch.arange(n); return ((i[:, None] - i[None, :]).abs() <= r // 2)[None, None]
    assert_rejects(check_restricted, swapped, says=r"^Not yet: n=5, r=1: shape \(1, 1, 1, 1\).*the arguments are read the other way round")

# ---------------------------------------------------------------- the seventeenth blind set's misses
def _att17(q, k, v, mask=None, causal=False, log=False, squeeze=False, heads_mean=False, unsqueeze=False, keepdim=True):
    "Equation (1), right, or with one of the seventeenth set's slips."
    s = q @ k.mT / math.sqrt(q.shape[-1])
    if causal: s = s.masked_fill(~torch.ones(s.shape[-2:], dtype=torch.bool).tril(), float('-inf'))
    if mask is not None: s = s.masked_fill(~(mask.unsqueeze(1) if unsqueeze else mask), float('-inf'))
    e = (s - s.amax(-1, keepdim=True).clamp(min=-1e30)).exp()
    w = (e / e.sum(-1, keepdim=keepdim)).nan_to_num(0.0)
    if log: w = s.log_softmax(-1)
    out = w @ v
    if squeeze: out, w = out.squeeze(), w.squeeze()
    if heads_mean and w.dim() == 4: w = w.mean(1)
    return out, w

@pytest.mark.parametrize('kw, says', [
    (dict(causal=True), r"no mask: .*your weights are causal .* with no mask: a triangular mask is applied always"),
    (dict(log=True), r"your weights are log-probabilities \(log_softmax\)"),
    (dict(squeeze=True), r"one query, B = h = 1: output \(5,\), weights \(6,\); .*\.squeeze\(\) drops every axis of size 1"),
    (dict(heads_mean=True), r"the weights lost their head axis, averaged \(or summed\) over the heads"),
    (dict(unsqueeze=True), r"padding mask: output \(2, 2, 3, 4, 5\).*the mask \(2, 1, 1, 6\) was given more axes"),
    (dict(keepdim=False), r"raised RuntimeError .*: the keys' axis \(6\) met the queries' \(4\): a sum or max over the keys without keepdim=True"),
], ids=['always causal', 'log_softmax', 'squeezed', 'heads averaged', 'mask unsqueezed', 'no keepdim'])
def test_the_seventeenth_sets_misses_are_named(kw, says):
    def my_attention(q, k, v, mask=None): return _att17(q, k, v, mask, **kw)
    assert_rejects(check_attention, my_attention, says=says)

def test_the_seventeenth_sets_helper_passes_unchanged():
    def my_attention(q, k, v, mask=None): return _att17(q, k, v, mask)
    from transformer_nb.course.checking import outcome
    assert outcome(check_attention, my_attention)[0] is True

# ---------------------------------------------------------------- the nineteenth blind set's miss
def test_an_output_returned_as_a_numpy_array_is_named():
    def my_attention(q, k, v, mask=None):
        out, w = _att17(q, k, v, mask)
        return out.detach().numpy(), w
    assert_rejects(check_attention, my_attention, says=r"no mask: returned a ndarray and a Tensor: return two tensors, \(output, weights\)")


# ---------------------------------------------------------------- the twenty-first blind set's misses
from transformer_nb.course.attention import check_attention as _t21_check_attention, check_restricted as _t21_check_restricted
from nbtools import assert_rejects as _t21_rejects

_T21_PRELUDE = ''   # the names the exercise's cell sees
_T21 = {   # label: (the exercise's function, the answer's code, what its message must say)
    'd_k ** (1 // 2): integer division, the exponent 0 (no scale)': ('my_attention', "\ndef my_attention(q, k, v, mask=None):\n    s = q @ k.transpose(-2, -1) / q.shape[-1] ** (1 // 2)\n    if mask is not None: s = s.masked_fill(~mask, float('-inf'))\n    w = s.softmax(dim=-1)\n    if mask is not None: w = w.masked_fill(~mask, 0.0)\n    return w @ v, w",
        'd_k \\*\\* \\(1 // 2\\) is 1'),
    'attention dropout F.dropout(w, 0.1) (training=True by default)': ('my_attention', "\ndef my_attention(q, k, v, mask=None):\n    s = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])\n    if mask is not None: s = s.masked_fill(~mask, float('-inf'))\n    w = s.softmax(dim=-1)\n    if mask is not None: w = w.masked_fill(~mask, 0.0)\n    w = F.dropout(w, 0.1)\n    return w @ v, w",
        'two calls on the same q, k, v gave different weights'),
    'grad mode switched off globally (torch.set_grad_enabled(False))': ('my_attention', "\ndef my_attention(q, k, v, mask=None):\n    torch.set_grad_enabled(False)\n    s = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])\n    if mask is not None: s = s.masked_fill(~mask, float('-inf'))\n    w = s.softmax(dim=-1)\n    if mask is not None: w = w.masked_fill(~mask, 0.0)\n    return w @ v, w",
        'my_attention turned autograd off for everything after the call'),
    'triu and tril bounds swapped: ones.triu(w).tril(-w)': ('restricted_mask', '\ndef restricted_mask(n, r):\n    w = r // 2\n    return torch.ones(n, n, dtype=torch.bool).triu(w).tril(-w)[None, None]',
        '\\(ones\\.triu\\(1\\)\\.tril\\(\\-1\\) keeps nothing'),
    'diagonals range(-w, w): the last one missed (an exclusive stop)': ('restricted_mask', '\ndef restricted_mask(n, r):\n    w, m = r // 2, torch.zeros(n, n, dtype=torch.bool)\n    for o in range(-w, w): m |= torch.ones(n - abs(o), dtype=torch.bool).diag(o) if abs(o) < n else False\n    return m[None, None]',
        'your band stops one key short on one side'),
}

@pytest.mark.parametrize('label', list(_T21))
def test_the_twenty_first_sets_misses_are_named(label):
    import math, torch, torch.nn as nn, torch.nn.functional as F
    fn, src, says = _T21[label]
    ns = dict(math=math, torch=torch, nn=nn, F=F)
    exec(_T21_PRELUDE, ns); exec(src, ns)
    check = {'my_attention': _t21_check_attention, 'restricted_mask': _t21_check_restricted}[fn]
    dtype, grad = torch.get_default_dtype(), torch.is_grad_enabled()
    try: _t21_rejects(check, ns[fn], says=says)
    finally: torch.set_default_dtype(dtype); torch.set_grad_enabled(grad)   # an answer that changes them must not change the next test


# ---------------------------------------------------------------- the twenty-third blind set's misses
from transformer_nb.course.attention import check_attention as _t23_check_attention
from nbtools import assert_rejects as _t23_rejects

_T23_PRELUDE = ''   # the names the exercise's cell sees
_T23 = {   # label: (the exercise's function, the answer's code, what its message must say)
    'the scores detached: no gradient to q and k': ('my_attention', "\ndef my_attention(q, k, v, mask=None):\n    s = (q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])).detach()\n    if mask is not None: s = s.masked_fill(~mask, float('-inf'))\n    w = s.softmax(dim=-1)\n    if mask is not None: w = w.masked_fill(~mask, 0.0)\n    return w @ v, w",
        'no\\ gradient\\ reaches\\ q\\ and\\ k\\ through\\ your\\ output'),
    'NumPy arrays returned (the math done in NumPy)': ('my_attention', '\nimport numpy as np\ndef my_attention(q, k, v, mask=None):\n    q, k, v = q.detach().numpy(), k.detach().numpy(), v.detach().numpy()\n    s = q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1])\n    if mask is not None: s = np.where(mask.numpy(), s, -np.inf)\n    e = np.exp(s - s.max(-1, keepdims=True))\n    w = e / e.sum(-1, keepdims=True)\n    if mask is not None: w = np.nan_to_num(np.where(mask.numpy(), w, 0.0))\n    return w @ v, w',
        'returned\\ a\\ ndarray\\ and\\ a\\ ndarray:\\ return\\ two\\ tensors'),
}

@pytest.mark.parametrize('label', list(_T23))
def test_the_twenty_third_sets_misses_are_named(label):
    import math, torch, torch.nn as nn, torch.nn.functional as F
    fn, src, says = _T23[label]
    ns = dict(math=math, torch=torch, nn=nn, F=F)
    exec(_T23_PRELUDE, ns); exec(src, ns)
    check = {'my_attention': _t23_check_attention}[fn]
    dtype, grad = torch.get_default_dtype(), torch.is_grad_enabled()
    try: _t23_rejects(check, ns[fn], says=says)
    finally: torch.set_default_dtype(dtype); torch.set_grad_enabled(grad)   # an answer that changes them must not change the next test


# ---------------------------------------------------------------- the twenty-fourth blind set's misses
from transformer_nb.course.attention import check_attention as _t24_check_attention, check_restricted as _t24_check_restricted
from nbtools import assert_rejects as _t24_rejects

_T24_PRELUDE = 'import math, copy, random, torch, torch.nn as nn, torch.nn.functional as F\nfrom collections import Counter\nfrom transformer_nb.core import *\nfrom transformer_nb.attention import *'   # the names the exercise's cell sees
_T24 = {   # label: (the exercise, the answer's code, what its message must say)
    "einsum 'bhqd,bhkd->bhqk': 4-d inputs only": ('attention', "\ndef my_attention(q, k, v, mask=None):\n    s = torch.einsum('bhqd,bhkd->bhqk', q, k) / math.sqrt(q.shape[-1])\n    if mask is not None: s = s.masked_fill(~mask, float('-inf'))\n    w = s.softmax(dim=-1)\n    if mask is not None: w = w.masked_fill(~mask, 0.0)\n    return torch.einsum('bhqk,bhkd->bhqd', w, v), w",
        'q, k, v of three axes \\(B, n, d\\): raised RuntimeError .*an einsum written for four'),
    'an even r refused (assert r % 2 == 1)': ('restricted_mask', "\ndef restricted_mask(n, r):\n    assert r % 2 == 1, 'r must be odd'\n    i = torch.arange(n)\n    return ((i[:, None] - i[None, :]).abs() <= r // 2)[None, None]",
        'restricted_mask\\(6, 4\\) raised AssertionError \\(r must be odd\\): an assert of your own refused n=6, r=4; an even r is allowed too'),
    'positions as uint8 (a C unsigned index): i - j wraps around': ('restricted_mask', '\ndef restricted_mask(n, r):\n    i = torch.arange(n, dtype=torch.uint8)\n    return ((i[:, None] - i[None, :]) <= r // 2)[None, None]',
        'your mask is not symmetric .*: it looks back only, .*an unsigned dtype such as torch.uint8'),
}

@pytest.mark.parametrize('label', list(_T24))
def test_the_twenty_fourth_sets_misses_are_named(label):
    import torch
    ex, src, says = _T24[label]
    ns = {}
    exec(_T24_PRELUDE, ns); exec(src, ns)
    run = {'attention': lambda ns: _t24_check_attention(ns['my_attention']), 'restricted_mask': lambda ns: _t24_check_restricted(ns['restricted_mask'])}[ex]
    dtype, grad = torch.get_default_dtype(), torch.is_grad_enabled()
    try: _t24_rejects(lambda: run(ns), says=says)
    finally: torch.set_default_dtype(dtype); torch.set_grad_enabled(grad)   # an answer that changes them must not change the next test


# ---------------------------------------------------------------- the twenty-sixth blind set's misses
from nbtools import assert_rejects as _t26_rejects

_T26_PRELUDE = 'import math, copy, random, torch, torch.nn as nn, torch.nn.functional as F\nfrom collections import Counter\nfrom transformer_nb.core import *\nfrom transformer_nb.attention import *\nfrom transformer_nb.course.attention import check_attention, check_restricted'   # the names the exercise's cell sees
_T26 = {   # label: (the exercise, the answer's code, what its message must say)
    'scaled by sqrt(q.shape[1]): axis 1, not the last': ('attention', "\ndef my_attention(q, k, v, mask=None):\n    s = q @ k.transpose(-2, -1) / math.sqrt(q.shape[1])\n    if mask is not None: s = s.masked_fill(~mask, float('-inf'))\n    w = s.softmax(dim=-1)\n    if mask is not None: w = w.masked_fill(~mask, 0.0)\n    return w @ v, w",
        '1/sqrt\\(q\\.shape\\[1\\]\\) = 1/sqrt\\(3\\), not the last axis, d_k'),
    'the weights transposed before the values (w.mT @ v): right only when n_q = n_k': ('attention', "\ndef my_attention(q, k, v, mask=None):\n    s = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])\n    if mask is not None: s = s.masked_fill(~mask, float('-inf'))\n    w = s.softmax(dim=-1)\n    if mask is not None: w = w.masked_fill(~mask, 0.0)\n    return w.transpose(-2, -1) @ v, w",
        'and runs when n_q = n_k: the weights are \\(\\.\\.\\., n_q, n_k\\)'),
    'the inverted mask cached by its shape (state kept between calls): a later mask of that shape ignored': ('attention', "\n_inverse = {}\ndef my_attention(q, k, v, mask=None):\n    s = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])\n    if mask is not None:\n        off = _inverse.setdefault(tuple(mask.shape), ~mask)\n        s = s.masked_fill(off, float('-inf'))\n    w = s.softmax(dim=-1)\n    if mask is not None: w = w.masked_fill(off, 0.0)\n    return w @ v, w",
        "not the weights of an earlier call's mask of the same shape \\(4, 6\\)"),
}

@pytest.mark.parametrize('label', list(_T26))
def test_the_twenty_sixth_sets_misses_are_named(label):
    import torch
    ex, src, says = _T26[label]
    ns = {}
    exec(_T26_PRELUDE, ns); exec(src, ns)
    calls = {'attention': 'check_attention(my_attention)'}
    dtype, grad = torch.get_default_dtype(), torch.is_grad_enabled()
    try: _t26_rejects(lambda: eval(calls[ex], ns), says=says)
    finally: torch.set_default_dtype(dtype); torch.set_grad_enabled(grad)   # an answer that changes them must not change the next test


# ---------------------------------------------------------------- the twenty-eighth blind set's misses
from nbtools import assert_rejects as _t28_rejects

_T28_PRELUDE = 'import math, copy, random, torch, torch.nn as nn, torch.nn.functional as F\nfrom collections import Counter\nfrom transformer_nb.core import *\nfrom transformer_nb.attention import *\nfrom transformer_nb.course.attention import check_attention, check_restricted'   # the names the exercise's cell sees
_T28 = {   # label: (the exercise, the answer's code, what its message must say)
    'softmax(dim=2): the key axis of 3-d inputs only': ('attention', "\ndef my_attention(q, k, v, mask=None):\n    s = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])\n    if mask is not None: s = s.masked_fill(~mask, float('-inf'))\n    w = s.softmax(dim=2)\n    if mask is not None: w = w.masked_fill(~mask, 0.0)\n    return w @ v, w",
        'an axis counted from the front'),
    'the NaN rows zeroed in place on the softmax output (w[w.isnan()] = 0): backward fails': ('attention', "\ndef my_attention(q, k, v, mask=None):\n    s = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])\n    if mask is not None: s = s.masked_fill(~mask, float('-inf'))\n    w = s.softmax(dim=-1)\n    w[w.isnan()] = 0.0\n    return w @ v, w",
        'the backward pass fails: a tensor autograd kept for it was edited in place'),
    'the output from the keys (w @ k), not the values': ('attention', "\ndef my_attention(q, k, v, mask=None):\n    s = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])\n    if mask is not None: s = s.masked_fill(~mask, float('-inf'))\n    w = s.softmax(dim=-1)\n    if mask is not None: w = w.masked_fill(~mask, 0.0)\n    return w @ k, w",
        "the output has d_k = 8 features, the keys' size"),
    'if mask: (the truth of a tensor)': ('attention', "\ndef my_attention(q, k, v, mask=None):\n    s = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])\n    if mask: s = s.masked_fill(~mask, float('-inf'))\n    w = s.softmax(dim=-1)\n    if mask is not None: w = w.masked_fill(~mask, 0.0)\n    return w @ v, w",
        'a tensor was used as True or False, as in `if mask:`'),
    'the mask transposed (its last two axes swapped): a padding mask hides queries': ('attention', "\ndef my_attention(q, k, v, mask=None):\n    s = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])\n    if mask is not None: mask = mask.transpose(-2, -1); s = s.masked_fill(~mask, float('-inf'))\n    w = s.softmax(dim=-1)\n    if mask is not None: w = w.masked_fill(~mask, 0.0)\n    return w @ v, w",
        "your code swaps the mask's last two axes"),
    "the softmax in float32 (s.float()), cast back to the inputs' dtype": ('attention', "\ndef my_attention(q, k, v, mask=None):\n    s = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])\n    if mask is not None: s = s.masked_fill(~mask, float('-inf'))\n    w = s.float().softmax(dim=-1).to(s.dtype)\n    if mask is not None: w = w.masked_fill(~mask, 0.0)\n    return w @ v, w",
        'your weights are float32 numbers in a float64 tensor'),
    'max_pool1d of the identity with kernel r: right for an odd r only': ('restricted_mask', '\ndef restricted_mask(n, r):\n    return F.max_pool1d(torch.eye(n)[None], r, 1, r // 2)[0].bool()[None, None]',
        'for an even r your mask has n \\+ 1 columns'),
}

@pytest.mark.parametrize('label', list(_T28))
def test_the_twenty_eighth_sets_misses_are_named(label):
    import torch
    ex, src, says = _T28[label]
    ns = {}
    exec(_T28_PRELUDE, ns); exec(src, ns)
    calls = {'attention': 'check_attention(my_attention)', 'restricted_mask': 'check_restricted(restricted_mask)'}
    dtype, grad = torch.get_default_dtype(), torch.is_grad_enabled()
    try: _t28_rejects(lambda: eval(calls[ex], ns), says=says)
    finally: torch.set_default_dtype(dtype); torch.set_grad_enabled(grad)   # an answer that changes them must not change the next test

# ---------------------------------------------------------------- the thirty-second blind set's misses, and another learner's variant of each
from nbtools import assert_rejects as _t32_rejects

_T32_PRELUDE = 'import math, copy, random, torch, torch.nn as nn, torch.nn.functional as F\nfrom collections import Counter\nfrom transformer_nb.core import *\nfrom transformer_nb.attention import *\nfrom transformer_nb.course.attention import check_attention, check_restricted'   # the names the exercise's cell sees
_T32 = {   # label: (the exercise, the answer's code, what its message must say)
    'softmax over every key, then masked and renormalised': ('attention', '\ndef my_attention(q, k, v, mask=None):\n    w = (q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])).softmax(dim=-1)\n    if mask is not None:\n        w = w * mask\n        w = w / w.sum(-1, keepdim=True).clamp_min(1e-12)\n    return w @ v, w',
        'the\\ softmax\\ ran\\ over\\ every\\ key\\ and\\ the\\ mask\\ came\\ after\\ it'),
    'variant: softmax times the mask, over its sum, NaN to 0': ('attention', '\ndef my_attention(q, k, v, mask=None):\n    w = F.softmax(q @ k.mT / q.shape[-1] ** 0.5, dim=-1)\n    if mask is not None: w = w * mask.float(); w = (w / w.sum(-1, keepdim=True)).nan_to_num(0.0)\n    return w @ v, w',
        'the\\ softmax\\ ran\\ over\\ every\\ key\\ and\\ the\\ mask\\ came\\ after\\ it'),
    '-1e9 fill, empty rows zeroed by mask.any': ('attention', '\ndef my_attention(q, k, v, mask=None):\n    s = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])\n    if mask is None: w = s.softmax(dim=-1)\n    else: w = s.masked_fill(~mask, -1e9).softmax(dim=-1) * mask.any(-1, keepdim=True)\n    return w @ v, w',
        "a\\ finite\\ fill\\ \\(\\-1e9,\\ \\-1e4,\\ or\\ a\\ dtype's\\ min\\ halved\\)\\ is\\ not\\ below\\ every\\ score"),
    'variant: -1e4 fill, masked weights zeroed after': ('attention', '\ndef my_attention(q, k, v, mask=None):\n    s = q @ k.mT / math.sqrt(q.shape[-1])\n    if mask is not None: s = s.masked_fill(~mask, -1e4)\n    w = s.softmax(-1)\n    if mask is not None: w = w.masked_fill(~mask, 0.0)\n    return w @ v, w',
        "a\\ finite\\ fill\\ \\(\\-1e9,\\ \\-1e4,\\ or\\ a\\ dtype's\\ min\\ halved\\)\\ is\\ not\\ below\\ every\\ score"),
    'computed and returned in float64': ('attention', "\ndef my_attention(q, k, v, mask=None):\n    s = q.double() @ k.double().transpose(-2, -1) / math.sqrt(q.shape[-1])\n    if mask is not None: s = s.masked_fill(~mask, float('-inf'))\n    w = s.softmax(dim=-1)\n    if mask is not None: w = w.masked_fill(~mask, 0.0)\n    return w @ v.double(), w",
        "float32\\ q,\\ k,\\ v\\ gave\\ the\\ output\\ in\\ torch\\.float64\\ and\\ the\\ weights\\ in\\ torch\\.float64:\\ compute\\ in\\ the\\ inputs'\\ dtype"),
    'variant: the weights alone in float64': ('attention', "\ndef my_attention(q, k, v, mask=None):\n    s = (q @ k.mT).double() / math.sqrt(q.shape[-1])\n    if mask is not None: s = s.masked_fill(~mask, float('-inf'))\n    w = s.softmax(-1)\n    if mask is not None: w = w.masked_fill(~mask, 0.0)\n    return (w @ v.double()).to(q.dtype), w",
        'float32\\ q,\\ k,\\ v\\ gave\\ the\\ weights\\ in\\ torch\\.float64'),
    'a softmax by hand over its sum plus 1e-9': ('attention', "\ndef my_attention(q, k, v, mask=None):\n    s = q @ k.mT / math.sqrt(q.shape[-1])\n    if mask is not None: s = s.masked_fill(~mask, float('-inf'))\n    e = (s - s.amax(-1, keepdim=True)).exp().nan_to_num(0.0)\n    w = e / (e.sum(-1, keepdim=True) + 1e-9)\n    return w @ v, w",
        'a\\ small\\ constant\\ added\\ to\\ the\\ sum\\ you\\ divide\\ by'),
    'arange in int8': ('restricted_mask', '\ndef restricted_mask(n, r):\n    i = torch.arange(n, dtype=torch.int8)\n    return ((i[:, None] - i[None, :]).abs() <= r // 2)[None, None]',
        'wrong\\ past\\ 127:\\ the\\ positions\\ overflow\\ a\\ small\\ integer\\ dtype'),
    'variant: positions in int16 squared': ('restricted_mask', '\ndef restricted_mask(n, r):\n    i = torch.arange(n, dtype=torch.int16)\n    return ((i[:, None] - i[None, :]) ** 2 <= (r // 2) ** 2)[None, None]',
        'the\\ positions\\ overflow\\ a\\ small\\ integer\\ dtype'),
    'a mask cached by n': ('restricted_mask', '\ndef restricted_mask(n, r, _cache={}):\n    if n not in _cache:\n        i = torch.arange(n)\n        _cache[n] = ((i[:, None] - i[None, :]).abs() <= r // 2)[None, None]\n    return _cache[n]',
        'your\\ function\\ keeps\\ a\\ mask\\ between\\ calls\\ \\(a\\ cache\\ keyed\\ by\\ n\\ alone'),
    'variant: a mask cached by r': ('restricted_mask', '\n_masks = {}\ndef restricted_mask(n, r):\n    if r not in _masks:\n        i = torch.arange(n)\n        _masks[r] = ((i[:, None] - i[None, :]).abs() <= r // 2)[None, None]\n    return _masks[r]',
        'your\\ function\\ keeps\\ a\\ mask\\ between\\ calls\\ \\(a\\ cache\\ keyed\\ by\\ r\\ alone'),
}

@pytest.mark.parametrize('label', list(_T32))
def test_the_thirty_second_sets_misses_are_named(label):
    import torch
    ex, src, says = _T32[label]
    ns = {}
    exec(_T32_PRELUDE, ns); exec(src, ns)
    calls = {'attention': 'check_attention(my_attention)', 'restricted_mask': 'check_restricted(restricted_mask)'}
    dtype, grad = torch.get_default_dtype(), torch.is_grad_enabled()
    try: _t32_rejects(lambda: eval(calls[ex], ns), says=says)
    finally: torch.set_default_dtype(dtype); torch.set_grad_enabled(grad)   # an answer that changes them must not change the next test

def test_a_rounding_that_maps_two_rs_to_one_band_is_not_called_a_cache():
    "round(r / 2) gives r = 3 and r = 5 the same half-width 2 (banker's rounding): the same mask for two r's, from a function that keeps nothing."
    def restricted_mask(n, r):
        i = torch.arange(n)
        return ((i[None] - i[:, None]).abs() <= round(r / 2))[None, None]
    assert_rejects(check_restricted, restricted_mask, says=r'half-width .*the paper\'s is r // 2')

# ---------------------------------------------------------------- the thirty-sixth blind set's misses, and another learner's variant of each
from nbtools import assert_rejects as _t36_rejects

_T36_PRELUDE = _T32_PRELUDE   # the names the exercise's cell sees
_T36 = {   # label: (the exercise, the answer's code, what its message must say)
    'the zero fill keyed on mask.all, not mask.any: every row with a masked key zeroed': ('attention', "\ndef my_attention(q, k, v, mask=None):\n    s = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])\n    if mask is not None: s = s.masked_fill(~mask, float('-inf'))\n    w = s.softmax(-1)\n    if mask is not None: w = w.masked_fill(~mask.all(-1, keepdim=True), 0.0)   # the rows with nothing to see\n    return w @ v, w\n",
        'every\\ query\\ with\\ a\\ masked\\ key\\ got\\ zero\\ weights,\\ not\\ only\\ those\\ with\\ no\\ allowed\\ key'),
    'variant: torch.where(mask.all(-1, keepdim=True), w, 0)': ('attention', "\ndef my_attention(q, k, v, mask=None):\n    s = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])\n    if mask is not None: s = s.masked_fill(~mask, float('-inf'))\n    w = s.softmax(-1)\n    if mask is not None: w = torch.where(mask.all(-1, keepdim=True), w, 0.0)\n    return w @ v, w",
        'every\\ query\\ with\\ a\\ masked\\ key\\ got\\ zero\\ weights,\\ not\\ only\\ those\\ with\\ no\\ allowed\\ key'),
    'the output taken before the zero fill: a fully masked query gets NaN outputs, zero weights': ('attention', "\ndef my_attention(q, k, v, mask=None):\n    s = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])\n    if mask is not None: s = s.masked_fill(~mask, float('-inf'))\n    w = s.softmax(-1)\n    out = w @ v\n    if mask is not None: w = w.masked_fill(~mask, 0.0)\n    return out, w\n",
        'your\\ weights\\ there\\ are\\ zeros\\ and\\ the\\ output\\ is\\ NaN:\\ it\\ was\\ taken,\\ w\\ @\\ v,\\ before'),
    'variant: the NaN weights cleaned by nan_to_num after w @ v': ('attention', "\ndef my_attention(q, k, v, mask=None):\n    s = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])\n    if mask is not None: s = s.masked_fill(~mask, float('-inf'))\n    w = s.softmax(-1); out = w @ v\n    return out, torch.nan_to_num(w)",
        'your\\ weights\\ there\\ are\\ zeros\\ and\\ the\\ output\\ is\\ NaN'),
    'cosine attention: q and k L2-normalised (Swin v2), no 1/sqrt(d_k)': ('attention', "\ndef my_attention(q, k, v, mask=None):\n    s = F.normalize(q, dim=-1) @ F.normalize(k, dim=-1).transpose(-2, -1)   # the scores bounded in [-1, 1]\n    if mask is not None: s = s.masked_fill(~mask, float('-inf'))\n    w = s.softmax(-1)\n    if mask is not None: w = w.masked_fill(~mask, 0.0)\n    return w @ v, w\n",
        'your\\ scores\\ are\\ cosine\\ similarities:'),
    'variant: q and k divided by their norms, then by sqrt(d_k)': ('attention', "\ndef my_attention(q, k, v, mask=None):\n    q, k = q / q.norm(dim=-1, keepdim=True), k / k.norm(dim=-1, keepdim=True)\n    s = q @ k.mT / math.sqrt(q.shape[-1])\n    if mask is not None: s = s.masked_fill(~mask, float('-inf'))\n    w = s.softmax(-1).nan_to_num(0.0)\n    return w @ v, w",
        'your\\ scores\\ are\\ cosine\\ similarities\\ divided\\ by\\ sqrt\\(d_k\\)'),
    'the scale computed on the first call and kept (a global): a later d_k scaled by the first': ('attention', "\n_scale = None\ndef my_attention(q, k, v, mask=None):\n    global _scale\n    if _scale is None: _scale = 1 / math.sqrt(q.shape[-1])     # computed once\n    s = q @ k.transpose(-2, -1) * _scale\n    if mask is not None: s = s.masked_fill(~mask, float('-inf'))\n    w = s.softmax(-1)\n    if mask is not None: w = w.masked_fill(~mask, 0.0)\n    return w @ v, w\n",
        "are\\ scaled\\ by\\ 1/sqrt\\(8\\),\\ the\\ earlier\\ calls'\\ d_k"),
    'variant: the scale kept in a mutable default': ('attention', "\ndef my_attention(q, k, v, mask=None, _scale=[]):\n    if not _scale: _scale.append(q.shape[-1] ** -0.5)\n    s = q @ k.mT * _scale[0]\n    if mask is not None: s = s.masked_fill(~mask, float('-inf'))\n    w = s.softmax(-1)\n    if mask is not None: w = w.masked_fill(~mask, 0.0)\n    return w @ v, w",
        "are\\ scaled\\ by\\ 1/sqrt\\(8\\),\\ the\\ earlier\\ calls'\\ d_k"),
    'mask without its default (def my_attention(q, k, v, mask))': ('attention', "\ndef my_attention(q, k, v, mask):\n    s = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])\n    if mask is not None: s = s.masked_fill(~mask, float('-inf'))\n    w = s.softmax(-1)\n    if mask is not None: w = w.masked_fill(~mask, 0.0)\n    return w @ v, w\n",
        'with\\ no\\ mask,\\ raised\\ TypeError'),
    'variant: the mask required, a keyword after it': ('attention', "\ndef my_attention(q, k, v, mask, *, scale=None):\n    s = q @ k.mT * (q.shape[-1] ** -0.5 if scale is None else scale)\n    if mask is not None: s = s.masked_fill(~mask, float('-inf'))\n    w = s.softmax(-1)\n    if mask is not None: w = w.masked_fill(~mask, 0.0)\n    return w @ v, w",
        'the\\ mask\\ is\\ optional,\\ give\\ it\\ a\\ default:\\ def\\ my_attention\\(q,\\ k,\\ v,\\ mask=None\\)'),
    'sqrt(d_k) taken as a float32 tensor: float64 scores divided by a rounded scale': ('attention', "\ndef my_attention(q, k, v, mask=None):\n    s = q @ k.transpose(-2, -1) / torch.sqrt(torch.tensor(q.shape[-1], dtype=torch.float32))\n    if mask is not None: s = s.masked_fill(~mask, float('-inf'))\n    w = s.softmax(-1)\n    if mask is not None: w = w.masked_fill(~mask, 0.0)\n    return w @ v, w\n",
        'sqrt\\(d_k\\)\\ was\\ taken\\ in\\ float32'),
    'variant: torch.rsqrt of a float32 d_k': ('attention', "\ndef my_attention(q, k, v, mask=None):\n    s = q @ k.mT * torch.rsqrt(torch.tensor(float(q.shape[-1])))\n    if mask is not None: s = s.masked_fill(~mask, float('-inf'))\n    w = s.softmax(-1)\n    if mask is not None: w = w.masked_fill(~mask, 0.0)\n    return w @ v, w",
        'sqrt\\(d_k\\)\\ was\\ taken\\ in\\ float32'),
    'mask=None replaced by torch.ones_like(scores): a float mask that ~ refuses': ('attention', "\ndef my_attention(q, k, v, mask=None):\n    s = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])\n    if mask is None: mask = torch.ones_like(s)       # no mask: every key allowed\n    s = s.masked_fill(~mask, float('-inf'))\n    w = s.softmax(-1).masked_fill(~mask, 0.0)\n    return w @ v, w\n",
        'with\\ no\\ mask\\ \\(mask=None\\)\\ your\\ function\\ raised\\ TypeError'),
    'variant: mask=None replaced by torch.ones of the last two sizes': ('attention', "\ndef my_attention(q, k, v, mask=None):\n    s = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])\n    if mask is None: mask = torch.ones(s.shape[-2:])\n    s = s.masked_fill(~mask, float('-inf'))\n    w = s.softmax(-1).masked_fill(~mask, 0.0)\n    return w @ v, w",
        'with\\ no\\ mask\\ \\(mask=None\\)\\ your\\ function\\ raised\\ TypeError'),
    'the mask inverted with 1 - mask (a bool tensor refuses -)': ('attention', "\ndef my_attention(q, k, v, mask=None):\n    s = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])\n    if mask is not None: s = s.masked_fill(1 - mask, float('-inf'))\n    w = s.softmax(-1)\n    if mask is not None: w = w.masked_fill(1 - mask, 0.0)\n    return w @ v, w\n",
        'a\\ bool\\ mask\\ refuses\\ arithmetic,\\ 1\\ \\-\\ mask\\ or\\ \\-mask;\\ invert\\ it\\ with\\ \\~mask'),
    'variant: the mask negated with -mask': ('attention', "\ndef my_attention(q, k, v, mask=None):\n    s = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])\n    if mask is not None: s = s.masked_fill(-mask, float('-inf'))\n    w = s.softmax(-1).nan_to_num(0.0)\n    return w @ v, w",
        'a\\ bool\\ mask\\ refuses\\ arithmetic,\\ 1\\ \\-\\ mask\\ or\\ \\-mask;\\ invert\\ it\\ with\\ \\~mask'),
    'scores against the values (q v^T), the keys unused': ('attention', "\ndef my_attention(q, k, v, mask=None):\n    s = q @ v.transpose(-2, -1) / math.sqrt(q.shape[-1])\n    if mask is not None: s = s.masked_fill(~mask, float('-inf'))\n    w = s.softmax(-1)\n    if mask is not None: w = w.masked_fill(~mask, 0.0)\n    return w @ v, w\n",
        "your\\ scores\\ take\\ the\\ values\\ in\\ the\\ keys'\\ place"),
    'variant: the keys and the values swapped': ('attention', "\ndef my_attention(q, k, v, mask=None):\n    s = q @ v.mT / math.sqrt(q.shape[-1])\n    if mask is not None: s = s.masked_fill(~mask, float('-inf'))\n    w = s.softmax(-1).nan_to_num(0.0)\n    return w @ k, w",
        "your\\ scores\\ take\\ the\\ values\\ in\\ the\\ keys'\\ place"),
    'the scores floor-divided (//) by sqrt(d_k)': ('attention', "\ndef my_attention(q, k, v, mask=None):\n    s = q @ k.transpose(-2, -1) // math.sqrt(q.shape[-1])\n    if mask is not None: s = s.masked_fill(~mask, float('-inf'))\n    w = s.softmax(-1)\n    if mask is not None: w = w.masked_fill(~mask, 0.0)\n    return w @ v, w\n",
        'your\\ scores\\ are\\ whole\\ numbers,\\ q\\ k\\^T\\ /\\ sqrt\\(d_k\\)\\ rounded\\ down'),
    "variant: torch.div with rounding_mode='floor'": ('attention', "\ndef my_attention(q, k, v, mask=None):\n    s = torch.div(q @ k.mT, math.sqrt(q.shape[-1]), rounding_mode='floor')\n    if mask is not None: s = s.masked_fill(~mask, float('-inf'))\n    w = s.softmax(-1).nan_to_num(0.0)\n    return w @ v, w",
        'your\\ scores\\ are\\ whole\\ numbers,\\ q\\ k\\^T\\ /\\ sqrt\\(d_k\\)\\ rounded\\ down'),
    "keys equal to the zero vector masked as padding (Keras's Masking(mask_value=0.))": ('attention', "\ndef my_attention(q, k, v, mask=None):\n    s = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])\n    real = (k != 0).any(-1)[..., None, :]              # a pad key is all zeros\n    mask = real if mask is None else mask & real\n    s = s.masked_fill(~mask, float('-inf'))\n    w = s.softmax(-1).masked_fill(~mask, 0.0)\n    return w @ v, w\n",
        'your\\ code\\ takes\\ zero\\ vectors\\ for\\ padding'),
    'variant: keys whose absolute sum is 0 hidden': ('attention', "\ndef my_attention(q, k, v, mask=None):\n    s = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])\n    hide = (k.abs().sum(-1) == 0)[..., None, :]\n    if mask is not None: hide = hide | ~mask\n    w = s.masked_fill(hide, float('-inf')).softmax(-1).nan_to_num(0.0)\n    return w @ v, w",
        'your\\ code\\ takes\\ zero\\ vectors\\ for\\ padding'),
    'rows filled by slices m[i, i - w : i + w + 1]: a negative start wraps, the first rows empty': ('restricted_mask', '\ndef restricted_mask(n, r):\n    w = r // 2\n    m = torch.zeros(n, n, dtype=torch.bool)\n    for i in range(n): m[i, i - w : i + w + 1] = True\n    return m[None, None]\n',
        'for\\ the\\ first\\ queries\\ your\\ rows\\ are\\ empty\\ or\\ cut\\ short'),
    'variant: Python lists filled by slices': ('restricted_mask', '\ndef restricted_mask(n, r):\n    w, rows = r // 2, [[False] * n for _ in range(n)]\n    for i in range(n):\n        part = rows[i][i - w:i + w + 1]\n        rows[i][i - w:i + w + 1] = [True] * len(part)\n    return torch.tensor(rows)[None, None]',
        'for\\ the\\ first\\ queries\\ your\\ rows\\ are\\ empty\\ or\\ cut\\ short'),
    'the left end clamped at 1, not 0 (a 1-based habit): key 0 seen by no query but itself': ('restricted_mask', '\ndef restricted_mask(n, r):\n    w = r // 2\n    m = torch.zeros(n, n, dtype=torch.bool)\n    for i in range(n):\n        m[i, i] = True\n        for j in range(max(1, i - w), min(n, i + w + 1)): m[i, j] = True\n    return m[None, None]\n',
        'key\\ 0\\ is\\ seen\\ by\\ query\\ 0\\ alone'),
    'variant: the band with key 0 allowed to query 0 alone': ('restricted_mask', '\ndef restricted_mask(n, r):\n    i = torch.arange(n)\n    d = (i[:, None] - i[None, :]).abs()\n    return ((d <= r // 2) & ((i[None, :] >= 1) | (d == 0)))[None, None]',
        'key\\ 0\\ is\\ seen\\ by\\ query\\ 0\\ alone'),
    "a global first token (Longformer's): position 0 sees and is seen by every position": ('restricted_mask', '\ndef restricted_mask(n, r):\n    i = torch.arange(n)\n    m = (i[:, None] - i[None, :]).abs() <= r // 2\n    m[0, :] = True; m[:, 0] = True            # the first token attends globally\n    return m[None, None]\n',
        'a\\ global\\ first\\ token'),
    'variant: the first row and column or-ed in': ('restricted_mask', '\ndef restricted_mask(n, r):\n    i = torch.arange(n)\n    first = (i[:, None] == 0) | (i[None, :] == 0)\n    return (((i[:, None] - i[None, :]).abs() <= r // 2) | first)[None, None]',
        'a\\ global\\ first\\ token'),
    'the band summed from diag(k) for |k| <= r // 2: fails once r // 2 passes n': ('restricted_mask', '\ndef restricted_mask(n, r):\n    w = r // 2\n    m = sum(torch.ones(n - abs(k)).diag(k) for k in range(-w, w + 1))\n    return (m > 0)[None, None]\n',
        'r\\ may\\ be\\ larger\\ than\\ the\\ sentence'),
    'variant: a loop adding torch.diag of ones': ('restricted_mask', '\ndef restricted_mask(n, r):\n    m = torch.zeros(n, n)\n    for k in range(-(r // 2), r // 2 + 1): m += torch.diag(torch.ones(n - abs(k)), k)\n    return (m > 0)[None, None]',
        'r\\ may\\ be\\ larger\\ than\\ the\\ sentence'),
    "the two bounds joined with an unbracketed &: Python's precedence makes a chained comparison": ('restricted_mask', '\ndef restricted_mask(n, r):\n    i = torch.arange(n)\n    d = i[:, None] - i[None, :]\n    return (d <= r // 2 & -d <= r // 2)[None, None]\n',
        'a\\ chained\\ comparison\\ such\\ as\\ d\\ <=\\ w\\ \\&\\ \\-d\\ <=\\ w'),
    'variant: the two bounds joined with and': ('restricted_mask', '\ndef restricted_mask(n, r):\n    i = torch.arange(n)\n    d = i[:, None] - i[None, :]\n    return ((d <= r // 2) and (-d <= r // 2))[None, None]',
        '`and`/`or`\\ between\\ tensors'),
}

@pytest.mark.parametrize('label', list(_T36))
def test_the_thirty_sixth_sets_misses_are_named(label):
    import torch
    ex, src, says = _T36[label]
    ns = {}
    exec(_T36_PRELUDE, ns); exec(src, ns)
    calls = {'attention': 'check_attention(my_attention)', 'restricted_mask': 'check_restricted(restricted_mask)'}
    dtype, grad = torch.get_default_dtype(), torch.is_grad_enabled()
    try: _t36_rejects(lambda: eval(calls[ex], ns), says=says)
    finally: torch.set_default_dtype(dtype); torch.set_grad_enabled(grad)   # an answer that changes them must not change the next test


# ---------------------------------------------------------------- the comparisons' tolerance: attention's own rounding, on any CPU
def summed_backwards(q, k, v, mask=None):
    "A right answer that adds in another order than PyTorch's kernels: each score from the last feature to the first, the softmax's sum and the weighted sum from the last key."
    s = (q[..., :, None, :] * k[..., None, :, :]).flip(-1).cumsum(-1)[..., -1] / q.shape[-1] ** 0.5
    if mask is not None: s = s.masked_fill(~mask, float('-inf'))
    e = (s - s.amax(-1, keepdim=True)).exp().nan_to_num(0.0)
    w = (e / e.flip(-1).cumsum(-1)[..., -1:]).nan_to_num(0.0)
    return (w[..., :, :, None] * v[..., None, :, :]).flip(-2).cumsum(-2)[..., -1, :], w

def test_check_attention_passes_sums_in_another_order_and_refuses_float32_answers(capsys):
    "The weights and outputs are compared at the rounding of attention's own additions: another summation order passes; the nearest "
    "wrong answer, the right computation in float32 cast back to float64 (7 digits where 16 are asked), is refused."
    assert check_attention(summed_backwards) is True
    assert 'computes equation (1) with masks' in capsys.readouterr().out
    def in_float32(q, k, v, mask=None):
        out, w = other_right_answer(q.float(), k.float(), v.float(), mask)
        return out.to(q.dtype), w.to(q.dtype)
    assert_rejects(check_attention, in_float32, says=r"^Not yet: no mask: the weights differ .*float32 numbers in a float64 tensor")
