"""The twentieth blind set's answers, for notebooks 08 to 14 only, written from the exercises' text alone: (notebook,
exercise, mistake, code), the mistake None for the right answer. `experiments/blind_answers.py 20` runs them. This set
leans toward answers shaped by other sources' conventions (d2l's '_' end-of-word symbol, Hugging Face's 'a b' merge
strings and lower-casing normaliser, GPT-2's BPE without an end-of-word symbol; the learning rate as LambdaLR's
multiplier, LLaMA's eps, d2l's per-sentence masked mean, fairseq's (loss, sample_size), Keras' class axis last;
nanoGPT's (B, 1) next token and its idx with the token appended, Hugging Face's `.logits`, fairseq's one-token
incremental input and its unk penalty; Hugging Face evaluate's dict of BLEU and sacreBLEU's lower-casing and printed
score; LLaMA 3's rope_theta) and toward the learner types the exercises meet: a NumPy or JAX user, a C programmer
writing loops, one who copies a formula literally, one who reads an argument from its name only, one who returns early
from a loop, one who edits the inputs in place, one who hard-codes the example's sizes, and toward right values in the
wrong container, dtype or shape (lists, tuples, sets, dicts, strings, NumPy arrays, tensors)."""
ANSWERS = []
def A(nb, ex, mistake, code): ANSWERS.append((nb, ex, mistake, code))

# 08_data: learn_bpe, segment
nb = '08_data'
RIGHT_MERGE = """
def _merge(syms, pair):
    i = 0
    while i < len(syms) - 1:
        if (syms[i], syms[i + 1]) == pair: syms[i:i + 2] = [syms[i] + syms[i + 1]]
        else: i += 1
    return syms
"""
RIGHT_SEGMENT = """
def segment(word, merges):
    syms = list(word) + ['</w>']
    for pair in merges: syms = _merge(syms, pair)
    return syms
"""
def LEARN(vocab="{tuple(w) + ('</w>',): c for w, c in word_counts.items()}", count="""
        for syms, c in vocab.items():
            for a, b in zip(syms, syms[1:]): pairs[a, b] += c""", best="min(pairs, key=lambda p: (-pairs[p], p))",
          stop="if not pairs: break", rec="merges.append(best)", rounds="range(n_merges)", ret="merges", pre=""):
    return f"""
def learn_bpe(word_counts, n_merges):
    {pre}vocab = {vocab}
    merges = []
    for _ in {rounds}:
        pairs = Counter(){count}
        {stop}
        best = {best}
        {rec}
        vocab = {{tuple(_merge(list(syms), best)): c for syms, c in vocab.items()}}
    return {ret}
"""
A(nb, 'bpe', None, RIGHT_MERGE + LEARN() + RIGHT_SEGMENT)
A(nb, 'bpe', "d2l's '_' as the end-of-word symbol, not '</w>'", RIGHT_MERGE
  + LEARN(vocab="{tuple(w) + ('_',): c for w, c in word_counts.items()}") + """
def segment(word, merges):
    syms = list(word) + ['_']
    for pair in merges: syms = _merge(syms, pair)
    return syms""")
A(nb, 'bpe', "GPT-2's byte-level BPE: no end-of-word symbol at all", RIGHT_MERGE
  + LEARN(vocab="{tuple(w): c for w, c in word_counts.items()}") + """
def segment(word, merges):
    syms = list(word)
    for pair in merges: syms = _merge(syms, pair)
    return syms""")
A(nb, 'bpe', "'</w>' split into its characters: list(w + '</w>')", RIGHT_MERGE
  + LEARN(vocab="{tuple(w + '</w>'): c for w, c in word_counts.items()}") + """
def segment(word, merges):
    syms = list(word + '</w>')
    for pair in merges: syms = _merge(syms, pair)
    return syms""")
A(nb, 'bpe', "Hugging Face's merges.txt lines: each merge recorded as the string 'a b'", RIGHT_MERGE
  + LEARN(rec="merges.append(' '.join(best))") + """
def segment(word, merges):
    syms = list(word) + ['</w>']
    for m in merges: syms = _merge(syms, tuple(m.split(' ')))
    return syms""")
A(nb, 'bpe', "each merge recorded as a list [a, b] (a merges file read back from JSON)", RIGHT_MERGE
  + LEARN(rec="merges.append(list(best))") + """
def segment(word, merges):
    syms = list(word) + ['</w>']
    for pair in merges: syms = _merge(syms, tuple(pair))
    return syms""")
A(nb, 'bpe', "Hugging Face's lower-casing normaliser: words lower-cased first", RIGHT_MERGE
  + LEARN(vocab="{tuple(w.lower()) + ('</w>',): c for w, c in word_counts.items()}") + """
def segment(word, merges):
    syms = list(word.lower()) + ['</w>']
    for pair in merges: syms = _merge(syms, pair)
    return syms""")
A(nb, 'bpe', "pairs not weighted by the word's count (each word counted once)", RIGHT_MERGE
  + LEARN(count="""
        for syms, c in vocab.items():
            for a, b in zip(syms, syms[1:]): pairs[a, b] += 1""") + RIGHT_SEGMENT)
A(nb, 'bpe', "each distinct pair counted once per word (set(zip(...))): 'a a a' gives (a, a) once", RIGHT_MERGE
  + LEARN(count="""
        for syms, c in vocab.items():
            for a, b in set(zip(syms, syms[1:])): pairs[a, b] += c""") + RIGHT_SEGMENT)
A(nb, 'bpe', "ties to the largest pair: max(pairs, key=lambda p: (pairs[p], p))", RIGHT_MERGE
  + LEARN(best="max(pairs, key=lambda p: (pairs[p], p))") + RIGHT_SEGMENT)
A(nb, 'bpe', "no stop when no pair is left: min() of an empty Counter", RIGHT_MERGE
  + LEARN(stop="pass") + RIGHT_SEGMENT)
A(nb, 'bpe', "n_merges - 1 merges: range(1, n_merges)", RIGHT_MERGE
  + LEARN(rounds="range(1, n_merges)") + RIGHT_SEGMENT)
A(nb, 'bpe', "a merge applied right to left: 'a a a' merged as a, aa", """
def _merge(syms, pair):
    i = len(syms) - 2
    while i >= 0:
        if (syms[i], syms[i + 1]) == pair: syms[i:i + 2] = [syms[i] + syms[i + 1]]; i -= 2
        else: i -= 1
    return syms
""" + LEARN() + RIGHT_SEGMENT)
A(nb, 'bpe', "a merge applied to its first occurrence only in each word (a C loop that breaks)", """
def _merge(syms, pair):
    for i in range(len(syms) - 1):
        if (syms[i], syms[i + 1]) == pair: syms[i:i + 2] = [syms[i] + syms[i + 1]]; break
    return syms
""" + LEARN() + RIGHT_SEGMENT)
A(nb, 'bpe', "segment applies the merges last learnt first (reversed)", RIGHT_MERGE + LEARN() + """
def segment(word, merges):
    syms = list(word) + ['</w>']
    for pair in reversed(merges): syms = _merge(syms, pair)
    return syms""")
A(nb, 'bpe', "segment returns the pieces joined by spaces, a string", RIGHT_MERGE + LEARN() + """
def segment(word, merges):
    syms = list(word) + ['</w>']
    for pair in merges: syms = _merge(syms, pair)
    return ' '.join(syms)""")
A(nb, 'bpe', "segment returns a tuple of pieces", RIGHT_MERGE + LEARN() + """
def segment(word, merges):
    syms = list(word) + ['</w>']
    for pair in merges: syms = _merge(syms, pair)
    return tuple(syms)""")
A(nb, 'bpe', "word_counts edited in place: its keys replaced by the split words", RIGHT_MERGE
  + LEARN(pre="for w in list(word_counts): word_counts[tuple(w) + ('</w>',)] = word_counts.pop(w)\n    ",
          vocab="word_counts") + RIGHT_SEGMENT)

# 09_training: my_noam_lr, my_label_smoothing
nb = '09_training'
A(nb, 'my_noam_lr', None, """
def my_noam_lr(step, d_model=512, warmup=4000):
    if step == 0: return 0.0
    return d_model ** -0.5 * min(step ** -0.5, step * warmup ** -1.5)""")
A(nb, 'my_label_smoothing', None, """
def my_label_smoothing(logits, target, eps, pad_id=PAD_ID):
    V = logits.shape[-1]
    q = torch.full_like(logits, eps / V)
    q.scatter_add_(-1, target[..., None], torch.full_like(logits[..., :1], 1 - eps))
    loss = -(q * logits.log_softmax(-1)).sum(-1)
    return loss[target != pad_id].mean()""")
def NOAM(body, sig="step, d_model=512, warmup=4000"):
    return f"""
def my_noam_lr({sig}):
    {body}"""
A(nb, 'my_noam_lr', "step 0 not handled: 0 ** -0.5 raises ZeroDivisionError",
  NOAM("return d_model ** -0.5 * min(step ** -0.5, step * warmup ** -1.5)"))
A(nb, 'my_noam_lr', "returned as a 0-d torch tensor",
  NOAM("if step == 0: return torch.tensor(0.0)\n    return torch.tensor(d_model ** -0.5 * min(step ** -0.5, step * warmup ** -1.5))"))
A(nb, 'my_noam_lr', "rounded to 6 decimals, as a training log prints it",
  NOAM("if step == 0: return 0.0\n    return round(d_model ** -0.5 * min(step ** -0.5, step * warmup ** -1.5), 6)"))
A(nb, 'my_noam_lr', "warmup ** 1.5, the sign of the exponent lost: no warm-up",
  NOAM("if step == 0: return 0.0\n    return d_model ** -0.5 * min(step ** -0.5, step * warmup ** 1.5)"))
A(nb, 'my_noam_lr', "the example's d_model 512 hard-coded, the argument ignored",
  NOAM("if step == 0: return 0.0\n    return 512 ** -0.5 * min(step ** -0.5, step * warmup ** -1.5)"))
A(nb, 'my_noam_lr', "the example's warm-up 4000 hard-coded, the argument ignored",
  NOAM("if step == 0: return 0.0\n    return d_model ** -0.5 * min(step ** -0.5, step * 4000 ** -1.5)"))
A(nb, 'my_noam_lr', "exponent written -1 // 2 (floor division: -1): d_model ** -1",
  NOAM("if step == 0: return 0.0\n    return d_model ** (-1 // 2) * min(step ** (-1 / 2), step * warmup ** (-3 / 2))"))
A(nb, 'my_noam_lr', "LambdaLR's multiplier: the schedule normalised to 1 at its peak, d_model dropped",
  NOAM("if step == 0: return 0.0\n    return min(step ** -0.5, step * warmup ** -1.5) * warmup ** 0.5"))
def LS(body):
    return f"""
def my_label_smoothing(logits, target, eps, pad_id=PAD_ID):
    V = logits.shape[-1]
    {body}"""
A(nb, 'my_label_smoothing', "the mean over every position, pads included",
  LS("q = torch.full_like(logits, eps / V)\n    q.scatter_add_(-1, target[..., None], torch.full_like(logits[..., :1], 1 - eps))\n"
     "    return -(q * logits.log_softmax(-1)).sum(-1).mean()"))
A(nb, 'my_label_smoothing', "the pad mask inverted: the mean over the pad positions",
  LS("q = torch.full_like(logits, eps / V)\n    q.scatter_add_(-1, target[..., None], torch.full_like(logits[..., :1], 1 - eps))\n"
     "    loss = -(q * logits.log_softmax(-1)).sum(-1)\n    return loss[target == pad_id].mean()"))
A(nb, 'my_label_smoothing', "log_softmax over axis 0 (the batch), not the vocabulary",
  LS("q = torch.full_like(logits, eps / V)\n    q.scatter_add_(-1, target[..., None], torch.full_like(logits[..., :1], 1 - eps))\n"
     "    loss = -(q * F.log_softmax(logits, dim=0)).sum(-1)\n    return loss[target != pad_id].mean()"))
A(nb, 'my_label_smoothing', "d2l's MaskedSoftmaxCELoss: pads zeroed, then the mean over each sentence's length (pads counted), then over sentences",
  LS("q = torch.full_like(logits, eps / V)\n    q.scatter_add_(-1, target[..., None], torch.full_like(logits[..., :1], 1 - eps))\n"
     "    loss = -(q * logits.log_softmax(-1)).sum(-1) * (target != pad_id)\n    return loss.mean(dim=-1).mean()"))
A(nb, 'my_label_smoothing', "Keras' class axis last passed to F.cross_entropy, which wants (B, V, n)",
  LS("return F.cross_entropy(logits, target, label_smoothing=eps, ignore_index=pad_id)"))
A(nb, 'my_label_smoothing', "fairseq's criterion: returns (loss, number of tokens)",
  LS("q = torch.full_like(logits, eps / V)\n    q.scatter_add_(-1, target[..., None], torch.full_like(logits[..., :1], 1 - eps))\n"
     "    loss = -(q * logits.log_softmax(-1)).sum(-1)\n    keep = target != pad_id\n    return loss[keep].mean(), int(keep.sum())"))
A(nb, 'my_label_smoothing', "scatter_ in place of scatter_add_: the reference gets 1 - eps, its eps / V lost",
  LS("q = torch.full_like(logits, eps / V)\n    q.scatter_(-1, target[..., None], 1 - eps)\n"
     "    loss = -(q * logits.log_softmax(-1)).sum(-1)\n    return loss[target != pad_id].mean()"))
A(nb, 'my_label_smoothing', "the KL divergence (F.kl_div): the loss less q's entropy",
  LS("q = torch.full_like(logits, eps / V)\n    q.scatter_add_(-1, target[..., None], torch.full_like(logits[..., :1], 1 - eps))\n"
     "    loss = F.kl_div(logits.log_softmax(-1), q, reduction='none').sum(-1)\n    return loss[target != pad_id].mean()"))
A(nb, 'my_label_smoothing', "the logits turned into log-probabilities in place (the input edited)",
  LS("logits -= logits.logsumexp(-1, keepdim=True)\n    q = torch.full_like(logits, eps / V)\n"
     "    q.scatter_add_(-1, target[..., None], torch.full_like(logits[..., :1], 1 - eps))\n"
     "    loss = -(q * logits).sum(-1)\n    return loss[target != pad_id].mean()"))
A(nb, 'my_label_smoothing', "returns a NumPy float (loss.numpy())",
  LS("q = torch.full_like(logits, eps / V)\n    q.scatter_add_(-1, target[..., None], torch.full_like(logits[..., :1], 1 - eps))\n"
     "    loss = -(q * logits.log_softmax(-1)).sum(-1)\n    return loss[target != pad_id].mean().detach().numpy()"))

# 10_decoding: my_greedy_step
nb = '10_decoding'
def STEP(body):
    return f"""
def my_greedy_step(model, src, ys):
    {body}"""
A(nb, 'my_greedy_step', None, STEP("logits = model(src, ys)[:, -1]\n    return next_token_logits(logits).argmax(-1)"))
A(nb, 'my_greedy_step', "PAD and BOS not forbidden: the plain argmax",
  STEP("return model(src, ys)[:, -1].argmax(-1)"))
A(nb, 'my_greedy_step', "the first position's logits, [:, 0]",
  STEP("logits = model(src, ys)[:, 0]\n    return next_token_logits(logits).argmax(-1)"))
A(nb, 'my_greedy_step', "the second-to-last position, [:, ys.shape[1] - 2] (off by one)",
  STEP("logits = model(src, ys)[:, ys.shape[1] - 2]\n    return next_token_logits(logits).argmax(-1)"))
A(nb, 'my_greedy_step', "argmax over axis 0, the batch",
  STEP("logits = model(src, ys)[:, -1]\n    return next_token_logits(logits).argmax(0)"))
A(nb, 'my_greedy_step', "nanoGPT's idx_next: (B, 1), keepdim=True",
  STEP("logits = model(src, ys)[:, -1]\n    return next_token_logits(logits).argmax(-1, keepdim=True)"))
A(nb, 'my_greedy_step', "nanoGPT's generate: returns ys with the token appended, (B, t + 1)",
  STEP("logits = model(src, ys)[:, -1]\n    return torch.cat([ys, next_token_logits(logits).argmax(-1, keepdim=True)], 1)"))
A(nb, 'my_greedy_step', "model(ys, src): source and prefix swapped",
  STEP("logits = model(ys, src)[:, -1]\n    return next_token_logits(logits).argmax(-1)"))
A(nb, 'my_greedy_step', "Hugging Face's output object: model(...).logits",
  STEP("logits = model(src, ys).logits[:, -1]\n    return next_token_logits(logits).argmax(-1)"))
A(nb, 'my_greedy_step', "fairseq's incremental step: only the last token of ys fed",
  STEP("logits = model(src, ys[:, -1:])[:, -1]\n    return next_token_logits(logits).argmax(-1)"))
A(nb, 'my_greedy_step', "a Python list of ints (.tolist())",
  STEP("logits = model(src, ys)[:, -1]\n    return next_token_logits(logits).argmax(-1).tolist()"))
A(nb, 'my_greedy_step', "a NumPy array",
  STEP("logits = model(src, ys)[:, -1]\n    return next_token_logits(logits).argmax(-1).numpy()"))
A(nb, 'my_greedy_step', "int32 ids (.int())",
  STEP("logits = model(src, ys)[:, -1]\n    return next_token_logits(logits).argmax(-1).int()"))
A(nb, 'my_greedy_step', "only PAD forbidden by hand, BOS left",
  STEP("logits = model(src, ys)[:, -1]\n    logits[:, PAD_ID] = float('-inf')\n    return logits.argmax(-1)"))
A(nb, 'my_greedy_step', "torch.max's (values, indices) returned whole",
  STEP("logits = model(src, ys)[:, -1]\n    return next_token_logits(logits).max(-1)"))
A(nb, 'my_greedy_step', "fairseq's unk penalty -inf: UNK forbidden too",
  STEP("logits = next_token_logits(model(src, ys)[:, -1])\n    logits[:, UNK_ID] = float('-inf')\n    return logits.argmax(-1)"))
A(nb, 'my_greedy_step', "the most probable token of the whole prefix's summed log-probabilities",
  STEP("logp = model(src, ys).log_softmax(-1).sum(1)\n    return next_token_logits(logp).argmax(-1)"))

# 11_results: my_bleu
nb = '11_results'
NGR = "ngrams = lambda ws, n: Counter(tuple(ws[i:i + n]) for i in range(len(ws) - n + 1))"
def BLEU(split="h, ref = h.split(), ref.split()", clip="sum((ngrams(h, n) & ngrams(ref, n)).values())",
         total="max(len(h) - n + 1, 0)", orders="range(1, 5)", bp="min(1.0, math.exp(1 - r / c))",
         mean="math.exp(sum(math.log(m / t) for m, t in zip(match, total)) / 4)", ret="100 * bp * {mean}", head=""):
    return f"""
def my_bleu(hyps, refs):
    {NGR}
    match, total, c, r = [0] * 4, [0] * 4, 0, 0
    {head}for h, ref in zip(hyps, refs):
        {split}
        c, r = c + len(h), r + len(ref)
        for n in {orders}:
            match[n - 1] += {clip}
            total[n - 1] += {total}
    bp = {bp}
    return {ret.format(mean=mean)}
"""
A(nb, 'my_bleu', None, BLEU())
A(nb, 'my_bleu', "no clipping: every hypothesis n-gram found in the reference counted",
  BLEU(clip="sum(k for g, k in ngrams(h, n).items() if g in ngrams(ref, n))"))
A(nb, 'my_bleu', "NLTK's sentence_bleu averaged over the sentences", f"""
def my_bleu(hyps, refs):
    {NGR}
    scores = []
    for h, ref in zip(hyps, refs):
        h, ref = h.split(), ref.split()
        ps = [sum((ngrams(h, n) & ngrams(ref, n)).values()) / max(len(h) - n + 1, 1) for n in range(1, 5)]
        if min(ps) == 0: scores.append(0.0); continue
        bp = min(1.0, math.exp(1 - len(ref) / len(h)))
        scores.append(bp * math.exp(sum(map(math.log, ps)) / 4))
    return 100 * sum(scores) / len(scores)
""")
A(nb, 'my_bleu', "brevity penalty exp(1 - c / r): c and r swapped", BLEU(bp="min(1.0, math.exp(1 - c / r))"))
A(nb, 'my_bleu', "brevity penalty without the min: above 1 for long hypotheses", BLEU(bp="math.exp(1 - r / c)"))
A(nb, 'my_bleu', "n-grams up to 3 only (range(1, 4)), the mean still over 4", BLEU(orders="range(1, 4)",
  mean="math.exp(sum(math.log(m / t) for m, t in zip(match[:3], total[:3])) / 3)"))
A(nb, 'my_bleu', "the arithmetic mean of the precisions, not the geometric",
  BLEU(mean="sum(m / t for m, t in zip(match, total)) / 4"))
A(nb, 'my_bleu', "Hugging Face evaluate's dict: {'bleu': ..., 'precisions': ...}",
  BLEU(ret="dict(bleu=100 * bp * {mean}, precisions=[m / t for m, t in zip(match, total)])"))
A(nb, 'my_bleu', "sacreBLEU's printed score: a string with two decimals", BLEU(ret="f'{{100 * bp * {mean}:.2f}}'"))
A(nb, 'my_bleu', "the hypothesis length as the denominator of every order",
  BLEU(total="len(h)"))
A(nb, 'my_bleu', "chrF's habit: the sentences split into characters", BLEU(split="h, ref = list(h), list(ref)"))
A(nb, 'my_bleu', "sacreBLEU's lowercase=True: both sides lower-cased",
  BLEU(split="h, ref = h.lower().split(), ref.lower().split()"))
A(nb, 'my_bleu', "the corpus joined into one stream: n-grams across sentence boundaries", f"""
def my_bleu(hyps, refs):
    {NGR}
    h, ref = ' '.join(hyps).split(), ' '.join(refs).split()
    c, r = len(h), len(ref)
    ps = [sum((ngrams(h, n) & ngrams(ref, n)).values()) / (len(h) - n + 1) for n in range(1, 5)]
    bp = min(1.0, math.exp(1 - r / c))
    return 100 * bp * math.exp(sum(map(math.log, ps)) / 4)
""")
A(nb, 'my_bleu', "clipped against the corpus's counts, not each sentence's", f"""
def my_bleu(hyps, refs):
    {NGR}
    H, R = [h.split() for h in hyps], [r.split() for r in refs]
    c, r = sum(map(len, H)), sum(map(len, R))
    ps = []
    for n in range(1, 5):
        ch, cr = sum((ngrams(h, n) for h in H), Counter()), sum((ngrams(x, n) for x in R), Counter())
        ps.append(sum((ch & cr).values()) / sum(max(len(h) - n + 1, 0) for h in H))
    bp = min(1.0, math.exp(1 - r / c))
    return 100 * bp * math.exp(sum(map(math.log, ps)) / 4)
""")
A(nb, 'my_bleu', "a return inside the loop over sentences: the first sentence's score", f"""
def my_bleu(hyps, refs):
    {NGR}
    for h, ref in zip(hyps, refs):
        h, ref = h.split(), ref.split()
        ps = [sum((ngrams(h, n) & ngrams(ref, n)).values()) / max(len(h) - n + 1, 1) for n in range(1, 5)]
        bp = min(1.0, math.exp(1 - len(ref) / len(h)))
        return 100 * bp * math.exp(sum(math.log(p) for p in ps) / 4) if min(ps) > 0 else 0.0
""")
A(nb, 'my_bleu', "the formula copied literally with weights 1/4 applied to log p_n summed, then BP added, not multiplied",
  BLEU(ret="100 * (math.log(bp) + sum(math.log(m / t) / 4 for m, t in zip(match, total)))"))

# 12_variations: beyond_noise, heads_looking, rows_ab
nb = '12_variations'
A(nb, 'beyond_noise', None, """
def beyond_noise(recs):
    base = next(r['bleu'] for r in recs if r['id'] == 'base')
    noise = max(abs(r['bleu'] - base) for r in recs if r['variant'] == 'base' and r['id'] != 'base')
    return [r['id'] for r in recs if r['variant'] != 'base' and abs(r['bleu'] - base) > noise]""")
A(nb, 'heads_looking', None, """
def heads_looking(w, rows, col):
    return [h + 1 for h in range(w.shape[0]) if all(w[h, r].argmax() == col for r in rows)]""")
A(nb, 'rows_ab', None, """
def rows_ab(base):
    d, h = base['d_model'], base['h']; d_k = base.get('d_k') or d // h
    return {**{f'A-h{k}': dict(h=k, d_k=d // k, d_v=d // k) for k in (max(1, h // 8), h // 2, 2 * h, 4 * h)},
            **{f'B-dk{k}': dict(d_k=k, d_v=d_k) for k in (d_k // 4, d_k // 2)}}""")
def NOISE(ret="[r['id'] for r in recs if r['variant'] != 'base' and abs(r['bleu'] - base) > noise]",
          base="next(r['bleu'] for r in recs if r['id'] == 'base')",
          noise="max(abs(r['bleu'] - base) for r in recs if r['variant'] == 'base' and r['id'] != 'base')"):
    return f"""
def beyond_noise(recs):
    base = {base}
    noise = {noise}
    return {ret}"""
A(nb, 'beyond_noise', "only gains count: bleu - base > noise, no abs",
  NOISE(ret="[r['id'] for r in recs if r['variant'] != 'base' and r['bleu'] - base > noise]"))
A(nb, 'beyond_noise', "the variant names returned, not the ids",
  NOISE(ret="[r['variant'] for r in recs if r['variant'] != 'base' and abs(r['bleu'] - base) > noise]"))
A(nb, 'beyond_noise', "base's BLEU the mean over its seeds",
  NOISE(base="sum(r['bleu'] for r in recs if r['variant'] == 'base') / sum(r['variant'] == 'base' for r in recs)",
        noise="max(abs(r['bleu'] - base) for r in recs if r['variant'] == 'base')"))
A(nb, 'beyond_noise', "the noise as the range (max - min) of every base run, base's own included",
  NOISE(noise="max(r['bleu'] for r in recs if r['variant'] == 'base') - min(r['bleu'] for r in recs if r['variant'] == 'base')"))
A(nb, 'beyond_noise', "a set of ids",
  NOISE(ret="{r['id'] for r in recs if r['variant'] != 'base' and abs(r['bleu'] - base) > noise}"))
A(nb, 'beyond_noise', "a pandas habit: a dict id -> difference",
  NOISE(ret="{r['id']: r['bleu'] - base for r in recs if r['variant'] != 'base' and abs(r['bleu'] - base) > noise}"))
def HEADS(body):
    return f"""
def heads_looking(w, rows, col):
    {body}"""
A(nb, 'heads_looking', "heads numbered from 0",
  HEADS("return [h for h in range(w.shape[0]) if all(w[h, r].argmax() == col for r in rows)]"))
A(nb, 'heads_looking', "the map read as (h, n_k, n_q): the argmax over the queries of key r",
  HEADS("return [h + 1 for h in range(w.shape[0]) if all(w[h, :, r].argmax() == col for r in rows)]"))
A(nb, 'heads_looking', "a tensor of head numbers (torch.nonzero + 1)",
  HEADS("ok = (w[:, rows].argmax(-1) == col).all(-1)\n    return torch.nonzero(ok).flatten() + 1"))
A(nb, 'heads_looking', "a majority of the rows, not all of them",
  HEADS("return [h + 1 for h in range(w.shape[0]) if sum(int(w[h, r].argmax() == col) for r in rows) > len(rows) / 2]"))
A(nb, 'heads_looking', "the example's 8 heads hard-coded: range(8)",
  HEADS("return [h + 1 for h in range(8) if all(w[h, r].argmax() == col for r in rows)]"))
A(nb, 'heads_looking', "more than half the row's weight on col, not its largest",
  HEADS("return [h + 1 for h in range(w.shape[0]) if all(w[h, r, col] > 0.5 for r in rows)]"))
def AB(a="{f'A-h{k}': dict(h=k, d_k=d // k, d_v=d // k) for k in (max(1, h // 8), h // 2, 2 * h, 4 * h)}",
       b="{f'B-dk{k}': dict(d_k=k, d_v=d_k) for k in (d_k // 4, d_k // 2)}", dk="base.get('d_k') or d // h",
       ret="{{**A, **B}}"):
    return f"""
def rows_ab(base):
    d, h = base['d_model'], base['h']; d_k = {dk}
    A = {a}
    B = {b}
    return {ret.format()}"""
A(nb, 'rows_ab', "h // 8 without max(1, ...): 0 heads for a small model",
  AB(a="{f'A-h{k}': dict(h=k, d_k=d // k, d_v=d // k) for k in (h // 8, h // 2, 2 * h, 4 * h)}"))
A(nb, 'rows_ab', "row (B) changes d_v too: dict(d_k=k, d_v=k)",
  AB(b="{f'B-dk{k}': dict(d_k=k, d_v=k) for k in (d_k // 4, d_k // 2)}"))
A(nb, 'rows_ab', "Table 3's own head counts hard-coded: 1, 4, 16, 32",
  AB(a="{f'A-h{k}': dict(h=k, d_k=d // k, d_v=d // k) for k in (1, 4, 16, 32)}"))
A(nb, 'rows_ab', "a list of (name, overrides) pairs", AB(ret="[*A.items(), *B.items()]"))
A(nb, 'rows_ab', "the base row {'base': {}} included", AB(ret="{{'base': {{}}, **A, **B}}"))
A(nb, 'rows_ab', "d_k = d // h: the preset's own d_k ignored", AB(dk="d // h"))

# 13_parsing: my_linearize, my_corpus_prf
nb = '13_parsing'
A(nb, 'my_linearize', None, """
def my_linearize(tree):
    if isinstance(tree, str): return tree
    if is_preterminal(tree): return tree[0]
    lab = coarse_label(tree.label())
    return ' '.join([f'({lab}', *(my_linearize(t) for t in tree), f'){lab}'])""")
A(nb, 'my_corpus_prf', None, """
def my_corpus_prf(counts):
    m, g, t = (sum(c[i] for c in counts) for i in range(3))
    p, r = 100 * m / t, 100 * m / g
    return p, r, 2 * p * r / (p + r)""")
def LIN(leaf="tree[0]", lab="coarse_label(tree.label())", body="' '.join([f'({lab}', *(my_linearize(t) for t in tree), f'){lab}'])",
        bare="if isinstance(tree, str): return tree\n    "):
    return f"""
def my_linearize(tree):
    {bare}if is_preterminal(tree): return {leaf}
    lab = {lab}
    return {body}"""
A(nb, 'my_linearize', "POS nodes bracketed too: (NNP John )NNP", """
def my_linearize(tree):
    if isinstance(tree, str): return tree
    lab = coarse_label(tree.label())
    return ' '.join([f'({lab}', *(my_linearize(t) for t in tree), f'){lab}'])""")
A(nb, 'my_linearize', "the full label, function tags kept: tree.label()", LIN(lab="tree.label()"))
A(nb, 'my_linearize', "tags stripped with label.split('-')[0]: 'NP=1' kept, '-NONE-' emptied", LIN(lab="tree.label().split('-')[0]"))
A(nb, 'my_linearize', "a list of tokens, not a string", """
def my_linearize(tree):
    if isinstance(tree, str): return [tree]
    if is_preterminal(tree): return [tree[0]]
    lab = coarse_label(tree.label())
    return [f'({lab}', *(x for t in tree for x in my_linearize(t)), f'){lab}']""")
A(nb, 'my_linearize', "closing brackets written LABEL), not )LABEL",
  LIN(body="' '.join([f'({lab}', *(my_linearize(t) for t in tree), f'{lab})'])"))
A(nb, 'my_linearize', "the words lower-cased", LIN(leaf="tree[0].lower()", bare="if isinstance(tree, str): return tree.lower()\n    "))
A(nb, 'my_linearize', "bare words under a phrase not handled: str has no label()", LIN(bare=""))
A(nb, 'my_linearize', "the brackets glued to the tokens, no spaces: '(S(NP John)NP'",
  LIN(body="f'({lab}' + ' '.join(my_linearize(t) for t in tree) + f'){lab}'"))
def PRF(body):
    return f"""
def my_corpus_prf(counts):
    {body}"""
A(nb, 'my_corpus_prf', "the mean of the sentences' precision, recall and F1 (macro)",
  PRF("ps = [100 * m / t if t else 0.0 for m, g, t in counts]; rs = [100 * m / g if g else 0.0 for m, g, t in counts]\n"
      "    fs = [2 * p * r / (p + r) if p + r else 0.0 for p, r in zip(ps, rs)]\n"
      "    return sum(ps) / len(ps), sum(rs) / len(rs), sum(fs) / len(fs)"))
A(nb, 'my_corpus_prf', "precision and recall swapped (matched / reference as precision)",
  PRF("m, g, t = (sum(c[i] for c in counts) for i in range(3))\n    p, r = 100 * m / g, 100 * m / t\n    return p, r, 2 * p * r / (p + r)"))
A(nb, 'my_corpus_prf', "fractions, not percent",
  PRF("m, g, t = (sum(c[i] for c in counts) for i in range(3))\n    p, r = m / t, m / g\n    return p, r, 2 * p * r / (p + r)"))
A(nb, 'my_corpus_prf', "F1 as the arithmetic mean (p + r) / 2",
  PRF("m, g, t = (sum(c[i] for c in counts) for i in range(3))\n    p, r = 100 * m / t, 100 * m / g\n    return p, r, (p + r) / 2"))
A(nb, 'my_corpus_prf', "a failed parse (no brackets) left out, its reference brackets too",
  PRF("counts = [c for c in counts if c[2] > 0]\n    m, g, t = (sum(c[i] for c in counts) for i in range(3))\n"
      "    p, r = 100 * m / t, 100 * m / g\n    return p, r, 2 * p * r / (p + r)"))
A(nb, 'my_corpus_prf', "Hugging Face evaluate's dict {'precision', 'recall', 'f1'}",
  PRF("m, g, t = (sum(c[i] for c in counts) for i in range(3))\n    p, r = 100 * m / t, 100 * m / g\n"
      "    return dict(precision=p, recall=r, f1=2 * p * r / (p + r))"))
A(nb, 'my_corpus_prf', "a NumPy array of the three",
  PRF("import numpy as np\n    m, g, t = np.asarray(counts).sum(0)\n    p, r = 100 * m / t, 100 * m / g\n    return np.array([p, r, 2 * p * r / (p + r)])"))
A(nb, 'my_corpus_prf', "rounded to two decimals, as EVALB prints them",
  PRF("m, g, t = (sum(c[i] for c in counts) for i in range(3))\n    p, r = 100 * m / t, 100 * m / g\n"
      "    return round(p, 2), round(r, 2), round(2 * p * r / (p + r), 2)"))
A(nb, 'my_corpus_prf', "a torch user: the counts summed as a tensor, three 0-d tensors returned",
  PRF("m, g, t = torch.tensor(counts).sum(0)\n    p, r = 100 * m / t, 100 * m / g\n    return p, r, 2 * p * r / (p + r)"))

# 14_since_2017: rms_norm_of, rotate_query, group_heads
nb = '14_since_2017'
A(nb, 'rms_norm_of', None, """
def rms_norm_of(a, g, eps=1e-5):
    return a / torch.sqrt(a.pow(2).mean(-1, keepdim=True) + eps) * g""")
A(nb, 'rotate_query', None, """
def rotate_query(q, m):
    a = m * 10000.0 ** (-torch.arange(0, len(q), 2, dtype=torch.float64) / len(q))
    x1, x2 = q[0::2].double(), q[1::2].double()
    return torch.stack([x1 * a.cos() - x2 * a.sin(), x1 * a.sin() + x2 * a.cos()], -1).flatten().to(q.dtype)""")
A(nb, 'group_heads', None, """
def group_heads(k, g):
    B, h, n, d = k.shape
    return k.view(B, g, h // g, n, d).mean(2).repeat_interleave(h // g, dim=1)""")
def RMS(body):
    return f"""
def rms_norm_of(a, g, eps=1e-5):
    {body}"""
A(nb, 'rms_norm_of', "eps added outside the root: / (rms + eps)",
  RMS("return a / (a.pow(2).mean(-1, keepdim=True).sqrt() + eps) * g"))
A(nb, 'rms_norm_of', "no eps at all (a Keras-style l2 scale)",
  RMS("return a * torch.rsqrt(a.pow(2).mean(-1, keepdim=True)) * g"))
A(nb, 'rms_norm_of', "returns (normed, rms)",
  RMS("rms = torch.sqrt(a.pow(2).mean(-1, keepdim=True) + eps)\n    return a / rms * g, rms"))
A(nb, 'rms_norm_of', "LLaMA's eps 1e-6 hard-coded, the argument ignored",
  RMS("return a / torch.sqrt(a.pow(2).mean(-1, keepdim=True) + 1e-6) * g"))
A(nb, 'rms_norm_of', "a divided in place (div_): the input edited",
  RMS("return a.div_(torch.sqrt(a.pow(2).mean(-1, keepdim=True) + eps)).mul_(g)"))
A(nb, 'rms_norm_of', "a NumPy user: np.mean over the array, a NumPy array returned",
  RMS("import numpy as np\n    x = np.asarray(a)\n    return x / np.sqrt(np.mean(x ** 2, axis=-1, keepdims=True) + eps) * np.asarray(g)"))
def ROT(a="m * 10000.0 ** (-torch.arange(0, len(q), 2, dtype=torch.float64) / len(q))",
        out="torch.stack([x1 * a.cos() - x2 * a.sin(), x1 * a.sin() + x2 * a.cos()], -1).flatten().to(q.dtype)"):
    return f"""
def rotate_query(q, m):
    a = {a}
    x1, x2 = q[0::2].double(), q[1::2].double()
    return {out}"""
A(nb, 'rotate_query', "2i read as i: theta_i = 10000^(-i/d), i = 0 .. d/2 - 1",
  ROT(a="m * 10000.0 ** (-torch.arange(len(q) // 2, dtype=torch.float64) / len(q))"))
A(nb, 'rotate_query', "the pairs left stacked: shape (d/2, 2)",
  ROT(out="torch.stack([x1 * a.cos() - x2 * a.sin(), x1 * a.sin() + x2 * a.cos()], -1).to(q.dtype)"))
A(nb, 'rotate_query', "returned in float64 whatever q's dtype",
  ROT(out="torch.stack([x1 * a.cos() - x2 * a.sin(), x1 * a.sin() + x2 * a.cos()], -1).flatten()"))
A(nb, 'rotate_query', "LLaMA 3's rope_theta 500000 for the base",
  ROT(a="m * 500000.0 ** (-torch.arange(0, len(q), 2, dtype=torch.float64) / len(q))"))
A(nb, 'rotate_query', "q rotated in place (a C loop over the pairs)", """
def rotate_query(q, m):
    d = len(q)
    for i in range(d // 2):
        t = m * 10000.0 ** (-2 * i / d)
        x1, x2 = float(q[2 * i]), float(q[2 * i + 1])
        q[2 * i], q[2 * i + 1] = x1 * math.cos(t) - x2 * math.sin(t), x1 * math.sin(t) + x2 * math.cos(t)
    return q""")
A(nb, 'rotate_query', "a Python list of floats",
  ROT(out="torch.stack([x1 * a.cos() - x2 * a.sin(), x1 * a.sin() + x2 * a.cos()], -1).flatten().tolist()"))
def GRP(body):
    return f"""
def group_heads(k, g):
    B, h, n, d = k.shape
    {body}"""
A(nb, 'group_heads', "g ignored: every head the mean of all h (multi-query)",
  GRP("return k.mean(1, keepdim=True).expand(B, h, n, d)"))
A(nb, 'group_heads', "g read as the size of a group (h // g groups of g heads)",
  GRP("return k.view(B, h // g, g, n, d).mean(2).repeat_interleave(g, dim=1)"))
A(nb, 'group_heads', "a NumPy array",
  GRP("return k.view(B, g, h // g, n, d).mean(2).repeat_interleave(h // g, dim=1).numpy()"))
A(nb, 'group_heads', "k overwritten in place and returned",
  GRP("k[:] = k.view(B, g, h // g, n, d).mean(2).repeat_interleave(h // g, dim=1)\n    return k"))
A(nb, 'group_heads', "a list of the g group tensors (torch.chunk over the heads)",
  GRP("return [c.mean(1, keepdim=True).expand_as(c) for c in k.chunk(g, dim=1)]"))
A(nb, 'group_heads', "a JAX user: jnp-style reshape with the groups last, (B, h/g, g, n, d), mean over the groups",
  GRP("return k.reshape(B, h // g, g, n, d).mean(1, keepdim=True).expand(B, h // g, g, n, d).reshape(B, h, n, d)"))
