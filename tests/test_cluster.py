"""Training on a cluster (apps_cluster): a run stopped as Slurm stops a preempted job (SIGTERM to every process of the
step) on two loopback nodes and started again with `--resume` ends with the weights of the run that was never stopped,
bit for bit; the Slurm batch script is well-formed and runs the commands the page gives."""
import json, os, re, signal, socket, subprocess, sys, time
from pathlib import Path
import pytest, torch

ROOT = Path(__file__).resolve().parents[1]
SBATCH = ROOT / 'experiments' / 'slurm' / 'paper.sbatch'
PAGE = ROOT / 'nbs' / 'apps_cluster.ipynb'

def free_port():
    with socket.socket() as s: s.bind(('127.0.0.1', 0)); return s.getsockname()[1]

ENV = {**os.environ, 'OMP_NUM_THREADS': '1', 'TNB_THREADS': '1', 'CUDA_VISIBLE_DEVICES': ''}   # gloo on CPUs, also on a GPU box
STEPS, EVERY = 40, 4

def two_nodes(tmp_path, out, *train_args, rdzv_id='requeue'):
    "Two `torchrun --nnodes 2` launches of tnb-train on 127.0.0.1 (one process a node), each in its own session as on two hosts."
    script = tmp_path / 'tnb_train.py'
    script.write_text('from transformer_nb.apps.cli import train_main\ntrain_main()\n')
    port = free_port()
    return [subprocess.Popen([sys.executable, '-m', 'torch.distributed.run', '--nnodes=2', '--nproc_per_node=1', f'--node_rank={n}',
                              '--rdzv_backend=c10d', f'--rdzv_endpoint=127.0.0.1:{port}', f'--rdzv_id={rdzv_id}', '--local_addr=127.0.0.1',
                              str(script), *train_args],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=ENV, start_new_session=True)
            for n in (0, 1)]

def train_args(out) -> list[str]:
    "A run of the copy task with dropout (so every rank's generator matters), a checkpoint every EVERY updates."
    return ['--dataset', 'copy', '--preset', 'tiny', '--p-drop', '0.1', '--vocab-size', '16', '--steps', str(STEPS), '--max-tokens', '800',
            '--save-every', str(EVERY), '--keep', '0', '--out', str(out), '--no-progress', '--test-limit', '0']

def finish(nodes, timeout=300) -> list[tuple[int, str]]:
    outs = [p.communicate(timeout=timeout) for p in nodes]
    return [(p.returncode, o[-2000:] + e[-3000:]) for p, (o, e) in zip(nodes, outs)]

def checkpoints(run) -> list[Path]: return sorted(Path(run).glob('checkpoint-*.pt'))

@pytest.mark.slow
def test_a_requeued_run_on_two_nodes_resumes_bit_for_bit(tmp_path):
    from transformer_nb.lib.runs import RunFolder
    for rc, log in finish(two_nodes(tmp_path, tmp_path / 'whole', *train_args(tmp_path / 'whole'), rdzv_id='whole')):
        assert rc == 0, log
    whole = torch.load(RunFolder(tmp_path / 'whole').checkpoints()[-1], weights_only=True)
    assert whole['step'] == STEPS

    run = tmp_path / 'stopped'
    nodes = two_nodes(tmp_path, run, *train_args(run), rdzv_id='stopped')
    t0 = time.monotonic()
    while not checkpoints(run) and time.monotonic() - t0 < 240 and all(p.poll() is None for p in nodes): time.sleep(0.02)
    assert checkpoints(run), 'no checkpoint was written: ' + str(finish(nodes))
    for p in nodes: os.killpg(p.pid, signal.SIGTERM)        # as Slurm preempts: SIGTERM to every process of the job step
    ended = finish(nodes)
    newest = torch.load(checkpoints(run)[-1], weights_only=True)
    assert 0 < newest['step'] < STEPS, (newest['step'], ended)      # stopped part-way, a checkpoint kept
    assert any(rc != 0 for rc, _ in ended), ended

    for rc, log in finish(two_nodes(tmp_path, run, '--resume', str(run), '--no-progress', '--test-limit', '0', rdzv_id='again')):
        assert rc == 0, log
    again = torch.load(RunFolder(run).checkpoints()[-1], weights_only=True)
    assert again['step'] == STEPS and again['data_pos'] == whole['data_pos']
    for k in whole['model']: assert torch.equal(whole['model'][k], again['model'][k]), k      # the same weights, bit for bit
    for a, b in zip(whole['optimizer']['state'].values(), again['optimizer']['state'].values()):
        for k in a: assert torch.equal(torch.as_tensor(a[k]), torch.as_tensor(b[k])), k

@pytest.mark.slow
def test_ctrl_c_under_torchrun_says_what_was_saved_before_torchruns_traceback(tmp_path):
    """Ctrl-C at the terminal reaches every process of the foreground group: the rank stops and saves, and says so; the
    real torchrun, signalled itself, raises torch's SignalException in its own process (no launched command can catch
    it) and ends with exit 1 and that traceback. What the user sees is what the page says: the rank's line, then the
    traceback ending `SignalException: Process PID got signal: 2`, a checkpoint kept and no lock left."""
    run = tmp_path / 'run'
    args = ['--dataset', 'copy', '--preset', 'tiny', '--vocab-size', '16', '--max-tokens', '400', '--steps', '100000', '--save-every', '0',
            '--valid-every', '2', '--keep', '0', '--out', str(run), '--no-progress', '--test-limit', '0']
    script = tmp_path / 'tnb_train.py'
    script.write_text('from transformer_nb.apps.cli import train_main\ntrain_main()\n')
    p = subprocess.Popen([sys.executable, '-m', 'torch.distributed.run', '--nproc_per_node=1', '--local_addr=127.0.0.1',
                          f'--master_port={free_port()}', str(script), *args],
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=ENV, start_new_session=True)
    t0 = time.monotonic()
    while not (run / 'log.jsonl').is_file() and p.poll() is None and time.monotonic() - t0 < 240: time.sleep(0.05)
    assert p.poll() is None, p.communicate()[0][-3000:]
    os.killpg(p.pid, signal.SIGINT)                            # what Ctrl-C sends: every process of the terminal's foreground group
    out = p.communicate(timeout=300)[0]
    assert p.returncode == 1, out[-3000:]
    saved = re.search(r'interrupted at update (\d+); checkpoint saved to (\S+)', out)
    assert saved and Path(saved[2]).is_file() and not (run / '.lock').exists(), out[-3000:]
    assert re.search(r'SignalException: Process \d+ got signal: 2\s*$', out), out[-3000:]    # the traceback's last line
    assert out.index(saved[0]) < out.index('SignalException'), out[-3000:]
    cells = json.loads(PAGE.read_text(encoding='utf-8'))['cells']
    text = ' '.join(' '.join(''.join(c['source']) for c in cells if c['cell_type'] == 'markdown').split())
    assert ("then ends with exit 1 and a traceback of torch's own whose last line is `SignalException: Process PID got signal: 2`") in text

# The batch script, read and run under a stand-in Slurm that signals as Slurm does:
# - `srun` runs its task (the step: the task and every process under it, whatever its session, as Slurm tracks them);
#   SIGTERM or SIGINT to srun itself ends the step at once, as srun does ("forcing job termination": every process of
#   the step is killed with SIGKILL); its exit code is its task's.
# - `scancel --signal=SIG JOBID` sends SIG to every process of the step (slurmstepd signals all of them), never to the
#   batch shell or srun (with --batch: to the batch shell alone); a plain `scancel JOBID` cancels the job: SIGTERM to the
#   batch shell, to srun (which then kills its tasks with SIGKILL) and to every process of the step. `scontrol` names
#   this host and writes down a requeue, failing when FAKE_SCONTROL_RC says; `squeue -h -j ID -o %i` prints ID while
#   FAKE_QUEUE (the ids of the jobs queued or running) holds it, fails with "Invalid job id specified" for another id,
#   and fails as a controller out of reach does when FAKE_SQUEUE_DOWN is set.
# - `torchrun` writes down its arguments and waits to be stopped, as a training run would, saving FAKE_SAVE_NAME
#   (checkpoint-0000100.pt) into FAKE_SAVES, FAKE_SAVE_DELAY seconds after it stops on SIGTERM (a real-sized model's
#   save), then ends as torchrun signalled itself does: exit 1, its SignalException written to TORCHELASTIC_ERROR_FILE
#   (torch's @record on its main); with FAKE_RC, its worker's exit code, it ends at once as torchrun does: 0, or 1 for
#   any failed worker (its exit 2 too), a ChildFailedError written there. FAKE_TORCHRUN=real: the real torchrun, whose `tnb-train` is a tiny run of the copy
#   task with the same command line each time. `tnb-train --check` ends with FAKE_CHECK_RC (0), or is the real check of
#   that tiny run under the real torchrun; FAKE_TRAIN=real: the real tnb-train, the command line as given.
FAKES = {
    'srun': ('echo "srun $*" >> "$SLURM_LOG"\nwhile [ "${1:-}" != torchrun ]; do shift; done\n'
             'tree() { local c; for c in $(ps -o pid= --ppid "$1"); do echo "$c"; tree "$c"; done; }\n'
             '"$@" & TASK=$!\necho "$TASK" > "$SLURM_LOG.step"\necho "$PPID" > "$SLURM_LOG.batch"\necho "$$" > "$SLURM_LOG.srun"\n'
             'trap \'echo "srun: forcing job termination" >> "$SLURM_LOG"; kill -KILL $TASK $(tree $TASK)\' TERM INT\n'
             'while :; do wait "$TASK"; RC=$?; kill -0 "$TASK" 2> /dev/null || break; done\nexit "$RC"\n'),
    'scancel': ('echo "scancel $*" >> "$SLURM_LOG"\n'
                'tree() { local c; for c in $(ps -o pid= --ppid "$1"); do echo "$c"; tree "$c"; done; }\n'
                'TASK=$(cat "$SLURM_LOG.step")\n'
                'if [ "${1#--signal=}" != "$1" ] && [ "${2:-}" = --batch ]; then kill -"${1#--signal=}" "$(cat "$SLURM_LOG.batch")"; exit 0; fi\n'
                'if [ "${1#--signal=}" != "$1" ]; then kill -"${1#--signal=}" $TASK $(tree $TASK); exit 0; fi\n'
                'kill -TERM "$(cat "$SLURM_LOG.batch")" "$(cat "$SLURM_LOG.srun")" $TASK $(tree $TASK)\n'),   # a plain scancel: the job cancelled, srun too
    'squeue': ('[ -n "${FAKE_SQUEUE_DOWN:-}" ] && { echo "squeue: error: Unable to contact slurm controller (connect failure)" >&2; exit 1; }\n'
               'J=; while [ $# -gt 0 ]; do [ "$1" = -j ] && J=$2; shift; done\nfor j in ${FAKE_QUEUE:-}; do [ "$j" = "$J" ] && echo "$j" && exit 0; done\n'
               'echo "slurm_load_jobs error: Invalid job id specified" >&2; exit 1\n'),
    'scontrol': ('if [ "$1" = show ]; then echo 127.0.0.1; exit 0; fi\necho "scontrol $*" >> "$SLURM_LOG"\n'
                 'exit "${FAKE_SCONTROL_RC:-0}"\n'),
    'torchrun': ('echo "torchrun $*" >> "$SLURM_LOG"\n'
                 '[ "${FAKE_TORCHRUN:-}" = real ] && exec "$PYTHON" -m torch.distributed.run --local_addr=127.0.0.1 "$@"\n'
                 'save() { [ -z "${FAKE_SAVES:-}" ] || { sleep "${FAKE_SAVE_DELAY:-0}"; mkdir -p "$FAKE_SAVES"; touch "$FAKE_SAVES/${FAKE_SAVE_NAME:-checkpoint-0000100.pt}"; }; }\n'
                 'err() { [ -z "${TORCHELASTIC_ERROR_FILE:-}" ] || echo "{\\"message\\": {\\"message\\": \\"$1\\"}}" > "$TORCHELASTIC_ERROR_FILE"; '
                 'echo "torch.distributed.elastic.multiprocessing.$1" >&2; }\n'
                 '[ -n "${FAKE_RC:-}" ] && { [ "$FAKE_RC" = 0 ] && exit 0; save; err "errors.ChildFailedError: tnb-train FAILED"; exit 1; }\n'
                 'trap \'echo "torchrun: SIGTERM" >> "$SLURM_LOG"; save; err "api.SignalException: Process $$ got signal: 15"; exit 1\' TERM\n'
                 'while :; do sleep 0.05; done\n'),
    # the page's tnb-train, as a tiny run of the copy task that stops after 6 s of training (the same arguments for the same command line)
    'tnb-train': ('[ "${FAKE_TRAIN:-}" = real ] && exec "$PYTHON" -c "from transformer_nb.apps.cli import train_main; train_main()" "$@"\n'
                  'ARGS=()\nwhile [ $# -gt 0 ]; do case "$1" in --resume) ARGS+=(--resume "$2"); shift 2;; '
                  '--out) ARGS+=(--out "$2"); shift 2;; --check) ARGS+=(--check); shift;; *) shift;; esac; done\n'
                  '[ "${ARGS[-1]}" = --check ] && [ "${FAKE_TORCHRUN:-}" != real ] && exit "${FAKE_CHECK_RC:-0}"\n'
                  '[ "${ARGS[0]}" = --out ] && ARGS+=(--dataset copy --preset tiny --vocab-size 16 --max-tokens 400 --steps 100000 '
                  '--max-time 0.1 --save-every 0 --valid-every 2 --keep 0)\n'
                  'exec "$PYTHON" -c "from transformer_nb.apps.cli import train_main; train_main()" "${ARGS[@]}" --no-progress --test-limit 0\n'),
}
def sbatch_lines(text:str) -> dict[str, str]:
    "The #SBATCH options of a batch script: name -> value ('' for a flag), read as sbatch reads them, up to the first command."
    out = {}
    for line in text.splitlines()[1:]:
        if line.strip() and not line.startswith('#'): break
        if m := re.match(r'#SBATCH\s+--([\w-]+)(?:=(\S+))?\s*$', line): out[m[1]] = m[2] or ''
    return out

def test_the_batch_script_is_well_formed():
    text = SBATCH.read_text(encoding='utf-8')
    assert text.startswith('#!/bin/bash\n')
    assert subprocess.run(['bash', '-n', str(SBATCH)], capture_output=True).returncode == 0
    opts = sbatch_lines(text)
    assert {'requeue', 'signal', 'open-mode', 'nodes', 'ntasks-per-node', 'gpus-per-node', 'time'} <= set(opts), opts
    assert opts['requeue'] == '' and opts['open-mode'] == 'append' and opts['ntasks-per-node'] == '1'   # one torchrun a node
    assert re.fullmatch(r'B:USR1@\d+', opts['signal'])                       # to the batch shell, before the time limit
    body = text.splitlines()
    first_cmd = next(i for i, l in enumerate(body[1:], 1) if l.strip() and not l.startswith('#'))
    assert all(not l.startswith('#SBATCH') for l in body[first_cmd:]), 'an #SBATCH line after the first command is ignored'
    for ref in ('https://slurm.schedmd.com/sbatch.html', 'https://slurm.schedmd.com/preempt.html', 'https://slurm.schedmd.com/scontrol.html',
                'https://slurm.schedmd.com/scancel.html', 'https://slurm.schedmd.com/srun.html'):
        assert ref in text                                                   # what it relies on, cited

def page_commands() -> list[str]:
    "The shell commands of the page's ```sh blocks, continuation lines joined, comments dropped."
    cells = json.loads(PAGE.read_text(encoding='utf-8'))['cells']
    text = '\n'.join(''.join(c['source']) for c in cells if c['cell_type'] == 'markdown')
    out = []
    for block in re.findall(r'```sh\n(.*?)```', text, re.S):
        for cmd in block.replace('\\\n', ' ').splitlines():
            cmd = cmd.split(' #')[0].strip()
            if cmd and not cmd.startswith('#'): out.append(' '.join(cmd.split()))
    return out

def run_sbatch(tmp_path, env:dict, act:str|None=None, ready=None) -> tuple[int, list[str], str]:
    """Run the batch script under the stand-in Slurm; once `ready()` (default: torchrun has started), `act`: 'usr1' (the
    time limit is near), 'steps-term' (SIGTERM to every process of the step alone, as a preemption that spares srun sends it), 'cancel' (a plain `scancel
    JOBID`), 'kill-srun' (SIGTERM to srun itself) or 'time-limit' (the limit itself: SIGTERM to the batch shell and to
    srun, as Slurm sends them). Returns its exit code, the stand-ins' log and its output."""
    fakes = tmp_path / 'bin'; fakes.mkdir(exist_ok=True)
    for name, body in FAKES.items(): (fakes / name).write_text('#!/bin/bash\n' + body); (fakes / name).chmod(0o755)
    log = tmp_path / 'slurm.log'; log.unlink(missing_ok=True)
    env = {**ENV, 'PATH': f"{fakes}:{os.environ['PATH']}", 'SLURM_LOG': str(log), 'SLURM_JOB_ID': '4242', 'PYTHON': sys.executable,
           'SLURM_JOB_NUM_NODES': '2', 'SLURM_JOB_NODELIST': 'node[1-2]', 'SLURM_CPUS_PER_TASK': '4', 'TMPDIR': str(tmp_path), **env}
    p = subprocess.Popen(['bash', str(SBATCH)], cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                         start_new_session=True)
    try:
        if act:
            ready = ready or (lambda: log.is_file() and 'torchrun' in log.read_text())
            t0 = time.monotonic()
            while not ready() and p.poll() is None and time.monotonic() - t0 < 240: time.sleep(0.05)
            assert ready(), (p.poll(), log.read_text() if log.is_file() else '')
            time.sleep(0.2)
            srun = lambda: int(subprocess.check_output(['pgrep', '-P', str(p.pid), '-x', 'srun'], text=True).split()[0])
            if act == 'usr1': p.send_signal(signal.SIGUSR1)              # what --signal=B:USR1@600 sends before the time limit
            elif act == 'steps-term': subprocess.run(['scancel', '--signal=TERM', '4242'], env=env, check=True)   # as Slurm signals the steps
            elif act == 'cancel': subprocess.run(['scancel', '4242'], env=env, check=True)                          # a user's plain scancel
            elif act == 'usr2': subprocess.run(['scancel', '--signal=USR2', '--batch', '4242'], env=env, check=True)   # a cancel with a save
            elif act == 'time-limit': pid = srun(); p.send_signal(signal.SIGTERM); time.sleep(0.1); os.kill(pid, signal.SIGTERM)   # the limit itself: Slurm signals both
            else: os.kill(srun(), signal.SIGTERM)
        out, _ = p.communicate(timeout=300)
    finally:
        if p.poll() is None: os.killpg(p.pid, signal.SIGKILL); p.wait()
    return p.returncode, log.read_text().splitlines() if log.is_file() else [], out

def page_torchrun() -> str:
    "The page's torchrun command on several nodes, as the batch script starts it in job 4242 (its port derived from the job id)."
    multi = [c for c in page_commands() if c.startswith('torchrun --nnodes')]
    assert len(multi) == 1, page_commands()
    return multi[0].replace('HOST0:29500', '127.0.0.1:24242').replace('--rdzv-id paper-base', '--rdzv-id 4242')

@pytest.mark.slow
def test_the_batch_script_runs_the_page_commands_and_requeues(tmp_path):
    rc, log, out = run_sbatch(tmp_path, {}, 'usr1')
    want = page_torchrun()
    assert rc == 0 and log == ['srun --cpus-per-task 4 ' + want, want, 'scancel --signal=TERM 4242', 'torchrun: SIGTERM',
                               'scontrol requeue 4242'], (log, out)   # SIGTERM to the step's processes, never to srun; requeued
    single = [c for c in page_commands() if c.startswith('torchrun --nproc_per_node')]
    assert single and single[0].split('--no-python')[1] == want.split('--no-python')[1]   # one node: the same tnb-train
    run = tmp_path / 'runs' / 'paper-base-en-de'; run.mkdir(parents=True, exist_ok=True)
    (run / 'checkpoint-0004200.pt').write_bytes(b'')          # the requeued job finds the run's checkpoints
    rc, log, out = run_sbatch(tmp_path, {'FAKE_RC': '0', 'SLURM_RESTART_COUNT': '1'})
    resume = want.split('--no-python')[0] + '--no-python tnb-train --resume runs/paper-base-en-de'
    assert rc == 0 and log == ['srun --cpus-per-task 4 ' + resume, resume] and 'the run has finished' in out, (log, out)

def test_the_batch_script_requeues_a_failed_step_a_preemption_and_says_a_failed_requeue(tmp_path):
    run = tmp_path / 'runs' / 'paper-base-en-de'
    for n in (1, 2):                                          # a failed step that saved nothing: requeued, twice in a row
        rc, log, out = run_sbatch(tmp_path, {'FAKE_RC': '1'})
        assert rc == 0 and log[-1] == 'scontrol requeue 4242' and f'failure {n} of at most 2 in a row' in out, (log, out)
    rc, log, out = run_sbatch(tmp_path, {'FAKE_RC': '1'})     # the third: the job fails, with the step's exit code
    assert rc == 1 and 'scontrol requeue 4242' not in log and '(a fault: exit 1), 3 times in a row without a new checkpoint: not requeued' in out, out
    rc, log, out = run_sbatch(tmp_path, {'FAKE_RC': '1', 'FAKE_SAVES': str(run)})   # a failed step that saved a checkpoint
    assert rc == 0 and log[-1] == 'scontrol requeue 4242' and '(a fault: exit 1) after saving runs/paper-base-en-de/checkpoint-0000100.pt' in out, out
    assert not (run / '.failed-starts-4242').exists()
    (run / 'checkpoint-0000100.pt').unlink()
    rc, log, out = run_sbatch(tmp_path, {'FAKE_SAVES': str(run)}, 'steps-term')   # SIGTERM to the step alone: it saves, the job is requeued
    assert rc == 0 and log[-3:] == ['scancel --signal=TERM 4242', 'torchrun: SIGTERM', 'scontrol requeue 4242'], (log, out)
    assert 'the time limit is near' not in out and ("the step ended (a preemption: SIGTERM to the job's steps alone, srun spared, not a fault; "
                                                    "exit 1) after saving runs/paper-base-en-de/checkpoint-0000100.pt: requeueing job 4242") in out, out
    assert 'a fault:' not in out and not list(tmp_path.glob('*.torchrun.json')), out
    cells = json.loads(PAGE.read_text(encoding='utf-8'))['cells']
    page = ' '.join(' '.join(''.join(c['source']) for c in cells if c['cell_type'] == 'markdown').split())
    assert "(`TORCHELASTIC_ERROR_FILE`), logs the stop as a preemption, not a fault, and requeues the job" in page   # the page says what it does
    rc, log, out = run_sbatch(tmp_path, {'FAKE_SCONTROL_RC': '1'}, 'usr1')    # a requeue that fails fails the job, saying so
    assert rc == 1 and log[-1] == 'scontrol requeue 4242' and 'scontrol requeue 4242 failed: submit this script again' in out, out

def test_a_plain_scancel_cancels_the_job_and_says_what_it_keeps(tmp_path):
    """`scancel JOBID` gives the batch shell, srun and the step's processes SIGTERM, and srun kills the ranks with SIGKILL:
    a real-sized model (its save takes a second here) saves nothing. The job ends, never requeued, saying what the run
    keeps and how to cancel with a save; the folder is free for another job (the page once said the run saves)."""
    run = tmp_path / 'runs' / 'paper-base-en-de'
    rc, log, out = run_sbatch(tmp_path, {'FAKE_SAVES': str(run), 'FAKE_SAVE_DELAY': '1'}, 'cancel')
    assert rc != 0 and log[2] == 'scancel 4242' and 'srun: forcing job termination' in log, (log, out)
    assert not [l for l in log if l.startswith('scontrol requeue')] and not (run / 'checkpoint-0000100.pt').exists(), (log, out)
    assert ('stopped by SIGTERM (a plain scancel, the time limit itself, or a preemption' in out and 'srun killed the ranks before they saved; '
            'the run keeps no checkpoint (what it had saved before; cancel with scancel --signal=USR2 --batch 4242 to save first); not requeued') in out, out
    assert not (run / '.slurm-job').exists()

def test_usr2_to_the_batch_shell_cancels_with_a_save(tmp_path):
    "`scancel --signal=USR2 --batch JOBID`, the page's cancel with a save: SIGTERM to the ranks alone, the save waited for, the job ended, never requeued."
    run = tmp_path / 'runs' / 'paper-base-en-de'
    rc, log, out = run_sbatch(tmp_path, {'FAKE_SAVES': str(run), 'FAKE_SAVE_DELAY': '1'}, 'usr2')
    assert rc == 0 and log[-2:] == ['scancel --signal=TERM 4242', 'torchrun: SIGTERM'] and 'forcing job termination' not in ' '.join(log), (log, out)
    assert (run / 'checkpoint-0000100.pt').is_file() and not (run / '.slurm-job').exists()
    assert 'stopped by USR2 (scancel --signal=USR2 --batch): the step ended with exit 1, newest checkpoint runs/paper-base-en-de/checkpoint-0000100.pt; the job ends, not requeued' in out, out

def test_the_second_job_guard_fails_closed_when_squeue_cannot_answer(tmp_path):
    "The folder of job 4141 and a squeue that cannot reach the controller: the job does not run beside what may still run (it once did), saying why."
    run = tmp_path / 'runs' / 'paper-base-en-de'; run.mkdir(parents=True); (run / '.slurm-job').write_text('4141\n')
    rc, log, out = run_sbatch(tmp_path, {'FAKE_SQUEUE_DOWN': '1', 'FAKE_RC': '0'})
    assert rc == 1 and log == [] and out.strip().splitlines() == [
        "paper.sbatch: runs/paper-base-en-de is the run folder of job 4141, and squeue cannot say whether it still runs (squeue: error: Unable "
        "to contact slurm controller (connect failure)): this job does not run beside it; submit it again once squeue answers, or, if job 4141 "
        "has ended, remove runs/paper-base-en-de/.slurm-job"], (log, out)

def test_a_second_job_on_the_same_run_folder_is_refused(tmp_path):
    "A job given the run folder of another job still queued or running is refused in one line, exit 2, before any step (it once ran beside it, sharing its retry counter); a folder whose job has ended is taken over."
    run = tmp_path / 'runs' / 'paper-base-en-de'; run.mkdir(parents=True); (run / '.slurm-job').write_text('4141\n')
    rc, log, out = run_sbatch(tmp_path, {'FAKE_QUEUE': '4141 4242', 'FAKE_RC': '1'})
    assert rc == 2 and log == [] and out.strip().splitlines() == [
        "paper.sbatch: runs/paper-base-en-de is the run folder of job 4141, which is still queued or running: this job does not run beside it; "
        "wait for it, cancel it (scancel 4141), or give this one another RUN="], (log, out)
    assert (run / '.slurm-job').read_text() == '4141\n' and not list(run.glob('.failed-starts*'))
    rc, log, out = run_sbatch(tmp_path, {'FAKE_QUEUE': '4242', 'FAKE_RC': '0'})            # job 4141 has ended: its folder taken over
    assert rc == 0 and 'the run has finished' in out and not (run / '.slurm-job').exists(), (log, out)

@pytest.mark.slow
def test_a_failed_worker_is_torchruns_exit_1(tmp_path):
    "What the stand-in torchrun does with a worker's exit 2 is what the real one does: its own exit 1 (ChildFailedError), so the step's exit code cannot tell a mistake from a fault."
    r = subprocess.run([sys.executable, '-m', 'torch.distributed.run', '--nproc_per_node=1', '--local_addr=127.0.0.1', f'--master_port={free_port()}',
                        '--no-python', 'bash', '-c', 'exit 2'], capture_output=True, text=True, env=ENV, timeout=120)
    assert r.returncode == 1 and 'exitcode  : 2' in r.stderr, r.stderr[-2000:]
    rc, log, out = run_sbatch(tmp_path, {'FAKE_RC': '2'})
    assert rc == 0 and log[-1] == 'scontrol requeue 4242' and 'the step ended (a fault: exit 1) and saved no new checkpoint (failure 1' in out, (log, out)

@pytest.mark.slow
def test_a_mistake_in_the_command_fails_the_job_before_any_rank_starts(tmp_path):
    """A typo in DATA: `tnb-train --check` refuses it in one line, exit 2, before srun (it once cost three queued starts, each
    a rank's exit 2 that torchrun turned into 1), and the job fails at once, never requeued, its folder free."""
    rc, log, out = run_sbatch(tmp_path, {'FAKE_TRAIN': 'real', 'DATA': 'data/wmt14-en-dee'})
    assert rc == 2 and log == [], (log, out)
    assert out.strip().splitlines()[1:] == [
        "tnb-train: error: the wmt14 corpus folder --data-dir data/wmt14-en-dee does not exist: give the folder `tnb-data wmt14 --pair en-de DIR` wrote (DIR/wmt14-en-de)",
        "paper.sbatch: tnb-train --check refused the command (exit 2, a mistake in the command or its files: see the line above), which every start would repeat: the job fails, not requeued"], out
    assert not (tmp_path / 'runs' / 'paper-base-en-de' / '.slurm-job').exists()

def test_outside_slurm_the_script_says_what_it_needs(tmp_path):
    "Run by hand (no SLURM_JOB_ID), it once died with 'SLURM_JOB_ID: unbound variable'; one line says what it is and how to submit it, exit 2."
    env = {k: v for k, v in ENV.items() if not k.startswith('SLURM_')}
    r = subprocess.run(['bash', str(SBATCH)], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and not r.stdout and r.stderr.strip().splitlines() == [
        "paper.sbatch: SLURM_JOB_ID is not set: this is a Slurm batch script; submit it with sbatch experiments/slurm/paper.sbatch "
        "(on one machine, run the torchrun command of nbs/apps_cluster.ipynb instead)"], r.stderr
    assert not (tmp_path / 'runs').exists()

def test_the_newest_checkpoint_is_the_highest_update_past_ten_million(tmp_path):
    "Past 10 million updates a checkpoint's name has 8 digits: checkpoint-10000000.pt sorts before checkpoint-9999999.pt by name, and a step that saved it was taken for one that saved nothing. By its number, it is the newest."
    run = tmp_path / 'runs' / 'paper-base-en-de'; run.mkdir(parents=True); (run / 'checkpoint-9999999.pt').write_bytes(b'')
    rc, log, out = run_sbatch(tmp_path, {'FAKE_RC': '1', 'FAKE_SAVES': str(run), 'FAKE_SAVE_NAME': 'checkpoint-10000000.pt'})
    assert rc == 0 and log[-1] == 'scontrol requeue 4242' and 'after saving runs/paper-base-en-de/checkpoint-10000000.pt' in out, (log, out)

def test_at_the_time_limit_itself_nothing_is_saved(tmp_path):
    "What saves is USR1, 600 s before the limit (the tests above): at the limit itself Slurm sends SIGTERM to srun, which kills the ranks with SIGKILL, so they save nothing, and to the batch shell, which requeues nothing (a job past its limit is over)."
    run = tmp_path / 'runs' / 'paper-base-en-de'
    rc, log, out = run_sbatch(tmp_path, {'FAKE_SAVES': str(run)}, 'time-limit')
    assert 'srun: forcing job termination' in log and 'torchrun: SIGTERM' not in log and not [l for l in log if l.startswith('scontrol requeue')], (log, out)
    assert rc != 0 and not (run / 'checkpoint-0000100.pt').exists() and 'not requeued' in out, (rc, out)

def _trains(run):
    "Ready when the run's tiny copy task has validated (its log exists): it trains, with no checkpoint yet."
    return lambda: (Path(run) / 'log.jsonl').is_file()

@pytest.mark.slow
def test_a_stop_before_the_time_limit_keeps_its_checkpoint(tmp_path):
    """USR1 before the time limit under a stand-in srun that kills its tasks when it is signalled itself, with the real
    torchrun and tnb-train: SIGTERM reaches the ranks, rank 0 saves (the run writes no periodic checkpoint), the job is requeued."""
    run = tmp_path / 'runs' / 'paper-base-en-de'
    rc, log, out = run_sbatch(tmp_path, {'FAKE_TORCHRUN': 'real', 'GPUS': '1', 'SLURM_JOB_NUM_NODES': '1', 'PORT': str(free_port())}, 'usr1', _trains(run))
    assert rc == 0 and log[-2:] == ['scancel --signal=TERM 4242', 'scontrol requeue 4242'], (log, out[-3000:])
    assert 'forcing job termination' not in ' '.join(log)
    saved = checkpoints(run)
    assert len(saved) == 1 and torch.load(saved[0], weights_only=True)['step'] > 0, (saved, out[-3000:])
    assert re.search(r'interrupted at update \d+; checkpoint saved to', out), out[-3000:]
    # the node is lost before the requeued start: the lock its rank 0 held there stays, touched just now, and names this job
    (run / '.lock').write_text(json.dumps({'pid': 1, 'host': 'node7', 'boot': None, 'started': None, 'since': '2026-01-01 00:00:00',
                                           'argv': ['tnb-train'], 'slurm_job': '4242'}) + '\n')
    rc, log, out = run_sbatch(tmp_path, {'FAKE_TORCHRUN': 'real', 'GPUS': '1', 'SLURM_JOB_NUM_NODES': '1', 'PORT': str(free_port()),
                                         'SLURM_RESTART_COUNT': '1'})
    assert rc == 0 and 'the run has finished' in out and 'in use by another run' not in out, out[-3000:]   # taken over at once, on this other host
    assert torch.load(checkpoints(run)[-1], weights_only=True)['step'] > torch.load(saved[0], weights_only=True)['step'] and not (run / '.lock').exists()

@pytest.mark.slow
def test_a_run_killed_before_its_first_checkpoint_starts_again_by_the_same_command(tmp_path):
    """srun signalled itself kills the ranks with SIGKILL: no checkpoint, the lock and the log left behind. The job is
    requeued, and the next start, the same first-start command, takes over the dead run's lock and trains to the end."""
    run, env = tmp_path / 'runs' / 'paper-base-en-de', {'FAKE_TORCHRUN': 'real', 'GPUS': '1', 'SLURM_JOB_NUM_NODES': '1'}
    rc, log, out = run_sbatch(tmp_path, {**env, 'PORT': str(free_port())}, 'kill-srun', _trains(run))
    assert 'srun: forcing job termination' in log and not checkpoints(run), (log, out[-3000:])
    assert (run / '.lock').is_file() and (run / 'log.jsonl').is_file()                        # what a SIGKILL leaves
    assert rc == 0 and log[-1] == 'scontrol requeue 4242' and 'failure 1 of at most 2' in out, (log, out[-3000:])
    rc, log, out = run_sbatch(tmp_path, {**env, 'PORT': str(free_port()), 'SLURM_RESTART_COUNT': '1'})
    assert rc == 0 and 'the run has finished' in out, out[-3000:]
    assert 'was stopped before its first checkpoint: starting it again (log.jsonl removed)' in out, out[-3000:]
    assert torch.load(checkpoints(run)[-1], weights_only=True)['step'] > 0 and not (run / '.failed-starts-4242').exists()

# The dress rehearsal: the page's commands, in fresh processes, on a slice of WMT14 laid out like the real archives and
# served over loopback. `paper-base` is scaled down in steps and model size only (and the vocabulary, to the few words
# the slice holds): the ~25,000 tokens a side per update, dropout and label smoothing stay the paper's, and tnb-train
# fits the warm-up to the shorter run as it does for any run shorter than its warm-up.
SMALL = ['--steps', '12', '--d-model', '32', '--N', '1', '--h', '2', '--d-ff', '64', '--vocab-size', '60']

def tool(name:str) -> list[str]:
    "A command-line tool of the package run by this Python, as `pip install` puts it on PATH."
    mod, fn = {'tnb-data': ('transformer_nb.apps.cli', 'data_main'), 'tnb-train': ('transformer_nb.apps.cli', 'train_main'),
               'tnb-average': ('transformer_nb.apps.cli', 'average_main'), 'tnb-evaluate': ('transformer_nb.apps.cli', 'evaluate_main')}[name]
    return [sys.executable, '-c', f'import sys; sys.argv[0] = {name!r}; from {mod} import {fn}; {fn}()']

def run_tool(*cmd, cwd) -> subprocess.CompletedProcess:
    r = subprocess.run([*tool(cmd[0]), *cmd[1:]], cwd=cwd, capture_output=True, text=True, env=ENV, timeout=600)
    assert r.returncode == 0, f"{' '.join(cmd)}\n{r.stdout[-2000:]}\n{r.stderr[-3000:]}"
    return r

@pytest.mark.slow
def test_dress_rehearsal(tmp_path):
    wmt14 = pytest.importorskip('transformer_nb.apps.wmt14')
    commands = page_commands()
    download = next(c for c in commands if c.startswith('tnb-data wmt14'))
    multi = next(c for c in commands if c.startswith('torchrun --nnodes'))
    average = next(c for c in commands if c.startswith('tnb-average'))
    evaluate = next(c for c in commands if c.startswith('tnb-evaluate'))
    # 1. download: the page's command, with a mirror on loopback that serves a slice laid out like the real archives
    sums = wmt14.sample_archives(tmp_path / 'mirror', 'en-de', n=300)
    (tmp_path / 'SHA256SUMS').write_text(''.join(f"{h}  {n}\n" for n, h in sums.items()))
    with wmt14.serve_folder(tmp_path / 'mirror') as srv:
        run_tool(*download.split(), '--base-url', srv.url, '--checksums', str(tmp_path / 'SHA256SUMS'), cwd=tmp_path)
    data = tmp_path / 'data' / 'wmt14-en-de'
    assert json.loads((data / 'MANIFEST.json').read_text())['pair'] == 'en-de'
    # 2-4. vocabulary and training: the page's command on two loopback nodes, a checkpoint every 0.3 s of training
    train = multi.split('--no-python ')[1].split()
    assert train[0] == 'tnb-train'
    script = tmp_path / 'tnb_train.py'
    script.write_text('from transformer_nb.apps.cli import train_main\ntrain_main()\n')
    port, run = free_port(), tmp_path / 'runs' / 'paper-base-en-de'
    nodes = [subprocess.Popen([sys.executable, '-m', 'torch.distributed.run', '--nnodes=2', '--nproc_per_node=1', f'--node_rank={n}',
                               '--rdzv_backend=c10d', f'--rdzv_endpoint=127.0.0.1:{port}', '--rdzv_id=rehearsal', '--local_addr=127.0.0.1',
                               str(script), *train[1:], *SMALL, '--save-every-minutes', '0.005', '--no-progress', '--test-limit', '0'],
                              cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=ENV) for n in (0, 1)]
    ended = finish(nodes, timeout=600)
    for rc, log in ended: assert rc == 0, log
    log = ended[0][1]
    assert re.search(r'update: [\d,]+ padded tokens a side x 2 processes x accum \d+ = 2[5-9],\d{3} a side', log), log   # ~25,000
    ck = torch.load(run / 'checkpoint-0000012.pt', weights_only=True)
    tc = ck['meta']['train_config']
    assert (tc['save_every_minutes'], tc['tokens_per_update'], tc['eps_ls'], ck['config']['p_drop']) == (0.005, 25_000, 0.1, 0.1), tc
    assert tc['warmup'] == 1            # tnb-train fits the 4,000 warm-up updates to a 12-update run (a tenth of it), peak rate kept
    steps = sorted(int(p.stem.split('-')[1]) for p in checkpoints(run))
    assert len(steps) >= 5, steps                                   # checkpoints by time, enough to average the last 5
    # 5. average, as the page does it (the run wrote its own average.pt too)
    run_tool(*average.split(), cwd=tmp_path)
    assert (run / 'avg5.pt').is_file() and (run / 'average.pt').is_file()
    # 6. decode newstest2014 with beam 4, alpha 0.6, input + 50; both scorings with their signatures
    scores = json.loads(run_tool(*evaluate.split(), '--json', cwd=tmp_path).stdout)
    assert len((run / 'newstest2014.hyp.de').read_text().splitlines()) == 300 and not (tmp_path / 'newstest2014.hyp.de').exists()
    assert scores['beam'] == 4 and scores['alpha'] == 0.6 and scores['n_sentences'] == 300
    assert 'tok:13a' in scores['bleu_signature'] and 'tok:moses-de|split:compounds' in scores['bleu_paper_signature']
    assert 0 <= scores['bleu'] <= 100 and 0 <= scores['bleu_paper'] <= 100

def test_the_page_quotes_the_recipes_and_the_paper():
    "The figures the page states, against the recipes, the decoding, the batch script and the paper's Table 2 they come from."
    from transformer_nb.apps import wmt14
    from transformer_nb.lib.options import PAPER_DECODING
    from transformer_nb.evaluation import PAPER_TABLE2
    cells = json.loads(PAGE.read_text(encoding='utf-8'))['cells']
    text = ' '.join(' '.join(''.join(c['source']) for c in cells if c['cell_type'] == 'markdown').split())
    (de_b, fr_b, *_), (de_B, fr_B, *_) = PAPER_TABLE2['Transformer (base model)'], PAPER_TABLE2['Transformer (big)']
    for quote in (f"reports {de_b} BLEU (base) and {de_B} (big) on newstest2014 English→German, and {fr_b} and {fr_B} on English→French",
                  f"({wmt14.PAPER_VOCAB['en-de']:,} pieces for EN-DE, {wmt14.PAPER_VOCAB['en-fr']:,} for EN-FR)",
                  f"about {wmt14.PAPER_TOKENS:,} source and {wmt14.PAPER_TOKENS:,} target tokens per update",
                  f"{wmt14.PAPER_STEPS['base'] // 1000}k (base) or {wmt14.PAPER_STEPS['big'] // 1000}k (big) steps",
                  f"a checkpoint every {wmt14.PAPER_SAVE_EVERY['base']:,} updates\n(big: {wmt14.PAPER_SAVE_EVERY['big']})".replace('\n', ' '),
                  f"the last {wmt14.PAPER_AVERAGE['base']} (base) or {wmt14.PAPER_AVERAGE['big']} (big) checkpoints",
                  f"beam {PAPER_DECODING.beam}, length penalty α = {PAPER_DECODING.alpha} and outputs up to {PAPER_DECODING.max_extra} tokens longer",
                  f"`--signal=B:USR1@{sbatch_lines(SBATCH.read_text())['signal'].split('@')[1]}`"):
        assert quote in text, quote
    # the paper's 10 minutes in its updates (§5.2), the recipes' checkpoints, and Table 3's dev figures said at each validation
    per10 = {k: round(wmt14.PAPER_STEPS[k] / (hours * 6)) for k, hours in (('base', 12), ('big', 3.5 * 24))}
    assert all(abs(per10[k] - wmt14.PAPER_SAVE_EVERY[k]) / per10[k] < 0.02 for k in per10), per10
    assert f"base did 100k updates in 12 hours, {per10['base']:,} every 10 minutes, and big 300k in 3.5 days, {per10['big']} every 10 minutes" in text
    from transformer_nb.lib.options import PAPER_TABLE3
    from transformer_nb.lib.transformer import count_config_params
    from transformer_nb.lib.options import get_model_config
    (pb, bb, _), (pB, bB, _) = PAPER_TABLE3['base'], PAPER_TABLE3['big']
    assert f"perplexity {pb} and BLEU {bb} for base, {pB} and {bB} for big" in text
    assert f"At each validation (every {wmt14.paper_recipe('base').train['valid_every']:,} updates, on newstest2013)" in text
    # the batch script's figures: the signal's lead, the grace time, the retries, and the checkpoint sizes (12 bytes a parameter)
    script = SBATCH.read_text()
    lead, grace = int(sbatch_lines(script)['signal'].split('@')[1]), int(re.search(r'SAVE_GRACE:-(\d+)', script)[1])
    assert "Ten minutes before it" in text and lead == 600 and f"sets it to {grace} s (`SAVE_GRACE`" in text
    assert "USR1, ten minutes ahead, is what saves: at the time limit itself Slurm sends SIGTERM to `srun` too" in text   # tested above, under the stand-in
    assert ("A plain `scancel JOBID` sends SIGTERM to the script and to the steps, `srun` included, which kills the ranks at once: nothing is "
            "saved then") in text and "`scancel --signal=USR2 --batch JOBID`" in text            # both tested above, under the stand-in
    assert f"asking for {int(sbatch_lines(script)['time'].split(':')[0])} hours (`#SBATCH --time={sbatch_lines(script)['time']}`" in text
    assert f"the recipe writes one every {wmt14.PAPER_SAVE_EVERY['base']:,} updates" in text and "`tnb-average` averages those there and says how many" in text
    assert re.search(r'RETRIES=\$\{RETRIES:-2\}', script) and 'requeued twice in a row at most (`RETRIES`)' in text
    gb = {k: 12 * count_config_params(get_model_config(k, src_vocab=37_000, tgt_vocab=37_000)) / 1e9 for k in ('base', 'big')}
    assert f"about {gb['base']:.1f} GB for base and {gb['big']:.1f} GB\nfor big, {gb['big'] * 1e3 / 100:.0f} s at 100 MB/s".replace('\n', ' ') in text, gb
    assert f"paper-base (65 M parameters) about {gb['base']:.1f} GB, paper-big (213 M) about {gb['big']:.1f} GB" in ' '.join(
        l.lstrip('# ') for l in script.splitlines()), gb
    recipe = wmt14.paper_recipe('base').train
    assert recipe['warmup'] == 4000 and 'schedule with 4,000 warm-up steps' in text
    assert f"--last {wmt14.PAPER_AVERAGE['base']} -o" in text and f"paper-big: --last {wmt14.PAPER_AVERAGE['big']}" in text
    assert f"--beam {PAPER_DECODING.beam} --alpha {PAPER_DECODING.alpha} --max-extra {PAPER_DECODING.max_extra}" in text
