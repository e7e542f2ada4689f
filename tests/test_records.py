"transformer_nb.records (A8): what its public functions refuse, in the caller's terms."
import pytest
from transformer_nb.records import (RESULT_KEYS, train_time, make_record, load_results, add_result, check_results_file,
                                    fmt_minutes, results_table, headline_table)

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
    (lambda p: fmt_minutes(-5), ValueError, 'seconds=-5 must be a number >= 0'),
    (lambda p: fmt_minutes(float('nan')), ValueError, 'seconds=nan must be a number >= 0'),
    (lambda p: train_time('run/checkpoint-0000100.pt'), TypeError, 'ckpt must be a loaded checkpoint (a dict: load_checkpoint(path))'),
    (lambda p: train_time({'meta': ['x']}), ValueError, "the checkpoint's meta is a list, not a dict"),
    (lambda p: make_record('x', {}, None, {'bleu': 1}, 'cmd'), ValueError, "scores lacks ['beam', 'alpha'"),
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
