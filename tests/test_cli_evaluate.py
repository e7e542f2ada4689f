"""`tnb-evaluate` as a user runs it, with real processes: the checkpoint's own test split by default, an empty test set
refused, blank references left out with the hypotheses kept aligned, records named by their split, greedy scores
labelled greedy, and a warning when a checkpoint is scored on another dataset than its own."""
import json
import pytest, torch
from conftest import tool, text_tool, one_line, said as lines
pytestmark = pytest.mark.slow        # every test here runs the tools in fresh processes (`pytest -m 'not slow'` skips them)

@pytest.fixture(scope='module')
def run(two_step_run):
    "A tiny copy-task run of two updates (`checkpoint-0000002.pt`)."
    return two_step_run

@pytest.mark.parametrize('content', ['', ' \n\n\t\n'])
def test_empty_or_blank_test_set(run, tmp_path, content):
    (tmp_path / 's').write_text(content); (tmp_path / 'r').write_text(content)
    r = tool('evaluate', run, '--src', tmp_path / 's', '--ref', tmp_path / 'r', '--hyp-out', tmp_path / 'h')
    one_line(r, 'tnb-evaluate', 'hold no sentence pairs (empty or blank)')
    assert not (tmp_path / 'h').exists()

def test_evaluate_defaults_to_the_checkpoints_test_split(run):
    r = tool('evaluate', run, '--beam', '1', '--json')
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)['n_sentences'] == 500                                   # the copy corpus' test split


def test_blank_reference_lines_keep_the_hypotheses_aligned(run, texts):
    refs = (texts / 'ref.txt').read_text().splitlines(); refs[6] = ''
    (texts / 'ref.txt').write_text('\n'.join(refs) + '\n')
    r = tool('evaluate', run, '--src', texts / 'src.txt', '--ref', texts / 'ref.txt', '--beam', '1', '--hyp-out', texts / 'hyp.txt')
    assert r.returncode == 0 and b'of 29 sentences' in r.stdout, r.stderr[-2000:]
    assert lines(r.stderr) == ['tnb-evaluate: warning: 1 of 30 lines have an empty source or reference and are left out of '
                               'the scores (line 7)'], r.stderr
    assert len((texts / 'hyp.txt').read_text().splitlines()) == 30


def test_records_name_their_split_and_errors_name_the_file(run, tmp_path):
    res = tmp_path / 'results.json'
    r = tool('evaluate', run, '--split', 'valid', '--beam', '1', '--record', res)
    assert r.returncode == 0, r.stderr[-3000:]
    [rec] = json.loads(res.read_text())
    assert (rec['split'], rec['test_set'], rec['decoding']) == ('valid', 'copy-valid-x-x', 'greedy')
    assert rec['run'] and rec['run'][:6] in rec['id'] and 'valid' in rec['id'] and 'beam1' in rec['id']
    ck = torch.load(run / 'checkpoint-0000002.pt', weights_only=True)         # weights turned into whole numbers: a damaged file
    ck['model'] = {k: v.long() if v.is_floating_point() else v for k, v in ck['model'].items()}
    bad = tmp_path / 'int64.pt'; torch.save(ck, bad)
    pytest.importorskip('ctranslate2')
    r = tool('export', '--ctranslate2', bad, '-o', tmp_path / 'exported')
    one_line(r, 'tnb-export', f'{bad}: its tensor', 'torch.int64', 'edited or damaged')
    assert not (tmp_path / 'exported').exists()


def test_greedy_scores_are_labelled_greedy(numbers):
    r = text_tool('evaluate', numbers, '--beam', '1', '--split', 'valid')
    assert r.returncode == 0, r.stderr
    line = next(l for l in r.stdout.splitlines() if l.startswith('exact match'))
    assert line.endswith('(greedy)') and 'alpha' not in line, line


def test_scoring_on_another_dataset_warns_naming_both(numbers):
    r = tool('evaluate', numbers, '--beam', '1', '--dataset', 'copy', '--split', 'valid')
    assert "trained on the numbers dataset, and --dataset copy scores it on another corpus" in r.stderr, r.stderr


def test_a_stray_carriage_return_keeps_sources_and_references_aligned(tmp_path):
    "A '\\r' inside a line of --src no longer splits it: the scores count the lines `wc -l` counts."
    (tmp_path / 's').write_bytes(b'seven\rnine\nthree\n'); (tmp_path / 'r').write_text('sieben neun\ndrei\n')
    r = tool('evaluate', 'pretrained:numbers', '--src', tmp_path / 's', '--ref', tmp_path / 'r', '--beam', '1', '--json', text=True)
    assert r.returncode == 0 and json.loads(r.stdout)['n_sentences'] == 2, r.stderr
