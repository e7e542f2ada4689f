"""Checks that tie 07_why_self_attention's prose to its outputs (run by
the notebook's last (hidden) cell, which `exec`s this file (`%run` would print a failure without failing the cell),
which then calls the function, so `nbdev-test` fails on a figure that drifts): Table 1 as rendered (and as the main line's prose writes it), the ratio and the
path lengths the text quotes, and each statement about the timings, against the stored run (the saved output of the
timing cell) and, for what holds on any CPU, against this run's `recs`. Everything runs inside one function, so no
name of the notebook is rebound."""

def _check_prose_07():
    from transformer_nb.lib.machine import NotebookFile
    from transformer_nb.complexity import layer_flops, max_path_length
    from transformer_nb.lib.speed import module_flops, timing_table
    table1_markdown = globals()['table1_markdown']                        # Going deeper's cell, not the package's
    nb = NotebookFile('07_why_self_attention.ipynb')

    md = table1_markdown().splitlines()                                    # Table 1, as the paper prints it
    assert len(md) == 2 + 4 and md[2] == '| Self-Attention | O(n²·d) | O(1) | O(1) |'
    assert '| Recurrent | O(n·d²) | O(n) | O(n) |' in md and '| Convolutional | O(k·n·d²) | O(1) | O(log_k(n)) |' in md
    assert '| Self-Attention (restricted) | O(r·n·d) | O(1) | O(n/r) |' in md
    nb.quoted('fe980fc1', *md)                                             # the main line's table is the data's

    f = layer_flops(30, 512)
    nb.quoted('7351b3e1', f"${512}/{30} \\approx {f['recurrent'] / f['self-attention']:.0f}$")
    same = [layer_flops(n, 512, r=16)['restricted'] == layer_flops(n, 512)['self-attention'] for n in [2**i for i in range(2, 13)]]
    assert same == [n <= 16 for n in [2**i for i in range(2, 13)]], "the figure's restricted line (r = 16) leaves full attention's at n = r"
    nb.quoted('7351b3e1', 'restricted attention equals full attention up to $n = r$'); assert 'r=16' in nb.text['b07f0001']
    lengths = [max_path_length(kind, 1024, 3, 8) for kind in ('conv', 'dilated-conv', 'restricted', 'self-attention')]
    nb.quoted('eef36e85', 'kernel-3 convolutions needs {} layers, dilated ones {}, restricted self-attention with\n$r = 8$ needs {}'.format(*lengths[:3]))
    assert lengths[3] == 1

    kinds = ('self-attention', 'lstm', 'gru', 'conv')                      # the timings
    head, *rows = nb.stored('2aae43fa').strip().splitlines()               # the stored run's table, in ms
    assert head.split()[2:] == list(kinds), "the stored timing table has other columns than the text discusses"
    stored = {(k, int(r[0]), int(r[1])): float(v) / 1e3 for r in map(str.split, rows) for k, v in zip(kinds, r[2:])}
    ns, dims = sorted({n for _, _, n in stored}), sorted({d for _, d, _ in stored})
    live = {(r['layer'], r['d_model'], r['n']): r[KEY] for r in recs}      # this run's, as the notebook measured it
    assert len(live) == len(stored) and len(timing_table(recs).splitlines()) == 1 + len(dims) * len(ns)
    for T in (lambda k, d, n: stored[k, d, n], lambda k, d, n: live[k, d, n]):   # both runs: what holds on any CPU
        assert all(T('self-attention', d, 512) > 4 * T('self-attention', d, 128) for d in dims), "more than linear"
        assert all(min(kinds, key=lambda k: T(k, d, n)) == 'conv' for d in dims for n in ns if n >= 128), "conv fastest from n = 128"
        faster = [T('self-attention', d, n) < T('lstm', d, n) for d in dims for n in ns if n < d]
        assert sum(faster) >= 0.75 * len(faster), "self-attention faster than the LSTM below n = d"
    T = lambda k, d, n: stored[k, d, n]                                    # the stored run: what the text says of it
    gf = lambda k, d: module_flops(k, ns[-1], d) * 2 / T(k, d, ns[-1]) / 1e9     # GFLOP/s, batch 2
    assert all(T('self-attention', d, 512) > 6 * T('self-attention', d, 128) for d in dims), "more than six times"
    assert all(T('self-attention', d, n) < T('lstm', d, n) for d in dims for n in ns if n < d), "every n < d"
    slowest = [max(kinds, key=lambda k: T(k, d, n)) for d in dims for n in ns]
    assert slowest.count('gru') >= 0.75 * len(slowest), "the GRU slowest at almost every length"
    gru_growth = sorted(T('gru', dims[1], n) / T('gru', dims[0], n) for n in ns if n >= 128)[1]   # the median of three
    assert gru_growth < 0.5 * module_flops('gru', 1, dims[1]) / module_flops('gru', 1, dims[0]), "GRU time grows far less"
    assert all(gf('gru', d) < 0.5 * min(gf('self-attention', d), gf('conv', d)) for d in dims), "a small fraction"
    assert all(gf('lstm', d) > 0.25 * gf('self-attention', d) for d in dims), "LSTM rates of the same order"
    nb.quoted('db232ca7', f"lengths {ns[0]} to {ns[-1]} at $d_{{\\text{{model}}}} = {dims[0]}$ and ${dims[1]}$")
