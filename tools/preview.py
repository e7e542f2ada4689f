"""Build the docs site as it is published, and serve it on this machine: the pages, their maths and the live translator.

    python tools/preview.py                # build _docs/ and serve it on http://127.0.0.1:8000/ (Ctrl-C stops)
    python tools/preview.py --no-serve     # build only: what the docs workflow runs before it publishes _docs/
    python tools/preview.py --serve-only   # serve the _docs/ of an earlier build
    python tools/preview.py --live-only    # only _docs/live/ again (the models, ONNX Runtime, KaTeX), over built pages

It needs Quarto 1.7 (`quarto` on the PATH), Node.js 20 with npm, and the package installed with its dev extras
(`pip install -e ".[dev]"`). The steps, each of which the pages need:

1. `nbdev-docs` renders every notebook into _docs/, with the site's own docs processors (tools/apidocs.py,
   tools/site_html.py: `doc_procs` in pyproject.toml) on the path, and TNB_SITE=1, which puts the translator on the
   front page and serves the Colab badge from the site (README, made by the same processors, keeps both as they are).
   nbdev's cache of processed pages (_proc/) is removed before and after, so that README's build never reuses the
   site's pages or the other way round.
2. `tnb-export --format onnx` writes each published model (German→English, English→German) to ONNX, int8, into a
   temporary folder.
3. `npm ci --prefix nbs/live` installs the page's pinned packages (ONNX Runtime Web, KaTeX), unless installed already.
4. `node nbs/live/vendor.mjs _docs/live de-en=… en-de=…` copies into _docs/live/ only what the pages fetch: the page's
   modules, ONNX Runtime's modules and its wasm (gzip), each model's config.json, config.sha256 and gzip copies, KaTeX.
5. tools/check_site.py (every notebook has its page) and tools/check_hosts.py (no page, style or script loads anything
   from another host) check the result: with --no-serve a failure ends the build with exit 1; else it is said, and the
   site is served all the same.

Each step is announced with a number and ends with the time it took, every line a step's tools print is stamped with
the minutes and seconds since the step began, and the build ends with a table of the steps' times: on a 2-core
machine step 1 takes most of the build (see the developers' page).

Every step replaces what an earlier run wrote, so the command runs again on a folder that exists. `nbdev-preview`
alone shows pages without KaTeX and without the translator (they come from _docs/live/, made after rendering).
"""
import argparse, contextlib, functools, http.server, json, os, queue, shutil, subprocess, sys, tempfile, threading, time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TOOLS, LIVE, SITE = ROOT / 'tools', ROOT / 'nbs' / 'live', ROOT / '_docs'
MODELS = {'de-en': 'pretrained:multi30k-de-en', 'en-de': 'pretrained:multi30k-en-de'}   # the published models, by direction

def need(cmd:str, why:str) -> str:
    exe = shutil.which(cmd)
    if exe is None: sys.exit(f"preview: `{cmd}` is not on the PATH: {why}")
    return exe

def clock(seconds:float) -> str:
    "A duration as a reader reads it: '42 s', '3 min 05 s'."
    m, s = divmod(round(seconds), 60)
    return f"{m} min {s:02d} s" if m else f"{s} s"

TIMES: list[tuple[str, float]] = []      # (step, seconds) of this build, in order
_started = [time.perf_counter()]         # when the running step began: the stamp of each line a tool prints

@contextlib.contextmanager
def step(n:int, what:str):
    "Announce step `n` of 5, time it, and say how long it took (also on failure)."
    print(f"preview: step {n}/5: {what}", flush=True)
    t = _started[0] = time.perf_counter()
    try: yield
    finally:
        TIMES.append((f"{n}. {what}", time.perf_counter() - t))
        print(f"preview: step {n}/5 took {clock(TIMES[-1][1])}", flush=True)

def _stamp() -> str:
    m, s = divmod(int(time.perf_counter() - _started[0]), 60)
    return f"  [{m:2d}:{s:02d}]"

def run(*args, quiet_after:float=30, **kw):
    "Run a command from the repository's root, each line it prints stamped with the time since its step began; when it"
    " says nothing for `quiet_after` seconds (Quarto renders in silence), a line says it is still at work."
    print('$', ' '.join(str(a) for a in args), flush=True)
    env = {**(kw.pop('env', None) or os.environ), 'PYTHONUNBUFFERED': '1'}     # a Python tool's lines as it prints them
    p = subprocess.Popen([str(a) for a in args], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         text=True, encoding='utf-8', errors='replace', bufsize=1, env=env, **kw)
    lines = queue.Queue()
    threading.Thread(target=lambda: [*map(lines.put, p.stdout), lines.put(None)], daemon=True).start()
    while True:
        try: line = lines.get(timeout=quiet_after)
        except queue.Empty:
            print(f"{_stamp()} ({Path(str(args[0])).name} is still at work)", flush=True); continue
        if line is None: break
        print(f"{_stamp()} {line.rstrip()}", flush=True)
    if p.wait(): sys.exit(f"preview: `{args[0]}` failed with exit {p.returncode}")

def site_env() -> dict:
    "The environment of the docs build: tools/ on the path (the docs processors), TNB_SITE=1 (the site, not README)."
    path = os.pathsep.join(p for p in (str(TOOLS), os.environ.get('PYTHONPATH', '')) if p)
    return {**os.environ, 'PYTHONPATH': path, 'TNB_SITE': '1'}

def pages():
    "Step 1: the pages, rendered by Quarto through nbdev (nbs/live/node_modules is no page)."
    need('quarto', 'install Quarto 1.7 (https://quarto.org/docs/download/): nbdev-docs renders the pages with it')
    shutil.rmtree(ROOT / '_proc', ignore_errors=True)
    n = sum(1 for _ in (ROOT / 'nbs').glob('*.ipynb'))
    try:
        with step(1, f"the pages: nbdev-docs runs the docs processors over {n} notebooks, then Quarto renders them"):
            run(need('nbdev-docs', 'pip install -e ".[dev]"'), '--skip-folder-re', r'^[_.]|^node_modules$', env=site_env())
    finally: shutil.rmtree(ROOT / '_proc', ignore_errors=True)

def live():
    "Steps 2 to 4: the published models exported, the page's npm packages, and _docs/live/ written from both."
    node, npm = need('node', 'install Node.js 20: the live files are written by nbs/live/vendor.mjs'), need('npm', 'install Node.js 20 with npm')
    if not SITE.is_dir(): sys.exit(f"preview: {SITE} does not exist: build the pages first (python tools/preview.py --no-serve)")
    lock, installed = LIVE / 'package-lock.json', LIVE / 'node_modules' / '.package-lock.json'
    with tempfile.TemporaryDirectory(prefix='tnb-live-') as tmp:
        with step(2, f"the published models to ONNX, int8 ({', '.join(MODELS)})"):
            for name, model in MODELS.items():
                run(need('tnb-export', 'pip install -e ".[dev]"'), '--format', 'onnx', model, '-o', Path(tmp) / name)
        with step(3, "the page's npm packages (npm ci --prefix nbs/live)"):
            if not installed.is_file() or installed.stat().st_mtime < lock.stat().st_mtime:
                run(npm, 'ci', '--prefix', LIVE, '--no-audit', '--no-fund')
            else: print("  installed already", flush=True)
        with step(4, "_docs/live/: what the pages fetch (nbs/live/vendor.mjs)"):
            run(node, LIVE / 'vendor.mjs', SITE / 'live', *(f'{name}={Path(tmp) / name}' for name in MODELS))

def check() -> bool:
    "Step 5: every notebook has its page, and nothing is loaded from another host; False when either check fails."
    ok = True
    with step(5, "the checks: every notebook has its page, nothing comes from another host"):
        for tool in ('check_site.py', 'check_hosts.py'):
            print('$', sys.executable, TOOLS / tool, SITE, flush=True)
            ok &= subprocess.run([sys.executable, str(TOOLS / tool), str(SITE)], cwd=ROOT).returncode == 0
    return ok

def summary(record:str|None=None, load_before:tuple|None=None):
    "The table of the steps' times, and their sum; with `record`, the same written to that JSON file with the machine and its load."
    if not TIMES: return
    print("preview: the build's steps took", flush=True)
    for what, sec in TIMES: print(f"  {clock(sec):>12}  {what}", flush=True)
    total = sum(s for _, s in TIMES)
    print(f"  {clock(total):>12}  in all", flush=True)
    if record:
        from transformer_nb.lib.machine import hardware, cpu_features
        from transformer_nb.lib.safeguards import atomic_write
        rec = {'about': "Wall time of each step of `python tools/preview.py --no-serve` (the whole docs site, as the docs "
                        "workflow builds it), recorded with --record; load averages (1, 5, 15 min) before and after: the "
                        "machine may be shared, and other work on its cores lengthens the build.",
               'hardware': hardware(), 'amx': cpu_features().get('amx'), 'cores': os.cpu_count(),
               'date': time.strftime('%Y-%m-%d'), 'load_before': load_before, 'load_after': [round(x, 2) for x in os.getloadavg()],
               'steps': [{'step': what, 'seconds': round(sec, 1)} for what, sec in TIMES], 'seconds': round(total, 1)}
        atomic_write(record, json.dumps(rec, indent=1) + '\n')
        print(f"preview: the times are written to {record}", flush=True)

def serve(port:int):
    class Quiet(http.server.SimpleHTTPRequestHandler):
        extensions_map = {**http.server.SimpleHTTPRequestHandler.extensions_map, '.mjs': 'text/javascript', '.wasm': 'application/wasm'}
        def log_message(self, *a): pass
    httpd = http.server.ThreadingHTTPServer(('127.0.0.1', port), functools.partial(Quiet, directory=str(SITE)))
    print(f"serving {SITE} on http://127.0.0.1:{httpd.server_address[1]}/ (Ctrl-C stops)", flush=True)
    try: httpd.serve_forever()
    except KeyboardInterrupt: pass

def main(argv=None):
    ap = argparse.ArgumentParser(allow_abbrev=False, description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    g = ap.add_mutually_exclusive_group()
    g.add_argument('--no-serve', action='store_true', help='build, check, and stop (the docs workflow)')
    g.add_argument('--serve-only', action='store_true', help='serve the _docs/ of an earlier build')
    g.add_argument('--live-only', action='store_true', help='write _docs/live/ again over built pages, check, and serve')
    ap.add_argument('--port', type=int, default=8000, help='the port to serve on (default: 8000)')
    ap.add_argument('--record', metavar='FILE', help="also write the steps' times, the machine and its load to this JSON file "
                                                     "(the developers' page quotes results/site_build.json)")
    a = ap.parse_args(argv)
    if a.record and a.serve_only: ap.error('--record times a build: --serve-only builds nothing')
    load_before = [round(x, 2) for x in os.getloadavg()]
    if not a.serve_only:
        if not a.live_only: pages()
        live()
        ok = check()
        summary(a.record, load_before)
        if not ok:
            if a.no_serve: sys.exit("preview: the built site fails its checks (above)")
            print("preview: the built site fails its checks (above); serving it all the same", file=sys.stderr)
    if not a.no_serve: serve(a.port)

if __name__ == '__main__': main()
