"""The proof of 10_decoding's exercises, away from the learner: `check_greedy_step` (transformer_nb/course/decoding.py) passes
the printed solution and other right answers, reports the empty stub as not written (without raising), and answers
each natural wrong answer with False and one printed line that names the case and the mistake; and each "break it"
exercise's change, applied to the notebook and to the exported module, makes exactly the checks its solution names
fail."""
import copy, re
import pytest, torch
from nbtools import assert_break_it, cells, code_blocks, namespace
from transformer_nb.core import PAD_ID, BOS_ID
from transformer_nb.attention import tgt_mask
from transformer_nb.course.decoding import check_greedy_step

NB = '10_decoding'

@pytest.fixture(scope='module')
def ns():
    "The toy model trained as in the notebook, the six words, the stub and its check (run on the stub)."
    return namespace(NB, '63f31e39', '618c7253', 'from transformer_nb.decoding import *', '1b5caa24', 'c0b1e021')

def verdict(step, model, capsys) -> tuple[bool, str]:
    "What `check_greedy_step(step, model)` returns and the one line it prints."
    capsys.readouterr(); ok = check_greedy_step(step, model); out = capsys.readouterr().out
    assert out.count('\n') == 1, out
    return ok, out.strip()

def test_greedy_check_on_stub_solution_and_other_right_answers(ns, capsys):
    ns['check_greedy_step'](ns['my_greedy_step'], ns['model'])
    assert 'my_greedy_step is not written yet' in capsys.readouterr().out
    assert check_greedy_step(ns['my_greedy_step'], ns['model']) is False
    sol = dict(ns); exec(code_blocks(NB, 'c0b1e023')[0], sol)
    assert verdict(sol['my_greedy_step'], ns['model'], capsys)[0] is True
    ntl, pad_mask = ns['next_token_logits'], ns['pad_mask']
    def via_decode(model, src, ys):                       # right: the encoder and decoder called apart, PAD/BOS by hand
        sm = pad_mask(src, PAD_ID)
        lg = model.decode(model.encode(src, sm), sm, ys, tgt_mask(ys))[:, -1].clone()
        lg[:, [PAD_ID, BOS_ID]] = float('-inf')
        return lg.log_softmax(-1).argmax(1)
    assert verdict(via_decode, ns['model'], capsys)[0] is True
    ok, out = verdict(lambda m, s, ys: ntl(m(s, ys)[:, -1]).softmax(-1).argmax(-1), ns['model'], capsys)
    assert ok is True and out.startswith('your greedy step chooses every token greedy_decode chooses'), out

WRONG_STEPS = {   # name: (wrong step, what its message must say)
    'PAD and BOS allowed': (lambda ns: lambda m, s, ys: m(s, ys)[:, -1].argmax(-1),
        "a copy of the model that scores PAD and BOS highest, the first step of six sentences as a batch, row 0 after [2]: chose id 0, greedy_decode id",
        "a decoder never emits PAD or BOS: forbid them with next_token_logits"),
    'argmax over the time axis': (lambda ns: lambda m, s, ys: m(s, ys).argmax(1)[:, -1],
        "the model, the first step of six sentences as a batch, row 0 after [2]: chose id 0",
        "that is a position, not a token: an argmax over the time axis"),
    'first position': (lambda ns: lambda m, s, ys: ns['next_token_logits'](m(s, ys)[:, 0]).argmax(-1),
        "alone, row 0 after [2, ", "that is the first position's choice: the next token comes from the last"),
    'logits returned': (lambda ns: lambda m, s, ys: ns['next_token_logits'](m(s, ys)[:, -1]),
        "the model, the first step of six sentences as a batch: got shape (6, 12); return one token id per row, shape (B,) = (6,)"),
    'argmax over the batch': (lambda ns: lambda m, s, ys: ns['next_token_logits'](m(s, ys)[:, -1]).argmax(0),
        "got shape (12,); return one token id per row"),
    'one sentence only': (lambda ns: lambda m, s, ys: ns['next_token_logits'](m(s, ys)[:, -1]).argmax().item(),
        "returned int ", "not a tensor; return one token id per row as a tensor, shape (B,) = (6,)"),
    'PAD and BOS scored 0': (lambda ns: lambda m, s, ys: m(s, ys)[:, -1].index_fill(-1, torch.tensor([PAD_ID, BOS_ID]), 0.0).argmax(-1),
        "a copy of the model whose every score is below 0, the first step of six sentences as a batch, row 0 after [2]: chose id 0",
        "PAD and BOS were given a score of 0, which can still be the largest: forbid them with -inf"),
    'a kept axis, (B, 1)': (lambda ns: lambda m, s, ys: ns['next_token_logits'](m(s, ys)[:, -1]).argmax(-1, keepdim=True),
        "the model, the first step of six sentences as a batch: got shape (6, 1); return one token id per row, shape (B,) = (6,): "
        "drop the kept axis (argmax(-1) without keepdim)"),
    'a row of the batch, (1, B)': (lambda ns: lambda m, s, ys: ns['next_token_logits'](m(s, ys)[:, -1]).argmax(-1)[None],
        "got shape (1, 6); return one token id per row, shape (B,) = (6,): an axis of 1 put in front"),
    'newest token only, no cache': (lambda ns: lambda m, s, ys: ns['next_token_logits'](m(s, ys[:, -1:])[:, -1]).argmax(-1),
        "alone, row 0 after [2, ", "that is the choice after the newest token alone"),
}

@pytest.mark.parametrize('name', WRONG_STEPS)
def test_greedy_check_names_the_mistake(ns, name, capsys):
    make, *says = WRONG_STEPS[name]
    ok, msg = verdict(make(ns), ns['model'], capsys)
    assert ok is False and all(s in msg for s in says) and msg.startswith('Not yet: ') and not msg.startswith(('Not yet: close:', 'Not yet: ==:')), msg

BREAK_10 = {   # exercise: (cell, old, new, module, the cells and tests its solution names)
    1: ('0ba526be', 'return ((5 + n) / 6) ** alpha', 'return (5 + n) / 6', 'decoding',
        {'84060f7a'}, {'tests/test_decoding.py::test_length_penalty_values'}),   # the penalty's own test: lib_fast_decoding takes its penalties from it
}

@pytest.mark.slow
@pytest.mark.parametrize('ex', BREAK_10)
def test_break_it_fails_exactly_the_named_checks(ex):
    cell, old, new, module, want_cells, want_tests = BREAK_10[ex]
    text = cells(NB)['c0b1e018' if ex < 5 else 'c0b1e0d1'][1]
    solution = text.split(f'{ex}. **Break it.**')[1].split('</details>')[0]
    for t in want_tests if len(want_tests) < 3 else (): assert t.split('::')[1] in solution, t      # the solution names them
    if len(want_tests) >= 3: assert f'`tests/test_decoding.py`, {len(want_tests)} tests' in solution  # ... or counts them
    assert_break_it(NB, cell, old, new, module, ['tests/test_decoding.py'], fail_cells=want_cells, fail_tests=want_tests)

# ---------------------------------------------------------------- fresh wrong answers, written as new learners would
from transformer_nb.core import EOS_ID
from transformer_nb.decoding import next_token_logits
from transformer_nb.course import decoding as _ex
from nbtools import assert_rejects
FRESH = {}   # label: (checker, answer, the words its message must contain)
def add(checker, label, kw, *args): FRESH[checker, label] = args

# 10 my_greedy_step: each answer and the words its message must contain
def gs(f):
    f.__name__ = 'my_greedy_step'; return f
add('check_greedy_step', 'returns (B, 1)', ['shape', '(b,)'], gs(lambda model, src, ys: next_token_logits(model(src, ys)[:, -1]).argmax(-1, keepdim=True)))
add('check_greedy_step', 'first position not last', ['last', 'position'], gs(lambda model, src, ys: next_token_logits(model(src, ys)[:, 0]).argmax(-1)))
add('check_greedy_step', 'PAD/BOS not forbidden', ['pad', 'bos', 'forbid'], gs(lambda model, src, ys: model(src, ys)[:, -1].argmax(-1)))
def gs_zero(model, src, ys):
    lg = model(src, ys)[:, -1].clone(); lg[:, [PAD_ID, BOS_ID]] = 0; return lg.argmax(-1)
add('check_greedy_step', 'forbids with 0 not -inf', ['0', '-inf'], gs(gs_zero))
add('check_greedy_step', 'argmax over batch axis', ['axis', 'dim', 'shape', 'batch'], gs(lambda model, src, ys: next_token_logits(model(src, ys)[:, -1]).argmax(0)))
add('check_greedy_step', 'returns a list', ['tensor', 'list'], gs(lambda model, src, ys: next_token_logits(model(src, ys)[:, -1]).argmax(-1).tolist()))
add('check_greedy_step', 'argmin', ['argmin', 'most probable', 'largest', 'argmax'], gs(lambda model, src, ys: next_token_logits(model(src, ys)[:, -1]).nan_to_num(float('inf'), float('inf'), float('inf')).argmin(-1)))
add('check_greedy_step', 'feeds src as target (model(ys, src))', ['src', 'order', 'argument', 'swap'], gs(lambda model, src, ys: next_token_logits(model(ys, src)[:, -1]).argmax(-1)))
def gs_eos(model, src, ys):
    lg = next_token_logits(model(src, ys)[:, -1]); lg[:, EOS_ID] = float('-inf'); return lg.argmax(-1)
add('check_greedy_step', 'forbids EOS too', ['eos'], gs(gs_eos))
SAYS_CHECK_GREEDY_STEP = {
"returns (B, 1)": "return\\ one\\ token\\ id\\ per\\ row,\\ shape\\ \\(B,\\)\\ =\\ \\(6,\\):\\ drop\\ the\\ kept\\ axis\\ \\(argmax\\(\\-1\\)\\ without\\ kee",
"first position not last": "that\\ is\\ the\\ first\\ position's\\ choice:\\ the\\ next\\ token\\ comes\\ from\\ the\\ last,\\ model\\(src,\\ ys\\)\\[:,",
"PAD/BOS not forbidden": "a\\ decoder\\ never\\ emits\\ PAD\\ or\\ BOS:\\ forbid\\ them\\ with\\ next_token_logits\\ before\\ the\\ argmax",
"forbids with 0 not -inf": "PAD\\ and\\ BOS\\ were\\ given\\ a\\ score\\ of\\ 0,\\ which\\ can\\ still\\ be\\ the\\ largest:\\ forbid\\ them\\ with\\ \\-inf",
"argmax over batch axis": "take\\ it\\ over\\ the\\ vocabulary,\\ dim=\\-1",
"returns a list": "return\\ one\\ token\\ id\\ per\\ row\\ as\\ a\\ tensor,\\ shape\\ \\(B,\\)\\ =\\ \\(6,\\)",
"argmin": "that\\ is\\ the\\ least\\ probable\\ token\\ \\(an\\ argmin\\):\\ the\\ next\\ token\\ is\\ the\\ most\\ probable,\\ the\\ arg",
"feeds src as target (model(ys, src))": "the\\ source\\ and\\ the\\ prefix\\ are\\ swapped:\\ the\\ model\\ reads\\ model\\(src,\\ ys\\),\\ the\\ source\\ first",
"forbids EOS too": "EOS\\ ends\\ the\\ sentence"
}

@pytest.mark.parametrize('label', list(SAYS_CHECK_GREEDY_STEP))
def test_fresh_wrong_answers_named_by_check_greedy_step(label, ns):
    "Each wrong answer a new learner writes is refused, with a message that names its mistake."
    assert_rejects(_ex.check_greedy_step, *FRESH['check_greedy_step', label], ns['model'], says=SAYS_CHECK_GREEDY_STEP[label])

# ---------------------------------------------------------------- a probability or a sample returned, named
def _probs(ns): return lambda m, s, ys: ns['next_token_logits'](m(s, ys)[:, -1]).softmax(-1)
WRONG_RETURNS = {
    'the best probability': (lambda ns: lambda m, s, ys: _probs(ns)(m, s, ys).max(-1).values,
                             "returned the probability of the most probable token (max(-1).values), not token ids"),
    'torch.max itself': (lambda ns: lambda m, s, ys: _probs(ns)(m, s, ys).max(-1), "returned torch.max's (values, indices)"),
    'every probability': (lambda ns: _probs(ns), "returned the probabilities of every token (softmax), not token ids"),
    'a sample': (lambda ns: lambda m, s, ys: torch.multinomial(_probs(ns)(m, s, ys), 1)[:, 0],
                 "your step draws its tokens at random (torch.multinomial, a Categorical)"),
    'a sample, kept axis': (lambda ns: lambda m, s, ys: torch.multinomial(_probs(ns)(m, s, ys), 1),
                            "your step draws its tokens at random"),
}

@pytest.mark.parametrize('name', WRONG_RETURNS)
def test_greedy_check_names_a_probability_or_a_sample(ns, name, capsys):
    make, says = WRONG_RETURNS[name]
    ok, msg = verdict(make(ns), ns['model'], capsys)
    assert ok is False and says in msg, msg

# ---------------------------------------------------------------- a sample, in the ways learners draw one; two more slips
def _logits(ns): return lambda m, s, ys: ns['next_token_logits'](m(s, ys)[:, -1])
def _topk_sample(ns):
    def step(m, s, ys):
        v, i = _logits(ns)(m, s, ys).topk(5)
        return i.gather(1, torch.multinomial(v.softmax(-1), 1)).squeeze(1)
    return step
DRAWS = {
    'a Categorical': lambda ns: lambda m, s, ys: torch.distributions.Categorical(logits=_logits(ns)(m, s, ys)).sample(),
    'a temperature': lambda ns: lambda m, s, ys: torch.multinomial((_logits(ns)(m, s, ys) / 0.7).softmax(-1), 1).squeeze(1),
    'top-k sampling': _topk_sample,
    'the Gumbel-max trick': lambda ns: lambda m, s, ys: (lambda lg: (lg - (-torch.rand_like(lg).log()).log()).argmax(-1))(_logits(ns)(m, s, ys)),
    'PAD and BOS not forbidden': lambda ns: lambda m, s, ys: torch.multinomial(m(s, ys)[:, -1].softmax(-1), 1)[:, 0],
}

@pytest.mark.parametrize('name', DRAWS)
def test_greedy_check_names_every_kind_of_sample(ns, name, capsys):
    ok, msg = verdict(DRAWS[name](ns), ns['model'], capsys)
    assert ok is False and "your step draws its tokens at random (torch.multinomial, a Categorical)" in msg, msg

@pytest.mark.parametrize('step, says', [
    (lambda ns: lambda m, s, ys: _logits(ns)(m, s, ys[:, :-1] if ys.shape[1] > 1 else ys).argmax(-1),
     "that is the choice before the newest token: the decoder reads the whole prefix, model(src, ys), not ys[:, :-1]"),
    (lambda ns: lambda m, s, ys: ns['next_token_logits'](m.decode(m.encode(s, None), None, ys, tgt_mask(ys))[:, -1]).argmax(-1),
     "the source's padding is not masked: model(src, ys) masks it with pad_mask(src)"),
], ids=['the prefix without its newest token', 'no source mask'])
def test_greedy_check_names_a_shifted_prefix_or_an_unmasked_source(ns, step, says, capsys):
    ok, msg = verdict(step(ns), ns['model'], capsys)
    assert ok is False and says in msg, msg

@pytest.mark.parametrize('step, says', [
    (lambda ns: lambda m, s, ys: _logits(ns)(m, s, ys).argmax(-1) + 1, "that is the argmax plus one: token ids count from 0"),
    (lambda ns: lambda m, s, ys: _logits(ns)(m, s, ys).topk(2).indices[:, 1], "that is the second most probable token"),
], ids=['argmax + 1', 'second best'])
def test_greedy_check_names_an_id_off_by_one_or_the_second_best(ns, step, says, capsys):
    ok, msg = verdict(step(ns), ns['model'], capsys)
    assert ok is False and says in msg, msg

def test_greedy_check_names_a_prefix_without_its_bos(ns, capsys):
    ok, msg = verdict(lambda m, s, ys: _logits(ns)(m, s, ys[:, 1:] if ys.shape[1] > 1 else ys).argmax(-1), ns['model'], capsys)
    assert ok is False and "that is the choice after the prefix without its BOS" in msg, msg

def test_greedy_check_names_an_argmax_over_every_axis(ns, capsys):
    ok, msg = verdict(lambda m, s, ys: _logits(ns)(m, s, ys).argmax(), ns['model'], capsys)
    assert ok is False and "got shape (); return one token id per row, shape (B,) = (6,): an argmax over every axis at once" in msg, msg

@pytest.mark.parametrize('step, says', [
    (lambda ns: lambda m, s, ys: torch.cat([ys, _logits(ns)(m, s, ys).argmax(-1, keepdim=True)], 1),
     "got shape (6, 2); return one token id per row, shape (B,) = (6,): that is the prefix with the token appended"),
], ids=['prefix returned'])
def test_greedy_check_names_the_prefix_returned(ns, step, says, capsys):
    ok, msg = verdict(step(ns), ns['model'], capsys)
    assert ok is False and says in msg, msg

# ---------------------------------------------------------------- more wrong steps, named
def _eos_for_pad(model, src, ys):
    lg = model(src, ys)[:, -1].clone(); lg[:, [EOS_ID, BOS_ID]] = float('-inf'); return lg.argmax(-1)
_ntl_last = lambda m, s, ys: next_token_logits(m(s, ys)[:, -1])
MORE_STEPS = {
    'EOS forbidden for PAD': (_eos_for_pad, r"chose id 0, .*; EOS was forbidden in place of PAD: a decoder never emits PAD or BOS"),
    'source reversed': (lambda m, s, ys: _ntl_last(m, s.flip(1), ys).argmax(-1), r"that is the choice for the source reversed, src.flip\(1\)"),
    'positions summed': (lambda m, s, ys: next_token_logits(m(s, ys).sum(1)).argmax(-1),
                         r"that is the argmax of the logits summed \(or averaged\) over the positions"),
    'model(ys, ys)': (lambda m, s, ys: next_token_logits(m(ys, ys)[:, -1]).argmax(-1), r"the prefix is read as the source too, model\(ys, ys\)"),
    'next_token_logits on every position': (lambda m, s, ys: next_token_logits(m(s, ys))[:, -1].argmax(-1),
        r"first step of six sentences as a batch: next_token_logits raised IndexError \(.*\): it takes one position's logits per row, \(B, V\)"),
    'log_softmax over the batch': (lambda m, s, ys: _ntl_last(m, s, ys).log_softmax(0).argmax(-1),
                                   r"chose id 0, .*; that is a forbidden token, which next_token_logits scored -inf: .* once a softmax over the batch \(dim 0\), not the vocabulary"),
}

@pytest.mark.parametrize('name', MORE_STEPS)
def test_greedy_check_names_more_wrong_steps(ns, name):
    step, says = MORE_STEPS[name]
    assert_rejects(check_greedy_step, step, ns['model'], says=says)

def test_greedy_check_names_a_draw_under_a_fixed_seed(ns, capsys):
    "A step that samples after seeding the generator itself gives the same tokens under every outer seed: it is still named as a draw."
    ntl = ns['next_token_logits']
    def seeded_draw(m, src, ys):
        torch.manual_seed(1)
        return torch.multinomial(ntl(m(src, ys)[:, -1]).softmax(-1), 1)[:, 0]
    ok, out = verdict(seeded_draw, ns['model'], capsys)
    assert ok is False and ": your step draws its tokens at random (torch.multinomial, a Categorical)" in out, out
    assert verdict(lambda m, s, ys: ntl(m(s, ys)[:, -1]).argmax(-1), ns['model'], capsys)[0] is True

# ---------------------------------------------------------------- mistakes nobody listed, named by what the answer does
def _mixing(model, src, ys):
    "One token for every row: the batch's scores summed before the argmax."
    return next_token_logits(model(src, ys)[:, -1]).sum(0).argmax().repeat(len(ys))

def _third(model, src, ys):
    "The third most probable token."
    return next_token_logits(model(src, ys)[:, -1]).topk(3).indices[:, 2]

@pytest.mark.parametrize('step, says', [
    (_mixing, r"row \d+ alone gets token \d+, within the batch \d+: the rows influence each other"),
    (_third, r"your token \d+ ranks 3 of \d+ by row \d+'s last-position scores"),
])
def test_greedy_steps_nobody_listed_are_named_by_property(step, says, ns):
    assert_rejects(_ex.check_greedy_step, step, ns['model'], says=says)


# ---------------------------------------------------------------- more mistakes, each named by what the answer does

def test_item_and_a_prefix_without_bos_are_named(ns, capsys):
    from transformer_nb.decoding import next_token_logits
    ok, said = verdict(lambda model, src, ys: next_token_logits(model(src, ys)[:, -1]).argmax(-1).item(), ns['model'], capsys)
    assert not ok and '.item() makes one Python number' in said
    ok, said = verdict(lambda model, src, ys: next_token_logits(model(src, ys[:, 1:])[:, -1]).argmax(-1), ns['model'], capsys)
    assert not ok and 'on prefixes of one token, BOS alone, and runs on two' in said

def test_a_max_over_every_position_is_named(ns, capsys):
    "Each token's best score over all positions, then the argmax, PAD and BOS not forbidden: named by the tokens it chooses."
    ok, out = verdict(lambda m, s, ys: m(s, ys).amax(1).argmax(-1), ns['model'], capsys)
    assert ok is False and "the argmax of each token's best score over every position (a max over the time axis, dim=1)" in out, out
    assert "forbid PAD and BOS (next_token_logits) before the argmax" in out, out

def test_an_argmin_of_next_token_logits_is_named(ns):
    "An argmin of next_token_logits picks a forbidden token, scored -inf: named with the argmin, as the softmax over the batch is."
    assert_rejects(check_greedy_step, lambda m, s, ys: _ntl_last(m, s, ys).argmin(-1), ns['model'],
                   says=r"chose id 0, .*; that is a forbidden token, which next_token_logits scored -inf: the least probable, which an argmin picks")

def test_token_ids_given_to_next_token_logits_are_named(ns):
    "The argmax taken over every position before the last is picked: next_token_logits gets (B, t) token ids, and the line says so."
    assert_rejects(check_greedy_step, lambda m, s, ys: next_token_logits(m(s, ys).argmax(-1).float()), ns['model'],
                   says=r"next_token_logits raised IndexError \(.*\): .*; it was given a tensor of shape \(6, 1\) whose entries are token ids, one per position: "
                        r"an argmax over the vocabulary came first")

def test_logits_of_an_earlier_position_are_named(ns):
    "The logits of the position before the last, [:, -2]: named by the position whose choice it is, not as a prefix cut short."
    from transformer_nb.decoding import next_token_logits
    assert_rejects(check_greedy_step, lambda m, s, ys: next_token_logits(m(s, ys)[:, -2]).argmax(-1), ns['model'],
                   says=r"raised IndexError \(.*\) on prefixes of one token, .*: your step takes the logits of position -2 \(index 0 of 2\), "
                        r"an earlier one than the last: the next token comes from the last position's logits")

def test_a_prefix_without_bos_is_still_named_as_one(ns):
    from transformer_nb.decoding import next_token_logits
    assert_rejects(check_greedy_step, lambda m, s, ys: next_token_logits(m(s, ys[:, 1:])[:, -1]).argmax(-1), ns['model'],
                   says=r"runs on two: your step leaves out part of the prefix \(ys\[:, 1:\]\?\)")

@pytest.mark.parametrize('seed', [0, 1, 2])
def test_greedy_check_names_an_unmasked_source_and_a_seeded_draw_on_any_model(ns, seed, capsys):
    """Named by what the answer does, not by what one trained model happens to choose: on untrained models (and so under
    any CPU's rounding), the cross-attention left unmasked is named through a copy whose memory at the padding is loud,
    and a draw that seeds itself through eight rows alike."""
    from transformer_nb.lib.transformer import build_model
    from transformer_nb.lib.options import get_model_config
    torch.manual_seed(seed)
    m = build_model(get_model_config('tiny', src_vocab=ns['model'].cfg.src_vocab, tgt_vocab=ns['model'].cfg.tgt_vocab)).eval()
    ntl = ns['next_token_logits']
    ok, msg = verdict(lambda m, s, ys: ntl(m.decode(m.encode(s, None), None, ys, tgt_mask(ys))[:, -1]).argmax(-1), m, capsys)
    assert ok is False and "the source's padding is not masked" in msg, msg
    def seeded_draw(m, src, ys):
        torch.manual_seed(1)
        return torch.multinomial(ntl(m(src, ys)[:, -1]).softmax(-1), 1)[:, 0]
    ok, msg = verdict(seeded_draw, m, capsys)
    assert ok is False and ": your step draws its tokens at random (torch.multinomial, a Categorical)" in msg, msg
    assert verdict(lambda m, s, ys: ntl(m(s, ys)[:, -1]).argmax(-1), m, capsys)[0] is True

# ---------------------------------------------------------------- slips of later blind answers, named by property
@pytest.mark.parametrize('step, says', [
    (lambda ns: lambda m, s, ys: _logits(ns)(m, s, ys).log_softmax(-1),
     r"got shape \(6, 12\); .*: that is a score for every token of the vocabulary, \(B, V\) = \(6, 12\); the next token is the most probable one"),
    (lambda ns: lambda m, s, ys: m(s, ys).argmax(-1),
     r"got shape \(6, 1\); .*: a token for every position of the prefix, \(B, t\), an argmax at each: the next token comes from the last position alone"),
])
def test_greedy_check_names_scores_for_every_token_or_a_token_for_every_position(ns, step, says, capsys):
    import re
    ok, msg = verdict(step(ns), ns['model'], capsys)
    assert ok is False and re.search(says, msg), msg

def test_a_prefix_cut_at_either_end_is_named_as_itself_where_the_models_choose_alike(ns, monkeypatch):
    """Once a step is found wrong, the prefix without its BOS and the prefix without its newest token are each named as
    themselves even where the model and the random models choose one token whatever they read (as a trained model can,
    under another CPU's rounding): two copies that score the token read last, or at position 1, highest tell the two cuts
    apart."""
    from transformer_nb.lib.transformer import build_model
    from transformer_nb.lib.options import get_model_config
    V = ns['model'].cfg.tgt_vocab
    def one_token(model, *a):                                   # a model that chooses token 7 after any prefix
        bias = torch.zeros(V); bias[7] = 50.
        model.generator.register_forward_hook(lambda mod, inp, out: out + bias); return model
    monkeypatch.setattr(_ex, 'perturb', one_token)
    torch.manual_seed(0)
    m = one_token(build_model(get_model_config('tiny', src_vocab=ns['model'].cfg.src_vocab, tgt_vocab=V)).eval())
    src = torch.cat([torch.randint(4, V, (6, 5)), torch.full((6, 1), EOS_ID)], 1)
    ys = torch.cat([torch.full((6, 1), BOS_ID), torch.randint(4, V, (6, 6))], 1)
    ntl = ns['next_token_logits']
    cuts = {"that is the choice after the prefix without its BOS": lambda y: y[:, 1:],
            "that is the choice before the newest token": lambda y: y[:, :-1]}
    for says, cut in cuts.items():
        step = lambda m, s, y: ntl(m(s, cut(y) if y.shape[1] > 1 else y)[:, -1]).argmax(-1)
        with torch.no_grad(): assert _ex._step_mistake(step, m, src, ys, 7, 0).startswith(says), says

# ---------------------------------------------------------------- PAD alone forbidden, or PAD and EOS
def test_a_step_that_forbids_pad_alone_or_pad_and_eos_is_named(ns, capsys):
    from transformer_nb.core import EOS_ID
    def forbidding(*ids):
        def step(m, src, ys):
            logits = m(src, ys)[:, -1].clone(); logits[:, list(ids)] = float('-inf'); return logits.argmax(-1)
        return step
    for ids, says in (((PAD_ID,), r"never chooses PAD \(id 0\) and does choose BOS \(id 2\) and EOS \(id 3\): forbid PAD and BOS alone"),
                      ((PAD_ID, EOS_ID), r"never chooses PAD \(id 0\) or EOS \(id 3\) and does choose BOS \(id 2\): .*EOS must stay possible, it ends the sentence")):
        ok, line = verdict(forbidding(*ids), ns['model'], capsys)
        assert ok is False and re.search(says, line), line
    assert verdict(forbidding(PAD_ID, BOS_ID), ns['model'], capsys)[0] is True

# ---------------------------------------------------------------- a fresh blind set: wrong answers written before reading the messages
import re as _n9re
from nbtools import assert_rejects as _n9_rejects
from transformer_nb.decoding import next_token_logits as _n9_ntl
from transformer_nb.model import Transformer as _n9_T
from transformer_nb.lib.options import get_config as _n9_cfg
@pytest.fixture(scope='module')
def _n9_model():
    "A small random model: the check compares a step with greedy_decode on whatever model it is given."
    torch.manual_seed(0); return _n9_T(_n9_cfg('tiny', src_vocab=20, tgt_vocab=20)).eval()
NINTH = [('PAD and BOS not forbidden', lambda model, src, ys: model(src, ys)[:, -1].argmax(-1), "forbid them with next_token_logits before the argmax"),
         ("the first position's logits", lambda model, src, ys: _n9_ntl(model(src, ys)[:, 0]).argmax(-1), "that is the first position's choice"),
         ('the probability, not the token', lambda model, src, ys: _n9_ntl(model(src, ys)[:, -1]).softmax(-1).max(-1).values, "not token ids")]

@pytest.mark.parametrize('label', [c[0] for c in NINTH])
def test_ninth_blind_answers_named(label, _n9_model):
    "Each answer of the blind set is refused with a message that names its mistake."
    _, answer, words = next(c for c in NINTH if c[0] == label)
    _n9_rejects(check_greedy_step, answer, _n9_model, says=_n9re.escape(words))

def test_ninth_right_step_passes(_n9_model):
    assert check_greedy_step(lambda model, src, ys: _n9_ntl(model(src, ys)[:, -1]).argmax(-1), _n9_model) is True


# ---------------------------------------------------------------- the fourteenth blind set's misses (results/checker_answers.json)
def test_the_position_of_the_best_score_is_named(_n9_model):
    "Each position's best score over the vocabulary, then the argmax over the positions: a position, not a token."
    _n9_rejects(check_greedy_step, lambda model, src, ys: model(src, ys).max(-1).values.argmax(-1), _n9_model,
                says=r"that is a position, not a token: the position whose best score is the largest \(a max over the vocabulary, then an argmax over the time axis\)")

def test_greedy_check_names_a_step_that_switches_the_model_to_training(ns, capsys):
    "The sixteenth blind set's miss: model.train() inside the step (the toy model has no dropout, so its tokens alone cannot show it)."
    def step(m, s, ys):
        m.train()
        return ns['next_token_logits'](m(s, ys)[:, -1]).argmax(-1)
    ok, said = verdict(step, ns['model'], capsys)
    assert not ok and 'your step switched the model to training mode (model.train())' in said


# ---------------------------------------------------------------- the eighteenth blind set's misses (results/checker_answers.json)
def test_a_prefix_cropped_to_its_last_tokens_is_named(_n9_model):
    "nanoGPT's context crop, ys[:, -3:]: the crop and its length named, not a rank."
    _n9_rejects(check_greedy_step, lambda model, src, ys: _n9_ntl(model(src, ys[:, -3:])[:, -1]).argmax(-1), _n9_model,
                says=r"that is the choice after the last 3 tokens of the prefix alone \(a context crop")

def test_row_0s_token_alone_is_named(_n9_model):
    "A batch of one assumed, [0, -1]: a 0-d tensor, row 0's token, not an argmax over every axis."
    _n9_rejects(check_greedy_step, lambda model, src, ys: _n9_ntl(model(src, ys)[:1, -1]).argmax(-1)[0], _n9_model,
                says=r"that is row 0's token alone, as if the batch had one row")


# ---------------------------------------------------------------- the twentieth blind set's misses (results/checker_answers.json)
@pytest.mark.parametrize('step, says', [
    (lambda model, src, ys: _n9_ntl(model(src, ys)[:, ys.shape[1] - 2]).argmax(-1), r"that is the choice at the position before the last, \[:, ys.shape\[1\] - 2\]"),
    (lambda model, src, ys: _n9_ntl(model(src, ys).logits[:, -1]).argmax(-1), r"raised AttributeError .*not an output object with .logits \(as Hugging Face's models do\)"),
    (lambda model, src, ys: _n9_ntl(model(src, ys)[:, -1]).argmax(-1).int(), r"returned torch.int32 token ids: keep argmax's torch.long"),
    (lambda model, src, ys: _n9_ntl(model(src, ys)[:, -1]).index_fill(-1, torch.tensor([1]), float('-inf')).argmax(-1),
     r"a copy of the model that scores UNK highest.*UNK is a token the model may emit")])
def test_an_index_off_by_one_hugging_faces_logits_int32_and_unk_forbidden_are_named(step, says, ns):
    _n9_rejects(check_greedy_step, step, ns['model'], says=says)

def test_unk_forbidden_is_named_where_a_perturbed_model_emits_it(_n9_model):
    "On a random model the perturbed copy's right token is UNK first: the step that never emits it is named there."
    _n9_rejects(check_greedy_step, lambda model, src, ys: _n9_ntl(model(src, ys)[:, -1]).index_fill(-1, torch.tensor([1]), float('-inf')).argmax(-1),
                _n9_model, says=r"a copy of the model that scores UNK highest, 6 rows after \[2, 9, 13, 17, 12\]\.\.\.: .*UNK is a token")

# --- the twenty-second blind set's answers that the checks first missed, each named now --------------------------------
from nbtools import assert_rejects as _t22_rejects
_T22_PRELUDE = "import math, torch, torch.nn.functional as F\nfrom transformer_nb.core import *\nfrom transformer_nb.decoding import next_token_logits\n"
TWENTY_SECOND = [   # (label, the answer's code, what its message must say)
    ('the seed reset', '\ndef my_greedy_step(model, src, ys):\n    torch.manual_seed(0)\n    logits = model(src, ys)[:, -1]\n    return next_token_logits(logits).argmax(-1)\n',
     'your step resets the global random generator'),
    ('grad mode left off', '\ndef my_greedy_step(model, src, ys):\n    torch.set_grad_enabled(False)\n    logits = model(src, ys)[:, -1]\n    return next_token_logits(logits).argmax(-1)\n',
     'your step switched gradients off for the caller'),
    ('the model made float64', '\ndef my_greedy_step(model, src, ys):\n    model.double()\n    logits = model(src, ys)[:, -1]\n    return next_token_logits(logits).argmax(-1)\n',
     "your step changed the caller's model to torch.float64"),
    ("the source's length as the position", '\ndef my_greedy_step(model, src, ys):\n    logits = model(src, ys)[:, min(src.shape[1], ys.shape[1]) - 1]\n    return next_token_logits(logits).argmax(-1)\n',
     'that is the choice at position src.shape\\[1\\] - 1'),
]

@pytest.mark.parametrize('label, code, says', TWENTY_SECOND, ids=[r[0] for r in TWENTY_SECOND])
def test_twenty_second_blind_answers_named(ns, label, code, says):
    fn = {}; exec(_T22_PRELUDE + code, fn)
    model = copy.deepcopy(ns['model'])                                   # a step that converts the model converts a copy
    with torch.random.fork_rng(devices=[]), torch.enable_grad(): _t22_rejects(check_greedy_step, fn['my_greedy_step'], model, says=says)
    assert torch.is_grad_enabled()

# --- the twenty-fifth blind set's answers that the checks first missed, each named now ---------------------------------
_T25_PRELUDE = 'import math, torch, torch.nn.functional as F\nfrom transformer_nb.core import *\nfrom transformer_nb.decoding import next_token_logits\nfrom transformer_nb.attention import pad_mask, tgt_mask\n'
TWENTY_FIFTH = [   # (label, the answer's code, what its message must say)
    ("row 0's token for every row", '\ndef my_greedy_step(model, src, ys):\n    logits = next_token_logits(model(src, ys)[:, -1])\n    return logits[0].argmax(-1).expand(len(ys))\n',
     "every\\ row\\ got\\ row\\ 0's\\ token"),
    ('no causal mask', '\ndef my_greedy_step(model, src, ys):\n    src_mask = pad_mask(src)\n    logits = model.decode(model.encode(src, src_mask), src_mask, ys, None)[:, -1]\n    return next_token_logits(logits).argmax(-1)\n',
     'without\\ its\\ causal\\ mask'),
    ("the batch's sources joined", '\ndef my_greedy_step(model, src, ys):\n    s = src[src != PAD_ID][None].expand(len(ys), -1)\n    logits = model(s, ys)[:, -1]\n    return next_token_logits(logits).argmax(-1)\n',
     "each\\ row\\ was\\ given\\ the\\ whole\\ batch's\\ source"),
]

@pytest.mark.parametrize('label, code, says', TWENTY_FIFTH, ids=[r[0] for r in TWENTY_FIFTH])
def test_twenty_fifth_blind_answers_named(ns, label, code, says):
    fn = {}; exec(_T25_PRELUDE + code, fn)
    _t22_rejects(check_greedy_step, fn['my_greedy_step'], copy.deepcopy(ns['model']), says=says)

# --- the twenty-seventh blind set's answers that the checks first missed, each named now -------------------------------
_T27_PRELUDE = 'import math, torch, torch.nn.functional as F\nfrom transformer_nb.core import *\nfrom transformer_nb.decoding import next_token_logits\n'
TWENTY_SEVENTH = [   # (label, the answer's code, what its message must say)
    ('squeeze on a batch of one', '\ndef my_greedy_step(model, src, ys):\n    logits = model(src, ys)[:, -1]\n    return next_token_logits(logits).topk(1).indices.squeeze()\n',
     'with\\ a\\ batch\\ of\\ one\\ your\\ step\\ drops\\ the\\ batch\\ axis\\ too'),
    ('PAD and BOS 0 on log-probabilities', '\ndef my_greedy_step(model, src, ys):\n    logp = model(src, ys)[:, -1].log_softmax(-1)\n    logp[:, [PAD_ID, BOS_ID]] = 0\n    return logp.argmax(-1)\n',
     'or\\ a\\ 0\\ given\\ to\\ PAD\\ and\\ BOS\\ on\\ log\\-probabilities'),
    ('BOS twice', '\ndef my_greedy_step(model, src, ys):\n    logits = model(src, torch.cat([torch.full_like(ys[:, :1], BOS_ID), ys], 1))[:, -1]\n    return next_token_logits(logits).argmax(-1)\n',
     'that\\ is\\ the\\ choice\\ after\\ BOS\\ twice'),
]

@pytest.mark.parametrize('label, code, says', TWENTY_SEVENTH, ids=[r[0] for r in TWENTY_SEVENTH])
def test_twenty_seventh_blind_answers_named(ns, label, code, says):
    fn = {}; exec(_T27_PRELUDE + code, fn)
    _t22_rejects(check_greedy_step, fn['my_greedy_step'], copy.deepcopy(ns['model']), says=says)

# --- the thirtieth blind set's answers that the checks first missed, each named now --------------------------------------
_T30_PRELUDE = 'import math, torch, torch.nn.functional as F\nfrom transformer_nb.core import *\nfrom transformer_nb.decoding import next_token_logits\nfrom transformer_nb.attention import pad_mask, tgt_mask\n'
THIRTIETH = [   # (label, the answer's code, what its message must say)
    ('scatter with a (1, 2) index', "\ndef my_greedy_step(model, src, ys):\n    logits = model(src, ys)[:, -1]\n    logits = logits.scatter(1, torch.tensor([[PAD_ID, BOS_ID]]), float('-inf'))\n    return logits.argmax(-1)\n",
     'PAD\\ and\\ BOS\\ were\\ forbidden\\ in\\ one\\ row\\ alone,\\ the\\ first'),
    ('argmax first, the second best', '\ndef my_greedy_step(model, src, ys):\n    logits = model(src, ys)[:, -1]\n    top = logits.topk(2, -1).indices\n    bad = (top[:, 0] == PAD_ID) | (top[:, 0] == BOS_ID)\n    return torch.where(bad, top[:, 1], top[:, 0])\n',
     'PAD\\ and\\ BOS\\ were\\ ruled\\ out\\ after\\ the\\ argmax'),
    ('a source mask of (B, 1, S)', '\ndef my_greedy_step(model, src, ys):\n    m = (src != PAD_ID)[:, None, :]\n    memory = model.encode(src, m)\n    logits = model.decode(memory, m, ys, tgt_mask(ys))[:, -1]\n    return next_token_logits(logits).argmax(-1)\n',
     'runs\\ on\\ one\\ row:\\ your\\ step\\ lines\\ the\\ batch\\ axis\\ up\\ with'),
    ('the source mask from pad_mask(ys)', '\ndef my_greedy_step(model, src, ys):\n    memory = model.encode(src, pad_mask(src))\n    logits = model.decode(memory, pad_mask(ys), ys, tgt_mask(ys))[:, -1]\n    return next_token_logits(logits).argmax(-1)\n',
     "the\\ source's\\ length\\ and\\ the\\ prefix's\\ are\\ mixed\\ up"),
    ("each row's last position picked", '\ndef my_greedy_step(model, src, ys):\n    idx = (ys != PAD_ID).sum(1) - 1\n    logits = model(src, ys)[:, idx]\n    return next_token_logits(logits.flatten(0, 1)).view(logits.shape).argmax(-1)\n',
     'a\\ token\\ for\\ every\\ pair\\ of\\ rows'),
    ('index_fill on axis 0', "\ndef my_greedy_step(model, src, ys):\n    logits = model(src, ys)[:, -1]\n    return logits.index_fill(0, torch.tensor([PAD_ID, BOS_ID]), float('-inf')).argmax(-1)\n",
     'of\\ the\\ batch\\ were\\ forbidden,\\ not\\ tokens\\ PAD\\ and\\ BOS'),
    ('PAD and BOS forbidden in the last row alone (a variant)', "\ndef my_greedy_step(model, src, ys):\n    logits = model(src, ys)[:, -1]\n    logits[-1, [PAD_ID, BOS_ID]] = float('-inf')\n    return logits.argmax(-1)\n",
     'PAD\\ and\\ BOS\\ were\\ forbidden\\ in\\ one\\ row\\ alone,\\ the\\ last'),
    ('logits[[PAD_ID, BOS_ID]] = -inf (a variant)', "\ndef my_greedy_step(model, src, ys):\n    logits = model(src, ys)[:, -1]\n    logits[[PAD_ID, BOS_ID]] = float('-inf')\n    return logits.argmax(-1)\n",
     'of\\ the\\ batch\\ were\\ forbidden,\\ not\\ tokens\\ PAD\\ and\\ BOS'),
]

@pytest.mark.parametrize('label, code, says', THIRTIETH, ids=[r[0] for r in THIRTIETH])
def test_thirtieth_blind_answers_named(ns, label, code, says):
    fn = {}; exec(_T30_PRELUDE + code, fn)
    _t22_rejects(check_greedy_step, fn['my_greedy_step'], copy.deepcopy(ns['model']), says=says)

# --- the thirty-fourth blind set's answers that the checks first missed, each named now (and a variant of each) ---------
from nbtools import assert_rejects as _t34_rejects
_T34_PRELUDE = 'import math, torch, torch.nn.functional as F\nfrom transformer_nb.core import *\nfrom transformer_nb.decoding import next_token_logits\nfrom transformer_nb.attention import pad_mask, tgt_mask\n'
THIRTY_FOURTH = [   # (label, the answer's code, what its message must say)
    ('logits[-1], the last batch row', '\ndef my_greedy_step(model, src, ys):\n    logits = model(src, ys)[-1]\n    return next_token_logits(logits).argmax(-1)\n',
     'that\\ is\\ logits\\[\\-1\\],\\ the\\ last\\ row\\ of\\ the\\ batch'),
    ('logits[-1] without next_token_logits (a variant)', '\ndef my_greedy_step(model, src, ys):\n    return model(src, ys)[-1].argmax(-1)\n',
     'that\\ is\\ logits\\[\\-1\\],\\ the\\ last\\ row\\ of\\ the\\ batch'),
    ('the source mask inverted', '\ndef my_greedy_step(model, src, ys):\n    m = (src == PAD_ID)[:, None, None, :]\n    logits = model.decode(model.encode(src, m), m, ys, tgt_mask(ys))[:, -1]\n    return next_token_logits(logits).argmax(-1)\n',
     'masks\\ the\\ source\\ the\\ wrong\\ way\\ round'),
    ('~pad_mask(src) (a variant)', '\ndef my_greedy_step(model, src, ys):\n    m = ~pad_mask(src)\n    logits = model.decode(model.encode(src, m), m, ys, tgt_mask(ys))[:, -1]\n    return next_token_logits(logits).argmax(-1)\n',
     'masks\\ the\\ source\\ the\\ wrong\\ way\\ round'),
    ("greedy_decode's own path, ys ignored", '\ndef my_greedy_step(model, src, ys):\n    from transformer_nb.decoding import greedy_decode\n    out = []\n    for s, y in zip(src, ys):\n        s = s[s != PAD_ID]\n        path = greedy_decode(model, s) + [EOS_ID]\n        out.append(path[min(y.shape[0] - 1, len(path) - 1)])\n    return torch.tensor(out)\n',
     'the\\ same\\ tokens\\ whatever\\ the\\ prefix\\ holds'),
    ('a prefix of BOS alone, as long as ys (a variant)', '\ndef my_greedy_step(model, src, ys):\n    logits = model(src, torch.full_like(ys, BOS_ID))[:, -1]\n    return next_token_logits(logits).argmax(-1)\n',
     'the\\ same\\ tokens\\ whatever\\ the\\ prefix\\ holds'),
]

@pytest.mark.parametrize('label, code, says', THIRTY_FOURTH, ids=[r[0] for r in THIRTY_FOURTH])
def test_thirty_fourth_blind_answers_named(ns, label, code, says):
    fn = {}; exec(_T34_PRELUDE + code, fn)
    _t34_rejects(check_greedy_step, fn['my_greedy_step'], copy.deepcopy(ns['model']), says=says)

# --- the thirty-eighth blind set's answers that the checks first missed, each named now (and a variant of most) ---------
from nbtools import assert_rejects as _t38_rejects
_T38_PRELUDE = 'import math, torch, torch.nn.functional as F\nfrom transformer_nb.core import *\nfrom transformer_nb.decoding import next_token_logits\nfrom transformer_nb.attention import pad_mask, tgt_mask\n'
THIRTY_EIGHTH = [   # (label, the answer's code, what its message must say)
    ('+inf for -inf', "\ndef my_greedy_step(model, src, ys):\n    logits = model(src, ys)[:, -1]\n    logits[:, [PAD_ID, BOS_ID]] = float('inf')\n    return logits.argmax(-1)\n",
     '\\+inf\\ given\\ to\\ PAD\\ and\\ BOS\\ \\(the\\ sign\\ lost\\)'),
    ('columns dropped, ids not mapped back', '\ndef my_greedy_step(model, src, ys):\n    logits = model(src, ys)[:, -1]\n    keep = [i for i in range(logits.shape[-1]) if i not in (PAD_ID, BOS_ID)]\n    return logits[:, keep].argmax(-1)\n',
     'an\\ index\\ into\\ the\\ V\\ \\-\\ 2\\ columns\\ kept,\\ not\\ a\\ token\\ id'),
    ("the source's EOS dropped", '\ndef my_greedy_step(model, src, ys):\n    logits = model(src[:, :-1], ys)[:, -1]\n    return next_token_logits(logits).argmax(-1)\n',
     'the\\ choice\\ for\\ the\\ source\\ without\\ its\\ last\\ token,\\ src\\[:,\\ :\\-1\\]'),
    ('BOS in front of the source', '\ndef my_greedy_step(model, src, ys):\n    src = torch.cat([torch.full_like(src[:, :1], BOS_ID), src], 1)\n    logits = model(src, ys)[:, -1]\n    return next_token_logits(logits).argmax(-1)\n',
     'the\\ choice\\ for\\ the\\ source\\ with\\ BOS\\ put\\ in\\ front'),
    ('the upper triangle as the mask', '\ndef my_greedy_step(model, src, ys):\n    t = ys.shape[1]\n    mask = torch.triu(torch.ones(t, t, dtype=torch.bool))[None, None]\n    src_mask = pad_mask(src)\n    logits = model.decode(model.encode(src, src_mask), src_mask, ys, mask)[:, -1]\n    return next_token_logits(logits).argmax(-1)\n',
     'a\\ decoder\\ whose\\ mask\\ is\\ the\\ upper\\ triangle,\\ triu'),
    ('the generator applied to logits', '\ndef my_greedy_step(model, src, ys):\n    src_mask = pad_mask(src)\n    out = model.decode(model.encode(src, src_mask), src_mask, ys, tgt_mask(ys))\n    logits = model.generator(out[:, -1])\n    return next_token_logits(logits).argmax(-1)\n',
     'model\\.generator\\ was\\ applied\\ to\\ what\\ model\\.decode\\ returns'),
    ("the encoder's output kept in a global", '\n_memory = None\ndef my_greedy_step(model, src, ys):\n    global _memory\n    src_mask = pad_mask(src)\n    if _memory is None: _memory = model.encode(src, src_mask)\n    logits = model.decode(_memory, src_mask, ys, tgt_mask(ys))[:, -1]\n    return next_token_logits(logits).argmax(-1)\n',
     'your\\ step\\ uses\\ something\\ of\\ an\\ earlier\\ call'),
    ("the encoder's output cached by shape", '\n_cache = {}\ndef my_greedy_step(model, src, ys):\n    src_mask = pad_mask(src)\n    if src.shape not in _cache: _cache[src.shape] = model.encode(src, src_mask)\n    logits = model.decode(_cache[src.shape], src_mask, ys, tgt_mask(ys))[:, -1]\n    return next_token_logits(logits).argmax(-1)\n',
     'your\\ step\\ gives\\ the\\ same\\ tokens\\ for\\ another\\ source\\ of\\ the\\ same\\ shape'),
    ('position len(ys) - 1', '\ndef my_greedy_step(model, src, ys):\n    logits = model(src, ys)[:, len(ys) - 1]\n    return next_token_logits(logits).argmax(-1)\n',
     "len\\(ys\\)\\ is\\ the\\ number\\ of\\ rows,\\ the\\ batch's\\ size"),
    ('position ys.shape[1]', '\ndef my_greedy_step(model, src, ys):\n    logits = model(src, ys)[:, ys.shape[1]]\n    return next_token_logits(logits).argmax(-1)\n',
     'one\\ past\\ the\\ last'),
    ('logits[:, -1:], the axis kept', '\ndef my_greedy_step(model, src, ys):\n    logits = model(src, ys)[:, -1:]\n    return next_token_logits(logits).argmax(-1).squeeze(1)\n',
     'logits\\[:,\\ \\-1:\\]\\ keeps\\ that\\ axis,\\ logits\\[:,\\ \\-1\\]\\ drops\\ it'),
    ("Hugging Face's finished rows given PAD", '\ndef my_greedy_step(model, src, ys):\n    nxt = next_token_logits(model(src, ys)[:, -1]).argmax(-1)\n    done = (ys == EOS_ID).any(1)\n    return torch.where(done, torch.full_like(nxt, PAD_ID), nxt)\n',
     'a\\ row\\ whose\\ prefix\\ holds\\ EOS\\ got\\ PAD'),
    ('a causal mask on the source', '\ndef my_greedy_step(model, src, ys):\n    memory = model.encode(src, tgt_mask(src))\n    logits = model.decode(memory, pad_mask(src), ys, tgt_mask(ys))[:, -1]\n    return next_token_logits(logits).argmax(-1)\n',
     'an\\ encoder\\ under\\ tgt_mask\\(src\\),\\ a\\ causal\\ mask'),
    ('inputs read as (length, batch)', '\ndef my_greedy_step(model, src, ys):\n    logits = model(src.t(), ys.t())[-1]                 # (T, B, V): the last step\n    return next_token_logits(logits).argmax(-1)\n',
     'your\\ step\\ reads\\ its\\ inputs\\ as\\ \\(length,\\ batch\\),\\ transposed'),
    ('a mask cast with .type_as(src)', '\ndef my_greedy_step(model, src, ys):\n    src_mask = pad_mask(src)\n    memory = model.encode(src, src_mask)\n    logits = model.decode(memory, src_mask, ys, tgt_mask(ys).type_as(src))[:, -1]\n    return next_token_logits(logits).argmax(-1)\n',
     'a\\ mask\\ that\\ is\\ not\\ bool\\ reached\\ the\\ attention'),
    ('a repetition penalty', '\ndef my_greedy_step(model, src, ys):\n    logits = model(src, ys)[:, -1].clone()\n    seen = logits.gather(1, ys)\n    logits.scatter_(1, ys, torch.where(seen > 0, seen / 1.2, seen * 1.2))\n    return next_token_logits(logits).argmax(-1)\n',
     'it\\ scores\\ down\\ the\\ tokens\\ the\\ prefix\\ holds\\ \\(a\\ repetition\\ penalty'),
    ('the last token forbidden too', "\ndef my_greedy_step(model, src, ys):\n    logits = next_token_logits(model(src, ys)[:, -1])\n    logits.scatter_(1, ys[:, -1:], float('-inf'))\n    return logits.argmax(-1)\n",
     "it\\ forbids\\ the\\ prefix's\\ last\\ token"),
    ("the prefix padded to the source's length", '\ndef my_greedy_step(model, src, ys):\n    if ys.shape[1] < src.shape[1]: ys = F.pad(ys, (0, src.shape[1] - ys.shape[1]), value=PAD_ID)\n    logits = model(src, ys)[:, -1]\n    return next_token_logits(logits).argmax(-1)\n',
     "the\\ end\\ of\\ the\\ prefix\\ padded\\ to\\ the\\ source's\\ length"),
    ('a new axis in front', '\ndef my_greedy_step(model, src, ys):\n    logits = model(src, ys)[:, -1]\n    return next_token_logits(logits).argmax(-1)[None]\n',
     'an\\ axis\\ of\\ 1\\ put\\ in\\ front'),
    # variants of the same mistakes
    ('+inf by masked_fill (a variant)', '\ndef my_greedy_step(model, src, ys):\n    lg = model(src, ys)[:, -1]\n    bad = torch.zeros(lg.shape[-1], dtype=torch.bool); bad[[PAD_ID, BOS_ID]] = True\n    return lg.masked_fill(bad, float("inf")).argmax(-1)\n',
     re.escape("or +inf given to PAD and BOS (the sign lost)")),
    ('the special ids sliced off, no offset added (a variant)', '\ndef my_greedy_step(model, src, ys):\n    lg = model(src, ys)[:, -1]\n    return torch.cat([lg[:, 1:2], lg[:, 3:]], 1).argmax(-1)\n',
     re.escape("an index into the V - 2 columns kept, not a token id")),
    ("the source's EOS dropped in an encode/decode by hand (a variant)", '\ndef my_greedy_step(model, src, ys):\n    s = src[:, :-1]\n    m = pad_mask(s)\n    return next_token_logits(model.decode(model.encode(s, m), m, ys, tgt_mask(ys))[:, -1]).argmax(-1)\n',
     re.escape("the choice for the source without its last token")),
    ('the upper triangle from triu_ on ones (a variant)', '\ndef my_greedy_step(model, src, ys):\n    t = ys.shape[1]\n    m = pad_mask(src)\n    up = torch.ones(1, 1, t, t).triu_().bool()\n    return next_token_logits(model.decode(model.encode(src, m), m, ys, up)[:, -1]).argmax(-1)\n',
     re.escape("a decoder whose mask is the upper triangle")),
    ('the generator on the last position of model(src, ys) (a variant)', '\ndef my_greedy_step(model, src, ys):\n    return next_token_logits(model.generator(model(src, ys))[:, -1]).argmax(-1)\n',
     re.escape("model.generator was applied to what model.decode returns")),
    ('a long mask from tgt_mask(ys).long() (a variant)', '\ndef my_greedy_step(model, src, ys):\n    m = pad_mask(src)\n    return next_token_logits(model.decode(model.encode(src, m), m, ys, tgt_mask(ys).long())[:, -1]).argmax(-1)\n',
     re.escape("a mask that is not bool reached the attention")),
    ('the position len(ys) - 1 with ntl after (a variant)', '\ndef my_greedy_step(model, src, ys):\n    return next_token_logits(model(src, ys)[:, len(ys) - 1]).argmax(-1)\n',
     re.escape("len(ys) is the number of rows, the batch's size")),
    ('logits.unsqueeze(0) before the argmax (a variant)', '\ndef my_greedy_step(model, src, ys):\n    return next_token_logits(model(src, ys)[:, -1]).argmax(-1).unsqueeze(0)\n',
     re.escape("an axis of 1 put in front")),
]

@pytest.mark.parametrize('label, code, says', THIRTY_EIGHTH, ids=[r[0] for r in THIRTY_EIGHTH])
def test_thirty_eighth_blind_answers_named(ns, label, code, says):
    fn = {}; exec(_T38_PRELUDE + code, fn)
    _t38_rejects(check_greedy_step, fn['my_greedy_step'], copy.deepcopy(ns['model']), says=says)
