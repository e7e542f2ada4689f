"""Bad inputs named alike on every path: a file's bad line as the option gives the file (`-i FILE`, `--src FILE`,
`--ref FILE`); a CTranslate2 export refuses a beam wider than its vocabulary and a missing GPU as a checkpoint does
(`--beam N`, `--device cuda`); an export folder given where a checkpoint belongs is named as an export; and no
`max_extra` pushes an output's cap past 4,096 extra tokens (a huge one once ended in an internal error, or filled the
memory). The commands run in this process (their entry points take `argv`)."""
import contextlib, io, os, re
import pytest, torch
from transformer_nb.lib.options import SettingError
from transformer_nb.lib.safeguards import read_text_lines
from transformer_nb.apps.test_sets import read_test_files
from transformer_nb.lib.checkpoints import resolve_checkpoint
from transformer_nb.lib.options import Decoding
from transformer_nb.lib.fast_decoding import max_output_lengths
from transformer_nb.lib.transformer import build_model
from transformer_nb.lib.options import get_model_config
from transformer_nb.apps.cli import translate_main, evaluate_main, average_main

torch.set_num_threads(1)
CLI = lambda n, v: f"--{n.replace('_', '-')} {v}"      # how a command says a setting


def run(main, argv) -> tuple[str, str, int]:
    "A command run in this process: (stdout, stderr, exit code)."
    out, err, code = io.StringIO(), io.StringIO(), 0
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try: main([str(a) for a in argv])
        except SystemExit as e: code = e.code
    return out.getvalue(), err.getvalue(), code

def error_line(err:str, prog:str) -> str:
    "The one line a refusal prints (beside a '<prog>: using ...' line), without its 'prog: error: '."
    ls = [l for l in err.splitlines() if ': using ' not in l and l.strip()]
    assert len(ls) == 1 and ls[0].startswith(f'{prog}: error: '), err
    return ls[0][len(f'{prog}: error: '):]


def test_a_files_bad_line_is_named_as_the_option_gives_the_file(tmp_path):
    (tmp_path / 'nul.txt').write_bytes(b'one\ntw\x00o\n'); (tmp_path / 'bad.txt').write_bytes(b'one \xff\n')
    nul, bad = re.escape(str(tmp_path / 'nul.txt')), re.escape(str(tmp_path / 'bad.txt'))
    with pytest.raises(ValueError, match=rf"^-i {nul}, line 2: a NUL byte at offset 6; "): read_text_lines(tmp_path / 'nul.txt', '-i')
    with pytest.raises(ValueError, match=rf"^-i {bad}, line 1: invalid UTF-8 \(invalid start byte"): read_text_lines(tmp_path / 'bad.txt', '-i')
    with pytest.raises(ValueError, match=rf"^{bad}, line 1: invalid UTF-8"): read_text_lines(tmp_path / 'bad.txt')   # no option: the path
    (tmp_path / 'ok.txt').write_text('one\n')
    for src, ref, name in ((tmp_path / 'ok.txt', tmp_path / 'bad.txt', 'ref'), (tmp_path / 'nul.txt', tmp_path / 'ok.txt', 'src')):
        with pytest.raises(SettingError) as e: read_test_files(src, ref)          # the setting it names, in Python's words or a command's
        assert e.value.render(CLI).startswith(f"--{name} {tmp_path / ('nul.txt' if name == 'src' else 'bad.txt')}, line "), str(e.value)
        assert str(e.value).startswith(f"{name}='{tmp_path}/"), str(e.value)


def test_the_commands_name_a_files_bad_line_by_its_option(tmp_path):
    (tmp_path / 'nul.txt').write_bytes(b'seven\x00\n'); (tmp_path / 'bad.txt').write_bytes(b'342 \xff\n'); (tmp_path / 'ok.txt').write_text('seven\n')
    out, err, code = run(translate_main, ['pretrained:numbers', '-i', tmp_path / 'nul.txt', '--threads', '1'])
    assert code == 2 and not out and error_line(err, 'tnb-translate').startswith(f"-i {tmp_path / 'nul.txt'}, line 1: a NUL byte at offset 5")
    out, err, code = run(evaluate_main, ['pretrained:numbers', '--src', tmp_path / 'ok.txt', '--ref', tmp_path / 'bad.txt', '--threads', '1'])
    assert code == 2 and error_line(err, 'tnb-evaluate').startswith(f"--ref {tmp_path / 'bad.txt'}, line 1: invalid UTF-8"), err


def test_an_outputs_cap_stops_at_4096_extra_tokens():
    m = build_model(get_model_config('tiny', src_vocab=16, tgt_vocab=16)).eval()
    src = torch.tensor([[5, 6, 3, 0], [5, 3, 0, 0]])                               # 3 and 2 tokens, EOS included, then padding
    assert max_output_lengths(m, src, 50).tolist() == [53, 52]                     # the paper's +50, unchanged
    assert max_output_lengths(m, src, 10**20).tolist() == [3 + 4096, 2 + 4096]     # no int64 overflow, no list of 10**20 penalties
    out, err, code = run(translate_main, ['pretrained:numbers', 'seven', '--max-extra', 10**6, '--threads', '1'])   # its declared bound: capped all the same
    assert code == 0 and out == 'sieben\n', err
    out, err, code = run(translate_main, ['pretrained:numbers', 'seven', '--max-extra', 10**20, '--threads', '1'])   # past it: refused in one line
    assert code == 2 and not out and error_line(err, 'tnb-translate') == f"--max-extra {10**20} must be an int in [0, 1000000]", err


@pytest.fixture(scope='module')
def numbers_ct2(tmp_path_factory):
    pytest.importorskip('ctranslate2', reason="ctranslate2 not installed (pip install 'transformer-nb[deploy]')")
    from transformer_nb.apps.export import export_ctranslate2
    return export_ctranslate2('pretrained:numbers', tmp_path_factory.mktemp('ct2') / 'numbers')


def test_a_ctranslate2_export_refuses_as_a_checkpoint_does(numbers_ct2):
    from transformer_nb.apps.export import load_ctranslate2, ctranslate2_translate
    tr, tk, meta = load_ctranslate2(numbers_ct2)
    V = meta['config']['tgt_vocab']
    beam = V + 1 if V < 1000 else 1001                                             # past the vocabulary, or past the beam's declared bound
    says = f"is more than the target vocabulary of {V} pieces" if V < 1000 else "must be an int in [1, 1000]"
    with pytest.raises(SettingError) as e: ctranslate2_translate(tr, tk, ['seven'], Decoding(beam=beam), meta=meta)
    assert str(e.value) == f"beam={beam} {says}", str(e.value)
    for model in (numbers_ct2, 'pretrained:numbers'):                                # the same words on both paths
        out, err, code = run(translate_main, [model, 'seven', '--beam', beam, '--threads', '1'])
        assert code == 2 and not out and error_line(err, 'tnb-translate') == f"--beam {beam} {says}", err
    assert ctranslate2_translate(tr, tk, ['seven'], Decoding(max_extra=10**6), meta=meta) == ['sieben']   # capped as `max_output_lengths` caps it
    import ctranslate2
    if ctranslate2.get_cuda_device_count() == 0:
        with pytest.raises(SettingError) as e: load_ctranslate2(numbers_ct2, device='cuda')
        assert e.value.render(CLI) == "--device cuda: CTranslate2 finds no CUDA GPU on this machine"


def test_an_export_folder_given_for_a_checkpoint_is_named_an_export(numbers_ct2, tmp_path):
    with pytest.raises(FileNotFoundError, match=r"is a CTranslate2 export \(tnb-export\), not a checkpoint or a run folder: give the checkpoint it was exported from$"):
        resolve_checkpoint(numbers_ct2)
    (tmp_path / 'onnx').mkdir(); (tmp_path / 'onnx' / 'encoder.onnx').write_bytes(b'')
    with pytest.raises(FileNotFoundError, match=r"is an ONNX export \(tnb-export\)"): resolve_checkpoint(tmp_path / 'onnx')
    (tmp_path / 'src').write_text('seven\n')
    out, err, code = run(evaluate_main, [numbers_ct2, '--src', tmp_path / 'src', '--ref', tmp_path / 'src', '--threads', '1'])
    assert code == 2 and error_line(err, 'tnb-evaluate') == f"{numbers_ct2} is a CTranslate2 export (tnb-export), not a checkpoint or a run folder: give the checkpoint it was exported from"
    out, err, code = run(average_main, [numbers_ct2, '-o', tmp_path / 'avg.pt'])
    assert code == 2 and 'is a CTranslate2 export (tnb-export)' in err and not (tmp_path / 'avg.pt').exists()


@pytest.mark.slow
def test_translate_mjs_refuses_a_folder_as_onnx_translate_does_and_stops_quietly_at_a_closed_pipe(tmp_path):
    "A folder that holds no export, a config.json that is not JSON or not an object, a listed file missing: the live"
    " translator's line is the library's (`onnx_translate`), exit 2; a reader that leaves early ends it with 141, no trace."
    import json, shutil, subprocess
    from pathlib import Path
    pytest.importorskip('onnxruntime', reason="onnxruntime not installed (pip install 'transformer-nb[onnx]')")
    from transformer_nb.apps.export import export_onnx, onnx_translate
    node, mjs = shutil.which('node'), Path(__file__).resolve().parents[1] / 'nbs' / 'live' / 'translate.mjs'
    if node is None: pytest.skip("node is not installed: translate.mjs runs in Node")
    if not (mjs.parent / 'node_modules' / 'onnxruntime-web').is_dir(): pytest.skip("nbs/live's packages are not installed: npm ci --prefix nbs/live")
    good = export_onnx('pretrained:numbers', tmp_path / 'onnx', quantize=None)
    def broken(name, change):                       # config.sha256 rewritten to match: what follows it is checked
        import hashlib
        d = Path(shutil.copytree(good, tmp_path / name)); change(d)
        (d / 'config.sha256').write_text(hashlib.sha256((d / 'config.json').read_bytes()).hexdigest() + '  config.json\n'); return d
    (tmp_path / 'empty').mkdir(); (tmp_path / 'file.txt').write_text('seven\n')
    folders = [tmp_path / 'missing', tmp_path / 'empty', tmp_path / 'file.txt',
               broken('not-json', lambda d: (d / 'config.json').write_text('{')),
               broken('a-list', lambda d: (d / 'config.json').write_text('[1]')),
               broken('a-string', lambda d: (d / 'config.json').write_text('"x"')),
               broken('foreign', lambda d: (d / 'config.json').write_text(json.dumps({'format': 'other'}))),
               broken('no-tokenizer', lambda d: (d / 'tokenizer.json').unlink())]
    for d in folders:
        with pytest.raises((ValueError, FileNotFoundError)) as e: onnx_translate(d, ['seven'])
        r = subprocess.run([node, mjs, d, 'seven'], capture_output=True, timeout=300)
        says = r.stderr.decode()
        if d.name == 'not-json':      # the JSON parser's own words differ (Python's json, V8's JSON.parse); the rest is the same
            assert str(e.value).startswith(f"{d / 'config.json'} is not valid JSON (") and says.startswith(f"translate.mjs: {d / 'config.json'} is not valid JSON ("), says
            assert says.endswith("): export the folder again\n") and str(e.value).endswith("): export the folder again")
        else: assert says == f"translate.mjs: {e.value}\n", (d.name, says, str(e.value))
        assert r.returncode == 2 and not r.stdout, (d.name, r.returncode)
    r = subprocess.run(f"yes seven | head -200 | {node} {mjs} {good} | head -1; echo \"${{PIPESTATUS[2]}}\"", shell=True,
                       executable='bash', capture_output=True, text=True, timeout=300)
    assert r.stdout == 'sieben\n141\n' and r.stderr == '', (r.stdout, r.stderr)
    for args, stdin, where, said in (([], b'seven\x1b\x07eight\nthree\n', 'standard input, line 1', r'\x1b\x07'), (['seven\x01eight', 'three'], b'', 'sentence 1', r'\x01')):
        note = f"{where} holds control characters ({said}): each is read as a space, here and in any later line, so that every line in gives one line out"
        r = subprocess.run([node, mjs, good, *args], input=stdin, capture_output=True, timeout=300)   # control characters: spaces in both, said alike
        assert r.returncode == 0 and r.stdout == b'siebenhundertacht\ndrei\n' and r.stderr.decode() == f"translate.mjs: {note}\n", (r.stdout, r.stderr)
        from conftest import tool
        r = tool('translate', 'pretrained:numbers', *args, '--threads', '1', stdin=stdin if stdin else None)
        assert r.returncode == 0 and r.stdout == b'siebenhundertacht\ndrei\n' and f"tnb-translate: {note}" in r.stderr.splitlines(), r.stderr


def test_an_average_of_another_run_among_the_inputs_is_refused_not_skipped(tmp_path):
    "`tnb-average A.pt B.pt` with B an average of another run once skipped B as an average and wrote a copy of A (exit 0)."
    from pathlib import Path
    models = Path(__file__).resolve().parents[1] / 'models'
    for order in ((models / 'numbers.pt', models / 'multi30k-en-de.pt'), (models / 'multi30k-en-de.pt', models / 'numbers.pt')):
        out, err, code = run(average_main, [*order, '-o', tmp_path / 'avg.pt'])
        assert code == 2 and error_line(err, 'tnb-average').startswith(f"cannot average {models / 'numbers.pt'} and {models / 'multi30k-en-de.pt'}: they come from different runs ("), err
        assert not (tmp_path / 'avg.pt').exists()
    (tmp_path / 'notes.txt').write_text('mine')                       # a file that is no checkpoint: never offered to --overwrite
    out, err, code = run(average_main, [models / 'numbers.pt', '-o', tmp_path / 'notes.txt'])
    assert code == 2 and error_line(err, 'tnb-average') == f"-o {tmp_path / 'notes.txt'} already exists and is not a checkpoint, the only file an average replaces: choose another name"
    assert (tmp_path / 'notes.txt').read_text() == 'mine'


def test_tnb_data_names_a_bad_checksums_file_by_its_option(tmp_path):
    "A --checksums file missing, or not UTF-8, once ended in Python's own words ('utf-8' codec can't decode ...), naming no file."
    from transformer_nb.apps.wmt14 import read_checksums
    from transformer_nb.apps.cli import data_main
    (tmp_path / 'bad.txt').write_bytes(b'0' * 64 + b'  x.tgz \xff\n')
    for f, says in (('bad.txt', ", line 1: invalid UTF-8 (invalid start byte: byte b'\\xff' at offset 72); the text must be UTF-8 encoded"),
                    ('nothing.txt', ': no such file')):
        out, err, code = run(data_main, ['wmt14', tmp_path / 'dest', '--checksums', tmp_path / f, '--base-url', 'http://127.0.0.1:9'])
        assert code == 2 and error_line(err, 'tnb-data') == f"--checksums {tmp_path / f}{says}", err
        with pytest.raises(SettingError) as e: read_checksums(tmp_path / f)
        assert str(e.value) == f"checksums='{tmp_path / f}'{says}"
    assert not (tmp_path / 'dest').exists()


def test_tnb_average_names_o_and_hints_last_only_for_a_run_folder(tmp_path):
    "`-o` one of the inputs once went unnamed; one checkpoint once drew a `--last 5` hint for a folder with no checkpoint-<step>.pt."
    import shutil
    from pathlib import Path
    models = Path(__file__).resolve().parents[1] / 'models'
    (tmp_path / 'run').mkdir(); ck = tmp_path / 'run' / 'checkpoint-1.pt'; shutil.copy(models / 'numbers.pt', ck)
    out, err, code = run(average_main, [ck, '-o', ck])
    assert code == 2 and error_line(err, 'tnb-average') == f"-o {ck} is one of the checkpoints to average: write elsewhere", err
    assert ck.read_bytes() == (models / 'numbers.pt').read_bytes()
    out, err, code = run(average_main, [models / 'numbers.pt', '-o', tmp_path / 'a.pt'])
    assert code == 0 and '--last' not in err and (tmp_path / 'a.pt').exists(), err
    out, err, code = run(average_main, [ck, '-o', tmp_path / 'b.pt'])
    assert code == 0 and f"--last 5 -o {tmp_path / 'b.pt'}" in err, err


def test_tnb_export_names_its_output_as_o(tmp_path):
    "tnb-export once said 'output X ... is not an empty folder: it is a file' where every other command says `-o X`."
    from pathlib import Path
    from transformer_nb.apps.cli import export_main
    ckpt = Path(__file__).resolve().parents[1] / 'models' / 'numbers.pt'
    (tmp_path / 'f.txt').write_text('mine'); (tmp_path / 'full').mkdir(); (tmp_path / 'full' / 'notes.txt').write_text('mine')
    for fmt in ('ctranslate2', 'onnx', 'hf'):
        out, err, code = run(export_main, ['--format', fmt, ckpt, '-o', tmp_path / 'f.txt'])
        assert code == 2 and error_line(err, 'tnb-export') == f"-o {tmp_path / 'f.txt'} is a file, not an empty folder; give a folder (empty or new)", err
        out, err, code = run(export_main, ['--format', fmt, ckpt, '-o', tmp_path / 'full'])
        assert code == 2 and error_line(err, 'tnb-export').startswith(f"-o {tmp_path / 'full'} already exists and is not an empty folder"), err
    assert (tmp_path / 'f.txt').read_text() == 'mine' and [p.name for p in tmp_path.joinpath('full').iterdir()] == ['notes.txt']


def test_tnb_data_names_the_corpus_and_checks_its_places_before_the_checksum_rule(tmp_path):
    "`wmt15 must be wmt14` once named no argument; a DEST that is a file, a missing --archives folder, a bad --base-url once met the checksum refusal first."
    from transformer_nb.apps.wmt14 import fetch_wmt14
    from transformer_nb.apps.cli import data_main
    (tmp_path / 'f.txt').write_text('mine'); d = tmp_path / 'd'
    for argv, says in ((['wmt15', d], "argument corpus: wmt15 must be wmt14"),
                       (['wmt14', tmp_path / 'f.txt'], f"argument DEST: {tmp_path / 'f.txt'} is a file; give a folder (new, or one tnb-data wrote)"),
                       (['wmt14', d, '--archives', tmp_path / 'nope'], f"--archives {tmp_path / 'nope'}: no such folder"),
                       (['wmt14', d, '--archives', tmp_path / 'f.txt'], f"--archives {tmp_path / 'f.txt'}: not a folder"),
                       (['wmt14', d, '--base-url', 'ftp:/x'], "--base-url ftp:/x is not an http:// or https:// address with a host"),
                       (['wmt14', d, '--base-url', 'mirror/wmt'], "--base-url mirror/wmt is not an http:// or https:// address with a host")):
        out, err, code = run(data_main, argv)
        assert code == 2 and error_line(err, 'tnb-data') == says, err
    assert not d.exists() and (tmp_path / 'f.txt').read_text() == 'mine'
    with pytest.raises(SettingError, match=r"^archives='\S*nope': no such folder$"): fetch_wmt14('en-de', d, archives=tmp_path / 'nope')


def test_an_empty_value_reads_the_same_for_every_option(tmp_path):
    "`--alpha ''` once said 'must be a number' where `--device ''` said 'an empty value'."
    from transformer_nb.apps.cli import data_main
    for main, prog, argv, opt in ((translate_main, 'tnb-translate', ['x', '--alpha', ''], '--alpha'), (translate_main, 'tnb-translate', ['x', '--beam', ' '], '--beam'),
                                  (translate_main, 'tnb-translate', ['x', '--device', ''], '--device'), (average_main, 'tnb-average', ['x', '-o', tmp_path / 'a.pt', '--last', ''], '--last'),
                                  (data_main, 'tnb-data', ['wmt14', tmp_path / 'd', '--retries', ''], '--retries')):
        out, err, code = run(main, argv)
        assert code == 2 and error_line(err, prog) == f"argument {opt}: an empty value ('') (see {prog} --help)", err
    assert list(tmp_path.iterdir()) == []


def test_tnb_train_names_a_train_files_bad_line_by_train(tmp_path):
    "`--train nul.txt ref.txt` once said 'nul.txt, line 1' without --train, where -i, --src and --ref name their option."
    from transformer_nb.apps.cli import train_main
    from transformer_nb.lib.datasets import load_dataset
    (tmp_path / 'nul.txt').write_bytes(b'one\ntw\x00o\n'); (tmp_path / 'ref.txt').write_text('eins\nzwei\n')
    nul = tmp_path / 'nul.txt'
    for pair in ((nul, tmp_path / 'ref.txt'), (tmp_path / 'ref.txt', nul)):
        out, err, code = run(train_main, ['--dataset', 'files', '--train', *pair, '--out', tmp_path / 'run'])
        assert code == 2 and error_line(err, 'tnb-train') == f"--train {nul}, line 2: a NUL byte at offset 6; this is not UTF-8 text (a binary file, or UTF-16 text: convert it to UTF-8)", err
    assert not (tmp_path / 'run').exists()
    with pytest.raises(SettingError, match=r"^train='\S*nul\.txt', line 2: a NUL byte"): load_dataset('files', train=(nul, tmp_path / 'ref.txt'))


@pytest.mark.skipif(not os.path.exists('/dev/full'), reason='no /dev/full on this system')
def test_a_full_output_device_is_named_by_its_option(tmp_path):
    "`-o /dev/full` once ended in '/dev/full: No space left on device', no option named; a full disk is exit 1 (the command was fine)."
    from pathlib import Path
    ckpt = Path(__file__).resolve().parents[1] / 'models' / 'numbers.pt'
    (tmp_path / 'in.txt').write_text('twenty-one\n')
    for main, prog, argv in ((translate_main, 'tnb-translate', [ckpt, '-i', tmp_path / 'in.txt', '-o', '/dev/full']),
                             (average_main, 'tnb-average', [ckpt, '-o', '/dev/full'])):
        out, err, code = run(main, argv)
        assert code == 1 and error_line(err, prog) == "-o /dev/full: No space left on device", err
