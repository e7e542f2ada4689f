"""The results file (lib_records) through `tnb-evaluate --record`, with real processes: a damaged file is refused before
decoding, a symlink to a results file is written through (to nothing or to anything else, refused), concurrent records all land, one file holds every kind of record, and it is
UTF-8 whatever the locale."""
import json, subprocess
import pytest, torch
from transformer_nb.lib.checkpoints import Checkpoint, save_checkpoint
from transformer_nb.lib.runs import RunFolder
from conftest import ENV, cmd, tool, one_line, temps
from transformer_nb.lib.records import (RESULT_KEYS, train_time, make_record, load_results, add_result, check_results_file,
                                    _fmt_minutes, results_table, headline_table, register_record_kind)

@pytest.mark.slow   # runs the tools in fresh processes
@pytest.mark.parametrize('content,msg', [
    ('{"id": 1,', 'is not a results file (not JSON: '),
    ('{}', 'is not a results file: expected a JSON list of records, found a JSON dict'),
    ('[1, 2]', 'expected a JSON list of records, found a list of other things than records'),
    ('', 'is not a results file (not JSON: '),
    ('[{"id": "x"}]', 'record 0 (x) lacks'),
])
def test_results_file_is_checked_before_decoding(run, tmp_path, content, msg):
    (tmp_path / 'results.json').write_text(content)
    (tmp_path / 's').write_text('a b\n'); (tmp_path / 'r').write_text('a b\n')
    r = tool('evaluate', run, '--beam', '1', '--src', tmp_path / 's', '--ref', tmp_path / 'r', '--hyp-out', tmp_path / 'h',
             '--record', tmp_path / 'results.json')
    one_line(r, 'tnb-evaluate', f'--record {tmp_path}/results.json', msg)
    assert not (tmp_path / 'h').exists() and (tmp_path / 'results.json').read_text() == content   # nothing decoded, nothing lost

@pytest.mark.slow   # runs the tools in fresh processes
def test_results_file_through_a_symlink(run, tmp_path):
    (tmp_path / 'real.json').write_text('[]'); (tmp_path / 'results.json').symlink_to(tmp_path / 'real.json')
    (tmp_path / 's').write_text('a b\n'); (tmp_path / 'r').write_text('a b\n')
    r = tool('evaluate', run, '--beam', '1', '--src', tmp_path / 's', '--ref', tmp_path / 'r', '--record', tmp_path / 'results.json')
    assert r.returncode == 0, r.stderr
    assert (tmp_path / 'results.json').is_symlink() and len(json.loads((tmp_path / 'real.json').read_text())) == 1

@pytest.mark.slow   # runs the tools in fresh processes
@pytest.mark.parametrize('target', ['run/new.json', 'run/checkpoint-0000020.pt', 'run/log.jsonl'])
def test_results_file_link_to_anything_but_a_results_file_is_refused(run, folder, tmp_path, target):
    "A link is followed only to a results file that is there: one to nothing (a file it would create), to another run's checkpoint or to its log is refused before decoding, in one line, and nothing is written."
    before = {q.name: q.read_bytes() for q in folder.iterdir() if q.is_file()}
    (tmp_path / 'results.json').symlink_to(tmp_path / target)              # into `folder`, another run than the one scored
    (tmp_path / 's').write_text('a b\n'); (tmp_path / 'r').write_text('a b\n')
    r = tool('evaluate', run, '--beam', '1', '--src', tmp_path / 's', '--ref', tmp_path / 'r', '--hyp-out', tmp_path / 'h',
             '--record', tmp_path / 'results.json')
    one_line(r, 'tnb-evaluate', f'--record {tmp_path}/results.json is a symbolic link to {tmp_path / target}, which is not a results file')
    assert not (tmp_path / 'h').exists() and {q.name: q.read_bytes() for q in folder.iterdir() if q.is_file()} == before

@pytest.mark.slow   # runs the tools in fresh processes
def test_concurrent_records_all_land(run, tmp_path):
    "Three tnb-evaluate --record into one results file at once: every record is kept (the file is read and rewritten under a lock)."
    (tmp_path / 's').write_text('a b\n'); (tmp_path / 'r').write_text('a b\n')
    ps = [subprocess.Popen(cmd('evaluate', run, '--beam', '1', '--src', tmp_path / 's', '--ref', tmp_path / 'r',
                               '--record', tmp_path / 'results.json', '--id', f'run-{k}'), env=ENV,
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True) for k in range(3)]
    errs = [p.communicate(timeout=300)[1] for p in ps]
    assert [p.returncode for p in ps] == [0, 0, 0], errs
    assert sorted(r['id'] for r in json.loads((tmp_path / 'results.json').read_text())) == ['run-0', 'run-1', 'run-2']
    assert temps(tmp_path) == []


PARSE_RECORD = dict(id='parse-1', system='Transformer, tiny', dataset='parsing', params=1, decoding='greedy', precision=1.0,
                    recall=1.0, f1=1.0, exact_match=0.0, malformed=0, failed=0, n_sentences=1, by_length={}, examples=[],
                    valid_nll=[], train_time_s=0.0, hardware='cpu', date='2026-01-01', commit='abc1234', command='x')

@pytest.mark.slow   # runs the tools in fresh processes
def test_one_results_file_holds_translation_and_parsing_records(run, tmp_path, texts):
    f = tmp_path / 'results.json'
    f.write_text(json.dumps([PARSE_RECORD]))                                    # a parsing record first
    r = tool('evaluate', run, '--src', texts / 'src.txt', '--ref', texts / 'ref.txt', '--beam', '1', '--record', f, '--id', 'tr-1')
    assert r.returncode == 0 and b'exact match' in r.stdout, r.stderr[-2000:]
    ck = torch.load(RunFolder(run).latest(), weights_only=True); ck['meta'].update(task='parsing', dataset='parsing')   # a parser
    (tmp_path / 'parser').mkdir()
    save_checkpoint(tmp_path / 'parser' / f"checkpoint-{ck['step']:07d}.pt", **{k: v for k, v in ck.items() if k != 'format'})   # named after the update it holds
    (tmp_path / 'words.txt').write_text('a b c\nd e\nf\n')
    (tmp_path / 'trees.txt').write_text('(S (NP XX XX ) (VP XX ) )\n(S (NP XX ) (VP XX ) )\n(S (VP XX ) )\n')
    r = tool('evaluate', tmp_path / 'parser', '--src', tmp_path / 'words.txt', '--ref', tmp_path / 'trees.txt', '--beam', '1',
             '--record', f, '--id', 'parse-2')                                  # a parsing record after a translation record
    assert r.returncode == 0 and b'bracket F1' in r.stdout, r.stderr[-2000:]
    assert [x['id'] for x in json.loads(f.read_text())] == ['parse-1', 'tr-1', 'parse-2']

@pytest.mark.slow   # runs the tools in fresh processes
def test_output_is_utf8_whatever_the_locale(run, texts):
    env = {'LC_ALL': 'C', 'LANG': 'C', 'PYTHONUTF8': '0', 'PYTHONCOERCECLOCALE': '0'}
    f = texts / 'results.json'
    rec = dict(id='tr-0', dataset='copy', direction='x-x', preset='tiny · klein', params=1, decoding='greedy', bleu=1.0, bleu_lc=1.0,
               chrf=1.0, exact_match=0.0, bleu_signature='s', train_time_s=0.0, hardware='cpü', date='2026-01-01', commit='a', command='ü')
    f.write_text(json.dumps([rec], ensure_ascii=False), encoding='utf-8')
    r = tool('evaluate', run, '--src', texts / 'src.txt', '--ref', texts / 'ref.txt', '--beam', '1', '--record', f,
             '--id', 'über-1', env=env)
    assert r.returncode == 0, r.stderr[-2000:]
    assert [x['id'] for x in json.loads(f.read_text(encoding='utf-8'))] == ['tr-0', 'über-1']   # a non-ASCII argument too


# transformer_nb.lib.records (lib_records): what its public functions refuse, in the caller's terms.
REC = {k: 1 for k in RESULT_KEYS} | {'id': 'r1', 'dataset': 'd', 'direction': 'a-b', 'hardware': 'cpu'}


@pytest.mark.parametrize('call, exc, says', [
    (lambda p: load_results(None), TypeError, "path must be a results file's path, got a NoneType"),
    (lambda p: check_results_file(123), TypeError, "path must be a results file's path, got a int"),
    (lambda p: load_results(p / 'r.json', 'id'), TypeError, "keys must be a tuple of key names, got one str: ('id',)"),
    (lambda p: add_result(p / 'r.json', 'a record'), TypeError, 'record must be a dict, got a str'),
    (lambda p: add_result(p / 'r.json', {'bleu': 1}, keys=()), ValueError, "lacks ['id']"),
    (lambda p: results_table('results.json'), TypeError, 'recs must be a list of records (dicts), got a str'),
    (lambda p: results_table([REC, {'id': 'x'}]), ValueError, "recs[1] (x) lacks ['dataset'"),
    (lambda p: headline_table([3]), TypeError, 'recs[0] is a int, not a record'),
    (lambda p: _fmt_minutes(-5), ValueError, 'seconds=-5 must be a number >= 0'),
    (lambda p: _fmt_minutes(float('nan')), ValueError, 'seconds=nan must be a number >= 0'),
    (lambda p: train_time('run/checkpoint-0000100.pt'), TypeError, 'ck must be an opened checkpoint (a Checkpoint: open_checkpoint(path)), got a str'),
    (lambda p: train_time({'meta': {}}), TypeError, 'ck must be an opened checkpoint (a Checkpoint: open_checkpoint(path)), got a dict'),
    (lambda p: make_record('x', Checkpoint({}), None, {'bleu': 1}, 'cmd'), ValueError, "scores lacks ['beam', 'alpha'"),
    (lambda p: register_record_kind('mine', 'id'), TypeError, "keys must be a tuple of key names, got one str: ('id',)"),
])
def test_records_refuse_in_the_callers_terms(tmp_path, call, exc, says):
    with pytest.raises(exc) as e: call(tmp_path)
    assert says in str(e.value) and '\n' not in str(e.value), str(e.value)
    assert not (tmp_path / 'r.json').exists()                       # nothing half-written


def test_records_still_read_and_write(tmp_path):
    add_result(tmp_path / 'r.json', REC)
    assert [r['id'] for r in load_results(tmp_path / 'r.json')] == ['r1']
    assert '| r1 |' in results_table([REC]) and '| r1 |' in headline_table([REC])
    assert load_results(tmp_path / 'none.json') == []               # a results file not written yet: no records


def test_make_record_wants_the_scores_dict():
    with pytest.raises(TypeError, match=r'^scores must be the dict of scores `evaluate` returns, got a NoneType$'):
        make_record('x', {}, None, None, 'cmd')
