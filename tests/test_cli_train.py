"tnb-train (A7_cli): --help, a tiny end-to-end run that writes a loadable checkpoint, one-line errors for bad arguments."
import os, subprocess, sys
from pathlib import Path
import pytest
import torch
from transformer_nb.checkpoints import load_checkpoint, model_from_checkpoint
from transformer_nb.runs import RunFolder

pytestmark = pytest.mark.slow        # every test here runs the tools in fresh processes (`pytest -m 'not slow'` skips them)
ENV = {**os.environ, 'TNB_THREADS': '1', 'OMP_NUM_THREADS': '1', 'MPLBACKEND': 'Agg'}

def tnb_train(*args, cwd=None):
    "Run the console script as a user would (falls back to the module when the script is not on PATH)."
    cmd = [sys.executable, '-c', 'from transformer_nb.cli import train_main; train_main()', *map(str, args)]
    return subprocess.run(cmd, capture_output=True, text=True, env=ENV, cwd=cwd, timeout=120)

def test_help_explains_itself():
    r = tnb_train('--help')
    assert r.returncode == 0, r.stderr
    for s in ('Train a Transformer', '--dataset', '--resume', 'examples:', 'torchrun', 'presets:'): assert s in r.stdout

def test_registered_console_script():
    try: import tomllib
    except ModuleNotFoundError: import tomli as tomllib   # Python 3.10
    pp = tomllib.loads((Path(__file__).resolve().parents[1] / 'pyproject.toml').read_text())
    assert pp['project']['scripts']['tnb-train'] == 'transformer_nb.cli:train_main'

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
    t = subprocess.run([sys.executable, '-c', 'from transformer_nb.cli import translate_main; translate_main()', *words[1:]],
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
    assert load_checkpoint(RunFolder(out).latest())['step'] == 40

@pytest.mark.parametrize('args,msg', [
    (['--steps', '0'], '--steps must be >= 1, got 0'),
    (['--dataset', 'nope'], "invalid choice: 'nope'"),
    (['--preset', 'huge'], "invalid choice: 'huge'"),
    (['--resume', '/nonexistent/ckpt.pt'], 'checkpoint not found: /nonexistent/ckpt.pt'),
    (['--dataset', 'files'], '--dataset files needs --train'),
    (['--dataset', 'files', '--train', '/nonexistent/a.de', '/nonexistent/a.en', '--no-progress'], '/nonexistent/a.de'),
    (['--dataset', 'copy', '--d-model', '30', '--h', '4', '--steps', '1'], 'not divisible'),
    (['--lr-scale', '-1', '--steps', '1', '--dataset', 'copy'], '--lr-scale must be > 0, got -1.0'),
    (['--test-limit', '-1'], '--test-limit must be >= 0, got -1'),
    (['--d-k', '0'], '--d-k must be in [1, 65536], got 0'),
    (['--pos', 'relative'], "invalid choice: 'relative'"),
    (['--max-time', '0'], '--max-time must be > 0, got 0.0'),
    (['--max-time', 'nan'], '--max-time must be > 0, got nan'),
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
    cfg = load_checkpoint(RunFolder(out).latest())['config']
    assert (cfg['d_k'], cfg['d_v'], cfg['pos'], cfg['d_model']) == (4, 6, 'learned', 32)

def test_max_time_stops_with_a_checkpoint(tmp_path):
    out = tmp_path / 'run'
    r = tnb_train('--dataset', 'copy', '--preset', 'tiny', '--steps', '1000000', '--max-time', '0.02', '--out', out,
                  '--no-progress', '--test-limit', '0')
    assert r.returncode == 0, r.stderr[-2000:]
    assert 'stopped at the time limit of --max-time 0.02 minutes' in r.stdout
    step = load_checkpoint(RunFolder(out).latest())['step']
    assert 0 < step < 1000000 and f'trained {step} updates' in r.stdout

def test_numbers_defaults_are_the_main_job():
    "The main job's recipe (experiments/numbers_recipe.py): case-folding tokenizer, 2 layers, a cool-down, 5 checkpoints averaged."
    from transformer_nb.tasks import get_task
    from transformer_nb.workflow import _new_run_config
    r = get_task('numbers').recipe
    tc, _ = _new_run_config(r, {})
    assert (r.vocab_size, r.model['N'], r.model['d_model'], tc.steps, tc.warmup, tc.lr_scale) == (1024, 2, 128, 1050, 300, 0.5)
    assert (tc.cooldown, tc.save_every, tc.keep, tc.average) == (200, 25, 5, 5)
    assert r.spm == {'normalization_rule_name': 'nmt_nfkc_cf', 'byte_fallback': True}
    tc, _ = _new_run_config(get_task('translation').recipe, {})
    assert (tc.cooldown, tc.save_every, tc.keep, tc.average, get_task('translation').recipe.spm) == (0, 500, 3, 0, {})

def test_average_of_the_last_checkpoints_is_tested_and_translated(tmp_path):
    "--average N: the run ends with average.pt, which the test, tnb-translate RUN and tnb-evaluate RUN use; a resumed run redoes it."
    from transformer_nb.checkpoints import resolve_checkpoint
    out = tmp_path / 'run'
    r = tnb_train('--dataset', 'copy', '--preset', 'tiny', '--steps', '30', '--cooldown', '10', '--save-every', '10',
                  '--average', '3', '--out', out, '--no-progress', '--beam', '1', '--test-limit', '20')
    assert r.returncode == 0, r.stderr[-2000:]
    assert f'averaged the last 3 checkpoints (updates 10, 20, 30) into {out / "average.pt"}' in r.stdout
    assert f'averaged checkpoint: {out / "average.pt"}' in r.stdout and len(list(out.glob('checkpoint-*.pt'))) == 3
    avg = load_checkpoint(out / 'average.pt')
    assert [Path(p).name for p in avg['meta']['averaged_from']] == [f'checkpoint-{s:07d}.pt' for s in (10, 20, 30)]
    assert resolve_checkpoint(out)[0] == out / 'average.pt' and resolve_checkpoint(out, 'resume')[0] == out / 'checkpoint-0000030.pt'
    r = tnb_train('--dataset', 'copy', '--steps', '40', '--resume', out, '--no-progress', '--beam', '1', '--test-limit', '5',
                  '--save-every', '10', '--average', '2')
    assert r.returncode == 0, r.stderr[-2000:]
    assert [Path(p).name for p in load_checkpoint(out / 'average.pt')['meta']['averaged_from']] == ['checkpoint-0000030.pt', 'checkpoint-0000040.pt']
    os.utime(out / 'average.pt', (0, 0))                                   # file times do not matter: what it averages does
    assert resolve_checkpoint(out)[0] == out / 'average.pt'
    r = tnb_train('--dataset', 'copy', '--steps', '50', '--resume', out, '--normalization', 'nmt_nfkc_cf', '--no-progress')
    assert r.returncode == 2 and 'a resumed run keeps its' in r.stderr, r.stderr
