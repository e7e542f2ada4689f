"""The tools under hostile inputs and careless use, second round, with real processes: no tool overwrites its own
inputs; every input and resource is bounded; checkpoints are checked against what uses them; one results file holds
every kind of record; streams, locales, warnings and signals end in one line and the right exit code; messages name
the real problem.

Each test runs the command-line tools as a user does (a fresh interpreter per command, one thread, a tiny model
shared by the whole module) and checks the exit code, that stderr is one line naming the problem (never a traceback),
and what survived on disk. Most refusals happen before PyTorch is even imported, so they cost a fraction of a second.
"""
import gc, json, os, pty, shutil, signal, subprocess, sys, threading, time, warnings
from pathlib import Path
import pytest, torch
from transformer_nb.checkpoints import load_checkpoint, save_checkpoint
from transformer_nb.runs import RunFolder
from conftest import ENV, TINY, cmd, tool, tiny_run, one_line, said as lines
pytestmark = pytest.mark.slow        # every test here runs the tools in fresh processes (`pytest -m 'not slow'` skips them)
ENV.update(TNB_THREADS='1', OMP_NUM_THREADS='1', MPLBACKEND='Agg')

@pytest.fixture(scope='module')
def run(tmp_path_factory):
    "A tiny copy-task run of two updates."
    return tiny_run(tmp_path_factory, 'reliability', '--steps', '2')

@pytest.fixture
def texts(tmp_path):
    "Three aligned files of 30 lines: sources, references, and a copy of the sources."
    import random
    rng = random.Random(0)
    src = [' '.join(rng.choice('abcdefghij') for _ in range(rng.randint(1, 6))) for _ in range(30)]
    for name in ('src.txt', 'ref.txt', 'x.txt'): (tmp_path / name).write_text(''.join(s + '\n' for s in src))
    return tmp_path

def snapshot(*paths) -> dict: return {str(p): Path(p).read_bytes() for p in paths}

# In the child: print DECODING on stderr when decoding starts, and never let EOS win, so that every sentence decodes to
# its length limit (input + 50 tokens): a long decoding, one real step after another, whatever the tiny model learned.
_DECODING_SRC = """
import sys, transformer_nb.evaluation as e, transformer_nb.fast_decoding as f, transformer_nb.decoding as d
_b, _g, _n = e.fast_beam_search, e.greedy_decode, d.next_token_logits
def _say(fn):
    def g(*a, **k): print('DECODING', file=sys.stderr, flush=True); return fn(*a, **k)
    return g
def _no_eos(model, logits):
    logits = _n(model, logits).clone(); logits[:, 3] = -float('inf'); return logits
e.fast_beam_search, e.greedy_decode = _say(_b), _say(_g)
f.next_token_logits = d.next_token_logits = _no_eos
"""
DECODING = f"exec({_DECODING_SRC!r})"

def _wait_for(p, buf, text, timeout):
    end = time.time() + timeout
    while time.time() < end and p.poll() is None:
        if text in b''.join(buf).decode('utf-8', 'replace'): return True
        time.sleep(0.05)
    return text in b''.join(buf).decode('utf-8', 'replace')

def _collect(stream, buf):
    t = threading.Thread(target=lambda: [buf.append(c) for c in iter(lambda: stream.read1(4096) if hasattr(stream, 'read1') else os.read(stream, 4096), b'')], daemon=True)
    t.start(); return t

def _sigint_default():
    "Default dispositions in the child, as in a terminal, whatever pytest inherited (a background job, `nohup`)."
    for s in (signal.SIGINT, signal.SIGHUP, signal.SIGTERM, signal.SIGPIPE, signal.SIGQUIT): signal.signal(s, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_SETMASK, [])

# ---------------------------------------------------------------------------------------------------------------
# 1. Outputs never overwrite inputs
# ---------------------------------------------------------------------------------------------------------------
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

def test_train_never_writes_over_its_corpus(tmp_path, texts):
    "A corpus file that is one of the files a run writes into --out (its loss curve, its log) is refused before training."
    out = tmp_path / 'out'; out.mkdir(); shutil.copy(texts / 'src.txt', out / 'loss.png')
    r = tool('train', '--dataset', 'files', '--train', out / 'loss.png', texts / 'ref.txt', '--out', out, '--steps', '2',
             '--preset', 'tiny', '--no-progress', '--test-limit', '0')
    one_line(r, 'tnb-train', f"--train {out / 'loss.png'} is {out / 'loss.png'}, a file this run writes")
    assert (out / 'loss.png').read_bytes() == (texts / 'src.txt').read_bytes()

# ---------------------------------------------------------------------------------------------------------------
# 2. Bounds on everything a user can make huge
# ---------------------------------------------------------------------------------------------------------------
def test_a_huge_line_is_refused_at_once_naming_it(run, tmp_path):
    "A 1 MB line would be minutes of uninterruptible attention: it is named, with its length, before any decoding."
    huge = ' '.join('ab' for _ in range(333_334))                               # a million characters on one line
    (tmp_path / 'big.txt').write_text(f'a b\n{huge}\nc d\n')
    p = subprocess.Popen(cmd('translate', run, '-i', tmp_path / 'big.txt', '-o', tmp_path / 'out.txt'), env=ENV,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, preexec_fn=_sigint_default)
    try: out, err = p.communicate(timeout=150)
    except subprocess.TimeoutExpired:
        p.send_signal(signal.SIGTERM)
        try: p.communicate(timeout=20)
        except subprocess.TimeoutExpired: p.kill(); p.communicate(); pytest.fail("still running, and deaf to SIGTERM")
        pytest.fail("still decoding the huge line after 150 s (SIGTERM ended it)")
    r = subprocess.CompletedProcess(p.args, p.returncode, out, err.decode())
    one_line(r, 'tnb-translate', f"-i {tmp_path / 'big.txt'}, line 2 is {len(huge):,} characters long", '--max-src-len')
    assert not (tmp_path / 'out.txt').exists()

def test_sigterm_ends_a_long_decoding_within_seconds(run, tmp_path):
    "A sentence at the limit decodes for a long time, one short step after another: a signal lands between two of them."
    (tmp_path / 'long.txt').write_text(' '.join('abcdefghij'[i % 10] for i in range(4000)) + '\n')
    for sig, code, name in ((signal.SIGTERM, 143, 'SIGTERM'),):         # Ctrl-C takes the same path (see the export test)
        p = subprocess.Popen(cmd('translate', run, '-i', tmp_path / 'long.txt', '--max-src-len', '4096', '--beam', '4',
                                 code=DECODING), env=ENV, stdout=subprocess.PIPE, stderr=subprocess.PIPE, preexec_fn=_sigint_default)
        err = []; _collect(p.stderr, err)
        try:
            assert _wait_for(p, err, 'DECODING', 240), b''.join(err).decode()[-2000:]
            time.sleep(0.5); p.send_signal(sig); t0 = time.time()
            p.wait(timeout=60); took = time.time() - t0
        finally:
            if p.poll() is None: p.kill(); p.wait()
        time.sleep(0.2)
        stderr = b''.join(err).decode()
        assert p.returncode == code, (p.returncode, stderr[-2000:])
        assert lines(stderr) == [f"tnb-translate: interrupted{f' ({name})' if name else ''}"], stderr[-2000:]
        assert took < 15, took                      # seconds on a busy machine; a fraction of one on an idle one

@pytest.mark.parametrize('name,args,needle', [
    ('train', ('--d-model', '10000000'), '--d-model must be in [1, 65536], got 10000000'),
    ('train', ('--N', '1000000'), '--N must be in [1, 1000], got 1000000'),
    ('train', ('--vocab-size', '10000000000'), '--vocab-size must be in [8, 1000000]'),
    ('train', ('--max-tokens', '10000000000'), '--max-tokens must be in [1, 10000000]'),
    ('translate', ('RUN', 'a', '--alpha', '2000'), '--alpha must be in [0, 10], got 2000.0'),
    ('translate', ('RUN', 'a', '--beam', '100000'), '--beam must be in [1, 1000]'),
    ('evaluate', ('RUN', '--max-tokens', '10000000000'), '--max-tokens must be in [1, 10000000]'),
])
def test_size_options_have_upper_bounds(run, name, args, needle):
    one_line(tool(name, *[run if a == 'RUN' else a for a in args]), f'tnb-{name}', needle)

def test_a_model_larger_than_the_memory_is_refused_before_anything(tmp_path):
    "Sizes within their bounds can still multiply into more than the machine has: said in one line, before any data."
    r = tool('train', *TINY, '--d-model', '16384', '--d-ff', '1048576', '--N', '100', '--h', '16', '--out', tmp_path / 'big')
    one_line(r, 'tnb-train', 'parameters: training it needs at least', 'more than the', 'choose a smaller model')
    assert not (tmp_path / 'big').exists()

# ---------------------------------------------------------------------------------------------------------------
# 3. Checkpoints checked against what uses them
# ---------------------------------------------------------------------------------------------------------------
def _variant(run, tmp_path, name, change):
    ck = load_checkpoint(RunFolder(run).latest()); change(ck)
    torch.save(ck, tmp_path / name)
    return tmp_path / name

def _other_tokenizer(ck):
    from transformer_nb.data import Tokenizer
    ck['tokenizer'] = Tokenizer.train(['one two three four five six seven eight nine ten'] * 20, vocab_size=40).to_bytes()

def _nan(ck): ck['model']['decoder.0.ffn.w_1.weight'][0, 0] = float('nan')

def test_checkpoints_are_checked_against_their_use(run, tmp_path):
    class Evil:
        def __reduce__(self): return (os.system, (f'touch {tmp_path}/ran',))
    torch.save({'format': 'transformer_nb.checkpoint/1', 'model': Evil()}, tmp_path / 'evil.pt')
    one_line(tool('translate', _variant(run, tmp_path, 'tok.pt', _other_tokenizer), 'a'), 'tnb-translate',
             'its tokenizer has', 'the tokenizer belongs to another model')
    one_line(tool('translate', _variant(run, tmp_path, 'nan.pt', _nan), 'a', '--beam', '2'), 'tnb-translate',
             'nan.pt: 1 of its weight tensors hold NaN or infinite values (e.g. decoder.0.ffn.w_1.weight)')
    one_line(tool('translate', tmp_path / 'evil.pt', 'a'), 'tnb-translate', 'evil.pt was blocked: it holds pickled Python code (posix.system)')
    assert not (tmp_path / 'ran').exists()

def test_resume_checks_the_step_and_the_shapes(run, tmp_path):
    neg = _variant(run, tmp_path, 'neg.pt', lambda ck: ck.update(step=-5))
    one_line(tool('train', '--resume', neg, '--out', tmp_path / 'a', '--steps', '30', '--no-progress', '--test-limit', '0'),
             'tnb-train', 'neg.pt: its step (-5) must be whole numbers >= 0')
    def wider(ck): ck['model']['encoder.0.ffn.w_1.weight'] = torch.zeros(96, 32)
    one_line(tool('train', '--resume', _variant(run, tmp_path, 'shape.pt', wider), '--out', tmp_path / 'b', '--steps', '30',
                  '--no-progress', '--test-limit', '0'),
             'tnb-train', 'shape.pt: the weights do not match the architecture in its config (encoder.0.ffn.w_1.weight has shape (96, 32)')
    assert not list((tmp_path).glob('*/checkpoint-*.pt'))

def test_resume_on_other_data_needs_new_data(run, tmp_path):
    shutil.copytree(run, tmp_path / 'run')
    r = tool('train', '--resume', tmp_path / 'run', '--dataset', 'numbers', '--steps', '30', '--no-progress', '--test-limit', '0')
    one_line(r, 'tnb-train', 'was trained on copy', '--dataset numbers would continue it on other data', '--new-data')
    assert [p.name for p in RunFolder(tmp_path / 'run').checkpoints()] == ['checkpoint-0000002.pt']
    one_line(tool('train', *TINY, '--new-data', '--steps', '3'), 'tnb-train', '--new-data is for --resume')

@pytest.mark.parametrize('make,needle', [
    (lambda d: os.mkfifo(d / 'fifo.pt') or d / 'fifo.pt', 'fifo.pt is not a regular file'),   # reading it would wait for ever
    (lambda d: (d / 'empty').mkdir() or d / 'empty', 'empty holds no checkpoint-<step>.pt files'),
    (lambda d: Path('/dev/zero'), '/dev/zero is not a regular file'),
])
def test_a_checkpoint_that_is_no_file_is_named_for_what_it_is(tmp_path, make, needle):
    path = make(tmp_path)
    one_line(tool('translate', path, 'a', timeout=60), 'tnb-translate', needle)
    one_line(tool('train', '--resume', path, timeout=60), 'tnb-train', needle)

# ---------------------------------------------------------------------------------------------------------------
# 4. One results file, every kind of record
# ---------------------------------------------------------------------------------------------------------------
PARSE_RECORD = dict(id='parse-1', system='Transformer, tiny', dataset='parsing', params=1, decoding='greedy', precision=1.0,
                    recall=1.0, f1=1.0, exact_match=0.0, malformed=0, failed=0, n_sentences=1, by_length={}, examples=[],
                    valid_nll=[], train_time_s=0.0, hardware='cpu', date='2026-01-01', commit='abc1234', command='x')

def test_one_results_file_holds_translation_and_parsing_records(run, tmp_path, texts):
    f = tmp_path / 'results.json'
    f.write_text(json.dumps([PARSE_RECORD]))                                    # a parsing record first
    r = tool('evaluate', run, '--src', texts / 'src.txt', '--ref', texts / 'ref.txt', '--beam', '1', '--record', f, '--id', 'tr-1')
    assert r.returncode == 0 and b'exact match' in r.stdout, r.stderr[-2000:]
    ck = load_checkpoint(RunFolder(run).latest()); ck['meta'].update(task='parsing', dataset='parsing')   # a parser
    save_checkpoint(tmp_path / 'parser' / 'checkpoint-0000010.pt', **{k: v for k, v in ck.items() if k != 'format'})
    (tmp_path / 'words.txt').write_text('a b c\nd e\nf\n')
    (tmp_path / 'trees.txt').write_text('(S (NP XX XX ) (VP XX ) )\n(S (NP XX ) (VP XX ) )\n(S (VP XX ) )\n')
    r = tool('evaluate', tmp_path / 'parser', '--src', tmp_path / 'words.txt', '--ref', tmp_path / 'trees.txt', '--beam', '1',
             '--record', f, '--id', 'parse-2')                                  # a parsing record after a translation record
    assert r.returncode == 0 and b'bracket F1' in r.stdout, r.stderr[-2000:]
    assert [x['id'] for x in json.loads(f.read_text())] == ['parse-1', 'tr-1', 'parse-2']

# ---------------------------------------------------------------------------------------------------------------
# 5. Streams, locales, warnings and signals
# ---------------------------------------------------------------------------------------------------------------
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

def test_output_is_utf8_whatever_the_locale(run, texts):
    env = {'LC_ALL': 'C', 'LANG': 'C', 'PYTHONUTF8': '0', 'PYTHONCOERCECLOCALE': '0'}
    f = texts / 'results.json'
    rec = dict(id='tr-0', dataset='copy', direction='x-x', preset='tiny · klein', params=1, decoding='greedy', bleu=1.0, bleu_lc=1.0,
               chrf=1.0, exact_match=0.0, bleu_signature='s', train_time_s=0.0, hardware='cpü', date='2026-01-01', commit='a', command='ü')
    f.write_text(json.dumps([rec], ensure_ascii=False), encoding='utf-8')
    r = tool('evaluate', run, '--src', texts / 'src.txt', '--ref', texts / 'ref.txt', '--beam', '1', '--record', f,
             '--id', 'über-1', env=env)
    assert r.returncode == 0, r.stderr[-2000:]
    assert [x['id'] for x in json.loads(f.read_text(encoding='utf-8'))] == ['tr-0', 'über-1']   # a non-ASCII argument too

def test_a_reader_that_leaves_gives_141_even_unbuffered(run, tmp_path):
    "Under python -u a long write into a pipe whose reader left must fail, not be cut short in silence: exit 141."
    (tmp_path / 'many.txt').write_text('a b c d e f g h i j\n' * 1000)        # 120 kB of output: more than a pipe holds
    p = subprocess.Popen(cmd('translate', run, '-i', tmp_path / 'many.txt', '--beam', '1', code=DECODING),   # no EOS: long lines
                         env={**ENV, 'PYTHONUNBUFFERED': '1'},
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, preexec_fn=_sigint_default)
    first = p.stdout.readline(); p.stdout.close()                               # `| head -1`
    err = p.stderr.read().decode(); p.wait(timeout=300)
    assert first.strip() and p.returncode == 141 and lines(err) == [], (p.returncode, err[-2000:])

def test_warnings_made_errors_are_not_bugs(tmp_path):
    r = tool('train', *TINY, '--max-len', '5', '--steps', '1', '--out', tmp_path / 'w', py=('-W', 'error'))
    line = one_line(r, 'tnb-train', 'dropped', 'a warning, which -W error or PYTHONWARNINGS turned into an error')
    assert 'bug' not in line

def test_hardware_closes_what_it_opens():
    from transformer_nb.core import hardware
    gc.collect()                                        # what earlier tests left to the collector is not hardware()'s
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter('always'); hardware(); gc.collect()
    assert not [x for x in w if issubclass(x.category, ResourceWarning)], [str(x.message) for x in w]

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

def test_export_uses_the_shared_runner(run, tmp_path):
    pytest.importorskip('ctranslate2')
    one_line(tool('export', '--ctranslate2', run, '-o', tmp_path / 'a', '--quantization', 'int3'), 'tnb-export',
             "argument --quantization: invalid choice: 'int3'")
    slow = ("import sys, time, transformer_nb.export as e; _x = e.export_ctranslate2; "
            "e.export_ctranslate2 = lambda *a, **k: (print('EXPORTING', file=sys.stderr, flush=True), time.sleep(60), _x(*a, **k))[2]")
    p = subprocess.Popen(cmd('export', '--ctranslate2', run, '-o', tmp_path / 'c', code=slow), env=ENV,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, preexec_fn=_sigint_default)
    err = []; _collect(p.stderr, err)
    try:
        assert _wait_for(p, err, 'EXPORTING', 240), b''.join(err).decode()[-2000:]
        p.send_signal(signal.SIGINT); p.wait(timeout=60)
    finally:
        if p.poll() is None: p.kill(); p.wait()
    time.sleep(0.2)
    stderr = b''.join(err).decode()
    assert p.returncode == 130 and [l for l in lines(stderr) if l != 'EXPORTING'] == ['tnb-export: interrupted'], stderr[-2000:]
    assert not (tmp_path / 'c').exists()

# ---------------------------------------------------------------------------------------------------------------
# 6. Messages that name the real problem; contradictions refused; only files that exist are named
# ---------------------------------------------------------------------------------------------------------------
def test_corpus_files_are_named_for_what_they_are(tmp_path, texts):
    os.mkfifo(tmp_path / 'fifo')
    (tmp_path / 'nul.txt').write_bytes(b'a b\nc \x00 d\n' * 20)
    base = ('--dataset', 'files', '--preset', 'tiny', '--steps', '1', '--no-progress', '--test-limit', '0', '--out', tmp_path / 'o')
    one_line(tool('train', '--train', tmp_path, texts / 'ref.txt', *base), 'tnb-train', f'--train {tmp_path} is a folder')
    one_line(tool('train', '--train', tmp_path / 'fifo', texts / 'ref.txt', *base), 'tnb-train', 'is not a regular file')
    one_line(tool('train', '--train', tmp_path / 'nul.txt', texts / 'ref.txt', *base), 'tnb-train', 'nul.txt, line 2: a NUL byte at offset 6')
    assert not (tmp_path / 'o').exists()

SHORT = ('--no-progress', '--test-limit', '0', '--out', 'OUT')                 # had they been accepted: a short run
@pytest.mark.parametrize('name,args,needle', [
    ('train', ('--dataset', 'copy', '--src-lang', 'de', '--steps', '1', *SHORT), '--dataset copy has no languages'),
    ('train', ('--dataset', 'copy', '--steps', '1', '--epochs', '2', *SHORT), 'give --steps or --epochs, not both'),
    ('train', ('--resume', 'RUN', '--overwrite', '--steps', '2', *SHORT), '--resume continues a run and --overwrite deletes one'),
    ('evaluate', ('RUN', '--src', 'SRC', '--ref', 'SRC', '--beam', '1', '--split', 'valid'), '--split is for a dataset'),
    ('evaluate', ('RUN', '--src', 'SRC', '--ref', 'SRC', '--beam', '1', '--src-lang', 'de'), '--src-lang is for a dataset'),
    ('evaluate', ('RUN', '--src', 'SRC', '--ref', 'SRC', '--beam', '1', '--id', 'x'), '--id names the record that --record adds'),
    ('translate', ('RUN', 'a', '--beam', '1', '--early-stop'), 'is a rule of beam search, and beam=1 is greedy decoding'),
])
def test_contradictory_options_are_refused(run, texts, name, args, needle):
    args = [run if a == 'RUN' else texts / 'src.txt' if a == 'SRC' else texts / 'out' if a == 'OUT' else a for a in args]
    one_line(tool(name, *args), f'tnb-{name}', needle)
    assert not (texts / 'out').exists()

def test_a_stop_at_max_time_still_trains_and_names_only_files_that_exist(tmp_path):
    "A time limit that passes at once still gives one update (no untrained checkpoint-0000000.pt); the closing lines name no log that was never written."
    out = tmp_path / 'run'
    r = tool('train', *TINY, '--steps', '50', '--max-time', '1e-9', '--out', out)
    assert r.returncode == 0, r.stderr[-2000:]
    assert [p.name for p in RunFolder(out).checkpoints()] == ['checkpoint-0000001.pt']          # one update, not an empty model
    said = r.stdout.decode()
    named = [l.split(': ', 1)[1] for l in said.splitlines() if l.split(': ', 1)[0] in ('checkpoint', 'averaged checkpoint', 'loss curve', 'log')]
    assert 'checkpoint: ' in said and named and all(Path(f).is_file() for f in named), said   # only files that exist
    assert 'at update 1' in said, said                                                          # the final model was validated

def test_blank_reference_lines_keep_the_hypotheses_aligned(run, texts):
    refs = (texts / 'ref.txt').read_text().splitlines(); refs[6] = ''
    (texts / 'ref.txt').write_text('\n'.join(refs) + '\n')
    r = tool('evaluate', run, '--src', texts / 'src.txt', '--ref', texts / 'ref.txt', '--beam', '1', '--hyp-out', texts / 'hyp.txt')
    assert r.returncode == 0 and b'of 29 sentences' in r.stdout, r.stderr[-2000:]
    assert lines(r.stderr) == ['tnb-evaluate: warning: 1 of 30 lines have an empty source or reference and are left out of '
                               'the scores (line 7)'], r.stderr
    assert len((texts / 'hyp.txt').read_text().splitlines()) == 30

def test_the_thread_count_validators_agree(run):
    "TNB_THREADS=+2 is refused like TNB_THREADS=abc, whatever --threads says: one rule, before anything is loaded."
    for raw in ('abc', '+2', '2.0'):
        one_line(tool('translate', run, 'a', '--threads', '1', env={'TNB_THREADS': raw}), 'tnb-translate', f"TNB_THREADS={raw!r}")
