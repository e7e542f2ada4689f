#!/usr/bin/env python
"""The page's translator before a change against the working tree's, under Node, on the 20 longest sentences of
Multi30k's test2016 (German), int8 export of the published de->en model, the export's beam (4), one thread: an
interleaved A/B (bench/live_node.mjs). Not a test: it prints each sentence's milliseconds both ways and, with --json,
stores them under `node_ab` in results/live_bench.json, beside what bench_live.py measured in Chromium (kept).
    npm ci --prefix nbs/live
    nice python bench/bench_live_node.py --base 71c6fe8 --json results/live_bench.json
A is the page as it was at commit BASE: `git archive BASE` of nbs/live, of the package and of the published model, and
the int8 export that package writes (its graphs are part of what the page runs); B the working tree's nbs/live with the
export of the working tree's package (made now, or --model-dir).
Each sentence's figure is its median wall-clock time over the rounds and its least CPU time (the process's, as the work
costs when nothing else competes): on a shared machine the wall clock holds other programs' time slices, so the target
(at most 60 ms a sentence) is read on the CPU time, the wall time stored beside it with the load average.
"""
import argparse, datetime, gzip, json, os, statistics, subprocess, sys, tarfile, tempfile, io
from pathlib import Path
from _common import ROOT, multi30k_file, command, load_average
from transformer_nb.lib.machine import hardware, git_commit
LIVE = ROOT / 'nbs' / 'live'
TARGET_MS = 60

def longest(n:int, data_dir=None) -> list[str]:
    "The n longest test2016 German sentences (in characters), longest first; ties in file order."
    src = gzip.open(multi30k_file('test_2016_flickr.de.gz', data_dir), 'rt', encoding='utf-8').read().splitlines()
    return [src[i] for i in sorted(range(len(src)), key=lambda i: (-len(src[i]), i))[:n]]

MODEL = 'models/multi30k-de-en.pt'    # the published model's file, as the clone holds it (pretrained:multi30k-de-en)
# The int8 export written by the package of the tree `sys.argv[1]` (not the installed one) into `sys.argv[2]`
BASE_EXPORT = """import sys
sys.meta_path = [f for f in sys.meta_path if 'editable' not in repr(f).lower()]   # the installed package's finder: not this one
sys.path.insert(0, sys.argv[1])
from transformer_nb.apps import export
assert export.__file__.startswith(sys.argv[1]), export.__file__
export.export_onnx('pretrained:multi30k-de-en', sys.argv[2])
"""

def page_at(base:str, dest:Path) -> tuple[Path, Path]:
    "(nbs/live, its int8 export) at commit `base`: its page modules (the npm packages are the working tree's, linked) and the"
    " export its package writes of the published model it held."
    r = subprocess.run(['git', '-C', str(ROOT), 'archive', base, 'nbs/live', 'transformer_nb', MODEL], capture_output=True)
    if r.returncode: sys.exit(f"bench_live_node.py: --base {base}: git archive failed ({r.stderr.decode(errors='replace').strip()[:300]})")
    with tarfile.open(fileobj=io.BytesIO(r.stdout)) as t: t.extractall(dest, filter='data')
    (dest / 'nbs' / 'live' / 'node_modules').symlink_to(LIVE / 'node_modules')
    env = {**os.environ, 'TNB_PRETRAINED': str(dest / 'models')}
    r = subprocess.run([sys.executable, '-c', BASE_EXPORT, str(dest), str(dest / 'export')], capture_output=True, text=True, env=env)
    if r.returncode: sys.exit(f"bench_live_node.py: --base {base}: its package did not export the model ({(r.stderr.strip().splitlines() or ['?'])[-1][:300]})")
    return dest / 'nbs' / 'live', dest / 'export'

def main(argv=None):
    p = argparse.ArgumentParser(allow_abbrev=False, description=__doc__.split('\n\n')[0])
    p.add_argument('--base', default='71c6fe8', help="the commit whose page and export are A (default: the page before the graph's log-probabilities)")
    p.add_argument('--n', type=int, default=20, help="the longest test2016 sentences (default 20)")
    p.add_argument('--rounds', type=int, default=5, help="rounds, each every sentence A then B (default 5)")
    p.add_argument('--model-dir', default=None, help="B's export: an existing int8 `tnb-export --format onnx` folder of the working tree's package (default: export now)")
    p.add_argument('--data-dir', default=None, help="the Multi30k folder (default: $TNB_MULTI30K or shared/data/multi30k above the repository)")
    p.add_argument('--json', help="store the figures under node_ab in this file (results/live_bench.json)")
    a = p.parse_args(argv)
    if a.n < 1 or a.rounds < 1: p.error("--n and --rounds must be >= 1")
    if not (LIVE / 'node_modules' / 'onnxruntime-web').is_dir(): sys.exit("nbs/live's packages are missing: npm ci --prefix nbs/live")
    sents = longest(a.n, a.data_dir)
    from transformer_nb.apps.export import export_onnx
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        model = Path(a.model_dir) if a.model_dir else export_onnx('pretrained:multi30k-de-en', tmp / 'model')
        conf = lambda d: json.loads((d / 'config.json').read_text(encoding='utf-8'))
        quantize = conf(model).get('quantize') or 'float32'
        (tmp / 'sents.json').write_text(json.dumps(sents, ensure_ascii=False), encoding='utf-8')
        code_a, model_a = page_at(a.base, tmp / 'a')
        versions = [conf(model_a)['version'], conf(model)['version']]   # the exports' formats, A's then B's
        before = load_average()
        r = subprocess.run(['node', ROOT / 'bench' / 'live_node.mjs', tmp / 'sents.json', code_a, model_a, LIVE, model,
                            '--rounds', str(a.rounds)], capture_output=True, text=True, encoding='utf-8')
        after = load_average()
    if r.returncode: sys.exit(f"live_node.mjs failed: {r.stderr[-2000:]}")
    js = json.loads(r.stdout)
    A, B = js['versions']
    rows = [dict(chars=len(s), steps=B['steps'][i], a_cpu_ms=A['cpu_ms'][i], b_cpu_ms=B['cpu_ms'][i],
                 a_ms=round(statistics.median(A['ms'][i]), 1), b_ms=round(statistics.median(B['ms'][i]), 1)) for i, s in enumerate(sents)]
    ratio = lambda k: round(statistics.median(x[f'b_{k}'] / x[f'a_{k}'] for x in rows), 3)
    rec = {'what': f"the {a.n} longest test2016 sentences, beam {js['beam']}, one thread, under Node (ONNX Runtime Web, wasm): "
                   "the page's code and the int8 export its package writes at `base` (A) and at `commit` (B), each in a Node process of its own, "
                   "interleaved, decoding as translate.mjs does",
           'export_versions': versions,
           'model': 'pretrained:multi30k-de-en', 'quantize': quantize, 'hardware': hardware(), 'threads': 1,
           'node': subprocess.run(['node', '--version'], capture_output=True, text=True).stdout.strip(),
           'base': a.base, 'commit': git_commit(ROOT), 'date': datetime.date.today().isoformat(),
           'command': command('bench_live_node.py', argv), 'rounds': a.rounds, 'load_average_before': before, 'load_average_after': after,
           'same_translations': js['same'], 'target_ms': TARGET_MS,
           'b_cpu_ms_max': max(x['b_cpu_ms'] for x in rows), 'a_cpu_ms_max': max(x['a_cpu_ms'] for x in rows),
           'met': all(x['b_cpu_ms'] <= TARGET_MS for x in rows),
           'median_ratio_b_to_a': {'cpu': ratio('cpu_ms'), 'wall': ratio('ms')}, 'sentences': rows}
    print(f"{rec['hardware']}, Node {rec['node']}, {quantize}, beam {js['beam']}, 1 thread, {a.n} longest test2016 sentences, "
          f"{a.rounds} rounds; load average {before[:1]} -> {after[:1]}")
    print(f"{'chars':>5} {'steps':>5} {'A cpu ms':>9} {'B cpu ms':>9} {'A ms':>8} {'B ms':>8}")
    for x in rows: print(f"{x['chars']:5} {x['steps']:5} {x['a_cpu_ms']:9.1f} {x['b_cpu_ms']:9.1f} {x['a_ms']:8.1f} {x['b_ms']:8.1f}")
    print(f"B/A (median of the sentences' ratios): CPU {rec['median_ratio_b_to_a']['cpu']}, wall {rec['median_ratio_b_to_a']['wall']}; "
          f"B's most CPU a sentence {rec['b_cpu_ms_max']} ms (target <= {TARGET_MS}: {'met' if rec['met'] else 'NOT met'}); "
          f"the same translations: {js['same']}")
    if a.json:
        path = Path(a.json)
        old = json.loads(path.read_text(encoding='utf-8')) if path.exists() else {}
        path.write_text(json.dumps({**old, 'node_ab': rec}, indent=1) + '\n', encoding='utf-8'); print(f"wrote node_ab in {a.json}")

if __name__ == '__main__': main()
