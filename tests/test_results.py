"The results file, the README table and the 11_results notebook agree; every record carries its provenance."
import json, re
from pathlib import Path
import pytest
from transformer_nb.evaluation import RESULT_KEYS, load_results, results_table, add_result

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / 'results' / 'results.json'

def stored_markdown_outputs(nb_path):
    "The text/markdown outputs stored in a notebook."
    nb = json.loads(Path(nb_path).read_text())
    return [''.join(o['data']['text/markdown']) for c in nb['cells'] if c['cell_type'] == 'code'
            for o in c.get('outputs', []) if 'text/markdown' in o.get('data', {})]

def test_results_file_has_real_records():
    recs = load_results(RESULTS)
    assert recs, f"{RESULTS} holds no results"
    assert len({r['id'] for r in recs}) == len(recs), "duplicate ids"
    for r in recs:
        assert set(RESULT_KEYS) <= set(r), r['id']
        for k in ('bleu', 'bleu_lc', 'chrf', 'exact_match'): assert 0 <= r[k] <= 100, (r['id'], k, r[k])
        assert r['params'] > 0 and r['train_time_s'] > 0, r['id']
        assert re.fullmatch(r'[0-9a-f]{7,}(\+dirty)?', r['commit']), (r['id'], r['commit'])   # a real commit of this repo
        assert re.fullmatch(r'\d{4}-\d\d-\d\d', r['date']), r['id']
        assert r['command'].startswith('train: tnb-train') and 'evaluate: tnb-evaluate' in r['command'], r['id']
        assert 'nrefs:1' in r['bleu_signature'] and ('CPU' in r['hardware'] or 'CUDA' in r['hardware']), r['id']

def test_readme_table_is_built_from_the_results_file():
    table = results_table(load_results(RESULTS))
    assert table in (ROOT / 'README.md').read_text(), "README.md's results table differs from results/results.json: run tools/make_readme.py"
    assert table in stored_markdown_outputs(ROOT / 'nbs' / 'index.ipynb')

def test_results_notebook_shows_the_results_file():
    assert results_table(load_results(RESULTS)) in stored_markdown_outputs(ROOT / 'nbs' / '11_results.ipynb'), \
        "nbs/11_results.ipynb shows another table than results/results.json: re-run the notebook"

def test_bad_records_are_refused(tmp_path):
    with pytest.raises(ValueError, match='lacks'): add_result(tmp_path / 'r.json', {'id': 'x', 'bleu': 1.0})
    (tmp_path / 'bad.json').write_text(json.dumps([{'id': 'y'}]))
    with pytest.raises(ValueError, match=r'bad.json: record 0 \(y\) lacks'): load_results(tmp_path / 'bad.json')
    assert not (tmp_path / 'r.json').exists()
