"""What every command shares (A17_commands: option checks, threads, devices, the checkpoint opened once), with real
processes: numbers range-checked and bounded, contradictions refused, and each decoding command opening, hashing and
checking once. How a command ends as a process (exit codes, signals, streams) is tests/test_process.py."""
import json, subprocess, sys
import pytest, torch
from conftest import ENV, TINY, tool, one_line

@pytest.mark.slow   # runs the tools in fresh processes
@pytest.mark.skipif(torch.cuda.is_available(), reason='this machine has CUDA')
def test_an_unavailable_device_is_named(run, tmp_path):
    one_line(tool('translate', run, 'a', '--device', 'cuda'), 'tnb-translate', '--device cuda: CUDA is not available on this machine')
    one_line(tool('evaluate', run, '--device', 'cuda:1'), 'tnb-evaluate', 'CUDA is not available')
    one_line(tool('translate', run, 'a', '--device', 'gpu'), 'tnb-translate', '--device gpu: not a device name')
    one_line(tool('train', *TINY, '--device', 'cuda', '--out', tmp_path / 'x'), 'tnb-train', 'CUDA is not available')
    assert not (tmp_path / 'x').exists()

BAD_OPTIONS = [
    ('train', ['--seed', '-1'], {}, '--seed must be in [0, 4294967295], got -1'),
    ('train', ['--seed', '99999999999'], {}, '--seed must be in [0, 4294967295], got 99999999999'),
    ('train', ['--clip', 'nan'], {}, '--clip must be a finite number, got nan'),
    ('train', ['--clip', '0'], {}, 'clip=0.0 must be a positive number, or None'),
    ('train', ['--lr-scale', 'inf'], {}, '--lr-scale must be a finite number, got inf'),
    ('train', ['--p-drop', 'nan'], {}, '--p-drop must be a finite number, got nan'),
    ('train', ['--p-attn', '1'], {}, 'p_attn=1.0 must be in [0, 1)'),
    ('train', ['--eps-ls', '-0.1'], {}, 'eps_ls=-0.1 must be in [0, 1)'),
    ('train', ['--max-time', 'inf'], {}, '--max-time must be a finite number, got inf'),
    ('train', ['--threads', '0'], {}, '--threads must be in [1, 1024], got 0'),
    ('train', ['--threads', '100000'], {}, '--threads must be in [1, 1024], got 100000'),
    ('train', ['--keep', '-1'], {}, 'keep=-1 must be an int >= 0'),
    ('train', ['--save-every', '-5'], {}, 'save_every=-5 must be an int >= 0'),
    ('train', ['--max-len', '0'], {}, 'max_len=0 must be a positive int'),
    ('train', [], {'TNB_THREADS': 'abc'}, "TNB_THREADS='abc' in the environment is not a whole number"),
    ('train', [], {'TNB_THREADS': '-2'}, 'TNB_THREADS must be in [1, 1024], got -2'),
    ('translate', ['--alpha', 'nan'], {}, '--alpha must be a finite number, got nan'),
    ('translate', ['--alpha', 'inf'], {}, '--alpha must be a finite number, got inf'),
    ('translate', ['--alpha', '-1'], {}, 'alpha=-1.0 (--alpha -1.0) must be a number in [0, 10]'),
    ('translate', ['--max-tokens', '0'], {}, '--max-tokens must be in [1, 10000000], got 0'),
    ('translate', [], {'TNB_THREADS': 'abc'}, "TNB_THREADS='abc'"),
    ('evaluate', ['--alpha', 'nan'], {}, '--alpha must be a finite number, got nan'),
    ('average', ['--last', '0'], {}, '--last must be >= 1, got 0'),
]

HARNESS = r"""
import contextlib, io, json, os, sys
from transformer_nb import cli
cases, out = json.loads(sys.argv[1]), []
for name, argv, env in cases:
    old = {k: os.environ.get(k) for k in env}; os.environ.update(env)
    err = io.StringIO(); code = None
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        try: getattr(cli, name + '_main')(argv)
        except SystemExit as e: code = e.code
        except BaseException as e: code = 'exception: ' + repr(e)[:300]
    for k, v in old.items():
        if v is None: os.environ.pop(k, None)
        else: os.environ[k] = v
    out.append([code, err.getvalue()])
print(json.dumps(out))
"""

@pytest.mark.slow   # runs the tools in fresh processes
def test_numeric_options_are_range_checked(run, tmp_path):
    base = {'train': [*TINY, '--steps', '1', '--out', str(tmp_path / 't')], 'translate': [str(run), 'a'],
            'evaluate': [str(run), '--dataset', 'copy'], 'average': [str(run), '-o', str(tmp_path / 'a.pt')]}
    cases = [(name, base[name] + argv, env) for name, argv, env, _ in BAD_OPTIONS]
    r = subprocess.run([sys.executable, '-c', HARNESS, json.dumps(cases)], capture_output=True, text=True, env=ENV, timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]
    for (name, argv, env, msg), (code, err) in zip(BAD_OPTIONS, json.loads(r.stdout.splitlines()[-1])):
        lines = err.strip().splitlines()
        assert code == 2 and lines == [f'tnb-{name}: error: {msg}'] or (code == 2 and len(lines) == 1 and msg in lines[0]), (name, argv, env, code, err)

THREADS = "import atexit, sys, torch; atexit.register(lambda: print('threads', torch.get_num_threads(), file=sys.stderr))"

@pytest.mark.slow   # runs the tools in fresh processes
def test_threads_option_beats_the_environment(run, tmp_path):
    for name, args in (('translate', [run, 'a']), ('evaluate', [run, '--beam', '1', '--src', tmp_path / 's', '--ref', tmp_path / 's']),
                       ('train', [*TINY, '--steps', '1', '--out', tmp_path / 't'])):
        (tmp_path / 's').write_text('a b\n')
        r = tool(name, *args, '--threads', '2', code=THREADS, env={'TNB_THREADS': '1'})
        assert r.returncode == 0 and 'threads 2' in r.stderr, (name, r.stderr[-2000:])


@pytest.mark.slow   # runs the tools in fresh processes
@pytest.mark.parametrize('name,args,needle', [
    ('train', ('--d-model', '10000000'), '--d-model must be in [1, 65536], got 10000000'),
    ('train', ('--N', '1000000'), '--N must be in [1, 1000], got 1000000'),
    ('train', ('--vocab-size', '10000000000'), '--vocab-size must be in [8, 1000000]'),
    ('train', ('--max-tokens', '10000000000'), '--max-tokens must be in [1, 10000000]'),
    ('translate', ('RUN', 'a', '--alpha', '2000'), 'alpha=2000.0 (--alpha 2000.0) must be a number in [0, 10]'),
    ('translate', ('RUN', 'a', '--beam', '100000'), 'beam=100000 (--beam 100000) is more than the target vocabulary'),
    ('evaluate', ('RUN', '--max-tokens', '10000000000'), '--max-tokens must be in [1, 10000000]'),
])
def test_size_options_have_upper_bounds(run, name, args, needle):
    one_line(tool(name, *[run if a == 'RUN' else a for a in args]), f'tnb-{name}', needle)

SHORT = ('--no-progress', '--test-limit', '0', '--out', 'OUT')                 # had they been accepted: a short run

@pytest.mark.slow   # runs the tools in fresh processes
@pytest.mark.parametrize('name,args,needle', [
    ('train', ('--dataset', 'copy', '--src-lang', 'de', '--steps', '1', *SHORT), "dataset='copy' (--dataset copy) has no languages"),
    ('train', ('--dataset', 'copy', '--steps', '1', '--epochs', '2', *SHORT), 'give --steps or --epochs, not both'),
    ('train', ('--resume', 'RUN', '--overwrite', '--steps', '2', *SHORT), '--resume continues a run and --overwrite deletes one'),
    ('evaluate', ('RUN', '--src', 'SRC', '--ref', 'SRC', '--beam', '1', '--split', 'valid'), '--split is for a dataset'),
    ('evaluate', ('RUN', '--src', 'SRC', '--ref', 'SRC', '--beam', '1', '--src-lang', 'de'), '--src-lang is for a dataset'),
    ('evaluate', ('RUN', '--src', 'SRC', '--ref', 'SRC', '--beam', '1', '--id', 'x'), '--id names the record that --record adds'),
    ('translate', ('RUN', 'a', '--beam', '1', '--early-stop'), "stop='early' (--early-stop) is a rule of beam search"),
])
def test_contradictory_options_are_refused(run, texts, name, args, needle):
    args = [run if a == 'RUN' else texts / 'src.txt' if a == 'SRC' else texts / 'out' if a == 'OUT' else a for a in args]
    one_line(tool(name, *args), f'tnb-{name}', needle)
    assert not (texts / 'out').exists()

@pytest.mark.slow   # runs the tools in fresh processes
def test_the_thread_count_validators_agree(run):
    "TNB_THREADS=+2 is refused like TNB_THREADS=abc, whatever --threads says: one rule, before anything is loaded."
    for raw in ('abc', '+2', '2.0'):
        one_line(tool('translate', run, 'a', '--threads', '1', env={'TNB_THREADS': raw}), 'tnb-translate', f"TNB_THREADS={raw!r}")


# Checked once: a command opens its checkpoint once and checks its decoding once, whatever the number of batches.
def _count_calls(monkeypatch, counts, *where):
    "Count the calls of each function `name` of `module` in `where` ((module, name) pairs) under `name`."
    for mod, name in where:
        f = getattr(mod, name)
        monkeypatch.setattr(mod, name, lambda *a, _f=f, _n=name, **k: (counts.update([_n]), _f(*a, **k))[1])

def _walk_counts(monkeypatch):
    import collections
    import transformer_nb.checkpoints as ck, transformer_nb.decoding as dec, transformer_nb.fast_decoding as fd, transformer_nb.machine as mc
    counts = collections.Counter()
    _count_calls(monkeypatch, counts, (ck, 'sha256_file'), (ck, '_published'), (ck, '_load'), (ck, '_check_intact'), (dec, 'check_decoding'),
                 (fd, 'check_beam_fits'), (fd, 'check_translate'), (mc, 'choose_precision'), (fd, 'choose_precision'))
    return counts

def test_translate_opens_hashes_and_checks_once(monkeypatch, tmp_path, capsys):
    "`tnb-translate --beam 4 pretrained:numbers` on 1,001 lines (3 batches): the published file parsed, read and hashed once, the "
    "`Decoding` checked once as it is built and once against the model, 'auto' precision resolved once, `translate`'s entry never."
    from transformer_nb.cli import translate_main
    counts = _walk_counts(monkeypatch)
    (tmp_path / 'src.txt').write_text('seven\n' * 1000 + 'nine\n')
    with pytest.raises(SystemExit) as e: translate_main(['--beam', '4', 'pretrained:numbers', '-i', tmp_path / 'src.txt', '-o', tmp_path / 'out.txt'])
    assert e.value.code == 0, capsys.readouterr().err
    assert (tmp_path / 'out.txt').read_text().splitlines() == ['sieben'] * 1000 + ['neun']
    assert dict(counts) == {'sha256_file': 1, '_published': 1, '_load': 1, 'check_decoding': 1, 'check_beam_fits': 1,
                            'choose_precision': 1}, counts

def test_evaluate_opens_and_hashes_once(monkeypatch, tmp_path, capsys):
    "`tnb-evaluate pretrained:numbers`: the file read and hashed once, its `Decoding` built and checked once."
    from transformer_nb.cli import evaluate_main
    counts = _walk_counts(monkeypatch)
    (tmp_path / 's').write_text('seven\nnine\n'); (tmp_path / 'r').write_text('sieben\nneun\n')
    with pytest.raises(SystemExit) as e: evaluate_main(['pretrained:numbers', '--src', tmp_path / 's', '--ref', tmp_path / 'r', '--beam', '1'])
    assert e.value.code == 0, capsys.readouterr().err
    assert (counts['sha256_file'], counts['_published'], counts['_load'], counts['_check_intact'], counts['check_decoding'], counts['choose_precision']) == (1, 1, 1, 0, 1, 1), counts

def test_a_second_check_would_be_counted(monkeypatch):
    "The counting above can fail: a second opening of the published model is two hashes."
    from transformer_nb.checkpoints import open_checkpoint
    counts = _walk_counts(monkeypatch)
    open_checkpoint('pretrained:numbers'); open_checkpoint('pretrained:numbers')
    assert (counts['sha256_file'], counts['_load']) == (2, 2)

def test_export_opens_and_hashes_once(monkeypatch, tmp_path, capsys):
    "`tnb-export --format onnx pretrained:numbers`: opened and hashed once, its sha256 recorded from that one hash, its name kept."
    pytest.importorskip('onnxruntime')
    import json
    from transformer_nb.cli import export_main
    from transformer_nb.checkpoints import PRETRAINED
    counts = _walk_counts(monkeypatch)
    with pytest.raises(SystemExit) as e: export_main(['--format', 'onnx', 'pretrained:numbers', '-o', tmp_path / 'x'])
    assert e.value.code == 0, capsys.readouterr().err
    assert (counts['sha256_file'], counts['_published'], counts['_load'], counts['_check_intact']) == (1, 1, 1, 0), counts
    prov = json.loads((tmp_path / 'x' / 'config.json').read_text())['provenance']
    assert (prov['checkpoint'], prov['checkpoint_sha256']) == ('pretrained:numbers', PRETRAINED['numbers'].sha256)
