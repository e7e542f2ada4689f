"""Summarise GPU run folders into one small JSON for the notebooks: recipe, model config, training curves
(train loss every 10th update, every validation), throughput, and the scores the evaluations wrote.
    python3 experiments/gpu/collect.py RUNS_DIR OUT.json"""
import json, statistics, sys
from pathlib import Path
from transformer_nb.lib.checkpoints import open_checkpoint
from transformer_nb.lib.runs import RunFolder
def summary(run:Path) -> dict:
    ck = open_checkpoint(RunFolder(run).latest(), None, mmap=True)
    meta, hist = ck.meta, ck.meta['history']
    tr = hist['train']
    tok_s = [r['tok_s'] for r in tr[20:]] or [r['tok_s'] for r in tr]
    out = dict(config={k: getattr(ck.config, k) for k in ck.config.__dataclass_fields__}, train_config=meta['train_config'], command=meta.get('command'),
               hardware=meta.get('hardware'), commit=meta.get('commit'), steps=ck.step, epochs=ck.data_pos['epoch'],
               train_time_s=round(sum(r['tokens'] / r['tok_s'] for r in tr if r.get('tok_s')), 1),
               median_tok_s=round(statistics.median(tok_s)),
               train=[{k: r[k] for k in ('step', 'loss', 'lr')} for r in tr[::10]],
               valid=[{k: r[k] for k in ('step', 'epoch', 'loss', 'ppl')} for r in hist['valid']])
    v = run / 'valid.avg5-beam4.json'
    if v.exists() and v.read_text().strip(): out['valid_avg5_beam4'] = json.loads(v.read_text())
    return out

if __name__ == '__main__':
    runs, dest = Path(sys.argv[1]), Path(sys.argv[2])
    res = {}
    for r in sorted(p for p in runs.iterdir() if p.is_dir()):
        try: res[r.name] = summary(r)
        except Exception as e: res[r.name] = {'error': f"{type(e).__name__}: {e}"}
    dest.write_text(json.dumps(res, indent=1) + '\n')
    for k, v in res.items():
        if 'error' in v: print(f"{k}: {v['error']}"); continue
        vb = v.get('valid_avg5_beam4', {})
        print(f"{k}: {v['steps']} updates, {v['epochs']} epochs, {v['median_tok_s']} tok/s, "
              f"valid ppl {v['valid'][-1]['ppl'] if v['valid'] else float('nan'):.2f}, valid BLEU avg5+beam4 {vb.get('bleu', float('nan'))}")
