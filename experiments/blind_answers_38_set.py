"""The thirty-eighth blind set's answers, for notebooks 08 to 10 only (08_data, 09_training, 10_decoding), written from the
exercises' text alone: (notebook, exercise, mistake, code), the mistake None for the right answer.
`experiments/blind_answers.py 38` runs them.
This set goes where the earlier sets for these notebooks did not: state kept across calls (a default merges list, merges
consumed by segment, a global call counter or peak, a cached encoder memory, a cached target q), Python slips (a trailing
comma, a value computed but not returned, a parenthesis closed early, = for +=, a merged symbol kept as a tuple, a
stable sort's last tie, Sennrich's regex with \\b bounds), numerics written by hand (a log-softmax without its max or
with the global one, log(softmax + 1e-9), the uniform part without its logsumexp), other libraries' habits (torch's
time-major nn.Transformer, the Annotated Transformer's triu mask and generator, Hugging Face's finished rows and
repetition penalty, NumPy's nonzero), indices not mapped back and positions read from the wrong length."""
ANSWERS = []
def A(nb, ex, mistake, code): ANSWERS.append((nb, ex, mistake, code))

# ---------------------------------------------------------------------------------------------------------------------
nb = '08_data'
BPE_RIGHT = """
def _merge(syms, pair):
    out, i = [], 0
    while i < len(syms):
        if i < len(syms) - 1 and (syms[i], syms[i + 1]) == pair: out.append(syms[i] + syms[i + 1]); i += 2
        else: out.append(syms[i]); i += 1
    return out

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
        vocab = {tuple(_merge(list(s), best)): c for s, c in vocab.items()}
    return merges

def segment(word, merges):
    syms = list(word) + ['</w>']
    for pair in merges: syms = _merge(syms, pair)
    return syms
"""
A(nb, 'bpe', None, BPE_RIGHT)

A(nb, 'bpe', "Sennrich's regex with \\b word boundaries instead of whitespace look-arounds: a pair with '</w>' never merges (the same merge recorded again and again)", r"""
import re
def _apply(pair, words):
    pat = re.compile(r'\b' + re.escape(' '.join(pair)) + r'\b')
    return {pat.sub(''.join(pair), w): c for w, c in words.items()}

def learn_bpe(word_counts, n_merges):
    words = {' '.join(w) + ' </w>': c for w, c in word_counts.items()}
    merges = []
    for _ in range(n_merges):
        pairs = Counter()
        for w, c in words.items():
            s = w.split()
            for a, b in zip(s, s[1:]): pairs[a, b] += c
        if not pairs: break
        best = min(pairs, key=lambda p: (-pairs[p], p))
        merges.append(best)
        words = _apply(best, words)
    return merges

def segment(word, merges):
    w = {' '.join(word) + ' </w>': 1}
    for pair in merges: w = _apply(pair, w)
    return next(iter(w)).split()
""")

A(nb, 'bpe', 'one Counter made before the loop: each round adds its counts to the last rounds\', so a merged pair is picked again', BPE_RIGHT.replace(
"""    for _ in range(n_merges):
        pairs = Counter()
""", """    pairs = Counter()
    for _ in range(n_merges):
"""))

A(nb, 'bpe', 'the merged words never stored back (the merge result discarded): the same pair n_merges times', BPE_RIGHT.replace(
"        vocab = {tuple(_merge(list(s), best)): c for s, c in vocab.items()}",
"        for s in vocab: _merge(list(s), best)          # merge every word"))

A(nb, 'bpe', 'a pair\'s count assigned (=), not added (+=): each pair gets the count of the last word that holds it', BPE_RIGHT.replace(
"pairs[a, b] += c", "pairs[a, b] = c"))

A(nb, 'bpe', 'the new symbol kept as the pair itself (syms[i:i + 2] = [pair]), not the joined string', BPE_RIGHT.replace(
"out.append(syms[i] + syms[i + 1])", "out.append((syms[i], syms[i + 1]))"))

A(nb, 'bpe', 'the best pair as sorted(pairs, key=pairs.get)[-1]: ties go to the pair counted last', BPE_RIGHT.replace(
"best = min(pairs, key=lambda p: (-pairs[p], p))", "best = sorted(pairs, key=pairs.get)[-1]"))

A(nb, 'bpe', 'a pair matched by its joined string (syms[i] + syms[i + 1] == a + b): (ab, c) taken for (a, bc)', BPE_RIGHT.replace(
"(syms[i], syms[i + 1]) == pair", "syms[i] + syms[i + 1] == pair[0] + pair[1]"))

A(nb, 'bpe', 'merges=[] as a default argument: a second call continues the first call\'s list', BPE_RIGHT.replace(
"""def learn_bpe(word_counts, n_merges):
    vocab = {tuple(w) + ('</w>',): c for w, c in word_counts.items()}
    merges = []""", """def learn_bpe(word_counts, n_merges, merges=[]):
    vocab = {tuple(w) + ('</w>',): c for w, c in word_counts.items()}"""))

A(nb, 'bpe', "segment consumes the caller's merges (merges.pop(0)): a second segment gets none", BPE_RIGHT.replace(
"    for pair in merges: syms = _merge(syms, pair)", "    while merges: syms = _merge(syms, merges.pop(0))"))

A(nb, 'bpe', 'segment a generator (yield from the pieces), not a list', BPE_RIGHT.replace(
"""    for pair in merges: syms = _merge(syms, pair)
    return syms""", """    for pair in merges: syms = _merge(syms, pair)
    yield from syms"""))

A(nb, 'bpe', 'each merge recorded with its count, ((a, b), n), as a training log prints it', BPE_RIGHT.replace(
"        merges.append(best)", "        merges.append((best, pairs[best]))").replace(
"    for pair in merges: syms = _merge(syms, pair)", "    for pair, _ in merges: syms = _merge(syms, pair)"))

A(nb, 'bpe', 'learn_bpe returns (merges, vocab), as a tokenizer trainer returns its vocabulary too', BPE_RIGHT.replace(
"        vocab = {tuple(_merge(list(s), best)): c for s, c in vocab.items()}\n    return merges",
"        vocab = {tuple(_merge(list(s), best)): c for s, c in vocab.items()}\n    return merges, vocab"))

A(nb, 'bpe', "word_counts' keys read as Sennrich's spaced words ('l o w </w>'): split on spaces, each word one symbol", """
def _merge(syms, pair):
    out, i = [], 0
    while i < len(syms):
        if i < len(syms) - 1 and (syms[i], syms[i + 1]) == pair: out.append(syms[i] + syms[i + 1]); i += 2
        else: out.append(syms[i]); i += 1
    return out

def learn_bpe(word_counts, n_merges):
    vocab = {tuple(w.split()): c for w, c in word_counts.items()}     # 'l o w </w>' -> its symbols
    merges = []
    for _ in range(n_merges):
        pairs = Counter()
        for syms, c in vocab.items():
            for a, b in zip(syms, syms[1:]): pairs[a, b] += c
        if not pairs: break
        best = min(pairs, key=lambda p: (-pairs[p], p))
        merges.append(best)
        vocab = {tuple(_merge(list(s), best)): c for s, c in vocab.items()}
    return merges

def segment(word, merges):
    syms = word.split()
    for pair in merges: syms = _merge(syms, pair)
    return syms
""")

A(nb, 'bpe', 'merges collected in a set (no merge twice): the order learnt lost', BPE_RIGHT.replace(
"""    merges = []
    for _ in range(n_merges):""", """    merges = set()
    for _ in range(n_merges):""").replace("        merges.append(best)", "        merges.add(best)").replace(
"    return merges\n\ndef segment", "    return list(merges)\n\ndef segment"))

A(nb, 'bpe', 'the merges prepended (merges.insert(0, best)): the list newest first', BPE_RIGHT.replace(
"        merges.append(best)", "        merges.insert(0, best)").replace(
"    for pair in merges: syms = _merge(syms, pair)", "    for pair in reversed(merges): syms = _merge(syms, pair)"))

A(nb, 'bpe', 'pairs counted with the symbols joined by no space: the key a + b, so (ab, c) and (a, bc) share one count', """
def _merge(syms, pair):
    out, i = [], 0
    while i < len(syms):
        if i < len(syms) - 1 and (syms[i], syms[i + 1]) == pair: out.append(syms[i] + syms[i + 1]); i += 2
        else: out.append(syms[i]); i += 1
    return out

def learn_bpe(word_counts, n_merges):
    vocab = {tuple(w) + ('</w>',): c for w, c in word_counts.items()}
    merges = []
    for _ in range(n_merges):
        pairs, first = Counter(), {}
        for syms, c in vocab.items():
            for a, b in zip(syms, syms[1:]): pairs[a + b] += c; first.setdefault(a + b, (a, b))
        if not pairs: break
        best = first[min(pairs, key=lambda s: (-pairs[s], first[s]))]
        merges.append(best)
        vocab = {tuple(_merge(list(s), best)): c for s, c in vocab.items()}
    return merges

def segment(word, merges):
    syms = list(word) + ['</w>']
    for pair in merges: syms = _merge(syms, pair)
    return syms
""")

A(nb, 'bpe', 'a for loop over range(len(syms) - 1) while the list shrinks under it: IndexError once a merge is made', """
def _merge(syms, pair):
    syms = list(syms)
    for i in range(len(syms) - 1):
        if (syms[i], syms[i + 1]) == pair: syms[i:i + 2] = [syms[i] + syms[i + 1]]
    return syms

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
        vocab = {tuple(_merge(s, best)): c for s, c in vocab.items()}
    return merges

def segment(word, merges):
    syms = list(word) + ['</w>']
    for pair in merges: syms = _merge(syms, pair)
    return syms
""")

A(nb, 'bpe', 'for w, c in word_counts: without .items(), each key unpacked (ValueError)', BPE_RIGHT.replace(
"vocab = {tuple(w) + ('</w>',): c for w, c in word_counts.items()}", "vocab = {tuple(w) + ('</w>',): c for w, c in word_counts}"))

A(nb, 'bpe', 'symbols compared with is, not ==: a merged symbol made in another word is another object', BPE_RIGHT.replace(
"(syms[i], syms[i + 1]) == pair", "syms[i] is pair[0] and syms[i + 1] is pair[1]"))

A(nb, 'bpe', "the count's name c reused for the second symbol (for a, c in zip(...)): pairs[a, c] += c adds a string", BPE_RIGHT.replace(
"            for a, b in zip(syms, syms[1:]): pairs[a, b] += c", "            for a, c in zip(syms, syms[1:]): pairs[a, c] += c"))

# ---------------------------------------------------------------------------------------------------------------------
nb = '09_training'
A(nb, 'my_noam_lr', None, """
def my_noam_lr(step, d_model=512, warmup=4000):
    if step == 0: return 0.0
    return d_model ** -0.5 * min(step ** -0.5, step * warmup ** -1.5)
""")
A(nb, 'my_noam_lr', None, """
def my_noam_lr(step, d_model=512, warmup=4000):
    if step == 0: return 0.0
    peak = (d_model * warmup) ** -0.5                      # the rate at step = warmup
    return peak * min(step / warmup, (warmup / step) ** 0.5)
""")

A(nb, 'my_noam_lr', 'the parenthesis closed after step: min(step ** -0.5, step) * warmup ** -1.5', """
def my_noam_lr(step, d_model=512, warmup=4000):
    if step == 0: return 0.0
    return d_model ** -0.5 * min(step ** -0.5, step) * warmup ** -1.5
""")
A(nb, 'my_noam_lr', 'a trailing comma: a 1-tuple returned', """
def my_noam_lr(step, d_model=512, warmup=4000):
    if step == 0: return 0.0
    lr = d_model ** -0.5 * min(step ** -0.5, step * warmup ** -1.5),
    return lr
""")
A(nb, 'my_noam_lr', 'the rate computed but not returned: None after step 0', """
def my_noam_lr(step, d_model=512, warmup=4000):
    if step == 0: return 0.0
    lr = d_model ** -0.5 * min(step ** -0.5, step * warmup ** -1.5)
""")
A(nb, 'my_noam_lr', 'math.isqrt (the integer square root) for sqrt(d_model)', """
def my_noam_lr(step, d_model=512, warmup=4000):
    if step == 0: return 0.0
    return min(step ** -0.5, step * warmup ** -1.5) / math.isqrt(d_model)
""")
A(nb, 'my_noam_lr', 'a count of its own calls kept in a global (scheduler.step() habit): the step argument ignored', """
_calls = 0
def my_noam_lr(step, d_model=512, warmup=4000):
    global _calls
    s, _calls = _calls, _calls + 1                   # the first call is step 0
    if s == 0: return 0.0
    return d_model ** -0.5 * min(s ** -0.5, s * warmup ** -1.5)
""")
A(nb, 'my_noam_lr', 'the peak computed at the first call and kept in a global: another d_model or warm-up gets the first one\'s', """
_peak = None
def my_noam_lr(step, d_model=512, warmup=4000):
    global _peak
    if _peak is None: _peak = (d_model * warmup) ** -0.5
    if step == 0: return 0.0
    return _peak * min(step / warmup, (warmup / step) ** 0.5)
""")
A(nb, 'my_noam_lr', "the toy run's lr=0.3 kept as a factor", """
def my_noam_lr(step, d_model=512, warmup=4000):
    if step == 0: return 0.0
    return 0.3 * d_model ** -0.5 * min(step ** -0.5, step * warmup ** -1.5)
""")
A(nb, 'my_noam_lr', "the paper's argument names (step_num, d_model, warmup_steps): a call with warmup= fails", """
def my_noam_lr(step_num, d_model=512, warmup_steps=4000):
    if step_num == 0: return 0.0
    return d_model ** -0.5 * min(step_num ** -0.5, step_num * warmup_steps ** -1.5)
""")
A(nb, 'my_noam_lr', 'the peak factor (d_model warmup)^-0.5 put in front of the unnormalised min(step^-0.5, step / warmup)', """
def my_noam_lr(step, d_model=512, warmup=4000):
    if step == 0: return 0.0
    return (d_model * warmup) ** -0.5 * min(step ** -0.5, step / warmup)
""")

A(nb, 'my_noam_lr', 'step / warmup ** 3 ** 0.5: ** binds right to left, warmup ** 1.732', """
def my_noam_lr(step, d_model=512, warmup=4000):
    if step == 0: return 0.0
    return 1 / math.sqrt(d_model) * min(1 / math.sqrt(step), step / warmup ** 3 ** 0.5)
""")

LS_RIGHT = """
def my_label_smoothing(logits, target, eps, pad_id=PAD_ID):
    V = logits.shape[-1]
    q = torch.full_like(logits, eps / V)
    q.scatter_add_(-1, target[..., None], torch.full_like(logits[..., :1], 1 - eps))
    loss = -(q * logits.log_softmax(-1)).sum(-1)
    return loss[target != pad_id].mean()
"""
A(nb, 'my_label_smoothing', None, LS_RIGHT)
A(nb, 'my_label_smoothing', None, """
def my_label_smoothing(logits, target, eps, pad_id=PAD_ID):
    return F.cross_entropy(logits.reshape(-1, logits.shape[-1]), target.reshape(-1), label_smoothing=eps, ignore_index=pad_id)
""")
A(nb, 'my_label_smoothing', None, """
def my_label_smoothing(logits, target, eps, pad_id=PAD_ID):
    lse = logits.logsumexp(-1)                                        # log p_i = z_i - lse
    nll = lse - logits.gather(-1, target[..., None]).squeeze(-1)
    uniform = lse - logits.mean(-1)                                   # (1/V) sum_i -log p_i
    keep = target != pad_id
    return ((1 - eps) * nll + eps * uniform)[keep].mean()
""")

A(nb, 'my_label_smoothing', 'target.view(-1): the sliced tgt[:, 1:] of seq2seq_loss is not contiguous, view raises', """
def my_label_smoothing(logits, target, eps, pad_id=PAD_ID):
    return F.cross_entropy(logits.view(-1, logits.shape[-1]), target.view(-1), label_smoothing=eps, ignore_index=pad_id)
""")
A(nb, 'my_label_smoothing', 'q built in place on F.one_hot\'s long tensor (q *= 1 - eps): a dtype error', """
def my_label_smoothing(logits, target, eps, pad_id=PAD_ID):
    V = logits.shape[-1]
    q = F.one_hot(target, V)
    q *= 1 - eps
    q += eps / V
    loss = -(q * logits.log_softmax(-1)).sum(-1)
    return loss[target != pad_id].mean()
""")
A(nb, 'my_label_smoothing', 'the eps argument ignored: EPS_LS (0.1) used', """
from transformer_nb.training_config import EPS_LS
def my_label_smoothing(logits, target, eps=EPS_LS, pad_id=PAD_ID):
    eps = EPS_LS                                                     # §5.4's value
    V = logits.shape[-1]
    q = torch.full_like(logits, eps / V)
    q.scatter_add_(-1, target[..., None], torch.full_like(logits[..., :1], 1 - eps))
    loss = -(q * logits.log_softmax(-1)).sum(-1)
    return loss[target != pad_id].mean()
""")
A(nb, 'my_label_smoothing', 'pads found as target > pad_id: ids below pad_id dropped too', LS_RIGHT.replace(
"loss[target != pad_id]", "loss[target > pad_id]"))
A(nb, 'my_label_smoothing', "V hard-coded to the notebook's example, 11", LS_RIGHT.replace(
"V = logits.shape[-1]", "V = 11"))
A(nb, 'my_label_smoothing', 'the model\'s p smoothed, not the target: -log((1 - eps) p_y + eps / V)', """
def my_label_smoothing(logits, target, eps, pad_id=PAD_ID):
    V = logits.shape[-1]
    p = (1 - eps) * logits.softmax(-1) + eps / V
    loss = -p.log().gather(-1, target[..., None]).squeeze(-1)
    return loss[target != pad_id].mean()
""")
A(nb, 'my_label_smoothing', 'the cross-entropy the other way round: -sum_i p_i log q_i', """
def my_label_smoothing(logits, target, eps, pad_id=PAD_ID):
    V = logits.shape[-1]
    q = torch.full_like(logits, eps / V)
    q.scatter_add_(-1, target[..., None], torch.full_like(logits[..., :1], 1 - eps))
    loss = -(logits.softmax(-1) * q.log()).sum(-1)
    return loss[target != pad_id].mean()
""")
A(nb, 'my_label_smoothing', 'the uniform part written from the raw logits, -mean_i z_i: its logsumexp left out', """
def my_label_smoothing(logits, target, eps, pad_id=PAD_ID):
    lse = logits.logsumexp(-1)
    nll = lse - logits.gather(-1, target[..., None]).squeeze(-1)
    uniform = -logits.mean(-1)
    keep = target != pad_id
    return ((1 - eps) * nll + eps * uniform)[keep].mean()
""")
A(nb, 'my_label_smoothing', 'log-softmax by hand with the global max subtracted, not each row\'s: rows far below it underflow to -inf', """
def my_label_smoothing(logits, target, eps, pad_id=PAD_ID):
    V = logits.shape[-1]
    z = logits - logits.max()                                        # for stability
    lp = z - z.exp().sum(-1, keepdim=True).log()
    q = torch.full_like(logits, eps / V)
    q.scatter_add_(-1, target[..., None], torch.full_like(logits[..., :1], 1 - eps))
    loss = -(q * lp).sum(-1)
    return loss[target != pad_id].mean()
""")
A(nb, 'my_label_smoothing', 'log-softmax by hand without the max: exp overflows for logits above ~88', """
def my_label_smoothing(logits, target, eps, pad_id=PAD_ID):
    V = logits.shape[-1]
    lp = logits - logits.exp().sum(-1, keepdim=True).log()
    q = torch.full_like(logits, eps / V)
    q.scatter_add_(-1, target[..., None], torch.full_like(logits[..., :1], 1 - eps))
    loss = -(q * lp).sum(-1)
    return loss[target != pad_id].mean()
""")
A(nb, 'my_label_smoothing', 'log(softmax + 1e-9), a Keras-style epsilon: -log p capped near 20.7 for confident logits', """
def my_label_smoothing(logits, target, eps, pad_id=PAD_ID):
    V = logits.shape[-1]
    lp = (logits.softmax(-1) + 1e-9).log()
    q = torch.full_like(logits, eps / V)
    q.scatter_add_(-1, target[..., None], torch.full_like(logits[..., :1], 1 - eps))
    loss = -(q * lp).sum(-1)
    return loss[target != pad_id].mean()
""")
A(nb, 'my_label_smoothing', 'the uniform part spread over the V - 1 tokens that are not pad (the pad column 0)', """
def my_label_smoothing(logits, target, eps, pad_id=PAD_ID):
    V = logits.shape[-1]
    q = torch.full_like(logits, eps / (V - 1))
    q[..., pad_id] = 0                                               # padding is not a word
    q.scatter_add_(-1, target[..., None], torch.full_like(logits[..., :1], 1 - eps))
    loss = -(q * logits.log_softmax(-1)).sum(-1)
    return loss[target != pad_id].mean()
""")
A(nb, 'my_label_smoothing', 'the pad column of q zeroed, then q renormalised to sum to 1', """
def my_label_smoothing(logits, target, eps, pad_id=PAD_ID):
    V = logits.shape[-1]
    q = torch.full_like(logits, eps / V)
    q.scatter_add_(-1, target[..., None], torch.full_like(logits[..., :1], 1 - eps))
    q[..., pad_id] = 0
    q = q / q.sum(-1, keepdim=True)
    loss = -(q * logits.log_softmax(-1)).sum(-1)
    return loss[target != pad_id].mean()
""")
A(nb, 'my_label_smoothing', "loss[mask.nonzero()]: NumPy's tuple of indices, but torch's nonzero() is a (k, 2) tensor (whole rows picked)", LS_RIGHT.replace(
"return loss[target != pad_id].mean()", "return loss[(target != pad_id).nonzero()].mean()"))
A(nb, 'my_label_smoothing', 'q cached by shape across calls (built once for the first targets of that shape)', """
_q = {}
def my_label_smoothing(logits, target, eps, pad_id=PAD_ID):
    V = logits.shape[-1]
    if logits.shape not in _q:                                       # build q once
        q = torch.full_like(logits, eps / V)
        q.scatter_add_(-1, target[..., None], torch.full_like(logits[..., :1], 1 - eps))
        _q[logits.shape] = q
    loss = -(_q[logits.shape] * logits.log_softmax(-1)).sum(-1)
    return loss[target != pad_id].mean()
""")

A(nb, 'my_label_smoothing', 'q = logits.detach().fill_(eps / V): detach shares the storage, the caller\'s logits overwritten', """
def my_label_smoothing(logits, target, eps, pad_id=PAD_ID):
    V = logits.shape[-1]
    lp = logits.log_softmax(-1)
    q = logits.detach().fill_(eps / V)                               # a tensor like logits, outside the graph
    q.scatter_add_(-1, target[..., None], torch.full_like(q[..., :1], 1 - eps))
    loss = -(q * lp).sum(-1)
    return loss[target != pad_id].mean()
""")
A(nb, 'my_label_smoothing', "the scatter's 1 - eps made with full_like(target[..., None]): a long tensor", LS_RIGHT.replace(
"torch.full_like(logits[..., :1], 1 - eps)", "torch.full_like(target[..., None], 1 - eps)"))

A(nb, 'my_label_smoothing', 'torch.zeros_like for full_like: only the reference gets a share, 1 - eps + eps / V', """
def my_label_smoothing(logits, target, eps, pad_id=PAD_ID):
    V = logits.shape[-1]
    q = torch.zeros_like(logits)
    q.scatter_(-1, target[..., None], 1 - eps + eps / V)
    loss = -(q * logits.log_softmax(-1)).sum(-1)
    return loss[target != pad_id].mean()
""")

# ---------------------------------------------------------------------------------------------------------------------
nb = '10_decoding'
A(nb, 'my_greedy_step', None, """
def my_greedy_step(model, src, ys):
    logits = model(src, ys)[:, -1]
    return next_token_logits(logits).argmax(-1)
""")
A(nb, 'my_greedy_step', None, """
def my_greedy_step(model, src, ys):
    with torch.no_grad():
        src_mask = pad_mask(src)
        memory = model.encode(src, src_mask)
        logits = model.decode(memory, src_mask, ys, tgt_mask(ys))[:, -1]
    return next_token_logits(logits).argmax(-1)
""")

A(nb, 'my_greedy_step', 'logits[..., -1]: the last vocabulary entry at every position, not the last position', """
def my_greedy_step(model, src, ys):
    logits = model(src, ys)[..., -1]
    return next_token_logits(logits).argmax(-1)
""")
A(nb, 'my_greedy_step', '+inf for -inf (the sign lost): PAD always chosen', """
def my_greedy_step(model, src, ys):
    logits = model(src, ys)[:, -1]
    logits[:, [PAD_ID, BOS_ID]] = float('inf')
    return logits.argmax(-1)
""")
A(nb, 'my_greedy_step', "PAD's and BOS's columns dropped (logits[:, keep]) and the argmax not mapped back to ids", """
def my_greedy_step(model, src, ys):
    logits = model(src, ys)[:, -1]
    keep = [i for i in range(logits.shape[-1]) if i not in (PAD_ID, BOS_ID)]
    return logits[:, keep].argmax(-1)
""")
A(nb, 'my_greedy_step', "the source's EOS dropped (src[:, :-1], the target's teacher-forcing slice)", """
def my_greedy_step(model, src, ys):
    logits = model(src[:, :-1], ys)[:, -1]
    return next_token_logits(logits).argmax(-1)
""")
A(nb, 'my_greedy_step', 'a BOS put in front of the source too (the target convention)', """
def my_greedy_step(model, src, ys):
    src = torch.cat([torch.full_like(src[:, :1], BOS_ID), src], 1)
    logits = model(src, ys)[:, -1]
    return next_token_logits(logits).argmax(-1)
""")
A(nb, 'my_greedy_step', "the Annotated Transformer's subsequent_mask without its == 0: triu(ones), each position sees itself and the future, the last only itself", """
def my_greedy_step(model, src, ys):
    t = ys.shape[1]
    mask = torch.triu(torch.ones(t, t, dtype=torch.bool))[None, None]
    src_mask = pad_mask(src)
    logits = model.decode(model.encode(src, src_mask), src_mask, ys, mask)[:, -1]
    return next_token_logits(logits).argmax(-1)
""")
A(nb, 'my_greedy_step', "model.generator applied to decode's output, which is already logits (the Annotated Transformer's decode returns states)", """
def my_greedy_step(model, src, ys):
    src_mask = pad_mask(src)
    out = model.decode(model.encode(src, src_mask), src_mask, ys, tgt_mask(ys))
    logits = model.generator(out[:, -1])
    return next_token_logits(logits).argmax(-1)
""")
A(nb, 'my_greedy_step', "the encoder's output kept in a global at the first call (the encoder runs once): a new source decoded against the first one's", """
_memory = None
def my_greedy_step(model, src, ys):
    global _memory
    src_mask = pad_mask(src)
    if _memory is None: _memory = model.encode(src, src_mask)
    logits = model.decode(_memory, src_mask, ys, tgt_mask(ys))[:, -1]
    return next_token_logits(logits).argmax(-1)
""")
A(nb, 'my_greedy_step', "the encoder's output cached by the source's shape: another source of that shape gets the first's memory", """
_cache = {}
def my_greedy_step(model, src, ys):
    src_mask = pad_mask(src)
    if src.shape not in _cache: _cache[src.shape] = model.encode(src, src_mask)
    logits = model.decode(_cache[src.shape], src_mask, ys, tgt_mask(ys))[:, -1]
    return next_token_logits(logits).argmax(-1)
""")
A(nb, 'my_greedy_step', 'the last position read as len(ys) - 1: the batch size, not the prefix length', """
def my_greedy_step(model, src, ys):
    logits = model(src, ys)[:, len(ys) - 1]
    return next_token_logits(logits).argmax(-1)
""")
A(nb, 'my_greedy_step', 'logits[:, ys.shape[1]]: one past the last position', """
def my_greedy_step(model, src, ys):
    logits = model(src, ys)[:, ys.shape[1]]
    return next_token_logits(logits).argmax(-1)
""")
A(nb, 'my_greedy_step', 'the last position kept as (B, 1, V) (logits[:, -1:]): next_token_logits indexes its axis 1', """
def my_greedy_step(model, src, ys):
    logits = model(src, ys)[:, -1:]
    return next_token_logits(logits).argmax(-1).squeeze(1)
""")
A(nb, 'my_greedy_step', "Hugging Face's unfinished rows: a row whose prefix already holds EOS gets PAD", """
def my_greedy_step(model, src, ys):
    nxt = next_token_logits(model(src, ys)[:, -1]).argmax(-1)
    done = (ys == EOS_ID).any(1)
    return torch.where(done, torch.full_like(nxt, PAD_ID), nxt)
""")
A(nb, 'my_greedy_step', 'the source encoded under tgt_mask(src): a causal source, each token sees only its past', """
def my_greedy_step(model, src, ys):
    memory = model.encode(src, tgt_mask(src))
    logits = model.decode(memory, pad_mask(src), ys, tgt_mask(ys))[:, -1]
    return next_token_logits(logits).argmax(-1)
""")
A(nb, 'my_greedy_step', "inputs transposed to (length, batch), torch's nn.Transformer default (batch_first=False)", """
def my_greedy_step(model, src, ys):
    logits = model(src.t(), ys.t())[-1]                 # (T, B, V): the last step
    return next_token_logits(logits).argmax(-1)
""")
A(nb, 'my_greedy_step', "the target mask cast to the source's dtype (.type_as(src)), as the Annotated Transformer's greedy_decode", """
def my_greedy_step(model, src, ys):
    src_mask = pad_mask(src)
    memory = model.encode(src, src_mask)
    logits = model.decode(memory, src_mask, ys, tgt_mask(ys).type_as(src))[:, -1]
    return next_token_logits(logits).argmax(-1)
""")
A(nb, 'my_greedy_step', "Hugging Face's repetition_penalty 1.2 on the tokens already in the prefix", """
def my_greedy_step(model, src, ys):
    logits = model(src, ys)[:, -1].clone()
    seen = logits.gather(1, ys)
    logits.scatter_(1, ys, torch.where(seen > 0, seen / 1.2, seen * 1.2))
    return next_token_logits(logits).argmax(-1)
""")
A(nb, 'my_greedy_step', 'the row\'s last token forbidden too (a no-repeat rule)', """
def my_greedy_step(model, src, ys):
    logits = next_token_logits(model(src, ys)[:, -1])
    logits.scatter_(1, ys[:, -1:], float('-inf'))
    return logits.argmax(-1)
""")

A(nb, 'my_greedy_step', '(1, B): a new axis in front (tok[None]), not (B,)', """
def my_greedy_step(model, src, ys):
    logits = model(src, ys)[:, -1]
    return next_token_logits(logits).argmax(-1)[None]
""")

A(nb, 'my_greedy_step', "the prefix padded to the source's length (an RNN habit): the last position read is padding", """
def my_greedy_step(model, src, ys):
    if ys.shape[1] < src.shape[1]: ys = F.pad(ys, (0, src.shape[1] - ys.shape[1]), value=PAD_ID)
    logits = model(src, ys)[:, -1]
    return next_token_logits(logits).argmax(-1)
""")
