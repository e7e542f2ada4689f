#!/usr/bin/env python
"""Two facts about Multi30k that 11_results uses, measured and stored in `results/multi30k_stats.json`.

- **Unigram perplexity of the validation targets**, per direction. A model that ignores the source and every earlier
  target word can at best predict each target piece with its frequency in the training targets; its validation
  perplexity is a reference line for training curves. The pieces are those of the 8k joint BPE that
  `tnb-train --vocab-size 8000` learns (`StoredTokenizer.train` on both sides of the training split); every target sentence
  ends with EOS, which is counted, as in the validation loss. Frequencies are add-one smoothed over the vocabulary.
- **Sentence length of test2016**: sentences, and words per sentence (split on spaces) in each language.

    python experiments/multi30k_stats.py                   # a minute on one CPU core
"""
import argparse, json, math, collections, statistics
from pathlib import Path
from transformer_nb.core import EOS_ID
from transformer_nb.lib.machine import hardware, git_commit
from transformer_nb.lib.tokens import StoredTokenizer
from transformer_nb.lib.datasets import load_dataset, find_multi30k

ROOT = Path(__file__).resolve().parents[1]

def unigram_ppl(tok:StoredTokenizer, train_tgt:list[str], valid_tgt:list[str]) -> float:
    "exp of the mean negative log-probability of the validation pieces (EOS included) under add-one unigram frequencies."
    counts = collections.Counter(i for s in train_tgt for i in tok.encode(s) + [EOS_ID])
    total, V = sum(counts.values()), tok.vocab_size
    ids = [i for s in valid_tgt for i in tok.encode(s) + [EOS_ID]]
    return math.exp(-sum(math.log((counts[i] + 1) / (total + V)) for i in ids) / len(ids))

def main(argv=None):
    p = argparse.ArgumentParser(allow_abbrev=False, description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument('--pairs', default='de-en,en-de,en-fr'); p.add_argument('--vocab-size', type=int, default=8000)
    p.add_argument('--data-dir', default=None); p.add_argument('--out', default=str(ROOT / 'results' / 'multi30k_stats.json'))
    a = p.parse_args(argv)
    ppl, words, n_test = {}, {}, None
    for pair in a.pairs.split(','):
        s, t = pair.split('-')
        data = load_dataset('multi30k', s, t, data_dir=a.data_dir or find_multi30k())
        tok = StoredTokenizer.train(data, vocab_size=a.vocab_size)
        ppl[pair] = round(unigram_ppl(tok, [y for _, y in data.train], [y for _, y in data.valid]), 2)
        for lang, side in ((s, 0), (t, 1)):
            words[lang] = round(statistics.mean(len(x[side].split()) for x in data.test), 2)
        n_test = len(data.test)
        print(f"{pair}: unigram perplexity of the validation targets {ppl[pair]}", flush=True)
    out = dict(unigram_valid_ppl=ppl, test2016_sentences=n_test, test2016_words_per_sentence=words,
               vocab_size=a.vocab_size, commit=git_commit(), hardware=hardware(), command='python experiments/multi30k_stats.py')
    Path(a.out).write_text(json.dumps(out, indent=1) + '\n')
    print(json.dumps(out, indent=1))

if __name__ == '__main__': main()
