"""How a command runs as a process (lib_safeguards: `run_cli`, exit codes, signals, streams), with real processes: a bug
named as one, a Ctrl-C never taken for a bug, closed or departed streams and a lost terminal ending in the right exit
code, warnings made errors not taken for bugs."""
import os, pty, signal, subprocess, time
import pytest
from conftest import ENV, TINY, cmd, tool, one_line, DECODING, default_signals as _sigint_default
from conftest import said as quiet, said as lines

BUG = "import transformer_nb.lib.tokens as d; d.StoredTokenizer.decode = lambda self, ids: ids.nope"

@pytest.mark.slow   # runs the tools in fresh processes
def test_a_bug_says_it_is_one_and_where(run):
    r = tool('translate', run, 'a b', '--beam', '1', code=BUG)
    ls = quiet(r.stderr)
    assert r.returncode == 70 and len(ls) == 1, r.stderr
    line = ls[0]
    assert line.startswith("tnb-translate: internal error, a bug in transformer_nb: AttributeError: 'list' object has no attribute 'nope'")
    assert 'transformer_nb/lib/fast_decoding.py:' in line and 'in translate_checked' in line and 'run it again with --debug (or TNB_DEBUG=1)' in line
    for extra, env in ((['--debug'], {}), ([], {'TNB_DEBUG': '1'})):
        r = tool('translate', run, 'a b', '--beam', '1', *extra, code=BUG, env=env)
        assert r.returncode == 70 and '\n'.join(quiet(r.stderr)).startswith('Traceback (most recent call last):'), r.stderr
        assert r.stderr.strip().splitlines()[-1].startswith('tnb-translate: internal error, a bug'), r.stderr

@pytest.mark.slow   # runs the tools in fresh processes
def test_an_error_caused_by_ctrl_c_is_an_interrupt_not_a_bug(capsys):
    "A Ctrl-C that lands inside an import can surface as another exception; run_cli still exits 130, 'interrupted'."
    from transformer_nb.lib.safeguards import run_cli
    def main(argv, table):
        try: signal.raise_signal(signal.SIGINT)
        except KeyboardInterrupt: raise ImportError('partially initialized module') from None
    prev = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with pytest.raises(SystemExit) as e: run_cli('tnb-demo', main, [])
    finally: signal.signal(signal.SIGINT, prev)
    assert e.value.code == 130 and capsys.readouterr().err == 'tnb-demo: interrupted\n'
    with pytest.raises(SystemExit) as e: run_cli('tnb-demo', lambda argv, table: {}['x'], [])   # without a Ctrl-C: a bug
    assert e.value.code == 70

@pytest.mark.slow   # runs the tools in fresh processes
def test_a_swallowed_ctrl_c_still_stops_the_command(capsys):
    "Library code that swallows the KeyboardInterrupt (a bare except around an import) does not lose the Ctrl-C."
    from transformer_nb.lib.safeguards import run_cli, _raise_if_interrupted
    done = []
    def main(argv, table):
        try: signal.raise_signal(signal.SIGINT)
        except BaseException: pass                     # what some import-time code does
        _raise_if_interrupted(); done.append(1)
    prev = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with pytest.raises(SystemExit) as e: run_cli('tnb-demo', main, [])
    finally: signal.signal(signal.SIGINT, prev)
    assert e.value.code == 130 and done == [] and capsys.readouterr().err == 'tnb-demo: interrupted\n'
    with pytest.raises(SystemExit) as e: run_cli('tnb-demo', lambda argv, table: _raise_if_interrupted(), [])   # a new command starts clean
    assert e.value.code == 0

@pytest.mark.slow   # runs the tools in fresh processes
def test_a_closed_stdout_or_stderr(run, texts):
    "Started with >&- or 2>&-: one line (or silence, with no stderr) and exit 2, never a traceback, never mixed streams."
    r = subprocess.run(cmd('translate', run, 'a b', '--beam', '1'), env=ENV, stderr=subprocess.PIPE, text=True,
                       preexec_fn=lambda: os.close(1), timeout=300)
    one_line(r, 'tnb-translate', 'standard output is closed')
    refs = (texts / 'ref.txt').read_text().splitlines(); refs[3] = ''             # a blank reference: a warning to print
    (texts / 'ref.txt').write_text('\n'.join(refs) + '\n')
    p = subprocess.run(cmd('evaluate', run, '--src', texts / 'src.txt', '--ref', texts / 'ref.txt', '--beam', '1'), env=ENV,
                       stdout=subprocess.PIPE, preexec_fn=lambda: os.close(2), timeout=300)
    assert p.returncode == 2 and p.stdout == b'', (p.returncode, p.stdout[-2000:])   # no warning line landed in stdout

@pytest.mark.slow   # runs the tools in fresh processes
def test_a_reader_that_leaves_gives_141_even_unbuffered(run, tmp_path):
    "Under python -u a long write into a pipe whose reader left must fail, not be cut short in silence: exit 141."
    (tmp_path / 'many.txt').write_text('a b c d e f g h i j\n' * 1000)        # 120 kB of output: more than a pipe holds
    p = subprocess.Popen(cmd('translate', run, '-i', tmp_path / 'many.txt', '--beam', '1', code=DECODING),   # no EOS: long lines
                         env={**ENV, 'PYTHONUNBUFFERED': '1'},
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, preexec_fn=_sigint_default)
    first = p.stdout.readline(); p.stdout.close()                               # `| head -1`
    err = p.stderr.read().decode(); p.wait(timeout=300)
    assert first.strip() and p.returncode == 141 and lines(err) == [], (p.returncode, err[-2000:])

@pytest.mark.slow   # runs the tools in fresh processes
def test_warnings_made_errors_are_not_bugs(tmp_path):
    r = tool('train', *TINY, '--max-len', '5', '--steps', '1', '--out', tmp_path / 'w', py=('-W', 'error'))
    line = one_line(r, 'tnb-train', 'dropped', 'a warning, which -W error or PYTHONWARNINGS turned into an error')
    assert 'bug' not in line

@pytest.mark.slow   # runs the tools in fresh processes
def test_sighup_after_the_terminal_is_gone_exits_129(run, tmp_path):
    "The terminal closed: writing 'interrupted' to it fails with EIO, which must not turn a hangup into exit 1."
    (tmp_path / 'long.txt').write_text(' '.join('abcdefghij'[i % 10] for i in range(300)) + '\n')
    master, slave = pty.openpty()
    p = subprocess.Popen(cmd('translate', run, '-i', tmp_path / 'long.txt', '--beam', '4', code=DECODING), env=ENV,
                         stdout=subprocess.DEVNULL, stderr=slave, preexec_fn=_sigint_default)
    os.close(slave); got = []
    try:
        end = time.time() + 240
        while time.time() < end and b'DECODING' not in b''.join(got) and p.poll() is None:
            try: got.append(os.read(master, 4096))
            except OSError: break
        assert b'DECODING' in b''.join(got), b''.join(got)[-2000:]
        os.close(master)                                                        # the terminal is gone: writes give EIO
        p.send_signal(signal.SIGHUP); p.wait(timeout=60)
    finally:
        if p.poll() is None: p.kill(); p.wait()
    assert p.returncode == 129, p.returncode


# --- Ctrl-C mid-run in every command: exit 130, the one line 'interrupted', no trace, no half-written file ---------------

# Hooks that say on stderr when a command is in the middle of its work, and hold it there, so that the Ctrl-C lands
# mid-run whatever this machine's speed: a checkpoint being read for an average, an export being written, an archive
# being downloaded (each waits in the function that does the work, for the signal).
_HOLD = ("import sys, time, {mod} as _m; _f = _m.{fn}\n"
         "def _held(*a, **k):\n    print('{word}', file=sys.stderr, flush=True); time.sleep(120); return _f(*a, **k)\n"
         "_m.{fn} = _held")
def _hold(mod, fn, word): return f"exec({_HOLD.format(mod=mod, fn=fn, word=word)!r})"
STARTING_AT_LOAD = ("import sys, transformer_nb.lib.safeguards as c; _h = c.heavy_imports; "
                    "c.heavy_imports = lambda *a, **k: (print('STARTING', file=sys.stderr, flush=True), _h(*a, **k))")

def _ctrl_c(name, args, code, word, tmp_path):
    "Run `tnb-NAME args` with the hook `code`, send Ctrl-C once it says `word`: (exit code, stderr's lines that say something, stderr)."
    from conftest import Live
    a = Live(name, *args, code=code)
    assert a.wait_for(word, timeout=300, where='err'), ''.join(a.out + a.err)[-3000:]
    a.signal(signal.SIGINT)
    got, stdout, stderr = a.finish(timeout=120)
    return got, [l for l in lines(stderr) if l.strip() != word and ': downloading ' not in l], stderr   # tnb-data's progress: not a refusal

@pytest.mark.slow   # runs the tools in fresh processes
@pytest.mark.parametrize('name', ['translate', 'evaluate', 'average', 'export-ctranslate2', 'export-onnx', 'export-at-load', 'data', 'data-at-load'])
def test_ctrl_c_mid_run_is_a_clean_stop_in_every_command(run, tmp_path, name):
    (tmp_path / 'src.txt').write_text('a b c\n' * 40); (tmp_path / 'ref.txt').write_text('a b c\n' * 40)
    plans = {
        'translate': (['translate', [run, '-i', tmp_path / 'src.txt', '-o', tmp_path / 'out.txt'], DECODING, 'DECODING']),
        'evaluate': (['evaluate', [run, '--src', tmp_path / 'src.txt', '--ref', tmp_path / 'ref.txt', '--hyp-out', tmp_path / 'out.txt'], DECODING, 'DECODING']),
        'average': (['average', [run, '--last', '2', '-o', tmp_path / 'out.pt'], _hold('transformer_nb.lib.checkpoints', 'open_checkpoint', 'READING'), 'READING']),
        'export-ctranslate2': (['export', ['--ctranslate2', run, '-o', tmp_path / 'out'], _hold('transformer_nb.apps.export', '_ctranslate2_folder', 'EXPORTING'), 'EXPORTING']),
        'export-onnx': (['export', ['--format', 'onnx', run, '-o', tmp_path / 'out'], _hold('transformer_nb.apps.export', '_onnx_folder', 'EXPORTING'), 'EXPORTING']),
        'export-at-load': (['export', ['--format', 'onnx', run, '-o', tmp_path / 'out'], STARTING_AT_LOAD, 'STARTING']),   # while PyTorch and ONNX load
        'data-at-load': (['data', ['wmt14', tmp_path / 'out', '--base-url', 'http://127.0.0.1:9', '--trust-unverified'], STARTING_AT_LOAD, 'STARTING']),   # while NumPy and apps_wmt14 load
        'data': (['data', ['wmt14', tmp_path / 'out', '--base-url', 'http://127.0.0.1:9', '--trust-unverified'],
                  _hold('transformer_nb.apps.wmt14', 'download_resumable', 'DOWNLOADING'), 'DOWNLOADING']),
    }
    prog, args, code, word = plans[name]
    if name.startswith('export-'): pytest.importorskip('onnxruntime' if 'onnx' in name or 'load' in name else 'ctranslate2')
    got, said_, stderr = _ctrl_c(prog, args, code, word, tmp_path)
    kept = [l for l in said_ if l.startswith('tnb-export: stopped before the export was complete: ') and 'is as it was' in l] if prog == 'export' else []   # what an export kept, said first
    assert got == 130 and said_ == [*kept, f'tnb-{prog}: interrupted'] and len(kept) == (name in ('export-ctranslate2', 'export-onnx')) and 'Traceback' not in stderr, (name, got, stderr[-3000:])
    assert not (tmp_path / 'out.txt').exists() and not (tmp_path / 'out.pt').exists()          # nothing half-written
    assert not [p for p in tmp_path.rglob('*') if '.tmp' in p.name]
    if prog == 'export': assert not (tmp_path / 'out').exists()

@pytest.mark.slow   # runs the tools in fresh processes
def test_ctrl_c_while_the_process_shuts_down_ends_it_at_once(run, tmp_path):
    "The command is done and Python is shutting down (its atexit work, the libraries' thread pools): Ctrl-C ends it at once, exit 130, no trace."
    ending = "import atexit, sys, time; atexit.register(lambda: (print('ENDING', file=sys.stderr, flush=True), time.sleep(120)))"
    got, said_, stderr = _ctrl_c('translate', [run, 'a b', '--beam', '1', '-o', tmp_path / 'out.txt'], ending, 'ENDING', tmp_path)
    assert got == 130 and said_ == [] and 'Traceback' not in stderr and 'Exception ignored' not in stderr, (got, stderr[-3000:])
    assert (tmp_path / 'out.txt').read_text().count('\n') == 1                 # the work was done, and is whole

@pytest.mark.parametrize('brk', ['\n', '\r', '\x0b', '\x85', '\u2028', '\u2029'])
def test_a_path_with_a_line_break_is_said_whole_in_one_line(tmp_path, capsys, monkeypatch, brk):
    "A path named with a newline, a carriage return or U+2028 is written escaped in the error line, never cut where it breaks: one line names it whole."
    from transformer_nb.apps.cli import average_main
    from transformer_nb.lib.safeguards import printable
    monkeypatch.chdir(tmp_path)
    (tmp_path / f"a{brk}b.pt").write_bytes(b'x')
    for out, says in ((f"pt/a{brk}b.txt", 'the folder'), (f"a{brk}b.pt", 'already exists')):   # a UserError; a SettingError naming --overwrite
        with pytest.raises(SystemExit) as e: average_main([str(tmp_path), '--last', '2', '-o', out])
        err = capsys.readouterr().err
        assert e.value.code == 2 and len(err.splitlines()) == 1 and f"-o {printable(out)}" in err and says in err, err
