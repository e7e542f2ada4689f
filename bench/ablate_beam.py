#!/usr/bin/env python
"""What each speed-up of the fast beam search buys (lib_fast_decoding): `beam_search_batch` with one lever turned off at
a time, timed in turn against the full fast version and the readable `beam_search` of 10_decoding, on a trained
checkpoint (beam 4, alpha 0.6, cap source + 50, length-sorted batches, one thread).

    python bench/ablate_beam.py --checkpoint runs/mini-de-en --json results/decode_ablation.json
    python bench/ablate_beam.py --checkpoint runs/mini-de-en --n 50 --repeats 1 --json /tmp/decode_ablation.json  # a quick trial

The source sentences are Multi30k test2016's German side (`--src`, else `test_2016_flickr.de.gz` in `--data-dir`, else
in `$TNB_MULTI30K` or the first `shared/data/multi30k` in or above the repository, e.g. ../shared/data/multi30k).

Levers of the decoding cache and of the search's helpers are the library's `Speedups` (`fast_decoding`), named in
`bench/_levers.py` (see the table there): the one-copy cache reorder, the cross-attention cache selected only when
sentences leave, log-probabilities of the kept tokens only, top-k over chunks. Three levers live in the search loop
itself:
- `two_stage_topk`: per-hypothesis top-2k, then the top 2k of those k*2k candidates in float64 (off: one top-2k over
  all k*|V| candidates in float64, as the readable search does); `variant` below;
- `tensor_bookkeeping`: the best finished scores in one tensor, finished hypotheses moved to the host in one transfer
  per step (off: a Python sort per alive sentence per step and one `.item()` per finished hypothesis, as the readable
  search does); `variant` below;
- `best_only`: the tools need only the best hypothesis, so a sentence stops once its best finished one beats the bound
  (`nbest=1`; off: `nbest=beam`, once its k-th best does, as the readable search does).
`variant` is a copy of `beam_search_batch`'s loop with switches for the first two; with both on it must return what
`beam_search_batch` returns (hypotheses and scores), which the script checks first. Then every setting must return
the translations the fast version returns (checked before timing): no lever changes the results. Each setting is
timed `--repeats` times in turn (round robin); medians, and each median's ratio to the full fast version's, same run.
"""
import json, math, statistics, sys, time, datetime
from pathlib import Path
import torch
from transformer_nb.core import PAD_ID
from _common import decode_options, multi30k_file, source_ids, id_batches, command, rel, load_average
from _levers import off, label, BEAM
import transformer_nb.lib.fast_decoding as fd
from transformer_nb.core import BOS_ID, EOS_ID
from transformer_nb.lib.machine import hardware, git_commit, limit_threads
from transformer_nb.lib.checkpoints import model_from_checkpoint
from transformer_nb.lib.datasets import read_lines
from transformer_nb.decoding import length_penalty, beam_search
from transformer_nb.lib.fast_decoding import check_beam, inference, _encode_batch, step_logits, log_probs
from transformer_nb.lib.options import Decoding
from transformer_nb.lib.transformer import with_cache

def variant(model, src, beam=4, alpha=0.6, max_extra=50, nbest=1, two_stage_topk=True, tensor_bookkeeping=True):
    "`beam_search_batch`'s loop with the switches `two_stage_topk` and `tensor_bookkeeping` (see the module docstring)."
    check_beam(model, Decoding(beam, alpha, max_extra))
    with inference(model):
        src, limits, src_mask, memory = _encode_batch(model, src, max_extra)
        (B, _), dev, K, V = src.shape, src.device, beam, model.cfg.tgt_vocab
        lp_cap = length_penalty(limits.double(), alpha)
        finished = [[] for _ in range(B)]
        kbest = torch.full((B, nbest), -math.inf, dtype=torch.float64, device=dev)
        alive = torch.arange(B, device=dev)
        mem, smask, r, n = memory, src_mask, 1, min(2 * K, V)
        ys = torch.full((B, 1), BOS_ID, dtype=torch.long, device=dev)
        scores = torch.zeros(B, 1, dtype=torch.float64, device=dev)
        cache = fd.FastCache(model.cfg.N)
        for t in range(int(limits.max())):
            b = alive.numel()
            with with_cache(model, cache): logits = step_logits(model, model.decode(mem, smask, ys[:, -1:], None)[:, -1])   # 06's step
            if two_stage_topk:
                best_lp, best_tok = fd.topk_log_probs(logits, n)
                if t == 0: best_lp = best_lp.masked_fill(best_tok == EOS_ID, -math.inf)   # EOS never first, as the library's search
                cand = (scores[:, :, None] + best_lp.view(b, r, n)).view(b, r * n)
                top, j = cand.topk(min(2 * K, r * n), dim=1)
                origin, tok = j // n, best_tok.view(b, r * n).gather(1, j)
            else:                                                   # all k*|V| candidates, as the readable search
                lps = log_probs(logits)
                if t == 0: lps[:, EOS_ID] = -math.inf                   # EOS never first, as the library's search
                cand = (scores[:, :, None] + lps.view(b, r, V)).view(b, r * V)
                top, idx = cand.topk(min(2 * K, r * V), dim=1)
                origin, tok = idx // V, idx % V
            eos, lp = tok == EOS_ID, length_penalty(t + 1, alpha)
            if tensor_bookkeeping:
                new = torch.where(eos[:, :K] & top[:, :K].isfinite(), top[:, :K] / lp, -math.inf)
                fd._add_finished(finished, alive, new, lambda i, j: ys[i * r + origin[i, j], 1:])
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
                fd._add_finished(finished, alive, ended, lambda i, k: ys[i * K + k, 1:])
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
            rows = rows.view(b, K)[keep].flatten()
            ys, scores = ys.view(b, K, -1)[keep].flatten(0, 1), scores[keep]
            if tensor_bookkeeping: kbest = kbest[keep]
            changed = keep.numel() < b
            if changed:
                alive = alive[keep]
                mem, smask = memory.index_select(0, alive), src_mask.index_select(0, alive)
            fd._follow_parents(cache, rows, keep if changed else None)
            r = K
        return [[(ids, s) for s, ids in sorted(f, key=lambda x: -x[0])[:nbest]] for f in finished]

FAST = 'fast (all levers)'
READABLE = 'readable beam search (10_decoding)'

def settings(beam:int) -> dict:
    "{name: function(model, src) -> best hypothesis per sentence}: the full fast version, one lever off each, the readable one."
    best = lambda hyps: [h[0][0] for h in hyps]
    def fast(**kw): return lambda m, s: best(fd.beam_search_batch(m, s, beam=beam, nbest=1, **kw))
    def lever_off(name): return lambda m, s: best(fd.beam_search_batch(m, s, beam=beam, nbest=1, speedups=off(name)))
    out = {FAST: fast(),
           'without stopping when the best is certain': lambda m, s: best(fd.beam_search_batch(m, s, beam=beam, nbest=beam)),
           'without two-stage top-k': lambda m, s: best(variant(m, s, beam=beam, two_stage_topk=False)),
           'without tensor bookkeeping': lambda m, s: best(variant(m, s, beam=beam, tensor_bookkeeping=False))}
    out.update({label(name): lever_off(name) for name in BEAM})
    out[READABLE] = lambda m, s: [beam_search(m, r[r != PAD_ID], k=beam)[0][0] for r in s]   # one sentence at a time
    return out

def main(argv=None):
    ap = decode_options(__doc__, 5, 'timings per setting, round robin; the median is kept')
    ap.add_argument('--beam', type=int, default=4)
    a = ap.parse_args(argv)
    limit_threads(a.threads)
    src = Path(a.src) if a.src else multi30k_file('test_2016_flickr.de.gz', a.data_dir)
    model, tok, _ = model_from_checkpoint(a.checkpoint, device='cpu')
    if tok is None: sys.exit(f"{a.checkpoint} holds no tokenizer")
    srcs = source_ids(tok, read_lines(src)[:a.n])
    bs = [s for _, s in id_batches(srcs, a.max_tokens)]
    runs = settings(a.beam)
    run = lambda f: [h for s in bs for h in f(model, s)]
    for s in bs:                                           # the copy in `variant` is the library's search
        ref, got = fd.beam_search_batch(model, s, beam=a.beam, nbest=1), variant(model, s, beam=a.beam)
        assert ref == got, "variant() no longer matches beam_search_batch: update its copy of the loop"
    fast = run(runs[FAST])
    for name, f in runs.items():                           # no lever changes the translations
        assert run(f) == fast, f"{name}: translations differ from the fast beam search's"
    load_before = load_average()
    times = {name: [] for name in runs}
    for rep in range(a.repeats):
        for name, f in runs.items():
            t0 = time.perf_counter(); run(f); times[name].append(time.perf_counter() - t0)
    med = {k: statistics.median(v) for k, v in times.items()}
    base = med[FAST]
    load_after = load_average()
    print(f"# beam {a.beam} on {len(srcs)} sentences of {src.name}; {hardware()}; {a.threads} thread(s); median of "
          f"{a.repeats}; load average {load_before[0]:.1f} -> {load_after[0]:.1f}; every setting's translations identical")
    for k, v in med.items():
        print(f"{k:70} {len(srcs) / v:7.1f} sentences/s  {v / base:5.2f}x the time of the full fast version")
    if a.json:
        rec = dict(date=datetime.datetime.now().isoformat(timespec='seconds'), commit=git_commit(), hardware=hardware(),
                   torch=torch.__version__, threads=a.threads, checkpoint=rel(a.checkpoint), n_sentences=len(srcs),
                   source=src.name, beam=a.beam, max_tokens=a.max_tokens, repeats=a.repeats,
                   load_average_before=load_before, load_average_after=load_after, command=command('ablate_beam.py', argv),
                   results={k: dict(sentences_per_s=round(len(srcs) / v, 1), median_s=round(v, 3),
                                    runs_s=[round(t, 3) for t in times[k]], time_vs_fast=round(v / base, 3))
                            for k, v in med.items()})
        Path(a.json).parent.mkdir(parents=True, exist_ok=True)
        Path(a.json).write_text(json.dumps(rec, indent=1) + '\n')
        print(f"# wrote {a.json}")

if __name__ == '__main__': main()
