"""The thirty-fifth blind set's answers, for notebooks 11 to 14 only (11_results ... 14_since_2017), written from the
exercises' text alone: (notebook, exercise, mistake, code), the mistake None for the right answer.
`experiments/blind_answers.py 35` runs them. This set goes where the earlier sets for these notebooks did not: the
text's words read the hurried way (split(' ') for runs of spaces, the last sentence's lengths for the corpus's, the
reference's n-grams for the total, log10 under exp, a precedence slip dividing the exp, a range for the listed rows, g
read as the heads per group, d_v left at the preset's), other libraries' habits (add-one smoothing, distinct n-grams,
lowercasing, nonzero's tensor, deg2rad, LLaMA 3's base, a phrase of POS nodes flattened, a breadth-first walk, the mean
absolute value), containers (records for ids, tensors for numbers), inputs edited behind the caller's back (the preset
updated, q rotated in place, a divided in place, k overwritten) and gradients cut (a detached rms, no_grad). The right
answers are the thirty-first set's."""
ANSWERS = []
def A(nb, ex, mistake, code): ANSWERS.append((nb, ex, mistake, code))

nb = '11_results'
NGR = "ngrams = lambda ws, n: Counter(tuple(ws[i:i + n]) for i in range(len(ws) - n + 1))"
def BLEU(clip="sum((ngrams(h, n) & ngrams(ref, n)).values())", total="max(len(h) - n + 1, 0)", orders="range(1, 5)",
         bp="min(1.0, math.exp(1 - r / c))", ret="100 * bp * math.exp(sum(math.log(m / t) for m, t in zip(match, total)) / K)",
         pre="", loop="zip(hyps, refs)", split="h, ref = h.split(), ref.split()", ngr=NGR, lens="c, r = c + len(h), r + len(ref)", sig="hyps, refs"):
    return f"""
def my_bleu({sig}):
    {ngr}
    K = len({orders})
    match, total, c, r = [0] * K, [0] * K, 0, 0
    {pre}for h, ref in {loop}:
        {split}
        {lens}
        for n in {orders}:
            match[n - 1] += {clip}
            total[n - 1] += {total}
    bp = {bp}
    return {ret}
"""
A(nb, 'my_bleu', None, BLEU())
A(nb, 'my_bleu', "split(' '): a run of spaces gives empty words", BLEU(split="h, ref = h.split(' '), ref.split(' ')"))
A(nb, 'my_bleu', 'the brevity penalty without its cap at 1: exp(1 - r / c) above 1 for long hypotheses', BLEU(bp="math.exp(1 - r / c)"))
A(nb, 'my_bleu', "each order's precision the mean of the sentences' precisions (macro-averaged p_n)", BLEU(
  pre="ps = [[] for _ in range(K)]\n    ",
  clip="0; ps[n - 1].append(sum((ngrams(h, n) & ngrams(ref, n)).values()) / max(len(h) - n + 1, 1))",
  ret="100 * bp * math.exp(sum(math.log(sum(p) / len(p)) for p in ps) / K)"))
A(nb, 'my_bleu', 'the exp divided by 4 (precedence): exp(sum of logs) / 4', BLEU(ret="100 * bp * math.exp(sum(math.log(m / t) for m, t in zip(match, total))) / K"))
A(nb, 'my_bleu', 'lowercased before splitting', BLEU(split="h, ref = h.lower().split(), ref.lower().split()"))
A(nb, 'my_bleu', "the n-grams counted in the reference as the total: recall, not precision", BLEU(total="max(len(ref) - n + 1, 0)"))
A(nb, 'my_bleu', 'a fraction from 0 to 1, not 0 to 100', BLEU(ret="bp * math.exp(sum(math.log(m / t) for m, t in zip(match, total)) / K)"))
A(nb, 'my_bleu', 'add-one smoothing on every order (matches and totals + 1)', BLEU(
  ret="100 * bp * math.exp(sum(math.log((m + 1) / (t + 1)) for m, t in zip(match, total)) / K)"))
A(nb, 'my_bleu', 'distinct n-grams matched (sets): a repeated n-gram matched once', BLEU(clip="len(set(ngrams(h, n)) & set(ngrams(ref, n)))"))
A(nb, 'my_bleu', 'the total counted as the distinct n-grams of the hypothesis', BLEU(total="len(ngrams(h, n))"))
A(nb, 'my_bleu', "c, r = len(h), len(ref): the last sentence's lengths in the brevity penalty", BLEU(lens="c, r = len(h), len(ref)"))
A(nb, 'my_bleu', 'math.log10 with math.exp: the logs in base 10, the mean raised to e', BLEU(
  ret="100 * bp * math.exp(sum(math.log10(m / t) for m, t in zip(match, total)) / K)"))
A(nb, 'my_bleu', "the last n-gram of each sentence lost: range(len(ws) - n)",
  BLEU(ngr="ngrams = lambda ws, n: Counter(tuple(ws[i:i + n]) for i in range(len(ws) - n))", total="max(len(h) - n, 0)"))
A(nb, 'my_bleu', 'orders 1 to 3 only (range(1, 4))', BLEU(orders="range(1, 4)"))
A(nb, 'my_bleu', 'the geometric mean taken over the sentences: sentence BLEU multiplied, then the n-th root', """
def my_bleu(hyps, refs):
    ngrams = lambda ws, n: Counter(tuple(ws[i:i + n]) for i in range(len(ws) - n + 1))
    c = r = 0; logp = [0.0] * 4
    for h, ref in zip(hyps, refs):
        h, ref = h.split(), ref.split(); c, r = c + len(h), r + len(ref)
        for n in range(1, 5):
            logp[n - 1] += math.log(max(sum((ngrams(h, n) & ngrams(ref, n)).values()), 1) / max(len(h) - n + 1, 1))
    bp = min(1.0, math.exp(1 - r / c))
    return 100 * bp * math.exp(sum(logp) / (4 * len(hyps)))
""")
A(nb, 'my_bleu', 'the brevity penalty from the shorter of c and r: exp(1 - max / min) always', BLEU(bp="math.exp(1 - max(r, c) / min(r, c))"))
A(nb, 'my_bleu', "strip() only, no split: BLEU over characters", BLEU(split="h, ref = list(h.strip()), list(ref.strip())"))
A(nb, 'my_bleu', 'the brevity penalty squared (applied inside and outside)', BLEU(ret="100 * bp * bp * math.exp(sum(math.log(m / t) for m, t in zip(match, total)) / K)"))
A(nb, 'my_bleu', "hyps and refs swapped in the signature (refs, hyps)", BLEU(sig="refs, hyps"))
A(nb, 'my_bleu', "the n-grams of the reference clipped by the hypothesis's count, the matched count taken from the reference side", BLEU(
  clip="sum(min(v, ngrams(h, n)[g] + 1) for g, v in ngrams(ref, n).items() if g in ngrams(h, n))"))

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
A(nb, 'beyond_noise', 'a difference equal to the noise counted (>=)', NOISE(ret="[r['id'] for r in recs if r['variant'] != 'base' and abs(r['bleu'] - base) >= noise]"))
A(nb, 'beyond_noise', 'the noise the smallest seed difference (min, not max)', NOISE(
  noise="min(abs(r['bleu'] - base) for r in recs if r['variant'] == 'base' and r['id'] != 'base')"))
A(nb, 'beyond_noise', 'only variants above base (signed difference)', NOISE(ret="[r['id'] for r in recs if r['variant'] != 'base' and r['bleu'] - base > noise]"))
A(nb, 'beyond_noise', 'the records returned, not their ids', NOISE(ret="[r for r in recs if r['variant'] != 'base' and abs(r['bleu'] - base) > noise]"))
A(nb, 'beyond_noise', 'the ids sorted alphabetically', NOISE(ret="sorted(r['id'] for r in recs if r['variant'] != 'base' and abs(r['bleu'] - base) > noise)"))
A(nb, 'beyond_noise', "seed runs found by an id starting with 'base', not by their variant", NOISE(
  noise="max(abs(r['bleu'] - base) for r in recs if r['id'].startswith('base') and r['id'] != 'base')",
  ret="[r['id'] for r in recs if not r['id'].startswith('base') and abs(r['bleu'] - base) > noise]"))
A(nb, 'beyond_noise', "base's BLEU the best of its seed runs", NOISE(base="max(r['bleu'] for r in recs if r['variant'] == 'base')"))
A(nb, 'beyond_noise', "the noise measured from the seeds' mean, not from the record 'base'", NOISE(
  noise="max(abs(r['bleu'] - sum(x['bleu'] for x in recs if x['variant'] == 'base') / sum(x['variant'] == 'base' for x in recs)) for r in recs if r['variant'] == 'base')"))
A(nb, 'beyond_noise', "variants whose id differs from 'base' (a seed run of id 'base-seed1' counted as a variant)", NOISE(
  ret="[r['id'] for r in recs if r['id'] != 'base' and abs(r['bleu'] - base) > noise]"))
A(nb, 'heads_looking', 'heads numbered from 0', HEADS("return [h for h in range(w.shape[0]) if all(w[h, r].argmax() == col for r in rows)]"))
A(nb, 'heads_looking', 'any row of rows, not every row', HEADS("return [h + 1 for h in range(w.shape[0]) if any(w[h, r].argmax() == col for r in rows)]"))
A(nb, 'heads_looking', 'the argmax over the rows axis of the block (argmax(0))', HEADS("return [h + 1 for h in range(w.shape[0]) if (w[h, rows].argmax(0) == col).all()]"))
A(nb, 'heads_looking', 'a tensor of head numbers from nonzero', HEADS("return (w[:, rows].argmax(-1) == col).all(-1).nonzero() + 1"))
A(nb, 'heads_looking', 'rows read as the range from the first to the last, the last left out', HEADS(
  "return [h + 1 for h in range(w.shape[0]) if (w[h, rows[0]:rows[-1]].argmax(-1) == col).all()]"))
A(nb, 'heads_looking', 'the map read as (h, n_k, n_q): w[h, :, r]', HEADS("return [h + 1 for h in range(w.shape[0]) if all(w[h, :, r].argmax() == col for r in rows)]"))
A(nb, 'rows_ab', "(A) named without the letter h: 'A-1'", AB(a="{f'A-{k}': dict(h=k, d_k=d // k, d_v=d // k) for k in (max(1, h // 8), h // 2, 2 * h, 4 * h)}"))
A(nb, 'rows_ab', '(A) h // 8 without the floor of one (0 heads for h < 8)', AB(a="{f'A-h{k}': dict(h=k, d_k=d // max(k, 1), d_v=d // max(k, 1)) for k in (h // 8, h // 2, 2 * h, 4 * h)}"))
A(nb, 'rows_ab', '(B) changes d_v with d_k', AB(b="{f'B-dk{k}': dict(d_k=k, d_v=k) for k in (d_k // 4, d_k // 2)}"))
A(nb, 'rows_ab', '(B) without d_v', AB(b="{f'B-dk{k}': dict(d_k=k) for k in (d_k // 4, d_k // 2)}"))
A(nb, 'rows_ab', '(A) without d_v', AB(a="{f'A-h{k}': dict(h=k, d_k=d // k) for k in (max(1, h // 8), h // 2, 2 * h, 4 * h)}"))
A(nb, 'rows_ab', "the preset edited in place (base['d_k'] set)", AB(pre="base.setdefault('d_k', base['d_model'] // base['h'])\n    "))
A(nb, 'rows_ab', "(A) leaves d_v at the preset's", AB(a="{f'A-h{k}': dict(h=k, d_k=d // k, d_v=base.get('d_v') or d // h) for k in (max(1, h // 8), h // 2, 2 * h, 4 * h)}"))

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
SUMS = "m, g, t = (sum(c[i] for c in counts) for i in range(3))\n    "
A(nb, 'my_linearize', None, LIN())
A(nb, 'my_corpus_prf', None, PRF(RIGHT_PRF))
A(nb, 'my_linearize', 'the POS node bracketed like a phrase', LIN(leaf="return f'({tree.label()} {tree[0]} ){tree.label()}'"))
A(nb, 'my_linearize', "the closing bracket and its label apart: ') NP'", LIN(close="f') {lab}'"))
A(nb, 'my_linearize', 'the POS tag at the leaf, not the word', LIN(leaf="return tree.label()"))
A(nb, 'my_linearize', 'the closing label not stripped: )NP-SBJ', LIN(close="f'){tree.label()}'"))
A(nb, 'my_linearize', 'the words lowercased', LIN(leaf="return tree[0].lower()"))
A(nb, 'my_linearize', 'a list of tokens, not a string', """
def my_linearize(tree):
    if isinstance(tree, str): return [tree]
    if is_preterminal(tree): return [tree[0]]
    lab = coarse_label(tree.label())
    return [f'({lab}', *(tok for t in tree for tok in my_linearize(t)), f'){lab}']
""")
A(nb, 'my_linearize', 'a phrase of POS nodes only written as its bare words (base NPs flattened)', LIN(
  pre="if not isinstance(tree, str) and not is_preterminal(tree) and all(not isinstance(t, str) and is_preterminal(t) for t in tree): return ' '.join(tree.leaves())\n    "))
A(nb, 'my_linearize', 'breadth-first: each level of phrases before the next', """
def my_linearize(tree):
    out, queue = [], [tree]
    while queue:
        t = queue.pop(0)
        if is_preterminal(t): out.append(t[0]); continue
        lab = coarse_label(t.label())
        out.append(f'({lab}'); queue.extend(t); out.append(f'){lab}')
    return ' '.join(out)
""")
A(nb, 'my_linearize', 'a unary chain collapsed: a phrase with one phrase child written once, with the top label', LIN(
  pre="while not isinstance(tree, str) and not is_preterminal(tree) and len(tree) == 1 and not is_preterminal(tree[0]): tree = type(tree)(tree.label(), list(tree[0]))\n    "))
A(nb, 'my_linearize', 'the children visited right to left', LIN(kids="reversed(tree)"))
A(nb, 'my_linearize', 'the label cut at the first = only (function tags kept): NP-SBJ', LIN(lab="tree.label().split('=')[0]"))
A(nb, 'my_corpus_prf', 'precision and recall swapped (m / g first)', PRF(SUMS + "p, r = 100 * m / g, 100 * m / t\n    return p, r, 2 * p * r / (p + r)"))
A(nb, 'my_corpus_prf', 'a list [p, r, f], not a tuple', PRF(SUMS + "p, r = 100 * m / t, 100 * m / g\n    return [p, r, 2 * p * r / (p + r)]"))
A(nb, 'my_corpus_prf', 'the sums as 0-d tensors: tensors returned', PRF(
  "m, g, t = torch.tensor(counts, dtype=torch.float64).sum(0)\n    p, r = 100 * m / t, 100 * m / g\n    return p, r, 2 * p * r / (p + r)"))
A(nb, 'my_corpus_prf', 'integer division: 100 * m // t', PRF(SUMS + "p, r = 100 * m // t, 100 * m // g\n    return p, r, 2 * p * r / (p + r)"))
A(nb, 'my_corpus_prf', 'each figure rounded to one decimal', PRF(SUMS + "p, r = round(100 * m / t, 1), round(100 * m / g, 1)\n    return p, r, round(2 * p * r / (p + r), 1)"))
A(nb, 'my_corpus_prf', 'F1 the arithmetic mean of precision and recall', PRF(SUMS + "p, r = 100 * m / t, 100 * m / g\n    return p, r, (p + r) / 2"))
A(nb, 'my_corpus_prf', 'failed parses (no brackets) left out of the sums, their reference brackets too', PRF(
  "m, g, t = (sum(c[i] for c in counts if c[2]) for i in range(3))\n    p, r = 100 * m / t, 100 * m / g\n    return p, r, 2 * p * r / (p + r)"))
A(nb, 'my_corpus_prf', 'NumPy float64 figures (np.sum over axis 0)', PRF(
  "import numpy as np\n    m, g, t = np.array(counts).sum(0)\n    p, r = 100 * m / t, 100 * m / g\n    return p, r, 2 * p * r / (p + r)"))
A(nb, 'my_corpus_prf', 'F1 from the sentences summed twice: 2m / (g + t) of the mean counts (divided by the number of sentences)', PRF(
  SUMS + "p, r = 100 * m / t, 100 * m / g\n    return p, r, 200 * m / (g + t) / len(counts)"))
A(nb, 'my_corpus_prf', 'precision, recall and F1 in another order (F1 first)', PRF(SUMS + "p, r = 100 * m / t, 100 * m / g\n    return 2 * p * r / (p + r), p, r"))
A(nb, 'my_corpus_prf', 'counts read as (matched, parse, reference): the last two swapped', PRF(
  "m, t, g = (sum(c[i] for c in counts) for i in range(3))\n    p, r = 100 * m / t, 100 * m / g\n    return p, r, 2 * p * r / (p + r)"))

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
ROT_OUT = "    return torch.stack([x1 * a.cos() - x2 * a.sin(), x1 * a.sin() + x2 * a.cos()], -1).flatten().to(q.dtype)"
XS = "\n    x1, x2 = q[0::2].double(), q[1::2].double()\n"
A(nb, 'rms_norm_of', None, RMS("return a / torch.sqrt(a.pow(2).mean(-1, keepdim=True) + eps) * g"))
A(nb, 'rotate_query', None, ROT("a = m * 10000.0 ** (-torch.arange(0, len(q), 2, dtype=torch.float64) / len(q))" + XS + ROT_OUT))
A(nb, 'group_heads', None, GRP("return k.view(B, g, h // g, n, d).mean(2).repeat_interleave(h // g, dim=1)"))
A(nb, 'rms_norm_of', 'eps added outside the root: sqrt(ms) + eps', RMS("return a / (torch.sqrt(a.pow(2).mean(-1, keepdim=True)) + eps) * g"))
A(nb, 'rms_norm_of', 'the mean of squares over the whole tensor', RMS("return a / torch.sqrt(a.pow(2).mean() + eps) * g"))
A(nb, 'rms_norm_of', 'eps hard-coded, the argument ignored', RMS("return a / torch.sqrt(a.pow(2).mean(-1, keepdim=True) + 1e-5) * g"))
A(nb, 'rms_norm_of', 'the gain applied per row (g[:, None])', RMS("return a / torch.sqrt(a.pow(2).mean(-1, keepdim=True) + eps) * g[:, None]"))
A(nb, 'rms_norm_of', 'a normalised in place (div_)', RMS("return a.div_(torch.sqrt(a.pow(2).mean(-1, keepdim=True) + eps)).mul(g)"))
A(nb, 'rms_norm_of', 'd taken from the first axis: sum of squares / a.shape[0]', RMS("return a / torch.sqrt(a.pow(2).sum(-1, keepdim=True) / a.shape[0] + eps) * g"))
A(nb, 'rms_norm_of', 'the mean absolute value for the root mean square', RMS("return a / (a.abs().mean(-1, keepdim=True) + eps) * g"))
A(nb, 'rms_norm_of', 'the rms detached: no gradient through the norm', RMS("return a / torch.sqrt(a.pow(2).mean(-1, keepdim=True) + eps).detach() * g"))
A(nb, 'rotate_query', 'theta_i = 10000^(-i/d): the pair index not doubled', ROT(
  "a = m * 10000.0 ** (-torch.arange(len(q) // 2, dtype=torch.float64) / len(q))" + XS + ROT_OUT))
A(nb, 'rotate_query', 'the angle read as degrees (deg2rad)', ROT(
  "a = torch.deg2rad(m * 10000.0 ** (-torch.arange(0, len(q), 2, dtype=torch.float64) / len(q)))" + XS + ROT_OUT))
A(nb, 'rotate_query', "LLaMA 3's base 500000", ROT("a = m * 500000.0 ** (-torch.arange(0, len(q), 2, dtype=torch.float64) / len(q))" + XS + ROT_OUT))
A(nb, 'rotate_query', 'sin and cos swapped', ROT("a = m * 10000.0 ** (-torch.arange(0, len(q), 2, dtype=torch.float64) / len(q))" + XS +
  "    return torch.stack([x1 * a.sin() - x2 * a.cos(), x1 * a.cos() + x2 * a.sin()], -1).flatten().to(q.dtype)"))
A(nb, 'rotate_query', 'q rotated in place', ROT("a = m * 10000.0 ** (-torch.arange(0, len(q), 2, dtype=torch.float64) / len(q))" + XS +
  "    q[0::2], q[1::2] = (x1 * a.cos() - x2 * a.sin()).to(q.dtype), (x1 * a.sin() + x2 * a.cos()).to(q.dtype)\n    return q"))
A(nb, 'rotate_query', 'd/2 in the exponent: 10000^(-2i/(d/2))', ROT(
  "a = m * 10000.0 ** (-torch.arange(0, len(q), 2, dtype=torch.float64) / (len(q) // 2))" + XS + ROT_OUT))
A(nb, 'rotate_query', 'integer division in the exponent: every theta_i 1', ROT(
  "a = m * 10000.0 ** (-(torch.arange(0, len(q), 2) // len(q))).double()" + XS + ROT_OUT))
A(nb, 'group_heads', 'the view with n and the heads swapped: (B, g, n, h/g, d)', GRP("return k.reshape(B, g, n, h // g, d).mean(3).repeat_interleave(h // g, dim=1)"))
A(nb, 'group_heads', "each group's first head, not the mean", GRP("return k[:, ::h // g].repeat_interleave(h // g, dim=1)"))
A(nb, 'group_heads', 'g read as the heads per group', GRP("return k.view(B, h // g, g, n, d).mean(2).repeat_interleave(g, dim=1)"))
A(nb, 'group_heads', 'the mean over the groups axis of the view (mean(1))', GRP("return k.view(B, g, h // g, n, d).mean(1).repeat(1, g, 1, 1)"))
A(nb, 'group_heads', 'a batch of one assumed (k[0])', GRP("return k[0].view(g, h // g, n, d).mean(1).repeat_interleave(h // g, dim=0).unsqueeze(0).expand(B, h, n, d)"))
A(nb, 'group_heads', 'the result written into k (copy_)', GRP("return k.copy_(k.view(B, g, h // g, n, d).mean(2).repeat_interleave(h // g, dim=1))"))
A(nb, 'group_heads', 'computed under no_grad', GRP("with torch.no_grad(): return k.view(B, g, h // g, n, d).mean(2).repeat_interleave(h // g, dim=1)"))