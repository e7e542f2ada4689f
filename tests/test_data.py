"transformer_nb.lib.datasets (lib_datasets), transformer_nb.data (08) and transformer_nb.lib.tokens (lib_tokens): corpora, bad input, checksums and the offline download path, tokenizer, batching, collate, and the library's versions equal to 08's."
import gzip, hashlib, io, os, pickle, re, urllib.error, urllib.request, warnings
from pathlib import Path
import numpy as np
import pytest
import torch
from transformer_nb.core import PAD_ID, UNK_ID, BOS_ID, EOS_ID
from transformer_nb.lib import datasets as D
from transformer_nb.data import Tokenizer, TokenBatchSampler, collate, encode_pairs
from transformer_nb.lib.tokens import (StoredTokenizer, DistributedTokenBatchSampler, padding_efficiency, pad_ids, pad_pairs,
                                   encode_corpus)
from transformer_nb.lib.datasets import (ParallelData, load_dataset, read_parallel, read_lines, en_number, de_number,
                                     _number_splits, numbers_corpus, _copy_corpus, _common_numbers, magnitude, MAGNITUDES,
                                     find_multi30k, multi30k, _multi30k_files, _MULTI30K_SHA256, _MULTI30K_URL)
from transformer_nb.lib.safeguards import download_file, get_cache_dir, sha256_file
from transformer_nb.apps.numbers import exact_by_magnitude, number_scores, _en_number_value

from conftest import skip_without_multi30k

ROOT = Path(__file__).resolve().parents[1]
torch.set_num_threads(1)

# ---------------------------------------------------------------- number words

KNOWN = [
    (0, 'zero', 'null'), (1, 'one', 'eins'), (2, 'two', 'zwei'), (6, 'six', 'sechs'), (7, 'seven', 'sieben'),
    (10, 'ten', 'zehn'), (11, 'eleven', 'elf'), (12, 'twelve', 'zwölf'), (13, 'thirteen', 'dreizehn'),
    (16, 'sixteen', 'sechzehn'), (17, 'seventeen', 'siebzehn'), (19, 'nineteen', 'neunzehn'),
    (20, 'twenty', 'zwanzig'), (21, 'twenty-one', 'einundzwanzig'), (22, 'twenty-two', 'zweiundzwanzig'),
    (30, 'thirty', 'dreißig'), (31, 'thirty-one', 'einunddreißig'), (40, 'forty', 'vierzig'),
    (56, 'fifty-six', 'sechsundfünfzig'), (60, 'sixty', 'sechzig'), (66, 'sixty-six', 'sechsundsechzig'),
    (70, 'seventy', 'siebzig'), (77, 'seventy-seven', 'siebenundsiebzig'), (88, 'eighty-eight', 'achtundachtzig'),
    (99, 'ninety-nine', 'neunundneunzig'), (100, 'one hundred', 'einhundert'), (101, 'one hundred one', 'einhunderteins'),
    (111, 'one hundred eleven', 'einhundertelf'), (116, 'one hundred sixteen', 'einhundertsechzehn'),
    (121, 'one hundred twenty-one', 'einhunderteinundzwanzig'), (200, 'two hundred', 'zweihundert'),
    (342, 'three hundred forty-two', 'dreihundertzweiundvierzig'), (600, 'six hundred', 'sechshundert'),
    (700, 'seven hundred', 'siebenhundert'), (999, 'nine hundred ninety-nine', 'neunhundertneunundneunzig'),
    (1000, 'one thousand', 'eintausend'), (1001, 'one thousand one', 'eintausendeins'),
    (1100, 'one thousand one hundred', 'eintausendeinhundert'),
    (2021, 'two thousand twenty-one', 'zweitausendeinundzwanzig'), (7000, 'seven thousand', 'siebentausend'),
    (16000, 'sixteen thousand', 'sechzehntausend'), (21000, 'twenty-one thousand', 'einundzwanzigtausend'),
    (71001, 'seventy-one thousand one', 'einundsiebzigtausendeins'),
    (100000, 'one hundred thousand', 'einhunderttausend'), (101000, 'one hundred one thousand', 'einhunderteintausend'),
    (200001, 'two hundred thousand one', 'zweihunderttausendeins'),
    (342342, 'three hundred forty-two thousand three hundred forty-two',
     'dreihundertzweiundvierzigtausenddreihundertzweiundvierzig'),
    (999999, 'nine hundred ninety-nine thousand nine hundred ninety-nine',
     'neunhundertneunundneunzigtausendneunhundertneunundneunzig'),
]

@pytest.mark.parametrize('n,en,de', KNOWN)
def test_number_words(n, en, de):
    assert en_number(n) == en and de_number(n) == de

def test_number_words_properties():
    for n in range(0, 1_000_000, 997):
        d = de_number(n)
        assert ' ' not in d and '-' not in d and 'sechsz' not in d and 'siebenz' not in d and 'dreiz' not in d[-7:]
        assert not d.endswith('ein') and (n % 100 != 1 or d.endswith('eins'))

@pytest.mark.parametrize('bad,exc', [(-1, ValueError), (1_000_000, ValueError), (2.0, TypeError), (True, TypeError)])
def test_number_words_bad_input(bad, exc):
    with pytest.raises(exc, match=str(bad).replace('.', r'\.') if exc is TypeError else None):
        de_number(bad)

@pytest.mark.slow                     # draws the 62,000 numbers of the corpus four times
def test_number_splits_cover_what_people_type_and_hold_out_the_rest():
    sp = _number_splits()
    tr, va, te = (set(sp[k]) for k in ('train', 'valid', 'test'))
    assert (len(sp['train']), len(sp['valid']), len(sp['test'])) == (60_000, 1_000, 1_000)
    common = set(_common_numbers())
    assert {0, 7, 10, 17, 99, 100, 900, 1000, 2000, 99_000, 100_000, 900_000} <= common <= tr and len(common) == 217
    counts = {n: sp['train'].count(n) for n in (0, 7, 10, 100, 2000, 100_000)}
    assert min(counts.values()) >= 10, counts                              # what people type first, many times
    assert not (tr & va) - set(range(100)) and not (tr & te) - set(range(100)) and not (va & te) - set(range(100))
    assert not (va | te) & (common - set(range(100)))                     # round numbers are never held out
    for split in ('valid', 'test'):                                       # every magnitude, evenly where it can be
        count = {k: sum(magnitude(n) == k for n in sp[split]) for k in MAGNITUDES}
        assert count == {'0-99': 100, '100-999': 148, '1,000-99,999': 376, '100,000-999,999': 376}, count
    train_mags = {k: sum(magnitude(n) == k for n in sp['train']) / 60_000 for k in MAGNITUDES}
    assert all(share > 0.05 for share in train_mags.values()) and train_mags['100,000-999,999'] > 0.4, train_mags
    assert max(tr | va | te) <= 999_999 and _number_splits() == sp and _number_splits(seed=1) != sp
    assert max(_number_splits(n_train=500, n_valid=10, n_test=10, max_n=5_000)['train']) <= 5_000
    with pytest.raises(ValueError, match='not all on zero'): _number_splits(thousands=(1, 0, 0, 0))
    with pytest.raises(ValueError, match='holds too few'): _number_splits(n_valid=900_000, n_test=900_000)

def test_exact_by_magnitude_and_number_scores():
    pairs = [(en_number(n), de_number(n)) for n in (7, 10, 100, 2000, 342_071)]
    hyps = ['siebentausendsieben', 'zehn', 'einhundert', 'zweitausend', 'dreihundertzweiundvierzigtausendeinundsiebzig']
    by = exact_by_magnitude(pairs, hyps)
    assert by == {'0-99': {'exact_match': 50.0, 'n': 2}, '100-999': {'exact_match': 100.0, 'n': 1},
                  '1,000-99,999': {'exact_match': 100.0, 'n': 1}, '100,000-999,999': {'exact_match': 100.0, 'n': 1}}
    assert exact_by_magnitude([p[::-1] for p in pairs], [en_number(n) for n in (7, 10, 100, 2000, 1)])['100,000-999,999'] == \
        {'exact_match': 0.0, 'n': 1}                                       # de -> en: read from the reference
    sc = number_scores(pairs, [t for _, t in pairs])
    assert sc['bleu_char'] == 100.0 and 'tok:char' in sc['bleu_char_signature']
    with pytest.raises(ValueError, match='numbers corpus'): number_scores([('ein Hund', 'a dog')], ['a dog'])
    for n in (0, 1, 19, 20, 21, 101, 1001, 10_000, 100_001, 999_999): assert _en_number_value(en_number(n)) == n
    with pytest.raises(ValueError, match='not a number in words'): _en_number_value('one hundred and one')

def test_numbers_corpus_directions_and_sizes():
    kw = dict(n_train=500, n_valid=50, n_test=50, seed=3)
    ende, deen = numbers_corpus('en', 'de', **kw), load_dataset('numbers', 'de', 'en', **kw)
    assert (ende.src_lang, ende.tgt_lang, deen.src_lang, deen.tgt_lang) == ('en', 'de', 'de', 'en')
    assert deen.train == [(t, s) for s, t in ende.train] and ende.reverse().test == deen.test
    assert ('twenty-one', 'einundzwanzig') in ende.train
    assert {s for s, _ in ende.train}.isdisjoint({s for s, _ in ende.valid + ende.test if _en_number_value(s) >= 100})
    with pytest.raises(ValueError, match="'fr'"): numbers_corpus('en', 'fr')

def test_copy_corpus():
    c = load_dataset('copy', n_train=300, n_valid=30, n_test=30, n_symbols=5, max_len=6)
    assert all(s == t for sp in (c.train, c.valid, c.test) for s, t in sp)
    assert len({s for s, _ in c.train + c.valid + c.test}) == 360
    assert set(' '.join(s for s, _ in c.train).split()) <= set('abcde')
    assert _copy_corpus(300, 30, 30, n_symbols=5, max_len=6) == c

# ---------------------------------------------------------------- bad input in files

def test_line_count_mismatch_names_both_files_and_counts(tmp_path):
    (tmp_path/'x.de').write_text('a\nb\nc\n'); (tmp_path/'x.en').write_text('a\nb\n')
    with pytest.raises(ValueError) as e: read_parallel(tmp_path/'x.de', tmp_path/'x.en')
    msg = str(e.value)
    assert str(tmp_path/'x.de') in msg and str(tmp_path/'x.en') in msg and '3 lines' in msg and 'has 2' in msg

def test_invalid_utf8_gives_file_and_line(tmp_path):
    (tmp_path/'x.de').write_bytes(gzip.compress(b'eins\nzwei\ndrei\nvi\xc3er\n'))
    (tmp_path/'x.en').write_text('one\ntwo\nthree\nfour\n')
    with pytest.raises(ValueError, match=r'x\.de, line 4: invalid UTF-8'): read_parallel(tmp_path/'x.de', tmp_path/'x.en')
    (tmp_path/'y.en').write_bytes(b'\xff\n')
    with pytest.raises(ValueError, match=r'y\.en, line 1: invalid UTF-8'): read_lines(tmp_path/'y.en')

def test_empty_lines_dropped_on_both_sides_and_counted(tmp_path):
    (tmp_path/'x.de').write_text('eins\n\ndrei\nvier\n  \nsechs\n')
    (tmp_path/'x.en').write_text('one\ntwo\nthree\n\nfive\nsix\n')
    with pytest.warns(UserWarning, match=r'dropped 3 of 6 sentence pairs .*line 2, 4, 5\)'):
        pairs = read_parallel(tmp_path/'x.de', tmp_path/'x.en')
    assert pairs == [('eins', 'one'), ('drei', 'three'), ('sechs', 'six')]

def test_clean_files_do_not_warn(tmp_path):
    (tmp_path/'x.de').write_text('\ufeffeins\r\nzwei\r\n'); (tmp_path/'x.en').write_text('one\ntwo')  # BOM, CRLF, no final \n
    with warnings.catch_warnings(): warnings.simplefilter('error'); pairs = read_parallel(tmp_path/'x.de', tmp_path/'x.en')
    assert pairs == [('eins', 'one'), ('zwei', 'two')]

def test_missing_file_lists_what_was_expected(tmp_path):
    (tmp_path/'x.de').write_text('eins\n')
    with pytest.raises(FileNotFoundError) as e: read_parallel(tmp_path/'x.de', tmp_path/'x.en')
    assert str(tmp_path/'x.en') in str(e.value) and 'not found' in str(e.value)
    with pytest.raises(FileNotFoundError, match=r'expected train\.de and train\.en .* in data_dir=' + re.escape(repr(str(tmp_path))) + '; found'):
        load_dataset('files', 'de', 'en', data_dir=tmp_path)
    with pytest.raises(FileNotFoundError, match=re.escape(f"data_dir='{tmp_path}/none' is not a folder")):
        load_dataset('files', 'de', 'en', data_dir=tmp_path/'none')
    (tmp_path/'e.de').write_text(''); (tmp_path/'e.en').write_text(''); (tmp_path/'b.de').write_text('\n\n'); (tmp_path/'b.en').write_text(' \n\n')
    with pytest.raises(ValueError, match=r"train=\('\S+e\.de', '\S+e\.en'\) holds no sentence pair: the files are empty"):
        load_dataset('files', train=(tmp_path/'e.de', tmp_path/'e.en'))
    with pytest.warns(UserWarning, match='dropped 2 of 2'), pytest.raises(ValueError, match=r"holds no sentence pair"):
        load_dataset('files', train=(tmp_path/'b.de', tmp_path/'b.en'))

def test_files_dataset(tmp_path):
    for sp, de, en in [('train', 'eins\nzwei\n', 'one\ntwo\n'), ('val', 'drei\n', 'three\n'), ('test', 'vier\n', 'four\n')]:
        (tmp_path/f'{sp}.de.gz').write_bytes(gzip.compress(de.encode())); (tmp_path/f'{sp}.en').write_text(en)
    d = load_dataset('files', 'de', 'en', data_dir=tmp_path)
    assert (d.train, d.valid, d.test) == ([('eins', 'one'), ('zwei', 'two')], [('drei', 'three')], [('vier', 'four')])
    d2 = load_dataset('files', train=('train.en', 'train.de.gz'), test=(tmp_path/'test.en', tmp_path/'test.de.gz'),
                      data_dir=tmp_path)
    assert d2.train == [('one', 'eins'), ('two', 'zwei')] and d2.valid == [] and d2.test == [('four', 'vier')]
    (tmp_path/'test.de.gz').unlink()
    with pytest.raises(FileNotFoundError, match=r'expected test\.de and test\.en'): load_dataset('files', 'de', 'en', data_dir=tmp_path)
    with pytest.raises(ValueError, match='unknown dataset'): load_dataset('wmt15')
    with pytest.raises(TypeError, match='n_train'): load_dataset('files', train=('a', 'b'), n_train=3)
    with pytest.raises(ValueError, match='data_dir'): load_dataset('numbers', data_dir=tmp_path)

# ---------------------------------------------------------------- the dataset registry

def test_registry_holds_the_built_in_corpora_and_names_them():
    assert {'numbers', 'copy', 'multi30k', 'files'} <= set(D.DATASETS)
    with pytest.raises(ValueError, match=r"unknown dataset 'wmt15'; registered: numbers, copy, multi30k, files.*"
                                         r"get_task\('parsing'\) loads the parsing one"):
        load_dataset('wmt15')

def test_register_dataset_and_its_argument_checks(monkeypatch, tmp_path):
    monkeypatch.setattr(D, 'DATASETS', dict(D.DATASETS))          # registrations made here are undone afterwards
    calls = []
    @D._register_dataset('tiny-pairs')
    def tiny(src_lang, tgt_lang, data_dir, n=2, upper=False):
        calls.append((src_lang, tgt_lang, data_dir))
        pairs = [(f'w{i}', f'W{i}' if upper else f'w{i}') for i in range(n)]
        return ParallelData('tiny-pairs', src_lang or 'x', tgt_lang or 'y', pairs, pairs[:1], pairs[:1])
    assert tiny.__name__ == 'tiny' and 'tiny-pairs' in D.DATASETS          # the decorator returns the function
    d = load_dataset('tiny-pairs', n=3, upper=True)
    assert (d.name, d.src_lang, d.tgt_lang, d.train) == ('tiny-pairs', 'x', 'y', [('w0', 'W0'), ('w1', 'W1'), ('w2', 'W2')])
    assert calls == [(None, None, None)]
    load_dataset('tiny-pairs', 'a', 'b', tmp_path)                          # not generated: the folder is passed on
    assert calls[-1] == ('a', 'b', tmp_path)
    with pytest.raises(TypeError, match=r"load_dataset\('tiny-pairs'\) got unexpected arguments \['m', 'z'\]; "
                                        r"it takes \['n', 'upper'\]"):
        load_dataset('tiny-pairs', z=1, m=2, n=1)
    assert len(calls) == 2                                                  # refused before the loader ran

    def generate(n_train=3, seed=0): return [(str(seed + i), str(seed + i)) for i in range(n_train)]
    @D._register_dataset('counting', generated=True, takes=generate)         # **kwargs go on to `generate`
    def _counting(src_lang, tgt_lang, data_dir, **kwargs):
        pairs = generate(**kwargs); return ParallelData('counting', 'n', 'n', pairs, [], [])
    assert load_dataset('counting', n_train=2, seed=5).train == [('5', '5'), ('6', '6')]
    with pytest.raises(TypeError, match=r"got unexpected arguments \['n_trian'\]; it takes \['n_train', 'seed'\]"):
        load_dataset('counting', n_trian=2)
    with pytest.raises(ValueError, match=r"the 'counting' corpus is generated by the package; data_dir=.* is not used"):
        load_dataset('counting', data_dir=tmp_path)
    assert 'tiny-pairs' in load_dataset.__globals__['DATASETS']
    with pytest.raises(ValueError, match=r"registered: .*tiny-pairs, counting"): load_dataset('nope')

@pytest.mark.parametrize('name,kw,takes', [
    ('copy', dict(n_symbol=5), 'n_symbols'), ('numbers', dict(n_tarin=5), 'n_train'),
    ('multi30k', dict(cache=None), 'cache_dir'), ('files', dict(valid_path='x'), 'valid')])
def test_built_in_loaders_refuse_unknown_arguments_by_name(name, kw, takes):
    with pytest.raises(TypeError, match=rf"load_dataset\('{name}'\) got unexpected arguments \['{list(kw)[0]}'\]; it takes \[.*'{takes}'"):
        load_dataset(name, **kw)

@pytest.mark.slow
def test_parsing_registers_itself_when_imported():
    "datasets does not import parsing (imports point one way): 'parsing' exists once the registry loads the parsing task."
    import subprocess, sys
    code = ("from transformer_nb.lib.datasets import DATASETS, load_dataset\n"
            "assert 'parsing' not in DATASETS, sorted(DATASETS)\n"
            "try: load_dataset('parsing')\n"
            "except ValueError as e: assert \"get_task('parsing')\" in str(e), e\n"
            "else: raise AssertionError('parsing loaded without its module')\n"
            "from transformer_nb.apps.tasks import get_task; get_task('parsing')\n"
            "d = load_dataset('parsing', n_train=20, n_valid=3, n_test=4, seed=1)\n"
            "assert (d.name, d.src_lang, d.tgt_lang) == ('parsing', 'en', 'tree'), d\n"
            "assert (len(d.train), len(d.valid), len(d.test)) == (20, 3, 4)\n"
            "assert load_dataset('parsing', tgt_lang='tree-tags', n_train=5, n_valid=1, n_test=1).tgt_lang == 'tree-tags'\n"
            "print('ok')\n")
    r = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert r.returncode == 0 and r.stdout.strip() == 'ok', r.stderr[-2000:]

# ---------------------------------------------------------------- Multi30k: local folder, checksums, fake downloads

@pytest.fixture(scope='module')
def M30K():
    "The local Multi30k folder ($TNB_MULTI30K, a shared/data/multi30k above the checkout, or the download cache), else skip."
    return skip_without_multi30k()

def test_find_multi30k_finds_a_checksummed_copy(M30K):
    "The folder found holds the release the package knows, byte for byte; $TNB_MULTI30K is the first place looked."
    for n, h in _MULTI30K_SHA256.items(): assert sha256_file(M30K/n) == h, n
    if os.environ.get('TNB_MULTI30K'): assert M30K == Path(os.environ['TNB_MULTI30K']).expanduser()

def test_find_multi30k_looks_in_order(tmp_path, monkeypatch):
    "$TNB_MULTI30K, else a shared/data/multi30k in the start folder or above it, else the download cache when complete."
    import transformer_nb
    monkeypatch.setattr(transformer_nb, '__file__', str(tmp_path/'site'/'transformer_nb'/'__init__.py'))   # no shared/ above
    monkeypatch.setenv('TNB_CACHE_DIR', str(tmp_path/'cache')); monkeypatch.delenv('TNB_MULTI30K', raising=False)
    start = tmp_path/'repo'/'nbs'; start.mkdir(parents=True)
    inside, is_file = tmp_path.resolve(), Path.is_file                           # a copy above tmp_path (a clone in /tmp
    monkeypatch.setattr(Path, 'is_file', lambda p: p.resolve().is_relative_to(inside) and is_file(p))  # with /tmp/shared) is hidden
    assert find_multi30k(start) is None                                          # nothing anywhere
    cache = tmp_path/'cache'/'multi30k'; cache.mkdir(parents=True)
    for n in list(_MULTI30K_SHA256)[:-1]: (cache/n).touch()
    assert find_multi30k(start) is None                                          # an incomplete cache does not count
    (cache/list(_MULTI30K_SHA256)[-1]).touch()
    assert find_multi30k(start) == cache
    shared = tmp_path/'shared'/'data'/'multi30k'; shared.mkdir(parents=True); (shared/'train.en.gz').touch()
    assert find_multi30k(start) == shared                                        # ../shared beside a clone
    monkeypatch.setenv('TNB_MULTI30K', str(tmp_path/'mine'))
    assert find_multi30k(start) == tmp_path/'mine'                               # the environment wins

def test_multi30k_local_load(M30K):
    d = load_dataset('multi30k', 'de', 'en', data_dir=M30K)
    assert (d.name, d.src_lang, d.tgt_lang) == ('multi30k', 'de', 'en')
    assert (len(d.train), len(d.valid), len(d.test)) == (29_000, 1_014, 1_000)
    assert d.train[0] == ('Zwei junge weiße Männer sind im Freien in der Nähe vieler Büsche.',
                          'Two young, White males are outside near many bushes.')
    fr = load_dataset('multi30k', 'en', 'fr', data_dir=M30K)
    assert fr.train[0][0] == d.train[0][1] and len(fr.test) == 1_000
    assert load_dataset('multi30k', data_dir=M30K).src_lang == 'de'
    with pytest.raises(ValueError, match="'es'"): load_dataset('multi30k', 'de', 'es', data_dir=M30K)

def _copy_m30k(M30K:Path, dst:Path, names=None):
    dst.mkdir(parents=True, exist_ok=True)
    for n in names or _MULTI30K_SHA256: (dst/n).write_bytes((M30K/n).read_bytes())
    return dst

def test_multi30k_local_checksum_mismatch_and_missing(tmp_path, M30K):
    d = _copy_m30k(M30K, tmp_path/'m')
    (d/'val.en.gz').write_bytes(gzip.compress(b'A dog.\n'))
    with pytest.raises(ValueError, match=r'checksum mismatch: .*val\.en\.gz has sha256 [0-9a-f]{64}, expected 14f7d25d'):
        multi30k('de', 'en', data_dir=d)
    assert (d/'val.en.gz').exists()                        # a folder that is the user's is never modified
    (d/'val.en.gz').unlink(); (d/'train.de.gz').unlink()
    with pytest.raises(FileNotFoundError) as e: multi30k('de', 'en', data_dir=d)
    msg = str(e.value)
    assert str(d) in msg and 'missing: train.de.gz, val.en.gz' in msg and 'test_2016_flickr.de.gz' in msg
    assert _MULTI30K_URL in msg

@pytest.fixture
def fake_net(monkeypatch, M30K):
    "urllib.request.urlopen replaced by a server of the local Multi30k bytes; records the URLs asked for."
    served, calls = {_MULTI30K_URL + n: (M30K/n).read_bytes() for n in _MULTI30K_SHA256}, []
    def urlopen(url, timeout=None):
        calls.append(url)
        if url not in served: raise urllib.error.URLError('404')
        return io.BytesIO(served[url])
    monkeypatch.setattr(urllib.request, 'urlopen', urlopen)
    return served, calls

def test_download_into_cache_then_reuse(tmp_path, fake_net, monkeypatch):
    served, calls = fake_net
    monkeypatch.setenv('TNB_CACHE_DIR', str(tmp_path/'cache'))
    d = load_dataset('multi30k', 'de', 'en')
    assert len(d.train) == 29_000 and len(calls) == 6
    assert sorted(p.name for p in (tmp_path/'cache'/'multi30k').iterdir()) == sorted(
        f'{s}.{l}.gz' for s in ('train', 'val', 'test_2016_flickr') for l in ('de', 'en'))
    load_dataset('multi30k', 'de', 'en'); assert len(calls) == 6          # cached: no new request
    with pytest.raises(FileNotFoundError, match=r'train\.fr\.gz'): load_dataset('multi30k', 'de', 'fr', download=False)
    assert len(calls) == 6

def test_cache_dir_argument_and_default(tmp_path, fake_net, monkeypatch):
    monkeypatch.delenv('TNB_CACHE_DIR', raising=False); monkeypatch.setenv('XDG_CACHE_HOME', str(tmp_path/'xdg'))
    assert get_cache_dir() == tmp_path/'xdg'/'transformer_nb'
    assert get_cache_dir(tmp_path/'c') == tmp_path/'c'
    files = _multi30k_files('en', 'de', cache_dir=tmp_path/'c')
    assert files['valid'] == (tmp_path/'c'/'multi30k'/'val.en.gz', tmp_path/'c'/'multi30k'/'val.de.gz')

def test_download_checksum_mismatch_leaves_no_file(tmp_path, fake_net):
    served, calls = fake_net
    url = _MULTI30K_URL + 'val.en.gz'; served[url] = served[url][:-10] + b'corrupted!'
    with pytest.raises(ValueError, match='checksum mismatch for .*val.en.gz'):
        multi30k('de', 'en', cache_dir=tmp_path)
    cache = tmp_path/'multi30k'
    assert 'val.en.gz' not in [p.name for p in cache.iterdir()]
    assert not [p for p in cache.iterdir() if p.name.startswith('.') or p.suffix == '.part']   # no temp files either

def test_corrupt_cached_file_is_replaced(tmp_path, fake_net, M30K):
    served, calls = fake_net
    cache = _copy_m30k(M30K, tmp_path/'multi30k')
    (cache/'train.en.gz').write_bytes(b'truncated')
    d = multi30k('de', 'en', cache_dir=tmp_path)
    assert calls == [_MULTI30K_URL + 'train.en.gz'] and len(d.train) == 29_000
    assert sha256_file(cache/'train.en.gz') == _MULTI30K_SHA256['train.en.gz']
    (cache/'train.en.gz').write_bytes(b'truncated')
    with pytest.raises(ValueError, match='checksum mismatch'): multi30k('de', 'en', cache_dir=tmp_path, download=False)
    assert not (cache/'train.en.gz').exists()              # the corrupt file did not stay in the cache

def test_network_error_says_what_to_do(tmp_path, monkeypatch):
    def offline(url, timeout=None): raise urllib.error.URLError('Name or service not known')
    monkeypatch.setattr(urllib.request, 'urlopen', offline)
    with pytest.raises(OSError, match=r'could not download .*train\.de\.gz.*data_dir='):
        multi30k('de', 'en', cache_dir=tmp_path)
    assert not any((tmp_path/'multi30k').iterdir())

def testdownload_file_with_fetch_function(tmp_path):
    data = b'hello'; h = hashlib.sha256(data).hexdigest(); (tmp_path/'sub').mkdir()   # a file goes into a folder that is there
    assert download_file('u', tmp_path/'sub'/'f', h, fetch=lambda u: io.BytesIO(data)).read_bytes() == data
    with pytest.raises(ValueError, match='checksum mismatch'):
        download_file('u', tmp_path/'sub'/'g', h, fetch=lambda u: io.BytesIO(b'x'))
    assert sorted(p.name for p in (tmp_path/'sub').iterdir()) == ['f']

# ---------------------------------------------------------------- tokenizer

@pytest.fixture(scope='module')
def m30k(M30K): return multi30k('de', 'en', data_dir=M30K)

@pytest.fixture(scope='module')
def tok(m30k): return StoredTokenizer.train(m30k, vocab_size=4000)

def test_tokenizer_special_ids_and_round_trip(tok, m30k):
    assert [tok.sp.id_to_piece(i) for i in range(4)] == ['<pad>', '<unk>', '<s>', '</s>']
    assert (tok.sp.pad_id(), tok.sp.unk_id(), tok.sp.bos_id(), tok.sp.eos_id()) == (PAD_ID, UNK_ID, BOS_ID, EOS_ID)
    assert tok.vocab_size == len(tok) == 4000
    for s, t in m30k.test[:200]:
        for x in (s, t):
            ids = tok.encode(x)
            assert min(ids) > EOS_ID and tok.decode(ids) == x
    batch = tok.encode([s for s, _ in m30k.test[:3]])
    assert batch == [tok.encode(s) for s, _ in m30k.test[:3]]

def test_tokenizer_decode_stops_and_skips(tok):
    ids = tok.encode('Ein Hund läuft.')
    assert tok.decode([BOS_ID] + ids + [EOS_ID] + tok.encode('Katze') + [PAD_ID]) == 'Ein Hund läuft.'
    assert tok.decode(torch.tensor([[BOS_ID] + ids + [EOS_ID], [BOS_ID, EOS_ID] + [PAD_ID] * len(ids)])) == ['Ein Hund läuft.', '']
    with pytest.raises(IndexError, match='4000'): tok.decode([5, 4000])

def test_tokenizer_unknown_characters_map_to_unk(tok):
    ids = tok.encode('Ein ☃ 日本')
    assert ids.count(UNK_ID) == 2 and tok.decode(ids).split()[0] == 'Ein'

def test_tokenizer_bytes_pickle_and_checkpoint(tok, tmp_path):
    b = tok.to_bytes(); assert isinstance(b, bytes)
    t2 = StoredTokenizer.from_bytes(b); assert t2 == tok and t2.encode('Ein Hund.') == tok.encode('Ein Hund.')
    assert pickle.loads(pickle.dumps(tok)) == tok
    torch.save({'tokenizer': b}, tmp_path/'ck.pt')
    assert StoredTokenizer.from_bytes(torch.load(tmp_path/'ck.pt', weights_only=True)['tokenizer']) == tok
    assert StoredTokenizer.from_bytes(torch.frombuffer(bytearray(b), dtype=torch.uint8)) == tok
    tok.save(tmp_path/'tok.model'); assert StoredTokenizer.load(tmp_path/'tok.model') == tok
    with pytest.raises(ValueError, match='not a SentencePiece model'): StoredTokenizer.from_bytes(b'garbage')

def test_tokenizer_case_folding_and_byte_fallback_travel_with_it(tmp_path):
    "SentencePiece's own options: folded case and bytes for unseen characters, kept by to_bytes (and so by checkpoints)."
    nums = load_dataset('numbers')
    t = StoredTokenizer.train(nums.train_texts()[:20000], vocab_size=600, normalization_rule_name='nmt_nfkc_cf', byte_fallback=True)
    torch.save({'tokenizer': t.to_bytes()}, tmp_path / 'ck.pt')
    back = StoredTokenizer.from_bytes(torch.load(tmp_path / 'ck.pt', weights_only=True)['tokenizer'])
    assert back == t and back.options == {'case_folding': True, 'byte_fallback': True} and 'case folding' in repr(back)
    for typed in ('Seven', 'THREE', 'Zero', 'Three Hundred Forty-Two'): assert back.encode(typed) == back.encode(typed.lower())
    assert UNK_ID not in back.encode('zwölf ☃ 日本') and back.decode(back.encode('zwölf ☃ 日本')) == 'zwölf ☃ 日本'
    plain = StoredTokenizer.train(nums.train_texts()[:20000], vocab_size=600)
    assert plain.options == {'case_folding': False, 'byte_fallback': False} and UNK_ID in plain.encode('Seven')

def test_tokenizer_learns_from_training_split_only():
    d = ParallelData('t', 'a', 'b', [('alpha beta', 'gamma delta')] * 50, valid=[('Ω', 'Ω')], test=[('Ж', 'Ж')])
    t = StoredTokenizer.train(d, vocab_size=40)
    assert t.encode('Ω')[-1] == UNK_ID and t.encode('Ж')[-1] == UNK_ID and UNK_ID not in t.encode('gamma beta')

def test_tokenizer_deterministic_and_bad_args(m30k):
    small = ParallelData('s', 'de', 'en', m30k.train[:2000])
    assert StoredTokenizer.train(small, vocab_size=500).to_bytes() == StoredTokenizer.train(small, vocab_size=500).to_bytes()
    with pytest.raises(ValueError, match='vocab_size=12'): StoredTokenizer.train(small, vocab_size=12)
    with pytest.raises(TypeError): StoredTokenizer.train('just one string')
    with pytest.raises(ValueError, match='no'): StoredTokenizer.train(['', ''])

def test_encode_pairs_conventions(tok, m30k):
    enc = encode_pairs(tok, m30k.valid[:50])
    for (s, t), (src, tgt) in zip(m30k.valid[:50], enc):
        assert src == tok.encode(s) + [EOS_ID] and tgt == [BOS_ID] + tok.encode(t) + [EOS_ID]
    with pytest.warns(UserWarning, match='dropped .* longer than max_len=10'):
        short = encode_corpus(tok, m30k.valid[:50], max_len=10)
    assert all(len(s) <= 10 and len(t) <= 10 for s, t in short) and len(short) < 50

# ---------------------------------------------------------------- what data's public functions refuse

def _tok(): return StoredTokenizer.train(['a b c', 'd e f g', 'h i'] * 50, vocab_size=20)

@pytest.mark.parametrize('call, exc, says', [
    (lambda: StoredTokenizer.train(None), TypeError, 'wants a ParallelData or a list of sentences, got a NoneType'),
    (lambda: StoredTokenizer.train([1, 2]), TypeError, 'a sentence is a int, not a str'),
    (lambda: StoredTokenizer('model.spm'), TypeError, "a SentencePiece model's bytes, got a str (a file: StoredTokenizer.load(path))"),
    (lambda: StoredTokenizer.load('/nonexistent/x.model'), FileNotFoundError, '/nonexistent/x.model: no such file'),
    (lambda: StoredTokenizer.load('/'), FileNotFoundError, 'is a folder, not a SentencePiece model'),
    (lambda: _tok().decode('a b'), TypeError, 'decode wants token ids (ints), got a str'),
    (lambda: _tok().decode([5, 1.5]), ValueError, 'token ids are whole numbers, got 1.5'),
    (lambda: encode_corpus(None, [('a', 'b')]), TypeError, 'encode_pairs wants a Tokenizer first'),
    (lambda: encode_corpus(_tok(), 'a b'), ValueError, 'a list of (source, target) pairs'),
    (lambda: encode_corpus(_tok(), [('a', 'b', 'c')]), ValueError, 'a list of (source, target) pairs'),
    (lambda: encode_corpus(_tok(), [('a b', 'c')], max_len=0), ValueError, 'max_len=0 must be an int in [2, 1000000], or None'),
    (lambda: encode_corpus(_tok(), [('a b', 'c')], max_len=float('nan')), ValueError, 'max_len=nan must be an int in [2, 1000000]'),
    (lambda: encode_corpus(_tok(), [('a b c d e f', 'c')], max_len=3), ValueError, 'every one of the 1 pairs is longer than max_len=3'),
    (lambda: encode_corpus(_tok(), [('a b', 'c'), ('a', None)]), TypeError, 'pairs[1] holds a NoneType, not a str: None'),
    (lambda: StoredTokenizer.load(None), TypeError, "StoredTokenizer.load wants a file's path, got a NoneType"),
    (lambda: DistributedTokenBatchSampler([-3, 4], [3, 4], 10), ValueError, 'at least one source and one target token'),
    (lambda: DistributedTokenBatchSampler([3, 4], [3, 4], 10, rank=0.5, world_size=2), ValueError, 'rank=0.5 must be an int >= 0'),
    (lambda: DistributedTokenBatchSampler([3, 4], [3, 4], 10, seed=-1), ValueError, 'seed=-1 must be an int in [0, 4294967295]'),
    (lambda: padding_efficiency([], [1], [1]), ValueError, 'needs batches'),
    (lambda: padding_efficiency([[5]], [1], [1]), ValueError, 'a batch holds example 5, but there are 1 lengths'),
])
def test_data_refuses_in_the_callers_terms(call, exc, says):
    with pytest.raises(exc) as e: call()
    assert says in str(e.value) and '\n' not in str(e.value), str(e.value)


# ---------------------------------------------------------------- batching

def _lens(n=3000, seed=0):
    rng = np.random.default_rng(seed)
    s = rng.integers(2, 60, n); t = np.clip(s + rng.integers(-5, 6, n), 2, None)
    return s.tolist(), t.tolist()

@pytest.mark.parametrize('max_tokens', [70, 500, 4000])
def test_sampler_respects_max_tokens_and_covers_each_index_once(max_tokens):
    s, t = _lens()
    smp = TokenBatchSampler(s, t, max_tokens)
    for epoch in range(3):
        smp.set_epoch(epoch); bs = list(smp)
        assert len(bs) == len(smp)
        assert all(len(b) * max(s[i] for i in b) <= max_tokens and len(b) * max(t[i] for i in b) <= max_tokens for b in bs)
        assert sorted(i for b in bs for i in b) == list(range(len(s)))

def test_sampler_deterministic_per_epoch_and_different_across_epochs():
    s, t = _lens()
    a, b = TokenBatchSampler(s, t, 1000, seed=5), TokenBatchSampler(s, t, 1000, seed=5)
    a.set_epoch(3); b.set_epoch(3); assert list(a) == list(b)
    e3 = list(a); a.set_epoch(4); e4 = list(a)
    assert e3 != e4 and {frozenset(x) for x in e3} != {frozenset(x) for x in e4}   # new order and new batches
    assert list(TokenBatchSampler(s, t, 1000, seed=6)) != list(TokenBatchSampler(s, t, 1000, seed=5))
    ns = TokenBatchSampler(s, t, 1000, shuffle=False); first = list(ns); ns.set_epoch(1)
    assert list(ns) == first and [i for b in first for i in b] == sorted(range(len(s)), key=lambda i: (max(s[i], t[i]), s[i], t[i], i))

def test_sampler_buckets_by_length():
    s, t = _lens()
    bs = list(TokenBatchSampler(s, t, 2000))
    size = round(len(s) / len(bs)); p = np.random.default_rng(0).permutation(len(s)).tolist()
    naive = [p[i:i + size] for i in range(0, len(s), size)]
    assert padding_efficiency(bs, s, t)['both'] > 0.9 and padding_efficiency(naive, s, t)['both'] < 0.7

@pytest.mark.parametrize('world_size', [2, 3, 4, 7])
def test_sampler_ddp_shards_disjoint_equal_complete(world_size):
    s, t = _lens(1001)
    for epoch in (0, 1):
        shards = []
        for r in range(world_size):
            smp = DistributedTokenBatchSampler(s, t, 3000, rank=r, world_size=world_size); smp.set_epoch(epoch)
            shards.append(list(smp))
        assert len({len(x) for x in shards}) == 1                                     # same number of batches
        idx = [i for x in shards for b in x for i in b]
        assert len(idx) == len(set(idx)) == len(s)                                    # disjoint and complete
        assert all(b for x in shards for b in x)                                      # no empty batch

def test_sampler_ddp_splits_batches_when_needed():
    s, t = [10] * 9, [10] * 9                                   # 3 batches of 3 at max_tokens=30 -> 4 for 2 ranks
    shards = [list(DistributedTokenBatchSampler(s, t, 30, rank=r, world_size=2)) for r in range(2)]
    assert [len(x) for x in shards] == [2, 2] and sorted(i for x in shards for b in x for i in b) == list(range(9))
    with pytest.raises(ValueError, match='same number of batches'):
        DistributedTokenBatchSampler([10] * 3, [10] * 3, 10, world_size=2).batches()

def test_sampler_bad_args():
    with pytest.raises(ValueError, match='example 1 has 50 source'): DistributedTokenBatchSampler([5, 50], [5, 5], 40)
    with pytest.raises(ValueError, match='rank=2'): DistributedTokenBatchSampler([5] * 4, [5] * 4, 40, rank=2, world_size=2)
    with pytest.raises(ValueError, match='3 source lengths but 2'): DistributedTokenBatchSampler([5] * 3, [5] * 2, 40)
    with pytest.raises(ValueError, match='max_tokens'): DistributedTokenBatchSampler([5], [5], 0)

def test_collate_shapes_and_padding():
    ex = [([5, 6, EOS_ID], [BOS_ID, 7, EOS_ID]), ([8, EOS_ID], [BOS_ID, 9, 10, 11, EOS_ID]), ([4, 4, 4, 4, EOS_ID], [BOS_ID, EOS_ID])]
    src, tgt = collate(ex)
    assert src.shape == (3, 5) and tgt.shape == (3, 5) and src.dtype == tgt.dtype == torch.long
    assert src.tolist() == [[5, 6, 3, 0, 0], [8, 3, 0, 0, 0], [4, 4, 4, 4, 3]]
    assert tgt.tolist() == [[2, 7, 3, 0, 0], [2, 9, 10, 11, 3], [2, 3, 0, 0, 0]]
    src2, _ = collate([(torch.tensor(s), torch.tensor(t)) for s, t in ex], pad_id=-1)
    assert src2[1].tolist() == [8, 3, -1, -1, -1]
    with pytest.raises(ValueError, match='empty batch'): pad_pairs([])
    assert all(torch.equal(a, b) for a, b in zip(pad_pairs(ex), collate(ex)))

def test_the_checked_data_functions_equal_the_main_lines(tok, m30k):
    "encode_corpus and pad_pairs return what encode_pairs and collate return, on the same pairs."
    enc = encode_pairs(tok, m30k.valid[:200])
    assert encode_corpus(tok, m30k.valid[:200]) == enc == encode_corpus(tok, m30k.valid[:200], num_threads=1)
    for i in range(0, 200, 37):
        assert all(torch.equal(a, b) for a, b in zip(pad_pairs(enc[i:i + 37]), collate(enc[i:i + 37])))
        assert all(torch.equal(a, b) for a, b in zip(pad_pairs(enc[i:i + 37], pad_id=-1), collate(enc[i:i + 37], pad_id=-1)))

def test_the_library_tokenizer_and_sampler_equal_the_main_lines(tok, m30k):
    "StoredTokenizer learns 08's pieces from the same sentences and gives its ids and texts; one rank of DistributedTokenBatchSampler gives 08's batches."
    small = ParallelData('s', 'de', 'en', m30k.train[:3000])
    mine, paper = StoredTokenizer.train(small, vocab_size=600), Tokenizer.train(small.train_texts(), vocab_size=600)
    assert [mine.sp.id_to_piece(i) for i in range(600)] == [paper.sp.id_to_piece(i) for i in range(600)]   # the same pieces, in order
    ids = [BOS_ID] + paper.encode(m30k.valid[0][0]) + [EOS_ID, 7, PAD_ID]
    assert mine.encode([s for s, _ in m30k.valid[:50]]) == paper.encode([s for s, _ in m30k.valid[:50]]) and mine.decode(ids) == paper.decode(ids)
    s, t = _lens()
    for shuffle, epoch in ((True, 0), (True, 5), (False, 2)):
        assert DistributedTokenBatchSampler(s, t, 900, shuffle, seed=3).batches(epoch) == TokenBatchSampler(s, t, 900, shuffle, seed=3).batches(epoch)

def test_dataloader_end_to_end(tok, m30k):
    enc = encode_pairs(tok, m30k.valid)
    smp = TokenBatchSampler([len(s) for s, _ in enc], [len(t) for _, t in enc], 2000)
    dl = torch.utils.data.DataLoader(enc, batch_sampler=smp, collate_fn=collate)
    n = 0
    for src, tgt in dl:
        assert src.numel() <= 2000 and tgt.numel() <= 2000 and (src[:, 0] != PAD_ID).all() and (tgt[:, 0] == BOS_ID).all()
        n += src.shape[0]
    assert n == len(enc)

def test_padding_efficiency():
    assert padding_efficiency([[0, 1]], [2, 4], [3, 3]) == {'src': 0.75, 'tgt': 1.0, 'both': 12 / 14}


# --- corpus files through tnb-train (real processes) ---------------------------------------------------------------------
from conftest import tool, one_line

@pytest.mark.slow
def test_corpus_files_are_named_for_what_they_are(tmp_path, texts):
    os.mkfifo(tmp_path / 'fifo')
    (tmp_path / 'nul.txt').write_bytes(b'a b\nc \x00 d\n' * 20)
    base = ('--dataset', 'files', '--preset', 'tiny', '--steps', '1', '--no-progress', '--test-limit', '0', '--out', tmp_path / 'o')
    one_line(tool('train', '--train', tmp_path, texts / 'ref.txt', *base), 'tnb-train', f'--train {tmp_path} is a folder')
    one_line(tool('train', '--train', tmp_path / 'fifo', texts / 'ref.txt', *base), 'tnb-train', 'is not a regular file')
    one_line(tool('train', '--train', tmp_path / 'nul.txt', texts / 'ref.txt', *base), 'tnb-train', 'nul.txt, line 2: a NUL byte at offset 6')
    assert not (tmp_path / 'o').exists()


# --- bad input to the data functions: one line naming the argument, never NumPy's, pathlib's or range()'s error ---

def _tiny_tok(): return StoredTokenizer.train(['one two three', 'eins zwei drei'] * 20, vocab_size=30)

def test_tokenizer_save_names_the_missing_folder(tmp_path):
    "A missing folder was a raw '[Errno 2] No such file or directory'; a file in the way, 'Not a directory'."
    tok = _tiny_tok()
    with pytest.raises(FileNotFoundError) as e: tok.save(tmp_path / 'no' / 'tok.model')
    assert str(e.value) == f"{tmp_path / 'no' / 'tok.model'}: the folder {tmp_path / 'no'} does not exist", str(e.value)
    (tmp_path / 'f').write_text('x')
    with pytest.raises(NotADirectoryError, match=r'f/tok\.model: .*/f is a file, not a folder$'): tok.save(tmp_path / 'f' / 'tok.model')
    with pytest.raises(IsADirectoryError, match='is a folder; give a file name$'): tok.save(tmp_path)
    with pytest.raises(TypeError, match="^StoredTokenizer.save wants a file's path, got a NoneType$"): tok.save(None)
    tok.save(tmp_path / 'tok.model'); assert StoredTokenizer.load(tmp_path / 'tok.model') == tok

def test_encode_pairs_checks_num_threads_and_pairs():
    tok = _tiny_tok()
    for bad in (-2, 'x', 1.5):                                        # -2 was accepted
        with pytest.raises(ValueError, match=rf'^num_threads={re.escape(repr(bad))} must be an int >= 0, or None'):
            encode_corpus(tok, [('one', 'eins')], num_threads=bad)
    with pytest.raises(ValueError, match=r'^num_threads=-1 must be an int >= 0'): tok.encode(['one'], num_threads=-1)
    assert encode_corpus(tok, [('one', 'eins')], num_threads=0) == encode_corpus(tok, [('one', 'eins')])
    with pytest.raises(ValueError, match=r'^encode_pairs wants a list of \(source, target\) pairs, got None'): encode_corpus(tok, None)

@pytest.mark.parametrize('call, exc, says', [
    (lambda: pad_ids([[1], None]), TypeError, 'seqs[1] is not a list of token ids (ints): None'),
    (lambda: pad_ids([[1], 'ab']), TypeError, "seqs[1] is not a list of token ids (ints): 'ab'"),
    (lambda: pad_ids([[1], [[2]]]), TypeError, 'seqs[1] is not a list of token ids (ints): [[2]]'),
    (lambda: pad_ids(None), ValueError, 'pad_ids wants a non-empty list of id lists, got None'),
    (lambda: pad_ids([[1]], pad_id='x'), TypeError, "pad_id='x' must be an int"),
    (lambda: pad_pairs([([4, 3], [2, 3]), None]), TypeError, 'examples[1] is not a (src_ids, tgt_ids) pair: None'),
    (lambda: pad_pairs([([4, 3], [2, 3]), ([4], [2], [3])]), TypeError, 'examples[1] is not a (src_ids, tgt_ids) pair: ([4], [2], [3])'),
    (lambda: pad_pairs([([4, 3], [2, 3]), ([4], None)]), TypeError, 'examples[1][1] is not a list of token ids (ints): None'),
    (lambda: pad_pairs(None), TypeError, 'collate wants a list of (src_ids, tgt_ids) pairs, got a NoneType'),
])
def test_pad_ids_and_collate_name_the_bad_row(call, exc, says):
    with pytest.raises(exc) as e: call()
    assert str(e.value).startswith(says), str(e.value)

def test_corpus_score_checks_chunk():
    from sacrebleu.metrics import BLEU
    with pytest.raises(ValueError, match=r'^chunk=0 must be an int >= 1'): D.corpus_score(BLEU(), ['a b', 'c'], ['a b', 'c'], 0)

@pytest.mark.parametrize('call, says', [
    (lambda: read_lines(None), "path must be a text file's path, got a NoneType"),
    (lambda: read_parallel('a.de', None), "tgt_path must be a text file's path, got a NoneType"),
    (lambda: get_cache_dir(3), "cache_dir must be a folder's path, got a int"),
    (lambda: D._copy_corpus(n_train='5'), "n_train='5' must be an int >= 0"),
    (lambda: D._copy_corpus(max_len=2.5), 'max_len=2.5 must be an int >= 0'),
])
def test_datasets_name_a_bad_argument(call, says):
    with pytest.raises((TypeError, ValueError)) as e: call()
    assert str(e.value) == says, str(e.value)
    with pytest.raises(ValueError, match=r"^unknown dataset \['copy'\]"): load_dataset(['copy'])

def test_08_runs_offline_without_multi30k(tmp_path):
    "08_data in a Jupyter kernel with no Multi30k to be found and none to download: every cell runs, the main line and its exercises on the numbers corpus, Multi30k's stored figures shown, and Going deeper, which measures Multi30k, is skipped in one line that says how to fetch it."
    import json, os, subprocess, sys
    nbs = Path(__file__).resolve().parents[1] / 'nbs'
    empty = tmp_path / 'no-multi30k'; empty.mkdir()
    env = {k: v for k, v in os.environ.items() if k != 'IN_TEST'}
    env.update(TNB_MULTI30K=str(empty), TNB_CACHE_DIR=str(tmp_path / 'cache'), MPLBACKEND='Agg')
    r = subprocess.run([sys.executable, '-m', 'jupyter', 'nbconvert', '--to', 'notebook', '--execute', '08_data.ipynb',
                        '--output-dir', str(tmp_path), '--ExecutePreprocessor.timeout=300'], cwd=nbs, env=env,
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]
    outs = [o for c in json.loads((tmp_path / '08_data.ipynb').read_text(encoding='utf-8'))['cells'] if c['cell_type'] == 'code'
            for o in c.get('outputs', [])]
    assert not [o for o in outs if o['output_type'] == 'error' or o.get('name') == 'stderr'], outs
    said = [l for o in outs if o.get('name') == 'stdout' for l in ''.join(o['text']).splitlines() if 'Multi30k' in l]
    assert len(said) == 1 and 'Going deeper measures Multi30k' in said[0] and 'multi30k(' in said[0], said
    cells = {c.get('id'): c for c in json.loads((tmp_path / '08_data.ipynb').read_text(encoding='utf-8'))['cells']}
    text = lambda cid: ''.join(''.join(o.get('text', '')) for o in cells[cid].get('outputs', []))
    assert 'pieces;' in text('b8a3993d') and 'largest padded batch' in text('14a534d9'), 'the main line ran on the numbers corpus'
    assert text('b8a3993d').startswith('1024 pieces; ') and "ParallelData('multi30k'" in text('b08f0m31'), "numbers' pieces; Multi30k's stored figures"
    assert 'learn_bpe, segment is not written yet' in text('a08e0012'), "the BPE exercise's checker ran"

def test_files_in_a_relative_data_dir(tmp_path, monkeypatch):
    "`--dataset files --data-dir data/corpus`, a folder given relative to the current one, as the cluster page gives it."
    from transformer_nb.lib.datasets import load_dataset
    (tmp_path / 'data' / 'corpus').mkdir(parents=True)
    for lang, text in (('en', 'a house\nthe cat\n'), ('de', 'ein Haus\ndie Katze\n')): (tmp_path / 'data' / 'corpus' / f'train.{lang}').write_text(text)
    monkeypatch.chdir(tmp_path)
    d = load_dataset('files', 'en', 'de', 'data/corpus')
    assert d.train == [('a house', 'ein Haus'), ('the cat', 'die Katze')]
    assert d.origin['files']['train'] == [str(tmp_path / 'data' / 'corpus' / f'train.{l}') for l in ('en', 'de')]
