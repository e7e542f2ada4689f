"""The thirty-first blind set's answers, for notebooks 11 to 14 only (11_results ... 14_since_2017), written from the
exercises' text alone: (notebook, exercise, mistake, code), the mistake None for the right answer.
`experiments/blind_answers.py 31` runs them. This set goes where the earlier sets for these notebooks did not: inputs
the text allows but an example does not show (empty or short hypotheses, repeated sentence pairs, three seed runs of
base, a base found after its seed, a preset with its own d_k, unary phrases, empty elements, exactly three sentences,
large positions, non-square inputs, several batch rows, h/g different from g), vectorised code with a broadcasting or
indexing slip (skip-grams from zip, the argmax of a flattened block, torch.split for chunk, unfold with step 1,
repeat_interleave without dim, the rms unsqueezed at 0), state kept between calls (a default list of totals, a label in
a global, the caller's records sorted in place), late-binding lambdas, numerics (integer division in the brevity
penalty, true division in names, float16 angles, a precedence slip in theta), and a sentence of each exercise read
the hurried way (BP inside the geometric mean, the arithmetic mean, the noise as a range or a standard deviation, a
threshold for the largest weight, F1 left a fraction, the gain added). The right answers are the twenty-seventh set's."""
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
A(nb, 'my_bleu', 'c and r swapped in the brevity penalty: exp(1 - c / r)', BLEU(bp="min(1.0, math.exp(1 - c / r))"))
A(nb, 'my_bleu', 'the brevity penalty inside the geometric mean (its log added to the four logs, all divided by 4)',
  BLEU(ret="100 * math.exp((sum(math.log(m / t) for m, t in zip(match, total)) + math.log(bp)) / K)"))
A(nb, 'my_bleu', 'the arithmetic mean of the four precisions, not the geometric',
  BLEU(ret="100 * bp * sum(m / t for m, t in zip(match, total)) / K"))
A(nb, 'my_bleu', 'matches counted as the distinct n-grams the two share (sets): a repeated match counted once',
  BLEU(clip="len(set(ngrams(h, n)) & set(ngrams(ref, n)))"))
A(nb, 'my_bleu', "each distinct hypothesis n-gram credited with the reference's count (not the smaller of the two)",
  BLEU(clip="sum(ngrams(ref, n)[g] for g in ngrams(h, n))"))
A(nb, 'my_bleu', 'Counter | (the larger count) for the clip, not &', BLEU(clip="sum((ngrams(h, n) | ngrams(ref, n)).values())"))
A(nb, 'my_bleu', 'n-grams built with zip(ws, ws[n - 1:]): the first and last word of each window only (skip-grams)',
  BLEU(ngr="ngrams = lambda ws, n: Counter(zip(ws, ws[n - 1:]))"))
A(nb, 'my_bleu', "words found with re.findall(r'\\w+'): punctuation dropped",
  "import re\n" + BLEU(split="h, ref = re.findall(r'\\w+', h), re.findall(r'\\w+', ref)"))
A(nb, 'my_bleu', "p_n divided by the reference's n-gram count (a recall)", BLEU(total="max(len(ref) - n + 1, 0)"))
A(nb, 'my_bleu', 'totals len(h) - n + 1 without max(., 0): a hypothesis shorter than n subtracts', BLEU(total="len(h) - n + 1"))
A(nb, 'my_bleu', "p_n averaged over the sentences (each sentence's precision), the brevity penalty over the corpus",
  BLEU(clip="sum((ngrams(h, n) & ngrams(ref, n)).values()) / max(len(h) - n + 1, 1)", total="1"))
A(nb, 'my_bleu', 'the counts kept in a default list between calls (a second corpus adds to the first)', BLEU(
  sig="hyps, refs, _acc=[[0] * 4, [0] * 4, [0, 0]]", pre="match, total, (c, r) = _acc[0], _acc[1], _acc[2]\n    ",
  lens="c, r = c + len(h), r + len(ref); _acc[2][:] = [c, r]"))
A(nb, 'my_bleu', 'one counting lambda per order built in a loop: late binding, every order counts 4-grams', """
def my_bleu(hyps, refs):
    counters = [lambda ws: Counter(tuple(ws[i:i + n]) for i in range(len(ws) - n + 1)) for n in range(1, 5)]
    match, total, c, r = [0] * 4, [0] * 4, 0, 0
    for h, ref in zip(hyps, refs):
        h, ref = h.split(), ref.split()
        c, r = c + len(h), r + len(ref)
        for k, cnt in enumerate(counters):
            match[k] += sum((cnt(h) & cnt(ref)).values())
            total[k] += max(len(h) - k, 0)
    bp = min(1.0, math.exp(1 - r / c))
    return 100 * bp * math.exp(sum(math.log(m / t) for m, t in zip(match, total)) / 4)
""")
A(nb, 'my_bleu', 'lengths counted with an end-of-sentence token each (len + 1, a fairseq habit)',
  BLEU(lens="c, r = c + len(h) + 1, r + len(ref) + 1"))
A(nb, 'my_bleu', 'n-grams as non-overlapping chunks (range(0, len, n))',
  BLEU(ngr="ngrams = lambda ws, n: Counter(tuple(ws[i:i + n]) for i in range(0, len(ws) - n + 1, n))", total="len(h) // n"))
A(nb, 'my_bleu', 'an empty hypothesis skipped with its reference (r too short)',
  BLEU(split="h, ref = h.split(), ref.split()\n        if not h: continue"))
A(nb, 'my_bleu', 'identical (hypothesis, reference) pairs counted once: a set of pairs', BLEU(loop="dict.fromkeys(zip(hyps, refs))"))
A(nb, 'my_bleu', 'r // c in the brevity penalty: integer division', BLEU(bp="min(1.0, math.exp(1 - r // c))"))
A(nb, 'my_bleu', 'the brevity penalty per sentence, averaged over the sentences', BLEU(
  pre="bps = []\n    ", lens="c, r = c + len(h), r + len(ref); bps.append(min(1.0, math.exp(1 - len(ref) / len(h))) if h else 0.0)",
  bp="sum(bps) / len(bps)"))

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
A(nb, 'beyond_noise', 'a variant exactly at the noise counted (>=, not >)',
  NOISE(ret="[r['id'] for r in recs if r['variant'] != 'base' and abs(r['bleu'] - base) >= noise]"))
A(nb, 'beyond_noise', 'the noise as the range (max - min) of all the base runs, not the largest distance from base', NOISE(
  noise="max(r['bleu'] for r in recs if r['variant'] == 'base') - min(r['bleu'] for r in recs if r['variant'] == 'base')"))
A(nb, 'beyond_noise', "base's BLEU taken as the mean of its seed runs", NOISE(
  base="sum(r['bleu'] for r in recs if r['variant'] == 'base') / sum(r['variant'] == 'base' for r in recs)",
  noise="max(abs(r['bleu'] - next(x['bleu'] for x in recs if x['id'] == 'base')) for r in recs if r['variant'] == 'base' and r['id'] != 'base')"))
A(nb, 'beyond_noise', "base read from the first record of variant 'base' (a seed run when it comes first)", NOISE(
  base="next(r['bleu'] for r in recs if r['variant'] == 'base')",
  noise="max(abs(r['bleu'] - base) for r in recs if r['variant'] == 'base')"))
A(nb, 'beyond_noise', 'the noise as the standard deviation of the base runs', "import statistics\n" + NOISE(
  noise="statistics.stdev(r['bleu'] for r in recs if r['variant'] == 'base')"))
A(nb, 'beyond_noise', 'the ids sorted by the size of the difference, largest first, not in the records\' order', NOISE(
  ret="[r['id'] for r in sorted(recs, key=lambda r: -abs(r['bleu'] - base)) if r['variant'] != 'base' and abs(r['bleu'] - base) > noise]"))
A(nb, 'beyond_noise', 'the noise from the first other seed run only (next, not max)', NOISE(
  noise="next(abs(r['bleu'] - base) for r in recs if r['variant'] == 'base' and r['id'] != 'base')"))
A(nb, 'beyond_noise', 'differences rounded to one decimal, as the table prints them, before comparing', NOISE(
  ret="[r['id'] for r in recs if r['variant'] != 'base' and round(abs(r['bleu'] - base), 1) > round(noise, 1)]"))
A(nb, 'beyond_noise', "the caller's records sorted in place by BLEU (recs.sort)", NOISE(pre="recs.sort(key=lambda r: r['bleu'])\n    "))
A(nb, 'beyond_noise', "the difference relative to base's BLEU (in percent) compared with the absolute noise", NOISE(
  ret="[r['id'] for r in recs if r['variant'] != 'base' and 100 * abs(r['bleu'] - base) / base > noise]"))
A(nb, 'heads_looking', 'a weight above 0.5 on col (a majority), not the largest weight',
  HEADS("return [h + 1 for h in range(w.shape[0]) if all(w[h, r, col] > 0.5 for r in rows)]"))
A(nb, 'heads_looking', "the rows' weights averaged, then one argmax", HEADS("return [h + 1 for h in range(w.shape[0]) if w[h, rows].mean(0).argmax() == col]"))
A(nb, 'heads_looking', 'a tensor of heads (nonzero() + 1), not a list',
  HEADS("return (w[:, rows].argmax(-1) == col).all(-1).nonzero().flatten() + 1"))
A(nb, 'heads_looking', 'the last head missed: range(w.shape[0] - 1)',
  HEADS("return [h + 1 for h in range(w.shape[0] - 1) if all(w[h, r].argmax() == col for r in rows)]"))
A(nb, 'heads_looking', "the argmax of the whole block of rows, flattened, taken modulo n_k: one row's largest weight",
  HEADS("return [h + 1 for h in range(w.shape[0]) if w[h, rows].argmax() % w.shape[-1] == col]"))
A(nb, 'heads_looking', 'col read as numbered from 1 too (col - 1)',
  HEADS("return [h + 1 for h in range(w.shape[0]) if all(w[h, r].argmax() == col - 1 for r in rows)]"))
A(nb, 'rows_ab', "(B) from d_model // h, the preset's own d_k ignored", AB(dk="d // h"))
A(nb, 'rows_ab', '(A) sets d_k only, d_v left as it was', AB(a="{f'A-h{k}': dict(h=k, d_k=d // k) for k in (max(1, h // 8), h // 2, 2 * h, 4 * h)}"))
A(nb, 'rows_ab', '(B) with true division: d_k / 4 gives floats (B-dk16.0)',
  AB(b="{f'B-dk{k}': dict(d_k=k, d_v=d_k) for k in (d_k / 4, d_k / 2)}"))
A(nb, 'rows_ab', 'min(1, h // 8) for "at least one"', AB(a="{f'A-h{k}': dict(h=k, d_k=d // k, d_v=d // k) for k in (min(1, h // 8), h // 2, 2 * h, 4 * h)}"))
A(nb, 'rows_ab', "(A) keeps h * d_k constant with the preset's d_k, not d_model",
  AB(a="{f'A-h{k}': dict(h=k, d_k=d_k * h // k, d_v=d_k * h // k) for k in (max(1, h // 8), h // 2, 2 * h, 4 * h)}"))
A(nb, 'rows_ab', "the base's own h in row (A) too", AB(a="{f'A-h{k}': dict(h=k, d_k=d // k, d_v=d // k) for k in (max(1, h // 8), h // 2, h, 2 * h, 4 * h)}"))

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
A(nb, 'my_linearize', 'a unary phrase (one child that is a phrase) skipped: its bracket dropped',
  LIN(pre="if not isinstance(tree, str) and len(tree) == 1 and not is_preterminal(tree): return my_linearize(tree[0])\n    "))
A(nb, 'my_linearize', "tags cut at the first '-' by hand: split('-')[0] ('-NONE-' becomes '', 'NP=1' stays)", LIN(lab="tree.label().split('-')[0]"))
A(nb, 'my_linearize', "tags cut with re.sub(r'-.*', ''): indices '=1' kept", "import re\n" + LIN(lab="re.sub(r'-.*', '', tree.label()) or tree.label()"))
A(nb, 'my_linearize', 'an explicit stack with the children pushed in order: siblings come out reversed', """
def my_linearize(tree):
    out, stack = [], [tree]
    while stack:
        t = stack.pop()
        if isinstance(t, str): out.append(t); continue
        if is_preterminal(t): out.append(t[0]); continue
        lab = coarse_label(t.label())
        out.append(f'({lab}')
        stack.append(f'){lab}')
        stack.extend(t)
    return ' '.join(out)
""")
A(nb, 'my_linearize', "each token followed by a space: a trailing space at the end", """
def my_linearize(tree):
    def walk(t):
        if isinstance(t, str): return t + ' '
        if is_preterminal(t): return t[0] + ' '
        lab = coarse_label(t.label())
        return f'({lab} ' + ''.join(walk(c) for c in t) + f'){lab} '
    return walk(tree)
""")
A(nb, 'my_linearize', "empty elements (-NONE- nodes) dropped, as EVALB deletes them", """
def my_linearize(tree):
    if isinstance(tree, str): return tree
    if is_preterminal(tree): return tree[0]
    lab = coarse_label(tree.label())
    kids = [my_linearize(t) for t in tree if not (is_preterminal(t) and t.label() == '-NONE-')]
    return ' '.join([f'({lab}', *[k for k in kids if k], f'){lab}'])
""")
A(nb, 'my_linearize', 'the label kept in a global: the children overwrite it before the brackets are written', """
def my_linearize(tree):
    global lab
    if isinstance(tree, str): return tree
    if is_preterminal(tree): return tree[0]
    lab = coarse_label(tree.label())
    inner = ' '.join(my_linearize(t) for t in tree)
    return f'({lab} {inner} ){lab}'
""")
A(nb, 'my_linearize', 'the opening bracket with the raw label, the closing one stripped', LIN(lab="tree.label()", close="f')' + coarse_label(tree.label())"))
A(nb, 'my_linearize', "the children's labels stripped, the root's kept as it is", """
def my_linearize(tree, root=True):
    if isinstance(tree, str): return tree
    if is_preterminal(tree): return tree[0]
    lab = tree.label() if root else coarse_label(tree.label())
    return ' '.join([f'({lab}', *(my_linearize(t, False) for t in tree), f'){lab}'])
""")
A(nb, 'my_corpus_prf', "F1 the mean of the sentences' F1, precision and recall summed", PRF(
  SUMS + "p, r = 100 * m / t, 100 * m / g\n    fs = [200 * a / (b + c) if b + c else 0.0 for a, b, c in counts]\n    return p, r, sum(fs) / len(fs)"))
A(nb, 'my_corpus_prf', 'F1 as 2m / (g + t), a fraction, while P and R are in percent', PRF(SUMS + "return 100 * m / t, 100 * m / g, 2 * m / (g + t)"))
A(nb, 'my_corpus_prf', 'the three rounded to two decimals, as EVALB prints them',
  PRF(SUMS + "p, r = 100 * m / t, 100 * m / g\n    return round(p, 2), round(r, 2), round(2 * p * r / (p + r), 2)"))
A(nb, 'my_corpus_prf', 'sentences with no matched bracket left out of the sums', PRF("counts = [c for c in counts if c[0] > 0]\n    " + RIGHT_PRF))
A(nb, 'my_corpus_prf', 'strings formatted with two decimals', PRF(SUMS + "p, r = 100 * m / t, 100 * m / g\n    return f'{p:.2f}', f'{r:.2f}', f'{2 * p * r / (p + r):.2f}'"))
A(nb, 'my_corpus_prf', 'percent applied twice to F1: 100 * 2pr / (p + r) on percent p and r',
  PRF(SUMS + "p, r = 100 * m / t, 100 * m / g\n    return p, r, 100 * 2 * p * r / (p + r)"))
A(nb, 'my_corpus_prf', "a list of three sentences taken for one sentence's (m, g, t) (len(counts) == 3)",
  PRF("if len(counts) == 3 and not isinstance(counts[0], int): counts = [tuple(x[0] for x in counts)]\n    " + RIGHT_PRF))
A(nb, 'my_corpus_prf', "precision as the mean of the sentences' precisions (parsed sentences), recall summed", PRF(
  SUMS + "ps = [100 * a / c for a, b, c in counts if c]\n    p, r = sum(ps) / len(ps), 100 * m / g\n    return p, r, 2 * p * r / (p + r)"))
A(nb, 'my_corpus_prf', 'the last sentence left out: range(len(counts) - 1)',
  PRF("m, g, t = (sum(counts[j][i] for j in range(len(counts) - 1)) for i in range(3))\n    p, r = 100 * m / t, 100 * m / g\n    return p, r, 2 * p * r / (p + r)"))
A(nb, 'my_linearize', 'coarse_label applied to the words too (a hyphenated word cut at its hyphen)', LIN(leaf="return coarse_label(tree[0])"))

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
A(nb, 'rms_norm_of', 'the mean over every axis but the first (right for 2-d inputs)',
  RMS("return a / torch.sqrt(a.pow(2).mean(tuple(range(1, a.dim())), keepdim=True) + eps) * g"))
A(nb, 'rms_norm_of', 'the rms unsqueezed at 0, not -1 (broadcasts only when n = d)',
  RMS("return a / torch.sqrt(a.pow(2).mean(-1) + eps).unsqueeze(0) * g"))
A(nb, 'rms_norm_of', 'computed in float16 and cast back', RMS("x = a.half()\n    return (x / torch.sqrt(x.pow(2).mean(-1, keepdim=True) + eps) * g.half()).to(a.dtype)"))
A(nb, 'rms_norm_of', "LLaMA's eps 1e-6 as the signature's default (the argument used when given)",
  RMS("return a / torch.sqrt(a.pow(2).mean(-1, keepdim=True) + eps) * g", sig="a, g, eps=1e-6"))
A(nb, 'rms_norm_of', 'the gain added (a bias), not multiplied', RMS("return a / torch.sqrt(a.pow(2).mean(-1, keepdim=True) + eps) + g"))
A(nb, 'rms_norm_of', 'eps added to the output, not under the root', RMS("return a * torch.rsqrt(a.pow(2).mean(-1, keepdim=True)) * g + eps"))
A(nb, 'rms_norm_of', 'the mean absolute value (an L1 norm) for the root mean square', RMS("return a / (a.abs().mean(-1, keepdim=True) + eps) * g"))
A(nb, 'rms_norm_of', 'computed under torch.no_grad(): no gradient reaches a or g',
  RMS("with torch.no_grad():\n        return a / torch.sqrt(a.pow(2).mean(-1, keepdim=True) + eps) * g"))
A(nb, 'rotate_query', "exponents from linspace(0, 1, d/2): the last 1, not (d - 2)/d",
  ROT("a = m * 10000.0 ** (-torch.linspace(0, 1, len(q) // 2, dtype=torch.float64))" + XS + ROT_OUT))
A(nb, 'rotate_query', "the angles computed in q's dtype (float16 for a half query): m * theta rounded",
  ROT("a = m * 10000.0 ** (-torch.arange(0, len(q), 2, dtype=q.dtype) / len(q))\n    x1, x2 = q[0::2], q[1::2]\n"
      "    return torch.stack([x1 * a.cos() - x2 * a.sin(), x1 * a.sin() + x2 * a.cos()], -1).flatten()"))
A(nb, 'rotate_query', 'each pair multiplied as a row vector, pair @ R: R transposed', ROT(
  "a = m * 10000.0 ** (-torch.arange(0, len(q), 2, dtype=torch.float64) / len(q))\n    c, s = a.cos(), a.sin()\n"
  "    R = torch.stack([torch.stack([c, -s], -1), torch.stack([s, c], -1)], -2)\n"
  "    return (q.double().view(-1, 1, 2) @ R).flatten().to(q.dtype)"))
A(nb, 'rotate_query', 'sin(m) * theta_i and cos(m) * theta_i, not sin(m * theta_i)', ROT(
  "th = 10000.0 ** (-torch.arange(0, len(q), 2, dtype=torch.float64) / len(q))\n    c, s = math.cos(m) * th, math.sin(m) * th" + XS +
  "    return torch.stack([x1 * c - x2 * s, x1 * s + x2 * c], -1).flatten().to(q.dtype)"))
A(nb, 'rotate_query', 'the /d outside the power: theta_i = 10000^(-2i) / d', ROT(
  "i = torch.arange(len(q) // 2, dtype=torch.float64)\n    a = m * 10000.0 ** (-2 * i) / len(q)" + XS + ROT_OUT))
A(nb, 'rotate_query', 'pairs counted from 1: theta_i = 10000^(-2(i + 1)/d)', ROT(
  "i = torch.arange(1, len(q) // 2 + 1, dtype=torch.float64)\n    a = m * 10000.0 ** (-2 * i / len(q))" + XS + ROT_OUT))
A(nb, 'rotate_query', 'the pairs as a complex tensor turned by exp(i m theta) in complex64 (the angle in float32)', ROT(
  "th = 10000.0 ** (-torch.arange(0, len(q), 2, dtype=torch.float32) / len(q))\n"
  "    z = torch.view_as_complex(q.float().reshape(-1, 2).contiguous()) * torch.polar(torch.ones_like(th), m * th)\n"
  "    return torch.view_as_real(z).flatten().to(q.dtype)"))
A(nb, 'group_heads', 'group i sliced from head i, not i * h/g: overlapping groups',
  GRP("s = h // g\n    return torch.cat([k[:, i:i + s].mean(1, keepdim=True).expand(B, s, n, d) for i in range(g)], 1)"))
A(nb, 'group_heads', 'k.split(g, 1): pieces of g heads, not g pieces (right when h/g = g)',
  GRP("return torch.cat([p.mean(1, keepdim=True).expand_as(p) for p in k.split(g, 1)], 1)"))
A(nb, 'group_heads', 'batch and head axes flattened together before grouping (right for B = 1)',
  GRP("return k.reshape(g, -1, n, d).mean(1).repeat_interleave(B * h // g, 0).reshape(B, h, n, d)"))
A(nb, 'group_heads', 'unfold(1, h/g, 1): the first g sliding windows (step 1), overlapping',
  GRP("return k.unfold(1, h // g, 1)[:, :g].mean(-1).repeat_interleave(h // g, dim=1)"))
A(nb, 'group_heads', 'multi-query: every head the mean of all h heads, g ignored',
  GRP("return k.mean(1, keepdim=True).expand(B, h, n, d)"))
A(nb, 'group_heads', 'g read as the size of each group (h/g groups of g heads)',
  GRP("return k.view(B, h // g, g, n, d).mean(2).repeat_interleave(g, dim=1)"))
A(nb, 'group_heads', 'repeat_interleave without dim=: a flat vector',
  GRP("return k.view(B, g, h // g, n, d).mean(2).repeat_interleave(h // g)"))
