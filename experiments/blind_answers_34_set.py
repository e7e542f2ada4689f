"""The thirty-fourth blind set's answers, for notebooks 08 to 10 only (08_data, 09_training, 10_decoding), written from
the exercises' text alone: (notebook, exercise, mistake, code), the mistake None for the right answer.
`experiments/blind_answers.py 34` runs them. This set goes where the earlier sets for these notebooks did not: Sennrich
et al.'s own string form (pairs merged by str.replace without symbol boundaries, pairs counted by str.count, which does
not overlap, the last character fused with '</w>'), merges applied once per word or from the right, segmentation by
longest match or longest merge first, a word cache and a caller's dict edited in place, the schedule's warm-up and
decay each slipped alone (a decay from the peak, a 1/step decay, a flat rate after the warm-up, warmup ** -3 / 2),
label smoothing's mass put by scatter_ rather than added, eps not divided by V, the uniform term summed over V or
averaged over pads, PyTorch's cross_entropy fed (B, T, V) or left with ignore_index -100, the caller's logits
normalised in place, the module's sums returned, and a greedy step that forbids the wrong ids (EOS, UNK, a 0 for -inf),
sorts ascending, samples, returns the values, the extended prefix or greedy_decode's own path.
The right answers are the thirtieth set's."""
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
# Sennrich et al.'s string form: each word a space-separated string of symbols
STR_LEARN = """
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
"""
A(nb, 'bpe', "pairs merged with str.replace on the space-joined symbols, without symbol boundaries ('xa b' merges 'a b' inside 'xa')",
  STR_LEARN + SEG + MERGE)
A(nb, 'bpe', "pairs counted with str.count on the space-joined word: overlapping occurrences ('a a a') counted once", MERGE + """
def learn_bpe(word_counts, n_merges):
    vocab = {tuple(w) + ('</w>',): c for w, c in word_counts.items()}
    merges = []
    for _ in range(n_merges):
        pairs = Counter()
        for syms, c in vocab.items():
            s = ' ' + ' '.join(syms) + ' '
            for a, b in set(zip(syms, syms[1:])): pairs[a, b] += c * s.count(' ' + a + ' ' + b + ' ')
        if not pairs: break
        best = min(pairs, key=lambda p: (-pairs[p], p))
        merges.append(best)
        vocab = {tuple(_merge(list(syms), best)): c for syms, c in vocab.items()}
    return merges
""" + SEG)
A(nb, 'bpe', "the last character fused with the end-of-word symbol (subword-nmt's 'w</w>'), in learning and segmenting",
  MERGE + LEARN(vocab="{tuple(w[:-1]) + (w[-1] + '</w>',): c for w, c in word_counts.items()}") + """
def segment(word, merges):
    syms = list(word[:-1]) + [word[-1] + '</w>']
    for pair in merges: syms = _merge(syms, pair)
    return syms
""")
FIRST_ONLY = """
def _merge(syms, pair):
    for i in range(len(syms) - 1):
        if (syms[i], syms[i + 1]) == pair: return syms[:i] + [syms[i] + syms[i + 1]] + syms[i + 2:]
    return syms
"""
A(nb, 'bpe', 'each merge applied to its first occurrence in a word only (learning and segmenting)', FIRST_ONLY + LEARN() + SEG)
A(nb, 'bpe', 'overlapping occurrences merged from the right (aaa -> a aa)', """
def _merge(syms, pair):
    i = len(syms) - 2
    while i >= 0:
        if (syms[i], syms[i + 1]) == pair: syms[i:i + 2] = [syms[i] + syms[i + 1]]; i -= 2
        else: i -= 1
    return syms
""" + LEARN() + SEG)
A(nb, 'bpe', 'segment: greedy longest match against the learnt symbols (WordPiece style), not the merges in order', MERGE + LEARN() + """
def segment(word, merges):
    vocab = {a + b for a, b in merges} | set(word) | {'</w>'}
    s, out = word + '</w>', []
    while s:
        for j in range(len(s), 0, -1):
            if s[:j] in vocab: out.append(s[:j]); s = s[j:]; break
        else: out.append(s[0]); s = s[1:]
    return out
""")
A(nb, 'bpe', 'segment: the merges applied longest merged symbol first, not in the order learnt', MERGE + LEARN() + """
def segment(word, merges):
    syms = list(word) + ['</w>']
    for pair in sorted(merges, key=lambda p: -len(p[0] + p[1])): syms = _merge(syms, pair)
    return syms
""")
A(nb, 'bpe', 'segment: the merges applied in reverse order (latest first)', MERGE + LEARN() + """
def segment(word, merges):
    syms = list(word) + ['</w>']
    for pair in reversed(merges): syms = _merge(syms, pair)
    return syms
""")
A(nb, 'bpe', 'segment caches its result per word (a module-level dict), whatever the merges', MERGE + LEARN() + """
_SEEN = {}
def segment(word, merges):
    if word not in _SEEN:
        syms = list(word) + ['</w>']
        for pair in merges: syms = _merge(syms, pair)
        _SEEN[word] = syms
    return list(_SEEN[word])
""")
A(nb, 'bpe', "the caller's word_counts rewritten in place (each word replaced by its symbol tuple)", MERGE + """
def learn_bpe(vocab, n_merges):
    for w in list(vocab): vocab[tuple(w) + ('</w>',)] = vocab.pop(w)
    merges = []
    for _ in range(n_merges):
        pairs = Counter()
        for syms, c in vocab.items():
            for a, b in zip(syms, syms[1:]): pairs[a, b] += c
        if not pairs: break
        best = min(pairs, key=lambda p: (-pairs[p], p))
        merges.append(best)
        for syms in list(vocab): vocab[tuple(_merge(list(syms), best))] = vocab.pop(syms)
    return merges
""" + SEG)
A(nb, 'bpe', 'n_merges read as the size of the symbol vocabulary to reach (characters included)', MERGE + """
def learn_bpe(word_counts, n_merges):
    vocab = {tuple(w) + ('</w>',): c for w, c in word_counts.items()}
    symbols = {s for syms in vocab for s in syms}
    merges = []
    while len(symbols) < n_merges:
        pairs = Counter()
        for syms, c in vocab.items():
            for a, b in zip(syms, syms[1:]): pairs[a, b] += c
        if not pairs: break
        best = min(pairs, key=lambda p: (-pairs[p], p))
        merges.append(best); symbols.add(best[0] + best[1])
        vocab = {tuple(_merge(list(syms), best)): c for syms, c in vocab.items()}
    return merges
""" + SEG)
A(nb, 'bpe', 'each merge recorded as a list [a, b], not a tuple', MERGE + LEARN(rec="list(best)") + """
def segment(word, merges):
    syms = list(word) + ['</w>']
    for pair in merges: syms = _merge(syms, tuple(pair))
    return syms
""")
A(nb, 'bpe', 'ties broken by first occurrence: max(pairs, key=pairs.get), the Counter insertion order',
  MERGE + LEARN(best="max(pairs, key=pairs.get)") + SEG)
A(nb, 'bpe', 'ties broken by sorted(pairs.items(), key=lambda kv: kv[1], reverse=True)[0]: the stable sort keeps insertion order',
  MERGE + LEARN(best="sorted(pairs.items(), key=lambda kv: kv[1], reverse=True)[0][0]") + SEG)
A(nb, 'bpe', 'words lower-cased before learning and segmenting',
  MERGE + LEARN(vocab="{tuple(w.lower()) + ('</w>',): c for w, c in word_counts.items()}") + """
def segment(word, merges):
    syms = list(word.lower()) + ['</w>']
    for pair in merges: syms = _merge(syms, pair)
    return syms
""")
A(nb, 'bpe', 'segment returns the symbols joined with spaces, a string', MERGE + LEARN() + """
def segment(word, merges):
    syms = list(word) + ['</w>']
    for pair in merges: syms = _merge(syms, pair)
    return ' '.join(syms)
""")
A(nb, 'bpe', "segment drops the end-of-word symbol from its output ('</w>' only used to learn)", MERGE + LEARN() + """
def segment(word, merges):
    syms = list(word) + ['</w>']
    for pair in merges: syms = _merge(syms, pair)
    if syms[-1] == '</w>': syms = syms[:-1]
    else: syms[-1] = syms[-1][:-len('</w>')]
    return syms
""")
A(nb, 'bpe', "the words sorted before pairing them with the counts (zip(sorted(words), counts.values())): counts attached to the wrong words",
  MERGE + LEARN(vocab="dict(zip(sorted(tuple(w) + ('</w>',) for w in word_counts), word_counts.values()))") + SEG)
A(nb, 'bpe', 'segment: each merge tried once as the scan meets it, one pass left to right over the word (a merge that only becomes possible later missed)', MERGE + LEARN() + """
def segment(word, merges):
    rank = {p: i for i, p in enumerate(merges)}
    syms, out = list(word) + ['</w>'], []
    for s in syms:
        if out and (out[-1], s) in rank: out[-1] = out[-1] + s
        else: out.append(s)
    return out
""")

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
A(nb, 'my_noam_lr', 'the decay measured from the peak: (step - warmup) ** -0.5 after the warm-up',
  NOAM("if step == 0: return 0.0\n    if step <= warmup: return d_model ** -0.5 * step * warmup ** -1.5\n"
       "    return d_model ** -0.5 * warmup ** -0.5 * max(step - warmup, 1) ** -0.5"))
A(nb, 'my_noam_lr', 'a 1/step decay from the peak: peak * warmup / step',
  NOAM("if step == 0: return 0.0\n    peak = (d_model * warmup) ** -0.5\n    return peak * min(step / warmup, warmup / step)"))
A(nb, 'my_noam_lr', 'a constant rate after the warm-up: min(step, warmup) * warmup ** -1.5',
  NOAM("return d_model ** -0.5 * min(step, warmup) * warmup ** -1.5"))
A(nb, 'my_noam_lr', 'precedence: warmup ** -3 / 2 in the warm-up',
  NOAM("if step == 0: return 0.0\n    return d_model ** -0.5 * min(step ** -0.5, step * warmup ** -3 / 2)"))
A(nb, 'my_noam_lr', 'max for min: the larger of the two branches',
  NOAM("if step == 0: return 0.0\n    return d_model ** -0.5 * max(step ** -0.5, step * warmup ** -1.5)"))
A(nb, 'my_noam_lr', 'step 0 clamped to step 1 (max(step, 1)): the first rate at step 0',
  NOAM("step = max(step, 1)\n    return d_model ** -0.5 * min(step ** -0.5, step * warmup ** -1.5)"))
A(nb, 'my_noam_lr', 'sqrt(d_model) multiplied, not divided',
  NOAM("if step == 0: return 0.0\n    return d_model ** 0.5 * min(step ** -0.5, step * warmup ** -1.5)"))
A(nb, 'my_noam_lr', "tensor2tensor's learning_rate constant 2.0 kept in front",
  NOAM("if step == 0: return 0.0\n    return 2.0 * d_model ** -0.5 * min(step ** -0.5, step * warmup ** -1.5)"))
A(nb, 'my_noam_lr', 'warmup 4000 hard-coded in the warm-up branch, the argument used in the decay only',
  NOAM("if step == 0: return 0.0\n    return d_model ** -0.5 * min(step ** -0.5, step * 4000 ** -1.5)"))
A(nb, 'my_noam_lr', 'the warm-up counted from step + 1 (0-based steps), the decay from step',
  NOAM("if step == 0: return 0.0\n    return d_model ** -0.5 * min(step ** -0.5, (step + 1) * warmup ** -1.5)"))
A(nb, 'my_label_smoothing', 'q.scatter_ (replace) for scatter_add_: the reference gets 1 - eps, not 1 - eps + eps / V',
  LS("V = logits.shape[-1]\n    q = torch.full_like(logits, eps / V)\n    q.scatter_(-1, target[..., None], 1 - eps)\n"
     + LOSS + "    return loss[target != pad_id].mean()"))
A(nb, 'my_label_smoothing', "eps not divided by V: q = (1 - eps) one-hot + eps on every token",
  LS("V = logits.shape[-1]\n    q = torch.full_like(logits, eps)\n    q.scatter_add_(-1, target[..., None], torch.full_like(logits[..., :1], 1 - eps))\n"
     + LOSS + "    return loss[target != pad_id].mean()"))
A(nb, 'my_label_smoothing', 'the uniform term summed over V, not averaged: (1 - eps) nll + eps * sum_i (-log p_i)',
  LS("logp = logits.log_softmax(-1)\n    nll = -logp.gather(-1, target[..., None])[..., 0]\n"
     "    loss = (1 - eps) * nll + eps * (-logp.sum(-1))\n    return loss[target != pad_id].mean()"))
A(nb, 'my_label_smoothing', 'the uniform term averaged over every position, pads included',
  LS("logp = logits.log_softmax(-1)\n    nll = -logp.gather(-1, target[..., None])[..., 0]\n    keep = target != pad_id\n"
     "    return (1 - eps) * nll[keep].mean() + eps * (-logp.mean(-1)).mean()"))
A(nb, 'my_label_smoothing', "F.cross_entropy fed the (B, T, V) logits without moving V to axis 1",
  LS("return F.cross_entropy(logits, target, label_smoothing=eps, ignore_index=pad_id)"))
A(nb, 'my_label_smoothing', "F.cross_entropy with ignore_index left at its default -100: the pads scored",
  LS("V = logits.shape[-1]\n    return F.cross_entropy(logits.reshape(-1, V), target.reshape(-1), label_smoothing=eps)"))
A(nb, 'my_label_smoothing', "the caller's logits normalised in place (logits.sub_(logsumexp))",
  LS("V = logits.shape[-1]\n    logp = logits.sub_(logits.logsumexp(-1, keepdim=True))\n    q = torch.full_like(logp, eps / V)\n"
     "    q.scatter_add_(-1, target[..., None], torch.full_like(logp[..., :1], 1 - eps))\n"
     "    loss = -(q * logp).sum(-1)\n    return loss[target != pad_id].mean()"))
A(nb, 'my_label_smoothing', "returns the sums (smoothed loss, nll, token count), as the module's label_smoothed_nll",
  LS(Q + "    logp = logits.log_softmax(-1)\n    loss = -(q * logp).sum(-1)\n    keep = target != pad_id\n"
     "    nll = -logp.gather(-1, target[..., None])[..., 0]\n    return loss[keep].sum(), nll[keep].sum(), keep.sum()"))
A(nb, 'my_label_smoothing', 'the sum over non-pad positions divided by every position (target.numel())',
  LS(Q + LOSS + "    return loss[target != pad_id].sum() / target.numel()"))
A(nb, 'my_label_smoothing', 'the mean rebuilt with torch.tensor from a list of floats: no gradient',
  LS(Q + LOSS + "    return torch.tensor([x.item() for x in loss[target != pad_id]]).mean()"))
A(nb, 'my_label_smoothing', "the reference picked with gather along axis 1 (right for 2-d logits only)",
  LS("logp = logits.log_softmax(-1)\n    nll = -logp.gather(1, target.unsqueeze(1)).squeeze(1)\n"
     "    loss = (1 - eps) * nll + eps * (-logp.mean(-1))\n    return loss[target != pad_id].mean()"))

nb = '10_decoding'
def STEP(body): return f"""
def my_greedy_step(model, src, ys):
    {body}
"""
LAST = "logits = model(src, ys)[:, -1]\n    "
A(nb, 'my_greedy_step', None, STEP("logits = model(src, ys)[:, -1]\n    return next_token_logits(logits).argmax(-1)"))
A(nb, 'my_greedy_step', 'EOS forbidden with PAD, not BOS', STEP(LAST + "logits[:, [PAD_ID, EOS_ID]] = float('-inf')\n    return logits.argmax(-1)"))
A(nb, 'my_greedy_step', 'every id up to BOS forbidden (logits[:, :BOS_ID + 1]): UNK too',
  STEP(LAST + "logits[:, :BOS_ID + 1] = float('-inf')\n    return logits.argmax(-1)"))
A(nb, 'my_greedy_step', 'PAD and BOS set to 0, not -inf', STEP(LAST + "logits[:, [PAD_ID, BOS_ID]] = 0\n    return logits.argmax(-1)"))
A(nb, 'my_greedy_step', 'sorted ascending and the first index taken: the least probable token',
  STEP(LAST + "return next_token_logits(logits).sort(-1)[1][:, 0]"))
A(nb, 'my_greedy_step', 'torch.max(...)[0]: the values, not the indices', STEP(LAST + "return torch.max(next_token_logits(logits), -1)[0]"))
A(nb, 'my_greedy_step', 'sampled from the softmax (torch.multinomial), not the most probable',
  STEP(LAST + "return torch.multinomial(next_token_logits(logits).softmax(-1), 1)[:, 0]"))
A(nb, 'my_greedy_step', 'returns the prefix with the token appended (B, t + 1), as the decoding loop does',
  STEP(LAST + "return torch.cat([ys, next_token_logits(logits).argmax(-1, keepdim=True)], 1)"))
A(nb, 'my_greedy_step', 'the last batch row (logits[-1]) taken, not the last position',
  STEP("logits = model(src, ys)[-1]\n    return next_token_logits(logits).argmax(-1)"))
A(nb, 'my_greedy_step', 'model(ys, src): the arguments swapped', STEP("logits = model(ys, src)[:, -1]\n    return next_token_logits(logits).argmax(-1)"))
A(nb, 'my_greedy_step', "the prefix's last token dropped (ys[:, :-1], the teacher-forcing habit)",
  STEP("logits = model(src, ys[:, :-1])[:, -1]\n    return next_token_logits(logits).argmax(-1)"))
A(nb, 'my_greedy_step', 'only the last token of the prefix fed (ys[:, -1:]), as with a cache but without one',
  STEP("logits = model(src, ys[:, -1:])[:, -1]\n    return next_token_logits(logits).argmax(-1)"))
A(nb, 'my_greedy_step', 'decode without the causal mask (None): the prefix sees its future inside the layers',
  STEP("m = pad_mask(src)\n    logits = model.decode(model.encode(src, m), m, ys, None)[:, -1]\n    return next_token_logits(logits).argmax(-1)"))
A(nb, 'my_greedy_step', 'the source pad mask inverted (src == PAD_ID)',
  STEP("m = (src == PAD_ID)[:, None, None, :]\n    logits = model.decode(model.encode(src, m), m, ys, tgt_mask(ys))[:, -1]\n"
       "    return next_token_logits(logits).argmax(-1)"))
A(nb, 'my_greedy_step', "each row's whole greedy_decode run and its token at position t - 1 taken: the prefix ys ignored", STEP("""from transformer_nb.decoding import greedy_decode
    out = []
    for s, y in zip(src, ys):
        s = s[s != PAD_ID]
        path = greedy_decode(model, s) + [EOS_ID]
        out.append(path[min(y.shape[0] - 1, len(path) - 1)])
    return torch.tensor(out)"""))
A(nb, 'my_greedy_step', 'returns a list of ints (.tolist())', STEP(LAST + "return next_token_logits(logits).argmax(-1).tolist()"))
A(nb, 'my_greedy_step', 'the logits of the mean over the positions, not the last', STEP("logits = model(src, ys).mean(1)\n    return next_token_logits(logits).argmax(-1)"))
A(nb, 'my_greedy_step', 'PAD and BOS forbidden by index_fill on axis 0 (the rows), not the vocabulary axis',
  STEP(LAST + "return logits.index_fill(0, torch.tensor([PAD_ID, BOS_ID]), float('-inf')).argmax(-1)"))
A(nb, 'my_greedy_step', "the argmax over log_softmax along the batch axis (dim 0)",
  STEP(LAST + "return next_token_logits(logits).log_softmax(0).argmax(-1)"))
