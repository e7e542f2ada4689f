"""One rule for every file a tool writes (`check_output`), in every command and in the library functions behind them:
an existing file is replaced only with --overwrite (overwrite=True), never through a symlink (even with it), never a
training checkpoint or another file of a run's folder; and the library refuses what the commands refuse, in the same
words. The commands run in this process (their entry points take `argv`)."""
import os, shutil
from pathlib import Path
import pytest, torch
import transformer_nb
from transformer_nb.lib.options import SettingError
from transformer_nb.lib.safeguards import said
from transformer_nb.lib.checkpoints import average_run, open_checkpoint
from transformer_nb.apps import cli
from test_refusals_paths import run, error_line   # the in-process harness of the refusal tests

torch.set_num_threads(1)
NUMBERS = Path(transformer_nb.__file__).parent.parent / 'models' / 'numbers.pt'   # the published numbers model, in the repository


@pytest.fixture
def place(tmp_path) -> Path:
    "A run folder of two training checkpoints (copies of the numbers model, updates 20 and 40), its log and lock; and test files."
    if not NUMBERS.is_file(): pytest.skip(f"{NUMBERS} is not in this checkout")
    r = tmp_path / 'runs' / 'A'; r.mkdir(parents=True)
    for s in (20, 40): shutil.copy(NUMBERS, r / f'checkpoint-{s:07d}.pt')
    (r / 'log.jsonl').write_text('{"train": {"step": 40}}\n'); (r / '.lock').write_text('')
    (tmp_path / 'src.txt').write_text('seven\nthree\n'); (tmp_path / 'ref.txt').write_text('sieben\ndrei\n')
    (tmp_path / 'notes.txt').write_text('my notes\n')
    return tmp_path

def _snapshot(folder:Path) -> dict:
    "Every file under `folder` (links as links), to show that a refusal changed nothing."
    return {str(p.relative_to(folder)): (os.readlink(p) if p.is_symlink() else p.read_bytes() if p.is_file() else None)
            for p in sorted(folder.rglob('*'))}

# Each command, writing the output OUT: (entry point, its name, its arguments, whether OUT is a folder, has --overwrite)
COMMANDS = {
    'translate': (cli.translate_main, 'tnb-translate', lambda t, o: [t / 'runs' / 'A', 'seven', '--threads', '1', '-o', o], False, True),
    'evaluate': (cli.evaluate_main, 'tnb-evaluate', lambda t, o: [t / 'runs' / 'A', '--src', t / 'src.txt', '--ref', t / 'ref.txt', '--threads', '1', '--hyp-out', o], False, True),
    'average': (cli.average_main, 'tnb-average', lambda t, o: [t / 'runs' / 'A', '--last', '2', '-o', o], False, True),
    'export': (cli.export_main, 'tnb-export', lambda t, o: ['--ctranslate2', t / 'runs' / 'A', '-o', o], True, True),
    'train': (cli.train_main, 'tnb-train', lambda t, o: ['--dataset', 'copy', '--preset', 'tiny', '--steps', '1', '--no-progress', '--test-limit', '0', '--out', o], True, True),
}

@pytest.mark.parametrize('name', COMMANDS)
@pytest.mark.parametrize('overwrite', [False, True], ids=['asked-not', 'overwrite'])
def test_no_command_writes_through_a_symlink(place, name, overwrite):
    "A symlink as the output, onto a training checkpoint or a folder of yours: one line naming it, with --overwrite too; nothing written."
    main, prog, args, folder, _ = COMMANDS[name]
    target = place / 'mine' if folder else place / 'runs' / 'A' / 'checkpoint-0000040.pt'
    if folder: target.mkdir()
    (place / 'link').symlink_to(target)
    before = _snapshot(place)
    out, err, code = run(main, [*args(place, place / 'link'), *(['--overwrite'] if overwrite else [])])
    o = {'train': '--out', 'evaluate': '--hyp-out'}.get(name, '-o')
    assert code == 2 and error_line(err, prog).startswith(f"{o} {place / 'link'} is a symlink: refusing to write through it"), err
    assert _snapshot(place) == before

@pytest.mark.parametrize('name', [n for n, c in COMMANDS.items() if not c[3]])
def test_no_command_replaces_a_file_unasked(place, name):
    "An existing file of yours: refused without --overwrite, in one line saying so; a run's own files: refused even with it."
    main, prog, args, _, _ = COMMANDS[name]
    before = _snapshot(place)
    o = '--hyp-out' if name == 'evaluate' else '-o'
    out, err, code = run(main, args(place, place / 'notes.txt'))
    line = error_line(err, prog)
    assert code == 2 and line.startswith(f"{o} {place / 'notes.txt'} already exists"), err
    assert ('or replace it with --overwrite' in line) != (name == 'average'), line   # an average replaces a checkpoint alone
    for victim, says in [(place / 'runs' / 'A' / 'log.jsonl', f"is the log.jsonl of the training run in {place / 'runs' / 'A'}"),
                         (place / 'runs' / 'A' / 'checkpoint-0000040.pt', 'a checkpoint-<step>.pt name'),
                         (place / 'checkpoint-0000099.pt', 'a checkpoint-<step>.pt name')]:
        out, err, code = run(main, [*args(place, victim), '--overwrite'])
        assert code == 2 and says in error_line(err, prog), (victim, err)
    assert _snapshot(place) == before

@pytest.mark.slow   # decodes and averages, in this process
@pytest.mark.parametrize('name', [n for n, c in COMMANDS.items() if not c[3]])
def test_overwrite_replaces_a_file_of_yours(place, name):
    "--overwrite replaces the file that is there (an average: a checkpoint, never a file that is not one)."
    main, prog, args, _, _ = COMMANDS[name]
    target = place / ('avg.pt' if name == 'average' else 'old.txt')
    shutil.copy(NUMBERS, target) if name == 'average' else target.write_text('old\n')
    out, err, code = run(main, [*args(place, target), '--overwrite'])
    assert code == 0, err
    if name == 'average': assert open_checkpoint(target, None).meta['averaged_from']
    else: assert target.read_text() != 'old\n'


# --- the library refuses what the command refuses, in the same words ---------------------------------------------------

def _library_line(call, table:dict) -> str:
    "The line a library refusal says, rendered as the command renders it: its settings by the command's options."
    with pytest.raises((ValueError, OSError)) as e: call()
    return said(e.value, table)

def test_average_refuses_in_the_library_what_the_command_refuses(place):
    "Each pair: `tnb-average ...` and `average_run(...)`; the command's line is the library's, its settings said as options."
    A, t = place / 'runs' / 'A', cli._average_parser().options()
    (place / 'link.pt').symlink_to(A / 'checkpoint-0000040.pt'); shutil.copy(NUMBERS, place / 'avg.pt')
    before = _snapshot(place)
    pairs = [([A, '--last', '0', '-o', place / 'x.pt'], lambda: average_run([A], place / 'x.pt', last=0)),
             ([A, '--last', '2', '-o', place / 'notes.txt'], lambda: average_run([A], place / 'notes.txt', last=2)),
             ([A, '--last', '2', '-o', place / 'notes.txt', '--overwrite'], lambda: average_run([A], place / 'notes.txt', last=2, overwrite=True)),
             ([A, '--last', '2', '-o', place / 'avg.pt'], lambda: average_run([A], place / 'avg.pt', last=2)),
             ([A, '--last', '2', '-o', place / 'link.pt', '--overwrite'], lambda: average_run([A], place / 'link.pt', last=2, overwrite=True)),
             ([A, '--last', '2', '-o', A / 'checkpoint-0000040.pt', '--overwrite'], lambda: average_run([A], A / 'checkpoint-0000040.pt', last=2, overwrite=True)),
             ([A, '--last', '2', '-o', A / 'log.jsonl', '--overwrite'], lambda: average_run([A], A / 'log.jsonl', last=2, overwrite=True)),
             ([A / 'checkpoint-0000040.pt', '--last', '2', '-o', place / 'x.pt'], lambda: average_run([A / 'checkpoint-0000040.pt'], place / 'x.pt', last=2)),
             (['pretrained:numbers', '-o', place / 'x.pt'], lambda: average_run(['pretrained:numbers'], place / 'x.pt'))]
    for argv, call in pairs:
        out, err, code = run(cli.average_main, argv)
        line = error_line(err, 'tnb-average')
        assert code == 2 and line == _library_line(call, t).replace('out_path ', '-o ', 1), (argv, line, _library_line(call, t))
    with pytest.raises(SettingError) as e: average_run([A], place / 'x.pt', last=0)
    assert str(e.value) == 'last=0 must be an int in [1, 1000000], or None'                  # in Python's words without a command
    assert _snapshot(place) == before and not (place / 'x.pt').exists()

def test_translate_file_refuses_what_tnb_translate_refuses(place):
    "`_translate_file(..., output)` and `tnb-translate -i ... -o ...`: the same rule, the same words; replaced with overwrite=True."
    from transformer_nb.lib.checkpoints import model_from_checkpoint
    from transformer_nb.lib.fast_decoding import _translate_file
    model, tok, _ = model_from_checkpoint(NUMBERS)
    (place / 'link.txt').symlink_to(place / 'notes.txt')
    for target in (place / 'notes.txt', place / 'link.txt'):
        out, err, code = run(cli.translate_main, [NUMBERS, '-i', place / 'src.txt', '-o', target, '--threads', '1'])
        t = cli._translate_parser().options()
        lib = _library_line(lambda: _translate_file(model, tok, place / 'src.txt', target, threads=1), t)
        assert code == 2 and error_line(err, 'tnb-translate') == lib.replace('output ', '-o ', 1), (err, lib)
    assert (place / 'notes.txt').read_text() == 'my notes\n'
    assert _translate_file(model, tok, place / 'src.txt', place / 'notes.txt', overwrite=True, threads=1) == place / 'notes.txt'
    assert (place / 'notes.txt').read_text().splitlines() == ['sieben', 'drei']


# --- a refused tnb-train leaves nothing behind; its messages and its help --------------------------------------------

def test_a_refused_run_leaves_no_folder(tmp_path, monkeypatch):
    "tnb-train refused after it made runs/NAME (a corpus it cannot read): neither runs/NAME nor runs/ is left."
    monkeypatch.chdir(tmp_path)
    out, err, code = run(cli.train_main, ['--dataset', 'wmt14', '--recipe', 'paper-base'])
    assert code == 2 and error_line(err, 'tnb-train').endswith('give --data-dir DIR'), err   # the option to give, not '--data-dir none'
    assert list(tmp_path.iterdir()) == []
    (tmp_path / 'mine').mkdir(); (tmp_path / 'mine' / 'keep.txt').write_text('x')
    out, err, code = run(cli.train_main, ['--dataset', 'wmt14', '--out', tmp_path / 'mine' / 'a' / 'b'])
    assert code == 2 and sorted(p.name for p in tmp_path.rglob('*')) == ['keep.txt', 'mine']   # folders that were there stay

def test_train_help_lists_the_recipes_of_the_registry(capsys):
    "The --recipe names of every task, from the registry, with the datasets they train on."
    from transformer_nb.apps import tasks
    with pytest.raises(SystemExit): cli.train_main(['--help'])
    text = capsys.readouterr().out
    tasks.load_all()
    for name in tasks.task_names():
        for r in tasks.get_task(name).recipes: assert f"{r}," in text or f"{r} (" in text, (r, text[-800:])
    assert 'paper-base' in text and 'cpu-hour' in text


# --- inputs that would wait for ever -------------------------------------------------------------------------------------

def test_a_named_pipe_as_input_is_refused_at_once(place):
    "A FIFO no program writes to, as -i or as --src: one line, at once, not a wait for ever (the test has no writer)."
    os.mkfifo(place / 'fifo')
    out, err, code = run(cli.translate_main, [NUMBERS, '-i', place / 'fifo', '--threads', '1'])
    assert code == 2 and error_line(err, 'tnb-translate').startswith(f"-i {place / 'fifo'} is a named pipe (FIFO): reading it would wait"), err
    from transformer_nb.apps.wmt14 import read_checksums
    with pytest.raises(ValueError, match='is a named pipe'): read_checksums(place / 'fifo')   # tnb-data --checksums FIFO

def test_a_named_pipe_is_read_or_written_once_a_program_holds_its_other_end(place):
    "-o a FIFO no program reads once waited for ever: one line at once now, in the command and in the library alike; -i a FIFO a program writes to is read as it comes (it was refused, though lib_safeguards takes FIFOs as inputs)."
    import subprocess, sys
    from transformer_nb.apps.pretrained import load_pretrained
    from transformer_nb.lib.fast_decoding import _translate_file
    os.mkfifo(place / 'out'); os.mkfifo(place / 'in')
    out, err, code = run(cli.translate_main, [NUMBERS, 'seven', '--threads', '1', '-o', place / 'out'])
    assert code == 2 and error_line(err, 'tnb-translate') == (f"-o {place / 'out'} is a named pipe (FIFO) that no program reads: writing to it would "
                                                              "wait until one does; start its reader first, or give a file"), err
    model, tok = load_pretrained('numbers')[:2]
    with pytest.raises(ValueError, match=f"^output {place / 'out'} is a named pipe \\(FIFO\\) that no program reads"): _translate_file(model, tok, place / 'src.txt', place / 'out')
    # the writer holds the pipe until the command has read all it wrote, then closes it (the command's end of file):
    # no sleep to outlast, however long the command takes to start on a busy machine
    writer = subprocess.Popen([sys.executable, '-c', "import array, fcntl, os, sys, termios, time; fd = os.open(sys.argv[1], os.O_RDWR); "
                               "os.write(fd, b'seven\\nthree\\n'); print('open', flush=True); n = array.array('i', [1]); end = time.monotonic() + 300\n"
                               "while n[0] and time.monotonic() < end: fcntl.ioctl(fd, termios.FIONREAD, n); time.sleep(0.01)", place / 'in'],
                              stdout=subprocess.PIPE, text=True)
    assert writer.stdout.readline() == 'open\n'                                    # a program has it open, and has written two lines
    out, err, code = run(cli.translate_main, [NUMBERS, '-i', place / 'in', '--threads', '1', '--beam', '1'])
    writer.wait()
    assert code == 0 and out == 'sieben\ndrei\n', (out, err)

def test_the_library_refuses_a_run_folder_that_is_a_symlink(tmp_path):
    "train_model(out=LINK), as tnb-train --out LINK: refused in one line naming the link; nothing written where it points."
    from transformer_nb.apps.workflow import train_model
    (tmp_path / 'real').mkdir(); (tmp_path / 'link').symlink_to(tmp_path / 'real')
    with pytest.raises(ValueError) as e: train_model('copy', preset='tiny', steps=1, out=tmp_path / 'link', say=lambda *a: None)
    assert str(e.value).startswith(f"the run folder {tmp_path / 'link'} is a symlink: refusing to write through it"), str(e.value)
    assert list((tmp_path / 'real').iterdir()) == []
