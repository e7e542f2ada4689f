"The task registry (apps_tasks): complete on import, and a new task is one file and one registration (tests/tasks_example.py)."
import json, subprocess, sys
from pathlib import Path
import pytest
from transformer_nb.apps.tasks import TASKS, BUILT_IN, get_task, task_for, task_names, dataset_names, register_task, Task
from transformer_nb.lib.datasets import DATASETS, load_dataset
from transformer_nb.lib.records import _RECORD_KINDS, check_results_file

ROOT = Path(__file__).resolve().parents[1]

def test_the_registry_is_complete_on_a_bare_import():
    "get_task('parsing') after `import transformer_nb.apps.tasks` alone: the registry imports the parsing module when asked."
    code = ("import sys, transformer_nb.apps.tasks as t\n"
            "assert 'transformer_nb.apps.parsing_task' not in sys.modules\n"
            "assert t.get_task('parsing').name == 'parsing' and t.task_for('numbers').name == 'numbers'\n"
            "from transformer_nb.lib.datasets import load_dataset\n"
            "assert load_dataset('parsing', n_train=3, n_valid=1, n_test=1).name == 'parsing'\n"
            "from transformer_nb.lib.records import _RECORD_KINDS; assert 'parsing' in _RECORD_KINDS\n"
            "print('ok')")
    r = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert r.returncode == 0 and r.stdout.strip() == 'ok', r.stderr[-2000:]

def test_commands_import_no_task_by_hand():
    for m in ('cli',):
        assert 'transformer_nb.apps.parsing_task' not in (ROOT / 'transformer_nb' / 'apps' / f'{m}.py').read_text(), m

def test_built_in_entries_say_what_their_tasks_claim():
    assert set(BUILT_IN) <= set(task_names()) and {'numbers', 'copy', 'multi30k', 'files', 'parsing'} <= set(dataset_names())
    for name, (module, datasets, recipes) in BUILT_IN.items():
        t = get_task(name)
        assert type(t).__module__ == module and t.datasets == datasets and all(task_for(d) is t for d in datasets)
        assert tuple(t.recipes) == recipes                                # named without importing the task: `tnb-train --help`

def test_registration_refuses_clashes():
    with pytest.raises(ValueError, match=r"claims the dataset\(s\) \['copy'\]"): register_task(type('T', (Task,), {'name': 'x', 'datasets': ('copy',)}))
    with pytest.raises(ValueError, match="does not name them"): register_task(type('T', (Task,), {'name': 'x', 'datasets': (), 'loaders': {'y': None}}))
    with pytest.raises(KeyError, match="unknown task 'summarise'"): get_task('summarise')

@pytest.fixture
def reversal():
    "tests/tasks_example.py imported (its task registered), and every registration undone afterwards."
    sys.path.insert(0, str(Path(__file__).parent))
    import tasks_example
    yield tasks_example
    sys.path.remove(str(Path(__file__).parent)); sys.modules.pop('tasks_example', None)
    TASKS.pop('reversal', None); DATASETS.pop('reversal', None); _RECORD_KINDS.pop('reversal', None)

def test_a_new_task_is_one_file_and_one_registration(reversal, tmp_path):
    from transformer_nb.lib.checkpoints import open_checkpoint
    from transformer_nb.apps.workflow import train_model
    from transformer_nb.apps.test_sets import test_set, score_test_set, record_evaluation
    t = get_task('reversal')
    assert task_for('reversal') is t and load_dataset('reversal', n_train=2, n_valid=0, n_test=0).train[0][1].split() == \
           load_dataset('reversal', n_train=2, n_valid=0, n_test=0).train[0][0].split()[::-1]
    tr = train_model(task='reversal', out=tmp_path / 'run', progress=False, say=lambda m: None)   # its corpus and recipe
    assert (tr.step, tr.meta['task'], tr.meta['dataset'], tr.cfg.d_model) == (6, 'reversal', 'reversal', 32)
    ck = open_checkpoint(tr.last_checkpoint)                               # as tnb-evaluate opens it
    pairs, sources, scored, name = test_set(ck)                            # its test split, through its own loader
    d = t.decoding_for(beam=1)
    scores, hyps, _ = score_test_set(t, tr.model, tr.tokenizer, pairs, d)
    assert name == 'reversal-test-x-x' and len(hyps) == 20 and t.headline(scores, []).startswith('exact match')
    rec, _ = record_evaluation(tmp_path / 'results.json', t, ck, tr.last_checkpoint, tr.model, scores, pairs, hyps, name, d, 'test')
    assert [r['id'] for r in check_results_file(tmp_path / 'results.json')] == [rec['id']]      # a kind of record it registered
    assert set(json.loads((tmp_path / 'results.json').read_text())[0]) == set(reversal.REVERSAL_KEYS)
    pkg = '\n'.join(p.read_text() for p in (ROOT / 'transformer_nb').glob('*.py'))
    assert 'reversal' not in pkg                                           # nothing else changed


def test_get_task_names_what_is_not_a_task():
    with pytest.raises(TypeError, match=r"^task must be a Task or a task's name \(.*\), got a list$"): get_task(['copy'])
