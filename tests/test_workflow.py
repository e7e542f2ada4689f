"""The run workflow (apps_workflow) and scoring (apps_test_sets): train_model's input checks, resume in one place (the run's
own data, its files checked), the closing lines, the test set and its record, and library messages in Python words that
the commands put in their own."""
import json, os, shlex, subprocess, sys, warnings
from pathlib import Path
import pytest
from transformer_nb.lib.datasets import load_dataset

ENV = {**os.environ, 'TNB_THREADS': '1', 'OMP_NUM_THREADS': '1', 'MPLBACKEND': 'Agg'}
TINY = ('--preset', 'tiny', '--d-model', '32', '--d-ff', '64', '--no-progress', '--test-limit', '0')

def tnb(tool, *args, cwd=None):
    cmd = [sys.executable, '-c', f'from transformer_nb.apps.cli import {tool}_main; {tool}_main()', *map(str, args)]
    return subprocess.run(cmd, capture_output=True, text=True, env=ENV, cwd=cwd, timeout=300)

def _workflow():
    from transformer_nb.apps import workflow
    return workflow

def _scoring():
    from transformer_nb.apps import test_sets
    return test_sets

def _train_model(): return _workflow().train_model

def _pair_files(folder:Path, name:str='a', text:str='a b\nb c\nc d\n') -> tuple[Path, Path]:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f'{name}.src').write_text(text * 10); (folder / f'{name}.tgt').write_text(text * 10)
    return folder / f'{name}.src', folder / f'{name}.tgt'

def test_steps_given_as_a_float_is_named_at_the_entry():
    "train_model(steps=5.0) names steps, the setting given, not valid_every, which is derived from it."
    with pytest.raises(ValueError) as e: _train_model()(load_dataset('copy', n_train=20, n_valid=2, n_test=2), steps=5.0, say=lambda m: None)
    assert 'steps=5.0' in str(e.value) and 'valid_every' not in str(e.value), e.value

def test_data_takes_what_the_readme_promises(tmp_path):
    "data= a corpus, a dataset's name or a pair of files; a single file is refused in one line that says what to give."
    with pytest.raises(ValueError, match=r"data='train.en': give a corpus .* or your training files as a pair"):
        _train_model()('train.en', say=lambda m: None)
    src, tgt = _pair_files(tmp_path)
    tr = _train_model()((str(src), str(tgt)), task='copy', vocab_size=12, steps=1, max_tokens=400, progress=False, say=lambda m: None)
    assert tr.meta['dataset'] == 'files' and [f[0] for f in tr.meta['data']['files']['train']] == [str(src), str(tgt)]

def test_library_messages_name_settings_which_a_command_says_as_its_options():
    "A message a command's user can meet names the setting (vocab_size=8), and the process layer says it as the option (--vocab-size 8)."
    from transformer_nb.apps.test_sets import test_set
    from transformer_nb.lib.safeguards import said
    with pytest.raises(ValueError) as e:
        _train_model()(load_dataset('copy', n_train=50, n_valid=2, n_test=2), vocab_size=8, steps=1, progress=False, say=lambda m: None)
    assert 'raise vocab_size=8 to at least' in str(e.value) and '--' not in str(e.value), e.value
    with pytest.raises(ValueError) as f: test_set({'meta': {'dataset': 'files'}})
    assert "give its test set as src='FILE' and ref='FILE'" in str(f.value), f.value
    table = {'vocab_size': ('--vocab-size', 'value'), 'src': ('--src', 'value'), 'ref': ('--ref', 'value')}   # a command's, as its parser made it
    assert 'raise --vocab-size 8 to at least' in said(e.value, table) and 'give its test set as --src FILE and --ref FILE' in said(f.value, table)

def test_resume_reuses_the_runs_data_folder(tmp_path):
    "A run on a data folder resumes on the same folder, without naming it again."
    from transformer_nb.apps.workflow import resume_run
    _pair_files(tmp_path / 'data', 'train')
    data = load_dataset('files', data_dir=tmp_path / 'data')
    tr = _train_model()(data, task='copy', vocab_size=12, steps=1, max_tokens=400, progress=False, out=tmp_path / 'run', say=lambda m: None)
    assert tr.meta['data']['data_dir'] == str((tmp_path / 'data').resolve())
    r = resume_run(tmp_path / 'run', settings={'steps': 2}, say=lambda m: None)
    assert r.data.origin['data_dir'] == str((tmp_path / 'data').resolve()) and r.data.train == data.train

@pytest.mark.slow
def test_resume_of_a_files_run_uses_and_checks_its_own_files(tmp_path):
    src, tgt = _pair_files(tmp_path)
    run = tmp_path / 'run'
    r = tnb('train', '--dataset', 'files', '--task', 'copy', '--train', src, tgt, '--vocab-size', '12', '--steps', '2', '--out', run, *TINY)
    assert r.returncode == 0, r.stderr[-2000:]
    r = tnb('train', '--resume', run, '--steps', '3', '--no-progress', '--test-limit', '0')           # its own files, not named again
    assert r.returncode == 0, r.stderr[-2000:]
    tgt.write_text('x y\ny z\nz a\n' * 10)                                                               # changed since
    r = tnb('train', '--resume', run, '--steps', '4', '--no-progress', '--test-limit', '0')
    assert r.returncode == 2 and 'was trained on other files' in r.stderr and 'pass --new-data to continue' in r.stderr, r.stderr[-2000:]
    other = _pair_files(tmp_path / 'other', 'b', 'c d\nd e\ne f\n')                                       # entirely different files
    r = tnb('train', '--resume', run, '--steps', '4', '--train', *other, '--no-progress', '--test-limit', '0')
    assert r.returncode == 2 and 'was trained on other files' in r.stderr, r.stderr[-2000:]
    r = tnb('train', '--resume', run, '--steps', '4', '--train', *other, '--new-data', '--no-progress', '--test-limit', '0')
    assert r.returncode == 0, r.stderr[-2000:]
    r = tnb('evaluate', run)                                                  # the library's src= and ref=, in the command's words
    assert r.returncode == 2 and 'give its test set as --src FILE and --ref FILE' in r.stderr, r.stderr[-2000:]

@pytest.mark.slow
def test_next_hint_works_for_a_folder_named_like_an_option(tmp_path):
    r = tnb('train', '--dataset', 'copy', '--steps', '2', '--out=-dash/run', *TINY[:-2], '--test-limit', '3', '--beam', '1', cwd=tmp_path)
    assert r.returncode == 0, r.stderr[-2000:]
    last = r.stdout.rstrip().splitlines()[-1]
    assert last.startswith('next: tnb-translate ./-dash/run '), last
    words = shlex.split(last.removeprefix('next: ').split('   (')[0])
    t = tnb('translate', *words[1:], cwd=tmp_path)                            # the command works as printed
    assert t.returncode == 0 and len(t.stdout.splitlines()) == 1, (words, t.stderr[-2000:])
    assert 'test (3 sentences, beam 1; the model at update 2, the last checkpoint)' in r.stdout, r.stdout

@pytest.mark.slow
def test_a_pair_longer_than_a_batch_is_refused_in_flags():
    "The message names the settings as tnb-train's options are named, not a Python function (encode_pairs(max_len=...))."
    r = tnb('train', '--dataset', 'copy', '--max-tokens', '4', '--steps', '1', *TINY)
    assert r.returncode == 2 and '--max-tokens 4 can hold' in r.stderr and 'with --max-len 4' in r.stderr and 'encode_pairs' not in r.stderr, r.stderr[-2000:]
    assert len(r.stderr.strip().splitlines()) == 1, r.stderr

def test_test_report_says_which_checkpoint_it_scores(tmp_path):
    from transformer_nb.apps.workflow import test_report
    data = load_dataset('copy', n_train=60, n_valid=4, n_test=4)
    tr = _train_model()(data, preset='tiny', vocab_size=16, steps=4, save_every=2, average=2, max_tokens=400, progress=False,
                        out=tmp_path / 'avg', say=lambda m: None)
    assert 'average.pt, the average of' in test_report(tr, data)[1][0]
    tr = _train_model()(data, preset='tiny', vocab_size=16, steps=2, max_tokens=400, progress=False, say=lambda m: None)
    assert 'the model at update 2, the last checkpoint' in test_report(tr, data)[1][0]


@pytest.mark.parametrize('call, exc, says', [
    (lambda d: _train_model()(d, resume=123, say=lambda m: None), TypeError, 'resume=123 must be a checkpoint file or a run folder'),
    (lambda d: _workflow().resume_run(None), TypeError, 'resume=None must be a checkpoint file or a run folder'),
    (lambda d: _train_model()(d, out=123, steps=1, say=lambda m: None), TypeError, 'out=123 must be a folder\'s path'),
    (lambda d: _train_model()(d, spm='x', steps=1, say=lambda m: None), TypeError, "spm='x' must be a dict of SentencePiece options"),
    (lambda d: _train_model()(d, device='gpu', steps=1, say=lambda m: None), ValueError, "device='gpu' must be a device"),
    (lambda d: _scoring().test_set('c.pt'), TypeError, 'ck must be what a checkpoint holds'),
    (lambda d: _scoring().test_set({'meta': {'dataset': 'copy'}}, split='dev'), ValueError,
     "split='dev' must be 'train', 'valid' or 'test'"),
])
def test_workflow_refuses_in_the_callers_terms(call, exc, says):
    "A wrong type or value: one line that names the argument as the caller wrote it, before any work."
    with pytest.raises(exc) as e: call(load_dataset('copy', n_train=20, n_valid=2, n_test=2))
    assert str(e.value).startswith(says) and '\n' not in str(e.value), str(e.value)

def test_check_memory_takes_a_tasks_name():
    from transformer_nb.apps.workflow import check_memory
    from transformer_nb.apps.tasks import get_task
    assert check_memory('copy', preset='tiny', vocab_size=16) == check_memory(get_task('copy'), preset='tiny', vocab_size=16) > 0


def _decoding():
    from transformer_nb.lib.options import Decoding
    return Decoding()

@pytest.mark.parametrize('call, exc, says', [
    (lambda d, p: _workflow().test_report('x', d), TypeError, 'trainer must be a Trainer (what train_model returns), got a str'),
    (lambda d, p: _workflow().run_summary('x', 3.0), TypeError, 'trainer must be a Trainer (what train_model returns), got a str'),
    (lambda d, p: _workflow().closing_lines('x', d), TypeError, 'trainer must be a Trainer (what train_model returns), got a str'),
    (lambda d, p: _workflow().closing_lines('x', d, test_files='x'), TypeError, "test_files='x' must be a (source, reference) pair of files"),
    (lambda d, p: _scoring().decoding_label('beam 4'), TypeError, "d='beam 4' must be a Decoding, e.g. Decoding(beam=4)"),
    (lambda d, p: _workflow().task_recipe('numbers', 'x'), ValueError, "recipe='x': the numbers task's recipes are"),
    (lambda d, p: _workflow().task_recipe('copy', ['x']), TypeError, "recipe=['x'] must be a recipe's name or a Recipe, got a list"),
    (lambda d, p: _workflow().task_recipe(['copy']), TypeError, "task must be a Task or a task's name"),
    (lambda d, p: _scoring().read_test_files(p, None), TypeError, "ref=None must be a text file's path"),
    (lambda d, p: _scoring().score_test_set('copy', None, None, [], 'beam 4'), TypeError, "decoding='beam 4' must be a Decoding"),
    (lambda d, p: _scoring().evaluation_record('copy', {}, None, None, {}, [], [], 't', _decoding(), ''), TypeError,
     "path must be the checkpoint file's path, got a NoneType"),
    (lambda d, p: _scoring().record_evaluation(None, 'copy', {}, 'c.pt', None, {}, [], [], 't', _decoding(), ''), TypeError,
     "results must be a results file's path, got a NoneType"),
    (lambda d, p: _workflow().resume_run('nowhere', data='copy'), TypeError, "data='copy' must be a ParallelData or None, got a str"),
])
def test_run_functions_refuse_what_they_cannot_use(tmp_path, call, exc, says):
    "What were AttributeErrors deep inside (trainer.averaged, d.beam, task.recipes): one line naming the argument."
    (tmp_path / 'a.src').write_text('a\n')
    with pytest.raises(exc) as e: call(load_dataset('copy', n_train=20, n_valid=2, n_test=2), tmp_path / 'a.src')
    assert str(e.value).startswith(says) and '\n' not in str(e.value), str(e.value)

def test_task_recipe_takes_a_tasks_name():
    from transformer_nb.apps.tasks import get_task
    wf = _workflow()
    assert wf.task_recipe('copy') is get_task('copy').recipe and wf.task_recipe('numbers', None) is get_task('numbers').recipe

def test_a_resumed_run_refuses_tokenizer_options_once_in_the_library(tmp_path):
    """spm= on a resume is refused by resume_run alone, before the checkpoint is read, each option said as `name=value`,
    which tnb-train says as it is (test_cli_train checks the command's line)."""
    wf = _workflow()
    with pytest.raises(ValueError) as e: wf.resume_run(tmp_path / 'run', spm={'byte_fallback': True}, say=lambda m: None)
    assert str(e.value) == f"byte_fallback=True shapes a new tokenizer, and a resumed run keeps its own (that of {tmp_path / 'run'}): drop it"
    spm = {'normalization_rule_name': 'nmt_nfkc_cf', 'byte_fallback': False}
    with pytest.raises(ValueError, match=r"^normalization_rule_name='nmt_nfkc_cf' and byte_fallback=False shape a new tokenizer, .*: drop them$"):
        _train_model()(resume=tmp_path / 'run', spm=spm, say=lambda m: None)


# --- a resumed run trains on the corpus it began with ------------------------------------------------------------------

GENERATED = {     # every corpus the package generates, each with arguments other than its generator's defaults, and a tokenizer
    'copy': (dict(n_train=200, n_valid=10, n_test=10, n_symbols=5, max_len=6, seed=3), dict(vocab_size=12)),
    'numbers': (dict(n_train=300, n_valid=20, n_test=20, max_n=999, seed=2), dict(vocab_size=60, spm={'byte_fallback': False})),
    'parsing': (dict(n_train=200, n_valid=10, n_test=10, max_words=8, seed=1), dict(vocab_size=60)),
}

def _generated(name:str, **args):
    from transformer_nb.apps.tasks import task_for
    return task_for(name).load(name, **args)          # the parsing corpus is registered by its task

def _two_step_run(name:str, out:Path):
    args, tok = GENERATED[name]
    data = _generated(name, **args)
    tr = _train_model()(data, preset='tiny', steps=2, max_tokens=600, progress=False, out=out, say=lambda m: None, **tok)
    return data, tr

@pytest.mark.parametrize('name', GENERATED)
def test_a_resumed_run_makes_its_generated_corpus_again(tmp_path, name):
    "Resumed with no data named, a run on a generated corpus trains on the same pairs (its generator's arguments, not the defaults)."
    data, tr = _two_step_run(name, tmp_path / 'run')
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter('always')
        again = _train_model()(resume=tmp_path / 'run', steps=3, say=lambda m: None)
    assert again.train_data == tr.train_data, "the resumed run encodes other training pairs than the run it continues"
    assert not [str(x.message) for x in w if 'unknown to the tokenizer' in str(x.message)], [str(x.message) for x in w]
    assert again.meta['data']['fingerprint'] == tr.meta['data']['fingerprint'] == data.fingerprint()
    assert again.meta['data']['args'] == tr.meta['data']['args'] and again.step == 3

@pytest.mark.parametrize('name', GENERATED)
def test_a_resume_on_a_corpus_made_with_other_arguments_is_refused(tmp_path, name):
    "The same dataset made with another seed is other data: refused in one line naming the argument, unless new_data=True."
    data, tr = _two_step_run(name, tmp_path / 'run')
    args = GENERATED[name][0]
    other = _generated(name, **{**args, 'seed': args['seed'] + 1})
    with pytest.raises(ValueError) as e: _train_model()(other, resume=tmp_path / 'run', steps=3, say=lambda m: None)
    msg = str(e.value)
    assert f"made with seed={args['seed']}, not seed={args['seed'] + 1}" in msg and 'new_data=True to continue' in msg and '\n' not in msg, msg
    assert _train_model()(other, resume=tmp_path / 'run', steps=3, new_data=True, say=lambda m: None).step == 3

@pytest.mark.slow
def test_tnb_train_resumes_a_generated_corpus_made_with_its_own_arguments(tmp_path):
    "`tnb-train --resume` (a fresh process) of a copy-task run made with n_symbols=5: the same corpus, no unknown pieces."
    data, tr = _two_step_run('copy', tmp_path / 'run')
    r = tnb('train', '--resume', tmp_path / 'run', '--steps', '3', '--no-progress', '--test-limit', '0')
    assert r.returncode == 0 and 'unknown to the tokenizer' not in r.stderr, r.stderr[-2000:]
    from transformer_nb.lib.checkpoints import open_checkpoint
    from transformer_nb.lib.runs import checkpoint_name
    assert open_checkpoint(tmp_path / 'run' / checkpoint_name(3), None).meta['data']['fingerprint'] == data.fingerprint()


# --- train_model's CPU threads are tnb-train's, unless chosen -------------------------------------------------------------

THREADS_RUN = """
import json, sys, torch
from transformer_nb.lib.machine import limit_threads
from transformer_nb.lib.machine import _default_threads
from transformer_nb.lib.options import Recipe
from transformer_nb.apps.workflow import train_model
from transformer_nb.lib.datasets import load_dataset
data, got = load_dataset('copy', n_train=60, n_valid=4, n_test=4), {}
run = lambda **kw: train_model(data, preset='tiny', vocab_size=16, steps=1, max_tokens=400, progress=False, say=lambda m: None, **kw)
run(); got['nothing chosen'] = torch.get_num_threads()
limit_threads(2); run(); got['limit_threads(2)'] = torch.get_num_threads()
limit_threads(1); run(recipe=Recipe(preset='tiny', threads=0)); got['limit_threads(1), a recipe of every core'] = torch.get_num_threads()
limit_threads(); torch.set_num_threads(2); run(); got['torch.set_num_threads(2)'] = torch.get_num_threads()
print(json.dumps({'got': got, 'default': _default_threads()}))
"""

@pytest.mark.slow
def test_train_model_takes_the_package_threads_unless_chosen():
    "In a fresh process with no thread setting: the package's default, as tnb-train; a count chosen before the call is kept."
    env = {k: v for k, v in ENV.items() if k not in ('TNB_THREADS', 'OMP_NUM_THREADS', 'MKL_NUM_THREADS')}
    r = subprocess.run([sys.executable, '-c', THREADS_RUN], capture_output=True, text=True, env=env, timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    out = json.loads(r.stdout.strip().splitlines()[-1])
    assert out['got'] == {'nothing chosen': out['default'], 'limit_threads(2)': 2, 'limit_threads(1), a recipe of every core': 1,
                          'torch.set_num_threads(2)': 2}, out


def test_a_resume_reads_parses_and_claims_once(tmp_path, monkeypatch):
    "train_model(resume=...) reads the checkpoint once, parses its meta once, builds its ModelConfig once and claims the run folder once."
    import torch
    from transformer_nb.lib import checkpoints, runs, options
    data = load_dataset('copy', n_train=40, n_valid=4, n_test=4, n_symbols=5, max_len=4)
    train = lambda **kw: _train_model()(data, say=lambda m: None, progress=False, **kw)
    train(preset='tiny', vocab_size=12, steps=2, max_tokens=400, out=tmp_path / 'run')
    counts = {}
    def counted(name, f):
        def g(*a, **k): counts[name] = counts.get(name, 0) + 1; return f(*a, **k)
        return g
    monkeypatch.setattr(torch, 'load', counted('read', torch.load))
    monkeypatch.setattr(checkpoints, '_meta_of', counted('meta', checkpoints._meta_of))
    monkeypatch.setattr(options.ModelConfig, '__post_init__', counted('config', options.ModelConfig.__post_init__))
    monkeypatch.setattr(runs.RunFolder, 'claim', counted('claim', runs.RunFolder.claim))
    monkeypatch.setattr(_workflow().Trainer, 'update', lambda *a, **k: (_ for _ in ()).throw(KeyboardInterrupt))   # stop at the first update
    tr = train(resume=tmp_path / 'run', steps=4)
    assert tr.interrupted and counts == {'read': 1, 'meta': 1, 'config': 1, 'claim': 1}, counts

def test_a_record_holds_no_path_of_this_machine(tmp_path):
    "An evaluation recorded from absolute paths keeps them relative to the results file, or as names: no folder of this machine."
    from transformer_nb.lib.checkpoints import open_checkpoint
    from transformer_nb.lib.options import Decoding
    from transformer_nb.apps.tasks import task_of
    from transformer_nb.lib.runs import portable_path
    w = _workflow()
    data = load_dataset('copy', n_train=40, n_valid=4, n_test=4, n_symbols=5, max_len=4)
    run = tmp_path / 'project' / 'runs' / 'r'
    w.train_model(data, preset='tiny', vocab_size=12, steps=1, max_tokens=400, out=run, progress=False, say=lambda m: None,
                  meta={'command': shlex.join(['tnb-train', '--dataset', 'copy', f'--out={run}'])})
    c = open_checkpoint(run)                                                # one Checkpoint, passed down whole
    task = task_of(c)
    s = _scoring()
    pairs, _, _, name = s.test_set(c)
    tr_model, d = c.model(), Decoding(beam=1)
    scores, hyps, _ = s.score_test_set(task, tr_model, c.tokenizer, pairs, d)
    for results in (tmp_path / 'project' / 'results' / 'results.json', tmp_path / 'elsewhere' / 'results.json'):
        results.parent.mkdir(parents=True)
        rec, _ = s.record_evaluation(results, task, c, c.path, tr_model, scores, pairs, hyps, name, d,
                                     shlex.join(['tnb-evaluate', str(run), '--record', str(results)]))
        text = results.read_text()
        assert str(tmp_path) not in text and rec['run'] == c.meta['run'], text
    near, far = (json.loads((tmp_path / p / 'results.json').read_text())[0] for p in ('project/results', 'elsewhere'))
    assert near['checkpoint'] == '../runs/r/checkpoint-0000001.pt' and far['checkpoint'] == '../project/runs/r/checkpoint-0000001.pt', (near, far)
    assert portable_path(run / 'checkpoint-0000001.pt', Path('/nowhere/results')) == 'checkpoint-0000001.pt'   # far away: its name alone
    assert near['command'] == 'train: tnb-train --dataset copy --out=../runs/r; evaluate: tnb-evaluate ../runs/r --record results.json', near


def _own_files(folder:Path) -> dict:
    "A tiny corpus of your own: 40 training pairs (one batch, so one update an epoch) and two validation pairs."
    for name, text in (('a.src', 'one two\nthree four\n' * 20), ('a.tgt', 'eins zwei\ndrei vier\n' * 20),
                       ('v.src', 'one two\nthree four\n'), ('v.tgt', 'eins zwei\ndrei vier\n')):
        (folder / name).write_text(text)
    return load_dataset('files', 'src', 'tgt', train=(folder / 'a.src', folder / 'a.tgt'), valid=(folder / 'v.src', folder / 'v.tgt'))

def test_a_run_by_epochs_that_would_end_inside_its_warm_up_says_so_before_it_starts(tmp_path):
    """Own data by epochs: 2 epochs of a tiny corpus are 2 updates. As a `steps` run: a warm-up left to its default is
    cut to a tenth of the run (at the same peak rate) and said before the first update; one given is kept, with a warning."""
    data, said = _own_files(tmp_path), []
    kw = dict(task='translation', preset='tiny', vocab_size=30, d_model=32, d_ff=64, progress=False)
    tr = _train_model()(data, epochs=2, say=said.append, callbacks=[lambda t, s: said.append(f"update {s['step']}")], **kw)
    assert said[0] == ('warm-up: the default 4,000 updates would outlast this 2-update run (2 epochs), so it is 1, a tenth of the run, '
                       'with the same peak learning rate'), said                     # before the first update
    assert (tr.step, tr.tc.warmup, round(tr.tc.lr_scale, 4)) == (2, 1, round((1 / 4000) ** 0.5, 4))
    assert tr.history['train'][0]['lr'] == pytest.approx(32 ** -0.5 * 4000 ** -0.5)   # the default schedule's peak, at once
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter('always')
        tr = _train_model()(data, epochs=2, warmup=10, say=said.append, **kw)
    assert [str(x.message) for x in w if 'warmup=' in str(x.message)] == [
        'warmup=10 is not shorter than this 2-update run (2 epochs): the learning rate will still be rising when the run '
        'ends (a tenth of the run, 1 updates, is a common choice)'], [str(x.message) for x in w]
    assert (tr.step, tr.tc.warmup) == (2, 10)
    said.clear(); tr = _train_model()(data, epochs=2, warmup=2, max_tokens=40, say=said.append, **kw)   # smaller batches: more updates
    assert tr.step > 2 and tr.tc.warmup == 2 and not [s for s in said if 'warm-up' in s], said   # a warm-up shorter than the run: as given

def test_a_cool_down_given_longer_than_the_run_is_said(tmp_path):
    "A cool-down given that outlasts the run starts the rate low and only lowers it: said once, as a warm-up given too long is."
    data = _own_files(tmp_path)
    kw = dict(task='translation', preset='tiny', vocab_size=30, d_model=32, d_ff=64, progress=False, say=lambda m: None)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter('always')
        tr = _train_model()(data, steps=2, warmup=1, cooldown=50, **kw)
    assert [str(x.message) for x in w if 'cooldown=' in str(x.message)] == [
        "cooldown=50 is longer than this 2-update run: the learning rate starts at 2/50 of its schedule and only falls "
        "(at most the run's 2 updates cools the whole run)"], [str(x.message) for x in w]
    assert (tr.step, tr.tc.cooldown) == (2, 50)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter('always'); _train_model()(data, steps=2, warmup=1, cooldown=2, **kw)   # the whole run cooling down
    assert not [x for x in w if 'cooldown=' in str(x.message)]

def test_a_validation_pair_longer_than_a_batch_gets_advice_that_holds(tmp_path):
    "max_len drops training pairs only: a validation pair longer than a batch is refused naming its line, a larger max_tokens, or the line."
    data = _own_files(tmp_path)
    data.valid.append(('one two ' * 20, 'eins zwei ' * 20))
    with pytest.raises(ValueError) as e:
        _train_model()(data, task='translation', preset='tiny', vocab_size=30, epochs=1, max_tokens=30, progress=False, say=lambda m: None)
    msg = str(e.value)
    assert msg.startswith('validation pair 3 has ') and 'max_tokens=30 can hold' in msg and 'line 3 of the validation files' in msg, msg
    assert '(max_len=256 drops training pairs only)' in msg and 'encode_pairs' not in msg, msg

def test_test_files_are_named_as_settings(tmp_path):
    "read_test_files names src= and ref= as a caller gives them (src='x'); tnb-evaluate says them as its options (--src x)."
    (tmp_path / 'hyp.txt').write_text('a\nb\nc\n'); (tmp_path / 'ref.txt').write_text('a\nb\n')
    rt = _scoring().read_test_files
    with pytest.raises(ValueError) as e: rt(tmp_path / 'nosuch.txt', tmp_path / 'ref.txt')
    assert str(e.value) == f"src={str(tmp_path / 'nosuch.txt')!r}: no such file", e.value
    with pytest.raises(ValueError) as e: rt(tmp_path / 'hyp.txt', tmp_path / 'ref.txt')
    assert str(e.value) == (f"src={str(tmp_path / 'hyp.txt')!r} has 3 lines and ref={str(tmp_path / 'ref.txt')!r} "
                            f"has 2: they must be aligned line by line"), e.value

@pytest.mark.slow
def test_tnb_train_refuses_a_long_validation_line_with_advice_that_holds(tmp_path):
    "As a user met it: --max-tokens smaller than a line of --valid; one line naming that line and what fixes it (--max-len drops training pairs only)."
    _own_files(tmp_path); (tmp_path / 'v.src').write_text('one two\n' + 'one two ' * 20 + '\n')
    r = tnb('train', '--dataset', 'files', '--train', tmp_path / 'a.src', tmp_path / 'a.tgt', '--valid', tmp_path / 'v.src', tmp_path / 'v.tgt',
            '--vocab-size', '30', '--max-tokens', '30', '--steps', '2', '--out', tmp_path / 'run', *TINY)
    err = r.stderr.strip().splitlines()
    assert r.returncode == 2 and len(err) == 1 and 'validation pair 2 has' in err[0] and 'a batch of --max-tokens 30 can hold' in err[0], r.stderr[-2000:]
    assert 'line 2 of the validation files (--max-len 256 drops training pairs only)' in err[0], err[0]
