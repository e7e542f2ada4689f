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

# ---------------------------------------------------------------- the one verdict rule: the seed as the unit
from transformer_nb.lib.significance import _t_p, _t_quantile, _holm, seed_verdicts, setup_of, SEPARATES, NOT_SEPARATED

def _rec(v, seed, bleu, hw='CPU', precision='auto: bf16: this CPU has AVX512_BF16'):
    return dict(id=v if seed == 0 else f"{v}-seed{seed}", variant=v, seed=seed, bleu=bleu, hardware=hw, precision=precision)

@pytest.mark.parametrize('t, df', [(0.3, 1), (1.2, 2), (2.5, 3), (8.0, 4), (2.1, 7), (0.05, 12), (3.3, 31)])
def test_t_tail_is_students(t, df):
    "The exact finite sums against their closed forms (df 1, 2) and, where installed, scipy."
    import math
    if df == 1: assert _t_p(t, 1) == pytest.approx(1 - 2 / math.pi * math.atan(t), rel=1e-12)
    if df == 2: assert _t_p(t, 2) == pytest.approx(1 - t / math.sqrt(2 + t * t), rel=1e-12)
    stats = pytest.importorskip('scipy.stats')
    assert _t_p(t, df) == pytest.approx(2 * stats.t.sf(t, df), rel=1e-9)
    assert _t_quantile(0.05, df) == pytest.approx(stats.t.ppf(0.975, df), rel=1e-9)

def test_holm_by_hand():
    assert _holm({'a': 0.01, 'b': 0.04, 'c': 0.03}) == pytest.approx({'a': 0.03, 'c': 0.06, 'b': 0.06})   # monotone: b's 0.04 raised to 0.06
    assert _holm({'a': 0.5, 'b': 0.6}) == {'a': 1.0, 'b': 1.0}                                           # at most 1
    assert _holm({}) == {}

def test_seed_verdicts_pair_by_seed_within_one_setup():
    runs = [_rec('base', 0, 27.0), _rec('base', 1, 26.0), _rec('base', 2, 27.5),
            _rec('wide', 0, 29.0), _rec('wide', 1, 28.1), _rec('wide', 2, 29.4),
            _rec('odd', 0, 28.0), _rec('odd', 1, 25.0), _rec('odd', 2, 27.6),
            _rec('once', 0, 30.0), _rec('base', 3, 1.0, hw='GPU'), _rec('odd', 3, 30.0)]
    v = seed_verdicts(runs)
    w, o = v['rows']['wide'], v['rows']['odd']
    assert w['deltas'] == {0: 2.0, 1: 2.1, 2: 1.9} and w['n_seeds'] == 3
    assert (w['mean'], w['sd']) == pytest.approx((2.0, 0.1), rel=1e-6)
    stats = pytest.importorskip('scipy.stats')
    t = stats.ttest_1samp([2.0, 2.1, 1.9], 0)
    assert w['p'] == pytest.approx(t.pvalue, rel=1e-4)
    lo, hi = stats.t.interval(0.95, 2, loc=2.0, scale=0.1 / 3 ** 0.5)
    assert w['interval'] == pytest.approx([lo, hi], rel=1e-4)
    assert o['unpaired'] == [3] and o['n_seeds'] == 3                    # the GPU's base-seed3 is another set-up: no pair
    holm = sorted([w['p'], o['p']])
    assert (w['holm_p'], o['holm_p']) == pytest.approx((2 * holm[0], max(2 * holm[0], holm[1])), rel=1e-4)
    assert (w['verdict'], o['verdict']) == (SEPARATES, NOT_SEPARATED)
    assert (v['rows']['once']['p'], v['rows']['once']['holm_p'], v['rows']['once']['verdict']) == (None, None, 'one seed: no p, not tested')
    f = v['family']
    assert (f['m'], f['df']) == (2, 4) and f['sd'] == pytest.approx(((0.1 ** 2 + o['sd'] ** 2) / 2) ** 0.5, rel=1e-3)
    assert f['detectable'][3] == pytest.approx(stats.t.ppf(1 - 0.05 / 4, 2) * f['sd'] / 3 ** 0.5, rel=1e-2)

def test_seed_verdicts_take_the_first_reference_at_a_seed():
    runs = [_rec('paper', 0, 27.0), _rec('base', 0, 26.0), _rec('base', 1, 25.0), _rec('rope', 0, 30.0), _rec('rope', 1, 28.0)]
    assert seed_verdicts(runs, ('paper', 'base'))['rows']['rope']['vs'] == {0: 'paper', 1: 'base-seed1'}
    assert seed_verdicts(runs, ('base', 'paper'))['rows']['rope']['deltas'] == {0: 4.0, 1: 3.0}

def test_seed_verdicts_refuse_rows_of_two_setups():
    with pytest.raises(ValueError, match=r'^the rows span 2 set-ups \(CPU, bf16; CPU, fp32\): compare within one$'):
        seed_verdicts([_rec('base', 0, 27.0), _rec('wide', 0, 28.0), _rec('wide', 1, 28.0, precision='fp32')])

def test_setup_of_resolves_auto():
    assert setup_of(_rec('base', 0, 1.0)) == 'CPU, bf16' and setup_of(_rec('base', 0, 1.0, precision='fp32')) == 'CPU, fp32'
