#!/usr/bin/env python
"""The Hugging Face export (apps_export's `export_hf`) beside the ONNX Runtime and CTranslate2 exports of the same checkpoint,
on one machine in one run: sizes on disk, and greedy speed on one thread, one sentence at a time from text to text.

Not a test: it prints figures and, with --json, stores them (results/hf_speed.json, shown in apps_export).

    nice python bench/bench_hf.py --json results/hf_speed.json                   # pretrained:multi30k-de-en, ~10 minutes
    python bench/bench_hf.py --speed-n 20 --repeats 1                            # a quick trial

Each system translates the first `--speed-n` lines of test2016 one at a time (tokenization included), `--repeats` times
in turn (round robin, the order rotating); the median sentences/s is reported, with ratios to ours (PyTorch, float32,
`translate`'s cached greedy decoder) from the same run. transformers: `hf_translate` (greedy `generate`, float32). Beam 4
on the first `--beam-n`: `generate`'s own search by the folder's defaults against `hf_translate`'s (the whole beam, searched
until no beam can overtake it, ranked by §6.1's penalty): what §6.1's ranking costs.
ONNX Runtime float32 and int8: `onnx_translate`. CTranslate2 float32 and int8: `ctranslate2_translate`. The machine may be
shared: the load average before and after is stored with the figures.
"""
import argparse, atexit, datetime, gzip, json, shutil, statistics, tempfile, time
from pathlib import Path
import torch
from _common import ROOT, multi30k_file, command, load_average
from transformer_nb.lib.machine import hardware, git_commit, limit_threads
from transformer_nb.lib.checkpoints import open_checkpoint
from transformer_nb.lib.datasets import read_lines
from transformer_nb.lib.fast_decoding import translate
from transformer_nb.lib.options import Decoding
from transformer_nb.apps.export import (export_hf, load_hf, hf_translate, export_onnx, OnnxModel, onnx_translate,
                                        export_ctranslate2, load_ctranslate2, ctranslate2_translate)

def main(argv=None):
    import transformers, onnxruntime, ctranslate2
    p = argparse.ArgumentParser(allow_abbrev=False, description=__doc__.split('\n\n')[0])
    p.add_argument('--checkpoint', default='pretrained:multi30k-de-en')
    p.add_argument('--data-dir', help="the Multi30k folder (default: $TNB_MULTI30K or shared/data/multi30k above the repository)")
    p.add_argument('--speed-n', type=int, default=100, help="sentences timed per repeat (default 100)")
    p.add_argument('--beam-n', type=int, default=50, help="sentences timed per repeat with beam search (default 50)")
    p.add_argument('--repeats', type=int, default=3)
    p.add_argument('--json', help="store the figures here (e.g. results/hf_speed.json)")
    a = p.parse_args(argv)
    if min(a.speed_n, a.beam_n, a.repeats) < 1: p.error("--speed-n, --beam-n and --repeats must be >= 1")
    limit_threads(1)
    src = read_lines(multi30k_file('test_2016_flickr.de.gz', a.data_dir))[:a.speed_n]
    c = open_checkpoint(a.checkpoint)
    model, tok = c.model('cpu').float().eval(), c.tokenizer
    tmp = Path(tempfile.mkdtemp(prefix='bench_hf')); atexit.register(shutil.rmtree, tmp, True)
    hf, o32, o8 = export_hf(c, tmp / 'hf'), export_onnx(c, tmp / 'onnx-fp32', quantize=None), export_onnx(c, tmp / 'onnx-int8')
    ct = {q: export_ctranslate2(c, tmp / f'ct2-{q}', quantization=q) for q in ('float32', 'int8')}
    weights = {'transformers float32': (hf, ['model.safetensors']),
               'onnxruntime float32': (o32, ['encoder.onnx', 'decoder.onnx']), 'onnxruntime int8': (o8, ['encoder.onnx', 'decoder.onnx', 'embedding.bin']),
               'ctranslate2 float32': (ct['float32'], ['model.bin']), 'ctranslate2 int8': (ct['int8'], ['model.bin'])}
    sizes = {k: {'bytes': sum((d / f).stat().st_size for f in fs if (d / f).is_file()),
                 'gzip6_bytes': sum(len(gzip.compress((d / f).read_bytes(), 6)) for f in fs if (d / f).is_file()),
                 'folder_bytes': sum(q.stat().st_size for q in d.iterdir())} for k, (d, fs) in weights.items()}
    hm, m32, m8 = load_hf(hf), OnnxModel(o32), OnnxModel(o8)
    cts = {q: load_ctranslate2(d, threads=1) for q, d in ct.items()}
    greedy = Decoding(beam=1)
    systems = {'ours': lambda xs: translate(model, tok, xs, beam=1, precision='fp32'),
               'transformers float32': lambda xs: hf_translate(hm, xs, beam=1),
               'onnxruntime float32': lambda xs: onnx_translate(m32, xs, beam=1), 'onnxruntime int8': lambda xs: onnx_translate(m8, xs, beam=1),
               **{f'ctranslate2 {q}': (lambda t: lambda xs: ctranslate2_translate(t[0], t[1], xs, greedy, meta=t[2]))(cts[q]) for q in cts}}
    def generate(xs):                                                 # generate's own beam search, by the folder's defaults, each line its §6.1 cap
        m, t, _ = hm; outs = []
        for x in xs:
            ids = t(x.strip(), return_tensors='pt')['input_ids']
            with torch.no_grad(): outs.append(t.decode(m.generate(ids, max_new_tokens=ids.shape[1] + 50)[0], skip_special_tokens=True))
        return outs
    beam_systems = {'transformers beam 4, generate': generate, 'transformers beam 4, GNMT-ranked': lambda xs: hf_translate(hm, xs)}
    print(f"{hardware()}; 1 thread; {len(src)} test2016 sentences timed x {a.repeats}", flush=True)
    load_before, times, names = load_average(), {k: [] for k in systems}, list(systems)
    for r in range(a.repeats):
        for k in names[r % len(names):] + names[:r % len(names)]:            # round robin, each repeat starting elsewhere
            t = time.perf_counter()
            for s in src: systems[k]([s])
            times[k].append(len(src) / (time.perf_counter() - t))
    beam_src, beam_times = src[:a.beam_n], {k: [] for k in beam_systems}
    for r in range(a.repeats):                                            # beam search: generate's own ranking against §6.1's (hf_translate)
        for k in (list(beam_systems) if r % 2 == 0 else list(beam_systems)[::-1]):
            t = time.perf_counter()
            for s in beam_src: beam_systems[k]([s])
            beam_times[k].append(len(beam_src) / (time.perf_counter() - t))
    load_after = load_average()
    speed = {k: {'sentences_per_s': round(statistics.median(v), 2), 'runs': [round(x, 2) for x in v],
                 'ms_per_sentence': round(1000 / round(statistics.median(v), 2), 1)} for k, v in times.items()}
    for k, v in speed.items(): v['ratio_to_ours'] = round(v['sentences_per_s'] / speed['ours']['sentences_per_s'], 2)
    rec = {'checkpoint': a.checkpoint, 'hardware': hardware(), 'threads': 1, 'commit': git_commit(ROOT),
           'date': datetime.date.today().isoformat(), 'command': command('bench_hf.py', argv),
           'versions': {'torch': torch.__version__, 'transformers': transformers.__version__, 'onnxruntime': onnxruntime.__version__,
                        'ctranslate2': ctranslate2.__version__},
           'sizes': sizes,
           'speed': {'n_sentences': len(src), 'repeats': a.repeats, 'decoding': 'greedy', 'load_average_before': load_before,
                     'load_average_after': load_after, 'shared_machine': True, 'systems': speed},
           'beam_speed': {'n_sentences': len(beam_src), 'repeats': a.repeats, 'decoding': 'beam 4, alpha 0.6',
                          'systems': {k: {'sentences_per_s': round(statistics.median(v), 2), 'runs': [round(x, 2) for x in v]} for k, v in beam_times.items()}}}
    g, h = (rec['beam_speed']['systems'][k]['sentences_per_s'] for k in beam_systems)
    rec['beam_speed']['gnmt_ranked_time_ratio'] = round(g / h, 2)          # how much longer §6.1's ranking takes than generate's own
    for k, v in sizes.items(): print(f"  {k:22} weights {v['bytes'] / 1e6:6.2f} MB ({v['gzip6_bytes'] / 1e6:.2f} MB gzip), folder {v['folder_bytes'] / 1e6:.2f} MB")
    print(f"speed, {len(src)} sentences one at a time, median of {a.repeats}, load average {load_before[0]} -> {load_after[0]} (a shared machine):")
    for k, v in speed.items(): print(f"  {k:22} {v['sentences_per_s']:7.1f} sentences/s  {v['ms_per_sentence']:6.1f} ms/sentence  {v['ratio_to_ours']:.2f}x ours")
    print(f"beam 4, {len(beam_src)} sentences: generate {g:.2f} sentences/s, GNMT-ranked (hf_translate) {h:.2f}: {g / h:.2f}x the time")
    if a.json: Path(a.json).write_text(json.dumps(rec, indent=1) + '\n', encoding='utf-8'); print(f"wrote {a.json}")

if __name__ == '__main__': main()
