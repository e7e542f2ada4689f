#!/usr/bin/env python
"""The live translator of the docs site (nbs/live/) in headless Chromium, one thread, int8, on Multi30k test2016 de->en:
the milliseconds of each sentence, greedy and beam 4, and the bytes of the first load. Not a test: it prints figures and,
with --json, stores them beside the targets (results/live_bench.json).

    npm ci --prefix nbs/live && apt-get install chromium
    nice python bench/bench_live.py --json results/live_bench.json            # all 1,000 sentences, ~5 minutes

It exports the published de→en model as the docs workflow does (`tnb-export --format onnx`, int8; `--model-dir` reuses an
export), lays out the site's live/ folder as vendor.mjs writes it (the page's modules, ONNX Runtime Web from
nbs/live/node_modules and the model as models/de-en/, gzip copies of the big files) beside a page that loads them as
the site's page does, serves it
from 127.0.0.1 with Python's http.server (which compresses nothing: the page fetches the gzip copies and decompresses
them itself), and drives Chromium with bench/live_bench.mjs. Each sentence is timed from text to text through
`Translator.translate` (tokenizing, the encoder, every decoder step, the explorer's weights), after a warm-up, greedy
over all of them, then beam 4. The machine may be shared: the load average before and after is stored with the figures,
with the CPU.
"""
import argparse, datetime, functools, gzip, http.server, json, os, shutil, statistics, subprocess, sys, tempfile, threading
from pathlib import Path
from _common import ROOT, multi30k_file, command, load_average
from transformer_nb.lib.machine import hardware, git_commit

LIVE = ROOT / 'nbs' / 'live'
TARGETS = {'greedy': {'median_ms': 40, 'p95_ms': 80, 'max_ms': 250}, 'beam4': {'p95_ms': 250}, 'load_bytes': 12_000_000}

PAGE = """<!doctype html><html><head><meta charset="utf-8"><title>live translator bench</title><link rel="icon" href="data:,">
<script type="module">
// What the site's page does on the click: ONNX Runtime Web and the model from live/, their gzip copies decompressed here
import { Translator, fetchBytes, gunzip } from './live/translator.mjs';
try {
  const t0 = performance.now(), base = new URL('./live/', location.href);
  const [files, config] = await Promise.all(['vendor/files.json', 'models/de-en/config.json'].map(async f => (await fetch(new URL(f, base))).json()));
  const model = 'models/de-en/', gz = Object.fromEntries(Object.entries(files.bytes).filter(([f]) => f.startsWith(model) && f.endsWith('.gz'))
                                                               .map(([f, n]) => [f.slice(model.length, -3), n]));
  const ort = (async () => {
    const ort = await import(new URL('vendor/ort.wasm.min.mjs', base).href);
    ort.env.wasm.numThreads = 1; ort.env.wasm.wasmPaths = new URL('vendor/', base).href; ort.env.logLevel = 'error';
    ort.env.wasm.wasmBinary = await gunzip(await fetchBytes(new URL('vendor/ort-wasm-simd-threaded.wasm.gz', base).href));
    return ort;
  })();
  const translator = await Translator.load(ort, new URL(model, base).href, { config, gz });
  window.tnbBench = { translator, loadMs: performance.now() - t0 };
} catch (e) { window.tnbBenchError = String(e); }
</script></head><body>live translator bench</body></html>"""

def cpu_name() -> str:
    try: return next(l.split(':', 1)[1].strip() for l in subprocess.run(['lscpu'], capture_output=True, text=True).stdout.splitlines() if l.startswith('Model name'))
    except (OSError, StopIteration): return 'unknown CPU'

def site(folder:Path, model_dir:Path) -> Path:
    "live/ as the docs build lays it out (vendor.mjs: the page's modules, vendor/, models/de-en/ with gzip copies), and the bench's page beside it."
    subprocess.run(['node', LIVE / 'vendor.mjs', folder / 'live', f'de-en={model_dir}'], check=True, capture_output=True)
    (folder / 'index.html').write_text(PAGE, encoding='utf-8')
    return folder

def plain_size(root:Path, model_dir:Path, f:str) -> int:
    "Bytes of the file whose gzip copy the site serves as `f` (live/...), or of `f` itself: the site holds only the copies."
    name = f.removesuffix('.gz').split('/')[-1]
    if f.startswith('live/models/de-en/'): return (model_dir / name).stat().st_size
    if f.startswith('live/vendor/') and name.endswith('.wasm'): return (LIVE / 'node_modules' / 'onnxruntime-web' / 'dist' / name).stat().st_size
    return (root / f).stat().st_size

def pct(xs:list, q:float) -> float:
    "The q-quantile of xs (linear between the closest ranks, as numpy's default)."
    s = sorted(xs); i = q * (len(s) - 1); lo = int(i)
    return s[lo] + (s[min(lo + 1, len(s) - 1)] - s[lo]) * (i - lo)

def summary(run:dict) -> dict:
    "A decoding's figures: the milliseconds measured (wall clock, as a reader waits), and the renderer's CPU time for the"
    " whole run, whose share of the wall time says how much of a core the shared machine gave it."
    ms, steps = run['ms'], run['steps']
    share = run['cpuSeconds'] / run['wallSeconds']
    return {'median_ms': round(statistics.median(ms), 1), 'p95_ms': round(pct(ms, 0.95), 1), 'max_ms': round(max(ms), 1),
            'mean_ms': round(statistics.fmean(ms), 1), 'ms_per_step': round(sum(ms) / max(1, sum(steps)), 2),
            'median_steps': statistics.median(steps), 'max_steps': max(steps),
            'cpu_ms_per_sentence': round(1000 * run['cpuSeconds'] / len(ms), 1), 'cpu_share_of_wall': round(share, 2)}

def main(argv=None):
    p = argparse.ArgumentParser(allow_abbrev=False, description=__doc__.split('\n\n')[0])
    p.add_argument('--n', type=int, default=1000, help="test2016 sentences (default: all 1,000)")
    p.add_argument('--model-dir', default=None, help="an existing `tnb-export --format onnx` folder (default: export int8 now)")
    p.add_argument('--data-dir', default=None, help="the Multi30k folder (default: $TNB_MULTI30K or shared/data/multi30k above the repository)")
    p.add_argument('--json', help="store the figures here (e.g. results/live_bench.json)")
    a = p.parse_args(argv)
    if a.n < 1: p.error("--n must be >= 1")
    if not (LIVE / 'node_modules' / 'playwright-core').is_dir(): sys.exit("nbs/live's packages are missing: npm ci --prefix nbs/live")
    if shutil.which('chromium') is None and not os.environ.get('CHROMIUM'): sys.exit("chromium is not installed (apt-get install chromium)")
    sents = [s for s in gzip.open(multi30k_file('test_2016_flickr.de.gz', a.data_dir), 'rt', encoding='utf-8').read().splitlines()][:a.n]
    from transformer_nb.apps.export import export_onnx
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        model_dir = Path(a.model_dir) if a.model_dir else export_onnx('pretrained:multi30k-de-en', tmp / 'model')
        config = json.loads((model_dir / 'config.json').read_text(encoding='utf-8'))
        root = site(tmp / 'site', model_dir)
        (tmp / 'sents.json').write_text(json.dumps(sents, ensure_ascii=False), encoding='utf-8')
        class Quiet(http.server.SimpleHTTPRequestHandler):
            extensions_map = {**http.server.SimpleHTTPRequestHandler.extensions_map, '.mjs': 'text/javascript', '.wasm': 'application/wasm'}
            def log_message(self, *a): pass
        httpd = http.server.ThreadingHTTPServer(('127.0.0.1', 0), functools.partial(Quiet, directory=str(root)))
        threading.Thread(target=httpd.serve_forever, daemon=True).start()
        load_before = load_average()
        try:
            r = subprocess.run(['node', ROOT / 'bench' / 'live_bench.mjs', f'http://127.0.0.1:{httpd.server_address[1]}/', tmp / 'sents.json'],
                               capture_output=True, text=True, encoding='utf-8')
        finally: httpd.shutdown(); httpd.server_close()
        load_after = load_average()
        if r.returncode: sys.exit(f"live_bench.mjs failed: {r.stderr[-2000:]}")
        js = json.loads(r.stdout)
        if js['errors']: sys.exit(f"the page failed: {js['errors'][:3]}")
        files = {f: n for f, n in js['files'].items() if f.startswith('live/')}
        plain = {f: plain_size(root, model_dir, f) for f in files}
    runs = {k: summary(v) for k, v in js['runs'].items()}
    met = {'greedy': all(runs['greedy'][k] <= v for k, v in TARGETS['greedy'].items()),
           'beam4': all(runs['beam4'][k] <= v for k, v in TARGETS['beam4'].items()), 'load_bytes': js['loadBytes'] <= TARGETS['load_bytes']}
    rec = {'model': 'pretrained:multi30k-de-en', 'quantize': config['quantize'] or 'float32', 'n_sentences': len(sents),
           'cpu': cpu_name(), 'hardware': hardware(), 'threads': 1, 'browser': f"Chromium {js['browser']} (headless)",
           'onnxruntime_web': json.loads((LIVE / 'package.json').read_text())['dependencies']['onnxruntime-web'],
           'commit': git_commit(ROOT), 'date': datetime.date.today().isoformat(), 'command': command('bench_live.py', argv),
           'load_average_before': load_before, 'load_average_after': load_after, 'shared_machine': True,
           'load': {'bytes': js['loadBytes'], 'ms': round(js['loadMs']), 'files': {f: {'bytes': n, 'plain_bytes': plain[f]} for f, n in sorted(files.items())}},
           'targets': TARGETS, 'met': met, 'decoding': runs,
           'sentences': {k: {'ms': v['ms'], 'steps': v['steps']} for k, v in js['runs'].items()}}
    print(f"{rec['cpu']}, {rec['browser']}, 1 thread, {rec['quantize']}, {len(sents)} test2016 sentences, "
          f"load average {load_before[0]} -> {load_after[0]}")
    print(f"first load: {js['loadBytes'] / 1e6:.2f} MB over the wire in {js['loadMs'] / 1000:.1f} s (target <= 12 MB: {'met' if met['load_bytes'] else 'NOT met'})")
    for k, v in runs.items():
        t = ', '.join(f"{x.removesuffix('_ms')} <= {y}" for x, y in TARGETS[k].items())
        print(f"{k:7}: median {v['median_ms']} ms, p95 {v['p95_ms']} ms, max {v['max_ms']} ms, {v['ms_per_step']} ms per step "
              f"(targets {t}: {'met' if met[k] else 'NOT met'}); CPU {v['cpu_ms_per_sentence']} ms per sentence, "
              f"{v['cpu_share_of_wall']:.0%} of the wall time")
    if a.json:
        path = Path(a.json)                                  # bench_live_node.py's A/B, stored in the same file, is kept
        kept = {k: v for k, v in (json.loads(path.read_text(encoding='utf-8')) if path.exists() else {}).items() if k == 'node_ab'}
        path.write_text(json.dumps({**rec, **kept}, indent=1) + '\n', encoding='utf-8'); print(f"wrote {a.json}")

if __name__ == '__main__': main()
