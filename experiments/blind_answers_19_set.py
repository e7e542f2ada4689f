"""The nineteenth blind set's answers, for the notebooks 00_core to 07_why_self_attention only, written from the
exercises' text alone: (notebook, exercise, mistake, code), the mistake None for the right answer.
`experiments/blind_answers.py 19` runs them. This set leans toward learners who bring another tool's habits (NumPy's
zeros and linspace, JAX's .T, Keras's pre-padding, one-hot matmuls and Dense kernels, C loops with .item(), early
returns from loops, in-place edits of the inputs, the example's sizes hard-coded) and other sources' conventions
(Hugging Face's left padding, pad_to_multiple_of, additive finfo.min mask and (1, h, n_q, n_k) position bias; fairseq's
lengths, pre-scaled queries; tensor2tensor's [sin | cos] halves; the Annotated Transformer's Xavier loop and mask == 0;
Longformer's one-sided window; BERT's 37k vocabulary) and toward right values in the wrong container, dtype or shape
(NumPy arrays, Python lists, tuples, dicts, float, float16, float32 and int32 tensors, a squeezed batch of one)."""
ANSWERS = []
def A(nb, ex, mistake, code): ANSWERS.append((nb, ex, mistake, code))

# 00_core: pad_batch
nb = '00_core'
A(nb, 'pad_batch', None, """
def pad_batch(seqs, pad_id=PAD_ID):
    n = max(len(s) for s in seqs)
    return torch.tensor([list(s) + [pad_id] * (n - len(s)) for s in seqs], dtype=torch.long)""")
PAD = """
def pad_batch(seqs, pad_id=PAD_ID):
    n = max(len(s) for s in seqs)
    return torch.tensor([list(s) + [pad_id] * (n - len(s)) for s in seqs], dtype=torch.long)"""
A(nb, 'pad_batch', 'a NumPy int64 array (np.array of the padded rows)', """
import numpy as np
def pad_batch(seqs, pad_id=PAD_ID):
    n = max(len(s) for s in seqs)
    return np.array([list(s) + [pad_id] * (n - len(s)) for s in seqs])""")
A(nb, 'pad_batch', 'int32 ids (an ONNX or TensorFlow habit)', PAD.replace('torch.long', 'torch.int32'))
A(nb, 'pad_batch', 'torch.Tensor(...) constructor: float32 ids', """
def pad_batch(seqs, pad_id=PAD_ID):
    n = max(len(s) for s in seqs)
    return torch.Tensor([list(s) + [pad_id] * (n - len(s)) for s in seqs])""")
A(nb, 'pad_batch', "left padding (Hugging Face's padding_side='left' for generation)", """
def pad_batch(seqs, pad_id=PAD_ID):
    n = max(len(s) for s in seqs)
    return torch.tensor([[pad_id] * (n - len(s)) + list(s) for s in seqs])""")
A(nb, 'pad_batch', "padded to a multiple of 8 (Hugging Face's pad_to_multiple_of=8)", """
def pad_batch(seqs, pad_id=PAD_ID):
    n = max(len(s) for s in seqs)
    n = (n + 7) // 8 * 8
    return torch.tensor([list(s) + [pad_id] * (n - len(s)) for s in seqs])""")
A(nb, 'pad_batch', 'torch.zeros prefilled: pads with 0 whatever pad_id', """
def pad_batch(seqs, pad_id=PAD_ID):
    out = torch.zeros(len(seqs), max(len(s) for s in seqs), dtype=torch.long)
    for i, s in enumerate(seqs): out[i, :len(s)] = torch.tensor(s)
    return out""")
A(nb, 'pad_batch', 'each input list extended in place with the pads', """
def pad_batch(seqs, pad_id=PAD_ID):
    n = max(len(s) for s in seqs)
    for s in seqs: s.extend([pad_id] * (n - len(s)))
    return torch.tensor(seqs)""")
A(nb, 'pad_batch', "fairseq's (ids, lengths) pair", """
def pad_batch(seqs, pad_id=PAD_ID):
    n = max(len(s) for s in seqs)
    return torch.tensor([list(s) + [pad_id] * (n - len(s)) for s in seqs]), torch.tensor([len(s) for s in seqs])""")
A(nb, 'pad_batch', "rows sorted longest first (pack_padded_sequence's enforce_sorted)", """
def pad_batch(seqs, pad_id=PAD_ID):
    seqs = sorted(seqs, key=len, reverse=True)
    n = len(seqs[0])
    return torch.tensor([list(s) + [pad_id] * (n - len(s)) for s in seqs])""")
A(nb, 'pad_batch', "zip(*seqs) transposed back: every row cut to the shortest", """
def pad_batch(seqs, pad_id=PAD_ID):
    return torch.tensor(list(zip(*seqs))).T.contiguous()""")
A(nb, 'pad_batch', 'squeeze() at the end: a batch of one loses its batch axis', PAD.replace(
    'for s in seqs], dtype=torch.long)', 'for s in seqs], dtype=torch.long).squeeze()'))
A(nb, 'pad_batch', 'a padded list of lists, no tensor', """
def pad_batch(seqs, pad_id=PAD_ID):
    n = max(len(s) for s in seqs)
    return [list(s) + [pad_id] * (n - len(s)) for s in seqs]""")
A(nb, 'pad_batch', 'np.zeros(...) + pad_id filled row by row, torch.from_numpy: float64', """
import numpy as np
def pad_batch(seqs, pad_id=PAD_ID):
    out = np.zeros((len(seqs), max(len(s) for s in seqs))) + pad_id
    for i, s in enumerate(seqs): out[i, :len(s)] = s
    return torch.from_numpy(out)""")
A(nb, 'pad_batch', 'the pads put before the last token (EOS kept at the end of each row)', """
def pad_batch(seqs, pad_id=PAD_ID):
    n = max(len(s) for s in seqs)
    return torch.tensor([list(s[:-1]) + [pad_id] * (n - len(s)) + list(s[-1:]) for s in seqs])""")
A(nb, 'pad_batch', 'a return inside the loop: only the first row, padded', """
def pad_batch(seqs, pad_id=PAD_ID):
    n = max(len(s) for s in seqs)
    for s in seqs:
        return torch.tensor([list(s) + [pad_id] * (n - len(s))])""")

# 01_attention: my_attention, restricted_mask
nb = '01_attention'
A(nb, 'attention', None, """
def my_attention(q, k, v, mask=None):
    s = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if mask is not None: s = s.masked_fill(~mask, float('-inf'))
    w = s.softmax(dim=-1)
    if mask is not None: w = w.masked_fill(~mask, 0.0)
    return w @ v, w""")
A(nb, 'restricted_mask', None, """
def restricted_mask(n, r):
    i = torch.arange(n)
    return ((i[:, None] - i[None, :]).abs() <= r // 2)[None, None]""")
ATT = """
def my_attention(q, k, v, mask=None):
    s = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if mask is not None: s = s.masked_fill(~mask, float('-inf'))
    w = s.softmax(dim=-1)
    if mask is not None: w = w.masked_fill(~mask, 0.0)
    return w @ v, w"""
A(nb, 'attention', "the Annotated Transformer's masked_fill(mask == 0, -1e9): an all-masked row gets uniform weights", """
def my_attention(q, k, v, mask=None):
    s = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if mask is not None: s = s.masked_fill(mask == 0, -1e9)
    w = s.softmax(dim=-1)
    return w @ v, w""")
A(nb, 'attention', "Hugging Face's additive mask (1 - mask) * finfo.min", """
def my_attention(q, k, v, mask=None):
    s = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if mask is not None: s = s + (1.0 - mask.to(s.dtype)) * torch.finfo(s.dtype).min
    w = s.softmax(dim=-1)
    return w @ v, w""")
A(nb, 'attention', 'scaled by sqrt(d_v), the values\' size', ATT.replace('math.sqrt(q.shape[-1])', 'math.sqrt(v.shape[-1])'))
A(nb, 'attention', 'the output returned as a NumPy array', ATT.replace('return w @ v, w', 'return (w @ v).detach().numpy(), w'))
A(nb, 'attention', 'the output alone, no weights', ATT.replace('return w @ v, w', 'return w @ v'))
A(nb, 'attention', '(weights, output): the pair the other way round', ATT.replace('return w @ v, w', 'return w, w @ v'))
A(nb, 'attention', 'softmax over the queries (dim=-2)', ATT.replace('s.softmax(dim=-1)', 's.softmax(dim=-2)'))
A(nb, 'attention', "k.T, NumPy's transpose: every axis reversed", ATT.replace('k.transpose(-2, -1)', 'k.T'))
A(nb, 'attention', 'the mask multiplied into the weights after the softmax, not renormalised', """
def my_attention(q, k, v, mask=None):
    w = (q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])).softmax(dim=-1)
    if mask is not None: w = w * mask
    return w @ v, w""")
A(nb, 'attention', 'q scaled in place (q /= sqrt(d_k)): the caller\'s q changed', """
def my_attention(q, k, v, mask=None):
    q /= math.sqrt(q.shape[-1])
    s = q @ k.transpose(-2, -1)
    if mask is not None: s = s.masked_fill(~mask, float('-inf'))
    w = s.softmax(dim=-1)
    if mask is not None: w = w.masked_fill(~mask, 0.0)
    return w @ v, w""")
A(nb, 'attention', 'computed in float32 (.float()) whatever the inputs', ATT.replace(
    's = q @ k.transpose(-2, -1)', 'q, k, v = q.float(), k.float(), v.float()\n    s = q @ k.transpose(-2, -1)'))
A(nb, 'attention', "einsum written for 3-d inputs ('bqd,bkd->bqk')", """
def my_attention(q, k, v, mask=None):
    s = torch.einsum('bqd,bkd->bqk', q, k) / math.sqrt(q.shape[-1])
    if mask is not None: s = s.masked_fill(~mask, float('-inf'))
    w = s.softmax(dim=-1)
    if mask is not None: w = w.masked_fill(~mask, 0.0)
    return torch.einsum('bqk,bkd->bqd', w, v), w""")
RM = """
def restricted_mask(n, r):
    i = torch.arange(n)
    return ((i[:, None] - i[None, :]).abs() <= r // 2)[None, None]"""
A(nb, 'restricted_mask', 'a float band of ones (triu/tril), not bool', """
def restricted_mask(n, r):
    return torch.ones(n, n).triu(-(r // 2)).tril(r // 2)[None, None]""")
A(nb, 'restricted_mask', 'strict |i - j| < r // 2', RM.replace('<= r // 2', '< r // 2'))
A(nb, 'restricted_mask', '(r - 1) / 2 as the half-width: an even r loses a key each side', RM.replace('<= r // 2', '<= (r - 1) / 2'))
A(nb, 'restricted_mask', 'a NumPy bool array', """
import numpy as np
def restricted_mask(n, r):
    i = np.arange(n)
    return (np.abs(i[:, None] - i[None, :]) <= r // 2)[None, None]""")
A(nb, 'restricted_mask', 'a 0/1 long mask (.long())', RM.replace('[None, None]', '[None, None].long()'))
A(nb, 'restricted_mask', "True = masked out (nn.MultiheadAttention's bool attn_mask)", RM.replace('<= r // 2', '> r // 2'))

# 02_multihead: split_heads/merge_heads, LoopMHA
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
A(nb, 'heads', 'split by a straight view to (B, h, n, d), no transpose', """
def split_heads(x, h):
    B, n, hd = x.shape
    return x.reshape(B, h, n, hd // h)""" + MERGE)
A(nb, 'heads', 'heads interleaved: view (B, n, d, h), head axis last moved forward', """
def split_heads(x, h):
    B, n, hd = x.shape
    return x.view(B, n, hd // h, h).permute(0, 3, 1, 2)""" + MERGE)
A(nb, 'heads', 'merge with .view after the transpose (not contiguous)', SPLIT + """
def merge_heads(x):
    B, h, n, d = x.shape
    return x.transpose(1, 2).view(B, n, h * d)""")
A(nb, 'heads', 'h read as the head size d (x.view(B, n, -1, h))', """
def split_heads(x, h):
    B, n, hd = x.shape
    return x.view(B, n, -1, h).transpose(1, 2)""" + MERGE)
A(nb, 'heads', 'h = 8 hard-coded (the base model)', """
def split_heads(x, h):
    B, n, hd = x.shape
    return x.view(B, n, 8, hd // 8).transpose(1, 2)""" + MERGE)
A(nb, 'heads', 'merge left at (B, n, h, d): the heads never flattened', SPLIT + """
def merge_heads(x):
    return x.transpose(1, 2)""")
A(nb, 'heads', 'split returns the tuple of x.chunk(h, -1)', """
def split_heads(x, h):
    return x.chunk(h, -1)""" + MERGE)
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
A(nb, 'LoopMHA', "the paper's W layout: each head's rows copied transposed", LOOP.replace(
    'lin.weight.copy_(W.weight[rows])', 'lin.weight.copy_(W.weight[rows].T)'))
A(nb, 'LoopMHA', "bias-free head projections (LLaMA's), only the weights loaded", LOOP.replace(
    'nn.Linear(d_model, self.d_k) for', 'nn.Linear(d_model, self.d_k, bias=False) for').replace(
    '; lin.bias.copy_(W.bias[rows])', ''))
A(nb, 'LoopMHA', 'scores scaled by sqrt(d_model), attention written by hand', LOOP.replace(
    "heads = [attention(q(x), k(mem), v(mem), m)[0] for q, k, v in zip(self.w_q, self.w_k, self.w_v)]",
    "heads = [attention(q(x), k(mem), v(mem), m, scale=(self.h * self.d_k) ** -0.5)[0] for q, k, v in zip(self.w_q, self.w_k, self.w_v)]"))
A(nb, 'LoopMHA', 'the (B, 1, n_q, n_k) mask passed to each head as it is', LOOP.replace(
    'm = None if mask is None else mask[:, 0]', 'm = mask'))
A(nb, 'LoopMHA', 'keys and values from x always: mem ignored', LOOP.replace(
    'k(mem), v(mem)', 'k(x), v(x)'))
A(nb, 'LoopMHA', 'plain Python lists of Linears, not ModuleLists', LOOP.replace(
    'heads = lambda: nn.ModuleList(nn.Linear(d_model, self.d_k) for _ in range(h))',
    'heads = lambda: [nn.Linear(d_model, self.d_k) for _ in range(h)]'))
A(nb, 'LoopMHA', 'W^O loaded transposed (w_o.weight.T)', LOOP.replace(
    'self.w_o.load_state_dict(mha.w_o.state_dict())',
    'self.w_o.weight.copy_(mha.w_o.weight.T); self.w_o.bias.copy_(mha.w_o.bias)'))
A(nb, 'LoopMHA', "queries pre-scaled by d_k ** -0.5 (fairseq's self.scaling), then scaled again by attention", LOOP.replace(
    'attention(q(x), k(mem)', 'attention(q(x) * self.d_k ** -0.5, k(mem)'))

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
A(nb, 'conv_to_ffn', 'weight.squeeze() without an axis', CONV.replace('c.weight[:, :, 0]', 'c.weight.squeeze()'))
A(nb, 'conv_to_ffn', "Keras's Dense kernel (in, out): each weight copied transposed", CONV.replace(
    'c.weight[:, :, 0]', 'c.weight[:, :, 0].T'))
A(nb, 'conv_to_ffn', 'd_model and d_ff read the other way from the weight shape', CONV.replace(
    'd_ff, d_model, _ = conv[0].weight.shape', 'd_model, d_ff, _ = conv[0].weight.shape'))
A(nb, 'conv_to_ffn', 'biases not copied (FeedForward starts them at zero)', CONV.replace('; lin.bias.copy_(c.bias)', ''))
A(nb, 'conv_to_ffn', 'an nn.Sequential(Linear, ReLU, Linear), not a FeedForward', '''
def conv_to_ffn(conv):
    d_ff, d_model, _ = conv[0].weight.shape
    seq = nn.Sequential(nn.Linear(d_model, d_ff), nn.ReLU(), nn.Linear(d_ff, d_model))
    with torch.no_grad():
        for lin, c in zip((seq[0], seq[2]), (conv[0], conv[2])):
            lin.weight.copy_(c.weight[:, :, 0]); lin.bias.copy_(c.bias)
    return seq''')
A(nb, 'conv_to_ffn', 'conv[1] (the ReLU) taken as the second convolution', CONV.replace('(conv[0], conv[2])', '(conv[0], conv[1])'))
A(nb, 'conv_to_ffn', 'the FeedForward returned in float64 (.double())', CONV.replace('    return ffn', '    return ffn.double()'))
A(nb, 'conv_to_ffn', '(out, in, 1) reshaped to (in, out) and transposed', CONV.replace(
    'c.weight[:, :, 0]', 'c.weight.reshape(c.weight.shape[1], c.weight.shape[0]).T'))
A(nb, 'conv_to_ffn', 'only the first convolution copied', CONV.replace(
    'zip((ffn.w_1, ffn.w_2), (conv[0], conv[2]))', 'zip((ffn.w_1,), (conv[0],))'))
A(nb, 'conv_to_ffn', "the convolutions' weights squeezed in place (the input stack changed)", '''
def conv_to_ffn(conv):
    d_ff, d_model, _ = conv[0].weight.shape
    ffn = FeedForward(d_model, d_ff)
    with torch.no_grad():
        for lin, c in zip((ffn.w_1, ffn.w_2), (conv[0], conv[2])):
            c.weight.data = c.weight.data.squeeze(-1)
            lin.weight.copy_(c.weight); lin.bias.copy_(c.bias)
    return ffn''')
A(nb, 'conv_to_ffn', "d_ff read from the second convolution's output channels", '''
def conv_to_ffn(conv):
    d_model, d_ff = conv[0].weight.shape[1], conv[2].weight.shape[0]
    ffn = FeedForward(d_model, d_ff)
    with torch.no_grad():
        for lin, c in zip((ffn.w_1, ffn.w_2), (conv[0], conv[2])):
            lin.weight.copy_(c.weight[:, :, 0]); lin.bias.copy_(c.bias)
    return ffn''')
A(nb, 'conv_to_ffn', 'copy_ into the parameters outside torch.no_grad', '''
def conv_to_ffn(conv):
    d_ff, d_model, _ = conv[0].weight.shape
    ffn = FeedForward(d_model, d_ff)
    for lin, c in zip((ffn.w_1, ffn.w_2), (conv[0], conv[2])):
        lin.weight.copy_(c.weight[:, :, 0]); lin.bias.copy_(c.bias)
    return ffn''')
A(nb, 'conv_to_ffn', "the base model's sizes hard-coded: FeedForward(512, 2048)", CONV.replace(
    'FeedForward(d_model, d_ff)', 'FeedForward(512, 2048)'))
A(nb, 'conv_to_ffn', 'the state_dict of the FeedForward returned, not the module', CONV.replace(
    '    return ffn', '    return ffn.state_dict()'))

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
A(nb, 'MyEmbeddings', 'std 1/d_model (the variance read as the std)', EMB.replace(
    'torch.randn(vocab, d_model) * d_model ** -0.5', 'torch.randn(vocab, d_model) / d_model'))
A(nb, 'MyEmbeddings', 'divided by sqrt(d_model), not multiplied', EMB.replace(
    'self.scale = pad_id, math.sqrt(d_model)', 'self.scale = pad_id, d_model ** -0.5'))
A(nb, 'MyEmbeddings', 'an nn.Embedding inside (its weight, no parameter E of its own)', '''
class MyEmbeddings(nn.Module):
    def __init__(self, vocab, d_model, pad_id=PAD_ID):
        super().__init__()
        self.emb = nn.Embedding(vocab, d_model, padding_idx=pad_id)
        nn.init.normal_(self.emb.weight, std=d_model ** -0.5)
        with torch.no_grad(): self.emb.weight[pad_id] = 0.0
        self.scale = math.sqrt(d_model)
    def forward(self, tokens): return self.emb(tokens) * self.scale''')
A(nb, 'MyEmbeddings', 'the outputs at the padding positions zeroed', EMB.replace(
    'return torch.where(pad, x.detach(), x) * self.scale', 'return x * (~pad) * self.scale'))
A(nb, 'MyEmbeddings', 'plain indexing E[tokens]: the padding row trained', EMB.replace(
    'return torch.where(pad, x.detach(), x) * self.scale', 'return x * self.scale'))
A(nb, 'MyEmbeddings', 'one-hot matmul (F.one_hot(tokens) @ E, a Keras habit)', EMB.replace(
    'x, pad = self.E[tokens], (tokens == self.pad_id)[..., None]\n        return torch.where(pad, x.detach(), x) * self.scale',
    'return F.one_hot(tokens, self.E.shape[0]).to(self.E.dtype) @ self.E * self.scale'))
A(nb, 'MyEmbeddings', 'the padding row not zeroed at initialisation', EMB.replace(
    '        with torch.no_grad(): self.E[pad_id] = 0.0\n', ''))
A(nb, 'MyEmbeddings', 'row 0 taken as padding whatever pad_id', EMB.replace(
    'self.E[pad_id] = 0.0', 'self.E[0] = 0.0').replace('(tokens == self.pad_id)', '(tokens == 0)'))
A(nb, 'MyEmbeddings', 'returns (B, d_model, n), a Conv1d layout', EMB.replace(
    'return torch.where(pad, x.detach(), x) * self.scale', 'return (torch.where(pad, x.detach(), x) * self.scale).transpose(1, 2)'))
A(nb, 'MyEmbeddings', 'E registered as a buffer, not a parameter', EMB.replace(
    'self.E = nn.Parameter(torch.randn(vocab, d_model) * d_model ** -0.5)',
    "self.register_buffer('E', torch.randn(vocab, d_model) * d_model ** -0.5)"))
A(nb, 'MyEmbeddings', 'E a plain tensor with requires_grad, not an nn.Parameter', EMB.replace(
    'self.E = nn.Parameter(torch.randn(vocab, d_model) * d_model ** -0.5)\n        with torch.no_grad(): self.E[pad_id] = 0.0',
    'E = torch.randn(vocab, d_model) * d_model ** -0.5\n        E[pad_id] = 0.0\n        self.E = E.requires_grad_()'))
A(nb, 'MyEmbeddings', "Xavier-uniform init (the Annotated Transformer's loop over p.dim() > 1)", EMB.replace(
    'self.E = nn.Parameter(torch.randn(vocab, d_model) * d_model ** -0.5)',
    'self.E = nn.Parameter(nn.init.xavier_uniform_(torch.empty(vocab, d_model)))'))
A(nb, 'MyEmbeddings', "N(0, 1), nn.Embedding's default init", EMB.replace(
    'torch.randn(vocab, d_model) * d_model ** -0.5', 'torch.randn(vocab, d_model)'))
A(nb, 'MyEmbeddings', 'tokens flattened: returns (B * n, d_model)', EMB.replace(
    'x, pad = self.E[tokens], (tokens == self.pad_id)[..., None]',
    'tokens = tokens.view(-1)\n        x, pad = self.E[tokens], (tokens == self.pad_id)[..., None]'))
A(nb, 'MyEmbeddings', "the base model's sqrt(512) hard-coded", EMB.replace(
    'self.scale = pad_id, math.sqrt(d_model)', 'self.scale = pad_id, math.sqrt(512)'))

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
RB = '''
class RelativeBias(nn.Module):
    def __init__(self, h, K):
        super().__init__()
        self.K = K
        self.table = nn.Parameter(torch.randn(2 * K + 1, h) * 0.02)
    def forward(self, n_q, n_k):
        offset = torch.arange(n_k)[None, :] - torch.arange(n_q)[:, None]
        return self.table[offset.clamp(-self.K, self.K) + self.K].permute(2, 0, 1)'''
A(nb, 'my_encoding', None, ENC)
A(nb, 'RelativeBias', None, RB)
A(nb, 'my_encoding', "tensor2tensor's layout: all sines, then all cosines ([sin | cos])", ENC.replace(
    'pe[:, 0::2], pe[:, 1::2] = angle.sin(), angle.cos()', 'pe = torch.cat([angle.sin(), angle.cos()], -1)'))
A(nb, 'my_encoding', 'positions 1 .. n', ENC.replace('torch.arange(n, dtype', 'torch.arange(1, n + 1, dtype'))
A(nb, 'my_encoding', 'each column its own frequency 10000^(j/d_model), j the column, not the pair\'s 2i', '''
def my_encoding(n, d_model):
    pos = torch.arange(n, dtype=torch.float64)[:, None]
    j = torch.arange(d_model, dtype=torch.float64)
    angle = pos / 10000 ** (j / d_model)
    pe = angle.clone()
    pe[:, 0::2], pe[:, 1::2] = angle[:, 0::2].sin(), angle[:, 1::2].cos()
    return pe.float()''')
A(nb, 'my_encoding', 'a NumPy array', ENC.replace('return pe.float()', 'return pe.float().numpy()'))
A(nb, 'my_encoding', 'a Python list of rows (tolist())', ENC.replace('return pe.float()', 'return pe.float().tolist()'))
A(nb, 'my_encoding', 'float16 (half precision)', ENC.replace('return pe.float()', 'return pe.half()'))
A(nb, 'my_encoding', 'the angle pos * 10000^(2i/d_model): multiplied, not divided', ENC.replace(
    'angle = pos / 10000 ** (two_i / d_model)', 'angle = pos * 10000 ** (two_i / d_model)'))
A(nb, 'my_encoding', 'd_model = 512 hard-coded in the frequencies', ENC.replace(
    'angle = pos / 10000 ** (two_i / d_model)', 'angle = pos / 10000 ** (two_i / 512)'))
A(nb, 'my_encoding', "positions from NumPy's linspace(0, n, n): steps of n / (n - 1)", ENC.replace(
    'pos = torch.arange(n, dtype=torch.float64)[:, None]', 'pos = torch.linspace(0, n, n, dtype=torch.float64)[:, None]'))
A(nb, 'my_encoding', 'cosine in the even dimensions, sine in the odd', ENC.replace(
    'angle.sin(), angle.cos()', 'angle.cos(), angle.sin()'))
A(nb, 'RelativeBias', 'the offset i - j, the sign reversed', RB.replace(
    'torch.arange(n_k)[None, :] - torch.arange(n_q)[:, None]', 'torch.arange(n_q)[:, None] - torch.arange(n_k)[None, :]'))
A(nb, 'RelativeBias', 'returned as (n_q, n_k, h), not permuted', RB.replace('.permute(2, 0, 1)', ''))
A(nb, 'RelativeBias', 'the table laid out (h, 2K + 1)', '''
class RelativeBias(nn.Module):
    def __init__(self, h, K):
        super().__init__()
        self.K = K
        self.table = nn.Parameter(torch.randn(h, 2 * K + 1) * 0.02)
    def forward(self, n_q, n_k):
        offset = torch.arange(n_k)[None, :] - torch.arange(n_q)[:, None]
        return self.table[:, offset.clamp(-self.K, self.K) + self.K]''')
A(nb, 'RelativeBias', 'offsets wrapped modulo 2K + 1, not clipped', RB.replace(
    'offset.clamp(-self.K, self.K) + self.K', '(offset + self.K) % (2 * self.K + 1)'))
A(nb, 'RelativeBias', 'entries read with .item() in C-style loops: no gradient', '''
class RelativeBias(nn.Module):
    def __init__(self, h, K):
        super().__init__()
        self.K = K
        self.table = nn.Parameter(torch.randn(2 * K + 1, h) * 0.02)
    def forward(self, n_q, n_k):
        h = self.table.shape[1]
        b = torch.zeros(h, n_q, n_k)
        for a in range(h):
            for i in range(n_q):
                for j in range(n_k):
                    b[a, i, j] = self.table[max(-self.K, min(self.K, j - i)) + self.K, a].item()
        return b''')
A(nb, 'RelativeBias', 'a table of 2K rows, offsets clipped to [-K, K - 1]', '''
class RelativeBias(nn.Module):
    def __init__(self, h, K):
        super().__init__()
        self.K = K
        self.table = nn.Parameter(torch.randn(2 * K, h) * 0.02)
    def forward(self, n_q, n_k):
        offset = torch.arange(n_k)[None, :] - torch.arange(n_q)[:, None]
        return self.table[offset.clamp(-self.K, self.K - 1) + self.K].permute(2, 0, 1)''')
A(nb, 'RelativeBias', "a leading batch axis (1, h, n_q, n_k), Hugging Face's T5 position_bias", RB.replace(
    '.permute(2, 0, 1)', '.permute(2, 0, 1)[None]'))

# 06_model: MySublayer, my_forward, parsing_counts
nb = '06_model'
SUB = '''
class MySublayer(nn.Module):
    def __init__(self, d_model, p_drop):
        super().__init__()
        self.norm, self.drop = nn.LayerNorm(d_model), nn.Dropout(p_drop)
    def forward(self, x, f):
        return self.norm(x + self.drop(f(x)))'''
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
CNT = '''
def parsing_counts():
    cfg = TransformerConfig(N=4, d_model=1024, src_vocab=16000, tgt_vocab=16000)
    with torch.device('meta'): tied = count_params(Transformer(cfg))
    return tied, tied + 2 * 16000 * 1024'''
A(nb, 'MySublayer', None, SUB)
A(nb, 'my_forward', None, FWD)
A(nb, 'parsing_counts', None, CNT)
A(nb, 'MySublayer', "pre-LN (GPT-2's): x + Dropout(f(LayerNorm(x)))", SUB.replace(
    'return self.norm(x + self.drop(f(x)))', 'return x + self.drop(f(self.norm(x)))'))
A(nb, 'MySublayer', 'dropout after the residual sum: LayerNorm(Dropout(x + f(x)))', SUB.replace(
    'return self.norm(x + self.drop(f(x)))', 'return self.norm(self.drop(x + f(x)))'))
A(nb, 'MySublayer', 'LayerNorm without gain and bias (elementwise_affine=False)', SUB.replace(
    'nn.LayerNorm(d_model)', 'nn.LayerNorm(d_model, elementwise_affine=False)'))
A(nb, 'MySublayer', 'normalised over the positions (axis 1) by hand', '''
class MySublayer(nn.Module):
    def __init__(self, d_model, p_drop):
        super().__init__()
        self.g, self.b, self.drop = nn.Parameter(torch.ones(d_model)), nn.Parameter(torch.zeros(d_model)), nn.Dropout(p_drop)
    def forward(self, x, f):
        y = x + self.drop(f(x))
        mu, var = y.mean(1, keepdim=True), y.var(1, unbiased=False, keepdim=True)
        return self.g * (y - mu) / (var + 1e-5).sqrt() + self.b''')
A(nb, 'MySublayer', 'the branch normalised alone: x + LayerNorm(Dropout(f(x)))', SUB.replace(
    'return self.norm(x + self.drop(f(x)))', 'return x + self.norm(self.drop(f(x)))'))
A(nb, 'my_forward', 'the embeddings read from the lut: not scaled by sqrt(d_model)', FWD.replace(
    'model.src_pos(model.src_emb(src))', 'model.src_pos(model.src_emb.lut(src))').replace(
    'model.tgt_pos(model.tgt_emb(tgt))', 'model.tgt_pos(model.tgt_emb.lut(tgt))'))
A(nb, 'my_forward', 'the decoder self-attention given pad_mask(tgt) alone', FWD.replace(
    'src_mask, tgt_mask = pad_mask(src), make_tgt_mask(tgt)', 'src_mask, tgt_mask = pad_mask(src), pad_mask(tgt)'))
A(nb, 'my_forward', 'cross-attention without the source padding mask', FWD.replace(
    'l.cross_attn(t, z, mask=src_mask)', 'l.cross_attn(t, z)'))
A(nb, 'my_forward', 'a return inside the encoder loop: the memory after one layer', '''
def my_forward(model, src, tgt):
    def residual(norm, x, f): return norm(x + f(x))
    src_mask, tgt_mask = pad_mask(src), make_tgt_mask(tgt)
    def encode(x):
        for l in model.encoder:
            x = residual(l.sub[0].norm, x, lambda t: l.self_attn(t, mask=src_mask))
            return residual(l.sub[1].norm, x, l.ffn)
    z = encode(model.src_pos(model.src_emb(src)))
    y = model.tgt_pos(model.tgt_emb(tgt))
    for l in model.decoder:
        y = residual(l.sub[0].norm, y, lambda t: l.self_attn(t, mask=tgt_mask))
        y = residual(l.sub[1].norm, y, lambda t: l.cross_attn(t, z, mask=src_mask))
        y = residual(l.sub[2].norm, y, l.ffn)
    return model.generator(y)''')
A(nb, 'my_forward', 'cross_attn(z, t): the memory read as the query', FWD.replace(
    'l.cross_attn(t, z, mask=src_mask)', 'l.cross_attn(z, t, mask=src_mask)'))
A(nb, 'my_forward', 'every sub-layer normed by sub[0].norm', FWD.replace('sub[1].norm', 'sub[0].norm').replace('sub[2].norm', 'sub[0].norm'))
A(nb, 'my_forward', 'the decoder output returned, the generator left out', FWD.replace(
    'return model.generator(y)', 'return y'))
A(nb, 'parsing_counts', 'the translation vocabulary (37000) kept', CNT.replace(
    ', src_vocab=16000, tgt_vocab=16000', '').replace('2 * 16000 * 1024', '2 * 37000 * 1024'))
A(nb, 'parsing_counts', "N = 6, the base model's depth", CNT.replace('N=4', 'N=6'))
A(nb, 'parsing_counts', "d_ff = 4096 (4 d_model, the big model's)", CNT.replace('d_model=1024,', 'd_model=1024, d_ff=4096,'))
A(nb, 'parsing_counts', 'untied counted with one extra matrix, not two', CNT.replace('2 * 16000 * 1024', '16000 * 1024'))
A(nb, 'parsing_counts', '(untied, tied): the pair the other way round', CNT.replace(
    'return tied, tied + 2 * 16000 * 1024', 'return tied + 2 * 16000 * 1024, tied'))
A(nb, 'parsing_counts', "a dict {'tied': ..., 'untied': ...}", CNT.replace(
    'return tied, tied + 2 * 16000 * 1024', "return {'tied': tied, 'untied': tied + 2 * 16000 * 1024}"))

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
A(nb, 'restricted_attention', 'the zero rows padded in left with score 0, not -inf', RA.replace(
    "    s = s.masked_fill((j < 0) | (j >= n), float('-inf'))\n", ''))
A(nb, 'restricted_attention', 'no 1/sqrt(d_k) scaling', RA.replace(' / q.shape[-1] ** 0.5', ''))
A(nb, 'restricted_attention', 'divided by sqrt of the window size, not of d_k', RA.replace(
    ' / q.shape[-1] ** 0.5', ' / (2 * w + 1) ** 0.5'))
A(nb, 'restricted_attention', 'full n x n scores masked with local_mask', '''
def restricted_attention(q, k, v, r):
    return attention(q, k, v, local_mask(q.shape[-2], r))[0]''')
A(nb, 'restricted_attention', "F.pad(t, (w, w)): the feature axis padded, not the positions", RA.replace(
    'F.pad(t, (0, 0, w, w))', 'F.pad(t, (w, w))'))
A(nb, 'restricted_attention', 'windows of r rows (an even r: one short, shifted)', RA.replace(
    'unfold(-2, 2 * w + 1, 1)', 'unfold(-2, r, 1)').replace('torch.arange(-w, w + 1)', 'torch.arange(-w, r - w)'))
A(nb, 'restricted_attention', 'a loop over queries slicing [max(0, i - w) : i + w]: the key i + w left out', '''
def restricted_attention(q, k, v, r):
    n, w = q.shape[-2], r // 2
    out = []
    for i in range(n):
        lo, hi = max(0, i - w), i + w
        s = q[..., i:i + 1, :] @ k[..., lo:hi, :].transpose(-2, -1) / q.shape[-1] ** 0.5
        out.append(s.softmax(-1) @ v[..., lo:hi, :])
    return torch.cat(out, -2)''')
A(nb, 'restricted_attention', '(output, weights) returned, as attention does', RA.replace(
    "    return torch.einsum('bhnw,bhndw->bhnd', s.softmax(-1), win(v))",
    "    p = s.softmax(-1)\n    return torch.einsum('bhnw,bhndw->bhnd', p, win(v)), p"))
A(nb, 'restricted_attention', 'the unfolded window read as (..., window, d_k)', RA.replace(
    "'bhnd,bhndw->bhnw'", "'bhnd,bhnwd->bhnw'").replace("'bhnw,bhndw->bhnd'", "'bhnw,bhnwd->bhnd'"))
A(nb, 'restricted_attention', 'j > n: the first padded row past the end kept', RA.replace('(j >= n)', '(j > n)'))
A(nb, 'restricted_attention', "q scaled in place (q.mul_): the caller's q changed", '''
def restricted_attention(q, k, v, r):
    n, w = q.shape[-2], r // 2
    q.mul_(q.shape[-1] ** -0.5)
    win = lambda t: F.pad(t, (0, 0, w, w)).unfold(-2, 2 * w + 1, 1)
    s = torch.einsum('bhnd,bhndw->bhnw', q, win(k))
    j = torch.arange(n)[:, None] + torch.arange(-w, w + 1)
    s = s.masked_fill((j < 0) | (j >= n), float('-inf'))
    return torch.einsum('bhnw,bhndw->bhnd', s.softmax(-1), win(v))''')
A(nb, 'restricted_attention', "computed in NumPy (sliding_window_view): an ndarray returned", '''
import numpy as np
def restricted_attention(q, k, v, r):
    n, w = q.shape[-2], r // 2
    q, k, v = q.detach().numpy(), k.detach().numpy(), v.detach().numpy()
    win = lambda t: np.lib.stride_tricks.sliding_window_view(np.pad(t, ((0, 0), (0, 0), (w, w), (0, 0))), 2 * w + 1, axis=-2)
    s = np.einsum('bhnd,bhndw->bhnw', q, win(k)) / q.shape[-1] ** 0.5
    j = np.arange(n)[:, None] + np.arange(-w, w + 1)
    s = np.where((j < 0) | (j >= n), -np.inf, s)
    p = np.exp(s - s.max(-1, keepdims=True)); p /= p.sum(-1, keepdims=True)
    return np.einsum('bhnw,bhndw->bhnd', p, win(v))''')
A(nb, 'restricted_attention', 'computed in float32 whatever the inputs', RA.replace(
    '    n, w = q.shape[-2], r // 2', '    n, w = q.shape[-2], r // 2\n    q, k, v = q.float(), k.float(), v.float()'))
A(nb, 'restricted_attention', "Longformer-like one-sided padding: keys i .. i + 2w", RA.replace(
    'F.pad(t, (0, 0, w, w))', 'F.pad(t, (0, 0, 0, 2 * w))').replace('torch.arange(-w, w + 1)', 'torch.arange(0, 2 * w + 1)'))
