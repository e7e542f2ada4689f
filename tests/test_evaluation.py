"The scoring functions of `evaluation` (11_results): what they refuse, and what their records say."
import re
import pytest
from transformer_nb.evaluation import corpus_scores, paired_bootstrap, paired_bootstrap_mean, evaluate

REFS = ['A man is riding a bike.', 'Two dogs play in the snow.', 'A girl reads a book.', 'People walk in a park.'] * 25


@pytest.mark.parametrize('hyps, refs, says', [
    ('hello', 'hellp', 'hyps must be a list of sentences, got one str'),       # not five one-character sentences
    (['hello'], 'h', 'refs must be a list of sentences, got one str'),
    (['a', None], ['a', 'b'], 'hyps[1] is a NoneType, not a str'),
    (3, [], 'hyps must be a list of sentences (str), got a int')])
def test_corpus_scores_refuses_non_lists(hyps, refs, says):
    with pytest.raises(TypeError, match='^' + re.escape(says)): corpus_scores(hyps, refs)


def test_paired_bootstrap_refuses_strings():
    with pytest.raises(TypeError, match='baseline must be a list'): paired_bootstrap(['a b'], 'a c', ['a b'])


@pytest.mark.parametrize('n', [0, -5, 2.5, True])
def test_paired_bootstrap_checks_n_samples(n):
    with pytest.raises(ValueError, match=f'n_samples={n!r} must be an int >= 1'): paired_bootstrap(REFS, REFS, REFS, n_samples=n)
    with pytest.raises(ValueError, match='n_samples'): paired_bootstrap_mean([1, 0], [0, 1], n_samples=n)


def test_paired_bootstrap_records_the_samples_used():
    r = paired_bootstrap(REFS, [r.split(' ', 2)[-1] for r in REFS], REFS, n_samples=50)
    assert r['n_samples'] == 50 and 'bs:50' in r['signature']


def test_same_score_is_not_significant():
    "Two different outputs that score the same: every resample differs by 0, which is no evidence of a difference."
    other = ['Nothing here.' if i % 2 else 'Nobody there.' for i in range(100)]
    r = paired_bootstrap(REFS, ['zz yy.'] * 100, other, n_samples=200)
    assert (r['delta'], r['p_value']) == (0.0, 1.0), r
    assert paired_bootstrap_mean([0.5, 0.5, 0.5], [0.5, 0.5, 0.5])['p_value'] == 1.0


def test_paired_bootstrap_mean_refuses_nan():
    with pytest.raises(ValueError, match='finite'): paired_bootstrap_mean([1, float('nan')], [0, 1])


def test_evaluate_refuses_non_pairs():
    with pytest.raises(ValueError, match='list of .source, reference. pairs'): evaluate(None, None, 'a sentence')
    with pytest.raises(ValueError, match=r'pairs\[1\] is not a \(source, reference\) pair'): evaluate(None, None, [('a', 'b'), 'c'])


def test_significance_table_says_the_same_score():
    from transformer_nb.evaluation import _significance_table
    other = ['Nothing here.' if i % 2 else 'Nobody there.' for i in range(100)]
    tbl = _significance_table({'b vs a': paired_bootstrap(REFS, ['zz yy.'] * 100, other, n_samples=100)})
    assert tbl.endswith('| +0.0 | 1.000 | no (the same score) |'), tbl
