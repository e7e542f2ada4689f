"""The published models (apps_pretrained): the files in models/ are the ones the package knows by checksum, each loads and
translates, the loader finds, fetches, caches and refuses files as it says, every command takes `pretrained:NAME`, and
the results file holds each model's test scores, equal to those of the run it came from. No test touches the network:
downloads come from a `file://` mirror or a fetch function."""
import io, json, shutil, urllib.error
from pathlib import Path
import pytest, torch
from conftest import tool, one_line
import transformer_nb.apps.pretrained as P, transformer_nb.lib.checkpoints as C
from transformer_nb.lib.checkpoints import PRETRAINED, _pretrained_path, open_checkpoint, model_from_checkpoint
from transformer_nb.lib.safeguards import sha256_file
from transformer_nb.apps.pretrained import load_pretrained
from transformer_nb.lib.fast_decoding import translate

ROOT = Path(__file__).resolve().parents[1]
MODELS = ROOT / 'models'
RESULTS = json.loads((ROOT / 'results' / 'results.json').read_text())

@pytest.fixture
def clean_env(monkeypatch, tmp_path):
    "An empty cache of our own and no mirror: what a fresh machine has."
    monkeypatch.setenv('TNB_CACHE_DIR', str(tmp_path / 'cache')); monkeypatch.delenv('TNB_PRETRAINED', raising=False)
    return tmp_path

@pytest.mark.parametrize('name', sorted(PRETRAINED))
def test_the_files_are_the_ones_the_package_knows(name):
    pf, p = PRETRAINED[name], MODELS / PRETRAINED[name].file
    assert p.is_file(), f"{p} is missing"
    assert (sha256_file(p), p.stat().st_size) == (pf.sha256, pf.size), f"{p}: update PRETRAINED in lib_checkpoints"

@pytest.mark.parametrize('name', sorted(PRETRAINED))
def test_each_file_is_inference_only_float16_and_says_where_it_came_from(name):
    ck = torch.load(MODELS / PRETRAINED[name].file, weights_only=True)                    # weights_only=True
    assert sorted(ck) == ['config', 'format', 'meta', 'model', 'tokenizer']
    assert {v.dtype for v in ck['model'].values() if v.is_floating_point()} == {torch.float16}
    pre = ck['meta']['pretrained']
    for k in ('name', 'chosen', 'chosen_by', 'valid', 'test_run', 'made_by', 'source'): assert pre.get(k) is not None, k
    for k in ('command', 'commit', 'hardware'): assert ck['meta'].get(k), k
    assert pre['name'] == name and pre['chosen'] in pre['valid']
    metric = pre['chosen_by'].split()[-1]                                  # validation chose, test did not
    assert pre['valid'][pre['chosen']][metric] == max(v[metric] for v in pre['valid'].values())

@pytest.mark.parametrize('name, src, want', [('multi30k-de-en', 'Zwei Hunde spielen im Schnee.', 'dogs'),
                                             ('multi30k-en-de', 'Two dogs are playing in the snow.', 'hunde'),
                                             ('numbers', 'three hundred forty-two', 'dreihundertzweiundvierzig')])
def test_load_pretrained_translates(clean_env, name, src, want):
    model, tok, info = load_pretrained(name)
    assert not model.training and info['name'] == name and info['path'] == str(MODELS / PRETRAINED[name].file)
    hyp = translate(model, tok, [src], beam=4, alpha=0.6)[0]
    assert want in hyp.lower(), hyp

def test_results_file_holds_each_model_with_the_scores_of_its_run():
    recs = {r['id']: r for r in RESULTS}
    for name in PRETRAINED:
        rec = recs[f'pretrained-{name}']
        assert rec['checkpoint'].endswith(PRETRAINED[name].file) if 'checkpoint' in rec else True
        run = open_checkpoint(MODELS / PRETRAINED[name].file, None).meta['pretrained']['test_run']
        for k in ('bleu', 'bleu_lc', 'chrf', 'exact_match'):
            if k in run and k in rec: assert rec[k] == pytest.approx(run[k], abs=0.05), (name, k, rec[k], run[k])
    assert recs['pretrained-multi30k-de-en']['bleu_lc'] >= 40 and recs['pretrained-multi30k-en-de']['bleu_lc'] >= 37

# --- where the file comes from ---------------------------------------------------------------------------------------

def test_unknown_name_lists_the_names(clean_env):
    with pytest.raises(ValueError, match="no published model 'nope': the names are multi30k-de-en, multi30k-en-de, numbers"):
        _pretrained_path('nope')

def test_mirror_folder_right_missing_and_changed_file(clean_env, monkeypatch):
    mirror = clean_env / 'mirror'; mirror.mkdir(); monkeypatch.setenv('TNB_PRETRAINED', str(mirror))
    with pytest.raises(FileNotFoundError, match=f"TNB_PRETRAINED={mirror} holds no numbers.pt: put the published file there"):
        _pretrained_path('numbers')
    shutil.copy(MODELS / 'numbers.pt', mirror / 'numbers.pt')
    assert _pretrained_path('numbers') == mirror / 'numbers.pt'
    with open(mirror / 'numbers.pt', 'r+b') as f: f.seek(PRETRAINED['numbers'].size // 2); b = f.read(1); f.seek(-1, 1); f.write(bytes([b[0] ^ 1]))
    with pytest.raises(ValueError, match=r"mirror/numbers.pt: its sha256 \w+\.\.\. is not that of the published model numbers"):
        _pretrained_path('numbers')
    with pytest.raises(ValueError, match='is not that of the published model'): load_pretrained('numbers')
    with pytest.raises(ValueError, match='is not that of the published model'): open_checkpoint('pretrained:numbers')

def test_download_from_a_mirror_url_is_cached_and_reused(clean_env, monkeypatch):
    mirror = clean_env / 'www'; mirror.mkdir(); shutil.copy(MODELS / 'numbers.pt', mirror / 'numbers.pt')
    monkeypatch.setenv('TNB_PRETRAINED', mirror.as_uri())                       # file:///...: urllib, no network
    got = _pretrained_path('numbers')
    assert got == clean_env / 'cache' / 'pretrained' / 'numbers.pt' and sha256_file(got) == PRETRAINED['numbers'].sha256
    (mirror / 'numbers.pt').unlink()                                             # the mirror is gone: the cache serves
    assert _pretrained_path('numbers') == got

def test_a_download_with_another_checksum_is_refused_and_nothing_is_written(clean_env, monkeypatch):
    monkeypatch.setenv('TNB_PRETRAINED', 'https://mirror.invalid/models')
    with pytest.raises(ValueError, match='checksum mismatch for https://mirror.invalid/models/numbers.pt'):
        _pretrained_path('numbers', fetch=lambda url: io.BytesIO(b'not the model'))
    assert not list((clean_env / 'cache').rglob('*.pt'))

def test_offline_without_a_copy_says_where_to_put_the_file(clean_env, monkeypatch):
    "A pip install (no clone's models/), no cache, no network: one line naming the pinned address, the folder and the checksum."
    def offline(url): raise urllib.error.URLError('[Errno -2] Name or service not known')
    monkeypatch.setattr(C, 'transformer_nb', type('pkg', (), {'__file__': str(clean_env / 'site' / 'transformer_nb' / '__init__.py'), '__version__': C.transformer_nb.__version__}))
    with pytest.raises(OSError) as e: _pretrained_path('numbers', fetch=offline)
    msg = str(e.value)
    assert msg.startswith('pretrained:numbers: cannot download https://raw.githubusercontent.com/transformer-nb/transformer_nb/v')
    assert f"without internet, put numbers.pt (sha256 {PRETRAINED['numbers'].sha256}) in {clean_env / 'cache' / 'pretrained'}" in msg
    assert '\n' not in msg

def test_a_damaged_cached_download_is_fetched_again(clean_env, monkeypatch):
    monkeypatch.setattr(C, 'transformer_nb', type('pkg', (), {'__file__': str(clean_env / 'site' / 'transformer_nb' / '__init__.py'), '__version__': C.transformer_nb.__version__}))
    cached = clean_env / 'cache' / 'pretrained' / 'numbers.pt'; cached.parent.mkdir(parents=True); cached.write_bytes(b'cut sho')
    calls = []
    def fetch(url): calls.append(url); return io.BytesIO((MODELS / 'numbers.pt').read_bytes())
    assert _pretrained_path('numbers', fetch=fetch) == cached and len(calls) == 1
    assert _pretrained_path('numbers', fetch=fetch) == cached and len(calls) == 1  # now served from the cache

def test_a_published_model_carries_no_path_of_the_machine_that_made_it(tmp_path):
    "make_pretrained wrote the build machine's run folder into the published meta's command (tnb-train --resume /tmp/r1 ...)."
    from dataclasses import asdict
    from transformer_nb.lib.checkpoints import save_checkpoint
    from transformer_nb.lib.tokens import StoredTokenizer
    from transformer_nb.lib.transformer import build_model
    from transformer_nb.lib.options import get_model_config
    tok = StoredTokenizer.train(['ein hund', 'a dog'] * 20, vocab_size=20)
    m = build_model(get_model_config('tiny', src_vocab=tok.vocab_size, tgt_vocab=tok.vocab_size))
    run = tmp_path / 'build' / 'r1'; run.mkdir(parents=True)
    ck = save_checkpoint(run / 'checkpoint-0000005.pt', config=asdict(m.cfg), model=m.state_dict(), tokenizer=tok.to_bytes(), step=5,
                         meta={'command': f"tnb-train --resume {run} --out={run} --steps 5", 'averaged_from': [str(run / 'checkpoint-0000005.pt')]})
    (tmp_path / 'models').mkdir()
    pub = torch.load(P.make_pretrained(ck, tmp_path / 'models' / 'toy.pt'), weights_only=True)
    assert str(tmp_path) not in json.dumps(pub['meta']), pub['meta']
    assert pub['meta']['command'] == 'tnb-train --resume ../build/r1 --out=../build/r1 --steps 5'

def test_every_reader_takes_a_published_model(clean_env):
    "model_from_checkpoint('pretrained:numbers') sent the user to another module's function; the one reader takes the name."
    model, tok, c = model_from_checkpoint('pretrained:numbers')
    assert (c.pretrained, c.sha256, c.path) == ('numbers', PRETRAINED['numbers'].sha256, MODELS / 'numbers.pt') and not model.training
    assert C.resolve_checkpoint('pretrained:numbers') == (MODELS / 'numbers.pt', 'the published model numbers')

def test_resume_from_a_published_model_is_refused():
    with pytest.raises(ValueError, match='holds no optimiser state to resume from'): open_checkpoint('pretrained:numbers', 'resume')

# --- the commands ----------------------------------------------------------------------------------------------------

@pytest.mark.slow
def test_translate_evaluate_and_export_take_pretrained_names(tmp_path):
    r = tool('translate', 'pretrained:numbers', 'three hundred forty-two', 'seven', text=True)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split('\n')[:2] == ['dreihundertzweiundvierzig', 'sieben'], r.stdout
    assert 'using' in r.stderr and 'the published model numbers' in r.stderr
    src, ref = tmp_path / 'src.txt', tmp_path / 'ref.txt'
    src.write_text('three\ntwenty-one\n'); ref.write_text('drei\neinundzwanzig\n')
    r = tool('evaluate', 'pretrained:numbers', '--src', src, '--ref', ref, '--json', text=True)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout.strip().splitlines()[-1])['exact_match'] == 100.0
    pytest.importorskip('ctranslate2')
    r = tool('export', '--ctranslate2', 'pretrained:numbers', '-o', tmp_path / 'ct2', text=True)
    assert r.returncode == 0, r.stderr
    assert (tmp_path / 'ct2' / 'model.bin').is_file()

@pytest.mark.slow
def test_commands_say_one_line_for_a_bad_name_a_changed_file_and_no_network(tmp_path):
    one_line(tool('translate', 'pretrained:nope', 'a'), 'tnb-translate', 'the names are multi30k-de-en, multi30k-en-de, numbers')
    mirror = tmp_path / 'm'; mirror.mkdir(); (mirror / 'numbers.pt').write_bytes(b'x' * 100)
    one_line(tool('translate', 'pretrained:numbers', 'a', env={'TNB_PRETRAINED': str(mirror)}), 'tnb-translate',
             f"{mirror / 'numbers.pt'}: its sha256", 'refused')
    r = tool('evaluate', 'pretrained:numbers', env={'TNB_PRETRAINED': 'http://127.0.0.1:9', 'TNB_CACHE_DIR': str(tmp_path / 'c')})
    one_line(r, 'tnb-evaluate', 'pretrained:numbers: cannot download http://127.0.0.1:9/numbers.pt', 'without internet, put numbers.pt')

@pytest.mark.slow
def test_an_output_may_not_overwrite_the_published_file(tmp_path):
    r = tool('translate', 'pretrained:numbers', 'seven', '-o', MODELS / 'numbers.pt')
    assert r.returncode == 2 and (MODELS / 'numbers.pt').stat().st_size == PRETRAINED['numbers'].size, r.stderr


# ---------------------------------------------------------------- unchanged for their users when the tools began to run 06's own model
ONE_MODEL = ROOT / 'results' / 'one_model'

def _score(model, tok, src:str, hyp:str, alpha:float=0.6) -> float:
    "log p(hyp | src) / lp(|hyp| + 1), teacher-forced in float64: the score beam search ranks by (10_decoding)."
    from transformer_nb.core import BOS_ID, EOS_ID
    from transformer_nb.decoding import length_penalty
    m = model.double().eval()
    s, y = torch.tensor([tok.encode(src) + [EOS_ID]]), tok.encode(hyp) + [EOS_ID]
    with torch.no_grad(): lp = m(s, torch.tensor([[BOS_ID] + y[:-1]]))[0].log_softmax(-1)
    return float(lp[range(len(y)), y].sum()) / length_penalty(len(y), alpha)

@pytest.mark.slow   # exports and decodes the three published models three ways: minutes
def test_the_published_models_translate_as_they_did_before_the_tools_ran_06s_model(tmp_path):
    """Before (results/one_model, made by commit 2ea82ec) and now, in fp32 with beam 4: test2016's first 100 lines both ways and
    the numbers test set, through PyTorch, an ONNX export and a CTranslate2 export. On the machine that made them every line
    is the same (results/one_model_parity.json). Another CPU rounds otherwise and may break a tie the other way, so a line
    that differs must be a tie: the two translations' scores under the model within 1e-4 of each other (relative), which
    a change to the model would not keep."""
    import subprocess, sys
    out = tmp_path / 'now'
    subprocess.run([sys.executable, str(ROOT / 'experiments' / 'one_model_parity.py'), '--out', str(out)], check=True, capture_output=True)
    ties = 0
    for before in sorted(ONE_MODEL.glob('*.txt')):
        name = before.name.split('.')[0]
        was, now = before.read_text(encoding='utf-8').splitlines(), (out / before.name).read_text(encoding='utf-8').splitlines()
        assert len(was) == len(now), (before.name, len(was), len(now))
        if before.name.endswith('.src.txt'): assert was == now; continue
        srcs = (ONE_MODEL / f'{name}.src.txt').read_text(encoding='utf-8').splitlines()
        model, tok, _ = model_from_checkpoint(f'pretrained:{name}')
        for s, a, b in zip(srcs, was, now):
            if a == b: continue
            sa, sb = _score(model, tok, s, a), _score(model, tok, s, b)
            assert abs(sa - sb) <= 1e-4 * max(1.0, abs(sa)), f"{before.name}: {s!r} was {a!r} ({sa:.5f}), now {b!r} ({sb:.5f})"
            ties += 1
    rec = json.loads((ROOT / 'results' / 'one_model_parity.json').read_text())
    assert all(r['differ'] == 0 for r in rec['files'].values()) and rec['precision'] == 'fp32' and rec['beam'] == 4
    assert set(rec['files']) == {p.name for p in ONE_MODEL.iterdir()}
