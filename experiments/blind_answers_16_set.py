"""The sixteenth blind set's answers, written from the exercises' text alone: (notebook, exercise, mistake, code), the
mistake None for the right answer. `experiments/blind_answers.py 16` runs them. This set leans toward answers shaped by
other sources' conventions (nanoGPT's pre-LN block, idx_next of shape (B, 1) and appended prefix, GPT's 12 N d^2 and
4 d_model; the Annotated Transformer's own LayerNorm, log-softmax generator and smoothing over V - 2; d2l's heads folded
into the batch; Hugging Face's merges as 'a b' strings, finfo.min additive mask, float32 RMSNorm and past-key
alignment; LLaMA's complex RoPE, rope_theta and bias-free projections; Gemma's 1 + g gain; TF's keep_prob; flash
attention's (B, n, h, d) layout; SentencePiece's word-start marker; sacreBLEU's reference streams) and toward right
values in the wrong container, dtype or shape (NumPy arrays, lists, tuples, dicts, complex or float16 tensors)."""
ANSWERS = []
def A(nb, ex, mistake, code): ANSWERS.append((nb, ex, mistake, code))

# 00_core: pad_batch
nb = '00_core'
A(nb, 'pad_batch', None, """
def pad_batch(seqs, pad_id=PAD_ID):
    n = max(len(s) for s in seqs)
    return torch.tensor([list(s) + [pad_id] * (n - len(s)) for s in seqs], dtype=torch.long)""")
A(nb, 'pad_batch', 'a NumPy array of the padded rows', """
import numpy as np
def pad_batch(seqs, pad_id=PAD_ID):
    n = max(len(s) for s in seqs)
    return np.array([s + [pad_id] * (n - len(s)) for s in seqs])""")
A(nb, 'pad_batch', 'a Python list of the padded lists, no tensor', """
def pad_batch(seqs, pad_id=PAD_ID):
    n = max(len(s) for s in seqs)
    return [s + [pad_id] * (n - len(s)) for s in seqs]""")
A(nb, 'pad_batch', 'extends the input lists in place, then tensors them', """
def pad_batch(seqs, pad_id=PAD_ID):
    n = max(len(s) for s in seqs)
    for s in seqs: s.extend([pad_id] * (n - len(s)))
    return torch.tensor(seqs)""")
A(nb, 'pad_batch', 'int32 ids (an exporter\'s dtype), not torch.long', """
def pad_batch(seqs, pad_id=PAD_ID):
    n = max(len(s) for s in seqs)
    return torch.tensor([s + [pad_id] * (n - len(s)) for s in seqs], dtype=torch.int32)""")
A(nb, 'pad_batch', 'pads to a multiple of 8 (pad_to_multiple_of=8)', """
def pad_batch(seqs, pad_id=PAD_ID):
    n = max(len(s) for s in seqs)
    n = -(-n // 8) * 8
    return torch.tensor([s + [pad_id] * (n - len(s)) for s in seqs])""")
A(nb, 'pad_batch', 'one pad more than the longest (room for an EOS)', """
def pad_batch(seqs, pad_id=PAD_ID):
    n = max(len(s) for s in seqs) + 1
    return torch.tensor([s + [pad_id] * (n - len(s)) for s in seqs])""")
A(nb, 'pad_batch', 'cut to the shortest (min for max)', """
def pad_batch(seqs, pad_id=PAD_ID):
    n = min(len(s) for s in seqs)
    return torch.tensor([s[:n] + [pad_id] * (n - len(s)) for s in seqs])""")
A(nb, 'pad_batch', "rows sorted longest first, as pack_padded_sequence wants", """
def pad_batch(seqs, pad_id=PAD_ID):
    seqs = sorted(seqs, key=len, reverse=True)
    n = len(seqs[0])
    return torch.tensor([s + [pad_id] * (n - len(s)) for s in seqs])""")
A(nb, 'pad_batch', 'returns (ids, lengths), as pad_packed_sequence does', """
def pad_batch(seqs, pad_id=PAD_ID):
    n = max(len(s) for s in seqs)
    return torch.tensor([s + [pad_id] * (n - len(s)) for s in seqs]), torch.tensor([len(s) for s in seqs])""")
A(nb, 'pad_batch', "one 1-d stream of all the ids, nanoGPT's concatenation", """
def pad_batch(seqs, pad_id=PAD_ID):
    return torch.tensor([t for s in seqs for t in s])""")
A(nb, 'pad_batch', "EOS appended to each sentence before padding (fairseq's append_eos)", """
def pad_batch(seqs, pad_id=PAD_ID):
    n = max(len(s) for s in seqs) + 1
    return torch.tensor([s + [EOS_ID] + [pad_id] * (n - len(s) - 1) for s in seqs])""")
A(nb, 'pad_batch', 'returns the attention mask (ids != pad_id), not the ids', """
def pad_batch(seqs, pad_id=PAD_ID):
    n = max(len(s) for s in seqs)
    ids = torch.tensor([s + [pad_id] * (n - len(s)) for s in seqs])
    return (ids != pad_id).long()""")

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
A(nb, 'attention', "Hugging Face's additive mask, (1 - mask) * finfo.min: an all-masked row uniform", """
def my_attention(q, k, v, mask=None):
    s = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if mask is not None: s = s + (1.0 - mask.to(s.dtype)) * torch.finfo(s.dtype).min
    w = s.softmax(dim=-1)
    return w @ v, w""")
A(nb, 'attention', 'mask read as True = masked (key_padding_mask)', """
def my_attention(q, k, v, mask=None):
    s = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if mask is not None: s = s.masked_fill(mask, float('-inf'))
    w = s.softmax(dim=-1)
    if mask is not None: w = w.masked_fill(mask, 0.0)
    return w @ v, w""")
A(nb, 'attention', 'scaled by sqrt(d_v), the values\' size', """
def my_attention(q, k, v, mask=None):
    s = q @ k.transpose(-2, -1) / math.sqrt(v.shape[-1])
    if mask is not None: s = s.masked_fill(~mask, float('-inf'))
    w = s.softmax(dim=-1)
    if mask is not None: w = w.masked_fill(~mask, 0.0)
    return w @ v, w""")
A(nb, 'attention', "d2l's k.transpose(1, 2): right for 3-d inputs only", """
def my_attention(q, k, v, mask=None):
    s = torch.matmul(q, k.transpose(1, 2)) / math.sqrt(q.shape[-1])
    if mask is not None: s = s.masked_fill(~mask, float('-inf'))
    w = s.softmax(dim=-1)
    if mask is not None: w = w.masked_fill(~mask, 0.0)
    return w @ v, w""")
A(nb, 'attention', 'returns (weights, output), the other order', """
def my_attention(q, k, v, mask=None):
    s = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if mask is not None: s = s.masked_fill(~mask, float('-inf'))
    w = s.softmax(dim=-1)
    if mask is not None: w = w.masked_fill(~mask, 0.0)
    return w, w @ v""")
A(nb, 'attention', 'softmax over the queries (dim=-2)', """
def my_attention(q, k, v, mask=None):
    s = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if mask is not None: s = s.masked_fill(~mask, float('-inf'))
    w = s.softmax(dim=-2)
    if mask is not None: w = w.masked_fill(~mask, 0.0)
    return w @ v, w""")
A(nb, 'attention', 'softmax written as exp / sum, no max subtracted: overflows on large scores', """
def my_attention(q, k, v, mask=None):
    s = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    e = s.exp()
    if mask is not None: e = e.masked_fill(~mask, 0.0)
    w = e / e.sum(-1, keepdim=True).clamp_min(1e-300)
    return w @ v, w""")
A(nb, 'attention', 'the bool mask added as a float bias (+1 where allowed)', """
def my_attention(q, k, v, mask=None):
    s = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if mask is not None: s = s + mask.to(s.dtype)
    w = s.softmax(dim=-1)
    return w @ v, w""")
A(nb, 'attention', 'divided by sqrt(d_k) after the softmax', """
def my_attention(q, k, v, mask=None):
    s = q @ k.transpose(-2, -1)
    if mask is not None: s = s.masked_fill(~mask, float('-inf'))
    w = s.softmax(dim=-1) / math.sqrt(q.shape[-1])
    if mask is not None: w = w.masked_fill(~mask, 0.0)
    return w @ v, w""")
A(nb, 'attention', 'the output cast to float32', """
def my_attention(q, k, v, mask=None):
    s = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if mask is not None: s = s.masked_fill(~mask, float('-inf'))
    w = s.softmax(dim=-1)
    if mask is not None: w = w.masked_fill(~mask, 0.0)
    return (w @ v).float(), w.float()""")
A(nb, 'attention', 'scores k q^T: weights of shape (n_k, n_q)', """
def my_attention(q, k, v, mask=None):
    s = k @ q.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if mask is not None: s = s.masked_fill(~mask.transpose(-2, -1), float('-inf'))
    w = s.softmax(dim=-1)
    if mask is not None: w = w.masked_fill(~mask.transpose(-2, -1), 0.0)
    return w.transpose(-2, -1) @ v, w""")
A(nb, 'restricted_mask', 'a 0/1 long mask, not bool', """
def restricted_mask(n, r):
    i = torch.arange(n)
    return ((i[:, None] - i[None, :]).abs() <= r // 2).long()[None, None]""")
A(nb, 'restricted_mask', 'a NumPy bool array', """
import numpy as np
def restricted_mask(n, r):
    i = np.arange(n)
    return (np.abs(i[:, None] - i[None, :]) <= r // 2)[None, None]""")
A(nb, 'restricted_mask', 'half-width (r - 1) // 2, short by one for an even r', """
def restricted_mask(n, r):
    i = torch.arange(n)
    return ((i[:, None] - i[None, :]).abs() <= (r - 1) // 2)[None, None]""")
A(nb, 'restricted_mask', 'inverted: True outside the window (True = masked)', """
def restricted_mask(n, r):
    i = torch.arange(n)
    return ((i[:, None] - i[None, :]).abs() > r // 2)[None, None]""")
A(nb, 'restricted_mask', 'triu(-r // 2): the minus binds first, floor(-r/2)', """
def restricted_mask(n, r):
    return torch.ones(n, n, dtype=torch.bool).tril(r // 2).triu(-r // 2)[None, None]""")
A(nb, 'restricted_mask', 'arguments read as (r, n)', """
def restricted_mask(r, n):
    i = torch.arange(n)
    return ((i[:, None] - i[None, :]).abs() <= r // 2)[None, None]""")
A(nb, 'restricted_mask', 'no abs(): every later key allowed', """
def restricted_mask(n, r):
    i = torch.arange(n)
    return ((i[None, :] - i[:, None]) >= -(r // 2))[None, None]""")
A(nb, 'restricted_mask', 'a nested Python list (tolist())', """
def restricted_mask(n, r):
    i = torch.arange(n)
    return ((i[:, None] - i[None, :]).abs() <= r // 2)[None, None].tolist()""")

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
A(nb, 'heads', 'split by x.view(B, h, n, d): no transpose, positions and heads mixed', """
def split_heads(x, h):
    B, n, hd = x.shape
    return x.view(B, h, n, hd // h)
def merge_heads(x):
    B, h, n, d = x.shape
    return x.reshape(B, n, h * d)""")
A(nb, 'heads', 'heads by stride: view(B, n, d, h), feature i + j*h in head i', """
def split_heads(x, h):
    B, n, hd = x.shape
    return x.view(B, n, hd // h, h).permute(0, 3, 1, 2)
def merge_heads(x):
    B, h, n, d = x.shape
    return x.permute(0, 2, 3, 1).reshape(B, n, h * d)""")
A(nb, 'heads', 'merge with .view after the transpose', """
def split_heads(x, h):
    B, n, hd = x.shape
    return x.view(B, n, h, hd // h).transpose(1, 2)
def merge_heads(x):
    B, h, n, d = x.shape
    return x.permute(0, 2, 1, 3).view(B, n, h * d)""")
A(nb, 'heads', 'split stops at (B, n, h, d), the transpose left for later', """
def split_heads(x, h):
    B, n, hd = x.shape
    return x.view(B, n, h, hd // h)
def merge_heads(x):
    B, n, h, d = x.shape
    return x.reshape(B, n, h * d)""")
A(nb, 'heads', 'split returns a tuple of h chunks, not one tensor', """
def split_heads(x, h):
    return x.chunk(h, dim=-1)
def merge_heads(x):
    return torch.cat(list(x), dim=-1)""")
A(nb, 'heads', 'merge concatenates the heads along the positions', """
def split_heads(x, h):
    B, n, hd = x.shape
    return x.view(B, n, h, hd // h).transpose(1, 2)
def merge_heads(x):
    return torch.cat(x.unbind(1), dim=1)""")
A(nb, 'heads', "d2l's transpose_qkv: heads folded into the batch, (B*h, n, d)", """
def split_heads(x, h):
    B, n, hd = x.shape
    x = x.reshape(B, n, h, -1).permute(0, 2, 1, 3)
    return x.reshape(-1, n, hd // h)
def merge_heads(x):
    return x.transpose(1, 2).reshape(x.shape[0], x.shape[2], -1)""")
A(nb, 'heads', 'h read as the size of a head: view(B, n, -1, h)', """
def split_heads(x, h):
    B, n, hd = x.shape
    return x.view(B, n, -1, h).transpose(1, 2)
def merge_heads(x):
    B, h, n, d = x.shape
    return x.transpose(1, 2).reshape(B, n, h * d)""")
A(nb, 'heads', 'merge transposes the last two axes, transpose(-1, -2)', """
def split_heads(x, h):
    B, n, hd = x.shape
    return x.view(B, n, h, hd // h).transpose(1, 2)
def merge_heads(x):
    B, h, n, d = x.shape
    return x.transpose(-1, -2).reshape(B, n, h * d)""")
A(nb, 'heads', 'NumPy arrays: split through x.detach().numpy()', """
def split_heads(x, h):
    B, n, hd = x.shape
    return x.detach().numpy().reshape(B, n, h, hd // h).transpose(0, 2, 1, 3)
def merge_heads(x):
    B, h, n, d = x.shape
    return x.transpose(1, 2).reshape(B, n, h * d)""")
LOOP = '''
class LoopMHA(nn.Module):
    def __init__(self, d_model, h):
        super().__init__()
        self.h, self.d_k = h, {DK}
        heads = lambda: nn.ModuleList(nn.Linear(d_model, self.d_k{BIAS}) for _ in range(h))
        self.w_q, self.w_k, self.w_v = heads(), heads(), heads()
        self.w_o = nn.Linear(h * self.d_k, d_model)
    def forward(self, x, mem=None, mask=None):
        mem = x if mem is None else mem
        {MASK}
        heads = [{ATT} for q, k, v in zip(self.w_q, self.w_k, self.w_v)]
        return self.w_o(torch.cat(heads, -1))
    @torch.no_grad()
    def load_from(self, mha):
        for i in range(self.h):
            rows = slice(i * self.d_k, (i + 1) * self.d_k)
            for lin, W in zip((self.w_q[i], self.w_k[i], self.w_v[i]), (mha.w_q, mha.w_k, mha.w_v)):
                {COPY}
        {WO}'''
def loop(DK='d_model // h', BIAS='', MASK='m = None if mask is None else mask[:, 0]', ATT='attention(q(x), k(mem), v(mem), m)[0]',
         COPY='lin.weight.copy_(W.weight[rows]); lin.bias.copy_(W.bias[rows])', WO='self.w_o.load_state_dict(mha.w_o.state_dict())'):
    return LOOP.format(DK=DK, BIAS=BIAS, MASK=MASK, ATT=ATT, COPY=COPY, WO=WO)
A(nb, 'LoopMHA', 'the (B, 1, n_q, n_k) mask given to each head as it is', loop(MASK='m = mask'))
A(nb, 'LoopMHA', 'mask inverted for each head (key_padding_mask reading)', loop(MASK='m = None if mask is None else ~mask[:, 0]'))
A(nb, 'LoopMHA', "head i's weights from columns, W.weight[:, rows].T (the x @ W layout)",
  loop(COPY='lin.weight.copy_(W.weight[:, rows].T); lin.bias.copy_(W.bias[rows])'))
A(nb, 'LoopMHA', 'load_from copies the weights, not the biases', loop(COPY='lin.weight.copy_(W.weight[rows])'))
A(nb, 'LoopMHA', 'W^O copied transposed (the x @ W layout)',
  loop(WO='self.w_o.weight.copy_(mha.w_o.weight.T); self.w_o.bias.copy_(mha.w_o.bias)'))
A(nb, 'LoopMHA', 'scores scaled by sqrt(d_model), not sqrt(d_k)',
  loop(ATT='attention(q(x), k(mem), v(mem), m, scale=(self.h * self.d_k) ** -0.5)[0]'))
A(nb, 'LoopMHA', 'mem ignored: keys and values always from x', loop(ATT='attention(q(x), k(x), v(x), m)[0]'))
A(nb, 'LoopMHA', 'queries from mem, keys and values from x', loop(ATT='attention(q(mem), k(x), v(x), m.transpose(-2, -1) if m is not None else None)[0]'))
A(nb, 'LoopMHA', "projections without bias (LLaMA's bias=False)",
  loop(BIAS=', bias=False', COPY='lin.weight.copy_(W.weight[rows])'))
A(nb, 'LoopMHA', 'each head as wide as the model: d_k = d_model', loop(DK='d_model'))
A(nb, 'LoopMHA', 'the heads averaged, not concatenated (W^O of d_k inputs)', """
class LoopMHA(nn.Module):
    def __init__(self, d_model, h):
        super().__init__()
        self.h, self.d_k = h, d_model // h
        heads = lambda: nn.ModuleList(nn.Linear(d_model, self.d_k) for _ in range(h))
        self.w_q, self.w_k, self.w_v = heads(), heads(), heads()
        self.w_o = nn.Linear(self.d_k, d_model)
    def forward(self, x, mem=None, mask=None):
        mem = x if mem is None else mem
        m = None if mask is None else mask[:, 0]
        heads = [attention(q(x), k(mem), v(mem), m)[0] for q, k, v in zip(self.w_q, self.w_k, self.w_v)]
        return self.w_o(torch.stack(heads).mean(0))
    @torch.no_grad()
    def load_from(self, mha):
        for i in range(self.h):
            rows = slice(i * self.d_k, (i + 1) * self.d_k)
            for lin, W in zip((self.w_q[i], self.w_k[i], self.w_v[i]), (mha.w_q, mha.w_k, mha.w_v)):
                lin.weight.copy_(W.weight[rows]); lin.bias.copy_(W.bias[rows])
        self.w_o.weight.copy_(mha.w_o.weight[:, :self.d_k]); self.w_o.bias.copy_(mha.w_o.bias)""")

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
CONV = '''
def conv_to_ffn(conv):
    {SHAPE}
    ffn = {FFN}
    with torch.no_grad():
        for lin, c in zip((ffn.w_1, ffn.w_2), ({CONVS})):
            {COPY}
    return ffn{RET}'''
def c2f(SHAPE='d_ff, d_model, _ = conv[0].weight.shape', FFN='FeedForward(d_model, d_ff)', CONVS='conv[0], conv[2]',
        COPY='lin.weight.copy_(c.weight[:, :, 0]); lin.bias.copy_(c.bias)', RET=''):
    return CONV.format(SHAPE=SHAPE, FFN=FFN, CONVS=CONVS, COPY=COPY, RET=RET)
A(nb, 'conv_to_ffn', 'weights transposed into the x @ W layout, new Parameters', c2f(COPY='lin.weight = nn.Parameter(c.weight[:, :, 0].T.clone()); lin.bias.copy_(c.bias)'))
A(nb, 'conv_to_ffn', 'the biases left as FeedForward made them', c2f(COPY='lin.weight.copy_(c.weight[:, :, 0])'))
A(nb, 'conv_to_ffn', 'only the first convolution copied', c2f(CONVS='conv[0],'))
A(nb, 'conv_to_ffn', 'the second convolution read from conv[1] (the ReLU)', c2f(CONVS='conv[0], conv[1]'))
A(nb, 'conv_to_ffn', 'd_model and d_ff read from the weight in the other order', c2f(SHAPE='d_model, d_ff, _ = conv[0].weight.shape'))
A(nb, 'conv_to_ffn', 'FeedForward() with its default sizes', c2f(FFN='FeedForward()'))
A(nb, 'conv_to_ffn', 'the result cast to float64', c2f(RET='.double()'))
A(nb, 'conv_to_ffn', 'an nn.Sequential(Linear, ReLU, Linear), not a FeedForward', """
def conv_to_ffn(conv):
    d_ff, d_model, _ = conv[0].weight.shape
    l1, l2 = nn.Linear(d_model, d_ff), nn.Linear(d_ff, d_model)
    with torch.no_grad():
        for lin, c in zip((l1, l2), (conv[0], conv[2])):
            lin.weight.copy_(c.weight[:, :, 0]); lin.bias.copy_(c.bias)
    return nn.Sequential(l1, nn.ReLU(), l2)""")
A(nb, 'conv_to_ffn', 'a module that transposes and calls the convolutions, not a FeedForward', """
class ConvFFN(nn.Module):
    def __init__(self, conv): super().__init__(); self.conv = conv
    def forward(self, x): return self.conv(x.transpose(-1, -2)).transpose(-1, -2)
def conv_to_ffn(conv): return ConvFFN(conv)""")
A(nb, 'conv_to_ffn', 'the weight reshaped (in, out) from its memory, not sliced', c2f(COPY='lin.weight.copy_(c.weight.reshape(c.weight.shape[1], c.weight.shape[0]).T); lin.bias.copy_(c.bias)'))
A(nb, 'conv_to_ffn', 'the convolutions swapped: conv[2], transposed, into w_1', """
def conv_to_ffn(conv):
    d_ff, d_model, _ = conv[0].weight.shape
    ffn = FeedForward(d_model, d_ff)
    with torch.no_grad():
        ffn.w_1.weight.copy_(conv[2].weight[:, :, 0].T); ffn.w_1.bias.zero_()
        ffn.w_2.weight.copy_(conv[0].weight[:, :, 0].T); ffn.w_2.bias.copy_(conv[2].bias)
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
EMB = '''
class MyEmbeddings(nn.Module):
    def __init__(self, vocab, d_model, pad_id=PAD_ID):
        super().__init__()
        self.E = nn.Parameter({INIT})
        {ZERO}
        self.pad_id, self.scale = pad_id, {SCALE}
    def forward(self, tokens):
        {FWD}'''
def emb(INIT='torch.randn(vocab, d_model) * d_model ** -0.5', ZERO='with torch.no_grad(): self.E[pad_id] = 0.0',
        SCALE='math.sqrt(d_model)', FWD='x, pad = self.E[tokens], (tokens == self.pad_id)[..., None]\n        return torch.where(pad, x.detach(), x) * self.scale'):
    return EMB.format(INIT=INIT, ZERO=ZERO, SCALE=SCALE, FWD=FWD)
A(nb, 'MyEmbeddings', 'no sqrt(d_model) scale (GPT-2 and Hugging Face embeddings)', emb(SCALE='1.0'))
A(nb, 'MyEmbeddings', "nn.Embedding's N(0, 1) initialisation", emb(INIT='torch.randn(vocab, d_model)'))
A(nb, 'MyEmbeddings', 'padding row not zeroed at initialisation', emb(ZERO='pass'))
A(nb, 'MyEmbeddings', 'outputs zeroed at the padding positions', emb(FWD='x, keep = self.E[tokens], (tokens != self.pad_id)[..., None]\n        return x * keep * self.scale'))
A(nb, 'MyEmbeddings', 'the padding test against PAD_ID, whatever pad_id says', emb(FWD='x, pad = self.E[tokens], (tokens == PAD_ID)[..., None]\n        return torch.where(pad, x.detach(), x) * self.scale'))
A(nb, 'MyEmbeddings', 'the scale folded into the initial table, not applied in forward', emb(INIT='torch.randn(vocab, d_model) * d_model ** -0.5 * math.sqrt(d_model)', FWD='x, pad = self.E[tokens], (tokens == self.pad_id)[..., None]\n        return torch.where(pad, x.detach(), x)'))
A(nb, 'MyEmbeddings', "one-hot @ E (LLMs-from-scratch's picture): the padding row gets a gradient", emb(FWD='return (F.one_hot(tokens, self.E.shape[0]).to(self.E.dtype) @ self.E) * self.scale'))
A(nb, 'MyEmbeddings', 'E stored (d_model, vocab), as a projection weight, read by columns', emb(INIT='torch.randn(d_model, vocab) * d_model ** -0.5', ZERO='with torch.no_grad(): self.E[:, pad_id] = 0.0', FWD='x, pad = self.E.T[tokens], (tokens == self.pad_id)[..., None]\n        return torch.where(pad, x.detach(), x) * self.scale'))
A(nb, 'MyEmbeddings', 'the padding row zeroed again in every forward', emb(FWD='with torch.no_grad(): self.E[self.pad_id] = 0.0\n        x, pad = self.E[tokens], (tokens == self.pad_id)[..., None]\n        return torch.where(pad, x.detach(), x) * self.scale'))
A(nb, 'MyEmbeddings', 'scaled by sqrt(vocab), the other size', emb(SCALE='math.sqrt(vocab)'))
A(nb, 'MyEmbeddings', 'math.isqrt(d_model): an integer scale', emb(SCALE='math.isqrt(d_model)'))
A(nb, 'MyEmbeddings', 'forward returns (embeddings, padding mask)', emb(FWD='x, pad = self.E[tokens], (tokens == self.pad_id)[..., None]\n        return torch.where(pad, x.detach(), x) * self.scale, pad'))

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
ENC = '''
def my_encoding(n, d_model):
    pos = {POS}
    two_i = {TWOI}
    angle = {ANGLE}
    pe = torch.zeros(n, d_model, dtype=torch.float64)
    pe[:, 0::2], pe[:, 1::2] = angle.sin(), angle.cos()
    return {RET}'''
def enc(POS='torch.arange(n, dtype=torch.float64)[:, None]', TWOI='torch.arange(0, d_model, 2, dtype=torch.float64)',
        ANGLE='pos / 10000 ** (two_i / d_model)', RET='pe.float()'):
    return ENC.format(POS=POS, TWOI=TWOI, ANGLE=ANGLE, RET=RET)
A(nb, 'my_encoding', 'pos times 10000^(2i/d), not divided', enc(ANGLE='pos * 10000 ** (two_i / d_model)'))
A(nb, 'my_encoding', 'positions 1 .. n', enc(POS='torch.arange(1, n + 1, dtype=torch.float64)[:, None]'))
A(nb, 'my_encoding', 'integer 2i // d_model in the exponent: every frequency 1', enc(TWOI='torch.arange(0, d_model, 2)', ANGLE='pos / 10000 ** (two_i // d_model)'))
A(nb, 'my_encoding', 'a row per dimension: (d_model, n)', enc(RET='pe.float().T'))
A(nb, 'my_encoding', 'returned in float16', enc(RET='pe.half()'))
A(nb, 'my_encoding', 'a NumPy array', enc(RET='pe.float().numpy()'))
A(nb, 'my_encoding', "a learned table (nn.Embedding's weight), as GPT-2's positions", """
def my_encoding(n, d_model):
    return nn.Embedding(n, d_model).weight.detach()""")
A(nb, 'my_encoding', 'stack on axis -2 and flatten: sines then cosines (halves)', """
def my_encoding(n, d_model):
    pos = torch.arange(n, dtype=torch.float64)[:, None]
    angle = pos / 10000 ** (torch.arange(0, d_model, 2, dtype=torch.float64) / d_model)
    return torch.stack([angle.sin(), angle.cos()], dim=-2).flatten(-2).float()""")
A(nb, 'my_encoding', 'positions from linspace(0, n, n): the last one n, not n - 1', enc(POS='torch.linspace(0, n, n, dtype=torch.float64)[:, None]'))
A(nb, 'my_encoding', 'returned as an nn.Parameter (a learnable tensor)', enc(RET='nn.Parameter(pe.float())'))
RB = '''
class RelativeBias(nn.Module):
    def __init__(self, h, K):
        super().__init__()
        self.K = K
        self.table = nn.Parameter(torch.randn({SHAPE}) * 0.02)
    def forward(self, n_q, n_k):
        offset = {OFF}
        return {RET}'''
def rb(SHAPE='2 * K + 1, h', OFF='torch.arange(n_k)[None, :] - torch.arange(n_q)[:, None]',
       RET='self.table[offset.clamp(-self.K, self.K) + self.K].permute(2, 0, 1)'):
    return RB.format(SHAPE=SHAPE, OFF=OFF, RET=RET)
A(nb, 'RelativeBias', 'no clamp: offsets past K index out of the table', rb(RET='self.table[offset + self.K].permute(2, 0, 1)'))
A(nb, 'RelativeBias', 'left as (n_q, n_k, h), no permute', rb(RET='self.table[offset.clamp(-self.K, self.K) + self.K]'))
A(nb, 'RelativeBias', 'table of shape (h, 2K + 1)', rb(SHAPE='h, 2 * K + 1', RET='self.table[:, offset.clamp(-self.K, self.K) + self.K]'))
A(nb, 'RelativeBias', 'a table of 2K rows, offsets clamped to [-K, K - 1]', rb(SHAPE='2 * K, h', RET='self.table[offset.clamp(-self.K, self.K - 1) + self.K].permute(2, 0, 1)'))
A(nb, 'RelativeBias', 'queries aligned to the last keys (a decoding cache): offset j - i - (n_k - n_q)', rb(OFF='torch.arange(n_k)[None, :] - torch.arange(n_q)[:, None] - (n_k - n_q)'))
A(nb, 'RelativeBias', 'forward(n_k, n_q): the arguments read the other way', """
class RelativeBias(nn.Module):
    def __init__(self, h, K):
        super().__init__()
        self.K = K
        self.table = nn.Parameter(torch.randn(2 * K + 1, h) * 0.02)
    def forward(self, n_k, n_q):
        offset = torch.arange(n_k)[None, :] - torch.arange(n_q)[:, None]
        return self.table[offset.clamp(-self.K, self.K) + self.K].permute(2, 0, 1)""")
A(nb, 'RelativeBias', "ALiBi's fixed slopes times -|j - i|: the table unused", """
class RelativeBias(nn.Module):
    def __init__(self, h, K):
        super().__init__()
        self.K, self.h = K, h
        self.table = nn.Parameter(torch.randn(2 * K + 1, h) * 0.02)
    def forward(self, n_q, n_k):
        offset = (torch.arange(n_k)[None, :] - torch.arange(n_q)[:, None]).abs()
        slopes = 2.0 ** (-8.0 * torch.arange(1, self.h + 1) / self.h)
        return -slopes[:, None, None] * offset""")
A(nb, 'RelativeBias', "T5's leading batch axis: (1, h, n_q, n_k)", rb(RET='self.table[offset.clamp(-self.K, self.K) + self.K].permute(2, 0, 1)[None]'))
A(nb, 'RelativeBias', 'the table read through .data: no gradient', rb(RET='self.table.data[offset.clamp(-self.K, self.K) + self.K].permute(2, 0, 1)'))
A(nb, 'RelativeBias', 'clamp(max=K) only: offsets below -K index the table from its end', rb(RET='self.table[offset.clamp(max=self.K) + self.K].permute(2, 0, 1)'))

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
SUB = '''
class MySublayer(nn.Module):
    def __init__(self, d_model, p_drop):
        super().__init__()
        self.norm, self.drop = {NORM}, {DROP}
    def forward(self, x, f):
        return {FWD}'''
def sub(NORM='nn.LayerNorm(d_model)', DROP='nn.Dropout(p_drop)', FWD='self.norm(x + self.drop(f(x)))'):
    return SUB.format(NORM=NORM, DROP=DROP, FWD=FWD)
A(nb, 'MySublayer', "nanoGPT's pre-LN block: x + drop(f(norm(x)))", sub(FWD='x + self.drop(f(self.norm(x)))'))
A(nb, 'MySublayer', 'dropout on the residual sum, not on f(x)', sub(FWD='self.norm(self.drop(x + f(x)))'))
A(nb, 'MySublayer', 'dropout after the norm', sub(FWD='self.drop(self.norm(x + f(x)))'))
A(nb, 'MySublayer', 'LayerNorm without its gain and bias (elementwise_affine=False)', sub(NORM='nn.LayerNorm(d_model, elementwise_affine=False)'))
A(nb, 'MySublayer', 'F.layer_norm over the last two axes (n, d_model)', sub(NORM='nn.Identity()', FWD='F.layer_norm(x + self.drop(f(x)), (x + 0).shape[-2:])'))
A(nb, 'MySublayer', 'BatchNorm1d over the batch and positions', sub(NORM='nn.BatchNorm1d(d_model)', FWD='self.norm((x + self.drop(f(x))).transpose(1, 2)).transpose(1, 2)'))
A(nb, 'MySublayer', 'the norm on the branch: x + drop(norm(f(x)))', sub(FWD='x + self.drop(self.norm(f(x)))'))
A(nb, 'MySublayer', "the Annotated Transformer's own LayerNorm: unbiased std, eps outside the root", """
class MySublayer(nn.Module):
    def __init__(self, d_model, p_drop):
        super().__init__()
        self.a_2, self.b_2, self.eps = nn.Parameter(torch.ones(d_model)), nn.Parameter(torch.zeros(d_model)), 1e-6
        self.drop = nn.Dropout(p_drop)
    def norm(self, x):
        mean, std = x.mean(-1, keepdim=True), x.std(-1, keepdim=True)
        return self.a_2 * (x - mean) / (std + self.eps) + self.b_2
    def forward(self, x, f):
        return self.norm(x + self.drop(f(x)))""")
A(nb, 'MySublayer', "TF's keep_prob: nn.Dropout(1 - p_drop)", sub(DROP='nn.Dropout(1 - p_drop)'))
A(nb, 'MySublayer', 'the input normalised, not the sum: norm(x) + drop(f(x))', sub(FWD='self.norm(x) + self.drop(f(x))'))
FWD = '''
def my_forward(model, src, tgt):
    def residual(norm, x, f): return {RES}
    src_mask, tgt_mask = pad_mask(src), {TGTM}
    x = {SRCEMB}
    for l in model.encoder:
        x = residual(l.sub[0].norm, x, lambda t: l.self_attn(t, mask=src_mask))
        x = residual(l.sub[{I1}].norm, x, l.ffn)
    z = {Z}
    y = model.tgt_pos(model.tgt_emb(tgt))
    for {DEC}:
        y = residual(l.sub[0].norm, y, lambda t: l.self_attn(t, mask=tgt_mask))
        y = residual(l.sub[1].norm, y, lambda t: {CROSS})
        y = residual(l.sub[2].norm, y, l.ffn)
    return {OUT}'''
def fwd(RES='norm(x + f(x))', TGTM='make_tgt_mask(tgt)', SRCEMB='model.src_pos(model.src_emb(src))', I1='1', Z='x',
        DEC='l in model.decoder', CROSS='l.cross_attn(t, z, mask=src_mask)', OUT='model.generator(y)'):
    return FWD.format(RES=RES, TGTM=TGTM, SRCEMB=SRCEMB, I1=I1, Z=Z, DEC=DEC, CROSS=CROSS, OUT=OUT)
A(nb, 'my_forward', 'the source table read directly (src_emb.lut): no sqrt(d_model) scale', fwd(SRCEMB='model.src_pos(model.src_emb.lut(src))'))
A(nb, 'my_forward', "nanoGPT's pre-LN residual: x + f(norm(x))", fwd(RES='x + f(norm(x))'))
A(nb, 'my_forward', "nanoGPT's causal mask alone: the target's pads visible", fwd(TGTM='torch.ones(tgt.shape[1], tgt.shape[1], dtype=torch.bool).tril()[None, None]'))
A(nb, 'my_forward', 'cross-attention with the memory as the query', fwd(CROSS='l.cross_attn(z, t, mask=src_mask)'))
A(nb, 'my_forward', 'cross-attention masked with the target mask', fwd(CROSS='l.cross_attn(t, z, mask=tgt_mask)'))
A(nb, 'my_forward', "each decoder layer reads its own encoder layer's output (an RNN stack's habit)", """
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
A(nb, 'my_forward', "the decoder's last hidden state, no generator (Hugging Face's last_hidden_state)", fwd(OUT='y'))
A(nb, 'my_forward', "log-softmax on the logits (the Annotated Transformer's Generator)", fwd(OUT='model.generator(y).log_softmax(-1)'))
A(nb, 'my_forward', "the encoder's first norm used for both its sub-layers", fwd(I1='0'))
A(nb, 'my_forward', "a final LayerNorm on the memory (nn.Transformer's encoder norm)", fwd(Z='F.layer_norm(x, x.shape[-1:])'))
A(nb, 'my_forward', 'the decoder layers run in reverse order', fwd(DEC='l in reversed(model.decoder)'))
CNT = '''
def parsing_counts():
    cfg = TransformerConfig({CFG})
    with torch.device('meta'): tied = count_params(Transformer(cfg))
    return {RET}'''
def cnt(CFG='N=4, d_model=1024, src_vocab=16000, tgt_vocab=16000', RET='tied, tied + 2 * 16000 * 1024'):
    return CNT.format(CFG=CFG, RET=RET)
A(nb, 'parsing_counts', "d_ff = 4 * d_model, GPT's rule", cnt(CFG='N=4, d_model=1024, d_ff=4096, src_vocab=16000, tgt_vocab=16000'))
A(nb, 'parsing_counts', 'N = 6, the base model\'s depth', cnt(CFG='N=6, d_model=1024, src_vocab=16000, tgt_vocab=16000'))
A(nb, 'parsing_counts', 'untied with one more matrix (embeddings shared, output layer separate)', cnt(RET='tied, tied + 16000 * 1024'))
A(nb, 'parsing_counts', 'returns (untied, tied)', cnt(RET='tied + 2 * 16000 * 1024, tied'))
A(nb, 'parsing_counts', 'the weights counted, not the biases or norms', """
def parsing_counts():
    cfg = TransformerConfig(N=4, d_model=1024, src_vocab=16000, tgt_vocab=16000)
    m = Transformer(cfg)
    tied = sum(p.numel() for n, p in m.named_parameters() if n.endswith('weight') and p.dim() == 2)
    return tied, tied + 2 * 16000 * 1024""")
A(nb, 'parsing_counts', "GPT's estimate 12 N d_model^2 + V d_model", """
def parsing_counts():
    tied = 12 * 4 * 1024 ** 2 + 16000 * 1024
    return tied, tied + 2 * 16000 * 1024""")
A(nb, 'parsing_counts', 'a dict {tied, untied}', cnt(RET="dict(tied=tied, untied=tied + 2 * 16000 * 1024)"))
A(nb, 'parsing_counts', 'in millions, rounded to one decimal', cnt(RET='round(tied / 1e6, 1), round((tied + 2 * 16000 * 1024) / 1e6, 1)'))
A(nb, 'parsing_counts', 'd_model left at 512', cnt(CFG='N=4, src_vocab=16000, tgt_vocab=16000', RET='tied, tied + 2 * 16000 * 512'))
A(nb, 'parsing_counts', 'untied: three more matrices, not two', cnt(RET='tied, tied + 3 * 16000 * 1024'))

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
RA = '''
def restricted_attention(q, k, v, r):
    n, w = q.shape[-2], {W}
    win = lambda t: {WIN}
    s = torch.einsum('bhnd,bhndw->bhnw', q, win(k)) / {SCALE}
    j = torch.arange(n)[:, None] + torch.arange(-w, w + 1)
    {FILL}
    return {RET}'''
def ra(W='r // 2', WIN='F.pad(t, (0, 0, w, w)).unfold(-2, 2 * w + 1, 1)', SCALE='q.shape[-1] ** 0.5',
       FILL="s = s.masked_fill((j < 0) | (j >= n), float('-inf'))", RET="torch.einsum('bhnw,bhndw->bhnd', s.softmax(-1), win(v))"):
    return RA.format(W=W, WIN=WIN, SCALE=SCALE, FILL=FILL, RET=RET)
A(nb, 'restricted_attention', "full n x n scores masked with local_mask (Hugging Face's fallback)", """
def restricted_attention(q, k, v, r):
    return attention(q, k, v, local_mask(q.shape[-2], r))[0]""")
A(nb, 'restricted_attention', 'the padded rows keep their score of 0', ra(FILL='pass'))
A(nb, 'restricted_attention', 'scaled by sqrt(r), the window, not sqrt(d_k)', ra(SCALE='r ** 0.5'))
A(nb, 'restricted_attention', 'r read as the half-width: 2r + 1 keys', ra(W='r'))
A(nb, 'restricted_attention', "the right end's test j > n, not j >= n", ra(FILL="s = s.masked_fill((j < 0) | (j > n), float('-inf'))"))
A(nb, 'restricted_attention', 'output laid out (B, n, h, d_k)', ra(RET="torch.einsum('bhnw,bhndw->bnhd', s.softmax(-1), win(v))"))
A(nb, 'restricted_attention', "F.pad(t, (w, w)): the features padded, not the positions", ra(WIN='F.pad(t, (w, w)).unfold(-2, 2 * w + 1, 1)'))
A(nb, 'restricted_attention', 'softmax over the positions (dim -2), not the window', ra(RET="torch.einsum('bhnw,bhndw->bhnd', s.softmax(-2), win(v))"))
A(nb, 'restricted_attention', 'returns (output, weights)', ra(RET="torch.einsum('bhnw,bhndw->bhnd', s.softmax(-1), win(v)), s.softmax(-1)"))
A(nb, 'restricted_attention', 'windows of 2w rows: unfold(-2, 2 * w, 1)', """
def restricted_attention(q, k, v, r):
    n, w = q.shape[-2], r // 2
    win = lambda t: F.pad(t, (0, 0, w, w)).unfold(-2, 2 * w, 1)[..., :n, :, :]
    s = torch.einsum('bhnd,bhndw->bhnw', q, win(k)) / q.shape[-1] ** 0.5
    j = torch.arange(n)[:, None] + torch.arange(-w, w)
    s = s.masked_fill((j < 0) | (j >= n), float('-inf'))
    return torch.einsum('bhnw,bhndw->bhnd', s.softmax(-1), win(v))""")
A(nb, 'restricted_attention', 'divided by sqrt(d_k) after the softmax', ra(SCALE='1', RET="torch.einsum('bhnw,bhndw->bhnd', s.softmax(-1) / q.shape[-1] ** 0.5, win(v))"))
A(nb, 'restricted_attention', 'returned in float32 whatever the inputs', ra(RET="torch.einsum('bhnw,bhndw->bhnd', s.softmax(-1), win(v)).float()"))

# 08_data: learn_bpe, segment
nb = '08_data'
BPE_RIGHT = '''
def _merge(syms, pair):
    i = 0
    while i < len(syms) - 1:
        if (syms[i], syms[i + 1]) == pair: syms[i:i + 2] = [syms[i] + syms[i + 1]]
        else: i += 1
    return syms
def learn_bpe(word_counts, n_merges):
    vocab = {{tuple(w) + ('</w>',): c for w, c in word_counts.items()}}
    merges = []
    for _ in range({ROUNDS}):
        pairs = Counter()
        for syms, c in vocab.items():
            for a, b in zip(syms, syms[1:]): pairs[a, b] += {WEIGHT}
        {STOP}
        best = {BEST}
        merges.append(best)
        {UPDATE}
    return merges
def segment(word, merges):
    syms = {SEGSTART}
    for pair in merges: syms = _merge(syms, pair)
    return {SEGRET}'''
def bpe(ROUNDS='n_merges', WEIGHT='c', STOP='if not pairs: break', BEST='min(pairs, key=lambda p: (-pairs[p], p))',
        UPDATE='vocab = {tuple(_merge(list(syms), best)): c for syms, c in vocab.items()}', SEGSTART="list(word) + ['</w>']", SEGRET='syms'):
    return BPE_RIGHT.format(ROUNDS=ROUNDS, WEIGHT=WEIGHT, STOP=STOP, BEST=BEST, UPDATE=UPDATE, SEGSTART=SEGSTART, SEGRET=SEGRET)
A(nb, 'bpe', None, bpe())
A(nb, 'bpe', "each word's pairs counted once, not weighted by its count", bpe(WEIGHT='1'))
A(nb, 'bpe', 'ties to the largest pair: max(pairs, key=(count, pair))', bpe(BEST='max(pairs, key=lambda p: (pairs[p], p))'))
A(nb, 'bpe', "ties to the first pair counted: Counter.most_common(1)", bpe(BEST='pairs.most_common(1)[0][0]'))
A(nb, 'bpe', "no end-of-word symbol (GPT-2's byte-level BPE)", """
def _merge(syms, pair):
    i = 0
    while i < len(syms) - 1:
        if (syms[i], syms[i + 1]) == pair: syms[i:i + 2] = [syms[i] + syms[i + 1]]
        else: i += 1
    return syms
def learn_bpe(word_counts, n_merges):
    vocab = {tuple(w): c for w, c in word_counts.items()}
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
    syms = list(word)
    for pair in merges: syms = _merge(syms, pair)
    return syms""")
A(nb, 'bpe', "SentencePiece's word-start marker '\u2581' in front, no '</w>'", """
def _merge(syms, pair):
    i = 0
    while i < len(syms) - 1:
        if (syms[i], syms[i + 1]) == pair: syms[i:i + 2] = [syms[i] + syms[i + 1]]
        else: i += 1
    return syms
def learn_bpe(word_counts, n_merges):
    vocab = {('\u2581',) + tuple(w): c for w, c in word_counts.items()}
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
    syms = ['\u2581'] + list(word)
    for pair in merges: syms = _merge(syms, pair)
    return syms""")
A(nb, 'bpe', "merges recorded as 'a b' strings (Hugging Face's merges.txt)", """
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
        merges.append(' '.join(best))
        vocab = {tuple(_merge(list(syms), best)): c for syms, c in vocab.items()}
    return merges
def segment(word, merges):
    syms = list(word) + ['</w>']
    for m in merges: syms = _merge(syms, tuple(m.split(' ')))
    return syms""")
A(nb, 'bpe', 'str.replace on the space-joined symbols: merges across symbol boundaries', """
def learn_bpe(word_counts, n_merges):
    vocab = {' '.join(list(w) + ['</w>']): c for w, c in word_counts.items()}
    merges = []
    for _ in range(n_merges):
        pairs = Counter()
        for word, c in vocab.items():
            syms = word.split()
            for a, b in zip(syms, syms[1:]): pairs[a, b] += c
        if not pairs: break
        best = min(pairs, key=lambda p: (-pairs[p], p))
        merges.append(best)
        vocab = {w.replace(' '.join(best), ''.join(best)): c for w, c in vocab.items()}
    return merges
def segment(word, merges):
    s = ' '.join(list(word) + ['</w>'])
    for pair in merges: s = s.replace(' '.join(pair), ''.join(pair))
    return s.split()""")
A(nb, 'bpe', 'one merge too many: range(n_merges + 1)', bpe(ROUNDS='n_merges + 1'))
A(nb, 'bpe', 'no stop when no pair is left: min() of an empty Counter', bpe(STOP='pass'))
A(nb, 'bpe', 'pairs counted on the original characters every round', bpe(UPDATE='pass'))
A(nb, 'bpe', 'segment returns the pieces joined by spaces, one string', bpe(SEGRET="' '.join(syms)"))
A(nb, 'bpe', "segment without the '</w>' that learn_bpe adds", bpe(SEGSTART='list(word)'))
A(nb, 'bpe', 'segment merges only the first occurrence of each pair', """
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
    for pair in merges:
        for i in range(len(syms) - 1):
            if (syms[i], syms[i + 1]) == pair: syms[i:i + 2] = [syms[i] + syms[i + 1]]; break
    return syms""")

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
A(nb, 'my_noam_lr', "LambdaLR's 0-based count: step + 1", """
def my_noam_lr(step, d_model=512, warmup=4000):
    step = step + 1
    return d_model ** -0.5 * min(step ** -0.5, step * warmup ** -1.5)""")
A(nb, 'my_noam_lr', "the Annotated Transformer's factor 2", """
def my_noam_lr(step, d_model=512, warmup=4000):
    if step == 0: return 0.0
    return 2 * d_model ** -0.5 * min(step ** -0.5, step * warmup ** -1.5)""")
A(nb, 'my_noam_lr', 'max for min', """
def my_noam_lr(step, d_model=512, warmup=4000):
    if step == 0: return 0.0
    return d_model ** -0.5 * max(step ** -0.5, step * warmup ** -1.5)""")
A(nb, 'my_noam_lr', 'd_model ** 0.5: multiplied, not divided', """
def my_noam_lr(step, d_model=512, warmup=4000):
    if step == 0: return 0.0
    return d_model ** 0.5 * min(step ** -0.5, step * warmup ** -1.5)""")
A(nb, 'my_noam_lr', 'no case for step 0: 0 ** -0.5 raises', """
def my_noam_lr(step, d_model=512, warmup=4000):
    return d_model ** -0.5 * min(step ** -0.5, step * warmup ** -1.5)""")
A(nb, 'my_noam_lr', 'a 0-d tensor, not a float', """
def my_noam_lr(step, d_model=512, warmup=4000):
    s = torch.tensor(float(step))
    return torch.where(s == 0, torch.tensor(0.0), d_model ** -0.5 * torch.minimum(s.clamp(min=1) ** -0.5, s * warmup ** -1.5))""")
A(nb, 'my_noam_lr', 'the exponent -1 // 2, integer division: d_model ** -1', """
def my_noam_lr(step, d_model=512, warmup=4000):
    if step == 0: return 0.0
    return d_model ** (-1 // 2) * min(step ** (-1 / 2), step * warmup ** (-3 / 2))""")
A(nb, 'my_noam_lr', 'signature (step, warmup, d_model): the sizes read the other way', """
def my_noam_lr(step, warmup=4000, d_model=512):
    if step == 0: return 0.0
    return d_model ** -0.5 * min(step ** -0.5, step * warmup ** -1.5)""")
A(nb, 'my_noam_lr', 'd_model fixed at 512 whatever the argument', """
def my_noam_lr(step, d_model=512, warmup=4000):
    if step == 0: return 0.0
    return 512 ** -0.5 * min(step ** -0.5, step * warmup ** -1.5)""")
A(nb, 'my_noam_lr', 'the warm-up as a linear ramp to lr(warmup) over warmup - 1 steps', """
def my_noam_lr(step, d_model=512, warmup=4000):
    if step == 0: return 0.0
    peak = d_model ** -0.5 * warmup ** -0.5
    return peak * min(1.0, (step - 1) / (warmup - 1)) if step < warmup else d_model ** -0.5 * step ** -0.5""")
LS = '''
def my_label_smoothing(logits, target, eps, pad_id=PAD_ID):
    V = logits.shape[-1]
    {BODY}'''
A(nb, 'my_label_smoothing', "the Annotated Transformer's eps / (V - 2), the pad column zeroed", LS.format(BODY="""q = torch.full_like(logits, eps / (V - 2))
    q.scatter_(-1, target[..., None], 1 - eps)
    q[..., pad_id] = 0
    loss = -(q * logits.log_softmax(-1)).sum(-1)
    return loss[target != pad_id].mean()"""))
A(nb, 'my_label_smoothing', 'mean over every position, pads included', LS.format(BODY="""q = torch.full_like(logits, eps / V)
    q.scatter_add_(-1, target[..., None], torch.full_like(logits[..., :1], 1 - eps))
    loss = -(q * logits.log_softmax(-1)).sum(-1)
    return loss.mean()"""))
A(nb, 'my_label_smoothing', "fairseq's sum over the tokens, not the mean", LS.format(BODY="""q = torch.full_like(logits, eps / V)
    q.scatter_add_(-1, target[..., None], torch.full_like(logits[..., :1], 1 - eps))
    loss = -(q * logits.log_softmax(-1)).sum(-1)
    return loss[target != pad_id].sum()"""))
A(nb, 'my_label_smoothing', 'log of the softmax: -inf on large logits', LS.format(BODY="""q = torch.full_like(logits, eps / V)
    q.scatter_add_(-1, target[..., None], torch.full_like(logits[..., :1], 1 - eps))
    loss = -(q * logits.softmax(-1).log()).sum(-1)
    return loss[target != pad_id].mean()"""))
A(nb, 'my_label_smoothing', 'scatter_ overwrites: the reference token gets 1 - eps, not 1 - eps + eps/V', LS.format(BODY="""q = torch.full_like(logits, eps / V)
    q.scatter_(-1, target[..., None], 1 - eps)
    loss = -(q * logits.log_softmax(-1)).sum(-1)
    return loss[target != pad_id].mean()"""))
A(nb, 'my_label_smoothing', 'F.cross_entropy with ignore_index=PAD_ID whatever pad_id says', LS.format(BODY="""return F.cross_entropy(logits.reshape(-1, V), target.reshape(-1), label_smoothing=eps, ignore_index=PAD_ID)"""))
A(nb, 'my_label_smoothing', 'F.cross_entropy on (B, n, V) logits: the class axis is 1', LS.format(BODY="""return F.cross_entropy(logits, target, label_smoothing=eps, ignore_index=pad_id)"""))
A(nb, 'my_label_smoothing', 'returns (loss, nll)', LS.format(BODY="""q = torch.full_like(logits, eps / V)
    q.scatter_add_(-1, target[..., None], torch.full_like(logits[..., :1], 1 - eps))
    lp = logits.log_softmax(-1)
    keep = target != pad_id
    return -(q * lp).sum(-1)[keep].mean(), -lp.gather(-1, target[..., None])[..., 0][keep].mean()"""))
A(nb, 'my_label_smoothing', 'log_softmax(1): the class axis of 2-d logits', LS.format(BODY="""q = torch.full_like(logits, eps / V)
    q.scatter_add_(-1, target[..., None], torch.full_like(logits[..., :1], 1 - eps))
    loss = -(q * logits.log_softmax(1)).sum(-1)
    return loss[target != pad_id].mean()"""))
A(nb, 'my_label_smoothing', "each sentence's mean, then the mean over sentences", LS.format(BODY="""q = torch.full_like(logits, eps / V)
    q.scatter_add_(-1, target[..., None], torch.full_like(logits[..., :1], 1 - eps))
    loss = -(q * logits.log_softmax(-1)).sum(-1)
    keep = (target != pad_id).to(loss.dtype)
    return ((loss * keep).sum(-1) / keep.sum(-1)).mean()"""))
A(nb, 'my_label_smoothing', 'the target one-hot mixed with uniform as (1 - eps) * onehot + eps, no 1/V', LS.format(BODY="""q = (1 - eps) * F.one_hot(target, V).to(logits.dtype) + eps
    loss = -(q * logits.log_softmax(-1)).sum(-1)
    return loss[target != pad_id].mean()"""))

# 10_decoding: my_greedy_step (the notebook's toy model, trained by its own cells)
nb = '10_decoding'
A(nb, 'my_greedy_step', None, """
def my_greedy_step(model, src, ys):
    logits = model(src, ys)[:, -1]
    return next_token_logits(logits).argmax(-1)""")
A(nb, 'my_greedy_step', 'the first position\'s logits, [:, 0]', """
def my_greedy_step(model, src, ys):
    return next_token_logits(model(src, ys)[:, 0]).argmax(-1)""")
A(nb, 'my_greedy_step', 'sampled from the softmax, not the argmax', """
def my_greedy_step(model, src, ys):
    p = next_token_logits(model(src, ys)[:, -1]).softmax(-1)
    return torch.multinomial(p, 1)[:, 0]""")
A(nb, 'my_greedy_step', "nanoGPT's idx_next of shape (B, 1)", """
def my_greedy_step(model, src, ys):
    return next_token_logits(model(src, ys)[:, -1]).argmax(-1, keepdim=True)""")
A(nb, 'my_greedy_step', "the prefix with the token appended (nanoGPT's generate)", """
def my_greedy_step(model, src, ys):
    nxt = next_token_logits(model(src, ys)[:, -1]).argmax(-1, keepdim=True)
    return torch.cat([ys, nxt], dim=1)""")
A(nb, 'my_greedy_step', 'model(ys, src): the arguments the other way', """
def my_greedy_step(model, src, ys):
    return next_token_logits(model(ys, src)[:, -1]).argmax(-1)""")
A(nb, 'my_greedy_step', 'only the last token fed, as with a cache (ys[:, -1:])', """
def my_greedy_step(model, src, ys):
    return next_token_logits(model(src, ys[:, -1:])[:, -1]).argmax(-1)""")
A(nb, 'my_greedy_step', 'PAD forbidden by hand, BOS left allowed', """
def my_greedy_step(model, src, ys):
    logits = model(src, ys)[:, -1]
    logits[:, PAD_ID] = float('-inf')
    return logits.argmax(-1)""")
A(nb, 'my_greedy_step', 'topk(1).values: the scores, not the tokens', """
def my_greedy_step(model, src, ys):
    return next_token_logits(model(src, ys)[:, -1]).topk(1, dim=-1).values[:, 0]""")
A(nb, 'my_greedy_step', 'a Python list of ints (tolist())', """
def my_greedy_step(model, src, ys):
    return next_token_logits(model(src, ys)[:, -1]).argmax(-1).tolist()""")
A(nb, 'my_greedy_step', 'model.train() left on: dropout while decoding', """
def my_greedy_step(model, src, ys):
    model.train()
    return next_token_logits(model(src, ys)[:, -1]).argmax(-1)""")
A(nb, 'my_greedy_step', 'EOS forbidden too, as a minimum length does', """
def my_greedy_step(model, src, ys):
    logits = next_token_logits(model(src, ys)[:, -1])
    logits[:, EOS_ID] = float('-inf')
    return logits.argmax(-1)""")
A(nb, 'my_greedy_step', 'argmax over the positions of the last token\'s row, dim=0', """
def my_greedy_step(model, src, ys):
    return next_token_logits(model(src, ys)[:, -1]).argmax(0)""")

# 11_results: my_bleu
nb = '11_results'
BLEU = '''
def my_bleu(hyps, refs):
    ngrams = lambda ws, n: Counter(tuple(ws[i:i + n]) for i in range(len(ws) - n + 1))
    match, total, c, r = [0] * 4, [0] * 4, 0, 0
    for h, ref in zip(hyps, {REFS}):
        h, ref = {SPLIT}
        c, r = c + len(h), r + len(ref)
        for n in range(1, {NMAX}):
            match[n - 1] += {MATCH}
            total[n - 1] += {TOTAL}
    bp = {BP}
    return {RET}'''
def bleu(REFS='refs', SPLIT='h.split(), ref.split()', NMAX='5', MATCH='sum((ngrams(h, n) & ngrams(ref, n)).values())',
         TOTAL='max(len(h) - n + 1, 0)', BP='min(1.0, math.exp(1 - r / c))',
         RET='100 * bp * math.exp(sum(math.log(m / t) for m, t in zip(match, total)) / 4)'):
    return BLEU.format(REFS=REFS, SPLIT=SPLIT, NMAX=NMAX, MATCH=MATCH, TOTAL=TOTAL, BP=BP, RET=RET)
A(nb, 'my_bleu', None, bleu())
A(nb, 'my_bleu', "refs read as sacreBLEU's list of reference streams (refs[0])", bleu(REFS='refs[0]'))
A(nb, 'my_bleu', 'brevity penalty exp(1 - c/r): lengths the other way', bleu(BP='min(1.0, math.exp(1 - c / r))'))
A(nb, 'my_bleu', 'brevity penalty with no min(1, .): long hypotheses rewarded', bleu(BP='math.exp(1 - r / c)'))
A(nb, 'my_bleu', 'arithmetic mean of the precisions', bleu(RET='100 * bp * sum(m / t for m, t in zip(match, total)) / 4'))
A(nb, 'my_bleu', 'unclipped matches', bleu(MATCH='sum(cnt for g, cnt in ngrams(h, n).items() if g in ngrams(ref, n))'))
A(nb, 'my_bleu', 'n-grams up to 3', bleu(NMAX='4', RET='100 * bp * math.exp(sum(math.log(m / t) for m, t in zip(match[:3], total[:3])) / 3)'))
A(nb, 'my_bleu', 'a score between 0 and 1', bleu(RET='bp * math.exp(sum(math.log(m / t) for m, t in zip(match, total)) / 4)'))
A(nb, 'my_bleu', 'len(h) as the count of every order', bleu(TOTAL='len(h)'))
A(nb, 'my_bleu', 'characters, not words: list(h)', bleu(SPLIT='list(h), list(ref)'))
A(nb, 'my_bleu', 'add-one smoothing on every order above 1', bleu(RET='100 * bp * math.exp(sum(math.log((m + (n > 0)) / (t + (n > 0))) for n, (m, t) in enumerate(zip(match, total))) / 4)'))
A(nb, 'my_bleu', "lowercased first (sacreBLEU's lowercase=True)", bleu(SPLIT='h.lower().split(), ref.lower().split()'))
A(nb, 'my_bleu', 'returns (score, precisions, bp), as sacreBLEU prints it', bleu(RET='100 * bp * math.exp(sum(math.log(m / t) for m, t in zip(match, total)) / 4), [100 * m / t for m, t in zip(match, total)], bp'))

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
A(nb, 'beyond_noise', 'the noise as the standard deviation of the seed runs', """
import statistics
def beyond_noise(recs):
    base = next(r['bleu'] for r in recs if r['id'] == 'base')
    noise = statistics.pstdev([r['bleu'] for r in recs if r['variant'] == 'base'])
    return [r['id'] for r in recs if r['variant'] != 'base' and abs(r['bleu'] - base) > noise]""")
A(nb, 'beyond_noise', '>= the spread, not >', """
def beyond_noise(recs):
    base = next(r['bleu'] for r in recs if r['id'] == 'base')
    noise = max(abs(r['bleu'] - base) for r in recs if r['variant'] == 'base' and r['id'] != 'base')
    return [r['id'] for r in recs if r['variant'] != 'base' and abs(r['bleu'] - base) >= noise]""")
A(nb, 'beyond_noise', 'the records returned, not their ids', """
def beyond_noise(recs):
    base = next(r['bleu'] for r in recs if r['id'] == 'base')
    noise = max(abs(r['bleu'] - base) for r in recs if r['variant'] == 'base' and r['id'] != 'base')
    return [r for r in recs if r['variant'] != 'base' and abs(r['bleu'] - base) > noise]""")
A(nb, 'beyond_noise', 'only the variants above base', """
def beyond_noise(recs):
    base = next(r['bleu'] for r in recs if r['id'] == 'base')
    noise = max(abs(r['bleu'] - base) for r in recs if r['variant'] == 'base' and r['id'] != 'base')
    return [r['id'] for r in recs if r['variant'] != 'base' and r['bleu'] - base > noise]""")
A(nb, 'beyond_noise', "base's BLEU as the mean of its seeds", """
def beyond_noise(recs):
    seeds = [r['bleu'] for r in recs if r['variant'] == 'base']
    base = sum(seeds) / len(seeds)
    noise = max(abs(b - base) for b in seeds)
    return [r['id'] for r in recs if r['variant'] != 'base' and abs(r['bleu'] - base) > noise]""")
A(nb, 'beyond_noise', 'the spread as max - min of all the base runs', """
def beyond_noise(recs):
    base = next(r['bleu'] for r in recs if r['id'] == 'base')
    seeds = [r['bleu'] for r in recs if r['variant'] == 'base']
    noise = max(seeds) - min(seeds)
    return [r['id'] for r in recs if r['variant'] != 'base' and abs(r['bleu'] - base) > noise]""")
A(nb, 'beyond_noise', "base found as the first record of variant 'base'", """
def beyond_noise(recs):
    base = next(r['bleu'] for r in recs if r['variant'] == 'base')
    noise = max(abs(r['bleu'] - base) for r in recs if r['variant'] == 'base' and r['id'] != 'base')
    return [r['id'] for r in recs if r['variant'] != 'base' and abs(r['bleu'] - base) > noise]""")
A(nb, 'beyond_noise', 'relative differences (in % of base) against the absolute spread', """
def beyond_noise(recs):
    base = next(r['bleu'] for r in recs if r['id'] == 'base')
    noise = max(abs(r['bleu'] - base) for r in recs if r['variant'] == 'base' and r['id'] != 'base')
    return [r['id'] for r in recs if r['variant'] != 'base' and 100 * abs(r['bleu'] - base) / base > noise]""")
A(nb, 'beyond_noise', "the variants' names (r['variant']), not their ids", """
def beyond_noise(recs):
    base = next(r['bleu'] for r in recs if r['id'] == 'base')
    noise = max(abs(r['bleu'] - base) for r in recs if r['variant'] == 'base' and r['id'] != 'base')
    return [r['variant'] for r in recs if r['variant'] != 'base' and abs(r['bleu'] - base) > noise]""")
A(nb, 'beyond_noise', 'a dict id -> difference', """
def beyond_noise(recs):
    base = next(r['bleu'] for r in recs if r['id'] == 'base')
    noise = max(abs(r['bleu'] - base) for r in recs if r['variant'] == 'base' and r['id'] != 'base')
    return {r['id']: r['bleu'] - base for r in recs if r['variant'] != 'base' and abs(r['bleu'] - base) > noise}""")
A(nb, 'heads_looking', 'heads numbered from 0', """
def heads_looking(w, rows, col):
    return [h for h in range(w.shape[0]) if all(w[h, r].argmax() == col for r in rows)]""")
A(nb, 'heads_looking', 'any row, not every row', """
def heads_looking(w, rows, col):
    return [h + 1 for h in range(w.shape[0]) if any(w[h, r].argmax() == col for r in rows)]""")
A(nb, 'heads_looking', 'w[h, :, r]: the columns taken as the rows', """
def heads_looking(w, rows, col):
    return [h + 1 for h in range(w.shape[0]) if all(w[h, :, r].argmax() == col for r in rows)]""")
A(nb, 'heads_looking', 'the map read as (n_q, n_k, h): heads on the last axis', """
def heads_looking(w, rows, col):
    return [h + 1 for h in range(w.shape[-1]) if all(w[r, :, h].argmax() == col for r in rows)]""")
A(nb, 'heads_looking', 'the rows averaged, then one argmax', """
def heads_looking(w, rows, col):
    return [h + 1 for h in range(w.shape[0]) if w[h, list(rows)].mean(0).argmax() == col]""")
A(nb, 'heads_looking', 'a tensor of head numbers', """
def heads_looking(w, rows, col):
    return torch.tensor([h + 1 for h in range(w.shape[0]) if all(w[h, r].argmax() == col for r in rows)])""")
A(nb, 'heads_looking', 'a weight above 0.5 on col, not the largest', """
def heads_looking(w, rows, col):
    return [h + 1 for h in range(w.shape[0]) if all(w[h, r, col] > 0.5 for r in rows)]""")
A(nb, 'heads_looking', 'rows read as a (start, stop) range', """
def heads_looking(w, rows, col):
    rs = range(rows[0], rows[-1])
    return [h + 1 for h in range(w.shape[0]) if all(w[h, r].argmax() == col for r in rs)]""")
A(nb, 'heads_looking', 'a bool per head, not the head numbers', """
def heads_looking(w, rows, col):
    return [all(w[h, r].argmax() == col for r in rows) for h in range(w.shape[0])]""")
A(nb, 'heads_looking', 'argmax over the flattened rows compared with col', """
def heads_looking(w, rows, col):
    return [h + 1 for h in range(w.shape[0]) if w[h, list(rows)].flatten().argmax() == col]""")
ROWS = '''
def rows_ab(base):
    d, h = base['d_model'], base['h']; d_k = {DK}
    return {{**{{f'A-h{{k}}': {A} for k in {KS}}},
            **{{{BNAME}: {B} for k in {BKS}}}}}'''
def rows(DK="base.get('d_k') or d // h", A='dict(h=k, d_k=d // k, d_v=d // k)', KS='(max(1, h // 8), h // 2, 2 * h, 4 * h)',
         BNAME="f'B-dk{k}'", B='dict(d_k=k, d_v=d_k)', BKS='(d_k // 4, d_k // 2)'):
    return ROWS.format(DK=DK, A=A, KS=KS, BNAME=BNAME, B=B, BKS=BKS)
A(nb, 'rows_ab', "(A) keeps the base's d_v", rows(A="dict(h=k, d_k=d // k, d_v=base.get('d_v') or d // h)"))
A(nb, 'rows_ab', '(A) h // 8 without max(1, .): 0 heads', rows(KS='(h // 8, h // 2, 2 * h, 4 * h)'))
A(nb, 'rows_ab', "(A) named from the head size, 'A-h64'", """
def rows_ab(base):
    d, h = base['d_model'], base['h']; d_k = base.get('d_k') or d // h
    return {**{f'A-h{d // k}': dict(h=k, d_k=d // k, d_v=d // k) for k in (max(1, h // 8), h // 2, 2 * h, 4 * h)},
            **{f'B-dk{k}': dict(d_k=k, d_v=d_k) for k in (d_k // 4, d_k // 2)}}""")
A(nb, 'rows_ab', '(B) shrinks d_v with d_k', rows(B='dict(d_k=k, d_v=k)'))
A(nb, 'rows_ab', "(B) from d_model // h, not the preset's own d_k", rows(DK='d // h'))
A(nb, 'rows_ab', "(A) the paper's own counts 1, 4, 16, 32", rows(KS='(1, 4, 16, 32)'))
A(nb, 'rows_ab', '(A) h/8, h/4, h/2, 2h: no 4h', rows(KS='(max(1, h // 8), h // 4, h // 2, 2 * h)'))
A(nb, 'rows_ab', "(B) d_k / 4 with true division: 'B-dk16.0'", rows(BKS='(d_k / 4, d_k / 2)'))
A(nb, 'rows_ab', 'a list of (name, overrides) pairs, not a dict', """
def rows_ab(base):
    d, h = base['d_model'], base['h']; d_k = base.get('d_k') or d // h
    return [(f'A-h{k}', dict(h=k, d_k=d // k, d_v=d // k)) for k in (max(1, h // 8), h // 2, 2 * h, 4 * h)] + \\
           [(f'B-dk{k}', dict(d_k=k, d_v=d_k)) for k in (d_k // 4, d_k // 2)]""")
A(nb, 'rows_ab', '(A) without d_v', rows(A='dict(h=k, d_k=d // k)'))

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
LIN = '''
def my_linearize(tree):
    if isinstance(tree, str): return tree
    {PRE}
    lab = {LAB}
    return {RET}'''
def lin(PRE='if is_preterminal(tree): return tree[0]', LAB='coarse_label(tree.label())',
        RET="' '.join([f'({lab}', *(my_linearize(t) for t in tree), f'){lab}'])"):
    return LIN.format(PRE=PRE, LAB=LAB, RET=RET)
A(nb, 'my_linearize', 'POS nodes bracketed too: (NNP John )NNP', lin(PRE='pass'))
A(nb, 'my_linearize', 'labels kept whole: NP-SBJ, NP=1', lin(LAB='tree.label()'))
A(nb, 'my_linearize', 'a list of tokens, not one string', """
def my_linearize(tree):
    if isinstance(tree, str): return [tree]
    if is_preterminal(tree): return [tree[0]]
    lab = coarse_label(tree.label())
    return [f'({lab}', *(tok for t in tree for tok in my_linearize(t)), f'){lab}']""")
A(nb, 'my_linearize', 'tokens joined with no spaces', lin(RET="''.join([f'({lab}', *(my_linearize(t) for t in tree), f'){lab}'])"))
A(nb, 'my_linearize', "the closing label before its bracket: 'NP)'", lin(RET="' '.join([f'({lab}', *(my_linearize(t) for t in tree), f'{lab})'])"))
A(nb, 'my_linearize', 'closing label left with its function tags: (NP ... )NP-SBJ', lin(RET="' '.join([f'({lab}', *(my_linearize(t) for t in tree), f')' + tree.label()])"))
A(nb, 'my_linearize', "tags cut at the first '-' only: NP=1 kept, -NONE- emptied", lin(LAB="tree.label().split('-')[0]"))
A(nb, 'my_linearize', 'children in reverse order (a stack popped)', lin(RET="' '.join([f'({lab}', *(my_linearize(t) for t in reversed(tree)), f'){lab}'])"))
A(nb, 'my_linearize', "nltk's bracketing, str(tree) on one line", """
def my_linearize(tree):
    return ' '.join(str(tree).split())""")
A(nb, 'my_linearize', 'the POS tag in place of the word', lin(PRE='if is_preterminal(tree): return tree.label()'))
PRF = '''
def my_corpus_prf(counts):
    {BODY}'''
A(nb, 'my_corpus_prf', 'the mean of the sentences\' scores', PRF.format(BODY="""ps = [100 * m / t for m, g, t in counts]
    rs = [100 * m / g for m, g, t in counts]
    p, r = sum(ps) / len(ps), sum(rs) / len(rs)
    return p, r, 2 * p * r / (p + r)"""))
A(nb, 'my_corpus_prf', 'precision and recall swapped: matched over the reference as precision', PRF.format(BODY="""m, g, t = (sum(c[i] for c in counts) for i in range(3))
    p, r = 100 * m / g, 100 * m / t
    return p, r, 2 * p * r / (p + r)"""))
A(nb, 'my_corpus_prf', 'fractions, not percent', PRF.format(BODY="""m, g, t = (sum(c[i] for c in counts) for i in range(3))
    p, r = m / t, m / g
    return p, r, 2 * p * r / (p + r)"""))
A(nb, 'my_corpus_prf', 'F1 as the arithmetic mean (p + r) / 2', PRF.format(BODY="""m, g, t = (sum(c[i] for c in counts) for i in range(3))
    p, r = 100 * m / t, 100 * m / g
    return p, r, (p + r) / 2"""))
A(nb, 'my_corpus_prf', 'a dict of precision, recall, f1', PRF.format(BODY="""m, g, t = (sum(c[i] for c in counts) for i in range(3))
    p, r = 100 * m / t, 100 * m / g
    return dict(precision=p, recall=r, f1=2 * p * r / (p + r))"""))
A(nb, 'my_corpus_prf', "NumPy sum(axis=1): each sentence's three counts summed", PRF.format(BODY="""import numpy as np
    m, g, t = np.array(counts).sum(axis=1)[:3]
    p, r = 100 * m / t, 100 * m / g
    return p, r, 2 * p * r / (p + r)"""))
A(nb, 'my_corpus_prf', "rounded to two decimals, as EVALB prints", PRF.format(BODY="""m, g, t = (sum(c[i] for c in counts) for i in range(3))
    p, r = 100 * m / t, 100 * m / g
    return round(p, 2), round(r, 2), round(2 * p * r / (p + r), 2)"""))
A(nb, 'my_corpus_prf', 'matched summed, the other two from the last sentence', PRF.format(BODY="""m = 0
    for mm, g, t in counts: m += mm
    p, r = 100 * m / t, 100 * m / g
    return p, r, 2 * p * r / (p + r)"""))
A(nb, 'my_corpus_prf', 'F1 alone', PRF.format(BODY="""m, g, t = (sum(c[i] for c in counts) for i in range(3))
    return 200 * m / (g + t)"""))

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
A(nb, 'rms_norm_of', "Gemma's gain (1 + g)", """
def rms_norm_of(a, g, eps=1e-5):
    return a / torch.sqrt(a.pow(2).mean(-1, keepdim=True) + eps) * (1 + g)""")
A(nb, 'rms_norm_of', 'mean over axis 1, not the last', """
def rms_norm_of(a, g, eps=1e-5):
    return a / torch.sqrt(a.pow(2).mean(1, keepdim=True) + eps) * g""")
A(nb, 'rms_norm_of', "Hugging Face's LlamaRMSNorm: computed in float32, returned in float32", """
def rms_norm_of(a, g, eps=1e-5):
    x = a.to(torch.float32)
    return g.to(torch.float32) * (x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps))""")
A(nb, 'rms_norm_of', 'the gain applied before the norm: it cancels', """
def rms_norm_of(a, g, eps=1e-5):
    x = a * g
    return x / torch.sqrt(x.pow(2).mean(-1, keepdim=True) + eps)""")
A(nb, 'rms_norm_of', 'squares summed over d - 1 (an unbiased mean)', """
def rms_norm_of(a, g, eps=1e-5):
    return a / torch.sqrt(a.pow(2).sum(-1, keepdim=True) / (a.shape[-1] - 1) + eps) * g""")
A(nb, 'rms_norm_of', 'a NumPy array', """
def rms_norm_of(a, g, eps=1e-5):
    return (a / torch.sqrt(a.pow(2).mean(-1, keepdim=True) + eps) * g).detach().numpy()""")
A(nb, 'rms_norm_of', 'divided by the standard deviation (torch.std)', """
def rms_norm_of(a, g, eps=1e-5):
    return a / (a.std(-1, keepdim=True) + eps) * g""")
A(nb, 'rotate_query', "LLaMA's complex form with the conjugate: turned the other way", """
def rotate_query(q, m):
    d = len(q)
    freqs = 10000.0 ** (-torch.arange(0, d, 2, dtype=torch.float64) / d)
    z = torch.complex(q[0::2].double(), q[1::2].double()) * torch.polar(torch.ones_like(freqs), m * freqs).conj()
    return torch.stack([z.real, z.imag], -1).flatten().to(q.dtype)""")
A(nb, 'rotate_query', 'a complex tensor of d/2 numbers', """
def rotate_query(q, m):
    d = len(q)
    freqs = 10000.0 ** (-torch.arange(0, d, 2, dtype=torch.float64) / d)
    return torch.complex(q[0::2].double(), q[1::2].double()) * torch.polar(torch.ones_like(freqs), m * freqs)""")
A(nb, 'rotate_query', 'each pair swapped (x2, x1) without the minus sign', """
def rotate_query(q, m):
    a = m * 10000.0 ** (-torch.arange(0, len(q), 2, dtype=torch.float64) / len(q))
    x1, x2 = q[0::2].double(), q[1::2].double()
    return torch.stack([x1 * a.cos() + x2 * a.sin(), x2 * a.cos() + x1 * a.sin()], -1).flatten().to(q.dtype)""")
A(nb, 'rotate_query', 'theta_i = 10000^(-i/d): arange(d // 2) for 2i', """
def rotate_query(q, m):
    a = m * 10000.0 ** (-torch.arange(len(q) // 2, dtype=torch.float64) / len(q))
    x1, x2 = q[0::2].double(), q[1::2].double()
    return torch.stack([x1 * a.cos() - x2 * a.sin(), x1 * a.sin() + x2 * a.cos()], -1).flatten().to(q.dtype)""")
A(nb, 'rotate_query', "LLaMA 3's rope_theta 500000", """
def rotate_query(q, m):
    a = m * 500000.0 ** (-torch.arange(0, len(q), 2, dtype=torch.float64) / len(q))
    x1, x2 = q[0::2].double(), q[1::2].double()
    return torch.stack([x1 * a.cos() - x2 * a.sin(), x1 * a.sin() + x2 * a.cos()], -1).flatten().to(q.dtype)""")
A(nb, 'rotate_query', 'returned in float64', """
def rotate_query(q, m):
    a = m * 10000.0 ** (-torch.arange(0, len(q), 2, dtype=torch.float64) / len(q))
    x1, x2 = q[0::2].double(), q[1::2].double()
    return torch.stack([x1 * a.cos() - x2 * a.sin(), x1 * a.sin() + x2 * a.cos()], -1).flatten()""")
A(nb, 'group_heads', 'the mean of all h heads, g ignored', """
def group_heads(k, g):
    return k.mean(1, keepdim=True).expand_as(k).clone()""")
A(nb, 'group_heads', 'a list of h tensors, one per head', """
def group_heads(k, g):
    B, h, n, d = k.shape
    return list(k.view(B, g, h // g, n, d).mean(2).repeat_interleave(h // g, dim=1).unbind(1))""")
A(nb, 'group_heads', 'written into k in place', """
def group_heads(k, g):
    B, h, n, d = k.shape
    k.copy_(k.view(B, g, h // g, n, d).mean(2).repeat_interleave(h // g, dim=1))
    return k""")
A(nb, 'group_heads', "flash attention's (B, n, h, d) layout assumed", """
def group_heads(k, g):
    B, n, h, d = k.shape
    return k.view(B, n, g, h // g, d).mean(3).repeat_interleave(h // g, dim=2)""")
A(nb, 'group_heads', 'cast to float32', """
def group_heads(k, g):
    B, h, n, d = k.shape
    return k.float().view(B, g, h // g, n, d).mean(2).repeat_interleave(h // g, dim=1)""")
A(nb, 'group_heads', 'the group heads expanded as (B, g, h/g, n, d), not reshaped back', """
def group_heads(k, g):
    B, h, n, d = k.shape
    return k.view(B, g, h // g, n, d).mean(2, keepdim=True).expand(B, g, h // g, n, d)""")

# At most 14 wrong answers per notebook: where more were written, they are taken in turn from each exercise, in the
# order written (before any was run), and the rest set aside here, unrun
def _fourteen(answers, most=14):
    keep, aside = [], []
    for nb in dict.fromkeys(a[0] for a in answers):
        rows = [a for a in answers if a[0] == nb]
        keep += [a for a in rows if a[2] is None]
        queues = {ex: [a for a in rows if a[1] == ex and a[2] is not None] for ex in dict.fromkeys(a[1] for a in rows)}
        chosen = []
        while len(chosen) < most and any(queues.values()):
            for q in queues.values():
                if q and len(chosen) < most: chosen.append(q.pop(0))
        keep += [a for a in rows if a in chosen]
        aside += [a for q in queues.values() for a in q]
    return keep, aside
ANSWERS, SET_ASIDE = _fourteen(ANSWERS)
