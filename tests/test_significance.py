"`significance` (lib_significance): the paired bootstrap, sacreBLEU's for corpus scores and ours for sentence-averaged ones; what they refuse, in one line naming the argument, and what they call no difference."
import re
import pytest
from transformer_nb.lib.significance import _paired_bootstrap, paired_bootstrap_mean, _significance_table

REFS = ['A man is riding a bike.', 'Two dogs play in the snow.', 'A girl reads a book.', 'People walk in a park.'] * 25

def test_paired_bootstrap_refuses_strings():
    with pytest.raises(TypeError, match='baseline must be a list'): _paired_bootstrap(['a b'], 'a c', ['a b'])

@pytest.mark.parametrize('n', [0, -5, 2.5, True])
def test_paired_bootstrap_checks_n_samples(n):
    with pytest.raises(ValueError, match=f'n_samples={n!r} must be an int >= 1'): _paired_bootstrap(REFS, REFS, REFS, n_samples=n)
    with pytest.raises(ValueError, match='n_samples'): paired_bootstrap_mean([1, 0], [0, 1], n_samples=n)

def test_paired_bootstrap_records_the_samples_used():
    r = _paired_bootstrap(REFS, [r.split(' ', 2)[-1] for r in REFS], REFS, n_samples=50)
    assert r['n_samples'] == 50 and 'bs:50' in r['signature']

def test_same_score_is_not_significant():
    "Two different outputs that score the same: every resample differs by 0, which is no evidence of a difference."
    other = ['Nothing here.' if i % 2 else 'Nobody there.' for i in range(100)]
    r = _paired_bootstrap(REFS, ['zz yy.'] * 100, other, n_samples=200)
    assert (r['delta'], r['p_value']) == (0.0, 1.0), r
    assert paired_bootstrap_mean([0.5, 0.5, 0.5], [0.5, 0.5, 0.5])['p_value'] == 1.0

def test_paired_bootstrap_mean_refuses_nan():
    with pytest.raises(ValueError, match='finite'): paired_bootstrap_mean([1, float('nan')], [0, 1])

def test_significance_table_says_the_same_score():
    other = ['Nothing here.' if i % 2 else 'Nobody there.' for i in range(100)]
    tbl = _significance_table({'b vs a': _paired_bootstrap(REFS, ['zz yy.'] * 100, other, n_samples=100)})
    assert tbl.endswith('| +0.0 | 1.000 | no (the same score) |'), tbl

@pytest.mark.parametrize('a, b, says', [
    ('ab', 'cd', "baseline must be a list of sentence scores (numbers), got 'ab'"),      # not NumPy's 'could not convert'
    ([1, 0], ['a', 'b'], "system must be a list of sentence scores (numbers), got ['a', 'b']"),
    ([1, None], [0, 1], 'baseline must be a list of sentence scores (numbers), got [1, None]'),
    (3, [0, 1], 'baseline must be a list of sentence scores (numbers), got 3'),
])
def test_paired_bootstrap_mean_names_what_is_not_a_score(a, b, says):
    with pytest.raises(TypeError) as e: paired_bootstrap_mean(a, b)
    assert str(e.value) == says, str(e.value)

@pytest.mark.parametrize('seed', ['x', -1, 1.5, None])
def test_paired_bootstrap_mean_checks_the_seed(seed):
    with pytest.raises(ValueError, match=rf"^seed={re.escape(repr(seed))} must be an int in \[0, 4294967295\]$"): paired_bootstrap_mean([1, 0], [0, 1], seed=seed)

def test_paired_bootstrap_checks_the_metric():
    with pytest.raises(ValueError, match=r"^metric=\['bleu'\] must be 'bleu', 'bleu_lc' or 'chrf'$"): _paired_bootstrap(REFS, REFS, REFS, metric=['bleu'])
