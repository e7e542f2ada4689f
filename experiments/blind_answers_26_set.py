"""The twenty-sixth blind set's answers, for the notebooks 00_core to 07_why_self_attention only, written from the
exercises' text alone: (notebook, exercise, mistake, code), the mistake None for the right answer.
`experiments/blind_answers.py 26` runs them. This set leans toward answers from a learner who skimmed only the
equation (the scale on the values, d_v or an axis of the wrong rank for d_k, the window's size for d_k), answers an
LLM typically writes (nn.Embedding anyway, `len(max(seqs))`, late-binding lambdas in a loop), off-by-one in the other
axis or the other end (a clamp to K - 1, `j > n`, an exclusive slice end, (r - 1) // 2, windows of r rows, the last
row of a loop left), keywords ignored (pad_id, FeedForward's default sizes), right values in a list, a generator, a
tuple, a NumPy array, float64 or float32, answers that break autograd (`.data`, `.item()`, `torch.no_grad`, a buffer,
`x.detach()` in the residual), state kept between calls (a cached inverse mask, a cached table, a cached FeedForward,
the longest length so far, the shape split last saw), aliasing (parameters that are views of the source's, the
caller's list or x edited in place), and other sources' conventions (Keras's (in, out) kernels, Mistral's sliding
window, T5's (1, h, n_q, n_k) position bias, tensor2tensor's timescales, the Annotated Transformer's LayerNorm and
final encoder norm, nanoGPT's last-position logits, fairseq's (ids, lengths), LLMs-from-scratch's list of heads,
Image Transformer's blocks)."""
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
A(nb, 'pad_batch', 'a list of row tensors, not one (B, n) tensor', """
def pad_batch(seqs, pad_id=PAD_ID):
    n = max(len(s) for s in seqs)
    return [torch.tensor(list(s) + [pad_id] * (n - len(s)), dtype=torch.long) for s in seqs]""")
A(nb, 'pad_batch', 'a generator of row tensors', """
def pad_batch(seqs, pad_id=PAD_ID):
    n = max(len(s) for s in seqs)
    return (torch.tensor(list(s) + [pad_id] * (n - len(s)), dtype=torch.long) for s in seqs)""")
A(nb, 'pad_batch', 'pad_id keyword ignored: always pads with PAD_ID', R(PAD, '[pad_id] *', '[PAD_ID] *'))
A(nb, 'pad_batch', 'the width len(max(seqs)): the lexicographically largest list, not the longest', R(PAD,
    'n = max(len(s) for s in seqs)', 'n = len(max(seqs))'))
A(nb, 'pad_batch', 'the rows sorted by length, longest first (a sorted batch)', R(PAD,
    '    n = max(', '    seqs = sorted(seqs, key=len, reverse=True)\n    n = max('))
A(nb, 'pad_batch', 'duplicate sentences dropped (dict.fromkeys)', R(PAD,
    '    n = max(', '    seqs = [list(t) for t in dict.fromkeys(map(tuple, seqs))]\n    n = max('))
A(nb, 'pad_batch', 'the longest length kept between calls (state): a later, shorter batch padded too wide', """
_longest = [0]
def pad_batch(seqs, pad_id=PAD_ID):
    _longest[0] = max([_longest[0]] + [len(s) for s in seqs])
    n = _longest[0]
    return torch.tensor([list(s) + [pad_id] * (n - len(s)) for s in seqs], dtype=torch.long)""")
A(nb, 'pad_batch', "fairseq-style (ids, lengths) tuple", """
def pad_batch(seqs, pad_id=PAD_ID):
    n = max(len(s) for s in seqs)
    ids = torch.tensor([list(s) + [pad_id] * (n - len(s)) for s in seqs], dtype=torch.long)
    return ids, torch.tensor([len(s) for s in seqs])""")
A(nb, 'pad_batch', 'torch.empty for the batch: the pad positions left uninitialised', """
def pad_batch(seqs, pad_id=PAD_ID):
    n = max(len(s) for s in seqs)
    out = torch.empty(len(seqs), n, dtype=torch.long)
    for i, s in enumerate(seqs): out[i, :len(s)] = torch.tensor(s, dtype=torch.long)
    return out""")
A(nb, 'pad_batch', "the caller's outer list edited: its items replaced by the padded lists", """
def pad_batch(seqs, pad_id=PAD_ID):
    n = max(len(s) for s in seqs)
    for i, s in enumerate(seqs): seqs[i] = list(s) + [pad_id] * (n - len(s))
    return torch.tensor(seqs, dtype=torch.long)""")
A(nb, 'pad_batch', "Hugging Face's truncation to max_length=8 by default", """
def pad_batch(seqs, pad_id=PAD_ID, max_length=8):
    seqs = [list(s)[:max_length] for s in seqs]
    n = max(len(s) for s in seqs)
    return torch.tensor([s + [pad_id] * (n - len(s)) for s in seqs], dtype=torch.long)""")
A(nb, 'pad_batch', 'a nested Python list of ids (tolist())', PAD + '.tolist()')
A(nb, 'pad_batch', 'float ids from torch.full with a float fill (float(pad_id))', """
def pad_batch(seqs, pad_id=PAD_ID):
    n = max(len(s) for s in seqs)
    out = torch.full((len(seqs), n), float(pad_id))
    for i, s in enumerate(seqs):
        if s: out[i, :len(s)] = torch.tensor(s, dtype=torch.float)
    return out""")

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
A(nb, 'attention', 'scaled by sqrt(d_v), the values\' size (v.shape[-1])', R(ATT, 'math.sqrt(q.shape[-1])', 'math.sqrt(v.shape[-1])'))
A(nb, 'attention', 'scaled by sqrt(q.shape[1]): axis 1, not the last', R(ATT, 'math.sqrt(q.shape[-1])', 'math.sqrt(q.shape[1])'))
A(nb, 'attention', 'the scale applied to the output (w @ v / sqrt(d_k)), the scores unscaled', """
def my_attention(q, k, v, mask=None):
    s = q @ k.transpose(-2, -1)
    if mask is not None: s = s.masked_fill(~mask, float('-inf'))
    w = s.softmax(dim=-1)
    if mask is not None: w = w.masked_fill(~mask, 0.0)
    return w @ v / math.sqrt(q.shape[-1]), w""")
A(nb, 'attention', 'weights multiplied by the mask after the softmax and renormalised (0/0 on an all-masked row)', """
def my_attention(q, k, v, mask=None):
    w = (q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])).softmax(dim=-1)
    if mask is not None:
        w = w * mask
        w = w / w.sum(-1, keepdim=True)
    return w @ v, w""")
A(nb, 'attention', 'softmax over dim=1', R(ATT, 's.softmax(dim=-1)', 's.softmax(dim=1)'))
A(nb, 'attention', 'an additive -1e9 bias from the mask, no zero fill: an all-masked row gets the unmasked softmax', """
def my_attention(q, k, v, mask=None):
    s = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if mask is not None: s = s + (mask.to(s.dtype) - 1) * 1e9
    w = s.softmax(dim=-1)
    return w @ v, w""")
A(nb, 'attention', 'the weights computed under torch.no_grad (no gradient to q and k)', """
def my_attention(q, k, v, mask=None):
    with torch.no_grad():
        s = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
        if mask is not None: s = s.masked_fill(~mask, float('-inf'))
        w = s.softmax(dim=-1)
        if mask is not None: w = w.masked_fill(~mask, 0.0)
    return w @ v, w""")
A(nb, 'attention', "k.T (NumPy's 2-d transpose): every axis reversed", R(ATT, 'k.transpose(-2, -1)', 'k.T'))
A(nb, 'attention', 'computed in float32 (.float()) whatever the inputs\' dtype', """
def my_attention(q, k, v, mask=None):
    q, k, v = q.float(), k.float(), v.float()
    s = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if mask is not None: s = s.masked_fill(~mask, float('-inf'))
    w = s.softmax(dim=-1)
    if mask is not None: w = w.masked_fill(~mask, 0.0)
    return w @ v, w""")
A(nb, 'attention', 'the weights transposed before the values (w.mT @ v): right only when n_q = n_k', R(ATT,
    'return w @ v, w', 'return w.transpose(-2, -1) @ v, w'))
A(nb, 'attention', 'the inverted mask cached by its shape (state kept between calls): a later mask of that shape ignored', """
_inverse = {}
def my_attention(q, k, v, mask=None):
    s = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if mask is not None:
        off = _inverse.setdefault(tuple(mask.shape), ~mask)
        s = s.masked_fill(off, float('-inf'))
    w = s.softmax(dim=-1)
    if mask is not None: w = w.masked_fill(off, 0.0)
    return w @ v, w""")
A(nb, 'attention', 'divided by d_k // 2 (the square root read as a half)', R(ATT,
    'math.sqrt(q.shape[-1])', '(q.shape[-1] // 2)'))

# 01_attention: restricted_mask
RM = """
def restricted_mask(n, r):
    i = torch.arange(n)
    return ((i[:, None] - i[None, :]).abs() <= r // 2)[None, None]"""
A(nb, 'restricted_mask', None, RM)
A(nb, 'restricted_mask', '(r - 1) // 2 each side: right for odd r only', R(RM, '<= r // 2', '<= (r - 1) // 2'))
A(nb, 'restricted_mask', "Mistral's sliding window: the r keys up to the query (j in (i - r, i])", """
def restricted_mask(n, r):
    i = torch.arange(n)
    d = i[:, None] - i[None, :]
    return ((d >= 0) & (d < r))[None, None]""")
A(nb, 'restricted_mask', 'a float 0/1 mask', R(RM, ')[None, None]', ').float()[None, None]'))
A(nb, 'restricted_mask', 'a nested Python list of bools (tolist())', RM + '.tolist()')
A(nb, 'restricted_mask', 'the position itself left out of its neighbourhood', """
def restricted_mask(n, r):
    i = torch.arange(n)
    d = (i[:, None] - i[None, :]).abs()
    return ((d <= r // 2) & (d != 0))[None, None]""")
A(nb, 'restricted_mask', 'exactly r keys at the ends too: the window shifted inward at the edges', """
def restricted_mask(n, r):
    w = r // 2
    i = torch.arange(n)
    start = (i - w).clamp(0, max(n - (2 * w + 1), 0))
    j = i[None, :]
    return ((j >= start[:, None]) & (j <= start[:, None] + 2 * w))[None, None]""")
A(nb, 'restricted_mask', "blocks of r positions (the Image Transformer's local blocks): i // r == j // r", """
def restricted_mask(n, r):
    i = torch.arange(n)
    return (i[:, None] // r == i[None, :] // r)[None, None]""")
A(nb, 'restricted_mask', 'a (1, n, n) mask: one leading axis', R(RM, ')[None, None]', ')[None]'))
A(nb, 'restricted_mask', 'triu/tril diagonals the other way round: tril(-w).triu(w)', """
def restricted_mask(n, r):
    w = r // 2
    return torch.ones(n, n, dtype=torch.bool).tril(-w).triu(w)[None, None]""")
A(nb, 'restricted_mask', 'int64 0/1 mask (the comparison summed into ints)', R(RM, ')[None, None]', ').long()[None, None]'))

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
A(nb, 'heads', 'split returns a tuple of h (B, n, d) heads (LLMs-from-scratch\'s list of heads)', """
def split_heads(x, h):
    return x.chunk(h, dim=-1)
def merge_heads(x):
    return torch.cat(list(x.unbind(1)) if torch.is_tensor(x) else list(x), dim=-1)
""")
A(nb, 'heads', 'merge right for one batch element only (x[0])', SPLIT + """
def merge_heads(x):
    B, h, n, d = x.shape
    return x[0].transpose(0, 1).reshape(n, h * d)[None].expand(B, n, h * d)
""")
A(nb, 'heads', 'merge transposes the last two axes (as for k^T), not (1, 2)', SPLIT + """
def merge_heads(x):
    B, h, n, d = x.shape
    return x.transpose(-1, -2).reshape(B, n, h * d)
""")
A(nb, 'heads', 'merge reshapes to the shape split last saw (state kept between calls)', """
_seen = {}
def split_heads(x, h):
    B, n, hd = x.shape
    _seen['shape'] = x.shape
    return x.view(B, n, h, hd // h).transpose(1, 2)
def merge_heads(x):
    return x.transpose(1, 2).reshape(_seen['shape'])
""")
A(nb, 'heads', 'split views (B, n, d, h) then permutes: heads take every h-th feature', """
def split_heads(x, h):
    B, n, hd = x.shape
    return x.view(B, n, hd // h, h).permute(0, 3, 1, 2)
""" + MERGE)
A(nb, 'heads', 'split returns a NumPy array (x.detach().numpy())', """
import numpy as np
def split_heads(x, h):
    B, n, hd = x.shape
    return np.ascontiguousarray(x.detach().numpy().reshape(B, n, h, hd // h).transpose(0, 2, 1, 3))
def merge_heads(x):
    x = torch.as_tensor(x)
    B, h, n, d = x.shape
    return x.transpose(1, 2).reshape(B, n, h * d)
""")
A(nb, 'heads', 'merge flattens (h, n) into one axis: (B, h n, d)', SPLIT + """
def merge_heads(x):
    return x.flatten(1, 2)
""")
A(nb, 'heads', 'split and merge in float64 (.double())', """
def split_heads(x, h):
    B, n, hd = x.shape
    return x.double().view(B, n, h, hd // h).transpose(1, 2)
def merge_heads(x):
    B, h, n, d = x.shape
    return x.transpose(1, 2).reshape(B, n, h * d).double()
""")
A(nb, 'heads', 'merge with a C-style loop that writes head i at columns i .. i + d (step 1, not d)', SPLIT + """
def merge_heads(x):
    B, h, n, d = x.shape
    out = x.new_zeros(B, n, h * d)
    for i in range(h): out[:, :, i:i + d] = x[:, i]
    return out
""")

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
A(nb, 'LoopMHA', "Keras's kernel layout: head i's weights taken as columns (W.weight[:, rows].T)", R(LOOP,
    'lin.weight.copy_(W.weight[rows])', 'lin.weight.copy_(W.weight[:, rows].T)'))
A(nb, 'LoopMHA', "W^O copied transposed (Keras's (in, out) kernel)", R(LOOP,
    'self.w_o.load_state_dict(mha.w_o.state_dict())', 'self.w_o.weight.copy_(mha.w_o.weight.T); self.w_o.bias.copy_(mha.w_o.bias)'))
A(nb, 'LoopMHA', "head 0's bias for every head (W.bias[:d_k])", R(LOOP, 'lin.bias.copy_(W.bias[rows])', 'lin.bias.copy_(W.bias[:self.d_k])'))
A(nb, 'LoopMHA', 'mask.squeeze(): the batch and query axes of size 1 squeezed too', R(LOOP,
    'mask[:, 0]', 'mask.squeeze()'))
A(nb, 'LoopMHA', 'each head scaled by sqrt(d_model), not sqrt(d_k)', R(LOOP,
    'attention(q(x), k(mem), v(mem), m)[0]', 'attention(q(x), k(mem), v(mem), m, scale=1 / math.sqrt(self.h * self.d_k))[0]'))
A(nb, 'LoopMHA', 'heads concatenated on axis 1 (the positions)', R(LOOP, 'torch.cat(heads, -1)', 'torch.cat(heads, 1)'))
A(nb, 'LoopMHA', "parameters replaced by nn.Parameter views of mha's (aliasing, no copy)", R(LOOP,
    'lin.weight.copy_(W.weight[rows]); lin.bias.copy_(W.bias[rows])',
    'lin.weight = nn.Parameter(W.weight[rows]); lin.bias = nn.Parameter(W.bias[rows])'))
A(nb, 'LoopMHA', 'forward under torch.no_grad (no gradient to the weights)', R(LOOP,
    '        mem = x if mem is None else mem\n', '        with torch.no_grad(): return self._forward(x, mem, mask)\n    def _forward(self, x, mem, mask):\n        mem = x if mem is None else mem\n'))
A(nb, 'LoopMHA', 'the mask applied in self-attention only (the cross-attention unmasked)', R(LOOP,
    'm = None if mask is None else mask[:, 0]', 'm = None if mask is None or mem is not x else mask[:, 0]'))
A(nb, 'LoopMHA', "one fused nn.Linear(d_model, 3 d_k) per head (nanoGPT's c_attn), split into q, k, v", """
class LoopMHA(nn.Module):
    def __init__(self, d_model, h):
        super().__init__()
        self.h, self.d_k = h, d_model // h
        self.qkv = nn.ModuleList(nn.Linear(d_model, 3 * self.d_k) for _ in range(h))
        self.w_o = nn.Linear(h * self.d_k, d_model)
    def forward(self, x, mem=None, mask=None):
        mem = x if mem is None else mem
        m = None if mask is None else mask[:, 0]
        heads = []
        for lin in self.qkv:
            q = lin(x).split(self.d_k, -1)[0]; _, k, v = lin(mem).split(self.d_k, -1)
            heads.append(attention(q, k, v, m)[0])
        return self.w_o(torch.cat(heads, -1))
    @torch.no_grad()
    def load_from(self, mha):
        for i in range(self.h):
            rows = slice(i * self.d_k, (i + 1) * self.d_k)
            self.qkv[i].weight.copy_(torch.cat([W.weight[rows] for W in (mha.w_q, mha.w_k, mha.w_v)]))
            self.qkv[i].bias.copy_(torch.cat([W.bias[rows] for W in (mha.w_q, mha.w_k, mha.w_v)]))
        self.w_o.load_state_dict(mha.w_o.state_dict())""")
A(nb, 'LoopMHA', 'load_from copies head i from rows i .. i + d_k (step 1)', R(LOOP,
    'rows = slice(i * self.d_k, (i + 1) * self.d_k)', 'rows = slice(i, i + self.d_k)'))

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
A(nb, 'conv_to_ffn', 'weight.squeeze(): a size-1 d_model or d_ff squeezed too', R(CONV, 'c.weight[:, :, 0]', 'c.weight.squeeze()'))
A(nb, 'conv_to_ffn', "the conv weight viewed in Keras's (in, out) order, view(in, out).T", R(CONV,
    'lin.weight.copy_(c.weight[:, :, 0])', 'lin.weight.copy_(c.weight.view(c.in_channels, c.out_channels).T)'))
A(nb, 'conv_to_ffn', 'the second conv taken as conv[1] (the ReLU)', R(CONV, '(conv[0], conv[2])', '(conv[0], conv[1])'))
A(nb, 'conv_to_ffn', 'an nn.Sequential(Linear, ReLU, Linear), not a FeedForward', """
def conv_to_ffn(conv):
    d_ff, d_model, _ = conv[0].weight.shape
    ffn = nn.Sequential(nn.Linear(d_model, d_ff), nn.ReLU(), nn.Linear(d_ff, d_model))
    with torch.no_grad():
        for lin, c in zip((ffn[0], ffn[2]), (conv[0], conv[2])):
            lin.weight.copy_(c.weight[:, :, 0]); lin.bias.copy_(c.bias)
    return ffn""")
A(nb, 'conv_to_ffn', 'd_model and d_ff read the other way from the weight (in, out)', R(CONV,
    'd_ff, d_model, _ = conv[0].weight.shape', 'd_model, d_ff, _ = conv[0].weight.shape'))
A(nb, 'conv_to_ffn', "FeedForward() with its default sizes (512, 2048)", R(CONV, 'FeedForward(d_model, d_ff)', 'FeedForward()'))
A(nb, 'conv_to_ffn', "nn.Parameter views of the conv's weights (aliasing, no copy)", """
def conv_to_ffn(conv):
    d_ff, d_model, _ = conv[0].weight.shape
    ffn = FeedForward(d_model, d_ff)
    for lin, c in zip((ffn.w_1, ffn.w_2), (conv[0], conv[2])):
        lin.weight, lin.bias = nn.Parameter(c.weight[:, :, 0]), nn.Parameter(c.bias)
    return ffn""")
A(nb, 'conv_to_ffn', "the conv's weights squeezed in place (squeeze_): the conv broken", """
def conv_to_ffn(conv):
    d_ff, d_model, _ = conv[0].weight.shape
    ffn = FeedForward(d_model, d_ff)
    with torch.no_grad():
        for lin, c in zip((ffn.w_1, ffn.w_2), (conv[0], conv[2])):
            lin.weight.copy_(c.weight.squeeze_(-1)); lin.bias.copy_(c.bias)
    return ffn""")
A(nb, 'conv_to_ffn', 'one FeedForward per size, cached and reused (state kept between calls)', """
_made = {}
def conv_to_ffn(conv):
    d_ff, d_model, _ = conv[0].weight.shape
    ffn = _made.setdefault((d_model, d_ff), FeedForward(d_model, d_ff))
    with torch.no_grad():
        for lin, c in zip((ffn.w_1, ffn.w_2), (conv[0], conv[2])):
            lin.weight.copy_(c.weight[:, :, 0]); lin.bias.copy_(c.bias)
    return ffn""")
A(nb, 'conv_to_ffn', 'the two convolutions swapped (shapes right only when d_ff = d_model)', """
def conv_to_ffn(conv):
    d_ff, d_model, _ = conv[0].weight.shape
    ffn = FeedForward(d_model, d_ff)
    with torch.no_grad():
        for lin, c in zip((ffn.w_1, ffn.w_2), (conv[2], conv[0])):
            if lin.weight.shape == c.weight.shape[:2]: lin.weight.copy_(c.weight[:, :, 0]); lin.bias.copy_(c.bias)
    return ffn""")
A(nb, 'conv_to_ffn', "a C-style loop over the output channels to d_ff - 1: the last row left", """
def conv_to_ffn(conv):
    d_ff, d_model, _ = conv[0].weight.shape
    ffn = FeedForward(d_model, d_ff)
    with torch.no_grad():
        for o in range(d_ff - 1): ffn.w_1.weight[o] = conv[0].weight[o, :, 0]
        ffn.w_1.bias.copy_(conv[0].bias)
        ffn.w_2.weight.copy_(conv[2].weight[:, :, 0]); ffn.w_2.bias.copy_(conv[2].bias)
    return ffn""")
A(nb, 'conv_to_ffn', 'the FeedForward in float64 (.double())', R(CONV, 'return ffn', 'return ffn.double()'))

# 04_embeddings: MyEmbeddings
nb = '04_embeddings'
EMB = """
class MyEmbeddings(nn.Module):
    def __init__(self, vocab, d_model, pad_id=PAD_ID):
        super().__init__()
        self.E = nn.Parameter(torch.randn(vocab, d_model) * d_model ** -0.5)
        with torch.no_grad(): self.E[pad_id] = 0.0
        self.pad_id, self.scale = pad_id, math.sqrt(d_model)
    def forward(self, tokens):
        x, pad = self.E[tokens], (tokens == self.pad_id)[..., None]
        return torch.where(pad, x.detach(), x) * self.scale"""
A(nb, 'MyEmbeddings', None, EMB)
A(nb, 'MyEmbeddings', 'N(0, 1/d_model) read as std 1/d_model', R(EMB, '* d_model ** -0.5', '/ d_model'))
A(nb, 'MyEmbeddings', 'the padding row zeroed at PAD_ID, pad_id ignored in __init__', R(EMB, 'self.E[pad_id] = 0.0', 'self.E[PAD_ID] = 0.0'))
A(nb, 'MyEmbeddings', 'the pad test in forward hard-coded to 0', R(EMB, '(tokens == self.pad_id)', '(tokens == 0)'))
A(nb, 'MyEmbeddings', 'scaled by sqrt(E.shape[0]), the vocabulary', R(EMB, '* self.scale', '* math.sqrt(self.E.shape[0])'))
A(nb, 'MyEmbeddings', 'E.data[tokens]: no gradient reaches E', R(EMB, 'self.E[tokens]', 'self.E.data[tokens]'))
A(nb, 'MyEmbeddings', 'a learnable scale, an extra parameter initialised to sqrt(d_model)', R(EMB,
    'self.pad_id, self.scale = pad_id, math.sqrt(d_model)', 'self.pad_id, self.scale = pad_id, nn.Parameter(torch.tensor(math.sqrt(d_model)))'))
A(nb, 'MyEmbeddings', 'nn.Embedding(padding_idx) anyway, as an LLM writes it', """
class MyEmbeddings(nn.Module):
    def __init__(self, vocab, d_model, pad_id=PAD_ID):
        super().__init__()
        self.embedding = nn.Embedding(vocab, d_model, padding_idx=pad_id)
        nn.init.normal_(self.embedding.weight, 0.0, d_model ** -0.5)
        with torch.no_grad(): self.embedding.weight[pad_id] = 0.0
        self.scale = math.sqrt(d_model)
    def forward(self, tokens): return self.embedding(tokens) * self.scale""")
A(nb, 'MyEmbeddings', 'the output in float64 (E made with torch.randn(..., dtype=torch.float64))', R(EMB,
    'torch.randn(vocab, d_model)', 'torch.randn(vocab, d_model, dtype=torch.float64)'))
A(nb, 'MyEmbeddings', 'the scale applied to E in place at each forward (E grows every call)', R(EMB,
    "        x, pad = self.E[tokens], (tokens == self.pad_id)[..., None]\n        return torch.where(pad, x.detach(), x) * self.scale",
    "        with torch.no_grad(): self.E.mul_(self.scale)\n        x, pad = self.E[tokens], (tokens == self.pad_id)[..., None]\n        return torch.where(pad, x.detach(), x)"))
A(nb, 'MyEmbeddings', 'the pad positions\' outputs detached as a whole (x.detach() where any token is pad)', R(EMB,
    'return torch.where(pad, x.detach(), x) * self.scale', 'return (x.detach() if pad.any() else x) * self.scale'))
A(nb, 'MyEmbeddings', 'an integer E (torch.randint) scaled by sqrt(d_model)', R(EMB,
    'torch.randn(vocab, d_model) * d_model ** -0.5', 'torch.randint(-1, 2, (vocab, d_model)).float()'))

# 05_positional_encoding: my_encoding
nb = '05_positional_encoding'
ENC = """
def my_encoding(n, d_model):
    pos = torch.arange(n, dtype=torch.float64)[:, None]
    two_i = torch.arange(0, d_model, 2, dtype=torch.float64)
    angle = pos / 10000 ** (two_i / d_model)
    pe = torch.zeros(n, d_model, dtype=torch.float64)
    pe[:, 0::2], pe[:, 1::2] = angle.sin(), angle.cos()
    return pe.float()"""
A(nb, 'my_encoding', None, ENC)
A(nb, 'my_encoding', 'integer division for 2i / d_model (arange of ints, //): every frequency 1', """
def my_encoding(n, d_model):
    pos = torch.arange(n)[:, None]
    two_i = torch.arange(0, d_model, 2)
    angle = pos / 10000 ** (two_i // d_model)
    pe = torch.zeros(n, d_model)
    pe[:, 0::2], pe[:, 1::2] = angle.sin(), angle.cos()
    return pe""")
A(nb, 'my_encoding', "tensor2tensor's timescales: log(10000) / (d/2 - 1), interleaved", """
def my_encoding(n, d_model):
    pos = torch.arange(n, dtype=torch.float64)[:, None]
    k = d_model // 2
    inv = torch.exp(-math.log(10000.0) / max(k - 1, 1) * torch.arange(k, dtype=torch.float64))
    angle = pos * inv
    pe = torch.zeros(n, d_model, dtype=torch.float64)
    pe[:, 0::2], pe[:, 1::2] = angle.sin(), angle.cos()
    return pe.float()""")
A(nb, 'my_encoding', 'a NumPy float64 array (d2l\'s NumPy version)', """
import numpy as np
def my_encoding(n, d_model):
    pos = np.arange(n)[:, None]
    angle = pos / np.power(10000, np.arange(0, d_model, 2) / d_model)
    pe = np.zeros((n, d_model))
    pe[:, 0::2], pe[:, 1::2] = np.sin(angle), np.cos(angle)
    return pe""")
A(nb, 'my_encoding', 'a nested Python list (tolist())', ENC + '.tolist()')
A(nb, 'my_encoding', 'a C-style loop over the pairs to d_model // 2 - 1: the last pair left zero', """
def my_encoding(n, d_model):
    pe = torch.zeros(n, d_model)
    for pos in range(n):
        for i in range(d_model // 2 - 1):
            pe[pos, 2 * i] = math.sin(pos / 10000 ** (2 * i / d_model))
            pe[pos, 2 * i + 1] = math.cos(pos / 10000 ** (2 * i / d_model))
    return pe""")
A(nb, 'my_encoding', 'a table cached per d_model from the first call\'s n (state kept between calls)', """
_tables = {}
def my_encoding(n, d_model):
    if d_model not in _tables:
        pos = torch.arange(n, dtype=torch.float64)[:, None]
        angle = pos / 10000 ** (torch.arange(0, d_model, 2, dtype=torch.float64) / d_model)
        pe = torch.zeros(n, d_model, dtype=torch.float64)
        pe[:, 0::2], pe[:, 1::2] = angle.sin(), angle.cos()
        _tables[d_model] = pe.float()
    return _tables[d_model][:n]""")
A(nb, 'my_encoding', 'one 512-wide table, its first d_model columns taken', """
def my_encoding(n, d_model):
    pos = torch.arange(n, dtype=torch.float64)[:, None]
    angle = pos / 10000 ** (torch.arange(0, 512, 2, dtype=torch.float64) / 512)
    pe = torch.zeros(n, 512, dtype=torch.float64)
    pe[:, 0::2], pe[:, 1::2] = angle.sin(), angle.cos()
    return pe[:, :d_model].float()""")
A(nb, 'my_encoding', 'the exponent 2i/d with i the dimension index (not the pair): 10000^(2j/d) for j = 0, 2, 4', R(ENC,
    'two_i / d_model', '2 * two_i / d_model'))
A(nb, 'my_encoding', 'sin and cos of each pair stacked on a new axis then flattened the other way (pairs as blocks)', """
def my_encoding(n, d_model):
    pos = torch.arange(n, dtype=torch.float64)[:, None]
    angle = pos / 10000 ** (torch.arange(0, d_model, 2, dtype=torch.float64) / d_model)
    return torch.stack([angle.sin(), angle.cos()], dim=1).reshape(n, d_model).float()""")
A(nb, 'my_encoding', 'an int64 table (torch.zeros(..., dtype=torch.long) filled)', """
def my_encoding(n, d_model):
    pos = torch.arange(n, dtype=torch.float64)[:, None]
    angle = pos / 10000 ** (torch.arange(0, d_model, 2, dtype=torch.float64) / d_model)
    pe = torch.zeros(n, d_model, dtype=torch.long)
    pe[:, 0::2], pe[:, 1::2] = angle.sin(), angle.cos()
    return pe""")

# 05_positional_encoding: RelativeBias
RB = """
class RelativeBias(nn.Module):
    def __init__(self, h, K):
        super().__init__()
        self.K = K
        self.table = nn.Parameter(torch.randn(2 * K + 1, h) * 0.02)
    def forward(self, n_q, n_k):
        offset = torch.arange(n_k)[None, :] - torch.arange(n_q)[:, None]
        return self.table[offset.clamp(-self.K, self.K) + self.K].permute(2, 0, 1)"""
A(nb, 'RelativeBias', None, RB)
A(nb, 'RelativeBias', 'the table laid out (h, 2K + 1)', """
class RelativeBias(nn.Module):
    def __init__(self, h, K):
        super().__init__()
        self.K = K
        self.table = nn.Parameter(torch.randn(h, 2 * K + 1) * 0.02)
    def forward(self, n_q, n_k):
        offset = torch.arange(n_k)[None, :] - torch.arange(n_q)[:, None]
        return self.table[:, offset.clamp(-self.K, self.K) + self.K]""")
A(nb, 'RelativeBias', 'offsets clamped to [-K, K - 1]', R(RB, 'offset.clamp(-self.K, self.K)', 'offset.clamp(-self.K, self.K - 1)'))
A(nb, 'RelativeBias', 'the distance |j - i|: both directions share a bias (rows K .. 2K only)', R(RB,
    'offset.clamp(-self.K, self.K) + self.K', 'offset.abs().clamp(max=self.K) + self.K'))
A(nb, 'RelativeBias', 'head 0\'s column for every head (right only for h = 1)', R(RB,
    '.permute(2, 0, 1)', '[..., :1].permute(2, 0, 1).expand(self.table.shape[1], -1, -1)'))
A(nb, 'RelativeBias', 'the table registered as a buffer (no gradient)', R(RB,
    'self.table = nn.Parameter(torch.randn(2 * K + 1, h) * 0.02)', "self.register_buffer('table', torch.randn(2 * K + 1, h) * 0.02)"))
A(nb, 'RelativeBias', "T5's (1, h, n_q, n_k) position bias: a leading batch axis", R(RB, '.permute(2, 0, 1)', '.permute(2, 0, 1)[None]'))
A(nb, 'RelativeBias', 'entries filled with .item() in C-style loops: no gradient to the table', """
class RelativeBias(nn.Module):
    def __init__(self, h, K):
        super().__init__()
        self.K = K
        self.table = nn.Parameter(torch.randn(2 * K + 1, h) * 0.02)
    def forward(self, n_q, n_k):
        h = self.table.shape[1]
        out = torch.zeros(h, n_q, n_k)
        for hh in range(h):
            for i in range(n_q):
                for j in range(n_k): out[hh, i, j] = self.table[min(max(j - i, -self.K), self.K) + self.K, hh].item()
        return out""")
A(nb, 'RelativeBias', 'forward(n_q, n_k) returns (n_q, n_k, h): no permute', R(RB, '.permute(2, 0, 1)', ''))
A(nb, 'RelativeBias', 'the offsets from arange(n_q) for both axes, reshaped to (n_q, n_k) (square inputs only)', R(RB,
    'offset = torch.arange(n_k)[None, :] - torch.arange(n_q)[:, None]',
    'offset = torch.arange(max(n_q, n_k))[None, :] - torch.arange(max(n_q, n_k))[:, None]; offset = offset[:n_q, :n_k] if n_q <= n_k else offset[-n_q:, -n_k:]'))
A(nb, 'RelativeBias', 'the bias computed under torch.no_grad (a constant bias)', R(RB,
    '        return self.table[', '        with torch.no_grad(): return self.table['))
A(nb, 'RelativeBias', 'offsets from float aranges (arange(n, dtype=torch.float32)): float indices', R(RB,
    'offset = torch.arange(n_k)[None, :] - torch.arange(n_q)[:, None]',
    'offset = torch.arange(n_k, dtype=torch.float32)[None, :] - torch.arange(n_q, dtype=torch.float32)[:, None]'))

# 06_model: MySublayer
nb = '06_model'
SUB = """
class MySublayer(nn.Module):
    def __init__(self, d_model, p_drop):
        super().__init__()
        self.norm, self.drop = nn.LayerNorm(d_model), nn.Dropout(p_drop)
    def forward(self, x, f):
        return self.norm(x + self.drop(f(x)))"""
A(nb, 'MySublayer', None, SUB)
A(nb, 'MySublayer', "the Annotated Transformer's LayerNorm: unbiased std, eps added to the std", """
class MySublayer(nn.Module):
    def __init__(self, d_model, p_drop):
        super().__init__()
        self.a, self.b, self.drop = nn.Parameter(torch.ones(d_model)), nn.Parameter(torch.zeros(d_model)), nn.Dropout(p_drop)
    def forward(self, x, f):
        y = x + self.drop(f(x))
        return self.a * (y - y.mean(-1, keepdim=True)) / (y.std(-1, keepdim=True) + 1e-6) + self.b""")
A(nb, 'MySublayer', 'F.layer_norm without gain and bias (no parameters)', """
class MySublayer(nn.Module):
    def __init__(self, d_model, p_drop):
        super().__init__()
        self.d_model, self.drop = d_model, nn.Dropout(p_drop)
    def forward(self, x, f):
        return F.layer_norm(x + self.drop(f(x)), (self.d_model,))""")
A(nb, 'MySublayer', 'statistics over the positions and features together ((-2, -1))', """
class MySublayer(nn.Module):
    def __init__(self, d_model, p_drop):
        super().__init__()
        self.norm, self.drop = nn.LayerNorm(d_model), nn.Dropout(p_drop)
    def forward(self, x, f):
        y = x + self.drop(f(x))
        mu, var = y.mean((-2, -1), keepdim=True), y.var((-2, -1), keepdim=True, unbiased=False)
        return (y - mu) / (var + self.norm.eps).sqrt() * self.norm.weight + self.norm.bias""")
A(nb, 'MySublayer', "Keras's BatchNorm over the batch and positions", """
class MySublayer(nn.Module):
    def __init__(self, d_model, p_drop):
        super().__init__()
        self.norm, self.drop = nn.BatchNorm1d(d_model), nn.Dropout(p_drop)
    def forward(self, x, f):
        return self.norm((x + self.drop(f(x))).transpose(1, 2)).transpose(1, 2)""")
A(nb, 'MySublayer', 'x.detach() in the residual: no gradient through the skip', R(SUB, 'self.norm(x + ', 'self.norm(x.detach() + '))
A(nb, 'MySublayer', "x += ...: the caller's x changed in place", """
class MySublayer(nn.Module):
    def __init__(self, d_model, p_drop):
        super().__init__()
        self.norm, self.drop = nn.LayerNorm(d_model), nn.Dropout(p_drop)
    def forward(self, x, f):
        y = self.drop(f(x))
        x += y
        return self.norm(x)""")
A(nb, 'MySublayer', 'LayerNorm(d_model, elementwise_affine=False) and a scalar gain', """
class MySublayer(nn.Module):
    def __init__(self, d_model, p_drop):
        super().__init__()
        self.norm, self.drop = nn.LayerNorm(d_model, elementwise_affine=False), nn.Dropout(p_drop)
        self.g = nn.Parameter(torch.ones(()))
    def forward(self, x, f):
        return self.g * self.norm(x + self.drop(f(x)))""")
A(nb, 'MySublayer', 'the branch computed under torch.no_grad (no gradient to f)', """
class MySublayer(nn.Module):
    def __init__(self, d_model, p_drop):
        super().__init__()
        self.norm, self.drop = nn.LayerNorm(d_model), nn.Dropout(p_drop)
    def forward(self, x, f):
        with torch.no_grad(): y = f(x)
        return self.norm(x + self.drop(y))""")
A(nb, 'MySublayer', "dropout on f's input (f(drop(x))), not its output", R(SUB, 'x + self.drop(f(x))', 'x + f(self.drop(x))'))
A(nb, 'MySublayer', 'the LayerNorm in float64, returned in float64', """
class MySublayer(nn.Module):
    def __init__(self, d_model, p_drop):
        super().__init__()
        self.norm, self.drop = nn.LayerNorm(d_model).double(), nn.Dropout(p_drop)
    def forward(self, x, f):
        return self.norm((x + self.drop(f(x))).double())""")

# 06_model: my_forward
FWD = """
def my_forward(model, src, tgt):
    def residual(norm, x, f): return norm(x + f(x))
    src_mask, tgt_mask = pad_mask(src), make_tgt_mask(tgt)
    x = model.src_pos(model.src_emb(src))
    for l in model.encoder:
        x = residual(l.sub[0].norm, x, lambda t: l.self_attn(t, mask=src_mask))
        x = residual(l.sub[1].norm, x, l.ffn)
    z = x
    y = model.tgt_pos(model.tgt_emb(tgt))
    for l in model.decoder:
        y = residual(l.sub[0].norm, y, lambda t: l.self_attn(t, mask=tgt_mask))
        y = residual(l.sub[1].norm, y, lambda t: l.cross_attn(t, z, mask=src_mask))
        y = residual(l.sub[2].norm, y, l.ffn)
    return model.generator(y)"""
A(nb, 'my_forward', None, FWD)
A(nb, 'my_forward', 'the embedding tables without the sqrt(d_model) (src_emb.lut)', R(R(FWD,
    'model.src_emb(src)', 'model.src_emb.lut(src)'), 'model.tgt_emb(tgt)', 'model.tgt_emb.lut(tgt)'))
A(nb, 'my_forward', "a final LayerNorm on the memory (the Annotated Transformer's Encoder.norm), the last layer's norm reused", R(FWD,
    '    z = x\n', '    z = model.encoder[-1].sub[1].norm(x)\n'))
A(nb, 'my_forward', 'the target mask causal only (no padding)', R(FWD,
    'make_tgt_mask(tgt)', 'torch.ones(tgt.shape[1], tgt.shape[1], dtype=torch.bool).tril()[None, None]'))
A(nb, 'my_forward', "nanoGPT's inference: the logits of the last position only", R(FWD, 'return model.generator(y)', 'return model.generator(y[:, [-1], :])'))
A(nb, 'my_forward', "the decoder's FFN normalised with sub[1].norm (an off-by-one in the norms)", R(FWD,
    'residual(l.sub[2].norm, y, l.ffn)', 'residual(l.sub[1].norm, y, l.ffn)'))
A(nb, 'my_forward', 'the cross-attention unmasked (mask=None)', R(FWD, 'l.cross_attn(t, z, mask=src_mask)', 'l.cross_attn(t, z)'))
A(nb, 'my_forward', "late-binding lambdas built in a loop: every sub-layer calls the last layer's parts", """
def my_forward(model, src, tgt):
    src_mask, tgt_mask = pad_mask(src), make_tgt_mask(tgt)
    enc = []
    for l in model.encoder:
        enc.append((l.sub[0].norm, lambda t: l.self_attn(t, mask=src_mask)))
        enc.append((l.sub[1].norm, lambda t: l.ffn(t)))
    x = model.src_pos(model.src_emb(src))
    for norm, f in enc: x = norm(x + f(x))
    z, dec = x, []
    for l in model.decoder:
        dec.append((l.sub[0].norm, lambda t: l.self_attn(t, mask=tgt_mask)))
        dec.append((l.sub[1].norm, lambda t: l.cross_attn(t, z, mask=src_mask)))
        dec.append((l.sub[2].norm, lambda t: l.ffn(t)))
    y = model.tgt_pos(model.tgt_emb(tgt))
    for norm, f in dec: y = norm(y + f(y))
    return model.generator(y)""")
A(nb, 'my_forward', 'the positions added twice (src_pos applied to its own output)', R(FWD,
    'x = model.src_pos(model.src_emb(src))', 'x = model.src_pos(model.src_pos(model.src_emb(src)))'))
A(nb, 'my_forward', 'the decoder layers run in reverse order (decoder[::-1])', R(FWD, 'for l in model.decoder:', 'for l in list(model.decoder)[::-1]:'))
A(nb, 'my_forward', 'the logits returned as float64 (.double())', R(FWD, 'return model.generator(y)', 'return model.generator(y).double()'))
A(nb, 'my_forward', 'the source padding mask built with pad id 1 (the fairseq dictionary\'s pad)', R(FWD,
    'src_mask, tgt_mask = pad_mask(src), make_tgt_mask(tgt)', 'src_mask, tgt_mask = pad_mask(src, 1), make_tgt_mask(tgt)'))

# 06_model: parsing_counts
PC = """
def parsing_counts():
    cfg = TransformerConfig(N=4, d_model=1024, src_vocab=16000, tgt_vocab=16000)
    with torch.device('meta'): tied = count_params(Transformer(cfg))
    return tied, tied + 2 * 16000 * 1024"""
A(nb, 'parsing_counts', None, PC)
A(nb, 'parsing_counts', 'd_ff scaled with d_model: 4096', R(PC, 'tgt_vocab=16000)', 'tgt_vocab=16000, d_ff=4096)'))
A(nb, 'parsing_counts', 'untied: one more matrix (the output layer), the two embeddings still shared', R(PC,
    'tied + 2 * 16000 * 1024', 'tied + 16000 * 1024'))
A(nb, 'parsing_counts', 'untied: three more matrices (all three counted as new)', R(PC, 'tied + 2 * 16000 * 1024', 'tied + 3 * 16000 * 1024'))
A(nb, 'parsing_counts', 'counted over state_dict(): the tied matrix three times', """
def parsing_counts():
    cfg = TransformerConfig(N=4, d_model=1024, src_vocab=16000, tgt_vocab=16000)
    with torch.device('meta'): m = Transformer(cfg)
    tied = sum(t.numel() for k, t in m.state_dict().items() if not k.endswith('pe'))
    return tied, tied + 2 * 16000 * 1024""")
A(nb, 'parsing_counts', 'N=2: four layers in all (two per stack)', R(PC, 'N=4', 'N=2'))
A(nb, 'parsing_counts', 'the 16K vocabulary as 16 * 1000 for the model and 16384 for the untied matrices', R(PC,
    'tied + 2 * 16000 * 1024', 'tied + 2 * 16384 * 1024'))
A(nb, 'parsing_counts', "the big model's sizes: d_ff 4096 and h 16", R(PC, 'tgt_vocab=16000)', 'tgt_vocab=16000, d_ff=4096, h=16)'))
A(nb, 'parsing_counts', 'a generator of the two counts', R(PC, 'return tied, tied + 2 * 16000 * 1024', 'return (c for c in (tied, tied + 2 * 16000 * 1024))'))
A(nb, 'parsing_counts', 'counts as float tensors (torch.tensor of the sums)', R(PC,
    'return tied, tied + 2 * 16000 * 1024', 'return torch.tensor(float(tied)), torch.tensor(float(tied + 2 * 16000 * 1024))'))
A(nb, 'parsing_counts', 'the encoder only (a parser as an encoder with a classifier)', """
def parsing_counts():
    cfg = TransformerConfig(N=4, d_model=1024, src_vocab=16000, tgt_vocab=16000)
    with torch.device('meta'): m = Transformer(cfg)
    tied = count_params(m.encoder) + count_params(m.src_emb)
    return tied, tied + 16000 * 1024""")

# 07_why_self_attention: restricted_attention
nb = '07_why_self_attention'
RA = """
def restricted_attention(q, k, v, r):
    n, w = q.shape[-2], r // 2
    win = lambda t: F.pad(t, (0, 0, w, w)).unfold(-2, 2 * w + 1, 1)
    s = torch.einsum('bhnd,bhndw->bhnw', q, win(k)) / q.shape[-1] ** 0.5
    j = torch.arange(n)[:, None] + torch.arange(-w, w + 1)
    s = s.masked_fill((j < 0) | (j >= n), float('-inf'))
    return torch.einsum('bhnw,bhndw->bhnd', s.softmax(-1), win(v))"""
A(nb, 'restricted_attention', None, RA)
A(nb, 'restricted_attention', 'scaled by sqrt(2w + 1), the window, not sqrt(d_k)', R(RA, 'q.shape[-1] ** 0.5', '(2 * w + 1) ** 0.5'))
A(nb, 'restricted_attention', 'windows of r rows (unfold(-2, r, 1)): even r off by one', """
def restricted_attention(q, k, v, r):
    n, w = q.shape[-2], r // 2
    win = lambda t: F.pad(t, (0, 0, w, w)).unfold(-2, r, 1)[..., :n, :, :]
    s = torch.einsum('bhnd,bhndw->bhnw', q, win(k)) / q.shape[-1] ** 0.5
    j = torch.arange(n)[:, None] + torch.arange(-w, -w + r)
    s = s.masked_fill((j < 0) | (j >= n), float('-inf'))
    return torch.einsum('bhnw,bhndw->bhnd', s.softmax(-1), win(v))""")
A(nb, 'restricted_attention', "Mistral's sliding window: the 2w + 1 keys up to the query (causal)", """
def restricted_attention(q, k, v, r):
    n, w = q.shape[-2], r // 2
    win = lambda t: F.pad(t, (0, 0, 2 * w, 0)).unfold(-2, 2 * w + 1, 1)
    s = torch.einsum('bhnd,bhndw->bhnw', q, win(k)) / q.shape[-1] ** 0.5
    j = torch.arange(n)[:, None] + torch.arange(-2 * w, 1)
    s = s.masked_fill(j < 0, float('-inf'))
    return torch.einsum('bhnw,bhndw->bhnd', s.softmax(-1), win(v))""")
A(nb, 'restricted_attention', 'a loop over the queries with the slice k[i - w : i + w] (the right end exclusive)', """
def restricted_attention(q, k, v, r):
    n, w = q.shape[-2], r // 2
    out = []
    for i in range(n):
        lo, hi = max(i - w, 0), min(i + w, n)
        s = q[..., i:i + 1, :] @ k[..., lo:hi, :].transpose(-2, -1) / q.shape[-1] ** 0.5
        out.append(s.softmax(-1) @ v[..., lo:hi, :])
    return torch.cat(out, -2)""")
A(nb, 'restricted_attention', 'returns (output, windowed weights), as attention does', R(RA,
    "    return torch.einsum('bhnw,bhndw->bhnd', s.softmax(-1), win(v))",
    "    p = s.softmax(-1)\n    return torch.einsum('bhnw,bhndw->bhnd', p, win(v)), p"))
A(nb, 'restricted_attention', 'the padded rows masked with j > n (the last padded row kept)', R(RA, '(j >= n)', '(j > n)'))
A(nb, 'restricted_attention', 'softmax over the queries (dim=-2)', R(RA, 's.softmax(-1)', 's.softmax(-2)'))
A(nb, 'restricted_attention', 'the first head only, broadcast to every head (right for h = 1)', R(RA,
    "    n, w = q.shape[-2], r // 2\n", "    H = q.shape[1]\n    q, k, v = q[:, :1], k[:, :1], v[:, :1]\n    n, w = q.shape[-2], r // 2\n").replace(
    "    return torch.einsum('bhnw,bhndw->bhnd', s.softmax(-1), win(v))",
    "    return torch.einsum('bhnw,bhndw->bhnd', s.softmax(-1), win(v)).expand(-1, H, -1, -1)"))
A(nb, 'restricted_attention', "unfold's (d, window) layout reshaped, not transposed, to (window, d)", """
def restricted_attention(q, k, v, r):
    B, h, n, d = q.shape
    w = r // 2
    win = lambda t: F.pad(t, (0, 0, w, w)).unfold(-2, 2 * w + 1, 1).reshape(B, h, n, 2 * w + 1, d)
    s = torch.einsum('bhnd,bhnwd->bhnw', q, win(k)) / d ** 0.5
    j = torch.arange(n)[:, None] + torch.arange(-w, w + 1)
    s = s.masked_fill((j < 0) | (j >= n), float('-inf'))
    return torch.einsum('bhnw,bhnwd->bhnd', s.softmax(-1), win(v))""")
A(nb, 'restricted_attention', 'w = (r - 1) // 2: right for odd r only', R(RA, 'n, w = q.shape[-2], r // 2', 'n, w = q.shape[-2], (r - 1) // 2'))
A(nb, 'restricted_attention', 'q.view(-1, n, d): relies on a contiguous input', """
def restricted_attention(q, k, v, r):
    B, h, n, d = q.shape
    w = r // 2
    q, k, v = (t.view(B * h, n, d) for t in (q, k, v))
    win = lambda t: F.pad(t, (0, 0, w, w)).unfold(-2, 2 * w + 1, 1)
    s = torch.einsum('xnd,xndw->xnw', q, win(k)) / d ** 0.5
    j = torch.arange(n)[:, None] + torch.arange(-w, w + 1)
    s = s.masked_fill((j < 0) | (j >= n), float('-inf'))
    return torch.einsum('xnw,xndw->xnd', s.softmax(-1), win(v)).view(B, h, n, d)""")
A(nb, 'restricted_attention', 'the padded rows filled with -1e4 (a float16 habit): their weight e^-1e4 is 0 only when scores are small', R(RA,
    "s.masked_fill((j < 0) | (j >= n), float('-inf'))", "s.masked_fill((j < 0) | (j >= n), -1e4)"))
A(nb, 'restricted_attention', 'returned in float64 (einsum after .double())', R(RA,
    "s.softmax(-1), win(v))", "s.softmax(-1).double(), win(v).double())"))
