"""WMT14 at the paper's scale (apps_wmt14): the download against a loopback server that serves small archives laid out like
the real ones (never the network), resumed after a broken connection, refused when damaged or unverifiable, unpacked
whole or not at all; the paper's recipes, number by number; the time-based checkpoints and the update size; and the
on-disk data path a `Trainer` reads."""
import errno, gzip, hashlib, io, json, os, re, shlex, subprocess, sys, tarfile
from pathlib import Path
import numpy as np
import pytest
from conftest import ENV, ROOT
from transformer_nb.apps.wmt14 import (WMT14_ARCHIVES, WMT14_PAIRS, pair_archives, sample_archives, serve_folder, fetch_wmt14,
                                  download_resumable, sgm_lines, paper_recipe, sample_lines, encode_to_disk, EncodedCorpus,
                                  iter_pairs, ChecksumMismatch, TrainFiles)
from transformer_nb.lib.safeguards import UserError

@pytest.fixture(scope='module')
def mirror(tmp_path_factory):
    "A folder of small en-de archives laid out like the real ones, and their test-only checksum table."
    d = tmp_path_factory.mktemp('mirror')
    return d, sample_archives(d, 'en-de', n=12, seed=1)

def leftovers(folder:Path) -> list[str]:
    "Hidden work folders or .part files anywhere under `folder`."
    return sorted(p.name for p in Path(folder).rglob('*') if p.name.startswith('.wmt14') or p.name.endswith('.part'))

def members(path:Path) -> dict:
    with tarfile.open(path) as t: return {m.name: t.extractfile(m).read() for m in t if m.isfile()}

# The published pins: TensorFlow Datasets' url_checksums/wmt14_translate.txt and wmt15_translate.txt (URL, size, SHA-256)
TFDS = {'training-parallel-europarl-v7.tgz': (657632379, '0224c7c710c8a063dfd893b0cc0830202d61f4c75c17eb8e31836103d27d96e7'),
        'training-parallel-commoncrawl.tgz': (918311367, 'c7a74e2ea01ac6c920123108627e35278d4ccb5701e15428ffa34de86fa3a9e5'),
        'training-parallel-nc-v9.tgz': (80418416, 'cb8953f292298e6877ae433c98912b927cb0766b303f4540512ddd286c748485'),
        'training-parallel-un.tgz': (2365634246, '29141b5c1eba149a94f7a59d3b1a834b2e47fe0f8758d68dcd77a3d3f497ee47'),
        'training-giga-fren.tar': (2595102720, '3ff8319f6919393520559bfbc7ad6a747ec81b3abc7be9993b338d4b017b4d9a'),
        'dev.tgz': (38654961, '7a7deccf82ebb05ba508dba5eb21356492224e8f630ec4f992132b029b4b25e7')}

def test_every_archive_is_pinned_by_a_published_checksum():
    "Each archive of both pairs: the size and SHA-256 TensorFlow Datasets publishes for it, or sacreBLEU's MD5 for the same file at the same address."
    from sacrebleu.dataset import DATASETS
    assert set(WMT14_ARCHIVES) == {a.name for p in WMT14_PAIRS for a in pair_archives(p)} == set(TFDS) | {'test-full.tgz'}
    for name, (size, sha) in TFDS.items():
        a = WMT14_ARCHIVES[name]
        assert (a.size, a.sha256, a.md5) == (size, sha, None) and "TensorFlow Datasets' url_checksums/wmt1" in a.source, a
    assert WMT14_ARCHIVES['dev.tgz'].url == 'https://data.statmt.org/wmt19/translation-task/dev.tgz'     # where TFDS reads newstest2013
    assert all(a.url.startswith('https://www.statmt.org/wmt1') for n, a in WMT14_ARCHIVES.items() if n.startswith('training-'))
    full, a = DATASETS['wmt14/full'], WMT14_ARCHIVES['test-full.tgz']
    assert (full.data, full.md5) == ([a.url], [a.md5]) and "sacreBLEU's dataset table" in a.source      # the installed sacreBLEU's own table
    assert all(a.url.rsplit('/', 1)[1] == a.name for a in WMT14_ARCHIVES.values())
    assert [n for n, _ in WMT14_PAIRS['en-fr']['train']] == ['training-parallel-europarl-v7.tgz', 'training-parallel-commoncrawl.tgz',
        'training-parallel-un.tgz', 'training-parallel-nc-v9.tgz', 'training-giga-fren.tar']

def test_download_over_loopback_gives_the_archives_lines(mirror, tmp_path):
    d, sums = mirror
    with serve_folder(d) as srv:
        out = fetch_wmt14('en-de', tmp_path, base_url=srv.url, checksums=sums)
    assert {p for p, _ in srv.log} == {f"/{a.name}" for a in pair_archives('en-de')}
    ep = members(d / 'training-parallel-europarl-v7.tgz')
    cc = members(d / 'training-parallel-commoncrawl.tgz'); nc = members(d / 'training-parallel-nc-v9.tgz')
    want = lambda lang: (ep[f'training/europarl-v7.de-en.{lang}'] + cc[f'commoncrawl.de-en.{lang}'] + nc[f'training/news-commentary-v9.de-en.{lang}']).decode()
    assert (out / 'train.en').read_text() == want('en') and (out / 'train.de').read_text() == want('de')
    dev, test = members(d / 'dev.tgz'), members(d / 'test-full.tgz')
    assert (out / 'valid.de').read_text() == dev['dev/newstest2013.de'].decode()
    assert (out / 'test.en').read_text().splitlines() == sgm_lines(test['test-full/newstest2014-deen-src.en.sgm'])
    man = json.loads((out / 'MANIFEST.json').read_text())
    assert man['splits'] == {'train': 36, 'valid': 12, 'test': 12}
    assert {n: a['sha256'] for n, a in man['archives'].items()} == sums and {a['checked'] for a in man['archives'].values()} == {'sha256'}
    assert leftovers(tmp_path) == []
    assert fetch_wmt14('en-de', tmp_path) == out                             # complete: nothing to do, no network asked

def test_en_fr_reads_gigaword_gzipped_inside_its_tar(tmp_path):
    sums = sample_archives(tmp_path / 'm', 'en-fr', n=4)
    out = fetch_wmt14('en-fr', tmp_path / 'out', archives=tmp_path / 'm', checksums=sums)
    giga = members(tmp_path / 'm' / 'training-giga-fren.tar')
    assert (out / 'train.fr').read_text().endswith(gzip.decompress(giga['giga-fren.release2.fixed.fr.gz']).decode())
    assert json.loads((out / 'MANIFEST.json').read_text())['splits'] == {'train': 20, 'valid': 4, 'test': 4}

def test_a_broken_connection_resumes_with_a_range_request(mirror, tmp_path):
    d, sums = mirror
    name = 'training-parallel-europarl-v7.tgz'
    with serve_folder(d, break_after={name: 300}) as srv:
        with pytest.raises(OSError, match='keeps the 300 bytes'):
            download_resumable(f"{srv.url}/{name}", tmp_path / name, ('sha256', sums[name]), retries=0)
        assert (tmp_path / f"{name}.part").stat().st_size == 300
        assert download_resumable(f"{srv.url}/{name}", tmp_path / name, ('sha256', sums[name]), retries=0) == sums[name]
    assert srv.log == [(f"/{name}", None), (f"/{name}", 'bytes=300-')]
    assert (tmp_path / name).read_bytes() == (d / name).read_bytes() and leftovers(tmp_path) == []
    with serve_folder(d, break_after={'dev.tgz': 50}) as srv:                # within one call: it tries again by itself
        out = fetch_wmt14('en-de', tmp_path / 'all', base_url=srv.url, checksums=sums, retries=1)
    assert ('/dev.tgz', 'bytes=50-') in srv.log and (out / 'valid.en').is_file()

def test_a_damaged_archive_is_refused_and_nothing_is_left(mirror, tmp_path):
    d, sums = mirror
    bad = tmp_path / 'bad'; bad.mkdir()
    for n in sums: (bad / n).write_bytes((d / n).read_bytes())
    data = bytearray((bad / 'training-parallel-commoncrawl.tgz').read_bytes()); data[len(data) // 2] ^= 0xFF
    (bad / 'training-parallel-commoncrawl.tgz').write_bytes(bytes(data))
    with serve_folder(bad) as srv, pytest.raises(ChecksumMismatch, match='commoncrawl.tgz: sha256 is .* expected'):
        fetch_wmt14('en-de', tmp_path / 'out', base_url=srv.url, checksums=sums)
    assert not (tmp_path / 'out' / 'wmt14-en-de').exists() and leftovers(tmp_path / 'out') == []
    assert not (tmp_path / 'out' / 'archives' / 'training-parallel-commoncrawl.tgz').exists()
    with pytest.raises(ChecksumMismatch):                                    # the same from a folder the user has
        fetch_wmt14('en-de', tmp_path / 'own', archives=bad, checksums=sums)
    assert (bad / 'training-parallel-commoncrawl.tgz').exists() and not (tmp_path / 'own' / 'wmt14-en-de').exists()

def test_an_archive_that_cannot_be_unpacked_leaves_no_half_corpus(mirror, tmp_path):
    d, sums = mirror
    own = tmp_path / 'own'; own.mkdir()
    for n in sums: (own / n).write_bytes((d / n).read_bytes())
    with tarfile.open(own / 'training-parallel-nc-v9.tgz', 'w:gz') as t:       # verified (its checksum given), yet misaligned
        for lang, text in (('en', b'a\nb\n'), ('de', b'a\n')):
            info = tarfile.TarInfo(f'training/news-commentary-v9.de-en.{lang}'); info.size = len(text); t.addfile(info, io.BytesIO(text))
    sums = {**sums, 'training-parallel-nc-v9.tgz': __import__('hashlib').sha256((own / 'training-parallel-nc-v9.tgz').read_bytes()).hexdigest()}
    with pytest.raises(UserError, match='2 en lines but 1 de lines'):
        fetch_wmt14('en-de', tmp_path / 'out', archives=own, checksums=sums)
    assert os.listdir(tmp_path / 'out') == [] if (tmp_path / 'out').exists() else True

def test_without_a_checksum_nothing_is_used_unless_trusted(mirror, tmp_path, monkeypatch):
    "An archive the package holds no checksum for (here: every one, as for a table of unpublished files) is refused before any download, unless the user gives one or trusts it."
    from transformer_nb.apps import wmt14
    d, sums = mirror
    monkeypatch.setattr(wmt14, 'WMT14_ARCHIVES', {n: wmt14.Archive(n, a.url) for n, a in WMT14_ARCHIVES.items()})
    with serve_folder(d) as srv:
        with pytest.raises(UserError, match='--checksums FILE, or accept it unverified with --trust-unverified'):
            fetch_wmt14('en-de', tmp_path / 'a', base_url=srv.url, checksums={'test-full.tgz': sums['test-full.tgz']})
        assert srv.log == []                                                 # refused before a byte was asked for
        out = fetch_wmt14('en-de', tmp_path / 'b', base_url=srv.url, checksums={'test-full.tgz': sums['test-full.tgz']}, trust_unverified=True)
    man = json.loads((out / 'MANIFEST.json').read_text())
    assert {n: a['checked'] for n, a in man['archives'].items()} == {n: 'trusted' for n in sums} | {'test-full.tgz': 'sha256'}
    assert {n: a['sha256'] for n, a in man['archives'].items()} == sums

def test_the_published_size_refuses_another_file_before_its_body(mirror, tmp_path):
    "Without --checksums the package's pins hold: a server offering the small archive instead of europarl's 657,632,379 bytes is refused at its headers, and a file of another size on disk before it is hashed."
    d, sums = mirror
    with serve_folder(d) as srv, pytest.raises(ChecksumMismatch, match=r'offers [\d,]+ bytes, expected 657,632,379 \(TensorFlow Datasets'):
        fetch_wmt14('en-de', tmp_path / 'a', base_url=srv.url)
    assert srv.log == [('/training-parallel-europarl-v7.tgz', None)] and leftovers(tmp_path) == []
    assert not (tmp_path / 'a' / 'archives' / 'training-parallel-europarl-v7.tgz').exists()
    with pytest.raises(ChecksumMismatch, match=r'training-parallel-europarl-v7.tgz: \d+ bytes, expected 657,632,379'):
        fetch_wmt14('en-de', tmp_path / 'b', archives=d)

def test_the_package_md5_of_the_test_set_is_checked(mirror, tmp_path):
    "test-full.tgz has a published MD5: the small one here does not match it, so it is refused even when trusting the rest."
    d, sums = mirror
    with pytest.raises(ChecksumMismatch, match='test-full.tgz: md5 is'):
        fetch_wmt14('en-de', tmp_path, archives=d, checksums={k: v for k, v in sums.items() if k != 'test-full.tgz'}, trust_unverified=True)

def rebuild(folder:Path, arch:str, members:dict, mode:str='w:gz') -> str:
    "Write the archive `arch` in `folder` anew with `members` ({name: bytes, or a TarInfo for a link or special member}); its SHA-256."
    with tarfile.open(folder / arch, mode) as t:
        for name, data in members.items():
            if isinstance(data, tarfile.TarInfo): t.addfile(data)
            else: info = tarfile.TarInfo(name); info.size = len(data); t.addfile(info, io.BytesIO(data))
    return hashlib.sha256((folder / arch).read_bytes()).hexdigest()

def own_copy(mirror, tmp_path) -> tuple[Path, dict]:
    d, sums = mirror
    own = tmp_path / 'own'; own.mkdir()
    for n in sums: (own / n).write_bytes((d / n).read_bytes())
    return own, dict(sums)

def test_lines_are_split_at_newline_alone(mirror, tmp_path):
    "U+2028, U+0085 and a lone '\r' inside a Common Crawl line are no line breaks (str.splitlines() took them for some, shifting every later pair); a CRLF's '\r' is dropped."
    own, sums = own_copy(mirror, tmp_path)
    en = 'one\u2028two\nthree\x85four\nfive\rsix\nseven\u2029eight\x1cnine\n'
    de = 'eins\r\ndrei\r\nfünf\r\nsieben'                             # CRLF, and no '\n' after the last line
    sums['training-parallel-commoncrawl.tgz'] = rebuild(own, 'training-parallel-commoncrawl.tgz',
                                                        {'commoncrawl.de-en.en': en.encode(), 'commoncrawl.de-en.de': de.encode()})
    out = fetch_wmt14('en-de', tmp_path / 'out', archives=own, checksums=sums)
    man = json.loads((out / 'MANIFEST.json').read_text())
    assert [p['pairs'] for p in man['parts'] if p['split'] == 'train'] == [12, 4, 12]
    src = (out / 'train.en').read_bytes().decode().split('\n')[12:16]
    tgt = (out / 'train.de').read_bytes().decode().split('\n')[12:16]
    assert src == ['one\u2028two', 'three\x85four', 'five six', 'seven\u2029eight\x1cnine'] and tgt == ['eins', 'drei', 'fünf', 'sieben']
    data = __import__('transformer_nb.apps.tasks', fromlist=['get_task']).get_task('wmt14').load('wmt14', data_dir=out)
    pairs = list(data.train)
    assert pairs[12:16] == list(zip(src, tgt)) and len(pairs) == 28   # aligned to the end

def test_a_trailing_cr_and_chunk_boundaries_do_not_move_lines():
    "The member is decoded a chunk at a time: a CRLF, a multi-byte character or a byte-order mark cut by a chunk's end reads the same."
    from transformer_nb.apps.wmt14 import _copy_lines
    data = '\ufeffa\r\nÿ\u2028€\r\n\r\nx\ry\r'.encode()
    def copy(chunk):
        out = io.StringIO(); n = _copy_lines(io.BytesIO(data), out, 'm', chunk); return out.getvalue(), n
    assert {copy(k) for k in (1, 2, 3, 5, 1 << 20)} == {('a\nÿ\u2028€\n\nx y\n', 4)}
    with pytest.raises(UserError, match=r'^m, line 3: invalid UTF-8'):
        _copy_lines(io.BytesIO(b'a\nb\n\xc3('), io.StringIO(), 'm', 2)

KINDS = {'symbolic link': tarfile.SYMTYPE, 'hard link': tarfile.LNKTYPE, 'folder': tarfile.DIRTYPE, 'FIFO': tarfile.FIFOTYPE,
         'character device': tarfile.CHRTYPE, 'block device': tarfile.BLKTYPE}

@pytest.mark.parametrize('kind', KINDS)
def test_a_link_or_special_member_is_refused_in_one_line(mirror, tmp_path, kind):
    own, sums = own_copy(mirror, tmp_path)
    name = 'training/news-commentary-v9.de-en.en'
    info = tarfile.TarInfo(name); info.type = KINDS[kind]
    if kind in ('symbolic link', 'hard link'): info.linkname = 'training/news-commentary-v9.de-en.de'
    sums['training-parallel-nc-v9.tgz'] = rebuild(own, 'training-parallel-nc-v9.tgz', {'training/news-commentary-v9.de-en.de': b'a\n', name: info})
    with pytest.raises(UserError, match=f"training-parallel-nc-v9.tgz: its member {name} is a {kind}, not a file: not the WMT14 archive"):
        fetch_wmt14('en-de', tmp_path / 'out', archives=own, checksums=sums)
    assert not (tmp_path / 'out' / 'wmt14-en-de').exists() and leftovers(tmp_path / 'out') == []

def test_an_archive_that_matched_its_checksum_yet_is_damaged_is_refused(tmp_path):
    "A tgz cut short, a file that is no tar at all, a gzip of no tar, and Gigaword's inner .gz cut short: each verified by the checksum given, each refused in one line naming the archive."
    d = tmp_path / 'm'; base = sample_archives(d, 'en-fr', n=4)
    whole = (d / 'training-parallel-nc-v9.tgz').read_bytes()
    giga = {n: gzip.compress(b'x\n' * 50000) for n in ('giga-fren.release2.fixed.en.gz', 'giga-fren.release2.fixed.fr.gz')}
    cases = {'cut': ('training-parallel-nc-v9.tgz', whole[:len(whole) // 2]), 'random': ('training-parallel-nc-v9.tgz', os.urandom(3000)),
             'gzip': ('training-parallel-nc-v9.tgz', gzip.compress(b'no tar here\n' * 100))}
    for case, (arch, data) in cases.items():
        own = tmp_path / case; own.mkdir()
        for n in base: (own / n).write_bytes((d / n).read_bytes())
        (own / arch).write_bytes(data)
        sums = {**base, arch: hashlib.sha256(data).hexdigest()}
        with pytest.raises(UserError, match=f"{re.escape(str(own / arch))}: not a whole tar archive"):
            fetch_wmt14('en-fr', tmp_path / f"out-{case}", archives=own, checksums=sums)
    own = tmp_path / 'giga'; own.mkdir()
    for n in base: (own / n).write_bytes((d / n).read_bytes())
    giga['giga-fren.release2.fixed.fr.gz'] = giga['giga-fren.release2.fixed.fr.gz'][:-30]        # its inner gzip cut short
    sums = {**base, 'training-giga-fren.tar': rebuild(own, 'training-giga-fren.tar', giga, 'w')}
    with pytest.raises(UserError, match='training-giga-fren.tar: not a whole tar archive'):
        fetch_wmt14('en-fr', tmp_path / 'out-giga', archives=own, checksums=sums)
    assert not any((tmp_path / f"out-{c}" / 'wmt14-en-fr').exists() for c in [*cases, 'giga'])

def test_a_corpus_folder_tnb_data_did_not_write_is_refused_before_any_download(mirror, tmp_path):
    d, sums = mirror
    mine = tmp_path / 'wmt14-en-de'; mine.mkdir(); (mine / 'notes.txt').write_text('mine')
    with serve_folder(d) as srv, pytest.raises(ValueError, match=r'holds wmt14-en-de, which is not a corpus tnb-data wrote \(no MANIFEST.json\)'):
        fetch_wmt14('en-de', tmp_path, base_url=srv.url, checksums=sums)
    assert srv.log == [] and sorted(os.listdir(tmp_path)) == ['wmt14-en-de'] and (mine / 'notes.txt').read_text() == 'mine'
    (mine / 'notes.txt').unlink()                                            # an empty folder is taken
    assert (fetch_wmt14('en-de', tmp_path, archives=d, checksums=sums) / 'MANIFEST.json').is_file()

def test_a_dest_that_is_a_symlink_is_refused_before_any_download(mirror, tmp_path):
    "Written through, a link as DEST would fill the folder it points to: refused in one line, nothing fetched or written."
    d, sums = mirror
    target = tmp_path / 'elsewhere'; target.mkdir(); link = tmp_path / 'data'; link.symlink_to(target)
    with serve_folder(d) as srv, pytest.raises(UserError, match=r'^DEST .*/data is a symlink: refusing to write through it'):
        fetch_wmt14('en-de', link, base_url=srv.url, checksums=sums)
    assert srv.log == [] and list(target.iterdir()) == []

def test_a_full_disk_while_unpacking_keeps_nothing(mirror, tmp_path, monkeypatch):
    "The disk fills up while the corpus is written: the disk's error, naming the folder, with nothing of the corpus left (exit code 1 from the command)."
    from transformer_nb.apps import wmt14
    d, sums = mirror
    class Full(io.StringIO):
        def write(self, s): raise OSError(errno.ENOSPC, 'No space left on device')
    opened = wmt14._text_file
    monkeypatch.setattr(wmt14, '_text_file', lambda path: Full() if path.name == 'valid.de' else opened(path))
    with pytest.raises(OSError, match='No space left on device while unpacking the corpus; nothing of it is kept') as e:
        fetch_wmt14('en-de', tmp_path / 'out', archives=d, checksums=sums)
    assert e.value.errno == errno.ENOSPC and e.value.filename == str(tmp_path / 'out')
    assert not (tmp_path / 'out').exists()                                  # DEST, made by this call: removed with the rest

def test_a_test_set_that_is_not_utf8_is_refused_in_one_line(mirror, tmp_path):
    own, sums = own_copy(mirror, tmp_path)
    with tarfile.open(own / 'test-full.tgz') as t: test = {m.name: t.extractfile(m).read() for m in t}
    test['test-full/newstest2014-deen-ref.de.sgm'] = test['test-full/newstest2014-deen-ref.de.sgm'].replace(b'<seg id="2">', b'<seg id="2">\xff')
    sums['test-full.tgz'] = rebuild(own, 'test-full.tgz', test)
    with pytest.raises(UserError, match=r'^test-full.tgz:test-full/newstest2014-deen-ref.de.sgm: invalid UTF-8 at byte \d+'):
        fetch_wmt14('en-de', tmp_path / 'out', archives=own, checksums=sums)

def test_a_download_never_writes_through_a_link(mirror, tmp_path):
    "A link where the download's .part goes is refused, and the file it points to is left as it was."
    d, sums = mirror
    (tmp_path / 'archives').mkdir(); victim = tmp_path / 'notes.txt'; victim.write_text('mine')
    (tmp_path / 'archives' / 'training-parallel-europarl-v7.tgz.part').symlink_to(victim)
    with serve_folder(d) as srv, pytest.raises(UserError, match=r'europarl-v7.tgz.part: a link or a special file where tnb-data keeps a download'):
        fetch_wmt14('en-de', tmp_path, base_url=srv.url, checksums=sums)
    assert victim.read_text() == 'mine' and srv.log == []

# A child-process wrapper: a .part file that takes 200 bytes, then fails as a full disk does
FULL_DISK = r"""
import errno, pathlib
_open = pathlib.Path.open
class _Full:
    def __init__(self, f): self.f = f
    def __enter__(self): return self
    def __exit__(self, *a): self.f.close()
    def write(self, b):
        room = 200 - self.f.tell()
        if len(b) > room: self.f.write(b[:max(room, 0)]); self.f.flush(); raise OSError(errno.ENOSPC, 'No space left on device')
        return self.f.write(b)
def _opened(self, mode='r', *a, **k):
    f = _open(self, mode, *a, **k)
    return _Full(f) if self.name.endswith('.part') and mode in ('wb', 'ab') else f
pathlib.Path.open = _opened
"""

def data_cmd(*args, code:str='', cwd=None) -> subprocess.CompletedProcess:
    "`tnb-data ARGS` in a fresh process; `code` runs first."
    return subprocess.run([sys.executable, '-c', f"import sys; sys.argv[0] = 'tnb-data'\n{code}\nfrom transformer_nb.apps.cli import data_main; data_main()",
                           *map(str, args)], capture_output=True, text=True, env=ENV, timeout=120, cwd=cwd)

def said(r) -> list[str]: return [l for l in r.stderr.splitlines() if l.strip() and not l.startswith(('tnb-data: downloading', 'tnb-data: unpacking'))]

@pytest.mark.slow
def test_the_command_refuses_in_one_line_with_its_exit_code(mirror, tmp_path):
    "A full disk during a download: exit 1, the disk named, nothing kept, no second try; a member that is a link and a damaged archive: exit 2; a busy corpus folder: exit 2 before any download. Never 'internal error'."
    d, sums = mirror
    (tmp_path / 'sums').write_text(''.join(f"{h}  {n}\n" for n, h in sums.items()))
    with serve_folder(d) as srv:
        r = data_cmd('wmt14', tmp_path / 'full', '--base-url', srv.url, '--checksums', tmp_path / 'sums', code=FULL_DISK)
    assert r.returncode == 1 and len(said(r)) == 1, r.stderr
    assert re.fullmatch(r"tnb-data: error: .*full/archives: No space left on device while downloading training-parallel-europarl-v7.tgz "
                        r"\(200 bytes written, deleted\); free space there and run it again", said(r)[0]), r.stderr
    assert srv.log == [('/training-parallel-europarl-v7.tgz', None)] and leftovers(tmp_path / 'full') == []   # not retried as a broken connection
    own, sums2 = own_copy(mirror, tmp_path)
    link = tarfile.TarInfo('training/news-commentary-v9.de-en.en'); link.type, link.linkname = tarfile.SYMTYPE, '/etc/passwd'
    sums2['training-parallel-nc-v9.tgz'] = rebuild(own, 'training-parallel-nc-v9.tgz', {'training/news-commentary-v9.de-en.de': b'a\n', link.name: link})
    (tmp_path / 'sums2').write_text(''.join(f"{h}  {n}\n" for n, h in sums2.items()))
    r = data_cmd('wmt14', tmp_path / 'link', '--archives', own, '--checksums', tmp_path / 'sums2')
    assert r.returncode == 2 and len(said(r)) == 1 and 'is a symbolic link, not a file' in said(r)[0], r.stderr
    (own / 'training-parallel-nc-v9.tgz').write_bytes((d / 'training-parallel-nc-v9.tgz').read_bytes())
    cut = (own / 'dev.tgz').read_bytes()[:200]; (own / 'dev.tgz').write_bytes(cut)
    (tmp_path / 'sums3').write_text(''.join(f"{hashlib.sha256(cut).hexdigest() if n == 'dev.tgz' else h}  {n}\n" for n, h in sums.items()))
    r = data_cmd('wmt14', tmp_path / 'cut', '--archives', own, '--checksums', tmp_path / 'sums3')
    assert r.returncode == 2 and len(said(r)) == 1 and 'dev.tgz: not a whole tar archive' in said(r)[0], r.stderr
    (tmp_path / 'busy' / 'wmt14-en-de').mkdir(parents=True); (tmp_path / 'busy' / 'wmt14-en-de' / 'x').write_text('x')
    with serve_folder(d) as srv:
        r = data_cmd('wmt14', tmp_path / 'busy', '--base-url', srv.url, '--checksums', tmp_path / 'sums')
    assert r.returncode == 2 and len(said(r)) == 1 and 'not a corpus tnb-data wrote' in said(r)[0] and '/.wmt14' not in r.stderr, r.stderr
    assert srv.log == []

def page_commands() -> list[str]:
    "The shell commands of apps_cluster's ```sh blocks as a user copies them: continuation lines joined, comments dropped."
    cells = json.loads((ROOT / 'nbs' / 'apps_cluster.ipynb').read_text(encoding='utf-8'))['cells']
    text = '\n'.join(''.join(c['source']) for c in cells if c['cell_type'] == 'markdown')
    return [' '.join(c.split(' #')[0].split()) for block in re.findall(r'```sh\n(.*?)```', text, re.S)
            for c in block.replace('\\\n', ' ').splitlines() if c.split(' #')[0].strip() and not c.lstrip().startswith('#')]

def test_the_cluster_page_installs_from_a_clone():
    "Step 1 clones the repository and installs it, as README does (the package is on no index, and the Slurm script is in no wheel)."
    cmds = page_commands()
    readme = [' '.join(l.split('#')[0].split()) for l in (ROOT / 'README.md').read_text(encoding='utf-8').splitlines()]
    clone = next(c for c in cmds if c.startswith('git clone '))
    assert clone in readme and clone.endswith('&& cd transformer_nb')
    install = next(c for c in cmds if c.startswith('pip install'))
    assert cmds.index(clone) < cmds.index(install) and install.split()[2] == '-e' and install.split()[3].startswith('.')
    assert not any(re.search(r'pip install (-U )?transformer[-_]nb', c) for c in cmds)
    assert all((ROOT / p).is_file() for c in cmds for p in re.findall(r'experiments/\S+', c))     # paths of the clone

@pytest.mark.slow
def test_the_cluster_page_downloads_wmt14_as_written(mirror, tmp_path):
    "apps_cluster's step 2, read from the page and run as written in a fresh process, against a loopback server of small archives: the only change is the package's table of archives, put in the process by `served_archives` (addresses on loopback, each pinned by its own size and SHA-256)."
    d, sums = mirror
    step = [c for c in page_commands() if c.startswith('tnb-data ')]
    assert len(step) == 1 and not {'--checksums', '--trust-unverified', '--base-url', '--archives'} & set(shlex.split(step[0])), step
    user = tmp_path / 'clone'; user.mkdir()
    with serve_folder(d) as srv:
        r = data_cmd(*shlex.split(step[0])[1:], cwd=user,
                     code=f"import transformer_nb.apps.wmt14 as w; w.WMT14_ARCHIVES.update(w.served_archives({str(d)!r}, {srv.url!r}))")
    assert r.returncode == 0, r.stderr
    assert sorted(p for p, _ in srv.log) == sorted(f"/{a.name}" for a in pair_archives('en-de'))      # each once, over loopback
    out = user / 'data' / 'wmt14-en-de'
    man = json.loads((out / 'MANIFEST.json').read_text())
    assert man['pair'] == 'en-de' and {n: (a['checked'], a['sha256']) for n, a in man['archives'].items()} == {n: ('sha256', h) for n, h in sums.items()}
    assert r.stdout == f"{Path('data') / 'wmt14-en-de'}: train 36 pairs, valid 12 pairs, test 12 pairs\n" and sorted(os.listdir(user / 'data')) == ['archives', 'wmt14-en-de']

def test_the_encoded_cache_is_keyed_by_content(mirror, tmp_path):
    "A corpus rewritten in place with the same size and modification time is encoded again (a key of name, size and time read the old ids)."
    from transformer_nb.lib.tokens import StoredTokenizer
    from transformer_nb.apps.wmt14 import encoded_cache
    d, sums = mirror
    out = fetch_wmt14('en-de', tmp_path, archives=d, checksums=sums)
    tok = StoredTokenizer.train(sample_lines([out / 'train.en', out / 'train.de'], 200), vocab_size=40)
    first = encoded_cache(tok, out / 'train.en', out / 'train.de', tmp_path / 'cache')
    old = [first[i][0].tolist() for i in range(len(first))]
    st = (out / 'train.en').stat()
    lines = (out / 'train.en').read_text(encoding='utf-8').split('\n')
    (out / 'train.en').write_text('\n'.join(lines[1:-1] + lines[:1] + ['']), encoding='utf-8')        # the same bytes, other order
    os.utime(out / 'train.en', ns=(st.st_atime_ns, st.st_mtime_ns))
    assert ((out / 'train.en').stat().st_size, (out / 'train.en').stat().st_mtime_ns) == (st.st_size, st.st_mtime_ns)
    said = []
    again = encoded_cache(tok, out / 'train.en', out / 'train.de', tmp_path / 'cache', say=said.append)
    assert any('encoding the training pairs' in m for m in said), said
    assert [again[i][0].tolist() for i in range(len(again))] == old[1:] + old[:1]
    assert again.meta['corpus'][0]['sha256'] == hashlib.sha256((out / 'train.en').read_bytes()).hexdigest()

def test_the_recipes_hold_the_papers_numbers():
    from transformer_nb.apps.tasks import get_task
    from transformer_nb.lib.options import get_model_config
    from transformer_nb.training import make_optimizer
    from transformer_nb.lib.trainer import _update_size
    from transformer_nb.lib.options import TrainConfig
    t = get_task('wmt14')
    want = {'paper-base': ('base', 'en-de', 0.1, 37_000, 100_000, 5), 'paper-big': ('big', 'en-de', 0.3, 37_000, 300_000, 20),
            'paper-base-en-fr': ('base', 'en-fr', 0.1, 32_000, 100_000, 5), 'paper-big-en-fr': ('big', 'en-fr', 0.1, 32_000, 300_000, 20)}
    assert sorted(t.recipes) == sorted(want) and t.recipe == t.recipes['paper-base']
    for name, (size, pair, p, vocab, steps, avg) in want.items():
        r = t.recipes[name]
        tc = TrainConfig(**r.train)
        cfg = get_model_config(r.preset, **r.model)
        assert (r.preset, cfg.p_drop, r.vocab_size, tc.steps, tc.average, tc.keep) == (size, p, vocab, steps, avg, avg), name
        assert (tc.warmup, tc.lr_scale, tc.eps_ls, tc.save_every_minutes, tc.precision, tc.tokens_per_update) == (4000, 1.0, 0.1, None, 'auto', 25_000)
        assert tc.save_every == {'base': 1_400, 'big': 600}[size]                # the paper's 10 minutes, in its own updates
        assert _update_size(tc, 8).accum == 1 and _update_size(tc, 1).accum == 8
        assert (cfg.d_model, cfg.h, cfg.d_ff, cfg.N) == ((512, 8, 2048, 6) if size == 'base' else (1024, 16, 4096, 6))
    opt, _ = make_optimizer(__import__('torch').nn.Linear(2, 2), 512, 4000)
    assert (opt.defaults['betas'], opt.defaults['eps']) == ((0.9, 0.98), 1e-9)
    assert (t.decoding.beam, t.decoding.alpha, t.decoding.max_extra) == (4, 0.6, 50)
    assert paper_recipe('big', 'en-fr') == t.recipes['paper-big-en-fr']

def test_the_update_size_is_derived_from_the_processes():
    from transformer_nb.lib.trainer import _update_size
    from transformer_nb.lib.options import TrainConfig
    tc = TrainConfig(max_tokens=4096, tokens_per_update=25_000)
    assert [_update_size(tc, w).accum for w in (1, 2, 4, 8)] == [7, 4, 2, 1]
    assert _update_size(TrainConfig(max_tokens=100, accum=3), 2).accum == 3

def _tiny_trainer(data, tmp_path, **tc):
    from transformer_nb.lib.transformer import build_model
    from transformer_nb.lib.options import get_model_config
    from transformer_nb.lib.trainer import Trainer
    from transformer_nb.lib.options import TrainConfig
    said = []
    cfg = get_model_config('tiny', src_vocab=40, tgt_vocab=40)
    t = Trainer(build_model(cfg), data, tc=TrainConfig(**{'warmup': 2, 'progress': False, **tc}), run=tmp_path / 'run',
                sampler=data.sampler(tc.get('max_tokens', 4096)) if isinstance(data, EncodedCorpus) else None, say=said.append)
    return t, said

def test_the_trainer_reads_the_encoded_corpus_from_disk(mirror, tmp_path):
    from transformer_nb.lib.tokens import StoredTokenizer
    d, sums = mirror
    out = fetch_wmt14('en-de', tmp_path, archives=d, checksums=sums)
    tok = StoredTokenizer.train(sample_lines([out / 'train.en', out / 'train.de'], 200), vocab_size=40)
    enc = encode_to_disk(tok, out / 'train.en', out / 'train.de', tmp_path / 'enc', block=5)
    assert isinstance(enc.ids['src'], np.memmap) and len(enc) == 36 and enc.meta['dtype'] == 'uint16'
    again = EncodedCorpus(tmp_path / 'enc')
    assert all(np.array_equal(enc[i][1], again[i][1]) for i in range(len(enc)))
    src, tgt = zip(*(p for a, b in iter_pairs(out / 'train.en', out / 'train.de') for p in zip(a, b)))
    assert [tok.decode(enc[i][0].tolist()) for i in range(3)] == list(src[:3])
    t, said = _tiny_trainer(enc, tmp_path, steps=3, max_tokens=200, tokens_per_update=400, save_every_minutes=1e-9, keep=0)
    t.fit()
    assert t.tc.accum == 2 and said[0] == 'update: 200 padded tokens a side x 1 process x accum 2 = 400 a side (tokens_per_update 400)'
    assert [p.name for p in t.run.checkpoints()] == [f'checkpoint-{i:07d}.pt' for i in (1, 2, 3)]    # one a "minute"
    t2, _ = _tiny_trainer(enc, tmp_path / 'b', steps=3, max_tokens=200, save_every_minutes=60.0, keep=0)
    t2.fit()
    assert [p.name for p in t2.run.checkpoints()] == ['checkpoint-0000003.pt']                    # only the final one

@pytest.mark.slow
def test_tnb_data_in_a_fresh_process(mirror, tmp_path):
    d, sums = mirror
    (tmp_path / 'sums').write_text(''.join(f"{h}  {n}\n" for n, h in sums.items()))
    run = lambda *a: subprocess.run([sys.executable, '-c', 'from transformer_nb.apps.cli import data_main; data_main()', *map(str, a)],
                                    capture_output=True, text=True, env=ENV, timeout=120)
    with serve_folder(d) as srv:
        r = run('wmt14', tmp_path / 'out', '--base-url', srv.url, '--checksums', tmp_path / 'sums')
        assert r.returncode == 0, r.stderr
        assert r.stdout.endswith(': train 36 pairs, valid 12 pairs, test 12 pairs\n')
        r = run('wmt14', tmp_path / 'no', '--base-url', srv.url)
    lines = [l for l in r.stderr.splitlines() if l.strip() and not l.startswith('tnb-data: downloading')]
    assert r.returncode == 2 and len(lines) == 1 and lines[0].startswith('tnb-data: error: ') and 'expected 657,632,379' in lines[0], r.stderr
    r = run('wmt14', tmp_path / 'x', '--pair', 'de-en')
    assert r.returncode == 2 and r.stderr == 'tnb-data: error: --pair de-en must be en-de or en-fr\n', r.stderr
    (tmp_path / 'bad').write_text('not a checksum line\n')
    r = run('wmt14', tmp_path / 'y', '--archives', d, '--checksums', tmp_path / 'bad')
    assert r.returncode == 2 and 'line 1' in r.stderr, r.stderr

@pytest.mark.slow
def test_the_scale_benchmark_with_its_smallest_arguments(tmp_path):
    "bench/bench_data_scale.py end to end on a small synthetic corpus in this test's folder: every stage, its figures."
    from conftest import ROOT
    r = subprocess.run([sys.executable, str(ROOT / 'bench' / 'bench_data_scale.py'), '--pairs', '500', '--sample', '800', '--vocab', '80',
                        '--world', '2', '--max-tokens', '3000', '--max-len', '2000', '--threads', '1', '--dir', str(tmp_path / 'w'), '--json', str(tmp_path / 'r.json')],
                       capture_output=True, text=True, env=ENV, timeout=300)
    assert r.returncode == 0, r.stderr[-3000:]
    rec = json.loads((tmp_path / 'r.json').read_text())
    assert list(rec['stages']) == ['generate', 'load', 'vocab', 'encode', 'batch', 'shard']
    s = rec['stages']
    assert s['load']['pairs'] == 500 and s['vocab']['sample_sentences'] == 800 and s['encode']['pairs_kept'] == 500
    assert s['shard']['world'] == 2 and s['shard']['batches_per_process'] * 2 >= s['batch']['batches']
    assert all(v['peak_rss_mb'] > 0 and v['seconds'] >= 0 for v in s.values()) and rec['target'] == {'minutes': 15.0, 'gb': 8.0}
    assert 'data path (load to shard)' in r.stdout and rec['machine']

@pytest.mark.slow
def test_tnb_train_runs_the_paper_recipe_scaled_down(mirror, tmp_path):
    "`tnb-train --dataset wmt14 --recipe paper-base`, scaled down in steps and size: the derived update is said, a checkpoint every 'minute'."
    from conftest import tool
    d, sums = mirror
    corpus = fetch_wmt14('en-de', tmp_path, archives=d, checksums=sums)
    r = tool('train', '--dataset', 'wmt14', '--data-dir', corpus, '--recipe', 'paper-base', '--preset', 'tiny', '--vocab-size', 60,
             '--steps', 3, '--max-tokens', 300, '--tokens-per-update', 600, '--save-every-minutes', 1e-6, '--average', 2,
             '--device', 'cpu', '--no-progress', '--out', tmp_path / 'run', text=True)
    assert r.returncode == 0, r.stderr[-3000:]
    assert 'update: 300 padded tokens a side x 1 process x accum 2 = 600 a side (tokens_per_update 25,000)' not in r.stdout + r.stderr
    assert 'update: 300 padded tokens a side x 1 process x accum 2 = 600 a side (tokens_per_update 600)' in r.stdout + r.stderr
    assert sorted(p.name for p in (tmp_path / 'run').glob('checkpoint-*.pt'))[-2:] == ['checkpoint-0000002.pt', 'checkpoint-0000003.pt']
    assert (tmp_path / 'run' / 'average.pt').is_file()
    cache = [p for p in (corpus / 'encoded').iterdir() if not p.name.startswith('.')]
    assert len(cache) == 1 and 'wmt14: encoding the training pairs into' in r.stderr, r.stderr[-2000:]   # encoded once, beside the data
    ids = (cache[0] / 'src.ids.npy').stat()
    r = tool('train', '--resume', tmp_path / 'run', '--steps', 4, '--no-progress', '--test-limit', 0, text=True)
    assert r.returncode == 0, r.stderr[-3000:]
    assert f'wmt14: the training pairs, encoded once, read from {cache[0]}' in r.stderr and 'encoding' not in r.stderr, r.stderr[-2000:]
    assert (cache[0] / 'src.ids.npy').stat().st_ino == ids.st_ino and (tmp_path / 'run' / 'checkpoint-0000004.pt').is_file()
    ids = cache[0] / 'tgt.ids.npy'; ids.write_bytes(ids.read_bytes()[:-2] + bytes([255, 255]))     # damaged on disk
    r = tool('train', '--resume', tmp_path / 'run', '--steps', 5, '--no-progress', '--test-limit', 0, text=True)
    lines = [l for l in r.stderr.splitlines() if l.startswith('tnb-train: ')]
    assert r.returncode == 2 and len(lines) == 1 and 'not a whole encoded corpus (tgt.ids.npy changed since it was written)' in lines[0], r.stderr[-2000:]
    assert not (tmp_path / 'run' / 'checkpoint-0000005.pt').exists()

def test_the_stored_scale_figures_are_whole():
    "results/data_scale.json (bench/bench_data_scale.py at 4.5 million pairs): every stage, its machine, its target and whether it was met."
    from conftest import ROOT
    rec = json.loads((ROOT / 'results' / 'data_scale.json').read_text())
    s, a = rec['stages'], rec['args']
    assert a['pairs'] == s['load']['pairs'] == 4_500_000 and 0.99 * 4_500_000 < s['encode']['pairs_kept'] <= 4_500_000
    assert (a['vocab'], a['max_tokens'], a['world'], s['shard']['world']) == (37_000, 3125, 8, 8) and s['vocab']['pieces'] == 37_000
    assert 'CPU' in rec['machine'] and rec['cores'] == 2 and len(rec['load_before']) == len(rec['load_after']) == 3
    path = ['load', 'vocab', 'encode', 'batch', 'shard']
    assert rec['data_path_seconds'] == round(sum(s[k]['seconds'] for k in path), 1)
    assert rec['data_path_peak_gb'] == round(max(s[k]['peak_rss_mb'] for k in path) / 1024, 2)
    assert rec['target_met'] == (rec['data_path_seconds'] <= 60 * rec['target']['minutes'] and rec['data_path_peak_gb'] <= rec['target']['gb'])
    assert s['shard']['batches_per_process'] * 8 >= s['batch']['batches']

def test_a_wmt14_run_trains_from_the_memory_mapped_cache(mirror, tmp_path, capsys):
    "`train_model` (what `tnb-train --dataset wmt14` runs): the training pairs streamed, never a list; the ids encoded once beside"
    " the data and memory-mapped; the same pairs and batches as lists of ids give; a second run reads the cache, a changed corpus is encoded again."
    from transformer_nb.apps.tasks import get_task
    from transformer_nb.apps.workflow import train_model
    from transformer_nb.lib.datasets import read_parallel
    from transformer_nb.lib.tokens import encode_corpus
    from transformer_nb.lib.trainer import batch_sampler
    d, sums = mirror
    corpus = fetch_wmt14('en-de', tmp_path, archives=d, checksums=sums)
    run = lambda: train_model(get_task('wmt14').load('wmt14', data_dir=corpus), recipe='paper-base', preset='tiny', vocab_size=60, steps=2,
                              max_tokens=300, tokens_per_update=300, device='cpu', progress=False, valid_every=0, say=lambda m: None)
    data = get_task('wmt14').load('wmt14', data_dir=corpus)
    assert isinstance(data.train, TrainFiles) and (data.train.src, len(data.train), len(data.valid)) == (corpus / 'train.en', 36, 12)
    t = run()
    enc = t.train_data
    assert isinstance(enc, EncodedCorpus) and isinstance(enc.ids['src'], np.memmap) and isinstance(enc.offsets['tgt'], np.memmap)
    assert enc.folder.parent == corpus / 'encoded' and sorted(p.name for p in enc.folder.iterdir()) == [
        'encoded.json', 'src.ids.npy', 'src.offsets.npy', 'tgt.ids.npy', 'tgt.offsets.npy']
    assert [f['name'] for f in enc.meta['corpus']] == ['train.en', 'train.de'] and 'encoding the training pairs' in capsys.readouterr().err
    lists = encode_corpus(t.tokenizer, read_parallel(corpus / 'train.en', corpus / 'train.de'), max_len=256)   # the list path's ids
    assert [(a.tolist(), b.tolist()) for a, b in (enc[i] for i in range(len(enc)))] == [(list(a), list(b)) for a, b in lists]
    assert t.sampler.batches(0) == batch_sampler(lists, t.tc, t.parallel).batches(0)                         # and its batches
    ino = (enc.folder / 'src.ids.npy').stat().st_ino
    t2 = run()                                                   # a second run: the same tokenizer, so the same cache, read
    assert t2.tokenizer == t.tokenizer and t2.train_data.folder == enc.folder and (enc.folder / 'src.ids.npy').stat().st_ino == ino
    assert 'read from' in capsys.readouterr().err
    for lang, line in (('en', 'the green cat .'), ('de', 'die grüne Katze .')):
        with open(corpus / f'train.{lang}', 'a', encoding='utf-8') as f: f.write(line + '\n')
    again = get_task('wmt14').load('wmt14', data_dir=corpus).encoded(t.tokenizer, say=lambda m: None)   # a changed corpus, the same key
    assert again.folder == enc.folder and len(again) == 37 and (enc.folder / 'src.ids.npy').stat().st_ino != ino
    assert [p.name for p in (corpus / 'encoded').iterdir() if p.is_dir()] == [enc.folder.name]          # replaced, nothing left over

def _serial_encoding(tok, src, tgt, max_len):
    "What `encode_to_disk` must write, computed the plain way: each line encoded alone, on one thread, the arrays saved whole."
    from transformer_nb.core import BOS_ID, EOS_ID
    ids, lens = {'src': [], 'tgt': []}, {'src': [], 'tgt': []}
    for a, b in zip(src.read_text(encoding='utf-8').split('\n')[:-1], tgt.read_text(encoding='utf-8').split('\n')[:-1]):
        s, t = tok.sp.encode(a.strip(), out_type=int, num_threads=1) + [EOS_ID], [BOS_ID] + tok.sp.encode(b.strip(), out_type=int, num_threads=1) + [EOS_ID]
        if len(s) == 1 or len(t) == 2 or len(s) > max_len or len(t) > max_len: continue
        for side, x in (('src', s), ('tgt', t)): ids[side] += x; lens[side].append(len(x))
    return {f"{s}.{k}": v for s in ids for k, v in (('ids', np.asarray(ids[s], np.uint16)), ('offsets', np.concatenate([[0], np.cumsum(lens[s])]).astype(np.int64)))}

def test_the_parallel_encoding_is_bit_identical_to_the_serial_one(tmp_path):
    "`encode_to_disk` on two threads, blocks read ahead, ids flattened in NumPy: its files hold, byte for byte, what encoding each line alone gives; empty and long pairs dropped alike."
    from transformer_nb.lib.tokens import StoredTokenizer
    from transformer_nb.apps.wmt14 import encode_to_disk
    rng = np.random.default_rng(1)
    words = ['Haus', 'über', 'the', 'naïve', 'Straße', 'ﬁne', 'a', 'zzz', '東京', 'x' * 30]
    lines = [' '.join(rng.choice(words, rng.integers(0, 25))) for _ in range(700)]
    src, tgt = tmp_path / 'train.en', tmp_path / 'train.de'
    src.write_text('\n'.join(lines) + '\n', encoding='utf-8'); tgt.write_text('\n'.join(lines[::-1]) + '\n', encoding='utf-8')
    tok = StoredTokenizer.train(lines[:400], vocab_size=60)
    want = _serial_encoding(tok, src, tgt, 40)
    for threads, block in ((1, 1000), (2, 64), (0, 7)):
        enc = encode_to_disk(tok, src, tgt, tmp_path / f'e{threads}', max_len=40, block=block, num_threads=threads)
        for name, arr in want.items():
            np.save(tmp_path / 'want.npy', arr)
            assert (tmp_path / f'e{threads}' / f'{name}.npy').read_bytes() == (tmp_path / 'want.npy').read_bytes(), (threads, name)
        assert enc.meta['pairs'] == len(enc) == len(want['src.offsets']) - 1 and enc.meta['read'] == 700 and enc.meta['empty'] > 0 and enc.meta['too_long'] > 0

def test_the_scale_benchmark_says_how_to_run_it_at_full_size(capsys):
    "`bench_data_scale.py --help` gives the command at 4.5 million pairs (its default) and the smoke run's."
    from conftest import ROOT
    sys.path.insert(0, str(ROOT / 'bench'))
    try:
        import bench_data_scale
        with pytest.raises(SystemExit): bench_data_scale.main(['--help'])
    finally: sys.path.remove(str(ROOT / 'bench'))
    out = ' '.join(capsys.readouterr().out.split())                 # argparse wraps the options' help
    assert 'python bench/bench_data_scale.py --json results/data_scale.json' in out and '4.5 million pairs' in out
    assert '--pairs 2000 --sample 4000 --vocab 200' in out and '(default 4,500,000' in out

def test_the_stored_encoding_speed_figures_are_whole():
    "results/encode_speed.json (bench/bench_encode.py at 300,000 and 200,000 pairs): interleaved runs of each encoder, their medians and ratios computed from them, the files equal, the machine and its load named."
    import statistics
    from conftest import ROOT
    recs = json.loads((ROOT / 'results' / 'encode_speed.json').read_text())
    assert [r['args']['pairs'] for r in recs] == [300_000, 200_000]
    for rec in recs:
        assert rec['identical'] is True and rec['machine'] and rec['cores'] >= 1 and len(rec['load_before']) == 3
        runs = rec['seconds']
        assert set(runs) == {'before', 'before-default', 'after'} and {len(v) for v in runs.values()} == {rec['args']['repeats']}
        assert rec['median_seconds'] == {v: statistics.median(x) for v, x in runs.items()}
        assert rec['ratios'] == {f"{v}/after": round(rec['median_seconds'][v] / rec['median_seconds']['after'], 2) for v in ('before', 'before-default')}
    assert recs[1]['median_cpu_seconds'] == {v: statistics.median(x) for v, x in recs[1]['cpu_seconds'].items()}

def test_the_stored_streaming_figures_are_whole():
    "results/wmt14_stream.json (bench/bench_wmt14_stream.py on a 3 GB member, as apps_wmt14 says): the member's size, the peak memory against the 2 GB target, the hash's rate computed from its time, the machine and its load."
    rec = json.loads((ROOT / 'results' / 'wmt14_stream.json').read_text())
    assert rec['args']['mb'] == 3072 and rec['member_text_bytes'] == 3072 * 2**20 and rec['member'].endswith('.gz')
    assert rec['target_peak_gb'] == 2.0 and rec['target_met'] == (rec['peak_rss_mb'] <= 2 * 1024) and rec['target_met']
    assert 0 < rec['rss_after_imports_mb'] <= rec['peak_rss_mb'] and rec['lines'] > 10_000_000
    assert rec['digest_gb_s'] == round(rec['written_bytes'] / 2**30 / rec['digest_seconds'], 2)
    assert rec['stream_mb_s'] == round(rec['member_text_bytes'] / 2**20 / rec['stream_seconds'], 1)
    assert 'CPU' in rec['machine'] and rec['cores'] >= 1 and len(rec['load_before']) == len(rec['load_after']) == 3

# The encoded cache's lock on a shared file system mounted without lock support: flock fails with ENOLCK.
@pytest.fixture
def no_flock(monkeypatch):
    "Every `flock` fails as on a file system without locks (ENOLCK)."
    import fcntl
    def refused(*a, **k): raise OSError(errno.ENOLCK, os.strerror(errno.ENOLCK))
    monkeypatch.setattr(fcntl, 'flock', refused)

def test_the_encoded_cache_lock_holds_without_flock(no_flock, tmp_path):
    "Two holders of the lock never overlap, the second waits for the first; the lock file names its holder and is gone after."
    import threading, time
    from transformer_nb.apps.wmt14 import _locked, _lock_record
    path, seen, inside = tmp_path / '.key.lock', [], []
    def hold(name):
        with _locked(path, poll=0.02):
            inside.append(name); seen.append((name, len(inside), _lock_record(path)['pid'])); time.sleep(0.2); inside.remove(name)
    ts = [threading.Thread(target=hold, args=(n,)) for n in 'ab']
    for t in ts: t.start()
    for t in ts: t.join(20)
    assert sorted(n for n, _, _ in seen) == ['a', 'b'] and all(k == 1 and pid == os.getpid() for _, k, pid in seen), seen
    assert not path.exists()

def test_the_encoded_cache_lock_waits_for_a_live_owner_and_takes_over_a_dead_ones(no_flock, tmp_path):
    "A lock whose owner (another process, on this host) lives is waited for; once that process is gone, it is taken over."
    import threading, time
    from transformer_nb.lib.runs import lock_owner, _started
    from transformer_nb.apps.wmt14 import _locked
    path, got, done = tmp_path / '.key.lock', [], threading.Event()
    def hold():
        with _locked(path, poll=0.02): got.append(json.loads(path.read_text())['pid']); done.wait(20)
    other = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)'])
    t = threading.Thread(target=hold, daemon=True)
    try:
        path.write_text(json.dumps({**lock_owner(), 'pid': other.pid, 'started': _started(other.pid)}))
        t.start(); time.sleep(0.5)
        assert got == [] and path.exists()                                 # waiting: its owner lives
    finally: other.kill(); other.wait()
    for _ in range(400):
        if got: break
        time.sleep(0.05)
    done.set(); t.join(20)
    assert got == [os.getpid()] and not path.exists()                      # taken over, held by this process, then released

@pytest.mark.slow
def test_tnb_data_refuses_a_nul_byte_a_refused_connection_and_a_read_only_dest_with_exit_2(mirror, tmp_path, readonly_dir):
    "As the other commands refuse them: a corpus line holding a NUL (as `--dataset files` refuses it), a mirror that refuses the connection, a DEST that cannot be written: one line each, exit 2, nothing left behind."
    own, sums = own_copy(mirror, tmp_path)
    sums['training-parallel-nc-v9.tgz'] = rebuild(own, 'training-parallel-nc-v9.tgz', {'training/news-commentary-v9.de-en.de': b'eins\nzwei\x00drei\n',
                                                                                        'training/news-commentary-v9.de-en.en': b'one\ntwo three\n'})
    (tmp_path / 'sums').write_text(''.join(f"{h}  {n}\n" for n, h in sums.items()))
    r = data_cmd('wmt14', tmp_path / 'nul', '--archives', own, '--checksums', tmp_path / 'sums')
    assert r.returncode == 2 and len(said(r)) == 1 and said(r)[0] == (
        "tnb-data: error: training-parallel-nc-v9.tgz:training/news-commentary-v9.de-en.de, line 2: a NUL byte at offset 9; this is not "
        "UTF-8 text (a binary file, or UTF-16 text: convert it to UTF-8)"), r.stderr
    assert not (tmp_path / 'nul' / 'wmt14-en-de').exists() and leftovers(tmp_path / 'nul') == []
    r = data_cmd('wmt14', tmp_path / 'refused', '--base-url', 'http://127.0.0.1:9', '--retries', '0', '--trust-unverified')
    assert r.returncode == 2 and len(said(r)) == 1 and 'could not download http://127.0.0.1:9/' in said(r)[0], r.stderr
    for dest, says in ((readonly_dir, f"DEST {readonly_dir}: cannot write in {readonly_dir}"), (readonly_dir / 'd', f"DEST {readonly_dir / 'd'}: cannot create the folder")):
        r = data_cmd('wmt14', dest, '--archives', own, '--checksums', tmp_path / 'sums')
        assert r.returncode == 2 and len(said(r)) == 1 and said(r)[0].startswith(f"tnb-data: error: {says}"), r.stderr
    assert list(readonly_dir.iterdir()) == []

def test_fetch_wmt14_refuses_its_settings_as_tnb_data_does(tmp_path, capsys):
    "fetch_wmt14(retries=-1) once failed with a raw FileNotFoundError about a .part file; it is refused by DataOptions' declaration, as `tnb-data --retries -1` is, in one line, before any work."
    from transformer_nb.lib.options import SettingError
    from transformer_nb.apps.cli import data_main
    for kw, says in ((dict(retries=-1), 'retries=-1 must be an int >= 0'), (dict(pair='de-en'), "pair='de-en' must be 'en-de' or 'en-fr'")):
        with pytest.raises(SettingError) as e: fetch_wmt14(kw.get('pair', 'en-de'), tmp_path / 'd', base_url='http://127.0.0.1:9', **{k: v for k, v in kw.items() if k != 'pair'})
        assert str(e.value) == says and not (tmp_path / 'd').exists()
    with pytest.raises(SettingError, match='^retries=-1 must be an int >= 0$'): download_resumable('http://127.0.0.1:9/x', tmp_path / 'x', retries=-1)
    with pytest.raises(SystemExit) as e: data_main(['wmt14', str(tmp_path / 'd'), '--retries', '-1'])
    assert e.value.code == 2 and capsys.readouterr().err == 'tnb-data: error: --retries -1 must be an int >= 0\n' and not (tmp_path / 'd').exists()
