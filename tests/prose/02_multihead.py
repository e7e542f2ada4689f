"""The figures 02_multihead's text quotes, checked against the package.

Run by the notebook's last (hidden) cell, which `exec`s this file in the notebook's namespace (from nbs/), so
`nbdev-test` fails when a quoted figure drifts: the softmax scores and matmul FLOPs of one head against eight for a
50-token sentence, and exercise 3's parameter counts (Table 3 row (B) against the base layer), each recomputed with
`mha_cost` and the second also counted on the module; the hand-set heads' sizes and score; the untrained heads' peaks (this run's `w_base`). Names defined here start with `_` and are deleted at the end."""
from transformer_nb.lib.machine import NotebookFile as _NotebookFile
from transformer_nb.multihead import MultiHeadAttention as _MHA
from transformer_nb.lib.transformer import mha_cost as _cost

_q = _NotebookFile('02_multihead.ipynb').quoted
_one, _eight = _cost(512, 1, 50), _cost(512, 8, 50)
_q('d1da67a9', f"({_one['scores']:,} → {_eight['scores']:,} here, against about {round(_eight['flops'] / 1e7) * 10} million")
_rowB, _base = _cost(512, 8, 1, d_k=16, d_v=64)['params'], _cost(512, 8, 1)['params']
_q('3cece8cd', f"{_rowB:,}".replace(',', '{,}'), f"{_base:,} for the base layer")
test_eq(_rowB, count_params(_MHA(512, 8, d_k=16, d_v=64)))
# the hand-set heads: the sentence, its 6 positions in h heads of d_k = 6 (one feature per position), the score 8 of
# the query 8 sqrt(d_k) e_f(t) once divided by sqrt(d_k), and nearly all of each row's weight on its target
_score = (toy.w_q.weight.max() / dk ** 0.5).item()
assert n == dk == len(words) and w_toy[0].max(-1).values.min() > 0.99
_q('b2e2f001', f"for *{' '.join(words)}*: {n} positions, $h = {hh}$ heads of $d_k = {dk}$, one feature per position",
   f"it scores {_score:g} against key $f_i(t)$ and 0 against every other")
# the untrained heads' map: in the rows 'cat' .. '.', which see t = 3 to 6 keys, the largest weight of the 8 heads is
# 2.5 to 4 times 1/t
_peaks, _share = w_base[0, :, 2:6].max(-1).values.max(0).values, 1 / torch.arange(3, 7)   # rows 'cat' .. '.'
assert (2.5 <= _peaks / _share).all() and (_peaks / _share <= 4).all(), f"row peaks {_peaks.tolist()}: not 2.5 to 4 times {_share.tolist()}"
assert labels[2:6] == ['cat', 'sat', 'down', '.'] and tgt_mask(torch.tensor([[2, 11, 12, 13, 14, 15, 0, 0]]))[0, 0, 2:6].sum(-1).tolist() == [3, 4, 5, 6]
_q('40d30c88', 'not\nuniform', 'in the rows from `cat` to `.`\n($t$ = 3 to 6) the largest weight of any head is two and a half to four times that share')
del _NotebookFile, _cost, _MHA, _q, _one, _eight, _rowB, _base, _peaks, _share, _score
