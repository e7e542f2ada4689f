"The results file, the README table and the 11_results notebook agree; every record carries its provenance."
import json, os, re, types
from pathlib import Path
import pytest
from transformer_nb.lib.records import RESULT_KEYS, load_results, add_result, headline_table, results_table
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
    "README, \"Use the library\" and 11_results show the headline generated from the results file (the full table is in lib_significance)."
    table = headline_table(load_results(RESULTS))
    assert table in (ROOT / 'README.md').read_text(), "README.md's results table differs from results/results.json: run tools/make_readme.py"
    assert table in stored_markdown_outputs(ROOT / 'nbs' / 'use.ipynb'), "re-run nbs/use.ipynb"
    assert table in stored_markdown_outputs(ROOT / 'nbs' / '11_results.ipynb'), "re-run nbs/11_results.ipynb"

def test_one_word_corpora_show_no_word_bleu():
    "The number corpus's word BLEU (0.0: its sentences are one word) is shown as '—' beside its BLEU on characters."
    recs = load_results(RESULTS)
    rows = {l.split(' | ')[-1].rstrip(' |'): l for l in headline_table(recs).splitlines()[2:]}   # the record's id is the last column
    chars = [r for r in recs if 'bleu_char' in r and f"| {r['id']} |" in headline_table(recs)]
    assert chars
    for r in chars: assert f"| {r['bleu_char']:.1f} (characters) | — |" in rows[r['id']], rows[r['id']]

def test_headline_is_the_best_record_of_each_direction_and_hardware():
    recs = load_results(RESULTS)
    rows = [l for l in headline_table(recs).splitlines()[2:]]
    groups = {(r['dataset'], r['direction'], r['hardware']) for r in recs}
    assert len(rows) == len(groups), (len(rows), groups)
    for ds, direction, hw in groups:
        mine = [r for r in recs if (r['dataset'], r['direction'], r['hardware']) == (ds, direction, hw)]
        best = max(mine, key=lambda r: (r['bleu_lc'], r['exact_match']))
        assert sum(f"| {best['id']} |" in l for l in rows) == 1, best['id']          # the best one is shown, once
        for r in mine:
            if r is not best: assert all(f"| {r['id']} |" not in l for l in rows), r['id']

def test_results_notebook_shows_the_results_file():
    assert results_table(load_results(RESULTS)) in stored_markdown_outputs(ROOT / 'nbs' / 'lib_significance.ipynb'), \
        "nbs/lib_significance.ipynb shows another table than results/results.json: re-run the notebook"

def test_bad_records_are_refused(tmp_path):
    with pytest.raises(ValueError, match='lacks'): add_result(tmp_path / 'r.json', {'id': 'x', 'bleu': 1.0})
    (tmp_path / 'bad.json').write_text(json.dumps([{'id': 'y'}]))
    with pytest.raises(ValueError, match=r'bad.json: record 0 \(y\) lacks'): load_results(tmp_path / 'bad.json')
    assert not (tmp_path / 'r.json').exists()

# --- Table 3 at Multi30k scale (12_variations, experiments/table3.py) ---
import importlib.util
from transformer_nb.evaluation import corpus_scores
from transformer_nb.variations_config import table3_variants
from transformer_nb.since2017 import since2017_variants
from transformer_nb.lib.scoring import TABLE3_KEYS, table3_table
from transformer_nb.lib.options import PRESETS
from transformer_nb.lib.options import get_model_config
from transformer_nb.lib.options import TrainConfig
from transformer_nb.apps.cli import _train_parser, _train_settings

TABLE3 = ROOT / 'results' / 'table3.json'
TABLE3_FILES = sorted((ROOT / 'results').glob('table3*.json')) + sorted((ROOT / 'results').glob('since2017*.json'))
TABLE3_FILES = [f for f in TABLE3_FILES if not f.name.endswith('_significance.json')]

def sweep_module():
    spec = importlib.util.spec_from_file_location('table3_sweep', ROOT / 'experiments' / 'table3.py')
    mod = importlib.util.module_from_spec(spec); spec.loader.exec_module(mod)
    return mod

def test_sweep_commands_train_exactly_the_variant():
    "The tnb-train options the sweep writes give back each variant's overrides, hence its config."
    flags = sweep_module().flags
    from transformer_nb.apps.workflow import _split
    for name, o in {**table3_variants(PRESETS['mini']), **since2017_variants(PRESETS['mini'])}.items():
        a = _train_parser().parse_args(['--dataset', 'multi30k', '--preset', 'small', *flags(o)])
        given = _train_settings(a)[0]
        assert (a.preset, given) == ('small', o), name
        train, model = _split(given)
        get_model_config(a.preset, **model); TrainConfig(**train)     # a valid configuration, row D's eps_ls a training setting

def test_sweep_refuses_unknown_variants(capsys):
    with pytest.raises(SystemExit) as e: sweep_module().main(['--only', 'base,C-N6', '--results-dir', '/nonexistent'])
    assert e.value.code == 2 and "unknown variant(s) ['C-N6']" in capsys.readouterr().err
    with pytest.raises(SystemExit) as e: sweep_module().main(['--preset', 'huge', '--results-dir', '/nonexistent'])
    assert e.value.code == 2 and "invalid choice: 'huge'" in capsys.readouterr().err
    with pytest.raises(SystemExit) as e: sweep_module().main(['--only', 'base', '--seeds', '0,one'])
    assert e.value.code == 2 and "--seeds '0,one'" in capsys.readouterr().err

def test_sweep_names_its_runs_and_orders_them_by_seed():
    "Each family's variants (since 2017's with `paper`, its own reference), each seed a run of its own, the references' seeds first; NAME-seedK one run; flags for the switches."
    m, err = sweep_module(), lambda msg: pytest.fail(msg)
    runs = m.chosen('all,since2017', [0, 1, 2], 'mini', err)
    assert len(runs) == 3 * (len(table3_variants(PRESETS['mini'])) + len(since2017_variants(PRESETS['mini'])) + 1) == len(set(runs))
    assert m.variants('mini')['since2017'] == {'paper': {}, **since2017_variants(PRESETS['mini'])}    # 06's model unchanged, then the changes
    assert runs[:7] == [('table3', 'base'), ('since2017', 'paper'), ('table3', 'base-seed1'), ('since2017', 'paper-seed1'),
                        ('table3', 'base-seed2'), ('since2017', 'paper-seed2'), ('table3', 'A-h1')]
    assert [m.parse_id(n)[1] for _, n in runs[6:]] == sorted(m.parse_id(n)[1] for _, n in runs[6:])     # seed 0 whole, then 1, then 2
    assert m.chosen('rope-seed1,B-dk4', [0, 1], 'mini', err) == [('table3', 'B-dk4'), ('since2017', 'rope-seed1'), ('table3', 'B-dk4-seed1')]
    assert m.flags(dict(norm_first=True, rope=False, kv_groups=2)) == ['--norm-first', '--no-rope', '--kv-groups', '2']

def test_sweep_compares_each_change_with_its_own_machines_reference(tmp_path, monkeypatch):
    """`--compare` tests a change since 2017 against its sweep's own `paper` run of the same seed (the same machine and
    precision) where one is recorded, else against Table 3's base of that seed; a reference's other seeds against its seed 0."""
    import transformer_nb.lib.datasets as datasets
    m, res = sweep_module(), tmp_path / 'results'
    refs = [f"ein hund {i} läuft über die wiese" for i in range(40)]
    monkeypatch.setattr(datasets, 'load_dataset', lambda *a, **k: types.SimpleNamespace(valid=[('x', t) for t in refs]))
    real = load_results(TABLE3, TABLE3_KEYS)[0]                              # a complete record, to copy
    def record(fam, name, drop):                                             # translations: the references, `drop` of them spoilt
        v, seed = m.parse_id(name)
        hyps = res / 'hyps' / f"{fam}-{name}.valid.beam4.txt"; hyps.parent.mkdir(parents=True, exist_ok=True)
        hyps.write_text(''.join((t if i % drop else 'nichts') + '\n' for i, t in enumerate(refs)), encoding='utf-8')
        return {**real, 'id': name, 'variant': v, 'seed': seed, 'overrides': m.variants('mini')[fam][v], 'hyps': hyps.relative_to(tmp_path).as_posix()}
    (res / 'table3.json').parent.mkdir(parents=True, exist_ok=True)
    (res / 'table3.json').write_text(json.dumps([record('table3', n, d) for n, d in (('base', 3), ('base-seed1', 4))]))
    (res / 'since2017.json').write_text(json.dumps([record('since2017', n, d) for n, d in (('paper', 5), ('rope', 7), ('rope-seed1', 9))]))
    m.main(['--compare', '--results-dir', str(res), '--samples', '50', '--data-dir', str(tmp_path)])
    sig = {f: json.loads((res / f"{f}_significance.json").read_text()) for f in ('table3', 'since2017')}
    assert {k: t['vs'] for k, t in sig['since2017']['bootstrap'].items()} == {'rope': 'paper', 'rope-seed1': 'base-seed1'}   # its own where made
    assert {k: t['vs'] for k, t in sig['table3']['bootstrap'].items()} == {'base-seed1': 'base'}
    rope = sig['since2017']['rows']['rope']                                  # the verdict: the seed as the unit
    assert rope['vs'] == {'0': 'paper', '1': 'base-seed1'} and rope['n_seeds'] == 2 and rope['p'] is not None
    assert set(rope) >= {'mean', 'sd', 'interval', 'p', 'holm_p', 'verdict'} and sig['since2017']['family']['m'] == 1

@pytest.mark.parametrize('path', TABLE3_FILES, ids=lambda p: p.name)
def test_table3_file_has_real_records(path):
    "Each file: one set-up (hardware and precision), the precision pinned in every command, translations for every CPU record since the fp32 runs."
    from transformer_nb.lib.significance import setup_of
    recs = load_results(path, TABLE3_KEYS)
    ids = [r['id'] for r in recs]
    assert len(recs) >= 6 and len(set(ids)) == len(ids), ids
    variants = {**table3_variants(PRESETS['mini']), 'paper': {}, **since2017_variants(PRESETS['mini'])}
    assert len({r['steps'] for r in recs}) == 1, "every variant must have the same budget of updates"
    assert len({setup_of(r) for r in recs}) == 1, f"{path.name} mixes set-ups: {sorted({setup_of(r) for r in recs})}"
    for r in recs:
        prec = setup_of(r).rsplit(', ', 1)[1]
        assert prec in ('bf16', 'fp32') and r['command'].count(f"--precision {prec}") == 2, (r['id'], r['command'])
        assert '/tmp/' not in r['command'] and not re.search(r'(^| )/', r['command']), (r['id'], 'a machine path')
        if 'CPU' in r['hardware'] and prec == 'bf16': assert (ROOT / r['hyps']).is_file(), (r['id'], 'no translations')
        assert r['overrides'] == variants[r['variant']], r['id']
        assert r['valid_ppl'] > 1 and 0 <= r['bleu'] <= 100 and r['params'] > 0 and r['train_time_s'] > 0, r['id']
        assert re.fullmatch(r'[0-9a-f]{7,}(\+dirty)?', r['commit']), (r['id'], r['commit'])
        train, evaluate = r['command'].split('; ')
        assert train.startswith('tnb-train ') and evaluate.startswith('tnb-evaluate ') and '--split valid' in evaluate, r['id']
        assert f"--steps {r['steps']}" in train and f"--seed {r['seed']}" in train, r['id']
        assert f" {' '.join(sweep_module().flags(r['overrides']))} ".replace('  ', ' ') in train, r['id']

def test_table3_notebook_and_readme_show_the_file():
    table = table3_table(load_results(ROOT / 'results' / 'table3_fp32.json', TABLE3_KEYS), PRESETS['mini'])   # the one set-up with its own base
    assert table in stored_markdown_outputs(ROOT / 'nbs' / '12_variations.ipynb'), "re-run nbs/12_variations.ipynb"
    assert table in (ROOT / 'README.md').read_text(), "README.md's Table 3 differs from results/table3.json: run tools/make_readme.py"

def test_sweep_commands_hold_no_machine_path(tmp_path):
    m = sweep_module()
    cmd = f"tnb-train --data-dir {m.ROOT.parent}/shared/data/multi30k --out {tmp_path}/runs/A-h1; tnb-evaluate {tmp_path}/runs/A-h1 --hyp-out {tmp_path}/runs/A-h1/v.txt"
    assert m.portable(cmd, f"{tmp_path}/runs") == "tnb-train --data-dir ../shared/data/multi30k --out runs/table3/A-h1; tnb-evaluate runs/table3/A-h1 --hyp-out runs/table3/A-h1/v.txt"
    assert m.portable(f"--out {m.ROOT}/runs/table3/x", str(m.ROOT / 'runs' / 'table3')) == '--out runs/table3/x'

def test_sweep_records_a_seed_once_whatever_its_spelling():
    m, err = sweep_module(), lambda msg: pytest.fail(msg)
    assert m.chosen('base,base-seed0', [0], 'mini', err) == [('table3', 'base')]
    assert m.chosen('rope-seed0,rope', [0, 1], 'mini', err) == [('since2017', 'rope'), ('since2017', 'rope-seed1')]
    assert m.canonical('A-h1-seed0') == 'A-h1' and m.canonical('A-h1-seed2') == 'A-h1-seed2'

FAKE_TRAIN = """#!/bin/sh
echo "$@" >> "$FAKE_LOG"
if [ "$FAKE_MODE" = sleep ]; then echo $$ >> "$FAKE_PIDS"; exec sleep 120; fi
if [ "$FAKE_MODE" = record ]; then cp "$FAKE_RECORDS" "$FAKE_RESULTS"; fi
exit 1
"""

def fake_tools(tmp_path, monkeypatch=None) -> dict:
    "A tnb-train and a tnb-evaluate that log their arguments, then fail (or, FAKE_MODE=sleep, sleep): the environment that puts them first."
    bin_ = tmp_path / 'bin'; bin_.mkdir()
    for name in ('tnb-train', 'tnb-evaluate'): (bin_ / name).write_text(FAKE_TRAIN); (bin_ / name).chmod(0o755)
    env = {'PATH': f"{bin_}:{os.environ['PATH']}", 'FAKE_LOG': str(tmp_path / 'argv.txt'), 'FAKE_PIDS': str(tmp_path / 'pids.txt')}
    if monkeypatch:
        for k, v in env.items(): monkeypatch.setenv(k, v)
    return env

def test_sweep_reads_TNB_MULTI30K_and_pins_the_precision(tmp_path, monkeypatch, capsys):
    "The data folder as `find_multi30k` finds it ($TNB_MULTI30K first), and `auto` resolved before the run, in its command."
    fake_tools(tmp_path, monkeypatch); monkeypatch.setenv('TNB_MULTI30K', str(tmp_path / 'm30k'))
    with pytest.raises(SystemExit, match='failed: A-h1'):
        sweep_module().main(['--only', 'A-h1', '--results-dir', str(tmp_path / 'res'), '--runs', str(tmp_path / 'runs')])
    argv = (tmp_path / 'argv.txt').read_text()
    assert f"--data-dir {tmp_path / 'm30k'} " in argv and re.search(r'--precision (bf16|fp32)$', argv.strip()), argv
    assert not (tmp_path / 'res' / 'table3.json').exists()                # a failed run: nothing recorded

def test_sweep_never_makes_a_run_another_sweep_recorded_meanwhile(tmp_path, monkeypatch, capsys):
    "A run recorded after the sweep read its results file (by a second sweep) is not run again: the file is read again before each run."
    fake_tools(tmp_path, monkeypatch); res = tmp_path / 'res'; res.mkdir()
    other = {**load_results(TABLE3, TABLE3_KEYS)[0], 'id': 'A-h4', 'variant': 'A-h4', 'seed': 0}
    (tmp_path / 'theirs.json').write_text(json.dumps([other]))              # what the other sweep writes while A-h1 trains here
    monkeypatch.setenv('FAKE_MODE', 'record'); monkeypatch.setenv('FAKE_RECORDS', str(tmp_path / 'theirs.json'))
    monkeypatch.setenv('FAKE_RESULTS', str(res / 'table3.json'))
    with pytest.raises(SystemExit, match='failed: A-h1$'):
        sweep_module().main(['--only', 'A-h1,A-h4', '--jobs', '1', '--results-dir', str(res), '--runs', str(tmp_path / 'runs'), '--precision', 'fp32'])
    out = capsys.readouterr().out
    assert '2 run(s) to make, 0 already recorded' in out and 'table3 A-h4: recorded by another sweep meanwhile, not run again' in out, out
    calls = (tmp_path / 'argv.txt').read_text().splitlines()
    assert len(calls) == 1 and '/A-h1 ' in calls[0], calls                 # A-h1 tried; A-h4 never started
    assert [r['id'] for r in load_results(res / 'table3.json', TABLE3_KEYS)] == ['A-h4']   # theirs, untouched

def test_sweep_refuses_a_corrupt_results_file_in_one_line(tmp_path, monkeypatch, capsys):
    fake_tools(tmp_path, monkeypatch)
    res = tmp_path / 'res'; res.mkdir(); bad = '[{"id": "paper", '
    (res / 'since2017.json').write_text(bad)
    with pytest.raises(SystemExit) as e: sweep_module().main(['--only', 'A-h1', '--results-dir', str(res), '--runs', str(tmp_path / 'runs')])
    err = capsys.readouterr().err
    assert e.value.code == 2 and err.count('\n') == 1 and 'since2017.json is not a results file (not JSON' in err, err
    assert (res / 'since2017.json').read_text() == bad and not (tmp_path / 'argv.txt').exists()   # untouched, nothing run

@pytest.mark.slow
def test_sweep_stops_every_run_on_ctrl_c_and_continues(tmp_path):
    "Ctrl-C: every run it started ends, nothing is recorded, one line, exit 130; the same command then makes every run."
    import signal, subprocess, sys, time
    env = {**os.environ, **fake_tools(tmp_path), 'FAKE_MODE': 'sleep', 'TNB_MULTI30K': str(tmp_path)}
    cmd = [sys.executable, str(ROOT / 'experiments' / 'table3.py'), '--only', 'A-h1,A-h4,A-h16', '--jobs', '2',
           '--results-dir', str(tmp_path / 'res'), '--runs', str(tmp_path / 'runs'), '--precision', 'fp32']
    p = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    pids, t0 = tmp_path / 'pids.txt', time.time()
    while not (pids.exists() and len(pids.read_text().split()) == 2):
        assert time.time() - t0 < 120 and p.poll() is None, p.communicate()
        time.sleep(0.2)
    p.send_signal(signal.SIGINT)
    out, err = p.communicate(timeout=60)
    assert p.returncode == 130 and err.count('\n') == 1 and err.startswith('stopped: 0 run(s) recorded, 3 ended or not started'), (p.returncode, err)
    for pid in map(int, pids.read_text().split()):
        with pytest.raises(ProcessLookupError): os.kill(pid, 0)           # both runs it started are gone
    assert not (tmp_path / 'res' / 'table3.json').exists()
    r = subprocess.run(cmd, env={**env, 'FAKE_MODE': 'fail'}, capture_output=True, text=True, timeout=120)
    assert '3 run(s) to make, 0 already recorded' in r.stdout and r.returncode == 1, (r.stdout, r.stderr)

def test_corrupt_results_file_is_named(tmp_path):
    (tmp_path / 't3.json').write_text('[{"id": "base",')
    with pytest.raises(ValueError, match=r't3.json is not a results file'): load_results(tmp_path / 't3.json', TABLE3_KEYS)

# --- stored translations behind the significance tests (11_results, 10_decoding; experiments/hypotheses.py) ---
from transformer_nb.lib.datasets import load_dataset

HYPS = ROOT / 'results' / 'hyps'
GPU_LOGS = ROOT / 'results' / 'gpu' / 'logs'

def stored_translations():
    "(file, split, pair, the scores recorded for it) for every stored translation file."
    out = []
    for r in load_results(RESULTS):
        f = GPU_LOGS / f"{r['id'].removesuffix('-avg5-beam4')}.test.avg5-beam4.txt"
        if 'gpu' in r['id'] and r['id'].endswith('-avg5-beam4'): out.append((f, 'test', r['direction'], r))
    for m in json.loads((HYPS / 'hyps.json').read_text()).values(): out.append((HYPS / m['file'], m['split'], 'en-de', m))
    return out

def test_stored_translations_have_their_provenance():
    files = stored_translations()
    assert sum(f.parent == GPU_LOGS for f, *_ in files) == 6, "one file per GPU run"
    assert any(m.get('reproduces_table3') for f, s, p, m in files if f.parent == HYPS), "no Table 3 run reproduced"
    for f, split, _, m in files:
        assert f.exists(), f
        assert len(f.read_text().splitlines()) == {'test': 1000, 'valid': 1014}[split], f
        if f.parent == HYPS:
            assert m['command'].startswith('tnb-evaluate ') and f"--split {split}" in m['command'], f
            assert re.fullmatch(r'[0-9a-f]{7,}(\+dirty)?', m['commit']) and 'CPU' in m['hardware'], f

@pytest.mark.slow                     # reads Multi30k and scores every stored translation file
def test_stored_translations_give_their_recorded_scores(m30k_dir):
    refs = {}
    for f, split, pair, m in stored_translations():
        if (pair, split) not in refs:
            refs[pair, split] = [t for _, t in getattr(load_dataset('multi30k', *pair.split('-'), data_dir=m30k_dir), split)]
        sc = corpus_scores(f.read_text().splitlines(), refs[pair, split])
        assert (sc['bleu'], sc['bleu_lc']) == (m['bleu'], m['bleu_lc']), (f.name, sc['bleu'], m['bleu'])

def test_cpu_hour_runs_are_the_recipe_and_chosen_on_valid():
    "results/cpu_hour.json (experiments/cpu_hour.py): runs of the cpu-hour recipe as it stands, curves in time order, the final model chosen on valid."
    from dataclasses import asdict
    from transformer_nb.lib.options import TrainConfig
    from transformer_nb.apps.tasks import CPU_HOUR_RECIPE
    recs = json.loads((ROOT / 'results' / 'cpu_hour.json').read_text())
    assert {r['direction'] for r in recs} >= {'de-en'}
    want = {k: v for k, v in asdict(TrainConfig(**CPU_HOUR_RECIPE.train)).items() if k not in ('keep', 'progress')}
    for r in recs:
        stored = {k: r['train_config'].get(k, getattr(TrainConfig, k)) for k in want}   # a setting added since: its default, the same behaviour
        assert stored == want, f"{r['direction']}: the stored run is not the recipe's settings"
        steps, minutes = [p['step'] for p in r['curve']], [p['minutes'] for p in r['curve']]
        assert steps == sorted(steps) and minutes == sorted(minutes) and steps[-1] == r['updates']
        assert minutes[-1] <= r['wall_s'] / 60, "a checkpoint written after the command ended"
        assert r['chosen_on_valid'] == max(r['final'], key=lambda k: r['final'][k]['valid']['bleu_lc'])
        assert r['test_bleu_lc'] == r['final'][r['chosen_on_valid']]['test']['bleu_lc']
        assert 'CPU' in r['hardware'] and r['command'].startswith('tnb-train ')

def test_the_explorers_int8_sentence_quotes_the_int8_results():
    "apps_attention_explorer's note on int8 weights: for each direction, the translations that change and the BLEU, as"
    " results/int8.json holds them (bench/bench_int8.py, the page's decoding)."
    m = json.loads((ROOT / 'results' / 'int8.json').read_text())['models']
    nb = json.loads((ROOT / 'nbs' / 'apps_attention_explorer.ipynb').read_text(encoding='utf-8'))
    text = ' '.join(''.join(next(c for c in nb['cells'] if c['id'] == 'a17x0070')['source']).split())
    de, en = m['de-en'], m['en-de']
    assert de['n_sentences'] == en['n_sentences'] == 1000 and de['decoding']['beam'] == en['decoding']['beam'] == 4
    assert f"decoded as the page decodes, {de['changed']} of the {de['n_sentences']:,} test2016 German→English translations come out otherwise" in text, text
    assert f"BLEU moves from {de['bleu']['float32']:.2f} to {de['bleu']['int8']:.2f}; English→German, {en['changed']} and from {en['bleu']['float32']:.2f} to {en['bleu']['int8']:.2f}" in text, text
