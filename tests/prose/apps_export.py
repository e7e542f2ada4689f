"""The checks that tie apps_export's prose to `results/onnx.json` (written by `bench/bench_onnx.py`) and
`results/ct2_parity.json` (`experiments/ct2_parity.py`), run by the notebook's last (hidden) cell with
`exec(compile(open(...).read(), ...))` (cwd: nbs/): every figure the text quotes about the ONNX export on test2016
(parity, BLEU, sizes, speed ratios) is read from the file and looked up in the text, so a figure that drifts fails
`nbdev-test`. Everything runs inside one function, so no notebook variable is rebound."""

def _prose_checks_A18():
    import json
    from pathlib import Path
    cells = {c.get('id'): ''.join(c['source']) for c in json.loads(Path('apps_export.ipynb').read_text(encoding='utf-8'))['cells']}
    def quoted(cell_id, *figures):
        text = ' '.join(cells[cell_id].split())                       # a line break counts as a space
        missing = [f for f in figures if f not in text]
        assert not missing, f"apps_export.ipynb: the text of cell {cell_id} should say {missing} (from results/onnx.json): edit it"
    r = json.loads(Path('../results/onnx.json').read_text(encoding='utf-8'))
    p, sz, s = r['parity'], r['sizes'], r['speed']['systems']
    n, i8 = p['n_sentences'], p['bootstrap']['onnxruntime int8']
    x = lambda k: f"{s[k]['sentences_per_s'] / s['ours']['sentences_per_s']:.2f}x"
    quoted('f3a18e01', f"**{p['identical_fp32']:,} of {n:,}** lines identical greedily", f"the same BLEU ({p['bleu']['ours']:.2f})",
           f"with beam 4 **{p['identical_fp32_beam4']:,} of {n:,}** lines identical", f"int8 changes {n - p['identical_int8']} greedy lines",
           f"BLEU by **{i8['delta']:+.2f}**", f"p = {i8['p_value']}: no significant",
           f"on this one it changed {n - p['auto_precision_identical_to_fp32']} lines",
           f"**{sz['int8']['bytes'] / 1e6:.2f} MB** ({sz['int8']['gzip6_bytes'] / 1e6:.2f} MB gzipped)",
           f"float32's {sz['float32']['bytes'] / 1e6:.2f} MB", f"{x('onnxruntime float32')} (float32) and **{x('onnxruntime int8')}** (int8)",
           f"CTranslate2 {x('ctranslate2 float32')} and {x('ctranslate2 int8')}")
    assert p['identical_fp32'] >= 0.99 * n and p['identical_fp32_beam4'] >= 0.975 * n and abs(i8['delta']) <= 0.3 and i8['p_value'] > 0.05, (p['identical_fp32'], i8)
    assert p['bleu']['onnxruntime float32'] == p['bleu']['ours'] and p['bleu']['onnxruntime int8'] == i8['system']
    assert 1 / 7 < sz['int8']['bytes'] / sz['float32']['bytes'] < 1 / 5              # "a sixth of float32's"
    assert 0.2 < 2.048e6 / sz['int8']['bytes'] < 0.3                                  # the 8000 x 256 int8 table: "a quarter of that"
    assert s['onnxruntime int8']['sentences_per_s'] > s['ours']['sentences_per_s']    # "wins"
    assert '/work/' not in json.dumps(r) and '/tmp/' not in json.dumps(r)              # no machine's own paths
    c = json.loads(Path('../results/ct2_parity.json').read_text(encoding='utf-8'))    # CTranslate2's beam search, rescored (experiments/ct2_parity.py)
    n = c['n_sentences']
    quoted('a4881470', f"the first {n} sentences of Multi30k test2016", f"**{c['identical_rescored_gnmt']} of {n}** identical to ours with the rescoring",
           f"{c['identical_ctranslate2_own_penalty']} of {n} with CTranslate2's own penalty")
    from transformer_nb.lib.options import PAPER_DECODING as P
    from transformer_nb.apps.parsing_task import PARSE_DECODING as Q                          # the tasks' decodings, which an export records
    quoted('aad2acb0', f"§6.1's beam {P.beam} and $\\alpha = {P.alpha}$ for translation", f"§6.3's beam {Q.beam} and $\\alpha = {Q.alpha}$ for parsing")
    assert c['precision'] == 'float32' and c['decoding'] == {'beam': 4, 'alpha': 0.6, 'max_extra': 50} and '/work/' not in json.dumps(c)

    lb = json.loads(Path('../results/live_bench.json').read_text(encoding='utf-8'))      # bench/bench_live.py: the page in Chromium
    g, b = lb['decoding']['greedy'], lb['decoding']['beam4']
    quoted('a18lv003', f"load average {lb['load_average_before'][0]} → {lb['load_average_after'][0]}",
           f"Chromium had {g['cpu_share_of_wall']:.0%} to {b['cpu_share_of_wall']:.0%} of a core", f"**{lb['load']['bytes'] / 1e6:.2f} MB** over the wire",
           f"a median of {g['median_ms']:.0f} ms of wall time", f"a 95th percentile of {b['p95_ms']:.0f} ms",
           f"by about a fifth: {g['p95_ms']:.0f} ms at the 95th percentile, {g['max_ms']:.0f} ms at most")
    assert lb['met'] == {'greedy': False, 'beam4': True, 'load_bytes': True}, lb['met']      # what the text says of the targets
    assert 1.15 < g['median_ms'] / 40 < 1.25, g['median_ms']                                 # "by about a fifth"
    quoted('a18lv003',
           f"**{g['cpu_ms_per_sentence']} ms** greedily and **{b['cpu_ms_per_sentence']} ms** with beam 4",
           f"costs {b['cpu_ms_per_sentence'] / g['cpu_ms_per_sentence']:.1f} times a greedy search, not 4 times")
    assert lb['load']['bytes'] <= 12e6 and lb['n_sentences'] == 1000 and lb['quantize'] == 'int8'      # "the budget is 12 MB"
    assert lb['targets'] == {'greedy': {'median_ms': 40, 'p95_ms': 80, 'max_ms': 250}, 'beam4': {'p95_ms': 250}, 'load_bytes': 12_000_000}   # as the text says them
    assert '/work/' not in json.dumps(lb) and '/tmp/' not in json.dumps(lb)

_prose_checks_A18()
del _prose_checks_A18

def _prose_checks_hf():
    "The Hugging Face export's figures (results/hf_parity.json, experiments/hf_parity.py; results/hf_speed.json, bench/bench_hf.py) as cell a86hf019 quotes them."
    import json
    from pathlib import Path
    cells = {c.get('id'): ''.join(c['source']) for c in json.loads(Path('apps_export.ipynb').read_text(encoding='utf-8'))['cells']}
    text = ' '.join(cells['a86hf019'].split())
    par, sp = (json.loads(Path(f'../results/{f}').read_text(encoding='utf-8')) for f in ('hf_parity.json', 'hf_speed.json'))
    de, en = par['directions']['multi30k-de-en'], par['directions']['multi30k-en-de']
    n, nb, z, s = de['n_sentences'], de['n_sentences_beam'], sp['sizes'], sp['speed']['systems']
    x = lambda k: f"{s[k]['ratio_to_ours']:.2f}x"
    want = [f"**{de['tokenizer_identical_ids']:,} of {n:,}** German", f"**{en['tokenizer_identical_ids']:,} of {n:,}** English",
            f"**{de['greedy_identical']:,} of {n:,}** (de→en)", f"**{en['greedy_identical']:,} of {n:,}** (en→de)", f"first {nb} lines",
            f"agrees on {de['beam4_generate_identical']} (de→en) and {en['beam4_generate_identical']} (en→de) of {nb}",
            f"{de['beam4_gnmt_ranked_identical']} and {en['beam4_gnmt_ranked_identical']} of {nb}", f"costs {sp['beam_speed']['gnmt_ranked_time_ratio']:.2f}x the time",
            f"**{z['transformers float32']['bytes'] / 1e6:.2f} MB**", f"{z['transformers float32']['gzip6_bytes'] / 1e6:.2f} MB gzipped",
            f"float32 {z['ctranslate2 float32']['bytes'] / 1e6:.2f} MB", f"runs at {x('transformers float32')} ours",
            f"at {x('onnxruntime float32')} (float32) and CTranslate2 at {x('ctranslate2 float32')}"]
    missing = [w for w in want if w not in text]
    assert not missing, f"apps_export.ipynb: the text of cell a86hf019 should say {missing} (from results/hf_parity.json, results/hf_speed.json): edit it"
    assert round(100 * ((11 / 10) ** 0.6 - 1), 1) == 5.9 and round(100 * ((16 / 15) ** 0.6 - 1), 1) == 3.9   # "grows by 5.9%, ... 3.9%"
    assert min(de['greedy_identical'], en['greedy_identical']) >= 0.99 * n and par['precision'] == 'float32'
    assert de['beam4_gnmt_ranked_identical'] == en['beam4_gnmt_ranked_identical'] == nb and not any(d['examples_beam4_gnmt_ranked_differs'] for d in (de, en))   # "300 of 300, every line"
    assert '/work/' not in json.dumps(par) + json.dumps(sp) and '/tmp/' not in json.dumps(par) + json.dumps(sp)   # no machine's own paths
_prose_checks_hf()
del _prose_checks_hf
