"""Run notebooks on this machine the way nbdev-test does (execnb, in-process), `#| slow` cells skipped unless --slow,
`#| cuda` cells run, and save each executed notebook (outputs included) to OUT, so GPU figures can be read back.
    python3 experiments/gpu/run_nbs.py OUT nbs/02_multihead.ipynb nbs/07_why_self_attention.ipynb [--slow]"""
import os, sys, time
from pathlib import Path
from execnb.nbio import read_nb, write_nb
from execnb.shell import CaptureShell

def main():
    out, paths = Path(sys.argv[1]), [Path(p).resolve() for p in sys.argv[2:] if not p.startswith('--')]
    slow = '--slow' in sys.argv
    out.mkdir(parents=True, exist_ok=True)
    skip = lambda c: c.cell_type == 'code' and c.source.startswith('#| slow') and not slow
    for p in paths:
        nb, t0 = read_nb(p), time.perf_counter()
        os.chdir(p.parent)
        sh = CaptureShell()
        try: sh.run_all(nb, exc_stop=True, preproc=skip)
        except Exception as e: print(f"{p.name}: {type(e).__name__}: {e}")
        write_nb(nb, out / (p.stem + '.gpu.ipynb'))
        print(f"{p.name}: {time.perf_counter() - t0:.0f} s")

if __name__ == '__main__': main()
