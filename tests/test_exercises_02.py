"""02_multihead's exercises, proven away from the learner: each check (transformer_nb.course.multihead, taught in course_multihead) passes
the printed solution and other right answers, reports the stub as not written yet, and refuses every wrong variant with
a message that names the case and the likely mistake (merging the heads without the transpose included); exercise 1's solution names exactly the checks that fail when its change is made to the library; the
claims of exercise 4's solution hold. The checks and solutions run in namespaces of their own (tests/nbtools.py),
never in the notebook's."""
import pytest, torch
import torch.nn as nn
from nbtools import break_it, cells
from nbtools import assert_break_it_exercise, assert_no_cell_runs_a_solution, assert_rejects, assert_stub_reported, namespace
from transformer_nb.course.multihead import check_heads, check_loop_mha

NB, EXERCISES, TESTS = '02_multihead', '3cece8cd', 'tests/test_multihead.py'
MODULE = 'b1528f4e'                                 # the cell with merge_heads

def test_no_cell_runs_a_solution_or_rebinds_the_learners_names():
    assert_no_cell_runs_a_solution(NB, 'split_heads', 'merge_heads', 'LoopMHA')

# ---------------------------------------------------------------- "Write it yourself first": check_heads
def test_check_heads_passes_right_answers(capsys):
    ns = namespace(NB, 'b2d0a004')
    assert ns['check_heads'](ns['split_heads'], ns['merge_heads']) is True
    split = lambda x, h: x.unflatten(-1, (h, -1)).permute(0, 2, 1, 3)          # another right answer
    merge = lambda x: x.permute(0, 2, 1, 3).flatten(2)
    assert ns['check_heads'](split, merge) is True
    assert capsys.readouterr().out.count('work inside PyTorch') == 2

def test_check_heads_reports_the_stubs(capsys):
    ns = namespace(NB, 'b2d0a003')                            # the stub cell calls the check itself
    assert 'split_heads is not written yet' in capsys.readouterr().out
    assert ns['check_heads'](ns['split_heads'], ns['merge_heads']) is False
    ns = namespace(NB, 'b2d0a004')
    def merge(x): raise NotImplementedError("merge_heads")
    assert ns['check_heads'](ns['split_heads'], merge) is False
    assert 'merge_heads is not written yet' in capsys.readouterr().out

no_transpose = lambda x, h: x.view(x.shape[0], h, x.shape[1], -1)           # right shape, heads and positions mixed
undo = lambda x: x.reshape(x.shape[0], x.shape[2], -1)                      # its inverse: the round trip still holds
strided = lambda x, h: x.view(*x.shape[:2], -1, h).permute(0, 3, 1, 2)     # head i takes every h-th feature
right = namespace(NB, 'b2d0a004')

@pytest.mark.parametrize('split, merge, message', [
    (no_transpose, undo, r"split_heads viewed \(B, n, h\*d\) straight as \(B, h, n, d\): without the transpose"),
    (strided, right['merge_heads'], r"head 0 must hold features 0..3"),
    (right['split_heads'], undo, r"merge_heads reshaped \(B, h, n, d\) straight to \(B, n, h\*d\): without the transpose\(1, 2\)"),
    (right['split_heads'], lambda x: right['merge_heads'](x.flip(1)), r"merge_heads\(split_heads\(x, h\)\) must give x back: the heads side by side, in head order"),
    (lambda x, h: x.view(x.shape[0], x.shape[1], h, -1), right['merge_heads'], r"gave torch.Size\(\[2, 5, 3, 4\]\); expected \(B, h, n, d\)"),
    (right['split_heads'], lambda x: x.transpose(1, 2), r"merge_heads of a \(2, 3, 5, 4\) tensor gave torch.Size\(\[2, 5, 3, 4\]\)"),
], ids=['no transpose', 'strided heads', 'merge without transpose', 'heads reversed', 'split not moved', 'merge not flattened'])
def test_check_heads_names_each_mistake(split, merge, message):
    assert_rejects(check_heads, split, merge, says=message)

# ---------------------------------------------------------------- exercise 2: check_loop_mha
def loop_ns(*more): return namespace(NB, *more)

def test_check_loop_mha_passes_right_answers(capsys):
    ns = loop_ns(EXERCISES)
    assert ns['check_loop_mha'](ns['LoopMHA']) is True
    class Other(ns['LoopMHA']):                             # another right answer: the softmax and the mask by hand
        def forward(self, x, mem=None, mask=None):
            mem = x if mem is None else mem
            heads = []
            for wq, wk, wv in zip(self.w_q, self.w_k, self.w_v):
                s = wq(x) @ wk(mem).mT / self.d_k ** 0.5
                if mask is not None: s = s.masked_fill(~mask.squeeze(1), float('-inf'))
                heads.append(s.softmax(-1) @ wv(mem))
            return self.w_o(torch.cat(heads, -1))
    assert ns['check_loop_mha'](Other) is True
    assert capsys.readouterr().out.count('computes what MultiHeadAttention computes') == 2

def test_check_loop_mha_reports_the_stub(capsys):
    ns = loop_ns('b2e1f007')                                 # the stub cell calls the check itself (the LoopMHA stub)
    assert_stub_reported(ns, 'check_loop_mha', 'LoopMHA', capsys)

SCORES = {'no scaling': lambda s: (1.0, -1), 'scaled by d_model': lambda s: ((s.h * s.d_k) ** -0.5, -1), 'scaled by d_k': lambda s: (1 / s.d_k, -1),
          'softmax over the queries': lambda s: (s.d_k ** -0.5, -2)}   # kind -> (scale, softmax dim) of a hand-written attention

def wrong_loop(kind:str):
    "The solution with one mistake."
    ns = loop_ns(EXERCISES)
    L, attention = ns['LoopMHA'], ns['attention']
    class Wrong(L):
        def forward(self, x, mem=None, mask=None):
            mem = x if mem is None else mem
            m = None if mask is None or kind == 'no mask' else mask[:, 0]
            src = x if kind == 'keys from x' else mem
            heads = [attention(q(x), k(src), v(src), m)[0] for q, k, v in zip(self.w_q, self.w_k, self.w_v)]
            if kind in SCORES:                                  # the attention written by hand, with one mistake
                scale, dim = SCORES[kind](self)
                scores = [q(x) @ k(src).mT * scale for q, k in zip(self.w_q, self.w_k)]          # (B, n_q, n_k) each
                if m is not None: scores = [s.masked_fill(~m, float('-inf')) for s in scores]
                heads = [s.softmax(dim) @ v(src) for s, v in zip(scores, self.w_v)]
            if kind == 'reversed': heads = heads[::-1]
            if kind in ('cat on the positions', 'cat on the batch'): return self.w_o(torch.cat(heads, 1 if kind == 'cat on the positions' else 0))
            return torch.cat(heads, -1) if kind == 'no W^O' else self.w_o(torch.cat(heads, -1))
    if kind == 'one Linear for all heads':                     # Q, K, V of all heads stacked: the rule the exercise states
        class Wrong(L):
            def __init__(self, d_model, h):
                nn.Module.__init__(self)
                self.h, self.d_k, self.qkv, self.w_o = h, d_model // h, nn.Linear(d_model, 3 * d_model), nn.Linear(d_model, d_model)
                self.w_q = self.w_k = self.w_v = None
            def load_from(self, mha): pass
    if kind == 'K and V swapped':                              # the weights of W^K and W^V exchanged, the biases in place
        class Wrong(L):
            def load_from(self, mha):
                super().load_from(mha)
                with torch.no_grad():
                    for k, v in zip(self.w_k, self.w_v): kw = k.weight.clone(); k.weight.copy_(v.weight); v.weight.copy_(kw)
    if kind == 'no biases':
        class Wrong(L):
            def __init__(self, d_model, h):
                super().__init__(d_model, h)
                for lin in [*self.w_q, *self.w_k, *self.w_v]: lin.bias = None
            def load_from(self, mha):
                with torch.no_grad():
                    for i in range(self.h):
                        r = slice(i * self.d_k, (i + 1) * self.d_k)
                        for lin, W in zip((self.w_q[i], self.w_k[i], self.w_v[i]), (mha.w_q.weight, mha.w_k.weight, mha.w_v.weight)): lin.weight.copy_(W[r])
                    self.w_o.load_state_dict(mha.w_o.state_dict())
    return ns, Wrong

@pytest.mark.parametrize('kind, message', [
    ('no W^O', r"d_model=32, h=4, self-attention: off by .*then apply W\^O"),
    ('reversed', r"d_model=32, h=4, self-attention: off by .*; the heads are concatenated in the order \[4, 3, 2, 1\]: torch.cat\(heads, -1\) in head order"),
    ('keys from x', r"d_model=32, h=4, encoder-decoder attention: off by .*keys and values from mem"),
    ('no mask', r"d_model=32, h=4, a causal mask: off by .*; the mask is not applied: pass the mask on to every head, its head axis dropped"),
    ('no scaling', r"d_model=32, h=4, self-attention: off by .*; the scores are not divided by sqrt\(d_k\): each head is softmax\(Q K\^T / sqrt\(d_k\)\) V$"),
    ('scaled by d_model', r"d_model=32, h=4, self-attention: off by .*; the scores are divided by sqrt\(d_model\), the model's width"),
    ('softmax over the queries', r"d_model=32, h=4, self-attention: off by .*; the softmax runs over the queries \(dim -2\)"),
    ('scaled by d_k', r"d_model=32, h=4, self-attention: off by .*; the scores are divided by d_k, not by its square root"),
    ('K and V swapped', r"d_model=32, h=4, self-attention: off by .*; load_from copied w_v's rows into w_k, w_k's rows into w_v: each of W\^Q, W\^K, W\^V has its own matrix"),
    ('no biases', r"^Not yet: LoopMHA\(32, 4\): 12 per-head layers without a bias \(bias=False\): MultiHeadAttention's projections have biases"),
    ('cat on the positions', r"^Not yet: d_model=32, h=4, self-attention: W\^O was given 40 rows of 8 features, not 10 rows of h\*d_k = 32: "
                             r"your 4 heads were concatenated on the batch axis \(torch.cat\(heads, 0\)\) or the query axis \(1\): "
                             r"concatenate the heads on the last axis, torch.cat\(heads, -1\)"),
    ('cat on the batch', r"^Not yet: d_model=32, h=4, self-attention: W\^O was given 40 rows of 8 features, not 10 rows of h\*d_k = 32"),
    ('one Linear for all heads', r"^Not yet: LoopMHA\(32, 4\) holds 1 nn.Linear\(32, 96\), 1 nn.Linear\(32, 32\): one nn.Linear\(d_model, d_k\) = nn.Linear\(32, 8\) per head"),
])
def test_check_loop_mha_names_each_mistake(kind, message):
    ns, Wrong = wrong_loop(kind)
    assert_rejects(check_loop_mha, Wrong, says=message)

# ---------------------------------------------------------------- exercises 3 and 4: the solutions' claims
def test_exercise_4_a_3d_mask_masks_the_wrong_sentences_when_B_equals_h():
    from transformer_nb.multihead import MultiHeadAttention
    torch.manual_seed(0)
    m4, x4 = MultiHeadAttention(32, 4).eval(), torch.randn(4, 5, 32)        # B = h = 4
    mask3 = torch.rand(4, 5, 5) > 0.3; mask3[..., 0] = True
    with torch.no_grad():
        assert not torch.allclose(m4(x4, mask=mask3), m4(x4, mask=mask3[:, None]))   # runs, and masks the wrong sentences
        with pytest.raises(RuntimeError): m4(torch.randn(3, 5, 32), mask=mask3[:3])  # B != h: a size error

# ---------------------------------------------------------------- the "break it" exercise
BREAK = {
    1: dict(cell=MODULE, old="return x.transpose(1, 2).reshape(x.shape[0], x.shape[2], self.h*self.d_v)",
            new="return x.reshape(x.shape[0], x.shape[2], self.h*self.d_v)",
            cells={'e996c115': "the by-hand comparison", '3cd3e14a': "encoder self-attention: the padding mask",
                   'de81a179': "masked decoder self-attention", '7f71f683': "the comparison with nn.MultiheadAttention (Going deeper)"},
            tests={'test_heads_in_order', 'test_parity_self_attention_key_padding', 'test_parity_cross_attention_key_padding',
                   'test_parity_causal_and_no_bias', 'test_gradient_parity', 'test_cache_self_attention_equals_full_masked_pass',
                   'test_cache_cross_attention_computed_once', 'test_cache_select_reorders_beams'}),
}

@pytest.mark.slow
@pytest.mark.parametrize('n', BREAK)
def test_break_it_solution_names_exactly_the_checks_that_fail(n):
    assert_break_it_exercise(NB, EXERCISES, n, TESTS, module='multihead', said=BREAK[n]['new'], **BREAK[n])


@pytest.mark.slow
@pytest.mark.parametrize('n', BREAK)
def test_no_hidden_cell_fails_when_a_break_it_change_is_made(n):
    "The learner who makes a break-it change sees the cells its solution names fail, never the hidden prose checks."
    b = BREAK[n]
    failed, _ = break_it(NB, b['cell'], b['old'], b['new'], 'multihead')
    hidden = {cid for cid, (kind, src) in cells(NB).items() if kind == 'code' and src.startswith('#| hide')}
    assert hidden and not set(failed) & hidden, {c: failed[c] for c in set(failed) & hidden}

# ---------------------------------------------------------------- fresh wrong answers, written as new learners would
import math
from transformer_nb.attention import attention
from transformer_nb.course import multihead as _ex
FRESH = {}   # label: (checker, answer, the words its message must contain)
def add(checker, label, kw, *args): FRESH[checker, label] = args

# 02 split/merge heads: each answer and the words its message must contain
def sh_noT(x, h): B, n, D = x.shape; return x.reshape(B, h, n, D // h)
def mh_ok(x): B, h, n, d = x.shape; return x.transpose(1, 2).reshape(B, n, h * d)
add('check_heads', 'split without transpose', ['transpose', 'positions', 'mix'], sh_noT, mh_ok)
def sh_ok(x, h): B, n, D = x.shape; return x.view(B, n, h, D // h).transpose(1, 2)
def mh_noT(x): B, h, n, d = x.shape; return x.reshape(B, n, h * d)
add('check_heads', 'merge without transpose', ['transpose', 'positions', 'mix'], sh_ok, mh_noT)
def sh_dh(x, h): B, n, D = x.shape; return x.view(B, n, D // h, h).permute(0, 3, 1, 2)
def mh_dh(x): B, h, n, d = x.shape; return x.permute(0, 2, 3, 1).reshape(B, n, h * d)
add('check_heads', 'strided heads: view (B,n,d,h)', ['feature', 'interleav', 'stride', 'contiguous', 'i*d'], sh_dh, mh_dh)
def sh_Bnhd(x, h): B, n, D = x.shape; return x.view(B, n, h, D // h)
add('check_heads', 'split returns (B,n,h,d)', ['shape', '(b, h, n, d)'], sh_Bnhd, mh_ok)
def sh_d(x, d): B, n, D = x.shape; return x.view(B, n, D // d, d).transpose(1, 2)
add('check_heads', 'treats h as d (number of heads vs head size)', ['head size', 'number of heads', 'h ', 'size'], sh_d, mh_ok)
def mh_sum(x): return x.sum(1).repeat(1, 1, x.shape[1])
add('check_heads', 'merge sums heads', ['concat', 'sum', 'values'], sh_ok, mh_sum)
def mh_mean(x): B, h, n, d = x.shape; return x.mean(1)
add('check_heads', 'merge averages heads (shape d)', ['shape', 'concat'], sh_ok, mh_mean)
SAYS_CHECK_HEADS = {
"split without transpose": "view\\ it\\ as\\ \\(B,\\ n,\\ h,\\ d\\),\\ then\\ transpose\\(1,\\ 2\\)",
"merge without transpose": "without\\ the\\ transpose\\(1,\\ 2\\)\\ that\\ brings\\ n\\ before\\ h,\\ each\\ row\\ mixes\\ heads\\ and\\ positions",
"strided heads: view (B,n,d,h)": "split\\ the\\ last\\ axis\\ into\\ \\(h,\\ d\\),\\ then\\ move\\ h\\ forward",
"split returns (B,n,h,d)": "expected\\ \\(B,\\ h,\\ n,\\ d\\)\\ =\\ \\(2,\\ 3,\\ 5,\\ 4\\)",
"treats h as d (number of heads vs head size)": "expected\\ \\(B,\\ h,\\ n,\\ d\\)\\ =\\ \\(2,\\ 3,\\ 5,\\ 4\\)",
"merge sums heads": "Concat\\(head_1,\\ \\.\\.\\.,\\ head_h\\)\\ puts\\ them\\ side\\ by\\ side,\\ head\\ i\\ in\\ features\\ i\\*d\\ \\.\\.\\ \\(i\\+1\\)\\*d\\ \\-\\ 1\\ ",
"merge averages heads (shape d)": "Concat\\(head_1,\\ \\.\\.\\.,\\ head_h\\)\\ puts\\ them\\ side\\ by\\ side"
}

@pytest.mark.parametrize('label', list(SAYS_CHECK_HEADS))
def test_fresh_wrong_answers_named_by_check_heads(label):
    "Each wrong answer a new learner writes is refused, with a message that names its mistake."
    assert_rejects(_ex.check_heads, *FRESH['check_heads', label], says=SAYS_CHECK_HEADS[label])

# 02 LoopMHA: each answer and the words its message must contain
class _LoopBase(nn.Module):
    def __init__(self, d_model, h):
        super().__init__()
        self.h, self.d_k = h, d_model // h
        heads = lambda: nn.ModuleList(nn.Linear(d_model, self.d_k) for _ in range(h))
        self.w_q, self.w_k, self.w_v = heads(), heads(), heads()
        self.w_o = nn.Linear(h * self.d_k, d_model)
    def load_from(self, mha):
        Wq, Wk, Wv = mha.w_q.weight, mha.w_k.weight, mha.w_v.weight
        bq, bk, bv = mha.w_q.bias, mha.w_k.bias, mha.w_v.bias
        with torch.no_grad():
            for i in range(self.h):
                sl = slice(i * self.d_k, (i + 1) * self.d_k)
                for lin, Wm, bm in ((self.w_q[i], Wq, bq), (self.w_k[i], Wk, bk), (self.w_v[i], Wv, bv)):
                    lin.weight.copy_(Wm[sl]); lin.bias.copy_(bm[sl])
            self.w_o.weight.copy_(mha.w_o.weight); self.w_o.bias.copy_(mha.w_o.bias)
        return self
    def head(self, i, x, mem, m):
        return attention(self.w_q[i](x), self.w_k[i](mem), self.w_v[i](mem), m)[0]
    def forward(self, x, mem=None, mask=None):
        mem = x if mem is None else mem
        m = None if mask is None else mask[:, 0]
        return self.w_o(torch.cat([self.head(i, x, mem, m) for i in range(self.h)], -1))

class LM_noscale(_LoopBase):
    def head(self, i, x, mem, m):
        q, k, v = self.w_q[i](x), self.w_k[i](mem), self.w_v[i](mem)
        s = q @ k.transpose(-2, -1)
        if m is not None: s = s.masked_fill(~m, float('-inf'))
        return s.softmax(-1).nan_to_num(0) @ v
add('check_loop_mha', 'no 1/sqrt(d_k)', ['sqrt', 'scale'], LM_noscale)
class LM_dmodel(_LoopBase):
    def head(self, i, x, mem, m):
        q, k, v = self.w_q[i](x), self.w_k[i](mem), self.w_v[i](mem)
        return attention(q, k, v, m, scale=1 / math.sqrt(self.h * self.d_k))[0]
add('check_loop_mha', 'scale by sqrt(d_model)', ['d_model', 'sqrt', 'scale', 'd_k'], LM_dmodel)
class LM_nomem(_LoopBase):
    def forward(self, x, mem=None, mask=None):
        m = None if mask is None else mask[:, 0]
        return self.w_o(torch.cat([self.head(i, x, x, m) for i in range(self.h)], -1))
add('check_loop_mha', 'ignores mem (cross-attention)', ['mem', 'cross'], LM_nomem)
class LM_nomask(_LoopBase):
    def forward(self, x, mem=None, mask=None):
        mem = x if mem is None else mem
        return self.w_o(torch.cat([self.head(i, x, mem, None) for i in range(self.h)], -1))
add('check_loop_mha', 'ignores mask', ['mask'], LM_nomask)
class LM_sumheads(_LoopBase):
    def __init__(self, d_model, h):
        super().__init__(d_model, h); self.w_o = nn.Linear(self.d_k * h, d_model)
    def forward(self, x, mem=None, mask=None):
        mem = x if mem is None else mem
        m = None if mask is None else mask[:, 0]
        hs = [self.head(i, x, mem, m) for i in range(self.h)]
        return self.w_o(torch.stack(hs, -2).flatten(-2).view(*x.shape[:-1], self.d_k, self.h).transpose(-1, -2).flatten(-2)) if False else self.w_o(torch.stack(hs, -1).flatten(-2))
add('check_loop_mha', 'concatenation interleaved (stack on last dim)', ['concat', 'order', 'interleav', 'head'], LM_sumheads)
class LM_loadT(_LoopBase):
    def load_from(self, mha):
        Wq, Wk, Wv = mha.w_q.weight, mha.w_k.weight, mha.w_v.weight; bq, bk, bv = mha.w_q.bias, mha.w_k.bias, mha.w_v.bias
        with torch.no_grad():
            for i in range(self.h):
                sl = slice(i * self.d_k, (i + 1) * self.d_k)
                for lin, Wm, bm in ((self.w_q[i], Wq, bq), (self.w_k[i], Wk, bk), (self.w_v[i], Wv, bv)):
                    lin.weight.copy_(Wm[:, sl].T if Wm.shape[0] == Wm.shape[1] else Wm[sl]); lin.bias.copy_(bm[sl])
            self.w_o.weight.copy_(mha.w_o.weight); self.w_o.bias.copy_(mha.w_o.bias)
        return self
add('check_loop_mha', 'load_from takes columns, transposed', ['load_from', 'rows', 'weights'], LM_loadT)
class LM_loadorder(_LoopBase):
    def load_from(self, mha):
        Wk, Wq, Wv = mha.w_q.weight, mha.w_k.weight, mha.w_v.weight; bk, bq, bv = mha.w_q.bias, mha.w_k.bias, mha.w_v.bias
        with torch.no_grad():
            for i in range(self.h):
                sl = slice(i * self.d_k, (i + 1) * self.d_k)
                for lin, Wm, bm in ((self.w_q[i], Wq, bq), (self.w_k[i], Wk, bk), (self.w_v[i], Wv, bv)):
                    lin.weight.copy_(Wm[sl]); lin.bias.copy_(bm[sl])
            self.w_o.weight.copy_(mha.w_o.weight); self.w_o.bias.copy_(mha.w_o.bias)
        return self
add('check_loop_mha', 'load_from swaps Q and K blocks', ['load_from', 'block', 'q', 'order'], LM_loadorder)
class LM_maskfull(_LoopBase):
    def forward(self, x, mem=None, mask=None):
        mem = x if mem is None else mem
        return self.w_o(torch.cat([self.head(i, x, mem, mask) for i in range(self.h)], -1))
add('check_loop_mha', 'passes the 4-d mask to each head (broadcast to 4-d output)', ['mask', 'shape', '(b, 1'], LM_maskfull)
SAYS_CHECK_LOOP_MHA = {
"no 1/sqrt(d_k)": "the\\ scores\\ are\\ not\\ divided\\ by\\ sqrt\\(d_k\\):\\ each\\ head\\ is\\ softmax\\(Q\\ K\\^T\\ /\\ sqrt\\(d_k\\)\\)\\ V",
"scale by sqrt(d_model)": "the\\ scores\\ are\\ divided\\ by\\ sqrt\\(d_model\\),\\ the\\ model's\\ width:\\ divide\\ by\\ sqrt\\(d_k\\),\\ one\\ head'",
"ignores mem (cross-attention)": "queries\\ come\\ from\\ x,\\ keys\\ and\\ values\\ from\\ mem",
"ignores mask": "the\\ mask\\ is\\ not\\ applied:\\ pass\\ the\\ mask\\ on\\ to\\ every\\ head,\\ its\\ head\\ axis\\ dropped:\\ \\(B,\\ 1,\\ n_q",
"concatenation interleaved (stack on last dim)": "the\\ heads\\ are\\ interleaved\\ feature\\ by\\ feature\\ \\(torch\\.stack\\(heads,\\ \\-1\\)\\):\\ concatenate\\ them,\\ t",
"load_from takes columns, transposed": "head\\ i's\\ W_i\\^Q\\ is\\ w_q\\.weight\\[i\\*d_k:\\(i\\+1\\)\\*d_k\\]\\ \\(rows:\\ nn\\.Linear\\ stores\\ \\(out,\\ in\\),\\ no\\ tr",
"load_from swaps Q and K blocks": "load_from\\ swapped\\ W\\^Q\\ and\\ W\\^K:\\ head\\ i's\\ W_i\\^Q\\ comes\\ from\\ w_q\\.weight",
"passes the 4-d mask to each head (broadcast to 4-d output)": "drop\\ its\\ head\\ axis,\\ mask\\[:,\\ 0\\]\\ \\->\\ \\(B,\\ n_q,\\ n_k\\)"
}

@pytest.mark.parametrize('label', list(SAYS_CHECK_LOOP_MHA))
def test_fresh_wrong_answers_named_by_check_loop_mha(label):
    "Each wrong answer a new learner writes is refused, with a message that names its mistake."
    assert_rejects(_ex.check_loop_mha, *FRESH['check_loop_mha', label], says=SAYS_CHECK_LOOP_MHA[label])

# ---------------------------------------------------------------- mistakes named since: .view, W^O left out, biases not copied
def test_check_heads_names_view_on_a_transposed_tensor():
    "merge_heads with .view after the transpose passes a tensor that happens to be laid out for it, and fails on attention's output: named."
    merge_view = lambda x: x.transpose(1, 2).view(x.shape[0], x.shape[2], -1)
    assert_rejects(check_heads, right['split_heads'], merge_view,
                   says=r"merge_heads used \.view after transpose\(1, 2\): attention's output .* use \.reshape, or \.contiguous\(\)\.view")

class _NoWO(_LoopBase):
    def forward(self, x, mem=None, mask=None):
        mem = x if mem is None else mem
        m = None if mask is None else mask[:, 0]
        return torch.cat([self.head(i, x, mem, m) for i in range(self.h)], -1)
class _WOMissing(_LoopBase):
    def __init__(self, d_model, h): super().__init__(d_model, h); del self.w_o
class _NoBiasCopy(_LoopBase):
    def load_from(self, mha):
        with torch.no_grad():
            for i in range(self.h):
                sl = slice(i * self.d_k, (i + 1) * self.d_k)
                for lin, W in zip((self.w_q[i], self.w_k[i], self.w_v[i]), (mha.w_q.weight, mha.w_k.weight, mha.w_v.weight)): lin.weight.copy_(W[sl])
            self.w_o.load_state_dict(mha.w_o.state_dict())
class _NoWOBias(_LoopBase):
    def load_from(self, mha):
        super().load_from(mha)
        with torch.no_grad(): self.w_o.bias.zero_()

@pytest.mark.parametrize('cls, says', [
    (_NoWO, r"self-attention: off by .*; W\^O is left out: concatenate the heads in order, then apply W\^O"),
    (_WOMissing, r"LoopMHA\(32, 4\) has no W\^O: after the 12 per-head layers it needs one nn.Linear\(h\*d_k, d_model\)"),
    (_NoBiasCopy, r"off by .*; load_from copied the weights but not the biases of 12 per-head layers: head i's b_i\^Q is w_q.bias"),
    (_NoWOBias, r"off by .*; load_from copied W\^O's weight but not its bias: copy w_o.bias too"),
], ids=['W^O left out of forward', 'no W^O layer', 'biases not copied', "W^O's bias not copied"])
def test_check_loop_mha_names_w_o_and_bias_mistakes(cls, says):
    assert_rejects(check_loop_mha, cls, says=says)

# ---------------------------------------------------------------- each kind of mistake, in the ways learners write it
def _copy_rows(loop, mha, biases=True, bias_rows=None):
    "load_from's loop over the heads; `bias_rows(i)`: the rows each head's biases are taken from (its own by default)."
    with torch.no_grad():
        for i in range(loop.h):
            sl = slice(i * loop.d_k, (i + 1) * loop.d_k)
            for lin, W in zip((loop.w_q[i], loop.w_k[i], loop.w_v[i]), (mha.w_q, mha.w_k, mha.w_v)):
                lin.weight.copy_(W.weight[sl])
                if biases: lin.bias.copy_(W.bias[bias_rows(i) if bias_rows else sl])

@pytest.mark.parametrize('merge', [
    lambda x: x.permute(0, 2, 1, 3).view(x.shape[0], x.shape[2], -1),
    lambda x: x.transpose(2, 1).view(x.size(0), -1, x.size(1) * x.size(3)),
    lambda x: x.contiguous().transpose(1, 2).view(x.shape[0], x.shape[2], -1),      # contiguous before the transpose: too early
], ids=['permute then view', 'transpose(2, 1) then view', 'contiguous too early'])
def test_check_heads_names_every_view_on_a_transposed_tensor(merge):
    assert_rejects(check_heads, right['split_heads'], merge,
                   says=r"^Not yet: merge_heads used \.view after transpose\(1, 2\): .*use \.reshape, or \.contiguous\(\)\.view")

class _WONotLoaded(_LoopBase):
    def load_from(self, mha): _copy_rows(self, mha)
class _WOIdentity(_LoopBase):
    def __init__(self, d_model, h): super().__init__(d_model, h); self.w_o = nn.Identity()
    def load_from(self, mha): _copy_rows(self, mha)
class _WOTransposed(_LoopBase):
    def load_from(self, mha):
        super().load_from(mha)
        with torch.no_grad(): self.w_o.weight.copy_(mha.w_o.weight.T)
class _WONoBiasLayer(_LoopBase):
    def __init__(self, d_model, h): super().__init__(d_model, h); self.w_o = nn.Linear(d_model, d_model, bias=False)
    def load_from(self, mha):
        _copy_rows(self, mha)
        with torch.no_grad(): self.w_o.weight.copy_(mha.w_o.weight)
class _BiasOfHead0(_LoopBase):
    def load_from(self, mha):
        _copy_rows(self, mha, bias_rows=lambda i: slice(0, self.d_k)); self.w_o.load_state_dict(mha.w_o.state_dict())
class _BiasOfQOnly(_LoopBase):
    def load_from(self, mha):
        _copy_rows(self, mha, biases=False); self.w_o.load_state_dict(mha.w_o.state_dict())
        with torch.no_grad():
            for i, lin in enumerate(self.w_q): lin.bias.copy_(mha.w_q.bias[i * self.d_k:(i + 1) * self.d_k])
class _BiasesZeroed(_LoopBase):
    def load_from(self, mha):
        super().load_from(mha)
        with torch.no_grad(): [lin.bias.zero_() for lin in [*self.w_q, *self.w_k, *self.w_v, self.w_o]]
class _NoBiasAnywhere(_LoopBase):
    def __init__(self, d_model, h):
        super().__init__(d_model, h)
        for lin in [*self.w_q, *self.w_k, *self.w_v, self.w_o]: lin.bias = None
    def load_from(self, mha): pass
class _ValuesFromX(_LoopBase):
    def head(self, i, x, mem, m): return attention(self.w_q[i](x), self.w_k[i](mem), self.w_v[i](x), m)[0]
class _ScaleAfterSoftmax(_LoopBase):
    def head(self, i, x, mem, m):
        s = self.w_q[i](x) @ self.w_k[i](mem).mT
        if m is not None: s = s.masked_fill(~m, float('-inf'))
        return s.softmax(-1) / self.d_k ** 0.5 @ self.w_v[i](mem)

@pytest.mark.parametrize('cls, says', [
    (_WONotLoaded, r"self-attention: off by .*; load_from: W\^O is not w_o.weight: copy it whole, with its bias"),
    (_WOIdentity, r"LoopMHA\(32, 4\) has no W\^O: after the 12 per-head layers"),
    (_WOTransposed, r"off by .*; load_from: W\^O is w_o.weight transposed; nn.Linear stores \(out, in\) already: copy it as it is"),
    (_WONoBiasLayer, r"^Not yet: LoopMHA\(32, 4\): W\^O without a bias \(bias=False\): MultiHeadAttention's projections have biases"),
    (_BiasOfHead0, r"off by .*; load_from gave 9 per-head layers the bias of another head: head i's b_i\^Q is w_q.bias\[i\*d_k:\(i\+1\)\*d_k\]"),
    (_BiasOfQOnly, r"off by .*; load_from copied the weights but not the biases of 8 per-head layers"),
    (_BiasesZeroed, r"off by .*; load_from copied the weights but not the biases of 12 per-head layers"),
    (_NoBiasAnywhere, r"^Not yet: LoopMHA\(32, 4\): 12 per-head layers and W\^O without a bias \(bias=False\)"),
    (_ValuesFromX, r"encoder-decoder attention: raised RuntimeError \(.*\) with x of 5 positions and mem of 7: queries come from x, "
                   r"keys and values both from mem"),
    (_ScaleAfterSoftmax, r"self-attention: off by .*; the weights are divided by sqrt\(d_k\) after the softmax: divide the scores"),
], ids=['W^O not loaded', 'W^O an Identity', 'W^O transposed', 'W^O without bias', "head 0's bias for all", 'only b^Q copied',
        'biases zeroed', 'no bias anywhere', 'values from x', 'scale after the softmax'])
def test_check_loop_mha_names_each_way_of_leaving_out_w_o_or_the_biases(cls, says):
    assert_rejects(check_loop_mha, cls, says=says)

class _QRowsEverywhere(_LoopBase):
    def load_from(self, mha):
        with torch.no_grad():
            for i in range(self.h):
                sl = slice(i * self.d_k, (i + 1) * self.d_k)
                for lin in (self.w_q[i], self.w_k[i], self.w_v[i]): lin.weight.copy_(mha.w_q.weight[sl]); lin.bias.copy_(mha.w_q.bias[sl])
            self.w_o.load_state_dict(mha.w_o.state_dict())
class _FillZero(_LoopBase):
    def head(self, i, x, mem, m):
        s = self.w_q[i](x) @ self.w_k[i](mem).mT / self.d_k ** 0.5
        return (s if m is None else s.masked_fill(~m, 0.0)).softmax(-1) @ self.w_v[i](mem)

@pytest.mark.parametrize('cls, says', [
    (_QRowsEverywhere, r"off by .*; load_from copied w_q's rows into w_k, w_q's rows into w_v: each of W\^Q, W\^K, W\^V has its own matrix"),
    (_FillZero, r"a causal mask: off by .*; the masked scores are set to 0, not -inf"),
], ids=["W^Q's rows everywhere", 'masked scores 0'])
def test_check_loop_mha_names_one_projection_loaded_twice_or_a_zero_fill(cls, says):
    assert_rejects(check_loop_mha, cls, says=says)

def test_check_heads_names_heads_stacked_along_the_positions():
    assert_rejects(check_heads, right['split_heads'], lambda x: torch.cat(x.unbind(1), 1),
                   says=r"gave torch.Size\(\[2, 15, 4\]\); expected \(B, n, h\*d\) = \(2, 5, 12\): the heads are stacked along the positions")

class _MaskInverted(_LoopBase):
    def head(self, i, x, mem, m):
        s = self.w_q[i](x) @ self.w_k[i](mem).mT / self.d_k ** 0.5
        return (s if m is None else s.masked_fill(m, float('-inf'))).softmax(-1).nan_to_num(0.0) @ self.w_v[i](mem)
class _HeadZeroEverywhere(_LoopBase):
    def head(self, i, x, mem, m): return super().head(0, x, mem, m)

@pytest.mark.parametrize('cls, says', [
    (_MaskInverted, r"a causal mask: off by .*; the mask is inverted: True means 'may attend'"),
    (_HeadZeroEverywhere, r"self-attention: off by .*; every head is head 0: head i needs its own w_q\[i\], w_k\[i\], w_v\[i\]"),
], ids=['mask inverted', 'head 0 everywhere'])
def test_check_loop_mha_names_an_inverted_mask_or_one_head_repeated(cls, says):
    assert_rejects(check_loop_mha, cls, says=says)

class _MemOrX(_LoopBase):
    def forward(self, x, mem=None, mask=None):
        mem = mem or x                                                   # a tensor asked for its truth
        m = None if mask is None else mask[:, 0]
        return self.w_o(torch.cat([self.head(i, x, mem, m) for i in range(self.h)], -1))

def test_check_loop_mha_names_mem_or_x():
    assert_rejects(check_loop_mha, _MemOrX, says=r"encoder-decoder attention: raised RuntimeError \(Boolean value of Tensor.*\): a tensor "
                                                 r"was used as True or False, as in `mem or x`; write `x if mem is None else mem`")

class _HeadsLoadedReversed(_LoopBase):
    def load_from(self, mha):
        _copy_rows(self, mha)
        with torch.no_grad():
            for lins in (self.w_q, self.w_k, self.w_v):
                ws, bs = [l.weight.clone() for l in lins], [l.bias.clone() for l in lins]
                for l, w, b in zip(lins, ws[::-1], bs[::-1]): l.weight.copy_(w); l.bias.copy_(b)
            self.w_o.load_state_dict(mha.w_o.state_dict())
class _QueriesFromMem(_LoopBase):
    def forward(self, x, mem=None, mask=None):
        mem = x if mem is None else mem
        m = None if mask is None else mask[:, 0]
        return self.w_o(torch.cat([self.head(i, mem, x, m) for i in range(self.h)], -1))

@pytest.mark.parametrize('cls, says', [
    (_HeadsLoadedReversed, r"off by .*; load_from gave the heads their rows out of order: head i's are rows i\*d_k"),
    (_QueriesFromMem, r"encoder-decoder attention: output torch.Size\(\[2, 7, 32\]\); expected .*: one row per key; the queries come from x"),
], ids=['heads loaded reversed', 'queries from mem'])
def test_check_loop_mha_names_heads_out_of_order_or_queries_from_mem(cls, says):
    assert_rejects(check_loop_mha, cls, says=says)

def test_check_heads_names_a_list_of_heads():
    assert_rejects(check_heads, lambda x, h: list(x.chunk(h, -1)), right['merge_heads'],
                   says=r"^Not yet: split_heads\(x of shape \(2, 5, 12\), h=3\) gave a list, not one tensor; expected \(B, h, n, d\)")

# ---------------------------------------------------------------- heads averaged, W^O applied head by head
def test_check_heads_names_heads_averaged():
    assert_rejects(check_heads, right['split_heads'], lambda x: x.mean(1).repeat(1, 1, x.shape[1]),
                   says=r"^Not yet: merge_heads averaged the heads: Concat\(head_1, ..., head_h\) puts them side by side")

class _HeadsAveraged(_LoopBase):
    def forward(self, x, mem=None, mask=None):
        mem = x if mem is None else mem
        m = None if mask is None else mask[:, 0]
        return self.w_o(torch.stack([self.head(i, x, mem, m) for i in range(self.h)]).mean(0).repeat(1, 1, self.h))
class _WoPerHead(_LoopBase):
    def forward(self, x, mem=None, mask=None):                           # W^O on each head alone, padded with zeros, then summed
        mem = x if mem is None else mem
        m = None if mask is None else mask[:, 0]
        pad = lambda i, t: torch.cat([t if j == i else torch.zeros_like(t) for j in range(self.h)], -1)
        return sum(self.w_o(pad(i, self.head(i, x, mem, m))) for i in range(self.h))

@pytest.mark.parametrize('cls, says', [
    (_HeadsAveraged, r"self-attention: off by .*; the heads are averaged: concatenate them, torch.cat\(heads, -1\)"),
    (_WoPerHead, r"self-attention: off by .*; W\^O is applied to each head alone and the results summed, which adds its bias h times"),
], ids=['heads averaged', 'W^O per head'])
def test_check_loop_mha_names_heads_averaged_or_wo_per_head(cls, says):
    assert_rejects(check_loop_mha, cls, says=says)

# ---------------------------------------------------------------- the heads interleaved, or concatenated out of order
def test_check_heads_names_the_heads_interleaved_feature_by_feature(capsys):
    "merge_heads that puts h after d (permute(0, 2, 3, 1)) is named as interleaving the heads; the right pair still passes."
    assert_rejects(check_heads, right['split_heads'], lambda x: x.permute(0, 2, 3, 1).reshape(x.shape[0], x.shape[2], -1),
                   says=r"^Not yet: merge_heads interleaved the heads feature by feature \(permute\(0, 2, 3, 1\), h after d\)")
    assert check_heads(right['split_heads'], right['merge_heads']) is True

@pytest.mark.parametrize('order', [lambda h: list(range(h))[::-1], lambda h: [1, 0] + list(range(2, h))], ids=['reversed', 'first two swapped'])
def test_check_loop_mha_names_the_heads_concatenated_out_of_order(order, capsys):
    "Heads whose weights are loaded right but concatenated out of order are named with the order; the solution still passes."
    ns = loop_ns(EXERCISES)
    class OutOfOrder(ns['LoopMHA']):
        def forward(self, x, mem=None, mask=None):
            mem = x if mem is None else mem
            m = None if mask is None else mask[:, 0]
            heads = [ns['attention'](q(x), k(mem), v(mem), m)[0] for q, k, v in zip(self.w_q, self.w_k, self.w_v)]
            return self.w_o(torch.cat([heads[i] for i in order(self.h)], -1))
    first = ', '.join(str(i + 1) for i in order(4))
    assert_rejects(check_loop_mha, OutOfOrder, says=rf"^Not yet: d_model=32, h=4, self-attention: off by .*; the heads are "
                   rf"concatenated in the order \[{first}\]: torch\.cat\(heads, -1\) in head order")
    assert check_loop_mha(ns['LoopMHA']) is True

# ---------------------------------------------------------------- mistakes nobody listed, named by what the answer does
_split_ok = lambda x, h: x.view(x.shape[0], x.shape[1], h, -1).transpose(1, 2)
_merge_ok = lambda x: x.transpose(1, 2).reshape(x.shape[0], x.shape[2], -1)

@pytest.mark.parametrize('split, merge, says', [
    (lambda x, h: x.view(x.shape[0], x.shape[1], -1, h).permute(0, 3, 1, 2), _merge_ok,
     r"move h forward; yours is x\.reshape\(2, 5, 4, 3\)\.permute\(0, 3, 1, 2\): the features were split as \(d, h\), so head i takes every h-th feature"),
    (lambda x, h: _split_ok(x, h).flip(1), _merge_ok, r"move h forward; yours holds the heads in reverse order"),
    (_split_ok, lambda x: _merge_ok(x.flip(1)), r"in head order; yours concatenates the heads in reverse order"),
    (_split_ok, lambda x: x.permute(0, 1, 3, 2).reshape(x.shape[0], x.shape[2], -1), r"yours is heads\.permute\(0, 1, 3, 2\)\.reshape\(B, n, h\*d\): transpose\(1, 2\)"),
])
def test_head_mistakes_nobody_listed_are_named_by_the_permutation_found(split, merge, says):
    assert_rejects(_ex.check_heads, split, merge, says=says)

# ---------------------------------------------------------------- mistakes nobody listed, named by what the answer does
def _loop_by(swap_last=False, scale_head=None):
    "A LoopMHA written head by head; head `scale_head` (0-based) doubled, or the last two heads swapped."
    class LoopMHA(nn.Module):
        def __init__(self, d_model, h):
            super().__init__(); self.h, self.dk = h, d_model // h
            self.wq = nn.ModuleList(nn.Linear(d_model, self.dk) for _ in range(h)); self.wk = nn.ModuleList(nn.Linear(d_model, self.dk) for _ in range(h))
            self.wv = nn.ModuleList(nn.Linear(d_model, self.dk) for _ in range(h)); self.wo = nn.Linear(d_model, d_model)
        def load_from(self, m):
            with torch.no_grad():
                for i in range(self.h):
                    sl = slice(i * self.dk, (i + 1) * self.dk)
                    for mine, theirs in ((self.wq[i], m.w_q), (self.wk[i], m.w_k), (self.wv[i], m.w_v)):
                        mine.weight.copy_(theirs.weight[sl]); mine.bias.copy_(theirs.bias[sl])
                self.wo.load_state_dict(m.w_o.state_dict())
        def forward(self, x, mem=None, mask=None):
            mem = x if mem is None else mem; heads = []
            for i in range(self.h):
                q, k, v = self.wq[i](x), self.wk[i](mem), self.wv[i](mem)
                s = q @ k.transpose(-2, -1) / math.sqrt(self.dk)
                if mask is not None: s = s.masked_fill(~mask[:, 0] if mask.dim() == 4 else ~mask, float('-inf'))
                o = s.softmax(-1) @ v
                if scale_head is not None and i == scale_head: o = o * 2
                heads.append(o)
            if swap_last: heads[-1], heads[-2] = heads[-2], heads[-1]
            return self.wo(torch.cat(heads, -1))
    return LoopMHA

def test_a_loop_mha_with_one_head_wrong_is_read_back_through_w_o():
    assert _ex.check_loop_mha(_loop_by()) is True
    assert_rejects(_ex.check_loop_mha, _loop_by(scale_head=1),
                   says=r"d_model=32, h=4, self-attention: off by .*; read back through W\^O, 1 of your 4 heads differ: head 2 is 2 times ours")


# ---------------------------------------------------------------- more mistakes, each named by what the answer does
import transformer_nb.course.multihead as _named

def _mh(split=None, merge=None):
    "split_heads and merge_heads, one of them miswritten."
    return (split or (lambda x, h: x.view(*x.shape[:2], h, -1).transpose(1, 2)),
            merge or (lambda x: x.transpose(1, 2).reshape(*x.shape[:1], x.shape[2], -1)))

@pytest.mark.parametrize('answer, says', [
    (_mh(split=lambda x, h: x.view(*x.shape[:2], h, -1).permute(0, 1, 3, 2)), r"gave torch\.Size\(\[2, 5, 4, 3\]\); .*: yours is \(B, n, d, h\)"),
    (_mh(split=lambda x, h: torch.stack(torch.chunk(x, h, dim=1), 1)), r"split_heads raised RuntimeError .* and runs on 3 positions: it divides the positions \(dim 1\)"),
    (_mh(merge=lambda x: x.reshape(x.shape[0], x.shape[1], -1)), r"gave torch\.Size\(\[2, 3, 20\]\); .*: yours is \(B, h, n\*d\); transpose\(1, 2\)"),
])
def test_split_and_merge_mistakes_named_by_the_axes_they_hold(answer, says):
    assert_rejects(_named.check_heads, *answer, says=says)

class _Loop(nn.Module):
    "A per-head LoopMHA: `kv` swaps keys and values, `plain` keeps the heads in lists, `width` is each head's size (d_k if None)."
    kv = plain = False; width = None
    def __init__(self, d_model:int, h:int):
        super().__init__()
        self.h, self.d_k = h, self.width or d_model // h
        make = (lambda: [nn.Linear(d_model, self.d_k) for _ in range(h)])
        self.w_q, self.w_k, self.w_v = ((make() if self.plain else nn.ModuleList(make())) for _ in range(3))
        self.w_o = nn.Linear(h * self.d_k, d_model)
    def forward(self, x, mem=None, mask=None):
        mem = x if mem is None else mem; outs = []
        for i in range(self.h):
            q, k, v = self.w_q[i](x), self.w_k[i](mem), self.w_v[i](mem)
            if self.kv: k, v = v, k
            s = q @ k.transpose(-1, -2) / math.sqrt(self.d_k)
            if mask is not None: s = s.masked_fill(~mask[:, 0], float('-inf'))
            outs.append(s.softmax(-1) @ v)
        return self.w_o(torch.cat(outs, -1))
    @torch.no_grad()
    def load_from(self, mha):
        d = self.d_k
        for i in range(self.h):
            for mine, theirs in ((self.w_q, mha.w_q), (self.w_k, mha.w_k), (self.w_v, mha.w_v)):
                mine[i].weight.copy_(theirs.weight[i * d:(i + 1) * d]); mine[i].bias.copy_(theirs.bias[i * d:(i + 1) * d])
        self.w_o.weight.copy_(mha.w_o.weight); self.w_o.bias.copy_(mha.w_o.bias)

@pytest.mark.parametrize('over, says', [
    (dict(kv=True), r"self-attention: off by .*; the keys and the values are swapped"),
    (dict(plain=True), r"LoopMHA\(32, 4\) keeps layers in plain Python lists \(self\.w_q, self\.w_k, self\.w_v\).*use nn\.ModuleList"),
    (dict(width=32), r"LoopMHA\(32, 4\) holds 12 nn\.Linear\(32, 32\), 1 nn\.Linear\(128, 32\): each head projects to 32; a head's size is d_k = d_model / h = 8"),
])
def test_loop_mha_mistakes_named_by_property(over, says):
    assert_rejects(_named.check_loop_mha, type('LoopMHA', (_Loop,), over), says=says)

def test_the_per_head_loop_itself_passes():
    assert _named.check_loop_mha(type('LoopMHA', (_Loop,), {})) is True

@pytest.mark.parametrize('how, says', [('summed', 'each of your 4 head slots holds the heads summed: concatenate'), ('averaged', 'the heads are averaged: concatenate')])
def test_heads_summed_or_averaged_are_named(how, says):
    "Every head slot holding the sum (or mean) of the heads, read back through W^O, is named."
    class Pooled(_LoopBase):
        def forward(self, x, mem=None, mask=None):
            mem, m = x if mem is None else mem, None if mask is None else mask[:, 0]
            hs = [self.head(i, x, mem, m) for i in range(self.h)]
            pooled = sum(hs) / (1 if how == 'summed' else self.h)
            return self.w_o(torch.cat([pooled] * self.h, -1))
    assert_rejects(_ex.check_loop_mha, Pooled, says=rf"d_model=32, h=4, self-attention: .*{says}")


def test_a_w_o_that_reads_one_head_is_named():
    "A W^O of d_k inputs (the heads summed, or one head read) is named by its shape before any weight is loaded."
    class Narrow(_Loop):
        def __init__(self, d_model, h): super().__init__(d_model, h); self.w_o = nn.Linear(self.d_k, d_model)
    assert_rejects(_named.check_loop_mha, Narrow, says=r"LoopMHA\(32, 4\): W\^O is nn\.Linear\(8, 32\); it reads the h heads side by side")

# ---------------------------------------------------------------- slips of later blind answers, named by property
class _LoopValuesFromKeys(_LoopBase):                                   # a copied line: V = mem W_i^K
    def head(self, i, x, mem, m): return attention(self.w_q[i](x), self.w_k[i](mem), self.w_k[i](mem), m)[0]
class _LoopSqueezedMask(_LoopBase):                                     # mask.squeeze(): n_q = 1 loses its axis too
    def forward(self, x, mem=None, mask=None):
        mem = x if mem is None else mem
        m = None if mask is None else mask.squeeze()
        return self.w_o(torch.cat([self.head(i, x, mem, m) for i in range(self.h)], -1))

@pytest.mark.parametrize('answer, says', [
    (_LoopValuesFromKeys, r"self-attention: off by .*; the values are projected with W_i\^K \(w_k's rows\): each role has its own projection"),
    (_LoopSqueezedMask, r"one query and a padding mask: output torch.Size\(\[2, 2, 32\]\); .*mask.squeeze\(\) drops every axis of size 1, and here n_q = 1"),
])
def test_check_loop_mha_names_a_copied_projection_and_a_squeezed_mask(answer, says):
    assert_rejects(check_loop_mha, answer, says=says)
    assert check_loop_mha(_LoopBase) is True

# ---------------------------------------------------------------- one head kept, one sentence's mask, one head's rows
def test_merge_heads_that_keeps_one_head_is_named():
    split = lambda x, h: x.view(*x.shape[:2], h, -1).transpose(1, 2)
    assert_rejects(check_heads, split, lambda x: x[:, 0], says=r"gave torch.Size\(\[2, 5, 4\]\); expected \(B, n, h\*d\) = \(2, 5, 12\): that is head 1 alone, \(B, n, d\)")

class _LoopFirstMask(_LoopBase):
    "Every sentence attends under the first sentence's mask."
    def forward(self, x, mem=None, mask=None):
        mem = x if mem is None else mem
        m = None if mask is None else mask[0]
        return self.w_o(torch.cat([self.head(i, x, mem, m) for i in range(self.h)], -1))

class _LoopOneVBlock(nn.Module):
    "Per-head lists named wq, wk, wv, and every head's W_i^V taken from head 1's rows."
    def __init__(self, d_model, h):
        super().__init__()
        self.h, self.d_k = h, d_model // h
        heads = lambda: nn.ModuleList(nn.Linear(d_model, self.d_k) for _ in range(h))
        self.wq, self.wk, self.wv, self.wo = heads(), heads(), heads(), nn.Linear(d_model, d_model)
    @torch.no_grad()
    def load_from(self, mha):
        for i in range(self.h):
            rows, first = slice(i * self.d_k, (i + 1) * self.d_k), slice(0, self.d_k)
            for lin, W, sl in ((self.wq[i], mha.w_q, rows), (self.wk[i], mha.w_k, rows), (self.wv[i], mha.w_v, first)):
                lin.weight.copy_(W.weight[sl]); lin.bias.copy_(W.bias[sl])
        self.wo.weight.copy_(mha.w_o.weight); self.wo.bias.copy_(mha.w_o.bias)
    def forward(self, x, mem=None, mask=None):
        mem, m = x if mem is None else mem, None if mask is None else mask[:, 0]
        return self.wo(torch.cat([attention(q(x), k(mem), v(mem), m)[0] for q, k, v in zip(self.wq, self.wk, self.wv)], -1))

@pytest.mark.parametrize('answer, says', [
    (_LoopFirstMask, r"one query and a padding mask: off by .*; every sentence got the first sentence's mask \(mask\[0\]\): each sentence has its own padding"),
    (_LoopOneVBlock, r"self-attention: off by .*; load_from filled wv from w_v's rows of head 1 for head 2, head 1 for head 3, head 1 for head 4: head i's rows are"),
])
def test_check_loop_mha_names_one_sentences_mask_and_one_heads_rows(answer, says):
    assert_rejects(check_loop_mha, answer, says=says)

# ---------------------------------------------------------------- load_from taking columns, not rows
import contextlib, io
class _Columns(_LoopBase):
    "load_from copies head i's columns of each projection, W[:, i*d_k:(i+1)*d_k], into a (d_k, d_model) weight."
    def load_from(self, mha):
        with torch.no_grad():
            for i in range(self.h):
                sl = slice(i * self.d_k, (i + 1) * self.d_k)
                for lin, m in ((self.w_q[i], mha.w_q), (self.w_k[i], mha.w_k), (self.w_v[i], mha.w_v)):
                    lin.weight.copy_(m.weight[:, sl]); lin.bias.copy_(m.bias[sl])
            self.w_o.weight.copy_(mha.w_o.weight); self.w_o.bias.copy_(mha.w_o.bias)
        return self

def test_load_from_taking_columns_is_named():
    assert_rejects(_ex.check_loop_mha, _Columns, says=r"d_model=32, h=4: load_from raised RuntimeError \(.*\): a per-head weight is \(d_k, d_model\) = "
                                                      r"\(8, 32\), nn.Linear's \(out, in\): head i's are rows i\*d_k .*the columns \[:, i\*d_k:\(i\+1\)\*d_k\] are \(32, 8\)")
    with contextlib.redirect_stdout(io.StringIO()): assert _ex.check_loop_mha(_LoopBase) is True

# ---------------------------------------------------------------- a fresh blind set: wrong answers written before reading the messages
import re as _n9re
from nbtools import assert_rejects as _n9_rejects
from transformer_nb.course.multihead import check_heads as _n9_heads
_n9_sp = lambda x, h: x.view(x.shape[0], x.shape[1], h, -1).transpose(1, 2)
_n9_mg = lambda x: x.transpose(1, 2).reshape(x.shape[0], x.shape[2], -1)
NINTH = [('split viewed without the transpose', _n9_heads, (lambda x, h: x.view(x.shape[0], h, x.shape[1], -1), _n9_mg), "without the transpose, a head holds"),
         ('merge keeps one head', _n9_heads, (_n9_sp, lambda x: _n9_mg(x)[..., :x.shape[-1]]), "that is head 1 alone"),
         ('strided heads', _n9_heads, (lambda x, h: x.view(x.shape[0], x.shape[1], -1, h).permute(0, 3, 1, 2),
                                        lambda x: x.permute(0, 2, 3, 1).reshape(x.shape[0], x.shape[2], -1)), "so head i takes every h-th feature"),
         ('merge over the batch axis (IndexError)', _n9_heads, (_n9_sp, lambda x: torch.cat([x[i] for i in range(x.shape[1])], dim=-1)),
          "it indexes the batch axis (dim 0) with the head numbers"),
         ('head size hard-coded to 64 in split', _n9_heads, (lambda x, h: x.view(x.shape[0], x.shape[1], h, 64).transpose(1, 2), _n9_mg),
          "the head size is hard-coded to 64"),
         ('d_model 512 hard-coded in merge', _n9_heads, (_n9_sp, lambda x: x.transpose(1, 2).reshape(x.shape[0], x.shape[2], 512)),
          "d_model, h or d_k is hard-coded"),
         ('8 heads hard-coded in split', _n9_heads, (lambda x, h: x.view(x.shape[0], x.shape[1], 8, -1).transpose(1, 2), _n9_mg),
          "the number of heads is hard-coded to 8"),
         ('8 heads hard-coded in merge', _n9_heads, (_n9_sp, lambda x: x.transpose(1, 2).reshape(x.shape[0], x.shape[2], x.shape[3] * 8)),
          "the number of heads is hard-coded to 8")]

def test_ninth_right_heads_pass():
    assert _n9_heads(_n9_sp, _n9_mg) is True
    assert _n9_heads(lambda x, h: x.unflatten(-1, (h, -1)).transpose(1, 2), lambda x: x.transpose(1, 2).flatten(2)) is True
from transformer_nb.course.multihead import check_loop_mha as _n9_loop
from transformer_nb.attention import attention as _n9_attention
def _n9_Loop(use_wo=True, pass_mask=True):
    class L(nn.Module):
        def __init__(self, d_model, h):
            super().__init__(); self.h, self.d_k = h, d_model // h
            self.wq, self.wk, self.wv = (nn.ModuleList(nn.Linear(d_model, self.d_k) for _ in range(h)) for _ in range(3))
            self.wo = nn.Linear(h * self.d_k, d_model)
        def forward(self, x, mem=None, mask=None):
            mem = x if mem is None else mem; m = None if (mask is None or not pass_mask) else mask[:, 0]
            o = torch.cat([_n9_attention(q(x), k(mem), v(mem), m)[0] for q, k, v in zip(self.wq, self.wk, self.wv)], -1)
            return self.wo(o) if use_wo else o
        def load_from(self, mha):
            d = self.d_k
            with torch.no_grad():
                for i in range(self.h):
                    for mine, theirs in ((self.wq[i], mha.w_q), (self.wk[i], mha.w_k), (self.wv[i], mha.w_v)):
                        mine.weight.copy_(theirs.weight[i * d:(i + 1) * d]); mine.bias.copy_(theirs.bias[i * d:(i + 1) * d])
                self.wo.load_state_dict(mha.w_o.state_dict())
    return L
NINTH += [('loop: no W^O', _n9_loop, (_n9_Loop(use_wo=False),), "W^O is left out"),
          ('loop: the mask not passed on', _n9_loop, (_n9_Loop(pass_mask=False),), "the mask is not applied")]

def test_ninth_right_loop_passes():
    assert _n9_loop(_n9_Loop()) is True

@pytest.mark.parametrize('label', [c[0] for c in NINTH])
def test_ninth_blind_answers_named(label):
    "Each answer of the blind set is refused with a message that names its mistake."
    _, check, answer, words = next(c for c in NINTH if c[0] == label)
    _n9_rejects(check, *answer, says=_n9re.escape(words))


class _Joined(_Loop):
    "A per-head LoopMHA whose heads are joined on axis `dim` (0: batch, 1: queries), then reshaped to (B, n_q, h*d_k) unless `raw`."
    dim, raw = 0, False
    def forward(self, x, mem=None, mask=None):
        mem = x if mem is None else mem; outs = []
        for i in range(self.h):
            q, k, v = self.w_q[i](x), self.w_k[i](mem), self.w_v[i](mem)
            s = q @ k.transpose(-1, -2) / math.sqrt(self.d_k)
            if mask is not None: s = s.masked_fill(~mask[:, 0], float('-inf'))
            outs.append(s.softmax(-1) @ v)
        joined = torch.cat(outs, self.dim)
        return self.w_o(joined if self.raw else joined.reshape(x.shape[0], x.shape[1], -1))

@pytest.mark.parametrize('over, says', [
    (dict(dim=0), r"^Not yet: d_model=32, h=4, self-attention: off by .*; read back through W\^O, your heads were concatenated on the batch axis, "
                  r"torch\.cat\(heads, 0\), and then reshaped to \(B, n_q, h\*d_k\), which puts the features of other sentences in a row"),
    (dict(dim=1), r"your heads were concatenated on the query axis, torch\.cat\(heads, 1\), .* other positions in a row: concatenate them on the last axis"),
    (dict(dim=0, raw=True), r"^Not yet: d_model=32, h=4, self-attention: W\^O was given 40 rows of 8 features, not 10 rows of h\*d_k = 32: your 4 heads "
                            r"were concatenated on the batch axis \(torch\.cat\(heads, 0\)\) or the query axis \(1\): concatenate the heads on the last axis"),
])
def test_heads_concatenated_on_another_axis_are_named_by_it(over, says):
    "Heads joined on the batch (or query) axis are named by that axis, reshaped to fit W^O or not; never the list of every cause."
    assert_rejects(_named.check_loop_mha, type('LoopMHA', (_Joined,), over), says=says)


# ---------------------------------------------------------------- the fifteenth blind set's misses (results/checker_answers.json)
class _RepeatedLinear(nn.Module):
    "A LoopMHA whose per-head lists repeat one nn.Linear h times, [nn.Linear(d_model, d_k)] * h: the heads share it."
    def __init__(self, d_model, h):
        super().__init__()
        self.h, self.d_k = h, d_model // h
        self.w_q, self.w_k, self.w_v = (nn.ModuleList([nn.Linear(d_model, self.d_k)] * h) for _ in range(3))
        self.w_o = nn.Linear(h * self.d_k, d_model)
    def forward(self, x, mem=None, mask=None):
        mem = x if mem is None else mem
        m = None if mask is None else mask[:, 0]
        return self.w_o(torch.cat([attention(q(x), k(mem), v(mem), m)[0] for q, k, v in zip(self.w_q, self.w_k, self.w_v)], -1))

def test_one_linear_repeated_in_the_lists_is_named():
    assert_rejects(check_loop_mha, _RepeatedLinear, says=r"^Not yet: LoopMHA\(32, 4\): self\.w_q, self\.w_k, self\.w_v each hold one layer several "
                   r"times: \[nn\.Linear\(\.\.\.\)\] \* h repeats the same module, so the heads share its weights; build a new layer per head")

# ---------------------------------------------------------------- the seventeenth blind set's misses
def test_merge_heads_flattened_from_axis_1_is_named():
    split = lambda x, h: x.view(x.shape[0], x.shape[1], h, -1).transpose(1, 2)
    assert_rejects(check_heads, split, lambda x: x.transpose(1, 2).flatten(1), says=r"gave torch.Size\(\[2, 60\]\).*flatten\(1\) merged the positions too")

def _loop_with(strided=False, true_division=False):
    "A LoopMHA whose load_from takes the rows i::h, or whose d_k is d_model / h."
    class LoopMHA(_loop_by()):
        def __init__(self, d_model, h):
            super().__init__(d_model, h)
            if true_division: nn.Linear(d_model, d_model / h)
        def load_from(self, m):
            super().load_from(m)
            if strided:
                with torch.no_grad():
                    for i in range(self.h):
                        for mine, theirs in ((self.wq[i], m.w_q), (self.wk[i], m.w_k), (self.wv[i], m.w_v)): mine.weight.copy_(theirs.weight[i::self.h])
    return LoopMHA

def test_a_loop_mha_loading_strided_rows_is_named():
    assert_rejects(check_loop_mha, _loop_with(strided=True), says=r"off by .*; load_from took the rows i::h, every 4th row, for 12 per-head weights")

def test_a_loop_mha_with_d_k_a_float_is_named():
    assert_rejects(check_loop_mha, _loop_with(true_division=True), says=r"LoopMHA\(32, 4\) raised TypeError .*: a layer's size is a float, as d_model / h = 8.0")

# ---------------------------------------------------------------- the nineteenth blind set's miss
def test_a_loop_mha_loading_the_rows_transposed_is_named():
    LoopMHA = _loop_with()
    class Transposed(LoopMHA):
        @torch.no_grad()
        def load_from(self, m):
            for i in range(self.h):
                rows = slice(i * self.dk, (i + 1) * self.dk)
                for mine, theirs in ((self.wq[i], m.w_q), (self.wk[i], m.w_k), (self.wv[i], m.w_v)): mine.weight.copy_(theirs.weight[rows].T)
    assert_rejects(check_loop_mha, Transposed, says=r"load_from raised RuntimeError .*and so are the rows transposed \(\.T, the paper's \(in, out\) layout")


# ---------------------------------------------------------------- the twenty-first blind set's misses
from transformer_nb.course.multihead import check_loop_mha as _t21_check_loop_mha
from nbtools import assert_rejects as _t21_rejects

_T21_PRELUDE = 'from transformer_nb.attention import attention'   # the names the exercise's cell sees
_T21 = {   # label: (the exercise's function, the answer's code, what its message must say)
    "attention(...)[1], the weights, taken as the head's output": ('LoopMHA', '\nclass LoopMHA(nn.Module):\n    def __init__(self, d_model, h):\n        super().__init__()\n        self.h, self.d_k = h, d_model // h\n        heads = lambda: nn.ModuleList(nn.Linear(d_model, self.d_k) for _ in range(h))\n        self.w_q, self.w_k, self.w_v = heads(), heads(), heads()\n        self.w_o = nn.Linear(h * self.d_k, d_model)\n    def forward(self, x, mem=None, mask=None):\n        mem = x if mem is None else mem\n        m = None if mask is None else mask[:, 0]\n        heads = [attention(q(x), k(mem), v(mem), m)[1] for q, k, v in zip(self.w_q, self.w_k, self.w_v)]\n        return self.w_o(torch.cat(heads, -1))\n    @torch.no_grad()\n    def load_from(self, mha):\n        for i in range(self.h):\n            rows = slice(i * self.d_k, (i + 1) * self.d_k)\n            for lin, W in zip((self.w_q[i], self.w_k[i], self.w_v[i]), (mha.w_q, mha.w_k, mha.w_v)):\n                lin.weight.copy_(W.weight[rows]); lin.bias.copy_(W.bias[rows])\n        self.w_o.load_state_dict(mha.w_o.state_dict())',
        'each head gave 5 features, the number of keys'),
    'load_from without torch.no_grad(): copy_ into a leaf that requires grad': ('LoopMHA', '\nclass LoopMHA(nn.Module):\n    def __init__(self, d_model, h):\n        super().__init__()\n        self.h, self.d_k = h, d_model // h\n        heads = lambda: nn.ModuleList(nn.Linear(d_model, self.d_k) for _ in range(h))\n        self.w_q, self.w_k, self.w_v = heads(), heads(), heads()\n        self.w_o = nn.Linear(h * self.d_k, d_model)\n    def forward(self, x, mem=None, mask=None):\n        mem = x if mem is None else mem\n        m = None if mask is None else mask[:, 0]\n        heads = [attention(q(x), k(mem), v(mem), m)[0] for q, k, v in zip(self.w_q, self.w_k, self.w_v)]\n        return self.w_o(torch.cat(heads, -1))\n    def load_from(self, mha):\n        for i in range(self.h):\n            rows = slice(i * self.d_k, (i + 1) * self.d_k)\n            for lin, W in zip((self.w_q[i], self.w_k[i], self.w_v[i]), (mha.w_q, mha.w_k, mha.w_v)):\n                lin.weight.copy_(W.weight[rows]); lin.bias.copy_(W.bias[rows])\n        self.w_o.load_state_dict(mha.w_o.state_dict())',
        'copy under torch\\.no_grad\\(\\) \\(decorate load_from with @torch\\.no_grad\\(\\)\\)'),
}

@pytest.mark.parametrize('label', list(_T21))
def test_the_twenty_first_sets_misses_are_named(label):
    import math, torch, torch.nn as nn, torch.nn.functional as F
    fn, src, says = _T21[label]
    ns = dict(math=math, torch=torch, nn=nn, F=F)
    exec(_T21_PRELUDE, ns); exec(src, ns)
    check = {'LoopMHA': _t21_check_loop_mha}[fn]
    dtype, grad = torch.get_default_dtype(), torch.is_grad_enabled()
    try: _t21_rejects(check, ns[fn], says=says)
    finally: torch.set_default_dtype(dtype); torch.set_grad_enabled(grad)   # an answer that changes them must not change the next test


# ---------------------------------------------------------------- the twenty-third blind set's misses
from transformer_nb.course.multihead import check_loop_mha as _t23_check_loop_mha
from nbtools import assert_rejects as _t23_rejects

_T23_PRELUDE = 'from transformer_nb.attention import attention'   # the names the exercise's cell sees
_T23 = {   # label: (the exercise's function, the answer's code, what its message must say)
    'W^O created in forward: a fresh random layer each call': ('LoopMHA', '\nclass LoopMHA(nn.Module):\n    def __init__(self, d_model, h):\n        super().__init__()\n        self.h, self.d_k = h, d_model // h\n        heads = lambda: nn.ModuleList(nn.Linear(d_model, self.d_k) for _ in range(h))\n        self.w_q, self.w_k, self.w_v = heads(), heads(), heads()\n        self.w_o = nn.Linear(h * self.d_k, d_model)\n    def forward(self, x, mem=None, mask=None):\n        mem = x if mem is None else mem\n        m = None if mask is None else mask[:, 0]\n        heads = [attention(q(x), k(mem), v(mem), m)[0] for q, k, v in zip(self.w_q, self.w_k, self.w_v)]\n        self.w_o = nn.Linear(self.h * self.d_k, x.shape[-1])\n        return self.w_o(torch.cat(heads, -1))\n    @torch.no_grad()\n    def load_from(self, mha):\n        for i in range(self.h):\n            rows = slice(i * self.d_k, (i + 1) * self.d_k)\n            for lin, W in zip((self.w_q[i], self.w_k[i], self.w_v[i]), (mha.w_q, mha.w_k, mha.w_v)):\n                lin.weight.copy_(W.weight[rows]); lin.bias.copy_(W.bias[rows])\n        self.w_o.load_state_dict(mha.w_o.state_dict())',
        'forward\\ replaced\\ w_o:\\ a\\ layer\\ created\\ in\\ forward'),
    'dropout 0.1 on the weights with F.dropout (always on)': ('LoopMHA', '\nclass LoopMHA(nn.Module):\n    def __init__(self, d_model, h):\n        super().__init__()\n        self.h, self.d_k = h, d_model // h\n        heads = lambda: nn.ModuleList(nn.Linear(d_model, self.d_k) for _ in range(h))\n        self.w_q, self.w_k, self.w_v = heads(), heads(), heads()\n        self.w_o = nn.Linear(h * self.d_k, d_model)\n    def forward(self, x, mem=None, mask=None):\n        mem = x if mem is None else mem\n        m = None if mask is None else mask[:, 0]\n        heads = [F.dropout(attention(q(x), k(mem), v(mem), m)[1], 0.1) @ v(mem) for q, k, v in zip(self.w_q, self.w_k, self.w_v)]\n        return self.w_o(torch.cat(heads, -1))\n    @torch.no_grad()\n    def load_from(self, mha):\n        for i in range(self.h):\n            rows = slice(i * self.d_k, (i + 1) * self.d_k)\n            for lin, W in zip((self.w_q[i], self.w_k[i], self.w_v[i]), (mha.w_q, mha.w_k, mha.w_v)):\n                lin.weight.copy_(W.weight[rows]); lin.bias.copy_(W.bias[rows])\n        self.w_o.load_state_dict(mha.w_o.state_dict())',
        'in\\ eval\\ mode:\\ two\\ calls\\ on\\ the\\ same\\ x\\ gave\\ different\\ outputs'),
}

@pytest.mark.parametrize('label', list(_T23))
def test_the_twenty_third_sets_misses_are_named(label):
    import math, torch, torch.nn as nn, torch.nn.functional as F
    fn, src, says = _T23[label]
    ns = dict(math=math, torch=torch, nn=nn, F=F)
    exec(_T23_PRELUDE, ns); exec(src, ns)
    check = {'LoopMHA': _t23_check_loop_mha}[fn]
    dtype, grad = torch.get_default_dtype(), torch.is_grad_enabled()
    try: _t23_rejects(check, ns[fn], says=says)
    finally: torch.set_default_dtype(dtype); torch.set_grad_enabled(grad)   # an answer that changes them must not change the next test


# ---------------------------------------------------------------- the twenty-fourth blind set's misses
from transformer_nb.course.multihead import check_heads as _t24_check_heads
from nbtools import assert_rejects as _t24_rejects

_T24_PRELUDE = 'import math, copy, random, torch, torch.nn as nn, torch.nn.functional as F\nfrom collections import Counter\nfrom transformer_nb.core import *\nfrom transformer_nb.attention import *\nfrom transformer_nb.multihead import MultiHeadAttention'   # the names the exercise's cell sees
_T24 = {   # label: (the exercise, the answer's code, what its message must say)
    'x.split(h, -1): pieces of size h, not h pieces': ('heads', '\ndef split_heads(x, h):\n    return torch.stack(x.split(h, -1), 1)\n\ndef merge_heads(x):\n    B, h, n, d = x.shape\n    return x.transpose(1, 2).reshape(B, n, h * d)\n',
        "you cut the features into pieces of h = 3 \\(h read as one head's size, or x.split\\(h, -1\\)"),
    'split in NumPy (reshape, transpose): an ndarray returned': ('heads', '\nimport numpy as np\ndef split_heads(x, h):\n    B, n, hd = x.shape\n    return np.transpose(x.detach().numpy().reshape(B, n, h, hd // h), (0, 2, 1, 3))\n\ndef merge_heads(x):\n    B, h, n, d = x.shape\n    return x.transpose(1, 2).reshape(B, n, h * d)\n',
        'split_heads\\(x of shape \\(2, 5, 12\\), h=3\\) returned a ndarray: return a tensor'),
    'only the first batch element split, broadcast to the batch': ('heads', '\ndef split_heads(x, h):\n    B, n, hd = x.shape\n    return x[0].view(n, h, hd // h).transpose(0, 1)[None].expand(B, -1, -1, -1)\n\ndef merge_heads(x):\n    B, h, n, d = x.shape\n    return x.transpose(1, 2).reshape(B, n, h * d)\n',
        "every sentence of the batch holds sentence 0's heads"),
    'detach() in split: no gradient reaches x': ('heads', '\ndef split_heads(x, h):\n    B, n, hd = x.shape\n    return x.detach().view(B, n, h, hd // h).transpose(1, 2)\n\ndef merge_heads(x):\n    B, h, n, d = x.shape\n    return x.transpose(1, 2).reshape(B, n, h * d)\n',
        'no gradient reaches x through merge_heads\\(split_heads\\(x, h\\)\\)'),
    'merge by torch.cat(list(x), -1): the batch concatenated, not the heads': ('heads', '\ndef split_heads(x, h):\n    B, n, hd = x.shape\n    return x.view(B, n, h, hd // h).transpose(1, 2)\n\ndef merge_heads(x):\n    return torch.cat(list(x.transpose(1, 2)), -1)[None]\n',
        'the sentences were concatenated: list\\(x\\) \\(or x.unbind\\(0\\)\\) iterates over the first axis'),
}

@pytest.mark.parametrize('label', list(_T24))
def test_the_twenty_fourth_sets_misses_are_named(label):
    import torch
    ex, src, says = _T24[label]
    ns = {}
    exec(_T24_PRELUDE, ns); exec(src, ns)
    run = {'heads': lambda ns: _t24_check_heads(ns['split_heads'], ns['merge_heads'])}[ex]
    dtype, grad = torch.get_default_dtype(), torch.is_grad_enabled()
    try: _t24_rejects(lambda: run(ns), says=says)
    finally: torch.set_default_dtype(dtype); torch.set_grad_enabled(grad)   # an answer that changes them must not change the next test


# ---------------------------------------------------------------- the twenty-sixth blind set's misses
from nbtools import assert_rejects as _t26_rejects

_T26_PRELUDE = 'import math, copy, random, torch, torch.nn as nn, torch.nn.functional as F\nfrom collections import Counter\nfrom transformer_nb.core import *\nfrom transformer_nb.attention import *\nfrom transformer_nb.multihead import MultiHeadAttention\nfrom transformer_nb.course.multihead import check_heads, check_loop_mha'   # the names the exercise's cell sees
_T26 = {   # label: (the exercise, the answer's code, what its message must say)
    'merge right for one batch element only (x[0])': ('heads', '\ndef split_heads(x, h):\n    B, n, hd = x.shape\n    return x.view(B, n, h, hd // h).transpose(1, 2)\n\ndef merge_heads(x):\n    B, h, n, d = x.shape\n    return x[0].transpose(0, 1).reshape(n, h * d)[None].expand(B, n, h * d)\n',
        "every sentence holds sentence 0's heads: your merge reads x\\[0\\] alone"),
    'merge reshapes to the shape split last saw (state kept between calls)': ('heads', "\n_seen = {}\ndef split_heads(x, h):\n    B, n, hd = x.shape\n    _seen['shape'] = x.shape\n    return x.view(B, n, h, hd // h).transpose(1, 2)\ndef merge_heads(x):\n    return x.transpose(1, 2).reshape(_seen['shape'])\n",
        'it reads a size kept from an earlier call'),
    'merge with a C-style loop that writes head i at columns i .. i + d (step 1, not d)': ('heads', '\ndef split_heads(x, h):\n    B, n, hd = x.shape\n    return x.view(B, n, h, hd // h).transpose(1, 2)\n\ndef merge_heads(x):\n    B, h, n, d = x.shape\n    out = x.new_zeros(B, n, h * d)\n    for i in range(h): out[:, :, i:i + d] = x[:, i]\n    return out\n',
        'head 3 starts at feature 2, not 8'),
    'split and merge in float64 (.double())': ('heads', '\ndef split_heads(x, h):\n    B, n, hd = x.shape\n    return x.double().view(B, n, h, hd // h).transpose(1, 2)\ndef merge_heads(x):\n    B, h, n, d = x.shape\n    return x.transpose(1, 2).reshape(B, n, h * d).double()\n',
        'on a torch\\.float32 x, split_heads gave torch\\.float64 and merge_heads gave torch\\.float64'),
    "parameters replaced by nn.Parameter views of mha's (aliasing, no copy)": ('LoopMHA', '\nclass LoopMHA(nn.Module):\n    def __init__(self, d_model, h):\n        super().__init__()\n        self.h, self.d_k = h, d_model // h\n        heads = lambda: nn.ModuleList(nn.Linear(d_model, self.d_k) for _ in range(h))\n        self.w_q, self.w_k, self.w_v = heads(), heads(), heads()\n        self.w_o = nn.Linear(h * self.d_k, d_model)\n    def forward(self, x, mem=None, mask=None):\n        mem = x if mem is None else mem\n        m = None if mask is None else mask[:, 0]\n        heads = [attention(q(x), k(mem), v(mem), m)[0] for q, k, v in zip(self.w_q, self.w_k, self.w_v)]\n        return self.w_o(torch.cat(heads, -1))\n    @torch.no_grad()\n    def load_from(self, mha):\n        for i in range(self.h):\n            rows = slice(i * self.d_k, (i + 1) * self.d_k)\n            for lin, W in zip((self.w_q[i], self.w_k[i], self.w_v[i]), (mha.w_q, mha.w_k, mha.w_v)):\n                lin.weight = nn.Parameter(W.weight[rows]); lin.bias = nn.Parameter(W.bias[rows])\n        self.w_o.load_state_dict(mha.w_o.state_dict())',
        "share memory with MultiHeadAttention's parameters"),
    'forward under torch.no_grad (no gradient to the weights)': ('LoopMHA', '\nclass LoopMHA(nn.Module):\n    def __init__(self, d_model, h):\n        super().__init__()\n        self.h, self.d_k = h, d_model // h\n        heads = lambda: nn.ModuleList(nn.Linear(d_model, self.d_k) for _ in range(h))\n        self.w_q, self.w_k, self.w_v = heads(), heads(), heads()\n        self.w_o = nn.Linear(h * self.d_k, d_model)\n    def forward(self, x, mem=None, mask=None):\n        with torch.no_grad(): return self._forward(x, mem, mask)\n    def _forward(self, x, mem, mask):\n        mem = x if mem is None else mem\n        m = None if mask is None else mask[:, 0]\n        heads = [attention(q(x), k(mem), v(mem), m)[0] for q, k, v in zip(self.w_q, self.w_k, self.w_v)]\n        return self.w_o(torch.cat(heads, -1))\n    @torch.no_grad()\n    def load_from(self, mha):\n        for i in range(self.h):\n            rows = slice(i * self.d_k, (i + 1) * self.d_k)\n            for lin, W in zip((self.w_q[i], self.w_k[i], self.w_v[i]), (mha.w_q, mha.w_k, mha.w_v)):\n                lin.weight.copy_(W.weight[rows]); lin.bias.copy_(W.bias[rows])\n        self.w_o.load_state_dict(mha.w_o.state_dict())',
        'no gradient reaches w_q\\.0\\.weight, w_q\\.0\\.bias \\.\\.\\.: forward ran under torch\\.no_grad\\(\\)'),
    'the mask applied in self-attention only (the cross-attention unmasked)': ('LoopMHA', '\nclass LoopMHA(nn.Module):\n    def __init__(self, d_model, h):\n        super().__init__()\n        self.h, self.d_k = h, d_model // h\n        heads = lambda: nn.ModuleList(nn.Linear(d_model, self.d_k) for _ in range(h))\n        self.w_q, self.w_k, self.w_v = heads(), heads(), heads()\n        self.w_o = nn.Linear(h * self.d_k, d_model)\n    def forward(self, x, mem=None, mask=None):\n        mem = x if mem is None else mem\n        m = None if mask is None or mem is not x else mask[:, 0]\n        heads = [attention(q(x), k(mem), v(mem), m)[0] for q, k, v in zip(self.w_q, self.w_k, self.w_v)]\n        return self.w_o(torch.cat(heads, -1))\n    @torch.no_grad()\n    def load_from(self, mha):\n        for i in range(self.h):\n            rows = slice(i * self.d_k, (i + 1) * self.d_k)\n            for lin, W in zip((self.w_q[i], self.w_k[i], self.w_v[i]), (mha.w_q, mha.w_k, mha.w_v)):\n                lin.weight.copy_(W.weight[rows]); lin.bias.copy_(W.bias[rows])\n        self.w_o.load_state_dict(mha.w_o.state_dict())',
        'the mask is not applied in the encoder\\-decoder attention \\(mem given\\)'),
}

@pytest.mark.parametrize('label', list(_T26))
def test_the_twenty_sixth_sets_misses_are_named(label):
    import torch
    ex, src, says = _T26[label]
    ns = {}
    exec(_T26_PRELUDE, ns); exec(src, ns)
    calls = {'LoopMHA': 'check_loop_mha(LoopMHA)', 'heads': 'check_heads(split_heads, merge_heads)'}
    dtype, grad = torch.get_default_dtype(), torch.is_grad_enabled()
    try: _t26_rejects(lambda: eval(calls[ex], ns), says=says)
    finally: torch.set_default_dtype(dtype); torch.set_grad_enabled(grad)   # an answer that changes them must not change the next test

def test_right_answers_pass_with_grad_mode_off(capsys):
    "02 turns autograd off for its forward passes (torch.set_grad_enabled(False)): the checks' gradient cases turn it on for themselves."
    heads, loop = namespace(NB, 'b2d0a004'), loop_ns(EXERCISES)
    with torch.no_grad():
        assert heads['check_heads'](heads['split_heads'], heads['merge_heads']) is True
        assert loop['check_loop_mha'](loop['LoopMHA']) is True
    assert 'Not yet' not in capsys.readouterr().out


# ---------------------------------------------------------------- the twenty-eighth blind set's misses
from nbtools import assert_rejects as _t28_rejects

_T28_PRELUDE = 'import math, copy, random, torch, torch.nn as nn, torch.nn.functional as F\nfrom collections import Counter\nfrom transformer_nb.core import *\nfrom transformer_nb.attention import *\nfrom transformer_nb.multihead import MultiHeadAttention\nfrom transformer_nb.course.multihead import check_heads, check_loop_mha'   # the names the exercise's cell sees
_T28 = {   # label: (the exercise, the answer's code, what its message must say)
    'merge unpacks the input as (B, n, h, d): right only when h = n': ('heads', '\ndef split_heads(x, h):\n    B, n, hd = x.shape\n    return x.view(B, n, h, hd // h).transpose(1, 2)\n\ndef merge_heads(x):\n    B, n, h, d = x.shape\n    return x.transpose(1, 2).reshape(B, n, h * d)\n',
        "merge_heads read its input's axes as \\(B, n, h, d\\)"),
    "mask[:, :, 0]: the first query's row for every query (right for padding masks)": ('LoopMHA', '\nclass LoopMHA(nn.Module):\n    def __init__(self, d_model, h):\n        super().__init__()\n        self.h, self.d_k = h, d_model // h\n        heads = lambda: nn.ModuleList(nn.Linear(d_model, self.d_k) for _ in range(h))\n        self.w_q, self.w_k, self.w_v = heads(), heads(), heads()\n        self.w_o = nn.Linear(h * self.d_k, d_model)\n    def forward(self, x, mem=None, mask=None):\n        mem = x if mem is None else mem\n        m = None if mask is None else mask[:, :, 0]\n        heads = [attention(q(x), k(mem), v(mem), m)[0] for q, k, v in zip(self.w_q, self.w_k, self.w_v)]\n        return self.w_o(torch.cat(heads, -1))\n    @torch.no_grad()\n    def load_from(self, mha):\n        for i in range(self.h):\n            rows = slice(i * self.d_k, (i + 1) * self.d_k)\n            for lin, W in zip((self.w_q[i], self.w_k[i], self.w_v[i]), (mha.w_q, mha.w_k, mha.w_v)):\n                lin.weight.copy_(W.weight[rows]); lin.bias.copy_(W.bias[rows])\n        self.w_o.load_state_dict(mha.w_o.state_dict())',
        "every query got the mask's first row"),
    'a causal mask always applied (a decoder habit)': ('LoopMHA', '\nclass LoopMHA(nn.Module):\n    def __init__(self, d_model, h):\n        super().__init__()\n        self.h, self.d_k = h, d_model // h\n        heads = lambda: nn.ModuleList(nn.Linear(d_model, self.d_k) for _ in range(h))\n        self.w_q, self.w_k, self.w_v = heads(), heads(), heads()\n        self.w_o = nn.Linear(h * self.d_k, d_model)\n    def forward(self, x, mem=None, mask=None):\n        mem = x if mem is None else mem\n        c = torch.ones(x.shape[1], mem.shape[1], dtype=torch.bool).tril()\n        m = c if mask is None else mask[:, 0] & c\n        heads = [attention(q(x), k(mem), v(mem), m)[0] for q, k, v in zip(self.w_q, self.w_k, self.w_v)]\n        return self.w_o(torch.cat(heads, -1))\n    @torch.no_grad()\n    def load_from(self, mha):\n        for i in range(self.h):\n            rows = slice(i * self.d_k, (i + 1) * self.d_k)\n            for lin, W in zip((self.w_q[i], self.w_k[i], self.w_v[i]), (mha.w_q, mha.w_k, mha.w_v)):\n                lin.weight.copy_(W.weight[rows]); lin.bias.copy_(W.bias[rows])\n        self.w_o.load_state_dict(mha.w_o.state_dict())',
        'your heads apply a causal mask where none was given'),
    'attention dropout 0.1 on the weights (the module left in training mode)': ('LoopMHA', '\nclass LoopMHA(nn.Module):\n    def __init__(self, d_model, h):\n        super().__init__()\n        self.h, self.d_k = h, d_model // h\n        heads = lambda: nn.ModuleList(nn.Linear(d_model, self.d_k) for _ in range(h))\n        self.w_q, self.w_k, self.w_v = heads(), heads(), heads()\n        self.w_o = nn.Linear(h * self.d_k, d_model); self.drop = nn.Dropout(0.1)\n    def forward(self, x, mem=None, mask=None):\n        mem = x if mem is None else mem\n        m = None if mask is None else mask[:, 0]\n        heads = [attention(q(x), k(mem), v(mem), m, dropout=self.drop)[0] for q, k, v in zip(self.w_q, self.w_k, self.w_v)]\n        return self.w_o(torch.cat(heads, -1))\n    @torch.no_grad()\n    def load_from(self, mha):\n        for i in range(self.h):\n            rows = slice(i * self.d_k, (i + 1) * self.d_k)\n            for lin, W in zip((self.w_q[i], self.w_k[i], self.w_v[i]), (mha.w_q, mha.w_k, mha.w_v)):\n                lin.weight.copy_(W.weight[rows]); lin.bias.copy_(W.bias[rows])\n        self.w_o.load_state_dict(mha.w_o.state_dict())',
        'in training mode: two calls on the same x gave different outputs'),
}

@pytest.mark.parametrize('label', list(_T28))
def test_the_twenty_eighth_sets_misses_are_named(label):
    import torch
    ex, src, says = _T28[label]
    ns = {}
    exec(_T28_PRELUDE, ns); exec(src, ns)
    calls = {'LoopMHA': 'check_loop_mha(LoopMHA)', 'heads': 'check_heads(split_heads, merge_heads)'}
    dtype, grad = torch.get_default_dtype(), torch.is_grad_enabled()
    try: _t28_rejects(lambda: eval(calls[ex], ns), says=says)
    finally: torch.set_default_dtype(dtype); torch.set_grad_enabled(grad)   # an answer that changes them must not change the next test

# ---------------------------------------------------------------- the thirty-second blind set's misses, and another learner's variant of each
from nbtools import assert_rejects as _t32_rejects

_T32_PRELUDE = 'import math, copy, random, torch, torch.nn as nn, torch.nn.functional as F\nfrom collections import Counter\nfrom transformer_nb.core import *\nfrom transformer_nb.attention import *\nfrom transformer_nb.multihead import MultiHeadAttention\nfrom transformer_nb.course.multihead import check_heads, check_loop_mha'   # the names the exercise's cell sees
_T32 = {   # label: (the exercise, the answer's code, what its message must say)
    'forward(x, mask, mem)': ('LoopMHA', '\nclass LoopMHA(nn.Module):\n    def __init__(self, d_model, h):\n        super().__init__()\n        self.h, self.d_k = h, d_model // h\n        heads = lambda: nn.ModuleList(nn.Linear(d_model, self.d_k) for _ in range(h))\n        self.w_q, self.w_k, self.w_v = heads(), heads(), heads()\n        self.w_o = nn.Linear(h * self.d_k, d_model)\n    def forward(self, x, mask=None, mem=None):\n        mem = x if mem is None else mem\n        m = None if mask is None else mask[:, 0]\n        heads = [attention(q(x), k(mem), v(mem), m)[0] for q, k, v in zip(self.w_q, self.w_k, self.w_v)]\n        return self.w_o(torch.cat(heads, -1))\n    @torch.no_grad()\n    def load_from(self, mha):\n        for i in range(self.h):\n            rows = slice(i * self.d_k, (i + 1) * self.d_k)\n            for lin, W in zip((self.w_q[i], self.w_k[i], self.w_v[i]), (mha.w_q, mha.w_k, mha.w_v)):\n                lin.weight.copy_(W.weight[rows]); lin.bias.copy_(W.bias[rows])\n        self.w_o.load_state_dict(mha.w_o.state_dict())',
        'your\\ forward\\ takes\\ \\(x,\\ mask,\\ mem\\),\\ the\\ mask\\ second'),
    'variant: forward(x, attn_mask, memory)': ('LoopMHA', '\nclass LoopMHA(nn.Module):\n    def __init__(self, d_model, h):\n        super().__init__()\n        self.h, self.d_k = h, d_model // h\n        heads = lambda: nn.ModuleList(nn.Linear(d_model, self.d_k) for _ in range(h))\n        self.w_q, self.w_k, self.w_v = heads(), heads(), heads()\n        self.w_o = nn.Linear(h * self.d_k, d_model)\n    def forward(self, x, attn_mask=None, memory=None):\n        mem = x if memory is None else memory\n        m = None if attn_mask is None else attn_mask[:, 0]\n        heads = [attention(q(x), k(mem), v(mem), m)[0] for q, k, v in zip(self.w_q, self.w_k, self.w_v)]\n        return self.w_o(torch.cat(heads, -1))\n    @torch.no_grad()\n    def load_from(self, mha):\n        for i in range(self.h):\n            rows = slice(i * self.d_k, (i + 1) * self.d_k)\n            for lin, W in zip((self.w_q[i], self.w_k[i], self.w_v[i]), (mha.w_q, mha.w_k, mha.w_v)):\n                lin.weight.copy_(W.weight[rows]); lin.bias.copy_(W.bias[rows])\n        self.w_o.load_state_dict(mha.w_o.state_dict())',
        'your\\ forward\\ takes\\ \\(x,\\ attn_mask,\\ memory\\),\\ the\\ mask\\ second'),
}

@pytest.mark.parametrize('label', list(_T32))
def test_the_thirty_second_sets_misses_are_named(label):
    import torch
    ex, src, says = _T32[label]
    ns = {}
    exec(_T32_PRELUDE, ns); exec(src, ns)
    calls = {'heads': 'check_heads(split_heads, merge_heads)', 'LoopMHA': 'check_loop_mha(LoopMHA)'}
    dtype, grad = torch.get_default_dtype(), torch.is_grad_enabled()
    try: _t32_rejects(lambda: eval(calls[ex], ns), says=says)
    finally: torch.set_default_dtype(dtype); torch.set_grad_enabled(grad)   # an answer that changes them must not change the next test

# ---------------------------------------------------------------- the thirty-sixth blind set's misses, and another learner's variant of each
from nbtools import assert_rejects as _t36_rejects

_T36_PRELUDE = _T32_PRELUDE   # the names the exercise's cell sees
_T36 = {   # label: (the exercise, the answer's code, what its message must say)
    'split with the head size hd / h, a float: view refuses it': ('heads', '\ndef split_heads(x, h):\n    B, n, hd = x.shape\n    return x.view(B, n, h, hd / h).transpose(1, 2)\n\ndef merge_heads(x):\n    B, h, n, d = x.shape\n    return x.transpose(1, 2).reshape(B, n, h * d)\n',
        'a\\ size\\ is\\ a\\ float,\\ as\\ hd\\ /\\ h\\ is\\ \\(true\\ division\\)'),
    'variant: reshape with x.shape[-1] / h': ('heads', '\ndef split_heads(x, h):\n    return x.reshape(x.shape[0], x.shape[1], h, x.shape[-1] / h).transpose(1, 2)\ndef merge_heads(x):\n    B, h, n, d = x.shape\n    return x.transpose(1, 2).reshape(B, n, h * d)\n',
        'a\\ size\\ is\\ a\\ float,\\ as\\ hd\\ /\\ h\\ is\\ \\(true\\ division\\)'),
    'merge loops to h - 1 (a C-style bound): the last head left out': ('heads', '\ndef split_heads(x, h):\n    B, n, hd = x.shape\n    return x.view(B, n, h, hd // h).transpose(1, 2)\n\ndef merge_heads(x):\n    return torch.cat([x[:, i] for i in range(x.shape[1] - 1)], dim=-1)\n',
        'that\\ is\\ the\\ first\\ 2\\ of\\ the\\ 3\\ heads\\ side\\ by\\ side,\\ the\\ last\\ one\\ left\\ out'),
    'variant: the heads unbound, the last dropped': ('heads', '\ndef split_heads(x, h):\n    B, n, hd = x.shape\n    return x.view(B, n, h, hd // h).transpose(1, 2)\n\ndef merge_heads(x):\n    return torch.cat(x.unbind(1)[:-1], dim=-1)',
        'that\\ is\\ the\\ first\\ 2\\ of\\ the\\ 3\\ heads\\ side\\ by\\ side'),
    'split slices i*d : (i+1)*d - 1 (the inclusive end read as a stop): each head one feature short': ('heads', '\ndef split_heads(x, h):\n    d = x.shape[-1] // h\n    return torch.stack([x[..., i * d:(i + 1) * d - 1] for i in range(h)], dim=1)\n\ndef merge_heads(x):\n    B, h, n, d = x.shape\n    return x.transpose(1, 2).reshape(B, n, h * d)\n',
        'each\\ head\\ is\\ one\\ feature\\ short'),
    'variant: unfold with windows of d - 1': ('heads', '\ndef split_heads(x, h):\n    d = x.shape[-1] // h\n    return x.unfold(-1, d - 1, d).transpose(1, 2)\ndef merge_heads(x):\n    B, h, n, d = x.shape\n    return x.transpose(1, 2).reshape(B, n, h * d)\n',
        'each\\ head\\ is\\ one\\ feature\\ short'),
    'merge casts to float32 (.float())': ('heads', '\ndef split_heads(x, h):\n    B, n, hd = x.shape\n    return x.view(B, n, h, hd // h).transpose(1, 2)\n\ndef merge_heads(x):\n    B, h, n, d = x.shape\n    return x.transpose(1, 2).reshape(B, n, h * d).float()\n',
        'merge_heads\\ of\\ torch\\.float64\\ heads\\ gave\\ torch\\.float32'),
    'variant: split casts to float32 (.to(torch.float32))': ('heads', '\ndef split_heads(x, h):\n    B, n, hd = x.shape\n    return x.view(B, n, h, hd // h).transpose(1, 2).to(torch.float32)\ndef merge_heads(x):\n    B, h, n, d = x.shape\n    return x.transpose(1, 2).reshape(B, n, h * d)\n',
        "gave\\ torch\\.float32:\\ keep\\ the\\ input's\\ dtype"),
    "split pre-scales the heads by d ** -0.5 (fairseq's query scaling)": ('heads', '\ndef split_heads(x, h):\n    B, n, hd = x.shape\n    d = hd // h\n    return x.view(B, n, h, d).transpose(1, 2) * d ** -0.5     # the 1/sqrt(d_k), done once here\n\ndef merge_heads(x):\n    B, h, n, d = x.shape\n    return x.transpose(1, 2).reshape(B, n, h * d)\n',
        "every\\ head\\ holds\\ x's\\ features\\ times\\ 0\\.5\\ =\\ 1/sqrt\\(d_k\\)"),
    'variant: split divides by sqrt(d)': ('heads', '\ndef split_heads(x, h):\n    d = x.shape[-1] // h\n    return x.view(*x.shape[:2], h, d).transpose(1, 2) / math.sqrt(d)\ndef merge_heads(x):\n    B, h, n, d = x.shape\n    return x.transpose(1, 2).reshape(B, n, h * d)\n',
        "every\\ head\\ holds\\ x's\\ features\\ times\\ 0\\.5\\ =\\ 1/sqrt\\(d_k\\)"),
    "merge transposes the caller's tensor in place (transpose_)": ('heads', '\ndef split_heads(x, h):\n    B, n, hd = x.shape\n    return x.view(B, n, h, hd // h).transpose(1, 2)\n\ndef merge_heads(x):\n    B, h, n, d = x.shape\n    return x.transpose_(1, 2).reshape(B, n, h * d)\n',
        'merge_heads\\ changed\\ its\\ input\\ in\\ place'),
    'variant: transpose_ on its own line': ('heads', '\ndef split_heads(x, h):\n    B, n, hd = x.shape\n    return x.view(B, n, h, hd // h).transpose(1, 2)\n\ndef merge_heads(x):\n    B, h, n, d = x.shape\n    x.transpose_(1, 2)\n    return x.reshape(B, n, h * d)',
        'merge_heads\\ changed\\ its\\ input\\ in\\ place'),
    'merge ends with .squeeze(): a batch of one or a single position loses its axis': ('heads', '\ndef split_heads(x, h):\n    B, n, hd = x.shape\n    return x.view(B, n, h, hd // h).transpose(1, 2)\n\ndef merge_heads(x):\n    B, h, n, d = x.shape\n    return x.transpose(1, 2).reshape(B, n, h * d).squeeze()\n',
        'one\\ sentence\\ of\\ one\\ position,\\ B\\ =\\ n\\ =\\ 1:\\ merge_heads\\ gave\\ \\(12,\\)'),
    'variant: split ends with .squeeze(0)': ('heads', '\ndef split_heads(x, h):\n    B, n, hd = x.shape\n    return x.view(B, n, h, hd // h).transpose(1, 2).squeeze(0)\ndef merge_heads(x):\n    B, h, n, d = x.shape\n    return x.transpose(1, 2).reshape(B, n, h * d)\n',
        'one\\ sentence\\ of\\ one\\ position,\\ B\\ =\\ n\\ =\\ 1:\\ split_heads\\ gave\\ \\(3,\\ 1,\\ 4\\)'),
    'load_from a classmethod that builds and returns a new LoopMHA, leaving self as it was': ('LoopMHA', '\nclass LoopMHA(nn.Module):\n    def __init__(self, d_model, h):\n        super().__init__()\n        self.h, self.d_k = h, d_model // h\n        heads = lambda: nn.ModuleList(nn.Linear(d_model, self.d_k) for _ in range(h))\n        self.w_q, self.w_k, self.w_v = heads(), heads(), heads()\n        self.w_o = nn.Linear(h * self.d_k, d_model)\n\n    def forward(self, x, mem=None, mask=None):\n        mem = x if mem is None else mem\n        m = None if mask is None else mask[:, 0]\n        heads = [attention(wq(x), wk(mem), wv(mem), m)[0] for wq, wk, wv in zip(self.w_q, self.w_k, self.w_v)]\n        return self.w_o(torch.cat(heads, -1))\n\n    @classmethod\n    def load_from(cls, mha):\n        m = cls(mha.d_model, mha.h)        # from_pretrained-style: a new module\n        with torch.no_grad():\n            for i in range(m.h):\n                rows = slice(i * m.d_k, (i + 1) * m.d_k)\n                for lin, W in zip((m.w_q[i], m.w_k[i], m.w_v[i]), (mha.w_q, mha.w_k, mha.w_v)):\n                    lin.weight.copy_(W.weight[rows]); lin.bias.copy_(W.bias[rows])\n            m.w_o.load_state_dict(mha.w_o.state_dict())\n        return m\n',
        'load_from\\ returned\\ a\\ new\\ LoopMHA\\ and\\ left\\ the\\ module\\ it\\ was\\ called\\ on\\ as\\ it\\ was'),
    'variant: load_from fills a deep copy and returns it': ('LoopMHA', '\nclass LoopMHA(nn.Module):\n    def __init__(self, d_model, h):\n        super().__init__()\n        self.h, self.d_k = h, d_model // h\n        heads = lambda: nn.ModuleList(nn.Linear(d_model, self.d_k) for _ in range(h))\n        self.w_q, self.w_k, self.w_v = heads(), heads(), heads()\n        self.w_o = nn.Linear(h * self.d_k, d_model)\n\n    def forward(self, x, mem=None, mask=None):\n        mem = x if mem is None else mem\n        m = None if mask is None else mask[:, 0]\n        heads = [attention(wq(x), wk(mem), wv(mem), m)[0] for wq, wk, wv in zip(self.w_q, self.w_k, self.w_v)]\n        return self.w_o(torch.cat(heads, -1))\n\n    def load_from(self, mha):\n        new = copy.deepcopy(self)\n        with torch.no_grad():\n            for i in range(new.h):\n                rows = slice(i * new.d_k, (i + 1) * new.d_k)\n                for lin, W in zip((new.w_q[i], new.w_k[i], new.w_v[i]), (mha.w_q, mha.w_k, mha.w_v)):\n                    lin.weight.copy_(W.weight[rows]); lin.bias.copy_(W.bias[rows])\n            new.w_o.load_state_dict(mha.w_o.state_dict())\n        return new',
        'load_from\\ returned\\ a\\ new\\ LoopMHA\\ and\\ left\\ the\\ module\\ it\\ was\\ called\\ on\\ as\\ it\\ was'),
    'a ReLU after W^O (every layer given an activation)': ('LoopMHA', '\nclass LoopMHA(nn.Module):\n    def __init__(self, d_model, h):\n        super().__init__()\n        self.h, self.d_k = h, d_model // h\n        heads = lambda: nn.ModuleList(nn.Linear(d_model, self.d_k) for _ in range(h))\n        self.w_q, self.w_k, self.w_v = heads(), heads(), heads()\n        self.w_o = nn.Linear(h * self.d_k, d_model)\n\n    def forward(self, x, mem=None, mask=None):\n        mem = x if mem is None else mem\n        m = None if mask is None else mask[:, 0]\n        heads = [attention(wq(x), wk(mem), wv(mem), m)[0] for wq, wk, wv in zip(self.w_q, self.w_k, self.w_v)]\n        return F.relu(self.w_o(torch.cat(heads, -1)))\n\n    @torch.no_grad()\n    def load_from(self, mha):\n        for i in range(self.h):\n            rows = slice(i * self.d_k, (i + 1) * self.d_k)\n            for lin, W in zip((self.w_q[i], self.w_k[i], self.w_v[i]), (mha.w_q, mha.w_k, mha.w_v)):\n                lin.weight.copy_(W.weight[rows]); lin.bias.copy_(W.bias[rows])\n        self.w_o.load_state_dict(mha.w_o.state_dict())\n',
        'your\\ output\\ is\\ MultiHead\\(\\.\\.\\.\\)\\ passed\\ through\\ a\\ ReLU'),
    'variant: the output clamped at 0': ('LoopMHA', '\nclass LoopMHA(nn.Module):\n    def __init__(self, d_model, h):\n        super().__init__()\n        self.h, self.d_k = h, d_model // h\n        heads = lambda: nn.ModuleList(nn.Linear(d_model, self.d_k) for _ in range(h))\n        self.w_q, self.w_k, self.w_v = heads(), heads(), heads()\n        self.w_o = nn.Linear(h * self.d_k, d_model)\n\n    def forward(self, x, mem=None, mask=None):\n        mem = x if mem is None else mem\n        m = None if mask is None else mask[:, 0]\n        return self.w_o(torch.cat([attention(a(x), b(mem), c(mem), m)[0] for a, b, c in zip(self.w_q, self.w_k, self.w_v)], -1)).clamp(min=0)\n\n    @torch.no_grad()\n    def load_from(self, mha):\n        for i in range(self.h):\n            rows = slice(i * self.d_k, (i + 1) * self.d_k)\n            for lin, W in zip((self.w_q[i], self.w_k[i], self.w_v[i]), (mha.w_q, mha.w_k, mha.w_v)):\n                lin.weight.copy_(W.weight[rows]); lin.bias.copy_(W.bias[rows])\n        self.w_o.load_state_dict(mha.w_o.state_dict())\n',
        'your\\ output\\ is\\ MultiHead\\(\\.\\.\\.\\)\\ passed\\ through\\ a\\ ReLU'),
    "the residual added inside the layer (x + W^O(...)), the sub-layer's Add taken in": ('LoopMHA', '\nclass LoopMHA(nn.Module):\n    def __init__(self, d_model, h):\n        super().__init__()\n        self.h, self.d_k = h, d_model // h\n        heads = lambda: nn.ModuleList(nn.Linear(d_model, self.d_k) for _ in range(h))\n        self.w_q, self.w_k, self.w_v = heads(), heads(), heads()\n        self.w_o = nn.Linear(h * self.d_k, d_model)\n\n    def forward(self, x, mem=None, mask=None):\n        mem = x if mem is None else mem\n        m = None if mask is None else mask[:, 0]\n        heads = [attention(wq(x), wk(mem), wv(mem), m)[0] for wq, wk, wv in zip(self.w_q, self.w_k, self.w_v)]\n        return x + self.w_o(torch.cat(heads, -1))\n\n    @torch.no_grad()\n    def load_from(self, mha):\n        for i in range(self.h):\n            rows = slice(i * self.d_k, (i + 1) * self.d_k)\n            for lin, W in zip((self.w_q[i], self.w_k[i], self.w_v[i]), (mha.w_q, mha.w_k, mha.w_v)):\n                lin.weight.copy_(W.weight[rows]); lin.bias.copy_(W.bias[rows])\n        self.w_o.load_state_dict(mha.w_o.state_dict())\n',
        'your\\ output\\ is\\ x\\ \\+\\ MultiHead\\(x,\\ \\.\\.\\.\\)'),
    'variant: W^O(...) + x': ('LoopMHA', '\nclass LoopMHA(nn.Module):\n    def __init__(self, d_model, h):\n        super().__init__()\n        self.h, self.d_k = h, d_model // h\n        heads = lambda: nn.ModuleList(nn.Linear(d_model, self.d_k) for _ in range(h))\n        self.w_q, self.w_k, self.w_v = heads(), heads(), heads()\n        self.w_o = nn.Linear(h * self.d_k, d_model)\n\n    def forward(self, x, mem=None, mask=None):\n        mem = x if mem is None else mem\n        m = None if mask is None else mask[:, 0]\n        return self.w_o(torch.cat([attention(a(x), b(mem), c(mem), m)[0] for a, b, c in zip(self.w_q, self.w_k, self.w_v)], -1)) + x\n\n    @torch.no_grad()\n    def load_from(self, mha):\n        for i in range(self.h):\n            rows = slice(i * self.d_k, (i + 1) * self.d_k)\n            for lin, W in zip((self.w_q[i], self.w_k[i], self.w_v[i]), (mha.w_q, mha.w_k, mha.w_v)):\n                lin.weight.copy_(W.weight[rows]); lin.bias.copy_(W.bias[rows])\n        self.w_o.load_state_dict(mha.w_o.state_dict())\n',
        'your\\ output\\ is\\ x\\ \\+\\ MultiHead\\(x,\\ \\.\\.\\.\\)'),
    "a LayerNorm after W^O (the sub-layer's Norm taken into the layer)": ('LoopMHA', '\nclass LoopMHA(nn.Module):\n    def __init__(self, d_model, h):\n        super().__init__()\n        self.h, self.d_k = h, d_model // h\n        heads = lambda: nn.ModuleList(nn.Linear(d_model, self.d_k) for _ in range(h))\n        self.w_q, self.w_k, self.w_v = heads(), heads(), heads()\n        self.w_o = nn.Linear(h * self.d_k, d_model)\n        self.norm = nn.LayerNorm(d_model)\n\n    def forward(self, x, mem=None, mask=None):\n        mem = x if mem is None else mem\n        m = None if mask is None else mask[:, 0]\n        heads = [attention(wq(x), wk(mem), wv(mem), m)[0] for wq, wk, wv in zip(self.w_q, self.w_k, self.w_v)]\n        return self.norm(self.w_o(torch.cat(heads, -1)))\n\n    @torch.no_grad()\n    def load_from(self, mha):\n        for i in range(self.h):\n            rows = slice(i * self.d_k, (i + 1) * self.d_k)\n            for lin, W in zip((self.w_q[i], self.w_k[i], self.w_v[i]), (mha.w_q, mha.w_k, mha.w_v)):\n                lin.weight.copy_(W.weight[rows]); lin.bias.copy_(W.bias[rows])\n        self.w_o.load_state_dict(mha.w_o.state_dict())\n',
        'yours\\ holds\\ norm\\ \\(LayerNorm\\)\\ besides\\ them'),
    'variant: F.layer_norm, no parameters': ('LoopMHA', '\nclass LoopMHA(nn.Module):\n    def __init__(self, d_model, h):\n        super().__init__()\n        self.h, self.d_k = h, d_model // h\n        heads = lambda: nn.ModuleList(nn.Linear(d_model, self.d_k) for _ in range(h))\n        self.w_q, self.w_k, self.w_v = heads(), heads(), heads()\n        self.w_o = nn.Linear(h * self.d_k, d_model)\n\n    def forward(self, x, mem=None, mask=None):\n        mem = x if mem is None else mem\n        m = None if mask is None else mask[:, 0]\n        y = self.w_o(torch.cat([attention(a(x), b(mem), c(mem), m)[0] for a, b, c in zip(self.w_q, self.w_k, self.w_v)], -1))\n        return F.layer_norm(y, y.shape[-1:])\n\n    @torch.no_grad()\n    def load_from(self, mha):\n        for i in range(self.h):\n            rows = slice(i * self.d_k, (i + 1) * self.d_k)\n            for lin, W in zip((self.w_q[i], self.w_k[i], self.w_v[i]), (mha.w_q, mha.w_k, mha.w_v)):\n                lin.weight.copy_(W.weight[rows]); lin.bias.copy_(W.bias[rows])\n        self.w_o.load_state_dict(mha.w_o.state_dict())\n',
        'your\\ output\\ is\\ MultiHead\\(\\.\\.\\.\\)\\ layer\\-normalised'),
    "the memory's keys and values cached on the first call (a decoding cache never reset)": ('LoopMHA', "\nclass LoopMHA(nn.Module):\n    def __init__(self, d_model, h):\n        super().__init__()\n        self.h, self.d_k = h, d_model // h\n        heads = lambda: nn.ModuleList(nn.Linear(d_model, self.d_k) for _ in range(h))\n        self.w_q, self.w_k, self.w_v = heads(), heads(), heads()\n        self.w_o = nn.Linear(h * self.d_k, d_model)\n\n    def forward(self, x, mem=None, mask=None):\n        m = None if mask is None else mask[:, 0]\n        if mem is None: kv = [(wk(x), wv(x)) for wk, wv in zip(self.w_k, self.w_v)]\n        else:\n            if getattr(self, '_kv', None) is None:      # cross-attention: the memory is fixed, project it once\n                self._kv = [(wk(mem), wv(mem)) for wk, wv in zip(self.w_k, self.w_v)]\n            kv = self._kv\n        heads = [attention(wq(x), k, v, m)[0] for wq, (k, v) in zip(self.w_q, kv)]\n        return self.w_o(torch.cat(heads, -1))\n\n    @torch.no_grad()\n    def load_from(self, mha):\n        for i in range(self.h):\n            rows = slice(i * self.d_k, (i + 1) * self.d_k)\n            for lin, W in zip((self.w_q[i], self.w_k[i], self.w_v[i]), (mha.w_q, mha.w_k, mha.w_v)):\n                lin.weight.copy_(W.weight[rows]); lin.bias.copy_(W.bias[rows])\n        self.w_o.load_state_dict(mha.w_o.state_dict())\n",
        "with\\ another\\ memory,\\ your\\ output\\ is\\ the\\ attention\\ to\\ the\\ earlier\\ call's"),
    'variant: the keys and values cached by the batch size': ('LoopMHA', "\nclass LoopMHA(nn.Module):\n    def __init__(self, d_model, h):\n        super().__init__()\n        self.h, self.d_k = h, d_model // h\n        heads = lambda: nn.ModuleList(nn.Linear(d_model, self.d_k) for _ in range(h))\n        self.w_q, self.w_k, self.w_v = heads(), heads(), heads()\n        self.w_o = nn.Linear(h * self.d_k, d_model)\n\n    def forward(self, x, mem=None, mask=None):\n        m = None if mask is None else mask[:, 0]\n        src = x if mem is None else mem\n        if mem is None: kv = [(b(src), c(src)) for b, c in zip(self.w_k, self.w_v)]\n        else:\n            self.__dict__.setdefault('_kv', {})\n            kv = self._kv.setdefault(mem.shape[0], [(b(src), c(src)) for b, c in zip(self.w_k, self.w_v)])\n        return self.w_o(torch.cat([attention(a(x), k, v, m)[0] for a, (k, v) in zip(self.w_q, kv)], -1))\n\n    @torch.no_grad()\n    def load_from(self, mha):\n        for i in range(self.h):\n            rows = slice(i * self.d_k, (i + 1) * self.d_k)\n            for lin, W in zip((self.w_q[i], self.w_k[i], self.w_v[i]), (mha.w_q, mha.w_k, mha.w_v)):\n                lin.weight.copy_(W.weight[rows]); lin.bias.copy_(W.bias[rows])\n        self.w_o.load_state_dict(mha.w_o.state_dict())\n",
        "with\\ another\\ memory,\\ your\\ output\\ is\\ the\\ attention\\ to\\ the\\ earlier\\ call's"),
    "forward(query, key, value, mask), the Annotated Transformer's signature": ('LoopMHA', '\nclass LoopMHA(nn.Module):\n    def __init__(self, d_model, h):\n        super().__init__()\n        self.h, self.d_k = h, d_model // h\n        heads = lambda: nn.ModuleList(nn.Linear(d_model, self.d_k) for _ in range(h))\n        self.w_q, self.w_k, self.w_v = heads(), heads(), heads()\n        self.w_o = nn.Linear(h * self.d_k, d_model)\n\n    def forward(self, query, key, value, mask=None):\n        m = None if mask is None else mask[:, 0]\n        heads = [attention(wq(query), wk(key), wv(value), m)[0] for wq, wk, wv in zip(self.w_q, self.w_k, self.w_v)]\n        return self.w_o(torch.cat(heads, -1))\n\n    @torch.no_grad()\n    def load_from(self, mha):\n        for i in range(self.h):\n            rows = slice(i * self.d_k, (i + 1) * self.d_k)\n            for lin, W in zip((self.w_q[i], self.w_k[i], self.w_v[i]), (mha.w_q, mha.w_k, mha.w_v)):\n                lin.weight.copy_(W.weight[rows]); lin.bias.copy_(W.bias[rows])\n        self.w_o.load_state_dict(mha.w_o.state_dict())\n',
        'your\\ forward\\ requires\\ \\(query,\\ key,\\ value\\)'),
    'variant: forward(x, mem, mask=None), mem required': ('LoopMHA', '\nclass LoopMHA(nn.Module):\n    def __init__(self, d_model, h):\n        super().__init__()\n        self.h, self.d_k = h, d_model // h\n        heads = lambda: nn.ModuleList(nn.Linear(d_model, self.d_k) for _ in range(h))\n        self.w_q, self.w_k, self.w_v = heads(), heads(), heads()\n        self.w_o = nn.Linear(h * self.d_k, d_model)\n\n    def forward(self, x, mem, mask=None):\n        m = None if mask is None else mask[:, 0]\n        return self.w_o(torch.cat([attention(a(x), b(mem), c(mem), m)[0] for a, b, c in zip(self.w_q, self.w_k, self.w_v)], -1))\n\n    @torch.no_grad()\n    def load_from(self, mha):\n        for i in range(self.h):\n            rows = slice(i * self.d_k, (i + 1) * self.d_k)\n            for lin, W in zip((self.w_q[i], self.w_k[i], self.w_v[i]), (mha.w_q, mha.w_k, mha.w_v)):\n                lin.weight.copy_(W.weight[rows]); lin.bias.copy_(W.bias[rows])\n        self.w_o.load_state_dict(mha.w_o.state_dict())\n',
        'your\\ forward\\ requires\\ \\(x,\\ mem\\)'),
    'super().__init__() called after the layers are assigned': ('LoopMHA', '\nclass LoopMHA(nn.Module):\n    def __init__(self, d_model, h):\n        self.h, self.d_k = h, d_model // h\n        heads = lambda: nn.ModuleList(nn.Linear(d_model, self.d_k) for _ in range(h))\n        self.w_q, self.w_k, self.w_v = heads(), heads(), heads()\n        self.w_o = nn.Linear(h * self.d_k, d_model)\n        super().__init__()\n\n    def forward(self, x, mem=None, mask=None):\n        mem = x if mem is None else mem\n        m = None if mask is None else mask[:, 0]\n        heads = [attention(wq(x), wk(mem), wv(mem), m)[0] for wq, wk, wv in zip(self.w_q, self.w_k, self.w_v)]\n        return self.w_o(torch.cat(heads, -1))\n\n    @torch.no_grad()\n    def load_from(self, mha):\n        for i in range(self.h):\n            rows = slice(i * self.d_k, (i + 1) * self.d_k)\n            for lin, W in zip((self.w_q[i], self.w_k[i], self.w_v[i]), (mha.w_q, mha.w_k, mha.w_v)):\n                lin.weight.copy_(W.weight[rows]); lin.bias.copy_(W.bias[rows])\n        self.w_o.load_state_dict(mha.w_o.state_dict())\n',
        "nn\\.Module's\\ own\\ set\\-up,\\ super\\(\\)\\.__init__\\(\\),\\ must\\ run\\ first\\ in\\ __init__"),
    'variant: nn.Module.__init__(self) last': ('LoopMHA', '\nclass LoopMHA(nn.Module):\n    def __init__(self, d_model, h):\n        self.h, self.d_k = h, d_model // h\n        self.w_o = nn.Linear(h * self.d_k, d_model)\n        nn.Module.__init__(self)\n\n    def forward(self, x, mem=None, mask=None):\n        mem = x if mem is None else mem\n        m = None if mask is None else mask[:, 0]\n        heads = [attention(wq(x), wk(mem), wv(mem), m)[0] for wq, wk, wv in zip(self.w_q, self.w_k, self.w_v)]\n        return self.w_o(torch.cat(heads, -1))\n\n    @torch.no_grad()\n    def load_from(self, mha):\n        for i in range(self.h):\n            rows = slice(i * self.d_k, (i + 1) * self.d_k)\n            for lin, W in zip((self.w_q[i], self.w_k[i], self.w_v[i]), (mha.w_q, mha.w_k, mha.w_v)):\n                lin.weight.copy_(W.weight[rows]); lin.bias.copy_(W.bias[rows])\n        self.w_o.load_state_dict(mha.w_o.state_dict())\n',
        "nn\\.Module's\\ own\\ set\\-up,\\ super\\(\\)\\.__init__\\(\\),\\ must\\ run\\ first\\ in\\ __init__"),
    'mask=None not handled: mask[:, 0] on None': ('LoopMHA', '\nclass LoopMHA(nn.Module):\n    def __init__(self, d_model, h):\n        super().__init__()\n        self.h, self.d_k = h, d_model // h\n        heads = lambda: nn.ModuleList(nn.Linear(d_model, self.d_k) for _ in range(h))\n        self.w_q, self.w_k, self.w_v = heads(), heads(), heads()\n        self.w_o = nn.Linear(h * self.d_k, d_model)\n\n    def forward(self, x, mem=None, mask=None):\n        mem = x if mem is None else mem\n        m = mask[:, 0]\n        heads = [attention(wq(x), wk(mem), wv(mem), m)[0] for wq, wk, wv in zip(self.w_q, self.w_k, self.w_v)]\n        return self.w_o(torch.cat(heads, -1))\n\n    @torch.no_grad()\n    def load_from(self, mha):\n        for i in range(self.h):\n            rows = slice(i * self.d_k, (i + 1) * self.d_k)\n            for lin, W in zip((self.w_q[i], self.w_k[i], self.w_v[i]), (mha.w_q, mha.w_k, mha.w_v)):\n                lin.weight.copy_(W.weight[rows]); lin.bias.copy_(W.bias[rows])\n        self.w_o.load_state_dict(mha.w_o.state_dict())\n',
        'with\\ no\\ mask\\ \\(mask=None\\)\\ your\\ forward\\ raised\\ TypeError'),
    'variant: mask.squeeze(1) on None': ('LoopMHA', '\nclass LoopMHA(nn.Module):\n    def __init__(self, d_model, h):\n        super().__init__()\n        self.h, self.d_k = h, d_model // h\n        heads = lambda: nn.ModuleList(nn.Linear(d_model, self.d_k) for _ in range(h))\n        self.w_q, self.w_k, self.w_v = heads(), heads(), heads()\n        self.w_o = nn.Linear(h * self.d_k, d_model)\n\n    def forward(self, x, mem=None, mask=None):\n        mem = x if mem is None else mem\n        m = mask.squeeze(1)\n        return self.w_o(torch.cat([attention(a(x), b(mem), c(mem), m)[0] for a, b, c in zip(self.w_q, self.w_k, self.w_v)], -1))\n\n    @torch.no_grad()\n    def load_from(self, mha):\n        for i in range(self.h):\n            rows = slice(i * self.d_k, (i + 1) * self.d_k)\n            for lin, W in zip((self.w_q[i], self.w_k[i], self.w_v[i]), (mha.w_q, mha.w_k, mha.w_v)):\n                lin.weight.copy_(W.weight[rows]); lin.bias.copy_(W.bias[rows])\n        self.w_o.load_state_dict(mha.w_o.state_dict())\n',
        'with\\ no\\ mask\\ \\(mask=None\\)\\ your\\ forward\\ raised\\ AttributeError'),
    'heads.append outside the loop (its indent lost): only the last head kept': ('LoopMHA', '\nclass LoopMHA(nn.Module):\n    def __init__(self, d_model, h):\n        super().__init__()\n        self.h, self.d_k = h, d_model // h\n        heads = lambda: nn.ModuleList(nn.Linear(d_model, self.d_k) for _ in range(h))\n        self.w_q, self.w_k, self.w_v = heads(), heads(), heads()\n        self.w_o = nn.Linear(h * self.d_k, d_model)\n\n    def forward(self, x, mem=None, mask=None):\n        mem = x if mem is None else mem\n        m = None if mask is None else mask[:, 0]\n        heads = []\n        for i in range(self.h):\n            head = attention(self.w_q[i](x), self.w_k[i](mem), self.w_v[i](mem), m)[0]\n        heads.append(head)\n        return self.w_o(torch.cat(heads, -1))\n\n    @torch.no_grad()\n    def load_from(self, mha):\n        for i in range(self.h):\n            rows = slice(i * self.d_k, (i + 1) * self.d_k)\n            for lin, W in zip((self.w_q[i], self.w_k[i], self.w_v[i]), (mha.w_q, mha.w_k, mha.w_v)):\n                lin.weight.copy_(W.weight[rows]); lin.bias.copy_(W.bias[rows])\n        self.w_o.load_state_dict(mha.w_o.state_dict())\n',
        "that\\ is\\ one\\ head's\\ d_k\\ =\\ 8\\ features"),
    'variant: each head overwriting the last': ('LoopMHA', '\nclass LoopMHA(nn.Module):\n    def __init__(self, d_model, h):\n        super().__init__()\n        self.h, self.d_k = h, d_model // h\n        heads = lambda: nn.ModuleList(nn.Linear(d_model, self.d_k) for _ in range(h))\n        self.w_q, self.w_k, self.w_v = heads(), heads(), heads()\n        self.w_o = nn.Linear(h * self.d_k, d_model)\n\n    def forward(self, x, mem=None, mask=None):\n        mem = x if mem is None else mem\n        m = None if mask is None else mask[:, 0]\n        for i in range(self.h): out = attention(self.w_q[i](x), self.w_k[i](mem), self.w_v[i](mem), m)[0]\n        return self.w_o(torch.cat([out], -1))\n\n    @torch.no_grad()\n    def load_from(self, mha):\n        for i in range(self.h):\n            rows = slice(i * self.d_k, (i + 1) * self.d_k)\n            for lin, W in zip((self.w_q[i], self.w_k[i], self.w_v[i]), (mha.w_q, mha.w_k, mha.w_v)):\n                lin.weight.copy_(W.weight[rows]); lin.bias.copy_(W.bias[rows])\n        self.w_o.load_state_dict(mha.w_o.state_dict())\n',
        "that\\ is\\ one\\ head's\\ d_k\\ =\\ 8\\ features"),
    "the arguments (h, d_model), the Annotated Transformer's MultiHeadedAttention order": ('LoopMHA', '\nclass LoopMHA(nn.Module):\n    def __init__(self, h, d_model):\n        super().__init__()\n        self.h, self.d_k = h, d_model // h\n        heads = lambda: nn.ModuleList(nn.Linear(d_model, self.d_k) for _ in range(h))\n        self.w_q, self.w_k, self.w_v = heads(), heads(), heads()\n        self.w_o = nn.Linear(h * self.d_k, d_model)\n\n    def forward(self, x, mem=None, mask=None):\n        mem = x if mem is None else mem\n        m = None if mask is None else mask[:, 0]\n        heads = [attention(wq(x), wk(mem), wv(mem), m)[0] for wq, wk, wv in zip(self.w_q, self.w_k, self.w_v)]\n        return self.w_o(torch.cat(heads, -1))\n\n    @torch.no_grad()\n    def load_from(self, mha):\n        for i in range(self.h):\n            rows = slice(i * self.d_k, (i + 1) * self.d_k)\n            for lin, W in zip((self.w_q[i], self.w_k[i], self.w_v[i]), (mha.w_q, mha.w_k, mha.w_v)):\n                lin.weight.copy_(W.weight[rows]); lin.bias.copy_(W.bias[rows])\n        self.w_o.load_state_dict(mha.w_o.state_dict())\n',
        'your\\ __init__\\ takes\\ \\(h,\\ d_model\\)'),
    'variant: (h, d_model, dropout=0.0)': ('LoopMHA', '\nclass LoopMHA(nn.Module):\n    def __init__(self, h, d_model, dropout=0.0):\n        super().__init__()\n        self.h, self.d_k = h, d_model // h\n        heads = lambda: nn.ModuleList(nn.Linear(d_model, self.d_k) for _ in range(h))\n        self.w_q, self.w_k, self.w_v = heads(), heads(), heads()\n        self.w_o = nn.Linear(h * self.d_k, d_model)\n\n    def forward(self, x, mem=None, mask=None):\n        mem = x if mem is None else mem\n        m = None if mask is None else mask[:, 0]\n        heads = [attention(wq(x), wk(mem), wv(mem), m)[0] for wq, wk, wv in zip(self.w_q, self.w_k, self.w_v)]\n        return self.w_o(torch.cat(heads, -1))\n\n    @torch.no_grad()\n    def load_from(self, mha):\n        for i in range(self.h):\n            rows = slice(i * self.d_k, (i + 1) * self.d_k)\n            for lin, W in zip((self.w_q[i], self.w_k[i], self.w_v[i]), (mha.w_q, mha.w_k, mha.w_v)):\n                lin.weight.copy_(W.weight[rows]); lin.bias.copy_(W.bias[rows])\n        self.w_o.load_state_dict(mha.w_o.state_dict())\n',
        'your\\ __init__\\ takes\\ \\(h,\\ d_model\\)'),
    "head i's bias the single entry W.bias[i], broadcast over its d_k": ('LoopMHA', '\nclass LoopMHA(nn.Module):\n    def __init__(self, d_model, h):\n        super().__init__()\n        self.h, self.d_k = h, d_model // h\n        heads = lambda: nn.ModuleList(nn.Linear(d_model, self.d_k) for _ in range(h))\n        self.w_q, self.w_k, self.w_v = heads(), heads(), heads()\n        self.w_o = nn.Linear(h * self.d_k, d_model)\n\n    def forward(self, x, mem=None, mask=None):\n        mem = x if mem is None else mem\n        m = None if mask is None else mask[:, 0]\n        heads = [attention(wq(x), wk(mem), wv(mem), m)[0] for wq, wk, wv in zip(self.w_q, self.w_k, self.w_v)]\n        return self.w_o(torch.cat(heads, -1))\n\n    @torch.no_grad()\n    def load_from(self, mha):\n        for i in range(self.h):\n            rows = slice(i * self.d_k, (i + 1) * self.d_k)\n            for lin, W in zip((self.w_q[i], self.w_k[i], self.w_v[i]), (mha.w_q, mha.w_k, mha.w_v)):\n                lin.weight.copy_(W.weight[rows]); lin.bias.copy_(W.bias[i])\n        self.w_o.load_state_dict(mha.w_o.state_dict())\n',
        'one\\ entry\\ of\\ a\\ bias,\\ spread\\ over\\ all\\ d_k\\ of\\ theirs'),
    'variant: bias.fill_(W.bias[i])': ('LoopMHA', '\nclass LoopMHA(nn.Module):\n    def __init__(self, d_model, h):\n        super().__init__()\n        self.h, self.d_k = h, d_model // h\n        heads = lambda: nn.ModuleList(nn.Linear(d_model, self.d_k) for _ in range(h))\n        self.w_q, self.w_k, self.w_v = heads(), heads(), heads()\n        self.w_o = nn.Linear(h * self.d_k, d_model)\n\n    def forward(self, x, mem=None, mask=None):\n        mem = x if mem is None else mem\n        m = None if mask is None else mask[:, 0]\n        heads = [attention(wq(x), wk(mem), wv(mem), m)[0] for wq, wk, wv in zip(self.w_q, self.w_k, self.w_v)]\n        return self.w_o(torch.cat(heads, -1))\n\n    @torch.no_grad()\n    def load_from(self, mha):\n        for i in range(self.h):\n            rows = slice(i * self.d_k, (i + 1) * self.d_k)\n            for lin, W in zip((self.w_q[i], self.w_k[i], self.w_v[i]), (mha.w_q, mha.w_k, mha.w_v)):\n                lin.weight.copy_(W.weight[rows]); lin.bias.fill_(W.bias[i].item())\n        self.w_o.load_state_dict(mha.w_o.state_dict())',
        'one\\ entry\\ of\\ a\\ bias,\\ spread\\ over\\ all\\ d_k\\ of\\ theirs'),
}

@pytest.mark.parametrize('label', list(_T36))
def test_the_thirty_sixth_sets_misses_are_named(label):
    import torch
    ex, src, says = _T36[label]
    ns = {}
    exec(_T36_PRELUDE, ns); exec(src, ns)
    calls = {'heads': 'check_heads(split_heads, merge_heads)', 'LoopMHA': 'check_loop_mha(LoopMHA)'}
    dtype, grad = torch.get_default_dtype(), torch.is_grad_enabled()
    try: _t36_rejects(lambda: eval(calls[ex], ns), says=says)
    finally: torch.set_default_dtype(dtype); torch.set_grad_enabled(grad)   # an answer that changes them must not change the next test


# ---------------------------------------------------------------- the comparisons' tolerance: multi-head attention's own rounding, on any CPU
def test_check_heads_refuses_heads_rounded_through_float32():
    "Inside nn.MultiheadAttention (float64) the output is compared at the rounding of its own additions: heads merged through float32 "
    "and cast back (the dtype kept, 7 digits of 16) are refused; rounded only where attention's output comes in (a tensor of its own, "
    "laid out (B, n, h, d) in memory), they pass the round trip and reach that comparison."
    split = lambda x, h: x.unflatten(-1, (h, -1)).permute(0, 2, 1, 3)
    merge = lambda x: (x.float().to(x.dtype) if x._base is None and not x.is_contiguous() else x).permute(0, 2, 1, 3).flatten(2)
    assert_rejects(check_heads, split, merge, says=r"^Not yet: with your heads, nn.MultiheadAttention's output is off by")

def test_check_loop_mha_passes_heads_computed_in_float64_and_refuses_a_float16_scale(capsys):
    "LoopMHA is compared with MultiHeadAttention at the rounding of multi-head attention's additions: every product in float64 (einsum), "
    "cast back, passes; the nearest wrong answer, 1/sqrt(d_k) rounded to float16 (3 digits), is refused."
    import torch.nn.functional as F
    ns = loop_ns(EXERCISES)
    lin = lambda l, t: F.linear(t.double(), l.weight.double(), l.bias.double())
    def loop(scale):
        class Loop(ns['LoopMHA']):
            def forward(self, x, mem=None, mask=None):
                mem, heads = x if mem is None else mem, []
                for wq, wk, wv in zip(self.w_q, self.w_k, self.w_v):
                    s = torch.einsum('bqd,bkd->bqk', lin(wq, x), lin(wk, mem)) * scale(self.d_k)
                    if mask is not None: s = s.masked_fill(~mask.squeeze(1), float('-inf'))
                    heads.append(s.softmax(-1) @ lin(wv, mem))
                return lin(self.w_o, torch.cat(heads, -1)).to(x.dtype)
        return Loop
    assert ns['check_loop_mha'](loop(lambda d_k: d_k ** -0.5)) is True
    assert 'computes what MultiHeadAttention computes' in capsys.readouterr().out
    assert_rejects(ns['check_loop_mha'], loop(lambda d_k: torch.tensor(d_k ** -0.5, dtype=torch.float16).item()), says=r"^Not yet: d_model=32, h=4, self-attention: off by")
