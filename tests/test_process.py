"""How a command runs as a process (A25_process: `run_cli`, exit codes, signals, streams), with real processes: a bug
named as one, a Ctrl-C never taken for a bug, closed or departed streams and a lost terminal ending in the right exit
code, warnings made errors not taken for bugs."""
import os, pty, signal, subprocess, time
import pytest
from conftest import ENV, TINY, cmd, tool, one_line, DECODING, default_signals as _sigint_default
from conftest import said as quiet, said as lines

BUG = "import transformer_nb.data as d; d.Tokenizer.decode = lambda self, ids: ids.nope"

@pytest.mark.slow   # runs the tools in fresh processes
def test_a_bug_says_it_is_one_and_where(run):
    r = tool('translate', run, 'a b', '--beam', '1', code=BUG)
    ls = quiet(r.stderr)
    assert r.returncode == 70 and len(ls) == 1, r.stderr
    line = ls[0]
    assert line.startswith("tnb-translate: internal error, a bug in transformer_nb: AttributeError: 'list' object has no attribute 'nope'")
    assert 'transformer_nb/fast_decoding.py:' in line and 'in translate_checked' in line and 'run it again with --debug (or TNB_DEBUG=1)' in line
    for extra, env in ((['--debug'], {}), ([], {'TNB_DEBUG': '1'})):
        r = tool('translate', run, 'a b', '--beam', '1', *extra, code=BUG, env=env)
        assert r.returncode == 70 and '\n'.join(quiet(r.stderr)).startswith('Traceback (most recent call last):'), r.stderr
        assert r.stderr.strip().splitlines()[-1].startswith('tnb-translate: internal error, a bug'), r.stderr

@pytest.mark.slow   # runs the tools in fresh processes
def test_an_error_caused_by_ctrl_c_is_an_interrupt_not_a_bug(capsys):
    "A Ctrl-C that lands inside an import can surface as another exception; run_cli still exits 130, 'interrupted'."
    from transformer_nb.process import run_cli
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
    from transformer_nb.process import run_cli, raise_if_interrupted
    done = []
    def main(argv, table):
        try: signal.raise_signal(signal.SIGINT)
        except BaseException: pass                     # what some import-time code does
        raise_if_interrupted(); done.append(1)
    prev = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with pytest.raises(SystemExit) as e: run_cli('tnb-demo', main, [])
    finally: signal.signal(signal.SIGINT, prev)
    assert e.value.code == 130 and done == [] and capsys.readouterr().err == 'tnb-demo: interrupted\n'
    with pytest.raises(SystemExit) as e: run_cli('tnb-demo', lambda argv, table: raise_if_interrupted(), [])   # a new command starts clean
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
