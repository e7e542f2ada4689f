"""The live translator of the docs site (`nbs/live/`, plain ES modules): its SentencePiece tokenizer gives Python's
pieces on all of Multi30k (and byte pieces as sentencepiece makes them), `translate.mjs` gives `tnb-translate --beam 4`'s
translations with the cached decoder step and agrees with Python's `onnx_translate`, checks the files it loads and cuts
what the page cuts, every model the package makes runs in it, and the page, driven in headless Chromium, gives
Python's translation and attention."""
import gzip, json, math, shutil, subprocess, time
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
    "node, with nbs/live's onnxruntime-web installed, or skip."
    node()
    if not (LIVE / 'node_modules' / 'onnxruntime-web').is_dir(): pytest.skip("nbs/live's packages are not installed: npm ci --prefix nbs/live")

def playwright():
    "node with nbs/live's packages and its development package playwright-core (which `npm ci --omit=dev` leaves out), or skip."
    node_modules()
    if not (LIVE / 'node_modules' / 'playwright-core').is_dir():
        pytest.skip("playwright-core is not installed (npm ci --omit=dev leaves it out): npm ci --prefix nbs/live")

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

def node_fails(*args, stdin:str='') -> subprocess.CompletedProcess:
    "A node run expected to fail: its CompletedProcess (text)."
    return subprocess.run([node(), *map(str, args)], input=stdin, capture_output=True, text=True, encoding='utf-8', cwd=ROOT, timeout=300)

def first_test2016(n:int) -> list[str]:
    with gzip.open(skip_without_multi30k() / 'test_2016_flickr.de.gz', 'rt', encoding='utf-8') as f: return f.read().splitlines()[:n]

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
def test_translate_mjs_beam_equals_tnb_translate(fp32_export, tmp_path):
    "200 test2016 sentences: `node nbs/live/translate.mjs` (ONNX Runtime Web, wasm, the cached decoder step, beam 4 and"
    " alpha 0.6 by default) prints tnb-translate --beam 4 --precision fp32's lines, but for at most 5 (a near-tie that two"
    " float32 kernels, summing in other orders, may break the other way)."
    node_modules()
    src = first_test2016(200)
    (tmp_path / 'src.de').write_text('\n'.join(src) + '\n', encoding='utf-8')
    # float32 on both sides (auto would pick bf16 on a CPU with native bf16)
    r = tool('translate', 'pretrained:multi30k-de-en', '--beam', '4', '--precision', 'fp32', '--threads', '1', '-i', tmp_path / 'src.de', text=True)
    assert r.returncode == 0, r.stderr
    want = r.stdout.split('\n')[:-1]
    t = time.perf_counter()
    got = run_node(LIVE / 'translate.mjs', fp32_export, stdin='\n'.join(src) + '\n')
    print(f"translate.mjs: 200 sentences, beam 4, float32, in {time.perf_counter() - t:.0f} s")
    assert len(want) == len(got) == 200
    bad = [(s, g, w) for s, g, w in zip(src, got, want) if g != w]
    assert len(bad) <= 5, f"{len(bad)} of 200 differ, first: {bad[0]}"

def test_cached_steps_equal_the_whole_prefix_and_pytorch(fp32_export):
    "The decoder step with a cache gives the tokens of the same graph re-reading the whole prefix at every step (nothing"
    " kept), and those of PyTorch's greedy decoding, on 6 test2016 sentences."
    ex, m = export_module(), export_module().OnnxModel(fp32_export)
    from transformer_nb.pretrained import load_pretrained
    from transformer_nb.decoding import greedy_decode
    import torch
    model, tok, _ = load_pretrained('multi30k-de-en')
    srcs = [tok.encode(s) + [3] for s in first_test2016(6)]
    cached = [ex.onnx_greedy(m, s) for s in srcs]
    assert cached == [ex.onnx_greedy(m, s, use_cache=False) for s in srcs]
    assert cached == [greedy_decode(model.float(), torch.tensor([s]))[0] for s in srcs]
    assert len(set(map(len, cached))) >= 4                                   # outputs of several lengths: a real check

def test_translate_mjs_arguments_and_a_bad_folder(int8_export, tmp_path):
    "Sentences as arguments, one line each, empty in empty out; a folder that is no export: one line, exit 1; a bad option: one line, exit 2."
    node_modules()
    got = run_node(LIVE / 'translate.mjs', int8_export, '--beam', '1', 'Zwei Hunde spielen im Schnee.', '', '  Ein Mann.  ', '--', '--beam', stdin='')
    assert len(got) == 4 and got[1] == '' and got[0].startswith('Two dogs') and got[2] and got[3]   # after --, a sentence
    r = node_fails(LIVE / 'translate.mjs', tmp_path)
    assert r.returncode == 1 and str(tmp_path) in r.stderr and len(r.stderr.strip().splitlines()) == 1, r.stderr
    for args, says in ((('--beam', '0'), '--beam 0: must be a whole number >= 1'), (('--alpha', 'x'), '--alpha x: must be a number >= 0'),
                       (('--beams', '2'), 'unknown option --beams'), (('--trace',), '--trace needs --json')):
        r = node_fails(LIVE / 'translate.mjs', int8_export, *args, 'Hallo.')
        assert r.returncode == 2 and says in r.stderr and len(r.stderr.strip().splitlines()) == 1, (args, r.stderr)

@pytest.fixture(scope='module')
def int8_export(tmp_path_factory) -> Path:
    "The pretrained de→en model exported as the docs workflow does it (int8, `tnb-export --format onnx`)."
    return export_module().export_onnx('pretrained:multi30k-de-en', tmp_path_factory.mktemp('onnx') / 'int8')

def test_translate_mjs_agrees_with_python_onnx_translate_on_the_int8_export(int8_export):
    "The int8 export (the page's): both graphs read embedding.bin, which the loader passes to ONNX Runtime Web as external"
    " data. On 20 test2016 sentences, greedy and beam 4, translate.mjs (ONNX Runtime's wasm build) gives Python's"
    " `onnx_translate` (its C++ build) lines but for near-ties that the int8 kernels of the two builds break differently."
    node_modules()
    d = int8_export
    assert 'embedding.bin' in json.loads((d / 'config.json').read_text())['files']
    src = first_test2016(20)
    for beam in (1, 4):
        got, want = run_node(LIVE / 'translate.mjs', d, '--beam', beam, stdin='\n'.join(src) + '\n'), export_module().onnx_translate(d, src, beam=beam)
        assert len(got) == 20 and sum(g == w for g, w in zip(got, want)) >= 18, (beam, [(g, w) for g, w in zip(got, want) if g != w])

def test_translate_mjs_refuses_a_damaged_file(int8_export, tmp_path):
    "Every file is checked against the sha256 config.json records before use: one changed byte is refused in one line naming the file."
    node_modules()
    d = tmp_path / 'm'; shutil.copytree(int8_export, d)
    with open(d / 'decoder.onnx', 'r+b') as f: f.seek(40000); b = f.read(1); f.seek(40000); f.write(bytes([b[0] ^ 0x10]))
    r = node_fails(LIVE / 'translate.mjs', d, 'Hallo.')
    assert r.returncode == 1 and len(r.stderr.strip().splitlines()) == 1 and 'decoder.onnx is damaged' in r.stderr, r.stderr

def test_translate_mjs_cuts_what_the_page_cuts(int8_export):
    "A 5,000-character line is cut to the page's 300 characters, said in one line on stderr, and translated in seconds."
    node_modules()
    long = ('Eine Frau mit einem roten Hut sitzt auf einer Bank im Park und liest ein Buch. ' * 70)[:5000]
    t = time.perf_counter()
    r = subprocess.run([node(), LIVE / 'translate.mjs', int8_export, '--beam', '1', long, 'Ein Hund.'], capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert r.returncode == 0 and time.perf_counter() - t < 120, r.stderr
    assert len(r.stdout.splitlines()) == 2 and r.stderr.strip().splitlines() == [
        "translate.mjs: sentence 1 is longer than the page's 300 characters (or the model's 1024 tokens): cut there, as the page cuts it"]

def test_translate_mjs_gives_the_page_its_result_and_trace(int8_export):
    "--json prints what `Translator.translate` returns to the page; --trace adds the beam's steps, by the rule of"
    " `fast_beam_search`: the 2k best extensions each step with their log-probabilities and length-penalised scores,"
    " which go on and which end, the chosen token and that step's encoder-decoder attention."
    node_modules()
    (beam,) = map(json.loads, run_node(LIVE / 'translate.mjs', int8_export, '--json', '--trace', 'Zwei Hunde spielen <> im Schnee 😀.', stdin=''))
    (greedy,) = map(json.loads, run_node(LIVE / 'translate.mjs', int8_export, '--beam', '1', '--json', '--trace', 'Zwei Hunde.', stdin=''))
    conf = json.loads((int8_export / 'config.json').read_text())
    N, h, K, eos = conf['config']['N'], conf['config']['h'], 4, conf['special']['eos']
    assert set(beam) == {'text', 'src', 'out', 'unknown', 'cut', 'trace'} and beam['cut'] is False
    assert beam['unknown'] == [{'text': '<>', 'as': 'unknown'}, {'text': '😀', 'as': 'unknown'}] and beam['src'][-1] == eos
    lp = lambda n: ((5 + n) / 6) ** 0.6
    for e in beam['trace']:
        c = e['candidates']
        assert len(c) == 2 * K and [x['logp'] for x in c] == sorted((x['logp'] for x in c), reverse=True)   # the 2k best, best first
        assert all(math.isclose(x['score'], x['logp'] / lp(e['t'] + 1)) for x in c) and e['chosen'] == c[0]['token']
        assert sum(x['kept'] for x in c) == (0 if e is beam['trace'][-1] else K) and not any(x['kept'] and x['ended'] for x in c)
        assert all(x['token'] == eos for x in c if x['ended']) or e is beam['trace'][-1]
        assert len(e['cross']) == N and len(e['cross'][0]) == h and len(e['cross'][0][0]) == len(beam['src'])
        assert all(abs(sum(row) - 100) < 0.01 for layer in e['cross'] for row in layer)   # each head's weights: 100 percent
    best = max(beam['trace'][-1]['finished'], key=lambda f: f['score'])
    assert best['tokens'] == beam['out'] and beam['trace'][-1]['finished'][0] == best
    t = greedy['trace']
    assert len(t) == len(greedy['out']) + 1 and [e['chosen'] for e in t] == greedy['out'] + [eos]
    assert [len(e['candidates']) for e in t] == [2] * len(t) and t[-1]['finished'][0]['tokens'] == greedy['out']

# --- every model the package makes runs in the page's code ------------------------------------------------------------

BYTE_LINES = ['seven', 'three hundred forty-two', 'sieben 😀 日本語 é ½', '  x\u200by  ', '<>&', 'ÄÖÜ ß', '', 'a\tb', '\u0301a', '😀😀 😀', '€100']

def test_js_tokenizer_gives_sentencepiece_byte_pieces(tmp_path):
    "The numbers model's tokenizer has byte fallback: characters it lacks become <0xNN> pieces, and ids decode, invalid"
    " UTF-8 included, as sentencepiece decodes them."
    node()
    from transformer_nb.pretrained import load_pretrained
    tok = load_pretrained('numbers')[1]
    path = tmp_path / 'tokenizer.json'; path.write_text(json.dumps(export_module().tokenizer_json(tok), ensure_ascii=False), encoding='utf-8')
    sp = tok.sp
    assert any(sp.is_byte(i) for i in sp.encode('😀'))
    got = run_node(LIVE / 'pieces.mjs', path, stdin='\n'.join(BYTE_LINES) + '\n')
    assert got == [' '.join(sp.encode(l, out_type=str)) + '\t' + ' '.join(map(str, sp.encode(l))) for l in BYTE_LINES]
    b = lambda *xs: [sp.piece_to_id(f'<0x{x:02X}>') for x in xs]
    seqs = [sp.encode(l) for l in BYTE_LINES] + [b(0xF0, 0x9F), b(0xF0, 0x9F, 0x98, 0x80) + sp.encode('seven'), sp.encode('x') + b(0xC3),
                                                b(0xC3, 0xA9, 0x20), [1] + b(0x41) + [1], b(0x20) + sp.encode('seven')]
    got = run_node(LIVE / 'pieces.mjs', path, '--decode', stdin='\n'.join(' '.join(map(str, q)) for q in seqs) + '\n')
    assert got == [tok.decode(q) for q in seqs]

def test_numbers_export_translates_in_the_page_code(tmp_path):
    "pretrained:numbers, whose tokenizer falls back to bytes, exported as tnb-export does: translate.mjs translates with it"
    " as ONNX Runtime in Python does."
    node_modules()
    d = export_module().export_onnx('pretrained:numbers', tmp_path / 'numbers')
    src = ['seven', 'three hundred forty-two', 'nine thousand 😀']
    got = run_node(LIVE / 'translate.mjs', d, *src, stdin='')
    assert got == export_module().onnx_translate(d, src) and got[0] == 'sieben', got

@pytest.mark.slow
def test_a_byte_fallback_run_exports_and_translates_in_the_page_code(tmp_path_factory):
    "A tiny run of tnb-train --byte-fallback, exported with tnb-export --format onnx: `node nbs/live/translate.mjs DIR seven` works."
    node_modules()
    from conftest import TINY
    run = tmp_path_factory.mktemp('bytes') / 'run'
    r = tool('train', *TINY, '--steps', '1', '--byte-fallback', '--vocab-size', '300', '--out', run)
    assert r.returncode == 0, r.stderr[-2000:]
    r = tool('export', '--format', 'onnx', run, '-o', run.parent / 'onnx')
    assert r.returncode == 0, r.stderr[-2000:]
    got = run_node(LIVE / 'translate.mjs', run.parent / 'onnx', 'seven', '😀 x', stdin='')
    assert len(got) == 2 and got == export_module().onnx_translate(run.parent / 'onnx', ['seven', '😀 x'])

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

@pytest.mark.slow
def test_bench_live_runs_with_its_smallest_arguments(int8_export, tmp_path):
    "bench/bench_live.py, whose figures results/live_bench.json stores, runs end to end on two sentences in headless Chromium."
    playwright(); chromium()
    import sys
    r = subprocess.run([sys.executable, ROOT / 'bench' / 'bench_live.py', '--n', '2', '--model-dir', int8_export, '--json', tmp_path / 'live.json'],
                       capture_output=True, text=True, cwd=ROOT, timeout=900)
    assert r.returncode == 0, r.stderr[-2000:]
    rec = json.loads((tmp_path / 'live.json').read_text())
    assert rec['n_sentences'] == 2 and set(rec['decoding']) == {'greedy', 'beam4'} and rec['load']['bytes'] > 1e6
    assert all(len(v['ms']) == 2 for v in rec['sentences'].values())

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
    playwright(); chromium()
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
