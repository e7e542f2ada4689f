"""The figures 03_ffn's text quotes, checked against the package.

Run by the notebook's last (hidden) cell, which `exec`s this file in the notebook's namespace (from nbs/), so
`nbdev-test` fails when a quoted figure drifts: the parameter counts (base and big FFNs, their share of the model),
the fraction of hidden units the ReLU zeroes at initialisation, and exercise 3's expected outcome (the spread of the
pre-activations and the sparsity for b_1 = +1 and -1 at three input scales), measured again here on the notebook's
layer and inputs (`set_seed(0)`, then `FeedForward(512, 2048)` and `torch.randn(1, 32, 512)`, as its cell draws them).
Names defined here start with `_` and are deleted at the end."""
from transformer_nb.core import set_seed as _set_seed
from transformer_nb.lib.machine import NotebookFile as _NotebookFile
from transformer_nb.ffn import FeedForward as _FFN

_q = _NotebookFile('03_ffn.ipynb').quoted
_params = lambda d_model, d_ff: 2 * d_model * d_ff + d_ff + d_model

# parameter counts
_P = _params(512, 2048)
with torch.device('meta'): test_eq(count_params(_FFN(512, 2048)), _P)
_q('fc85cf18', f"{_P:,} for the base model", f"about {12 * _P / 1e6:.0f}M of")
_q('e63dcc91', f"{_P / 1e6:.1f}M per layer", f"about {12 * _P / 1e6:.0f}M of")
assert round(_P / (4 * 512**2 + 4 * 512)) == 2, "'twice as many as the layer's multi-head attention'"
_share, _attn, _emb = 12 * _P / 65e6, 18 * (4 * 512**2 + 4 * 512), 37000 * 512      # of the paper's 65M: 6 + 2 x 6 attention layers
assert _share < 0.5 and 12 * _P > max(_attn, _emb), "'the largest share, though not a majority'"
_q('fc85cf18', f"{100 * _share:.0f}%, the largest share", f"18 attention layers hold about {_attn / 1e6:.0f}M", f"37,000 tokens about {_emb / 1e6:.0f}M")
_q('e63dcc91', f"65M in all ({100 * _share:.0f}%)")
from transformer_nb.lib.options import PAPER_TABLE3 as _T3
test_eq(_T3['base'][2], 65); _q('fc85cf18', "base model's 65M parameters (Table 3)")   # the 65M the shares are of
_q('c57e0dc7', f"{_params(1024, 4096):,}".replace(',', '{,}'), f"{12 * _params(1024, 4096) / 1e6:.1f}M")

# the ReLU's sparsity at initialisation, and exercise 3's expected outcome
_set_seed(0)
_f = _FFN(512, 2048).eval(); _xs = torch.randn(1, 32, 512)
with torch.no_grad():
    _z = _f.w_1(_xs)                                                          # (1, n, d_ff) pre-activations
    _zero = {b: [(F.relu(_f.w_1.weight @ (c * _xs[0]).T + b) == 0).float().mean().item() for c in (0.1, 1, 10)]
             for b in (0., 1., -1.)}
assert abs(_zero[0.][1] - 0.5) < 0.02, f"{_zero[0.][1]:.3f} of the hidden units are zero, not 'about half'"
_q('35cbb709', 'about half of the 2048'); _q('e63dcc91', 'zeroes half')
test_eq(_zero[0.][0], _zero[0.][1]); test_eq(_zero[0.][2], _zero[0.][1])   # "scaling the input alone changes nothing"
_q('c57e0dc7', f"about {_z.std().item():.2f} here", f"about {100 * _zero[1.][1]:.0f}% of the units at zero",
   f"$b_1 = -1$ about {100 * _zero[-1.][1]:.0f}%", f"({100 * _zero[1.][2]:.0f}% and {100 * _zero[-1.][2]:.0f}%)",
   f"({100 * _zero[1.][0]:.0f}% and {100 * _zero[-1.][0]:.0f}%)")
del _T3, _NotebookFile, _set_seed, _FFN, _q, _params, _P, _share, _attn, _emb, _f, _xs, _z, _zero
