"""Checks that tie 08_data's prose to its outputs (run by
the notebook's last (hidden) cell, which `exec`s this file (`%run` would print a failure without failing the cell),
which then calls the function, so `nbdev-test` fails on a figure that drifts): the corpus size, what the text says of the sentence
lengths and of the number tokenizer's pieces, every figure of the padding comparison, and exercise 3's expected
outcome (two tokenizers trained again here). Everything runs inside one function, so no name of the notebook is
rebound; the notebook's `data`, `nums`, `enc`, `enc_num`, `src_lens`, `tgt_lens`, `tok`, `tok_num`, `rows` and `real` are read, never changed;
the stored Multi30k figures the main line shows (`results/data_multi30k.json`) are measured again."""

def _check_prose_08():
    import numpy as np
    from transformer_nb.lib.machine import NotebookFile
    from transformer_nb.data import Tokenizer, encode_pairs, TokenBatchSampler
    nb = NotebookFile('08_data.ipynb')
    import transformer_nb.data as lib                                          # the course's own code, against the
    probe = data.train[:300]                                                   # notebook's (an exercise may change it)
    mine, ours = globals()['encode_pairs'](tok, probe), lib.encode_pairs(lib.Tokenizer(tok.sp.serialized_model_proto()), probe)
    sl, tl = [len(s) for s, _ in ours], [len(t) for _, t in ours]
    if mine != ours or globals()['TokenBatchSampler'](sl, tl, 200).batches() != lib.TokenBatchSampler(sl, tl, 200).batches():
        print("This notebook's code is not the course's (an exercise changed it), so its figures are not checked against the text.")
        return

    nb.quoted('d2ed0dd0', f"{len(data.train):,} training pairs")
    nb.quoted('2556b9d1', f"the {len(nums.train_texts()):,} training sentences")
    import json, pathlib                                                       # the stored Multi30k figures, measured again
    J = json.loads(pathlib.Path('../results/data_multi30k.json').read_text(encoding='utf-8'))
    assert (J['corpus'], J['training_sentences'], J['pieces']) == (repr(data), len(data.train_texts()), tok.pieces(data.valid[0][0])), \
        "results/data_multi30k.json is not this Multi30k: run experiments/data_multi30k.py again"
    for mt, r in J['sampler'].items():
        bs = lib.TokenBatchSampler(src_lens, tgt_lens, int(mt)).batches()
        assert (r['batches'], r['largest']) == (len(bs), max(len(b) * max(max(src_lens[i], tgt_lens[i]) for i in b) for b in bs)), mt
    nb.quoted('b08f0m30', f"{J['vocab_size']:,} pieces", f"its {J['training_sentences']:,} training sentences")
    assert J['batch_1000']['real_token_batch'] > 0.995 and 0.4 < 1 - J['batch_1000']['real_random'] < 0.6, "the text says 'all real tokens', 'about half padding'"
    nb.quoted('b08f0m30', "the token batch is all real tokens, the random one about half padding")
    assert bool(globals()['real'].all()), "the text says the figure's token batch (its mask `real`) has no padding"
    nb.quoted('b08f0010', "the token batch's rows end together: no padding")
    share = lambda e, b: np.mean([(lib.collate([e[i] for i in b])[0] != 0).float().mean().item()])
    naive_num = np.random.default_rng(0).permutation(len(enc_num))[:J['batch_1000']['sentences']].tolist()
    assert J['batch_1000']['real_random'] + 0.1 < share(enc_num, naive_num), "the text says random batches of captions waste more than of numbers"
    ln = lambda e, side: np.mean([len(p[side]) for p in e])
    assert ln(enc_num, 0) < ln(enc, 0) and ln(enc_num, 1) < ln(enc_num, 0), \
        "the text says the numbers corpus is shorter still, and its German side in fewer pieces than the English"
    pieces = {tok_num.sp.id_to_piece(i).lstrip('▁') for i in range(tok_num.vocab_size)}
    assert {'achthundert', 'undzwanzig'} <= pieces, "the text names pieces the number tokenizer no longer has: edit it"
    assert 1e5 < len(tok.sp.serialized_model_proto()) < 1e6, "the text calls the model 'a few hundred kilobytes'"
    nb.quoted('01d4bdbe', f"{tok_num.vocab_size:,} pieces")

    m = {(c, mt): (a, b) for c, mt, _, a, b in rows}                          # the padding comparison
    assert all(a > 0.9 for a, _ in m.values()) and all(a > 0.95 for (c, mt), (a, _) in m.items() if mt <= 2000)
    assert all(a - b > 0.15 for a, b in m.values()), "bucketing always far better than naive batches"
    tb = [a for a, _ in m.values()]
    fx = {c: [b for (cc, _), (_, b) in m.items() if cc == c] for c in ('Multi30k de-en', 'numbers en-de')}
    nb.quoted('d9f2db73', f"keeps {min(tb):.0%} to over", f"spends {100 * (1 - max(fx['Multi30k de-en'])):.0f}–"
                          f"{1 - min(fx['Multi30k de-en']):.0%} of")
    assert 0.99 < max(tb) < 1 and all(0.3 < 1 - b < 0.37 for b in fx['numbers en-de']), "'over 99%', 'a third'"

    stats = {}                                                                # exercise 3's expected outcome
    for V in (1000, 16000):
        e = encode_pairs(Tokenizer.train(data.train_texts(), vocab_size=V), data.train)
        sl, tl = [len(s) for s, _ in e], [len(t) for _, t in e]
        stats[V] = np.mean(sl), len(TokenBatchSampler(sl, tl, 4000)), np.mean(np.square(sl))
    (a1, b1, c1), (a16, b16, c16) = stats[1000], stats[16000]
    nb.quoted('a08e0031', f"grows from {a16:.1f} to\n   {a1:.1f} pieces on average ({a1 / a16:.1f} times)",
              f"{b1} batches instead of {b16}", f"{c1 / c16:.1f} times as many (the mean of $n^2$ goes from {c16:.0f} to {c1:.0f})")
