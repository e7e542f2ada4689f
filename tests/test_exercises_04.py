"""04_embeddings's exercises, proven away from the learner: exercise 5's check (transformer_nb.course.embeddings, taught in course_embeddings)
passes the printed solution and other right answers, reports the stub as not written yet, and refuses every wrong
variant with a message that names the case and the likely mistake (a wrong scale by the factor it gives) (zeroing the padding outputs included, which breaks parity with nn.Embedding once tying makes
the padding row non-zero); each "break it" solution names exactly the checks that fail when its change is made to the
library. The checks and solutions run in namespaces of their own (tests/nbtools.py), never in the notebook's."""
import math
import pytest, torch
import torch.nn as nn
import torch.nn.functional as F
from nbtools import assert_break_it_exercise, assert_no_cell_runs_a_solution, assert_rejects, assert_stub_reported, exercise_code, namespace
from transformer_nb.course.embeddings import check_my_embeddings

NB, EXERCISES, MODULE, TESTS = '04_embeddings', '4b182bb5', 'c2ebd0ce', 'tests/test_blocks.py'

def solution_5() -> str: return exercise_code(NB, EXERCISES, 5)

def test_no_cell_runs_a_solution_or_rebinds_the_learners_names():
    assert_no_cell_runs_a_solution(NB, 'MyEmbeddings')

def check_ns(*more): return namespace(NB, MODULE, *more)

def test_check_my_embeddings_passes_right_answers(capsys):
    ns = check_ns(solution_5())
    assert ns['check_my_embeddings'](ns['MyEmbeddings']) is True
    class WithFEmbedding(ns['MyEmbeddings']):               # other right answers: F.embedding's padding_idx ...
        def forward(self, tokens): return F.embedding(tokens, self.E, padding_idx=self.pad_id) * self.scale
    class WithHook(ns['MyEmbeddings']):                     # ... and a hook that zeroes the padding row's gradient
        def __init__(self, *a, **kw):
            super().__init__(*a, **kw)
            self.E.register_hook(lambda g: g.index_fill(0, torch.tensor([self.pad_id]), 0.0))
        def forward(self, tokens): return self.E[tokens] * self.scale
    assert ns['check_my_embeddings'](WithFEmbedding) is True
    assert ns['check_my_embeddings'](WithHook) is True
    assert capsys.readouterr().out.count('MyEmbeddings matches Embeddings') == 3

def test_check_my_embeddings_reports_the_stub(capsys):
    ns = check_ns('d4e0f003')                               # the stub cell calls the check itself
    assert_stub_reported(ns, 'check_my_embeddings', 'MyEmbeddings', capsys)

def wrong(kind:str):
    "The solution with one mistake."
    ns = check_ns(solution_5())
    Right = ns['MyEmbeddings']
    class Wrong(Right):
        def __init__(self, vocab, d_model, pad_id=0):
            super().__init__(vocab, d_model, pad_id)
            if kind == 'N(0, 1)':
                with torch.no_grad(): self.E.normal_(); self.E[pad_id] = 0.0
            if kind == 'pad row not zeroed':
                with torch.no_grad(): self.E[pad_id] = torch.randn(d_model) * d_model ** -0.5
            if kind == 'two parameters': self.bias = nn.Parameter(torch.zeros(d_model))
        def forward(self, tokens):
            x = self.E[tokens]
            if kind == 'plain indexing': return x * self.scale
            if kind == 'zeroed padding outputs': return (x * self.scale).masked_fill((tokens == self.pad_id)[..., None], 0.0)
            if kind == 'no scale': return super().forward(tokens) / self.scale
            if kind == 'times d_model': return super().forward(tokens) / self.scale * self.E.shape[1]
            if kind == 'divided': return super().forward(tokens) / self.scale ** 2
            return super().forward(tokens)
    return ns, Wrong

@pytest.mark.parametrize('kind, message', [
    ('plain indexing', r"a zero padding row: the padding row E\[0\] gets a gradient .*nn.Embedding\(padding_idx=...\) gives it none"),
    ('zeroed padding outputs', r"a non-zero padding row \(as tying makes it\): the outputs differ by .*; only at the padding tokens: "
                               r"nn.Embedding returns the padding row as it is"),
    ('no scale', r"a zero padding row: the outputs differ by .*; the embeddings are not scaled: multiply by sqrt\(d_model\)"),
    ('times d_model', r"a zero padding row: the outputs differ by .*; you multiplied by d_model = 16: the paper scales by its square root, 4"),
    ('divided', r"a zero padding row: the outputs differ by .*; you divided by sqrt\(d_model\) = 4: multiply by it"),
    ('N(0, 1)', r"initialisation: the rows have a standard deviation of [01]\.\d+, not 1/sqrt\(d_model\) = 0.25"),
    ('pad row not zeroed', r"initialisation: the padding row E\[PAD_ID\] must start at zero"),
    ('two parameters', r"MyEmbeddings\(50, 16\) holds \{'E': \(50, 16\), 'bias': \(16,\)\}: bias \(16,\) extra: the embedding is a lookup alone"),
])
def test_check_my_embeddings_names_each_mistake(kind, message):
    ns, Wrong = wrong(kind)
    assert_rejects(check_my_embeddings, Wrong, says=message)

def test_a_scale_that_is_no_named_factor_is_measured():
    ns = check_ns(solution_5())
    class Doubled(ns['MyEmbeddings']):
        def forward(self, tokens): return super().forward(tokens) * 2
    assert_rejects(check_my_embeddings, Doubled, says=r"the rows of E times 8: the factor is sqrt\(d_model\) = 4")

def test_the_solution_keeps_nn_Embeddings_values_when_tying_trains_the_padding_row():
    "The notebook's point: with tying the padding row moves; nn.Embedding still returns it, and so must the solution."
    ns = check_ns(solution_5())
    Emb, Gen, tie = (namespace(NB, MODULE, 'b110ec13', '03205754')[k] for k in ('Embeddings', 'Generator', 'tie_weights'))
    mine, gen = ns['MyEmbeddings'](10, 8), Gen(8, 10)
    gen.proj.weight = mine.E                                # tied by hand: the generator scores with E
    F.cross_entropy(gen(torch.randn(3, 8)), torch.tensor([1, 2, 3])).backward()
    with torch.no_grad(): mine.E -= mine.E.grad             # one update: the padding row is no longer zero
    assert mine.E[0].abs().sum() > 0
    t = torch.tensor([[4, 0, 0]])
    torch.testing.assert_close(mine(t), F.embedding(t, mine.E, padding_idx=0) * math.sqrt(8))

# ---------------------------------------------------------------- the "break it" exercises
BREAK = {
    1: dict(cell=MODULE, old="return self.lut(tokens) * self.scale", new="return self.lut(tokens) * self.d_model", said="multiply by `self.d_model` instead of `self.scale`",
            cells={'a6a64540': "the test right after Embeddings", '69d1fb70': "the unit-scale measurement",
                   'a5f6e651': "the tying cell that reads a row back through the source embedding"},
            tests={'test_embeddings_scale_and_init'}),
    2: dict(cell='03205754', old="for m in mats[1:]: m.weight = mats[0].weight",
            new="for m in mats[1:]: m.weight = nn.Parameter(mats[0].weight.detach().clone())",
            said="`m.weight = nn.Parameter(mats[0].weight.detach().clone())`",
            cells={'d14fff0b': "the test right after tie_weights", '0882fb68': "the gradient test",
                   '41928b75': "the figure of the rows each path updates", 'c9cb2745': "the table of what tying saves"},
            tests={'test_tying_is_one_tensor_counted_once', 'test_tied_gradient_is_sum_of_the_three_uses'}),
}

@pytest.mark.slow
@pytest.mark.parametrize('n', BREAK)
def test_break_it_solution_names_exactly_the_checks_that_fail(n):
    assert_break_it_exercise(NB, EXERCISES, n, TESTS, module='embeddings', **BREAK[n])

# ---------------------------------------------------------------- fresh wrong answers, written as new learners would
from transformer_nb.core import PAD_ID
from transformer_nb.course import embeddings as _ex
FRESH = {}   # label: (checker, answer, the words its message must contain)
def add(checker, label, kw, *args): FRESH[checker, label] = args

# 04 MyEmbeddings: each answer and the words its message must contain
class _EmbBase(nn.Module):
    def __init__(self, vocab, d_model, pad_id=PAD_ID):
        super().__init__()
        self.d_model, self.pad_id = d_model, pad_id
        E = torch.randn(vocab, d_model) * d_model ** -0.5
        if pad_id is not None: E[pad_id] = 0
        self.E = nn.Parameter(E)
    def forward(self, tokens): return F.embedding(tokens, self.E, padding_idx=self.pad_id) * math.sqrt(self.d_model)
class ME_plain(_EmbBase):
    def forward(self, tokens): return self.E[tokens] * math.sqrt(self.d_model)
add('check_my_embeddings', 'plain indexing: pad row gets gradient', ['pad', 'gradient'], ME_plain)
class ME_noscale(_EmbBase):
    def forward(self, tokens): return F.embedding(tokens, self.E, padding_idx=self.pad_id)
add('check_my_embeddings', 'no sqrt(d_model)', ['sqrt', 'scale'], ME_noscale)
class ME_dmodel(_EmbBase):
    def forward(self, tokens): return F.embedding(tokens, self.E, padding_idx=self.pad_id) * self.d_model
add('check_my_embeddings', 'times d_model', ['sqrt', 'd_model'], ME_dmodel)
class ME_divide(_EmbBase):
    def forward(self, tokens): return F.embedding(tokens, self.E, padding_idx=self.pad_id) / math.sqrt(self.d_model)
add('check_my_embeddings', 'divides by sqrt(d_model)', ['divide', 'multipl'], ME_divide)
class ME_init(_EmbBase):
    def __init__(self, vocab, d_model, pad_id=PAD_ID):
        super().__init__(vocab, d_model, pad_id); self.E = nn.Parameter(torch.randn(vocab, d_model))
add('check_my_embeddings', 'N(0,1) init, pad row not zero', ['init', 'n(0', 'padding row', 'zero', 'std'], ME_init)
class ME_buffer(_EmbBase):
    def __init__(self, vocab, d_model, pad_id=PAD_ID):
        super().__init__(vocab, d_model, pad_id); E = self.E.detach().clone(); del self.E; self.register_buffer('E', E)
add('check_my_embeddings', 'E a buffer, not a parameter', ['parameter'], ME_buffer)
class ME_onehot(_EmbBase):
    def forward(self, tokens): return F.one_hot(tokens, self.E.shape[0]).float() @ self.E * math.sqrt(self.d_model)
add('check_my_embeddings', 'one-hot matmul (pad row gets gradient)', ['pad', 'gradient'], ME_onehot)
class ME_sqrtE(_EmbBase):
    def forward(self, tokens): return F.embedding(tokens, self.E * math.sqrt(self.d_model), padding_idx=self.pad_id).detach() if False else F.embedding(tokens, self.E, padding_idx=self.pad_id) * math.sqrt(self.E.shape[0])
add('check_my_embeddings', 'sqrt(vocab) not sqrt(d_model)', ['vocab', 'sqrt', 'd_model'], ME_sqrtE)
SAYS_CHECK_MY_EMBEDDINGS = {
"plain indexing: pad row gets gradient": "nn\\.Embedding\\(padding_idx=\\.\\.\\.\\)\\ gives\\ it\\ none:\\ stop\\ the\\ gradient\\ at\\ the\\ padding\\ tokens",
"no sqrt(d_model)": "the\\ embeddings\\ are\\ not\\ scaled:\\ multiply\\ by\\ sqrt\\(d_model\\)",
"times d_model": "you\\ multiplied\\ by\\ d_model\\ =\\ 16:\\ the\\ paper\\ scales\\ by\\ its\\ square\\ root,\\ 4",
"divides by sqrt(d_model)": "you\\ divided\\ by\\ sqrt\\(d_model\\)\\ =\\ 4:\\ multiply\\ by\\ it",
"N(0,1) init, pad row not zero": "the\\ rows\\ have\\ a\\ standard\\ deviation\\ of\\ 0\\.965,\\ not\\ 1/sqrt\\(d_model\\)\\ =\\ 0\\.25:\\ draw\\ from\\ N\\(0,\\ 1/",
"E a buffer, not a parameter": "hold\\ one\\ nn\\.Parameter\\ E\\ of\\ shape\\ \\(vocab,\\ d_model\\)\\ =\\ \\(50,\\ 16\\)",
"one-hot matmul (pad row gets gradient)": "nn\\.Embedding\\(padding_idx=\\.\\.\\.\\)\\ gives\\ it\\ none:\\ stop\\ the\\ gradient\\ at\\ the\\ padding\\ tokens",
"sqrt(vocab) not sqrt(d_model)": "your\\ outputs\\ are\\ the\\ rows\\ of\\ E\\ times\\ 7\\.071\\ =\\ sqrt\\(vocab\\)\\ =\\ sqrt\\(50\\):\\ the\\ factor\\ is\\ sqrt\\(d_"
}

@pytest.mark.parametrize('label', list(SAYS_CHECK_MY_EMBEDDINGS))
def test_fresh_wrong_answers_named_by_check_my_embeddings(label):
    "Each wrong answer a new learner writes is refused, with a message that names its mistake."
    assert_rejects(_ex.check_my_embeddings, *FRESH['check_my_embeddings', label], says=SAYS_CHECK_MY_EMBEDDINGS[label])


class _LutInside(nn.Module):
    "Right values and gradients, but through an nn.Embedding, which the exercise writes without."
    def __init__(self, vocab, d_model, pad_id=_ex.PAD_ID):
        super().__init__(); self.lut, self.scale = nn.Embedding(vocab, d_model, padding_idx=pad_id), math.sqrt(d_model)
        with torch.no_grad(): self.lut.weight.normal_(0, d_model ** -0.5); self.lut.weight[pad_id] = 0
    def forward(self, tokens): return self.lut(tokens) * self.scale

class _OneParameter(nn.Module):
    def __init__(self, vocab, d_model, pad_id=_ex.PAD_ID):
        super().__init__(); self.E = nn.Parameter(torch.randn(vocab, d_model) * d_model ** -0.5)
        with torch.no_grad(): self.E[pad_id] = 0.0
        self.pad_id, self.scale = pad_id, math.sqrt(d_model)
    def forward(self, tokens):
        x = self.E[tokens]; return torch.where((tokens == self.pad_id)[..., None], x.detach(), x) * self.scale

def test_an_nn_embedding_inside_is_named():
    assert_rejects(_ex.check_my_embeddings, _LutInside, says=r"MyEmbeddings holds an nn\.Embedding: this exercise writes the lookup without it, one nn\.Parameter E")
    assert _ex.check_my_embeddings(_OneParameter) is True

# ---------------------------------------------------------------- mistakes nobody listed, named by what the answer does


class _ByLinear(nn.Module):
    "A one-hot vector through an nn.Linear: the same numbers, but not the Parameter E the exercise asks for."
    def __init__(self, vocab, d_model): super().__init__(); self.proj, self.d = nn.Linear(vocab, d_model, bias=False), d_model
    def forward(self, t): return self.proj(nn.functional.one_hot(t, self.proj.in_features).float()) * math.sqrt(self.d)

class _Shifted(nn.Module):
    "The right table, looked up one id too far."
    def __init__(self, vocab, d_model):
        super().__init__(); self.E = nn.Parameter(torch.randn(vocab, d_model) / math.sqrt(d_model)); self.d = d_model
        with torch.no_grad(): self.E[0] = 0
    def forward(self, t): return self.E[(t + 1) % self.E.shape[0]] * math.sqrt(self.d)

@pytest.mark.parametrize('answer, says', [
    (_ByLinear, r"MyEmbeddings\(50, 16\) holds \{'proj.weight': \(16, 50\)\}: an nn.Linear \(proj\) computes x W\^T \+ b on vectors, not a lookup by id"),
    (_Shifted, r"a zero padding row: the outputs differ by .*; 8 of 8 positions differ, first at \[batch 0, position 0\] \(token 5\): yours holds row 6 of E there"),
])
def test_my_embeddings_mistakes_nobody_listed_are_named_by_property(answer, says):
    assert_rejects(check_my_embeddings, answer, says=says)


# ---------------------------------------------------------------- more mistakes, each named by what the answer does
import transformer_nb.course.embeddings as _named

def _embeddings_row0(hook:bool):
    "MyEmbeddings whose padding row is row 0 whatever pad_id says: its gradient stopped by a mask (or a hook) on token 0."
    class MyEmbeddings(nn.Module):
        def __init__(self, vocab:int, d_model:int, pad_id:int=PAD_ID):
            super().__init__()
            E = torch.randn(vocab, d_model) * d_model ** -0.5; E[pad_id] = 0
            self.E, self.pad_id, self.scale = nn.Parameter(E), pad_id, math.sqrt(d_model)
            if hook: self.E.register_hook(lambda g: g.index_fill(0, torch.tensor([0]), 0.0))
        def forward(self, tokens):
            x = self.E[tokens]
            return (x if hook else torch.where((tokens == 0)[..., None], x.detach(), x)) * self.scale
    return MyEmbeddings

@pytest.mark.parametrize('hook', [False, True])
def test_a_padding_row_fixed_at_zero_is_named_with_another_pad_id(hook):
    assert_rejects(_named.check_my_embeddings, _embeddings_row0(hook),
                   says=r"MyEmbeddings\(50, 16, pad_id=3\): the row of token 0 gets no gradient and the padding row E\[3\] gets one")

def test_an_output_detached_from_the_table_is_named():
    class MyEmbeddings(nn.Module):
        def __init__(self, vocab, d_model, pad_id=PAD_ID):
            super().__init__(); E = torch.randn(vocab, d_model) * d_model ** -0.5; E[pad_id] = 0
            self.E, self.scale = nn.Parameter(E), math.sqrt(d_model)
        def forward(self, tokens): return self.E.detach()[tokens] * self.scale
    assert_rejects(_named.check_my_embeddings, MyEmbeddings, says=r"a zero padding row: your output does not depend on E")

# ---------------------------------------------------------------- slips of later blind answers, named by property
class _PadStoppedInTrainingOnly(nn.Module):
    def __init__(self, vocab, d_model, pad_id=PAD_ID):
        super().__init__(); self.d, self.pad_id = d_model, pad_id
        self.E = nn.Parameter(torch.randn(vocab, d_model) * d_model ** -0.5)
        with torch.no_grad(): self.E[pad_id] = 0
    def forward(self, t):
        x, keep = self.E[t], (t != self.pad_id)[..., None]
        return (x * keep + x.detach() * ~keep if self.training else x) * math.sqrt(self.d)

def test_check_my_embeddings_names_a_padding_row_that_learns_in_eval_mode():
    assert_rejects(check_my_embeddings, _PadStoppedInTrainingOnly, says=r"eval mode: the padding row E\[0\] gets a gradient .*in eval mode as in training")

# ---------------------------------------------------------------- E scaled in place, the detach on the wrong side, a gradient scaled twice
class _ScaledInPlace(_EmbBase):
    def forward(self, tokens):
        with torch.no_grad(): self.E.mul_(math.sqrt(self.d_model))
        return F.embedding(tokens, self.E, padding_idx=self.pad_id)

class _DetachWrongSide(_EmbBase):
    def forward(self, tokens):
        x, pad = self.E[tokens], (tokens == self.pad_id)[..., None]
        return torch.where(pad, x, x.detach()) * math.sqrt(self.d_model)

class _HookScalesTwice(_EmbBase):
    def forward(self, tokens):
        s = math.sqrt(self.d_model)
        def hook(g): g = g * s; g[self.pad_id] = 0; return g
        E = self.E * 1.0
        if E.requires_grad: E.register_hook(hook)
        return E[tokens] * s

@pytest.mark.parametrize('answer, says', [
    (_ScaledInPlace, r"a zero padding row: forward changed E in place \(it is now sqrt\(d_model\) = 4 times what it was\)"),
    (_DetachWrongSide, r"the padding row E\[0\] gets a gradient and the real tokens' rows \[5, 7, 9\] get none: the detach is on the wrong side"),
    (_HookScalesTwice, r"the gradients of rows \[5, 7, 9\] differ from nn.Embedding's: yours are sqrt\(d_model\) = 4 times nn.Embedding's"),
])
def test_a_table_changed_in_place_and_gradients_stopped_or_scaled_wrongly_are_named(answer, says):
    assert_rejects(check_my_embeddings, answer, says=says)
    assert check_my_embeddings(_EmbBase) is True

# ---------------------------------------------------------------- a hook that stops every row's gradient
class _HookAll(_EmbBase):
    "The lookup right, but a gradient hook on E that zeroes every row's gradient, not the padding row's alone."
    def __init__(self, vocab, d_model, pad_id=PAD_ID):
        super().__init__(vocab, d_model, pad_id); self.E.register_hook(lambda g: torch.zeros_like(g))

def test_a_hook_that_stops_every_rows_gradient_is_named():
    assert_rejects(_ex.check_my_embeddings, _HookAll, says=r"a zero padding row: the gradients of rows \[5, 7, 9\] differ from nn.Embedding's: "
                                                          r"yours are all zero, no gradient reaches these rows .*stop it at the padding row alone")
    assert _ex.check_my_embeddings(_EmbBase) is True

# ---------------------------------------------------------------- a fresh blind set: wrong answers written before reading the messages
import re as _n9re
from nbtools import assert_rejects as _n9_rejects
import math as _n9math
from transformer_nb.course.embeddings import check_my_embeddings as _n9_emb
def _n9_E(scale=lambda d: _n9math.sqrt(d), std=lambda d: d ** -0.5):
    class E(nn.Module):
        def __init__(self, vocab, d_model, pad_id=0):
            super().__init__(); self.E = nn.Parameter(torch.randn(vocab, d_model) * std(d_model)); self.pad_id, self.d = pad_id, d_model
            with torch.no_grad(): self.E[pad_id].zero_()
        def forward(self, t): return F.embedding(t, self.E, padding_idx=self.pad_id) * scale(self.d)
    return E
NINTH = [('no sqrt(d_model)', _n9_emb, (_n9_E(scale=lambda d: 1.0),), "the embeddings are not scaled: multiply by sqrt(d_model)"),
         ('divided by sqrt(d_model)', _n9_emb, (_n9_E(scale=lambda d: d ** -0.5),), "you divided by sqrt(d_model)"),
         ('N(0, 1) initialisation', _n9_emb, (_n9_E(std=lambda d: 1.0),), "not 1/sqrt(d_model) = 0.25: draw from N(0, 1/d_model)")]
class _n9_Eplain(nn.Module):
    def __init__(self, vocab, d_model, pad_id=0):
        super().__init__(); self.E = nn.Parameter(torch.randn(vocab, d_model) * d_model ** -0.5); self.d, self.pad_id = d_model, pad_id
        with torch.no_grad(): self.E[pad_id].zero_()
    def forward(self, t): return self.E[t] * _n9math.sqrt(self.d)
class _n9_Epadrow(_n9_Eplain):
    def __init__(self, vocab, d_model, pad_id=0):
        super().__init__(vocab, d_model, pad_id)
        with torch.no_grad(): self.E[pad_id].normal_(0, d_model ** -0.5)
    def forward(self, t): return F.embedding(t, self.E, padding_idx=self.pad_id) * _n9math.sqrt(self.d)
NINTH += [('plain indexing', _n9_emb, (_n9_Eplain,), "the padding row E[0] gets a gradient"),
          ('padding row not zero at the start', _n9_emb, (_n9_Epadrow,), "the padding row E[PAD_ID] must start at zero")]

@pytest.mark.parametrize('label', [c[0] for c in NINTH])
def test_ninth_blind_answers_named(label):
    "Each answer of the blind set is refused with a message that names its mistake."
    _, check, answer, words = next(c for c in NINTH if c[0] == label)
    _n9_rejects(check, *answer, says=_n9re.escape(words))

# ---------------------------------------------------------------- the sixteenth blind set's misses
def _emb(scale=lambda d: math.sqrt(d), init=lambda v, d: torch.randn(v, d) * d ** -0.5, out=lambda x, pad: x):
    "The solution with one change: the factor, the initial table, or what forward returns."
    class MyEmbeddings(nn.Module):
        def __init__(self, vocab, d_model, pad_id=PAD_ID):
            super().__init__()
            self.E = nn.Parameter(init(vocab, d_model))
            with torch.no_grad(): self.E[pad_id] = 0.0
            self.pad_id, self.scale = pad_id, scale(d_model)
        def forward(self, tokens):
            x, pad = self.E[tokens], (tokens == self.pad_id)[..., None]
            return out(torch.where(pad, x.detach(), x) * self.scale, pad)
    return MyEmbeddings

@pytest.mark.parametrize('answer, says', [
    (_emb(scale=math.isqrt), r"^Not yet: MyEmbeddings\(30, 12\): the outputs are the rows of E times 3, not sqrt\(12\) = 3\.464: that is math\.isqrt\(12\)"),
    (_emb(scale=lambda d: 1.0, init=lambda v, d: torch.randn(v, d)), r"^Not yet: initialisation: .* forward returns them unscaled: the sqrt\(d_model\) is folded into the table"),
    (_emb(out=lambda x, pad: (x, pad)), r"^Not yet: a zero padding row: forward returned a tuple of 2: return the embeddings alone"),
])
def test_an_integer_root_a_scale_folded_into_the_table_and_a_pair_are_named(answer, says):
    assert_rejects(check_my_embeddings, answer, says=says)

# ---------------------------------------------------------------- the seventeenth blind set's misses
def _emb17(dtype=torch.float32, time_first=False):
    "MyEmbeddings, right, or with E in another dtype, or its output time first (n, B, d_model)."
    class MyEmbeddings(torch.nn.Module):
        def __init__(self, vocab, d_model, pad_id=PAD_ID):
            super().__init__()
            self.E = torch.nn.Parameter(torch.randn(vocab, d_model, dtype=dtype) * d_model ** -0.5)
            with torch.no_grad(): self.E[pad_id] = 0.0
            self.pad_id, self.scale = pad_id, math.sqrt(d_model)
        def forward(self, tokens):
            x = self.E[tokens]; y = torch.where((tokens == self.pad_id)[..., None], x.detach(), x) * self.scale
            return y.transpose(0, 1) if time_first else y
    return MyEmbeddings

@pytest.mark.parametrize('kw, says', [
    (dict(dtype=torch.float64), r"initialisation: E is torch.float64, nn.Embedding's torch.float32"),
    (dict(time_first=True), r"forward returned shape \(4, 2, 16\); expected \(B, n, d_model\) = \(2, 4, 16\): \(n, B, d_model\), time first"),
], ids=['float64', 'time first'])
def test_the_seventeenth_sets_misses_are_named(kw, says):
    assert_rejects(check_my_embeddings, _emb17(**kw), says=says)

def test_the_seventeenth_sets_helper_passes_unchanged():
    from transformer_nb.course.checking import outcome
    assert outcome(check_my_embeddings, _emb17())[0] is True

# ---------------------------------------------------------------- the nineteenth blind set's misses
def _emb19(layout=None, buffer=False):
    "The seventeenth set's MyEmbeddings with its output transposed to (B, d_model, n) or flattened, or with E a buffer."
    class MyEmbeddings(_emb17()):
        def __init__(self, vocab, d_model, pad_id=PAD_ID):
            super().__init__(vocab, d_model, pad_id)
            if buffer: E = self.E.detach(); del self.E; self.register_buffer('E', E)
        def forward(self, tokens):
            y = super().forward(tokens)
            return {'conv': y.transpose(1, 2), 'flat': y.flatten(0, 1)}.get(layout, y)
    return MyEmbeddings

@pytest.mark.parametrize('kw, says', [
    (dict(layout='conv'), r"forward returned shape \(2, 16, 4\); .*: \(B, d_model, n\), the features before the positions \(a Conv1d's layout\)"),
    (dict(layout='flat'), r"forward returned shape \(8, 16\); .*: \(B \* n, d_model\), the tokens flattened"),
    (dict(buffer=True), r"holds no parameters: E is a buffer \(register_buffer\): the state_dict saves it, but parameters\(\) leaves it out"),
], ids=['Conv1d layout', 'flattened', 'a buffer'])
def test_the_nineteenth_sets_misses_are_named(kw, says):
    assert_rejects(check_my_embeddings, _emb19(**kw), says=says)


# ---------------------------------------------------------------- the twenty-first blind set's misses
from transformer_nb.course.embeddings import check_my_embeddings as _t21_check_my_embeddings
from nbtools import assert_rejects as _t21_rejects

_T21_PRELUDE = 'from transformer_nb.core import PAD_ID'   # the names the exercise's cell sees
_T21 = {   # label: (the exercise's function, the answer's code, what its message must say)
    'the pad mask unsqueezed at axis 1, not -1 (right only when n = d_model)': ('MyEmbeddings', '\nclass MyEmbeddings(nn.Module):\n    def __init__(self, vocab, d_model, pad_id=PAD_ID):\n        super().__init__()\n        self.E = nn.Parameter(torch.randn(vocab, d_model) * d_model ** -0.5)\n        with torch.no_grad(): self.E[pad_id] = 0.0\n        self.pad_id, self.scale = pad_id, math.sqrt(d_model)\n    def forward(self, tokens):\n        x, pad = self.E[tokens], (tokens == self.pad_id)[:, None]\n        return torch.where(pad, x.detach(), x) * self.scale',
        'and runs when n = d_model = 16'),
    'reseeds the global generator (torch.manual_seed(0)) in __init__': ('MyEmbeddings', '\nclass MyEmbeddings(nn.Module):\n    def __init__(self, vocab, d_model, pad_id=PAD_ID):\n        super().__init__()\n        torch.manual_seed(0)\n        self.E = nn.Parameter(torch.randn(vocab, d_model) * d_model ** -0.5)\n        with torch.no_grad(): self.E[pad_id] = 0.0\n        self.pad_id, self.scale = pad_id, math.sqrt(d_model)\n    def forward(self, tokens):\n        x, pad = self.E[tokens], (tokens == self.pad_id)[..., None]\n        return torch.where(pad, x.detach(), x) * self.scale',
        "MyEmbeddings\\(10, 4\\) reseeds PyTorch's generator"),
}

@pytest.mark.parametrize('label', list(_T21))
def test_the_twenty_first_sets_misses_are_named(label):
    import math, torch, torch.nn as nn, torch.nn.functional as F
    fn, src, says = _T21[label]
    ns = dict(math=math, torch=torch, nn=nn, F=F)
    exec(_T21_PRELUDE, ns); exec(src, ns)
    check = {'MyEmbeddings': _t21_check_my_embeddings}[fn]
    dtype, grad = torch.get_default_dtype(), torch.is_grad_enabled()
    try: _t21_rejects(check, ns[fn], says=says)
    finally: torch.set_default_dtype(dtype); torch.set_grad_enabled(grad)   # an answer that changes them must not change the next test


# ---------------------------------------------------------------- the twenty-third blind set's misses
from transformer_nb.course.embeddings import check_my_embeddings as _t23_check_my_embeddings
from nbtools import assert_rejects as _t23_rejects

_T23_PRELUDE = 'from transformer_nb.core import PAD_ID'   # the names the exercise's cell sees
_T23 = {   # label: (the exercise's function, the answer's code, what its message must say)
    'the table created in forward on the first call (lazy, as Keras builds)': ('MyEmbeddings', "\nclass MyEmbeddings(nn.Module):\n    def __init__(self, vocab, d_model, pad_id=PAD_ID):\n        super().__init__()\n        self.vocab, self.d_model, self.pad_id, self.scale = vocab, d_model, pad_id, math.sqrt(d_model)\n    def forward(self, tokens):\n        if not hasattr(self, 'E'):\n            self.E = nn.Parameter(torch.randn(self.vocab, self.d_model) * self.d_model ** -0.5)\n            with torch.no_grad(): self.E[self.pad_id] = 0.0\n        x, pad = self.E[tokens], (tokens == self.pad_id)[..., None]\n        return torch.where(pad, x.detach(), x) * self.scale",
        'no\\ parameter\\ until\\ forward\\ runs:\\ your\\ table\\ is\\ created\\ in\\ forward'),
}

@pytest.mark.parametrize('label', list(_T23))
def test_the_twenty_third_sets_misses_are_named(label):
    import math, torch, torch.nn as nn, torch.nn.functional as F
    fn, src, says = _T23[label]
    ns = dict(math=math, torch=torch, nn=nn, F=F)
    exec(_T23_PRELUDE, ns); exec(src, ns)
    check = {'MyEmbeddings': _t23_check_my_embeddings}[fn]
    dtype, grad = torch.get_default_dtype(), torch.is_grad_enabled()
    try: _t23_rejects(check, ns[fn], says=says)
    finally: torch.set_default_dtype(dtype); torch.set_grad_enabled(grad)   # an answer that changes them must not change the next test


# ---------------------------------------------------------------- the twenty-fourth blind set's misses
from transformer_nb.course.embeddings import check_my_embeddings as _t24_check_my_embeddings
from nbtools import assert_rejects as _t24_rejects

_T24_PRELUDE = 'import math, copy, random, torch, torch.nn as nn, torch.nn.functional as F\nfrom collections import Counter\nfrom transformer_nb.core import *\nfrom transformer_nb.embeddings import *'   # the names the exercise's cell sees
_T24 = {   # label: (the exercise, the answer's code, what its message must say)
    'returns the embeddings as float64': ('MyEmbeddings', '\nclass MyEmbeddings(nn.Module):\n    def __init__(self, vocab, d_model, pad_id=PAD_ID):\n        super().__init__()\n        self.E = nn.Parameter(torch.randn(vocab, d_model) * d_model ** -0.5)\n        with torch.no_grad(): self.E[pad_id] = 0.0\n        self.pad_id, self.scale = pad_id, math.sqrt(d_model)\n    def forward(self, tokens):\n        x, pad = self.E[tokens], (tokens == self.pad_id)[..., None]\n        return torch.where(pad, x.detach(), x).double() * self.scale',
        "a zero padding row: your embeddings are torch.float64, E's and nn.Embedding's torch.float32: keep E's dtype"),
}

@pytest.mark.parametrize('label', list(_T24))
def test_the_twenty_fourth_sets_misses_are_named(label):
    import torch
    ex, src, says = _T24[label]
    ns = {}
    exec(_T24_PRELUDE, ns); exec(src, ns)
    run = {'MyEmbeddings': lambda ns: _t24_check_my_embeddings(ns['MyEmbeddings'])}[ex]
    dtype, grad = torch.get_default_dtype(), torch.is_grad_enabled()
    try: _t24_rejects(lambda: run(ns), says=says)
    finally: torch.set_default_dtype(dtype); torch.set_grad_enabled(grad)   # an answer that changes them must not change the next test


# ---------------------------------------------------------------- the twenty-ninth blind set's misses
from transformer_nb.course.embeddings import check_my_embeddings as _t29_check_my_embeddings
from nbtools import assert_rejects as _t29_rejects

_T29_PRELUDE = 'import math, copy, random, torch, torch.nn as nn, torch.nn.functional as F\nfrom collections import Counter\nfrom transformer_nb.core import *\nfrom transformer_nb.embeddings import *'   # the names the exercise's cell sees
_T29 = {   # label: (the exercise, the answer's code, what its message must say)
    'F.one_hot without num_classes: width max id + 1, not vocab': ('MyEmbeddings', '\nclass MyEmbeddings(nn.Module):\n    def __init__(self, vocab, d_model, pad_id=PAD_ID):\n        super().__init__()\n        self.E = nn.Parameter(torch.randn(vocab, d_model) * d_model ** -0.5)\n        with torch.no_grad(): self.E[pad_id] = 0.0\n        self.pad_id, self.scale = pad_id, math.sqrt(d_model)\n    def forward(self, tokens):\n        x, pad = F.one_hot(tokens).to(self.E.dtype) @ self.E, (tokens == self.pad_id)[..., None]\n        return torch.where(pad, x.detach(), x) * self.scale',
        'runs once the ids reach vocab - 1 = 49: a width taken from the ids, F.one_hot(tokens)'),
    'a uniform init of the right variance, not a normal one': ('MyEmbeddings', '\nclass MyEmbeddings(nn.Module):\n    def __init__(self, vocab, d_model, pad_id=PAD_ID):\n        super().__init__()\n        self.E = nn.Parameter((torch.rand(vocab, d_model) * 2 - 1) * (3 / d_model) ** 0.5)\n        with torch.no_grad(): self.E[pad_id] = 0.0\n        self.pad_id, self.scale = pad_id, math.sqrt(d_model)\n    def forward(self, tokens):\n        x, pad = self.E[tokens], (tokens == self.pad_id)[..., None]\n        return torch.where(pad, x.detach(), x) * self.scale',
        'not a normal distribution'),
    'the scale stored on the class: every instance takes the last one built': ('MyEmbeddings', '\nclass MyEmbeddings(nn.Module):\n    def __init__(self, vocab, d_model, pad_id=PAD_ID):\n        super().__init__()\n        self.E = nn.Parameter(torch.randn(vocab, d_model) * d_model ** -0.5)\n        with torch.no_grad(): self.E[pad_id] = 0.0\n        self.pad_id = pad_id; MyEmbeddings.scale = math.sqrt(d_model)\n    def forward(self, tokens):\n        x, pad = self.E[tokens], (tokens == self.pad_id)[..., None]\n        return torch.where(pad, x.detach(), x) * self.scale',
        'a value kept on the class (MyEmbeddings.scale = ...) or in a global is shared by every instance'),
    'E frozen (requires_grad=False), as a fixed table': ('MyEmbeddings', '\nclass MyEmbeddings(nn.Module):\n    def __init__(self, vocab, d_model, pad_id=PAD_ID):\n        super().__init__()\n        self.E = nn.Parameter(torch.randn(vocab, d_model) * d_model ** -0.5, requires_grad=False)\n        with torch.no_grad(): self.E[pad_id] = 0.0\n        self.pad_id, self.scale = pad_id, math.sqrt(d_model)\n    def forward(self, tokens):\n        x, pad = self.E[tokens], (tokens == self.pad_id)[..., None]\n        return torch.where(pad, x.detach(), x) * self.scale',
        'E does not require a gradient'),
    '(a variant) trunc normal 2 sigma': ('MyEmbeddings', '\nclass MyEmbeddings(nn.Module):\n    def __init__(self, vocab, d_model, pad_id=PAD_ID):\n        super().__init__()\n        self.E = nn.init.trunc_normal_(nn.Parameter(torch.empty(vocab, d_model)), std=d_model ** -0.5, a=-2 * d_model ** -0.5, b=2 * d_model ** -0.5)\n        with torch.no_grad(): self.E[pad_id] = 0.0\n        self.pad_id, self.scale = pad_id, math.sqrt(d_model)\n    def forward(self, tokens):\n        x, pad = self.E[tokens], (tokens == self.pad_id)[..., None]\n        return torch.where(pad, x.detach(), x) * self.scale',
        'a truncated draw (nn.init.trunc_normal_'),
    '(a variant) global scale': ('MyEmbeddings', '\nclass MyEmbeddings(nn.Module):\n    def __init__(self, vocab, d_model, pad_id=PAD_ID):\n        super().__init__()\n        self.E = nn.Parameter(torch.randn(vocab, d_model) * d_model ** -0.5)\n        with torch.no_grad(): self.E[pad_id] = 0.0\n        global SCALE; self.pad_id = pad_id; SCALE = math.sqrt(d_model)\n    def forward(self, tokens):\n        x, pad = self.E[tokens], (tokens == self.pad_id)[..., None]\n        return torch.where(pad, x.detach(), x) * SCALE',
        'or in a global is shared by every instance'),
    '(a variant) requires_grad_(False)': ('MyEmbeddings', '\nclass MyEmbeddings(nn.Module):\n    def __init__(self, vocab, d_model, pad_id=PAD_ID):\n        super().__init__()\n        self.E = nn.Parameter(torch.randn(vocab, d_model) * d_model ** -0.5)\n        with torch.no_grad(): self.E[pad_id] = 0.0\n        self.E.requires_grad_(False)\n        self.pad_id, self.scale = pad_id, math.sqrt(d_model)\n    def forward(self, tokens):\n        x, pad = self.E[tokens], (tokens == self.pad_id)[..., None]\n        return torch.where(pad, x.detach(), x) * self.scale',
        'E does not require a gradient'),
    '(a variant) no_grad forward': ('MyEmbeddings', '\nclass MyEmbeddings(nn.Module):\n    def __init__(self, vocab, d_model, pad_id=PAD_ID):\n        super().__init__()\n        self.E = nn.Parameter(torch.randn(vocab, d_model) * d_model ** -0.5)\n        with torch.no_grad(): self.E[pad_id] = 0.0\n        self.pad_id, self.scale = pad_id, math.sqrt(d_model)\n    @torch.no_grad()\n    def forward(self, tokens):\n        x, pad = self.E[tokens], (tokens == self.pad_id)[..., None]\n        return torch.where(pad, x.detach(), x) * self.scale',
        'torch.no_grad() around forward'),
    '(a variant) squeeze at end (MyEmbeddings)': ('MyEmbeddings', '\nclass MyEmbeddings(nn.Module):\n    def __init__(self, vocab, d_model, pad_id=PAD_ID):\n        super().__init__()\n        self.E = nn.Parameter(torch.randn(vocab, d_model) * d_model ** -0.5)\n        with torch.no_grad(): self.E[pad_id] = 0.0\n        self.pad_id, self.scale = pad_id, math.sqrt(d_model)\n    def forward(self, tokens):\n        x, pad = self.E[tokens], (tokens == self.pad_id)[..., None]\n        return (torch.where(pad, x.detach(), x) * self.scale).squeeze()',
        '.squeeze() without a dim drops every axis of size 1'),
}

@pytest.mark.parametrize('label', list(_T29))
def test_the_twenty_ninth_sets_misses_are_named(label):
    import re, torch
    ex, src, says = _T29[label]
    ns = {}
    exec(_T29_PRELUDE, ns); exec(src, ns)
    run = {'MyEmbeddings': lambda ns: _t29_check_my_embeddings(ns['MyEmbeddings'])}[ex]
    dtype, grad = torch.get_default_dtype(), torch.is_grad_enabled()
    try: _t29_rejects(lambda: run(ns), says=re.escape(says))
    finally: torch.set_default_dtype(dtype); torch.set_grad_enabled(grad)   # an answer that changes them must not change the next test


# ---------------------------------------------------------------- the thirty-third blind set's misses
from transformer_nb.course.embeddings import check_my_embeddings as _t33_check_my_embeddings
from nbtools import assert_rejects as _t33_rejects

_T33_PRELUDE = 'import math, copy, random, torch, torch.nn as nn, torch.nn.functional as F\nfrom collections import Counter\nfrom transformer_nb.core import *\nfrom transformer_nb.embeddings import *'   # the names the exercise's cell sees
_T33 = {   # label: (the exercise, the answer's code, what its message must say)
    'the padding row zeroed without no_grad: an in-place write on a leaf that requires grad': ('MyEmbeddings', '\nclass MyEmbeddings(nn.Module):\n    def __init__(self, vocab, d_model, pad_id=PAD_ID):\n        super().__init__()\n        self.E = nn.Parameter(torch.randn(vocab, d_model) * d_model ** -0.5)\n        self.E[pad_id] = 0.0\n        self.pad_id, self.scale = pad_id, math.sqrt(d_model)\n    def forward(self, tokens):\n        x, pad = self.E[tokens], (tokens == self.pad_id)[..., None]\n        return torch.where(pad, x.detach(), x) * self.scale',
        'zero the padding row under torch.no_grad()'),
    "fairseq's pad 1 as the default pad_id": ('MyEmbeddings', '\nclass MyEmbeddings(nn.Module):\n    def __init__(self, vocab, d_model, pad_id=1):\n        super().__init__()\n        self.E = nn.Parameter(torch.randn(vocab, d_model) * d_model ** -0.5)\n        with torch.no_grad(): self.E[pad_id] = 0.0\n        self.pad_id, self.scale = pad_id, math.sqrt(d_model)\n    def forward(self, tokens):\n        x, pad = self.E[tokens], (tokens == self.pad_id)[..., None]\n        return torch.where(pad, x.detach(), x) * self.scale',
        'your pad_id defaults to 1, not PAD_ID = 0'),
    'index_select(0, tokens): it takes a 1-d index only': ('MyEmbeddings', '\nclass MyEmbeddings(nn.Module):\n    def __init__(self, vocab, d_model, pad_id=PAD_ID):\n        super().__init__()\n        self.E = nn.Parameter(torch.randn(vocab, d_model) * d_model ** -0.5)\n        with torch.no_grad(): self.E[pad_id] = 0.0\n        self.pad_id, self.scale = pad_id, math.sqrt(d_model)\n    def forward(self, tokens):\n        x, pad = self.E.index_select(0, tokens), (tokens == self.pad_id)[..., None]\n        return torch.where(pad, x.detach(), x) * self.scale',
        "and runs on one sentence's 1-d ids: a lookup that takes a 1-d index"),
    "nn.Embedding.from_pretrained(self.E, freeze=False) in forward: the gradient goes to the new module's parameter, not E": ('MyEmbeddings', '\nclass MyEmbeddings(nn.Module):\n    def __init__(self, vocab, d_model, pad_id=PAD_ID):\n        super().__init__()\n        self.E = nn.Parameter(torch.randn(vocab, d_model) * d_model ** -0.5)\n        with torch.no_grad(): self.E[pad_id] = 0.0\n        self.pad_id, self.scale = pad_id, math.sqrt(d_model)\n    def forward(self, tokens):\n        return nn.Embedding.from_pretrained(self.E, freeze=False, padding_idx=self.pad_id)(tokens) * self.scale',
        'your output requires a gradient, but none reaches E'),
    'the pad mask (B, n) without its feature axis in torch.where': ('MyEmbeddings', '\nclass MyEmbeddings(nn.Module):\n    def __init__(self, vocab, d_model, pad_id=PAD_ID):\n        super().__init__()\n        self.E = nn.Parameter(torch.randn(vocab, d_model) * d_model ** -0.5)\n        with torch.no_grad(): self.E[pad_id] = 0.0\n        self.pad_id, self.scale = pad_id, math.sqrt(d_model)\n    def forward(self, tokens):\n        x, pad = self.E[tokens], (tokens == self.pad_id)\n        return torch.where(pad, x.detach(), x) * self.scale',
        'a (B, n) padding mask without a new axis lines up with'),
    '(a variant) the pad row filled in place with fill_ outside no_grad': ('MyEmbeddings', '\nclass MyEmbeddings(nn.Module):\n    def __init__(self, vocab, d_model, pad_id=PAD_ID):\n        super().__init__()\n        self.E = nn.Parameter(torch.randn(vocab, d_model) * d_model ** -0.5)\n        self.E[pad_id].fill_(0.0)\n        self.pad_id, self.scale = pad_id, math.sqrt(d_model)\n    def forward(self, tokens):\n        x, pad = self.E[tokens], (tokens == self.pad_id)[..., None]\n        return torch.where(pad, x.detach(), x) * self.scale',
        'zero the padding row under torch.no_grad()'),
    '(a variant) row 1 zeroed whatever pad_id is': ('MyEmbeddings', '\nclass MyEmbeddings(nn.Module):\n    def __init__(self, vocab, d_model, pad_id=PAD_ID):\n        super().__init__()\n        self.E = nn.Parameter(torch.randn(vocab, d_model) * d_model ** -0.5)\n        with torch.no_grad(): self.E[1] = 0.0\n        self.pad_id, self.scale = pad_id, math.sqrt(d_model)\n    def forward(self, tokens):\n        x, pad = self.E[tokens], (tokens == self.pad_id)[..., None]\n        return torch.where(pad, x.detach(), x) * self.scale',
        'yours zeroes row 1 instead'),
    '(a variant) a loop over the ids with int()': ('MyEmbeddings', '\nclass MyEmbeddings(nn.Module):\n    def __init__(self, vocab, d_model, pad_id=PAD_ID):\n        super().__init__()\n        self.E = nn.Parameter(torch.randn(vocab, d_model) * d_model ** -0.5)\n        with torch.no_grad(): self.E[pad_id] = 0.0\n        self.pad_id, self.scale = pad_id, math.sqrt(d_model)\n    def forward(self, tokens):\n        x, pad = torch.stack([self.E[int(i)] for i in tokens]), (tokens == self.pad_id)[..., None]\n        return torch.where(pad, x.detach(), x) * self.scale',
        "runs on one sentence's 1-d ids"),
    '(a variant) a detached copy made a leaf in forward': ('MyEmbeddings', '\nclass MyEmbeddings(nn.Module):\n    def __init__(self, vocab, d_model, pad_id=PAD_ID):\n        super().__init__()\n        self.E = nn.Parameter(torch.randn(vocab, d_model) * d_model ** -0.5)\n        with torch.no_grad(): self.E[pad_id] = 0.0\n        self.pad_id, self.scale = pad_id, math.sqrt(d_model)\n    def forward(self, tokens):\n        x, pad = self.E.detach().requires_grad_()[tokens], (tokens == self.pad_id)[..., None]\n        return torch.where(pad, x.detach(), x) * self.scale',
        'but none reaches E'),
    '(a variant) a float mask without its feature axis': ('MyEmbeddings', '\nclass MyEmbeddings(nn.Module):\n    def __init__(self, vocab, d_model, pad_id=PAD_ID):\n        super().__init__()\n        self.E = nn.Parameter(torch.randn(vocab, d_model) * d_model ** -0.5)\n        with torch.no_grad(): self.E[pad_id] = 0.0\n        self.pad_id, self.scale = pad_id, math.sqrt(d_model)\n    def forward(self, tokens):\n        x, pad = self.E[tokens], (tokens == self.pad_id)[..., None]\n        m = (tokens != self.pad_id).float()\n        return (x * m + x.detach() * (1 - m)) * self.scale',
        'a (B, n) padding mask without a new axis'),
    '(a variant) the ids clamped to vocab - 2: the last id reads the row before it': ('MyEmbeddings', '\nclass MyEmbeddings(nn.Module):\n    def __init__(self, vocab, d_model, pad_id=PAD_ID):\n        super().__init__()\n        self.E = nn.Parameter(torch.randn(vocab, d_model) * d_model ** -0.5)\n        with torch.no_grad(): self.E[pad_id] = 0.0\n        self.pad_id, self.scale, self.vocab = pad_id, math.sqrt(d_model), vocab\n    def forward(self, tokens):\n        tokens = tokens.clamp(max=self.vocab - 2)\n        x, pad = self.E[tokens], (tokens == self.pad_id)[..., None]\n        return torch.where(pad, x.detach(), x) * self.scale',
        'the last ids, up to vocab - 1 = 49, are rows of E too'),
}

@pytest.mark.parametrize('label', list(_T33))
def test_the_thirty_third_sets_misses_are_named(label):
    import re, torch
    ex, src, says = _T33[label]
    ns = {}
    exec(_T33_PRELUDE, ns); exec(src, ns)
    run = {'MyEmbeddings': lambda ns: _t33_check_my_embeddings(ns['MyEmbeddings'])}[ex]
    dtype, grad = torch.get_default_dtype(), torch.is_grad_enabled()
    try: _t33_rejects(lambda: run(ns), says=re.escape(says))
    finally: torch.set_default_dtype(dtype); torch.set_grad_enabled(grad)   # an answer that changes them must not change the next test


# ---------------------------------------------------------------- the thirty-seventh blind set's misses
from transformer_nb.course.embeddings import check_my_embeddings as _t37_check_my_embeddings
from nbtools import assert_rejects as _t37_rejects

_T37_PRELUDE = 'import math, copy, random, torch, torch.nn as nn, torch.nn.functional as F\nfrom collections import Counter\nfrom transformer_nb.core import *\nfrom transformer_nb.embeddings import *'   # the names the exercise's cell sees
_T37 = {   # label: (the exercise, the answer's code, what its message must say)
    'nn.init.normal_(E, d_model ** -0.5): the std passed as the mean': ('MyEmbeddings', '\nclass MyEmbeddings(nn.Module):\n    def __init__(self, vocab:int, d_model:int, pad_id:int=PAD_ID):\n        super().__init__()\n        self.E = nn.Parameter(torch.empty(vocab, d_model))\n        nn.init.normal_(self.E, d_model ** -0.5)\n        with torch.no_grad(): self.E[pad_id] = 0.0\n        self.pad_id, self.scale = pad_id, math.sqrt(d_model)\n    def forward(self, tokens):\n        x = self.E[tokens]\n        x = torch.where((tokens == self.pad_id).unsqueeze(-1), x.detach(), x)\n        return x * self.scale',
        'nn.init.normal_(E, d_model ** -0.5) passes 1/sqrt(d_model) as the mean, its second argument'),
    '(a variant) torch.nn.init.normal_(E, 1 / math.sqrt(d_model))': ('MyEmbeddings', '\nclass MyEmbeddings(nn.Module):\n    def __init__(self, vocab:int, d_model:int, pad_id:int=PAD_ID):\n        super().__init__()\n        self.E = nn.Parameter(torch.empty(vocab, d_model))\n        torch.nn.init.normal_(self.E, 1 / math.sqrt(d_model))\n        with torch.no_grad(): self.E[pad_id] = 0.0\n        self.pad_id, self.scale = pad_id, math.sqrt(d_model)\n    def forward(self, tokens):\n        x = self.E[tokens]\n        x = torch.where((tokens == self.pad_id).unsqueeze(-1), x.detach(), x)\n        return x * self.scale',
        'passes 1/sqrt(d_model) as the mean'),
    'torch.rand for torch.randn': ('MyEmbeddings', '\nclass MyEmbeddings(nn.Module):\n    def __init__(self, vocab:int, d_model:int, pad_id:int=PAD_ID):\n        super().__init__()\n        self.E = nn.Parameter(torch.rand(vocab, d_model) * d_model ** -0.5)\n        with torch.no_grad(): self.E[pad_id] = 0.0\n        self.pad_id, self.scale = pad_id, math.sqrt(d_model)\n    def forward(self, tokens):\n        x = self.E[tokens]\n        x = torch.where((tokens == self.pad_id).unsqueeze(-1), x.detach(), x)\n        return x * self.scale',
        'every entry is at least 0'),
    '(a variant) torch.rand(...) / math.sqrt(d_model)': ('MyEmbeddings', '\nclass MyEmbeddings(nn.Module):\n    def __init__(self, vocab:int, d_model:int, pad_id:int=PAD_ID):\n        super().__init__()\n        self.E = nn.Parameter(torch.rand(vocab, d_model) / math.sqrt(d_model))\n        with torch.no_grad(): self.E[pad_id] = 0.0\n        self.pad_id, self.scale = pad_id, math.sqrt(d_model)\n    def forward(self, tokens):\n        x = self.E[tokens]\n        x = torch.where((tokens == self.pad_id).unsqueeze(-1), x.detach(), x)\n        return x * self.scale',
        'torch.rand draws uniformly from [0, 1)'),
    "init std sqrt(d_model): the exponent's sign lost": ('MyEmbeddings', '\nclass MyEmbeddings(nn.Module):\n    def __init__(self, vocab:int, d_model:int, pad_id:int=PAD_ID):\n        super().__init__()\n        self.E = nn.Parameter(torch.randn(vocab, d_model) * d_model ** 0.5)\n        with torch.no_grad(): self.E[pad_id] = 0.0\n        self.pad_id, self.scale = pad_id, math.sqrt(d_model)\n    def forward(self, tokens):\n        x = self.E[tokens]\n        x = torch.where((tokens == self.pad_id).unsqueeze(-1), x.detach(), x)\n        return x * self.scale',
        "is sqrt(d_model) = 4: the exponent's sign is lost"),
    '(a variant) torch.randn(...) * math.sqrt(d_model)': ('MyEmbeddings', '\nclass MyEmbeddings(nn.Module):\n    def __init__(self, vocab:int, d_model:int, pad_id:int=PAD_ID):\n        super().__init__()\n        self.E = nn.Parameter(torch.randn(vocab, d_model) * math.sqrt(d_model))\n        with torch.no_grad(): self.E[pad_id] = 0.0\n        self.pad_id, self.scale = pad_id, math.sqrt(d_model)\n    def forward(self, tokens):\n        x = self.E[tokens]\n        x = torch.where((tokens == self.pad_id).unsqueeze(-1), x.detach(), x)\n        return x * self.scale',
        "the exponent's sign is lost"),
    'init std vocab ** -0.5': ('MyEmbeddings', '\nclass MyEmbeddings(nn.Module):\n    def __init__(self, vocab:int, d_model:int, pad_id:int=PAD_ID):\n        super().__init__()\n        self.E = nn.Parameter(torch.randn(vocab, d_model) * vocab ** -0.5)\n        with torch.no_grad(): self.E[pad_id] = 0.0\n        self.pad_id, self.scale = pad_id, math.sqrt(d_model)\n    def forward(self, tokens):\n        x = self.E[tokens]\n        x = torch.where((tokens == self.pad_id).unsqueeze(-1), x.detach(), x)\n        return x * self.scale',
        "is 1/sqrt(vocab) = 1/sqrt(50): the table's first size"),
    '(a variant) divided by math.sqrt(vocab)': ('MyEmbeddings', '\nclass MyEmbeddings(nn.Module):\n    def __init__(self, vocab:int, d_model:int, pad_id:int=PAD_ID):\n        super().__init__()\n        self.E = nn.Parameter(torch.randn(vocab, d_model) / math.sqrt(vocab))\n        with torch.no_grad(): self.E[pad_id] = 0.0\n        self.pad_id, self.scale = pad_id, math.sqrt(d_model)\n    def forward(self, tokens):\n        x = self.E[tokens]\n        x = torch.where((tokens == self.pad_id).unsqueeze(-1), x.detach(), x)\n        return x * self.scale',
        '1/sqrt(vocab)'),
    'Kaiming-normal init': ('MyEmbeddings', '\nclass MyEmbeddings(nn.Module):\n    def __init__(self, vocab:int, d_model:int, pad_id:int=PAD_ID):\n        super().__init__()\n        self.E = nn.Parameter(torch.empty(vocab, d_model))\n        nn.init.kaiming_normal_(self.E)\n        with torch.no_grad(): self.E[pad_id] = 0.0\n        self.pad_id, self.scale = pad_id, math.sqrt(d_model)\n    def forward(self, tokens):\n        x = self.E[tokens]\n        x = torch.where((tokens == self.pad_id).unsqueeze(-1), x.detach(), x)\n        return x * self.scale',
        "Kaiming's (He's) normal init"),
    '(a variant) std sqrt(2 / d_model) by hand': ('MyEmbeddings', '\nclass MyEmbeddings(nn.Module):\n    def __init__(self, vocab:int, d_model:int, pad_id:int=PAD_ID):\n        super().__init__()\n        self.E = nn.Parameter(torch.randn(vocab, d_model) * math.sqrt(2 / d_model))\n        with torch.no_grad(): self.E[pad_id] = 0.0\n        self.pad_id, self.scale = pad_id, math.sqrt(d_model)\n    def forward(self, tokens):\n        x = self.E[tokens]\n        x = torch.where((tokens == self.pad_id).unsqueeze(-1), x.detach(), x)\n        return x * self.scale',
        'sqrt(2) times 1/sqrt(d_model)'),
    'padding found as all-zero embeddings': ('MyEmbeddings', '\nclass MyEmbeddings(nn.Module):\n    def __init__(self, vocab:int, d_model:int, pad_id:int=PAD_ID):\n        super().__init__()\n        self.E = nn.Parameter(torch.randn(vocab, d_model) * d_model ** -0.5)\n        with torch.no_grad(): self.E[pad_id] = 0.0\n        self.scale = math.sqrt(d_model)\n    def forward(self, tokens):\n        x = self.E[tokens]\n        pad = (x == 0).all(-1, keepdim=True)        # the padding row is the zero row\n        return torch.where(pad, x.detach(), x) * self.scale',
        "and got none while it was zero: your padding test looks at the embeddings' values (a zero row), not at the ids"),
    '(a variant) padding found by a zero row sum': ('MyEmbeddings', '\nclass MyEmbeddings(nn.Module):\n    def __init__(self, vocab:int, d_model:int, pad_id:int=PAD_ID):\n        super().__init__()\n        self.E = nn.Parameter(torch.randn(vocab, d_model) * d_model ** -0.5)\n        with torch.no_grad(): self.E[pad_id] = 0.0\n        self.scale = math.sqrt(d_model)\n    def forward(self, tokens):\n        x = self.E[tokens]\n        return torch.where(x.abs().sum(-1, keepdim=True) == 0, x.detach(), x) * self.scale',
        "your padding test looks at the embeddings' values"),
    '(another kind) uniform on [-1/sqrt(d_model), 1/sqrt(d_model)]': ('MyEmbeddings', '\nclass MyEmbeddings(nn.Module):\n    def __init__(self, vocab:int, d_model:int, pad_id:int=PAD_ID):\n        super().__init__()\n        self.E = nn.Parameter((torch.rand(vocab, d_model) * 2 - 1) / math.sqrt(d_model))\n        with torch.no_grad(): self.E[pad_id] = 0.0\n        self.pad_id, self.scale = pad_id, math.sqrt(d_model)\n    def forward(self, tokens):\n        x = self.E[tokens]\n        x = torch.where((tokens == self.pad_id).unsqueeze(-1), x.detach(), x)\n        return x * self.scale',
        'the entries are uniform, none beyond'),
    '(another kind) whole numbers from torch.randint': ('MyEmbeddings', '\nclass MyEmbeddings(nn.Module):\n    def __init__(self, vocab:int, d_model:int, pad_id:int=PAD_ID):\n        super().__init__()\n        self.E = nn.Parameter(torch.randint(-1, 2, (vocab, d_model)).float())\n        with torch.no_grad(): self.E[pad_id] = 0.0\n        self.pad_id, self.scale = pad_id, math.sqrt(d_model)\n    def forward(self, tokens):\n        x = self.E[tokens]\n        x = torch.where((tokens == self.pad_id).unsqueeze(-1), x.detach(), x)\n        return x * self.scale',
        'whole numbers (torch.randint)'),
}

@pytest.mark.parametrize('label', list(_T37))
def test_the_thirty_seventh_sets_misses_are_named(label):
    import re, torch
    ex, src, says = _T37[label]
    ns = {}
    exec(_T37_PRELUDE, ns); exec(src, ns)
    run = {'MyEmbeddings': lambda ns: _t37_check_my_embeddings(ns['MyEmbeddings'])}[ex]
    dtype, grad = torch.get_default_dtype(), torch.is_grad_enabled()
    try: _t37_rejects(lambda: run(ns), says=re.escape(says))
    finally: torch.set_default_dtype(dtype); torch.set_grad_enabled(grad)   # an answer that changes them must not change the next test


# ---------------------------------------------------------------- the comparisons' tolerance: the rounding of the embeddings' own sums, on any CPU
def test_check_my_embeddings_passes_gradients_summed_by_a_matmul_and_refuses_a_learning_padding_row(capsys):
    "The outputs and gradients are compared at the rounding of their own computation: a one-hot product in float64, cast back (each "
    "row's gradient summed by a matmul, in another order than nn.Embedding's), passes; the same with the padding row left to learn is refused."
    ns = check_ns(solution_5())
    class OneHot(ns['MyEmbeddings']):
        def forward(self, tokens):
            E = torch.where((torch.arange(len(self.E)) == self.pad_id)[:, None], self.E.detach(), self.E)   # the padding row learns nothing
            return (F.one_hot(tokens, len(self.E)).double() @ (E.double() * self.scale)).to(self.E.dtype)
    assert ns['check_my_embeddings'](OneHot) is True
    assert 'MyEmbeddings matches Embeddings' in capsys.readouterr().out
    class PadLearns(ns['MyEmbeddings']):
        def forward(self, tokens): return (F.one_hot(tokens, len(self.E)).double() @ (self.E.double() * self.scale)).to(self.E.dtype)
    assert_rejects(ns['check_my_embeddings'], PadLearns, says=r"^Not yet: a zero padding row: .*padding")
