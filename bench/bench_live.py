#!/usr/bin/env python
"""The live translator of the docs site (nbs/live/, A21's explorer) in headless Chromium, one thread, beside PyTorch and
ONNX Runtime in Python on the same test2016 sentences, measured in the same run. Not a test: it prints figures.

It exports the published de→en model to ONNX (int8, as the docs workflow does; `--model-dir` reuses an export), lays out
a minimal site as the docs build does (the explorer's HTML as a page with the hook tools/site_html.py gives it, live/
beside it as vendor.mjs writes it: the modules, ONNX Runtime Web from nbs/live/node_modules and the model as models/de-en/,
gzip copies of the big files), serves it from 127.0.0.1
with Python's http.server (which compresses nothing: the page fetches the gzip copies and decompresses them itself), and
drives Chromium with bench/live_bench.mjs. Printed: the bytes of the first load (after the click) as Chromium's network
records count them, in all and per file beside each file's plain size, and its time, the median greedy milliseconds per
sentence (decoding alone, and the page's whole run with the grid), the same
sentences greedily in PyTorch (`translate`, batch 1, float32) and ONNX Runtime (`onnx_translate`, int8), and the
CPU. With `--screens DIR`, screenshots at 1,400 and 390 px go to DIR.

    npm ci --prefix nbs/live && apt-get install chromium
    python bench/bench_live.py --n 200 --screens screens
"""
import argparse, functools, gzip, http.server, json, os, statistics, subprocess, sys, tempfile, threading, time
from pathlib import Path
import torch
from transformer_nb.machine import hardware, limit_threads
from transformer_nb.explorer import explorer_html, load_explorer

ROOT = Path(__file__).resolve().parents[1]
LIVE = ROOT / 'nbs' / 'live'

def cpu_name() -> str:
    try: return next(l.split(':', 1)[1].strip() for l in subprocess.run(['lscpu'], capture_output=True, text=True).stdout.splitlines() if l.startswith('Model name'))
    except (OSError, StopIteration): return 'unknown CPU'

def site(folder:Path, model_dir:Path) -> Path:
    sys.path.insert(0, str(ROOT / 'tools'))
    from site_html import live_explorer                      # the hook the docs build gives each explorer
    subprocess.run(['node', LIVE / 'vendor.mjs', folder / 'live', f'de-en={model_dir}'], check=True, capture_output=True)
    cell = {'outputs': [{'data': {'text/html': explorer_html(load_explorer())}}]}
    live_explorer(cell)
    (folder / 'index.html').write_text('<!doctype html><html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">'
                                       '<title>A21: the attention explorer</title><link rel="icon" href="data:,"></head><body style="margin:1em">'
                                       f'<h1>The attention explorer</h1>{cell["outputs"][0]["data"]["text/html"]}</body></html>', encoding='utf-8')
    return folder

def plain_size(root:Path, model_dir:Path, f:str) -> int:
    "Bytes of the file that the site's `f` (under live/) is the gzip copy of, or of `f` itself."
    f = f.removesuffix('.gz')
    if f.startswith('models/de-en/'): return (model_dir / f.split('/')[-1]).stat().st_size
    if f.startswith('vendor/') and f.endswith('.wasm'): return (LIVE / 'node_modules' / 'onnxruntime-web' / 'dist' / f.split('/')[-1]).stat().st_size
    return (root / 'live' / f).stat().st_size

def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument('--n', type=int, default=200, help="test2016 sentences (default 200)")
    p.add_argument('--model-dir', default=None, help="an existing `tnb-export --format onnx` folder (default: export int8 now)")
    p.add_argument('--data-dir', default=None)
    p.add_argument('--screens', default=None, help="a folder for the screenshots at 1,400 and 390 px")
    a = p.parse_args(argv)
    limit_threads(1)
    if not (LIVE / 'node_modules' / 'playwright-core').is_dir(): sys.exit("nbs/live's packages are missing: npm ci --prefix nbs/live")
    from transformer_nb.datasets import find_multi30k
    d = Path(a.data_dir) if a.data_dir else find_multi30k(ROOT)
    if d is None: sys.exit("Multi30k not found: --data-dir")
    with gzip.open(d / 'test_2016_flickr.de.gz', 'rt', encoding='utf-8') as f: sents = f.read().splitlines()[:a.n]
    from transformer_nb.export import export_onnx, onnx_translate, OnnxModel
    from transformer_nb.pretrained import load_pretrained
    from transformer_nb.fast_decoding import translate
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        model_dir = Path(a.model_dir) if a.model_dir else export_onnx('pretrained:multi30k-de-en', tmp / 'model')
        root = site(tmp / 'site', model_dir)
        (tmp / 'sents.json').write_text(json.dumps(sents, ensure_ascii=False), encoding='utf-8')
        class Quiet(http.server.SimpleHTTPRequestHandler):
            extensions_map = {**http.server.SimpleHTTPRequestHandler.extensions_map, '.mjs': 'text/javascript', '.wasm': 'application/wasm'}
            def log_message(self, *a): pass
        httpd = http.server.ThreadingHTTPServer(('127.0.0.1', 0), functools.partial(Quiet, directory=str(root)))
        threading.Thread(target=httpd.serve_forever, daemon=True).start()
        if a.screens: Path(a.screens).mkdir(parents=True, exist_ok=True)
        try:
            r = subprocess.run(['node', ROOT / 'bench' / 'live_bench.mjs', f'http://127.0.0.1:{httpd.server_address[1]}/', tmp / 'sents.json',
                                *([str(Path(a.screens).resolve())] if a.screens else [])], capture_output=True, text=True, encoding='utf-8')
        finally: httpd.shutdown(); httpd.server_close()
        if r.returncode: sys.exit(f"live_bench.mjs failed: {r.stderr[-2000:]}")
        js = json.loads(r.stdout)
        quantize = json.loads((model_dir / 'config.json').read_text())['quantize'] or 'float32'
        # each file the click fetched, with its bytes over the wire (Chromium's records) and the plain file's size
        base = f'http://127.0.0.1:{httpd.server_address[1]}/live/'
        files = {u[len(base):]: (n, enc) for u, (n, enc) in js['loadFiles'].items() if u.startswith(base)}
        plain = {f: plain_size(root, model_dir, f) for f in files}
        # the same sentences in Python, one at a time, one thread
        m, tok, _ = load_pretrained('multi30k-de-en')
        translate(m, tok, sents[:1], beam=1, precision='fp32')
        pt = []
        for s in sents:
            t = time.perf_counter(); translate(m, tok, [s], beam=1, precision='fp32'); pt.append(1000 * (time.perf_counter() - t))
        om = OnnxModel(model_dir, threads=1)
        onnx_translate(om, sents[:1])
        ox = []
        for s in sents:
            t = time.perf_counter(); onnx_translate(om, [s]); ox.append(1000 * (time.perf_counter() - t))
    med = statistics.median
    print(f"CPU: {cpu_name()} ({os.cpu_count()} cores); {hardware()}; Chromium headless, ONNX Runtime Web wasm, 1 thread")
    print(f"model: {quantize}; page errors: {len(js['errors'])}; "
          f"requests off 127.0.0.1: {sum(not u.startswith('http://127.0.0.1') for u in js['requests'])}")
    print(f"before the click: {js['bytesBeforeClick'] / 1e3:.0f} kB; the page says: {js['label']!r}")
    encodings = sorted({enc or 'none' for _, enc in files.values()})
    print(f"first load after the click: {js['loadBytes'] / 1e6:.2f} MB over the wire from http.server (Content-Encoding: "
          f"{', '.join(encodings)}{': the server compresses nothing' if encodings == ['none'] else ''}), {sum(plain.values()) / 1e6:.2f} MB once decompressed; "
          f"{js['loadMs'] / 1000:.2f} s from localhost")
    for f, (n, _) in sorted(files.items(), key=lambda x: -x[1][0]): print(f"  {f:42s} {n / 1e6:7.3f} MB over the wire   {plain[f] / 1e6:7.3f} MB plain")
    t = js['times']
    print(f"median greedy ms per sentence over {len(sents)} test2016 sentences (mean {statistics.mean(t['tokens']):.1f} tokens out):")
    print(f"  Chromium, ONNX Runtime Web, decoding alone    {med(t['decode']):7.1f} ms  (p90 {sorted(t['decode'])[int(0.9 * len(sents))]:.0f})")
    print(f"  Chromium, the page's run (yields, the grid)   {med(t['run']):7.1f} ms")
    print(f"  ONNX Runtime, Python, same export             {med(ox):7.1f} ms")
    print(f"  PyTorch {torch.__version__}, translate(), float32      {med(pt):7.1f} ms")
    for k, v in js['tries'].items(): print(f"  reader: {k:22s} box holds {v['typed']:3d} chars -> {v['out']}")

if __name__ == '__main__': main()
