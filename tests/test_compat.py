"""Old import paths keep working after the plumbing moved into the appendix modules (see CHANGELOG.md), and the
modules import each other without cycles, whichever is imported first."""
import importlib, subprocess, sys
import pytest

MOVED = {
    'transformer_nb.data': ('transformer_nb.datasets', [
        'SPLITS', 'ParallelData', 'read_lines', 'read_parallel', 'MAX_NUMBER', 'en_number', 'de_number', 'number_splits',
        'numbers_corpus', 'copy_corpus', 'MULTI30K_URL', 'MULTI30K_LANGS', 'MULTI30K_SPLITS', 'MULTI30K_SHA256',
        'get_cache_dir', 'sha256_file', 'download_file', 'multi30k_files', 'multi30k', 'find_multi30k', 'DATASETS',
        'load_dataset']),
    'transformer_nb.training': [
        ('transformer_nb.checkpoints', ['CKPT_FORMAT', 'rng_state', 'set_rng_state', 'save_checkpoint', 'load_checkpoint',
                                        'list_checkpoints', 'latest_checkpoint', 'prune_checkpoints', 'model_from_checkpoint']),
        ('transformer_nb.distributed', ['init_distributed', 'all_reduce_sum']),
        ('transformer_nb.trainer', ['Trainer', 'TrainingDiverged', 'plot_history', 'train_model'])],
}

def cases():
    for old, spec in MOVED.items():
        for new, names in (spec if isinstance(spec, list) else [spec]):
            for n in names: yield old, new, n

@pytest.mark.parametrize('old,new,name', list(cases()))
def test_old_path_is_the_new_object(old, new, name):
    assert getattr(importlib.import_module(old), name) is getattr(importlib.import_module(new), name)

def test_unknown_name_still_fails():
    import transformer_nb.training as T
    with pytest.raises(AttributeError, match='no_such_name'): T.no_such_name
    with pytest.raises(ImportError): exec('from transformer_nb.training import no_such_name', {})

MODULES = ['data', 'datasets', 'training', 'checkpoints', 'distributed', 'trainer', 'decoding', 'evaluation', 'cli']

@pytest.mark.parametrize('first', MODULES)
def test_no_import_cycle(first):
    "Each module imports cleanly in a fresh interpreter when it is the first one imported, then the old paths work."
    code = (f"import transformer_nb.{first}\n"
            "from transformer_nb.data import multi30k, load_dataset, read_lines, read_parallel, find_multi30k\n"
            "from transformer_nb.training import load_checkpoint, save_checkpoint, latest_checkpoint, list_checkpoints, "
            "model_from_checkpoint, init_distributed, Trainer, TrainConfig, train_model, TrainingDiverged, plot_history\n")
    r = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr[-2000:]
