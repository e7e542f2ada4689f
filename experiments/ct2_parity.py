#!/usr/bin/env python
"""CTranslate2's beam search against ours, in float32, on the first sentences of Multi30k test2016: how many outputs are
identical, with the export's rescoring (CTranslate2's n-best by log p, `length_penalty=0`, each divided by GNMT's
((5+|Y|)/6)^alpha, `transformer_nb.apps.export.rescored`) and with CTranslate2's own length penalty (its score divided by
|Y|^alpha), which the export used before. Stored in `results/ct2_parity.json`; apps_export quotes it.

    python experiments/ct2_parity.py                       # 200 sentences, de->en: a few minutes on one CPU core
"""
import argparse, gzip, json, tempfile
from pathlib import Path
from transformer_nb.lib.machine import hardware, git_commit, limit_threads
from transformer_nb.lib.checkpoints import open_checkpoint
from transformer_nb.lib.datasets import find_multi30k
from transformer_nb.lib.options import PAPER_DECODING
from transformer_nb.lib.fast_decoding import translate, one_line
from transformer_nb.apps.export import export_ctranslate2, load_ctranslate2, ctranslate2_translate

ROOT = Path(__file__).resolve().parents[1]

def main(argv=None):
    p = argparse.ArgumentParser(allow_abbrev=False, description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument('--checkpoint', default='pretrained:multi30k-de-en')
    p.add_argument('--n', type=int, default=200, help='sentences of test2016 (the first N)')
    p.add_argument('--data-dir', default=None, help='Multi30k (default: where tnb-data put it)')
    p.add_argument('--json', default=None, help='write the figures here (results/ct2_parity.json)')
    a = p.parse_args(argv)
    limit_threads(1)
    c = open_checkpoint(a.checkpoint)
    src = c.meta.get('src_lang', 'de')
    with gzip.open((Path(a.data_dir) if a.data_dir else find_multi30k()) / f'test_2016_flickr.{src}.gz', 'rt', encoding='utf-8') as f: lines = f.read().splitlines()[:a.n]
    model, tok = c.model('cpu').float().eval(), c.tokenizer
    d = PAPER_DECODING
    ours = translate(model, tok, lines, d, precision='fp32')
    with tempfile.TemporaryDirectory() as tmp:
        tr, tok2, meta = load_ctranslate2(export_ctranslate2(c, Path(tmp) / 'ct2'), compute_type='float32')
        rescored = [ctranslate2_translate(tr, tok2, [s], d, meta=meta)[0] for s in lines]      # one sentence a batch: our length cap each
        own = []                                                                                 # CTranslate2's own penalty, |Y|^alpha
        for s in lines:
            ids = tok2.encode(s.strip()); limit = len(ids) + 1 + d.max_extra
            r = tr.translate_batch([[tok2.sp.id_to_piece(t) for t in ids]], beam_size=d.beam, length_penalty=d.alpha,
                                   max_decoding_length=limit, min_decoding_length=0, max_input_length=0)[0]
            own.append(one_line(tok2.decode([tok2.sp.piece_to_id(x) for x in r.hypotheses[0]])))
    same = lambda xs: sum(x == y for x, y in zip(xs, ours))
    out = {'checkpoint': a.checkpoint, 'n_sentences': len(lines), 'test_set': f'Multi30k test2016 ({src}), the first {len(lines)}',
           'precision': 'float32', 'decoding': {'beam': d.beam, 'alpha': d.alpha, 'max_extra': d.max_extra},
           'identical_rescored_gnmt': same(rescored), 'identical_ctranslate2_own_penalty': same(own),
           'hardware': hardware(), 'threads': 1, 'commit': git_commit(ROOT), 'command': 'python experiments/ct2_parity.py' + (f' --n {a.n}' if a.n != 200 else '') + (f' --json {a.json}' if a.json else '')}
    print(f"{len(lines)} sentences, float32, beam {d.beam}, alpha {d.alpha}: identical to ours {out['identical_rescored_gnmt']} with GNMT's "
          f"penalty (n-best rescored), {out['identical_ctranslate2_own_penalty']} with CTranslate2's own |Y|^alpha")
    if a.json: Path(a.json).write_text(json.dumps(out, indent=1) + '\n', encoding='utf-8')

if __name__ == '__main__': main()
