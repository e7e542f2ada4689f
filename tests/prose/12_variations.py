"""The figures that 12_variations's text quotes, checked against where they come from: the paper's Table 3
(`PAPER_TABLE3`), the sweeps' records (`results/table3.json`, `table3_gpu.json`, `table3_fp32.json`) and their verdicts
(`seed_verdicts`, as `table3*_significance.json` hold them), the stored attention maps (`results/attention/`), the
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
    t3 = {r['id']: r for r in load_results(Path('../results/table3_fp32.json'), TABLE3_KEYS)}   # the fp32 sweep
    M30K = json.loads(Path('../results/multi30k_stats.json').read_text())
    w = M30K['test2016_words_per_sentence']
    quoted('ba454799', f"short ({w['en']:.0f} English words on average)")
    m30k_dir = find_multi30k()

    # Table 3 at Multi30k scale: the fp32 sweep (Going deeper), a set-up of its own, and the paper's rows
    t3_base = t3['base']
    opt = lambda name, r=t3_base: float(re.search(rf'--{name} ([\d.]+)', r['command']).group(1))
    steps, warm = int(opt('steps')), int(opt('warmup'))
    d3 = lambda k, key='bleu': t3[k][key] - t3_base[key]
    pd3 = lambda k: PAPER_TABLE3[k][1] - PAPER_TABLE3['base'][1]
    quoted('ba454799', f"moves BLEU by {abs(d3('base-seed1')):.1f} and perplexity by {abs(d3('base-seed1', 'valid_ppl')):.1f}",
           f"costs {-d3('B-dk4'):.1f} BLEU and {d3('B-dk4', 'valid_ppl'):.0f} points of perplexity",
           f"{t3['C-d64']['params'] / 1e6:.1f}M parameters) costs {-d3('C-d64'):.1f} BLEU and {d3('C-d64', 'valid_ppl'):.0f} points",
           f"{t3['C-d256']['params'] / 1e6:.1f}M parameters) gains {d3('C-d256'):.1f} BLEU and {-d3('C-d256', 'valid_ppl'):.1f} points",
           f"costs {-d3('C-N1'):.1f} BLEU and no perplexity", f"scores +{d3('A-h1'):.1f} against eight", f"lose {-d3('A-h16'):.1f}.",
           f"Without dropout −{-d3('D-drop0.0'):.1f}", f"perplexity is {t3['D-ls0.0']['valid_ppl']:.1f} against {t3_base['valid_ppl']:.2f}",
           f"BLEU −{-d3('D-ls0.0'):.1f}", f"smaller than another seed's ({abs(d3('base-seed1', 'valid_ppl')):.1f})", f"+{d3('E-learned'):.1f} BLEU (the paper")
    assert abs(d3('C-N1', 'valid_ppl')) < 0.2 and t3_base['valid_ppl'] - t3['D-ls0.0']['valid_ppl'] < abs(d3('base-seed1', 'valid_ppl'))   # "no perplexity"; "smaller than another seed's"
    test_eq((len(t3), sum(1 for r in t3.values() if not r.get('hyps')), {r['commit'] for r in t3.values()}), (11, 8, {'6325f44'}))   # "eight of its eleven runs kept no translations", 6325f44
    quoted('ba454799', "(commit 6325f44;", "eight of its eleven runs kept no translations", "a guess, untested")
    test_eq({r['precision'] for r in t3.values()}, {'fp32'}); assert all(r['command'].count('--precision fp32') == 2 for r in t3.values())
    test_eq({r['id'] for r in t3.values() if r['variant'] == 'base'}, {'base', 'base-seed1'})   # "its base has two seeds, every other row one"
    from transformer_nb.variations_config import table3_variants                             # the main line's tables: every row, run or not
    from transformer_nb.lib.significance import seed_verdicts, setup_of
    variants = [k for k in table3_variants(PRESETS['mini']) if k != 'base']
    paper = list(table3_variants(PRESETS['base']))[1:]
    read = lambda n: json.loads(Path(f'../results/{n}.json').read_text(encoding='utf-8'))
    cpu, g = load_results(Path('../results/table3.json'), TABLE3_KEYS), load_results(Path('../results/table3_gpu.json'), TABLE3_KEYS)
    refs = [r for r in load_results(Path('../results/since2017.json'), TABLE3_KEYS) if r['variant'] == 'paper']   # "14's `paper`"
    shown = lambda cid: ''.join(''.join(o.get('data', {}).get('text/markdown', '')) for o in next(
        c for c in json.loads(Path('12_variations.ipynb').read_text(encoding='utf-8'))['cells'] if c['id'] == cid)['outputs'])
    V = {}
    for name, recs, extra, cid in (('table3', cpu, refs, '12t00002'), ('table3_gpu', g, [], '12t00003'), ('table3_fp32', list(t3.values()), [], 'e12d0004')):
        v = V[name] = seed_verdicts(recs + extra)                                          # the one rule, as the page and the runner apply it
        sig = read(f'{name}_significance')
        test_eq((json.loads(json.dumps(v['rows'])), json.loads(json.dumps(v['family']))), (sig['rows'], sig['family']))   # the file's summaries are the rule's: run --compare
        assert len({setup_of(r) for r in recs}) == 1 and f"Set-up: {v['setup']}." in shown(cid), (name, "re-run nbs/12_variations.ipynb")
        table = shown(cid).split('Set-up: ')[-1]                                        # the rule's table (e12d0004 shows table3_table first)
        lines = {l.split(' | ')[0].lstrip('| '): l for l in table.splitlines() if l.startswith('| ') and not l.startswith('| Table 3 row')}
        test_eq([k for k in lines if k in paper], paper)                                  # every row of Table 3, in order
        for k, o in zip(paper, variants):
            r = v['rows'].get(o)
            assert lines[k].endswith('not run yet |') == (r is None), (name, k)
            if r: assert ', '.join(f'{d:+.1f} ({s})' for s, d in r['deltas'].items()) in lines[k] and lines[k].endswith(f"| {r['verdict']} |"), (name, k, "re-run nbs/12_variations.ipynb")
        assert f"Runs without stored translations: {sum(not x.get('hyps') for x in recs)} of {len(recs)}." in table
    # the columns as e34865a3 says them: the interval leaves out 0 exactly when the row's own p < 0.05; Holm multiplies
    # the k-th smallest p by (m - k + 1), m the rows tested (kept monotone, at most 1)
    quoted('e34865a3', "it leaves out 0 exactly when the row's own $p$ < 0.05", "multiplies the smallest $p$ by the number of rows tested, the next by one fewer")
    for v in V.values():
        ps = sorted((r['p'], o) for o, r in v['rows'].items() if r['p'] is not None)
        for o, r in v['rows'].items():
            if r['p'] is not None: assert (r['interval'][0] > 0 or r['interval'][1] < 0) == (r['p'] < 0.05), (o, r)
        run = 0.0
        for k, (p, o) in enumerate(ps):
            run = max(run, min(1.0, (len(ps) - k) * p)); assert abs(v['rows'][o]['holm_p'] - run) <= 1e-5 * max(run, 1e-9) + 1e-12, (o, run)
        assert v['family']['m'] == len(ps)
    cv, gv = V['table3'], V['table3_gpu']
    sep = {o: r for o, r in cv['rows'].items() if r['verdict'] == 'separates'}                    # "Three rows have three seeds; all separate"
    test_eq(sorted(sep), ['A-h32', 'C-N4', 'D-drop0.2']); test_eq({r['n_seeds'] for r in sep.values()}, {3}); test_eq(cv['family']['m'], 3)
    test_eq({r['n_seeds'] for o, r in cv['rows'].items() if o not in sep}, {1})                       # "the others have one seed" (those run)
    assert all(r['mean'] < 0 and r['interval'][1] < 0 for r in sep.values())                          # all worse: the 95% interval below 0
    test_eq(table3_variants(PRESETS['mini'])['A-h32'], dict(h=32, d_k=4, d_v=4))                    # "32 heads of d_k = 4" 
    test_eq((table3_variants(PRESETS['mini'])['C-N4'], PRESETS['mini']['N'], table3_variants(PRESETS['mini'])['D-drop0.2']['p_drop']), ({'N': 4}, 3, 2 * PRESETS['mini']['p_drop']))
    quoted('ba454798', f"32 heads of $d_k = 4$ ({sep['A-h32']['mean']:+.1f} BLEU), four layers instead of three ({sep['C-N4']['mean']:+.1f}) and twice the dropout ({sep['D-drop0.2']['mean']:+.1f})".replace('-', '−'),
           "the\nothers have one seed or none", "separate, for the worse")
    assert any(o not in cv['rows'] for o in variants)                                                 # "or none": rows this set-up has not run
    assert f"Per-seed sd of Δ: {cv['family']['sd']:.2f} BLEU" in shown('12t00002')
    assert all(o in gv['rows'] for o in variants) and 'big' not in cv['rows'] and 'big' not in V['table3_fp32']['rows']   # "`big` ran on the GPU only"
    assert {o for o in variants if o not in cv['rows']} - {'big'} <= set(V['table3_fp32']['rows'])         # "Rows not run in this set-up ran in the first sweep"
    quoted('ba454798', "Rows not run in this set-up ran in the first sweep, in fp32", "`big` ran on the GPU only")
    assert all(r['overrides'] == {} and '--preset mini ' in r['command'] for r in refs)                 # "`paper`: the same `mini`"
    quoted('ba454798', "are `base-seed2` and `paper`: the same `mini`")
    assert all(r['variant'] in ('paper', 'base') for r in refs + cpu if r['variant'] not in cv['rows'])
    two = sorted(refs, key=lambda r: r['seed'])[:2]
    test_eq([r['seed'] for r in two], [0, 1]); quoted('ba454798', f"seeds differ by {abs(two[0]['bleu'] - two[1]['bleu']):.1f} BLEU")
    SIG = read('since2017_significance')['bootstrap']                                       # the bootstrap tells the unchanged model's two seeds apart
    test_eq((SIG['paper-seed1']['vs'], SIG['paper-seed1']['n_sentences']), ('paper', 1014)); quoted('12g00001', f"($p$ = {SIG['paper-seed1']['p_value']})")
    assert SIG['paper-seed1']['p_value'] < 0.05
    # the GPU's table and its reading (12t00004, 12t00005)
    tested = {o: r for o, r in gv['rows'].items() if r['p'] is not None}
    test_eq(len(tested), 8); test_eq({r['n_seeds'] for r in tested.values()}, {2}); test_eq(sum(r['variant'] == 'base' for r in g), 3)   # "three seeds and eight rows with two"
    test_eq({r['verdict'] for r in gv['rows'].values() if r['p'] is not None}, {'not separated at this budget'})     # "none separates"
    low = min(tested, key=lambda o: tested[o]['holm_p']); test_eq(low, 'B-dk4')
    assert tested[low]['interval'][1] < 0; quoted('12t00005', "though B's interval lies below 0")   # an interval off 0, yet not separated: only the p is corrected
    quoted('12t00005', f"the smallest Holm-adjusted $p$ is {tested[low]['holm_p']:.2f} (B, $d_k = {table3_variants(PRESETS['mini'])[low]['d_k']}$)",
           f"sd of Δ, {gv['family']['sd']:.2f} BLEU", f"a mean Δ of {gv['family']['detectable'][2]:.1f} BLEU to separate with two seeds, {gv['family']['detectable'][3]:.1f} with three and {gv['family']['detectable'][5]:.1f} with five",
           f"`big` ({gv['rows']['big']['mean']:+.1f}), four layers ({gv['rows']['C-N4']['mean']:+.1f}) and twice the\ndropout ({gv['rows']['D-drop0.2']['mean']:+.1f}) are single runs".replace('-', '−'),
           "on the CPU the last two separate")
    quoted('12g00001', "twice the dropout lose** on the GPU, in single runs: a guess, untested", "`big` also sets dropout 0.3")
    assert gv['family']['detectable'][2] > max(r['bleu'] for r in g if r['variant'] == 'base')   # "The first exceeds the base's whole BLEU"
    quoted('12t00005', "The first exceeds the base's whole BLEU")
    test_eq([gv['rows'][o]['n_seeds'] for o in ('big', 'C-N4', 'D-drop0.2')], [1, 1, 1])
    test_eq(table3_variants(PRESETS['mini'])['big']['p_drop'], 0.3)
    quoted('a1b2c343', "With three seeds on the CPU, 32 heads, four layers and twice the dropout separate, all worse; none of the GPU's eight rows with two seeds separates; the rest have one seed")
    assert not any(r['verdict'] == 'separates' for name in ('table3_gpu', 'table3_fp32') for r in V[name]['rows'].values())
    assert all(not r.get('hyps') for r in g) and all(r.get('hyps') for r in cpu); quoted('12t00004', "Its runs kept no translations")
    for f in ('steps', 'max-tokens', 'warmup', 'lr-scale', 'vocab-size'):                                   # "with the same budget"
        assert {opt(f, r) for r in g + cpu} == {opt(f)}, f
    assert all(r['hardware'].startswith('NVIDIA') and 'bf16' in r['precision'] for r in g)       # "trains in bfloat16"
    quoted('12t00004', "(800\nupdates,", "the base with three seeds", "trains in bfloat16")
    for f in ('steps', 'max-tokens', 'warmup', 'lr-scale', 'seed', 'vocab-size'):               # one budget for every variant
        assert len({opt(f, r) for r in [*t3.values(), *cpu, *g] if r['seed'] == 0}) == 1, f
    test_eq(opt('lr-scale'), 0.5)
    quoted('a74c6cb3', f"the same {steps} updates of at most {int(opt('max-tokens'))} tokens per side",
           f"(warm-up {warm}, half the paper's rate)", f"and {int(opt('vocab-size')) // 1000}k BPE vocabulary")
    mini = PRESETS['mini']
    quoted('b18df25a', f"$d_{{model}}$ {mini['d_model']}, {mini['N']}+{mini['N']} layers, {mini['h']} heads of $d_k={mini['d_model'] // mini['h']}$,\n"
           f"$d_{{ff}}={mini['d_ff']}$, {t3_base['params'] / 1e6:.1f}M parameters")
    quoted('b18df25a', f"a single head is {-pd3('A-h1'):.1f} BLEU worse than eight")
    NotebookFile('09_training.ipynb').quoted('d5e0c727', "100,000 steps", "The big models were trained for 300,000 steps")   # §5.2, as 09 quotes it
    quoted('b18df25a', "trains each variant for 100k\nupdates (big: 300k)")
    quoted('ba454799', f"the paper's 6 → 2 layers: {-pd3('C-N2'):.1f} BLEU)", f"the paper's quarter,\n  $d_k = 16$, costs {-pd3('B-dk16'):.1f}",
           f"(the paper's halving: {-pd3('C-d256'):.1f})", f"(the paper's doubling: {pd3('C-d1024'):.1f})",
           f"+{d3('A-h1'):.1f} against eight of 16 (the paper: −{-pd3('A-h1'):.1f})", f"the paper's −{-pd3('D-drop0.0'):.1f}",
           f"(the paper: {PAPER_TABLE3['D-ls0.0'][0]} against {PAPER_TABLE3['base'][0]}, −{-pd3('D-ls0.0'):.1f} BLEU)", f"(the paper: −{-pd3('E-learned'):.1f})")
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
    test_eq((tin[0], tin[1:]), ('<s>', out[:-1]))                                         # the decoder map's keys: its input, the output shifted right, <s> first
    quoted('b77a1888', "the decoder reads its input, the output shifted right, `<s>` first")
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
    # the exercises: exercise 2's band, on the file its check reads
    band = abs(d3('base-seed1'))
    assert sorted(k for k in t3 if t3[k]['variant'] != 'base' and abs(d3(k)) > band) == sorted({'B-dk4', 'C-d64', 'C-d256'})

_check_12_prose()
del _check_12_prose
