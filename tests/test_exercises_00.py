"""00_core's exercises, proven by mutation: each "Break it" change is applied to the notebook's own cell (and to the
exported module, as nbdev-export would), the notebook runs top to bottom in an IPython shell of its own (from nbs/, as
nbdev-test runs it: tests/nbtools.py's `break_it`), and the checks that fail are exactly the ones the solution names;
the "Think" exercise's change fails none, as its solution says; exercise 3's check (`check_pad_batch`, from
transformer_nb.course.core) passes the printed solution and another right answer, reports the stub as not written yet,
and names each wrong answer. The exercises on precision moved with it to lib_machine and are proven here too."""
import pytest, torch
from nbtools import assert_no_cell_runs_a_solution, assert_rejects, assert_stub_reported, break_it, cells, code_blocks, namespace
from transformer_nb.course.core import check_pad_batch

NB, EX = '00_core', 'c0e0ex00'
MACHINE = 'lib_machine'

def failing_checks(cell:str|None=None, old:str='', new:str='', nb:str=NB, module:str='core') -> set:
    "Ids of the cells that raise when `nb` runs top to bottom (but its Colab setup) with `old` -> `new` in `cell`."
    return set(break_it(nb, cell, old, new, module if cell else None, skip=('colab-setup',))[0])

def test_the_notebook_passes_unchanged():
    assert failing_checks() == set()

def test_exercise_1_dropping_torch_seed_fails_the_check_after_set_seed():
    "Solution: 'The test cell right after `set_seed` fails' (and, under Going deeper, the device check that repeats a seed there)."
    assert 'The test cell right after `set_seed` fails' in cells(NB)[EX][1]
    assert failing_checks('6945f7e7', 'torch.manual_seed(seed)', 'pass') == {'8201089e', 'e147af02'}

def test_exercise_2_a_plain_list_in_count_params_fails_nothing():
    "Solution: the tests still pass, because `parameters()` already yields a shared matrix once."
    old = "    ps = {id(p): p for p in model.parameters() if p.requires_grad or not trainable_only}\n    return sum(p.numel() for p in ps.values())"
    new = "    ps = [p for p in model.parameters() if p.requires_grad or not trainable_only]\n    return sum(p.numel() for p in ps)"
    assert failing_checks('3cbefbd7', old, new) == set()

# ---------------------------------------------------------------- exercise 3: check_pad_batch
def test_no_cell_runs_a_solution_or_rebinds_the_learners_names():
    assert_no_cell_runs_a_solution(NB, 'pad_batch')

def test_check_pad_batch_passes_right_answers(capsys):
    ns = namespace(NB, '94a43b09', EX)                                       # PAD_ID, then the printed solution
    assert check_pad_batch(ns['pad_batch']) is True
    from torch.nn.utils.rnn import pad_sequence                             # another right answer (long rows: an empty first sentence stays long)
    other = lambda seqs, pad_id=0: pad_sequence([torch.tensor(s, dtype=torch.long) for s in seqs], batch_first=True, padding_value=pad_id)
    assert check_pad_batch(other) is True
    assert capsys.readouterr().out.count('pads on the right with pad_id') == 2

def test_check_pad_batch_reports_the_stub(capsys):
    ns = namespace(NB, '94a43b09', 'c0e0f005')                              # the stub cell calls the check itself
    assert_stub_reported(ns, 'check_pad_batch', 'pad_batch', capsys)

def _padded(seqs, pad_id=0, left=False, fill=None, n=None, dtype=torch.long):
    "Right answers and wrong ones: padded on the left, with another value, to a fixed length, as floats."
    n = n or max(map(len, seqs)); p = pad_id if fill is None else fill
    return torch.tensor([[p] * (n - len(s)) * left + s + [p] * (n - len(s)) * (not left) for s in seqs], dtype=dtype)

def _in_place(seqs, pad_id=0):
    n = max(map(len, seqs))
    for s in seqs: s += [pad_id] * (n - len(s))                             # pads the learner's own lists
    return torch.tensor(seqs)

@pytest.mark.parametrize('wrong, message', [
    (lambda seqs, pad_id=0: _padded(seqs, pad_id, left=True), r"gave \[\[2, 5, 6, 3\], \[0, 2, 7, 3\]\]; you padded on the left"),
    (lambda seqs, pad_id=0: _padded(seqs, pad_id, fill=0), r"pad_id=9\) gave .*; you padded with 0, not with pad_id=9"),
    (lambda seqs, pad_id=0: _padded(seqs, pad_id, n=8), r"shape \(2, 8\); expected \(2, 4\), one row per sentence, as long as the longest"),
    (lambda seqs, pad_id=0: _padded(seqs, pad_id, dtype=torch.float32), r"ids are whole numbers, torch.long .*not torch.float32"),
    (lambda seqs, pad_id=0: _padded(seqs, pad_id, dtype=torch.int32), r"not torch.int32: nn.Embedding reads int32 too, but the same batches are "
                                                                     r"the loss's targets, and F.cross_entropy takes class ids only as torch.long"),
    (lambda seqs, pad_id=0: _padded(seqs, pad_id).tolist(), r"returned a list: return a tensor"),
    (_in_place, r"changed its input lists: build new rows"),
    (lambda seqs, pad_id=0: _padded(seqs, pad_id).flip(1),
     r"gave \[\[3, 6, 5, 2\], \[0, 3, 7, 2\]\]; each row holds the sentence's ids, then pad_id up to the longest"),
], ids=['left', 'zeros', 'fixed length', 'float', 'int32', 'list', 'in place', 'reversed'])
def test_check_pad_batch_names_each_mistake(wrong, message):
    assert_rejects(check_pad_batch, wrong, says=message)

def test_machine_exercise_1_an_autocast_that_ignores_precision_fails_the_check_after_it():
    "lib_machine's exercise 1, solution: 'The test cell right after `autocast`' catches it (and no other)."
    assert 'The test cell right after `autocast`' in cells(MACHINE)['d39be88c'][1]
    old = "    if dtype is None: return contextlib.nullcontext()\n"
    assert failing_checks('c569c8d3', old, "    return contextlib.nullcontext()\n", nb=MACHINE, module='lib.machine') == {'2128bff5'}

def test_machine_exercise_2_experiment_runs_as_printed(capsys):
    ns = {}
    exec("import torch\nfrom transformer_nb.lib.machine import autocast\n" + code_blocks(MACHINE, 'd39be88c')[0], ns)
    out = capsys.readouterr().out.splitlines()
    assert [l.split()[0] for l in out] == ['fp32', 'bf16'] and all(l.endswith('ms per product') for l in out), out

# ---------------------------------------------------------------- fresh wrong answers, written as new learners would
from transformer_nb.core import PAD_ID
from transformer_nb.course import core as _ex
FRESH = {}   # label: (checker, answer, the words its message must contain)
def add(checker, label, kw, *args): FRESH[checker, label] = args

# 00 pad_batch: each answer and the words its message must contain
def pb_list(seqs, pad_id=PAD_ID):
    n = max(len(s) for s in seqs); return [s + [pad_id] * (n - len(s)) for s in seqs]
add('check_pad_batch', 'returns a list', ['list', 'tensor'], pb_list)
def pb_inplace(seqs, pad_id=PAD_ID):
    n = max(len(s) for s in seqs)
    for s in seqs: s.extend([pad_id] * (n - len(s)))
    return torch.tensor(seqs)
add('check_pad_batch', 'extends the input lists in place', ['input', 'changed'], pb_inplace)
def pb_float(seqs, pad_id=PAD_ID):
    n = max(len(s) for s in seqs); return torch.tensor([s + [pad_id] * (n - len(s)) for s in seqs], dtype=torch.float)
add('check_pad_batch', 'float dtype', ['long', 'float'], pb_float)
def pb_zero(seqs, pad_id=PAD_ID):
    n = max(len(s) for s in seqs); return torch.tensor([s + [0] * (n - len(s)) for s in seqs])
add('check_pad_batch', 'pads with 0 always', ['0', 'pad_id'], pb_zero)
def pb_left(seqs, pad_id=PAD_ID):
    n = max(len(s) for s in seqs); return torch.tensor([[pad_id] * (n - len(s)) + s for s in seqs])
add('check_pad_batch', 'pads on the left', ['left'], pb_left)
def pb_first(seqs, pad_id=PAD_ID):
    n = len(seqs[0]); return torch.tensor([(s + [pad_id] * n)[:n] for s in seqs])
add('check_pad_batch', 'pads to the first sequence length', ['longest', 'first', 'shape'], pb_first)
def pb_transposed(seqs, pad_id=PAD_ID):
    n = max(len(s) for s in seqs); return torch.tensor([s + [pad_id] * (n - len(s)) for s in seqs]).T
add('check_pad_batch', 'returns (n, B)', ['transpose', 'shape', '(n, b)'], pb_transposed)
def pb_offby1(seqs, pad_id=PAD_ID):
    n = max(len(s) for s in seqs) + 1; return torch.tensor([s + [pad_id] * (n - len(s)) for s in seqs])
add('check_pad_batch', 'one pad too many', ['longest', 'extra', 'shape'], pb_offby1)
SAYS_CHECK_PAD_BATCH = {
"returns a list": "return\\ a\\ tensor",
"extends the input lists in place": "build\\ new\\ rows,\\ and\\ leave\\ the\\ sentences\\ as\\ they\\ are",
"float dtype": "ids\\ are\\ whole\\ numbers,\\ torch\\.long\\ \\(int64\\),\\ not\\ torch\\.float32",
"pads with 0 always": "you\\ padded\\ with\\ 0,\\ not\\ with\\ pad_id=9",
"pads on the left": "you\\ padded\\ on\\ the\\ left:\\ the\\ pads\\ go\\ after\\ the\\ sentence,\\ on\\ the\\ right",
"pads to the first sequence length": "expected\\ \\(3,\\ 5\\),\\ one\\ row\\ per\\ sentence,\\ as\\ long\\ as\\ the\\ longest",
"returns (n, B)": "expected\\ \\(2,\\ 4\\),\\ one\\ row\\ per\\ sentence,\\ as\\ long\\ as\\ the\\ longest",
"one pad too many": "expected\\ \\(2,\\ 4\\),\\ one\\ row\\ per\\ sentence,\\ as\\ long\\ as\\ the\\ longest"
}

@pytest.mark.parametrize('label', list(SAYS_CHECK_PAD_BATCH))
def test_fresh_wrong_answers_named_by_check_pad_batch(label):
    "Each wrong answer a new learner writes is refused, with a message that names its mistake."
    assert_rejects(_ex.check_pad_batch, *FRESH['check_pad_batch', label], says=SAYS_CHECK_PAD_BATCH[label])


def _pb_longest(seqs, pad_id=_ex.PAD_ID): n = max(map(len, seqs)); return torch.tensor([s + [pad_id] * (n - len(s)) for s in seqs])
def _pb_first_length(seqs, pad_id=_ex.PAD_ID): n = len(seqs[0]); return torch.tensor([s + [pad_id] * (n - len(s)) for s in seqs])

def test_rows_padded_to_the_first_sentence_are_named():
    "Rows padded to the first sentence's length leave torch.tensor a ragged list: the check names that, not the bare ValueError."
    assert_rejects(_ex.check_pad_batch, _pb_first_length, says=r"raised ValueError \(expected sequence of length .*\): the rows still have "
                   r"different lengths: it runs when the longest sentence comes first: your width is the longest of the first sentences alone; "
                   r"take it over the whole batch; pad every row to the longest sentence, n = max\(len\(s\) for s in seqs\)")
    assert _ex.check_pad_batch(_pb_longest) is True

# ---------------------------------------------------------------- mistakes nobody listed, named by what the answer does
def _rows(seqs, pad_id): n = max(map(len, seqs)); return [s + [pad_id] * (n - len(s)) for s in seqs]

@pytest.mark.parametrize('answer, says', [
    (lambda seqs, pad_id=0: torch.tensor(_rows(seqs, pad_id)).T, r"shape \(4, 2\); expected \(2, 4\), one row per sentence, as long as the longest: rows and columns are swapped"),
    (lambda seqs, pad_id=0: torch.tensor([r + [pad_id] for r in _rows(seqs, pad_id)]), r"shape \(2, 5\); .*: yours is padded to 5, 1 more than the longest sentence \(4\)"),
    (lambda seqs, pad_id=0: torch.tensor(sorted(_rows(seqs, pad_id), key=lambda r: -len([x for x in r if x != pad_id]))),
     r"pad_id=9\) gave .*; the rows are in another order: row i is seqs\[i\], padded"),
    (lambda seqs, pad_id=0: torch.tensor(_rows([s[::-1] for s in seqs], pad_id)), r"row 0 is \[3, 6, 5, 2\], expected \[2, 5, 6, 3\]; yours reversed the sentence"),
])
def test_pad_batch_mistakes_nobody_listed_are_named_by_property(answer, says):
    assert_rejects(check_pad_batch, answer, says=says)

# ---------------------------------------------------------------- slips of later blind answers, named by property
def test_check_pad_batch_names_an_empty_sentence_that_makes_the_batch_float():
    import torch.nn.functional as F
    stacked = lambda seqs, pad_id=0: torch.stack([F.pad(torch.tensor(s), (0, max(map(len, seqs)) - len(s)), value=pad_id) for s in seqs])
    assert_rejects(check_pad_batch, stacked, says=r"pad_batch\(\[\[2, 5, 3\], \[\]\]\): .*not torch.float32: torch.tensor\(\[\]\) of an "
                   r"empty sentence is float32, which makes the batch float; give dtype=torch.long")

def test_check_pad_batch_names_a_width_taken_from_the_ends_or_from_the_number_of_sentences():
    "A longest sentence in the middle, and more sentences than the longest has tokens, show where a wrong width came from."
    ends = lambda seqs, pad_id=0: torch.tensor([(s + [pad_id] * 9)[:max(len(seqs[0]), len(seqs[-1]))] for s in seqs])
    assert_rejects(check_pad_batch, ends, says=r"pad_batch\(\[\[2, 3\], \[2, 4, 4, 4, 3\], \[2, 3\]\]\): shape \(3, 2\); .*yours is cut to 2.*"
                   r"\(the longest of the first and last sentences: the longest can stand anywhere, max\(len\(s\) for s in seqs\)\)")
    wide = lambda seqs, pad_id=0: torch.tensor([s + [pad_id] * (max(len(seqs), *map(len, seqs)) - len(s)) for s in seqs])
    assert_rejects(check_pad_batch, wide, says=r"shape \(5, 5\); expected \(5, 3\), .*yours is padded to 5, 2 more than the longest sentence \(3\) "
                   r"\(5 is the number of sentences, B, not a length\)")
    assert check_pad_batch(_pb_longest) is True

# ---------------------------------------------------------------- a fresh blind set: wrong answers written before reading the messages
import re as _n9re
from nbtools import assert_rejects as _n9_rejects
from transformer_nb.course.core import check_pad_batch as _n9_pad
def _n9_pb_float(seqs, pad_id=0):
    n = max(len(s) for s in seqs); return torch.Tensor([s + [pad_id] * (n - len(s)) for s in seqs])   # torch.Tensor makes floats
def _n9_pb_seqfirst(seqs, pad_id=0):
    from torch.nn.utils.rnn import pad_sequence
    return pad_sequence([torch.tensor(s) for s in seqs], padding_value=pad_id)                      # batch_first left False
NINTH = [('torch.Tensor gives floats', _n9_pad, (_n9_pb_float,), "ids are whole numbers, torch.long"),
         ('pad_sequence without batch_first', _n9_pad, (_n9_pb_seqfirst,), "pad_sequence needs batch_first=True")]
NINTH += [('padded to a fixed 10', _n9_pad, (lambda seqs, pad_id=0: torch.tensor([s + [pad_id] * (10 - len(s)) for s in seqs]),), "yours is padded to 10")]

@pytest.mark.parametrize('label', [c[0] for c in NINTH])
def test_ninth_blind_answers_named(label):
    "Each answer of the blind set is refused with a message that names its mistake."
    _, check, answer, words = next(c for c in NINTH if c[0] == label)
    _n9_rejects(check, *answer, says=_n9re.escape(words))

# ---------------------------------------------------------------- the sixteenth blind set's misses
from transformer_nb.core import EOS_ID
def _pad(seqs, pad_id=PAD_ID, extra=()):
    n = max(len(s) for s in seqs) + len(extra)
    return torch.tensor([s + list(extra) + [pad_id] * (n - len(s) - len(extra)) for s in seqs])

@pytest.mark.parametrize('answer, says', [
    (lambda seqs, pad_id=PAD_ID: torch.tensor([t for s in seqs for t in s]), r"shape \(7,\); .*one 1-d stream of every id, the sentences concatenated"),
    (lambda seqs, pad_id=PAD_ID: _pad(seqs, pad_id, extra=(EOS_ID,)), r"each row is its sentence, then EOS_ID \(3\), then the pads"),
    (lambda seqs, pad_id=PAD_ID: (_pad(seqs, pad_id) != pad_id).long(), r"your rows hold 1 for each word and 0 for each pad: that is the attention mask"),
], ids=['one stream', 'EOS appended', 'the mask'])
def test_the_sixteenth_sets_misses_are_named(answer, says):
    assert_rejects(check_pad_batch, answer, says=says)

# ---------------------------------------------------------------- the seventeenth blind set's misses
from torch.nn.utils.rnn import pad_sequence
from transformer_nb.core import BOS_ID
def _no_default(seqs, pad_id): return _pad(seqs, pad_id)
def _viewed(seqs, pad_id=PAD_ID):
    t = pad_sequence([torch.tensor(s) for s in seqs], padding_value=pad_id)
    return t.view(t.shape[1], t.shape[0])

@pytest.mark.parametrize('answer, says', [
    (lambda seqs, pad_id=PAD_ID: torch.tensor([[BOS_ID] + r for r in _pad(seqs, pad_id).tolist()]), r"each row is 2 \(a BOS\), then its sentence"),
    (lambda seqs, pad_id=PAD_ID: _pad(seqs, -1), r"you padded with -1, not with pad_id=0: -1 and -100 mark the targets a loss ignores"),
    (_no_default, r"raised TypeError .*: pad_id has a default, def pad_batch\(seqs, pad_id=PAD_ID\)"),
    (_viewed, r"your rows are the time-first \(n, B\) batch read as \(B, n\)"),
], ids=['BOS prepended', 'padded with -1', 'pad_id without a default', 'time-first viewed'])
def test_the_seventeenth_sets_misses_are_named(answer, says):
    assert_rejects(check_pad_batch, answer, says=says)

# ---------------------------------------------------------------- the nineteenth blind set's misses
def _first_row_only(seqs, pad_id=PAD_ID):
    for r in _pad(seqs, pad_id).tolist(): return torch.tensor([r])

@pytest.mark.parametrize('answer, says', [
    (lambda seqs, pad_id=PAD_ID: _pad(seqs, pad_id).squeeze(), r"pad_batch\(\[\[2, 3\]\]\): shape \(2,\); .*a batch of one came back without its batch axis \(a \.squeeze\(\)"),
    (lambda seqs, pad_id=PAD_ID: torch.tensor([s[:-1] + [pad_id] * (max(map(len, seqs)) - len(s)) + s[-1:] for s in seqs]),
     r"the pads went in before each sentence's last id \(its </s>, EOS_ID = 3\)"),
    (_first_row_only, r"shape \(1, 4\); .*one row for 2 sentences: a return inside the loop"),
], ids=['squeezed', 'pads before the EOS', 'first row only'])
def test_the_nineteenth_sets_misses_are_named(answer, says):
    assert_rejects(check_pad_batch, answer, says=says)


# ---------------------------------------------------------------- the twenty-first blind set's misses
from transformer_nb.course.core import check_pad_batch as _t21_check_pad_batch
from nbtools import assert_rejects as _t21_rejects

_T21_PRELUDE = 'from transformer_nb.core import PAD_ID'   # the names the exercise's cell sees
_T21 = {   # label: (the exercise's function, the answer's code, what its message must say)
    'changes the global default dtype (torch.set_default_dtype(torch.float64))': ('pad_batch', '\ndef pad_batch(seqs, pad_id=PAD_ID):\n    torch.set_default_dtype(torch.float64)\n    n = max(len(s) for s in seqs)\n    return torch.tensor([list(s) + [pad_id] * (n - len(s)) for s in seqs], dtype=torch.long)',
        "pad_batch changed PyTorch's default dtype to torch\\.float64"),
    'reseeds the global generator (torch.manual_seed(0))': ('pad_batch', '\ndef pad_batch(seqs, pad_id=PAD_ID):\n    torch.manual_seed(0)\n    n = max(len(s) for s in seqs)\n    return torch.tensor([list(s) + [pad_id] * (n - len(s)) for s in seqs], dtype=torch.long)',
        "pad_batch reseeds PyTorch's generator \\(torch\\.manual_seed\\)"),
    "truncated to 16 tokens (Hugging Face's truncation=True, max_length=16)": ('pad_batch', '\ndef pad_batch(seqs, pad_id=PAD_ID):\n    seqs = [list(s)[:16] for s in seqs]\n    n = max(len(s) for s in seqs)\n    return torch.tensor([s + [pad_id] * (n - len(s)) for s in seqs], dtype=torch.long)',
        '\\(602 ids\\), \\[2, 3\\]\\]\\): shape \\(2, 16\\); expected \\(2, 602\\)'),
    'identical sentences merged (dict.fromkeys of tuples): fewer rows': ('pad_batch', '\ndef pad_batch(seqs, pad_id=PAD_ID):\n    seqs = [list(s) for s in dict.fromkeys(map(tuple, seqs))]\n    n = max(len(s) for s in seqs)\n    return torch.tensor([s + [pad_id] * (n - len(s)) for s in seqs], dtype=torch.long)',
        '2 rows for 3 sentences, one per distinct sentence'),
    'every id equal to pad_id inside a sentence dropped first (pads stripped, then padded)': ('pad_batch', '\ndef pad_batch(seqs, pad_id=PAD_ID):\n    seqs = [[t for t in s if t != pad_id] for s in seqs]\n    n = max(len(s) for s in seqs)\n    return torch.tensor([s + [pad_id] * (n - len(s)) for s in seqs], dtype=torch.long)',
        'the ids equal to pad_id=9 inside a sentence were dropped'),
}

@pytest.mark.parametrize('label', list(_T21))
def test_the_twenty_first_sets_misses_are_named(label):
    import math, torch, torch.nn as nn, torch.nn.functional as F
    fn, src, says = _T21[label]
    ns = dict(math=math, torch=torch, nn=nn, F=F)
    exec(_T21_PRELUDE, ns); exec(src, ns)
    check = {'pad_batch': _t21_check_pad_batch}[fn]
    dtype, grad = torch.get_default_dtype(), torch.is_grad_enabled()
    try: _t21_rejects(check, ns[fn], says=says)
    finally: torch.set_default_dtype(dtype); torch.set_grad_enabled(grad)   # an answer that changes them must not change the next test


# ---------------------------------------------------------------- the twenty-third blind set's misses
from transformer_nb.course.core import check_pad_batch as _t23_check_pad_batch
from nbtools import assert_rejects as _t23_rejects

_T23_PRELUDE = 'from transformer_nb.core import PAD_ID'   # the names the exercise's cell sees
_T23 = {   # label: (the exercise's function, the answer's code, what its message must say)
    'one module-level buffer reused: a later call overwrites the batch returned before': ('pad_batch', '\n_BUF = torch.zeros(1024, 1024, dtype=torch.long)\ndef pad_batch(seqs, pad_id=PAD_ID):\n    n = max(len(s) for s in seqs)\n    out = _BUF[:len(seqs), :n]\n    out.fill_(pad_id)\n    for i, s in enumerate(seqs): out[i, :len(s)] = torch.tensor(s, dtype=torch.long)\n    return out',
        'a\\ second\\ call\\ changed\\ the\\ batch\\ the\\ first\\ returned'),
}

@pytest.mark.parametrize('label', list(_T23))
def test_the_twenty_third_sets_misses_are_named(label):
    import math, torch, torch.nn as nn, torch.nn.functional as F
    fn, src, says = _T23[label]
    ns = dict(math=math, torch=torch, nn=nn, F=F)
    exec(_T23_PRELUDE, ns); exec(src, ns)
    check = {'pad_batch': _t23_check_pad_batch}[fn]
    dtype, grad = torch.get_default_dtype(), torch.is_grad_enabled()
    try: _t23_rejects(check, ns[fn], says=says)
    finally: torch.set_default_dtype(dtype); torch.set_grad_enabled(grad)   # an answer that changes them must not change the next test


# ---------------------------------------------------------------- the twenty-fourth blind set's misses
from transformer_nb.course.core import check_pad_batch as _t24_check_pad_batch
from nbtools import assert_rejects as _t24_rejects

_T24_PRELUDE = 'import math, copy, random, torch, torch.nn as nn, torch.nn.functional as F\nfrom collections import Counter\nfrom transformer_nb.core import *'   # the names the exercise's cell sees
_T24 = {   # label: (the exercise, the answer's code, what its message must say)
    'pad_sequence of torch.tensor(s): an empty sentence is float32 and turns the batch float': ('pad_batch', '\nfrom torch.nn.utils.rnn import pad_sequence\ndef pad_batch(seqs, pad_id=PAD_ID):\n    return pad_sequence([torch.tensor(s) for s in seqs], batch_first=True, padding_value=pad_id)',
        'pad_batch\\(\\[\\[\\], \\[2, 5, 3\\]\\]\\): ids are whole numbers, .*torch.tensor\\(\\[\\]\\) of an empty sentence is float32'),
    'C loop to len(s) - 1: the last token of each sentence left as a pad': ('pad_batch', '\ndef pad_batch(seqs, pad_id=PAD_ID):\n    n = max(len(s) for s in seqs)\n    out = torch.full((len(seqs), n), pad_id, dtype=torch.long)\n    for i in range(len(seqs)):\n        for j in range(len(seqs[i]) - 1):\n            out[i, j] = seqs[i][j]\n    return out',
        "each sentence's last id became a pad: .*range\\(len\\(s\\) - 1\\)"),
    'one row buffer reused for every sentence: all rows alias the last one': ('pad_batch', '\ndef pad_batch(seqs, pad_id=PAD_ID):\n    n = max(len(s) for s in seqs)\n    row, rows = torch.full((n,), pad_id, dtype=torch.long), []\n    for s in seqs:\n        row.fill_(pad_id); row[:len(s)] = torch.tensor(s, dtype=torch.long)\n        rows.append(row)\n    return torch.stack(rows)',
        "every row is the last sentence's, \\[2, 7, 3, 0\\]: one row tensor was filled for each sentence"),
}

@pytest.mark.parametrize('label', list(_T24))
def test_the_twenty_fourth_sets_misses_are_named(label):
    import torch
    ex, src, says = _T24[label]
    ns = {}
    exec(_T24_PRELUDE, ns); exec(src, ns)
    run = {'pad_batch': lambda ns: _t24_check_pad_batch(ns['pad_batch'])}[ex]
    dtype, grad = torch.get_default_dtype(), torch.is_grad_enabled()
    try: _t24_rejects(lambda: run(ns), says=says)
    finally: torch.set_default_dtype(dtype); torch.set_grad_enabled(grad)   # an answer that changes them must not change the next test


# ---------------------------------------------------------------- the twenty-sixth blind set's misses
from nbtools import assert_rejects as _t26_rejects

_T26_PRELUDE = 'import math, copy, random, torch, torch.nn as nn, torch.nn.functional as F\nfrom collections import Counter\nfrom transformer_nb.core import *\nfrom transformer_nb.course.core import check_pad_batch'   # the names the exercise's cell sees
_T26 = {   # label: (the exercise, the answer's code, what its message must say)
    'the longest length kept between calls (state): a later, shorter batch padded too wide': ('pad_batch', '\n_longest = [0]\ndef pad_batch(seqs, pad_id=PAD_ID):\n    _longest[0] = max([_longest[0]] + [len(s) for s in seqs])\n    n = _longest[0]\n    return torch.tensor([list(s) + [pad_id] * (n - len(s)) for s in seqs], dtype=torch.long)',
        'your width is kept between calls \\(the longest so far\\)'),
}

@pytest.mark.parametrize('label', list(_T26))
def test_the_twenty_sixth_sets_misses_are_named(label):
    import torch
    ex, src, says = _T26[label]
    ns = {}
    exec(_T26_PRELUDE, ns); exec(src, ns)
    calls = {'pad_batch': 'check_pad_batch(pad_batch)'}
    dtype, grad = torch.get_default_dtype(), torch.is_grad_enabled()
    try: _t26_rejects(lambda: eval(calls[ex], ns), says=says)
    finally: torch.set_default_dtype(dtype); torch.set_grad_enabled(grad)   # an answer that changes them must not change the next test


# ---------------------------------------------------------------- the twenty-eighth blind set's misses
from nbtools import assert_rejects as _t28_rejects

_T28_PRELUDE = 'import math, copy, random, torch, torch.nn as nn, torch.nn.functional as F\nfrom collections import Counter\nfrom transformer_nb.core import *\nfrom transformer_nb.course.core import check_pad_batch'   # the names the exercise's cell sees
_T28 = {   # label: (the exercise, the answer's code, what its message must say)
    'empty sentences skipped: fewer rows than sentences': ('pad_batch', '\ndef pad_batch(seqs, pad_id=PAD_ID):\n    n = max(len(s) for s in seqs)\n    return torch.tensor([list(s) + [pad_id] * (n - len(s)) for s in seqs if s], dtype=torch.long)',
        'the empty sentences got no row'),
    'the pads split between both ends (each sentence centred)': ('pad_batch', '\ndef pad_batch(seqs, pad_id=PAD_ID):\n    n = max(len(s) for s in seqs)\n    rows = [[pad_id] * ((n - len(s)) // 2) + list(s) + [pad_id] * (n - len(s) - (n - len(s)) // 2) for s in seqs]\n    return torch.tensor(rows, dtype=torch.long)',
        'the padding split between both ends'),
    'the longest of the first two sentences only (tuned to the example of two)': ('pad_batch', '\ndef pad_batch(seqs, pad_id=PAD_ID):\n    n = max(len(s) for s in seqs[:2])\n    return torch.tensor([list(s) + [pad_id] * (n - len(s)) for s in seqs], dtype=torch.long)',
        'your width is the longest of the first sentences alone'),
    'two slips that cancel on the example: one pad too many, then the first column dropped': ('pad_batch', '\ndef pad_batch(seqs, pad_id=PAD_ID):\n    n = max(len(s) for s in seqs) + 1\n    return torch.tensor([list(s) + [pad_id] * (n - len(s)) for s in seqs], dtype=torch.long)[:, 1:]',
        "every row starts at its sentence's second id"),
    'a while loop to n - 1: every shorter sentence one pad short': ('pad_batch', '\ndef pad_batch(seqs, pad_id=PAD_ID):\n    n, rows = max(len(s) for s in seqs), []\n    for s in seqs:\n        r = list(s)\n        while len(r) < n - 1: r.append(pad_id)\n        rows.append(r)\n    return torch.tensor(rows, dtype=torch.long)',
        'the shorter sentences were padded to n - 1, one short'),
    'the width counted in distinct ids (len(set(s))): a sentence with a repeated id is cut': ('pad_batch', '\ndef pad_batch(seqs, pad_id=PAD_ID):\n    n = max(len(set(s)) for s in seqs)\n    return torch.tensor([list(s)[:n] + [pad_id] * (n - len(s)) for s in seqs], dtype=torch.long)',
        'is the most distinct ids in one sentence'),
}

@pytest.mark.parametrize('label', list(_T28))
def test_the_twenty_eighth_sets_misses_are_named(label):
    import torch
    ex, src, says = _T28[label]
    ns = {}
    exec(_T28_PRELUDE, ns); exec(src, ns)
    calls = {'pad_batch': 'check_pad_batch(pad_batch)'}
    dtype, grad = torch.get_default_dtype(), torch.is_grad_enabled()
    try: _t28_rejects(lambda: eval(calls[ex], ns), says=says)
    finally: torch.set_default_dtype(dtype); torch.set_grad_enabled(grad)   # an answer that changes them must not change the next test

# ---------------------------------------------------------------- the thirty-second blind set's misses, and another learner's variant of each
from nbtools import assert_rejects as _t32_rejects

_T32_PRELUDE = 'import math, copy, random, torch, torch.nn as nn, torch.nn.functional as F\nfrom collections import Counter\nfrom transformer_nb.core import *\nfrom transformer_nb.course.core import check_pad_batch'   # the names the exercise's cell sees
_T32 = {   # label: (the exercise, the answer's code, what its message must say)
    'the width len(max(seqs))': ('pad_batch', '\ndef pad_batch(seqs, pad_id=PAD_ID):\n    n = len(max(seqs))\n    return torch.tensor([list(s) + [pad_id] * (n - len(s)) for s in seqs], dtype=torch.long)',
        'your\\ width\\ is\\ the\\ length\\ of\\ max\\(seqs\\),\\ and\\ max\\ compares\\ lists\\ id\\ by\\ id'),
    'variant: the width of sorted(seqs)[-1], the rows cut to it': ('pad_batch', '\ndef pad_batch(seqs, pad_id=PAD_ID):\n    n = len(sorted(seqs)[-1])\n    return torch.tensor([list(s)[:n] + [pad_id] * (n - len(s[:n])) for s in seqs], dtype=torch.long)',
        'your\\ width\\ is\\ the\\ length\\ of\\ max\\(seqs\\),\\ and\\ max\\ compares\\ lists\\ id\\ by\\ id'),
    'the width of the last sentence': ('pad_batch', '\ndef pad_batch(seqs, pad_id=PAD_ID):\n    n = len(seqs[-1])\n    return torch.tensor([list(s) + [pad_id] * (n - len(s)) for s in seqs], dtype=torch.long)',
        'it\\ runs\\ when\\ the\\ longest\\ sentence\\ comes\\ last,\\ and\\ not\\ when\\ it\\ comes\\ first'),
    "variant: the last sentence's width, the rows cut to it": ('pad_batch', '\ndef pad_batch(seqs, pad_id=PAD_ID):\n    n = len(seqs[-1])\n    return torch.tensor([list(s)[:n] + [pad_id] * (n - len(s[:n])) for s in seqs], dtype=torch.long)',
        'it\\ runs\\ when\\ the\\ longest\\ sentence\\ comes\\ last,\\ and\\ not\\ when\\ it\\ comes\\ first'),
    'pad_id keyword-only': ('pad_batch', '\ndef pad_batch(seqs, *, pad_id=PAD_ID):\n    n = max(len(s) for s in seqs)\n    return torch.tensor([list(s) + [pad_id] * (n - len(s)) for s in seqs], dtype=torch.long)',
        'the\\ notebook\\ passes\\ pad_id\\ second,\\ pad_batch\\(seqs,\\ pad_id\\)'),
    'variant: pad_id read from **kw': ('pad_batch', "\ndef pad_batch(seqs, **kw):\n    pad_id, n = kw.get('pad_id', PAD_ID), max(len(s) for s in seqs)\n    return torch.tensor([list(s) + [pad_id] * (n - len(s)) for s in seqs], dtype=torch.long)",
        'the\\ notebook\\ passes\\ pad_id\\ second,\\ pad_batch\\(seqs,\\ pad_id\\)'),
    'a batch of one returned as its row': ('pad_batch', '\ndef pad_batch(seqs, pad_id=PAD_ID):\n    if len(seqs) == 1: return torch.tensor(seqs[0], dtype=torch.long)\n    n = max(len(s) for s in seqs)\n    return torch.tensor([list(s) + [pad_id] * (n - len(s)) for s in seqs], dtype=torch.long)',
        'a\\ batch\\ of\\ one\\ came\\ back\\ without\\ its\\ batch\\ axis\\ \\(a\\ \\.squeeze\\(\\),\\ which\\ drops\\ every\\ size\\-1\\ axis,\\ B\\ =\\ 1\\ too,\\ or\\ a\\ lone\\ sentence\\ returned\\ as\\ its\\ row\\)'),
}

@pytest.mark.parametrize('label', list(_T32))
def test_the_thirty_second_sets_misses_are_named(label):
    import torch
    ex, src, says = _T32[label]
    ns = {}
    exec(_T32_PRELUDE, ns); exec(src, ns)
    calls = {'pad_batch': 'check_pad_batch(pad_batch)'}
    dtype, grad = torch.get_default_dtype(), torch.is_grad_enabled()
    try: _t32_rejects(lambda: eval(calls[ex], ns), says=says)
    finally: torch.set_default_dtype(dtype); torch.set_grad_enabled(grad)   # an answer that changes them must not change the next test

# ---------------------------------------------------------------- the thirty-sixth blind set's misses, and another learner's variant of each
from nbtools import assert_rejects as _t36_rejects

_T36_PRELUDE = _T32_PRELUDE   # the names the exercise's cell sees
_T36 = {   # label: (the exercise, the answer's code, what its message must say)
    'a zeros batch, then every 0 turned into pad_id: a real id 0 inside a sentence becomes a pad': ('pad_batch', '\ndef pad_batch(seqs, pad_id=PAD_ID):\n    n = max(len(s) for s in seqs)\n    out = torch.zeros(len(seqs), n, dtype=torch.long)\n    for i, s in enumerate(seqs): out[i, :len(s)] = torch.tensor(s, dtype=torch.long)\n    out[out == 0] = pad_id          # the empty places are the zeros\n    return out\n',
        'the\\ id\\ 0\\ inside\\ a\\ sentence\\ became\\ pad_id=9'),
    'variant: 0-padded rows, then torch.where(batch == 0, pad_id, batch)': ('pad_batch', '\ndef pad_batch(seqs, pad_id=PAD_ID):\n    n = max(len(s) for s in seqs)\n    t = torch.tensor([s + [0] * (n - len(s)) for s in seqs], dtype=torch.long)\n    return torch.where(t == 0, pad_id, t)',
        'the\\ id\\ 0\\ inside\\ a\\ sentence\\ became\\ pad_id=9'),
    "the rows gathered in a mutable default list: a second call returns the first call's rows too": ('pad_batch', '\ndef pad_batch(seqs, pad_id=PAD_ID, rows=[]):\n    n = max(len(s) for s in seqs)\n    for s in seqs: rows.append(s + [pad_id] * (n - len(s)))\n    return torch.tensor(rows, dtype=torch.long)\n',
        'rows\\ of\\ earlier\\ calls\\ are\\ still\\ there,\\ in\\ a\\ list\\ kept\\ between\\ calls'),
    'variant: the rows gathered in a global list': ('pad_batch', '\n_ROWS = []\ndef pad_batch(seqs, pad_id=PAD_ID):\n    n = max(len(s) for s in seqs)\n    _ROWS.extend(list(s) + [pad_id] * (n - len(s)) for s in seqs)\n    return torch.tensor(_ROWS, dtype=torch.long)',
        'rows\\ of\\ earlier\\ calls\\ are\\ still\\ there,\\ in\\ a\\ list\\ kept\\ between\\ calls'),
    'a float32 batch filled, then .long(): ids above 2**24 rounded': ('pad_batch', '\ndef pad_batch(seqs, pad_id=PAD_ID):\n    n = max(len(s) for s in seqs)\n    out = torch.full((len(seqs), n), float(pad_id))\n    for i, s in enumerate(seqs): out[i, :len(s)] = torch.tensor(s, dtype=torch.float)\n    return out.long()               # ids are integers\n',
        'the\\ id\\ 16777217\\ came\\ back\\ as\\ 16777216:\\ your\\ ids\\ went\\ through\\ float32'),
    'variant: the rows as a float tensor, then .long()': ('pad_batch', '\ndef pad_batch(seqs, pad_id=PAD_ID):\n    n = max(len(s) for s in seqs)\n    return torch.tensor([s + [pad_id] * (n - len(s)) for s in seqs], dtype=torch.float).long()',
        'the\\ id\\ 16777217\\ came\\ back\\ as\\ 16777216'),
    'the sentences as separate arguments (def pad_batch(*seqs, pad_id=PAD_ID))': ('pad_batch', '\ndef pad_batch(*seqs, pad_id=PAD_ID):\n    n = max(len(s) for s in seqs)\n    return torch.tensor([list(s) + [pad_id] * (n - len(s)) for s in seqs], dtype=torch.long)\n',
        'pad_batch\\(\\*seqs\\),\\ each\\ sentence\\ its\\ own\\ argument,\\ pads\\ right'),
    'variant: *seqs and no pad_id at all': ('pad_batch', '\ndef pad_batch(*seqs):\n    n = max(len(s) for s in seqs)\n    return torch.tensor([list(s) + [PAD_ID] * (n - len(s)) for s in seqs], dtype=torch.long)',
        'pad_batch\\(\\*seqs\\),\\ each\\ sentence\\ its\\ own\\ argument,\\ pads\\ right'),
    'trailing ids equal to pad_id stripped before padding: a sentence ending in that id shortened': ('pad_batch', '\ndef pad_batch(seqs, pad_id=PAD_ID):\n    rows = []\n    for s in seqs:\n        s = list(s)\n        while s and s[-1] == pad_id: s = s[:-1]     # an already padded sentence: its pads off first\n        rows.append(s)\n    n = max(len(s) for s in rows)\n    return torch.tensor([s + [pad_id] * (n - len(s)) for s in rows], dtype=torch.long)\n',
        "\\[2,\\ 5,\\ 7\\]\\ ends\\ in\\ 7,\\ pad_id's\\ value,\\ and\\ lost\\ it"),
    'variant: the pads popped off each sentence first': ('pad_batch', '\ndef pad_batch(seqs, pad_id=PAD_ID):\n    rows = [list(s) for s in seqs]\n    for r in rows:\n        while r and r[-1] == pad_id: r.pop()\n    n = max(len(r) for r in rows)\n    return torch.tensor([r + [pad_id] * (n - len(r)) for r in rows], dtype=torch.long)',
        "\\[2,\\ 5,\\ 7\\]\\ ends\\ in\\ 7,\\ pad_id's\\ value,\\ and\\ lost\\ it"),
    'the width from sentences 1 .. B-1 (a 1-based habit): a longest first sentence cut': ('pad_batch', '\ndef pad_batch(seqs, pad_id=PAD_ID):\n    n = max([len(seqs[i]) for i in range(1, len(seqs))] or [len(seqs[0])])\n    return torch.tensor([(s + [pad_id] * (n - len(s)))[:n] for s in seqs], dtype=torch.long)\n',
        'your\\ width\\ is\\ the\\ longest\\ of\\ every\\ sentence\\ but\\ the\\ first'),
    'variant: max(len(s) for s in seqs[1:]), the rows cut to it': ('pad_batch', '\ndef pad_batch(seqs, pad_id=PAD_ID):\n    n = max(len(s) for s in (seqs[1:] or seqs))\n    return torch.tensor([list(s)[:n] + [pad_id] * (n - len(s[:n])) for s in seqs], dtype=torch.long)',
        'your\\ width\\ is\\ the\\ longest\\ of\\ every\\ sentence\\ but\\ the\\ first'),
    'at least one column (max(1, longest)): an all-empty batch gets a pad column': ('pad_batch', '\ndef pad_batch(seqs, pad_id=PAD_ID):\n    n = max(1, max(len(s) for s in seqs))     # never a batch of width 0\n    return torch.tensor([s + [pad_id] * (n - len(s)) for s in seqs], dtype=torch.long)\n',
        'every\\ sentence\\ is\\ empty,\\ so\\ the\\ batch\\ has\\ no\\ column,\\ \\(B,\\ 0\\)'),
    'variant: the width `or 1`': ('pad_batch', '\ndef pad_batch(seqs, pad_id=PAD_ID):\n    n = max(len(s) for s in seqs) or 1\n    return torch.tensor([list(s) + [pad_id] * (n - len(s)) for s in seqs], dtype=torch.long)',
        'every\\ sentence\\ is\\ empty,\\ so\\ the\\ batch\\ has\\ no\\ column,\\ \\(B,\\ 0\\)'),
    'np.resize to the width: a short sentence filled by repeating its own ids, not pad_id': ('pad_batch', '\nimport numpy as np\ndef pad_batch(seqs, pad_id=PAD_ID):\n    n = max(len(s) for s in seqs)\n    return torch.tensor(np.array([np.resize(np.array(s, dtype=np.int64), n) if s else np.full(n, pad_id) for s in seqs]), dtype=torch.long)\n',
        "the\\ pad\\ slots\\ repeat\\ each\\ sentence's\\ own\\ ids"),
    'variant: itertools.cycle to the width': ('pad_batch', '\nimport itertools\ndef pad_batch(seqs, pad_id=PAD_ID):\n    n = max(len(s) for s in seqs)\n    return torch.tensor([list(itertools.islice(itertools.cycle(s), n)) if s else [pad_id] * n for s in seqs], dtype=torch.long)',
        "the\\ pad\\ slots\\ repeat\\ each\\ sentence's\\ own\\ ids"),
    'a bracket closed early, s + [pad_id * (n - len(s))]: one item appended, worth pad_id times the gap': ('pad_batch', '\ndef pad_batch(seqs, pad_id=PAD_ID):\n    n = max(len(s) for s in seqs)\n    return torch.tensor([s + [pad_id * (n - len(s))] for s in seqs], dtype=torch.long)\n',
        'every\\ row\\ got\\ one\\ item\\ more,\\ pad_id\\ times\\ the\\ gap'),
    'variant: [*s, pad_id * (n - len(s))]': ('pad_batch', '\ndef pad_batch(seqs, pad_id=PAD_ID):\n    n = max(len(s) for s in seqs)\n    return torch.tensor([[*s, pad_id * (n - len(s))] for s in seqs], dtype=torch.long)',
        'every\\ row\\ got\\ one\\ item\\ more,\\ pad_id\\ times\\ the\\ gap'),
}

@pytest.mark.parametrize('label', list(_T36))
def test_the_thirty_sixth_sets_misses_are_named(label):
    import torch
    ex, src, says = _T36[label]
    ns = {}
    exec(_T36_PRELUDE, ns); exec(src, ns)
    calls = {'pad_batch': 'check_pad_batch(pad_batch)'}
    dtype, grad = torch.get_default_dtype(), torch.is_grad_enabled()
    try: _t36_rejects(lambda: eval(calls[ex], ns), says=says)
    finally: torch.set_default_dtype(dtype); torch.set_grad_enabled(grad)   # an answer that changes them must not change the next test
