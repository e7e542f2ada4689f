"Helpers shared by the test files (import them with `from conftest import ...`)."
import torch
from transformer_nb.core import BOS_ID, EOS_ID


def copy_ids(n:int, vocab:int=20, min_len:int=3, max_len:int=10, seed:int=0) -> list:
    """`n` id-level copy-task examples (src = ids + [EOS], tgt = [BOS] + ids + [EOS]), ids in [4, vocab): no tokenizer.
    Batch them with `transformer_nb.data.collate`. (The text copy task of the package is `datasets.copy_corpus`.)"""
    g, out = torch.Generator().manual_seed(seed), []
    for _ in range(n):
        ids = torch.randint(4, vocab, (int(torch.randint(min_len, max_len + 1, (1,), generator=g)),), generator=g).tolist()
        out.append((ids + [EOS_ID], [BOS_ID] + ids + [EOS_ID]))
    return out
