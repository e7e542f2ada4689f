"""The checks that tie 10_decoding's prose to its numbers, run by the notebook's last (hidden) cell with
`exec(compile(open(...).read(), ...))` (`%run -i` would print a failure
without failing the cell, so `nbdev-test` would pass) (cwd: nbs/). Figures the text quotes from formulas are recomputed; figures
it quotes from the stored run are read from the notebook's stored outputs (`NotebookFile.stored`) and looked up in the
text, so a figure that drifts fails `nbdev-test`; the ranges measured on other CPUs must hold the stored run. The
live run (this kernel's variables: the toy model, its decodes, the averaging curves and tests) is checked only for
what holds on any CPU. Everything runs inside one function, so no notebook variable is rebound."""

def _prose_checks_10():
    import re
    from fastcore.test import test_eq, test_close, test_fail
    from transformer_nb.machine import NotebookFile
    nb = NotebookFile('10_decoding.ipynb'); quoted = nb.quoted
    quoted('809cce4d', 'beam size of 4'); test_fail(lambda: quoted('809cce4d', 'no such text'), contains='should say')

    # the length penalty's formula (87fea6de)
    quoted('87fea6de', 'lp(Y) &= \\left(\\frac{5 + |Y|}{6}\\right)^{\\alpha}')

    # the six words (b5491631): the stored run within the range the text gives; the live run: hgfedcba is wrong
    g = globals()
    greedy, beams, tok = g['greedy'], g['beams'], g['tok']
    assert all(tok.decode(d[1]) != 'abcdefgh' for d in (greedy, beams)), "hgfedcba came out right: edit b5491631"
    quoted('b5491631', '`hgfedcba` has 8 letters', 'Of the six words, 1 to 3 came out wrong', '`hgfedcba` always among them')
    wrong = re.findall(r"(\S+) -> \S*\s+WRONG", nb.stored('1b5caa24'))
    assert 'hgfedcba' in wrong and 1 <= len(wrong) <= 3, wrong

    # checkpoint averaging (8e81e1b3) and the significance tests (c0b1e004, c0b1e017): the stored run as printed
    c0 = re.search(r"seed 0: .* last snapshot ([\d.]+), snapshots alone ([\d.]+) to ([\d.]+), average of all 10 ([\d.]+)",
                   nb.stored('647758f2')).groups()
    toy = nb.stored('c0b1e003')
    beam_s, avg_s = (re.search(rf"{re.escape(name)}\s+A ([\d.]+)%, B ([\d.]+)%: \+([\d.]+)%.*p = ([\d.]+)", toy).groups()
                     for name in ('toy: beam 4 (B) vs greedy (A)', 'toy: averaged (B) vs last checkpoint (A), beam 4'))
    quoted('8e81e1b3', f"falls from {c0[0]} nats per word", f"to {c0[3]}, and", f"rises from {avg_s[0]}% to {avg_s[1]}%",
           f"between {c0[1]} and {c0[2]}", "ranged from 54.8% to 81.6%", "only from 91.8% to 95.2%")
    assert 54.8 <= float(avg_s[0]) <= 81.6 and 91.8 <= float(avg_s[1]) <= 95.2, avg_s        # the stored run is in the ranges
    quoted('c0b1e004', f"smaller, {beam_s[2]} points"); assert float(beam_s[3]) < 0.05 and float(beam_s[2]) < float(avg_s[2])

    # the live run: what holds on any CPU
    curves, avg_test, beam_test, loss_test = g['curves'], g['avg_test'], g['beam_test'], g['loss_test']
    test_eq(avg_test['baseline'], sum(g['em_beam']) / len(g['em_beam']))
    test_close(loss_test['baseline'], g['word_loss'](g['model']).mean().item(), eps=1e-5)
    for c in curves.values(): assert c['average'][-1] < min(c['alone'])     # in every run the average of ten beats every snapshot
    assert abs(beam_test['delta']) < 0.1 and avg_test['delta'] > 0           # beam: a few points either way; averaging ahead

    # exercise 4, under Going deeper (c0b1e0d1): two runs' mixture scores over 10 nats per word, several times either model's loss
    word_loss, averaged_model, runs = g['word_loss'], g['averaged_model'], g['runs']
    mixed, fresh = word_loss(averaged_model([runs[0][-1], runs[1][-1]])).mean().item(), word_loss(g['untrained']).mean().item()
    assert mixed > 10 and mixed > 0.6 * fresh and all(3 * curves[s]['alone'][0] < mixed for s in (0, 1)), (mixed, fresh)
    quoted('c0b1e0d1', 'scores over 10 nats per word')

_prose_checks_10(); del _prose_checks_10
