"""The twenty-seventh blind set's answers, for notebooks 08 to 14 only (08_data ... 14_since_2017), written from the
exercises' text alone: (notebook, exercise, mistake, code), the mistake None for the right answer.
`experiments/blind_answers.py 27` runs them. This set goes where the earlier sets for these notebooks did not: answers
right for the default arguments only (a keyword ignored, the example's sizes hard-coded), answers that return a
generator, a tuple, a dict, a list, a NumPy array or a tensor where another container is asked, state changed behind
the caller's back (inputs edited or consumed in place, a default mutable cache, the random seed reset), autograd cut
(.item(), no_grad), other sources' conventions not tried before (subword-nmt's min_frequency, GPT-2's byte-level
symbols and bpe_ranks, tokenizer.json's list merges, minbpe's one stream; the Annotated Transformer's factor 2, Hugging
Face's and fairseq's inverse-sqrt schedules, F.cross_entropy's default ignore_index; greedy_decode's keepdim, a cache
habit, torch.multinomial; sacreBLEU's -lc and its result's parts; Vinyals et al.'s figure, the PTB's empty root;
LLaMA's eps and float32, F.normalize), the text read slightly wrong (inclusive bounds, one sign counted, the other
argument order, the other count order) and numerics (integer division, a sum for a mean, an unclamped penalty).
The right answers are the twenty-second set's."""
ANSWERS = []
def A(nb, ex, mistake, code): ANSWERS.append((nb, ex, mistake, code))
nb = '08_data'
MERGE = """
def _merge(syms, pair):
    i = 0
    while i < len(syms) - 1:
        if (syms[i], syms[i + 1]) == pair: syms[i:i + 2] = [syms[i] + syms[i + 1]]
        else: i += 1
    return syms
"""
SEG = """
def segment(word, merges):
    syms = list(word) + ['</w>']
    for pair in merges: syms = _merge(syms, pair)
    return syms
"""
def LEARN(vocab="{tuple(w) + ('</w>',): c for w, c in word_counts.items()}", count="""
        for syms, c in vocab.items():
            for a, b in zip(syms, syms[1:]): pairs[a, b] += c""", best="min(pairs, key=lambda p: (-pairs[p], p))",
          rounds="range(n_merges)", apply="vocab = {tuple(_merge(list(syms), best)): c for syms, c in vocab.items()}",
          ret="merges", pre=""):
    return f"""
def learn_bpe(word_counts, n_merges):
    {pre}vocab = {vocab}
    merges = []
    for _ in {rounds}:
        pairs = Counter(){count}
        if not pairs: break
        best = {best}
        merges.append(best)
        {apply}
    return {ret}
"""
A(nb, 'bpe', None, MERGE + LEARN() + SEG)
A(nb, 'bpe', "symbols kept as one space-joined string and merged with str.replace (Sennrich's listing without its regex boundaries)", """
def learn_bpe(word_counts, n_merges):
    vocab = {' '.join(list(w) + ['</w>']): c for w, c in word_counts.items()}
    merges = []
    for _ in range(n_merges):
        pairs = Counter()
        for s, c in vocab.items():
            syms = s.split()
            for a, b in zip(syms, syms[1:]): pairs[a, b] += c
        if not pairs: break
        best = min(pairs, key=lambda p: (-pairs[p], p))
        merges.append(best)
        vocab = {s.replace(' '.join(best), ''.join(best)): c for s, c in vocab.items()}
    return merges
def segment(word, merges):
    s = ' '.join(list(word) + ['</w>'])
    for p in merges: s = s.replace(' '.join(p), ''.join(p))
    return s.split()
""")
A(nb, 'bpe', "subword-nmt's min_frequency 2: stops once the best pair occurs once",
  MERGE + LEARN(best="min(pairs, key=lambda p: (-pairs[p], p))\n        if pairs[best] < 2: break") + SEG)
A(nb, 'bpe', "segment without the '</w>' learn_bpe adds", MERGE + LEARN() + SEG.replace("list(word) + ['</w>']", "list(word)"))
A(nb, 'bpe', 'each merge applied to its first occurrence in a word only', """
def _merge(syms, pair):
    for i in range(len(syms) - 1):
        if (syms[i], syms[i + 1]) == pair: syms[i:i + 2] = [syms[i] + syms[i + 1]]; break
    return syms
""" + LEARN() + SEG)
A(nb, 'bpe', "a pair's occurrences merged from the right ('a a a' -> 'a aa')", """
def _merge(syms, pair):
    i = len(syms) - 2
    while i >= 0:
        if (syms[i], syms[i + 1]) == pair: syms[i:i + 2] = [syms[i] + syms[i + 1]]; i -= 2
        else: i -= 1
    return syms
""" + LEARN() + SEG)
A(nb, 'bpe', 'n_merges - 1 rounds: range(1, n_merges)', MERGE + LEARN(rounds="range(1, n_merges)") + SEG)
A(nb, 'bpe', "GPT-2's bpe_ranks: a dict pair -> rank, not the list", MERGE + LEARN(ret="{p: r for r, p in enumerate(merges)}") + SEG)
A(nb, 'bpe', 'learn_bpe a generator (yield each merge), not a list', MERGE + """
def learn_bpe(word_counts, n_merges):
    vocab = {tuple(w) + ('</w>',): c for w, c in word_counts.items()}
    for _ in range(n_merges):
        pairs = Counter()
        for syms, c in vocab.items():
            for a, b in zip(syms, syms[1:]): pairs[a, b] += c
        if not pairs: return
        best = min(pairs, key=lambda p: (-pairs[p], p))
        yield best
        vocab = {tuple(_merge(list(syms), best)): c for syms, c in vocab.items()}
""" + SEG)
A(nb, 'bpe', "word_counts emptied with pop (the caller's dict consumed)",
  MERGE + LEARN(vocab="{tuple(w) + ('</w>',): word_counts.pop(w) for w in list(word_counts)}") + SEG)
A(nb, 'bpe', "GPT-2's byte-level symbols: a word's UTF-8 bytes (an umlaut is two symbols)",
  MERGE + LEARN(vocab="{tuple(chr(b) for b in w.encode('utf-8')) + ('</w>',): c for w, c in word_counts.items()}")
  + SEG.replace("list(word) + ['</w>']", "[chr(b) for b in word.encode('utf-8')] + ['</w>']"))
A(nb, 'bpe', "pairs counted over one stream of all the words, across word ends (minbpe's text)", MERGE + LEARN(count="""
        stream = [s for syms, c in vocab.items() for _ in range(c) for s in syms]
        for a, b in zip(stream, stream[1:]): pairs[a, b] += 1""") + SEG)
A(nb, 'bpe', 'ties to the first pair counted: max(pairs, key=pairs.get)', MERGE + LEARN(best="max(pairs, key=pairs.get)") + SEG)
A(nb, 'bpe', 'segment caches by word in a default dict argument (stale for other merges)', MERGE + LEARN() + """
def segment(word, merges, cache={}):
    if word in cache: return cache[word]
    syms = list(word) + ['</w>']
    for pair in merges: syms = _merge(syms, pair)
    cache[word] = syms
    return syms
""")
A(nb, 'bpe', "merges as 2-lists ['e', 's'], as tokenizer.json's newer format", MERGE + LEARN(ret="[list(p) for p in merges]")
  + SEG.replace("_merge(syms, pair)", "_merge(syms, tuple(pair))"))
A(nb, 'bpe', 'each distinct word counted once (its count ignored)', MERGE + LEARN(vocab="{tuple(w) + ('</w>',): 1 for w in word_counts}") + SEG)
nb = '09_training'
def NOAM(body, sig="step, d_model=512, warmup=4000"): return f"""
def my_noam_lr({sig}):
    {body}
"""
def LS(body): return f"""
def my_label_smoothing(logits, target, eps, pad_id=PAD_ID):
    {body}
"""
Q = ("V = logits.shape[-1]\n    q = torch.full_like(logits, eps / V)\n"
     "    q.scatter_add_(-1, target[..., None], torch.full_like(logits[..., :1], 1 - eps))\n")
A(nb, 'my_noam_lr', None, NOAM("if step == 0: return 0.0\n    return d_model ** -0.5 * min(step ** -0.5, step * warmup ** -1.5)"))
A(nb, 'my_label_smoothing', None, LS(Q + "    loss = -(q * logits.log_softmax(-1)).sum(-1)\n    return loss[target != pad_id].mean()"))
PEAK = "d_model ** -0.5 * min(step ** -0.5, step * warmup ** -1.5)"
A(nb, 'my_noam_lr', 'd_model ignored: 512 hard-coded (right for the default only)', NOAM("if step == 0: return 0.0\n    return 512 ** -0.5 * min(step ** -0.5, step * warmup ** -1.5)"))
A(nb, 'my_noam_lr', 'warmup ignored: 4000 hard-coded (right for the default only)', NOAM("if step == 0: return 0.0\n    return d_model ** -0.5 * min(step ** -0.5, step * 4000 ** -1.5)"))
A(nb, 'my_noam_lr', 'returned as a float32 tensor', NOAM(f"if step == 0: return torch.tensor(0.0)\n    return torch.tensor({PEAK})"))
A(nb, 'my_noam_lr', "the Annotated Transformer's NoamOpt factor 2", NOAM(f"if step == 0: return 0.0\n    return 2 * {PEAK}"))
A(nb, 'my_noam_lr', "Hugging Face's inverse-sqrt multiplier (peak 1), no d_model^-0.5 warmup^-0.5",
  NOAM("if step == 0: return 0.0\n    return step / warmup if step < warmup else (warmup / step) ** 0.5"))
A(nb, 'my_noam_lr', "fairseq's inverse_sqrt with its peak lr 5e-4", NOAM("if step == 0: return 0.0\n    return 5e-4 * min(step / warmup, (warmup / step) ** 0.5)"))
A(nb, 'my_noam_lr', 'returns (lr, phase)', NOAM(f"if step == 0: return 0.0, 'warmup'\n    return {PEAK}, ('warmup' if step < warmup else 'decay')"))
A(nb, 'my_noam_lr', 'nothing returned at step 0 (None)', NOAM(f"if step > 0: return {PEAK}"))
LOSS = "    loss = -(q * logits.log_softmax(-1)).sum(-1)\n"
A(nb, 'my_label_smoothing', 'pad positions zeroed, then the mean over all positions', LS(Q + LOSS + "    return loss.masked_fill(target == pad_id, 0).mean()"))
A(nb, 'my_label_smoothing', "fairseq's summed loss, not divided by the tokens", LS(Q + LOSS + "    return loss[target != pad_id].sum()"))
A(nb, 'my_label_smoothing', "F.cross_entropy's default ignore_index (-100): padding scored",
  LS("return F.cross_entropy(logits.reshape(-1, logits.shape[-1]), target.reshape(-1), label_smoothing=eps)"))
A(nb, 'my_label_smoothing', 'scatter_ overwrites the reference: 1 - eps there, q sums to 1 - eps/V',
  LS("V = logits.shape[-1]\n    q = torch.full_like(logits, eps / V).scatter_(-1, target[..., None], 1 - eps)\n" + LOSS + "    return loss[target != pad_id].mean()"))
A(nb, 'my_label_smoothing', 'pad_id ignored: PAD_ID hard-coded', LS(Q + LOSS + "    return loss[target != PAD_ID].mean()"))
A(nb, 'my_label_smoothing', "the caller's logits zeroed at pad positions in place", LS("logits[target == pad_id] = 0\n    " + Q + LOSS + "    return loss[target != pad_id].mean()"))
A(nb, 'my_label_smoothing', 'returns loss.item(): a float, no gradient', LS(Q + LOSS + "    return loss[target != pad_id].mean().item()"))
A(nb, 'my_label_smoothing', 'the loss computed under torch.no_grad()', LS(Q + "    with torch.no_grad(): loss = -(q * logits.log_softmax(-1)).sum(-1)\n    return loss[target != pad_id].mean()"))
A(nb, 'my_label_smoothing', 'log_softmax over dim 1 (right for (N, V) logits only)', LS(Q + "    loss = -(q * logits.log_softmax(1)).sum(-1)\n    return loss[target != pad_id].mean()"))
A(nb, 'my_label_smoothing', 'computed and returned in float64', LS("logits = logits.double()\n    " + Q + LOSS + "    return loss[target != pad_id].mean()"))
nb = '10_decoding'
def STEP(body): return f"""
def my_greedy_step(model, src, ys):
    {body}
"""
A(nb, 'my_greedy_step', None, STEP("logits = model(src, ys)[:, -1]\n    return next_token_logits(logits).argmax(-1)"))
LAST = "logits = model(src, ys)[:, -1]\n    "
A(nb, 'my_greedy_step', "argmax with keepdim=True: (B, 1), as greedy_decode's cat wants", STEP(LAST + "return next_token_logits(logits).argmax(-1, keepdim=True)"))
A(nb, 'my_greedy_step', 'a Python list of ids (.tolist())', STEP(LAST + "return next_token_logits(logits).argmax(-1).tolist()"))
A(nb, 'my_greedy_step', 'PAD forbidden, BOS not', STEP(LAST + "logits[:, PAD_ID] = float('-inf')\n    return logits.argmax(-1)"))
A(nb, 'my_greedy_step', 'the decoder given only the last token (a cache habit without the cache)', STEP("logits = model(src, ys[:, -1:])[:, -1]\n    return next_token_logits(logits).argmax(-1)"))
A(nb, 'my_greedy_step', 'BOS stripped from the prefix: model(src, ys[:, 1:])', STEP("logits = model(src, ys[:, 1:])[:, -1]\n    return next_token_logits(logits).argmax(-1)"))
A(nb, 'my_greedy_step', 'sampled with torch.multinomial, not the argmax', STEP(LAST + "return torch.multinomial(next_token_logits(logits).softmax(-1), 1)[:, 0]"))
A(nb, 'my_greedy_step', 'topk(1).indices.squeeze(): a batch of one gives a 0-d tensor', STEP(LAST + "return next_token_logits(logits).topk(1).indices.squeeze()"))
A(nb, 'my_greedy_step', 'the ids as floats', STEP(LAST + "return next_token_logits(logits).argmax(-1).float()"))
A(nb, 'my_greedy_step', 'log-probabilities with PAD and BOS set to 0, not -inf',
  STEP("logp = model(src, ys)[:, -1].log_softmax(-1)\n    logp[:, [PAD_ID, BOS_ID]] = 0\n    return logp.argmax(-1)"))
A(nb, 'my_greedy_step', 'EOS forbidden instead of BOS', STEP(LAST + "logits[:, [PAD_ID, EOS_ID]] = float('-inf')\n    return logits.argmax(-1)"))
A(nb, 'my_greedy_step', 'model(ys, src): the arguments swapped', STEP("logits = model(ys, src)[:, -1]\n    return next_token_logits(logits).argmax(-1)"))
A(nb, 'my_greedy_step', 'returns logits.max(-1): the (values, indices) pair', STEP(LAST + "return next_token_logits(logits).max(-1)"))
A(nb, 'my_greedy_step', 'next_token_logits on the (B, t, V) logits, before [:, -1]', STEP("return next_token_logits(model(src, ys))[:, -1].argmax(-1)"))
A(nb, 'my_greedy_step', "torch.manual_seed(0) inside the step (the caller's random state reset)",
  STEP("torch.manual_seed(0)\n    " + LAST + "return next_token_logits(logits).argmax(-1)"))
A(nb, 'my_greedy_step', 'BOS prepended again (ys already starts with it)',
  STEP("logits = model(src, torch.cat([torch.full_like(ys[:, :1], BOS_ID), ys], 1))[:, -1]\n    return next_token_logits(logits).argmax(-1)"))
nb = '11_results'
NGR = "ngrams = lambda ws, n: Counter(tuple(ws[i:i + n]) for i in range(len(ws) - n + 1))"
def BLEU(clip="sum((ngrams(h, n) & ngrams(ref, n)).values())", total="max(len(h) - n + 1, 0)", orders="range(1, 5)",
         bp="min(1.0, math.exp(1 - r / c))", ret="100 * bp * math.exp(sum(math.log(m / t) for m, t in zip(match, total)) / K)",
         pre="", loop="zip(hyps, refs)", split="h, ref = h.split(), ref.split()"):
    return f"""
def my_bleu(hyps, refs):
    {NGR}
    K = len({orders})
    match, total, c, r = [0] * K, [0] * K, 0, 0
    {pre}for h, ref in {loop}:
        {split}
        c, r = c + len(h), r + len(ref)
        for n in {orders}:
            match[n - 1] += {clip}
            total[n - 1] += {total}
    bp = {bp}
    return {ret}
"""
A(nb, 'my_bleu', None, BLEU())
LOGS = "sum(math.log(m / t) for m, t in zip(match, total))"
A(nb, 'my_bleu', 'BLEU from 0 to 1, not 0 to 100', BLEU(ret=f"bp * math.exp({LOGS} / K)"))
A(nb, 'my_bleu', "each order's precision averaged over the sentences, lengths summed", f"""
def my_bleu(hyps, refs):
    {NGR}
    ps, c, r = [[] for _ in range(4)], 0, 0
    for h, ref in zip(hyps, refs):
        h, ref = h.split(), ref.split()
        c, r = c + len(h), r + len(ref)
        for n in range(1, 5):
            t = max(len(h) - n + 1, 0)
            if t: ps[n - 1].append(sum((ngrams(h, n) & ngrams(ref, n)).values()) / t)
    bp = min(1.0, math.exp(1 - r / c))
    return 100 * bp * math.exp(sum(math.log(sum(p) / len(p)) for p in ps) / 4)
""")
A(nb, 'my_bleu', 'the brevity penalty averaged over the sentences',
  BLEU(bp="sum(min(1.0, math.exp(1 - len(b.split()) / len(a.split()))) for a, b in zip(hyps, refs)) / len(hyps)"))
A(nb, 'my_bleu', 'no min(1, .): a longer output gets a bonus', BLEU(bp="math.exp(1 - r / c)"))
A(nb, 'my_bleu', 'the arithmetic mean of the precisions', BLEU(ret="100 * bp * sum(m / t for m, t in zip(match, total)) / K"))
A(nb, 'my_bleu', 'matches counted as n-gram types (set intersection)', BLEU(clip="len(set(ngrams(h, n)) & set(ngrams(ref, n)))"))
A(nb, 'my_bleu', "the reference's n-grams as the denominator", BLEU(total="max(len(ref) - n + 1, 0)"))
A(nb, 'my_bleu', 'orders 1 to 3: range(1, 4)', BLEU(orders="range(1, 4)"))
A(nb, 'my_bleu', "split(' '): a run of spaces gives empty tokens", BLEU(split="h, ref = h.split(' '), ref.split(' ')"))
A(nb, 'my_bleu', "lowercased (sacreBLEU's -lc)", BLEU(split="h, ref = h.lower().split(), ref.lower().split()"))
A(nb, 'my_bleu', "returns (score, precisions, bp), as sacreBLEU's result holds them",
  BLEU(ret=f"(100 * bp * math.exp({LOGS} / K), [100 * m / t for m, t in zip(match, total)], bp)"))
A(nb, 'my_bleu', 'add-one smoothing on every order', BLEU(ret="100 * bp * math.exp(sum(math.log((m + 1) / (t + 1)) for m, t in zip(match, total)) / K)"))
A(nb, 'my_bleu', 'my_bleu(refs, hyps): the arguments read the other way', BLEU(loop="zip(refs, hyps)"))
A(nb, 'my_bleu', "hyps split in place in the caller's list", BLEU(pre="for i, s in enumerate(hyps): hyps[i] = s.split()\n    ", split="h, ref = h, ref.split()"))
A(nb, 'my_bleu', 'the product of the precisions, not their 4th root', BLEU(ret=f"100 * bp * math.exp({LOGS})"))
nb = '12_variations'
def NOISE(base="next(r['bleu'] for r in recs if r['id'] == 'base')",
          noise="max(abs(r['bleu'] - base) for r in recs if r['variant'] == 'base' and r['id'] != 'base')",
          ret="[r['id'] for r in recs if r['variant'] != 'base' and abs(r['bleu'] - base) > noise]", pre=""):
    return f"""
def beyond_noise(recs):
    {pre}base = {base}
    noise = {noise}
    return {ret}
"""
def HEADS(body): return f"""
def heads_looking(w, rows, col):
    {body}
"""
def AB(a="{f'A-h{k}': dict(h=k, d_k=d // k, d_v=d // k) for k in (max(1, h // 8), h // 2, 2 * h, 4 * h)}",
       b="{f'B-dk{k}': dict(d_k=k, d_v=d_k) for k in (d_k // 4, d_k // 2)}", dk="base.get('d_k') or d // h", ret=None, pre=""):
    return f"""
def rows_ab(base):
    {pre}d, h = base['d_model'], base['h']; d_k = {dk}
    return {ret or '{**' + a + ', **' + b + '}'}
"""
A(nb, 'beyond_noise', None, NOISE())
A(nb, 'heads_looking', None, HEADS("return [h + 1 for h in range(w.shape[0]) if all(w[h, r].argmax() == col for r in rows)]"))
A(nb, 'rows_ab', None, AB())
A(nb, 'beyond_noise', "the spread read as the seeds' standard deviation", NOISE(pre="import statistics\n    ",
  noise="statistics.stdev([r['bleu'] for r in recs if r['variant'] == 'base'])"))
A(nb, 'beyond_noise', 'a difference equal to the spread counted (>=)', NOISE(ret="[r['id'] for r in recs if r['variant'] != 'base' and abs(r['bleu'] - base) >= noise]"))
A(nb, 'beyond_noise', 'only improvements counted (no abs)', NOISE(ret="[r['id'] for r in recs if r['variant'] != 'base' and r['bleu'] - base > noise]"))
A(nb, 'beyond_noise', 'a set of ids (order lost)', NOISE(ret="{r['id'] for r in recs if r['variant'] != 'base' and abs(r['bleu'] - base) > noise}"))
A(nb, 'beyond_noise', "base's BLEU the mean of the base runs", NOISE(base="sum(r['bleu'] for r in recs if r['variant'] == 'base') / sum(r['variant'] == 'base' for r in recs)"))
A(nb, 'beyond_noise', 'the spread the range (max - min) of the base runs',
  NOISE(noise="max(r['bleu'] for r in recs if r['variant'] == 'base') - min(r['bleu'] for r in recs if r['variant'] == 'base')"))
A(nb, 'beyond_noise', 'the records, not their ids', NOISE(ret="[r for r in recs if r['variant'] != 'base' and abs(r['bleu'] - base) > noise]"))
A(nb, 'beyond_noise', 'base taken as the first record', NOISE(base="recs[0]['bleu']"))
A(nb, 'heads_looking', 'any row of rows, not every row', HEADS("return [h + 1 for h in range(w.shape[0]) if any(w[h, r].argmax() == col for r in rows)]"))
A(nb, 'heads_looking', 'the query looking hardest at col is in rows (argmax over the queries)', HEADS("return [h + 1 for h in range(w.shape[0]) if w[h, :, col].argmax() in rows]"))
A(nb, 'heads_looking', "the rows' mean weights put their largest on col", HEADS("return [h + 1 for h in range(w.shape[0]) if w[h, rows].mean(0).argmax() == col]"))
A(nb, 'heads_looking', 'a tensor of head numbers (nonzero() + 1)', HEADS("return (w[:, rows].argmax(-1) == col).all(1).nonzero().flatten() + 1"))
A(nb, 'heads_looking', 'a weight above 0.5 on col, not the largest', HEADS("return [h + 1 for h in range(w.shape[0]) if all(w[h, r, col] > 0.5 for r in rows)]"))
A(nb, 'rows_ab', "base's d_k ignored: d // h", AB(dk="d // h"))
A(nb, 'rows_ab', 'h // 8 without max(1, .)', AB(a="{f'A-h{k}': dict(h=k, d_k=d // k, d_v=d // k) for k in (h // 8, h // 2, 2 * h, 4 * h)}"))
A(nb, 'rows_ab', 'row (B) changes d_v too', AB(b="{f'B-dk{k}': dict(d_k=k, d_v=k) for k in (d_k // 4, d_k // 2)}"))
A(nb, 'rows_ab', "the paper's numbers hard-coded (1, 4, 16, 32 heads; d_k 16, 32)",
  AB(a="{f'A-h{k}': dict(h=k, d_k=d // k, d_v=d // k) for k in (1, 4, 16, 32)}", b="{f'B-dk{k}': dict(d_k=k, d_v=d_k) for k in (16, 32)}"))
A(nb, 'rows_ab', "d_k written into the caller's base (a PRESETS entry edited)", AB(pre="base['d_k'] = base.get('d_k') or base['d_model'] // base['h']\n    "))
nb = '13_parsing'
def LIN(leaf="return tree[0]", lab="coarse_label(tree.label())", close="f'){lab}'", kids="tree", pre=""):
    return f"""
def my_linearize(tree):
    {pre}if isinstance(tree, str): return tree
    if is_preterminal(tree): {leaf}
    lab = {lab}
    return ' '.join([f'({{lab}}', *(my_linearize(t) for t in {kids}), {close}])
"""
def PRF(body): return f"""
def my_corpus_prf(counts):
    {body}
"""
RIGHT_PRF = "m, g, t = (sum(c[i] for c in counts) for i in range(3))\n    p, r = 100 * m / t, 100 * m / g\n    return p, r, 2 * p * r / (p + r)"
A(nb, 'my_linearize', None, LIN())
A(nb, 'my_corpus_prf', None, PRF(RIGHT_PRF))
RIGHT_LIN = LIN()
A(nb, 'my_linearize', 'the closing bracket with the raw label (tags and indices kept)', LIN(close="f'){tree.label()}'"))
A(nb, 'my_linearize', "labels cut at '-' only (NP=1 kept)", LIN(lab="tree.label().split('-')[0]"))
A(nb, 'my_linearize', 'a list of tokens, not a string', """
def my_linearize(tree):
    if isinstance(tree, str): return [tree]
    if is_preterminal(tree): return [tree[0]]
    lab = coarse_label(tree.label())
    return [f'({lab}', *(tok for t in tree for tok in my_linearize(t)), f'){lab}']
""")
A(nb, 'my_linearize', 'words lowercased', LIN(leaf="return tree[0].lower()"))
A(nb, 'my_linearize', "the top node's brackets left out (the PTB's empty ROOT habit)", RIGHT_LIN.replace('def my_linearize(tree)', 'def _lin(tree)').replace('my_linearize(t)', '_lin(t)')
  + "\ndef my_linearize(tree): return ' '.join(_lin(t) for t in tree)\n")
A(nb, 'my_linearize', "the closing bracket written 'NP)'", LIN(close="f'{lab})'"))
A(nb, 'my_linearize', "Vinyals et al.'s figure: POS tags at the leaves, not the words", LIN(leaf="return tree.label()"))
A(nb, 'my_linearize', 'a generator of tokens', """
def my_linearize(tree):
    def walk(t):
        if isinstance(t, str): yield t; return
        if is_preterminal(t): yield t[0]; return
        lab = coarse_label(t.label()); yield f'({lab}'
        for c in t: yield from walk(c)
        yield f'){lab}'
    return walk(tree)
""")
A(nb, 'my_linearize', "the index stripped, the function tag kept (split('='))", LIN(lab="tree.label().split('=')[0]"))
SUMS = "m, g, t = (sum(c[i] for c in counts) for i in range(3))\n    "
A(nb, 'my_corpus_prf', "F1 the mean of the sentences' F1s, P and R summed",
  PRF(SUMS + "p, r = 100 * m / t, 100 * m / g\n    fs = [200 * a / (b + c) if b + c else 0 for a, b, c in counts]\n    return p, r, sum(fs) / len(fs)"))
A(nb, 'my_corpus_prf', 'counts read as (matched, parse, reference)', PRF("m, t, g = (sum(c[i] for c in counts) for i in range(3))\n    p, r = 100 * m / t, 100 * m / g\n    return p, r, 2 * p * r / (p + r)"))
A(nb, 'my_corpus_prf', 'fractions from 0 to 1, not percent', PRF(SUMS + "p, r = m / t, m / g\n    return p, r, 2 * p * r / (p + r)"))
A(nb, 'my_corpus_prf', 'a dict of the three', PRF(SUMS + "p, r = 100 * m / t, 100 * m / g\n    return {'precision': p, 'recall': r, 'f1': 2 * p * r / (p + r)}"))
A(nb, 'my_corpus_prf', 'summed as a torch tensor: three 0-d tensors', PRF("m, g, t = torch.tensor(counts).sum(0)\n    p, r = 100 * m / t, 100 * m / g\n    return p, r, 2 * p * r / (p + r)"))
A(nb, 'my_corpus_prf', 'floor division: 100 * m // t', PRF(SUMS + "p, r = 100 * m // t, 100 * m // g\n    return p, r, 2 * p * r / (p + r)"))
A(nb, 'my_corpus_prf', 'a generator of the three', PRF(SUMS + "p, r = 100 * m / t, 100 * m / g\n    return (x for x in (p, r, 2 * p * r / (p + r)))"))
A(nb, 'my_corpus_prf', 'failed parses (no brackets) left out of the sums', PRF("counts = [c for c in counts if c[2] > 0]\n    " + RIGHT_PRF))
nb = '14_since_2017'
def RMS(body, sig="a, g, eps=1e-5"): return f"""
def rms_norm_of({sig}):
    {body}
"""
def ROT(body): return f"""
def rotate_query(q, m):
    {body}
"""
def GRP(body): return f"""
def group_heads(k, g):
    B, h, n, d = k.shape
    {body}
"""
A(nb, 'rms_norm_of', None, RMS("return a / torch.sqrt(a.pow(2).mean(-1, keepdim=True) + eps) * g"))
A(nb, 'rotate_query', None, ROT(
  "a = m * 10000.0 ** (-torch.arange(0, len(q), 2, dtype=torch.float64) / len(q))\n    x1, x2 = q[0::2].double(), q[1::2].double()\n"
  "    return torch.stack([x1 * a.cos() - x2 * a.sin(), x1 * a.sin() + x2 * a.cos()], -1).flatten().to(q.dtype)"))
A(nb, 'group_heads', None, GRP("return k.view(B, g, h // g, n, d).mean(2).repeat_interleave(h // g, dim=1)"))
A(nb, 'rms_norm_of', 'eps added to the root, not under it', RMS("return a / (a.pow(2).mean(-1, keepdim=True).sqrt() + eps) * g"))
A(nb, 'rms_norm_of', 'F.normalize(a) * sqrt(d): eps a clamp on the norm', RMS("return F.normalize(a, dim=-1) * a.shape[-1] ** 0.5 * g"))
A(nb, 'rms_norm_of', "eps ignored: LLaMA's 1e-6 hard-coded", RMS("return a / torch.sqrt(a.pow(2).mean(-1, keepdim=True) + 1e-6) * g"))
A(nb, 'rms_norm_of', "LLaMA's a.float(), returned in float32 for a float64 input", RMS("x = a.float()\n    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * g.float()"))
A(nb, 'rms_norm_of', "the squares' sum divided by a.shape[0], not the last axis's size", RMS("return a / torch.sqrt(a.pow(2).sum(-1, keepdim=True) / a.shape[0] + eps) * g"))
A(nb, 'rms_norm_of', 'a NumPy array', RMS("import numpy as np\n    x = a.detach().numpy()\n    return x / np.sqrt((x ** 2).mean(-1, keepdims=True) + eps) * g.detach().numpy()"))
A(nb, 'rms_norm_of', "the caller's a normalised in place", RMS("a /= torch.sqrt(a.pow(2).mean(-1, keepdim=True) + eps)\n    a *= g\n    return a"))
ROT_OUT = "    return torch.stack([x1 * a.cos() - x2 * a.sin(), x1 * a.sin() + x2 * a.cos()], -1).flatten().to(q.dtype)"
X12 = "    x1, x2 = q[0::2].double(), q[1::2].double()\n"
A(nb, 'rotate_query', 'theta_i = 10000^(-i/d): the 2 dropped', ROT("a = m * 10000.0 ** (-torch.arange(len(q) // 2, dtype=torch.float64) / len(q))\n" + X12 + ROT_OUT))
A(nb, 'rotate_query', "the pairs written back into q in place (the second line reads the new x1)", ROT(
  "a = m * 10000.0 ** (-torch.arange(0, len(q), 2, dtype=torch.float64) / len(q))\n    c, s = a.cos().to(q.dtype), a.sin().to(q.dtype)\n"
  "    x1, x2 = q[0::2], q[1::2]\n    q[0::2] = x1 * c - x2 * s\n    q[1::2] = x1 * s + x2 * c\n    return q"))
A(nb, 'rotate_query', 'd hard-coded 64', ROT("a = m * 10000.0 ** (-torch.arange(0, len(q), 2, dtype=torch.float64) / 64)\n" + X12 + ROT_OUT))
LOOP = """out = q.clone()
    for i in range(len(q) // 2):
        th = {th}
        c, s = math.cos(m * th), math.sin(m * th)
        out[2 * i], out[2 * i + 1] = q[2 * i] * c - q[2 * i + 1] * s, q[2 * i] * s + q[2 * i + 1] * c
{ret}"""
A(nb, 'rotate_query', 'a loop with 2 * i // d (integer division)', ROT(LOOP.format(th="10000 ** (-(2 * i // len(q)))", ret="    return out")))
A(nb, 'rotate_query', 'return inside the loop: only the first pair turned', ROT(LOOP.format(th="10000 ** (-2 * i / len(q))", ret="        return out")))
A(nb, 'rotate_query', 'a Python list (.tolist())', ROT("a = m * 10000.0 ** (-torch.arange(0, len(q), 2, dtype=torch.float64) / len(q))\n" + X12 + ROT_OUT + ".tolist()"))
A(nb, 'group_heads', "each group's first head, not the mean", GRP("return k[:, ::h // g].repeat_interleave(h // g, dim=1)"))
A(nb, 'group_heads', "the result written into the caller's k", GRP("k.copy_(k.view(B, g, h // g, n, d).mean(2).repeat_interleave(h // g, dim=1))\n    return k"))
A(nb, 'group_heads', '5-d (B, g, h/g, n, d) returned, not reshaped', GRP("return k.view(B, g, h // g, n, d).mean(2, keepdim=True).expand(B, g, h // g, n, d)"))
A(nb, 'group_heads', "the group's sum divided by g, not by h/g", GRP("return (k.view(B, g, h // g, n, d).sum(2) / g).repeat_interleave(h // g, dim=1)"))
A(nb, 'group_heads', "a NumPy array (np.repeat)", GRP("import numpy as np\n    return np.repeat(k.view(B, g, h // g, n, d).mean(2).numpy(), h // g, axis=1)"))
