"""The figures that 11_results's text quotes, checked against where they come from: the paper's constants
(`PAPER_TABLE2`, `PAPER_TFLOPS`), the results files (`results/results.json`, `table3.json`, `cpu_runs.json`,
`gpu/gpu_runs.json`, `numbers_recipe.json`, `multi30k_stats.json`) and Multi30k where it is present. Run at the end of the notebook by one hidden cell,
which `exec`s this file (not `%run`, whose errors would not fail the cell), so that a figure that drifts fails `nbdev-test`; everything is recomputed
here, in a function of its own, and none of the learner's names is read or rebound."""

def _check_11_prose():
    import json, math, re
    from pathlib import Path
    from fastcore.test import test_eq, test_fail
    from transformer_nb.lib.machine import NotebookFile
    from transformer_nb.lib.options import PRESETS
    from transformer_nb.lib.transformer import count_config_params
    from transformer_nb.lib.options import ModelConfig
    from transformer_nb.lib.records import load_results, headline_table, _fmt_minutes
    from transformer_nb.lib.datasets import load_dataset, find_multi30k
    from transformer_nb.evaluation import PAPER_TABLE2, PAPER_TFLOPS, training_flops
    from transformer_nb.lib.scoring import TABLE3_KEYS
    nbf = NotebookFile('11_results.ipynb')
    quoted = nbf.quoted
    quoted('a1b2c350', '§6.3'); test_fail(lambda: quoted('a1b2c350', 'no such text'), contains='should say')   # the check can fail

    # BLEU's versions: the three captions of the figure, scored four ways
    from sacrebleu.metrics import BLEU, CHRF
    h3 = ['a man is riding a bike.', 'two dogs play in the snow.', 'a girl reads a book in the park.']
    r3 = ['A man is riding a bike .', 'Two dogs play in the snow .', 'A girl is reading a book in the park .']
    v = {k: m.corpus_score(h3, [r3]).score for k, m in (('cased', BLEU()), ('lc', BLEU(lowercase=True)), ('none', BLEU(tokenize='none')), ('chrf', CHRF()))}
    quoted('11f00007', f"lifts BLEU from {v['cased']:.1f} to {v['lc']:.1f}", f"drops it to\n{v['none']:.1f}")
    assert abs(v['chrf'] - v['cased']) < min(abs(v['lc'] - v['cased']), abs(v['none'] - v['cased']))   # "chrF moves least"
    test_eq(nbf.text['11f00002'].count(repr(h3)), 1)                                                     # the figure's captions
    test_eq([n for n, r in PAPER_TABLE2.items() if any(r[c] and not r[2 + c] for c in (0, 1))], ['ByteNet'])   # the figure leaves out a BLEU without a cost
    quoted('11f00003', "ByteNet, with no reported cost, is left out")
    # Table 2: the paper's figures, from the constants that hold its tables
    sup = str.maketrans('0123456789', '⁰¹²³⁴⁵⁶⁷⁸⁹')
    sci = lambda x: f"{x / 10 ** math.floor(math.log10(x)):.1f}·10{str(math.floor(math.log10(x))).translate(sup)}"   # 2.3e19 -> 2.3·10¹⁹
    P2 = PAPER_TABLE2; base2, big2 = P2['Transformer (base model)'], P2['Transformer (big)']
    earlier = {k: v for k, v in P2.items() if 'Transformer' not in k}
    single = {k: v for k, v in earlier.items() if 'Ensemble' not in k}
    ens_fr = [v[1] for k, v in earlier.items() if 'Ensemble' in k and v[1]]
    best_de = max(v[0] for v in earlier.values() if v[0])
    costs = [x[2] / base2[2] for x in earlier.values() if x[2]]
    quoted('a1b2c318', f"{min(costs):.0f} to {max(costs):.0f}\ntimes less")
    quoted('6a981ea1', f"{base2[0]} (base) and {big2[0]} (big) for English→German, {base2[1]} and {big2[1]} for English→French")
    quoted('a1b2c313', f"by more than 2 BLEU, reaching {big2[0]}",
           ', '.join(map(str, list(PAPER_TFLOPS.values())[:-1])) + f" and {PAPER_TFLOPS['P100']} TFLOPS\n($10^{{12}}$ FLOP/s) for the K80, K40, M40 and P100")
    assert abs(training_flops(1, 1, 1) - 3600e12) < 1, "the text says a TFLOPS is $10^{12}$ FLOP/s: training_flops should agree"
    test_eq(PRESETS['big']['p_drop'], 0.3)                                             # Table 3's big row; EN-FR used 0.1
    quoted('a1b2c313', "$P_{drop} = 0.1$ instead of 0.3 (§6.1): `TransformerConfig(**BIG | dict(p_drop=0.1))`")
    assert big2[0] - best_de > 2 and base2[0] > best_de                                  # "by more than 2 BLEU"; "even the base model"
    quoted('a1b2c318', f"for {sci(base2[2])} FLOPs", f"the base model ({base2[1]}) is below all of",
           f"for {sci(big2[3])} FLOPs, less than a fifth of the {sci(single['MoE'][3])} of MoE", f"ensembles ({min(ens_fr)} to {max(ens_fr)})")
    assert base2[1] < min(v[1] for v in earlier.values() if v[1]) and max(single, key=lambda k: single[k][1] or 0) == 'MoE'
    assert big2[3] < single['MoE'][3] / 5 and big2[1] > max(ens_fr)
    test_eq(sorted(k for k, v in earlier.items() if (v[1] or 0) > 41.0), ['ConvS2S Ensemble', 'GNMT + RL Ensemble'])   # "not those of ..." at 41.0
    quoted('a1b2c343', f"the paper's {sci(base2[2])} and {sci(big2[2])} FLOPs")

    # our results: the records of results/results.json and the runs behind them
    recs = load_results(Path('../results/results.json'))
    by = {r['id']: r for r in recs}
    B = lambda k, key='bleu': by[k][key]
    de, gpu = 'm30k-de-en-small', 'm30k-{}-gpu-w512n3-avg5-beam4'
    GPU_RUNS = json.loads(Path('../results/gpu/gpu_runs.json').read_text())
    flag = lambda k, name: int(re.search(rf'--{name} (\d+)', by[k]['command']).group(1))      # an option of a record's command
    cfg = GPU_RUNS['m30k-de-en-gpu-w512n3']['config']
    quoted('da8dc3f4', f"{by[de + '-beam4']['params'] / 1e6:.1f}M parameters with a shared {flag(de + '-beam4', 'vocab-size') // 1000}k BPE",
           f"reaches {B(de + '-beam4'):.1f} cased BLEU de→en with beam 4 after {flag(de + '-beam4', 'epochs')} epochs, "
           f"{_fmt_minutes(B(de + '-beam4', 'train_time_s')).removesuffix(' min')} minutes of updates",
           f"($d_{{model}} = {cfg['d_model']}$, $N = {cfg['N']}$, {count_config_params(ModelConfig(**cfg)) / 1e6:.1f}M parameters, dropout {cfg['p_drop']})",
           f"trained for {GPU_RUNS['m30k-de-en-gpu-w512n3']['train_config']['max_time']}\n  minutes",
           f"reaches {B(gpu.format('de-en')):.1f} cased BLEU de→en and {B(gpu.format('en-de')):.1f} en→de",
           f"scores {B('numbers-en-de-default-avg5-beam4', 'exact_match'):.1f}% exact match with beam 4")
    assert 'bleu_char' in by['numbers-en-de-default-avg5-beam4'] and '| — |' in headline_table(recs)
    cpu_de = [r for r in recs if r['dataset'] == 'multi30k' and r['direction'] == 'de-en' and r['hardware'].startswith('AMD EPYC, 2 cores')]
    assert all(r['id'].startswith(de) for r in cpu_de) and max(cpu_de, key=lambda r: r['bleu_lc'])['id'] == de + '-e14-avg5-beam4'   # "the best of this preset's runs, trained longer and averaged"
    assert by['m30k-de-en-gpu-w512n3-beam4']['command'].split('; ')[0] == by[gpu.format('de-en')]['command'].split('; ')[0]   # "the same run, decoded without averaging"
    assert f"| {B('m30k-de-en-gpu-w512n3-beam4'):.1f} |" in headline_table(recs)
    recipe = json.loads(Path('../results/numbers_recipe.json').read_text(encoding='utf-8'))
    main = [r['results']['tnb-train (avg:4)']['exact_match'] for r in recipe if r['id'].startswith('tnb-train-s')]
    t3 = {r['id']: r for r in load_results(Path('../results/table3_fp32.json'), TABLE3_KEYS)}
    quoted('da8dc3f4', f"{min(main):.1f} to {max(main):.1f}% exact match over {len(main)} seeds",
           f"{t3['base']['bleu']:.2f}\n  and {t3['base-seed1']['bleu']:.2f} BLEU")
    def hardware_of(x):                                              # every 'hardware' string in a results file
        if isinstance(x, dict): return {x['hardware']} if 'hardware' in x else set().union(set(), *map(hardware_of, x.values()))
        return set().union(set(), *map(hardware_of, x)) if isinstance(x, list) else set()
    hw = set().union(*(hardware_of(json.loads(p.read_text(encoding='utf-8'))) for p in Path('../results').rglob('*.json')
                       if p.name not in ('bf16_cpu.json', 'onnx.json', 'live_bench.json', 'bench_paper_gpu.json', 'data_scale.json', 'site_build.json', 'ci_times.json', 'ct2_parity.json', 'int8_agreement.json', 'int8.json',
                                     'notebook_times_busy.json', 'trainer_vs_step.json', 'wmt14_stream.json', 'table3_gpu.json', 'since2017_gpu.json')))   # Table 3's and 14's GPU sweep (12, 14), bf16's CPU speed (lib_speed), the ONNX and CTranslate2 exports (apps_export), the page's translator (apps_attention_explorer), the paper's scale and the trainer's speed (lib_trainer, apps_wmt14, apps_cluster), the notebooks' times under load and the site's build: not quoted here
    assert hw == {'AMD EPYC, 2 cores (CPU), torch 2.13.0+cpu', 'AMD EPYC (AVX2), 2 cores (CPU), torch 2.13.0+cpu',
                  'AMD EPYC (AVX512), 2 cores (CPU), torch 2.13.0+cpu',
                  'NVIDIA H100 80GB HBM3 (CUDA), torch 2.11.0+cu130'}, hw            # "AVX2", "AVX-512", "an H100", and no other
    pre = {r['id']: r for r in json.loads(Path('../results/results.json').read_text(encoding='utf-8')) if r['id'].startswith('pretrained-')}
    assert all(r['hardware'].startswith('AMD EPYC (AVX512)') for r in pre.values())              # "a second run ... an AMD EPYC with AVX-512"
    hour = json.loads(Path('../results/cpu_hour.json').read_text(encoding='utf-8'))
    assert all(r['recipe'] == 'cpu-hour' and r['hardware'].startswith('AMD EPYC (AVX2)') for r in hour)   # "the run above, on an AMD EPYC with AVX2"
    nbf.quoted('da8dc3f4', "a second run of the `cpu-hour` recipe", "an AMD EPYC with AVX2")
    assert not re.search(r'\b40\.6\b|\b40\.0\b', nbf.text['da8dc3f4'])                        # one headline figure per recipe
    nbf.quoted('e20d7b10', "one row per direction, each from one run on a 2-core AMD EPYC with AVX2")   # the headline's hardware (cpu_hour.json)
    test_eq({r['direction']: r['chosen_on_valid'] for r in hour}, {'de-en': 'last', 'en-de': 'average'})        # "Validation picked ..."
    nbf.quoted('11f00005', "Validation picked de→en's last checkpoint and en→de's average")
    nbf.quoted('e20d7b10', f"beside the paper's {base2[0]}:")                                        # Table 2's base model, English→German
    assert all(', 2 cores (CPU)' in r['hardware'] for r in hour) and len(hour) == len({r['direction'] for r in hour})

    # English→French beside the paper's
    fr = {k: r for k, r in by.items() if r['direction'] == 'en-fr'}
    best = max(fr.values(), key=lambda r: r['bleu'])
    test_eq(best['id'], 'm30k-en-fr-gpu-w512n3-avg5-beam4')
    M30K = json.loads(Path('../results/multi30k_stats.json').read_text())
    w = M30K['test2016_words_per_sentence']
    quoted('a1b2c332', f"test2016's\n{M30K['test2016_sentences']:,} sentences of {w['de']:.1f} (German) to {w['fr']:.1f} (French) words",
           f"It scores {best['bleu']:.1f} cased BLEU on test2016 ({best['bleu_lc']:.1f} lowercased)",
           f"{P2['Transformer (big)'][1]} BLEU for the big model")
    # the 13.8 row: the same recipe six post-LN layers deep, whose training stalls in the same time
    n6r, gpu = by['m30k-en-fr-gpu-w512n6-avg5-beam4'], json.loads(Path('../results/gpu/gpu_runs.json').read_text())
    n6, n3 = gpu['m30k-en-fr-gpu-w512n6'], gpu['m30k-en-fr-gpu-w512n3']
    assert f"{n6r['bleu']:.1f}" == '13.8' and n6['config']['N'] == 6 and n3['config']['N'] == 3 and not n6['config'].get('norm_first')
    assert {k: v for k, v in n6['config'].items() if v != n3['config'][k]} == {'N': 6}
    quoted('a1b2c332', f"The table's {n6r['bleu']:.1f} row", f"in the same {n6['train_config']['max_time']} minutes",
           f"(validation perplexity {n6['valid'][-1]['ppl']:.1f} after {n6['steps']:,} updates, against {n3['valid'][-1]['ppl']:.1f} for N = 3)")
    m30k_dir = find_multi30k()
    if m30k_dir is not None:
        quoted('a1b2c332', f"{len(load_dataset('multi30k', 'en', 'fr', data_dir=m30k_dir, download=False).train) // 1000}k caption pairs")

    assert '/work/' not in ''.join(nbf.outputs.values()) and '/tmp/' not in ''.join(nbf.outputs.values())   # no machine's own paths

_check_11_prose()
del _check_11_prose
