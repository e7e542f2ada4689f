"""The thirty-seventh blind set's answers, for notebooks 04 to 07 only (04_embeddings, 05_positional_encoding, 06_model,
07_why_self_attention), written from the exercises' text alone: (notebook, exercise, mistake, code), the mistake None for
the right answer. `experiments/blind_answers.py 37` runs them.
This set goes where the earlier sets for these notebooks did not: initialisers called with the wrong argument
(nn.init.normal_'s mean for its std, torch.rand for torch.randn, Kaiming's gain) and a parameter under nn.Embedding's
name; padding found by its values, not its id; angles in float32, integer overflow and a lost parenthesis in the
frequencies; a bias negated, or zero past K; habits of other architectures in the sub-layer (Sandwich-LN, LayerScale,
locked and non-inverted dropout, a lazily built norm, modules in a plain list); the logits rescaled, masked or laid out
for cross_entropy; hand counts that drop a projection, a bias or a cross-attention; and for restricted attention the
edge cases (r < 2, a window wider than the sequence, n <= r), state kept across calls, and log_softmax or dropout on
the weights."""
ANSWERS = []
def A(nb, ex, mistake, code): ANSWERS.append((nb, ex, mistake, code))

# ---------------------------------------------------------------- 04: MyEmbeddings
nb = '04_embeddings'
A(nb, 'MyEmbeddings', None, """
class MyEmbeddings(nn.Module):
    def __init__(self, vocab:int, d_model:int, pad_id:int=PAD_ID):
        super().__init__()
        self.E = nn.Parameter(torch.randn(vocab, d_model) / math.sqrt(d_model))
        with torch.no_grad(): self.E[pad_id].zero_()
        self.pad_id, self.scale = pad_id, math.sqrt(d_model)
    def forward(self, tokens):
        x = self.E[tokens]
        x = torch.where((tokens == self.pad_id).unsqueeze(-1), x.detach(), x)
        return x * self.scale
""")
_EMB = """
class MyEmbeddings(nn.Module):
    def __init__(self, vocab:int, d_model:int, pad_id:int=PAD_ID):
        super().__init__()
{init}
        self.pad_id, self.scale = pad_id, math.sqrt(d_model)
    def forward(self, tokens):
        x = self.E[tokens]
        x = torch.where((tokens == self.pad_id).unsqueeze(-1), x.detach(), x)
        return x * self.scale
"""
def emb(init): return _EMB.format(init='\n'.join('        ' + l for l in init.strip().splitlines()))
A(nb, 'MyEmbeddings', "the parameter named weight (nn.Embedding's name), not E", """
class MyEmbeddings(nn.Module):
    def __init__(self, vocab:int, d_model:int, pad_id:int=PAD_ID):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(vocab, d_model) * d_model ** -0.5)
        with torch.no_grad(): self.weight[pad_id] = 0.0
        self.pad_id, self.scale = pad_id, math.sqrt(d_model)
    def forward(self, tokens):
        x, pad = self.weight[tokens], (tokens == self.pad_id)[..., None]
        return torch.where(pad, x.detach(), x) * self.scale
""")
A(nb, 'MyEmbeddings', "nn.init.normal_(E, d_model ** -0.5): the std passed positionally, as the mean", emb("""
self.E = nn.Parameter(torch.empty(vocab, d_model))
nn.init.normal_(self.E, d_model ** -0.5)
with torch.no_grad(): self.E[pad_id] = 0.0
"""))
A(nb, 'MyEmbeddings', "torch.rand for torch.randn: uniform on [0, d_model^-0.5), every entry positive", emb("""
self.E = nn.Parameter(torch.rand(vocab, d_model) * d_model ** -0.5)
with torch.no_grad(): self.E[pad_id] = 0.0
"""))
A(nb, 'MyEmbeddings', "init std sqrt(d_model): the exponent's sign lost (d_model ** 0.5)", emb("""
self.E = nn.Parameter(torch.randn(vocab, d_model) * d_model ** 0.5)
with torch.no_grad(): self.E[pad_id] = 0.0
"""))
A(nb, 'MyEmbeddings', "init std vocab ** -0.5: the table's first size, not d_model", emb("""
self.E = nn.Parameter(torch.randn(vocab, d_model) * vocab ** -0.5)
with torch.no_grad(): self.E[pad_id] = 0.0
"""))
A(nb, 'MyEmbeddings', "Kaiming-normal init (nn.init.kaiming_normal_): std sqrt(2 / d_model)", emb("""
self.E = nn.Parameter(torch.empty(vocab, d_model))
nn.init.kaiming_normal_(self.E)
with torch.no_grad(): self.E[pad_id] = 0.0
"""))
A(nb, 'MyEmbeddings', "E made in bfloat16 to save memory: the outputs bfloat16", emb("""
self.E = nn.Parameter(torch.randn(vocab, d_model, dtype=torch.bfloat16) * d_model ** -0.5)
with torch.no_grad(): self.E[pad_id] = 0.0
"""))
A(nb, 'MyEmbeddings', "padding found as all-zero embeddings, not by the id: a non-zero pad row gets a gradient", """
class MyEmbeddings(nn.Module):
    def __init__(self, vocab:int, d_model:int, pad_id:int=PAD_ID):
        super().__init__()
        self.E = nn.Parameter(torch.randn(vocab, d_model) * d_model ** -0.5)
        with torch.no_grad(): self.E[pad_id] = 0.0
        self.scale = math.sqrt(d_model)
    def forward(self, tokens):
        x = self.E[tokens]
        pad = (x == 0).all(-1, keepdim=True)        # the padding row is the zero row
        return torch.where(pad, x.detach(), x) * self.scale
""")
A(nb, 'MyEmbeddings', "squeeze() on the output: a batch of one (or a single token) loses its axis", """
class MyEmbeddings(nn.Module):
    def __init__(self, vocab:int, d_model:int, pad_id:int=PAD_ID):
        super().__init__()
        self.E = nn.Parameter(torch.randn(vocab, d_model) * d_model ** -0.5)
        with torch.no_grad(): self.E[pad_id] = 0.0
        self.pad_id, self.scale = pad_id, math.sqrt(d_model)
    def forward(self, tokens):
        x, pad = self.E[tokens], (tokens == self.pad_id)[..., None]
        return (torch.where(pad, x.detach(), x) * self.scale).squeeze()
""")

# ---------------------------------------------------------------- 05: my_encoding
nb = '05_positional_encoding'
A(nb, 'my_encoding', None, """
def my_encoding(n, d_model):
    pos = torch.arange(n, dtype=torch.float64).unsqueeze(1)               # (n, 1)
    i = torch.arange(d_model // 2, dtype=torch.float64)                   # pair index
    angle = pos / torch.pow(10000.0, 2 * i / d_model)                     # (n, d_model/2)
    return torch.stack([angle.sin(), angle.cos()], -1).reshape(n, d_model).float()
""")
A(nb, 'my_encoding', "angles in float32 (torch's default dtype), not float64: off by up to 1e-4 at large positions", """
def my_encoding(n, d_model):
    pos = torch.arange(n).float()[:, None]
    two_i = torch.arange(0, d_model, 2).float()
    angle = pos / 10000 ** (two_i / d_model)
    pe = torch.zeros(n, d_model)
    pe[:, 0::2], pe[:, 1::2] = torch.sin(angle), torch.cos(angle)
    return pe
""")
A(nb, 'my_encoding', "10000 ** 2i taken in int64 first, then the d_model-th root: it overflows from 2i = 6 on", """
def my_encoding(n, d_model):
    pos = torch.arange(n, dtype=torch.float64)[:, None]
    two_i = torch.arange(0, d_model, 2)
    angle = pos / (10000 ** two_i) ** (1 / d_model)
    pe = torch.zeros(n, d_model, dtype=torch.float64)
    pe[:, 0::2], pe[:, 1::2] = angle.sin(), angle.cos()
    return pe.float()
""")
A(nb, 'my_encoding', "pos / 10000 ** 2*i / d_model: the exponent's parentheses lost", """
def my_encoding(n, d_model):
    pos = torch.arange(n, dtype=torch.float64)[:, None]
    i = torch.arange(d_model // 2, dtype=torch.float64)
    angle = pos / 10000 ** 2*i / d_model
    pe = torch.zeros(n, d_model, dtype=torch.float64)
    pe[:, 0::2], pe[:, 1::2] = angle.sin(), angle.cos()
    return pe.float()
""")
A(nb, 'my_encoding', "2i from arange(1, d_model, 2): every pair at the odd index's exponent (2i+1)/d_model", """
def my_encoding(n, d_model):
    pos = torch.arange(n, dtype=torch.float64)[:, None]
    two_i = torch.arange(1, d_model, 2, dtype=torch.float64)
    angle = pos / 10000 ** (two_i / d_model)
    pe = torch.zeros(n, d_model, dtype=torch.float64)
    pe[:, 0::2], pe[:, 1::2] = angle.sin(), angle.cos()
    return pe.float()
""")
A(nb, 'my_encoding', "the exponent divided by n, not d_model (the two sizes confused)", """
def my_encoding(n, d_model):
    pos = torch.arange(n, dtype=torch.float64)[:, None]
    two_i = torch.arange(0, d_model, 2, dtype=torch.float64)
    angle = pos / 10000 ** (two_i / n)
    pe = torch.zeros(n, d_model, dtype=torch.float64)
    pe[:, 0::2], pe[:, 1::2] = angle.sin(), angle.cos()
    return pe.float()
""")
A(nb, 'my_encoding', "positions 0 .. n-2 (arange(n - 1)): a row short", """
def my_encoding(n, d_model):
    pos = torch.arange(n - 1, dtype=torch.float64)[:, None]
    two_i = torch.arange(0, d_model, 2, dtype=torch.float64)
    angle = pos / 10000 ** (two_i / d_model)
    pe = torch.zeros(n - 1, d_model, dtype=torch.float64)
    pe[:, 0::2], pe[:, 1::2] = angle.sin(), angle.cos()
    return pe.float()
""")
A(nb, 'my_encoding', "ln(10000) hard-coded as 9.2 in the exp form: every frequency slightly off", """
def my_encoding(n, d_model):
    pos = torch.arange(n, dtype=torch.float64)[:, None]
    div = torch.exp(torch.arange(0, d_model, 2, dtype=torch.float64) * (-9.2 / d_model))
    pe = torch.zeros(n, d_model, dtype=torch.float64)
    pe[:, 0::2], pe[:, 1::2] = torch.sin(pos * div), torch.cos(pos * div)
    return pe.float()
""")
A(nb, 'my_encoding', "positions normalised to [0, 1) (pos / n)", """
def my_encoding(n, d_model):
    pos = torch.arange(n, dtype=torch.float64)[:, None] / n
    two_i = torch.arange(0, d_model, 2, dtype=torch.float64)
    angle = pos / 10000 ** (two_i / d_model)
    pe = torch.zeros(n, d_model, dtype=torch.float64)
    pe[:, 0::2], pe[:, 1::2] = angle.sin(), angle.cos()
    return pe.float()
""")
A(nb, 'my_encoding', "copy-paste: the sine in the odd dimensions too (no cosine at all)", """
def my_encoding(n, d_model):
    pos = torch.arange(n, dtype=torch.float64)[:, None]
    two_i = torch.arange(0, d_model, 2, dtype=torch.float64)
    angle = pos / 10000 ** (two_i / d_model)
    pe = torch.zeros(n, d_model, dtype=torch.float64)
    pe[:, 0::2] = torch.sin(angle)
    pe[:, 1::2] = torch.sin(angle)
    return pe.float()
""")

# ---------------------------------------------------------------- 05: RelativeBias
A(nb, 'RelativeBias', None, """
class RelativeBias(nn.Module):
    def __init__(self, h:int, K:int):
        super().__init__()
        self.K, self.table = K, nn.Parameter(0.02 * torch.randn(2 * K + 1, h))
    def forward(self, n_q:int, n_k:int):
        rel = torch.arange(n_k).view(1, -1) - torch.arange(n_q).view(-1, 1)     # (n_q, n_k): j - i
        return self.table[rel.clamp(-self.K, self.K) + self.K].movedim(-1, 0)   # (h, n_q, n_k)
""")
A(nb, 'RelativeBias', None, """
class RelativeBias(nn.Module):   # the table held by an nn.Embedding (its weight, (2K + 1, h), the only parameter)
    def __init__(self, h:int, K:int):
        super().__init__()
        self.K, self.emb = K, nn.Embedding(2 * K + 1, h)
    def forward(self, n_q:int, n_k:int):
        rel = torch.arange(n_k)[None, :] - torch.arange(n_q)[:, None]
        return self.emb(rel.clamp(-self.K, self.K) + self.K).permute(2, 0, 1)
""")
A(nb, 'RelativeBias', None, """
class RelativeBias(nn.Module):   # a zero initial table, as a learned bias may start
    def __init__(self, h:int, K:int):
        super().__init__()
        self.K, self.table = K, nn.Parameter(torch.zeros(2 * K + 1, h))
    def forward(self, n_q:int, n_k:int):
        rel = torch.arange(n_k)[None, :] - torch.arange(n_q)[:, None]
        return self.table[rel.clamp(-self.K, self.K) + self.K].permute(2, 0, 1)
""")
_RB = """
class RelativeBias(nn.Module):
    def __init__(self, h:int, K:int):
        super().__init__()
        self.K, self.table = K, nn.Parameter(torch.randn(2 * K + 1, h{dtype}) * 0.02)
    def forward(self, n_q:int, n_k:int):
        rel = torch.arange(n_k)[None, :] - torch.arange(n_q)[:, None]
        b = self.table[rel.clamp(-self.K, self.K) + self.K]                    # (n_q, n_k, h)
{body}
"""
def rb(body, dtype=''): return _RB.format(dtype=dtype, body='\n'.join('        ' + l for l in body.strip().splitlines()))
A(nb, 'RelativeBias', "movedim(0, -1) for movedim(-1, 0): (n_k, h, n_q)", rb("return b.movedim(0, -1)"))
A(nb, 'RelativeBias', "the bias negated (ALiBi's subtracted penalty): -table[...]", rb("return -b.permute(2, 0, 1)"))
A(nb, 'RelativeBias', "the table made in float64: the bias float64", rb("return b.permute(2, 0, 1)", dtype=', dtype=torch.float64'))
A(nb, 'RelativeBias', "the key positions counted from 1 (arange(1, n_k + 1)): every offset one too large", """
class RelativeBias(nn.Module):
    def __init__(self, h:int, K:int):
        super().__init__()
        self.K, self.table = K, nn.Parameter(torch.randn(2 * K + 1, h) * 0.02)
    def forward(self, n_q:int, n_k:int):
        rel = torch.arange(1, n_k + 1)[None, :] - torch.arange(n_q)[:, None]
        return self.table[rel.clamp(-self.K, self.K) + self.K].permute(2, 0, 1)
""")
A(nb, 'RelativeBias', "offsets beyond K given a zero bias instead of the clipped edge row", rb("""
b = b.masked_fill((rel.abs() > self.K)[..., None], 0.0)   # too far: no bias
return b.permute(2, 0, 1)
"""))

# ---------------------------------------------------------------- 06: MySublayer
nb = '06_model'
A(nb, 'MySublayer', None, """
class MySublayer(nn.Module):
    def __init__(self, d_model:int, p_drop:float):
        super().__init__()
        self.ln, self.dropout = nn.LayerNorm(d_model), nn.Dropout(p=p_drop)
    def forward(self, x, f):
        y = self.dropout(f(x))
        return self.ln(x + y)
""")
A(nb, 'MySublayer', "Sandwich-LN (CogView): an extra LayerNorm on f(x) before the residual sum", """
class MySublayer(nn.Module):
    def __init__(self, d_model:int, p_drop:float):
        super().__init__()
        self.norm_f, self.norm, self.drop = nn.LayerNorm(d_model), nn.LayerNorm(d_model), nn.Dropout(p_drop)
    def forward(self, x, f):
        return self.norm(x + self.drop(self.norm_f(f(x))))
""")
A(nb, 'MySublayer', "the norm and the dropout kept in a plain Python list: not registered (no parameters; .eval() never reaches the dropout)", """
class MySublayer(nn.Module):
    def __init__(self, d_model:int, p_drop:float):
        super().__init__()
        self.parts = [nn.LayerNorm(d_model), nn.Dropout(p_drop)]
    def forward(self, x, f):
        norm, drop = self.parts
        return norm(x + drop(f(x)))
""")
A(nb, 'MySublayer', "f(x.detach()): the branch's gradient to x cut", """
class MySublayer(nn.Module):
    def __init__(self, d_model:int, p_drop:float):
        super().__init__()
        self.norm, self.drop = nn.LayerNorm(d_model), nn.Dropout(p_drop)
    def forward(self, x, f):
        return self.norm(x + self.drop(f(x.detach())))
""")
A(nb, 'MySublayer', "the original (non-inverted) dropout: no 1/(1-p) in training, f(x) scaled by 1 - p in eval", """
class MySublayer(nn.Module):
    def __init__(self, d_model:int, p_drop:float):
        super().__init__()
        self.norm, self.p = nn.LayerNorm(d_model), p_drop
    def forward(self, x, f):
        y = f(x)
        if self.training: y = y * (torch.rand_like(y) >= self.p)
        else: y = y * (1 - self.p)
        return self.norm(x + y)
""")
A(nb, 'MySublayer', "locked dropout (AWD-LSTM): one mask per sentence, shared by all its positions", """
class MySublayer(nn.Module):
    def __init__(self, d_model:int, p_drop:float):
        super().__init__()
        self.norm, self.p = nn.LayerNorm(d_model), p_drop
    def forward(self, x, f):
        y = f(x)
        if self.training and self.p > 0:
            mask = (torch.rand(y.shape[0], 1, y.shape[-1]) >= self.p).to(y.dtype) / (1 - self.p)   # (B, 1, d_model)
            y = y * mask
        return self.norm(x + y)
""")
A(nb, 'MySublayer', "the LayerNorm's gain initialised to zero (the zero-init habit for residual branches)", """
class MySublayer(nn.Module):
    def __init__(self, d_model:int, p_drop:float):
        super().__init__()
        self.norm, self.drop = nn.LayerNorm(d_model), nn.Dropout(p_drop)
        nn.init.zeros_(self.norm.weight)
    def forward(self, x, f):
        return self.norm(x + self.drop(f(x)))
""")
A(nb, 'MySublayer', "LayerScale (CaiT, ConvNeXt): the branch multiplied by a learned gain initialised to 1e-4", """
class MySublayer(nn.Module):
    def __init__(self, d_model:int, p_drop:float):
        super().__init__()
        self.norm, self.drop = nn.LayerNorm(d_model), nn.Dropout(p_drop)
        self.gamma = nn.Parameter(torch.full((d_model,), 1e-4))
    def forward(self, x, f):
        return self.norm(x + self.drop(self.gamma * f(x)))
""")
A(nb, 'MySublayer', "nn.LayerNorm(d_model, p_drop): the dropout rate passed as the norm's eps", """
class MySublayer(nn.Module):
    def __init__(self, d_model:int, p_drop:float):
        super().__init__()
        self.norm, self.drop = nn.LayerNorm(d_model, p_drop), nn.Dropout(p_drop)
    def forward(self, x, f):
        return self.norm(x + self.drop(f(x)))
""")
A(nb, 'MySublayer', "the LayerNorm built lazily at the first forward (Keras's build): no parameters until then", """
class MySublayer(nn.Module):
    def __init__(self, d_model:int, p_drop:float):
        super().__init__()
        self.norm, self.drop = None, nn.Dropout(p_drop)
    def forward(self, x, f):
        if self.norm is None: self.norm = nn.LayerNorm(x.shape[-1])
        return self.norm(x + self.drop(f(x)))
""")
A(nb, 'MySublayer', "nn.LayerNorm(512): the base model's width hard-coded", """
class MySublayer(nn.Module):
    def __init__(self, d_model:int, p_drop:float):
        super().__init__()
        self.norm, self.drop = nn.LayerNorm(512), nn.Dropout(p_drop)
    def forward(self, x, f):
        return self.norm(x + self.drop(f(x)))
""")

# ---------------------------------------------------------------- 06: my_forward
A(nb, 'my_forward', None, """
def my_forward(model, src, tgt):
    sm, tm = pad_mask(src), make_tgt_mask(tgt)
    z = model.src_pos(model.src_emb(src))
    for layer in model.encoder:
        z = layer.sub[0].norm(z + layer.self_attn(z, mask=sm))
        z = layer.sub[1].norm(z + layer.ffn(z))
    y = model.tgt_pos(model.tgt_emb(tgt))
    for layer in model.decoder:
        y = layer.sub[0].norm(y + layer.self_attn(y, mask=tm))
        y = layer.sub[1].norm(y + layer.cross_attn(y, z, mask=sm))
        y = layer.sub[2].norm(y + layer.ffn(y))
    return model.generator(y)
""")
_FWD = """
def my_forward(model, src, tgt):
    sm, tm = pad_mask(src), make_tgt_mask(tgt)
{pre}
    z = {src_in}
    for l in model.encoder:
{enc}
    y = {tgt_in}
    for l in model.decoder:
{dec}
    return {out}
"""
ENC = """z = l.sub[0].norm(z + l.self_attn(z, mask=sm))
z = l.sub[1].norm(z + l.ffn(z))"""
DEC = """y = l.sub[0].norm(y + l.self_attn(y, mask=tm))
y = l.sub[1].norm(y + l.cross_attn(y, z, mask=sm))
y = l.sub[2].norm(y + l.ffn(y))"""
def fwd(pre='', src_in='model.src_pos(model.src_emb(src))', enc=ENC, tgt_in='model.tgt_pos(model.tgt_emb(tgt))', dec=DEC,
        out='model.generator(y)'):
    ind = lambda s, k: '\n'.join(' ' * k + l for l in s.strip().splitlines())
    return _FWD.format(pre=ind(pre, 4), src_in=src_in, enc=ind(enc, 8), tgt_in=tgt_in, dec=ind(dec, 8), out=out)
A(nb, 'my_forward', "the target's positions from model.src_pos: right for sinusoids only, not for learned positions",
  fwd(tgt_in='model.src_pos(model.tgt_emb(tgt))'))
A(nb, 'my_forward', "the FFN sub-layers without their residual: norm(ffn(x))", fwd(
    enc="""z = l.sub[0].norm(z + l.self_attn(z, mask=sm))
z = l.sub[1].norm(l.ffn(z))""",
    dec="""y = l.sub[0].norm(y + l.self_attn(y, mask=tm))
y = l.sub[1].norm(y + l.cross_attn(y, z, mask=sm))
y = l.sub[2].norm(l.ffn(y))"""))
A(nb, 'my_forward', "the residual added after the norm: x + norm(f(x))", fwd(
    enc="""z = z + l.sub[0].norm(l.self_attn(z, mask=sm))
z = z + l.sub[1].norm(l.ffn(z))""",
    dec="""y = y + l.sub[0].norm(l.self_attn(y, mask=tm))
y = y + l.sub[1].norm(l.cross_attn(y, z, mask=sm))
y = y + l.sub[2].norm(l.ffn(y))"""))
A(nb, 'my_forward', "the encoder's padding mask laid over the queries (transposed, (B, 1, S, 1)): the pads still seen as keys", fwd(
    enc="""z = l.sub[0].norm(z + l.self_attn(z, mask=sm.transpose(-1, -2)))
z = l.sub[1].norm(z + l.ffn(z))"""))
A(nb, 'my_forward', "sqrt(d_model) applied after the positions are added: (E x + PE) * sqrt(d_model)",
  fwd(src_in='model.src_pos(model.src_emb.lut(src)) * math.sqrt(model.cfg.d_model)',
      tgt_in='model.tgt_pos(model.tgt_emb.lut(tgt)) * math.sqrt(model.cfg.d_model)'))
A(nb, 'my_forward', "the decoder output scaled by d_model^-0.5 before the tied output layer (T5's rescale)",
  fwd(out='model.generator(y * model.cfg.d_model ** -0.5)'))
A(nb, 'my_forward', "the logits multiplied by sqrt(d_model): §3.4's embedding scale applied to the tied output too",
  fwd(out='model.generator(y) * math.sqrt(model.cfg.d_model)'))
A(nb, 'my_forward', "the causal part strictly lower (tril(-1)): no position attends to itself, position 0 to nothing", fwd(
    pre="T = tgt.shape[1]\ntm = pad_mask(tgt) & torch.ones(T, T, dtype=torch.bool).tril(-1)"))
A(nb, 'my_forward', "the logits at the target's padded positions zeroed", fwd(
    out="model.generator(y).masked_fill((tgt == PAD_ID)[..., None], 0.0)"))
A(nb, 'my_forward', "the logits returned (B, vocab, T): cross_entropy's class-second layout", fwd(out='model.generator(y).transpose(1, 2)'))
A(nb, 'my_forward', "F.dropout(x, 0.1) on the embedding sums (§5.4): training=True by default, so it drops in eval",
  fwd(src_in='F.dropout(model.src_pos(model.src_emb(src)), 0.1)', tgt_in='F.dropout(model.tgt_pos(model.tgt_emb(tgt)), 0.1)'))
A(nb, 'my_forward', "the cross-attention sub-layer calls l.self_attn (copy-paste): the self-attention's weights on the memory", fwd(
    dec="""y = l.sub[0].norm(y + l.self_attn(y, mask=tm))
y = l.sub[1].norm(y + l.self_attn(y, z, mask=sm))
y = l.sub[2].norm(y + l.ffn(y))"""))
A(nb, 'my_forward', "the encoder's sub-layers in the wrong order: the FFN first, then self-attention", fwd(
    enc="""z = l.sub[1].norm(z + l.ffn(z))
z = l.sub[0].norm(z + l.self_attn(z, mask=sm))"""))

# ---------------------------------------------------------------- 06: parsing_counts
A(nb, 'parsing_counts', None, """
def parsing_counts():
    cfg = TransformerConfig(src_vocab=16000, tgt_vocab=16000, d_model=1024, N=4)
    with torch.device('meta'): tied = count_params(Transformer(cfg))
    untied = tied + 2 * cfg.tgt_vocab * cfg.d_model
    return tied, untied
""")
_HAND = """
def parsing_counts():
    V, d, d_ff, N = 16000, 1024, 2048, 4
    attn = {attn}
    ffn = {ffn}
    ln = {ln}
    enc, dec = {enc}, {dec}
    tied = {N_enc} * enc + {N_dec} * dec + V * d
    return tied, tied + 2 * V * d
"""
def hand(attn='4 * (d * d + d)', ffn='2 * d * d_ff + d_ff + d', ln='2 * d', enc='attn + ffn + 2 * ln',
         dec='2 * attn + ffn + 3 * ln', N_enc='N', N_dec='N'):
    return _HAND.format(attn=attn, ffn=ffn, ln=ln, enc=enc, dec=dec, N_enc=N_enc, N_dec=N_dec)
A(nb, 'parsing_counts', "counted by hand without the linear layers' biases", hand(attn='4 * d * d', ffn='2 * d * d_ff'))
A(nb, 'parsing_counts', "counted on nn.Transformer: its final LayerNorm of each stack counted too (+4 d_model)", """
def parsing_counts():
    V, d = 16000, 1024
    with torch.device('meta'):
        core = nn.Transformer(d_model=d, nhead=8, num_encoder_layers=4, num_decoder_layers=4, dim_feedforward=2048)
    tied = sum(p.numel() for p in core.parameters()) + V * d
    return tied, tied + 2 * V * d
""")
A(nb, 'parsing_counts', "each decoder layer counted as an encoder layer: the cross-attention and its LayerNorm left out",
  hand(dec='attn + ffn + 2 * ln'))
A(nb, 'parsing_counts', "the FFN counted as one matrix: W_2 and b_2 left out", hand(ffn='d * d_ff + d_ff'))
A(nb, 'parsing_counts', "attention counted with three projections: W^O left out", hand(attn='3 * (d * d + d)'))
A(nb, 'parsing_counts', "each LayerNorm counted with its gain only (d, not 2 d)", hand(ln='d'))
A(nb, 'parsing_counts', "'4-layer' read as the encoder: 4 encoder layers, the decoder's 6 kept", hand(N_dec='6'))

# ---------------------------------------------------------------- 07: restricted_attention
nb = '07_why_self_attention'
A(nb, 'restricted_attention', None, """
def restricted_attention(q, k, v, r):
    n, w = q.shape[-2], r // 2
    kw = F.pad(k, (0, 0, w, w)).unfold(-2, 2 * w + 1, 1)                  # (B, h, n, d_k, 2w+1)
    vw = F.pad(v, (0, 0, w, w)).unfold(-2, 2 * w + 1, 1)
    s = (q.unsqueeze(-1) * kw).sum(-2) / math.sqrt(q.shape[-1])           # (B, h, n, 2w+1)
    j = torch.arange(n).unsqueeze(1) + torch.arange(-w, w + 1)            # key index of every slot
    s = s.masked_fill((j < 0) | (j >= n), float('-inf'))
    return (s.softmax(-1).unsqueeze(-2) * vw).sum(-1)                     # (B, h, n, d_k)
""")
A(nb, 'restricted_attention', None, """
def restricted_attention(q, k, v, r):   # one query at a time, its window sliced out: no n x n tensor
    n, w, out = q.shape[-2], r // 2, []
    for i in range(n):
        lo, hi = max(0, i - w), min(n, i + w + 1)
        s = (q[..., i:i + 1, :] @ k[..., lo:hi, :].transpose(-1, -2)) / math.sqrt(q.shape[-1])   # (B, h, 1, window)
        out.append(s.softmax(-1) @ v[..., lo:hi, :])
    return torch.cat(out, -2)
""")
A(nb, 'restricted_attention', None, """
def restricted_attention(q, k, v, r):   # PyTorch's scaled_dot_product_attention over the windows, one query each
    n, w = q.shape[-2], r // 2
    kw = F.pad(k, (0, 0, w, w)).unfold(-2, 2 * w + 1, 1).transpose(-1, -2)   # (B, h, n, 2w+1, d_k)
    vw = F.pad(v, (0, 0, w, w)).unfold(-2, 2 * w + 1, 1).transpose(-1, -2)
    j = torch.arange(n)[:, None] + torch.arange(-w, w + 1)
    ok = ((j >= 0) & (j < n))[:, None, :]                                     # (n, 1, 2w+1): True = take part
    return F.scaled_dot_product_attention(q.unsqueeze(-2), kw, vw, attn_mask=ok).squeeze(-2)
""")
_RA = """
def restricted_attention(q, k, v, r):
    n, w = q.shape[-2], {w}
    kw = F.pad(k, (0, 0, w, w)).unfold(-2, 2 * w + 1, 1)                  # (B, h, n, d_k, 2w+1)
    vw = F.pad(v, (0, 0, w, w)).unfold(-2, 2 * w + 1, 1)
    s = torch.einsum('bhnd,bhndw->bhnw', q, kw) {scale}
{mask}
    a = {weights}
    return torch.einsum('bhnw,bhndw->bhnd', a, vw)
"""
MASK = """j = torch.arange(n)[:, None] + torch.arange(-w, w + 1)
s = s.masked_fill((j < 0) | (j >= n), float('-inf'))"""
def ra(w='r // 2', scale='/ math.sqrt(q.shape[-1])', mask=MASK, weights='s.softmax(-1)'):
    return _RA.format(w=w, scale=scale, mask='\n'.join('    ' + l for l in mask.strip().splitlines()), weights=weights)
A(nb, 'restricted_attention', "the padded rows marked with valid[:w] = valid[-w:] = False: for r < 2 (w = 0) [-0:] marks every row",
  ra(mask="""valid = torch.ones(n + 2 * w, dtype=torch.bool)
valid[:w] = False
valid[-w:] = False                               # the w padded rows at each end
s = s.masked_fill(~valid.unfold(0, 2 * w + 1, 1), float('-inf'))"""))
A(nb, 'restricted_attention', "the ends masked as whole w x w blocks: the first w queries lose all w keys on their left, real ones too (right for w = 1)",
  ra(mask="""s = s.clone()
s[..., :w, :w] = float('-inf')                   # the first queries' left slots are padding
s[..., n - w:, 2 * w + 1 - w:] = float('-inf')   # the last queries' right slots"""))
A(nb, 'restricted_attention', "log_softmax for softmax: log-weights multiply the values", ra(weights='s.log_softmax(-1)'))
A(nb, 'restricted_attention', "F.dropout(weights, 0.1) as attention does: training=True by default, random outputs", ra(weights='F.dropout(s.softmax(-1), 0.1)'))
A(nb, 'restricted_attention', "the scores multiplied by sqrt(d_k), not divided", ra(scale='* math.sqrt(q.shape[-1])'))
A(nb, 'restricted_attention', "the half-width hard-coded to 1 (the notebook's example r = 3)", ra(w='1'))
A(nb, 'restricted_attention', "keys shifted by each offset with slicing and zero rows: breaks when r // 2 > n", """
def restricted_attention(q, k, v, r):
    n, w = q.shape[-2], r // 2
    scores, vals, oks = [], [], []
    for o in range(-w, w + 1):                                            # key j = i + o
        if o >= 0: ks, vs = F.pad(k[..., o:, :], (0, 0, 0, o)), F.pad(v[..., o:, :], (0, 0, 0, o))
        else: ks, vs = F.pad(k[..., :o, :], (0, 0, -o, 0)), F.pad(v[..., :o, :], (0, 0, -o, 0))
        scores.append((q * ks).sum(-1) / math.sqrt(q.shape[-1])); vals.append(vs)
        oks.append((torch.arange(n) + o >= 0) & (torch.arange(n) + o < n))
    s = torch.stack(scores, -1).masked_fill(~torch.stack(oks, -1), float('-inf'))   # (B, h, n, 2w+1)
    return (s.softmax(-1).unsqueeze(-1) * torch.stack(vals, -2)).sum(-2)
""")
A(nb, 'restricted_attention', "squeeze() after the batched matmul: a batch or head of one (or r < 2) loses its axis", """
def restricted_attention(q, k, v, r):
    n, w = q.shape[-2], r // 2
    kw = F.pad(k, (0, 0, w, w)).unfold(-2, 2 * w + 1, 1)                  # (B, h, n, d_k, 2w+1)
    vw = F.pad(v, (0, 0, w, w)).unfold(-2, 2 * w + 1, 1).transpose(-1, -2)   # (B, h, n, 2w+1, d_k)
    s = (q.unsqueeze(-2) @ kw).squeeze() / math.sqrt(q.shape[-1])          # (B, h, n, 2w+1)
    j = torch.arange(n)[:, None] + torch.arange(-w, w + 1)
    s = s.masked_fill((j < 0) | (j >= n), float('-inf'))
    return (s.softmax(-1).unsqueeze(-2) @ vw).squeeze(-2)
""")
A(nb, 'restricted_attention', "full attention when n <= r ('the window covers the sequence'), though a centred window reaches only r // 2 each side", """
def restricted_attention(q, k, v, r):
    n, w = q.shape[-2], r // 2
    if n <= r: return attention(q, k, v)[0]                               # the window covers the whole sequence
    kw = F.pad(k, (0, 0, w, w)).unfold(-2, 2 * w + 1, 1)
    vw = F.pad(v, (0, 0, w, w)).unfold(-2, 2 * w + 1, 1)
    s = torch.einsum('bhnd,bhndw->bhnw', q, kw) / math.sqrt(q.shape[-1])
    j = torch.arange(n)[:, None] + torch.arange(-w, w + 1)
    s = s.masked_fill((j < 0) | (j >= n), float('-inf'))
    return torch.einsum('bhnw,bhndw->bhnd', s.softmax(-1), vw)
""")
A(nb, 'restricted_attention', "the edge mask cached at the first call (a global): stale for a later n or r", """
_EDGE = {}
def restricted_attention(q, k, v, r):
    n, w = q.shape[-2], r // 2
    if 'mask' not in _EDGE:                                               # built once, reused
        j = torch.arange(n)[:, None] + torch.arange(-w, w + 1)
        _EDGE['mask'] = (j < 0) | (j >= n)
    kw = F.pad(k, (0, 0, w, w)).unfold(-2, 2 * w + 1, 1)
    vw = F.pad(v, (0, 0, w, w)).unfold(-2, 2 * w + 1, 1)
    s = torch.einsum('bhnd,bhndw->bhnw', q, kw) / math.sqrt(q.shape[-1])
    s = s.masked_fill(_EDGE['mask'], float('-inf'))
    return torch.einsum('bhnw,bhndw->bhnd', s.softmax(-1), vw)
""")
