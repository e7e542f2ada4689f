"""The speed-ups of `transformer_nb.fast_decoding` (A6_fast_decoding), each switchable, for the benchmarks
(`ablate_beam.py`; `bench_peers.py` and `profile_decode.py` time the decoders as they are).

A lever is switched off by putting a slower version of one function or method of `fast_decoding` in its place inside a
`with levers(...)` block (the library's own is back after it). The slower versions compute the same things, so the
searches return the same translations (scores may differ in the last float32 bits where the grouping of a product
changes); `ablate_beam.py` checks the translations before it times anything.

| lever | what it does | off: the slower version |
|---|---|---|
| `one_token_step` | `decode_step`: each decoder layer for one new token as plain functions on its weights | each layer through its modules (`SublayerConnection`, `MultiHeadAttention`, `FeedForward`), as `DecoderLayer.forward` runs it |
| `transposed_output` | `FastCache.logits`: the output layer's weight transposed once per decoding run | `proj(x)`, which re-packs the weight every step |
| `one_copy_reorder` | `LazyKVCache.select`: the reorder done by the next append (`_select_cat`), one copy of the cache | `index_select` at once, then `torch.cat` in the append: two copies |
| `lazy_cross` | `_follow_parents`: the encoder-decoder caches selected only when sentences leave the batch | selected every step, with the self-attention caches |
| `grouped_cross` | `_mha_step`: a sentence's k hypotheses attend to one copy of its keys and values | each hypothesis attends to its own copy (repeated every step) |
| `kept_only` | `topk_log_probs`: log-probabilities of the kept tokens only | the (rows, V) log-probabilities first (`log_probs`), then their top-k |
| `chunked_topk` | `topk_rows`: top-k through each chunk's maximum | `torch.topk` over all V columns |
| `chunked_argmax` | `argmax_rows` (greedy decoding): argmax through each chunk's maximum | `torch.argmax` |

    with levers(one_copy_reorder=False): fast_beam_search(model, src)     # the one-copy reorder turned off
    with without('one_token_step', 'kept_only'): ...                       # two levers off
"""
import contextlib
import torch
import torch.nn.functional as F
import transformer_nb.fast_decoding as fd
from transformer_nb.decoding import log_probs

def _decode_step_modules(model, memory, src_mask, tgt, cache):  # (B, 1) new tokens -> (B, 1, V) logits
    "`decode_step` through the modules: every sub-layer, attention and FFN as a module call (`DecoderLayer.forward`'s path)."
    x = model.embed(model.tgt_emb, model.tgt_pos, tgt, len(cache))            # (B, 1, d_model)
    b = memory.shape[0]                                                        # b <= B: one memory row per group of B/b
    def cross(layer, cc):                                                      # a group's queries as positions of one row
        return lambda t: layer.cross_attn(t.reshape(b, -1, t.shape[-1]), memory, mask=src_mask, cache=cc).reshape(t.shape)
    for layer, (sc, cc) in zip(model.decoder, cache.layers):
        x = layer.sub[0](x, lambda t: layer.self_attn(t, cache=sc))
        x = layer.sub[1](x, cross(layer, cc))
        x = layer.sub[2](x, layer.ffn)
    return cache.logits(model.dec_norm(x), model.generator.proj)

def _proj(self, x, proj): return proj(x)                                     # the output layer as a module call

def _select_now(self, idx):                                                  # index_select at once; the append concatenates
    self._apply_select()
    if self._k is not None: self._k, self._v = self._k.index_select(0, idx), self._v.index_select(0, idx)
    return self

def _follow_parents_every_step(cache, rows, sentences):
    "`_follow_parents`, with the encoder-decoder caches selected every step (all their rows when no sentence left)."
    for self_kv, cross_kv in cache.layers:
        self_kv.select(rows)
        if sentences is None:
            n = cross_kv._k.shape[0] if cross_kv._rows is None else len(cross_kv._rows)
            sentences = torch.arange(n, device=rows.device)
        cross_kv.select(sentences)

def _mha_step_ungrouped(m, x, mem=None, mask=None, cache=None):
    "`_mha_step` with a row of keys and values per row of x: a sentence's K, V copied for each of its hypotheses."
    q, k, v = m.project(x, mem, cache)
    B, b = x.shape[0], k.shape[0]
    if B > b:
        g = B // b
        k, v = k.repeat_interleave(g, 0), v.repeat_interleave(g, 0)
        if mask is not None: mask = mask.repeat_interleave(g, 0)
    o = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
    return F.linear(m.merge_heads(o), m.out_proj.weight, m.out_proj.bias)

def _topk_of_log_probs(logits, n): return fd.topk_rows(log_probs(logits), n)   # all V log-probabilities, then top-k
def _topk(x, n, chunk=64): return x.topk(n, dim=1)
def _argmax(x, chunk=64): return x.argmax(-1)

LEVERS = {  # name: (owner, attribute, slower version, what the variant is called)
    'one_token_step': (fd, 'decode_step', _decode_step_modules, 'without the one-token step'),
    'transposed_output': (fd.FastCache, 'logits', _proj, 'without the transposed output layer'),
    'one_copy_reorder': (fd.LazyKVCache, 'select', _select_now, 'without the one-copy cache reorder'),
    'lazy_cross': (fd, '_follow_parents', _follow_parents_every_step,
                   'without selecting the cross-attention cache only when sentences leave'),
    'grouped_cross': (fd, '_mha_step', _mha_step_ungrouped, 'without grouped encoder-decoder attention'),
    'kept_only': (fd, 'topk_log_probs', _topk_of_log_probs, 'without log-probabilities of the kept tokens only'),
    'chunked_topk': (fd, 'topk_rows', _topk, 'without top-k over chunks'),
    'chunked_argmax': (fd, 'argmax_rows', _argmax, 'without argmax over chunks'),
}
LIBRARY = {name: owner.__dict__[attr] for name, (owner, attr, _, _) in LEVERS.items()}   # the library's own versions
BEAM = [k for k in LEVERS if k != 'chunked_argmax']          # the levers beam search uses
GREEDY = ['one_token_step', 'transposed_output', 'one_copy_reorder', 'chunked_argmax']

def set_levers(**on):
    "Each named lever to the library's version (True, the default for every lever not named) or the slower one (False)."
    bad = [k for k in on if k not in LEVERS]
    if bad: raise ValueError(f"unknown lever(s) {bad}; the levers are {list(LEVERS)}")
    if on.get('one_token_step', True) is False and on.get('grouped_cross', True) is False:
        raise ValueError("one_token_step=False groups the encoder-decoder attention itself: "
                         "turn off one_token_step or grouped_cross, not both")
    for name, (owner, attr, slower, _) in LEVERS.items():
        setattr(owner, attr, LIBRARY[name] if on.get(name, True) else slower)

@contextlib.contextmanager
def levers(**on):
    "`set_levers(**on)` inside the block; every lever back to the library's version after it."
    set_levers(**on)
    try: yield
    finally: set_levers()

def without(*names): return levers(**{n: False for n in names})
def label(name:str) -> str: return LEVERS[name][3]
