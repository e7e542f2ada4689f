"""Helpers shared by the test files (import them with `from conftest import ...`): the command-line harness that runs
the installed tools in fresh interpreters, the checks of their one-line errors, background runs, and where Multi30k is.

Two tiers. A plain `pytest` runs the fast one: every test not marked `slow`. The tests marked `slow` train through the
command-line tools in fresh processes, run a whole notebook with a mistake made on purpose, or drive a browser;
`pytest --slow` runs them too (so does any `-m` expression, which then chooses alone). `.ci/slow` runs that tier and
the notebooks that need it, as the GitHub workflow does."""
import os, signal, subprocess, sys, threading, time
from pathlib import Path
import pytest

ROOT = Path(__file__).resolve().parents[1]
ENV = {k: v for k, v in os.environ.items() if k not in ('TNB_COMMIT', 'TNB_DEBUG', 'PYTHONUNBUFFERED', 'PYTHONWARNINGS')}
ENV.update(TNB_THREADS='1', OMP_NUM_THREADS='1', MPLBACKEND='Agg')
TINY = ['--dataset', 'copy', '--preset', 'tiny', '--no-progress', '--test-limit', '0']   # a run whose quality does not matter


from transformer_nb.training import copy_ids  # noqa: F401  (for the tests: id-level copy-task pairs of 09_training; batch them with `data.collate`)


# --- the two tiers ------------------------------------------------------------------------------------------------------

SLOW_CMD = 'pytest -n 2 --dist loadfile --slow'

def pytest_addoption(parser):
    parser.addoption('--slow', action='store_true', help="run the tests marked slow too (whole runs of the tools, "
                     "notebooks with a mistake made on purpose, the browser); a plain pytest leaves them out")

def runs_slow_tests(config) -> bool:
    "Whether this session keeps the tests marked `slow`: with `--slow`, or with a `-m` expression, which chooses alone."
    return config.getoption('--slow') or bool(config.getoption('markexpr'))

def pytest_collection_modifyitems(config, items):
    if runs_slow_tests(config): return
    slow = [it for it in items if it.get_closest_marker('slow')]
    if slow:
        config.hook.pytest_deselected(items=slow)
        items[:] = [it for it in items if not it.get_closest_marker('slow')]

def pytest_terminal_summary(terminalreporter, config):
    if not runs_slow_tests(config):
        terminalreporter.write_line(f"the tests marked slow were left out: `{SLOW_CMD}` runs every test, or `bash .ci/slow` "
                                    "that tier and the notebooks it needs")


# --- the command-line harness -----------------------------------------------------------------------------------------

def cmd(name, *args, code=None, py=()):
    "The command line of `tnb-NAME` in a fresh interpreter (`py`: interpreter options such as -W error); `code` runs first."
    return [sys.executable, *py, '-c', f"{(code + '; ') if code else ''}from transformer_nb.apps.cli import {name}_main as m; m()",
            *map(str, args)]

def tool(name, *args, stdin=None, env=None, code=None, py=(), text=False, timeout=300, **kw):
    """Run `tnb-NAME` to the end, as a user does: CompletedProcess with str stderr, and stdout as bytes (or str with
    `text=True`). Standard input is `stdin` (str or bytes), else nothing: never pytest's own."""
    if stdin is None: kw.setdefault('stdin', subprocess.DEVNULL)
    else: kw['input'] = stdin.encode() if isinstance(stdin, str) else stdin
    r = subprocess.run(cmd(name, *args, code=code, py=py), capture_output=True, env={**ENV, **(env or {})}, timeout=timeout, **kw)
    r.stderr = r.stderr.decode('utf-8', 'replace')
    if text: r.stdout = r.stdout.decode('utf-8', 'replace')
    return r

MARKERS = {'TRAINING', 'DECODING', 'SAVE-START', 'STARTING'}        # printed by the tests' own hooks in the child, to know when to act

def said(stderr:str) -> list:
    "The lines of stderr that say something (a tool's line about the file or precision it uses is not an error line, nor a test's marker)."
    return [l for l in stderr.strip().splitlines() if l.strip() and l.strip() not in MARKERS and ': using ' not in l and ': exporting ' not in l and ': precision ' not in l]

def tiny_run(tmp_path_factory, name:str, *args) -> Path:
    "A tiny copy-task run in a fresh folder (its quality does not matter): `tnb-train` with TINY's options and `args`."
    out = tmp_path_factory.mktemp(name) / 'run'
    r = tool('train', *TINY, *args, '--out', out)
    assert r.returncode == 0, r.stderr[-3000:]
    return out

def one_line(r, prog, *needles, code=2):
    "The command failed with exit code `code` and one line on stderr, `prog: error: ...`, containing every needle."
    ls = [l for l in said(r.stderr) if not l.startswith('saving ')]
    assert r.returncode == code, (r.returncode, r.stderr[-3000:])
    assert len(ls) == 1 and ls[0].startswith(f'{prog}: error: '), r.stderr[-3000:]
    for n in needles: assert n in ls[0], (n, ls[0])
    return ls[0]

def temps(folder) -> list:
    "Temporary files (ours are `.NAME.tmpPID`) anywhere under `folder`."
    return sorted(p.name for p in Path(folder).rglob('*') if '.tmp' in p.name)

def default_signals():
    """In a child: every signal a test sends or relies on has its default disposition, whatever pytest inherited (a
    background job ignores SIGINT, `nohup` ignores SIGHUP, a parent may have blocked others)."""
    for s in (signal.SIGINT, signal.SIGHUP, signal.SIGTERM, signal.SIGPIPE, signal.SIGQUIT): signal.signal(s, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_SETMASK, [])

LIVE = []

def end_leftover_processes():
    "A test that fails half-way must not leave its background tool running."
    while LIVE:
        p = LIVE.pop().p
        if p.poll() is None: p.kill(); p.wait()


# --- every test leaves the process as it found it ---------------------------------------------------------------------

WATCHED_SIGNALS = tuple(getattr(signal, n) for n in ('SIGINT', 'SIGTERM', 'SIGHUP', 'SIGQUIT', 'SIGUSR1', 'SIGUSR2',
                                                     'SIGPIPE', 'SIGALRM', 'SIGCHLD') if hasattr(signal, n))
# Threads a library starts once and keeps for the life of the process, whichever test happens to start them first:
# tqdm's monitor (its first bar with a refresh interval), the thread pools that asyncio and concurrent.futures keep, and
# the compile-worker pool's reader and timer that torch.compile (inductor) keeps for later compilations.
LIFELONG_THREADS = ('TMonitor', 'asyncio_', 'ThreadPoolExecutor-', 'InductorSubproc', 'subproc_worker_timer')
THREAD_GRACE_S = 10                                 # a thread a test started may take this long to end once it returns

def _handler(h) -> str:
    if h is None: return 'a handler set outside Python'
    if isinstance(h, signal.Handlers): return h.name
    return f"{getattr(h, '__module__', '?')}.{getattr(h, '__qualname__', repr(h))}"

def process_state() -> dict:
    "What a test must leave as it found it: the signal handlers and mask, the threads, the working folder."
    return dict(handlers={s: signal.getsignal(s) for s in WATCHED_SIGNALS},
                mask=signal.pthread_sigmask(signal.SIG_BLOCK, []) if hasattr(signal, 'pthread_sigmask') else None,
                threads=set(threading.enumerate()), cwd=os.getcwd())

def restore_process_state(before:dict) -> list[str]:
    """Put back what changed since `before` (`process_state()`), so that the next test starts clean; returns a line for
    each thing that had changed: a signal's handler, the signal mask, a thread still running, the working folder."""
    leaked = []
    for s, h in before['handlers'].items():
        now = signal.getsignal(s)
        if now is not h and now != h:
            leaked.append(f"the handler of {signal.Signals(s).name} is {_handler(now)}, was {_handler(h)}")
            if h is not None: signal.signal(s, h)
    if before['mask'] is not None and (now := signal.pthread_sigmask(signal.SIG_BLOCK, [])) != before['mask']:
        leaked.append(f"the blocked signals are {sorted(x.name for x in now)}, were {sorted(x.name for x in before['mask'])}")
        signal.pthread_sigmask(signal.SIG_SETMASK, before['mask'])
    end = time.monotonic() + THREAD_GRACE_S
    for t in threading.enumerate():
        if t in before['threads'] or t.name.startswith(LIFELONG_THREADS) or type(t).__name__.startswith(LIFELONG_THREADS): continue
        if isinstance(t, threading._DummyThread): continue    # started outside Python (torch.compile's workers, CUDA's callbacks): not ours to join
        t.join(max(0.0, end - time.monotonic()))
        if t.is_alive():
            target = getattr(t, '_target', None)
            leaked.append(f"thread {t.name!r} ({type(t).__name__}{f', running {_handler(target)}' if target else ''}) is still running")
    if (now := os.getcwd()) != before['cwd']:
        leaked.append(f"the working folder is {now}, was {before['cwd']}"); os.chdir(before['cwd'])
    return leaked

@pytest.fixture(autouse=True)
def leaves_the_process_as_found():
    """Every test leaves the signal handlers (SIGINT, SIGTERM, SIGHUP, SIGUSR1, ...), the signal mask, the threads and
    the working folder as it found them: the test that changed one fails, naming what it left, and it is put back so
    that the tests after it run as they would alone. (Its background tools are ended first, leak or not.)"""
    before = process_state()
    yield
    end_leftover_processes()
    if leaked := restore_process_state(before): pytest.fail("the test left the process changed: " + '; '.join(leaked), pytrace=False)

class Live:
    "A tool running in the background, its stdout and stderr collected line by line as they come."
    def __init__(self, name, *args, env=None, code=None, stdin=subprocess.DEVNULL):
        LIVE.append(self)
        self.p = subprocess.Popen(cmd(name, *args, code=code), stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=stdin,
                                  env={**ENV, 'PYTHONUNBUFFERED': '1', **(env or {})}, text=True, preexec_fn=default_signals)
        self.out, self.err = [], []
        for stream, buf in ((self.p.stdout, self.out), (self.p.stderr, self.err)):
            threading.Thread(target=lambda s=stream, b=buf: [b.append(l) for l in s], daemon=True).start()

    def wait_for(self, text, timeout=600, where='both'):
        "Wait until `text` appears in the output; False if the process ended or the time ran out first."
        end = time.time() + timeout
        while time.time() < end:
            if any(text in l for l in (self.out if where == 'out' else self.err if where == 'err' else self.out + self.err)): return True
            if self.p.poll() is not None: time.sleep(0.3); return any(text in l for l in self.out + self.err)
            time.sleep(0.05)
        return False

    def signal(self, sig): self.p.send_signal(sig)

    def finish(self, timeout=600):
        try: self.p.wait(timeout)
        except subprocess.TimeoutExpired: self.p.kill(); self.p.wait()
        time.sleep(0.2)
        return self.p.returncode, ''.join(self.out), ''.join(self.err)


# --- data ------------------------------------------------------------------------------------------------------------

from transformer_nb.lib.datasets import MULTI30K_FETCH
FETCH = f"{MULTI30K_FETCH} (tests never download)"

def multi30k_dir() -> Path|None:
    "A local Multi30k folder: $TNB_MULTI30K, a shared/data/multi30k above the checkout, or the package's download cache."
    from transformer_nb.lib.datasets import find_multi30k
    return find_multi30k(ROOT)

def skip_without_multi30k() -> Path:
    "The Multi30k folder, or skip the calling test with one line naming the command that fetches it."
    d = multi30k_dir()
    if d is None: pytest.skip(f"Multi30k is not on this machine: {FETCH}")
    return d

@pytest.fixture(scope='session')
def m30k_dir() -> Path:
    "The Multi30k folder, or the test is skipped, naming the command that fetches it (tests never download)."
    return skip_without_multi30k()


# --- shared runs and files for the tests that run the tools ----------------------------------------------------------

@pytest.fixture(scope='session')
def twenty_step_run(tmp_path_factory) -> Path:
    "A tiny copy-task run with checkpoints at updates 10 and 20 (its quality does not matter). Never change it: copy it."
    out = tiny_run(tmp_path_factory, 'faults', '--steps', '20', '--save-every', '10', '--keep', '0')
    from transformer_nb.lib.runs import RunFolder
    assert [p.name for p in RunFolder(out).checkpoints()] == ['checkpoint-0000010.pt', 'checkpoint-0000020.pt']
    return out

@pytest.fixture(scope='session')
def two_step_run(tmp_path_factory) -> Path:
    "A tiny copy-task run of two updates (`checkpoint-0000002.pt`). Never change it: copy it."
    return tiny_run(tmp_path_factory, 'reliability', '--steps', '2')

@pytest.fixture(scope='session')
def run(twenty_step_run) -> Path:
    "The run a test file uses unless it defines its own `run`: `twenty_step_run`."
    return twenty_step_run

@pytest.fixture
def folder(twenty_step_run, tmp_path) -> Path:
    "A private copy of `twenty_step_run`, for tests that change it."
    import shutil
    shutil.copytree(twenty_step_run, tmp_path / 'run')
    return tmp_path / 'run'

@pytest.fixture(scope='session')
def numbers(tmp_path_factory) -> Path:
    "A numbers-corpus run (English words -> German), trained for a few updates: the checks need its tokenizer and metadata."
    out = tmp_path_factory.mktemp('usability') / 'numbers'
    r = tool('train', '--preset', 'tiny', '--steps', '3', '--no-progress', '--test-limit', '0', '--out', out, text=True)
    assert r.returncode == 0, r.stderr[-2000:]
    return out

@pytest.fixture
def texts(tmp_path) -> Path:
    "Three aligned files of 30 lines: sources, references, and a copy of the sources."
    import random
    rng = random.Random(0)
    src = [' '.join(rng.choice('abcdefghij') for _ in range(rng.randint(1, 6))) for _ in range(30)]
    for name in ('src.txt', 'ref.txt', 'x.txt'): (tmp_path / name).write_text(''.join(s + '\n' for s in src))
    return tmp_path

def text_tool(name, *args, **kw):
    "`tool` with stdout as str."
    return tool(name, *args, text=True, **kw)

def mount_tmpfs(path, opts) -> bool:
    "Mount a tmpfs with options `opts` on `path`; False where this machine does not allow it."
    return subprocess.run(['mount', '-t', 'tmpfs', '-o', opts, 'tmpfs', str(path)], capture_output=True).returncode == 0

@pytest.fixture
def readonly_dir(tmp_path):
    "A folder nothing can be written into: mode 555, or for root (who ignores modes) a read-only tmpfs or chattr +i."
    d = tmp_path / 'ro'; d.mkdir()
    if os.geteuid() != 0:
        d.chmod(0o555); yield d; d.chmod(0o755); return
    if mount_tmpfs(d, 'ro,size=64k'):
        yield d; subprocess.run(['umount', str(d)]); return
    if subprocess.run(['chattr', '+i', str(d)], capture_output=True).returncode == 0:
        yield d; subprocess.run(['chattr', '-i', str(d)]); return
    pytest.skip("no way to make a read-only folder here (root, and neither mount nor chattr works)")


# --- hooks injected into a child (`code=`): they decide *when* something happens, never what the tools do about it ------

# STARTING on stderr once the command runs, just before it imports PyTorch
STARTING = ("import sys, transformer_nb.lib.safeguards as c; _h = c.heavy_imports; "
            "c.heavy_imports = lambda *a, **k: (print('STARTING', file=sys.stderr, flush=True), _h(*a, **k))")

# A child-process wrapper around torch.save: TNB_FAULT='ENOSPC:2' makes the 2nd save write half a file and fail with
# ENOSPC (or EROFS, ...); 'slow:2:3' announces the 2nd save on stderr and makes it take 3 s longer. It also prints
# TRAINING on stderr after the first update, so that a test knows when training has started.
INJECT_SRC = """
import os, sys, time, errno, torch
from transformer_nb.lib.trainer import Trainer
_save, _n, _update = torch.save, [0], Trainer.update
_kind, _at, *_rest = os.environ.get('TNB_FAULT', 'none:0').split(':')
def save(obj, f, *a, **k):
    _n[0] += 1
    if _n[0] == int(_at):
        if _kind == 'slow':
            print('SAVE-START', file=sys.stderr, flush=True); time.sleep(float(_rest[0]))
        else:
            f.write(b'half a checkpoint'); e = getattr(errno, _kind); raise OSError(e, os.strerror(e))
    return _save(obj, f, *a, **k)
def update(self, group, *a, **k):
    stats = _update(self, group, *a, **k)
    if stats['step'] == 1: print('TRAINING', file=sys.stderr, flush=True)
    return stats
torch.save, Trainer.update = save, update
"""

def inject_code() -> str:
    "INJECT_SRC as a -c prefix (a function body cannot be written on one line with semicolons, so exec it)."
    return f"exec({INJECT_SRC!r})"

# Print DECODING on stderr when decoding starts, and never let EOS win, so that every sentence decodes to its length
# limit (input + 50 tokens): a long decoding, one real step after another, whatever the tiny model learned.
_DECODING_SRC = """
import sys, transformer_nb.lib.fast_decoding as f
_b, _g, _n = f._beam_batch, f._greedy_batch, f.step_logits
def _say(fn):
    def g(*a, **k): print('DECODING', file=sys.stderr, flush=True); return fn(*a, **k)
    return g
def _no_eos(model, logits):
    logits = _n(model, logits).clone(); logits[:, 3] = -float('inf'); return logits
f._beam_batch, f._greedy_batch = _say(_b), _say(_g)                     # what translate (lib_fast_decoding) decodes with
f.step_logits = _no_eos                                      # the engine's one call for the logits
"""
DECODING = f"exec({_DECODING_SRC!r})"

def wait_for_output(p, buf, text, timeout) -> bool:
    "Wait until `text` is in the bytes `collect_output` gathers in `buf`, the process ends, or `timeout` seconds pass."
    end = time.time() + timeout
    while time.time() < end and p.poll() is None:
        if text in b''.join(buf).decode('utf-8', 'replace'): return True
        time.sleep(0.05)
    return text in b''.join(buf).decode('utf-8', 'replace')

def collect_output(stream, buf):
    "Gather what `stream` gives into the list `buf`, in a background thread."
    t = threading.Thread(target=lambda: [buf.append(c) for c in iter(lambda: stream.read1(4096) if hasattr(stream, 'read1') else os.read(stream, 4096), b'')], daemon=True)
    t.start(); return t


# --- two decoders' outputs, equal but for ties ---------------------------------------------------------------------------

def differ_beyond_ties(model, tok, src:list, ours:list, theirs:list, beam:bool, alpha:float=0.6) -> list:
    """The sentences of `src` whose two translations differ by more than a tie that float rounding may break either way,
    [(sentence, ours, theirs)]. Two decoders (ours and an export's, another runtime's kernels) agree only to rounding, so
    where two candidates score alike to it, either may win: an exact count of equal outputs is a count of such ties.
    Each pair that differs is scored by `model` itself, teacher-forced: greedy (`beam` False), the two tokens' logits at
    the first position where they part; beam search, the two outputs' scores, log p / lp. A tie is a difference within
    float32 rounding (lib_machine's `rounding_tol`, from the network's sums); anything more is a real difference."""
    import torch
    from transformer_nb.core import BOS_ID, EOS_ID
    from transformer_nb.decoding import length_penalty
    from transformer_nb.lib.machine import rounding_tol, logit_terms
    out = []
    for s, a, b in zip(src, ours, theirs):
        if a == b: continue
        x = torch.tensor([tok.encode(s) + [EOS_ID]])
        ya, yb = [tok.encode(t) + [EOS_ID] if t else [EOS_ID] for t in (a, b)]
        with torch.no_grad(): za, zb = (model(x, torch.tensor([[BOS_ID] + y[:-1]]))[0].double() for y in (ya, yb))   # (T, V)
        terms = logit_terms(model.cfg, x.shape[1], max(len(ya), len(yb)), vocab=True)
        if not beam:
            t = next((i for i, (p, q) in enumerate(zip(ya, yb)) if p != q), min(len(ya), len(yb)) - 1)
            tie = abs(za[t, ya[t]] - za[t, yb[t]]) <= rounding_tol(za[t], terms)      # the same prefix: the same logits
        else:
            score = lambda z, y: (z.log_softmax(-1)[range(len(y)), y].sum() / length_penalty(len(y), alpha)).item()
            mag = lambda z, y: (z.abs().amax(-1) + z.logsumexp(-1).abs())[:len(y)].sum()
            tie = abs(score(za, ya) - score(zb, yb)) <= rounding_tol([mag(za, ya), mag(zb, yb)], terms)
        if not tie: out.append((s, a, b))
    return out
