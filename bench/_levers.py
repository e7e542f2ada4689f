"""The decoder step's speed-ups of issue 13, switchable, for the benchmarks (`ablate_beam.py`, `bench_peers.py`).

Each lever swaps a library method for its plain version; both compute the same numbers (tested in 02, 06 and 10), so
the translations do not change, only the time:
- `one_token_step`: `DecoderLayer.step` (off: the layers' `forward`, with its module calls and checks);
- `transposed_output`: `DecoderCache.logits`, the output layer's weight transposed once per run (off: `proj(x)`);
- `one_copy_reorder`: `KVCache.select` done by the next append, one copy of the cache (off: `index_select` at once,
  then `torch.cat` in the append: two copies);
- `chunked_argmax`: greedy decoding's `argmax_rows` (off: `torch.argmax`).
"""
import contextlib
import torch
import transformer_nb.decoding as decoding
from transformer_nb.multihead import KVCache
from transformer_nb.model import DecoderLayer, DecoderCache

def _select_now(self, idx):                                   # index_select at once; the next append concatenates
    if self._k is not None: self._k, self._v = self._k.index_select(0, idx), self._v.index_select(0, idx)
    return self

LEVERS = {  # name: (owner, attribute, plain version)
    'one_token_step': (DecoderLayer, 'step', lambda self, x, memory, src_mask, cache: self(x, memory, src_mask, None, cache)),
    'transposed_output': (DecoderCache, 'logits', lambda self, x, proj: proj(x)),
    'one_copy_reorder': (KVCache, 'select', _select_now),
    'chunked_argmax': (decoding, 'argmax_rows', lambda x: x.argmax(-1)),
}
LIBRARY = {name: getattr(owner, attr) for name, (owner, attr, _) in LEVERS.items()}

def set_levers(**on):
    "Each lever to the library's version (True, the default) or the plain one (False)."
    for name, (owner, attr, plain) in LEVERS.items(): setattr(owner, attr, LIBRARY[name] if on.get(name, True) else plain)

@contextlib.contextmanager
def levers(**on):
    "`set_levers(**on)` inside the block, the library's versions after it."
    set_levers(**on)
    try: yield
    finally: set_levers()

def before_issue_13(): return levers(**{name: False for name in LEVERS})
