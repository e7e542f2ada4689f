#!/usr/bin/env python
"""`tnb-train`'s throughput in steady state, from a run's training history: one figure per timing window, and their
sum over the windows past the warm-up.

The trainer reads its figures back from the device only at log steps (`--log-every K`), so it times windows of updates,
not single updates: a window runs from its first update's start to the device's end of its last (the device is
synchronized at both ends, and at nothing between them), and each record of the window holds the window's rate
(`tok_s`) and its first update (`window`). Rates copied onto single updates and their median say nothing a window
does not; worse, the first window holds `torch.compile`'s compilation and the warm-up of the caching allocator and of
the kernels' autotuning. So this reports each window, leaves out every window that starts within the first `warm`
updates, and sums the others: target tokens over seconds.

    python experiments/gpu/steady.py RUN_FOLDER --warm 10 --json out.json   # the newest checkpoint's history
"""
import argparse, json, sys
from pathlib import Path

def windows(history:list) -> list[dict]:
    "The timing windows of a training history's records ({'step', 'tokens', 'tok_s', 'window'}), in order: first and last update, updates, target tokens, seconds, tokens/s."
    if not history: raise ValueError("the training history is empty: the run made no update")
    if missing := [r.get('step') for r in history if 'window' not in r or not r.get('tok_s')]:
        raise ValueError(f"updates {missing[:5]} carry no timing window ('window', 'tok_s'): a run of a trainer that "
                         "times windows is needed")
    out = []
    for r in history:
        if not out or out[-1]['first'] != r['window']:
            out.append(dict(first=r['window'], last=r['step'], updates=0, tokens=0, tok_s=r['tok_s']))
        w = out[-1]
        w.update(last=r['step'], updates=w['updates'] + 1, tokens=w['tokens'] + r['tokens'])
    for w in out:
        if w['updates'] != w['last'] - w['first'] + 1:
            raise ValueError(f"the window of updates {w['first']}-{w['last']} lacks records (a thinned history): "
                             "time a shorter run")
        w['seconds'] = round(w['tokens'] / w['tok_s'], 4); w['tok_s'] = round(w['tok_s'])
    return out

def steady(history:list, warm:int) -> dict:
    "Every window, and the steady state: the windows that start after update `warm`, their target tokens over their seconds."
    if isinstance(warm, bool) or not isinstance(warm, int) or warm < 0: raise ValueError(f"warm={warm!r} must be an int >= 0: updates left out")
    ws = windows(history)
    kept = [w for w in ws if w['first'] > warm]
    if not kept: raise ValueError(f"no window starts after update {warm}: run more updates than {ws[-1]['last']}, or log more often")
    tokens, seconds = sum(w['tokens'] for w in kept), sum(w['seconds'] for w in kept)
    return dict(windows=ws, warm_updates=warm, steady_windows=len(kept), steady_updates=sum(w['updates'] for w in kept),
                steady_tokens=tokens, steady_seconds=round(seconds, 3), steady_tok_s=round(tokens / seconds),
                tokens_per_update=round(tokens / sum(w['updates'] for w in kept)))

def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument('run', help="a run folder (its newest checkpoint) or a checkpoint file")
    p.add_argument('--warm', type=int, default=10, help="leave out the windows that start within these first updates (default 10)")
    p.add_argument('--json', help="write the figures here, with the run's config, the machine and the date")
    p.add_argument('--command', default='', help="the command that made the run, recorded with the figures")
    a = p.parse_args(argv)
    import datetime
    from transformer_nb.lib.checkpoints import open_checkpoint
    from transformer_nb.lib.machine import hardware
    ck = open_checkpoint(a.run, 'resume', mmap=True)           # the newest checkpoint: the whole history
    try: rec = steady(ck.meta['history']['train'], a.warm)
    except ValueError as e: p.exit(2, f"steady.py: error: {a.run}: {e}\n")
    for w in rec['windows']:
        print(f"  updates {w['first']:>5}-{w['last']:<5} {w['tokens']:>9,} target tokens in {w['seconds']:8.3f} s: "
              f"{w['tok_s']:>10,} tokens/s{'' if w['first'] > a.warm else '   (warm-up: left out)'}")
    print(f"steady state: {rec['steady_tok_s']:,} target tokens/s over updates {a.warm + 1}-{rec['windows'][-1]['last']} "
          f"({rec['steady_windows']} windows, {rec['steady_updates']} updates)")
    if a.json:
        out = dict(hardware=hardware(), date=datetime.date.today().isoformat(), command=a.command, steps=ck.step,
                   train_config=ck.meta['train_config'], **rec)
        Path(a.json).write_text(json.dumps(out, indent=1) + '\n', encoding='utf-8')
    return 0

if __name__ == '__main__': sys.exit(main())
