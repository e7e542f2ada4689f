#!/usr/bin/env python
"""Store the attention maps of a trained model, so that 12_variations can show them without a training run.

For each source sentence it translates with the model of a run folder (its `average.pt` while that is the newest, as
every tool does, else its newest checkpoint), runs the pair through the model once with the decoder reading that
translation (teacher forcing), and keeps every layer's and head's weights: encoder self-attention, decoder
self-attention and encoder-decoder attention, rounded to 3 decimals. It also scores the model on its task's test
split with `tnb-evaluate RUN --json`, so the file says how good the model is whose maps it holds. The file, a JSON
object, holds the maps, their pieces, the scores and the provenance: the checkpoint and the steps it averages, the
training command, this command, the commit, the hardware and the date. `load_attention` of `transformer_nb.lib.scoring`
reads it back.

    tnb-train --threads 1 --out runs/numbers                                # the main job, about 3 minutes
    python experiments/attention_maps.py runs/numbers --name numbers --beam 1 \\
        --src 'three hundred forty-two thousand seventy-one'

    tnb-train --dataset multi30k --data-dir ../shared/data/multi30k --src-lang de --tgt-lang en --preset small \\
        --vocab-size 8000 --max-tokens 2500 --epochs 9 --warmup 800 --lr-scale 0.7 --threads 1 --save-every 250 \\
        --keep 6 --valid-every 500 --beam 4 --out runs/m30k-de-en           # about an hour on one CPU thread
    python experiments/attention_maps.py runs/m30k-de-en --name multi30k --beam 4 --layers 3 \\
        --data-dir ../shared/data/multi30k --src 'SENTENCE'

Writes results/attention/NAME.json (about 70 kB for the last layer of a 14-piece sentence of the `small` model; every
layer, about 220 kB).
"""
import argparse, json, os, shlex, subprocess, sys
from pathlib import Path
from transformer_nb.lib.machine import hardware, git_commit, limit_threads
from transformer_nb.lib.checkpoints import model_from_checkpoint, resolve_checkpoint
from transformer_nb.lib.scoring import _attention_record
from transformer_nb.lib.records import today

ROOT = Path(__file__).resolve().parents[1]

def rel(p) -> str:
    "A path relative to the repository when it is inside it, else as it is."
    p = Path(p).resolve()
    return str(p.relative_to(ROOT)) if ROOT in p.parents else str(p)

def test_scores(run, data_dir, threads:int) -> tuple[dict, str]:
    "`tnb-evaluate RUN --json` on the task's test split, with its default decoding: (scores, command)."
    cmd = ['tnb-evaluate', str(run), '--json', '--threads', str(threads)] + (['--data-dir', str(data_dir)] if data_dir else [])
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode: sys.exit(f"{shlex.join(cmd)} failed: {r.stderr.strip()}")
    return json.loads(r.stdout), shlex.join([cmd[0], rel(run), *cmd[2:]])

def main(argv=None):
    p = argparse.ArgumentParser(allow_abbrev=False, description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument('run', help="a run folder or a checkpoint")
    p.add_argument('--name', required=True, help="the file is results/attention/NAME.json")
    p.add_argument('--src', action='append', required=True, help="a source sentence (repeat for more)")
    p.add_argument('--beam', type=int, default=1, help="the decoding that writes the translations (default greedy)")
    p.add_argument('--layers', type=int, nargs='+', default=None, help="the layers (1-based) whose maps to keep (default all)")
    p.add_argument('--data-dir', default=None, help="the corpus's folder, for the test score (Multi30k)")
    p.add_argument('--threads', type=int, default=1)
    p.add_argument('--out', default=str(ROOT / 'results' / 'attention'))
    a = p.parse_args(argv)
    limit_threads(a.threads)
    ckpt = resolve_checkpoint(a.run)[0]
    model, tok, ck = model_from_checkpoint(ckpt)
    meta = ck.meta
    scores, eval_cmd = test_scores(a.run, a.data_dir, a.threads)
    rec = dict(
        name=a.name, checkpoint=rel(ckpt), step=ck.step, averaged_steps=meta.get('averaged_steps'),
        dataset=meta.get('dataset'), direction=f"{meta.get('src_lang')}-{meta.get('tgt_lang')}", preset=meta.get('preset'),
        config={k: getattr(ck.config, k) for k in ('d_model', 'N', 'h', 'd_ff', 'norm_first')},
        params=sum(p.numel() for p in {id(p): p for p in model.parameters()}.values()),
        test={k: v for k, v in scores.items() if not k.endswith('_signature')}, test_command=eval_cmd,
        beam=a.beam, train_command=meta.get('command'), train_hardware=meta.get('hardware'), train_commit=meta.get('commit'),
        hardware=hardware(), commit=git_commit(), date=today(),
        command=shlex.join(['python', 'experiments/attention_maps.py', rel(a.run), *sys.argv[2:]] if argv is None else argv),
        layers=a.layers, sentences=_attention_record(model, tok, a.src, beam=a.beam, layers=a.layers))
    out = Path(a.out) / f'{a.name}.json'
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(f'.{out.name}.tmp')
    tmp.write_text(json.dumps(rec, ensure_ascii=False, separators=(',', ':')) + '\n', encoding='utf-8')
    os.replace(tmp, out)
    for s in rec['sentences']: print(f"{s['src']} -> {s['hyp']}")
    print(f"wrote {rel(out)} ({out.stat().st_size / 1024:.0f} kB); test: " +
          ', '.join(f"{k} {v}" for k, v in rec['test'].items() if k in ('bleu', 'bleu_lc', 'chrf', 'exact_match')))

if __name__ == '__main__': main()
