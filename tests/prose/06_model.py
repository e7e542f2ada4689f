"""Checks that tie 06_model's prose to its outputs (run by
the notebook's last (hidden) cell, which `exec`s this file (`%run` would print a failure without failing the cell), and so by `nbdev-test`):
the parameter-count gaps to Table 3 and what they say about tying, every figure quoted from the stored warm-up run
(`results/warmup_experiment.json`, which must come from the notebook's `warmup_experiment` with its present defaults),
and the counts of exercise 3 (its solution). Everything runs inside one function, which the notebook's last cell calls,
so no name of the notebook is rebound."""

def _check_prose_06():
    import inspect, json, math
    from pathlib import Path
    import torch
    from transformer_nb.core import count_params
    from transformer_nb.lib.machine import NotebookFile
    from transformer_nb.model import EncoderLayer, DecoderLayer
    from transformer_nb.lib.options import PAPER_TABLE3
    from transformer_nb.lib.options import get_model_config
    from transformer_nb.lib.transformer import count_config_params
    nb = NotebookFile('06_model.ipynb')

    V, d = 37000, 512                                                       # "Reading the gap"
    counts = {k: count_config_params(get_model_config(k, src_vocab=V, tgt_vocab=V)) for k, (_, _, p) in PAPER_TABLE3.items() if p}
    gaps = {k: PAPER_TABLE3[k][2] - n / 1e6 for k, n in counts.items()}
    fits = {k: (PAPER_TABLE3[k][2] * 1e6 - (n - V * get_model_config(k).d_model)) / get_model_config(k).d_model / 1e3 for k, n in counts.items()}
    below, fit_rows, E, base = [gaps[k] for k in gaps if k != 'big'], [fits[k] for k in fits if k != 'big'], V * d / 1e6, counts['base']
    nb.quoted('8eedcdc8', f"{min(below):.1f}–{max(below):.1f}M *below* the paper, big {-gaps['big']:.1f}M above",
              f"{min(fit_rows):.0f}–{max(fit_rows):.0f}k for every row", f"about {fits['big']:.0f}k for big",
              f"${base / 1e6:.1f} + 2 \\times {E:.1f} = {base / 1e6 + 2 * E:.0f}$M", f"only {base / 1e6 + E:.0f}M",
              f"is {base / 1e6:.2f}M, {1 - base / 65e6:.2%} below 65M", f"base would be {(base + 4000 * d) / 1e6:.1f}M")
    assert all(g > 0 for g in below) and gaps['big'] < 0

    stored = json.loads(Path('../results/warmup_experiment.json').read_text())     # the stored warm-up run
    defaults = {k: p.default for k, p in inspect.signature(warmup_experiment).parameters.items()}
    assert stored['args'] == json.loads(json.dumps(defaults)), \
        "results/warmup_experiment.json was made with other settings than warmup_experiment's defaults: set RERUN = True"
    nb.quoted('515e1b14', f"took about {round(stored['seconds'] / 60)} minutes", f"{stored['args']['steps']} updates",
              f"$N = {stored['args']['N']}$ layers", f"$d_{{model}} = {stored['args']['d_model']}$", f"batches of {stored['args']['batch']}",
              f"warm-up over {stored['args']['warmup']} updates")
    curves = {k: torch.tensor(v) for k, v in stored['curves'].items()}           # (seeds, steps) training losses
    final = {k: [f"{v:.2f}" for v in x[:, -20:].mean(1).tolist()] for k, x in curves.items()}
    p_eos = 1 / (1 + (1 + stored['args']['max_len']) / 2)                        # the loss of ignoring the input
    h0 = -(p_eos * math.log(p_eos) + (1 - p_eos) * math.log((1 - p_eos) / (stored['args']['vocab'] - 4)))
    nb.quoted('60f1019f', f"(the dotted line, {h0:.2f})", "they end at {} and {}".format(*final['post-LN, no warm-up']),
              "{} and {} after 300 updates".format(*final['post-LN, warm-up']),
              "{} and {} with warm-up, {} and {}\n  without".format(*final['pre-LN, warm-up'], *final['pre-LN, no warm-up']))
    last = {k: x[:, -20:].mean(1) for k, x in curves.items()}
    assert last['pre-LN, no warm-up'].max() > 2 * last['pre-LN, warm-up'].max()           # "one seed is clearly slower"
    jump = lambda y: y[100:120].mean() - y[80:100].mean()                                   # "a jump back up ... around 100"
    assert any(jump(y) > 0 for y in curves['post-LN, warm-up'])
    assert all(abs(y[30:].mean() - h0) < 0.05 for y in curves['post-LN, no warm-up'])      # "sit at the loss of ... ignores"

    cfg = dict(N=4, d_model=1024, src_vocab=16000, tgt_vocab=16000)                  # exercise 3
    n_tied, n_untied = count_config_params(get_model_config('base', **cfg)), count_config_params(get_model_config('base', **cfg, tie='none'))
    enc_l, dec_l = (count_params(L(get_model_config('base', d_model=1024))) for L in (EncoderLayer, DecoderLayer))
    nb.quoted('b06f0012', f"the count is {n_tied:,} parameters, about {n_tied / 1e6:.0f}M",
              f"$4 \\times ({enc_l / 1e6:.2f}\\text{{M}} + {dec_l / 1e6:.2f}\\text{{M}}) = {4 * (enc_l + dec_l) / 1e6:.1f}$M",
              f"= {16000 * 1024 / 1e6:.1f}$M", f"it is {n_untied / 1e6:.1f}M")
    assert n_untied - n_tied == 2 * 16000 * 1024 and n_tied == 4 * (enc_l + dec_l) + 16000 * 1024

