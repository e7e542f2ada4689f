"""The fortieth blind set's answers, for every paper notebook (00 to 14), written from the exercises' text alone:
(notebook, exercise, mistake, code), the mistake None for the right answer. `experiments/blind_answers.py 40` runs them.
A representative set, not a hunt for new kinds: for each exercise the two to four slips a learner who has just read
its page most plausibly makes on a first attempt: habits of PyTorch and of other courses (pad_sequence's defaults, the
Annotated Transformer's -1e9 mask, log_softmax in its Generator and smoothing over V - 2, a time-major or in-place
habit, Hugging Face's key-padding sense and rotate-half pairs), the paper's notation misread (d_k, 2i, j - i, the
variance in N(0, 1/d_model), the rows of nn.Linear), off-by-ones (steps, windows, bounds), corpus sums taken per
sentence, and answers right only on the example shown."""
ANSWERS = []
def A(nb, ex, mistake, code): ANSWERS.append((nb, ex, mistake, code))

# ---------------------------------------------------------------- 00_core
nb = '00_core'
A(nb, 'pad_batch', None, """
def pad_batch(seqs, pad_id=PAD_ID):
    n = max(len(s) for s in seqs)
    return torch.tensor([list(s) + [pad_id] * (n - len(s)) for s in seqs], dtype=torch.long)
""")
A(nb, 'pad_batch', 'pads the input lists in place (extend), then tensors them', """
def pad_batch(seqs, pad_id=PAD_ID):
    n = max(len(s) for s in seqs)
    for s in seqs: s.extend([pad_id] * (n - len(s)))
    return torch.tensor(seqs, dtype=torch.long)
""")
A(nb, 'pad_batch', "pad_sequence(batch_first=True) without padding_value: pads with 0 whatever pad_id is", """
def pad_batch(seqs, pad_id=PAD_ID):
    return torch.nn.utils.rnn.pad_sequence([torch.tensor(s) for s in seqs], batch_first=True)
""")
A(nb, 'pad_batch', 'torch.Tensor(rows): float32 ids, not long', """
def pad_batch(seqs, pad_id=PAD_ID):
    n = max(len(s) for s in seqs)
    return torch.Tensor([s + [pad_id] * (n - len(s)) for s in seqs])
""")

# ---------------------------------------------------------------- 01_attention
nb = '01_attention'
A(nb, 'attention', None, """
def my_attention(q, k, v, mask=None):
    s = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if mask is not None: s = s.masked_fill(~mask, float('-inf'))
    w = s.softmax(dim=-1)
    if mask is not None: w = w.masked_fill(~mask, 0.0)
    return w @ v, w
""")
A(nb, 'attention', "the Annotated Transformer's masked_fill(mask == 0, -1e9): an all-masked row gets uniform weights, not zeros", """
def my_attention(q, k, v, mask=None):
    s = q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))
    if mask is not None: s = s.masked_fill(mask == 0, -1e9)
    w = s.softmax(dim=-1)
    return w @ v, w
""")
A(nb, 'attention', 'mask read the key_padding_mask way: masked_fill(mask, -inf) hides the keys marked True', """
def my_attention(q, k, v, mask=None):
    s = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if mask is not None: s = s.masked_fill(mask, float('-inf'))
    w = s.softmax(dim=-1)
    if mask is not None: w = w.masked_fill(mask, 0.0)
    return w @ v, w
""")
A(nb, 'attention', 'scores divided by d_k, not sqrt(d_k)', """
def my_attention(q, k, v, mask=None):
    d_k = q.shape[-1]
    s = q @ k.transpose(-2, -1) / d_k
    if mask is not None: s = s.masked_fill(~mask, float('-inf'))
    w = torch.softmax(s, dim=-1)
    if mask is not None: w = w.masked_fill(~mask, 0.0)
    return w @ v, w
""")
A(nb, 'attention', 'softmax over dim=-2, the queries, not the keys', """
def my_attention(q, k, v, mask=None):
    s = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if mask is not None: s = s.masked_fill(~mask, float('-inf'))
    w = torch.softmax(s, dim=-2)
    if mask is not None: w = w.masked_fill(~mask, 0.0)
    w = torch.nan_to_num(w)
    return w @ v, w
""")
A(nb, 'restricted_mask', None, """
def restricted_mask(n, r):
    i = torch.arange(n)
    return ((i[:, None] - i[None, :]).abs() <= r // 2)[None, None]
""")
A(nb, 'restricted_mask', 'strict < r // 2: the band one key too narrow on each side', """
def restricted_mask(n, r):
    i = torch.arange(n)
    return ((i[:, None] - i[None, :]).abs() < r // 2)[None, None]
""")
A(nb, 'restricted_mask', '|i - j| <= r, the neighbourhood size taken as its radius', """
def restricted_mask(n, r):
    i = torch.arange(n)
    return ((i[:, None] - i[None, :]).abs() <= r)[None, None]
""")
A(nb, 'restricted_mask', 'the (n, n) band without the two leading axes', """
def restricted_mask(n, r):
    i = torch.arange(n)
    return (i[:, None] - i[None, :]).abs() <= r // 2
""")

# ---------------------------------------------------------------- 02_multihead
nb = '02_multihead'
A(nb, 'heads', None, """
def split_heads(x, h):
    B, n, hd = x.shape
    return x.view(B, n, h, hd // h).transpose(1, 2)

def merge_heads(x):
    B, h, n, d = x.shape
    return x.transpose(1, 2).reshape(B, n, h * d)
""")
A(nb, 'heads', 'split_heads views straight to (B, h, n, d), no transpose', """
def split_heads(x, h):
    B, n, hd = x.shape
    return x.view(B, h, n, hd // h)

def merge_heads(x):
    B, h, n, d = x.shape
    return x.transpose(1, 2).reshape(B, n, h * d)
""")
A(nb, 'heads', 'merge_heads reshapes to (B, n, h*d) without the transpose back', """
def split_heads(x, h):
    B, n, hd = x.shape
    return x.view(B, n, h, hd // h).transpose(1, 2)

def merge_heads(x):
    B, h, n, d = x.shape
    return x.reshape(B, n, h * d)
""")
A(nb, 'heads', 'merge_heads with .view after the transpose (not contiguous)', """
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
        heads = lambda: nn.ModuleList(nn.Linear(d_model, self.d_k) for _ in range(h))
        self.w_q, self.w_k, self.w_v = heads(), heads(), heads()
        self.w_o = nn.Linear(h * self.d_k, d_model)

    def forward(self, x, mem=None, mask=None):
        mem = x if mem is None else mem
        m = None if mask is None else mask[:, 0]
        heads = [attention(wq(x), wk(mem), wv(mem), m)[0] for wq, wk, wv in zip(self.w_q, self.w_k, self.w_v)]
        return self.w_o(torch.cat(heads, -1))

    @torch.no_grad()
    def load_from(self, mha):
        for i in range(self.h):
            rows = slice(i * self.d_k, (i + 1) * self.d_k)
            for lin, W in zip((self.w_q[i], self.w_k[i], self.w_v[i]), (mha.w_q, mha.w_k, mha.w_v)):
                lin.weight.copy_(W.weight[rows]); lin.bias.copy_(W.bias[rows])
        self.w_o.weight.copy_(mha.w_o.weight); self.w_o.bias.copy_(mha.w_o.bias)
""")
A(nb, 'LoopMHA', 'the (B, 1, n_q, n_k) mask passed to each head as it is, its head axis not dropped', """
class LoopMHA(nn.Module):
    def __init__(self, d_model, h):
        super().__init__()
        self.h, self.d_k = h, d_model // h
        self.w_q = nn.ModuleList([nn.Linear(d_model, self.d_k) for _ in range(h)])
        self.w_k = nn.ModuleList([nn.Linear(d_model, self.d_k) for _ in range(h)])
        self.w_v = nn.ModuleList([nn.Linear(d_model, self.d_k) for _ in range(h)])
        self.w_o = nn.Linear(h * self.d_k, d_model)

    def forward(self, x, mem=None, mask=None):
        if mem is None: mem = x
        heads = []
        for i in range(self.h):
            out, _ = attention(self.w_q[i](x), self.w_k[i](mem), self.w_v[i](mem), mask)
            heads.append(out)
        return self.w_o(torch.cat(heads, dim=-1))

    def load_from(self, mha):
        with torch.no_grad():
            for i in range(self.h):
                s = slice(i * self.d_k, (i + 1) * self.d_k)
                self.w_q[i].weight.copy_(mha.w_q.weight[s]); self.w_q[i].bias.copy_(mha.w_q.bias[s])
                self.w_k[i].weight.copy_(mha.w_k.weight[s]); self.w_k[i].bias.copy_(mha.w_k.bias[s])
                self.w_v[i].weight.copy_(mha.w_v.weight[s]); self.w_v[i].bias.copy_(mha.w_v.bias[s])
            self.w_o.weight.copy_(mha.w_o.weight); self.w_o.bias.copy_(mha.w_o.bias)
""")
A(nb, 'LoopMHA', 'load_from copies the weights and leaves the biases at their init', """
class LoopMHA(nn.Module):
    def __init__(self, d_model, h):
        super().__init__()
        self.h, self.d_k = h, d_model // h
        self.w_q = nn.ModuleList([nn.Linear(d_model, self.d_k) for _ in range(h)])
        self.w_k = nn.ModuleList([nn.Linear(d_model, self.d_k) for _ in range(h)])
        self.w_v = nn.ModuleList([nn.Linear(d_model, self.d_k) for _ in range(h)])
        self.w_o = nn.Linear(h * self.d_k, d_model)

    def forward(self, x, mem=None, mask=None):
        mem = x if mem is None else mem
        m = None if mask is None else mask.squeeze(1)
        heads = [attention(self.w_q[i](x), self.w_k[i](mem), self.w_v[i](mem), m)[0] for i in range(self.h)]
        return self.w_o(torch.cat(heads, dim=-1))

    def load_from(self, mha):
        with torch.no_grad():
            for i in range(self.h):
                s = slice(i * self.d_k, (i + 1) * self.d_k)
                self.w_q[i].weight.copy_(mha.w_q.weight[s])
                self.w_k[i].weight.copy_(mha.w_k.weight[s])
                self.w_v[i].weight.copy_(mha.w_v.weight[s])
            self.w_o.weight.copy_(mha.w_o.weight)
""")
A(nb, 'LoopMHA', 'keys and values always from x: mem ignored', """
class LoopMHA(nn.Module):
    def __init__(self, d_model, h):
        super().__init__()
        self.h, self.d_k = h, d_model // h
        self.w_q = nn.ModuleList([nn.Linear(d_model, self.d_k) for _ in range(h)])
        self.w_k = nn.ModuleList([nn.Linear(d_model, self.d_k) for _ in range(h)])
        self.w_v = nn.ModuleList([nn.Linear(d_model, self.d_k) for _ in range(h)])
        self.w_o = nn.Linear(h * self.d_k, d_model)

    def forward(self, x, mem=None, mask=None):
        m = None if mask is None else mask[:, 0]
        heads = [attention(self.w_q[i](x), self.w_k[i](x), self.w_v[i](x), m)[0] for i in range(self.h)]
        return self.w_o(torch.cat(heads, dim=-1))

    def load_from(self, mha):
        with torch.no_grad():
            for i in range(self.h):
                s = slice(i * self.d_k, (i + 1) * self.d_k)
                for lin, W in ((self.w_q[i], mha.w_q), (self.w_k[i], mha.w_k), (self.w_v[i], mha.w_v)):
                    lin.weight.copy_(W.weight[s]); lin.bias.copy_(W.bias[s])
            self.w_o.load_state_dict(mha.w_o.state_dict())
""")
A(nb, 'LoopMHA', "head i's W_i^Q taken as columns of the weight, transposed (the paper's W, not nn.Linear's)", """
class LoopMHA(nn.Module):
    def __init__(self, d_model, h):
        super().__init__()
        self.h, self.d_k = h, d_model // h
        self.w_q = nn.ModuleList([nn.Linear(d_model, self.d_k) for _ in range(h)])
        self.w_k = nn.ModuleList([nn.Linear(d_model, self.d_k) for _ in range(h)])
        self.w_v = nn.ModuleList([nn.Linear(d_model, self.d_k) for _ in range(h)])
        self.w_o = nn.Linear(h * self.d_k, d_model)

    def forward(self, x, mem=None, mask=None):
        mem = x if mem is None else mem
        m = None if mask is None else mask[:, 0]
        heads = [attention(self.w_q[i](x), self.w_k[i](mem), self.w_v[i](mem), m)[0] for i in range(self.h)]
        return self.w_o(torch.cat(heads, dim=-1))

    def load_from(self, mha):
        with torch.no_grad():
            for i in range(self.h):
                s = slice(i * self.d_k, (i + 1) * self.d_k)
                for lin, W in ((self.w_q[i], mha.w_q), (self.w_k[i], mha.w_k), (self.w_v[i], mha.w_v)):
                    lin.weight.copy_(W.weight[:, s].T); lin.bias.copy_(W.bias[s])
            self.w_o.load_state_dict(mha.w_o.state_dict())
""")

# ---------------------------------------------------------------- 03_ffn
nb = '03_ffn'
A(nb, 'conv_to_ffn', None, """
def conv_to_ffn(conv):
    d_ff, d_model, _ = conv[0].weight.shape
    ffn = FeedForward(d_model, d_ff)
    with torch.no_grad():
        for lin, c in zip((ffn.w_1, ffn.w_2), (conv[0], conv[2])):
            lin.weight.copy_(c.weight[:, :, 0]); lin.bias.copy_(c.bias)
    return ffn
""")
A(nb, 'conv_to_ffn', 'weights copied, biases left at FeedForward zero init', """
def conv_to_ffn(conv):
    d_ff, d_model, _ = conv[0].weight.shape
    ffn = FeedForward(d_model, d_ff)
    with torch.no_grad():
        ffn.w_1.weight.copy_(conv[0].weight.squeeze(-1))
        ffn.w_2.weight.copy_(conv[2].weight.squeeze(-1))
    return ffn
""")
A(nb, 'conv_to_ffn', 'the kernel transposed to the paper W1 (d_model, d_ff) and set as the Linear weight', """
def conv_to_ffn(conv):
    d_ff, d_model, _ = conv[0].weight.shape
    ffn = FeedForward(d_model, d_ff)
    ffn.w_1.weight = nn.Parameter(conv[0].weight[:, :, 0].T.clone())
    ffn.w_1.bias = nn.Parameter(conv[0].bias.clone())
    ffn.w_2.weight = nn.Parameter(conv[2].weight[:, :, 0].T.clone())
    ffn.w_2.bias = nn.Parameter(conv[2].bias.clone())
    return ffn
""")
A(nb, 'conv_to_ffn', 'the second convolution taken as conv[1] (the ReLU)', """
def conv_to_ffn(conv):
    d_ff, d_model, _ = conv[0].weight.shape
    ffn = FeedForward(d_model, d_ff)
    with torch.no_grad():
        for lin, c in zip((ffn.w_1, ffn.w_2), (conv[0], conv[1])):
            lin.weight.copy_(c.weight[:, :, 0]); lin.bias.copy_(c.bias)
    return ffn
""")

# ---------------------------------------------------------------- 04_embeddings
nb = '04_embeddings'
A(nb, 'MyEmbeddings', None, """
class MyEmbeddings(nn.Module):
    def __init__(self, vocab, d_model, pad_id=PAD_ID):
        super().__init__()
        self.E = nn.Parameter(torch.randn(vocab, d_model) * d_model ** -0.5)
        with torch.no_grad(): self.E[pad_id] = 0.0
        self.pad_id, self.scale = pad_id, math.sqrt(d_model)

    def forward(self, tokens):
        x = self.E[tokens]
        pad = (tokens == self.pad_id).unsqueeze(-1)
        return torch.where(pad, x.detach(), x) * self.scale
""")
A(nb, 'MyEmbeddings', 'plain indexing E[tokens]: the padding row gets a gradient', """
class MyEmbeddings(nn.Module):
    def __init__(self, vocab, d_model, pad_id=PAD_ID):
        super().__init__()
        self.E = nn.Parameter(torch.randn(vocab, d_model) / math.sqrt(d_model))
        with torch.no_grad(): self.E[pad_id].zero_()
        self.pad_id, self.d_model = pad_id, d_model

    def forward(self, tokens):
        return self.E[tokens] * math.sqrt(self.d_model)
""")
A(nb, 'MyEmbeddings', 'the outputs at pad positions multiplied by 0 (wrong once the pad row is not zero)', """
class MyEmbeddings(nn.Module):
    def __init__(self, vocab, d_model, pad_id=PAD_ID):
        super().__init__()
        self.E = nn.Parameter(torch.randn(vocab, d_model) * d_model ** -0.5)
        with torch.no_grad(): self.E[pad_id] = 0
        self.pad_id, self.scale = pad_id, d_model ** 0.5

    def forward(self, tokens):
        keep = (tokens != self.pad_id).unsqueeze(-1).float()
        return self.E[tokens] * keep * self.scale
""")
A(nb, 'MyEmbeddings', 'N(0, 1/d_model) read as std 1/d_model', """
class MyEmbeddings(nn.Module):
    def __init__(self, vocab, d_model, pad_id=PAD_ID):
        super().__init__()
        self.E = nn.Parameter(torch.randn(vocab, d_model) / d_model)
        with torch.no_grad(): self.E[pad_id] = 0.0
        self.pad_id, self.scale = pad_id, math.sqrt(d_model)

    def forward(self, tokens):
        x = self.E[tokens]
        pad = (tokens == self.pad_id)[..., None]
        return torch.where(pad, x.detach(), x) * self.scale
""")
A(nb, 'MyEmbeddings', 'the padding row not zeroed at init', """
class MyEmbeddings(nn.Module):
    def __init__(self, vocab, d_model, pad_id=PAD_ID):
        super().__init__()
        self.E = nn.Parameter(torch.randn(vocab, d_model) * d_model ** -0.5)
        self.pad_id, self.scale = pad_id, math.sqrt(d_model)

    def forward(self, tokens):
        x = self.E[tokens]
        pad = (tokens == self.pad_id)[..., None]
        return torch.where(pad, x.detach(), x) * self.scale
""")

# ---------------------------------------------------------------- 05_positional_encoding
nb = '05_positional_encoding'
A(nb, 'my_encoding', None, """
def my_encoding(n, d_model):
    pos = torch.arange(n, dtype=torch.float64)[:, None]
    two_i = torch.arange(0, d_model, 2, dtype=torch.float64)
    angle = pos / 10000 ** (two_i / d_model)
    pe = torch.zeros(n, d_model, dtype=torch.float64)
    pe[:, 0::2], pe[:, 1::2] = angle.sin(), angle.cos()
    return pe.float()
""")
A(nb, 'my_encoding', 'all sines then all cosines (torch.cat of the halves), not interleaved', """
def my_encoding(n, d_model):
    pos = torch.arange(n, dtype=torch.float64)[:, None]
    two_i = torch.arange(0, d_model, 2, dtype=torch.float64)
    angle = pos / 10000 ** (two_i / d_model)
    return torch.cat([angle.sin(), angle.cos()], dim=-1).float()
""")
A(nb, 'my_encoding', 'each dimension j its own exponent j/d_model (the odd ones (2i+1)/d_model)', """
def my_encoding(n, d_model):
    pos = torch.arange(n, dtype=torch.float64)[:, None]
    j = torch.arange(d_model, dtype=torch.float64)
    angle = pos / 10000 ** (j / d_model)
    pe = torch.zeros(n, d_model, dtype=torch.float64)
    pe[:, 0::2], pe[:, 1::2] = angle[:, 0::2].sin(), angle[:, 1::2].cos()
    return pe.float()
""")
A(nb, 'my_encoding', 'exponent i/d_model over i = 0 .. d_model/2 - 1 (i for 2i)', """
def my_encoding(n, d_model):
    pos = torch.arange(n, dtype=torch.float64)[:, None]
    i = torch.arange(d_model // 2, dtype=torch.float64)
    angle = pos / 10000 ** (i / d_model)
    pe = torch.zeros(n, d_model, dtype=torch.float64)
    pe[:, 0::2], pe[:, 1::2] = angle.sin(), angle.cos()
    return pe.float()
""")
A(nb, 'my_encoding', 'exp-log form without the minus: pos * 10000^(2i/d_model)', """
def my_encoding(n, d_model):
    pos = torch.arange(n, dtype=torch.float64).unsqueeze(1)
    div_term = torch.exp(torch.arange(0, d_model, 2, dtype=torch.float64) * (math.log(10000.0) / d_model))
    pe = torch.zeros(n, d_model, dtype=torch.float64)
    pe[:, 0::2] = torch.sin(pos * div_term)
    pe[:, 1::2] = torch.cos(pos * div_term)
    return pe.float()
""")
A(nb, 'RelativeBias', None, """
class RelativeBias(nn.Module):
    def __init__(self, h, K):
        super().__init__()
        self.K = K
        self.table = nn.Parameter(torch.randn(2 * K + 1, h) * 0.02)

    def forward(self, n_q, n_k):
        offset = torch.arange(n_k)[None, :] - torch.arange(n_q)[:, None]
        return self.table[offset.clamp(-self.K, self.K) + self.K].permute(2, 0, 1)
""")
A(nb, 'RelativeBias', 'offset i - j, not j - i', """
class RelativeBias(nn.Module):
    def __init__(self, h, K):
        super().__init__()
        self.K = K
        self.table = nn.Parameter(torch.randn(2 * K + 1, h) * 0.02)

    def forward(self, n_q, n_k):
        rel = torch.arange(n_q)[:, None] - torch.arange(n_k)[None, :]
        return self.table[rel.clamp(-self.K, self.K) + self.K].permute(2, 0, 1)
""")
A(nb, 'RelativeBias', 'no clip: offsets below -K wrap round to the end of the table', """
class RelativeBias(nn.Module):
    def __init__(self, h, K):
        super().__init__()
        self.K = K
        self.table = nn.Parameter(torch.randn(2 * K + 1, h) * 0.02)

    def forward(self, n_q, n_k):
        rel = torch.arange(n_k)[None, :] - torch.arange(n_q)[:, None]
        return self.table[rel + self.K].permute(2, 0, 1)
""")
A(nb, 'RelativeBias', 'returns (n_q, n_k, h), the head axis not moved first', """
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
        self.norm, self.drop = nn.LayerNorm(d_model), nn.Dropout(p_drop)
    def forward(self, x, f):
        return self.norm(x + self.drop(f(x)))
""")
A(nb, 'MySublayer', 'pre-LN: x + Dropout(f(LayerNorm(x)))', """
class MySublayer(nn.Module):
    def __init__(self, d_model, p_drop):
        super().__init__()
        self.norm, self.drop = nn.LayerNorm(d_model), nn.Dropout(p_drop)
    def forward(self, x, f):
        return x + self.drop(f(self.norm(x)))
""")
A(nb, 'MySublayer', 'dropout on the residual sum: LayerNorm(Dropout(x + f(x)))', """
class MySublayer(nn.Module):
    def __init__(self, d_model, p_drop):
        super().__init__()
        self.norm, self.drop = nn.LayerNorm(d_model), nn.Dropout(p_drop)
    def forward(self, x, f):
        return self.norm(self.drop(x + f(x)))
""")
A(nb, 'MySublayer', 'F.dropout(f(x), p) in forward: training defaults to True, so it drops in eval too', """
class MySublayer(nn.Module):
    def __init__(self, d_model, p_drop):
        super().__init__()
        self.norm, self.p = nn.LayerNorm(d_model), p_drop
    def forward(self, x, f):
        return self.norm(x + F.dropout(f(x), self.p))
""")
FWD_RIGHT = """
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
    return model.generator(y)
"""
A(nb, 'my_forward', None, FWD_RIGHT)
A(nb, 'my_forward', 'no positional encoding: the embeddings alone go into the stacks',
  FWD_RIGHT.replace('model.src_pos(model.src_emb(src))', 'model.src_emb(src)').replace('model.tgt_pos(model.tgt_emb(tgt))', 'model.tgt_emb(tgt)'))
A(nb, 'my_forward', "decoder self-attention with pad_mask(tgt) alone: no causal mask",
  FWD_RIGHT.replace('make_tgt_mask(tgt)', 'pad_mask(tgt)'))
A(nb, 'my_forward', "log_softmax on the generator's output (the Annotated Transformer's Generator)",
  FWD_RIGHT.replace('return model.generator(y)', 'return model.generator(y).log_softmax(-1)'))
A(nb, 'my_forward', 'embeddings multiplied by sqrt(d_model) again (Embeddings already does it)',
  FWD_RIGHT.replace('model.src_pos(model.src_emb(src))', 'model.src_pos(model.src_emb(src) * math.sqrt(model.cfg.d_model))')
           .replace('model.tgt_pos(model.tgt_emb(tgt))', 'model.tgt_pos(model.tgt_emb(tgt) * math.sqrt(model.cfg.d_model))'))
A(nb, 'parsing_counts', None, """
def parsing_counts():
    cfg = TransformerConfig(N=4, d_model=1024, src_vocab=16000, tgt_vocab=16000)
    with torch.device('meta'): tied = count_params(Transformer(cfg))
    return tied, tied + 2 * 16000 * 1024
""")
A(nb, 'parsing_counts', 'd_ff = 4 * d_model = 4096 (the ratio kept, not the base size)', """
def parsing_counts():
    cfg = TransformerConfig(N=4, d_model=1024, d_ff=4096, src_vocab=16000, tgt_vocab=16000)
    with torch.device('meta'): tied = count_params(Transformer(cfg))
    return tied, tied + 2 * 16000 * 1024
""")
A(nb, 'parsing_counts', 'untied adds one matrix (a separate output layer), not two', """
def parsing_counts():
    cfg = TransformerConfig(N=4, d_model=1024, src_vocab=16000, tgt_vocab=16000)
    with torch.device('meta'): tied = count_params(Transformer(cfg))
    return tied, tied + 16000 * 1024
""")
A(nb, 'parsing_counts', 'the vocabulary left at the default 37,000', """
def parsing_counts():
    cfg = TransformerConfig(N=4, d_model=1024)
    with torch.device('meta'): tied = count_params(Transformer(cfg))
    return tied, tied + 2 * cfg.tgt_vocab * cfg.d_model
""")

# ---------------------------------------------------------------- 07_why_self_attention
nb = '07_why_self_attention'
A(nb, 'restricted_attention', None, """
def restricted_attention(q, k, v, r):
    n, w = q.shape[-2], r // 2
    win = lambda t: F.pad(t, (0, 0, w, w)).unfold(-2, 2 * w + 1, 1)
    s = torch.einsum('bhnd,bhndw->bhnw', q, win(k)) / q.shape[-1] ** 0.5
    j = torch.arange(n)[:, None] + torch.arange(-w, w + 1)
    s = s.masked_fill((j < 0) | (j >= n), float('-inf'))
    return torch.einsum('bhnw,bhndw->bhnd', s.softmax(-1), win(v))
""")
A(nb, 'restricted_attention', 'full n x n scores under local_mask (attention with the mask)', """
def restricted_attention(q, k, v, r):
    return attention(q, k, v, local_mask(q.shape[-2], r))[0]
""")
A(nb, 'restricted_attention', 'the zero-padded rows keep score 0: no -inf, so the ends attend to padding', """
def restricted_attention(q, k, v, r):
    w = r // 2
    kw = F.pad(k, (0, 0, w, w)).unfold(-2, 2 * w + 1, 1)
    vw = F.pad(v, (0, 0, w, w)).unfold(-2, 2 * w + 1, 1)
    s = torch.einsum('bhnd,bhndw->bhnw', q, kw) / math.sqrt(q.shape[-1])
    return torch.einsum('bhnw,bhndw->bhnd', s.softmax(-1), vw)
""")
A(nb, 'restricted_attention', 'scores not divided by sqrt(d_k)', """
def restricted_attention(q, k, v, r):
    n, w = q.shape[-2], r // 2
    win = lambda t: F.pad(t, (0, 0, w, w)).unfold(-2, 2 * w + 1, 1)
    s = torch.einsum('bhnd,bhndw->bhnw', q, win(k))
    j = torch.arange(n)[:, None] + torch.arange(-w, w + 1)
    s = s.masked_fill((j < 0) | (j >= n), float('-inf'))
    return torch.einsum('bhnw,bhndw->bhnd', s.softmax(-1), win(v))
""")
A(nb, 'restricted_attention', 'the keys padded with -inf (value=-inf) to give the pad rows a -inf score', """
def restricted_attention(q, k, v, r):
    w = r // 2
    kw = F.pad(k, (0, 0, w, w), value=float('-inf')).unfold(-2, 2 * w + 1, 1)
    vw = F.pad(v, (0, 0, w, w)).unfold(-2, 2 * w + 1, 1)
    s = torch.einsum('bhnd,bhndw->bhnw', q, kw) / math.sqrt(q.shape[-1])
    return torch.einsum('bhnw,bhndw->bhnd', s.softmax(-1), vw)
""")

# ---------------------------------------------------------------- 08_data
nb = '08_data'
BPE_RIGHT = """
def _merge(syms, pair):
    i = 0
    while i < len(syms) - 1:
        if (syms[i], syms[i + 1]) == pair: syms[i:i + 2] = [syms[i] + syms[i + 1]]
        else: i += 1
    return syms

def learn_bpe(word_counts, n_merges):
    vocab = {tuple(w) + ('</w>',): c for w, c in word_counts.items()}
    merges = []
    for _ in range(n_merges):
        pairs = Counter()
        for syms, c in vocab.items():
            for a, b in zip(syms, syms[1:]): pairs[a, b] += c
        if not pairs: break
        best = min(pairs, key=lambda p: (-pairs[p], p))
        merges.append(best)
        vocab = {tuple(_merge(list(syms), best)): c for syms, c in vocab.items()}
    return merges

def segment(word, merges):
    syms = list(word) + ['</w>']
    for pair in merges: syms = _merge(syms, pair)
    return syms
"""
A(nb, 'bpe', None, BPE_RIGHT)
A(nb, 'bpe', "no '</w>' end-of-word symbol, in learning and in segmenting",
  BPE_RIGHT.replace("tuple(w) + ('</w>',)", 'tuple(w)').replace("list(word) + ['</w>']", 'list(word)'))
A(nb, 'bpe', 'pairs counted once per distinct word, not weighted by its count',
  BPE_RIGHT.replace('pairs[a, b] += c', 'pairs[a, b] += 1'))
A(nb, 'bpe', "ties broken by Counter.most_common (first counted), not the smallest pair",
  BPE_RIGHT.replace('best = min(pairs, key=lambda p: (-pairs[p], p))', 'best = pairs.most_common(1)[0][0]'))
A(nb, 'bpe', "merge by str.replace on the space-joined symbols (joins across symbol boundaries)", """
def learn_bpe(word_counts, n_merges):
    vocab = {' '.join(w) + ' </w>': c for w, c in word_counts.items()}
    merges = []
    for _ in range(n_merges):
        pairs = Counter()
        for word, c in vocab.items():
            syms = word.split()
            for a, b in zip(syms, syms[1:]): pairs[a, b] += c
        if not pairs: break
        best = min(pairs, key=lambda p: (-pairs[p], p))
        merges.append(best)
        vocab = {word.replace(' '.join(best), ''.join(best)): c for word, c in vocab.items()}
    return merges

def segment(word, merges):
    s = ' '.join(word) + ' </w>'
    for a, b in merges: s = s.replace(a + ' ' + b, a + b)
    return s.split()
""")

# ---------------------------------------------------------------- 09_training
nb = '09_training'
A(nb, 'my_noam_lr', None, """
def my_noam_lr(step, d_model=512, warmup=4000):
    if step == 0: return 0.0
    return d_model ** -0.5 * min(step ** -0.5, step * warmup ** -1.5)
""")
A(nb, 'my_noam_lr', 'no step-0 case: 0 ** -0.5 raises', """
def my_noam_lr(step, d_model=512, warmup=4000):
    return d_model ** -0.5 * min(step ** -0.5, step * warmup ** -1.5)
""")
A(nb, 'my_noam_lr', 'warmup ** -0.5 in the warm-up term, not -1.5', """
def my_noam_lr(step, d_model=512, warmup=4000):
    if step == 0: return 0.0
    return d_model ** -0.5 * min(step ** -0.5, step * warmup ** -0.5)
""")
A(nb, 'my_noam_lr', "step + 1 (LambdaLR's i + 1 brought into the formula)", """
def my_noam_lr(step, d_model=512, warmup=4000):
    step = step + 1
    return d_model ** -0.5 * min(step ** -0.5, step * warmup ** -1.5)
""")
A(nb, 'my_label_smoothing', None, """
def my_label_smoothing(logits, target, eps, pad_id=PAD_ID):
    V = logits.shape[-1]
    q = torch.full_like(logits, eps / V)
    q.scatter_add_(-1, target[..., None], torch.full_like(logits[..., :1], 1 - eps))
    loss = -(q * logits.log_softmax(-1)).sum(-1)
    return loss[target != pad_id].mean()
""")
A(nb, 'my_label_smoothing', "the Annotated Transformer's eps/(V-2), the pad column and the reference left out", """
def my_label_smoothing(logits, target, eps, pad_id=PAD_ID):
    V = logits.shape[-1]
    q = torch.full_like(logits, eps / (V - 2))
    q.scatter_(-1, target[..., None], 1 - eps)
    q[..., pad_id] = 0
    loss = -(q * logits.log_softmax(-1)).sum(-1)
    return loss[target != pad_id].mean()
""")
A(nb, 'my_label_smoothing', 'the mean over every position, pads included', """
def my_label_smoothing(logits, target, eps, pad_id=PAD_ID):
    V = logits.shape[-1]
    q = torch.full_like(logits, eps / V)
    q.scatter_add_(-1, target[..., None], torch.full_like(logits[..., :1], 1 - eps))
    return -(q * logits.log_softmax(-1)).sum(-1).mean()
""")
A(nb, 'my_label_smoothing', 'scatter_ sets the reference to 1 - eps (its eps/V overwritten)', """
def my_label_smoothing(logits, target, eps, pad_id=PAD_ID):
    V = logits.size(-1)
    q = torch.full_like(logits, eps / V)
    q.scatter_(-1, target.unsqueeze(-1), 1 - eps)
    loss = -(q * F.log_softmax(logits, dim=-1)).sum(-1)
    return loss[target != pad_id].mean()
""")
A(nb, 'my_label_smoothing', 'the sum over the non-pad positions, not their mean', """
def my_label_smoothing(logits, target, eps, pad_id=PAD_ID):
    V = logits.shape[-1]
    q = torch.full_like(logits, eps / V)
    q.scatter_add_(-1, target[..., None], torch.full_like(logits[..., :1], 1 - eps))
    loss = -(q * logits.log_softmax(-1)).sum(-1)
    return loss[target != pad_id].sum()
""")

# ---------------------------------------------------------------- 10_decoding
nb = '10_decoding'
A(nb, 'my_greedy_step', None, """
def my_greedy_step(model, src, ys):
    logits = model(src, ys)[:, -1]
    return next_token_logits(logits).argmax(-1)
""")
A(nb, 'my_greedy_step', 'plain argmax: PAD and BOS not forbidden', """
def my_greedy_step(model, src, ys):
    return model(src, ys)[:, -1].argmax(-1)
""")
A(nb, 'my_greedy_step', "argmax(-1, keepdim=True) as greedy_decode writes it: (B, 1), not (B,)", """
def my_greedy_step(model, src, ys):
    logits = model(src, ys)[:, -1]
    return next_token_logits(logits).argmax(-1, keepdim=True)
""")
A(nb, 'my_greedy_step', 'returns the prefixes with the new token appended, (B, t + 1)', """
def my_greedy_step(model, src, ys):
    logits = model(src, ys)[:, -1]
    nxt = next_token_logits(logits).argmax(-1, keepdim=True)
    return torch.cat([ys, nxt], dim=1)
""")

# ---------------------------------------------------------------- 11_results
nb = '11_results'
BLEU_RIGHT = """
def my_bleu(hyps, refs):
    ngrams = lambda ws, n: Counter(tuple(ws[i:i + n]) for i in range(len(ws) - n + 1))
    match, total, c, r = [0] * 4, [0] * 4, 0, 0
    for h, ref in zip(hyps, refs):
        h, ref = h.split(), ref.split()
        c, r = c + len(h), r + len(ref)
        for n in range(1, 5):
            match[n - 1] += sum((ngrams(h, n) & ngrams(ref, n)).values())
            total[n - 1] += max(len(h) - n + 1, 0)
    bp = min(1.0, math.exp(1 - r / c))
    return 100 * bp * math.exp(sum(math.log(m / t) for m, t in zip(match, total)) / 4)
"""
A(nb, 'my_bleu', None, BLEU_RIGHT)
A(nb, 'my_bleu', "unclipped: every output n-gram found in the reference counts", """
def my_bleu(hyps, refs):
    ngrams = lambda ws, n: Counter(tuple(ws[i:i + n]) for i in range(len(ws) - n + 1))
    match, total, c, r = [0] * 4, [0] * 4, 0, 0
    for h, ref in zip(hyps, refs):
        h, ref = h.split(), ref.split()
        c, r = c + len(h), r + len(ref)
        for n in range(1, 5):
            rg = ngrams(ref, n)
            match[n - 1] += sum(cnt for g, cnt in ngrams(h, n).items() if g in rg)
            total[n - 1] += max(len(h) - n + 1, 0)
    bp = min(1.0, math.exp(1 - r / c))
    return 100 * bp * math.exp(sum(math.log(m / t) for m, t in zip(match, total)) / 4)
""")
A(nb, 'my_bleu', 'BP = exp(1 - r/c) without the min(1, ...): a bonus for long output',
  BLEU_RIGHT.replace('bp = min(1.0, math.exp(1 - r / c))', 'bp = math.exp(1 - r / c)'))
A(nb, 'my_bleu', 'BP with r and c swapped: exp(1 - c/r)',
  BLEU_RIGHT.replace('bp = min(1.0, math.exp(1 - r / c))', 'bp = min(1.0, math.exp(1 - c / r))'))
A(nb, 'my_bleu', 'the mean of the sentence BLEUs, not corpus sums', """
def my_bleu(hyps, refs):
    ngrams = lambda ws, n: Counter(tuple(ws[i:i + n]) for i in range(len(ws) - n + 1))
    scores = []
    for h, ref in zip(hyps, refs):
        h, ref = h.split(), ref.split()
        p = [sum((ngrams(h, n) & ngrams(ref, n)).values()) / max(len(h) - n + 1, 1) for n in range(1, 5)]
        if min(p) == 0: scores.append(0.0); continue
        bp = min(1.0, math.exp(1 - len(ref) / len(h)))
        scores.append(100 * bp * math.exp(sum(math.log(x) for x in p) / 4))
    return sum(scores) / len(scores)
""")

# ---------------------------------------------------------------- 12_variations
nb = '12_variations'
A(nb, 'beyond_noise', None, """
def beyond_noise(recs):
    base = next(r['bleu'] for r in recs if r['id'] == 'base')
    noise = max(abs(r['bleu'] - base) for r in recs if r['variant'] == 'base' and r['id'] != 'base')
    return [r['id'] for r in recs if r['variant'] != 'base' and abs(r['bleu'] - base) > noise]
""")
A(nb, 'beyond_noise', 'only gains count: bleu - base > noise, no abs', """
def beyond_noise(recs):
    base = next(r['bleu'] for r in recs if r['id'] == 'base')
    noise = max(abs(r['bleu'] - base) for r in recs if r['variant'] == 'base' and r['id'] != 'base')
    return [r['id'] for r in recs if r['variant'] != 'base' and r['bleu'] - base > noise]
""")
A(nb, 'beyond_noise', "the spread read as max - min of the base seeds' BLEU", """
def beyond_noise(recs):
    base = next(r['bleu'] for r in recs if r['id'] == 'base')
    seeds = [r['bleu'] for r in recs if r['variant'] == 'base']
    noise = max(seeds) - min(seeds)
    return [r['id'] for r in recs if r['variant'] != 'base' and abs(r['bleu'] - base) > noise]
""")
A(nb, 'beyond_noise', "the base's BLEU taken as the mean over its seeds", """
def beyond_noise(recs):
    seeds = [r['bleu'] for r in recs if r['variant'] == 'base']
    base = sum(seeds) / len(seeds)
    noise = max(abs(b - base) for b in seeds)
    return [r['id'] for r in recs if r['variant'] != 'base' and abs(r['bleu'] - base) > noise]
""")
A(nb, 'heads_looking', None, """
def heads_looking(w, rows, col):
    return [h + 1 for h in range(w.shape[0]) if all(w[h, r].argmax() == col for r in rows)]
""")
A(nb, 'heads_looking', 'heads numbered from 0', """
def heads_looking(w, rows, col):
    return [h for h in range(w.shape[0]) if all(w[h, r].argmax() == col for r in rows)]
""")
A(nb, 'heads_looking', 'any row of rows, not every row', """
def heads_looking(w, rows, col):
    return [h + 1 for h in range(w.shape[0]) if any(w[h, r].argmax() == col for r in rows)]
""")
A(nb, 'heads_looking', 'a weight above 0.5 on col instead of the largest weight', """
def heads_looking(w, rows, col):
    return [h + 1 for h in range(w.shape[0]) if all(w[h, r, col] > 0.5 for r in rows)]
""")
A(nb, 'rows_ab', None, """
def rows_ab(base):
    d, h = base['d_model'], base['h']
    d_k = base.get('d_k') or d // h
    out = {f'A-h{k}': dict(h=k, d_k=d // k, d_v=d // k) for k in (max(1, h // 8), h // 2, 2 * h, 4 * h)}
    out.update({f'B-dk{k}': dict(d_k=k, d_v=d_k) for k in (d_k // 4, d_k // 2)})
    return out
""")
A(nb, 'rows_ab', 'row (B) shrinks d_v with d_k', """
def rows_ab(base):
    d, h = base['d_model'], base['h']
    d_k = base.get('d_k') or d // h
    out = {f'A-h{k}': dict(h=k, d_k=d // k, d_v=d // k) for k in (max(1, h // 8), h // 2, 2 * h, 4 * h)}
    out.update({f'B-dk{k}': dict(d_k=k, d_v=k) for k in (d_k // 4, d_k // 2)})
    return out
""")
A(nb, 'rows_ab', 'row (A) changes h alone: each head keeps its size', """
def rows_ab(base):
    d, h = base['d_model'], base['h']
    d_k = base.get('d_k') or d // h
    out = {f'A-h{k}': dict(h=k) for k in (max(1, h // 8), h // 2, 2 * h, 4 * h)}
    out.update({f'B-dk{k}': dict(d_k=k, d_v=d_k) for k in (d_k // 4, d_k // 2)})
    return out
""")
A(nb, 'rows_ab', 'h // 8 without max(1, ...): d // 0 for fewer than 8 heads', """
def rows_ab(base):
    d, h = base['d_model'], base['h']
    d_k = base.get('d_k') or d // h
    out = {f'A-h{k}': dict(h=k, d_k=d // k, d_v=d // k) for k in (h // 8, h // 2, 2 * h, 4 * h)}
    out.update({f'B-dk{k}': dict(d_k=k, d_v=d_k) for k in (d_k // 4, d_k // 2)})
    return out
""")
A(nb, 'rows_ab', "true division d / k: float sizes (64.0)", """
def rows_ab(base):
    d, h = base['d_model'], base['h']
    d_k = base.get('d_k') or d / h
    out = {f'A-h{k}': dict(h=k, d_k=d / k, d_v=d / k) for k in (max(1, h // 8), h // 2, 2 * h, 4 * h)}
    out.update({f'B-dk{int(k)}': dict(d_k=k, d_v=d_k) for k in (d_k / 4, d_k / 2)})
    return out
""")

# ---------------------------------------------------------------- 13_parsing
nb = '13_parsing'
A(nb, 'my_linearize', None, """
def my_linearize(tree):
    if is_preterminal(tree): return tree[0]
    lab = coarse_label(tree.label())
    return ' '.join([f'({lab}', *(my_linearize(t) for t in tree), f'){lab}'])
""")
A(nb, 'my_linearize', 'labels kept whole: no coarse_label (NP-SBJ, NP=1)', """
def my_linearize(tree):
    if is_preterminal(tree): return tree[0]
    lab = tree.label()
    return ' '.join([f'({lab}', *(my_linearize(t) for t in tree), f'){lab}'])
""")
A(nb, 'my_linearize', 'POS nodes bracketed like phrases: (NNP John )NNP', """
def my_linearize(tree):
    if isinstance(tree, str): return tree
    lab = coarse_label(tree.label())
    return ' '.join([f'({lab}', *(my_linearize(t) for t in tree), f'){lab}'])
""")
A(nb, 'my_linearize', "a bare ')' closes each phrase", """
def my_linearize(tree):
    if is_preterminal(tree): return tree[0]
    lab = coarse_label(tree.label())
    return ' '.join([f'({lab}', *(my_linearize(t) for t in tree), ')'])
""")
A(nb, 'my_corpus_prf', None, """
def my_corpus_prf(counts):
    m, g, t = (sum(c[i] for c in counts) for i in range(3))
    p = 100 * m / t if t else 0.0
    r = 100 * m / g if g else 0.0
    return p, r, (2 * p * r / (p + r) if p + r else 0.0)
""")
A(nb, 'my_corpus_prf', "the sentences' P, R and F1 averaged, not the counts summed", """
def my_corpus_prf(counts):
    ps, rs, fs = [], [], []
    for m, g, t in counts:
        p = 100 * m / t if t else 0.0
        r = 100 * m / g if g else 0.0
        ps.append(p); rs.append(r); fs.append(2 * p * r / (p + r) if p + r else 0.0)
    n = len(counts)
    return sum(ps) / n, sum(rs) / n, sum(fs) / n
""")
A(nb, 'my_corpus_prf', 'precision over the reference brackets, recall over the parse ones (swapped)', """
def my_corpus_prf(counts):
    m, g, t = (sum(c[i] for c in counts) for i in range(3))
    p = 100 * m / g if g else 0.0
    r = 100 * m / t if t else 0.0
    return p, r, (2 * p * r / (p + r) if p + r else 0.0)
""")
A(nb, 'my_corpus_prf', 'failed parses (no parse bracket) skipped to avoid dividing by 0', """
def my_corpus_prf(counts):
    counts = [c for c in counts if c[2] > 0]
    m, g, t = (sum(c[i] for c in counts) for i in range(3))
    p = 100 * m / t if t else 0.0
    r = 100 * m / g if g else 0.0
    return p, r, (2 * p * r / (p + r) if p + r else 0.0)
""")

# ---------------------------------------------------------------- 14_since_2017
nb = '14_since_2017'
A(nb, 'rms_norm_of', None, """
def rms_norm_of(a, g, eps=1e-5):
    return a / torch.sqrt(a.pow(2).mean(-1, keepdim=True) + eps) * g
""")
A(nb, 'rms_norm_of', 'var() for the mean square: centred (and unbiased)', """
def rms_norm_of(a, g, eps=1e-5):
    return a / torch.sqrt(a.var(-1, keepdim=True) + eps) * g
""")
A(nb, 'rms_norm_of', 'eps added to the RMS, outside the root', """
def rms_norm_of(a, g, eps=1e-5):
    rms = a.pow(2).mean(-1, keepdim=True).sqrt()
    return g * a / (rms + eps)
""")
A(nb, 'rms_norm_of', 'the L2 norm (torch.norm), not the root mean square', """
def rms_norm_of(a, g, eps=1e-5):
    return a / torch.sqrt(a.norm(dim=-1, keepdim=True) ** 2 + eps) * g
""")
A(nb, 'rotate_query', None, """
def rotate_query(q, m):
    d = q.shape[-1]
    theta = 10000.0 ** (-torch.arange(0, d, 2, dtype=torch.float64) / d)
    a = m * theta
    x1, x2 = q[0::2].double(), q[1::2].double()
    out = torch.stack([x1 * a.cos() - x2 * a.sin(), x1 * a.sin() + x2 * a.cos()], -1).flatten()
    return out.to(q.dtype)
""")
A(nb, 'rotate_query', "pairs taken as halves (coordinate i with i + d/2), Hugging Face's rotate_half", """
def rotate_query(q, m):
    d = q.shape[-1]
    theta = 10000.0 ** (-torch.arange(0, d, 2, dtype=torch.float64) / d)
    a = (m * theta).repeat(2)
    x1, x2 = q[: d // 2], q[d // 2:]
    rot = torch.cat([-x2, x1])
    return (q.double() * a.cos() + rot.double() * a.sin()).to(q.dtype)
""")
A(nb, 'rotate_query', 'turned the wrong way: the sine terms with the other sign', """
def rotate_query(q, m):
    d = q.shape[-1]
    a = m * 10000.0 ** (-torch.arange(0, d, 2, dtype=torch.float64) / d)
    x1, x2 = q[0::2].double(), q[1::2].double()
    out = torch.stack([x1 * a.cos() + x2 * a.sin(), -x1 * a.sin() + x2 * a.cos()], -1).flatten()
    return out.to(q.dtype)
""")
A(nb, 'rotate_query', 'theta_i = 10000^(-i/d) (i for 2i)', """
def rotate_query(q, m):
    d = q.shape[-1]
    a = m * 10000.0 ** (-torch.arange(d // 2, dtype=torch.float64) / d)
    x1, x2 = q[0::2].double(), q[1::2].double()
    out = torch.stack([x1 * a.cos() - x2 * a.sin(), x1 * a.sin() + x2 * a.cos()], -1).flatten()
    return out.to(q.dtype)
""")
A(nb, 'group_heads', None, """
def group_heads(k, g):
    B, h, n, d = k.shape
    return k.view(B, g, h // g, n, d).mean(2).repeat_interleave(h // g, dim=1)
""")
A(nb, 'group_heads', 'groups by stride: view(B, h//g, g, ...).mean(1)', """
def group_heads(k, g):
    B, h, n, d = k.shape
    return k.view(B, h // g, g, n, d).mean(1).repeat_interleave(h // g, dim=1)
""")
A(nb, 'group_heads', 'the group heads tiled (repeat) instead of repeated in place', """
def group_heads(k, g):
    B, h, n, d = k.shape
    return k.view(B, g, h // g, n, d).mean(2).repeat(1, h // g, 1, 1)
""")
A(nb, 'group_heads', 'returns the g group heads, not repeated back to h', """
def group_heads(k, g):
    B, h, n, d = k.shape
    return k.reshape(B, g, h // g, n, d).mean(dim=2)
""")
