#!/usr/bin/env python
"""The Hugging Face export (`tnb-export --format hf`, apps_export) of the published Multi30k models against our decoder,
in float32, on Multi30k test2016 in both directions: the tokenizer's ids, greedy decoding and beam search.

    python experiments/hf_parity.py --json results/hf_parity.json          # both directions: ~15 minutes on one core

For each direction: how many of the source lines `AutoTokenizer` (MarianTokenizer, from the folder) encodes to our ids
(EOS after); how many outputs of transformers' own `generate` (from the folder's `generation_config.json`, decoded with
`skip_special_tokens=True`, as a user runs it) are identical to `translate(..., precision='fp32')`, which is what
`tnb-translate --precision fp32` runs: greedy (`num_beams=1`, against `--beam 1`) and beam 4 (`generate`'s own length
penalty, log p / |Y|^alpha, against §6.1's ((5+|Y|)/6)^alpha); and how many of `hf_translate`'s beam search (`generate`'s
whole beam with no penalty, ranked by §6.1's, `gnmt_best`) are. The ids and greedy decoding on all `--n` lines (1,000),
beam search on the first `--beam-n` (300), which costs several times more. Each line is decoded alone, its own length cap (`hf_translate`,
and `max_new_tokens` for `generate`: its source + 50), as `tnb-translate` caps it. Sizes of the folder's files, too.
"""
import argparse, gzip, json, sys, tempfile, time
from pathlib import Path
import torch
from transformer_nb.core import EOS_ID
from transformer_nb.lib.machine import hardware, git_commit, limit_threads
from transformer_nb.lib.checkpoints import open_checkpoint
from transformer_nb.lib.datasets import find_multi30k, read_lines
from transformer_nb.lib.options import PAPER_DECODING
from transformer_nb.lib.fast_decoding import translate, one_line, extra_tokens
from transformer_nb.apps.export import export_hf, load_hf, hf_translate

ROOT = Path(__file__).resolve().parents[1]

def generate_own(m, tok, lines, beam:int) -> list[str]:
    "transformers' `generate` by the folder's defaults (greedy: num_beams=1), one line at a time with §6.1's cap, decoded as a user decodes."
    outs = []
    for s in lines:
        ids = tok(s.strip(), return_tensors='pt')['input_ids']
        with torch.no_grad(): g = m.generate(ids, num_beams=beam, max_new_tokens=ids.shape[1] + extra_tokens(PAPER_DECODING.max_extra),
                                             **({} if beam > 1 else dict(early_stopping=False, length_penalty=1.0)))
        outs.append(one_line(tok.decode(g[0], skip_special_tokens=True)))
    return outs

def direction(name:str, data:Path, n:int, beam_n:int, tmp:Path) -> dict:
    c = open_checkpoint(f'pretrained:{name}')
    src_lang = name.split('-')[1]
    lines = read_lines(data / f'test_2016_flickr.{src_lang}.gz')[:n]
    model, ours_tok = c.model('cpu').float().eval(), c.tokenizer
    folder = export_hf(c, tmp / name)
    m, tok, _ = load_hf(folder)
    t0 = time.time()
    same_ids = sum(tok(s)['input_ids'] == ours_tok.encode(s) + [EOS_ID] for s in lines)
    ours_greedy = translate(model, ours_tok, lines, beam=1, precision='fp32')
    bl = lines[:beam_n]
    ours_beam = translate(model, ours_tok, bl, precision='fp32')
    hf_greedy, hf_beam_own = generate_own(m, tok, lines, 1), generate_own(m, tok, bl, PAPER_DECODING.beam)
    hf_beam_gnmt = hf_translate((m, tok, _), bl)
    same = lambda xs, ys: sum(x == y for x, y in zip(xs, ys))
    r = {'test_set': f'Multi30k test2016 ({src_lang}), the first {len(lines)}', 'n_sentences': len(lines), 'n_sentences_beam': len(bl), 'tokenizer_identical_ids': same_ids,
         'greedy_identical': same(hf_greedy, ours_greedy), 'beam4_generate_identical': same(hf_beam_own, ours_beam),
         'beam4_gnmt_ranked_identical': same(hf_beam_gnmt, ours_beam),
         'hf_translate_greedy_identical': same(hf_translate((m, tok, _), lines, beam=1), ours_greedy),
         'examples_beam4_generate_differs': [{'source': s, 'ours': a, 'generate': b} for s, a, b in zip(bl, ours_beam, hf_beam_own) if a != b][:3],
         'examples_beam4_gnmt_ranked_differs': [{'source': s, 'ours': a, 'hf_translate': b} for s, a, b in zip(bl, ours_beam, hf_beam_gnmt) if a != b][:3],
         'sizes': {f: (folder / f).stat().st_size for f in sorted(q.name for q in folder.iterdir())},
         'seconds': round(time.time() - t0)}
    r['sizes']['model.safetensors_gzip6'] = len(gzip.compress((folder / 'model.safetensors').read_bytes(), 6))
    print(f"{name}: {r['n_sentences']} lines; ids identical {same_ids}; greedy identical {r['greedy_identical']}; beam 4 identical of {len(bl)}: "
          f"{r['beam4_generate_identical']} with generate's length^alpha, {r['beam4_gnmt_ranked_identical']} ranked by GNMT's penalty", flush=True)
    return r

def main(argv=None):
    import transformers
    p = argparse.ArgumentParser(allow_abbrev=False, description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument('--n', type=int, default=1000, help='lines of test2016 (the first N; default all 1,000)')
    p.add_argument('--beam-n', type=int, default=300, help='of those, the first N for beam search (default 300)')
    p.add_argument('--data-dir', default=None, help='Multi30k (default: where tnb-data put it)')
    p.add_argument('--json', default=None, help='write the figures here (results/hf_parity.json)')
    a = p.parse_args(argv)
    if min(a.n, a.beam_n) < 1: p.error('--n and --beam-n must be >= 1')
    limit_threads(1)
    data = Path(a.data_dir) if a.data_dir else find_multi30k(ROOT)
    if data is None: sys.exit("Multi30k not found: give --data-dir")
    with tempfile.TemporaryDirectory() as tmp:
        dirs = {name: direction(name, data, a.n, a.beam_n, Path(tmp)) for name in ('multi30k-de-en', 'multi30k-en-de')}
    out = {'precision': 'float32', 'decoding': {'beam': PAPER_DECODING.beam, 'alpha': PAPER_DECODING.alpha, 'max_extra': PAPER_DECODING.max_extra},
           'directions': dirs, 'hardware': hardware(), 'threads': 1, 'versions': {'torch': torch.__version__, 'transformers': transformers.__version__},
           'commit': git_commit(ROOT), 'command': 'python experiments/hf_parity.py' + (f' --n {a.n}' if a.n != 1000 else '') + (f' --beam-n {a.beam_n}' if a.beam_n != 300 else '') + (f' --json {a.json}' if a.json else '')}
    if a.json: Path(a.json).write_text(json.dumps(out, indent=1, ensure_ascii=False) + '\n', encoding='utf-8'); print(f"wrote {a.json}")

if __name__ == '__main__': main()
