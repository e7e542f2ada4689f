"""Checks that tie 05_positional_encoding's prose to its outputs (run by
the notebook's last (hidden) cell, which `exec`s this file (`%run` would print a failure without failing the cell), and so by `nbdev-test`): the float32 drift quoted for the angles, the wavelengths of exercises 3 and 4, the experiment's settings
as the text gives them, and every figure the text quotes from the stored extrapolation run (results/extrapolation.json, as the
cell that loads it printed it). Everything runs inside one function, which the notebook's last cell calls,
so no name of the notebook is rebound."""

def _check_prose_05():
    import inspect, math, re
    from decimal import Decimal, ROUND_HALF_UP
    import torch
    from transformer_nb.lib.machine import NotebookFile
    def pe_frequencies(d_model:int) -> torch.Tensor:      # §3.5's formula, written out here: an exercise that breaks the
        return 10000.0 ** (-torch.arange(0, d_model, 2, dtype=torch.float64) / d_model)   # library fails its own cells, not this one
    def sinusoidal_encoding(n:int, d_model:int, dtype=torch.float64) -> torch.Tensor:
        angle = torch.arange(n, dtype=dtype)[:, None] * pe_frequencies(d_model).to(dtype)
        return torch.stack([angle.sin(), angle.cos()], dim=-1).flatten(1)
    nb = NotebookFile('05_positional_encoding.ipynb')

    def f32_error(n:int, d_model:int=512) -> float:
        "Largest error of the encodings of positions 0..n-1 when the angles are computed in float32 (sin, cos exact)."
        angle = (torch.arange(n, dtype=torch.float32)[:, None] * pe_frequencies(d_model).float()).double()
        pe32 = torch.stack([angle.sin(), angle.cos()], dim=-1).flatten(1)  # float32 angles; sin and cos in float64, so
        return (pe32 - sinusoidal_encoding(n, d_model, dtype=torch.float64)).abs().max().item()   # no CPU's rounding shows
    latex = lambda x: (lambda m, e: f"${m}\\cdot10^{{{int(e)}}}$")(*f"{x:.0e}".split('e'))
    nb.quoted('e626dad1', f"up to {latex(f32_error(1000))} over the first 1,000 positions and "
                          f"{latex(f32_error(10000))} over the first 10,000")

    stripes = sinusoidal_encoding(100, 128)[:, 96:]                          # the heat map's lowest quarter of rows
    assert stripes[:, 0::2].abs().max() < 0.1 and stripes[:, 1::2].min() > 0.99, "lowest rows: sines near 0, cosines near 1"
    nb.quoted('e9235267', 'over 100 positions, sines stay near 0 and cosines near 1')
    assert "sinusoidal_encoding(100, 128)" in nb.text['6752e8ee']                # the heat map's table

    longest = 2 * math.pi / pe_frequencies(512)[-1].item()                   # exercise 4
    nb.quoted('0c5c1cbc', f"2\\pi \\cdot {10000 ** (510 / 512):,.1f}".replace(',', '{,}'),
              f"\\approx {longest:,.0f}$ positions".replace(',', '{,}'))
    wavelength = lambda base, d: 2 * math.pi * base ** ((d - 2) / d)        # the slowest pair, i = d/2 - 1
    defaults = {k: p.default for k, p in inspect.signature(extrapolation_experiment).parameters.items()}
    nb.quoted('0c5c1cbd', f"about {wavelength(100, defaults['d_model']):,.0f} positions instead of "
                          f"{wavelength(10000, defaults['d_model']):,.0f}", f"$d_{{model}} = {defaults['d_model']}$")
    assert abs(wavelength(10000, 512) - longest) < 1e-6 * longest
    d = defaults                                                            # the experiment as the text describes it
    nb.quoted('f3cc3687', f"$N = {d['N']}$", f"$d_{{model}} = {d['d_model']}$", f"$h = {d['h']}$", f"$d_{{ff}} = {4 * d['d_model']}$",
              f"$L = {d['L']}$", f"strings of length {d['test_len']}", f"{len(d['seeds'])} seeds", f"trains for {d['steps']} Adam updates",
              f"batches of {d['batch']} fresh strings", f"random symbols ({d['vocab'] - 4} of them)", f"a {d['warmup']}-update")
    assert d['lr'] == 3e-3 and '$3\\cdot10^{-3}$' in nb.text['f3cc3687']
    nb.quoted('558349b0', f"trains {len(d['seeds']) * len(d['kinds'])} models for {d['steps']} updates each")

    out = nb.stored('20c5acdc')                                            # the stored run, as the slow cell printed it
    assert out, "the extrapolation cell's output is not stored: run the notebook top to bottom and save it"
    L, T = d['L'], d['test_len']
    acc = {k: v.split() for k, v in re.findall(r"(\w+): per-position accuracy.*\n  (.*)", out)}        # positions 1..T+1
    exact = {k: dict(re.findall(r'(\d+): ([\d.]+)', v)) for k, v in re.findall(r"(\w+): per-position(?:.*\n){2}  exact copies at (.*)", out)}
    eos = {k: [Decimal(x) for x in re.findall(r'[\d.]+', v)] for k, v in re.findall(r"(\w+): per-position(?:.*\n){3}.*\(per seed\): \[(.*)\]", out)}
    pct = lambda x: f"{Decimal(x).quantize(Decimal('0.01'), ROUND_HALF_UP) * 100:.0f}%"             # as the text rounds them
    s, l = 'sinusoidal', 'learned'
    nb.quoted('341931ff', f"At target position {L + 1} their accuracy is {acc[l][L]}",
              f"position {L + 1} for {pct(min(eos[l]))[:-1]} to {pct(max(eos[l]))} of the strings",
              f"Position {L + 1} is right {pct(acc[s][L])} of the time",
              f"there for {pct(min(eos[s]))[:-1]} to {pct(max(eos[s]))} of the strings",
              f"position {L + 2} {pct(acc[s][L + 1])}",
              f"copied exactly {pct(exact[s][str(L + 1)])} of the time, of length {L + 2} {pct(exact[s][str(L + 2)])}",
              f"at position {L} ({acc[s][L - 1]})",
              f"copies {pct(exact[s][str(L)])} of the length-{L} strings exactly, against {pct(exact[l][str(L)])}",
              f"every string of length 1 to {L}", f"({len(d['seeds'])} seeds per kind")
    assert all(Decimal(x) >= Decimal('0.96') for x in acc[l][:L]) and exact[l][str(L)] == '1.00'   # "perfect" inside the range
    assert all(Decimal(x) <= Decimal('0.2') for x in acc[l][L:T])                                  # "at chance (about 0.1)"
    seconds = int(re.search(r"thread, (\d+) s", out).group(1))                                     # the stored run's time
    import json
    from pathlib import Path
    assert json.loads(Path('../results/extrapolation.json').read_text(encoding='utf-8'))['seconds'] == seconds
    phrase = 'about a minute' if seconds < 90 else f"about {round(seconds / 60)} minutes"           # as the text says it
    nb.quoted('558349b0', f"{phrase} on one core"); assert phrase in nb.text['20c5acdc']

