"""The speed-ups of `transformer_nb.lib.fast_decoding` (lib_fast_decoding), each switchable, for the benchmarks
(`ablate_beam.py`; `bench_peers.py` and `profile_decode.py` time the decoders as they are).

A lever is a field of the library's `Speedups`; turning it off makes the fast decoders do the slower thing it replaces:
`beam_search_batch(model, src, speedups=off('one_copy_reorder'))`, or for greedy decoding
`greedy_decode(model, src, cache=FastCache(model.cfg.N, off('chunked_argmax')))`. The slower ways compute the same
things, so the searches return the same translations (scores may differ in the last float32 bits where the grouping of
a product changes); `ablate_beam.py` checks the translations before it times anything.

| lever | what it does | off: the slower way |
|---|---|---|
| `one_copy_reorder` | `_LazyKVCache.select`: the reorder done by the next append, one copy of the cache | `index_select` at once, then `torch.cat` in the append: two copies |
| `lazy_cross` | the encoder-decoder caches selected only when sentences leave the batch | selected every step, with the self-attention caches |
| `kept_only` | `topk_log_probs`: log-probabilities of the kept tokens only | the (rows, V) log-probabilities first (`log_probs`), then their top-k |
| `chunked_topk` | `topk_rows`: top-k through each chunk's maximum | `torch.topk` over all V columns |
| `chunked_argmax` | `argmax_rows` (greedy decoding): argmax through each chunk's maximum | `torch.argmax` |
"""
import dataclasses
from transformer_nb.lib.fast_decoding import Speedups

LABELS = {  # lever: what the variant with it off is called
    'one_copy_reorder': 'without the one-copy cache reorder',
    'lazy_cross': 'without selecting the cross-attention cache only when sentences leave',
    'kept_only': 'without log-probabilities of the kept tokens only',
    'chunked_topk': 'without top-k over chunks',
    'chunked_argmax': 'without argmax over chunks',
}
assert set(LABELS) == {f.name for f in dataclasses.fields(Speedups)}, "a lever of Speedups has no label here"
BEAM = [k for k in LABELS if k != 'chunked_argmax']          # the levers beam search uses
GREEDY = ['one_copy_reorder', 'chunked_argmax']

def off(*names) -> Speedups:
    "The library's speed-ups with the levers `names` turned off."
    bad = [n for n in names if n not in LABELS]
    if bad: raise ValueError(f"unknown lever(s) {bad}; the levers are {list(LABELS)}")
    return Speedups(**{n: False for n in names})

def label(name:str) -> str: return LABELS[name]
