"""The twenty-second blind set's answers, for notebooks 08 to 14 only, written from the exercises' text alone: (notebook,
exercise, mistake, code), the mistake None for the right answer. `experiments/blind_answers.py 22` runs them. This set
leans toward answers shaped by other sources' conventions (Sennrich et al.'s published snippet without its regex bounds,
subword-nmt's '@@' continuation marks and its ten merges; fairseq's warmup_init_lr, T5's constant warm-up, the
TensorFlow tutorial's CustomSchedule class, Hugging Face's ignore index -100; nanoGPT's sampling, fairseq's EOS ban;
d2l's BLEU with weights 1/2^n, NLTK's 0-1 scale and add-one smoothing, sacreBLEU's fields; EVALB's deleted traces and
punctuation and its skipped failed sentences, Vinyals et al.'s XX; LLaMA's x.float(), T5's eps, Ainslie et al.'s first
head of each group), toward the text read slightly wrong (inclusive bounds, 0- and 1-based numbering, defaults, argument
order, ties broken another way), toward answers right only on the example's data or sizes, toward numerics (integer
division, log of 0, float64 inputs) and state changed behind the caller's back (model.train(), the seed, grad mode, the
model's dtype, inputs edited in place), and toward right values in the wrong container, dtype or shape."""
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
A(nb, 'bpe', 'ties broken toward the largest pair: max(pairs, key=lambda p: (pairs[p], p))',
  MERGE + LEARN(best="max(pairs, key=lambda p: (pairs[p], p))") + SEG)
A(nb, 'bpe', "ties broken by first appearance: Counter.most_common(1)",
  MERGE + LEARN(best="pairs.most_common(1)[0][0]") + SEG)
A(nb, 'bpe', 'one merge too few: range(n_merges - 1)', MERGE + LEARN(rounds="range(n_merges - 1)") + SEG)
A(nb, 'bpe', 'one merge too many: range(n_merges + 1)', MERGE + LEARN(rounds="range(n_merges + 1)") + SEG)
A(nb, 'bpe', "subword-nmt's ten merges hard-coded (the paper's num_merges = 10), n_merges ignored",
  MERGE + LEARN(rounds="range(10)") + SEG)
A(nb, 'bpe', "pairs counted once per word type, the word's count ignored", MERGE + LEARN(count="""
        for syms, c in vocab.items():
            for a, b in zip(syms, syms[1:]): pairs[a, b] += 1""") + SEG)
A(nb, 'bpe', 'a pair counted once per word even where the word holds it twice (set of pairs)', MERGE + LEARN(count="""
        for syms, c in vocab.items():
            for a, b in set(zip(syms, syms[1:])): pairs[a, b] += c""") + SEG)
A(nb, 'bpe', "Sennrich et al.'s snippet without its regex bounds: str.replace('a b', 'ab') on the spaced word", """
def learn_bpe(word_counts, n_merges):
    vocab = {' '.join(w) + ' </w>': c for w, c in word_counts.items()}
    merges = []
    for _ in range(n_merges):
        pairs = Counter()
        for w, c in vocab.items():
            s = w.split()
            for a, b in zip(s, s[1:]): pairs[a, b] += c
        if not pairs: break
        best = min(pairs, key=lambda p: (-pairs[p], p))
        merges.append(best)
        vocab = {w.replace(' '.join(best), ''.join(best)): c for w, c in vocab.items()}
    return merges
def segment(word, merges):
    w = ' '.join(word) + ' </w>'
    for pair in merges: w = w.replace(' '.join(pair), ''.join(pair))
    return w.split()""")
A(nb, 'bpe', 'a C-style merge loop that stops at the first match in each word (break)', """
def _merge(syms, pair):
    for i in range(len(syms) - 1):
        if (syms[i], syms[i + 1]) == pair:
            syms[i:i + 2] = [syms[i] + syms[i + 1]]
            break
    return syms
""" + LEARN() + SEG)
A(nb, 'bpe', 'segment applies the merges last-learnt first (reversed)', MERGE + LEARN() + """
def segment(word, merges):
    syms = list(word) + ['</w>']
    for pair in reversed(merges): syms = _merge(syms, pair)
    return syms""")
A(nb, 'bpe', "subword-nmt's output: '@@' on each piece but the last, no '</w>'", MERGE + LEARN() + """
def segment(word, merges):
    syms = list(word) + ['</w>']
    for pair in merges: syms = _merge(syms, pair)
    syms[-1] = syms[-1][:-len('</w>')]
    if not syms[-1]: syms.pop()
    return [s + '@@' for s in syms[:-1]] + syms[-1:]""")
A(nb, 'bpe', "segment without the '</w>' that learn_bpe appends", MERGE + LEARN() + """
def segment(word, merges):
    syms = list(word)
    for pair in merges: syms = _merge(syms, pair)
    return syms""")
A(nb, 'bpe', 'segment returns a tuple of pieces', MERGE + LEARN() + """
def segment(word, merges):
    syms = list(word) + ['</w>']
    for pair in merges: syms = _merge(syms, pair)
    return tuple(syms)""")
A(nb, 'bpe', 'a NumPy user: the merges returned as an (n, 2) array of strings',
  MERGE + "import numpy as np\n" + LEARN(ret="np.array(merges)") + """
def segment(word, merges):
    syms = list(word) + ['</w>']
    for pair in merges: syms = _merge(syms, tuple(pair))
    return syms""")
A(nb, 'bpe', "word_counts edited in place: the caller's dict rekeyed to symbol tuples", MERGE + LEARN(
  pre="for w in list(word_counts): word_counts[tuple(w) + ('</w>',)] = word_counts.pop(w)\n    ",
  vocab="dict(word_counts)") + SEG)
A(nb, 'bpe', 'the return indented into the loop: only the first merge returned', MERGE + """
def learn_bpe(word_counts, n_merges):
    vocab = {tuple(w) + ('</w>',): c for w, c in word_counts.items()}
    merges = []
    for _ in range(n_merges):
        pairs = Counter()
        for syms, c in vocab.items():
            for a, b in zip(syms, syms[1:]): pairs[a, b] += c
        if not pairs: break
        best = min(pairs, key=lambda p: (-pairs[p], p))
        merges.append(best)
        vocab = {tuple(_merge(list(syms), best)): c for syms, c in vocab.items()}
        return merges
    return merges
""" + SEG)

# 09_training: my_noam_lr, my_label_smoothing
nb = '09_training'
def NOAM(body, sig="step, d_model=512, warmup=4000"): return f"""
def my_noam_lr({sig}):
    {body}
"""
A(nb, 'my_noam_lr', None, NOAM("if step == 0: return 0.0\n    return d_model ** -0.5 * min(step ** -0.5, step * warmup ** -1.5)"))
A(nb, 'my_noam_lr', 'step 0 not handled: 0 ** -0.5 raises', NOAM("return d_model ** -0.5 * min(step ** -0.5, step * warmup ** -1.5)"))
A(nb, 'my_noam_lr', 'the step shifted by one: the formula at step + 1 (0 at step -1)',
  NOAM("s = step + 1\n    return d_model ** -0.5 * min(s ** -0.5, s * warmup ** -1.5)"))
A(nb, 'my_noam_lr', 'integer division in the decay exponent: step ** (-1 // 2), i.e. 1/step',
  NOAM("if step == 0: return 0.0\n    return d_model ** -0.5 * min(step ** (-1 // 2), step * warmup ** -1.5)"))
A(nb, 'my_noam_lr', "fairseq's warmup_init_lr 1e-7: the warm-up starts from 1e-7, not 0",
  NOAM("peak = (d_model * warmup) ** -0.5\n    if step < warmup: return 1e-7 + step * (peak - 1e-7) / warmup\n    return peak * (warmup / step) ** 0.5"))
A(nb, 'my_noam_lr', "T5's rsqrt schedule: 1/sqrt(max(step, warmup)), constant through the warm-up",
  NOAM("return d_model ** -0.5 / math.sqrt(max(step, warmup))"))
A(nb, 'my_noam_lr', "the TensorFlow tutorial's CustomSchedule: a class built from (d_model, warmup), called with step", """
class my_noam_lr:
    def __init__(self, d_model, warmup_steps=4000): self.d_model, self.warmup_steps = d_model, warmup_steps
    def __call__(self, step):
        if step == 0: return 0.0
        return self.d_model ** -0.5 * min(step ** -0.5, step * self.warmup_steps ** -1.5)
""")
A(nb, 'my_noam_lr', "the big model's d_model=1024 as the default", NOAM(
  "if step == 0: return 0.0\n    return d_model ** -0.5 * min(step ** -0.5, step * warmup ** -1.5)", sig="step, d_model=1024, warmup=4000"))
A(nb, 'my_noam_lr', 'a C-style two-branch schedule: d_model ** -0.5 applied in the decay branch only',
  NOAM("if step < warmup: return step * warmup ** -1.5\n    return d_model ** -0.5 * step ** -0.5"))

def LS(body): return f"""
def my_label_smoothing(logits, target, eps, pad_id=PAD_ID):
    {body}
"""
Q = ("V = logits.shape[-1]\n    q = torch.full_like(logits, eps / V)\n"
     "    q.scatter_add_(-1, target[..., None], torch.full_like(logits[..., :1], 1 - eps))\n")
A(nb, 'my_label_smoothing', None, LS(Q + "    loss = -(q * logits.log_softmax(-1)).sum(-1)\n    return loss[target != pad_id].mean()"))
A(nb, 'my_label_smoothing', 'log of the softmax (softmax(-1).log()): -inf, then NaN, for large logits',
  LS(Q + "    loss = -(q * logits.softmax(-1).log()).sum(-1)\n    return loss[target != pad_id].mean()"))
A(nb, 'my_label_smoothing', 'log_softmax over axis 1 (the positions), not the vocabulary',
  LS(Q + "    loss = -(q * logits.log_softmax(1)).sum(-1)\n    return loss[target != pad_id].mean()"))
A(nb, 'my_label_smoothing', 'scatter_ for scatter_add_: the reference gets 1 - eps, not 1 - eps + eps/V', LS(
  "V = logits.shape[-1]\n    q = torch.full_like(logits, eps / V)\n    q.scatter_(-1, target[..., None], 1 - eps)\n"
  "    loss = -(q * logits.log_softmax(-1)).sum(-1)\n    return loss[target != pad_id].mean()"))
A(nb, 'my_label_smoothing', "Hugging Face's ignore index -100: F.cross_entropy with its default ignore_index, the pads scored",
  LS("return F.cross_entropy(logits.flatten(0, -2), target.flatten(), label_smoothing=eps)"))
A(nb, 'my_label_smoothing', 'the sum over the non-pad positions divided by the number of sentences',
  LS(Q + "    loss = -(q * logits.log_softmax(-1)).sum(-1)\n    return loss[target != pad_id].sum() / target.shape[0]"))
A(nb, 'my_label_smoothing', "the caller's target edited in place (pads set to -100 for ignore_index)", LS(
  "target.masked_fill_(target == pad_id, -100)\n"
  "    return F.cross_entropy(logits.flatten(0, -2), target.flatten(), label_smoothing=eps, ignore_index=-100)"))
A(nb, 'my_label_smoothing', "a NumPy habit: the caller's logits normalised in place (logits -= logsumexp)", LS(
  Q + "    logits -= logits.logsumexp(-1, keepdim=True)\n    loss = -(q * logits).sum(-1)\n    return loss[target != pad_id].mean()"))
A(nb, 'my_label_smoothing', 'a Python float returned (.item()): nothing to backpropagate',
  LS(Q + "    loss = -(q * logits.log_softmax(-1)).sum(-1)\n    return loss[target != pad_id].mean().item()"))
A(nb, 'my_label_smoothing', 'F.one_hot without num_classes: as wide as the largest target id + 1', LS(
  "V = logits.shape[-1]\n    q = (1 - eps) * F.one_hot(target).float() + eps / V\n"
  "    loss = -(q * logits.log_softmax(-1)).sum(-1)\n    return loss[target != pad_id].mean()"))
A(nb, 'my_label_smoothing', 'pad id 0 hard-coded: target != 0, the pad_id argument ignored',
  LS(Q + "    loss = -(q * logits.log_softmax(-1)).sum(-1)\n    return loss[target != 0].mean()"))

# 10_decoding: my_greedy_step
nb = '10_decoding'
def STEP(body): return f"""
def my_greedy_step(model, src, ys):
    {body}
"""
A(nb, 'my_greedy_step', None, STEP("logits = model(src, ys)[:, -1]\n    return next_token_logits(logits).argmax(-1)"))
A(nb, 'my_greedy_step', 'model.train() called first (a training-loop habit): the caller left in training mode',
  STEP("model.train()\n    logits = model(src, ys)[:, -1]\n    return next_token_logits(logits).argmax(-1)"))
A(nb, 'my_greedy_step', 'torch.manual_seed(0) called inside: the global generator reset behind the caller',
  STEP("torch.manual_seed(0)\n    logits = model(src, ys)[:, -1]\n    return next_token_logits(logits).argmax(-1)"))
A(nb, 'my_greedy_step', 'torch.set_grad_enabled(False) left switched off for the caller',
  STEP("torch.set_grad_enabled(False)\n    logits = model(src, ys)[:, -1]\n    return next_token_logits(logits).argmax(-1)"))
A(nb, 'my_greedy_step', 'model.double() to be safe: the caller\'s model converted to float64 in place',
  STEP("model.double()\n    logits = model(src, ys)[:, -1]\n    return next_token_logits(logits).argmax(-1)"))
A(nb, 'my_greedy_step', 'next_token_logits applied to (B, t, V): it forbids positions 0 and 2, not PAD and BOS',
  STEP("logits = next_token_logits(model(src, ys))\n    return logits[:, -1].argmax(-1)"))
A(nb, 'my_greedy_step', 'argmax over (B, t, V) first, the last column taken: PAD and BOS never forbidden',
  STEP("return model(src, ys).argmax(-1)[:, -1]"))
A(nb, 'my_greedy_step', 'only PAD forbidden by hand, BOS allowed',
  STEP("logits = model(src, ys)[:, -1].clone()\n    logits[:, PAD_ID] = float('-inf')\n    return logits.argmax(-1)"))
A(nb, 'my_greedy_step', "fairseq's min length habit: EOS forbidden too",
  STEP("logits = next_token_logits(model(src, ys)[:, -1])\n    logits[:, EOS_ID] = float('-inf')\n    return logits.argmax(-1)"))
A(nb, 'my_greedy_step', 'BOS stripped from the prefix fed (the model taken to prepend it): model(src, ys[:, 1:])',
  STEP("logits = model(src, ys[:, 1:] if ys.shape[1] > 1 else ys)[:, -1]\n    return next_token_logits(logits).argmax(-1)"))
A(nb, 'my_greedy_step', "the position read from the source's length: [:, src.shape[1] - 1] clipped to the prefix",
  STEP("logits = model(src, ys)[:, min(src.shape[1], ys.shape[1]) - 1]\n    return next_token_logits(logits).argmax(-1)"))
A(nb, 'my_greedy_step', 'softmax over the batch axis (dim 0) before the argmax',
  STEP("logits = next_token_logits(model(src, ys)[:, -1])\n    return logits.softmax(0).argmax(-1)"))
A(nb, 'my_greedy_step', "nanoGPT's generate: a token sampled (torch.multinomial), not the argmax",
  STEP("p = next_token_logits(model(src, ys)[:, -1]).softmax(-1)\n    return torch.multinomial(p, 1).squeeze(-1)"))
A(nb, 'my_greedy_step', 'a Python list of ids (.tolist())',
  STEP("logits = model(src, ys)[:, -1]\n    return next_token_logits(logits).argmax(-1).tolist()"))
A(nb, 'my_greedy_step', 'a NumPy array (.numpy())',
  STEP("logits = model(src, ys)[:, -1]\n    return next_token_logits(logits).argmax(-1).numpy()"))
A(nb, 'my_greedy_step', 'int32 ids (.int(), a C habit)',
  STEP("logits = model(src, ys)[:, -1]\n    return next_token_logits(logits).argmax(-1).int()"))

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
A(nb, 'my_bleu', "d2l's bleu per sentence (weights 1/2^n, its brevity factor), averaged over the sentences", """
def my_bleu(hyps, refs):
    scores = []
    for h, ref in zip(hyps, refs):
        pred, label = h.split(), ref.split()
        score = math.exp(min(0, 1 - len(label) / len(pred)))
        for n in range(1, 5):
            num, subs = 0, Counter(' '.join(label[i:i + n]) for i in range(len(label) - n + 1))
            for i in range(len(pred) - n + 1):
                g = ' '.join(pred[i:i + n])
                if subs[g] > 0: num += 1; subs[g] -= 1
            score *= math.pow(num / max(len(pred) - n + 1, 1), math.pow(0.5, n))
        scores.append(score)
    return 100 * sum(scores) / len(scores)""")
A(nb, 'my_bleu', 'the brevity penalty per sentence, averaged (lengths not summed for BP)',
  BLEU(pre="bps = []\n    ", split="h, ref = h.split(), ref.split(); bps.append(min(1.0, math.exp(1 - len(ref) / len(h))))",
       bp="sum(bps) / len(bps)"))
A(nb, 'my_bleu', 'the totals counted as distinct n-grams: len(Counter)', BLEU(total="len(ngrams(h, n))"))
A(nb, 'my_bleu', 'matches clipped by presence, not by count: every hypothesis n-gram found in the reference',
  BLEU(clip="sum(k for g, k in ngrams(h, n).items() if g in ngrams(ref, n))"))
A(nb, 'my_bleu', 'log10 inside, math.exp outside', BLEU(ret="100 * bp * math.exp(sum(math.log10(m / t) for m, t in zip(match, total)) / K)"))
A(nb, 'my_bleu', "NLTK's corpus_bleu scale: a fraction from 0 to 1", BLEU(ret="bp * math.exp(sum(math.log(m / t) for m, t in zip(match, total)) / K)"))
A(nb, 'my_bleu', 'orders 1 to 3: range(1, 4)', BLEU(orders="range(1, 4)"))
A(nb, 'my_bleu', 'the brevity penalty not capped at 1 (exp(1 - r/c) for long hypotheses too)', BLEU(bp="math.exp(1 - r / c)"))
A(nb, 'my_bleu', 'c and r swapped in the brevity penalty: exp(1 - c/r)', BLEU(bp="min(1.0, math.exp(1 - c / r))"))
A(nb, 'my_bleu', 'arguments read as (refs, hyps): the reference scored against the hypothesis', BLEU(loop="zip(refs, hyps)"))
A(nb, 'my_bleu', 'the totals from the reference n-grams (a recall)', BLEU(total="max(len(ref) - n + 1, 0)"))
A(nb, 'my_bleu', "add-one smoothing on every order (NLTK's method, sacreBLEU's 'add-k')",
  BLEU(ret="100 * bp * math.exp(sum(math.log((m + 1) / (t + 1)) for m, t in zip(match, total)) / K)"))
A(nb, 'my_bleu', "sacreBLEU's fields returned: (score, precisions, bp)",
  BLEU(ret="(100 * bp * math.exp(sum(math.log(m / t) for m, t in zip(match, total)) / K), [100 * m / t for m, t in zip(match, total)], bp)"))
A(nb, 'my_bleu', "a C-style loop that splits the caller's lists in place (hyps[i] = hyps[i].split())", BLEU(
  pre="for i in range(len(hyps)): hyps[i], refs[i] = hyps[i].split(), refs[i].split()\n    ", split="pass"))
A(nb, 'my_bleu', "clipped against the whole corpus's reference counts, not each sentence's", """
def my_bleu(hyps, refs):
    ngrams = lambda ws, n: Counter(tuple(ws[i:i + n]) for i in range(len(ws) - n + 1))
    logp, c, r = 0.0, 0, 0
    for n in range(1, 5):
        hc, rc = Counter(), Counter()
        for h, ref in zip(hyps, refs): hc += ngrams(h.split(), n); rc += ngrams(ref.split(), n)
        logp += math.log(sum((hc & rc).values()) / sum(hc.values())) / 4
    c, r = sum(len(h.split()) for h in hyps), sum(len(x.split()) for x in refs)
    return 100 * min(1.0, math.exp(1 - r / c)) * math.exp(logp)""")

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
A(nb, 'beyond_noise', None, NOISE())
A(nb, 'beyond_noise', 'ties with the band counted: >= noise', NOISE(ret="[r['id'] for r in recs if r['variant'] != 'base' and abs(r['bleu'] - base) >= noise]"))
A(nb, 'beyond_noise', "the band as the range of the base runs (max - min), equal only with two seeds",
  NOISE(noise="max(r['bleu'] for r in recs if r['variant'] == 'base') - min(r['bleu'] for r in recs if r['variant'] == 'base')"))
A(nb, 'beyond_noise', "base's BLEU as the mean of its seed runs",
  NOISE(base="sum(r['bleu'] for r in recs if r['variant'] == 'base') / sum(r['variant'] == 'base' for r in recs)"))
A(nb, 'beyond_noise', 'improvements only: bleu - base > noise', NOISE(ret="[r['id'] for r in recs if r['variant'] != 'base' and r['bleu'] - base > noise]"))
A(nb, 'beyond_noise', "the field read from its name: r['variant'] returned, not r['id']",
  NOISE(ret="[r['variant'] for r in recs if r['variant'] != 'base' and abs(r['bleu'] - base) > noise]"))
A(nb, 'beyond_noise', "base taken as the first record of variant 'base' (right while 'base' comes first)",
  NOISE(pre="b0 = next(r for r in recs if r['variant'] == 'base')\n    ", base="b0['bleu']",
        noise="max(abs(r['bleu'] - base) for r in recs if r['variant'] == 'base' and r is not b0)"))

def HEADS(body): return f"""
def heads_looking(w, rows, col):
    {body}
"""
A(nb, 'heads_looking', None, HEADS("return [h + 1 for h in range(w.shape[0]) if all(w[h, r].argmax() == col for r in rows)]"))
A(nb, 'heads_looking', 'any row, not every row', HEADS("return [h + 1 for h in range(w.shape[0]) if any(w[h, r].argmax() == col for r in rows)]"))
A(nb, 'heads_looking', 'the argmax over the queries (axis 0 of (n_q, n_k)) for key col',
  HEADS("return [h + 1 for h in range(w.shape[0]) if all(w[h].argmax(0)[col] == r for r in rows)]"))
A(nb, 'heads_looking', "ties counted as looking: w[h, r, col] == w[h, r].max()",
  HEADS("return [h + 1 for h in range(w.shape[0]) if all(w[h, r, col] == w[h, r].max() for r in rows)]"))
A(nb, 'heads_looking', 'rows read as a (start, stop) range', HEADS(
  "return [h + 1 for h in range(w.shape[0]) if all(w[h, r].argmax() == col for r in range(rows[0], rows[-1]))]"))
A(nb, 'heads_looking', 'a tensor of head numbers (nonzero + 1), not a list', HEADS(
  "w = torch.as_tensor(w)\n    return (w[:, list(rows)].argmax(-1) == col).all(-1).nonzero().flatten() + 1"))
A(nb, 'heads_looking', 'a return inside the loop: the first head found only', HEADS(
  "for h in range(w.shape[0]):\n        if all(w[h, r].argmax() == col for r in rows): return [h + 1]\n    return []"))

def AB(a="{f'A-h{k}': dict(h=k, d_k=d // k, d_v=d // k) for k in (max(1, h // 8), h // 2, 2 * h, 4 * h)}",
       b="{f'B-dk{k}': dict(d_k=k, d_v=d_k) for k in (d_k // 4, d_k // 2)}", dk="base.get('d_k') or d // h", ret=None, pre=""):
    return f"""
def rows_ab(base):
    {pre}d, h = base['d_model'], base['h']; d_k = {dk}
    return {ret or '{**' + a + ', **' + b + '}'}
"""
A(nb, 'rows_ab', None, AB())
A(nb, 'rows_ab', "d_k = d_model // h, the base's own d_k ignored", AB(dk="d // h"))
A(nb, 'rows_ab', 'row (B) shrinks d_v with d_k', AB(b="{f'B-dk{k}': dict(d_k=k, d_v=k) for k in (d_k // 4, d_k // 2)}"))
A(nb, 'rows_ab', "true division in row (B): 'B-dk16.0' and float sizes", AB(b="{f'B-dk{k}': dict(d_k=k, d_v=d_k) for k in (d_k / 4, d_k / 2)}"))
A(nb, 'rows_ab', "the paper's heads hard-coded: (1, 4, 16, 32)", AB(a="{f'A-h{k}': dict(h=k, d_k=d // k, d_v=d // k) for k in (1, 4, 16, 32)}"))
A(nb, 'rows_ab', 'a list of (name, overrides) pairs, not a dict', AB(ret="[*{**" + "{f'A-h{k}': dict(h=k, d_k=d // k, d_v=d // k) for k in (max(1, h // 8), h // 2, 2 * h, 4 * h)}" + ", **{f'B-dk{k}': dict(d_k=k, d_v=d_k) for k in (d_k // 4, d_k // 2)}}.items()]"))
A(nb, 'rows_ab', "the caller's preset edited in place: base['d_k'] filled in", AB(pre="base.setdefault('d_k', base['d_model'] // base['h'])\n    ", dk="base['d_k']"))

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
A(nb, 'my_linearize', None, LIN())
A(nb, 'my_linearize', "the label after the bracket: 'NP)' for ')NP'", LIN(close="f'{lab})'"))
A(nb, 'my_linearize', "only the function tag split off (label.split('-')[0]): 'NP=1' keeps its index, '-NONE-' becomes ''",
  LIN(lab="tree.label().split('-')[0]"))
A(nb, 'my_linearize', "Vinyals et al.'s XX for every word", LIN(leaf="return 'XX'"))
A(nb, 'my_linearize', 'the unlabelled root skipped (its children joined)', """
def my_linearize(tree):
    if isinstance(tree, str): return tree
    if is_preterminal(tree): return tree[0]
    lab = coarse_label(tree.label())
    inner = [my_linearize(t) for t in tree]
    return ' '.join(inner if lab == '' else [f'({lab}', *inner, f'){lab}'])
""")
A(nb, 'my_linearize', 'every one-child node taken for a POS node: unary phrases dropped', """
def my_linearize(tree):
    if isinstance(tree, str): return tree
    if len(tree) == 1: return my_linearize(tree[0])
    lab = coarse_label(tree.label())
    return ' '.join([f'({lab}', *(my_linearize(t) for t in tree), f'){lab}'])
""")
A(nb, 'my_linearize', 'a list of tokens, not one string', """
def my_linearize(tree):
    def walk(t):
        if isinstance(t, str): return [t]
        if is_preterminal(t): return [t[0]]
        lab = coarse_label(t.label())
        return [f'({lab}', *(x for c in t for x in walk(c)), f'){lab}']
    return walk(tree)
""")
A(nb, 'my_linearize', "EVALB's deletions: -NONE- subtrees (traces) dropped", LIN(
  kids="[t for t in tree if isinstance(t, str) or t.label() != '-NONE-']"))
A(nb, 'my_linearize', "EVALB's deletions: punctuation POS nodes (',', '.', ':', '``', \"''\") dropped", LIN(
  kids="[t for t in tree if isinstance(t, str) or t.label() not in (',', '.', ':', '``', \"''\")]"))

def PRF(body): return f"""
def my_corpus_prf(counts):
    {body}
"""
RIGHT_PRF = "m, g, t = (sum(c[i] for c in counts) for i in range(3))\n    p, r = 100 * m / t, 100 * m / g\n    return p, r, 2 * p * r / (p + r)"
A(nb, 'my_corpus_prf', None, PRF(RIGHT_PRF))
A(nb, 'my_corpus_prf', 'macro-averaged: the mean of the sentences\' P, R and F1', PRF(
  "ps = [100 * m / t if t else 0.0 for m, g, t in counts]; rs = [100 * m / g if g else 0.0 for m, g, t in counts]\n"
  "    fs = [2 * p * r / (p + r) if p + r else 0.0 for p, r in zip(ps, rs)]\n    return sum(ps) / len(ps), sum(rs) / len(rs), sum(fs) / len(fs)"))
A(nb, 'my_corpus_prf', 'the order read as (matched, parse, reference): precision and recall swapped', PRF(
  "m, t, g = (sum(c[i] for c in counts) for i in range(3))\n    p, r = 100 * m / t, 100 * m / g\n    return p, r, 2 * p * r / (p + r)"))
A(nb, 'my_corpus_prf', "EVALB's skipped sentences: a failed parse (no bracket) left out of the sums", PRF(
  "counts = [c for c in counts if c[2] > 0]\n    " + RIGHT_PRF))
A(nb, 'my_corpus_prf', 'a dict of precision, recall and f1', PRF(
  "m, g, t = (sum(c[i] for c in counts) for i in range(3))\n    p, r = 100 * m / t, 100 * m / g\n"
  "    return {'precision': p, 'recall': r, 'f1': 2 * p * r / (p + r)}"))
A(nb, 'my_corpus_prf', 'a NumPy array of the three', PRF(
  "import numpy as np\n    m, g, t = np.asarray(counts, dtype=float).sum(0)\n    p, r = 100 * m / t, 100 * m / g\n    return np.array([p, r, 2 * p * r / (p + r)])"))
A(nb, 'my_corpus_prf', 'integer division in the percentages: 100 * m // t', PRF(
  "m, g, t = (sum(c[i] for c in counts) for i in range(3))\n    p, r = 100 * m // t, 100 * m // g\n    return p, r, 2 * p * r / (p + r)"))
A(nb, 'my_corpus_prf', "the totals appended to the caller's list (counts.append)", PRF(
  "counts.append(tuple(sum(c[i] for c in counts) for i in range(3)))\n    m, g, t = counts[-1]\n"
  "    p, r = 100 * m / t, 100 * m / g\n    return p, r, 2 * p * r / (p + r)"))

# 14_since_2017: rms_norm_of, rotate_query, group_heads
nb = '14_since_2017'
def RMS(body, sig="a, g, eps=1e-5"): return f"""
def rms_norm_of({sig}):
    {body}
"""
A(nb, 'rms_norm_of', None, RMS("return a / torch.sqrt(a.pow(2).mean(-1, keepdim=True) + eps) * g"))
A(nb, 'rms_norm_of', "T5's eps 1e-6 as the default", RMS("return a / torch.sqrt(a.pow(2).mean(-1, keepdim=True) + eps) * g", sig="a, g, eps=1e-6"))
A(nb, 'rms_norm_of', "LLaMA's x.float(): a float64 input computed in float32 and cast back",
  RMS("x = a.float()\n    return (x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps)).type_as(a) * g"))
A(nb, 'rms_norm_of', "the caller's a divided in place (a /= ...)", RMS("a /= torch.sqrt(a.pow(2).mean(-1, keepdim=True) + eps)\n    return a * g"))
A(nb, 'rms_norm_of', "LayerNorm's habit: the mean over every axis but the first", RMS(
  "return a / torch.sqrt(a.pow(2).mean(tuple(range(1, a.dim())), keepdim=True) + eps) * g"))
A(nb, 'rms_norm_of', 'a NumPy array returned (computed on a.numpy())', RMS("x = a.numpy()\n    return x / (x ** 2).mean(-1, keepdims=True).__add__(eps) ** 0.5 * g.numpy()"))
A(nb, 'rms_norm_of', 'd read from axis 1 (a 2-d (n, d) input assumed): the squares summed over the last axis, divided by a.shape[1]',
  RMS("return a / torch.sqrt(a.pow(2).sum(-1, keepdim=True) / a.shape[1] + eps) * g"))

def ROT(body): return f"""
def rotate_query(q, m):
    {body}
"""
A(nb, 'rotate_query', None, ROT(
  "a = m * 10000.0 ** (-torch.arange(0, len(q), 2, dtype=torch.float64) / len(q))\n    x1, x2 = q[0::2].double(), q[1::2].double()\n"
  "    return torch.stack([x1 * a.cos() - x2 * a.sin(), x1 * a.sin() + x2 * a.cos()], -1).flatten().to(q.dtype)"))
A(nb, 'rotate_query', 'integer division in the exponent: arange(0, d, 2) // d is 0, one angle m for every pair', ROT(
  "a = m * 10000.0 ** (-(torch.arange(0, len(q), 2) // len(q))).double()\n    x1, x2 = q[0::2].double(), q[1::2].double()\n"
  "    return torch.stack([x1 * a.cos() - x2 * a.sin(), x1 * a.sin() + x2 * a.cos()], -1).flatten().to(q.dtype)"))
A(nb, 'rotate_query', "the caller's q turned in place", ROT(
  "a = m * 10000.0 ** (-torch.arange(0, len(q), 2, dtype=torch.float64) / len(q))\n    x1, x2 = q[0::2].double(), q[1::2].double()\n"
  "    q[0::2], q[1::2] = (x1 * a.cos() - x2 * a.sin()).to(q.dtype), (x1 * a.sin() + x2 * a.cos()).to(q.dtype)\n    return q"))
A(nb, 'rotate_query', 'theta_i = 10000^(-i/d): the 2 of 2i dropped', ROT(
  "a = m * 10000.0 ** (-torch.arange(len(q) // 2, dtype=torch.float64) / len(q))\n    x1, x2 = q[0::2].double(), q[1::2].double()\n"
  "    return torch.stack([x1 * a.cos() - x2 * a.sin(), x1 * a.sin() + x2 * a.cos()], -1).flatten().to(q.dtype)"))
A(nb, 'rotate_query', 'the pairs left stacked: (d/2, 2), not flattened', ROT(
  "a = m * 10000.0 ** (-torch.arange(0, len(q), 2, dtype=torch.float64) / len(q))\n    x1, x2 = q[0::2].double(), q[1::2].double()\n"
  "    return torch.stack([x1 * a.cos() - x2 * a.sin(), x1 * a.sin() + x2 * a.cos()], -1).to(q.dtype)"))
A(nb, 'rotate_query', 'a NumPy array returned, built coordinate by coordinate', ROT(
  "import numpy as np\n    x = q.double().numpy(); a = m * 10000.0 ** (-np.arange(0, len(x), 2) / len(x))\n"
  "    out = np.empty_like(x); out[0::2] = x[0::2] * np.cos(a) - x[1::2] * np.sin(a); out[1::2] = x[0::2] * np.sin(a) + x[1::2] * np.cos(a)\n    return out"))
A(nb, 'rotate_query', 'always float32 (.float()): a float64 query loses precision', ROT(
  "a = m * 10000.0 ** (-torch.arange(0, len(q), 2, dtype=torch.float64) / len(q))\n    x1, x2 = q[0::2].double(), q[1::2].double()\n"
  "    return torch.stack([x1 * a.cos() - x2 * a.sin(), x1 * a.sin() + x2 * a.cos()], -1).flatten().float()"))

def GRP(body): return f"""
def group_heads(k, g):
    B, h, n, d = k.shape
    {body}
"""
A(nb, 'group_heads', None, GRP("return k.view(B, g, h // g, n, d).mean(2).repeat_interleave(h // g, dim=1)"))
A(nb, 'group_heads', 'g read as the heads per group (h/g groups of g)', GRP("return k.view(B, h // g, g, n, d).mean(2).repeat_interleave(g, dim=1)"))
A(nb, 'group_heads', 'the mean over the positions (axis -2 of the grouped view), not the heads',
  GRP("return k.view(B, g, h // g, n, d).mean(-2, keepdim=True).expand(B, g, h // g, n, d).reshape(B, h, n, d)"))
A(nb, 'group_heads', "Ainslie et al.'s other pooling: each group's first head, not the mean",
  GRP("return k.view(B, g, h // g, n, d)[:, :, 0].repeat_interleave(h // g, dim=1)"))
A(nb, 'group_heads', 'a NumPy array returned (np.repeat of the group means)', GRP(
  "import numpy as np\n    x = k.numpy().reshape(B, g, h // g, n, d).mean(2)\n    return np.repeat(x, h // g, axis=1)"))
A(nb, 'group_heads', 'the mean taken in float64 (mean(dtype=torch.float64)) and returned so',
  GRP("return k.view(B, g, h // g, n, d).mean(2, dtype=torch.float64).repeat_interleave(h // g, dim=1)"))
A(nb, 'group_heads', 'a loop over the heads stacked on axis 0: (h, B, n, d)', GRP(
  "out = []\n    for i in range(h):\n        j = i // (h // g) * (h // g)\n        out.append(k[:, j:j + h // g].mean(1))\n    return torch.stack(out)"))
