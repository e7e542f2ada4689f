"""What `precision='auto'` means (lib_machine's `choose_precision`) on each kind of CPU and GPU, with the CPU's features
mocked (this machine has neither AMX nor every other kind of CPU); the Trainer's and the decoders' 'auto'; float32
decoding unchanged, bit for bit; the log-probabilities in float32 under autocast; tnb-train's line about its precision
and `--precision` on tnb-translate and tnb-evaluate; the measured figures the prose of 00 and lib_trainer quotes."""
import json
from pathlib import Path
import pytest, torch
import transformer_nb.lib.machine as core
from transformer_nb.core import EOS_ID
from transformer_nb.lib.machine import choose_precision, _default_precision, cpu_features
from transformer_nb.lib.transformer import build_model
from transformer_nb.lib.options import get_model_config
from transformer_nb.lib.tokens import StoredTokenizer
from transformer_nb.lib.options import Decoding
from transformer_nb.lib.options import DecodeOptions
import conftest

ROOT = Path(__file__).resolve().parents[1]
AMX = dict(machine='x86_64', vector='AVX512', amx=True, avx512_bf16=True)          # Intel Xeon 4th gen (Sapphire Rapids)
AVX512_BF16 = dict(machine='x86_64', vector='AVX512', amx=False, avx512_bf16=True) # AMD Zen 4, Intel Cooper Lake
AVX2 = dict(machine='x86_64', vector='AVX2', amx=False, avx512_bf16=False)         # most laptops, AMD Zen 3 servers
REAL_FLAGS = core._cpuinfo_flags

def mock_cpu(monkeypatch, features:dict, bf16_on_avx512:bool|None=None):
    monkeypatch.setattr(core, 'cpu_features', lambda: dict(features))
    if bf16_on_avx512 is not None: monkeypatch.setattr(core, 'BF16_ON_AVX512', bf16_on_avx512)

# --- the choice, for each kind of CPU (flags mocked) and GPU ------------------------------------------------------------

def test_amx_picks_bf16(monkeypatch):
    for rule in (True, False):                              # AMX is bf16 whatever the AVX512_BF16 rule says
        mock_cpu(monkeypatch, AMX, rule)
        assert choose_precision('cpu') == ('bf16', 'bf16: this CPU has AMX') and _default_precision('cpu') == 'bf16'

def test_avx512_bf16_follows_the_measured_rule(monkeypatch):
    mock_cpu(monkeypatch, AVX512_BF16, True)
    assert choose_precision('cpu') == ('bf16', 'bf16: this CPU has AVX512_BF16')
    mock_cpu(monkeypatch, AVX512_BF16, False)
    prec, why = choose_precision('cpu')
    assert prec == 'fp32' and why.startswith('fp32: ') and 'AVX512_BF16' in why

def test_the_rule_is_the_measured_one():
    "BF16_ON_AVX512 is what results/bf16_cpu.json measured on an AVX512_BF16 CPU without AMX: bf16 faster at both jobs."
    r = json.loads((ROOT / 'results' / 'bf16_cpu.json').read_text())
    for part in ('train', 'decode'):                                         # each part names the machine it ran on
        m = r[part]['machine']
        assert m['cpu_features']['avx512_bf16'] and not m['cpu_features']['amx'] and 'avx512_bf16' in m['cpu_flags'], part
    faster = r['train']['speedup'] > 1 and r['decode']['greedy']['speedup'] > 1 and r['decode']['beam4']['speedup'] > 1
    assert core.BF16_ON_AVX512 == faster

def test_avx2_and_other_cpus_pick_fp32(monkeypatch):
    mock_cpu(monkeypatch, AVX2, True)
    assert choose_precision('cpu') == ('fp32', 'fp32: this CPU has no native bf16 (AVX2)')
    monkeypatch.setattr(core, 'cpu_features', cpu_features)      # the real function, on a CPU that is not x86
    for machine in ('arm64', 'aarch64', 'ppc64le'):            # Apple silicon, ARM servers, POWER
        monkeypatch.setattr(core.platform, 'machine', lambda m=machine: m)
        f = core.cpu_features()
        assert (f['amx'], f['avx512_bf16'], f['machine']) == (False, False, machine)
        assert choose_precision('cpu') == ('fp32', f'fp32: this CPU has no native bf16 ({machine})')

def test_gpus_keep_their_rule(monkeypatch):
    mock_cpu(monkeypatch, AMX, True)                           # the CPU does not matter on a GPU
    monkeypatch.setattr(torch.cuda, 'is_bf16_supported', lambda *a, **k: True)
    assert choose_precision(torch.device('cuda')) == ('bf16', 'bf16: this GPU supports it')
    monkeypatch.setattr(torch.cuda, 'is_bf16_supported', lambda *a, **k: False)
    assert choose_precision(torch.device('cuda', 1)) == ('fp32', 'fp32: this GPU has no bf16')
    assert choose_precision(torch.device('mps'))[0] == 'fp32'

# --- detecting the features -------------------------------------------------------------------------------------------

def test_cpuinfo_fallback(monkeypatch, tmp_path):
    "Where this torch has no private probe, /proc/cpuinfo's flags decide (Linux); with neither, no native bf16."
    monkeypatch.setattr(core.platform, 'machine', lambda: 'x86_64')
    monkeypatch.setattr(core, '_torch_probe', lambda *names: None)
    info = tmp_path / 'cpuinfo'
    monkeypatch.setattr(core, '_cpuinfo_flags', lambda: REAL_FLAGS(info))
    for flags, amx, bf16 in (('fpu avx2 avx512f avx512_bf16 amx_bf16 amx_tile', True, True), ('fpu avx2 avx512f avx512_bf16', False, True),
                             ('fpu sse avx avx2 fma', False, False)):
        info.write_text(f"processor\t: 0\nmodel name\t: X\nflags\t\t: {flags}\n\nprocessor\t: 1\nflags\t\t: {flags}\n")
        f = core.cpu_features()
        assert (f['amx'], f['avx512_bf16']) == (amx, bf16), flags
    info.unlink()                                                     # Windows, macOS: no such file
    assert REAL_FLAGS(info) == set() and not core.cpu_features()['avx512_bf16']

def test_torch_probes_first(monkeypatch):
    "PyTorch's private probes answer where this version has them (names differ between versions), before cpuinfo."
    class Probes:
        _is_amx_tile_supported = staticmethod(lambda: True)
        _is_cpu_support_avx512bf16 = staticmethod(lambda: True)
    monkeypatch.setattr(core.platform, 'machine', lambda: 'AMD64')      # as Windows names x86-64
    monkeypatch.setattr(torch._C, '_cpu', Probes, raising=False)
    monkeypatch.setattr(core, '_cpuinfo_flags', lambda: pytest.fail('cpuinfo read although torch answered'))
    f = core.cpu_features()
    assert f['amx'] and f['avx512_bf16']
    class Broken:
        @staticmethod
        def _is_amx_tile_supported(): raise RuntimeError('no')
    monkeypatch.setattr(torch._C, '_cpu', Broken, raising=False)
    assert core._torch_probe('_is_amx_tile_supported', '_is_cpu_support_amx_tile') is None

def test_this_machine_answers():
    f = cpu_features()
    assert set(f) == {'machine', 'vector', 'amx', 'avx512_bf16'}
    prec, why = choose_precision('cpu')
    assert prec in ('fp32', 'bf16') and why.startswith(prec + ': ')

# --- the Trainer and the decoders resolve 'auto' ---------------------------------------------------------------------

def _copy_data(n=40):
    return conftest.copy_ids(n, vocab=20)

@pytest.mark.parametrize('features,want', [(AMX, 'bf16'), (AVX2, 'fp32')])
def test_trainer_auto(monkeypatch, features, want):
    from transformer_nb.lib.trainer import Trainer
    from transformer_nb.lib.options import TrainConfig
    mock_cpu(monkeypatch, features, True)
    cfg = get_model_config('tiny', src_vocab=20, tgt_vocab=20)
    tr = Trainer(build_model(cfg), _copy_data(), tc=TrainConfig(max_tokens=200, steps=1, warmup=1, progress=False, device='cpu'), say=lambda m: None)
    assert tr.precision == want and tr.precision_reason == choose_precision('cpu')[1]
    st = tr.update([list(range(8))])                              # an update runs in that precision
    assert torch.isfinite(torch.tensor(st['loss']))
    tr = Trainer(build_model(cfg), _copy_data(), tc=TrainConfig(precision='fp32', progress=False, device='cpu'), say=lambda m: None)
    assert (tr.precision, tr.precision_reason) == ('fp32', 'fp32: asked for')

@pytest.fixture(scope='module')
def toy():
    "A tiny untrained model and tokenizer: its outputs are arbitrary but deterministic."
    torch.manual_seed(0)
    tok = StoredTokenizer.train(['one two three four', 'eins zwei drei vier', 'two three', 'zwei drei'] * 10, vocab_size=30)
    return build_model(get_model_config('tiny', src_vocab=tok.vocab_size, tgt_vocab=tok.vocab_size)).eval(), tok

SENTS = ['one two', 'three two one four', '', 'two', 'one two three three four']

@pytest.mark.parametrize('features,want', [(AMX, 'bf16'), (AVX512_BF16, 'bf16'), (AVX2, 'fp32')])
def test_decoders_auto(monkeypatch, toy, features, want):
    "`translate` (and `evaluate`, tnb-translate, tnb-evaluate through it) decodes under the precision 'auto' picks."
    import transformer_nb.lib.fast_decoding as ev                   # `translate` and the decoders it calls (lib_fast_decoding)
    from transformer_nb.lib.scoring import evaluate
    model, tok = toy
    mock_cpu(monkeypatch, features, True)
    seen, states = [], []
    real = ev.autocast
    monkeypatch.setattr(ev, 'autocast', lambda dev, p: seen.append(p) or real(dev, p))
    state = lambda: torch.get_autocast_dtype('cpu') if torch.is_autocast_enabled('cpu') else torch.float32
    for name in ('_greedy_batch', '_beam_batch'):                        # the autocast each decoder runs under (what translate calls)
        monkeypatch.setattr(ev, name, lambda *a, f=getattr(ev, name), **k: states.append(state()) or f(*a, **k))
    for beam in (1, 3): ev.translate(model, tok, SENTS, beam=beam)
    evaluate(model, tok, [('one two', 'eins zwei')], Decoding(beam=1))
    assert seen == [want] * 3
    assert set(states) == {torch.bfloat16 if want == 'bf16' else torch.float32}
    with pytest.raises(ValueError, match="'fp8'"): ev.translate(model, tok, SENTS, precision='fp8')

def test_fp32_decoding_unchanged(toy):
    "precision='fp32' decodes exactly as the decoders do without autocast (as `translate` did before it had a precision)."
    from transformer_nb.lib.fast_decoding import translate
    from transformer_nb.lib.fast_decoding import greedy_decode_batch
    from transformer_nb.lib.options import Decoding
    from transformer_nb.lib.fast_decoding import beam_search_batch
    model, tok = toy
    src = lambda s: torch.tensor([tok.encode(s) + [EOS_ID]])
    for s in (s for s in SENTS if s.strip()):
        assert translate(model, tok, [s], beam=1, precision='fp32') == [tok.decode(greedy_decode_batch(model, src(s), 50)[0])]
        assert translate(model, tok, [s], beam=4, precision='fp32') == [tok.decode(beam_search_batch(model, src(s), Decoding(4, 0.6, 50), nbest=1)[0][0][0])]
    with torch.autocast('cpu', dtype=torch.bfloat16, enabled=False):        # nothing changes the float32 numbers
        a = beam_search_batch(model, src('one two three three four'), Decoding(4, 0.6, 50))
    b = beam_search_batch(model, src('one two three three four'), Decoding(4, 0.6, 50))
    assert a == b                                                          # same ids, same scores, bit for bit

def test_log_probs_in_float32_under_autocast(monkeypatch, toy):
    import transformer_nb.lib.fast_decoding as fd
    from transformer_nb.lib.fast_decoding import translate
    model, tok = toy
    seen, real = [], fd.topk_log_probs
    monkeypatch.setattr(fd, 'topk_log_probs', lambda logits, n, *a: seen.append(logits.dtype) or real(logits, n, *a))
    out = translate(model, tok, SENTS, beam=3, precision='bf16')
    assert seen and set(seen) == {torch.float32} and len(out) == len(SENTS)

# --- the commands -----------------------------------------------------------------------------------------------------

def test_train_says_its_precision(monkeypatch, tmp_path, capsys):
    "tnb-train says once on standard error which precision it trains in and why (after its first update)."
    from transformer_nb.apps.cli import train_main
    for features, line in ((AMX, 'tnb-train: precision bf16: this CPU has AMX'), (AVX2, 'tnb-train: precision fp32: this CPU has no native bf16 (AVX2)')):
        mock_cpu(monkeypatch, features, True)
        with pytest.raises(SystemExit) as e:
            train_main([*conftest.TINY, '--steps', '3', '--threads', '1', '--out', str(tmp_path / features['vector'])])
        assert e.value.code == 0
        out, err = capsys.readouterr()
        assert [l for l in err.splitlines() if ': precision ' in l] == [line], err
        assert ': precision ' not in out
    with pytest.raises(SystemExit):
        train_main([*conftest.TINY, '--steps', '2', '--threads', '1', '--precision', 'fp32', '--out', str(tmp_path / 'asked')])
    assert 'tnb-train: precision fp32: asked for' in capsys.readouterr().err

@pytest.fixture(scope='module')
def run(tmp_path_factory):
    "A copy-task model that copies (trained for a few seconds)."
    return conftest.tiny_run(tmp_path_factory, 'prec', '--d-model', '64', '--d-ff', '128', '--steps', '300', '--beam', '1')

@pytest.mark.slow
def test_train_line_in_a_fresh_process(run, tmp_path):
    r = conftest.tool('train', *conftest.TINY, '--steps', '2', '--out', tmp_path / 'r', text=True)
    assert r.returncode == 0, r.stderr[-2000:]
    assert f"tnb-train: precision {choose_precision('cpu')[1]}" in r.stderr.splitlines()

@pytest.mark.slow
def test_translate_and_evaluate_precision(run):
    "--precision fp32 gives the float32 decoders' output, unchanged; bf16 runs; a bad value is refused by argparse."
    from transformer_nb.lib.checkpoints import resolve_checkpoint, model_from_checkpoint
    from transformer_nb.lib.scoring import evaluate
    from transformer_nb.lib.fast_decoding import greedy_decode_batch, beam_search_batch
    from transformer_nb.lib.options import Decoding
    model, tok, ck = model_from_checkpoint(resolve_checkpoint(run)[0], 'cpu')
    sents = ['a b c', 'h g f e', 'd e a d b']
    ids = lambda s: torch.tensor([tok.encode(s) + [EOS_ID]])
    want = {1: [tok.decode(greedy_decode_batch(model, ids(s))[0]) for s in sents],
            4: [tok.decode(beam_search_batch(model, ids(s), Decoding(4, 0.6), nbest=1)[0][0][0]) for s in sents]}
    for beam in (1, 4):
        r = conftest.tool('translate', run, *sents, '--beam', str(beam), '--precision', 'fp32', text=True)
        assert r.returncode == 0 and r.stdout.splitlines() == want[beam], r.stderr[-2000:]
        r = conftest.tool('translate', run, *sents, '--beam', str(beam), '--precision', 'bf16', text=True)
        assert r.returncode == 0 and len(r.stdout.splitlines()) == 3, r.stderr[-2000:]
    r = conftest.tool('evaluate', run, '--beam', '1', '--json', '--precision', 'fp32', text=True)
    assert r.returncode == 0, r.stderr[-2000:]
    fp32, keys = json.loads(r.stdout), ('bleu', 'bleu_lc', 'chrf', 'exact_match', 'n_sentences')
    from transformer_nb.lib.datasets import load_dataset
    mine = evaluate(model, tok, load_dataset('copy').test, Decoding(beam=1), DecodeOptions(precision='fp32'))[0]
    assert {k: fp32[k] for k in keys} == {k: mine[k] for k in keys}
    r = conftest.tool('evaluate', run, '--beam', '1', '--json', '--precision', 'bf16', text=True)
    assert r.returncode == 0 and 0 <= json.loads(r.stdout)['bleu'] <= 100, r.stderr[-2000:]
    r = conftest.tool('translate', run, 'a b', '--precision', 'fp8', text=True)
    assert r.returncode == 2 and "--precision fp8 must be auto, fp32, bf16 or fp16" in r.stderr

# --- the figures the prose quotes ------------------------------------------------------------------------------------

def test_prose_quotes_the_measurement():
    "lib_machine and lib_trainer quote results/bf16_cpu.json (AVX512_BF16, measured here) and the AMX figures (measured elsewhere)."
    from transformer_nb.lib.machine import NotebookFile
    r = json.loads((ROOT / 'results' / 'bf16_cpu.json').read_text())
    mm = next(x for x in r['matmul']['rows'] if x['shape'] == '(2500 x 256) . (256 x 1024)')
    tr, dec, bleu = r['train'], r['decode'], r.get('bleu', {})
    parts = [p for p in ('matmul', 'train', 'decode', 'bleu') if p in r]
    loads = [x for p in parts for x in (r[p]['load_average_before'][0], r[p]['load_average_after'][0])]
    step = f"took {tr['bf16_s']:.2f} s against {tr['fp32_s']:.2f} s"
    NotebookFile(ROOT / 'nbs' / 'lib_machine.ipynb').quoted('bf16c0a1', 'AMD EPYC (Zen 4)', f"load average {int(min(loads))} to {round(max(loads))}",
        f"ran at {mm['fp32_gflops']:.1f} GFLOP/s in float32 and {mm['bf16_gflops']:.1f} in bf16", step,
        f"decoding was {dec['greedy']['speedup']:.2f} times faster greedy and {dec['beam4']['speedup']:.2f} times with beam 4",
        *([f"BLEU {bleu['beam4']['bf16_bleu_lc']:.2f} against {bleu['beam4']['fp32_bleu_lc']:.2f}", f"the {bleu['sentences']:,} sentences of test2016", f"{bleu['beam4']['same_outputs']} of them translated identically",
           f"p = {bleu['beam4']['p_value']:.2f}"] if 'beam4' in bleu else []),
        *([f"({bleu['greedy']['bf16_bleu_lc']:.2f} against {bleu['greedy']['fp32_bleu_lc']:.2f} greedy)"] if 'greedy' in bleu else []),
        'Sapphire Rapids, 2 cores, torch 2.13.0', '8 to 16 times faster', '1.5 times faster')
    for part in parts: assert r[part]['machine']['cpu_flags'] and 'AMD EPYC' in r[part]['machine']['hardware'] and r[part]['machine']['torch'].startswith('2.')
    code = ' '.join((ROOT / 'transformer_nb' / 'lib' / 'machine.py').read_text().replace('#', ' ').split())   # BF16_ON_AVX512's comment
    for x in (tr['speedup'], dec['greedy']['speedup'], dec['beam4']['speedup']): assert f"({x:.2f}x)" in code, x
    for key in ('beam4', 'greedy'):                                            # equal within BLEU's noise, where measured
        if key in bleu: assert bleu[key]['p_value'] > 0.05, (key, bleu[key])
    NotebookFile(ROOT / 'nbs' / 'lib_trainer.ipynb').quoted('bf16a301', f"took {tr['bf16_s']:.2f} s in bf16 against {tr['fp32_s']:.2f} s in float32",
                                                         '1.95 s against 2.92 s', 'Sapphire Rapids')
