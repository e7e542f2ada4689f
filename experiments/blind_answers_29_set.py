"""The twenty-ninth blind set's answers, for the notebooks 04_embeddings to 07_why_self_attention only, written from
the exercises' text alone: (notebook, exercise, mistake, code), the mistake None for the right answer.
`experiments/blind_answers.py 29` runs them. This set leans toward answers right on all but one input the text
allows (a d_model that is a perfect square, n_q = n_k, odd or even r, h = 1, the first call's sizes, an f that does
not return its input), vectorised code with a broadcasting or layout slip (`stack(dim=1).view`, `torch.outer` in the
other order, `reshape` for `permute`, `transpose(0, 2)`, F.pad on the feature axis), torch functions with an edge
(`F.one_hot` without num_classes, `nn.Dropout(inplace=True)`, `nn.Dropout1d`, `F.layer_norm` over two axes,
`torch.where`'s arguments swapped, `triu` for `tril`, `|` for `&`), a popular blog's loop (the cosine's exponent
(i + 1)/d_model), typos (`10e4`, log10 for ln), and sentences of the text read the hurried way (decoder layer i
attending to encoder layer i, d_k = 64 kept from the base model, the tied count with 16,000 and the untied with
16,384, r read as the radius)."""
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
A(nb, 'MyEmbeddings', 'the scale int(math.sqrt(d_model)): right only when d_model is a perfect square', R(EMB,
    'math.sqrt(d_model)', 'int(math.sqrt(d_model))'))
A(nb, 'MyEmbeddings', 'the scale math.isqrt(d_model) (an integer square root)', R(EMB, 'math.sqrt(d_model)', 'math.isqrt(d_model)'))
A(nb, 'MyEmbeddings', "the pad row's gradient zeroed by a hook on row PAD_ID, not pad_id", """
class MyEmbeddings(nn.Module):
    def __init__(self, vocab, d_model, pad_id=PAD_ID):
        super().__init__()
        self.E = nn.Parameter(torch.randn(vocab, d_model) * d_model ** -0.5)
        with torch.no_grad(): self.E[pad_id] = 0.0
        self.E.register_hook(lambda g: g.index_fill(0, torch.tensor([PAD_ID]), 0.0))
        self.scale = math.sqrt(d_model)
    def forward(self, tokens):
        return self.E[tokens] * self.scale""")
A(nb, 'MyEmbeddings', 'a one-hot matrix product: the pad row gets a gradient, as with plain indexing', """
class MyEmbeddings(nn.Module):
    def __init__(self, vocab, d_model, pad_id=PAD_ID):
        super().__init__()
        self.E = nn.Parameter(torch.randn(vocab, d_model) * d_model ** -0.5)
        with torch.no_grad(): self.E[pad_id] = 0.0
        self.scale = math.sqrt(d_model)
    def forward(self, tokens):
        return F.one_hot(tokens, self.E.shape[0]).to(self.E.dtype) @ self.E * self.scale""")
A(nb, 'MyEmbeddings', 'F.one_hot without num_classes: width max id + 1, not vocab', """
class MyEmbeddings(nn.Module):
    def __init__(self, vocab, d_model, pad_id=PAD_ID):
        super().__init__()
        self.E = nn.Parameter(torch.randn(vocab, d_model) * d_model ** -0.5)
        with torch.no_grad(): self.E[pad_id] = 0.0
        self.pad_id, self.scale = pad_id, math.sqrt(d_model)
    def forward(self, tokens):
        x, pad = F.one_hot(tokens).to(self.E.dtype) @ self.E, (tokens == self.pad_id)[..., None]
        return torch.where(pad, x.detach(), x) * self.scale""")
A(nb, 'MyEmbeddings', 'the init std 1/d_model (variance and std confused): nn.init.normal_(std=1/d_model)', R(EMB,
    'nn.Parameter(torch.randn(vocab, d_model) * d_model ** -0.5)', 'nn.init.normal_(nn.Parameter(torch.empty(vocab, d_model)), std=1 / d_model)'))
A(nb, 'MyEmbeddings', 'a uniform init of the right variance, not a normal one', R(EMB,
    'torch.randn(vocab, d_model) * d_model ** -0.5', '(torch.rand(vocab, d_model) * 2 - 1) * (3 / d_model) ** 0.5'))
A(nb, 'MyEmbeddings', "Xavier's normal init: std sqrt(2 / (vocab + d_model))", R(EMB,
    'nn.Parameter(torch.randn(vocab, d_model) * d_model ** -0.5)', 'nn.init.xavier_normal_(nn.Parameter(torch.empty(vocab, d_model)))'))
A(nb, 'MyEmbeddings', 'the padding row zeroed first, then the whole table initialised over it', """
class MyEmbeddings(nn.Module):
    def __init__(self, vocab, d_model, pad_id=PAD_ID):
        super().__init__()
        self.E = nn.Parameter(torch.zeros(vocab, d_model))
        with torch.no_grad(): self.E[pad_id] = 0.0
        nn.init.normal_(self.E, std=d_model ** -0.5)
        self.pad_id, self.scale = pad_id, math.sqrt(d_model)
    def forward(self, tokens):
        x, pad = self.E[tokens], (tokens == self.pad_id)[..., None]
        return torch.where(pad, x.detach(), x) * self.scale""")
A(nb, 'MyEmbeddings', 'scaled by sqrt(tokens.shape[-1]), the sequence length, not d_model', """
class MyEmbeddings(nn.Module):
    def __init__(self, vocab, d_model, pad_id=PAD_ID):
        super().__init__()
        self.E = nn.Parameter(torch.randn(vocab, d_model) * d_model ** -0.5)
        with torch.no_grad(): self.E[pad_id] = 0.0
        self.pad_id = pad_id
    def forward(self, tokens):
        x, pad = self.E[tokens], (tokens == self.pad_id)[..., None]
        return torch.where(pad, x.detach(), x) * math.sqrt(tokens.shape[-1])""")
A(nb, 'MyEmbeddings', 'scaled by sqrt(E.shape[0]), the vocabulary axis', R(EMB, '* self.scale', '* math.sqrt(self.E.shape[0])'))
A(nb, 'MyEmbeddings', "torch.where's arguments swapped: the real tokens detached, the pads get the gradient", R(EMB,
    'torch.where(pad, x.detach(), x)', 'torch.where(pad, x, x.detach())'))
A(nb, 'MyEmbeddings', 'the padding row re-zeroed at every forward (wrong once tying makes it non-zero)', """
class MyEmbeddings(nn.Module):
    def __init__(self, vocab, d_model, pad_id=PAD_ID):
        super().__init__()
        self.E = nn.Parameter(torch.randn(vocab, d_model) * d_model ** -0.5)
        with torch.no_grad(): self.E[pad_id] = 0.0
        self.pad_id, self.scale = pad_id, math.sqrt(d_model)
    def forward(self, tokens):
        with torch.no_grad(): self.E[self.pad_id] = 0.0
        x, pad = self.E[tokens], (tokens == self.pad_id)[..., None]
        return torch.where(pad, x.detach(), x) * self.scale""")
A(nb, 'MyEmbeddings', 'the padding positions zeroed in the output (masked_fill), values wrong for a non-zero row', """
class MyEmbeddings(nn.Module):
    def __init__(self, vocab, d_model, pad_id=PAD_ID):
        super().__init__()
        self.E = nn.Parameter(torch.randn(vocab, d_model) * d_model ** -0.5)
        with torch.no_grad(): self.E[pad_id] = 0.0
        self.pad_id, self.scale = pad_id, math.sqrt(d_model)
    def forward(self, tokens):
        return self.E[tokens].masked_fill((tokens == self.pad_id)[..., None], 0.0) * self.scale""")
A(nb, 'MyEmbeddings', 'the scale stored on the class: every instance takes the last one built', R(EMB,
    'self.pad_id, self.scale = pad_id, math.sqrt(d_model)', 'self.pad_id = pad_id; MyEmbeddings.scale = math.sqrt(d_model)'))
A(nb, 'MyEmbeddings', 'the scale a 1-element float64 tensor: the output promoted to float64', R(EMB,
    'math.sqrt(d_model)', 'torch.tensor([d_model], dtype=torch.float64).sqrt()'))
A(nb, 'MyEmbeddings', 'the row zeroed at PAD_ID in __init__, pad_id used only in forward', R(EMB,
    'self.E[pad_id] = 0.0', 'self.E[PAD_ID] = 0.0'))
A(nb, 'MyEmbeddings', 'a table of vocab + 1 rows (an extra padding row)', R(EMB, 'torch.randn(vocab, d_model)', 'torch.randn(vocab + 1, d_model)'))
A(nb, 'MyEmbeddings', "E frozen (requires_grad=False), as a fixed table", R(EMB,
    'nn.Parameter(torch.randn(vocab, d_model) * d_model ** -0.5)', 'nn.Parameter(torch.randn(vocab, d_model) * d_model ** -0.5, requires_grad=False)'))
A(nb, 'MyEmbeddings', "an nn.Embedding(padding_idx=...) inside anyway, E its weight", """
class MyEmbeddings(nn.Module):
    def __init__(self, vocab, d_model, pad_id=PAD_ID):
        super().__init__()
        self.lut = nn.Embedding(vocab, d_model, padding_idx=pad_id)
        with torch.no_grad(): self.lut.weight.normal_(0, d_model ** -0.5); self.lut.weight[pad_id] = 0.0
        self.E, self.scale = self.lut.weight, math.sqrt(d_model)
    def forward(self, tokens):
        return self.lut(tokens) * self.scale""")
A(nb, 'MyEmbeddings', 'the scale applied to the table in place at every forward (E grows each call)', """
class MyEmbeddings(nn.Module):
    def __init__(self, vocab, d_model, pad_id=PAD_ID):
        super().__init__()
        self.E = nn.Parameter(torch.randn(vocab, d_model) * d_model ** -0.5)
        with torch.no_grad(): self.E[pad_id] = 0.0
        self.pad_id, self.scale = pad_id, math.sqrt(d_model)
    def forward(self, tokens):
        with torch.no_grad(): self.E.mul_(self.scale)
        x, pad = self.E[tokens], (tokens == self.pad_id)[..., None]
        return torch.where(pad, x.detach(), x)""")

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
A(nb, 'my_encoding', "the cosine's exponent (i + 1)/d_model (a popular blog's loop)", """
def my_encoding(n, d_model):
    pe = torch.zeros(n, d_model)
    for pos in range(n):
        for i in range(0, d_model, 2):
            pe[pos, i] = math.sin(pos / 10000 ** (i / d_model))
            pe[pos, i + 1] = math.cos(pos / 10000 ** ((i + 1) / d_model))
    return pe""")
A(nb, 'my_encoding', 'every dimension k at the exponent k/d_model (torch.where over arange(d_model)): the cosines off', """
def my_encoding(n, d_model):
    k = torch.arange(d_model, dtype=torch.float64)
    angle = torch.arange(n, dtype=torch.float64)[:, None] / 10000 ** (k / d_model)
    return torch.where(k % 2 == 0, angle.sin(), angle.cos()).float()""")
A(nb, 'my_encoding', 'log10 in the exp form: exp(-2i log10(10000) / d_model)', """
def my_encoding(n, d_model):
    pos = torch.arange(n, dtype=torch.float64)[:, None]
    div = torch.exp(torch.arange(0, d_model, 2, dtype=torch.float64) * -(math.log10(10000.0) / d_model))
    pe = torch.zeros(n, d_model, dtype=torch.float64)
    pe[:, 0::2], pe[:, 1::2] = (pos * div).sin(), (pos * div).cos()
    return pe.float()""")
A(nb, 'my_encoding', '10e4 typed for 10000 (that is 100000)', R(ENC, '10000 **', '10e4 **'))
A(nb, 'my_encoding', 'sin and cos stacked on dim 1, then viewed (n, d_model): halves, not interleaved', """
def my_encoding(n, d_model):
    pos = torch.arange(n, dtype=torch.float64)[:, None]
    angle = pos / 10000 ** (torch.arange(0, d_model, 2, dtype=torch.float64) / d_model)
    return torch.stack([angle.sin(), angle.cos()], dim=1).view(n, d_model).float()""")
A(nb, 'my_encoding', "the table allocated with the positions' integer dtype: every value truncated", """
def my_encoding(n, d_model):
    pos = torch.arange(n)[:, None]
    angle = pos / 10000 ** (torch.arange(0, d_model, 2) / d_model)
    pe = torch.zeros(n, d_model, dtype=pos.dtype)
    pe[:, 0::2], pe[:, 1::2] = angle.sin(), angle.cos()
    return pe""")
A(nb, 'my_encoding', 'positions by linspace(0, n, n): spaced n/(n - 1) apart', R(ENC,
    'torch.arange(n, dtype=torch.float64)[:, None]', 'torch.linspace(0, n, n, dtype=torch.float64)[:, None]'))
A(nb, 'my_encoding', 'torch.outer(frequencies, positions) reshaped to (n, d_model): positions and pairs mixed', """
def my_encoding(n, d_model):
    w = 10000 ** (-torch.arange(0, d_model, 2, dtype=torch.float64) / d_model)
    angle = torch.outer(w, torch.arange(n, dtype=torch.float64))
    return torch.stack([angle.sin(), angle.cos()], -1).reshape(n, d_model).float()""")
A(nb, 'my_encoding', "'even dimensions' read 1-based: the cosine in dimensions 0, 2, 4, ...", R(ENC,
    'pe[:, 0::2], pe[:, 1::2] = angle.sin(), angle.cos()', 'pe[:, 1::2], pe[:, 0::2] = angle.sin(), angle.cos()'))
A(nb, 'my_encoding', "a table cached per d_model at the first call's n: a longer n gets the short table", """
_tables = {}
def my_encoding(n, d_model):
    if d_model not in _tables:
        pos = torch.arange(n, dtype=torch.float64)[:, None]
        angle = pos / 10000 ** (torch.arange(0, d_model, 2, dtype=torch.float64) / d_model)
        pe = torch.zeros(n, d_model, dtype=torch.float64)
        pe[:, 0::2], pe[:, 1::2] = angle.sin(), angle.cos()
        _tables[d_model] = pe.float()
    return _tables[d_model][:n]""")

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
A(nb, 'RelativeBias', 'transpose(0, 2) for permute(2, 0, 1): (h, n_k, n_q)', R(RB, '.permute(2, 0, 1)', '.transpose(0, 2)'))
A(nb, 'RelativeBias', 'reshape(h, n_q, n_k) for the permute: the entries scrambled', R(RB, '.permute(2, 0, 1)', '.reshape(-1, n_q, n_k)'))
A(nb, 'RelativeBias', 'clipped above only (torch.where(offset > K, K, offset)): offsets below -K wrap around the table', R(RB,
    'self.table[offset.clamp(-self.K, self.K) + self.K]', 'self.table[torch.where(offset > self.K, self.K, offset) + self.K]'))
A(nb, 'RelativeBias', '|j - i| clipped: the direction lost (rows K .. 2K only)', R(RB,
    'offset.clamp(-self.K, self.K) + self.K', 'offset.abs().clamp(max=self.K) + self.K'))
A(nb, 'RelativeBias', 'an extra per-head gain parameter on the bias', """
class RelativeBias(nn.Module):
    def __init__(self, h, K):
        super().__init__()
        self.K = K
        self.table = nn.Parameter(torch.randn(2 * K + 1, h) * 0.02)
        self.gain = nn.Parameter(torch.ones(h, 1, 1))
    def forward(self, n_q, n_k):
        offset = torch.arange(n_k)[None, :] - torch.arange(n_q)[:, None]
        return self.gain * self.table[offset.clamp(-self.K, self.K) + self.K].permute(2, 0, 1)""")
A(nb, 'RelativeBias', 'the bias cached per (n_q, n_k) on the first call: stale once the table changes', """
class RelativeBias(nn.Module):
    def __init__(self, h, K):
        super().__init__()
        self.K, self.cache = K, {}
        self.table = nn.Parameter(torch.randn(2 * K + 1, h) * 0.02)
    def forward(self, n_q, n_k):
        if (n_q, n_k) not in self.cache:
            offset = torch.arange(n_k)[None, :] - torch.arange(n_q)[:, None]
            self.cache[n_q, n_k] = self.table[offset.clamp(-self.K, self.K) + self.K].permute(2, 0, 1)
        return self.cache[n_q, n_k]""")
A(nb, 'RelativeBias', 'squeeze() at the end: h = 1 (or n_q = 1) loses an axis', R(RB, '.permute(2, 0, 1)', '.permute(2, 0, 1).squeeze()'))
A(nb, 'RelativeBias', 'F.one_hot of the clipped index without num_classes: breaks when the offsets do not reach K', """
class RelativeBias(nn.Module):
    def __init__(self, h, K):
        super().__init__()
        self.K = K
        self.table = nn.Parameter(torch.randn(2 * K + 1, h) * 0.02)
    def forward(self, n_q, n_k):
        offset = torch.arange(n_k)[None, :] - torch.arange(n_q)[:, None]
        return (F.one_hot(offset.clamp(-self.K, self.K) + self.K).float() @ self.table).permute(2, 0, 1)""")
A(nb, 'RelativeBias', 'the table a plain tensor with requires_grad (not registered: no parameters)', R(RB,
    'nn.Parameter(torch.randn(2 * K + 1, h) * 0.02)', '(torch.randn(2 * K + 1, h) * 0.02).requires_grad_()'))
A(nb, 'RelativeBias', 'a table of 2(K + 1) rows (the parenthesis slipped)', R(RB, 'torch.randn(2 * K + 1, h)', 'torch.randn(2 * (K + 1), h)'))

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
A(nb, 'MySublayer', 'LayerNorm without gain and bias (elementwise_affine=False)', R(SUB, 'nn.LayerNorm(d_model)', 'nn.LayerNorm(d_model, elementwise_affine=False)'))
A(nb, 'MySublayer', 'the dropout on the output of the LayerNorm', R(SUB, 'self.norm(x + self.drop(f(x)))', 'self.drop(self.norm(x + f(x)))'))
A(nb, 'MySublayer', 'F.dropout with training=True: dropout in eval too', """
class MySublayer(nn.Module):
    def __init__(self, d_model, p_drop):
        super().__init__()
        self.norm, self.p = nn.LayerNorm(d_model), p_drop
    def forward(self, x, f):
        return self.norm(x + F.dropout(f(x), self.p, training=True))""")
A(nb, 'MySublayer', 'nn.Dropout(inplace=True): an f that returns its input (or a view) has x dropped too', R(SUB,
    'nn.Dropout(p_drop)', 'nn.Dropout(p_drop, inplace=True)'))
A(nb, 'MySublayer', 'x += ...: the caller\'s input edited in place', R(SUB, 'return self.norm(x + self.drop(f(x)))',
    'x += self.drop(f(x))\n        return self.norm(x)'))
A(nb, 'MySublayer', 'nn.Dropout1d: whole positions dropped, not single features', R(SUB, 'nn.Dropout(p_drop)', 'nn.Dropout1d(p_drop)'))
A(nb, 'MySublayer', 'F.layer_norm over z.shape[1:]: each sentence normalised as a whole', """
class MySublayer(nn.Module):
    def __init__(self, d_model, p_drop):
        super().__init__()
        self.g, self.b, self.drop = nn.Parameter(torch.ones(d_model)), nn.Parameter(torch.zeros(d_model)), nn.Dropout(p_drop)
    def forward(self, x, f):
        z = x + self.drop(f(x))
        return F.layer_norm(z, z.shape[1:]) * self.g + self.b""")
A(nb, 'MySublayer', 'the LayerNorm on the branch only: x + Dropout(LayerNorm(f(x)))', R(SUB,
    'self.norm(x + self.drop(f(x)))', 'x + self.drop(self.norm(f(x)))'))
A(nb, 'MySublayer', 'a fresh nn.LayerNorm built in forward: no learned gain and bias', """
class MySublayer(nn.Module):
    def __init__(self, d_model, p_drop):
        super().__init__()
        self.drop = nn.Dropout(p_drop)
    def forward(self, x, f):
        return nn.LayerNorm(x.shape[-1])(x + self.drop(f(x)))""")

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
A(nb, 'my_forward', 'no mask in the cross-attention: the source pads attended', R(FWD,
    'l.cross_attn(t, z, mask=src_mask)', 'l.cross_attn(t, z)'))
A(nb, 'my_forward', 'decoder layer i attends to encoder layer i\'s output (the stacks zipped)', """
def my_forward(model, src, tgt):
    def residual(norm, x, f): return norm(x + f(x))
    src_mask, tgt_mask = pad_mask(src), make_tgt_mask(tgt)
    x, y = model.src_pos(model.src_emb(src)), model.tgt_pos(model.tgt_emb(tgt))
    for e, l in zip(model.encoder, model.decoder):
        x = residual(e.sub[0].norm, x, lambda t: e.self_attn(t, mask=src_mask))
        x = residual(e.sub[1].norm, x, e.ffn)
        y = residual(l.sub[0].norm, y, lambda t: l.self_attn(t, mask=tgt_mask))
        y = residual(l.sub[1].norm, y, lambda t: l.cross_attn(t, x, mask=src_mask))
        y = residual(l.sub[2].norm, y, l.ffn)
    return model.generator(y)""")
A(nb, 'my_forward', 'every decoder sub-layer normalised by sub[0].norm', R(R(FWD,
    'residual(l.sub[1].norm, y,', 'residual(l.sub[0].norm, y,'), 'residual(l.sub[2].norm, y, l.ffn)', 'residual(l.sub[0].norm, y, l.ffn)'))
A(nb, 'my_forward', 'the causal part by triu: each position sees the future, not the past', R(FWD,
    'src_mask, tgt_mask = pad_mask(src), make_tgt_mask(tgt)',
    'src_mask = pad_mask(src)\n    tgt_mask = pad_mask(tgt) & torch.ones(tgt.shape[1], tgt.shape[1], dtype=torch.bool).triu()'))
A(nb, 'my_forward', 'the target mask pad | causal, not pad & causal', R(FWD,
    'src_mask, tgt_mask = pad_mask(src), make_tgt_mask(tgt)',
    'src_mask = pad_mask(src)\n    tgt_mask = pad_mask(tgt) | torch.ones(tgt.shape[1], tgt.shape[1], dtype=torch.bool).tril()'))
A(nb, 'my_forward', 'the source mask (B, S) without its head and query axes', R(FWD,
    'src_mask, tgt_mask = pad_mask(src), make_tgt_mask(tgt)', 'src_mask, tgt_mask = src != PAD_ID, make_tgt_mask(tgt)'))
A(nb, 'my_forward', "the FFN sub-layer fed the layer's input, not the attention sub-layer's output", R(FWD,
    """        x = residual(l.sub[0].norm, x, lambda t: l.self_attn(t, mask=src_mask))
        x = residual(l.sub[1].norm, x, l.ffn)""",
    """        a = residual(l.sub[0].norm, x, lambda t: l.self_attn(t, mask=src_mask))
        x = l.sub[1].norm(a + l.ffn(x))"""))
A(nb, 'my_forward', 'each decoder layer fed the embeddings, not the previous layer\'s output', R(FWD,
    """    y = model.tgt_pos(model.tgt_emb(tgt))
    for l in model.decoder:
        y = residual(l.sub[0].norm, y, lambda t: l.self_attn(t, mask=tgt_mask))""",
    """    y0 = model.tgt_pos(model.tgt_emb(tgt))
    for l in model.decoder:
        y = residual(l.sub[0].norm, y0, lambda t: l.self_attn(t, mask=tgt_mask))"""))

# 06_model: parsing_counts
PC = """
def parsing_counts():
    cfg = TransformerConfig(N=4, d_model=1024, src_vocab=16000, tgt_vocab=16000)
    with torch.device('meta'): tied = count_params(Transformer(cfg))
    return tied, tied + 2 * 16000 * 1024"""
A(nb, 'parsing_counts', None, PC)
A(nb, 'parsing_counts', 'the tied count with 16,000, the untied one with 16,384', R(PC, 'tied + 2 * 16000 * 1024', 'tied + 384 * 1024 + 2 * 16384 * 1024'))
A(nb, 'parsing_counts', 'd_k = d_v = 64 kept from the base model (h = 8): the attention narrowed', R(PC,
    'tgt_vocab=16000)', 'tgt_vocab=16000, d_k=64, d_v=64)'))
A(nb, 'parsing_counts', 'learned positions (pos=\'learned\'): max_len x d_model more per table', R(PC,
    'tgt_vocab=16000)', "tgt_vocab=16000, pos='learned')"))
A(nb, 'parsing_counts', 'tgt_vocab left at its default (37000): only the source vocabulary 16K', R(PC,
    'src_vocab=16000, tgt_vocab=16000)', 'src_vocab=16000)'))
A(nb, 'parsing_counts', "'tied' read as tie='decoder': the source embedding separate, untied one matrix more", R(PC,
    'return tied, tied + 2 * 16000 * 1024', 'return tied + 16000 * 1024, tied + 2 * 16000 * 1024'))

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
A(nb, 'restricted_attention', 'the padded rows not masked: zero keys scored 0 and weighted', R(RA,
    "    s = s.masked_fill((j < 0) | (j >= n), float('-inf'))\n", ''))
A(nb, 'restricted_attention', 'scaled by sqrt(h * d_k), the model width', R(RA, 'q.shape[-1] ** 0.5', '(q.shape[1] * q.shape[-1]) ** 0.5'))
A(nb, 'restricted_attention', "q scaled in place (q /= sqrt(d_k)): the caller's q changed", """
def restricted_attention(q, k, v, r):
    n, w = q.shape[-2], r // 2
    q /= q.shape[-1] ** 0.5
    win = lambda t: F.pad(t, (0, 0, w, w)).unfold(-2, 2 * w + 1, 1)
    s = torch.einsum('bhnd,bhndw->bhnw', q, win(k))
    j = torch.arange(n)[:, None] + torch.arange(-w, w + 1)
    s = s.masked_fill((j < 0) | (j >= n), float('-inf'))
    return torch.einsum('bhnw,bhndw->bhnd', s.softmax(-1), win(v))""")
A(nb, 'restricted_attention', 'the edges replicated (key indices clamped into 0 .. n-1), not masked', """
def restricted_attention(q, k, v, r):
    n, w = q.shape[-2], r // 2
    idx = (torch.arange(n)[:, None] + torch.arange(-w, w + 1)).clamp(0, n - 1)
    kw, vw = k[..., idx, :], v[..., idx, :]
    s = torch.einsum('bhnd,bhnwd->bhnw', q, kw) / q.shape[-1] ** 0.5
    return torch.einsum('bhnw,bhnwd->bhnd', s.softmax(-1), vw)""")
A(nb, 'restricted_attention', 'windows of r + 1 rows: right only for even r', """
def restricted_attention(q, k, v, r):
    n, w = q.shape[-2], r // 2
    win = lambda t: F.pad(t, (0, 0, w, w + 1)).unfold(-2, r + 1, 1)[..., :n, :, :]
    s = torch.einsum('bhnd,bhndw->bhnw', q, win(k)) / q.shape[-1] ** 0.5
    j = torch.arange(n)[:, None] + torch.arange(-w, -w + r + 1)
    s = s.masked_fill((j < 0) | (j >= n), float('-inf'))
    return torch.einsum('bhnw,bhndw->bhnd', s.softmax(-1), win(v))""")
A(nb, 'restricted_attention', 'w = ceil(r / 2): right only for even r', R(RA, 'w = q.shape[-2], r // 2', 'w = q.shape[-2], math.ceil(r / 2)'))
A(nb, 'restricted_attention', 'w = r: r read as the radius', R(RA, 'w = q.shape[-2], r // 2', 'w = q.shape[-2], r'))
A(nb, 'restricted_attention', "the mask inverted in torch.where: the padded rows kept, the real ones -inf", R(RA,
    "s = s.masked_fill((j < 0) | (j >= n), float('-inf'))", "s = torch.where((j < 0) | (j >= n), s, float('-inf'))"))
A(nb, 'restricted_attention', 'key positions i + (0 .. 2w): the -w shift forgotten in the mask', R(RA,
    'torch.arange(-w, w + 1)', 'torch.arange(0, 2 * w + 1)'))
A(nb, 'restricted_attention', 'full attention under local_mask (an n x n score tensor)', """
def restricted_attention(q, k, v, r):
    return attention(q, k, v, local_mask(q.shape[-2], r))[0]""")
A(nb, 'restricted_attention', "the padded rows' weights zeroed after the softmax, not renormalised", """
def restricted_attention(q, k, v, r):
    n, w = q.shape[-2], r // 2
    win = lambda t: F.pad(t, (0, 0, w, w)).unfold(-2, 2 * w + 1, 1)
    s = torch.einsum('bhnd,bhndw->bhnw', q, win(k)) / q.shape[-1] ** 0.5
    j = torch.arange(n)[:, None] + torch.arange(-w, w + 1)
    p = s.softmax(-1).masked_fill((j < 0) | (j >= n), 0.0)
    return torch.einsum('bhnw,bhndw->bhnd', p, win(v))""")
A(nb, 'restricted_attention', 'the 2w padded rows all at the end (F.pad (0, 0, 0, 2w)): each query sees i .. i + 2w', R(R(RA,
    'F.pad(t, (0, 0, w, w))', 'F.pad(t, (0, 0, 0, 2 * w))'), 'torch.arange(-w, w + 1)', 'torch.arange(0, 2 * w + 1)'))
A(nb, 'restricted_attention', 'the queries windowed and the keys not: the band transposed', R(RA,
    "torch.einsum('bhnd,bhndw->bhnw', q, win(k))", "torch.einsum('bhndw,bhnd->bhnw', win(q), k)"))
A(nb, 'restricted_attention', "the mask from query 0's window (arange(-w, w + 1) < 0) for every query", R(RA,
    'j = torch.arange(n)[:, None] + torch.arange(-w, w + 1)', 'j = torch.arange(-w, w + 1)'))
A(nb, 'restricted_attention', 'the windows of keys taken from q (self-attention assumed: k = q)', R(RA,
    "q, win(k))", "q, win(q))"))
A(nb, 'restricted_attention', 'a loop over the offsets summing exp(score) without the max: overflows for large scores', """
def restricted_attention(q, k, v, r):
    n, w = q.shape[-2], r // 2
    num, den = torch.zeros_like(v), torch.zeros(*q.shape[:-1], 1)
    for o in range(-w, w + 1):
        lo = max(0, -o); hi = max(lo, min(n, n - o))
        e = ((q[..., lo:hi, :] * k[..., lo + o:hi + o, :]).sum(-1, keepdim=True) / q.shape[-1] ** 0.5).exp()
        num[..., lo:hi, :] += e * v[..., lo + o:hi + o, :]
        den[..., lo:hi, :] += e
    return num / den""")
A(nb, 'restricted_attention', 'unfold without padding: the first and last w queries output 0', """
def restricted_attention(q, k, v, r):
    n, w = q.shape[-2], r // 2
    win = lambda t: t.unfold(-2, 2 * w + 1, 1)
    s = torch.einsum('bhnd,bhndw->bhnw', q[..., w:n - w, :], win(k)) / q.shape[-1] ** 0.5
    return F.pad(torch.einsum('bhnw,bhndw->bhnd', s.softmax(-1), win(v)), (0, 0, w, w))""")
A(nb, 'restricted_attention', "the keys' windows centred, the values' padded at the end only: each weight on the wrong value", R(RA,
    "s.softmax(-1), win(v))", "s.softmax(-1), F.pad(v, (0, 0, 0, 2 * w)).unfold(-2, 2 * w + 1, 1))"))
