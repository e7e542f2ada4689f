"""The command-line tools and the library agree (apps_cli, lib_runs, apps_tasks): a run folder stands for the same file in
every tool and in `model_from_checkpoint`, and each tool says which; `train_model(task=...)` is the run `tnb-train`
makes, bit for bit; and label smoothing goes from `tnb-train --eps-ls` to the loss one way, as a training setting.
The tools run in this process (their entry points take `argv`), so no interpreter is started."""
import contextlib, io, os, shutil, subprocess, sys
from dataclasses import fields
from pathlib import Path
import pytest, torch
from transformer_nb.apps.cli import train_main, translate_main, evaluate_main, export_main, _train_parser, _train_settings
from transformer_nb.lib.checkpoints import open_checkpoint, resolve_checkpoint, model_from_checkpoint
from transformer_nb.lib.datasets import load_dataset
from transformer_nb.lib.options import ModelConfig
from transformer_nb.lib.runs import RunFolder, checkpoint_name
from transformer_nb.apps.workflow import train_model, resume_run, _split
from transformer_nb.lib.trainer import Trainer
from transformer_nb.lib.options import TrainConfig
from transformer_nb.data import encode_pairs


def run(main, argv) -> tuple[str, str, int]:
    "A tool's entry point run in this process: (stdout, stderr, exit code)."
    out, err, code = io.StringIO(), io.StringIO(), 0
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try: main([str(a) for a in argv])
        except SystemExit as e: code = e.code
    return out.getvalue(), err.getvalue(), code


@pytest.fixture(scope='module')
def copy_run(tmp_path_factory):
    "A copy-task run of 4 updates with checkpoints at 2 and 4 and their average; and a small test set."
    d = tmp_path_factory.mktemp('agree')
    small = load_dataset('copy', n_train=300, n_valid=20, n_test=20, n_symbols=6, max_len=5)
    t = train_model(small, preset='tiny', vocab_size=16, steps=4, save_every=2, average=2, keep=0, max_tokens=400,
                    progress=False, out=str(d / 'run'), say=lambda m: None)
    (d / 'test.src').write_text('a b c\nd e\n'); (d / 'test.ref').write_text('a b c\nd e\n')
    return d, t


def said_file(stderr:str, prog:str) -> str:
    "The file a tool says it uses: '<prog>: using PATH (why)'."
    line = next(l for l in stderr.splitlines() if l.startswith(f'{prog}: using '))
    return line.split(': using ', 1)[1].split(' (', 1)[0]


def every_tool_uses(d, folder) -> dict:
    "The file each tool, and `model_from_checkpoint`, takes for the run folder `folder`."
    used = {}
    out, err, code = run(translate_main, [folder, 'a b', '--threads', '1'])
    assert code == 0, err
    used['tnb-translate'] = said_file(err, 'tnb-translate')
    out, err, code = run(evaluate_main, [folder, '--src', d / 'test.src', '--ref', d / 'test.ref', '--threads', '1'])
    assert code == 0, err
    used['tnb-evaluate'] = said_file(err, 'tnb-evaluate')
    try: import ctranslate2  # noqa: F401
    except ImportError: ctranslate2 = None
    if ctranslate2 is not None:
        out, err, code = run(export_main, ['--ctranslate2', folder, '-o', d / f'ct2-{len(list(d.iterdir()))}'])
        assert code == 0, err
        used['tnb-export'] = out.split(' from ', 1)[1].split(' (', 1)[0]
    path, _ = resolve_checkpoint(folder)
    ck = model_from_checkpoint(folder)[2]
    want = torch.load(path, weights_only=True)
    assert all(torch.equal(ck.weights[k], want['model'][k]) for k in want['model'])
    used['model_from_checkpoint'] = str(path)
    return used


def test_a_run_folder_is_one_file_everywhere(copy_run):
    d, t = copy_run
    folder = RunFolder(t.run.path)
    used = every_tool_uses(d, folder.path)                       # the average is the run's newest model
    assert set(used.values()) == {str(folder.average)}, used
    assert open_checkpoint(folder.average, None).meta['averaged_steps'] == [2, 4]
    stale = Path(shutil.copytree(folder.path, d / 'stale'))      # the run went on past its average: a newer checkpoint
    ck = torch.load(stale / checkpoint_name(4), weights_only=True); ck['step'] = 6; ck['meta']['train_config']['steps'] = 8
    torch.save(ck, stale / checkpoint_name(6))                   # update 6 of a run asked for 8, as its name says
    used = every_tool_uses(d, stale)
    assert set(used.values()) == {str(stale / checkpoint_name(6))}, used
    said = []                                                    # resuming takes the newest checkpoint, and says so
    where = resume_run(stale, say=said.append).path.parent
    assert said == [f"resuming {stale / checkpoint_name(6)} (the newest checkpoint of the folder)"] and where == stale


@pytest.mark.slow                     # two short runs of the main job's recipe (tokenizer and corpus included)
def test_train_model_is_tnb_train_bit_for_bit(tmp_path):
    "`train_model(task='numbers', steps=N)` and `tnb-train --steps N` give the same weights, tokenizer and losses."
    from transformer_nb.lib.machine import limit_threads
    limit_threads(None)          # as a fresh process starts: not the threads another test of this worker chose (both keep those)
    train_model(task='numbers', steps=6, out=str(tmp_path / 'py'), progress=False, say=lambda m: None)
    out, err, code = run(train_main, ['--steps', '6', '--out', tmp_path / 'cli', '--no-progress', '--test-limit', '0'])
    assert code == 0, err
    a, b = (torch.load(p / checkpoint_name(6), weights_only=True) for p in (tmp_path / 'py', tmp_path / 'cli'))
    assert a['model'].keys() == b['model'].keys() and all(torch.equal(a['model'][k], b['model'][k]) for k in a['model'])
    assert bytes(a['tokenizer']) == bytes(b['tokenizer']) and a['config'] == b['config']
    ha, hb = a['meta']['history'], b['meta']['history']
    strip = lambda rs: [{k: v for k, v in r.items() if k not in ('tok_s', 'time')} for r in rs]   # timings differ
    assert strip(ha['train']) == strip(hb['train']) and strip(ha['valid']) == strip(hb['valid']), (ha, hb)
    ta, tb = a['meta']['train_config'], b['meta']['train_config']
    assert {k: v for k, v in ta.items() if k != 'out'} == {k: v for k, v in tb.items() if k != 'out'}
    assert (a['meta']['task'], b['meta']['task'], a['meta']['preset']) == ('numbers', 'numbers', b['meta']['preset'])


@pytest.mark.slow                     # two fresh processes, each one short run of the main job's recipe
def test_train_model_is_tnb_train_bit_for_bit_with_no_thread_setting(tmp_path):
    """With no thread setting anywhere (no limit_threads, TNB_THREADS or OMP_NUM_THREADS), each in a fresh process, a script's
    `train_model(task='numbers', steps=N)` and `tnb-train --steps N` train on the same CPU threads and give the same weights."""
    env = {k: v for k, v in os.environ.items() if k not in ('TNB_THREADS', 'OMP_NUM_THREADS', 'MKL_NUM_THREADS', 'TNB_COMMIT')}
    env['PYTHONPATH'] = os.pathsep.join([str(Path(__file__).resolve().parents[1]), env.get('PYTHONPATH', '')])
    said = "import atexit, sys, torch; atexit.register(lambda: print('threads', torch.get_num_threads(), file=sys.stderr)); "
    py = said + "from transformer_nb.apps.workflow import train_model; train_model(task='numbers', steps=6, out=sys.argv[1], progress=False, say=print)"
    cli = said + "from transformer_nb.apps.cli import train_main; train_main(sys.argv[1:])"
    runs = [subprocess.run([sys.executable, '-c', code, *args], capture_output=True, text=True, env=env, timeout=600) for code, args in
            ((py, [str(tmp_path / 'py')]), (cli, ['--steps', '6', '--out', str(tmp_path / 'cli'), '--no-progress', '--test-limit', '0']))]
    for r in runs: assert r.returncode == 0, r.stderr[-2000:]
    threads = [r.stderr.strip().splitlines()[-1] for r in runs]               # the threads each trained on, said as it exits
    a, b = (torch.load(p / checkpoint_name(6), weights_only=True) for p in (tmp_path / 'py', tmp_path / 'cli'))
    differ = [k for k in a['model'] if not torch.equal(a['model'][k], b['model'][k])]
    assert not differ and threads[0] == threads[1], (f"{len(differ)} of {len(a['model'])} weights differ", threads)
    strip = lambda rs: [{k: v for k, v in r.items() if k not in ('tok_s', 'time')} for r in rs]
    assert strip(a['meta']['history']['train']) == strip(b['meta']['history']['train'])


def test_label_smoothing_walks_one_way(copy_run):
    "--eps-ls becomes a training setting, never a model field; the loss reads it from the training config alone."
    a = _train_parser().parse_args(['--eps-ls', '0.2', '--d-model', '64'])
    train, model = _split(_train_settings(a)[0])
    assert (train, model) == ({'eps_ls': 0.2}, {'d_model': 64})
    assert not {'eps_ls', 'label_smoothing'} & {f.name for f in fields(ModelConfig)}
    d, t = copy_run
    ck = torch.load(t.last_checkpoint, weights_only=True)
    assert 'eps_ls' not in ck['config'] and ck['meta']['train_config']['eps_ls'] == TrainConfig().eps_ls
    pairs = encode_pairs(t.tokenizer, [('a b', 'a b'), ('c d e', 'c d e')])
    losses = {}
    for eps in (0.0, 0.3):                                        # the same model and data, two training settings
        tr = Trainer(t.model, pairs, pairs, tc=TrainConfig(eps_ls=eps, progress=False))
        losses[eps] = tr.evaluate()
    assert losses[0.0]['nll'] == losses[0.3]['nll'] and losses[0.0]['loss'] != losses[0.3]['loss'], losses
    assert losses[0.0]['loss'] == pytest.approx(losses[0.0]['nll'])   # no smoothing: the loss is the NLL


def counting(monkeypatch, owner, name:str) -> list:
    "Replace `owner.name` with a wrapper that records each call's first argument (for a method, the one after self)."
    calls, real = [], getattr(owner, name)
    def wrapper(*a, **k):
        calls.append(a[1] if isinstance(owner, type) and len(a) > 1 else a[0] if a else None)
        return real(*a, **k)
    monkeypatch.setattr(owner, name, wrapper)
    return calls


def test_a_new_run_folder_is_checked_once_and_the_beam_said_as_an_option(tmp_path, monkeypatch):
    "tnb-train claims its folder, and fit's claim of the same start holds it as it is: the conflicts are looked for once; a test beam wider than the vocabulary is refused in the command's words, stated once by the library."
    conflicts, links = counting(monkeypatch, RunFolder, 'conflicts'), counting(monkeypatch, RunFolder, 'check_links')
    out, err, code = run(train_main, ['--dataset', 'copy', '--preset', 'tiny', '--vocab-size', '16', '--steps', '2', '--max-tokens', '400',
                                      '--out', tmp_path / 'run', '--no-progress', '--threads', '1', '--beam', '40'])
    assert (len(conflicts), len(links)) == (1, 1), (conflicts, links)
    assert code == 2 and err.strip().endswith('error: --beam 40 is more than the target vocabulary of 16 pieces'), err
    assert (tmp_path / 'run' / checkpoint_name(2)).is_file()                     # the run itself is done and kept


def test_a_resume_reads_and_checks_its_checkpoint_once(copy_run, tmp_path, monkeypatch):
    "tnb-train --resume FOLDER: the checkpoint is resolved, read and checked once (its generators restored and checked once), and the folder claimed once."
    import transformer_nb.lib.checkpoints as C
    d, t = copy_run
    folder = Path(shutil.copytree(t.run.path, tmp_path / 'run'))
    loads, rngs, conflicts = counting(monkeypatch, torch, 'load'), counting(monkeypatch, C, '_check_rng'), counting(monkeypatch, RunFolder, 'conflicts')
    at_fit = []
    real_fit = Trainer.fit
    monkeypatch.setattr(Trainer, 'fit', lambda self: (at_fit.append((list(loads), len(rngs))), real_fit(self))[1])
    out, err, code = run(train_main, ['--resume', folder, '--steps', '6', '--no-progress', '--test-limit', '0', '--threads', '1'])
    assert code == 0, err
    # one read of weights, one check, before training; a look at another checkpoint's metadata (its run id, lib_runs) maps the
    # file and reads no tensor, so only loads from the bytes read and hashed (lib_checkpoints) count
    read = [[x for x in loads if not isinstance(x, (str, Path))] for loads, _ in at_fit]
    assert len(at_fit) == 1 and len(read[0]) == 1 and at_fit[0][1] == 1, at_fit
    (src,) = read[0]                                                  # the checkpoint's bytes, read once and hashed as read (lib_checkpoints)
    assert src == folder / checkpoint_name(4) or (hasattr(src, 'getvalue') and src.getvalue() == (folder / checkpoint_name(4)).read_bytes()), src
    assert len(conflicts) == 1 and open_checkpoint(folder / checkpoint_name(6), None).step == 6


def test_an_early_stop_a_task_refuses_is_one_sentence_said_as_an_option(copy_run, tmp_path):
    "The task states once that its outputs take the exact search (`Task.check_decoding`); tnb-translate says it in the same words."
    from transformer_nb.lib.checkpoints import save_checkpoint
    from transformer_nb.lib.options import Decoding
    from transformer_nb.apps.tasks import get_task
    d, t = copy_run
    ck = torch.load(t.last_checkpoint, weights_only=True)
    path = save_checkpoint(tmp_path / 'trees.pt', **{**ck, 'meta': {**ck['meta'], 'task': 'parsing'}})   # a model of parse trees
    said = "is for translation; a parsing model is decoded with the exact search"
    out, err, code = run(translate_main, [path, 'a b', '--early-stop', '--threads', '1'])
    assert code == 2 and err.strip().endswith(f"error: --early-stop {said}"), err
    with pytest.raises(ValueError, match=f"stop='early' {said}"):
        get_task('parsing').score(t.model, t.tokenizer, [('a b', 'a b')], Decoding(stop='early'))


def test_the_decoding_batch_size_in_the_help_is_the_library_s():
    "tnb-translate's --help states the decoding batch size: the library's one number, read from it."
    from transformer_nb.apps.cli import _translate_parser
    from transformer_nb.lib.options import DECODE_BATCH_TOKENS
    a = next(x for x in _translate_parser()._actions if x.dest == 'max_tokens')
    assert f"default: {DECODE_BATCH_TOKENS})" in a.help, a.help


def test_recipe_refusals_are_the_library_s_said_as_options(copy_run, tmp_path):
    "A recipe the task lacks, and a recipe for a resumed run, are refused by `task_recipe` and `resume_run` alone, in the library's words."
    out, err, code = run(train_main, ['--dataset', 'copy', '--recipe', 'cpu-hour', '--out', tmp_path / 'new', '--no-progress'])
    assert code == 2 and err.strip().endswith("error: --recipe cpu-hour: the copy task's recipes are only its default"), err
    assert not (tmp_path / 'new').exists()                                   # claimed, nothing written, removed
    d, t = copy_run
    out, err, code = run(train_main, ['--resume', t.run.path, '--recipe', 'paper', '--no-progress'])
    assert code == 2 and err.strip().endswith("error: --recipe paper: a resumed run keeps the settings of its own recipe; drop it"), err


# --- the same refusals in the library, tnb-translate and the live translator (nbs/live/translate.mjs) ---------------------

def _refusal_cases(vocab:int, long_line:str, long_tokens:int) -> list:
    "(id, args, stdin bytes, the library's refusal (a call on (onnx folder, BytesIO)), the line tnb-translate and translate.mjs say, what the CLI adds)."
    from io import BytesIO
    from transformer_nb.apps.export import onnx_translate
    from transformer_nb.lib.safeguards import iter_lines
    lib = lambda **kw: lambda d: onnx_translate(d, ['one'], **kw)
    lines = lambda d, data: list(iter_lines(BytesIO(data), 'standard input'))
    nul = '; this is not UTF-8 text (a binary file, or UTF-16 text: convert it to UTF-8)'
    bad = lambda why, b, at: f"invalid UTF-8 ({why}: byte b'\\x{b:02x}' at offset {at}); the text must be UTF-8 encoded"
    chars = 64 * 1024 + 1
    wide = vocab + 1 if vocab < 1000 else 1001   # past the vocabulary, or past the beam's declared bound (checked first)
    past = f"is more than the target vocabulary of {vocab} pieces" if vocab < 1000 else "must be an int in [1, 1000]"
    return [   # id, args, stdin, library call, the library's words, the commands' words, the CLI's hint beyond them
        ('beam 0', ['--beam', '0'], b'one\n', lib(beam=0), "beam=0 must be an int in [1, 1000]", "--beam 0 must be an int in [1, 1000]", ''),
        ('beam -1', ['--beam=-1'], b'one\n', lib(beam=-1), "beam=-1 must be an int in [1, 1000]", "--beam -1 must be an int in [1, 1000]", ''),
        ('beam 1.5', ['--beam', '1.5'], b'one\n', lib(beam=1.5), "beam=1.5 must be an int in [1, 1000]", "--beam 1.5 must be an int in [1, 1000]", ''),
        ('beam x', ['--beam', 'x'], b'one\n', lib(beam='x'), "beam='x' must be an int in [1, 1000]", "--beam x must be an int in [1, 1000]", ''),
        ('beam arabic-indic 3', ['--beam', '٣'], b'one\n', lib(beam='٣'), "beam='٣' must be an int in [1, 1000]", "--beam '٣' must be an int in [1, 1000]", ''),
        ('beam full-width 4', ['--beam', '４'], b'one\n', lib(beam='４'), "beam='４' must be an int in [1, 1000]", "--beam '４' must be an int in [1, 1000]", ''),
        ('beam 1_000', ['--beam', '1_000'], b'one\n', lib(beam='1_000'), "beam='1_000' must be an int in [1, 1000]", "--beam 1_000 must be an int in [1, 1000]", ''),
        ('beam past the vocabulary or its bound', ['--beam', str(wide)], b'one\n', lib(beam=wide), f"beam={wide} {past}", f"--beam {wide} {past}", ''),
        ('alpha -1', ['--alpha', '-1'], b'one\n', lib(alpha=-1.0), "alpha=-1.0 must be a number in [0, 10]", "--alpha -1.0 must be a number in [0, 10]", ''),
        ('alpha nan', ['--alpha', 'nan'], b'one\n', lib(alpha=float('nan')), "alpha=nan must be a number in [0, 10]", "--alpha nan must be a number in [0, 10]", ''),
        ('alpha 11', ['--alpha', '11'], b'one\n', lib(alpha=11.0), "alpha=11.0 must be a number in [0, 10]", "--alpha 11.0 must be a number in [0, 10]", ''),
        ('alpha arabic-indic 0.6', ['--alpha', '٠.٦'], b'one\n', lib(alpha='٠.٦'), "alpha='٠.٦' must be a number in [0, 10]", "--alpha '٠.٦' must be a number in [0, 10]", ''),
        ('a NUL byte', [], b'one\ntw\x00o\n', lambda d: lines(d, b'one\ntw\x00o\n'), *['standard input, line 2: a NUL byte at offset 6' + nul] * 2, ''),
        ('UTF-16 text', [], 'eins\n'.encode('utf-16'), lambda d: lines(d, 'eins\n'.encode('utf-16')), *['standard input, line 1: a NUL byte at offset 3' + nul] * 2, ''),
        ('an invalid start byte', [], b'one\n\xff\xfe two\n', lambda d: lines(d, b'one\n\xff\xfe two\n'), *['standard input, line 2: ' + bad('invalid start byte', 0xff, 4)] * 2, ''),
        ('an invalid continuation byte', [], b'caf\xc3( ok\n', lambda d: lines(d, b'caf\xc3( ok\n'), *['standard input, line 1: ' + bad('invalid continuation byte', 0xc3, 3)] * 2, ''),
        ('a surrogate', [], b'a\xed\xa0\x80b\n', lambda d: lines(d, b'a\xed\xa0\x80b\n'), *['standard input, line 1: ' + bad('invalid continuation byte', 0xed, 1)] * 2, ''),
        ('a line cut inside a character', [], b'one\nab\xe2\x82\nthree\n', lambda d: lines(d, b'one\nab\xe2\x82\nthree\n'),
         *['standard input, line 2: ' + bad('unexpected end of data', 0xe2, 6)] * 2, ''),
        ('a line over the limit of tokens', [], f'one\n{long_line}\n'.encode(), lambda d: onnx_translate(d, ['one', long_line]),
         f"sentences[1] is {long_tokens:,} tokens long (its end-of-sentence token included), more than the limit of 1,024",
         f"standard input, line 2 is {long_tokens:,} tokens long (its end-of-sentence token included), more than the limit of 1,024: split it into sentences",
         ', or raise --max-src-len 1024 (at most 4,096)'),
        ('a line of 65,537 characters', [], b'x' * chars + b'\n', lambda d: onnx_translate(d, ['x' * chars]),
         f"sentences[0] is {chars:,} characters long, far more than any sentence within the limit of 1,024 tokens",
         f"standard input, line 1 is {chars:,} characters long, far more than any sentence within the limit of 1,024 tokens: split it into sentences",
         ', or raise --max-src-len 1024 (at most 4,096)'),
    ]

@pytest.fixture(scope='module')
def numbers_onnx(numbers, tmp_path_factory):
    "The numbers run (conftest) and its ONNX export (int8, as the site's)."
    pytest.importorskip('onnxruntime', reason="onnxruntime not installed (pip install 'transformer-nb[onnx]')")
    from transformer_nb.apps.export import export_onnx
    return numbers, export_onnx(numbers, tmp_path_factory.mktemp('refusals') / 'onnx')

@pytest.mark.slow
def test_the_library_the_command_and_the_live_translator_refuse_alike(numbers_onnx):
    "Twenty bad inputs (an option's value, bytes that are not UTF-8 text, a line too long), each refused by the library"
    " (`onnx_translate`, `iter_lines`), by `tnb-translate` and by `node nbs/live/translate.mjs` (exit 2) in the same words."
    import shutil as sh
    from conftest import tool
    from transformer_nb.lib.tokens import StoredTokenizer
    node = sh.which('node')
    if node is None: pytest.skip("node is not installed: translate.mjs runs in Node")
    mjs = Path(__file__).resolve().parents[1] / 'nbs' / 'live' / 'translate.mjs'
    if not (mjs.parent / 'node_modules' / 'onnxruntime-web').is_dir(): pytest.skip("nbs/live's packages are not installed: npm ci --prefix nbs/live")
    run, d = numbers_onnx
    tok = StoredTokenizer.load(d / 'tokenizer.model')
    long_line = ' '.join(['three hundred forty-two'] * 400)
    cases = _refusal_cases(tok.vocab_size, long_line, len(tok.encode(long_line)) + 1)
    assert len(cases) == 20 and len({c[0] for c in cases}) == 20
    for name, args, stdin, call, lib_says, says, hint in cases:
        with pytest.raises((ValueError, TypeError)) as e: call(d)
        assert str(e.value) == lib_says, (name, str(e.value))
        r = tool('translate', run, *args, stdin=stdin)
        err = [l for l in r.stderr.splitlines() if ': using ' not in l]
        assert r.returncode == 2 and err == [f"tnb-translate: error: {says}{hint}"], (name, r.returncode, r.stderr)
        r = subprocess.run([node, mjs, d, *args], input=stdin, capture_output=True, timeout=300)
        assert r.returncode == 2 and r.stderr.decode() == f"translate.mjs: {says}\n" and not r.stdout, (name, r.returncode, r.stderr.decode())
