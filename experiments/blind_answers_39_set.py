"""The thirty-ninth blind set's answers, for notebooks 11 to 14 only (11_results, 12_variations, 13_parsing, 14_since_2017),
written from the exercises' text alone: (notebook, exercise, mistake, code), the mistake None for the right answer.
`experiments/blind_answers.py 39` runs them.
This set goes where the earlier sets for these notebooks did not: n-gram windows that run past the sentence's end, an
order 0, denominators floored at 1, min and max confused, weights 1/n and matches found by substring search (BLEU);
fields the records need not carry (a seed), pairing by seed, the nearest base run, a doubled band, a variant's seeds
averaged, the complement, a generator, the caller's list edited and a base kept across calls (the noise); head labels
shifted, a batch axis assumed, heads sorted or repeated, all() over every head at once; a base without d_k, one dict
shared by every entry, every name from the base's h, the library's whole table, tuples for dicts (rows A and B);
word/TAG leaves, tags beside the words, only -SBJ stripped, one level of recursion, a bare opening bracket, the caller's
tree relabelled (linearisation); recall over the parse's brackets, the first sentence skipped, a tuple times 100, tuples
added, EVALB's counts returned too (P, R, F1); eps a floor, nn.RMSNorm's own weight, a squeezed output, float64 out,
d hard-coded, rsqrt read as sqrt (RMSNorm); float64 out, m left out, each pair read backwards, the last pair unturned,
angles cached by d, torch.tensor(q), 05's encoding added (rotation); the paper's ceil(ig/h) on 0-based heads, repeats
along the batch or the positions, len(k) for h, h / g in a shape (grouped keys)."""
ANSWERS = []
def A(nb, ex, mistake, code): ANSWERS.append((nb, ex, mistake, code))

# ---------------------------------------------------------------- 11_results: my_bleu
nb = '11_results'
A(nb, 'my_bleu', None, """
def my_bleu(hyps, refs):
    def grams(ws, n): return Counter(tuple(ws[i:i + n]) for i in range(len(ws) - n + 1))
    m, t, c, r = [0] * 4, [0] * 4, 0, 0
    for hyp, ref in zip(hyps, refs):
        h, e = hyp.split(), ref.split()
        c += len(h); r += len(e)
        for n in range(1, 5):
            m[n - 1] += sum((grams(h, n) & grams(e, n)).values())
            t[n - 1] += max(len(h) - n + 1, 0)
    bp = min(1.0, math.exp(1 - r / c))
    return 100 * bp * math.exp(sum(math.log(a / b) for a, b in zip(m, t)) / 4)
""")
A(nb, 'my_bleu', "n-gram windows taken at every start (range(len(ws))): the short tails at a sentence's end counted as n-grams", """
def my_bleu(hyps, refs):
    def grams(ws, n): return Counter(tuple(ws[i:i + n]) for i in range(len(ws)))
    m, t, c, r = [0] * 4, [0] * 4, 0, 0
    for hyp, ref in zip(hyps, refs):
        h, e = hyp.split(), ref.split()
        c += len(h); r += len(e)
        for n in range(1, 5):
            hg = grams(h, n)
            m[n - 1] += sum((hg & grams(e, n)).values())
            t[n - 1] += sum(hg.values())
    bp = min(1.0, math.exp(1 - r / c))
    return 100 * bp * math.exp(sum(math.log(a / b) for a, b in zip(m, t)) / 4)
""")
A(nb, 'my_bleu', "orders range(4): an empty order 0 in, the 4-grams left out", """
def my_bleu(hyps, refs):
    def grams(ws, n): return Counter(tuple(ws[i:i + n]) for i in range(len(ws) - n + 1))
    m, t, c, r = [0] * 4, [0] * 4, 0, 0
    for hyp, ref in zip(hyps, refs):
        h, e = hyp.split(), ref.split()
        c += len(h); r += len(e)
        for n in range(4):
            m[n] += sum((grams(h, n) & grams(e, n)).values())
            t[n] += len(h) - n + 1
    bp = min(1.0, math.exp(1 - r / c))
    return 100 * bp * math.exp(sum(math.log(a / b) for a, b in zip(m, t)) / 4)
""")
A(nb, 'my_bleu', "each sentence's n-gram total floored at 1 (max(len - n + 1, 1)): a hypothesis shorter than n adds a phantom n-gram", """
def my_bleu(hyps, refs):
    def grams(ws, n): return Counter(tuple(ws[i:i + n]) for i in range(len(ws) - n + 1))
    m, t, c, r = [0] * 4, [0] * 4, 0, 0
    for hyp, ref in zip(hyps, refs):
        h, e = hyp.split(), ref.split()
        c += len(h); r += len(e)
        for n in range(1, 5):
            m[n - 1] += sum((grams(h, n) & grams(e, n)).values())
            t[n - 1] += max(len(h) - n + 1, 1)      # never divide by zero
    bp = min(1.0, math.exp(1 - r / c))
    return 100 * bp * math.exp(sum(math.log(a / b) for a, b in zip(m, t)) / 4)
""")
A(nb, 'my_bleu', "max(1, exp(1 - r/c)) for min: short outputs never penalised, long ones rewarded", """
def my_bleu(hyps, refs):
    def grams(ws, n): return Counter(tuple(ws[i:i + n]) for i in range(len(ws) - n + 1))
    m, t, c, r = [0] * 4, [0] * 4, 0, 0
    for hyp, ref in zip(hyps, refs):
        h, e = hyp.split(), ref.split()
        c += len(h); r += len(e)
        for n in range(1, 5):
            m[n - 1] += sum((grams(h, n) & grams(e, n)).values())
            t[n - 1] += max(len(h) - n + 1, 0)
    bp = max(1.0, math.exp(1 - r / c))
    return 100 * bp * math.exp(sum(math.log(a / b) for a, b in zip(m, t)) / 4)
""")
A(nb, 'my_bleu', "precisions in percent and the score times 100 again (0 to 10,000)", """
def my_bleu(hyps, refs):
    def grams(ws, n): return Counter(tuple(ws[i:i + n]) for i in range(len(ws) - n + 1))
    m, t, c, r = [0] * 4, [0] * 4, 0, 0
    for hyp, ref in zip(hyps, refs):
        h, e = hyp.split(), ref.split()
        c += len(h); r += len(e)
        for n in range(1, 5):
            m[n - 1] += sum((grams(h, n) & grams(e, n)).values())
            t[n - 1] += max(len(h) - n + 1, 0)
    p = [100 * a / b for a, b in zip(m, t)]            # p_n in percent, as tables print them
    bp = min(1.0, math.exp(1 - r / c))
    return 100 * bp * math.exp(sum(math.log(x) for x in p) / 4)
""")
A(nb, 'my_bleu', "orders 1 to 5 (range(1, 6)), the mean over five", """
def my_bleu(hyps, refs):
    def grams(ws, n): return Counter(tuple(ws[i:i + n]) for i in range(len(ws) - n + 1))
    N = 5
    m, t, c, r = [0] * N, [0] * N, 0, 0
    for hyp, ref in zip(hyps, refs):
        h, e = hyp.split(), ref.split()
        c += len(h); r += len(e)
        for n in range(1, N + 1):
            m[n - 1] += sum((grams(h, n) & grams(e, n)).values())
            t[n - 1] += max(len(h) - n + 1, 0)
    bp = min(1.0, math.exp(1 - r / c))
    return 100 * bp * math.exp(sum(math.log(a / b) for a, b in zip(m, t)) / N)
""")
A(nb, 'my_bleu', "weights 1/n for order n (the sum's index read as the weight), not 1/4", """
def my_bleu(hyps, refs):
    def grams(ws, n): return Counter(tuple(ws[i:i + n]) for i in range(len(ws) - n + 1))
    m, t, c, r = [0] * 4, [0] * 4, 0, 0
    for hyp, ref in zip(hyps, refs):
        h, e = hyp.split(), ref.split()
        c += len(h); r += len(e)
        for n in range(1, 5):
            m[n - 1] += sum((grams(h, n) & grams(e, n)).values())
            t[n - 1] += max(len(h) - n + 1, 0)
    bp = min(1.0, math.exp(1 - r / c))
    return 100 * bp * math.exp(sum(math.log(a / b) / n for n, (a, b) in enumerate(zip(m, t), 1)))
""")
A(nb, 'my_bleu', "matches clipped by a substring count in the reference string (str.count): 'a' found inside 'man'", """
def my_bleu(hyps, refs):
    def grams(ws, n): return Counter(tuple(ws[i:i + n]) for i in range(len(ws) - n + 1))
    m, t, c, r = [0] * 4, [0] * 4, 0, 0
    for hyp, ref in zip(hyps, refs):
        h, e = hyp.split(), ref.split()
        c += len(h); r += len(e)
        for n in range(1, 5):
            m[n - 1] += sum(min(k, ref.count(' '.join(g))) for g, k in grams(h, n).items())
            t[n - 1] += max(len(h) - n + 1, 0)
    bp = min(1.0, math.exp(1 - r / c))
    return 100 * bp * math.exp(sum(math.log(a / b) for a, b in zip(m, t)) / 4)
""")

# ---------------------------------------------------------------- 12_variations: beyond_noise
nb = '12_variations'
A(nb, 'beyond_noise', None, """
def beyond_noise(recs):
    base = [r for r in recs if r['id'] == 'base'][0]['bleu']
    noise = max(abs(r['bleu'] - base) for r in recs if r['variant'] == 'base' and r['id'] != 'base')
    return [r['id'] for r in recs if r['variant'] != 'base' and abs(r['bleu'] - base) > noise]
""")
A(nb, 'beyond_noise', "base found as the base run of seed 0 (r['seed'], a field the records need not carry), not by its id", """
def beyond_noise(recs):
    base = next(r['bleu'] for r in recs if r['variant'] == 'base' and r['seed'] == 0)
    noise = max(abs(r['bleu'] - base) for r in recs if r['variant'] == 'base' and r['seed'] != 0)
    return [r['id'] for r in recs if r['variant'] != 'base' and abs(r['bleu'] - base) > noise]
""")
A(nb, 'beyond_noise', "each variant compared with the base run of its own seed (the table's paired delta), not with 'base'", """
def beyond_noise(recs):
    base = next(r['bleu'] for r in recs if r['id'] == 'base')
    noise = max(abs(r['bleu'] - base) for r in recs if r['variant'] == 'base' and r['id'] != 'base')
    by_seed = {r.get('seed', 0): r['bleu'] for r in recs if r['variant'] == 'base'}
    return [r['id'] for r in recs if r['variant'] != 'base' and abs(r['bleu'] - by_seed.get(r.get('seed', 0), base)) > noise]
""")
A(nb, 'beyond_noise', "each variant compared with its nearest base run, not with the record 'base'", """
def beyond_noise(recs):
    base = next(r['bleu'] for r in recs if r['id'] == 'base')
    runs = [r['bleu'] for r in recs if r['variant'] == 'base']
    noise = max(abs(b - base) for b in runs)
    return [r['id'] for r in recs if r['variant'] != 'base' and min(abs(r['bleu'] - b) for b in runs) > noise]
""")
A(nb, 'beyond_noise', "the band's full width (2 x the largest seed difference) as the noise", """
def beyond_noise(recs):
    base = next(r['bleu'] for r in recs if r['id'] == 'base')
    half = max(abs(r['bleu'] - base) for r in recs if r['variant'] == 'base' and r['id'] != 'base')
    noise = 2 * half                      # the band goes from base - half to base + half
    return [r['id'] for r in recs if r['variant'] != 'base' and abs(r['bleu'] - base) > noise]
""")
A(nb, 'beyond_noise', "a variant's seeds averaged first, then all its ids returned when the mean is beyond", """
def beyond_noise(recs):
    base = next(r['bleu'] for r in recs if r['id'] == 'base')
    noise = max(abs(r['bleu'] - base) for r in recs if r['variant'] == 'base' and r['id'] != 'base')
    runs = {}
    for r in recs:
        if r['variant'] != 'base': runs.setdefault(r['variant'], []).append(r)
    out = []
    for v, rs in runs.items():
        if abs(sum(r['bleu'] for r in rs) / len(rs) - base) > noise: out += [r['id'] for r in rs]
    return out
""")
A(nb, 'beyond_noise', "one run per variant (a dict keyed by variant): a variant's other seeds lost", """
def beyond_noise(recs):
    base = next(r['bleu'] for r in recs if r['id'] == 'base')
    noise = max(abs(r['bleu'] - base) for r in recs if r['variant'] == 'base' and r['id'] != 'base')
    last = {r['variant']: r for r in recs if r['variant'] != 'base'}
    return [r['id'] for r in last.values() if abs(r['bleu'] - base) > noise]
""")
A(nb, 'beyond_noise', "a generator of ids (parentheses), not a list", """
def beyond_noise(recs):
    base = next(r['bleu'] for r in recs if r['id'] == 'base')
    noise = max(abs(r['bleu'] - base) for r in recs if r['variant'] == 'base' and r['id'] != 'base')
    return (r['id'] for r in recs if r['variant'] != 'base' and abs(r['bleu'] - base) > noise)
""")
A(nb, 'beyond_noise', "a list of (id, difference) pairs, not the ids", """
def beyond_noise(recs):
    base = next(r['bleu'] for r in recs if r['id'] == 'base')
    noise = max(abs(r['bleu'] - base) for r in recs if r['variant'] == 'base' and r['id'] != 'base')
    return [(r['id'], round(r['bleu'] - base, 2)) for r in recs if r['variant'] != 'base' and abs(r['bleu'] - base) > noise]
""")
A(nb, 'beyond_noise', "the base record removed from the caller's list (recs.remove)", """
def beyond_noise(recs):
    b = next(r for r in recs if r['id'] == 'base')
    recs.remove(b)                        # the rest are compared with it
    noise = max(abs(r['bleu'] - b['bleu']) for r in recs if r['variant'] == 'base')
    return [r['id'] for r in recs if r['variant'] != 'base' and abs(r['bleu'] - b['bleu']) > noise]
""")
A(nb, 'beyond_noise', "base and noise computed at the first call and kept in a global: a second table reuses them", """
_SEEN = {}
def beyond_noise(recs):
    if not _SEEN:
        _SEEN['base'] = next(r['bleu'] for r in recs if r['id'] == 'base')
        _SEEN['noise'] = max(abs(r['bleu'] - _SEEN['base']) for r in recs if r['variant'] == 'base' and r['id'] != 'base')
    base, noise = _SEEN['base'], _SEEN['noise']
    return [r['id'] for r in recs if r['variant'] != 'base' and abs(r['bleu'] - base) > noise]
""")
A(nb, 'beyond_noise', "the complement: the variants within the noise (<=) returned", """
def beyond_noise(recs):
    base = next(r['bleu'] for r in recs if r['id'] == 'base')
    noise = max(abs(r['bleu'] - base) for r in recs if r['variant'] == 'base' and r['id'] != 'base')
    return [r['id'] for r in recs if r['variant'] != 'base' and abs(r['bleu'] - base) <= noise]
""")

# ---------------------------------------------------------------- 12_variations: heads_looking
A(nb, 'heads_looking', None, """
def heads_looking(w, rows, col):
    top = w.argmax(-1)                    # (h, n_q): the key each row looks at hardest
    return [i + 1 for i in range(w.shape[0]) if all(int(top[i, r]) == col for r in rows)]
""")
A(nb, 'heads_looking', "range(1, h) indexing w[h]: head h+1's answer labelled h, head 1 never read", """
def heads_looking(w, rows, col):
    return [h for h in range(1, w.shape[0]) if all(w[h, r].argmax() == col for r in rows)]
""")
A(nb, 'heads_looking', "a batch axis assumed (attention_maps' (B, h, n_q, n_k)): w[0] taken", """
def heads_looking(w, rows, col):
    w = w[0]                              # the first sentence of the batch
    return [h + 1 for h in range(w.shape[0]) if all(w[h, r].argmax() == col for r in rows)]
""")
A(nb, 'heads_looking', "the heads sorted by their weight on col, strongest first, not in head order", """
def heads_looking(w, rows, col):
    found = [h + 1 for h in range(w.shape[0]) if all(w[h, r].argmax() == col for r in rows)]
    return sorted(found, key=lambda h: -float(w[h - 1, rows, col].mean()))
""")
A(nb, 'heads_looking', "a set of head numbers, not a list", """
def heads_looking(w, rows, col):
    return {h + 1 for h in range(w.shape[0]) if all(w[h, r].argmax() == col for r in rows)}
""")
A(nb, 'heads_looking', "all() over every head at once (no axis): every head or none", """
def heads_looking(w, rows, col):
    hits = (w[:, rows].argmax(-1) == col).all()
    return [h + 1 for h in range(w.shape[0]) if hits]
""")
A(nb, 'heads_looking', "a head listed once per row that looks at col (any row, repeated)", """
def heads_looking(w, rows, col):
    return [h + 1 for h in range(w.shape[0]) for r in rows if w[h, r].argmax() == col]
""")

# ---------------------------------------------------------------- 12_variations: rows_ab
A(nb, 'rows_ab', None, """
def rows_ab(base):
    d, h = base['d_model'], base['h']
    dk = base['d_k'] if base.get('d_k') else d // h
    out = {}
    for k in (max(1, h // 8), h // 2, 2 * h, 4 * h): out[f'A-h{k}'] = {'h': k, 'd_k': d // k, 'd_v': d // k}
    for k in (dk // 4, dk // 2): out[f'B-dk{k}'] = {'d_k': k, 'd_v': dk}
    return out
""")
A(nb, 'rows_ab', "base['d_k'] read directly: a preset without d_k fails", """
def rows_ab(base):
    d, h, dk = base['d_model'], base['h'], base['d_k']
    return {**{f'A-h{k}': dict(h=k, d_k=d // k, d_v=d // k) for k in (max(1, h // 8), h // 2, 2 * h, 4 * h)},
            **{f'B-dk{k}': dict(d_k=k, d_v=dk) for k in (dk // 4, dk // 2)}}
""")
A(nb, 'rows_ab', "one dict reused for every entry of a row: each shows the row's last overrides", """
def rows_ab(base):
    d, h = base['d_model'], base['h']
    dk = base.get('d_k') or d // h
    out, o = {}, {}
    for k in (max(1, h // 8), h // 2, 2 * h, 4 * h):
        o['h'], o['d_k'], o['d_v'] = k, d // k, d // k
        out[f'A-h{k}'] = o
    o = {}
    for k in (dk // 4, dk // 2):
        o['d_k'], o['d_v'] = k, dk
        out[f'B-dk{k}'] = o
    return out
""")
A(nb, 'rows_ab', "row (A) named from the base's h: its four entries under one key", """
def rows_ab(base):
    d, h = base['d_model'], base['h']
    dk = base.get('d_k') or d // h
    out = {}
    for k in (max(1, h // 8), h // 2, 2 * h, 4 * h): out[f'A-h{h}'] = dict(h=k, d_k=d // k, d_v=d // k)
    for k in (dk // 4, dk // 2): out[f'B-dk{k}'] = dict(d_k=k, d_v=dk)
    return out
""")
A(nb, 'rows_ab', "the library's table3_variants returned whole: base and rows C to E too", """
from transformer_nb.variations_config import table3_variants
def rows_ab(base): return table3_variants(base)
""")
A(nb, 'rows_ab', "each override a tuple (h, d_k, d_v) / (d_k, d_v), not a dict", """
def rows_ab(base):
    d, h = base['d_model'], base['h']
    dk = base.get('d_k') or d // h
    return {**{f'A-h{k}': (k, d // k, d // k) for k in (max(1, h // 8), h // 2, 2 * h, 4 * h)},
            **{f'B-dk{k}': (k, dk) for k in (dk // 4, dk // 2)}}
""")

# ---------------------------------------------------------------- 13_parsing: my_linearize
nb = '13_parsing'
A(nb, 'my_linearize', None, """
def my_linearize(tree):
    if is_preterminal(tree): return tree[0]
    lab = coarse_label(tree.label())
    return ' '.join(['(' + lab] + [my_linearize(c) for c in tree] + [')' + lab])
""")
A(nb, 'my_linearize', "each leaf written word/TAG, as NLTK's tagged corpora write it", """
def my_linearize(tree):
    if is_preterminal(tree): return f'{tree[0]}/{tree.label()}'
    lab = coarse_label(tree.label())
    return ' '.join(['(' + lab] + [my_linearize(c) for c in tree] + [')' + lab])
""")
A(nb, 'my_linearize', "the POS tag written before its word, unbracketed: 'NNP John'", """
def my_linearize(tree):
    if is_preterminal(tree): return f'{tree.label()} {tree[0]}'
    lab = coarse_label(tree.label())
    return ' '.join(['(' + lab] + [my_linearize(c) for c in tree] + [')' + lab])
""")
A(nb, 'my_linearize', "only -SBJ removed (label.replace('-SBJ', '')): right on John's tree alone", """
def my_linearize(tree):
    if is_preterminal(tree): return tree[0]
    lab = tree.label().replace('-SBJ', '')
    return ' '.join(['(' + lab] + [my_linearize(c) for c in tree] + [')' + lab])
""")
A(nb, 'my_linearize', "one level of recursion: a child phrase's own phrases written as bare words", """
def my_linearize(tree):
    lab = coarse_label(tree.label())
    toks = ['(' + lab]
    for c in tree:
        if is_preterminal(c): toks.append(c[0])
        else:
            cl = coarse_label(c.label())
            toks += ['(' + cl, *c.leaves(), ')' + cl]
    return ' '.join(toks + [')' + lab])
""")
A(nb, 'my_linearize', "a bare '(' opening each phrase, the label only on the closing bracket", """
def my_linearize(tree):
    if is_preterminal(tree): return tree[0]
    lab = coarse_label(tree.label())
    return ' '.join(['('] + [my_linearize(c) for c in tree] + [')' + lab])
""")
A(nb, 'my_linearize', "the caller's tree relabelled in place (set_label)", """
def my_linearize(tree):
    if is_preterminal(tree): return tree[0]
    tree.set_label(coarse_label(tree.label()))
    lab = tree.label()
    return ' '.join(['(' + lab] + [my_linearize(c) for c in tree] + [')' + lab])
""")

# ---------------------------------------------------------------- 13_parsing: my_corpus_prf
A(nb, 'my_corpus_prf', None, """
def my_corpus_prf(counts):
    m, g, t = (sum(col) for col in zip(*counts))
    p, r = 100 * m / t, 100 * m / g
    return p, r, 2 * p * r / (p + r)
""")
A(nb, 'my_corpus_prf', "recall divided by the parse's brackets too (m / t twice)", """
def my_corpus_prf(counts):
    m = sum(c[0] for c in counts); g = sum(c[1] for c in counts); t = sum(c[2] for c in counts)
    p = 100 * m / t
    r = 100 * m / t
    return p, r, 2 * p * r / (p + r)
""")
A(nb, 'my_corpus_prf', "sentences counted from 1 (range(1, len(counts))): the first left out", """
def my_corpus_prf(counts):
    m = g = t = 0
    for i in range(1, len(counts)):
        m += counts[i][0]; g += counts[i][1]; t += counts[i][2]
    p, r = 100 * m / t, 100 * m / g
    return p, r, 2 * p * r / (p + r)
""")
A(nb, 'my_corpus_prf', "the tuple of fractions times 100 (a NumPy habit): the three repeated 100 times", """
def my_corpus_prf(counts):
    m, g, t = (sum(col) for col in zip(*counts))
    p, r = m / t, m / g
    return (p, r, 2 * p * r / (p + r)) * 100
""")
A(nb, 'my_corpus_prf', "the sentences' tuples added with + (concatenated, not summed element-wise)", """
import functools
def my_corpus_prf(counts):
    m, g, t = functools.reduce(lambda a, b: a + b, counts)
    p, r = 100 * m / t, 100 * m / g
    return p, r, 2 * p * r / (p + r)
""")
A(nb, 'my_corpus_prf', "EVALB's summary: the summed counts returned before the figures (m, g, t, P, R, F1)", """
def my_corpus_prf(counts):
    m, g, t = (sum(col) for col in zip(*counts))
    p, r = 100 * m / t, 100 * m / g
    return m, g, t, p, r, 2 * p * r / (p + r)
""")

# ---------------------------------------------------------------- 14_since_2017: rms_norm_of
nb = '14_since_2017'
A(nb, 'rms_norm_of', None, """
def rms_norm_of(a, g, eps=1e-5):
    return a / torch.sqrt(a.pow(2).mean(-1, keepdim=True) + eps) * g
""")
A(nb, 'rms_norm_of', None, """
def rms_norm_of(a, g, eps=1e-5):
    return F.rms_norm(a, (a.shape[-1],), g, eps)
""")
A(nb, 'rms_norm_of', "eps a floor on the mean square (clamp_min), not added under the root", """
def rms_norm_of(a, g, eps=1e-5):
    return a / torch.sqrt(a.pow(2).mean(-1, keepdim=True).clamp_min(eps)) * g
""")
A(nb, 'rms_norm_of', "PyTorch's nn.RMSNorm with its weight set from g (weight.data = g): no gradient reaches g", """
def rms_norm_of(a, g, eps=1e-5):
    norm = nn.RMSNorm(a.shape[-1], eps=eps)
    norm.weight.data = g
    return norm(a)
""")
A(nb, 'rms_norm_of', "the result squeezed (.squeeze()): a batch of one loses its axis", """
def rms_norm_of(a, g, eps=1e-5):
    rms = torch.sqrt(a.pow(2).mean(-1, keepdim=True) + eps)
    return (a / rms * g).squeeze()
""")
A(nb, 'rms_norm_of', "computed in float64 (a.double()) and returned in float64", """
def rms_norm_of(a, g, eps=1e-5):
    a, g = a.double(), g.double()          # the mean of squares in full precision
    return a / torch.sqrt(a.pow(2).mean(-1, keepdim=True) + eps) * g
""")
A(nb, 'rms_norm_of', "d hard-coded as 8 (the notebook's LayerNorm(8)): sum of squares / 8", """
def rms_norm_of(a, g, eps=1e-5):
    return a / torch.sqrt(a.pow(2).sum(-1, keepdim=True) / 8 + eps) * g
""")
A(nb, 'rms_norm_of', "the gain inside the mean square (a weighted mean), not applied to the output", """
def rms_norm_of(a, g, eps=1e-5):
    return a / torch.sqrt((g * a.pow(2)).mean(-1, keepdim=True) + eps)
""")
A(nb, 'rms_norm_of', "rsqrt read as sqrt: a multiplied by sqrt(mean + eps)", """
def rms_norm_of(a, g, eps=1e-5):
    return a * torch.sqrt(a.pow(2).mean(-1, keepdim=True) + eps) * g
""")

# ---------------------------------------------------------------- 14_since_2017: rotate_query
A(nb, 'rotate_query', None, """
def rotate_query(q, m):
    d = q.shape[-1]
    ang = m * 10000.0 ** (-2 * torch.arange(d // 2, dtype=torch.float64) / d)
    x = q.double().reshape(d // 2, 2)
    x1, x2 = x[:, 0], x[:, 1]
    out = torch.stack([x1 * ang.cos() - x2 * ang.sin(), x1 * ang.sin() + x2 * ang.cos()], -1)
    return out.reshape(d).to(q.dtype)
""")
A(nb, 'rotate_query', "computed in float64 and returned so (no cast back to q's dtype)", """
def rotate_query(q, m):
    d = q.shape[-1]
    ang = m * 10000.0 ** (-2 * torch.arange(d // 2, dtype=torch.float64) / d)
    x1, x2 = q[0::2].double(), q[1::2].double()
    return torch.stack([x1 * ang.cos() - x2 * ang.sin(), x1 * ang.sin() + x2 * ang.cos()], -1).flatten()
""")
A(nb, 'rotate_query', "m left out: each pair turned by theta_i, as if at position 1", """
def rotate_query(q, m):
    d = q.shape[-1]
    ang = 10000.0 ** (-2 * torch.arange(d // 2, dtype=torch.float64) / d)
    x1, x2 = q[0::2].double(), q[1::2].double()
    return torch.stack([x1 * ang.cos() - x2 * ang.sin(), x1 * ang.sin() + x2 * ang.cos()], -1).flatten().to(q.dtype)
""")
A(nb, 'rotate_query', "each pair read backwards (x1 = q[1::2], x2 = q[0::2]), written back in order", """
def rotate_query(q, m):
    d = q.shape[-1]
    ang = m * 10000.0 ** (-2 * torch.arange(d // 2, dtype=torch.float64) / d)
    x1, x2 = q[1::2].double(), q[0::2].double()
    return torch.stack([x1 * ang.cos() - x2 * ang.sin(), x1 * ang.sin() + x2 * ang.cos()], -1).flatten().to(q.dtype)
""")
A(nb, 'rotate_query', "a loop over range(d // 2 - 1): the last pair left unturned", """
def rotate_query(q, m):
    d, out = len(q), q.clone()
    for i in range(d // 2 - 1):
        a = m * 10000 ** (-2 * i / d)
        x1, x2 = q[2 * i], q[2 * i + 1]
        out[2 * i] = x1 * math.cos(a) - x2 * math.sin(a)
        out[2 * i + 1] = x1 * math.sin(a) + x2 * math.cos(a)
    return out
""")
A(nb, 'rotate_query', "the cos/sin table cached by d alone: the first call's position reused", """
_TABLE = {}
def rotate_query(q, m):
    d = q.shape[-1]
    if d not in _TABLE:
        a = m * 10000.0 ** (-2 * torch.arange(d // 2, dtype=torch.float64) / d)
        _TABLE[d] = (a.cos(), a.sin())
    c, s = _TABLE[d]
    x1, x2 = q[0::2].double(), q[1::2].double()
    return torch.stack([x1 * c - x2 * s, x1 * s + x2 * c], -1).flatten().to(q.dtype)
""")
A(nb, 'rotate_query', "torch.tensor(q) copied first: the result detached from q's graph", """
def rotate_query(q, m):
    x = torch.tensor(q, dtype=torch.float64)
    d = x.shape[-1]
    ang = m * 10000.0 ** (-2 * torch.arange(d // 2, dtype=torch.float64) / d)
    x1, x2 = x[0::2], x[1::2]
    return torch.stack([x1 * ang.cos() - x2 * ang.sin(), x1 * ang.sin() + x2 * ang.cos()], -1).flatten().to(q.dtype)
""")
A(nb, 'rotate_query', "05's sinusoids added (q + PE_m), not a rotation", """
def rotate_query(q, m):
    d = q.shape[-1]
    ang = m * 10000.0 ** (-2 * torch.arange(d // 2, dtype=torch.float64) / d)
    pe = torch.stack([ang.sin(), ang.cos()], -1).flatten()
    return (q.double() + pe).to(q.dtype)
""")

# ---------------------------------------------------------------- 14_since_2017: group_heads
A(nb, 'group_heads', None, """
def group_heads(k, g):
    B, h, n, d = k.shape
    s = h // g
    means = torch.stack([k[:, j * s:(j + 1) * s].mean(1) for j in range(g)], 1)   # (B, g, n, d)
    return means.repeat_interleave(s, dim=1)
""")
A(nb, 'group_heads', "the paper's ceil(i g / h) - 1 on heads counted from 0: head 0 wraps to the last group", """
def group_heads(k, g):
    B, h, n, d = k.shape
    means = k.unflatten(1, (g, h // g)).mean(2)                    # (B, g, n, d)
    idx = [math.ceil(i * g / h) - 1 for i in range(h)]              # head i uses group ceil(i g / h)
    return means[:, idx]
""")
A(nb, 'group_heads', "each group head repeated along the batch axis (repeat_interleave dim=0)", """
def group_heads(k, g):
    B, h, n, d = k.shape
    return k.reshape(B, g, h // g, n, d).mean(2).repeat_interleave(h // g, dim=0)
""")
A(nb, 'group_heads', "each group head repeated along the positions (repeat_interleave dim=2)", """
def group_heads(k, g):
    B, h, n, d = k.shape
    return k.reshape(B, g, h // g, n, d).mean(2).repeat_interleave(h // g, dim=2)
""")
A(nb, 'group_heads', "len(k) for the number of heads: the batch size", """
def group_heads(k, g):
    h = len(k)
    return k.unflatten(1, (g, h // g)).mean(2).repeat_interleave(h // g, dim=1)
""")
A(nb, 'group_heads', "h / g (true division) in the shape: a float size", """
def group_heads(k, g):
    B, h, n, d = k.shape
    return k.view(B, g, h / g, n, d).mean(2).repeat_interleave(h // g, dim=1)
""")
