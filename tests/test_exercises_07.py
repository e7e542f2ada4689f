"""The proof that 07_why_self_attention's exercises are right, away from the learner: `check_restricted_attention`
(`transformer_nb.course.complexity`, course_complexity) passes the printed `restricted_attention` (exercise 3), reports the stub, names the
case a wrong one gets wrong, and enforces the exercise's rule (no tensor with an n x n part: full attention under a band
mask is refused, though its values are right); each "break it" exercise, applied to the code, makes exactly the checks
its solution names fail."""
import re
import pytest
from nbtools import _body, assert_break_it, cells, code_blocks, namespace
from transformer_nb.course.complexity import check_restricted_attention

NB = '07_why_self_attention'

def restricted(old=None, new=''):
    "The printed `restricted_attention` (exercise 3's solution), with `old` replaced by `new`: a wrong answer."
    code = code_blocks(NB, 'a07e0013')[0]
    if old is not None:
        assert code.count(old) == 1, old
        code = code.replace(old, new)
    return namespace(NB, code)['restricted_attention']

def test_restricted_attention_stub_is_reported(capsys):
    ns = namespace(NB, _body(cells(NB)['a07e0012'][1]).split('\ncheck_restricted_attention')[0])
    assert check_restricted_attention(ns['restricted_attention']) is False
    assert capsys.readouterr().out.startswith('restricted_attention is not written yet')

def test_restricted_attention_solution_passes(capsys):
    assert check_restricted_attention(restricted()) is True
    assert 'agrees with full attention under local_mask, and builds no n x n tensor' in capsys.readouterr().out

BANDED = "    return F.scaled_dot_product_attention(q, k, v, attn_mask=local_mask(q.shape[-2], r))\n"
FULL = ("    s = (q @ k.transpose(-2, -1)) / q.shape[-1] ** 0.5\n"
        "    return s.masked_fill(~local_mask(q.shape[-2], r), float('-inf')).softmax(-1) @ v\n")
FIRST = '    n, w = q.shape[-2], r // 2\n'

@pytest.mark.parametrize('old, new, says', [
    ("n, w = q.shape[-2], r // 2", "n, w = q.shape[-2], r", r'n=10, r=3: restricted_attention differs.*: a query sees the keys j with \|i - j\| <= r // 2, not r'),
    ("s = s.masked_fill((j < 0) | (j >= n), float('-inf'))", "s = s", r'n=10, r=3: .*: only the queries within 1 of an end are wrong, as if each padded slot took part in the softmax'),
    ("/ q.shape[-1] ** 0.5", "", r'n=10, r=3: .*: divide the scores by sqrt\(d_k\)'),
    ("s.softmax(-1)", "s.softmax(-2)", r'n=10, r=3: .*: softmax over the window'),
    ("return torch.einsum('bhnw,bhndw->bhnd', s.softmax(-1), win(v))", "return s.softmax(-1)", r'n=10, r=3: restricted_attention must return shape \(2, 4, 10, 16\)'),
    # the exercise's rule: right values through an n x n tensor are refused
    (FIRST, "    from transformer_nb.complexity import local_mask\n" + BANDED, r'n=37, r=5: restricted_attention makes a tensor of shape \(37, 37\), with an n x n part'),
    (FIRST, "    from transformer_nb.complexity import local_mask\n" + FULL, r'n=37, r=5: restricted_attention makes a tensor of shape \(.*37, 37\), with an n x n part'),
])
def test_restricted_attention_wrong_answers_are_named(old, new, says, capsys):
    assert check_restricted_attention(restricted(old, new)) is False
    assert re.search(says, capsys.readouterr().out)

AFTER_MAKE_LAYER, PATHS, STACKS, PATH_TESTS = '8c7195fc', 'b0c24289', 'dfef6b00', '0aa4a5a9'

@pytest.mark.slow
def test_break_it_1_conv_padded_on_both_sides():
    causal = 'tests/test_complexity.py::test_conv_is_causal_and_sees_k_positions'
    assert_break_it(NB, '6896f973', "self.conv(F.pad(x.transpose(1, 2), (self.pad, 0)))",
                    "self.conv(F.pad(x.transpose(1, 2), (self.pad // 2, self.pad - self.pad // 2)))",
                    'complexity', [causal], prose=False, fail_cells={AFTER_MAKE_LAYER, PATHS, STACKS}, fail_tests={causal})

@pytest.mark.slow
def test_break_it_2_path_length_off_by_one():
    paths = 'tests/test_complexity.py::test_max_path_length'
    assert_break_it(NB, 'ad972bfa', "return math.ceil((n - 1) / (k - 1))", "return math.ceil((n - 1) / k)",
                    'complexity', [paths], prose=False, fail_cells={STACKS, PATH_TESTS}, fail_tests={paths})

# ---------------------------------------------------------------- fresh wrong answers, written as new learners would
import functools
import math
import torch
import torch.nn.functional as F
from transformer_nb.attention import attention
from transformer_nb.complexity import local_mask
from transformer_nb.course import complexity as _ex
from nbtools import assert_rejects
FRESH = {}   # label: (checker, answer, the words its message must contain)
def add(checker, label, kw, *args): FRESH[checker, label] = args

# 07 restricted_attention: each answer and the words its message must contain
def _ra(q, k, v, r, *, half=None, fill=float('-inf'), scale=True, pad_mask_on=True, dim=-1, pad_val=0.0):
    B, h, n, d = q.shape; w = r // 2 if half is None else half(r)
    kp = F.pad(k, (0, 0, w, w), value=pad_val); vp = F.pad(v, (0, 0, w, w))
    K = kp.unfold(2, 2 * w + 1, 1).transpose(-1, -2)       # (B, h, n, 2w+1, d)
    V = vp.unfold(2, 2 * w + 1, 1).transpose(-1, -2)
    s = (q[..., None, :] * K).sum(-1)
    if scale: s = s / math.sqrt(d)
    if pad_mask_on:
        j = torch.arange(n)[:, None] + torch.arange(-w, w + 1)[None]
        s = s.masked_fill((j < 0) | (j >= n), fill)
    a = s.softmax(dim)
    return (a[..., None] * V).sum(-2)
def ra(**kw):
    f = functools.partial(_ra, **kw); f.__name__ = 'restricted_attention'; return f
add('check_restricted_attention', 'no 1/sqrt(d_k)', ['sqrt', 'scale'], ra(scale=False))
add('check_restricted_attention', 'padded rows not masked (score 0)', ['pad', '-inf', 'end'], ra(pad_mask_on=False))
add('check_restricted_attention', 'padded rows filled with 0 not -inf', ['pad', '-inf', '0'], ra(fill=0.0))
add('check_restricted_attention', 'window r not r//2 each side', ['r // 2', 'window', 'wide', 'size'], ra(half=lambda r: r))
add('check_restricted_attention', 'window (r-1)//2', ['r // 2', 'window', 'narrow', 'even', 'size'], ra(half=lambda r: (r - 1) // 2))
add('check_restricted_attention', 'softmax over the wrong axis', ['dim', 'axis', 'softmax'], ra(dim=-2))
def ra_full(q, k, v, r):
    return attention(q, k, v, local_mask(q.shape[-2], r))[0]
add('check_restricted_attention', 'builds the n x n mask', ['n x n', 'n × n', 'n×n'], ra_full)
def ra_causal(q, k, v, r):
    B, h, n, d = q.shape; w = r // 2
    kp = F.pad(k, (0, 0, w, 0)); vp = F.pad(v, (0, 0, w, 0))
    K = kp.unfold(2, w + 1, 1).transpose(-1, -2); V = vp.unfold(2, w + 1, 1).transpose(-1, -2)
    s = (q[..., None, :] * K).sum(-1) / math.sqrt(d)
    j = torch.arange(n)[:, None] + torch.arange(-w, 1)[None]
    return (s.masked_fill(j < 0, float('-inf')).softmax(-1)[..., None] * V).sum(-2)
add('check_restricted_attention', 'only the past half of the window', ['one side', 'past', 'both sides', 'centred', 'centered', 'future'], ra_causal)
SAYS_CHECK_RESTRICTED_ATTENTION = {
"no 1/sqrt(d_k)": "restricted_attention\\ differs\\ from\\ masked\\ attention\\ by\\ up\\ to\\ 1\\.3:\\ divide\\ the\\ scores\\ by\\ sqrt",
"padded rows not masked (score 0)": "restricted_attention\\ differs\\ from\\ masked\\ attention\\ by\\ up\\ to\\ 1\\.2:\\ only\\ the\\ queries\\ within\\ 1",
"padded rows filled with 0 not -inf": "restricted_attention\\ differs\\ from\\ masked\\ attention\\ by\\ up\\ to\\ 1\\.2:\\ only\\ the\\ queries\\ within\\ 1",
"window r not r//2 each side": "restricted_attention\\ differs\\ from\\ masked\\ attention\\ by\\ up\\ to\\ 2\\.5:\\ a\\ query\\ sees\\ the\\ keys\\ j\\ w",
"window (r-1)//2": "it\\ must\\ reach\\ r\\ //\\ 2\\ =\\ 4\\ \\(r\\ =\\ 8\\)",
"softmax over the wrong axis": "restricted_attention\\ differs\\ from\\ masked\\ attention\\ by\\ up\\ to\\ 2\\.2:\\ with\\ every\\ value\\ 1\\ the\\ ou",
"builds the n x n mask": "restricted_attention\\ makes\\ a\\ tensor\\ of\\ shape\\ \\(37,\\ 37\\),\\ with\\ an\\ n\\ x\\ n\\ part:\\ compute\\ each\\ qu",
"only the past half of the window": "your\\ queries\\ see\\ only\\ keys\\ at\\ or\\ before\\ them:\\ the\\ window\\ is\\ centred,\\ r\\ //\\ 2\\ keys\\ before\\ an"
}

@pytest.mark.parametrize('label', list(SAYS_CHECK_RESTRICTED_ATTENTION))
def test_fresh_wrong_answers_named_by_check_restricted_attention(label):
    "Each wrong answer a new learner writes is refused, with a message that names its mistake."
    assert_rejects(_ex.check_restricted_attention, *FRESH['check_restricted_attention', label], says=SAYS_CHECK_RESTRICTED_ATTENTION[label])


def _windowed(q, k, v, r, scale=None, size=None, layout='bhndw', times=False):
    "Restricted attention by unfold; `scale`, the window `size`, the einsum `layout` of the window or a multiplied-in 0/1 mask miswrite it."
    n, w = q.shape[-2], r // 2
    win = lambda t: F.pad(t, (0, 0, w, w)).unfold(-2, size or 2 * w + 1, 1)
    s = torch.einsum(f'bhnd,{layout}->bhnw', q, win(k)) / (scale or math.sqrt(q.shape[-1]))
    j = torch.arange(n)[:, None] + torch.arange(-w, (size or 2 * w + 1) - w); out = (j < 0) | (j >= n)
    s = s * ~out + out * float('-inf') if times else s.masked_fill(out, float('-inf'))
    return torch.einsum(f'bhnw,{layout}->bhnd', s.softmax(-1), win(v))

@pytest.mark.parametrize('kw, says', [
    (dict(scale=math.sqrt(3)), r"n=10, r=3: .*the scores are divided by sqrt\(r\) = sqrt\(3\): divide them by sqrt\(d_k\) = 4"),
    (dict(times=True), r"your output has NaN at queries \[0, 1, 2, 3, 4, 5\] \.\.\.: a score computed as 0 \* -inf .* give the padded rows -inf with masked_fill"),
    (dict(layout='bhnwd'), r"raised RuntimeError \(einsum\(\).*\): Tensor\.unfold\(-2, size, 1\) puts the window's axis last"),
    ('window r', r"n=17, r=8: raised RuntimeError .* for an even r, and runs for r \+ 1: .* unfold\(-2, 2 \* \(r // 2\) \+ 1, 1\)")])
def test_more_restricted_attention_mistakes_are_named(kw, says):
    fn = (lambda q, k, v, r: _windowed(q, k, v, r, size=r)) if kw == 'window r' else (lambda q, k, v, r: _windowed(q, k, v, r, **kw))
    assert_rejects(_ex.check_restricted_attention, fn, says=says)

def test_the_unfold_answer_passes():
    assert _ex.check_restricted_attention(_windowed) is True

# ---------------------------------------------------------------- mistakes nobody listed, named by what the answer does
def _win_by(scale=None, times=False, inplace=False, half=False, fill=float('-inf')):
    "Restricted attention by unfold, miswritten one way: another `scale`, a 0/1 mask multiplied in, q scaled in place, a float16 output."
    def restricted_attention(q, k, v, r):
        n, w = q.shape[-2], r // 2
        if inplace: q /= math.sqrt(q.shape[-1])
        win = lambda t: F.pad(t, (0, 0, w, w)).unfold(-2, 2 * w + 1, 1)
        s = torch.einsum('bhnd,bhndw->bhnw', q, win(k)) / (1 if inplace else scale or math.sqrt(q.shape[-1]))
        j = torch.arange(n)[:, None] + torch.arange(-w, w + 1); out = (j < 0) | (j >= n)
        s = s * ~out + out * float('-inf') if times else s.masked_fill(out, fill)
        y = torch.einsum('bhnw,bhndw->bhnd', s.softmax(-1), win(v))
        return y.half() if half else y
    return restricted_attention

@pytest.mark.parametrize('answer, says', [
    (_win_by(scale=math.sqrt(5)), r"n=10, r=3: .*your scores q k\^T are multiplied by 0\.447: divide them by sqrt\(d_k\) = 4"),
    (_win_by(scale=8), r"n=10, r=3: .*your scores q k\^T are multiplied by 0\.125 = 1/\(2 sqrt\(d_k\)\)"),
    (_win_by(inplace=True), r"n=4, r=3: restricted_attention changed its input q in place"),
    (_win_by(half=True), r"n=4, r=3: your output is torch\.float16, the inputs torch\.float32"),
])
def test_restricted_attention_mistakes_nobody_listed_are_named_by_property(answer, says):
    assert_rejects(_ex.check_restricted_attention, answer, says=says)

def test_window_nan_is_placed_at_the_ends():
    q, k, v = torch.randn(3, 1, 2, 9, 4).unbind(0)
    ref = F.scaled_dot_product_attention(q, k, v, attn_mask=local_mask(9, 3)); y = ref.clone(); y[..., 8, :] = float('nan')
    assert _ex._window_rest(None, y, ref, q, k, v, 3).startswith("your output has NaN only at the queries within 1 of an end ([8])")

def _keys_padded_with(fill, cat=False):
    "restricted_attention whose keys are padded with `fill` (F.pad's value, or rows of it concatenated), the values with 0, no mask."
    def restricted_attention(q, k, v, r):
        w = r // 2
        if cat: pad = k.new_full((*k.shape[:-2], w, k.shape[-1]), fill); kp = torch.cat([pad, k, pad], -2)
        else: kp = F.pad(k, (0, 0, w, w), value=fill)
        kw, vw = kp.unfold(-2, 2 * w + 1, 1), F.pad(v, (0, 0, w, w)).unfold(-2, 2 * w + 1, 1)
        s = torch.einsum('bhnd,bhndw->bhnw', q, kw) / math.sqrt(q.shape[-1])
        return torch.einsum('bhnw,bhndw->bhnd', s.softmax(-1), vw)
    return restricted_attention

@pytest.mark.parametrize('cat', [False, True])
def test_keys_padded_with_minus_inf_are_named(cat):
    "-inf in the padded keys: q . k sums -inf and +inf terms (NaN at the ends), where the scores' fill was meant."
    assert_rejects(_ex.check_restricted_attention, _keys_padded_with(float('-inf'), cat),
                   says=r"n=10, r=3: .*NaN only at the queries within 1 of an end \(\[0, 9\]\).*the padded keys hold -inf .*pad the keys with 0")

def test_a_right_window_with_a_large_negative_fill_passes():
    assert _ex.check_restricted_attention(_win_by(fill=-1e9)) is True


# ---------------------------------------------------------------- more mistakes, each named by what the answer does
import transformer_nb.course.complexity as _named

def _window(pad, size=None, tuple_out=False):
    "Restricted attention by padding and unfolding: `pad(w)` F.pad's pairs, `size(r)` the window (2 * (r // 2) + 1 if None)."
    def restricted_attention(q, k, v, r):
        w = r // 2; s = size(r) if size else 2 * w + 1
        kp, vp = F.pad(k, pad(w)), F.pad(v, pad(w))
        dim = -1 if len(pad(w)) == 2 else -2
        kw, vw = kp.unfold(dim, s, 1), vp.unfold(dim, s, 1)
        if dim == -2: kw, vw = kw[..., :q.shape[-2], :, :], vw[..., :q.shape[-2], :, :]
        sc = torch.einsum('bhnd,bhndw->bhnw', q, kw) / math.sqrt(q.shape[-1])
        if dim == -2:
            j = torch.arange(q.shape[-2])[:, None] - w + torch.arange(s)[None]
            sc = sc.masked_fill((j < 0) | (j >= q.shape[-2]), float('-inf'))
        a = sc.softmax(-1); out = torch.einsum('bhnw,bhndw->bhnd', a, vw)
        return (out, a) if tuple_out else out
    return restricted_attention

@pytest.mark.parametrize('answer, says', [
    (_window(lambda w: (w, w)), r"changing key 5 moved query 5 alone: each query reads only its own position"),
    (_window(lambda w: (0, 0, w, w), size=lambda r: r), r"n=17, r=8: .*your query i sees keys i - 4 \.\. i \+ 3, 8 of them; the paper's sees i - 4 \.\. i \+ 4"),
    (_window(lambda w: (0, 0, w, w), tuple_out=True), r"n=10, r=3: restricted_attention returned a tuple of 2 \(\(2, 4, 10, 16\), \(2, 4, 10, 3\)\): return the output alone"),
])
def test_window_mistakes_named_by_property(answer, says):
    assert_rejects(_named.check_restricted_attention, answer, says=says)


# ---------------------------------------------------------------- the features padded, a softmax over them, one end's padding kept
def _softmax_over_features(q, k, v, r):
    n, w = q.shape[-2], r // 2
    win = lambda t: F.pad(t, (0, 0, w, w)).unfold(-2, 2 * w + 1, 1)
    s = torch.einsum('bhnd,bhndw->bhnw', q, win(k)) / q.shape[-1] ** 0.5
    j = torch.arange(n)[:, None] + torch.arange(-w, w + 1)
    s = s.masked_fill((j < 0) | (j >= n), -1e9)
    return (s[..., None, :] * win(v)).softmax(-2).sum(-1)

@pytest.mark.parametrize('answer, says', [
    (lambda: restricted("F.pad(t, (0, 0, w, w))", "F.pad(t, (w, w))"), r"n=4, r=3: raised RuntimeError .*: the features were padded, not the positions"),
    (lambda: _softmax_over_features, r"n=10, r=3: .*with every value 1 your output is \(2 \* \(r // 2\) \+ 1\) / d_v = 3/16 everywhere: the softmax ran over the features"),
    (lambda: restricted("(j < 0) | (j >= n)", "(j < 0) | (j > n)"), r"n=10, r=3: .*only the queries within 1 of the right end are wrong: .*j <= n - 1, not j <= n"),
])
def test_padding_and_softmax_axis_mistakes_named_by_property(answer, says):
    assert_rejects(_named.check_restricted_attention, answer(), says=says)

def _padded_in_softmax(zero_after):
    "The solution with the padded slots left in the softmax (score q . 0 = 0), or zeroed after it: the same function."
    def restricted_attention(q, k, v, r):
        n, w = q.shape[-2], r // 2
        win = lambda t: F.pad(t, (0, 0, w, w)).unfold(-2, 2 * w + 1, 1)
        s = torch.einsum('bhnd,bhndw->bhnw', q, win(k)) / q.shape[-1] ** 0.5
        j = torch.arange(n)[:, None] + torch.arange(-w, w + 1)
        p = s.softmax(-1).masked_fill((j < 0) | (j >= n), 0.0) if zero_after else s.softmax(-1)
        return torch.einsum('bhnw,bhndw->bhnd', p, win(v))
    return restricted_attention

def _unpadded(q, k, v, r):
    "Windows unfolded from the unpadded keys: one output per window that fits inside the sentence."
    w = r // 2
    s = torch.einsum('bhnd,bhndw->bhnw', q[..., w:q.shape[-2] - w, :], k.unfold(-2, 2 * w + 1, 1)) / q.shape[-1] ** 0.5
    return torch.einsum('bhnw,bhndw->bhnd', s.softmax(-1), v.unfold(-2, 2 * w + 1, 1))

@pytest.mark.parametrize('answer, says', [
    (_padded_in_softmax(True), r"n=10, r=3: .*only the queries within 1 of an end are wrong, as if each padded slot took part in the softmax with the score q \. 0 = 0: "
                               r".*whether the padded slots are left in or zeroed after the softmax"),
    (_padded_in_softmax(False), r"as if each padded slot took part in the softmax with the score q \. 0 = 0"),
    (_unpadded, r"n=10, r=3: restricted_attention must return shape \(2, 4, 10, 16\) like v; got .*: 10 - 2 \* \(r // 2\) = 8 rows, one per window "
                r"that fits inside the sentence: unfolding the keys unpadded drops the 1 queries at each end"),
])
def test_padded_slots_in_the_softmax_and_unpadded_windows_are_named(answer, says):
    assert_rejects(_named.check_restricted_attention, answer, says=says)

# ---------------------------------------------------------------- slips of later blind answers, named by property
def _windows(q, k, v, r, values_from_k=False, per_query=False):
    "Restricted attention by unfolded windows; `values_from_k`: the values taken from the keys' windows; `per_query`: each query scaled by its window's length."
    n, w = q.shape[-2], r // 2
    kw, vw = (F.pad(t, (0, 0, w, w)).unfold(-2, 2 * w + 1, 1) for t in (k, k if values_from_k else v))   # (..., n, d, 2w + 1)
    ok = (j := torch.arange(n)[:, None] + torch.arange(-w, w + 1)).ge(0) & j.lt(n)
    s = torch.einsum('...nd,...ndw->...nw', q, kw) / (ok.sum(-1, keepdim=True).sqrt() if per_query else q.shape[-1] ** 0.5)
    return torch.einsum('...nw,...ndw->...nd', s.masked_fill(~ok, float('-inf')).softmax(-1), vw)

@pytest.mark.parametrize('answer, says', [
    (functools.partial(_windows, values_from_k=True), r"n=10, r=3: .*the values are the keys' windows"),
    (functools.partial(_windows, per_query=True), r"each query's scores are divided by the square root of its window's length"),
    (lambda q, k, v, r: v.unfold(-1, 2 * (r // 2) + 1, 1).mean(-1),
     r"got torch.Size\(\[2, 4, 10, 14\]\): 16 - 2 \* \(r // 2\) = 14 features, .*the windows were unfolded over the features"),
])
def test_restricted_attention_roles_scales_and_axes_are_named(answer, says):
    assert_rejects(check_restricted_attention, answer, says=says)
    assert check_restricted_attention(_windows) is True

# ---------------------------------------------------------------- key 0 hidden, and a finite fill for the padded slots
def _windows_as(q, k, v, r, first=0, fill=float('-inf')):
    "Restricted attention by unfolded windows, the keys j >= `first` real, the padded slots filled with `fill`."
    n, w = q.shape[-2], r // 2
    kw, vw = (F.pad(t, (0, 0, w, w)).unfold(-2, 2 * w + 1, 1) for t in (k, v))
    ok = (j := torch.arange(n)[:, None] + torch.arange(-w, w + 1)).ge(first) & j.lt(n)
    s = torch.einsum('...nd,...ndw->...nw', q, kw) / q.shape[-1] ** 0.5
    return torch.einsum('...nw,...ndw->...nd', s.masked_fill(~ok, fill).softmax(-1).nan_to_num(0.0), vw)

@pytest.mark.parametrize('answer, says', [
    (functools.partial(_windows_as, first=1), r"n=10, r=3: .*changing key 0 moved the outputs of queries \[\]; no query sees key 0: every key 0 <= j < n is a real key"),
    (functools.partial(_windows_as, fill=-1e4), r"n=10, r=3, every score -40,000 .*: the padded slots' fill is finite \(-1e4 or -1e9\?\) and beats scores below it; fill them with float\('-inf'\)"),
])
def test_a_hidden_first_key_and_a_finite_fill_are_named(answer, says):
    assert_rejects(check_restricted_attention, answer, says=says)
    assert check_restricted_attention(_windows_as) is True

# ---------------------------------------------------------------- ends masked the wrong way, features padded, values not windowed
def _windows_slip(q, k, v, r, ends='right', values='window'):
    "Restricted attention by unfolded windows; the end mask off by one or built for the slots in reverse order, the values' features "
    "shifted by F.pad's first pair, or the values v's first 2w + 1 rows for every query."
    n, w = q.shape[-2], r // 2
    win = lambda t: F.pad(t, (0, 0, w, w)).unfold(-2, 2 * w + 1, 1)
    o = {'right': torch.arange(-w, w + 1), 'reversed': torch.arange(w, -w - 1, -1), 'off by one': torch.arange(-w, w + 1) - 1}[ends]
    j = torch.arange(n)[:, None] + o
    s = torch.einsum('...nd,...ndw->...nw', q, win(k)) / q.shape[-1] ** 0.5
    p = s.masked_fill((j < 0) | (j >= n), float('-inf')).softmax(-1)
    if values == 'first rows': return p @ v[..., :2 * w + 1, :]
    vv = F.pad(v, (w, w))[..., :v.shape[-1]] if values == 'features padded' else v
    return torch.einsum('...nw,...ndw->...nd', p, win(vv))

@pytest.mark.parametrize('kw, says', [
    (dict(ends='off by one'), r"n=10, r=3: .*changing key 0 moved the outputs of queries \[\]; no query sees key 0"),
    (dict(ends='reversed'), r"n=10, r=3: .*queries \[0\], near an end, do not see key 1, within r // 2 of them: your mask hides real keys at the ends "
                            r"and lets padded slots take weight"),
    (dict(values='features padded'), r"n=10, r=3: .*with every value 1 your output is 0 in features \[0\] and 1 in the others: the values' features "
                                     r"were shifted or padded"),
    (dict(values='first rows'), r"n=10, r=3: .*changing value 5 alone moved the outputs of queries \[\], key 5 alone those of \[4, 5, 6\]: the weights "
                                r"are right, the values are not the window's"),
])
def test_ends_masked_otherwise_padded_features_and_unwindowed_values_are_named(kw, says):
    assert_rejects(check_restricted_attention, functools.partial(_windows_slip, **kw), says=says)
    assert check_restricted_attention(_windows_slip) is True

# ---------------------------------------------------------------- a fresh blind set: wrong answers written before reading the messages
import re as _n9re
from nbtools import assert_rejects as _n9_rejects
import math as _n9math
from transformer_nb.course.complexity import check_restricted_attention as _n9_ra
def _n9_full(q, k, v, r):
    from transformer_nb.complexity import local_mask
    from transformer_nb.attention import attention
    return attention(q, k, v, local_mask(q.shape[-2], r))[0]
def _n9_windows(q, k, v, r, mask_pads=True, scale=True):
    w = r // 2
    kw = F.pad(k, (0, 0, w, w)).unfold(-2, 2 * w + 1, 1).transpose(-1, -2); vw = F.pad(v, (0, 0, w, w)).unfold(-2, 2 * w + 1, 1).transpose(-1, -2)
    s = (q[..., None, :] * kw).sum(-1) / (_n9math.sqrt(q.shape[-1]) if scale else 1.0)
    if mask_pads: s = s.masked_fill(~F.pad(torch.ones(q.shape[-2], dtype=torch.bool), (w, w)).unfold(0, 2 * w + 1, 1), float('-inf'))
    return (torch.softmax(s, -1)[..., None] * vw).sum(-2)
NINTH = [('an n x n mask', _n9_ra, (_n9_full,), "with an n x n part"),
         ('padded keys not masked', _n9_ra, (lambda q, k, v, r: _n9_windows(q, k, v, r, mask_pads=False),), "each padded slot took part in the softmax"),
         ('no 1/sqrt(d_k)', _n9_ra, (lambda q, k, v, r: _n9_windows(q, k, v, r, scale=False),), "divide the scores by sqrt(d_k)")]

def test_ninth_right_windows_pass():
    assert _n9_ra(_n9_windows) is True
def _n9_wide(q, k, v, r):
    return _n9_windows(q, k, v, 2 * r)     # r keys on each side, not r // 2
NINTH += [('r keys on each side', _n9_ra, (_n9_wide,), "a query sees the keys j with |i - j| <= r // 2, not r")]

@pytest.mark.parametrize('label', [c[0] for c in NINTH])
def test_ninth_blind_answers_named(label):
    "Each answer of the blind set is refused with a message that names its mistake."
    _, check, answer, words = next(c for c in NINTH if c[0] == label)
    _n9_rejects(check, *answer, says=_n9re.escape(words))


# ---------------------------------------------------------------- the fifteenth blind set's misses (results/checker_answers.json)
def _softmax_of_the_output(q, k, v, r):
    "The window's scores (pads at 0) times the values, then a softmax over the output's features: no softmax over the keys."
    n, w = q.shape[-2], r // 2
    win = lambda t: F.pad(t, (0, 0, w, w)).unfold(-2, 2 * w + 1, 1)
    s = torch.einsum('bhnd,bhndw->bhnw', q, win(k)) / q.shape[-1] ** 0.5
    j = torch.arange(n)[:, None] + torch.arange(-w, w + 1)
    return torch.einsum('bhnw,bhndw->bhnd', s.masked_fill((j < 0) | (j >= n), 0.0), win(v)).softmax(-1)

def test_a_softmax_over_the_outputs_features_is_named():
    assert_rejects(check_restricted_attention, _softmax_of_the_output,
                   says=r"with every value 1 your output is 1 / d_v = 1/16 everywhere: the softmax ran over the features")

# ---------------------------------------------------------------- the sixteenth blind set's misses
def _ra(size=lambda w: 2 * w + 1, post=1.0, cast=False):
    "The solution with one change: windows of another size, the weights scaled after the softmax, or the output cast to float32."
    def restricted_attention(q, k, v, r):
        n, w = q.shape[-2], r // 2
        win = lambda t: F.pad(t, (0, 0, w, w)).unfold(-2, size(w), 1)[..., :n, :, :]
        s = torch.einsum('bhnd,bhndw->bhnw', q, win(k)) / q.shape[-1] ** 0.5
        j = torch.arange(n)[:, None] + torch.arange(-w, size(w) - w)
        s = s.masked_fill((j < 0) | (j >= n), float('-inf'))
        y = torch.einsum('bhnw,bhndw->bhnd', s.softmax(-1) * post, win(v))
        return y.float() if cast else y
    return restricted_attention

@pytest.mark.parametrize('answer, says', [
    (_ra(size=lambda w: 2 * w), r"^Not yet: n=10, r=3: .*your windows hold 2 \* \(r // 2\) = 2 keys, one short"),
    (_ra(post=0.25), r"^Not yet: n=10, r=3: .*your output is 1/sqrt\(d_k\) = 0\.25 everywhere, not 1: the weights were divided by sqrt\(d_k\) after the softmax"),
    (_ra(cast=True), r"^Not yet: n=9, r=3, float64 inputs: your output is torch\.float32: keep the inputs' dtype"),
])
def test_a_window_one_short_a_scale_after_the_softmax_and_a_cast_are_named(answer, says):
    assert_rejects(check_restricted_attention, answer, says=says)

# ---------------------------------------------------------------- the seventeenth blind set's misses
def _rolled(q, k, v, r):
    "Windows by torch.roll: right inside, wrapped around at the ends."
    w = r // 2
    win = lambda t: torch.stack([t.roll(-o, dims=-2) for o in range(-w, w + 1)], dim=-1)
    return torch.einsum('bhnw,bhndw->bhnd', (torch.einsum('bhnd,bhndw->bhnw', q, win(k)) / q.shape[-1] ** 0.5).softmax(-1), win(v))

def _sliced(q, k, v, r):
    "A loop over the queries slicing [i - w : i + w + 1]: a negative start empties the window."
    n, w = q.shape[-2], r // 2
    return torch.cat([(q[..., i:i + 1, :] @ k[..., i - w:i + w + 1, :].mT / q.shape[-1] ** 0.5).softmax(-1) @ v[..., i - w:i + w + 1, :] for i in range(n)], -2)

def _head_axis(q, k, v, r):
    "unfold(1, ...): the window slides over the heads."
    w = r // 2
    win = lambda t: torch.nn.functional.pad(t, (0, 0, w, w)).unfold(1, 2 * w + 1, 1)
    return torch.einsum('bhnw,bhndw->bhnd', torch.einsum('bhnd,bhndw->bhnw', q, win(k)).softmax(-1), win(v))

def _diagonals(q, k, v, r):
    "The band read off full scores with torch.diagonal: an n x n tensor, and an error once the window is wider than the sentence."
    n, w = q.shape[-2], r // 2
    full, s = q @ k.mT / q.shape[-1] ** 0.5, torch.full((*q.shape[:-1], 2 * w + 1), float('-inf'))
    for o in range(-w, w + 1):
        d = torch.diagonal(full, offset=o, dim1=-2, dim2=-1)
        if o >= 0: s[..., :n - o, o + w] = d
        else: s[..., -o:, o + w] = d
    return torch.einsum('bhnw,bhndw->bhnd', s.softmax(-1), torch.nn.functional.pad(v, (0, 0, w, w)).unfold(-2, 2 * w + 1, 1))

@pytest.mark.parametrize('answer, says', [
    (_rolled, r"changing key 0 moved the outputs of queries \[0, 1, 9\], query 9 among them: your windows wrap around the ends"),
    (_sliced, r"queries \[0\], within r // 2 = 1 of the left end, get an output of 0, their windows empty: a slice .* with a negative start"),
    (_head_axis, r"n=4, r=3: raised RuntimeError \(maximum size for tensor at dimension 1 .*\): Tensor.unfold slid its window over dimension 1, not the positions"),
    (_diagonals, r"n=5, r=100: raised RuntimeError .*, after making a tensor of shape \(2, 4, 5, 5\), with an n x n part"),
], ids=['rolled', 'negative slice', 'unfold(1)', 'diagonals'])
def test_the_seventeenth_sets_misses_are_named(answer, says):
    assert_rejects(check_restricted_attention, answer, says=says)

# ---------------------------------------------------------------- the nineteenth blind set's miss
def _numpy_window(q, k, v, r):
    "The solution's windows, unfolded in torch, then the output handed back as a NumPy array."
    n, w = q.shape[-2], r // 2
    win = lambda t: F.pad(t, (0, 0, w, w)).unfold(-2, 2 * w + 1, 1)
    s = torch.einsum('bhnd,bhndw->bhnw', q, win(k)) / q.shape[-1] ** 0.5
    j = torch.arange(n)[:, None] + torch.arange(-w, w + 1)
    s = s.masked_fill((j < 0) | (j >= n), float('-inf'))
    return torch.einsum('bhnw,bhndw->bhnd', s.softmax(-1), win(v)).numpy()

def test_an_output_computed_in_numpy_is_named():
    assert_rejects(check_restricted_attention, _numpy_window, says=r"got \(2, 4, 10, 16\), a numpy ndarray, not a tensor: keep to torch operations")


# ---------------------------------------------------------------- the twenty-first blind set's misses
from transformer_nb.course.complexity import check_restricted_attention as _t21_check_restricted_attention
from nbtools import assert_rejects as _t21_rejects

_T21_PRELUDE = ''   # the names the exercise's cell sees
_T21 = {   # label: (the exercise's function, the answer's code, what its message must say)
    'padded rows found as all-zero keys (a real zero key masked too)': ('restricted_attention', "\ndef restricted_attention(q, k, v, r):\n    n, w = q.shape[-2], r // 2\n    win = lambda t: F.pad(t, (0, 0, w, w)).unfold(-2, 2 * w + 1, 1)\n    kw = win(k)\n    s = torch.einsum('bhnd,bhndw->bhnw', q, kw) / q.shape[-1] ** 0.5\n    s = s.masked_fill(kw.abs().sum(-2) == 0, float('-inf'))\n    return torch.einsum('bhnw,bhndw->bhnd', s.softmax(-1), win(v))",
        'key 4 got no weight: your padded slots are found by their values'),
    'computed in float64 and returned so (.double())': ('restricted_attention', "\ndef restricted_attention(q, k, v, r):\n    q, k, v = q.double(), k.double(), v.double()\n    n, w = q.shape[-2], r // 2\n    win = lambda t: F.pad(t, (0, 0, w, w)).unfold(-2, 2 * w + 1, 1)\n    s = torch.einsum('bhnd,bhndw->bhnw', q, win(k)) / q.shape[-1] ** 0.5\n    j = torch.arange(n)[:, None] + torch.arange(-w, w + 1)\n    s = s.masked_fill((j < 0) | (j >= n), float('-inf'))\n    return torch.einsum('bhnw,bhndw->bhnd', s.softmax(-1), win(v))",
        'torch\\.float32 inputs gave a torch\\.float64 output'),
    'window positions taken as i .. i + 2w (arange(2w + 1)), not i - w .. i + w: the mask shifted': ('restricted_attention', "\ndef restricted_attention(q, k, v, r):\n    n, w = q.shape[-2], r // 2\n    win = lambda t: F.pad(t, (0, 0, w, w)).unfold(-2, 2 * w + 1, 1)\n    s = torch.einsum('bhnd,bhndw->bhnw', q, win(k)) / q.shape[-1] ** 0.5\n    j = torch.arange(n)[:, None] + torch.arange(2 * w + 1)\n    s = s.masked_fill((j < 0) | (j >= n), float('-inf'))\n    return torch.einsum('bhnw,bhndw->bhnd', s.softmax(-1), win(v))",
        "your mask reads slot t of query i's window as key i \\+ t"),
    'padded rows given a score of -1e4 in float16 arithmetic (the scores cast to half)': ('restricted_attention', "\ndef restricted_attention(q, k, v, r):\n    n, w = q.shape[-2], r // 2\n    win = lambda t: F.pad(t, (0, 0, w, w)).unfold(-2, 2 * w + 1, 1)\n    s = torch.einsum('bhnd,bhndw->bhnw', q, win(k)) / q.shape[-1] ** 0.5\n    j = torch.arange(n)[:, None] + torch.arange(-w, w + 1)\n    s = s.half().masked_fill((j < 0) | (j >= n), -1e4)\n    return torch.einsum('bhnw,bhndw->bhnd', s.float().softmax(-1).to(v.dtype), win(v))",
        "the size of float16's rounding of the scores"),
    'a batch of one assumed: q[0] windowed, the batch axis added back': ('restricted_attention', "\ndef restricted_attention(q, k, v, r):\n    n, w = q.shape[-2], r // 2\n    win = lambda t: F.pad(t[0], (0, 0, w, w)).unfold(-2, 2 * w + 1, 1)\n    s = torch.einsum('hnd,hndw->hnw', q[0], win(k)) / q.shape[-1] ** 0.5\n    j = torch.arange(n)[:, None] + torch.arange(-w, w + 1)\n    s = s.masked_fill((j < 0) | (j >= n), float('-inf'))\n    return torch.einsum('hnw,hndw->hnd', s.softmax(-1), win(v))[None]",
        'one batch entry of 2: q\\[0\\] \\(or a squeeze\\) took the batch as one'),
}

@pytest.mark.parametrize('label', list(_T21))
def test_the_twenty_first_sets_misses_are_named(label):
    import math, torch, torch.nn as nn, torch.nn.functional as F
    fn, src, says = _T21[label]
    ns = dict(math=math, torch=torch, nn=nn, F=F)
    exec(_T21_PRELUDE, ns); exec(src, ns)
    check = {'restricted_attention': _t21_check_restricted_attention}[fn]
    dtype, grad = torch.get_default_dtype(), torch.is_grad_enabled()
    try: _t21_rejects(check, ns[fn], says=says)
    finally: torch.set_default_dtype(dtype); torch.set_grad_enabled(grad)   # an answer that changes them must not change the next test


# ---------------------------------------------------------------- the twenty-third blind set's misses
from transformer_nb.course.complexity import check_restricted_attention as _t23_check_restricted_attention
from nbtools import assert_rejects as _t23_rejects

_T23_PRELUDE = ''   # the names the exercise's cell sees
_T23 = {   # label: (the exercise's function, the answer's code, what its message must say)
    "unfold's windows read by reshape as (.., 2w + 1, d_k), not permuted": ('restricted_attention', "\ndef restricted_attention(q, k, v, r):\n    n, w = q.shape[-2], r // 2\n    win = lambda t: F.pad(t, (0, 0, w, w)).unfold(-2, 2 * w + 1, 1).reshape(*t.shape[:-1], 2 * w + 1, t.shape[-1]).transpose(-1, -2)\n    s = torch.einsum('bhnd,bhndw->bhnw', q, win(k)) / q.shape[-1] ** 0.5\n    j = torch.arange(n)[:, None] + torch.arange(-w, w + 1)\n    s = s.masked_fill((j < 0) | (j >= n), float('-inf'))\n    return torch.einsum('bhnw,bhndw->bhnd', s.softmax(-1), win(v))",
        'your\\ windows\\ were\\ regrouped\\ by\\ reshape'),
}

@pytest.mark.parametrize('label', list(_T23))
def test_the_twenty_third_sets_misses_are_named(label):
    import math, torch, torch.nn as nn, torch.nn.functional as F
    fn, src, says = _T23[label]
    ns = dict(math=math, torch=torch, nn=nn, F=F)
    exec(_T23_PRELUDE, ns); exec(src, ns)
    check = {'restricted_attention': _t23_check_restricted_attention}[fn]
    dtype, grad = torch.get_default_dtype(), torch.is_grad_enabled()
    try: _t23_rejects(check, ns[fn], says=says)
    finally: torch.set_default_dtype(dtype); torch.set_grad_enabled(grad)   # an answer that changes them must not change the next test


# ---------------------------------------------------------------- the twenty-fourth blind set's misses
from transformer_nb.course.complexity import check_restricted_attention as _t24_check_restricted_attention
from nbtools import assert_rejects as _t24_rejects

_T24_PRELUDE = 'import math, copy, random, torch, torch.nn as nn, torch.nn.functional as F\nfrom collections import Counter\nfrom transformer_nb.core import *\nfrom transformer_nb.complexity import local_mask\nfrom transformer_nb.attention import attention'   # the names the exercise's cell sees
_T24 = {   # label: (the exercise, the answer's code, what its message must say)
    'the keys padded with -inf (F.pad value=-inf) for the -inf scores': ('restricted_attention', "\ndef restricted_attention(q, k, v, r):\n    n, w = q.shape[-2], r // 2\n    wk = F.pad(k, (0, 0, w, w), value=float('-inf')).unfold(-2, 2 * w + 1, 1)\n    wv = F.pad(v, (0, 0, w, w)).unfold(-2, 2 * w + 1, 1)\n    s = torch.einsum('bhnd,bhndw->bhnw', q, wk) / q.shape[-1] ** 0.5\n    return torch.einsum('bhnw,bhndw->bhnd', s.softmax(-1).nan_to_num(0.0), wv)",
        'the queries within 1 of either end get an output of 0: padded keys of -inf'),
    'heads folded batch-major, unfolded head-major: right for B = 1 or h = 1': ('restricted_attention', "\ndef restricted_attention(q, k, v, r):\n    B, h, n, d = q.shape\n    w = r // 2\n    fold = lambda t: t.transpose(0, 1).reshape(h * B, n, t.shape[-1])\n    win = lambda t: F.pad(fold(t), (0, 0, w, w)).unfold(-2, 2 * w + 1, 1)\n    s = torch.einsum('knd,kndw->knw', fold(q), win(k)) / d ** 0.5\n    j = torch.arange(n)[:, None] + torch.arange(-w, w + 1)\n    s = s.masked_fill((j < 0) | (j >= n), float('-inf'))\n    return torch.einsum('knw,kndw->knd', s.softmax(-1), win(v)).reshape(B, h, n, v.shape[-1])",
        "every query's output is right, under another batch entry and head"),
    'the keys padded but the values not: windows of v start w rows late': ('restricted_attention', "\ndef restricted_attention(q, k, v, r):\n    n, w = q.shape[-2], r // 2\n    wk = F.pad(k, (0, 0, w, w)).unfold(-2, 2 * w + 1, 1)\n    wv = F.pad(v, (0, 0, 0, 2 * w)).unfold(-2, 2 * w + 1, 1)\n    s = torch.einsum('bhnd,bhndw->bhnw', q, wk) / q.shape[-1] ** 0.5\n    j = torch.arange(n)[:, None] + torch.arange(-w, w + 1)\n    s = s.masked_fill((j < 0) | (j >= n), float('-inf'))\n    return torch.einsum('bhnw,bhndw->bhnd', s.softmax(-1), wv)",
        "the values' windows are not the keys'"),
    'blocks, not windows: unfold with step 2w + 1 (block-local attention)': ('restricted_attention', "\ndef restricted_attention(q, k, v, r):\n    n, w = q.shape[-2], r // 2\n    win = lambda t: F.pad(t, (0, 0, w, w)).unfold(-2, 2 * w + 1, 2 * w + 1)\n    s = torch.einsum('bhnd,bhndw->bhnw', q, win(k)) / q.shape[-1] ** 0.5\n    j = torch.arange(n)[:, None] + torch.arange(-w, w + 1)\n    s = s.masked_fill((j < 0) | (j >= n), float('-inf'))\n    return torch.einsum('bhnw,bhndw->bhnd', s.softmax(-1), win(v))",
        "the keys were unfolded into 2 blocks, not 4 windows: Tensor.unfold\\(dim, size, step\\)'s third argument is the step"),
}

@pytest.mark.parametrize('label', list(_T24))
def test_the_twenty_fourth_sets_misses_are_named(label):
    import torch
    ex, src, says = _T24[label]
    ns = {}
    exec(_T24_PRELUDE, ns); exec(src, ns)
    run = {'restricted_attention': lambda ns: _t24_check_restricted_attention(ns['restricted_attention'])}[ex]
    dtype, grad = torch.get_default_dtype(), torch.is_grad_enabled()
    try: _t24_rejects(lambda: run(ns), says=says)
    finally: torch.set_default_dtype(dtype); torch.set_grad_enabled(grad)   # an answer that changes them must not change the next test


# ---------------------------------------------------------------- the twenty-sixth blind set's misses
from nbtools import assert_rejects as _t26_rejects

_T26_PRELUDE = 'import math, copy, random, torch, torch.nn as nn, torch.nn.functional as F\nfrom collections import Counter\nfrom transformer_nb.core import *\nfrom transformer_nb.complexity import local_mask\nfrom transformer_nb.attention import attention\nfrom transformer_nb.course.complexity import check_restricted_attention'   # the names the exercise's cell sees
_T26 = {   # label: (the exercise, the answer's code, what its message must say)
    'the first head only, broadcast to every head (right for h = 1)': ('restricted_attention', "\ndef restricted_attention(q, k, v, r):\n    H = q.shape[1]\n    q, k, v = q[:, :1], k[:, :1], v[:, :1]\n    n, w = q.shape[-2], r // 2\n    win = lambda t: F.pad(t, (0, 0, w, w)).unfold(-2, 2 * w + 1, 1)\n    s = torch.einsum('bhnd,bhndw->bhnw', q, win(k)) / q.shape[-1] ** 0.5\n    j = torch.arange(n)[:, None] + torch.arange(-w, w + 1)\n    s = s.masked_fill((j < 0) | (j >= n), float('-inf'))\n    return torch.einsum('bhnw,bhndw->bhnd', s.softmax(-1), win(v)).expand(-1, H, -1, -1)",
        "every head holds head 0's output"),
    'q.view(-1, n, d): relies on a contiguous input': ('restricted_attention', "\ndef restricted_attention(q, k, v, r):\n    B, h, n, d = q.shape\n    w = r // 2\n    q, k, v = (t.view(B * h, n, d) for t in (q, k, v))\n    win = lambda t: F.pad(t, (0, 0, w, w)).unfold(-2, 2 * w + 1, 1)\n    s = torch.einsum('xnd,xndw->xnw', q, win(k)) / d ** 0.5\n    j = torch.arange(n)[:, None] + torch.arange(-w, w + 1)\n    s = s.masked_fill((j < 0) | (j >= n), float('-inf'))\n    return torch.einsum('xnw,xndw->xnd', s.softmax(-1), win(v)).view(B, h, n, d)",
        '\\.view needs contiguous memory; use \\.reshape'),
}

@pytest.mark.parametrize('label', list(_T26))
def test_the_twenty_sixth_sets_misses_are_named(label):
    import torch
    ex, src, says = _T26[label]
    ns = {}
    exec(_T26_PRELUDE, ns); exec(src, ns)
    calls = {'restricted_attention': 'check_restricted_attention(restricted_attention)'}
    dtype, grad = torch.get_default_dtype(), torch.is_grad_enabled()
    try: _t26_rejects(lambda: eval(calls[ex], ns), says=says)
    finally: torch.set_default_dtype(dtype); torch.set_grad_enabled(grad)   # an answer that changes them must not change the next test


# ---------------------------------------------------------------- the twenty-ninth blind set's misses
from transformer_nb.course.complexity import check_restricted_attention as _t29_check_restricted_attention
from nbtools import assert_rejects as _t29_rejects

_T29_PRELUDE = 'import math, copy, random, torch, torch.nn as nn, torch.nn.functional as F\nfrom collections import Counter\nfrom transformer_nb.core import *\nfrom transformer_nb.complexity import local_mask\nfrom transformer_nb.attention import attention'   # the names the exercise's cell sees
_T29 = {   # label: (the exercise, the answer's code, what its message must say)
    'the mask inverted in torch.where: the padded rows kept, the real ones -inf': ('restricted_attention', "\ndef restricted_attention(q, k, v, r):\n    n, w = q.shape[-2], r // 2\n    win = lambda t: F.pad(t, (0, 0, w, w)).unfold(-2, 2 * w + 1, 1)\n    s = torch.einsum('bhnd,bhndw->bhnw', q, win(k)) / q.shape[-1] ** 0.5\n    j = torch.arange(n)[:, None] + torch.arange(-w, w + 1)\n    s = torch.where((j < 0) | (j >= n), s, float('-inf'))\n    return torch.einsum('bhnw,bhndw->bhnd', s.softmax(-1), win(v))",
        'your mask is inverted: the real keys get -inf'),
    'the queries windowed and the keys not: the band transposed': ('restricted_attention', "\ndef restricted_attention(q, k, v, r):\n    n, w = q.shape[-2], r // 2\n    win = lambda t: F.pad(t, (0, 0, w, w)).unfold(-2, 2 * w + 1, 1)\n    s = torch.einsum('bhndw,bhnd->bhnw', win(q), k) / q.shape[-1] ** 0.5\n    j = torch.arange(n)[:, None] + torch.arange(-w, w + 1)\n    s = s.masked_fill((j < 0) | (j >= n), float('-inf'))\n    return torch.einsum('bhnw,bhndw->bhnd', s.softmax(-1), win(v))",
        "the queries' windows are scored against each key"),
    "the mask from query 0's window (arange(-w, w + 1) < 0) for every query": ('restricted_attention', "\ndef restricted_attention(q, k, v, r):\n    n, w = q.shape[-2], r // 2\n    win = lambda t: F.pad(t, (0, 0, w, w)).unfold(-2, 2 * w + 1, 1)\n    s = torch.einsum('bhnd,bhndw->bhnw', q, win(k)) / q.shape[-1] ** 0.5\n    j = torch.arange(-w, w + 1)\n    s = s.masked_fill((j < 0) | (j >= n), float('-inf'))\n    return torch.einsum('bhnw,bhndw->bhnd', s.softmax(-1), win(v))",
        'your mask is one row for every query'),
    'a loop over the offsets summing exp(score) without the max: overflows for large scores': ('restricted_attention', '\ndef restricted_attention(q, k, v, r):\n    n, w = q.shape[-2], r // 2\n    num, den = torch.zeros_like(v), torch.zeros(*q.shape[:-1], 1)\n    for o in range(-w, w + 1):\n        lo = max(0, -o); hi = max(lo, min(n, n - o))\n        e = ((q[..., lo:hi, :] * k[..., lo + o:hi + o, :]).sum(-1, keepdim=True) / q.shape[-1] ** 0.5).exp()\n        num[..., lo:hi, :] += e * v[..., lo + o:hi + o, :]\n        den[..., lo:hi, :] += e\n    return num / den',
        "subtract each query's largest score first"),
    'unfold without padding: the first and last w queries output 0': ('restricted_attention', "\ndef restricted_attention(q, k, v, r):\n    n, w = q.shape[-2], r // 2\n    win = lambda t: t.unfold(-2, 2 * w + 1, 1)\n    s = torch.einsum('bhnd,bhndw->bhnw', q[..., w:n - w, :], win(k)) / q.shape[-1] ** 0.5\n    return F.pad(torch.einsum('bhnw,bhndw->bhnd', s.softmax(-1), win(v)), (0, 0, w, w))",
        'your keys were unfolded without padding'),
    '(a variant) mask offsets o > 0': ('restricted_attention', "\ndef restricted_attention(q, k, v, r):\n    n, w = q.shape[-2], r // 2\n    win = lambda t: F.pad(t, (0, 0, w, w)).unfold(-2, 2 * w + 1, 1)\n    s = torch.einsum('bhnd,bhndw->bhnw', q, win(k)) / q.shape[-1] ** 0.5\n    j = torch.arange(-w, w + 1)\n    s = s.masked_fill((j > 0), float('-inf'))\n    return torch.einsum('bhnw,bhndw->bhnd', s.softmax(-1), win(v))",
        'your mask is one row for every query'),
    '(a variant) hand softmax exp/sum': ('restricted_attention', "\ndef restricted_attention(q, k, v, r):\n    n, w = q.shape[-2], r // 2\n    win = lambda t: F.pad(t, (0, 0, w, w)).unfold(-2, 2 * w + 1, 1)\n    s = torch.einsum('bhnd,bhndw->bhnw', q, win(k)) / q.shape[-1] ** 0.5\n    j = torch.arange(n)[:, None] + torch.arange(-w, w + 1)\n    s = s.masked_fill((j < 0) | (j >= n), float('-inf'))\n    return torch.einsum('bhnw,bhndw->bhnd', (s.exp() / s.exp().sum(-1, keepdim=True)), win(v))",
        "subtract each query's largest score first"),
    '(a variant) no_grad': ('restricted_attention', "\ndef restricted_attention(q, k, v, r):\n    q, k, v = q.detach(), k.detach(), v.detach()\n    n, w = q.shape[-2], r // 2\n    win = lambda t: F.pad(t, (0, 0, w, w)).unfold(-2, 2 * w + 1, 1)\n    s = torch.einsum('bhnd,bhndw->bhnw', q, win(k)) / q.shape[-1] ** 0.5\n    j = torch.arange(n)[:, None] + torch.arange(-w, w + 1)\n    s = s.masked_fill((j < 0) | (j >= n), float('-inf'))\n    return torch.einsum('bhnw,bhndw->bhnd', s.softmax(-1), win(v))",
        'no gradient reaches q, k, v: your output is cut off from the graph'),
    '(a variant) squeeze at end (restricted_attention)': ('restricted_attention', "\ndef restricted_attention(q, k, v, r):\n    n, w = q.shape[-2], r // 2\n    win = lambda t: F.pad(t, (0, 0, w, w)).unfold(-2, 2 * w + 1, 1)\n    s = torch.einsum('bhnd,bhndw->bhnw', q, win(k)) / q.shape[-1] ** 0.5\n    j = torch.arange(n)[:, None] + torch.arange(-w, w + 1)\n    s = s.masked_fill((j < 0) | (j >= n), float('-inf'))\n    return torch.einsum('bhnw,bhndw->bhnd', s.softmax(-1), win(v)).squeeze()",
        '.squeeze() without a dim drops every axis of size 1'),
}

@pytest.mark.parametrize('label', list(_T29))
def test_the_twenty_ninth_sets_misses_are_named(label):
    import re, torch
    ex, src, says = _T29[label]
    ns = {}
    exec(_T29_PRELUDE, ns); exec(src, ns)
    run = {'restricted_attention': lambda ns: _t29_check_restricted_attention(ns['restricted_attention'])}[ex]
    dtype, grad = torch.get_default_dtype(), torch.is_grad_enabled()
    try: _t29_rejects(lambda: run(ns), says=re.escape(says))
    finally: torch.set_default_dtype(dtype); torch.set_grad_enabled(grad)   # an answer that changes them must not change the next test


# ---------------------------------------------------------------- the thirty-third blind set's misses
from transformer_nb.course.complexity import check_restricted_attention as _t33_check_restricted_attention
from nbtools import assert_rejects as _t33_rejects

_T33_PRELUDE = 'import math, copy, random, torch, torch.nn as nn, torch.nn.functional as F\nfrom collections import Counter\nfrom transformer_nb.core import *\nfrom transformer_nb.complexity import local_mask\nfrom transformer_nb.attention import attention'   # the names the exercise's cell sees
_T33 = {   # label: (the exercise, the answer's code, what its message must say)
    'w at least 1 (max(r // 2, 1)): r = 1 attends to neighbours': ('restricted_attention', "\ndef restricted_attention(q, k, v, r):\n    n, w = q.shape[-2], max(r // 2, 1)\n    win = lambda t: F.pad(t, (0, 0, w, w)).unfold(-2, 2 * w + 1, 1)\n    s = torch.einsum('bhnd,bhndw->bhnw', q, win(k)) / q.shape[-1] ** 0.5\n    j = torch.arange(n)[:, None] + torch.arange(-w, w + 1)\n    s = s.masked_fill((j < 0) | (j >= n), float('-inf'))\n    return torch.einsum('bhnw,bhndw->bhnd', s.softmax(-1), win(v))",
        'at r = 1, r // 2 = 0: each query sees itself alone'),
    'windows by gather with the indices clamped to [0, n - 1]: the end keys repeated, no mask': ('restricted_attention', "\ndef restricted_attention(q, k, v, r):\n    n, w = q.shape[-2], r // 2\n    idx = (torch.arange(n)[:, None] + torch.arange(-w, w + 1)).clamp(0, n - 1)\n    kw, vw = k[:, :, idx], v[:, :, idx]\n    s = torch.einsum('bhnd,bhnwd->bhnw', q, kw) / q.shape[-1] ** 0.5\n    return torch.einsum('bhnw,bhnwd->bhnd', s.softmax(-1), vw)",
        'as if the slots past the ends held copies of the first and last keys and values'),
    "einsum with another letter for the windows' position axis: every window summed": ('restricted_attention', "\ndef restricted_attention(q, k, v, r):\n    n, w = q.shape[-2], r // 2\n    win = lambda t: F.pad(t, (0, 0, w, w)).unfold(-2, 2 * w + 1, 1)\n    s = torch.einsum('bhnd,bhmdw->bhnw', q, win(k)) / q.shape[-1] ** 0.5\n    j = torch.arange(n)[:, None] + torch.arange(-w, w + 1)\n    s = s.masked_fill((j < 0) | (j >= n), float('-inf'))\n    return torch.einsum('bhnw,bhndw->bhnd', s.softmax(-1), win(v))",
        'your scores sum over every window: in torch.einsum a letter'),
    'w capped at n // 2: a window wider than the sequence cut': ('restricted_attention', "\ndef restricted_attention(q, k, v, r):\n    n, w = q.shape[-2], min(r // 2, q.shape[-2] // 2)\n    win = lambda t: F.pad(t, (0, 0, w, w)).unfold(-2, 2 * w + 1, 1)\n    s = torch.einsum('bhnd,bhndw->bhnw', q, win(k)) / q.shape[-1] ** 0.5\n    j = torch.arange(n)[:, None] + torch.arange(-w, w + 1)\n    s = s.masked_fill((j < 0) | (j >= n), float('-inf'))\n    return torch.einsum('bhnw,bhndw->bhnd', s.softmax(-1), win(v))",
        'your window reaches 2 keys on each side of a query; it must reach r // 2 = 50'),
    '(a variant) w = r // 2 or 1': ('restricted_attention', "\ndef restricted_attention(q, k, v, r):\n    n, w = q.shape[-2], r // 2 or 1\n    win = lambda t: F.pad(t, (0, 0, w, w)).unfold(-2, 2 * w + 1, 1)\n    s = torch.einsum('bhnd,bhndw->bhnw', q, win(k)) / q.shape[-1] ** 0.5\n    j = torch.arange(n)[:, None] + torch.arange(-w, w + 1)\n    s = s.masked_fill((j < 0) | (j >= n), float('-inf'))\n    return torch.einsum('bhnw,bhndw->bhnd', s.softmax(-1), win(v))",
        'at r = 1, r // 2 = 0: each query sees itself alone'),
    "(a variant) F.pad(mode='replicate'), no mask": ('restricted_attention', "\ndef restricted_attention(q, k, v, r):\n    n, w = q.shape[-2], r // 2\n    win = lambda t: F.pad(t, (0, 0, w, w), mode='replicate').unfold(-2, 2 * w + 1, 1)\n    s = torch.einsum('bhnd,bhndw->bhnw', q, win(k)) / q.shape[-1] ** 0.5\n    j = torch.arange(n)[:, None] + torch.arange(-w, w + 1)\n    return torch.einsum('bhnw,bhndw->bhnd', s.softmax(-1), win(v))",
        'as if the slots past the ends held copies'),
    '(a variant) the output einsum summing every window': ('restricted_attention', "\ndef restricted_attention(q, k, v, r):\n    n, w = q.shape[-2], r // 2\n    win = lambda t: F.pad(t, (0, 0, w, w)).unfold(-2, 2 * w + 1, 1)\n    s = torch.einsum('bhnd,bhndw->bhnw', q, win(k)) / q.shape[-1] ** 0.5\n    j = torch.arange(n)[:, None] + torch.arange(-w, w + 1)\n    s = s.masked_fill((j < 0) | (j >= n), float('-inf'))\n    return torch.einsum('bhnw,bhmdw->bhnd', s.softmax(-1), win(v))",
        'your outputs sum over every window'),
    '(another kind) the values padded in front only (2w rows)': ('restricted_attention', "\ndef restricted_attention(q, k, v, r):\n    n, w = q.shape[-2], r // 2\n    win = lambda t: F.pad(t, (0, 0, w, w)).unfold(-2, 2 * w + 1, 1)\n    s = torch.einsum('bhnd,bhndw->bhnw', q, win(k)) / q.shape[-1] ** 0.5\n    j = torch.arange(n)[:, None] + torch.arange(-w, w + 1)\n    s = s.masked_fill((j < 0) | (j >= n), float('-inf'))\n    return torch.einsum('bhnw,bhndw->bhnd', s.softmax(-1), F.pad(v, (0, 0, 2 * w, 0)).unfold(-2, 2 * w + 1, 1))",
        'slot t of query i takes v[i - 2 * (r // 2) + t]'),
}

@pytest.mark.parametrize('label', list(_T33))
def test_the_thirty_third_sets_misses_are_named(label):
    import re, torch
    ex, src, says = _T33[label]
    ns = {}
    exec(_T33_PRELUDE, ns); exec(src, ns)
    run = {'restricted_attention': lambda ns: _t33_check_restricted_attention(ns['restricted_attention'])}[ex]
    dtype, grad = torch.get_default_dtype(), torch.is_grad_enabled()
    try: _t33_rejects(lambda: run(ns), says=re.escape(says))
    finally: torch.set_default_dtype(dtype); torch.set_grad_enabled(grad)   # an answer that changes them must not change the next test


# ---------------------------------------------------------------- the thirty-seventh blind set's misses
from transformer_nb.course.complexity import check_restricted_attention as _t37_check_restricted_attention
from nbtools import assert_rejects as _t37_rejects

_T37_PRELUDE = 'import math, copy, random, torch, torch.nn as nn, torch.nn.functional as F\nfrom collections import Counter\nfrom transformer_nb.core import *\nfrom transformer_nb.complexity import local_mask\nfrom transformer_nb.attention import attention'   # the names the exercise's cell sees
_T37 = {   # label: (the exercise, the answer's code, what its message must say)
    'valid[-w:] at r = 1 marks every slot': ('restricted_attention', "\ndef restricted_attention(q, k, v, r):\n    n, w = q.shape[-2], r // 2\n    kw = F.pad(k, (0, 0, w, w)).unfold(-2, 2 * w + 1, 1)                  # (B, h, n, d_k, 2w+1)\n    vw = F.pad(v, (0, 0, w, w)).unfold(-2, 2 * w + 1, 1)\n    s = torch.einsum('bhnd,bhndw->bhnw', q, kw) / math.sqrt(q.shape[-1])\n    valid = torch.ones(n + 2 * w, dtype=torch.bool)\n    valid[:w] = False\n    valid[-w:] = False                               # the w padded rows at each end\n    s = s.masked_fill(~valid.unfold(0, 2 * w + 1, 1), float('-inf'))\n    a = s.softmax(-1)\n    return torch.einsum('bhnw,bhndw->bhnd', a, vw)",
        'at r = 1, r // 2 = 0, every output is NaN'),
    '(a variant) valid[-w:] = valid[:w] = False': ('restricted_attention', "\ndef restricted_attention(q, k, v, r):\n    n, w = q.shape[-2], r // 2\n    kw = F.pad(k, (0, 0, w, w)).unfold(-2, 2 * w + 1, 1)                  # (B, h, n, d_k, 2w+1)\n    vw = F.pad(v, (0, 0, w, w)).unfold(-2, 2 * w + 1, 1)\n    s = torch.einsum('bhnd,bhndw->bhnw', q, kw) / math.sqrt(q.shape[-1])\n    valid = torch.ones(n + 2 * w, dtype=torch.bool)\n    valid[-w:] = valid[:w] = False\n    s = s.masked_fill(~valid.unfold(0, 2 * w + 1, 1), float('-inf'))\n    a = s.softmax(-1)\n    return torch.einsum('bhnw,bhndw->bhnd', a, vw)",
        'every output is NaN'),
    'log_softmax for softmax': ('restricted_attention', "\ndef restricted_attention(q, k, v, r):\n    n, w = q.shape[-2], r // 2\n    kw = F.pad(k, (0, 0, w, w)).unfold(-2, 2 * w + 1, 1)                  # (B, h, n, d_k, 2w+1)\n    vw = F.pad(v, (0, 0, w, w)).unfold(-2, 2 * w + 1, 1)\n    s = torch.einsum('bhnd,bhndw->bhnw', q, kw) / math.sqrt(q.shape[-1])\n    j = torch.arange(n)[:, None] + torch.arange(-w, w + 1)\n    s = s.masked_fill((j < 0) | (j >= n), float('-inf'))\n    a = s.log_softmax(-1)\n    return torch.einsum('bhnw,bhndw->bhnd', a, vw)",
        "your weights are log_softmax's"),
    '(a variant) torch.log_softmax': ('restricted_attention', "\ndef restricted_attention(q, k, v, r):\n    n, w = q.shape[-2], r // 2\n    kw = F.pad(k, (0, 0, w, w)).unfold(-2, 2 * w + 1, 1)                  # (B, h, n, d_k, 2w+1)\n    vw = F.pad(v, (0, 0, w, w)).unfold(-2, 2 * w + 1, 1)\n    s = torch.einsum('bhnd,bhndw->bhnw', q, kw) / math.sqrt(q.shape[-1])\n    j = torch.arange(n)[:, None] + torch.arange(-w, w + 1)\n    s = s.masked_fill((j < 0) | (j >= n), float('-inf'))\n    a = torch.log_softmax(s, dim=-1)\n    return torch.einsum('bhnw,bhndw->bhnd', a, vw)",
        "your weights are log_softmax's"),
    'dropout on the weights': ('restricted_attention', "\ndef restricted_attention(q, k, v, r):\n    n, w = q.shape[-2], r // 2\n    kw = F.pad(k, (0, 0, w, w)).unfold(-2, 2 * w + 1, 1)                  # (B, h, n, d_k, 2w+1)\n    vw = F.pad(v, (0, 0, w, w)).unfold(-2, 2 * w + 1, 1)\n    s = torch.einsum('bhnd,bhndw->bhnw', q, kw) / math.sqrt(q.shape[-1])\n    j = torch.arange(n)[:, None] + torch.arange(-w, w + 1)\n    s = s.masked_fill((j < 0) | (j >= n), float('-inf'))\n    a = F.dropout(s.softmax(-1), 0.1)\n    return torch.einsum('bhnw,bhndw->bhnd', a, vw)",
        'your output changes from one call to the next on the same q, k and v'),
    '(a variant) an nn.Dropout made inside': ('restricted_attention', "\ndef restricted_attention(q, k, v, r):\n    n, w = q.shape[-2], r // 2\n    kw = F.pad(k, (0, 0, w, w)).unfold(-2, 2 * w + 1, 1)                  # (B, h, n, d_k, 2w+1)\n    vw = F.pad(v, (0, 0, w, w)).unfold(-2, 2 * w + 1, 1)\n    s = torch.einsum('bhnd,bhndw->bhnw', q, kw) / math.sqrt(q.shape[-1])\n    j = torch.arange(n)[:, None] + torch.arange(-w, w + 1)\n    s = s.masked_fill((j < 0) | (j >= n), float('-inf'))\n    a = torch.nn.Dropout(0.1)(s.softmax(-1))\n    return torch.einsum('bhnw,bhndw->bhnd', a, vw)",
        'something random runs'),
    'the shift loop breaks past n': ('restricted_attention', "\ndef restricted_attention(q, k, v, r):\n    n, w = q.shape[-2], r // 2\n    scores, vals, oks = [], [], []\n    for o in range(-w, w + 1):                                            # key j = i + o\n        if o >= 0: ks, vs = F.pad(k[..., o:, :], (0, 0, 0, o)), F.pad(v[..., o:, :], (0, 0, 0, o))\n        else: ks, vs = F.pad(k[..., :o, :], (0, 0, -o, 0)), F.pad(v[..., :o, :], (0, 0, -o, 0))\n        scores.append((q * ks).sum(-1) / math.sqrt(q.shape[-1])); vals.append(vs)\n        oks.append((torch.arange(n) + o >= 0) & (torch.arange(n) + o < n))\n    s = torch.stack(scores, -1).masked_fill(~torch.stack(oks, -1), float('-inf'))   # (B, h, n, 2w+1)\n    return (s.softmax(-1).unsqueeze(-1) * torch.stack(vals, -2)).sum(-2)",
        'with r // 2 = 50 at least n = 5, and runs when r // 2 < n: a window wider than the sentence'),
    'squeeze() after the matmul': ('restricted_attention', "\ndef restricted_attention(q, k, v, r):\n    n, w = q.shape[-2], r // 2\n    kw = F.pad(k, (0, 0, w, w)).unfold(-2, 2 * w + 1, 1)                  # (B, h, n, d_k, 2w+1)\n    vw = F.pad(v, (0, 0, w, w)).unfold(-2, 2 * w + 1, 1).transpose(-1, -2)   # (B, h, n, 2w+1, d_k)\n    s = (q.unsqueeze(-2) @ kw).squeeze() / math.sqrt(q.shape[-1])          # (B, h, n, 2w+1)\n    j = torch.arange(n)[:, None] + torch.arange(-w, w + 1)\n    s = s.masked_fill((j < 0) | (j >= n), float('-inf'))\n    return (s.softmax(-1).unsqueeze(-2) @ vw).squeeze(-2)",
        '.squeeze() without a dim dropped every axis of size 1'),
    'full attention when n <= r': ('restricted_attention', "\ndef restricted_attention(q, k, v, r):\n    n, w = q.shape[-2], r // 2\n    if n <= r: return attention(q, k, v)[0]                               # the window covers the whole sequence\n    kw = F.pad(k, (0, 0, w, w)).unfold(-2, 2 * w + 1, 1)\n    vw = F.pad(v, (0, 0, w, w)).unfold(-2, 2 * w + 1, 1)\n    s = torch.einsum('bhnd,bhndw->bhnw', q, kw) / math.sqrt(q.shape[-1])\n    j = torch.arange(n)[:, None] + torch.arange(-w, w + 1)\n    s = s.masked_fill((j < 0) | (j >= n), float('-inf'))\n    return torch.einsum('bhnw,bhndw->bhnd', s.softmax(-1), vw)",
        "your output is full attention's, every key for every query"),
    '(a variant) full attention through F.scaled_dot_product_attention': ('restricted_attention', "\ndef restricted_attention(q, k, v, r):\n    n, w = q.shape[-2], r // 2\n    if n <= r: return F.scaled_dot_product_attention(q, k, v)                               # the window covers the whole sequence\n    kw = F.pad(k, (0, 0, w, w)).unfold(-2, 2 * w + 1, 1)\n    vw = F.pad(v, (0, 0, w, w)).unfold(-2, 2 * w + 1, 1)\n    s = torch.einsum('bhnd,bhndw->bhnw', q, kw) / math.sqrt(q.shape[-1])\n    j = torch.arange(n)[:, None] + torch.arange(-w, w + 1)\n    s = s.masked_fill((j < 0) | (j >= n), float('-inf'))\n    return torch.einsum('bhnw,bhndw->bhnd', s.softmax(-1), vw)",
        "full attention is the window's only when n - 1 <= r // 2"),
    'the edge mask kept from the first call': ('restricted_attention', "\n_EDGE = {}\ndef restricted_attention(q, k, v, r):\n    n, w = q.shape[-2], r // 2\n    if 'mask' not in _EDGE:                                               # built once, reused\n        j = torch.arange(n)[:, None] + torch.arange(-w, w + 1)\n        _EDGE['mask'] = (j < 0) | (j >= n)\n    kw = F.pad(k, (0, 0, w, w)).unfold(-2, 2 * w + 1, 1)\n    vw = F.pad(v, (0, 0, w, w)).unfold(-2, 2 * w + 1, 1)\n    s = torch.einsum('bhnd,bhndw->bhnw', q, kw) / math.sqrt(q.shape[-1])\n    s = s.masked_fill(_EDGE['mask'], float('-inf'))\n    return torch.einsum('bhnw,bhndw->bhnd', s.softmax(-1), vw)",
        'a fresh copy of your function, with nothing kept from earlier calls, runs here'),
    '(a variant) the mask kept on the function': ('restricted_attention', "\ndef restricted_attention(q, k, v, r):\n    n, w = q.shape[-2], r // 2\n    if not hasattr(restricted_attention, 'edge'):\n        j = torch.arange(n)[:, None] + torch.arange(-w, w + 1)\n        restricted_attention.edge = (j < 0) | (j >= n)\n    win = lambda t: F.pad(t, (0, 0, w, w)).unfold(-2, 2 * w + 1, 1)\n    s = torch.einsum('bhnd,bhndw->bhnw', q, win(k)) / math.sqrt(q.shape[-1])\n    return torch.einsum('bhnw,bhndw->bhnd', s.masked_fill(restricted_attention.edge, float('-inf')).softmax(-1), win(v))",
        'something kept from an earlier call'),
    'F.unfold over the features': ('restricted_attention', "\ndef restricted_attention(q, k, v, r):\n    B, h, n, d = q.shape; w = r // 2\n    def win(t):\n        return F.unfold(t, kernel_size=(1, 2 * w + 1), padding=(0, w)).view(B, h, 2 * w + 1, n, d).permute(0, 1, 3, 4, 2)\n    kw, vw = win(k), win(v)\n    s = torch.einsum('bhnd,bhndw->bhnw', q, kw) / math.sqrt(d)\n    W = kw.shape[-1]\n    j = torch.arange(n)[:, None] + torch.arange(W) - w\n    s = s.masked_fill((j < 0) | (j >= n), float('-inf'))\n    return torch.einsum('bhnw,bhndw->bhnd', s.softmax(-1), vw)",
        'your F.unfold slides its kernel_size=(1, 3) over the features'),
    'F.unfold windows of r rows (even r)': ('restricted_attention', "\ndef restricted_attention(q, k, v, r):\n    B, h, n, d = q.shape; w = r // 2\n    def win(t):\n        return F.unfold(t, kernel_size=(r, 1), padding=(w, 0)).view(B, h, r, n, d).permute(0, 1, 3, 4, 2)\n    kw, vw = win(k), win(v)\n    s = torch.einsum('bhnd,bhndw->bhnw', q, kw) / math.sqrt(d)\n    W = kw.shape[-1]\n    j = torch.arange(n)[:, None] + torch.arange(W) - w\n    s = s.masked_fill((j < 0) | (j >= n), float('-inf'))\n    return torch.einsum('bhnw,bhndw->bhnd', s.softmax(-1), vw)",
        'your F.unfold takes windows of kernel_size=(8, 1) with padding=(4, 0)'),
    '(a variant) F.unfold windows of r rows, cut to n': ('restricted_attention', "\ndef restricted_attention(q, k, v, r):\n    B, h, n, d = q.shape; w = r // 2\n    def win(t):\n        u = F.unfold(t, kernel_size=(r, 1), padding=(w, 0))\n        return u.view(B, h, r, -1, d)[:, :, :, :n].permute(0, 1, 3, 4, 2)\n    kw, vw = win(k), win(v)\n    s = torch.einsum('bhnd,bhndw->bhnw', q, kw) / math.sqrt(d)\n    W = kw.shape[-1]\n    j = torch.arange(n)[:, None] + torch.arange(W) - w\n    s = s.masked_fill((j < 0) | (j >= n), float('-inf'))\n    return torch.einsum('bhnw,bhndw->bhnd', s.softmax(-1), vw)",
        'your F.unfold takes windows of kernel_size=(8, 1)'),
    '(a variant) F.unfold windows of 2w rows': ('restricted_attention', "\ndef restricted_attention(q, k, v, r):\n    B, h, n, d = q.shape; w = r // 2\n    def win(t):\n        u = F.unfold(t, kernel_size=(2 * w, 1), padding=(w, 0))\n        return u.view(B, h, 2 * w, -1, d)[:, :, :, :n].permute(0, 1, 3, 4, 2)\n    kw, vw = win(k), win(v)\n    s = torch.einsum('bhnd,bhndw->bhnw', q, kw) / math.sqrt(d)\n    W = kw.shape[-1]\n    j = torch.arange(n)[:, None] + torch.arange(W) - w\n    s = s.masked_fill((j < 0) | (j >= n), float('-inf'))\n    return torch.einsum('bhnw,bhndw->bhnd', s.softmax(-1), vw)",
        'your F.unfold takes windows of kernel_size=(2, 1)'),
}

@pytest.mark.parametrize('label', list(_T37))
def test_the_thirty_seventh_sets_misses_are_named(label):
    import re, torch
    ex, src, says = _T37[label]
    ns = {}
    exec(_T37_PRELUDE, ns); exec(src, ns)
    run = {'restricted_attention': lambda ns: _t37_check_restricted_attention(ns['restricted_attention'])}[ex]
    dtype, grad = torch.get_default_dtype(), torch.is_grad_enabled()
    try: _t37_rejects(lambda: run(ns), says=re.escape(says))
    finally: torch.set_default_dtype(dtype); torch.set_grad_enabled(grad)   # an answer that changes them must not change the next test

_T37_RIGHT = {   # right answers written with F.unfold (im2col): they pass
    'F.unfold with kernel_size=(2w + 1, 1)': "\ndef restricted_attention(q, k, v, r):\n    B, h, n, d = q.shape; w = r // 2\n    def win(t):\n        return F.unfold(t, kernel_size=(2 * w + 1, 1), padding=(w, 0)).view(B, h, 2 * w + 1, n, d).permute(0, 1, 3, 4, 2)\n    kw, vw = win(k), win(v)\n    s = torch.einsum('bhnd,bhndw->bhnw', q, kw) / math.sqrt(d)\n    W = kw.shape[-1]\n    j = torch.arange(n)[:, None] + torch.arange(W) - w\n    s = s.masked_fill((j < 0) | (j >= n), float('-inf'))\n    return torch.einsum('bhnw,bhndw->bhnd', s.softmax(-1), vw)",
    'F.unfold over the heads merged into the features, (B, 1, n, h d_k)': "\ndef restricted_attention(q, k, v, r):\n    B, h, n, d = q.shape; w = r // 2\n    def win(t):\n        return F.unfold(t.transpose(1, 2).reshape(B, 1, n, h * d), kernel_size=(2 * w + 1, 1), padding=(w, 0)).view(B, 2 * w + 1, n, h, d).permute(0, 3, 2, 4, 1)\n    kw, vw = win(k), win(v)\n    s = torch.einsum('bhnd,bhndw->bhnw', q, kw) / math.sqrt(d)\n    W = kw.shape[-1]\n    j = torch.arange(n)[:, None] + torch.arange(W) - w\n    s = s.masked_fill((j < 0) | (j >= n), float('-inf'))\n    return torch.einsum('bhnw,bhndw->bhnd', s.softmax(-1), vw)",
}

@pytest.mark.parametrize('label', list(_T37_RIGHT))
def test_right_answers_through_F_unfold_pass(label):
    ns = {}
    exec(_T37_PRELUDE, ns); exec(_T37_RIGHT[label], ns)
    assert _t37_check_restricted_attention(ns['restricted_attention']) is True   # (B, 1, n, h d_k) has two sizes of at least n, and only one grows with n
