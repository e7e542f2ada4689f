"""The proof of 10_decoding's exercises, away from the learner: `check_greedy_step` passes the printed solution and
other right answers, reports the empty stub as not written (without raising), and fails each natural wrong answer
with a one-line message that names the case and the mistake; and each "break it" exercise's change, applied to the
notebook and to the exported module, makes exactly the checks its solution names fail."""
import pytest
from nbtools import assert_break_it, assert_stub_then_solution, namespace
from transformer_nb.core import PAD_ID, BOS_ID

NB = '10_decoding'

@pytest.fixture(scope='module')
def ns():
    "The toy model trained as in the notebook, the six words, the stub and the check (run on the stub)."
    return namespace(NB, '63f31e39', '618c7253', 'from transformer_nb.decoding import *', '44816395', '1b5caa24',
                     'c0b1e021', 'c0b1e022')

def test_greedy_check_on_stub_solution_and_other_right_answers(ns, capsys):
    check = ns['check_greedy_step']
    assert_stub_then_solution(ns, 'check_greedy_step', 'my_greedy_step', NB, 'c0b1e023', capsys)
    ntl, pad_mask = ns['next_token_logits'], ns['pad_mask']
    def via_decode(model, src, ys):                       # right: the encoder and decoder called apart, PAD/BOS by hand
        sm = pad_mask(src, PAD_ID)
        lg = model.decode(model.encode(src, sm), sm, ys)[:, -1].clone()
        lg[:, [PAD_ID, BOS_ID]] = float('-inf')
        return lg.log_softmax(-1).argmax(1, keepdim=True)  # (B, 1) is accepted too
    assert check(via_decode) is True
    assert check(lambda m, s, ys: ntl(m, m(s, ys)[:, -1]).softmax(-1).argmax(-1)) is True
    assert 'your greedy step chooses every token greedy_decode chooses' in capsys.readouterr().out

WRONG_STEPS = {   # name: (wrong step, what its message must say)
    'PAD and BOS allowed': (lambda ns: lambda m, s, ys: m(s, ys)[:, -1].argmax(-1),
        "a copy of the toy model that scores PAD and BOS highest, the six words' first step as a batch, row 0 after '': chose id 0, greedy_decode id",
        "a decoder never emits PAD or BOS: forbid them with next_token_logits"),
    'first position': (lambda ns: lambda m, s, ys: ns['next_token_logits'](m, m(s, ys)[:, 0]).argmax(-1),
        "the toy model on 'abc' alone, row 0 after 'c", "that is the first position's choice: the next token comes from the last"),
    'logits returned': (lambda ns: lambda m, s, ys: ns['next_token_logits'](m, m(s, ys)[:, -1]),
        "the toy model, the six words' first step as a batch: got shape (72,); return one token id per row, shape (B,) = (6,)"),
    'argmax over the batch': (lambda ns: lambda m, s, ys: ns['next_token_logits'](m, m(s, ys)[:, -1]).argmax(0),
        "got shape (12,); return one token id per row"),
    'one sentence only': (lambda ns: lambda m, s, ys: ns['next_token_logits'](m, m(s, ys)[:, -1]).argmax().item(),
        "got shape (1,); return one token id per row, shape (B,) = (6,)"),
    'newest token only, no cache': (lambda ns: lambda m, s, ys: ns['next_token_logits'](m, m(s, ys[:, -1:])[:, -1]).argmax(-1),
        "the toy model on 'abc' alone, row 0 after 'c", "greedy_decode id"),
}

@pytest.mark.parametrize('name', WRONG_STEPS)
def test_greedy_check_names_the_mistake(ns, name):
    make, *says = WRONG_STEPS[name]
    with pytest.raises(AssertionError) as e: ns['check_greedy_step'](make(ns))
    msg = str(e.value)
    assert all(s in msg for s in says) and '\n' not in msg and not msg.startswith(('close:', '==:')), msg

BREAK_10 = {   # exercise: (cell, old, new, module, the cells and tests its solution names)
    1: ('0ba526be', 'return ((5 + n) / 6) ** alpha', 'return (5 + n) / 6', 'decoding',
        {'84060f7a'}, {'tests/test_decoding.py::test_length_penalty_values'}),
    2: ('0924cf59', "for sc, cc in self.layers: sc.select(idx); cc.select(idx)",
        "return self\n        for sc, cc in self.layers: sc.select(idx); cc.select(idx)", 'decoding',
        {'b6311a53', '1b5caa24', 'cab69a60', '82809c6b', '2c8e8e7f', 'c0b1e003', 'd3c0a099', 'a10p0002'},   # every batch decode after it
        {f'tests/test_decoding.py::{t}' for t in (
            'test_beam_larger_than_vocabulary', 'test_beam_never_stops_while_a_better_hypothesis_is_alive', 'test_beam_one_is_greedy',
            'test_cache_changes_nothing', 'test_decode_step_equals_decode', 'test_fast_beam_search_equals_reference',
            'test_fast_beam_search_equals_reference_at_the_cap_and_when_scripted', 'test_fast_beam_search_equals_reference_wide_vocabulary',
            'test_fast_greedy_equals_greedy_on_untrained_models', 'test_independent_of_batch_and_padding', 'test_learned_positions_cap_output',
            'test_length_penalty_changes_the_winner', 'test_max_length_reached_and_respected', 'test_mode_restored_and_no_grad',
            'test_nbest_one_stops_earlier_with_the_same_answer', 'test_nbest_ranked_by_normalised_score', 'test_outputs_never_hold_specials',
            'test_the_test_model_is_not_degenerate', 'test_translate_order_empty_and_batching')}),
}

@pytest.mark.slow
@pytest.mark.parametrize('ex', BREAK_10)
def test_break_it_fails_exactly_the_named_checks(ex):
    cell, old, new, module, want_cells, want_tests = BREAK_10[ex]
    assert_break_it(NB, cell, old, new, module, ['tests/test_decoding.py'], fail_cells=want_cells, fail_tests=want_tests)
