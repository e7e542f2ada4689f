"""The twenty-fourth blind set's answers, for the notebooks 00_core to 07_why_self_attention only, written from the
exercises' text alone: (notebook, exercise, mistake, code), the mistake None for the right answer.
`experiments/blind_answers.py 24` runs them. This set leans toward answers right on the example's sizes and wrong on
others (square sizes: n_q = n_k, d_ff = d_model, d = h, vocab = d_model, h = d_k, n = d_k; odd r only; one batch
element), torch functions with surprising defaults (`torch.Tensor`, `F.softmax` without dim, `F.dropout`'s training,
`split(h)`, `triu`'s diagonal, `-r // 2`, `F.pad`'s order, an uint8 arange), aliasing and in-place traps (one buffer
reused for every row, copy_ into a leaf outside no_grad, the pad row re-zeroed in forward), misread arguments and
return values (h read as the head size, the cross-attention's arguments the other way, (output, scores), counts in
millions, a dict), readers of the paper's figure (decoder layer i attends to encoder layer i) and other sources'
conventions (fairseq's length-sorted batches, Keras' int32 pad_sequences and uniform init, Hugging Face's dicts,
finfo.min fill and padding='max_length', d2l's bmm, the Annotated Transformer's uint8 masks, nn.MultiheadAttention's
(output, weights), TensorFlow 1's keep_prob, DeepNet's up-weighted residual, ALBERT's shared layers, nanoGPT's 0.02
init, ALiBi's slopes, T5's num_buckets), and right values in the wrong container, dtype or shape."""
ANSWERS = []
def A(nb, ex, mistake, code): ANSWERS.append((nb, ex, mistake, code))

# 00_core: pad_batch
nb = '00_core'
PAD = """
def pad_batch(seqs, pad_id=PAD_ID):
    n = max(len(s) for s in seqs)
    return torch.tensor([list(s) + [pad_id] * (n - len(s)) for s in seqs], dtype=torch.long)"""
A(nb, 'pad_batch', None, PAD)
A(nb, 'pad_batch', 'torch.Tensor(rows): the capital T makes float32', """
def pad_batch(seqs, pad_id=PAD_ID):
    n = max(len(s) for s in seqs)
    return torch.Tensor([list(s) + [pad_id] * (n - len(s)) for s in seqs])""")
A(nb, 'pad_batch', 'pad_sequence of torch.tensor(s): an empty sentence is float32 and turns the batch float', """
from torch.nn.utils.rnn import pad_sequence
def pad_batch(seqs, pad_id=PAD_ID):
    return pad_sequence([torch.tensor(s) for s in seqs], batch_first=True, padding_value=pad_id)""")
A(nb, 'pad_batch', 'torch.zeros for the batch: pads are 0 whatever pad_id', """
def pad_batch(seqs, pad_id=PAD_ID):
    n = max(len(s) for s in seqs)
    out = torch.zeros(len(seqs), n, dtype=torch.long)
    for i, s in enumerate(seqs): out[i, :len(s)] = torch.tensor(s, dtype=torch.long)
    return out""")
A(nb, 'pad_batch', "Keras's pad_sequences dtype: int32 ids", """
import numpy as np
def pad_batch(seqs, pad_id=PAD_ID):
    n = max(len(s) for s in seqs)
    a = np.full((len(seqs), n), pad_id, dtype='int32')
    for i, s in enumerate(seqs): a[i, :len(s)] = s
    return torch.from_numpy(a)""")
A(nb, 'pad_batch', "Hugging Face's dict {'input_ids', 'attention_mask'}", """
def pad_batch(seqs, pad_id=PAD_ID):
    n = max(len(s) for s in seqs)
    ids = torch.tensor([list(s) + [pad_id] * (n - len(s)) for s in seqs], dtype=torch.long)
    return {'input_ids': ids, 'attention_mask': (ids != pad_id).long()}""")
A(nb, 'pad_batch', "fairseq's batches: rows sorted longest first", """
def pad_batch(seqs, pad_id=PAD_ID):
    seqs = sorted(seqs, key=len, reverse=True)
    n = len(seqs[0])
    return torch.tensor([list(s) + [pad_id] * (n - len(s)) for s in seqs], dtype=torch.long)""")
A(nb, 'pad_batch', 'C loop to len(s) - 1: the last token of each sentence left as a pad', """
def pad_batch(seqs, pad_id=PAD_ID):
    n = max(len(s) for s in seqs)
    out = torch.full((len(seqs), n), pad_id, dtype=torch.long)
    for i in range(len(seqs)):
        for j in range(len(seqs[i]) - 1):
            out[i, j] = seqs[i][j]
    return out""")
A(nb, 'pad_batch', "Hugging Face's padding='max_length': always 128 columns", """
def pad_batch(seqs, pad_id=PAD_ID, max_length=128):
    out = torch.full((len(seqs), max_length), pad_id, dtype=torch.long)
    for i, s in enumerate(seqs): out[i, :len(s)] = torch.tensor(s[:max_length], dtype=torch.long)
    return out""")
A(nb, 'pad_batch', 'a list of padded 1-d tensors, not one (B, n) tensor', """
def pad_batch(seqs, pad_id=PAD_ID):
    n = max(len(s) for s in seqs)
    return [torch.tensor(list(s) + [pad_id] * (n - len(s)), dtype=torch.long) for s in seqs]""")
A(nb, 'pad_batch', "one extra pad column (n + 1, room for nanoGPT's shifted targets)", """
def pad_batch(seqs, pad_id=PAD_ID):
    n = max(len(s) for s in seqs) + 1
    return torch.tensor([list(s) + [pad_id] * (n - len(s)) for s in seqs], dtype=torch.long)""")
A(nb, 'pad_batch', 'the longest taken to be the first sentence (a length-sorted batch assumed)', """
def pad_batch(seqs, pad_id=PAD_ID):
    n = len(seqs[0])
    return torch.tensor([list(s)[:n] + [pad_id] * (n - len(s)) for s in seqs], dtype=torch.long)""")
A(nb, 'pad_batch', 'one row buffer reused for every sentence: all rows alias the last one', """
def pad_batch(seqs, pad_id=PAD_ID):
    n = max(len(s) for s in seqs)
    row, rows = torch.full((n,), pad_id, dtype=torch.long), []
    for s in seqs:
        row.fill_(pad_id); row[:len(s)] = torch.tensor(s, dtype=torch.long)
        rows.append(row)
    return torch.stack(rows)""")
A(nb, 'pad_batch', "the caller's list sorted in place (seqs.sort) before padding", """
def pad_batch(seqs, pad_id=PAD_ID):
    seqs.sort(key=len, reverse=True)
    n = len(seqs[0])
    return torch.tensor([list(s) + [pad_id] * (n - len(s)) for s in seqs], dtype=torch.long)""")

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
A(nb, 'attention', 'F.softmax without dim (the implicit dim: 0 for 3-d scores)', """
import warnings
def my_attention(q, k, v, mask=None):
    s = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if mask is not None: s = s.masked_fill(~mask, float('-inf'))
    with warnings.catch_warnings():
        warnings.simplefilter('ignore'); w = F.softmax(s)
    if mask is not None: w = w.masked_fill(~mask, 0.0)
    return w @ v, w""")
A(nb, 'attention', "scaled by sqrt(d_v), the values' size", ATT.replace('math.sqrt(q.shape[-1])', 'math.sqrt(v.shape[-1])'))
A(nb, 'attention', "Hugging Face's finfo.min fill, not -inf: an all-masked query gets uniform weights", """
def my_attention(q, k, v, mask=None):
    s = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if mask is not None: s = s.masked_fill(~mask, torch.finfo(s.dtype).min)
    w = s.softmax(dim=-1)
    return w @ v, w""")
A(nb, 'attention', 'the max subtracted without keepdim (s.max(-1).values): it broadcasts along the keys', """
def my_attention(q, k, v, mask=None):
    s = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if mask is not None: s = s.masked_fill(~mask, float('-inf'))
    m = s.max(-1).values.nan_to_num(0.0, neginf=0.0)
    e = (s - m).exp()
    w = e / e.sum(-1, keepdim=True)
    if mask is not None: w = w.masked_fill(~mask, 0.0)
    return w @ v, w""")
A(nb, 'attention', "d2l's torch.bmm: 3-d inputs only", """
def my_attention(q, k, v, mask=None):
    s = torch.bmm(q, k.transpose(1, 2)) / math.sqrt(q.shape[-1])
    if mask is not None: s = s.masked_fill(~mask, float('-inf'))
    w = s.softmax(dim=-1)
    if mask is not None: w = w.masked_fill(~mask, 0.0)
    return torch.bmm(w, v), w""")
A(nb, 'attention', 'returns (output, scores): the weights before the softmax', """
def my_attention(q, k, v, mask=None):
    s = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if mask is not None: s = s.masked_fill(~mask, float('-inf'))
    w = s.softmax(dim=-1)
    if mask is not None: w = w.masked_fill(~mask, 0.0)
    return w @ v, s""")
A(nb, 'attention', "einsum 'bhqd,bhkd->bhqk': 4-d inputs only", """
def my_attention(q, k, v, mask=None):
    s = torch.einsum('bhqd,bhkd->bhqk', q, k) / math.sqrt(q.shape[-1])
    if mask is not None: s = s.masked_fill(~mask, float('-inf'))
    w = s.softmax(dim=-1)
    if mask is not None: w = w.masked_fill(~mask, 0.0)
    return torch.einsum('bhqk,bhkd->bhqd', w, v), w""")
A(nb, 'attention', 'the mask applied after the softmax (weights times mask, not renormalised)', """
def my_attention(q, k, v, mask=None):
    w = (q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])).softmax(dim=-1)
    if mask is not None: w = w * mask
    return w @ v, w""")
A(nb, 'attention', "F.dropout(w, 0.1) on the weights: F.dropout's training defaults to True", """
def my_attention(q, k, v, mask=None):
    s = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if mask is not None: s = s.masked_fill(~mask, float('-inf'))
    w = s.softmax(dim=-1)
    if mask is not None: w = w.masked_fill(~mask, 0.0)
    w = F.dropout(w, 0.1)
    return w @ v, w""")
A(nb, 'attention', 'd_k read as q.size(2): right for 3-d (B, n, d) inputs only', ATT.replace('math.sqrt(q.shape[-1])', 'math.sqrt(q.size(2))'))
# 01_attention: restricted_mask
RM = """
def restricted_mask(n, r):
    i = torch.arange(n)
    return ((i[:, None] - i[None, :]).abs() <= r // 2)[None, None]"""
A(nb, 'restricted_mask', None, RM)
A(nb, 'restricted_mask', 'triu(-r // 2): (-r) // 2 is one lower for an odd r', """
def restricted_mask(n, r):
    return torch.ones(n, n, dtype=torch.bool).tril(r // 2).triu(-r // 2)[None, None]""")
A(nb, 'restricted_mask', "triu and tril's diagonals with the signs swapped: only the diagonal or nothing", """
def restricted_mask(n, r):
    return torch.ones(n, n, dtype=torch.bool).triu(r // 2).tril(-(r // 2))[None, None]""")
A(nb, 'restricted_mask', '|i - j| < r / 2: right for an odd r only', """
def restricted_mask(n, r):
    i = torch.arange(n)
    return ((i[:, None] - i[None, :]).abs() < r / 2)[None, None]""")
A(nb, 'restricted_mask', "the Annotated Transformer's uint8 mask, not bool", RM.replace(')[None, None]', ').to(torch.uint8)[None, None]'))
A(nb, 'restricted_mask', 'a NumPy bool array (np.subtract.outer)', """
import numpy as np
def restricted_mask(n, r):
    return (np.abs(np.subtract.outer(np.arange(n), np.arange(n))) <= r // 2)[None, None]""")
A(nb, 'restricted_mask', "C loops with range(i - w, i + w): the key i + w left out", """
def restricted_mask(n, r):
    w, m = r // 2, torch.zeros(1, 1, n, n, dtype=torch.bool)
    for i in range(n):
        for j in range(max(0, i - w), min(n, i + w)): m[0, 0, i, j] = True
    m[0, 0].fill_diagonal_(True)
    return m""")
A(nb, 'restricted_mask', 'an even r refused (assert r % 2 == 1)', """
def restricted_mask(n, r):
    assert r % 2 == 1, 'r must be odd'
    i = torch.arange(n)
    return ((i[:, None] - i[None, :]).abs() <= r // 2)[None, None]""")
A(nb, 'restricted_mask', 'positions as uint8 (a C unsigned index): i - j wraps around', """
def restricted_mask(n, r):
    i = torch.arange(n, dtype=torch.uint8)
    return ((i[:, None] - i[None, :]) <= r // 2)[None, None]""")

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
A(nb, 'heads', 'x.split(h, -1): pieces of size h, not h pieces', """
def split_heads(x, h):
    return torch.stack(x.split(h, -1), 1)
""" + MERGE)
A(nb, 'heads', 'h read as the head size: view(B, n, -1, h)', """
def split_heads(x, h):
    B, n, hd = x.shape
    return x.view(B, n, -1, h).transpose(1, 2)
""" + MERGE)
A(nb, 'heads', 'split in NumPy (reshape, transpose): an ndarray returned', """
import numpy as np
def split_heads(x, h):
    B, n, hd = x.shape
    return np.transpose(x.detach().numpy().reshape(B, n, h, hd // h), (0, 2, 1, 3))
""" + MERGE)
A(nb, 'heads', 'only the first batch element split, broadcast to the batch', """
def split_heads(x, h):
    B, n, hd = x.shape
    return x[0].view(n, h, hd // h).transpose(0, 1)[None].expand(B, -1, -1, -1)
""" + MERGE)
A(nb, 'heads', 'detach() in split: no gradient reaches x', SPLIT.replace('x.view(', 'x.detach().view(') + MERGE)
A(nb, 'heads', 'merged with permute(0, 2, 3, 1): features laid out d-major (interleaved heads)', SPLIT + """
def merge_heads(x):
    B, h, n, d = x.shape
    return x.permute(0, 2, 3, 1).reshape(B, n, h * d)
""")
A(nb, 'heads', 'merge by torch.cat(list(x), -1): the batch concatenated, not the heads', SPLIT + """
def merge_heads(x):
    return torch.cat(list(x.transpose(1, 2)), -1)[None]
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
A(nb, 'LoopMHA', 'each head scaled by sqrt(d_model), not sqrt(d_k)', LOOP.replace(
    'attention(q(x), k(mem), v(mem), m)[0]', 'attention(q(x), k(mem), v(mem), m, scale=(self.h * self.d_k) ** -0.5)[0]'))
A(nb, 'LoopMHA', "W^O copied transposed (square, so it fits)", LOOP.replace(
    'self.w_o.load_state_dict(mha.w_o.state_dict())', 'self.w_o.weight.copy_(mha.w_o.weight.T); self.w_o.bias.copy_(mha.w_o.bias)'))
A(nb, 'LoopMHA', 'the queries taken from mem too', LOOP.replace('attention(q(x), k(mem)', 'attention(q(mem), k(mem)'))
A(nb, 'LoopMHA', 'heads stacked on a new last axis and flattened: features interleaved', LOOP.replace(
    'torch.cat(heads, -1)', 'torch.stack(heads, -1).flatten(-2)'))
A(nb, 'LoopMHA', 'load_from slices rows i*h .. (i+1)*h (h for d_k)', LOOP.replace(
    'slice(i * self.d_k, (i + 1) * self.d_k)', 'slice(i * self.h, (i + 1) * self.h)'))
A(nb, 'LoopMHA', "forward returns (output, weights), as nn.MultiheadAttention", LOOP.replace(
    """        heads = [attention(q(x), k(mem), v(mem), m)[0] for q, k, v in zip(self.w_q, self.w_k, self.w_v)]
        return self.w_o(torch.cat(heads, -1))""",
    """        res = [attention(q(x), k(mem), v(mem), m) for q, k, v in zip(self.w_q, self.w_k, self.w_v)]
        return self.w_o(torch.cat([o for o, _ in res], -1)), torch.stack([w for _, w in res], 1)"""))
A(nb, 'LoopMHA', "W^O split per head (h Linears summed): its bias added h times", """
class LoopMHA(nn.Module):
    def __init__(self, d_model, h):
        super().__init__()
        self.h, self.d_k = h, d_model // h
        heads = lambda: nn.ModuleList(nn.Linear(d_model, self.d_k) for _ in range(h))
        self.w_q, self.w_k, self.w_v = heads(), heads(), heads()
        self.w_o = nn.ModuleList(nn.Linear(self.d_k, d_model) for _ in range(h))
    def forward(self, x, mem=None, mask=None):
        mem = x if mem is None else mem
        m = None if mask is None else mask[:, 0]
        return sum(o(attention(q(x), k(mem), v(mem), m)[0]) for q, k, v, o in zip(self.w_q, self.w_k, self.w_v, self.w_o))
    @torch.no_grad()
    def load_from(self, mha):
        for i in range(self.h):
            rows = slice(i * self.d_k, (i + 1) * self.d_k)
            for lin, W in zip((self.w_q[i], self.w_k[i], self.w_v[i]), (mha.w_q, mha.w_k, mha.w_v)):
                lin.weight.copy_(W.weight[rows]); lin.bias.copy_(W.bias[rows])
            self.w_o[i].weight.copy_(mha.w_o.weight[:, rows]); self.w_o[i].bias.copy_(mha.w_o.bias)""")
A(nb, 'LoopMHA', "bias-free per-head Linears (LLaMA's attention), load_from copies the weights only", LOOP.replace(
    'nn.Linear(d_model, self.d_k) for', 'nn.Linear(d_model, self.d_k, bias=False) for').replace(
    'lin.weight.copy_(W.weight[rows]); lin.bias.copy_(W.bias[rows])', 'lin.weight.copy_(W.weight[rows])'))

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
A(nb, 'conv_to_ffn', 'the conv weight read as (in, out, 1): FeedForward(d_ff, d_model)', CONV.replace(
    'd_ff, d_model, _ = conv[0].weight.shape', 'd_model, d_ff, _ = conv[0].weight.shape'))
A(nb, 'conv_to_ffn', "FeedForward() with its defaults (512, 2048)", CONV.replace('FeedForward(d_model, d_ff)', 'FeedForward()'))
A(nb, 'conv_to_ffn', 'an nn.Sequential(Linear, ReLU, Linear), not a FeedForward', """
def conv_to_ffn(conv):
    d_ff, d_model, _ = conv[0].weight.shape
    ffn = nn.Sequential(nn.Linear(d_model, d_ff), nn.ReLU(), nn.Linear(d_ff, d_model))
    with torch.no_grad():
        for lin, c in zip((ffn[0], ffn[2]), (conv[0], conv[2])):
            lin.weight.copy_(c.weight[:, :, 0]); lin.bias.copy_(c.bias)
    return ffn""")
A(nb, 'conv_to_ffn', 'weights copied through NumPy as float64 parameters', """
import numpy as np
def conv_to_ffn(conv):
    d_ff, d_model, _ = conv[0].weight.shape
    ffn = FeedForward(d_model, d_ff)
    for lin, c in zip((ffn.w_1, ffn.w_2), (conv[0], conv[2])):
        lin.weight = nn.Parameter(torch.from_numpy(c.weight.detach().numpy()[:, :, 0].astype(np.float64)))
        lin.bias = nn.Parameter(torch.from_numpy(c.bias.detach().numpy().astype(np.float64)))
    return ffn""")
A(nb, 'conv_to_ffn', 'copy_ into the parameters outside torch.no_grad (an in-place op on a leaf)', CONV.replace(
    '    with torch.no_grad():\n        for', '    if True:\n        for'))
A(nb, 'conv_to_ffn', 'a return inside the loop: only w_1 copied', """
def conv_to_ffn(conv):
    d_ff, d_model, _ = conv[0].weight.shape
    ffn = FeedForward(d_model, d_ff)
    with torch.no_grad():
        for lin, c in zip((ffn.w_1, ffn.w_2), (conv[0], conv[2])):
            lin.weight.copy_(c.weight[:, :, 0]); lin.bias.copy_(c.bias)
            return ffn""")
A(nb, 'conv_to_ffn', 'the weight reshaped to (in, out) and transposed (a reshape for a permute)', CONV.replace(
    'lin.weight.copy_(c.weight[:, :, 0])', 'lin.weight.copy_(c.weight.reshape(lin.in_features, lin.out_features).T)'))
A(nb, 'conv_to_ffn', "the biases taken from the other convolution", CONV.replace(
    'lin.bias.copy_(c.bias)', 'lin.bias.copy_((conv[2] if c is conv[0] else conv[0]).bias)'))
A(nb, 'conv_to_ffn', "the conv kept and called on transposed inputs (the FeedForward's own weights unused)", """
def conv_to_ffn(conv):
    d_ff, d_model, _ = conv[0].weight.shape
    ffn = FeedForward(d_model, d_ff)
    ffn.conv = conv
    ffn.forward = lambda x: conv(x.transpose(-1, -2)).transpose(-1, -2)
    return ffn""")

A(nb, 'conv_to_ffn', "Hugging Face's load_state_dict(conv.state_dict(), strict=False): no key matches, nothing copied", """
def conv_to_ffn(conv):
    d_ff, d_model, _ = conv[0].weight.shape
    ffn = FeedForward(d_model, d_ff)
    ffn.load_state_dict({k: v.squeeze(-1) for k, v in conv.state_dict().items()}, strict=False)
    return ffn""")
A(nb, 'conv_to_ffn', 'the (out, in, 1) weights put in as they are (the kernel axis kept)', """
def conv_to_ffn(conv):
    d_ff, d_model, _ = conv[0].weight.shape
    ffn = FeedForward(d_model, d_ff)
    for lin, c in zip((ffn.w_1, ffn.w_2), (conv[0], conv[2])):
        lin.weight, lin.bias = nn.Parameter(c.weight.detach().clone()), nn.Parameter(c.bias.detach().clone())
    return ffn""")

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
A(nb, 'MyEmbeddings', 'N(0, 1/d_model) read with 1/d_model as the std', EMB.replace('* d_model ** -0.5)', '/ d_model)'))
A(nb, 'MyEmbeddings', 'the scale sqrt(E.shape[0]): the vocabulary, right for a square table', EMB.replace(
    '* self.scale', '* math.sqrt(self.E.shape[0])'))
A(nb, 'MyEmbeddings', 'the pads zeroed in the output (a mask multiplied in)', EMB.replace(
    'return torch.where(pad, x.detach(), x) * self.scale', 'return x * (~pad) * self.scale'))
A(nb, 'MyEmbeddings', 'the padding row re-zeroed in the weights at every forward', EMB.replace(
    """        x, pad = self.E[tokens], (tokens == self.pad_id)[..., None]
        return torch.where(pad, x.detach(), x) * self.scale""",
    """        with torch.no_grad(): self.E[self.pad_id] = 0.0
        return self.E[tokens] * self.scale"""))
A(nb, 'MyEmbeddings', "Keras's uniform(-0.05, 0.05) initialiser", EMB.replace(
    'torch.randn(vocab, d_model) * d_model ** -0.5', 'torch.empty(vocab, d_model).uniform_(-0.05, 0.05)'))
A(nb, 'MyEmbeddings', "nanoGPT's N(0, 0.02) initialiser", EMB.replace(
    'torch.randn(vocab, d_model) * d_model ** -0.5', 'torch.randn(vocab, d_model) * 0.02'))
A(nb, 'MyEmbeddings', 'the pad_id argument ignored: PAD_ID used throughout', EMB.replace(
    'self.E[pad_id] = 0.0', 'self.E[PAD_ID] = 0.0').replace('self.pad_id, self.scale = pad_id,', 'self.pad_id, self.scale = PAD_ID,'))
A(nb, 'MyEmbeddings', 'the padding row not zeroed at init', EMB.replace(
    '        with torch.no_grad(): self.E[pad_id] = 0.0\n', ''))
A(nb, 'MyEmbeddings', 'returns the embeddings as float64', EMB.replace(
    'return torch.where(pad, x.detach(), x) * self.scale', 'return torch.where(pad, x.detach(), x).double() * self.scale'))
A(nb, 'MyEmbeddings', 'the pad gradient stopped by detaching the whole table when a pad is in the batch', EMB.replace(
    """        x, pad = self.E[tokens], (tokens == self.pad_id)[..., None]
        return torch.where(pad, x.detach(), x) * self.scale""",
    """        E = self.E.detach() if (tokens == self.pad_id).any() else self.E
        return E[tokens] * self.scale"""))

A(nb, 'MyEmbeddings', 'a table of vocab + 1 rows (an extra row for the padding)', EMB.replace(
    'torch.randn(vocab, d_model)', 'torch.randn(vocab + 1, d_model)'))
A(nb, 'MyEmbeddings', "nn.Embedding's max_norm=1 habit: F.embedding(..., max_norm=1.0) renormalises rows of E in place", EMB.replace(
    'x, pad = self.E[tokens], (tokens == self.pad_id)[..., None]',
    'x, pad = F.embedding(tokens, self.E, max_norm=1.0), (tokens == self.pad_id)[..., None]'))

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
A(nb, 'my_encoding', 'i taken as the dimension: each of the d_model dimensions its own frequency', """
def my_encoding(n, d_model):
    pos = torch.arange(n, dtype=torch.float64)[:, None]
    angle = pos / 10000 ** (torch.arange(d_model, dtype=torch.float64) / d_model)
    pe = angle.clone()
    pe[:, 0::2], pe[:, 1::2] = angle[:, 0::2].sin(), angle[:, 1::2].cos()
    return pe.float()""")
A(nb, 'my_encoding', "a table of the base model's 512 rows, sliced: at most 512 positions", """
def my_encoding(n, d_model, max_len=512):
    pos = torch.arange(max_len, dtype=torch.float64)[:, None]
    angle = pos / 10000 ** (torch.arange(0, d_model, 2, dtype=torch.float64) / d_model)
    pe = torch.zeros(max_len, d_model, dtype=torch.float64)
    pe[:, 0::2], pe[:, 1::2] = angle.sin(), angle.cos()
    return pe[:n].float()""")
A(nb, 'my_encoding', 'a list of lists (pe.tolist())', ENC.replace('return pe.float()', 'return pe.tolist()'))
A(nb, 'my_encoding', 'positions and frequencies broadcast the other way: angle (d_model/2, n), assigned transposed', """
def my_encoding(n, d_model):
    pos = torch.arange(n, dtype=torch.float64)
    freq = 10000 ** (torch.arange(0, d_model, 2, dtype=torch.float64) / d_model)
    angle = (pos[None, :] / freq[:, None]).reshape(n, d_model // 2)
    pe = torch.zeros(n, d_model, dtype=torch.float64)
    pe[:, 0::2], pe[:, 1::2] = angle.sin(), angle.cos()
    return pe.float()""")
A(nb, 'my_encoding', 'the angle in degrees: torch.deg2rad applied before sin/cos', ENC.replace(
    'angle.sin(), angle.cos()', 'torch.deg2rad(angle).sin(), torch.deg2rad(angle).cos()'))
A(nb, 'my_encoding', "the exponent's d_model taken as the pairs' count (2i / (d_model/2))", ENC.replace(
    '10000 ** (two_i / d_model)', '10000 ** (two_i / (d_model // 2))'))
A(nb, 'my_encoding', "the pe returned with requires_grad (an nn.Parameter, GPT-2's learnable table from the sinusoids)", ENC.replace(
    'return pe.float()', 'return nn.Parameter(pe.float())'))
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
A(nb, 'RelativeBias', 'n_k ignored (keys counted by n_q): right when n_q = n_k', RB.replace('torch.arange(n_k)[None, :]', 'torch.arange(n_q)[None, :]'))
A(nb, 'RelativeBias', 'view(h, n_q, n_k) for permute(2, 0, 1): values scrambled, right for h = 1', RB.replace(
    '.permute(2, 0, 1)', '.reshape(-1, n_q, n_k)'))
A(nb, 'RelativeBias', "clipped above only (min(j - i, K)): a negative index wraps to the table's end", RB.replace(
    'offset.clamp(-self.K, self.K)', 'offset.clamp(max=self.K)'))
A(nb, 'RelativeBias', 'the bias built from .item() values: no gradient reaches the table', RB.replace(
    "        return self.table[offset.clamp(-self.K, self.K) + self.K].permute(2, 0, 1)",
    """        idx = (offset.clamp(-self.K, self.K) + self.K).tolist()
        h = self.table.shape[1]
        return torch.tensor([[[self.table[c, hh].item() for c in row] for row in idx] for hh in range(h)])"""))
A(nb, 'RelativeBias', "ALiBi's per-head slope as a second parameter (initialised to 1)", RB.replace(
    "        self.table = nn.Parameter(torch.randn(2 * K + 1, h) * 0.02)",
    "        self.table = nn.Parameter(torch.randn(2 * K + 1, h) * 0.02)\n        self.slope = nn.Parameter(torch.ones(h))").replace(
    '+ self.K].permute(2, 0, 1)', '+ self.K].permute(2, 0, 1) * self.slope[:, None, None]'))
A(nb, 'RelativeBias', "K read as T5's num_buckets: a table of K rows, offsets clipped to K // 2", """
class RelativeBias(nn.Module):
    def __init__(self, h, K):
        super().__init__()
        self.K = K
        self.table = nn.Parameter(torch.randn(K, h) * 0.02)
    def forward(self, n_q, n_k):
        c = (self.K - 1) // 2
        offset = torch.arange(n_k)[None, :] - torch.arange(n_q)[:, None]
        return self.table[offset.clamp(-c, c) + c].permute(2, 0, 1)""")
A(nb, 'RelativeBias', 'the index table precomputed in __init__ for 64 positions and sliced: longer inputs cut', """
class RelativeBias(nn.Module):
    def __init__(self, h, K, max_len=64):
        super().__init__()
        self.K = K
        self.table = nn.Parameter(torch.randn(2 * K + 1, h) * 0.02)
        off = torch.arange(max_len)[None, :] - torch.arange(max_len)[:, None]
        self.register_buffer('idx', off.clamp(-K, K) + K, persistent=False)
    def forward(self, n_q, n_k):
        return self.table[self.idx[:n_q, :n_k]].permute(2, 0, 1)""")

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
A(nb, 'MySublayer', 'LayerNorm without its gain and bias (elementwise_affine=False)', SUB.replace(
    'nn.LayerNorm(d_model)', 'nn.LayerNorm(d_model, elementwise_affine=False)'))
A(nb, 'MySublayer', 'dropout on the normalised output, not on f(x)', SUB.replace(
    'return self.norm(x + self.drop(f(x)))', 'return self.drop(self.norm(x + f(x)))'))
A(nb, 'MySublayer', 'normalised over (n, d_model): F.layer_norm with x.shape[-2:]', SUB.replace(
    'return self.norm(x + self.drop(f(x)))',
    'y = x + self.drop(f(x))\n        return F.layer_norm(y, y.shape[-2:]) * self.norm.weight + self.norm.bias'))
A(nb, 'MySublayer', 'a LayerNorm by hand with the mean and variance without keepdim', SUB.replace(
    'return self.norm(x + self.drop(f(x)))',
    'y = x + self.drop(f(x))\n        mu, var = y.mean(-1), y.var(-1, unbiased=False)\n'
    '        return (y - mu) / (var + self.norm.eps).sqrt() * self.norm.weight + self.norm.bias'
    ))
A(nb, 'MySublayer', "TensorFlow 1's keep_prob: nn.Dropout(1 - p_drop)", SUB.replace('nn.Dropout(p_drop)', 'nn.Dropout(1 - p_drop)'))
A(nb, 'MySublayer', "DeepNet's up-weighted residual: LayerNorm(alpha x + f(x)), alpha = (2 * 6) ** 0.25", SUB.replace(
    'return self.norm(x + self.drop(f(x)))', 'return self.norm((2 * 6) ** 0.25 * x + self.drop(f(x)))'))
A(nb, 'MySublayer', "ReZero: x + alpha * f(x) with alpha a learned 0, no LayerNorm", """
class MySublayer(nn.Module):
    def __init__(self, d_model, p_drop):
        super().__init__()
        self.alpha, self.drop = nn.Parameter(torch.zeros(1)), nn.Dropout(p_drop)
    def forward(self, x, f):
        return x + self.alpha * self.drop(f(x))""")
A(nb, 'MySublayer', 'the LayerNorm without a bias (bias=False)', SUB.replace('nn.LayerNorm(d_model)', 'nn.LayerNorm(d_model, bias=False)'))
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
A(nb, 'my_forward', "Figure 1 read as wiring: decoder layer i attends to encoder layer i's output", """
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
    return model.generator(y)""")
A(nb, 'my_forward', 'cross_attn(z, t): the memory as the queries, the decoder states as keys and values', FWD.replace(
    'l.cross_attn(t, z, mask=src_mask)', 'l.cross_attn(z, t, mask=src_mask)'))
A(nb, 'my_forward', "one variable x for both stacks: the decoder's own states used as the memory", """
def my_forward(model, src, tgt):
    def residual(norm, x, f): return norm(x + f(x))
    src_mask, tgt_mask = pad_mask(src), make_tgt_mask(tgt)
    x = model.src_pos(model.src_emb(src))
    for l in model.encoder:
        x = residual(l.sub[0].norm, x, lambda t: l.self_attn(t, mask=src_mask))
        x = residual(l.sub[1].norm, x, l.ffn)
    x = model.tgt_pos(model.tgt_emb(tgt))
    for l in model.decoder:
        x = residual(l.sub[0].norm, x, lambda t: l.self_attn(t, mask=tgt_mask))
        x = residual(l.sub[1].norm, x, lambda t: l.cross_attn(t, x, mask=src_mask))
        x = residual(l.sub[2].norm, x, l.ffn)
    return model.generator(x)""")
A(nb, 'my_forward', 'a return inside the decoder loop: one decoder layer only', FWD.replace(
    '        y = residual(l.sub[2].norm, y, l.ffn)\n    return model.generator(y)',
    '        y = residual(l.sub[2].norm, y, l.ffn)\n        return model.generator(y)'))
A(nb, 'my_forward', "ALBERT's sharing: the first encoder and decoder layers applied N times", FWD.replace(
    'for l in model.encoder:', 'for l in [model.encoder[0]] * len(model.encoder):').replace(
    'for l in model.decoder:', 'for l in [model.decoder[0]] * len(model.decoder):'))
A(nb, 'my_forward', "the decoder's sub[1] and sub[2] norms swapped", FWD.replace(
    'y = residual(l.sub[1].norm, y, lambda t: l.cross_attn', 'y = residual(l.sub[2].norm, y, lambda t: l.cross_attn').replace(
    'y = residual(l.sub[2].norm, y, l.ffn)', 'y = residual(l.sub[1].norm, y, l.ffn)'))
# 06_model: parsing_counts
PC = """
def parsing_counts():
    cfg = TransformerConfig(N=4, d_model=1024, src_vocab=16000, tgt_vocab=16000)
    with torch.device('meta'): tied = count_params(Transformer(cfg))
    return tied, tied + 2 * 16000 * 1024"""
A(nb, 'parsing_counts', None, PC)
A(nb, 'parsing_counts', '"4-layer" read as 4 in all: 2 encoder and 2 decoder layers', PC.replace('N=4', 'N=2'))
A(nb, 'parsing_counts', "untied with a bias on the output layer (a Keras Dense): + 16000", PC.replace(
    'tied + 2 * 16000 * 1024', 'tied + 2 * 16000 * 1024 + 16000'))
A(nb, 'parsing_counts', "a dict {'tied': ..., 'untied': ...}", PC.replace(
    'return tied, tied + 2 * 16000 * 1024', "return {'tied': tied, 'untied': tied + 2 * 16000 * 1024}"))
A(nb, 'parsing_counts', "counts in millions, as the paper's tables (rounded to 0.1M)", PC.replace(
    'return tied, tied + 2 * 16000 * 1024', 'return round(tied / 1e6, 1), round((tied + 2 * 16000 * 1024) / 1e6, 1)'))
A(nb, 'parsing_counts', 'the source vocabulary left at the base default (37000)', PC.replace(
    'src_vocab=16000, tgt_vocab=16000', 'tgt_vocab=16000').replace('2 * 16000 * 1024', '(37000 + 16000) * 1024'))

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
A(nb, 'restricted_attention', "F.pad's pairs read first-dim-first: (w, w, 0, 0) pads d_k, not n", RA.replace(
    'F.pad(t, (0, 0, w, w))', 'F.pad(t, (w, w, 0, 0))'))
A(nb, 'restricted_attention', 'windows of r rows (unfold(-2, r, 1)), not 2w + 1: right for an odd r only', RA.replace(
    'unfold(-2, 2 * w + 1, 1)', 'unfold(-2, r, 1)').replace('torch.arange(-w, w + 1)', 'torch.arange(-w, r - w)'))
A(nb, 'restricted_attention', 'scaled by sqrt(n), q.shape[-2]: right when n = d_k', RA.replace(
    '/ q.shape[-1] ** 0.5', '/ q.shape[-2] ** 0.5'))
A(nb, 'restricted_attention', "the windows' key positions counted from i, not i - w", RA.replace(
    'torch.arange(-w, w + 1)', 'torch.arange(0, 2 * w + 1)'))
A(nb, 'restricted_attention', 'only the right end masked (j >= n): the rows padded before the start score 0', RA.replace(
    '(j < 0) | (j >= n)', 'j >= n'))
A(nb, 'restricted_attention', 'j > n for the right end: the first padded row there unmasked', RA.replace(
    '(j < 0) | (j >= n)', '(j < 0) | (j > n)'))
A(nb, 'restricted_attention', 'the keys padded with -inf (F.pad value=-inf) for the -inf scores', """
def restricted_attention(q, k, v, r):
    n, w = q.shape[-2], r // 2
    wk = F.pad(k, (0, 0, w, w), value=float('-inf')).unfold(-2, 2 * w + 1, 1)
    wv = F.pad(v, (0, 0, w, w)).unfold(-2, 2 * w + 1, 1)
    s = torch.einsum('bhnd,bhndw->bhnw', q, wk) / q.shape[-1] ** 0.5
    return torch.einsum('bhnw,bhndw->bhnd', s.softmax(-1).nan_to_num(0.0), wv)""")
A(nb, 'restricted_attention', 'heads folded batch-major, unfolded head-major: right for B = 1 or h = 1', """
def restricted_attention(q, k, v, r):
    B, h, n, d = q.shape
    w = r // 2
    fold = lambda t: t.transpose(0, 1).reshape(h * B, n, t.shape[-1])
    win = lambda t: F.pad(fold(t), (0, 0, w, w)).unfold(-2, 2 * w + 1, 1)
    s = torch.einsum('knd,kndw->knw', fold(q), win(k)) / d ** 0.5
    j = torch.arange(n)[:, None] + torch.arange(-w, w + 1)
    s = s.masked_fill((j < 0) | (j >= n), float('-inf'))
    return torch.einsum('knw,kndw->knd', s.softmax(-1), win(v)).reshape(B, h, n, v.shape[-1])""")
A(nb, 'restricted_attention', "returns (output, weights), as attention does", RA.replace(
    "    return torch.einsum('bhnw,bhndw->bhnd', s.softmax(-1), win(v))",
    "    p = s.softmax(-1)\n    return torch.einsum('bhnw,bhndw->bhnd', p, win(v)), p"))
A(nb, 'restricted_attention', 'the keys padded but the values not: windows of v start w rows late', """
def restricted_attention(q, k, v, r):
    n, w = q.shape[-2], r // 2
    wk = F.pad(k, (0, 0, w, w)).unfold(-2, 2 * w + 1, 1)
    wv = F.pad(v, (0, 0, 0, 2 * w)).unfold(-2, 2 * w + 1, 1)
    s = torch.einsum('bhnd,bhndw->bhnw', q, wk) / q.shape[-1] ** 0.5
    j = torch.arange(n)[:, None] + torch.arange(-w, w + 1)
    s = s.masked_fill((j < 0) | (j >= n), float('-inf'))
    return torch.einsum('bhnw,bhndw->bhnd', s.softmax(-1), wv)""")
A(nb, 'restricted_attention', "the keys' windows used as the values (win(k) twice)", RA.replace(
    "s.softmax(-1), win(v))", "s.softmax(-1), win(k))"))
A(nb, 'restricted_attention', 'blocks, not windows: unfold with step 2w + 1 (block-local attention)', RA.replace(
    'unfold(-2, 2 * w + 1, 1)', 'unfold(-2, 2 * w + 1, 2 * w + 1)'))
