"""The figures 01_attention's text quotes, checked against this run and the stored sweep.

Run by the notebook's last (hidden) cell, which `exec`s this file in the notebook's namespace (from nbs/), so
`nbdev-test` fails when a quoted figure drifts: the worked example's output, the scaling experiment's gradients and
weights (recomputed here), the retrieval sweep's accuracies and losses (read from
results/retrieval_sweep.json, which must be the default sweep of today's code) and the sizes of additive and
dot-product attention's intermediates (this run's `rows`; no timing is asserted). Names defined here start with `_`
and are deleted at the end."""
import inspect as _inspect, json as _json
from transformer_nb.lib.machine import NotebookFile as _NotebookFile
from transformer_nb.lib.layers import scaling_experiment as _scaling, retrieval_experiment as _retrieval

_nbf = _NotebookFile('01_attention.ipynb')
_q = _nbf.quoted

# the worked example (three keys: east, north, west), as the stored run computed it
_out = float(_nbf.stored('010ffb4b').split('output  sum_j w_j v_j:')[1])     # the stored run, not the live
_q('46fe6009', f"The output is about {_out:.1f}")                         # `attention`, which an exercise breaks

# the scaling experiment: weights and gradients at d_k = 64 and 1024
_r = _scaling()
_i64, _i1024 = _r['d_k'].tolist().index(64), _r['d_k'].tolist().index(1024)
assert 2.5 <= _r['grad_scaled'][_i64] / _r['grad'][_i64] < 3.5 and _r['max_w'][_i64] > 0.5, "d_k = 64: 'shrunk about three-fold'"
assert 1e3 <= _r['grad_scaled'][_i1024] / _r['grad'][_i1024] < 1e4, "d_k = 1024: 'thousands of times smaller'"
_q('d0cebbe8', 'shrunk about three-fold', 'thousands of times smaller')
_q('83ef81e9', f"max weight {_r['max_w'][_i64]:.2f} unscaled against {_r['max_w_scaled'][_i64]:.2f} scaled")

# the retrieval sweep: the stored run is today's code's default sweep, and the text quotes it
_stored = _json.loads(Path('../results/retrieval_sweep.json').read_text())
_defaults = {k: p.default for k, p in _inspect.signature(_retrieval).parameters.items()}
test_eq(_stored['args'], _json.loads(_json.dumps(_defaults)))
_acc = {k: torch.tensor(v) for k, v in _stored['acc'].items()}; _loss = {k: torch.tensor(v) for k, v in _stored['loss'].items()}
_A = lambda kind, i: _acc[kind][i].mean().item(); _L = lambda kind, i: _loss[kind][i].mean().item()
_q('0e7c9c46', f"accuracy {_A('additive', 3):.3f} against {_A('dot', 3):.3f} and {_A('additive', 4):.3f} against {_A('dot', 4):.3f}",
   f"{round(_L('dot', 3) / _L('additive', 3))} and {round(_L('dot', 4) / _L('additive', 4))} times lower",
   f"({_L('additive', 3):.2f} against {_L('dot', 3):.2f}, {_L('additive', 4):.2f} against {_L('dot', 4):.2f})",
   f"best possible accuracy ({_stored['ideal_acc']:.2f})",
   f"({_A('additive', 0):.2f} against {_A('dot', 0):.2f}, {_A('additive', 1):.2f} against {_A('dot', 1):.2f})",
   f"({_A('dot', 0):.3f} against {_A('scaled', 0):.3f}, {_A('dot', 1):.3f} against {_A('scaled', 1):.3f})")
assert all(_A('scaled', i) >= max(_A('dot', i), _A('additive', i)) for i in range(1, 5)), "'the best of the three at every d_k >= 16'"
assert all(abs(_A('scaled', i) - _stored['ideal_acc']) < 0.01 for i in range(1, 5)), "'stays at the best possible accuracy'"
_q('b1d0a008', f"about {round(_stored['seconds'] / 60)} minutes")
_q('d0cebbe8', f"about {100 * _stored['ideal_acc']:.0f}% of the time")

# additive against dot-product attention: the text quotes no timing (this run's times depend on the machine and its
# load), only the sizes of the largest intermediates, which the printed table gives
_floats = [int(r[2].split()[0].replace(',', '')) for r in rows]
assert rows[0][0].startswith('additive') and _floats[0] == d * _floats[1], f"intermediates {_floats}: not d_h = {d} times larger"
_q('b564c16c', 'the text quotes none of', '$d_h$ times larger than the weights')

del _out, _inspect, _json, _NotebookFile, _scaling, _retrieval, _nbf, _q, _r, _i64, _i1024, _stored, _defaults, _acc, _loss, _A, _L, _floats
