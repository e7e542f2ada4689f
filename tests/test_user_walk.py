"""A new user's walk through the commands, faults included: what a user types in a shell (a wrong path, a folder used
again, odd input, a closed pipe, another locale, Ctrl-C, a file cut short, their own data), and what each must give:
one line that names the problem, exit code 2 for a refusal, the inputs unchanged and no half-written output. The
refusals that need no training run are fast; those that train, resume or interrupt a run are marked slow."""
import hashlib, re, shutil, signal, subprocess
from pathlib import Path
import pytest, torch
from conftest import ENV, ROOT, TINY, Live, cmd, inject_code, one_line, said, temps, tool

NUMBERS = ROOT / 'models' / 'numbers.pt'            # the published model a clone holds: no download in any test

def snapshot(folder:Path) -> dict:
    "Every file under `folder` with the sha256 of its bytes: compared before and after, nothing changed or added."
    return {p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(folder.rglob('*')) if p.is_file()}

def _cut_short(d:Path):
    b = NUMBERS.read_bytes(); (d / 'cut.pt').write_bytes(b[:len(b) // 3])

def _flipped(d:Path):
    "A copy of the published file with every 64th byte of its first tensor flipped (a bad disk or copy), given by its path."
    import zipfile
    b = bytearray(NUMBERS.read_bytes())
    with zipfile.ZipFile(NUMBERS) as z: info = z.getinfo('archive/data/0')
    at = info.header_offset; start = at + 30 + int.from_bytes(b[at + 26:at + 28], 'little') + int.from_bytes(b[at + 28:at + 30], 'little')
    for i in range(start, start + info.compress_size, 64): b[i] ^= 0xFF
    (d / 'flipped.pt').write_bytes(bytes(b))

def _damaged_mirror(d:Path):
    (d / 'mirror').mkdir(); (d / 'mirror' / 'numbers.pt').write_bytes(NUMBERS.read_bytes() + b'x')

# (id, tool, arguments, standard input, files made first in the folder it runs in, extra environment, what the line says)
REFUSALS = [
    ('new-run-on-cuda', 'train', ['--dataset', 'copy', '--device', 'cuda', '--out', 'run'], None, None, {},
     ['--device cuda: CUDA is not available']),
    ('own-data-empty-files', 'train', ['--dataset', 'files', '--train', 'e.en', 'e.toy', '--steps', '5', '--out', 'run'], None,
     lambda d: [(d / f).write_text('') for f in ('e.en', 'e.toy')], {}, ['--train e.en e.toy holds no sentence pair']),
    ('data-dir-not-a-folder', 'train', ['--dataset', 'files', '--data-dir', 'nothere', '--steps', '5', '--out', 'run'], None,
     None, {}, ["--data-dir nothere is not a folder"]),
    ('data-dir-for-a-generated-corpus', 'train', ['--dataset', 'numbers', '--data-dir', '.', '--out', 'run'], None, None, {},
     ["--data-dir . is not used"]),
    ('multi30k-unknown-language', 'train', ['--dataset', 'multi30k', '--src-lang', 'xx', '--out', 'run'], None, None, {},
     ["got --src-lang xx and --tgt-lang"]),
    ('out-is-a-file', 'train', ['--dataset', 'copy', '--steps', '5', '--out', 'notes.txt'], None,
     lambda d: (d / 'notes.txt').write_text('keep me\n'), {}, ['--out notes.txt is a file, not a folder']),
    ('checkpoint-not-found', 'translate', ['runs/nothere', 'five'], None, None, {}, ['checkpoint not found: runs/nothere']),
    ('checkpoint-cut-short', 'translate', ['cut.pt', 'five'], None, _cut_short, {}, ['cut.pt is cut short']),
    ('checkpoint-damaged', 'translate', ['flipped.pt', 'five'], None, _flipped, {}, ['flipped.pt is damaged: its record archive/data/0']),
    ('output-folder-missing', 'translate', [NUMBERS, 'five', '-o', 'no/such/out.txt'], None, None, {},
     ['-o no/such/out.txt: the folder', 'no/such does not exist']),
    ('output-over-input', 'translate', [NUMBERS, '-i', 'in.txt', '-o', 'in.txt'], None,
     lambda d: (d / 'in.txt').write_text('five\nsix\n'), {}, ['would overwrite -i in.txt']),
    ('invalid-utf8', 'translate', [NUMBERS], b'five\n\xff six\n', None, {}, ['standard input, line 2: invalid UTF-8']),
    ('nul-byte', 'translate', [NUMBERS], b'fi\x00ve\n', None, {}, ['standard input, line 1: a NUL byte']),
    ('a-100k-character-line', 'translate', [NUMBERS], ('five ' * 20_000).encode() + b'\n', None, {},
     ['line 1 is 99,999 characters long']),
    ('average-a-published-model', 'average', ['pretrained:numbers', '-o', 'avg.pt'], None, None, {},
     ['pretrained:numbers is a published model']),
    ('offline-mirror-damaged', 'translate', ['pretrained:numbers', 'five'], None, _damaged_mirror, {'TNB_PRETRAINED': 'mirror'},
     ['mirror/numbers.pt: its sha256', 'refused']),
]

@pytest.mark.parametrize('case', REFUSALS, ids=[c[0] for c in REFUSALS])
def test_a_fault_is_refused_in_one_line_and_nothing_changes(case, tmp_path):
    name, prog, args, stdin, setup, env, needles = case
    if name == 'new-run-on-cuda' and torch.cuda.is_available(): pytest.skip('this machine has CUDA')
    if setup: setup(tmp_path)
    before = snapshot(tmp_path)
    r = tool(prog, *args, stdin=stdin, env=env, cwd=tmp_path)
    line = one_line(r, f'tnb-{prog}', *needles)
    assert 'Errno' not in line and 'Traceback' not in r.stderr, line          # the user's words, not the OS's or Python's
    assert snapshot(tmp_path) == before and not temps(tmp_path)               # inputs unchanged, no half-written output

def test_one_line_out_per_line_in_whatever_its_control_characters(tmp_path):
    "A carriage return inside a line, an empty line and a CRLF ending: three lines in, three out, and a word about the CR."
    r = tool('translate', NUMBERS, stdin=b'seven\rnine\n\nthree\r\n', text=True, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split('\n')[1:] == ['', 'drei', ''] and r.stdout.count('\n') == 3, r.stdout
    assert any('line 1 holds control characters (\\r)' in l for l in said(r.stderr)), r.stderr

def test_closed_pipes_end_quietly(tmp_path):
    "A reader that stops after one line (`| head -1`) ends the tool quietly; a closed standard output (`>&-`) is refused."
    line = ' '.join(f"'{a}'" for a in cmd('translate', NUMBERS))
    r = subprocess.run(['bash', '-c', f"printf 'five\\n%.0s' $(seq 300) | {line} | head -1; echo \"${{PIPESTATUS[1]}}\""],
                       capture_output=True, text=True, env=ENV, cwd=tmp_path, timeout=300)
    assert r.stdout.split('\n')[:2] == ['fünf', '0'] and 'Traceback' not in r.stderr, (r.stdout, r.stderr)
    r = subprocess.run(['bash', '-c', f"{line} five >&-"], capture_output=True, text=True, env=ENV, cwd=tmp_path, timeout=300)
    one_line(r, 'tnb-translate', 'standard output is closed')

def test_a_c_locale_still_reads_and_writes_utf8(tmp_path):
    (tmp_path / 'in.txt').write_text('fifty-five\n', encoding='utf-8')
    r = tool('translate', NUMBERS, '-i', 'in.txt', env={'LC_ALL': 'C', 'LANG': 'C'}, cwd=tmp_path)
    assert (r.returncode, r.stdout) == (0, 'fünfundfünfzig\n'.encode()), r.stderr


# --- with a run: train on the CPU by name, resume, average, interrupt -------------------------------------------------

@pytest.fixture(scope='module')
def cpu_run(tmp_path_factory) -> Path:
    "A new run given --device cpu (which once crashed): 40 updates, checkpoints at 20, 30 and 40, and an average of them."
    out = tmp_path_factory.mktemp('walk') / 'run'
    r = tool('train', *TINY, '--steps', '40', '--save-every', '10', '--keep', '3', '--device', 'cpu', '--out', out)
    assert r.returncode == 0, r.stderr[-3000:]
    a = tool('average', out, '--last', '3', '-o', out / 'average.pt')
    assert a.returncode == 0, a.stderr[-3000:]
    return out

@pytest.fixture
def own_run(cpu_run, tmp_path) -> Path:
    shutil.copytree(cpu_run, tmp_path / 'run')
    return tmp_path / 'run'

@pytest.mark.slow   # trains
def test_resume_on_the_cpu_by_name_after_a_torn_log(own_run):
    "--device cpu on a resumed run; a last log line cut short is removed, and the resume says so: the log is JSON Lines."
    import json
    log = own_run / 'log.jsonl'
    log.write_bytes(log.read_bytes() + b'{"step": 41, "valid": {"lo')
    r = tool('train', '--resume', own_run, '--steps', '45', '--device', 'cpu', '--no-progress', '--test-limit', '0', text=True)
    assert r.returncode == 0, r.stderr[-3000:]
    assert 'removed 1 line(s) cut short' in r.stdout + r.stderr
    assert all(json.loads(l) for l in log.read_text().splitlines())
    assert (own_run / 'checkpoint-0000045.pt').is_file()

@pytest.mark.slow   # needs the run
def test_average_skips_an_average_among_its_inputs(own_run, tmp_path):
    before = snapshot(own_run)
    r = tool('average', *sorted(own_run.glob('*.pt')), '-o', tmp_path / 'new.pt', text=True)
    assert r.returncode == 0, r.stderr
    assert 'skipped' in r.stderr and 'average.pt' in r.stderr and 'averaged 3 checkpoints' in r.stdout, (r.stdout, r.stderr)
    assert snapshot(own_run) == before

@pytest.mark.slow   # trains
def test_ctrl_c_saves_a_whole_checkpoint_and_the_run_resumes(tmp_path):
    out = tmp_path / 'run'
    a = Live('train', *TINY, '--steps', '100000', '--save-every', '0', '--out', out, code=inject_code())
    try: assert a.wait_for('TRAINING', where='err'), ''.join(a.out + a.err)[-3000:]
    finally: a.signal(signal.SIGINT)
    code, stdout, stderr = a.finish()
    assert code == 130 and 'interrupted at update' in stdout and 'Traceback' not in stderr, stderr[-3000:]
    assert not temps(out) and list(out.glob('checkpoint-*.pt'))
    step = int(re.search(r'interrupted at update (\d+)', stdout).group(1))
    assert (out / f'checkpoint-{step:07d}.pt').is_file()
    r = tool('train', '--resume', out, '--steps', step + 2, '--no-progress', '--test-limit', '0')
    assert r.returncode == 0 and (out / f'checkpoint-{step + 2:07d}.pt').is_file(), r.stderr[-3000:]
