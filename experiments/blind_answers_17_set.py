"""The seventeenth blind set's answers, for the notebooks 00_core to 07_why_self_attention only, written from the
exercises' text alone: (notebook, exercise, mistake, code), the mistake None for the right answer.
`experiments/blind_answers.py 17` runs them. This set leans toward answers shaped by other sources' conventions
(Hugging Face's dict of input_ids, additive masks, averaged head weights, 1-tuples of hidden states and GPT-2's 0.02
init; PyTorch's time-first pad_sequence and nn.MultiheadAttention's inverted masks; d2l's truncate_pad; fairseq's
time-first layout and sinusoid frequencies; LLMs-from-scratch's collate and causal attention; nanoGPT's last-position
logits and final LayerNorm; Mistral's causal sliding window; ALiBi's fixed slopes; LLaMA's RMSNorm; T5's bias-free
layers; BERT's GELU; the Annotated Transformer's Xavier init) and toward right values in the wrong container, dtype or
shape (dicts, tuples, lists of tensors, NumPy arrays, float16, float64, int16 and uint8 tensors, extra or missing
axes)."""
ANSWERS = []
def A(nb, ex, mistake, code): ANSWERS.append((nb, ex, mistake, code))

# 00_core: pad_batch
nb = '00_core'
A(nb, 'pad_batch', None, """
def pad_batch(seqs, pad_id=PAD_ID):
    n = max(len(s) for s in seqs)
    return torch.tensor([list(s) + [pad_id] * (n - len(s)) for s in seqs], dtype=torch.long)""")
A(nb, 'pad_batch', "Hugging Face's dict of input_ids and attention_mask", """
def pad_batch(seqs, pad_id=PAD_ID):
    n = max(len(s) for s in seqs)
    ids = torch.tensor([s + [pad_id] * (n - len(s)) for s in seqs])
    return {'input_ids': ids, 'attention_mask': (ids != pad_id).long()}""")
A(nb, 'pad_batch', "pad_sequence without batch_first: time-first (n, B)", """
from torch.nn.utils.rnn import pad_sequence
def pad_batch(seqs, pad_id=PAD_ID):
    return pad_sequence([torch.tensor(s) for s in seqs], padding_value=pad_id)""")
A(nb, 'pad_batch', "d2l's truncate_pad to a fixed num_steps = 10", """
def pad_batch(seqs, pad_id=PAD_ID, num_steps=10):
    return torch.tensor([s[:num_steps] + [pad_id] * (num_steps - len(s[:num_steps])) for s in seqs])""")
A(nb, 'pad_batch', 'BOS prepended to each sentence (add_special_tokens)', """
def pad_batch(seqs, pad_id=PAD_ID):
    n = max(len(s) for s in seqs) + 1
    return torch.tensor([[BOS_ID] + s + [pad_id] * (n - len(s) - 1) for s in seqs])""")
A(nb, 'pad_batch', 'a list of padded 1-d tensors, not one tensor', """
def pad_batch(seqs, pad_id=PAD_ID):
    n = max(len(s) for s in seqs)
    return [torch.tensor(s + [pad_id] * (n - len(s))) for s in seqs]""")
A(nb, 'pad_batch', 'a trailing feature axis: (B, n, 1)', """
def pad_batch(seqs, pad_id=PAD_ID):
    n = max(len(s) for s in seqs)
    return torch.tensor([s + [pad_id] * (n - len(s)) for s in seqs]).unsqueeze(-1)""")
A(nb, 'pad_batch', "pads with -1, nanoGPT's ignore index, not pad_id", """
def pad_batch(seqs, pad_id=PAD_ID):
    n = max(len(s) for s in seqs)
    return torch.tensor([s + [-1] * (n - len(s)) for s in seqs])""")
A(nb, 'pad_batch', 'the outer list changed: its items replaced by the padded rows', """
def pad_batch(seqs, pad_id=PAD_ID):
    n = max(len(s) for s in seqs)
    for i, s in enumerate(seqs): seqs[i] = s + [pad_id] * (n - len(s))
    return torch.tensor(seqs)""")
A(nb, 'pad_batch', 'the length of the first sentence taken as the longest (sorted input assumed)', """
def pad_batch(seqs, pad_id=PAD_ID):
    n = len(seqs[0])
    return torch.tensor([s[:n] + [pad_id] * (n - len(s)) for s in seqs])""")
A(nb, 'pad_batch', "LLMs-from-scratch's collate: (inputs, targets shifted by one)", """
def pad_batch(seqs, pad_id=PAD_ID):
    n = max(len(s) for s in seqs) + 1
    padded = torch.tensor([s + [pad_id] * (n - len(s)) for s in seqs])
    return padded[:, :-1], padded[:, 1:]""")
A(nb, 'pad_batch', 'int16 ids (to save memory), not torch.long', """
def pad_batch(seqs, pad_id=PAD_ID):
    n = max(len(s) for s in seqs)
    return torch.tensor([s + [pad_id] * (n - len(s)) for s in seqs], dtype=torch.int16)""")
A(nb, 'pad_batch', 'pad_id without its default', """
def pad_batch(seqs, pad_id):
    n = max(len(s) for s in seqs)
    return torch.tensor([s + [pad_id] * (n - len(s)) for s in seqs])""")
A(nb, 'pad_batch', 'the padded rows as a tuple of tuples (zip_longest), not a tensor', """
from itertools import zip_longest
def pad_batch(seqs, pad_id=PAD_ID):
    return tuple(zip(*zip_longest(*seqs, fillvalue=pad_id)))""")
A(nb, 'pad_batch', 'the time-first (n, B) batch of pad_sequence viewed as (B, n), not transposed', """
from torch.nn.utils.rnn import pad_sequence
def pad_batch(seqs, pad_id=PAD_ID):
    t = pad_sequence([torch.tensor(s) for s in seqs], padding_value=pad_id)
    return t.view(t.shape[1], t.shape[0])""")

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
A(nb, 'attention', 'the bool mask added to the scores as a number (an additive mask of 0 and 1)', """
def my_attention(q, k, v, mask=None):
    s = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if mask is not None: s = s + mask.to(s.dtype)
    w = s.softmax(dim=-1)
    return w @ v, w""")
A(nb, 'attention', "a causal mask always applied (LLMs-from-scratch's CausalAttention)", """
def my_attention(q, k, v, mask=None):
    s = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    n_q, n_k = s.shape[-2:]
    s = s.masked_fill(torch.triu(torch.ones(n_q, n_k, dtype=torch.bool), diagonal=1), float('-inf'))
    if mask is not None: s = s.masked_fill(~mask, float('-inf'))
    w = s.softmax(dim=-1)
    if mask is not None: w = w.masked_fill(~mask, 0.0)
    return w @ v, w""")
A(nb, 'attention', 'the weights multiplied by the mask after the softmax, not renormalised', """
def my_attention(q, k, v, mask=None):
    s = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    w = s.softmax(dim=-1)
    if mask is not None: w = w * mask
    return w @ v, w""")
A(nb, 'attention', 'the output and weights squeezed (.squeeze())', ATT.replace('return w @ v, w', 'return (w @ v).squeeze(), w.squeeze()'))
A(nb, 'attention', 'the output alone, as F.scaled_dot_product_attention returns', ATT.replace('return w @ v, w', 'return w @ v'))
A(nb, 'attention', "the weights averaged over the heads (nn.MultiheadAttention's average_attn_weights)", """
def my_attention(q, k, v, mask=None):
    s = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if mask is not None: s = s.masked_fill(~mask, float('-inf'))
    w = s.softmax(dim=-1)
    if mask is not None: w = w.masked_fill(~mask, 0.0)
    return w @ v, (w.mean(1) if w.dim() == 4 else w)""")
A(nb, 'attention', "the mask unsqueezed at 1, as for Hugging Face's (B, n_k) padding mask", ATT.replace(
    "s = s.masked_fill(~mask, float('-inf'))", "mask = mask.unsqueeze(1); s = s.masked_fill(~mask, float('-inf'))"))
A(nb, 'attention', 'scaled by sqrt(n_k), the number of keys', ATT.replace('math.sqrt(q.shape[-1])', 'math.sqrt(k.shape[-2])'))
A(nb, 'attention', 'log_softmax for the weights', ATT.replace('w = s.softmax(dim=-1)', 'w = s.log_softmax(dim=-1)'))
A(nb, 'attention', 'a softmax by hand without keepdim', """
def my_attention(q, k, v, mask=None):
    s = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if mask is not None: s = s.masked_fill(~mask, float('-inf'))
    e = (s - s.amax(-1, keepdim=True).clamp(min=-1e30)).exp()
    w = e / e.sum(-1)
    w = torch.nan_to_num(w)
    return w @ v, w""")
A(nb, 'restricted_mask', 'tril(r // 2) & triu(-r // 2): -r // 2 floors to -(r // 2) - 1 for an odd r', """
def restricted_mask(n, r):
    o = torch.ones(n, n, dtype=torch.bool)
    return (torch.tril(o, r // 2) & torch.triu(o, -r // 2))[None, None]""")
A(nb, 'restricted_mask', "a uint8 mask, old PyTorch's ByteTensor", """
def restricted_mask(n, r):
    i = torch.arange(n)
    return ((i[:, None] - i[None, :]).abs() <= r // 2)[None, None].to(torch.uint8)""")
A(nb, 'restricted_mask', "Mistral's causal sliding window of r keys", """
def restricted_mask(n, r):
    i = torch.arange(n)
    d = i[:, None] - i[None, :]
    return ((d >= 0) & (d < r))[None, None]""")
A(nb, 'restricted_mask', 'a NumPy bool array', """
import numpy as np
def restricted_mask(n, r):
    i = np.arange(n)
    return (np.abs(i[:, None] - i[None, :]) <= r // 2)[None, None]""")
A(nb, 'restricted_mask', 'one leading axis: (1, n, n)', """
def restricted_mask(n, r):
    i = torch.arange(n)
    return ((i[:, None] - i[None, :]).abs() <= r // 2)[None]""")
A(nb, 'restricted_mask', '|i - j| < r / 2 (true division): wrong for an even r', """
def restricted_mask(n, r):
    i = torch.arange(n)
    return ((i[:, None] - i[None, :]).abs() < r / 2)[None, None]""")
A(nb, 'restricted_mask', '(r - 1) // 2 on each side: wrong for an even r', """
def restricted_mask(n, r):
    i = torch.arange(n)
    return ((i[:, None] - i[None, :]).abs() <= (r - 1) // 2)[None, None]""")
A(nb, 'restricted_mask', 'an additive float mask, 0 inside and -inf outside (a T5-style bias)', """
def restricted_mask(n, r):
    i = torch.arange(n)
    keep = (i[:, None] - i[None, :]).abs() <= r // 2
    return torch.zeros(n, n).masked_fill(~keep, float('-inf'))[None, None]""")

# 02_multihead: split_heads/merge_heads, LoopMHA
nb = '02_multihead'
A(nb, 'heads', None, """
def split_heads(x, h):
    B, n, hd = x.shape
    return x.view(B, n, h, hd // h).transpose(1, 2)
def merge_heads(x):
    B, h, n, d = x.shape
    return x.transpose(1, 2).reshape(B, n, h * d)""")
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
MERGE = """
def merge_heads(x):
    B, h, n, d = x.shape
    return x.transpose(1, 2).reshape(B, n, h * d)"""
SPLIT = """
def split_heads(x, h):
    B, n, hd = x.shape
    return x.view(B, n, h, hd // h).transpose(1, 2)"""
A(nb, 'heads', 'h read as the size of a head: view(B, n, -1, h)', """
def split_heads(x, h):
    B, n, hd = x.shape
    return x.view(B, n, -1, h).transpose(1, 2)""" + MERGE)
A(nb, 'heads', 'merge flattened from axis 1: one vector per sentence', SPLIT + """
def merge_heads(x):
    return x.transpose(1, 2).flatten(1)""")
A(nb, 'heads', 'merge concatenates the heads along the positions (torch.cat dim=1)', SPLIT + """
def merge_heads(x):
    return torch.cat(x.unbind(1), dim=1)""")
A(nb, 'heads', 'split stacks the heads first: (h, B, n, d)', """
def split_heads(x, h):
    return torch.stack(x.chunk(h, dim=-1), dim=0)""" + MERGE)
A(nb, 'heads', 'split returns a tuple of h tensors (torch.split)', """
def split_heads(x, h):
    return torch.split(x, x.shape[-1] // h, dim=-1)""" + MERGE)
A(nb, 'heads', 'merge averages the heads (mean over axis 1)', SPLIT + """
def merge_heads(x):
    return x.mean(1)""")
A(nb, 'heads', 'split transposes the last two axes: (B, n, d, h)', """
def split_heads(x, h):
    B, n, hd = x.shape
    return x.view(B, n, h, hd // h).transpose(-1, -2)""" + MERGE)
A(nb, 'LoopMHA', "one wide Linear per projection, sliced in forward (Hugging Face's layout), no ModuleLists", '''
class LoopMHA(nn.Module):
    def __init__(self, d_model, h):
        super().__init__()
        self.h, self.d_k = h, d_model // h
        self.w_q, self.w_k, self.w_v = (nn.Linear(d_model, d_model) for _ in range(3))
        self.w_o = nn.Linear(d_model, d_model)
    def forward(self, x, mem=None, mask=None):
        mem = x if mem is None else mem
        m = None if mask is None else mask[:, 0]
        q, k, v = self.w_q(x), self.w_k(mem), self.w_v(mem)
        heads = []
        for i in range(self.h):
            c = slice(i * self.d_k, (i + 1) * self.d_k)
            heads.append(attention(q[..., c], k[..., c], v[..., c], m)[0])
        return self.w_o(torch.cat(heads, -1))
    def load_from(self, mha):
        for a in ('w_q', 'w_k', 'w_v', 'w_o'): getattr(self, a).load_state_dict(getattr(mha, a).state_dict())''')
A(nb, 'LoopMHA', 'each head scaled by sqrt(d_model), not sqrt(d_k)', LOOP.replace(
    'attention(q(x), k(mem), v(mem), m)[0]', 'attention(q(x), k(mem), v(mem), m, scale=1 / math.sqrt(self.h * self.d_k))[0]'))
A(nb, 'LoopMHA', "W^O split per head, each with the whole bias: the bias added h times", '''
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
            self.w_o[i].weight.copy_(mha.w_o.weight[:, rows]); self.w_o[i].bias.copy_(mha.w_o.bias)''')
A(nb, 'LoopMHA', 'the 4-d mask passed to each 3-d head unchanged', LOOP.replace('mask[:, 0]', 'mask'))
A(nb, 'LoopMHA', "the mask inverted, as nn.MultiheadAttention's (True = blocked)", LOOP.replace('mask[:, 0]', '~mask[:, 0]'))
A(nb, 'LoopMHA', 'load_from leaves W^O as it was', LOOP.replace('        self.w_o.load_state_dict(mha.w_o.state_dict())', ''))
A(nb, 'LoopMHA', 'load_from takes the rows i::h (heads interleaved)', LOOP.replace('lin.weight.copy_(W.weight[rows]); lin.bias.copy_(W.bias[rows])',
                                                                                       'lin.weight.copy_(W.weight[i::self.h]); lin.bias.copy_(W.bias[i::self.h])'))
A(nb, 'LoopMHA', 'keys and values always from x: mem ignored', LOOP.replace('mem = x if mem is None else mem', 'mem = x'))
A(nb, 'LoopMHA', 'the heads kept in Python lists, not nn.ModuleList: not registered', LOOP.replace(
    'heads = lambda: nn.ModuleList(nn.Linear(d_model, self.d_k) for _ in range(h))', 'heads = lambda: [nn.Linear(d_model, self.d_k) for _ in range(h)]'))
A(nb, 'LoopMHA', 'd_k = d_model / h, a float', LOOP.replace('self.h, self.d_k = h, d_model // h', 'self.h, self.d_k = h, d_model / h'))

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
A(nb, 'conv_to_ffn', 'an nn.Sequential of Linear, ReLU, Linear, not a FeedForward', '''
def conv_to_ffn(conv):
    d_ff, d_model, _ = conv[0].weight.shape
    seq = nn.Sequential(nn.Linear(d_model, d_ff), nn.ReLU(), nn.Linear(d_ff, d_model))
    with torch.no_grad():
        for lin, c in zip((seq[0], seq[2]), (conv[0], conv[2])):
            lin.weight.copy_(c.weight[:, :, 0]); lin.bias.copy_(c.bias)
    return seq''')
A(nb, 'conv_to_ffn', 'the weight reshaped to (in, out) and transposed, not sliced', CONV.replace(
    'lin.weight.copy_(c.weight[:, :, 0])', 'lin.weight.copy_(c.weight.reshape(c.in_channels, c.out_channels).T)'))
A(nb, 'conv_to_ffn', 'conv[1] (the ReLU) taken for the second convolution', CONV.replace('(conv[0], conv[2])', '(conv[0], conv[1])'))
A(nb, 'conv_to_ffn', 'FeedForward() with its default sizes', CONV.replace('ffn = FeedForward(d_model, d_ff)', 'ffn = FeedForward()'))
A(nb, 'conv_to_ffn', 'the FeedForward returned in float64', CONV.replace('    return ffn', '    return ffn.double()'))
A(nb, 'conv_to_ffn', 'a function wrapping the convolutions, not a FeedForward', '''
def conv_to_ffn(conv):
    return lambda x: conv(x.transpose(-1, -2)).transpose(-1, -2)''')
A(nb, 'conv_to_ffn', "the convolutions' weights squeezed in place (the input changed)", '''
def conv_to_ffn(conv):
    d_ff, d_model, _ = conv[0].weight.shape
    ffn = FeedForward(d_model, d_ff)
    with torch.no_grad():
        for lin, c in zip((ffn.w_1, ffn.w_2), (conv[0], conv[2])):
            c.weight.squeeze_(-1)
            lin.weight.copy_(c.weight); lin.bias.copy_(c.bias)
    return ffn''')
A(nb, 'conv_to_ffn', 'the parameters left frozen (requires_grad_(False) to copy)', '''
def conv_to_ffn(conv):
    d_ff, d_model, _ = conv[0].weight.shape
    ffn = FeedForward(d_model, d_ff).requires_grad_(False)
    for lin, c in zip((ffn.w_1, ffn.w_2), (conv[0], conv[2])):
        lin.weight.copy_(c.weight[:, :, 0]); lin.bias.copy_(c.bias)
    return ffn''')
A(nb, 'conv_to_ffn', 'copy_ into the parameters without torch.no_grad()', '''
def conv_to_ffn(conv):
    d_ff, d_model, _ = conv[0].weight.shape
    ffn = FeedForward(d_model, d_ff)
    for lin, c in zip((ffn.w_1, ffn.w_2), (conv[0], conv[2])):
        lin.weight.copy_(c.weight[:, :, 0]); lin.bias.copy_(c.bias)
    return ffn''')
A(nb, 'conv_to_ffn', 'returns (ffn, (d_model, d_ff))', CONV.replace('    return ffn', '    return ffn, (d_model, d_ff)'))
A(nb, 'conv_to_ffn', "bias-free Linears (T5's and LLaMA's FFN): the biases dropped", '''
def conv_to_ffn(conv):
    d_ff, d_model, _ = conv[0].weight.shape
    ffn = FeedForward(d_model, d_ff)
    ffn.w_1, ffn.w_2 = nn.Linear(d_model, d_ff, bias=False), nn.Linear(d_ff, d_model, bias=False)
    with torch.no_grad():
        for lin, c in zip((ffn.w_1, ffn.w_2), (conv[0], conv[2])): lin.weight.copy_(c.weight[:, :, 0])
    return ffn''')
A(nb, 'conv_to_ffn', "GELU in place of the ReLU (BERT's and GPT-2's activation)", CONV.replace(
    '    return ffn', '    ffn.hidden = lambda x: F.gelu(ffn.w_1(x))\n    return ffn'))
A(nb, 'conv_to_ffn', "load_state_dict(conv.state_dict(), strict=False): no key matches, nothing copied", '''
def conv_to_ffn(conv):
    d_ff, d_model, _ = conv[0].weight.shape
    ffn = FeedForward(d_model, d_ff)
    ffn.load_state_dict(conv.state_dict(), strict=False)
    return ffn''')
A(nb, 'conv_to_ffn', 'returns a fresh FeedForward, not the one it copied into', CONV.replace('    return ffn', '    return FeedForward(d_model, d_ff)'))

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
A(nb, 'MyEmbeddings', 'wraps nn.Embedding(padding_idx=pad_id), which the exercise replaces', '''
class MyEmbeddings(nn.Module):
    def __init__(self, vocab, d_model, pad_id=PAD_ID):
        super().__init__()
        self.emb = nn.Embedding(vocab, d_model, padding_idx=pad_id)
        nn.init.normal_(self.emb.weight, std=d_model ** -0.5)
        with torch.no_grad(): self.emb.weight[pad_id] = 0.0
        self.scale = math.sqrt(d_model)
    def forward(self, tokens): return self.emb(tokens) * self.scale''')
A(nb, 'MyEmbeddings', "initialised N(0, 1), nn.Embedding's default", EMB.replace('torch.randn(vocab, d_model) * d_model ** -0.5', 'torch.randn(vocab, d_model)'))
A(nb, 'MyEmbeddings', "initialised N(0, 0.02^2), GPT-2's initializer_range", EMB.replace('torch.randn(vocab, d_model) * d_model ** -0.5', 'torch.randn(vocab, d_model) * 0.02'))
A(nb, 'MyEmbeddings', 'the padding row not zeroed at initialisation', EMB.replace('        with torch.no_grad(): self.E[pad_id] = 0.0\n', ''))
A(nb, 'MyEmbeddings', "Xavier-uniform initialisation (the Annotated Transformer's)", EMB.replace(
    'torch.randn(vocab, d_model) * d_model ** -0.5', 'nn.init.xavier_uniform_(torch.empty(vocab, d_model))'))
A(nb, 'MyEmbeddings', 'scaled by sqrt(vocab), the other axis of E', EMB.replace('math.sqrt(d_model)', 'math.sqrt(self.E.shape[0])'))
A(nb, 'MyEmbeddings', 'E in float64', EMB.replace('torch.randn(vocab, d_model)', 'torch.randn(vocab, d_model, dtype=torch.float64)'))
A(nb, 'MyEmbeddings', 'E registered as a buffer, not a Parameter', '''
class MyEmbeddings(nn.Module):
    def __init__(self, vocab, d_model, pad_id=PAD_ID):
        super().__init__()
        self.register_buffer('E', torch.randn(vocab, d_model) * d_model ** -0.5)
        self.E[pad_id] = 0.0
        self.pad_id, self.scale = pad_id, math.sqrt(d_model)
    def forward(self, tokens): return self.E[tokens] * self.scale''')
A(nb, 'MyEmbeddings', 'E stored as (d_model, vocab), indexed through .T', '''
class MyEmbeddings(nn.Module):
    def __init__(self, vocab, d_model, pad_id=PAD_ID):
        super().__init__()
        self.E = nn.Parameter(torch.randn(d_model, vocab) * d_model ** -0.5)
        with torch.no_grad(): self.E[:, pad_id] = 0.0
        self.pad_id, self.scale = pad_id, math.sqrt(d_model)
    def forward(self, tokens):
        x, pad = self.E.T[tokens], (tokens == self.pad_id)[..., None]
        return torch.where(pad, x.detach(), x) * self.scale''')
A(nb, 'MyEmbeddings', 'forward under torch.no_grad(): no gradient at all', EMB.replace(
    '    def forward(self, tokens):\n', '    @torch.no_grad()\n    def forward(self, tokens):\n'))
A(nb, 'MyEmbeddings', 'the padding positions left unscaled', EMB.replace(
    'return torch.where(pad, x.detach(), x) * self.scale', 'return torch.where(pad, x.detach(), x * self.scale)'))
A(nb, 'MyEmbeddings', "returns (n, B, d_model), fairseq's time-first layout", EMB.replace(
    'return torch.where(pad, x.detach(), x) * self.scale', 'return (torch.where(pad, x.detach(), x) * self.scale).transpose(0, 1)'))
A(nb, 'MyEmbeddings', 'pad_id ignored: the module-level PAD_ID used', EMB.replace('self.E[pad_id] = 0.0', 'self.E[PAD_ID] = 0.0').replace(
    '(tokens == self.pad_id)', '(tokens == PAD_ID)'))
A(nb, 'MyEmbeddings', 'E multiplied in place in forward: it grows with every call', '''
class MyEmbeddings(nn.Module):
    def __init__(self, vocab, d_model, pad_id=PAD_ID):
        super().__init__()
        self.E = nn.Parameter(torch.randn(vocab, d_model) * d_model ** -0.5)
        with torch.no_grad(): self.E[pad_id] = 0.0
        self.pad_id, self.scale = pad_id, math.sqrt(d_model)
    def forward(self, tokens):
        with torch.no_grad(): self.E.mul_(self.scale)
        x, pad = self.E[tokens], (tokens == self.pad_id)[..., None]
        return torch.where(pad, x.detach(), x)''')

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
A(nb, 'my_encoding', None, ENC)
RB = '''
class RelativeBias(nn.Module):
    def __init__(self, h, K):
        super().__init__()
        self.K = K
        self.table = nn.Parameter(torch.randn(2 * K + 1, h) * 0.02)
    def forward(self, n_q, n_k):
        offset = torch.arange(n_k)[None, :] - torch.arange(n_q)[:, None]
        return self.table[offset.clamp(-self.K, self.K) + self.K].permute(2, 0, 1)'''
A(nb, 'RelativeBias', None, RB)
A(nb, 'my_encoding', "fairseq's frequencies exp(-i ln(10000) / (d_model/2 - 1))", '''
def my_encoding(n, d_model):
    half = d_model // 2
    freq = torch.exp(torch.arange(half, dtype=torch.float64) * -(math.log(10000) / max(half - 1, 1)))
    angle = torch.arange(n, dtype=torch.float64)[:, None] * freq
    pe = torch.zeros(n, d_model, dtype=torch.float64)
    pe[:, 0::2], pe[:, 1::2] = angle.sin(), angle.cos()
    return pe.float()''')
A(nb, 'my_encoding', 'positions 1 .. n', ENC.replace('torch.arange(n, dtype=torch.float64)', 'torch.arange(1, n + 1, dtype=torch.float64)'))
A(nb, 'my_encoding', 'the exponent i / d_model, not 2i / d_model', ENC.replace(
    'two_i = torch.arange(0, d_model, 2, dtype=torch.float64)', 'two_i = torch.arange(d_model // 2, dtype=torch.float64)'))
A(nb, 'my_encoding', "each dimension at its own index's frequency: the cosines at 2i + 1, not their pair's 2i", '''
def my_encoding(n, d_model):
    pos = torch.arange(n, dtype=torch.float64)[:, None]
    angle = pos / 10000 ** (torch.arange(d_model, dtype=torch.float64) / d_model)
    pe = torch.zeros(n, d_model, dtype=torch.float64)
    pe[:, 0::2], pe[:, 1::2] = angle[:, 0::2].sin(), angle[:, 1::2].cos()
    return pe.float()''')
A(nb, 'my_encoding', 'the exponent by floor division: 2i // d_model is 0', ENC.replace('(two_i / d_model)', '(two_i // d_model)'))
A(nb, 'my_encoding', 'a NumPy array', '''
import numpy as np
def my_encoding(n, d_model):
    angle = np.arange(n)[:, None] / 10000 ** (np.arange(0, d_model, 2) / d_model)
    pe = np.zeros((n, d_model))
    pe[:, 0::2], pe[:, 1::2] = np.sin(angle), np.cos(angle)
    return pe''')
A(nb, 'my_encoding', 'the pairs left stacked: (n, d_model/2, 2)', '''
def my_encoding(n, d_model):
    angle = torch.arange(n, dtype=torch.float64)[:, None] / 10000 ** (torch.arange(0, d_model, 2, dtype=torch.float64) / d_model)
    return torch.stack([angle.sin(), angle.cos()], dim=-1).float()''')
A(nb, 'my_encoding', 'transposed: (d_model, n)', ENC.replace('return pe.float()', 'return pe.float().T'))
A(nb, 'my_encoding', 'returned in float16', ENC.replace('return pe.float()', 'return pe.half()'))
A(nb, 'RelativeBias', "ALiBi's fixed slopes: -m_h |j - i|, no table", '''
class RelativeBias(nn.Module):
    def __init__(self, h, K):
        super().__init__()
        self.K = K
        self.register_buffer('slopes', 2.0 ** (-8.0 * torch.arange(1, h + 1) / h))
    def forward(self, n_q, n_k):
        offset = torch.arange(n_k)[None, :] - torch.arange(n_q)[:, None]
        return -self.slopes[:, None, None] * offset.abs().clamp(max=self.K)''')
A(nb, 'RelativeBias', 'the offset i - j (query minus key)', RB.replace(
    'offset = torch.arange(n_k)[None, :] - torch.arange(n_q)[:, None]', 'offset = torch.arange(n_q)[:, None] - torch.arange(n_k)[None, :]'))
A(nb, 'RelativeBias', 'the table laid out (h, 2K + 1), heads first', '''
class RelativeBias(nn.Module):
    def __init__(self, h, K):
        super().__init__()
        self.K = K
        self.table = nn.Parameter(torch.randn(h, 2 * K + 1) * 0.02)
    def forward(self, n_q, n_k):
        offset = torch.arange(n_k)[None, :] - torch.arange(n_q)[:, None]
        return self.table[:, offset.clamp(-self.K, self.K) + self.K]''')
A(nb, 'RelativeBias', 'returns (n_q, n_k, h): no permute', RB.replace('.permute(2, 0, 1)', ''))
A(nb, 'RelativeBias', 'a table of 2K rows', RB.replace('torch.randn(2 * K + 1, h)', 'torch.randn(2 * K, h)'))
A(nb, 'RelativeBias', 'offsets wrapped modulo 2K + 1, not clipped', RB.replace(
    'offset.clamp(-self.K, self.K) + self.K', '(offset + self.K) % (2 * self.K + 1)'))
A(nb, 'RelativeBias', 'the clipped offset used as the index without + K: negative ones index from the end', RB.replace(
    'offset.clamp(-self.K, self.K) + self.K', 'offset.clamp(-self.K, self.K)'))
A(nb, 'RelativeBias', 'a leading batch axis: (1, h, n_q, n_k)', RB.replace('.permute(2, 0, 1)', '.permute(2, 0, 1)[None]'))
A(nb, 'RelativeBias', 'the table registered as a buffer: not learned', '''
class RelativeBias(nn.Module):
    def __init__(self, h, K):
        super().__init__()
        self.K = K
        self.register_buffer('table', torch.randn(2 * K + 1, h) * 0.02)
    def forward(self, n_q, n_k):
        offset = torch.arange(n_k)[None, :] - torch.arange(n_q)[:, None]
        return self.table[offset.clamp(-self.K, self.K) + self.K].permute(2, 0, 1)''')

# 06_model: MySublayer, my_forward, parsing_counts
nb = '06_model'
SUB = '''
class MySublayer(nn.Module):
    def __init__(self, d_model, p_drop):
        super().__init__()
        self.norm, self.drop = nn.LayerNorm(d_model), nn.Dropout(p_drop)
    def forward(self, x, f):
        return self.norm(x + self.drop(f(x)))'''
A(nb, 'MySublayer', None, SUB)
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
A(nb, 'my_forward', None, FWD)
CNT = '''
def parsing_counts():
    cfg = TransformerConfig(N=4, d_model=1024, src_vocab=16000, tgt_vocab=16000)
    with torch.device('meta'): tied = count_params(Transformer(cfg))
    return tied, tied + 2 * 16000 * 1024'''
A(nb, 'parsing_counts', None, CNT)
A(nb, 'MySublayer', 'dropout after the LayerNorm', SUB.replace('self.norm(x + self.drop(f(x)))', 'self.drop(self.norm(x + f(x)))'))
A(nb, 'MySublayer', 'dropout on the residual sum, x included', SUB.replace('self.norm(x + self.drop(f(x)))', 'self.norm(self.drop(x + f(x)))'))
A(nb, 'MySublayer', 'BatchNorm1d over the features in place of LayerNorm', '''
class MySublayer(nn.Module):
    def __init__(self, d_model, p_drop):
        super().__init__()
        self.norm, self.drop = nn.BatchNorm1d(d_model), nn.Dropout(p_drop)
    def forward(self, x, f):
        s = x + self.drop(f(x))
        return self.norm(s.transpose(1, 2)).transpose(1, 2)''')
A(nb, 'MySublayer', "LLaMA's RMSNorm in place of LayerNorm", SUB.replace('nn.LayerNorm(d_model)', 'nn.RMSNorm(d_model)'))
A(nb, 'MySublayer', 'LayerNorm without its gain and bias (elementwise_affine=False)', SUB.replace(
    'nn.LayerNorm(d_model)', 'nn.LayerNorm(d_model, elementwise_affine=False)'))
A(nb, 'MySublayer', "returns a 1-tuple (hidden_states,), as Hugging Face's layers do", SUB.replace(
    'return self.norm(x + self.drop(f(x)))', 'return (self.norm(x + self.drop(f(x))),)'))
A(nb, 'my_forward', 'the cross-attention masked with the target mask', FWD.replace(
    'l.cross_attn(t, z, mask=src_mask)', 'l.cross_attn(t, z, mask=tgt_mask)'))
A(nb, 'my_forward', "the decoder's self-attention with the padding mask only: it sees the future", FWD.replace(
    'src_mask, tgt_mask = pad_mask(src), make_tgt_mask(tgt)', 'src_mask, tgt_mask = pad_mask(src), pad_mask(tgt)'))
A(nb, 'my_forward', 'the embeddings scaled by sqrt(d_model) again (the Embeddings already scale)', FWD.replace(
    'model.src_pos(model.src_emb(src))', 'model.src_pos(model.src_emb(src) * math.sqrt(model.cfg.d_model))').replace(
    'model.tgt_pos(model.tgt_emb(tgt))', 'model.tgt_pos(model.tgt_emb(tgt) * math.sqrt(model.cfg.d_model))'))
A(nb, 'my_forward', "the last position's logits only, as nanoGPT's generate", FWD.replace('return model.generator(y)', 'return model.generator(y[:, [-1]])'))
A(nb, 'my_forward', "a final LayerNorm (GPT's ln_f), the last sub-layer's norm applied again", FWD.replace(
    'return model.generator(y)', 'return model.generator(model.decoder[-1].sub[2].norm(y))'))
A(nb, 'my_forward', "decoder layer i attends to encoder layer i's output", '''
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
    return model.generator(y)''')
A(nb, 'my_forward', 'returns (logits, memory), as a seq2seq output', FWD.replace('return model.generator(y)', 'return model.generator(y), z'))
A(nb, 'parsing_counts', 'a dict of the two counts', CNT.replace('return tied, tied + 2 * 16000 * 1024', "return {'tied': tied, 'untied': tied + 2 * 16000 * 1024}"))
A(nb, 'parsing_counts', "untied adds one matrix only (Hugging Face's tie_word_embeddings=False)", CNT.replace('tied + 2 * 16000 * 1024', 'tied + 16000 * 1024'))
A(nb, 'parsing_counts', '4 layers in all: 2 in the encoder, 2 in the decoder', CNT.replace('N=4', 'N=2'))
A(nb, 'parsing_counts', 'returns (untied, tied), the other order', CNT.replace('return tied, tied + 2 * 16000 * 1024', 'return tied + 2 * 16000 * 1024, tied'))
A(nb, 'parsing_counts', 'in millions, rounded to one decimal', CNT.replace(
    'return tied, tied + 2 * 16000 * 1024', 'return round(tied / 1e6, 1), round((tied + 2 * 16000 * 1024) / 1e6, 1)'))

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
A(nb, 'restricted_attention', 'full n x n scores masked with local_mask', '''
def restricted_attention(q, k, v, r):
    return attention(q, k, v, local_mask(q.shape[-2], r))[0]''')
A(nb, 'restricted_attention', 'windows of r rows: wrong for an even r', RA.replace('.unfold(-2, 2 * w + 1, 1)', '.unfold(-2, r, 1)').replace(
    'torch.arange(-w, w + 1)', 'torch.arange(-w, r - w)'))
A(nb, 'restricted_attention', "Mistral's causal window: the r - 1 keys before and itself", '''
def restricted_attention(q, k, v, r):
    n = q.shape[-2]
    win = lambda t: F.pad(t, (0, 0, r - 1, 0)).unfold(-2, r, 1)
    s = torch.einsum('bhnd,bhndw->bhnw', q, win(k)) / q.shape[-1] ** 0.5
    j = torch.arange(n)[:, None] + torch.arange(-(r - 1), 1)
    s = s.masked_fill(j < 0, float('-inf'))
    return torch.einsum('bhnw,bhndw->bhnd', s.softmax(-1), win(v))''')
A(nb, 'restricted_attention', 'returns (output, weights), as attention does', RA.replace(
    "return torch.einsum('bhnw,bhndw->bhnd', s.softmax(-1), win(v))", "p = s.softmax(-1)\n    return torch.einsum('bhnw,bhndw->bhnd', p, win(v)), p"))
A(nb, 'restricted_attention', 'windows by torch.roll: the ends wrap around', '''
def restricted_attention(q, k, v, r):
    w = r // 2
    win = lambda t: torch.stack([t.roll(-o, dims=-2) for o in range(-w, w + 1)], dim=-1)
    s = torch.einsum('bhnd,bhndw->bhnw', q, win(k)) / q.shape[-1] ** 0.5
    return torch.einsum('bhnw,bhndw->bhnd', s.softmax(-1), win(v))''')
A(nb, 'restricted_attention', 'F.pad(t, (w, w)) pads the features, not the positions', RA.replace('F.pad(t, (0, 0, w, w))', 'F.pad(t, (w, w))'))
A(nb, 'restricted_attention', 'unfold(1, ...): the head axis windowed (a 3-d (B, n, d) habit)', RA.replace(
    "F.pad(t, (0, 0, w, w)).unfold(-2, 2 * w + 1, 1)", "F.pad(t, (0, 0, w, w)).unfold(1, 2 * w + 1, 1)"))
A(nb, 'restricted_attention', "returns (B, n, h, d_k), transposed for merging", RA.replace(
    "return torch.einsum('bhnw,bhndw->bhnd', s.softmax(-1), win(v))", "return torch.einsum('bhnw,bhndw->bnhd', s.softmax(-1), win(v))"))
A(nb, 'restricted_attention', 'a loop over queries slicing [i - w : i + w + 1]: a negative start empties the window', '''
def restricted_attention(q, k, v, r):
    n, w = q.shape[-2], r // 2
    out = []
    for i in range(n):
        kk, vv = k[..., i - w:i + w + 1, :], v[..., i - w:i + w + 1, :]
        s = (q[..., i:i + 1, :] @ kk.transpose(-2, -1)) / q.shape[-1] ** 0.5
        out.append(s.softmax(-1) @ vv)
    return torch.cat(out, dim=-2)''')
A(nb, 'restricted_attention', 'the keys padded with -inf (F.pad value), not the scores', '''
def restricted_attention(q, k, v, r):
    w = r // 2
    kw = F.pad(k, (0, 0, w, w), value=float('-inf')).unfold(-2, 2 * w + 1, 1)
    vw = F.pad(v, (0, 0, w, w)).unfold(-2, 2 * w + 1, 1)
    s = torch.einsum('bhnd,bhndw->bhnw', q, kw) / q.shape[-1] ** 0.5
    return torch.einsum('bhnw,bhndw->bhnd', s.softmax(-1), vw)''')
A(nb, 'restricted_attention', 'the edge mask from the offsets alone (arange(-w, w + 1)), not i + offset', RA.replace(
    'j = torch.arange(n)[:, None] + torch.arange(-w, w + 1)', 'j = torch.arange(-w, w + 1)'))
A(nb, 'restricted_attention', "keys padded by replicating the edge rows (mode='replicate'), no -inf", '''
def restricted_attention(q, k, v, r):
    w = r // 2
    win = lambda t: F.pad(t, (0, 0, w, w), mode='replicate').unfold(-2, 2 * w + 1, 1)
    s = torch.einsum('bhnd,bhndw->bhnw', q, win(k)) / q.shape[-1] ** 0.5
    return torch.einsum('bhnw,bhndw->bhnd', s.softmax(-1), win(v))''')
A(nb, 'restricted_attention', 'the values windowed from k (win(k) twice)', RA.replace(
    "s.softmax(-1), win(v))", "s.softmax(-1), win(k))"))
A(nb, 'restricted_attention', 'the band read off full scores (q @ k^T) with torch.diagonal', '''
def restricted_attention(q, k, v, r):
    n, w = q.shape[-2], r // 2
    full = q @ k.transpose(-2, -1) / q.shape[-1] ** 0.5
    s = torch.full((*q.shape[:-1], 2 * w + 1), float('-inf'))
    for o in range(-w, w + 1):
        d = torch.diagonal(full, offset=o, dim1=-2, dim2=-1)
        if o >= 0: s[..., :n - o, o + w] = d
        else: s[..., -o:, o + w] = d
    vw = F.pad(v, (0, 0, w, w)).unfold(-2, 2 * w + 1, 1)
    return torch.einsum('bhnw,bhndw->bhnd', s.softmax(-1), vw)''')

# Set aside after the first run, before it was recorded, to keep 18 answers in 05_positional_encoding: the last one
# written for it (that run named its mistake, so leaving it out lowers the share named). It is not run.
SET_ASIDE = [('05_positional_encoding', 'RelativeBias', 'built with torch.tensor from the entries: no gradient reaches the table', RB.replace(
    'return self.table[offset.clamp(-self.K, self.K) + self.K].permute(2, 0, 1)',
    'return torch.tensor(self.table[offset.clamp(-self.K, self.K) + self.K].permute(2, 0, 1).tolist())'))]
