"""Run folders (lib_runs) through `tnb-train`, with real processes: a folder holding another run is refused, a run that
fails early leaves no folder behind, two live runs cannot share one, a read-only folder is refused before training, and
links planted in a run folder while it trains are replaced, never followed."""
import json, signal, subprocess
import pytest
from transformer_nb.lib.checkpoints import open_checkpoint
from transformer_nb.lib.runs import RunFolder
from conftest import ENV, TINY, cmd, tool, one_line, said, inject_code, Live
import warnings

@pytest.mark.slow   # runs the tools in fresh processes
def test_new_run_refuses_a_folder_holding_another_run(folder):
    before = {p.name: p.stat().st_mtime_ns for p in RunFolder(folder).checkpoints()}
    r = tool('train', *TINY, '--steps', '3', '--out', folder)
    one_line(r, 'tnb-train', f'--out {folder} already holds a run (checkpoint-0000010.pt, checkpoint-0000020.pt, log.jsonl, loss.png)', '--resume', '--overwrite')
    assert {p.name: p.stat().st_mtime_ns for p in RunFolder(folder).checkpoints()} == before       # untouched
    r = tool('train', *TINY, '--steps', '3', '--out', folder, '--overwrite')
    assert r.returncode == 0, r.stderr[-3000:]
    assert [p.name for p in RunFolder(folder).checkpoints()] == ['checkpoint-0000003.pt']         # the old run is gone, as asked
    assert len(open_checkpoint(folder, None).meta['history']['train']) == 3

@pytest.mark.slow   # runs the tools in fresh processes
def test_a_run_that_fails_early_leaves_no_folder_behind(tmp_path):
    "A run that fails before it writes anything removes the folder it made (but never one that was there), in one line."
    r = tool('train', *TINY, '--steps', '3', '--max-len', '2', '--out', tmp_path / 'new')   # a valid max_len that no pair fits
    one_line(r, 'tnb-train', 'every one of the 10,000 pairs is longer than --max-len 2 tokens: raise it')   # no warning line first
    assert not (tmp_path / 'new').exists()
    (tmp_path / 'mine').mkdir(); (tmp_path / 'mine' / 'notes.txt').write_text('keep me\n')
    one_line(tool('train', *TINY, '--steps', '3', '--max-len', '2', '--out', tmp_path / 'mine'), 'tnb-train', 'every one of the 10,000 pairs is longer')
    assert (tmp_path / 'mine' / 'notes.txt').read_text() == 'keep me\n'

@pytest.mark.slow   # runs the tools in fresh processes
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
    assert open_checkpoint(out, None).config.d_model == 32                                 # A's model, not B's

@pytest.mark.slow   # runs the tools in fresh processes
def test_read_only_out_fails_before_training(readonly_dir):
    r = tool('train', *TINY, '--steps', '5', '--out', readonly_dir)
    one_line(r, 'tnb-train', f'--out {readonly_dir}: cannot write in {readonly_dir}')
    assert b'ParallelData' not in r.stdout                                         # it failed before loading data
    r = tool('train', *TINY, '--steps', '5', '--out', readonly_dir / 'run')
    one_line(r, 'tnb-train', f'--out {readonly_dir}/run: cannot create the folder')


# In the child: before update 9, wait (at most a minute) until the test has planted its links and created GO.
_PAUSE = ("import os, time, transformer_nb.lib.trainer as T; _u = T.Trainer.update\n"
          "def _update(self, *a, **k):\n"
          "    if self.step == 8:\n"
          "        print('PAUSED', flush=True); end = time.time() + 60\n"
          "        while not os.path.exists(os.environ['GO']) and time.time() < end: time.sleep(0.05)\n"
          "    return _u(self, *a, **k)\n"
          "T.Trainer.update = _update")

@pytest.mark.slow   # runs the tools in fresh processes
def test_links_planted_while_a_run_trains_are_replaced_never_followed(tmp_path):
    out, victim, go = tmp_path / 'run', tmp_path / 'victim.txt', tmp_path / 'GO'
    victim.write_text('precious\n')
    p = subprocess.Popen(cmd('train', *TINY, '--steps', '16', '--save-every', '8', '--valid-every', '8', '--keep', '0',
                             '--out', out, code=f"exec({_PAUSE!r})"), env={**ENV, 'GO': str(go)}, stdin=subprocess.DEVNULL,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert p.stdout.readline() and 'PAUSED' in ''.join(iter(p.stdout.readline, 'PAUSED\n')) + 'PAUSED'
        assert (out / 'checkpoint-0000008.pt').is_file() and (out / 'log.jsonl').is_file()
        for name in ('log.jsonl', 'loss.png', 'checkpoint-0000016.pt'):       # the names it writes next are predictable
            (out / name).unlink(missing_ok=True); (out / name).symlink_to(victim)
        go.touch(); rest, err = p.communicate(timeout=300)
    finally:
        if p.poll() is None: p.kill()
    assert p.returncode == 0, err[-3000:]
    assert victim.read_text() == 'precious\n'
    assert not [q.name for q in out.iterdir() if q.is_symlink()]
    assert open_checkpoint(out / 'checkpoint-0000016.pt', None).step == 16 and (out / 'loss.png').read_bytes()[:4] == b'\x89PNG'
    assert [json.loads(l)['valid']['step'] for l in (out / 'log.jsonl').read_text().splitlines()] == [16]
    assert any('log.jsonl had been replaced by a symbolic link' in l and 'not followed' in l for l in said(err)), err


@pytest.mark.slow   # runs the tools in fresh processes
def test_a_resumed_run_logs_each_validation_once(tmp_path):
    """A run killed after validating at update 12, its newest checkpoint that of update 8 (the folder as the kill leaves
    it: the log's record of update 12, no checkpoint past 8), resumed: its log holds each update's validation once."""
    out = tmp_path / 'run'
    r = tool('train', *TINY, '--steps', '16', '--save-every', '8', '--valid-every', '4', '--keep', '0', '--out', out)
    assert r.returncode == 0, r.stderr[-3000:]
    steps = lambda: [json.loads(l)['valid']['step'] for l in (out / 'log.jsonl').read_text().splitlines() if 'valid' in json.loads(l)]
    assert steps() == [4, 8, 12, 16]
    lines = (out / 'log.jsonl').read_text().splitlines()
    (out / 'log.jsonl').write_text(''.join(l + '\n' for l in lines if json.loads(l).get('valid', {}).get('step', 0) <= 12))
    (out / 'checkpoint-0000016.pt').unlink()
    r = tool('train', '--resume', out, '--no-progress', '--test-limit', '0')
    assert r.returncode == 0, r.stderr[-3000:]
    assert steps() == [4, 8, 12, 16] and b'removed 1 record(s) of updates past 8' in r.stdout, (steps(), r.stdout[-2000:])

@pytest.mark.slow   # runs the tools in fresh processes
def test_a_resume_removes_a_cut_last_line_of_the_log(tmp_path):
    """A run stopped while writing its log (a full disk, a kill) leaves a cut last line; `tnb-train --resume` removes
    it and says so: afterwards every line of log.jsonl is a JSON record (JSON Lines, as other readers want it)."""
    out = tmp_path / 'run'
    r = tool('train', *TINY, '--steps', '8', '--save-every', '4', '--valid-every', '4', '--keep', '0', '--out', out)
    assert r.returncode == 0, r.stderr[-3000:]
    (out / 'checkpoint-0000008.pt').unlink()                                   # stopped after update 8's record ...
    with open(out / 'log.jsonl', 'a') as f: f.write('{"train": {"step": 9, "lo')   # ... and in the middle of the next one
    r = tool('train', '--resume', out, '--no-progress', '--test-limit', '0')
    assert r.returncode == 0, r.stderr[-3000:]
    text = (out / 'log.jsonl').read_text()
    assert text.endswith('\n') and [type(json.loads(l)) for l in text.splitlines()] == [dict] * len(text.splitlines())
    assert f"removed 1 line(s) cut short (a run stopped while writing them) from {out / 'log.jsonl'}: it is JSON Lines again".encode() in r.stdout, r.stdout[-2000:]
    assert b'removed 1 record(s) of updates past 4' in r.stdout and 'last line was cut' not in r.stderr, r.stderr[-2000:]

# The run folder (lib_runs): one claim for a run, and a log that survives a cut line.
def test_a_cut_last_line_does_not_swallow_the_next_record(tmp_path):
    "A disk that filled up mid-record leaves the log's last line cut: the next record starts on a line of its own."
    run = RunFolder(tmp_path)
    run.log.write_text('{"valid": {"step": 4, "loss": 1.5}}\n{"valid": {"step": 8, "lo')
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter('always')
        run.append_log({'valid': {'step': 12}})
        records = run.read_log()
    assert records == [{'valid': {'step': 4, 'loss': 1.5}}, {'valid': {'step': 12}}]
    assert any('its last line was cut' in str(w.message) for w in said), [str(w.message) for w in said]

def test_the_log_reader_says_how_many_lines_it_skipped(tmp_path):
    run = RunFolder(tmp_path)
    run.log.write_text('{"valid": {"step": 4}}\nnot json\n{"valid": {"step": 8}}\n{"cut\n')
    with pytest.warns(UserWarning, match=r"2 line\(s\) that are not JSON records skipped \(line 2, 4\)"):
        assert run.read_log() == [{'valid': {'step': 4}}, {'valid': {'step': 8}}]

def test_a_resume_trims_the_log_past_its_checkpoint(tmp_path):
    "A run killed after validating at update 12 and resumed from its checkpoint of update 8 writes those records again."
    run = RunFolder(tmp_path)
    for s in (4, 8): run.checkpoint(s).write_bytes(b'w')
    for s in (4, 8, 12): run.append_log({'valid': {'step': s}})
    said = []
    with run.claim(8, run.checkpoint(8), say=said.append): pass
    assert run.read_log() == [{'valid': {'step': 4}}, {'valid': {'step': 8}}] and 'removed 1 record(s) of updates past 8' in said[0]
    assert run.trim_log(8) == (0, 0)

def test_claim_refuses_another_runs_files_and_overwrite_deletes_them(tmp_path):
    from transformer_nb.lib.runs import RunConflict
    run = RunFolder(tmp_path)
    run.checkpoint(10).write_bytes(b'w'); run.append_log({'valid': {'step': 10}})   # a run's record: the folder is a run
    with pytest.raises(RunConflict, match="holds another run's files") as e:
        with run.claim(): pass
    assert e.value.files == [run.checkpoint(10), run.log] and not e.value.later
    said = []
    with run.claim(overwrite=True, say=said.append):
        with run.claim(): pass                                    # re-entrant: tnb-train claims, then fit
    assert not run.checkpoint(10).exists() and said and 'deleted 2 file(s)' in said[0]

def test_overwrite_deletes_only_a_run(tmp_path):
    "Files that only carry a run's names (a user's log.jsonl, loss.png, average.pt) are no run: overwrite refuses them and deletes nothing (it once deleted all three)."
    run = RunFolder(tmp_path / 'out'); run.path.mkdir()
    for name, text in (('log.jsonl', 'mine\n'), ('loss.png', 'png'), ('average.pt', 'avg'), ('checkpoint-0000001.pt', 'not one')):
        (run.path / name).write_text(text)
    assert not run.is_run()
    with pytest.raises(UserError, match=r"out holds checkpoint-0000001\.pt, average\.pt, log\.jsonl, loss\.png, but no run: .*\(nothing was deleted\)"):
        with run.claim(overwrite=True): pass
    assert sorted(p.name for p in run.path.iterdir()) == ['average.pt', 'checkpoint-0000001.pt', 'log.jsonl', 'loss.png']
    (run.path / 'log.jsonl').write_text('mine\n{"valid": {"step": 3, "loss": 1.5}}\n')   # a record a run wrote
    assert run.is_run()

@pytest.mark.slow
def test_tnb_train_overwrite_of_a_folder_of_user_files_deletes_nothing(tmp_path):
    out = tmp_path / 'OUT'; out.mkdir()
    for name, text in (('log.jsonl', 'mine'), ('loss.png', 'png'), ('average.pt', 'avg')): (out / name).write_text(text + '\n')
    one_line(tool('train', '--dataset', 'copy', '--preset', 'tiny', '--steps', '2', '--out', out, '--overwrite'), 'tnb-train', 'but no run')
    assert sorted(p.name for p in out.iterdir()) == ['average.pt', 'log.jsonl', 'loss.png'] and (out / 'log.jsonl').read_text() == 'mine\n'


def test_run_folder_functions_want_a_path():
    "RunFolder(None), read_files(None) and checkpoint_step(None) were pathlib's 'expected str, bytes or os.PathLike object'."
    from transformer_nb.lib.runs import checkpoint_step, read_files
    for call, says in ((lambda: RunFolder(None), "path must be a run folder's path, got a NoneType"),
                       (lambda: read_files(3), 'path must be a checkpoint file or a run folder, got a int'),
                       (lambda: checkpoint_step(None), "path must be a file's path, got a NoneType")):
        with pytest.raises(TypeError) as e: call()
        assert str(e.value) == says, str(e.value)
    assert checkpoint_step('runs/x/checkpoint-0000020.pt') == 20


def test_portable_paths_hold_no_folder_of_this_machine(tmp_path):
    "A path a record keeps: relative as given, relative to the record's folder when beside it, else its name; in a command's words too."
    from transformer_nb.lib.runs import portable_path, portable_command
    base = tmp_path / 'project' / 'results'
    assert portable_path(tmp_path / 'project' / 'runs' / 'x' / 'average.pt', base) == '../runs/x/average.pt'
    assert portable_path('/somewhere/else/average.pt', base) == 'average.pt' and portable_path('runs/x', base) == 'runs/x'
    line = portable_command(f"tnb-train --dataset copy --out {tmp_path}/project/runs/x --data-dir=/data/corpus", base)
    assert line == 'tnb-train --dataset copy --out ../runs/x --data-dir=corpus' and str(tmp_path) not in line, line


# The lock (lib_runs): O_EXCL and a record of its holder, so that it holds on a shared file system without flock, and a
# holder that died (kill -9, a node gone) is recognised, while nothing of a live run is ever taken over.
import errno, os, sys, time
from transformer_nb.lib import runs as R
from transformer_nb.lib.safeguards import UserError

_HOLD = ("import sys, time\nfrom transformer_nb.lib.runs import RunFolder\n"
         "with RunFolder(sys.argv[1]).lock(): print('held', flush=True); time.sleep(600)\n")

def _holder(folder) -> subprocess.Popen:
    p = subprocess.Popen([sys.executable, '-c', _HOLD, str(folder)], stdout=subprocess.PIPE, text=True, env=ENV)
    assert p.stdout.readline() == 'held\n'
    return p

@pytest.fixture(params=['flock', 'no flock'])
def fs(request, monkeypatch):
    "The file system with flock, and one without it (as an NFS mount without lock support): the lock holds on both."
    if request.param == 'no flock':
        def no_flock(fd, lock=True, wait=False): raise OSError(errno.ENOLCK, 'No locks available')
        monkeypatch.setattr(R, 'flock', no_flock)
    return request.param

def test_a_live_holder_is_never_taken_over_and_a_killed_ones_lock_is(tmp_path, fs):
    folder = tmp_path / 'run'
    p = _holder(folder)
    try:
        with pytest.raises(UserError, match=f'is in use by another run \\(pid {p.pid} on '):
            with RunFolder(folder).lock(): pass
        owner = json.loads((folder / '.lock').read_text())
        assert (owner['pid'], owner['argv'][1:]) == (p.pid, [str(folder)])
    finally:
        p.kill(); p.wait()                                         # kill -9: the lock file stays behind
    assert (folder / '.lock').is_file()
    run = RunFolder(folder)
    with run.lock(): assert run.previous_owner['pid'] == p.pid     # a dead owner's lock: taken over
    assert not (folder / '.lock').exists()                         # and removed when released

def test_a_reused_process_id_does_not_keep_a_dead_runs_lock(tmp_path, fs):
    "The lock names its holder's start time: a live process that got the dead holder's id later is not the holder."
    folder = tmp_path / 'run'; folder.mkdir()
    parent = os.getppid()
    record = {**R.lock_owner(), 'pid': parent, 'started': R._started(parent)}
    (folder / '.lock').write_text(json.dumps(record))
    with pytest.raises(UserError, match=f'in use by another run \\(pid {parent} on'):
        with RunFolder(folder).lock(): pass                        # the live holder: refused
    if record['started'] is None: pytest.skip('no process start times here (/proc)')
    (folder / '.lock').write_text(json.dumps({**record, 'started': record['started'] - 1}))
    with RunFolder(folder).lock(): pass                            # the same id, a later process: the holder is gone

def test_another_hosts_lock_holds_while_touched_and_lapses_after_the_lease(tmp_path, fs):
    folder = tmp_path / 'run'; folder.mkdir()
    (folder / '.lock').write_text(json.dumps({**R.lock_owner(), 'host': 'node7', 'boot': None, 'pid': 1}))
    with pytest.raises(UserError, match='in use by another run \\(pid 1 on node7'):
        with RunFolder(folder).lock(): pass
    old = time.time() - R.LEASE - 5
    os.utime(folder / '.lock', (old, old))                          # its heartbeat stopped a lease ago: node7 is gone
    run = RunFolder(folder)
    with run.lock(): assert run.previous_owner['host'] == 'node7'

def test_a_lock_of_this_slurm_job_on_another_host_is_taken_over_at_once(tmp_path, fs, monkeypatch):
    "A requeued job on another node finds the lock its SIGKILLed ranks left: its Slurm job id is this job's own, so its holder is dead (it once waited out the lease, refusing each start)."
    folder = tmp_path / 'run'; folder.mkdir()
    monkeypatch.setenv('SLURM_JOB_ID', '4242')
    (folder / '.lock').write_text(json.dumps({**R.lock_owner(), 'host': 'node7', 'boot': None, 'pid': 1}))   # touched just now
    run = RunFolder(folder)
    with run.lock():
        assert run.previous_owner['host'] == 'node7' and json.loads((folder / '.lock').read_text())['slurm_job'] == '4242'
    (folder / '.lock').write_text(json.dumps({**R.lock_owner(), 'host': 'node7', 'boot': None, 'pid': 1, 'slurm_job': '4141'}))
    with pytest.raises(UserError, match='in use by another run \\(pid 1 on node7'):   # another job's: the lease decides
        with RunFolder(folder).lock(): pass

def test_the_holder_touches_its_lock(tmp_path, monkeypatch):
    "The heartbeat: while a run holds its folder, the lock's time moves on, so another host sees it alive."
    monkeypatch.setattr(R, 'HEARTBEAT', 0.05)
    run = RunFolder(tmp_path / 'run')
    with run.lock():
        old = time.time() - 3600
        os.utime(run.path / '.lock', (old, old))
        end = time.time() + 30
        while os.stat(run.path / '.lock').st_mtime == old and time.time() < end: time.sleep(0.05)
        assert os.stat(run.path / '.lock').st_mtime > old

def test_the_same_command_killed_before_its_first_checkpoint_starts_again(tmp_path):
    "A first start killed before its first checkpoint leaves its lock and log: the same command starts the run again, another is refused."
    from transformer_nb.lib.runs import RunConflict
    gone = int(subprocess.run([sys.executable, '-c', 'import os; print(os.getpid())'], capture_output=True, text=True).stdout)
    def killed(argv):
        folder = tmp_path / 'run'; folder.mkdir(exist_ok=True)
        (folder / '.lock').write_text(json.dumps({**R.lock_owner(), 'pid': gone, 'started': None, 'argv': argv}))
        RunFolder(folder).append_log({'valid': {'step': 4, 'loss': 3.0}})
        return RunFolder(folder)
    run = killed(['tnb-train', '--out', 'elsewhere'])               # another command's run
    with pytest.raises(RunConflict, match="holds another run's files \\(log.jsonl\\)"):
        with run.claim(): pass
    run = killed(R.lock_owner()['argv'])                            # this command's own first start
    said = []
    with run.claim(say=said.append): assert not run.log.exists()
    assert 'was stopped before its first checkpoint: starting it again (log.jsonl removed)' in said[0], said
    assert f'pid {gone} on ' in said[0]

def test_a_lock_left_by_an_older_version_is_taken_over_once_free(tmp_path):
    "Older versions held flock on a lock file that says 'pid N, since ...' and left the file behind: free of flock, it is stale."
    folder = tmp_path / 'run'; folder.mkdir()
    (folder / '.lock').write_text('pid 123, since 2026-01-01 10:00:00\n')
    run = RunFolder(folder)
    with run.lock(): assert run.previous_owner == {}
    fd = os.open(folder / '.lock', os.O_RDWR | os.O_CREAT)                    # an older version's live run: it holds flock
    try:
        os.write(fd, b'pid 123, since 2026-01-01 10:00:00\n'); R.flock(fd)
        with pytest.raises(UserError, match='is in use by another run \\(another process\\)'):
            with RunFolder(folder).lock(): pass
    finally: os.close(fd)

def test_an_empty_lock_says_it_is_stale_and_how_to_clear_it(tmp_path):
    "An empty .lock (a run killed as it took the lock, or `touch .lock`) names no run: it once blocked the folder for the lease with 'in use by another run (another process)'; now the line says it is stale and how to clear it, and once cleared the run takes the folder."
    from transformer_nb.lib.runs import _LOCK, LEASE
    from transformer_nb.lib.safeguards import UserError
    run = RunFolder(tmp_path / 'run'); run.path.mkdir(); (run.path / _LOCK).write_bytes(b'')
    with pytest.raises(UserError) as e:
        with run.lock(): pass
    assert str(e.value).startswith(f"the run folder {run.path} holds an empty .lock, which names no run: stale unless a run is taking the lock "
                                   f"this very moment; it is taken over {LEASE} s after it was last changed (") and str(e.value).endswith(f"remove it now: rm {run.path / _LOCK}")
    (run.path / _LOCK).unlink()
    with run.lock(): assert (run.path / _LOCK).stat().st_size > 0

def test_only_lib_runs_knows_the_checkpoint_names():
    "No other module globs or matches a run's checkpoint names itself: they ask `RunFolder` (or `checkpoint_step`)."
    import re, transformer_nb
    from pathlib import Path
    pkg = Path(transformer_nb.__file__).parent
    own = re.compile(r"""(glob|match|fnmatch)\w*\(\s*[rf]?['"][^'"]*checkpoint-""")
    found = [str(p.relative_to(pkg)) for p in pkg.rglob('*.py') if p.name != 'runs.py' and own.search(p.read_text())]
    assert found == []
