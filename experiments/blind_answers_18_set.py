"""The eighteenth blind set's answers, for notebooks 08 to 14 only, written from the exercises' text alone: (notebook,
exercise, mistake, code), the mistake None for the right answer. `experiments/blind_answers.py 18` runs them. This set
leans toward answers shaped by other sources' conventions (subword-nmt's '</w>' glued to the last character, its
unbounded string replace and min_frequency 2, minbpe's first-seen ties and one stream of text, GPT-2's bpe_ranks and
fairseq's '@@ ' marker; the Annotated Transformer's step-0-as-1 rate, its factor 2, its KLDivLoss over V - 2 and its
log-softmax generator; fairseq's fixed-peak inverse_sqrt, eps / (V - 1) and summed loss; nanoGPT's cosine schedule,
sampling and cropped context; Hugging Face's -100 labels, shifted targets and min_new_tokens; NLTK's argument order,
list-of-references, 0-1 score and smoothing; torchmetrics' tensor; Vinyals et al.'s XX leaves; NumPy's std; GPT-NeoX's
partial rotary; the cos/sin laid out as halves over interleaved pairs; a GQA checkpoint made by picking heads) and
toward right values in the wrong container, dtype or shape (lists, tuples, dicts, strings, NumPy arrays, tensors)."""
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
          stop="if not pairs: break", rec="merges.append(best)", rounds="range(n_merges)", ret="merges"):
    return f"""
def learn_bpe(word_counts, n_merges):
    vocab = {vocab}
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
A(nb, 'bpe', "subword-nmt's '</w>' glued to the last character ('w</w>')", RIGHT_MERGE
  + LEARN(vocab="{tuple(w[:-1]) + (w[-1] + '</w>',): c for w, c in word_counts.items()}") + """
def segment(word, merges):
    syms = list(word[:-1]) + [word[-1] + '</w>']
    for pair in merges: syms = _merge(syms, pair)
    return syms""")
A(nb, 'bpe', "minbpe's max(stats, key=stats.get): ties go to the pair seen first", RIGHT_MERGE
  + LEARN(best="max(pairs, key=pairs.get)") + RIGHT_SEGMENT)
A(nb, 'bpe', "subword-nmt's min_frequency 2: stops when the best pair occurs once", RIGHT_MERGE
  + LEARN(stop="if not pairs or max(pairs.values()) < 2: break") + RIGHT_SEGMENT)
A(nb, 'bpe', "words kept as space-joined strings, merged with str.replace (no symbol boundaries)", """
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
    for pair in merges: s = s.replace(' '.join(pair), ''.join(pair))
    return s.split()""")
A(nb, 'bpe', "minbpe's one stream: the words joined, pairs counted across word boundaries", RIGHT_MERGE + """
def learn_bpe(word_counts, n_merges):
    stream = [s for w, c in word_counts.items() for _ in range(c) for s in list(w) + ['</w>']]
    merges = []
    for _ in range(n_merges):
        pairs = Counter(zip(stream, stream[1:]))
        if not pairs: break
        best = min(pairs, key=lambda p: (-pairs[p], p))
        merges.append(best)
        stream = _merge(stream, best)
    return merges""" + RIGHT_SEGMENT)
A(nb, 'bpe', "GPT-2's bpe_ranks: a dict pair -> rank, not a list", RIGHT_MERGE
  + LEARN(ret="{p: i for i, p in enumerate(merges)}") + RIGHT_SEGMENT)
A(nb, 'bpe', "fairseq's '@@' continuation marker, no '</w>'", RIGHT_MERGE + LEARN(vocab="{tuple(w): c for w, c in word_counts.items()}") + """
def segment(word, merges):
    syms = list(word)
    for pair in merges: syms = _merge(syms, pair)
    return [s + '@@' for s in syms[:-1]] + syms[-1:]""")
A(nb, 'bpe', "merges recorded as the joined symbol ('es'), not the pair", RIGHT_MERGE + LEARN(rec="merges.append(best[0] + best[1])") + """
def segment(word, merges):
    syms = list(word) + ['</w>']
    for m in merges:
        i = 0
        while i < len(syms) - 1:
            if syms[i] + syms[i + 1] == m: syms[i:i + 2] = [m]
            else: i += 1
    return syms""")
A(nb, 'bpe', 'merges as lists [a, b], not tuples', RIGHT_MERGE + LEARN(rec="merges.append(list(best))") + """
def segment(word, merges):
    syms = list(word) + ['</w>']
    for pair in merges: syms = _merge(syms, tuple(pair))
    return syms""")
A(nb, 'bpe', 'segment returns the pieces joined by spaces, a string', RIGHT_MERGE + LEARN() + """
def segment(word, merges):
    syms = list(word) + ['</w>']
    for pair in merges: syms = _merge(syms, pair)
    return ' '.join(syms)""")
A(nb, 'bpe', 'one merge fewer: range(n_merges - 1)', RIGHT_MERGE + LEARN(rounds="range(n_merges - 1)") + RIGHT_SEGMENT)
A(nb, 'bpe', "a pair counted once per word (a set of the word's pairs), however often it repeats there", RIGHT_MERGE + LEARN(count="""
        for syms, c in vocab.items():
            for a, b in set(zip(syms, syms[1:])): pairs[a, b] += c""") + RIGHT_SEGMENT)
A(nb, 'bpe', "only each word's first occurrence of the pair merged (list.index)", """
def _merge(syms, pair):
    for i in range(len(syms) - 1):
        if (syms[i], syms[i + 1]) == pair: syms[i:i + 2] = [syms[i] + syms[i + 1]]; break
    return syms
""" + LEARN() + RIGHT_SEGMENT)
A(nb, 'bpe', 'word_counts emptied in place as the words are read (popitem)', RIGHT_MERGE + """
def learn_bpe(word_counts, n_merges):
    vocab = {}
    while word_counts:
        w, c = word_counts.popitem()
        vocab[tuple(w) + ('</w>',)] = c
    merges = []
    for _ in range(n_merges):
        pairs = Counter()
        for syms, c in vocab.items():
            for a, b in zip(syms, syms[1:]): pairs[a, b] += c
        if not pairs: break
        best = min(pairs, key=lambda p: (-pairs[p], p))
        merges.append(best)
        vocab = {tuple(_merge(list(syms), best)): c for syms, c in vocab.items()}
    return merges""" + RIGHT_SEGMENT)
A(nb, 'bpe', "segment without '</w>': the end-of-word symbol only in learning", RIGHT_MERGE + LEARN() + """
def segment(word, merges):
    syms = list(word)
    for pair in merges: syms = _merge(syms, pair)
    return syms""")

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
A(nb, 'my_noam_lr', "the Annotated Transformer's rate(): step 0 read as step 1", """
def my_noam_lr(step, d_model=512, warmup=4000):
    if step == 0: step = 1
    return d_model ** -0.5 * min(step ** -0.5, step * warmup ** -1.5)""")
A(nb, 'my_noam_lr', "the Annotated Transformer's NoamOpt factor 2", """
def my_noam_lr(step, d_model=512, warmup=4000):
    if step == 0: return 0.0
    return 2 * d_model ** -0.5 * min(step ** -0.5, step * warmup ** -1.5)""")
A(nb, 'my_noam_lr', "fairseq's inverse_sqrt with a fixed peak lr of 5e-4", """
def my_noam_lr(step, d_model=512, warmup=4000):
    if step == 0: return 0.0
    return 5e-4 * min(step / warmup, (warmup / step) ** 0.5)""")
A(nb, 'my_noam_lr', "nanoGPT's get_lr: linear warm-up to 6e-4, then cosine decay", """
def my_noam_lr(step, d_model=512, warmup=4000):
    max_lr, min_lr, max_steps = 6e-4, 6e-5, 100000
    if step < warmup: return max_lr * step / warmup
    if step > max_steps: return min_lr
    r = (step - warmup) / (max_steps - warmup)
    return min_lr + 0.5 * (1 + math.cos(math.pi * r)) * (max_lr - min_lr)""")
A(nb, 'my_noam_lr', "LambdaLR's 0-based step: (step + 1) in the formula", """
def my_noam_lr(step, d_model=512, warmup=4000):
    if step == 0: return 0.0
    s = step + 1
    return d_model ** -0.5 * min(s ** -0.5, s * warmup ** -1.5)""")
A(nb, 'my_noam_lr', 'returned as a 0-d tensor, not a float', """
def my_noam_lr(step, d_model=512, warmup=4000):
    s = torch.tensor(float(step))
    if step == 0: return torch.tensor(0.0)
    return d_model ** -0.5 * torch.minimum(s ** -0.5, s * warmup ** -1.5)""")
A(nb, 'my_noam_lr', "arguments read in the order (step, warmup, d_model)", """
def my_noam_lr(step, warmup=4000, d_model=512):
    if step == 0: return 0.0
    return d_model ** -0.5 * min(step ** -0.5, step * warmup ** -1.5)""")
A(nb, 'my_noam_lr', 'max for min: the larger of the two branches', """
def my_noam_lr(step, d_model=512, warmup=4000):
    if step == 0: return 0.0
    return d_model ** -0.5 * max(step ** -0.5, step * warmup ** -1.5)""")
A(nb, 'my_label_smoothing', "the Annotated Transformer's KLDivLoss: eps / (V - 2), the pad column zeroed, KL not cross-entropy", """
def my_label_smoothing(logits, target, eps, pad_id=PAD_ID):
    V = logits.shape[-1]
    q = torch.full_like(logits, eps / (V - 2))
    q.scatter_(-1, target[..., None], 1 - eps)
    q[..., pad_id] = 0
    lp = logits.log_softmax(-1)
    kl = (q * (q.clamp_min(1e-30).log() - lp)).sum(-1)
    return kl[target != pad_id].mean()""")
A(nb, 'my_label_smoothing', "fairseq's label_smoothed_nll_loss: eps / (V - 1) to the others", """
def my_label_smoothing(logits, target, eps, pad_id=PAD_ID):
    lp = logits.log_softmax(-1)
    V = lp.shape[-1]
    nll = -lp.gather(-1, target[..., None]).squeeze(-1)
    smooth = -lp.sum(-1)
    eps_i = eps / (V - 1)
    loss = (1 - eps - eps_i) * nll + eps_i * smooth
    return loss[target != pad_id].mean()""")
A(nb, 'my_label_smoothing', "fairseq's reduce=True: the sum over the tokens, not the mean", """
def my_label_smoothing(logits, target, eps, pad_id=PAD_ID):
    V = logits.shape[-1]
    q = torch.full_like(logits, eps / V)
    q.scatter_add_(-1, target[..., None], torch.full_like(logits[..., :1], 1 - eps))
    loss = -(q * logits.log_softmax(-1)).sum(-1)
    return loss[target != pad_id].sum()""")
A(nb, 'my_label_smoothing', "Hugging Face's ignore index -100: pad positions counted", """
def my_label_smoothing(logits, target, eps, pad_id=PAD_ID):
    V = logits.shape[-1]
    q = torch.full_like(logits, eps / V)
    q.scatter_add_(-1, target[..., None], torch.full_like(logits[..., :1], 1 - eps))
    loss = -(q * logits.log_softmax(-1)).sum(-1)
    return loss[target != -100].mean()""")
A(nb, 'my_label_smoothing', "Hugging Face's causal-LM shift: logits[:, :-1] scored against target[:, 1:]", """
def my_label_smoothing(logits, target, eps, pad_id=PAD_ID):
    logits, target = logits[:, :-1], target[:, 1:]
    V = logits.shape[-1]
    q = torch.full_like(logits, eps / V)
    q.scatter_add_(-1, target[..., None], torch.full_like(logits[..., :1], 1 - eps))
    loss = -(q * logits.log_softmax(-1)).sum(-1)
    return loss[target != pad_id].mean()""")
A(nb, 'my_label_smoothing', "the logits read as log-probabilities (the Annotated Transformer's generator already took log_softmax)", """
def my_label_smoothing(logits, target, eps, pad_id=PAD_ID):
    V = logits.shape[-1]
    q = torch.full_like(logits, eps / V)
    q.scatter_add_(-1, target[..., None], torch.full_like(logits[..., :1], 1 - eps))
    loss = -(q * logits).sum(-1)
    return loss[target != pad_id].mean()""")
A(nb, 'my_label_smoothing', "d2l's (B, V, T) layout: log_softmax over axis 1", """
def my_label_smoothing(logits, target, eps, pad_id=PAD_ID):
    V = logits.shape[-1]
    q = torch.full_like(logits, eps / V)
    q.scatter_add_(-1, target[..., None], torch.full_like(logits[..., :1], 1 - eps))
    loss = -(q * logits.log_softmax(1)).sum(-1)
    return loss[target != pad_id].mean()""")
A(nb, 'my_label_smoothing', 'the reference set to 1 - eps (scatter_), losing its eps / V share', """
def my_label_smoothing(logits, target, eps, pad_id=PAD_ID):
    V = logits.shape[-1]
    q = torch.full_like(logits, eps / V)
    q.scatter_(-1, target[..., None], 1 - eps)
    loss = -(q * logits.log_softmax(-1)).sum(-1)
    return loss[target != pad_id].mean()""")
A(nb, 'my_label_smoothing', 'the sum over every position divided by the non-pad count (pads not masked out of the sum)', """
def my_label_smoothing(logits, target, eps, pad_id=PAD_ID):
    V = logits.shape[-1]
    q = torch.full_like(logits, eps / V)
    q.scatter_add_(-1, target[..., None], torch.full_like(logits[..., :1], 1 - eps))
    loss = -(q * logits.log_softmax(-1)).sum(-1)
    return loss.sum() / (target != pad_id).sum()""")
A(nb, 'my_label_smoothing', 'the per-token losses returned, no mean', """
def my_label_smoothing(logits, target, eps, pad_id=PAD_ID):
    V = logits.shape[-1]
    q = torch.full_like(logits, eps / V)
    q.scatter_add_(-1, target[..., None], torch.full_like(logits[..., :1], 1 - eps))
    loss = -(q * logits.log_softmax(-1)).sum(-1)
    return loss[target != pad_id]""")

# 10_decoding: my_greedy_step
nb = '10_decoding'
A(nb, 'my_greedy_step', None, """
def my_greedy_step(model, src, ys):
    logits = model(src, ys)[:, -1]
    return next_token_logits(logits).argmax(-1)""")
A(nb, 'my_greedy_step', "the first position's logits ([:, 0]), not the last", """
def my_greedy_step(model, src, ys):
    logits = model(src, ys)[:, 0]
    return next_token_logits(logits).argmax(-1)""")
A(nb, 'my_greedy_step', 'PAD and BOS not forbidden: a plain argmax', """
def my_greedy_step(model, src, ys):
    return model(src, ys)[:, -1].argmax(-1)""")
A(nb, 'my_greedy_step', "EOS forbidden too (Hugging Face's min_new_tokens)", """
def my_greedy_step(model, src, ys):
    logits = next_token_logits(model(src, ys)[:, -1])
    logits[:, EOS_ID] = float('-inf')
    return logits.argmax(-1)""")
A(nb, 'my_greedy_step', 'model(ys, src): source and prefix swapped', """
def my_greedy_step(model, src, ys):
    logits = model(ys, src)[:, -1]
    return next_token_logits(logits).argmax(-1)""")
A(nb, 'my_greedy_step', 'a Python list of ints (.tolist())', """
def my_greedy_step(model, src, ys):
    logits = model(src, ys)[:, -1]
    return next_token_logits(logits).argmax(-1).tolist()""")
A(nb, 'my_greedy_step', 'a NumPy array of the ids', """
def my_greedy_step(model, src, ys):
    logits = model(src, ys)[:, -1]
    return next_token_logits(logits).argmax(-1).numpy()""")
A(nb, 'my_greedy_step', "torch.max's (values, indices) returned whole", """
def my_greedy_step(model, src, ys):
    logits = model(src, ys)[:, -1]
    return torch.max(next_token_logits(logits), dim=-1)""")
A(nb, 'my_greedy_step', "nanoGPT's generate: a sample from the softmax (torch.multinomial), not the argmax", """
def my_greedy_step(model, src, ys):
    logits = next_token_logits(model(src, ys)[:, -1])
    return torch.multinomial(logits.softmax(-1), 1).squeeze(-1)""")
A(nb, 'my_greedy_step', "nanoGPT's context crop: only the last 3 tokens of the prefix fed", """
def my_greedy_step(model, src, ys):
    logits = model(src, ys[:, -3:])[:, -1]
    return next_token_logits(logits).argmax(-1)""")
A(nb, 'my_greedy_step', 'the prefix fed without its BOS (ys[:, 1:])', """
def my_greedy_step(model, src, ys):
    logits = model(src, ys[:, 1:])[:, -1]
    return next_token_logits(logits).argmax(-1)""")
A(nb, 'my_greedy_step', 'next_token_logits applied to the (B, t, V) logits before taking the last position', """
def my_greedy_step(model, src, ys):
    logits = next_token_logits(model(src, ys))
    return logits[:, -1].argmax(-1)""")
A(nb, 'my_greedy_step', "the best token's score (.max().values), not its id", """
def my_greedy_step(model, src, ys):
    logits = model(src, ys)[:, -1]
    return next_token_logits(logits).max(-1).values""")
A(nb, 'my_greedy_step', 'ids returned as floats (.float())', """
def my_greedy_step(model, src, ys):
    logits = model(src, ys)[:, -1]
    return next_token_logits(logits).argmax(-1).float()""")
A(nb, 'my_greedy_step', "a batch of one assumed, as Hugging Face's examples: the first row's token, a 0-d tensor", """
def my_greedy_step(model, src, ys):
    logits = model(src, ys)[0, -1]
    return next_token_logits(logits[None]).argmax(-1)[0]""")
A(nb, 'my_greedy_step', 'softmax over the batch axis (dim=0) before the argmax', """
def my_greedy_step(model, src, ys):
    logits = next_token_logits(model(src, ys)[:, -1])
    return logits.softmax(0).argmax(-1)""")

# 11_results: my_bleu
nb = '11_results'
def BLEU(split="h, ref = h.split(), ref.split()", ngr="lambda ws, n: Counter(tuple(ws[i:i + n]) for i in range(len(ws) - n + 1))",
         acc="c, r = c + len(h), r + len(ref)", match="sum((ngrams(h, n) & ngrams(ref, n)).values())",
         total="max(len(h) - n + 1, 0)", orders="range(1, 5)", bp="min(1.0, math.exp(1 - r / c))",
         mean="math.exp(sum(math.log(m / t) for m, t in zip(match, total)) / 4)", ret="100 * bp * {mean}", args="hyps, refs"):
    return f"""
def my_bleu({args}):
    ngrams = {ngr}
    match, total, c, r = [0] * 4, [0] * 4, 0, 0
    for h, ref in zip(hyps, refs):
        {split}
        {acc}
        for n in {orders}:
            match[n - 1] += {match}
            total[n - 1] += {total}
    bp = {bp}
    return {ret.format(mean=mean)}
"""
A(nb, 'my_bleu', None, BLEU())
A(nb, 'my_bleu', "NLTK's corpus_bleu(references, hypotheses): the arguments read refs first", BLEU(args="refs, hyps"))
A(nb, 'my_bleu', "NLTK's 0-1 score, not 0-100", BLEU(ret="bp * {mean}"))
A(nb, 'my_bleu', "NLTK's list of references per hypothesis: each reference string iterated as references (its characters)", """
def my_bleu(hyps, refs):
    ngrams = lambda ws, n: Counter(tuple(ws[i:i + n]) for i in range(len(ws) - n + 1))
    match, total, c, r = [0] * 4, [0] * 4, 0, 0
    for h, rs in zip(hyps, refs):
        h, rs = h.split(), [x.split() for x in rs]
        c += len(h)
        r += min((len(x) for x in rs), key=lambda L: (abs(L - len(h)), L))
        for n in range(1, 5):
            best = Counter()
            for x in rs: best |= ngrams(x, n)
            match[n - 1] += sum((ngrams(h, n) & best).values())
            total[n - 1] += max(len(h) - n + 1, 0)
    bp = min(1.0, math.exp(1 - r / c))
    return 100 * bp * math.exp(sum(math.log(max(m, 1e-9) / t) for m, t in zip(match, total)) / 4)""")
A(nb, 'my_bleu', "NLTK's add-one smoothing (method2) on every order", BLEU(mean="math.exp(sum(math.log((m + 1) / (t + 1)) for m, t in zip(match, total)) / 4)"))
A(nb, 'my_bleu', 'the brevity penalty without min(1, .): above 1 for long hypotheses', BLEU(bp="math.exp(1 - r / c)"))
A(nb, 'my_bleu', 'the brevity penalty with c and r swapped: exp(1 - c / r)', BLEU(bp="min(1.0, math.exp(1 - c / r))"))
A(nb, 'my_bleu', 'the arithmetic mean of the precisions, not the geometric', BLEU(mean="sum(m / t for m, t in zip(match, total)) / 4"))
A(nb, 'my_bleu', 'no clipping: every hypothesis n-gram found in the reference counts', BLEU(match="sum(k for g, k in ngrams(h, n).items() if g in ngrams(ref, n))"))
A(nb, 'my_bleu', "the denominator the reference's n-grams (a recall)", BLEU(total="max(len(ref) - n + 1, 0)"))
A(nb, 'my_bleu', 'characters for words (list(h))', BLEU(split="h, ref = list(h), list(ref)"))
A(nb, 'my_bleu', "sacreBLEU's lowercase=True", BLEU(split="h, ref = h.lower().split(), ref.lower().split()"))
A(nb, 'my_bleu', 'n-grams counted with range(len(ws) - n): the last one missed', BLEU(ngr="lambda ws, n: Counter(tuple(ws[i:i + n]) for i in range(len(ws) - n))"))
A(nb, 'my_bleu', 'lengths not accumulated: c and r of the last sentence only', BLEU(acc="c, r = len(h), len(ref)"))
A(nb, 'my_bleu', "torchmetrics' BLEUScore: a 0-d tensor", BLEU(ret="torch.tensor(100 * bp * {mean})"))
A(nb, 'my_bleu', "sacreBLEU's result object read as a dict: {'score': ..., 'precisions': ...}",
  BLEU(ret="{{'score': 100 * bp * {mean}, 'precisions': [100 * m / t for m, t in zip(match, total)], 'bp': bp}}"))

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
A(nb, 'beyond_noise', "NumPy's standard deviation of the base seeds as the noise", """
import numpy as np
def beyond_noise(recs):
    base = next(r['bleu'] for r in recs if r['id'] == 'base')
    noise = float(np.std([r['bleu'] for r in recs if r['variant'] == 'base']))
    return [r['id'] for r in recs if r['variant'] != 'base' and abs(r['bleu'] - base) > noise]""")
A(nb, 'rows_ab', "row (A) sets d_k only: d_v left at the base's", """
def rows_ab(base):
    d, h = base['d_model'], base['h']; d_k = base.get('d_k') or d // h
    return {**{f'A-h{k}': dict(h=k, d_k=d // k) for k in (max(1, h // 8), h // 2, 2 * h, 4 * h)},
            **{f'B-dk{k}': dict(d_k=k, d_v=d_k) for k in (d_k // 4, d_k // 2)}}""")
A(nb, 'heads_looking', 'heads numbered from 0', """
def heads_looking(w, rows, col):
    return [h for h in range(w.shape[0]) if all(w[h, r].argmax() == col for r in rows)]""")
A(nb, 'beyond_noise', 'the records returned, not their ids', """
def beyond_noise(recs):
    base = next(r['bleu'] for r in recs if r['id'] == 'base')
    noise = max(abs(r['bleu'] - base) for r in recs if r['variant'] == 'base' and r['id'] != 'base')
    return [r for r in recs if r['variant'] != 'base' and abs(r['bleu'] - base) > noise]""")
A(nb, 'rows_ab', 'row (B) changes d_v with d_k', """
def rows_ab(base):
    d, h = base['d_model'], base['h']; d_k = base.get('d_k') or d // h
    return {**{f'A-h{k}': dict(h=k, d_k=d // k, d_v=d // k) for k in (max(1, h // 8), h // 2, 2 * h, 4 * h)},
            **{f'B-dk{k}': dict(d_k=k, d_v=k) for k in (d_k // 4, d_k // 2)}}""")
A(nb, 'heads_looking', 'any row, not every row, looking at col', """
def heads_looking(w, rows, col):
    return [h + 1 for h in range(w.shape[0]) if any(w[h, r].argmax() == col for r in rows)]""")
A(nb, 'rows_ab', 'h // 8 without max(1, .): 0 heads for a model of fewer than 8', """
def rows_ab(base):
    d, h = base['d_model'], base['h']; d_k = base.get('d_k') or d // h
    return {**{f'A-h{k}': dict(h=k, d_k=d // k if k else 0, d_v=d // k if k else 0) for k in (h // 8, h // 2, 2 * h, 4 * h)},
            **{f'B-dk{k}': dict(d_k=k, d_v=d_k) for k in (d_k // 4, d_k // 2)}}""")
A(nb, 'heads_looking', "the rows' weights averaged, then one argmax", """
def heads_looking(w, rows, col):
    return [h + 1 for h in range(w.shape[0]) if w[h, rows].mean(0).argmax() == col]""")
A(nb, 'beyond_noise', "the base taken as the mean of the base variant's seed runs", """
def beyond_noise(recs):
    seeds = [r['bleu'] for r in recs if r['variant'] == 'base']
    base = sum(seeds) / len(seeds)
    noise = max(abs(b - base) for b in seeds)
    return [r['id'] for r in recs if r['variant'] != 'base' and abs(r['bleu'] - base) > noise]""")
A(nb, 'rows_ab', "d_k taken as d_model // h, the preset's own d_k ignored", """
def rows_ab(base):
    d, h = base['d_model'], base['h']; d_k = d // h
    return {**{f'A-h{k}': dict(h=k, d_k=d // k, d_v=d // k) for k in (max(1, h // 8), h // 2, 2 * h, 4 * h)},
            **{f'B-dk{k}': dict(d_k=k, d_v=d_k) for k in (d_k // 4, d_k // 2)}}""")
A(nb, 'heads_looking', 'a tensor of the head numbers (nonzero + 1), not a list', """
def heads_looking(w, rows, col):
    ok = (w[:, rows].argmax(-1) == col).all(-1)
    return ok.nonzero().flatten() + 1""")
A(nb, 'beyond_noise', 'only improvements: bleu - base > noise, the sign kept', """
def beyond_noise(recs):
    base = next(r['bleu'] for r in recs if r['id'] == 'base')
    noise = max(abs(r['bleu'] - base) for r in recs if r['variant'] == 'base' and r['id'] != 'base')
    return [r['id'] for r in recs if r['variant'] != 'base' and r['bleu'] - base > noise]""")
A(nb, 'rows_ab', 'sizes divided with /: float d_k and d_v', """
def rows_ab(base):
    d, h = base['d_model'], base['h']; d_k = base.get('d_k') or d / h
    return {**{f'A-h{k}': dict(h=k, d_k=d / k, d_v=d / k) for k in (max(1, h // 8), h // 2, 2 * h, 4 * h)},
            **{f'B-dk{k}': dict(d_k=k, d_v=d_k) for k in (int(d_k // 4), int(d_k // 2))}}""")
A(nb, 'heads_looking', 'a weight above 0.5 read as looking, not the largest', """
def heads_looking(w, rows, col):
    return [h + 1 for h in range(w.shape[0]) if all(w[h, r, col] > 0.5 for r in rows)]""")
A(nb, 'beyond_noise', "the noise as the range of the base seeds' BLEU (max - min)", """
def beyond_noise(recs):
    base = next(r['bleu'] for r in recs if r['id'] == 'base')
    seeds = [r['bleu'] for r in recs if r['variant'] == 'base']
    noise = max(seeds) - min(seeds)
    return [r['id'] for r in recs if r['variant'] != 'base' and abs(r['bleu'] - base) > noise]""")
A(nb, 'rows_ab', "the paper's head counts 1, 4, 16, 32, not scaled to h", """
def rows_ab(base):
    d, h = base['d_model'], base['h']; d_k = base.get('d_k') or d // h
    return {**{f'A-h{k}': dict(h=k, d_k=d // k, d_v=d // k) for k in (1, 4, 16, 32)},
            **{f'B-dk{k}': dict(d_k=k, d_v=d_k) for k in (d_k // 4, d_k // 2)}}""")
A(nb, 'rows_ab', 'a list of (name, overrides) pairs, not a dict', """
def rows_ab(base):
    d, h = base['d_model'], base['h']; d_k = base.get('d_k') or d // h
    return [*((f'A-h{k}', dict(h=k, d_k=d // k, d_v=d // k)) for k in (max(1, h // 8), h // 2, 2 * h, 4 * h)),
            *((f'B-dk{k}', dict(d_k=k, d_v=d_k)) for k in (d_k // 4, d_k // 2))]""")

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
A(nb, 'my_linearize', "Vinyals et al.'s XX for every word", """
def my_linearize(tree):
    if isinstance(tree, str): return 'XX'
    if is_preterminal(tree): return 'XX'
    lab = coarse_label(tree.label())
    return ' '.join([f'({lab}', *(my_linearize(t) for t in tree), f'){lab}'])""")
A(nb, 'my_corpus_prf', "each sentence's P, R, F1 averaged (a macro average)", """
def my_corpus_prf(counts):
    ps, rs, fs = [], [], []
    for m, g, t in counts:
        p = 100 * m / t if t else 0.0
        r = 100 * m / g if g else 0.0
        ps.append(p); rs.append(r); fs.append(2 * p * r / (p + r) if p + r else 0.0)
    n = len(counts)
    return sum(ps) / n, sum(rs) / n, sum(fs) / n""")
A(nb, 'my_linearize', 'POS nodes bracketed too: (NNP John )NNP', """
def my_linearize(tree):
    if isinstance(tree, str): return tree
    lab = coarse_label(tree.label())
    return ' '.join([f'({lab}', *(my_linearize(t) for t in tree), f'){lab}'])""")
A(nb, 'my_corpus_prf', 'precision and recall swapped (matched over the reference for precision)', """
def my_corpus_prf(counts):
    m, g, t = (sum(c[i] for c in counts) for i in range(3))
    p, r = 100 * m / g, 100 * m / t
    return p, r, 2 * p * r / (p + r)""")
A(nb, 'my_linearize', 'the POS tag at each leaf, not the word', """
def my_linearize(tree):
    if isinstance(tree, str): return tree
    if is_preterminal(tree): return coarse_label(tree.label())
    lab = coarse_label(tree.label())
    return ' '.join([f'({lab}', *(my_linearize(t) for t in tree), f'){lab}'])""")
A(nb, 'my_corpus_prf', 'fractions, not percent', """
def my_corpus_prf(counts):
    m, g, t = (sum(c[i] for c in counts) for i in range(3))
    p, r = m / t, m / g
    return p, r, 2 * p * r / (p + r)""")
A(nb, 'my_linearize', 'the closing bracket keeps the full label (NP-SBJ)', """
def my_linearize(tree):
    if isinstance(tree, str): return tree
    if is_preterminal(tree): return tree[0]
    lab = coarse_label(tree.label())
    return ' '.join([f'({lab}', *(my_linearize(t) for t in tree), f'){tree.label()}'])""")
A(nb, 'my_corpus_prf', 'a failed parse (no brackets) skipped: its reference brackets dropped from the recall', """
def my_corpus_prf(counts):
    counts = [c for c in counts if c[2] > 0]
    m, g, t = (sum(c[i] for c in counts) for i in range(3))
    p, r = 100 * m / t, 100 * m / g
    return p, r, 2 * p * r / (p + r)""")
A(nb, 'my_linearize', "the label cut at '-' by hand: '=' indices kept, -NONE- emptied", """
def my_linearize(tree):
    if isinstance(tree, str): return tree
    if is_preterminal(tree): return tree[0]
    lab = tree.label().split('-')[0]
    return ' '.join([f'({lab}', *(my_linearize(t) for t in tree), f'){lab}'])""")
A(nb, 'my_corpus_prf', 'F1 as the arithmetic mean of P and R', """
def my_corpus_prf(counts):
    m, g, t = (sum(c[i] for c in counts) for i in range(3))
    p, r = 100 * m / t, 100 * m / g
    return p, r, (p + r) / 2""")
A(nb, 'my_linearize', 'a list of tokens, not one string', """
def my_linearize(tree):
    if isinstance(tree, str): return [tree]
    if is_preterminal(tree): return [tree[0]]
    lab = coarse_label(tree.label())
    return [f'({lab}', *(x for t in tree for x in my_linearize(t)), f'){lab}']""")
A(nb, 'my_corpus_prf', "a dict {'precision', 'recall', 'f1'}, as evaluate's metrics return", """
def my_corpus_prf(counts):
    m, g, t = (sum(c[i] for c in counts) for i in range(3))
    p, r = 100 * m / t, 100 * m / g
    return {'precision': p, 'recall': r, 'f1': 2 * p * r / (p + r)}""")
A(nb, 'my_linearize', "nltk's own bracketing: str(tree) on one line", """
def my_linearize(tree):
    return ' '.join(str(tree).split())""")
A(nb, 'my_corpus_prf', 'a NumPy array of the three', """
import numpy as np
def my_corpus_prf(counts):
    m, g, t = np.asarray(counts, dtype=float).sum(0)
    p, r = 100 * m / t, 100 * m / g
    return np.array([p, r, 2 * p * r / (p + r)])""")
A(nb, 'my_linearize', "the treebank's root stripped (ROOT, TOP or unlabelled): its children joined bare", """
def my_linearize(tree):
    if isinstance(tree, str): return tree
    if is_preterminal(tree): return tree[0]
    if tree.label() in ('', 'ROOT', 'TOP'): return ' '.join(my_linearize(t) for t in tree)
    lab = coarse_label(tree.label())
    return ' '.join([f'({lab}', *(my_linearize(t) for t in tree), f'){lab}'])""")
A(nb, 'my_corpus_prf', "Python 2's integer division: 100 * m // t", """
def my_corpus_prf(counts):
    m, g, t = (sum(c[i] for c in counts) for i in range(3))
    p, r = 100 * m // t, 100 * m // g
    return p, r, 2 * p * r / (p + r)""")

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
A(nb, 'rms_norm_of', "F.layer_norm with the gain: centred", """
def rms_norm_of(a, g, eps=1e-5):
    return F.layer_norm(a, a.shape[-1:], weight=g, eps=eps)""")
A(nb, 'rotate_query', "GPT-NeoX's rotary_pct 0.25: only the first quarter of the coordinates turned", """
def rotate_query(q, m):
    d = len(q); r = d // 4 if d >= 8 else 2
    a = m * 10000.0 ** (-torch.arange(0, r, 2, dtype=torch.float64) / r)
    x1, x2 = q[0:r:2].double(), q[1:r:2].double()
    head = torch.stack([x1 * a.cos() - x2 * a.sin(), x1 * a.sin() + x2 * a.cos()], -1).flatten()
    return torch.cat([head, q[r:].double()]).to(q.dtype)""")
A(nb, 'group_heads', "the first head of each group kept (a GQA checkpoint made by picking heads), not the mean", """
def group_heads(k, g):
    B, h, n, d = k.shape
    return k[:, ::h // g].repeat_interleave(h // g, dim=1)""")
A(nb, 'rms_norm_of', "eps added outside the root: sqrt(mean) + eps", """
def rms_norm_of(a, g, eps=1e-5):
    return a / (torch.sqrt(a.pow(2).mean(-1, keepdim=True)) + eps) * g""")
A(nb, 'rotate_query', "Hugging Face's cos/sin laid out as halves (cat([a, a])) applied to interleaved pairs", """
def rotate_query(q, m):
    d = len(q)
    a = m * 10000.0 ** (-torch.arange(0, d, 2, dtype=torch.float64) / d)
    cos, sin = torch.cat([a, a]).cos(), torch.cat([a, a]).sin()
    x = q.double()
    turned = torch.stack([-x[1::2], x[0::2]], -1).flatten()
    return (x * cos + turned * sin).to(q.dtype)""")
A(nb, 'group_heads', 'the mean taken across the groups (axis 1 of (B, g, h/g, n, d)), not within', """
def group_heads(k, g):
    B, h, n, d = k.shape
    return k.view(B, g, h // g, n, d).mean(1).repeat(1, g, 1, 1)""")
A(nb, 'rms_norm_of', 'divided by the L2 norm (no 1/d inside the root)', """
def rms_norm_of(a, g, eps=1e-5):
    return a / torch.sqrt(a.pow(2).sum(-1, keepdim=True) + eps) * g""")
A(nb, 'rotate_query', 'q turned in place (slices assigned)', """
def rotate_query(q, m):
    a = m * 10000.0 ** (-torch.arange(0, len(q), 2, dtype=torch.float64) / len(q))
    x1, x2 = q[0::2].double(), q[1::2].double()
    q[0::2] = (x1 * a.cos() - x2 * a.sin()).to(q.dtype)
    q[1::2] = (x1 * a.sin() + x2 * a.cos()).to(q.dtype)
    return q""")
A(nb, 'group_heads', 'g read as the size of each group (h/g groups of g heads)', """
def group_heads(k, g):
    B, h, n, d = k.shape
    return k.view(B, h // g, g, n, d).mean(2).repeat_interleave(g, dim=1)""")
A(nb, 'rms_norm_of', 'a NumPy array (computed in NumPy)', """
import numpy as np
def rms_norm_of(a, g, eps=1e-5):
    x, w = a.numpy(), g.numpy()
    return x / np.sqrt((x ** 2).mean(-1, keepdims=True) + eps) * w""")
A(nb, 'rotate_query', 'the pairs left as a (d/2, 2) tensor, not flattened', """
def rotate_query(q, m):
    a = m * 10000.0 ** (-torch.arange(0, len(q), 2, dtype=torch.float64) / len(q))
    x1, x2 = q[0::2].double(), q[1::2].double()
    return torch.stack([x1 * a.cos() - x2 * a.sin(), x1 * a.sin() + x2 * a.cos()], -1).to(q.dtype)""")
A(nb, 'group_heads', 'the sum of the group divided by g, not by h/g', """
def group_heads(k, g):
    B, h, n, d = k.shape
    return (k.view(B, g, h // g, n, d).sum(2) / g).repeat_interleave(h // g, dim=1)""")
A(nb, 'rms_norm_of', 'written into a in place (div_, mul_)', """
def rms_norm_of(a, g, eps=1e-5):
    return a.div_(torch.sqrt(a.pow(2).mean(-1, keepdim=True) + eps)).mul_(g)""")
A(nb, 'rotate_query', 'a Python list of floats', """
def rotate_query(q, m):
    out = []
    for i in range(0, len(q), 2):
        a = m * 10000.0 ** (-i / len(q))
        x, y = float(q[i]), float(q[i + 1])
        out += [x * math.cos(a) - y * math.sin(a), x * math.sin(a) + y * math.cos(a)]
    return out""")
A(nb, 'group_heads', 'a NumPy array of the grouped keys', """
import numpy as np
def group_heads(k, g):
    B, h, n, d = k.shape
    x = k.numpy().reshape(B, g, h // g, n, d).mean(2)
    return np.repeat(x, h // g, axis=1)""")
A(nb, 'rms_norm_of', 'the mean of |a| for the root mean square', """
def rms_norm_of(a, g, eps=1e-5):
    return a / (a.abs().mean(-1, keepdim=True) + eps) * g""")
A(nb, 'rms_norm_of', 'the gain added, as a bias (a / RMS + g)', """
def rms_norm_of(a, g, eps=1e-5):
    return a / torch.sqrt(a.pow(2).mean(-1, keepdim=True) + eps) + g""")
A(nb, 'rms_norm_of', 'returned in float16 (a mixed-precision habit)', """
def rms_norm_of(a, g, eps=1e-5):
    return (a / torch.sqrt(a.pow(2).mean(-1, keepdim=True) + eps) * g).half()""")
