"""The figures 02_multihead's text quotes, checked against the package.

Run by the notebook's last (hidden) cell, which `exec`s this file in the notebook's namespace (from nbs/), so
`nbdev-test` fails when a quoted figure drifts: the softmax scores and matmul FLOPs of one head against eight for a
50-token sentence, and exercise 3's parameter counts (Table 3 row (B) against the base layer), each recomputed with
`mha_cost` and the second also counted on the module. Names defined here start with `_` and are deleted at the end."""
from transformer_nb.machine import NotebookFile as _NotebookFile
from transformer_nb.multihead import mha_cost as _cost, MultiHeadAttention as _MHA

_q = _NotebookFile('02_multihead.ipynb').quoted
_one, _eight = _cost(512, 1, 50), _cost(512, 8, 50)
_q('d1da67a9', f"({_one['scores']:,} → {_eight['scores']:,} here, against about {round(_eight['flops'] / 1e7) * 10} million")
_rowB, _base = _cost(512, 8, 1, d_k=16, d_v=64)['params'], _cost(512, 8, 1)['params']
_q('3cece8cd', f"{_rowB:,}".replace(',', '{,}'), f"{_base:,} for the base layer")
test_eq(_rowB, count_params(_MHA(512, 8, d_k=16, d_v=64)))
del _NotebookFile, _cost, _MHA, _q, _one, _eight, _rowB, _base
