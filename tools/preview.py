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
   modules, ONNX Runtime's modules and its wasm (gzip), each model's config.json and gzip copies, KaTeX.
5. tools/check_site.py (every notebook has its page) and tools/check_hosts.py (no page, style or script loads anything
   from another host) check the result: with --no-serve a failure ends the build with exit 1; else it is said, and the
   site is served all the same.

Every step replaces what an earlier run wrote, so the command runs again on a folder that exists. `nbdev-preview`
alone shows pages without KaTeX and without the translator (they come from _docs/live/, made after rendering).
"""
import argparse, functools, http.server, os, shutil, subprocess, sys, tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TOOLS, LIVE, SITE = ROOT / 'tools', ROOT / 'nbs' / 'live', ROOT / '_docs'
MODELS = {'de-en': 'pretrained:multi30k-de-en', 'en-de': 'pretrained:multi30k-en-de'}   # the published models, by direction

def need(cmd:str, why:str) -> str:
    exe = shutil.which(cmd)
    if exe is None: sys.exit(f"preview: `{cmd}` is not on the PATH: {why}")
    return exe

def run(*args, **kw):
    print('$', ' '.join(str(a) for a in args), flush=True)
    r = subprocess.run([str(a) for a in args], cwd=ROOT, **kw)
    if r.returncode: sys.exit(f"preview: `{args[0]}` failed with exit {r.returncode}")

def site_env() -> dict:
    "The environment of the docs build: tools/ on the path (the docs processors), TNB_SITE=1 (the site, not README)."
    path = os.pathsep.join(p for p in (str(TOOLS), os.environ.get('PYTHONPATH', '')) if p)
    return {**os.environ, 'PYTHONPATH': path, 'TNB_SITE': '1'}

def pages():
    "Step 1: the pages, rendered by Quarto through nbdev (nbs/live/node_modules is no page)."
    need('quarto', 'install Quarto 1.7 (https://quarto.org/docs/download/): nbdev-docs renders the pages with it')
    shutil.rmtree(ROOT / '_proc', ignore_errors=True)
    try: run(need('nbdev-docs', 'pip install -e ".[dev]"'), '--skip-folder-re', r'^[_.]|^node_modules$', env=site_env())
    finally: shutil.rmtree(ROOT / '_proc', ignore_errors=True)

def live():
    "Steps 2 to 4: the published models exported, the page's npm packages, and _docs/live/ written from both."
    node, npm = need('node', 'install Node.js 20: the live files are written by nbs/live/vendor.mjs'), need('npm', 'install Node.js 20 with npm')
    if not SITE.is_dir(): sys.exit(f"preview: {SITE} does not exist: build the pages first (python tools/preview.py --no-serve)")
    lock, installed = LIVE / 'package-lock.json', LIVE / 'node_modules' / '.package-lock.json'
    if not installed.is_file() or installed.stat().st_mtime < lock.stat().st_mtime:
        run(npm, 'ci', '--prefix', LIVE, '--no-audit', '--no-fund')
    with tempfile.TemporaryDirectory(prefix='tnb-live-') as tmp:
        for name, model in MODELS.items():
            run(need('tnb-export', 'pip install -e ".[dev]"'), '--format', 'onnx', model, '-o', Path(tmp) / name)
        run(node, LIVE / 'vendor.mjs', SITE / 'live', *(f'{name}={Path(tmp) / name}' for name in MODELS))

def check() -> bool:
    "Step 5: every notebook has its page, and nothing is loaded from another host; False when either check fails."
    ok = True
    for tool in ('check_site.py', 'check_hosts.py'):
        print('$', sys.executable, TOOLS / tool, SITE, flush=True)
        ok &= subprocess.run([sys.executable, str(TOOLS / tool), str(SITE)], cwd=ROOT).returncode == 0
    return ok

def serve(port:int):
    class Quiet(http.server.SimpleHTTPRequestHandler):
        extensions_map = {**http.server.SimpleHTTPRequestHandler.extensions_map, '.mjs': 'text/javascript', '.wasm': 'application/wasm'}
        def log_message(self, *a): pass
    httpd = http.server.ThreadingHTTPServer(('127.0.0.1', port), functools.partial(Quiet, directory=str(SITE)))
    print(f"serving {SITE} on http://127.0.0.1:{httpd.server_address[1]}/ (Ctrl-C stops)", flush=True)
    try: httpd.serve_forever()
    except KeyboardInterrupt: pass

def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    g = ap.add_mutually_exclusive_group()
    g.add_argument('--no-serve', action='store_true', help='build, check, and stop (the docs workflow)')
    g.add_argument('--serve-only', action='store_true', help='serve the _docs/ of an earlier build')
    g.add_argument('--live-only', action='store_true', help='write _docs/live/ again over built pages, check, and serve')
    ap.add_argument('--port', type=int, default=8000, help='the port to serve on (default: 8000)')
    a = ap.parse_args(argv)
    if not a.serve_only:
        if not a.live_only: pages()
        live()
        if not check():
            if a.no_serve: sys.exit("preview: the built site fails its checks (above)")
            print("preview: the built site fails its checks (above); serving it all the same", file=sys.stderr)
    if not a.no_serve: serve(a.port)

if __name__ == '__main__': main()
