"tnb-train (apps_cli): --help, a tiny end-to-end run that writes a loadable checkpoint, one-line errors for bad arguments."
import os, subprocess, sys
from pathlib import Path
import pytest
import torch
from transformer_nb.lib.checkpoints import open_checkpoint, model_from_checkpoint
from transformer_nb.lib.runs import RunFolder

pytestmark = pytest.mark.slow        # every test here runs the tools in fresh processes (`pytest -m 'not slow'` skips them)
ENV = {**os.environ, 'TNB_THREADS': '1', 'OMP_NUM_THREADS': '1', 'MPLBACKEND': 'Agg'}

def tnb_train(*args, cwd=None):
    "Run the console script as a user would (falls back to the module when the script is not on PATH)."
    cmd = [sys.executable, '-c', 'from transformer_nb.apps.cli import train_main; train_main()', *map(str, args)]
    return subprocess.run(cmd, capture_output=True, text=True, env=ENV, cwd=cwd, timeout=120)

def test_help_explains_itself():
    r = tnb_train('--help')
    assert r.returncode == 0, r.stderr
    for s in ('Train a Transformer', '--dataset', '--resume', 'examples:', 'torchrun', 'presets:'): assert s in r.stdout

def test_help_imports_no_nltk_and_still_lists_every_recipe():
    """`tnb-train --help` lists the tasks' recipes from the registry without importing a task: NLTK, which the parsing
    task needs, is imported when that task runs, not when it is listed (nor PyTorch, by any help, nor NumPy or tqdm,
    which the datasets' module imports only where it makes or downloads data)."""
    code = ("import sys; sys.argv = ['tnb-train', '--help']\nfrom transformer_nb.apps.cli import train_main\n"
            "try: train_main()\nexcept SystemExit: pass\n"
            "print(sorted({m.split('.')[0] for m in sys.modules} & {'nltk', 'torch', 'numpy', 'tqdm', 'transformer_nb'}), file=sys.stderr)")
    r = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True, env=ENV, timeout=120)
    assert r.stderr.strip().splitlines()[-1] == "['transformer_nb']", r.stderr[-2000:]
    from transformer_nb.apps import tasks
    for name in tasks.task_names():
        for recipe in tasks.get_task(name).recipes: assert recipe in r.stdout, (name, recipe)
    assert 'paper-base, paper-big, paper-base-en-fr, paper-big-en-fr (wmt14 task: wmt14)' in r.stdout   # with the datasets it trains on
    r = subprocess.run([sys.executable, '-c', "import sys; from transformer_nb.apps.tasks import get_task; get_task('parsing'); "
                        "print('nltk' in sys.modules)"], capture_output=True, text=True, env=ENV, timeout=120)
    assert r.stdout.strip() == 'True', r.stderr[-2000:]                 # the task that needs it, when it is asked for

def test_registered_console_script():
    try: import tomllib
    except ModuleNotFoundError: import tomli as tomllib   # Python 3.10
    pp = tomllib.loads((Path(__file__).resolve().parents[1] / 'pyproject.toml').read_text())
    assert pp['project']['scripts']['tnb-train'] == 'transformer_nb.apps.cli:train_main'

def test_tiny_copy_run_writes_loadable_checkpoint(tmp_path):
    out = tmp_path / 'run'
    r = tnb_train('--dataset', 'copy', '--preset', 'tiny', '--steps', '30', '--out', out, '--no-progress',
                  '--beam', '1', '--test-limit', '20', '--save-every', '10', '--keep', '2')
    assert r.returncode == 0, r.stderr[-2000:]
    assert 'checkpoint:' in r.stdout and 'exact match' in r.stdout and (out / 'loss.png').is_file()
    last = r.stdout.rstrip().splitlines()[-1]                                    # it ends with the next command to try
    assert last.startswith(f"next: tnb-translate {out} ") and last.endswith(f"(then score it: tnb-evaluate {out})"), last
    import shlex
    words = shlex.split(last.removeprefix('next: ').split('   (')[0])           # and that command works as printed
    t = subprocess.run([sys.executable, '-c', 'from transformer_nb.apps.cli import translate_main; translate_main()', *words[1:]],
                       capture_output=True, text=True, env=ENV, timeout=120)
    assert t.returncode == 0 and len(t.stdout.splitlines()) == 1, (words, t.stderr[-2000:])
    ck = RunFolder(out).latest()
    assert ck.name == 'checkpoint-0000030.pt' and len(list(out.glob('checkpoint-*.pt'))) == 2
    ck = torch.load(ck, weights_only=True)
    assert ck['step'] == 30 and isinstance(ck['tokenizer'], bytes)
    model, tok, _ = model_from_checkpoint(ck)
    assert tok.vocab_size == model.cfg.src_vocab
    # resume to 40 updates from the run folder
    r = tnb_train('--dataset', 'copy', '--steps', '40', '--resume', out, '--out', out, '--no-progress', '--beam', '1',
                  '--test-limit', '5')
    assert r.returncode == 0, r.stderr[-2000:]
    assert open_checkpoint(RunFolder(out).latest(), None).step == 40

@pytest.mark.parametrize('args,msg', [
    (['--steps', '0'], '--steps 0 must be an int in [1, 1000000000], or none'),
    (['--dataset', 'nope'], "--dataset nope is not a dataset: choose from numbers"),
    (['--preset', 'huge'], "--preset huge must be tiny, mini, small, base, big"),
    (['--resume', '/nonexistent/ckpt.pt'], 'checkpoint not found: /nonexistent/ckpt.pt'),
    (['--dataset', 'files'], "--dataset files needs your own training files, --train SRC TGT, or the folder that holds them, --data-dir DIR"),
    (['--dataset', 'files', '--train', '/nonexistent/a.de', '/nonexistent/a.en', '--no-progress'], '/nonexistent/a.de'),
    (['--dataset', 'copy', '--d-model', '30', '--h', '4', '--steps', '1'], 'not divisible'),
    (['--lr-scale', '-1', '--steps', '1', '--dataset', 'copy'], '--lr-scale -1.0 must be a number > 0'),
    (['--test-limit', '-1'], '--test-limit -1 must be an int in [0, 1000000000], or none'),
    (['--d-k', '0'], '--d-k 0 must be an int >= 1, or none'),
    (['--pos', 'relative', '--steps', '1', '--dataset', 'copy'], "relative"),
    (['--max-time', '0'], '--max-time 0.0 must be a number > 0, or none'),
    (['--seed', '4294967296'], '--seed 4294967296 must be an int in [0, 4294967295]'),   # what set_seed takes: one Seed
    (['--max-time', 'nan'], '--max-time nan must be a number > 0, or none'),
    (['--dataset', 'files', '--steps', '5'], '--dataset files needs your own training files, --train SRC TGT'),   # in the command's words
    (['--dataset', 'copy', '--task', 'parsing'], '--task parsing is for your own files (the dataset files); --dataset copy is a corpus of the copy task: drop --task parsing'),
])
def test_bad_arguments_give_one_line(args, msg, tmp_path):
    r = tnb_train(*args, '--out', tmp_path / 'o')
    assert r.returncode == 2, (r.returncode, r.stderr)
    assert msg in r.stderr and 'Traceback' not in r.stderr, r.stderr
    assert len([l for l in r.stderr.splitlines() if l.startswith('tnb-train: error')]) == 1

def test_table3_options_reach_the_model_and_test_limit_0_skips_the_test_set(tmp_path):
    out = tmp_path / 'run'
    r = tnb_train('--dataset', 'copy', '--preset', 'tiny', '--d-k', '4', '--d-v', '6', '--pos', 'learned', '--steps', '3',
                  '--out', out, '--no-progress', '--test-limit', '0')
    assert r.returncode == 0, r.stderr[-2000:]
    assert 'test (' not in r.stdout and 'checkpoint:' in r.stdout          # no test-set evaluation was run
    cfg = torch.load(RunFolder(out).latest(), weights_only=True)['config']
    assert (cfg['d_k'], cfg['d_v'], cfg['pos'], cfg['d_model']) == (4, 6, 'learned', 32)

def test_max_time_stops_with_a_checkpoint(tmp_path):
    out = tmp_path / 'run'
    r = tnb_train('--dataset', 'copy', '--preset', 'tiny', '--steps', '1000000', '--max-time', '0.02', '--out', out,
                  '--no-progress', '--test-limit', '0')
    assert r.returncode == 0, r.stderr[-2000:]
    assert 'stopped at the time limit of 0.02 minutes (--max-time 0.02)' in r.stdout
    step = open_checkpoint(RunFolder(out).latest(), None).step
    assert 0 < step < 1000000 and f'trained {step} updates' in r.stdout

def test_numbers_defaults_are_the_main_job():
    "The main job's recipe (experiments/numbers_recipe.py): case-folding tokenizer, 2 layers, a cool-down, 5 checkpoints averaged."
    from transformer_nb.apps.tasks import get_task
    from transformer_nb.apps.workflow import _new_run_config
    r = get_task('numbers').recipe
    tc, _ = _new_run_config(r, {})
    assert (r.vocab_size, r.model['N'], r.model['d_model'], tc.steps, tc.warmup, tc.lr_scale) == (1024, 2, 128, 1050, 300, 0.5)
    assert (tc.cooldown, tc.save_every, tc.keep, tc.average) == (200, 25, 5, 5)
    assert r.spm == {'normalization_rule_name': 'nmt_nfkc_cf', 'byte_fallback': True}
    tc, _ = _new_run_config(get_task('translation').recipe, {})
    assert (tc.cooldown, tc.save_every, tc.keep, tc.average, get_task('translation').recipe.spm) == (0, 500, 3, 0, {})

def test_average_of_the_last_checkpoints_is_tested_and_translated(tmp_path):
    "--average N: the run ends with average.pt, which the test, tnb-translate RUN and tnb-evaluate RUN use; a resumed run redoes it."
    from transformer_nb.lib.checkpoints import resolve_checkpoint
    out = tmp_path / 'run'
    r = tnb_train('--dataset', 'copy', '--preset', 'tiny', '--steps', '30', '--cooldown', '10', '--save-every', '10',
                  '--average', '3', '--out', out, '--no-progress', '--beam', '1', '--test-limit', '20')
    assert r.returncode == 0, r.stderr[-2000:]
    assert f'averaged the last 3 checkpoints (updates 10, 20, 30) into {out / "average.pt"}' in r.stdout
    assert f'averaged checkpoint: {out / "average.pt"}' in r.stdout and len(list(out.glob('checkpoint-*.pt'))) == 3
    avg = torch.load(out / 'average.pt', weights_only=True)
    assert [Path(p).name for p in avg['meta']['averaged_from']] == [f'checkpoint-{s:07d}.pt' for s in (10, 20, 30)]
    assert resolve_checkpoint(out)[0] == out / 'average.pt' and resolve_checkpoint(out, 'resume')[0] == out / 'checkpoint-0000030.pt'
    r = tnb_train('--dataset', 'copy', '--steps', '40', '--resume', out, '--no-progress', '--beam', '1', '--test-limit', '5',
                  '--save-every', '10', '--average', '2')
    assert r.returncode == 0, r.stderr[-2000:]
    assert [Path(p).name for p in open_checkpoint(out / 'average.pt', None).meta['averaged_from']] == ['checkpoint-0000030.pt', 'checkpoint-0000040.pt']
    os.utime(out / 'average.pt', (0, 0))                                   # file times do not matter: what it averages does
    assert resolve_checkpoint(out)[0] == out / 'average.pt'
    r = tnb_train('--dataset', 'copy', '--steps', '50', '--resume', out, '--normalization', 'nmt_nfkc_cf', '--no-progress')
    assert r.returncode == 2 and 'a resumed run keeps its' in r.stderr, r.stderr


def test_a_lost_average_is_made_by_resume_which_says_what_it_scores(tmp_path):
    """The disk was full when average.pt was written at the end of a finished run. The documented recovery, --resume, makes
    it, tests it and says so, and its summary quotes the last validation, the one the log ends with."""
    import json
    out = tmp_path / 'run'
    r = tnb_train('--dataset', 'copy', '--preset', 'tiny', '--steps', '20', '--save-every', '10', '--valid-every', '7',
                  '--average', '2', '--out', out, '--no-progress', '--beam', '1', '--test-limit', '2')
    assert r.returncode == 0, r.stderr[-2000:]
    (out / 'average.pt').unlink()
    r = tnb_train('--resume', out, '--no-progress', '--beam', '1', '--test-limit', '2')
    assert r.returncode == 0, r.stderr[-2000:]
    assert 'nothing to train' in r.stdout and f'averaged the last 2 checkpoints (updates 10, 20) into {out / "average.pt"}' in r.stdout, r.stdout
    assert (out / 'average.pt').is_file() and 'test (2 sentences, beam 1; average.pt, the average of' in r.stdout, r.stdout
    logged = [json.loads(l)['valid']['step'] for l in (out / 'log.jsonl').read_text().splitlines() if 'valid' in json.loads(l)]
    summary = next(l for l in r.stdout.splitlines() if l.startswith('trained '))
    assert logged[-1] == 20 and summary.endswith('at update 20'), (logged, summary)

# --- tnb-train with real processes: resumes, contradictions, limits, reports ---------------------------------------------
import re, shutil
from conftest import TINY, tool, text_tool, one_line

@pytest.fixture(scope='module')
def run(two_step_run):
    "A tiny copy-task run of two updates (`checkpoint-0000002.pt`)."
    return two_step_run

def test_resume_refuses_model_options_that_contradict_the_checkpoint(folder):
    r = tool('train', '--resume', folder, '--d-model', '64', '--steps', '30', '--no-progress', '--test-limit', '0')
    one_line(r, 'tnb-train', 'checkpoint-0000020.pt is a model with d_model 32, not --d-model 64: a resumed run keeps its model')  # the file's model, then the option
    r = tool('train', '--resume', folder, '--preset', 'small', '--steps', '30', '--no-progress', '--test-limit', '0')
    one_line(r, 'tnb-train', 'is a model with d_model 32 and ', 'not --d-model 256 and ', "(--preset small)")
    assert RunFolder(folder).latest().name == 'checkpoint-0000020.pt'

def test_resume_says_what_it_does_at_or_past_steps(folder):
    r = tool('train', '--resume', folder, '--steps', '10', '--no-progress', '--test-limit', '0')
    one_line(r, 'tnb-train', 'is at update 20, past the updates asked for, --steps 10', 'ask for more than 20')
    r = tool('train', '--resume', folder, '--steps', '20', '--no-progress', '--test-limit', '0')
    assert r.returncode == 0, r.stderr[-3000:]
    assert b'nothing to train: the run has done the 20 updates asked for' in r.stdout

def test_resume_continues_the_checkpoints_dataset_and_folder(folder, tmp_path):
    r = tool('train', '--resume', folder, '--steps', '22', '--no-progress', '--test-limit', '0', cwd=tmp_path)
    assert r.returncode == 0, r.stderr[-3000:]
    ck = open_checkpoint(folder, None)                                                       # --out defaults to its folder
    assert ck.step == 22 and ck.meta['dataset'] == 'copy' and not (tmp_path / 'runs').exists()
    other = tmp_path / 'other'; shutil.copytree(folder, other)                              # another run's checkpoints
    r = tool('train', '--resume', folder / 'checkpoint-0000010.pt', '--out', other, '--steps', '12', '--no-progress', '--test-limit', '0')
    one_line(r, 'tnb-train', f"{other} holds another run's files (checkpoint-0000010.pt", 'write to another folder')

def test_git_commit_never_crashes_a_run(tmp_path):
    bin_ = tmp_path / 'bin'; bin_.mkdir()
    (bin_ / 'git').write_bytes(b"#!/bin/sh\nprintf '\\377\\376 not utf-8'\n"); (bin_ / 'git').chmod(0o755)
    r = tool('train', *TINY, '--steps', '2', '--out', tmp_path / 'run', env={'PATH': f"{bin_}:{os.environ['PATH']}"})
    assert r.returncode == 0, r.stderr[-3000:]
    assert open_checkpoint(tmp_path / 'run', None).meta['commit'] == 'unknown'


def test_a_model_larger_than_the_memory_is_refused_before_anything(tmp_path):
    "Sizes within their bounds can still multiply into more than the machine has: said in one line, before any data."
    r = tool('train', *TINY, '--d-model', '16384', '--d-ff', '1048576', '--N', '100', '--h', '16', '--out', tmp_path / 'big')
    one_line(r, 'tnb-train', 'parameters: training it needs at least', 'more than the', 'choose a smaller model')
    assert not (tmp_path / 'big').exists()

def test_resume_on_other_data_needs_new_data(run, tmp_path):
    shutil.copytree(run, tmp_path / 'run')
    r = tool('train', '--resume', tmp_path / 'run', '--dataset', 'numbers', '--steps', '30', '--no-progress', '--test-limit', '0')
    one_line(r, 'tnb-train', 'was trained on copy', "--dataset numbers would continue it on other data", 'pass --new-data')
    assert [p.name for p in RunFolder(tmp_path / 'run').checkpoints()] == ['checkpoint-0000002.pt']
    one_line(tool('train', *TINY, '--new-data', '--steps', '3'), 'tnb-train', '--new-data is for a resume')

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


def test_own_files_run_says_the_command_that_scores_it(tmp_path):
    "A run on one's own files: banner without stray punctuation, the closing loss named by its update, and a closing hint that works."
    import random, shlex
    rnd = random.Random(0)
    words = 'the a dog cat runs sleeps big small red blue'.split()
    for split, n in (('train', 300), ('valid', 20), ('test', 20)):
        src = [' '.join(rnd.choice(words) for _ in range(rnd.randint(2, 6))) for _ in range(n)]
        (tmp_path / f'{split}.src').write_text('\n'.join(src) + '\n'); (tmp_path / f'{split}.tgt').write_text('\n'.join(s.upper() for s in src) + '\n')
    args = ['--dataset', 'files', '--preset', 'tiny', '--vocab-size', '40', '--steps', '6', '--no-progress', '--out', tmp_path / 'run']
    for split in ('train', 'valid', 'test'): args += [f'--{split}', tmp_path / f'{split}.src', tmp_path / f'{split}.tgt']
    r = text_tool('train', *args)
    assert r.returncode == 0, r.stderr[-2000:]
    out = r.stdout + r.stderr
    assert 'preset tiny;' in out and 'preset tiny ;' not in out, out[-2000:]
    assert 'at update 6' in out, out[-2000:]                       # the closing loss is the final model's
    assert 'warm-up: the default 4,000 updates would outlast this 6-update run, so it is 1, a tenth of the run' in out, out[-2000:]
    valid = [l for l in out.splitlines() if re.match(r'step \d+ epoch \d+: valid loss', l)]
    assert 1 <= len(valid) <= 4, valid                               # a few points, not one per tiny epoch
    nxt = next(l for l in out.splitlines() if l.startswith('next: '))
    score = nxt.split('(then score it: ')[1].rstrip(')')
    argv = shlex.split(score)
    assert argv[0] == 'tnb-evaluate' and '--src' in argv, score
    e = text_tool('evaluate', *argv[1:], '--beam', '1')
    assert e.returncode == 0, e.stderr[-2000:]


def test_numbers_run_reports_what_means_something_and_the_next_command(tmp_path):
    "A short run of the main job: the headline is exact match, chrF and character BLEU, per magnitude, then a next step."
    out = tmp_path / 'numbers'
    r = subprocess.run([sys.executable, '-c', 'from transformer_nb.apps.cli import train_main; train_main()', '--steps', '4',
                        '--out', str(out), '--no-progress', '--beam', '1', '--test-limit', '40', '--save-every', '0'],
                       capture_output=True, text=True, env=ENV, cwd=tmp_path, timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    head = next(l for l in r.stdout.splitlines() if l.startswith('test ('))
    assert 'exact match' in head and 'chrF' in head and 'BLEU on characters' in head, head
    assert 'word BLEU' not in head or 'means nothing here' in head, head           # never a bare "BLEU 0.0"
    mags = next(l for l in r.stdout.splitlines() if l.startswith('exact match per magnitude'))
    assert '0-99' in mags and '100,000-999,999' in mags, mags
    assert r.stdout.strip().splitlines()[-1].startswith(f"next: tnb-translate {out} 'three hundred forty-two'")

def test_torchrun_trains_with_one_holder_of_the_run_folder(tmp_path):
    "`torchrun --nproc_per_node=2 tnb-train` (the --help example): rank 0 claims the folder and writes; rank 1 neither."
    import socket
    with socket.socket() as s: s.bind(('127.0.0.1', 0)); port = s.getsockname()[1]
    script = tmp_path / 'tnb_train.py'
    script.write_text('from transformer_nb.apps.cli import train_main\ntrain_main()\n')
    cmd = [sys.executable, '-m', 'torch.distributed.run', '--nproc_per_node=2', f'--master_port={port}', script, '--dataset', 'copy',
           '--preset', 'tiny', '--vocab-size', '16', '--steps', '2', '--max-tokens', '400', '--out', tmp_path / 'run', '--no-progress',
           '--test-limit', '0']
    r = subprocess.run([str(c) for c in cmd], capture_output=True, text=True, env={**ENV, 'CUDA_VISIBLE_DEVICES': ''}, timeout=240)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-3000:]
    assert 'in use by another run' not in r.stderr and [p.name for p in RunFolder(tmp_path / 'run').checkpoints()] == ['checkpoint-0000002.pt']


def test_tokenizer_options_on_resume_are_the_librarys_refusal(run):
    """--normalization and --byte-fallback with --resume: refused by resume_run alone, in its words (the settings' names),
    before the checkpoint is read or anything written."""
    from conftest import one_line
    r = tnb_train('--resume', run, '--normalization', 'nmt_nfkc_cf', '--no-byte-fallback', '--no-progress')
    one_line(r, 'tnb-train', f"--normalization nmt_nfkc_cf and --no-byte-fallback shape a new tokenizer, and a resumed run keeps its own (that of {run}): drop them")
    assert r.stdout == '', r.stdout
    r = tnb_train('--resume', run, '--byte-fallback', '--no-progress')
    one_line(r, 'tnb-train', f"--byte-fallback shapes a new tokenizer, and a resumed run keeps its own (that of {run}): drop it")


@pytest.mark.parametrize('device', ['cpu', 'auto'])
def test_device_on_a_new_and_a_resumed_run(tmp_path, device):
    "--device was passed twice to the memory check of a new run (a TypeError, exit 70): it works on a new run and on its resume."
    out = tmp_path / 'run'
    r = tnb_train('--dataset', 'copy', '--preset', 'tiny', '--steps', '2', '--device', device, '--out', out, '--no-progress', '--test-limit', '0')
    assert r.returncode == 0, r.stderr[-2000:]
    r = tnb_train('--resume', out, '--steps', '3', '--device', device, '--no-progress', '--test-limit', '0')
    assert r.returncode == 0, r.stderr[-2000:]
    assert open_checkpoint(RunFolder(out).latest(), None).step == 3


def test_own_files_by_epochs_inside_a_warm_up_given_say_so_before_the_first_update(tmp_path):
    """`--warmup 10 --epochs 2` on a tiny corpus of your own was 2 updates inside the 10-update warm-up, silently: now, as
    for a --steps run with a warm-up given, a warning says so once the run's length in updates is known, before its first update."""
    for name in ('a.src', 'a.tgt', 'v.src', 'v.tgt'): (tmp_path / name).write_text('one two\nthree four\n' * (20 if name[0] == 'a' else 1))
    r = tnb_train('--dataset', 'files', '--train', tmp_path / 'a.src', tmp_path / 'a.tgt', '--valid', tmp_path / 'v.src', tmp_path / 'v.tgt',
                  '--preset', 'tiny', '--vocab-size', '30', '--warmup', '10', '--epochs', '2', '--no-progress', '--test-limit', '0',
                  '--out', tmp_path / 'run')
    assert r.returncode == 0, r.stderr[-2000:]
    err = [l for l in r.stderr.splitlines() if l.strip()]
    warned = [i for i, l in enumerate(err) if '--warmup 10 is not shorter than this 2-update run (2 epochs)' in l]
    first = [i for i, l in enumerate(err) if l.startswith('tnb-train: precision')]       # said after the first update
    assert len(warned) == 1 and first and warned[0] < first[0], r.stderr
    assert 'a tenth of the run, 1 updates, is a common choice' in err[warned[0]], err[warned[0]]
    assert open_checkpoint(RunFolder(tmp_path / 'run').latest(), None).meta['train_config']['warmup'] == 10    # as given


def test_own_files_by_epochs_fit_the_warm_up_and_say_so(tmp_path):
    "Ten epochs of a small corpus of your own were 20 updates inside a 4,000-update warm-up, silently: the warm-up is cut to a tenth of the run, said before the first update."
    for name in ('train.en', 'train.toy'): (tmp_path / name).write_text('one two\nthree four\n' * 20)
    files = ['--dataset', 'files', '--train', tmp_path / 'train.en', tmp_path / 'train.toy', '--no-progress', '--test-limit', '0']
    assert '--epochs 10' in tnb_train('--help').stdout and 'outlast the run is cut to a tenth' in tnb_train('--help').stdout   # --help's own-data example
    r = tnb_train(*files, '--preset', 'tiny', '--vocab-size', '30', '--epochs', '2', '--out', tmp_path / 'run')
    assert r.returncode == 0, r.stderr[-2000:]
    [said] = [l for l in r.stdout.splitlines() if l.startswith('warm-up: the default 4,000 updates would outlast this')]
    assert '(2 epochs)' in said and 'a tenth of the run' in said, said
    assert r.stdout.index(said) < r.stdout.index('trained '), r.stdout             # before the run, not in its summary
    r = tnb_train(*files, '--preset', 'tiny', '--vocab-size', '30', '--steps', '20', '--out', tmp_path / 'run2')
    assert r.returncode == 0 and 'warm-up: the default 4,000 updates would outlast this 20-update run, so it is 2' in r.stdout, r.stderr[-2000:]

def test_a_run_joins_its_processes_once(tmp_path, monkeypatch, capsys):
    "tnb-train joined the process group twice (its own init_distributed, then the Trainer's): one `Parallel`, joined once, is passed down."
    import transformer_nb.lib.distributed as D
    from transformer_nb.apps import cli
    calls, join = [], D.init_distributed
    monkeypatch.setattr(D, 'init_distributed', lambda *a, **k: calls.append(1) or join(*a, **k))
    import transformer_nb.lib.trainer as T; monkeypatch.setattr(T, 'init_distributed', D.init_distributed)
    with pytest.raises(SystemExit) as e:
        cli.train_main(['--dataset', 'copy', '--preset', 'tiny', '--steps', '2', '--no-progress', '--test-limit', '0',
                        '--device', 'cpu', '--out', str(tmp_path / 'r')])
    assert e.value.code in (0, None) and len(calls) == 1, (e.value.code, calls, capsys.readouterr().err[-2000:])
