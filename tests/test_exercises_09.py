"""The proof of 09_training's exercises, away from the learner: each check (`check_schedule`, `check_label_smoothing`,
in transformer_nb/course/training.py) passes the printed solution and another right answer, reports the empty stub as not
written (without raising), and answers each natural wrong answer with False and one printed line that names the case
and the mistake, or the other definition it follows (tensor2tensor's, The Annotated Transformer's); and each "break
it" exercise's change, applied to the notebook and to the exported module, makes exactly the checks its solution names
fail (tests/nbtools.py's `break_it`)."""
import math, re
import pytest, torch
import torch.nn.functional as F
from nbtools import assert_break_it, assert_stub_reported, cells, code_blocks, namespace
from transformer_nb.core import PAD_ID
from transformer_nb.course.training import check_schedule, check_label_smoothing

NB = '09_training'

def verdict(check, fn, capsys) -> tuple[bool, str]:
    "What `check(fn)` returns and the one line it prints."
    capsys.readouterr(); ok = check(fn); out = capsys.readouterr().out
    assert out.count('\n') == 1, out                                      # one line, never a traceback
    return ok, out.strip()

# --- exercise: the learning-rate schedule ---------------------------------------------------------------------------

def test_schedule_check_on_stub_solution_and_another_right_answer(capsys):
    ns = namespace(NB, 'c0a1e911')                                          # the stub, and its one-line check
    assert_stub_reported(ns, 'check_schedule', 'my_noam_lr', capsys)
    sol = {}; exec(code_blocks(NB, 'c0a1e913')[0], sol)
    assert verdict(check_schedule, sol['my_noam_lr'], capsys)[0] is True
    def other(step, d_model=512, warmup=4000):                           # right, written differently
        if not step: return 0.
        return min(1 / math.sqrt(step * d_model), step / math.sqrt(d_model * warmup ** 3))
    ok, out = verdict(check_schedule, other, capsys)
    assert ok is True and out.startswith('your schedule equals noam_lr'), out

WRONG_SCHEDULES = {   # name: (wrong answer, what its message must say)
    'no step-0 guard': (lambda s, d, w: d ** -0.5 * min(s ** -0.5, s * w ** -1.5),
                        'step 0 (d_model=512, warmup=4000): ZeroDivisionError: 0 ** -0.5 is infinite; return 0 at step 0'),
    'one step early': (lambda s, d, w: d ** -0.5 * min((s + 1) ** -0.5, (s + 1) * w ** -1.5),
                       'step 0 (d_model=512, warmup=4000): got 1.747e-07, expected 0; it is the rate of step + 1'),
    'one step late': (lambda s, d, w: d ** -0.5 * min((s - 1) ** -0.5, (s - 1) * w ** -1.5) if s > 1 else 0.,
                      'step 1 (d_model=512, warmup=4000): got 0, expected 1.747e-07; it is the rate of step - 1: the schedule runs one update late'),
    'a rate at step 0': (lambda s, d, w: d ** -0.5 * w ** -0.5 if s == 0 else d ** -0.5 * min(s ** -0.5, s * w ** -1.5),
                         'step 0 (d_model=512, warmup=4000): got 0.0006988, expected 0; the rate at step 0 is 0'),
    'no warm-up': (lambda s, d, w: d ** -0.5 * s ** -0.5 if s else 0.,
                   'step 1 (d_model=512, warmup=4000): got 0.04419, expected 1.747e-07; no warm-up: yours follows the decay'),
    'max, not min': (lambda s, d, w: d ** -0.5 * max(s ** -0.5, s * w ** -1.5) if s else 0., 'no warm-up: take the smaller'),
    'warmup ** -1': (lambda s, d, w: d ** -0.5 * min(s ** -0.5, s * w ** -1) if s else 0., 'check the exponent -1.5'),
    'no d_model factor': (lambda s, d, w: min(s ** -0.5, s * w ** -1.5) if s else 0.,
                          'it is 22.63 times the right rate at every step: the factor is d_model ** -0.5'),
    'ignores its arguments': (lambda s, d, w: 512 ** -0.5 * min(s ** -0.5, s * 4000 ** -1.5) if s else 0.,
                              'step 1 (d_model=256, warmup=800): got 1.747e-07, expected 2.762e-06; it is the rate for d_model=512'),
    'wrong decay': (lambda s, d, w: (d ** -0.5 * min(s ** -1, s * w ** -1.5) if s > w else d ** -0.5 * s * w ** -1.5) if s else 0.,
                    'step 4001 (d_model=512, warmup=4000)'),
}

@pytest.mark.parametrize('name', WRONG_SCHEDULES)
def test_schedule_check_names_the_mistake(name, capsys):
    fn, says = WRONG_SCHEDULES[name]
    ok, msg = verdict(check_schedule, fn, capsys)
    assert ok is False and says in msg and msg.startswith('Not yet: ') and not msg.startswith(('Not yet: close:', 'Not yet: ==:')), msg

# --- exercise: label smoothing -----------------------------------------------------------------------------------------

def _q_loss(l, t, e, V_eps, pad_zero=False, reference_gets_eps=True):
    q = torch.full_like(l, e / V_eps)
    if pad_zero: q[..., PAD_ID] = 0
    if reference_gets_eps: q.scatter_add_(-1, t[..., None], torch.full_like(l[..., :1], 1 - e))
    else: q.scatter_(-1, t[..., None], 1 - e)
    return -(q * l.log_softmax(-1)).sum(-1)

def _q(l, t, e):
    "The smoothed target distribution q: eps / V on every token, plus 1 - eps on the reference."
    return torch.full_like(l, e / l.shape[-1]).scatter_add_(-1, t[..., None], torch.full_like(l[..., :1], 1 - e))

def test_label_smoothing_check_on_stub_solution_and_another_right_answer(capsys):
    ns = namespace(NB, 'c0a1e915')
    assert_stub_reported(ns, 'check_label_smoothing', 'my_label_smoothing', capsys)
    sol = dict(ns); exec(code_blocks(NB, 'c0a1e917')[0], sol)
    assert verdict(check_label_smoothing, sol['my_label_smoothing'], capsys)[0] is True
    def other(logits, target, eps, pad_id=PAD_ID):                      # right, written differently
        keep = target.ne(pad_id).flatten()
        lg, y = logits.flatten(0, -2)[keep], target.flatten()[keep]
        logp = lg - lg.logsumexp(-1, keepdim=True)
        return ((eps - 1) * logp[torch.arange(len(y)), y] - eps * logp.mean(-1)).mean()
    ok, out = verdict(check_label_smoothing, other, capsys)
    assert ok is True and out.startswith("your loss equals label_smoothing_loss, PyTorch's"), out

def _t2t_constant(l, t, e):
    "tensor2tensor's loss as its code computes it: the cross-entropy with its target, less that target's entropy."
    V = l.shape[-1]
    h = -((1 - e) * math.log(1 - e) + e * math.log(e / (V - 1))) if e else 0.0
    return (_q_loss(l, t, e, V - 1, reference_gets_eps=False) - h)[t != PAD_ID].mean()

WRONG_LOSSES = {
    'padding counted': (lambda l, t, e: _q_loss(l, t, e, l.shape[-1]).mean(), 'eps=0.1, padded targets: got 2.7218, expected 2.6328; likely padding counted'),
    'a sum': (lambda l, t, e: _q_loss(l, t, e, l.shape[-1])[t != PAD_ID].sum(), 'eps=0.0, unpadded targets: got 58.7667, expected 2.7984; likely a sum'),
    'every position': (lambda l, t, e: (_q_loss(l, t, e, l.shape[-1]) * (t != PAD_ID)).mean(), 'eps=0.1, padded targets: got 1.5044, expected 2.6328; likely divided by every position'),
    'no smoothing': (lambda l, t, e: F.cross_entropy(l.flatten(0, 1), t.flatten(), ignore_index=PAD_ID), 'eps=0.1, unpadded targets: got 2.7984, expected 2.8003; likely no smoothing'),
    'tensor2tensor, V - 1': (lambda l, t, e: _q_loss(l, t, e, l.shape[-1] - 1, reference_gets_eps=False)[t != PAD_ID].mean(),
        "eps=0.1, unpadded targets: got 2.8005, expected 2.8003; that is tensor2tensor's label smoothing (the paper's own code): 1 - eps on the reference, eps / (V - 1) on each other token; another definition, not a mistake"),
    'tensor2tensor, less H(q)': (_t2t_constant, "that is tensor2tensor's label smoothing as its code computes it: eps / (V - 1) on each other token, less the constant H(q); another definition, not a mistake"),
    'Annotated, V - 2': (lambda l, t, e: _q_loss(l, t, e, l.shape[-1] - 2, True, False)[t != PAD_ID].mean(), "eps=0.1, unpadded targets: got 2.8007, expected 2.8003; that is The Annotated Transformer's label smoothing: eps / (V - 2) on each token but the reference and PAD; another definition, not a mistake"),
    'KL, not cross-entropy': (lambda l, t, e: F.kl_div(l.log_softmax(-1), _q(l, t, e), reduction='none').sum(-1)[t != PAD_ID].mean(),
                              'eps=0.1, unpadded targets: got 2.2863, expected 2.8003; likely KL(q || p): the loss is the cross-entropy -sum_i q_i log p_i, which adds the constant H(q)'),
    'the sign': (lambda l, t, e: -_q_loss(l, t, e, l.shape[-1])[t != PAD_ID].mean(), 'likely the sign'),
    'one per position': (lambda l, t, e: _q_loss(l, t, e, l.shape[-1]), 'eps=0.0, unpadded targets: got a tensor of shape (3, 7); return one number'),
    'probabilities, not logs': (lambda l, t, e: -(l.softmax(-1).gather(-1, t[..., None]))[t != PAD_ID].mean(), 'likely probabilities where log-probabilities belong'),
    'smoothed over probabilities': (lambda l, t, e: -(_q(l, t, e) * l.softmax(-1)).sum(-1)[t != PAD_ID].mean(), 'likely probabilities where log-probabilities belong'),
    'smoothed over raw logits': (lambda l, t, e: -(_q(l, t, e) * l).sum(-1)[t != PAD_ID].mean(), 'likely raw logits where log-probabilities belong: take log_softmax(logits) first'),
    'raw logits, no smoothing': (lambda l, t, e: -l.gather(-1, t[..., None])[..., 0][t != PAD_ID].mean(), 'likely raw logits where log-probabilities belong'),
}

@pytest.mark.parametrize('name', WRONG_LOSSES)
def test_label_smoothing_check_names_the_mistake(name, capsys):
    fn, says = WRONG_LOSSES[name]
    ok, msg = verdict(check_label_smoothing, lambda l, t, eps, pad_id=PAD_ID: fn(l, t, eps), capsys)
    assert ok is False and says in msg and msg.startswith('Not yet: ') and not msg.startswith(('Not yet: close:', 'Not yet: ==:')), msg
    assert ('another definition, not a mistake' in msg) == name.startswith(('tensor2tensor', 'Annotated')), msg

def test_exercise_4_other_definitions_pass_only_eps_0(capsys):
    "Exercise 4: tensor2tensor's and The Annotated Transformer's q pass eps=0 only; at eps=0.1 the check names each, not as a mistake."
    text = cells(NB)['545a2453'][1]
    assert 'Only `eps=0.0`' in text and 'At `eps=0.1` the check names each definition, says it is not a mistake, and returns False' in text
    g = torch.Generator().manual_seed(0)
    lg, tg = torch.randn(3, 7, 11, generator=g), torch.randint(4, 11, (3, 7), generator=g); tg[0, 4:] = PAD_ID
    from transformer_nb.training import label_smoothing_loss
    for name in ('tensor2tensor, V - 1', 'tensor2tensor, less H(q)', 'Annotated, V - 2'):
        fn = WRONG_LOSSES[name][0]
        ok, msg = verdict(check_label_smoothing, lambda l, t, eps, pad_id=PAD_ID: fn(l, t, eps), capsys)
        assert ok is False and msg.startswith('Not yet: eps=0.1, unpadded targets: ') and 'not a mistake' in msg, msg
        assert [e for e in (0.0, 0.1, 0.3) if torch.allclose(fn(lg, tg, e), label_smoothing_loss(lg, tg, e), atol=1e-5)] == [0.0], name

# --- "break it": the change applied, exactly the named checks fail -----------------------------------------------------

BREAK_09 = {   # exercise: (cell, old, new, module, the cells and tests its solution names)
    1: ('47761ae3', 'noam_lr(i + 1, d_model', 'noam_lr(i, d_model', 'training',
        {'034d8aaf', 'c9a10013'}, {'tests/test_training.py::test_the_library_schedule_and_loss_equal_the_main_lines'}),
    2: ('35316735', 'return loss.masked_fill(~keep, 0).sum(), nll', 'return loss.sum(), nll', 'training',
        {'a79014e7', '6c7f5412', 'c9a10025'}, {'tests/test_training.py::test_label_smoothing_matches_pytorch',
                                   'tests/test_training.py::test_label_smoothing_ignores_pad_logits',
                                   'tests/test_training.py::test_accumulated_gradient_equals_big_batch'}),
    3: ('f35249f8', 'tgt[:, :-1]), tgt[:, 1:], eps', 'tgt[:, :-1]), tgt[:, :-1], eps', 'training',                 # the labels not shifted
        {'717164e9', '7af35b64', '6c7f5412', 'c0a1e999'}, {'tests/test_training.py::test_accumulated_gradient_equals_big_batch'}),
}

@pytest.mark.slow
@pytest.mark.parametrize('ex', BREAK_09)
def test_break_it_fails_exactly_the_named_checks(ex):
    cell, old, new, module, want_cells, want_tests = BREAK_09[ex]
    text = cells(NB)['545a2453'][1]
    solution = text.split(f'{ex}. **Break it.**')[1].split('</details>')[0]
    for t in want_tests: assert t.split('::')[1] in solution, t             # the solution names them
    assert_break_it(NB, cell, old, new, module, ['tests/test_training.py'], fail_cells=want_cells, fail_tests=want_tests)

# ---------------------------------------------------------------- fresh wrong answers, written as new learners would
import functools
from transformer_nb.course import training as _ex
from nbtools import assert_rejects
FRESH = {}   # label: (checker, answer, the words its message must contain)
def add(checker, label, kw, *args): FRESH[checker, label] = args

# 09 my_noam_lr: each answer and the words its message must contain
def nl(f):
    f.__name__ = 'my_noam_lr'; return f
add('check_schedule', 'no step-0 guard (ZeroDivision)', ['step 0', '0 at step 0', 'zero'], nl(lambda step, d_model=512, warmup=4000: d_model ** -0.5 * min(step ** -0.5, step * warmup ** -1.5)))
add('check_schedule', 'max instead of min', ['min', 'max'], nl(lambda step, d_model=512, warmup=4000: 0.0 if step == 0 else d_model ** -0.5 * max(step ** -0.5, step * warmup ** -1.5)))
add('check_schedule', 'warmup ** -0.5 in warm-up term', ['warmup', '-1.5'], nl(lambda step, d_model=512, warmup=4000: 0.0 if step == 0 else d_model ** -0.5 * min(step ** -0.5, step * warmup ** -0.5)))
add('check_schedule', 'd_model ** 0.5', ['d_model', '-0.5'], nl(lambda step, d_model=512, warmup=4000: 0.0 if step == 0 else d_model ** 0.5 * min(step ** -0.5, step * warmup ** -1.5)))
add('check_schedule', 'hard-coded d_model=512', ['d_model', 'hard', '512'], nl(lambda step, d_model=512, warmup=4000: 0.0 if step == 0 else 512 ** -0.5 * min(step ** -0.5, step * warmup ** -1.5)))
add('check_schedule', 'hard-coded warmup 4000', ['warmup', 'hard', '4000'], nl(lambda step, d_model=512, warmup=4000: 0.0 if step == 0 else d_model ** -0.5 * min(step ** -0.5, step * 4000 ** -1.5)))
add('check_schedule', 'step+1 (off by one)', ['one step', 'step + 1', 'off by one', 'late', 'early'], nl(lambda step, d_model=512, warmup=4000: 0.0 if step == 0 else d_model ** -0.5 * min((step + 1) ** -0.5, (step + 1) * warmup ** -1.5)))
add('check_schedule', 'integer division 1/2 -> sqrt via **(1/2) ok; uses step ** 0.5', ['-0.5', 'decay', 'step ** -0.5'], nl(lambda step, d_model=512, warmup=4000: 0.0 if step == 0 else d_model ** -0.5 * min(step ** 0.5, step * warmup ** -1.5)))
add('check_schedule', 'returns a tensor', ['float', 'tensor'], nl(lambda step, d_model=512, warmup=4000: torch.tensor(0.0 if step == 0 else d_model ** -0.5 * min(step ** -0.5, step * warmup ** -1.5))))
SAYS_CHECK_SCHEDULE = {
"no step-0 guard (ZeroDivision)": "return\\ 0\\ at\\ step\\ 0\\ before\\ the\\ formula",
"max instead of min": "no\\ warm\\-up:\\ take\\ the\\ smaller\\ of\\ the\\ two\\ terms,\\ min\\(step\\ \\*\\*\\ \\-0\\.5,\\ step\\ \\*\\ warmup\\ \\*\\*\\ \\-1\\.5\\)",
"warmup ** -0.5 in warm-up term": "your\\ warm\\-up\\ term\\ is\\ step\\ \\*\\ warmup\\ \\*\\*\\ \\-0\\.5:\\ check\\ the\\ exponent\\ \\-1\\.5",
"d_model ** 0.5": "it\\ is\\ 512\\ times\\ the\\ right\\ rate\\ at\\ every\\ step:\\ the\\ factor\\ is\\ d_model\\ \\*\\*\\ \\-0\\.5",
"hard-coded d_model=512": "it\\ is\\ the\\ rate\\ for\\ d_model=512:\\ use\\ the\\ argument\\ `d_model`",
"hard-coded warmup 4000": "it\\ is\\ the\\ rate\\ for\\ warmup=4000:\\ use\\ the\\ argument\\ `warmup`",
"step+1 (off by one)": "use\\ `step`\\ as\\ it\\ is\\ \\(1\\ for\\ the\\ first\\ update\\)",
"integer division 1/2 -> sqrt via **(1/2) ok; uses step ** 0.5": "after\\ the\\ peak\\ your\\ rate\\ keeps\\ rising\\ as\\ the\\ warm\\-up\\ term.*check\\ its\\ exponent,\\ step\\ \\*\\*\\ \\-0\\.5",
"returns a tensor": "returned\\ a\\ torch\\.float32\\ tensor,\\ which\\ rounds\\ the\\ rate\\ to\\ 7\\ digits:\\ compute\\ with\\ Python\\ nu"
}

@pytest.mark.parametrize('label', list(SAYS_CHECK_SCHEDULE))
def test_fresh_wrong_answers_named_by_check_schedule(label):
    "Each wrong answer a new learner writes is refused, with a message that names its mistake."
    assert_rejects(_ex.check_schedule, *FRESH['check_schedule', label], says=SAYS_CHECK_SCHEDULE[label])

# 09 my_label_smoothing: each answer and the words its message must contain
def ls(f):
    f.__name__ = 'my_label_smoothing'; return f
def _lsm(logits, target, eps, pad_id=PAD_ID, *, lp=None, denom=None, keep_pad=False, uniform_all=True, mean_all=False):
    V = logits.shape[-1]
    lp = logits.log_softmax(-1) if lp is None else lp(logits)
    q = torch.full_like(lp, eps / V if uniform_all else eps / (V - 1))
    q.scatter_(-1, target[..., None], (1 - eps) + (eps / V if uniform_all else 0.0))
    loss = -(q * lp).sum(-1)
    keep = torch.ones_like(target, dtype=torch.bool) if keep_pad else target != pad_id
    if mean_all: return loss.masked_fill(~keep, 0).sum() / target.numel()
    return loss[keep].mean()
add('check_label_smoothing', 'over probabilities not log-probs', ['log', 'probabilit'], ls(functools.partial(_lsm, lp=lambda x: x.softmax(-1))))
add('check_label_smoothing', 'over raw logits', ['log_softmax', 'logits', 'log-prob'], ls(functools.partial(_lsm, lp=lambda x: x)))
add('check_label_smoothing', 'pad not ignored', ['pad'], ls(functools.partial(_lsm, keep_pad=True)))
add('check_label_smoothing', 'mean over all positions incl. pad', ['pad', 'mean', 'non-pad'], ls(functools.partial(_lsm, mean_all=True)))
add('check_label_smoothing', 'eps/(V-1) on others (t2t)', ['v - 1', 'tensor2tensor', 'v-1'], ls(functools.partial(_lsm, uniform_all=False)))
add('check_label_smoothing', 'log_softmax over dim 0', ['dim', 'axis', 'vocab'], ls(functools.partial(_lsm, lp=lambda x: x.log_softmax(0))))
def ls_sum(logits, target, eps, pad_id=PAD_ID):
    lp = logits.log_softmax(-1); keep = target != pad_id
    loss = (1 - eps) * -lp.gather(-1, target[..., None]).squeeze(-1) + eps * -lp.sum(-1)
    return loss[keep].mean()
add('check_label_smoothing', 'sum not mean over vocabulary for uniform term', ['uniform', 'v', 'sum', 'mean'], ls(ls_sum))
def ls_noeps(logits, target, eps, pad_id=PAD_ID):
    return F.cross_entropy(logits.reshape(-1, logits.shape[-1]), target.reshape(-1), ignore_index=pad_id)
add('check_label_smoothing', 'ignores eps', ['eps', 'smooth'], ls(ls_noeps))
def ls_ce_pad0(logits, target, eps, pad_id=PAD_ID):
    return F.cross_entropy(logits.reshape(-1, logits.shape[-1]), target.reshape(-1), label_smoothing=eps, ignore_index=0)
add('check_label_smoothing', 'ignore_index=0 hard-coded', ['pad_id', 'pad'], ls(ls_ce_pad0))
def ls_sumtok(logits, target, eps, pad_id=PAD_ID):
    return F.cross_entropy(logits.reshape(-1, logits.shape[-1]), target.reshape(-1), label_smoothing=eps, ignore_index=pad_id, reduction='sum')
add('check_label_smoothing', 'sum over tokens not mean', ['sum', 'mean'], ls(ls_sumtok))
SAYS_CHECK_LABEL_SMOOTHING = {
"over probabilities not log-probs": "likely\\ probabilities\\ where\\ log\\-probabilities\\ belong:\\ the\\ loss\\ is\\ \\-sum_i\\ q_i\\ log\\ p_i,\\ log\\ p",
"over raw logits": "likely\\ raw\\ logits\\ where\\ log\\-probabilities\\ belong:\\ take\\ log_softmax\\(logits\\)\\ first,\\ then\\ \\-su",
"pad not ignored": "likely\\ padding\\ counted:\\ leave\\ out\\ the\\ positions\\ whose\\ target\\ is\\ PAD_ID",
"mean over all positions incl. pad": "likely\\ divided\\ by\\ every\\ position:\\ divide\\ by\\ the\\ number\\ of\\ non\\-pad\\ positions\\ only",
"eps/(V-1) on others (t2t)": "this\\ exercise\\ asks\\ for\\ PyTorch's,\\ eps\\ /\\ V\\ on\\ every\\ token,\\ the\\ reference\\ included",
"log_softmax over dim 0": "likely\\ log_softmax\\ over\\ the\\ wrong\\ axis:\\ normalise\\ over\\ the\\ vocabulary,\\ the\\ last\\ axis\\ \\(dim=",
"sum not mean over vocabulary for uniform term": "likely\\ the\\ uniform\\ part\\ summed\\ over\\ the\\ vocabulary:\\ eps\\ /\\ V\\ on\\ each\\ token\\ makes\\ it\\ eps\\ tim",
"ignores eps": "likely\\ no\\ smoothing:\\ eps\\ /\\ V\\ goes\\ to\\ every\\ token",
"ignore_index=0 hard-coded": "likely\\ PAD_ID\\ where\\ the\\ argument\\ pad_id\\ belongs:\\ leave\\ out\\ the\\ positions\\ whose\\ target\\ is\\ p",
"sum over tokens not mean": "likely\\ a\\ sum:\\ divide\\ by\\ the\\ number\\ of\\ non\\-pad\\ positions"
}

@pytest.mark.parametrize('label', list(SAYS_CHECK_LABEL_SMOOTHING))
def test_fresh_wrong_answers_named_by_check_label_smoothing(label):
    "Each wrong answer a new learner writes is refused, with a message that names its mistake."
    assert_rejects(_ex.check_label_smoothing, *FRESH['check_label_smoothing', label], says=SAYS_CHECK_LABEL_SMOOTHING[label])

# ---------------------------------------------------------------- the smoothing without eps / V, named
def _ls_parts(f):
    def loss(logits, target, eps, pad_id=PAD_ID):
        lp, keep = logits.log_softmax(-1), target != pad_id
        nll = -lp.gather(-1, target[..., None])[..., 0]
        return f(nll, eps, logits.shape[-1])[keep].mean()
    loss.__name__ = 'my_label_smoothing'; return loss

@pytest.mark.parametrize('f, says', [
    (lambda nll, eps, V: (1 - eps) * nll, r"likely the smoothing left out: 1 - eps on the reference alone"),
    (lambda nll, eps, V: (1 - eps + eps / V) * nll, r"likely eps / V given to the reference alone"),
    (lambda nll, eps, V: (1 - eps) * nll + eps / V, r"likely eps / V added as a number"),
], ids=['1 - eps alone', 'eps / V on the reference', 'eps / V as a constant'])
def test_label_smoothing_without_eps_over_V_is_named(f, says, capsys):
    ok, out = verdict(check_label_smoothing, _ls_parts(f), capsys)
    assert ok is False and re.search(says, out), out

def test_label_smoothing_names_the_reference_given_one_minus_eps_alone():
    def smoothing(logits, target, eps, pad_id=PAD_ID):             # eps / V on the others, 1 - eps (no eps / V) on the reference
        lp = logits.log_softmax(-1)
        q = torch.full_like(lp, eps / logits.shape[-1]).scatter(-1, target[..., None], 1 - eps)
        return -(q * lp).sum(-1)[target != pad_id].mean()
    assert_rejects(check_label_smoothing, smoothing,
                   says=r"likely the reference given 1 - eps alone: it gets eps / V as every token does, 1 - eps \+ eps / V in all")

# --- step 0 clamped to 1, and 1 on the reference -------------------------------------------------------------------
def _noam(step, d_model=512, warmup=4000): return d_model ** -0.5 * min(step ** -0.5, step * warmup ** -1.5)

def test_schedule_check_names_step_0_clamped_to_1(capsys):
    "A schedule right at every step but 0, where it gives step 1's rate, is told to return 0 at step 0, not that it runs early."
    ok, line = verdict(check_schedule, lambda step, d_model=512, warmup=4000: _noam(max(step, 1), d_model, warmup), capsys)
    assert ok is False and re.search(r"^Not yet: step 0 \(d_model=512, warmup=4000\): got 1\.747e-07, expected 0; the rate at step 0 is 0, "
                                     r"and yours gives step 1's rate there", line), line
    early = verdict(check_schedule, lambda step, d_model=512, warmup=4000: _noam(step + 1, d_model, warmup), capsys)
    assert early[0] is False and 'the schedule runs one update early' in early[1]       # one step early everywhere: still that
    assert verdict(check_schedule, lambda step, d_model=512, warmup=4000: _noam(step, d_model, warmup) if step else 0.0, capsys)[0] is True

def test_label_smoothing_check_names_one_on_the_reference(capsys):
    "q with 1 (not 1 - eps) on the reference and eps / V everywhere is named; the right loss passes."
    def q_loss(logits, target, eps, pad_id=PAD_ID, ref=1.0):
        lp = logits.log_softmax(-1)
        q = torch.full_like(lp, eps / lp.shape[-1]).scatter_add(-1, target[..., None], torch.full_like(lp[..., :1], ref))
        return -(q * lp).sum(-1)[target != pad_id].mean()
    ok, line = verdict(check_label_smoothing, q_loss, capsys)
    assert ok is False and line == ("Not yet: eps=0.1, unpadded targets: got 3.0801, expected 2.8003; likely 1 on the reference instead of "
                                    "1 - eps: q = (1 - eps) one-hot + eps / V sums to 1; yours puts 1 + eps / V on the reference"), line
    right = lambda logits, target, eps, pad_id=PAD_ID: q_loss(logits, target, eps, pad_id, ref=1 - eps)
    assert verdict(check_label_smoothing, right, capsys)[0] is True


def _smoothed(logits, target, eps, pad_id=_ex.PAD_ID, per_row=False):
    "The label-smoothed loss, averaged over the non-pad tokens (or, `per_row`, summed and divided by the number of rows)."
    V = logits.shape[-1]
    q = torch.full_like(logits, eps / V); q.scatter_add_(-1, target[..., None], torch.full_like(logits[..., :1], 1 - eps))
    loss, keep = -(q * logits.log_softmax(-1)).sum(-1), target != pad_id
    return loss[keep].sum() / target.shape[0] if per_row else loss[keep].mean()

def test_a_loss_divided_by_the_sentences_is_named():
    assert_rejects(_ex.check_label_smoothing, functools.partial(_smoothed, per_row=True),
                   says=r"likely divided by the number of sentences: average over the non-pad tokens, not the rows")
    assert _ex.check_label_smoothing(_smoothed) is True

# ---------------------------------------------------------------- mistakes nobody listed, named by what the answer does
def _smoothing_by(a, b):
    "A label-smoothed loss a(eps) x NLL + b(eps) x U over the non-pad positions, U the mean of -log p_i over the vocabulary."
    def my_label_smoothing(logits, target, eps, pad_id=PAD_ID):
        lp, keep = logits.log_softmax(-1), target != pad_id
        return (a(eps) * -lp.gather(-1, target[..., None])[..., 0] - b(eps) * lp.mean(-1))[keep].mean()
    return my_label_smoothing

@pytest.mark.parametrize('a, b, says', [
    (lambda e: 1 - e, lambda e: e / 2, r"eps=0\.1, unpadded targets: .*your loss is 0\.9 x NLL \+ 0\.05 x U, for eps=0\.1 it must be \(1 - eps\) = 0\.9 x NLL \+ eps = 0\.1 x U"),
    (lambda e: 1 - e / 2, lambda e: e, r"your loss is 0\.95 x NLL \+ 0\.1 x U"),
    (lambda e: 1 - e, lambda e: e * 10 / 11, r"your loss is 0\.9 x NLL \+ 0\.09091 x U"),
])
def test_label_smoothing_weights_nobody_listed_are_fitted(a, b, says):
    assert_rejects(check_label_smoothing, _smoothing_by(a, b), says=says)

@pytest.mark.parametrize('fn, says', [
    (lambda s, d, w: 0 if s == 0 else d ** -0.5 * min(s ** -0.5, s * w ** -1.75),
     r"step 1 .*check the exponent -1\.5\): in the warm-up yours goes as 1 x step\^1 x warmup\^-1\.75 x d_model\^-0\.5, the formula as step\^1 x warmup\^-1\.5 x d_model\^-0\.5"),
    (lambda s, d, w: 0 if s == 0 else d ** -0.5 * s ** -1.0 * w ** 0.5 if s > w else d ** -0.5 * s * w ** -1.5,
     r"after the peak .*: in the decay yours goes as 1 x step\^-1 x warmup\^0\.5 x d_model\^-0\.5, the formula as step\^-0\.5 x d_model\^-0\.5"),
])
def test_schedule_laws_nobody_listed_are_fitted(fn, says):
    assert_rejects(check_schedule, fn, says=says)


# ---------------------------------------------------------------- more mistakes, each named by what the answer does
import contextlib, io
import transformer_nb.course.training as _named

def test_a_linear_decay_is_named():
    def lr(step, d_model=512, warmup=4000):
        if step == 0: return 0.0
        peak = (d_model * warmup) ** -0.5
        return peak * step / warmup if step < warmup else peak * max(0.0, 1 - (step - warmup) / 100000)
    out = io.StringIO()
    with contextlib.redirect_stdout(out): assert _named.check_schedule(lr) is False
    assert 'after the peak your rate falls in a straight line' in out.getvalue()

def test_a_mean_of_sentence_means_is_named():
    def loss(logits, target, eps, pad_id=0):
        lp, keep = logits.log_softmax(-1), (target != pad_id).float()
        each = (1 - eps) * -lp.gather(-1, target[..., None])[..., 0] - eps * lp.mean(-1)
        return ((each * keep).sum(-1) / keep.sum(-1)).mean()
    out = io.StringIO()
    with contextlib.redirect_stdout(out): assert _named.check_label_smoothing(loss) is False
    assert "likely a mean of each sentence's mean" in out.getvalue()

def test_a_warm_up_rounded_to_zero_is_named():
    out = io.StringIO()
    lr = lambda s, d, w: d ** -0.5 * min(s ** -0.5, (s // w) * w ** -0.5) if s else 0.0
    with contextlib.redirect_stdout(out): assert _named.check_schedule(lr) is False
    assert 'the rate is 0 in the warm-up: an integer division (step // warmup)' in out.getvalue()

@pytest.mark.parametrize('k', [2, 3])
def test_a_constant_factor_in_front_is_not_read_as_a_step_off_by_one(k):
    "k x noam_lr at every step equals the rate of step + 1 at step 1 in the warm-up (for k = 2): it is named as a constant factor."
    out = io.StringIO()
    lr = lambda s, d, w: k * d ** -0.5 * min(s ** -0.5, s * w ** -1.5) if s else 0.0
    with contextlib.redirect_stdout(out): assert _named.check_schedule(lr) is False
    assert f"it is {k} times the right rate at every step: a constant factor {k} in front" in out.getvalue(), out.getvalue()

def test_a_target_that_does_not_sum_to_one_is_named():
    "eps / V given to the reference twice: the fitted loss is read back as a target q, whose sum and reference share are named."
    out = io.StringIO()
    def twice(logits, t, eps, pad_id=PAD_ID):
        lp, keep, V = logits.log_softmax(-1), t != pad_id, logits.shape[-1]
        nll = -lp.gather(-1, t[..., None])[..., 0]
        return ((1 - eps + eps / V) * nll - eps * lp.mean(-1))[keep].mean()
    with contextlib.redirect_stdout(out): assert _named.check_label_smoothing(twice) is False
    assert re.search(r"and sums to 1\.009, not 1: the reference got eps / V twice, once as every token does and once more; q is 1 - eps \+ eps / V", out.getvalue()), out.getvalue()

@pytest.mark.parametrize('fn, says', [
    (lambda s, d=512, w=4000: 0.0 if s == 0 else d ** -0.5 * (s * w ** -1.5 if s <= w // 2 else s ** -0.5),
     r"step 3999 .*; your warm-up ends early: the rate follows the warm-up up to step 2000 and the decay from step 2001, before the peak"),
    (lambda s, d=512, w=4000: 0.0 if s == 0 else d ** -0.5 * (s * w ** -1.5 if s < w // 4 else s ** -0.5),
     r"step 2000 .*; your warm-up ends early: the rate follows the warm-up up to step 999 and the decay from step 1000"),
    (lambda s, d=512, w=4000: 0.0 if s == 0 else d ** -0.5 * min(s ** -0.5, s * w ** -1.5, 1e-3),
     r"step 2000 .*; your rate stays at 4.419e-05 at steps 1999, 2000 and 2001: it is capped, a min with a constant"),
    (lambda s, d=512, w=4000: 0.0 if s == 0 else min(d ** -0.5 * min(s ** -0.5, s * w ** -1.5), 2e-4),
     r"; your rate stays at 0.0002 at steps .*: it is capped")])
def test_a_warm_up_cut_short_or_a_capped_rate_is_named(fn, says):
    assert_rejects(check_schedule, fn, says=says)

def test_a_target_whose_pad_column_is_zero_is_named():
    "q = eps / V on every token and 1 - eps more on the reference, then PAD's column set to 0 without renormalising."
    def zero_pad(logits, target, eps, pad_id=PAD_ID):
        V, lp = logits.shape[-1], logits.log_softmax(-1)
        q = torch.full_like(lp, eps / V).scatter_add(-1, target[..., None], torch.full_like(lp[..., :1], 1 - eps))
        q[..., pad_id] = 0
        keep = target != pad_id
        return -(q * lp).sum(-1)[keep].mean()
    assert_rejects(check_label_smoothing, zero_pad, says=r"eps=0.1, unpadded targets: .*; likely PAD's column of q set to 0 .*yours gives PAD nothing and sums to 1 - eps / V")

# ---------------------------------------------------------------- slips of later blind answers, named by property
def _annotated_kl(logits, target, eps, pad_id=PAD_ID):
    "The Annotated Transformer's LabelSmoothing with KLDivLoss(sum), per token: eps/(V-2), PAD's column 0, less the entropy of q."
    V = logits.shape[-1]; x, t = logits.log_softmax(-1).reshape(-1, V), target.reshape(-1)
    q = torch.full_like(x, eps / (V - 2)); q.scatter_(1, t[:, None], 1 - eps); q[:, pad_id] = 0; q[t == pad_id] = 0
    return torch.nn.KLDivLoss(reduction='sum')(x, q) / (t != pad_id).sum()

@pytest.mark.parametrize('check, answer, says', [
    (check_schedule, lambda step, d_model=512, warmup=4000: 0.0 if step == 0 else d_model ** -0.5 * (step / warmup if step < warmup else (warmup / step) ** 0.5),
     r"63.25 times the right rate at every step: 63.25 = warmup \*\* 0.5: a rise of step / warmup reaches d_model \*\* -0.5 at the peak"),
    (check_schedule, lambda step, d_model=512, warmup=4000: __import__('numpy').asarray([0.0 if step == 0 else noam_like(step, d_model, warmup)]),
     r"returned a ndarray of shape \(1,\): return one number, a Python float"),
    (check_label_smoothing, lambda logits, target, eps, pad_id=PAD_ID: F.cross_entropy(logits, target, label_smoothing=eps, ignore_index=pad_id),
     r"F.cross_entropy raised RuntimeError \(Expected target size .*\): it reads the classes on dim 1, so \(B, T, V\) logits make T the classes"),
    (check_label_smoothing, _annotated_kl, r"that is The Annotated Transformer's label smoothing as its code computes it \(KLDivLoss\)"),
])
def test_schedule_and_smoothing_slips_are_named(check, answer, says, capsys):
    ok, line = verdict(check, answer, capsys)
    assert ok is False and re.search(says, line), line

def noam_like(step, d_model, warmup): return d_model ** -0.5 * min(step ** -0.5, step * warmup ** -1.5)

# ---------------------------------------------------------------- d_model ** -0.5 on one term, warmup + 1, log(softmax), a mean over V, the positions' axis
def _ls(logits, target, eps, pad_id=PAD_ID, logp=lambda x: x.log_softmax(-1), reduce=lambda t: t.sum(-1)):
    "Label-smoothed cross-entropy over the non-pad positions, with log p from `logp` and q * log p reduced over the vocabulary by `reduce`."
    V = logits.shape[-1]
    q = torch.full_like(logits, eps / V).scatter_add(-1, target[..., None], torch.full_like(logits[..., :1], 1 - eps))
    return -reduce(q * logp(logits))[target != pad_id].mean()

@pytest.mark.parametrize('check, answer, says', [
    (check_schedule, lambda s, d, w: 0.0 if s == 0 else min(s ** -0.5, d ** -0.5 * s * w ** -1.5),
     r"step 4001 .*the factor d_model \*\* -0.5 multiplies the warm-up term alone: the decay term step \*\* -0.5 without it is d_model \*\* 0.5 times larger"),
    (check_schedule, lambda s, d, w: 0.0 if s == 0 else d ** -0.5 * min(s ** -0.5, s * (w + 1) ** -1.5),
     r"step 1 .*your warm-up term is step \* 4001 \*\* -1.5, warmup = 4001 \(warmup \+ 1\): use the argument itself"),
    (check_label_smoothing, lambda lg, t, eps, pad_id=PAD_ID: _ls(lg, t, eps, pad_id, logp=lambda x: x.softmax(-1).log()),
     r"eps=0.1, logits 50 times larger: got inf, .*likely log\(softmax\(logits\)\): softmax underflows to 0"),
    (check_label_smoothing, lambda lg, t, eps, pad_id=PAD_ID: _ls(lg, t, eps, pad_id, reduce=lambda x: x.mean(-1)),
     r"sums to 0.09091, not 1: that is 1/V = 1/11, a mean over the vocabulary, .mean\(-1\), where the sum belongs"),
    (check_label_smoothing, lambda lg, t, eps, pad_id=PAD_ID: _ls(lg, t, eps, pad_id, logp=lambda x: x.log_softmax(1)),
     r"likely log_softmax over the wrong axis \(dim=1, the positions of \(B, T, V\) logits\): normalise over the vocabulary"),
])
def test_a_factor_on_one_term_another_warmup_and_smoothing_slips_are_named(check, answer, says, capsys):
    ok, line = verdict(check, answer, capsys)
    assert ok is False and re.search(says, line), line
    right = (lambda s, d, w: 0.0 if s == 0 else noam_like(s, d, w)) if check is check_schedule else _ls
    assert verdict(check, right, capsys)[0] is True

# ---------------------------------------------------------------- a decay term too steep to let the warm-up show
def _steep_decay(step, d_model, warmup):
    "The schedule with step ** -1.5 in the decay term: it is the smaller from step 63 on, long before the peak."
    return 0.0 if step == 0 else d_model ** -0.5 * min(step ** -1.5, step * warmup ** -1.5)

def test_a_decay_term_that_wins_in_the_warm_up_is_named():
    assert_rejects(_ex.check_schedule, _steep_decay, says=r"step 2000 \(d_model=512, warmup=4000\): .*in the warm-up your rate does not depend on "
                                                          r"warmup and goes as step \*\* -1.5: that is your decay term, .*step \*\* -0.5 \(check its exponent\)")

# ---------------------------------------------------------------- a fresh blind set: wrong answers written before reading the messages
import re as _n9re
from nbtools import assert_rejects as _n9_rejects
from transformer_nb.course import training as _n9_tr
def _n9_sched(f): return lambda step, d_model=512, warmup=4000: 0.0 if step == 0 else f(step, d_model, warmup)
def _n9_ls(q_of, keep_pads=False, raw=False):
    def ls(logits, target, eps, pad_id=0):
        V = logits.shape[-1]; lp = logits if raw else logits.log_softmax(-1); q = q_of(lp, target, eps, V)
        loss = -(q * lp).sum(-1); return loss.mean() if keep_pads else loss[target != pad_id].mean()
    return ls
_n9_q = lambda lp, t, eps, V: torch.full_like(lp, eps / V).scatter_(-1, t[..., None], 1 - eps + eps / V)
_n9_q_t2t = lambda lp, t, eps, V: torch.full_like(lp, eps / (V - 1)).scatter_(-1, t[..., None], 1 - eps)
NINTH = [('no d_model factor', _n9_tr.check_schedule, (_n9_sched(lambda s, d, w: min(s ** -0.5, s * w ** -1.5)),), "the factor is d_model ** -0.5"),
         ('max for min', _n9_tr.check_schedule, (_n9_sched(lambda s, d, w: d ** -0.5 * max(s ** -0.5, s * w ** -1.5)),), "no warm-up: take the smaller of the two terms"),
         ('warmup ** -0.5 in the ramp', _n9_tr.check_schedule, (_n9_sched(lambda s, d, w: d ** -0.5 * min(s ** -0.5, s * w ** -0.5)),), "check the exponent -1.5"),
         ('no decay term', _n9_tr.check_schedule, (_n9_sched(lambda s, d, w: d ** -0.5 * s * w ** -1.5),), "the decay term is missing"),
         ('no decay term, capped at 1', _n9_tr.check_schedule, (_n9_sched(lambda s, d, w: d ** -0.5 * min(1.0, s * w ** -1.5)),), "the decay term is missing"),
         ('decay exponent +0.5', _n9_tr.check_schedule, (_n9_sched(lambda s, d, w: d ** -0.5 * min(s ** 0.5, s * w ** -1.5)),), "check its exponent, step ** -0.5"),
         ('pads counted', _n9_tr.check_label_smoothing, (_n9_ls(_n9_q, keep_pads=True),), "likely padding counted"),
         ("tensor2tensor's eps / (V - 1)", _n9_tr.check_label_smoothing, (_n9_ls(_n9_q_t2t),), "that is tensor2tensor's label smoothing"),
         ('raw logits', _n9_tr.check_label_smoothing, (_n9_ls(_n9_q, raw=True),), "likely raw logits where log-probabilities belong")]
NINTH += [('warmup ** +1.5', _n9_tr.check_schedule, (_n9_sched(lambda s, d, w: d ** -0.5 * min(s ** -0.5, s * w ** 1.5)),), "warmup ** 1.5 makes it never the smaller"),
          ('d_model ** +0.5', _n9_tr.check_schedule, (_n9_sched(lambda s, d, w: d ** 0.5 * min(s ** -0.5, s * w ** -1.5)),), "the factor is d_model ** -0.5"),
          ('no uniform part', _n9_tr.check_label_smoothing, (_n9_ls(lambda lp, t, eps, V: torch.zeros_like(lp).scatter_(-1, t[..., None], 1 - eps)),), "likely the smoothing left out"),
          ('a sum, not the mean', _n9_tr.check_label_smoothing, (lambda logits, target, eps, pad_id=0: _n9_ls(_n9_q)(logits, target, eps, pad_id) * (target != pad_id).sum(),), "likely a sum: divide by the number of non-pad positions")]
NINTH += [('q does not sum to 1', _n9_tr.check_label_smoothing, (_n9_ls(lambda lp, t, eps, V: torch.full_like(lp, eps / V).scatter_(-1, t[..., None], 1 - eps)),),
           "likely the reference given 1 - eps alone"),
          ('cross_entropy on (B, T, V)', _n9_tr.check_label_smoothing, (lambda logits, target, eps, pad_id=0: F.cross_entropy(logits, target, label_smoothing=eps, ignore_index=pad_id),),
           "it reads the classes on dim 1")]

@pytest.mark.parametrize('label', [c[0] for c in NINTH])
def test_ninth_blind_answers_named(label):
    "Each answer of the blind set is refused with a message that names its mistake."
    _, check, answer, words = next(c for c in NINTH if c[0] == label)
    _n9_rejects(check, *answer, says=_n9re.escape(words))


# ---------------------------------------------------------------- the thirteenth blind set's misses (results/checker_answers.json)
@pytest.mark.parametrize('p, meet', [(-0.5, r'warmup \*\* 0\.333 = 15\.87'), (-1, r'warmup \*\* 0\.667 = 252'), (-2, r'warmup \*\* 1\.33')])
def test_a_warm_up_term_with_another_power_of_warmup_is_named(p, meet):
    "step * warmup ** p for p other than -1.5: the power named, and where the two terms then meet (not a law fitted in the decay)."
    fn = nl(lambda step, d_model=512, warmup=4000: 0.0 if step == 0 else d_model ** -0.5 * min(step ** -0.5, step * warmup ** p))
    assert_rejects(check_schedule, fn, says=rf"your warm-up term is step \* warmup \*\* {p:g}: check the exponent -1\.5.*meet at step {meet}")

def test_eps_and_one_minus_eps_swapped_is_named():
    "q = eps one-hot + (1 - eps) / V: the swap named, not only a fitted a x NLL + b x U."
    def f(logits, target, eps, pad_id=PAD_ID):
        V, lp = logits.shape[-1], F.log_softmax(logits, -1)
        loss = -((eps * F.one_hot(target, V) + (1 - eps) / V) * lp).sum(-1)
        return loss[target != pad_id].mean()
    assert_rejects(check_label_smoothing, ls(f), says=r"eps and 1 - eps swapped: .*yours puts eps on the reference")


# ---------------------------------------------------------------- the eighteenth blind set's misses (results/checker_answers.json)
def test_d_model_and_warmup_read_the_other_way_are_named():
    def my_noam_lr(step, warmup=4000, d_model=512):
        return 0.0 if step == 0 else d_model ** -0.5 * min(step ** -0.5, step * warmup ** -1.5)
    assert_rejects(check_schedule, my_noam_lr, says=r"d_model and warmup read the other way")

def test_a_warm_up_to_a_base_rate_is_named():
    "nanoGPT's get_lr: a linear warm-up to a fixed 6e-4, then a cosine: the base rate named, not a fitted law."
    def my_noam_lr(step, d_model=512, warmup=4000):
        if step < warmup: return 6e-4 * step / warmup
        return 6e-5 + 0.5 * (1 + math.cos(math.pi * min(1.0, (step - warmup) / 96000))) * (6e-4 - 6e-5)
    assert_rejects(check_schedule, my_noam_lr, says=r"your warm-up rises as 0\.0006 x step / warmup, to a peak of 0\.0006 that d_model does not change")

@pytest.mark.parametrize('where, says', [
    ('shift', r"likely the positions shifted by one, logits\[:, :-1\] scored against target\[:, 1:\]"),
    ('pads summed', r"likely every position summed, the pads too, then divided by the non-pad count")])
def test_losses_over_other_positions_are_named(where, says):
    def my_label_smoothing(logits, target, eps, pad_id=PAD_ID):
        if where == 'shift': logits, target = logits[:, :-1], target[:, 1:]
        V = logits.shape[-1]
        q = torch.full_like(logits, eps / V).scatter_add_(-1, target[..., None], torch.full_like(logits[..., :1], 1 - eps))
        loss = -(q * logits.log_softmax(-1)).sum(-1)
        return loss.sum() / (target != pad_id).sum() if where == 'pads summed' else loss[target != pad_id].mean()
    assert_rejects(check_label_smoothing, my_label_smoothing, says=says)


# ---------------------------------------------------------------- the twentieth blind set's misses (results/checker_answers.json)
def test_a_rate_rounded_as_a_log_prints_it_is_named():
    def my_noam_lr(step, d_model=512, warmup=4000):
        return 0.0 if step == 0 else round(d_model ** -0.5 * min(step ** -0.5, step * warmup ** -1.5), 6)
    assert_rejects(check_schedule, my_noam_lr, says=r"your rate is rounded to 6 decimals \(0 at step 1, where the rate is 1.747e-07\)")

def test_lambdalrs_multiplier_is_named():
    "The schedule as a multiplier, 1 at the peak: d_model ** 0.5 * warmup ** 0.5 times the rate, named, not a constant factor."
    def my_noam_lr(step, d_model=512, warmup=4000):
        return 0.0 if step == 0 else min(step ** -0.5, step * warmup ** -1.5) * warmup ** 0.5
    assert_rejects(check_schedule, my_noam_lr, says=r"that is d_model \*\* 0.5 \* warmup \*\* 0.5, 1 over the peak rate: yours is 1 at the peak, a multiplier")

def _ls20(ret=lambda loss, keep: loss[keep].mean(), inverted=False):
    def my_label_smoothing(logits, target, eps, pad_id=PAD_ID):
        V = logits.shape[-1]
        q = torch.full_like(logits, eps / V).scatter_add_(-1, target[..., None], torch.full_like(logits[..., :1], 1 - eps))
        loss = -(q * logits.log_softmax(-1)).sum(-1)
        return ret(loss, (target == pad_id) if inverted else (target != pad_id))
    return my_label_smoothing

@pytest.mark.parametrize('answer, says', [
    (_ls20(inverted=True), r"eps=0.0, unpadded targets: got nan, a mean over no positions: likely the pad mask inverted"),
    (_ls20(ret=lambda loss, keep: (loss[keep].mean(), int(keep.sum()))), r"returned a tuple of 2 \(\(loss, number of tokens\)\?, as a fairseq criterion returns\)"),
    (_ls20(ret=lambda loss, keep: loss[keep].mean().detach().numpy()), r"returned a ndarray: return the loss alone, a tensor that loss.backward\(\) can follow"),
    (_ls20(ret=lambda loss, keep: loss[keep].mean().item()), r"returned a float: return the loss alone, a tensor")])
def test_an_inverted_pad_mask_and_losses_that_are_no_tensor_are_named(answer, says):
    assert_rejects(check_label_smoothing, answer, says=says)

# --- the twenty-second blind set's answers that the checks first missed, each named now --------------------------------
from nbtools import assert_rejects as _t22_rejects
from transformer_nb.course.training import check_schedule as _t22_sched, check_label_smoothing as _t22_ls
_T22_PRELUDE = "import math, torch, torch.nn.functional as F\nfrom collections import Counter\nfrom transformer_nb.core import *\n"
def _t22_answer(code:str, *names):
    "The answer's functions, its code run in a fresh namespace with the notebook's imports."
    ns = {}; exec(_T22_PRELUDE + code, ns); return tuple(ns[n] for n in names)
TWENTY_SECOND = [   # (label, the answer's code, its names, the check, what its message must say)
    ('a schedule class', '\nclass my_noam_lr:\n    def __init__(self, d_model, warmup_steps=4000): self.d_model, self.warmup_steps = d_model, warmup_steps\n    def __call__(self, step):\n        if step == 0: return 0.0\n        return self.d_model ** -0.5 * min(step ** -0.5, step * self.warmup_steps ** -1.5)\n',
     ('my_noam_lr',), _t22_sched, "my_noam_lr is a class \\(as the TensorFlow tutorial's CustomSchedule"),
    ('d_model 1024 by default', '\ndef my_noam_lr(step, d_model=1024, warmup=4000):\n    if step == 0: return 0.0\n    return d_model ** -0.5 * min(step ** -0.5, step * warmup ** -1.5)\n',
     ('my_noam_lr',), _t22_sched, "my_noam_lr\\(1\\) with its defaults gave .*keep the stub's defaults"),
    ('a warm-up from 1e-7', '\ndef my_noam_lr(step, d_model=512, warmup=4000):\n    peak = (d_model * warmup) ** -0.5\n    if step < warmup: return 1e-7 + step * (peak - 1e-7) / warmup\n    return peak * (warmup / step) ** 0.5\n',
     ('my_noam_lr',), _t22_sched, 'your warm-up starts from 1e-07 at step 0'),
    ("T5's flat warm-up", '\ndef my_noam_lr(step, d_model=512, warmup=4000):\n    return d_model ** -0.5 / math.sqrt(max(step, warmup))\n',
     ('my_noam_lr',), _t22_sched, 'your rate is flat at the peak'),
    ('one_hot without num_classes', '\ndef my_label_smoothing(logits, target, eps, pad_id=PAD_ID):\n    V = logits.shape[-1]\n    q = (1 - eps) * F.one_hot(target).float() + eps / V\n    loss = -(q * logits.log_softmax(-1)).sum(-1)\n    return loss[target != pad_id].mean()\n',
     ('my_label_smoothing',), _t22_ls, 'F.one_hot\\(target\\) without num_classes'),
]

@pytest.mark.parametrize('label, code, names, check, says', TWENTY_SECOND, ids=[r[0] for r in TWENTY_SECOND])
def test_twenty_second_blind_answers_named(label, code, names, check, says):
    _t22_rejects(check, *_t22_answer(code, *names), says=says)

# --- the twenty-fifth blind set's answers that the checks first missed, each named now ---------------------------------
from nbtools import assert_rejects as _t25_rejects
from transformer_nb.course.training import check_schedule as _t25_schedule, check_label_smoothing as _t25_label_smoothing
_T25_PRELUDE = 'import math, torch, torch.nn.functional as F\nfrom collections import Counter\nfrom transformer_nb.core import *\n'
def _t25_answer(code:str, *names):
    "The answer's functions, its code run in a fresh namespace with the notebook's imports."
    ns = {}; exec(_T25_PRELUDE + code, ns); return tuple(ns[n] for n in names)
TWENTY_FIFTH = [   # (label, the answer's code, its names, the check, what its message must say)
    ("get_last_lr()'s list", '\ndef my_noam_lr(step, d_model=512, warmup=4000):\n    if step == 0: return [0.0]\n    return [d_model ** -0.5 * min(step ** -0.5, step * warmup ** -1.5)]\n',
     ('my_noam_lr',), _t25_schedule, 'returned\\ a\\ list,\\ \\[0\\.0\\]:\\ return\\ the\\ rate\\ itself'),
    ('the scatter on axis 1', '\ndef my_label_smoothing(logits, target, eps, pad_id=PAD_ID):\n    V = logits.shape[-1]\n    q = torch.full_like(logits, eps / V)\n    q.scatter_add_(1, target.unsqueeze(1), torch.full(target.unsqueeze(1).shape, 1 - eps, dtype=logits.dtype))\n    loss = -(q * logits.log_softmax(-1)).sum(-1)\n    return loss[target != pad_id].mean()\n',
     ('my_label_smoothing',), _t25_label_smoothing, 'not\\ axis\\ 1'),
]

@pytest.mark.parametrize('label, code, names, check, says', TWENTY_FIFTH, ids=[r[0] for r in TWENTY_FIFTH])
def test_twenty_fifth_blind_answers_named(label, code, names, check, says):
    _t25_rejects(check, *_t25_answer(code, *names), says=says)

# --- the twenty-seventh blind set's answers that the checks first missed, each named now ---------------------------------
from nbtools import assert_rejects as _t27_rejects
from transformer_nb.course.training import check_schedule as _t27_check_schedule, check_label_smoothing as _t27_check_label_smoothing
_T27_PRELUDE = 'import math, torch, torch.nn.functional as F\nfrom collections import Counter\nfrom transformer_nb.core import *\n'
def _t27_answer(code:str, *names):
    "The answer's functions, its code run in a fresh namespace with the notebook's imports."
    ns = {}; exec(_T27_PRELUDE + code, ns); return tuple(ns[n] for n in names)
TWENTY_SEVENTH = [   # (label, the answer's code, its names, the check, what its message must say)
    ("fairseq's fixed peak", '\ndef my_noam_lr(step, d_model=512, warmup=4000):\n    if step == 0: return 0.0\n    return 5e-4 * min(step / warmup, (warmup / step) ** 0.5)\n',
     ('my_noam_lr',), _t27_check_schedule, 'whatever\\ d_model\\ and\\ warmup\\ \\(a\\ fixed\\ learning\\ rate'),
    ('None at step 0', '\ndef my_noam_lr(step, d_model=512, warmup=4000):\n    if step > 0: return d_model ** -0.5 * min(step ** -0.5, step * warmup ** -1.5)\n',
     ('my_noam_lr',), _t27_check_schedule, 'returned\\ None:\\ every\\ path\\ of\\ your\\ function\\ must\\ return\\ the\\ rate'),
    ('no_grad loss', '\ndef my_label_smoothing(logits, target, eps, pad_id=PAD_ID):\n    V = logits.shape[-1]\n    q = torch.full_like(logits, eps / V)\n    q.scatter_add_(-1, target[..., None], torch.full_like(logits[..., :1], 1 - eps))\n    with torch.no_grad(): loss = -(q * logits.log_softmax(-1)).sum(-1)\n    return loss[target != pad_id].mean()\n',
     ('my_label_smoothing',), _t27_check_label_smoothing, 'it\\ was\\ computed\\ under\\ torch\\.no_grad\\(\\),\\ from\\ detached\\ logits'),
]

@pytest.mark.parametrize('label, code, names, check, says', TWENTY_SEVENTH, ids=[r[0] for r in TWENTY_SEVENTH])
def test_twenty_seventh_blind_answers_named(label, code, names, check, says):
    _t27_rejects(check, *_t27_answer(code, *names), says=says)

# --- the thirtieth blind set's answers that the checks first missed, each named now --------------------------------------
from nbtools import assert_rejects as _t30_rejects
from transformer_nb.course.training import check_schedule as _t30_check_schedule, check_label_smoothing as _t30_check_label_smoothing
_T30_PRELUDE = 'import math, torch, torch.nn.functional as F\nfrom collections import Counter\nfrom transformer_nb.core import *\n'
def _t30_answer(code:str, *names):
    "The answer's functions, its code run in a fresh namespace with the notebook's imports."
    ns = {}; exec(_T30_PRELUDE + code, ns); return tuple(ns[n] for n in names)
THIRTIETH = [   # (label, the answer's code, its names, the check, what its message must say)
    ('precedence: d_model ** -1/2', '\ndef my_noam_lr(step, d_model=512, warmup=4000):\n    if step == 0: return 0.0\n    return d_model ** -1/2 * min(step ** -0.5, step * warmup ** -1.5)\n',
     ('my_noam_lr',), _t30_check_schedule, 'in\\ Python\\ d_model\\ \\*\\*\\ \\-1/2\\ is\\ \\(d_model\\ \\*\\*\\ \\-1\\)\\ /\\ 2'),
    ('the factor d_model ** -0.5 inside the min', '\ndef my_noam_lr(step, d_model=512, warmup=4000):\n    if step == 0: return 0.0\n    return min(d_model ** -0.5 * step ** -0.5, step * warmup ** -1.5)\n',
     ('my_noam_lr',), _t30_check_schedule, 'the\\ factor\\ d_model\\ \\*\\*\\ \\-0\\.5\\ multiplies\\ the\\ decay\\ term\\ alone'),
    ('a cache keyed by the step alone', '\ndef my_noam_lr(step, d_model=512, warmup=4000, _cache={}):\n    if step not in _cache: _cache[step] = 0.0 if step == 0 else d_model ** -0.5 * min(step ** -0.5, step * warmup ** -1.5)\n    return _cache[step]\n',
     ('my_noam_lr',), _t30_check_schedule, 'your\\ function\\ keeps\\ rates\\ between\\ calls'),
    ('V from axis 1', '\ndef my_label_smoothing(logits, target, eps, pad_id=PAD_ID):\n    V = logits.shape[1]\n    q = torch.full_like(logits, eps / V)\n    q.scatter_add_(-1, target[..., None], torch.full_like(logits[..., :1], 1 - eps))\n    loss = -(q * logits.log_softmax(-1)).sum(-1)\n    return loss[target != pad_id].mean()\n',
     ('my_label_smoothing',), _t30_check_label_smoothing, 'is\\ the\\ size\\ of\\ axis\\ 1\\ of\\ the\\ logits'),
    ('the reference mass added by q[..., target]', '\ndef my_label_smoothing(logits, target, eps, pad_id=PAD_ID):\n    V = logits.shape[-1]\n    q = torch.full_like(logits, eps / V)\n    q[..., target] += 1 - eps\n    loss = -(q * logits.log_softmax(-1)).sum(-1)\n    return loss[target != pad_id].mean()\n',
     ('my_label_smoothing',), _t30_check_label_smoothing, 'to\\ every\\ token\\ that\\ is\\ the\\ target\\ of\\ some\\ position'),
    ('cross_entropy on logits.transpose(1, 2)', '\ndef my_label_smoothing(logits, target, eps, pad_id=PAD_ID):\n    return F.cross_entropy(logits.transpose(1, 2), target, ignore_index=pad_id, label_smoothing=eps)\n',
     ('my_label_smoothing',), _t30_check_label_smoothing, 'logits\\.transpose\\(1,\\ 2\\)\\ fits\\ 3\\-d\\ logits\\ only'),
    ('V from axis 0 (a variant)', '\ndef my_label_smoothing(logits, target, eps, pad_id=PAD_ID):\n    V = logits.size(0)\n    q = torch.full_like(logits, eps / V)\n    q.scatter_add_(-1, target[..., None], torch.full_like(logits[..., :1], 1 - eps))\n    loss = -(q * logits.log_softmax(-1)).sum(-1)\n    return loss[target != pad_id].mean()\n',
     ('my_label_smoothing',), _t30_check_label_smoothing, 'is\\ the\\ size\\ of\\ axis\\ 0\\ of\\ the\\ logits'),
    ('a global cache by step (a variant)', '\n_C = {}\ndef my_noam_lr(step, d_model=512, warmup=4000):\n    if step in _C: return _C[step]\n    _C[step] = 0.0 if step == 0 else d_model ** -0.5 * min(step ** -0.5, step * warmup ** -1.5)\n    return _C[step]\n',
     ('my_noam_lr',), _t30_check_schedule, 'your\\ function\\ keeps\\ rates\\ between\\ calls'),
]

@pytest.mark.parametrize('label, code, names, check, says', THIRTIETH, ids=[r[0] for r in THIRTIETH])
def test_thirtieth_blind_answers_named(label, code, names, check, says):
    _t30_rejects(check, *_t30_answer(code, *names), says=says)

# --- the thirty-fourth blind set's answers that the checks first missed, each named now (and a variant of each) ---------
from nbtools import assert_rejects as _t34_rejects
from transformer_nb.course.training import check_schedule as _t34_check_schedule, check_label_smoothing as _t34_check_label_smoothing
_T34_PRELUDE = 'import math, torch, torch.nn.functional as F\nfrom transformer_nb.core import *\n'
THIRTY_FOURTH = [   # (the function, label, the answer's code, what its message must say)
    ('my_noam_lr', 'the decay counted from the peak', '\ndef my_noam_lr(step, d_model=512, warmup=4000):\n    if step == 0: return 0.0\n    if step <= warmup: return d_model ** -0.5 * step * warmup ** -1.5\n    return d_model ** -0.5 * warmup ** -0.5 * max(step - warmup, 1) ** -0.5\n',
     'after\\ the\\ peak\\ yours\\ falls\\ as\\ \\(step\\ \\-\\ warmup\\)\\ \\*\\*\\ \\-0\\.5'),
    ('my_noam_lr', 'the decay from the peak, (step - warmup + 1) (a variant)', '\ndef my_noam_lr(step, d_model=512, warmup=4000):\n    if step == 0: return 0.0\n    peak = (d_model * warmup) ** -0.5\n    return peak * step / warmup if step <= warmup else peak * (step - warmup + 1) ** -0.5\n',
     'after\\ the\\ peak\\ yours\\ falls\\ as\\ \\(step\\ \\-\\ warmup\\)\\ \\*\\*\\ \\-0\\.5'),
    ('my_noam_lr', 'the warm-up from step + 1', '\ndef my_noam_lr(step, d_model=512, warmup=4000):\n    if step == 0: return 0.0\n    return d_model ** -0.5 * min(step ** -0.5, (step + 1) * warmup ** -1.5)\n',
     'in\\ the\\ warm\\-up\\ yours\\ is\\ \\(step\\ \\+\\ 1\\)\\ \\*\\ warmup\\ \\*\\*\\ \\-1\\.5'),
    ('my_noam_lr', 'the warm-up from step - 1 (a variant)', '\ndef my_noam_lr(step, d_model=512, warmup=4000):\n    if step == 0: return 0.0\n    return d_model ** -0.5 * min(step ** -0.5, (step - 1) * warmup ** -1.5)\n',
     'the\\ rate\\ of\\ step\\ \\-\\ 1'),
    ('my_label_smoothing', 'the smoothing term over the pads too', '\ndef my_label_smoothing(logits, target, eps, pad_id=PAD_ID):\n    logp = logits.log_softmax(-1)\n    nll = -logp.gather(-1, target[..., None])[..., 0]\n    keep = target != pad_id\n    return (1 - eps) * nll[keep].mean() + eps * (-logp.mean(-1)).mean()\n',
     'the\\ smoothing\\ term,\\ eps\\ times\\ the\\ mean\\ of\\ \\-log\\ p_i,\\ averaged\\ over\\ every\\ position'),
    ('my_label_smoothing', 'the NLL over the pads too (a variant)', '\ndef my_label_smoothing(logits, target, eps, pad_id=PAD_ID):\n    logp = logits.log_softmax(-1)\n    nll = -logp.gather(-1, target[..., None])[..., 0]\n    keep = target != pad_id\n    return (1 - eps) * nll.mean() + eps * (-logp.mean(-1))[keep].mean()\n',
     'the\\ NLL\\ averaged\\ over\\ every\\ position,\\ the\\ pads\\ too'),
    ('my_label_smoothing', 'the mean rebuilt from Python floats', '\ndef my_label_smoothing(logits, target, eps, pad_id=PAD_ID):\n    V = logits.shape[-1]\n    q = torch.full_like(logits, eps / V)\n    q.scatter_add_(-1, target[..., None], torch.full_like(logits[..., :1], 1 - eps))\n    loss = -(q * logits.log_softmax(-1)).sum(-1)\n    return torch.tensor([x.item() for x in loss[target != pad_id]]).mean()\n',
     'rebuilt\\ from\\ Python\\ numbers'),
    ('my_label_smoothing', 'the losses rebuilt by .tolist() (a variant)', '\ndef my_label_smoothing(logits, target, eps, pad_id=PAD_ID):\n    V = logits.shape[-1]\n    q = torch.full_like(logits, eps / V)\n    q.scatter_add_(-1, target[..., None], torch.full_like(logits[..., :1], 1 - eps))\n    loss = -(q * logits.log_softmax(-1)).sum(-1)\n    return torch.tensor(loss[target != pad_id].tolist()).mean()\n',
     'rebuilt\\ from\\ Python\\ numbers'),
]

@pytest.mark.parametrize('name, label, code, says', THIRTY_FOURTH, ids=[r[1] for r in THIRTY_FOURTH])
def test_thirty_fourth_blind_answers_named(name, label, code, says):
    ns = {}; exec(_T34_PRELUDE + code, ns)
    _t34_rejects(_t34_check_schedule if name == 'my_noam_lr' else _t34_check_label_smoothing, ns[name], says=says)

# --- the thirty-eighth blind set's answers that the checks first missed, each named now (and a variant of most) ---------
from nbtools import assert_rejects as _t38_rejects
from transformer_nb.course.training import check_schedule as _t38_check_schedule, check_label_smoothing as _t38_check_label_smoothing
_T38_PRELUDE = 'import math, copy, random, torch, torch.nn as nn, torch.nn.functional as F\nfrom collections import Counter\nfrom transformer_nb.core import *\n'
THIRTY_EIGHTH = [   # (the function, label, the answer's code, what its message must say)
    ('my_noam_lr', 'a parenthesis closed after step', '\ndef my_noam_lr(step, d_model=512, warmup=4000):\n    if step == 0: return 0.0\n    return d_model ** -0.5 * min(step ** -0.5, step) * warmup ** -1.5\n',
     'a\\ parenthesis\\ closed\\ after\\ step,\\ min\\(step\\ \\*\\*\\ \\-0\\.5,\\ step\\)\\ \\*\\ warmup\\ \\*\\*\\ \\-1\\.5'),
    ('my_noam_lr', 'math.isqrt for sqrt(d_model)', '\ndef my_noam_lr(step, d_model=512, warmup=4000):\n    if step == 0: return 0.0\n    return min(step ** -0.5, step * warmup ** -1.5) / math.isqrt(d_model)\n',
     'your\\ square\\ root\\ of\\ d_model\\ is\\ a\\ whole\\ number,\\ math\\.isqrt\\(d_model\\)'),
    ('my_noam_lr', 'a count of the calls for step', '\n_calls = 0\ndef my_noam_lr(step, d_model=512, warmup=4000):\n    global _calls\n    s, _calls = _calls, _calls + 1                   # the first call is step 0\n    if s == 0: return 0.0\n    return d_model ** -0.5 * min(s ** -0.5, s * warmup ** -1.5)\n',
     'your\\ function\\ keeps\\ something\\ between\\ calls\\ \\(a\\ count\\ of\\ its\\ calls\\ in\\ place\\ of\\ `step`'),
    ('my_noam_lr', "the peak's factor before the unscaled terms", '\ndef my_noam_lr(step, d_model=512, warmup=4000):\n    if step == 0: return 0.0\n    return (d_model * warmup) ** -0.5 * min(step ** -0.5, step / warmup)\n',
     "the\\ peak's\\ factor,\\ \\(d_model\\ \\*\\ warmup\\)\\ \\*\\*\\ \\-0\\.5,\\ goes\\ with\\ the\\ terms\\ scaled\\ to\\ 1\\ at\\ the\\ peak"),
    ('my_label_smoothing', 'view on a sliced target', '\ndef my_label_smoothing(logits, target, eps, pad_id=PAD_ID):\n    return F.cross_entropy(logits.view(-1, logits.shape[-1]), target.view(-1), label_smoothing=eps, ignore_index=pad_id)\n',
     'use\\ \\.reshape\\(\\-1\\),\\ which\\ copies\\ when\\ it\\ must'),
    ('my_label_smoothing', "F.one_hot's long tensor scaled in place", '\ndef my_label_smoothing(logits, target, eps, pad_id=PAD_ID):\n    V = logits.shape[-1]\n    q = F.one_hot(target, V)\n    q *= 1 - eps\n    q += eps / V\n    loss = -(q * logits.log_softmax(-1)).sum(-1)\n    return loss[target != pad_id].mean()\n',
     'an\\ integer\\ tensor\\ was\\ given\\ fractions\\ in\\ place'),
    ('my_label_smoothing', 'pads found as target > pad_id', '\ndef my_label_smoothing(logits, target, eps, pad_id=PAD_ID):\n    V = logits.shape[-1]\n    q = torch.full_like(logits, eps / V)\n    q.scatter_add_(-1, target[..., None], torch.full_like(logits[..., :1], 1 - eps))\n    loss = -(q * logits.log_softmax(-1)).sum(-1)\n    return loss[target > pad_id].mean()\n',
     'likely\\ the\\ pads\\ found\\ as\\ target\\ >\\ pad_id'),
    ('my_label_smoothing', 'V = 11 written in', '\ndef my_label_smoothing(logits, target, eps, pad_id=PAD_ID):\n    V = 11\n    q = torch.full_like(logits, eps / V)\n    q.scatter_add_(-1, target[..., None], torch.full_like(logits[..., :1], 1 - eps))\n    loss = -(q * logits.log_softmax(-1)).sum(-1)\n    return loss[target != pad_id].mean()\n',
     "likely\\ V\\ =\\ 11\\ written\\ in\\ \\(the\\ example's\\ 11\\)"),
    ('my_label_smoothing', "the model's p smoothed", '\ndef my_label_smoothing(logits, target, eps, pad_id=PAD_ID):\n    V = logits.shape[-1]\n    p = (1 - eps) * logits.softmax(-1) + eps / V\n    loss = -p.log().gather(-1, target[..., None]).squeeze(-1)\n    return loss[target != pad_id].mean()\n',
     "likely\\ the\\ model's\\ probabilities\\ smoothed"),
    ('my_label_smoothing', 'the cross-entropy the other way round', '\ndef my_label_smoothing(logits, target, eps, pad_id=PAD_ID):\n    V = logits.shape[-1]\n    q = torch.full_like(logits, eps / V)\n    q.scatter_add_(-1, target[..., None], torch.full_like(logits[..., :1], 1 - eps))\n    loss = -(logits.softmax(-1) * q.log()).sum(-1)\n    return loss[target != pad_id].mean()\n',
     'likely\\ the\\ cross\\-entropy\\ the\\ other\\ way\\ round,\\ \\-sum_i\\ p_i\\ log\\ q_i'),
    ('my_label_smoothing', 'the uniform part without its logsumexp', '\ndef my_label_smoothing(logits, target, eps, pad_id=PAD_ID):\n    lse = logits.logsumexp(-1)\n    nll = lse - logits.gather(-1, target[..., None]).squeeze(-1)\n    uniform = -logits.mean(-1)\n    keep = target != pad_id\n    return ((1 - eps) * nll + eps * uniform)[keep].mean()\n',
     'likely\\ the\\ uniform\\ part\\ from\\ the\\ raw\\ logits'),
    ('my_label_smoothing', "the batch's max subtracted", '\ndef my_label_smoothing(logits, target, eps, pad_id=PAD_ID):\n    V = logits.shape[-1]\n    z = logits - logits.max()                                        # for stability\n    lp = z - z.exp().sum(-1, keepdim=True).log()\n    q = torch.full_like(logits, eps / V)\n    q.scatter_add_(-1, target[..., None], torch.full_like(logits[..., :1], 1 - eps))\n    loss = -(q * lp).sum(-1)\n    return loss[target != pad_id].mean()\n',
     'a\\ log\\-softmax\\ by\\ hand\\ that\\ subtracts\\ one\\ max\\ for\\ the\\ whole\\ batch'),
    ('my_label_smoothing', 'no max subtracted', '\ndef my_label_smoothing(logits, target, eps, pad_id=PAD_ID):\n    V = logits.shape[-1]\n    lp = logits - logits.exp().sum(-1, keepdim=True).log()\n    q = torch.full_like(logits, eps / V)\n    q.scatter_add_(-1, target[..., None], torch.full_like(logits[..., :1], 1 - eps))\n    loss = -(q * lp).sum(-1)\n    return loss[target != pad_id].mean()\n',
     'exp\\ of\\ a\\ logit\\ above\\ about\\ 88\\ overflows\\ to\\ inf'),
    ('my_label_smoothing', 'log(softmax + 1e-9)', '\ndef my_label_smoothing(logits, target, eps, pad_id=PAD_ID):\n    V = logits.shape[-1]\n    lp = (logits.softmax(-1) + 1e-9).log()\n    q = torch.full_like(logits, eps / V)\n    q.scatter_add_(-1, target[..., None], torch.full_like(logits[..., :1], 1 - eps))\n    loss = -(q * lp).sum(-1)\n    return loss[target != pad_id].mean()\n',
     'likely\\ log\\(softmax\\(logits\\)\\ \\+\\ 1e\\-09\\)'),
    ('my_label_smoothing', 'eps over the V - 1 tokens but PAD', '\ndef my_label_smoothing(logits, target, eps, pad_id=PAD_ID):\n    V = logits.shape[-1]\n    q = torch.full_like(logits, eps / (V - 1))\n    q[..., pad_id] = 0                                               # padding is not a word\n    q.scatter_add_(-1, target[..., None], torch.full_like(logits[..., :1], 1 - eps))\n    loss = -(q * logits.log_softmax(-1)).sum(-1)\n    return loss[target != pad_id].mean()\n',
     'likely\\ eps\\ spread\\ over\\ the\\ V\\ \\-\\ 1\\ tokens\\ that\\ are\\ not\\ PAD'),
    ('my_label_smoothing', "PAD's column zeroed, q renormalised", '\ndef my_label_smoothing(logits, target, eps, pad_id=PAD_ID):\n    V = logits.shape[-1]\n    q = torch.full_like(logits, eps / V)\n    q.scatter_add_(-1, target[..., None], torch.full_like(logits[..., :1], 1 - eps))\n    q[..., pad_id] = 0\n    q = q / q.sum(-1, keepdim=True)\n    loss = -(q * logits.log_softmax(-1)).sum(-1)\n    return loss[target != pad_id].mean()\n',
     "likely\\ PAD's\\ column\\ of\\ q\\ set\\ to\\ 0\\ and\\ q\\ renormalised"),
    ('my_label_smoothing', 'loss[mask.nonzero()]', '\ndef my_label_smoothing(logits, target, eps, pad_id=PAD_ID):\n    V = logits.shape[-1]\n    q = torch.full_like(logits, eps / V)\n    q.scatter_add_(-1, target[..., None], torch.full_like(logits[..., :1], 1 - eps))\n    loss = -(q * logits.log_softmax(-1)).sum(-1)\n    return loss[(target != pad_id).nonzero()].mean()\n',
     'likely\\ the\\ positions\\ picked\\ with\\ mask\\.nonzero\\(\\)'),
    ('my_label_smoothing', 'q cached by shape', '\n_q = {}\ndef my_label_smoothing(logits, target, eps, pad_id=PAD_ID):\n    V = logits.shape[-1]\n    if logits.shape not in _q:                                       # build q once\n        q = torch.full_like(logits, eps / V)\n        q.scatter_add_(-1, target[..., None], torch.full_like(logits[..., :1], 1 - eps))\n        _q[logits.shape] = q\n    loss = -(_q[logits.shape] * logits.log_softmax(-1)).sum(-1)\n    return loss[target != pad_id].mean()\n',
     'it\\ keeps\\ q\\ \\(or\\ part\\ of\\ it\\)\\ between\\ calls,\\ a\\ cache\\ keyed\\ by\\ the\\ shape'),
    ('my_label_smoothing', 'a long scatter source', '\ndef my_label_smoothing(logits, target, eps, pad_id=PAD_ID):\n    V = logits.shape[-1]\n    q = torch.full_like(logits, eps / V)\n    q.scatter_add_(-1, target[..., None], torch.full_like(target[..., None], 1 - eps))\n    loss = -(q * logits.log_softmax(-1)).sum(-1)\n    return loss[target != pad_id].mean()\n',
     'the\\ values\\ scattered\\ into\\ q\\ are\\ integers'),
    # variants of the same mistakes
    ('my_noam_lr', 'the parenthesis closed after step, with math.sqrt (a variant)', '\ndef my_noam_lr(step, d_model=512, warmup=4000):\n    if step == 0: return 0.0\n    return min(1 / math.sqrt(step), step) * warmup ** -1.5 / math.sqrt(d_model)\n',
     re.escape("a parenthesis closed after step")),
    ('my_noam_lr', 'int(math.sqrt(d_model)) (a variant)', '\ndef my_noam_lr(step, d_model=512, warmup=4000):\n    if step == 0: return 0.0\n    return min(step ** -0.5, step * warmup ** -1.5) / int(math.sqrt(d_model))\n',
     re.escape("your square root of d_model is a whole number")),
    ('my_noam_lr', 'round(math.sqrt(d_model)) (a variant)', '\ndef my_noam_lr(step, d_model=512, warmup=4000):\n    if step == 0: return 0.0\n    return min(step ** -0.5, step * warmup ** -1.5) / round(math.sqrt(d_model))\n',
     re.escape("round(math.sqrt(d_model)) = 23")),
    ('my_noam_lr', 'a step counter in a default argument (a variant)', '\ndef my_noam_lr(step, d_model=512, warmup=4000, _n=[0]):\n    _n[0] += 1\n    s = _n[0] - 1\n    if s == 0: return 0.0\n    return d_model ** -0.5 * min(s ** -0.5, s * warmup ** -1.5)\n',
     re.escape("your function keeps something between calls")),
    ('my_label_smoothing', 'logits.view and target.view with F.nll_loss (a variant)', '\ndef my_label_smoothing(logits, target, eps, pad_id=PAD_ID):\n    V = logits.shape[-1]\n    lp = logits.log_softmax(-1).view(-1, V)\n    t = target.view(-1)\n    keep = t != pad_id\n    return ((1 - eps) * -lp.gather(1, t[:, None])[:, 0] - eps * lp.mean(-1))[keep].mean()\n',
     re.escape("use .reshape(-1), which copies when it must")),
    ('my_label_smoothing', 'F.one_hot scaled with mul_ (a variant)', '\ndef my_label_smoothing(logits, target, eps, pad_id=PAD_ID):\n    V = logits.shape[-1]\n    q = F.one_hot(target, V).mul_(1 - eps).add_(eps / V)\n    loss = -(q * logits.log_softmax(-1)).sum(-1)\n    return loss[target != pad_id].mean()\n',
     re.escape("an integer tensor was given fractions in place")),
    ('my_label_smoothing', 'pads found as target >= pad_id + 1 (a variant)', '\ndef my_label_smoothing(logits, target, eps, pad_id=PAD_ID):\n    return F.cross_entropy(logits[target >= pad_id + 1], target[target >= pad_id + 1], label_smoothing=eps)\n',
     re.escape("likely the pads found as target > pad_id")),
    ('my_label_smoothing', 'eps / 11 in a q built with F.one_hot (a variant)', '\ndef my_label_smoothing(logits, target, eps, pad_id=PAD_ID):\n    q = (1 - eps) * F.one_hot(target, logits.shape[-1]) + eps / 11\n    return -(q * logits.log_softmax(-1)).sum(-1)[target != pad_id].mean()\n',
     re.escape("likely V = 11 written in")),
    ('my_label_smoothing', 'log of the smoothed softmax for every token, q on it (a variant)', '\ndef my_label_smoothing(logits, target, eps, pad_id=PAD_ID):\n    p = (1 - eps) * logits.softmax(-1) + eps / logits.shape[-1]\n    return F.nll_loss(p.log().reshape(-1, logits.shape[-1]), target.reshape(-1), ignore_index=pad_id)\n',
     re.escape("likely the model's probabilities smoothed")),
    ('my_label_smoothing', 'q log p swapped with xlogy (a variant)', '\ndef my_label_smoothing(logits, target, eps, pad_id=PAD_ID):\n    V = logits.shape[-1]\n    q = (1 - eps) * F.one_hot(target, V) + eps / V\n    return -(logits.softmax(-1) * q.log()).sum(-1)[target != pad_id].mean()\n',
     re.escape("likely the cross-entropy the other way round")),
    ('my_label_smoothing', 'the logits shifted by the max of the whole batch (a variant)', '\ndef my_label_smoothing(logits, target, eps, pad_id=PAD_ID):\n    V = logits.shape[-1]\n    z = logits - logits.amax()\n    lp = z - torch.log(torch.exp(z).sum(-1, keepdim=True))\n    q = (1 - eps) * F.one_hot(target, V) + eps / V\n    return -(q * lp).sum(-1)[target != pad_id].mean()\n',
     re.escape("subtracts one max for the whole batch")),
    ('my_label_smoothing', 'log of softmax clamped at 1e-7 (a variant)', '\ndef my_label_smoothing(logits, target, eps, pad_id=PAD_ID):\n    V = logits.shape[-1]\n    q = (1 - eps) * F.one_hot(target, V) + eps / V\n    return -(q * logits.softmax(-1).clamp(min=1e-7).log()).sum(-1)[target != pad_id].mean()\n',
     re.escape("likely log(softmax(logits).clamp(min=1e-07))")),
    ('my_label_smoothing', 'rows picked with torch.nonzero(mask) (a variant)', '\ndef my_label_smoothing(logits, target, eps, pad_id=PAD_ID):\n    V = logits.shape[-1]\n    q = (1 - eps) * F.one_hot(target, V) + eps / V\n    loss = -(q * logits.log_softmax(-1)).sum(-1)\n    return loss[torch.nonzero(target != pad_id)].mean()\n',
     re.escape("likely the positions picked with mask.nonzero()")),
    ('my_label_smoothing', 'the one-hot part cached by shape (a variant)', '\n_hot = {}\ndef my_label_smoothing(logits, target, eps, pad_id=PAD_ID):\n    V = logits.shape[-1]\n    hot = _hot.setdefault(tuple(target.shape), F.one_hot(target, V).float())\n    q = (1 - eps) * hot + eps / V\n    return -(q * logits.log_softmax(-1)).sum(-1)[target != pad_id].mean()\n',
     re.escape("it keeps q (or part of it) between calls")),
    ('my_label_smoothing', "the scatter's source torch.ones_like(target) (a variant)", '\ndef my_label_smoothing(logits, target, eps, pad_id=PAD_ID):\n    V = logits.shape[-1]\n    q = torch.full_like(logits, eps / V).scatter_add(-1, target[..., None], torch.ones_like(target)[..., None])\n    return -(q * logits.log_softmax(-1)).sum(-1)[target != pad_id].mean()\n',
     re.escape("the values scattered into q are integers")),
]

@pytest.mark.parametrize('name, label, code, says', THIRTY_EIGHTH, ids=[r[1] for r in THIRTY_EIGHTH])
def test_thirty_eighth_blind_answers_named(name, label, code, says):
    ns = {}; exec(_T38_PRELUDE + code, ns)
    _t38_rejects(_t38_check_schedule if name == 'my_noam_lr' else _t38_check_label_smoothing, ns[name], says=says)


# ---------------------------------------------------------------- the comparisons' tolerance: the rounding of the loss's own sums, on any CPU
def test_label_smoothing_summed_in_float64_passes_and_a_float16_loss_is_refused(capsys):
    "The loss is compared at the rounding of its sums (over V twice, then the positions), logits 50 times larger included: the same "
    "loss computed in float64 and cast back passes; the nearest wrong answer, the log-probabilities in float16, is refused."
    def smoothed(dtype):
        def my_label_smoothing(logits, target, eps, pad_id=PAD_ID):
            keep = target.ne(pad_id)
            lp = logits.to(dtype).log_softmax(-1)
            loss = -(1 - eps) * lp.gather(-1, target[..., None])[..., 0] - eps * lp.mean(-1)
            return loss[keep].double().mean().to(logits.dtype)
        return my_label_smoothing
    ok, out = verdict(check_label_smoothing, smoothed(torch.float64), capsys)
    assert ok is True and out.startswith("your loss equals label_smoothing_loss, PyTorch's"), out
    ok, out = verdict(check_label_smoothing, smoothed(torch.float16), capsys)
    assert ok is False and re.search(r"^Not yet: eps=0.0, unpadded targets: got \d\.\d{4}, expected \d\.\d{4}", out), out
