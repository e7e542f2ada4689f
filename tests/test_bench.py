"""Every script in bench/ runs with its smallest arguments, so that a benchmark whose figures the docs quote cannot rot
unseen (bench_onnx.py once stopped at once on a `pretrained:` name the library had stopped taking there). The scripts
run one after another in one fresh process (PyTorch loads once), each through its own `main(argv)`, with one thread,
on the published numbers model the repository holds and four sentences. A script that needs what the machine lacks
(py-spy, OpenNMT-py, Multi30k) is run up to that need, where it must stop with a line that names it, never a traceback.
Timings are not checked: the figures are the scripts' own business."""
import json, os, re, shutil, subprocess, sys
from pathlib import Path
import pytest
from conftest import ENV, ROOT

pytestmark = pytest.mark.slow        # the scripts run in a fresh process
NUMBERS = ROOT / 'models' / 'numbers.pt'
SENTENCES = ['seven', 'twenty-one', 'three hundred forty-two', 'nine thousand']
GERMAN = ['sieben', 'einundzwanzig', 'dreihundertzweiundvierzig', 'neuntausend']
ONNX_BENCHES = ('bench_onnx.py', 'bench_int8.py', 'bench_live.py', 'live_bench.mjs', 'live_steps.mjs', 'bench_live_node.py', 'live_node.mjs')   # the ONNX export's and the live page's: run with their tests

HARNESS = r"""
import contextlib, importlib.util, io, json, sys, time, traceback
from pathlib import Path
bench = Path(sys.argv[1]); sys.path.insert(0, str(bench))
out = []
for script, argv in json.loads(sys.argv[2]):
    t0, said, code, err = time.time(), io.StringIO(), 0, ''
    try:
        spec = importlib.util.spec_from_file_location(script[:-3], bench / script)
        mod = importlib.util.module_from_spec(spec); sys.argv = [str(bench / script), *argv]
        with contextlib.redirect_stdout(said), contextlib.redirect_stderr(said):
            spec.loader.exec_module(mod)
            if hasattr(mod, 'main'): mod.main(argv)
            else: exec(compile(open(bench / script).read(), script, 'exec'), {'__name__': '__main__', '__doc__': mod.__doc__})
    except SystemExit as e: code, err = (e.code if isinstance(e.code, int) else 1), ('' if isinstance(e.code, int) or e.code is None else str(e.code))
    except BaseException: code, err = 'traceback', traceback.format_exc()[-3000:]
    out.append(dict(script=script, code=code, err=err, said=said.getvalue()[-3000:], seconds=round(time.time() - t0, 1)))
print(json.dumps(out))
"""

def _spy() -> bool: return bool(shutil.which('py-spy') or (Path(sys.executable).parent / 'py-spy').exists())

def _cases(d:Path) -> list:
    "(script, its smallest arguments, what it must do: 'ok', or the need it must name as it stops)."
    from transformer_nb.lib.datasets import find_multi30k
    m30k, onmt = find_multi30k(ROOT) is not None, os.environ.get('ONMT_PYTHON')
    dec = ['--checkpoint', NUMBERS, '--src', d / 'src.txt', '--n', 4, '--repeats', 1]
    return [('ablate_beam.py', [*dec, '--beam', 2, '--json', d / 'ablation.json'], 'ok'),
            ('profile_decode.py', [*dec, '--rate', 50, '--json', d / 'profile.json'], 'ok' if _spy() else 'py-spy not found'),
            ('bench_decode.py', [*dec, '--threads', 1, '--beam', 2, '--skip-uncached-beam'], 'ok'),
            ('bench_peers.py', [*dec, '--ref', d / 'ref.txt', '--beam', 2, '--no-readable', '--json', d / 'peers.json'], 'ok'),
            ('bench_bf16.py', ['--parts', 'matmul', '--repeats', 1, '--out', d / 'bf16.json'], 'ok'),
            ('bench_train.py', ['--preset', 'tiny', '--vocab', 64, '--batch', 2, '--len', 4, '--steps', 1, '--warmup', 1, '--repeats', 1, '--threads', 1], 'ok'),
            ('bench_trainer_calls.py', ['--updates', 2], 'ok'),                    # a count of calls, not a timing: checked below
            ('bench_loss.py', ['--tokens', 50, '--vocab', 64, '--repeats', 1, '--preset', 'tiny', '--max-tokens', 200, '--updates', 1], 'ok'),
            ('bench_trainer_step.py', ['--preset', 'tiny', '--vocab', 64, '--max-tokens', 200, '--lengths', 4, 12, '--updates', 1, '--repeats', 1,
                                       '--threads', 1, '--json', d / 'trainer_step.json'], 'ok'),
            ('bench_threads.py', ['--worker', '1', '--updates', 2], 'ok'),             # one measurement: the job it times, its first updates
            ('profile_train.py', ['--updates', 1, '--warmup', 0, '--max-tokens', 300], 'ok' if m30k else 'Multi30k not found'),
            ('bench_train_peers.py', ['--batches', 1, '--repeats', 1, '--threads', 1, '--preset', 'tiny', *(['--peer-python', onmt] if onmt else [])],
             'ok' if onmt and m30k else 'OpenNMT' if not onmt else 'Multi30k not found'),
            ('bench_data_scale.py', ['--pairs', 300, '--sample', 600, '--vocab', 60, '--world', 2, '--max-tokens', 3000, '--max-len', 2000, '--threads', 1,
                                     '--dir', d / 'scale', '--json', d / 'scale.json'], 'ok'),
            ('bench_encode.py', ['--pairs', 300, '--sample', 600, '--vocab', 60, '--repeats', 1, '--threads', 1, '--dir', d / 'encode',
                                 '--json', d / 'encode.json'], 'ok'),
            ('bench_wmt14_stream.py', ['--mb', 2, '--dir', d / 'stream', '--json', d / 'stream.json'], 'ok'),
            ('bench_hf.py', ['--checkpoint', NUMBERS, '--speed-n', 2, '--beam-n', 2, '--repeats', 1, '--json', d / 'hf.json'], 'ok' if m30k else 'not found'),
            ('bench_one_decode.py', ['--old', ROOT, '--pairs', 1, '--n', 3, '--models', 'de-en'], 'ok' if m30k else 'test_2016_flickr.de.gz not found'),   # this tree against itself
            ('peer_opennmt.py', [], 'convert OURS.pt ONMT.pt')]                       # OpenNMT-py's side: without a command, its usage

@pytest.fixture(scope='module')
def ran(tmp_path_factory):
    d = tmp_path_factory.mktemp('bench')
    (d / 'src.txt').write_text(''.join(s + '\n' for s in SENTENCES)); (d / 'ref.txt').write_text(''.join(s + '\n' for s in GERMAN))
    cases = _cases(d)
    r = subprocess.run([sys.executable, '-c', HARNESS, str(ROOT / 'bench'), json.dumps([(s, [str(a) for a in argv]) for s, argv, _ in cases])],
                       cwd=ROOT, env=ENV, capture_output=True, text=True, timeout=900)
    assert r.returncode == 0, r.stderr[-3000:]
    return {c['script']: (c, want) for c, (_, _, want) in zip(json.loads(r.stdout.splitlines()[-1]), cases)}

@pytest.mark.parametrize('script', [c[0] for c in _cases(Path('.'))])
def test_a_bench_script_runs_with_its_smallest_arguments(ran, script):
    got, want = ran[script]
    if want == 'ok': assert got['code'] == 0, got
    else: assert got['code'] not in (0, 'traceback') and want in got['err'], got     # stopped at its need, in its words

def test_an_update_of_the_trainer_walks_no_module_tree_and_makes_few_calls_beyond_09s_loop(ran):
    """The trainer's update on the tiny model makes at most 1.3 times the Python calls of 09's own loop on the same
    micro-batches, and calls `nn.Module.train` (a walk of the module tree) not once between validations. Calls are
    counted, not timed: the figures do not depend on the machine's speed."""
    said = ran['bench_trainer_calls.py'][0]['said']
    _, theirs, ratio = re.search(r"Python calls per update: Trainer ([\d,.]+), 09's loop ([\d,.]+); Trainer / 09's loop ([\d.]+)", said).groups()
    assert float(ratio) <= 1.3 and float(theirs.replace(',', '')) > 1000, said
    assert re.search(r"nn.Module.train calls per update: Trainer 0, 09's loop 0\b", said), said

def test_every_bench_script_has_a_case():
    "A script added to bench/ gets its case above (or runs with the ONNX export's tests); the helpers (_common, _levers) run through the scripts."
    scripts = {p.name for p in (ROOT / 'bench').iterdir() if p.suffix in ('.py', '.mjs') and not p.name.startswith('_')}
    assert scripts - {c[0] for c in _cases(Path('.'))} - set(ONNX_BENCHES) == set()


def test_the_gpu_check_of_the_trainer_runs_dry_on_a_cpu(tmp_path):
    """`experiments/gpu/recipe_gap.sh trainer`, prepared for a GPU, runs its CPU dry run (DRY=1) to the end: its figures
    (the trainer against the raw step, labelled as the paper's base) and a profiler trace that is Chrome's JSON."""
    import gzip
    r = subprocess.run(['bash', 'experiments/gpu/recipe_gap.sh', 'trainer'], cwd=ROOT, capture_output=True, text=True, timeout=600,
                       env={**ENV, 'DRY': '1', 'SIZES': 'base', 'OUT': str(tmp_path)})
    assert r.returncode == 0, (r.stdout + r.stderr)[-3000:]
    [rec] = json.loads((tmp_path / 'trainer_vs_step_gpu.json').read_text())
    assert rec['label'] == 'paper-base' and rec['median_ratio'] > 0 and rec['trainer_tok_s'] > 0 and rec['raw_tok_s'] > 0, rec
    assert 'traceEvents' in json.loads(gzip.decompress((tmp_path / 'trace-base.json.gz').read_bytes()))
    assert 'paper-base (tiny): trainer' in r.stdout
    r = subprocess.run(['bash', 'experiments/gpu/recipe_gap.sh', 'other'], cwd=ROOT, capture_output=True, text=True, timeout=60, env=ENV)
    assert r.returncode == 2 and "unknown part 'other'" in r.stderr


@pytest.mark.slow                     # trains four tiny runs on a CPU
def test_the_gpu_check_of_the_recipe_runs_dry_and_fails_when_a_variant_fails(tmp_path):
    """`experiments/gpu/recipe_gap.sh` (the variants part) honours DRY=1: on a CPU, a small corpus and the tiny preset, each
    variant writes its timing windows and its steady state, and the script exits 0; with one variant failing (stopped by
    its timeout), the script exits 1 naming it, and the other's figures are still written. Its timeouts fit 10 minutes
    of device time."""
    env = {**ENV, 'DRY': '1', 'OUT': str(tmp_path), 'VARIANTS': 'eager one-batch-eager'}
    r = subprocess.run(['bash', 'experiments/gpu/recipe_gap.sh'], cwd=ROOT, capture_output=True, text=True, timeout=900, env=env)
    assert r.returncode == 0, (r.stdout + r.stderr)[-3000:]
    recs = [json.loads(l) for l in (tmp_path / 'recipe_gap.json').read_text().splitlines()]
    assert [x['variant'] for x in recs] == ['eager', 'one-batch-eager'] and [x['accum'] for x in recs][1] == 1, recs
    for x in recs:
        assert x['steady_tok_s'] > 0 and x['warm_updates'] == 3 and all(w['first'] > 3 for w in x['windows'][-x['steady_windows']:]), x
    r = subprocess.run(['bash', 'experiments/gpu/recipe_gap.sh'], cwd=ROOT, capture_output=True, text=True, timeout=900,
                       env={**env, 'TIMEOUTS': 'eager=1'})
    assert r.returncode == 1 and 'recipe_gap.sh: 1 of the runs failed, their figures are missing: eager (exit 124: out of time)' in r.stderr, (r.stdout + r.stderr)[-3000:]
    assert [json.loads(l)['variant'] for l in (tmp_path / 'recipe_gap.json').read_text().splitlines()] == ['one-batch-eager']
    text = (ROOT / 'experiments' / 'gpu' / 'recipe_gap.sh').read_text()
    variants = sum(map(int, re.findall(r'\[[\w-]+\]=(\d+)', re.search(r'declare -A LIMIT=\((.*?)\)', text)[1]))) + 90   # + the corpus's
    trainer = sum(int(n) for _, n in re.findall(r'(base|big)\) limit=(\d+)', text))
    assert variants <= 570 and trainer <= 570, (variants, trainer)     # with the setup's seconds, within 10 minutes of device time
