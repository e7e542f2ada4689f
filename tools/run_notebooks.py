"""Run every notebook the way a learner does: in a Jupyter kernel, every cell top to bottom (`#| slow` and `#| cuda`
cells included), in a fresh copy of the repository with no `runs/` folder, and without the variables CI sets for its
own tests (`TNB_THREADS`, `OMP_NUM_THREADS`, `MKL_NUM_THREADS`, `MPLBACKEND`), so each notebook's own thread setting
is what is tested. Fails when a cell raises and when a notebook takes longer than its time budget; prints each
notebook's time and, for a failure, the notebook, the cell (number and id), its first line and the error.

    python tools/run_notebooks.py                      # every notebook in nbs/, 2 at a time, 5 minutes each
    python tools/run_notebooks.py nbs/09_training.ipynb --workers 1 --save-to /tmp/executed
    python tools/run_notebooks.py --flagged-only           # those with a `#| slow` or `#| cuda` cell
    ATEN_CPU_CAPABILITY=default python tools/run_notebooks.py --compares-floats   # CI's portability pass
    nice -n 5 python tools/run_notebooks.py --workers 1 --budget 1500 --record results/notebook_times.json
    python tools/run_notebooks.py nbs/[01]*.ipynb --workers 1 --record results/notebook_times_busy.json      # then, at once:
    python tools/run_notebooks.py nbs/[01]*.ipynb --workers 1 --busy 2 --record results/notebook_times_busy.json

`--busy N` runs N busy processes (a Python loop each, as a laptop's other work) beside the notebooks for the whole run,
records N with the run and each notebook's time as its `busy_seconds`, beside the `seconds` of a run without them:
results/notebook_times_busy.json holds the paper notebooks' times measured both ways, one run after the other on the
same machine, which tests/test_times.py holds to at most 3 times the time without them.

`--record FILE` stores each notebook's wall time (the time a learner waits for Run All) in FILE, with the machine
(CPU model, its vector instructions, cores, torch, Python), the date, the load average before and after the run and
ATEN_CPU_CAPABILITY if it was set. It is the course's one source for running times: each notebook's top cell and its
Colab setup cell state `time_phrase(seconds)` (tools/colab.py writes the cell; tests/test_times.py checks all three).
Recording some notebooks updates their entries and keeps the others', if the file names the same machine.
Only notebooks that ran clean are recorded; `--sync-tops` then rewrites the time sentence at each notebook's top.

`--flagged-only` leaves out the notebooks whose every cell `nbdev-test` runs anyway (none flagged `#| slow` or
`#| cuda`): CI runs nbdev-test just before this, and running those again would take it past 20 minutes on 2 cores.
`--compares-floats` keeps those too where their code compares floats (`FLOAT_CHECK`: `test_close`, `allclose`,
`isclose`, `assert_close`, `torch.equal`, `rounding_tol`...): CI's portability pass runs them under ATen's portable
kernels, which nbdev-test's native run does not, so that every float check is held on another CPU's rounding.
Notebooks with more flagged cells start first: the flagged cells are the long ones, so this is a rough longest-first.

The copy is made from the files git tracks plus untracked files it does not ignore (so `runs/`, `.venv/` and build
outputs stay behind) and deleted afterwards: running the notebooks never changes the working tree. The package
itself is imported from wherever it is installed (`pip install -e .` for the checkout)."""
import argparse, json, os, platform, re, shutil, signal, subprocess, sys, tempfile, threading, time
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
def children_cpu() -> float:
    "CPU seconds of this process's finished children (a notebook's kernel, once it ends); NaN where unknown (Windows)."
    try: import resource
    except ImportError: return float('nan')
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime

# How long Run All takes, in the words every notebook's top cell and Colab setup cell use (the sentence is TIME_SENTENCE).
def time_phrase(seconds:float) -> str:
    "'under a minute' below 60 s, 'about a minute' below 90 s, else 'about N minutes' (N: seconds / 60, rounded)."
    if seconds < 60: return 'under a minute'
    if seconds < 90: return 'about a minute'
    return f"about {round(seconds / 60)} minutes"

TIME_SENTENCE = "Running every cell takes {phrase} of wall time {where}."
TIME_RE = re.compile(r"Running every cell takes (under a minute|about a minute|about \d+ minutes)"
                     r" (of wall time on a (quiet )?\d+-core machine( shared with other work \(load average up to [\d.]+\)| whose load was not recorded)?|on a 2-core CPU)\.")
TIMES = ROOT / 'results' / 'notebook_times.json'

def where_measured(times:dict, names:list) -> str:
    """Where notebooks `names` were timed, from the times file's record of their runs: 'on a quiet N-core machine' when
    the load average (1 minute) stayed under half the cores before and after each of their runs, or when it was under
    half the cores as each run began and a run of one notebook at a time (`--workers 1`) never took it past the cores
    (the notebooks' own load, nothing else's); else the machine and the highest load, so that no sentence calls a busy
    machine quiet."""
    cores = times['machine']['cores']
    runs = [times['runs'][times['notebooks'][n]['run']] for n in names]
    unknown = float('inf')                             # a run with no load recorded is not called quiet
    worst = max((r[k] or [unknown])[0] for r in runs for k in ('load_before', 'load_after'))
    before = max((r['load_before'] or [unknown])[0] for r in runs)
    if worst < cores / 2 or (before < cores / 2 and worst <= cores and all(r.get('workers') == 1 for r in runs)):
        return f"on a quiet {cores}-core machine"       # nothing else ran: one notebook at a time is all the load after
    if worst == unknown: return f"on a {cores}-core machine whose load was not recorded"
    return f"on a {cores}-core machine shared with other work (load average up to {worst:.1f})"

def time_sentence(nb_name:str, times:dict|None=None) -> str:
    "The sentence about `nb_name`'s running time, from results/notebook_times.json (or `times`, that file's content)."
    times = times if times is not None else json.loads(TIMES.read_text(encoding='utf-8'))
    return TIME_SENTENCE.format(phrase=time_phrase(times['notebooks'][nb_name]['seconds']), where=where_measured(times, [nb_name]))

def machine() -> dict:
    "The CPU (model, vector instructions, cores), torch and Python of this machine."
    model, flags = platform.processor() or platform.machine(), set()
    try:
        for line in Path('/proc/cpuinfo').read_text().splitlines():
            k, _, v = line.partition(':')
            if k.strip() == 'model name': model = v.strip()
            if k.strip() == 'flags': flags = set(v.split())
    except OSError: pass
    isa = [name for flag, name in (('avx2', 'AVX2'), ('avx512f', 'AVX-512'), ('avx512_bf16', 'AVX-512 BF16'),
                                   ('amx_tile', 'AMX')) if flag in flags]
    import torch
    return dict(cpu=model, isa=isa, cores=os.cpu_count(), aten_kernels=torch.backends.cpu.get_cpu_capability(),
                torch=torch.__version__, python=platform.python_version(), os=f"{platform.system()} {platform.release()}")

def load() -> list:
    try: return [round(x, 2) for x in os.getloadavg()]
    except (AttributeError, OSError): return []

def record(path:Path, results:list, run:dict) -> dict:
    "Write the clean notebooks' times into `path`, keeping other notebooks' entries if the file names this machine."
    old = json.loads(path.read_text(encoding='utf-8')) if path.is_file() else {}
    mach = machine()
    same = {k: v for k, v in old.get('machine', {}).items() if k != 'aten_kernels'} == \
           {k: v for k, v in mach.items() if k != 'aten_kernels'}
    nbs = dict(old.get('notebooks', {})) if same else {}
    runs = list(old.get('runs', [])) if same else []
    run = dict(run, notebooks=sorted(r['notebook'] for r in results if r['status'] == 'ok'))
    for r in results:                                   # a run beside busy processes adds to an entry, a quiet one starts it
        if r['status'] != 'ok': continue
        if run.get('busy'): nbs[r['notebook']] = dict(nbs.get(r['notebook'], {}), busy_seconds=r['seconds'], busy_cpu_seconds=r['cpu'], busy_run=len(runs))
        else: nbs[r['notebook']] = dict(seconds=r['seconds'], cpu_seconds=r['cpu'], run=len(runs))
    out = dict(about="Wall time of Run All for each notebook (every cell, the slow ones included), measured by "
                     "`python tools/run_notebooks.py --record` in a fresh copy of the repository; `cpu_seconds` is the "
                     "kernel's CPU time; `run` indexes `runs` (date, load average before and after, ATEN_CPU_CAPABILITY). `busy_seconds` "
                     "(where measured, with `--busy N`): the same notebook run beside N busy processes, its run `busy_run`. "
                     "Each notebook's top cell and Colab setup cell state tools/run_notebooks.py's time_phrase(seconds).",
               machine=mach, runs=runs + [run], notebooks=dict(sorted(nbs.items())))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(out, indent=1) + '\n', encoding='utf-8')
    return out

def sync_tops(times:dict|None=None, nbs_dir:Path|None=None) -> list:
    "Rewrite the time sentence in each recorded notebook's top cells to match the file; returns the notebooks changed."
    times = times if times is not None else json.loads(TIMES.read_text(encoding='utf-8'))
    changed = []
    for name in times['notebooks']:
        path = (nbs_dir or ROOT / 'nbs') / name
        if not path.is_file(): continue
        text, want = path.read_text(encoding='utf-8'), time_sentence(name, times)
        new = TIME_RE.sub(want, text)
        if new != text: path.write_text(new, encoding='utf-8'); changed.append(name)
    return changed

LEARNER_UNSET = ('TNB_THREADS', 'OMP_NUM_THREADS', 'MKL_NUM_THREADS', 'MPLBACKEND')

def fresh_copy(dest:Path) -> Path:
    "Copy the checkout's tracked and untracked-but-not-ignored files into `dest`: a fresh clone of the working tree."
    files = subprocess.run(['git', 'ls-files', '-z', '--cached', '--others', '--exclude-standard'], cwd=ROOT,
                           capture_output=True, check=True).stdout.decode().split('\0')
    for f in filter(None, files):
        src = ROOT / f
        if not src.is_file() or f.split('/')[0] == 'runs': continue      # deleted but still in the index; runs/
        (dest / f).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(src, dest / f)
    return dest

FLAGS = ('slow', 'cuda')
FLOAT_CHECK = re.compile(r'\b(test_close|is_close|allclose|isclose|assert_close|assert_allclose|torch\.equal|rounding_tol)\(')

def compares_floats(nb_path) -> bool:
    "Whether a code cell of the notebook compares floats (`FLOAT_CHECK`): the notebooks CI's portability pass runs under other kernels."
    import nbformat
    return any(c.cell_type == 'code' and FLOAT_CHECK.search(c.source) for c in nbformat.read(nb_path, as_version=4).cells)

def flagged_cells(nb_path) -> int:
    "How many code cells of the notebook carry an nbdev `#| slow` or `#| cuda` flag (cells nbdev-test does not run)."
    import nbformat
    nb = nbformat.read(nb_path, as_version=4)
    def flags(cell):                                     # the words of the cell's leading `#|` directive lines
        lines = cell.source.splitlines()
        top = lines[:next((i for i, l in enumerate(lines) if not l.startswith('#|')), len(lines))]
        return {w for l in top for w in l[2:].split()}
    return sum(bool(flags(c) & set(FLAGS)) for c in nb.cells if c.cell_type == 'code')

def first_line(cell) -> str:
    lines = [l for l in cell.source.splitlines() if l.strip() and not l.startswith('#|')]
    return (lines[0][:70] + ('…' if len(lines[0]) > 70 else '')) if lines else '(empty)'

def run_one(nb_path:str, budget:float, save_to:str|None, keep_env:bool, native:bool=False) -> dict:
    "Execute one notebook in its own kernel (in this worker process); returns its status, time and failing cell."
    import nbformat
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError, CellTimeoutError, DeadKernelError
    env = {k: v for k, v in os.environ.items() if (keep_env or k not in LEARNER_UNSET) and not (native and k == 'ATEN_CPU_CAPABILITY')}
    path = Path(nb_path)
    nb = nbformat.read(path, as_version=4)
    cpu0 = children_cpu()                        # the kernel is this worker's child: its CPU time counts once it ends
    t0 = time.perf_counter(); deadline = t0 + budget
    cur = {'index': None, 'cell': None}
    def on_start(cell, cell_index, **_): cur.update(index=cell_index, cell=cell)
    client = NotebookClient(nb, kernel_name='python3', resources={'metadata': {'path': str(path.parent)}},
                            timeout_func=lambda cell: max(1, int(deadline - time.perf_counter()) + 1),
                            startup_timeout=120, on_cell_start=on_start, interrupt_on_timeout=False)
    res = dict(notebook=path.name, status='ok', error='', cells=sum(c.cell_type == 'code' for c in nb.cells),
               kernels=env.get('ATEN_CPU_CAPABILITY', 'native'))
    log = path.with_name(path.name + '.kernel.log')     # the kernel's own stderr: shown if it dies
    sigint = signal.getsignal(signal.SIGINT)           # nbclient's event loop leaves Python's Ctrl-C handler behind, even where
    try:                                               # the caller ignored Ctrl-C (a background job, nohup): put back what was
        with open(log, 'w') as err: client.execute(stderr=err, env=env)
    except CellTimeoutError:
        res.update(status='over budget', error=f"still running after the {budget:.0f} s budget")
    except CellExecutionError as e:
        res.update(status='error', error=' '.join(f"{e.ename}: {e.evalue}".split())[:300])
    except DeadKernelError as e:
        tail = ' | '.join(log.read_text(errors='replace').strip().splitlines()[-3:]) if log.exists() else ''
        res.update(status='error', error=f"the kernel died ({str(e).splitlines()[0][:200]}) {tail[-300:]}")
    except Exception as e:                       # the kernel did not start, a bad notebook file, ...
        res.update(status='error', error=f"{type(e).__name__}: {str(e).strip().splitlines()[0][:300] if str(e).strip() else ''}")
    finally:
        if sigint is not None and threading.current_thread() is threading.main_thread(): signal.signal(signal.SIGINT, sigint)
    res['seconds'] = round(time.perf_counter() - t0, 1)
    res['cpu'] = round(children_cpu() - cpu0, 1)   # on a busy machine the wall time misleads; the CPU time much less
    if res['status'] == 'ok' and res['seconds'] > budget:
        res.update(status='over budget', error=f"took {res['seconds']:.0f} s, more than the {budget:.0f} s budget")
    if res['status'] != 'ok' and cur['cell'] is not None:
        c = cur['cell']
        code_no = sum(x.cell_type == 'code' for x in nb.cells[:cur['index'] + 1])
        res['where'] = f"cell {cur['index']} (code cell {code_no}, id {c.get('id', '?')}): {first_line(c)}"
    if save_to:
        Path(save_to).mkdir(parents=True, exist_ok=True); nbformat.write(nb, Path(save_to) / path.name)
    return res

def main(argv=None):
    p = argparse.ArgumentParser(allow_abbrev=False, description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument('notebooks', nargs='*', help="notebooks to run (default: every nbs/*.ipynb)")
    p.add_argument('--workers', type=int, default=2, help="notebooks run at once (default 2)")
    p.add_argument('--budget', type=float, default=300, help="seconds each notebook may take (default 300 = 5 min)")
    p.add_argument('--save-to', help="also write the executed notebooks into this folder")
    p.add_argument('--keep-env', action='store_true', help=f"keep {', '.join(LEARNER_UNSET)} for the kernels")
    p.add_argument('--flagged-only', action='store_true',
                   help="only the notebooks with a `#| slow` or `#| cuda` cell (nbdev-test runs every cell of the others)")
    p.add_argument('--compares-floats', action='store_true',
                   help="the notebooks with a `#| slow` or `#| cuda` cell, and those whose code compares floats (CI's portability pass)")
    p.add_argument('--also', nargs='+', default=[], metavar='NOTEBOOK',
                   help="with --flagged-only or --compares-floats: run these notebooks too")
    p.add_argument('--native', nargs='+', default=[], metavar='NOTEBOOK',
                   help="run these of the notebooks with the CPU's own ATen kernels, whatever ATEN_CPU_CAPABILITY says")
    p.add_argument('--record', metavar='FILE', help="store each clean notebook's time, the machine and the load in FILE "
                   "(the course's results/notebook_times.json)")
    p.add_argument('--busy', type=int, default=0, metavar='N', help="run N busy processes beside the notebooks "
                   "(a laptop's other work) and record N with the run (default 0)")
    p.add_argument('--sync-tops', action='store_true', help="only rewrite each notebook's time sentence from "
                   "results/notebook_times.json (after --record), then stop")
    a = p.parse_args(argv)
    if a.sync_tops:
        changed = sync_tops()
        print(f"time sentence rewritten in {len(changed)} notebooks" + (f": {', '.join(changed)}" if changed else ''))
        return 0
    nbs = [Path(n).resolve() for n in a.notebooks] or sorted((ROOT / 'nbs').glob('*.ipynb'))
    missing = [str(n) for n in nbs if not n.is_file()]
    if missing: p.error(f"no such notebook: {', '.join(missing)}")
    outside = [str(n) for n in nbs if ROOT not in n.parents]
    if outside: p.error(f"notebooks must be inside {ROOT}: {', '.join(outside)}")
    n_flagged = {n: flagged_cells(n) for n in nbs}
    if a.flagged_only and a.compares_floats: p.error("--flagged-only and --compares-floats: choose one")
    if a.flagged_only or a.compares_floats:
        also = [Path(n).resolve() for n in a.also]
        unknown = [str(n) for n in also if n not in n_flagged]
        if unknown: p.error(f"--also: not one of the notebooks to run: {', '.join(unknown)}")
        keep = {n for n in nbs if n_flagged[n] or n in also or (a.compares_floats and compares_floats(n))}
        left = [n.name for n in nbs if n not in keep]
        nbs = [n for n in nbs if n in keep]
        if left: print(f"left out {len(left)} notebooks with no #| slow or #| cuda cell"
                       + (" that compare no floats" if a.compares_floats else "") + f" (nbdev-test runs all their cells): {', '.join(left)}")
        if not nbs: p.error(f"{'--flagged-only' if a.flagged_only else '--compares-floats'}: none of the notebooks is one")
    unknown = [n for n in a.native if Path(n).resolve() not in nbs]
    if unknown: p.error(f"--native: not one of the notebooks to run: {', '.join(unknown)}")
    nbs.sort(key=lambda n: (Path(n) not in {Path(x).resolve() for x in a.native}, -n_flagged[n]))   # roughly the long ones first
    if a.busy < 0: p.error(f"--busy {a.busy}: a count of busy processes, 0 or more")
    busy = [subprocess.Popen([sys.executable, '-c', 'while True: pass']) for _ in range(a.busy)]   # ended below
    run = dict(date=time.strftime('%Y-%m-%d', time.gmtime()), workers=a.workers, load_before=load(),
               aten_cpu_capability=os.environ.get('ATEN_CPU_CAPABILITY'), **({'busy': a.busy} if a.busy else {}))
    try: return _run(a, nbs, n_flagged, run)
    finally:
        for b in busy: b.kill(); b.wait()

def _run(a, nbs, n_flagged, run) -> int:
    t0, results = time.perf_counter(), []
    with tempfile.TemporaryDirectory(prefix='tnb-notebooks-') as tmp:
        copy = fresh_copy(Path(tmp) / ROOT.name)
        print(f"running {len(nbs)} notebooks as a learner would (every cell, fresh copy in {copy}, no runs/), "
              f"{a.workers} at a time, budget {a.budget:.0f} s each", flush=True)
        with ProcessPoolExecutor(a.workers) as ex:
            native = {Path(n).resolve() for n in a.native}
            futs = {ex.submit(run_one, str(copy / n.relative_to(ROOT)), a.budget, a.save_to, a.keep_env, n in native): n for n in nbs}
            for f in as_completed(futs):
                r = f.result(); results.append(r)
                print(f"  {r['status']:>11}  {r['seconds']:6.1f} s ({r['cpu']:6.1f} s CPU)  {r['notebook']} ({r['kernels']} kernels)"
                      + (f"\n               {r.get('where', '')}\n               {r['error']}" if r['status'] != 'ok' else ''),
                      flush=True)
    results.sort(key=lambda r: r['notebook'])
    bad = [r for r in results if r['status'] != 'ok']
    if a.record:
        record(Path(a.record), results, dict(run, load_after=load()))
        print(f"recorded {len(results) - len(bad)} notebooks' times in {a.record}")
    print("\n| notebook | ATen kernels | code cells | seconds | CPU seconds | status |\n|---|---|---|---|---|---|")
    for r in results: print(f"| {r['notebook']} | {r['kernels']} | {r['cells']} | {r['seconds']:.1f} | {r['cpu']:.1f} | {r['status']} |")
    print(f"\n{len(results) - len(bad)} of {len(results)} notebooks ran every cell within {a.budget:.0f} s; "
          f"wall time {time.perf_counter() - t0:.0f} s with {a.workers} workers")
    for r in bad: print(f"FAILED nbs/{r['notebook']}, {r.get('where', 'before the first cell')}: {r['error']}", file=sys.stderr)
    return 1 if bad else 0

if __name__ == '__main__': sys.exit(main())
