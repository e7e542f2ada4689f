"""The proof that 08_data's exercises are right, away from the learner: exercise 5's check (`check_bpe`,
`transformer_nb.exercises`, A26) reports the stub, passes the printed `learn_bpe` and `segment` and names what a wrong
one gets wrong; each "break it" exercise, applied to the code, makes exactly the checks its solution names fail."""
import pytest
import re
from nbtools import _body, assert_break_it, break_it, cells, changed, code_blocks, namespace
from transformer_nb.exercises import check_bpe

NB = '08_data'

def bpe(old=None, new=''):
    "The printed `learn_bpe` and `segment` (exercise 5's solution), with `old` replaced by `new`: a wrong answer."
    ns = namespace(NB, changed(code_blocks(NB, 'a08e0013')[0], old, new) if old is not None else code_blocks(NB, 'a08e0013')[0])
    return ns['learn_bpe'], ns['segment']

def test_bpe_stub_is_reported(capsys):
    ns = namespace(NB, _body(cells(NB)['a08e0012'][1]).split('\ncheck_bpe')[0])
    assert check_bpe(ns['learn_bpe'], ns['segment']) is False
    assert capsys.readouterr().out.startswith('learn_bpe, segment is not written yet')

def test_bpe_solution_passes(capsys):
    assert check_bpe(*bpe()) is True
    assert "reproduce Sennrich et al.'s example" in capsys.readouterr().out

@pytest.mark.parametrize('old, new, says', [
    ("pairs[a, b] += c", "pairs[a, b] += 1", r"merge 6 should be .*: weight each pair by its word's count"),                          # counts ignored
    ("best = min(pairs, key=lambda p: (-pairs[p], p))", "best = max(pairs, key=lambda p: (pairs[p], p))", r"merge \d should be"),
    ("best = min(pairs, key=lambda p: (-pairs[p], p))", "best = pairs.most_common(1)[0][0]", r"merge 6 should be \('e', 'w'\), yours is \('n', 'e'\): .* a tie goes to the smallest pair"),  # first counted
    ("vocab = {tuple(w) + ('</w>',): c", "vocab = {tuple(w): c", r"merge 3 should be \('est', '</w>'\).*: end each word with the symbol '</w>'"),  # no end of word
    ("for pair in merges: syms = _merge(syms, pair)", "for pair in merges[::-1]: syms = _merge(syms, pair)", r"segment\('lowest'\) gave"),
    ("for _ in range(n_merges):", "for _ in range(n_merges - 1):", r"recorded 9 merges"),
    # the merges kept in another form
    ("merges.append(best)", "merges.append(''.join(best))", r"learn_bpe recorded the merge 'es': keep each merge as the pair of symbols it joined"),
    ("merges.append(best)", "merges.append(' '.join(best))", r"learn_bpe recorded the merge 'e s': keep each merge as the pair"),
    ("merges.append(best)", "merges.append(list(best))", r"learn_bpe recorded the merge \['e', 's'\]: keep each merge as .* a tuple"),
    # segment, tried on several words
    ("    syms = list(word) + ['</w>']\n    for pair", "    syms = list(word)\n    for pair",
     r"segment\('lowest'\) gave \['low', 'est'\], not .*: split the word into its characters plus '</w>'"),
    ("    for pair in merges: syms = _merge(syms, pair)",
     "    for a, b in merges:\n        i = next((i for i in range(len(syms) - 1) if (syms[i], syms[i + 1]) == (a, b)), None)\n"
     "        if i is not None: syms[i:i + 2] = [a + b]",
     r"segment\('lowlow'\) gave \['low', 'l', 'o', 'w', '</w>'\], not \['low', 'low</w>'\]: merge every occurrence of a pair"),
    ("    syms = list(word) + ['</w>']\n    for pair in merges: syms = _merge(syms, pair)\n    return syms",
     "    return ['low', 'est</w>']", r"segment\('newer'\) gave \['low', 'est</w>'\], not \['n', 'ew', 'e', 'r', '</w>'\]: apply each merge"),
])
def test_bpe_wrong_answers_are_named(old, new, says, capsys):
    assert check_bpe(*bpe(old, new)) is False
    assert re.search(says, capsys.readouterr().out)

SAMPLER, ENCODED = '14a534d9', 'e1e1330c'

@pytest.mark.slow
def test_break_it_1_bound_the_source_only():
    sampler = 'tests/test_data.py::test_sampler_respects_max_tokens_and_covers_each_index_once'
    assert_break_it(NB, '748b5e1e', "max(ms, mt, a, b)", "max(ms, a)", 'data', [sampler], prose=False,
                    fail_cells={SAMPLER}, fail_tests={sampler})

@pytest.mark.slow
def test_break_it_2_source_without_eos():
    conventions = 'tests/test_data.py::test_encode_pairs_conventions'
    assert_break_it(NB, '907a2616', "(s + [EOS_ID], [BOS_ID] + t + [EOS_ID])", "(s, [BOS_ID] + t + [EOS_ID])", 'data', [conventions],
                    prose=False, fail_cells={ENCODED}, fail_tests={conventions})

PROSE = 'c0a1e803'

@pytest.mark.parametrize('cell, old, new', [('748b5e1e', "max(ms, mt, a, b)", "max(ms, a)"),
                                            ('907a2616', "(s + [EOS_ID], [BOS_ID] + t + [EOS_ID])", "(s, [BOS_ID] + t + [EOS_ID])")])
@pytest.mark.slow
def test_break_its_leave_the_hidden_prose_cell_passing(cell, old, new):
    "A learner who makes a 'break it' change in the notebook (not the library) sees the cells the solution names fail, not the prose checks."
    failed, _ = break_it(NB, cell, old, new)
    assert failed and PROSE not in failed, failed
