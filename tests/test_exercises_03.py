"""03_ffn's exercises, proven away from the learner: exercise 5's check (transformer_nb.course.ffn, taught in course_ffn) passes
the printed solution and another right answer, reports the stub as not written yet, and refuses every wrong variant
with a message that names the case and the likely mistake (d_model and d_ff swapped included); each "break it" solution names exactly the checks that fail when its change is made to the library.
The checks and solutions run in namespaces of their own (tests/nbtools.py), never in the notebook's."""
import pytest, torch
import torch.nn as nn
from nbtools import assert_break_it_exercise, assert_no_cell_runs_a_solution, assert_rejects, assert_stub_reported, exercise_code, namespace
from transformer_nb.course.ffn import check_conv_to_ffn

NB, EXERCISES, MODULE, TESTS = '03_ffn', 'c57e0dc7', '052f2c30', 'tests/test_blocks.py'

def test_no_cell_runs_a_solution_or_rebinds_the_learners_names():
    assert_no_cell_runs_a_solution(NB, 'conv_to_ffn')

# ---------------------------------------------------------------- exercise 5: check_conv_to_ffn
def check_ns(*more): return namespace(NB, MODULE, *more)          # the notebook's own FeedForward, as the learner's answer uses

def test_check_conv_to_ffn_passes_right_answers(capsys):
    ns = check_ns()
    exec(exercise_code(NB, EXERCISES, 5), ns)                               # the printed solution
    assert ns['check_conv_to_ffn'](ns['conv_to_ffn']) is True
    def other(conv):                                                        # another right answer: a state dict
        f = ns['FeedForward'](conv[0].in_channels, conv[0].out_channels)
        f.load_state_dict({'w_1.weight': conv[0].weight.squeeze(-1), 'w_1.bias': conv[0].bias,
                           'w_2.weight': conv[2].weight.squeeze(-1), 'w_2.bias': conv[2].bias})
        return f
    assert ns['check_conv_to_ffn'](other) is True
    assert capsys.readouterr().out.count('computes what the convolutions compute') == 2

def test_check_conv_to_ffn_reports_the_stub(capsys):
    ns = check_ns('c3f0e003')                                               # the stub cell calls the check itself
    assert_stub_reported(ns, 'check_conv_to_ffn', 'conv_to_ffn', capsys)

def wrong(kind:str):
    ns = check_ns()
    FF = ns['FeedForward']
    def f(conv):
        d_ff, d_model, _ = conv[0].weight.shape
        if kind == 'swapped reading': d_model, d_ff = d_ff, d_model          # (in, out, 1) read from an (out, in, 1) weight
        out = FF(d_ff, d_model) if kind == 'swapped build' else FF(d_model, d_ff) if kind != 'sequential' else nn.Sequential(nn.Linear(d_model, d_ff), nn.ReLU(), nn.Linear(d_ff, d_model))
        if kind == 'sequential': return out
        with torch.no_grad():
            for lin, c in zip((out.w_1, out.w_2), (conv[0], conv[2])):
                w = c.weight[:, :, 0]
                if kind == 'transposed':
                    if w.shape[0] != w.shape[1]: lin.weight = nn.Parameter(w.T.clone())
                    else: lin.weight.copy_(w.T)
                else: lin.weight.copy_(w)
                if kind != 'no biases': lin.bias.copy_(c.bias)
        return out
    return ns, f

@pytest.mark.parametrize('kind, message', [
    ('no biases', r"d_model=16, d_ff=64: the outputs differ by .*; w_1.bias is still all zero: it was not copied from conv\[0\].bias; w_2.bias is still all zero"),
    ('transposed', r"d_model=16, d_ff=64: w_1.weight has shape \(16, 64\); expected \(d_ff, d_model\) = \(64, 16\).*\(no transpose\)"),
    ('sequential', r"d_model=16, d_ff=64: return a FeedForward, not Sequential"),
    ('swapped build', r"^Not yet: d_model=16, d_ff=64: d_model and d_ff are swapped: a Conv1d weight is \(out, in, 1\)"),
    ('swapped reading', r"^Not yet: d_model=16, d_ff=64: d_model and d_ff are swapped"),
])
def test_check_conv_to_ffn_names_each_mistake(kind, message):
    ns, f = wrong(kind)
    assert_rejects(check_conv_to_ffn, f, says=message)

def test_a_swap_with_new_parameters_is_named_from_the_layer_sizes():
    "FeedForward(d_ff, d_model) given new parameters in place of copies runs, and is still named from its in/out features."
    ns = check_ns()
    def f(conv):
        d_ff, d_model, _ = conv[0].weight.shape
        out = ns['FeedForward'](d_ff, d_model)
        for lin, c in zip((out.w_1, out.w_2), (conv[0], conv[2])): lin.weight, lin.bias = nn.Parameter(c.weight[:, :, 0].clone()), nn.Parameter(c.bias.clone())
        return out
    assert_rejects(check_conv_to_ffn, f, says=r"d_model=16, d_ff=64: d_model and d_ff are swapped")

def test_a_transposed_square_weight_is_named_by_its_values():
    ns, f = wrong('transposed')
    def square_only(conv):                                                  # only the (8, 8) case reaches the values
        return f(conv) if conv[0].weight.shape[0] == conv[0].weight.shape[1] else ns['conv_to_ffn_right'](conv)
    exec(exercise_code(NB, EXERCISES, 5).replace('def conv_to_ffn', 'def conv_to_ffn_right'), ns)
    assert_rejects(check_conv_to_ffn, square_only, says=r"d_model=8, d_ff=8: the outputs differ by .*; w_1.weight and w_2.weight were transposed: nn.Linear stores \(out, in\)")

# ---------------------------------------------------------------- the "break it" exercises
BREAK = {
    1: dict(cell=MODULE, module='ffn', old="return F.relu(self.w_1(x))",
            new="return self.w_1(x)",
            cells={'49c2dd43': "the test right after FeedForward", '8a84606f': "the dropout cell's evaluation-mode check",
                   'ade98086': "the test after ffn_as_conv1d", '1d81ed92': "the sparsity measurement, which reads `hidden`"},
            tests={'test_ffn_matches_numpy_reference', 'test_ffn_equals_two_kernel_size_1_convolutions_values_and_grads',
                   'test_ffn_inner_dropout_only_in_training'}),
    2: dict(cell='0aafd592', module='ffn', old="nn.Conv1d(d_model, d_ff, kernel_size=1)",
            new="nn.Conv1d(d_model, d_ff, kernel_size=3, padding=1)",
            cells={'ade98086': "the test after ffn_as_conv1d"},
            tests={'test_ffn_equals_two_kernel_size_1_convolutions_values_and_grads'}),
}

@pytest.mark.slow
@pytest.mark.parametrize('n', BREAK)
def test_break_it_solution_names_exactly_the_checks_that_fail(n):
    assert_break_it_exercise(NB, EXERCISES, n, TESTS, **BREAK[n])

# ---------------------------------------------------------------- fresh wrong answers, written as new learners would
from transformer_nb.ffn import FeedForward
from transformer_nb.course import ffn as _ex
FRESH = {}   # label: (checker, answer, the words its message must contain)
def add(checker, label, kw, *args): FRESH[checker, label] = args

# 03 conv_to_ffn: each answer and the words its message must contain
def _ffn(conv):
    d_ff, d_model = conv[0].weight.shape[:2]; return FeedForward(d_model, d_ff)
def cf_noT(conv):
    f = _ffn(conv)
    with torch.no_grad():
        f.w_1.weight.copy_(conv[0].weight.squeeze(-1)); f.w_1.bias.copy_(conv[0].bias)
        f.w_2.weight.copy_(conv[2].weight.squeeze(-1).T.reshape(f.w_2.weight.shape)); f.w_2.bias.copy_(conv[2].bias)
    return f
add('check_conv_to_ffn', 'w_2 transposed and reshaped', ['transpose', 'w_2', 'layout', '(out, in'], cf_noT)
def cf_nobias(conv):
    f = _ffn(conv)
    with torch.no_grad():
        f.w_1.weight.copy_(conv[0].weight[..., 0]); f.w_2.weight.copy_(conv[2].weight[..., 0])
    return f
add('check_conv_to_ffn', 'forgets biases', ['bias'], cf_nobias)
def cf_swap(conv):
    f = _ffn(conv)
    with torch.no_grad():
        f.w_1.weight.copy_(conv[0].weight[..., 0]); f.w_1.bias.copy_(conv[0].bias)
        f.w_2.weight.copy_(conv[2].weight[..., 0]); f.w_2.bias.zero_()
    return f
add('check_conv_to_ffn', 'second bias zeroed', ['bias', 'b_2', 'second'], cf_swap)
def cf_share(conv):
    f = _ffn(conv)
    f.w_1.weight = nn.Parameter(conv[0].weight[..., 0]); f.w_1.bias = conv[0].bias
    f.w_2.weight = nn.Parameter(conv[2].weight[..., 0]); f.w_2.bias = conv[2].bias
    return f
add('check_conv_to_ffn', "shares the convolutions' tensors", ['memory', 'copy'], cf_share)   # the same function, but training one changes the other
def cf_fixed(conv):
    f = FeedForward(512, 2048)
    with torch.no_grad():
        f.w_1.weight[:conv[0].weight.shape[0], :conv[0].weight.shape[1]] = conv[0].weight[..., 0]
    return f
add('check_conv_to_ffn', 'hard-codes 512/2048', ['size', 'd_model', 'd_ff', 'shape'], cf_fixed)
def cf_seq(conv):
    l1, l2 = nn.Linear(conv[0].in_channels, conv[0].out_channels), nn.Linear(conv[2].in_channels, conv[2].out_channels)
    with torch.no_grad():
        l1.weight.copy_(conv[0].weight[..., 0]); l1.bias.copy_(conv[0].bias); l2.weight.copy_(conv[2].weight[..., 0]); l2.bias.copy_(conv[2].bias)
    return nn.Sequential(l1, nn.ReLU(), l2)
add('check_conv_to_ffn', 'returns nn.Sequential not FeedForward', ['feedforward', 'sequential'], cf_seq)
def cf_nodtype(conv):
    f = _ffn(conv)
    with torch.no_grad():
        f.w_1.weight.copy_(conv[0].weight.mean(-1)); f.w_1.bias.copy_(conv[0].bias)
        f.w_2.weight.copy_(conv[2].weight.sum(-1) / 2); f.w_2.bias.copy_(conv[2].bias)
    return f
add('check_conv_to_ffn', 'halves w_2 (thinks of kernel taps)', ['w_2', 'scale', 'weight'], cf_nodtype)
SAYS_CHECK_CONV_TO_FFN = {
"w_2 transposed and reshaped": r"w_2\.weight holds the convolution's entries in another order: \.reshape or \.view keeps the memory order",
"forgets biases": r"w_1\.bias is still all zero: it was not copied from conv\[0\]\.bias; w_2\.bias is still all zero: it was not copied from conv\[2\]\.bias",
"second bias zeroed": r"the outputs differ by 0\.11; w_2\.bias is still all zero: it was not copied from conv\[2\]\.bias",
"hard-codes 512/2048": "expected\\ \\(d_ff,\\ d_model\\)\\ =\\ \\(64,\\ 16\\),\\ the\\ Conv1d\\ weight\\ \\(out,\\ in,\\ 1\\)\\ without\\ its\\ last\\ axis\\ ",
"returns nn.Sequential not FeedForward": "return\\ a\\ FeedForward,\\ not\\ Sequential",
"halves w_2 (thinks of kernel taps)": r"the outputs differ by 0\.37; w_2\.weight is conv\[2\]\.weight times 0\.5",
"shares the convolutions' tensors": r"^Not yet: d_model=16, d_ff=64: your FeedForward's w_1\.weight shares its memory with the convolutions' 0\.weight .*training one would change the other",
}

@pytest.mark.parametrize('label', list(SAYS_CHECK_CONV_TO_FFN))
def test_fresh_wrong_answers_named_by_check_conv_to_ffn(label):
    "Each wrong answer a new learner writes is refused, with a message that names its mistake."
    assert_rejects(_ex.check_conv_to_ffn, *FRESH['check_conv_to_ffn', label], says=SAYS_CHECK_CONV_TO_FFN[label])

# ---------------------------------------------------------------- the convolutions crossed, their weights transposed
def _c2f(first=0, second=2, transpose=False):
    def conv_to_ffn(conv):
        d_ff, d_model, _ = conv[0].weight.shape
        ffn = FeedForward(d_model, d_ff)
        with torch.no_grad():
            for lin, c in zip((ffn.w_1, ffn.w_2), (conv[first], conv[second])):
                w = c.weight[:, :, 0]
                lin.weight.copy_(w.T if transpose else w); lin.bias.copy_(c.bias)
        return ffn
    return conv_to_ffn

@pytest.mark.parametrize('wrong, says', [
    (_c2f(2, 0), r"^Not yet: d_model=16, d_ff=64: w_1 was copied from conv\[2\] and w_2 from conv\[0\]: w_1 is the first convolution"),
    (_c2f(transpose=True), r"^Not yet: d_model=16, d_ff=64: w_1.weight and w_2.weight were transposed: nn.Linear stores \(out, in\), as Conv1d does"),
], ids=['convolutions crossed', 'weights transposed'])
def test_check_conv_to_ffn_names_convolutions_crossed_or_transposed(wrong, says):
    assert_rejects(check_conv_to_ffn, wrong, says=says)


def _c2f_named(conv, squeeze=True, second=2):
    "conv_to_ffn; `squeeze=False` copies the (out, in, 1) weights as they are, `second=1` takes the ReLU for the second convolution."
    d_ff, d_model, _ = conv[0].weight.shape; ffn = _ex.FeedForward(d_model, d_ff)
    with torch.no_grad():
        for lin, c in zip((ffn.w_1, ffn.w_2), (conv[0], conv[second])): lin.weight.copy_(c.weight[:, :, 0] if squeeze else c.weight); lin.bias.copy_(c.bias)
    return ffn

def test_the_kernel_axis_kept_and_the_relu_copied_are_named():
    assert _ex.check_conv_to_ffn(_c2f_named) is True
    assert_rejects(_ex.check_conv_to_ffn, lambda conv: _c2f_named(conv, squeeze=False),
                   says=r"raised RuntimeError \(.*\): a Conv1d weight is \(out, in, 1\), an nn\.Linear weight \(out, in\): drop the kernel axis, weight\[:, :, 0\]")
    assert_rejects(_ex.check_conv_to_ffn, lambda conv: _c2f_named(conv, second=1),
                   says=r"raised AttributeError \('ReLU' object has no attribute 'weight'\): conv\[1\] is the ReLU, which has no weights; the convolutions are conv\[0\] and conv\[2\]")

# ---------------------------------------------------------------- mistakes nobody listed, named by what the answer does
from transformer_nb.ffn import FeedForward as _FFN

def _c2f_by(body):
    "A conv_to_ffn that builds FeedForward(d_model, d_ff) and fills it with `body(f, conv)`."
    def conv_to_ffn(conv):
        d_ff, d_model, _ = conv[0].weight.shape; f = _FFN(d_model, d_ff); body(f, conv); return f
    return conv_to_ffn

def _copy_all(f, c, b1=None, b2=None):
    with torch.no_grad():
        f.w_1.weight.copy_(c[0].weight[..., 0]); f.w_2.weight.copy_(c[2].weight[..., 0])
        f.w_1.bias.copy_(c[0].bias if b1 is None else b1); f.w_2.bias.copy_(c[2].bias if b2 is None else b2)

def _grab(f, c):
    c[0].weight.data = c[0].weight.data[..., 0]; _copy_all(f, c)

@pytest.mark.parametrize('body, says', [
    (lambda f, c: f.w_1.weight.copy_(c[0].weight[..., 0]), r"d_model=16, d_ff=64: raised RuntimeError \(a leaf Variable.*\): .* do it under torch\.no_grad\(\)"),
    (lambda f, c: setattr(f.w_1, 'weight', c[0].weight[..., 0]), r"raised TypeError \(cannot assign .*\): a layer's weight must stay an nn\.Parameter"),
    (lambda f, c: _copy_all(f, c, b1=c[2].bias, b2=c[0].bias), r"d_model=16, d_ff=64: w_1\.bias holds conv\[2\]\.bias, not conv\[0\]\.bias; w_2\.bias holds conv\[0\]\.bias"),
    (_grab, r"d_model=16, d_ff=64: conv_to_ffn changed the convolutions' 0\.weight: .*leave conv as it was"),
    (lambda f, c: _copy_all(f, c, b2=c[2].bias * 3), r"the outputs differ by .*; w_2\.bias is conv\[2\]\.bias times 3"),
])
def test_conv_to_ffn_mistakes_nobody_listed_are_named_by_property(body, says):
    assert_rejects(check_conv_to_ffn, _c2f_by(body), says=says)

def test_conv_to_ffn_by_squeeze_passes():
    assert check_conv_to_ffn(_c2f_by(_copy_all)) is True


# ---------------------------------------------------------------- more mistakes, each named by what the answer does
import transformer_nb.course.ffn as _named

def _ffn_with(w1, w2, b1, b2):
    "conv_to_ffn that fills FeedForward's weights and biases with `w1(conv)`, `w2(conv)`, `b1(conv)`, `b2(conv)`."
    def conv_to_ffn(conv):
        d_ff, d_model, _ = conv[0].weight.shape
        f = _FFN(d_model, d_ff)
        with torch.no_grad():
            for p, get in ((f.w_1.weight, w1), (f.w_2.weight, w2), (f.w_1.bias, b1), (f.w_2.bias, b2)): p.copy_(get(conv))
        return f
    return conv_to_ffn

_W0, _W2 = (lambda c: c[0].weight[:, :, 0]), (lambda c: c[2].weight[:, :, 0])
_B0, _B2 = (lambda c: c[0].bias), (lambda c: c[2].bias)

@pytest.mark.parametrize('answer, says', [
    (_ffn_with(lambda c: _W2(c).T, lambda c: _W0(c).T, _B0, _B2), r"w_1\.weight holds conv\[2\]\.weight transposed, not conv\[0\]\.weight; w_2\.weight holds conv\[0\]\.weight transposed"),
    (_ffn_with(_W0, _W2, _B0, lambda c: c[0].bias[:c[2].bias.numel()]), r"w_2\.bias holds the first 16 entries of conv\[0\]\.bias, not conv\[2\]\.bias"),
    (_ffn_with(lambda c: _W0(c).T.reshape(_W0(c).shape), lambda c: _W2(c).reshape(_W2(c).shape[::-1]).T, _B0, _B2),
     r"w_1\.weight and w_2\.weight hold the convolution's entries in another order: \.reshape or \.view keeps the memory order"),
])
def test_copies_from_the_wrong_place_are_named(answer, says):
    assert_rejects(_named.check_conv_to_ffn, answer, says=says)

@pytest.mark.parametrize('answer, says', [
    (_ffn_with(_W0, _W2, lambda c: _B0(c).flip(0), _B2), r"the outputs differ by .*; w_1\.bias is conv\[0\]\.bias in reverse order \(flipped, as \[::-1\] or \.flip does\)"),
    (_ffn_with(_W0, lambda c: _W2(c).flip(0), _B0, _B2), r"w_2\.weight is conv\[2\]\.weight in reverse order"),
    (_ffn_with(_W0, _W2, _B0, lambda c: _B2(c).roll(1)), r"w_2\.bias holds conv\[2\]\.bias's entries in another order: copy it as it is, entry for entry"),
])
def test_a_parameter_copied_in_another_order_is_named(answer, says):
    assert_rejects(_named.check_conv_to_ffn, answer, says=says)

@pytest.mark.parametrize('which, says', [
    ('w_2.bias', r"^Not yet: d_model=16, d_ff=64: w_2.bias has shape \(64,\), not \(16,\): it holds conv\[0\].bias; w_2.bias comes from conv\[2\].bias"),
    ('w_1.bias', r"^Not yet: d_model=16, d_ff=64: w_1.bias has shape \(16,\), not \(64,\): it holds conv\[2\].bias; w_1.bias comes from conv\[0\].bias")])
def test_a_bias_taken_from_the_other_convolution_is_named(which, says):
    "A bias assigned from the other convolution: its shape is wrong, so the FeedForward cannot run; the line names the tensor it holds."
    def slip(conv):
        d_ff, d_model, _ = conv[0].weight.shape
        f = FeedForward(d_model, d_ff)
        f.w_1.weight, f.w_2.weight = nn.Parameter(conv[0].weight[:, :, 0]), nn.Parameter(conv[2].weight[:, :, 0])
        f.w_1.bias, f.w_2.bias = (conv[2].bias, conv[2].bias) if which == 'w_1.bias' else (conv[0].bias, conv[0].bias)
        return f
    assert_rejects(check_conv_to_ffn, slip, says=says)

# ---------------------------------------------------------------- slips of later blind answers, named by property
def _copied(conv, f=None, take=lambda w: w.squeeze()):
    f = f or _FFN(conv[0].in_channels, conv[0].out_channels)
    with torch.no_grad():
        f.w_1.weight.copy_(take(conv[0].weight)); f.w_1.bias.copy_(conv[0].bias)
        f.w_2.weight.copy_(take(conv[2].weight)); f.w_2.bias.copy_(conv[2].bias)
    return f

@pytest.mark.parametrize('answer, says', [
    (_copied, r"d_model=4, d_ff=1: raised RuntimeError .*: a squeeze\(\) drops every axis of size 1, here d_ff = 1 too; drop the kernel axis alone"),
    (lambda conv: _copied(conv, _FFN()), r"d_model=16, d_ff=64: raised RuntimeError .*: it runs for d_model=512, d_ff=2048 alone: FeedForward\(\) keeps its default sizes"),
])
def test_check_conv_to_ffn_names_a_squeeze_of_a_size_1_and_default_sizes(answer, says):
    assert_rejects(check_conv_to_ffn, answer, says=says)
    assert check_conv_to_ffn(lambda conv: _copied(conv, take=lambda w: w[..., 0])) is True

# ---------------------------------------------------------------- the layers swapped through a reshape; d_ff read from the last convolution
def _swapped_reshaped(conv):
    "w_1 from conv[2] and w_2 from conv[0], each reshaped to fit; a bias copied only where the sizes agree (none here)."
    d_ff, d_model, _ = conv[0].weight.shape
    f = _FFN(d_model, d_ff)
    with torch.no_grad():
        for lin, c in ((f.w_1, conv[2]), (f.w_2, conv[0])):
            lin.weight.copy_(c.weight[:, :, 0].reshape(lin.weight.shape))
            if c.bias.numel() == lin.bias.numel(): lin.bias.copy_(c.bias)
    return f

def test_layers_swapped_through_a_reshape_and_d_ff_from_the_last_convolution_are_named():
    assert_rejects(check_conv_to_ffn, _swapped_reshaped, says=r"d_model=16, d_ff=64: the outputs differ by .*; w_1.weight holds conv\[2\].weight reshaped to "
                   r"\(64, 16\), not conv\[0\].weight; .*w_2.weight holds conv\[0\].weight reshaped to \(16, 64\), not conv\[2\].weight")
    last = lambda conv: _copied(conv, _FFN(conv[0].in_channels, conv[2].out_channels), take=lambda w: w[..., 0])
    assert_rejects(check_conv_to_ffn, last, says=r"d_model=16, d_ff=64: raised RuntimeError .*: you built FeedForward\(16, 16\): d_ff is the first "
                   r"convolution's out_channels, conv\[0\].weight.shape\[0\] = 64")
    assert check_conv_to_ffn(lambda conv: _copied(conv, take=lambda w: w[..., 0])) is True

# ---------------------------------------------------------------- a float64 copy; biases flattened to their mean
def _ffn_copy(conv, dtype=None, mean_bias=False):
    "A FeedForward copied from `conv`, cast to `dtype`, or with each bias replaced by its mean in every entry."
    d_ff, d_model = conv[0].weight.shape[:2]; f = FeedForward(d_model, d_ff)
    with torch.no_grad():
        for lin, c in ((f.w_1, conv[0]), (f.w_2, conv[2])):
            lin.weight.copy_(c.weight[..., 0]); lin.bias.copy_(c.bias.mean().expand_as(c.bias) if mean_bias else c.bias)
    return f.to(dtype) if dtype else f

@pytest.mark.parametrize('answer, says', [
    (lambda conv: _ffn_copy(conv, dtype=torch.float64), r"d_model=16, d_ff=64: your FeedForward's parameters are torch.float64, the convolutions' "
                                                      r"torch.float32: keep their dtype \(no .double\(\) or .half\(\)\)"),
    (lambda conv: _ffn_copy(conv, mean_bias=True), r"d_model=16, d_ff=64: .*w_1.bias holds one number, .*, in every entry \(the mean of conv\[0\].bias\): "
                                                 r"copy conv\[0\].bias entry for entry; w_2.bias holds one number"),
])
def test_a_cast_copy_and_biases_flattened_to_their_mean_are_named(answer, says):
    assert_rejects(check_conv_to_ffn, answer, says=says)
    assert check_conv_to_ffn(_ffn_copy) is True

# ---------------------------------------------------------------- a fresh blind set: wrong answers written before reading the messages
import re as _n9re
from nbtools import assert_rejects as _n9_rejects
from transformer_nb.course.ffn import check_conv_to_ffn as _n9_c2f
from transformer_nb.ffn import FeedForward as _n9_FF
def _n9_ffn(conv, b1=True, b2=True, copy=True):
    d_ff, d_model, _ = conv[0].weight.shape; f = _n9_FF(d_model, d_ff)
    if copy:
        with torch.no_grad():
            f.w_1.weight.copy_(conv[0].weight[:, :, 0]); f.w_2.weight.copy_(conv[2].weight[:, :, 0])
            if b1: f.w_1.bias.copy_(conv[0].bias)
            if b2: f.w_2.bias.copy_(conv[2].bias)
    return f
NINTH = [('second bias not copied', _n9_c2f, (lambda conv: _n9_ffn(conv, b2=False),), "w_2.bias is still all zero: it was not copied from conv[2].bias"),
         ('first bias not copied', _n9_c2f, (lambda conv: _n9_ffn(conv, b1=False),), "w_1.bias is still all zero: it was not copied from conv[0].bias"),
         ('nothing copied', _n9_c2f, (lambda conv: _n9_ffn(conv, copy=False),), "none of w_1, w_2 and their biases holds any of the convolutions' numbers: the copy never reached")]
def _n9_no_relu(conv):
    f = _n9_ffn(conv); return nn.Sequential(f.w_1, f.w_2)
NINTH += [('a Sequential without the ReLU', _n9_c2f, (_n9_no_relu,), "return a FeedForward, not Sequential")]
def _n9_swapped(conv):
    d_ff, d_model, _ = conv[0].weight.shape; f = _n9_FF(d_model, d_ff)
    with torch.no_grad(): f.w_1.weight.copy_(conv[2].weight[:, :, 0].T); f.w_2.weight.copy_(conv[0].weight[:, :, 0].T)
    return f
NINTH += [('the two convolutions swapped', _n9_c2f, (_n9_swapped,), "w_1.weight holds conv[2].weight transposed, not conv[0].weight")]

@pytest.mark.parametrize('label', [c[0] for c in NINTH])
def test_ninth_blind_answers_named(label):
    "Each answer of the blind set is refused with a message that names its mistake."
    _, check, answer, words = next(c for c in NINTH if c[0] == label)
    _n9_rejects(check, *answer, says=_n9re.escape(words))

# ---------------------------------------------------------------- the seventeenth blind set's misses
import contextlib
def _c2f17(conv, frozen=False, bias=True, gelu=False):
    "conv_to_ffn, right, or with one of the seventeenth set's slips: parameters frozen before an untracked copy, no biases, GELU."
    from transformer_nb.ffn import FeedForward
    d_ff, d_model, _ = conv[0].weight.shape
    f = FeedForward(d_model, d_ff).requires_grad_(not frozen)
    if not bias: f.w_1, f.w_2 = nn.Linear(d_model, d_ff, bias=False), nn.Linear(d_ff, d_model, bias=False)
    with contextlib.nullcontext() if frozen else torch.no_grad():
        for lin, c in zip((f.w_1, f.w_2), (conv[0], conv[2])):
            lin.weight.copy_(c.weight[:, :, 0])
            if bias: lin.bias.copy_(c.bias)
    if gelu: f.hidden = lambda x: torch.nn.functional.gelu(f.w_1(x))
    return f

@pytest.mark.parametrize('kw, says', [
    (dict(frozen=True), r"w_1.weight, w_1.bias, w_2.weight, w_2.bias are not leaves: the copy was tracked by autograd"),
    (dict(bias=False), r"w_1.bias is None: the layer has no bias \(bias=False"),
    (dict(gelu=True), r"your four parameters are the convolutions', so the function between the layers changed: it is GELU"),
], ids=['frozen', 'no biases', 'GELU'])
def test_the_seventeenth_sets_misses_are_named(kw, says):
    assert_rejects(check_conv_to_ffn, lambda conv: _c2f17(conv, **kw), says=says)


# ---------------------------------------------------------------- the twenty-first blind set's misses
from transformer_nb.course.ffn import check_conv_to_ffn as _t21_check_conv_to_ffn
from nbtools import assert_rejects as _t21_rejects

_T21_PRELUDE = 'from transformer_nb.ffn import FeedForward'   # the names the exercise's cell sees
_T21 = {   # label: (the exercise's function, the answer's code, what its message must say)
    'reseeds the global generator (torch.manual_seed(0)) to build the FeedForward': ('conv_to_ffn', '\ndef conv_to_ffn(conv):\n    d_ff, d_model, _ = conv[0].weight.shape\n    torch.manual_seed(0)\n    ffn = FeedForward(d_model, d_ff)\n    with torch.no_grad():\n        for lin, c in zip((ffn.w_1, ffn.w_2), (conv[0], conv[2])):\n            lin.weight.copy_(c.weight[:, :, 0]); lin.bias.copy_(c.bias)\n    return ffn',
        "conv_to_ffn reseeds PyTorch's generator"),
    'the FeedForward put on the meta device (its weights never filled)': ('conv_to_ffn', "\ndef conv_to_ffn(conv):\n    d_ff, d_model, _ = conv[0].weight.shape\n    with torch.device('meta'): ffn = FeedForward(d_model, d_ff)\n    with torch.no_grad():\n        for lin, c in zip((ffn.w_1, ffn.w_2), (conv[0], conv[2])):\n            lin.weight.copy_(c.weight[:, :, 0]); lin.bias.copy_(c.bias)\n    return ffn",
        "your FeedForward's parameters are on meta"),
    'a ReLU added after the second layer too (the stack read as Conv, ReLU, Conv, ReLU)': ('conv_to_ffn', '\ndef conv_to_ffn(conv):\n    d_ff, d_model, _ = conv[0].weight.shape\n    ffn = FeedForward(d_model, d_ff)\n    with torch.no_grad():\n        for lin, c in zip((ffn.w_1, ffn.w_2), (conv[0], conv[2])):\n            lin.weight.copy_(c.weight[:, :, 0]); lin.bias.copy_(c.bias)\n    ffn.w_2 = nn.Sequential(ffn.w_2, nn.ReLU())\n    return ffn',
        'w_1 is a Linear and w_2 a Sequential'),
    'the weights copied in float16 (a memory-saving habit): rounded': ('conv_to_ffn', '\ndef conv_to_ffn(conv):\n    d_ff, d_model, _ = conv[0].weight.shape\n    ffn = FeedForward(d_model, d_ff)\n    with torch.no_grad():\n        for lin, c in zip((ffn.w_1, ffn.w_2), (conv[0], conv[2])):\n            lin.weight.copy_(c.weight[:, :, 0].half()); lin.bias.copy_(c.bias.half())\n    return ffn',
        "your parameters are the convolutions' rounded to torch\\.float16"),
}

@pytest.mark.parametrize('label', list(_T21))
def test_the_twenty_first_sets_misses_are_named(label):
    import math, torch, torch.nn as nn, torch.nn.functional as F
    fn, src, says = _T21[label]
    ns = dict(math=math, torch=torch, nn=nn, F=F)
    exec(_T21_PRELUDE, ns); exec(src, ns)
    check = {'conv_to_ffn': _t21_check_conv_to_ffn}[fn]
    dtype, grad = torch.get_default_dtype(), torch.is_grad_enabled()
    try: _t21_rejects(check, ns[fn], says=says)
    finally: torch.set_default_dtype(dtype); torch.set_grad_enabled(grad)   # an answer that changes them must not change the next test


# ---------------------------------------------------------------- the twenty-fourth blind set's misses
from transformer_nb.course.ffn import check_conv_to_ffn as _t24_check_conv_to_ffn
from nbtools import assert_rejects as _t24_rejects

_T24_PRELUDE = 'import math, copy, random, torch, torch.nn as nn, torch.nn.functional as F\nfrom collections import Counter\nfrom transformer_nb.core import *\nfrom transformer_nb.ffn import *'   # the names the exercise's cell sees
_T24 = {   # label: (the exercise, the answer's code, what its message must say)
    "the conv kept and called on transposed inputs (the FeedForward's own weights unused)": ('conv_to_ffn', '\ndef conv_to_ffn(conv):\n    d_ff, d_model, _ = conv[0].weight.shape\n    ffn = FeedForward(d_model, d_ff)\n    ffn.conv = conv\n    ffn.forward = lambda x: conv(x.transpose(-1, -2)).transpose(-1, -2)\n    return ffn',
        "your FeedForward's forward was replaced \\(ffn.forward = \\.\\.\\.\\)"),
}

@pytest.mark.parametrize('label', list(_T24))
def test_the_twenty_fourth_sets_misses_are_named(label):
    import torch
    ex, src, says = _T24[label]
    ns = {}
    exec(_T24_PRELUDE, ns); exec(src, ns)
    run = {'conv_to_ffn': lambda ns: _t24_check_conv_to_ffn(ns['conv_to_ffn'])}[ex]
    dtype, grad = torch.get_default_dtype(), torch.is_grad_enabled()
    try: _t24_rejects(lambda: run(ns), says=says)
    finally: torch.set_default_dtype(dtype); torch.set_grad_enabled(grad)   # an answer that changes them must not change the next test


# ---------------------------------------------------------------- the twenty-sixth blind set's misses
from nbtools import assert_rejects as _t26_rejects

_T26_PRELUDE = 'import math, copy, random, torch, torch.nn as nn, torch.nn.functional as F\nfrom collections import Counter\nfrom transformer_nb.core import *\nfrom transformer_nb.ffn import *\nfrom transformer_nb.course.ffn import check_conv_to_ffn'   # the names the exercise's cell sees
_T26 = {   # label: (the exercise, the answer's code, what its message must say)
    'one FeedForward per size, cached and reused (state kept between calls)': ('conv_to_ffn', '\n_made = {}\ndef conv_to_ffn(conv):\n    d_ff, d_model, _ = conv[0].weight.shape\n    ffn = _made.setdefault((d_model, d_ff), FeedForward(d_model, d_ff))\n    with torch.no_grad():\n        for lin, c in zip((ffn.w_1, ffn.w_2), (conv[0], conv[2])):\n            lin.weight.copy_(c.weight[:, :, 0]); lin.bias.copy_(c.bias)\n    return ffn',
        'conv_to_ffn gave two convolution stacks of one size the same FeedForward'),
}

@pytest.mark.parametrize('label', list(_T26))
def test_the_twenty_sixth_sets_misses_are_named(label):
    import torch
    ex, src, says = _T26[label]
    ns = {}
    exec(_T26_PRELUDE, ns); exec(src, ns)
    calls = {'conv_to_ffn': 'check_conv_to_ffn(conv_to_ffn)'}
    dtype, grad = torch.get_default_dtype(), torch.is_grad_enabled()
    try: _t26_rejects(lambda: eval(calls[ex], ns), says=says)
    finally: torch.set_default_dtype(dtype); torch.set_grad_enabled(grad)   # an answer that changes them must not change the next test


# ---------------------------------------------------------------- the twenty-eighth blind set's misses
from nbtools import assert_rejects as _t28_rejects

_T28_PRELUDE = 'import math, copy, random, torch, torch.nn as nn, torch.nn.functional as F\nfrom collections import Counter\nfrom transformer_nb.core import *\nfrom transformer_nb.ffn import *\nfrom transformer_nb.course.ffn import check_conv_to_ffn'   # the names the exercise's cell sees
_T28 = {   # label: (the exercise, the answer's code, what its message must say)
    "a FeedForward that reads the conv's (B, d_model, n) layout": ('conv_to_ffn', '\nclass ConvLayoutFFN(FeedForward):\n    def forward(self, x): return super().forward(x.transpose(-1, -2)).transpose(-1, -2)\ndef conv_to_ffn(conv):\n    d_ff, d_model, _ = conv[0].weight.shape\n    ffn = ConvLayoutFFN(d_model, d_ff)\n    with torch.no_grad():\n        for lin, c in zip((ffn.w_1, ffn.w_2), (conv[0], conv[2])):\n            lin.weight.copy_(c.weight[:, :, 0]); lin.bias.copy_(c.bias)\n    return ffn',
        'is a subclass of FeedForward with its own forward'),
    'c.weight[:, 0, :]: the first input channel, broadcast by copy_': ('conv_to_ffn', '\ndef conv_to_ffn(conv):\n    d_ff, d_model, _ = conv[0].weight.shape\n    ffn = FeedForward(d_model, d_ff)\n    with torch.no_grad():\n        for lin, c in zip((ffn.w_1, ffn.w_2), (conv[0], conv[2])):\n            lin.weight.copy_(c.weight[:, 0, :]); lin.bias.copy_(c.bias)\n    return ffn',
        'an \\(out, 1\\) tensor was broadcast by copy_'),
    'the weights summed over the input channels (sum(1)) rather than the kernel axis': ('conv_to_ffn', '\ndef conv_to_ffn(conv):\n    d_ff, d_model, _ = conv[0].weight.shape\n    ffn = FeedForward(d_model, d_ff)\n    with torch.no_grad():\n        for lin, c in zip((ffn.w_1, ffn.w_2), (conv[0], conv[2])):\n            lin.weight.copy_(c.weight.sum(1)); lin.bias.copy_(c.bias)\n    return ffn',
        'an \\(out, 1\\) tensor was broadcast by copy_'),
    'the ReLU of the conv stack applied before the first layer too (F.relu on the input)': ('conv_to_ffn', '\nclass ReluInFFN(FeedForward):\n    def forward(self, x): return super().forward(F.relu(x))\ndef conv_to_ffn(conv):\n    d_ff, d_model, _ = conv[0].weight.shape\n    ffn = ReluInFFN(d_model, d_ff)\n    with torch.no_grad():\n        for lin, c in zip((ffn.w_1, ffn.w_2), (conv[0], conv[2])):\n            lin.weight.copy_(c.weight[:, :, 0]); lin.bias.copy_(c.bias)\n    return ffn',
        'is a subclass of FeedForward with its own forward'),
    "d_ff = 4 * d_model, the paper's ratio, not read from the conv": ('conv_to_ffn', '\ndef conv_to_ffn(conv):\n    d_model = conv[0].weight.shape[1]; d_ff = 4 * d_model\n    ffn = FeedForward(d_model, d_ff)\n    with torch.no_grad():\n        for lin, c in zip((ffn.w_1, ffn.w_2), (conv[0], conv[2])):\n            lin.weight.copy_(c.weight[:, :, 0]); lin.bias.copy_(c.bias)\n    return ffn',
        "is 4 \\* d_model, the paper's ratio"),
    "d_model read from conv[2]'s input axis (d_ff)": ('conv_to_ffn', '\ndef conv_to_ffn(conv):\n    d_ff, d_model = conv[0].weight.shape[0], conv[2].weight.shape[1]\n    ffn = FeedForward(d_model, d_ff)\n    with torch.no_grad():\n        for lin, c in zip((ffn.w_1, ffn.w_2), (conv[0], conv[2])):\n            lin.weight.copy_(c.weight[:, :, 0]); lin.bias.copy_(c.bias)\n    return ffn',
        "you built FeedForward\\(64, 64\\): d_model is the first convolution's in_channels"),
}

@pytest.mark.parametrize('label', list(_T28))
def test_the_twenty_eighth_sets_misses_are_named(label):
    import torch
    ex, src, says = _T28[label]
    ns = {}
    exec(_T28_PRELUDE, ns); exec(src, ns)
    calls = {'conv_to_ffn': 'check_conv_to_ffn(conv_to_ffn)'}
    dtype, grad = torch.get_default_dtype(), torch.is_grad_enabled()
    try: _t28_rejects(lambda: eval(calls[ex], ns), says=says)
    finally: torch.set_default_dtype(dtype); torch.set_grad_enabled(grad)   # an answer that changes them must not change the next test

# ---------------------------------------------------------------- the thirty-second blind set's misses, and another learner's variant of each
from nbtools import assert_rejects as _t32_rejects

_T32_PRELUDE = 'import math, copy, random, torch, torch.nn as nn, torch.nn.functional as F\nfrom collections import Counter\nfrom transformer_nb.core import *\nfrom transformer_nb.ffn import *\nfrom transformer_nb.course.ffn import check_conv_to_ffn'   # the names the exercise's cell sees
_T32 = {   # label: (the exercise, the answer's code, what its message must say)
    'w_1 clamped at zero': ('conv_to_ffn', '\ndef conv_to_ffn(conv):\n    d_ff, d_model, _ = conv[0].weight.shape\n    ffn = FeedForward(d_model, d_ff)\n    with torch.no_grad():\n        for lin, c in zip((ffn.w_1, ffn.w_2), (conv[0], conv[2])):\n            lin.weight.copy_(c.weight[:, :, 0].clamp_min(0) if lin is ffn.w_1 else c.weight[:, :, 0]); lin.bias.copy_(c.bias)\n    return ffn',
        'w_1\\.weight\\ is\\ conv\\[0\\]\\.weight\\ with\\ a\\ ReLU\\ \\(clamp\\(min=0\\)\\)\\ applied\\ to\\ it'),
    'variant: F.relu on both weights': ('conv_to_ffn', '\ndef conv_to_ffn(conv):\n    d_ff, d_model, _ = conv[0].weight.shape\n    ffn = FeedForward(d_model, d_ff)\n    with torch.no_grad():\n        for lin, c in zip((ffn.w_1, ffn.w_2), (conv[0], conv[2])):\n            lin.weight.copy_(F.relu(c.weight[:, :, 0])); lin.bias.copy_(c.bias)\n    return ffn',
        'w_1\\.weight\\ is\\ conv\\[0\\]\\.weight\\ with\\ a\\ ReLU\\ \\(clamp\\(min=0\\)\\)\\ applied\\ to\\ it'),
    'reset_parameters after the copy': ('conv_to_ffn', '\ndef conv_to_ffn(conv):\n    d_ff, d_model, _ = conv[0].weight.shape\n    ffn = FeedForward(d_model, d_ff)\n    with torch.no_grad():\n        for lin, c in zip((ffn.w_1, ffn.w_2), (conv[0], conv[2])):\n            lin.weight.copy_(c.weight[:, :, 0]); lin.bias.copy_(c.bias)\n    for lin in (ffn.w_1, ffn.w_2): lin.reset_parameters()\n    return ffn',
        "none\\ of\\ w_1,\\ w_2\\ and\\ their\\ biases\\ holds\\ any\\ of\\ the\\ convolutions'\\ numbers"),
    'variant: xavier_uniform_ and zeros after the copy': ('conv_to_ffn', '\ndef conv_to_ffn(conv):\n    d_ff, d_model, _ = conv[0].weight.shape\n    ffn = FeedForward(d_model, d_ff)\n    with torch.no_grad():\n        for lin, c in zip((ffn.w_1, ffn.w_2), (conv[0], conv[2])):\n            lin.weight.copy_(c.weight[:, :, 0]); lin.bias.copy_(c.bias)\n    for lin in (ffn.w_1, ffn.w_2): nn.init.xavier_uniform_(lin.weight); nn.init.zeros_(lin.bias)\n    return ffn',
        "none\\ of\\ w_1,\\ w_2\\ and\\ their\\ biases\\ holds\\ any\\ of\\ the\\ convolutions'\\ numbers"),
}

@pytest.mark.parametrize('label', list(_T32))
def test_the_thirty_second_sets_misses_are_named(label):
    import torch
    ex, src, says = _T32[label]
    ns = {}
    exec(_T32_PRELUDE, ns); exec(src, ns)
    calls = {'conv_to_ffn': 'check_conv_to_ffn(conv_to_ffn)'}
    dtype, grad = torch.get_default_dtype(), torch.is_grad_enabled()
    try: _t32_rejects(lambda: eval(calls[ex], ns), says=says)
    finally: torch.set_default_dtype(dtype); torch.set_grad_enabled(grad)   # an answer that changes them must not change the next test

def test_biases_left_at_zero_are_never_read_as_a_clamped_copy():
    "A FeedForward whose biases stay at their zero init matches conv.bias.clamp(min=0) whenever every conv bias is negative (1 in 16 for 4 of them): that is a copy not made, not a ReLU on the weights."
    import torch.nn as nn
    from transformer_nb.ffn import FeedForward
    from transformer_nb.course.ffn import _transformed_story
    for seed in range(64):
        torch.manual_seed(seed)
        conv = nn.Sequential(nn.Conv1d(4, 8, 1), nn.ReLU(), nn.Conv1d(8, 4, 1)); f = FeedForward(4, 8)
        with torch.no_grad(): f.w_1.weight.copy_(conv[0].weight[..., 0]); f.w_2.weight.copy_(conv[2].weight[..., 0])
        assert 'applied to it' not in (_transformed_story(f, conv) or ''), seed

# ---------------------------------------------------------------- the thirty-sixth blind set's misses, and another learner's variant of each
from nbtools import assert_rejects as _t36_rejects

_T36_PRELUDE = _T32_PRELUDE   # the names the exercise's cell sees
_T36 = {   # label: (the exercise, the answer's code, what its message must say)
    "the input stack frozen to copy it (conv.requires_grad_(False)): the caller's convolutions no longer learn": ('conv_to_ffn', '\ndef conv_to_ffn(conv):\n    conv.requires_grad_(False)             # so that its weights can be copied\n    d_ff, d_model, _ = conv[0].weight.shape\n    ffn = FeedForward(d_model, d_ff)\n    ffn.w_1.weight.data.copy_(conv[0].weight[:, :, 0]); ffn.w_1.bias.data.copy_(conv[0].bias)\n    ffn.w_2.weight.data.copy_(conv[2].weight[:, :, 0]); ffn.w_2.bias.data.copy_(conv[2].bias)\n    return ffn\n',
        "conv_to_ffn\\ froze\\ the\\ convolutions'"),
    "variant: requires_grad set False on each of conv's parameters": ('conv_to_ffn', '\ndef conv_to_ffn(conv):\n    for p in conv.parameters(): p.requires_grad = False\n    d_ff, d_model, _ = conv[0].weight.shape\n    ffn = FeedForward(d_model, d_ff)\n    for lin, c in zip((ffn.w_1, ffn.w_2), (conv[0], conv[2])):\n        with torch.no_grad(): lin.weight.copy_(c.weight[:, :, 0]); lin.bias.copy_(c.bias)\n    return ffn',
        "conv_to_ffn\\ froze\\ the\\ convolutions'"),
    'the whole function under torch.inference_mode(): the FeedForward built there gets no gradient': ('conv_to_ffn', '\ndef conv_to_ffn(conv):\n    with torch.inference_mode():           # no autograd while copying (faster than no_grad)\n        d_ff, d_model, _ = conv[0].weight.shape\n        ffn = FeedForward(d_model, d_ff)\n        for lin, c in zip((ffn.w_1, ffn.w_2), (conv[0], conv[2])):\n            lin.weight.copy_(c.weight[:, :, 0]); lin.bias.copy_(c.bias)\n    return ffn\n',
        'are\\ inference\\ tensors:\\ the\\ FeedForward\\ was\\ built\\ under\\ torch\\.inference_mode\\(\\)'),
    'variant: @torch.inference_mode() on the function': ('conv_to_ffn', '\n@torch.inference_mode()\ndef conv_to_ffn(conv):\n    d_ff, d_model, _ = conv[0].weight.shape\n    ffn = FeedForward(d_model, d_ff)\n    for lin, c in zip((ffn.w_1, ffn.w_2), (conv[0], conv[2])):\n        lin.weight.copy_(c.weight[:, :, 0]); lin.bias.copy_(c.bias)\n    return ffn',
        'are\\ inference\\ tensors:\\ the\\ FeedForward\\ was\\ built\\ under\\ torch\\.inference_mode\\(\\)'),
    'every state_dict entry sliced [..., 0], the biases too: load_state_dict refuses the sizes': ('conv_to_ffn', "\ndef conv_to_ffn(conv):\n    d_ff, d_model, _ = conv[0].weight.shape\n    ffn = FeedForward(d_model, d_ff)\n    names = {'0': 'w_1', '2': 'w_2'}\n    ffn.load_state_dict({names[k.split('.')[0]] + '.' + k.split('.')[1]: v[..., 0] for k, v in conv.state_dict().items()})\n    return ffn\n",
        'the\\ biases\\ became\\ one\\ number\\ each'),
    'variant: select(-1, 0) on every entry': ('conv_to_ffn', '\ndef conv_to_ffn(conv):\n    d_ff, d_model, _ = conv[0].weight.shape\n    ffn = FeedForward(d_model, d_ff)\n    sd = conv.state_dict()\n    ffn.load_state_dict({f\'w_{1 + (k[0] == "2")}.{k[2:]}\': t.select(-1, 0) for k, t in sd.items()})\n    return ffn',
        'the\\ biases\\ became\\ one\\ number\\ each'),
}

@pytest.mark.parametrize('label', list(_T36))
def test_the_thirty_sixth_sets_misses_are_named(label):
    import torch
    ex, src, says = _T36[label]
    ns = {}
    exec(_T36_PRELUDE, ns); exec(src, ns)
    calls = {'conv_to_ffn': 'check_conv_to_ffn(conv_to_ffn)'}
    dtype, grad = torch.get_default_dtype(), torch.is_grad_enabled()
    try: _t36_rejects(lambda: eval(calls[ex], ns), says=says)
    finally: torch.set_default_dtype(dtype); torch.set_grad_enabled(grad)   # an answer that changes them must not change the next test
