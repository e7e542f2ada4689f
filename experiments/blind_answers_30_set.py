"""The thirtieth blind set's answers, for notebooks 08 to 10 only (08_data, 09_training, 10_decoding), written from the
exercises' text alone: (notebook, exercise, mistake, code), the mistake None for the right answer.
`experiments/blind_answers.py 30` runs them. This set goes where the earlier sets for these notebooks did not: answers
right on every input the text allows but one (n_merges 0, a tie the tuple order breaks and the joined string does not,
PAD and BOS both among the two best tokens, a padded source, a pad_id other than 0, 2-d or 3-d logits, logits large
enough to underflow a softmax, a first optimiser update), vectorised slips (an index of the wrong shape for scatter,
advanced indexing that broadcasts, a slice with an exclusive stop, a mask of three dimensions, log_softmax without a dim
or over the batch), operator precedence (x ** -1/2), incremental pair counts not updated, merges cut short in a word,
the last symbol lost by a loop bound, a per-step cache keyed by the step alone, logits shifted in place, and averages
taken per sentence.
The right answers are the twenty-seventh set's."""
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
          ret="merges", pre="", rec="best"):
    return f"""
def learn_bpe(word_counts, n_merges):
    {pre}vocab = {vocab}
    merges = []
    for _ in {rounds}:
        pairs = Counter(){count}
        if not pairs: break
        best = {best}
        merges.append({rec})
        {apply}
    return {ret}
"""
A(nb, 'bpe', None, MERGE + LEARN() + SEG)
A(nb, 'bpe', "ties broken by the joined string (p[0] + p[1]), not the tuple: ('ab', 'c') and ('a', 'bc') compare equal, ('a', 'z') after ('ab', 'c')",
  MERGE + LEARN(best="min(pairs, key=lambda p: (-pairs[p], p[0] + p[1]))") + SEG)
A(nb, 'bpe', 'ties broken by the largest pair: max(pairs, key=lambda p: (pairs[p], p))',
  MERGE + LEARN(best="max(pairs, key=lambda p: (pairs[p], p))") + SEG)
A(nb, 'bpe', 'ties broken by the reversed pair (p[1], p[0])',
  MERGE + LEARN(best="min(pairs, key=lambda p: (-pairs[p], p[1], p[0]))") + SEG)
A(nb, 'bpe', "a pair counted once per word however often it occurs there (Counter.update with a dict of the word's pairs)",
  MERGE + LEARN(count="""
        for syms, c in vocab.items():
            pairs.update({p: c for p in zip(syms, syms[1:])})""") + SEG)
A(nb, 'bpe', "pairs counted once per distinct word (the word's count ignored)",
  MERGE + LEARN(count="""
        for syms, c in vocab.items():
            for a, b in zip(syms, syms[1:]): pairs[a, b] += 1""") + SEG)
A(nb, 'bpe', 'merges stop at n_merges only after one more: the check after the append (while True), so n_merges = 0 gives one merge', MERGE + """
def learn_bpe(word_counts, n_merges):
    vocab = {tuple(w) + ('</w>',): c for w, c in word_counts.items()}
    merges = []
    while True:
        pairs = Counter()
        for syms, c in vocab.items():
            for a, b in zip(syms, syms[1:]): pairs[a, b] += c
        if not pairs: break
        best = min(pairs, key=lambda p: (-pairs[p], p))
        merges.append(best)
        vocab = {tuple(_merge(list(syms), best)): c for syms, c in vocab.items()}
        if len(merges) >= max(n_merges, 1): break
    return merges
""" + SEG)
A(nb, 'bpe', 'one merge fewer than asked: range(n_merges - 1)', MERGE + LEARN(rounds="range(n_merges - 1)") + SEG)
A(nb, 'bpe', 'a merge applied to the first occurrence in each word only (a return after the first join)', """
def _merge(syms, pair):
    for i in range(len(syms) - 1):
        if (syms[i], syms[i + 1]) == pair: return syms[:i] + [syms[i] + syms[i + 1]] + syms[i + 2:]
    return syms
""" + LEARN() + SEG)
A(nb, 'bpe', 'merges scanned right to left: aaa with (a, a) gives a + aa, not aa + a', """
def _merge(syms, pair):
    i = len(syms) - 2
    while i >= 0:
        if i + 1 < len(syms) and (syms[i], syms[i + 1]) == pair: syms[i:i + 2] = [syms[i] + syms[i + 1]]
        i -= 1
    return syms
""" + LEARN() + SEG)
A(nb, 'bpe', 'a new list built with the loop bound len(syms) - 1: the last symbol dropped when it is not merged', """
def _merge(syms, pair):
    out, i = [], 0
    while i < len(syms) - 1:
        if (syms[i], syms[i + 1]) == pair: out.append(syms[i] + syms[i + 1]); i += 2
        else: out.append(syms[i]); i += 1
    return out
""" + LEARN() + SEG)
A(nb, 'bpe', "incremental pair counts: the merged pair's new neighbours added, the old neighbour pairs never taken away", MERGE + """
def learn_bpe(word_counts, n_merges):
    vocab = {tuple(w) + ('</w>',): c for w, c in word_counts.items()}
    pairs = Counter()
    for syms, c in vocab.items():
        for a, b in zip(syms, syms[1:]): pairs[a, b] += c
    merges = []
    for _ in range(n_merges):
        pairs = +pairs
        if not pairs: break
        best = min(pairs, key=lambda p: (-pairs[p], p))
        merges.append(best)
        del pairs[best]
        new = {}
        for syms, c in vocab.items():
            out = _merge(list(syms), best)
            for i, s in enumerate(out):
                if s == best[0] + best[1]:
                    if i > 0: pairs[out[i - 1], s] += c
                    if i < len(out) - 1: pairs[s, out[i + 1]] += c
            new[tuple(out)] = c
        vocab = new
    return merges
""" + SEG)
A(nb, 'bpe', 'no stop when no pair is left: min() of an empty Counter raises', MERGE + """
def learn_bpe(word_counts, n_merges):
    vocab = {tuple(w) + ('</w>',): c for w, c in word_counts.items()}
    merges = []
    for _ in range(n_merges):
        pairs = Counter()
        for syms, c in vocab.items():
            for a, b in zip(syms, syms[1:]): pairs[a, b] += c
        best = min(pairs, key=lambda p: (-pairs[p], p))
        merges.append(best)
        vocab = {tuple(_merge(list(syms), best)): c for syms, c in vocab.items()}
    return merges
""" + SEG)
A(nb, 'bpe', 'merges recorded as lists [a, b] (a JSON habit), not tuples', MERGE + LEARN(rec="list(best)") + """
def segment(word, merges):
    syms = list(word) + ['</w>']
    for pair in merges: syms = _merge(syms, tuple(pair))
    return syms
""")
A(nb, 'bpe', 'segment returns a tuple of pieces', MERGE + LEARN() + """
def segment(word, merges):
    syms = list(word) + ['</w>']
    for pair in merges: syms = _merge(syms, pair)
    return tuple(syms)
""")
A(nb, 'bpe', "segment strips '</w>' from the pieces it returns (the word's own pieces only)", MERGE + LEARN() + """
def segment(word, merges):
    syms = list(word) + ['</w>']
    for pair in merges: syms = _merge(syms, pair)
    syms[-1] = syms[-1].removesuffix('</w>')
    return [s for s in syms if s]
""")
A(nb, 'bpe', 'segment applies the merges in reverse order (the last learnt first)', MERGE + LEARN() + """
def segment(word, merges):
    syms = list(word) + ['</w>']
    for pair in reversed(merges): syms = _merge(syms, pair)
    return syms
""")
A(nb, 'bpe', 'segment applies each merge to its first occurrence in the word only (a break after one join)', MERGE + LEARN() + """
def segment(word, merges):
    syms = list(word) + ['</w>']
    for a, b in merges:
        for i in range(len(syms) - 1):
            if syms[i] == a and syms[i + 1] == b: syms[i:i + 2] = [a + b]; break
    return syms
""")
A(nb, 'bpe', 'word_counts consumed: the vocabulary built by popping the caller\'s dict', MERGE + LEARN(
  vocab="{tuple(w) + ('</w>',): word_counts.pop(w) for w in list(word_counts)}") + SEG)
A(nb, 'bpe', "segment keyed by a merge's rank, GPT-2 style, but the rank taken from a dict built once (a default argument): stale for other merges", MERGE + LEARN() + """
def segment(word, merges, _ranks={}):
    if not _ranks: _ranks.update({p: i for i, p in enumerate(merges)})
    syms = list(word) + ['</w>']
    while True:
        cands = [(_ranks[p], i) for i, p in enumerate(zip(syms, syms[1:])) if p in _ranks]
        if not cands: return syms
        _, i = min(cands)
        syms[i:i + 2] = [syms[i] + syms[i + 1]]
""")
A(nb, 'bpe', 'ties broken by first occurrence: pairs.most_common(1)[0][0]',
  MERGE + LEARN(best="pairs.most_common(1)[0][0]") + SEG)
A(nb, 'bpe', 'pairs counted with zip(syms, syms[1:-1]): the pair ending in </w> never counted', MERGE + LEARN(count="""
        for syms, c in vocab.items():
            for a, b in zip(syms, syms[1:-1]): pairs[a, b] += c""") + SEG)

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
LOSS = "    loss = -(q * logits.log_softmax(-1)).sum(-1)\n"
A(nb, 'my_noam_lr', 'precedence: step ** -1/2 is (1/step)/2, not 1/sqrt(step)',
  NOAM("if step == 0: return 0.0\n    return d_model ** -0.5 * min(step ** -1/2, step * warmup ** -1.5)"))
A(nb, 'my_noam_lr', 'precedence: warmup ** -3/2 is warmup^-3 / 2',
  NOAM("if step == 0: return 0.0\n    return d_model ** -0.5 * min(step ** -0.5, step * warmup ** -3/2)"))
A(nb, 'my_noam_lr', 'precedence: d_model ** -1/2 is 1/(2 d_model)',
  NOAM("if step == 0: return 0.0\n    return d_model ** -1/2 * min(step ** -0.5, step * warmup ** -1.5)"))
A(nb, 'my_noam_lr', 'step 0 clamped to step 1 (max(step, 1)): a small rate, not 0, at step 0',
  NOAM("step = max(step, 1)\n    return d_model ** -0.5 * min(step ** -0.5, step * warmup ** -1.5)"))
A(nb, 'my_noam_lr', "LambdaLR's i + 1 moved into the function: the rate of step + 1",
  NOAM("if step == 0: return 0.0\n    s = step + 1\n    return d_model ** -0.5 * min(s ** -0.5, s * warmup ** -1.5)"))
A(nb, 'my_noam_lr', 'the warm-up from 0 at the first update: (step - 1) * warmup ** -1.5',
  NOAM("if step == 0: return 0.0\n    return d_model ** -0.5 * min(step ** -0.5, (step - 1) * warmup ** -1.5)"))
A(nb, 'my_noam_lr', 'the factor d_model ** -0.5 inside the min, on the decay branch only',
  NOAM("if step == 0: return 0.0\n    return min(d_model ** -0.5 * step ** -0.5, step * warmup ** -1.5)"))
A(nb, 'my_noam_lr', 'min and max swapped in the clamped form: min(step, warmup) ** -0.5 * min(1, step / warmup)',
  NOAM("if step == 0: return 0.0\n    return d_model ** -0.5 * min(step, warmup) ** -0.5 * min(1, step / warmup)"))
A(nb, 'my_noam_lr', 'a cache keyed by the step alone (a default dict argument): another d_model or warm-up at a cached step gets the old rate',
  NOAM("if step not in _cache: _cache[step] = 0.0 if step == 0 else d_model ** -0.5 * min(step ** -0.5, step * warmup ** -1.5)\n    return _cache[step]",
       sig="step, d_model=512, warmup=4000, _cache={}"))
A(nb, 'my_noam_lr', 'the decay as 1/step, not 1/sqrt(step), scaled to meet the warm-up at its peak',
  NOAM("if step == 0: return 0.0\n    return d_model ** -0.5 * min(warmup ** 0.5 / step, step * warmup ** -1.5)"))
A(nb, 'my_label_smoothing', 'F.log_softmax without dim: 3-d logits get the implicit dim 0 (the batch)',
  LS("V = logits.shape[-1]\n    q = torch.full_like(logits, eps / V)\n    q.scatter_add_(-1, target[..., None], torch.full_like(logits[..., :1], 1 - eps))\n"
     "    loss = -(q * F.log_softmax(logits)).sum(-1)\n    return loss[target != pad_id].mean()"))
A(nb, 'my_label_smoothing', 'log_softmax over axis 1: right for 2-d (N, V) logits only',
  LS(Q + "    loss = -(q * logits.log_softmax(1)).sum(-1)\n    return loss[target != pad_id].mean()"))
A(nb, 'my_label_smoothing', 'V from axis 1 (logits.shape[1]): right for 2-d logits only',
  LS("V = logits.shape[1]\n    q = torch.full_like(logits, eps / V)\n    q.scatter_add_(-1, target[..., None], torch.full_like(logits[..., :1], 1 - eps))\n" + LOSS + "    return loss[target != pad_id].mean()"))
A(nb, 'my_label_smoothing', 'log of softmax: large logits underflow to log 0 = -inf',
  LS(Q + "    loss = -(q * logits.softmax(-1).log()).sum(-1)\n    return loss[target != pad_id].mean()"))
A(nb, 'my_label_smoothing', 'pads zeroed by a mask multiply, then .mean() over every position (the pads in the denominator)',
  LS(Q + LOSS + "    return (loss * (target != pad_id)).mean()"))
A(nb, 'my_label_smoothing', 'the mean per sentence, then over the sentences',
  LS(Q + LOSS + "    m = (target != pad_id).float()\n    return ((loss * m).sum(-1) / m.sum(-1)).mean()"))
A(nb, 'my_label_smoothing', 'pads found as target != 0, the pad_id argument ignored',
  LS(Q + LOSS + "    return loss[target != 0].mean()"))
A(nb, 'my_label_smoothing', 'the reference mass added by q[..., target] += 1 - eps (advanced indexing: every row gets every target)',
  LS("V = logits.shape[-1]\n    q = torch.full_like(logits, eps / V)\n    q[..., target] += 1 - eps\n" + LOSS + "    return loss[target != pad_id].mean()"))
A(nb, 'my_label_smoothing', 'F.one_hot(target) without num_classes: the width taken from the largest id',
  LS("q = (1 - eps) * F.one_hot(target).float() + eps / logits.shape[-1]\n" + LOSS + "    return loss[target != pad_id].mean()"))
A(nb, 'my_label_smoothing', 'the smoothing term summed over V, not averaged: eps * sum(-log p)',
  LS("logp = logits.log_softmax(-1)\n    nll = -logp.gather(-1, target[..., None])[..., 0]\n"
     "    loss = (1 - eps) * nll + eps * (-logp).sum(-1)\n    return loss[target != pad_id].mean()"))
A(nb, 'my_label_smoothing', 'logits shifted in place for stability (logits -= max): the caller\'s tensor edited',
  LS("logits -= logits.max(-1, keepdim=True).values.detach()\n    " + Q + LOSS + "    return loss[target != pad_id].mean()"))
A(nb, 'my_label_smoothing', "cross_entropy on logits.transpose(1, 2) (its (N, V, T) layout): right for 3-d logits only",
  LS("return F.cross_entropy(logits.transpose(1, 2), target, ignore_index=pad_id, label_smoothing=eps)"))

nb = '10_decoding'
def STEP(body): return f"""
def my_greedy_step(model, src, ys):
    {body}
"""
LAST = "logits = model(src, ys)[:, -1]\n    "
A(nb, 'my_greedy_step', None, STEP("logits = model(src, ys)[:, -1]\n    return next_token_logits(logits).argmax(-1)"))
A(nb, 'my_greedy_step', 'next_token_logits on the (B, t, V) logits before the last position: positions 0 and 2 forbidden, not PAD and BOS',
  STEP("return next_token_logits(model(src, ys))[:, -1].argmax(-1)"))
A(nb, 'my_greedy_step', 'logits[:, :3] = -inf: UNK forbidden too (ids 0 to 2)',
  STEP(LAST + "logits[:, :BOS_ID + 1] = float('-inf')\n    return logits.argmax(-1)"))
A(nb, 'my_greedy_step', 'logits[:, PAD_ID:BOS_ID] = -inf: the exclusive stop leaves BOS allowed and forbids UNK',
  STEP(LAST + "logits[:, PAD_ID:BOS_ID] = float('-inf')\n    return logits.argmax(-1)"))
A(nb, 'my_greedy_step', 'only PAD forbidden (BOS left)',
  STEP(LAST + "logits[:, PAD_ID] = float('-inf')\n    return logits.argmax(-1)"))
A(nb, 'my_greedy_step', 'PAD, BOS and EOS forbidden (EOS read as special too)',
  STEP(LAST + "logits[:, [PAD_ID, BOS_ID, EOS_ID]] = float('-inf')\n    return logits.argmax(-1)"))
A(nb, 'my_greedy_step', 'scatter with a (1, 2) index: PAD and BOS forbidden in the first row only',
  STEP(LAST + "logits = logits.scatter(1, torch.tensor([[PAD_ID, BOS_ID]]), float('-inf'))\n    return logits.argmax(-1)"))
A(nb, 'my_greedy_step', 'max(-1)[0]: the best scores, not their tokens',
  STEP(LAST + "return next_token_logits(logits).max(-1)[0]"))
A(nb, 'my_greedy_step', 'argmax() without dim: an index into the flattened (B, V) logits',
  STEP(LAST + "return next_token_logits(logits).argmax()"))
A(nb, 'my_greedy_step', 'argmax over axis 0 (the batch)',
  STEP(LAST + "return next_token_logits(logits).argmax(0)"))
A(nb, 'my_greedy_step', 'log_softmax over axis 0 (the batch) before the argmax: the ranking of each row changed',
  STEP(LAST + "return next_token_logits(logits).log_softmax(0).argmax(-1)"))
A(nb, 'my_greedy_step', 'argmax first, the second best when it is PAD or BOS: wrong when PAD and BOS are the two best',
  STEP(LAST + "top = logits.topk(2, -1).indices\n    bad = (top[:, 0] == PAD_ID) | (top[:, 0] == BOS_ID)\n    return torch.where(bad, top[:, 1], top[:, 0])"))
A(nb, 'my_greedy_step', 'model(ys, src): source and prefix swapped',
  STEP("logits = model(ys, src)[:, -1]\n    return next_token_logits(logits).argmax(-1)"))
A(nb, 'my_greedy_step', 'BOS stripped from the prefix fed to the decoder (ys[:, 1:])',
  STEP("logits = model(src, ys[:, 1:])[:, -1]\n    return next_token_logits(logits).argmax(-1)"))
A(nb, 'my_greedy_step', 'encode and decode by hand without a source mask: the decoder attends to the source padding',
  STEP("memory = model.encode(src, None)\n    logits = model.decode(memory, None, ys, tgt_mask(ys))[:, -1]\n    return next_token_logits(logits).argmax(-1)"))
A(nb, 'my_greedy_step', 'a source mask of (B, 1, S) by hand: it broadcasts over the heads, not the batch (right for a batch of one)',
  STEP("m = (src != PAD_ID)[:, None, :]\n    memory = model.encode(src, m)\n    logits = model.decode(memory, m, ys, tgt_mask(ys))[:, -1]\n    return next_token_logits(logits).argmax(-1)"))
A(nb, 'my_greedy_step', "returns ys with the token appended (greedy_decode's loop), not the token",
  STEP(LAST + "return torch.cat([ys, next_token_logits(logits).argmax(-1, keepdim=True)], 1)"))
A(nb, 'my_greedy_step', 'the source mask from pad_mask(ys), the prefix, in an encode/decode by hand',
  STEP("memory = model.encode(src, pad_mask(src))\n    logits = model.decode(memory, pad_mask(ys), ys, tgt_mask(ys))[:, -1]\n    return next_token_logits(logits).argmax(-1)"))
A(nb, 'my_greedy_step', "each row's last position picked with logits[:, idx] (a (B, B) pick, not one per row)",
  STEP("idx = (ys != PAD_ID).sum(1) - 1\n    logits = model(src, ys)[:, idx]\n    return next_token_logits(logits.flatten(0, 1)).view(logits.shape).argmax(-1)"))
A(nb, 'my_greedy_step', 'model in train mode (model.train() called to be safe, never undone)',
  STEP("model.train()\n    " + LAST + "return next_token_logits(logits).argmax(-1)"))
A(nb, 'my_greedy_step', 'precedence: arange(V) == PAD_ID | BOS_ID is arange(V) == (PAD_ID | BOS_ID): BOS alone forbidden',
  STEP(LAST + "forbid = torch.arange(logits.shape[-1]) == PAD_ID | BOS_ID\n    return torch.where(forbid, float('-inf'), logits).argmax(-1)"))
A(nb, 'my_greedy_step', 'index_fill on axis 0: rows PAD_ID and BOS_ID of the batch forbidden, not the tokens',
  STEP(LAST + "return logits.index_fill(0, torch.tensor([PAD_ID, BOS_ID]), float('-inf')).argmax(-1)"))
