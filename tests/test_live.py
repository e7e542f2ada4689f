"""The live translator of the docs site (`nbs/live/`, plain ES modules): its SentencePiece tokenizer gives Python's
pieces on all of Multi30k, `translate.mjs` gives `tnb-translate --beam 1`'s translations, and the page, driven in
headless Chromium, gives Python's translation and attention."""
import gzip, json, shutil, subprocess
from pathlib import Path
import pytest
from conftest import ROOT, tool, skip_without_multi30k

LIVE = ROOT / 'nbs' / 'live'
SPLITS = ('train', 'val', 'test_2016_flickr')
# Inputs Multi30k lacks: runs of spaces, full-width and half-width forms, ligatures, circled digits, a tab, an empty line,
# unknown characters (consecutive ones are one <unk>), zero-width characters, a lone combining mark.
ODD = ['  Ein   Mann  ', 'Ärger über Öl, Straße, ﬁ ① ², Ｆｕｌｌ', '', '   ', 'x\u3000y', 'ﾊﾝｶｸ und 日本語', 'a\tb',
       '\u200bnull\u200d', 'e\u0301 café', '½ € ™ …', '«Ja» – „nein“']

def node() -> str:
    "The `node` command, or skip."
    exe = shutil.which('node')
    if exe is None: pytest.skip("node is not installed: the live translator's tests run its JavaScript in Node")
    return exe

def node_modules():
    "node, with nbs/live's packages (onnxruntime-web, playwright-core) installed, or skip."
    node()
    if not (LIVE / 'node_modules' / 'onnxruntime-web').is_dir(): pytest.skip("nbs/live's packages are not installed: npm ci --prefix nbs/live")

def export_module():
    "transformer_nb.export with the ONNX export (its dependencies installed), or skip."
    pytest.importorskip('onnx'); pytest.importorskip('onnxruntime')
    import transformer_nb.export as export
    if not hasattr(export, 'export_onnx'): pytest.skip("this package has no ONNX export (transformer_nb.export.export_onnx)")
    return export

def multi30k_lines(folder:Path) -> list[str]:
    "Every line of Multi30k's train, valid and test2016, German and English."
    out = []
    for split in SPLITS:
        for lang in ('de', 'en'):
            with gzip.open(folder / f'{split}.{lang}.gz', 'rt', encoding='utf-8') as f: out += f.read().splitlines()
    return out

def run_node(*args, stdin:str, timeout=900) -> list[str]:
    r = subprocess.run([node(), *map(str, args)], input=stdin, capture_output=True, text=True, encoding='utf-8', cwd=ROOT, timeout=timeout)
    assert r.returncode == 0, r.stderr[-2000:]
    return r.stdout.split('\n')[:-1]

@pytest.fixture(scope='module')
def pretrained_tokenizer():
    from transformer_nb.pretrained import load_pretrained
    return load_pretrained('multi30k-de-en')[1]

@pytest.fixture(scope='module')
def tokenizer_file(tmp_path_factory, pretrained_tokenizer) -> Path:
    "tokenizer.json of the pretrained de→en model, as the ONNX export writes it."
    path = tmp_path_factory.mktemp('tok') / 'tokenizer.json'
    path.write_text(json.dumps(export_module().tokenizer_json(pretrained_tokenizer), ensure_ascii=False), encoding='utf-8')
    return path

def test_js_tokenizer_gives_sentencepiece_pieces_on_all_of_multi30k(tokenizer_file, pretrained_tokenizer):
    lines = multi30k_lines(skip_without_multi30k()) + ODD
    assert not any('\n' in l or '\r' in l for l in lines)
    got = run_node(LIVE / 'pieces.mjs', tokenizer_file, stdin='\n'.join(lines) + '\n')
    sp = pretrained_tokenizer.sp
    want = [' '.join(sp.encode(l, out_type=str)) + '\t' + ' '.join(map(str, sp.encode(l))) for l in lines]
    assert len(got) == len(lines) > 62000
    bad = [(l, g, w) for l, g, w in zip(lines, got, want) if g != w]
    assert not bad, f"{len(bad)} of {len(lines)} lines differ, first: {bad[0]}"

def test_js_decode_gives_the_package_decode(tokenizer_file, pretrained_tokenizer):
    "Ids of test2016's English, and sequences with <unk>, PAD, BOS, EOS and a lone space piece, decode as Tokenizer.decode."
    tok = pretrained_tokenizer
    with gzip.open(skip_without_multi30k() / 'test_2016_flickr.en.gz', 'rt', encoding='utf-8') as f: seqs = [tok.encode(l) for l in f.read().splitlines()]
    space = tok.sp.piece_to_id('▁')
    seqs += [[], [1], [1, 5, 1], [space, 1, 6], [0, 5, 2, 6], [5, 3, 6], [2, 2, 1], [space], [space, space, 7], [1, 1, 1]]
    got = run_node(LIVE / 'pieces.mjs', tokenizer_file, '--decode', stdin='\n'.join(' '.join(map(str, s)) for s in seqs) + '\n')
    want = [tok.decode(s) for s in seqs]
    bad = [(s, g, w) for s, g, w in zip(seqs, got, want) if g != w]
    assert len(got) == len(seqs) and not bad, f"{len(bad)} differ, first: {bad[:1]}"

@pytest.fixture(scope='module')
def fp32_export(tmp_path_factory) -> Path:
    "The pretrained de→en model exported to ONNX in float32, as `tnb-export --format onnx --float32` writes it."
    return export_module().export_onnx('pretrained:multi30k-de-en', tmp_path_factory.mktemp('onnx') / 'fp32', quantize=None)

@pytest.mark.slow
def test_translate_mjs_equals_tnb_translate_greedy(fp32_export, tmp_path):
    "200 test2016 sentences: `node nbs/live/translate.mjs` (ONNX Runtime Web, wasm) prints tnb-translate --beam 1's lines."
    node_modules()
    with gzip.open(skip_without_multi30k() / 'test_2016_flickr.de.gz', 'rt', encoding='utf-8') as f: src = f.read().splitlines()[:200]
    (tmp_path / 'src.de').write_text('\n'.join(src) + '\n', encoding='utf-8')
    # float32 on both sides (auto would pick bf16 on a CPU with native bf16)
    r = tool('translate', 'pretrained:multi30k-de-en', '--beam', '1', '--precision', 'fp32', '--threads', '1', '-i', tmp_path / 'src.de', text=True)
    assert r.returncode == 0, r.stderr
    want = r.stdout.split('\n')[:-1]
    got = run_node(LIVE / 'translate.mjs', fp32_export, stdin='\n'.join(src) + '\n')
    assert len(want) == len(got) == 200
    bad = [(s, g, w) for s, g, w in zip(src, got, want) if g != w]
    assert not bad, f"{len(bad)} of 200 differ, first: {bad[0]}"

def test_translate_mjs_arguments_and_a_bad_folder(fp32_export, tmp_path):
    "Sentences as arguments, one line each, empty in empty out; a folder that is no export: one line, exit 1."
    node_modules()
    got = run_node(LIVE / 'translate.mjs', fp32_export, 'Zwei Hunde spielen im Schnee.', '', '  Ein Mann.  ', stdin='')
    assert len(got) == 3 and got[1] == '' and got[0].startswith('Two dogs') and got[2]
    r = subprocess.run([node(), LIVE / 'translate.mjs', tmp_path], capture_output=True, text=True, cwd=ROOT)
    assert r.returncode == 1 and str(tmp_path) in r.stderr and len(r.stderr.strip().splitlines()) == 1, r.stderr

@pytest.fixture(scope='module')
def int8_export(tmp_path_factory) -> Path:
    "The pretrained de→en model exported as the docs workflow does it (int8, `tnb-export --format onnx`)."
    return export_module().export_onnx('pretrained:multi30k-de-en', tmp_path_factory.mktemp('onnx') / 'int8')

def test_translate_mjs_reads_the_int8_export_with_its_shared_table(int8_export):
    "The int8 export (the page's): both graphs read embedding.bin, which the loader passes to ONNX Runtime Web as external"
    " data. On 50 test2016 sentences it gives ONNX Runtime's (Python) translations but for rare near-ties of int8 kernels."
    node_modules()
    d = int8_export
    assert 'embedding.bin' in json.loads((d / 'config.json').read_text())['files']
    with gzip.open(skip_without_multi30k() / 'test_2016_flickr.de.gz', 'rt', encoding='utf-8') as f: src = f.read().splitlines()[:50]
    got, want = run_node(LIVE / 'translate.mjs', d, stdin='\n'.join(src) + '\n'), export_module().onnx_translate(d, src)
    assert len(got) == 50 and sum(g == w for g, w in zip(got, want)) >= 45, list(zip(got, want))

# The big files the click downloads, which vendor.mjs gives gzip copies (NAME.gz) that the page decompresses itself
GZ = ['vendor/ort-wasm-simd-threaded.wasm', 'model/tokenizer.json', 'model/encoder.onnx', 'model/decoder.onnx', 'model/embedding.bin']
JS = ['vendor/ort.wasm.min.mjs', 'vendor/ort-wasm-simd-threaded.mjs']

def test_vendor_writes_gzip_copies_of_the_big_files_under_12_mb(int8_export, tmp_path):
    "vendor.mjs over a site's live/ folder with the int8 model: a gzip copy of each big file, decompressing to it, sized in"
    " vendor/files.json; what the click downloads (the copies and ONNX Runtime's two modules) weighs at most 12 MB, with"
    " no help from the server."
    node_modules()
    live = live_site(tmp_path / 'site', int8_export) / 'live'
    listed = json.loads((live / 'vendor' / 'files.json').read_text())
    assert sorted(listed['gz']) == sorted(GZ)
    for f in GZ:
        z = (live / f'{f}.gz').read_bytes()
        assert gzip.decompress(z) == (live / f).read_bytes() and listed['gz'][f] == len(z) < (live / f).stat().st_size, f
    click = sum(listed['gz'].values()) + sum(listed['bytes'][f.split('/')[1]] for f in JS)
    print(f"the click downloads {click / 1e6:.2f} MB (gzip copies, decompressed in the page)")
    assert click <= 12e6, click
    flow = (ROOT / '.github' / 'workflows' / 'deploy.yaml').read_text(encoding='utf-8')
    assert flow.index('tnb-export --format onnx') < flow.index('node nbs/live/vendor.mjs'), "the site's model is exported before vendor.mjs compresses it"

def test_translate_mjs_reads_the_gzip_copies(int8_export, tmp_path):
    "A folder with only the gzip copies of the big files: translate.mjs decompresses them (DecompressionStream, as the page"
    " does) and translates as from the plain files; a corrupt copy is one line and exit 1."
    node_modules()
    live = live_site(tmp_path / 'site', int8_export) / 'live'
    only = tmp_path / 'only'
    shutil.copytree(live / 'model', only)
    for f in GZ[1:]: (only / f.split('/')[1]).unlink()
    src = ['Zwei Hunde spielen im Schnee.', 'Ein Mann fährt mit dem Fahrrad über eine Brücke.', '']
    assert run_node(LIVE / 'translate.mjs', only, *src, stdin='') == run_node(LIVE / 'translate.mjs', int8_export, *src, stdin='')
    (only / 'encoder.onnx.gz').write_bytes((only / 'encoder.onnx.gz').read_bytes()[:1000])
    r = subprocess.run([node(), LIVE / 'translate.mjs', only, 'Hallo.'], capture_output=True, text=True, cwd=ROOT)
    assert r.returncode == 1 and str(only) in r.stderr and len(r.stderr.strip().splitlines()) == 1, r.stderr

# --- the page in a real browser ---------------------------------------------------------------------------------------

def chromium() -> str:
    exe = shutil.which('chromium')
    if exe is None: pytest.skip("chromium is not installed (apt-get install chromium): the page's test drives it headless")
    return exe

def live_site(folder:Path, model_dir:Path) -> Path:
    "A minimal site: the explorer's HTML as a page, and beside it live/ as the docs build lays it out (modules, vendor, model)."
    from transformer_nb.explorer import explorer_html, load_explorer
    (folder / 'live').mkdir(parents=True)
    for f in ('app.mjs', 'translator.mjs', 'tokenizer.mjs'): shutil.copy(LIVE / f, folder / 'live' / f)
    shutil.copytree(model_dir, folder / 'live' / 'model')
    subprocess.run([node(), LIVE / 'vendor.mjs', folder / 'live'], check=True, capture_output=True)
    (folder / 'index.html').write_text('<!doctype html><html><head><meta charset="utf-8"><title>explorer</title>'
                                       '<link rel="icon" href="data:,"></head>'
                                       f'<body>{explorer_html(load_explorer())}</body></html>', encoding='utf-8')
    return folder

class serve:
    "An http.server on 127.0.0.1 (a free port) over `folder`, in a thread, for a `with` block: its URL."
    def __init__(self, folder): self.folder = folder
    def __enter__(self):
        import functools, http.server, threading
        class Quiet(http.server.SimpleHTTPRequestHandler):
            extensions_map = {**http.server.SimpleHTTPRequestHandler.extensions_map, '.mjs': 'text/javascript', '.wasm': 'application/wasm'}
            def log_message(self, *a): pass
        self.httpd = http.server.ThreadingHTTPServer(('127.0.0.1', 0), functools.partial(Quiet, directory=str(self.folder)))
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()
        return f'http://127.0.0.1:{self.httpd.server_address[1]}/'
    def __exit__(self, *a): self.httpd.shutdown(); self.httpd.server_close()

def drive(url, *sentences) -> dict:
    r = subprocess.run([node(), ROOT / 'tests' / 'live_page.mjs', url, *sentences], capture_output=True, text=True,
                       encoding='utf-8', timeout=600, env={**__import__('os').environ, 'CHROMIUM': chromium()})
    assert r.returncode == 0, r.stderr[-2000:]
    return json.loads(r.stdout)

@pytest.mark.slow
def test_page_in_chromium_translates_and_draws_as_python(fp32_export, tmp_path):
    "Headless Chromium over the served page: load, Ctrl-Enter, a second sentence mid-decoding; translation and grid as PyTorch's."
    node_modules(); chromium()
    from transformer_nb.explorer import live_sentence, attention_grid, START
    from transformer_nb.pretrained import load_pretrained
    first, second = 'Ein Mann fährt mit dem Fahrrad über eine Brücke.', 'Zwei Mädchen spielen Fußball auf einer grünen Wiese.'
    with serve(live_site(tmp_path / 'site', fp32_export)) as url:
        out = drive(url, first, second)
    assert not out['errors'], out['errors']
    assert all(u.startswith(url) for u in out['requests']), "no request leaves the site"
    # the click fetched the gzip copies, not the plain files, from a server that compresses nothing (http.server)
    after = {u[len(url) + len('live/'):]: (n, enc) for u, n, enc in out['transfers'][out['transfersBeforeClick']:]}
    gz = json.loads((tmp_path / 'site' / 'live' / 'vendor' / 'files.json').read_text())['gz']     # this export has no embedding.bin
    assert sorted(gz) == sorted(f for f in GZ if 'embedding' not in f)
    assert {f'{f}.gz' for f in gz} <= set(after) and not set(gz) & set(after), sorted(after)
    assert not any(enc for _, enc in after.values()), after
    assert all(gz[f] <= after[f'{f}.gz'][0] <= gz[f] + 2000 for f in gz), (gz, after)
    assert out['label'].startswith('Load the live model (') and out['label'].endswith(' MB)')
    assert out['empty'] == 'Type a German sentence in the box first.'
    m, tok, _ = load_pretrained('multi30k-de-en')
    rec = live_sentence(m, tok, second)                     # the second sentence, typed while the first decoded, wins
    assert out['hyp'] == rec['hyp'] and out['option'] == f"your sentence: {second}"
    assert out['grid'] == f"{START['kind']} {START['layer'] - 1} {START['head'] - 1}"
    rows, cols, w = attention_grid({'config': {'N': m.cfg.N}, 'sentences': [rec]}, 0, **START)
    want = [f"{r} → {c}: {w[i][j]:.2f}" for i, r in enumerate(rows) for j, c in enumerate(cols)]
    assert len(out['cells']) == len(want)
    close = lambda a, b: a.rsplit(': ', 1)[0] == b.rsplit(': ', 1)[0] and abs(float(a.rsplit(': ', 1)[1]) - float(b.rsplit(': ', 1)[1])) <= 0.011
    assert all(close(a, b) for a, b in zip(out['cells'], want)), [(a, b) for a, b in zip(out['cells'], want) if not close(a, b)][:3]
