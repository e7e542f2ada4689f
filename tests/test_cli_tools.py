"tnb-translate, tnb-evaluate and tnb-average (apps_cli) as a user runs them: a real checkpoint, files, stdin, bad input."
import json
from pathlib import Path
import pytest, torch
from transformer_nb.lib.checkpoints import open_checkpoint
from transformer_nb.lib.runs import RunFolder
from functools import partial
import conftest

pytestmark = pytest.mark.slow        # every test here runs the tools in fresh processes (`pytest -m 'not slow'` skips them)
tool = partial(conftest.tool, text=True)

@pytest.fixture(scope='module')
def run(tmp_path_factory):
    "A copy-task model that really copies (trained for a few seconds), with three checkpoints."
    out = tmp_path_factory.mktemp('cli') / 'copy'
    r = tool('train', '--dataset', 'copy', '--preset', 'tiny', '--d-model', '64', '--d-ff', '128', '--steps', '800',
             '--out', out, '--no-progress', '--beam', '1', '--test-limit', '50', '--save-every', '100', '--keep', '3')
    assert r.returncode == 0, r.stderr[-2000:]
    # The tests below read its translations as copies: 400 updates were not enough on every CPU ('h g f e' -> 'h g f e e').
    said = [tool('translate', out, *COPIES, '--beam', b).stdout.splitlines() for b in ('1', '4')]
    assert said == [COPIES, COPIES], f"the copy model did not learn to copy: {said}"
    return out

COPIES = ['a b c', 'h g f e', 'd e a d', 'a b', 'b a d', 'c a b']

def test_scripts_registered():
    try: import tomllib
    except ModuleNotFoundError: import tomli as tomllib   # Python 3.10
    scripts = tomllib.loads((Path(__file__).resolve().parents[1] / 'pyproject.toml').read_text())['project']['scripts']
    for n in ('translate', 'evaluate', 'average'): assert scripts[f'tnb-{n}'] == f'transformer_nb.apps.cli:{n}_main'

@pytest.mark.parametrize('name', ['translate', 'evaluate', 'average'])
def test_help(name):
    r = tool(name, '--help')
    assert r.returncode == 0 and 'examples:' in r.stdout and f'tnb-{name}' in r.stdout, r.stderr

def test_translate_arguments_file_and_stdin(run, tmp_path):
    r = tool('translate', run, 'a b c', 'h g f e', '--beam', '4')
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines() == ['a b c', 'h g f e']
    # stdin: one line out per line in, empty lines kept, greedy too
    r = tool('translate', run, '--beam', '1', stdin='a b c\n\n\nd e a d\n')
    assert r.returncode == 0, r.stderr
    assert r.stdout.split('\n') == ['a b c', '', '', 'd e a d', '']
    # a file in, a file out
    (tmp_path / 'in.txt').write_text('b a d\n\nc a b\n')
    r = tool('translate', run, '-i', tmp_path / 'in.txt', '-o', tmp_path / 'out.txt')
    assert r.returncode == 0 and r.stdout == '', r.stderr
    assert (tmp_path / 'out.txt').read_text() == 'b a d\n\nc a b\n'

def test_translate_unknown_characters_and_long_input(run):
    r = tool('translate', run, 'ä ☃ 漢 a', ' '.join('abcdefgh' * 40))   # unknown pieces -> <unk>; 320 tokens
    assert r.returncode == 0, r.stderr
    assert len(r.stdout.split('\n')) == 3

@pytest.mark.parametrize('make,msg', [    # missing, not a checkpoint, cut, damaged: test_checkpoints.py, in all five commands
    (lambda d: torch.save({'weights': torch.zeros(2)}, d / 'foreign.pt') or d / 'foreign.pt', 'not a transformer_nb checkpoint'),
])
def test_bad_checkpoint_one_line(run, tmp_path, make, msg):
    path = make(tmp_path)
    for name, args in (('translate', ['a b']), ('evaluate', ['--dataset', 'copy'])):
        r = tool(name, path, *args)
        assert r.returncode == 2, (r.returncode, r.stderr)
        lines = r.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith(f'tnb-{name}: error:') and msg in lines[0], r.stderr

def test_checkpoint_whose_weights_do_not_fit_its_config(run, tmp_path):
    ck = torch.load(RunFolder(run).checkpoints()[-1], weights_only=True)
    ck['config']['d_ff'] = 256                                      # another architecture than the weights
    torch.save(ck, tmp_path / 'other.pt')
    r = tool('translate', tmp_path / 'other.pt', 'a b')
    assert r.returncode == 2 and 'do not match the architecture' in r.stderr and 'Traceback' not in r.stderr, r.stderr

def test_evaluate_files_and_dataset(run, tmp_path):
    (tmp_path / 's').write_text('a b c\nh g f e\n'); (tmp_path / 'r').write_text('a b c\nh g f e\n')
    r = tool('evaluate', run, '--src', tmp_path / 's', '--ref', tmp_path / 'r', '--hyp-out', tmp_path / 'h', '--json')
    assert r.returncode == 0, r.stderr
    sc = json.loads(r.stdout)
    assert sc['exact_match'] == 100.0 and sc['chrf'] == 100.0 and 'case:mixed' in sc['bleu_signature']
    assert (tmp_path / 'h').read_text() == 'a b c\nh g f e\n'
    r = tool('evaluate', run, '--dataset', 'copy', '--beam', '1')       # the checkpoint knows its languages
    assert r.returncode == 0 and 'BLEU' in r.stdout and 'nrefs:1' in r.stdout and 'chrF' in r.stdout, r.stderr
    assert tool('evaluate', run, '--src', tmp_path / 's').returncode == 2
    (tmp_path / 'r3').write_text('a\nb\nc\n')
    r = tool('evaluate', run, '--src', tmp_path / 's', '--ref', tmp_path / 'r3')
    assert r.returncode == 2 and 'r3' in r.stderr and 'Traceback' not in r.stderr, r.stderr

def test_average(run, tmp_path):
    r = tool('average', run, '--last', '2', '-o', tmp_path / 'avg.pt')
    assert r.returncode == 0, r.stderr
    paths = RunFolder(run).checkpoints()[-2:]
    a, b, avg = (open_checkpoint(p, None).weights for p in (*paths, tmp_path / 'avg.pt'))
    k = 'encoder.0.ffn.w_1.weight'
    torch.testing.assert_close(avg[k], (a[k] + b[k]) / 2)
    assert tool('translate', tmp_path / 'avg.pt', 'a b c').stdout == 'a b c\n'
    # another architecture: a clear error and no output file
    from transformer_nb.lib.checkpoints import config_print
    ck = torch.load(paths[-1], weights_only=True); ck['config']['h'] = 2; ck['config_sha256'] = config_print(ck['config']); torch.save(ck, tmp_path / 'h2.pt')
    r = tool('average', paths[-1], tmp_path / 'h2.pt', '-o', tmp_path / 'bad.pt')
    assert r.returncode == 2 and 'different architectures' in r.stderr and not (tmp_path / 'bad.pt').exists(), r.stderr
    assert tool('average', run, '--last', '0', '-o', tmp_path / 'x.pt').returncode == 2

def test_early_stop(run, tmp_path):
    "--early-stop (OpenNMT-py's stopping rule) translates, and a results record says how it decoded."
    r = tool('translate', run, 'a b c', 'h g f e', '--early-stop')
    assert r.returncode == 0 and r.stdout.splitlines() == ['a b c', 'h g f e'], r.stderr
    (tmp_path / 's').write_text('a b c\nh g f e\n'); (tmp_path / 'r').write_text('a b c\nh g f e\n')
    rec = tmp_path / 'results.json'
    r = tool('evaluate', run, '--src', tmp_path / 's', '--ref', tmp_path / 'r', '--early-stop', '--record', rec)
    assert r.returncode == 0 and 'early stop' in r.stdout, r.stderr
    [record] = json.loads(rec.read_text())
    assert record['decoding'] == 'beam 4, alpha 0.6, early stop' and record['id'].endswith('-beam4-alpha0.6-early'), record


def test_translate_takes_double_dash(run, tmp_path):
    "After '--' everything is positional, as for the other tools: a run folder whose name starts with a dash, and such a sentence."
    (tmp_path / '-dash').mkdir(); (tmp_path / '-dash' / 'run').symlink_to(run)
    r = tool('translate', '--beam', '1', '--', '-dash/run', 'a b c', '-b', cwd=tmp_path)
    assert r.returncode == 0 and r.stdout.splitlines()[0] == 'a b c', r.stderr
    assert len(r.stdout.splitlines()) == 2
    r = tool('translate', '--', '-dash/run', 'a b c', cwd=tmp_path)
    assert (r.returncode, r.stdout) == (0, 'a b c\n'), r.stderr


def test_average_of_one_checkpoint_says_so(run, tmp_path):
    "A run folder without --last is one checkpoint: no 'averaged 1 checkpoints', and a hint at --last N."
    r = tool('average', run, '-o', tmp_path / 'x.pt')
    assert r.returncode == 0 and 'averaged 1 checkpoint (' in r.stdout, (r.stdout, r.stderr)
    assert 'is a copy of it' in r.stderr and '--last N' in r.stderr, r.stderr
    paths = RunFolder(run).checkpoints()[-2:]
    r = tool('average', *paths, '-o', tmp_path / 'y.pt')
    assert 'averaged 2 checkpoints' in r.stdout and 'copy' not in r.stderr, r.stderr


def test_export_names_the_output_folder(run):
    pytest.importorskip('ctranslate2')
    r = tool('export', '--ctranslate2', run, '-o', '/proc/ex')
    assert r.returncode in (1, 2) and 'error: cannot write /proc/ex:' in r.stderr and '.tmp' not in r.stderr, r.stderr


def test_train_help_says_what_zero_means():
    r = tool('train', '--help')
    text = ' '.join(r.stdout.split())
    for opt, zero in (('--save-every N', '(0: only at the end)'), ('--keep N', '; 0: all ('), ('--average N', '0 or 1: none)'),
                      ('--valid-every N', '(0: at the end of every epoch)')):
        assert opt in text and zero in text.rsplit(opt, 1)[1][:200], (opt, text)   # the last: the option's line, not the usage


def test_translate_runs_an_export(run, tmp_path):
    "tnb-translate decodes a folder that tnb-export wrote with CTranslate2, and its greedy outputs are the checkpoint's."
    pytest.importorskip('ctranslate2')
    assert tool('export', '--ctranslate2', run, '-o', tmp_path / 'ct2').returncode == 0
    src = ['a b c', 'h g f e', '', 'b a d']
    want = tool('translate', run, '--beam', '1', *src).stdout
    r = tool('translate', tmp_path / 'ct2', '--beam', '1', *src)
    assert (r.returncode, r.stdout) == (0, want), r.stderr
    assert 'a CTranslate2 export of' in r.stderr
    r = tool('translate', tmp_path / 'ct2', '-i', '-', stdin='a b c\rb a d\r')           # standard input, Mac lines too
    assert r.returncode == 0 and len(r.stdout.splitlines()) == 2, r.stderr
    r = tool('translate', tmp_path / 'ct2', '--early-stop', 'a b')
    assert r.returncode == 2 and 'is a CTranslate2 export' in r.stderr and '--early-stop' in r.stderr, r.stderr


@pytest.mark.parametrize('args, says', [(['--keep', '2', '--average', '3'], r'--keep 2 keeps fewer checkpoints than the 3 that --average 3 averages'),
                                        (['--cooldown', '5'], r'--cooldown 5 needs --steps N')])
def test_train_refuses_what_the_library_refuses(tmp_path, args, says):
    "tnb-train states no check of its own that TrainConfig makes: the library's one message, one line, exit 2, nothing trained."
    import re
    r = tool('train', '--dataset', 'copy', '--preset', 'tiny', '--no-progress', '--out', tmp_path / 'r', *args)
    assert r.returncode == 2 and re.search(says, r.stderr) and len(conftest.said(r.stderr)) == 1, r.stderr
    assert not list((tmp_path / 'r').glob('checkpoint-*.pt'))


def test_average_skips_averages_among_its_inputs(run, tmp_path):
    "`tnb-average RUN/*.pt` folded average.pt into the new average: an average among the inputs is skipped, named; averages alone are refused."
    import shutil
    paths = RunFolder(run).checkpoints()[-2:]
    for p in paths: shutil.copy(p, tmp_path / p.name)
    assert tool('average', *paths, '-o', tmp_path / 'average.pt').returncode == 0
    shutil.copy(tmp_path / 'average.pt', tmp_path / 'avg-copy.pt')                # an average under another name
    r = tool('average', *sorted(tmp_path.glob('*.pt')), '-o', tmp_path / 'new.pt')
    assert r.returncode == 0 and 'averaged 2 checkpoints' in r.stdout, r.stderr
    assert f"tnb-average: skipped {tmp_path / 'average.pt'}, {tmp_path / 'avg-copy.pt'}: an average of checkpoints" in r.stderr
    new, old = (open_checkpoint(p, None).weights for p in (tmp_path / 'new.pt', tmp_path / 'average.pt'))
    assert all(torch.equal(new[k], old[k]) for k in old)                           # the same two checkpoints, each counted once
    r = tool('average', tmp_path / 'average.pt', tmp_path / 'avg-copy.pt', '-o', tmp_path / 'x.pt')
    assert r.returncode == 2 and 'averages only' in r.stderr and not (tmp_path / 'x.pt').exists(), r.stderr


def test_average_names_a_missing_average_as_not_found(run, tmp_path):
    "A non-existent .../average.pt among the inputs was 'skipped' as an average, exit 0: it is a missing checkpoint, one line, exit 2."
    r = tool('average', RunFolder(run).latest(), tmp_path / 'average.pt', '-o', tmp_path / 'x.pt')
    assert (r.returncode, r.stderr.strip()) == (2, f"tnb-average: error: checkpoint not found: {tmp_path / 'average.pt'}"), r.stderr
    assert not (tmp_path / 'x.pt').exists()

def test_average_of_a_folder_without_last_is_its_newest_training_checkpoint(run, tmp_path):
    "`tnb-average RUN -o x` copied RUN/average.pt, the file it skips when named: now the newest training checkpoint, as --help says."
    import shutil
    shutil.copytree(run, tmp_path / 'r'); folder = RunFolder(tmp_path / 'r')
    assert tool('average', folder.path, '--last', '2', '-o', folder.path / 'average.pt').returncode == 0
    r = tool('average', folder.path, '-o', tmp_path / 'x.pt')
    assert r.returncode == 0 and f"averaged 1 checkpoint ({folder.latest().name})" in r.stdout, (r.stdout, r.stderr)
    assert 'never its average.pt' in tool('average', '--help').stdout

def test_average_refuses_a_published_model_saying_why(tmp_path):
    r = tool('average', 'pretrained:numbers', '-o', tmp_path / 'x.pt')
    assert r.returncode == 2 and not (tmp_path / 'x.pt').exists(), r.stderr
    [line] = [l for l in r.stderr.splitlines() if l.strip()]
    assert line.startswith('tnb-average: error: pretrained:numbers is a published model') and 'not found' not in line, line


def test_average_replaces_a_checkpoint_with_overwrite_only(run, tmp_path):
    "tnb-average -o follows every command's rule: an existing file is replaced with --overwrite only, and then only if it"
    " is a checkpoint (it once replaced any file); '-' is no file name for a checkpoint (it once wrote a file named '-')."
    notes = tmp_path / 'notes.txt'; notes.write_text('mine')
    for args, says in ((['-o', notes], f"tnb-average: error: -o {notes} already exists and is not a checkpoint, the only file an average replaces: choose another name"),   # never offered to --overwrite
                       (['-o', notes, '--overwrite'], f"tnb-average: error: -o {notes} already exists and is not a checkpoint, the only file an average replaces: choose another name"),
                       (['-o', '-'], "tnb-average: error: -o -: a checkpoint is a file, never standard output; give a file name")):
        r = tool('average', run, *args, cwd=tmp_path)
        assert (r.returncode, r.stderr.strip()) == (2, says), r.stderr
    assert notes.read_text() == 'mine' and not (tmp_path / '-').exists()
    assert tool('average', run, '-o', tmp_path / 'a.pt').returncode == 0
    r = tool('average', run, '-o', tmp_path / 'a.pt')
    assert (r.returncode, r.stderr.strip()) == (2, f"tnb-average: error: -o {tmp_path / 'a.pt'} already exists: choose another name, or replace it with --overwrite")
    assert tool('average', run, '-o', tmp_path / 'a.pt', '--overwrite').returncode == 0

@pytest.mark.parametrize('name, args, says', [
    ('translate', ['--beam', '٣', 'one'], "--beam '٣' must be an int in [1, 1000]"),            # Python's int() reads Arabic-Indic digits
    ('translate', ['--beam', '４', 'one'], "--beam '４' must be an int in [1, 1000]"),            # and full-width ones
    ('translate', ['--max-tokens', '1_000', 'one'], "--max-tokens 1_000 must be an int in [1, 100000000]"),
    ('evaluate', ['--alpha', '٠.٦'], "--alpha '٠.٦' must be a number in [0, 10]"),
    ('translate', ['--device', 'meta', 'one'], "--device meta must be a device: auto, cpu, cuda, cuda:N or mps, or none"),   # once an internal error
    ('translate', ['-o', '', 'one'], "argument -o/--output: an empty value ('') (see tnb-translate --help)"),   # once 'Is a directory'
    ('evaluate', ['--dataset', ''], "argument --dataset: an empty value ('') (see tnb-evaluate --help)"),
    ('average', ['-o', ''], "argument -o/--output: an empty value ('') (see tnb-average --help)"),
])
def test_ordinary_mistakes_are_one_line_naming_the_option(run, name, args, says):
    r = tool(name, run, *args)
    assert r.returncode == 2 and [l for l in r.stderr.splitlines() if ': using ' not in l] == [f"tnb-{name}: error: {says}"], r.stderr

def test_an_empty_checkpoint_argument_is_named_as_empty(tmp_path):
    "'' was read as '.', the current folder: 'holds no checkpoint-<step>.pt files'."
    r = tool('translate', '', 'one')
    assert (r.returncode, r.stderr.strip()) == (2, "tnb-translate: error: argument checkpoint: an empty value ('') (see tnb-translate --help)"), r.stderr
    r = tool('average', '', '-o', tmp_path / 'x.pt')
    assert (r.returncode, r.stderr.strip()) == (2, "tnb-average: error: paths[0] is an empty path (''): give a checkpoint file"), r.stderr

def test_a_nul_byte_is_refused_as_it_arrives(run):
    "-i /dev/zero was refused only after 16 MiB (a minute on two cores) as a line too long: its first byte is a NUL."
    r = tool('translate', run, '-i', '/dev/zero', timeout=60)
    assert r.returncode == 2 and r.stderr.strip().splitlines()[-1] == ("tnb-translate: error: -i /dev/zero, line 1: a NUL byte at offset 0; "
                                                                       "this is not UTF-8 text (a binary file, or UTF-16 text: convert it to UTF-8)"), r.stderr

def _saved_as(src, dest, step:int, **meta):
    "The checkpoint `src` written as `dest`, holding update `step`, its metadata changed by `meta`."
    ck = torch.load(src, weights_only=True); ck['step'] = step; ck['meta'] = {**ck['meta'], **meta}; torch.save(ck, dest)

@pytest.mark.parametrize('case', ['renamed', 'another run'])
def test_a_folder_whose_newest_file_is_not_its_newest_checkpoint_is_refused_alike(run, tmp_path, case):
    "A run folder whose newest file is a renamed older checkpoint, or another run's checkpoint: translating, scoring, averaging and resuming it refuse it in the same line, naming the file; nothing is written."
    import shutil
    f = tmp_path / 'run'; shutil.copytree(run, f)
    first, last = RunFolder(f).checkpoints()[0], RunFolder(f).checkpoints()[-1]
    held = torch.load(first, weights_only=True)['step']                 # the oldest kept checkpoint's update, as saved
    assert first.name == f'checkpoint-{held:07d}.pt' and held < 999
    if case == 'renamed': first.rename(f / 'checkpoint-0000999.pt'); says = f'its name says update 999, but it holds update {held} (it was renamed)'
    else: _saved_as(last, f / 'checkpoint-0000999.pt', 999, run='someone-else'); says = f"comes from another run (someone-else) than {last.name} beside it"
    (tmp_path / 's').write_text('a b\n'); before = sorted(q.name for q in f.iterdir())
    lines = {name: conftest.one_line(tool(name, *args), f'tnb-{name}', f"{f / 'checkpoint-0000999.pt'}", says).split(': error: ', 1)[1]
             for name, args in (('translate', (f, 'a b')), ('evaluate', (f, '--src', tmp_path / 's', '--ref', tmp_path / 's')),
                                ('average', (f, '--last', '2', '-o', tmp_path / 'avg.pt')), ('train', ('--resume', f, '--no-progress')))}
    assert len(set(lines.values())) == 1, lines                          # one rule, one line
    assert sorted(q.name for q in f.iterdir()) == before and not (tmp_path / 'avg.pt').exists()
