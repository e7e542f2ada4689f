#!/usr/bin/env python
"""What each change to beam search buys (10_decoding, issue 13): the fast beam search with one lever turned back at a
time, timed in turn against the full fast version and the readable reference, on a trained checkpoint.

    python bench/ablate_beam.py --checkpoint runs/mini-de-en --json results/decode_ablation.json

`variant` below is a copy of `transformer_nb.decoding.beam_search_nbest` with switches for the search's levers; the
decoder step's levers are switched by swapping the library's methods for their plain versions. Every variant must
return the translations `beam_search` returns (checked before timing): no lever changes the results. Search levers:
- `two_stage_topk`: per-hypothesis top-2k, then the top 2k of those k*2k candidates in float64 (off: one top-2k over
  all k*|V| candidates in float64, as the reference does);
- `kept_only`: log-probabilities for the kept tokens only (`topk_log_probs`: top-2k of the logits, the normaliser
  subtracted from those; off: the (b*k, |V|) log-probabilities first, `log_probs`);
- `chunked_topk`: `topk_rows`, the top-2k through each chunk's maximum (off: `torch.topk` over all |V|);
- `lazy_cross`: select the encoder-decoder caches (one row per sentence, shared by its k hypotheses) only when
  sentences leave (off: every step, with the self caches);
- `tensor_bookkeeping`: the k best finished scores in one tensor, finished hypotheses moved to the host in one transfer
  per step (off: a Python sort per alive sentence per step and one `.item()` per finished hypothesis, as the reference);
- `best_only`: `beam_search` needs only the best hypothesis, so a sentence stops once its best finished one beats the
  bound (`nbest=1`; off: once its k-th best does, as the reference).
Decoder-step levers (they speed up the reference too), switched by `bench/_levers.py`:
- `one_token_step`: `DecoderLayer.step` (off: the layers' `forward`, with its module calls and checks);
- `transposed_output`: `DecoderCache.logits`, the output layer's weight transposed once per run (off: `proj(x)`);
- `one_copy_reorder`: `KVCache.select` done by the next append, one copy of the cache (off: `index_select` at once,
  then `torch.cat` in the append: two copies).
'reference, before issue 13' is `beam_search_reference` with the decoder-step levers off: the code before the speed-up.
Each setting is timed `--repeats` times in turn; medians and ratios to the full fast version, same run.
"""
import argparse, gzip, json, math, os, statistics, sys, time, datetime
from pathlib import Path
import torch
from _levers import levers, LEVERS
from transformer_nb.core import EOS_ID, BOS_ID, PAD_ID, hardware, git_commit, limit_threads
from transformer_nb.attention import pad_mask
from transformer_nb.multihead import KVCache
from transformer_nb.training import model_from_checkpoint
from transformer_nb.decoding import (beam_search, beam_search_reference, length_batches, inference, _check_src,
                                     max_output_lengths, next_token_logits, length_penalty, log_probs, topk_rows)

def hyp_best(logits, n, kept_only, chunked):
    "Each row's n best log-probabilities and their tokens, with or without the levers kept_only and chunked_topk."
    top = (lambda x: topk_rows(x, n)) if chunked else (lambda x: x.topk(n, dim=1))
    if not kept_only: return top(log_probs(logits))
    x, ids = top(logits)
    m = x[:, :1]
    return (x - m) - (logits - m).exp_().sum(-1, keepdim=True).log_(), ids

def variant(model, src, beam=4, alpha=0.6, max_extra=50, two_stage_topk=True, kept_only=True, chunked_topk=True,
            lazy_cross=True, tensor_bookkeeping=True, best_only=True):
    "beam_search_nbest with switches (see the module docstring)."
    with inference(model):
        src = _check_src(model, src)
        (B, _), dev, K, V = src.shape, src.device, beam, model.cfg.tgt_vocab
        limits = max_output_lengths(model, src, max_extra)
        src_mask = pad_mask(src, model.cfg.pad_id)
        memory = model.encode(src, src_mask)
        lp_cap = length_penalty(limits.double(), alpha)
        finished = [[] for _ in range(B)]
        nbest = 1 if best_only else K
        kbest = torch.full((B, nbest), -math.inf, dtype=torch.float64, device=dev)
        alive = torch.arange(B, device=dev)
        mem, smask, r, n = memory, src_mask, 1, min(2 * K, V)   # one memory row per sentence
        ys = torch.full((B, 1), BOS_ID, dtype=torch.long, device=dev)
        scores = torch.zeros(B, 1, dtype=torch.float64, device=dev)
        cache = model.init_cache()
        for t in range(int(limits.max())):
            b = alive.numel()
            logits = next_token_logits(model, model.decode(mem, smask, ys[:, -1:], cache=cache)[:, -1])
            if two_stage_topk:
                best_lp, best_tok = hyp_best(logits, n, kept_only, chunked_topk)
                cand = (scores[:, :, None] + best_lp.view(b, r, n)).view(b, r * n)
                top, j = cand.topk(min(2 * K, r * n), dim=1)
                origin, tok = j // n, best_tok.view(b, r * n).gather(1, j)
            else:
                cand = (scores[:, :, None] + log_probs(logits).view(b, r, V)).view(b, r * V)
                top, idx = cand.topk(min(2 * K, r * V), dim=1)
                origin, tok = idx // V, idx % V
            eos, lp = tok == EOS_ID, length_penalty(t + 1, alpha)
            if tensor_bookkeeping:
                new = torch.where(eos[:, :K] & top[:, :K].isfinite(), top[:, :K] / lp, -math.inf)
                i, jj = new.isfinite().nonzero(as_tuple=True)
                if i.numel():
                    for s, sc, h in zip(alive[i].tolist(), new[i, jj].tolist(), ys[i * r + origin[i, jj], 1:].tolist()):
                        finished[s].append((sc, h))
            else:
                for i, jj in (eos[:, :K] & top[:, :K].isfinite()).nonzero().tolist():
                    finished[alive[i]].append((top[i, jj].item() / lp, ys[i * r + origin[i, jj], 1:].tolist()))
            order = (eos.long() * top.shape[1] + torch.arange(top.shape[1], device=dev)).argsort(1)[:, :K]
            scores, tok = top.gather(1, order), tok.gather(1, order)
            rows = (torch.arange(b, device=dev)[:, None] * r + origin.gather(1, order)).flatten()
            ys = torch.cat([ys.index_select(0, rows), tok.reshape(-1, 1)], 1)
            at_limit = t + 1 >= limits[alive]
            if tensor_bookkeeping:
                ended = torch.where(at_limit[:, None] & scores.isfinite(), scores / lp, -math.inf)
                i, kk = ended.isfinite().nonzero(as_tuple=True)
                if i.numel():
                    for s, sc, h in zip(alive[i].tolist(), ended[i, kk].tolist(), ys[i * K + kk, 1:].tolist()):
                        finished[s].append((sc, h))
                kbest = torch.cat([kbest, new, ended], 1).topk(nbest, dim=1).values
                kth = kbest[:, -1]
            else:
                for i in at_limit.nonzero().flatten().tolist():
                    for k in range(K):
                        if scores[i, k].isfinite(): finished[alive[i]].append((scores[i, k].item() / lp, ys[i * K + k, 1:].tolist()))
                kth = torch.tensor([sorted(x for x, _ in finished[s])[-nbest] if len(finished[s]) >= nbest else -math.inf
                                    for s in alive.tolist()], dtype=torch.float64, device=dev)
            bound = scores.max(1).values / lp_cap[alive]
            keep = (~(at_limit | (kth >= bound))).nonzero().flatten()
            if keep.numel() == 0: break
            changed = keep.numel() < b
            rows = rows.view(b, K)[keep].flatten()
            ys, scores = ys.view(b, K, -1)[keep].flatten(0, 1), scores[keep]
            if tensor_bookkeeping: kbest = kbest[keep]
            if changed:
                alive = alive[keep]
                mem, smask = memory.index_select(0, alive), src_mask.index_select(0, alive)
            for self_kv, cross_kv in cache.layers:
                self_kv.select(rows)
                if changed or not lazy_cross: cross_kv.select(keep)
            r = K
        return [[(ids, s) for s, ids in sorted(f, key=lambda x: -x[0])[:nbest]] for f in finished]

def read_lines(path):
    op = gzip.open if str(path).endswith('.gz') else open
    with op(path, 'rt', encoding='utf-8') as f: return [l.rstrip('\n') for l in f]

def batches(srcs, max_tokens):
    for batch in length_batches([len(s) for s in srcs], max_tokens):
        src = torch.full((len(batch), len(srcs[batch[0]])), PAD_ID, dtype=torch.long)
        for r, i in enumerate(batch): src[r, :len(srcs[i])] = torch.tensor(srcs[i])
        yield src

def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--checkpoint', required=True)
    ap.add_argument('--src', default=None)
    ap.add_argument('--n', type=int, default=500)
    ap.add_argument('--max-tokens', type=int, default=2000)
    ap.add_argument('--threads', type=int, default=1)
    ap.add_argument('--repeats', type=int, default=5)
    ap.add_argument('--json', default=None)
    a = ap.parse_args(argv)
    limit_threads(a.threads)
    root = Path(__file__).resolve().parents[1]
    src = a.src or next((str(p / 'shared/data/multi30k/test_2016_flickr.de.gz') for p in root.parents
                         if (p / 'shared/data/multi30k/test_2016_flickr.de.gz').is_file()), None)
    model, tok, _ = model_from_checkpoint(a.checkpoint, device='cpu')
    srcs = [tok.encode(l.strip()) + [EOS_ID] for l in read_lines(src)[:a.n]]
    bs = list(batches(srcs, a.max_tokens))
    settings = {'fast (all levers)': dict(), 'without stopping when the best is certain': dict(best_only=False),
                'without two-stage top-k': dict(two_stage_topk=False),
                'without log-probabilities of the kept tokens only': dict(kept_only=False),
                'without top-k over chunks': dict(chunked_topk=False),
                'without lazy cross-attention reorder': dict(lazy_cross=False),
                'without tensor bookkeeping': dict(tensor_bookkeeping=False),
                'without the one-token step': dict(one_token_step=False),
                'without the transposed output layer': dict(transposed_output=False),
                'without the one-copy cache reorder': dict(one_copy_reorder=False),
                'reference': 'reference',
                'reference, before issue 13': 'before'}
    def run(kw):
        on = {} if kw == 'reference' else {k: False for k in LEVERS} if kw == 'before' else {k: v for k, v in kw.items() if k in LEVERS}
        with levers(**on):
            if kw in ('reference', 'before'): return [h for s in bs for h in beam_search_reference(model, s)]
            return [h for s in bs for h in variant(model, s, **{k: v for k, v in kw.items() if k not in LEVERS})]
    lib = [h for s in bs for h in beam_search(model, s)]
    for name, kw in settings.items():                                     # the same translations as `beam_search`
        assert [h[0][0] for h in run(kw)] == lib, f"{name}: results differ from beam_search"
    load = os.getloadavg()
    times = {name: [] for name in settings}
    for rep in range(a.repeats):
        for name, kw in settings.items():
            t0 = time.perf_counter(); run(kw); times[name].append(time.perf_counter() - t0)
    med = {k: statistics.median(v) for k, v in times.items()}
    base = med['fast (all levers)']
    print(f"# beam 4 on {len(srcs)} sentences of {Path(src).name}; {hardware()}; {a.threads} thread(s); median of "
          f"{a.repeats}; load average {load[0]:.1f} -> {os.getloadavg()[0]:.1f}; every variant's output identical")
    for k, v in med.items():
        print(f"{k:50} {len(srcs) / v:7.1f} sentences/s  {v / base:5.2f}x the time of the full fast version")
    if a.json:
        rec = dict(date=datetime.datetime.now().isoformat(timespec='seconds'), commit=git_commit(), hardware=hardware(),
                   torch=torch.__version__, threads=a.threads, checkpoint=str(a.checkpoint), n_sentences=len(srcs),
                   beam=4, repeats=a.repeats, load_average_before=[round(x, 2) for x in load],
                   load_average_after=[round(x, 2) for x in os.getloadavg()],
                   command=' '.join(['python', 'bench/ablate_beam.py', *(sys.argv[1:] if argv is None else argv)]),
                   results={k: dict(sentences_per_s=round(len(srcs) / v, 1), median_s=round(v, 3),
                                    runs_s=[round(t, 3) for t in times[k]], time_vs_fast=round(v / base, 3))
                            for k, v in med.items()})
        Path(a.json).parent.mkdir(parents=True, exist_ok=True)
        Path(a.json).write_text(json.dumps(rec, indent=1) + '\n')
        print(f"# wrote {a.json}")

if __name__ == '__main__': main()
