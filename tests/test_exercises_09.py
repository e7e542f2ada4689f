"""The proof of 09_training's exercises, away from the learner: each check (`check_schedule`, `check_label_smoothing`)
passes the printed solution and another right answer, reports the empty stub as not written (without raising), and
fails each natural wrong answer with a one-line message that names the case and the mistake; and each "break it"
exercise's change, applied to the notebook and to the exported module, makes exactly the checks its solution names
fail (tests/nbtools.py's `break_it`)."""
import math
import pytest, torch
import torch.nn.functional as F
from nbtools import assert_break_it, assert_stub_then_solution, cells, namespace
from transformer_nb.core import PAD_ID

NB = '09_training'

# --- exercise: the learning-rate schedule ---------------------------------------------------------------------------

@pytest.fixture(scope='module')
def schedule_ns():
    return namespace(NB, 'c0a1e911', '4255e704', 'c0a1e912')      # the stub, noam_lr, the check (run on the stub)

def test_schedule_check_on_stub_solution_and_another_right_answer(schedule_ns, capsys):
    check = schedule_ns['check_schedule']
    assert_stub_then_solution(schedule_ns, 'check_schedule', 'my_noam_lr', NB, 'c0a1e913', capsys)
    def other(step, d_model=512, warmup=4000):                           # right, written differently
        if not step: return 0.
        return min(1 / math.sqrt(step * d_model), step / math.sqrt(d_model * warmup ** 3))
    assert check(other) is True
    assert 'your schedule equals noam_lr' in capsys.readouterr().out

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
                   'step 1 (d_model=512, warmup=4000): got 0.04419, expected 1.747e-07; no warm-up: take the smaller'),
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
def test_schedule_check_names_the_mistake(schedule_ns, name):
    fn, says = WRONG_SCHEDULES[name]
    with pytest.raises(AssertionError) as e: schedule_ns['check_schedule'](fn)
    msg = str(e.value)
    assert says in msg and '\n' not in msg and not msg.startswith(('close:', '==:')), msg

# --- exercise: label smoothing -----------------------------------------------------------------------------------------

@pytest.fixture(scope='module')
def ls_ns():
    return namespace(NB, 'c0a1e915', '35316735', 'c0a1e916')

def _q_loss(l, t, e, V_eps, pad_zero=False, reference_gets_eps=True):
    q = torch.full_like(l, e / V_eps)
    if pad_zero: q[..., PAD_ID] = 0
    if reference_gets_eps: q.scatter_add_(-1, t[..., None], torch.full_like(l[..., :1], 1 - e))
    else: q.scatter_(-1, t[..., None], 1 - e)
    return -(q * l.log_softmax(-1)).sum(-1)

def _q(l, t, e):
    "The smoothed target distribution q: eps / V on every token, plus 1 - eps on the reference."
    return torch.full_like(l, e / l.shape[-1]).scatter_add_(-1, t[..., None], torch.full_like(l[..., :1], 1 - e))

def test_label_smoothing_check_on_stub_solution_and_another_right_answer(ls_ns, capsys):
    check = ls_ns['check_label_smoothing']
    assert_stub_then_solution(ls_ns, 'check_label_smoothing', 'my_label_smoothing', NB, 'c0a1e917', capsys)
    def other(logits, target, eps, pad_id=PAD_ID):                      # right, written differently
        keep = target.ne(pad_id).flatten()
        lg, y = logits.flatten(0, -2)[keep], target.flatten()[keep]
        logp = lg - lg.logsumexp(-1, keepdim=True)
        return ((eps - 1) * logp[torch.arange(len(y)), y] - eps * logp.mean(-1)).mean()
    assert check(other) is True
    assert "your loss equals PyTorch's" in capsys.readouterr().out

WRONG_LOSSES = {
    'padding counted': (lambda l, t, e: _q_loss(l, t, e, l.shape[-1]).mean(), 'eps=0.1, padded targets: got 2.7218, expected 2.6328; likely padding counted'),
    'a sum': (lambda l, t, e: _q_loss(l, t, e, l.shape[-1])[t != PAD_ID].sum(), 'eps=0.0, unpadded targets: got 58.7667, expected 2.7984; likely a sum'),
    'every position': (lambda l, t, e: (_q_loss(l, t, e, l.shape[-1]) * (t != PAD_ID)).mean(), 'eps=0.1, padded targets: got 1.5044, expected 2.6328; likely divided by every position'),
    'no smoothing': (lambda l, t, e: F.cross_entropy(l.flatten(0, 1), t.flatten(), ignore_index=PAD_ID), 'eps=0.1, unpadded targets: got 2.7984, expected 2.8003; likely no smoothing'),
    'V - 1': (lambda l, t, e: _q_loss(l, t, e, l.shape[-1] - 1, reference_gets_eps=False)[t != PAD_ID].mean(), 'likely eps spread over the V - 1 other tokens'),
    'Annotated, V - 2': (lambda l, t, e: _q_loss(l, t, e, l.shape[-1] - 2, True, False)[t != PAD_ID].mean(), 'eps=0.1, unpadded targets: got 2.8007, expected 2.8003; likely eps spread over V - 2 tokens, as The Annotated Transformer does'),
    'KL, not cross-entropy': (lambda l, t, e: F.kl_div(l.log_softmax(-1), _q(l, t, e), reduction='none').sum(-1)[t != PAD_ID].mean(),
                              'eps=0.1, unpadded targets: got 2.2863, expected 2.8003; likely KL(q || p): the loss is the cross-entropy -sum_i q_i log p_i, which adds the constant H(q)'),
    'the sign': (lambda l, t, e: -_q_loss(l, t, e, l.shape[-1])[t != PAD_ID].mean(), 'likely the sign'),
    'one per position': (lambda l, t, e: _q_loss(l, t, e, l.shape[-1]), 'eps=0.0, unpadded targets: got a tensor of shape (3, 7); return one number'),
    'probabilities, not logs': (lambda l, t, e: -(l.softmax(-1).gather(-1, t[..., None]))[t != PAD_ID].mean(), 'average -sum_i q_i log p_i over the non-pad positions'),
}

@pytest.mark.parametrize('name', WRONG_LOSSES)
def test_label_smoothing_check_names_the_mistake(ls_ns, name):
    fn, says = WRONG_LOSSES[name]
    with pytest.raises(AssertionError) as e: ls_ns['check_label_smoothing'](lambda l, t, eps, pad_id=PAD_ID: fn(l, t, eps))
    msg = str(e.value)
    assert says in msg and '\n' not in msg and not msg.startswith(('close:', '==:')), msg

def test_exercise_6_annotated_q_passes_only_eps_0(ls_ns):
    "Exercise 4: The Annotated Transformer's q passes eps=0 only; the check stops at eps=0.1 and names it."
    text = cells(NB)['545a2453'][1]
    assert 'Only the first, `eps=0.0`' in text and 'At `eps=0.1` the check stops' in text
    with pytest.raises(AssertionError, match=r"^eps=0\.1, unpadded targets: .*The Annotated Transformer"):
        ls_ns['check_label_smoothing'](WRONG_LOSSES['Annotated, V - 2'][0])
    g = torch.Generator().manual_seed(0)
    lg, tg = torch.randn(3, 7, 11, generator=g), torch.randint(4, 11, (3, 7), generator=g); tg[0, 4:] = PAD_ID
    ref = ls_ns['label_smoothing_loss']
    assert [e for e in (0.0, 0.1, 0.3) if torch.allclose(WRONG_LOSSES['Annotated, V - 2'][0](lg, tg, e), ref(lg, tg, e), atol=1e-5)] == [0.0]

# --- "break it": the change applied, exactly the named checks fail -----------------------------------------------------

BREAK_09 = {   # exercise: (cell, old, new, module, the cells and tests its solution names)
    1: ('47761ae3', 'noam_lr(i + 1, d_model', 'noam_lr(i, d_model', 'training',
        {'034d8aaf'}, {'tests/test_training.py::test_scheduler_steps_per_update_not_micro_batch',
                       'tests/test_training.py::test_cooldown_ends_the_schedule_linearly_and_resumes_exactly',
                       'tests/test_training.py::test_trainer_accumulation_equals_one_big_batch'}),
    2: ('35316735', 'return loss.masked_fill(~keep, 0).sum(), nll', 'return loss.sum(), nll', 'training',
        {'a79014e7', '6c7f5412'}, {'tests/test_training.py::test_label_smoothing_matches_pytorch',
                                   'tests/test_training.py::test_label_smoothing_ignores_pad_logits',
                                   'tests/test_training.py::test_accumulated_gradient_equals_big_batch'}),
    3: ('8b990532', '(loss * (scale / max(n_total, 1))).backward()', '(loss * (scale / max(n, 1))).backward()', 'training',
        {'6c7f5412'}, {'tests/test_training.py::test_accumulated_gradient_equals_big_batch'}),   # the Trainer has its own backward
}

@pytest.mark.slow
@pytest.mark.parametrize('ex', BREAK_09)
def test_break_it_fails_exactly_the_named_checks(ex):
    cell, old, new, module, want_cells, want_tests = BREAK_09[ex]
    text = cells(NB)['545a2453'][1]
    solution = text.split(f'{ex}. **Break it.**')[1].split('</details>')[0]
    for t in want_tests: assert t.split('::')[1] in solution, t             # the solution names them
    assert_break_it(NB, cell, old, new, module, ['tests/test_training.py'], fail_cells=want_cells, fail_tests=want_tests)
