"""11_results's exercises, proven away from the learner's names: each check (`transformer_nb.course.evaluation`, course_evaluation) accepts
the solution the notebook prints, reports an unwritten stub without failing, and names each likely mistake with the
case it fails, returning False and never raising; the change of the "break it" exercise makes exactly the checks its
solution names fail."""
import contextlib, io
import pytest
from nbtools import _body, cells, code_blocks, namespace
from transformer_nb.course.evaluation import check_bleu

NB = '11_results'
EXERCISES = 'a1b2c344'                      # the exercises' markdown cell: the solutions of exercises 2 and 3

def said(check, *answer, **kw) -> tuple:
    "What `check(*answer)` returns, and the line it prints."
    with contextlib.redirect_stdout(io.StringIO()) as out: ok = check(*answer, **kw)
    return ok, out.getvalue().strip()

# --- exercise 1: break `training_flops` ---

def test_break_training_flops_fails_the_two_estimates_and_nothing_else():
    src = cells(NB)['a1b2c314'][1]
    broken = src.replace('return hours * 3600 * n_gpus * tflops * 1e12', 'return hours * 3600 * tflops * 1e12')
    assert broken != src
    lines = _body(cells(NB)['a1b2c315'][1]).splitlines()
    closes = [l for l in lines if l.startswith('test_close(')]
    assert len(closes) == 2 and 'base model' in closes[0] and 'big' in closes[1]
    with pytest.raises(AssertionError): exec('\n'.join(lines), namespace(NB, broken))                 # the cell fails ...
    exec('\n'.join(l for l in lines if l not in closes), namespace(NB, broken))                      # ... at its two estimates only
    for kept in closes:                                                                              # ... each of which fails
        with pytest.raises(AssertionError): exec('\n'.join(l for l in lines if l not in closes or l == kept), namespace(NB, broken))
    f = namespace(NB, broken)['training_flops']
    assert (f"{f(12, 8, 9.5):.1e}", f"{f(3.5 * 24, 8, 9.5):.1e}") == ('4.1e+17', '2.9e+18')           # the solution's figures
    text = ' '.join(cells(NB)[EXERCISES][1].split())
    assert 'Both `test_close` checks fail' in text and '4.1·10¹⁷ and the big one 2.9·10¹⁸, eight times too small' in text

# --- exercise 2: BLEU from its definition ---

SOLUTION = code_blocks(NB, EXERCISES)[0]

def solution_ns(src=SOLUTION):
    ns = namespace(NB)                                                 # the notebook's import cells, as the learner has them
    exec(src, ns); return ns

def test_bleu_stub_cell_imports_what_the_solution_uses():
    "The names a natural answer uses are imported before the stub, in the notebook's imports cell (nbdev's docs build warns of a cell that mixes imports with code)."
    src = [s for kind, s in cells(NB).values() if kind == 'code']
    stub = next(i for i, s in enumerate(src) if 'def my_bleu' in s)
    before = '\n'.join(src[:stub])
    assert 'import math' in before and 'from collections import Counter' in before

def test_bleu_solution_passes():
    assert said(check_bleu, solution_ns()['my_bleu']) == \
        (True, "your BLEU agrees with sacreBLEU's on 8 cases: clipping, the brevity penalty, corpus sums, case, word boundaries")

def test_bleu_stub_is_reported_as_not_written(capsys):
    ns = namespace(NB, 'e11c0001')                                   # the stub cell runs the check, as Run All does
    assert 'my_bleu is not written yet' in capsys.readouterr().out
    assert said(check_bleu, ns['my_bleu'])[0] is False

@pytest.mark.parametrize('old, new, case, mistake', [
    ('(ngrams(h, n) & ngrams(ref, n))', 'Counter({g: k for g, k in ngrams(h, n).items() if g in ngrams(ref, n)})',
     "case 'a repeated 4-gram'", 'clip the counts'),
    ('bp = min(1.0, math.exp(1 - r / c))', 'bp = 1.0', "case 'a short hypothesis'", 'the brevity penalty'),
    ('bp = min(1.0, math.exp(1 - r / c))', 'bp = min(1.0, math.exp(1 - c / r))', "case 'a short hypothesis'", 'the brevity penalty'),
    ('math.exp(sum(math.log(m / t) for m, t in zip(match, total)) / 4)', 'sum(m / t for m, t in zip(match, total)) / 4',
     "case 'a short hypothesis'", 'the arithmetic mean of the precisions'),   # named as that, not as the brevity penalty
    ('return 100 * bp', 'return bp', "case 'identical captions'", 'a score on a 0-1 scale'),      # BLEU from 0 to 1
])
def test_bleu_mistakes_are_named(old, new, case, mistake):
    assert old in SOLUTION, old
    ok, line = said(check_bleu, solution_ns(SOLUTION.replace(old, new))['my_bleu'])
    assert not ok and line.startswith(f'Not yet: {case}') and mistake in line, line

def test_bleu_averaged_over_sentences_is_named():
    one = solution_ns()['my_bleu']
    ok, line = said(check_bleu, lambda hs, rs: sum(one([h], [r]) for h, r in zip(hs, rs)) / len(hs))
    assert not ok and "case 'three captions'" in line and 'sum the matches' in line, line

@pytest.mark.parametrize('k', [1, 2, 3])
@pytest.mark.parametrize('weight', ['/ 4', '/ k'])
def test_bleu_with_fewer_orders_is_named(k, weight):
    "n-grams of orders 1 to k only, their logs divided by 4 (the formula's weight kept) or by k: named as fewer orders."
    src = (SOLUTION.replace('[0] * 4, [0] * 4', f'[0] * {k}, [0] * {k}').replace('range(1, 5)', f'range(1, {k + 1})')
           .replace(') / 4)', f") {weight.replace('k', str(k))})"))
    assert src != SOLUTION
    ok, line = said(check_bleu, solution_ns(src)['my_bleu'])
    assert not ok and "case 'a short hypothesis'" in line and f'orders 1 to {k} only' in line, line

def test_bleu_that_returns_no_number_is_told_so():
    ok, line = said(check_bleu, lambda hs, rs: None)
    assert not ok and 'return one number' in line, line

# --- exercise 3: Table 2's budget on other GPUs ---

def test_budget_solution_gives_the_hours_it_states():
    ns = namespace(NB, 'a1b2c314')
    exec(code_blocks(NB, EXERCISES)[1], ns)
    assert (round(ns['hours']('K80'), 1), round(ns['hours']('M40'), 1)) == (40.9, 19.1)
    assert round(ns['hours']('P100')) == 12                                                   # back to §5.2's 12 hours
    text = ' '.join(cells(NB)[EXERCISES][1].split())
    assert '# (40.9, 19.1)' in text and 'About 41 hours on K80s and 19 on M40s, against 12 on P100s' in text

# ---------------------------------------------------------------- fresh wrong answers, written as new learners would
import functools
import math
from collections import Counter
from transformer_nb.course import evaluation as _ex
from nbtools import assert_rejects
FRESH = {}   # label: (checker, answer, the words its message must contain)
def add(checker, label, kw, *args): FRESH[checker, label] = args

# 11 my_bleu: each answer and the words its message must contain
def bl(f):
    f.__name__ = 'my_bleu'; return f
def _bleu(hyps, refs, *, orders=4, clip=True, corpus=True, bp=True, scale=100, bp_form='ok', geo=True, c_r='ok', lower=False):
    ng = lambda ws, n: Counter(tuple(ws[i:i + n]) for i in range(len(ws) - n + 1))
    def stats(pairs):
        match, total, c, r = [0] * orders, [0] * orders, 0, 0
        for h, ref in pairs:
            if lower: h, ref = h.lower(), ref.lower()
            h, ref = h.split(), ref.split()
            c, r = c + len(h), r + len(ref)
            for n in range(1, orders + 1):
                hn, rn = ng(h, n), ng(ref, n)
                match[n - 1] += sum((hn & rn).values()) if clip else sum(v for g, v in hn.items() if g in rn)
                total[n - 1] += max(len(h) - n + 1, 0)
        return match, total, c, r
    def score(match, total, c, r):
        if c_r == 'swap': c, r = r, c
        b = 1.0 if not bp else (min(1.0, math.exp(1 - r / c)) if bp_form == 'ok' else (math.exp(1 - c / r) if bp_form == 'inv' else min(1.0, c / r)))
        ps = [m / t for m, t in zip(match, total)]
        mean = math.exp(sum(math.log(p) for p in ps) / orders) if geo else sum(ps) / orders
        return scale * b * mean
    if corpus: return score(*stats(zip(hyps, refs)))
    return sum(score(*stats([(h, r)])) if all(stats([(h, r)])[0]) else 0.0 for h, r in zip(hyps, refs)) / len(hyps)
def bv(**kw): return bl(functools.partial(_bleu, **kw))
add('check_bleu', '0-1 scale', ['0-1', '100', 'scale', 'percent'], bv(scale=1))
add('check_bleu', 'three n-gram orders', ['order', '4-gram', 'n-gram', 'up to 4'], bv(orders=3))
add('check_bleu', 'no clipping', ['clip'], bv(clip=False))
add('check_bleu', 'sentence average not corpus', ['corpus', 'sentence', 'average'], bv(corpus=False))
add('check_bleu', 'no brevity penalty', ['brevity'], bv(bp=False))
add('check_bleu', 'brevity penalty r/c inverted', ['brevity'], bv(c_r='swap'))
add('check_bleu', 'arithmetic mean of precisions', ['geometric', 'arithmetic', 'mean'], bv(geo=False))
add('check_bleu', 'brevity as c/r ratio', ['brevity', 'exp'], bv(bp_form='ratio'))
add('check_bleu', 'lowercases', ['case', 'lower'], bv(lower=True))
SAYS_CHECK_BLEU = {
"0-1 scale": "a\\ score\\ on\\ a\\ 0\\-1\\ scale:\\ corpus\\ BLEU\\ is\\ reported\\ from\\ 0\\ to\\ 100\\ here,\\ as\\ sacreBLEU\\ does\\ \\(mul",
"three n-gram orders": "n\\-grams\\ of\\ orders\\ 1\\ to\\ 3\\ only:\\ BLEU\\ uses\\ n\\ =\\ 1,\\ 2,\\ 3\\ and\\ 4,\\ each\\ log\\ p_n\\ weighted\\ 1/4\\ \\(ran",
"no clipping": "clip\\ the\\ counts:\\ an\\ n\\-gram\\ of\\ the\\ hypothesis\\ counts\\ at\\ most\\ as\\ often\\ as\\ the\\ reference\\ has\\ ",
"sentence average not corpus": "sum\\ the\\ matches,\\ the\\ n\\-gram\\ totals\\ and\\ the\\ lengths\\ over\\ the\\ corpus\\ before\\ dividing;\\ an\\ ave",
"no brevity penalty": "the\\ brevity\\ penalty\\ is\\ missing:\\ a\\ hypothesis\\ shorter\\ than\\ its\\ reference\\ is\\ scaled\\ by\\ BP",
"brevity penalty r/c inverted": "the\\ brevity\\ penalty\\ with\\ r\\ and\\ c\\ swapped:\\ .*yours\\ penalises\\ long\\ hypotheses",
"arithmetic mean of precisions": "the\\ arithmetic\\ mean\\ of\\ the\\ precisions:\\ BLEU\\ takes\\ their\\ geometric\\ mean,\\ exp\\(\\(log\\ p1\\ \\+\\ log\\ ",
"brevity as c/r ratio": "the\\ brevity\\ penalty:\\ BP\\ =\\ min\\(1,\\ exp\\(1\\ \\-\\ r/c\\)\\),\\ with\\ c\\ the\\ hypothesis\\ length\\ and\\ r\\ the\\ ref",
"lowercases": "BLEU\\ is\\ case\\-sensitive\\ here,\\ as\\ sacreBLEU's\\ default\\ is:\\ 'A'\\ and\\ 'a'\\ are\\ different\\ words;\\ c"
}

@pytest.mark.parametrize('label', list(SAYS_CHECK_BLEU))
def test_fresh_wrong_answers_named_by_check_bleu(label):
    "Each wrong answer a new learner writes is refused, with a message that names its mistake."
    assert_rejects(_ex.check_bleu, *FRESH['check_bleu', label], says=SAYS_CHECK_BLEU[label])

@pytest.mark.parametrize('new, case, mistake', [
    ('bp = 1.0', "case 'a short hypothesis'", 'the brevity penalty is missing: a hypothesis shorter than its reference is scaled by BP'),
    ('bp = min(1.0, math.exp(1 - c / r))', "case 'a short hypothesis'",
     'the brevity penalty with r and c swapped: BP = min(1, exp(1 - r/c)), c the hypothesis length and r the reference length; '
     'yours penalises long hypotheses and spares short ones'),
    ('bp = math.exp(1 - r / c)', "case 'a repeated 4-gram'", 'the brevity penalty is not capped at 1: BP = min(1, exp(1 - r/c)); '
     'a hypothesis longer than its reference gets BP = 1, and yours rewards it with exp(1 - r/c) > 1'),
], ids=['missing', 'r and c swapped', 'not capped at 1'])
def test_bleu_brevity_penalty_mistakes_are_told_apart(new, case, mistake):
    "The three ways to get the brevity penalty wrong get three messages (a long hypothesis tells the swap from none at all)."
    ok, line = said(check_bleu, solution_ns(SOLUTION.replace('bp = min(1.0, math.exp(1 - r / c))', new))['my_bleu'])
    assert not ok and line.startswith(f'Not yet: {case}: ') and f'Likely mistake: {mistake}' in line, line
    assert said(check_bleu, solution_ns()['my_bleu'])[0] is True


def _bleu_split(hyps, refs, split=str.split):
    "Corpus BLEU with the sentences split by `split` (words: str.split; characters: list)."
    grams = lambda ws, n: Counter(tuple(ws[i:i + n]) for i in range(len(ws) - n + 1))
    m, t, c, r = [0] * 4, [0] * 4, 0, 0
    for h, ref in zip(hyps, refs):
        h, ref = split(h), split(ref); c, r = c + len(h), r + len(ref)
        for n in range(1, 5): m[n - 1] += sum((grams(h, n) & grams(ref, n)).values()); t[n - 1] += max(len(h) - n + 1, 0)
    return 100 * min(1.0, math.exp(1 - r / c)) * math.exp(sum(math.log(a / b) for a, b in zip(m, t)) / 4)

def test_character_n_grams_are_named():
    assert_rejects(_ex.check_bleu, functools.partial(_bleu_split, split=list),
                   says=r"Likely mistake: n-grams of characters: split each sentence into words on spaces, h\.split\(\), and count n-grams of words")
    assert _ex.check_bleu(_bleu_split) is True

# ---------------------------------------------------------------- mistakes nobody listed, named by what the answer does
import math as _m
from collections import Counter as _Counter

def _bleu_by(clip=True, bp='min', add=0, orders=4, tok=str.split):
    "Corpus BLEU written by hand, miswritten one or more ways at once."
    def my_bleu(hyps, refs):
        m, t, c, r = [0] * 4, [0] * 4, 0, 0
        for h, ref in zip(hyps, refs):
            h, ref = tok(h), tok(ref); c, r = c + len(h), r + len(ref)
            for n in range(4):
                hc, rc = _Counter(zip(*[h[i:] for i in range(n + 1)])), _Counter(zip(*[ref[i:] for i in range(n + 1)]))
                m[n] += sum(min(k, rc[g]) if clip else k * (g in rc) for g, k in hc.items()); t[n] += max(len(h) - n, 0)
        b = {'min': 1 if c >= r else _m.exp(1 - r / c), 'ratio': min(1, c / r), 'uncapped': _m.exp(1 - r / c)}[bp]
        p = [(a + add) / (b_ + add) for a, b_ in zip(m, t)][:orders]
        return 100 * b * _m.exp(sum(map(_m.log, p)) / orders) if all(p) else 0.0
    return my_bleu

@pytest.mark.parametrize('answer, says', [
    (_bleu_by(bp='ratio'), r"case 'a short hypothesis': .*Likely mistake: a brevity penalty of c/r, not exp\(1 - r/c\); the brevity penalty: BP"),
    (_bleu_by(add=1), r"case 'a short hypothesis': .*Likely mistake: add-one smoothing, \(matches \+ 1\) / \(total \+ 1\)"),
    (_bleu_by(clip=False, bp='uncapped'), r"Likely mistake: a brevity penalty not capped at 1 and unclipped counts"),
    (_bleu_by(tok=lambda s: s.replace('.', ' ').split()), r"case 'a short hypothesis': .*the punctuation was dropped \(re\.findall"),
])
def test_bleu_mistakes_nobody_listed_are_named_by_property(answer, says):
    assert_rejects(_ex.check_bleu, answer, says=says)


# ---------------------------------------------------------------- more mistakes, each named by what the answer does
import transformer_nb.course.evaluation as _named

def test_a_recall_is_named():
    from collections import Counter
    def my_bleu(hyps, refs):                            # matches over the reference's n-grams
        m, t, c, r = [0] * 4, [0] * 4, 0, 0
        for h, ref in zip(hyps, refs):
            h, ref = h.split(), ref.split(); c, r = c + len(h), r + len(ref)
            for n in range(4):
                hc, rc = Counter(zip(*[h[i:] for i in range(n + 1)])), Counter(zip(*[ref[i:] for i in range(n + 1)]))
                m[n] += sum(min(k, rc[g]) for g, k in hc.items()); t[n] += max(len(ref) - n, 0)
        bp = 1 if c >= r else math.exp(1 - r / c)
        return 100 * bp * math.exp(sum(math.log(a / b) for a, b in zip(m, t)) / 4)
    assert_rejects(_named.check_bleu, my_bleu, says=r"the matches divided by the reference's n-grams \(a recall\)")

# --- BLEU mistakes named by what they reproduce exactly ---

def _bleu_by(hyps, refs, denom='ngrams', k=4):
    "Corpus BLEU with every order's matches over the hypothesis's n-grams ('ngrams') or its length ('len'), the log precisions over `k`."
    m, t, c, r = [0] * 4, [0] * 4, 0, 0
    for h, ref in zip(hyps, refs):
        h, ref = h.split(), ref.split(); c, r = c + len(h), r + len(ref)
        for n in range(4):
            hc, rc = Counter(zip(*[h[i:] for i in range(n + 1)])), Counter(zip(*[ref[i:] for i in range(n + 1)]))
            m[n] += sum(min(v, rc[g]) for g, v in hc.items()); t[n] += len(h) if denom == 'len' else max(len(h) - n, 0)
    if not all(m): return 0.0
    return 100 * (1 if c >= r else math.exp(1 - r / c)) * math.exp(sum(math.log(a / b) for a, b in zip(m, t)) / k)

@pytest.mark.parametrize('fn, says', [
    (lambda h, r: _bleu_by(h[:1], r[:1]), r"case 'three captions'.*only sentence 1 of 3 is scored: loop over every pair"),
    (lambda h, r: _bleu_by(h[-1:], r[-1:]), r"case 'three captions'.*only sentence 3 of 3 is scored"),
    (lambda h, r: _bleu_by(h, r, denom='len'), r"case 'identical captions'.*every order's matches divided by the hypothesis length"),
    (lambda h, r: _bleu_by(h, r, k=3), r"case 'a short hypothesis'.*the four log precisions summed and divided by 3: BLEU's mean is over the 4"),
    (lambda h, r: _bleu_by(h, r, k=5), r"the four log precisions summed and divided by 5"),
], ids=['first sentence', 'last sentence', 'over the hypothesis length', 'divided by 3', 'divided by 5'])
def test_bleu_mistakes_named_by_the_score_they_reproduce(fn, says):
    assert_rejects(check_bleu, fn, says=says)
    assert said(check_bleu, _bleu_by)[0] is True


# ---------------------------------------------------------------- the arguments swapped, one n-gram too few, BP exp(1 - c/r) uncapped
@pytest.mark.parametrize('answer, case, mistake', [
    (lambda: (lambda hyps, refs: solution_ns()['my_bleu'](refs, hyps)), "case 'a short hypothesis'", 'the hypotheses and the references swapped'),
    (lambda: solution_ns(SOLUTION.replace('max(len(h) - n + 1, 0)', 'max(len(h) - n, 0)'))['my_bleu'], "case 'identical captions'",
     'each order counts one n-gram too few per sentence: a sentence of L words has L - n + 1 n-grams of order n, not L - n'),
    (lambda: solution_ns(SOLUTION.replace('bp = min(1.0, math.exp(1 - r / c))', 'bp = math.exp(1 - c / r) if c < r else 1.0'))['my_bleu'],
     "case 'a short hypothesis'", 'the brevity penalty with c and r swapped, exp(1 - c/r): above 1 for a short hypothesis'),
])
def test_bleu_mistakes_named_by_what_they_compute(answer, case, mistake):
    ok, line = said(check_bleu, answer())
    assert not ok and line.startswith(f'Not yet: {case}') and mistake in line, line

def test_hypotheses_split_into_characters_that_raise_are_named():
    "A BLEU that splits the hypotheses into characters and the references into words takes the log of 0: probed, and named."
    def my_bleu(hyps, refs):
        m, t, c, r = [0] * 4, [0] * 4, 0, 0
        for hyp, ref in zip(hyps, refs):
            h, w = list(hyp), ref.split(); c, r = c + len(h), r + len(w)
            for n in range(1, 5):
                hc, rc = _Counter(zip(*(h[i:] for i in range(n)))), _Counter(zip(*(w[i:] for i in range(n))))
                m[n - 1] += sum((hc & rc).values()); t[n - 1] += max(len(h) - n + 1, 0)
        return 100 * min(1, _m.exp(1 - r / c)) * _m.exp(sum(_m.log(a / b) for a, b in zip(m, t)) / 4)
    ok, line = said(_named.check_bleu, my_bleu)
    assert not ok and line.startswith("Not yet: case 'identical captions': my_bleu raised ValueError (math domain error)"), line
    assert "your hypotheses are split into characters (list(h)), the references into words" in line, line

# ---------------------------------------------------------------- slips of later blind answers, named by property
def _bleu(hyps, refs, key=tuple, distinct=False, bp_each=False):
    "Corpus BLEU with n-grams keyed by `key`, `distinct` ones matched once, or the brevity penalty of each sentence averaged."
    m, t, c, r, bps = [0] * 4, [0] * 4, 0, 0, []
    for h, ref in zip(hyps, refs):
        h, ref = h.split(), ref.split(); c, r = c + len(h), r + len(ref); bps += [min(1, math.exp(1 - len(ref) / len(h)))] if bp_each else []
        for n in range(4):
            hc, rc = (Counter(key(w[i:i + n + 1]) for i in range(len(w) - n)) for w in (h, ref))
            m[n] += len(set(hc) & set(rc)) if distinct else sum(min(k, rc[g]) for g, k in hc.items()); t[n] += sum(hc.values())
    bp = sum(bps) / len(bps) if bp_each else min(1, math.exp(1 - r / c))
    return 100 * bp * math.exp(sum(math.log(a / b) for a, b in zip(m, t)) / 4)

@pytest.mark.parametrize('answer, says', [
    (functools.partial(_bleu, distinct=True), r"each distinct n-gram counted once \(a set\)"),
    (functools.partial(_bleu, key=''.join), r"case 'words that join alike': .*n-grams keyed by their words joined without a space"),
    (functools.partial(_bleu, bp_each=True), r"case 'three captions': .*the brevity penalty of each sentence, averaged"),
    (lambda hyps, refs: __import__('sacrebleu').corpus_bleu(hyps, refs).score, r"reads refs as reference streams, each string one stream; wrap them in a list"),
])
def test_bleu_slips_of_counting_and_of_sacrebleu_are_named(answer, says):
    import re
    ok, line = said(check_bleu, answer)
    assert ok is False and re.search(says, line), line
    assert said(check_bleu, _bleu)[0] is True

# ---------------------------------------------------------------- characters without spaces, counts clipped over the corpus, the last n-gram dropped
def _bleu_as(hyps, refs, split=str.split, pooled=False, drop=0):
    "Corpus BLEU over the pieces `split` gives, clipped per sentence or against the corpus's summed counts (`pooled`), `drop` n-grams left off each end."
    m, t, c, r, H, R = [0] * 4, [0] * 4, 0, 0, [Counter() for _ in range(4)], [Counter() for _ in range(4)]
    for h, ref in zip(hyps, refs):
        h, ref = split(h), split(ref); c, r = c + len(h), r + len(ref)
        for n in range(4):
            hc, rc = (Counter(tuple(w[i:i + n + 1]) for i in range(len(w) - n - drop)) for w in (h, ref))
            H[n].update(hc); R[n].update(rc); m[n] += sum((hc & rc).values()); t[n] += sum(hc.values())
    if pooled: m = [sum((H[n] & R[n]).values()) for n in range(4)]
    return 100 * min(1, math.exp(1 - r / c)) * math.exp(sum(math.log(a / b) for a, b in zip(m, t)) / 4)

@pytest.mark.parametrize('answer, says', [
    (functools.partial(_bleu_as, split=lambda s: list(s.replace(' ', ''))), r"case 'a short hypothesis': .*n-grams of characters: split each sentence into words on spaces"),
    (functools.partial(_bleu_as, pooled=True), r"case 'a word repeated across sentences': .*the counts are clipped against the whole corpus's"),
    (functools.partial(_bleu_as, drop=1), r"each sentence's last n-gram of every order is left out: a sentence of L words has L - n \+ 1 n-grams of order n"),
])
def test_characters_corpus_wide_clipping_and_a_dropped_last_ngram_are_named(answer, says):
    import re
    ok, line = said(check_bleu, answer)
    assert ok is False and re.search(says, line), line
    assert said(check_bleu, _bleu_as)[0] is True

# ---------------------------------------------------------------- a fresh blind set: wrong answers written before reading the messages
import re as _n9re
from nbtools import assert_rejects as _n9_rejects
from collections import Counter as _n9C
from transformer_nb.course.evaluation import check_bleu as _n9_bleu
def _n9_B(clip=True, swap_bp=False, arith=False):
    def bleu(hyps, refs):
        ng = lambda ws, n: _n9C(tuple(ws[i:i + n]) for i in range(len(ws) - n + 1))
        m, t, c, r = [0] * 4, [0] * 4, 0, 0
        for h, ref in zip(hyps, refs):
            h, ref = h.split(), ref.split(); c += len(h); r += len(ref)
            for n in range(1, 5):
                H, R = ng(h, n), ng(ref, n)
                m[n - 1] += sum((H & R).values()) if clip else sum(v for g, v in H.items() if g in R); t[n - 1] += max(len(h) - n + 1, 0)
        bp = min(1.0, math.exp(1 - (c / r if swap_bp else r / c)))
        p = [a / b for a, b in zip(m, t)]
        return 100 * bp * (sum(p) / 4 if arith else math.exp(sum(map(math.log, p)) / 4))
    return bleu
def _n9_sentence_mean(hyps, refs):
    import sacrebleu
    return sum(sacrebleu.sentence_bleu(h, [r]).score for h, r in zip(hyps, refs)) / len(hyps)
NINTH = [('no clipping', _n9_bleu, (_n9_B(clip=False),), "clip the counts"),
         ('mean of sentence BLEUs', _n9_bleu, (_n9_sentence_mean,), "an average of sentence BLEUs"),
         ('brevity penalty with r and c swapped', _n9_bleu, (_n9_B(swap_bp=True),), "the brevity penalty with r and c swapped"),
         ('arithmetic mean of the precisions', _n9_bleu, (_n9_B(arith=True),), "BLEU takes their geometric mean")]
def _n9_B3(hyps, refs):
    ng = lambda ws, n: _n9C(tuple(ws[i:i + n]) for i in range(len(ws) - n + 1))
    m, t, c, r = [0] * 3, [0] * 3, 0, 0
    for h, ref in zip(hyps, refs):
        h, ref = h.split(), ref.split(); c += len(h); r += len(ref)
        for n in range(1, 4): m[n - 1] += sum((ng(h, n) & ng(ref, n)).values()); t[n - 1] += max(len(h) - n + 1, 0)
    return 100 * min(1, math.exp(1 - r / c)) * math.exp(sum(math.log(a / b) for a, b in zip(m, t)) / 3)
NINTH += [('no brevity penalty', _n9_bleu, (lambda hyps, refs: _n9_B()(hyps, refs) / min(1.0, math.exp(1 - sum(len(r.split()) for r in refs) / sum(len(h.split()) for h in hyps))),),
           "the brevity penalty is missing"),
          ('orders 1 to 3', _n9_bleu, (_n9_B3,), "n-grams of orders 1 to 3 only")]

@pytest.mark.parametrize('label', [c[0] for c in NINTH])
def test_ninth_blind_answers_named(label):
    "Each answer of the blind set is refused with a message that names its mistake."
    _, check, answer, words = next(c for c in NINTH if c[0] == label)
    _n9_rejects(check, *answer, says=_n9re.escape(words))


# ---------------------------------------------------------------- the fourteenth blind set's misses (results/checker_answers.json)
def _chars_bp(hyps, refs):
    "Right but for the brevity penalty, taken from the lengths of the strings in characters."
    ng = lambda ws, n: _n9C(tuple(ws[i:i + n]) for i in range(len(ws) - n + 1))
    m, t = [0] * 4, [0] * 4
    for h, ref in zip(hyps, refs):
        h, ref = h.split(), ref.split()
        for n in range(1, 5): m[n - 1] += sum((ng(h, n) & ng(ref, n)).values()); t[n - 1] += max(len(h) - n + 1, 0)
    bp = min(1.0, math.exp(1 - sum(map(len, refs)) / sum(map(len, hyps))))
    return 100 * bp * math.exp(sum(math.log(a / b) for a, b in zip(m, t)) / 4)

def test_a_brevity_penalty_from_characters_is_named():
    _n9_rejects(_n9_bleu, _chars_bp, says=r"case 'three captions': .*Likely mistake: the brevity penalty from lengths in characters \(len\(h\) of the string\): c and r count words")

# ---------------------------------------------------------------- the sixteenth blind set's miss
def test_refs_read_as_sacrebleus_reference_streams_is_named():
    "my_bleu that takes refs[0], as if refs were sacreBLEU's [refs]: every hypothesis meets one character of the first reference."
    import math
    from collections import Counter
    def my_bleu(hyps, refs):
        ngrams = lambda ws, n: Counter(tuple(ws[i:i + n]) for i in range(len(ws) - n + 1))
        match, total, c, r = [0] * 4, [0] * 4, 0, 0
        for h, ref in zip(hyps, refs[0]):
            h, ref = h.split(), ref.split(); c, r = c + len(h), r + len(ref)
            for n in range(1, 5):
                match[n - 1] += sum((ngrams(h, n) & ngrams(ref, n)).values()); total[n - 1] += max(len(h) - n + 1, 0)
        return 100 * min(1.0, math.exp(1 - r / c)) * math.exp(sum(math.log(m / t) for m, t in zip(match, total)) / 4)
    assert_rejects(check_bleu, my_bleu, says=r"you read refs as sacreBLEU's list of reference streams \(refs\[0\]\)")


# ---------------------------------------------------------------- the eighteenth blind set's misses (results/checker_answers.json)
def _bleu18(short=0, lengths='sum', nested=False):
    "my_bleu as the solution writes it, but its n-grams `short` of the end, the lengths of the 'last' pair alone, or refs read as NLTK's lists of references."
    def my_bleu(hyps, refs):
        ngrams = lambda ws, n: Counter(tuple(ws[i:i + n]) for i in range(len(ws) - n + 1 - short))
        match, total, c, r = [0] * 4, [0] * 4, 0, 0
        for h, ref in zip(hyps, refs):
            h = h.split()
            rs = [x.split() for x in ref] if nested else [ref.split()]
            c, r = (c + len(h), r + len(rs[0])) if lengths == 'sum' else (len(h), len(rs[0]))
            for n in range(1, 5):
                match[n - 1] += sum((ngrams(h, n) & ngrams(rs[0], n)).values()); total[n - 1] += max(len(h) - n + 1, 0)
        return 100 * min(1.0, math.exp(1 - r / c)) * math.exp(sum(math.log(max(m, 1e-9) / t) for m, t in zip(match, total)) / 4)
    return my_bleu

@pytest.mark.parametrize('answer, says', [
    (_bleu18(short=1), r"each sentence's last n-gram of every order never matches: your n-grams run over range\(len\(ws\) - n\)"),
    (_bleu18(lengths='last'), r"the brevity penalty from the last sentence's lengths alone"),
    (_bleu18(nested=True), r"you read refs as NLTK's corpus_bleu does, a list of references for each hypothesis"),
], ids=['n-grams one short', 'last lengths', 'NLTK references'])
def test_the_eighteenth_sets_misses_are_named(answer, says):
    assert_rejects(check_bleu, answer, says=says)


# ---------------------------------------------------------------- the twentieth blind set's misses (results/checker_answers.json)
def _bleu20(joined=False, logged=False):
    def my_bleu(hyps, refs):
        ngrams = lambda ws, n: Counter(tuple(ws[i:i + n]) for i in range(len(ws) - n + 1))
        pairs = [(' '.join(hyps), ' '.join(refs))] if joined else list(zip(hyps, refs))
        match, total, c, r = [0] * 4, [0] * 4, 0, 0
        for h, ref in pairs:
            h, ref = h.split(), ref.split(); c, r = c + len(h), r + len(ref)
            for n in range(1, 5):
                match[n - 1] += sum((ngrams(h, n) & ngrams(ref, n)).values()); total[n - 1] += max(len(h) - n + 1, 0)
        log_bleu = min(0.0, 1 - r / c) + sum(math.log(m / t) for m, t in zip(match, total)) / 4
        return 100 * log_bleu if logged else 100 * math.exp(log_bleu)
    return my_bleu

@pytest.mark.parametrize('kw, says', [
    (dict(joined=True), r"the sentences joined into one stream, ' '.join\(hyps\): its n-grams run across the sentence boundaries"),
    (dict(logged=True), r"yours is 100 x log\(BLEU / 100\): log BP plus the mean of the log p_n is the log of BLEU")])
def test_one_stream_and_the_log_of_bleu_are_named(kw, says):
    assert_rejects(check_bleu, _bleu20(**kw), says=says)

def test_the_bleu_of_the_slips_helper_is_right_without_a_slip():
    with contextlib.redirect_stdout(io.StringIO()): assert check_bleu(_bleu20()) is True

# --- the twenty-second blind set's answers that the checks first missed, each named now --------------------------------
from nbtools import assert_rejects as _t22_rejects
from transformer_nb.course.evaluation import check_bleu as _t22_bleu
_T22_PRELUDE = "import math, torch, torch.nn.functional as F\nfrom collections import Counter\nfrom transformer_nb.core import *\n"
def _t22_answer(code:str, *names):
    "The answer's functions, its code run in a fresh namespace with the notebook's imports."
    ns = {}; exec(_T22_PRELUDE + code, ns); return tuple(ns[n] for n in names)
TWENTY_SECOND = [   # (label, the answer's code, its names, the check, what its message must say)
    ("the caller's lists split in place", '\ndef my_bleu(hyps, refs):\n    ngrams = lambda ws, n: Counter(tuple(ws[i:i + n]) for i in range(len(ws) - n + 1))\n    K = len(range(1, 5))\n    match, total, c, r = [0] * K, [0] * K, 0, 0\n    for i in range(len(hyps)): hyps[i], refs[i] = hyps[i].split(), refs[i].split()\n    for h, ref in zip(hyps, refs):\n        pass\n        c, r = c + len(h), r + len(ref)\n        for n in range(1, 5):\n            match[n - 1] += sum((ngrams(h, n) & ngrams(ref, n)).values())\n            total[n - 1] += max(len(h) - n + 1, 0)\n    bp = min(1.0, math.exp(1 - r / c))\n    return 100 * bp * math.exp(sum(math.log(m / t) for m, t in zip(match, total)) / K)\n',
     ('my_bleu',), _t22_bleu, 'my_bleu changed its input lists in place'),
    ("d2l's bleu, averaged", "\ndef my_bleu(hyps, refs):\n    scores = []\n    for h, ref in zip(hyps, refs):\n        pred, label = h.split(), ref.split()\n        score = math.exp(min(0, 1 - len(label) / len(pred)))\n        for n in range(1, 5):\n            num, subs = 0, Counter(' '.join(label[i:i + n]) for i in range(len(label) - n + 1))\n            for i in range(len(pred) - n + 1):\n                g = ' '.join(pred[i:i + n])\n                if subs[g] > 0: num += 1; subs[g] -= 1\n            score *= math.pow(num / max(len(pred) - n + 1, 1), math.pow(0.5, n))\n        scores.append(score)\n    return 100 * sum(scores) / len(scores)",
     ('my_bleu',), _t22_bleu, "d2l's bleu: each p_n weighted 1/2\\^n.*each sentence scored alone"),
    ('log10 under exp', '\ndef my_bleu(hyps, refs):\n    ngrams = lambda ws, n: Counter(tuple(ws[i:i + n]) for i in range(len(ws) - n + 1))\n    K = len(range(1, 5))\n    match, total, c, r = [0] * K, [0] * K, 0, 0\n    for h, ref in zip(hyps, refs):\n        h, ref = h.split(), ref.split()\n        c, r = c + len(h), r + len(ref)\n        for n in range(1, 5):\n            match[n - 1] += sum((ngrams(h, n) & ngrams(ref, n)).values())\n            total[n - 1] += max(len(h) - n + 1, 0)\n    bp = min(1.0, math.exp(1 - r / c))\n    return 100 * bp * math.exp(sum(math.log10(m / t) for m, t in zip(match, total)) / K)\n',
     ('my_bleu',), _t22_bleu, 'log10 of the precisions under math.exp'),
    ('distinct n-gram totals', '\ndef my_bleu(hyps, refs):\n    ngrams = lambda ws, n: Counter(tuple(ws[i:i + n]) for i in range(len(ws) - n + 1))\n    K = len(range(1, 5))\n    match, total, c, r = [0] * K, [0] * K, 0, 0\n    for h, ref in zip(hyps, refs):\n        h, ref = h.split(), ref.split()\n        c, r = c + len(h), r + len(ref)\n        for n in range(1, 5):\n            match[n - 1] += sum((ngrams(h, n) & ngrams(ref, n)).values())\n            total[n - 1] += len(ngrams(h, n))\n    bp = min(1.0, math.exp(1 - r / c))\n    return 100 * bp * math.exp(sum(math.log(m / t) for m, t in zip(match, total)) / K)\n',
     ('my_bleu',), _t22_bleu, 'your totals count each distinct n-gram once'),
]

@pytest.mark.parametrize('label, code, names, check, says', TWENTY_SECOND, ids=[r[0] for r in TWENTY_SECOND])
def test_twenty_second_blind_answers_named(label, code, names, check, says):
    _t22_rejects(check, *_t22_answer(code, *names), says=says)

# --- the twenty-fifth blind set's answers that the checks first missed, each named now ---------------------------------
from nbtools import assert_rejects as _t25_rejects
from transformer_nb.course.evaluation import check_bleu as _t25_bleu
_T25_PRELUDE = 'import math, torch, torch.nn.functional as F\nfrom collections import Counter\nfrom transformer_nb.core import *\n'
def _t25_answer(code:str, *names):
    "The answer's functions, its code run in a fresh namespace with the notebook's imports."
    ns = {}; exec(_T25_PRELUDE + code, ns); return tuple(ns[n] for n in names)
TWENTY_FIFTH = [   # (label, the answer's code, its names, the check, what its message must say)
    ('an order without a match left out', '\ndef my_bleu(hyps, refs):\n    ngrams = lambda ws, n: Counter(tuple(ws[i:i + n]) for i in range(len(ws) - n + 1))\n    K = len(range(1, 5))\n    match, total, c, r = [0] * K, [0] * K, 0, 0\n    for h, ref in zip(hyps, refs):\n        h, ref = h.split(), ref.split()\n        c, r = c + len(h), r + len(ref)\n        for n in range(1, 5):\n            match[n - 1] += sum((ngrams(h, n) & ngrams(ref, n)).values())\n            total[n - 1] += max(len(h) - n + 1, 0)\n    bp = min(1.0, math.exp(1 - r / c))\n    return 100 * bp * math.exp(sum(math.log(m / t) for m, t in zip(match, total) if m) / max(1, sum(1 for m in match if m)))\n',
     ('my_bleu',), _t25_bleu, 'yours\\ leaves\\ p4\\ out\\ of\\ the\\ mean'),
    ('a precision floor-divided', '\ndef my_bleu(hyps, refs):\n    ngrams = lambda ws, n: Counter(tuple(ws[i:i + n]) for i in range(len(ws) - n + 1))\n    K = len(range(1, 5))\n    match, total, c, r = [0] * K, [0] * K, 0, 0\n    for h, ref in zip(hyps, refs):\n        h, ref = h.split(), ref.split()\n        c, r = c + len(h), r + len(ref)\n        for n in range(1, 5):\n            match[n - 1] += sum((ngrams(h, n) & ngrams(ref, n)).values())\n            total[n - 1] += max(len(h) - n + 1, 0)\n    bp = min(1.0, math.exp(1 - r / c))\n    return 100 * bp * math.exp(sum(math.log(max(m // t, 1e-9)) for m, t in zip(match, total)) / K)\n',
     ('my_bleu',), _t25_bleu, 'a\\ precision\\ floor\\-divided'),
    ('rounded to one decimal', '\ndef my_bleu(hyps, refs):\n    ngrams = lambda ws, n: Counter(tuple(ws[i:i + n]) for i in range(len(ws) - n + 1))\n    K = len(range(1, 5))\n    match, total, c, r = [0] * K, [0] * K, 0, 0\n    for h, ref in zip(hyps, refs):\n        h, ref = h.split(), ref.split()\n        c, r = c + len(h), r + len(ref)\n        for n in range(1, 5):\n            match[n - 1] += sum((ngrams(h, n) & ngrams(ref, n)).values())\n            total[n - 1] += max(len(h) - n + 1, 0)\n    bp = min(1.0, math.exp(1 - r / c))\n    return round(100 * bp * math.exp(sum(math.log(m / t) for m, t in zip(match, total)) / K), 1)\n',
     ('my_bleu',), _t25_bleu, "yours\\ is\\ sacreBLEU's\\ score\\ rounded\\ to\\ 1\\ decimal"),
]

@pytest.mark.parametrize('label, code, names, check, says', TWENTY_FIFTH, ids=[r[0] for r in TWENTY_FIFTH])
def test_twenty_fifth_blind_answers_named(label, code, names, check, says):
    _t25_rejects(check, *_t25_answer(code, *names), says=says)

# --- the twenty-seventh blind set's answers that the checks first missed, each named now ---------------------------------
from nbtools import assert_rejects as _t27_rejects
from transformer_nb.course.evaluation import check_bleu as _t27_check_bleu
_T27_PRELUDE = 'import math, torch, torch.nn.functional as F\nfrom collections import Counter\nfrom transformer_nb.core import *\n'
def _t27_answer(code:str, *names):
    "The answer's functions, its code run in a fresh namespace with the notebook's imports."
    ns = {}; exec(_T27_PRELUDE + code, ns); return tuple(ns[n] for n in names)
TWENTY_SEVENTH = [   # (label, the answer's code, its names, the check, what its message must say)
    ("split(' ')", "\ndef my_bleu(hyps, refs):\n    ngrams = lambda ws, n: Counter(tuple(ws[i:i + n]) for i in range(len(ws) - n + 1))\n    K = len(range(1, 5))\n    match, total, c, r = [0] * K, [0] * K, 0, 0\n    for h, ref in zip(hyps, refs):\n        h, ref = h.split(' '), ref.split(' ')\n        c, r = c + len(h), r + len(ref)\n        for n in range(1, 5):\n            match[n - 1] += sum((ngrams(h, n) & ngrams(ref, n)).values())\n            total[n - 1] += max(len(h) - n + 1, 0)\n    bp = min(1.0, math.exp(1 - r / c))\n    return 100 * bp * math.exp(sum(math.log(m / t) for m, t in zip(match, total)) / K)\n",
     ('my_bleu',), _t27_check_bleu, "h\\.split\\('\\ '\\)\\ makes\\ an\\ empty\\ word\\ ''\\ of\\ each\\ extra\\ space"),
]

@pytest.mark.parametrize('label, code, names, check, says', TWENTY_SEVENTH, ids=[r[0] for r in TWENTY_SEVENTH])
def test_twenty_seventh_blind_answers_named(label, code, names, check, says):
    _t27_rejects(check, *_t27_answer(code, *names), says=says)

# --- the thirty-first blind set's answers that the checks first missed, each named now ---------------------------------
from nbtools import assert_rejects as _t31_rejects
from transformer_nb.course.evaluation import check_bleu as _t31_check_bleu
_T31_PRELUDE = 'import math, torch, torch.nn.functional as F\nfrom collections import Counter\nfrom transformer_nb.core import *\n'
def _t31_answer(code:str, *names):
    "The answer's functions, its code run in a fresh namespace with the notebook's imports."
    ns = {}; exec(_T31_PRELUDE + code, ns); return tuple(ns[n] for n in names)
THIRTY_FIRST = [   # (label, the answer's code, its names, the check, what its message must say)
    ('the brevity penalty inside the geometric mean (its log added', '\ndef my_bleu(hyps, refs):\n    ngrams = lambda ws, n: Counter(tuple(ws[i:i + n]) for i in range(len(ws) - n + 1))\n    K = len(range(1, 5))\n    match, total, c, r = [0] * K, [0] * K, 0, 0\n    for h, ref in zip(hyps, refs):\n        h, ref = h.split(), ref.split()\n        c, r = c + len(h), r + len(ref)\n        for n in range(1, 5):\n            match[n - 1] += sum((ngrams(h, n) & ngrams(ref, n)).values())\n            total[n - 1] += max(len(h) - n + 1, 0)\n    bp = min(1.0, math.exp(1 - r / c))\n    return 100 * math.exp((sum(math.log(m / t) for m, t in zip(match, total)) + math.log(bp)) / K)\n',
     ('my_bleu',), _t31_check_bleu, 'the\\ brevity\\ penalty\\ went\\ inside\\ the\\ geometric\\ mean,\\ so\\ it\\ was\\ divided'),
    ("each distinct hypothesis n-gram credited with the reference'", '\ndef my_bleu(hyps, refs):\n    ngrams = lambda ws, n: Counter(tuple(ws[i:i + n]) for i in range(len(ws) - n + 1))\n    K = len(range(1, 5))\n    match, total, c, r = [0] * K, [0] * K, 0, 0\n    for h, ref in zip(hyps, refs):\n        h, ref = h.split(), ref.split()\n        c, r = c + len(h), r + len(ref)\n        for n in range(1, 5):\n            match[n - 1] += sum(ngrams(ref, n)[g] for g in ngrams(h, n))\n            total[n - 1] += max(len(h) - n + 1, 0)\n    bp = min(1.0, math.exp(1 - r / c))\n    return 100 * bp * math.exp(sum(math.log(m / t) for m, t in zip(match, total)) / K)\n',
     ('my_bleu',), _t31_check_bleu, 'each\\ distinct\\ n\\-gram\\ of\\ the\\ hypothesis\\ was\\ credited\\ with\\ the'),
    ('Counter | (the larger count) for the clip, not &', '\ndef my_bleu(hyps, refs):\n    ngrams = lambda ws, n: Counter(tuple(ws[i:i + n]) for i in range(len(ws) - n + 1))\n    K = len(range(1, 5))\n    match, total, c, r = [0] * K, [0] * K, 0, 0\n    for h, ref in zip(hyps, refs):\n        h, ref = h.split(), ref.split()\n        c, r = c + len(h), r + len(ref)\n        for n in range(1, 5):\n            match[n - 1] += sum((ngrams(h, n) | ngrams(ref, n)).values())\n            total[n - 1] += max(len(h) - n + 1, 0)\n    bp = min(1.0, math.exp(1 - r / c))\n    return 100 * bp * math.exp(sum(math.log(m / t) for m, t in zip(match, total)) / K)\n',
     ('my_bleu',), _t31_check_bleu, 'Counter\\ \\|\\ keeps\\ the\\ larger\\ of\\ the\\ two\\ counts\\ \\(a\\ union,\\ which\\ even'),
    ('n-grams built with zip(ws, ws[n - 1:]): the first and last w', '\ndef my_bleu(hyps, refs):\n    ngrams = lambda ws, n: Counter(zip(ws, ws[n - 1:]))\n    K = len(range(1, 5))\n    match, total, c, r = [0] * K, [0] * K, 0, 0\n    for h, ref in zip(hyps, refs):\n        h, ref = h.split(), ref.split()\n        c, r = c + len(h), r + len(ref)\n        for n in range(1, 5):\n            match[n - 1] += sum((ngrams(h, n) & ngrams(ref, n)).values())\n            total[n - 1] += max(len(h) - n + 1, 0)\n    bp = min(1.0, math.exp(1 - r / c))\n    return 100 * bp * math.exp(sum(math.log(m / t) for m, t in zip(match, total)) / K)\n',
     ('my_bleu',), _t31_check_bleu, 'your\\ n\\-grams\\ are\\ pairs,\\ the\\ first\\ and\\ the\\ last\\ word\\ of\\ each\\ window,'),
    ("words found with re.findall(r'\\w+'): punctuation dropped", "import re\n\ndef my_bleu(hyps, refs):\n    ngrams = lambda ws, n: Counter(tuple(ws[i:i + n]) for i in range(len(ws) - n + 1))\n    K = len(range(1, 5))\n    match, total, c, r = [0] * K, [0] * K, 0, 0\n    for h, ref in zip(hyps, refs):\n        h, ref = re.findall(r'\\w+', h), re.findall(r'\\w+', ref)\n        c, r = c + len(h), r + len(ref)\n        for n in range(1, 5):\n            match[n - 1] += sum((ngrams(h, n) & ngrams(ref, n)).values())\n            total[n - 1] += max(len(h) - n + 1, 0)\n    bp = min(1.0, math.exp(1 - r / c))\n    return 100 * bp * math.exp(sum(math.log(m / t) for m, t in zip(match, total)) / K)\n",
     ('my_bleu',), _t31_check_bleu, "the\\ punctuation\\ was\\ dropped\\ \\(re\\.findall\\(r'\\\\w\\+'\\)\\?\\):\\ the\\ captions\\ are"),
    ('totals len(h) - n + 1 without max(., 0): a hypothesis shorte', '\ndef my_bleu(hyps, refs):\n    ngrams = lambda ws, n: Counter(tuple(ws[i:i + n]) for i in range(len(ws) - n + 1))\n    K = len(range(1, 5))\n    match, total, c, r = [0] * K, [0] * K, 0, 0\n    for h, ref in zip(hyps, refs):\n        h, ref = h.split(), ref.split()\n        c, r = c + len(h), r + len(ref)\n        for n in range(1, 5):\n            match[n - 1] += sum((ngrams(h, n) & ngrams(ref, n)).values())\n            total[n - 1] += len(h) - n + 1\n    bp = min(1.0, math.exp(1 - r / c))\n    return 100 * bp * math.exp(sum(math.log(m / t) for m, t in zip(match, total)) / K)\n',
     ('my_bleu',), _t31_check_bleu, "yours\\ 66\\.27,\\ sacreBLEU's\\ 64\\.35:\\ a\\ hypothesis\\ shorter\\ than\\ n\\ words\\ has"),
    ('the counts kept in a default list between calls (a second co', '\ndef my_bleu(hyps, refs, _acc=[[0] * 4, [0] * 4, [0, 0]]):\n    ngrams = lambda ws, n: Counter(tuple(ws[i:i + n]) for i in range(len(ws) - n + 1))\n    K = len(range(1, 5))\n    match, total, c, r = [0] * K, [0] * K, 0, 0\n    match, total, (c, r) = _acc[0], _acc[1], _acc[2]\n    for h, ref in zip(hyps, refs):\n        h, ref = h.split(), ref.split()\n        c, r = c + len(h), r + len(ref); _acc[2][:] = [c, r]\n        for n in range(1, 5):\n            match[n - 1] += sum((ngrams(h, n) & ngrams(ref, n)).values())\n            total[n - 1] += max(len(h) - n + 1, 0)\n    bp = min(1.0, math.exp(1 - r / c))\n    return 100 * bp * math.exp(sum(math.log(m / t) for m, t in zip(match, total)) / K)\n',
     ('my_bleu',), _t31_check_bleu, 'my_bleu\\ gave\\ 84\\.66,\\ then\\ 75\\.02\\ for\\ the\\ same\\ corpus:\\ it\\ keeps\\ counts'),
    ('one counting lambda per order built in a loop: late binding,', '\ndef my_bleu(hyps, refs):\n    counters = [lambda ws: Counter(tuple(ws[i:i + n]) for i in range(len(ws) - n + 1)) for n in range(1, 5)]\n    match, total, c, r = [0] * 4, [0] * 4, 0, 0\n    for h, ref in zip(hyps, refs):\n        h, ref = h.split(), ref.split()\n        c, r = c + len(h), r + len(ref)\n        for k, cnt in enumerate(counters):\n            match[k] += sum((cnt(h) & cnt(ref)).values())\n            total[k] += max(len(h) - k, 0)\n    bp = min(1.0, math.exp(1 - r / c))\n    return 100 * bp * math.exp(sum(math.log(m / t) for m, t in zip(match, total)) / 4)\n',
     ('my_bleu',), _t31_check_bleu, 'every\\ order\\ counted\\ the\\ 4\\-grams:\\ the\\ counting\\ lambdas\\ made\\ in\\ a\\ loop'),
    ('lengths counted with an end-of-sentence token each (len + 1,', '\ndef my_bleu(hyps, refs):\n    ngrams = lambda ws, n: Counter(tuple(ws[i:i + n]) for i in range(len(ws) - n + 1))\n    K = len(range(1, 5))\n    match, total, c, r = [0] * K, [0] * K, 0, 0\n    for h, ref in zip(hyps, refs):\n        h, ref = h.split(), ref.split()\n        c, r = c + len(h) + 1, r + len(ref) + 1\n        for n in range(1, 5):\n            match[n - 1] += sum((ngrams(h, n) & ngrams(ref, n)).values())\n            total[n - 1] += max(len(h) - n + 1, 0)\n    bp = min(1.0, math.exp(1 - r / c))\n    return 100 * bp * math.exp(sum(math.log(m / t) for m, t in zip(match, total)) / K)\n',
     ('my_bleu',), _t31_check_bleu, 'each\\ length\\ counts\\ one\\ word\\ more,\\ len\\(h\\)\\ \\+\\ 1\\ \\(an\\ end\\-of\\-sentence'),
    ('n-grams as non-overlapping chunks (range(0, len, n))', '\ndef my_bleu(hyps, refs):\n    ngrams = lambda ws, n: Counter(tuple(ws[i:i + n]) for i in range(0, len(ws) - n + 1, n))\n    K = len(range(1, 5))\n    match, total, c, r = [0] * K, [0] * K, 0, 0\n    for h, ref in zip(hyps, refs):\n        h, ref = h.split(), ref.split()\n        c, r = c + len(h), r + len(ref)\n        for n in range(1, 5):\n            match[n - 1] += sum((ngrams(h, n) & ngrams(ref, n)).values())\n            total[n - 1] += len(h) // n\n    bp = min(1.0, math.exp(1 - r / c))\n    return 100 * bp * math.exp(sum(math.log(m / t) for m, t in zip(match, total)) / K)\n',
     ('my_bleu',), _t31_check_bleu, 'my_bleu\\ raised\\ ValueError\\ \\(math\\ domain\\ error\\),\\ a\\ log\\ or\\ a\\ division\\ of'),
    ('an empty hypothesis skipped with its reference (r too short)', '\ndef my_bleu(hyps, refs):\n    ngrams = lambda ws, n: Counter(tuple(ws[i:i + n]) for i in range(len(ws) - n + 1))\n    K = len(range(1, 5))\n    match, total, c, r = [0] * K, [0] * K, 0, 0\n    for h, ref in zip(hyps, refs):\n        h, ref = h.split(), ref.split()\n        if not h: continue\n        c, r = c + len(h), r + len(ref)\n        for n in range(1, 5):\n            match[n - 1] += sum((ngrams(h, n) & ngrams(ref, n)).values())\n            total[n - 1] += max(len(h) - n + 1, 0)\n    bp = min(1.0, math.exp(1 - r / c))\n    return 100 * bp * math.exp(sum(math.log(m / t) for m, t in zip(match, total)) / K)\n',
     ('my_bleu',), _t31_check_bleu, "yours\\ 63\\.40,\\ sacreBLEU's\\ 53\\.67:\\ an\\ empty\\ hypothesis\\ still\\ counts:\\ it"),
    ('identical (hypothesis, reference) pairs counted once: a set ', '\ndef my_bleu(hyps, refs):\n    ngrams = lambda ws, n: Counter(tuple(ws[i:i + n]) for i in range(len(ws) - n + 1))\n    K = len(range(1, 5))\n    match, total, c, r = [0] * K, [0] * K, 0, 0\n    for h, ref in dict.fromkeys(zip(hyps, refs)):\n        h, ref = h.split(), ref.split()\n        c, r = c + len(h), r + len(ref)\n        for n in range(1, 5):\n            match[n - 1] += sum((ngrams(h, n) & ngrams(ref, n)).values())\n            total[n - 1] += max(len(h) - n + 1, 0)\n    bp = min(1.0, math.exp(1 - r / c))\n    return 100 * bp * math.exp(sum(math.log(m / t) for m, t in zip(match, total)) / K)\n',
     ('my_bleu',), _t31_check_bleu, "yours\\ 59\\.09,\\ sacreBLEU's\\ 60\\.87:\\ a\\ pair\\ that\\ occurs\\ twice\\ counts"),
    ('r // c in the brevity penalty: integer division', '\ndef my_bleu(hyps, refs):\n    ngrams = lambda ws, n: Counter(tuple(ws[i:i + n]) for i in range(len(ws) - n + 1))\n    K = len(range(1, 5))\n    match, total, c, r = [0] * K, [0] * K, 0, 0\n    for h, ref in zip(hyps, refs):\n        h, ref = h.split(), ref.split()\n        c, r = c + len(h), r + len(ref)\n        for n in range(1, 5):\n            match[n - 1] += sum((ngrams(h, n) & ngrams(ref, n)).values())\n            total[n - 1] += max(len(h) - n + 1, 0)\n    bp = min(1.0, math.exp(1 - r // c))\n    return 100 * bp * math.exp(sum(math.log(m / t) for m, t in zip(match, total)) / K)\n',
     ('my_bleu',), _t31_check_bleu, 'r\\ //\\ c\\ in\\ the\\ brevity\\ penalty:\\ integer\\ division\\ makes\\ 11\\ //\\ 6\\ =\\ 1;\\ BP'),
]

@pytest.mark.parametrize('label, code, names, check, says', THIRTY_FIRST, ids=[r[0] for r in THIRTY_FIRST])
def test_thirty_first_blind_answers_named(label, code, names, check, says):
    _t31_rejects(check, *_t31_answer(code, *names), says=says)


# --- the thirty-fifth blind set's answers that the checks first missed, variants of their kinds, and a few more kinds found while fixing them, each named now
from nbtools import assert_rejects as _t35_rejects
from transformer_nb.course.evaluation import check_bleu as _t35_check_bleu
_T35_PRELUDE = ('import math, torch, torch.nn.functional as F\nfrom collections import Counter\nfrom transformer_nb.core import *\n')
def _t35_answer(code:str, name:str):
    "The answer's function, its code run in a fresh namespace with the notebook's imports."
    ns = {}; exec(_T35_PRELUDE + code, ns); return ns[name]
THIRTY_FIFTH = [   # (label, the answer's code, its name, the check, what its message must say)
    ('the exp divided by 4 (precedence)', '\ndef my_bleu(hyps, refs):\n    ngrams = lambda ws, n: Counter(tuple(ws[i:i + n]) for i in range(len(ws) - n + 1))\n    K = len(range(1, 5))\n    match, total, c, r = [0] * K, [0] * K, 0, 0\n    for h, ref in zip(hyps, refs):\n        h, ref = h.split(), ref.split()\n        c, r = c + len(h), r + len(ref)\n        for n in range(1, 5):\n            match[n - 1] += sum((ngrams(h, n) & ngrams(ref, n)).values())\n            total[n - 1] += max(len(h) - n + 1, 0)\n    bp = min(1.0, math.exp(1 - r / c))\n    return 100 * bp * math.exp(sum(math.log(m / t) for m, t in zip(match, total))) / K\n',
     'my_bleu', _t35_check_bleu, 'the\\ division\\ by\\ 4\\ belongs\\ inside\\ the\\ exp'),
    ('a brevity penalty of exp(1 - max / min)', '\ndef my_bleu(hyps, refs):\n    ngrams = lambda ws, n: Counter(tuple(ws[i:i + n]) for i in range(len(ws) - n + 1))\n    K = len(range(1, 5))\n    match, total, c, r = [0] * K, [0] * K, 0, 0\n    for h, ref in zip(hyps, refs):\n        h, ref = h.split(), ref.split()\n        c, r = c + len(h), r + len(ref)\n        for n in range(1, 5):\n            match[n - 1] += sum((ngrams(h, n) & ngrams(ref, n)).values())\n            total[n - 1] += max(len(h) - n + 1, 0)\n    bp = math.exp(1 - max(r, c) / min(r, c))\n    return 100 * bp * math.exp(sum(math.log(m / t) for m, t in zip(match, total)) / K)\n',
     'my_bleu', _t35_check_bleu, 'a\\ hypothesis\\ longer\\ than\\ its\\ reference\\ was\\ penalised\\ too'),
    ('a brevity penalty of the smaller of exp(1 - r/c) and exp(1 - c/r)', '\ndef my_bleu(hyps, refs):\n    ngrams = lambda ws, n: Counter(tuple(ws[i:i + n]) for i in range(len(ws) - n + 1))\n    K = len(range(1, 5))\n    match, total, c, r = [0] * K, [0] * K, 0, 0\n    for h, ref in zip(hyps, refs):\n        h, ref = h.split(), ref.split()\n        c, r = c + len(h), r + len(ref)\n        for n in range(1, 5):\n            match[n - 1] += sum((ngrams(h, n) & ngrams(ref, n)).values())\n            total[n - 1] += max(len(h) - n + 1, 0)\n    bp = min(math.exp(1 - r / c), math.exp(1 - c / r))\n    return 100 * bp * math.exp(sum(math.log(m / t) for m, t in zip(match, total)) / K)\n',
     'my_bleu', _t35_check_bleu, 'a\\ hypothesis\\ longer\\ than\\ its\\ reference\\ was\\ penalised\\ too'),
    ('the brevity penalty squared', '\ndef my_bleu(hyps, refs):\n    ngrams = lambda ws, n: Counter(tuple(ws[i:i + n]) for i in range(len(ws) - n + 1))\n    K = len(range(1, 5))\n    match, total, c, r = [0] * K, [0] * K, 0, 0\n    for h, ref in zip(hyps, refs):\n        h, ref = h.split(), ref.split()\n        c, r = c + len(h), r + len(ref)\n        for n in range(1, 5):\n            match[n - 1] += sum((ngrams(h, n) & ngrams(ref, n)).values())\n            total[n - 1] += max(len(h) - n + 1, 0)\n    bp = min(1.0, math.exp(1 - r / c))\n    return 100 * bp * bp * math.exp(sum(math.log(m / t) for m, t in zip(match, total)) / K)\n',
     'my_bleu', _t35_check_bleu, 'the\\ brevity\\ penalty\\ applied\\ twice'),
    ('BP inside each log precision and outside', '\ndef my_bleu(hyps, refs):\n    ngrams = lambda ws, n: Counter(tuple(ws[i:i + n]) for i in range(len(ws) - n + 1))\n    K = len(range(1, 5))\n    match, total, c, r = [0] * K, [0] * K, 0, 0\n    for h, ref in zip(hyps, refs):\n        h, ref = h.split(), ref.split()\n        c, r = c + len(h), r + len(ref)\n        for n in range(1, 5):\n            match[n - 1] += sum((ngrams(h, n) & ngrams(ref, n)).values())\n            total[n - 1] += max(len(h) - n + 1, 0)\n    bp = min(1.0, math.exp(1 - r / c))\n    return 100 * bp * math.exp(sum(math.log(bp * m / t) for m, t in zip(match, total)) / K)\n',
     'my_bleu', _t35_check_bleu, 'the\\ brevity\\ penalty\\ applied\\ twice'),
    ('log p_n weighted 1/n', '\ndef my_bleu(hyps, refs):\n    ngrams = lambda ws, n: Counter(tuple(ws[i:i + n]) for i in range(len(ws) - n + 1))\n    K = len(range(1, 5))\n    match, total, c, r = [0] * K, [0] * K, 0, 0\n    for h, ref in zip(hyps, refs):\n        h, ref = h.split(), ref.split()\n        c, r = c + len(h), r + len(ref)\n        for n in range(1, 5):\n            match[n - 1] += sum((ngrams(h, n) & ngrams(ref, n)).values())\n            total[n - 1] += max(len(h) - n + 1, 0)\n    bp = min(1.0, math.exp(1 - r / c))\n    return 100 * bp * math.exp(sum(math.log(m / t) / (i + 1) for i, (m, t) in enumerate(zip(match, total))))\n',
     'my_bleu', _t35_check_bleu, 'your\\ log\\ p_n\\ are\\ weighted\\ 1/n'),   # found while fixing the set's misses
    ('log p_n weighted n/10', '\ndef my_bleu(hyps, refs):\n    ngrams = lambda ws, n: Counter(tuple(ws[i:i + n]) for i in range(len(ws) - n + 1))\n    K = len(range(1, 5))\n    match, total, c, r = [0] * K, [0] * K, 0, 0\n    for h, ref in zip(hyps, refs):\n        h, ref = h.split(), ref.split()\n        c, r = c + len(h), r + len(ref)\n        for n in range(1, 5):\n            match[n - 1] += sum((ngrams(h, n) & ngrams(ref, n)).values())\n            total[n - 1] += max(len(h) - n + 1, 0)\n    bp = min(1.0, math.exp(1 - r / c))\n    return 100 * bp * math.exp(sum(math.log(m / t) * (i + 1) / 10 for i, (m, t) in enumerate(zip(match, total))))\n',
     'my_bleu', _t35_check_bleu, 'your\\ log\\ p_n\\ are\\ weighted\\ n/10'),   # found while fixing the set's misses
]

@pytest.mark.parametrize('label, code, name, check, says', THIRTY_FIFTH, ids=[r[0] for r in THIRTY_FIFTH])
def test_thirty_fifth_blind_answers_named(label, code, name, check, says):
    _t35_rejects(check, _t35_answer(code, name), says=says)

# --- the thirty-ninth blind set's answers that the checks first missed, and a second answer of each kind, each named now
from nbtools import assert_rejects as _t39_rejects
from transformer_nb.course.evaluation import check_bleu as _t39_check_bleu
_T39_PRELUDE = ('import math, torch, torch.nn.functional as F\nfrom collections import Counter\nfrom transformer_nb.core import *\n')
def _t39_answer(code:str, name:str):
    "The answer's function, its code run in a fresh namespace with the notebook's imports."
    ns = {}; exec(_T39_PRELUDE + code, ns); return ns[name]
THIRTY_NINTH = [   # (label, the answer's code, its name, the check, what its message must say)
    ("n-gram windows taken at every start (range(len(ws))): the short tails at a sentence's end counted as n-grams", '\ndef my_bleu(hyps, refs):\n    def grams(ws, n): return Counter(tuple(ws[i:i + n]) for i in range(len(ws)))\n    m, t, c, r = [0] * 4, [0] * 4, 0, 0\n    for hyp, ref in zip(hyps, refs):\n        h, e = hyp.split(), ref.split()\n        c += len(h); r += len(e)\n        for n in range(1, 5):\n            hg = grams(h, n)\n            m[n - 1] += sum((hg & grams(e, n)).values())\n            t[n - 1] += sum(hg.values())\n    bp = min(1.0, math.exp(1 - r / c))\n    return 100 * bp * math.exp(sum(math.log(a / b) for a, b in zip(m, t)) / 4)\n',
     'my_bleu', _t39_check_bleu, 'your\\ n\\-grams\\ start\\ at\\ every\\ word,\\ range\\(len\\(ws\\)\\)'),
    ("each sentence's n-gram total floored at 1 (max(len - n + 1, 1)): a hypothesis shorter than n adds a phantom n-gram", '\ndef my_bleu(hyps, refs):\n    def grams(ws, n): return Counter(tuple(ws[i:i + n]) for i in range(len(ws) - n + 1))\n    m, t, c, r = [0] * 4, [0] * 4, 0, 0\n    for hyp, ref in zip(hyps, refs):\n        h, e = hyp.split(), ref.split()\n        c += len(h); r += len(e)\n        for n in range(1, 5):\n            m[n - 1] += sum((grams(h, n) & grams(e, n)).values())\n            t[n - 1] += max(len(h) - n + 1, 1)      # never divide by zero\n    bp = min(1.0, math.exp(1 - r / c))\n    return 100 * bp * math.exp(sum(math.log(a / b) for a, b in zip(m, t)) / 4)\n',
     'my_bleu', _t39_check_bleu, 'yours\\ adds\\ 1,\\ max\\(len\\(h\\)\\ \\-\\ n\\ \\+\\ 1,\\ 1\\)'),
    ('max(1, exp(1 - r/c)) for min: short outputs never penalised, long ones rewarded', '\ndef my_bleu(hyps, refs):\n    def grams(ws, n): return Counter(tuple(ws[i:i + n]) for i in range(len(ws) - n + 1))\n    m, t, c, r = [0] * 4, [0] * 4, 0, 0\n    for hyp, ref in zip(hyps, refs):\n        h, e = hyp.split(), ref.split()\n        c += len(h); r += len(e)\n        for n in range(1, 5):\n            m[n - 1] += sum((grams(h, n) & grams(e, n)).values())\n            t[n - 1] += max(len(h) - n + 1, 0)\n    bp = max(1.0, math.exp(1 - r / c))\n    return 100 * bp * math.exp(sum(math.log(a / b) for a, b in zip(m, t)) / 4)\n',
     'my_bleu', _t39_check_bleu, 'your\\ brevity\\ penalty\\ is\\ max\\(1,\\ exp\\(1\\ \\-\\ r/c\\)\\),\\ not\\ min'),
    ('precisions in percent and the score times 100 again (0 to 10,000)', '\ndef my_bleu(hyps, refs):\n    def grams(ws, n): return Counter(tuple(ws[i:i + n]) for i in range(len(ws) - n + 1))\n    m, t, c, r = [0] * 4, [0] * 4, 0, 0\n    for hyp, ref in zip(hyps, refs):\n        h, e = hyp.split(), ref.split()\n        c += len(h); r += len(e)\n        for n in range(1, 5):\n            m[n - 1] += sum((grams(h, n) & grams(e, n)).values())\n            t[n - 1] += max(len(h) - n + 1, 0)\n    p = [100 * a / b for a, b in zip(m, t)]            # p_n in percent, as tables print them\n    bp = min(1.0, math.exp(1 - r / c))\n    return 100 * bp * math.exp(sum(math.log(x) for x in p) / 4)\n',
     'my_bleu', _t39_check_bleu, 'the\\ 100\\ is\\ applied\\ twice'),
    ('orders 1 to 5 (range(1, 6)), the mean over five', '\ndef my_bleu(hyps, refs):\n    def grams(ws, n): return Counter(tuple(ws[i:i + n]) for i in range(len(ws) - n + 1))\n    N = 5\n    m, t, c, r = [0] * N, [0] * N, 0, 0\n    for hyp, ref in zip(hyps, refs):\n        h, e = hyp.split(), ref.split()\n        c += len(h); r += len(e)\n        for n in range(1, N + 1):\n            m[n - 1] += sum((grams(h, n) & grams(e, n)).values())\n            t[n - 1] += max(len(h) - n + 1, 0)\n    bp = min(1.0, math.exp(1 - r / c))\n    return 100 * bp * math.exp(sum(math.log(a / b) for a, b in zip(m, t)) / N)\n',
     'my_bleu', _t39_check_bleu, 'n\\-grams\\ of\\ orders\\ 1\\ to\\ 5:\\ BLEU\\ stops\\ at\\ 4\\-grams'),
    ("matches clipped by a substring count in the reference string (str.count): 'a' found inside 'man'", "\ndef my_bleu(hyps, refs):\n    def grams(ws, n): return Counter(tuple(ws[i:i + n]) for i in range(len(ws) - n + 1))\n    m, t, c, r = [0] * 4, [0] * 4, 0, 0\n    for hyp, ref in zip(hyps, refs):\n        h, e = hyp.split(), ref.split()\n        c += len(h); r += len(e)\n        for n in range(1, 5):\n            m[n - 1] += sum(min(k, ref.count(' '.join(g))) for g, k in grams(h, n).items())\n            t[n - 1] += max(len(h) - n + 1, 0)\n    bp = min(1.0, math.exp(1 - r / c))\n    return 100 * bp * math.exp(sum(math.log(a / b) for a, b in zip(m, t)) / 4)\n",
     'my_bleu', _t39_check_bleu, "your\\ matches\\ are\\ found\\ by\\ searching\\ the\\ reference\\ string\\ \\(ref\\.count\\('\\ '\\.join\\(g\\)\\)\\)"),
    ('n-grams from every word, a loop of windows', '\ndef my_bleu(hyps, refs):\n    m, t, c, r = [0] * 4, [0] * 4, 0, 0\n    for hyp, ref in zip(hyps, refs):\n        h, e = hyp.split(), ref.split()\n        c += len(h); r += len(e)\n        for n in range(1, 5):\n            hc, rc = Counter(), Counter()\n            for i in range(len(h)): hc[tuple(h[i:i + n])] += 1\n            for i in range(len(e)): rc[tuple(e[i:i + n])] += 1\n            m[n - 1] += sum((hc & rc).values()); t[n - 1] += sum(hc.values())\n    return 100 * min(1.0, math.exp(1 - r / c)) * math.exp(sum(math.log(a / b) for a, b in zip(m, t)) / 4)\n',
     'my_bleu', _t39_check_bleu, 'your\\ n\\-grams\\ start\\ at\\ every\\ word,\\ range\\(len\\(ws\\)\\)'),   # a second answer of the kind
    ('a total of 1 for a hypothesis shorter than n (a conditional)', '\ndef my_bleu(hyps, refs):\n    def grams(ws, n): return Counter(tuple(ws[i:i + n]) for i in range(len(ws) - n + 1))\n    m, t, c, r = [0] * 4, [0] * 4, 0, 0\n    for hyp, ref in zip(hyps, refs):\n        h, e = hyp.split(), ref.split()\n        c += len(h); r += len(e)\n        for n in range(1, 5):\n            m[n - 1] += sum((grams(h, n) & grams(e, n)).values())\n            t[n - 1] += len(h) - n + 1 if len(h) >= n else 1\n    bp = min(1.0, math.exp(1 - r / c))\n    return 100 * bp * math.exp(sum(math.log(a / b) for a, b in zip(m, t)) / 4)\n',
     'my_bleu', _t39_check_bleu, 'yours\\ adds\\ 1,\\ max\\(len\\(h\\)\\ \\-\\ n\\ \\+\\ 1,\\ 1\\)'),   # a second answer of the kind
    ('the brevity penalty 1 for a short corpus, exp(1 - r/c) for a long one', '\ndef my_bleu(hyps, refs):\n    def grams(ws, n): return Counter(tuple(ws[i:i + n]) for i in range(len(ws) - n + 1))\n    m, t, c, r = [0] * 4, [0] * 4, 0, 0\n    for hyp, ref in zip(hyps, refs):\n        h, e = hyp.split(), ref.split()\n        c += len(h); r += len(e)\n        for n in range(1, 5):\n            m[n - 1] += sum((grams(h, n) & grams(e, n)).values())\n            t[n - 1] += max(len(h) - n + 1, 0)\n    bp = 1.0 if c < r else math.exp(1 - r / c)\n    return 100 * bp * math.exp(sum(math.log(a / b) for a, b in zip(m, t)) / 4)\n',
     'my_bleu', _t39_check_bleu, 'your\\ brevity\\ penalty\\ is\\ max\\(1,\\ exp\\(1\\ \\-\\ r/c\\)\\),\\ not\\ min'),   # a second answer of the kind
    ('the score times 10000', '\ndef my_bleu(hyps, refs):\n    def grams(ws, n): return Counter(tuple(ws[i:i + n]) for i in range(len(ws) - n + 1))\n    m, t, c, r = [0] * 4, [0] * 4, 0, 0\n    for hyp, ref in zip(hyps, refs):\n        h, e = hyp.split(), ref.split()\n        c += len(h); r += len(e)\n        for n in range(1, 5):\n            m[n - 1] += sum((grams(h, n) & grams(e, n)).values())\n            t[n - 1] += max(len(h) - n + 1, 0)\n    bp = min(1.0, math.exp(1 - r / c))\n    return 10000 * bp * math.exp(sum(math.log(a / b) for a, b in zip(m, t)) / 4)\n',
     'my_bleu', _t39_check_bleu, 'the\\ 100\\ is\\ applied\\ twice'),   # a second answer of the kind
    ('orders 1 to 5, each weighted 1/4', '\ndef my_bleu(hyps, refs):\n    def grams(ws, n): return Counter(tuple(ws[i:i + n]) for i in range(len(ws) - n + 1))\n    m, t, c, r = [0] * 5, [0] * 5, 0, 0\n    for hyp, ref in zip(hyps, refs):\n        h, e = hyp.split(), ref.split()\n        c += len(h); r += len(e)\n        for n in range(1, 6):\n            m[n - 1] += sum((grams(h, n) & grams(e, n)).values())\n            t[n - 1] += max(len(h) - n + 1, 0)\n    bp = min(1.0, math.exp(1 - r / c))\n    return 100 * bp * math.exp(sum(math.log(a / b) for a, b in zip(m, t)) / 4)\n',
     'my_bleu', _t39_check_bleu, 'n\\-grams\\ of\\ orders\\ 1\\ to\\ 5:\\ BLEU\\ stops\\ at\\ 4\\-grams'),   # a second answer of the kind
    ('matches counted with re.findall in the reference string', "import re\n\ndef my_bleu(hyps, refs):\n    def grams(ws, n): return Counter(tuple(ws[i:i + n]) for i in range(len(ws) - n + 1))\n    m, t, c, r = [0] * 4, [0] * 4, 0, 0\n    for hyp, ref in zip(hyps, refs):\n        h, e = hyp.split(), ref.split()\n        c += len(h); r += len(e)\n        for n in range(1, 5):\n            m[n - 1] += sum(min(k, len(re.findall(re.escape(' '.join(g)), ref))) for g, k in grams(h, n).items())\n            t[n - 1] += max(len(h) - n + 1, 0)\n    bp = min(1.0, math.exp(1 - r / c))\n    return 100 * bp * math.exp(sum(math.log(a / b) for a, b in zip(m, t)) / 4)\n",
     'my_bleu', _t39_check_bleu, "your\\ matches\\ are\\ found\\ by\\ searching\\ the\\ reference\\ string\\ \\(ref\\.count\\('\\ '\\.join\\(g\\)\\)\\)"),   # a second answer of the kind
]

@pytest.mark.parametrize('label, code, name, check, says', THIRTY_NINTH, ids=[r[0] for r in THIRTY_NINTH])
def test_thirty_ninth_blind_answers_named(label, code, name, check, says):
    _t39_rejects(check, _t39_answer(code, name), says=says)
