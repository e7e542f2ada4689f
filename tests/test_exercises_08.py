"""The proof that 08_data's exercises are right, away from the learner: exercise 5's check (`check_bpe`,
`transformer_nb.course.data`, course_data) reports the stub, passes the printed `learn_bpe` and `segment` and names what a wrong
one gets wrong; each "break it" exercise, applied to the code, makes exactly the checks its solution names fail."""
import pytest
import re
from nbtools import _body, assert_break_it, break_it, cells, changed, code_blocks, namespace
from transformer_nb.course.data import check_bpe

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

# ---------------------------------------------------------------- fresh wrong answers, written as new learners would
import functools
from collections import Counter
from transformer_nb.course import data as _ex
from nbtools import assert_rejects
FRESH = {}   # label: (checker, answer, the words its message must contain)
def add(checker, label, kw, *args): FRESH[checker, label] = args

# 08 BPE: each answer and the words its message must contain
def _merge(syms, pair):
    i = 0
    while i < len(syms) - 1:
        if (syms[i], syms[i + 1]) == pair: syms[i:i + 2] = [syms[i] + syms[i + 1]]
        else: i += 1
    return syms
def learn_ok(word_counts, n_merges, *, weight=True, end=True, tie=lambda pairs: min(pairs, key=lambda p: (-pairs[p], p)), once=False, joined=False):
    vocab = {tuple(w) + (('</w>',) if end else ()): c for w, c in word_counts.items()}
    merges = []
    for _ in range(n_merges):
        pairs = Counter()
        for syms, c in vocab.items():
            seen = set()
            for p in zip(syms, syms[1:]):
                if once and p in seen: continue
                seen.add(p); pairs[p] += c if weight else 1
        if not pairs: break
        best = tie(pairs); merges.append(best[0] + best[1] if joined else best)
        vocab = {tuple(_merge(list(s), best)): c for s, c in vocab.items()}
    return merges
def seg_ok(word, merges, end=True):
    syms = list(word) + (['</w>'] if end else [])
    for pair in merges: syms = _merge(syms, pair)
    return syms
def bp(name, **kw):
    f = functools.partial(learn_ok, **kw); f.__name__ = 'learn_bpe'; return f
add('check_bpe', 'pairs not weighted by word count', ['count', 'weight', 'frequen'], bp('l', weight=False), seg_ok)
add('check_bpe', 'no end-of-word symbol', ['</w>', 'end'], bp('l', end=False), functools.partial(seg_ok, end=False))
add('check_bpe', 'ties broken by max not min', ['tie', 'smallest'], bp('l', tie=lambda pairs: max(pairs, key=lambda p: (pairs[p], p))), seg_ok)
add('check_bpe', 'ties: first seen (most_common)', ['tie', 'smallest'], bp('l', tie=lambda pairs: pairs.most_common(1)[0][0]), seg_ok)
add('check_bpe', 'merges stored as joined strings', ['pair', 'tuple', 'form', 'string'], bp('l', joined=True), lambda w, m: seg_ok(w, [tuple(x) if isinstance(x, tuple) else x for x in m]))
def seg_greedy(word, merges):   # applies each merge once only (first occurrence)
    syms = list(word) + ['</w>']
    for a, b in merges:
        for i in range(len(syms) - 1):
            if (syms[i], syms[i + 1]) == (a, b): syms[i:i + 2] = [a + b]; break
    return syms
add('check_bpe', 'segment merges only the first occurrence', ['every', 'occurrence', 'once', 'each'], learn_ok, seg_greedy)
def seg_frequent(word, merges):   # applies the merges by repeatedly choosing the earliest-learnt available pair?? no: in reverse order
    syms = list(word) + ['</w>']
    for pair in reversed(merges): syms = _merge(syms, pair)
    return syms
add('check_bpe', 'segment applies merges in reverse order', ['order'], learn_ok, seg_frequent)
def seg_nomerge_end(word, merges):   # forgets '</w>' in segment only
    syms = list(word)
    for pair in merges: syms = _merge(syms, pair)
    return syms
add('check_bpe', "segment forgets '</w>'", ['</w>', 'end'], learn_ok, seg_nomerge_end)
add('check_bpe', 'counts a pair once per word', ['count', 'every', 'occurrence', 'once'], bp('l', once=True), seg_ok)
def learn_chars(word_counts, n_merges):   # recounts on the original words every time (never applies merges)
    vocab = {tuple(w) + ('</w>',): c for w, c in word_counts.items()}
    pairs = Counter()
    for syms, c in vocab.items():
        for p in zip(syms, syms[1:]): pairs[p] += c
    return [p for p, _ in sorted(pairs.items(), key=lambda kv: (-kv[1], kv[0]))[:n_merges]]
add('check_bpe', 'counts pairs once, never re-counts after merging', ['merge', 'recount', 'again', 'after'], learn_chars, seg_ok)
SAYS_CHECK_BPE = {
"pairs not weighted by word count": "weight\\ each\\ pair\\ by\\ its\\ word's\\ count",
"no end-of-word symbol": "end\\ each\\ word\\ with\\ the\\ symbol\\ '</w>'",
"ties broken by max not min": "yours\\ takes\\ the\\ largest",
"ties: first seen (most_common)": "\\('e',\\ 'w'\\),\\ \\('n',\\ 'e'\\)\\ and\\ \\('w',\\ 'est</w>'\\)\\ all\\ occur\\ 6\\ times\\ there:\\ a\\ tie\\ goes\\ to\\ the\\ sma",
"merges stored as joined strings": "keep\\ each\\ merge\\ as\\ the\\ pair\\ of\\ symbols\\ it\\ joined,\\ a\\ tuple\\ such\\ as\\ \\('e',\\ 's'\\),\\ which\\ a\\ pair",
"segment merges only the first occurrence": "merge\\ every\\ occurrence\\ of\\ a\\ pair\\ in\\ the\\ word,\\ left\\ to\\ right,\\ not\\ only\\ the\\ first",
"segment applies merges in reverse order": "apply\\ the\\ merges\\ in\\ the\\ order\\ learnt,\\ first\\ to\\ last",
"segment forgets '</w>'": "split\\ the\\ word\\ into\\ its\\ characters\\ plus\\ '</w>'\\ before\\ the\\ merges,\\ as\\ learn_bpe\\ does",
"counts a pair once per word": "count\\ every\\ occurrence\\ of\\ a\\ pair\\ in\\ a\\ word,\\ not\\ once\\ per\\ word",
"counts pairs once, never re-counts after merging": "after\\ each\\ merge,\\ count\\ the\\ pairs\\ again\\ on\\ the\\ merged\\ words:\\ a\\ new\\ symbol\\ such\\ as\\ 'es'\\ pai"
}

@pytest.mark.parametrize('label', list(SAYS_CHECK_BPE))
def test_fresh_wrong_answers_named_by_check_bpe(label):
    "Each wrong answer a new learner writes is refused, with a message that names its mistake."
    assert_rejects(_ex.check_bpe, *FRESH['check_bpe', label], says=SAYS_CHECK_BPE[label])

# ---------------------------------------------------------------- merging by string replace, named
STR_LEARN = ("        vocab = {tuple(_merge(list(syms), best)): c for syms, c in vocab.items()}",
             "        vocab = {tuple(' '.join(syms).replace(' '.join(best), ''.join(best)).split()): c for syms, c in vocab.items()}")
STR_SEGMENT = ("    for pair in merges: syms = _merge(syms, pair)\n    return syms",
               "    s = ' '.join(syms)\n    for a, b in merges: s = s.replace(f'{a} {b}', a + b)\n    return s.split()")

@pytest.mark.parametrize('old, new, says', [
    (*STR_LEARN, r"learn_bpe\(\{'ab': 10, 'abc': 1, 'bc': 6\}, 5\) gave .*: merging by string replace joins symbols across their boundaries"),
    (*STR_SEGMENT, r"segment\('abc', \[\('a', 'b'\), \('b', 'c'\)\]\) gave \['abc', '</w>'\], not \['ab', 'c', '</w>'\]: merging by string replace"),
], ids=['learn_bpe', 'segment'])
def test_bpe_string_replace_is_named(old, new, says, capsys):
    "String replace on the space-joined symbols passes Sennrich et al.'s example, and merges across a symbol's boundary elsewhere."
    assert check_bpe(*bpe(old, new)) is False
    assert re.search(says, capsys.readouterr().out)

def test_bpe_merging_the_first_occurrence_in_a_word_only_is_named(capsys):
    "learn_bpe whose merge joins only the first occurrence of the pair in each word: Sennrich's example passes it, 'abab' does not."
    learn, segment = bpe()
    def merge_first(syms, pair):
        for i in range(len(syms) - 1):
            if (syms[i], syms[i + 1]) == pair: return syms[:i] + (syms[i] + syms[i + 1],) + syms[i + 2:]
        return syms
    def learn_first(word_counts, n_merges):
        vocab, merges = {tuple(w) + ('</w>',): c for w, c in word_counts.items()}, []
        for _ in range(n_merges):
            pairs = {}
            for syms, c in vocab.items():
                for p in zip(syms, syms[1:]): pairs[p] = pairs.get(p, 0) + c
            if not pairs: break
            best = min(pairs, key=lambda p: (-pairs[p], p)); merges.append(best)
            vocab = {merge_first(s, best): c for s, c in vocab.items()}
        return merges
    assert_rejects(check_bpe, learn_first, segment, says=r"^Not yet: learn_bpe\(\{'abab': 1\}, 2\) gave \[\('a', 'b'\), \('a', 'b'\)\], "
                   r"not \[\('a', 'b'\), \('ab', '</w>'\)\]: merge every occurrence of the pair in each word, not only the first")
    assert check_bpe(learn, segment) is True


def _merge_run(syms, pair, rtl=False):
    "Every occurrence of `pair` in `syms` merged, left to right (or right to left)."
    syms = syms[::-1] if rtl else list(syms); pair = pair[::-1] if rtl else pair; i = 0
    while i < len(syms) - 1:
        if (syms[i], syms[i + 1]) == pair: syms[i:i + 2] = [syms[i + 1] + syms[i]] if rtl else [syms[i] + syms[i + 1]]
        else: i += 1
    return syms[::-1] if rtl else syms

def _learner(rtl=False, stop=True):
    def learn_bpe(word_counts, n_merges):
        vocab, merges = {tuple(w) + ('</w>',): c for w, c in word_counts.items()}, []
        for _ in range(n_merges):
            pairs = Counter()
            for syms, c in vocab.items():
                for p in zip(syms, syms[1:]): pairs[p] += c
            if not pairs and stop: break
            best = min(pairs, key=lambda p: (-pairs[p], p)); merges.append(best)
            vocab = {tuple(_merge_run(list(s), best, rtl)): c for s, c in vocab.items()}
        return merges
    def segment(word, merges):
        syms = list(word) + ['</w>']
        for p in merges: syms = _merge_run(syms, p, rtl)
        return syms
    return learn_bpe, segment

def test_merging_right_to_left_and_merging_past_the_pairs_are_named():
    assert_rejects(_ex.check_bpe, *_learner(rtl=True), says=r"segment\('aaa', \[\('a', 'a'\)\]\) gave \['a', 'aa', '</w>'\], not \['aa', 'a', '</w>'\]: merge left to right")
    assert_rejects(_ex.check_bpe, *_learner(stop=False), says=r"learn_bpe\(\{'ab': 1\}, 5\) raised ValueError .*: 'a b </w>' has only 2 merges to make; when no pair is left, stop")
    assert _ex.check_bpe(*_learner()) is True

# ---------------------------------------------------------------- mistakes nobody listed, named by what the answer does
from collections import Counter as _Counter
from transformer_nb.course.data import check_bpe as _check_bpe

def _bpe_by(pick=lambda pairs: min(pairs, key=lambda p: (-pairs[p], p)), clear=False, start=(), end=('</w>',), update=True, least=1, ranks=False):
    """learn_bpe and segment as the solution writes them, but the next merge chosen by `pick`, the caller's counts
    cleared, a word's marks put otherwise (`start`, `end`), the words left unmerged between rounds (`update=False`), a stop
    once the best pair occurs fewer than `least` times, or the merges returned as a dict pair -> rank (`ranks`)."""
    def merge(syms, pair):
        i = 0
        while i < len(syms) - 1:
            if (syms[i], syms[i + 1]) == pair: syms[i:i + 2] = [syms[i] + syms[i + 1]]
            else: i += 1
        return syms
    def learn_bpe(word_counts, n_merges):
        vocab, merges = {tuple(start) + tuple(w) + tuple(end): c for w, c in word_counts.items()}, []
        if clear: word_counts.clear()
        for _ in range(n_merges):
            pairs = _Counter()
            for syms, c in vocab.items():
                for a, b in zip(syms, syms[1:]): pairs[a, b] += c
            if not pairs or max(pairs.values()) < least: break
            merges.append(pick(pairs))
            if update: vocab = {tuple(merge(list(s), merges[-1])): c for s, c in vocab.items()}
        return {p: i for i, p in enumerate(merges)} if ranks else merges
    def segment(word, merges):
        syms = list(start) + list(word) + list(end)
        for p in merges: syms = merge(syms, p)
        return syms
    return learn_bpe, segment

@pytest.mark.parametrize('kw, says', [
    (dict(pick=lambda pairs: max(reversed(list(pairs)), key=lambda p: pairs[p])),
     r"merge 1 should be \('e', 's'\), yours is \('t', '</w>'\): \('t', '</w>'\) and \('e', 's'\) both occur 9 times there: a tie goes to the smallest pair"),
    (dict(pick=lambda pairs: sorted(pairs, key=lambda p: (-pairs[p], p))[1]),
     r"merge 1 should be \('e', 's'\), yours is \('s', 't'\): \('s', 't'\) and \('e', 's'\) both occur 9 times"),
    (dict(clear=True), r"learn_bpe\(\{'low': 5, 'lower': 2, 'newest': 6, 'widest': 3\}, 10\) changed its argument .* into \{\}: work on a copy"),
])
def test_bpe_mistakes_nobody_listed_are_named_by_property(kw, says):
    assert_rejects(_check_bpe, *_bpe_by(**kw), says=says)

def test_a_segment_no_listed_mistake_explains_gets_the_merges_step_by_step():
    learn_bpe, _ = _bpe_by()
    assert_rejects(_check_bpe, learn_bpe, lambda word, merges: list(word) + ['</w>'],
                   says=r"segment\('lowest'\) gave .*: apply each merge, in the order learnt, .*: from l o w e s t </w>, \('e', 's'\) gives l o w es t </w>; ")


# ---------------------------------------------------------------- more mistakes, each named by what the answer does
import transformer_nb.course.data as _named

def test_merges_applied_in_sorted_order_are_named():
    from transformer_nb.course.data import _bpe_learn, _merge_pair
    def segment(word, merges):
        syms = list(word) + ['</w>']
        for p in sorted(merges): syms = _merge_pair(syms, p)
        return syms
    assert_rejects(_named.check_bpe, _bpe_learn, segment,
                   says=r"segment\('abc', \[\('b', 'c'\), \('a', 'b'\)\]\) gave \['ab', 'c', '</w>'\].*merges applied in sorted or reversed order")

def test_a_segmentation_returned_as_a_string_is_named():
    from transformer_nb.course.data import _bpe_learn, _bpe_segment
    assert_rejects(_named.check_bpe, _bpe_learn, lambda word, merges: ' '.join(_bpe_segment(word, merges)),
                   says=r"segment\('lowest'\) returned the string 'low est</w>': return the list of its pieces")

def test_a_greedy_longest_match_segmentation_is_named():
    "Longest pieces first, whatever the merge order, is named with the orders of the merges that give the same pieces."
    from transformer_nb.course.data import _bpe_learn
    def segment(word, merges):
        pieces, s, out = {a + b for a, b in merges} | set(word) | {'</w>'}, word + '</w>', []
        while s:
            n = next(n for n in range(len(s), 0, -1) if s[:n] in pieces or n == 1); out.append(s[:n]); s = s[n:]
        return out
    assert_rejects(_named.check_bpe, _bpe_learn, segment,
                   says=r"segment\('abc', \[\('b', 'c'\), \('a', 'b'\)\]\) gave \['ab', 'c', '</w>'\].*sorted or reversed order, or a greedy longest match against the merged symbols")


def test_merges_recorded_as_strings_are_named_before_segment_reads_them():
    learn, segment = bpe()
    joined = lambda word_counts, n_merges: [a + b for a, b in learn(word_counts, n_merges)]
    unpacking = lambda word, merges: segment(word, [(a, b) for a, b in merges])    # 'est' does not unpack into a pair: a ValueError
    assert_rejects(_named.check_bpe, joined, unpacking, says=r"learn_bpe recorded the merge 'es': keep each merge as the pair of symbols it joined")

def test_an_end_of_word_mark_cut_off_the_last_piece_is_named():
    "segment that cuts '</w>' off its last piece is told so; one that never adds '</w>' before the merges is told that instead."
    learn, segment = bpe()
    def cut(word, merges):
        s = list(segment(word, merges)); s[-1] = s[-1].removesuffix('</w>'); return [p for p in s if p]
    assert_rejects(_named.check_bpe, learn, cut, says=r"segment\('lowest'\) gave \['low', 'est'\], not \['low', 'est</w>'\]: the end-of-word mark was cut off the last piece")
    assert_rejects(_named.check_bpe, *bpe("    syms = list(word) + ['</w>']\n    for pair", "    syms = list(word)\n    for pair"),
                   says=r"segment\('lowest'\) gave \['low', 'est'\], not .*: split the word into its characters plus '</w>'")

# ---------------------------------------------------------------- '</w>' glued to the last letter; a scan that keeps the right-hand symbol
def _learner_as(glued=False, step=2):
    "learn_bpe with '</w>' glued to each word's last letter (Sennrich's script), or a scan that moves on by `step` symbols after a merge."
    def merge(syms, pair):
        out, i = [], 0
        while i < len(syms):
            if i + 1 < len(syms) and (syms[i], syms[i + 1]) == pair: out.append(syms[i] + syms[i + 1]); i += step
            else: out.append(syms[i]); i += 1
        return out
    def learn_bpe(word_counts, n_merges):
        vocab, merges = {(tuple(w[:-1]) + (w[-1] + '</w>',) if glued else tuple(w) + ('</w>',)): c for w, c in word_counts.items()}, []
        for _ in range(n_merges):
            pairs = Counter()
            for syms, c in vocab.items():
                for p in zip(syms, syms[1:]): pairs[p] += c
            if not pairs: break
            best = min(pairs, key=lambda p: (-pairs[p], p)); merges.append(best)
            vocab = {tuple(merge(list(s), best)): c for s, c in vocab.items()}
        return merges
    def segment(word, merges):
        syms = list(word) + ['</w>']
        for p in merges: syms = merge(syms, p)
        return syms
    return learn_bpe, segment

def test_a_glued_end_of_word_and_a_merge_that_keeps_a_symbol_are_named():
    assert_rejects(_ex.check_bpe, *_learner_as(glued=True), says=r"merge 2 should be \('es', 't'\), yours is \('es', 't</w>'\): the first merge with '</w>' is "
                   r"\('es', 't</w>'\): '</w>' is glued to the word's last letter; it is a symbol of its own")
    assert_rejects(_ex.check_bpe, *_learner_as(step=1), says=r"yours is \('es', 's'\): the merge \('es', 's'\) joins 'ess', which no word holds: a word's symbols must always spell it")
    assert _ex.check_bpe(*_learner_as()) is True

# ---------------------------------------------------------------- a fresh blind set: wrong answers written before reading the messages
import re as _n9re
from nbtools import assert_rejects as _n9_rejects
from collections import Counter as _n9C
from transformer_nb.course.data import check_bpe as _n9_bpe
def _n9_merge(word, pair):
    out, i = [], 0
    while i < len(word):
        if i + 1 < len(word) and (word[i], word[i + 1]) == pair: out.append(word[i] + word[i + 1]); i += 2
        else: out.append(word[i]); i += 1
    return tuple(out)
def _n9_learn(weighted=True, eow=True, pick=lambda pairs: min(pairs, key=lambda p: (-pairs[p], p))):
    def learn_bpe(wc, n):
        ws, merges = {tuple(w) + ('</w>',) * eow: c for w, c in wc.items()}, []
        for _ in range(n):
            pairs = _n9C()
            for w, c in ws.items():
                for p in zip(w, w[1:]): pairs[p] += c if weighted else 1
            if not pairs: break
            best = pick(pairs); merges.append(best); ws = {_n9_merge(w, best): c for w, c in ws.items()}
        return merges
    return learn_bpe
def _n9_segment(eow=True, order=lambda m: m):
    def segment(word, merges):
        w = tuple(word) + ('</w>',) * eow
        for m in order(merges): w = _n9_merge(w, m)
        return list(w)
    return segment
NINTH = [('pair counts not weighted', _n9_bpe, (_n9_learn(weighted=False), _n9_segment()), "weight each pair by its word's count"),
         ('no end-of-word symbol', _n9_bpe, (_n9_learn(eow=False), _n9_segment(eow=False)), "end each word with the symbol '</w>'"),
         ('merges applied in reverse', _n9_bpe, (_n9_learn(), _n9_segment(order=lambda m: m[::-1])), "the merges applied in reversed"),
         ('ties to the largest pair', _n9_bpe, (_n9_learn(pick=lambda pairs: max(pairs, key=lambda p: (pairs[p], p))), _n9_segment()), "ties go to the smallest pair")]

def test_ninth_exercise_text_says_merges_are_pairs():
    "Exercise 5 says what check_bpe requires: each merge recorded as a pair, a tuple of two symbols."
    text = next(src for _, src in cells('08_data').values() if '`learn_bpe(word_counts, n_merges)`' in src)
    assert "records it as a pair, the tuple of the two symbols it joined, such as `('e', 's')`" in text
    assert _n9_bpe(_n9_learn(), _n9_segment()) is True
def _n9_first_only(word, pair):
    for i in range(len(word) - 1):
        if (word[i], word[i + 1]) == pair: return word[:i] + (word[i] + word[i + 1],) + word[i + 2:]
    return word
def _n9_learn_first(wc, n):
    ws, merges = {tuple(w) + ('</w>',): c for w, c in wc.items()}, []
    for _ in range(n):
        pairs = _n9C()
        for w, c in ws.items():
            for p in zip(w, w[1:]): pairs[p] += c
        if not pairs: break
        best = min(pairs, key=lambda p: (-pairs[p], p)); merges.append(best); ws = {_n9_first_only(w, best): c for w, c in ws.items()}
    return merges
NINTH += [('segment without </w>', _n9_bpe, (_n9_learn(), _n9_segment(eow=False)), "split the word into its characters plus '</w>'"),
          ('only the first occurrence merged', _n9_bpe, (_n9_learn_first, _n9_segment()), "merge every occurrence of the pair in each word")]

@pytest.mark.parametrize('label', [c[0] for c in NINTH])
def test_ninth_blind_answers_named(label):
    "Each answer of the blind set is refused with a message that names its mistake."
    _, check, answer, words = next(c for c in NINTH if c[0] == label)
    _n9_rejects(check, *answer, says=_n9re.escape(words))

# ---------------------------------------------------------------- the sixteenth blind set's misses
@pytest.mark.parametrize('answer, says', [
    (_bpe_by(start=('\u2581',), end=()), r"your words start with '\u2581', SentencePiece's mark of a word's start"),
    (_bpe_by(update=False), r"learn_bpe recorded \('e', 's'\) more than once: after each merge, merge that pair in every word"),
], ids=['word-start mark', 'words never merged'])
def test_the_sixteenth_sets_misses_are_named(answer, says):
    assert_rejects(check_bpe, *answer, says=says)

# ---------------------------------------------------------------- the eighteenth blind set's misses
def _bpe_stream(word_counts, n_merges):
    "minbpe's way: every word, as often as it occurs, in one stream of symbols, pairs counted across the words' boundaries."
    stream, merges = [s for w, c in word_counts.items() for _ in range(c) for s in list(w) + ['</w>']], []
    for _ in range(n_merges):
        pairs = _Counter(zip(stream, stream[1:]))
        if not pairs: break
        merges.append(min(pairs, key=lambda p: (-pairs[p], p)))
        i = 0
        while i < len(stream) - 1:
            if (stream[i], stream[i + 1]) == merges[-1]: stream[i:i + 2] = [stream[i] + stream[i + 1]]
            else: i += 1
    return merges

@pytest.mark.parametrize('answer, says', [
    (_bpe_by(least=2), r"learn_bpe stopped after 1 merge, while \('ab', '</w>'\) occurs 1 time \(a min_frequency of 2"),
    ((_bpe_stream, _bpe_by()[1]), r"joins a word's end to the next word's start: pairs were counted across word boundaries"),
    (_bpe_by(ranks=True), r"learn_bpe returned a dict \(pair -> rank, as the bpe_ranks of GPT-2\): return the list of the merges"),
], ids=['min_frequency 2', 'one stream', 'bpe_ranks'])
def test_the_eighteenth_sets_misses_are_named(answer, says):
    assert_rejects(check_bpe, *answer, says=says)


# ---------------------------------------------------------------- the twentieth blind set's misses (results/checker_answers.json)
def _bpe_pair(mark='</w>', lower=False, split=False, pieces=list):
    "learn_bpe and segment, right but for one slip: another end-of-word `mark`, words lower-cased, '</w>' `split` into characters, pieces returned as `pieces`."
    def syms(w): return list((w.lower() if lower else w) + '</w>') if split else list(w.lower() if lower else w) + [mark]
    def merge(s, pair):
        i = 0
        while i < len(s) - 1:
            if (s[i], s[i + 1]) == pair: s[i:i + 2] = [s[i] + s[i + 1]]
            else: i += 1
        return s
    def learn_bpe(word_counts, n_merges):
        vocab, merges = {tuple(syms(w)): c for w, c in word_counts.items()}, []
        for _ in range(n_merges):
            pairs = Counter()
            for s, c in vocab.items():
                for p in zip(s, s[1:]): pairs[p] += c
            if not pairs: break
            merges.append(best := min(pairs, key=lambda p: (-pairs[p], p)))
            vocab = {tuple(merge(list(s), best)): c for s, c in vocab.items()}
        return merges
    def segment(word, merges):
        s = syms(word)
        for p in merges: s = merge(s, p)
        return pieces(s)
    return learn_bpe, segment

@pytest.mark.parametrize('kw, says', [
    (dict(mark='_'), r"your words end with the symbol '_' \(d2l's end-of-word mark is '_'\): Sennrich et al.'s is '</w>'"),
    (dict(split=True), r"pieces of '</w>': it was split into its characters, list\(word \+ '</w>'\)"),
    (dict(lower=True), r"learn_bpe\(\{'Abc': 2, 'abd': 1\}, 1\) gave \[\('a', 'b'\)\], not \[\('A', 'b'\)\]: the words were lower-cased"),
    (dict(pieces=tuple), r"segment\('lowest'\) returned a tuple, \('low', 'est</w>'\): return a list of its pieces")])
def test_other_marks_case_and_containers_are_named(kw, says):
    assert_rejects(check_bpe, *_bpe_pair(**kw), says=says)

def test_the_slips_helper_is_right_without_a_slip():
    import contextlib, io
    with contextlib.redirect_stdout(io.StringIO()): assert check_bpe(*_bpe_pair()) is True

# --- the twenty-second blind set's answers that the checks first missed, each named now --------------------------------
from nbtools import assert_rejects as _t22_rejects
from transformer_nb.course.data import check_bpe as _t22_bpe
_T22_PRELUDE = "import math, torch, torch.nn.functional as F\nfrom collections import Counter\nfrom transformer_nb.core import *\n"
def _t22_answer(code:str, *names):
    "The answer's functions, its code run in a fresh namespace with the notebook's imports."
    ns = {}; exec(_T22_PRELUDE + code, ns); return tuple(ns[n] for n in names)
TWENTY_SECOND = [   # (label, the answer's code, its names, the check, what its message must say)
    ('n_merges ignored, ten merges', "\ndef _merge(syms, pair):\n    i = 0\n    while i < len(syms) - 1:\n        if (syms[i], syms[i + 1]) == pair: syms[i:i + 2] = [syms[i] + syms[i + 1]]\n        else: i += 1\n    return syms\n\ndef learn_bpe(word_counts, n_merges):\n    vocab = {tuple(w) + ('</w>',): c for w, c in word_counts.items()}\n    merges = []\n    for _ in range(10):\n        pairs = Counter()\n        for syms, c in vocab.items():\n            for a, b in zip(syms, syms[1:]): pairs[a, b] += c\n        if not pairs: break\n        best = min(pairs, key=lambda p: (-pairs[p], p))\n        merges.append(best)\n        vocab = {tuple(_merge(list(syms), best)): c for syms, c in vocab.items()}\n    return merges\n\ndef segment(word, merges):\n    syms = list(word) + ['</w>']\n    for pair in merges: syms = _merge(syms, pair)\n    return syms\n",
     ('learn_bpe', 'segment'), _t22_bpe, 'n_merges is 1 here, and yours made 4 merges'),
    ("subword-nmt's '@@' output", "\ndef _merge(syms, pair):\n    i = 0\n    while i < len(syms) - 1:\n        if (syms[i], syms[i + 1]) == pair: syms[i:i + 2] = [syms[i] + syms[i + 1]]\n        else: i += 1\n    return syms\n\ndef learn_bpe(word_counts, n_merges):\n    vocab = {tuple(w) + ('</w>',): c for w, c in word_counts.items()}\n    merges = []\n    for _ in range(n_merges):\n        pairs = Counter()\n        for syms, c in vocab.items():\n            for a, b in zip(syms, syms[1:]): pairs[a, b] += c\n        if not pairs: break\n        best = min(pairs, key=lambda p: (-pairs[p], p))\n        merges.append(best)\n        vocab = {tuple(_merge(list(syms), best)): c for syms, c in vocab.items()}\n    return merges\n\ndef segment(word, merges):\n    syms = list(word) + ['</w>']\n    for pair in merges: syms = _merge(syms, pair)\n    syms[-1] = syms[-1][:-len('</w>')]\n    if not syms[-1]: syms.pop()\n    return [s + '@@' for s in syms[:-1]] + syms[-1:]",
     ('learn_bpe', 'segment'), _t22_bpe, "that is subword-nmt's output, '@@' on each piece but the last"),
]

@pytest.mark.parametrize('label, code, names, check, says', TWENTY_SECOND, ids=[r[0] for r in TWENTY_SECOND])
def test_twenty_second_blind_answers_named(label, code, names, check, says):
    _t22_rejects(check, *_t22_answer(code, *names), says=says)

# --- the twenty-fifth blind set's answers that the checks first missed, each named now ---------------------------------
from nbtools import assert_rejects as _t25_rejects
from transformer_nb.course.data import check_bpe as _t25_bpe
_T25_PRELUDE = 'import math, torch, torch.nn.functional as F\nfrom collections import Counter\nfrom transformer_nb.core import *\n'
def _t25_answer(code:str, *names):
    "The answer's functions, its code run in a fresh namespace with the notebook's imports."
    ns = {}; exec(_T25_PRELUDE + code, ns); return tuple(ns[n] for n in names)
TWENTY_FIFTH = [   # (label, the answer's code, its names, the check, what its message must say)
    ('ties by the joined string', "\ndef _merge(syms, pair):\n    i = 0\n    while i < len(syms) - 1:\n        if (syms[i], syms[i + 1]) == pair: syms[i:i + 2] = [syms[i] + syms[i + 1]]\n        else: i += 1\n    return syms\n\ndef learn_bpe(word_counts, n_merges):\n    vocab = {tuple(w) + ('</w>',): c for w, c in word_counts.items()}\n    merges = []\n    for _ in range(n_merges):\n        pairs = Counter()\n        for syms, c in vocab.items():\n            for a, b in zip(syms, syms[1:]): pairs[a, b] += c\n        if not pairs: break\n        best = min(pairs, key=lambda p: (-pairs[p], p[0] + p[1]))\n        merges.append(best)\n        vocab = {tuple(_merge(list(syms), best)): c for syms, c in vocab.items()}\n    return merges\n\ndef segment(word, merges):\n    syms = list(word) + ['</w>']\n    for pair in merges: syms = _merge(syms, pair)\n    return syms\n",
     ('learn_bpe', 'segment'), _t25_bpe, 'yours\\ compares\\ the\\ joined\\ strings'),
    ('merges applied twice', "\ndef _merge(syms, pair):\n    i = 0\n    while i < len(syms) - 1:\n        if (syms[i], syms[i + 1]) == pair: syms[i:i + 2] = [syms[i] + syms[i + 1]]\n        else: i += 1\n    return syms\n\ndef learn_bpe(word_counts, n_merges):\n    vocab = {tuple(w) + ('</w>',): c for w, c in word_counts.items()}\n    merges = []\n    for _ in range(n_merges):\n        pairs = Counter()\n        for syms, c in vocab.items():\n            for a, b in zip(syms, syms[1:]): pairs[a, b] += c\n        if not pairs: break\n        best = min(pairs, key=lambda p: (-pairs[p], p))\n        merges.append(best)\n        vocab = {tuple(_merge(list(syms), best)): c for syms, c in vocab.items()}\n    return merges\n\ndef segment(word, merges):\n    syms = list(word) + ['</w>']\n    for _ in range(2):\n        for pair in merges: syms = _merge(syms, pair)\n    return syms\n",
     ('learn_bpe', 'segment'), _t25_bpe, 'the\\ merges\\ were\\ applied\\ twice'),
    ('segment lower-cases', "\ndef _merge(syms, pair):\n    i = 0\n    while i < len(syms) - 1:\n        if (syms[i], syms[i + 1]) == pair: syms[i:i + 2] = [syms[i] + syms[i + 1]]\n        else: i += 1\n    return syms\n\ndef learn_bpe(word_counts, n_merges):\n    vocab = {tuple(w) + ('</w>',): c for w, c in word_counts.items()}\n    merges = []\n    for _ in range(n_merges):\n        pairs = Counter()\n        for syms, c in vocab.items():\n            for a, b in zip(syms, syms[1:]): pairs[a, b] += c\n        if not pairs: break\n        best = min(pairs, key=lambda p: (-pairs[p], p))\n        merges.append(best)\n        vocab = {tuple(_merge(list(syms), best)): c for syms, c in vocab.items()}\n    return merges\n\ndef segment(word, merges):\n    syms = list(word.lower()) + ['</w>']\n    for pair in merges: syms = _merge(syms, pair)\n    return syms\n",
     ('learn_bpe', 'segment'), _t25_bpe, 'the\\ word\\ was\\ lower\\-cased'),
    ('n_merges as a vocabulary size', "\ndef _merge(syms, pair):\n    i = 0\n    while i < len(syms) - 1:\n        if (syms[i], syms[i + 1]) == pair: syms[i:i + 2] = [syms[i] + syms[i + 1]]\n        else: i += 1\n    return syms\n\ndef learn_bpe(word_counts, n_merges):\n    n_merges = n_merges - len({s for w in word_counts for s in w} | {'</w>'})\n    vocab = {tuple(w) + ('</w>',): c for w, c in word_counts.items()}\n    merges = []\n    for _ in range(n_merges):\n        pairs = Counter()\n        for syms, c in vocab.items():\n            for a, b in zip(syms, syms[1:]): pairs[a, b] += c\n        if not pairs: break\n        best = min(pairs, key=lambda p: (-pairs[p], p))\n        merges.append(best)\n        vocab = {tuple(_merge(list(syms), best)): c for syms, c in vocab.items()}\n    return merges\n\ndef segment(word, merges):\n    syms = list(word) + ['</w>']\n    for pair in merges: syms = _merge(syms, pair)\n    return syms\n",
     ('learn_bpe', 'segment'), _t25_bpe, 'not\\ a\\ vocabulary\\ size'),
    ("'</w>' out of the pairs", "\ndef _merge(syms, pair):\n    i = 0\n    while i < len(syms) - 1:\n        if (syms[i], syms[i + 1]) == pair: syms[i:i + 2] = [syms[i] + syms[i + 1]]\n        else: i += 1\n    return syms\n\ndef learn_bpe(word_counts, n_merges):\n    vocab = {tuple(w) + ('</w>',): c for w, c in word_counts.items()}\n    merges = []\n    for _ in range(n_merges):\n        pairs = Counter()\n        for syms, c in vocab.items():\n            for a, b in zip(syms[:-1], syms[1:-1]): pairs[a, b] += c\n        if not pairs: break\n        best = min(pairs, key=lambda p: (-pairs[p], p))\n        merges.append(best)\n        vocab = {tuple(_merge(list(syms), best)): c for syms, c in vocab.items()}\n    return merges\n\ndef segment(word, merges):\n    syms = list(word) + ['</w>']\n    for pair in merges: syms = _merge(syms, pair)\n    return syms\n",
     ('learn_bpe', 'segment'), _t25_bpe, "count\\ the\\ pair\\ it\\ makes\\ with\\ the\\ word's\\ last\\ symbol"),
    ('a merge in the first word only', "\ndef _merge(syms, pair):\n    i = 0\n    while i < len(syms) - 1:\n        if (syms[i], syms[i + 1]) == pair: syms[i:i + 2] = [syms[i] + syms[i + 1]]\n        else: i += 1\n    return syms\n\ndef learn_bpe(word_counts, n_merges):\n    vocab = {tuple(w) + ('</w>',): c for w, c in word_counts.items()}\n    merges = []\n    for _ in range(n_merges):\n        pairs = Counter()\n        for syms, c in vocab.items():\n            for a, b in zip(syms, syms[1:]): pairs[a, b] += c\n        if not pairs: break\n        best = min(pairs, key=lambda p: (-pairs[p], p))\n        merges.append(best)\n        for syms in list(vocab):\n            if best in zip(syms, syms[1:]): vocab[tuple(_merge(list(syms), best))] = vocab.pop(syms); break\n    return merges\n\ndef segment(word, merges):\n    syms = list(word) + ['</w>']\n    for pair in merges: syms = _merge(syms, pair)\n    return syms\n",
     ('learn_bpe', 'segment'), _t25_bpe, 'yours\\ merged\\ it\\ in\\ the\\ first\\ word\\ found\\ only'),
]

@pytest.mark.parametrize('label, code, names, check, says', TWENTY_FIFTH, ids=[r[0] for r in TWENTY_FIFTH])
def test_twenty_fifth_blind_answers_named(label, code, names, check, says):
    _t25_rejects(check, *_t25_answer(code, *names), says=says)

# --- the twenty-seventh blind set's answers that the checks first missed, each named now ---------------------------------
from nbtools import assert_rejects as _t27_rejects
from transformer_nb.course.data import check_bpe as _t27_check_bpe
_T27_PRELUDE = 'import math, torch, torch.nn.functional as F\nfrom collections import Counter\nfrom transformer_nb.core import *\n'
def _t27_answer(code:str, *names):
    "The answer's functions, its code run in a fresh namespace with the notebook's imports."
    ns = {}; exec(_T27_PRELUDE + code, ns); return tuple(ns[n] for n in names)
TWENTY_SEVENTH = [   # (label, the answer's code, its names, the check, what its message must say)
    ('byte-level symbols', "\ndef _merge(syms, pair):\n    i = 0\n    while i < len(syms) - 1:\n        if (syms[i], syms[i + 1]) == pair: syms[i:i + 2] = [syms[i] + syms[i + 1]]\n        else: i += 1\n    return syms\n\ndef learn_bpe(word_counts, n_merges):\n    vocab = {tuple(chr(b) for b in w.encode('utf-8')) + ('</w>',): c for w, c in word_counts.items()}\n    merges = []\n    for _ in range(n_merges):\n        pairs = Counter()\n        for syms, c in vocab.items():\n            for a, b in zip(syms, syms[1:]): pairs[a, b] += c\n        if not pairs: break\n        best = min(pairs, key=lambda p: (-pairs[p], p))\n        merges.append(best)\n        vocab = {tuple(_merge(list(syms), best)): c for syms, c in vocab.items()}\n    return merges\n\ndef segment(word, merges):\n    syms = [chr(b) for b in word.encode('utf-8')] + ['</w>']\n    for pair in merges: syms = _merge(syms, pair)\n    return syms\n",
     ('learn_bpe', 'segment'), _t27_check_bpe, 'was\\ split\\ into\\ its\\ UTF\\-8\\ bytes'),
    ('one stream, merged per word', "\ndef _merge(syms, pair):\n    i = 0\n    while i < len(syms) - 1:\n        if (syms[i], syms[i + 1]) == pair: syms[i:i + 2] = [syms[i] + syms[i + 1]]\n        else: i += 1\n    return syms\n\ndef learn_bpe(word_counts, n_merges):\n    vocab = {tuple(w) + ('</w>',): c for w, c in word_counts.items()}\n    merges = []\n    for _ in range(n_merges):\n        pairs = Counter()\n        stream = [s for syms, c in vocab.items() for _ in range(c) for s in syms]\n        for a, b in zip(stream, stream[1:]): pairs[a, b] += 1\n        if not pairs: break\n        best = min(pairs, key=lambda p: (-pairs[p], p))\n        merges.append(best)\n        vocab = {tuple(_merge(list(syms), best)): c for syms, c in vocab.items()}\n    return merges\n\ndef segment(word, merges):\n    syms = list(word) + ['</w>']\n    for pair in merges: syms = _merge(syms, pair)\n    return syms\n",
     ('learn_bpe', 'segment'), _t27_check_bpe, 'pairs\\ were\\ counted\\ across\\ word\\ boundaries'),
    ('a cache in a default argument', "\ndef _merge(syms, pair):\n    i = 0\n    while i < len(syms) - 1:\n        if (syms[i], syms[i + 1]) == pair: syms[i:i + 2] = [syms[i] + syms[i + 1]]\n        else: i += 1\n    return syms\n\ndef learn_bpe(word_counts, n_merges):\n    vocab = {tuple(w) + ('</w>',): c for w, c in word_counts.items()}\n    merges = []\n    for _ in range(n_merges):\n        pairs = Counter()\n        for syms, c in vocab.items():\n            for a, b in zip(syms, syms[1:]): pairs[a, b] += c\n        if not pairs: break\n        best = min(pairs, key=lambda p: (-pairs[p], p))\n        merges.append(best)\n        vocab = {tuple(_merge(list(syms), best)): c for syms, c in vocab.items()}\n    return merges\n\ndef segment(word, merges, cache={}):\n    if word in cache: return cache[word]\n    syms = list(word) + ['</w>']\n    for pair in merges: syms = _merge(syms, pair)\n    cache[word] = syms\n    return syms\n",
     ('learn_bpe', 'segment'), _t27_check_bpe, 'keeps\\ the\\ pieces\\ of\\ an\\ earlier\\ call'),
]

@pytest.mark.parametrize('label, code, names, check, says', TWENTY_SEVENTH, ids=[r[0] for r in TWENTY_SEVENTH])
def test_twenty_seventh_blind_answers_named(label, code, names, check, says):
    _t27_rejects(check, *_t27_answer(code, *names), says=says)

# --- the thirtieth blind set's answers that the checks first missed, each named now --------------------------------------
from nbtools import assert_rejects as _t30_rejects
from transformer_nb.course.data import check_bpe as _t30_check_bpe
_T30_PRELUDE = 'import math, torch, torch.nn.functional as F\nfrom collections import Counter\nfrom transformer_nb.core import *\n'
def _t30_answer(code:str, *names):
    "The answer's functions, its code run in a fresh namespace with the notebook's imports."
    ns = {}; exec(_T30_PRELUDE + code, ns); return tuple(ns[n] for n in names)
THIRTIETH = [   # (label, the answer's code, its names, the check, what its message must say)
    ('merges stop at n_merges only after one more', "\ndef _merge(syms, pair):\n    i = 0\n    while i < len(syms) - 1:\n        if (syms[i], syms[i + 1]) == pair: syms[i:i + 2] = [syms[i] + syms[i + 1]]\n        else: i += 1\n    return syms\n\ndef learn_bpe(word_counts, n_merges):\n    vocab = {tuple(w) + ('</w>',): c for w, c in word_counts.items()}\n    merges = []\n    while True:\n        pairs = Counter()\n        for syms, c in vocab.items():\n            for a, b in zip(syms, syms[1:]): pairs[a, b] += c\n        if not pairs: break\n        best = min(pairs, key=lambda p: (-pairs[p], p))\n        merges.append(best)\n        vocab = {tuple(_merge(list(syms), best)): c for syms, c in vocab.items()}\n        if len(merges) >= max(n_merges, 1): break\n    return merges\n\ndef segment(word, merges):\n    syms = list(word) + ['</w>']\n    for pair in merges: syms = _merge(syms, pair)\n    return syms\n",
     ('learn_bpe', 'segment'), _t30_check_bpe, 'yours\\ makes\\ one\\ before\\ it\\ tests\\ the\\ count'),
    ('a new list built with the loop bound', "\ndef _merge(syms, pair):\n    out, i = [], 0\n    while i < len(syms) - 1:\n        if (syms[i], syms[i + 1]) == pair: out.append(syms[i] + syms[i + 1]); i += 2\n        else: out.append(syms[i]); i += 1\n    return out\n\ndef learn_bpe(word_counts, n_merges):\n    vocab = {tuple(w) + ('</w>',): c for w, c in word_counts.items()}\n    merges = []\n    for _ in range(n_merges):\n        pairs = Counter()\n        for syms, c in vocab.items():\n            for a, b in zip(syms, syms[1:]): pairs[a, b] += c\n        if not pairs: break\n        best = min(pairs, key=lambda p: (-pairs[p], p))\n        merges.append(best)\n        vocab = {tuple(_merge(list(syms), best)): c for syms, c in vocab.items()}\n    return merges\n\ndef segment(word, merges):\n    syms = list(word) + ['</w>']\n    for pair in merges: syms = _merge(syms, pair)\n    return syms\n",
     ('learn_bpe', 'segment'), _t30_check_bpe, 'your\\ merges\\ lose\\ symbols,\\ so\\ the\\ words\\ shrink'),
    ("segment keyed by a merge's rank", "\ndef _merge(syms, pair):\n    i = 0\n    while i < len(syms) - 1:\n        if (syms[i], syms[i + 1]) == pair: syms[i:i + 2] = [syms[i] + syms[i + 1]]\n        else: i += 1\n    return syms\n\ndef learn_bpe(word_counts, n_merges):\n    vocab = {tuple(w) + ('</w>',): c for w, c in word_counts.items()}\n    merges = []\n    for _ in range(n_merges):\n        pairs = Counter()\n        for syms, c in vocab.items():\n            for a, b in zip(syms, syms[1:]): pairs[a, b] += c\n        if not pairs: break\n        best = min(pairs, key=lambda p: (-pairs[p], p))\n        merges.append(best)\n        vocab = {tuple(_merge(list(syms), best)): c for syms, c in vocab.items()}\n    return merges\n\ndef segment(word, merges, _ranks={}):\n    if not _ranks: _ranks.update({p: i for i, p in enumerate(merges)})\n    syms = list(word) + ['</w>']\n    while True:\n        cands = [(_ranks[p], i) for i, p in enumerate(zip(syms, syms[1:])) if p in _ranks]\n        if not cands: return syms\n        _, i = min(cands)\n        syms[i:i + 2] = [syms[i] + syms[i + 1]]\n",
     ('learn_bpe', 'segment'), _t30_check_bpe, 'your\\ segment\\ uses\\ merges\\ kept\\ from\\ an\\ earlier\\ call'),
    ("segment's own merge loses symbols (a variant)", "\ndef _merge(syms, pair):\n    i = 0\n    while i < len(syms) - 1:\n        if (syms[i], syms[i + 1]) == pair: syms[i:i + 2] = [syms[i] + syms[i + 1]]\n        else: i += 1\n    return syms\n\ndef learn_bpe(word_counts, n_merges):\n    vocab = {tuple(w) + ('</w>',): c for w, c in word_counts.items()}\n    merges = []\n    for _ in range(n_merges):\n        pairs = Counter()\n        for syms, c in vocab.items():\n            for a, b in zip(syms, syms[1:]): pairs[a, b] += c\n        if not pairs: break\n        best = min(pairs, key=lambda p: (-pairs[p], p))\n        merges.append(best)\n        vocab = {tuple(_merge(list(syms), best)): c for syms, c in vocab.items()}\n    return merges\n\ndef segment(word, merges):\n    syms = list(word) + ['</w>']\n    for p in merges:\n        out, i = [], 0\n        while i < len(syms) - 1:\n            if (syms[i], syms[i + 1]) == p: out.append(syms[i] + syms[i + 1]); i += 2\n            else: out.append(syms[i]); i += 1\n        syms = out\n    return syms\n",
     ('learn_bpe', 'segment'), _t30_check_bpe, "your\\ pieces\\ spell\\ '',\\ not\\ 'lowest</w>':\\ symbols\\ were\\ lost"),
    ('segment reads a global set by learn_bpe (a variant)', "\ndef _merge(syms, pair):\n    i = 0\n    while i < len(syms) - 1:\n        if (syms[i], syms[i + 1]) == pair: syms[i:i + 2] = [syms[i] + syms[i + 1]]\n        else: i += 1\n    return syms\n\nMERGES = []\ndef learn_bpe(word_counts, n_merges):\n    vocab = {tuple(w) + ('</w>',): c for w, c in word_counts.items()}\n    merges = []\n    for _ in range(n_merges):\n        pairs = Counter()\n        for syms, c in vocab.items():\n            for a, b in zip(syms, syms[1:]): pairs[a, b] += c\n        if not pairs: break\n        best = min(pairs, key=lambda p: (-pairs[p], p))\n        merges.append(best)\n        vocab = {tuple(_merge(list(syms), best)): c for syms, c in vocab.items()}\n    if not MERGES: MERGES.extend(merges)\n    return merges\ndef segment(word, merges):\n    syms = list(word) + ['</w>']\n    for pair in MERGES: syms = _merge(syms, pair)\n    return syms\n",
     ('learn_bpe', 'segment'), _t30_check_bpe, 'your\\ segment\\ uses\\ merges\\ kept\\ from\\ an\\ earlier\\ call'),
]

@pytest.mark.parametrize('label, code, names, check, says', THIRTIETH, ids=[r[0] for r in THIRTIETH])
def test_thirtieth_blind_answers_named(label, code, names, check, says):
    _t30_rejects(check, *_t30_answer(code, *names), says=says)

# --- the thirty-fourth blind set's answers that the checks first missed, each named now (and a variant of some) ---------
from nbtools import assert_rejects as _t34_rejects
_T34_PRELUDE = 'import math, re, torch, torch.nn.functional as F\nfrom collections import Counter\nfrom transformer_nb.core import *\n'
THIRTY_FOURTH = [   # (label, the answer's code, what its message must say)
    ('str.count on the joined symbols', "\ndef _merge(syms, pair):\n    i = 0\n    while i < len(syms) - 1:\n        if (syms[i], syms[i + 1]) == pair: syms[i:i + 2] = [syms[i] + syms[i + 1]]\n        else: i += 1\n    return syms\n\ndef learn_bpe(word_counts, n_merges):\n    vocab = {tuple(w) + ('</w>',): c for w, c in word_counts.items()}\n    merges = []\n    for _ in range(n_merges):\n        pairs = Counter()\n        for syms, c in vocab.items():\n            s = ' ' + ' '.join(syms) + ' '\n            for a, b in set(zip(syms, syms[1:])): pairs[a, b] += c * s.count(' ' + a + ' ' + b + ' ')\n        if not pairs: break\n        best = min(pairs, key=lambda p: (-pairs[p], p))\n        merges.append(best)\n        vocab = {tuple(_merge(list(syms), best)): c for syms, c in vocab.items()}\n    return merges\n\ndef segment(word, merges):\n    syms = list(word) + ['</w>']\n    for pair in merges: syms = _merge(syms, pair)\n    return syms\n",
     'overlapping\\ occurrences\\ were\\ counted\\ as\\ one'),
    ('re.findall on the joined symbols (a variant)', "\ndef _merge(syms, pair):\n    i = 0\n    while i < len(syms) - 1:\n        if (syms[i], syms[i + 1]) == pair: syms[i:i + 2] = [syms[i] + syms[i + 1]]\n        else: i += 1\n    return syms\n\ndef learn_bpe(word_counts, n_merges):\n    vocab = {tuple(w) + ('</w>',): c for w, c in word_counts.items()}\n    merges = []\n    for _ in range(n_merges):\n        pairs = Counter()\n        for syms, c in vocab.items():\n            for a, b in set(zip(syms, syms[1:])): pairs[a, b] += c * len(re.findall(re.escape(a + ' ' + b), ' '.join(syms)))\n        if not pairs: break\n        best = min(pairs, key=lambda p: (-pairs[p], p))\n        merges.append(best)\n        vocab = {tuple(_merge(list(syms), best)): c for syms, c in vocab.items()}\n    return merges\n\ndef segment(word, merges):\n    syms = list(word) + ['</w>']\n    for pair in merges: syms = _merge(syms, pair)\n    return syms\n",
     'overlapping\\ occurrences\\ were\\ counted\\ as\\ one'),
    ('the merges applied longest first', "\ndef _merge(syms, pair):\n    i = 0\n    while i < len(syms) - 1:\n        if (syms[i], syms[i + 1]) == pair: syms[i:i + 2] = [syms[i] + syms[i + 1]]\n        else: i += 1\n    return syms\n\ndef learn_bpe(word_counts, n_merges):\n    vocab = {tuple(w) + ('</w>',): c for w, c in word_counts.items()}\n    merges = []\n    for _ in range(n_merges):\n        pairs = Counter()\n        for syms, c in vocab.items():\n            for a, b in zip(syms, syms[1:]): pairs[a, b] += c\n        if not pairs: break\n        best = min(pairs, key=lambda p: (-pairs[p], p))\n        merges.append(best)\n        vocab = {tuple(_merge(list(syms), best)): c for syms, c in vocab.items()}\n    return merges\n\ndef segment(word, merges):\n    syms = list(word) + ['</w>']\n    for pair in sorted(merges, key=lambda p: -len(p[0] + p[1])): syms = _merge(syms, pair)\n    return syms\n",
     'longest\\-first\\ order'),
    ('longest first by sorted(..., reverse=True) (a variant)', "\ndef _merge(syms, pair):\n    i = 0\n    while i < len(syms) - 1:\n        if (syms[i], syms[i + 1]) == pair: syms[i:i + 2] = [syms[i] + syms[i + 1]]\n        else: i += 1\n    return syms\n\ndef learn_bpe(word_counts, n_merges):\n    vocab = {tuple(w) + ('</w>',): c for w, c in word_counts.items()}\n    merges = []\n    for _ in range(n_merges):\n        pairs = Counter()\n        for syms, c in vocab.items():\n            for a, b in zip(syms, syms[1:]): pairs[a, b] += c\n        if not pairs: break\n        best = min(pairs, key=lambda p: (-pairs[p], p))\n        merges.append(best)\n        vocab = {tuple(_merge(list(syms), best)): c for syms, c in vocab.items()}\n    return merges\n\ndef segment(word, merges):\n    syms = list(word) + ['</w>']\n    for pair in sorted(merges, key=lambda p: len(''.join(p)), reverse=True): syms = _merge(syms, pair)\n    return syms\n",
     'longest\\-first\\ order'),
    ('the counts zipped with the sorted words', "\ndef _merge(syms, pair):\n    i = 0\n    while i < len(syms) - 1:\n        if (syms[i], syms[i + 1]) == pair: syms[i:i + 2] = [syms[i] + syms[i + 1]]\n        else: i += 1\n    return syms\n\ndef learn_bpe(word_counts, n_merges):\n    vocab = dict(zip(sorted(tuple(w) + ('</w>',) for w in word_counts), word_counts.values()))\n    merges = []\n    for _ in range(n_merges):\n        pairs = Counter()\n        for syms, c in vocab.items():\n            for a, b in zip(syms, syms[1:]): pairs[a, b] += c\n        if not pairs: break\n        best = min(pairs, key=lambda p: (-pairs[p], p))\n        merges.append(best)\n        vocab = {tuple(_merge(list(syms), best)): c for syms, c in vocab.items()}\n    return merges\n\ndef segment(word, merges):\n    syms = list(word) + ['</w>']\n    for pair in merges: syms = _merge(syms, pair)\n    return syms\n",
     'the\\ counts\\ give\\ when\\ they\\ go\\ to\\ other\\ words'),
    ('the words zipped with the sorted counts (a variant)', "\ndef _merge(syms, pair):\n    i = 0\n    while i < len(syms) - 1:\n        if (syms[i], syms[i + 1]) == pair: syms[i:i + 2] = [syms[i] + syms[i + 1]]\n        else: i += 1\n    return syms\n\ndef learn_bpe(word_counts, n_merges):\n    vocab = {tuple(w) + ('</w>',): c for w, c in zip(word_counts, sorted(word_counts.values()))}\n    merges = []\n    for _ in range(n_merges):\n        pairs = Counter()\n        for syms, c in vocab.items():\n            for a, b in zip(syms, syms[1:]): pairs[a, b] += c\n        if not pairs: break\n        best = min(pairs, key=lambda p: (-pairs[p], p))\n        merges.append(best)\n        vocab = {tuple(_merge(list(syms), best)): c for syms, c in vocab.items()}\n    return merges\n\ndef segment(word, merges):\n    syms = list(word) + ['</w>']\n    for pair in merges: syms = _merge(syms, pair)\n    return syms\n",
     'the\\ counts\\ give\\ when\\ they\\ go\\ to\\ other\\ words'),
    ('one pass joining neighbours', "\ndef _merge(syms, pair):\n    i = 0\n    while i < len(syms) - 1:\n        if (syms[i], syms[i + 1]) == pair: syms[i:i + 2] = [syms[i] + syms[i + 1]]\n        else: i += 1\n    return syms\n\ndef learn_bpe(word_counts, n_merges):\n    vocab = {tuple(w) + ('</w>',): c for w, c in word_counts.items()}\n    merges = []\n    for _ in range(n_merges):\n        pairs = Counter()\n        for syms, c in vocab.items():\n            for a, b in zip(syms, syms[1:]): pairs[a, b] += c\n        if not pairs: break\n        best = min(pairs, key=lambda p: (-pairs[p], p))\n        merges.append(best)\n        vocab = {tuple(_merge(list(syms), best)): c for syms, c in vocab.items()}\n    return merges\n\ndef segment(word, merges):\n    rank = {p: i for i, p in enumerate(merges)}\n    syms, out = list(word) + ['</w>'], []\n    for s in syms:\n        if out and (out[-1], s) in rank: out[-1] = out[-1] + s\n        else: out.append(s)\n    return out\n",
     'one\\ pass\\ left\\ to\\ right\\ that\\ joins\\ each\\ symbol'),
]

@pytest.mark.parametrize('label, code, says', THIRTY_FOURTH, ids=[r[0] for r in THIRTY_FOURTH])
def test_thirty_fourth_blind_answers_named(label, code, says):
    ns = {}; exec(_T34_PRELUDE + code, ns)
    _t34_rejects(check_bpe, ns['learn_bpe'], ns['segment'], says=says)

# --- the thirty-eighth blind set's answers that the checks first missed, each named now; and a variant of most, on the solution ---
from nbtools import assert_rejects as _t38_rejects
_T38_PRELUDE = 'import math, re, torch, torch.nn.functional as F\nfrom collections import Counter\nfrom transformer_nb.core import *\n'
THIRTY_EIGHTH = [   # (label, the answer's code, what its message must say)
    ('a regex bounded by \\b', "\nimport re\ndef _apply(pair, words):\n    pat = re.compile(r'\\b' + re.escape(' '.join(pair)) + r'\\b')\n    return {pat.sub(''.join(pair), w): c for w, c in words.items()}\n\ndef learn_bpe(word_counts, n_merges):\n    words = {' '.join(w) + ' </w>': c for w, c in word_counts.items()}\n    merges = []\n    for _ in range(n_merges):\n        pairs = Counter()\n        for w, c in words.items():\n            s = w.split()\n            for a, b in zip(s, s[1:]): pairs[a, b] += c\n        if not pairs: break\n        best = min(pairs, key=lambda p: (-pairs[p], p))\n        merges.append(best)\n        words = _apply(best, words)\n    return merges\n\ndef segment(word, merges):\n    w = {' '.join(word) + ' </w>': 1}\n    for pair in merges: w = _apply(pair, w)\n    return next(iter(w)).split()\n",
     "your\\ merge\\ never\\ joins\\ a\\ pair\\ that\\ ends\\ in\\ '</w>'"),
    ('one Counter before the loop', "\ndef _merge(syms, pair):\n    out, i = [], 0\n    while i < len(syms):\n        if i < len(syms) - 1 and (syms[i], syms[i + 1]) == pair: out.append(syms[i] + syms[i + 1]); i += 2\n        else: out.append(syms[i]); i += 1\n    return out\n\ndef learn_bpe(word_counts, n_merges):\n    vocab = {tuple(w) + ('</w>',): c for w, c in word_counts.items()}\n    merges = []\n    pairs = Counter()\n    for _ in range(n_merges):\n        for syms, c in vocab.items():\n            for a, b in zip(syms, syms[1:]): pairs[a, b] += c\n        if not pairs: break\n        best = min(pairs, key=lambda p: (-pairs[p], p))\n        merges.append(best)\n        vocab = {tuple(_merge(list(s), best)): c for s, c in vocab.items()}\n    return merges\n\ndef segment(word, merges):\n    syms = list(word) + ['</w>']\n    for pair in merges: syms = _merge(syms, pair)\n    return syms\n",
     "yours\\ adds\\ each\\ round's\\ counts\\ to\\ the\\ rounds'\\ before"),
    ('a count set, not added', "\ndef _merge(syms, pair):\n    out, i = [], 0\n    while i < len(syms):\n        if i < len(syms) - 1 and (syms[i], syms[i + 1]) == pair: out.append(syms[i] + syms[i + 1]); i += 2\n        else: out.append(syms[i]); i += 1\n    return out\n\ndef learn_bpe(word_counts, n_merges):\n    vocab = {tuple(w) + ('</w>',): c for w, c in word_counts.items()}\n    merges = []\n    for _ in range(n_merges):\n        pairs = Counter()\n        for syms, c in vocab.items():\n            for a, b in zip(syms, syms[1:]): pairs[a, b] = c\n        if not pairs: break\n        best = min(pairs, key=lambda p: (-pairs[p], p))\n        merges.append(best)\n        vocab = {tuple(_merge(list(s), best)): c for s, c in vocab.items()}\n    return merges\n\ndef segment(word, merges):\n    syms = list(word) + ['</w>']\n    for pair in merges: syms = _merge(syms, pair)\n    return syms\n",
     'yours\\ sets\\ it,\\ pairs\\[p\\]\\ =\\ c'),
    ('the merged symbol kept as the pair', "\ndef _merge(syms, pair):\n    out, i = [], 0\n    while i < len(syms):\n        if i < len(syms) - 1 and (syms[i], syms[i + 1]) == pair: out.append((syms[i], syms[i + 1])); i += 2\n        else: out.append(syms[i]); i += 1\n    return out\n\ndef learn_bpe(word_counts, n_merges):\n    vocab = {tuple(w) + ('</w>',): c for w, c in word_counts.items()}\n    merges = []\n    for _ in range(n_merges):\n        pairs = Counter()\n        for syms, c in vocab.items():\n            for a, b in zip(syms, syms[1:]): pairs[a, b] += c\n        if not pairs: break\n        best = min(pairs, key=lambda p: (-pairs[p], p))\n        merges.append(best)\n        vocab = {tuple(_merge(list(s), best)): c for s, c in vocab.items()}\n    return merges\n\ndef segment(word, merges):\n    syms = list(word) + ['</w>']\n    for pair in merges: syms = _merge(syms, pair)\n    return syms\n",
     'your\\ merge\\ puts\\ the\\ pair\\ itself\\ in\\ the\\ word'),
    ('merges=[] as a default argument', "\ndef _merge(syms, pair):\n    out, i = [], 0\n    while i < len(syms):\n        if i < len(syms) - 1 and (syms[i], syms[i + 1]) == pair: out.append(syms[i] + syms[i + 1]); i += 2\n        else: out.append(syms[i]); i += 1\n    return out\n\ndef learn_bpe(word_counts, n_merges, merges=[]):\n    vocab = {tuple(w) + ('</w>',): c for w, c in word_counts.items()}\n    for _ in range(n_merges):\n        pairs = Counter()\n        for syms, c in vocab.items():\n            for a, b in zip(syms, syms[1:]): pairs[a, b] += c\n        if not pairs: break\n        best = min(pairs, key=lambda p: (-pairs[p], p))\n        merges.append(best)\n        vocab = {tuple(_merge(list(s), best)): c for s, c in vocab.items()}\n    return merges\n\ndef segment(word, merges):\n    syms = list(word) + ['</w>']\n    for pair in merges: syms = _merge(syms, pair)\n    return syms\n",
     'yours\\ begins\\ with\\ the\\ 10\\ merges\\ of\\ the\\ call\\ before\\ it'),
    ('keys split on spaces', "\ndef _merge(syms, pair):\n    out, i = [], 0\n    while i < len(syms):\n        if i < len(syms) - 1 and (syms[i], syms[i + 1]) == pair: out.append(syms[i] + syms[i + 1]); i += 2\n        else: out.append(syms[i]); i += 1\n    return out\n\ndef learn_bpe(word_counts, n_merges):\n    vocab = {tuple(w.split()): c for w, c in word_counts.items()}     # 'l o w </w>' -> its symbols\n    merges = []\n    for _ in range(n_merges):\n        pairs = Counter()\n        for syms, c in vocab.items():\n            for a, b in zip(syms, syms[1:]): pairs[a, b] += c\n        if not pairs: break\n        best = min(pairs, key=lambda p: (-pairs[p], p))\n        merges.append(best)\n        vocab = {tuple(_merge(list(s), best)): c for s, c in vocab.items()}\n    return merges\n\ndef segment(word, merges):\n    syms = word.split()\n    for pair in merges: syms = _merge(syms, pair)\n    return syms\n",
     'yours\\ splits\\ each\\ key\\ on\\ spaces'),
    ('merges kept in a set', "\ndef _merge(syms, pair):\n    out, i = [], 0\n    while i < len(syms):\n        if i < len(syms) - 1 and (syms[i], syms[i + 1]) == pair: out.append(syms[i] + syms[i + 1]); i += 2\n        else: out.append(syms[i]); i += 1\n    return out\n\ndef learn_bpe(word_counts, n_merges):\n    vocab = {tuple(w) + ('</w>',): c for w, c in word_counts.items()}\n    merges = set()\n    for _ in range(n_merges):\n        pairs = Counter()\n        for syms, c in vocab.items():\n            for a, b in zip(syms, syms[1:]): pairs[a, b] += c\n        if not pairs: break\n        best = min(pairs, key=lambda p: (-pairs[p], p))\n        merges.add(best)\n        vocab = {tuple(_merge(list(s), best)): c for s, c in vocab.items()}\n    return list(merges)\n\ndef segment(word, merges):\n    syms = list(word) + ['</w>']\n    for pair in merges: syms = _merge(syms, pair)\n    return syms\n",
     'yours\\ holds\\ the\\ right\\ merges\\ in\\ another\\ order'),
    ('merges prepended', "\ndef _merge(syms, pair):\n    out, i = [], 0\n    while i < len(syms):\n        if i < len(syms) - 1 and (syms[i], syms[i + 1]) == pair: out.append(syms[i] + syms[i + 1]); i += 2\n        else: out.append(syms[i]); i += 1\n    return out\n\ndef learn_bpe(word_counts, n_merges):\n    vocab = {tuple(w) + ('</w>',): c for w, c in word_counts.items()}\n    merges = []\n    for _ in range(n_merges):\n        pairs = Counter()\n        for syms, c in vocab.items():\n            for a, b in zip(syms, syms[1:]): pairs[a, b] += c\n        if not pairs: break\n        best = min(pairs, key=lambda p: (-pairs[p], p))\n        merges.insert(0, best)\n        vocab = {tuple(_merge(list(s), best)): c for s, c in vocab.items()}\n    return merges\n\ndef segment(word, merges):\n    syms = list(word) + ['</w>']\n    for pair in reversed(merges): syms = _merge(syms, pair)\n    return syms\n",
     'yours\\ lists\\ them\\ newest\\ first'),
    ('a for loop over a shrinking list', "\ndef _merge(syms, pair):\n    syms = list(syms)\n    for i in range(len(syms) - 1):\n        if (syms[i], syms[i + 1]) == pair: syms[i:i + 2] = [syms[i] + syms[i + 1]]\n    return syms\n\ndef learn_bpe(word_counts, n_merges):\n    vocab = {tuple(w) + ('</w>',): c for w, c in word_counts.items()}\n    merges = []\n    for _ in range(n_merges):\n        pairs = Counter()\n        for syms, c in vocab.items():\n            for a, b in zip(syms, syms[1:]): pairs[a, b] += c\n        if not pairs: break\n        best = min(pairs, key=lambda p: (-pairs[p], p))\n        merges.append(best)\n        vocab = {tuple(_merge(s, best)): c for s, c in vocab.items()}\n    return merges\n\ndef segment(word, merges):\n    syms = list(word) + ['</w>']\n    for pair in merges: syms = _merge(syms, pair)\n    return syms\n",
     'your\\ merge\\ reads\\ past\\ the\\ end\\ of\\ the\\ symbols\\ once\\ a\\ merge\\ has\\ made\\ the\\ list\\ shorter'),
    ('a dict iterated without .items()', "\ndef _merge(syms, pair):\n    out, i = [], 0\n    while i < len(syms):\n        if i < len(syms) - 1 and (syms[i], syms[i + 1]) == pair: out.append(syms[i] + syms[i + 1]); i += 2\n        else: out.append(syms[i]); i += 1\n    return out\n\ndef learn_bpe(word_counts, n_merges):\n    vocab = {tuple(w) + ('</w>',): c for w, c in word_counts}\n    merges = []\n    for _ in range(n_merges):\n        pairs = Counter()\n        for syms, c in vocab.items():\n            for a, b in zip(syms, syms[1:]): pairs[a, b] += c\n        if not pairs: break\n        best = min(pairs, key=lambda p: (-pairs[p], p))\n        merges.append(best)\n        vocab = {tuple(_merge(list(s), best)): c for s, c in vocab.items()}\n    return merges\n\ndef segment(word, merges):\n    syms = list(word) + ['</w>']\n    for pair in merges: syms = _merge(syms, pair)\n    return syms\n",
     'iterate\\ word_counts\\.items\\(\\)'),
    ('symbols compared with is', "\ndef _merge(syms, pair):\n    out, i = [], 0\n    while i < len(syms):\n        if i < len(syms) - 1 and syms[i] is pair[0] and syms[i + 1] is pair[1]: out.append(syms[i] + syms[i + 1]); i += 2\n        else: out.append(syms[i]); i += 1\n    return out\n\ndef learn_bpe(word_counts, n_merges):\n    vocab = {tuple(w) + ('</w>',): c for w, c in word_counts.items()}\n    merges = []\n    for _ in range(n_merges):\n        pairs = Counter()\n        for syms, c in vocab.items():\n            for a, b in zip(syms, syms[1:]): pairs[a, b] += c\n        if not pairs: break\n        best = min(pairs, key=lambda p: (-pairs[p], p))\n        merges.append(best)\n        vocab = {tuple(_merge(list(s), best)): c for s, c in vocab.items()}\n    return merges\n\ndef segment(word, merges):\n    syms = list(word) + ['</w>']\n    for pair in merges: syms = _merge(syms, pair)\n    return syms\n",
     'your\\ merge\\ compares\\ symbols\\ with\\ `is`'),
    ("the count's name reused for a symbol", "\ndef _merge(syms, pair):\n    out, i = [], 0\n    while i < len(syms):\n        if i < len(syms) - 1 and (syms[i], syms[i + 1]) == pair: out.append(syms[i] + syms[i + 1]); i += 2\n        else: out.append(syms[i]); i += 1\n    return out\n\ndef learn_bpe(word_counts, n_merges):\n    vocab = {tuple(w) + ('</w>',): c for w, c in word_counts.items()}\n    merges = []\n    for _ in range(n_merges):\n        pairs = Counter()\n        for syms, c in vocab.items():\n            for a, c in zip(syms, syms[1:]): pairs[a, c] += c\n        if not pairs: break\n        best = min(pairs, key=lambda p: (-pairs[p], p))\n        merges.append(best)\n        vocab = {tuple(_merge(list(s), best)): c for s, c in vocab.items()}\n    return merges\n\ndef segment(word, merges):\n    syms = list(word) + ['</w>']\n    for pair in merges: syms = _merge(syms, pair)\n    return syms\n",
     "a\\ symbol\\ was\\ added\\ to\\ a\\ pair's\\ count"),
]

@pytest.mark.parametrize('label, code, says', THIRTY_EIGHTH, ids=[r[0] for r in THIRTY_EIGHTH])
def test_thirty_eighth_blind_answers_named(label, code, says):
    ns = {}; exec(_T38_PRELUDE + code, ns)
    _t38_rejects(check_bpe, ns['learn_bpe'], ns['segment'], says=says)

THIRTY_EIGHTH_VARIANTS = [   # (label, old, new: the solution changed into another answer with the same mistake, what its message must say)
    ('the merge by re.sub with \\b bounds on the spaced word',
     "        vocab = {tuple(_merge(list(syms), best)): c for syms, c in vocab.items()}",
     "        vocab = {tuple(re.sub(r'\\b' + re.escape(' '.join(best)) + r'\\b', ''.join(best), ' '.join(syms)).split()): c for syms, c in vocab.items()}",
     r"your merge never joins a pair that ends in '</w>'"),
    ('a defaultdict of counts made before the loop', "    for _ in range(n_merges):\n        pairs = Counter()", "    pairs = defaultdict(int)\n    for _ in range(n_merges):",
     r"yours adds each round's counts to the rounds' before"),
    ('a count set by dict.__setitem__', "pairs[a, b] += c", "pairs.__setitem__((a, b), c)", r"yours sets it, pairs\[p\] = c"),
    ('the pair put in place of its symbols, in the while loop', "syms[i:i + 2] = [syms[i] + syms[i + 1]]", "syms[i:i + 2] = [(syms[i], syms[i + 1])]",
     r"your merge puts the pair itself in the word"),
    ('a module-level list of merges', "    merges = []\n", "    merges = _ALL\n", r"yours begins with the 10 merges of the call before it"),
    ('the merges sorted before they are returned', "    return merges\n", "    return sorted(merges)\n", r"yours holds the right merges in another order"),
    ('the merges reversed before they are returned', "    return merges\n", "    return merges[::-1]\n", r"yours lists them newest first"),
    ('a dict of counts iterated as (w, c) in a loop', "    vocab = {tuple(w) + ('</w>',): c for w, c in word_counts.items()}",
     "    vocab = {}\n    for w, c in word_counts: vocab[tuple(w) + ('</w>',)] = c", r"iterate word_counts.items()"),
    ('the count named c, and c the first symbol of each pair', "for a, b in zip(syms, syms[1:]): pairs[a, b] += c", "for c, b in zip(syms, syms[1:]): pairs[c, b] += c",
     r"a symbol was added to a pair's count"),
]

from collections import defaultdict

@pytest.mark.parametrize('label, old, new, says', THIRTY_EIGHTH_VARIANTS, ids=[r[0] for r in THIRTY_EIGHTH_VARIANTS])
def test_thirty_eighth_variants_named(label, old, new, says):
    learn_bpe, segment = bpe(old, new)
    learn_bpe.__globals__.update(_ALL=[], re=re, defaultdict=defaultdict)
    _t38_rejects(check_bpe, learn_bpe, segment, says=says)
