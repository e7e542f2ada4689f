#!/usr/bin/env python
"""08_data's main line on Multi30k de-en, stored in `results/data_multi30k.json`, so that the page shows the course's
translation corpus on a machine without it (the page itself runs on the numbers corpus, which the package generates).

The same steps as the page, with its own code (`transformer_nb.data`): the corpus's size, a joint BPE vocabulary of
8,000 pieces learnt on both sides of the training split, the pieces of the first validation source, the token
batches at the paper's `max_tokens=25000` and at 4,000 (batches, sentences per batch, the largest padded batch), and
the share of real tokens on the source side of the first batch of `max_tokens=1000` against as many sentences taken
at random.

    python experiments/data_multi30k.py                    # under a minute on one CPU core
"""
import argparse, json
from pathlib import Path
import numpy as np
from transformer_nb.core import PAD_ID
from transformer_nb.data import Tokenizer, encode_pairs, TokenBatchSampler, collate
from transformer_nb.lib.machine import hardware, git_commit
from transformer_nb.lib.datasets import load_dataset, find_multi30k

ROOT = Path(__file__).resolve().parents[1]

def real_share(enc:list, batch:list[int]) -> float:
    "Real tokens over padded tokens on the source side of the sentences `batch` of `enc`."
    return round(float((collate([enc[i] for i in batch])[0] != PAD_ID).float().mean()), 4)

def main(argv=None):
    p = argparse.ArgumentParser(allow_abbrev=False, description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument('--data-dir', default=None); p.add_argument('--out', default=str(ROOT / 'results' / 'data_multi30k.json'))
    a = p.parse_args(argv)
    data = load_dataset('multi30k', 'de', 'en', data_dir=a.data_dir or find_multi30k())
    tok = Tokenizer.train(data.train_texts(), vocab_size=8000)
    s = data.valid[0][0]
    enc = encode_pairs(tok, data.train)
    sl, tl = [len(x) for x, _ in enc], [len(y) for _, y in enc]
    sampler = {}
    for mt in (25_000, 4_000):
        bs = TokenBatchSampler(sl, tl, max_tokens=mt).batches()
        sampler[str(mt)] = dict(batches=len(bs), sentences=round(float(np.mean([len(b) for b in bs])), 1),
                                largest=max(len(b) * max(max(sl[i], tl[i]) for i in b) for b in bs))
    batch = TokenBatchSampler(sl, tl, max_tokens=1000).batches()[0]
    naive = np.random.default_rng(0).permutation(len(enc))[:len(batch)].tolist()
    out = dict(corpus=repr(data), train_pairs=len(data.train), valid_pairs=len(data.valid), test_pairs=len(data.test),
               vocab_size=tok.vocab_size, training_sentences=len(data.train_texts()), sentence=s, pieces=tok.pieces(s),
               sampler=sampler, batch_1000=dict(sentences=len(batch), real_token_batch=real_share(enc, batch),
                                                real_random=real_share(enc, naive)),
               commit=git_commit(), hardware=hardware(), command='python experiments/data_multi30k.py')
    Path(a.out).write_text(json.dumps(out, indent=1, ensure_ascii=False) + '\n')
    print(json.dumps(out, indent=1, ensure_ascii=False))

if __name__ == '__main__': main()
