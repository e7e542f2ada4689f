"""The thirty-sixth blind set's answers, for the notebooks 00_core to 03_ffn only, written from the exercises' text
alone: (notebook, exercise, mistake, code), the mistake None for the right answer.
`experiments/blind_answers.py 36` runs them. This set goes where the earlier sets for these notebooks did not: state
kept across calls (a mutable default, a scale computed once, a memory's keys cached, the caller's mask inverted in
place, the caller's tensor transposed in place), answers that raise in the learner's own code (a float head size,
`1 - mask` on a bool, a mask required, Python's precedence of `&`, `super().__init__()` too late, the Annotated
Transformer's `(h, d_model)` and `forward(query, key, value, mask)`), real ids turned into pads, ids above 2**24
through float32, a width bucketed to a power of two, a 1-based index, cosine attention, Evan Miller's softmax_1,
Keras's implicit zero-vector padding, a max taken over the whole tensor, NaN from `0 * -inf`, a layer that adds its
own residual, LayerNorm, ReLU or dropout, ReLU dropout in the FeedForward, a FeedForward built under
`torch.inference_mode()`, biases or the input stack frozen, and bfloat16 weights."""
ANSWERS = []
def A(nb, ex, mistake, code): ANSWERS.append((nb, ex, mistake, code))

# ---------------------------------------------------------------- 00_core: pad_batch
nb = '00_core'
A(nb, 'pad_batch', None, """
def pad_batch(seqs, pad_id=PAD_ID):
    n = max(len(s) for s in seqs)
    return torch.tensor([list(s) + [pad_id] * (n - len(s)) for s in seqs], dtype=torch.long)
""")
A(nb, 'pad_batch', None, """
def pad_batch(seqs, pad_id=PAD_ID):
    n = max(map(len, seqs))
    out = torch.full((len(seqs), n), pad_id, dtype=torch.long)
    for i, s in enumerate(seqs): out[i, :len(s)] = torch.tensor(s, dtype=torch.long)
    return out
""")
A(nb, 'pad_batch', 'a zeros batch, then every 0 turned into pad_id: a real id 0 inside a sentence becomes a pad', """
def pad_batch(seqs, pad_id=PAD_ID):
    n = max(len(s) for s in seqs)
    out = torch.zeros(len(seqs), n, dtype=torch.long)
    for i, s in enumerate(seqs): out[i, :len(s)] = torch.tensor(s, dtype=torch.long)
    out[out == 0] = pad_id          # the empty places are the zeros
    return out
""")
A(nb, 'pad_batch', "the rows gathered in a mutable default list: a second call returns the first call's rows too", """
def pad_batch(seqs, pad_id=PAD_ID, rows=[]):
    n = max(len(s) for s in seqs)
    for s in seqs: rows.append(s + [pad_id] * (n - len(s)))
    return torch.tensor(rows, dtype=torch.long)
""")
A(nb, 'pad_batch', 'a float32 batch filled, then .long(): ids above 2**24 rounded', """
def pad_batch(seqs, pad_id=PAD_ID):
    n = max(len(s) for s in seqs)
    out = torch.full((len(seqs), n), float(pad_id))
    for i, s in enumerate(seqs): out[i, :len(s)] = torch.tensor(s, dtype=torch.float)
    return out.long()               # ids are integers
""")
A(nb, 'pad_batch', 'the width rounded up to a power of two (length bucketing)', """
def pad_batch(seqs, pad_id=PAD_ID):
    n = max(len(s) for s in seqs)
    n = 1 << (n - 1).bit_length() if n > 1 else n     # a bucket of 1, 2, 4, 8, ... columns
    return torch.tensor([s + [pad_id] * (n - len(s)) for s in seqs], dtype=torch.long)
""")
A(nb, 'pad_batch', 'int8 ids (.char()): ids above 127 wrap', """
def pad_batch(seqs, pad_id=PAD_ID):
    n = max(len(s) for s in seqs)
    return torch.tensor([s + [pad_id] * (n - len(s)) for s in seqs]).char()   # small ids, small dtype
""")
A(nb, 'pad_batch', 'the sentences as separate arguments (def pad_batch(*seqs, pad_id=PAD_ID))', """
def pad_batch(*seqs, pad_id=PAD_ID):
    n = max(len(s) for s in seqs)
    return torch.tensor([list(s) + [pad_id] * (n - len(s)) for s in seqs], dtype=torch.long)
""")
A(nb, 'pad_batch', 'trailing ids equal to pad_id stripped before padding: a sentence ending in that id shortened', """
def pad_batch(seqs, pad_id=PAD_ID):
    rows = []
    for s in seqs:
        s = list(s)
        while s and s[-1] == pad_id: s = s[:-1]     # an already padded sentence: its pads off first
        rows.append(s)
    n = max(len(s) for s in rows)
    return torch.tensor([s + [pad_id] * (n - len(s)) for s in rows], dtype=torch.long)
""")
A(nb, 'pad_batch', 'the width from sentences 1 .. B-1 (a 1-based habit): a longest first sentence cut', """
def pad_batch(seqs, pad_id=PAD_ID):
    n = max([len(seqs[i]) for i in range(1, len(seqs))] or [len(seqs[0])])
    return torch.tensor([(s + [pad_id] * (n - len(s)))[:n] for s in seqs], dtype=torch.long)
""")
A(nb, 'pad_batch', 'at least one column (max(1, longest)): an all-empty batch gets a pad column', """
def pad_batch(seqs, pad_id=PAD_ID):
    n = max(1, max(len(s) for s in seqs))     # never a batch of width 0
    return torch.tensor([s + [pad_id] * (n - len(s)) for s in seqs], dtype=torch.long)
""")
A(nb, 'pad_batch', "np.resize to the width: a short sentence filled by repeating its own ids, not pad_id", """
import numpy as np
def pad_batch(seqs, pad_id=PAD_ID):
    n = max(len(s) for s in seqs)
    return torch.tensor(np.array([np.resize(np.array(s, dtype=np.int64), n) if s else np.full(n, pad_id) for s in seqs]), dtype=torch.long)
""")
A(nb, 'pad_batch', 'a bracket closed early, s + [pad_id * (n - len(s))]: one item appended, worth pad_id times the gap', """
def pad_batch(seqs, pad_id=PAD_ID):
    n = max(len(s) for s in seqs)
    return torch.tensor([s + [pad_id * (n - len(s))] for s in seqs], dtype=torch.long)
""")

# ---------------------------------------------------------------- 01_attention: my_attention
nb = '01_attention'
A(nb, 'attention', None, """
def my_attention(q, k, v, mask=None):
    s = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if mask is not None: s = s.masked_fill(~mask, float('-inf'))
    w = s.softmax(dim=-1)
    if mask is not None: w = w.masked_fill(~mask, 0.0)
    return w @ v, w
""")
A(nb, 'attention', None, """
def my_attention(q, k, v, mask=None):
    s = torch.einsum('...qd,...kd->...qk', q, k) * q.shape[-1] ** -0.5
    if mask is not None: s = torch.where(mask, s, float('-inf'))
    w = torch.nan_to_num(s.softmax(-1), nan=0.0)
    return w @ v, w
""")
A(nb, 'attention', 'the zero fill keyed on mask.all, not mask.any: every row with a masked key zeroed', """
def my_attention(q, k, v, mask=None):
    s = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if mask is not None: s = s.masked_fill(~mask, float('-inf'))
    w = s.softmax(-1)
    if mask is not None: w = w.masked_fill(~mask.all(-1, keepdim=True), 0.0)   # the rows with nothing to see
    return w @ v, w
""")
A(nb, 'attention', 'the output taken before the zero fill: a fully masked query gets NaN outputs, zero weights', """
def my_attention(q, k, v, mask=None):
    s = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if mask is not None: s = s.masked_fill(~mask, float('-inf'))
    w = s.softmax(-1)
    out = w @ v
    if mask is not None: w = w.masked_fill(~mask, 0.0)
    return out, w
""")
A(nb, 'attention', 'cosine attention: q and k L2-normalised (Swin v2), no 1/sqrt(d_k)', """
def my_attention(q, k, v, mask=None):
    s = F.normalize(q, dim=-1) @ F.normalize(k, dim=-1).transpose(-2, -1)   # the scores bounded in [-1, 1]
    if mask is not None: s = s.masked_fill(~mask, float('-inf'))
    w = s.softmax(-1)
    if mask is not None: w = w.masked_fill(~mask, 0.0)
    return w @ v, w
""")
A(nb, 'attention', 'the scale computed on the first call and kept (a global): a later d_k scaled by the first', """
_scale = None
def my_attention(q, k, v, mask=None):
    global _scale
    if _scale is None: _scale = 1 / math.sqrt(q.shape[-1])     # computed once
    s = q @ k.transpose(-2, -1) * _scale
    if mask is not None: s = s.masked_fill(~mask, float('-inf'))
    w = s.softmax(-1)
    if mask is not None: w = w.masked_fill(~mask, 0.0)
    return w @ v, w
""")
A(nb, 'attention', 'mask without its default (def my_attention(q, k, v, mask))', """
def my_attention(q, k, v, mask):
    s = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if mask is not None: s = s.masked_fill(~mask, float('-inf'))
    w = s.softmax(-1)
    if mask is not None: w = w.masked_fill(~mask, 0.0)
    return w @ v, w
""")
A(nb, 'attention', "a dict {'output', 'weights'} (Hugging Face's return_dict), not the pair", """
def my_attention(q, k, v, mask=None):
    s = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if mask is not None: s = s.masked_fill(~mask, float('-inf'))
    w = s.softmax(-1)
    if mask is not None: w = w.masked_fill(~mask, 0.0)
    return {'output': w @ v, 'weights': w}
""")
A(nb, 'attention', 'sqrt(d_k) taken as a float32 tensor: float64 scores divided by a rounded scale', """
def my_attention(q, k, v, mask=None):
    s = q @ k.transpose(-2, -1) / torch.sqrt(torch.tensor(q.shape[-1], dtype=torch.float32))
    if mask is not None: s = s.masked_fill(~mask, float('-inf'))
    w = s.softmax(-1)
    if mask is not None: w = w.masked_fill(~mask, 0.0)
    return w @ v, w
""")
A(nb, 'attention', 'the mask blended as s * mask + ~mask * -inf: 0 * -inf is NaN on every allowed key', """
def my_attention(q, k, v, mask=None):
    s = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if mask is not None: s = s * mask + (~mask) * float('-inf')
    w = s.softmax(-1)
    if mask is not None: w = w.masked_fill(~mask, 0.0)
    return w @ v, w
""")
A(nb, 'attention', 'mask=None replaced by torch.ones_like(scores): a float mask that ~ refuses', """
def my_attention(q, k, v, mask=None):
    s = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if mask is None: mask = torch.ones_like(s)       # no mask: every key allowed
    s = s.masked_fill(~mask, float('-inf'))
    w = s.softmax(-1).masked_fill(~mask, 0.0)
    return w @ v, w
""")
A(nb, 'attention', 'the mask inverted with 1 - mask (a bool tensor refuses -)', """
def my_attention(q, k, v, mask=None):
    s = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if mask is not None: s = s.masked_fill(1 - mask, float('-inf'))
    w = s.softmax(-1)
    if mask is not None: w = w.masked_fill(1 - mask, 0.0)
    return w @ v, w
""")
A(nb, 'attention', 'scores against the values (q v^T), the keys unused', """
def my_attention(q, k, v, mask=None):
    s = q @ v.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if mask is not None: s = s.masked_fill(~mask, float('-inf'))
    w = s.softmax(-1)
    if mask is not None: w = w.masked_fill(~mask, 0.0)
    return w @ v, w
""")
A(nb, 'attention', "the caller's mask inverted in place (mask.logical_not_())", """
def my_attention(q, k, v, mask=None):
    s = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    hide = None if mask is None else mask.logical_not_()     # the hidden keys
    if hide is not None: s = s.masked_fill(hide, float('-inf'))
    w = s.softmax(-1)
    if hide is not None: w = w.masked_fill(hide, 0.0)
    return w @ v, w
""")
A(nb, 'attention', "Evan Miller's softmax_1 (1 added to the denominator): the rows sum below one", """
def my_attention(q, k, v, mask=None):
    s = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if mask is not None: s = s.masked_fill(~mask, float('-inf'))
    e = s.exp()
    w = e / (1 + e.sum(-1, keepdim=True))     # softmax_1: an empty row is 0/1, no NaN to clean up
    return w @ v, w
""")
A(nb, 'attention', 'q and k each divided by sqrt(d_k): the scores scaled by 1/d_k', """
def my_attention(q, k, v, mask=None):
    d = math.sqrt(q.shape[-1])
    s = (q / d) @ (k / d).transpose(-2, -1)
    if mask is not None: s = s.masked_fill(~mask, float('-inf'))
    w = s.softmax(-1)
    if mask is not None: w = w.masked_fill(~mask, 0.0)
    return w @ v, w
""")
A(nb, 'attention', 'the scores floor-divided (//) by sqrt(d_k)', """
def my_attention(q, k, v, mask=None):
    s = q @ k.transpose(-2, -1) // math.sqrt(q.shape[-1])
    if mask is not None: s = s.masked_fill(~mask, float('-inf'))
    w = s.softmax(-1)
    if mask is not None: w = w.masked_fill(~mask, 0.0)
    return w @ v, w
""")
A(nb, 'attention', 'softmax by hand with the max of the whole tensor (s.max()), not of each row: a low row underflows to 0/0', """
def my_attention(q, k, v, mask=None):
    s = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if mask is not None: s = s.masked_fill(~mask, float('-inf'))
    e = (s - s.max()).exp()                   # the max subtracted, for stability
    w = e / e.sum(-1, keepdim=True)
    if mask is not None: w = w.masked_fill(~mask, 0.0)
    return w @ v, w
""")
A(nb, 'attention', "keys equal to the zero vector masked as padding (Keras's Masking(mask_value=0.))", """
def my_attention(q, k, v, mask=None):
    s = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    real = (k != 0).any(-1)[..., None, :]              # a pad key is all zeros
    mask = real if mask is None else mask & real
    s = s.masked_fill(~mask, float('-inf'))
    w = s.softmax(-1).masked_fill(~mask, 0.0)
    return w @ v, w
""")

# ---------------------------------------------------------------- 01_attention: restricted_mask
A(nb, 'restricted_mask', None, """
def restricted_mask(n, r):
    i = torch.arange(n)
    return ((i[:, None] - i[None, :]).abs() <= r // 2)[None, None]
""")
A(nb, 'restricted_mask', 'rows filled by slices m[i, i - w : i + w + 1]: a negative start wraps, the first rows empty', """
def restricted_mask(n, r):
    w = r // 2
    m = torch.zeros(n, n, dtype=torch.bool)
    for i in range(n): m[i, i - w : i + w + 1] = True
    return m[None, None]
""")
A(nb, 'restricted_mask', 'the left end clamped at 1, not 0 (a 1-based habit): key 0 seen by no query but itself', """
def restricted_mask(n, r):
    w = r // 2
    m = torch.zeros(n, n, dtype=torch.bool)
    for i in range(n):
        m[i, i] = True
        for j in range(max(1, i - w), min(n, i + w + 1)): m[i, j] = True
    return m[None, None]
""")
A(nb, 'restricted_mask', "a global first token (Longformer's): position 0 sees and is seen by every position", """
def restricted_mask(n, r):
    i = torch.arange(n)
    m = (i[:, None] - i[None, :]).abs() <= r // 2
    m[0, :] = True; m[:, 0] = True            # the first token attends globally
    return m[None, None]
""")
A(nb, 'restricted_mask', 'the band summed from diag(k) for |k| <= r // 2: fails once r // 2 passes n', """
def restricted_mask(n, r):
    w = r // 2
    m = sum(torch.ones(n - abs(k)).diag(k) for k in range(-w, w + 1))
    return (m > 0)[None, None]
""")
A(nb, 'restricted_mask', "the two bounds joined with an unbracketed &: Python's precedence makes a chained comparison", """
def restricted_mask(n, r):
    i = torch.arange(n)
    d = i[:, None] - i[None, :]
    return (d <= r // 2 & -d <= r // 2)[None, None]
""")
A(nb, 'restricted_mask', 'None when the window covers every key (no mask needed), not a mask', """
def restricted_mask(n, r):
    if r // 2 >= n - 1: return None            # every key in reach: nothing to mask
    i = torch.arange(n)
    return ((i[:, None] - i[None, :]).abs() <= r // 2)[None, None]
""")
A(nb, 'restricted_mask', "pad_mask's [:, None, None] copied: the axes inserted after the first, (n, 1, 1, n)", """
def restricted_mask(n, r):
    i = torch.arange(n)
    return ((i[:, None] - i[None, :]).abs() <= r // 2)[:, None, None]
""")

# ---------------------------------------------------------------- 02_multihead: split_heads, merge_heads
nb = '02_multihead'
RIGHT_SPLIT = """
def split_heads(x, h):
    B, n, hd = x.shape
    return x.view(B, n, h, hd // h).transpose(1, 2)
"""
RIGHT_MERGE = """
def merge_heads(x):
    B, h, n, d = x.shape
    return x.transpose(1, 2).reshape(B, n, h * d)
"""
A(nb, 'heads', None, RIGHT_SPLIT + RIGHT_MERGE)
A(nb, 'heads', None, """
def split_heads(x, h):
    return torch.stack(x.chunk(h, dim=-1), dim=1)
def merge_heads(x):
    return torch.cat(x.unbind(1), dim=-1)
""")
A(nb, 'heads', 'split with the head size hd / h, a float: view refuses it', """
def split_heads(x, h):
    B, n, hd = x.shape
    return x.view(B, n, h, hd / h).transpose(1, 2)
""" + RIGHT_MERGE)
A(nb, 'heads', "split unpacks x.shape time-first (n, B, hd = x.shape, fairseq's T x B x C)", """
def split_heads(x, h):
    n, B, hd = x.shape
    return x.view(B, n, h, hd // h).transpose(1, 2)
""" + RIGHT_MERGE)
A(nb, 'heads', 'merge reads its sizes after the transpose: (B, n, h, d) unpacked as (B, h, n, d)', RIGHT_SPLIT + """
def merge_heads(x):
    y = x.transpose(1, 2)            # (B, n, h, d)
    B, h, n, d = y.shape
    return y.reshape(B, n, h * d)
""")
A(nb, 'heads', 'merge loops to h - 1 (a C-style bound): the last head left out', RIGHT_SPLIT + """
def merge_heads(x):
    return torch.cat([x[:, i] for i in range(x.shape[1] - 1)], dim=-1)
""")
A(nb, 'heads', 'split slices i*d : (i+1)*d - 1 (the inclusive end read as a stop): each head one feature short', """
def split_heads(x, h):
    d = x.shape[-1] // h
    return torch.stack([x[..., i * d:(i + 1) * d - 1] for i in range(h)], dim=1)
""" + RIGHT_MERGE)
A(nb, 'heads', 'merge casts to float32 (.float())', RIGHT_SPLIT + """
def merge_heads(x):
    B, h, n, d = x.shape
    return x.transpose(1, 2).reshape(B, n, h * d).float()
""")
A(nb, 'heads', 'merge through x.data: the graph cut, no gradient back to the heads', RIGHT_SPLIT + """
def merge_heads(x):
    B, h, n, d = x.shape
    return x.data.transpose(1, 2).reshape(B, n, h * d)
""")
A(nb, 'heads', 'merge ends with .squeeze(): a batch of one or a single position loses its axis', RIGHT_SPLIT + """
def merge_heads(x):
    B, h, n, d = x.shape
    return x.transpose(1, 2).reshape(B, n, h * d).squeeze()
""")
A(nb, 'heads', "split pre-scales the heads by d ** -0.5 (fairseq's query scaling)", """
def split_heads(x, h):
    B, n, hd = x.shape
    d = hd // h
    return x.view(B, n, h, d).transpose(1, 2) * d ** -0.5     # the 1/sqrt(d_k), done once here
""" + RIGHT_MERGE)
A(nb, 'heads', "merge transposes the caller's tensor in place (transpose_)", RIGHT_SPLIT + """
def merge_heads(x):
    B, h, n, d = x.shape
    return x.transpose_(1, 2).reshape(B, n, h * d)
""")

# ---------------------------------------------------------------- 02_multihead: LoopMHA
INIT = """
    def __init__(self, d_model, h):
        super().__init__()
        self.h, self.d_k = h, d_model // h
        heads = lambda: nn.ModuleList(nn.Linear(d_model, self.d_k) for _ in range(h))
        self.w_q, self.w_k, self.w_v = heads(), heads(), heads()
        self.w_o = nn.Linear(h * self.d_k, d_model)
"""
FORWARD = """
    def forward(self, x, mem=None, mask=None):
        mem = x if mem is None else mem
        m = None if mask is None else mask[:, 0]
        heads = [attention(wq(x), wk(mem), wv(mem), m)[0] for wq, wk, wv in zip(self.w_q, self.w_k, self.w_v)]
        return self.w_o(torch.cat(heads, -1))
"""
LOAD = """
    @torch.no_grad()
    def load_from(self, mha):
        for i in range(self.h):
            rows = slice(i * self.d_k, (i + 1) * self.d_k)
            for lin, W in zip((self.w_q[i], self.w_k[i], self.w_v[i]), (mha.w_q, mha.w_k, mha.w_v)):
                lin.weight.copy_(W.weight[rows]); lin.bias.copy_(W.bias[rows])
        self.w_o.load_state_dict(mha.w_o.state_dict())
"""
HEAD = "\nclass LoopMHA(nn.Module):"
A(nb, 'LoopMHA', None, HEAD + INIT + FORWARD + LOAD)
A(nb, 'LoopMHA', None, HEAD + INIT + """
    def forward(self, x, mem=None, mask=None):
        mem = x if mem is None else mem
        out = []
        for i in range(self.h):
            q, k, v = self.w_q[i](x), self.w_k[i](mem), self.w_v[i](mem)
            out.append(attention(q, k, v, None if mask is None else mask.squeeze(1))[0])
        return self.w_o(torch.cat(out, dim=-1))

    @torch.inference_mode()
    def load_from(self, mha):
        for i, rows in enumerate(torch.arange(self.h * self.d_k).split(self.d_k)):
            for mine, theirs in ((self.w_q, mha.w_q), (self.w_k, mha.w_k), (self.w_v, mha.w_v)):
                mine[i].weight.copy_(theirs.weight[rows]); mine[i].bias.copy_(theirs.bias[rows])
        self.w_o.weight.copy_(mha.w_o.weight); self.w_o.bias.copy_(mha.w_o.bias)
""")
A(nb, 'LoopMHA', 'load_from a classmethod that builds and returns a new LoopMHA, leaving self as it was', HEAD + INIT + FORWARD + """
    @classmethod
    def load_from(cls, mha):
        m = cls(mha.d_model, mha.h)        # from_pretrained-style: a new module
        with torch.no_grad():
            for i in range(m.h):
                rows = slice(i * m.d_k, (i + 1) * m.d_k)
                for lin, W in zip((m.w_q[i], m.w_k[i], m.w_v[i]), (mha.w_q, mha.w_k, mha.w_v)):
                    lin.weight.copy_(W.weight[rows]); lin.bias.copy_(W.bias[rows])
            m.w_o.load_state_dict(mha.w_o.state_dict())
        return m
""")
A(nb, 'LoopMHA', 'a ReLU after W^O (every layer given an activation)', HEAD + INIT + """
    def forward(self, x, mem=None, mask=None):
        mem = x if mem is None else mem
        m = None if mask is None else mask[:, 0]
        heads = [attention(wq(x), wk(mem), wv(mem), m)[0] for wq, wk, wv in zip(self.w_q, self.w_k, self.w_v)]
        return F.relu(self.w_o(torch.cat(heads, -1)))
""" + LOAD)
A(nb, 'LoopMHA', "the residual added inside the layer (x + W^O(...)), the sub-layer's Add taken in", HEAD + INIT + """
    def forward(self, x, mem=None, mask=None):
        mem = x if mem is None else mem
        m = None if mask is None else mask[:, 0]
        heads = [attention(wq(x), wk(mem), wv(mem), m)[0] for wq, wk, wv in zip(self.w_q, self.w_k, self.w_v)]
        return x + self.w_o(torch.cat(heads, -1))
""" + LOAD)
A(nb, 'LoopMHA', "a LayerNorm after W^O (the sub-layer's Norm taken into the layer)", HEAD + """
    def __init__(self, d_model, h):
        super().__init__()
        self.h, self.d_k = h, d_model // h
        heads = lambda: nn.ModuleList(nn.Linear(d_model, self.d_k) for _ in range(h))
        self.w_q, self.w_k, self.w_v = heads(), heads(), heads()
        self.w_o = nn.Linear(h * self.d_k, d_model)
        self.norm = nn.LayerNorm(d_model)

    def forward(self, x, mem=None, mask=None):
        mem = x if mem is None else mem
        m = None if mask is None else mask[:, 0]
        heads = [attention(wq(x), wk(mem), wv(mem), m)[0] for wq, wk, wv in zip(self.w_q, self.w_k, self.w_v)]
        return self.norm(self.w_o(torch.cat(heads, -1)))
""" + LOAD)
A(nb, 'LoopMHA', "the memory's keys and values cached on the first call (a decoding cache never reset)", HEAD + INIT + """
    def forward(self, x, mem=None, mask=None):
        m = None if mask is None else mask[:, 0]
        if mem is None: kv = [(wk(x), wv(x)) for wk, wv in zip(self.w_k, self.w_v)]
        else:
            if getattr(self, '_kv', None) is None:      # cross-attention: the memory is fixed, project it once
                self._kv = [(wk(mem), wv(mem)) for wk, wv in zip(self.w_k, self.w_v)]
            kv = self._kv
        heads = [attention(wq(x), k, v, m)[0] for wq, (k, v) in zip(self.w_q, kv)]
        return self.w_o(torch.cat(heads, -1))
""" + LOAD)
A(nb, 'LoopMHA', "forward(query, key, value, mask), the Annotated Transformer's signature", HEAD + INIT + """
    def forward(self, query, key, value, mask=None):
        m = None if mask is None else mask[:, 0]
        heads = [attention(wq(query), wk(key), wv(value), m)[0] for wq, wk, wv in zip(self.w_q, self.w_k, self.w_v)]
        return self.w_o(torch.cat(heads, -1))
""" + LOAD)
A(nb, 'LoopMHA', 'super().__init__() called after the layers are assigned', HEAD + """
    def __init__(self, d_model, h):
        self.h, self.d_k = h, d_model // h
        heads = lambda: nn.ModuleList(nn.Linear(d_model, self.d_k) for _ in range(h))
        self.w_q, self.w_k, self.w_v = heads(), heads(), heads()
        self.w_o = nn.Linear(h * self.d_k, d_model)
        super().__init__()
""" + FORWARD + LOAD)
A(nb, 'LoopMHA', 'dropout 0.1 on the output (residual dropout moved into the layer), the module in training mode', HEAD + """
    def __init__(self, d_model, h, p=0.1):
        super().__init__()
        self.h, self.d_k = h, d_model // h
        heads = lambda: nn.ModuleList(nn.Linear(d_model, self.d_k) for _ in range(h))
        self.w_q, self.w_k, self.w_v = heads(), heads(), heads()
        self.w_o = nn.Linear(h * self.d_k, d_model)
        self.drop = nn.Dropout(p)

    def forward(self, x, mem=None, mask=None):
        mem = x if mem is None else mem
        m = None if mask is None else mask[:, 0]
        heads = [attention(wq(x), wk(mem), wv(mem), m)[0] for wq, wk, wv in zip(self.w_q, self.w_k, self.w_v)]
        return self.drop(self.w_o(torch.cat(heads, -1)))
""" + LOAD)
A(nb, 'LoopMHA', 'mask=None not handled: mask[:, 0] on None', HEAD + INIT + """
    def forward(self, x, mem=None, mask=None):
        mem = x if mem is None else mem
        m = mask[:, 0]
        heads = [attention(wq(x), wk(mem), wv(mem), m)[0] for wq, wk, wv in zip(self.w_q, self.w_k, self.w_v)]
        return self.w_o(torch.cat(heads, -1))
""" + LOAD)
A(nb, 'LoopMHA', 'heads.append outside the loop (its indent lost): only the last head kept', HEAD + INIT + """
    def forward(self, x, mem=None, mask=None):
        mem = x if mem is None else mem
        m = None if mask is None else mask[:, 0]
        heads = []
        for i in range(self.h):
            head = attention(self.w_q[i](x), self.w_k[i](mem), self.w_v[i](mem), m)[0]
        heads.append(head)
        return self.w_o(torch.cat(heads, -1))
""" + LOAD)
A(nb, 'LoopMHA', "the arguments (h, d_model), the Annotated Transformer's MultiHeadedAttention order", HEAD + """
    def __init__(self, h, d_model):
        super().__init__()
        self.h, self.d_k = h, d_model // h
        heads = lambda: nn.ModuleList(nn.Linear(d_model, self.d_k) for _ in range(h))
        self.w_q, self.w_k, self.w_v = heads(), heads(), heads()
        self.w_o = nn.Linear(h * self.d_k, d_model)
""" + FORWARD + LOAD)
A(nb, 'LoopMHA', "head i's bias the single entry W.bias[i], broadcast over its d_k", HEAD + INIT + FORWARD + """
    @torch.no_grad()
    def load_from(self, mha):
        for i in range(self.h):
            rows = slice(i * self.d_k, (i + 1) * self.d_k)
            for lin, W in zip((self.w_q[i], self.w_k[i], self.w_v[i]), (mha.w_q, mha.w_k, mha.w_v)):
                lin.weight.copy_(W.weight[rows]); lin.bias.copy_(W.bias[i])
        self.w_o.load_state_dict(mha.w_o.state_dict())
""")

# ---------------------------------------------------------------- 03_ffn: conv_to_ffn
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
A(nb, 'conv_to_ffn', None, """
def conv_to_ffn(conv):
    c1, c2 = [m for m in conv if isinstance(m, nn.Conv1d)]
    ffn = FeedForward(c1.in_channels, c1.out_channels)
    ffn.load_state_dict({'w_1.weight': c1.weight.squeeze(-1), 'w_1.bias': c1.bias,
                         'w_2.weight': c2.weight.squeeze(-1), 'w_2.bias': c2.bias})
    return ffn
""")
A(nb, 'conv_to_ffn', "ReLU dropout 0.1 added on the hidden layer (the Annotated Transformer's), the module in training mode", """
class DropFFN(FeedForward):
    def __init__(self, d_model, d_ff, p=0.1):
        super().__init__(d_model, d_ff); self.drop = nn.Dropout(p)
    def hidden(self, x): return self.drop(F.relu(self.w_1(x)))

def conv_to_ffn(conv):
    d_ff, d_model, _ = conv[0].weight.shape
    ffn = DropFFN(d_model, d_ff)
    with torch.no_grad():
        for lin, c in zip((ffn.w_1, ffn.w_2), (conv[0], conv[2])):
            lin.weight.copy_(c.weight[:, :, 0]); lin.bias.copy_(c.bias)
    return ffn
""")
A(nb, 'conv_to_ffn', 'a residual added inside the FeedForward (x + FFN(x)), the sub-layer taken in', """
class ResFFN(FeedForward):
    def forward(self, x): return x + self.w_2(self.hidden(x))

def conv_to_ffn(conv):
    d_ff, d_model, _ = conv[0].weight.shape
    ffn = ResFFN(d_model, d_ff)
    with torch.no_grad():
        for lin, c in zip((ffn.w_1, ffn.w_2), (conv[0], conv[2])):
            lin.weight.copy_(c.weight[:, :, 0]); lin.bias.copy_(c.bias)
    return ffn
""")
A(nb, 'conv_to_ffn', "the input stack frozen to copy it (conv.requires_grad_(False)): the caller's convolutions no longer learn", """
def conv_to_ffn(conv):
    conv.requires_grad_(False)             # so that its weights can be copied
    d_ff, d_model, _ = conv[0].weight.shape
    ffn = FeedForward(d_model, d_ff)
    ffn.w_1.weight.data.copy_(conv[0].weight[:, :, 0]); ffn.w_1.bias.data.copy_(conv[0].bias)
    ffn.w_2.weight.data.copy_(conv[2].weight[:, :, 0]); ffn.w_2.bias.data.copy_(conv[2].bias)
    return ffn
""")
A(nb, 'conv_to_ffn', 'the biases new Parameters with requires_grad=False: frozen biases', """
def conv_to_ffn(conv):
    d_ff, d_model, _ = conv[0].weight.shape
    ffn = FeedForward(d_model, d_ff)
    for lin, c in zip((ffn.w_1, ffn.w_2), (conv[0], conv[2])):
        lin.weight = nn.Parameter(c.weight[:, :, 0].detach().clone())
        lin.bias = nn.Parameter(c.bias.detach().clone(), requires_grad=False)
    return ffn
""")
A(nb, 'conv_to_ffn', 'the whole function under torch.inference_mode(): the FeedForward built there gets no gradient', """
def conv_to_ffn(conv):
    with torch.inference_mode():           # no autograd while copying (faster than no_grad)
        d_ff, d_model, _ = conv[0].weight.shape
        ffn = FeedForward(d_model, d_ff)
        for lin, c in zip((ffn.w_1, ffn.w_2), (conv[0], conv[2])):
            lin.weight.copy_(c.weight[:, :, 0]); lin.bias.copy_(c.bias)
    return ffn
""")
A(nb, 'conv_to_ffn', "every state_dict entry sliced [..., 0], the biases too: load_state_dict refuses the sizes", """
def conv_to_ffn(conv):
    d_ff, d_model, _ = conv[0].weight.shape
    ffn = FeedForward(d_model, d_ff)
    names = {'0': 'w_1', '2': 'w_2'}
    ffn.load_state_dict({names[k.split('.')[0]] + '.' + k.split('.')[1]: v[..., 0] for k, v in conv.state_dict().items()})
    return ffn
""")
A(nb, 'conv_to_ffn', 'the weights copied through bfloat16 (a mixed-precision habit): rounded to 8 bits of mantissa', """
def conv_to_ffn(conv):
    d_ff, d_model, _ = conv[0].weight.shape
    ffn = FeedForward(d_model, d_ff)
    with torch.no_grad():
        for lin, c in zip((ffn.w_1, ffn.w_2), (conv[0], conv[2])):
            lin.weight.copy_(c.weight[:, :, 0].bfloat16()); lin.bias.copy_(c.bias.bfloat16())
    return ffn
""")
