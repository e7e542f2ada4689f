"""Sentences/s of `translate` (the tnb-translate path: SentencePiece, batching, decoding) on one device:
greedy and beam 4, one sentence per batch and full batches (4000 source tokens), median of repeats.
    python3 experiments/gpu/decode_speed.py CKPT SRC_FILE OUT.json [--device cuda] [--n 1000] [--n1 200]"""
import argparse, datetime, gzip, json, statistics, sys, time
import torch
from transformer_nb.lib.machine import get_device
from transformer_nb.lib.machine import hardware
from transformer_nb.lib.checkpoints import model_from_checkpoint
from transformer_nb.lib.fast_decoding import translate
def main():
    ap = argparse.ArgumentParser(); ap.add_argument('ckpt'); ap.add_argument('src'); ap.add_argument('out')
    ap.add_argument('--device', default='cuda'); ap.add_argument('--n', type=int, default=1000)
    ap.add_argument('--n1', type=int, default=200, help='sentences for the batch-1 timings'); ap.add_argument('--repeats', type=int, default=3)
    a = ap.parse_args()
    dev = get_device(a.device)
    model, tok, _ = model_from_checkpoint(a.ckpt, device=dev)
    with gzip.open(a.src, 'rt', encoding='utf-8') as f: lines = [l.rstrip('\n') for l in f][:a.n]
    translate(model, tok, lines[:32], beam=4)                                   # warm-up
    res = dict(checkpoint=a.ckpt, device=str(dev), hardware=hardware(), date=datetime.date.today().isoformat(),
               command=' '.join(['python3', 'experiments/gpu/decode_speed.py', *sys.argv[1:]]), rows=[])
    for batch, max_tokens, sents in (('full', 4000, lines), ('1', 1, lines[:a.n1])):
        for beam in (1, 4):
            ts = []
            for _ in range(a.repeats):
                if dev.type == 'cuda': torch.cuda.synchronize()
                t0 = time.perf_counter(); translate(model, tok, sents, beam=beam, max_tokens=max_tokens)
                ts.append(time.perf_counter() - t0)
            t = statistics.median(ts)
            row = dict(batch=batch, decoding='greedy' if beam == 1 else f'beam {beam}', sentences=len(sents),
                       sent_s=round(len(sents) / t, 1), runs_s=[round(x, 3) for x in ts])
            res['rows'].append(row); print(row, flush=True)
    with open(a.out, 'w') as f: json.dump(res, f, indent=1)

if __name__ == '__main__': main()
