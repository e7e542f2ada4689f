"""Safeguards (A4_safeguards): fast unit tests of each public function, then the guarantees they give the commands,
checked with real processes (marked slow): outputs checked before any work, written whole or not at all, through
symlinks, FIFOs and devices, never over an input; inputs split on newlines only, decoded with the line and offset of a
bad byte, a gzip bomb refused."""
import os, shutil, signal, stat, subprocess, sys
from pathlib import Path
import pytest
from transformer_nb.checkpoints import load_checkpoint
from transformer_nb.runs import RunFolder
from conftest import ENV, cmd, tool, one_line, temps

#UNIT#


# --- the guarantees, through the commands (real processes) ---------------------------------------------------------

def _reader(fifo):
    return subprocess.Popen(['cat', str(fifo)], stdout=subprocess.PIPE)

def _read(p, timeout=60):
    try: return p.communicate(timeout=timeout)[0]
    except subprocess.TimeoutExpired: p.kill(); return p.communicate()[0]

@pytest.mark.slow
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

def _no_big_files():
    import resource
    resource.setrlimit(resource.RLIMIT_FSIZE, (64, resource.RLIM_INFINITY))    # a real EFBIG past 64 bytes
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)

@pytest.mark.slow
def test_a_failed_write_keeps_the_old_file_and_leaves_no_temporary_file(run, tmp_path):
    out = tmp_path / 'out.txt'; out.write_text('the previous translation\n')
    r = tool('translate', run, *['a b c d e f g h'] * 100, '--beam', '1', '-o', out, preexec_fn=_no_big_files)
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
    for args, needle in [((run, 'five', '-o', ck), f'would overwrite a checkpoint of the run folder {ck}'),               # the model itself
                         ((run, '-i', texts / 'x.txt', '-o', texts / 'x.txt'), 'would overwrite -i'),     # its source
                         ((run, '-i', texts / 'x.txt', '-o', texts / 'link.txt'), 'would overwrite -i'),  # through a symlink
                         ((run, '-i', texts / 'x.txt', '-o', texts / 'hard.txt'), 'would overwrite -i'),  # a hard link
                         ((ck, 'a', '-o', run / 'loss.png'), 'would overwrite a file of the run folder'),
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
                          (('--record', RunFolder(run).latest()), 'would overwrite a checkpoint of the run folder'),
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
    one_line(r, 'tnb-train', f"--train {out / 'loss.png'} is {out / 'loss.png'}, a file this run writes")
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
             '--no-progress', '--test-limit', '0')
    line = one_line(r, 'tnb-train', 'a vocabulary of 8 pieces is too small', '--vocab-size', '--no-byte-fallback')
    assert 'character_coverage' not in line and '.cc' not in line, line       # never SentencePiece's own options and sources
