"""13_parsing's exercises, proven away from the learner's names: each check (`transformer_nb.course.parsing`, course_parsing) accepts
the solution the notebook prints, reports an unwritten stub without failing, and names each likely mistake with the
tree or case it fails, returning False and never raising; the change of the "break the repair" exercise makes exactly
the checks its solution names fail, in the notebook and in tests/test_parsing.py; so does "break the linearisation"."""
import contextlib, io
import pytest
from nbtools import assert_break_it, _body, cells, code_blocks, exercise, namespace
from transformer_nb.course.parsing import check_linearize, check_corpus_prf
from transformer_nb.parsing import coarse_label, is_preterminal

NB = '13_parsing'
EXERCISES = '648f626b'
LIB = 'apps_parsing_task'                   # the library's parsing notebook: the repair and its exercises
MORE = 'e12c0d01'                          # its exercises

def said(check, *answer) -> tuple:
    "What `check(*answer)` returns, and the line it prints."
    with contextlib.redirect_stdout(io.StringIO()) as out: ok = check(*answer)
    return ok, out.getvalue().strip()

# --- exercise 1: write the linearisation ---

SOLUTION = code_blocks(NB, EXERCISES)[0]

def solution(src=SOLUTION):
    ns = {'coarse_label': coarse_label, 'is_preterminal': is_preterminal}      # what the notebook's imports give the learner
    exec(src, ns); return ns['my_linearize']

def test_linearize_solution_passes():
    assert said(check_linearize, solution()) == (True, 'my_linearize writes 8 trees as linearize does')

def test_linearize_stub_is_reported_as_not_written(capsys):
    ns = namespace(NB, 'e12c0002')                                   # the stub cell runs the check, as Run All does
    assert 'my_linearize is not written yet' in capsys.readouterr().out
    assert said(check_linearize, ns['my_linearize'])[0] is False

@pytest.mark.parametrize('old, new, case, mistake', [
    ("    if is_preterminal(tree): return tree[0]                          # (NNP John) -> John\n",
     "    if isinstance(tree, str): return tree\n", "John's tree", 'a POS tag in the output'),
    ("return tree[0]", "return f'{tree.label()} {tree[0]}'", "John's tree", 'a POS tag in the output'),
    ("f'){lab}'", "')'", "John's tree", "a bare ')'"),
    ("lab = coarse_label(tree.label())", "lab = tree.label()", "John's tree", 'a function tag kept'),
    ("lab = coarse_label(tree.label())", "lab = tree.label().split('-')[0]", "the gapping tree",        # right on NP-SBJ,
     "a label kept its index ((NP=1); `label.split('-')[0]` strips a function tag but not the '=1'"),   # wrong on NP=1
    ("return tree[0]", "return 'XX'", "John's tree", "token 2 is 'XX' where linearize writes 'John'"),
    ("return ' '.join(", "return (", "John's tree", 'return one string'),
])
def test_linearize_mistakes_are_named(old, new, case, mistake):
    assert old in SOLUTION, old
    ok, line = said(check_linearize, solution(SOLUTION.replace(old, new)))
    assert not ok and line.startswith(f'Not yet: {case}') and mistake in line, line

def test_linearize_mistake_only_in_sampled_trees_is_named():
    "A walk that loses the sentence-final period of a sampled tree passes the hand-written trees; a sampled tree shows it."
    sol = solution()
    hand = lambda t: t.label() == 'S' and 'NNP John' in str(t)
    ok, line = said(check_linearize, lambda t: sol(t) if hand(t) else sol(t).replace(' . )S', ' )S'))
    assert not ok and line.startswith('Not yet: sampled tree 1'), line

# --- exercise 2: break the linearisation ---

def test_break_linearize_fails_the_first_check_of_the_cell_after_it():
    src = _body(cells(NB)['c3df4a72'][1])
    old = "f'){lab}'])"
    assert old in src and "close every phrase with a bare `)` instead of `){lab}`" in ' '.join(exercise(NB, EXERCISES, 2).split())
    ns = namespace(NB, src.replace(old, "')'])"))
    lines = _body(cells(NB)['cbca9625'][1]).splitlines()
    with pytest.raises(AssertionError, match=r"\(S \(NP John \) \(VP has \(NP a dog \) \) \. \)"): exec(lines[0] + '\n' + lines[1], ns)
    assert '`(S (NP John ) (VP has (NP a dog ) ) . )`' in exercise(NB, EXERCISES, 2)

# --- apps_parsing_task's exercise 4: break the repair ---

OLD = "if not stack: fixes['dropped closing bracket(s) with nothing open'] += 1; continue"
NEW = "if not stack: raise ValueError(f'a closing bracket {tok!r} with nothing open')"

def broken_source():
    src = _body(cells(LIB)['6b63e4a8'][1])
    assert OLD in src
    return src.replace(OLD, NEW)

def test_break_the_repair_stops_the_repair_cell_at_its_stray_bracket():
    ns = namespace(LIB, 'a38a0005', 'e12g0005', 'a38a0014', broken_source())   # 13's trees, the checked linearize, the broken repair
    with pytest.raises(ValueError, match=r"a closing bracket '\)S' with nothing open"): exec(_body(cells(LIB)['5ec88712'][1]), ns)
    text = ' '.join(cells(LIB)[MORE][1].split())
    assert 'The repair cell stops at its case `)S (S ...`' in text

@pytest.mark.slow
def test_break_the_repair_fails_exactly_the_two_named_tests():
    "The change made to apps_parsing_task's cell and to transformer_nb/apps/parsing_task.py: tests/test_parsing.py's fast tests that fail."
    failed = {'tests/test_parsing.py::test_random_token_soup_is_repaired_or_fails_cleanly',
              'tests/test_parsing.py::test_results_file_has_every_system_with_provenance'}
    assert_break_it(LIB, '6b63e4a8', OLD, NEW, 'apps.parsing_task', ['tests/test_parsing.py'], notebook=False, pytest_args=['-m', 'not slow'],
                    fail_tests=failed)
    text = ' '.join(cells(LIB)[MORE][1].split())
    assert all(f"`{t.split('::')[1]}`" in text for t in failed)

# --- exercise 3: score a test set ---

PRF = code_blocks(NB, EXERCISES)[1]

def corpus(src=PRF):
    ns = {}; exec(src, ns); return ns['my_corpus_prf']

def test_corpus_prf_solution_passes():
    assert said(check_corpus_prf, corpus()) == (True, 'my_corpus_prf scores 4 test sets as EVALB sums them')

def test_corpus_prf_stub_is_reported_as_not_written(capsys):
    ns = namespace(NB, 'e12c0004')
    assert 'my_corpus_prf is not written yet' in capsys.readouterr().out
    assert said(check_corpus_prf, ns['my_corpus_prf'])[0] is False

@pytest.mark.parametrize('old, new, case, mistake', [
    ("p, r = 100 * m / t, 100 * m / g", "p, r = 100 * m / g, 100 * m / t", "case 'one sentence'", 'precision and recall swapped'),
    ("p, r = 100 * m / t, 100 * m / g", "p, r = m / t, m / g", "case 'one sentence'", 'in percent'),
    ("return p, r, 2 * p * r / (p + r)", "return p, r, (p + r) / 2", "case 'one sentence'", 'the harmonic mean'),
    ("    m, g, t = (sum(c[i] for c in counts) for i in range(3))          # summed over the test set\n"
     "    p, r = 100 * m / t, 100 * m / g                                    # over the parse's, the reference's brackets\n",
     "    p = sum(100 * m / t for m, g, t in counts) / len(counts)\n    r = sum(100 * m / g for m, g, t in counts) / len(counts)\n",
     "case 'a failed parse'", 'ZeroDivisionError. Likely mistake: a failed parse has no brackets'),
])
def test_corpus_prf_mistakes_are_named(old, new, case, mistake):
    assert old in PRF, old
    ok, line = said(check_corpus_prf, corpus(PRF.replace(old, new)))
    assert not ok and line.startswith(f'Not yet: {case}') and mistake in line, line

def test_corpus_prf_sentence_average_is_named():
    from transformer_nb.lib.treebank import prf
    ok, line = said(check_corpus_prf, lambda cs: tuple(sum(prf(*c)[i] for c in cs) / len(cs) for i in range(3)))
    assert not ok and "case 'a failed parse'" in line and "an average of the sentences' scores" in line, line

def test_the_exercises_are_three_and_each_has_its_check():
    text = cells(NB)[EXERCISES][1]
    assert [exercise(NB, EXERCISES, n)[:3] for n in (1, 2, 3)] == ['1. ', '2. ', '3. ']
    assert 'check_linearize(my_linearize)' in cells(NB)['e12c0002'][1] and 'check_corpus_prf(my_corpus_prf)' in cells(NB)['e12c0004'][1]
    assert '`NP=1`' in text                                          # the rule the check holds: indices stripped too

# ---------------------------------------------------------------- fresh wrong answers, written as new learners would
import functools
from transformer_nb.course import parsing as _ex
from nbtools import assert_rejects
FRESH = {}   # label: (checker, answer, the words its message must contain)
def add(checker, label, kw, *args): FRESH[checker, label] = args

# 13 my_linearize: each answer and the words its message must contain
def ln(f):
    f.__name__ = 'my_linearize'; return f
def _lin(tree, *, close_lab=True, coarse=True, preterm=True, open_sep=False):
    if isinstance(tree, str): return tree
    if preterm and is_preterminal(tree): return tree[0]
    lab = coarse_label(tree.label()) if coarse else tree.label()
    o = f'( {lab}' if open_sep else f'({lab}'
    return ' '.join([o, *(_lin(t, close_lab=close_lab, coarse=coarse, preterm=preterm, open_sep=open_sep) for t in tree), f'){lab}' if close_lab else ')'])
def lv(**kw): return ln(functools.partial(_lin, **kw))
add('check_linearize', 'bare closing bracket', ['closing', ')lab', 'label'], lv(close_lab=False))
add('check_linearize', 'labels not coarsened', ['coarse', 'function tag', 'np-sbj', 'index', 'tag'], lv(coarse=False))
add('check_linearize', 'POS nodes bracketed', ['pos', 'preterminal', 'tag'], lv(preterm=False))
def lin_tags(tree):
    if is_preterminal(tree): return tree.label()
    lab = coarse_label(tree.label()); return ' '.join([f'({lab}', *(lin_tags(t) for t in tree), f'){lab}'])
add('check_linearize', 'tags at the leaves not words', ['word', 'tag', 'leaves'], ln(lin_tags))
def lin_list(tree):
    if is_preterminal(tree): return [tree[0]]
    lab = coarse_label(tree.label()); return [f'({lab}', *[x for t in tree for x in lin_list(t)], f'){lab}']
add('check_linearize', 'returns a list of tokens', ['str', 'string', 'list'], ln(lin_list))
def lin_split(tree):
    if is_preterminal(tree): return tree[0]
    lab = tree.label().split('-')[0]; return ' '.join([f'({lab}', *(lin_split(t) for t in tree), f'){lab}'])
add('check_linearize', "strips tags with split('-') only (keeps =1)", ['coarse', 'index', '=', 'np=1'], ln(lin_split))
def lin_nospace(tree):
    if is_preterminal(tree): return tree[0]
    lab = coarse_label(tree.label()); return f'({lab} ' + ' '.join(lin_nospace(t) for t in tree) + f'){lab}'
add('check_linearize', 'no space before closing bracket', ['space', 'token'], ln(lin_nospace))
def lin_bfs(tree):
    out, queue = [], [tree]
    while queue:
        t = queue.pop(0)
        if is_preterminal(t): out.append(t[0]); continue
        lab = coarse_label(t.label()); out.append(f'({lab}'); queue.extend(list(t)); out.append(f'){lab}')
    return ' '.join(out)
add('check_linearize', 'breadth-first walk', ['depth-first', 'order', 'depth first'], ln(lin_bfs))
SAYS_CHECK_LINEARIZE = {
"bare closing bracket": "the\\ closing\\ bracket\\ carries\\ its\\ label\\ too,\\ '\\)NP'",
"labels not coarsened": "strip\\ it,\\ as\\ EVALB\\ does:\\ coarse_label\\('NP\\-SBJ'\\)\\ is\\ 'NP'",
"POS nodes bracketed": "a\\ preterminal\\ is\\ not\\ a\\ phrase:\\ write\\ its\\ word\\ alone",
"tags at the leaves not words": "a\\ preterminal\\ is\\ not\\ a\\ phrase:\\ write\\ its\\ word\\ alone",
"returns a list of tokens": "return\\ one\\ string,\\ tokens\\ joined\\ by\\ spaces",
"strips tags with split('-') only (keeps =1)": "`label\\.split\\('\\-'\\)\\[0\\]`\\ strips\\ a\\ function\\ tag\\ but\\ not\\ the\\ '=1'\\ of\\ a\\ gapping\\ index:\\ use\\ coars",
"no space before closing bracket": "each\\ bracket\\ is\\ a\\ token\\ of\\ its\\ own,\\ separated\\ by\\ spaces:\\ '\\(NP\\ John\\ \\)NP'",
"breadth-first walk": "walk\\ the\\ tree\\ depth\\-first:\\ a\\ phrase's\\ opening\\ bracket,\\ then\\ each\\ child's\\ whole\\ subtree\\ in\\ "
}

@pytest.mark.parametrize('label', list(SAYS_CHECK_LINEARIZE))
def test_fresh_wrong_answers_named_by_check_linearize(label):
    "Each wrong answer a new learner writes is refused, with a message that names its mistake."
    assert_rejects(_ex.check_linearize, *FRESH['check_linearize', label], says=SAYS_CHECK_LINEARIZE[label])

# 13 my_corpus_prf: each answer and the words its message must contain
def cp(f):
    f.__name__ = 'my_corpus_prf'; return f
def _prf(m, g, t): 
    p, r = 100 * m / t, 100 * m / g; return p, r, 2 * p * r / (p + r)
add('check_corpus_prf', 'averages per-sentence scores', ['sum', 'average', 'sentence', 'corpus'], cp(lambda counts: tuple(sum(x) / len(counts) for x in zip(*[_prf(*c) if c[0] else (0.0, 0.0, 0.0) for c in counts]))))
add('check_corpus_prf', 'precision and recall swapped', ['precision', 'recall', 'swap'], cp(lambda counts: (lambda m, g, t: (lambda p, r: (p, r, 2 * p * r / (p + r)))(100 * m / g, 100 * m / t))(*[sum(c[i] for c in counts) for i in range(3)])))
add('check_corpus_prf', 'fraction not percent', ['percent', '100'], cp(lambda counts: (lambda m, g, t: (m / t, m / g, 2 * m / (g + t)))(*[sum(c[i] for c in counts) for i in range(3)])))
add('check_corpus_prf', 'F1 as arithmetic mean', ['harmonic', 'f1', 'mean'], cp(lambda counts: (lambda m, g, t: (100 * m / t, 100 * m / g, 50 * m / t + 50 * m / g))(*[sum(c[i] for c in counts) for i in range(3)])))
# the notebook's own solution divides 0/0 when nothing matched: not a wrong answer by the exercise's spec
_y = ('check_corpus_prf', 'ZeroDivision when nothing matched', ['0', 'zero', 'divid', 'failed', 'no bracket'], cp(lambda counts: _prf(*[sum(c[i] for c in counts) for i in range(3)])))
add('check_corpus_prf', 'skips failed parses (t == 0)', ['failed', 'parse', 'skip', 'reference'], cp(lambda counts: (lambda cs: (lambda m, g, t: _prf(m, g, t) if m else (0.0, 0.0, 0.0))(*[sum(c[i] for c in cs) for i in range(3)]))([c for c in counts if c[2] > 0])))
add('check_corpus_prf', 'F1 = 2m/(g+t) without percent', ['percent', '100', 'f1'], cp(lambda counts: (lambda m, g, t: (100 * m / t, 100 * m / g, 2 * m / (g + t)))(*[sum(c[i] for c in counts) for i in range(3)])))
add('check_corpus_prf', 'returns a dict', ['tuple', 'dict', 'three'], cp(lambda counts: (lambda m, g, t: dict(p=100 * m / t, r=100 * m / g, f1=200 * m / (g + t)))(*[sum(c[i] for c in counts) for i in range(3)])))
SAYS_CHECK_CORPUS_PRF = {
"averages per-sentence scores": "an\\ average\\ of\\ the\\ sentences'\\ scores:\\ sum\\ matched,\\ reference\\ and\\ parse\\ over\\ the\\ sentences,\\ ",
"precision and recall swapped": "precision\\ and\\ recall\\ swapped:\\ precision\\ is\\ over\\ the\\ parse's\\ brackets\\ \\(matched\\ /\\ parse\\),\\ re",
"fraction not percent": "in\\ percent:\\ multiply\\ by\\ 100",
"F1 as arithmetic mean": "F1\\ is\\ the\\ harmonic\\ mean\\ 2PR\\ /\\ \\(P\\ \\+\\ R\\),\\ not\\ the\\ average\\ \\(P\\ \\+\\ R\\)\\ /\\ 2",
"skips failed parses (t == 0)": "a\\ failed\\ parse\\ still\\ counts:\\ its\\ reference\\ brackets\\ are\\ missed,\\ which\\ lowers\\ the\\ recall;\\ s",
"F1 = 2m/(g+t) without percent": "F1\\ in\\ percent\\ too:\\ 2PR\\ /\\ \\(P\\ \\+\\ R\\)\\ with\\ P\\ and\\ R\\ in\\ percent,\\ or\\ 100\\ \\*\\ 2\\ \\*\\ matched\\ /\\ \\(referenc",
"returns a dict": "return\\ \\(precision,\\ recall,\\ F1\\)"
}

@pytest.mark.parametrize('label', list(SAYS_CHECK_CORPUS_PRF))
def test_fresh_wrong_answers_named_by_check_corpus_prf(label):
    "Each wrong answer a new learner writes is refused, with a message that names its mistake."
    assert_rejects(_ex.check_corpus_prf, *FRESH['check_corpus_prf', label], says=SAYS_CHECK_CORPUS_PRF[label])

def test_linearize_names_a_space_between_a_bracket_and_its_label():
    "'( NP' and ') NP' is named as the space it is, not as a bare ')'; the solution still passes."
    def spaced(tree):
        if is_preterminal(tree): return tree[0]
        lab = coarse_label(tree.label())
        return ' '.join([f'( {lab}', *(spaced(t) for t in tree), f') {lab}'])
    ok, line = said(check_linearize, spaced)
    assert ok is False and line.startswith("Not yet: John's tree: a space between a bracket and its label (( S ( NP John ) NP"), line
    assert "each is one token, '(NP' and ')NP'" in line
    def closing_only(tree):                                            # only the closing bracket split from its label
        if is_preterminal(tree): return tree[0]
        lab = coarse_label(tree.label())
        return ' '.join([f'({lab}', *(closing_only(t) for t in tree), f') {lab}'])
    ok, line = said(check_linearize, closing_only)
    assert ok is False and "a space between a bracket and its label" in line, line
    assert said(check_linearize, solution())[0] is True


def _lin_closing(tree, close=lambda lab: f'){lab}'):
    "The linearisation; `close` writes a phrase's closing token."
    from transformer_nb.parsing import coarse_label, is_preterminal
    if is_preterminal(tree): return tree[0]
    lab = coarse_label(tree.label()); return ' '.join([f'({lab}', *(_lin_closing(t, close) for t in tree), close(lab)])

def _prf_mean(counts, mean_f1=False):
    "Corpus precision, recall and F1 in percent; `mean_f1` averages the sentences' F1 instead."
    from transformer_nb.lib.treebank import prf
    m, g, t = (sum(c[i] for c in counts) for i in range(3)); p, r = 100 * m / t, 100 * m / g
    return p, r, (sum(prf(*c)[2] for c in counts) / len(counts) if mean_f1 else 2 * p * r / (p + r))

def test_the_label_before_the_closing_bracket_is_named():
    assert_rejects(_ex.check_linearize, functools.partial(_lin_closing, close=lambda lab: f'{lab})'),
                   says=r"John's tree: the closing token 'NP\)' puts the label before the bracket: it is '\)' then the label, '\)NP'")
    assert _ex.check_linearize(_lin_closing) is True

def test_f1_averaged_over_the_sentences_is_named():
    assert_rejects(_ex.check_corpus_prf, functools.partial(_prf_mean, mean_f1=True),
                   says=r"Likely mistake: F1 averaged over the sentences: it comes from the corpus's precision and recall, 2PR / \(P \+ R\)")
    assert _ex.check_corpus_prf(_prf_mean) is True

# ---------------------------------------------------------------- mistakes nobody listed, named by what the answer does
def _prf_by(P=None, R=None, F=None):
    "Corpus precision, recall and F1 in percent, each replaced by the function of the counts given."
    def corpus_prf(counts):
        m, r, p = (sum(c[i] for c in counts) for i in range(3))
        right = (100 * m / p, 100 * m / r, 200 * m / (r + p))
        return tuple(f(counts) if f else x for f, x in zip((P, R, F), right))
    return corpus_prf

@pytest.mark.parametrize('answer, says', [
    (_prf_by(R=lambda cs: 100 * sum(c[0] / c[1] for c in cs) / len(cs)),
     r"case 'a failed parse': .*Likely mistake: your recall 50 is the sentences' recalls averaged; it is matched / reference of the summed counts = 54\.55"),
    (_prf_by(P=lambda cs: sum(c[0] for c in cs) / sum(c[2] for c in cs)), r"your precision 0\.8571 is matched / parse of the summed counts as a fraction, not in percent"),
    (_prf_by(F=lambda cs: 100 * (sum(c[0] for c in cs) ** 2 / sum(c[1] for c in cs) / sum(c[2] for c in cs)) ** 0.5), r"your F1 92\.58 is sqrt\(PR\), the geometric mean"),
    (_prf_by(F=lambda cs: 50.0), r"your F1 50 is none of the usual formulas; it is 2PR / \(P \+ R\) of the corpus's P and R = 92\.31"),
])
def test_corpus_prf_mistakes_nobody_listed_are_named_by_property(answer, says):
    assert_rejects(_ex.check_corpus_prf, answer, says=says)

def _lin_by(word=lambda t: t[0], root=True):
    "linearize written by hand, each leaf written by `word(preterminal)`, the root's brackets kept or not."
    from transformer_nb.parsing import coarse_label, is_preterminal
    def lin(t):
        if is_preterminal(t): return word(t)
        return ' '.join([f'({coarse_label(t.label())}'] + [lin(c) for c in t] + [f'){coarse_label(t.label())}'])
    def linearize_mine(t): return lin(t) if root else ' '.join(lin(c) for c in t)
    return linearize_mine

@pytest.mark.parametrize('answer, says', [
    (_lin_by(word=lambda t: t[0].lower()), r"^Not yet: John's tree: token 2 is 'john' where linearize writes 'John'; a word changed its case: write each leaf as it is, no \.lower\(\)\n$"),
    (_lin_by(root=False), r"token 0 is '\(NP' where linearize writes '\(S'; the root's brackets are missing: linearize the whole tree, from \(S to \)S"),
    (_lin_by(word=lambda t: t.label()), r"a POS tag in the output"),
    (_lin_by(word=lambda t: 'XX'), r"^Not yet: John's tree: token 2 is 'XX' where linearize writes 'John'; the brackets are right but the words are not"),
])
def test_linearize_mistakes_nobody_listed_are_named_in_one_line(answer, says):
    assert_rejects(_ex.check_linearize, answer, says=says)


# ---------------------------------------------------------------- more mistakes, each named by what the answer does
import transformer_nb.course.parsing as _named

def _lin_slip(drop_none=False, unary=False, brackets=True):
    "A linearisation that drops -NONE- nodes, collapses phrases of one child, or writes no brackets."
    from nltk import Tree
    from transformer_nb.parsing import coarse_label, is_preterminal
    def my_linearize(t):
        if not brackets: return ' '.join(t.leaves())
        if is_preterminal(t): return t[0]
        kids = [k for k in t if not (drop_none and isinstance(k, Tree) and k.label() == '-NONE-')]
        if unary and len(kids) == 1: return my_linearize(kids[0])
        lab = coarse_label(t.label())
        return ' '.join([f'({lab}', *(my_linearize(k) for k in kids), f'){lab}'])
    return my_linearize

@pytest.mark.parametrize('answer, says', [
    (_lin_slip(drop_none=True), r"a question with a trace: .*the empty elements \['\*T\*-1'\] are left out"),
    (_lin_slip(unary=True), r"John's tree: .*a phrase with one child lost its brackets \(\['\(NP', '\)NP'\]\)"),
    (_lin_slip(brackets=False), r"John's tree: .*no brackets at all"),
])
def test_linearize_mistakes_named_by_property(answer, says):
    assert_rejects(_named.check_linearize, answer, says=says)

def test_integer_division_is_named():
    def my_corpus_prf(counts):
        m, g, t = (sum(c[i] for c in counts) for i in range(3)); p, r = 100 * m // t, 100 * m // g
        return p, r, 2 * p * r // (p + r)
    assert_rejects(_named.check_corpus_prf, my_corpus_prf, says=r"your precision 85 is matched / parse of the summed counts cut to a whole number")

def test_labels_lowercased_are_named_as_labels():
    from transformer_nb.parsing import linearize
    assert_rejects(_named.check_linearize, lambda t: ' '.join(x.lower() if x[:1] in '()' else x for x in linearize(t).split()),
                   says=r"a label changed its case: write each label as it is, no \.lower\(\)")

# --- mistakes named by what they reproduce ---

def _lin_open_twice(t):
    "linearize with each closing bracket written as the opening one, '(NP' again."
    from nltk import Tree
    if not isinstance(t, Tree): return t
    if is_preterminal(t): return t[0]
    return ' '.join([f'({coarse_label(t.label())}', *(_lin_open_twice(c) for c in t), f'({coarse_label(t.label())}'])

def test_a_closing_bracket_written_as_an_opening_one_is_named():
    assert_rejects(check_linearize, _lin_open_twice, says=r"John's tree: .*each closing bracket is written as an opening one, '\(NP' again")

def _prf_of(m, r, p): return (100 * m / p, 100 * m / r, 200 * m / (r + p))

@pytest.mark.parametrize('k, which', [(0, 'first'), (-1, 'last')])
def test_one_sentence_scored_alone_is_named(k, which):
    fn = lambda counts: _prf_of(*counts[k]) if counts[k][2] else (0.0, 0.0, 0.0)
    assert_rejects(check_corpus_prf, fn, says=rf"only the {which} sentence's counts are scored: sum matched, reference and parse over every sentence")

def test_failed_parses_dropped_are_not_read_as_one_sentence():
    "Dropping the failed parses matches the first sentence's scores on one case only: it keeps its own message."
    fn = lambda counts: _prf_of(*(sum(c[i] for c in counts if c[2]) for i in range(3)))
    assert_rejects(check_corpus_prf, fn, says=r"a failed parse still counts: its reference brackets are missed")


# ---------------------------------------------------------------- the root's brackets alone; the last sentence, the order, F1 without its 2
def test_the_root_around_its_words_is_named():
    flat = lambda t: ' '.join([f'({coarse_label(t.label())}', *t.leaves(), f'){coarse_label(t.label())}'])
    assert_rejects(_named.check_linearize, flat, says=r"only the root's brackets, around all the words: the phrases under it are missing")

def _prf_sums(counts):
    m, r, p = (sum(c[i] for c in counts) for i in range(3))
    return 100 * m / p, 100 * m / r, 200 * m / (r + p)

@pytest.mark.parametrize('answer, says', [
    (lambda counts: _prf_sums(counts[-1:]), r"case 'a failed parse': ZeroDivisionError\. Likely mistake: only the last sentence's counts are scored"),
    (lambda counts: (lambda p, r, f: (f, p, r))(*_prf_sums(counts)), r"the right numbers in another order, 92\.31, 85\.71, 100\.00: return \(precision, recall, F1\)"),
    (lambda counts: (lambda p, r, f: (p, r, p * r / (p + r)))(*_prf_sums(counts)), r"your F1 46\.15 is PR / \(P \+ R\), the harmonic mean without its factor 2"),
])
def test_corpus_prf_mistakes_named_by_what_they_compute(answer, says):
    assert_rejects(_named.check_corpus_prf, answer, says=says)

@pytest.mark.parametrize('scale, says', [
    (100, "your F1 9231 is 2PR / \\(P \\+ R\\) of the corpus's P and R multiplied by 100 once more: P and R in percent make 2PR / \\(P \\+ R\\) in percent already"),
    (0.01, "F1 in percent too: 2PR / \\(P \\+ R\\) with P and R in percent")])
def test_an_f1_scaled_by_100_once_too_often_or_too_few_is_named(scale, says):
    def prf_scaled(counts):
        m, r, p = (sum(c[i] for c in counts) for i in range(3))
        P, R = 100 * m / p, 100 * m / r
        return P, R, scale * 2 * P * R / (P + R)
    assert_rejects(check_corpus_prf, prf_scaled, says=says)

# ---------------------------------------------------------------- slips of later blind answers, named by property
def test_a_linearisation_with_a_trailing_space_is_named():
    from transformer_nb.parsing import linearize
    assert_rejects(check_linearize, lambda t: linearize(t) + ' ',
                   says=r"John's tree: the right tokens in the right order, spaced otherwise .*: a space at the start or the end; join the tokens with one space")

def test_scores_rounded_to_one_decimal_are_named():
    from transformer_nb.lib.treebank import prf
    summed = lambda counts: [sum(c[i] for c in counts) for i in range(3)]
    assert said(check_corpus_prf, lambda counts: prf(*summed(counts)))[0] is True
    assert_rejects(check_corpus_prf, lambda counts: tuple(round(x, 1) for x in prf(*summed(counts))),
                   says=r"your precision 85.7 is matched / parse of the summed counts rounded to 1 decimal: return the value unrounded")

# ---------------------------------------------------------------- a fresh blind set: wrong answers written before reading the messages
import re as _n9re
from nbtools import assert_rejects as _n9_rejects
from transformer_nb.course.parsing import check_linearize as _n9_lin, check_corpus_prf as _n9_prf
def _n9_L(close=True, tags=False, coarse=True):
    def lin(t):
        if isinstance(t, str): return t
        if not tags and len(t) == 1 and isinstance(t[0], str): return t[0]
        lab = coarse_label(t.label()) if coarse else t.label()
        return ' '.join([f'({lab}', *(lin(c) for c in t), f'){lab}' if close else ')'])
    return lin
def _n9_P(p_of, r_of, f_of=lambda p, r, m, g, t: 2 * p * r / (p + r)):
    def prf(counts):
        m, g, t = (sum(c[i] for c in counts) for i in range(3)); p, r = p_of(m, g, t), r_of(m, g, t); return p, r, f_of(p, r, m, g, t)
    return prf
def _n9_mean(counts):
    ps = [(100 * m / t if t else 0, 100 * m / g if g else 0) for m, g, t in counts]
    P, R = sum(p for p, _ in ps) / len(ps), sum(r for _, r in ps) / len(ps); return P, R, 2 * P * R / (P + R)
NINTH = [('a bare closing bracket', _n9_lin, (_n9_L(close=False),), "the closing bracket carries its label too"),
         ('preterminals bracketed', _n9_lin, (_n9_L(tags=True),), "a preterminal is not a phrase"),
         ('function tags kept', _n9_lin, (_n9_L(coarse=False),), "a function tag kept"),
         ("mean of the sentences' scores", _n9_prf, (_n9_mean,), "an average of the sentences' scores"),
         ('precision and recall swapped', _n9_prf, (_n9_P(lambda m, g, t: 100 * m / g, lambda m, g, t: 100 * m / t),), "precision and recall swapped"),
         ('fractions, not percent', _n9_prf, (_n9_P(lambda m, g, t: m / t, lambda m, g, t: m / g),), "in percent: multiply by 100"),
         ('parse + reference as the denominator', _n9_prf, (_n9_P(lambda m, g, t: 100 * m / (g + t), lambda m, g, t: 100 * m / (g + t)),),
          "matched / (parse + reference): precision divides by the parse's brackets alone"),
         ('recall over parse + reference', _n9_prf, (_n9_P(lambda m, g, t: 100 * m / t, lambda m, g, t: 100 * m / (g + t)),),
          "matched / (parse + reference): recall divides by the reference's brackets alone"),
         ('F1 as overlap over union', _n9_prf, (_n9_P(lambda m, g, t: 100 * m / t, lambda m, g, t: 100 * m / g, lambda p, r, m, g, t: 100 * m / (g + t - m)),),
          "the overlap over the union (Jaccard), not F1")]
def _n9_xx(t):
    if isinstance(t, str) or len(t) == 1 and isinstance(t[0], str): return 'XX'
    lab = coarse_label(t.label()); return ' '.join([f'({lab}', *(_n9_xx(c) for c in t), f'){lab}'])
NINTH += [('words replaced by XX', _n9_lin, (_n9_xx,), "the brackets are right but the words are not")]
def _n9_spaced(t):
    if isinstance(t, str) or len(t) == 1 and isinstance(t[0], str): return t if isinstance(t, str) else t[0]
    lab = coarse_label(t.label()); return ' '.join([f'({lab}', *(_n9_spaced(c) for c in t), f') {lab}'])
NINTH += [('a space between the bracket and its label', _n9_lin, (_n9_spaced,), "a space between a bracket and its label")]

@pytest.mark.parametrize('label', [c[0] for c in NINTH])
def test_ninth_blind_answers_named(label):
    "Each answer of the blind set is refused with a message that names its mistake."
    _, check, answer, words = next(c for c in NINTH if c[0] == label)
    _n9_rejects(check, *answer, says=_n9re.escape(words))

# ---------------------------------------------------------------- the sixteenth blind set's miss
def test_counts_summed_over_each_sentence_are_named():
    "NumPy's sum(axis=1): one total per sentence, which unpacks into three numbers only for three sentences."
    import numpy as np
    def my_corpus_prf(counts):
        m, g, t = np.array(counts).sum(axis=1)[:3]
        p, r = 100 * m / t, 100 * m / g
        return p, r, 2 * p * r / (p + r)
    from nbtools import assert_rejects
    assert_rejects(check_corpus_prf, my_corpus_prf, says=r"your sums run over each sentence's three counts \(axis=1\)")

# ---------------------------------------------------------------- the eighteenth blind set's misses
def test_a_stripped_treebank_root_is_named():
    "A Penn Treebank file's root is unlabelled, '( (S ...) )': a walk that strips ROOT, TOP or '' passed every other tree."
    def my_linearize(tree):
        if isinstance(tree, str): return tree
        if is_preterminal(tree): return tree[0]
        if tree.label() in ('', 'ROOT', 'TOP'): return ' '.join(my_linearize(t) for t in tree)
        lab = coarse_label(tree.label())
        return ' '.join([f'({lab}', *(my_linearize(t) for t in tree), f'){lab}'])
    from nbtools import assert_rejects
    assert_rejects(check_linearize, my_linearize, says=r"its root unlabelled: .*the root's brackets are missing: .*an unlabelled root")

def test_nltks_own_bracketing_is_named():
    from nbtools import assert_rejects
    assert_rejects(check_linearize, lambda tree: ' '.join(str(tree).split()), says=r"that is nltk's own bracketing, str\(tree\)")


# ---------------------------------------------------------------- the twentieth blind set's miss (results/checker_answers.json)
def test_scores_as_tensors_are_named():
    import torch
    def my_corpus_prf(counts):
        m, g, t = torch.tensor(counts).sum(0)
        p, r = 100 * m / t, 100 * m / g
        return p, r, 2 * p * r / (p + r)
    assert_rejects(check_corpus_prf, my_corpus_prf, says=r"got Tensor, Tensor, Tensor, .*return three Python floats")

# --- the twenty-second blind set's answers that the checks first missed, each named now --------------------------------
from nbtools import assert_rejects as _t22_rejects
from transformer_nb.course.parsing import check_linearize as _t22_lin, check_corpus_prf as _t22_prf
_T22_PRELUDE = "import math, torch, torch.nn.functional as F\nfrom collections import Counter\nfrom transformer_nb.core import *\nfrom transformer_nb.parsing import coarse_label, is_preterminal\n"
def _t22_answer(code:str, *names):
    "The answer's functions, its code run in a fresh namespace with the notebook's imports."
    ns = {}; exec(_T22_PRELUDE + code, ns); return tuple(ns[n] for n in names)
TWENTY_SECOND = [   # (label, the answer's code, its names, the check, what its message must say)
    ('a total appended to counts', '\ndef my_corpus_prf(counts):\n    counts.append(tuple(sum(c[i] for c in counts) for i in range(3)))\n    m, g, t = counts[-1]\n    p, r = 100 * m / t, 100 * m / g\n    return p, r, 2 * p * r / (p + r)\n',
     ('my_corpus_prf',), _t22_prf, 'changed its argument counts in place \\(1 sentence became 2 entries: a total appended\\)'),
    ('punctuation dropped', '\ndef my_linearize(tree):\n    if isinstance(tree, str): return tree\n    if is_preterminal(tree): return tree[0]\n    lab = coarse_label(tree.label())\n    return \' \'.join([f\'({lab}\', *(my_linearize(t) for t in [t for t in tree if isinstance(t, str) or t.label() not in (\',\', \'.\', \':\', \'``\', "\'\'")]), f\'){lab}\'])\n',
     ('my_linearize',), _t22_lin, "the punctuation \\['\\.'\\] is left out"),
]

@pytest.mark.parametrize('label, code, names, check, says', TWENTY_SECOND, ids=[r[0] for r in TWENTY_SECOND])
def test_twenty_second_blind_answers_named(label, code, names, check, says):
    _t22_rejects(check, *_t22_answer(code, *names), says=says)

# --- the twenty-fifth blind set's answers that the checks first missed, each named now ---------------------------------
from nbtools import assert_rejects as _t25_rejects
from transformer_nb.course.parsing import check_linearize as _t25_linearize
_T25_PRELUDE = 'import math, torch, torch.nn.functional as F\nfrom collections import Counter\nfrom transformer_nb.core import *\nfrom transformer_nb.parsing import coarse_label, is_preterminal\n'
def _t25_answer(code:str, *names):
    "The answer's functions, its code run in a fresh namespace with the notebook's imports."
    ns = {}; exec(_T25_PRELUDE + code, ns); return tuple(ns[n] for n in names)
TWENTY_FIFTH = [   # (label, the answer's code, its names, the check, what its message must say)
    ('unary chains joined', "\ndef my_linearize(tree):\n    if isinstance(tree, str): return tree\n    if is_preterminal(tree): return tree[0]\n    labs = [coarse_label(tree.label())]\n    while len(tree) == 1 and not isinstance(tree[0], str) and not is_preterminal(tree[0]):\n        tree = tree[0]; labs.append(coarse_label(tree.label()))\n    lab = '+'.join(labs)\n    return ' '.join([f'({lab}', *(my_linearize(t) for t in tree), f'){lab}'])\n",
     ('my_linearize',), _t25_linearize, "as\\ nltk's\\ collapse_unary\\ joins\\ their\\ labels"),
]

@pytest.mark.parametrize('label, code, names, check, says', TWENTY_FIFTH, ids=[r[0] for r in TWENTY_FIFTH])
def test_twenty_fifth_blind_answers_named(label, code, names, check, says):
    _t25_rejects(check, *_t25_answer(code, *names), says=says)

# --- the thirty-first blind set's answers that the checks first missed, each named now ---------------------------------
from nbtools import assert_rejects as _t31_rejects
from transformer_nb.course.parsing import check_corpus_prf as _t31_check_corpus_prf, check_linearize as _t31_check_linearize
_T31_PRELUDE = 'import math, torch, torch.nn.functional as F\nfrom collections import Counter\nfrom transformer_nb.core import *\nfrom transformer_nb.parsing import coarse_label, is_preterminal\n'
def _t31_answer(code:str, *names):
    "The answer's functions, its code run in a fresh namespace with the notebook's imports."
    ns = {}; exec(_T31_PRELUDE + code, ns); return tuple(ns[n] for n in names)
THIRTY_FIRST = [   # (label, the answer's code, its names, the check, what its message must say)
    ('the label kept in a global: the children overwrite it before', "\ndef my_linearize(tree):\n    global lab\n    if isinstance(tree, str): return tree\n    if is_preterminal(tree): return tree[0]\n    lab = coarse_label(tree.label())\n    inner = ' '.join(my_linearize(t) for t in tree)\n    return f'({lab} {inner} ){lab}'\n",
     ('my_linearize',), _t31_check_linearize, "the\\ brackets\\ and\\ words\\ are\\ in\\ their\\ places,\\ but\\ token\\ 0\\ is\\ '\\(NP'"),
    ("the children's labels stripped, the root's kept as it is", "\ndef my_linearize(tree, root=True):\n    if isinstance(tree, str): return tree\n    if is_preterminal(tree): return tree[0]\n    lab = tree.label() if root else coarse_label(tree.label())\n    return ' '.join([f'({lab}', *(my_linearize(t, False) for t in tree), f'){lab}'])\n",
     ('my_linearize',), _t31_check_linearize, 'a\\ function\\ tag\\ kept\\ \\(\\(S\\-HLN\\ \\(NP\\ Prices\\ \\)NP\\ \\(VP\\ rose\\ \\(ADVP\\ again\\ \\)ADVP'),
    ("a list of three sentences taken for one sentence's (m, g, t)", '\ndef my_corpus_prf(counts):\n    if len(counts) == 3 and not isinstance(counts[0], int): counts = [tuple(x[0] for x in counts)]\n    m, g, t = (sum(c[i] for c in counts) for i in range(3))\n    p, r = 100 * m / t, 100 * m / g\n    return p, r, 2 * p * r / (p + r)\n',
     ('my_corpus_prf',), _t31_check_corpus_prf, 'right\\ for\\ two\\ sentences\\ and\\ for\\ four,\\ wrong\\ for\\ three:\\ a\\ list\\ of'),
    ('the last sentence left out: range(len(counts) - 1)', '\ndef my_corpus_prf(counts):\n    m, g, t = (sum(counts[j][i] for j in range(len(counts) - 1)) for i in range(3))\n    p, r = 100 * m / t, 100 * m / g\n    return p, r, 2 * p * r / (p + r)\n',
     ('my_corpus_prf',), _t31_check_corpus_prf, 'the\\ summed\\ counts,\\ \\(6,\\ 6,\\ 7\\),\\ have\\ no\\ zero\\ to\\ divide\\ by:\\ your\\ sums'),
]

@pytest.mark.parametrize('label, code, names, check, says', THIRTY_FIRST, ids=[r[0] for r in THIRTY_FIRST])
def test_thirty_first_blind_answers_named(label, code, names, check, says):
    _t31_rejects(check, *_t31_answer(code, *names), says=says)


# --- the thirty-fifth blind set's answers that the checks first missed, variants of their kinds, and a few more kinds found while fixing them, each named now
from nbtools import assert_rejects as _t35_rejects
from transformer_nb.course.parsing import check_corpus_prf as _t35_check_corpus_prf, check_linearize as _t35_check_linearize
_T35_PRELUDE = ('import math, torch, torch.nn.functional as F\nfrom collections import Counter\nfrom transformer_nb.core import *\n'
                'from transformer_nb.parsing import coarse_label, is_preterminal\n')
def _t35_answer(code:str, name:str):
    "The answer's function, its code run in a fresh namespace with the notebook's imports."
    ns = {}; exec(_T35_PRELUDE + code, ns); return ns[name]
THIRTY_FIFTH = [   # (label, the answer's code, its name, the check, what its message must say)
    ('base phrases written as bare words', "\ndef my_linearize(tree):\n    if not isinstance(tree, str) and not is_preterminal(tree) and all(not isinstance(t, str) and is_preterminal(t) for t in tree): return ' '.join(tree.leaves())\n    if isinstance(tree, str): return tree\n    if is_preterminal(tree): return tree[0]\n    lab = coarse_label(tree.label())\n    return ' '.join([f'({lab}', *(my_linearize(t) for t in tree), f'){lab}'])\n",
     'my_linearize', _t35_check_linearize, 'whose\\ children\\ are\\ all\\ POS\\ nodes\\ are\\ missing'),
    ('a phrase of POS nodes returned as its leaves', "\ndef my_linearize(tree):\n    if not isinstance(tree, str) and not is_preterminal(tree) and all(is_preterminal(t) for t in tree): return ' '.join(t[0] for t in tree)\n    if isinstance(tree, str): return tree\n    if is_preterminal(tree): return tree[0]\n    lab = coarse_label(tree.label())\n    return ' '.join([f'({lab}', *(my_linearize(t) for t in tree), f'){lab}'])\n",
     'my_linearize', _t35_check_linearize, 'whose\\ children\\ are\\ all\\ POS\\ nodes\\ are\\ missing'),
    ('the children visited right to left', "\ndef my_linearize(tree):\n    if isinstance(tree, str): return tree\n    if is_preterminal(tree): return tree[0]\n    lab = coarse_label(tree.label())\n    return ' '.join([f'({lab}', *(my_linearize(t) for t in reversed(tree)), f'){lab}'])\n",
     'my_linearize', _t35_check_linearize, "each\\ phrase's\\ children\\ in\\ reverse\\ order"),
    ('a stack walk that pops the children last to first', "\ndef my_linearize(tree):\n    out, stack = [], [tree]\n    while stack:\n        t = stack.pop()\n        if isinstance(t, str): out.append(t); continue\n        if is_preterminal(t): out.append(t[0]); continue\n        lab = coarse_label(t.label()); out.append(f'({lab}'); stack.append(f'){lab}'); stack.extend(t)\n    return ' '.join(out)\n",
     'my_linearize', _t35_check_linearize, "each\\ phrase's\\ children\\ in\\ reverse\\ order"),
    ('F1 of the summed counts divided by the number of sentences', '\ndef my_corpus_prf(counts):\n    m, g, t = (sum(c[i] for c in counts) for i in range(3))\n    p, r = 100 * m / t, 100 * m / g\n    return p, r, 200 * m / (g + t) / len(counts)\n',
     'my_corpus_prf', _t35_check_corpus_prf, 'divided\\ by\\ the\\ number\\ of\\ sentences,\\ 2'),
    ('F1 as 2PR / (P + R) / len(counts)', '\ndef my_corpus_prf(counts):\n    m, g, t = (sum(c[i] for c in counts) for i in range(3))\n    p, r = 100 * m / t, 100 * m / g\n    return p, r, 2 * p * r / (p + r) / len(counts)\n',
     'my_corpus_prf', _t35_check_corpus_prf, 'divided\\ by\\ the\\ number\\ of\\ sentences,\\ 2'),
]

@pytest.mark.parametrize('label, code, name, check, says', THIRTY_FIFTH, ids=[r[0] for r in THIRTY_FIFTH])
def test_thirty_fifth_blind_answers_named(label, code, name, check, says):
    _t35_rejects(check, _t35_answer(code, name), says=says)

# --- the thirty-ninth blind set's answers that the checks first missed, and a second answer of each kind, each named now
from nbtools import assert_rejects as _t39_rejects
from transformer_nb.course.parsing import check_corpus_prf as _t39_check_corpus_prf, check_linearize as _t39_check_linearize
_T39_PRELUDE = ('import math, torch, torch.nn.functional as F\nfrom collections import Counter\nfrom transformer_nb.core import *\n'
               'from transformer_nb.parsing import coarse_label, is_preterminal\n')
def _t39_answer(code:str, name:str):
    "The answer's function, its code run in a fresh namespace with the notebook's imports."
    ns = {}; exec(_T39_PRELUDE + code, ns); return ns[name]
THIRTY_NINTH = [   # (label, the answer's code, its name, the check, what its message must say)
    ("only -SBJ removed (label.replace('-SBJ', '')): right on John's tree alone", "\ndef my_linearize(tree):\n    if is_preterminal(tree): return tree[0]\n    lab = tree.label().replace('-SBJ', '')\n    return ' '.join(['(' + lab] + [my_linearize(c) for c in tree] + [')' + lab])\n",
     'my_linearize', _t39_check_linearize, "only\\ '\\-SBJ'\\ was\\ stripped"),
    ("one level of recursion: a child phrase's own phrases written as bare words", "\ndef my_linearize(tree):\n    lab = coarse_label(tree.label())\n    toks = ['(' + lab]\n    for c in tree:\n        if is_preterminal(c): toks.append(c[0])\n        else:\n            cl = coarse_label(c.label())\n            toks += ['(' + cl, *c.leaves(), ')' + cl]\n    return ' '.join(toks + [')' + lab])\n",
     'my_linearize', _t39_check_linearize, 'the\\ phrases\\ more\\ than\\ 1\\ level\\ below\\ the\\ root\\ lost\\ their\\ brackets'),
    ("a bare '(' opening each phrase, the label only on the closing bracket", "\ndef my_linearize(tree):\n    if is_preterminal(tree): return tree[0]\n    lab = coarse_label(tree.label())\n    return ' '.join(['('] + [my_linearize(c) for c in tree] + [')' + lab])\n",
     'my_linearize', _t39_check_linearize, "each\\ phrase\\ opens\\ with\\ a\\ bare\\ '\\('"),
    ("the caller's tree relabelled in place (set_label)", "\ndef my_linearize(tree):\n    if is_preterminal(tree): return tree[0]\n    tree.set_label(coarse_label(tree.label()))\n    lab = tree.label()\n    return ' '.join(['(' + lab] + [my_linearize(c) for c in tree] + [')' + lab])\n",
     'my_linearize', _t39_check_linearize, 'your\\ function\\ changed\\ the\\ tree\\ it\\ was\\ given\\ in\\ place\\ \\(NP\\-SBJ\\ is\\ now\\ NP'),
    ('the tuple of fractions times 100 (a NumPy habit): the three repeated 100 times', '\ndef my_corpus_prf(counts):\n    m, g, t = (sum(col) for col in zip(*counts))\n    p, r = m / t, m / g\n    return (p, r, 2 * p * r / (p + r)) * 100\n',
     'my_corpus_prf', _t39_check_corpus_prf, 'got\\ your\\ three\\ numbers\\ repeated\\ 100\\ times'),
    ("the sentences' tuples added with + (concatenated, not summed element-wise)", '\nimport functools\ndef my_corpus_prf(counts):\n    m, g, t = functools.reduce(lambda a, b: a + b, counts)\n    p, r = 100 * m / t, 100 * m / g\n    return p, r, 2 * p * r / (p + r)\n',
     'my_corpus_prf', _t39_check_corpus_prf, '\\+\\ joins\\ two\\ tuples\\ end\\ to\\ end'),
    ('only -SBJ removed with re.sub', "\nimport re\ndef my_linearize(tree):\n    if is_preterminal(tree): return tree[0]\n    lab = re.sub('-SBJ', '', tree.label())\n    return ' '.join(['(' + lab] + [my_linearize(c) for c in tree] + [')' + lab])\n",
     'my_linearize', _t39_check_linearize, "only\\ '\\-SBJ'\\ was\\ stripped"),   # a second answer of the kind
    ('two levels of recursion', "\ndef my_linearize(tree, depth=0):\n    if is_preterminal(tree): return tree[0]\n    lab = coarse_label(tree.label())\n    if depth > 2: return ' '.join(tree.leaves())\n    return ' '.join(['(' + lab] + [my_linearize(c, depth + 1) for c in tree] + [')' + lab])\n",
     'my_linearize', _t39_check_linearize, 'the\\ phrases\\ more\\ than\\ 2\\ levels\\ below\\ the\\ root\\ lost\\ their\\ brackets'),   # a second answer of the kind
    ("a bare '(' and a bare ')'", "\ndef my_linearize(tree):\n    if is_preterminal(tree): return tree[0]\n    return ' '.join(['('] + [my_linearize(c) for c in tree] + [')'])\n",
     'my_linearize', _t39_check_linearize, "each\\ phrase\\ opens\\ with\\ a\\ bare\\ '\\('"),   # a second answer of the kind
    ("the label set through the tree's _label", "\ndef my_linearize(tree):\n    if is_preterminal(tree): return tree[0]\n    tree._label = coarse_label(tree.label())\n    return ' '.join(['(' + tree.label()] + [my_linearize(c) for c in tree] + [')' + tree.label()])\n",
     'my_linearize', _t39_check_linearize, 'your\\ function\\ changed\\ the\\ tree\\ it\\ was\\ given\\ in\\ place'),   # a second answer of the kind
    ('a list of fractions times 100', '\ndef my_corpus_prf(counts):\n    m, g, t = (sum(col) for col in zip(*counts))\n    p, r = m / t, m / g\n    return [p, r, 2 * p * r / (p + r)] * 100\n',
     'my_corpus_prf', _t39_check_corpus_prf, 'got\\ your\\ three\\ numbers\\ repeated\\ 100\\ times'),   # a second answer of the kind
    ('the tuples summed with sum(counts, ())', '\ndef my_corpus_prf(counts):\n    m, g, t = sum(counts, ())\n    p, r = 100 * m / t, 100 * m / g\n    return p, r, 2 * p * r / (p + r)\n',
     'my_corpus_prf', _t39_check_corpus_prf, '\\+\\ joins\\ two\\ tuples\\ end\\ to\\ end'),   # a second answer of the kind
]

@pytest.mark.parametrize('label, code, name, check, says', THIRTY_NINTH, ids=[r[0] for r in THIRTY_NINTH])
def test_thirty_ninth_blind_answers_named(label, code, name, check, says):
    _t39_rejects(check, _t39_answer(code, name), says=says)
