"""The figures 04_embeddings's text quotes, checked against the package.

Run by the notebook's last (hidden) cell, which `exec`s this file in the notebook's namespace (from nbs/), so
`nbdev-test` fails when a quoted figure drifts: the positional encoding's norm at d_model = 512, the size of one
embedding matrix and what tying saves (base model, 37,000 tokens; big model, 32,000), and exercise 3's expected
outcome (the ratio of N(0, 1)-initialised token vectors to positional encodings, and the angle it leaves), each
recomputed here. Names defined here start with `_` and are deleted at the end."""
import math as _math
from transformer_nb.lib.machine import NotebookFile as _NotebookFile
from transformer_nb.embeddings import Embeddings as _Emb, Generator as _Gen, tie_weights as _tie
from transformer_nb.positional import sinusoidal_encoding as _pe

_q = _NotebookFile('04_embeddings.ipynb').quoted

def _params(V, d_model, tie):
    "Parameters of the two embeddings and the generator, tied as `tie` says, counted on the meta device."
    with torch.device('meta'): s, t, g = _Emb(V, d_model), _Emb(V, d_model), _Gen(d_model, V)
    if tie == 'all': _tie(s, t, g)
    return count_params(nn.ModuleList([s, t, g]))

_q('a1c729f5', f"about {_pe(100, 512).norm(dim=-1).mean():.0f} for $d_{{model}} = 512$")
_q('ae70cb6a', f"one matrix is\n{37000 * 512 / 1e6:.1f}M", f"add {2 * 37000 * 512 / 1e6:.1f}M")
_saved = _params(37000, 512, 'none') - _params(37000, 512, 'all')
test_eq(_saved, 2 * 37000 * 512)
_q('76acbdd3', f"{_saved / 1e6:.1f}M in the base model")
_q('4b182bb5', f"{_params(32000, 1024, 'none') - _params(32000, 1024, 'all'):,}".replace(',', '{,}'))

# exercise 3: N(0, 1) rows scaled by sqrt(d_model) against the positional encodings
_tok = nn.Embedding(1000, 512).weight.detach() * _math.sqrt(512)
_ratio = (_tok.norm(dim=-1).mean() / _pe(64, 512).norm(dim=-1).mean()).item()
assert 30 < _ratio < 34 and _math.degrees(_math.atan(1 / _ratio)) < 2, f"ratio {_ratio:.1f}: not 'about 32', 'under two degrees'"
_q('4b182bb5', 'a ratio of about 32', 'under two degrees')
del _math, _NotebookFile, _Emb, _Gen, _tie, _pe, _q, _params, _saved, _tok, _ratio
