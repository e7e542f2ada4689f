"""The twenty-fifth blind set's answers, for notebooks 08 to 14 only, written from the exercises' text alone: (notebook,
exercise, mistake, code), the mistake None for the right answer. `experiments/blind_answers.py 25` runs them. This set
leans toward what the earlier sets for these notebooks left: other sources' conventions not yet tried (subword-nmt's
'</w>' glued to the last character, Hugging Face's merges.txt strings and its vocab_size, fastBPE's space-joined output;
PyTorch's LambdaLR counting from 0, Hugging Face's max(1, step), get_last_lr()'s list, warm-up read as a ratio; the
Annotated Transformer's eps/(V - 2) with the pad column zeroed, F.cross_entropy's ignore_index and class axis,
fairseq's sentence average; Hugging Face's generate returning the whole sequence, its EOS ban, teacher forcing's
ys[:, :-1]; sacreBLEU's formatted score, the paper's one decimal, character n-grams; nltk's collapse_unary, EVALB's
two decimals; fairseq's d/2 - 1 exponents, LLaMA 3's rope_theta, Hugging Face's repeat_kv), the text read slightly
wrong (an argument read from its name, inclusive bounds, the other argument order), answers right for one batch
element or one layout only, numerics (floor division, log of a softmax, float32 angles, a formula copied with Python's
precedence), state changed behind the caller's back (inputs and records edited in place), and right values in the
wrong container, dtype or shape. The right answers are the twenty-second set's."""
ANSWERS = []
def A(nb, ex, mistake, code): ANSWERS.append((nb, ex, mistake, code))

# 08_data: learn_bpe, segment
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
A(nb, 'bpe', "subword-nmt's end of word: '</w>' glued to the last character ('w</w>'), not a symbol of its own",
  MERGE + LEARN(vocab="{tuple(w[:-1]) + (w[-1] + '</w>',): c for w, c in word_counts.items()}") + """
def segment(word, merges):
    syms = list(word[:-1]) + [word[-1] + '</w>']
    for pair in merges: syms = _merge(syms, pair)
    return syms
""")
A(nb, 'bpe', "ties broken by the joined string: min(pairs, key=lambda p: (-pairs[p], p[0] + p[1]))",
  MERGE + LEARN(best="min(pairs, key=lambda p: (-pairs[p], p[0] + p[1]))") + SEG)
A(nb, 'bpe', 'pairs merged right to left (a C loop from the end): aaa -> a aa', """
def _merge(syms, pair):
    i = len(syms) - 2
    while i >= 0:
        if (syms[i], syms[i + 1]) == pair: syms[i:i + 2] = [syms[i] + syms[i + 1]]; i -= 2
        else: i -= 1
    return syms
""" + LEARN() + SEG)
A(nb, 'bpe', "Hugging Face's merges.txt lines: each merge the string 'e s', not a tuple",
  MERGE + LEARN(ret="[' '.join(p) for p in merges]") + """
def segment(word, merges):
    syms = list(word) + ['</w>']
    for m in merges: syms = _merge(syms, tuple(m.split(' ')))
    return syms
""")
A(nb, 'bpe', "fastBPE's output: the pieces joined with spaces into one string", MERGE + LEARN() + """
def segment(word, merges):
    syms = list(word) + ['</w>']
    for pair in merges: syms = _merge(syms, pair)
    return ' '.join(syms)
""")
A(nb, 'bpe', "the caller's word_counts rewritten in place into the merged vocabulary", MERGE + """
def learn_bpe(word_counts, n_merges):
    vocab = {tuple(w) + ('</w>',): c for w, c in word_counts.items()}
    word_counts.clear(); word_counts.update(vocab)
    merges = []
    for _ in range(n_merges):
        pairs = Counter()
        for syms, c in word_counts.items():
            for a, b in zip(syms, syms[1:]): pairs[a, b] += c
        if not pairs: break
        best = min(pairs, key=lambda p: (-pairs[p], p))
        merges.append(best)
        new = {tuple(_merge(list(syms), best)): c for syms, c in word_counts.items()}
        word_counts.clear(); word_counts.update(new)
    return merges
""" + SEG)
A(nb, 'bpe', "n_merges read as a vocabulary size (Hugging Face's vocab_size): n_merges minus the alphabet's symbols",
  MERGE + LEARN(pre="n_merges = n_merges - len({s for w in word_counts for s in w} | {'</w>'})\n    ") + SEG)
A(nb, 'bpe', 'the tokeniser applied twice: segment runs the merges a second time over its own output',
  MERGE + LEARN() + """
def segment(word, merges):
    syms = list(word) + ['</w>']
    for _ in range(2):
        for pair in merges: syms = _merge(syms, pair)
    return syms
""")
A(nb, 'bpe', "'</w>' left out of the pair counts: a merge never takes the end-of-word symbol", MERGE + LEARN(count="""
        for syms, c in vocab.items():
            for a, b in zip(syms[:-1], syms[1:-1]): pairs[a, b] += c""") + SEG)
A(nb, 'bpe', 'the merges returned as a dict pair -> count (the order kept, the counts added)', MERGE + """
def learn_bpe(word_counts, n_merges):
    vocab = {tuple(w) + ('</w>',): c for w, c in word_counts.items()}
    merges = {}
    for _ in range(n_merges):
        pairs = Counter()
        for syms, c in vocab.items():
            for a, b in zip(syms, syms[1:]): pairs[a, b] += c
        if not pairs: break
        best = min(pairs, key=lambda p: (-pairs[p], p))
        merges[best] = pairs[best]
        vocab = {tuple(_merge(list(syms), best)): c for syms, c in vocab.items()}
    return merges
""" + SEG)
A(nb, 'bpe', 'a merge applied to the first word that holds the pair only (a break after the first word)', MERGE + LEARN(
  apply="""for syms in list(vocab):
            if best in zip(syms, syms[1:]): vocab[tuple(_merge(list(syms), best))] = vocab.pop(syms); break""") + SEG)
A(nb, 'bpe', 'the pair counts taken once at the start: the n_merges most frequent initial pairs, in order', MERGE + """
def learn_bpe(word_counts, n_merges):
    pairs = Counter()
    for w, c in word_counts.items():
        syms = list(w) + ['</w>']
        for a, b in zip(syms, syms[1:]): pairs[a, b] += c
    return sorted(pairs, key=lambda p: (-pairs[p], p))[:n_merges]
""" + SEG)
A(nb, 'bpe', 'segment lowercases the word first (a normaliser from another tokeniser)', MERGE + LEARN() + """
def segment(word, merges):
    syms = list(word.lower()) + ['</w>']
    for pair in merges: syms = _merge(syms, pair)
    return syms
""")
A(nb, 'bpe', "the merges returned as NumPy's array of pairs (np.array(merges)): rows of strings, not tuples",
  MERGE + "import numpy as np\n" + LEARN(ret="np.array(merges)") + """
def segment(word, merges):
    syms = list(word) + ['</w>']
    for pair in merges: syms = _merge(syms, tuple(pair))
    return syms
""")
A(nb, 'bpe', 'a word of one character gets no end-of-word symbol (the pairs start at two symbols)', MERGE + LEARN(
  vocab="{(tuple(w) + ('</w>',) if len(w) > 1 else tuple(w)): c for w, c in word_counts.items()}") + """
def segment(word, merges):
    syms = list(word) + (['</w>'] if len(word) > 1 else [])
    for pair in merges: syms = _merge(syms, pair)
    return syms
""")

# 09_training: my_noam_lr, my_label_smoothing
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
A(nb, 'my_noam_lr', "warmup read as a fraction of training (Hugging Face's warmup_ratio) of 100,000 updates",
  NOAM("if step == 0: return 0.0\n    w = warmup * 100_000\n"
       "    return d_model ** -0.5 * min(step ** -0.5, step * w ** -1.5)"))
A(nb, 'my_noam_lr', "LambdaLR's count from 0: the formula at step + 1 (0 kept at step 0)",
  NOAM("if step == 0: return 0.0\n    s = step + 1\n    return d_model ** -0.5 * min(s ** -0.5, s * warmup ** -1.5)"))
A(nb, 'my_noam_lr', "Hugging Face's max(1, step): step 0 given the first update's rate",
  NOAM("s = max(1, step)\n    return d_model ** -0.5 * min(s ** -0.5, s * warmup ** -1.5)"))
A(nb, 'my_noam_lr', "returns [lr], a list as scheduler.get_last_lr() gives it",
  NOAM("if step == 0: return [0.0]\n    return [d_model ** -0.5 * min(step ** -0.5, step * warmup ** -1.5)]"))
A(nb, 'my_noam_lr', 'computed with torch: a 0-d float32 tensor returned',
  NOAM("s = torch.tensor(float(step))\n    if step == 0: return torch.tensor(0.0)\n"
       "    return d_model ** -0.5 * torch.minimum(s ** -0.5, s * warmup ** -1.5)"))
A(nb, 'my_noam_lr', "the formula copied literally: step ** -1/2 and warmup ** -3/2 (Python reads (step ** -1) / 2)",
  NOAM("if step == 0: return 0.0\n    return d_model ** -1/2 * min(step ** -1/2, step * warmup ** -3/2)"))
A(nb, 'my_label_smoothing', None, LS(Q + "    loss = -(q * logits.log_softmax(-1)).sum(-1)\n    return loss[target != pad_id].mean()"))
A(nb, 'my_label_smoothing', "the Annotated Transformer's LabelSmoothing: eps/(V - 2), the pad column zeroed, KL divergence summed over the tokens",
  LS("V = logits.shape[-1]\n    true = torch.full_like(logits, eps / (V - 2))\n"
     "    true.scatter_(-1, target[..., None], 1 - eps)\n    true[..., pad_id] = 0\n    true[target == pad_id] = 0\n"
     "    kl = F.kl_div(logits.log_softmax(-1), true, reduction='sum')\n    return kl / (target != pad_id).sum()"))
A(nb, 'my_label_smoothing', "F.cross_entropy with label_smoothing but no ignore_index (-100 by default): the pads averaged in",
  LS("V = logits.shape[-1]\n    return F.cross_entropy(logits.reshape(-1, V), target.reshape(-1), label_smoothing=eps)"))
A(nb, 'my_label_smoothing', "(B, T, V) logits passed to F.cross_entropy as they are (it wants the classes on axis 1)",
  LS("return F.cross_entropy(logits, target, label_smoothing=eps, ignore_index=pad_id)"))
A(nb, 'my_label_smoothing', 'the pads zeroed, then the mean over every position (padding in the count)',
  LS(Q + "    loss = -(q * logits.log_softmax(-1)).sum(-1)\n    return (loss * (target != pad_id)).mean()"))
A(nb, 'my_label_smoothing', 'pad_id ignored: target != 0 hard-coded (PAD_ID)',
  LS(Q + "    loss = -(q * logits.log_softmax(-1)).sum(-1)\n    return loss[target != 0].mean()"))
A(nb, 'my_label_smoothing', 'softmax(-1).log(), not log_softmax: -inf for large logits',
  LS(Q + "    loss = -(q * logits.softmax(-1).log()).sum(-1)\n    return loss[target != pad_id].mean()"))
A(nb, 'my_label_smoothing', 'scatter_ for the reference: it gets 1 - eps, not 1 - eps + eps/V',
  LS("V = logits.shape[-1]\n    q = torch.full_like(logits, eps / V).scatter_(-1, target[..., None], 1 - eps)\n"
     "    loss = -(q * logits.log_softmax(-1)).sum(-1)\n    return loss[target != pad_id].mean()"))
A(nb, 'my_label_smoothing', "the caller's logits stabilised in place (logits -= max)",
  LS("logits -= logits.max(-1, keepdim=True).values\n    " + Q + "    loss = -(q * logits.log_softmax(-1)).sum(-1)\n"
     "    return loss[target != pad_id].mean()"))
A(nb, 'my_label_smoothing', "fairseq's sentence_avg: each sentence's mean over its tokens, averaged over the sentences",
  LS(Q + "    loss = -(q * logits.log_softmax(-1)).sum(-1)\n    keep = (target != pad_id).float()\n"
     "    return ((loss * keep).sum(-1) / keep.sum(-1)).mean()"))
A(nb, 'my_label_smoothing', 'target.unsqueeze(1) for the scatter on axis 1: right for 2-d (N, V) logits only',
  LS("V = logits.shape[-1]\n    q = torch.full_like(logits, eps / V)\n"
     "    q.scatter_add_(1, target.unsqueeze(1), torch.full(target.unsqueeze(1).shape, 1 - eps, dtype=logits.dtype))\n"
     "    loss = -(q * logits.log_softmax(-1)).sum(-1)\n    return loss[target != pad_id].mean()"))
A(nb, 'my_label_smoothing', "reduction='none': the per-position losses returned, the pads zeroed",
  LS(Q + "    loss = -(q * logits.log_softmax(-1)).sum(-1)\n    return loss * (target != pad_id)"))
A(nb, 'my_label_smoothing', 'eps // V: floor division, the uniform part 0',
  LS("V = logits.shape[-1]\n    q = torch.full_like(logits, eps // V)\n"
     "    q.scatter_add_(-1, target[..., None], torch.full_like(logits[..., :1], 1 - eps))\n"
     "    loss = -(q * logits.log_softmax(-1)).sum(-1)\n    return loss[target != pad_id].mean()"))

# 10_decoding: my_greedy_step
nb = '10_decoding'
def STEP(body): return f"""
def my_greedy_step(model, src, ys):
    {body}
"""
A(nb, 'my_greedy_step', None, STEP("logits = model(src, ys)[:, -1]\n    return next_token_logits(logits).argmax(-1)"))
A(nb, 'my_greedy_step', "argmax(-1, keepdim=True): (B, 1), greedy_decode's shape for the cat",
  STEP("logits = model(src, ys)[:, -1]\n    return next_token_logits(logits).argmax(-1, keepdim=True)"))
A(nb, 'my_greedy_step', "Hugging Face's generate: the prefix with the token appended, (B, t + 1)",
  STEP("logits = model(src, ys)[:, -1]\n    return torch.cat([ys, next_token_logits(logits).argmax(-1, keepdim=True)], 1)"))
A(nb, 'my_greedy_step', 'a Python list of ids (tolist())',
  STEP("logits = model(src, ys)[:, -1]\n    return next_token_logits(logits).argmax(-1).tolist()"))
A(nb, 'my_greedy_step', 'only PAD forbidden (BOS left allowed)',
  STEP("logits = model(src, ys)[:, -1]\n    logits[:, PAD_ID] = float('-inf')\n    return logits.argmax(-1)"))
A(nb, 'my_greedy_step', "EOS forbidden too (Hugging Face's min_new_tokens habit)",
  STEP("logits = next_token_logits(model(src, ys)[:, -1])\n    logits[:, EOS_ID] = float('-inf')\n    return logits.argmax(-1)"))
A(nb, 'my_greedy_step', "the first row's token repeated for the whole batch",
  STEP("logits = next_token_logits(model(src, ys)[:, -1])\n    return logits[0].argmax(-1).expand(len(ys))"))
A(nb, 'my_greedy_step', "topk(1)'s values (the logits), not its indices",
  STEP("logits = next_token_logits(model(src, ys)[:, -1])\n    return logits.topk(1, -1).values.squeeze(-1)"))
A(nb, 'my_greedy_step', "torch.max's (values, indices) returned whole",
  STEP("logits = next_token_logits(model(src, ys)[:, -1])\n    return torch.max(logits, -1)"))
A(nb, 'my_greedy_step', 'model(ys, src): the arguments read the other way (the prefix as the source)',
  STEP("logits = model(ys, src)[:, -1]\n    return next_token_logits(logits).argmax(-1)"))
A(nb, 'my_greedy_step', "teacher forcing's input ys[:, :-1]: the prefix's last token dropped",
  STEP("logits = model(src, ys[:, :-1])[:, -1]\n    return next_token_logits(logits).argmax(-1)"))
A(nb, 'my_greedy_step', 'int32 ids (a Keras habit: argmax cast to int32)',
  STEP("logits = model(src, ys)[:, -1]\n    return next_token_logits(logits).argmax(-1).to(torch.int32)"))
A(nb, 'my_greedy_step', 'no source pad mask (None): the padding of shorter sources attended',
  STEP("memory = model.encode(src, None)\n    logits = model.decode(memory, None, ys, tgt_mask(ys))[:, -1]\n"
       "    return next_token_logits(logits).argmax(-1)"))
A(nb, 'my_greedy_step', 'no causal mask on the prefix (None): earlier positions see later ones',
  STEP("src_mask = pad_mask(src)\n    logits = model.decode(model.encode(src, src_mask), src_mask, ys, None)[:, -1]\n"
       "    return next_token_logits(logits).argmax(-1)"))
A(nb, 'my_greedy_step', 'PAD and BOS set to 0, not -inf: forbidden only while the others score above 0',
  STEP("logits = model(src, ys)[:, -1]\n    logits[:, [PAD_ID, BOS_ID]] = 0\n    return logits.argmax(-1)"))
A(nb, 'my_greedy_step', 'the source stripped of its padding as one flat row: src[src != PAD_ID][None]',
  STEP("s = src[src != PAD_ID][None].expand(len(ys), -1)\n    logits = model(s, ys)[:, -1]\n    return next_token_logits(logits).argmax(-1)"))

# 11_results: my_bleu
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
A(nb, 'my_bleu', 'hyps and refs read the other way round (refs first)', BLEU(loop="zip(refs, hyps)"))
A(nb, 'my_bleu', 'the brevity penalty without its min: a bonus above 1 for long output', BLEU(bp="math.exp(1 - r / c)"))
A(nb, 'my_bleu', "the brevity penalty per sentence, averaged over the sentences", BLEU(
  pre="bps = [min(1.0, math.exp(1 - len(y.split()) / len(x.split()))) for x, y in zip(hyps, refs)]\n    ",
  bp="sum(bps) / len(bps)"))
A(nb, 'my_bleu', "sacreBLEU's -lc: hypotheses and references lowercased", BLEU(split="h, ref = h.lower().split(), ref.lower().split()"))
A(nb, 'my_bleu', 'the brevity penalty exp(1 - c/r): c and r swapped', BLEU(bp="min(1.0, math.exp(1 - c / r))"))
A(nb, 'my_bleu', 'matches counted as distinct n-grams (a set intersection)', BLEU(clip="len(set(ngrams(h, n)) & set(ngrams(ref, n)))"))
A(nb, 'my_bleu', "n-grams over characters (list(h), chrF's habit)", BLEU(split="h, ref = list(h), list(ref)"))
A(nb, 'my_bleu', 'orders 1 to 3: range(1, 4) read as inclusive', BLEU(orders="range(1, 4)"))
A(nb, 'my_bleu', 'the n-gram total taken as the word count for every n', BLEU(total="len(h)"))
A(nb, 'my_bleu', 'p_n = m // t: floor division', BLEU(ret="100 * bp * math.exp(sum(math.log(max(m // t, 1e-9)) for m, t in zip(match, total)) / K)"))
A(nb, 'my_bleu', "sacreBLEU's formatted score: the string 'BLEU = 27.30'",
  BLEU(ret="f'BLEU = {100 * bp * math.exp(sum(math.log(m / t) for m, t in zip(match, total)) / K):.2f}'"))
A(nb, 'my_bleu', "rounded to one decimal, as the paper's tables print it",
  BLEU(ret="round(100 * bp * math.exp(sum(math.log(m / t) for m, t in zip(match, total)) / K), 1)"))
A(nb, 'my_bleu', 'returned as a 0-d torch tensor (the sum done in torch)',
  BLEU(ret="100 * bp * torch.tensor([math.log(m / t) for m, t in zip(match, total)]).mean().exp()"))
A(nb, 'my_bleu', 'the geometric mean taken over the orders with a match only (zero precisions skipped)',
  BLEU(ret="100 * bp * math.exp(sum(math.log(m / t) for m, t in zip(match, total) if m) / max(1, sum(1 for m in match if m)))"))

# 12_variations: beyond_noise, heads_looking, rows_ab
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
A(nb, 'beyond_noise', 'the spread as the standard deviation of the seed runs (statistics.stdev)',
  NOISE(noise="__import__('statistics').stdev([r['bleu'] for r in recs if r['variant'] == 'base'])"))
A(nb, 'beyond_noise', "base's BLEU the mean of its seed runs, not the run 'base'",
  NOISE(base="sum(r['bleu'] for r in recs if r['variant'] == 'base') / sum(r['variant'] == 'base' for r in recs)"))
A(nb, 'beyond_noise', 'an inclusive bound: >= the spread', NOISE(ret="[r['id'] for r in recs if r['variant'] != 'base' and abs(r['bleu'] - base) >= noise]"))
A(nb, 'beyond_noise', "the variants' names returned, not the runs' ids", NOISE(ret="[r['variant'] for r in recs if r['variant'] != 'base' and abs(r['bleu'] - base) > noise]"))
A(nb, 'beyond_noise', "seed runs found by an id starting with 'base'",
  NOISE(noise="max(abs(r['bleu'] - base) for r in recs if r['id'].startswith('base') and r['id'] != 'base')",
        ret="[r['id'] for r in recs if not r['id'].startswith('base') and abs(r['bleu'] - base) > noise]"))
A(nb, 'beyond_noise', 'base assumed to be the first record', NOISE(base="recs[0]['bleu']"))
A(nb, 'beyond_noise', "the caller's records sorted in place by BLEU (recs.sort)", NOISE(pre="recs.sort(key=lambda r: -r['bleu'])\n    "))
A(nb, 'beyond_noise', 'the spread as max - min over the base runs (base included)',
  NOISE(noise="max(r['bleu'] for r in recs if r['variant'] == 'base') - min(r['bleu'] for r in recs if r['variant'] == 'base')"))
A(nb, 'heads_looking', None, HEADS("return [h + 1 for h in range(w.shape[0]) if all(w[h, r].argmax() == col for r in rows)]"))
A(nb, 'heads_looking', 'the map read as (h, n_k, n_q): w[h, :, r]', HEADS("return [h + 1 for h in range(w.shape[0]) if all(w[h, :, r].argmax() == col for r in rows)]"))
A(nb, 'heads_looking', 'rows read as an inclusive (first, last) range', HEADS("rs = range(rows[0], rows[-1] + 1)\n    return [h + 1 for h in range(w.shape[0]) if all(w[h, r].argmax() == col for r in rs)]"))
A(nb, 'heads_looking', 'a tensor of head numbers returned', HEADS("return torch.tensor([h + 1 for h in range(w.shape[0]) if all(w[h, r].argmax() == col for r in rows)])"))
A(nb, 'heads_looking', "a weight above 0.5 on col taken as looking hardest", HEADS("return [h + 1 for h in range(w.shape[0]) if all(w[h, r, col] > 0.5 for r in rows)]"))
A(nb, 'heads_looking', "the argmax of the rows' mean", HEADS("return [h + 1 for h in range(w.shape[0]) if w[h][list(rows)].mean(0).argmax() == col]"))
A(nb, 'heads_looking', 'col read 1-based, as the heads are numbered', HEADS("return [h + 1 for h in range(w.shape[0]) if all(w[h, r].argmax() == col - 1 for r in rows)]"))
A(nb, 'rows_ab', None, AB())
A(nb, 'rows_ab', 'd_k / 4 and d_k / 2: float sizes (16.0) in the names and overrides', AB(b="{f'B-dk{k}': dict(d_k=k, d_v=d_k) for k in (d_k / 4, d_k / 2)}"))
A(nb, 'rows_ab', 'row (A) without d_v', AB(a="{f'A-h{k}': dict(h=k, d_k=d // k) for k in (max(1, h // 8), h // 2, 2 * h, 4 * h)}"))
A(nb, 'rows_ab', "the paper's heads (1, 4, 16, 32) hard-coded", AB(a="{f'A-h{k}': dict(h=k, d_k=d // k, d_v=d // k) for k in (1, 4, 16, 32)}"))
A(nb, 'rows_ab', "base's own h kept in row (A): five entries", AB(a="{f'A-h{k}': dict(h=k, d_k=d // k, d_v=d // k) for k in (max(1, h // 8), h // 2, h, 2 * h, 4 * h)}"))
A(nb, 'rows_ab', 'a list of (name, overrides) pairs, not a dict', AB(ret="list({**" + "{f'A-h{k}': dict(h=k, d_k=d // k, d_v=d // k) for k in (max(1, h // 8), h // 2, 2 * h, 4 * h)}"
  + ", **{f'B-dk{k}': dict(d_k=k, d_v=d_k) for k in (d_k // 4, d_k // 2)}}.items())"))
A(nb, 'rows_ab', 'each entry the whole configuration (base merged in), not the overrides',
  AB(a="{f'A-h{k}': {**base, 'h': k, 'd_k': d // k, 'd_v': d // k} for k in (max(1, h // 8), h // 2, 2 * h, 4 * h)}",
     b="{f'B-dk{k}': {**base, 'd_k': k, 'd_v': d_k} for k in (d_k // 4, d_k // 2)}"))
A(nb, 'rows_ab', "the caller's preset given d_k and d_v in place", AB(pre="base.setdefault('d_k', base['d_model'] // base['h']); base.setdefault('d_v', base['d_k'])\n    "))

# 13_parsing: my_linearize, my_corpus_prf
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
A(nb, 'my_linearize', "function tags cut at '-' only: 'NP=1' kept", LIN(lab="tree.label().split('-')[0] if not tree.label().startswith('-') else tree.label()"))
A(nb, 'my_linearize', "the closing bracket with the raw label: ')NP-SBJ'", LIN(close="')' + tree.label()"))
A(nb, 'my_linearize', "nltk's collapse_unary: a chain of one-child phrases written as one bracket 'S+VP'", """
def my_linearize(tree):
    if isinstance(tree, str): return tree
    if is_preterminal(tree): return tree[0]
    labs = [coarse_label(tree.label())]
    while len(tree) == 1 and not isinstance(tree[0], str) and not is_preterminal(tree[0]):
        tree = tree[0]; labs.append(coarse_label(tree.label()))
    lab = '+'.join(labs)
    return ' '.join([f'({lab}', *(my_linearize(t) for t in tree), f'){lab}'])
""")
A(nb, 'my_linearize', 'words lowercased', LIN(leaf="return tree[0].lower()"))
A(nb, 'my_linearize', "a POS node found by height() == 2: a node of bare words gives its first word only", """
def my_linearize(tree):
    if isinstance(tree, str): return tree
    if tree.height() == 2: return tree[0]
    lab = coarse_label(tree.label())
    return ' '.join([f'({lab}', *(my_linearize(t) for t in tree), f'){lab}'])
""")
A(nb, 'my_linearize', "the figure's layout read: the label after the closing bracket as its own token (') NP')", LIN(close="f') {lab}'"))
A(nb, 'my_linearize', "coarse_label applied to the words too: a hyphenated word cut ('New-York' -> 'New')", LIN(leaf="return coarse_label(tree[0])"))
A(nb, 'my_corpus_prf', None, PRF(RIGHT_PRF))
A(nb, 'my_corpus_prf', 'counts read as (matched, parse, reference): P and R swapped',
  PRF("m, t, g = (sum(c[i] for c in counts) for i in range(3))\n    p, r = 100 * m / t, 100 * m / g\n    return p, r, 2 * p * r / (p + r)"))
A(nb, 'my_corpus_prf', 'floor division: whole percents (100 * m // t)',
  PRF("m, g, t = (sum(c[i] for c in counts) for i in range(3))\n    p, r = 100 * m // t, 100 * m // g\n    return p, r, 2 * p * r / (p + r)"))
A(nb, 'my_corpus_prf', "a dict {'P', 'R', 'F1'} returned",
  PRF("m, g, t = (sum(c[i] for c in counts) for i in range(3))\n    p, r = 100 * m / t, 100 * m / g\n    return {'P': p, 'R': r, 'F1': 2 * p * r / (p + r)}"))
A(nb, 'my_corpus_prf', "the totals appended to the caller's list (counts.append)",
  PRF("counts.append(tuple(sum(c[i] for c in counts) for i in range(3)))\n    m, g, t = counts[-1]\n"
      "    p, r = 100 * m / t, 100 * m / g\n    return p, r, 2 * p * r / (p + r)"))
A(nb, 'my_corpus_prf', "rounded to two decimals, as EVALB prints them",
  PRF(RIGHT_PRF.replace("return p, r, 2 * p * r / (p + r)", "return round(p, 2), round(r, 2), round(2 * p * r / (p + r), 2)")))
A(nb, 'my_corpus_prf', 'F1 from the summed counts of the last sentence only (a loop that reassigns)',
  PRF("for m, g, t in counts: M, G, T = m, g, t\n    p, r = 100 * M / T, 100 * M / G\n    return p, r, 2 * p * r / (p + r)"))
A(nb, 'my_corpus_prf', 'a NumPy array [P, R, F1] returned (np.array of the three)',
  PRF("import numpy as np\n    m, g, t = np.array(counts).sum(0)\n    p, r = 100 * m / t, 100 * m / g\n    return np.array([p, r, 2 * p * r / (p + r)])"))
A(nb, 'my_corpus_prf', 'precision and recall as fractions, F1 in percent',
  PRF("m, g, t = (sum(c[i] for c in counts) for i in range(3))\n    p, r = m / t, m / g\n    return p, r, 100 * 2 * p * r / (p + r)"))

# 14_since_2017: rms_norm_of, rotate_query, group_heads
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
A(nb, 'rms_norm_of', 'the RMS as vector_norm / sqrt(d), eps added after the root (a JAX port)',
  RMS("d = a.shape[-1]\n    return a / (torch.linalg.vector_norm(a, dim=-1, keepdim=True) / d ** 0.5 + eps) * g"))
A(nb, 'rms_norm_of', 'F.normalize(a, dim=-1) * sqrt(d): eps dropped', RMS("return F.normalize(a, dim=-1) * a.shape[-1] ** 0.5 * g"))
A(nb, 'rms_norm_of', "computed in place on the caller's a (a.mul_)", RMS("return a.mul_(torch.rsqrt(a.pow(2).mean(-1, keepdim=True) + eps)).mul_(g)"))
A(nb, 'rms_norm_of', 'the mean over the last two axes (the whole (n, d) block)', RMS("return a / torch.sqrt(a.pow(2).mean((-2, -1), keepdim=True) + eps) * g"))
A(nb, 'rms_norm_of', 'returns (normed, rms), the statistic as well', RMS("rms = torch.sqrt(a.pow(2).mean(-1, keepdim=True) + eps)\n    return a / rms * g, rms"))
A(nb, 'rms_norm_of', 'eps squared under the root (eps read as a floor on the RMS)', RMS("return a / torch.sqrt(a.pow(2).mean(-1, keepdim=True) + eps ** 2) * g"))
A(nb, 'rotate_query', None, ROT(
  "a = m * 10000.0 ** (-torch.arange(0, len(q), 2, dtype=torch.float64) / len(q))\n    x1, x2 = q[0::2].double(), q[1::2].double()\n"
  "    return torch.stack([x1 * a.cos() - x2 * a.sin(), x1 * a.sin() + x2 * a.cos()], -1).flatten().to(q.dtype)"))
A(nb, 'rotate_query', 'the angles in float32 (arange in float32, m * theta rounded)', ROT(
  "a = (torch.tensor(float(m)) * 10000.0 ** (-torch.arange(0, len(q), 2, dtype=torch.float32) / len(q))).float()\n    x1, x2 = q[0::2], q[1::2]\n"
  "    return torch.stack([x1 * a.cos() - x2 * a.sin(), x1 * a.sin() + x2 * a.cos()], -1).flatten().to(q.dtype)"))
A(nb, 'rotate_query', "the caller's q rotated in place (q[0::2], q[1::2] = ...)", ROT(
  "a = m * 10000.0 ** (-torch.arange(0, len(q), 2, dtype=torch.float64) / len(q))\n    x1, x2 = q[0::2].double(), q[1::2].double()\n"
  "    q[0::2], q[1::2] = (x1 * a.cos() - x2 * a.sin()).to(q.dtype), (x1 * a.sin() + x2 * a.cos()).to(q.dtype)\n    return q"))
A(nb, 'rotate_query', "fairseq's exponents over d - 2: theta_i = 10000^(-2i/(d - 2))", ROT(
  "a = m * 10000.0 ** (-torch.arange(0, len(q), 2, dtype=torch.float64) / (len(q) - 2))\n    x1, x2 = q[0::2].double(), q[1::2].double()\n"
  "    return torch.stack([x1 * a.cos() - x2 * a.sin(), x1 * a.sin() + x2 * a.cos()], -1).flatten().to(q.dtype)"))
A(nb, 'rotate_query', "LLaMA 3's rope_theta 500000 for the base", ROT(
  "a = m * 500000.0 ** (-torch.arange(0, len(q), 2, dtype=torch.float64) / len(q))\n    x1, x2 = q[0::2].double(), q[1::2].double()\n"
  "    return torch.stack([x1 * a.cos() - x2 * a.sin(), x1 * a.sin() + x2 * a.cos()], -1).flatten().to(q.dtype)"))
A(nb, 'rotate_query', 'a Python list returned (tolist())', ROT(
  "a = m * 10000.0 ** (-torch.arange(0, len(q), 2, dtype=torch.float64) / len(q))\n    x1, x2 = q[0::2].double(), q[1::2].double()\n"
  "    return torch.stack([x1 * a.cos() - x2 * a.sin(), x1 * a.sin() + x2 * a.cos()], -1).flatten().to(q.dtype).tolist()"))
A(nb, 'rotate_query', "the pairs' layout (d/2, 2) returned unflattened", ROT(
  "a = m * 10000.0 ** (-torch.arange(0, len(q), 2, dtype=torch.float64) / len(q))\n    x1, x2 = q[0::2].double(), q[1::2].double()\n"
  "    return torch.stack([x1 * a.cos() - x2 * a.sin(), x1 * a.sin() + x2 * a.cos()], -1).to(q.dtype)"))
A(nb, 'group_heads', None, GRP("return k.view(B, g, h // g, n, d).mean(2).repeat_interleave(h // g, dim=1)"))
A(nb, 'group_heads', 'each group head repeated g times, not h/g', GRP("return k.view(B, g, h // g, n, d).mean(2).repeat_interleave(g, dim=1)"))
A(nb, 'group_heads', "the caller's k overwritten with the grouped heads", GRP("k.copy_(k.view(B, g, h // g, n, d).mean(2, keepdim=True).expand(B, g, h // g, n, d).reshape(B, h, n, d))\n    return k"))
A(nb, 'group_heads', 'a batch of one assumed: k[0] grouped, the batch axis added back',
  GRP("return k[0].view(g, h // g, n, d).mean(1).repeat_interleave(h // g, dim=0)[None]"))
A(nb, 'group_heads', 'g read as the heads per group (the group size)', GRP("return k.view(B, h // g, g, n, d).mean(2).repeat_interleave(g, dim=1)"))
A(nb, 'group_heads', "Hugging Face's repeat_kv on the h heads: each head repeated h/g times, no mean",
  GRP("return k[:, :, None].expand(B, h, h // g, n, d).reshape(B, h * (h // g), n, d)"))
A(nb, 'group_heads', 'the group mean in float16 (a memory-saving habit), returned so', GRP("return k.half().view(B, g, h // g, n, d).mean(2).repeat_interleave(h // g, dim=1)"))
