"""The checks that tie 10_decoding's prose to its numbers, run by the notebook's last (hidden) cell with
`exec(compile(open(...).read(), ...))` (`%run -i` would print a failure
without failing the cell, so `nbdev-test` would pass) (cwd: nbs/). Figures the text quotes from formulas are recomputed; figures
it quotes from the stored run are read from the notebook's stored outputs (`NotebookFile.stored`) and looked up in the
text, so a figure that drifts fails `nbdev-test`. The live run (this kernel's variables: the toy model, its decodes, the
averaging curves and tests) is checked only for what holds on any CPU and any number of threads. Everything runs
inside one function, so no notebook variable is rebound."""

def _prose_checks_10():
    import re
    from fastcore.test import test_eq, test_close, test_fail
    from transformer_nb.lib.machine import NotebookFile
    nb = NotebookFile('10_decoding.ipynb'); quoted = nb.quoted
    quoted('809cce4d', 'beam size of 4', 'averaging the last 5 checkpoints', '10-minute intervals', 'the last 20 checkpoints')
    test_fail(lambda: quoted('809cce4d', 'no such text'), contains='should say')

    # the length penalty's formula (87fea6de) and its comparison with |Y|^alpha
    quoted('87fea6de', 'lp(Y) &= \\left(\\frac{5 + |Y|}{6}\\right)^{\\alpha}', f"$|Y|^{{0.6}} = {20 ** 0.6:.2f}$",
           f"$((5+20)/6)^{{0.6}} = {(25 / 6) ** 0.6:.2f}$")

    # the six words (b5491631): hgfedcba, longer than any training word, comes out wrong in the stored run and live
    g = globals()
    greedy, beams, decode = g['greedy'], g['beams'], g['decode']
    assert all(decode(d[1]) != 'abcdefgh' for d in (greedy, beams)), "hgfedcba came out right: edit b5491631"
    quoted('b5491631', '`hgfedcba` has 8 letters', 'both decoders get it wrong')
    assert 'hgfedcba' in re.findall(r"(\S+) -> \S*\s+WRONG", nb.stored('1b5caa24'))

    # checkpoint averaging in the main line (d10m0004): the stored run as printed
    a0, amin, amax, m5, m10 = re.search(r"last snapshot ([\d.]+), snapshots alone ([\d.]+) to ([\d.]+); average of the last 5 ([\d.]+), "
                                         r"of all 10 ([\d.]+)", nb.stored('d10f0003')).groups()
    quoted('d10m0004', f"last snapshot scores {a0} nats per word", f"range from {amin} to {amax}", f"scores {m5}; of all 10, {m10}")
    from transformer_nb.training import noam_lr                             # the toy's rate: §5.3's, d_model 32, warm-up 50
    assert noam_lr(205, 32, 50) > noam_lr(250, 32, 50) > 1e-2 and 1 - noam_lr(250, 32, 50) / noam_lr(205, 32, 50) < 0.1   # over its snapshots
    quoted('d10m0004', 'at a learning rate still above $10^{-2}$'); quoted('c0b1e018', 'falls by less than a tenth over them')
    quoted('618c7253', 'make_optimizer(model, 32, warmup=50)')
    assert float(m10) < float(amin) and float(m5) < float(amin)              # "lower than any snapshot alone"
    alone, mean_of = g['alone'], g['mean_of']                               # the live run: the same holds
    assert mean_of[-1] < min(alone) and mean_of[4] < min(alone), (alone, mean_of)

    # three runs (8e81e1b3) and the significance tests (c0b1e004): the stored run as printed
    runs3 = dict((int(s), (a, b)) for s, a, b in re.findall(r"seed (\d): held-out loss, last snapshot ([\d.]+), .*?average of all 10 ([\d.]+)",
                                                          nb.stored('647758f2')))
    test_eq(sorted(runs3), [0, 1, 2]); test_eq(runs3[0], (a0, m10))        # seed 0 is the run of the main line
    quoted('8e81e1b3', f"{runs3[0][0]} nats per word for the last snapshot against {runs3[0][1]} for the average",
           f"{runs3[1][0]} against {runs3[1][1]} and {runs3[2][0]} against {runs3[2][1]}")
    toy = nb.stored('c0b1e003')
    beam_s, avg_s = (re.search(rf"{re.escape(name)}\s+A ([\d.]+)%, B ([\d.]+)%: \+([\d.]+)%.*p = ([\d.]+)", toy).groups()
                     for name in ('toy: beam 4 (B) vs greedy (A)', 'toy: averaged (B) vs last checkpoint (A), beam 4'))
    quoted('c0b1e004', f"rises from {avg_s[0]}% for the last snapshot to {avg_s[1]}% for the average", f"smaller, {beam_s[2]} points")
    assert float(avg_s[3]) < 0.05 and float(beam_s[2]) < float(avg_s[2])
    assert (float(beam_s[3]) < 0.05) == ('clears the bar' in nb.text['c0b1e004'])

    # the live run: what holds on any CPU
    curves, avg_test, beam_test, loss_test = g['curves'], g['avg_test'], g['beam_test'], g['loss_test']
    test_eq(avg_test['baseline'], sum(g['em_beam']) / len(g['em_beam']))
    test_close(loss_test['baseline'], g['word_loss'](g['model']).mean().item(), eps=1e-5)
    for c in curves.values(): assert c['average'][-1] < min(c['alone'])     # in every run the average of ten beats every snapshot
    assert abs(beam_test['delta']) < 0.1 and avg_test['delta'] > 0           # beam: a few points either way; averaging ahead

    # exercise 3 (c0b1e018): two runs' mixture scores over 10 nats per word, nearly as badly as an untrained model
    word_loss, averaged_model, runs = g['word_loss'], g['averaged_model'], g['runs']
    mixed, fresh = word_loss(averaged_model([runs[0][-1], runs[1][-1]])).mean().item(), word_loss(g['untrained']).mean().item()
    assert mixed > 10 and mixed > 0.6 * fresh and all(3 * curves[s]['alone'][0] < mixed for s in (0, 1)), (mixed, fresh)
    quoted('c0b1e018', 'scores over 10 nats per', 'nearly as badly as an untrained model')
    # exercise 4: the paper's checkpoints in updates (600 s / 0.4 s), the toy's snapshots
    assert round(600 / 0.4) == 1500 and 4 * 1500 == 6000 and round(100 * 6000 / 100_000) == 6 and 9 * 5 == 45 and round(100 * 45 / 250) == 18
    quoted('c0b1e018', '600 s / 0.4 s = 1,500 updates apart', 'four intervals, 6,000 updates, the last 6% of training', '45 of its 250 updates (18%)')

_prose_checks_10(); del _prose_checks_10
