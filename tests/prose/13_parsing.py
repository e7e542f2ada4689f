"""The figures that 13_parsing's text quotes, checked against where they come from: the paper's constants
(`PAPER_PARSING`, `PAPER_TABLE4`), the parsing task's recipe, the generated treebank, the records of
`results/parsing.json`, and the stored run of the notebook's `#| slow` cells (the demo parser's training, its scores
and its attention counts, as the saved notebook printed them). Run at the end of the notebook by one hidden cell,
which `exec`s this file (not `%run`, whose errors would not fail the cell), so that a figure that drifts fails `nbdev-test`; everything is recomputed
here, in a function of its own, and none of the learner's names is read or rebound."""

def _check_13_prose():
    import inspect, re, statistics
    from pathlib import Path
    from fastcore.test import test_eq, test_fail
    from transformer_nb.lib.machine import NotebookFile
    from transformer_nb.lib.transformer import count_config_params
    from transformer_nb.lib.options import ModelConfig
    from transformer_nb.lib.records import load_results
    from transformer_nb.apps.tasks import get_task
    from transformer_nb.lib.treebank import PARSE_KEYS
    from transformer_nb.parsing import PAPER_PARSING as PP, PAPER_TABLE4
    from transformer_nb.apps.parsing_task import _LEXICON, english_pcfg, parsing_corpus, sample_treebank
    nbf = NotebookFile('13_parsing.ipynb')
    quoted = nbf.quoted
    quoted('fedf9d24', '92.7'); test_fail(lambda: quoted('fedf9d24', 'no such text'), contains='should say')   # the check can fail

    # the paper's set-up and Table 4
    T4 = {(p, t): f for p, t, f in PAPER_TABLE4}
    ours = lambda t: T4[('Transformer (4 layers)', t)]
    quoted('fedf9d24', f"a **{PP['N']}-layer** Transformer with $d_{{model}} = {PP['d_model']}$", f"about **{PP['train_sentences'] // 1000}K** sentences",
           f"about **{PP['semi_supervised_sentences'] // 10**6}M** sentences", f"vocabularies of **{PP['vocab'] // 1000}K** and **{PP['vocab_semi_supervised'] // 1000}K** tokens",
           f"**input + {PP['max_extra']}**", f"a beam of **{PP['beam']}** and length penalty **$\\alpha = {PP['alpha']}$**",
           f"**{ours('WSJ only, discriminative')}** trained on WSJ only, **{ours('semi-supervised')}** semi-supervised",
           f"reach {T4[('Luong et al. (2015)', 'multi-task')]}, above the Transformer's {ours('semi-supervised')}",
           f"discriminative RNNG ({T4[('Dyer et al. (2016)', 'WSJ only, discriminative')]}) is above {ours('WSJ only, discriminative')}",
           f"the generative RNNG ({T4[('Dyer et al. (2016)', 'generative')]})")
    lo = re.search(r"xlim=\((\d+), \d+\)", nbf.text['387df3c2'])[1]                               # the chart's axis, as its code sets it
    assert float(lo) < min(f for *_, f in PAPER_TABLE4) and 'barh' not in nbf.text['387df3c2']        # it cuts the axis, so it draws no bars
    quoted('520f6174', f"The axis starts at {lo}, so each parser is a dot")
    V = lambda t: T4[('Vinyals & Kaiser et al. (2014)', t)]
    quoted('520f6174', f"with attention: {V('WSJ only, discriminative')} F1 trained on the 40K WSJ sentences alone, below every other WSJ-only parser",
           f"and {V('semi-supervised')} trained on millions of machine-parsed sentences", "level with the best earlier semi-supervised parser (McClosky et al., 2006)",
           '"RNN sequence-to-sequence models have not been able to attain state-of-the-art results in small-data regimes"',
           f"The Transformer reaches {ours('WSJ only, discriminative')}")
    assert V('WSJ only, discriminative') < min(f for p, t, f in PAPER_TABLE4 if t.startswith('WSJ only') and not p.startswith('Vinyals'))   # below every other
    assert V('semi-supervised') == T4[('McClosky et al. (2006)', 'semi-supervised')] == max(
        f for p, t, f in PAPER_TABLE4 if t == 'semi-supervised' and not p.startswith(('Vinyals', 'Transformer')))                          # level with the best
    quoted('648f626b', f"multi-task {T4[('Luong et al. (2015)', 'multi-task')]} is above the Transformer's {ours('semi-supervised')}")
    others = [(p, t, f) for p, t, f in PAPER_TABLE4 if not p.startswith('Transformer')]
    assert max(f for p, t, f in others if t == 'semi-supervised') < ours('semi-supervised')          # "within each training setting"
    test_eq([(p, f) for p, t, f in others if f > ours('semi-supervised')], [('Luong et al. (2015)', 93.0), ('Dyer et al. (2016)', 93.3)])   # above 92.7
    test_eq([(p, f) for p, t, f in others if t.startswith('WSJ only') and f > ours('WSJ only, discriminative')], [('Dyer et al. (2016)', 91.7)])   # "only"
    assert T4[('Vinyals & Kaiser et al. (2014)', 'WSJ only, discriminative')] < T4[('Petrov et al. (2006)', 'WSJ only, discriminative')] \
        < ours('WSJ only, discriminative')                            # §6.3: unlike the RNN, above the BerkeleyParser on WSJ only
    from transformer_nb.apps.parsing_task import PARSE_DECODING
    assert (PARSE_DECODING.beam, PARSE_DECODING.alpha, PARSE_DECODING.max_extra) == (PP['beam'], PP['alpha'], PP['max_extra'])

    # the records of results/parsing.json
    recs = load_results(Path('../results/parsing.json'), PARSE_KEYS)
    by_id = {r['id']: r for r in recs}
    g, b, vit, rb, xx, longer, pl = (by_id[k] for k in ('parsing-greedy', 'parsing-beam21', 'parsing-viterbi', 'parsing-right-branching',
                                                        'parsing-xx-greedy', 'parsing-2700-greedy', 'parsing-postln-greedy'))
    assert xx['f1'] < g['f1'] / 2 and 1400 < xx['valid_nll'][-1][0] <= 1500                   # "well under half", "1,500 updates"
    assert all(round(r['train_time_s'] / 60) == 14 for r in (xx, g))                          # "about 14 minutes"
    quoted('520f6174', '(`parsing-xx-*`, 1,500\nupdates)', 'about 14\nminutes of training')
    gap = lambda r: 100 * (r['f1'] - rb['f1']) / (vit['f1'] - rb['f1'])
    paper = count_config_params(ModelConfig(src_vocab=16_000, tgt_vocab=16_000, d_model=1024, N=4))
    words = {w for ws in _LEXICON.values() for w in ws.split()}
    quoted('46b7f0b3', f"A {g['params'] / 1e6:.1f}M-parameter model", f"closes {gap(g):.0f}% of the gap",
           f"{g['malformed']} of the {g['n_sentences']:,} greedy outputs ({b['malformed']} with beam 21)",
           f"leaves {longer['malformed']}:")
    quoted('e12g0003', f"{g['n_sentences'] - g['malformed']} of the 1,000 greedy outputs are well formed",
           f"about {round(len(words), -2)} words", f"about {round(paper / g['params'], -1):.0f} times our parameters")
    assert 13 <= g['train_time_s'] / 60 <= 17 and b['f1'] < g['f1'] and g['failed'] == 0     # "a quarter of an hour"; beam below greedy
    assert b['precision'] > g['precision'] and b['recall'] < g['recall']                      # "higher precision, lower recall"
    assert 30 <= len(english_pcfg().productions()) - sum(len(ws.split()) for ws in _LEXICON.values()) <= 60   # "a few dozen rules"
    assert longer['malformed'] < g['malformed']
    top = max(g['repairs'], key=g['repairs'].get)                                             # "most often for closing more brackets than were open"
    assert top in ('closing label(s) differed from the open node', 'dropped closing bracket(s) with nothing open'), top
    nll = [v for _, v in pl['valid_nll']]
    assert nll[1] < nll[0] and nll[-1] >= nll[-2] - 0.01 and 'd_model=128' in pl['system'] and pl['valid_nll'][-1][0] <= 800
    quoted('1da59d84', '$d_{model} = 128$', '800 updates', 'stopped falling after two epochs')
    quoted('4f7cdbd6', f"a lexicon of about {round(len(words), -2)} words")

    # the default run: its corpus, model and budget (trained with `tnb-train --dataset parsing`, no options)
    r = get_task('parsing').recipe
    model_kw, tc_kw, vocab = r.model, r.train, r.vocab_size
    corpus = {k: v.default for k, v in inspect.signature(parsing_corpus).parameters.items() if k != 'kwargs'}
    assert all(f'--{k}' not in x['command'].split(';')[0] for x in (g, b) for k in ('steps', 'max-tokens', 'vocab-size', 'd-model'))
    per_epoch = g['valid_nll'][0][0]                                                          # validation closes each epoch
    assert g['valid_nll'][-1][0] < tc_kw['steps'] < g['valid_nll'][-1][0] + per_epoch
    assert [s for s, _ in g['valid_nll']] == [per_epoch * (i + 1) for i in range(len(g['valid_nll']))]
    quoted('520f6174', f"(`parsing-*`, {tc_kw['steps']:,} updates)")
    assert tc_kw['steps'] > 1500; quoted('520f6174', 'equal time, not updates')                    # 2,400 updates against the XX run's 1,500
    quoted('42ca9f30', f"({corpus['n_train']:,} training, {corpus['n_valid']} validation and {corpus['n_test']:,} test sentences, seed {corpus['seed']})",
           f"With {vocab:,} SentencePiece pieces")
    assert model_kw['p_attn'] == model_kw['p_drop'] and g['n_sentences'] == corpus['n_test']
    quoted('85820f46', f"**{model_kw['N']} layers**", f"$d_{{model}} = {model_kw['d_model']}$ instead of {PP['d_model']}",
           f"(with $h = {model_kw['h']}$ heads of $d_k = {model_kw['d_model'] // model_kw['h']}$ and $d_{{ff}} = {model_kw['d_ff']}$), dropout {model_kw['p_drop']}",
           f"a vocabulary of {vocab:,} pieces", f"{tc_kw['steps']:,} updates of at most {tc_kw['max_tokens']:,} tokens (about "
           f"{round(tc_kw['steps'] / per_epoch)} epochs of the {corpus['n_train']:,} training trees)", f"(warm-up {tc_kw['warmup']} updates)")
    assert longer['train_time_s'] > 20 * 60 and longer['valid_nll'][-1][0] <= 2700 and longer['valid_nll'][:len(g['valid_nll'])] == g['valid_nll']
    quoted('49520819', 'takes about half an hour')
    assert 20 <= (g['train_time_s'] + int(vit['decoding'].split()[0])) / 60 <= 40             # training and Viterbi: "about half an hour"
    quoted('85820f46', f"`tnb-train --dataset parsing`, {tc_kw['steps']:,} updates)", f"on the {g['n_sentences']:,} test sentences",
           "trained for 2,700 updates, beyond the default run's quarter of an hour")
    max_words = inspect.signature(sample_treebank).parameters['max_words'].default
    assert all(int(k.split('-')[-1]) <= max_words for x in recs for k in x['by_length'])
    quoted('e12g0003', f"sentences of at most {max_words} words")

    # the summary and the decoding's reason: the small corpus of the notebook's first cells
    data = parsing_corpus(2000, 100, 200)
    w_in, t_out = (statistics.mean(len(x.split()) for x in side) for side in zip(*data.train))
    assert t_out / w_in > 2 and 0.3 <= g['malformed'] / g['n_sentences'] < 0.37                # "more than twice"; "a third"
    quoted('648f626b', 'more than twice as long as the input', 'A third of its outputs still needed a repair')
    quoted('42ca9f30', f"over twice as long\nas its sentence ({t_out:.0f} tokens for {w_in:.0f} words here)")

    # the demo parser of the slow cells, as its code and the stored run give it
    demo_src = nbf.text['d049f02c']
    demo_model = eval(re.search(r"DEMO_MODEL = (dict\(.*\))", demo_src).group(1))
    demo = eval(re.search(r"demo = (parsing_corpus\(.*\))", demo_src).group(1), {'parsing_corpus': parsing_corpus})
    steps = int(re.search(r"steps=(\d+)", demo_src).group(1))                       # the demo, opt-in (TRAIN_DEMO)
    quoted('49520819', f"({demo_model['N']} layers, $d_{{model}} = {demo_model['d_model']}$) trained for {steps} updates on "
           f"{len(demo.train):,} short sentences (at most {max(len(s.split()) for s, _ in demo.train)} words)")

    if 'tr' in globals():                         # the slow cells ran: the default corpus's pieces, "every word is one piece, each bracket two"
        from transformer_nb.lib.tokens import StoredTokenizer
        full = parsing_corpus()
        tok_full = StoredTokenizer.train(full, vocab_size=vocab)
        assert all(len(tok_full.pieces(t)) == (2 if t[0] in '()' else 1) for t in {t for _, lin in full.train for t in lin.split()})

_check_13_prose()
del _check_13_prose
