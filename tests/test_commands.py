"""What every command shares (apps_cli: option checks, threads, devices, the checkpoint opened once), with real
processes: numbers range-checked and bounded, contradictions refused, and each decoding command opening, hashing and
checking once. How a command ends as a process (exit codes, signals, streams) is tests/test_safeguards_process.py."""
import json, subprocess, sys
import pytest, torch
from conftest import ENV, TINY, tool, one_line

@pytest.mark.slow   # runs the tools in fresh processes
@pytest.mark.skipif(torch.cuda.is_available(), reason='this machine has CUDA')
def test_an_unavailable_device_is_named(run, tmp_path):
    one_line(tool('translate', run, 'a', '--device', 'cuda'), 'tnb-translate', '--device cuda: CUDA is not available on this machine (')
    one_line(tool('evaluate', run, '--device', 'cuda:1'), 'tnb-evaluate', 'CUDA is not available')
    one_line(tool('translate', run, 'a', '--device', 'gpu'), 'tnb-translate', "--device gpu must be a device: auto, cpu, cuda, cuda:N or mps")
    one_line(tool('train', *TINY, '--device', 'cuda', '--out', tmp_path / 'x'), 'tnb-train', 'CUDA is not available')
    assert not (tmp_path / 'x').exists()

BAD_OPTIONS = [
    ('train', ['--seed', '-1'], {}, '--seed -1 must be an int in [0, 4294967295]'),
    ('train', ['--seed', '99999999999'], {}, '--seed 99999999999 must be an int in [0, 4294967295]'),
    ('train', ['--clip', 'nan'], {}, '--clip nan must be a number > 0, or none'),
    ('train', ['--clip', '0'], {}, '--clip 0.0 must be a number > 0, or none'),
    ('train', ['--lr-scale', 'inf'], {}, '--lr-scale inf must be a number > 0'),
    ('train', ['--p-drop', 'nan'], {}, '--p-drop nan must be a number'),
    ('train', ['--p-attn', '1'], {}, '1.0 must be'),
    ('train', ['--eps-ls', '-0.1'], {}, '--eps-ls -0.1 must be a number in [0, 1)'),
    ('train', ['--max-time', 'inf'], {}, '--max-time inf must be a number > 0, or none'),
    ('train', ['--threads', '-1'], {}, '--threads -1 must be an int in [0, 1024], or none'),
    ('train', ['--threads', '100000'], {}, '--threads 100000 must be an int in [0, 1024], or none'),
    ('train', ['--keep', '-1'], {}, '--keep -1 must be an int in [0, 1000000], or none'),
    ('train', ['--save-every', '-5'], {}, '--save-every -5 must be an int in [0, 1000000000]'),
    ('train', ['--max-len', '1'], {}, '--max-len 1 must be an int in [2, 1000000], or none'),
    ('train', [], {'TNB_THREADS': 'abc'}, "TNB_THREADS='abc' in the environment is not a count written with the digits 0-9"),
    ('train', [], {'TNB_THREADS': '-2'}, "TNB_THREADS='-2' in the environment is not a count written with the digits 0-9"),
    ('translate', ['--alpha', 'nan'], {}, '--alpha nan must be a number'),
    ('translate', ['--alpha', 'inf'], {}, '--alpha inf must be a number'),
    ('translate', ['--alpha', '-1'], {}, '--alpha -1.0'),
    ('translate', ['--max-tokens', '0'], {}, '--max-tokens 0 must be an int in [1, 100000000]'),
    ('translate', ['--precision', 'fp8'], {}, '--precision fp8 must be auto, fp32, bf16 or fp16'),
    ('translate', [], {'TNB_THREADS': 'abc'}, "TNB_THREADS='abc'"),
    ('evaluate', ['--alpha', 'nan'], {}, '--alpha nan must be a number'),
    ('evaluate', ['--split', 'train'], {}, '--split train must be valid or test, or none'),
    ('average', ['--last', '0'], {}, '--last 0 must be an int in [1, 1000000], or none'),
]

HARNESS = r"""
import contextlib, io, json, os, sys
from transformer_nb.apps import cli
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
    ('train', ('--d-model', '10000000', '--dataset', 'copy'), 'training it needs at least'),     # memory bounds a size, named before any work
    ('train', ('--vocab-size', '10000000000'), '--vocab-size 10000000000 must be an int in [8, 1000000]'),
    ('translate', ('RUN', 'a', '--alpha', '2000'), '2000.0'),
    ('translate', ('RUN', 'a', '--beam', '100000'), '--beam 100000 must be an int in [1, 1000]'),   # a bound declared on the field
    ('translate', ('RUN', 'a', '--beam', '999'), 'is more than the target vocabulary'),
])
def test_size_options_have_upper_bounds(run, name, args, needle):
    one_line(tool(name, *[run if a == 'RUN' else a for a in args]), f'tnb-{name}', needle)

SHORT = ('--no-progress', '--test-limit', '0', '--out', 'OUT')                 # had they been accepted: a short run

@pytest.mark.slow   # runs the tools in fresh processes
@pytest.mark.parametrize('name,args,needle', [
    ('train', ('--dataset', 'copy', '--src-lang', 'de', '--steps', '1', *SHORT), "--dataset copy has no languages: drop --src-lang de"),
    ('train', ('--dataset', 'copy', '--steps', '1', '--epochs', '2', *SHORT), 'give --steps 1 or --epochs 2, not both'),
    ('train', ('--resume', 'RUN', '--overwrite', '--steps', '2', *SHORT), 'continues a run and --overwrite deletes one'),
    ('evaluate', ('RUN', '--src', 'SRC', '--ref', 'SRC', '--beam', '1', '--split', 'valid'), '--split valid is for a dataset'),
    ('evaluate', ('RUN', '--src', 'SRC', '--ref', 'SRC', '--beam', '1', '--src-lang', 'de'), '--src-lang de is for a dataset'),
    ('evaluate', ('RUN', '--src', 'SRC', '--ref', 'SRC', '--beam', '1', '--id', 'x'), '--id x names the record that --record FILE adds'),
    ('evaluate', ('RUN', '--src', 'SRC', '--beam', '1'), 'give both --src'),
    ('translate', ('RUN', 'a', '--beam', '1', '--early-stop'), "is a rule of beam search"),
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
    import transformer_nb.lib.checkpoints as ck, transformer_nb.lib.options as dec, transformer_nb.lib.fast_decoding as fd, transformer_nb.lib.machine as mc
    counts = collections.Counter()
    _count_calls(monkeypatch, counts, (ck, 'sha256_file'), (ck, '_published'), (ck, '_torch_load'), (ck, '_check_intact'), (ck, '_read_hashed'),
                 (fd, 'check_beam_fits'), (fd, 'check_translate'), (mc, 'choose_precision'), (fd, 'choose_precision'))
    f = dec.Decoding.__post_init__                                        # the Decoding checked as it is built
    monkeypatch.setattr(dec.Decoding, '__post_init__', lambda self: (counts.update(['check_decoding']), f(self))[1])
    return counts

def test_translate_opens_hashes_and_checks_once(monkeypatch, tmp_path, capsys):
    "`tnb-translate --beam 4 pretrained:numbers` on 1,001 lines (3 batches): the published file parsed once, read once and hashed as it is read, the "
    "`Decoding` checked once as it is built and once against the model, 'auto' precision resolved once, `translate`'s entry never."
    from transformer_nb.apps.cli import translate_main
    counts = _walk_counts(monkeypatch)
    (tmp_path / 'src.txt').write_text('seven\n' * 1000 + 'nine\n')
    with pytest.raises(SystemExit) as e: translate_main(['--beam', '4', 'pretrained:numbers', '-i', tmp_path / 'src.txt', '-o', tmp_path / 'out.txt'])
    assert e.value.code == 0, capsys.readouterr().err
    assert (tmp_path / 'out.txt').read_text().splitlines() == ['sieben'] * 1000 + ['neun']
    assert dict(counts) == {'_read_hashed': 1, '_published': 1, '_torch_load': 1, 'check_decoding': 1, 'check_beam_fits': 1,
                            'choose_precision': 1}, counts                # no second pass to hash it (sha256_file) or check it

def test_evaluate_opens_and_hashes_once(monkeypatch, tmp_path, capsys):
    "`tnb-evaluate pretrained:numbers`: the file read once and hashed as it is read, its `Decoding` built and checked once."
    from transformer_nb.apps.cli import evaluate_main
    counts = _walk_counts(monkeypatch)
    (tmp_path / 's').write_text('seven\nnine\n'); (tmp_path / 'r').write_text('sieben\nneun\n')
    with pytest.raises(SystemExit) as e: evaluate_main(['pretrained:numbers', '--src', tmp_path / 's', '--ref', tmp_path / 'r', '--beam', '1'])
    assert e.value.code == 0, capsys.readouterr().err
    assert (counts['_read_hashed'], counts['sha256_file'], counts['_published'], counts['_torch_load'], counts['_check_intact'], counts['check_decoding'],
            counts['choose_precision']) == (1, 0, 1, 1, 0, 1, 1), counts

def test_a_second_check_would_be_counted(monkeypatch):
    "The counting above can fail: a second opening of the published model is two reads; mapped, it is hashed by a pass of its own."
    from transformer_nb.lib.checkpoints import open_checkpoint
    counts = _walk_counts(monkeypatch)
    open_checkpoint('pretrained:numbers'); open_checkpoint('pretrained:numbers')
    assert (counts['_read_hashed'], counts['_torch_load'], counts['sha256_file']) == (2, 2, 0)
    open_checkpoint('pretrained:numbers', mmap=True)
    assert (counts['_read_hashed'], counts['_torch_load'], counts['sha256_file']) == (2, 3, 1)

def test_export_opens_and_hashes_once(monkeypatch, tmp_path, capsys):
    "`tnb-export --format onnx pretrained:numbers`: opened and hashed once, its options checked once (`ExportOptions`), its sha256 "
    "recorded from that one hash, its name kept."
    pytest.importorskip('onnxruntime')
    import json
    from transformer_nb.apps.cli import export_main
    from transformer_nb.lib.checkpoints import PRETRAINED
    import transformer_nb.apps.export as ex
    from transformer_nb.lib.options import ExportOptions
    counts = _walk_counts(monkeypatch)
    _count_method(monkeypatch, counts, ExportOptions, '__post_init__', 'ExportOptions checked')
    _count_everywhere(monkeypatch, counts, ex.check_fields, 'options checked again')
    with pytest.raises(SystemExit) as e: export_main(['--format', 'onnx', 'pretrained:numbers', '-o', tmp_path / 'x'])
    assert e.value.code == 0, capsys.readouterr().err
    assert (counts['_read_hashed'], counts['sha256_file'], counts['_published'], counts['_torch_load'], counts['_check_intact'],
            counts['ExportOptions checked'], counts['options checked again']) == (0, 1, 1, 1, 0, 1, 0), counts   # mapped: one pass hashes it
    prov = json.loads((tmp_path / 'x' / 'config.json').read_text())['provenance']
    assert (prov['checkpoint'], prov['checkpoint_sha256']) == ('pretrained:numbers', PRETRAINED['numbers'].sha256)


# Checked once on every walk: each command's values read by their declarations, resolved and fingerprinted once.
def _count_everywhere(monkeypatch, counts, fn, label, when=None):
    "Count the calls of `fn` under `label` wherever a module of the package holds it (its own module, and every `from ... import`)."
    import sys
    def wrapped(*a, **k):
        if when is None or when(*a, **k): counts[label] += 1
        return fn(*a, **k)
    for name, mod in list(sys.modules.items()):
        if name.startswith('transformer_nb.'):
            for k, v in list(vars(mod).items()):
                if v is fn: monkeypatch.setattr(mod, k, wrapped)

def _count_method(monkeypatch, counts, cls, name, label):
    f = vars(cls)[name]
    monkeypatch.setattr(cls, name, lambda *a, _f=f, **k: (counts.update([label]), _f(*a, **k))[1])

def _walk(monkeypatch):
    "Counters of a command's walk: the device resolved, its name parsed, the Decoding built, the corpus fingerprinted, the config built."
    import collections, torch
    import transformer_nb.lib.machine as machine, transformer_nb.lib.options as checks, transformer_nb.apps.workflow as wf, transformer_nb.apps.test_sets as sc
    from transformer_nb.lib.options import Decoding
    from transformer_nb.lib.datasets import ParallelData
    from transformer_nb.lib.trainer import Parallel
    from transformer_nb.lib.options import TrainConfig
    counts = collections.Counter()
    checks._device_name.cache_clear()
    _count_everywhere(monkeypatch, counts, machine.get_device, 'device resolved', when=lambda d=None, *a, **k: not isinstance(d, torch.device))
    _count_everywhere(monkeypatch, counts, wf._data_meta, 'data files hashed')
    _count_everywhere(monkeypatch, counts, sc.check_decoding, 'Decoding type guarded')
    for cls, name, label in ((Decoding, '__post_init__', 'Decoding checked'), (ParallelData, 'fingerprint', 'corpus fingerprinted'),
                             (TrainConfig, '__post_init__', 'TrainConfig checked')):
        _count_method(monkeypatch, counts, cls, name, label)
    monkeypatch.setattr(Parallel, 'join', classmethod(lambda c, *a, _j=Parallel.join.__func__, **k: (counts.update(['processes joined']), _j(c, *a, **k))[1]))
    return counts, lambda: checks._device_name.cache_info().misses

def test_evaluate_walk_checks_each_value_once(monkeypatch, tmp_path, capsys):
    "`tnb-evaluate pretrained:numbers --beam 4`: its device resolved once, its one `Decoding` built (and checked) once, no type guard twice."
    from transformer_nb.apps.cli import evaluate_main
    counts, parsed = _walk(monkeypatch)
    (tmp_path / 's').write_text('seven\nnine\n'); (tmp_path / 'r').write_text('sieben\nneun\n')
    with pytest.raises(SystemExit) as e: evaluate_main(['pretrained:numbers', '--src', tmp_path / 's', '--ref', tmp_path / 'r', '--beam', '4', '--device', 'cpu'])
    assert e.value.code == 0, capsys.readouterr().err
    assert (counts['device resolved'], parsed(), counts['Decoding checked'], counts['Decoding type guarded']) == (1, 1, 1, 1), (counts, parsed())

def test_train_and_resume_walks_resolve_the_device_and_fingerprint_the_corpus_once(monkeypatch, tmp_path, capsys):
    "A new tiny run and its resume, each with --device cpu: the device resolved once, its name parsed once, the processes joined once, "
    "the TrainConfig built once, the corpus fingerprinted and its files hashed once (a resume fingerprinted it 3 times)."
    from transformer_nb.apps.cli import train_main
    args = [*TINY, '--steps', '2', '--device', 'cpu', '--out', tmp_path / 'r']
    for argv in (args, ['--resume', tmp_path / 'r', '--steps', '3', '--no-progress', '--test-limit', '0', '--device', 'cpu']):
        monkeypatch.undo(); counts, parsed = _walk(monkeypatch)
        with pytest.raises(SystemExit) as e: train_main([str(a) for a in argv])
        assert e.value.code in (0, None), capsys.readouterr().err[-2000:]
        assert (counts['device resolved'], parsed(), counts['processes joined'], counts['TrainConfig checked'],
                counts['corpus fingerprinted'], counts['data files hashed']) == (1, 1, 1, 1, 1, 1), (argv[0], counts, parsed())

def test_average_walk_reads_each_checkpoint_once(monkeypatch, folder, tmp_path, capsys):
    "`tnb-average RUN --last 2`: two checkpoints, each read whole once (once read twice: whole for its metadata, then for its weights); the folder's rule looks at its newest two's metadata record alone (`only`, mapped)."
    import collections
    import transformer_nb.lib.checkpoints as ck
    from transformer_nb.apps.cli import average_main
    counts = collections.Counter()
    _count_everywhere(monkeypatch, counts, ck._torch_load, 'read', when=lambda *a, **k: k.get('only') is None)
    with pytest.raises(SystemExit) as e: average_main([folder, '--last', '2', '-o', tmp_path / 'avg.pt'])
    assert e.value.code == 0, capsys.readouterr().err
    assert counts['read'] == 2, counts

def test_the_library_refuses_a_long_line_with_the_commands_line(capsys):
    "translate() from Python once decoded a line of 17,000 words for 8 s; tnb-translate refused it: now both refuse it, in one line, the same."
    from transformer_nb.apps.cli import translate_main
    from transformer_nb.apps.pretrained import load_pretrained
    from transformer_nb.lib.fast_decoding import translate
    line = 'seven ' * 1100                                                   # 1,101 tokens, over the model's 1,024
    with pytest.raises(SystemExit) as e: translate_main(['pretrained:numbers', line])
    said = capsys.readouterr().err.strip().splitlines()[-1].split('error: ', 1)[1]
    model, tok = load_pretrained('numbers')[:2]
    with pytest.raises(ValueError) as f: translate(model, tok, [line])
    assert e.value.code == 2 and said.replace('sentence 1', 'sentences[0]').replace('--max-src-len 1024', 'max_src_len=1024') == str(f.value), (said, f.value)
    with pytest.raises(ValueError, match='101,999 characters long'): translate(model, tok, ['seven ' * 17000])   # at once, untokenized

# Decoding loads and checks only what decoding needs: no training module, and alpha checked before the search, not at its steps.
TRAINING_MODULES = {'transformer_nb.' + m for m in ('lib.trainer', 'training', 'lib.speed', 'lib.distributed', 'apps.workflow', 'evaluation')}
MODULES = r"""
import json, sys
from transformer_nb.apps import cli
try: cli.translate_main(sys.argv[1:])
except SystemExit as e: code = e.code
print(json.dumps([code, sorted(m for m in sys.modules if m == 'transformer_nb' or m.startswith('transformer_nb.'))]))
"""

@pytest.mark.slow   # runs the tool in a fresh process
@pytest.mark.parametrize('model, most, own', [('pretrained:multi30k-de-en', 26, set()),
                                              ('pretrained:numbers', 28, {'transformer_nb.apps.numbers', 'transformer_nb.lib.datasets'})])
def test_translate_loads_no_training_module(model, most, own):
    """`tnb-translate` of a published translation model: at most 26 of the package's modules, every one counted (the
    package and its `lib` and `apps` packages too; 06's two, `model` and `config`, the tools' `lib.transformer`, and 09's
    and 10's declared constants, `training_config` and `decoding_config`, and 12's Table 3 rows, `variations_config`,
    which the options' presets are built from, count one each), none of training's (options come from `options`), not
    the corpora's (`lib.datasets`) nor the results files' (`lib.records`), and not 14_since_2017's swaps, which a model
    of the paper's does not make. A task of its own module adds that module and what it brings (numbers: its corpus's)."""
    r = subprocess.run([sys.executable, '-c', MODULES, model, 'seven'], capture_output=True, text=True, env=ENV, timeout=600)
    code, mods = json.loads(r.stdout.splitlines()[-1])
    assert code == 0, r.stderr[-2000:]
    unwanted = TRAINING_MODULES | {'transformer_nb.since2017', 'transformer_nb.lib.datasets', 'transformer_nb.lib.records'}
    assert not (unwanted - own) & set(mods) and own <= set(mods) and len(mods) <= most, (len(mods), mods)

EVALUATE_MODULES = r"""
import json, sys
from transformer_nb.apps import cli
try: cli.evaluate_main(sys.argv[1:])
except SystemExit as e: code = e.code
print(json.dumps([code, sorted(m for m in sys.modules if m.startswith('transformer_nb.'))]))
"""

@pytest.mark.slow   # runs the tool in a fresh process
def test_evaluate_loads_no_training_module(tmp_path):
    "`tnb-evaluate` scores and records a checkpoint without the trainer, the training loss, the speed levers, `torch.distributed`'s helpers or the run workflow: scoring is a module of its own."
    (tmp_path / 's').write_text('seven\nnine\n'); (tmp_path / 'r').write_text('sieben\nneun\n')
    argv = ['pretrained:numbers', '--src', tmp_path / 's', '--ref', tmp_path / 'r', '--record', tmp_path / 'results.json', '--hyp-out', tmp_path / 'h']
    r = subprocess.run([sys.executable, '-c', EVALUATE_MODULES, *map(str, argv)], capture_output=True, text=True, env=ENV, timeout=600)
    code, mods = json.loads(r.stdout.splitlines()[-1])
    assert code == 0 and (tmp_path / 'results.json').is_file(), r.stderr[-2000:]
    training = {'transformer_nb.' + m for m in ('lib.trainer', 'training', 'lib.speed', 'lib.distributed', 'apps.workflow')}
    assert 'transformer_nb.apps.test_sets' in mods and not training & set(mods), sorted(training & set(mods))

HELP_MODULES = r"""
import json, sys
from transformer_nb.apps import cli
try: getattr(cli, sys.argv[1] + '_main')(['--help'])
except SystemExit as e: code = e.code
print(json.dumps([code, sorted(m for m in sys.modules if m.startswith('transformer_nb.') or m == 'sacrebleu')]))
"""

@pytest.mark.slow   # runs the tools in fresh processes
@pytest.mark.parametrize('command', ['train', 'translate', 'evaluate', 'average', 'export'])
def test_help_loads_no_training_module(command):
    "Each command's --help reads its options from their declarations (`options`, the paper's configs) and loads no training module (not the trainer, nor the run workflow), nor sacreBLEU, which only scoring needs."
    r = subprocess.run([sys.executable, '-c', HELP_MODULES, command], capture_output=True, text=True, env=ENV, timeout=600)
    code, mods = json.loads(r.stdout.splitlines()[-1])
    training = {'transformer_nb.' + m for m in ('lib.trainer', 'training', 'lib.speed', 'lib.distributed', 'apps.workflow')} | {'sacrebleu'}
    assert code == 0 and f'tnb-{command}' in r.stdout, r.stderr[-2000:]
    assert not training & set(mods), sorted(training & set(mods))

def _scripts() -> dict:
    "pyproject's [project.scripts]: each command's name -> (module, function)."
    import tomllib
    from pathlib import Path
    scripts = tomllib.loads((Path(__file__).parents[1] / 'pyproject.toml').read_text())['project']['scripts']
    return {name: tuple(target.split(':')) for name, target in scripts.items()}

HELP_IMPORTS = r"""
import importlib, json, sys
module, function = sys.argv[1:]
try: getattr(importlib.import_module(module), function)(['--help'])
except SystemExit as e: code = e.code
print(json.dumps([code, sorted(m for m in ('torch', 'sentencepiece', 'sacrebleu') if m in sys.modules)]))
"""

@pytest.mark.slow   # runs the tools in fresh processes
@pytest.mark.parametrize('command', sorted(_scripts()))
def test_help_imports_no_torch_sentencepiece_or_sacrebleu(command):
    "Every command's --help (each of pyproject's scripts) prints its options from their declarations without importing PyTorch, SentencePiece or sacreBLEU: the model's settings come from 06's `config`, which needs no PyTorch."
    r = subprocess.run([sys.executable, '-c', HELP_IMPORTS, *_scripts()[command]], capture_output=True, text=True, env=ENV, timeout=600)
    code, heavy = json.loads(r.stdout.splitlines()[-1])
    assert code == 0 and command in r.stdout, r.stderr[-2000:]
    assert heavy == [], heavy

def test_the_start_up_modules_load_no_torch():
    "What a command needs before its work (the checks, the safeguards, the run folder, the process, the commands' parsers) and the records loads no PyTorch: they import it inside the functions that compute."
    mods = ['lib.options', 'lib.safeguards', 'lib.runs', 'apps.cli', 'lib.records']
    code = f"import sys; import {', '.join('transformer_nb.' + m for m in mods)}; print('torch' in sys.modules)"
    r = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True, env=ENV, timeout=600)
    assert r.stdout.strip() == 'False', r.stderr[-2000:] or r.stdout

def test_the_option_classes_need_nothing_of_training():
    "The commands' option classes sit in a module that imports no training module, so a decoding command reads them cheaply."
    import ast, transformer_nb.lib.options as o
    from pathlib import Path
    tree = ast.parse(Path(o.__file__).read_text())
    imported = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module}
    assert imported <= {'typing', 'dataclasses', 'functools', 'decimal', 'textwrap', 'config', 'training_config', 'decoding_config', 'variations_config'}, imported   # 06's, 09's, 10's and 12's settings, without PyTorch
    import transformer_nb.apps.tasks as tasks
    assert not {'trainer', 'evaluation', 'workflow'} & {n.module.split('.')[-1] for n in ast.walk(ast.parse(Path(tasks.__file__).read_text()))
                                                         if isinstance(n, ast.ImportFrom) and n.level and n.module and n.col_offset == 0}

def _alpha_checks(monkeypatch, counts):
    "Count each check of alpha (`check_value('alpha', ...)`, whichever module calls it) in `counts['alpha']`."
    import transformer_nb.lib.options as checks, transformer_nb.lib.fast_decoding as fd
    real = checks.check_value
    def spy(name, *a, **k):
        counts[name] += 1; return real(name, *a, **k)
    for mod in (checks, fd): monkeypatch.setattr(mod, 'check_value', spy)

def test_alpha_is_checked_once_per_search_not_at_its_steps(monkeypatch):
    "A beam search of 60 steps checks alpha once (the `Decoding` it searches with), as one of 6 steps does: never per step."
    import collections, torch
    import transformer_nb.lib.fast_decoding as fd
    from transformer_nb.lib.transformer import build_model
    from transformer_nb.lib.options import get_model_config
    counts = collections.Counter()
    _alpha_checks(monkeypatch, counts)
    _count_calls(monkeypatch, counts, (fd.TorchStep, '__call__'))
    nf = fd.step_logits                                         # EOS forbidden: every search runs to its cap
    no_eos = lambda model, x: nf(model, x).index_fill_(1, torch.tensor([fd.EOS_ID]), float('-inf'))
    monkeypatch.setattr(fd, 'step_logits', no_eos)
    m = build_model(get_model_config('tiny', src_vocab=12, tgt_vocab=12)).eval()
    for extra, steps in ((3, 6), (57, 60)):
        counts.clear()
        fd.beam_search_batch(m, torch.tensor([[5, 6, 3]]), max_extra=extra, alpha=0.6, nbest=1)
        assert counts['__call__'] == steps and counts['alpha'] == 1, (extra, counts)
        counts.clear()
        out = fd.beam_search_batch(m, torch.tensor([[5, 6, 3]]), max_extra=extra, alpha=0.6)   # the whole n-best list
        assert len(out[0][0][0]) == steps and counts['alpha'] == 1, (extra, counts)

def test_the_commands_stay_small():
    "The commands' module holds at most 520 lines (500, then `tnb-train --check` and `tnb-export --format hf`), what they share included: it is made from declarations, not written out."
    import transformer_nb.apps.cli as cli
    from pathlib import Path
    n = len(Path(cli.__file__).read_text().splitlines())
    assert n <= 520, f"cli.py holds {n} lines"

def test_no_option_is_taken_by_an_abbreviation():
    "Every command's parser (and every script's under experiments/, tools/ and bench/) takes an option by its whole name only: `--step 3` is refused, never read as `--steps 3`."
    from pathlib import Path
    from transformer_nb.apps import cli
    from transformer_nb.lib.safeguards import UserError
    parsers = {'tnb-train': (cli._train_parser, ['--step', '3']), 'tnb-translate': (cli._translate_parser, ['ck', '--bea', '2']),
               'tnb-evaluate': (cli._evaluate_cli_parser, ['ck', '--hyp', 'h.txt']), 'tnb-average': (cli._average_parser, ['ck', '--las', '2', '-o', 'a.pt']),
               'tnb-export': (cli._export_parser, ['ck', '--quant', 'int8', '-o', 'd']), 'tnb-data': (cli._data_parser, ['wmt14', 'd', '--retr', '1'])}
    for prog, (make, argv) in parsers.items():
        p = make(); assert p.allow_abbrev is False, prog
        with pytest.raises(UserError, match='unrecognized arguments'): p.parse_args(argv)
    root = Path(__file__).resolve().parents[1]
    scripts = [f for d in ('experiments', 'tools', 'bench') for f in (root / d).rglob('*.py') if 'argparse.ArgumentParser(' in f.read_text(encoding='utf-8')]
    assert scripts and not [str(f) for f in scripts if f.parent.name != 'gpu' and 'argparse.ArgumentParser(allow_abbrev=False' not in f.read_text(encoding='utf-8')]

def test_the_library_refuses_a_nul_byte_with_the_commands_line(tmp_path, capsys):
    "translate() from Python once took a NUL byte with a warning where tnb-translate refused it: both refuse it now, by one check (`check_no_nul`), in the same words."
    from transformer_nb.apps.cli import translate_main
    from transformer_nb.apps.pretrained import load_pretrained
    from transformer_nb.lib.fast_decoding import translate
    (tmp_path / 'in.txt').write_bytes(b'eight\x00nine\n')
    with pytest.raises(SystemExit) as e: translate_main(['pretrained:numbers', '-i', str(tmp_path / 'in.txt')])
    said = capsys.readouterr().err.strip().splitlines()[-1].split('error: ', 1)[1]
    model, tok = load_pretrained('numbers')[:2]
    with pytest.raises(ValueError) as f: translate(model, tok, ['seven', 'eight\x00nine'])
    assert e.value.code == 2 and said.replace(f"-i {tmp_path / 'in.txt'}, line 1", 'sentences[1]') == str(f.value), (said, f.value)
    assert str(f.value) == "sentences[1]: a NUL byte at offset 5; this is not UTF-8 text (a binary file, or UTF-16 text: convert it to UTF-8)"
