"""The fifteenth blind set's answers, written from the exercises' text alone: (notebook, exercise, mistake, code), the
mistake None for the right answer. `experiments/blind_answers.py 15` runs them. This set leans toward conventions
brought from other courses and libraries (tokenizers' left padding and -100 labels, nn.MultiheadAttention's tuple and
key_padding_mask, the Annotated Transformer's -1e9 and its label smoothing, fairseq's inverse_sqrt, Sennrich's
'</w>' glued to the last character, T5's symmetric buckets) and toward Python slips (a list repeated with *, a
transpose that only holds in 3-d, a view of a transposed tensor, a NumPy array, an argument read as the other one)."""
ANSWERS = []
def A(nb, ex, mistake, code): ANSWERS.append((nb, ex, mistake, code))

# 00_core: pad_batch
nb = '00_core'
A(nb, 'pad_batch', None, """
def pad_batch(seqs, pad_id=PAD_ID):
    n = max(len(s) for s in seqs)
    return torch.tensor([list(s) + [pad_id] * (n - len(s)) for s in seqs], dtype=torch.long)""")
A(nb, 'pad_batch', 'pads on the left (padding_side="left")', """
def pad_batch(seqs, pad_id=PAD_ID):
    n = max(len(s) for s in seqs)
    return torch.tensor([[pad_id] * (n - len(s)) + s for s in seqs])""")
A(nb, 'pad_batch', 'pads with -100, the ignore index of the labels', """
def pad_batch(seqs, pad_id=PAD_ID):
    n = max(len(s) for s in seqs)
    return torch.tensor([s + [-100] * (n - len(s)) for s in seqs])""")
A(nb, 'pad_batch', 'pads with PAD_ID whatever pad_id says', """
def pad_batch(seqs, pad_id=PAD_ID):
    n = max(len(s) for s in seqs)
    return torch.tensor([s + [PAD_ID] * (n - len(s)) for s in seqs])""")
A(nb, 'pad_batch', 'a float tensor from torch.full with the default dtype', """
def pad_batch(seqs, pad_id=PAD_ID):
    out = torch.full((len(seqs), max(len(s) for s in seqs)), float(pad_id))
    for i, s in enumerate(seqs): out[i, :len(s)] = torch.tensor(s, dtype=torch.float)
    return out""")
A(nb, 'pad_batch', 'rows stacked on dim 1: (n, B)', """
def pad_batch(seqs, pad_id=PAD_ID):
    n = max(len(s) for s in seqs)
    return torch.stack([torch.tensor(s + [pad_id] * (n - len(s))) for s in seqs], dim=1)""")
A(nb, 'pad_batch', 'returns a dict of input_ids and attention_mask, as a tokenizer does', """
def pad_batch(seqs, pad_id=PAD_ID):
    n = max(len(s) for s in seqs)
    ids = torch.tensor([s + [pad_id] * (n - len(s)) for s in seqs])
    return dict(input_ids=ids, attention_mask=(ids != pad_id).long())""")
A(nb, 'pad_batch', 'pad_sequence(batch_first=True) without padding_value: pads with 0', """
def pad_batch(seqs, pad_id=PAD_ID):
    return torch.nn.utils.rnn.pad_sequence([torch.tensor(s) for s in seqs], batch_first=True)""")
A(nb, 'pad_batch', 'the length of the first sentence taken as the longest', """
def pad_batch(seqs, pad_id=PAD_ID):
    n = len(seqs[0])
    return torch.tensor([s[:n] + [pad_id] * (n - len(s)) for s in seqs])""")
A(nb, 'pad_batch', 'a trailing feature axis: (B, n, 1)', """
def pad_batch(seqs, pad_id=PAD_ID):
    n = max(len(s) for s in seqs)
    return torch.tensor([s + [pad_id] * (n - len(s)) for s in seqs])[..., None]""")
A(nb, 'pad_batch', 'pads to a fixed length of 16 (max_length padding)', """
def pad_batch(seqs, pad_id=PAD_ID):
    n = 16
    return torch.tensor([s + [pad_id] * (n - len(s)) for s in seqs])""")
A(nb, 'pad_batch', 'returns a list of padded row tensors, not one tensor', """
def pad_batch(seqs, pad_id=PAD_ID):
    n = max(len(s) for s in seqs)
    return [torch.tensor(s + [pad_id] * (n - len(s))) for s in seqs]""")

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
A(nb, 'attention', 'mask read as True = hide (key_padding_mask)', """
def my_attention(q, k, v, mask=None):
    s = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if mask is not None: s = s.masked_fill(mask, float('-inf'))
    w = s.softmax(dim=-1)
    if mask is not None: w = w.masked_fill(mask, 0.0)
    return w @ v, w""")
A(nb, 'attention', 'scaled by sqrt of the number of keys', """
def my_attention(q, k, v, mask=None):
    s = q @ k.transpose(-2, -1) / math.sqrt(k.shape[-2])
    if mask is not None: s = s.masked_fill(~mask, float('-inf'))
    w = s.softmax(dim=-1)
    if mask is not None: w = w.masked_fill(~mask, 0.0)
    return w @ v, w""")
A(nb, 'attention', 'returns the weights first: (weights, output)', """
def my_attention(q, k, v, mask=None):
    s = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if mask is not None: s = s.masked_fill(~mask, float('-inf'))
    w = s.softmax(dim=-1)
    if mask is not None: w = w.masked_fill(~mask, 0.0)
    return w, w @ v""")
A(nb, 'attention', 'masked with -1e9 and no zero fill: a fully masked row is uniform', """
def my_attention(q, k, v, mask=None):
    s = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if mask is not None: s = s.masked_fill(mask == 0, -1e9)
    w = s.softmax(dim=-1)
    return w @ v, w""")
A(nb, 'attention', 'the bool mask added to the scores as a bias', """
def my_attention(q, k, v, mask=None):
    s = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if mask is not None: s = s + mask
    w = s.softmax(dim=-1)
    return w @ v, w""")
A(nb, 'attention', 'keys transposed with transpose(1, 2), right only for 3-d inputs', """
def my_attention(q, k, v, mask=None):
    s = q @ k.transpose(1, 2) / math.sqrt(q.shape[-1])
    if mask is not None: s = s.masked_fill(~mask, float('-inf'))
    w = s.softmax(dim=-1)
    if mask is not None: w = w.masked_fill(~mask, 0.0)
    return w @ v, w""")
A(nb, 'attention', 'the scale applied after the softmax', """
def my_attention(q, k, v, mask=None):
    s = q @ k.transpose(-2, -1)
    if mask is not None: s = s.masked_fill(~mask, float('-inf'))
    w = s.softmax(dim=-1) / math.sqrt(q.shape[-1])
    if mask is not None: w = w.masked_fill(~mask, 0.0)
    return w @ v, w""")
A(nb, 'attention', 'output from scaled_dot_product_attention, the weights left unmasked', """
def my_attention(q, k, v, mask=None):
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
    w = (q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])).softmax(-1)
    return out, w""")
A(nb, 'restricted_mask', 'window of r on each side (|i - j| <= r)', """
def restricted_mask(n, r):
    i = torch.arange(n)
    return ((i[:, None] - i[None, :]).abs() <= r)[None, None]""")
A(nb, 'restricted_mask', 'strict inequality |i - j| < r // 2', """
def restricted_mask(n, r):
    i = torch.arange(n)
    return ((i[:, None] - i[None, :]).abs() < r // 2)[None, None]""")
A(nb, 'restricted_mask', 'one-sided window: the r // 2 keys before the query only (sliding-window LM)', """
def restricted_mask(n, r):
    i = torch.arange(n)
    d = i[:, None] - i[None, :]
    return ((d >= 0) & (d <= r // 2))[None, None]""")
A(nb, 'restricted_mask', 'a 0/1 float band from triu/tril', """
def restricted_mask(n, r):
    w = r // 2
    return torch.ones(n, n).triu(-w).tril(w)[None, None]""")
A(nb, 'restricted_mask', 'an (n, n) mask without the two leading axes', """
def restricted_mask(n, r):
    i = torch.arange(n)
    return (i[:, None] - i[None, :]).abs() <= r // 2""")

# 02_multihead: split_heads/merge_heads, LoopMHA
nb = '02_multihead'
A(nb, 'heads', None, """
def split_heads(x, h):
    B, n, hd = x.shape
    return x.view(B, n, h, hd // h).transpose(1, 2)
def merge_heads(x):
    B, h, n, d = x.shape
    return x.transpose(1, 2).reshape(B, n, h * d)""")
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
        heads = [attention(q(x), k(mem), v(mem), m)[0] for q, k, v in zip(self.w_q, self.w_k, self.w_v)]
        return self.w_o(torch.cat(heads, -1))
    @torch.no_grad()
    def load_from(self, mha):
        for i in range(self.h):
            rows = slice(i * self.d_k, (i + 1) * self.d_k)
            for lin, W in zip((self.w_q[i], self.w_k[i], self.w_v[i]), (mha.w_q, mha.w_k, mha.w_v)):
                lin.weight.copy_(W.weight[rows]); lin.bias.copy_(W.bias[rows])
        self.w_o.load_state_dict(mha.w_o.state_dict())""")
A(nb, 'heads', 'split as (d, h): head i gets features i, i + h, ... (strided)', """
def split_heads(x, h):
    B, n, hd = x.shape
    return x.view(B, n, hd // h, h).permute(0, 3, 1, 2)
def merge_heads(x):
    B, h, n, d = x.shape
    return x.permute(0, 2, 3, 1).reshape(B, n, h * d)""")
A(nb, 'heads', 'merge with transpose then view: not contiguous', """
def split_heads(x, h):
    B, n, hd = x.shape
    return x.view(B, n, h, hd // h).transpose(1, 2)
def merge_heads(x):
    B, h, n, d = x.shape
    return x.transpose(1, 2).view(B, n, h * d)""")
A(nb, 'heads', 'split without the transpose: (B, n, h, d)', """
def split_heads(x, h):
    B, n, hd = x.shape
    return x.view(B, n, h, hd // h)
def merge_heads(x):
    B, n, h, d = x.shape
    return x.reshape(B, n, h * d)""")
A(nb, 'heads', 'merge permuted to (B, n, d, h) before flattening', """
def split_heads(x, h):
    B, n, hd = x.shape
    return x.view(B, n, h, hd // h).transpose(1, 2)
def merge_heads(x):
    B, h, n, d = x.shape
    return x.permute(0, 2, 3, 1).reshape(B, n, h * d)""")
A(nb, 'heads', 'chunks the positions instead of the features', """
def split_heads(x, h):
    return torch.stack(x.chunk(h, dim=1), dim=1)
def merge_heads(x):
    return torch.cat(x.unbind(1), dim=1)""")
A(nb, 'heads', 'split as view(B, h, n, d), no transpose either way', """
def split_heads(x, h):
    B, n, hd = x.shape
    return x.reshape(B, h, n, hd // h)
def merge_heads(x):
    B, h, n, d = x.shape
    return x.reshape(B, n, h * d)""")
A(nb, 'LoopMHA', 'mask passed with its head axis: (B, 1, n, n) broadcasts against (B, n, n)', """
class LoopMHA(nn.Module):
    def __init__(self, d_model, h):
        super().__init__()
        self.h, self.d_k = h, d_model // h
        heads = lambda: nn.ModuleList(nn.Linear(d_model, self.d_k) for _ in range(h))
        self.w_q, self.w_k, self.w_v = heads(), heads(), heads()
        self.w_o = nn.Linear(h * self.d_k, d_model)
    def forward(self, x, mem=None, mask=None):
        mem = x if mem is None else mem
        heads = [attention(q(x), k(mem), v(mem), mask)[0] for q, k, v in zip(self.w_q, self.w_k, self.w_v)]
        return self.w_o(torch.cat(heads, -1))
    @torch.no_grad()
    def load_from(self, mha):
        for i in range(self.h):
            rows = slice(i * self.d_k, (i + 1) * self.d_k)
            for lin, W in zip((self.w_q[i], self.w_k[i], self.w_v[i]), (mha.w_q, mha.w_k, mha.w_v)):
                lin.weight.copy_(W.weight[rows]); lin.bias.copy_(W.bias[rows])
        self.w_o.load_state_dict(mha.w_o.state_dict())""")
A(nb, 'LoopMHA', 'load_from takes columns, transposed, as if x @ W', """
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
            cols = slice(i * self.d_k, (i + 1) * self.d_k)
            for lin, W in zip((self.w_q[i], self.w_k[i], self.w_v[i]), (mha.w_q, mha.w_k, mha.w_v)):
                lin.weight.copy_(W.weight[:, cols].T); lin.bias.copy_(W.bias[cols])
        self.w_o.load_state_dict(mha.w_o.state_dict())""")
A(nb, 'LoopMHA', 'load_from copies the weights and not the biases', """
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
                lin.weight.copy_(W.weight[rows])
        self.w_o.weight.copy_(mha.w_o.weight)""")
A(nb, 'LoopMHA', 'keys and values always from x: mem ignored', """
class LoopMHA(nn.Module):
    def __init__(self, d_model, h):
        super().__init__()
        self.h, self.d_k = h, d_model // h
        heads = lambda: nn.ModuleList(nn.Linear(d_model, self.d_k) for _ in range(h))
        self.w_q, self.w_k, self.w_v = heads(), heads(), heads()
        self.w_o = nn.Linear(h * self.d_k, d_model)
    def forward(self, x, mem=None, mask=None):
        m = None if mask is None else mask[:, 0]
        heads = [attention(q(x), k(x), v(x), m)[0] for q, k, v in zip(self.w_q, self.w_k, self.w_v)]
        return self.w_o(torch.cat(heads, -1))
    @torch.no_grad()
    def load_from(self, mha):
        for i in range(self.h):
            rows = slice(i * self.d_k, (i + 1) * self.d_k)
            for lin, W in zip((self.w_q[i], self.w_k[i], self.w_v[i]), (mha.w_q, mha.w_k, mha.w_v)):
                lin.weight.copy_(W.weight[rows]); lin.bias.copy_(W.bias[rows])
        self.w_o.load_state_dict(mha.w_o.state_dict())""")
A(nb, 'LoopMHA', 'the heads concatenated along the positions', """
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
        return self.w_o(torch.cat(heads, 1))
    @torch.no_grad()
    def load_from(self, mha):
        for i in range(self.h):
            rows = slice(i * self.d_k, (i + 1) * self.d_k)
            for lin, W in zip((self.w_q[i], self.w_k[i], self.w_v[i]), (mha.w_q, mha.w_k, mha.w_v)):
                lin.weight.copy_(W.weight[rows]); lin.bias.copy_(W.bias[rows])
        self.w_o.load_state_dict(mha.w_o.state_dict())""")
A(nb, 'LoopMHA', 'one Linear repeated h times in the list ([lin] * h): the heads share it', """
class LoopMHA(nn.Module):
    def __init__(self, d_model, h):
        super().__init__()
        self.h, self.d_k = h, d_model // h
        self.w_q = nn.ModuleList([nn.Linear(d_model, self.d_k)] * h)
        self.w_k = nn.ModuleList([nn.Linear(d_model, self.d_k)] * h)
        self.w_v = nn.ModuleList([nn.Linear(d_model, self.d_k)] * h)
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
        self.w_o.load_state_dict(mha.w_o.state_dict())""")
A(nb, 'LoopMHA', 'forward returns (output, weights), as nn.MultiheadAttention does', """
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
        outs = [attention(q(x), k(mem), v(mem), m) for q, k, v in zip(self.w_q, self.w_k, self.w_v)]
        return self.w_o(torch.cat([o for o, _ in outs], -1)), torch.stack([w for _, w in outs], 1)
    @torch.no_grad()
    def load_from(self, mha):
        for i in range(self.h):
            rows = slice(i * self.d_k, (i + 1) * self.d_k)
            for lin, W in zip((self.w_q[i], self.w_k[i], self.w_v[i]), (mha.w_q, mha.w_k, mha.w_v)):
                lin.weight.copy_(W.weight[rows]); lin.bias.copy_(W.bias[rows])
        self.w_o.load_state_dict(mha.w_o.state_dict())""")

# 03_ffn: conv_to_ffn
nb = '03_ffn'
A(nb, 'conv_to_ffn', None, """
def conv_to_ffn(conv):
    d_ff, d_model, _ = conv[0].weight.shape
    ffn = FeedForward(d_model, d_ff)
    with torch.no_grad():
        for lin, c in zip((ffn.w_1, ffn.w_2), (conv[0], conv[2])):
            lin.weight.copy_(c.weight[:, :, 0]); lin.bias.copy_(c.bias)
    return ffn""")
A(nb, 'conv_to_ffn', 'the kernel transposed, as if nn.Linear stored (in, out)', """
def conv_to_ffn(conv):
    d_ff, d_model, _ = conv[0].weight.shape
    ffn = FeedForward(d_model, d_ff)
    ffn.w_1.weight = nn.Parameter(conv[0].weight[:, :, 0].T.clone()); ffn.w_1.bias = nn.Parameter(conv[0].bias.clone())
    ffn.w_2.weight = nn.Parameter(conv[2].weight[:, :, 0].T.clone()); ffn.w_2.bias = nn.Parameter(conv[2].bias.clone())
    return ffn""")
A(nb, 'conv_to_ffn', 'the weights copied, the biases left at zero', """
def conv_to_ffn(conv):
    d_ff, d_model, _ = conv[0].weight.shape
    ffn = FeedForward(d_model, d_ff)
    with torch.no_grad():
        ffn.w_1.weight.copy_(conv[0].weight[:, :, 0]); ffn.w_2.weight.copy_(conv[2].weight[:, :, 0])
    return ffn""")
A(nb, 'conv_to_ffn', 'd_model and d_ff read the other way from the weight shape', """
def conv_to_ffn(conv):
    d_model, d_ff, _ = conv[0].weight.shape
    ffn = FeedForward(d_model, d_ff)
    with torch.no_grad():
        for lin, c in zip((ffn.w_1, ffn.w_2), (conv[0], conv[2])):
            lin.weight.copy_(c.weight[:, :, 0]); lin.bias.copy_(c.bias)
    return ffn""")
A(nb, 'conv_to_ffn', 'conv[1] (the ReLU) taken as the second convolution', """
def conv_to_ffn(conv):
    d_ff, d_model, _ = conv[0].weight.shape
    ffn = FeedForward(d_model, d_ff)
    with torch.no_grad():
        for lin, c in zip((ffn.w_1, ffn.w_2), (conv[0], conv[1])):
            lin.weight.copy_(c.weight[:, :, 0]); lin.bias.copy_(c.bias)
    return ffn""")
A(nb, 'conv_to_ffn', 'squeeze() with no axis: a size-1 width is squeezed too', """
def conv_to_ffn(conv):
    d_ff, d_model, _ = conv[0].weight.shape
    ffn = FeedForward(d_model, d_ff)
    with torch.no_grad():
        for lin, c in zip((ffn.w_1, ffn.w_2), (conv[0], conv[2])):
            lin.weight.copy_(c.weight.squeeze()); lin.bias.copy_(c.bias)
    return ffn""")
A(nb, 'conv_to_ffn', 'an nn.Sequential of Linear, ReLU, Linear instead of a FeedForward', """
def conv_to_ffn(conv):
    d_ff, d_model, _ = conv[0].weight.shape
    seq = nn.Sequential(nn.Linear(d_model, d_ff), nn.ReLU(), nn.Linear(d_ff, d_model))
    with torch.no_grad():
        for lin, c in zip((seq[0], seq[2]), (conv[0], conv[2])):
            lin.weight.copy_(c.weight[:, :, 0]); lin.bias.copy_(c.bias)
    return seq""")
A(nb, 'conv_to_ffn', 'a FeedForward of the right sizes, nothing copied', """
def conv_to_ffn(conv):
    d_ff, d_model, _ = conv[0].weight.shape
    return FeedForward(d_model, d_ff)""")
A(nb, 'conv_to_ffn', 'the FeedForward turned to float64', """
def conv_to_ffn(conv):
    d_ff, d_model, _ = conv[0].weight.shape
    ffn = FeedForward(d_model, d_ff)
    with torch.no_grad():
        for lin, c in zip((ffn.w_1, ffn.w_2), (conv[0], conv[2])):
            lin.weight.copy_(c.weight[:, :, 0]); lin.bias.copy_(c.bias)
    return ffn.double()""")
A(nb, 'conv_to_ffn', 'the biases swapped between the two layers', """
def conv_to_ffn(conv):
    d_ff, d_model, _ = conv[0].weight.shape
    ffn = FeedForward(d_model, d_ff)
    ffn.w_1.weight = nn.Parameter(conv[0].weight[:, :, 0].clone()); ffn.w_1.bias = nn.Parameter(conv[2].bias.clone())
    ffn.w_2.weight = nn.Parameter(conv[2].weight[:, :, 0].clone()); ffn.w_2.bias = nn.Parameter(conv[0].bias.clone())
    return ffn""")
A(nb, 'conv_to_ffn', 'the first convolution copied into both layers', """
def conv_to_ffn(conv):
    d_ff, d_model, _ = conv[0].weight.shape
    ffn = FeedForward(d_model, d_ff)
    w = conv[0].weight[:, :, 0]
    ffn.w_1.weight = nn.Parameter(w.clone()); ffn.w_1.bias = nn.Parameter(conv[0].bias.clone())
    ffn.w_2.weight = nn.Parameter(w.T.clone()); ffn.w_2.bias = nn.Parameter(conv[2].bias.clone())
    return ffn""")

# 04_embeddings: MyEmbeddings
nb = '04_embeddings'
A(nb, 'MyEmbeddings', None, """
class MyEmbeddings(nn.Module):
    def __init__(self, vocab, d_model, pad_id=PAD_ID):
        super().__init__()
        self.E = nn.Parameter(torch.randn(vocab, d_model) * d_model ** -0.5)
        with torch.no_grad(): self.E[pad_id] = 0.0
        self.pad_id, self.scale = pad_id, math.sqrt(d_model)
    def forward(self, tokens):
        x, pad = self.E[tokens], (tokens == self.pad_id)[..., None]
        return torch.where(pad, x.detach(), x) * self.scale""")
A(nb, 'MyEmbeddings', 'wraps an nn.Embedding instead of holding E', """
class MyEmbeddings(nn.Module):
    def __init__(self, vocab, d_model, pad_id=PAD_ID):
        super().__init__()
        self.lut = nn.Embedding(vocab, d_model, padding_idx=pad_id)
        nn.init.normal_(self.lut.weight, std=d_model ** -0.5)
        with torch.no_grad(): self.lut.weight[pad_id] = 0.0
        self.scale = math.sqrt(d_model)
    def forward(self, tokens): return self.lut(tokens) * self.scale""")
A(nb, 'MyEmbeddings', 'scaled by d_model, not its root', """
class MyEmbeddings(nn.Module):
    def __init__(self, vocab, d_model, pad_id=PAD_ID):
        super().__init__()
        self.E = nn.Parameter(torch.randn(vocab, d_model) * d_model ** -0.5)
        with torch.no_grad(): self.E[pad_id] = 0.0
        self.pad_id, self.scale = pad_id, d_model
    def forward(self, tokens):
        x, pad = self.E[tokens], (tokens == self.pad_id)[..., None]
        return torch.where(pad, x.detach(), x) * self.scale""")
A(nb, 'MyEmbeddings', 'initialised with std 1/d_model (the variance read as the std)', """
class MyEmbeddings(nn.Module):
    def __init__(self, vocab, d_model, pad_id=PAD_ID):
        super().__init__()
        self.E = nn.Parameter(torch.randn(vocab, d_model) / d_model)
        with torch.no_grad(): self.E[pad_id] = 0.0
        self.pad_id, self.scale = pad_id, math.sqrt(d_model)
    def forward(self, tokens):
        x, pad = self.E[tokens], (tokens == self.pad_id)[..., None]
        return torch.where(pad, x.detach(), x) * self.scale""")
A(nb, 'MyEmbeddings', 'the output zeroed at the pads instead of the gradient', """
class MyEmbeddings(nn.Module):
    def __init__(self, vocab, d_model, pad_id=PAD_ID):
        super().__init__()
        self.E = nn.Parameter(torch.randn(vocab, d_model) * d_model ** -0.5)
        with torch.no_grad(): self.E[pad_id] = 0.0
        self.pad_id, self.scale = pad_id, math.sqrt(d_model)
    def forward(self, tokens):
        return (self.E[tokens] * self.scale).masked_fill((tokens == self.pad_id)[..., None], 0.0)""")
A(nb, 'MyEmbeddings', 'the scale folded into E at initialisation', """
class MyEmbeddings(nn.Module):
    def __init__(self, vocab, d_model, pad_id=PAD_ID):
        super().__init__()
        self.E = nn.Parameter(torch.randn(vocab, d_model))
        with torch.no_grad(): self.E[pad_id] = 0.0
        self.pad_id = pad_id
    def forward(self, tokens):
        x, pad = self.E[tokens], (tokens == self.pad_id)[..., None]
        return torch.where(pad, x.detach(), x)""")
A(nb, 'MyEmbeddings', 'E a plain tensor attribute, not an nn.Parameter', """
class MyEmbeddings(nn.Module):
    def __init__(self, vocab, d_model, pad_id=PAD_ID):
        super().__init__()
        self.E = torch.randn(vocab, d_model) * d_model ** -0.5
        self.E[pad_id] = 0.0
        self.pad_id, self.scale = pad_id, math.sqrt(d_model)
    def forward(self, tokens):
        x, pad = self.E[tokens], (tokens == self.pad_id)[..., None]
        return torch.where(pad, x.detach(), x) * self.scale""")
A(nb, 'MyEmbeddings', "the parameter named weight, nn.Embedding's name", """
class MyEmbeddings(nn.Module):
    def __init__(self, vocab, d_model, pad_id=PAD_ID):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(vocab, d_model) * d_model ** -0.5)
        with torch.no_grad(): self.weight[pad_id] = 0.0
        self.pad_id, self.scale = pad_id, math.sqrt(d_model)
    def forward(self, tokens):
        x, pad = self.weight[tokens], (tokens == self.pad_id)[..., None]
        return torch.where(pad, x.detach(), x) * self.scale""")
A(nb, 'MyEmbeddings', 'one-hot matmul: the pad row gets a gradient', """
class MyEmbeddings(nn.Module):
    def __init__(self, vocab, d_model, pad_id=PAD_ID):
        super().__init__()
        self.E = nn.Parameter(torch.randn(vocab, d_model) * d_model ** -0.5)
        with torch.no_grad(): self.E[pad_id] = 0.0
        self.vocab, self.scale = vocab, math.sqrt(d_model)
    def forward(self, tokens):
        return F.one_hot(tokens, self.vocab).to(self.E.dtype) @ self.E * self.scale""")
A(nb, 'MyEmbeddings', 'the padding row left random', """
class MyEmbeddings(nn.Module):
    def __init__(self, vocab, d_model, pad_id=PAD_ID):
        super().__init__()
        self.E = nn.Parameter(torch.randn(vocab, d_model) * d_model ** -0.5)
        self.pad_id, self.scale = pad_id, math.sqrt(d_model)
    def forward(self, tokens):
        x, pad = self.E[tokens], (tokens == self.pad_id)[..., None]
        return torch.where(pad, x.detach(), x) * self.scale""")
A(nb, 'MyEmbeddings', 'row 0 zeroed and masked whatever pad_id says', """
class MyEmbeddings(nn.Module):
    def __init__(self, vocab, d_model, pad_id=PAD_ID):
        super().__init__()
        self.E = nn.Parameter(torch.randn(vocab, d_model) * d_model ** -0.5)
        with torch.no_grad(): self.E[0] = 0.0
        self.scale = math.sqrt(d_model)
    def forward(self, tokens):
        x, pad = self.E[tokens], (tokens == 0)[..., None]
        return torch.where(pad, x.detach(), x) * self.scale""")
A(nb, 'MyEmbeddings', 'uniform initialisation in [-1/sqrt(d), 1/sqrt(d)]', """
class MyEmbeddings(nn.Module):
    def __init__(self, vocab, d_model, pad_id=PAD_ID):
        super().__init__()
        self.E = nn.Parameter(torch.empty(vocab, d_model).uniform_(-d_model ** -0.5, d_model ** -0.5))
        with torch.no_grad(): self.E[pad_id] = 0.0
        self.pad_id, self.scale = pad_id, math.sqrt(d_model)
    def forward(self, tokens):
        x, pad = self.E[tokens], (tokens == self.pad_id)[..., None]
        return torch.where(pad, x.detach(), x) * self.scale""")

# 05_positional_encoding: my_encoding, RelativeBias
nb = '05_positional_encoding'
A(nb, 'my_encoding', None, """
def my_encoding(n, d_model):
    pos = torch.arange(n, dtype=torch.float64)[:, None]
    two_i = torch.arange(0, d_model, 2, dtype=torch.float64)
    angle = pos / 10000 ** (two_i / d_model)
    pe = torch.zeros(n, d_model, dtype=torch.float64)
    pe[:, 0::2], pe[:, 1::2] = angle.sin(), angle.cos()
    return pe.float()""")
A(nb, 'RelativeBias', None, """
class RelativeBias(nn.Module):
    def __init__(self, h, K):
        super().__init__()
        self.K = K
        self.table = nn.Parameter(torch.randn(2 * K + 1, h) * 0.02)
    def forward(self, n_q, n_k):
        offset = torch.arange(n_k)[None, :] - torch.arange(n_q)[:, None]
        return self.table[offset.clamp(-self.K, self.K) + self.K].permute(2, 0, 1)""")
A(nb, 'my_encoding', 'positions 1 .. n', """
def my_encoding(n, d_model):
    pos = torch.arange(1, n + 1, dtype=torch.float64)[:, None]
    two_i = torch.arange(0, d_model, 2, dtype=torch.float64)
    angle = pos / 10000 ** (two_i / d_model)
    pe = torch.zeros(n, d_model, dtype=torch.float64)
    pe[:, 0::2], pe[:, 1::2] = angle.sin(), angle.cos()
    return pe.float()""")
A(nb, 'my_encoding', '2i taken from arange(0, d, 2) and doubled again', """
def my_encoding(n, d_model):
    pos = torch.arange(n, dtype=torch.float64)[:, None]
    i = torch.arange(0, d_model, 2, dtype=torch.float64)
    angle = pos / 10000 ** (2 * i / d_model)
    pe = torch.zeros(n, d_model, dtype=torch.float64)
    pe[:, 0::2], pe[:, 1::2] = angle.sin(), angle.cos()
    return pe.float()""")
A(nb, 'my_encoding', 'a leading batch axis: (1, n, d_model)', """
def my_encoding(n, d_model):
    pos = torch.arange(n, dtype=torch.float64)[:, None]
    two_i = torch.arange(0, d_model, 2, dtype=torch.float64)
    angle = pos / 10000 ** (two_i / d_model)
    pe = torch.zeros(n, d_model, dtype=torch.float64)
    pe[:, 0::2], pe[:, 1::2] = angle.sin(), angle.cos()
    return pe.float().unsqueeze(0)""")
A(nb, 'my_encoding', 'returned in float64', """
def my_encoding(n, d_model):
    pos = torch.arange(n, dtype=torch.float64)[:, None]
    two_i = torch.arange(0, d_model, 2, dtype=torch.float64)
    angle = pos / 10000 ** (two_i / d_model)
    pe = torch.zeros(n, d_model, dtype=torch.float64)
    pe[:, 0::2], pe[:, 1::2] = angle.sin(), angle.cos()
    return pe""")
A(nb, 'my_encoding', 'the position multiplied by 10000^(2i/d) instead of divided', """
def my_encoding(n, d_model):
    pos = torch.arange(n, dtype=torch.float64)[:, None]
    two_i = torch.arange(0, d_model, 2, dtype=torch.float64)
    angle = pos * 10000 ** (two_i / d_model)
    pe = torch.zeros(n, d_model, dtype=torch.float64)
    pe[:, 0::2], pe[:, 1::2] = angle.sin(), angle.cos()
    return pe.float()""")
A(nb, 'my_encoding', 'integer division 2i // d: every exponent 0', """
def my_encoding(n, d_model):
    pos = torch.arange(n)[:, None]
    two_i = torch.arange(0, d_model, 2)
    angle = pos / 10000 ** (two_i // d_model)
    pe = torch.zeros(n, d_model)
    pe[:, 0::2], pe[:, 1::2] = angle.sin(), angle.cos()
    return pe""")
A(nb, 'my_encoding', 'a NumPy array', """
def my_encoding(n, d_model):
    import numpy as np
    pos = np.arange(n)[:, None]
    two_i = np.arange(0, d_model, 2)
    angle = pos / 10000 ** (two_i / d_model)
    pe = np.zeros((n, d_model), dtype=np.float32)
    pe[:, 0::2], pe[:, 1::2] = np.sin(angle), np.cos(angle)
    return pe""")
A(nb, 'my_encoding', 'each dimension its own exponent j/d (the odd ones one step further)', """
def my_encoding(n, d_model):
    pos = torch.arange(n, dtype=torch.float64)[:, None]
    j = torch.arange(d_model, dtype=torch.float64)
    angle = pos / 10000 ** (j / d_model)
    pe = torch.where(j.long() % 2 == 0, angle.sin(), angle.cos())
    return pe.float()""")
A(nb, 'my_encoding', 'transposed: (d_model, n)', """
def my_encoding(n, d_model):
    pos = torch.arange(n, dtype=torch.float64)[None, :]
    two_i = torch.arange(0, d_model, 2, dtype=torch.float64)[:, None]
    angle = pos / 10000 ** (two_i / d_model)
    pe = torch.zeros(d_model, n, dtype=torch.float64)
    pe[0::2], pe[1::2] = angle.sin(), angle.cos()
    return pe.float()""")
A(nb, 'RelativeBias', 'the offset taken as i - j', """
class RelativeBias(nn.Module):
    def __init__(self, h, K):
        super().__init__()
        self.K = K
        self.table = nn.Parameter(torch.randn(2 * K + 1, h) * 0.02)
    def forward(self, n_q, n_k):
        offset = torch.arange(n_q)[:, None] - torch.arange(n_k)[None, :]
        return self.table[offset.clamp(-self.K, self.K) + self.K].permute(2, 0, 1)""")
A(nb, 'RelativeBias', 'offsets not clipped: negative indices wrap round the table', """
class RelativeBias(nn.Module):
    def __init__(self, h, K):
        super().__init__()
        self.K = K
        self.table = nn.Parameter(torch.randn(2 * K + 1, h) * 0.02)
    def forward(self, n_q, n_k):
        offset = torch.arange(n_k)[None, :] - torch.arange(n_q)[:, None]
        return self.table[(offset + self.K) % (2 * self.K + 1)].permute(2, 0, 1)""")
A(nb, 'RelativeBias', 'returns (n_q, n_k, h): heads last', """
class RelativeBias(nn.Module):
    def __init__(self, h, K):
        super().__init__()
        self.K = K
        self.table = nn.Parameter(torch.randn(2 * K + 1, h) * 0.02)
    def forward(self, n_q, n_k):
        offset = torch.arange(n_k)[None, :] - torch.arange(n_q)[:, None]
        return self.table[offset.clamp(-self.K, self.K) + self.K]""")
A(nb, 'RelativeBias', 'the distance |j - i|: one bias for both directions', """
class RelativeBias(nn.Module):
    def __init__(self, h, K):
        super().__init__()
        self.K = K
        self.table = nn.Parameter(torch.randn(2 * K + 1, h) * 0.02)
    def forward(self, n_q, n_k):
        offset = (torch.arange(n_k)[None, :] - torch.arange(n_q)[:, None]).abs()
        return self.table[offset.clamp(max=self.K) + self.K].permute(2, 0, 1)""")
A(nb, 'RelativeBias', 'permute(2, 1, 0): (h, n_k, n_q)', """
class RelativeBias(nn.Module):
    def __init__(self, h, K):
        super().__init__()
        self.K = K
        self.table = nn.Parameter(torch.randn(2 * K + 1, h) * 0.02)
    def forward(self, n_q, n_k):
        offset = torch.arange(n_k)[None, :] - torch.arange(n_q)[:, None]
        return self.table[offset.clamp(-self.K, self.K) + self.K].permute(2, 1, 0)""")

# 06_model: MySublayer, my_forward, parsing_counts
nb = '06_model'
A(nb, 'MySublayer', None, """
class MySublayer(nn.Module):
    def __init__(self, d_model, p_drop):
        super().__init__()
        self.norm, self.drop = nn.LayerNorm(d_model), nn.Dropout(p_drop)
    def forward(self, x, f):
        return self.norm(x + self.drop(f(x)))""")
A(nb, 'my_forward', None, """
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
    return model.generator(y)""")
A(nb, 'parsing_counts', None, """
def parsing_counts():
    cfg = TransformerConfig(N=4, d_model=1024, src_vocab=16000, tgt_vocab=16000)
    with torch.device('meta'): tied = count_params(Transformer(cfg))
    return tied, tied + 2 * 16000 * 1024""")
A(nb, 'MySublayer', 'pre-LN: x + Dropout(f(LayerNorm(x)))', """
class MySublayer(nn.Module):
    def __init__(self, d_model, p_drop):
        super().__init__()
        self.norm, self.drop = nn.LayerNorm(d_model), nn.Dropout(p_drop)
    def forward(self, x, f):
        return x + self.drop(f(self.norm(x)))""")
A(nb, 'MySublayer', 'dropout on the sum, after the residual', """
class MySublayer(nn.Module):
    def __init__(self, d_model, p_drop):
        super().__init__()
        self.norm, self.drop = nn.LayerNorm(d_model), nn.Dropout(p_drop)
    def forward(self, x, f):
        return self.norm(self.drop(x + f(x)))""")
A(nb, 'MySublayer', 'F.dropout without training=: dropout in eval too', """
class MySublayer(nn.Module):
    def __init__(self, d_model, p_drop):
        super().__init__()
        self.norm, self.p = nn.LayerNorm(d_model), p_drop
    def forward(self, x, f):
        return self.norm(x + F.dropout(f(x), self.p))""")
A(nb, 'MySublayer', 'layer_norm over the positions and features together', """
class MySublayer(nn.Module):
    def __init__(self, d_model, p_drop):
        super().__init__()
        self.drop = nn.Dropout(p_drop)
    def forward(self, x, f):
        s = x + self.drop(f(x))
        return F.layer_norm(s, s.shape[1:])""")
A(nb, 'MySublayer', 'LayerNorm without its gain and bias', """
class MySublayer(nn.Module):
    def __init__(self, d_model, p_drop):
        super().__init__()
        self.norm, self.drop = nn.LayerNorm(d_model, elementwise_affine=False), nn.Dropout(p_drop)
    def forward(self, x, f):
        return self.norm(x + self.drop(f(x)))""")
A(nb, 'MySublayer', 'dropout on the input as well as on f(x)', """
class MySublayer(nn.Module):
    def __init__(self, d_model, p_drop):
        super().__init__()
        self.norm, self.drop = nn.LayerNorm(d_model), nn.Dropout(p_drop)
    def forward(self, x, f):
        return self.norm(self.drop(x) + self.drop(f(x)))""")
A(nb, 'my_forward', 'the decoder attends to the source embeddings, not the encoder output', """
def my_forward(model, src, tgt):
    def residual(norm, x, f): return norm(x + f(x))
    src_mask, tgt_mask = pad_mask(src), make_tgt_mask(tgt)
    x = model.src_pos(model.src_emb(src))
    z = x
    for l in model.encoder:
        x = residual(l.sub[0].norm, x, lambda t: l.self_attn(t, mask=src_mask))
        x = residual(l.sub[1].norm, x, l.ffn)
    y = model.tgt_pos(model.tgt_emb(tgt))
    for l in model.decoder:
        y = residual(l.sub[0].norm, y, lambda t: l.self_attn(t, mask=tgt_mask))
        y = residual(l.sub[1].norm, y, lambda t: l.cross_attn(t, z, mask=src_mask))
        y = residual(l.sub[2].norm, y, l.ffn)
    return model.generator(y)""")
A(nb, 'my_forward', 'log_softmax of the logits returned', """
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
    return model.generator(y).log_softmax(-1)""")
A(nb, 'my_forward', 'cross-attention queries from the memory, keys from the decoder', """
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
        y = residual(l.sub[1].norm, y, lambda t: l.cross_attn(z, t))
        y = residual(l.sub[2].norm, y, l.ffn)
    return model.generator(y)""")
A(nb, 'my_forward', 'the encoder self-attention without the padding mask', """
def my_forward(model, src, tgt):
    def residual(norm, x, f): return norm(x + f(x))
    src_mask, tgt_mask = pad_mask(src), make_tgt_mask(tgt)
    x = model.src_pos(model.src_emb(src))
    for l in model.encoder:
        x = residual(l.sub[0].norm, x, lambda t: l.self_attn(t))
        x = residual(l.sub[1].norm, x, l.ffn)
    z = x
    y = model.tgt_pos(model.tgt_emb(tgt))
    for l in model.decoder:
        y = residual(l.sub[0].norm, y, lambda t: l.self_attn(t, mask=tgt_mask))
        y = residual(l.sub[1].norm, y, lambda t: l.cross_attn(t, z, mask=src_mask))
        y = residual(l.sub[2].norm, y, l.ffn)
    return model.generator(y)""")
A(nb, 'parsing_counts', 'd_ff scaled to 4 d_model = 4096', """
def parsing_counts():
    cfg = TransformerConfig(N=4, d_model=1024, d_ff=4096, src_vocab=16000, tgt_vocab=16000)
    with torch.device('meta'): tied = count_params(Transformer(cfg))
    return tied, tied + 2 * 16000 * 1024""")
A(nb, 'parsing_counts', 'returns (untied, tied)', """
def parsing_counts():
    cfg = TransformerConfig(N=4, d_model=1024, src_vocab=16000, tgt_vocab=16000)
    with torch.device('meta'): tied = count_params(Transformer(cfg))
    return tied + 2 * 16000 * 1024, tied""")
A(nb, 'parsing_counts', 'untied with one more matrix, not two', """
def parsing_counts():
    cfg = TransformerConfig(N=4, d_model=1024, src_vocab=16000, tgt_vocab=16000)
    with torch.device('meta'): tied = count_params(Transformer(cfg))
    return tied, tied + 16000 * 1024""")

# 07_why_self_attention: restricted_attention
nb = '07_why_self_attention'
A(nb, 'restricted_attention', None, """
def restricted_attention(q, k, v, r):
    n, w = q.shape[-2], r // 2
    win = lambda t: F.pad(t, (0, 0, w, w)).unfold(-2, 2 * w + 1, 1)
    s = torch.einsum('bhnd,bhndw->bhnw', q, win(k)) / q.shape[-1] ** 0.5
    j = torch.arange(n)[:, None] + torch.arange(-w, w + 1)
    s = s.masked_fill((j < 0) | (j >= n), float('-inf'))
    return torch.einsum('bhnw,bhndw->bhnd', s.softmax(-1), win(v))""")
A(nb, 'restricted_attention', 'windows of r rows: right for an odd r only', """
def restricted_attention(q, k, v, r):
    n, w = q.shape[-2], r // 2
    win = lambda t: F.pad(t, (0, 0, w, w)).unfold(-2, r, 1)
    s = torch.einsum('bhnd,bhndw->bhnw', q, win(k)[:, :, :n]) / q.shape[-1] ** 0.5
    j = torch.arange(n)[:, None] + torch.arange(-w, -w + r)
    s = s.masked_fill((j < 0) | (j >= n), float('-inf'))
    return torch.einsum('bhnw,bhndw->bhnd', s.softmax(-1), win(v)[:, :, :n])""")
A(nb, 'restricted_attention', 'the padded rows not masked: zero keys get a score of 0', """
def restricted_attention(q, k, v, r):
    n, w = q.shape[-2], r // 2
    win = lambda t: F.pad(t, (0, 0, w, w)).unfold(-2, 2 * w + 1, 1)
    s = torch.einsum('bhnd,bhndw->bhnw', q, win(k)) / q.shape[-1] ** 0.5
    return torch.einsum('bhnw,bhndw->bhnd', s.softmax(-1), win(v))""")
A(nb, 'restricted_attention', 'no 1/sqrt(d_k)', """
def restricted_attention(q, k, v, r):
    n, w = q.shape[-2], r // 2
    win = lambda t: F.pad(t, (0, 0, w, w)).unfold(-2, 2 * w + 1, 1)
    s = torch.einsum('bhnd,bhndw->bhnw', q, win(k))
    j = torch.arange(n)[:, None] + torch.arange(-w, w + 1)
    s = s.masked_fill((j < 0) | (j >= n), float('-inf'))
    return torch.einsum('bhnw,bhndw->bhnd', s.softmax(-1), win(v))""")
A(nb, 'restricted_attention', 'scaled by sqrt of the window size', """
def restricted_attention(q, k, v, r):
    n, w = q.shape[-2], r // 2
    win = lambda t: F.pad(t, (0, 0, w, w)).unfold(-2, 2 * w + 1, 1)
    s = torch.einsum('bhnd,bhndw->bhnw', q, win(k)) / (2 * w + 1) ** 0.5
    j = torch.arange(n)[:, None] + torch.arange(-w, w + 1)
    s = s.masked_fill((j < 0) | (j >= n), float('-inf'))
    return torch.einsum('bhnw,bhndw->bhnd', s.softmax(-1), win(v))""")
A(nb, 'restricted_attention', 'full attention under local_mask (an n x n matrix)', """
def restricted_attention(q, k, v, r):
    return attention(q, k, v, local_mask(q.shape[-2], r))[0]""")
A(nb, 'restricted_attention', 'one-sided window: the 2 * (r // 2) keys before the query', """
def restricted_attention(q, k, v, r):
    n, w = q.shape[-2], r // 2
    win = lambda t: F.pad(t, (0, 0, 2 * w, 0)).unfold(-2, 2 * w + 1, 1)
    s = torch.einsum('bhnd,bhndw->bhnw', q, win(k)) / q.shape[-1] ** 0.5
    j = torch.arange(n)[:, None] + torch.arange(-2 * w, 1)
    s = s.masked_fill(j < 0, float('-inf'))
    return torch.einsum('bhnw,bhndw->bhnd', s.softmax(-1), win(v))""")
A(nb, 'restricted_attention', 'the end padding masked with j > n: the first pad row past the end let in', """
def restricted_attention(q, k, v, r):
    n, w = q.shape[-2], r // 2
    win = lambda t: F.pad(t, (0, 0, w, w)).unfold(-2, 2 * w + 1, 1)
    s = torch.einsum('bhnd,bhndw->bhnw', q, win(k)) / q.shape[-1] ** 0.5
    j = torch.arange(n)[:, None] + torch.arange(-w, w + 1)
    s = s.masked_fill((j < 0) | (j > n), float('-inf'))
    return torch.einsum('bhnw,bhndw->bhnd', s.softmax(-1), win(v))""")
A(nb, 'restricted_attention', 'r read as the radius: |i - j| <= r', """
def restricted_attention(q, k, v, r):
    n, w = q.shape[-2], r
    win = lambda t: F.pad(t, (0, 0, w, w)).unfold(-2, 2 * w + 1, 1)
    s = torch.einsum('bhnd,bhndw->bhnw', q, win(k)) / q.shape[-1] ** 0.5
    j = torch.arange(n)[:, None] + torch.arange(-w, w + 1)
    s = s.masked_fill((j < 0) | (j >= n), float('-inf'))
    return torch.einsum('bhnw,bhndw->bhnd', s.softmax(-1), win(v))""")
A(nb, 'restricted_attention', 'returns (output, weights)', """
def restricted_attention(q, k, v, r):
    n, w = q.shape[-2], r // 2
    win = lambda t: F.pad(t, (0, 0, w, w)).unfold(-2, 2 * w + 1, 1)
    s = torch.einsum('bhnd,bhndw->bhnw', q, win(k)) / q.shape[-1] ** 0.5
    j = torch.arange(n)[:, None] + torch.arange(-w, w + 1)
    p = s.masked_fill((j < 0) | (j >= n), float('-inf')).softmax(-1)
    return torch.einsum('bhnw,bhndw->bhnd', p, win(v)), p""")
A(nb, 'restricted_attention', 'softmax over the feature axis of the values, not the window', """
def restricted_attention(q, k, v, r):
    n, w = q.shape[-2], r // 2
    win = lambda t: F.pad(t, (0, 0, w, w)).unfold(-2, 2 * w + 1, 1)
    s = torch.einsum('bhnd,bhndw->bhnw', q, win(k)) / q.shape[-1] ** 0.5
    j = torch.arange(n)[:, None] + torch.arange(-w, w + 1)
    s = s.masked_fill((j < 0) | (j >= n), 0.0)
    return torch.einsum('bhnw,bhndw->bhnd', s, win(v)).softmax(-1)""")

# 08_data: learn_bpe, segment
nb = '08_data'
A(nb, 'bpe', None, """
def _merge(syms, pair):
    i = 0
    while i < len(syms) - 1:
        if (syms[i], syms[i + 1]) == pair:
            syms[i:i + 2] = [syms[i] + syms[i + 1]]
            
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
    return syms""")
BPE_MERGE = '''
def _merge(syms, pair):
    i = 0
    while i < len(syms) - 1:
        if (syms[i], syms[i + 1]) == pair: syms[i:i + 2] = [syms[i] + syms[i + 1]]
        else: i += 1
    return syms
'''
def bpe(learn_body, segment_body=None, merge=BPE_MERGE):
    seg = segment_body or '''
def segment(word, merges):
    syms = list(word) + ['</w>']
    for pair in merges: syms = _merge(syms, pair)
    return syms
'''
    return merge + learn_body + seg
LEARN = '''
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
'''
A(nb, 'bpe', "no end-of-word symbol '</w>'", bpe(LEARN.replace("tuple(w) + ('</w>',)", 'tuple(w)'), '''
def segment(word, merges):
    syms = list(word)
    for pair in merges: syms = _merge(syms, pair)
    return syms
'''))
A(nb, 'bpe', "pairs counted once per word, not weighted by the word's count", bpe(LEARN.replace('pairs[a, b] += c', 'pairs[a, b] += 1')))
A(nb, 'bpe', 'ties to the first pair counted: Counter.most_common', bpe(LEARN.replace('min(pairs, key=lambda p: (-pairs[p], p))', 'pairs.most_common(1)[0][0]')))
A(nb, 'bpe', "merges by string replace on the space-joined symbols: matches across symbol edges", bpe(LEARN, merge='''
def _merge(syms, pair):
    return ' '.join(syms).replace(pair[0] + ' ' + pair[1], pair[0] + pair[1]).split(' ')
'''))
A(nb, 'bpe', "merges recorded as joined strings ('es'), not pairs", bpe(LEARN.replace('merges.append(best)', 'merges.append(best[0] + best[1])'), '''
def segment(word, merges):
    syms = list(word) + ['</w>']
    for m in merges:
        i = 0
        while i < len(syms) - 1:
            if syms[i] + syms[i + 1] == m: syms[i:i + 2] = [m]
            else: i += 1
    return syms
'''))
A(nb, 'bpe', 'segment applies the merges last learnt first', bpe(LEARN, '''
def segment(word, merges):
    syms = list(word) + ['</w>']
    for pair in reversed(merges): syms = _merge(syms, pair)
    return syms
'''))
A(nb, 'bpe', 'stops when the best pair occurs once (a minimum frequency of 2)', bpe(LEARN.replace('if not pairs: break\n        best = min(pairs, key=lambda p: (-pairs[p], p))', 'if not pairs: break\n        best = min(pairs, key=lambda p: (-pairs[p], p))\n        if pairs[best] < 2: break')))
A(nb, 'bpe', "segment leaves out the '</w>' that learn_bpe adds", bpe(LEARN, '''
def segment(word, merges):
    syms = list(word)
    for pair in merges: syms = _merge(syms, pair)
    return syms
'''))
A(nb, 'bpe', 'pairs merged right to left', bpe(LEARN, merge='''
def _merge(syms, pair):
    i = len(syms) - 2
    while i >= 0:
        if i + 1 < len(syms) and (syms[i], syms[i + 1]) == pair: syms[i:i + 2] = [syms[i] + syms[i + 1]]
        i -= 1
    return syms
'''))
A(nb, 'bpe', "'</w>' joined to the last character ('t</w>'), as Sennrich's code writes it", bpe(LEARN.replace("tuple(w) + ('</w>',)", "tuple(w[:-1]) + (w[-1] + '</w>',)"), '''
def segment(word, merges):
    syms = list(word[:-1]) + [word[-1] + '</w>']
    for pair in merges: syms = _merge(syms, pair)
    return syms
'''))
A(nb, 'bpe', 'a pair counted once per word however often it occurs there', bpe(LEARN.replace('for a, b in zip(syms, syms[1:]): pairs[a, b] += c', 'for a, b in set(zip(syms, syms[1:])): pairs[a, b] += c')))

# 09_training: my_noam_lr, my_label_smoothing
nb = '09_training'
A(nb, 'my_noam_lr', None, """
def my_noam_lr(step, d_model=512, warmup=4000):
    if step == 0: return 0.0
    return d_model ** -0.5 * min(step ** -0.5, step * warmup ** -1.5)""")
A(nb, 'my_label_smoothing', None, """
def my_label_smoothing(logits, target, eps, pad_id=PAD_ID):
    V = logits.shape[-1]
    q = torch.full_like(logits, eps / V)
    q.scatter_add_(-1, target[..., None], torch.full_like(logits[..., :1], 1 - eps))
    loss = -(q * logits.log_softmax(-1)).sum(-1)
    return loss[target != pad_id].mean()""")
A(nb, 'my_noam_lr', 'no case for step 0: 0 ** -0.5 raises', """
def my_noam_lr(step, d_model=512, warmup=4000):
    return d_model ** -0.5 * min(step ** -0.5, step * warmup ** -1.5)""")
A(nb, 'my_noam_lr', 'max for min', """
def my_noam_lr(step, d_model=512, warmup=4000):
    if step == 0: return 0.0
    return d_model ** -0.5 * max(step ** -0.5, step * warmup ** -1.5)""")
A(nb, 'my_noam_lr', 'steps counted from 0: step + 1 in the formula', """
def my_noam_lr(step, d_model=512, warmup=4000):
    if step == 0: return 0.0
    s = step + 1
    return d_model ** -0.5 * min(s ** -0.5, s * warmup ** -1.5)""")
A(nb, 'my_noam_lr', 'd_model ** -1 in front', """
def my_noam_lr(step, d_model=512, warmup=4000):
    if step == 0: return 0.0
    return d_model ** -1 * min(step ** -0.5, step * warmup ** -1.5)""")
A(nb, 'my_noam_lr', 'd_model fixed at 512 whatever the argument', """
def my_noam_lr(step, d_model=512, warmup=4000):
    if step == 0: return 0.0
    return 512 ** -0.5 * min(step ** -0.5, step * warmup ** -1.5)""")
A(nb, 'my_noam_lr', "fairseq's inverse_sqrt: a linear warm-up to a peak of 5e-4", """
def my_noam_lr(step, d_model=512, warmup=4000):
    peak = 5e-4
    if step < warmup: return peak * step / warmup
    return peak * (warmup / step) ** 0.5""")
A(nb, 'my_label_smoothing', 'the pad positions averaged in', """
def my_label_smoothing(logits, target, eps, pad_id=PAD_ID):
    V = logits.shape[-1]
    q = torch.full_like(logits, eps / V)
    q.scatter_add_(-1, target[..., None], torch.full_like(logits[..., :1], 1 - eps))
    return -(q * logits.log_softmax(-1)).sum(-1).mean()""")
A(nb, 'my_label_smoothing', 'the logits taken as log-probabilities (no log_softmax)', """
def my_label_smoothing(logits, target, eps, pad_id=PAD_ID):
    V = logits.shape[-1]
    q = torch.full_like(logits, eps / V)
    q.scatter_add_(-1, target[..., None], torch.full_like(logits[..., :1], 1 - eps))
    loss = -(q * logits).sum(-1)
    return loss[target != pad_id].mean()""")
A(nb, 'my_label_smoothing', 'pads dropped by PAD_ID whatever pad_id says', """
def my_label_smoothing(logits, target, eps, pad_id=PAD_ID):
    V = logits.shape[-1]
    q = torch.full_like(logits, eps / V)
    q.scatter_add_(-1, target[..., None], torch.full_like(logits[..., :1], 1 - eps))
    loss = -(q * logits.log_softmax(-1)).sum(-1)
    return loss[target != PAD_ID].mean()""")
A(nb, 'my_label_smoothing', "the Annotated Transformer's q: eps/(V-2), nothing on the pad column", """
def my_label_smoothing(logits, target, eps, pad_id=PAD_ID):
    V = logits.shape[-1]
    q = torch.full_like(logits, eps / (V - 2))
    q.scatter_(-1, target[..., None], 1 - eps)
    q[..., pad_id] = 0
    loss = -(q * logits.log_softmax(-1)).sum(-1)
    return loss[target != pad_id].mean()""")
A(nb, 'my_label_smoothing', 'each sentence summed, then averaged over sentences', """
def my_label_smoothing(logits, target, eps, pad_id=PAD_ID):
    V = logits.shape[-1]
    q = torch.full_like(logits, eps / V)
    q.scatter_add_(-1, target[..., None], torch.full_like(logits[..., :1], 1 - eps))
    loss = -(q * logits.log_softmax(-1)).sum(-1) * (target != pad_id)
    return loss.sum(-1).mean()""")
A(nb, 'my_label_smoothing', 'the sum over the tokens, not the mean', """
def my_label_smoothing(logits, target, eps, pad_id=PAD_ID):
    V = logits.shape[-1]
    q = torch.full_like(logits, eps / V)
    q.scatter_add_(-1, target[..., None], torch.full_like(logits[..., :1], 1 - eps))
    loss = -(q * logits.log_softmax(-1)).sum(-1)
    return loss[target != pad_id].sum()""")

# 10_decoding: my_greedy_step
nb = '10_decoding'
A(nb, 'my_greedy_step', None, """
def my_greedy_step(model, src, ys):
    logits = model(src, ys)[:, -1]
    return next_token_logits(logits).argmax(-1)""")
A(nb, 'my_greedy_step', 'the logits of the first position', """
def my_greedy_step(model, src, ys):
    logits = model(src, ys)[:, 0]
    return next_token_logits(logits).argmax(-1)""")
A(nb, 'my_greedy_step', 'PAD and BOS not forbidden', """
def my_greedy_step(model, src, ys):
    return model(src, ys)[:, -1].argmax(-1)""")
A(nb, 'my_greedy_step', 'argmax over the batch axis', """
def my_greedy_step(model, src, ys):
    logits = model(src, ys)[:, -1]
    return next_token_logits(logits).argmax(0)""")
A(nb, 'my_greedy_step', 'keepdim=True: (B, 1)', """
def my_greedy_step(model, src, ys):
    logits = model(src, ys)[:, -1]
    return next_token_logits(logits).argmax(-1, keepdim=True)""")
A(nb, 'my_greedy_step', 'the largest logit returned, not its index', """
def my_greedy_step(model, src, ys):
    logits = model(src, ys)[:, -1]
    return next_token_logits(logits).max(-1).values""")
A(nb, 'my_greedy_step', 'the prefix fed without its BOS', """
def my_greedy_step(model, src, ys):
    logits = model(src, ys[:, 1:] if ys.shape[1] > 1 else ys)[:, -1]
    return next_token_logits(logits).argmax(-1)""")
A(nb, 'my_greedy_step', 'model(ys, src): the arguments swapped', """
def my_greedy_step(model, src, ys):
    logits = model(ys, src)[:, -1]
    return next_token_logits(logits).argmax(-1)""")
A(nb, 'my_greedy_step', 'returns the prefix with the new token appended', """
def my_greedy_step(model, src, ys):
    logits = model(src, ys)[:, -1]
    return torch.cat([ys, next_token_logits(logits).argmax(-1, keepdim=True)], 1)""")
A(nb, 'my_greedy_step', 'only PAD forbidden, by hand', """
def my_greedy_step(model, src, ys):
    logits = model(src, ys)[:, -1].clone()
    logits[:, PAD_ID] = float('-inf')
    return logits.argmax(-1)""")
A(nb, 'my_greedy_step', 'a Python list of ids', """
def my_greedy_step(model, src, ys):
    logits = model(src, ys)[:, -1]
    return next_token_logits(logits).argmax(-1).tolist()""")
A(nb, 'my_greedy_step', 'samples from the softmax instead of taking the argmax', """
def my_greedy_step(model, src, ys):
    logits = model(src, ys)[:, -1]
    return torch.multinomial(next_token_logits(logits).softmax(-1), 1)[:, 0]""")

# 11_results: my_bleu
nb = '11_results'
A(nb, 'my_bleu', None, """
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
    return 100 * bp * math.exp(sum(math.log(m / t) for m, t in zip(match, total)) / 4)""")
BLEU = '''
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
'''
def bleu(old, new): assert old in BLEU, old; return BLEU.replace(old, new)
A(nb, 'my_bleu', 'matches not clipped: every hypothesis n-gram found in the reference counts', bleu(
    'sum((ngrams(h, n) & ngrams(ref, n)).values())', 'sum(k for g, k in ngrams(h, n).items() if g in ngrams(ref, n))'))
A(nb, 'my_bleu', 'the mean of sentence BLEUs', '''
def my_bleu(hyps, refs):
    ngrams = lambda ws, n: Counter(tuple(ws[i:i + n]) for i in range(len(ws) - n + 1))
    out = []
    for h, ref in zip(hyps, refs):
        h, ref = h.split(), ref.split()
        ps = [max(sum((ngrams(h, n) & ngrams(ref, n)).values()), 1e-9) / max(len(h) - n + 1, 1) for n in range(1, 5)]
        bp = min(1.0, math.exp(1 - len(ref) / len(h)))
        out.append(100 * bp * math.exp(sum(map(math.log, ps)) / 4))
    return sum(out) / len(out)
''')
A(nb, 'my_bleu', 'the brevity penalty exp(1 - c / r), inverted', bleu('math.exp(1 - r / c)', 'math.exp(1 - c / r)'))
A(nb, 'my_bleu', 'the brevity penalty without its min(1, .)', bleu('min(1.0, math.exp(1 - r / c))', 'math.exp(1 - r / c)'))
A(nb, 'my_bleu', 'the arithmetic mean of the four precisions', bleu(
    'math.exp(sum(math.log(m / t) for m, t in zip(match, total)) / 4)', 'sum(m / t for m, t in zip(match, total)) / 4'))
A(nb, 'my_bleu', 'a fraction between 0 and 1', bleu('return 100 * bp', 'return bp'))
A(nb, 'my_bleu', 'n-grams up to 3', bleu('for n in range(1, 5)', 'for n in range(1, 4)').replace('[0] * 4', '[0] * 3').replace(') / 4)', ') / 3)'))
A(nb, 'my_bleu', 'hypotheses and references swapped', bleu('for h, ref in zip(hyps, refs):', 'for ref, h in zip(hyps, refs):'))
A(nb, 'my_bleu', 'add-one smoothing of every precision', bleu('math.log(m / t)', 'math.log((m + 1) / (t + 1))'))
A(nb, 'my_bleu', 'the sentences lowercased first', bleu('h, ref = h.split(), ref.split()', 'h, ref = h.lower().split(), ref.lower().split()'))
A(nb, 'my_bleu', 'the precisions divided by the reference n-gram counts', bleu('total[n - 1] += max(len(h) - n + 1, 0)', 'total[n - 1] += max(len(ref) - n + 1, 0)'))

# 12_variations: beyond_noise, heads_looking, rows_ab
nb = '12_variations'
A(nb, 'beyond_noise', None, """
def beyond_noise(recs):
    base = next(r['bleu'] for r in recs if r['id'] == 'base')
    noise = max(abs(r['bleu'] - base) for r in recs if r['variant'] == 'base' and r['id'] != 'base')
    return [r['id'] for r in recs if r['variant'] != 'base' and abs(r['bleu'] - base) > noise]""")
A(nb, 'heads_looking', None, """
def heads_looking(w, rows, col):
    return [h + 1 for h in range(w.shape[0]) if all(w[h, r].argmax() == col for r in rows)]""")
A(nb, 'rows_ab', None, """
def rows_ab(base):
    d, h = base['d_model'], base['h']; d_k = base.get('d_k') or d // h
    return {**{f'A-h{k}': dict(h=k, d_k=d // k, d_v=d // k) for k in (max(1, h // 8), h // 2, 2 * h, 4 * h)},
            **{f'B-dk{k}': dict(d_k=k, d_v=d_k) for k in (d_k // 4, d_k // 2)}}""")
A(nb, 'beyond_noise', '>= the spread: a variant exactly at the spread kept', """
def beyond_noise(recs):
    base = next(r['bleu'] for r in recs if r['id'] == 'base')
    noise = max(abs(r['bleu'] - base) for r in recs if r['variant'] == 'base' and r['id'] != 'base')
    return [r['id'] for r in recs if r['variant'] != 'base' and abs(r['bleu'] - base) >= noise]""")
A(nb, 'beyond_noise', 'only the variants above base (signed difference)', """
def beyond_noise(recs):
    base = next(r['bleu'] for r in recs if r['id'] == 'base')
    noise = max(abs(r['bleu'] - base) for r in recs if r['variant'] == 'base' and r['id'] != 'base')
    return [r['id'] for r in recs if r['variant'] != 'base' and r['bleu'] - base > noise]""")
A(nb, 'beyond_noise', "base's BLEU taken as the mean of its seed runs", """
def beyond_noise(recs):
    seeds = [r['bleu'] for r in recs if r['variant'] == 'base']
    base = sum(seeds) / len(seeds)
    noise = max(abs(b - base) for b in seeds)
    return [r['id'] for r in recs if r['variant'] != 'base' and abs(r['bleu'] - base) > noise]""")
A(nb, 'beyond_noise', 'returns the records, not their ids', """
def beyond_noise(recs):
    base = next(r['bleu'] for r in recs if r['id'] == 'base')
    noise = max(abs(r['bleu'] - base) for r in recs if r['variant'] == 'base' and r['id'] != 'base')
    return [r for r in recs if r['variant'] != 'base' and abs(r['bleu'] - base) > noise]""")
A(nb, 'beyond_noise', 'the first record taken as base', """
def beyond_noise(recs):
    base = recs[0]['bleu']
    noise = max(abs(r['bleu'] - base) for r in recs[1:] if r['variant'] == 'base')
    return [r['id'] for r in recs if r['variant'] != 'base' and abs(r['bleu'] - base) > noise]""")
A(nb, 'heads_looking', 'heads numbered from 0', """
def heads_looking(w, rows, col):
    return [h for h in range(w.shape[0]) if all(w[h, r].argmax() == col for r in rows)]""")
A(nb, 'heads_looking', 'rows and columns swapped: the argmax over the queries of column r', """
def heads_looking(w, rows, col):
    return [h + 1 for h in range(w.shape[0]) if all(w[h, :, r].argmax() == col for r in rows)]""")
A(nb, 'heads_looking', 'any row instead of every row', """
def heads_looking(w, rows, col):
    return [h + 1 for h in range(w.shape[0]) if any(w[h, r].argmax() == col for r in rows)]""")
A(nb, 'heads_looking', 'the argmax of the rows summed', """
def heads_looking(w, rows, col):
    return [h + 1 for h in range(w.shape[0]) if w[h, rows].sum(0).argmax() == col]""")
A(nb, 'rows_ab', 'h // 8 without max(1, .): 0 heads for a small model', """
def rows_ab(base):
    d, h = base['d_model'], base['h']; d_k = base.get('d_k') or d // h
    return {**{f'A-h{k}': dict(h=k, d_k=d // k, d_v=d // k) for k in (h // 8, h // 2, 2 * h, 4 * h)},
            **{f'B-dk{k}': dict(d_k=k, d_v=d_k) for k in (d_k // 4, d_k // 2)}}""")
A(nb, 'rows_ab', 'row (B) shrinks d_v with d_k', """
def rows_ab(base):
    d, h = base['d_model'], base['h']; d_k = base.get('d_k') or d // h
    return {**{f'A-h{k}': dict(h=k, d_k=d // k, d_v=d // k) for k in (max(1, h // 8), h // 2, 2 * h, 4 * h)},
            **{f'B-dk{k}': dict(d_k=k, d_v=k) for k in (d_k // 4, d_k // 2)}}""")
A(nb, 'rows_ab', "the paper's heads 1, 4, 16, 32 whatever the base", """
def rows_ab(base):
    d, h = base['d_model'], base['h']; d_k = base.get('d_k') or d // h
    return {**{f'A-h{k}': dict(h=k, d_k=d // k, d_v=d // k) for k in (1, 4, 16, 32)},
            **{f'B-dk{k}': dict(d_k=k, d_v=d_k) for k in (d_k // 4, d_k // 2)}}""")
A(nb, 'rows_ab', 'row (A) sets d_k and leaves d_v', """
def rows_ab(base):
    d, h = base['d_model'], base['h']; d_k = base.get('d_k') or d // h
    return {**{f'A-h{k}': dict(h=k, d_k=d // k) for k in (max(1, h // 8), h // 2, 2 * h, 4 * h)},
            **{f'B-dk{k}': dict(d_k=k, d_v=d_k) for k in (d_k // 4, d_k // 2)}}""")

# 13_parsing: my_linearize, my_corpus_prf
nb = '13_parsing'
A(nb, 'my_linearize', None, """
def my_linearize(tree):
    if isinstance(tree, str): return tree
    if is_preterminal(tree): return tree[0]
    lab = coarse_label(tree.label())
    return ' '.join([f'({lab}', *(my_linearize(t) for t in tree), f'){lab}'])""")
A(nb, 'my_corpus_prf', None, """
def my_corpus_prf(counts):
    m, g, t = (sum(c[i] for c in counts) for i in range(3))
    p, r = 100 * m / t, 100 * m / g
    return p, r, 2 * p * r / (p + r)""")
A(nb, 'my_linearize', 'labels kept whole (NP-SBJ, NP=1)', """
def my_linearize(tree):
    if isinstance(tree, str): return tree
    if is_preterminal(tree): return tree[0]
    lab = tree.label()
    return ' '.join([f'({lab}', *(my_linearize(t) for t in tree), f'){lab}'])""")
A(nb, 'my_linearize', 'POS nodes bracketed too', """
def my_linearize(tree):
    if isinstance(tree, str): return tree
    lab = coarse_label(tree.label())
    return ' '.join([f'({lab}', *(my_linearize(t) for t in tree), f'){lab}'])""")
A(nb, 'my_linearize', "a bare ')' closing each phrase", """
def my_linearize(tree):
    if isinstance(tree, str): return tree
    if is_preterminal(tree): return tree[0]
    lab = coarse_label(tree.label())
    return ' '.join([f'({lab}', *(my_linearize(t) for t in tree), ')'])""")
A(nb, 'my_linearize', "labels cut at '-' by hand: the '=1' index stays", """
def my_linearize(tree):
    if isinstance(tree, str): return tree
    if is_preterminal(tree): return tree[0]
    lab = tree.label().split('-')[0] or tree.label()
    return ' '.join([f'({lab}', *(my_linearize(t) for t in tree), f'){lab}'])""")
A(nb, 'my_linearize', 'a list of tokens, not a string', """
def my_linearize(tree):
    if isinstance(tree, str): return [tree]
    if is_preterminal(tree): return [tree[0]]
    lab = coarse_label(tree.label())
    return [f'({lab}', *(tok for t in tree for tok in my_linearize(t)), f'){lab}']""")
A(nb, 'my_linearize', 'a node with one child taken as a POS node (len(tree) == 1)', """
def my_linearize(tree):
    if isinstance(tree, str): return tree
    if len(tree) == 1: return tree.leaves()[0]
    lab = coarse_label(tree.label())
    return ' '.join([f'({lab}', *(my_linearize(t) for t in tree), f'){lab}'])""")
A(nb, 'my_linearize', "the closing bracket written 'LABEL)'", """
def my_linearize(tree):
    if isinstance(tree, str): return tree
    if is_preterminal(tree): return tree[0]
    lab = coarse_label(tree.label())
    return ' '.join([f'({lab}', *(my_linearize(t) for t in tree), f'{lab})'])""")
A(nb, 'my_corpus_prf', 'per-sentence scores averaged (macro)', """
def my_corpus_prf(counts):
    ps = [100 * m / t if t else 0.0 for m, g, t in counts]
    rs = [100 * m / g if g else 0.0 for m, g, t in counts]
    p, r = sum(ps) / len(ps), sum(rs) / len(rs)
    return p, r, 2 * p * r / (p + r)""")
A(nb, 'my_corpus_prf', 'precision and recall swapped (matched / reference as precision)', """
def my_corpus_prf(counts):
    m, g, t = (sum(c[i] for c in counts) for i in range(3))
    p, r = 100 * m / g, 100 * m / t
    return p, r, 2 * p * r / (p + r)""")
A(nb, 'my_corpus_prf', 'fractions, not percent', """
def my_corpus_prf(counts):
    m, g, t = (sum(c[i] for c in counts) for i in range(3))
    p, r = m / t, m / g
    return p, r, 2 * p * r / (p + r)""")
A(nb, 'my_corpus_prf', 'F1 as the arithmetic mean of P and R', """
def my_corpus_prf(counts):
    m, g, t = (sum(c[i] for c in counts) for i in range(3))
    p, r = 100 * m / t, 100 * m / g
    return p, r, (p + r) / 2""")
A(nb, 'my_corpus_prf', 'F1 alone', """
def my_corpus_prf(counts):
    m, g, t = (sum(c[i] for c in counts) for i in range(3))
    p, r = 100 * m / t, 100 * m / g
    return 2 * p * r / (p + r)""")

# 14_since_2017: rms_norm_of, rotate_query, group_heads
nb = '14_since_2017'
A(nb, 'rms_norm_of', None, """
def rms_norm_of(a, g, eps=1e-5):
    return a / torch.sqrt(a.pow(2).mean(-1, keepdim=True) + eps) * g""")
A(nb, 'rotate_query', None, """
def rotate_query(q, m):
    a = m * 10000.0 ** (-torch.arange(0, len(q), 2, dtype=torch.float64) / len(q))
    x1, x2 = q[0::2].double(), q[1::2].double()
    return torch.stack([x1 * a.cos() - x2 * a.sin(), x1 * a.sin() + x2 * a.cos()], -1).flatten().to(q.dtype)""")
A(nb, 'group_heads', None, """
def group_heads(k, g):
    B, h, n, d = k.shape
    return k.view(B, g, h // g, n, d).mean(2).repeat_interleave(h // g, dim=1)""")
A(nb, 'rms_norm_of', 'eps added outside the root', """
def rms_norm_of(a, g, eps=1e-5):
    return a / (a.pow(2).mean(-1, keepdim=True).sqrt() + eps) * g""")
A(nb, 'rms_norm_of', 'the sum of squares, not their mean', """
def rms_norm_of(a, g, eps=1e-5):
    return a / torch.sqrt(a.pow(2).sum(-1, keepdim=True) + eps) * g""")
A(nb, 'rms_norm_of', 'the mean without keepdim', """
def rms_norm_of(a, g, eps=1e-5):
    return a / torch.sqrt(a.pow(2).mean(-1) + eps) * g""")
A(nb, 'rms_norm_of', 'F.normalize: the L2 norm, not the root mean square', """
def rms_norm_of(a, g, eps=1e-5):
    return F.normalize(a, dim=-1, eps=eps) * g""")
A(nb, 'rotate_query', 'position m + 1', """
def rotate_query(q, m):
    a = (m + 1) * 10000.0 ** (-torch.arange(0, len(q), 2, dtype=torch.float64) / len(q))
    x1, x2 = q[0::2].double(), q[1::2].double()
    return torch.stack([x1 * a.cos() - x2 * a.sin(), x1 * a.sin() + x2 * a.cos()], -1).flatten().to(q.dtype)""")
A(nb, 'rotate_query', 'the pairs returned as a (d/2, 2) tensor', """
def rotate_query(q, m):
    a = m * 10000.0 ** (-torch.arange(0, len(q), 2, dtype=torch.float64) / len(q))
    x1, x2 = q[0::2].double(), q[1::2].double()
    return torch.stack([x1 * a.cos() - x2 * a.sin(), x1 * a.sin() + x2 * a.cos()], -1).to(q.dtype)""")
A(nb, 'rotate_query', '2i taken from arange(0, d, 2) and doubled: theta_i = 10000^(-4i/d)', """
def rotate_query(q, m):
    i = torch.arange(0, len(q), 2, dtype=torch.float64)
    a = m * 10000.0 ** (-2 * i / len(q))
    x1, x2 = q[0::2].double(), q[1::2].double()
    return torch.stack([x1 * a.cos() - x2 * a.sin(), x1 * a.sin() + x2 * a.cos()], -1).flatten().to(q.dtype)""")
A(nb, 'rotate_query', 'rotates q in place and returns it', """
def rotate_query(q, m):
    a = (m * 10000.0 ** (-torch.arange(0, len(q), 2, dtype=torch.float64) / len(q))).to(q.dtype)
    x1, x2 = q[0::2].clone(), q[1::2].clone()
    q[0::2], q[1::2] = x1 * a.cos() - x2 * a.sin(), x1 * a.sin() + x2 * a.cos()
    return q""")
A(nb, 'group_heads', 'g read as the size of a group: h/g groups of g heads', """
def group_heads(k, g):
    B, h, n, d = k.shape
    return k.view(B, h // g, g, n, d).mean(2).repeat_interleave(g, dim=1)""")
A(nb, 'group_heads', "each group's first head, not the mean", """
def group_heads(k, g):
    B, h, n, d = k.shape
    return k[:, ::h // g].repeat_interleave(h // g, dim=1)""")
A(nb, 'group_heads', 'the mean over the positions', """
def group_heads(k, g):
    B, h, n, d = k.shape
    return k.mean(2, keepdim=True).expand(B, h, n, d)""")
A(nb, 'group_heads', 'the group mean kept as (B, g, 1, n, d): broadcastable, not (B, h, n, d)', """
def group_heads(k, g):
    B, h, n, d = k.shape
    return k.view(B, g, h // g, n, d).mean(2, keepdim=True)""")
