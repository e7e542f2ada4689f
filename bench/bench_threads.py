"""How many CPU threads should the main job (`tnb-train` with no arguments) use? Times a slice of that job (its corpus,
tokenizer, model and batches; the first K optimiser updates) with 1 thread, 2 threads and PyTorch's own default, on a
quiet machine and with one other CPU-bound process running (a busy loop), all in one run: every setting in a fresh
process, the settings interleaved, R repeats. Prints the median seconds per update and tokens/s of each setting, the
ratio loaded / quiet, and the ratio against 1 thread.

  python bench/bench_threads.py                         # slice: 60 updates x 3 repeats x 3 settings x 2 conditions
  python bench/bench_threads.py --full                  # also the whole default job (`tnb-train`), quiet and loaded
  python bench/bench_threads.py --threads 1,2,torch --updates 60 --repeats 3 --json results/bench_threads.json

"torch" is PyTorch's default (one thread per core; `TNB_THREADS` and `OMP_NUM_THREADS` removed from the environment);
"package" is what `transformer_nb.lib.machine.limit_threads()` picks with no argument. The machine's load average is
printed with every measurement: a machine shared with other work is not quiet, and the figures say so. With one
thread, the CPU time of the whole job (printed with --full) is close to what it takes on an idle machine."""
import argparse, datetime, json, os, resource, statistics, subprocess, sys, tempfile, time
from pathlib import Path

SETTINGS = ('1', '2', 'torch', 'package')

def loadavg() -> float:
    try: return os.getloadavg()[0]
    except OSError: return float('nan')

def worker(threads:str, updates:int):
    "One measurement, in this (fresh) process: the default job's first `updates` updates with `threads`."
    import torch
    from transformer_nb.lib.machine import limit_threads
    from transformer_nb.apps.tasks import get_task
    from transformer_nb.apps.workflow import train_model
    if threads == 'package': limit_threads()
    elif threads != 'torch': limit_threads(int(threads))
    t0 = time.perf_counter()
    recipe = get_task('numbers').recipe                       # the main job, `tnb-train` with no arguments: its corpus, model,
    tr = train_model(steps=updates, warmup=recipe.train['warmup'], valid_every=0, save_every=0, progress=False,   # batches and
                     say=lambda msg: None)                 # schedule, cut to its first updates (no short-run rule, no output)
    wall = time.perf_counter() - t0
    hist = tr.history['train'][min(5, updates // 4):]     # the first updates warm up allocators and caches
    secs = [s['tokens'] / s['tok_s'] for s in hist]
    print(json.dumps(dict(threads=torch.get_num_threads(), s_update=statistics.median(secs),
                          tok_s=sum(s['tokens'] for s in hist) / sum(secs), wall_s=wall)))

def run_worker(setting:str, updates:int) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ('TNB_THREADS', 'OMP_NUM_THREADS', 'MKL_NUM_THREADS')}
    env['PYTHONWARNINGS'] = 'ignore'
    la = loadavg()
    out = subprocess.run([sys.executable, __file__, '--worker', setting, '--updates', str(updates)], env=env,
                         capture_output=True, text=True)
    if out.returncode: sys.exit(f"worker {setting} failed:\n{out.stderr[-3000:]}")
    return {**json.loads(out.stdout.strip().splitlines()[-1]), 'load_before': la}

class Hog:
    "One other CPU-bound process (a Python busy loop) while the block runs."
    def __init__(self, on:bool): self.on, self.p = on, None
    def __enter__(self):
        if self.on:
            self.p = subprocess.Popen([sys.executable, '-c', 'while True: pass'])
            time.sleep(1.0)                                  # let it take its core
        return self
    def __exit__(self, *e):
        if self.p: self.p.kill(); self.p.wait()

def full_job(loaded:bool) -> dict:
    "Wall time of the whole default job: `tnb-train` with no options but a temporary --out (and no progress bar)."
    env = {k: v for k, v in os.environ.items() if k not in ('TNB_THREADS', 'OMP_NUM_THREADS', 'MKL_NUM_THREADS')}
    cpu = lambda: (lambda r: r.ru_utime + r.ru_stime)(resource.getrusage(resource.RUSAGE_CHILDREN))
    with tempfile.TemporaryDirectory() as d, Hog(loaded):
        la, t0, c0 = loadavg(), time.perf_counter(), cpu()
        out = subprocess.run(['tnb-train', '--out', str(Path(d) / 'numbers'), '--no-progress'], env=env,
                             capture_output=True, text=True)
        wall, cpu_s = time.perf_counter() - t0, cpu() - c0
    if out.returncode: sys.exit(f"tnb-train failed:\n{out.stderr[-3000:]}")
    return dict(wall_s=wall, cpu_s=cpu_s, load_before=la, load_after=loadavg(), output=out.stdout)

def main(argv=None):
    p = argparse.ArgumentParser(allow_abbrev=False, description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument('--threads', default='1,2,torch', help=f"comma-separated settings among {', '.join(SETTINGS)}")
    p.add_argument('--updates', type=int, default=60, help="updates per measurement (default 60 of the job's 600)")
    p.add_argument('--repeats', type=int, default=3)
    p.add_argument('--full', action='store_true', help="also time the whole default job, quiet then loaded")
    p.add_argument('--json', help="write the figures, with the hardware and date, to this JSON file")
    p.add_argument('--worker', help=argparse.SUPPRESS)
    a = p.parse_args(argv)
    if a.worker: return worker(a.worker, a.updates)
    settings = a.threads.split(',')
    bad = [s for s in settings if s not in SETTINGS]
    if bad: p.error(f"--threads: unknown setting(s) {bad}; choose from {', '.join(SETTINGS)}")
    from transformer_nb.lib.machine import hardware
    print(f"{hardware()}; {os.cpu_count()} logical CPUs; load average now {loadavg():.2f}")
    print(f"slice: the default job's first {a.updates} updates; median s/update over updates 6..{a.updates}; "
          f"{a.repeats} repeats, settings interleaved")
    res = {(c, s): [] for c in ('quiet', 'loaded') for s in settings}
    for r in range(a.repeats):
        for cond in ('quiet', 'loaded'):
            with Hog(cond == 'loaded'):
                for s in settings:
                    m = run_worker(s, a.updates); res[cond, s].append(m)
                    print(f"  repeat {r + 1} {cond:>6} threads={s:<7} ({m['threads']}): {m['s_update']*1e3:7.1f} ms/update, "
                          f"{m['tok_s']:7.0f} tok/s, slice {m['wall_s']:5.1f} s  (load average before: {m['load_before']:.2f})",
                          flush=True)
    med = {k: statistics.median(m['s_update'] for m in v) for k, v in res.items()}
    print("\n| threads | quiet ms/update | loaded ms/update | loaded / quiet | quiet vs 1 thread | loaded vs 1 thread |")
    print("|---|---|---|---|---|---|")
    base = {c: med.get((c, '1')) for c in ('quiet', 'loaded')}
    rows = []
    for s in settings:
        q, l = med['quiet', s], med['loaded', s]
        vs = lambda c, x: f"{base[c] / x:.2f}x" if base[c] else '—'
        n = res['quiet', s][0]['threads']
        print(f"| {s} ({n}) | {q*1e3:.1f} | {l*1e3:.1f} | {l / q:.2f} | {vs('quiet', q)} | {vs('loaded', l)} |")
        rows.append(dict(setting=s, threads=n, quiet_ms=round(q * 1e3, 1), loaded_ms=round(l * 1e3, 1), ratio=round(l / q, 2)))
    print("(vs 1 thread: speed-up, >1 is faster; loaded: one other CPU-bound process running)")
    out = dict(hardware=hardware(), date=datetime.date.today().isoformat(), updates=a.updates, repeats=a.repeats,
               command=' '.join(['python', 'bench/bench_threads.py', *(sys.argv[1:] if argv is None else argv)]), rows=rows, raw={f'{c}/{s}': v for (c, s), v in res.items()})
    if a.full:
        from transformer_nb.lib.machine import limit_threads
        n = limit_threads()
        print(f"\nthe whole default job, `tnb-train` (package default: {n} thread(s)):")
        full = {}
        for cond in ('quiet', 'loaded'):
            full[cond] = full_job(cond == 'loaded')
            f = full[cond]
            print(f"  {cond:>6}: {f['wall_s']:.0f} s = {f['wall_s']/60:.1f} min wall, {f['cpu_s']:.0f} s of CPU time "
                  f"(load average before {f['load_before']:.2f}, after {f['load_after']:.2f})", flush=True)
        ratio = full['loaded']['wall_s'] / full['quiet']['wall_s']
        print(f"  loaded / quiet: {ratio:.2f}")
        print("  last lines of the quiet run:\n    " + '\n    '.join(full['quiet']['output'].strip().splitlines()[-8:]))
        out['full'] = dict(threads=n, quiet_s=round(full['quiet']['wall_s']), loaded_s=round(full['loaded']['wall_s']),
                           ratio=round(ratio, 2), cpu_s={c: round(full[c]['cpu_s']) for c in full},
                           load={c: [full[c]['load_before'], full[c]['load_after']] for c in full},
                           output=full['quiet']['output'].strip().splitlines()[-12:])
    if a.json: Path(a.json).write_text(json.dumps(out, indent=1) + '\n')

if __name__ == '__main__': main()
