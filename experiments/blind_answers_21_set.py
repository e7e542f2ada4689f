"""The twenty-first blind set's answers, for the notebooks 00_core to 07_why_self_attention only, written from the
exercises' text alone: (notebook, exercise, mistake, code), the mistake None for the right answer.
`experiments/blind_answers.py 21` runs them. This set leans toward what a careful learner still gets wrong: subtle
numerics (d_k ** (1 // 2), d_model ** 1/2, an int scale, integer division in the exponent, log10 for the natural log,
Hugging Face's additive -10000 mask, a bool mask added to the scores, float32 or float16 arithmetic on float64 inputs),
the text read slightly wrong (inclusive and exclusive bounds, 1-based positions, (r - 1) // 2, clipping to K - 1,
an argument read from its name: h as the head size, K as the table's size), shapes right but values permuted (a
transposed W^O, (h, n_k, n_q), swapped norms, the encoder's layers reversed, a transposed encoding), answers right only
on some sizes (n_q = n_k, n = d_model, d_k = 2w + 1, d_ff = d_model, a perfect-square d_model, 3-d inputs), global
state changed (the default dtype, the seed, grad mode, train mode), inputs edited in place, and other sources'
conventions (fairseq's pad index 1 and (B*h, n, d) heads, GPT-2's (B, h, d, n) keys and 0.02 init, Mistral's causal
sliding window, ALiBi, the Annotated Transformer's LayerNorm and div_term, LLaMA's RMSNorm, Keras's (d_model, vocab)
table and epsilon, Hugging Face's shifted targets and truncation, state_dict counts) and right values in the wrong
container, dtype or shape."""
ANSWERS = []
def A(nb, ex, mistake, code): ANSWERS.append((nb, ex, mistake, code))

# 00_core: pad_batch
nb = '00_core'
PAD = """
def pad_batch(seqs, pad_id=PAD_ID):
    n = max(len(s) for s in seqs)
    return torch.tensor([list(s) + [pad_id] * (n - len(s)) for s in seqs], dtype=torch.long)"""
A(nb, 'pad_batch', None, PAD)
A(nb, 'pad_batch', "fairseq's pad index as the default (pad_id=1)", PAD.replace('pad_id=PAD_ID', 'pad_id=1'))
A(nb, 'pad_batch', 'changes the global default dtype (torch.set_default_dtype(torch.float64))', """
def pad_batch(seqs, pad_id=PAD_ID):
    torch.set_default_dtype(torch.float64)
    n = max(len(s) for s in seqs)
    return torch.tensor([list(s) + [pad_id] * (n - len(s)) for s in seqs], dtype=torch.long)""")
A(nb, 'pad_batch', 'reseeds the global generator (torch.manual_seed(0))', """
def pad_batch(seqs, pad_id=PAD_ID):
    torch.manual_seed(0)
    n = max(len(s) for s in seqs)
    return torch.tensor([list(s) + [pad_id] * (n - len(s)) for s in seqs], dtype=torch.long)""")
A(nb, 'pad_batch', 'one extra pad column for an EOS to come (n = longest + 1)', PAD.replace(
    'n = max(len(s) for s in seqs)', 'n = max(len(s) for s in seqs) + 1'))
A(nb, 'pad_batch', "n read as the last index: n = longest - 1, the longest rows cut", """
def pad_batch(seqs, pad_id=PAD_ID):
    n = max(len(s) for s in seqs) - 1
    return torch.tensor([list(s)[:n] + [pad_id] * (n - len(s)) for s in seqs], dtype=torch.long)""")
A(nb, 'pad_batch', "pad_sequence(batch_first=True) with its default padding_value 0", """
from torch.nn.utils.rnn import pad_sequence
def pad_batch(seqs, pad_id=PAD_ID):
    return pad_sequence([torch.tensor(s) for s in seqs], batch_first=True)""")
A(nb, 'pad_batch', 'ids as torch.uint8: ids above 255 wrap around', PAD.replace('torch.long', 'torch.uint8'))
A(nb, 'pad_batch', "truncated to 16 tokens (Hugging Face's truncation=True, max_length=16)", """
def pad_batch(seqs, pad_id=PAD_ID):
    seqs = [list(s)[:16] for s in seqs]
    n = max(len(s) for s in seqs)
    return torch.tensor([s + [pad_id] * (n - len(s)) for s in seqs], dtype=torch.long)""")
A(nb, 'pad_batch', 'identical sentences merged (dict.fromkeys of tuples): fewer rows', """
def pad_batch(seqs, pad_id=PAD_ID):
    seqs = [list(s) for s in dict.fromkeys(map(tuple, seqs))]
    n = max(len(s) for s in seqs)
    return torch.tensor([s + [pad_id] * (n - len(s)) for s in seqs], dtype=torch.long)""")
A(nb, 'pad_batch', 'torch.empty prefilled: the pads are whatever memory held', """
def pad_batch(seqs, pad_id=PAD_ID):
    out = torch.empty(len(seqs), max(len(s) for s in seqs), dtype=torch.long)
    for i, s in enumerate(seqs): out[i, :len(s)] = torch.tensor(s, dtype=torch.long)
    return out""")
A(nb, 'pad_batch', 'a list of padded 1-d tensors, not stacked', """
def pad_batch(seqs, pad_id=PAD_ID):
    n = max(len(s) for s in seqs)
    return [torch.tensor(list(s) + [pad_id] * (n - len(s)), dtype=torch.long) for s in seqs]""")
A(nb, 'pad_batch', "time-first (n, B), pad_sequence's default layout", """
from torch.nn.utils.rnn import pad_sequence
def pad_batch(seqs, pad_id=PAD_ID):
    return pad_sequence([torch.tensor(s, dtype=torch.long) for s in seqs], padding_value=pad_id)""")
A(nb, 'pad_batch', 'every id equal to pad_id inside a sentence dropped first (pads stripped, then padded)', """
def pad_batch(seqs, pad_id=PAD_ID):
    seqs = [[t for t in s if t != pad_id] for s in seqs]
    n = max(len(s) for s in seqs)
    return torch.tensor([s + [pad_id] * (n - len(s)) for s in seqs], dtype=torch.long)""")
A(nb, 'pad_batch', 'float rows padded with F.pad(value=pad_id) and stacked: float32 ids', """
def pad_batch(seqs, pad_id=PAD_ID):
    n = max(len(s) for s in seqs)
    return torch.stack([F.pad(torch.tensor(s, dtype=torch.float), (0, n - len(s)), value=pad_id) for s in seqs])""")
A(nb, 'pad_batch', 'a length-1 batch returned as one 1-d row (seqs[0] padded, no batch axis)', """
def pad_batch(seqs, pad_id=PAD_ID):
    n = max(len(s) for s in seqs)
    rows = [list(s) + [pad_id] * (n - len(s)) for s in seqs]
    return torch.tensor(rows[0] if len(rows) == 1 else rows, dtype=torch.long)""")
A(nb, 'pad_batch', 'the padded tensor needs grad: float ids with requires_grad=True', """
def pad_batch(seqs, pad_id=PAD_ID):
    n = max(len(s) for s in seqs)
    return torch.tensor([list(s) + [pad_id] * (n - len(s)) for s in seqs], dtype=torch.float, requires_grad=True)""")

# 01_attention: my_attention, restricted_mask
nb = '01_attention'
ATT = """
def my_attention(q, k, v, mask=None):
    s = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if mask is not None: s = s.masked_fill(~mask, float('-inf'))
    w = s.softmax(dim=-1)
    if mask is not None: w = w.masked_fill(~mask, 0.0)
    return w @ v, w"""
A(nb, 'attention', None, ATT)
A(nb, 'attention', 'd_k ** (1 // 2): integer division, the exponent 0 (no scale)', ATT.replace(
    'math.sqrt(q.shape[-1])', 'q.shape[-1] ** (1 // 2)'))
A(nb, 'attention', "Hugging Face's additive mask (1 - mask) * -10000: masked keys keep a tiny weight, empty rows uniform", """
def my_attention(q, k, v, mask=None):
    s = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if mask is not None: s = s + (1.0 - mask.to(s.dtype)) * -10000.0
    w = s.softmax(dim=-1)
    return w @ v, w""")
A(nb, 'attention', 'the bool mask added to the scores (True -> +1, False -> +0)', """
def my_attention(q, k, v, mask=None):
    s = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if mask is not None: s = s + mask
    w = s.softmax(dim=-1)
    return w @ v, w""")
A(nb, 'attention', 'the scale applied after the softmax (weights / sqrt(d_k))', """
def my_attention(q, k, v, mask=None):
    s = q @ k.transpose(-2, -1)
    if mask is not None: s = s.masked_fill(~mask, float('-inf'))
    w = s.softmax(dim=-1) / math.sqrt(q.shape[-1])
    if mask is not None: w = w.masked_fill(~mask, 0.0)
    return w @ v, w""")
A(nb, 'attention', 'masked after the softmax only: the weights not renormalised', """
def my_attention(q, k, v, mask=None):
    s = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    w = s.softmax(dim=-1)
    if mask is not None: w = w.masked_fill(~mask, 0.0)
    return w @ v, w""")
A(nb, 'attention', 'k.transpose(1, 2): right for (B, n, d), wrong for (B, h, n, d)', ATT.replace(
    'k.transpose(-2, -1)', 'k.transpose(1, 2)'))
A(nb, 'attention', 'torch.bmm: 3-d inputs only (batch and heads flattened nowhere)', """
def my_attention(q, k, v, mask=None):
    s = torch.bmm(q, k.transpose(1, 2)) / math.sqrt(q.shape[-1])
    if mask is not None: s = s.masked_fill(~mask, float('-inf'))
    w = s.softmax(dim=-1)
    if mask is not None: w = w.masked_fill(~mask, 0.0)
    return torch.bmm(w, v), w""")
A(nb, 'attention', 'the softmax computed in float32 (a mixed-precision habit): float64 inputs give float32', """
def my_attention(q, k, v, mask=None):
    s = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if mask is not None: s = s.masked_fill(~mask, float('-inf'))
    w = s.float().softmax(dim=-1)
    if mask is not None: w = w.masked_fill(~mask, 0.0)
    return w @ v.float(), w""")
A(nb, 'attention', "attention dropout F.dropout(w, 0.1) (training=True by default)", """
def my_attention(q, k, v, mask=None):
    s = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if mask is not None: s = s.masked_fill(~mask, float('-inf'))
    w = s.softmax(dim=-1)
    if mask is not None: w = w.masked_fill(~mask, 0.0)
    w = F.dropout(w, 0.1)
    return w @ v, w""")
A(nb, 'attention', "queries scaled in place (q /= sqrt(d_k)): the caller's q changed", """
def my_attention(q, k, v, mask=None):
    q /= math.sqrt(q.shape[-1])
    s = q @ k.transpose(-2, -1)
    if mask is not None: s = s.masked_fill(~mask, float('-inf'))
    w = s.softmax(dim=-1)
    if mask is not None: w = w.masked_fill(~mask, 0.0)
    return w @ v, w""")
A(nb, 'attention', 'grad mode switched off globally (torch.set_grad_enabled(False))', """
def my_attention(q, k, v, mask=None):
    torch.set_grad_enabled(False)
    s = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if mask is not None: s = s.masked_fill(~mask, float('-inf'))
    w = s.softmax(dim=-1)
    if mask is not None: w = w.masked_fill(~mask, 0.0)
    return w @ v, w""")
A(nb, 'attention', 'returns (weights, output): the pair the other way', ATT.replace('return w @ v, w', 'return w, w @ v'))
RM = """
def restricted_mask(n, r):
    i = torch.arange(n)
    return ((i[:, None] - i[None, :]).abs() <= r // 2)[None, None]"""
A(nb, 'restricted_mask', None, RM)
A(nb, 'restricted_mask', 'half-width (r - 1) // 2: right for odd r only', RM.replace('r // 2', '(r - 1) // 2'))
A(nb, 'restricted_mask', 'triu and tril bounds swapped: ones.triu(w).tril(-w)', """
def restricted_mask(n, r):
    w = r // 2
    return torch.ones(n, n, dtype=torch.bool).triu(w).tril(-w)[None, None]""")
A(nb, 'restricted_mask', 'diagonals range(-w, w): the last one missed (an exclusive stop)', """
def restricted_mask(n, r):
    w, m = r // 2, torch.zeros(n, n, dtype=torch.bool)
    for o in range(-w, w): m |= torch.ones(n - abs(o), dtype=torch.bool).diag(o) if abs(o) < n else False
    return m[None, None]""")
A(nb, 'restricted_mask', "Mistral's sliding window: causal, 0 <= i - j < r", """
def restricted_mask(n, r):
    i = torch.arange(n)
    d = i[:, None] - i[None, :]
    return ((d >= 0) & (d < r))[None, None]""")
A(nb, 'restricted_mask', "an additive mask (0 and -inf), as Hugging Face's 4-d masks", """
def restricted_mask(n, r):
    i = torch.arange(n)
    ok = (i[:, None] - i[None, :]).abs() <= r // 2
    return torch.zeros(n, n).masked_fill(~ok, float('-inf'))[None, None]""")
A(nb, 'restricted_mask', 'at least one neighbour on each side: r // 2 or 1 (r = 1 gives 3 keys)', RM.replace('<= r // 2', '<= (r // 2 or 1)'))

# 02_multihead: split_heads / merge_heads, LoopMHA
nb = '02_multihead'
SPLIT = """
def split_heads(x, h):
    B, n, hd = x.shape
    return x.view(B, n, h, hd // h).transpose(1, 2)"""
MERGE = """
def merge_heads(x):
    B, h, n, d = x.shape
    return x.transpose(1, 2).reshape(B, n, h * d)"""
A(nb, 'heads', None, SPLIT + MERGE)
A(nb, 'heads', 'h read as the head size d: view(B, n, -1, h)', """
def split_heads(x, h):
    B, n, hd = x.shape
    return x.view(B, n, -1, h).transpose(1, 2)""" + MERGE)
A(nb, 'heads', 'split: the chunks concatenated on axis 1 (cat, not stack): (B, h*n, d)', """
def split_heads(x, h):
    return torch.cat(x.chunk(h, -1), 1)""" + MERGE)
A(nb, 'heads', 'split returns a tuple of h (B, n, d) chunks', """
def split_heads(x, h):
    return x.chunk(h, -1)""" + """
def merge_heads(x):
    if isinstance(x, (tuple, list)): return torch.cat(x, -1)
    B, h, n, d = x.shape
    return x.transpose(1, 2).reshape(B, n, h * d)""")
A(nb, 'heads', "GPT-2's key layout (B, h, d, n): permute(0, 2, 3, 1)", """
def split_heads(x, h):
    B, n, hd = x.shape
    return x.view(B, n, h, hd // h).permute(0, 2, 3, 1)""" + """
def merge_heads(x):
    B, h, d, n = x.shape
    return x.permute(0, 3, 1, 2).reshape(B, n, h * d)""")
A(nb, 'heads', "fairseq's (B*h, n, d) layout from split", """
def split_heads(x, h):
    B, n, hd = x.shape
    return x.view(B, n, h, hd // h).transpose(1, 2).reshape(B * h, n, hd // h)""" + MERGE)
A(nb, 'heads', 'merge: the heads unbound and concatenated on the positions (cat(x.unbind(1), 1))', SPLIT + """
def merge_heads(x):
    return torch.cat(x.unbind(1), 1)""")
A(nb, 'heads', 'merge: the heads in reverse order (flip(1) before merging)', SPLIT + """
def merge_heads(x):
    B, h, n, d = x.shape
    return x.flip(1).transpose(1, 2).reshape(B, n, h * d)""")
LOOP = '''
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
        self.w_o.load_state_dict(mha.w_o.state_dict())'''
A(nb, 'LoopMHA', None, LOOP)
A(nb, 'LoopMHA', 'W^O copied transposed (square: h*d_k = d_model)', LOOP.replace(
    'self.w_o.load_state_dict(mha.w_o.state_dict())',
    'self.w_o.weight.copy_(mha.w_o.weight.T); self.w_o.bias.copy_(mha.w_o.bias)'))
A(nb, 'LoopMHA', "W^O's bias not copied", LOOP.replace(
    'self.w_o.load_state_dict(mha.w_o.state_dict())', 'self.w_o.weight.copy_(mha.w_o.weight)'))
A(nb, 'LoopMHA', 'each head scaled by 1/sqrt(d_model), not 1/sqrt(d_k)', LOOP.replace(
    'k(mem), v(mem), m)[0]', 'k(mem), v(mem), m, scale=1 / math.sqrt(self.h * self.d_k))[0]'))
A(nb, 'LoopMHA', 'the mask passed on with its head axis (B, 1, n_q, n_k) to 3-d heads', LOOP.replace(
    'm = None if mask is None else mask[:, 0]', 'm = mask'))
A(nb, 'LoopMHA', 'one ModuleList for W^Q, W^K and W^V (self.w_q = self.w_k = self.w_v)', LOOP.replace(
    'self.w_q, self.w_k, self.w_v = heads(), heads(), heads()', 'self.w_q = self.w_k = self.w_v = heads()'))
A(nb, 'LoopMHA', "attention(...)[1], the weights, taken as the head's output", LOOP.replace(
    'k(mem), v(mem), m)[0]', 'k(mem), v(mem), m)[1]'))
A(nb, 'LoopMHA', "mem = mem or x: a tensor's truth value", LOOP.replace(
    'mem = x if mem is None else mem', 'mem = mem or x'))
A(nb, 'LoopMHA', 'load_from without torch.no_grad(): copy_ into a leaf that requires grad', LOOP.replace(
    '    @torch.no_grad()\n', ''))
A(nb, 'LoopMHA', 'head rows sliced i*d_k : (i+1)*d_k - 1 (the inclusive end read as a stop)', LOOP.replace(
    'rows = slice(i * self.d_k, (i + 1) * self.d_k)', 'rows = slice(i * self.d_k, (i + 1) * self.d_k - 1)'))
A(nb, 'LoopMHA', 'heads concatenated along the positions (cat(heads, 1))', LOOP.replace(
    'torch.cat(heads, -1)', 'torch.cat(heads, 1)'))

# 03_ffn: conv_to_ffn
nb = '03_ffn'
CONV = '''
def conv_to_ffn(conv):
    d_ff, d_model, _ = conv[0].weight.shape
    ffn = FeedForward(d_model, d_ff)
    with torch.no_grad():
        for lin, c in zip((ffn.w_1, ffn.w_2), (conv[0], conv[2])):
            lin.weight.copy_(c.weight[:, :, 0]); lin.bias.copy_(c.bias)
    return ffn'''
A(nb, 'conv_to_ffn', None, CONV)
A(nb, 'conv_to_ffn', 'weights squeezed with squeeze(): a size-1 axis of d_model or d_ff goes too', CONV.replace(
    'c.weight[:, :, 0]', 'c.weight.squeeze()'))
A(nb, 'conv_to_ffn', 'weight reshaped to (in, out) then transposed: the entries scrambled', CONV.replace(
    'c.weight[:, :, 0]', 'c.weight.reshape(c.weight.shape[1], c.weight.shape[0]).T'))
A(nb, 'conv_to_ffn', 'an nn.Sequential of Linear, ReLU, Linear, not a FeedForward', '''
def conv_to_ffn(conv):
    d_ff, d_model, _ = conv[0].weight.shape
    ffn = nn.Sequential(nn.Linear(d_model, d_ff), nn.ReLU(), nn.Linear(d_ff, d_model))
    with torch.no_grad():
        for lin, c in zip((ffn[0], ffn[2]), (conv[0], conv[2])):
            lin.weight.copy_(c.weight[:, :, 0]); lin.bias.copy_(c.bias)
    return ffn''')
A(nb, 'conv_to_ffn', 'weights assigned, not copied: lin.weight = c.weight[..., 0] (a plain tensor)', '''
def conv_to_ffn(conv):
    d_ff, d_model, _ = conv[0].weight.shape
    ffn = FeedForward(d_model, d_ff)
    for lin, c in zip((ffn.w_1, ffn.w_2), (conv[0], conv[2])):
        lin.weight = c.weight[..., 0]; lin.bias = c.bias
    return ffn''')
A(nb, 'conv_to_ffn', "the input convolutions' weights squeezed in place (squeeze_)", '''
def conv_to_ffn(conv):
    d_ff, d_model, _ = conv[0].weight.shape
    ffn = FeedForward(d_model, d_ff)
    with torch.no_grad():
        for lin, c in zip((ffn.w_1, ffn.w_2), (conv[0], conv[2])):
            lin.weight.copy_(c.weight.squeeze_(-1)); lin.bias.copy_(c.bias)
    return ffn''')
A(nb, 'conv_to_ffn', "d_ff read from the second convolution's out channels (that is d_model)", CONV.replace(
    'd_ff, d_model, _ = conv[0].weight.shape', 'd_model, d_ff = conv[0].weight.shape[1], conv[2].weight.shape[0]'))
A(nb, 'conv_to_ffn', 'the biases swapped between the layers (conv[2].bias into w_1)', '''
def conv_to_ffn(conv):
    d_ff, d_model, _ = conv[0].weight.shape
    ffn = FeedForward(d_model, d_ff)
    with torch.no_grad():
        ffn.w_1.weight.copy_(conv[0].weight[:, :, 0]); ffn.w_2.weight.copy_(conv[2].weight[:, :, 0])
        ffn.w_1.bias.copy_(conv[2].bias); ffn.w_2.bias.copy_(conv[0].bias)
    return ffn''')
A(nb, 'conv_to_ffn', 'the FeedForward returned in float64 (.double())', CONV.replace('    return ffn', '    return ffn.double()'))
A(nb, 'conv_to_ffn', 'copy_ without torch.no_grad(): a leaf that requires grad', '''
def conv_to_ffn(conv):
    d_ff, d_model, _ = conv[0].weight.shape
    ffn = FeedForward(d_model, d_ff)
    for lin, c in zip((ffn.w_1, ffn.w_2), (conv[0], conv[2])):
        lin.weight.copy_(c.weight[:, :, 0]); lin.bias.copy_(c.bias)
    return ffn''')
A(nb, 'conv_to_ffn', 'reseeds the global generator (torch.manual_seed(0)) to build the FeedForward', CONV.replace(
    '    ffn = FeedForward', '    torch.manual_seed(0)\n    ffn = FeedForward'))
A(nb, 'conv_to_ffn', 'the weights copied, the biases left at their zero init', '''
def conv_to_ffn(conv):
    d_ff, d_model, _ = conv[0].weight.shape
    ffn = FeedForward(d_model, d_ff)
    with torch.no_grad():
        ffn.w_1.weight.copy_(conv[0].weight[:, :, 0]); ffn.w_2.weight.copy_(conv[2].weight[:, :, 0])
    return ffn''')
A(nb, 'conv_to_ffn', 'the FeedForward put on the meta device (its weights never filled)', '''
def conv_to_ffn(conv):
    d_ff, d_model, _ = conv[0].weight.shape
    with torch.device('meta'): ffn = FeedForward(d_model, d_ff)
    with torch.no_grad():
        for lin, c in zip((ffn.w_1, ffn.w_2), (conv[0], conv[2])):
            lin.weight.copy_(c.weight[:, :, 0]); lin.bias.copy_(c.bias)
    return ffn''')
A(nb, 'conv_to_ffn', 'a ReLU added after the second layer too (the stack read as Conv, ReLU, Conv, ReLU)', CONV.replace(
    '    return ffn', '    ffn.w_2 = nn.Sequential(ffn.w_2, nn.ReLU())\n    return ffn'))
A(nb, 'conv_to_ffn', 'the layers swapped: w_1 from conv[-1], w_2 from conv[0]', CONV.replace(
    '(conv[0], conv[2])', '(conv[-1], conv[0])'))
A(nb, 'conv_to_ffn', 'the weights copied in float16 (a memory-saving habit): rounded', CONV.replace(
    'c.weight[:, :, 0]', 'c.weight[:, :, 0].half()').replace('c.bias)', 'c.bias.half())'))

# 04_embeddings: MyEmbeddings
nb = '04_embeddings'
EMB = '''
class MyEmbeddings(nn.Module):
    def __init__(self, vocab, d_model, pad_id=PAD_ID):
        super().__init__()
        self.E = nn.Parameter(torch.randn(vocab, d_model) * d_model ** -0.5)
        with torch.no_grad(): self.E[pad_id] = 0.0
        self.pad_id, self.scale = pad_id, math.sqrt(d_model)
    def forward(self, tokens):
        x, pad = self.E[tokens], (tokens == self.pad_id)[..., None]
        return torch.where(pad, x.detach(), x) * self.scale'''
A(nb, 'MyEmbeddings', None, EMB)
A(nb, 'MyEmbeddings', 'd_model ** 1/2: precedence, the scale d_model / 2', EMB.replace(
    'math.sqrt(d_model)', 'd_model ** 1/2'))
A(nb, 'MyEmbeddings', 'init std 1/d_model (N(0, d^-1) read as the standard deviation)', EMB.replace(
    '* d_model ** -0.5', '* (1 / d_model)'))
A(nb, 'MyEmbeddings', "GPT-2's init, std 0.02", EMB.replace('* d_model ** -0.5', '* 0.02'))
A(nb, 'MyEmbeddings', 'padding found as tokens == 0: the pad_id argument ignored', EMB.replace(
    '(tokens == self.pad_id)', '(tokens == 0)').replace('self.E[pad_id] = 0.0', 'self.E[0] = 0.0'))
A(nb, 'MyEmbeddings', "E stored (d_model, vocab), Keras's transposed table", '''
class MyEmbeddings(nn.Module):
    def __init__(self, vocab, d_model, pad_id=PAD_ID):
        super().__init__()
        self.E = nn.Parameter(torch.randn(d_model, vocab) * d_model ** -0.5)
        with torch.no_grad(): self.E[:, pad_id] = 0.0
        self.pad_id, self.scale = pad_id, math.sqrt(d_model)
    def forward(self, tokens):
        x, pad = self.E.T[tokens], (tokens == self.pad_id)[..., None]
        return torch.where(pad, x.detach(), x) * self.scale''')
A(nb, 'MyEmbeddings', 'divided by sqrt(d_model), not multiplied', EMB.replace('* self.scale', '/ self.scale'))
A(nb, 'MyEmbeddings', 'the scale rounded to an int (int(sqrt(d_model))): right for square d_model only', EMB.replace(
    'math.sqrt(d_model)', 'int(math.sqrt(d_model))'))
A(nb, 'MyEmbeddings', 'E made in float64', EMB.replace('torch.randn(vocab, d_model)', 'torch.randn(vocab, d_model, dtype=torch.float64)'))
A(nb, 'MyEmbeddings', 'the parameter named emb, not E', EMB.replace('self.E', 'self.emb'))
A(nb, 'MyEmbeddings', 'the padding row re-zeroed in every forward (an in-place edit of E)', EMB.replace(
    '    def forward(self, tokens):\n', '    def forward(self, tokens):\n        with torch.no_grad(): self.E[self.pad_id] = 0.0\n'))
A(nb, 'MyEmbeddings', 'the pad mask unsqueezed at axis 1, not -1 (right only when n = d_model)', EMB.replace(
    '(tokens == self.pad_id)[..., None]', '(tokens == self.pad_id)[:, None]'))
A(nb, 'MyEmbeddings', 'scaled by sqrt(vocab): E.shape[0] read as d_model', EMB.replace(
    'math.sqrt(d_model)', 'math.sqrt(self.E.shape[0])'))
A(nb, 'MyEmbeddings', 'reseeds the global generator (torch.manual_seed(0)) in __init__', EMB.replace(
    '        self.E = nn.Parameter', '        torch.manual_seed(0)\n        self.E = nn.Parameter'))
A(nb, 'MyEmbeddings', "the pad row's gradient stopped by a hook on E that zeroes every row's gradient but the pad's (the index inverted)", '''
class MyEmbeddings(nn.Module):
    def __init__(self, vocab, d_model, pad_id=PAD_ID):
        super().__init__()
        self.E = nn.Parameter(torch.randn(vocab, d_model) * d_model ** -0.5)
        with torch.no_grad(): self.E[pad_id] = 0.0
        self.pad_id, self.scale = pad_id, math.sqrt(d_model)
        keep = torch.zeros(vocab, 1); keep[pad_id] = 1.0
        self.E.register_hook(lambda g: g * keep)
    def forward(self, tokens):
        return self.E[tokens] * self.scale''')
A(nb, 'MyEmbeddings', 'the scale applied to E in place in forward (E *= sqrt(d_model) every call)', '''
class MyEmbeddings(nn.Module):
    def __init__(self, vocab, d_model, pad_id=PAD_ID):
        super().__init__()
        self.E = nn.Parameter(torch.randn(vocab, d_model) * d_model ** -0.5)
        with torch.no_grad(): self.E[pad_id] = 0.0
        self.pad_id, self.scale = pad_id, math.sqrt(d_model)
    def forward(self, tokens):
        with torch.no_grad(): self.E.mul_(self.scale)
        x, pad = self.E[tokens], (tokens == self.pad_id)[..., None]
        return torch.where(pad, x.detach(), x)''')

# 05_positional_encoding: my_encoding, RelativeBias
nb = '05_positional_encoding'
ENC = '''
def my_encoding(n, d_model):
    pos = torch.arange(n, dtype=torch.float64)[:, None]
    two_i = torch.arange(0, d_model, 2, dtype=torch.float64)
    angle = pos / 10000 ** (two_i / d_model)
    pe = torch.zeros(n, d_model, dtype=torch.float64)
    pe[:, 0::2], pe[:, 1::2] = angle.sin(), angle.cos()
    return pe.float()'''
A(nb, 'my_encoding', None, ENC)
A(nb, 'my_encoding', 'positions 1 .. n (1-based)', ENC.replace('torch.arange(n, dtype', 'torch.arange(1, n + 1, dtype'))
A(nb, 'my_encoding', 'positions 0 .. n inclusive: n + 1 rows', ENC.replace(
    'torch.arange(n, dtype', 'torch.arange(n + 1, dtype').replace('torch.zeros(n, d_model', 'torch.zeros(n + 1, d_model'))
A(nb, 'my_encoding', 'the exponent 2i // d_model: integer division (every frequency 1)', '''
def my_encoding(n, d_model):
    pos = torch.arange(n)[:, None]
    two_i = torch.arange(0, d_model, 2)
    angle = pos / 10000 ** (two_i // d_model)
    pe = torch.zeros(n, d_model)
    pe[:, 0::2], pe[:, 1::2] = angle.sin(), angle.cos()
    return pe''')
A(nb, 'my_encoding', "log10 in the Annotated Transformer's div_term: exp(-2i log10(10000) / d)", '''
def my_encoding(n, d_model):
    pos = torch.arange(n, dtype=torch.float64)[:, None]
    div = torch.exp(torch.arange(0, d_model, 2, dtype=torch.float64) * -(math.log10(10000.0) / d_model))
    pe = torch.zeros(n, d_model, dtype=torch.float64)
    pe[:, 0::2], pe[:, 1::2] = (pos * div).sin(), (pos * div).cos()
    return pe.float()''')
A(nb, 'my_encoding', "fairseq's frequencies 10000^(-i/(d/2 - 1)), interleaved", '''
def my_encoding(n, d_model):
    half = d_model // 2
    freq = torch.exp(torch.arange(half, dtype=torch.float64) * -(math.log(10000) / (half - 1)))
    angle = torch.arange(n, dtype=torch.float64)[:, None] * freq
    pe = torch.zeros(n, d_model, dtype=torch.float64)
    pe[:, 0::2], pe[:, 1::2] = angle.sin(), angle.cos()
    return pe.float()''')
A(nb, 'my_encoding', "the cosines at exponent (2i+1)/d (the odd column's own index)", '''
def my_encoding(n, d_model):
    pos = torch.arange(n, dtype=torch.float64)[:, None]
    pe = torch.zeros(n, d_model, dtype=torch.float64)
    pe[:, 0::2] = (pos / 10000 ** (torch.arange(0, d_model, 2, dtype=torch.float64) / d_model)).sin()
    pe[:, 1::2] = (pos / 10000 ** (torch.arange(1, d_model, 2, dtype=torch.float64) / d_model)).cos()
    return pe.float()''')
A(nb, 'my_encoding', 'returned (d_model, n): transposed', ENC.replace('return pe.float()', 'return pe.float().T'))
A(nb, 'my_encoding', 'computed in float16', ENC.replace('torch.float64', 'torch.float16'))
RB = '''
class RelativeBias(nn.Module):
    def __init__(self, h, K):
        super().__init__()
        self.K = K
        self.table = nn.Parameter(torch.randn(2 * K + 1, h) * 0.02)
    def forward(self, n_q, n_k):
        offset = torch.arange(n_k)[None, :] - torch.arange(n_q)[:, None]
        return self.table[offset.clamp(-self.K, self.K) + self.K].permute(2, 0, 1)'''
A(nb, 'RelativeBias', None, RB)
A(nb, 'RelativeBias', 'clipped without + K: negative offsets index the table from the end', RB.replace(
    'offset.clamp(-self.K, self.K) + self.K', 'offset.clamp(-self.K, self.K)'))
A(nb, 'RelativeBias', 'permute(2, 1, 0): (h, n_k, n_q), right only when n_q = n_k', RB.replace('permute(2, 0, 1)', 'permute(2, 1, 0)'))
A(nb, 'RelativeBias', 'a table of 2K rows, offsets clipped to [-K, K - 1] (an exclusive upper bound)', RB.replace(
    'torch.randn(2 * K + 1, h)', 'torch.randn(2 * K, h)').replace('offset.clamp(-self.K, self.K)', 'offset.clamp(-self.K, self.K - 1)'))
A(nb, 'RelativeBias', 'the keys counted with n_q: right only when n_q = n_k', RB.replace('torch.arange(n_k)[None, :]', 'torch.arange(n_q)[None, :]'))
A(nb, 'RelativeBias', 'the sign dropped: |j - i| clipped to K (a symmetric bias)', RB.replace(
    'offset.clamp(-self.K, self.K) + self.K', 'offset.abs().clamp(max=self.K)'))
A(nb, 'RelativeBias', "ALiBi's fixed slopes: -|j - i| per head, the table unused", RB.replace(
    "        return self.table[offset.clamp(-self.K, self.K) + self.K].permute(2, 0, 1)",
    "        h = self.table.shape[1]\n        slopes = 2.0 ** (-8.0 * torch.arange(1, h + 1) / h)\n"
    "        return -slopes[:, None, None] * offset.abs()[None] + 0 * self.table.sum()"))
A(nb, 'RelativeBias', "(n_q, n_k, h): Shaw's layout, the heads last", RB.replace('.permute(2, 0, 1)', ''))
A(nb, 'RelativeBias', "K read as the table's size: offsets clipped to +-(K // 2)", RB.replace(
    'offset.clamp(-self.K, self.K) + self.K', 'offset.clamp(-(self.K // 2), self.K // 2) + self.K'))
A(nb, 'RelativeBias', 'the table laid out (h, 2K + 1)', '''
class RelativeBias(nn.Module):
    def __init__(self, h, K):
        super().__init__()
        self.K = K
        self.table = nn.Parameter(torch.randn(h, 2 * K + 1) * 0.02)
    def forward(self, n_q, n_k):
        offset = torch.arange(n_k)[None, :] - torch.arange(n_q)[:, None]
        return self.table[:, offset.clamp(-self.K, self.K) + self.K]''')

# 06_model: MySublayer, my_forward, parsing_counts
nb = '06_model'
SUB = '''
class MySublayer(nn.Module):
    def __init__(self, d_model, p_drop):
        super().__init__()
        self.norm, self.drop = nn.LayerNorm(d_model), nn.Dropout(p_drop)
    def forward(self, x, f):
        return self.norm(x + self.drop(f(x)))'''
A(nb, 'MySublayer', None, SUB)
A(nb, 'MySublayer', "the Annotated Transformer's LayerNorm: unbiased std, eps added to the std", '''
class MySublayer(nn.Module):
    def __init__(self, d_model, p_drop):
        super().__init__()
        self.a_2, self.b_2 = nn.Parameter(torch.ones(d_model)), nn.Parameter(torch.zeros(d_model))
        self.drop, self.eps = nn.Dropout(p_drop), 1e-6
    def forward(self, x, f):
        s = x + self.drop(f(x))
        return self.a_2 * (s - s.mean(-1, keepdim=True)) / (s.std(-1, keepdim=True) + self.eps) + self.b_2''')
A(nb, 'MySublayer', "Keras's epsilon 1e-3", SUB.replace('nn.LayerNorm(d_model)', 'nn.LayerNorm(d_model, eps=1e-3)'))
A(nb, 'MySublayer', 'normalised over the positions (axis 1), not the features', '''
class MySublayer(nn.Module):
    def __init__(self, d_model, p_drop):
        super().__init__()
        self.norm, self.drop = nn.LayerNorm(d_model), nn.Dropout(p_drop)
    def forward(self, x, f):
        s = x + self.drop(f(x))
        s = (s - s.mean(1, keepdim=True)) / (s.var(1, keepdim=True, unbiased=False) + self.norm.eps).sqrt()
        return s * self.norm.weight + self.norm.bias''')
A(nb, 'MySublayer', 'an nn.Dropout made inside forward: always in training mode', '''
class MySublayer(nn.Module):
    def __init__(self, d_model, p_drop):
        super().__init__()
        self.norm, self.p = nn.LayerNorm(d_model), p_drop
    def forward(self, x, f):
        return self.norm(x + nn.Dropout(self.p)(f(x)))''')
A(nb, 'MySublayer', 'LayerNorm without its gain and bias (elementwise_affine=False)', SUB.replace(
    'nn.LayerNorm(d_model)', 'nn.LayerNorm(d_model, elementwise_affine=False)'))
A(nb, 'MySublayer', "LLaMA's RMSNorm, not LayerNorm", SUB.replace('nn.LayerNorm(d_model)', 'nn.RMSNorm(d_model)'))
A(nb, 'MySublayer', 'forward puts the layer back in training mode (self.train())', SUB.replace(
    '        return self.norm(x + self.drop(f(x)))', '        self.train()\n        return self.norm(x + self.drop(f(x)))'))
FWD = '''
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
    return model.generator(y)'''
A(nb, 'my_forward', None, FWD)
A(nb, 'my_forward', "each decoder layer reads the matching encoder layer's output, not the last", '''
def my_forward(model, src, tgt):
    def residual(norm, x, f): return norm(x + f(x))
    src_mask, tgt_mask = pad_mask(src), make_tgt_mask(tgt)
    x, zs = model.src_pos(model.src_emb(src)), []
    for l in model.encoder:
        x = residual(l.sub[0].norm, x, lambda t: l.self_attn(t, mask=src_mask))
        x = residual(l.sub[1].norm, x, l.ffn)
        zs.append(x)
    y = model.tgt_pos(model.tgt_emb(tgt))
    for l, z in zip(model.decoder, zs):
        y = residual(l.sub[0].norm, y, lambda t: l.self_attn(t, mask=tgt_mask))
        y = residual(l.sub[1].norm, y, lambda t: l.cross_attn(t, z, mask=src_mask))
        y = residual(l.sub[2].norm, y, l.ffn)
    return model.generator(y)''')
A(nb, 'my_forward', "fairseq's log-probabilities (log_softmax), not the logits", FWD.replace(
    'return model.generator(y)', 'return model.generator(y).log_softmax(-1)'))
A(nb, 'my_forward', "the decoder's self-attention with the padding mask only (no causal part)", FWD.replace(
    'make_tgt_mask(tgt)', 'pad_mask(tgt)'))
A(nb, 'my_forward', "the encoder's layers run in reverse", FWD.replace('for l in model.encoder:', 'for l in reversed(model.encoder):'))
A(nb, 'my_forward', "the decoder's cross-attention and FFN norms swapped (sub[2] for the cross-attention)", FWD.replace(
    'residual(l.sub[1].norm, y, lambda t: l.cross_attn', 'residual(l.sub[9].norm, y, lambda t: l.cross_attn').replace(
    'residual(l.sub[2].norm, y, l.ffn)', 'residual(l.sub[1].norm, y, l.ffn)').replace('l.sub[9]', 'l.sub[2]'))
A(nb, 'my_forward', "the target shifted inside (tgt[:, :-1], Hugging Face's shift): one position short", FWD.replace(
    'src_mask, tgt_mask = pad_mask(src), make_tgt_mask(tgt)', 'tgt = tgt[:, :-1]\n    src_mask, tgt_mask = pad_mask(src), make_tgt_mask(tgt)'))
CNT = '''
def parsing_counts():
    cfg = TransformerConfig(N=4, d_model=1024, src_vocab=16000, tgt_vocab=16000)
    with torch.device('meta'): tied = count_params(Transformer(cfg))
    return tied, tied + 2 * 16000 * 1024'''
A(nb, 'parsing_counts', None, CNT)
A(nb, 'parsing_counts', "d_ff = 4 * d_model = 4096 (GPT's ratio)", CNT.replace('d_model=1024,', 'd_model=1024, d_ff=4096,'))
A(nb, 'parsing_counts', 'three matrices added for untied (the tied one counted again)', CNT.replace('2 * 16000 * 1024', '3 * 16000 * 1024'))
A(nb, 'parsing_counts', 'a dict, not a (tied, untied) pair', CNT.replace(
    'return tied, tied + 2 * 16000 * 1024', "return {'tied': tied, 'untied': tied + 2 * 16000 * 1024}"))
A(nb, 'parsing_counts', 'the counts in millions, rounded', CNT.replace(
    'return tied, tied + 2 * 16000 * 1024', 'return round(tied / 1e6), round((tied + 2 * 16000 * 1024) / 1e6)'))
A(nb, 'parsing_counts', "counted over state_dict(): the tied matrix three times, the buffers too", '''
def parsing_counts():
    cfg = TransformerConfig(N=4, d_model=1024, src_vocab=16000, tgt_vocab=16000)
    with torch.device('meta'): m = Transformer(cfg)
    tied = sum(t.numel() for t in m.state_dict(keep_vars=True).values())
    return tied, tied + 2 * 16000 * 1024''')

# 07_why_self_attention: restricted_attention
nb = '07_why_self_attention'
RA = '''
def restricted_attention(q, k, v, r):
    n, w = q.shape[-2], r // 2
    win = lambda t: F.pad(t, (0, 0, w, w)).unfold(-2, 2 * w + 1, 1)
    s = torch.einsum('bhnd,bhndw->bhnw', q, win(k)) / q.shape[-1] ** 0.5
    j = torch.arange(n)[:, None] + torch.arange(-w, w + 1)
    s = s.masked_fill((j < 0) | (j >= n), float('-inf'))
    return torch.einsum('bhnw,bhndw->bhnd', s.softmax(-1), win(v))'''
A(nb, 'restricted_attention', None, RA)
A(nb, 'restricted_attention', 'scaled by sqrt(window size), not sqrt(d_k)', RA.replace('/ q.shape[-1] ** 0.5', '/ (2 * w + 1) ** 0.5'))
A(nb, 'restricted_attention', 'padded rows found as all-zero keys (a real zero key masked too)', '''
def restricted_attention(q, k, v, r):
    n, w = q.shape[-2], r // 2
    win = lambda t: F.pad(t, (0, 0, w, w)).unfold(-2, 2 * w + 1, 1)
    kw = win(k)
    s = torch.einsum('bhnd,bhndw->bhnw', q, kw) / q.shape[-1] ** 0.5
    s = s.masked_fill(kw.abs().sum(-2) == 0, float('-inf'))
    return torch.einsum('bhnw,bhndw->bhnd', s.softmax(-1), win(v))''')
A(nb, 'restricted_attention', "unfold's window read as the second-to-last axis: right only when d_k = 2w + 1", RA.replace(
    "'bhnd,bhndw->bhnw', q, win(k)", "'bhnd,bhnwd->bhnw', q, win(k)").replace(
    "'bhnw,bhndw->bhnd', s.softmax(-1), win(v)", "'bhnw,bhnwd->bhnd', s.softmax(-1), win(v)"))
A(nb, 'restricted_attention', 'padded rows past the end masked with j > n (one padded row let in)', RA.replace('(j >= n)', '(j > n)'))
A(nb, 'restricted_attention', 'padded rows zeroed after the softmax (weights not renormalised)', RA.replace(
    "    s = s.masked_fill((j < 0) | (j >= n), float('-inf'))\n    return torch.einsum('bhnw,bhndw->bhnd', s.softmax(-1), win(v))",
    "    p = s.softmax(-1).masked_fill((j < 0) | (j >= n), 0.0)\n    return torch.einsum('bhnw,bhndw->bhnd', p, win(v))"))
A(nb, 'restricted_attention', "only the left end's padded rows masked (j < 0)", RA.replace('(j < 0) | (j >= n)', '(j < 0)'))
A(nb, 'restricted_attention', 'returns (output, weights), as attention does', RA.replace(
    "    return torch.einsum('bhnw,bhndw->bhnd', s.softmax(-1), win(v))",
    "    p = s.softmax(-1)\n    return torch.einsum('bhnw,bhndw->bhnd', p, win(v)), p"))
A(nb, 'restricted_attention', 'computed in float64 and returned so (.double())', RA.replace(
    '    n, w = q.shape[-2], r // 2', '    q, k, v = q.double(), k.double(), v.double()\n    n, w = q.shape[-2], r // 2'))
A(nb, 'restricted_attention', "q scaled in place (q /= sqrt(d_k)): the caller's queries changed", RA.replace(
    "    s = torch.einsum('bhnd,bhndw->bhnw', q, win(k)) / q.shape[-1] ** 0.5",
    "    q /= q.shape[-1] ** 0.5\n    s = torch.einsum('bhnd,bhndw->bhnw', q, win(k))"))
A(nb, 'restricted_attention', 'window positions taken as i .. i + 2w (arange(2w + 1)), not i - w .. i + w: the mask shifted', RA.replace(
    'torch.arange(-w, w + 1)', 'torch.arange(2 * w + 1)'))
A(nb, 'restricted_attention', 'w = r: r read as the half-width', RA.replace('n, w = q.shape[-2], r // 2', 'n, w = q.shape[-2], r'))
A(nb, 'restricted_attention', "padded rows given a score of -1e4 in float16 arithmetic (the scores cast to half)", RA.replace(
    "    s = s.masked_fill((j < 0) | (j >= n), float('-inf'))\n    return torch.einsum('bhnw,bhndw->bhnd', s.softmax(-1), win(v))",
    "    s = s.half().masked_fill((j < 0) | (j >= n), -1e4)\n    return torch.einsum('bhnw,bhndw->bhnd', s.float().softmax(-1).to(v.dtype), win(v))"))
A(nb, 'restricted_attention', 'a batch of one assumed: q[0] windowed, the batch axis added back', '''
def restricted_attention(q, k, v, r):
    n, w = q.shape[-2], r // 2
    win = lambda t: F.pad(t[0], (0, 0, w, w)).unfold(-2, 2 * w + 1, 1)
    s = torch.einsum('hnd,hndw->hnw', q[0], win(k)) / q.shape[-1] ** 0.5
    j = torch.arange(n)[:, None] + torch.arange(-w, w + 1)
    s = s.masked_fill((j < 0) | (j >= n), float('-inf'))
    return torch.einsum('hnw,hndw->hnd', s.softmax(-1), win(v))[None]''')
A(nb, 'restricted_attention', "the keys' windows used as the values (win(k) twice)", RA.replace(
    "s.softmax(-1), win(v))", "s.softmax(-1), win(k))"))
