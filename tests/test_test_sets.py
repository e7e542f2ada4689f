"""The test sets of the scoring commands (apps.test_sets): a generated corpus makes only the split it scores."""
import pytest
import transformer_nb.lib.datasets as D
from transformer_nb.apps.test_sets import dataset_test_set

def test_the_numbers_test_split_is_made_without_the_training_numbers(monkeypatch):
    """`tnb-evaluate` of a numbers model scores the corpus's test split, 1,000 pairs drawn before its 60,000 training
    numbers: it draws only those (the training numbers are never drawn), and they are the corpus's own, in order."""
    whole = D.load_dataset('numbers', 'de', 'en')
    def never(*a, **k): raise AssertionError("the training numbers were drawn to score the test split")
    monkeypatch.setattr(D, '_train_numbers', never)
    ck = {'meta': {'dataset': 'numbers', 'src_lang': 'de', 'tgt_lang': 'en'}}
    for split in ('test', 'valid'):
        pairs, name = dataset_test_set(ck, split=split)
        assert pairs == getattr(whole, split) and name == f'numbers-{split}-de-en'
    with pytest.raises(AssertionError, match='training numbers were drawn'): dataset_test_set(ck, split='train')
