"""The twenty-third blind set's answers, for the notebooks 00_core to 07_why_self_attention only, written from the
exercises' text alone: (notebook, exercise, mistake, code), the mistake None for the right answer.
`experiments/blind_answers.py 23` runs them. This set leans toward mistakes in a module's __init__ (a plain list of
Linear, a tensor attribute, a parameter or a module created in forward, one table shared by the heads), views and
in-place edits (a view of the conv's weight, a cached table returned as a view, the conv squeezed in place, the
table scaled in place at each call), detach() or frozen parameters where a gradient must flow, answers right only on
the example's sizes (a batch of one, keys unclipped for short inputs, h hard-coded to 8, the windows' axes read by
reshape), Python and numerics traps (max of lists is lexicographic, integer division in the exponent, an inclusive
linspace, torch.var's unbiased default, a bool mask multiplied into the scores), misread return values (the output
alone, (weights, output), (ids, lengths), a dict of counts, log-probabilities for logits) and other sources'
conventions (Hugging Face's left padding, pad_to_multiple_of and (1, h, n_q, n_k) T5 bias, PyTorch's True = blocked
masks, tensor2tensor's sin/cos halves, fairseq's time-first batch, GPT's d_ff = 4 d_model, Keras's (in, out) weights,
circular padding), and right values in the wrong container, dtype or shape."""
ANSWERS = []
def A(nb, ex, mistake, code): ANSWERS.append((nb, ex, mistake, code))

# 00_core: pad_batch
nb = '00_core'
PAD = """
def pad_batch(seqs, pad_id=PAD_ID):
    n = max(len(s) for s in seqs)
    return torch.tensor([list(s) + [pad_id] * (n - len(s)) for s in seqs], dtype=torch.long)"""
A(nb, 'pad_batch', None, PAD)
A(nb, 'pad_batch', 'a NumPy array of int64, not a tensor', """
import numpy as np
def pad_batch(seqs, pad_id=PAD_ID):
    n = max(len(s) for s in seqs)
    return np.array([list(s) + [pad_id] * (n - len(s)) for s in seqs], dtype=np.int64)""")
A(nb, 'pad_batch', 'the padded lists returned, not a tensor', """
def pad_batch(seqs, pad_id=PAD_ID):
    n = max(len(s) for s in seqs)
    return [list(s) + [pad_id] * (n - len(s)) for s in seqs]""")
A(nb, 'pad_batch', "ids as torch.int32 (a C programmer's int)", PAD.replace('torch.long', 'torch.int32'))
A(nb, 'pad_batch', "padded on the left (Hugging Face's padding_side='left')", PAD.replace(
    'list(s) + [pad_id] * (n - len(s))', '[pad_id] * (n - len(s)) + list(s)'))
A(nb, 'pad_batch', "padded to a multiple of 8 (Hugging Face's pad_to_multiple_of=8)", PAD.replace(
    'n = max(len(s) for s in seqs)', 'n = -(-max(len(s) for s in seqs) // 8) * 8'))
A(nb, 'pad_batch', 'the input lists padded in place (s.extend)', """
def pad_batch(seqs, pad_id=PAD_ID):
    n = max(len(s) for s in seqs)
    for s in seqs: s.extend([pad_id] * (n - len(s)))
    return torch.tensor(seqs, dtype=torch.long)""")
A(nb, 'pad_batch', "returns (ids, lengths), d2l's valid_lens", """
def pad_batch(seqs, pad_id=PAD_ID):
    n = max(len(s) for s in seqs)
    ids = torch.tensor([list(s) + [pad_id] * (n - len(s)) for s in seqs], dtype=torch.long)
    return ids, torch.tensor([len(s) for s in seqs])""")
A(nb, 'pad_batch', "time-first (n, B), fairseq's and the old torchtext's layout", PAD.replace(
    'dtype=torch.long)', 'dtype=torch.long).T'))
A(nb, 'pad_batch', 'rows sorted longest first (pack_padded_sequence)', """
def pad_batch(seqs, pad_id=PAD_ID):
    seqs = sorted(seqs, key=len, reverse=True)
    n = len(seqs[0])
    return torch.tensor([list(s) + [pad_id] * (n - len(s)) for s in seqs], dtype=torch.long)""")
A(nb, 'pad_batch', 'n = len(max(seqs)): max of lists is the lexicographic largest, not the longest', """
def pad_batch(seqs, pad_id=PAD_ID):
    n = len(max(seqs))
    return torch.tensor([list(s)[:n] + [pad_id] * (n - len(s)) for s in seqs], dtype=torch.long)""")
A(nb, 'pad_batch', 'a float tensor filled by torch.full (pad_id a Python float)', """
def pad_batch(seqs, pad_id=PAD_ID):
    out = torch.full((len(seqs), max(len(s) for s in seqs)), float(pad_id))
    for i, s in enumerate(seqs): out[i, :len(s)] = torch.tensor(s, dtype=torch.float)
    return out""")
A(nb, 'pad_batch', 'one module-level buffer reused: a later call overwrites the batch returned before', """
_BUF = torch.zeros(1024, 1024, dtype=torch.long)
def pad_batch(seqs, pad_id=PAD_ID):
    n = max(len(s) for s in seqs)
    out = _BUF[:len(seqs), :n]
    out.fill_(pad_id)
    for i, s in enumerate(seqs): out[i, :len(s)] = torch.tensor(s, dtype=torch.long)
    return out""")

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
A(nb, 'attention', "the mask read as True = blocked (PyTorch's bool attn_mask / key_padding_mask)", ATT.replace('~mask', 'mask'))
A(nb, 'attention', 'returns the output alone, not (output, weights)', ATT.replace('return w @ v, w', 'return w @ v'))
A(nb, 'attention', 'returns (weights, output)', ATT.replace('return w @ v, w', 'return w, w @ v'))
A(nb, 'attention', 'scaled by sqrt(n_k), the keys counted from the other axis', ATT.replace('math.sqrt(q.shape[-1])', 'math.sqrt(k.shape[-2])'))
A(nb, 'attention', 'softmax over the queries (dim=-2)', ATT.replace('s.softmax(dim=-1)', 's.softmax(dim=-2)'))
A(nb, 'attention', 'the scores detached: no gradient to q and k', ATT.replace(
    's = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])', 's = (q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])).detach()'))
A(nb, 'attention', 'k.transpose(1, 2): right for 3-d inputs only', ATT.replace('k.transpose(-2, -1)', 'k.transpose(1, 2)'))
A(nb, 'attention', 'computed in float32 whatever the input dtype (.float())', """
def my_attention(q, k, v, mask=None):
    q, k, v = q.float(), k.float(), v.float()
    s = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if mask is not None: s = s.masked_fill(~mask, float('-inf'))
    w = s.softmax(dim=-1)
    if mask is not None: w = w.masked_fill(~mask, 0.0)
    return w @ v, w""")
A(nb, 'attention', 'the bool mask multiplied into the scores (masked scores 0, not -inf)', """
def my_attention(q, k, v, mask=None):
    s = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if mask is not None: s = s * mask
    w = s.softmax(dim=-1)
    return w @ v, w""")
A(nb, 'attention', 'q divided in place by sqrt(d_k): the input edited', """
def my_attention(q, k, v, mask=None):
    q /= math.sqrt(q.shape[-1])
    s = q @ k.transpose(-2, -1)
    if mask is not None: s = s.masked_fill(~mask, float('-inf'))
    w = s.softmax(dim=-1)
    if mask is not None: w = w.masked_fill(~mask, 0.0)
    return w @ v, w""")
A(nb, 'attention', 'NumPy arrays returned (the math done in NumPy)', """
import numpy as np
def my_attention(q, k, v, mask=None):
    q, k, v = q.detach().numpy(), k.detach().numpy(), v.detach().numpy()
    s = q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1])
    if mask is not None: s = np.where(mask.numpy(), s, -np.inf)
    e = np.exp(s - s.max(-1, keepdims=True))
    w = e / e.sum(-1, keepdims=True)
    if mask is not None: w = np.nan_to_num(np.where(mask.numpy(), w, 0.0))
    return w @ v, w""")
RM = """
def restricted_mask(n, r):
    i = torch.arange(n)
    return ((i[:, None] - i[None, :]).abs() <= r // 2)[None, None]"""
A(nb, 'restricted_mask', None, RM)
A(nb, 'restricted_mask', '(n, n), the leading (1, 1) left out', RM.replace(')[None, None]', ')'))
A(nb, 'restricted_mask', '(1, n, n), one leading axis only', RM.replace(')[None, None]', ')[None]'))
A(nb, 'restricted_mask', 'a float 0/1 mask, not bool', RM.replace(')[None, None]', ').float()[None, None]'))
A(nb, 'restricted_mask', 'r read as the half-width: |i - j| <= r', RM.replace('<= r // 2', '<= r'))
A(nb, 'restricted_mask', 'the bound exclusive: |i - j| < r // 2', RM.replace('<= r // 2', '< r // 2'))
A(nb, 'restricted_mask', "True = blocked (PyTorch's attn_mask convention)", RM.replace('<= r // 2', '> r // 2'))

# 02_multihead: split_heads / merge_heads, LoopMHA
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
A(nb, 'heads', 'split by view(B, h, n, d) with no transpose', """
def split_heads(x, h):
    B, n, hd = x.shape
    return x.view(B, h, n, hd // h)
def merge_heads(x):
    B, h, n, d = x.shape
    return x.reshape(B, n, h * d)""")
A(nb, 'heads', 'heads interleaved: head i holds features i, i + h, ... (view(B, n, d, h))', """
def split_heads(x, h):
    B, n, hd = x.shape
    return x.view(B, n, hd // h, h).permute(0, 3, 1, 2)
def merge_heads(x):
    B, h, n, d = x.shape
    return x.permute(0, 2, 3, 1).reshape(B, n, h * d)""")
A(nb, 'heads', 'merge by .view after the transpose (non-contiguous)', SPLIT + MERGE.replace('.reshape(B, n, h * d)', '.view(B, n, h * d)'))
A(nb, 'heads', 'heads first: chunk and stack at 0, (h, B, n, d)', """
def split_heads(x, h):
    return torch.stack(x.chunk(h, dim=-1), dim=0)
def merge_heads(x):
    return torch.cat(list(x), dim=-1)""")
A(nb, 'heads', 'merge concatenates (d, h): features of a head strided', SPLIT + MERGE.replace('x.transpose(1, 2)', 'x.permute(0, 2, 3, 1)'))
A(nb, 'heads', 'h hard-coded to 8 (the base model) in split', """
def split_heads(x, h):
    B, n, hd = x.shape
    return x.view(B, n, 8, hd // 8).transpose(1, 2)
""" + MERGE)
A(nb, 'heads', 'merge returns the list of the heads (torch.unbind), Concat left to the caller', SPLIT + """
def merge_heads(x):
    return [t for t in x.unbind(1)]""")
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
A(nb, 'LoopMHA', 'plain Python lists of Linear: the heads not registered', LOOP.replace(
    'heads = lambda: nn.ModuleList(nn.Linear(d_model, self.d_k) for _ in range(h))',
    'heads = lambda: [nn.Linear(d_model, self.d_k) for _ in range(h)]'))
A(nb, 'LoopMHA', 'the (B, 1, n, n) mask passed as is: right for a batch of one', LOOP.replace(
    'm = None if mask is None else mask[:, 0]', 'm = mask'))
A(nb, 'LoopMHA', 'mem ignored: keys and values always from x', LOOP.replace('k(mem), v(mem)', 'k(x), v(x)'))
A(nb, 'LoopMHA', 'load_from copies the weights only: the biases left at their init', LOOP.replace(
    'lin.weight.copy_(W.weight[rows]); lin.bias.copy_(W.bias[rows])', 'lin.weight.copy_(W.weight[rows])'))
A(nb, 'LoopMHA', 'W^O created in forward: a fresh random layer each call', LOOP.replace(
    '        return self.w_o(torch.cat(heads, -1))',
    '        self.w_o = nn.Linear(self.h * self.d_k, x.shape[-1])\n        return self.w_o(torch.cat(heads, -1))'))
A(nb, 'LoopMHA', 'scores scaled by sqrt(d_model), not sqrt(d_k)', LOOP.replace(
    'attention(q(x), k(mem), v(mem), m)[0]', 'attention(q(x), k(mem), v(mem), m, scale=1 / math.sqrt(self.h * self.d_k))[0]'))
A(nb, 'LoopMHA', 'dropout 0.1 on the weights with F.dropout (always on)', LOOP.replace(
    'attention(q(x), k(mem), v(mem), m)[0]', 'F.dropout(attention(q(x), k(mem), v(mem), m)[1], 0.1) @ v(mem)'))

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
A(nb, 'conv_to_ffn', 'weight.squeeze() drops every size-1 axis', CONV.replace('c.weight[:, :, 0]', 'c.weight.squeeze()'))
A(nb, 'conv_to_ffn', "weights transposed, Keras's (in, out), assigned through .data", """
def conv_to_ffn(conv):
    d_ff, d_model, _ = conv[0].weight.shape
    ffn = FeedForward(d_model, d_ff)
    for lin, c in zip((ffn.w_1, ffn.w_2), (conv[0], conv[2])):
        lin.weight.data = c.weight[:, :, 0].T.contiguous(); lin.bias.data = c.bias.detach().clone()
    return ffn""")
A(nb, 'conv_to_ffn', "the FFN's weights are views of the conv's (nn.Parameter(c.weight[:, :, 0])): shared storage", """
def conv_to_ffn(conv):
    d_ff, d_model, _ = conv[0].weight.shape
    ffn = FeedForward(d_model, d_ff)
    for lin, c in zip((ffn.w_1, ffn.w_2), (conv[0], conv[2])):
        lin.weight = nn.Parameter(c.weight[:, :, 0]); lin.bias = c.bias
    return ffn""")
A(nb, 'conv_to_ffn', 'biases not copied', CONV.replace('; lin.bias.copy_(c.bias)', ''))
A(nb, 'conv_to_ffn', 'sizes hard-coded to the base model, FeedForward(512, 2048)', CONV.replace(
    'ffn = FeedForward(d_model, d_ff)', 'ffn = FeedForward(512, 2048)'))
A(nb, 'conv_to_ffn', 'shape read as (d_model, d_ff, k)', CONV.replace('d_ff, d_model, _ = conv[0].weight.shape', 'd_model, d_ff, _ = conv[0].weight.shape'))
A(nb, 'conv_to_ffn', 'an nn.Sequential(Linear, ReLU, Linear), not a FeedForward', """
def conv_to_ffn(conv):
    d_ff, d_model, _ = conv[0].weight.shape
    ffn = nn.Sequential(nn.Linear(d_model, d_ff), nn.ReLU(), nn.Linear(d_ff, d_model))
    with torch.no_grad():
        for lin, c in zip((ffn[0], ffn[2]), (conv[0], conv[2])):
            lin.weight.copy_(c.weight[:, :, 0]); lin.bias.copy_(c.bias)
    return ffn""")
A(nb, 'conv_to_ffn', "the conv's weights squeezed in place (squeeze_): the conv broken", """
def conv_to_ffn(conv):
    d_ff, d_model, _ = conv[0].weight.shape
    ffn = FeedForward(d_model, d_ff)
    with torch.no_grad():
        for lin, c in zip((ffn.w_1, ffn.w_2), (conv[0], conv[2])):
            lin.weight.copy_(c.weight.squeeze_(-1)); lin.bias.copy_(c.bias)
    return ffn""")
A(nb, 'conv_to_ffn', 'returned in float64 (.double())', CONV.replace('    return ffn', '    return ffn.double()'))
A(nb, 'conv_to_ffn', 'returned frozen (requires_grad_(False)): no gradient to its weights', CONV.replace('    return ffn', '    return ffn.requires_grad_(False)'))

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
A(nb, 'MyEmbeddings', 'E a plain tensor attribute, not an nn.Parameter', EMB.replace(
    'self.E = nn.Parameter(torch.randn(vocab, d_model) * d_model ** -0.5)',
    'self.E = (torch.randn(vocab, d_model) * d_model ** -0.5).requires_grad_()'))
A(nb, 'MyEmbeddings', 'scaled by sqrt(vocab)', EMB.replace('math.sqrt(d_model)', 'math.sqrt(vocab)'))
A(nb, 'MyEmbeddings', "initialised N(0, 1) (nn.Embedding's default)", EMB.replace('torch.randn(vocab, d_model) * d_model ** -0.5', 'torch.randn(vocab, d_model)'))
A(nb, 'MyEmbeddings', 'the pad row zeroed at init only: gradient still reaches it', EMB.replace(
    'return torch.where(pad, x.detach(), x) * self.scale', 'return x * self.scale'))
A(nb, 'MyEmbeddings', 'row 0 zeroed whatever pad_id (BERT\'s pad id 0)', EMB.replace(
    'self.E[pad_id] = 0.0', 'self.E[0] = 0.0').replace('self.pad_id, self.scale = pad_id,', 'self.pad_id, self.scale = 0,'))
A(nb, 'MyEmbeddings', 'one_hot(tokens) @ E: the vocabulary size inferred from the largest id', EMB.replace(
    'x, pad = self.E[tokens], (tokens == self.pad_id)[..., None]',
    'x, pad = F.one_hot(tokens).float() @ self.E[:int(tokens.max()) + 1], (tokens == self.pad_id)[..., None]'))
A(nb, 'MyEmbeddings', 'E in float64', EMB.replace('torch.randn(vocab, d_model)', 'torch.randn(vocab, d_model, dtype=torch.float64)'))
A(nb, 'MyEmbeddings', 'E scaled in place in forward (E.data *= scale): the table grows at each call', """
class MyEmbeddings(nn.Module):
    def __init__(self, vocab, d_model, pad_id=PAD_ID):
        super().__init__()
        self.E = nn.Parameter(torch.randn(vocab, d_model) * d_model ** -0.5)
        with torch.no_grad(): self.E[pad_id] = 0.0
        self.pad_id, self.scale = pad_id, math.sqrt(d_model)
    def forward(self, tokens):
        self.E.data *= self.scale
        x, pad = self.E[tokens], (tokens == self.pad_id)[..., None]
        return torch.where(pad, x.detach(), x)""")
A(nb, 'MyEmbeddings', 'the whole output detached: no gradient to E', EMB.replace(
    'return torch.where(pad, x.detach(), x) * self.scale', 'return x.detach() * self.scale'))
A(nb, 'MyEmbeddings', 'the table created in forward on the first call (lazy, as Keras builds)', """
class MyEmbeddings(nn.Module):
    def __init__(self, vocab, d_model, pad_id=PAD_ID):
        super().__init__()
        self.vocab, self.d_model, self.pad_id, self.scale = vocab, d_model, pad_id, math.sqrt(d_model)
    def forward(self, tokens):
        if not hasattr(self, 'E'):
            self.E = nn.Parameter(torch.randn(self.vocab, self.d_model) * self.d_model ** -0.5)
            with torch.no_grad(): self.E[self.pad_id] = 0.0
        x, pad = self.E[tokens], (tokens == self.pad_id)[..., None]
        return torch.where(pad, x.detach(), x) * self.scale""")
A(nb, 'MyEmbeddings', "E laid out (d_model, vocab) and indexed by column (E[:, tokens])", """
class MyEmbeddings(nn.Module):
    def __init__(self, vocab, d_model, pad_id=PAD_ID):
        super().__init__()
        self.E = nn.Parameter(torch.randn(d_model, vocab) * d_model ** -0.5)
        with torch.no_grad(): self.E[:, pad_id] = 0.0
        self.pad_id, self.scale = pad_id, math.sqrt(d_model)
    def forward(self, tokens):
        x, pad = self.E[:, tokens].movedim(0, -1), (tokens == self.pad_id)[..., None]
        return torch.where(pad, x.detach(), x) * self.scale""")

# 05_positional_encoding: my_encoding, RelativeBias
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
A(nb, 'my_encoding', "sines in the first half, cosines in the second (tensor2tensor's layout)", ENC.replace(
    'pe[:, 0::2], pe[:, 1::2] = angle.sin(), angle.cos()', 'pe = torch.cat([angle.sin(), angle.cos()], -1)'))
A(nb, 'my_encoding', 'the exponent i / d_model with i the pair index', ENC.replace(
    'two_i = torch.arange(0, d_model, 2, dtype=torch.float64)', 'two_i = torch.arange(0, d_model // 2, dtype=torch.float64)'))
A(nb, 'my_encoding', 'computed in bfloat16', ENC.replace('torch.float64', 'torch.bfloat16'))
A(nb, 'my_encoding', 'integer division in the exponent: 2i // d_model', """
def my_encoding(n, d_model):
    pos = torch.arange(n)[:, None]
    two_i = torch.arange(0, d_model, 2)
    angle = pos / 10000 ** (two_i // d_model)
    pe = torch.zeros(n, d_model)
    pe[:, 0::2], pe[:, 1::2] = angle.sin(), angle.cos()
    return pe""")
A(nb, 'my_encoding', 'exponents from linspace(0, 1, d/2): the last one 1, not (d - 2)/d', ENC.replace(
    'two_i / d_model', 'torch.linspace(0, 1, d_model // 2, dtype=torch.float64)'))
A(nb, 'my_encoding', 'a list of rows, not a tensor', ENC.replace('return pe.float()', 'return pe.float().tolist()'))
A(nb, 'my_encoding', "a 5000-row table built once and returned as a view (table[:n]): edits reach the cache", """
_PE = {}
def my_encoding(n, d_model):
    if d_model not in _PE:
        pos = torch.arange(5000, dtype=torch.float64)[:, None]
        angle = pos / 10000 ** (torch.arange(0, d_model, 2, dtype=torch.float64) / d_model)
        pe = torch.zeros(5000, d_model, dtype=torch.float64)
        pe[:, 0::2], pe[:, 1::2] = angle.sin(), angle.cos()
        _PE[d_model] = pe.float()
    return _PE[d_model][:n]""")
A(nb, 'my_encoding', 'sin and cos stacked on a new first axis and reshaped to (n, d_model): rows mixed', ENC.replace(
    'pe[:, 0::2], pe[:, 1::2] = angle.sin(), angle.cos()', 'pe = torch.stack([angle.sin(), angle.cos()], 0).reshape(n, d_model)'))
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
A(nb, 'RelativeBias', "(1, h, n_q, n_k), Hugging Face T5's position_bias", RB.replace('.permute(2, 0, 1)', '.permute(2, 0, 1)[None]'))
A(nb, 'RelativeBias', '(n_q, n_k, h), the permute left out', RB.replace('.permute(2, 0, 1)', ''))
A(nb, 'RelativeBias', 'offset i - j', RB.replace('torch.arange(n_k)[None, :] - torch.arange(n_q)[:, None]', 'torch.arange(n_q)[:, None] - torch.arange(n_k)[None, :]'))
A(nb, 'RelativeBias', 'offsets not clipped: right while |j - i| <= K', RB.replace('offset.clamp(-self.K, self.K) + self.K', 'offset + self.K'))
A(nb, 'RelativeBias', 'the table a plain tensor attribute, not an nn.Parameter', RB.replace(
    'self.table = nn.Parameter(torch.randn(2 * K + 1, h) * 0.02)', 'self.table = (torch.randn(2 * K + 1, h) * 0.02).requires_grad_()'))
A(nb, 'RelativeBias', 'one column shared by the heads, expanded to h', """
class RelativeBias(nn.Module):
    def __init__(self, h, K):
        super().__init__()
        self.K, self.h = K, h
        self.table = nn.Parameter(torch.randn(2 * K + 1, 1) * 0.02)
    def forward(self, n_q, n_k):
        offset = torch.arange(n_k)[None, :] - torch.arange(n_q)[:, None]
        return self.table[offset.clamp(-self.K, self.K) + self.K].permute(2, 0, 1).expand(self.h, n_q, n_k)""")
A(nb, 'RelativeBias', 'the table created in forward on each call', """
class RelativeBias(nn.Module):
    def __init__(self, h, K):
        super().__init__()
        self.K, self.h = K, h
    def forward(self, n_q, n_k):
        self.table = nn.Parameter(torch.randn(2 * self.K + 1, self.h) * 0.02)
        offset = torch.arange(n_k)[None, :] - torch.arange(n_q)[:, None]
        return self.table[offset.clamp(-self.K, self.K) + self.K].permute(2, 0, 1)""")
A(nb, 'RelativeBias', 'a table of 2K rows: offset K wraps to row 0 (index % 2K)', """
class RelativeBias(nn.Module):
    def __init__(self, h, K):
        super().__init__()
        self.K = K
        self.table = nn.Parameter(torch.randn(2 * K, h) * 0.02)
    def forward(self, n_q, n_k):
        offset = torch.arange(n_k)[None, :] - torch.arange(n_q)[:, None]
        return self.table[(offset.clamp(-self.K, self.K) + self.K) % (2 * self.K)].permute(2, 0, 1)""")

# 06_model: MySublayer, my_forward, parsing_counts
nb = '06_model'
SUB = """
class MySublayer(nn.Module):
    def __init__(self, d_model, p_drop):
        super().__init__()
        self.norm, self.drop = nn.LayerNorm(d_model), nn.Dropout(p_drop)
    def forward(self, x, f):
        return self.norm(x + self.drop(f(x)))"""
A(nb, 'MySublayer', None, SUB)
A(nb, 'MySublayer', 'dropout after the norm: Dropout(LayerNorm(x + f(x)))', SUB.replace(
    'return self.norm(x + self.drop(f(x)))', 'return self.drop(self.norm(x + f(x)))'))
A(nb, 'MySublayer', 'dropout on the sum: LayerNorm(Dropout(x + f(x)))', SUB.replace(
    'return self.norm(x + self.drop(f(x)))', 'return self.norm(self.drop(x + f(x)))'))
A(nb, 'MySublayer', 'a LayerNorm by hand over the positions (dim=-2)', """
class MySublayer(nn.Module):
    def __init__(self, d_model, p_drop):
        super().__init__()
        self.g, self.b, self.drop = nn.Parameter(torch.ones(d_model)), nn.Parameter(torch.zeros(d_model)), nn.Dropout(p_drop)
    def forward(self, x, f):
        y = x + self.drop(f(x))
        mu, var = y.mean(-2, keepdim=True), y.var(-2, keepdim=True, unbiased=False)
        return self.g * (y - mu) / torch.sqrt(var + 1e-5) + self.b""")
A(nb, 'MySublayer', "a LayerNorm by hand with torch.var's unbiased default", """
class MySublayer(nn.Module):
    def __init__(self, d_model, p_drop):
        super().__init__()
        self.g, self.b, self.drop = nn.Parameter(torch.ones(d_model)), nn.Parameter(torch.zeros(d_model)), nn.Dropout(p_drop)
    def forward(self, x, f):
        y = x + self.drop(f(x))
        mu, var = y.mean(-1, keepdim=True), y.var(-1, keepdim=True)
        return self.g * (y - mu) / torch.sqrt(var + 1e-5) + self.b""")
A(nb, 'MySublayer', 'F.layer_norm with no learned gain and bias', """
class MySublayer(nn.Module):
    def __init__(self, d_model, p_drop):
        super().__init__()
        self.d_model, self.drop = d_model, nn.Dropout(p_drop)
    def forward(self, x, f):
        return F.layer_norm(x + self.drop(f(x)), (self.d_model,))""")
A(nb, 'MySublayer', 'nn.Dropout created in forward: never switched to eval', """
class MySublayer(nn.Module):
    def __init__(self, d_model, p_drop):
        super().__init__()
        self.norm, self.p = nn.LayerNorm(d_model), p_drop
    def forward(self, x, f):
        return self.norm(x + nn.Dropout(self.p)(f(x)))""")
A(nb, 'MySublayer', 'nn.LayerNorm created in forward: its parameters not registered', """
class MySublayer(nn.Module):
    def __init__(self, d_model, p_drop):
        super().__init__()
        self.d_model, self.drop = d_model, nn.Dropout(p_drop)
    def forward(self, x, f):
        return nn.LayerNorm(self.d_model)(x + self.drop(f(x)))""")
A(nb, 'MySublayer', 'returns (output, f(x))', SUB.replace(
    'return self.norm(x + self.drop(f(x)))', 'fx = f(x)\n        return self.norm(x + self.drop(fx)), fx'))
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
A(nb, 'my_forward', 'cross-attention without the source padding mask', FWD.replace('l.cross_attn(t, z, mask=src_mask)', 'l.cross_attn(t, z)'))
A(nb, 'my_forward', 'decoder layer i reads encoder layer i\'s output, not the last', """
def my_forward(model, src, tgt):
    def residual(norm, x, f): return norm(x + f(x))
    src_mask, tgt_mask = pad_mask(src), make_tgt_mask(tgt)
    x, zs = model.src_pos(model.src_emb(src)), []
    for l in model.encoder:
        x = residual(l.sub[0].norm, x, lambda t: l.self_attn(t, mask=src_mask))
        x = residual(l.sub[1].norm, x, l.ffn); zs.append(x)
    y = model.tgt_pos(model.tgt_emb(tgt))
    for l, z in zip(model.decoder, zs):
        y = residual(l.sub[0].norm, y, lambda t: l.self_attn(t, mask=tgt_mask))
        y = residual(l.sub[1].norm, y, lambda t: l.cross_attn(t, z, mask=src_mask))
        y = residual(l.sub[2].norm, y, l.ffn)
    return model.generator(y)""")
A(nb, 'my_forward', 'log-probabilities (log_softmax) returned, not the logits', FWD.replace('return model.generator(y)', 'return model.generator(y).log_softmax(-1)'))
A(nb, 'my_forward', 'a causal mask alone for the decoder (target pads visible)', FWD.replace(
    'make_tgt_mask(tgt)', 'torch.ones(tgt.shape[1], tgt.shape[1], dtype=torch.bool).tril()[None, None]'))
A(nb, 'my_forward', 'cross-attention before self-attention in each decoder layer', FWD.replace(
    """        y = residual(l.sub[0].norm, y, lambda t: l.self_attn(t, mask=tgt_mask))
        y = residual(l.sub[1].norm, y, lambda t: l.cross_attn(t, z, mask=src_mask))""",
    """        y = residual(l.sub[1].norm, y, lambda t: l.cross_attn(t, z, mask=src_mask))
        y = residual(l.sub[0].norm, y, lambda t: l.self_attn(t, mask=tgt_mask))"""))
PC = """
def parsing_counts():
    cfg = TransformerConfig(N=4, d_model=1024, src_vocab=16000, tgt_vocab=16000)
    with torch.device('meta'): tied = count_params(Transformer(cfg))
    return tied, tied + 2 * 16000 * 1024"""
A(nb, 'parsing_counts', None, PC)
A(nb, 'parsing_counts', 'untied counts one more matrix only (tied + vocab * d_model)', PC.replace('tied + 2 * 16000 * 1024', 'tied + 16000 * 1024'))
A(nb, 'parsing_counts', "d_ff = 4 * d_model (GPT's rule), not the base model's 2048", PC.replace('tgt_vocab=16000)', 'tgt_vocab=16000, d_ff=4096)'))
A(nb, 'parsing_counts', 'counts in millions, rounded to one decimal', PC.replace(
    'return tied, tied + 2 * 16000 * 1024', 'return round(tied / 1e6, 1), round((tied + 2 * 16000 * 1024) / 1e6, 1)'))
A(nb, 'parsing_counts', 'a dict {tied, untied}, not a pair', PC.replace(
    'return tied, tied + 2 * 16000 * 1024', "return {'tied': tied, 'untied': tied + 2 * 16000 * 1024}"))

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
A(nb, 'restricted_attention', 'the padded rows kept at score 0 (zero keys, no -inf)', RA.replace(
    "    s = s.masked_fill((j < 0) | (j >= n), float('-inf'))\n", ''))
A(nb, 'restricted_attention', 'full attention under local_mask: an n x n matrix built', """
def restricted_attention(q, k, v, r):
    return attention(q, k, v, local_mask(q.shape[-2], r))[0]""")
A(nb, 'restricted_attention', 'scaled by sqrt of the window size 2w + 1, not sqrt(d_k)', RA.replace('q.shape[-1] ** 0.5', '(2 * w + 1) ** 0.5'))
A(nb, 'restricted_attention', "circular padding (F.pad mode='circular'): the windows wrap around", """
def restricted_attention(q, k, v, r):
    n, w = q.shape[-2], r // 2
    win = lambda t: torch.cat([t[..., n - w:, :], t, t[..., :w, :]], -2).unfold(-2, 2 * w + 1, 1)
    s = torch.einsum('bhnd,bhndw->bhnw', q, win(k)) / q.shape[-1] ** 0.5
    return torch.einsum('bhnw,bhndw->bhnd', s.softmax(-1), win(v))""")
A(nb, 'restricted_attention', "unfold's windows read by reshape as (.., 2w + 1, d_k), not permuted", RA.replace(
    "win = lambda t: F.pad(t, (0, 0, w, w)).unfold(-2, 2 * w + 1, 1)",
    "win = lambda t: F.pad(t, (0, 0, w, w)).unfold(-2, 2 * w + 1, 1).reshape(*t.shape[:-1], 2 * w + 1, t.shape[-1]).transpose(-1, -2)"))
A(nb, 'restricted_attention', 'the right padding masked from j > n, not j >= n', RA.replace('(j >= n)', '(j > n)'))
A(nb, 'restricted_attention', 'returns (output, weights)', RA.replace(
    "    return torch.einsum('bhnw,bhndw->bhnd', s.softmax(-1), win(v))",
    "    p = s.softmax(-1)\n    return torch.einsum('bhnw,bhndw->bhnd', p, win(v)), p"))
A(nb, 'restricted_attention', 'the values windowed from k (copy-paste)', RA.replace("s.softmax(-1), win(v))", "s.softmax(-1), win(k))"))
A(nb, 'restricted_attention', 'computed in float64 and returned so', RA.replace(
    "    n, w = q.shape[-2], r // 2\n", "    n, w = q.shape[-2], r // 2\n    q, k, v = q.double(), k.double(), v.double()\n"))
A(nb, 'restricted_attention', 'softmax over the queries (dim=-2), not the window', RA.replace('s.softmax(-1)', 's.softmax(-2)'))
