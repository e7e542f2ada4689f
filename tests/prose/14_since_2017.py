"""The figures that 14_since_2017's text quotes, checked against where they come from: 06's base configuration, the
`mini` preset and the runner's budget (`experiments/table3.py`), the results files the page reads
(`results/since2017.json`, `table3.json`, `since2017_significance.json` with `seed_verdicts`' summaries, `since2017_gpu.json`,
`attention_speed.json`) and the stored
outputs drawn from them. Run at the end of the notebook by one hidden cell, which `exec`s this file (not `%run`, whose
errors would not fail the cell), so that a figure that drifts fails `nbdev-test`; everything is recomputed here, in a
function of its own, and none of the learner's names is read or rebound."""

def _check_14_prose():
    import importlib.util, json, re, statistics
    from pathlib import Path
    from fastcore.test import test_eq, test_fail
    from transformer_nb.lib.machine import NotebookFile
    from transformer_nb.lib.options import PRESETS
    from transformer_nb.lib.records import load_results
    from transformer_nb.lib.scoring import TABLE3_KEYS
    from transformer_nb.config import TransformerConfig
    from transformer_nb.since2017 import since2017_variants
    nbf = NotebookFile('14_since_2017.ipynb')
    quoted = nbf.quoted
    quoted('s14a0005', 'arXiv 1706.03762'); test_fail(lambda: quoted('s14a0005', 'no such text'), contains='should say')   # the check can fail

    # the sizes the text gives: 06's base, our mini, the runner's budget
    base = TransformerConfig()
    quoted('s14b0002', f"the base model of 06 ({base.N} layers, $d_{{model}} = {base.d_model}$)")
    mini = PRESETS['mini']
    quoted('s14g0000', f"($d_{{model}}$ {mini['d_model']},\n{mini['N']} + {mini['N']} layers, {mini['h']} heads)")
    spec = importlib.util.spec_from_file_location('table3_runner', Path('../experiments/table3.py'))
    runner = importlib.util.module_from_spec(spec); spec.loader.exec_module(runner)
    defaults = _defaults(runner)
    quoted('s14g0000', f"{defaults['steps']} updates, Multi30k's validation set, beam 4")
    quoted('s14g0007', f"over its {defaults['steps']} updates")
    assert f".axvline({defaults['warmup']}," in nbf.text['s14g0008'] and f"xlim=(0, {defaults['steps']})" in nbf.text['s14g0008']
    assert 's - 50 < t <= s' in nbf.text['s14g0008']; quoted('s14g0007', 'a mean over 50 updates')             # the curves' window
    quoted('s14g0009', f"with\n  {mini['N']} layers and §5.3's warm-up", f"a {_params(mini) / 1e6:.1f}M-parameter model trained for\n  {defaults['steps']} updates")
    v = since2017_variants(mini)
    test_eq((v['swiglu']['d_ff'], v['gqa']['kv_groups']), (round(2 * mini['d_ff'] / 3), mini['h'] // 4))   # "two thirds", "h/4 groups"
    quoted('s14g0000', "SwiGLU with two thirds of the base's $d_{ff}$", "$h/4$ groups")
    stored = sorted({r['seed'] for r in load_results(Path('../results/since2017.json'), TABLE3_KEYS)})   # the seeds the CPU's file holds
    quoted('s14i0003', f"python experiments/table3.py --only since2017 --seeds {','.join(map(str, stored))} --jobs 2")
    test_eq(stored, list(range(len(stored)))); quoted('s14i0003', f"with seeds 0 to {stored[-1]} on two CPU cores")
    assert 'since2017' in runner.__doc__ and "--only since2017 --seeds 0,1,2,3,4 --jobs 2" in runner.__doc__       # the runner's own example

    # what the files hold, as the stored outputs show it
    from transformer_nb.lib.significance import seed_verdicts, setup_of
    cpu = load_results(Path('../results/since2017.json'), TABLE3_KEYS)                     # the CPU's once every variant has two seeds
    sfx = '' if all(len({r['seed'] for r in cpu if r['variant'] == n}) >= 2 for n in ['paper', *v]) else '_gpu'
    S17 = load_results(Path(f'../results/since2017{sfx}.json'), TABLE3_KEYS)
    T3 = load_results(Path(f'../results/table3{sfx}.json'), TABLE3_KEYS)
    FILE = json.loads(Path(f'../results/since2017{sfx}_significance.json').read_text(encoding='utf-8'))
    SIG = FILE['bootstrap']                                                                # each run's bootstrap: a diagnostic
    refs = sorted([r for r in S17 if r['variant'] == 'paper'] or [r for r in T3 if r['variant'] == 'base'], key=lambda r: r['seed'])   # the sweep's own reference, else 12's base
    seeds = {r['seed']: r['bleu'] for r in refs}
    assert len(seeds) >= 2, seeds
    for r in S17:                                                                          # each run against the reference of its seed, made on its machine
        if r['id'] in SIG and r['variant'] != 'paper':
            ref = next(x for x in refs if x['seed'] == r['seed'])
            test_eq((SIG[r['id']]['vs'], SIG[r['id']]['system'], SIG[r['id']]['baseline']), (ref['id'], r['bleu'], ref['bleu']))
            test_eq(setup_of(ref), setup_of(r))
    shown = lambda cid: ''.join(''.join(o.get('data', {}).get('text/markdown', '')) for o in next(
        c for c in json.loads(Path('14_since_2017.ipynb').read_text(encoding='utf-8'))['cells'] if c['id'] == cid)['outputs'])
    table = shown('s14g0004')                                                              # Going deeper: BLEU by seed, with each run's bootstrap
    who = 'the sweep’s own `paper`' if refs[0]['variant'] == 'paper' else 'Table 3’s `base`'
    assert f"Reference, {who}, seeds {', '.join(map(str, seeds))}: BLEU {', '.join(f'{b:.1f}' for b in seeds.values())}." in table, "re-run 14_since_2017"
    for name in v:
        mine = [r for r in S17 if r['variant'] == name]
        assert (f"| `{name}` | not run yet |" in table) == (not mine), (name, "re-run 14_since_2017")
        for r in mine: assert f"{r['bleu']:.1f}" in table and (r['id'] not in SIG or f"{SIG[r['id']]['p_value']:.3f})" in table), r['id']
    assert all(re.fullmatch(r'[0-9a-f]{7,}(\+dirty)?', r['commit']) and r['command'].startswith('tnb-train ') for r in S17)
    assert all(r['overrides'] == {'paper': {}, **v}[r['variant']] for r in S17), "a record whose overrides are not its variant's"
    assert f"Run on {'; '.join(sorted({r['hardware'] for r in [*refs, *S17]}))}." in table, "re-run 14_since_2017"
    test_eq(sfx, ''); assert all(r['hardware'].startswith('AMD EPYC') for r in S17)        # the CPU's files, one set-up
    test_eq(len({setup_of(r) for r in S17}), 1)
    # the verdicts: the one rule, as the runner wrote it, as the main line's table (s14g0020) and s14g0010 show it
    V = seed_verdicts(S17, ('paper', 'base'))
    rows, fam = V['rows'], V['family']
    p_text = lambda p: '< 0.001' if p < 0.001 else f'{p:.3f}'                       # a p as 14 writes it
    test_eq((json.loads(json.dumps(rows)), json.loads(json.dumps(fam))), (FILE['rows'], FILE['family']))   # run experiments/table3.py --compare
    main = shown('s14g0020')
    for k, r in rows.items():
        assert f"| `{k}` | {', '.join(f'{d:+.1f}&nbsp;({s})' for s, d in r['deltas'].items())} | {r['mean']:+.1f} ± {r['sd']:.1f} |" in main and main.count(f"| {r['verdict']} |") >= 1, (k, "re-run 14_since_2017")
        assert f"| {p_text(r['holm_p'])} | {r['verdict']} |" in main, k
    assert f"{V['setup']}, against `paper` of the same seed." in main and ', '.join(f'{x:.1f} BLEU with {n} seeds' for n, x in fam['detectable'].items()) in main
    verdicts = nbf.stored('s14g0010').splitlines()
    test_eq([l.split(':')[0] for l in verdicts], list(v))
    for name, line in zip(v, verdicts):
        r = rows[name]
        assert line == f"{name}: {r['n_seeds']} seeds, Holm p {p_text(r['holm_p'])}: {r['verdict']}", (line, "re-run 14_since_2017")
    assert min(r['n_seeds'] for r in rows.values()) >= 2, rows                            # every change: two seeds at least
    names = {'rope': 'rotary positions', 'preln': 'pre-LN', 'all5': 'all five together', 'swiglu': 'SwiGLU', 'rmsnorm': 'RMSNorm', 'gqa': 'grouped-query attention'}
    m = lambda x: f"{x:+.1f}".replace('-', '−')
    order = sorted(rows, key=lambda k: -rows[k]['mean'])
    sep = [k for k in order if rows[k]['verdict'] == 'separates']
    seeds = [int(x) for x in rows[order[0]]['deltas']]; test_eq(seeds, list(range(len(seeds))))     # "(seeds 0 to 4, in order)": every row the same seeds
    assert all([int(x) for x in rows[k]['deltas']] == seeds for k in order)
    quoted('s14g0011', f'Δ BLEU by seed (seeds 0 to {seeds[-1]}, in order): ' + '; '.join(f"{names[k]} {', '.join(m(d) for d in rows[k]['deltas'].values())}" for k in order) + '.')
    detect = ', '.join(f"{x:.1f}{' BLEU' if i == 0 else ''} with {n}" for i, (n, x) in enumerate(fam['detectable'].items()))   # "59.3 BLEU with 2, 6.9 with 3, ..."
    quoted('s14g0011', f"sd of Δ, {fam['sd']:.2f} BLEU, a change needs a mean Δ of {detect} seeds to separate")
    quoted('s14h0000', f"the smallest mean Δ its seeds could detect is {detect} seeds")
    if sep:
        both = lambda xs: xs[0] if len(xs) == 1 else ', '.join(xs[:-1]) + ' and ' + xs[-1]
        said, ps = both([names[k] for k in sep]), both([p_text(rows[k]['holm_p']) for k in sep])
        quoted('s14g0011', f"The rule separates {said} (Holm-adjusted $p$ {ps}); the other changes are not separated at this budget")
        quoted('s14h0000', f"the rule separates {said} (Holm $p$ < 0.05) and no other change")
        rest = [k for k in order if k not in sep]                                           # the main line's reading of the table (s14g0021)
        assert all(rows[k]['interval'][0] > 0 for k in sep)                                 # "each with its whole interval above 0"
        assert all(min(rows[k]['deltas'].values()) < 0 < max(rows[k]['deltas'].values()) for k in rest)   # "fall on both sides of 0"
        test_eq(rest, ['rmsnorm', 'gqa'])                                                   # "Neither aims at BLEU: RMSNorm ..., grouped-query attention ..."
        quoted('s14g0021', f"{['No', 'One', 'Two', 'Three', 'Four', 'Five', 'Six'][len(sep)]} changes separate", f"for the better: {said}.",
               f"{both([names[k] for k in rest])} do not")
        d5 = {int(n): x for n, x in fam['detectable'].items()}[len(rows['rmsnorm']['deltas'])]           # the seeds every change has
        assert all(abs(rows[k]['mean']) < d5 / 3 for k in rest)                               # "far below"
        quoted('s14g0021', f"their means, {m(rows['rmsnorm']['mean'])} and {m(rows['gqa']['mean'])}, are far below {d5:.1f} BLEU, the smallest mean Δ\n{['no', 'one', 'two', 'three', 'four', 'five', 'six'][len(rows['rmsnorm']['deltas'])]} seeds can detect")
        assert all(rows[k]['holm_p'] < 0.05 for k in sep) and all(rows[k]['holm_p'] >= 0.05 for k in rows if k not in sep)
    else:
        low = min(rows, key=lambda k: rows[k]['holm_p'])
        quoted('s14g0011', f"By the rule none separates yet: the smallest Holm-adjusted $p$ is {rows[low]['holm_p']:.2f} ({names[low]})")
        quoted('s14h0000', "no change separates yet")
    quoted('s14g0011', f"grouped-query attention's seed-0 run worse than its reference ($p$ = {SIG['gqa']['p_value']:.3f})",
           f"seed-1 run not ($p$ = {SIG['gqa-seed1']['p_value']:.3f})", "a guess, untested")   # as the table above writes a p
    assert SIG['gqa']['delta'] < 0 and SIG['gqa']['p_value'] < 0.05 <= SIG['gqa-seed1']['p_value']
    warm = lambda r: statistics.mean(l for s, l in r['curve'] if s <= defaults['warmup'])     # the training loss over warm-up
    after = lambda r: statistics.mean(l for s, l in r['curve'] if s > defaults['warmup'])
    by = {n: sorted([r for r in S17 if r['variant'] == n], key=lambda r: r['seed']) for n in v}
    ref = {r['seed']: r for r in refs}
    quoted('s14g0011', f"over the {defaults['warmup']} updates of warm-up its training\nloss averages {warm(by['preln'][0]):.2f} and {warm(by['preln'][1]):.2f} against the reference's {warm(ref[0]):.2f} and {warm(ref[1]):.2f} (seeds 0 and 1)",
           f"it keeps the lead to update {defaults['steps']}")
    for seed in (0, 1):                                                                    # "the lowest of the five single changes at both seeds", "keeps the lead"
        single = {n: next(r for r in by[n] if r['seed'] == seed) for n in v if n != 'all5'}
        test_eq(min(single, key=lambda n: warm(single[n])), 'preln')
        assert after(single['preln']) < after(ref[seed]), seed
    test_eq(max((n for n in v if n != 'all5'), key=lambda n: rows[n]['mean']), 'rope')        # "rotary positions gain the most of the five"
    quoted('s14g0011', f"part of its {mini['d_model']} dimensions")
    # the scope, the citations, the framing
    quoted('s14g0000', "The scope: one task (Multi30k English→German), one implementation", f"the {_params(mini) / 1e6:.1f}M-parameter `mini` base", "on one CPU set-up")
    quoted('s14a0005', "Narang et al. ([2021](https://arxiv.org/abs/2102.11972))"); quoted('s14g0009', "Nguyen and Salazar ([2019](https://arxiv.org/abs/1910.05895))")
    assert 'none measures' not in nbf.text['s14a0005'] and 'more than their papers promise' not in nbf.text['s14g0011']
    quoted('s14g0009', "RoFormer reports them on WMT 2014 English→German translation too", "extrapolate poorly")
    G = load_results(Path('../results/since2017_gpu.json'), TABLE3_KEYS)                  # the GPU's runs: one seed each
    test_eq({r['seed'] for r in G}, {0}); test_eq({r['variant'] for r in G if r.get('hyps')}, {'all5'})
    quoted('s14g0011', "are one\nseed each, seed 0"); quoted('s14i0003', "The stored GPU file holds one seed of each change,\nseed 0, and only `all5` kept its translations")
    GV = seed_verdicts(G + [r for r in load_results(Path('../results/table3_gpu.json'), TABLE3_KEYS) if r['variant'] == 'base'], ('paper', 'base'))
    assert all(r['p'] is None for r in GV['rows'].values()) and GV['rows'].keys() == set(v), GV['rows'].keys()   # "one seed gives no $p$"
    test_eq(json.loads(json.dumps(GV['rows'])), json.loads(Path('../results/since2017_gpu_significance.json').read_text(encoding='utf-8'))['rows'])
    assert f"since2017_gpu.json: {len(G)} runs, seeds [0], 1 with translations" in nbf.stored('s14i0004')

    # fused attention's speed note: the file the cell prints
    sp = json.loads(Path('../results/attention_speed.json').read_text(encoding='utf-8'))
    assert sp['max_loss_diff'] < 1e-3 * abs(sp['loss_first']) and sp['preset'] == 'mini'        # "agree to float rounding"
    assert f"time per update on {sp['machine']}" in nbf.stored('s14i0006') and sp['machine'].startswith('AMD EPYC')
    assert '/work/' not in ''.join(nbf.outputs.values()) and '/tmp/' not in ''.join(nbf.outputs.values())   # no machine's own paths

def _defaults(runner) -> dict:
    "The runner's option defaults, as its parser declares them."
    import argparse
    seen = {}
    real = argparse.ArgumentParser.parse_args
    def capture(self, args=None, namespace=None):
        seen.update(vars(real(self, [], namespace))); raise SystemExit(0)
    argparse.ArgumentParser.parse_args = capture
    try: runner.main([])
    except SystemExit: pass
    finally: argparse.ArgumentParser.parse_args = real
    return seen

def _params(preset:dict) -> int:
    "The parameters of `preset` with the sweep's 8,000-piece vocabulary, as the records count them."
    from transformer_nb.lib.transformer import count_config_params
    from transformer_nb.lib.options import ModelConfig
    return count_config_params(ModelConfig(**preset, src_vocab=8000, tgt_vocab=8000))

_check_14_prose()
del _check_14_prose, _defaults, _params
