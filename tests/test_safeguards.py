"""Safeguards (lib_safeguards): fast unit tests of each public function, then the guarantees they give the commands,
checked with real processes (marked slow): outputs checked before any work, written whole or not at all, through
symlinks, FIFOs and devices, never over an input; inputs split on newlines only, decoded with the line and offset of a
bad byte, a gzip bomb refused."""
import contextlib, os, shutil, signal, stat, subprocess, sys
from pathlib import Path
import pytest
from transformer_nb.lib.runs import RunFolder
from conftest import ENV, cmd, tool, one_line, temps

# --- unit tests, one function at a time (fast: no process but the test's own, no training) -------------------------

from transformer_nb.lib.safeguards import (UserError, in_place, check_output, check_folder, same_file, check_not_inputs, _stale_temps,
                                       clean_stale_temps, atomic_open, atomic_write, decode_lines, _read_stream, _read_stdin_lines,
                                       check_text_file, read_text_lines, check_gzip, iter_lines, as_available, output_stream,
                                       printable, folder_lock, deferred_interrupts)
import gzip, io, socket, threading, time, warnings

ROOT_USER = os.geteuid() == 0          # root writes through file modes: mode-based refusals are not testable as root

def dead_pid() -> int:
    "The id of a process that has ended (and been reaped)."
    p = subprocess.Popen([sys.executable, '-c', 'pass']); p.wait()
    return p.pid

def unix_socket(path):
    "A listening Unix socket at `path` (skip where the path is too long for one)."
    if len(str(path)) > 100: pytest.skip('the temporary path is too long for a Unix socket')
    s = socket.socket(socket.AF_UNIX); s.bind(str(path))
    return s

def test_user_error_is_a_value_error_with_an_exit_code():
    e = UserError('bad option')
    assert isinstance(e, ValueError) and str(e) == 'bad option' and e.exit_code == 2
    assert UserError('the disk is full', exit_code=1).exit_code == 1

def test_in_place_means_streams_and_devices(tmp_path):
    (tmp_path / 'f.txt').write_text('x'); os.mkfifo(tmp_path / 'fifo')
    assert not in_place(tmp_path / 'f.txt') and not in_place(tmp_path) and not in_place(tmp_path / 'missing')
    assert in_place(tmp_path / 'fifo') and in_place('/dev/null') and in_place('/dev/stdout') and in_place('/proc/self/fd/1')
    (tmp_path / 'null').symlink_to('/dev/null')
    assert in_place(tmp_path / 'null')                                           # through a link

def test_check_output_accepts_what_can_be_written(tmp_path):
    (tmp_path / 'old.txt').write_text('x')
    for p in (tmp_path / 'new.txt', '/dev/null'): assert check_output(p, '-o') == Path(p)
    assert check_output(tmp_path / 'old.txt', '-o', overwrite=True) == tmp_path / 'old.txt'   # an existing file: on request only
    assert sorted(q.name for q in tmp_path.iterdir()) == ['old.txt']               # the probe is gone, nothing created
    (tmp_path / 'null').symlink_to('/dev/null')
    assert check_output(tmp_path / 'null') == tmp_path / 'null'                    # a link to a device: written in place, nothing replaced

def test_check_output_never_replaces_what_it_was_not_asked_to(tmp_path):
    "An existing file without overwrite, a symlink (even with it), a training checkpoint's name, a run's own files: one line each, nothing touched."
    from transformer_nb.lib.options import SettingError
    from transformer_nb.lib.safeguards import said
    (tmp_path / 'old.txt').write_text('x'); (tmp_path / 'link.txt').symlink_to(tmp_path / 'old.txt')
    (tmp_path / 'dangling').symlink_to(tmp_path / 'not-yet.txt')
    run = tmp_path / 'run'; run.mkdir(); (run / 'checkpoint-0000040.pt').write_bytes(b'ck'); (run / 'log.jsonl').write_text('{}\n')
    (run / 'loss.png').write_bytes(b'png')
    with pytest.raises(SettingError) as e: check_output(tmp_path / 'old.txt', '-o')
    assert said(e.value, {'overwrite': ('--overwrite', 'flag')}) == f"-o {tmp_path / 'old.txt'} already exists: choose another name, or replace it with --overwrite"
    assert str(e.value).endswith('or replace it with overwrite=True')                # the library's words name the argument
    for path, needle in [(tmp_path / 'link.txt', f"-o {tmp_path / 'link.txt'} is a symlink: refusing to write through it"),
                         (tmp_path / 'dangling', 'is a symlink: refusing to write through it'),
                         (run / 'checkpoint-0000040.pt', 'a checkpoint-<step>.pt name would pass this file off as a training checkpoint'),
                         (tmp_path / 'checkpoint-0000099.pt', 'a checkpoint-<step>.pt name'),
                         (run / 'log.jsonl', f"is the log.jsonl of the training run in {run}, which only tnb-train writes"),
                         (run / 'loss.png', 'is the loss.png of the training run in')]:
        for overwrite in (False, True):
            with pytest.raises(UserError) as e: check_output(path, '-o', overwrite)
            assert needle in str(e.value) and len(str(e.value).splitlines()) == 1, (path, str(e.value))
    assert (tmp_path / 'old.txt').read_text() == 'x' and (tmp_path / 'link.txt').is_symlink() and not (tmp_path / 'not-yet.txt').exists()
    assert (run / 'checkpoint-0000040.pt').read_bytes() == b'ck' and not (tmp_path / 'checkpoint-0000099.pt').exists()
    (tmp_path / 'notes').mkdir(); (tmp_path / 'notes' / 'log.jsonl').write_text('mine')   # the name alone, in a folder that holds no run: yours
    assert check_output(tmp_path / 'notes' / 'log.jsonl', '-o', overwrite=True) == tmp_path / 'notes' / 'log.jsonl'
    assert check_output(tmp_path / 'results.json', '--record', adds=True) and check_output(tmp_path / 'link.txt', '--record', adds=True)   # a results file is added to

def test_check_output_refusals_name_the_option_and_the_problem(tmp_path, readonly_dir):
    cases = [('', '-o: an empty file name'), ('.', '-o: an empty file name'),
             (tmp_path, f'-o {tmp_path} is a folder; give a file name'),
             (tmp_path / 'no' / 'x.txt', f"-o {tmp_path / 'no' / 'x.txt'}: the folder {tmp_path / 'no'} does not exist"),
             ('/dev/no-such-device', '-o /dev/no-such-device: no such device'),
             (readonly_dir / 'x.txt', f"-o {readonly_dir / 'x.txt'}: cannot write in {readonly_dir}"),
             (f"{tmp_path / 'newdir'}/", f"-o {tmp_path / 'newdir'}/ ends in '/', which names a folder; give a file name")]   # once a file 'newdir'
    for path, msg in cases:
        with pytest.raises(UserError) as e: check_output(path, '-o')
        assert str(e.value).startswith(msg) and e.value.exit_code == 2, (path, str(e.value))
    assert not (tmp_path / 'newdir').exists()
    with unix_socket(tmp_path / 'sock'):
        with pytest.raises(UserError, match='is a socket; give a file, a FIFO or a device'): check_output(tmp_path / 'sock', '-o')

@pytest.mark.skipif(ROOT_USER, reason='root may write a read-only file')
def test_check_output_refuses_a_read_only_file(tmp_path):
    (tmp_path / 'ro.txt').write_text('keep'); (tmp_path / 'ro.txt').chmod(0o444)
    with pytest.raises(UserError, match='ro.txt: the file is read-only'): check_output(tmp_path / 'ro.txt', '-o')

def test_check_folder_creates_and_checks(tmp_path, readonly_dir):
    assert check_folder(tmp_path / 'a' / 'b', '--out') == tmp_path / 'a' / 'b' and (tmp_path / 'a' / 'b').is_dir()
    assert list((tmp_path / 'a' / 'b').iterdir()) == []                          # no probe left behind
    assert check_folder(tmp_path / 'a' / 'b') == tmp_path / 'a' / 'b'             # an existing folder is fine
    (tmp_path / 'f').write_text('x')
    with pytest.raises(UserError, match=r"--out .*/f is a file, not a folder"): check_folder(tmp_path / 'f', '--out')
    with pytest.raises(UserError, match=r"--out .*/f/sub: cannot create the folder \("): check_folder(tmp_path / 'f' / 'sub', '--out')
    with pytest.raises(UserError, match='cannot write in'): check_folder(readonly_dir, 'out=')

def test_same_file_through_links(tmp_path):
    a, b = tmp_path / 'a.txt', tmp_path / 'b.txt'; a.write_text('x'); b.write_text('x')
    (tmp_path / 'sym').symlink_to(a); os.link(a, tmp_path / 'hard')
    assert same_file(a, a) and same_file(a, tmp_path / 'sym') and same_file(tmp_path / 'hard', a)
    assert same_file(tmp_path / 'missing', tmp_path / '.' / 'missing')              # one path, even before it exists
    assert not same_file(a, b) and not same_file(a, tmp_path / 'missing')         # same content is not the same file

def test_check_not_inputs(tmp_path):
    src, out = tmp_path / 'src.txt', tmp_path / 'out.txt'; src.write_text('a\n')
    (tmp_path / 'link.txt').symlink_to(src); os.link(src, tmp_path / 'hard.txt')
    assert check_not_inputs({'-o': out, '--hyp-out': None, '--log': '-'}, {'-i': src, '--ref': None}) is None
    assert check_not_inputs({'-o': '/dev/null', '--log': '/dev/null'}, {'-i': '/dev/null'}) is None   # written in place
    for o in (src, tmp_path / 'link.txt', tmp_path / 'hard.txt'):
        with pytest.raises(UserError, match=rf"-o {o} would overwrite -i {src}: choose another file"): check_not_inputs({'-o': o}, {'-i': src})
    ckpts = [tmp_path / 'checkpoint-0000001.pt', tmp_path / 'checkpoint-0000002.pt']
    with pytest.raises(UserError, match='would overwrite checkpoint'): check_not_inputs({'-o': ckpts[1]}, {'checkpoint': ckpts})
    with pytest.raises(UserError, match=rf"-o {out} and --hyp-out {out} are the same file"): check_not_inputs({'-o': out, '--hyp-out': out}, {})
    with pytest.raises(UserError, match=r'a checkpoint-<step>\.pt name'): check_not_inputs({'-o': tmp_path / 'checkpoint-0000099.pt'}, {})
    assert check_not_inputs({'-o': tmp_path / 'my-checkpoint-1.pt.txt'}, {}) is None

def test_stale_temps_are_those_of_ended_writers(tmp_path):
    dead, alive = dead_pid(), os.getpid()
    for name in (f'.out.txt.tmp{dead}', f'.out.txt.tmp{alive}', '.out.txt.tmpabc', f'.other.pt.tmp{dead}', 'out.txt'):
        (tmp_path / name).write_text('half')
    assert [p.name for p in _stale_temps(tmp_path)] == sorted([f'.other.pt.tmp{dead}', f'.out.txt.tmp{dead}'])
    assert [p.name for p in _stale_temps(tmp_path, '.out.txt.tmp*')] == [f'.out.txt.tmp{dead}']
    assert [p.name for p in clean_stale_temps(tmp_path, '.out.txt.tmp*')] == [f'.out.txt.tmp{dead}']
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([f'.out.txt.tmp{alive}', '.out.txt.tmpabc', f'.other.pt.tmp{dead}', 'out.txt'])
    assert [p.name for p in clean_stale_temps(tmp_path)] == [f'.other.pt.tmp{dead}'] and clean_stale_temps(tmp_path) == []

def test_atomic_write_replaces_whole_and_keeps_permissions(tmp_path):
    f = tmp_path / 'out.txt'
    assert atomic_write(f, 'one\n') == f and f.read_text() == 'one\n'
    f.chmod(0o640)
    atomic_write(f, b'\x00two')
    assert f.read_bytes() == b'\x00two' and (f.stat().st_mode & 0o777) == 0o640
    assert atomic_write(tmp_path / 'ü.txt', 'grüße') and (tmp_path / 'ü.txt').read_bytes() == 'grüße'.encode('utf-8')
    assert temps(tmp_path) == []

def test_atomic_open_shows_readers_the_old_file_until_the_end(tmp_path):
    f = tmp_path / 'out.txt'; f.write_text('old\n')
    with atomic_open(f) as w:
        w.write('new, part 1\n'); w.flush()
        assert f.read_text() == 'old\n' and len(temps(tmp_path)) == 1           # the writing goes to a temporary file
        w.write('new, part 2\n')
    assert f.read_text() == 'new, part 1\nnew, part 2\n' and temps(tmp_path) == []

@pytest.mark.parametrize('exc', [RuntimeError('the writer failed'), KeyboardInterrupt()])
def test_atomic_open_leaves_nothing_half_written_when_the_writer_raises(tmp_path, exc):
    old, new = tmp_path / 'old.txt', tmp_path / 'new.txt'; old.write_text('the previous file\n')
    for f in (old, new):
        with pytest.raises(type(exc)):
            with atomic_open(f) as w: w.write('half of it'); raise exc
    assert old.read_text() == 'the previous file\n' and not new.exists() and temps(tmp_path) == []
    with pytest.raises(ValueError):
        atomic_write(old, 'x' * 10 + '\udcff')                                    # a failure inside write() itself
    assert old.read_text() == 'the previous file\n' and temps(tmp_path) == []

def test_atomic_open_follows_symlinks_unless_asked_not_to(tmp_path):
    target, link = tmp_path / 'target.txt', tmp_path / 'link.txt'; target.write_text('old\n'); link.symlink_to(target)
    atomic_write(link, 'through the link\n')
    assert link.is_symlink() and target.read_text() == 'through the link\n'
    atomic_write(link, 'replaces the link\n', follow=False)
    assert not link.is_symlink() and link.read_text() == 'replaces the link\n' and target.read_text() == 'through the link\n'
    with pytest.raises(IsADirectoryError): atomic_write(tmp_path, 'x')
    assert temps(tmp_path) == []

def test_atomic_open_writes_fifos_and_devices_in_place(tmp_path):
    os.mkfifo(tmp_path / 'fifo'); got = []
    t = threading.Thread(target=lambda: got.append((tmp_path / 'fifo').read_bytes())); t.start()
    atomic_write(tmp_path / 'fifo', 'a\nb\n'); t.join(10)
    assert got == [b'a\nb\n'] and (tmp_path / 'fifo').is_fifo() and temps(tmp_path) == []
    atomic_write('/dev/null', 'x')

@pytest.mark.skipif(not os.path.exists('/dev/full'), reason='no /dev/full here')
def test_a_failed_write_names_the_file():
    with pytest.raises(OSError) as e: atomic_write('/dev/full', 'x' * 100)
    assert e.value.filename == '/dev/full' and 'No space left on device' in str(e.value)

def test_decode_lines_splits_on_newline_only_and_strips():
    assert decode_lines(b'a b\n  c  \n\nd') == ['a b', 'c', '', 'd']               # blank lines kept, no last empty line
    assert decode_lines(b'') == [] and decode_lines(b'\n') == ['']
    assert decode_lines('\ufeffé x\n'.encode()) == ['é x']                         # a byte-order mark is not text
    assert decode_lines('a\x0bb\x1cc\u2028d\x85e\n'.encode()) == ['a\x0bb\x1cc\u2028d\x85e']   # not str.splitlines()

def test_decode_lines_names_the_bad_byte():
    with pytest.raises(ValueError, match=r"^in\.txt, line 2: invalid UTF-8 \(invalid start byte: byte b'\\xff' at offset 6\)"):
        decode_lines(b'a b\nc \xff d\n', 'in.txt')
    with pytest.raises(ValueError, match=r"^input, line 3: a NUL byte at offset 4; this is not UTF-8 text"):
        decode_lines(b'a\nb\n\0c\n')
    with pytest.raises(ValueError, match='line 1: a NUL byte .* or UTF-16 text: convert it to UTF-8'): decode_lines('ü'.encode('utf-16'))

def test_read_stream_reads_all_and_bounds_what_it_reads():
    data = b''.join(f'line {i}\n'.encode() for i in range(5000))
    assert _read_stream(io.BytesIO(data), 'f', size=100) == data
    assert _read_stream(io.BytesIO(gzip.compress(data)), 'f.gz', size=100) == data            # gzip, decompressed
    assert _read_stream(io.BytesIO(gzip.compress(b'a\n') + gzip.compress(b'b\n')), 'f') == b'a\nb\n'   # several members
    with pytest.raises(UserError, match=r'^f, line 3: a NUL byte at offset 4'): _read_stream(io.BytesIO(b'a\nb\n\0' + b'x' * 10), 'f')
    with pytest.raises(UserError, match=r'^f, line 2: longer than'): _read_stream(io.BytesIO(b'ab\n' + b'x' * 5000), 'f', max_line=1000, size=64)
    with pytest.raises(UserError, match=r'^f: looks gzip-compressed but cannot be decompressed'): _read_stream(io.BytesIO(b'\x1f\x8b' + b'junk' * 10), 'f')
    with pytest.raises(UserError, match=r'ends inside the compressed data'): _read_stream(io.BytesIO(gzip.compress(data)[:-100]), 'f')

def test_read_stdin_lines_reads_like_a_file(monkeypatch):
    raw = 'a b\nc\u2028d\nü\n'.encode()
    assert _read_stdin_lines(io.TextIOWrapper(io.BytesIO(raw))) == decode_lines(raw) == ['a b', 'c\u2028d', 'ü']
    assert _read_stdin_lines(io.BytesIO(raw)) == ['a b', 'c\u2028d', 'ü']                 # a binary stream
    assert _read_stdin_lines(io.StringIO('x\ny\n')) == ['x', 'y']                        # a text stream without a buffer
    monkeypatch.setattr(sys, 'stdin', io.TextIOWrapper(io.BytesIO(b'from\nstdin\n')))
    assert _read_stdin_lines() == ['from', 'stdin']
    with pytest.raises(ValueError, match='^standard input, line 2: invalid UTF-8'): _read_stdin_lines(io.BytesIO(b'ok\n\xff\n'))
    with pytest.raises(ValueError, match='^pipe, line 1: a NUL byte'): _read_stdin_lines(io.BytesIO(b'\0'), name='pipe')

def test_check_text_file(tmp_path):
    (tmp_path / 'ok.txt').write_text('a\n'); os.mkfifo(tmp_path / 'fifo')
    assert check_text_file(tmp_path / 'ok.txt') == tmp_path / 'ok.txt' and check_text_file(str(tmp_path / 'ok.txt'), regular=True) == tmp_path / 'ok.txt'
    assert check_text_file('/dev/null') == Path('/dev/null')
    for path, kw, msg in [(tmp_path, {}, f'-i {tmp_path} is a folder; give a text file, one sentence per line (plain or .gz)'),
                          (tmp_path / 'fifo', {}, f"-i {tmp_path / 'fifo'} is a named pipe (FIFO): reading it would wait until a program writes to it"),
                          (tmp_path / 'no.txt', {}, f"-i {tmp_path / 'no.txt'}: no such file"),
                          (tmp_path / 'fifo', dict(regular=True), f"-i {tmp_path / 'fifo'} is not a regular file (a FIFO or a device)"),
                          ('/dev/null', dict(regular=True), '-i /dev/null is not a regular file')]:
        with pytest.raises(UserError) as e: check_text_file(path, '-i', **kw)
        assert str(e.value).startswith(msg), str(e.value)
    with unix_socket(tmp_path / 'sock'):
        with pytest.raises(UserError, match='is a socket'): check_text_file(tmp_path / 'sock', '-i')

def test_read_text_lines(tmp_path, monkeypatch):
    (tmp_path / 'a.txt').write_bytes(b'one\n two \n'); (tmp_path / 'a.txt.gz').write_bytes(gzip.compress(b'one\n two \n'))
    assert read_text_lines(tmp_path / 'a.txt') == read_text_lines(tmp_path / 'a.txt.gz') == ['one', 'two']
    monkeypatch.setattr(sys, 'stdin', io.TextIOWrapper(io.BytesIO(b'x\ny\n')))
    assert read_text_lines('-') == ['x', 'y']
    with pytest.raises(UserError, match='--src .* is a folder'): read_text_lines(tmp_path, '--src')
    with pytest.raises(UserError, match='--src .*: no such file'): read_text_lines(tmp_path / 'nope', '--src')
    (tmp_path / 'bad.txt').write_bytes(b'a\n\xc3\n')
    with pytest.raises(ValueError, match=r'bad\.txt, line 2: invalid UTF-8'): read_text_lines(tmp_path / 'bad.txt')

@pytest.mark.skipif(ROOT_USER, reason='root reads any file')
def test_read_text_lines_names_an_unreadable_file(tmp_path):
    (tmp_path / 'secret.txt').write_text('a\n'); (tmp_path / 'secret.txt').chmod(0)
    with pytest.raises(UserError, match=r'-i .*secret\.txt: Permission denied'): read_text_lines(tmp_path / 'secret.txt', '-i')

def test_check_gzip(tmp_path):
    plain = io.BytesIO(b'a\nb\n'); plain.seek(1)
    assert check_gzip(plain, 'p') is False and plain.tell() == 1                        # left where it was
    gz = io.BytesIO(gzip.compress(b'a\nb\n'))
    assert check_gzip(gz, 'g') is True and gz.tell() == 0 and gzip.decompress(gz.read()) == b'a\nb\n'
    bomb = io.BytesIO(gzip.compress(bytes(1 << 20), compresslevel=9) * 100)             # 100 gzip members: 100 MiB from about 100 KiB
    with pytest.raises(UserError, match=r'^bomb\.gz: expands to more than \d+ MiB .* over 200 times its size; that is not a text corpus'):
        check_gzip(bomb, 'bomb.gz')
    with pytest.raises(UserError, match='looks gzip-compressed but cannot be decompressed'): check_gzip(io.BytesIO(b'\x1f\x8bnot gzip'), 'x')

def test_iter_lines_yields_lines_as_decode_lines_splits_them():
    raw = '\ufeffa b\n  c \n\nd\u2028e\nlast'.encode()
    assert list(iter_lines(io.BytesIO(raw), 'f', size=3)) == decode_lines(raw) == ['a b', 'c', '', 'd\u2028e', 'last']
    assert list(iter_lines(io.BytesIO(gzip.compress(raw)), 'f')) == decode_lines(raw)
    assert list(iter_lines(io.BytesIO(b''), 'f')) == [] and list(iter_lines(io.BytesIO('x\n\ufeffy\n'.encode()), 'f')) == ['x', '\ufeffy']

def test_iter_lines_refusals_name_line_and_offset():
    it = iter_lines(io.BytesIO(b'ok\nc \xff d\nnever read\n'), 'in.txt', size=4)
    assert next(it) == 'ok'                                                              # what came before the bad line
    with pytest.raises(UserError, match=r"^in\.txt, line 2: invalid UTF-8 \(invalid start byte: byte b'\\xff' at offset 5\)"): next(it)
    with pytest.raises(UserError, match=r'^f, line 2: a NUL byte at offset 3'): list(iter_lines(io.BytesIO(b'ab\n\0'), 'f'))
    with pytest.raises(UserError, match=r'^f, line 2: longer than'): list(iter_lines(io.BytesIO(b'a\n' + b'x' * 500), 'f', max_line=100, size=16))

def test_iter_lines_gives_a_line_before_the_stream_ends():
    r, w = os.pipe()
    with os.fdopen(r, 'rb') as f:
        os.write(w, b'first\nsec')
        closer = threading.Timer(5, os.close, (w,)); closer.start()                      # a hung read ends in 5 s, and fails below
        t0 = time.time(); it = iter_lines(f, 'pipe')
        assert next(it) == 'first' and time.time() - t0 < 4
        closer.cancel(); os.write(w, b'ond\n'); os.close(w)
        assert list(it) == ['second']

def test_as_available_batches_everything_in_order():
    batches = list(as_available(iter(range(2500)), most=1000))
    assert [x for b in batches for x in b] == list(range(2500)) and all(1 <= len(b) <= 1000 for b in batches)
    assert list(as_available([])) == []

def test_as_available_gives_what_is_there_without_waiting_for_more():
    gate = threading.Event()
    def slow():
        yield 1; yield 2
        gate.wait(10); yield 3
    it = as_available(slow(), most=10)
    first = next(it)
    assert first in ([1, 2], [1]), first                                                 # not held back waiting for 3
    gate.set()
    assert [x for b in [first, *it] for x in b] == [1, 2, 3]

def test_as_available_raises_the_readers_error_in_the_consumer():
    def broken():
        yield 'a'; yield 'b'; raise UserError('input, line 3: invalid UTF-8')
    got = []
    with pytest.raises(UserError, match='line 3'):
        for b in as_available(broken()): got += b
    assert got in ([], ['a'], ['a', 'b'])                                            # whole batches before it, in order

def test_output_stream_to_standard_output(capsys):
    with output_stream() as write: write('a\n'); write('b\n')
    with output_stream('-') as write: write('c\n')
    assert capsys.readouterr().out == 'a\nb\nc\n'

def test_output_stream_names_standard_output_when_it_fails(monkeypatch):
    class Full:
        def write(self, text): raise OSError(28, 'No space left on device')
        def flush(self): pass
    monkeypatch.setattr(sys, 'stdout', Full())
    with pytest.raises(OSError) as e:
        with output_stream() as write: write('x\n')
    assert e.value.filename == 'standard output' and e.value.errno == 28

def test_output_stream_to_a_file_is_written_whole_at_the_end(tmp_path):
    f = tmp_path / 'out.txt'; f.write_text('old\n')
    with output_stream(f) as write:
        write('a\n'); write('b\n')
        assert f.read_text() == 'old\n'
    assert f.read_text() == 'a\nb\n' and temps(tmp_path) == []

def test_output_stream_keeps_the_lines_so_far_on_an_interrupt(tmp_path):
    f = tmp_path / 'out.txt'; f.write_text('old\n')
    with pytest.warns(UserWarning, match=r'the 2 lines written so far are in .*out\.txt\.partial; .*out\.txt is as it was'):
        with pytest.raises(KeyboardInterrupt):
            with output_stream(f) as write: write('a\n'); write('b\n'); raise KeyboardInterrupt
    assert f.read_text() == 'old\n' and (tmp_path / 'out.txt.partial').read_text() == 'a\nb\n' and temps(tmp_path) == []
    with warnings.catch_warnings():
        warnings.simplefilter('error')                                                   # nothing written: no .partial, no warning
        with pytest.raises(KeyboardInterrupt):
            with output_stream(tmp_path / 'empty.txt'): raise KeyboardInterrupt
    assert not (tmp_path / 'empty.txt.partial').exists() and not (tmp_path / 'empty.txt').exists()
    with pytest.raises(RuntimeError):                                                    # another error: nothing kept
        with output_stream(tmp_path / 'other.txt') as write: write('a\n'); raise RuntimeError
    assert not (tmp_path / 'other.txt').exists() and not (tmp_path / 'other.txt.partial').exists()

def test_printable_escapes_control_characters():
    assert printable('a b, ü 中 é') == 'a b, ü 中 é'
    assert printable('\x1b[31mred\x07\r\n\t') == '\\x1b[31mred\\x07\\r\\n\\t'
    assert printable(Path('/tmp/x\ny')) == '/tmp/x\\ny' and printable(3) == '3'

def test_folder_lock_lets_one_holder_at_a_time(tmp_path):
    (tmp_path / 'n').write_text('0'); errors = []
    def add(k):
        try:
            for _ in range(k):
                with folder_lock(tmp_path):                                              # read, wait, write: lost updates without the lock
                    n = int((tmp_path / 'n').read_text()); time.sleep(0.001); (tmp_path / 'n').write_text(str(n + 1))
        except BaseException as e: errors.append(e)
    ts = [threading.Thread(target=add, args=(25,)) for _ in range(4)]
    for t in ts: t.start()
    for t in ts: t.join(60)
    assert errors == [] and (tmp_path / 'n').read_text() == '100'

def test_folder_lock_waits_for_the_holder(tmp_path):
    entered = []
    with folder_lock(tmp_path):
        t = threading.Thread(target=lambda: [entered.append(time.time()) for _ in [folder_lock(tmp_path).__enter__()]])
        t.start(); time.sleep(0.3); released = time.time()
        assert entered == []                                                             # still waiting
    t.join(10)
    assert entered and entered[0] >= released

@pytest.fixture
def sigint_raises():
    "Ctrl-C raises KeyboardInterrupt during the test, whatever handler the test runner installed."
    old = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, old)

def test_deferred_interrupts_holds_ctrl_c_until_the_block_ends(sigint_raises, capsys):
    done = []
    with pytest.raises(KeyboardInterrupt):
        with deferred_interrupts('saving, please wait') as held:
            signal.raise_signal(signal.SIGINT); signal.raise_signal(signal.SIGINT)
            done.append('the block ran to its end'); assert held == [signal.SIGINT] * 2
    assert done and capsys.readouterr().err == 'saving, please wait\n' * 2
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler                # the handler is restored

def test_deferred_interrupts_can_drop_what_it_held(sigint_raises, capsys):
    with deferred_interrupts(reraise=False) as held: signal.raise_signal(signal.SIGINT)
    assert held == [signal.SIGINT] and capsys.readouterr().err == ''
    with deferred_interrupts() as held: pass
    assert held == []

def test_deferred_interrupts_leaves_an_ignored_signal_ignored():
    old = signal.signal(signal.SIGTERM, signal.SIG_IGN)                                  # as under nohup
    try:
        with deferred_interrupts() as held: signal.raise_signal(signal.SIGTERM)
        assert held == [] and signal.getsignal(signal.SIGTERM) == signal.SIG_IGN
    finally: signal.signal(signal.SIGTERM, old)

def test_deferred_interrupts_outside_the_main_thread_changes_nothing():
    got = []
    def run():
        with deferred_interrupts() as held: got.append((held, signal.getsignal(signal.SIGINT)))
    before = signal.getsignal(signal.SIGINT)
    t = threading.Thread(target=run); t.start(); t.join(10)
    assert got == [([], before)]


# --- every public writer of the package keeps `check_output`'s rule ----------------------------------------------------
# A public function or method "writes a file" if its own code, or a function of the package it calls, opens a file for
# writing, renames one into place or saves one (`torch.save`, `np.save`, a figure, an ONNX graph). The scan below finds
# them all in the source; each is either held to the rule here (a file or a folder it writes: never through a symbolic
# link, never over what is there unless asked, never onto a run's checkpoint, log, curve or lock), writes a run's own
# files under the run's claim (`RunFolder.claim`: links refused, another run's files refused), or is one of the means
# the writers write with, called once the rule is checked. A writer that writes only through these is covered by them.
import ast, types

PKG = Path(__file__).resolve().parents[1] / 'transformer_nb'
_WRITE_CALLS = {'atomic_open', 'atomic_write', 'output_stream', 'savefig', 'write_text', 'write_bytes', 'mkdtemp'}
_WRITE_FUNCS = {'os.replace', 'os.rename', 'shutil.copy', 'shutil.copyfile', 'shutil.copy2', 'shutil.copytree', 'json.dump',
                'torch.save', 'np.save', 'onnx.save', 'torch.onnx.export'}
_PROBES = {'_probe', '_fifo_end'}   # open and remove a file to test a folder; open a named pipe's end to see whether another program holds the other

def _mode_writes(n:ast.Call, at:int) -> bool:
    mode = n.args[at] if len(n.args) > at else next((k.value for k in n.keywords if k.arg == 'mode'), None)
    return isinstance(mode, ast.Constant) and isinstance(mode.value, str) and bool(set(mode.value) & set('wax+'))

def _direct_writes(fn) -> list[str]:
    "The calls in `fn` (nested functions included) that write a file themselves."
    out = []
    for n in ast.walk(fn):
        if not isinstance(n, ast.Call): continue
        f, src = n.func, ast.unparse(n.func)
        name = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ''
        if src == 'os.open': hit = any(w in ast.unparse(n) for w in ('O_WRONLY', 'O_RDWR', 'O_CREAT')) and 'devnull' not in ast.unparse(n)
        elif name in ('open', 'fdopen'):                                     # open(p, mode), os.fdopen(fd, mode), tarfile.open(.., mode=), Path.open(mode)
            hit = _mode_writes(n, 0 if isinstance(f, ast.Attribute) and src not in ('os.fdopen', 'gzip.open', 'tarfile.open', 'io.open') else 1)
        else: hit = name in _WRITE_CALLS or src in _WRITE_FUNCS or (name == 'save' and not src.startswith('self.'))   # spec.save, tok.save
        if hit: out.append(ast.unparse(n)[:80])
    return out

def _module(py:Path) -> str: return '.'.join(py.relative_to(PKG).with_suffix('').parts)

def package_writers() -> tuple[dict, dict]:
    "({'module:qualname': the functions of the package it writes through} for every function that writes a file, {'module:qualname': its own writing calls})."
    funcs, imports = {}, {}
    for py in sorted(PKG.rglob('*.py')):
        if py.name in ('_modidx.py', '_export.py'): continue
        mod, tree = _module(py), ast.parse(py.read_text(encoding='utf-8'))
        for node in tree.body:
            if isinstance(node, ast.FunctionDef):                             # a method added by @patch names its class as `self`'s type
                cls = next((ast.unparse(a.annotation) for a in node.args.args[:1] if a.arg == 'self' and a.annotation is not None), None)
                funcs[f"{mod}:{cls + '.' if cls else ''}{node.name}"] = node
            elif isinstance(node, ast.ClassDef):
                for m in node.body:
                    if isinstance(m, ast.FunctionDef): funcs[f"{mod}:{node.name}.{m.name}"] = m
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                base = '.'.join(['transformer_nb', *mod.split('.')][:-node.level] + ([node.module] if node.module else [])) if node.level else node.module or ''
                for a in node.names: imports[mod, a.asname or a.name] = (base.removeprefix('transformer_nb.'), a.name)
    named = {}
    for k in funcs: named.setdefault((k.split(':')[0], k.split('.')[-1].split(':')[-1]), []).append(k)
    def targets(mod, call): return named.get((mod, call), []) + named.get(imports.get((mod, call)), [])
    calls = {k: {n.func.id if isinstance(n.func, ast.Name) else n.func.attr for n in ast.walk(v)
                 if isinstance(n, ast.Call) and isinstance(n.func, (ast.Name, ast.Attribute))} for k, v in funcs.items()}
    own = {k: [] if k.split('.')[-1].split(':')[-1] in _PROBES else _direct_writes(v) for k, v in funcs.items()}
    via = {k: set() for k in funcs}
    writes = {k for k in funcs if own[k]}
    while True:                                                                # what calls a writer writes, to a fixed point
        new = {k for k in funcs if k not in writes and k.split('.')[-1].split(':')[-1] not in _PROBES
               and any(t in writes for c in calls[k] for t in targets(k.split(':')[0], c))}
        for k in funcs: via[k] |= {t for c in calls[k] for t in targets(k.split(':')[0], c) if t in writes and t != k}
        if not new: break
        writes |= new
    return {k: via[k] for k in writes}, {k: own[k] for k in writes if own[k]}

def public(k:str) -> bool: return not any(p.startswith('_') for p in k.split(':')[1].split('.'))

# Held to the rule below, each by the harness that writes `path` with it ('file'), or into the folder `path` ('folder').
FILE_WRITERS = ['lib.checkpoints:save_checkpoint', 'lib.checkpoints:save_averaged', 'lib.checkpoints:average_run', 'lib.tokens:_TokenizerBytes.save',
                'lib.trainer:plot_history', 'lib.trainer:Trainer.plot', 'lib.records:add_result', 'lib.safeguards:download_file',
                'lib.fast_decoding:_translate_file', 'apps.export:translate_export', 'apps.wmt14:download_resumable', 'apps.pretrained:make_pretrained']
FOLDER_WRITERS = ['apps.export:export', 'apps.export:export_ctranslate2', 'apps.export:export_onnx', 'apps.export:export_hf', 'apps.wmt14:sample_archives',
                  'apps.wmt14:encode_to_disk', 'apps.wmt14:encoded_cache', 'apps.wmt14:fetch_wmt14', 'apps.parsing_task:write_treebank_files']
RUN_WRITERS = {   # the run's own files, under its claim
    'lib.runs:RunFolder.write': "a file of the run, replacing (never following) a link at its name: called by the run that holds the folder",
    'lib.runs:RunFolder.append_log': "the run's log, a link planted during the run removed, never followed (tests/test_runs.py)",
    'lib.runs:RunFolder.lock': "the run's lock, created with O_EXCL | O_NOFOLLOW: a link at its name refused",
    'lib.runs:RunFolder.claim': "takes the lock, refuses links at every name a run writes and another run's files (tests/test_runs.py)",
    'lib.runs:RunFolder.trim_log': "rewrites the run's own log for a continuation, under the claim"}
MEANS = {         # what the writers write with, once the rule is checked
    'lib.safeguards:atomic_open': "writes a file whole or not at all; every writer above checks its path first",
    'lib.safeguards:atomic_write': "atomic_open with the data at once",
    'lib.safeguards:output_stream': "atomic_open for results as they come; the commands and _translate_file check its path first"}

def _covered(k, via, own, seen=()) -> bool:
    "True if `k` is held to the rule here, or writes only through functions that are."
    if k in FILE_WRITERS or k in FOLDER_WRITERS or k in RUN_WRITERS or k in MEANS: return True
    if k in own: return False                                                  # it writes a file itself, unheld
    return k in seen or all(_covered(t, via, own, (*seen, k)) for t in via[k])

def test_the_list_of_public_writers_is_complete():
    "Every public function or method of the package that writes a file is held to the rule below (or writes only through one that is), and every one listed still writes."
    via, own = package_writers()
    listed = {*FILE_WRITERS, *FOLDER_WRITERS, *RUN_WRITERS, *MEANS}
    assert not (unheld := sorted(k for k in via if public(k) and not _covered(k, via, own))), f"public writers not held to check_output's rule: {unheld}"
    assert not (stale := sorted(listed - set(via))), f"listed as writers, but they write nothing: {stale}"
    assert {'lib.checkpoints:open_checkpoint', 'lib.trainer:Trainer.fit', 'apps.wmt14:WMT14Data.encoded'} <= set(via)   # through download_file, save_checkpoint, encoded_cache

@pytest.fixture(scope='module')
def kit(tmp_path_factory):
    "What the writers take besides their output: a tokenizer, two checkpoints of one run, two aligned text files, an empty export folder."
    from dataclasses import asdict
    import torch
    from transformer_nb.lib.tokens import StoredTokenizer
    from transformer_nb.lib.transformer import build_model
    from transformer_nb.lib.options import get_model_config
    from transformer_nb.lib.checkpoints import save_checkpoint
    d = tmp_path_factory.mktemp('writers')
    tok = StoredTokenizer.train(['eins zwei drei vier fünf', 'one two three four five'] * 20, vocab_size=24)
    torch.manual_seed(0); m = build_model(get_model_config('tiny', src_vocab=tok.vocab_size, tgt_vocab=tok.vocab_size))
    cks = [save_checkpoint(d / f"c{s}.pt", config=asdict(m.cfg), model=m.state_dict(), tokenizer=tok.to_bytes(), step=s, meta={'run': 'r1'})
           for s in (1, 2)]
    (d / 'src.txt').write_text('one two\nthree\n'); (d / 'tgt.txt').write_text('eins zwei\ndrei\n'); (d / 'export').mkdir()
    return types.SimpleNamespace(d=d, tok=tok, model=m, cks=cks, src=d / 'src.txt', tgt=d / 'tgt.txt', export=d / 'export')

def file_writer(name:str, k):
    "A call that writes the file `path` with the writer `name` (`overwrite` passed where it takes one)."
    import io, torch
    from transformer_nb.lib import checkpoints, trainer, records, safeguards, fast_decoding
    from transformer_nb.apps import export, wmt14, pretrained
    return {
        'lib.checkpoints:save_checkpoint': lambda p, ow: checkpoints.save_checkpoint(p, ow, step=10, w=torch.ones(2)),
        'lib.checkpoints:save_averaged': lambda p, ow: checkpoints.save_averaged(k.cks, p, ow),
        'lib.checkpoints:average_run': lambda p, ow: checkpoints.average_run(k.cks, p, overwrite=ow),
        'lib.tokens:_TokenizerBytes.save': lambda p, ow: k.tok.save(p, ow),
        'lib.trainer:plot_history': lambda p, ow: trainer.plot_history({'train': [{'step': 1, 'loss': 2.0}], 'valid': []}, p, overwrite=ow),
        'lib.trainer:Trainer.plot': lambda p, ow: trainer.Trainer.plot(types.SimpleNamespace(history={'train': [{'step': 1, 'loss': 2.0}], 'valid': []}), p, overwrite=ow),
        'lib.records:add_result': lambda p, ow: records.add_result(p, {'id': 'x'}, keys=()),   # a results file is added to: no overwrite
        'lib.safeguards:download_file': lambda p, ow: safeguards.download_file('http://127.0.0.1:9/x', p, '0' * 64, fetch=lambda u: io.BytesIO(b'x'), overwrite=ow),
        'lib.fast_decoding:_translate_file': lambda p, ow: fast_decoding._translate_file(k.model, k.tok, k.src, p, beam=1, overwrite=ow),
        'apps.export:translate_export': lambda p, ow: export.translate_export(k.export, ['one'], output=p, overwrite=ow),
        'apps.wmt14:download_resumable': lambda p, ow: wmt14.download_resumable('http://127.0.0.1:9/x', p, retries=0, overwrite=ow),
        'apps.pretrained:make_pretrained': lambda p, ow: pretrained.make_pretrained(k.cks[0], p, overwrite=ow),
    }[name]

def folder_writer(name:str, k):
    "(a call that writes into the folder `path` with the writer `name`, the name of a file it writes there, or None where it writes only names of its own making)."
    from transformer_nb.apps import export, wmt14, parsing_task
    def treebank(p, ow):
        wsj = k.d / 'wsj'
        for sec in range(25):
            (wsj / f"{sec:02d}").mkdir(parents=True, exist_ok=True)
            (wsj / f"{sec:02d}" / f"wsj_{sec:02d}01.mrg").write_text('( (S (NP (NN dog)) (VP (VBD ran)) (. .)) )\n')
        return parsing_task.write_treebank_files(wsj, p, overwrite=ow)
    def fetch(p, ow):
        sums = wmt14.sample_archives(k.d / 'mirror', overwrite=True)
        return wmt14.fetch_wmt14('en-de', p, archives=k.d / 'mirror', checksums=sums)
    return {
        'apps.export:export': (lambda p, ow: export.export(k.cks[0], p, overwrite=ow), 'model.bin'),
        'apps.export:export_ctranslate2': (lambda p, ow: export.export_ctranslate2(k.cks[0], p, overwrite=ow), 'model.bin'),
        'apps.export:export_onnx': (lambda p, ow: export.export_onnx(k.cks[0], p, overwrite=ow), 'encoder.onnx'),
        'apps.export:export_hf': (lambda p, ow: export.export_hf(k.cks[0], p, overwrite=ow), 'model.safetensors'),
        'apps.wmt14:sample_archives': (lambda p, ow: wmt14.sample_archives(p, overwrite=ow), 'dev.tgz'),
        'apps.wmt14:encode_to_disk': (lambda p, ow: wmt14.encode_to_disk(k.tok, k.src, k.tgt, p, overwrite=ow), 'encoded.json'),
        'apps.wmt14:encoded_cache': (lambda p, ow: wmt14.encoded_cache(k.tok, k.src, k.tgt, p), None),
        'apps.wmt14:fetch_wmt14': (fetch, 'wmt14-en-de/train.en'),
        'apps.parsing_task:write_treebank_files': (treebank, 'train.en'),
    }[name]

RUN_FILES = ('checkpoint-0000010.pt', 'log.jsonl', 'loss.png', '.lock')   # a run's checkpoint, log, curve and lock

def a_run(folder:Path) -> dict:
    "A run's folder, as tnb-train leaves it: {file: its bytes}."
    folder.mkdir(parents=True)
    for n in RUN_FILES: (folder / n).write_bytes(f"the run's {n}\n".encode())
    return {n: (folder / n).read_bytes() for n in RUN_FILES}

def refused(call, *needles):
    "`call()` refused in one line naming each of `needles`."
    with pytest.raises((ValueError, OSError)) as e: call()
    assert len(str(e.value).splitlines()) == 1 and all(n in str(e.value) for n in needles), str(e.value)

@pytest.mark.parametrize('name', FILE_WRITERS)
def test_a_public_file_writer_keeps_the_rule(name, kit, tmp_path):
    "Never through a symbolic link (to a user's file or to a run's checkpoint, even with overwrite), never over a user's file unasked, never onto a run's checkpoint, log, curve or lock (even with overwrite): refused in one line naming the path, nothing written."
    write = file_writer(name, kit)
    (tmp_path / 'mine.txt').write_text('mine\n'); run = a_run(tmp_path / 'run')
    (tmp_path / 'to-mine').symlink_to(tmp_path / 'mine.txt'); (tmp_path / 'to-ck').symlink_to(tmp_path / 'run' / RUN_FILES[0])
    for link in ('to-mine', 'to-ck'):
        for ow in (False, True): refused(lambda: write(tmp_path / link, ow), link)
    refused(lambda: write(tmp_path / 'mine.txt', False), 'mine.txt')
    for n in RUN_FILES: refused(lambda: write(tmp_path / 'run' / n, True), n)
    assert (tmp_path / 'mine.txt').read_text() == 'mine\n' and {n: (tmp_path / 'run' / n).read_bytes() for n in RUN_FILES} == run
    assert (tmp_path / 'to-mine').is_symlink() and (tmp_path / 'to-ck').is_symlink() and temps(tmp_path) == []
    try: os.mknod(tmp_path / 'full', 0o666 | stat.S_IFCHR, os.makedev(1, 7))          # a private /dev/full: a device is written in place, or refused,
    except OSError: return                                                             # never renamed over (as root, that replaced /dev/full itself)
    with contextlib.suppress(ValueError, OSError): write(tmp_path / 'full', True)
    assert stat.S_ISCHR(os.stat(tmp_path / 'full').st_mode) and temps(tmp_path) == []

@pytest.mark.parametrize('name', FOLDER_WRITERS)
def test_a_public_folder_writer_keeps_the_rule(name, kit, tmp_path):
    "Never into a folder through a symbolic link, never over a user's file among those it writes unasked; a run's folder keeps its checkpoint, log, curve and lock."
    write, file = folder_writer(name, kit)
    (tmp_path / 'mine').mkdir(); (tmp_path / 'mine' / 'notes.txt').write_text('mine\n'); (tmp_path / 'to-mine').symlink_to(tmp_path / 'mine')
    for ow in (False, True): refused(lambda: write(tmp_path / 'to-mine', ow), 'to-mine')
    assert [q.name for q in (tmp_path / 'mine').iterdir()] == ['notes.txt'] and (tmp_path / 'to-mine').is_symlink()
    if file is not None:
        (tmp_path / 'theirs' / file).parent.mkdir(parents=True); (tmp_path / 'theirs' / file).write_text('mine\n')
        refused(lambda: write(tmp_path / 'theirs', False), 'theirs')
        assert (tmp_path / 'theirs' / file).read_text() == 'mine\n'
    run = a_run(tmp_path / 'run')
    with contextlib.suppress(ValueError, OSError): write(tmp_path / 'run', True)   # refused, or written beside the run's files
    assert {n: (tmp_path / 'run' / n).read_bytes() for n in RUN_FILES} == run

# --- the guarantees, through the commands (real processes) ---------------------------------------------------------

def _reader(fifo):
    return subprocess.Popen(['cat', str(fifo)], stdout=subprocess.PIPE)

def _read(p, timeout=60):
    try: return p.communicate(timeout=timeout)[0]
    except subprocess.TimeoutExpired: p.kill(); return p.communicate()[0]

@pytest.mark.slow
def test_outputs_through_symlinks_fifos_and_devices(run, tmp_path):
    "A FIFO, a device and a link to one are written in place; a link to a file is refused, even with --overwrite: nothing is written through it."
    (tmp_path / 'target.txt').write_text('old\n'); (tmp_path / 'link.txt').symlink_to(tmp_path / 'target.txt')
    (tmp_path / 'null').symlink_to('/dev/null'); os.mkfifo(tmp_path / 'fifo')
    for more in ([], ['--overwrite']):
        one_line(tool('translate', run, 'a b', 'c', '--beam', '1', '-o', tmp_path / 'link.txt', *more), 'tnb-translate',
                 f"-o {tmp_path / 'link.txt'} is a symlink: refusing to write through it")
    assert (tmp_path / 'link.txt').is_symlink() and (tmp_path / 'target.txt').read_text() == 'old\n'
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
    (tmp_path / 'avg.pt').symlink_to(tmp_path / 'avg-target.pt')          # a link to a file yet to be written
    for more in ([], ['--overwrite']):
        one_line(tool('average', run, '--last', '2', '-o', tmp_path / 'avg.pt', *more), 'tnb-average', 'is a symlink: refusing to write through it')
    assert (tmp_path / 'avg.pt').is_symlink() and not (tmp_path / 'avg-target.pt').exists()
    assert temps(tmp_path) == []

@pytest.mark.slow
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

@pytest.mark.slow   # the command in a fresh process
def test_a_missing_folder_is_one_rule_in_the_library_and_the_commands(run, tmp_path):
    """A file is written only into a folder that is there, by a command and by the library alike (the library's writers
    once made the folders the commands refused): one line naming the folder, and nothing made. A folder a tool makes
    whole (a run, an export) is made with the folders above it, in both."""
    import io, torch
    from transformer_nb.lib.checkpoints import save_checkpoint, save_averaged
    from transformer_nb.lib.records import add_result
    from transformer_nb.lib.datasets import download_file
    from transformer_nb.lib.safeguards import check_parent
    missing = tmp_path / 'no' / 'such'
    ck = RunFolder(run).latest()
    said = lambda f: f"{missing / f}: the folder {missing} does not exist"
    for call, name, f in ((lambda: save_checkpoint(missing / 'c.pt', model={'w': torch.zeros(1)}), 'path', 'c.pt'),
                          (lambda: save_averaged([ck], missing / 'avg.pt'), 'out_path', 'avg.pt'),
                          (lambda: add_result(missing / 'r.json', {'id': 'x', 'bleu': 1.0}, keys=('bleu',)), 'path', 'r.json'),
                          (lambda: download_file('http://127.0.0.1:9/x', missing / 'x.gz', '0' * 64, fetch=lambda u: io.BytesIO(b'x')), 'dest', 'x.gz')):
        with pytest.raises(UserError) as e: call()
        assert str(e.value) == f"{name} {said(f)}", str(e.value)
    (tmp_path / 'afile').write_text('x')
    with pytest.raises(UserError, match=f"out {tmp_path / 'afile' / 'x.pt'}: {tmp_path / 'afile'} is a file, not a folder"):
        check_parent(tmp_path / 'afile' / 'x.pt', 'out')
    one_line(tool('average', run, '--last', '2', '-o', missing / 'avg.pt'), 'tnb-average', f"-o {said('avg.pt')}")
    assert not (tmp_path / 'no').exists()
    assert check_folder(tmp_path / 'made' / 'run') == tmp_path / 'made' / 'run' and (tmp_path / 'made' / 'run').is_dir()   # a folder: made

def _no_big_files():
    import resource
    resource.setrlimit(resource.RLIMIT_FSIZE, (64, resource.RLIM_INFINITY))    # a real EFBIG past 64 bytes
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)

@pytest.mark.slow
def test_a_failed_write_keeps_the_old_file_and_leaves_no_temporary_file(run, tmp_path):
    out = tmp_path / 'out.txt'; out.write_text('the previous translation\n')
    r = tool('translate', run, *['a b c d e f g h'] * 100, '--beam', '1', '-o', out, '--overwrite', preexec_fn=_no_big_files)   # asked to replace it
    one_line(r, 'tnb-translate', 'File too large')
    assert out.read_text() == 'the previous translation\n' and temps(tmp_path) == []

@pytest.mark.slow
@pytest.mark.skipif(not os.path.exists('/dev/full'), reason='no /dev/full here')
def test_a_full_device_fails_the_run_in_one_line_naming_the_output(run):
    "/dev/full takes no byte (ENOSPC): the disk failed, not the command, so exit 1, and the line names the output."
    one_line(tool('translate', run, 'a b', '--beam', '1', '-o', '/dev/full'), 'tnb-translate', '/dev/full: No space left on device', code=1)
    with open('/dev/full', 'wb') as full:
        r = subprocess.run(cmd('translate', run, 'a b', '--beam', '1'), stdout=full, stderr=subprocess.PIPE, env=ENV, timeout=300, text=True)
    one_line(r, 'tnb-translate', 'standard output: No space left on device', code=1)

@pytest.mark.slow
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

SEPARATORS = ['\x0b', '\x0c', '\x1c', '\x1d', '\x1e', '\x85', '\u2028', '\u2029']

@pytest.mark.slow
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

@pytest.mark.slow
def test_undecodable_input_names_stream_line_and_offset(run, tmp_path):
    bad = b'a b\nc \xff d\n'
    one_line(tool('translate', run, stdin=bad), 'tnb-translate',
             "standard input, line 2: invalid UTF-8 (invalid start byte: byte b'\\xff' at offset 6)")
    (tmp_path / 'bad.txt').write_bytes(bad)
    one_line(tool('translate', run, '-i', tmp_path / 'bad.txt'), 'tnb-translate', f"{tmp_path}/bad.txt, line 2: invalid UTF-8")
    (tmp_path / 'ok.txt').write_text('a\nb\n')
    one_line(tool('evaluate', run, '--src', tmp_path / 'bad.txt', '--ref', tmp_path / 'ok.txt'), 'tnb-evaluate', 'bad.txt, line 2')

@pytest.mark.slow
def test_an_input_that_is_a_folder_or_a_stream(run, tmp_path):
    one_line(tool('translate', run, '-i', tmp_path), 'tnb-translate', f'-i {tmp_path} is a folder; give a text file')
    r = tool('translate', run, '--beam', '1', '-i', '/dev/stdin', stdin=b'a b\nc\n')       # a stream named as a file
    assert r.returncode == 0 and r.stdout.count(b'\n') == 2, r.stderr

def snapshot(*paths) -> dict: return {str(p): Path(p).read_bytes() for p in paths}

@pytest.mark.slow
def test_translate_never_writes_over_its_inputs(run, texts):
    "-o is compared with every file the command reads, by real path and by inode, before any work; nothing changes."
    ck = RunFolder(run).latest()
    (texts / 'link.txt').symlink_to(texts / 'x.txt'); os.link(texts / 'x.txt', texts / 'hard.txt')
    before = snapshot(ck, texts / 'x.txt', run / 'loss.png')
    for args, needle in [((run, 'five', '-o', ck), 'a checkpoint-<step>.pt name would pass this file off'),   # the model itself
                         ((run, '-i', texts / 'x.txt', '-o', texts / 'x.txt'), 'would overwrite -i'),     # its source
                         ((run, '-i', texts / 'x.txt', '-o', texts / 'link.txt'), 'would overwrite -i'),  # through a symlink
                         ((run, '-i', texts / 'x.txt', '-o', texts / 'hard.txt'), 'would overwrite -i'),  # a hard link
                         ((ck, 'a', '-o', run / 'loss.png'), f'is the loss.png of the training run in {run}'),
                         ((ck, 'a', '-o', run / 'loss.png', '--overwrite'), 'is the loss.png of the training run'),   # a run's file: never
                         ((run, 'a', '-o', run / 'average.pt', '--overwrite'), 'is the average.pt of the training run'),
                         ((run, 'a', '-o', texts / 'checkpoint-0000999.pt'), 'a checkpoint-<step>.pt name')]:
        one_line(tool('translate', *args, '--beam', '1'), 'tnb-translate', needle)
    assert snapshot(ck, texts / 'x.txt', run / 'loss.png') == before
    assert not (texts / 'checkpoint-0000999.pt').exists()

@pytest.mark.slow
def test_evaluate_never_writes_over_its_inputs(run, texts):
    before = snapshot(texts / 'src.txt', texts / 'ref.txt', RunFolder(run).latest())
    base = (run, '--src', texts / 'src.txt', '--ref', texts / 'ref.txt', '--beam', '1')
    for extra, needle in [(('--hyp-out', texts / 'ref.txt'), f"--hyp-out {texts / 'ref.txt'} would overwrite --ref"),
                          (('--hyp-out', texts / 'src.txt'), 'would overwrite --src'),
                          (('--record', RunFolder(run).latest()), 'a checkpoint-<step>.pt name would pass this file off'),
                          (('--hyp-out', texts / 'h.json', '--record', texts / 'h.json'), 'are the same file')]:
        one_line(tool('evaluate', *base, *extra), 'tnb-evaluate', needle)
    assert snapshot(texts / 'src.txt', texts / 'ref.txt', RunFolder(run).latest()) == before
    assert not (texts / 'h.json').exists()

@pytest.mark.slow
def test_train_never_writes_over_its_corpus(tmp_path, texts):
    "A corpus file that is one of the files a run writes into --out (its loss curve, its log) is refused before training."
    out = tmp_path / 'out'; out.mkdir(); shutil.copy(texts / 'src.txt', out / 'loss.png')
    r = tool('train', '--dataset', 'files', '--train', out / 'loss.png', texts / 'ref.txt', '--out', out, '--steps', '2',
             '--preset', 'tiny', '--no-progress', '--test-limit', '0')
    one_line(r, 'tnb-train', f"--train {out / 'loss.png'} ", f"--out {out}: move it, or choose another folder")
    assert (out / 'loss.png').read_bytes() == (texts / 'src.txt').read_bytes()

@pytest.mark.slow
def test_a_gzip_bomb_and_a_tiny_vocabulary_get_one_line_in_our_terms(run, tmp_path):
    import gzip
    bomb = tmp_path / 'test.de.gz'; bomb.write_bytes(gzip.compress(b'a b\n' * (40 << 20), compresslevel=9))   # 160 MiB in ~160 KiB
    r = tool('evaluate', run, '--src', bomb, '--ref', bomb, timeout=120)
    one_line(r, 'tnb-evaluate', f'{bomb}: expands to more than', 'over 200 times its size')
    r = tool('translate', run, '-i', bomb, timeout=120)                         # streamed, and refused before decoding
    one_line(r, 'tnb-translate', f'-i {bomb}: expands to more than', 'over 200 times its size'); assert not r.stdout
    src, tgt = tmp_path / 'train.src', tmp_path / 'train.tgt'
    src.write_text('wö ä ü ß 中 é\n' * 20); tgt.write_text('x y\n' * 20)
    r = tool('train', '--dataset', 'files', '--train', src, tgt, '--vocab-size', '8', '--byte-fallback', '--out', tmp_path / 'r',
             '--steps', '2', '--no-progress', '--test-limit', '0')
    line = one_line(r, 'tnb-train', 'a vocabulary of 8 pieces is too small', '--vocab-size 8', '--no-byte-fallback')
    assert 'character_coverage' not in line and '.cc' not in line, line       # never SentencePiece's own options and sources
