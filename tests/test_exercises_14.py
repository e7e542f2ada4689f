"""14_since_2017's exercises, proven away from the learner's names: each check (`transformer_nb.course.since2017`,
course_since2017) accepts the solution the notebook prints, reports an unwritten stub without failing, and names each
likely mistake with the case it fails, returning False and never raising."""
import contextlib, io
import pytest
import torch
from nbtools import code_blocks, namespace
from transformer_nb.course.since2017 import check_rms_norm, check_rotate, check_group_kv

NB, EXERCISES = '14_since_2017', 's14h0001'
RMS, ROTATE, GROUP = code_blocks(NB, EXERCISES)

def said(check, answer) -> tuple:
    "What `check(answer)` returns, and the line it prints."
    with contextlib.redirect_stdout(io.StringIO()) as out: ok = check(answer)
    return ok, out.getvalue().strip()

def solution(src:str, name:str):
    ns = {'torch': torch}; exec(src, ns); return ns[name]

@pytest.mark.parametrize('check, src, name, line', [
    (check_rms_norm, RMS, 'rms_norm_of', 'rms_norm_of computes RMSNorm: each vector divided by its root mean square, times the gain'),
    (check_rotate, ROTATE, 'rotate_query', 'rotate_query turns each pair of coordinates by its own angle m * theta_i, as rotate does'),
    (check_group_kv, GROUP, 'group_heads', "group_heads gives grouped-query attention's keys and values: consecutive heads averaged by group, repeated in place")])
def test_the_printed_solutions_pass(check, src, name, line):
    assert said(check, solution(src, name)) == (True, line)

@pytest.mark.parametrize('cell, name', [('s14h0002', 'rms_norm_of'), ('s14h0003', 'rotate_query'), ('s14h0004', 'group_heads')])
def test_the_stubs_are_reported_as_not_written(cell, name, capsys):
    namespace(NB, cell)
    assert f'{name} is not written yet' in capsys.readouterr().out

# ---- each likely mistake, named (the solution changed as a learner would change it)

@pytest.mark.parametrize('old, new, case, mistake', [
    ('a / torch.sqrt', '(a - a.mean(-1, keepdim=True)) / torch.sqrt', 'vectors of mean 3', 'you took the mean away'),
    ('a / torch.sqrt(a.pow(2).mean(-1, keepdim=True) + eps)', '(a - a.mean(-1, keepdim=True)) / torch.sqrt(a.var(-1, unbiased=False, keepdim=True) + eps)',
     'vectors of mean 3', 'that is LayerNorm'),
    ('a.pow(2).mean(-1, keepdim=True)', 'a.var(-1, unbiased=False, keepdim=True)', 'vectors of mean 3', 'the standard deviation'),
    ('a.pow(2).mean(-1, keepdim=True)', 'a.var(-1, keepdim=True)', 'vectors of mean 3', 'n - 1'),
    (' * g', '', 'vectors of mean 3', 'the gain g is missing'),
    (' * g', ' + g', 'vectors of mean 3', 'not a shift'),
    ('torch.sqrt(a.pow(2).mean(-1, keepdim=True) + eps)', '(a.pow(2).mean(-1, keepdim=True) + eps)', 'vectors of mean 3', 'the root is missing'),
    ('a.pow(2).mean(-1, keepdim=True)', 'a.pow(2).sum(-1, keepdim=True)', 'vectors of mean 3', 'not their sum'),
    ('torch.sqrt(a.pow(2).mean(-1, keepdim=True) + eps)', '(torch.sqrt(a.pow(2).mean(-1, keepdim=True)) + eps)', 'vectors near zero', 'eps goes under the root'),
    (' + eps)', ')', 'vectors near zero', 'eps is missing'),
    ('mean(-1, keepdim=True)', 'mean(0, keepdim=True)', 'vectors of mean 3', 'over the last axis'),
    ('a.pow(2).mean(-1, keepdim=True)', 'a.pow(2).mean()', 'vectors of mean 3', 'not over the whole tensor'),
])
def test_rms_norm_mistakes_are_named(old, new, case, mistake):
    assert old in RMS, old
    ok, line = said(check_rms_norm, solution(RMS.replace(old, new, 1), 'rms_norm_of'))
    assert not ok and line.startswith(f'Not yet: {case}') and mistake in line, line

def test_rms_norm_in_place_is_named():
    def rms_norm_of(a, g, eps=1e-5): return a.div_(torch.sqrt(a.pow(2).mean(-1, keepdim=True) + eps)).mul_(g)
    ok, line = said(check_rms_norm, rms_norm_of)
    assert not ok and 'in place' in line, line

@pytest.mark.parametrize('old, new, case, mistake', [
    ('x1, x2 = q[0::2].double(), q[1::2].double()', 'x1, x2 = q[:len(q) // 2].double(), q[len(q) // 2:].double()', 'a query of size 8 at position 0', 'rotate-half'),
    ('a = m * 10000.0', 'a = m + 0 * 10000.0', 'a query of size 8 at position 1', 'every pair turned by the same angle'),
    ('a = m * ', 'a = -m * ', 'a query of size 8 at position 1', 'turned the wrong way'),
    ('a = m * ', 'a = (m + 1) * ', 'a query of size 8 at position 0', 'off by one'),
    ('torch.arange(0, len(q), 2, dtype=torch.float64) / len(q)', 'torch.arange(len(q) // 2, dtype=torch.float64) / len(q)', 'a query of size 8 at position 1', '10000^(-i/d)'),
    ('a = m * 10000.0', 'a = torch.pi / 180 * m * 10000.0', 'a query of size 8 at position 1', 'radians'),
    ('x1 * a.cos() - x2 * a.sin(), x1 * a.sin() + x2 * a.cos()', 'x1 * a.sin() - x2 * a.cos(), x1 * a.cos() + x2 * a.sin()',
     'a query of size 8 at position 0', 'the rotation the identity: q must come back unchanged, and yours moved it; sin and cos are swapped'),
    ('x1, x2 = q[0::2].double(), q[1::2].double()', 'x1, x2 = q[:len(q) // 2].double(), q[len(q) // 2:].double()', 'a query of size 8 at position 0',
     'the same rotation up to a fixed reordering of the coordinates'),
])
def test_rotate_mistakes_are_named(old, new, case, mistake):
    assert old in ROTATE, old
    ok, line = said(check_rotate, solution(ROTATE.replace(old, new, 1), 'rotate_query'))
    assert not ok and line.startswith(f'Not yet: {case}') and mistake in line, line

def test_rotate_in_float64_of_a_float32_query_is_accepted():
    "The right values returned in float64 (the angles' dtype) are accepted: no raw dtype error reaches the learner."
    assert ROTATE.count('.to(q.dtype)') == 1
    ok, line = said(check_rotate, solution(ROTATE.replace('.to(q.dtype)', ''), 'rotate_query'))
    assert ok and line.startswith('rotate_query turns each pair'), line

def test_rotate_that_changes_the_length_or_the_shape_is_named():
    ok, line = said(check_rotate, lambda q, m: q * (1 + m))
    assert not ok and 'a rotation keeps the length' in line, line
    ok, line = said(check_rotate, lambda q, m: q[None])
    assert not ok and 'return a vector of 8 numbers' in line, line

@pytest.mark.parametrize('old, new, case, mistake', [
    ('k.view(B, g, h // g, n, d).mean(2)', 'k.view(B, h // g, g, n, d).mean(1)', '8 heads in 2 groups', 'consecutive'),
    ('.repeat_interleave(h // g, dim=1)', '.repeat(1, h // g, 1, 1)', '8 heads in 2 groups', 'repeat_interleave'),
    ('.mean(2)', '.sum(2)', '8 heads in 2 groups', 'not their sum'),
    ('.mean(2)', '[:, :, 0]', '8 heads in 2 groups', 'not its first head'),
    ('.repeat_interleave(h // g, dim=1)', '', '8 heads in 2 groups', 'return h = 8 heads'),
    ('k.view(B, g, h // g, n, d).mean(2).repeat_interleave(h // g, dim=1)', 'k.mean(1, keepdim=True).expand(B, h, n, d)', '8 heads in 2 groups', 'multi-query'),
    ('.repeat_interleave(h // g, dim=1)', '.repeat_interleave(g, dim=1)', '8 heads in 2 groups',
     "each group's head is repeated 2 times (repeat_interleave(2)?), and it stands for h/g = 4 heads: repeat_interleave(h // g, dim=1)"),
    ('k.view(B, g, h // g, n, d).mean(2).repeat_interleave(h // g, dim=1)', 'k.view(B, h // g, g, n, d).mean(2).repeat_interleave(g, dim=1)',
     '8 heads in 2 groups', 'you read g as the heads in a group, making h/g = 4 groups of 2: g is the number of groups'),
])
def test_group_kv_mistakes_are_named(old, new, case, mistake):
    assert old in GROUP, old
    ok, line = said(check_group_kv, solution(GROUP.replace(old, new, 1), 'group_heads'))
    assert not ok and line.startswith(f'Not yet: {case}') and mistake in line, line

def test_a_check_that_raises_inside_the_answer_says_so_and_returns_false():
    def group_heads(k, g): return 1 / 0
    ok, line = said(check_group_kv, group_heads)
    assert not ok and line == 'group_heads raised ZeroDivisionError: division by zero', line

# ---------------------------------------------------------------- a fresh blind set: wrong answers written before reading the messages
import re as _n9re
from nbtools import assert_rejects as _n9_rejects
import math as _n9math
def _n9_rot(base=10000.0, shift=0):
    def rotate_query(q, m):
        d = len(q); a = (m + shift) * base ** (-torch.arange(0, d, 2, dtype=torch.float64) / d)
        x1, x2 = q[0::2].double(), q[1::2].double()
        return torch.stack([x1 * a.cos() - x2 * a.sin(), x1 * a.sin() + x2 * a.cos()], -1).flatten().to(q.dtype)
    return rotate_query
def _n9_grp(reduce):
    def group_heads(k, g):
        B, h, n, d = k.shape; return reduce(k.view(B, g, h // g, n, d)).repeat_interleave(h // g, dim=1)
    return group_heads
NINTH = [('LayerNorm for RMSNorm', check_rms_norm, (lambda a, g, eps=1e-5: (a - a.mean(-1, keepdim=True)) / torch.sqrt(a.var(-1, keepdim=True, unbiased=False) + eps) * g,), "that is LayerNorm"),
         ('eps outside the root', check_rms_norm, (lambda a, g, eps=1e-5: a / (a.pow(2).mean(-1, keepdim=True).sqrt() + eps) * g,), "you added it after the root"),
         ('sum of squares for the mean', check_rms_norm, (lambda a, g, eps=1e-5: a / torch.sqrt(a.pow(2).sum(-1, keepdim=True) + eps) * g,), "the mean of the squares, not their sum"),
         ('position m + 1', check_rotate, (_n9_rot(shift=1),), "the position is off by one"),
         ('base 1000', check_rotate, (_n9_rot(base=1000.0),), "the frequencies' base is 1000, not 10000"),
         ('log10 in the frequencies (base e^4)', check_rotate, (_n9_rot(base=_n9math.exp(4)),), "the frequencies' base is 54.6, not 10000"),
         ('max for the mean', check_group_kv, (_n9_grp(lambda v: v.amax(2)),), "not their largest entry (max)"),
         ('first head for the mean', check_group_kv, (_n9_grp(lambda v: v[:, :, 0]),), "not its first head"),
         ('median for the mean', check_group_kv, (_n9_grp(lambda v: v.median(2).values),), "not their median"),
         ('no grouping at all', check_group_kv, (lambda k, g: k + 0.0,), "yours differ inside a group")]

def test_ninth_right_rotate_and_groups_pass():
    assert check_rotate(_n9_rot()) is True and check_group_kv(_n9_grp(lambda v: v.mean(2))) is True
NINTH += [('no gain', check_rms_norm, (lambda a, g, eps=1e-5: a / torch.sqrt(a.pow(2).mean(-1, keepdim=True) + eps),), "the gain g is missing"),
          ('mean over the whole tensor', check_rms_norm, (lambda a, g, eps=1e-5: a / torch.sqrt(a.pow(2).mean() + eps) * g,), "not over the whole tensor")]

@pytest.mark.parametrize('label', [c[0] for c in NINTH])
def test_ninth_blind_answers_named(label):
    "Each answer of the blind set is refused with a message that names its mistake."
    _, check, answer, words = next(c for c in NINTH if c[0] == label)
    _n9_rejects(check, *answer, says=_n9re.escape(words))


# ---------------------------------------------------------------- the thirteenth blind set's misses (results/checker_answers.json)
def _turn(angle, sign_sin=-1, sign_cos=1):
    "A rotate_query that turns pair i by angle(m, d)[i], as (x cos a + sign_sin y sin a, x sin a + sign_cos y cos a)."
    def rotate_query(q, m):
        a = angle(m, len(q))
        x1, x2 = q[0::2].double(), q[1::2].double()
        return torch.stack([x1 * a.cos() + sign_sin * x2 * a.sin(), x1 * a.sin() + sign_cos * x2 * a.cos()], -1).flatten().to(q.dtype)
    return rotate_query

@pytest.mark.parametrize('answer, says', [
    (_turn(lambda m, d: m * 10000.0 ** (torch.arange(0, d, 2, dtype=torch.float64) / d)), r"yours is m \* 10000\^\(2i/d\)"),
    (_turn(lambda m, d: m / 10000.0 ** (-torch.arange(0, d, 2, dtype=torch.float64) / d)), r"yours is m \* 10000\^\(2i/d\) \(a power of \+2i/d, or m / theta_i\)"),
    (_turn(lambda m, d: m * 10000.0 ** (-torch.arange(0, d, 2, dtype=torch.float64) / d), sign_sin=1, sign_cos=-1), r"a sign slipped: .* is a reflection, not a turn")])
def test_rotate_inverse_frequencies_and_a_reflection_are_named(answer, says):
    _n9_rejects(check_rotate, answer, says=says)


# ---------------------------------------------------------------- the fourteenth blind set's misses (results/checker_answers.json)
def _halves_out(q, m):
    "Right pairs (2i, 2i+1) turned by the right angles, written back as halves: torch.cat, not stack and flatten."
    a = m * 10000.0 ** (-torch.arange(0, len(q), 2, dtype=torch.float64) / len(q))
    x1, x2 = q[0::2].double(), q[1::2].double()
    return torch.cat([x1 * a.cos() - x2 * a.sin(), x1 * a.sin() + x2 * a.cos()]).to(q.dtype)

def test_right_pairs_written_back_as_halves_are_named():
    _n9_rejects(check_rotate, _halves_out, says=r"a query of size 8 at position 0: .*you turned the right pairs, neighbours 2i and 2i\+1, and wrote them back as halves, torch\.cat\(\[y1, y2\]\)")


# ---------------------------------------------------------------- the fifteenth blind set's misses (results/checker_answers.json)
def test_a_mean_without_keepdim_is_named():
    "mean(-1) without keepdim: the division fails to broadcast on a batch of vectors; the check names the lost axis, not the error alone."
    _n9_rejects(check_rms_norm, lambda a, g, eps=1e-5: a / torch.sqrt(a.pow(2).mean(-1) + eps) * g,
                says=r"^Not yet: vectors of mean 3: your rms_norm_of raised RuntimeError \(.*\): the mean of the squares lost its axis, mean\(-1\) "
                     r"without keepdim, one RMS per vector of shape \(2, 3\), which does not line up with a \(2, 3, 8\); mean\(-1, keepdim=True\)")

def test_another_error_is_still_reported_as_it_is():
    def broken(a, g, eps=1e-5): raise RuntimeError("something else")
    assert said(check_rms_norm, broken) == (False, "broken raised RuntimeError: something else")

def test_a_doubled_exponent_is_named():
    "2i taken from torch.arange(0, d, 2), then doubled again: theta_i = 10000^(-4i/d), named as the doubled exponent, not as another base."
    def rotate_query(q, m):
        a = m * 10000.0 ** (-2 * torch.arange(0, len(q), 2, dtype=torch.float64) / len(q))
        x1, x2 = q[0::2].double(), q[1::2].double()
        return torch.stack([x1 * a.cos() - x2 * a.sin(), x1 * a.sin() + x2 * a.cos()], -1).flatten().to(q.dtype)
    _n9_rejects(check_rotate, rotate_query, says=r"^Not yet: a query of size 8 at position 1: your pairs turn by m \* 10000\^\(-4i/d\): the exponent is doubled")

# ---------------------------------------------------------------- the sixteenth blind set's misses
def _rms(f): return lambda a, g, eps=1e-5: f(a, g, eps)
def _turn(out):
    "A rotate_query computed in float64 whose pair (x1, x2), turned by a, is put out by `out(x1, x2, a)`."
    def rotate_query(q, m):
        a = m * 10000.0 ** (-torch.arange(0, len(q), 2, dtype=torch.float64) / len(q))
        return out(q[0::2].double(), q[1::2].double(), a)
    return rotate_query

@pytest.mark.parametrize('check, answer, says', [
    (check_rms_norm, _rms(lambda a, g, eps: a / torch.sqrt(a.pow(2).mean(-1, keepdim=True) + eps) * (1 + g)), 'not 1 + g (Gemma'),
    (check_rms_norm, _rms(lambda a, g, eps: a / torch.sqrt(a.pow(2).mean(1, keepdim=True) + eps) * g), 'mean(-1, keepdim=True), not mean(1)'),
    (check_rms_norm, _rms(lambda a, g, eps: (a * g) / torch.sqrt((a * g).pow(2).mean(-1, keepdim=True) + eps)), 'multiplied in before the RMS, its scale cancels'),
    (check_rms_norm, _rms(lambda a, g, eps: a / torch.sqrt(a.pow(2).sum(-1, keepdim=True) / (a.shape[-1] - 1) + eps) * g), 'divides by d, the number of coordinates, not d - 1'),
    (check_rms_norm, _rms(lambda a, g, eps: (a.float() * torch.rsqrt(a.float().pow(2).mean(-1, keepdim=True) + eps)) * g.float()), 'float64 vectors: your output is torch.float32'),
    (check_rotate, _turn(lambda x1, x2, a: torch.complex(x1, x2) * torch.polar(torch.ones_like(a), a)), 'a complex tensor of 4 numbers, one per pair'),
    (check_rotate, _turn(lambda x1, x2, a: torch.stack([x1 * a.cos() + x2 * a.sin(), x2 * a.cos() + x1 * a.sin()], -1).flatten().float()), 'swapped and the minus is gone'),
    (check_group_kv, lambda k, g: k.view(k.shape[0], k.shape[1], g, k.shape[2] // g, k.shape[3]).mean(3).repeat_interleave(k.shape[2] // g, dim=2), 'laid out (B, n, h, d), flash attention'),
], ids=['1 + g', 'axis 1', 'gain before', 'd - 1', 'float32', 'complex', 'swapped', 'flash layout'])
def test_the_sixteenth_sets_misses_are_named(check, answer, says):
    ok, out = said(check, answer)
    assert ok is not True and says in out, out


# ---------------------------------------------------------------- the eighteenth blind set's misses (results/checker_answers.json)
def _partial(q, m):
    "GPT-NeoX's rotary_pct 0.25: the first quarter of the coordinates turned (at least one pair), the rest kept."
    d = len(q); r = max(2, d // 4 // 2 * 2)
    a = m * 10000.0 ** (-torch.arange(0, r, 2, dtype=torch.float64) / r)
    x1, x2 = q[0:r:2].double(), q[1:r:2].double()
    return torch.cat([torch.stack([x1 * a.cos() - x2 * a.sin(), x1 * a.sin() + x2 * a.cos()], -1).flatten(), q[r:].double()]).to(q.dtype)

def _halves_on_pairs(q, m):
    "cos and sin laid out as halves, cat([a, a]), applied to neighbouring pairs (x, y) -> (-y, x)."
    a = m * 10000.0 ** (-torch.arange(0, len(q), 2, dtype=torch.float64) / len(q)); c = torch.cat([a, a]); x = q.double()
    return (x * c.cos() + torch.stack([-x[1::2], x[0::2]], -1).flatten() * c.sin()).to(q.dtype)

def _grouped(k, g, how):
    B, h, n, d = k.shape; v = k.view(B, g, h // g, n, d)
    return v.mean(1).repeat(1, g, 1, 1) if how == 'across' else (v.sum(2) / g).repeat_interleave(h // g, dim=1)

@pytest.mark.parametrize('check, answer, says', [
    (check_rotate, _partial, 'a partial rotary, as GPT-NeoX'),
    (check_rotate, _halves_on_pairs, 'your cos and sin are laid out as halves, torch.cat([freqs, freqs])'),
    (check_group_kv, lambda k, g: _grouped(k, g, 'across'), 'you averaged across the groups'),
    (check_group_kv, lambda k, g: _grouped(k, g, 'sum / g'), "you divided each group's sum by g = 2, the number of groups"),
], ids=['partial rotary', 'halves on pairs', 'across groups', 'sum over g'])
def test_the_eighteenth_sets_misses_are_named(check, answer, says):
    ok, out = said(check, answer)
    assert ok is not True and says in out, out


# ---------------------------------------------------------------- the twentieth blind set's miss (results/checker_answers.json)
def test_an_eps_of_ones_own_is_named():
    "LLaMA's eps, 1e-6, where the argument belongs."
    _n9_rejects(check_rms_norm, lambda a, g, eps=1e-5: a / torch.sqrt(a.pow(2).mean(-1, keepdim=True) + 1e-6) * g,
                says=r"vectors near zero: that is eps = 1e-06 \(LLaMA's and T5's default\), not the argument eps = 1e-05")

# --- the twenty-second blind set's answers that the checks first missed, each named now --------------------------------
from nbtools import assert_rejects as _t22_rejects
from transformer_nb.course.since2017 import check_rms_norm as _t22_rms, check_rotate as _t22_rot, check_group_kv as _t22_grp
_T22_PRELUDE = "import math, torch, torch.nn.functional as F\nfrom collections import Counter\nfrom transformer_nb.core import *\n"
def _t22_answer(code:str, *names):
    "The answer's functions, its code run in a fresh namespace with the notebook's imports."
    ns = {}; exec(_T22_PRELUDE + code, ns); return tuple(ns[n] for n in names)
TWENTY_SECOND = [   # (label, the answer's code, its names, the check, what its message must say)
    ("T5's eps by default", '\ndef rms_norm_of(a, g, eps=1e-6):\n    return a / torch.sqrt(a.pow(2).mean(-1, keepdim=True) + eps) * g\n',
     ('rms_norm_of',), _t22_rms, 'eps left to its default: yours is eps = 1e-06'),
    ('float64 computed in float32', '\ndef rms_norm_of(a, g, eps=1e-5):\n    x = a.float()\n    return (x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps)).type_as(a) * g\n',
     ('rms_norm_of',), _t22_rms, "float64 vectors: yours are .* off, float32's rounding"),
    ('d from axis 1', '\ndef rms_norm_of(a, g, eps=1e-5):\n    return a / torch.sqrt(a.pow(2).sum(-1, keepdim=True) / a.shape[1] + eps) * g\n',
     ('rms_norm_of',), _t22_rms, 'yours divides by a.shape\\[1\\] = 3'),
    ('a float64 query in float32', '\ndef rotate_query(q, m):\n    a = m * 10000.0 ** (-torch.arange(0, len(q), 2, dtype=torch.float64) / len(q))\n    x1, x2 = q[0::2].double(), q[1::2].double()\n    return torch.stack([x1 * a.cos() - x2 * a.sin(), x1 * a.sin() + x2 * a.cos()], -1).flatten().float()\n',
     ('rotate_query',), _t22_rot, 'a float64 query: your output is torch.float32'),
    ('group means in float64', '\ndef group_heads(k, g):\n    B, h, n, d = k.shape\n    return k.view(B, g, h // g, n, d).mean(2, dtype=torch.float64).repeat_interleave(h // g, dim=1)\n',
     ('group_heads',), _t22_grp, 'your output is torch.float64, k is torch.float32'),
]

@pytest.mark.parametrize('label, code, names, check, says', TWENTY_SECOND, ids=[r[0] for r in TWENTY_SECOND])
def test_twenty_second_blind_answers_named(label, code, names, check, says):
    _t22_rejects(check, *_t22_answer(code, *names), says=says)

# --- the twenty-fifth blind set's answers that the checks first missed, each named now ---------------------------------
from nbtools import assert_rejects as _t25_rejects
from transformer_nb.course.since2017 import check_rms_norm as _t25_rms_norm, check_rotate as _t25_rotate, check_group_kv as _t25_group_kv
_T25_PRELUDE = 'import math, torch, torch.nn.functional as F\nfrom collections import Counter\nfrom transformer_nb.core import *\n'
def _t25_answer(code:str, *names):
    "The answer's functions, its code run in a fresh namespace with the notebook's imports."
    ns = {}; exec(_T25_PRELUDE + code, ns); return tuple(ns[n] for n in names)
TWENTY_FIFTH = [   # (label, the answer's code, its names, the check, what its message must say)
    ('the mean over two axes', '\ndef rms_norm_of(a, g, eps=1e-5):\n    return a / torch.sqrt(a.pow(2).mean((-2, -1), keepdim=True) + eps) * g\n',
     ('rms_norm_of',), _t25_rms_norm, 'yours\\ takes\\ it\\ over\\ the\\ last\\ two\\ axes'),
    ('eps squared', '\ndef rms_norm_of(a, g, eps=1e-5):\n    return a / torch.sqrt(a.pow(2).mean(-1, keepdim=True) + eps ** 2) * g\n',
     ('rms_norm_of',), _t25_rms_norm, 'yours\\ adds\\ eps\\ \\*\\*\\ 2'),
    ('float32 angles far out', '\ndef rotate_query(q, m):\n    a = (torch.tensor(float(m)) * 10000.0 ** (-torch.arange(0, len(q), 2, dtype=torch.float32) / len(q))).float()\n    x1, x2 = q[0::2], q[1::2]\n    return torch.stack([x1 * a.cos() - x2 * a.sin(), x1 * a.sin() + x2 * a.cos()], -1).flatten().to(q.dtype)\n',
     ('rotate_query',), _t25_rotate, 'your\\ angles\\ m\\ \\*\\ theta_i\\ were\\ computed\\ in\\ float32'),
    ('exponents over d - 2', '\ndef rotate_query(q, m):\n    a = m * 10000.0 ** (-torch.arange(0, len(q), 2, dtype=torch.float64) / (len(q) - 2))\n    x1, x2 = q[0::2].double(), q[1::2].double()\n    return torch.stack([x1 * a.cos() - x2 * a.sin(), x1 * a.sin() + x2 * a.cos()], -1).flatten().to(q.dtype)\n',
     ('rotate_query',), _t25_rotate, 'yours\\ divides\\ by\\ d\\ \\-\\ 2'),
    ('a batch of one', '\ndef group_heads(k, g):\n    B, h, n, d = k.shape\n    return k[0].view(g, h // g, n, d).mean(1).repeat_interleave(h // g, dim=0)[None]\n',
     ('group_heads',), _t25_group_kv, 'a\\ batch\\ of\\ one,\\ where\\ k\\ has\\ 2'),
    ('repeat_kv on h heads', '\ndef group_heads(k, g):\n    B, h, n, d = k.shape\n    return k[:, :, None].expand(B, h, h // g, n, d).reshape(B, h * (h // g), n, d)\n',
     ('group_heads',), _t25_group_kv, "Hugging\\ Face's\\ repeat_kv"),
]

@pytest.mark.parametrize('label, code, names, check, says', TWENTY_FIFTH, ids=[r[0] for r in TWENTY_FIFTH])
def test_twenty_fifth_blind_answers_named(label, code, names, check, says):
    _t25_rejects(check, *_t25_answer(code, *names), says=says)

# --- the twenty-seventh blind set's answers that the checks first missed, each named now ---------------------------------
from nbtools import assert_rejects as _t27_rejects
from transformer_nb.course.since2017 import check_rms_norm as _t27_check_rms_norm, check_rotate as _t27_check_rotate
_T27_PRELUDE = 'import math, torch, torch.nn.functional as F\nfrom collections import Counter\nfrom transformer_nb.core import *\n'
def _t27_answer(code:str, *names):
    "The answer's functions, its code run in a fresh namespace with the notebook's imports."
    ns = {}; exec(_T27_PRELUDE + code, ns); return tuple(ns[n] for n in names)
TWENTY_SEVENTH = [   # (label, the answer's code, its names, the check, what its message must say)
    ('sum over a.shape[0]', '\ndef rms_norm_of(a, g, eps=1e-5):\n    return a / torch.sqrt(a.pow(2).sum(-1, keepdim=True) / a.shape[0] + eps) * g\n',
     ('rms_norm_of',), _t27_check_rms_norm, 'yours\\ divides\\ by\\ a\\.shape\\[0\\]\\ =\\ 2'),
    ('d hard-coded 64', '\ndef rotate_query(q, m):\n    a = m * 10000.0 ** (-torch.arange(0, len(q), 2, dtype=torch.float64) / 64)\n    x1, x2 = q[0::2].double(), q[1::2].double()\n    return torch.stack([x1 * a.cos() - x2 * a.sin(), x1 * a.sin() + x2 * a.cos()], -1).flatten().to(q.dtype)\n',
     ('rotate_query',), _t27_check_rotate, "the\\ exponent\\ divides\\ by\\ 64,\\ not\\ by\\ the\\ query's\\ own\\ size\\ d\\ =\\ 8"),
    ('integer division in the exponent', '\ndef rotate_query(q, m):\n    out = q.clone()\n    for i in range(len(q) // 2):\n        th = 10000 ** (-(2 * i // len(q)))\n        c, s = math.cos(m * th), math.sin(m * th)\n        out[2 * i], out[2 * i + 1] = q[2 * i] * c - q[2 * i + 1] * s, q[2 * i] * s + q[2 * i + 1] * c\n    return out\n',
     ('rotate_query',), _t27_check_rotate, 'as\\ the\\ integer\\ division\\ 2\\ \\*\\ i\\ //\\ d\\ gives'),
]

@pytest.mark.parametrize('label, code, names, check, says', TWENTY_SEVENTH, ids=[r[0] for r in TWENTY_SEVENTH])
def test_twenty_seventh_blind_answers_named(label, code, names, check, says):
    _t27_rejects(check, *_t27_answer(code, *names), says=says)

# --- the thirty-first blind set's answers that the checks first missed, each named now ---------------------------------
from nbtools import assert_rejects as _t31_rejects
from transformer_nb.course.since2017 import check_group_kv as _t31_check_group_kv, check_rms_norm as _t31_check_rms_norm, check_rotate as _t31_check_rotate
_T31_PRELUDE = 'import math, torch, torch.nn.functional as F\nfrom collections import Counter\nfrom transformer_nb.core import *\nfrom transformer_nb.since2017 import *\n'
def _t31_answer(code:str, *names):
    "The answer's functions, its code run in a fresh namespace with the notebook's imports."
    ns = {}; exec(_T31_PRELUDE + code, ns); return tuple(ns[n] for n in names)
THIRTY_FIRST = [   # (label, the answer's code, its names, the check, what its message must say)
    ('computed in float16 and cast back', '\ndef rms_norm_of(a, g, eps=1e-5):\n    x = a.half()\n    return (x / torch.sqrt(x.pow(2).mean(-1, keepdim=True) + eps) * g.half()).to(a.dtype)\n',
     ('rms_norm_of',), _t31_check_rms_norm, 'yours\\ is\\ right\\ to\\ 3\\.0\\ digits\\ only\\ \\(off\\ by\\ up\\ to\\ 0\\.00096\\ of\\ the'),
    ('eps added to the output, not under the root', '\ndef rms_norm_of(a, g, eps=1e-5):\n    return a * torch.rsqrt(a.pow(2).mean(-1, keepdim=True)) * g + eps\n',
     ('rms_norm_of',), _t31_check_rms_norm, 'eps\\ goes\\ under\\ the\\ root,\\ sqrt\\(mean\\(a\\*\\*2\\)\\ \\+\\ eps\\):\\ yours\\ adds\\ it\\ to\\ the'),
    ('computed under torch.no_grad(): no gradient reaches a or g', '\ndef rms_norm_of(a, g, eps=1e-5):\n    with torch.no_grad():\n        return a / torch.sqrt(a.pow(2).mean(-1, keepdim=True) + eps) * g\n',
     ('rms_norm_of',), _t31_check_rms_norm, 'your\\ output\\ carries\\ no\\ gradient\\ \\(computed\\ under\\ torch\\.no_grad\\(\\),'),
    ('sin(m) * theta_i and cos(m) * theta_i, not sin(m * theta_i)', '\ndef rotate_query(q, m):\n    th = 10000.0 ** (-torch.arange(0, len(q), 2, dtype=torch.float64) / len(q))\n    c, s = math.cos(m) * th, math.sin(m) * th\n    x1, x2 = q[0::2].double(), q[1::2].double()\n    return torch.stack([x1 * c - x2 * s, x1 * s + x2 * c], -1).flatten().to(q.dtype)\n',
     ('rotate_query',), _t31_check_rotate, 'at\\ position\\ 0\\ the\\ angle\\ is\\ 0\\ and\\ the\\ rotation\\ the\\ identity:\\ q\\ must'),
    ('the /d outside the power: theta_i = 10000^(-2i) / d', '\ndef rotate_query(q, m):\n    i = torch.arange(len(q) // 2, dtype=torch.float64)\n    a = m * 10000.0 ** (-2 * i) / len(q)\n    x1, x2 = q[0::2].double(), q[1::2].double()\n    return torch.stack([x1 * a.cos() - x2 * a.sin(), x1 * a.sin() + x2 * a.cos()], -1).flatten().to(q.dtype)\n',
     ('rotate_query',), _t31_check_rotate, 'the\\ /d\\ sits\\ outside\\ the\\ power:\\ theta_i\\ =\\ 10000\\^\\(\\-2i\\)\\ /\\ d,\\ so\\ every'),
    ('pairs counted from 1: theta_i = 10000^(-2(i + 1)/d)', '\ndef rotate_query(q, m):\n    i = torch.arange(1, len(q) // 2 + 1, dtype=torch.float64)\n    a = m * 10000.0 ** (-2 * i / len(q))\n    x1, x2 = q[0::2].double(), q[1::2].double()\n    return torch.stack([x1 * a.cos() - x2 * a.sin(), x1 * a.sin() + x2 * a.cos()], -1).flatten().to(q.dtype)\n',
     ('rotate_query',), _t31_check_rotate, 'the\\ pairs\\ are\\ counted\\ from\\ 1:\\ theta_i\\ =\\ 10000\\^\\(\\-2\\(i\\+1\\)/d\\);\\ i\\ counts'),
    ('group i sliced from head i, not i * h/g: overlapping groups', '\ndef group_heads(k, g):\n    B, h, n, d = k.shape\n    s = h // g\n    return torch.cat([k[:, i:i + s].mean(1, keepdim=True).expand(B, s, n, d) for i in range(g)], 1)\n',
     ('group_heads',), _t31_check_group_kv, 'group\\ i\\ starts\\ at\\ head\\ i\\ \\*\\ h/g,\\ yours\\ at\\ head\\ i:\\ your\\ groups\\ of\\ h/g\\ ='),
    ('batch and head axes flattened together before grouping (righ', '\ndef group_heads(k, g):\n    B, h, n, d = k.shape\n    return k.reshape(g, -1, n, d).mean(1).repeat_interleave(B * h // g, 0).reshape(B, h, n, d)\n',
     ('group_heads',), _t31_check_group_kv, 'each\\ batch\\ row\\ alone\\ comes\\ out\\ right,\\ but\\ the\\ batch\\ of\\ 2\\ does\\ not:'),
    ('unfold(1, h/g, 1): the first g sliding windows (step 1), ove', '\ndef group_heads(k, g):\n    B, h, n, d = k.shape\n    return k.unfold(1, h // g, 1)[:, :g].mean(-1).repeat_interleave(h // g, dim=1)\n',
     ('group_heads',), _t31_check_group_kv, 'group\\ i\\ starts\\ at\\ head\\ i\\ \\*\\ h/g,\\ yours\\ at\\ head\\ i:\\ your\\ groups\\ of\\ h/g\\ ='),
]

@pytest.mark.parametrize('label, code, names, check, says', THIRTY_FIRST, ids=[r[0] for r in THIRTY_FIRST])
def test_thirty_first_blind_answers_named(label, code, names, check, says):
    _t31_rejects(check, *_t31_answer(code, *names), says=says)


# --- the thirty-fifth blind set's answers that the checks first missed, variants of their kinds, and a few more kinds found while fixing them, each named now
from nbtools import assert_rejects as _t35_rejects
from transformer_nb.course.since2017 import check_group_kv as _t35_check_group_kv, check_rms_norm as _t35_check_rms_norm, check_rotate as _t35_check_rotate
_T35_PRELUDE = ('import math, torch, torch.nn.functional as F\nfrom collections import Counter\nfrom transformer_nb.core import *\n')
def _t35_answer(code:str, name:str):
    "The answer's function, its code run in a fresh namespace with the notebook's imports."
    ns = {}; exec(_T35_PRELUDE + code, ns); return ns[name]
THIRTY_FIFTH = [   # (label, the answer's code, its name, the check, what its message must say)
    ('eps hard-coded 1e-5', '\ndef rms_norm_of(a, g, eps=1e-5):\n    return a / torch.sqrt(a.pow(2).mean(-1, keepdim=True) + 1e-5) * g\n',
     'rms_norm_of', _t35_check_rms_norm, 'the\\ argument\\ eps\\ is\\ ignored'),
    ('eps hard-coded 1e-6', '\ndef rms_norm_of(a, g, eps=1e-5):\n    return a / torch.sqrt(a.pow(2).mean(-1, keepdim=True) + 1e-6) * g\n',
     'rms_norm_of', _t35_check_rms_norm, "that\\ is\\ eps\\ =\\ 1e\\-06\\ \\(LLaMA's\\ and\\ T5's\\ default\\),\\ not\\ the\\ argument\\ eps"),
    ('the gain g[:, None]', '\ndef rms_norm_of(a, g, eps=1e-5):\n    return a / torch.sqrt(a.pow(2).mean(-1, keepdim=True) + eps) * g[:, None]\n',
     'rms_norm_of', _t35_check_rms_norm, 'was\\ lined\\ up\\ with\\ the\\ vectors'),
    ('the gain g.unsqueeze(-1)', '\ndef rms_norm_of(a, g, eps=1e-5):\n    return a / torch.sqrt(a.pow(2).mean(-1, keepdim=True) + eps) * g.unsqueeze(-1)\n',
     'rms_norm_of', _t35_check_rms_norm, 'was\\ lined\\ up\\ with\\ the\\ vectors'),
    ('the rms detached', '\ndef rms_norm_of(a, g, eps=1e-5):\n    return a / torch.sqrt(a.pow(2).mean(-1, keepdim=True) + eps).detach() * g\n',
     'rms_norm_of', _t35_check_rms_norm, 'treats\\ the\\ RMS\\ as\\ a\\ constant'),
    ('the rms computed under no_grad', '\ndef rms_norm_of(a, g, eps=1e-5):\n    with torch.no_grad(): rms = torch.sqrt(a.pow(2).mean(-1, keepdim=True) + eps)\n    return a / rms * g\n',
     'rms_norm_of', _t35_check_rms_norm, 'treats\\ the\\ RMS\\ as\\ a\\ constant'),
    ('k.reshape(B, g, n, h // g, d)', '\ndef group_heads(k, g):\n    B, h, n, d = k.shape\n    return k.reshape(B, g, n, h // g, d).mean(3).repeat_interleave(h // g, dim=1)\n',
     'group_heads', _t35_check_group_kv, "cuts\\ k's\\ memory\\ in\\ the\\ wrong\\ order"),
    ('a batch of one assumed, k[0]', '\ndef group_heads(k, g):\n    B, h, n, d = k.shape\n    return k[0].view(g, h // g, n, d).mean(1).repeat_interleave(h // g, dim=0).unsqueeze(0).expand(B, h, n, d)\n',
     'group_heads', _t35_check_group_kv, "every\\ batch\\ row\\ got\\ batch\\ row\\ 0's\\ keys"),
    ('a batch of one assumed, k[:1] broadcast', '\ndef group_heads(k, g):\n    B, h, n, d = k.shape\n    return k[:1].view(1, g, h // g, n, d).mean(2).repeat_interleave(h // g, dim=1).repeat(B, 1, 1, 1)\n',
     'group_heads', _t35_check_group_kv, "every\\ batch\\ row\\ got\\ batch\\ row\\ 0's\\ keys"),
    ('computed under no_grad', '\ndef group_heads(k, g):\n    B, h, n, d = k.shape\n    with torch.no_grad(): return k.view(B, g, h // g, n, d).mean(2).repeat_interleave(h // g, dim=1)\n',
     'group_heads', _t35_check_group_kv, 'your\\ output\\ carries\\ no\\ gradient'),
    ('k detached first', '\ndef group_heads(k, g):\n    B, h, n, d = k.shape\n    return k.detach().view(B, g, h // g, n, d).mean(2).repeat_interleave(h // g, dim=1)\n',
     'group_heads', _t35_check_group_kv, 'your\\ output\\ carries\\ no\\ gradient'),
    ('eps added to the sum of squares before dividing by d', '\ndef rms_norm_of(a, g, eps=1e-5):\n    return a / torch.sqrt((a.pow(2).sum(-1, keepdim=True) + eps) / a.shape[-1]) * g\n',
     'rms_norm_of', _t35_check_rms_norm, 'which\\ makes\\ it\\ eps\\ /\\ d'),   # found while fixing the set's misses
    ("the group's median", '\ndef group_heads(k, g):\n    B, h, n, d = k.shape\n    return k.view(B, g, h // g, n, d).median(2).values.repeat_interleave(h // g, dim=1)\n',
     'group_heads', _t35_check_group_kv, 'not\\ their\\ median'),   # found while fixing the set's misses
    ("the pair's second coordinate from the turned first", '\ndef rotate_query(q, m):\n    a = m * 10000.0 ** (-torch.arange(0, len(q), 2, dtype=torch.float64) / len(q))\n    x1, x2 = q[0::2].double(), q[1::2].double()\n    y1 = x1 * a.cos() - x2 * a.sin()\n    y2 = y1 * a.sin() + x2 * a.cos()\n    return torch.stack([y1, y2], -1).flatten().to(q.dtype)\n',
     'rotate_query', _t35_check_rotate, 'second\\ coordinate\\ was\\ computed\\ from\\ the\\ first\\ one\\ already\\ turned'),   # found while fixing the set's misses
    ('the even coordinates overwritten before the odd ones are computed', '\ndef rotate_query(q, m):\n    a = m * 10000.0 ** (-torch.arange(0, len(q), 2, dtype=torch.float64) / len(q))\n    x = q.clone().double()\n    x[0::2] = x[0::2] * a.cos() - x[1::2] * a.sin()\n    x[1::2] = x[0::2] * a.sin() + x[1::2] * a.cos()\n    return x.to(q.dtype)\n',
     'rotate_query', _t35_check_rotate, 'second\\ coordinate\\ was\\ computed\\ from\\ the\\ first\\ one\\ already\\ turned'),   # found while fixing the set's misses
]

@pytest.mark.parametrize('label, code, name, check, says', THIRTY_FIFTH, ids=[r[0] for r in THIRTY_FIFTH])
def test_thirty_fifth_blind_answers_named(label, code, name, check, says):
    _t35_rejects(check, _t35_answer(code, name), says=says)

# --- the thirty-ninth blind set's answers that the checks first missed, and a second answer of each kind, each named now
from nbtools import assert_rejects as _t39_rejects
from transformer_nb.course.since2017 import check_group_kv as _t39_check_group_kv, check_rms_norm as _t39_check_rms_norm, check_rotate as _t39_check_rotate
_T39_PRELUDE = ('import math, torch, torch.nn as nn, torch.nn.functional as F\nfrom collections import Counter\nfrom transformer_nb.core import *\n')
def _t39_answer(code:str, name:str):
    "The answer's function, its code run in a fresh namespace with the notebook's imports."
    ns = {}; exec(_T39_PRELUDE + code, ns); return ns[name]
THIRTY_NINTH = [   # (label, the answer's code, its name, the check, what its message must say)
    ('eps a floor on the mean square (clamp_min), not added under the root', '\ndef rms_norm_of(a, g, eps=1e-5):\n    return a / torch.sqrt(a.pow(2).mean(-1, keepdim=True).clamp_min(eps)) * g\n',
     'rms_norm_of', _t39_check_rms_norm, 'yours\\ uses\\ it\\ as\\ a\\ floor,\\ clamp\\(min=eps\\)\\ on\\ the\\ mean\\ of\\ the\\ squares'),
    ("PyTorch's nn.RMSNorm with its weight set from g (weight.data = g): no gradient reaches g", '\ndef rms_norm_of(a, g, eps=1e-5):\n    norm = nn.RMSNorm(a.shape[-1], eps=eps)\n    norm.weight.data = g\n    return norm(a)\n',
     'rms_norm_of', _t39_check_rms_norm, 'no\\ gradient\\ reaches\\ g'),
    ('the result squeezed (.squeeze()): a batch of one loses its axis', '\ndef rms_norm_of(a, g, eps=1e-5):\n    rms = torch.sqrt(a.pow(2).mean(-1, keepdim=True) + eps)\n    return (a / rms * g).squeeze()\n',
     'rms_norm_of', _t39_check_rms_norm, '\\.squeeze\\(\\)\\ drops\\ every\\ axis\\ of\\ size\\ 1'),
    ('computed in float64 (a.double()) and returned in float64', '\ndef rms_norm_of(a, g, eps=1e-5):\n    a, g = a.double(), g.double()          # the mean of squares in full precision\n    return a / torch.sqrt(a.pow(2).mean(-1, keepdim=True) + eps) * g\n',
     'rms_norm_of', _t39_check_rms_norm, 'your\\ output\\ is\\ torch\\.float64,\\ a\\ is\\ torch\\.float32'),
    ("d hard-coded as 8 (the notebook's LayerNorm(8)): sum of squares / 8", '\ndef rms_norm_of(a, g, eps=1e-5):\n    return a / torch.sqrt(a.pow(2).sum(-1, keepdim=True) / 8 + eps) * g\n',
     'rms_norm_of', _t39_check_rms_norm, 'your\\ mean\\ of\\ the\\ squares\\ divides\\ by\\ 8'),
    ('the gain inside the mean square (a weighted mean), not applied to the output', '\ndef rms_norm_of(a, g, eps=1e-5):\n    return a / torch.sqrt((g * a.pow(2)).mean(-1, keepdim=True) + eps)\n',
     'rms_norm_of', _t39_check_rms_norm, 'g\\ went\\ inside\\ the\\ mean\\ of\\ the\\ squares'),
    ('rsqrt read as sqrt: a multiplied by sqrt(mean + eps)', '\ndef rms_norm_of(a, g, eps=1e-5):\n    return a * torch.sqrt(a.pow(2).mean(-1, keepdim=True) + eps) * g\n',
     'rms_norm_of', _t39_check_rms_norm, 'you\\ multiplied\\ by\\ the\\ RMS'),
    ('m left out: each pair turned by theta_i, as if at position 1', '\ndef rotate_query(q, m):\n    d = q.shape[-1]\n    ang = 10000.0 ** (-2 * torch.arange(d // 2, dtype=torch.float64) / d)\n    x1, x2 = q[0::2].double(), q[1::2].double()\n    return torch.stack([x1 * ang.cos() - x2 * ang.sin(), x1 * ang.sin() + x2 * ang.cos()], -1).flatten().to(q.dtype)\n',
     'rotate_query', _t39_check_rotate, 'm\\ is\\ left\\ out\\ of\\ the\\ angle'),
    ('each pair read backwards (x1 = q[1::2], x2 = q[0::2]), written back in order', '\ndef rotate_query(q, m):\n    d = q.shape[-1]\n    ang = m * 10000.0 ** (-2 * torch.arange(d // 2, dtype=torch.float64) / d)\n    x1, x2 = q[1::2].double(), q[0::2].double()\n    return torch.stack([x1 * ang.cos() - x2 * ang.sin(), x1 * ang.sin() + x2 * ang.cos()], -1).flatten().to(q.dtype)\n',
     'rotate_query', _t39_check_rotate, 'each\\ pair\\ was\\ read\\ backwards'),
    ("the cos/sin table cached by d alone: the first call's position reused", '\n_TABLE = {}\ndef rotate_query(q, m):\n    d = q.shape[-1]\n    if d not in _TABLE:\n        a = m * 10000.0 ** (-2 * torch.arange(d // 2, dtype=torch.float64) / d)\n        _TABLE[d] = (a.cos(), a.sin())\n    c, s = _TABLE[d]\n    x1, x2 = q[0::2].double(), q[1::2].double()\n    return torch.stack([x1 * c - x2 * s, x1 * s + x2 * c], -1).flatten().to(q.dtype)\n',
     'rotate_query', _t39_check_rotate, 'your\\ angles\\ are\\ kept\\ between\\ calls'),
    ("torch.tensor(q) copied first: the result detached from q's graph", '\ndef rotate_query(q, m):\n    x = torch.tensor(q, dtype=torch.float64)\n    d = x.shape[-1]\n    ang = m * 10000.0 ** (-2 * torch.arange(d // 2, dtype=torch.float64) / d)\n    x1, x2 = x[0::2], x[1::2]\n    return torch.stack([x1 * ang.cos() - x2 * ang.sin(), x1 * ang.sin() + x2 * ang.cos()], -1).flatten().to(q.dtype)\n',
     'rotate_query', _t39_check_rotate, 'your\\ output\\ carries\\ no\\ gradient\\ \\(torch\\.tensor\\(q\\)'),
    ("05's sinusoids added (q + PE_m), not a rotation", '\ndef rotate_query(q, m):\n    d = q.shape[-1]\n    ang = m * 10000.0 ** (-2 * torch.arange(d // 2, dtype=torch.float64) / d)\n    pe = torch.stack([ang.sin(), ang.cos()], -1).flatten()\n    return (q.double() + pe).to(q.dtype)\n',
     'rotate_query', _t39_check_rotate, "05's\\ sinusoids\\ added,\\ q\\ \\+\\ PE_m"),
    ("the paper's ceil(i g / h) - 1 on heads counted from 0: head 0 wraps to the last group", '\ndef group_heads(k, g):\n    B, h, n, d = k.shape\n    means = k.unflatten(1, (g, h // g)).mean(2)                    # (B, g, n, d)\n    idx = [math.ceil(i * g / h) - 1 for i in range(h)]              # head i uses group ceil(i g / h)\n    return means[:, idx]\n',
     'group_heads', _t39_check_group_kv, "the\\ paper's\\ ceil\\(i\\ g\\ /\\ h\\)\\ counts\\ the\\ heads\\ from\\ 1"),
    ('each group head repeated along the batch axis (repeat_interleave dim=0)', '\ndef group_heads(k, g):\n    B, h, n, d = k.shape\n    return k.reshape(B, g, h // g, n, d).mean(2).repeat_interleave(h // g, dim=0)\n',
     'group_heads', _t39_check_group_kv, "each\\ group's\\ head\\ was\\ repeated\\ along\\ axis\\ 0,\\ the\\ batch"),
    ('each group head repeated along the positions (repeat_interleave dim=2)', '\ndef group_heads(k, g):\n    B, h, n, d = k.shape\n    return k.reshape(B, g, h // g, n, d).mean(2).repeat_interleave(h // g, dim=2)\n',
     'group_heads', _t39_check_group_kv, "each\\ group's\\ head\\ was\\ repeated\\ along\\ axis\\ 2,\\ the\\ positions"),
    ('len(k) for the number of heads: the batch size', '\ndef group_heads(k, g):\n    h = len(k)\n    return k.unflatten(1, (g, h // g)).mean(2).repeat_interleave(h // g, dim=1)\n',
     'group_heads', _t39_check_group_kv, 'yours\\ reads\\ h\\ from\\ axis\\ 0,\\ the\\ batch'),
    ('h / g (true division) in the shape: a float size', '\ndef group_heads(k, g):\n    B, h, n, d = k.shape\n    return k.view(B, g, h / g, n, d).mean(2).repeat_interleave(h // g, dim=1)\n',
     'group_heads', _t39_check_group_kv, 'h\\ /\\ g\\ is\\ a\\ float'),
    ('eps a floor on the RMS', '\ndef rms_norm_of(a, g, eps=1e-5):\n    return a / a.pow(2).mean(-1, keepdim=True).sqrt().clamp(min=eps) * g\n',
     'rms_norm_of', _t39_check_rms_norm, 'yours\\ uses\\ it\\ as\\ a\\ floor,\\ clamp\\(min=eps\\)\\ on\\ the\\ RMS'),   # a second answer of the kind
    ('g detached', '\ndef rms_norm_of(a, g, eps=1e-5):\n    return a / torch.sqrt(a.pow(2).mean(-1, keepdim=True) + eps) * g.detach()\n',
     'rms_norm_of', _t39_check_rms_norm, 'no\\ gradient\\ reaches\\ g'),   # a second answer of the kind
    ('squeeze(0)', '\ndef rms_norm_of(a, g, eps=1e-5):\n    return (a / torch.sqrt(a.pow(2).mean(-1, keepdim=True) + eps) * g).squeeze(0)\n',
     'rms_norm_of', _t39_check_rms_norm, '\\.squeeze\\(\\)\\ drops\\ every\\ axis\\ of\\ size\\ 1'),   # a second answer of the kind
    ('the mean taken in float64 (dtype=)', '\ndef rms_norm_of(a, g, eps=1e-5):\n    return a / torch.sqrt(a.pow(2).mean(-1, keepdim=True, dtype=torch.float64) + eps) * g\n',
     'rms_norm_of', _t39_check_rms_norm, 'your\\ output\\ is\\ torch\\.float64,\\ a\\ is\\ torch\\.float32'),   # a second answer of the kind
    ('d hard-coded as 512', '\ndef rms_norm_of(a, g, eps=1e-5):\n    return a / torch.sqrt(a.pow(2).sum(-1, keepdim=True) / 512 + eps) * g\n',
     'rms_norm_of', _t39_check_rms_norm, 'your\\ mean\\ of\\ the\\ squares\\ divides\\ by\\ 512'),   # a second answer of the kind
    ('the gain in the weighted mean, rsqrt', '\ndef rms_norm_of(a, g, eps=1e-5):\n    return a * torch.rsqrt((a * a * g).mean(-1, keepdim=True) + eps)\n',
     'rms_norm_of', _t39_check_rms_norm, 'g\\ went\\ inside\\ the\\ mean\\ of\\ the\\ squares'),   # a second answer of the kind
    ('multiplied by the root, ** 0.5', '\ndef rms_norm_of(a, g, eps=1e-5):\n    return a * (a.pow(2).mean(-1, keepdim=True) + eps) ** 0.5 * g\n',
     'rms_norm_of', _t39_check_rms_norm, 'you\\ multiplied\\ by\\ the\\ RMS'),   # a second answer of the kind
    ('m left out of a loop', '\ndef rotate_query(q, m):\n    out, d = q.clone(), len(q)\n    for i in range(d // 2):\n        a = 10000 ** (-2 * i / d)\n        out[2 * i] = q[2 * i] * math.cos(a) - q[2 * i + 1] * math.sin(a)\n        out[2 * i + 1] = q[2 * i] * math.sin(a) + q[2 * i + 1] * math.cos(a)\n    return out\n',
     'rotate_query', _t39_check_rotate, 'm\\ is\\ left\\ out\\ of\\ the\\ angle'),   # a second answer of the kind
    ('each pair flipped first, view(-1, 2).flip(-1)', '\ndef rotate_query(q, m):\n    a = m * 10000.0 ** (-torch.arange(0, len(q), 2, dtype=torch.float64) / len(q))\n    x1, x2 = q.view(-1, 2).flip(-1).double().unbind(-1)\n    return torch.stack([x1 * a.cos() - x2 * a.sin(), x1 * a.sin() + x2 * a.cos()], -1).flatten().to(q.dtype)\n',
     'rotate_query', _t39_check_rotate, 'each\\ pair\\ was\\ read\\ backwards'),   # a second answer of the kind
    ('angles cached in a default argument by d', '\ndef rotate_query(q, m, _angles={}):\n    d = len(q)\n    a = _angles.setdefault(d, m * 10000.0 ** (-torch.arange(0, d, 2, dtype=torch.float64) / d))\n    x1, x2 = q[0::2].double(), q[1::2].double()\n    return torch.stack([x1 * a.cos() - x2 * a.sin(), x1 * a.sin() + x2 * a.cos()], -1).flatten().to(q.dtype)\n',
     'rotate_query', _t39_check_rotate, 'your\\ angles\\ are\\ kept\\ between\\ calls'),   # a second answer of the kind
    ('q detached and made float64', '\ndef rotate_query(q, m):\n    x = q.detach().double()\n    a = m * 10000.0 ** (-torch.arange(0, len(q), 2, dtype=torch.float64) / len(q))\n    return torch.stack([x[0::2] * a.cos() - x[1::2] * a.sin(), x[0::2] * a.sin() + x[1::2] * a.cos()], -1).flatten().to(q.dtype)\n',
     'rotate_query', _t39_check_rotate, 'your\\ output\\ carries\\ no\\ gradient'),   # a second answer of the kind
    ("05's encoding added, cos first", '\ndef rotate_query(q, m):\n    a = m * 10000.0 ** (-torch.arange(0, len(q), 2, dtype=torch.float64) / len(q))\n    return (q.double() + torch.stack([a.cos(), a.sin()], -1).flatten()).to(q.dtype)\n',
     'rotate_query', _t39_check_rotate, "05's\\ sinusoids\\ added,\\ q\\ \\+\\ PE_m"),   # a second answer of the kind
    ('the group of head i as round(i g / h)', '\ndef group_heads(k, g):\n    B, h, n, d = k.shape\n    means = k.view(B, g, h // g, n, d).mean(2)\n    return means[:, [min(round(i * g / h), g - 1) for i in range(h)]]\n',
     'group_heads', _t39_check_group_kv, "each\\ head\\ holds\\ a\\ group's\\ mean,\\ but\\ heads\\ 0\\ to"),   # a second answer of the kind
    ('the groups tiled along the batch', '\ndef group_heads(k, g):\n    B, h, n, d = k.shape\n    return k.view(B, g, h // g, n, d).mean(2).repeat(h // g, 1, 1, 1)\n',
     'group_heads', _t39_check_group_kv, "each\\ group's\\ head\\ was\\ repeated\\ along\\ axis\\ 0,\\ the\\ batch"),   # a second answer of the kind
    ('the groups tiled along the positions', '\ndef group_heads(k, g):\n    B, h, n, d = k.shape\n    return k.view(B, g, h // g, n, d).mean(2).repeat(1, 1, h // g, 1)\n',
     'group_heads', _t39_check_group_kv, "each\\ group's\\ head\\ was\\ repeated\\ along\\ axis\\ 2,\\ the\\ positions"),   # a second answer of the kind
    ('h read as k.size(0)', '\ndef group_heads(k, g):\n    B, n, d, h = k.size(0), k.size(2), k.size(3), k.size(0)\n    return k.reshape(B, g, h // g, n, d).mean(2).repeat_interleave(h // g, dim=1)\n',
     'group_heads', _t39_check_group_kv, 'yours\\ reads\\ h\\ from\\ axis\\ 0,\\ the\\ batch'),   # a second answer of the kind
    ('h / g in reshape', '\ndef group_heads(k, g):\n    B, h, n, d = k.shape\n    return k.reshape(B, g, h / g, n, d).mean(2).repeat_interleave(h // g, dim=1)\n',
     'group_heads', _t39_check_group_kv, 'h\\ /\\ g\\ is\\ a\\ float'),   # a second answer of the kind
]

@pytest.mark.parametrize('label, code, name, check, says', THIRTY_NINTH, ids=[r[0] for r in THIRTY_NINTH])
def test_thirty_ninth_blind_answers_named(label, code, name, check, says):
    _t39_rejects(check, _t39_answer(code, name), says=says)


# ---------------------------------------------------------------- the comparisons' tolerance: the rounding of each computation's own sums, on any CPU
def test_answers_computed_in_float64_pass_and_float16_ones_are_refused():
    "RMSNorm's default eps and group_heads are compared at the rounding of their own sums: each computed in float64 and cast back "
    "passes; the nearest wrong answers, the same in float16, are refused."
    def rms(dtype):
        return lambda a, g, eps=1e-5: (a.to(dtype) * torch.rsqrt(a.to(dtype).pow(2).mean(-1, keepdim=True) + eps) * g.to(dtype)).to(a.dtype)
    def group(dtype):
        return lambda k, g: k.to(dtype).unflatten(1, (g, -1)).mean(2).repeat_interleave(k.shape[1] // g, 1).to(k.dtype)
    assert said(check_rms_norm, rms(torch.float64)) == (True, 'rms_norm_of computes RMSNorm: each vector divided by its root mean square, times the gain')
    assert said(check_group_kv, group(torch.float64))[0] is True
    ok, line = said(check_rms_norm, rms(torch.float16))
    assert ok is False and line.startswith('Not yet: '), line
    ok, line = said(check_group_kv, group(torch.float16))
    assert ok is False and line.startswith('Not yet: '), line
