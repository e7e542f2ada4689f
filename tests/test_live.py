"""The live translator of the docs site (`nbs/live/`, plain ES modules): its SentencePiece tokenizer gives Python's
pieces on all of Multi30k (and byte pieces as sentencepiece makes them), `translate.mjs` gives `tnb-translate --beam 4`'s
translations with the cached decoder step and agrees with Python's `onnx_translate`, checks the files it loads and cuts
what the page cuts, every model the package makes runs in it, `vendor.mjs` publishes what the pages fetch and nothing
else, and the pages, driven in headless Chromium as a reader uses them (the front page's translator in both directions,
the beam search step by step, the explorer), give Python's translation and attention."""
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
    "transformer_nb.apps.export with the ONNX export (its dependencies installed), or skip."
    pytest.importorskip('onnx'); pytest.importorskip('onnxruntime')
    import transformer_nb.apps.export as export
    if not hasattr(export, 'export_onnx'): pytest.skip("this package has no ONNX export (transformer_nb.apps.export.export_onnx)")
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
    from transformer_nb.apps.pretrained import load_pretrained
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
    # both forbid the end token at the first step (fairseq's min_len=1): no line of either is empty
    assert all(got) and all(want), [s for s, g, w in zip(src, got, want) if not (g and w)]
    bad = [(s, g, w) for s, g, w in zip(src, got, want) if g != w]
    assert len(bad) <= 5, f"{len(bad)} of 200 differ, first: {bad[0]}"

def test_cached_steps_equal_the_whole_prefix_and_pytorch(fp32_export):
    "The decoder step with a cache gives the tokens of the same graph re-reading the whole prefix at every step (nothing"
    " kept), and those of PyTorch's greedy decoding, on 6 test2016 sentences."
    ex, m = export_module(), export_module().OnnxModel(fp32_export)
    from transformer_nb.apps.pretrained import load_pretrained
    from transformer_nb.lib.fast_decoding import greedy_decode_batch
    import torch
    model, tok, _ = load_pretrained('multi30k-de-en')
    srcs = [tok.encode(s) + [3] for s in first_test2016(6)]
    cached = [ex.onnx_greedy(m, s) for s in srcs]
    assert cached == [ex.onnx_greedy(m, s, use_cache=False) for s in srcs]
    assert cached == [greedy_decode_batch(model.float(), torch.tensor([s]))[0] for s in srcs]
    assert len(set(map(len, cached))) >= 4                                   # outputs of several lengths: a real check

def test_python_onnx_translate_agrees_with_translate_mjs(fp32_export):
    "20 test2016 sentences, greedy and beam 4: Python's `onnx_translate` (ONNX Runtime in C++) and translate.mjs (its wasm"
    " build) decode the same float32 export to the same lines, but for a rare near-tie."
    node_modules()
    src, m = first_test2016(20), export_module().OnnxModel(fp32_export)
    for beam in (1, 4):
        got, want = run_node(LIVE / 'translate.mjs', fp32_export, '--beam', beam, stdin='\n'.join(src) + '\n'), export_module().onnx_translate(m, src, beam=beam)
        assert sum(g == w for g, w in zip(got, want)) >= 19 and len(got) == 20 and all(got) and all(want), (beam, [(g, w) for g, w in zip(got, want) if g != w])

def test_translate_mjs_arguments_and_a_bad_folder(int8_export, tmp_path):
    "Sentences as arguments, one line each, empty in empty out; a folder that is no export, or a bad option: one line, exit 2, as tnb-translate."
    node_modules()
    got = run_node(LIVE / 'translate.mjs', int8_export, '--beam', '1', 'Zwei Hunde spielen im Schnee.', '', '  Ein Mann.  ', '--', '--beam', stdin='')
    assert len(got) == 4 and got[1] == '' and got[0].startswith('Two dogs') and got[2] and got[3]   # after --, a sentence
    r = node_fails(LIVE / 'translate.mjs', tmp_path)
    assert r.returncode == 2 and str(tmp_path) in r.stderr and len(r.stderr.strip().splitlines()) == 1, r.stderr
    for args, says in ((('--beam', '0'), '--beam 0 must be an int in [1, 1000]'), (('--alpha', 'x'), '--alpha x must be a number in [0, 10]'),
                       (('--beams', '2'), 'unrecognized arguments: --beams'), (('--trace',), '--trace needs --json')):
        r = node_fails(LIVE / 'translate.mjs', int8_export, *args, 'Hallo.')
        assert r.returncode == 2 and says in r.stderr and len(r.stderr.strip().splitlines()) == 1, (args, r.stderr)

def edited_config(src:Path, dest:Path, digest:bool=True, **edits) -> Path:
    "A copy of the export `src` in `dest` with config.json's fields edited (dotted names: special.eos), and config.sha256 rewritten to match unless not `digest`."
    import hashlib
    shutil.copytree(src, dest)
    conf = json.loads((dest / 'config.json').read_text())
    for k, v in edits.items():
        *path, last = k.split('__'); d = conf
        for p in path: d = d[p]
        d[last] = v
    (dest / 'config.json').write_text(json.dumps(conf, indent=1))
    if digest: (dest / 'config.sha256').write_text(hashlib.sha256((dest / 'config.json').read_bytes()).hexdigest() + '  config.json\n')
    return dest

@pytest.mark.parametrize('edits, digest, says', [
    (dict(special__eos=5), False, "config.json is damaged: its sha256 differs from the one config.sha256 records; export the folder again"),
    (dict(special__eos=5), True, "config.json: special.eos = 5 is not the tokenizer's eos id, 3; export the folder again"),
    (dict(beam=0), True, "config.json: beam = 0 must be a whole number from 1 to"),
    (dict(alpha='x'), True, 'config.json: alpha = "x" must be a number in [0, 10]; export the folder again'),
    (dict(max_extra=-1), True, "config.json: max_extra = -1 must be a whole number >= 0; export the folder again"),
    (dict(config__N=9), True, "config.json: config.N = 9 does not match decoder.onnx, whose inputs are for 3 layers; export the folder again"),
    (dict(max_len=10**6), True, "config.json: max_len = 1000000 must be a whole number from 2 to "),
], ids=['eos-no-digest', 'eos', 'beam', 'alpha', 'max_extra', 'N', 'max_len'])
def test_an_edited_config_json_is_refused_alike_by_translate_mjs_and_python(int8_export, tmp_path, edits, digest, says):
    "config.json is read only once its bytes match config.sha256 (beside it), and its ids and settings are checked against"
    " the tokenizer and the graphs: an edit is one line naming config.json and the field, exit 2, in translate.mjs and in"
    " Python's `OnnxModel` (so `onnx_translate`) alike, before any sentence is translated."
    node_modules()
    d = edited_config(int8_export, tmp_path / 'm', digest, **edits)
    r = node_fails(LIVE / 'translate.mjs', d, 'sieben')
    assert r.returncode == 2 and not r.stdout and len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert r.stderr.startswith(f"translate.mjs: {d / 'config.json'}") and says in r.stderr, r.stderr
    with pytest.raises(ValueError) as e: export_module().OnnxModel(d)
    assert str(e.value) == r.stderr.strip().removeprefix('translate.mjs: ')           # the same words

def test_translate_mjs_without_config_sha256_and_as_a_command(int8_export, tmp_path):
    "An export without config.sha256 is refused in one line; --help says the usage and the exit codes (0); a full disk as"
    " standard output is one line and exit 1; a reader that leaves early ends it quietly with 141."
    node_modules()
    d = tmp_path / 'm'; shutil.copytree(int8_export, d); (d / 'config.sha256').unlink()
    r = node_fails(LIVE / 'translate.mjs', d, 'Hallo.')
    assert r.returncode == 2 and r.stderr == f"translate.mjs: {d / 'config.sha256'} is missing: an export holds the sha256 of its config.json there; export the folder again (tnb-export --format onnx)\n"
    with pytest.raises(ValueError, match='is missing: an export holds the sha256 of its config.json there'): export_module().OnnxModel(d)
    r = node_fails(LIVE / 'translate.mjs', '--help')
    assert r.returncode == 0 and r.stdout.startswith('usage: node nbs/live/translate.mjs MODEL_DIR') and 'exit codes: 0 done; 1' in r.stdout and not r.stderr
    if Path('/dev/full').exists():
        with open('/dev/full', 'w') as full:
            r = subprocess.run([node(), LIVE / 'translate.mjs', int8_export, '--beam', '1', 'Ein Hund.'], stdout=full, stderr=subprocess.PIPE, text=True, cwd=ROOT, timeout=300)
        assert r.returncode == 1 and r.stderr == 'translate.mjs: standard output: No space left on device\n', r.stderr
    p = subprocess.Popen([node(), LIVE / 'translate.mjs', int8_export, '--beam', '1', *(['Ein Hund.'] * 50)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT)
    p.stdout.close()                                                                     # the reader leaves before any line
    assert p.wait(timeout=300) == 141 and p.stderr.read() == b''
    import signal
    for sig, code in ((signal.SIGINT, 130), (signal.SIGTERM, 143)):                      # mid-run: quietly, with the commands' statuses
        p = subprocess.Popen([node(), LIVE / 'translate.mjs', int8_export, *(['Ein Mann fährt mit dem Fahrrad über eine Brücke.'] * 200)],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT)
        assert p.stdout.readline()                                                       # translating
        p.send_signal(sig)
        assert p.wait(timeout=120) == code and p.stderr.read() == b'', sig

@pytest.fixture(scope='module')
def int8_export(tmp_path_factory) -> Path:
    "The pretrained de→en model exported as the docs workflow does it (int8, `tnb-export --format onnx`)."
    return export_module().export_onnx('pretrained:multi30k-de-en', tmp_path_factory.mktemp('onnx') / 'int8')

def test_translate_mjs_reads_the_int8_export_with_its_shared_table(int8_export):
    "The int8 export (the page's): both graphs read embedding.bin, which the loader passes to ONNX Runtime Web as external"
    " data. On 20 test2016 sentences it gives ONNX Runtime's (Python) greedy translations but for near-ties that the int8"
    " kernels of the two builds break differently."
    node_modules()
    d = int8_export
    assert 'embedding.bin' in json.loads((d / 'config.json').read_text())['files']
    src = first_test2016(20)
    got, want = run_node(LIVE / 'translate.mjs', d, '--beam', '1', stdin='\n'.join(src) + '\n'), export_module().onnx_translate(d, src, beam=1)
    assert len(got) == 20 and sum(g == w for g, w in zip(got, want)) >= 18, list(zip(got, want))

def test_translate_mjs_refuses_a_damaged_file(int8_export, tmp_path):
    "Every file is checked against the sha256 config.json records before use: one changed byte is refused in one line naming the file."
    node_modules()
    d = tmp_path / 'm'; shutil.copytree(int8_export, d)
    with open(d / 'decoder.onnx', 'r+b') as f: f.seek(40000); b = f.read(1); f.seek(40000); f.write(bytes([b[0] ^ 0x10]))
    r = node_fails(LIVE / 'translate.mjs', d, 'Hallo.')
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1 and 'decoder.onnx is damaged' in r.stderr, r.stderr

def test_translate_mjs_cuts_what_the_page_cuts(int8_export):
    "A 2,000-character line (within the model's 1,024 tokens) is cut to the page's 300 characters, said in one line on"
    " stderr, and translated in seconds; a 5,000-character line, over the limit of tokens, is refused as tnb-translate refuses it."
    node_modules()
    text = 'Eine Frau mit einem roten Hut sitzt auf einer Bank im Park und liest ein Buch. ' * 70
    t = time.perf_counter()
    r = subprocess.run([node(), LIVE / 'translate.mjs', int8_export, '--beam', '1', text[:2000], 'Ein Hund.'], capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert r.returncode == 0 and time.perf_counter() - t < 120, r.stderr
    assert len(r.stdout.splitlines()) == 2 and r.stderr.strip().splitlines() == [
        "translate.mjs: sentence 1 is longer than the page's 300 characters (or the model's 1024 tokens): cut there, as the page cuts it"]
    r = subprocess.run([node(), LIVE / 'translate.mjs', int8_export, '--beam', '1', 'Ein Hund.', text[:5000]], capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert r.returncode == 2 and not r.stdout and r.stderr.startswith('translate.mjs: sentence 2 is 1,0') and r.stderr.endswith(
        " tokens long (its end-of-sentence token included), more than the limit of 1,024: split it into sentences\n"), r.stderr

def test_translate_mjs_gives_the_page_its_result_and_trace(int8_export):
    "--json prints what `Translator.translate` returns to the page; --trace adds the beam's steps, by the rule of"
    " `beam_search_batch`: the 2k best extensions each step with their log-probabilities and length-penalised scores,"
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

FIRST_STEP_JS = """
import { Translator } from './nbs/live/translator.mjs';
const V = 6, eos = 3, pieces = ['<pad>', '<unk>', '<s>', '</s>', '\u2581a', '\u2581b'];
const tr = Object.assign(Object.create(Translator.prototype), { V, N: 1, h: 1, special: { pad: 0, unk: 1, bos: 2, eos }, tokenizer: { pieces } });
tr.empty = () => ({});
tr.step = async (cross, past, tokens) => {          // a decoder that scores the end highest at every step
  const lg = new Float32Array(tokens.length * V);
  for (let r = 0; r < tokens.length; r++) lg.set([-Infinity, -5, -Infinity, 5, 1, 0], r * V);
  return { logits: lg, past: {}, self: [], cross: [] };
};
const gt = [], bt = [];
const greedy = await tr.greedy({ cross: {} }, 6, 0.6, gt, () => {}, false), beam = await tr.beamSearch({ cross: {} }, 6, 2, 0.6, bt, () => {});
console.log(JSON.stringify({ greedy: greedy.out, beam: beam.out, first: [gt[0], bt[0]].map(e => e.candidates.map(c => c.token)), second: bt[1].candidates.map(c => c.token),
                             firstEnd: bt[0].candidates.filter(c => c.token === eos).map(c => [Number.isFinite(c.logp), c.ended, c.kept]) }));
"""

def test_the_end_token_is_forbidden_at_the_first_step():
    "Greedy and beam search in translator.mjs (translate.mjs and the page) never end at the first step, as fairseq's"
    " min_len=1: on a decoder that scores the end highest at every step, greedy's first step has no end among its"
    " candidates, beam search's scores the end -inf after the log-softmax (as the package's beam search: the others keep"
    " their log p), never ended nor kept; the translation is one piece, not the empty line; from the second step the end"
    " is the best candidate again."
    node()
    r = subprocess.run([node(), '--input-type=module', '-e', FIRST_STEP_JS], capture_output=True, text=True, encoding='utf-8', cwd=ROOT, timeout=60)
    assert r.returncode == 0, r.stderr
    got = json.loads(r.stdout)
    assert got['greedy'] == [4] and got['beam'] == [4], got
    assert 3 not in got['first'][0] and got['first'][1][0] == 4 and got['firstEnd'] == [[False, False, False]] and got['second'][0] == 3, got

# --- every model the package makes runs in the page's code ------------------------------------------------------------

BYTE_LINES = ['seven', 'three hundred forty-two', 'sieben 😀 日本語 é ½', '  x\u200by  ', '<>&', 'ÄÖÜ ß', '', 'a\tb', '\u0301a', '😀😀 😀', '€100']

def test_js_tokenizer_gives_sentencepiece_byte_pieces(tmp_path):
    "The numbers model's tokenizer has byte fallback: characters it lacks become <0xNN> pieces, and ids decode, invalid"
    " UTF-8 included, as sentencepiece decodes them."
    node()
    from transformer_nb.apps.pretrained import load_pretrained
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

@pytest.fixture(scope='module')
def int8_en_de(tmp_path_factory) -> Path:
    "The pretrained en→de model exported as the docs build does it (int8): the front page's second direction."
    return export_module().export_onnx('pretrained:multi30k-en-de', tmp_path_factory.mktemp('onnx') / 'en-de')

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

@pytest.mark.slow
def test_bench_live_node_runs_with_its_smallest_arguments(int8_export, tmp_path):
    "bench/bench_live_node.py (with live_node.mjs), the A/B of the page's code under Node that results/live_bench.json"
    " stores under node_ab, runs on two sentences and one round, A this commit's page with the export its package writes,"
    " and keeps what the file held."
    node_modules()
    import sys
    out = tmp_path / 'live.json'; out.write_text('{"model": "kept"}')
    r = subprocess.run([sys.executable, ROOT / 'bench' / 'bench_live_node.py', '--n', '2', '--rounds', '1', '--base', 'HEAD',
                        '--model-dir', int8_export, '--json', out], capture_output=True, text=True, cwd=ROOT, timeout=900)
    assert r.returncode == 0, r.stderr[-2000:]
    rec = json.loads(out.read_text())
    assert rec['model'] == 'kept' and len(rec['node_ab']['sentences']) == 2 and rec['node_ab']['same_translations'] is True
    assert rec['node_ab']['export_versions'] == [json.loads((int8_export / 'config.json').read_text())['version']] * 2

def test_live_steps_runs_with_its_smallest_arguments(int8_export):
    "bench/live_steps.mjs, the decoder step's CPU time by rows and positions kept, runs on the int8 export with one run per round."
    node_modules()
    r = subprocess.run([node(), ROOT / 'bench' / 'live_steps.mjs', int8_export, '--runs', '1'], capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    rec = json.loads(r.stdout)
    assert rec['runs'] == 1 and rec['quantize'] == 'int8' and len(rec['ms_per_step']) == 10 and all(v > 0 for v in rec['ms_per_step'].values())
    bad = subprocess.run([node(), ROOT / 'bench' / 'live_steps.mjs', int8_export, '--runs', '0'], capture_output=True, text=True, cwd=ROOT)
    assert bad.returncode == 2 and 'usage: node bench/live_steps.mjs' in bad.stderr

# --- what the site publishes (vendor.mjs) -----------------------------------------------------------------------------

def vendor(live:Path, **models) -> str:
    "node nbs/live/vendor.mjs LIVE NAME=DIR ...: its one line of output."
    r = subprocess.run([node(), LIVE / 'vendor.mjs', live, *(f'{n.replace("_", "-")}={d}' for n, d in models.items())],
                       capture_output=True, text=True, cwd=ROOT)
    assert r.returncode == 0, r.stderr
    return r.stdout

def listing(live:Path) -> dict:
    "Every file under `live`, by its path, with its size."
    return {p.relative_to(live).as_posix(): p.stat().st_size for p in sorted(live.rglob('*')) if p.is_file()}

def page_modules() -> set[str]:
    "The modules the page imports: app.mjs and, transitively, every './x.mjs' they import."
    seen, todo = set(), ['app.mjs']
    while todo:
        f = todo.pop()
        if f not in seen:
            seen.add(f)
            todo += __import__('re').findall(r'''(?:from|import\()\s*['"]\./([\w.-]+\.mjs)['"]''', (LIVE / f).read_text(encoding='utf-8'))
    return seen

def test_vendor_publishes_what_the_page_fetches_and_nothing_else(int8_export, int8_en_de, tmp_path):
    "vendor.mjs over a site's live/ folder with both directions: the page's modules, ONNX Runtime's two modules and its"
    " wasm as a gzip copy, each model's config.json and gzip copies of its files, KaTeX's script, style and woff2 fonts;"
    " no plain .onnx, .bin or .wasm; vendor/files.json sizes every file the page downloads; what the first translation"
    " downloads in either direction weighs at most 12 MB; a second run over the same folder writes the same files."
    node_modules()
    live = tmp_path / 'live'
    (live / 'model').mkdir(parents=True); (live / 'model' / 'stale.onnx').write_bytes(b'x')      # an older layout's folder
    vendor(live, de_en=int8_export, en_de=int8_en_de)
    files, listed = listing(live), json.loads((live / 'vendor' / 'files.json').read_text())
    assert listed['models'] == ['de-en', 'en-de'] and listed['weights'] == {'de-en': 'int8', 'en-de': 'int8'}
    assert not any(f.endswith(('.onnx', '.bin', '.wasm', '.ttf', '.woff')) or f.startswith('model/') for f in files), sorted(files)
    assert {f for f in files if f.endswith('.mjs') and '/' not in f} == page_modules()
    assert {f for f in files if f.startswith('katex/') and not f.endswith('.woff2')} == {'katex/katex.min.js', 'katex/katex.min.css'}
    fetched = {f for f in files if f.startswith(('vendor/', 'models/'))} - {'vendor/files.json'}
    assert set(listed['bytes']) == fetched and all(listed['bytes'][f] == files[f] for f in fetched)
    assert listed['decoding'] == {'de-en': {'beam': 4}, 'en-de': {'beam': 4}}                 # the menu's beam, from config.json
    for name, d in (('de-en', int8_export), ('en-de', int8_en_de)):                              # config.json's digest, beside it
        assert (live / 'models' / name / 'config.sha256').read_bytes() == (d / 'config.sha256').read_bytes()
    cfg = json.loads((int8_export / 'config.json').read_text())
    for name, d in (('de-en', int8_export), ('en-de', int8_en_de)):
        for f in ['tokenizer.json', 'encoder.onnx', 'decoder.onnx', *(f for f in cfg['files'] if f.endswith('.bin'))]:
            assert gzip.decompress((live / 'models' / name / f'{f}.gz').read_bytes()) == (d / f).read_bytes(), (name, f)
        first = sum(n for f, n in listed['bytes'].items() if f.startswith(('vendor/', f'models/{name}/')))
        print(f"{name}: the first translation downloads {first / 1e6:.2f} MB (gzip copies, decompressed in the page)")
        assert first <= 12e6, (name, first)
    vendor(live, de_en=int8_export, en_de=int8_en_de)
    assert listing(live) == files, "a second run writes the same files"

def test_translate_mjs_reads_the_sites_model_folder(int8_export, tmp_path):
    "The site's models/de-en/ holds only config.json and the gzip copies: translate.mjs decompresses them"
    " (DecompressionStream, as the page does) and translates as from the export; a corrupt copy is one line and exit 2."
    node_modules()
    live = tmp_path / 'live'
    vendor(live, de_en=int8_export)
    only = live / 'models' / 'de-en'
    src = ['Zwei Hunde spielen im Schnee.', 'Ein Mann fährt mit dem Fahrrad über eine Brücke.', '']
    assert run_node(LIVE / 'translate.mjs', only, *src, stdin='') == run_node(LIVE / 'translate.mjs', int8_export, *src, stdin='')
    (only / 'encoder.onnx.gz').write_bytes((only / 'encoder.onnx.gz').read_bytes()[:1000])
    r = subprocess.run([node(), LIVE / 'translate.mjs', only, 'Hallo.'], capture_output=True, text=True, cwd=ROOT)
    assert r.returncode == 2 and str(only) in r.stderr and len(r.stderr.strip().splitlines()) == 1, r.stderr

# --- the pages in a real browser --------------------------------------------------------------------------------------

def chromium() -> str:
    exe = shutil.which('chromium')
    if exe is None: pytest.skip("chromium is not installed (apt-get install chromium): the page's test drives it headless")
    return exe

def live_site(folder:Path, **models) -> Path:
    "A minimal site as the docs build lays it out: a page with the front page's translator and an attention explorer,"
    " each with the hook tools/site_html.py gives it, and beside it live/ as vendor.mjs writes it."
    import sys
    sys.path.insert(0, str(ROOT / 'tools'))
    from site_html import FRONT, live_explorer
    from transformer_nb.apps.explorer import explorer_html, load_explorer
    vendor(folder / 'live', **models)
    if 'trace' not in (LIVE / 'translator.mjs').read_text(encoding='utf-8'):
        # nbs/live/translator.mjs decodes greedily only, for now: the page's beam view is tested on tests/live_standin.mjs,
        # which adds the beam search and its trace to it (the page asks the same of the real module)
        shutil.move(folder / 'live' / 'translator.mjs', folder / 'live' / 'translator_greedy.mjs')
        shutil.copy(ROOT / 'tests' / 'live_standin.mjs', folder / 'live' / 'translator.mjs')
    cell = {'outputs': [{'data': {'text/html': explorer_html(load_explorer())}}]}
    live_explorer(cell)
    shutil.copy(ROOT / 'nbs' / 'styles.css', folder / 'styles.css')
    (folder / 'index.html').write_text('<!doctype html><html><head><meta charset="utf-8"><title>explorer</title>'
                                       '<meta name="viewport" content="width=device-width, initial-scale=1">'
                                       '<meta name="quarto:offset" content="./"><link rel="icon" href="data:,"><link rel="stylesheet" href="styles.css"></head>'
                                       f'<body><main>{path_table_html()}{FRONT}{cell["outputs"][0]["data"]["text/html"]}</main></body></html>', encoding='utf-8')
    return folder

def path_table_html() -> str:
    "The front page's path table (tools/frontpage.py's `path_table`, a Markdown table) as the site's HTML table, in #tnb-path."
    import html, re, sys
    sys.path.insert(0, str(ROOT / 'tools'))
    from frontpage import path_table
    rows = [l.strip('|').split(' | ') for l in path_table().data.splitlines() if l.startswith('|') and not l.startswith('|---')]
    cell = lambda t: re.sub(r'\[([^\]]+)\]\(([^)]+)\)', r'<a href="\2">\1</a>', html.escape(t.strip()))
    head, *body = rows
    return ('<div id="tnb-path" class="cell-output-display"><table><thead><tr>' + ''.join(f'<th>{cell(c)}</th>' for c in head) + '</tr></thead><tbody>'
            + ''.join('<tr>' + ''.join(f'<td>{cell(c)}</td>' for c in r) + '</tr>' for r in body) + '</tbody></table></div>')

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

def drive(url, *sentences, width=1200) -> dict:
    r = subprocess.run([node(), ROOT / 'tests' / 'live_page.mjs', url, *sentences], capture_output=True, text=True,
                       encoding='utf-8', timeout=600, env={**__import__('os').environ, 'CHROMIUM': chromium(), 'WIDTH': str(width)})
    assert r.returncode == 0, r.stderr[-2000:]
    return json.loads(r.stdout)

def beam_record(model, tok, sentence:str) -> dict:
    "The explorer's record of `sentence` decoded as the page decodes it (beam 4, alpha 0.6), its weights from PyTorch."
    import torch
    from transformer_nb.core import BOS_ID, EOS_ID
    from transformer_nb.lib.fast_decoding import beam_search_batch
    from transformer_nb.variations import attention_maps
    src = torch.tensor([tok.encode(sentence) + [EOS_ID]])
    ids = beam_search_batch(model, src, beam=4, alpha=0.6)[0][0][0]
    tgt_out = ids + [EOS_ID]
    maps = attention_maps(model, src, torch.tensor([[BOS_ID] + tgt_out[:-1]]))
    piece = tok.sp.id_to_piece
    return dict(src=sentence, hyp=tok.decode(ids), src_pieces=[piece(i) for i in src[0].tolist()], tgt_out=[piece(i) for i in tgt_out],
                tgt_in=[piece(i) for i in [BOS_ID] + tgt_out[:-1]], weights={k: [(100 * w[0].float()).tolist() for w in ws] for k, ws in maps.items()})

@pytest.mark.slow
@pytest.mark.parametrize('width', [1400, 390])
def test_pages_in_chromium_translate_both_ways_and_show_the_beam(fp32_export, int8_en_de, tmp_path, width):
    "Headless Chromium over a served page, other hosts blocked, 1,400 and 390 px wide: the front translator (empty box,"
    " the limit, an example, the beam stepped by button and key, a hostile sentence, text it cannot read, the switch to"
    " English→German, which alone fetches its model), then the explorer (Ctrl-Enter, a second sentence mid-decoding):"
    " translation and grid as PyTorch's beam 4; the path table whole in the window."
    playwright(); chromium()
    from transformer_nb.apps.explorer import attention_grid, START
    from transformer_nb.apps.pretrained import load_pretrained
    first, second = 'Ein Mann fährt mit dem Fahrrad über eine Brücke.', 'Zwei Mädchen spielen Fußball auf einer grünen Wiese.'
    hostile = '<script>alert(1)</script> Ein Hund 😀'
    with serve(live_site(tmp_path / 'site', de_en=fp32_export, en_de=int8_en_de)) as url:
        out = drive(url, first, second, 'A dog is running through the snow.', hostile, width=width)
    assert not out['errors'], out['errors']
    assert all(u.startswith(url) for u in out['requests']), "no request leaves the site"
    # before a click: the page, app.mjs and files.json, nothing heavy; the note says what the click downloads
    early = out['requests'][:out['requestsBeforeClick']]
    assert not any('/models/' in u or 'ort' in u.rsplit('/', 1)[-1] for u in early), early
    assert 'German → English translation downloads it (' in out['note'] and 'int8' not in out['note'], out['note']   # fp32 here
    # every link the translator built names a page the site has, at an anchor of it (the explorer's #translator)
    assert out['links'] and all(site_page_exists(u) for u in out['links']), out['links']
    assert out['placeholder'].startswith('Type a German sentence') and out['empty'].startswith('Type a German sentence')
    assert 'only the first' in out['count'], out['count']
    # the example: the model loaded, the translation, the pieces the model read (no ▁), the beam stepped
    assert out['status'].startswith('Model loaded in') and out['front']['hyp'], out
    # a text over the limit: cut where a sentence ends (three of four sentences), the counter and the warning counting
    # alike (the box's text without the spaces around it), and the line "Model loaded" gone with the translation it came with
    over = out['over']
    assert over['count'].startswith('315 / 300 characters: only the first 236 will be translated, up to “…liest ein Buch.”'), over
    assert over['warn'] == 'Only the first 236 of 315 characters were translated.' and over['meta'].startswith('3 sentences'), over
    assert over['which'] == ['Eine Frau mit einem roten Hut sitzt auf einer Bank im Park und liest ein Buch.'] * 3 and over['status'] == '', over
    # the box emptied: nothing of the last translation left, only the line that asks for a sentence
    assert out['emptied'] == {'status': 'Type a German sentence in the box, or click an example.', 'result': 0, 'beam': {'hidden': True, 'views': 0}}, out['emptied']
    assert out['front']['meta'].startswith('beam search, 4 hypotheses'), out['front']['meta']
    assert out['front']['chips'] and not any('▁' in c for c in out['front']['chips'])
    n = int(out['steps'][0].rsplit(' ', 1)[1])
    assert out['steps'] == [f'Step {i} of {n}' for i in (1, 2, 3, 2, n, 1)], out['steps']
    assert 'kept' in out['firstRows'][0][0] and len(out['firstRows']) == 8, out['firstRows']
    assert out['end'] and 'ended' in ' '.join(out['rows']) and len(out['attention']) == len(out['front']['chips'])
    # the hostile sentence: shown as text, never run; the emoji said to be unknown
    assert out['dialogs'] == 0 and out['hostile']['scripts'] == 0 and '😀' in out['hostile']['warn'], out['hostile']
    # English → German: its model is fetched only after the switch
    assert not any('/models/en-de/' in u for u in out['requestsBeforeSwitch'])
    assert any('/models/en-de/' in u for u in out['requests']) and out['english'], out['english']
    assert out['switched']['placeholder'].startswith('Type an English sentence'), out['switched']
    notes = int8_notes()                                          # what int8 changes, measured for each direction: said once, under its own
    assert not any(n in out['note'] for n in notes.values()), out['note']                   # German → English here is a float32 export: no int8 note
    assert out['switched']['note'].count(notes['en-de']) == 1 and notes['de-en'] not in out['switched']['note'], out['switched']['note']
    # the click fetched the gzip copies (never the plain files), from a server that compresses nothing (http.server)
    got = {u[len(url):]: (n, enc) for u, n, enc in out['transfers']}
    sizes = json.loads((tmp_path / 'site' / 'live' / 'vendor' / 'files.json').read_text())['bytes']
    assert all(f'live/{f}' in got and sizes[f] <= got[f'live/{f}'][0] <= sizes[f] + 2000 for f in sizes), (sizes, got)
    assert not any(enc for _, enc in got.values())
    # the explorer: the second sentence, typed while the first decoded, wins; translation and grid as PyTorch's
    m, tok, _ = load_pretrained('multi30k-de-en')
    rec = beam_record(m, tok, second)
    assert out['hyp'] == rec['hyp'] and out['option'] == f"your sentence: {second}" and out['explorerBeam'] == 1
    assert out['grid'] == f"{START['kind']} {START['layer'] - 1} {START['head'] - 1}"
    rows, cols, w = attention_grid({'config': {'N': m.cfg.N}, 'sentences': [rec]}, 0, **START)
    shown = lambda p: p[1:] if p.startswith('▁') and len(p) > 1 else p
    want = [f"{shown(r)} → {shown(c)}: {w[i][j]:.2f}" for i, r in enumerate(rows) for j, c in enumerate(cols)]
    assert len(out['cells']) == len(want)
    close = lambda a, b: a.rsplit(': ', 1)[0] == b.rsplit(': ', 1)[0] and abs(float(a.rsplit(': ', 1)[1]) - float(b.rsplit(': ', 1)[1])) <= 0.011
    assert all(close(a, b) for a, b in zip(out['cells'], want)), [(a, b) for a, b in zip(out['cells'], want) if not close(a, b)][:3]
    assert out['width'][0] <= out['width'][1], "nothing wider than the window"
    # the beam view's words at the last step of the example, against beam_search traced in PyTorch (the export is float32)
    want = python_beam_labels(m.float(), tok, out['example'])
    score, ids = want[-1]['best']
    assert out['facts'][1] == f"best finished “{tok.decode(ids)}”, score {score:.2f}", out['facts']
    assert out['facts'][2].startswith(f"the translation “{tok.decode(ids)}”, score {score:.2f}: ") and out['front']['hyp'] == tok.decode(ids)
    assert out['facts'][3].endswith('none can beat it, so the search stops.') and len(want) == n
    assert out['finished'] == (f"Finished ({want[-1]['n_finished']}, the 3 best shown):" if want[-1]['n_finished'] > 3 else f"Finished ({want[-1]['n_finished']}):")
    # a paragraph: two sentences, each translated alone (beam 4, as PyTorch's), joined; a view each
    one, two = (beam_record(m, tok, s)['hyp'] for s in ('Ein Hund läuft über die Wiese.', 'Zwei Katzen schlafen.'))
    assert out['paragraph']['hyp'] == f"{one} {two}" and out['paragraph']['views'] == 2, out['paragraph']
    assert out['paragraph']['which'][0].startswith('Sentence 1 of 2: Ein Hund läuft über die Wiese.'), out['paragraph']
    # English in the German box: said, and the other direction offered
    assert out['language']['line'].startswith('This looks like English, but this model reads German') and out['language']['offer'] == 'Translate it English → German'
    # Arabic, and gibberish in Latin letters: a line that says the model cannot read it, and no other direction offered
    assert out['unreadable']['script']['line'].startswith('The model cannot read this: it reads German, in Latin letters') and out['unreadable']['script']['offers'] == 0
    assert out['unreadable']['letters']['line'].startswith('The model cannot read this: it splits it into single letters') and out['unreadable']['letters']['offers'] == 0
    # the path table and the beam view's: within the window, wrapping at spaces (no word broken inside), or scrolling
    # in their own box, never cut
    assert len(out['tables']) >= 2 and all(t['right'] <= t['inner'] and not t['broken'] for t in out['tables']), out['tables']
    # a link to #translator: the first example decoded, the input and its translation in the window
    land = out['landing']
    assert land['text'] == out['example'] and land['hyp'] == out['front']['hyp'] and land['scrolled'] > 0
    assert 0 <= land['input'][0] and land['result'][1] <= land['height'], land

def test_the_pages_helpers_show_pieces_cut_text_and_find_what_the_model_cannot_read():
    "app.mjs's helpers under Node: pieces shown without ▁, a text over 300 characters (UTF-16 units, as the translator"
    " counts) cut at a space before the limit, never inside an emoji, and what the model cannot read: unknown runs and"
    " dropped characters, from the translator's report or else from its tokenizer."
    node()
    script = """
import { shownPiece, continues, piecesText, cutText, unreadable, MAX_CHARS } from './nbs/live/app.mjs';
const tok = { normalize: t => t.replace(/\\u200b/g, ''), encodeNormalized: t => t.split(' ').map(w => [w, /[<😀]/.test(w) ? 1 : 5]) };
const long = 'ab '.repeat(99) + 'Wort' + '😀'.repeat(10), odd = cutText('a' + '😀'.repeat(150)).text;
console.log(JSON.stringify({
  shown: ['▁Hund', 'rad', '▁', '</s>', '<unk>'].map(shownPiece), cont: ['▁Hund', 'rad', '</s>', '.'].map(continues),
  text: piecesText(['▁Ein', '▁Fahr', 'rad', '.', '</s>']), max: MAX_CHARS, short: cutText('Ein Hund.'),
  long: cutText(long).text.length, word: cutText('x'.repeat(400)).text.length, emoji: cutText('😀'.repeat(150)).cut,
  odd: [odd.length, /[\\ud800-\\udbff]$/.test(odd)],
  lost: unreadable({ tokenizer: tok, special: { unk: 1 } }, 'a < b 😀 c\\u200b', {}),
  given: unreadable({}, '', { unknown: ['<', { text: '>', as: 'dropped' }] }) }));
"""
    r = subprocess.run([node(), '--input-type=module', '-e', script], capture_output=True, text=True, encoding='utf-8', cwd=ROOT, timeout=60)
    assert r.returncode == 0, r.stderr
    got = json.loads(r.stdout)
    assert got['shown'] == ['Hund', 'rad', '␣', '</s>', '<unk>'] and got['cont'] == [False, True, False, True]
    assert got['text'] == 'Ein Fahrrad.' and got['max'] == 300 and got['short'] == {'text': 'Ein Hund.', 'cut': False}
    assert got['long'] == 3 * 99 - 1 and got['word'] == 300 and got['emoji'] is False     # cut at the last space; a 400-letter word at 300
    assert got['odd'] == [299, False], "an emoji (two UTF-16 units) is never cut in half"
    assert got['lost'] == [{'text': '<', 'as': 'unknown'}, {'text': '😀', 'as': 'unknown'}, {'text': '\u200b', 'as': 'dropped'}]
    assert got['given'] == [{'text': '<', 'as': 'unknown'}, {'text': '>', 'as': 'dropped'}]

# --- the beam view's words, held against a search traced in Python -----------------------------------------------------

def python_beam_labels(model, tok, sentence:str, beam:int=4, alpha:float=0.6, max_extra:int=50) -> list[dict]:
    "Each step of 10_decoding's `beam_search` on `sentence`, traced, labelled by the rule the page states, and stopped as"
    " tnb-translate stops (one translation wanted: once the best finished score is at least the best open log p / lp(L))."
    import torch
    from transformer_nb.core import EOS_ID
    from transformer_nb.lib.fast_decoding import beam_search_batch, max_output_lengths
    from transformer_nb.decoding import length_penalty
    src, trace, finished, steps = torch.tensor([tok.encode(sentence) + [EOS_ID]]), [], [], []
    beam_search_batch(model, src, beam=beam, alpha=alpha, max_extra=max_extra, trace=trace)
    L = int(max_output_lengths(model, src, max_extra)[0])
    for t, s in enumerate(trace):
        ys, (origin, token, logp, ends, go) = s['ys'], (s[k][0] for k in ('origin', 'tok', 'logp', 'ends', 'go'))
        rows = []
        for j in range(logp.numel()):
            parent, end = ys[int(origin[j])][1:].tolist(), int(token[j]) == EOS_ID
            fate = 'finishes' if bool(ends[j]) else 'goes on' if j in go.tolist() else 'dropped'
            if fate == 'goes on' and t + 1 >= L: fate = 'finishes'                               # at the cap, they end too
            rows.append(dict(tokens=parent if end else parent + [int(token[j])], logp=float(logp[j]), fate=fate))
            if fate == 'finishes': finished.append((float(logp[j]) / s['lp'], rows[-1]['tokens']))
        open_ = [r for r in rows if r['fate'] == 'goes on']
        best = max(finished, key=lambda f: f[0]) if finished else None                      # the first to end on a tie
        reach = open_[0]['logp'] / length_penalty(L, alpha) if open_ else None          # the most an open one could score
        done = t + 1 >= L or not open_ or (best is not None and best[0] >= reach)
        for r in open_: r['fate'] = 'left open' if done else r['fate']
        steps.append(dict(rows=rows, best=best, done=done, best_open=rows.index(open_[0]) if open_ else None, n_finished=len(finished)))
        if done: break
    return steps

BEAM_VIEW = """
import { beamStep } from './nbs/live/app.mjs';
import { outputCap } from './nbs/live/decoding.mjs';
import { readFileSync } from 'node:fs';
const { results, dir } = JSON.parse(readFileSync(0, 'utf8'));
const c = JSON.parse(readFileSync(`${dir}/config.json`, 'utf8'));      // every setting from the export, as the page takes them
const cap = { maxExtra: c.max_extra, maxPositions: c.config.pos === 'learned' ? c.config.max_len : null };
console.log(JSON.stringify(results.map(([res, greedy]) => res.trace.map((_, t) =>
  beamStep(res, t, { beam: greedy ? 1 : c.beam, alpha: c.alpha, limit: outputCap(cap, res.src.length) })))));
"""

def test_the_beam_views_labels_hold_against_a_search_traced_in_python(fp32_export):
    "The words of the page's beam view (app.mjs's `beamStep`, over translate.mjs's trace of the float32 export) against"
    " 10_decoding's `beam_search` traced in PyTorch, at every step of two sentences: each row's hypothesis, log p and fate"
    " (finishes: an end among the 4 best; dropped: an end below them, or an open row past the 4 best; goes on; left open"
    " when the search stops), the best open row, the best finished hypothesis and its score, the translation chosen in the"
    " end, the step where the search stops, and every finished hypothesis counted; and the greedy view: one hypothesis, the"
    " piece taken at each step greedy_decode's, ending at its end."
    node_modules()
    import torch
    from transformer_nb.apps.pretrained import load_pretrained
    from transformer_nb.lib.fast_decoding import greedy_decode_batch
    from transformer_nb.core import EOS_ID
    model, tok, _ = load_pretrained('multi30k-de-en')
    model = model.float()
    # the front page's first example (its chosen translation ends 3 steps before the search, 8 finish), and a short one
    sentences = ['Ein brauner Hund rennt durch den tiefen Schnee.', 'Hallo.']
    traced = [json.loads(l) for l in run_node(LIVE / 'translate.mjs', fp32_export, '--json', '--trace', *sentences, stdin='')]
    greedy = json.loads(run_node(LIVE / 'translate.mjs', fp32_export, '--json', '--trace', '--beam', '1', sentences[0], stdin='')[0])
    conf = json.loads((fp32_export / 'config.json').read_text())
    max_extra = conf['max_extra']
    r = subprocess.run([node(), '--input-type=module', '-e', BEAM_VIEW], input=json.dumps({'results': [[x, False] for x in traced] + [[greedy, True]],
                       'dir': str(fp32_export)}), capture_output=True, text=True, encoding='utf-8', cwd=ROOT, timeout=120)
    assert r.returncode == 0, r.stderr
    *views, gview = json.loads(r.stdout)
    for sentence, res, view in zip(sentences, traced, views):
        want = python_beam_labels(model, tok, sentence, conf['beam'], conf['alpha'], max_extra)
        assert len(view) == len(want), (sentence, len(view), len(want))                   # it stops at the same step
        for t, (v, w) in enumerate(zip(view, want)):
            assert [(r['tokens'], r['fate']) for r in v['rows']] == [(r['tokens'], r['fate']) for r in w['rows']], (sentence, t)
            assert all(abs(a['logp'] - b['logp']) < 1e-3 for a, b in zip(v['rows'], w['rows'])), (sentence, t)
            assert [i for i, r in enumerate(v['rows']) if r['bestOpen']] == ([w['best_open']] if w['best_open'] is not None else [])
            assert (v['best'] or {}).get('tokens') == (w['best'][1] if w['best'] else None) and len(v['finished']) == w['n_finished']
            assert v['best'] is None or abs(v['best']['score'] - w['best'][0]) < 1e-3
            assert v['done'] == w['done'] == (t == len(want) - 1) and (v['stop'] == 'bound') == w['done'], (sentence, t)
            finished = [r['score'] for r in v['rows'] if r['fate'] == 'finishes']
            assert all(s is not None for s in finished) and all(r['score'] is None for r in v['rows'] if r['fate'] != 'finishes')
        chosen = view[-1]['chosen']                                                             # the translation: the best finished
        assert chosen['tokens'] == want[-1]['best'][1] == res['out'] and abs(chosen['score'] - want[-1]['best'][0]) < 1e-3
        assert all(v['chosen'] == chosen for v in view)
        ends = [t for t, w in enumerate(want) if any(r['fate'] == 'finishes' and r['tokens'] == chosen['tokens'] for r in w['rows'])]
        assert chosen['step'] == ends[0] and ends[0] < len(want) - 1                           # it finished before the search stopped
        paths = [[i for i, r in enumerate(v['rows']) if r['path']] for v in view]               # its row, at each step until then
        assert all(len(p) == 1 for p in paths[:ends[0] + 1]) and not any(paths[ends[0] + 1:])
        assert all(view[t]['rows'][p[0]]['tokens'] == chosen['tokens'][:t + 1] for t, p in enumerate(paths[:ends[0]]))
    assert any(r['fate'] == 'dropped' and r['piece'] == '</s>' and any(q['fate'] == 'goes on' and q['logp'] < r['logp'] for q in v['rows'])
               for v in views[0] for r in v['rows']), "an end dropped above an open row that goes on: the case the rule explains"
    assert len(views[0][-1]['finished']) == 8
    # greedy: one hypothesis; row 1 is taken at each step, greedy_decode's tokens, and the last step takes the end
    out = greedy_decode_batch(model, torch.tensor([tok.encode(sentences[0]) + [EOS_ID]]))[0]
    assert all(v['greedy'] and [r['fate'] for r in v['rows']] == ['taken', 'not taken'] for v in gview)
    assert [v['rows'][0]['tokens'][-1] for v in gview[:-1]] == out and gview[-1]['rows'][0]['piece'] == '</s>'
    assert [v['stop'] for v in gview] == [None] * (len(gview) - 1) + ['end'] and gview[-1]['chosen']['tokens'] == out

def test_the_page_splits_paragraphs_names_invisible_characters_and_sees_the_language():
    "app.mjs's helpers under Node: a paragraph split into sentences (at . ! ? … before a capital, a digit or a quote, and"
    " at line breaks; never after a number, an initial, an abbreviation), characters a reader cannot see named, a zero-width"
    " space reported as read as a space, the share of unknown pieces, and which language a text looks like."
    node()
    script = """
import { splitSentences, visible, looksLike, unknownShare, unreadable, readingNote } from './nbs/live/app.mjs';
const tok = { normalize: t => '▁' + t.replace(/\\u200b/g, ' ').replace(/\\u00ad/g, '').split(/\\s+/).filter(Boolean).join('▁'), encodeNormalized: t => [] };
console.log(JSON.stringify({
  split: ['Ein Mann fährt Rad. Zwei Hunde spielen im Schnee! Was nun?', 'Am 3. Mai kam Dr. Müller. Er lachte.',
          'J. K. Rowling schreibt, z.B. Bücher. „Ja“, sagt er.', 'Ein Hund.\\nzwei Katzen', 'Er sagt: „Hallo.“ Dann geht er…', 'ein satz. noch einer', ''].map(splitSentences),
  visible: visible('Ein\\u00adHund\\u200b x\\u00a0y \\u2062z'),
  looks: ['The dog is running in the park.', 'Ein Hund läuft über die Wiese.', 'مرحبا بالعالم', 'Hallo.'].map(looksLike),
  share: unknownShare(['▁', '<unk>', '▁', '<unk>', '▁Hund', '</s>']),
  lost: unreadable({ tokenizer: tok }, 'a\\u200bb c\\u00add', { unknown: [] }),
  bytes: unknownShare(['▁', '<0xE4>', '▁a', '</s>']),
  notes: [['The dog is running.', ['▁The', '▁dog', '▁is', '▁running', '.', '</s>'], 'English'], ['The dog is running.', ['▁The', '▁dog', '</s>'], null],
          ['مرحبا بالعالم', ['▁', '<unk>', '▁', '<unk>', '</s>'], 'English'], ['xkqz vbrt', ['▁x', 'k', 'q', 'z', '▁v', 'b', 'r', 't', '</s>'], 'English'],
          ['ŧŋ', ['▁', '<unk>', '</s>'], 'English'], ['ŧŋ ab ŧ', ['▁', '<unk>', '▁ab', '▁', '<unk>', '</s>'], 'English'],
          ['ŧŋ ab cd', ['▁', '<unk>', '▁ab', '▁cd', '</s>'], 'English'], ['Ein Hund.', ['▁Ein', '▁Hund', '.', '</s>'], 'English']]
    .map(([t, p, other]) => readingNote(t, p, 'German', other)) }));
"""
    r = subprocess.run([node(), '--input-type=module', '-e', script], capture_output=True, text=True, encoding='utf-8', cwd=ROOT, timeout=60)
    assert r.returncode == 0, r.stderr
    got = json.loads(r.stdout)
    assert got['split'] == [['Ein Mann fährt Rad.', 'Zwei Hunde spielen im Schnee!', 'Was nun?'], ['Am 3. Mai kam Dr. Müller.', 'Er lachte.'],
                            ['J. K. Rowling schreibt, z.B. Bücher.', '„Ja“, sagt er.'], ['Ein Hund.', 'zwei Katzen'],
                            ['Er sagt: „Hallo.“', 'Dann geht er…'], ['ein satz. noch einer'], []]
    assert got['visible'] == 'Ein⟨soft hyphen⟩Hund⟨zero-width space⟩ x⟨no-break space⟩y ⟨U+2062⟩z'
    assert got['looks'] == ['English', 'German', None, None] and got['share'] == {'unknown': 2, 'total': 3}
    assert got['lost'] == [{'text': '\u200b', 'as': 'space'}, {'text': '\u00ad', 'as': 'dropped'}]
    assert got['bytes'] == {'unknown': 1, 'total': 2}                       # a byte piece is as unknown as <unk>
    kinds = [(n or {}).get('kind') for n in got['notes']]
    assert kinds == ['other', 'other', 'script', 'letters', 'unknown', 'unknown', None, None], got['notes']
    assert [n['offer'] for n in got['notes'][:4]] == [True, False, False, False]   # the switch only to the language it looks like
    assert got['notes'][4]['why'].startswith('The one piece the model read is unknown to it: it reads German')
    assert got['notes'][5]['why'].startswith('2 of the 3 pieces the model read are unknown to it')

def test_both_command_line_translators_say_they_take_one_sentence_a_line():
    "The page splits a paragraph into sentences; the two command-line translators do not, and say so: tnb-translate's"
    " --help and apps_cli's words, and translate.mjs's usage line and header, each read a line as one sentence."
    node()
    from transformer_nb.apps.cli import _translate_parser
    assert 'Each line is translated as one sentence' in ' '.join(_translate_parser().format_help().split())
    r = node_fails(LIVE / 'translate.mjs')
    assert r.returncode == 2 and 'one sentence a line' in r.stderr, r.stderr
    assert 'translated as one sentence, as tnb-translate reads its lines' in ' '.join((LIVE / 'translate.mjs').read_text(encoding='utf-8').split())
    a19 = json.loads((ROOT / 'nbs' / 'apps_cli.ipynb').read_text(encoding='utf-8'))
    assert any('Each line is translated as one sentence' in ' '.join(''.join(c['source']).split()) for c in a19['cells'] if c['cell_type'] == 'markdown')

def test_translate_mjs_without_its_packages_says_how_to_install_them(tmp_path):
    "Where nbs/live's packages are not installed (README's commands do not install them), translate.mjs still gives its"
    " usage line and refuses a bad option, and a translation ends in one line that names `npm ci --prefix nbs/live`."
    for f in LIVE.glob('*.mjs'): shutil.copy(f, tmp_path / f.name)        # the page's modules, with no node_modules beside them
    script = tmp_path / 'translate.mjs'
    r = node_fails(script)
    assert r.returncode == 2 and r.stderr.startswith('translate.mjs: usage: node nbs/live/translate.mjs MODEL_DIR'), r.stderr
    r = node_fails(script, tmp_path, '--beam', 'x', 'Hallo.')
    assert (r.returncode, r.stderr) == (2, 'translate.mjs: --beam x must be an int in [1, 1000]\n'), r.stderr
    r = node_fails(script, tmp_path, 'Hallo.')
    assert (r.returncode, r.stderr, r.stdout) == (1, 'translate.mjs: ONNX Runtime Web is not installed: run npm ci --prefix nbs/live\n', ''), r.stderr

def test_the_page_reports_a_soft_hyphen_and_a_zero_width_space_by_name(tokenizer_file):
    "With the published model's tokenizer: a soft hyphen is an unknown piece and a zero-width space is read as a space;"
    " the page reports both, by name (what a reader cannot see is never an empty chip)."
    node()
    script = f"""
import {{ unreadable, visible }} from './nbs/live/app.mjs';
import {{ Tokenizer }} from './nbs/live/tokenizer.mjs';
import {{ readFileSync }} from 'node:fs';
const tok = new Tokenizer(JSON.parse(readFileSync({json.dumps(str(tokenizer_file))}, 'utf8'))), text = 'Ein Hund\\u00adspielt im\\u200bSchnee.';
const lost = unreadable({{ tokenizer: tok, special: {{ unk: 1 }} }}, text, {{ unknown: tok.encodeInfo(text).unknown }});
console.log(JSON.stringify(lost.map(u => [u.as, visible(u.text)])));
"""
    r = subprocess.run([node(), '--input-type=module', '-e', script], capture_output=True, text=True, encoding='utf-8', cwd=ROOT, timeout=60)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout) == [['unknown', '⟨soft hyphen⟩'], ['space', '⟨zero-width space⟩']]


def test_the_pages_caps_and_penalty_are_the_engines():
    "decoding.mjs's `outputCap` and `lengthPenalty` against the engine's `max_output_lengths` and 10's `length_penalty`:"
    " the same caps (max_extra beyond 4,096 capped, learned positions bounding) and the same penalties, to the last bit."
    import torch
    from types import SimpleNamespace
    from transformer_nb.decoding import length_penalty
    from transformer_nb.lib.fast_decoding import max_output_lengths
    cases = [(5, 50, None), (5, 10**6, None), (12, 0, None), (9, 50, 20), (30, 4096, 32)]   # srcLen, maxExtra, maxPositions
    script = ("import { outputCap, lengthPenalty } from './nbs/live/decoding.mjs';"
              f"console.log(JSON.stringify([{json.dumps(cases)}.map(([n, x, p]) => outputCap({{maxExtra: x, maxPositions: p}}, n)),"
              "[1, 7, 20, 63].map(n => [0, 0.6, 1].map(a => lengthPenalty(n, a)))]));")
    r = subprocess.run([node(), '--input-type=module', '-e', script], capture_output=True, text=True, encoding='utf-8', cwd=ROOT, timeout=60)
    assert r.returncode == 0, r.stderr
    caps, lps = json.loads(r.stdout)
    want = [int(max_output_lengths(SimpleNamespace(cfg=SimpleNamespace(max_positions=p)), torch.full((1, n), 5), x)[0]) for n, x, p in cases]
    assert caps == want == [55, 5 + 4096, 12, 20, 32]
    assert lps == [[length_penalty(n, a) for a in (0, 0.6, 1)] for n in (1, 7, 20, 63)]

def _recorded(folder:Path, **files) -> Path:
    "`files` ({name: bytes}) put into the export `folder` and recorded in its config.json and config.sha256: another model's file passed off as the export's own, past every sha256."
    import hashlib
    conf = json.loads((folder / 'config.json').read_text())
    for name, data in files.items():
        (folder / name).write_bytes(data); conf['files'][name] = {'bytes': len(data), 'sha256': hashlib.sha256(data).hexdigest()}
    (folder / 'config.json').write_text(json.dumps(conf, indent=1))
    (folder / 'config.sha256').write_text(hashlib.sha256((folder / 'config.json').read_bytes()).hexdigest() + '  config.json\n')
    return folder

@pytest.mark.slow
@pytest.mark.parametrize('float32', [False, True], ids=['int8', 'float32'])
def test_another_models_encoder_is_refused_alike_by_translate_mjs_and_python(int8_export, fp32_export, tmp_path, float32):
    "encoder.onnx of another model (the number model's) recorded as the export's: translate.mjs once ended in ONNX Runtime's internals, exit 1; now one line naming encoder.onnx, exit 2, in the words of Python's `OnnxModel`."
    node_modules()
    ex, q = export_module(), None if float32 else 'int8'
    d = tmp_path / 'm'; shutil.copytree(fp32_export if float32 else int8_export, d)
    other = ex.export_onnx('pretrained:numbers', tmp_path / 'numbers', quantize=q)
    _recorded(d, **{'encoder.onnx': (other / 'encoder.onnx').read_bytes()})
    r = node_fails(LIVE / 'translate.mjs', d, 'Hallo.')
    assert r.returncode == 2 and not r.stdout and len(r.stderr.strip().splitlines()) == 1, r.stderr
    line = r.stderr.strip().removeprefix('translate.mjs: ')
    with pytest.raises(ValueError) as e: ex.onnx_translate(d, ['Hallo.'])
    assert line.startswith(f"{d / 'encoder.onnx'}") and line.endswith('export the folder again') and '\n' not in str(e.value), line
    assert str(e.value) == line                                                       # the same words

def test_translate_mjs_takes_config_jsons_max_len_and_names_a_bad_tokenizer_json(int8_export, tmp_path):
    "config.json's max_len is the source limit of both readers (translate.mjs once took config.max_len instead): one line each, in their words; a tokenizer.json that is not JSON is named, never JSON.parse's bare error."
    node_modules()
    d = edited_config(int8_export, tmp_path / 'm', max_len=4)
    r = node_fails(LIVE / 'translate.mjs', d, 'Zwei Hunde spielen im Schnee.')
    with pytest.raises(ValueError) as e: export_module().onnx_translate(d, ['Zwei Hunde spielen im Schnee.'])
    assert r.returncode == 2 and r.stderr.strip().removeprefix('translate.mjs: ') == str(e.value).replace('sentences[0]', 'sentence 1') + ': split it into sentences', (r.stderr, e.value)
    assert 'more than the limit of 4' in str(e.value)
    t = _recorded(edited_config(int8_export, tmp_path / 't'), **{'tokenizer.json': b'{"model": '})
    r = node_fails(LIVE / 'translate.mjs', t, 'Hallo.')
    assert r.returncode == 2 and r.stderr.startswith(f"translate.mjs: {t / 'tokenizer.json'} is not valid JSON (") and r.stderr.strip().endswith('): export the folder again'), r.stderr

# --- what the page says: its notes, its cut, its links ----------------------------------------------------------------

def int8_notes() -> dict:
    "app.mjs's INT8_NOTES, the words the page says of int8 weights under each direction, as Node reads the module."
    r = subprocess.run([node(), '--input-type=module', '-e', "import { INT8_NOTES } from './nbs/live/app.mjs'; console.log(JSON.stringify(INT8_NOTES));"],
                       capture_output=True, text=True, encoding='utf-8', cwd=ROOT, timeout=60)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)

def test_each_directions_int8_note_says_what_was_measured_for_it():
    "The page's line on int8 weights, under each direction, quotes what bench/bench_int8.py measured for that direction's"
    " published model decoded as the page decodes it (results/int8.json: the export's beam, int8 against float32 on"
    " test2016): how many translations int8 changes, and BLEU from one to the other; not that it 'can change a word'."
    rec, notes = json.loads((ROOT / 'results' / 'int8.json').read_text(encoding='utf-8')), int8_notes()
    assert set(notes) == set(rec['models']) == {'de-en', 'en-de'}, (set(notes), set(rec['models']))
    for name, m in rec['models'].items():
        note = notes[name]
        assert m['checkpoint'] == f'pretrained:multi30k-{name}' and m['decoding'] == {'beam': 4, 'alpha': 0.6} and m['changed'] > 0, m
        for says in (f"on Multi30k's {m['n_sentences']:,} test2016 sentences, decoded by beam search with {m['decoding']['beam']} hypotheses (this page's default)", f"int8 changes {m['changed']:,} translations against float32 weights",
                     f"BLEU from {m['bleu']['float32']:.2f} to {m['bleu']['int8']:.2f}"):
            assert says in note, (name, says, note)
    assert notes['de-en'] != notes['en-de'] and 'can change a word' not in (LIVE / 'app.mjs').read_text(encoding='utf-8')

def check_docs_module():
    "tools/check_docs.py, imported (it checks the site's links and anchors, the live translator's included)."
    import importlib.util
    spec = importlib.util.spec_from_file_location('check_docs', ROOT / 'tools' / 'check_docs.py')
    m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m)
    return m

def notebook_pages() -> dict:
    "Every notebook of nbs/ by name, its cells as stored (their headings are those of the site's pages)."
    return {p.name: json.loads(p.read_text(encoding='utf-8'))['cells'] for p in sorted((ROOT / 'nbs').glob('*.ipynb'))}

def site_page_exists(url:str) -> bool:
    "Whether `url`, a link the page built (on any host), names a page of the site (a notebook's) and, after #, an anchor it has."
    from urllib.parse import urlsplit
    u, docs = urlsplit(url), check_docs_module()
    nb = u.path.rsplit('/', 1)[-1].removesuffix('.html') + '.ipynb'
    pages = notebook_pages()
    return nb in pages and (not u.fragment or u.fragment in docs.page_anchors(pages)[nb])

def test_every_link_the_live_page_builds_names_a_page_of_the_site(tmp_path):
    "The page links nbs/live's modules write (the front translator's to the attention explorer) name a notebook's page and"
    " an anchor it has, as tools/check_docs.py checks them on every build; a link to a page renamed since, or to an anchor"
    " that is no heading, is named."
    docs, pages = check_docs_module(), notebook_pages()
    links = docs.live_links(LIVE)
    assert ('app.mjs', 'apps_attention_explorer.html', 'translator') in links, links
    assert docs.check_live_links(pages, LIVE) == []
    (tmp_path / 'x.mjs').write_text("const to = new URL(`${offset}a21_attention_explorer.html`, location.href);\n"   # the link before the rename
                                    "const b = `apps_attention_explorer.html#nowhere`, c = \"index.html#results\";")
    assert docs.check_live_links(pages, tmp_path) == [
        'live/x.mjs: a21_attention_explorer.html: the site has no such page (no notebook a21_attention_explorer.ipynb)',
        'live/x.mjs: apps_attention_explorer.html#nowhere: no heading #nowhere in apps_attention_explorer.ipynb',
        'live/x.mjs: index.html#results: no heading #results in index.ipynb']

def test_an_anchor_is_the_id_quarto_gives_its_heading():
    "Quarto (pandoc) drops what precedes a heading's first letter: '## 11_results' is #results, so a link to"
    " course_exercises.ipynb#11_results (as the course's links were before its checkers split) is named, and no link of"
    " the notebooks points at an anchor their pages lack."
    docs = check_docs_module()
    assert [docs.slug(h) for h in ('11_results', '13_parsing', 'How a check reports', '2.1 Masks', '§3.2', 'Exercise 3: `check_pad_batch`')] == \
        ['results', 'parsing', 'how-a-check-reports', 'masks', 'section', 'exercise-3-check_pad_batch']
    md = lambda s: {'cell_type': 'markdown', 'source': [s]}
    pages = {'a.ipynb': [md('[x](b.ipynb#11_results) [y](b.ipynb#results) [z](#parsing)')], 'b.ipynb': [md('## 11_results')]}
    assert docs.check_links(pages, ROOT / 'nbs') == ['a.ipynb: b.ipynb#11_results: no heading #11_results in b.ipynb',
                                                     'a.ipynb: #parsing is no heading of this page']
    assert docs.check_links(notebook_pages(), ROOT / 'nbs') == []

def test_the_sidebar_says_which_notebooks_the_paper_section_holds():
    "sidebar.yml's first line names the paper path's range as its section lists it: 00 to 14."
    import yaml
    side = (ROOT / 'nbs' / 'sidebar.yml').read_text(encoding='utf-8')
    paper = next(s['contents'] for s in yaml.safe_load(side)['website']['sidebar']['contents'] if isinstance(s, dict) and s.get('section') == 'The paper')
    first, last = paper[0][:2], paper[-1][:2]
    assert (first, last) == ('00', '14') and f"the paper path ({first}-{last})" in side.splitlines()[0], side.splitlines()[0]

NOTES = """
import { readingNote, cutText, countChars, splitSentences, sentenceSpans } from './nbs/live/app.mjs';
import { Tokenizer } from './nbs/live/tokenizer.mjs';
import { readFileSync } from 'node:fs';
const { tokenizers, lines, texts } = JSON.parse(readFileSync(0, 'utf8'));
const tok = Object.fromEntries(Object.entries(tokenizers).map(([k, f]) => [k, new Tokenizer(JSON.parse(readFileSync(f, 'utf8')))]));
const note = (t, from) => readingNote(t, [...tok[from].encodeInfo(t).pieces, '</s>'], from, from === 'German' ? 'English' : 'German');
console.log(JSON.stringify({
  lines: Object.fromEntries(Object.entries(lines).map(([k, [from, ls]]) => [k, ls.map(l => note(l, from))])),
  texts: texts.map(([t, from]) => note(t, from)),
  split: ['Im Jahr 2010. Danach schläft er.', 'Acme Inc. The dog runs.', 'Am 3. Mai kam Dr. Müller, z. B. mit Äpfeln usw. Dann ging er.',
          'Im 19. Jh. entstand sie. Sie steht noch.', 'Die Firma Müller & Co. baut Häuser.', 'Sie kaufen Äpfel, Brot etc. Dann gehen sie.', 'Er wurde 1990 geboren.\\nDanach kam er.',
          'Er wohnt in der Hauptstr. 5 in Berlin.', 'Es waren 100. Dann 200.', 'There were 100. Then 200.'].map(splitSentences),
  spans: sentenceSpans(' Ein Hund.  Zwei Katzen. '),
  cut: [cutText('Ein Hund läuft über die Wiese. '.repeat(11).trim()), cutText('Ein Hund. ' + 'Eine Katze schläft lange '.repeat(14) + 'zuletzt.'),
        cutText('Eine Katze schläft lange '.repeat(14) + 'zuletzt. Ein Hund.')],
  count: ['  ' + 'Ein Hund läuft über die Wiese. '.repeat(11), 'Ein Hund.  '].map(countChars) }));
"""

@pytest.fixture(scope='module')
def en_de_tokenizer_file(tmp_path_factory) -> Path:
    "tokenizer.json of the pretrained en→de model, as the ONNX export writes it."
    from transformer_nb.apps.pretrained import load_pretrained
    path = tmp_path_factory.mktemp('tok-en') / 'tokenizer.json'
    path.write_text(json.dumps(export_module().tokenizer_json(load_pretrained('multi30k-en-de')[1]), ensure_ascii=False), encoding='utf-8')
    return path

def test_the_language_notes_on_multi30k_french_and_a_quoted_sign(tokenizer_file, en_de_tokenizer_file):
    "With the published models' tokenizers, on Multi30k's test2016: no German line in the German box and no English line"
    " in the English box gets a note; French lines get the line any language the model does not read gets ('This looks"
    " like French, but this model reads German', no switch offered), the reader's 'Un homme fait du vélo dans la rue.'"
    " included; an ordinary German caption quoting a sign in capitals gets no note, a text all in capitals gets its own."
    node()
    folder = skip_without_multi30k()
    test = lambda lang: gzip.open(folder / f'test_2016_flickr.{lang}.gz', 'rt', encoding='utf-8').read().splitlines()
    texts = [['Un homme fait du vélo dans la rue.', 'German'], ['Un homme fait du vélo dans la rue.', 'English'],
             ['The dog is running in the park.', 'German'],
             ['Ein Mann hält ein Schild mit der Aufschrift „NOTHING LEF NOTHING RIGHT“.', 'German'],
             ['Eine Frau steht vor einem Schild mit der Aufschrift "NOTHING LEF NOTHING RIGHT".', 'German'],
             ['EIN MANN FÄHRT MIT DEM RAD.', 'German']]
    job = {'tokenizers': {'German': str(tokenizer_file), 'English': str(en_de_tokenizer_file)}, 'texts': texts,
           'lines': {'de': ['German', test('de')], 'en': ['English', test('en')], 'fr': ['German', test('fr')]}}
    r = subprocess.run([node(), '--input-type=module', '-e', NOTES], input=json.dumps(job), capture_output=True, text=True, encoding='utf-8', cwd=ROOT, timeout=300)
    assert r.returncode == 0, r.stderr
    got = json.loads(r.stdout)
    lines = got['lines']
    assert len(lines['de']) == len(lines['en']) == 1000 and not any(lines['de']) and not any(lines['en']), \
        [(l, n) for k in ('de', 'en') for l, n in zip(test(k), lines[k]) if n][:3]
    french = [n for n in lines['fr'] if n and n['kind'] == 'other']
    assert all(n['why'].startswith('This looks like French, but this model reads German') and not n['offer'] for n in french), french[:3]
    assert len(french) >= 850, f"{len(french)} of 1000 French lines named French (903 when measured)"   # the rest: no note, or 'letters'
    fr_de, fr_en, en_de, sign, sign2, caps = got['texts']
    english_line = en_de['why']                                                  # the line of a language the model does not read
    assert fr_de['why'] == english_line.replace('English', 'French') and fr_de['offer'] is False and en_de['offer'] is True
    assert fr_en['why'] == 'This looks like French, but this model reads English: it reads your words as English ones, so the translation means little.'
    assert sign is None and sign2 is None, (sign, sign2)
    assert caps['kind'] == 'capitals' and caps['why'].startswith('Most of these words are in capitals, which the model splits into single letters'), caps
    # the splitter: a year ends its sentence, as an abbreviation that may end one (Inc., usw.) does before a capital;
    # an ordinal, Dr., z. B., Jh. before a lower-case word and Co. before one do not
    assert got['split'] == [['Im Jahr 2010.', 'Danach schläft er.'], ['Acme Inc.', 'The dog runs.'],
                            ['Am 3. Mai kam Dr. Müller, z. B. mit Äpfeln usw.', 'Dann ging er.'], ['Im 19. Jh. entstand sie.', 'Sie steht noch.'],
                            ['Die Firma Müller & Co. baut Häuser.'], ['Sie kaufen Äpfel, Brot etc.', 'Dann gehen sie.'], ['Er wurde 1990 geboren.', 'Danach kam er.'],
                            ['Er wohnt in der Hauptstr. 5 in Berlin.'], ['Es waren 100.', 'Dann 200.'], ['There were 100.', 'Then 200.']]   # a street's number; a count ends its sentence
    assert got['spans'] == [[0, 12], [12, 25]]
    # the cut: where the last whole sentence ends within 300 characters; a first sentence longer than that, at a space
    whole, short_first, long_first = got['cut']
    assert whole == {'text': ('Ein Hund läuft über die Wiese. ' * 9).strip(), 'cut': True}, whole
    assert short_first == {'text': 'Ein Hund.', 'cut': True}, short_first
    assert long_first == {'text': ('Eine Katze schläft lange ' * 12).strip(), 'cut': True}, long_first
    # the counter and the warning count the same characters: the box's text without the spaces around it
    assert got['count'] == [{'n': 31 * 11 - 1, 'text': ('Ein Hund läuft über die Wiese. ' * 9).strip(), 'cut': True}, {'n': 9, 'text': 'Ein Hund.', 'cut': False}]

# --- the site's tables at a phone's width and a desktop's ------------------------------------------------------------

TABLE = __import__('re').compile(r'(?m)^\|.*\|[ \t]*\n\|[-:| ]+\|[ \t]*\n(?:\|.*\|[ \t]*(?:\n|$))*')
# What Quarto's theme gives a page that matters to a table's layout: Bootstrap's rules for `table.table` (the class Quarto
# puts on each Markdown table), its body text, and the gutters of its column on a phone (1.5em a side)
QUARTO_TABLES = ('body{margin:0;font-size:16px;line-height:1.5;font-family:system-ui,sans-serif} main{padding:0 1.5em}'
                 ' .table{width:100%;margin-bottom:1rem;vertical-align:top;border-collapse:collapse}'
                 ' .table>:not(caption)>*>*{padding:.5rem .5rem;border-bottom:1px solid #dee2e6}'
                 ' @media (min-width: 992px){main{max-width:850px;margin:0 auto}}')

def markdown_tables(kinds:bool=False) -> list[tuple]:
    "Every Markdown table of the notebooks, their text and their Markdown outputs: [(notebook, table)], or with `kinds`"
    " [(notebook, table, output)], output True for a table a cell prints (Quarto puts it in a cell's output)."
    out = []
    for nb, cells in notebook_pages().items():
        for c in cells:
            texts = [(''.join(c['source']), False)] if c['cell_type'] == 'markdown' else []
            texts += [(o['data']['text/markdown'] if isinstance(o['data']['text/markdown'], str) else ''.join(o['data']['text/markdown']), True)
                      for o in c.get('outputs', []) if 'text/markdown' in o.get('data', {})]
            out += [(nb, m.group(0), shown) if kinds else (nb, m.group(0)) for t, shown in texts for m in TABLE.finditer(t)]
    return out

def table_html(md:str) -> str:
    "A Markdown table as Quarto writes it: <table class=\"caption-top table\">, its cells' links, code, bold and maths (as their letters)."
    import html, re
    def cell(t):
        t = html.escape(t.strip(), quote=False)
        t = re.sub(r'\$([^$]+)\$', lambda m: '<span class="math inline">' + re.sub(r'\\[a-zA-Z]+|[{}^_\\]', '', m.group(1)) + '</span>', t)
        t = re.sub(r'`([^`]+)`', r'<code>\1</code>', t)
        t = re.sub(r'\[([^\]]+)\]\(([^)]+)\)', r'<a href="\2">\1</a>', t)
        return re.sub(r'\*\*([^*]+)\*\*', r'<strong>\1</strong>', t)
    head, _, *body = [re.split(r'(?<!\\)\|', l.strip()[1:-1]) for l in md.strip().splitlines()]
    row = lambda cs, tag: '<tr>' + ''.join(f'<{tag}>{cell(c)}</{tag}>' for c in cs) + '</tr>'
    return f'<table class="caption-top table"><thead>{row(head, "th")}</thead><tbody>{"".join(row(r, "td") for r in body)}</tbody></table>'

def tables_page(folder:Path) -> Path:
    "A page of every Markdown table of the notebooks, each in a cell's output as Quarto lays it out, with the site's stylesheet."
    folder.mkdir(parents=True, exist_ok=True)
    shutil.copy(ROOT / 'nbs' / 'styles.css', folder / 'styles.css')
    cells = ''.join(f'<div class="cell-output cell-output-display" data-from="{nb} {i}">{table_html(t)}</div>' if output else
                    f'<section data-from="{nb} {i}">{table_html(t)}</section>' for i, (nb, t, output) in enumerate(markdown_tables(kinds=True)))
    (folder / 'index.html').write_text('<!doctype html><html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">'
                                       f'<link rel="icon" href="data:,"><style>{QUARTO_TABLES}</style><link rel="stylesheet" href="styles.css"></head>'
                                       f'<body><main>{cells}</main></body></html>', encoding='utf-8')
    return folder

def measure_tables(url:str, width:int) -> dict:
    r = subprocess.run([node(), ROOT / 'tests' / 'live_page.mjs', '--tables', url], capture_output=True, text=True, encoding='utf-8', timeout=300,
                       env={**__import__('os').environ, 'CHROMIUM': chromium(), 'WIDTH': str(width)})
    assert r.returncode == 0, r.stderr[-2000:]
    out = json.loads(r.stdout)
    assert not out['errors'], out['errors']
    return out

def test_tables_wrap_at_spaces_and_wide_ones_scroll_in_their_own_box(tmp_path):
    "Every Markdown table of the notebooks, laid out by the site's stylesheet in headless Chromium, 390 and 1,400 px wide:"
    " no word of a cell broken inside itself ('un/der/a/mi/nut/e'), no code name broken at a hyphen ('multi30k-/de-en',"
    " 'tnb-/train', '--/seed') nor a printed table's row name ('base-/seed1'), every table within the window (wrapping at spaces, or,"
    " wider than the column, scrolling in its own box), nothing wider than the window; and on the phone no table more than"
    " 4 times as tall as on the desktop, lib_significance's results table at most twice (when cells broke anywhere: up to"
    " 7.3 times, and that table 5.6 times, 21,468 px on the site)."
    playwright(); chromium()
    with serve(tables_page(tmp_path / 'site')) as url:
        phone, desk = measure_tables(url, 390), measure_tables(url, 1400)
    n = len(markdown_tables())
    for out in (phone, desk):
        t = out['tables']
        assert len(t) == n > 50, (len(t), n)
        assert not [(x['from'], x['broken'][:5]) for x in t if x['broken']], [(x['from'], x['broken'][:5]) for x in t if x['broken']]
        assert all(x['right'] <= x['inner'] for x in t) and out['width'][0] <= out['width'][1], [x for x in t if x['right'] > x['inner']]
        assert not [(x['from'], x['split'][:5]) for x in t if x['split']], [(x['from'], x['split'][:5]) for x in t if x['split']]   # names whole
    assert any(x['scroll'] > x['client'] + 1 for x in phone['tables']), "a wide table scrolls on a phone (the test would miss a wrap-anywhere rule)"
    first14 = next(x for x in phone['tables'] if x['from'].startswith('14_since_2017.ipynb'))   # its links wrap: 'replaces' starts on screen
    assert len(first14['lefts']) == 3 and first14['lefts'][2] < first14['inner'] * 0.75, first14['lefts']
    ratio = {x['from']: x['height'] / y['height'] for x, y in zip(phone['tables'], desk['tables'])}
    assert max(ratio.values()) <= 4, sorted(ratio.items(), key=lambda kv: -kv[1])[:3]
    results = [k for k, x in zip(ratio, phone['tables']) if k.startswith('lib_significance.ipynb') and x['height'] == max(
        y['height'] for y in phone['tables'] if y['from'].startswith('lib_significance.ipynb'))]
    assert results and ratio[results[0]] <= 2, {k: v for k, v in ratio.items() if k.startswith('lib_significance')}
