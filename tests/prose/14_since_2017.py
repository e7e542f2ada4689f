"""The figures that 14_since_2017's text quotes, checked against where they come from: 06's base configuration, the
`mini` preset and the runner's budget (`experiments/table3.py`), the results files the page reads
(`results/since2017.json`, `table3.json`, `since2017_significance.json`, `attention_speed.json`) and the stored
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
    for cell in ('s14g0000', 's14h0000'): quoted(cell, 'python experiments/table3.py --only since2017 --seeds 0,1 --jobs 2')
    assert 'since2017' in runner.__doc__ and "--only since2017 --seeds 0,1 --jobs 2" in runner.__doc__       # the runner's own example

    # what the files hold, as the stored outputs show it
    cpu = load_results(Path('../results/since2017.json'), TABLE3_KEYS)                     # the CPU's once every variant has two seeds
    sfx = '' if all(len({r['seed'] for r in cpu if r['variant'] == n}) >= 2 for n in ['paper', *v]) else '_gpu'
    S17 = load_results(Path(f'../results/since2017{sfx}.json'), TABLE3_KEYS)
    T3 = load_results(Path(f'../results/table3{sfx}.json'), TABLE3_KEYS)
    SIG = json.loads(Path(f'../results/since2017{sfx}_significance.json').read_text(encoding='utf-8'))
    refs = sorted([r for r in S17 if r['variant'] == 'paper'] or [r for r in T3 if r['variant'] == 'base'], key=lambda r: r['seed'])   # the sweep's own reference, else 12's base
    seeds = {r['seed']: r['bleu'] for r in refs}
    assert len(seeds) >= 2, seeds                                                          # a band: two seeds at least
    for r in S17:                                                                          # each run against the reference of its seed, made on its machine
        if r['id'] in SIG and r['variant'] != 'paper':
            ref = next(x for x in refs if x['seed'] == r['seed'])
            test_eq((SIG[r['id']]['vs'], SIG[r['id']]['system'], SIG[r['id']]['baseline']), (ref['id'], r['bleu'], ref['bleu']))
            test_eq((ref['hardware'], ref.get('precision')), (r['hardware'], r.get('precision')))
    cell = next(c for c in json.loads(Path('14_since_2017.ipynb').read_text(encoding='utf-8'))['cells'] if c['id'] == 's14g0004')
    table = ''.join(''.join(o.get('data', {}).get('text/markdown', '')) for o in cell['outputs'])   # the table as the page shows it
    who = 'the sweep’s own `paper`' if refs[0]['variant'] == 'paper' else 'Table 3’s `base`'
    assert f"Reference, {who}, seeds {', '.join(map(str, seeds))}: BLEU {', '.join(f'{b:.1f}' for b in seeds.values())}." in table, "re-run 14_since_2017"
    for name in v:
        mine = [r for r in S17 if r['variant'] == name]
        assert (f"| {name} | not run yet |" in table) == (not mine), (name, "re-run 14_since_2017")
        for r in mine: assert f"{r['bleu']:.1f}" in table and (r['id'] not in SIG or str(SIG[r['id']]['p_value']) in table), r['id']
    verdicts = nbf.stored('s14g0010').splitlines()
    test_eq([l.split(':')[0] for l in verdicts], list(v))
    for name, line in zip(v, verdicts): assert line.endswith('not run yet') == (not any(r['variant'] == name for r in S17)), line
    assert all(re.fullmatch(r'[0-9a-f]{7,}(\+dirty)?', r['commit']) and r['command'].startswith('tnb-train ') for r in S17)
    assert all(r['overrides'] == {'paper': {}, **v}[r['variant']] for r in S17), "a record whose overrides are not its variant's"
    assert f"Run on {'; '.join(sorted({r['hardware'] for r in [*refs, *S17]}))}." in table, "re-run 14_since_2017"
    assert (f"The CPU's sweep, shown once every variant has two seeds: {len(cpu)} of {2 * (len(v) + 1)} runs so far." in table) == bool(sfx), "re-run 14_since_2017"
    # the reading of the stored runs (s14g0011): which changes lie beyond the band with p < 0.05, at how many seeds
    band = max(seeds.values()) - min(seeds.values())
    beyond = lambda r: abs(r['bleu'] - seeds[r['seed']]) > band and SIG[r['id']]['p_value'] < 0.05
    test_eq(sfx, ''); test_eq({r['seed'] for r in S17}, {0, 1}); assert all(r['hardware'].startswith('AMD EPYC') for r in S17)   # "On the CPU, two seeds each"
    by = {n: [r for r in S17 if r['variant'] == n] for n in v}
    test_eq({n for n, rs in by.items() if all(map(beyond, rs))}, {'rope', 'preln'})                 # "the only two changes that separate"
    quoted('s14h0000', "with two seeds, only rotary positions and pre-LN gain beyond\n  another seed and by the paired bootstrap")   # the summary says the same
    test_eq({n for n, rs in by.items() if sum(map(beyond, rs)) == 1}, {'all5', 'swiglu'})          # "pass at one seed of two"
    test_eq({n for n, rs in by.items() if not any(map(beyond, rs))}, {'rmsnorm', 'gqa'})           # "stay inside the band"
    d = lambda n, seed: f"{next(r['bleu'] for r in by[n] if r['seed'] == seed) - seeds[seed]:+.1f}".replace('-', '−')
    quoted('s14g0011', f"rotary positions ({d('rope', 0)} and {d('rope', 1)} BLEU) and pre-LN ({d('preln', 0)} and {d('preln', 1)})",
           f"All five\ntogether ({d('all5', 0)}, then {d('all5', 1)}) and SwiGLU ({d('swiglu', 0)}, then {d('swiglu', 1)})",
           f"RMSNorm ({d('rmsnorm', 0)}, {d('rmsnorm', 1)}) and grouped-query attention\n({d('gqa', 0)}, {d('gqa', 1)})",
           f"reference, {seeds[0] - seeds[1]:.1f} BLEU under seed 0's")
    assert all(d(n, 1) > d(n, 0) for n in ('all5', 'swiglu')) and seeds[1] < seeds[0]            # "both gain most against seed 1's reference"
    for n in ('all5', 'swiglu'): assert [beyond(r) for r in sorted(by[n], key=lambda r: r['seed'])] == [False, True], n
    warm = lambda r: statistics.mean(l for s, l in r['curve'] if s <= defaults['warmup'])     # the training loss over warm-up
    after = lambda r: statistics.mean(l for s, l in r['curve'] if s > defaults['warmup'])
    ref = {r['seed']: r for r in refs}
    quoted('s14g0011', f"over the {defaults['warmup']} updates of warm-up its training loss averages {warm(by['preln'][0]):.2f} and {warm(by['preln'][1]):.2f}\n"
           f"against the reference's {warm(ref[0]):.2f} and {warm(ref[1]):.2f}", f"It keeps the lead to\nupdate {defaults['steps']}")
    for seed in (0, 1):                                                                    # "the lowest of the five single changes at both seeds", "keeps the lead"
        single = {n: next(r for r in by[n] if r['seed'] == seed) for n in v if n != 'all5'}
        test_eq(min(single, key=lambda n: warm(single[n])), 'preln')
        assert after(single['preln']) < after(ref[seed]), seed
    for seed in (0, 1): test_eq(max((n for n in v if n != 'all5'), key=lambda n: float(d(n, seed).replace('−', '-'))), 'rope')   # "gain the most of the five"
    quoted('s14g0011', f"part of its {mini['d_model']} dimensions")
    G = load_results(Path('../results/since2017_gpu.json'), TABLE3_KEYS)                  # "The GPU's runs, one seed each ... put rotary positions and pre-LN beyond its band too, with all five together"
    GSIG = json.loads(Path('../results/since2017_gpu_significance.json').read_text(encoding='utf-8'))
    gbase = {r['seed']: r['bleu'] for r in load_results(Path('../results/table3_gpu.json'), TABLE3_KEYS) if r['variant'] == 'base'}
    gband = max(gbase.values()) - min(gbase.values())
    test_eq({r['seed'] for r in G}, {0}); assert all(GSIG[r['id']]['vs'] == 'base' for r in G)
    test_eq({r['variant'] for r in G if abs(r['bleu'] - gbase[0]) > gband and GSIG[r['id']]['p_value'] < 0.05}, {'rope', 'preln', 'all5'})
    assert all(l.endswith('beyond the noise at every seed (2)') == (l.split(':')[0] in ('rope', 'preln')) for l in verdicts)

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
