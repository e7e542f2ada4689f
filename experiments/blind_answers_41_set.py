"""The forty-first blind set's answers, for every paper notebook (00_core ... 14_since_2017), written from the exercises'
text alone: (notebook, exercise, mistake, code), the mistake None for the right answer. `experiments/blind_answers.py 41`
runs them. A representative sample, as the fortieth: the first attempts a learner who has just read each page most
often writes (the input lists padded in place, the Annotated Transformer's -1e9, heads split without the transpose, the
mask passed to each head unsliced, plain indexing of E, the sines and cosines concatenated, pre-LN, the decoder without
its causal mask, Counter.most_common's ties, a step 0 that divides by zero, the pads averaged in, argmax over the whole
batch, sentence BLEUs averaged, heads numbered from 0, the paper's tags left on, the halves rotated as Hugging Face
rotates them, the group heads tiled), not the long tail."""
ANSWERS = []
def A(nb, ex, mistake, code): ANSWERS.append((nb, ex, mistake, code))

# ---------------------------------------------------------------- 00_core
nb = '00_core'
A(nb, 'pad_batch', None, """
def pad_batch(seqs, pad_id=PAD_ID):
    n = max(len(s) for s in seqs)
    return torch.tensor([list(s) + [pad_id] * (n - len(s)) for s in seqs], dtype=torch.long)
""")
A(nb, 'pad_batch', 'the input lists padded in place with extend', """
def pad_batch(seqs, pad_id=PAD_ID):
    n = max(len(s) for s in seqs)
    for s in seqs: s.extend([pad_id] * (n - len(s)))
    return torch.tensor(seqs)
""")
A(nb, 'pad_batch', 'padded on the left', """
def pad_batch(seqs, pad_id=PAD_ID):
    n = max(len(s) for s in seqs)
    return torch.tensor([[pad_id] * (n - len(s)) + list(s) for s in seqs])
""")
A(nb, 'pad_batch', 'pad_sequence without batch_first: (n, B)', """
from torch.nn.utils.rnn import pad_sequence
def pad_batch(seqs, pad_id=PAD_ID):
    return pad_sequence([torch.tensor(s) for s in seqs], padding_value=pad_id)
""")

# ---------------------------------------------------------------- 01_attention
nb = '01_attention'
A(nb, 'attention', None, """
def my_attention(q, k, v, mask=None):
    s = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if mask is not None: s = s.masked_fill(~mask, float('-inf'))
    w = s.softmax(-1)
    if mask is not None: w = w.masked_fill(~mask, 0.0)
    return w @ v, w
""")
A(nb, 'attention', "the Annotated Transformer's -1e9 fill, no zeros for a fully masked row", """
def my_attention(q, k, v, mask=None):
    s = q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))
    if mask is not None: s = s.masked_fill(mask == 0, -1e9)
    w = F.softmax(s, dim=-1)
    return w @ v, w
""")
A(nb, 'attention', 'mask read the other way round: True filled with -inf', """
def my_attention(q, k, v, mask=None):
    s = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if mask is not None: s = s.masked_fill(mask, float('-inf'))
    w = s.softmax(-1)
    if mask is not None: w = w.masked_fill(mask, 0.0)
    return w @ v, w
""")
A(nb, 'attention', 'scores divided by d_k, the square root forgotten', """
def my_attention(q, k, v, mask=None):
    d_k = q.shape[-1]
    s = q @ k.transpose(-2, -1) / d_k
    if mask is not None: s = s.masked_fill(~mask, float('-inf'))
    w = s.softmax(-1)
    if mask is not None: w = w.masked_fill(~mask, 0.0)
    return w @ v, w
""")
A(nb, 'attention', 'k.transpose(1, 2): right for 3-D inputs only', """
def my_attention(q, k, v, mask=None):
    s = torch.matmul(q, k.transpose(1, 2)) / math.sqrt(q.shape[-1])
    if mask is not None: s = s.masked_fill(~mask, float('-inf'))
    w = s.softmax(-1)
    if mask is not None: w = w.masked_fill(~mask, 0.0)
    return w @ v, w
""")
A(nb, 'restricted_mask', None, """
def restricted_mask(n, r):
    i = torch.arange(n)
    return ((i[None, :] - i[:, None]).abs() <= r // 2)[None, None]
""")
A(nb, 'restricted_mask', 'band of half-width r instead of r // 2', """
def restricted_mask(n, r):
    i = torch.arange(n)
    return ((i[:, None] - i[None, :]).abs() <= r)[None, None]
""")
A(nb, 'restricted_mask', 'an (n, n) mask, the two leading axes left out', """
def restricted_mask(n, r):
    i = torch.arange(n)
    return (i[:, None] - i[None, :]).abs() <= r // 2
""")
A(nb, 'restricted_mask', 'tril/triu with -r//2: one key too many on the left for odd r', """
def restricted_mask(n, r):
    ones = torch.ones(n, n, dtype=torch.bool)
    return torch.triu(torch.tril(ones, r // 2), -r // 2)[None, None]
""")

# ---------------------------------------------------------------- 02_multihead
nb = '02_multihead'
A(nb, 'heads', None, """
def split_heads(x, h):
    B, n, hd = x.shape
    return x.reshape(B, n, h, hd // h).permute(0, 2, 1, 3)
def merge_heads(x):
    B, h, n, d = x.shape
    return x.permute(0, 2, 1, 3).reshape(B, n, h * d)
""")
A(nb, 'heads', 'split by a view straight to (B, h, n, d), no transpose', """
def split_heads(x, h):
    B, n, hd = x.shape
    return x.view(B, h, n, hd // h)
def merge_heads(x):
    B, h, n, d = x.shape
    return x.transpose(1, 2).reshape(B, n, h * d)
""")
A(nb, 'heads', 'merge by a reshape without the transpose back', """
def split_heads(x, h):
    B, n, hd = x.shape
    return x.view(B, n, h, hd // h).transpose(1, 2)
def merge_heads(x):
    B, h, n, d = x.shape
    return x.reshape(B, n, h * d)
""")
A(nb, 'heads', 'split as (B, n, d, h): heads interleaved feature by feature', """
def split_heads(x, h):
    B, n, hd = x.shape
    return x.view(B, n, hd // h, h).permute(0, 3, 1, 2)
def merge_heads(x):
    B, h, n, d = x.shape
    return x.permute(0, 2, 3, 1).reshape(B, n, h * d)
""")
A(nb, 'heads', 'merge with view after the transpose: not contiguous', """
def split_heads(x, h):
    B, n, hd = x.shape
    return x.view(B, n, h, hd // h).transpose(1, 2)
def merge_heads(x):
    B, h, n, d = x.shape
    return x.transpose(1, 2).view(B, n, h * d)
""")
A(nb, 'LoopMHA', None, """
class LoopMHA(nn.Module):
    def __init__(self, d_model, h):
        super().__init__()
        self.h, self.d_k = h, d_model // h
        self.w_q = nn.ModuleList(nn.Linear(d_model, self.d_k) for _ in range(h))
        self.w_k = nn.ModuleList(nn.Linear(d_model, self.d_k) for _ in range(h))
        self.w_v = nn.ModuleList(nn.Linear(d_model, self.d_k) for _ in range(h))
        self.w_o = nn.Linear(h * self.d_k, d_model)
    def forward(self, x, mem=None, mask=None):
        mem = x if mem is None else mem
        m = None if mask is None else mask[:, 0]
        heads = [attention(self.w_q[i](x), self.w_k[i](mem), self.w_v[i](mem), m)[0] for i in range(self.h)]
        return self.w_o(torch.cat(heads, dim=-1))
    @torch.no_grad()
    def load_from(self, mha):
        for i in range(self.h):
            sl = slice(i * self.d_k, (i + 1) * self.d_k)
            for mine, theirs in ((self.w_q[i], mha.w_q), (self.w_k[i], mha.w_k), (self.w_v[i], mha.w_v)):
                mine.weight.copy_(theirs.weight[sl]); mine.bias.copy_(theirs.bias[sl])
        self.w_o.weight.copy_(mha.w_o.weight); self.w_o.bias.copy_(mha.w_o.bias)
""")
A(nb, 'LoopMHA', 'the (B, 1, n_q, n_k) mask passed to each head as it is', """
class LoopMHA(nn.Module):
    def __init__(self, d_model, h):
        super().__init__()
        self.h, self.d_k = h, d_model // h
        self.w_q = nn.ModuleList(nn.Linear(d_model, self.d_k) for _ in range(h))
        self.w_k = nn.ModuleList(nn.Linear(d_model, self.d_k) for _ in range(h))
        self.w_v = nn.ModuleList(nn.Linear(d_model, self.d_k) for _ in range(h))
        self.w_o = nn.Linear(h * self.d_k, d_model)
    def forward(self, x, mem=None, mask=None):
        mem = x if mem is None else mem
        heads = [attention(self.w_q[i](x), self.w_k[i](mem), self.w_v[i](mem), mask)[0] for i in range(self.h)]
        return self.w_o(torch.cat(heads, dim=-1))
    @torch.no_grad()
    def load_from(self, mha):
        for i in range(self.h):
            sl = slice(i * self.d_k, (i + 1) * self.d_k)
            for mine, theirs in ((self.w_q[i], mha.w_q), (self.w_k[i], mha.w_k), (self.w_v[i], mha.w_v)):
                mine.weight.copy_(theirs.weight[sl]); mine.bias.copy_(theirs.bias[sl])
        self.w_o.load_state_dict(mha.w_o.state_dict())
""")
A(nb, 'LoopMHA', "load_from copies the heads' weights, not their biases", """
class LoopMHA(nn.Module):
    def __init__(self, d_model, h):
        super().__init__()
        self.h, self.d_k = h, d_model // h
        self.w_q = nn.ModuleList(nn.Linear(d_model, self.d_k) for _ in range(h))
        self.w_k = nn.ModuleList(nn.Linear(d_model, self.d_k) for _ in range(h))
        self.w_v = nn.ModuleList(nn.Linear(d_model, self.d_k) for _ in range(h))
        self.w_o = nn.Linear(h * self.d_k, d_model)
    def forward(self, x, mem=None, mask=None):
        mem = x if mem is None else mem
        m = None if mask is None else mask[:, 0]
        heads = [attention(self.w_q[i](x), self.w_k[i](mem), self.w_v[i](mem), m)[0] for i in range(self.h)]
        return self.w_o(torch.cat(heads, dim=-1))
    @torch.no_grad()
    def load_from(self, mha):
        for i in range(self.h):
            sl = slice(i * self.d_k, (i + 1) * self.d_k)
            self.w_q[i].weight.copy_(mha.w_q.weight[sl])
            self.w_k[i].weight.copy_(mha.w_k.weight[sl])
            self.w_v[i].weight.copy_(mha.w_v.weight[sl])
        self.w_o.load_state_dict(mha.w_o.state_dict())
""")
A(nb, 'LoopMHA', 'the heads kept in plain Python lists: their parameters not registered', """
class LoopMHA(nn.Module):
    def __init__(self, d_model, h):
        super().__init__()
        self.h, self.d_k = h, d_model // h
        self.w_q = [nn.Linear(d_model, self.d_k) for _ in range(h)]
        self.w_k = [nn.Linear(d_model, self.d_k) for _ in range(h)]
        self.w_v = [nn.Linear(d_model, self.d_k) for _ in range(h)]
        self.w_o = nn.Linear(h * self.d_k, d_model)
    def forward(self, x, mem=None, mask=None):
        mem = x if mem is None else mem
        m = None if mask is None else mask[:, 0]
        heads = [attention(self.w_q[i](x), self.w_k[i](mem), self.w_v[i](mem), m)[0] for i in range(self.h)]
        return self.w_o(torch.cat(heads, dim=-1))
    @torch.no_grad()
    def load_from(self, mha):
        for i in range(self.h):
            sl = slice(i * self.d_k, (i + 1) * self.d_k)
            for mine, theirs in ((self.w_q[i], mha.w_q), (self.w_k[i], mha.w_k), (self.w_v[i], mha.w_v)):
                mine.weight.copy_(theirs.weight[sl]); mine.bias.copy_(theirs.bias[sl])
        self.w_o.load_state_dict(mha.w_o.state_dict())
""")

# ---------------------------------------------------------------- 03_ffn
nb = '03_ffn'
A(nb, 'conv_to_ffn', None, """
def conv_to_ffn(conv):
    d_ff, d_model, _ = conv[0].weight.shape
    ffn = FeedForward(d_model, d_ff)
    with torch.no_grad():
        ffn.w_1.weight.copy_(conv[0].weight[:, :, 0]); ffn.w_1.bias.copy_(conv[0].bias)
        ffn.w_2.weight.copy_(conv[2].weight[:, :, 0]); ffn.w_2.bias.copy_(conv[2].bias)
    return ffn
""")
A(nb, 'conv_to_ffn', "squeeze() drops every axis of size 1, not only the kernel's", """
def conv_to_ffn(conv):
    d_ff, d_model, _ = conv[0].weight.shape
    ffn = FeedForward(d_model, d_ff)
    with torch.no_grad():
        ffn.w_1.weight.copy_(conv[0].weight.squeeze()); ffn.w_1.bias.copy_(conv[0].bias)
        ffn.w_2.weight.copy_(conv[2].weight.squeeze()); ffn.w_2.bias.copy_(conv[2].bias)
    return ffn
""")
A(nb, 'conv_to_ffn', 'the kernel transposed for nn.Linear, as if it stored (in, out)', """
def conv_to_ffn(conv):
    d_ff, d_model, _ = conv[0].weight.shape
    ffn = FeedForward(d_model, d_ff)
    with torch.no_grad():
        ffn.w_1.weight.copy_(conv[0].weight[:, :, 0].T); ffn.w_1.bias.copy_(conv[0].bias)
        ffn.w_2.weight.copy_(conv[2].weight[:, :, 0].T); ffn.w_2.bias.copy_(conv[2].bias)
    return ffn
""")
A(nb, 'conv_to_ffn', 'weights copied, biases left at zero', """
def conv_to_ffn(conv):
    d_ff, d_model, _ = conv[0].weight.shape
    ffn = FeedForward(d_model, d_ff)
    with torch.no_grad():
        ffn.w_1.weight.copy_(conv[0].weight[:, :, 0])
        ffn.w_2.weight.copy_(conv[2].weight[:, :, 0])
    return ffn
""")

# ---------------------------------------------------------------- 04_embeddings
nb = '04_embeddings'
A(nb, 'MyEmbeddings', None, """
class MyEmbeddings(nn.Module):
    def __init__(self, vocab, d_model, pad_id=PAD_ID):
        super().__init__()
        self.E = nn.Parameter(torch.randn(vocab, d_model) / math.sqrt(d_model))
        with torch.no_grad(): self.E[pad_id].zero_()
        self.pad_id, self.d_model = pad_id, d_model
    def forward(self, tokens):
        x = self.E[tokens]
        x = torch.where((tokens == self.pad_id).unsqueeze(-1), x.detach(), x)
        return x * math.sqrt(self.d_model)
""")
A(nb, 'MyEmbeddings', 'plain indexing E[tokens]: the padding row gets a gradient', """
class MyEmbeddings(nn.Module):
    def __init__(self, vocab, d_model, pad_id=PAD_ID):
        super().__init__()
        self.E = nn.Parameter(torch.randn(vocab, d_model) / math.sqrt(d_model))
        with torch.no_grad(): self.E[pad_id].zero_()
        self.d_model = d_model
    def forward(self, tokens):
        return self.E[tokens] * math.sqrt(self.d_model)
""")
A(nb, 'MyEmbeddings', 'pad positions zeroed in the output instead of detached', """
class MyEmbeddings(nn.Module):
    def __init__(self, vocab, d_model, pad_id=PAD_ID):
        super().__init__()
        self.E = nn.Parameter(torch.randn(vocab, d_model) / math.sqrt(d_model))
        with torch.no_grad(): self.E[pad_id].zero_()
        self.pad_id, self.d_model = pad_id, d_model
    def forward(self, tokens):
        x = self.E[tokens] * math.sqrt(self.d_model)
        return x.masked_fill((tokens == self.pad_id).unsqueeze(-1), 0.0)
""")
A(nb, 'MyEmbeddings', "E drawn from N(0, 1), nn.Embedding's default, not N(0, 1/d_model)", """
class MyEmbeddings(nn.Module):
    def __init__(self, vocab, d_model, pad_id=PAD_ID):
        super().__init__()
        self.E = nn.Parameter(torch.randn(vocab, d_model))
        with torch.no_grad(): self.E[pad_id].zero_()
        self.pad_id, self.d_model = pad_id, d_model
    def forward(self, tokens):
        x = self.E[tokens]
        x = torch.where((tokens == self.pad_id).unsqueeze(-1), x.detach(), x)
        return x * math.sqrt(self.d_model)
""")
A(nb, 'MyEmbeddings', 'the padding row not zeroed at initialisation', """
class MyEmbeddings(nn.Module):
    def __init__(self, vocab, d_model, pad_id=PAD_ID):
        super().__init__()
        self.E = nn.Parameter(torch.randn(vocab, d_model) * d_model ** -0.5)
        self.pad_id, self.d_model = pad_id, d_model
    def forward(self, tokens):
        x = self.E[tokens]
        x = torch.where((tokens == self.pad_id).unsqueeze(-1), x.detach(), x)
        return x * math.sqrt(self.d_model)
""")

# ---------------------------------------------------------------- 05_positional_encoding
nb = '05_positional_encoding'
A(nb, 'my_encoding', None, """
def my_encoding(n, d_model):
    pos = torch.arange(n, dtype=torch.float64).unsqueeze(1)
    div = torch.pow(10000.0, torch.arange(0, d_model, 2, dtype=torch.float64) / d_model)
    pe = torch.zeros(n, d_model, dtype=torch.float64)
    pe[:, 0::2] = torch.sin(pos / div)
    pe[:, 1::2] = torch.cos(pos / div)
    return pe.float()
""")
A(nb, 'my_encoding', 'exponent i/d_model with i = 0 .. d_model/2 - 1', """
def my_encoding(n, d_model):
    pos = torch.arange(n, dtype=torch.float64).unsqueeze(1)
    div = torch.pow(10000.0, torch.arange(d_model // 2, dtype=torch.float64) / d_model)
    pe = torch.zeros(n, d_model, dtype=torch.float64)
    pe[:, 0::2] = torch.sin(pos / div)
    pe[:, 1::2] = torch.cos(pos / div)
    return pe.float()
""")
A(nb, 'my_encoding', 'sines in the first half, cosines in the second (concatenated)', """
def my_encoding(n, d_model):
    pos = torch.arange(n, dtype=torch.float64).unsqueeze(1)
    div = torch.pow(10000.0, torch.arange(0, d_model, 2, dtype=torch.float64) / d_model)
    return torch.cat([torch.sin(pos / div), torch.cos(pos / div)], dim=-1).float()
""")
A(nb, 'my_encoding', 'positions counted from 1', """
def my_encoding(n, d_model):
    pos = torch.arange(1, n + 1, dtype=torch.float64).unsqueeze(1)
    div = torch.pow(10000.0, torch.arange(0, d_model, 2, dtype=torch.float64) / d_model)
    pe = torch.zeros(n, d_model, dtype=torch.float64)
    pe[:, 0::2] = torch.sin(pos / div)
    pe[:, 1::2] = torch.cos(pos / div)
    return pe.float()
""")
A(nb, 'my_encoding', 'each dimension j its own frequency 10000^(j/d_model), not one per pair', """
def my_encoding(n, d_model):
    pe = torch.zeros(n, d_model)
    for pos in range(n):
        for j in range(d_model):
            angle = pos / 10000 ** (j / d_model)
            pe[pos, j] = math.sin(angle) if j % 2 == 0 else math.cos(angle)
    return pe
""")
A(nb, 'RelativeBias', None, """
class RelativeBias(nn.Module):
    def __init__(self, h, K):
        super().__init__()
        self.K = K
        self.table = nn.Parameter(torch.randn(2 * K + 1, h) * 0.02)
    def forward(self, n_q, n_k):
        rel = torch.arange(n_k)[None, :] - torch.arange(n_q)[:, None]
        return self.table[rel.clamp(-self.K, self.K) + self.K].permute(2, 0, 1)
""")
A(nb, 'RelativeBias', 'offset i - j instead of j - i', """
class RelativeBias(nn.Module):
    def __init__(self, h, K):
        super().__init__()
        self.K = K
        self.table = nn.Parameter(torch.randn(2 * K + 1, h) * 0.02)
    def forward(self, n_q, n_k):
        rel = torch.arange(n_q)[:, None] - torch.arange(n_k)[None, :]
        return self.table[rel.clamp(-self.K, self.K) + self.K].permute(2, 0, 1)
""")
A(nb, 'RelativeBias', 'the clipped offset used as the index without + K (negative ones wrap)', """
class RelativeBias(nn.Module):
    def __init__(self, h, K):
        super().__init__()
        self.K = K
        self.table = nn.Parameter(torch.randn(2 * K + 1, h) * 0.02)
    def forward(self, n_q, n_k):
        rel = torch.arange(n_k)[None, :] - torch.arange(n_q)[:, None]
        return self.table[rel.clamp(-self.K, self.K)].permute(2, 0, 1)
""")
A(nb, 'RelativeBias', 'the lookup returned as (n_q, n_k, h), heads not moved first', """
class RelativeBias(nn.Module):
    def __init__(self, h, K):
        super().__init__()
        self.K = K
        self.table = nn.Parameter(torch.randn(2 * K + 1, h) * 0.02)
    def forward(self, n_q, n_k):
        rel = torch.arange(n_k)[None, :] - torch.arange(n_q)[:, None]
        return self.table[rel.clamp(-self.K, self.K) + self.K]
""")

# ---------------------------------------------------------------- 06_model
nb = '06_model'
A(nb, 'MySublayer', None, """
class MySublayer(nn.Module):
    def __init__(self, d_model, p_drop):
        super().__init__()
        self.norm = nn.LayerNorm(d_model)
        self.dropout = nn.Dropout(p_drop)
    def forward(self, x, f):
        return self.norm(x + self.dropout(f(x)))
""")
A(nb, 'MySublayer', 'pre-LN: x + Dropout(f(LayerNorm(x)))', """
class MySublayer(nn.Module):
    def __init__(self, d_model, p_drop):
        super().__init__()
        self.norm = nn.LayerNorm(d_model)
        self.dropout = nn.Dropout(p_drop)
    def forward(self, x, f):
        return x + self.dropout(f(self.norm(x)))
""")
A(nb, 'MySublayer', 'dropout on the residual sum, after the add', """
class MySublayer(nn.Module):
    def __init__(self, d_model, p_drop):
        super().__init__()
        self.norm = nn.LayerNorm(d_model)
        self.dropout = nn.Dropout(p_drop)
    def forward(self, x, f):
        return self.norm(self.dropout(x + f(x)))
""")
A(nb, 'MySublayer', 'no dropout at all, p_drop ignored', """
class MySublayer(nn.Module):
    def __init__(self, d_model, p_drop):
        super().__init__()
        self.norm = nn.LayerNorm(d_model)
    def forward(self, x, f):
        return self.norm(x + f(x))
""")
A(nb, 'my_forward', None, """
def my_forward(model, src, tgt):
    src_mask, tmask = pad_mask(src), make_tgt_mask(tgt)
    x = model.src_pos(model.src_emb(src))
    for layer in model.encoder:
        x = layer.sub[0].norm(x + layer.self_attn(x, mask=src_mask))
        x = layer.sub[1].norm(x + layer.ffn(x))
    memory = x
    y = model.tgt_pos(model.tgt_emb(tgt))
    for layer in model.decoder:
        y = layer.sub[0].norm(y + layer.self_attn(y, mask=tmask))
        y = layer.sub[1].norm(y + layer.cross_attn(y, memory, mask=src_mask))
        y = layer.sub[2].norm(y + layer.ffn(y))
    return model.generator(y)
""")
A(nb, 'my_forward', "the decoder's self-attention given pad_mask(tgt), no causal mask", """
def my_forward(model, src, tgt):
    src_mask, tmask = pad_mask(src), pad_mask(tgt)
    x = model.src_pos(model.src_emb(src))
    for layer in model.encoder:
        x = layer.sub[0].norm(x + layer.self_attn(x, mask=src_mask))
        x = layer.sub[1].norm(x + layer.ffn(x))
    memory = x
    y = model.tgt_pos(model.tgt_emb(tgt))
    for layer in model.decoder:
        y = layer.sub[0].norm(y + layer.self_attn(y, mask=tmask))
        y = layer.sub[1].norm(y + layer.cross_attn(y, memory, mask=src_mask))
        y = layer.sub[2].norm(y + layer.ffn(y))
    return model.generator(y)
""")
A(nb, 'my_forward', 'the encoder-decoder attention without the source padding mask', """
def my_forward(model, src, tgt):
    src_mask, tmask = pad_mask(src), make_tgt_mask(tgt)
    x = model.src_pos(model.src_emb(src))
    for layer in model.encoder:
        x = layer.sub[0].norm(x + layer.self_attn(x, mask=src_mask))
        x = layer.sub[1].norm(x + layer.ffn(x))
    memory = x
    y = model.tgt_pos(model.tgt_emb(tgt))
    for layer in model.decoder:
        y = layer.sub[0].norm(y + layer.self_attn(y, mask=tmask))
        y = layer.sub[1].norm(y + layer.cross_attn(y, memory))
        y = layer.sub[2].norm(y + layer.ffn(y))
    return model.generator(y)
""")
A(nb, 'my_forward', 'pre-LN sub-layers: x + f(norm(x))', """
def my_forward(model, src, tgt):
    src_mask, tmask = pad_mask(src), make_tgt_mask(tgt)
    x = model.src_pos(model.src_emb(src))
    for layer in model.encoder:
        x = x + layer.self_attn(layer.sub[0].norm(x), mask=src_mask)
        x = x + layer.ffn(layer.sub[1].norm(x))
    memory = x
    y = model.tgt_pos(model.tgt_emb(tgt))
    for layer in model.decoder:
        y = y + layer.self_attn(layer.sub[0].norm(y), mask=tmask)
        y = y + layer.cross_attn(layer.sub[1].norm(y), memory, mask=src_mask)
        y = y + layer.ffn(layer.sub[2].norm(y))
    return model.generator(y)
""")
A(nb, 'my_forward', "the decoder's FFN normalised with sub[1].norm, the encoder's pattern copied", """
def my_forward(model, src, tgt):
    src_mask, tmask = pad_mask(src), make_tgt_mask(tgt)
    x = model.src_pos(model.src_emb(src))
    for layer in model.encoder:
        x = layer.sub[0].norm(x + layer.self_attn(x, mask=src_mask))
        x = layer.sub[1].norm(x + layer.ffn(x))
    memory = x
    y = model.tgt_pos(model.tgt_emb(tgt))
    for layer in model.decoder:
        y = layer.sub[0].norm(y + layer.self_attn(y, mask=tmask))
        y = layer.sub[1].norm(y + layer.cross_attn(y, memory, mask=src_mask))
        y = layer.sub[1].norm(y + layer.ffn(y))
    return model.generator(y)
""")
A(nb, 'parsing_counts', None, """
def parsing_counts():
    cfg = TransformerConfig(src_vocab=16000, tgt_vocab=16000, d_model=1024, N=4)
    with torch.device('meta'): tied = count_params(Transformer(cfg))
    return tied, tied + 2 * 16000 * 1024
""")
A(nb, 'parsing_counts', "base's 37,000-token vocabulary kept", """
def parsing_counts():
    cfg = TransformerConfig(d_model=1024, N=4)
    with torch.device('meta'): tied = count_params(Transformer(cfg))
    return tied, tied + 2 * 37000 * 1024
""")
A(nb, 'parsing_counts', "untied adds one matrix, the generator's, not two", """
def parsing_counts():
    cfg = TransformerConfig(src_vocab=16000, tgt_vocab=16000, d_model=1024, N=4)
    with torch.device('meta'): tied = count_params(Transformer(cfg))
    return tied, tied + 16000 * 1024
""")
A(nb, 'parsing_counts', "d_k = d_v = 64 kept from base, so the heads' width shrinks", """
def parsing_counts():
    cfg = TransformerConfig(src_vocab=16000, tgt_vocab=16000, d_model=1024, N=4, d_k=64, d_v=64)
    with torch.device('meta'): tied = count_params(Transformer(cfg))
    return tied, tied + 2 * 16000 * 1024
""")

# ---------------------------------------------------------------- 07_why_self_attention
nb = '07_why_self_attention'
A(nb, 'restricted_attention', None, """
def restricted_attention(q, k, v, r):
    n, w = q.shape[-2], r // 2
    kw = F.pad(k, (0, 0, w, w)).unfold(-2, 2 * w + 1, 1)     # (B, h, n, d_k, 2w+1)
    vw = F.pad(v, (0, 0, w, w)).unfold(-2, 2 * w + 1, 1)     # (B, h, n, d_v, 2w+1)
    s = (q.unsqueeze(-1) * kw).sum(-2) / math.sqrt(q.shape[-1])   # (B, h, n, 2w+1)
    pos = torch.arange(n)[:, None] + torch.arange(-w, w + 1)[None, :]
    s = s.masked_fill((pos < 0) | (pos >= n), float('-inf'))
    p = s.softmax(-1)
    return (p.unsqueeze(-2) * vw).sum(-1)
""")
A(nb, 'restricted_attention', 'full n x n scores under local_mask', """
def restricted_attention(q, k, v, r):
    return attention(q, k, v, local_mask(q.shape[-2], r))[0]
""")
A(nb, 'restricted_attention', 'the zero rows padded in at the ends not masked', """
def restricted_attention(q, k, v, r):
    w = r // 2
    kw = F.pad(k, (0, 0, w, w)).unfold(-2, 2 * w + 1, 1)
    vw = F.pad(v, (0, 0, w, w)).unfold(-2, 2 * w + 1, 1)
    s = torch.einsum('bhnd,bhndw->bhnw', q, kw) / math.sqrt(q.shape[-1])
    return torch.einsum('bhnw,bhndw->bhnd', s.softmax(-1), vw)
""")
A(nb, 'restricted_attention', 'windows of r rows, not 2 * (r // 2) + 1: wrong for an even r', """
def restricted_attention(q, k, v, r):
    n, w = q.shape[-2], r // 2
    kw = F.pad(k, (0, 0, w, w)).unfold(-2, r, 1)
    vw = F.pad(v, (0, 0, w, w)).unfold(-2, r, 1)
    s = torch.einsum('bhnd,bhndw->bhnw', q, kw) / math.sqrt(q.shape[-1])
    pos = torch.arange(n)[:, None] + torch.arange(-w, r - w)[None, :]
    s = s.masked_fill((pos < 0) | (pos >= n), float('-inf'))
    return torch.einsum('bhnw,bhndw->bhnd', s.softmax(-1), vw)
""")

# ---------------------------------------------------------------- 08_data
nb = '08_data'
A(nb, 'bpe', None, """
def _apply(syms, pair):
    out, i = [], 0
    while i < len(syms):
        if i + 1 < len(syms) and (syms[i], syms[i + 1]) == pair: out.append(syms[i] + syms[i + 1]); i += 2
        else: out.append(syms[i]); i += 1
    return out
def learn_bpe(word_counts, n_merges):
    words = [(list(w) + ['</w>'], c) for w, c in word_counts.items()]
    merges = []
    for _ in range(n_merges):
        pairs = Counter()
        for syms, c in words:
            for p in zip(syms, syms[1:]): pairs[p] += c
        if not pairs: break
        best = min(pairs, key=lambda p: (-pairs[p], p))
        merges.append(best)
        words = [(_apply(syms, best), c) for syms, c in words]
    return merges
def segment(word, merges):
    syms = list(word) + ['</w>']
    for pair in merges: syms = _apply(syms, pair)
    return syms
""")
A(nb, 'bpe', "ties broken by Counter.most_common: the pair counted first, not the smallest", """
def _apply(syms, pair):
    out, i = [], 0
    while i < len(syms):
        if i + 1 < len(syms) and (syms[i], syms[i + 1]) == pair: out.append(syms[i] + syms[i + 1]); i += 2
        else: out.append(syms[i]); i += 1
    return out
def learn_bpe(word_counts, n_merges):
    words = [(list(w) + ['</w>'], c) for w, c in word_counts.items()]
    merges = []
    for _ in range(n_merges):
        pairs = Counter()
        for syms, c in words:
            for p in zip(syms, syms[1:]): pairs[p] += c
        if not pairs: break
        best = pairs.most_common(1)[0][0]
        merges.append(best)
        words = [(_apply(syms, best), c) for syms, c in words]
    return merges
def segment(word, merges):
    syms = list(word) + ['</w>']
    for pair in merges: syms = _apply(syms, pair)
    return syms
""")
A(nb, 'bpe', "no end-of-word symbol '</w>'", """
def _apply(syms, pair):
    out, i = [], 0
    while i < len(syms):
        if i + 1 < len(syms) and (syms[i], syms[i + 1]) == pair: out.append(syms[i] + syms[i + 1]); i += 2
        else: out.append(syms[i]); i += 1
    return out
def learn_bpe(word_counts, n_merges):
    words = [(list(w), c) for w, c in word_counts.items()]
    merges = []
    for _ in range(n_merges):
        pairs = Counter()
        for syms, c in words:
            for p in zip(syms, syms[1:]): pairs[p] += c
        if not pairs: break
        best = min(pairs, key=lambda p: (-pairs[p], p))
        merges.append(best)
        words = [(_apply(syms, best), c) for syms, c in words]
    return merges
def segment(word, merges):
    syms = list(word)
    for pair in merges: syms = _apply(syms, pair)
    return syms
""")
A(nb, 'bpe', "pairs counted once per word, the word's count ignored", """
def _apply(syms, pair):
    out, i = [], 0
    while i < len(syms):
        if i + 1 < len(syms) and (syms[i], syms[i + 1]) == pair: out.append(syms[i] + syms[i + 1]); i += 2
        else: out.append(syms[i]); i += 1
    return out
def learn_bpe(word_counts, n_merges):
    words = [list(w) + ['</w>'] for w in word_counts]
    merges = []
    for _ in range(n_merges):
        pairs = Counter()
        for syms in words:
            for p in zip(syms, syms[1:]): pairs[p] += 1
        if not pairs: break
        best = min(pairs, key=lambda p: (-pairs[p], p))
        merges.append(best)
        words = [_apply(syms, best) for syms in words]
    return merges
def segment(word, merges):
    syms = list(word) + ['</w>']
    for pair in merges: syms = _apply(syms, pair)
    return syms
""")
A(nb, 'bpe', "merges applied with str.replace on the space-joined symbols: matches across symbol boundaries", """
def learn_bpe(word_counts, n_merges):
    vocab = {' '.join(list(w) + ['</w>']): c for w, c in word_counts.items()}
    merges = []
    for _ in range(n_merges):
        pairs = Counter()
        for w, c in vocab.items():
            s = w.split()
            for p in zip(s, s[1:]): pairs[p] += c
        if not pairs: break
        best = min(pairs, key=lambda p: (-pairs[p], p))
        merges.append(best)
        vocab = {w.replace(' '.join(best), ''.join(best)): c for w, c in vocab.items()}
    return merges
def segment(word, merges):
    w = ' '.join(list(word) + ['</w>'])
    for pair in merges: w = w.replace(' '.join(pair), ''.join(pair))
    return w.split()
""")

# ---------------------------------------------------------------- 09_training
nb = '09_training'
A(nb, 'my_noam_lr', None, """
def my_noam_lr(step, d_model=512, warmup=4000):
    if step == 0: return 0.0
    return d_model ** -0.5 * min(step ** -0.5, step * warmup ** -1.5)
""")
A(nb, 'my_noam_lr', 'no case for step 0: 0 ** -0.5 divides by zero', """
def my_noam_lr(step, d_model=512, warmup=4000):
    return d_model ** -0.5 * min(step ** -0.5, step * warmup ** -1.5)
""")
A(nb, 'my_noam_lr', 'max of the two terms instead of min', """
def my_noam_lr(step, d_model=512, warmup=4000):
    if step == 0: return 0.0
    return d_model ** -0.5 * max(step ** -0.5, step * warmup ** -1.5)
""")
A(nb, 'my_noam_lr', 'multiplied by sqrt(d_model) instead of divided', """
def my_noam_lr(step, d_model=512, warmup=4000):
    if step == 0: return 0.0
    return math.sqrt(d_model) * min(step ** -0.5, step * warmup ** -1.5)
""")
A(nb, 'my_label_smoothing', None, """
def my_label_smoothing(logits, target, eps, pad_id=PAD_ID):
    V = logits.shape[-1]
    lp = F.log_softmax(logits, dim=-1)
    q = torch.full_like(lp, eps / V)
    q = q + (1 - eps) * F.one_hot(target, V).to(lp.dtype)
    loss = -(q * lp).sum(-1)
    keep = target != pad_id
    return loss[keep].sum() / keep.sum()
""")
A(nb, 'my_label_smoothing', 'scatter_ sets the reference to 1 - eps, losing its eps/V', """
def my_label_smoothing(logits, target, eps, pad_id=PAD_ID):
    V = logits.shape[-1]
    q = torch.full_like(logits, eps / V)
    q.scatter_(-1, target.unsqueeze(-1), 1 - eps)
    loss = -(q * logits.log_softmax(-1)).sum(-1)
    return loss[target != pad_id].mean()
""")
A(nb, 'my_label_smoothing', 'log_softmax over dim 1, from the (N, V) habit', """
def my_label_smoothing(logits, target, eps, pad_id=PAD_ID):
    V = logits.shape[-1]
    q = torch.full_like(logits, eps / V)
    q.scatter_add_(-1, target.unsqueeze(-1), torch.full_like(logits[..., :1], 1 - eps))
    loss = -(q * F.log_softmax(logits, dim=1)).sum(-1)
    return loss[target != pad_id].mean()
""")
A(nb, 'my_label_smoothing', "pads' losses zeroed but the sum divided by every position", """
def my_label_smoothing(logits, target, eps, pad_id=PAD_ID):
    V = logits.shape[-1]
    q = torch.full_like(logits, eps / V)
    q.scatter_add_(-1, target.unsqueeze(-1), torch.full_like(logits[..., :1], 1 - eps))
    loss = -(q * logits.log_softmax(-1)).sum(-1)
    loss = loss * (target != pad_id)
    return loss.mean()
""")
A(nb, 'my_label_smoothing', 'the sum over the tokens, not the mean', """
def my_label_smoothing(logits, target, eps, pad_id=PAD_ID):
    V = logits.shape[-1]
    q = torch.full_like(logits, eps / V)
    q.scatter_add_(-1, target.unsqueeze(-1), torch.full_like(logits[..., :1], 1 - eps))
    loss = -(q * logits.log_softmax(-1)).sum(-1)
    return loss[target != pad_id].sum()
""")

# ---------------------------------------------------------------- 10_decoding
nb = '10_decoding'
A(nb, 'my_greedy_step', None, """
def my_greedy_step(model, src, ys):
    with torch.no_grad(): logits = model(src, ys)[:, -1, :]
    return next_token_logits(logits).argmax(dim=-1)
""")
A(nb, 'my_greedy_step', 'PAD and BOS not forbidden: next_token_logits left out', """
def my_greedy_step(model, src, ys):
    logits = model(src, ys)[:, -1]
    return logits.argmax(-1)
""")
A(nb, 'my_greedy_step', 'argmax without a dim: one index into the flattened batch', """
def my_greedy_step(model, src, ys):
    logits = model(src, ys)[:, -1]
    return next_token_logits(logits).argmax()
""")
A(nb, 'my_greedy_step', "keepdim=True copied from greedy_decode: (B, 1), not (B,)", """
def my_greedy_step(model, src, ys):
    logits = model(src, ys)[:, -1]
    return next_token_logits(logits).argmax(-1, keepdim=True)
""")
A(nb, 'my_greedy_step', 'logits[-1]: the last sentence of the batch, not the last position', """
def my_greedy_step(model, src, ys):
    logits = model(src, ys)[-1]
    return next_token_logits(logits).argmax(-1)
""")

# ---------------------------------------------------------------- 11_results
nb = '11_results'
A(nb, 'my_bleu', None, """
def my_bleu(hyps, refs):
    def grams(ws, n): return Counter(tuple(ws[i:i + n]) for i in range(len(ws) - n + 1))
    m, t, c, r = [0] * 4, [0] * 4, 0, 0
    for hyp, ref in zip(hyps, refs):
        h, g = hyp.split(), ref.split()
        c += len(h); r += len(g)
        for n in range(1, 5):
            m[n - 1] += sum((grams(h, n) & grams(g, n)).values())
            t[n - 1] += max(0, len(h) - n + 1)
    bp = 1.0 if c > r else math.exp(1 - r / c)
    return 100 * bp * math.exp(sum(math.log(a / b) for a, b in zip(m, t)) / 4)
""")
A(nb, 'my_bleu', "the sentences' BLEUs averaged, not the corpus's counts summed", """
def my_bleu(hyps, refs):
    def grams(ws, n): return Counter(tuple(ws[i:i + n]) for i in range(len(ws) - n + 1))
    scores = []
    for hyp, ref in zip(hyps, refs):
        h, g = hyp.split(), ref.split()
        p = [sum((grams(h, n) & grams(g, n)).values()) / max(1, len(h) - n + 1) for n in range(1, 5)]
        bp = min(1.0, math.exp(1 - len(g) / len(h)))
        scores.append(100 * bp * math.exp(sum(math.log(x) for x in p) / 4))
    return sum(scores) / len(scores)
""")
A(nb, 'my_bleu', 'precision not clipped: every output n-gram found in the reference counts', """
def my_bleu(hyps, refs):
    def grams(ws, n): return Counter(tuple(ws[i:i + n]) for i in range(len(ws) - n + 1))
    m, t, c, r = [0] * 4, [0] * 4, 0, 0
    for hyp, ref in zip(hyps, refs):
        h, g = hyp.split(), ref.split()
        c += len(h); r += len(g)
        for n in range(1, 5):
            hg, rg = grams(h, n), grams(g, n)
            m[n - 1] += sum(cnt for gram, cnt in hg.items() if gram in rg)
            t[n - 1] += max(0, len(h) - n + 1)
    bp = min(1.0, math.exp(1 - r / c))
    return 100 * bp * math.exp(sum(math.log(a / b) for a, b in zip(m, t)) / 4)
""")
A(nb, 'my_bleu', 'brevity penalty exp(1 - c/r), the ratio upside down', """
def my_bleu(hyps, refs):
    def grams(ws, n): return Counter(tuple(ws[i:i + n]) for i in range(len(ws) - n + 1))
    m, t, c, r = [0] * 4, [0] * 4, 0, 0
    for hyp, ref in zip(hyps, refs):
        h, g = hyp.split(), ref.split()
        c += len(h); r += len(g)
        for n in range(1, 5):
            m[n - 1] += sum((grams(h, n) & grams(g, n)).values())
            t[n - 1] += max(0, len(h) - n + 1)
    bp = min(1.0, math.exp(1 - c / r))
    return 100 * bp * math.exp(sum(math.log(a / b) for a, b in zip(m, t)) / 4)
""")
A(nb, 'my_bleu', 'a fraction from 0 to 1, not 0 to 100', """
def my_bleu(hyps, refs):
    def grams(ws, n): return Counter(tuple(ws[i:i + n]) for i in range(len(ws) - n + 1))
    m, t, c, r = [0] * 4, [0] * 4, 0, 0
    for hyp, ref in zip(hyps, refs):
        h, g = hyp.split(), ref.split()
        c += len(h); r += len(g)
        for n in range(1, 5):
            m[n - 1] += sum((grams(h, n) & grams(g, n)).values())
            t[n - 1] += max(0, len(h) - n + 1)
    bp = min(1.0, math.exp(1 - r / c))
    return bp * math.exp(sum(math.log(a / b) for a, b in zip(m, t)) / 4)
""")

# ---------------------------------------------------------------- 12_variations
nb = '12_variations'
A(nb, 'beyond_noise', None, """
def beyond_noise(recs):
    ref = [r for r in recs if r['id'] == 'base'][0]['bleu']
    noise = max(abs(r['bleu'] - ref) for r in recs if r['variant'] == 'base' and r['id'] != 'base')
    return [r['id'] for r in recs if r['variant'] != 'base' and abs(r['bleu'] - ref) > noise]
""")
A(nb, 'beyond_noise', 'only the variants above base: the sign kept', """
def beyond_noise(recs):
    ref = [r for r in recs if r['id'] == 'base'][0]['bleu']
    noise = max(abs(r['bleu'] - ref) for r in recs if r['variant'] == 'base' and r['id'] != 'base')
    return [r['id'] for r in recs if r['variant'] != 'base' and r['bleu'] - ref > noise]
""")
A(nb, 'beyond_noise', '>= noise: a variant exactly at the band counts', """
def beyond_noise(recs):
    ref = [r for r in recs if r['id'] == 'base'][0]['bleu']
    noise = max(abs(r['bleu'] - ref) for r in recs if r['variant'] == 'base' and r['id'] != 'base')
    return [r['id'] for r in recs if r['variant'] != 'base' and abs(r['bleu'] - ref) >= noise]
""")
A(nb, 'beyond_noise', "the band as the range (max - min) of base's seeds", """
def beyond_noise(recs):
    ref = [r for r in recs if r['id'] == 'base'][0]['bleu']
    seeds = [r['bleu'] for r in recs if r['variant'] == 'base']
    noise = max(seeds) - min(seeds)
    return [r['id'] for r in recs if r['variant'] != 'base' and abs(r['bleu'] - ref) > noise]
""")
A(nb, 'heads_looking', None, """
def heads_looking(w, rows, col):
    return [i + 1 for i in range(w.shape[0]) if all(int(w[i, r].argmax()) == col for r in rows)]
""")
A(nb, 'heads_looking', 'heads numbered from 0', """
def heads_looking(w, rows, col):
    return [i for i in range(w.shape[0]) if all(w[i, r].argmax() == col for r in rows)]
""")
A(nb, 'heads_looking', 'any row instead of every row', """
def heads_looking(w, rows, col):
    return [i + 1 for i in range(w.shape[0]) if any(w[i, r].argmax() == col for r in rows)]
""")
A(nb, 'heads_looking', 'a weight over 0.5 on col instead of the largest weight', """
def heads_looking(w, rows, col):
    return [i + 1 for i in range(w.shape[0]) if all(w[i, r, col] > 0.5 for r in rows)]
""")
A(nb, 'rows_ab', None, """
def rows_ab(base):
    d, h = base['d_model'], base['h']
    d_k = base.get('d_k') or d // h
    out = {}
    for k in (max(1, h // 8), h // 2, 2 * h, 4 * h): out[f'A-h{k}'] = dict(h=k, d_k=d // k, d_v=d // k)
    for k in (d_k // 4, d_k // 2): out[f'B-dk{k}'] = dict(d_k=k, d_v=d_k)
    return out
""")
A(nb, 'rows_ab', 'row (B) shrinks d_v with d_k', """
def rows_ab(base):
    d, h = base['d_model'], base['h']
    d_k = base.get('d_k') or d // h
    out = {}
    for k in (max(1, h // 8), h // 2, 2 * h, 4 * h): out[f'A-h{k}'] = dict(h=k, d_k=d // k, d_v=d // k)
    for k in (d_k // 4, d_k // 2): out[f'B-dk{k}'] = dict(d_k=k, d_v=k)
    return out
""")
A(nb, 'rows_ab', 'h // 8 without the floor of one head', """
def rows_ab(base):
    d, h = base['d_model'], base['h']
    d_k = base.get('d_k') or d // h
    out = {}
    for k in (h // 8, h // 2, 2 * h, 4 * h): out[f'A-h{k}'] = dict(h=k, d_k=d // k, d_v=d // k)
    for k in (d_k // 4, d_k // 2): out[f'B-dk{k}'] = dict(d_k=k, d_v=d_k)
    return out
""")
A(nb, 'rows_ab', 'row (A) changes h alone, d_k and d_v left out', """
def rows_ab(base):
    d, h = base['d_model'], base['h']
    d_k = base.get('d_k') or d // h
    out = {}
    for k in (max(1, h // 8), h // 2, 2 * h, 4 * h): out[f'A-h{k}'] = dict(h=k)
    for k in (d_k // 4, d_k // 2): out[f'B-dk{k}'] = dict(d_k=k, d_v=d_k)
    return out
""")
A(nb, 'rows_ab', "base.get('d_k', d // h) for base.get('d_k') or d // h (left out: no PRESETS entry holds d_k=None)", """
def rows_ab(base):
    d, h = base['d_model'], base['h']
    d_k = base.get('d_k', d // h)
    out = {}
    for k in (max(1, h // 8), h // 2, 2 * h, 4 * h): out[f'A-h{k}'] = dict(h=k, d_k=d // k, d_v=d // k)
    for k in (d_k // 4, d_k // 2): out[f'B-dk{k}'] = dict(d_k=k, d_v=d_k)
    return out
""")

# ---------------------------------------------------------------- 13_parsing
nb = '13_parsing'
A(nb, 'my_linearize', None, """
def my_linearize(tree):
    if isinstance(tree, str): return tree
    if is_preterminal(tree): return tree[0]
    lab = coarse_label(tree.label())
    return ' '.join(['(' + lab] + [my_linearize(t) for t in tree] + [')' + lab])
""")
A(nb, 'my_linearize', 'labels kept whole: NP-SBJ and NP=1 not coarsened', """
def my_linearize(tree):
    if is_preterminal(tree): return tree[0]
    lab = tree.label()
    return ' '.join(['(' + lab] + [my_linearize(t) for t in tree] + [')' + lab])
""")
A(nb, 'my_linearize', 'POS nodes written as brackets: (NNP John )NNP', """
def my_linearize(tree):
    if isinstance(tree, str): return tree
    lab = coarse_label(tree.label())
    return ' '.join(['(' + lab] + [my_linearize(t) for t in tree] + [')' + lab])
""")
A(nb, 'my_linearize', 'phrases closed with a bare )', """
def my_linearize(tree):
    if is_preterminal(tree): return tree[0]
    lab = coarse_label(tree.label())
    return ' '.join(['(' + lab] + [my_linearize(t) for t in tree] + [')'])
""")
A(nb, 'my_corpus_prf', None, """
def my_corpus_prf(counts):
    m = sum(c[0] for c in counts); g = sum(c[1] for c in counts); t = sum(c[2] for c in counts)
    p = 100 * m / t if t else 0.0
    r = 100 * m / g if g else 0.0
    f = 2 * p * r / (p + r) if p + r else 0.0
    return p, r, f
""")
A(nb, 'my_corpus_prf', "the sentences' P, R and F1 averaged", """
def my_corpus_prf(counts):
    ps, rs, fs = [], [], []
    for m, g, t in counts:
        p, r = 100 * m / t, 100 * m / g
        ps.append(p); rs.append(r); fs.append(2 * p * r / (p + r) if p + r else 0.0)
    k = len(counts)
    return sum(ps) / k, sum(rs) / k, sum(fs) / k
""")
A(nb, 'my_corpus_prf', 'precision and recall swapped: matched over the reference for P', """
def my_corpus_prf(counts):
    m = sum(c[0] for c in counts); g = sum(c[1] for c in counts); t = sum(c[2] for c in counts)
    p, r = 100 * m / g, 100 * m / t
    return p, r, 2 * p * r / (p + r)
""")
A(nb, 'my_corpus_prf', 'fractions from 0 to 1, not percent', """
def my_corpus_prf(counts):
    m = sum(c[0] for c in counts); g = sum(c[1] for c in counts); t = sum(c[2] for c in counts)
    p, r = m / t, m / g
    return p, r, 2 * p * r / (p + r)
""")
A(nb, 'my_corpus_prf', 'F1 as the arithmetic mean of P and R', """
def my_corpus_prf(counts):
    m = sum(c[0] for c in counts); g = sum(c[1] for c in counts); t = sum(c[2] for c in counts)
    p, r = 100 * m / t, 100 * m / g
    return p, r, (p + r) / 2
""")

# ---------------------------------------------------------------- 14_since_2017
nb = '14_since_2017'
A(nb, 'rms_norm_of', None, """
def rms_norm_of(a, g, eps=1e-5):
    return a * torch.rsqrt(a.pow(2).mean(dim=-1, keepdim=True) + eps) * g
""")
A(nb, 'rms_norm_of', 'eps added outside the root', """
def rms_norm_of(a, g, eps=1e-5):
    return a / (a.pow(2).mean(-1, keepdim=True).sqrt() + eps) * g
""")
A(nb, 'rms_norm_of', 'the L2 norm instead of the RMS: the 1/n left out', """
def rms_norm_of(a, g, eps=1e-5):
    return a / torch.sqrt(a.pow(2).sum(-1, keepdim=True) + eps) * g
""")
A(nb, 'rms_norm_of', 'mean without keepdim: the RMS broadcast along the wrong axis', """
def rms_norm_of(a, g, eps=1e-5):
    return a / torch.sqrt(a.pow(2).mean(-1) + eps) * g
""")
A(nb, 'rotate_query', None, """
def rotate_query(q, m):
    d = q.shape[-1]
    theta = 10000.0 ** (-torch.arange(0, d, 2, dtype=torch.float64) / d)
    c, s = torch.cos(m * theta), torch.sin(m * theta)
    x, y = q[0::2].double(), q[1::2].double()
    out = torch.empty(d, dtype=torch.float64)
    out[0::2], out[1::2] = x * c - y * s, x * s + y * c
    return out.to(q.dtype)
""")
A(nb, 'rotate_query', "pairs as halves, Hugging Face's rotate_half", """
def rotate_query(q, m):
    d = q.shape[-1]
    theta = 10000.0 ** (-torch.arange(0, d, 2, dtype=torch.float64) / d)
    a = torch.cat([m * theta, m * theta])
    rot = torch.cat([-q[d // 2:], q[:d // 2]]).double()
    return (q.double() * a.cos() + rot * a.sin()).to(q.dtype)
""")
A(nb, 'rotate_query', 'turned the wrong way: the sines with the other sign', """
def rotate_query(q, m):
    d = q.shape[-1]
    theta = 10000.0 ** (-torch.arange(0, d, 2, dtype=torch.float64) / d)
    c, s = torch.cos(m * theta), torch.sin(m * theta)
    x, y = q[0::2].double(), q[1::2].double()
    out = torch.empty(d, dtype=torch.float64)
    out[0::2], out[1::2] = x * c + y * s, -x * s + y * c
    return out.to(q.dtype)
""")
A(nb, 'rotate_query', 'the rotated pairs concatenated, not put back in place', """
def rotate_query(q, m):
    d = q.shape[-1]
    theta = 10000.0 ** (-torch.arange(0, d, 2, dtype=torch.float64) / d)
    c, s = torch.cos(m * theta), torch.sin(m * theta)
    x, y = q[0::2].double(), q[1::2].double()
    return torch.cat([x * c - y * s, x * s + y * c]).to(q.dtype)
""")
A(nb, 'group_heads', None, """
def group_heads(k, g):
    B, h, n, d = k.shape
    means = k.reshape(B, g, h // g, n, d).mean(dim=2, keepdim=True)
    return means.expand(B, g, h // g, n, d).reshape(B, h, n, d)
""")
A(nb, 'group_heads', 'groups taken by stride: heads j, j + g, ...', """
def group_heads(k, g):
    B, h, n, d = k.shape
    return k.view(B, h // g, g, n, d).mean(1).repeat_interleave(h // g, dim=1)
""")
A(nb, 'group_heads', 'the group heads tiled with repeat, not repeated in place', """
def group_heads(k, g):
    B, h, n, d = k.shape
    return k.view(B, g, h // g, n, d).mean(2).repeat(1, h // g, 1, 1)
""")
A(nb, 'group_heads', 'the g group heads returned, not repeated back to h', """
def group_heads(k, g):
    B, h, n, d = k.shape
    return k.view(B, g, h // g, n, d).mean(2)
""")
