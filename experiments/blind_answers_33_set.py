"""The thirty-third blind set's answers, for the notebooks 04_embeddings to 07_why_self_attention only, written from
the exercises' text alone: (notebook, exercise, mistake, code), the mistake None for the right answer.
`experiments/blind_answers.py 33` runs them. This set leans toward operator precedence (`d_model ** 1/2`,
`10000 ** two_i / d_model`), a parameter lost on the way (`nn.Parameter(...) * s` a plain tensor, `E.data` read, a
LayerNorm or Dropout built inside forward), the wrong axis of a shape or a permutation (`E.shape[0]`,
`permute(2, 1, 0)`, a `view` for a `permute`, `stack(dim=0)`), a clamp or an index one step off (`(r - 1) // 2`,
`ceil(r / 2)`, `j <= 0`, `i + w` as the end, the table's `+ K` forgotten), a default or a habit from elsewhere
(fairseq's pad 1, `F.embedding`'s `padding_idx=PAD_ID`, an unbiased variance, xavier init, the state_dict's count),
and sentences read the hurried way (the decoder's sub-layer norms swapped, the layers reversed, d_ff = 4096 from the
big model, the untied model with one more matrix)."""
ANSWERS = []
def A(nb, ex, mistake, code): ANSWERS.append((nb, ex, mistake, code))
def R(code, old, new):
    "`code` with `old` replaced by `new` (`old` must be there)."
    assert old in code, old
    return code.replace(old, new)

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
A(nb, 'MyEmbeddings', 'the scale d_model ** 1/2: precedence makes it d_model / 2', R(EMB, 'math.sqrt(d_model)', 'd_model ** 1/2'))
A(nb, 'MyEmbeddings', 'the scale from E.shape[0] (the vocabulary), not E.shape[1]', R(EMB,
    'x, pad = self.E[tokens], (tokens == self.pad_id)[..., None]',
    'x, pad = self.E[tokens], (tokens == self.pad_id)[..., None]\n        self.scale = math.sqrt(self.E.shape[0])'))
A(nb, 'MyEmbeddings', 'the init std 1/d_model (N(0, d_model^-1) read as its standard deviation)', R(EMB,
    '* d_model ** -0.5)', '/ d_model)'))
A(nb, 'MyEmbeddings', 'xavier_normal_ init: std sqrt(2 / (vocab + d_model))', R(EMB,
    'nn.Parameter(torch.randn(vocab, d_model) * d_model ** -0.5)', 'nn.Parameter(nn.init.xavier_normal_(torch.empty(vocab, d_model)))'))
A(nb, 'MyEmbeddings', 'the padding row not zeroed at init', R(EMB, '        with torch.no_grad(): self.E[pad_id] = 0.0\n', ''))
A(nb, 'MyEmbeddings', 'the padding row zeroed without no_grad: an in-place write on a leaf that requires grad', R(EMB,
    'with torch.no_grad(): self.E[pad_id] = 0.0', 'self.E[pad_id] = 0.0'))
A(nb, 'MyEmbeddings', 'nn.Parameter(randn(...)) * d_model ** -0.5: E is a plain tensor, no parameter registered', R(EMB,
    'nn.Parameter(torch.randn(vocab, d_model) * d_model ** -0.5)', 'nn.Parameter(torch.randn(vocab, d_model)) * d_model ** -0.5'))
A(nb, 'MyEmbeddings', 'E.data indexed in forward: no gradient reaches E', R(EMB, 'x, pad = self.E[tokens]', 'x, pad = self.E.data[tokens]'))
A(nb, 'MyEmbeddings', 'the pad positions zeroed in the output (a non-zero pad row must come out)', R(EMB,
    'return torch.where(pad, x.detach(), x) * self.scale', 'return x.masked_fill(pad, 0.0) * self.scale'))
A(nb, 'MyEmbeddings', 'the pad row re-zeroed on every forward call', R(EMB,
    '        x, pad = self.E[tokens]', '        with torch.no_grad(): self.E[self.pad_id] = 0.0\n        x, pad = self.E[tokens]'))
A(nb, 'MyEmbeddings', 'F.embedding with padding_idx=PAD_ID: the pad_id argument ignored', R(EMB,
    'x, pad = self.E[tokens], (tokens == self.pad_id)[..., None]\n        return torch.where(pad, x.detach(), x) * self.scale',
    'return F.embedding(tokens, self.E, padding_idx=PAD_ID) * self.scale'))
A(nb, 'MyEmbeddings', "fairseq's pad 1 as the default pad_id", R(EMB, 'pad_id=PAD_ID', 'pad_id=1'))
A(nb, 'MyEmbeddings', 'E stored transposed (d_model, vocab), as a Linear weight, indexed through .t()', R(R(EMB,
    'torch.randn(vocab, d_model)', 'torch.randn(d_model, vocab)'), 'self.E[pad_id] = 0.0', 'self.E[:, pad_id] = 0.0').replace(
    'x, pad = self.E[tokens]', 'x, pad = self.E.t()[tokens]'))
A(nb, 'MyEmbeddings', 'E in float64: the outputs float64', R(EMB, 'torch.randn(vocab, d_model)', 'torch.randn(vocab, d_model, dtype=torch.float64)'))
A(nb, 'MyEmbeddings', 'the whole batch detached when any token is a pad', R(EMB,
    'return torch.where(pad, x.detach(), x) * self.scale', 'return (x.detach() if pad.any() else x) * self.scale'))
A(nb, 'MyEmbeddings', 'the scale applied to the non-pad positions only (torch.where(pad, x.detach(), x * s))', R(EMB,
    'return torch.where(pad, x.detach(), x) * self.scale', 'return torch.where(pad, x.detach(), x * self.scale)'))
A(nb, 'MyEmbeddings', 'the pad mask from tokens == 0, not pad_id', R(EMB, '(tokens == self.pad_id)', '(tokens == 0)'))
A(nb, 'MyEmbeddings', 'the gradient of the pad row cut by multiplying by the non-pad mask and adding the detached pad rows, the mask float64', R(EMB,
    'return torch.where(pad, x.detach(), x) * self.scale', 'm = (~pad).double()\n        return (x * m + x.detach() * (1 - m)) * self.scale'))

A(nb, 'MyEmbeddings', 'index_select(0, tokens): it takes a 1-d index only', R(EMB, 'x, pad = self.E[tokens]', 'x, pad = self.E.index_select(0, tokens)'))
A(nb, 'MyEmbeddings', "nn.Embedding.from_pretrained(self.E, freeze=False) in forward: the gradient goes to the new module's parameter, not E", R(EMB,
    'x, pad = self.E[tokens], (tokens == self.pad_id)[..., None]\n        return torch.where(pad, x.detach(), x) * self.scale',
    'return nn.Embedding.from_pretrained(self.E, freeze=False, padding_idx=self.pad_id)(tokens) * self.scale'))
A(nb, 'MyEmbeddings', 'the pad mask (B, n) without its feature axis in torch.where', R(EMB, '(tokens == self.pad_id)[..., None]', '(tokens == self.pad_id)'))
A(nb, 'MyEmbeddings', 'the scale a learned nn.Parameter (a second parameter)', R(EMB,
    'self.pad_id, self.scale = pad_id, math.sqrt(d_model)', 'self.pad_id, self.scale = pad_id, nn.Parameter(torch.tensor(math.sqrt(d_model)))'))

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
A(nb, 'my_encoding', 'pos times 10000^(2i/d) (multiplied, not divided)', R(ENC, 'pos / 10000 **', 'pos * 10000 **'))
A(nb, 'my_encoding', '10000 ** two_i / d_model: precedence', R(ENC, '10000 ** (two_i / d_model)', '10000 ** two_i / d_model'))
A(nb, 'my_encoding', 'i in place of 2i: arange(d_model // 2)', R(ENC, 'torch.arange(0, d_model, 2, dtype=torch.float64)', 'torch.arange(d_model // 2, dtype=torch.float64)'))
A(nb, 'my_encoding', 'the even index doubled again: 10000^(2 * (2i) / d)', R(ENC, '(two_i / d_model)', '(2 * two_i / d_model)'))
A(nb, 'my_encoding', 'two_i // d_model: integer division, every frequency 1', R(ENC,
    "two_i = torch.arange(0, d_model, 2, dtype=torch.float64)", "two_i = torch.arange(0, d_model, 2)").replace('(two_i / d_model)', '(two_i // d_model)'))
A(nb, 'my_encoding', 'the exponent over d_model - 1', R(ENC, '(two_i / d_model)', '(two_i / (d_model - 1))'))
A(nb, 'my_encoding', 'positions 1 .. n', R(ENC, 'torch.arange(n, dtype=torch.float64)', 'torch.arange(1, n + 1, dtype=torch.float64)'))
A(nb, 'my_encoding', 'sine in the odd dimensions, cosine in the even', R(ENC, 'angle.sin(), angle.cos()', 'angle.cos(), angle.sin()'))
A(nb, 'my_encoding', 'sines in the first half, cosines in the second (concatenated halves)', R(ENC,
    'pe[:, 0::2], pe[:, 1::2] = angle.sin(), angle.cos()', 'pe = torch.cat([angle.sin(), angle.cos()], -1)'))
A(nb, 'my_encoding', 'stack(dim=0).reshape(n, d_model): the sines and cosines scrambled', R(ENC,
    'pe[:, 0::2], pe[:, 1::2] = angle.sin(), angle.cos()', 'pe = torch.stack([angle.sin(), angle.cos()], 0).reshape(n, d_model)'))
A(nb, 'my_encoding', 'returned transposed: (d_model, n)', R(ENC, 'return pe.float()', 'return pe.float().T'))

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
A(nb, 'RelativeBias', 'the offset i - j (sign flipped)', R(RB,
    'torch.arange(n_k)[None, :] - torch.arange(n_q)[:, None]', 'torch.arange(n_q)[:, None] - torch.arange(n_k)[None, :]'))
A(nb, 'RelativeBias', '+ K forgotten: negative offsets index the table from its end', R(RB, '.clamp(-self.K, self.K) + self.K]', '.clamp(-self.K, self.K)]'))
A(nb, 'RelativeBias', 'a table of 2K rows, offsets clamped to [-K, K - 1]', R(R(RB, 'torch.randn(2 * K + 1, h)', 'torch.randn(2 * K, h)'),
    'clamp(-self.K, self.K)', 'clamp(-self.K, self.K - 1)'))
A(nb, 'RelativeBias', 'returned (n_q, n_k, h): no permute', R(RB, '.permute(2, 0, 1)', ''))
A(nb, 'RelativeBias', 'permute(2, 1, 0): (h, n_k, n_q)', R(RB, '.permute(2, 0, 1)', '.permute(2, 1, 0)'))
A(nb, 'RelativeBias', 'view(h, n_q, n_k) for the permute', R(RB, '.permute(2, 0, 1)', '.reshape(-1, n_q, n_k)'))
A(nb, 'RelativeBias', 'the positions clamped to K before the subtraction, not the offset', R(RB,
    'offset = torch.arange(n_k)[None, :] - torch.arange(n_q)[:, None]',
    'offset = torch.arange(n_k).clamp(max=self.K)[None, :] - torch.arange(n_q).clamp(max=self.K)[:, None]'))
A(nb, 'RelativeBias', 'the offsets built from n_q for both axes (right when n_q = n_k)', R(RB, 'torch.arange(n_k)[None, :]', 'torch.arange(n_q)[None, :]'))
A(nb, 'RelativeBias', 'the distance |j - i|: the sign lost', R(RB, 'offset = ', 'offset = ').replace(
    'torch.arange(n_k)[None, :] - torch.arange(n_q)[:, None]', '(torch.arange(n_k)[None, :] - torch.arange(n_q)[:, None]).abs()'))
A(nb, 'RelativeBias', 'the table read through .detach(): no gradient', R(RB, 'return self.table[', 'return self.table.detach()['))
A(nb, 'RelativeBias', '__init__(K, h): the arguments the other way', R(RB, 'def __init__(self, h, K):', 'def __init__(self, K, h):'))

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
A(nb, 'MySublayer', 'pre-LN: x + Dropout(f(LayerNorm(x)))', R(SUB, 'return self.norm(x + self.drop(f(x)))', 'return x + self.drop(f(self.norm(x)))'))
A(nb, 'MySublayer', 'dropout after the norm: Dropout(LayerNorm(x + f(x)))', R(SUB, 'return self.norm(x + self.drop(f(x)))', 'return self.drop(self.norm(x + f(x)))'))
A(nb, 'MySublayer', 'dropout on the residual sum: LayerNorm(Dropout(x + f(x)))', R(SUB, 'return self.norm(x + self.drop(f(x)))', 'return self.norm(self.drop(x + f(x)))'))
A(nb, 'MySublayer', 'the norm on the branch only: x + LayerNorm(Dropout(f(x)))', R(SUB, 'return self.norm(x + self.drop(f(x)))', 'return x + self.norm(self.drop(f(x)))'))
A(nb, 'MySublayer', 'LayerNorm without gain and bias (elementwise_affine=False)', R(SUB, 'nn.LayerNorm(d_model)', 'nn.LayerNorm(d_model, elementwise_affine=False)'))
A(nb, 'MySublayer', 'a LayerNorm by hand with the unbiased variance', R(SUB, 'return self.norm(x + self.drop(f(x)))',
    'y = x + self.drop(f(x))\n        y = (y - y.mean(-1, keepdim=True)) / (y.var(-1, keepdim=True) + self.norm.eps).sqrt()\n'
    '        return y * self.norm.weight + self.norm.bias'))
A(nb, 'MySublayer', 'nn.Dropout built inside forward: always in training mode', R(SUB, 'self.drop(f(x))', 'nn.Dropout(self.drop.p)(f(x))'))
A(nb, 'MySublayer', 'nn.LayerNorm built inside forward: fresh gain and bias each call, none learned', R(SUB,
    'return self.norm(x + self.drop(f(x)))', 'return nn.LayerNorm(x.shape[-1])(x + self.drop(f(x)))'))

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
A(nb, 'my_forward', 'the target mask on the cross-attention', R(FWD, 'l.cross_attn(t, z, mask=src_mask)', 'l.cross_attn(t, z, mask=tgt_mask)'))
A(nb, 'my_forward', "the decoder self-attention under the target's padding mask only (no causal part)", R(FWD,
    'l.self_attn(t, mask=tgt_mask)', 'l.self_attn(t, mask=pad_mask(tgt))'))
A(nb, 'my_forward', 'the cross-attention queries from the memory: cross_attn(z, t)', R(FWD, 'l.cross_attn(t, z, mask=src_mask)', 'l.cross_attn(z, t, mask=src_mask)'))
A(nb, 'my_forward', 'no positions on the target side', R(FWD, 'y = model.tgt_pos(model.tgt_emb(tgt))', 'y = model.tgt_emb(tgt)'))
A(nb, 'my_forward', 'pre-LN residuals: x + f(norm(x))', R(FWD, 'def residual(norm, x, f): return norm(x + f(x))', 'def residual(norm, x, f): return x + f(norm(x))'))
A(nb, 'my_forward', "every encoder layer fed the embeddings: the last layer's output kept", R(FWD,
    """        x = residual(l.sub[0].norm, x, lambda t: l.self_attn(t, mask=src_mask))
        x = residual(l.sub[1].norm, x, l.ffn)
    z = x""", """        a = residual(l.sub[0].norm, x, lambda t: l.self_attn(t, mask=src_mask))
        z = residual(l.sub[1].norm, a, l.ffn)"""))
A(nb, 'my_forward', 'the decoder layers in reverse order', R(FWD, 'for l in model.decoder:', 'for l in reversed(model.decoder):'))
A(nb, 'my_forward', "the decoder's cross-attention and FFN norms swapped (sub[2] then sub[1])", R(R(FWD,
    'residual(l.sub[1].norm, y, lambda t: l.cross_attn', 'residual(l.sub[2].norm, y, lambda t: l.cross_attn'),
    'y = residual(l.sub[2].norm, y, l.ffn)', 'y = residual(l.sub[1].norm, y, l.ffn)'))

# 06_model: parsing_counts
PC = """
def parsing_counts():
    cfg = TransformerConfig(N=4, d_model=1024, src_vocab=16000, tgt_vocab=16000)
    with torch.device('meta'): tied = count_params(Transformer(cfg))
    return tied, tied + 2 * 16000 * 1024"""
A(nb, 'parsing_counts', None, PC)
A(nb, 'parsing_counts', 'the base N = 6 kept', R(PC, 'N=4, ', ''))
A(nb, 'parsing_counts', "d_ff = 4096, the big model's", R(PC, 'd_model=1024,', 'd_model=1024, d_ff=4096,'))
A(nb, 'parsing_counts', 'untied with one more matrix, not two', R(PC, 'tied + 2 * 16000 * 1024', 'tied + 16000 * 1024'))
A(nb, 'parsing_counts', 'returned (untied, tied)', R(PC, 'return tied, tied + 2 * 16000 * 1024', 'return tied + 2 * 16000 * 1024, tied'))
A(nb, 'parsing_counts', "the base model's 37,000 vocabulary kept", R(PC, 'src_vocab=16000, tgt_vocab=16000', 'src_vocab=37000, tgt_vocab=37000').replace('2 * 16000', '2 * 37000'))
A(nb, 'parsing_counts', "the state_dict's sizes summed: the tied matrix counted three times and the positional buffer counted", R(PC,
    'tied = count_params(Transformer(cfg))', 'tied = sum(t.numel() for t in Transformer(cfg).state_dict().values())'))

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
A(nb, 'restricted_attention', 'w = (r - 1) // 2: an even r loses a key on each side', R(RA, 'w = q.shape[-2], r // 2', 'w = q.shape[-2], (r - 1) // 2'))
A(nb, 'restricted_attention', 'w = ceil(r / 2): an odd r gains a key on each side', R(RA, 'w = q.shape[-2], r // 2', 'w = q.shape[-2], math.ceil(r / 2)'))
A(nb, 'restricted_attention', 'w at least 1 (max(r // 2, 1)): r = 1 attends to neighbours', R(RA, 'w = q.shape[-2], r // 2', 'w = q.shape[-2], max(r // 2, 1)'))
A(nb, 'restricted_attention', 'scaled by sqrt(n), not sqrt(d_k)', R(RA, '/ q.shape[-1] ** 0.5', '/ q.shape[-2] ** 0.5'))
A(nb, 'restricted_attention', 'scaled by d_k ** 1/2: precedence makes it d_k / 2', R(RA, '/ q.shape[-1] ** 0.5', '/ q.shape[-1] ** 1/2'))
A(nb, 'restricted_attention', 'j <= 0 masked: the first key hidden from its neighbours', R(RA, '(j < 0)', '(j <= 0)'))
A(nb, 'restricted_attention', 'j > n masked, not j >= n: one padded row past the end kept', R(RA, '(j >= n)', '(j > n)'))
A(nb, 'restricted_attention', 'no mask: the zero padded rows scored 0', R(RA, "    s = s.masked_fill((j < 0) | (j >= n), float('-inf'))\n", ''))
A(nb, 'restricted_attention', 'the softmax over the queries (dim -2)', R(RA, 's.softmax(-1)', 's.softmax(-2)'))
A(nb, 'restricted_attention', 'the weights of padded rows zeroed after the softmax, not renormalised', R(RA,
    "    s = s.masked_fill((j < 0) | (j >= n), float('-inf'))\n    return torch.einsum('bhnw,bhndw->bhnd', s.softmax(-1), win(v))",
    "    p = s.softmax(-1).masked_fill((j < 0) | (j >= n), 0.0)\n    return torch.einsum('bhnw,bhndw->bhnd', p, win(v))"))
A(nb, 'restricted_attention', 'windows by gather with the indices clamped to [0, n - 1]: the end keys repeated, no mask', """
def restricted_attention(q, k, v, r):
    n, w = q.shape[-2], r // 2
    idx = (torch.arange(n)[:, None] + torch.arange(-w, w + 1)).clamp(0, n - 1)
    kw, vw = k[:, :, idx], v[:, :, idx]
    s = torch.einsum('bhnd,bhnwd->bhnw', q, kw) / q.shape[-1] ** 0.5
    return torch.einsum('bhnw,bhnwd->bhnd', s.softmax(-1), vw)""")
A(nb, 'restricted_attention', 'a loop over queries whose window ends at i + w (exclusive): the right neighbour lost', """
def restricted_attention(q, k, v, r):
    n, w = q.shape[-2], r // 2
    out = []
    for i in range(n):
        lo, hi = max(0, i - w), min(n, i + w)
        s = q[..., i:i + 1, :] @ k[..., lo:hi, :].transpose(-2, -1) / q.shape[-1] ** 0.5
        out.append(s.softmax(-1) @ v[..., lo:hi, :])
    return torch.cat(out, -2)""")
A(nb, 'restricted_attention', 'full attention under local_mask (an n x n score matrix)', """
def restricted_attention(q, k, v, r):
    return attention(q, k, v, mask=local_mask(q.shape[-2], r))[0]""")
A(nb, 'restricted_attention', "einsum with another letter for the windows' position axis: every window summed", R(RA,
    "torch.einsum('bhnd,bhndw->bhnw', q, win(k))", "torch.einsum('bhnd,bhmdw->bhnw', q, win(k))"))
A(nb, 'restricted_attention', 'windows taken with step r in unfold', R(RA, '.unfold(-2, 2 * w + 1, 1)', '.unfold(-2, 2 * w + 1, max(r, 1))'))
A(nb, 'restricted_attention', 'returns (output, weights)', R(RA,
    "return torch.einsum('bhnw,bhndw->bhnd', s.softmax(-1), win(v))",
    "p = s.softmax(-1)\n    return torch.einsum('bhnw,bhndw->bhnd', p, win(v)), p"))
A(nb, 'restricted_attention', 'the key windows built from k.detach(): no gradient to k', R(RA, 'q, win(k))', 'q, win(k.detach()))'))
A(nb, 'restricted_attention', 'a batch of one assumed: q[0] computed in 3-d, unsqueezed back', """
def restricted_attention(q, k, v, r):
    q, k, v = q[0], k[0], v[0]
    n, w = q.shape[-2], r // 2
    win = lambda t: F.pad(t, (0, 0, w, w)).unfold(-2, 2 * w + 1, 1)
    s = torch.einsum('hnd,hndw->hnw', q, win(k)) / q.shape[-1] ** 0.5
    j = torch.arange(n)[:, None] + torch.arange(-w, w + 1)
    s = s.masked_fill((j < 0) | (j >= n), float('-inf'))
    return torch.einsum('hnw,hndw->hnd', s.softmax(-1), win(v))[None]""")
A(nb, 'restricted_attention', 'the keys padded with rows of -1e4 instead of masking the scores: right only for queries whose entries sum to more than 0', R(RA,
    "    s = torch.einsum('bhnd,bhndw->bhnw', q, win(k)) / q.shape[-1] ** 0.5\n    j = torch.arange(n)[:, None] + torch.arange(-w, w + 1)\n    s = s.masked_fill((j < 0) | (j >= n), float('-inf'))\n",
    "    kw = F.pad(k, (0, 0, w, w), value=-1e4).unfold(-2, 2 * w + 1, 1)\n    s = torch.einsum('bhnd,bhndw->bhnw', q, kw) / q.shape[-1] ** 0.5\n"))
A(nb, 'restricted_attention', 'computed in float64 (q.double()): a float64 output', R(RA, "return torch.einsum('bhnw,bhndw->bhnd', s.softmax(-1), win(v))",
    "return torch.einsum('bhnw,bhndw->bhnd', s.double().softmax(-1), win(v.double()))"))
A(nb, 'restricted_attention', 'w capped at n // 2: a window wider than the sequence cut', R(RA, 'w = q.shape[-2], r // 2', 'w = q.shape[-2], min(r // 2, q.shape[-2] // 2)'))
A(nb, 'restricted_attention', 'q scaled in place (q /= sqrt(d_k)): the caller\'s queries changed', R(RA,
    "    s = torch.einsum('bhnd,bhndw->bhnw', q, win(k)) / q.shape[-1] ** 0.5",
    "    q /= q.shape[-1] ** 0.5\n    s = torch.einsum('bhnd,bhndw->bhnw', q, win(k))"))
