"The line readers of `safeguards` (lib_safeguards): every reader splits a file into the same lines, whatever ends them."
import io, subprocess
import pytest
from transformer_nb.lib.safeguards import decode_lines, iter_lines, read_text_lines, _read_stdin_lines
from transformer_nb.lib.datasets import read_lines, read_parallel

MAC, DOS, UNIX = b'one two\rthree\rfour\r', b'one two\r\nthree\r\nfour\r\n', b'one two\nthree\nfour\n'


@pytest.mark.parametrize('data', [MAC, DOS, UNIX, MAC[:-1]])
def test_every_reader_splits_classic_mac_text(tmp_path, data):
    "A lone '\\r' (classic Mac text) ends a line: two sentences are never merged into one."
    f = tmp_path / 'x.txt'; f.write_bytes(data)
    want = ['one two', 'three', 'four']
    assert decode_lines(data) == want
    assert read_text_lines(f) == want and read_lines(f) == want
    assert _read_stdin_lines(io.BytesIO(data)) == want
    for size in (1, 2, 3, 1 << 16): assert list(iter_lines(io.BytesIO(data), 'x', size=size)) == want


@pytest.mark.parametrize('data', [b'seven\rnine\nthree\n', b'seven\rnine\r\nthree', b'seven\rnine\nthree\r'])
def test_a_stray_carriage_return_stays_inside_its_line(tmp_path, data):
    "Where '\\n' ends lines, a '\\r' inside one is a character of it: every reader gives the lines `wc -l` counts."
    f = tmp_path / 'x.txt'; f.write_bytes(data)
    want = ['seven\rnine', 'three']
    assert decode_lines(data) == want and read_text_lines(f) == want and read_lines(f) == want
    assert _read_stdin_lines(io.BytesIO(data)) == want
    for size in (1, 2, 3, 1 << 16): assert list(iter_lines(io.BytesIO(data), 'x', size=size)) == want


def test_error_lines_count_mac_breaks():
    with pytest.raises(ValueError, match='x.txt, line 3: invalid UTF-8'): decode_lines(b'a\rb\r\xff\r', 'x.txt')
    with pytest.raises(ValueError, match='x.txt, line 2: a NUL byte'): decode_lines(b'a\rb\0\r', 'x.txt')


def test_parallel_mac_files_stay_aligned(tmp_path):
    (tmp_path / 's').write_bytes(b'eins\rzwei\r'); (tmp_path / 't').write_bytes(b'one\ntwo\n')
    assert read_parallel(tmp_path / 's', tmp_path / 't') == [('eins', 'one'), ('zwei', 'two')]


@pytest.mark.slow
def test_translate_reads_mac_lines(tmp_path):
    "tnb-translate gives one output line per Mac input line (-i and standard input)."
    f = tmp_path / 'in.en'; f.write_bytes(b'three\rfour\r')
    for args, inp in ((['-i', str(f)], None), ([], b'three\rfour\r')):
        r = subprocess.run(['tnb-translate', 'pretrained:numbers', '--beam', '1', *args], input=inp, capture_output=True)
        assert r.returncode == 0, r.stderr
        assert r.stdout.decode().splitlines() == ['drei', 'vier'], r.stdout


def test_a_long_mac_file_is_not_one_long_line():
    "The bound on a line's length counts a lone '\\r' as a line break: a classic Mac file is not refused as one huge line."
    from transformer_nb.lib.safeguards import _read_stream, UserError
    data = b'abcdefgh\r' * 50
    assert decode_lines(_read_stream(io.BytesIO(data), 'mac.txt', max_line=20, size=7)) == ['abcdefgh'] * 50
    with pytest.raises(UserError, match='mac.txt, line 3: longer than'): _read_stream(io.BytesIO(b'a\rb\r' + b'x' * 50), 'mac.txt', max_line=20, size=7)
