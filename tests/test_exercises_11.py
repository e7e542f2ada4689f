"""11_results's exercises, proven away from the learner's names: each check accepts the solution the notebook prints,
reports an unwritten stub without failing, and rejects each likely mistake with a message that names the case and
the mistake; the change of the "break it" exercise makes exactly the checks its solution names fail."""
import pytest
from nbtools import NBS, assert_stub_reported, _body, cells, code_blocks, namespace

NB = '11_results'
EXERCISES = 'a1b2c344'                      # the exercises' markdown cell: the solutions of exercises 2 and 3

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

def bleu_ns(): return namespace(NB, '83b32dda', 'c0b1a7e3')          # corpus_scores, then the check
SOLUTION = code_blocks(NB, EXERCISES)[0]

def variant(old, new):
    assert old in SOLUTION, old
    ns = bleu_ns(); exec(SOLUTION.replace(old, new), ns); return ns

def test_bleu_solution_passes(capsys):
    ns = bleu_ns(); exec(SOLUTION, ns)
    assert ns['check_bleu'](ns['my_bleu']) is True and 'agrees with sacreBLEU' in capsys.readouterr().out

def test_bleu_stub_is_reported_as_not_written(capsys):
    ns = namespace(NB, '83b32dda', 'c0b1a7e3', 'e11c0001')          # the stub cell runs the check, as Run All does
    assert_stub_reported(ns, 'check_bleu', 'my_bleu', capsys)

@pytest.mark.parametrize('old, new, case, mistake', [
    ('(ngrams(h, n) & ngrams(ref, n))', 'Counter({g: k for g, k in ngrams(h, n).items() if g in ngrams(ref, n)})',
     "case 'a repeated 4-gram'", 'clip the counts'),
    ('bp = min(1.0, math.exp(1 - r / c))', 'bp = 1.0', "case 'a short hypothesis'", 'the brevity penalty'),
    ('bp = min(1.0, math.exp(1 - r / c))', 'bp = min(1.0, math.exp(1 - c / r))', "case 'a short hypothesis'", 'the brevity penalty'),
    ('math.exp(sum(math.log(m / t) for m, t in zip(match, total)) / 4)', 'sum(m / t for m, t in zip(match, total)) / 4',
     "case 'a short hypothesis'", 'the arithmetic mean of the precisions'),   # named as that, not as the brevity penalty
])
def test_bleu_mistakes_are_named(old, new, case, mistake):
    ns = variant(old, new)
    with pytest.raises(AssertionError) as e: ns['check_bleu'](ns['my_bleu'])
    assert case in str(e.value) and mistake in str(e.value), str(e.value)

def test_bleu_averaged_over_sentences_is_named():
    ns = bleu_ns(); exec(SOLUTION, ns)
    one = ns['my_bleu']
    with pytest.raises(AssertionError) as e: ns['check_bleu'](lambda hs, rs: sum(one([h], [r]) for h, r in zip(hs, rs)) / len(hs))
    assert "case 'three captions'" in str(e.value) and 'sum the matches' in str(e.value)

# --- exercise 3: reading the maps with code ---

@pytest.fixture
def heads_ns(monkeypatch):
    monkeypatch.chdir(NBS)                                          # the check reads ../results/attention, as the notebook does
    return namespace(NB, 'c81710b1', 'c81710b2', 'c81710b3', 'e11c0002')                    # load_attention, then the check

HEADS = code_blocks(NB, EXERCISES)[1]

def test_heads_solution_passes(heads_ns, capsys):
    exec(HEADS, heads_ns)
    assert heads_ns['check_heads'](heads_ns['heads_looking']) is True and 'reads the 5 readings' in capsys.readouterr().out

def test_heads_stub_is_reported_as_not_written(heads_ns, capsys):
    exec(_body(cells(NB)['e11c0003'][1]), heads_ns)
    assert_stub_reported(heads_ns, 'check_heads', 'heads_looking', capsys)

@pytest.mark.parametrize('wrong, case, mistake', [
    ('lambda w, rows, col: [h for h in range(w.shape[0]) if all(w[h, r].argmax() == col for r in rows)]',
     "case 'the comma, in, einem and am -> spielen (encoder)'", 'numbered from 1'),
    ('lambda w, rows, col: [h + 1 for h in range(w.shape[0]) if any(w[h, r].argmax() == col for r in rows)]',
     "case 'the comma, in, einem and am -> spielen (encoder)'", 'not any'),
    ('lambda w, rows, col: [h + 1 for h in range(w.shape[0]) if all(w[h, :, col].argmax() == r for r in rows)]',
     "case 'the comma, in, einem and am -> spielen (encoder)'", 'over the keys'),
    ('lambda w, rows, col: None', "case 'the comma, in, einem and am -> spielen (encoder)'", 'return a list'),
    ('lambda w, rows, col: [1]', "case 'the comma, in, einem and am -> spielen (encoder)'", "compare each row's argmax"),
])
def test_heads_mistakes_are_named(heads_ns, wrong, case, mistake):
    with pytest.raises(AssertionError) as e: heads_ns['check_heads'](eval(wrong))
    assert case in str(e.value) and mistake in str(e.value), str(e.value)
