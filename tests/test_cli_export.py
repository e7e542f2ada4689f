"`tnb-export` through the shared command runner, with real processes: a bad choice is one line, and Ctrl-C during an export exits 130 and leaves no folder."
import signal, subprocess, time
import pytest
from conftest import ENV, cmd, tool, one_line, wait_for_output as _wait_for, collect_output as _collect
from conftest import default_signals as _sigint_default, said as lines
pytestmark = pytest.mark.slow        # every test here runs the tools in fresh processes (`pytest -m 'not slow'` skips them)

def test_export_uses_the_shared_runner(run, tmp_path):
    pytest.importorskip('ctranslate2')
    one_line(tool('export', '--ctranslate2', run, '-o', tmp_path / 'a', '--quantization', 'int3'), 'tnb-export',
             "--quantization int3 must be float32, int8,")                  # ExportOptions' declaration, said with the option
    slow = ("import sys, time, transformer_nb.apps.export as e; _x = e._ctranslate2_folder; "
            "e._ctranslate2_folder = lambda *a, **k: (print('EXPORTING', file=sys.stderr, flush=True), time.sleep(60), _x(*a, **k))[2]")
    p = subprocess.Popen(cmd('export', '--ctranslate2', run, '-o', tmp_path / 'c', code=slow), env=ENV,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, preexec_fn=_sigint_default)
    err = []; _collect(p.stderr, err)
    try:
        assert _wait_for(p, err, 'EXPORTING', 240), b''.join(err).decode()[-2000:]
        p.send_signal(signal.SIGINT); p.wait(timeout=60)
    finally:
        if p.poll() is None: p.kill(); p.wait()
    time.sleep(0.2)
    stderr = b''.join(err).decode()
    said_ = [l for l in lines(stderr) if l != 'EXPORTING']
    assert p.returncode == 130 and len(said_) == 2 and said_[0].startswith('tnb-export: stopped before the export was complete: ') and said_[1] == 'tnb-export: interrupted', stderr[-2000:]
    assert not (tmp_path / 'c').exists()

def test_export_onnx_uses_the_shared_runner(run, tmp_path):
    "--format onnx: an option of the other format is one line naming it; the export itself is one line naming what it wrote."
    pytest.importorskip('onnxruntime')
    one_line(tool('export', '--format', 'onnx', run, '-o', tmp_path / 'a', '--quantization', 'int8'), 'tnb-export',
             "--quantization int8 is not an option of --format onnx")
    assert not (tmp_path / 'a').exists()
    r = tool('export', '--format', 'onnx', run, '-o', tmp_path / 'b', text=True)
    assert r.returncode == 0 and r.stdout.startswith(f"wrote {tmp_path / 'b'} (ONNX, int8;"), (r.stdout, r.stderr[-2000:])
    assert {p.name for p in (tmp_path / 'b').iterdir()} == {'encoder.onnx', 'decoder.onnx', 'embedding.bin', 'tokenizer.json', 'tokenizer.model', 'config.json', 'config.sha256'}

def test_export_onnx_into_a_read_only_folder_exits_2(run, readonly_dir):
    "A read-only output: one line naming the folder asked for, exit 2, as every other command says it; nothing written."
    pytest.importorskip('onnxruntime')
    one_line(tool('export', '--format', 'onnx', run, '-o', readonly_dir / 'm'), 'tnb-export', f"cannot write {readonly_dir / 'm'}")
    assert list(readonly_dir.iterdir()) == []

def test_export_hf_uses_the_shared_runner(run, tmp_path):
    "--format hf: another format's option is one line naming it; the export one line naming what it wrote; a second export into it refused unless --overwrite."
    pytest.importorskip('transformers')
    one_line(tool('export', '--format', 'hf', run, '-o', tmp_path / 'a', '--float32'), 'tnb-export', "--float32 is not an option of --format hf")
    one_line(tool('export', '--ctranslate2', run, '--format', 'hf', '-o', tmp_path / 'a'), 'tnb-export', "give the checkpoint once")
    assert not (tmp_path / 'a').exists()
    r = tool('export', '--format', 'hf', run, '-o', tmp_path / 'b', text=True, env={'HF_HUB_OFFLINE': '1'})
    assert r.returncode == 0 and r.stdout.startswith(f"wrote {tmp_path / 'b'} (Hugging Face transformers, MarianMTModel"), (r.stdout, r.stderr[-2000:])
    assert {p.name for p in (tmp_path / 'b').iterdir()} == {'config.json', 'generation_config.json', 'model.safetensors', 'source.spm', 'target.spm',
                                                           'tokenizer_config.json', 'vocab.json', 'transformer_nb.json'}
    one_line(tool('export', '--format', 'hf', run, '-o', tmp_path / 'b'), 'tnb-export', "already holds an export", "--overwrite")
    assert tool('export', '--format', 'hf', run, '-o', tmp_path / 'b', '--overwrite', env={'HF_HUB_OFFLINE': '1'}).returncode == 0
    one_line(tool('translate', tmp_path / 'b', 'a b'), 'tnb-translate', "is a Hugging Face export", "pipeline('translation', model=DIR)")

def test_export_hf_refuses_a_rotary_model(tmp_path):
    "A model with one of 14's changes (rotary positions): one line naming it, exit 2, nothing written."
    pytest.importorskip('transformers')
    import dataclasses
    from transformer_nb.lib.transformer import build_model
    from transformer_nb.lib.options import get_model_config
    from transformer_nb.lib.tokens import StoredTokenizer
    from transformer_nb.lib.checkpoints import save_checkpoint
    tok = StoredTokenizer.train(['a b c d e f g h'] * 300, vocab_size=20)
    m = build_model(get_model_config('tiny', src_vocab=tok.vocab_size, tgt_vocab=tok.vocab_size, rope=True))
    c = save_checkpoint(tmp_path / 'rope.pt', config=dataclasses.asdict(m.cfg), model=m.state_dict(), tokenizer=tok.to_bytes(), step=1, epoch=0, meta={})
    one_line(tool('export', '--format', 'hf', c, '-o', tmp_path / 'hf'), 'tnb-export', "MarianMTModel", "rope")
    assert sorted(p.name for p in tmp_path.iterdir()) == ['rope.pt']
