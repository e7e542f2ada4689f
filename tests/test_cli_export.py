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
    assert p.returncode == 130 and [l for l in lines(stderr) if l != 'EXPORTING'] == ['tnb-export: interrupted'], stderr[-2000:]
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
