#!/usr/bin/env python
"""The published models' translations, made by whatever version of transformer_nb is imported: fp32, beam 4.

Writes, into `--out`, one file per (model, set, decoder): test2016's first `--lines` lines in both directions of Multi30k,
and the numbers test set, each through PyTorch (`translate`), an ONNX export (`onnx_translate`) and a CTranslate2
export (`translate_export`), and the losses of 40 updates of the copy task (fp32, one thread, seed 0). Run it once with
the version before a change and once with the one after, on the same machine; `--compare BEFORE AFTER` counts the
lines and the losses that differ. results/one_model/ keeps the outputs of the version before the tools ran 06's own
`Transformer` (commit 2ea82ec), and results/one_model_parity.json the comparison with the version after.

    git worktree add /tmp/old 2ea82ec && PYTHONPATH=/tmp/old python experiments/one_model_parity.py --out /tmp/before
    python experiments/one_model_parity.py --out /tmp/after
    python experiments/one_model_parity.py --compare /tmp/before /tmp/after --record results/one_model_parity.json
"""
import argparse, gzip, json, sys, tempfile
from pathlib import Path
ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / 'shared' / 'data' / 'multi30k'
SETS = {'multi30k-en-de': 'en', 'multi30k-de-en': 'de', 'numbers': None}

def sources(name:str, lines:int) -> list[str]:
    "The sentences a published model is held to: test2016's first `lines` lines of its source language, or the numbers test set."
    if SETS[name]:
        with gzip.open(DATA / f"test_2016_flickr.{SETS[name]}.gz", 'rt', encoding='utf-8') as f: return [next(f).rstrip('\n') for _ in range(lines)]
    from transformer_nb.lib.checkpoints import open_checkpoint
    from transformer_nb.apps.test_sets import dataset_test_set   # the numbers corpus's own test split, as tnb-evaluate takes it
    return [s for s, _ in dataset_test_set(open_checkpoint('pretrained:numbers'))[0]]

def copy_losses(folder:Path) -> list[float]:
    "The losses of 40 updates of the copy task, fp32 on one thread, seed 0, read back every update (`tnb-train`)."
    import subprocess
    from transformer_nb.lib.checkpoints import open_checkpoint
    from transformer_nb.lib.runs import RunFolder
    run = ['tnb-train', '--dataset', 'copy', '--preset', 'tiny', '--steps', '40', '--seed', '0', '--precision', 'fp32', '--threads', '1',
           '--log-every', '1', '--save-every', '0', '--valid-every', '0', '--test-limit', '0', '--no-progress', '--out', str(folder)]
    subprocess.run(run, check=True, capture_output=True)
    return [r['loss'] for r in open_checkpoint(RunFolder(folder).latest()).meta['history']['train']]

def make(out:Path, lines:int):
    import torch
    from transformer_nb.lib.checkpoints import model_from_checkpoint
    from transformer_nb.lib.fast_decoding import translate
    from transformer_nb.apps.export import export, onnx_translate, translate_export
    torch.set_num_threads(1)
    out.mkdir(parents=True, exist_ok=True)
    for name in SETS:
        src = sources(name, lines)
        (out / f"{name}.src.txt").write_text('\n'.join(src) + '\n', encoding='utf-8')
        model, tok, _ = model_from_checkpoint(f'pretrained:{name}')
        hyp = translate(model, tok, src, beam=4, precision='fp32', device='cpu')
        (out / f"{name}.torch.txt").write_text('\n'.join(hyp) + '\n', encoding='utf-8')
        with tempfile.TemporaryDirectory() as tmp:
            onnx_dir, ct2_dir = Path(tmp) / 'onnx', Path(tmp) / 'ct2'
            export(f'pretrained:{name}', onnx_dir, format='onnx', float32=True)
            hyp = onnx_translate(onnx_dir, src, beam=4)
            (out / f"{name}.onnx.txt").write_text('\n'.join(hyp) + '\n', encoding='utf-8')
            export(f'pretrained:{name}', ct2_dir)
            inp, res = Path(tmp) / 'in.txt', Path(tmp) / 'out.txt'
            inp.write_text('\n'.join(src) + '\n', encoding='utf-8')
            translate_export(ct2_dir, None, input=str(inp), output=str(res), say=lambda m: None, beam=4)
            (out / f"{name}.ctranslate2.txt").write_bytes(res.read_bytes())
        print(name, len(src), 'lines', flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        (out / 'copy40.losses.json').write_text(json.dumps(copy_losses(Path(tmp) / 'run')) + '\n', encoding='utf-8')

def compare(a:Path, b:Path) -> dict:
    "For each file of `a`, the lines (or losses) that differ in `b`'s file of that name."
    rows = {}
    for f in sorted([*a.glob('*.txt'), *a.glob('*.json')]):
        x, y = (f.read_text(encoding='utf-8').splitlines() if f.suffix == '.txt' else json.loads(f.read_text()) for f in (f, b / f.name))
        rows[f.name] = dict(lines=len(x), differ=sum(p != q for p, q in zip(x, y)) + abs(len(x) - len(y)))
    return rows

if __name__ == '__main__':
    p = argparse.ArgumentParser(allow_abbrev=False, description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument('--out'); p.add_argument('--lines', type=int, default=100)
    p.add_argument('--compare', nargs=2, metavar=('BEFORE', 'AFTER')); p.add_argument('--record')
    a = p.parse_args()
    if a.compare:
        rows = compare(*map(Path, a.compare)); print(json.dumps(rows, indent=1))
        if a.record:
            from transformer_nb.lib.machine import hardware, git_commit
            rec = dict(before='2ea82ec', after=git_commit(), hardware=hardware(), precision='fp32', beam=4, files=rows)
            Path(a.record).write_text(json.dumps(rec, indent=1) + '\n', encoding='utf-8')
        sys.exit(1 if any(r['differ'] for r in rows.values()) else 0)
    make(Path(a.out), a.lines)
