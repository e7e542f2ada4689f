"""How long CI took, step by step, from the log of one `bash .ci/run` (its `== [Ns] step` stamps, and those of
`.ci/slow` inside it: README's test command, its second pass on the AVX2 kernels, the slow tier and its portability
pass), written with the machine and the date to the file the developers' page quotes.

    bash .ci/run 2>&1 | tee ci.log; python tools/ci_times.py ci.log --json results/ci_times.json"""
import argparse, datetime, json, os, re, sys
from pathlib import Path
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

STAMP = re.compile(r'^== \[(\d+)s\] (.*)$')

def parse(text:str) -> dict:
    "Seconds of each tier: README's test command (the fast tier), `.ci/slow` (its pytest and its portability pass), and all of `.ci/run`."
    run, slow, in_slow = {}, {}, False
    for line in text.splitlines():
        if not (m := STAMP.match(line)): continue
        t, what = int(m[1]), m[2]
        if what.startswith('6. the slow tier'): in_slow = True; run['6'] = t; continue
        if in_slow and (what.startswith(('1. ', '2. ')) or what == 'done'):
            slow[what.split('.')[0] if what != 'done' else 'done'] = t
            if what == 'done': in_slow = False
            continue
        key = what.split('.')[0] if what != 'done' else 'done'
        run[key] = t
    need = [k for k in ('5', '5b', '6', '7', 'done') if k not in run] + [f"slow {k}" for k in ('1', '2', 'done') if k not in slow]
    if need: raise ValueError(f"the log lacks the stamps of steps {', '.join(need)}: is it the log of a whole, green `bash .ci/run`?")
    return dict(total_s=run['done'], setup_s=run['5'], fast_tier_s=run['5b'] - run['5'], avx2_pass_s=run['6'] - run['5b'],
                slow_tier_s=run['7'] - run['6'], slow_pytest_s=slow['2'] - slow['1'], portability_s=slow['done'] - slow['2'],
                docs_s=run['done'] - run['7'])

def main(argv=None):
    p = argparse.ArgumentParser(allow_abbrev=False, description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument('log', help="the output of one `bash .ci/run`")
    p.add_argument('--json', help="write the figures here (results/ci_times.json)")
    a = p.parse_args(argv)
    from transformer_nb.lib.machine import hardware
    rec = dict(parse(Path(a.log).read_text(encoding='utf-8', errors='replace')), hardware=hardware(),
               date=datetime.date.today().isoformat(), load_average_now=[round(x, 2) for x in os.getloadavg()])
    print(json.dumps(rec, indent=1))
    if a.json: Path(a.json).write_text(json.dumps(rec, indent=1) + '\n', encoding='utf-8')

if __name__ == '__main__': main()
