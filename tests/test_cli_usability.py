"""What a newcomer types first, through the real tools: `-` for standard input, a call with no arguments, input the
model cannot know (unknown pieces, numbers out of the corpus' range), greedy scores labelled as greedy, and a
checkpoint scored on another dataset than its own."""
import os, re, subprocess, sys
import pytest
from functools import partial
import conftest
from conftest import ENV

pytestmark = pytest.mark.slow        # every test here runs the tools in fresh processes (`pytest -m 'not slow'` skips them)
tool = partial(conftest.tool, text=True)

@pytest.fixture(scope='module')
def numbers(tmp_path_factory):
    "A numbers-corpus run (English words -> German), trained for a few updates: the checks need its tokenizer and metadata."
    out = tmp_path_factory.mktemp('usability') / 'numbers'
    r = tool('train', '--preset', 'tiny', '--steps', '3', '--no-progress', '--test-limit', '0', '--out', out)
    assert r.returncode == 0, r.stderr[-2000:]
    return out

def warnings_of(r) -> list[str]: return [l for l in r.stderr.splitlines() if l.startswith('tnb-translate: warning:')]

def test_dash_reads_standard_input(numbers):
    r = tool('translate', numbers, '-', '--beam', '1', stdin='seven\neight\n')
    assert r.returncode == 0, r.stderr
    assert len(r.stdout.splitlines()) == 2                       # two lines in, two out: '-' is not translated itself
    r = tool('translate', numbers, '-', '-i', os.devnull)
    assert r.returncode == 2 and 'not both' in r.stderr

def test_no_arguments_names_only_what_is_required():
    r = tool('translate')
    assert r.returncode == 2
    assert 'required: checkpoint (' in r.stderr and 'sentences' not in r.stderr, r.stderr

def test_input_outside_what_the_model_knows_is_said_and_still_translated(numbers):
    sents = ['seven', 'one million', '1234', 'two point five', 'Three Hundred Forty-Two']
    r = tool('translate', numbers, *sents, '--beam', '1')
    assert r.returncode == 0 and len(r.stdout.splitlines()) == len(sents), r.stderr
    w = warnings_of(r)
    named = {int(l.split('sentence ')[1].split(':')[0]) for l in w}
    assert {2, 3, 4} <= named and 1 not in named, w          # 'seven' is fine; the three out of range are named
    assert any("'one million'" in l and 'zero to 999,999' in l for l in w), w
    r = tool('translate', numbers, '-', '--beam', '1', stdin='seven\none million\n')
    assert any(l.startswith('tnb-translate: warning: standard input, line 2') for l in warnings_of(r)), r.stderr

def test_greedy_scores_are_labelled_greedy(numbers):
    r = tool('evaluate', numbers, '--beam', '1', '--split', 'valid')
    assert r.returncode == 0, r.stderr
    line = next(l for l in r.stdout.splitlines() if l.startswith('exact match'))
    assert line.endswith('(greedy)') and 'alpha' not in line, line

def test_scoring_on_another_dataset_warns_naming_both(numbers):
    r = tool('evaluate', numbers, '--beam', '1', '--dataset', 'copy', '--split', 'valid')
    assert 'trained on the numbers dataset, and --dataset copy' in r.stderr, r.stderr

def test_own_files_run_says_the_command_that_scores_it(tmp_path):
    "A run on one's own files: banner without stray punctuation, the closing loss named by its update, and a closing hint that works."
    import random, shlex
    rnd = random.Random(0)
    words = 'the a dog cat runs sleeps big small red blue'.split()
    for split, n in (('train', 300), ('valid', 20), ('test', 20)):
        src = [' '.join(rnd.choice(words) for _ in range(rnd.randint(2, 6))) for _ in range(n)]
        (tmp_path / f'{split}.src').write_text('\n'.join(src) + '\n'); (tmp_path / f'{split}.tgt').write_text('\n'.join(s.upper() for s in src) + '\n')
    args = ['--dataset', 'files', '--preset', 'tiny', '--vocab-size', '40', '--steps', '6', '--no-progress', '--out', tmp_path / 'run']
    for split in ('train', 'valid', 'test'): args += [f'--{split}', tmp_path / f'{split}.src', tmp_path / f'{split}.tgt']
    r = tool('train', *args)
    assert r.returncode == 0, r.stderr[-2000:]
    out = r.stdout + r.stderr
    assert 'preset tiny;' in out and 'preset tiny ;' not in out, out[-2000:]
    assert 'at update 6' in out, out[-2000:]                       # the closing loss is the final model's
    assert 'warm-up: the default 4,000 updates would outlast this 6-update run, so it is 1, a tenth of the run' in out, out[-2000:]
    valid = [l for l in out.splitlines() if re.match(r'step \d+ epoch \d+: valid loss', l)]
    assert 1 <= len(valid) <= 4, valid                               # a few points, not one per tiny epoch
    nxt = next(l for l in out.splitlines() if l.startswith('next: '))
    score = nxt.split('(then score it: ')[1].rstrip(')')
    argv = shlex.split(score)
    assert argv[0] == 'tnb-evaluate' and '--src' in argv, score
    e = tool('evaluate', *argv[1:], '--beam', '1')
    assert e.returncode == 0, e.stderr[-2000:]
