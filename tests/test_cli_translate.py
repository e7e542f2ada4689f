"""`tnb-translate` as a user runs it, with real processes: sentences after options, `-` for standard input, no
arguments, input the model cannot know, a beam wider than the vocabulary, a huge line refused at once, and a signal that
ends a long decoding within seconds, keeping the translations already written."""
import os, signal, subprocess, time
import pytest
from transformer_nb.lib.checkpoints import open_checkpoint
from conftest import ENV, cmd, tool, one_line, said, DECODING, wait_for_output as _wait_for, collect_output as _collect
from conftest import default_signals, default_signals as _sigint_default, said as lines
pytestmark = pytest.mark.slow        # every test here runs the tools in fresh processes (`pytest -m 'not slow'` skips them)

def test_sentences_may_follow_options(run):
    r = tool('translate', run, '--beam', '1', 'a b', 'c d e')
    assert r.returncode == 0 and r.stdout.count(b'\n') == 2, r.stderr

def test_beam_wider_than_the_vocabulary(run):
    V = open_checkpoint(run, None).config.tgt_vocab
    one_line(tool('translate', run, 'a b', '--beam', str(V + 1)), 'tnb-translate', f'--beam {V + 1} is more than the target vocabulary of {V} pieces')
    one_line(tool('evaluate', run, '--beam', '1000'), 'tnb-evaluate', '--beam 1000 is more than the target vocabulary')
    assert tool('translate', run, 'a b', '--beam', str(V)).returncode == 0                           # as wide as it is: fine


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


# In the child: EOS never wins, so every sentence decodes to its length limit: decoding takes a while, whatever was learned.
_NO_EOS = ("import transformer_nb.lib.fast_decoding as f; _n = f.step_logits\n"
           "def _no_eos(model, logits):\n    logits = _n(model, logits).clone(); logits[:, 3] = -float('inf'); return logits\n"
           "f.step_logits = _no_eos")

def test_sigterm_keeps_the_translations_already_written(run, tmp_path):
    src = tmp_path / 'src.txt'; src.write_text('a b c\n' * 1500)
    p = subprocess.Popen(cmd('translate', run, '-i', src, '--beam', '1', code=f"exec({_NO_EOS!r})"), env=ENV,
                         stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, preexec_fn=default_signals)
    try:
        first = p.stdout.read1(1 << 16)                    # the first batch's lines, written as soon as they were decoded
        p.send_signal(signal.SIGTERM)
        rest, err = p.communicate(timeout=120)
    finally:
        if p.poll() is None: p.kill()
    kept = (first + rest).decode().splitlines()
    assert p.returncode == 143, (p.returncode, err[-2000:])
    from transformer_nb.lib.fast_decoding import _FILE_BATCH
    assert 0 < len(kept) < 1500 and len(kept) % _FILE_BATCH == 0, len(kept)   # whole batches, in order
    assert said(err.decode())[-1] == 'tnb-translate: interrupted (SIGTERM)', err[-2000:]


def warnings_of(r) -> list[str]: return [l for l in r.stderr.splitlines() if l.startswith('tnb-translate: warning:')]

def test_dash_reads_standard_input(numbers):
    r = tool('translate', numbers, '-', '--beam', '1', stdin='seven\neight\n')
    assert r.returncode == 0, r.stderr
    assert len(r.stdout.splitlines()) == 2                       # two lines in, two out: '-' is not translated itself
    r = tool('translate', numbers, '-', '-i', os.devnull)
    assert r.returncode == 2 and 'not both' in r.stderr

def test_no_arguments_names_only_what_is_required():
    r = tool('translate')
    assert r.returncode == 2
    assert 'required: checkpoint (' in r.stderr and 'sentences' not in r.stderr, r.stderr

def test_input_outside_what_the_model_knows_is_said_and_still_translated(numbers):
    sents = ['seven', 'one million', '1234', 'two point five', 'Three Hundred Forty-Two']
    r = tool('translate', numbers, *sents, '--beam', '1')
    assert r.returncode == 0 and len(r.stdout.splitlines()) == len(sents), r.stderr
    w = warnings_of(r)
    named = {int(l.split('sentence ')[1].split(':')[0]) for l in w}
    assert {2, 3, 4} <= named and 1 not in named, w          # 'seven' is fine; the three out of range are named
    assert any("'one million'" in l and 'zero to 999,999' in l for l in w), w
    r = tool('translate', numbers, '-', '--beam', '1', stdin='seven\none million\n')
    assert any(l.startswith('tnb-translate: warning: standard input, line 2') for l in warnings_of(r)), r.stderr


def test_a_stray_carriage_return_keeps_one_line_out_per_line_in(tmp_path):
    "`printf 'seven\\rnine\\nthree\\n'` is two lines (`wc -l`): two translations, from standard input and from -i, with one note on what was done."
    data = b'seven\rnine\nthree\n'
    (tmp_path / 'in.en').write_bytes(data)
    for args, stdin, name in (([], data, 'standard input'), (['-i', tmp_path / 'in.en'], None, f"-i {tmp_path / 'in.en'}")):
        r = tool('translate', 'pretrained:numbers', '--beam', '1', *args, stdin=stdin, text=True)
        assert r.returncode == 0 and len(r.stdout.splitlines()) == 2 and r.stdout.splitlines()[1] == 'drei', (r.stdout, r.stderr)
        notes = [l for l in r.stderr.splitlines() if 'control characters' in l]
        assert notes == [f"tnb-translate: {name}, line 1 holds control characters (\\r): each is read as a space, here and in any "
                         "later line, so that every line in gives one line out"], r.stderr

def test_attention_paper_translates_as_the_default():
    "`--attention paper` decodes with 01's attention through 02's layer, and says what the default (PyTorch's kernel) says."
    src = ['three hundred and twelve', 'forty-one', 'nine thousand and six']
    fused, paper = (tool('translate', 'pretrained:numbers', '--precision', 'fp32', *a, *src, text=True) for a in ((), ('--attention', 'paper')))
    assert fused.returncode == paper.returncode == 0, paper.stderr
    assert paper.stdout == fused.stdout and len(fused.stdout.splitlines()) == 3 and all(fused.stdout.splitlines())
    bad = tool('translate', 'pretrained:numbers', '--attention', 'flash', 'one')
    assert bad.returncode == 2 and "--attention" in bad.stderr and 'flash' in bad.stderr

def test_translating_loads_no_scorer():
    "tnb-translate of a published model, in a fresh process, scores nothing and so never imports sacrebleu."
    import sys
    code = ("import sys; from transformer_nb.apps.cli import translate_main\n"
            "try: translate_main()\nexcept SystemExit as e: assert not e.code, e.code\n"
            "print(sorted(m for m in sys.modules if m.split('.')[0] == 'sacrebleu'), file=sys.stderr)")
    r = subprocess.run([sys.executable, '-c', code, 'pretrained:numbers', 'three hundred'], capture_output=True, text=True, env=ENV, timeout=300)
    assert r.returncode == 0 and r.stdout.strip() and r.stderr.strip().splitlines()[-1] == '[]', r.stderr[-2000:]
