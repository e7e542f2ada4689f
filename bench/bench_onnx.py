#!/usr/bin/env python
"""The ONNX export on Multi30k test2016 de->en (apps_export): parity with our greedy and beam decoding, BLEU, sizes, and
speed beside ours and CTranslate2's, one sentence at a time (the way the page decodes), one thread.

Not a test: it prints figures and, with --json, stores them (results/onnx.json, shown in apps_export and lib_benchmarks).

    nice python bench/bench_onnx.py --json results/onnx.json                    # pretrained:multi30k-de-en, ~10 minutes
    python bench/bench_onnx.py --n 50 --speed-n 20 --repeats 1                  # a quick trial

Parity, on all `--n` sentences: `onnx_translate` (ONNX Runtime, greedy, the cached decoder step) of the float32 and the
int8 export against `translate(..., beam=1, precision='fp32')`, which is `tnb-translate --beam 1 --precision fp32` (and
against `precision='auto'`, what `tnb-translate --beam 1` picks on this CPU); the float32 export's beam search (beam 4,
alpha 0.6) against `tnb-translate --precision fp32`'s; BLEU (sacreBLEU, cased) of each greedy system, and sacreBLEU's
paired bootstrap of each export against ours.

Speed, on the first `--speed-n` sentences: each system translates them one sentence at a time, from text to text
(tokenization included), `--repeats` times in turn (round robin, the order rotating); the median sentences/s is
reported, with ratios between medians of the same run. The machine may be shared: the load average before and after
is stored with the figures. Systems, greedy: ours (PyTorch, float32, the fast cached greedy decoder that `translate`
uses), ONNX Runtime float32 and int8 (the exported decoder step with its cache, as the page runs it), and CTranslate2
float32 and int8 (`ctranslate2_translate`) when `ctranslate2` is installed.
"""
import argparse, atexit, datetime, gzip, json, shutil, statistics, sys, tempfile, time
from pathlib import Path
from _common import ROOT, multi30k_file, command, load_average
from transformer_nb.lib.machine import hardware, git_commit, limit_threads
from transformer_nb.lib.checkpoints import open_checkpoint
from transformer_nb.lib.datasets import read_lines
from transformer_nb.evaluation import corpus_scores
from transformer_nb.lib.significance import _paired_bootstrap
from transformer_nb.lib.fast_decoding import translate
from transformer_nb.lib.options import Decoding
from transformer_nb.apps.export import export_onnx, OnnxModel, onnx_translate

def main(argv=None):
    p = argparse.ArgumentParser(allow_abbrev=False, description=__doc__.split('\n\n')[0])
    p.add_argument('--checkpoint', default='pretrained:multi30k-de-en')
    p.add_argument('--data-dir', help="the Multi30k folder (default: $TNB_MULTI30K or shared/data/multi30k above the repository)")
    p.add_argument('--n', type=int, default=1000, help="test2016 sentences for parity and BLEU (default: all 1000)")
    p.add_argument('--speed-n', type=int, default=200, help="sentences timed per repeat (default 200)")
    p.add_argument('--repeats', type=int, default=3)
    p.add_argument('--no-ctranslate2', action='store_true')
    p.add_argument('--json', help="store the figures here (e.g. results/onnx.json)")
    a = p.parse_args(argv)
    if min(a.n, a.speed_n, a.repeats) < 1: p.error("--n, --speed-n and --repeats must be >= 1")
    limit_threads(1)
    src = read_lines(multi30k_file('test_2016_flickr.de.gz', a.data_dir))[:a.n]
    ref = read_lines(multi30k_file('test_2016_flickr.en.gz', a.data_dir))[:a.n]
    c = open_checkpoint(a.checkpoint)                                   # a file, a run folder or pretrained:NAME, read once
    model, tok = c.model('cpu').float().eval(), c.tokenizer
    tmp = Path(tempfile.mkdtemp(prefix='bench_onnx')); atexit.register(shutil.rmtree, tmp, True)   # the exports go at exit
    d32, d8 = export_onnx(c, tmp / 'fp32', quantize=None), export_onnx(c, tmp / 'int8')
    m32, m8 = OnnxModel(d32), OnnxModel(d8)
    graphs = lambda d: ['encoder.onnx', 'decoder.onnx'] + (['embedding.bin'] if (d / 'embedding.bin').is_file() else [])   # the table both read
    size = lambda d: sum((d / f).stat().st_size for f in graphs(d))
    gz = lambda d: sum(len(gzip.compress((d / f).read_bytes(), 6)) for f in graphs(d))
    sizes = {'int8': {'bytes': size(d8), 'gzip6_bytes': gz(d8)}, 'float32': {'bytes': size(d32), 'gzip6_bytes': gz(d32)},
             'tokenizer_json_bytes': (d8 / 'tokenizer.json').stat().st_size}

    systems = {'ours': lambda xs: translate(model, tok, xs, beam=1, precision='fp32'),
               'onnxruntime float32': lambda xs: onnx_translate(m32, xs, beam=1), 'onnxruntime int8': lambda xs: onnx_translate(m8, xs, beam=1)}
    ct2 = None
    if not a.no_ctranslate2:
        try: import ctranslate2 as ct2
        except ImportError: print("ctranslate2 not installed: its rows are left out", file=sys.stderr)
    if ct2 is not None:
        from transformer_nb.apps.export import export_ctranslate2, load_ctranslate2, ctranslate2_translate
        for q in ('float32', 'int8'):
            tr, ctok, meta = load_ctranslate2(export_ctranslate2(c, tmp / f'ct2-{q}', quantization=q), threads=1)
            systems[f'ctranslate2 {q}'] = (lambda tr, ctok, meta: lambda xs: ctranslate2_translate(tr, ctok, xs, Decoding(beam=1), meta=meta))(tr, ctok, meta)

    print(f"{hardware()}; 1 thread; {len(src)} test2016 sentences for parity, {min(a.speed_n, len(src))} timed x {a.repeats}",
          flush=True)
    t0 = time.time()
    outs = {'ours': systems['ours'](src), 'ours (auto precision)': translate(model, tok, src, beam=1),
            'onnxruntime float32': systems['onnxruntime float32'](src), 'onnxruntime int8': systems['onnxruntime int8'](src)}
    beam = {'ours': translate(model, tok, src, precision='fp32'), 'onnxruntime float32': onnx_translate(m32, src)}   # beam 4, alpha 0.6
    print(f"parity decodes: {time.time() - t0:.0f}s", flush=True)
    same = lambda x, y: sum(a == b for a, b in zip(outs[x], outs[y]))
    bleu = {k: corpus_scores(v, ref)['bleu'] for k, v in outs.items()}
    boot = {k: _paired_bootstrap(ref, outs['ours'], outs[k], metric='bleu') for k in ('onnxruntime float32', 'onnxruntime int8')}
    parity = {'n_sentences': len(src),
              'identical_fp32': same('onnxruntime float32', 'ours'), 'identical_int8': same('onnxruntime int8', 'ours'),
              'identical_fp32_vs_auto': same('onnxruntime float32', 'ours (auto precision)'),
              'auto_precision_identical_to_fp32': same('ours (auto precision)', 'ours'),
              'identical_fp32_beam4': sum(x == y for x, y in zip(beam['onnxruntime float32'], beam['ours'])),
              'bleu': bleu, 'bootstrap': boot}

    speed_src, load_before, times = src[:a.speed_n], load_average(), {k: [] for k in systems}
    names = list(systems)
    for r in range(a.repeats):
        for k in names[r % len(names):] + names[:r % len(names)]:            # round robin, each repeat starting elsewhere
            t = time.perf_counter()
            for s in speed_src: systems[k]([s])
            times[k].append(len(speed_src) / (time.perf_counter() - t))
    load_after = load_average()
    speed = {k: {'sentences_per_s': round(statistics.median(v), 2), 'runs': [round(x, 2) for x in v],
                 'ms_per_sentence': round(1000 / round(statistics.median(v), 2), 1)} for k, v in times.items()}   # the rate as stored
    rec = {'checkpoint': a.checkpoint, 'hardware': hardware(), 'threads': 1, 'commit': git_commit(ROOT),
           'date': datetime.date.today().isoformat(), 'command': command('bench_onnx.py', argv),
           'versions': json.loads((d8 / 'config.json').read_text())['provenance'] | ({'ctranslate2': ct2.__version__} if ct2 else {}),
           'sizes': sizes, 'parity': parity,
           'speed': {'n_sentences': len(speed_src), 'repeats': a.repeats, 'load_average_before': load_before,
                     'load_average_after': load_after, 'shared_machine': True, 'systems': speed}}
    rec['versions'] = {k: v for k, v in rec['versions'].items() if k in ('transformer_nb', 'torch', 'onnx', 'onnxruntime', 'ctranslate2')}

    n = parity['n_sentences']
    print(f"sizes (encoder + decoder + embedding.bin): int8 {sizes['int8']['bytes'] / 1e6:.2f} MB ({sizes['int8']['gzip6_bytes'] / 1e6:.2f} MB gzip), "
          f"float32 {sizes['float32']['bytes'] / 1e6:.2f} MB")
    print(f"identical to ours (fp32 greedy): float32 export {parity['identical_fp32']}/{n}, int8 {parity['identical_int8']}/{n}; "
          f"beam 4: float32 export {parity['identical_fp32_beam4']}/{n}")
    for k in ('onnxruntime float32', 'onnxruntime int8'):
        b = boot[k]; print(f"BLEU {k}: {b['system']} vs ours {b['baseline']} (delta {b['delta']:+.2f}, p = {b['p_value']})")
    print(f"speed, {len(speed_src)} sentences one at a time, median of {a.repeats}, load average {load_before[0]} -> {load_after[0]} "
          f"(a shared machine):")
    for k, v in speed.items():
        print(f"  {k:22} {v['sentences_per_s']:7.1f} sentences/s  {v['ms_per_sentence']:6.1f} ms/sentence  "
              f"{v['sentences_per_s'] / speed['ours']['sentences_per_s']:.2f}x ours")
    if a.json:
        Path(a.json).write_text(json.dumps(rec, indent=1) + '\n', encoding='utf-8'); print(f"wrote {a.json}")

if __name__ == '__main__': main()
