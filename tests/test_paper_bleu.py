"""The paper's BLEU (lib_significance: `paper_bleu`, `_multi_bleu`, `_moses_tokenize`, `_split_compounds`), as
tensor2tensor's `get_ende_bleu.sh` computes it: Moses' tokenizer, hyphenated compounds split, `multi-bleu.perl`.
`_multi_bleu` is held against a case worked by hand, a line-by-line port of `multi-bleu.perl` written here, and NLTK's
`corpus_bleu`; the compound splitting against Perl itself where Perl is installed; `tnb-evaluate` prints the score."""
import math, random, shutil, subprocess
from collections import Counter
import pytest
from transformer_nb.lib.significance import _multi_bleu, paper_bleu, _moses_tokenize, _split_compounds

def test_multi_bleu_on_a_case_worked_by_hand():
    hyps = ['the cat sat on the mat', 'a dog barks']
    refs = ['the cat sat on a mat', 'the dog barks loudly']
    # Sentence 1. hyp: the cat sat on the mat (6 tokens); ref: the cat sat on a mat (6).
    #   1-grams: the x2 (ref has 1: clipped to 1), cat, sat, on, mat -> 5 of 6
    #   2-grams: the cat, cat sat, sat on | on the, the mat not in ref -> 3 of 5
    #   3-grams: the cat sat, cat sat on | sat on the, on the mat -> 2 of 4
    #   4-grams: the cat sat on | cat sat on the, sat on the mat -> 1 of 3
    # Sentence 2. hyp: a dog barks (3); ref: the dog barks loudly (4).
    #   1-grams: dog, barks | a -> 2 of 3;  2-grams: dog barks | a dog -> 1 of 2;  3-grams: a dog barks -> 0 of 1;  4-grams: 0 of 0
    # Corpus: 7/9, 4/7, 2/5, 1/3. Lengths: hyp 9, ref 10, so the brevity penalty is exp(1 - 10/9).
    # BLEU = 100 * exp(1 - 10/9) * (7/9 * 4/7 * 2/5 * 1/3) ** (1/4) = 100 * exp(-1/9) * (8/135) ** 0.25 = 44.15
    s = _multi_bleu(hyps, refs)
    assert [c for c in s.counts] == [7, 4, 2, 1] and [t for t in s.totals] == [9, 7, 5, 3]
    assert (s.sys_len, s.ref_len) == (9, 10)
    assert s.score == pytest.approx(100 * math.exp(1 - 10 / 9) * (8 / 135) ** 0.25, abs=1e-9)
    assert round(s.score, 2) == 44.15
    # Any n-gram order without a match gives 0, as multi-bleu.perl (its my_log(0) is -9999999999): no smoothing
    assert _multi_bleu(['a b c d'], ['a b c e']).score == 0.0
    # Case is kept: multi-bleu.perl lowercases only with -lc
    assert _multi_bleu(['The cat sat down'], ['the cat sat down']).score < 100

def multi_bleu_perl(hyps:list[str], refs:list[str]) -> float:
    "multi-bleu.perl (one reference, no -lc), line for line: counts summed over the corpus, clipped, BP, geometric mean."
    correct, total = [0] * 5, [0] * 5
    hyp_len = ref_len = 0
    for h, r in zip(hyps, refs):
        hw, rw = h.split(), r.split()                  # perl: split(' ', $line), runs of whitespace
        hyp_len += len(hw); ref_len += len(rw)         # one reference: the closest length is its length
        for n in range(1, 5):
            ref_ngrams = Counter(tuple(rw[i:i + n]) for i in range(len(rw) - n + 1))
            hyp_ngrams = Counter(tuple(hw[i:i + n]) for i in range(len(hw) - n + 1))
            total[n] += sum(hyp_ngrams.values())
            correct[n] += sum(min(c, ref_ngrams[g]) for g, c in hyp_ngrams.items() if g in ref_ngrams)
    prec = [correct[n] / total[n] if total[n] else 0 for n in range(1, 5)]
    bp = math.exp(1 - ref_len / hyp_len) if hyp_len < ref_len else 1.0
    my_log = lambda x: math.log(x) if x else -9999999999
    return 100 * bp * math.exp(sum(my_log(p) for p in prec) / 4)

def noisy_corpus(seed:int, n:int=200) -> tuple[list[str], list[str]]:
    "References of random words and hypotheses that drop, swap, repeat and replace some of them: every n-gram order partly matched."
    rng = random.Random(seed)
    vocab = [f"w{i}" for i in range(40)] + ['Haus', 'E-Mail', '##AT##-##AT##', '&quot;', ',', '.']
    refs, hyps = [], []
    for _ in range(n):
        r = [rng.choice(vocab) for _ in range(rng.randint(1, 25))]
        h = [w if rng.random() < 0.8 else rng.choice(vocab) for w in r if rng.random() < 0.9]
        if len(h) > 3 and rng.random() < 0.3: i = rng.randrange(len(h) - 1); h[i], h[i + 1] = h[i + 1], h[i]
        if rng.random() < 0.2: h += h[:3]
        refs.append(' '.join(r)); hyps.append(' '.join(h))
    return hyps, refs

@pytest.mark.parametrize('seed', range(5))
def test_multi_bleu_is_multi_bleu_perl_and_nltk(seed):
    from nltk.translate.bleu_score import corpus_bleu
    hyps, refs = noisy_corpus(seed)
    ours = _multi_bleu(hyps, refs).score
    assert ours == pytest.approx(multi_bleu_perl(hyps, refs), abs=1e-9)
    # NLTK counts a hypothesis shorter than n as one n-gram of order n (max(1, count) in modified_precision), where
    # multi-bleu.perl counts none: the two agree on hypotheses of 4 tokens or more
    long = [(h, r) for h, r in zip(hyps, refs) if len(h.split()) >= 4]
    nltk = 100 * corpus_bleu([[r.split()] for _, r in long], [h.split() for h, _ in long])   # weights 1/4 each, no smoothing
    assert _multi_bleu(*map(list, zip(*long))).score == pytest.approx(nltk, abs=1e-9)
    assert 5 < ours < 95                                                                  # a case where every part counts

def test_short_hypotheses_pay_the_brevity_penalty_as_in_perl():
    hyps, refs = noisy_corpus(7)
    short = [' '.join(h.split()[:max(1, len(h.split()) // 2)]) for h in hyps]
    s = _multi_bleu(short, refs)
    assert s.sys_len < s.ref_len and s.score == pytest.approx(multi_bleu_perl(short, refs), abs=1e-9)

LINES = ['a-b-c - d --', 'ein E-Mail-Programm', 'Über-Ich und Nicht-Über-Ich', 'x -y z- -', '-a- b', 'rich-text format']

def test_split_compounds_does_what_the_perl_one_liner_does():
    want = ['a ##AT##-##AT## b-c - d --', 'ein E ##AT##-##AT## Mail ##AT##-##AT## Programm',
            'Über ##AT##-##AT## Ich und Nicht ##AT##-##AT## Über ##AT##-##AT## Ich', 'x -y z- -', '-a- b',
            'rich ##AT##-##AT## text format']
    assert [_split_compounds(l) for l in LINES] == want
    if shutil.which('perl') is None: pytest.skip('perl is not installed: checked against the worked cases only')
    r = subprocess.run(['perl', '-ple', r's{(\S)-(\S)}{$1 ##AT##-##AT## $2}g'], input='\n'.join(LINES) + '\n',
                       capture_output=True, text=True, encoding='utf-8', check=True)
    assert r.stdout.splitlines() == want

def test_paper_bleu_tokenizes_like_moses_and_splits_compounds():
    assert _moses_tokenize(['Er sagt: "Das E-Mail-Programm läuft."']) == ['Er sagt : &quot; Das E-Mail-Programm läuft . &quot;']
    hyp, ref = ['Das E-Mail-Programm läuft.'], ['Das E-Mail-System läuft.']
    # Tokenized and split: Das E ##AT##-##AT## Mail ##AT##-##AT## Programm läuft .  (8 tokens) against the same with System:
    # 1-grams 7/8, 2-grams 5/7, 3-grams 3/6, 4-grams 2/5 (Das E AT Mail, E AT Mail AT); equal lengths: no brevity penalty
    p = paper_bleu(hyp, ref)
    assert p["bleu_paper"] == round(100 * (7 / 8 * 5 / 7 * 3 / 6 * 2 / 5) ** 0.25, 2)
    assert p['bleu_paper_signature'].startswith('nrefs:1|case:mixed|punct:unicode-to-ascii|tok:moses-de|split:compounds|bleu:multi-bleu|smooth:none|')
    assert paper_bleu(['“Hallo”, sagte sie…'], ['"Hallo", sagte sie...'])['bleu_paper'] == 100.0   # punctuation made ASCII on both sides
    with pytest.raises(ValueError, match='aligned line by line'): paper_bleu(hyp, ref * 2)

def test_the_literal_t2t_scoring_keeps_the_references_punctuation():
    "get_ende_bleu.sh made the hypotheses' punctuation ASCII and read its reference as written: offered beside the normalized scoring."
    hyp, ref = ['„Hallo“, sagte sie.'], ['„Hallo“, sagte sie.']
    p = paper_bleu(hyp, ref)
    assert p['bleu_paper'] == 100.0                                   # both sides made ASCII
    # as written: the hypothesis's „ and “ became " (then &quot;), the reference's stay: 4 of 6 tokens match, 2 of 5 bigrams, ...
    assert p['bleu_paper_literal'] == round(_multi_bleu(*(_moses_tokenize(x, 'de', unicode_punct=u) for x, u in ((hyp, True), (ref, False)))).score, 2)
    assert p['bleu_paper_literal'] < p['bleu_paper']
    assert p['bleu_paper_literal_signature'].split('|')[2:5] == ['punct:hyps-unicode-to-ascii', 'tok:moses-de', 'split:compounds']

def test_compounds_are_split_for_german_alone():
    "get_ende_bleu.sh is English→German's: an English→French score tokenizes, and splits no compound."
    hyp, ref = ['Le porte-monnaie est rouge ici .'], ['Le porte-feuille est rouge ici .']
    fr, de = paper_bleu(hyp, ref, 'fr'), paper_bleu(hyp, ref, 'de')
    assert fr['bleu_paper'] == round(_multi_bleu(_moses_tokenize(hyp, 'fr', True), _moses_tokenize(ref, 'fr', True)).score, 2)
    assert (fr['bleu_paper'], de['bleu_paper']) == (53.73, 50.0)     # 6 tokens unsplit; split, 8, the one that differs breaks more n-grams
    assert fr['bleu_paper_signature'].split('|')[3:5] == ['tok:moses-fr', 'split:none'] and 'split:none' in fr['bleu_paper_literal_signature']

@pytest.mark.slow
def test_tnb_evaluate_prints_both_scores_with_their_signatures(tmp_path):
    "A two-update numbers run (en->de) scored by tnb-evaluate in a fresh process: sacreBLEU's line, then the paper's."
    import json, os, sys
    env = {**os.environ, 'TNB_THREADS': '1'}
    run = tmp_path / 'run'
    r = subprocess.run([sys.executable, '-c', 'from transformer_nb.apps.cli import train_main; train_main()', '--dataset', 'numbers',
                        '--preset', 'tiny', '--steps', '2', '--out', str(run), '--no-progress', '--test-limit', '0'],
                       capture_output=True, text=True, env=env, timeout=300)
    assert r.returncode == 0, r.stderr[-3000:]
    src, ref = tmp_path / 'src.en', tmp_path / 'ref.de'
    src.write_text('twenty-one\nthree hundred forty-two\n'); ref.write_text('einundzwanzig\ndreihundertzweiundvierzig\n')
    ev = lambda *a: subprocess.run([sys.executable, '-c', 'from transformer_nb.apps.cli import evaluate_main; evaluate_main()', str(run),
                                    '--src', str(src), '--ref', str(ref), '--beam', '1', *a], capture_output=True, text=True, env=env, timeout=300)
    r = ev()
    assert r.returncode == 0, r.stderr[-3000:]
    lines = r.stdout.splitlines()
    assert lines[0].startswith('BLEU ') and 'tok:13a' in lines[0]
    paper = [l for l in lines if "the paper's: tokenized, compounds split" in l]
    assert len(paper) == 1 and 'tok:moses-de|split:compounds|bleu:multi-bleu' in paper[0], r.stdout
    literal = [l for l in lines if "the reference's punctuation as written, as tensor2tensor read it" in l]
    assert len(literal) == 1 and 'punct:hyps-unicode-to-ascii' in literal[0], r.stdout
    scores = json.loads(ev('--json').stdout)
    assert {'bleu', 'bleu_signature', 'bleu_paper', 'bleu_paper_signature', 'bleu_paper_literal', 'bleu_paper_literal_signature'} <= set(scores)
