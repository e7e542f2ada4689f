"""The figures that the pitfalls page's prose quotes, checked against the values its cells computed (run from nbs/ by the page's
last (hidden) cell, which `exec`s this file; it reads the page's `params`, `hyps`, `best`, `peak`,
`right_lr`, `tat_lr` and `lr_per_update`, each bound once): the share a LayerNorm gain of one moves at d_model = 512,
how much faster |Y|^0.6 grows than GNMT's penalty, the parameters with and without tying, where the per-micro-batch
warm-up ends and peaks, and the alpha from which GNMT's penalty picks the longest hypothesis."""
import math
from fastcore.test import test_eq, test_close
from transformer_nb.lib.machine import NotebookFile
from transformer_nb.decoding import length_penalty

quoted = NotebookFile('pitfalls.ipynb').quoted
quoted('c023b4d9', f"{100 * (1 - math.sqrt(511 / 512)):.1f}% at $d_{{model}} = 512$")
quoted('62bc274a', f"$|Y|^{{0.6}}$ grows by a factor {(20 / 5) ** 0.6:.1f}, GNMT's by {length_penalty(20, 0.6) / length_penalty(5, 0.6):.1f}")
quoted('ae084660', f"({params['all'] / 1e6:.0f}M parameters, not {params['none'] / 1e6:.0f}M)")
quoted('17b30c24', f"warm-up ends after {round(peak(tat_lr), -2)} updates instead of {peak(right_lr)}"); assert abs(peak(tat_lr) - 300) <= 1
def gnmt_pick(alpha):
    s = {k: logp / length_penalty(n, alpha) for k, (logp, n) in hyps.items()}
    return max(s, key=s.get)
test_eq(gnmt_pick(1.0), 'C'); test_eq(best['|Y|^1 (fairseq default)'], 'C')
first = lambda who: next(a / 1000 for a in range(2001) if gnmt_pick(a / 1000) == who or (who == 'C>A' and hyps['C'][0] / length_penalty(12, a / 1000) > hyps['A'][0] / length_penalty(4, a / 1000)))
quoted('ae084660', f"\\alpha > \\ln 1.3 / \\ln(17/12) \\approx {math.log(2.99 / 2.30) / math.log(17 / 12):.2f}", f"from\n   $\\alpha \\approx {first('C>A'):.2f}$")
assert abs(first('C') - math.log(2.99 / 2.30) / math.log(17 / 12)) < 2e-3
lr4, tat4 = lr_per_update(False, updates=6000, accum=4, warmup=4000), lr_per_update(True, updates=6000, accum=4, warmup=4000)
test_eq(peak(lr4), 4000); assert abs(peak(tat4) - 1000) <= 1; quoted('ae084660', f"peaks at update\n   {round(peak(tat4), -2):,}")
test_close(tat4[499] / lr4[499], 4.0, eps=0.05); test_close(tat4[5999] / lr4[5999], 0.5, eps=1e-3)
