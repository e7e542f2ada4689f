#!/usr/bin/env python
"""Store what the attention explorer (`transformer_nb.apps.explorer`, apps_attention_explorer) shows: the attention weights of a trained
Multi30k model on a few test2016 sentences, every layer and head of the three kinds (encoder self-attention, decoder
self-attention, encoder-decoder attention), as percentages rounded to whole numbers, so that the file stays small
enough to travel inside a web page.

For each source sentence the model translates it (`--beam`), then reads the pair once with the decoder fed that
translation (teacher forcing, `transformer_nb.lib.scoring.sentence_maps`), which gives the weights every layer and head
computed for it. The file also says which checkpoint made it (its path, step, the steps it averages and its run),
how the run was trained, and this command, with no machine's paths (a path outside the repository is kept by its
name only).

The sentences are chosen on purpose (`--lines`, test2016's line numbers from 0): three the model translates right
(word for word; a separable verb, `bereitet ... zu`; another, `nehmen ... teil`) and four it gets wrong (an idiom,
`Händchen halten`; a rare verb, `anstarrt`; a rare noun, `Iglu`; a verb written with a capital, `Sitzt`).

    python experiments/explorer_data.py pretrained:multi30k-de-en
    python experiments/explorer_data.py runs/m30k-de-en --pick 4 --words 6 11

Writes transformer_nb/explorer.json (about 200 kB for seven sentences of the `small` model), which the package ships:
`transformer_nb.apps.explorer` reads it in Jupyter and on the docs site.
"""
import argparse, gzip, json, os, shlex, sys
from pathlib import Path
import torch
from transformer_nb.lib.machine import git_commit, hardware, limit_threads
from transformer_nb.lib.checkpoints import model_from_checkpoint, resolve_checkpoint
from transformer_nb.lib.datasets import find_multi30k
from transformer_nb.lib.scoring import sentence_maps
from transformer_nb.lib.fast_decoding import translate
from transformer_nb.lib.records import today

ROOT = Path(__file__).resolve().parents[1]
KINDS = ('encoder', 'decoder', 'cross')

LINES = (58, 48, 114, 16, 0, 6, 122)      # test2016 lines shown by default: three right, four wrong (see above)

def rel(p) -> str:
    "A path relative to the repository when it is inside it, else its name only (no machine's folders)."
    p = Path(p).resolve()
    return str(p.relative_to(ROOT)) if ROOT in p.parents else p.name

def no_paths(command:str|None) -> str|None:
    "`command` with every argument that is a path outside the repository (absolute, or climbing out with ..) cut to its name."
    if not command: return command
    def one(a):
        if a.startswith('-') or '/' not in a or ':' in a.split('/')[0]: return a
        return rel(a) if a.startswith(('/', '..', '~')) else a
    return shlex.join(one(a) for a in shlex.split(command))

def test_sentences(data_dir, lang:str) -> list[str]:
    "Multi30k's test2016 sentences in `lang`."
    folder = Path(data_dir) if data_dir else find_multi30k()
    if folder is None: sys.exit("Multi30k not found: pass --data-dir")
    with gzip.open(folder / f'test_2016_flickr.{lang}.gz', 'rt', encoding='utf-8') as f: return [l.strip() for l in f]

def pick(sentences:list[str], n:int, min_words:int, max_words:int) -> list[int]:
    "The first `n` sentences of `min_words` to `max_words` words (short enough to read on a page's grid)."
    return [i for i, s in enumerate(sentences) if min_words <= len(s.split()) <= max_words][:n]

def percent(w) -> list:
    "Weights (h, n_q, n_k) as whole percentages, nested lists."
    return (w * 100).round().to(torch.int16).tolist()

def sentence_record(model, tok, src:str, hyp:str, index:int) -> dict:
    maps, lab = sentence_maps(model, tok, src, hyp)
    return dict(index=index, src=src, hyp=hyp, src_pieces=lab['src'], tgt_in=lab['tgt_in'], tgt_out=lab['tgt_out'],
                weights={k: [percent(w) for w in maps[k]] for k in KINDS})

def main(argv=None):
    p = argparse.ArgumentParser(allow_abbrev=False, description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument('run', help="a run folder (the file every tool uses for it) or a checkpoint")
    p.add_argument('--data-dir', default=None, help="Multi30k's folder (default: found beside the repository)")
    p.add_argument('--lines', type=int, nargs='+', default=None, help=f"test2016 line numbers (from 0) to store (default: {' '.join(map(str, LINES))}, or --pick)")
    p.add_argument('--pick', type=int, default=None, help="instead of --lines: the first PICK test2016 sentences of --words words")
    p.add_argument('--words', type=int, nargs=2, default=(6, 11), help="their length in words, at least and at most")
    p.add_argument('--beam', type=int, default=4, help="the decoding that writes the translations (default 4)")
    p.add_argument('--threads', type=int, default=1)
    p.add_argument('--out', default=str(ROOT / 'transformer_nb' / 'explorer.json'))
    a = p.parse_args(argv)
    limit_threads(a.threads)
    ckpt = resolve_checkpoint(a.run)[0]
    model, tok, ck = model_from_checkpoint(ckpt)
    meta = ck.meta
    src_lang, tgt_lang = meta.get('src_lang', 'de'), meta.get('tgt_lang', 'en')
    srcs = test_sentences(a.data_dir, src_lang)
    idx = pick(srcs, a.pick, *a.words) if a.pick else list(a.lines or LINES)
    if bad := [i for i in idx if not 0 <= i < len(srcs)]: sys.exit(f"--lines {bad[0]}: test2016 has lines 0 to {len(srcs) - 1}")
    hyps = translate(model, tok, [srcs[i] for i in idx], beam=a.beam)
    rec = dict(
        about="attention weights in whole percent: weights[kind][layer][head][query][key]; kinds: encoder self-attention "
              "(source x source), decoder self-attention (target x target), encoder-decoder (target x source)",
        checkpoint=rel(ckpt), step=ck.step, averaged_steps=meta.get('averaged_steps'), run=meta.get('run'),
        dataset=meta.get('dataset'), split='test2016', direction=f"{src_lang}-{tgt_lang}", preset=meta.get('preset'),
        config={k: getattr(ck.config, k) for k in ('d_model', 'N', 'h', 'd_ff')}, beam=a.beam,
        train_command=no_paths(meta.get('command')), train_commit=meta.get('commit'), hardware=hardware(), commit=git_commit(),
        date=today(), command=no_paths(shlex.join(['python', 'experiments/explorer_data.py', *(sys.argv[1:] if argv is None else argv)])),
        sentences=[sentence_record(model, tok, srcs[i], h, i) for i, h in zip(idx, hyps)])
    out = Path(a.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(f'.{out.name}.tmp')
    tmp.write_text(json.dumps(rec, ensure_ascii=False, separators=(',', ':')) + '\n', encoding='utf-8')
    os.replace(tmp, out)
    for s in rec['sentences']: print(f"{s['index']}: {s['src']} -> {s['hyp']}")
    print(f"wrote {rel(out)} ({out.stat().st_size / 1024:.0f} kB) from {rel(ckpt)} (step {rec['step']})")

if __name__ == '__main__': main()
