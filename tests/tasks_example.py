"""A new task is one file and one registration: reversing a row of letters, with its own corpus and its own kind of
record. Nothing in the package names it; tests/test_tasks.py imports this file, trains the task with `train_model`,
scores it and records the scores."""
import random
from transformer_nb.lib.datasets import Loader, ParallelData
from transformer_nb.apps.tasks import Task, register_task
from transformer_nb.lib.options import Recipe

def reversal_corpus(src_lang=None, tgt_lang=None, data_dir=None, n_train:int=400, n_valid:int=20, n_test:int=20, seed:int=0):
    "Rows of 1 to 5 letters a-f, each with the same letters in reverse order."
    rng = random.Random(seed)
    def pair():
        w = [rng.choice('abcdef') for _ in range(rng.randint(1, 5))]
        return ' '.join(w), ' '.join(reversed(w))
    return ParallelData('reversal', 'x', 'x', *([pair() for _ in range(n)] for n in (n_train, n_valid, n_test)))

REVERSAL_KEYS = ('id', 'dataset', 'exact_match', 'n_sentences', 'test_set', 'split', 'run', 'checkpoint')

@register_task
class ReversalTask(Task):
    name, datasets, languages = 'reversal', ('reversal',), False
    loaders = {'reversal': Loader(reversal_corpus, generated=True)}      # its corpus: load_dataset('reversal') from now on
    record_kind, record_keys = 'reversal', REVERSAL_KEYS                  # its records: a results file may hold them
    recipe = Recipe(preset='tiny', model=dict(d_model=32, d_ff=64), vocab_size=16,
                    train=dict(max_tokens=400, steps=6, warmup=2, save_every=0, keep=0))
    def headline(self, scores, refs): return f"exact match {scores['exact_match']:.1f}%"
    def record(self, id, ck, model, scores, pairs, hyps, command):
        return {'id': id, 'dataset': 'reversal', 'exact_match': scores['exact_match'], 'n_sentences': scores['n_sentences']}
