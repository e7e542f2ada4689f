"""The twenty-eighth blind set's answers, for the notebooks 00_core to 03_ffn only, written from the exercises' text
alone: (notebook, exercise, mistake, code), the mistake None for the right answer.
`experiments/blind_answers.py 28` runs them. This set leans toward answers right on every input but one the text
allows (an empty sentence, a batch of empty sentences, an even r, r >= n, large scores, 4-d inputs, n_q = B, a
causal mask, a size-1 d_model), library functions that differ at an edge (F.pad of an empty tensor, zip and
zip_longest, torch.hstack, torch.cat over a tensor, max_pool1d's even kernel, round's banker's rounding, copy_'s
broadcasting, squeeze()), state and aliasing (the caller's outer list edited, one reused output buffer, the conv
overwritten by the copy, modules and parameter storage shared with the source, a frozen copy), answers tuned to the
example (the longest of the first two sentences, d_ff = 4 d_model) and two small slips that cancel on it."""
ANSWERS = []
def A(nb, ex, mistake, code): ANSWERS.append((nb, ex, mistake, code))
def R(code, old, new):
    "`code` with `old` replaced by `new` (`old` must be there)."
    assert old in code, old
    return code.replace(old, new)

# 00_core: pad_batch
nb = '00_core'
PAD = """
def pad_batch(seqs, pad_id=PAD_ID):
    n = max(len(s) for s in seqs)
    return torch.tensor([list(s) + [pad_id] * (n - len(s)) for s in seqs], dtype=torch.long)"""
A(nb, 'pad_batch', None, PAD)
A(nb, 'pad_batch', "the caller's outer list edited: seqs[i] replaced by its padded row", """
def pad_batch(seqs, pad_id=PAD_ID):
    n = max(len(s) for s in seqs)
    for i, s in enumerate(seqs): seqs[i] = s + [pad_id] * (n - len(s))
    return torch.tensor(seqs, dtype=torch.long)""")
A(nb, 'pad_batch', 'rows built with insert(0, ...): the batch order reversed', """
def pad_batch(seqs, pad_id=PAD_ID):
    n, rows = max(len(s) for s in seqs), []
    for s in seqs: rows.insert(0, list(s) + [pad_id] * (n - len(s)))
    return torch.tensor(rows, dtype=torch.long)""")
A(nb, 'pad_batch', 'F.pad of torch.tensor(s) per row: an empty sentence is a float row, the batch float32', """
def pad_batch(seqs, pad_id=PAD_ID):
    n = max(len(s) for s in seqs)
    return torch.stack([F.pad(torch.tensor(s), (0, n - len(s)), value=pad_id) for s in seqs])""")
A(nb, 'pad_batch', 'empty sentences skipped: fewer rows than sentences', """
def pad_batch(seqs, pad_id=PAD_ID):
    n = max(len(s) for s in seqs)
    return torch.tensor([list(s) + [pad_id] * (n - len(s)) for s in seqs if s], dtype=torch.long)""")
A(nb, 'pad_batch', 'the pads split between both ends (each sentence centred)', """
def pad_batch(seqs, pad_id=PAD_ID):
    n = max(len(s) for s in seqs)
    rows = [[pad_id] * ((n - len(s)) // 2) + list(s) + [pad_id] * (n - len(s) - (n - len(s)) // 2) for s in seqs]
    return torch.tensor(rows, dtype=torch.long)""")
A(nb, 'pad_batch', "the width rounded up to a multiple of 8 (Hugging Face's pad_to_multiple_of=8)", R(PAD,
    'n = max(len(s) for s in seqs)', 'n = -(-max(len(s) for s in seqs) // 8) * 8'))
A(nb, 'pad_batch', "truncated to 64 ids (Hugging Face's truncation=True, max_length=64)", """
def pad_batch(seqs, pad_id=PAD_ID, max_length=64):
    n = min(max(len(s) for s in seqs), max_length)
    return torch.tensor([list(s)[:n] + [pad_id] * (n - len(s[:n])) for s in seqs], dtype=torch.long)""")
A(nb, 'pad_batch', 'the width of the first sentence: longer ones truncated', """
def pad_batch(seqs, pad_id=PAD_ID):
    n = len(seqs[0])
    return torch.tensor([list(s)[:n] + [pad_id] * (n - len(s)) for s in seqs], dtype=torch.long)""")
A(nb, 'pad_batch', 'the longest of the first two sentences only (tuned to the example of two)', R(PAD,
    'n = max(len(s) for s in seqs)', 'n = max(len(s) for s in seqs[:2])'))
A(nb, 'pad_batch', 'itertools.zip_longest without the transpose: (n, B)', """
import itertools
def pad_batch(seqs, pad_id=PAD_ID):
    return torch.tensor(list(itertools.zip_longest(*seqs, fillvalue=pad_id)), dtype=torch.long)""")
A(nb, 'pad_batch', 'zip(*seqs), transposed: every row cut to the shortest', """
def pad_batch(seqs, pad_id=PAD_ID):
    return torch.tensor(list(zip(*seqs)), dtype=torch.long).T""")
A(nb, 'pad_batch', 'int16 ids (.short()): ids above 32767 wrap', R(PAD, 'dtype=torch.long)', 'dtype=torch.long).short()'))
A(nb, 'pad_batch', 'two slips that cancel on the example: one pad too many, then the first column dropped', """
def pad_batch(seqs, pad_id=PAD_ID):
    n = max(len(s) for s in seqs) + 1
    return torch.tensor([list(s) + [pad_id] * (n - len(s)) for s in seqs], dtype=torch.long)[:, 1:]""")
A(nb, 'pad_batch', 'no dtype: a batch of empty sentences is a float32 (B, 0) tensor', """
def pad_batch(seqs, pad_id=PAD_ID):
    n = max(len(s) for s in seqs)
    return torch.tensor([list(s) + [pad_id] * (n - len(s)) for s in seqs])""")
A(nb, 'pad_batch', 'a while loop to n - 1: every shorter sentence one pad short', """
def pad_batch(seqs, pad_id=PAD_ID):
    n, rows = max(len(s) for s in seqs), []
    for s in seqs:
        r = list(s)
        while len(r) < n - 1: r.append(pad_id)
        rows.append(r)
    return torch.tensor(rows, dtype=torch.long)""")
A(nb, 'pad_batch', 'a shallow copy of the batch (list(seqs)): the rows extended in place', """
def pad_batch(seqs, pad_id=PAD_ID):
    n, rows = max(len(s) for s in seqs), list(seqs)
    for r in rows: r.extend([pad_id] * (n - len(r)))
    return torch.tensor(rows, dtype=torch.long)""")
A(nb, 'pad_batch', 'pads with EOS_ID, the end token, not pad_id', R(PAD, '[pad_id] *', '[EOS_ID] *'))
A(nb, 'pad_batch', 'a view into one buffer reused between calls: the next call overwrites the last batch', """
_BUF = torch.empty(256, 1024, dtype=torch.long)
def pad_batch(seqs, pad_id=PAD_ID):
    n = max(len(s) for s in seqs)
    out = _BUF[:len(seqs), :n]
    out.fill_(pad_id)
    for i, s in enumerate(seqs): out[i, :len(s)] = torch.tensor(list(s), dtype=torch.long)
    return out""")
A(nb, 'pad_batch', 'the width counted in distinct ids (len(set(s))): a sentence with a repeated id is cut', """
def pad_batch(seqs, pad_id=PAD_ID):
    n = max(len(set(s)) for s in seqs)
    return torch.tensor([list(s)[:n] + [pad_id] * (n - len(s)) for s in seqs], dtype=torch.long)""")

# 01_attention: my_attention
nb = '01_attention'
ATT = """
def my_attention(q, k, v, mask=None):
    s = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if mask is not None: s = s.masked_fill(~mask, float('-inf'))
    w = s.softmax(dim=-1)
    if mask is not None: w = w.masked_fill(~mask, 0.0)
    return w @ v, w"""
A(nb, 'attention', None, ATT)
A(nb, 'attention', "q scaled in place (q /= sqrt(d_k)): the caller's q changed", """
def my_attention(q, k, v, mask=None):
    q /= math.sqrt(q.shape[-1])
    s = q @ k.transpose(-2, -1)
    if mask is not None: s = s.masked_fill(~mask, float('-inf'))
    w = s.softmax(dim=-1)
    if mask is not None: w = w.masked_fill(~mask, 0.0)
    return w @ v, w""")
A(nb, 'attention', 'k.transpose(1, 2): the key axis of 3-d inputs only', R(ATT, 'k.transpose(-2, -1)', 'k.transpose(1, 2)'))
A(nb, 'attention', 'softmax(dim=2): the key axis of 3-d inputs only', R(ATT, 's.softmax(dim=-1)', 's.softmax(dim=2)'))
A(nb, 'attention', "d_k ** 1/2: Python's precedence divides by d_k / 2", R(ATT, 'math.sqrt(q.shape[-1])', 'q.shape[-1] ** 1/2'))
A(nb, 'attention', 'softmax by hand without the max subtracted: large scores overflow', """
def my_attention(q, k, v, mask=None):
    s = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    e = s.exp()
    if mask is not None: e = e.masked_fill(~mask, 0.0)
    w = e / e.sum(-1, keepdim=True).clamp_min(1e-300)
    return w @ v, w""")
A(nb, 'attention', 'if mask: (the truth of a tensor)', R(ATT, 'if mask is not None: s =', 'if mask: s ='))
A(nb, 'attention', 'the NaN rows zeroed in place on the softmax output (w[w.isnan()] = 0): backward fails', """
def my_attention(q, k, v, mask=None):
    s = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if mask is not None: s = s.masked_fill(~mask, float('-inf'))
    w = s.softmax(dim=-1)
    w[w.isnan()] = 0.0
    return w @ v, w""")
A(nb, 'attention', 'the mask reshaped with view(scores.shape): a broadcasting mask refused', """
def my_attention(q, k, v, mask=None):
    s = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if mask is not None: mask = mask.view(s.shape); s = s.masked_fill(~mask, float('-inf'))
    w = s.softmax(dim=-1)
    if mask is not None: w = w.masked_fill(~mask, 0.0)
    return w @ v, w""")
A(nb, 'attention', 'the mask transposed (its last two axes swapped): a padding mask hides queries', """
def my_attention(q, k, v, mask=None):
    s = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if mask is not None: mask = mask.transpose(-2, -1); s = s.masked_fill(~mask, float('-inf'))
    w = s.softmax(dim=-1)
    if mask is not None: w = w.masked_fill(~mask, 0.0)
    return w @ v, w""")
A(nb, 'attention', 'the softmax in float32 (s.float()), cast back to the inputs\' dtype', R(ATT,
    'w = s.softmax(dim=-1)', 'w = s.float().softmax(dim=-1).to(s.dtype)'))
A(nb, 'attention', 'the output from the keys (w @ k), not the values', R(ATT, 'return w @ v, w', 'return w @ k, w'))
A(nb, 'attention', 'multiplied by sqrt(d_k) instead of divided', R(ATT, '/ math.sqrt(q.shape[-1])', '* math.sqrt(q.shape[-1])'))

# 01_attention: restricted_mask
RM = """
def restricted_mask(n, r):
    i = torch.arange(n)
    return ((i[:, None] - i[None, :]).abs() <= r // 2)[None, None]"""
A(nb, 'restricted_mask', None, RM)
A(nb, 'restricted_mask', "round(r / 2): banker's rounding, r = 3 gives 2", R(RM, 'r // 2', 'round(r / 2)'))
A(nb, 'restricted_mask', 'math.ceil(r / 2): one key more on each side for an odd r', R(RM, 'r // 2', 'math.ceil(r / 2)'))
A(nb, 'restricted_mask', 'exactly r keys for an even r: r/2 before, r/2 - 1 after', """
def restricted_mask(n, r):
    i = torch.arange(n)
    d = i[None, :] - i[:, None]
    return ((d >= -(r // 2)) & (d <= (r - 1) // 2))[None, None]""")
A(nb, 'restricted_mask', 'the window slid inward at the ends: r keys for every query', """
def restricted_mask(n, r):
    m = torch.zeros(n, n, dtype=torch.bool)
    for i in range(n):
        lo = max(0, min(i - r // 2, n - r)); m[i, lo:lo + r] = True
    return m[None, None]""")
A(nb, 'restricted_mask', 'r >= n special-cased: an (n, n) all-True mask without the leading axes', """
def restricted_mask(n, r):
    if r >= n: return torch.ones(n, n, dtype=torch.bool)
    i = torch.arange(n)
    return ((i[:, None] - i[None, :]).abs() <= r // 2)[None, None]""")
A(nb, 'restricted_mask', 'combined with a causal mask (a decoder habit): no key after the query', """
def restricted_mask(n, r):
    i = torch.arange(n)
    d = i[:, None] - i[None, :]
    return ((d.abs() <= r // 2) & (d >= 0))[None, None]""")
A(nb, 'restricted_mask', 'no abs(): i - j <= r // 2, every later key allowed', R(RM, '(i[:, None] - i[None, :]).abs()', '(i[:, None] - i[None, :])'))
A(nb, 'restricted_mask', 'max_pool1d of the identity with kernel r: right for an odd r only', """
def restricted_mask(n, r):
    return F.max_pool1d(torch.eye(n)[None], r, 1, r // 2)[0].bool()[None, None]""")
A(nb, 'restricted_mask', '(1, n, n): one leading axis only', R(RM, '[None, None]', '[None]'))
A(nb, 'restricted_mask', 'float ones banded by triu/tril, returned as float', """
def restricted_mask(n, r):
    return torch.ones(n, n).triu(-(r // 2)).tril(r // 2)[None, None]""")

# 02_multihead: split_heads, merge_heads
nb = '02_multihead'
SPLIT = """
def split_heads(x, h):
    B, n, hd = x.shape
    return x.view(B, n, h, hd // h).transpose(1, 2)
"""
MERGE = """
def merge_heads(x):
    B, h, n, d = x.shape
    return x.transpose(1, 2).reshape(B, n, h * d)
"""
A(nb, 'heads', None, SPLIT + MERGE)
A(nb, 'heads', 'split stacked at dim=2: (B, n, h, d)', """
def split_heads(x, h):
    return torch.stack(x.chunk(h, dim=-1), dim=2)
""" + MERGE)
A(nb, 'heads', 'split stacked at dim 0: (h, B, n, d)', """
def split_heads(x, h):
    return torch.stack(x.chunk(h, dim=-1))
""" + MERGE)
A(nb, 'heads', 'split permuted to (B, h, d, n): right shape only when d = n', """
def split_heads(x, h):
    B, n, hd = x.shape
    return x.reshape(B, n, h, hd // h).permute(0, 2, 3, 1)
""" + MERGE)
A(nb, 'heads', 'merge by torch.cat(list(x), -1): iterating a tensor walks the batch axis', SPLIT + """
def merge_heads(x):
    return torch.cat(list(x), -1)
""")
A(nb, 'heads', 'merge by torch.hstack of the heads: joined along axis 1, not the features', SPLIT + """
def merge_heads(x):
    return torch.hstack(x.unbind(1))
""")
A(nb, 'heads', "merge unpacks the input as (B, n, h, d): right only when h = n", SPLIT + """
def merge_heads(x):
    B, n, h, d = x.shape
    return x.transpose(1, 2).reshape(B, n, h * d)
""")
A(nb, 'heads', 'merge flattens the axes (h, n) : (B, h*n, d)', SPLIT + """
def merge_heads(x):
    return x.flatten(1, 2)
""")
A(nb, 'heads', 'split with d = h (the number of heads read as the head size in the view)', """
def split_heads(x, h):
    B, n, hd = x.shape
    return x.view(B, n, hd // h, h).transpose(1, 2)
""" + MERGE)

# 02_multihead: LoopMHA
LOOP = """
class LoopMHA(nn.Module):
    def __init__(self, d_model, h):
        super().__init__()
        self.h, self.d_k = h, d_model // h
        heads = lambda: nn.ModuleList(nn.Linear(d_model, self.d_k) for _ in range(h))
        self.w_q, self.w_k, self.w_v = heads(), heads(), heads()
        self.w_o = nn.Linear(h * self.d_k, d_model)
    def forward(self, x, mem=None, mask=None):
        mem = x if mem is None else mem
        m = None if mask is None else mask[:, 0]
        heads = [attention(q(x), k(mem), v(mem), m)[0] for q, k, v in zip(self.w_q, self.w_k, self.w_v)]
        return self.w_o(torch.cat(heads, -1))
    @torch.no_grad()
    def load_from(self, mha):
        for i in range(self.h):
            rows = slice(i * self.d_k, (i + 1) * self.d_k)
            for lin, W in zip((self.w_q[i], self.w_k[i], self.w_v[i]), (mha.w_q, mha.w_k, mha.w_v)):
                lin.weight.copy_(W.weight[rows]); lin.bias.copy_(W.bias[rows])
        self.w_o.load_state_dict(mha.w_o.state_dict())"""
A(nb, 'LoopMHA', None, LOOP)
A(nb, 'LoopMHA', "the heads' biases not copied", R(LOOP, '; lin.bias.copy_(W.bias[rows])', ''))
A(nb, 'LoopMHA', "W^O copied transposed (square when h*d_k = d_model)", R(LOOP,
    'self.w_o.load_state_dict(mha.w_o.state_dict())',
    'self.w_o.weight.copy_(mha.w_o.weight.T); self.w_o.bias.copy_(mha.w_o.bias)'))
A(nb, 'LoopMHA', "W^O shared with the source (self.w_o = mha.w_o)", R(LOOP,
    'self.w_o.load_state_dict(mha.w_o.state_dict())', 'self.w_o = mha.w_o'))
A(nb, 'LoopMHA', 'mask.squeeze(): a (B, 1, 1, n_k) padding mask becomes (B, n_k), read as (n_q, n_k)', R(LOOP,
    'mask[:, 0]', 'mask.squeeze()'))
A(nb, 'LoopMHA', 'mask[:, :, 0]: the first query\'s row for every query (right for padding masks)', R(LOOP,
    'mask[:, 0]', 'mask[:, :, 0]'))
A(nb, 'LoopMHA', 'scaled by sqrt(d_model), the whole width, not sqrt(d_k)', R(LOOP,
    'attention(q(x), k(mem), v(mem), m)[0]', 'attention(q(x), k(mem), v(mem), m, scale=1 / math.sqrt(self.h * self.d_k))[0]'))
A(nb, 'LoopMHA', 'mem = mem or x: the truth of a tensor', R(LOOP, 'mem = x if mem is None else mem', 'mem = mem or x'))
A(nb, 'LoopMHA', 'mem ignored: keys and values from x', R(LOOP, 'mem = x if mem is None else mem', 'mem = x'))
A(nb, 'LoopMHA', "W^O applied per head and summed, its bias added once per head", R(LOOP,
    'return self.w_o(torch.cat(heads, -1))',
    'return sum(F.linear(o, self.w_o.weight[:, i * self.d_k:(i + 1) * self.d_k], self.w_o.bias) for i, o in enumerate(heads))'))
A(nb, 'LoopMHA', 'attention dropout 0.1 on the weights (the module left in training mode)', R(R(LOOP,
    'self.w_o = nn.Linear(h * self.d_k, d_model)', 'self.w_o = nn.Linear(h * self.d_k, d_model); self.drop = nn.Dropout(0.1)'),
    'attention(q(x), k(mem), v(mem), m)[0]', 'attention(q(x), k(mem), v(mem), m, dropout=self.drop)[0]'))
A(nb, 'LoopMHA', 'W^K and W^V loaded from w_q', R(LOOP, '(mha.w_q, mha.w_k, mha.w_v)', '(mha.w_q, mha.w_q, mha.w_q)'))
A(nb, 'LoopMHA', 'values from x, keys from mem (cross-attention)', R(LOOP,
    'attention(q(x), k(mem), v(mem), m)[0]', 'attention(q(x), k(mem), v(x), m)[0]'))
A(nb, 'LoopMHA', 'a causal mask always applied (a decoder habit)', R(LOOP,
    'm = None if mask is None else mask[:, 0]',
    'c = torch.ones(x.shape[1], mem.shape[1], dtype=torch.bool).tril()\n        m = c if mask is None else mask[:, 0] & c'))
A(nb, 'LoopMHA', 'one ModuleList for W^Q and W^K (self.w_k = self.w_q)', R(LOOP,
    'self.w_q, self.w_k, self.w_v = heads(), heads(), heads()', 'self.w_q = heads(); self.w_k = self.w_q; self.w_v = heads()'))

# 03_ffn: conv_to_ffn
nb = '03_ffn'
CONV = """
def conv_to_ffn(conv):
    d_ff, d_model, _ = conv[0].weight.shape
    ffn = FeedForward(d_model, d_ff)
    with torch.no_grad():
        for lin, c in zip((ffn.w_1, ffn.w_2), (conv[0], conv[2])):
            lin.weight.copy_(c.weight[:, :, 0]); lin.bias.copy_(c.bias)
    return ffn"""
A(nb, 'conv_to_ffn', None, CONV)
A(nb, 'conv_to_ffn', 'squeeze() of the weights: a size-1 d_model or d_ff loses its axis', R(CONV,
    'c.weight[:, :, 0]', 'c.weight.squeeze()'))
A(nb, 'conv_to_ffn', 'weights transposed (.T): the right shape only when d_ff = d_model', R(CONV,
    'c.weight[:, :, 0]', 'c.weight[:, :, 0].T'))
A(nb, 'conv_to_ffn', "the biases not copied: FeedForward's zeros", R(CONV, '; lin.bias.copy_(c.bias)', ''))
A(nb, 'conv_to_ffn', 'nn.Sequential(Linear, ReLU, Linear), not a FeedForward', """
def conv_to_ffn(conv):
    d_ff, d_model, _ = conv[0].weight.shape
    ffn = nn.Sequential(nn.Linear(d_model, d_ff), nn.ReLU(), nn.Linear(d_ff, d_model))
    with torch.no_grad():
        for lin, c in zip((ffn[0], ffn[2]), (conv[0], conv[2])):
            lin.weight.copy_(c.weight[:, :, 0]); lin.bias.copy_(c.bias)
    return ffn""")
A(nb, 'conv_to_ffn', "forward replaced by the conv itself: the FeedForward's own weights left random", """
def conv_to_ffn(conv):
    d_ff, d_model, _ = conv[0].weight.shape
    ffn = FeedForward(d_model, d_ff)
    ffn.forward = lambda x: conv(x.transpose(-1, -2)).transpose(-1, -2)
    return ffn""")
A(nb, 'conv_to_ffn', "copied the wrong way: the conv overwritten with the FeedForward's weights", """
def conv_to_ffn(conv):
    d_ff, d_model, _ = conv[0].weight.shape
    ffn = FeedForward(d_model, d_ff)
    with torch.no_grad():
        for lin, c in zip((ffn.w_1, ffn.w_2), (conv[0], conv[2])):
            c.weight.copy_(lin.weight[:, :, None]); c.bias.copy_(lin.bias)
    return ffn""")
A(nb, 'conv_to_ffn', 'zip against a 1-tuple: only the first layer copied', R(CONV, '(conv[0], conv[2])', '(conv[0],)'))
A(nb, 'conv_to_ffn', 'weight.data set to a slice of the conv\'s: the storage shared', """
def conv_to_ffn(conv):
    d_ff, d_model, _ = conv[0].weight.shape
    ffn = FeedForward(d_model, d_ff)
    for lin, c in zip((ffn.w_1, ffn.w_2), (conv[0], conv[2])):
        lin.weight.data = c.weight.data[:, :, 0]; lin.bias.data = c.bias.data
    return ffn""")
A(nb, 'conv_to_ffn', 'a FeedForward that reads the conv\'s (B, d_model, n) layout', """
class ConvLayoutFFN(FeedForward):
    def forward(self, x): return super().forward(x.transpose(-1, -2)).transpose(-1, -2)
def conv_to_ffn(conv):
    d_ff, d_model, _ = conv[0].weight.shape
    ffn = ConvLayoutFFN(d_model, d_ff)
    with torch.no_grad():
        for lin, c in zip((ffn.w_1, ffn.w_2), (conv[0], conv[2])):
            lin.weight.copy_(c.weight[:, :, 0]); lin.bias.copy_(c.bias)
    return ffn""")
A(nb, 'conv_to_ffn', 'c.weight[:, 0, :]: the first input channel, broadcast by copy_', R(CONV,
    'c.weight[:, :, 0]', 'c.weight[:, 0, :]'))
A(nb, 'conv_to_ffn', 'requires_grad_(False) to allow the copy, never turned back on: the FeedForward is frozen', """
def conv_to_ffn(conv):
    d_ff, d_model, _ = conv[0].weight.shape
    ffn = FeedForward(d_model, d_ff).requires_grad_(False)
    for lin, c in zip((ffn.w_1, ffn.w_2), (conv[0], conv[2])):
        lin.weight.copy_(c.weight[:, :, 0]); lin.bias.copy_(c.bias)
    return ffn""")
A(nb, 'conv_to_ffn', "d_ff = 4 * d_model, the paper's ratio, not read from the conv", R(CONV,
    'd_ff, d_model, _ = conv[0].weight.shape', 'd_model = conv[0].weight.shape[1]; d_ff = 4 * d_model'))
A(nb, 'conv_to_ffn', "d_model read from conv[2]'s input axis (d_ff)", R(CONV,
    'd_ff, d_model, _ = conv[0].weight.shape', 'd_ff, d_model = conv[0].weight.shape[0], conv[2].weight.shape[1]'))
A(nb, 'conv_to_ffn', 'the weights flattened (c.weight.flatten()): copy_ of a 1-d tensor', R(CONV,
    'c.weight[:, :, 0]', 'c.weight.flatten()'))
A(nb, 'conv_to_ffn', 'the weights summed over the input channels (sum(1)) rather than the kernel axis', R(CONV,
    'c.weight[:, :, 0]', 'c.weight.sum(1)'))
A(nb, 'conv_to_ffn', 'the ReLU of the conv stack applied before the first layer too (F.relu on the input)', """
class ReluInFFN(FeedForward):
    def forward(self, x): return super().forward(F.relu(x))
def conv_to_ffn(conv):
    d_ff, d_model, _ = conv[0].weight.shape
    ffn = ReluInFFN(d_model, d_ff)
    with torch.no_grad():
        for lin, c in zip((ffn.w_1, ffn.w_2), (conv[0], conv[2])):
            lin.weight.copy_(c.weight[:, :, 0]); lin.bias.copy_(c.bias)
    return ffn""")
A(nb, 'conv_to_ffn', 'the weights copied in float64 (a new Parameter from .double())', """
def conv_to_ffn(conv):
    d_ff, d_model, _ = conv[0].weight.shape
    ffn = FeedForward(d_model, d_ff)
    for lin, c in zip((ffn.w_1, ffn.w_2), (conv[0], conv[2])):
        lin.weight = nn.Parameter(c.weight[:, :, 0].detach().double()); lin.bias = nn.Parameter(c.bias.detach().double())
    return ffn""")
A(nb, 'conv_to_ffn', "the conv's second layer copied into w_1 and the first into w_2 (the order reversed)", R(CONV,
    '(conv[0], conv[2])', '(conv[2], conv[0])'))
