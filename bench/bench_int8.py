#!/usr/bin/env python
"""What int8 weights change, for each published translator, decoded as the page decodes it: the int8 ONNX export against
the float32 one, with the export's own decoding (beam 4, alpha 0.6: config.json's), one sentence at a time, one thread,
on Multi30k's 1,000 test2016 sentences. The page quotes these figures under each direction (nbs/live/app.mjs,
INT8_NOTES; tests/test_live.py compares them with the file).

Not a test: it prints figures and, with --json, stores them (results/int8.json).

    nice python bench/bench_int8.py --json results/int8.json                 # both directions, ~10 minutes on 2 cores
    python bench/bench_int8.py --n 20 --models de-en                          # a quick trial

For each direction: how many of the `--n` translations the int8 export changes against the float32 export, each one's
BLEU (sacreBLEU, cased, detokenized) and sacreBLEU's paired bootstrap of int8 against float32 (its p-value: the chance of
a difference this large if int8 changed nothing).
"""
import argparse, atexit, datetime, json, shutil, tempfile, time
from pathlib import Path
from _common import ROOT, multi30k_file, command, load_average
from transformer_nb.lib.machine import hardware, git_commit, limit_threads
from transformer_nb.lib.checkpoints import open_checkpoint
from transformer_nb.lib.datasets import read_lines
from transformer_nb.evaluation import corpus_scores
from transformer_nb.lib.significance import _paired_bootstrap
from transformer_nb.apps.export import export_onnx, OnnxModel, onnx_translate

LANGS = {'de': 'German', 'en': 'English'}

def measure(checkpoint:str, src:list[str], ref:list[str], tmp:Path) -> dict:
    "One translator's int8 export against its float32 one, each decoding `src` by the export's decoding (the page's)."
    c = open_checkpoint(checkpoint)
    m32, m8 = OnnxModel(export_onnx(c, tmp / 'fp32', quantize=None)), OnnxModel(export_onnx(c, tmp / 'int8'))
    t0 = time.time()
    outs = {'float32': onnx_translate(m32, src), 'int8': onnx_translate(m8, src)}
    seconds = time.time() - t0
    boot = _paired_bootstrap(ref, outs['float32'], outs['int8'], metric='bleu')
    return {'checkpoint': checkpoint, 'decoding': {'beam': m8.decoding.beam, 'alpha': m8.decoding.alpha},
            'n_sentences': len(src), 'changed': sum(a != b for a, b in zip(outs['float32'], outs['int8'])),
            'bleu': {k: round(corpus_scores(v, ref)['bleu'], 2) for k, v in outs.items()},
            'bootstrap': boot, 'seconds': round(seconds, 1)}

def main(argv=None):
    p = argparse.ArgumentParser(allow_abbrev=False, description=__doc__.split('\n\n')[0])
    p.add_argument('--models', nargs='+', default=['de-en', 'en-de'], choices=['de-en', 'en-de'],
                   help="the published translators to measure, as pretrained:multi30k-SRC-TGT (default: both)")
    p.add_argument('--checkpoint', help="measure this checkpoint instead (one of --models gives its languages)")
    p.add_argument('--data-dir', help="the Multi30k folder (default: $TNB_MULTI30K or shared/data/multi30k above the repository)")
    p.add_argument('--n', type=int, default=1000, help="test2016 sentences (default: all 1000)")
    p.add_argument('--json', help="store the figures here (e.g. results/int8.json)")
    a = p.parse_args(argv)
    if a.n < 1: p.error(f"--n must be >= 1, not {a.n}")
    if a.checkpoint and len(a.models) != 1: p.error("--checkpoint measures one model: give its languages with one --models")
    limit_threads(1)
    tmp = Path(tempfile.mkdtemp(prefix='bench_int8')); atexit.register(shutil.rmtree, tmp, True)   # the exports go at exit
    load_before, rows = load_average(), {}
    print(f"{hardware()}; 1 thread; {a.n} test2016 sentences a direction", flush=True)
    for name in a.models:
        s, t = name.split('-')
        src = read_lines(multi30k_file(f'test_2016_flickr.{s}.gz', a.data_dir))[:a.n]
        ref = read_lines(multi30k_file(f'test_2016_flickr.{t}.gz', a.data_dir))[:a.n]
        r = rows[name] = measure(a.checkpoint or f'pretrained:multi30k-{name}', src, ref, tmp / name)
        print(f"{LANGS[s]} → {LANGS[t]} (beam {r['decoding']['beam']}): int8 changes {r['changed']} of {r['n_sentences']} translations; "
              f"BLEU {r['bleu']['float32']:.2f} (float32) → {r['bleu']['int8']:.2f} (int8), paired bootstrap p = {r['bootstrap']['p_value']:.3g}; "
              f"{r['seconds']:.0f} s", flush=True)
    rec = {'hardware': hardware(), 'threads': 1, 'commit': git_commit(ROOT), 'date': datetime.date.today().isoformat(),
           'command': command('bench_int8.py', argv), 'load_average_before': load_before, 'load_average_after': load_average(),
           'models': rows}
    if a.json:
        out = Path(a.json); tmp_json = out.with_name(out.name + '.tmp')
        tmp_json.write_text(json.dumps(rec, indent=1) + '\n', encoding='utf-8'); tmp_json.replace(out)   # whole, or not at all
        print(f"stored in {out}")

if __name__ == '__main__': main()
