"""The thirty-second blind set's answers, for the notebooks 00_core to 03_ffn only, written from the exercises' text
alone: (notebook, exercise, mistake, code), the mistake None for the right answer.
`experiments/blind_answers.py 32` runs them. This set leans toward answers right on every input but one the text
allows (ids sorted as lists by max(), a pad_id other than 0, a batch whose sentences are all empty, an odd or an even
r, n past an int8's range, 4-d inputs, scores below -1e9, d_v != d_k, n_q != n_k, biases that are not zero, sizes other
than the base model's), library functions that differ at an edge (Tensor.split's size against chunk's count,
F.dropout's training=True, torch.cat over a tensor's first axis, transpose(1, 2) and einsum letters fixed for 3-d,
Python's -r // 2), state kept between calls (a width remembered, a mask cached by n, one FeedForward per size, split's
shape saved for merge) and aliasing (inner lists edited through a shallow copy, the conv's weight squeezed in place)."""
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
A(nb, 'pad_batch', 'the width len(max(seqs)): the lexicographically largest list, not the longest', R(PAD,
    'n = max(len(s) for s in seqs)', 'n = len(max(seqs))'))
A(nb, 'pad_batch', 'a zeros tensor filled row by row: pads are 0 whatever pad_id is', """
def pad_batch(seqs, pad_id=PAD_ID):
    out = torch.zeros(len(seqs), max(len(s) for s in seqs), dtype=torch.long)
    for i, s in enumerate(seqs): out[i, :len(s)] = torch.tensor(s, dtype=torch.long)
    return out""")
A(nb, 'pad_batch', 'the module constant PAD_ID used in the body, the argument ignored', R(PAD,
    '[pad_id] * (n', '[PAD_ID] * (n'))
A(nb, 'pad_batch', 'int32 ids (torch.IntTensor)', R(PAD, 'dtype=torch.long', 'dtype=torch.int32'))
A(nb, 'pad_batch', "sorted longest first, as pack_padded_sequence wants: the rows reordered", """
def pad_batch(seqs, pad_id=PAD_ID):
    seqs = sorted(seqs, key=len, reverse=True)
    n = len(seqs[0])
    return torch.tensor([list(s) + [pad_id] * (n - len(s)) for s in seqs], dtype=torch.long)""")
A(nb, 'pad_batch', 'identical sentences kept once (dict.fromkeys of tuples)', """
def pad_batch(seqs, pad_id=PAD_ID):
    seqs = [list(t) for t in dict.fromkeys(tuple(s) for s in seqs)]
    n = max(len(s) for s in seqs)
    return torch.tensor([s + [pad_id] * (n - len(s)) for s in seqs], dtype=torch.long)""")
A(nb, 'pad_batch', 'one pad column too many (room kept for an EOS)', R(PAD, '(n - len(s))', '(n + 1 - len(s))'))
A(nb, 'pad_batch', 'returns (ids, lengths), as pack_padded_sequence needs', R(PAD,
    'return torch.tensor([list(s) + [pad_id] * (n - len(s)) for s in seqs], dtype=torch.long)',
    'return torch.tensor([list(s) + [pad_id] * (n - len(s)) for s in seqs], dtype=torch.long), torch.tensor([len(s) for s in seqs])'))
A(nb, 'pad_batch', 'the width of the shortest sentence: longer ones truncated', """
def pad_batch(seqs, pad_id=PAD_ID):
    n = min(len(s) for s in seqs)
    return torch.tensor([list(s)[:n] for s in seqs], dtype=torch.long)""")
A(nb, 'pad_batch', 'a batch of one returned as its 1-d row', R(PAD,
    '    n = max(len(s) for s in seqs)', '    if len(seqs) == 1: return torch.tensor(seqs[0], dtype=torch.long)\n    n = max(len(s) for s in seqs)'))
A(nb, 'pad_batch', 'no dtype: a batch of empty sentences is a float (B, 0) tensor', """
def pad_batch(seqs, pad_id=PAD_ID):
    n = max(len(s) for s in seqs)
    return torch.tensor([s + [pad_id] * (n - len(s)) for s in seqs])""")
A(nb, 'pad_batch', "a shallow copy (list(seqs)) padded with +=: the caller's inner lists edited", """
def pad_batch(seqs, pad_id=PAD_ID):
    rows, n = list(seqs), max(len(s) for s in seqs)
    for r in rows: r += [pad_id] * (n - len(r))
    return torch.tensor(rows, dtype=torch.long)""")
A(nb, 'pad_batch', 'pad_id keyword-only (def pad_batch(seqs, *, pad_id=PAD_ID))', R(PAD,
    'def pad_batch(seqs, pad_id=PAD_ID)', 'def pad_batch(seqs, *, pad_id=PAD_ID)'))
A(nb, 'pad_batch', 'torch.full with float(pad_id): a float batch', """
def pad_batch(seqs, pad_id=PAD_ID):
    out = torch.full((len(seqs), max(len(s) for s in seqs)), float(pad_id))
    for i, s in enumerate(seqs): out[i, :len(s)] = torch.tensor(s, dtype=torch.float)
    return out""")
A(nb, 'pad_batch', 'the width of the last sentence (input assumed sorted by length, shortest first)', R(PAD,
    'n = max(len(s) for s in seqs)', 'n = len(seqs[-1])'))
A(nb, 'pad_batch', "each sentence reversed (Sutskever et al.'s reversed source)", R(PAD, 'list(s) +', 'list(s)[::-1] +'))
A(nb, 'pad_batch', 'the width kept across calls: the widest batch seen so far', """
def pad_batch(seqs, pad_id=PAD_ID, _widest=[0]):
    _widest[0] = max(_widest[0], *(len(s) for s in seqs))
    n = _widest[0]
    return torch.tensor([list(s) + [pad_id] * (n - len(s)) for s in seqs], dtype=torch.long)""")
A(nb, 'pad_batch', 'the mean length as the width (integer mean): longer sentences truncated', """
def pad_batch(seqs, pad_id=PAD_ID):
    n = sum(len(s) for s in seqs) // len(seqs)
    return torch.tensor([list(s)[:n] + [pad_id] * (n - len(s[:n])) for s in seqs], dtype=torch.long)""")
A(nb, 'pad_batch', 'pads written as pad_id + 1 (ids shifted past the pad)', R(PAD, '[pad_id] *', '[pad_id + 1] *'))
A(nb, 'pad_batch', "pad_sequence with padding_side='left'", """
def pad_batch(seqs, pad_id=PAD_ID):
    rows = [torch.tensor(s, dtype=torch.long) for s in seqs]
    return torch.nn.utils.rnn.pad_sequence(rows, batch_first=True, padding_value=pad_id, padding_side='left')""")
A(nb, 'pad_batch', 'uint8 ids (a byte tensor): ids above 255 wrap', R(PAD, 'dtype=torch.long', 'dtype=torch.uint8'))

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
A(nb, 'attention', 'masked with -1e9 and no zero fill: a fully masked query gets uniform weights', """
def my_attention(q, k, v, mask=None):
    s = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if mask is not None: s = s.masked_fill(~mask, -1e9)
    w = s.softmax(dim=-1)
    return w @ v, w""")
A(nb, 'attention', 'scaled by sqrt(d_v) (v.shape[-1]): right only when d_v = d_k', R(ATT,
    'math.sqrt(q.shape[-1])', 'math.sqrt(v.shape[-1])'))
A(nb, 'attention', 'scaled by sqrt(n_k) (k.shape[-2]), the number of keys', R(ATT,
    'math.sqrt(q.shape[-1])', 'math.sqrt(k.shape[-2])'))
A(nb, 'attention', 'k.transpose(1, 2): right on 3-d inputs only', R(ATT, 'k.transpose(-2, -1)', 'k.transpose(1, 2)'))
A(nb, 'attention', "PyTorch's key_padding_mask reading: True = blocked", R(R(ATT,
    "s.masked_fill(~mask, float('-inf'))", "s.masked_fill(mask, float('-inf'))"), 'w.masked_fill(~mask, 0.0)', 'w.masked_fill(mask, 0.0)'))
A(nb, 'attention', 'the mask applied after the softmax (w * mask), not renormalised', """
def my_attention(q, k, v, mask=None):
    w = (q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])).softmax(dim=-1)
    if mask is not None: w = w * mask
    return w @ v, w""")
A(nb, 'attention', 'softmax over all keys, then masked and renormalised (underflows when a masked key dominates)', """
def my_attention(q, k, v, mask=None):
    w = (q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])).softmax(dim=-1)
    if mask is not None:
        w = w * mask
        w = w / w.sum(-1, keepdim=True).clamp_min(1e-12)
    return w @ v, w""")
A(nb, 'attention', "F.dropout(w, 0.1) left in (training=True by default)", R(ATT,
    'return w @ v, w', 'w = F.dropout(w, 0.1)\n    return w @ v, w'))
A(nb, 'attention', 'computed in float64 for stability and returned so', R(ATT,
    'q @ k.transpose(-2, -1)', 'q.double() @ k.double().transpose(-2, -1)').replace('return w @ v, w', 'return w @ v.double(), w'))
A(nb, 'attention', 'the mask reshaped with view(scores.shape): a broadcast mask refused', R(ATT,
    "if mask is not None: s = s.masked_fill(~mask, float('-inf'))",
    "if mask is not None: mask = mask.view(s.shape); s = s.masked_fill(~mask, float('-inf'))"))
A(nb, 'attention', "einsum with 3-d letters ('bqd,bkd->bqk')", """
def my_attention(q, k, v, mask=None):
    s = torch.einsum('bqd,bkd->bqk', q, k) / math.sqrt(q.shape[-1])
    if mask is not None: s = s.masked_fill(~mask, float('-inf'))
    w = s.softmax(dim=-1)
    if mask is not None: w = w.masked_fill(~mask, 0.0)
    return torch.einsum('bqk,bkd->bqd', w, v), w""")
A(nb, 'attention', '-1e9 fill, fully masked queries zeroed by mask.any: wrong when scores fall below -1e9', """
def my_attention(q, k, v, mask=None):
    s = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if mask is None: w = s.softmax(dim=-1)
    else: w = s.masked_fill(~mask, -1e9).softmax(dim=-1) * mask.any(-1, keepdim=True)
    return w @ v, w""")

# 01_attention: restricted_mask
RM = """
def restricted_mask(n, r):
    i = torch.arange(n)
    return ((i[:, None] - i[None, :]).abs() <= r // 2)[None, None]"""
A(nb, 'restricted_mask', None, RM)
A(nb, 'restricted_mask', '(r - 1) // 2 each side: an even r one key short each side', R(RM, 'r // 2', '(r - 1) // 2'))
A(nb, 'restricted_mask', 'a float band (ones().triu().tril()), not bool', """
def restricted_mask(n, r):
    return torch.ones(n, n).triu(-(r // 2)).tril(r // 2)[None, None]""")
A(nb, 'restricted_mask', 'shape (1, n, n): one leading axis', R(RM, '[None, None]', '[None]'))
A(nb, 'restricted_mask', 'strict |i - j| < r // 2', R(RM, '<= r // 2', '< r // 2'))
A(nb, 'restricted_mask', 'the r previous keys (a causal local window): 0 <= i - j < r', """
def restricted_mask(n, r):
    i = torch.arange(n)
    d = i[:, None] - i[None, :]
    return ((d >= 0) & (d < r))[None, None]""")
A(nb, 'restricted_mask', "j - i >= -r // 2: Python's floor of -r/2, one more key on the left for an odd r", """
def restricted_mask(n, r):
    i = torch.arange(n)
    d = i[None, :] - i[:, None]
    return ((d >= -r // 2) & (d <= r // 2))[None, None]""")
A(nb, 'restricted_mask', 'arange in int8: n past 127 wraps', R(RM, 'torch.arange(n)', 'torch.arange(n, dtype=torch.int8)'))
A(nb, 'restricted_mask', "a uint8 mask (.byte(), old PyTorch's masked_fill)", R(RM, '[None, None]', '.byte()[None, None]'))
A(nb, 'restricted_mask', 'cached by n: a second call with another r gets the first mask', """
def restricted_mask(n, r, _cache={}):
    if n not in _cache:
        i = torch.arange(n)
        _cache[n] = ((i[:, None] - i[None, :]).abs() <= r // 2)[None, None]
    return _cache[n]""")
A(nb, 'restricted_mask', 'ceil(r / 2) each side: an odd r one key wider each side', R(RM, 'r // 2', '(r + 1) // 2'))

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
A(nb, 'heads', 'split viewed straight as (B, h, n, d), no transpose; merge its inverse', """
def split_heads(x, h):
    B, n, hd = x.shape
    return x.reshape(B, h, n, hd // h)
def merge_heads(x):
    B, h, n, d = x.shape
    return x.reshape(B, n, h * d)
""")
A(nb, 'heads', 'unflatten(-1, (-1, h)): heads interleaved (feature j to head j % h)', """
def split_heads(x, h):
    return x.unflatten(-1, (-1, h)).permute(0, 3, 1, 2)
def merge_heads(x):
    return x.permute(0, 2, 3, 1).flatten(2)
""")
A(nb, 'heads', 'torch.stack(x.split(h, -1), 1): chunks of size h, not h chunks', """
def split_heads(x, h):
    return torch.stack(x.split(h, -1), 1)
""" + MERGE)
A(nb, 'heads', 'merge by view after the transpose (not contiguous)', SPLIT + """
def merge_heads(x):
    B, h, n, d = x.shape
    return x.transpose(1, 2).view(B, n, h * d)
""")
A(nb, 'heads', 'merge by torch.cat(list(x), -1): the batch axis iterated, not the heads', SPLIT + """
def merge_heads(x):
    return torch.cat(list(x), -1)
""")
A(nb, 'heads', 'merge with transpose(-2, -1): n and d swapped before the reshape', SPLIT + """
def merge_heads(x):
    B, h, n, d = x.shape
    return x.transpose(-2, -1).reshape(B, n, h * d)
""")
A(nb, 'heads', 'merge reshaped without the transpose', SPLIT + """
def merge_heads(x):
    B, h, n, d = x.shape
    return x.reshape(B, n, h * d)
""")
A(nb, 'heads', 'split permute(0, 2, 3, 1): (B, h, d, n)', """
def split_heads(x, h):
    B, n, hd = x.shape
    return x.view(B, n, h, hd // h).permute(0, 2, 3, 1)
def merge_heads(x):
    B, h, d, n = x.shape
    return x.permute(0, 3, 1, 2).reshape(B, n, h * d)
""")
A(nb, 'heads', 'merge reads B and n saved by the last split', """
_saved = {}
def split_heads(x, h):
    B, n, hd = x.shape
    _saved['B'], _saved['n'] = B, n
    return x.view(B, n, h, hd // h).transpose(1, 2)
def merge_heads(x):
    return x.transpose(1, 2).reshape(_saved['B'], _saved['n'], -1)
""")
A(nb, 'heads', 'h read as the head size: view(B, n, -1, h)', """
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
A(nb, 'LoopMHA', 'load_from copies the weights, not the heads\' biases', R(LOOP,
    'lin.weight.copy_(W.weight[rows]); lin.bias.copy_(W.bias[rows])', 'lin.weight.copy_(W.weight[rows])'))
A(nb, 'LoopMHA', "W^O's bias not copied (its weight only)", R(LOOP,
    'self.w_o.load_state_dict(mha.w_o.state_dict())', 'self.w_o.weight.copy_(mha.w_o.weight)'))
A(nb, 'LoopMHA', 'the (B, 1, n_q, n_k) mask passed whole to 3-d heads', R(LOOP, 'mask[:, 0]', 'mask'))
A(nb, 'LoopMHA', 'keys and values from x even when mem is given', R(LOOP, 'k(mem), v(mem)', 'k(x), v(x)'))
A(nb, 'LoopMHA', 'values from x, keys from mem', R(LOOP, 'k(mem), v(mem)', 'k(mem), v(x)'))
A(nb, 'LoopMHA', 'the heads in plain Python lists: not registered as parameters', R(LOOP,
    'heads = lambda: nn.ModuleList(nn.Linear(d_model, self.d_k) for _ in range(h))',
    'heads = lambda: [nn.Linear(d_model, self.d_k) for _ in range(h)]'))
A(nb, 'LoopMHA', 'scaled by 1/sqrt(d_model), not 1/sqrt(d_k)', R(LOOP,
    'attention(q(x), k(mem), v(mem), m)[0]', 'attention(q(x), k(mem), v(mem), m, scale=1 / math.sqrt(self.h * self.d_k))[0]'))
A(nb, 'LoopMHA', 'heads stacked on a last axis and flattened: the features interleaved', R(LOOP,
    'torch.cat(heads, -1)', 'torch.stack(heads, -1).flatten(-2)'))
A(nb, 'LoopMHA', 'attention dropout 0.1 (the module in training mode by default)', R(R(LOOP,
    'self.w_o = nn.Linear(h * self.d_k, d_model)', 'self.w_o = nn.Linear(h * self.d_k, d_model); self.drop = nn.Dropout(0.1)'),
    'attention(q(x), k(mem), v(mem), m)[0]', 'attention(q(x), k(mem), v(mem), m, dropout=self.drop)[0]'))
A(nb, 'LoopMHA', 'forward(x, mask=None, mem=None): the arguments in another order', R(LOOP,
    'def forward(self, x, mem=None, mask=None)', 'def forward(self, x, mask=None, mem=None)'))
A(nb, 'LoopMHA', "mask[0]: the first sentence's mask for the whole batch", R(LOOP, 'mask[:, 0]', 'mask[0]'))
A(nb, 'LoopMHA', 'load_from without no_grad: copy_ into a leaf that requires grad', R(LOOP, '    @torch.no_grad()\n', ''))

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
A(nb, 'conv_to_ffn', "the weights transposed (.T), the paper's W layout", R(CONV, 'c.weight[:, :, 0]', 'c.weight[:, :, 0].T'))
A(nb, 'conv_to_ffn', 'd_model and d_ff read from conv[2] (its (d_model, d_ff, 1)): swapped', R(CONV,
    'd_ff, d_model, _ = conv[0].weight.shape', 'd_ff, d_model, _ = conv[2].weight.shape'))
A(nb, 'conv_to_ffn', 'FeedForward() at the base sizes, the state loaded into it', """
def conv_to_ffn(conv):
    ffn = FeedForward()
    ffn.load_state_dict({'w_1.weight': conv[0].weight[:, :, 0], 'w_1.bias': conv[0].bias,
                         'w_2.weight': conv[2].weight[:, :, 0], 'w_2.bias': conv[2].bias})
    return ffn""")
A(nb, 'conv_to_ffn', 'FeedForward(d_model): d_ff left at its default 2048', R(CONV, 'FeedForward(d_model, d_ff)', 'FeedForward(d_model)'))
A(nb, 'conv_to_ffn', 'biases left at their init (zero)', R(CONV, '; lin.bias.copy_(c.bias)', ''))
A(nb, 'conv_to_ffn', 'w_2 left at its init: only the first layer copied', """
def conv_to_ffn(conv):
    d_ff, d_model, _ = conv[0].weight.shape
    ffn = FeedForward(d_model, d_ff)
    with torch.no_grad():
        ffn.w_1.weight.copy_(conv[0].weight[:, :, 0]); ffn.w_1.bias.copy_(conv[0].bias)
    return ffn""")
A(nb, 'conv_to_ffn', 'an nn.Sequential(Linear, ReLU, Linear), not a FeedForward', """
def conv_to_ffn(conv):
    d_ff, d_model, _ = conv[0].weight.shape
    ffn = nn.Sequential(nn.Linear(d_model, d_ff), nn.ReLU(), nn.Linear(d_ff, d_model))
    with torch.no_grad():
        for lin, c in zip((ffn[0], ffn[2]), (conv[0], conv[2])):
            lin.weight.copy_(c.weight[:, :, 0]); lin.bias.copy_(c.bias)
    return ffn""")
A(nb, 'conv_to_ffn', 'a FeedForward subclass whose forward calls the conv through transposes (w_1, w_2 untouched)', """
class ConvFFN(FeedForward):
    def __init__(self, conv):
        d_ff, d_model, _ = conv[0].weight.shape
        super().__init__(d_model, d_ff); self.conv = conv
    def forward(self, x): return self.conv(x.transpose(-1, -2)).transpose(-1, -2)
def conv_to_ffn(conv): return ConvFFN(conv)""")
A(nb, 'conv_to_ffn', 'copy_ without no_grad: into a leaf that requires grad', """
def conv_to_ffn(conv):
    d_ff, d_model, _ = conv[0].weight.shape
    ffn = FeedForward(d_model, d_ff)
    for lin, c in zip((ffn.w_1, ffn.w_2), (conv[0], conv[2])):
        lin.weight.copy_(c.weight[:, :, 0]); lin.bias.copy_(c.bias)
    return ffn""")
A(nb, 'conv_to_ffn', 'd_model read from the last axis (the kernel size, 1)', R(CONV,
    'd_ff, d_model, _ = conv[0].weight.shape', 'd_ff, d_model = conv[0].weight.shape[0], conv[0].weight.shape[-1]'))
A(nb, 'conv_to_ffn', 'one FeedForward per size, reused across calls', """
_ffns = {}
def conv_to_ffn(conv):
    d_ff, d_model, _ = conv[0].weight.shape
    ffn = _ffns.setdefault((d_model, d_ff), FeedForward(d_model, d_ff))
    with torch.no_grad():
        for lin, c in zip((ffn.w_1, ffn.w_2), (conv[0], conv[2])):
            lin.weight.copy_(c.weight[:, :, 0]); lin.bias.copy_(c.bias)
    return ffn""")
A(nb, 'conv_to_ffn', "squeeze_ on the conv's weights: the conv changed in place", """
def conv_to_ffn(conv):
    d_ff, d_model, _ = conv[0].weight.shape
    ffn = FeedForward(d_model, d_ff)
    with torch.no_grad():
        for lin, c in zip((ffn.w_1, ffn.w_2), (conv[0], conv[2])):
            c.weight.squeeze_(-1); lin.weight.copy_(c.weight); lin.bias.copy_(c.bias)
    return ffn""")
A(nb, 'conv_to_ffn', 'reshape to (in, out), then .T: the entries scrambled', R(CONV,
    'c.weight[:, :, 0]', 'c.weight.reshape(c.weight.shape[1], c.weight.shape[0]).T'))
A(nb, 'conv_to_ffn', 'the biases as (1, out) Parameters (c.bias[None])', """
def conv_to_ffn(conv):
    d_ff, d_model, _ = conv[0].weight.shape
    ffn = FeedForward(d_model, d_ff)
    for lin, c in zip((ffn.w_1, ffn.w_2), (conv[0], conv[2])):
        lin.weight = nn.Parameter(c.weight[:, :, 0].detach().clone()); lin.bias = nn.Parameter(c.bias.detach()[None].clone())
    return ffn""")
A(nb, 'conv_to_ffn', 'both layers copied from conv[0] when the stack is square', """
def conv_to_ffn(conv):
    d_ff, d_model, _ = conv[0].weight.shape
    ffn = FeedForward(d_model, d_ff)
    with torch.no_grad():
        src = (conv[0], conv[0]) if d_ff == d_model else (conv[0], conv[2])
        for lin, c in zip((ffn.w_1, ffn.w_2), src):
            lin.weight.copy_(c.weight[:, :, 0]); lin.bias.copy_(c.bias)
    return ffn""")
A(nb, 'conv_to_ffn', 'the weights halved (a kernel of size 1 read as two taps averaged)', R(CONV, 'c.weight[:, :, 0]', 'c.weight[:, :, 0] / 2'))
A(nb, 'conv_to_ffn', 'the ReLU written into the weights: w_1 clamped at zero', R(CONV,
    'lin.weight.copy_(c.weight[:, :, 0])', 'lin.weight.copy_(c.weight[:, :, 0].clamp_min(0) if lin is ffn.w_1 else c.weight[:, :, 0])'))
A(nb, 'conv_to_ffn', 'copied into parameters, then reset_parameters() called on each Linear', R(CONV,
    '    return ffn', '    for lin in (ffn.w_1, ffn.w_2): lin.reset_parameters()\n    return ffn'))
A(nb, 'conv_to_ffn', 'the ffn in float64 (.double(), for exactness)', R(CONV, '    return ffn', '    return ffn.double()'))
A(nb, 'conv_to_ffn', 'w_1 built in float16 to save memory', R(CONV, '    return ffn', '    ffn.w_1.half()\n    return ffn'))
