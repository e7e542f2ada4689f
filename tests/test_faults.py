"""Faults, hostile inputs and odd outputs, with real processes, and the command line's handling of mistakes and bugs.

Every test here runs the command-line tools the way a user does (a fresh interpreter per command; signals sent with
`os.kill`; real FIFOs, symlinks, read-only folders and, where the machine allows mounting, a full tmpfs) and checks
three things: the exit code, that stderr is one line naming the problem (never a traceback), and what survived on
disk. Faults that cannot be produced for real in a test (a full disk at the second checkpoint, a slow write that a
second Ctrl-C lands in) are injected by wrapping `torch.save` in the child process, which runs the real tools around
it. The classes: run folders, outputs, inputs, checkpoints, faults, options, the results file, the command line."""
import json, os, random, shutil, signal, stat, subprocess, sys, threading, time
from pathlib import Path
import pytest, torch
from transformer_nb.checkpoints import load_checkpoint, save_checkpoint
from transformer_nb.runs import RunFolder
from conftest import ENV, TINY, cmd, tool, tiny_run, one_line, temps, default_signals as _default_sigint, Live, said as quiet
pytestmark = pytest.mark.slow        # every test here runs the tools in fresh processes (`pytest -m 'not slow'` skips them)

@pytest.fixture(scope='module')
def run(tmp_path_factory):
    "A tiny copy-task run with checkpoints at updates 10 and 20 (its quality does not matter here)."
    out = tiny_run(tmp_path_factory, 'faults', '--steps', '20', '--save-every', '10', '--keep', '0')
    assert [p.name for p in RunFolder(out).checkpoints()] == ['checkpoint-0000010.pt', 'checkpoint-0000020.pt']
    return out

@pytest.fixture
def folder(run, tmp_path):
    "A private copy of the run folder, for tests that change it."
    shutil.copytree(run, tmp_path / 'run')
    return tmp_path / 'run'

def _mount(path, opts) -> bool:
    return subprocess.run(['mount', '-t', 'tmpfs', '-o', opts, 'tmpfs', str(path)], capture_output=True).returncode == 0

@pytest.fixture
def readonly_dir(tmp_path):
    "A folder nothing can be written into: mode 555, or for root (who ignores modes) a read-only tmpfs or chattr +i."
    d = tmp_path / 'ro'; d.mkdir()
    if os.geteuid() != 0:
        d.chmod(0o555); yield d; d.chmod(0o755); return
    if _mount(d, 'ro,size=64k'):
        yield d; subprocess.run(['umount', str(d)]); return
    if subprocess.run(['chattr', '+i', str(d)], capture_output=True).returncode == 0:
        yield d; subprocess.run(['chattr', '-i', str(d)]); return
    pytest.skip("no way to make a read-only folder here (root, and neither mount nor chattr works)")

# A child-process wrapper around torch.save: TNB_FAULT='ENOSPC:2' makes the 2nd save write half a file and fail with
# ENOSPC (or EROFS, ...); 'slow:2:3' announces the 2nd save on stderr and makes it take 3 s longer. It also prints
# TRAINING on stderr after the first update, so that a test knows when training has started.
# STARTING on stderr once the command runs, just before it imports PyTorch
STARTING = ("import sys, transformer_nb.commands as c; _h = c.heavy_imports; "
            "c.heavy_imports = lambda: (print('STARTING', file=sys.stderr, flush=True), _h())")

def inject_code() -> str:
    "INJECT_SRC as a -c prefix (a function body cannot be written on one line with semicolons, so exec it)."
    return f"exec({INJECT_SRC!r})"

INJECT_SRC = """
import os, sys, time, errno, torch
from transformer_nb.trainer import Trainer
_save, _n, _update = torch.save, [0], Trainer.update
_kind, _at, *_rest = os.environ.get('TNB_FAULT', 'none:0').split(':')
def save(obj, f, *a, **k):
    _n[0] += 1
    if _n[0] == int(_at):
        if _kind == 'slow':
            print('SAVE-START', file=sys.stderr, flush=True); time.sleep(float(_rest[0]))
        else:
            f.write(b'half a checkpoint'); e = getattr(errno, _kind); raise OSError(e, os.strerror(e))
    return _save(obj, f, *a, **k)
def update(self, group, *a, **k):
    stats = _update(self, group, *a, **k)
    if stats['step'] == 1: print('TRAINING', file=sys.stderr, flush=True)
    return stats
torch.save, Trainer.update = save, update
"""

# ---------------------------------------------------------------------------------------------------------------
# 1. Run folders
# ---------------------------------------------------------------------------------------------------------------
def test_new_run_refuses_a_folder_holding_another_run(folder):
    before = {p.name: p.stat().st_mtime_ns for p in RunFolder(folder).checkpoints()}
    r = tool('train', *TINY, '--steps', '3', '--out', folder)
    one_line(r, 'tnb-train', f'--out {folder} already holds a run (checkpoint-0000010.pt, checkpoint-0000020.pt, log.jsonl, loss.png)', '--resume', '--overwrite')
    assert {p.name: p.stat().st_mtime_ns for p in RunFolder(folder).checkpoints()} == before       # untouched
    r = tool('train', *TINY, '--steps', '3', '--out', folder, '--overwrite')
    assert r.returncode == 0, r.stderr[-3000:]
    assert [p.name for p in RunFolder(folder).checkpoints()] == ['checkpoint-0000003.pt']         # the old run is gone, as asked
    assert len(load_checkpoint(folder)['meta']['history']['train']) == 3

def test_a_run_that_fails_early_leaves_no_folder_behind(tmp_path):
    "A run that fails before it writes anything removes the folder it made (but never one that was there), in one line."
    r = tool('train', *TINY, '--steps', '3', '--max-len', '1', '--out', tmp_path / 'new')
    one_line(r, 'tnb-train', 'no training pairs left: max_len=1 drops all 10,000 of them')           # no warning line first
    assert not (tmp_path / 'new').exists()
    (tmp_path / 'mine').mkdir(); (tmp_path / 'mine' / 'notes.txt').write_text('keep me\n')
    one_line(tool('train', *TINY, '--steps', '3', '--max-len', '1', '--out', tmp_path / 'mine'), 'tnb-train', 'no training pairs left')
    assert (tmp_path / 'mine' / 'notes.txt').read_text() == 'keep me\n'

def test_two_live_runs_in_one_folder(tmp_path):
    out = tmp_path / 'run'
    a = Live('train', *TINY, '--steps', '100000', '--save-every', '0', '--out', out, code=inject_code())
    try:
        assert a.wait_for('TRAINING', where='err'), ''.join(a.out + a.err)[-3000:]   # A holds the folder and trains
        b = tool('train', *TINY, '--steps', '3', '--d-model', '64', '--out', out)
        one_line(b, 'tnb-train', f'the run folder {out} is in use by another run (pid {a.p.pid}')
    finally:
        a.signal(signal.SIGINT)
    code, stdout, stderr = a.finish()
    assert code == 130 and 'interrupted at update' in stdout, stderr[-3000:]
    assert load_checkpoint(out)['config']['d_model'] == 32                                 # A's model, not B's

def test_resume_refuses_model_options_that_contradict_the_checkpoint(folder):
    r = tool('train', '--resume', folder, '--d-model', '64', '--steps', '30', '--no-progress', '--test-limit', '0')
    one_line(r, 'tnb-train', 'checkpoint-0000020.pt is a model with d_model=32 (not 64)', 'a resumed run keeps its model')
    r = tool('train', '--resume', folder, '--preset', 'small', '--steps', '30', '--no-progress', '--test-limit', '0')
    one_line(r, 'tnb-train', 'd_model=32 (not 256)')
    assert RunFolder(folder).latest().name == 'checkpoint-0000020.pt'

def test_resume_says_what_it_does_at_or_past_steps(folder):
    r = tool('train', '--resume', folder, '--steps', '10', '--no-progress', '--test-limit', '0')
    one_line(r, 'tnb-train', 'is at update 20, past the 10 updates asked for', 'ask for more than 20')
    r = tool('train', '--resume', folder, '--steps', '20', '--no-progress', '--test-limit', '0')
    assert r.returncode == 0, r.stderr[-3000:]
    assert b'nothing to train: the run has done the 20 updates asked for' in r.stdout

def test_resume_continues_the_checkpoints_dataset_and_folder(folder, tmp_path):
    r = tool('train', '--resume', folder, '--steps', '22', '--no-progress', '--test-limit', '0', cwd=tmp_path)
    assert r.returncode == 0, r.stderr[-3000:]
    ck = load_checkpoint(folder)                                                            # --out defaults to its folder
    assert ck['step'] == 22 and ck['meta']['dataset'] == 'copy' and not (tmp_path / 'runs').exists()
    other = tmp_path / 'other'; shutil.copytree(folder, other)                              # another run's checkpoints
    r = tool('train', '--resume', folder / 'checkpoint-0000010.pt', '--out', other, '--steps', '12', '--no-progress', '--test-limit', '0')
    one_line(r, 'tnb-train', f"{other} holds another run's files (checkpoint-0000010.pt", 'write to another folder')

# ---------------------------------------------------------------------------------------------------------------
# 2. Outputs
# ---------------------------------------------------------------------------------------------------------------
def _reader(fifo):
    return subprocess.Popen(['cat', str(fifo)], stdout=subprocess.PIPE)

def _read(p, timeout=60):
    try: return p.communicate(timeout=timeout)[0]
    except subprocess.TimeoutExpired: p.kill(); return p.communicate()[0]

def test_outputs_through_symlinks_fifos_and_devices(run, tmp_path):
    (tmp_path / 'target.txt').write_text('old\n'); (tmp_path / 'link.txt').symlink_to(tmp_path / 'target.txt')
    (tmp_path / 'null').symlink_to('/dev/null'); os.mkfifo(tmp_path / 'fifo')
    r = tool('translate', run, 'a b', 'c', '--beam', '1', '-o', tmp_path / 'link.txt')
    assert r.returncode == 0, r.stderr
    assert (tmp_path / 'link.txt').is_symlink() and len((tmp_path / 'target.txt').read_text().splitlines()) == 2
    r = tool('translate', run, 'a b', '--beam', '1', '-o', tmp_path / 'null')
    assert r.returncode == 0, r.stderr
    assert (tmp_path / 'null').is_symlink() and stat.S_ISCHR(os.stat('/dev/null').st_mode)
    reader = _reader(tmp_path / 'fifo')
    r = tool('translate', run, 'a b', 'c', 'd', '--beam', '1', '-o', tmp_path / 'fifo', timeout=120)
    got = _read(reader)
    assert r.returncode == 0 and got.count(b'\n') == 3, (r.stderr, got)
    assert stat.S_ISFIFO(os.stat(tmp_path / 'fifo').st_mode)
    (tmp_path / 's').write_text('a b\nc\n'); (tmp_path / 'r').write_text('a b\nc\n')
    reader = _reader(tmp_path / 'fifo')
    r = tool('evaluate', run, '--beam', '1', '--src', tmp_path / 's', '--ref', tmp_path / 'r', '--hyp-out', tmp_path / 'fifo')
    assert r.returncode == 0 and _read(reader).count(b'\n') == 2, r.stderr
    (tmp_path / 'avg-target.pt').write_bytes(b''); (tmp_path / 'avg.pt').symlink_to(tmp_path / 'avg-target.pt')
    r = tool('average', run, '--last', '2', '-o', tmp_path / 'avg.pt')
    assert r.returncode == 0, r.stderr
    assert (tmp_path / 'avg.pt').is_symlink() and load_checkpoint(tmp_path / 'avg-target.pt')['meta']['averaged_from']
    assert temps(tmp_path) == []

def test_outputs_are_checked_before_any_work(run, tmp_path, readonly_dir):
    missing = tmp_path / 'no' / 'such'
    nothing = tmp_path / 'not-yet.pt'     # not even the checkpoint is looked at before the outputs are checked
    one_line(tool('translate', nothing, 'a', '-o', missing / 'out.txt'), 'tnb-translate', f'-o {missing}/out.txt: the folder {missing} does not exist')
    one_line(tool('translate', nothing, 'a', '-o', readonly_dir / 'out.txt'), 'tnb-translate', f'-o {readonly_dir}/out.txt: cannot write in {readonly_dir}')
    one_line(tool('translate', nothing, 'a', '-o', tmp_path), 'tnb-translate', 'is a folder')
    one_line(tool('evaluate', nothing, '--dataset', 'copy', '--hyp-out', missing / 'h'), 'tnb-evaluate', 'does not exist')
    one_line(tool('evaluate', nothing, '--dataset', 'copy', '--record', readonly_dir / 'r.json'), 'tnb-evaluate', 'cannot write in')
    one_line(tool('average', run, '--last', '2', '-o', missing / 'avg.pt'), 'tnb-average', 'does not exist')
    one_line(tool('average', run, '--last', '2', '-o', readonly_dir / 'avg.pt'), 'tnb-average', 'cannot write in')
    assert temps(tmp_path) == []

def _no_big_files():
    import resource
    resource.setrlimit(resource.RLIMIT_FSIZE, (64, resource.RLIM_INFINITY))    # a real EFBIG past 64 bytes
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)

def test_a_failed_write_keeps_the_old_file_and_leaves_no_temporary_file(run, tmp_path):
    out = tmp_path / 'out.txt'; out.write_text('the previous translation\n')
    r = tool('translate', run, *['a b c d e f g h'] * 100, '--beam', '1', '-o', out, preexec_fn=_no_big_files)
    one_line(r, 'tnb-translate', 'File too large')
    assert out.read_text() == 'the previous translation\n' and temps(tmp_path) == []

@pytest.mark.skipif(not os.path.exists('/dev/full'), reason='no /dev/full here')
def test_a_full_device_fails_the_run_in_one_line_naming_the_output(run):
    "/dev/full takes no byte (ENOSPC): the disk failed, not the command, so exit 1, and the line names the output."
    one_line(tool('translate', run, 'a b', '--beam', '1', '-o', '/dev/full'), 'tnb-translate', '/dev/full: No space left on device', code=1)
    with open('/dev/full', 'wb') as full:
        r = subprocess.run(cmd('translate', run, 'a b', '--beam', '1'), stdout=full, stderr=subprocess.PIPE, env=ENV, timeout=300, text=True)
    one_line(r, 'tnb-translate', 'standard output: No space left on device', code=1)

def test_stale_temporary_files_of_killed_writers_are_removed(folder, tmp_path):
    write_and_die = "import os, sys; open(sys.argv[1] + str(os.getpid()), 'wb').write(b'half'); os.kill(os.getpid(), 9)"
    for prefix in (folder / '.checkpoint-0000030.pt.tmp', tmp_path / '.out.txt.tmp'):
        k = subprocess.run([sys.executable, '-c', write_and_die, str(prefix)])
        assert k.returncode == -9
    assert len(temps(tmp_path)) == 2
    r = tool('train', '--resume', folder, '--steps', '21', '--no-progress', '--test-limit', '0')
    assert r.returncode == 0, r.stderr[-3000:]
    r = tool('translate', folder, 'a', '--beam', '1', '-o', tmp_path / 'out.txt')
    assert r.returncode == 0, r.stderr
    assert temps(tmp_path) == []

# ---------------------------------------------------------------------------------------------------------------
# 3. Inputs
# ---------------------------------------------------------------------------------------------------------------
SEPARATORS = ['\x0b', '\x0c', '\x1c', '\x1d', '\x1e', '\x85', '\u2028', '\u2029']

def test_stdin_splits_on_newline_only(run, tmp_path):
    lines = [f'a b{s}c d' for s in SEPARATORS] + ['e f', '', 'g\r', 'h \u2028', 'a']                 # 13 lines
    text = ('\n'.join(lines) + '\n').encode()
    (tmp_path / 'in.txt').write_bytes(text)
    by_stdin = tool('translate', run, '--beam', '1', stdin=text)
    by_file = tool('translate', run, '--beam', '1', '-i', tmp_path / 'in.txt')
    assert by_stdin.returncode == 0 and by_file.returncode == 0, by_stdin.stderr + by_file.stderr
    assert by_stdin.stdout.count(b'\n') == len(lines) == 13
    assert by_stdin.stdout == by_file.stdout
    assert by_stdin.stdout.split(b'\n')[9] == b''                                                     # the empty line

def test_undecodable_input_names_stream_line_and_offset(run, tmp_path):
    bad = b'a b\nc \xff d\n'
    one_line(tool('translate', run, stdin=bad), 'tnb-translate',
             "standard input, line 2: invalid UTF-8 (invalid start byte: byte b'\\xff' at offset 6)")
    (tmp_path / 'bad.txt').write_bytes(bad)
    one_line(tool('translate', run, '-i', tmp_path / 'bad.txt'), 'tnb-translate', f"{tmp_path}/bad.txt, line 2: invalid UTF-8")
    (tmp_path / 'ok.txt').write_text('a\nb\n')
    one_line(tool('evaluate', run, '--src', tmp_path / 'bad.txt', '--ref', tmp_path / 'ok.txt'), 'tnb-evaluate', 'bad.txt, line 2')

def test_an_input_that_is_a_folder_or_a_stream(run, tmp_path):
    one_line(tool('translate', run, '-i', tmp_path), 'tnb-translate', f'-i {tmp_path} is a folder; give a text file')
    r = tool('translate', run, '--beam', '1', '-i', '/dev/stdin', stdin=b'a b\nc\n')       # a stream named as a file
    assert r.returncode == 0 and r.stdout.count(b'\n') == 2, r.stderr

@pytest.mark.parametrize('content', ['', ' \n\n\t\n'])
def test_empty_or_blank_test_set(run, tmp_path, content):
    (tmp_path / 's').write_text(content); (tmp_path / 'r').write_text(content)
    r = tool('evaluate', run, '--src', tmp_path / 's', '--ref', tmp_path / 'r', '--hyp-out', tmp_path / 'h')
    one_line(r, 'tnb-evaluate', 'hold no sentence pairs (empty or blank)')
    assert not (tmp_path / 'h').exists()

# ---------------------------------------------------------------------------------------------------------------
# 4. Checkpoints
# ---------------------------------------------------------------------------------------------------------------
def _variant(run, tmp_path, name, **change):
    ck = load_checkpoint(RunFolder(run).latest())
    for k, v in change.items():
        if v is None: ck.pop(k, None)
        else: ck[k] = v(ck) if callable(v) else v
    torch.save(ck, tmp_path / name)
    return tmp_path / name

def test_average_needs_one_config_and_one_tokenizer(run, tmp_path):
    from transformer_nb.data import Tokenizer
    ck = load_checkpoint(RunFolder(run).latest())
    n = Tokenizer.from_bytes(ck['tokenizer']).vocab_size
    other = Tokenizer.train([' '.join('zyxwvutsrq'[i % 10] for i in range(j, j + 6)) for j in range(200)], vocab_size=n)
    assert other.vocab_size == n and other.to_bytes() != ck['tokenizer']
    tok = _variant(run, tmp_path, 'tok.pt', tokenizer=other.to_bytes())
    r = tool('average', RunFolder(run).latest(), tok, '-o', tmp_path / 'avg.pt')
    one_line(r, 'tnb-average', 'different tokenizers')
    drop = _variant(run, tmp_path, 'drop.pt', config=lambda c: {**c['config'], 'p_drop': 0.3})
    one_line(tool('average', RunFolder(run).latest(), drop, '-o', tmp_path / 'avg.pt'), 'tnb-average', 'different training settings (p_drop: 0.0 vs 0.3)')
    assert not (tmp_path / 'avg.pt').exists() and temps(tmp_path) == []

def test_average_never_replaces_a_training_checkpoint(run, tmp_path):
    shutil.copytree(run, tmp_path / 'run'); newest = RunFolder(tmp_path / 'run').latest(); before = newest.read_bytes()
    one_line(tool('average', tmp_path / 'run', '--last', '2', '-o', newest), 'tnb-average', 'is one of the checkpoints to average')
    one_line(tool('average', tmp_path / 'run', '--last', '2', '-o', tmp_path / 'run' / 'checkpoint-0099999.pt'), 'tnb-average', 'call it e.g. avg.pt')
    assert newest.read_bytes() == before and [p.name for p in RunFolder(tmp_path / 'run').checkpoints()] == ['checkpoint-0000010.pt', 'checkpoint-0000020.pt']

def test_missing_or_foreign_fields_get_one_line_naming_the_file(run, tmp_path):
    r = tool('average', run, '--last', '2', '-o', tmp_path / 'avg.pt')
    assert r.returncode == 0, r.stderr
    r = tool('train', '--resume', tmp_path / 'avg.pt', '--out', tmp_path / 'x', '--steps', '30', '--no-progress', '--test-limit', '0')
    one_line(r, 'tnb-train', f'{tmp_path}/avg.pt lacks the optimizer, scheduler, rng and data_pos that resuming needs', 'average of checkpoints')
    cases = [('noconfig.pt', dict(config=None), 'noconfig.pt lacks the config that inference needs'),
             ('newer.pt', dict(config=lambda c: {**c['config'], 'rope': True}), 'newer.pt: its config has fields this version does not know (rope)'),
             ('badh.pt', dict(config=lambda c: {**c['config'], 'h': 'four'}), 'badh.pt: its config is not valid'),
             ('tok.pt', dict(tokenizer=b'not a sentencepiece model'), 'tok.pt: its tokenizer cannot be read'),
             ('shape.pt', dict(config=lambda c: {**c['config'], 'd_ff': 96}), 'shape.pt: the weights do not match the architecture in its config')]
    for name, change, msg in cases:
        one_line(tool('translate', _variant(run, tmp_path, name, **change), 'a b'), 'tnb-translate', msg)
    one_line(tool('train', '--resume', tmp_path / 'noconfig.pt', '--out', tmp_path / 'y', '--steps', '30'), 'tnb-train', 'noconfig.pt lacks the config')

def test_unreadable_checkpoints_get_a_whole_sentence(tmp_path):
    (tmp_path / 'random.pt').write_bytes(random.Random(0).randbytes(5000))
    line = one_line(tool('translate', tmp_path / 'random.pt', 'a'), 'tnb-translate', 'random.pt is not a readable checkpoint')
    assert line.endswith(')') and 'not a file written by torch.save, or a damaged one (Unsupported operand' in line
    (tmp_path / 'empty.pt').write_bytes(b'')
    one_line(tool('translate', tmp_path / 'empty.pt', 'a'), 'tnb-translate', 'empty.pt is not a readable checkpoint', 'empty or cut short')

def test_beam_wider_than_the_vocabulary(run):
    V = load_checkpoint(run)['config']['tgt_vocab']
    one_line(tool('translate', run, 'a b', '--beam', str(V + 1)), 'tnb-translate', f'{V + 1} is more than the target vocabulary of {V} pieces')
    one_line(tool('evaluate', run, '--beam', '1000'), 'tnb-evaluate', '1000 is more than the target vocabulary')
    assert tool('translate', run, 'a b', '--beam', str(V)).returncode == 0                           # as wide as it is: fine

@pytest.mark.skipif(torch.cuda.is_available(), reason='this machine has CUDA')
def test_an_unavailable_device_is_named(run, tmp_path):
    one_line(tool('translate', run, 'a', '--device', 'cuda'), 'tnb-translate', '--device cuda: CUDA is not available on this machine')
    one_line(tool('evaluate', run, '--device', 'cuda:1'), 'tnb-evaluate', 'CUDA is not available')
    one_line(tool('translate', run, 'a', '--device', 'gpu'), 'tnb-translate', '--device gpu: not a device name')
    one_line(tool('train', *TINY, '--device', 'cuda', '--out', tmp_path / 'x'), 'tnb-train', 'CUDA is not available')
    assert not (tmp_path / 'x').exists()

# ---------------------------------------------------------------------------------------------------------------
# 5. Faults: signals, a full disk, read-only folders
# ---------------------------------------------------------------------------------------------------------------
def test_second_ctrl_c_during_the_checkpoint_write_waits_for_it(tmp_path):
    out = tmp_path / 'run'
    a = Live('train', *TINY, '--steps', '100000', '--save-every', '0', '--out', out, code=inject_code(), env={'TNB_FAULT': 'slow:1:3'})
    assert a.wait_for('TRAINING', where='err'), ''.join(a.out + a.err)[-3000:]
    a.signal(signal.SIGINT)                                                       # the first Ctrl-C: save and stop
    assert a.wait_for('SAVE-START', where='err'), ''.join(a.out + a.err)[-3000:]
    a.signal(signal.SIGINT); time.sleep(0.5); a.signal(signal.SIGINT)             # two more while it writes
    code, stdout, stderr = a.finish()
    assert code == 130 and 'Traceback' not in stderr, stderr[-3000:]
    assert quiet(stderr) == [f"saving {out}/checkpoint-{load_checkpoint(out)['step']:07d}.pt, please wait (Ctrl-\\ quits at once, without it)"] * 2, stderr
    assert 'checkpoint saved to' in stdout and temps(out) == [], stdout

def test_ctrl_c_during_a_periodic_save_stops_after_it(tmp_path):
    out = tmp_path / 'run'
    a = Live('train', *TINY, '--steps', '100000', '--save-every', '2', '--out', out, code=inject_code(), env={'TNB_FAULT': 'slow:1:3'})
    assert a.wait_for('SAVE-START', where='err'), ''.join(a.out + a.err)[-3000:]
    a.signal(signal.SIGINT)
    code, stdout, stderr = a.finish()
    assert code == 130 and 'Traceback' not in stderr and 'interrupted at update 2' in stdout, (stdout, stderr[-3000:])
    assert [p.name for p in RunFolder(out).checkpoints()] == ['checkpoint-0000002.pt'] and temps(out) == []

def test_ctrl_c_at_random_points(tmp_path):
    "Ctrl-C during start-up (imports, data, tokenizer) and during training: exit 130, one line or a saved checkpoint."
    rng = random.Random(2024)
    plans = [('start', 0.0), ('start', rng.uniform(0.2, 2.0)), ('train', rng.uniform(0.0, 1.5)), ('train', rng.uniform(1.5, 4.0))]
    for i, (phase, delay) in enumerate(plans):
        out = tmp_path / f'run{i}'
        a = Live('train', *TINY, '--steps', '100000', '--save-every', '3', '--out', out,
                 code=inject_code() if phase == 'train' else STARTING)
        # the interpreter's own start-up is not ours to guard: the clock starts when the command runs
        assert a.wait_for('TRAINING' if phase == 'train' else 'STARTING', where='err'), ''.join(a.out + a.err)[-3000:]
        time.sleep(delay); a.signal(signal.SIGINT)
        code, stdout, stderr = a.finish()
        assert code == 130 and 'Traceback' not in stderr, (phase, delay, stderr[-3000:])
        if phase == 'train':                       # a Ctrl-C that lands in a periodic save says that it waits for it
            assert 'interrupted at update' in stdout, (stdout, stderr)
            assert all(l.startswith('saving ') and 'please wait' in l for l in quiet(stderr)), (stdout, stderr)
        else: assert quiet(stderr) in ([], ['tnb-train: interrupted']), (phase, delay, stderr)
        for p in RunFolder(out).checkpoints() if out.exists() else []: load_checkpoint(p)   # whatever is there is whole
        assert not out.exists() or temps(out) == []

def test_sigterm_saves_a_checkpoint_and_exits_143(tmp_path):
    out = tmp_path / 'run'
    a = Live('train', *TINY, '--steps', '100000', '--save-every', '0', '--out', out, code=inject_code())
    assert a.wait_for('TRAINING', where='err'), ''.join(a.out + a.err)[-3000:]
    a.signal(signal.SIGTERM)
    code, stdout, stderr = a.finish()
    assert code == 143 and 'checkpoint saved to' in stdout and 'Traceback' not in stderr, (code, stderr[-3000:])
    assert load_checkpoint(out)['step'] > 0

def test_a_closed_terminal_sighup_saves_a_checkpoint_and_exits_129(tmp_path):
    out = tmp_path / 'run'
    a = Live('train', *TINY, '--steps', '100000', '--save-every', '0', '--out', out, code=inject_code())
    assert a.wait_for('TRAINING', where='err'), ''.join(a.out + a.err)[-3000:]
    a.signal(signal.SIGHUP)
    code, stdout, stderr = a.finish()
    assert code == 129 and 'checkpoint saved to' in stdout and 'Traceback' not in stderr, (code, stderr[-3000:])
    assert load_checkpoint(out)['step'] > 0 and temps(out) == []

def test_kill_9_during_the_checkpoint_write(tmp_path):
    out = tmp_path / 'run'
    a = Live('train', *TINY, '--steps', '100000', '--save-every', '5', '--out', out, code=inject_code(), env={'TNB_FAULT': 'slow:2:30'})
    assert a.wait_for('SAVE-START', where='err'), ''.join(a.out + a.err)[-3000:]
    a.signal(signal.SIGKILL); a.finish()
    assert [p.name for p in RunFolder(out).checkpoints()] == ['checkpoint-0000005.pt'] and len(temps(out)) == 1
    r = tool('train', '--resume', out, '--steps', '7', '--no-progress', '--test-limit', '0')
    assert r.returncode == 0, r.stderr[-3000:]
    assert load_checkpoint(out)['step'] == 7 and temps(out) == []

@pytest.mark.parametrize('err', ['ENOSPC', 'EROFS'])
def test_disk_full_or_read_only_keeps_the_last_good_checkpoint(tmp_path, err):
    out = tmp_path / 'run'
    r = tool('train', *TINY, '--steps', '30', '--save-every', '10', '--out', out, code=inject_code(), env={'TNB_FAULT': f'{err}:2'})
    strerror = os.strerror(getattr(__import__('errno'), err))
    one_line(r, 'tnb-train', f'cannot write the checkpoint {out}/checkpoint-0000020.pt ({strerror})',
             f'the last good checkpoint, {out}/checkpoint-0000010.pt, is kept', code=1)
    assert [p.name for p in RunFolder(out).checkpoints()] == ['checkpoint-0000010.pt'] and temps(out) == []
    assert load_checkpoint(out)['step'] == 10

def test_a_really_full_disk(tmp_path, run):
    "A tmpfs that holds one checkpoint but not two (only where this machine lets the test mount one)."
    size = (RunFolder(run).latest().stat().st_size * 3 // 2 // 4096 + 1) * 4096
    disk = tmp_path / 'disk'; disk.mkdir()
    if not _mount(disk, f'size={size}'): pytest.skip('cannot mount a tmpfs here')
    try:
        r = tool('train', *TINY, '--steps', '20', '--save-every', '10', '--keep', '0', '--out', disk / 'run')
        one_line(r, 'tnb-train', f'cannot write the checkpoint {disk}/run/checkpoint-0000020.pt (', 'checkpoint-0000010.pt, is kept', code=1)
        assert [p.name for p in RunFolder(disk / 'run').checkpoints()] == ['checkpoint-0000010.pt'] and temps(disk) == []
        assert load_checkpoint(disk / 'run')['step'] == 10
    finally: subprocess.run(['umount', str(disk)])

def test_read_only_out_fails_before_training(readonly_dir):
    r = tool('train', *TINY, '--steps', '5', '--out', readonly_dir)
    one_line(r, 'tnb-train', f'--out {readonly_dir}: cannot write in {readonly_dir}')
    assert b'ParallelData' not in r.stdout                                         # it failed before loading data
    r = tool('train', *TINY, '--steps', '5', '--out', readonly_dir / 'run')
    one_line(r, 'tnb-train', f'--out {readonly_dir}/run: cannot create the folder')

# ---------------------------------------------------------------------------------------------------------------
# 6. Options: every number range-checked, NaN and infinity included (one interpreter runs all cases)
# ---------------------------------------------------------------------------------------------------------------
BAD_OPTIONS = [
    ('train', ['--seed', '-1'], {}, '--seed must be in [0, 4294967295], got -1'),
    ('train', ['--seed', '99999999999'], {}, '--seed must be in [0, 4294967295], got 99999999999'),
    ('train', ['--clip', 'nan'], {}, '--clip must be > 0, got nan'),
    ('train', ['--clip', '0'], {}, '--clip must be > 0, got 0.0'),
    ('train', ['--lr-scale', 'inf'], {}, '--lr-scale must be > 0, got inf'),
    ('train', ['--p-drop', 'nan'], {}, '--p-drop must be in [0, 1), got nan'),
    ('train', ['--p-attn', '1'], {}, '--p-attn must be in [0, 1), got 1.0'),
    ('train', ['--eps-ls', '-0.1'], {}, '--eps-ls must be in [0, 1), got -0.1'),
    ('train', ['--max-time', 'inf'], {}, '--max-time must be > 0, got inf'),
    ('train', ['--threads', '0'], {}, '--threads must be in [1, 1024], got 0'),
    ('train', ['--threads', '100000'], {}, '--threads must be in [1, 1024], got 100000'),
    ('train', ['--keep', '-1'], {}, '--keep must be >= 0, got -1'),
    ('train', ['--save-every', '-5'], {}, '--save-every must be >= 0, got -5'),
    ('train', ['--max-len', '0'], {}, '--max-len must be in [1, 1000000], got 0'),
    ('train', [], {'TNB_THREADS': 'abc'}, "TNB_THREADS='abc' in the environment is not a whole number"),
    ('train', [], {'TNB_THREADS': '-2'}, 'TNB_THREADS must be in [1, 1024], got -2'),
    ('translate', ['--alpha', 'nan'], {}, '--alpha must be in [0, 10], got nan'),
    ('translate', ['--alpha', 'inf'], {}, '--alpha must be in [0, 10], got inf'),
    ('translate', ['--alpha', '-1'], {}, '--alpha must be in [0, 10], got -1.0'),
    ('translate', ['--max-tokens', '0'], {}, '--max-tokens must be in [1, 10000000], got 0'),
    ('translate', [], {'TNB_THREADS': 'abc'}, "TNB_THREADS='abc'"),
    ('evaluate', ['--alpha', 'nan'], {}, '--alpha must be in [0, 10], got nan'),
    ('average', ['--last', '0'], {}, '--last must be >= 1, got 0'),
]

HARNESS = r"""
import contextlib, io, json, os, sys
from transformer_nb import cli
cases, out = json.loads(sys.argv[1]), []
for name, argv, env in cases:
    old = {k: os.environ.get(k) for k in env}; os.environ.update(env)
    err = io.StringIO(); code = None
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        try: getattr(cli, name + '_main')(argv)
        except SystemExit as e: code = e.code
        except BaseException as e: code = 'exception: ' + repr(e)[:300]
    for k, v in old.items():
        if v is None: os.environ.pop(k, None)
        else: os.environ[k] = v
    out.append([code, err.getvalue()])
print(json.dumps(out))
"""

def test_numeric_options_are_range_checked(run, tmp_path):
    base = {'train': [*TINY, '--steps', '1', '--out', str(tmp_path / 't')], 'translate': [str(run), 'a'],
            'evaluate': [str(run), '--dataset', 'copy'], 'average': [str(run), '-o', str(tmp_path / 'a.pt')]}
    cases = [(name, base[name] + argv, env) for name, argv, env, _ in BAD_OPTIONS]
    r = subprocess.run([sys.executable, '-c', HARNESS, json.dumps(cases)], capture_output=True, text=True, env=ENV, timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]
    for (name, argv, env, msg), (code, err) in zip(BAD_OPTIONS, json.loads(r.stdout.splitlines()[-1])):
        lines = err.strip().splitlines()
        assert code == 2 and lines == [f'tnb-{name}: error: {msg}'] or (code == 2 and len(lines) == 1 and msg in lines[0]), (name, argv, env, code, err)

# ---------------------------------------------------------------------------------------------------------------
# 7. The results file
# ---------------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize('content,msg', [
    ('{"id": 1,', 'is not a results file (not JSON: '),
    ('{}', 'is not a results file: expected a JSON list of records, found a JSON dict'),
    ('[1, 2]', 'expected a JSON list of records, found a list of other things than records'),
    ('', 'is not a results file (not JSON: '),
    ('[{"id": "x"}]', 'record 0 (x) lacks'),
])
def test_results_file_is_checked_before_decoding(run, tmp_path, content, msg):
    (tmp_path / 'results.json').write_text(content)
    (tmp_path / 's').write_text('a b\n'); (tmp_path / 'r').write_text('a b\n')
    r = tool('evaluate', run, '--beam', '1', '--src', tmp_path / 's', '--ref', tmp_path / 'r', '--hyp-out', tmp_path / 'h',
             '--record', tmp_path / 'results.json')
    one_line(r, 'tnb-evaluate', f'--record {tmp_path}/results.json', msg)
    assert not (tmp_path / 'h').exists() and (tmp_path / 'results.json').read_text() == content   # nothing decoded, nothing lost

def test_results_file_through_a_symlink(run, tmp_path):
    (tmp_path / 'real.json').write_text('[]'); (tmp_path / 'results.json').symlink_to(tmp_path / 'real.json')
    (tmp_path / 's').write_text('a b\n'); (tmp_path / 'r').write_text('a b\n')
    r = tool('evaluate', run, '--beam', '1', '--src', tmp_path / 's', '--ref', tmp_path / 'r', '--record', tmp_path / 'results.json')
    assert r.returncode == 0, r.stderr
    assert (tmp_path / 'results.json').is_symlink() and len(json.loads((tmp_path / 'real.json').read_text())) == 1

def test_concurrent_records_all_land(run, tmp_path):
    "Three tnb-evaluate --record into one results file at once: every record is kept (the file is read and rewritten under a lock)."
    (tmp_path / 's').write_text('a b\n'); (tmp_path / 'r').write_text('a b\n')
    ps = [subprocess.Popen(cmd('evaluate', run, '--beam', '1', '--src', tmp_path / 's', '--ref', tmp_path / 'r',
                               '--record', tmp_path / 'results.json', '--id', f'run-{k}'), env=ENV,
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True) for k in range(3)]
    errs = [p.communicate(timeout=300)[1] for p in ps]
    assert [p.returncode for p in ps] == [0, 0, 0], errs
    assert sorted(r['id'] for r in json.loads((tmp_path / 'results.json').read_text())) == ['run-0', 'run-1', 'run-2']
    assert temps(tmp_path) == []

# ---------------------------------------------------------------------------------------------------------------
# The command line: sentences after options, tnb-evaluate's default test set, bugs vs mistakes, threads
# ---------------------------------------------------------------------------------------------------------------
def test_sentences_may_follow_options(run):
    r = tool('translate', run, '--beam', '1', 'a b', 'c d e')
    assert r.returncode == 0 and r.stdout.count(b'\n') == 2, r.stderr

def test_evaluate_defaults_to_the_checkpoints_test_split(run):
    r = tool('evaluate', run, '--beam', '1', '--json')
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)['n_sentences'] == 500                                   # the copy corpus' test split

BUG = "import transformer_nb.data as d; d.Tokenizer.decode = lambda self, ids: ids.nope"

def test_a_bug_says_it_is_one_and_where(run):
    r = tool('translate', run, 'a b', '--beam', '1', code=BUG)
    ls = quiet(r.stderr)
    assert r.returncode == 70 and len(ls) == 1, r.stderr
    line = ls[0]
    assert line.startswith("tnb-translate: internal error, a bug in transformer_nb: AttributeError: 'list' object has no attribute 'nope'")
    assert 'transformer_nb/evaluation.py:' in line and 'in translate' in line and 'run it again with --debug (or TNB_DEBUG=1)' in line
    for extra, env in ((['--debug'], {}), ([], {'TNB_DEBUG': '1'})):
        r = tool('translate', run, 'a b', '--beam', '1', *extra, code=BUG, env=env)
        assert r.returncode == 70 and '\n'.join(quiet(r.stderr)).startswith('Traceback (most recent call last):'), r.stderr
        assert r.stderr.strip().splitlines()[-1].startswith('tnb-translate: internal error, a bug'), r.stderr

def test_git_commit_never_crashes_a_run(tmp_path):
    bin_ = tmp_path / 'bin'; bin_.mkdir()
    (bin_ / 'git').write_bytes(b"#!/bin/sh\nprintf '\\377\\376 not utf-8'\n"); (bin_ / 'git').chmod(0o755)
    r = tool('train', *TINY, '--steps', '2', '--out', tmp_path / 'run', env={'PATH': f"{bin_}:{os.environ['PATH']}"})
    assert r.returncode == 0, r.stderr[-3000:]
    assert load_checkpoint(tmp_path / 'run')['meta']['commit'] == 'unknown'

THREADS = "import atexit, sys, torch; atexit.register(lambda: print('threads', torch.get_num_threads(), file=sys.stderr))"

def test_threads_option_beats_the_environment(run, tmp_path):
    for name, args in (('translate', [run, 'a']), ('evaluate', [run, '--beam', '1', '--src', tmp_path / 's', '--ref', tmp_path / 's']),
                       ('train', [*TINY, '--steps', '1', '--out', tmp_path / 't'])):
        (tmp_path / 's').write_text('a b\n')
        r = tool(name, *args, '--threads', '2', code=THREADS, env={'TNB_THREADS': '1'})
        assert r.returncode == 0 and 'threads 2' in r.stderr, (name, r.stderr[-2000:])


def test_an_error_caused_by_ctrl_c_is_an_interrupt_not_a_bug(capsys):
    "A Ctrl-C that lands inside an import can surface as another exception; run_cli still exits 130, 'interrupted'."
    from transformer_nb.commands import run_cli
    def main(argv):
        try: signal.raise_signal(signal.SIGINT)
        except KeyboardInterrupt: raise ImportError('partially initialized module') from None
    prev = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with pytest.raises(SystemExit) as e: run_cli('tnb-demo', main, [])
    finally: signal.signal(signal.SIGINT, prev)
    assert e.value.code == 130 and capsys.readouterr().err == 'tnb-demo: interrupted\n'
    with pytest.raises(SystemExit) as e: run_cli('tnb-demo', lambda argv: {}['x'], [])   # without a Ctrl-C: a bug
    assert e.value.code == 70


def test_a_swallowed_ctrl_c_still_stops_the_command(capsys):
    "Library code that swallows the KeyboardInterrupt (a bare except around an import) does not lose the Ctrl-C."
    from transformer_nb.commands import run_cli, raise_if_interrupted
    done = []
    def main(argv):
        try: signal.raise_signal(signal.SIGINT)
        except BaseException: pass                     # what some import-time code does
        raise_if_interrupted(); done.append(1)
    prev = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with pytest.raises(SystemExit) as e: run_cli('tnb-demo', main, [])
    finally: signal.signal(signal.SIGINT, prev)
    assert e.value.code == 130 and done == [] and capsys.readouterr().err == 'tnb-demo: interrupted\n'
    with pytest.raises(SystemExit) as e: run_cli('tnb-demo', lambda argv: raise_if_interrupted(), [])   # a new command starts clean
    assert e.value.code == 0
