"""The figures that 12_variations's text quotes, checked against where they come from: the paper's Table 3
(`PAPER_TABLE3`), the sweep's records (`results/table3.json`), the stored attention maps (`results/attention/`), the
results file they are scored in (`results/results.json`) and Multi30k where it is present. Run at the end of the
notebook by one hidden cell, which `exec`s this file (not `%run`, whose errors would not fail the cell), so that a
figure that drifts fails `nbdev-test`; everything is recomputed here, in a function of its own, and none of the
learner's names is read or rebound."""

def _check_12_prose():
    import json, re
    from pathlib import Path
    from fastcore.test import test_eq, test_fail
    from transformer_nb.lib.machine import NotebookFile
    from transformer_nb.lib.options import PAPER_TABLE3, PRESETS
    from transformer_nb.lib.records import load_results
    from transformer_nb.lib.datasets import load_dataset, find_multi30k
    from transformer_nb.lib.scoring import TABLE3_KEYS, load_attention
    nbf = NotebookFile('12_variations.ipynb')
    quoted = nbf.quoted
    quoted('12a00005', '§6.3'); test_fail(lambda: quoted('12a00005', 'no such text'), contains='should say')   # the check can fail
    by = {r['id']: r for r in load_results(Path('../results/results.json'))}
    t3 = {r['id']: r for r in load_results(Path('../results/table3.json'), TABLE3_KEYS)}
    M30K = json.loads(Path('../results/multi30k_stats.json').read_text())
    w = M30K['test2016_words_per_sentence']
    quoted('ba454799', f"short ({w['en']:.0f} English words on average)")
    m30k_dir = find_multi30k()

    # Table 3 at Multi30k scale: the sweep's records and the paper's rows
    t3_base = t3['base']
    opt = lambda name, r=t3_base: float(re.search(rf'--{name} ([\d.]+)', r['command']).group(1))
    steps, warm = int(opt('steps')), int(opt('warmup'))
    d3 = lambda k, key='bleu': t3[k][key] - t3_base[key]
    pd3 = lambda k: PAPER_TABLE3[k][1] - PAPER_TABLE3['base'][1]
    quoted('ba454799', f"moves BLEU by {abs(d3('base-seed1')):.1f} and perplexity by {abs(d3('base-seed1', 'valid_ppl')):.1f}",
           f"costs {-d3('B-dk4'):.1f} BLEU and {d3('B-dk4', 'valid_ppl'):.0f} points of perplexity",
           f"{t3['C-d64']['params'] / 1e6:.1f}M parameters) costs {-d3('C-d64'):.1f} BLEU and {d3('C-d64', 'valid_ppl'):.0f} points",
           f"{t3['C-d256']['params'] / 1e6:.1f}M parameters) gains {d3('C-d256'):.1f} BLEU and {-d3('C-d256', 'valid_ppl'):.1f}\n  points",
           f"costs {-d3('C-N1'):.1f} BLEU and no perplexity", f"(+{d3('A-h1'):.1f};", f"lose {-d3('A-h16'):.1f}, inside the noise",
           f"unchanged (−{-d3('D-drop0.0'):.1f})", f"({t3['D-ls0.0']['valid_ppl']:.1f} against\n  {t3_base['valid_ppl']:.2f})",
           f"BLEU does not (−{-d3('D-ls0.0'):.1f})", f"+{d3('E-learned'):.1f} BLEU, inside the noise")
    assert abs(d3('C-N1', 'valid_ppl')) < 0.2                                               # "no perplexity"
    quoted('ba454799', f"thirty-two of $d_k = {t3['A-h32']['overrides']['d_k']}$ lose {-d3('A-h32'):.1f}, beyond it (the paper: −{-pd3('A-h32'):.1f})",
           f"Twice the dropout ({t3['D-drop0.2']['overrides']['p_drop']}) costs {-d3('D-drop0.2'):.1f} BLEU and {d3('D-drop0.2', 'valid_ppl'):.1f}\n  points of perplexity (the paper: −{-pd3('D-drop0.2'):.1f})",
           f"Twice the smoothing ({t3['D-ls0.2']['overrides']['eps_ls']}) raises perplexity to {t3['D-ls0.2']['valid_ppl']:.1f} and leaves BLEU inside the noise (−{-d3('D-ls0.2'):.1f}; the paper: {PAPER_TABLE3['D-ls0.2'][0]}, −{-pd3('D-ls0.2'):.1f})")
    from transformer_nb.variations import table3_variants                               # the main line's table: every row, run or not
    variants = [k for k in table3_variants(PRESETS['mini']) if k != 'base']
    seeds = [k for k, r in t3.items() if r['variant'] == 'base' and k != 'base']
    band = max(abs(d3(k)) for k in seeds)
    cell = next(c for c in json.loads(Path('12_variations.ipynb').read_text(encoding='utf-8'))['cells'] if c['id'] == '12t00002')
    table = ''.join(''.join(o.get('data', {}).get('text/markdown', '')) for o in cell['outputs'])   # as the page shows it
    rows = {l.split(' | ')[0].lstrip('| '): l for l in table.splitlines() if l.startswith('| ') and not l.startswith('| Table 3 row')}
    paper = list(table3_variants(PRESETS['base']))[1:]
    test_eq([k for k in rows if not k.startswith('base')], paper)                                    # every row of Table 3, in order
    for k, o in zip(paper, variants):
        assert rows[k].endswith('not run yet |') == (o not in t3), (k, o, "re-run nbs/12_variations.ipynb")
        if o in t3: assert f"| {d3(o):+.1f} |" in rows[k], (k, "re-run nbs/12_variations.ipynb")
    assert f"the band: ±{band:.1f}." in table and len([k for k in rows if k.startswith('base')]) == len(seeds), "re-run nbs/12_variations.ipynb"
    SIG = json.loads(Path('../results/table3_significance.json').read_text(encoding='utf-8'))
    for k, t in SIG.items(): assert t['vs'] == 'base' and t['n_sentences'] == 1014 and t['system'] == t3[k]['bleu'], k   # "the 1,014 validation sentences"
    quoted('ba454798', "the luck of the 1,014 validation sentences")
    assert any(SIG[k]['p_value'] < 0.05 for k in seeds if k in SIG), "the bootstrap tells two seeds apart"   # "it tells two seeds ... apart"
    beyond = {k for k in t3 if t3[k]['variant'] != 'base' and abs(d3(k)) > band}
    test_eq(beyond, {'B-dk4', 'B-dk8', 'C-d64', 'C-d256', 'C-N4', 'A-h32', 'D-drop0.2'})      # "only width, key size, four layers, thirty-two heads and twice the dropout"
    quoted('a1b2c343', "only width, key size, four layers, thirty-two heads and twice the dropout move BLEU by more than another seed")
    test_eq({o for o in variants if o not in t3}, {'big'}); quoted('ba454798', "(on the CPU only `big`, in the GPU's table below)")
    quoted('ba454799', f"Two layers gain {d3('C-N2'):.1f}, inside the noise. Four lose {-d3('C-N4'):.1f} BLEU and {d3('C-N4', 'valid_ppl'):.1f} points of perplexity (the paper's\n  6 → 8: −{-pd3('C-N8'):.1f})",
           f"Half the FFN ($d_{{ff}} = {t3['C-dff256']['overrides']['d_ff']}$) costs {-d3('C-dff256'):.1f} BLEU and twice\n  ($d_{{ff}} = {t3['C-dff1024']['overrides']['d_ff']}$) gains {d3('C-dff1024'):.1f} (the paper: −{-pd3('C-dff1024'):.1f} and +{pd3('C-dff4096'):.1f})")
    assert abs(d3('C-N2')) <= band < -d3('C-N4') and max(abs(d3('C-dff256')), abs(d3('C-dff1024'))) <= band   # "inside the noise", "lose"
    assert all(abs(d3(k)) <= band for k in ('D-ls0.2', 'A-h16')) and abs(d3('A-h32')) > band   # "inside the noise", "beyond it"
    assert all(abs(d3(k)) < abs(d3('base-seed1')) for k in ('C-N1', 'A-h16', 'E-learned'))   # "inside the noise"
    # the whole table on a GPU (12t00003) and its reading (12t00004, 12t00005): every row run, sorted by the two tests
    g = {r['id']: r for r in load_results(Path('../results/table3_gpu.json'), TABLE3_KEYS)}
    gsig = json.loads(Path('../results/table3_gpu_significance.json').read_text(encoding='utf-8'))
    gd = lambda k: g[k]['bleu'] - g['base']['bleu']
    gseeds = [k for k, r in g.items() if r['variant'] == 'base' and k != 'base']
    gband = max(abs(gd(k)) for k in gseeds)
    assert -gd('C-N4') > gband and gsig['C-N4']['p_value'] < 0.05                            # 12's CPU reading: four layers lose "as on the GPU below"
    test_eq(len(gseeds) + 1, 3); assert all(o in g for o in variants), "every row has run on the GPU"     # "the base with three seeds"
    for f in ('steps', 'max-tokens', 'warmup', 'lr-scale', 'vocab-size'):                                   # "with the same budget"
        assert {opt(f, r) for r in g.values()} == {opt(f)}, f
    assert all(r['hardware'].startswith('NVIDIA') and 'bf16' in r['precision'] for r in g.values())       # "trains in bfloat16"
    for k, t in gsig.items(): assert t['system'] == g[k]['bleu'] and t['baseline'] == g[t['vs']]['bleu'] and t['vs'] == ('base' if g[k]['variant'] == 'base' else 'base' + k[len(g[k]['variant']):]), k
    sep = lambda o: abs(gd(o)) > gband and gsig[o]['p_value'] < 0.05
    test_eq({o for o in variants if sep(o) and gd(o) < 0}, {'B-dk4', 'B-dk8', 'A-h32', 'C-d64', 'D-drop0.2', 'D-ls0.2', 'C-N4', 'big'})
    test_eq({o for o in variants if sep(o) and gd(o) > 0}, {'A-h4', 'C-N2', 'C-d256', 'C-dff1024'})
    test_eq({o for o in variants if abs(gd(o)) <= gband}, {'A-h1', 'A-h16', 'C-N1', 'C-dff256', 'D-drop0.0', 'D-ls0.0', 'E-learned'})
    test_eq(sorted(variants, key=gd)[:2], ['big', 'C-N4'])                                                 # "lose by most"
    by_ours = dict(zip(variants, paper))
    assert all(pd3(by_ours[o]) < 0 for o in ('B-dk4', 'B-dk8', 'A-h32', 'C-d64', 'D-drop0.2', 'D-ls0.2'))   # "the same sign"
    assert all(abs(pd3(by_ours[o])) < 1 for o in ('A-h4', 'C-N2', 'C-d256', 'C-dff1024'))                  # "a few tenths of a point"
    inside = ('A-h1', 'A-h16', 'C-N1', 'C-dff256', 'D-drop0.0', 'D-ls0.0', 'E-learned')
    assert sum(abs(pd3(by_ours[o])) < 1 for o in inside) > len(inside) / 2                                  # "most ... under one point"
    test_eq((PRESETS['mini']['N'], PRESETS['mini']['h'] // 2, PRESETS['mini']['d_model'] // (4 * PRESETS['mini']['h'])), (3, 4, 4))   # three layers; 32 heads of 4
    gcell = next(c for c in json.loads(Path('12_variations.ipynb').read_text(encoding='utf-8'))['cells'] if c['id'] == '12t00003')
    gtable = ''.join(''.join(o.get('data', {}).get('text/markdown', '')) for o in gcell['outputs'])
    assert f"the band: ±{gband:.1f}." in gtable and 'not run yet' not in gtable, "re-run nbs/12_variations.ipynb"
    for k, o in zip(paper, variants): assert f"| {gd(o):+.1f} |" in next(l for l in gtable.splitlines() if l.startswith(f'| {k} |')), k
    quoted('12t00004', "(800\nupdates,", "the base with three seeds", "trains in bfloat16")
    quoted('12t00005', "(B, and\n  32 heads of 4)", "two layers in place of three", "800 it is still far from trained")
    for f in ('steps', 'max-tokens', 'warmup', 'lr-scale', 'seed', 'vocab-size'):               # one budget for every variant
        assert len({opt(f, r) for r in t3.values() if r['seed'] == 0}) == 1, f
    test_eq(opt('lr-scale'), 0.5)
    quoted('a74c6cb3', f"the same {steps} updates of at most {int(opt('max-tokens'))} tokens per side",
           f"(warm-up {warm}, half the paper's rate)", f"and {int(opt('vocab-size')) // 1000}k BPE vocabulary")
    mini = PRESETS['mini']
    quoted('b18df25a', f"$d_{{model}}$ {mini['d_model']}, {mini['N']}+{mini['N']} layers, {mini['h']} heads of $d_k={mini['d_model'] // mini['h']}$,\n"
           f"$d_{{ff}}={mini['d_ff']}$, {t3_base['params'] / 1e6:.1f}M parameters")
    quoted('b18df25a', f"a single head is {-pd3('A-h1'):.1f} BLEU worse than eight")
    quoted('ba454799', f"the paper's 6 → 2 layers: {-pd3('C-N2'):.1f} BLEU)", f"the paper's quarter,\n  $d_k = 16$, costs {-pd3('B-dk16'):.1f}",
           f"(the paper's halving: {-pd3('C-d256'):.1f})", f"(the paper's doubling: {pd3('C-d1024'):.1f})",
           f"(+{d3('A-h1'):.1f}; the paper: −{-pd3('A-h1'):.1f})", f"the paper's −{-pd3('D-drop0.0'):.1f}",
           f"({PAPER_TABLE3['D-ls0.0'][0]} against {PAPER_TABLE3['base'][0]}, −{-pd3('D-ls0.0'):.1f} BLEU)", f"(the paper: −{-pd3('E-learned'):.1f})")
    if m30k_dir is not None:     # "a little over six epochs": the sweep's 800 updates, counted in batches of the same data
        from transformer_nb.data import TokenBatchSampler
        from transformer_nb.lib.tokens import StoredTokenizer, encode_corpus
        m30k = load_dataset('multi30k', 'en', 'de', data_dir=m30k_dir, download=False)
        ex = encode_corpus(StoredTokenizer.train(m30k, vocab_size=int(opt('vocab-size'))), m30k.train, max_len=256)
        epochs = steps / len(TokenBatchSampler([len(s) for s, _ in ex], [len(t) for _, t in ex], int(opt('max-tokens'))))
        assert 6 < epochs < 6.5, epochs                   # also the "six epochs" of the summary

    # the attention maps: what the text reads in the stored maps
    argmax_heads = lambda w, rows, col, keys: [h + 1 for h in range(w.shape[0]) if all(w[h, r].argmax() == keys.index(col) for r in rows)]
    NUM = load_attention('../results/attention/numbers.json'); num = NUM['sentences'][0]
    src, out = num['labels']['src'], num['labels']['tgt_out']
    enc, cross, dec = (num['maps'][k][1] for k in ('encoder', 'cross', 'decoder'))            # layer 2: (h, n_q, n_k)
    test_eq(argmax_heads(enc, [src.index(w) for w in ('▁three', '▁hundred', '▁forty')], 'two', src), [2])
    test_eq([src[i] for i in range(src.index('▁thousand')) if enc[3, i].argmax() != src.index('▁thousand')], ['two'])   # head 4: the first block but two
    test_eq(out, ['▁dreihundertzwei', 'undvier', 'zigtausendein', 'undsiebzig', '</s>'])
    test_eq(argmax_heads(cross, [out.index('undvier')], '▁forty', src), [3, 4])
    test_eq(argmax_heads(cross, [out.index('zigtausendein')], 'one', src), [3, 4])
    test_eq(argmax_heads(cross, [out.index('undsiebzig')], '▁seventy', src), [1, 3, 4])
    test_eq(argmax_heads(cross, [0], '▁three', src), [1, 2, 3, 4])
    test_eq([h + 1 for h in range(4) if all(dec[h, t].argmax() == t and dec[h, t, t] > 0.8 for t in range(len(out)))], [2, 3, 4])
    test_eq(NUM['test']['exact_match'], by['numbers-en-de-default-avg5-beam4']['exact_match'])    # the main job's model of the results table
    quoted('977893a0', f": {NUM['config']['N']} layers of {NUM['config']['h']} heads)", f"*{num['hyp']}*", f"*{num['src']}*")
    MT = load_attention('../results/attention/multi30k.json'); mt = MT['sentences'][0]
    src, out, tin = mt['labels']['src'], mt['labels']['tgt_out'], mt['labels']['tgt_in']
    enc, cross, dec = (mt['maps'][k][2] for k in ('encoder', 'cross', 'decoder'))             # layer 3: (h, n_q, n_k)
    test_eq([w is None for w in mt['maps']['cross']], [True, True, False])                   # the file keeps the last layer
    test_eq((MT['name'], MT['direction'], MT['step'], MT['beam'], MT['layers']), ('multi30k', 'de-en', 1500, 4, [3]))
    quoted('b77a1888', f"*{mt['src']}*", f"*{mt['hyp']}*", f"after {MT['step']:,} updates", f"{MT['config']['N']} layers of {MT['config']['h']} heads")
    assert abs(MT['test']['bleu'] - 37.3) < 0.05 and MT['test']['n_sentences'] == 1000
    test_eq(round(enc[2, src.index(','), src.index('▁spielen')].item(), 2), 0.97)
    test_eq(src.index('▁spielen') - src.index(','), 8)                                                 # "eight pieces later"
    test_eq(argmax_heads(enc, [src.index(w) for w in (',', '▁in', '▁einem', '▁am')], '▁spielen', src), [3])
    test_eq(argmax_heads(enc, [src.index(w) for w in ('▁Gruppe', '▁älterer', '▁Menschen')], '▁Menschen', src), [4])
    test_eq(argmax_heads(cross, [out.index('▁playing')], '▁spielen', src), [2, 3, 4, 6, 8])
    test_eq([h + 1 for h in range(8) if cross[h, out.index('▁playing'), src.index('▁spielen')] > 0.995], [2, 4])
    test_eq(src[-3], '▁spielen')                                                                         # the last word before the full stop
    test_eq(len(argmax_heads(cross, [out.index('▁instruments')], '▁Instrumente', src)), 7)
    test_eq(argmax_heads(cross, [out.index('▁in')], '▁am', src), [1, 2, 3, 4, 6, 7])
    test_eq(argmax_heads(cross, [out.index('▁tent')], '▁Zelt', src), list(range(1, 9)))
    test_eq([tin[dec[3, out.index(w)].argmax()] for w in ('▁tent', '▁by', '▁water', '.')], ['▁in', '▁in', '▁by', '▁by'])
    # the times the "your own run" cells quote come from the stored runs
    jobs = [r for r in json.loads(Path('../results/main_job.json').read_text()) if r['name'] == 'tnb-train']
    assert f"each stored run took {max(r['time']['whole_command']['cpu_s'] for r in jobs) / 60:.0f} minutes of CPU time or less on a 2-core AMD EPYC)" in nbf.stored('c0b1a7e6')
    assert all(r['hardware'].startswith('AMD EPYC') and ', 2 cores (CPU)' in r['hardware'] for r in jobs)
    assert all(r['tnb_train'].startswith('tnb-train --seed ') for r in jobs)                                # tnb-train with its defaults, per seed
    same = by['m30k-de-en-small-beam4']
    assert f"(its stored run: {same['train_time_s'] / 60:.0f} minutes of updates on a 2-core AMD EPYC)" in nbf.stored('c0b1a7f4')
    assert same['hardware'].startswith('AMD EPYC') and ', 2 cores (CPU)' in same['hardware']
    flags = lambda cmd: re.sub(r'--out \S+ ', '', cmd.split('; ')[0].removeprefix('train: '))           # the command without its run folder
    test_eq(flags(same['command']), flags(MT['train_command']))                                              # "the same command"
    assert '/work/' not in ''.join(nbf.outputs.values()) and '/tmp/' not in ''.join(nbf.outputs.values())   # no machine's own paths
    # the exercises: the variants beyond the noise, as the solution of exercise 2 finds them: the rows beyond the band
    test_eq(sorted(k for k in t3 if t3[k]['variant'] != 'base' and abs(t3[k]['bleu'] - t3['base']['bleu']) > band), sorted(beyond))

_check_12_prose()
del _check_12_prose
