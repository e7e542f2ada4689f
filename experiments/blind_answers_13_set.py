"""The thirteenth blind set's answers, written from the exercises' text alone: (notebook, exercise, mistake, code), the
mistake None for the right answer. `experiments/blind_answers.py 13` runs them."""
ANSWERS = []
def A(nb, ex, mistake, code): ANSWERS.append((nb, ex, mistake, code))

# 00_core: pad_batch
nb = '00_core'
A(nb, 'pad_batch', None, """
def pad_batch(seqs, pad_id=PAD_ID):
    n = max(len(s) for s in seqs)
    return torch.tensor([s + [pad_id] * (n - len(s)) for s in seqs])""")
A(nb, 'pad_batch', 'pads on the left', """
def pad_batch(seqs, pad_id=PAD_ID):
    n = max(len(s) for s in seqs)
    return torch.tensor([[pad_id] * (n - len(s)) + s for s in seqs])""")
A(nb, 'pad_batch', 'extends the input lists in place', """
def pad_batch(seqs, pad_id=PAD_ID):
    n = max(len(s) for s in seqs)
    for s in seqs: s.extend([pad_id] * (n - len(s)))
    return torch.tensor(seqs)""")
A(nb, 'pad_batch', 'float tensor', """
def pad_batch(seqs, pad_id=PAD_ID):
    n = max(len(s) for s in seqs)
    return torch.tensor([s + [pad_id] * (n - len(s)) for s in seqs], dtype=torch.float)""")
A(nb, 'pad_batch', 'pads with PAD_ID, ignoring pad_id', """
def pad_batch(seqs, pad_id=PAD_ID):
    n = max(len(s) for s in seqs)
    return torch.tensor([s + [PAD_ID] * (n - len(s)) for s in seqs])""")
A(nb, 'pad_batch', 'cuts to the shortest', """
def pad_batch(seqs, pad_id=PAD_ID):
    n = min(len(s) for s in seqs)
    return torch.tensor([s[:n] for s in seqs])""")
A(nb, 'pad_batch', 'returns lists, not a tensor', """
def pad_batch(seqs, pad_id=PAD_ID):
    n = max(len(s) for s in seqs)
    return [s + [pad_id] * (n - len(s)) for s in seqs]""")
A(nb, 'pad_batch', 'transposed (n, B)', """
def pad_batch(seqs, pad_id=PAD_ID):
    n = max(len(s) for s in seqs)
    return torch.tensor([s + [pad_id] * (n - len(s)) for s in seqs]).T""")
A(nb, 'pad_batch', 'pad_sequence with its default padding value 0', """
from torch.nn.utils.rnn import pad_sequence
def pad_batch(seqs, pad_id=PAD_ID):
    return pad_sequence([torch.tensor(s) for s in seqs], batch_first=True)""")
A(nb, 'pad_batch', 'int32 ids', """
def pad_batch(seqs, pad_id=PAD_ID):
    n = max(len(s) for s in seqs)
    return torch.tensor([s + [pad_id] * (n - len(s)) for s in seqs], dtype=torch.int32)""")

# 01_attention: my_attention, restricted_mask
nb = '01_attention'
ATT = """
def my_attention(q, k, v, mask=None):
    scores = {scores}
    if mask is not None: scores = scores.masked_fill({fill}, {val})
    w = torch.softmax(scores, dim={dim})
    {after}
    return {ret}"""
def att(scores='q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])', fill='~mask', val="float('-inf')", dim=-1,
        after="w = torch.nan_to_num(w, nan=0.0)", ret='w @ v, w'):
    return ATT.format(scores=scores, fill=fill, val=val, dim=dim, after=after, ret=ret)
A(nb, 'attention', None, att())
A(nb, 'attention', 'scaled by 1/d_k', att(scores='q @ k.transpose(-2, -1) / q.shape[-1]'))
A(nb, 'attention', 'no scaling', att(scores='q @ k.transpose(-2, -1)'))
A(nb, 'attention', 'softmax over the queries (dim=-2)', att(dim=-2))
A(nb, 'attention', 'mask inverted (fills where True)', att(fill='mask'))
A(nb, 'attention', 'masked_fill(-1e9): a fully masked row gets uniform weights', att(val='-1e9', after='pass'))
A(nb, 'attention', 'returns (weights, output)', att(ret='w, w @ v'))
A(nb, 'attention', 'scaled by sqrt(n_k), the number of keys', att(scores='q @ k.transpose(-2, -1) / math.sqrt(k.shape[-2])'))
A(nb, 'attention', 'k.transpose(1, 2): wrong with a head axis', att(scores='q @ k.transpose(1, 2) / math.sqrt(q.shape[-1])'))
A(nb, 'attention', 'mask multiplied into the weights after the softmax, not renormalised', """
def my_attention(q, k, v, mask=None):
    w = torch.softmax(q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1]), dim=-1)
    if mask is not None: w = w * mask
    return w @ v, w""")
RM = """
def restricted_mask(n, r):
    i = torch.arange(n)
    return {body}"""
A(nb, 'restricted_mask', None, RM.format(body='((i[:, None] - i[None, :]).abs() <= r // 2)[None, None]'))
A(nb, 'restricted_mask', '|i - j| <= r', RM.format(body='((i[:, None] - i[None, :]).abs() <= r)[None, None]'))
A(nb, 'restricted_mask', 'strict < r // 2', RM.format(body='((i[:, None] - i[None, :]).abs() < r // 2)[None, None]'))
A(nb, 'restricted_mask', 'shape (n, n)', RM.format(body='(i[:, None] - i[None, :]).abs() <= r // 2'))
A(nb, 'restricted_mask', 'one-sided window (the past only)', RM.format(body='((i[:, None] - i[None, :] >= 0) & (i[:, None] - i[None, :] <= r // 2))[None, None]'))
A(nb, 'restricted_mask', 'long mask of 0/1', RM.format(body='((i[:, None] - i[None, :]).abs() <= r // 2).long()[None, None]'))
A(nb, 'restricted_mask', '(r - 1) // 2 on each side: wrong for even r', RM.format(body='((i[:, None] - i[None, :]).abs() <= (r - 1) // 2)[None, None]'))
A(nb, 'restricted_mask', 'inverted: True outside the window', RM.format(body='((i[:, None] - i[None, :]).abs() > r // 2)[None, None]'))

# 02_multihead: split/merge heads, LoopMHA
nb = '02_multihead'
HE = """
def split_heads(x, h):
    B, n, hd = x.shape; d = hd // h
    return {split}
def merge_heads(x):
    B, h, n, d = x.shape
    return {merge}"""
def he(split='x.view(B, n, h, d).transpose(1, 2)', merge='x.transpose(1, 2).reshape(B, n, h * d)'):
    return HE.format(split=split, merge=merge)
A(nb, 'heads', None, he())
A(nb, 'heads', 'split viewed straight as (B, h, n, d)', he(split='x.view(B, h, n, d)'))
A(nb, 'heads', 'split interleaved: (B, n, d, h) permuted', he(split='x.view(B, n, d, h).permute(0, 3, 1, 2)'))
A(nb, 'heads', 'merge reshaped without the transpose', he(merge='x.reshape(B, n, h * d)'))
A(nb, 'heads', 'merge with .view after transpose', he(merge='x.transpose(1, 2).view(B, n, h * d)'))
A(nb, 'heads', 'split without the transpose: (B, n, h, d)', he(split='x.view(B, n, h, d)'))
A(nb, 'heads', 'merge transposes the wrong axes (0, 1)', he(merge='x.transpose(0, 1).reshape(B, n, h * d)'))
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
        m = {m}
        heads = [attention({qkv}, m)[0] for w_q, w_k, w_v in zip(self.w_q, self.w_k, self.w_v)]
        return {out}
    @torch.no_grad()
    def load_from(self, mha):
        for i in range(self.h):
            rows = slice(i * self.d_k, (i + 1) * self.d_k)
            for mine, theirs in ((self.w_q[i], mha.w_q), (self.w_k[i], mha.w_k), (self.w_v[i], mha.w_v)):
                {copy}
        {wo}"""
def loop(m='None if mask is None else mask[:, 0]', qkv='w_q(x), w_k(mem), w_v(mem)', out='self.w_o(torch.cat(heads, -1))',
         copy='mine.weight.copy_(theirs.weight[rows]); mine.bias.copy_(theirs.bias[rows])',
         wo='self.w_o.weight.copy_(mha.w_o.weight); self.w_o.bias.copy_(mha.w_o.bias)'):
    return LOOP.format(m=m, qkv=qkv, out=out, copy=copy, wo=wo)
A(nb, 'LoopMHA', None, loop())
A(nb, 'LoopMHA', 'mask ignored', loop(m='None'))
A(nb, 'LoopMHA', 'mask passed on with its head axis (B, 1, n_q, n_k)', loop(m='mask'))
A(nb, 'LoopMHA', 'keys and values always from x (mem ignored)', loop(qkv='w_q(x), w_k(x), w_v(x)'))
A(nb, 'LoopMHA', 'load_from copies columns', loop(copy='mine.weight.copy_(theirs.weight[:, rows].T); mine.bias.copy_(theirs.bias[rows])'))
A(nb, 'LoopMHA', 'load_from leaves the biases', loop(copy='mine.weight.copy_(theirs.weight[rows])'))
A(nb, 'LoopMHA', 'no W^O: returns the concatenation', loop(out='torch.cat(heads, -1)'))
A(nb, 'LoopMHA', 'load_from leaves W^O', loop(wo='pass'))
A(nb, 'LoopMHA', 'heads stacked and summed instead of concatenated', loop(out='self.w_o(torch.cat([sum(heads)] * self.h, -1))'))

# 03_ffn: conv_to_ffn
nb = '03_ffn'
CF = """
def conv_to_ffn(conv):
    {sizes}
    ffn = FeedForward({args})
    with torch.no_grad():
        for lin, c in zip((ffn.w_1, ffn.w_2), (conv[0], conv[{second}])):
            {copy}
    return ffn"""
def cf(sizes='d_ff, d_model, _ = conv[0].weight.shape', args='d_model, d_ff', second=2,
       copy='lin.weight.copy_(c.weight[:, :, 0]); lin.bias.copy_(c.bias)'):
    return CF.format(sizes=sizes, args=args, second=second, copy=copy)
A(nb, 'conv_to_ffn', None, cf())
A(nb, 'conv_to_ffn', 'weights transposed', cf(copy='lin.weight.copy_(c.weight[:, :, 0].T); lin.bias.copy_(c.bias)'))
A(nb, 'conv_to_ffn', 'FeedForward(d_ff, d_model)', cf(args='d_ff, d_model'))
A(nb, 'conv_to_ffn', 'biases not copied', cf(copy='lin.weight.copy_(c.weight[:, :, 0])'))
A(nb, 'conv_to_ffn', 'second layer from conv[1] (the ReLU)', cf(second=1))
A(nb, 'conv_to_ffn', 'sizes read as (in, out)', cf(sizes='d_model, d_ff, _ = conv[0].weight.shape'))
A(nb, 'conv_to_ffn', 'weight.squeeze(): wrong for a size of 1', cf(copy='lin.weight.copy_(c.weight.squeeze()); lin.bias.copy_(c.bias)'))
A(nb, 'conv_to_ffn', 'only the first layer copied', """
def conv_to_ffn(conv):
    d_ff, d_model, _ = conv[0].weight.shape
    ffn = FeedForward(d_model, d_ff)
    with torch.no_grad(): ffn.w_1.weight.copy_(conv[0].weight[:, :, 0]); ffn.w_1.bias.copy_(conv[0].bias)
    return ffn""")

# 04_embeddings: MyEmbeddings
nb = '04_embeddings'
EM = """
class MyEmbeddings(nn.Module):
    def __init__(self, vocab, d_model, pad_id=PAD_ID):
        super().__init__()
        self.E = nn.Parameter({init})
        {zero}
        self.pad_id, self.scale = pad_id, {scale}
    def forward(self, tokens):
        {fwd}"""
def em(init='torch.randn(vocab, d_model) * d_model ** -0.5', zero='with torch.no_grad(): self.E[pad_id] = 0.0',
       scale='math.sqrt(d_model)',
       fwd='x, pad = self.E[tokens], (tokens == self.pad_id)[..., None]\n        return torch.where(pad, x.detach(), x) * self.scale'):
    return EM.format(init=init, zero=zero, scale=scale, fwd=fwd)
A(nb, 'MyEmbeddings', None, em())
A(nb, 'MyEmbeddings', 'plain E[tokens]: the pad row gets a gradient', em(fwd='return self.E[tokens] * self.scale'))
A(nb, 'MyEmbeddings', 'scaled by d_model', em(scale='d_model'))
A(nb, 'MyEmbeddings', 'not scaled', em(scale='1.0'))
A(nb, 'MyEmbeddings', 'pad outputs zeroed', em(fwd='return self.E[tokens] * (tokens != self.pad_id)[..., None] * self.scale'))
A(nb, 'MyEmbeddings', 'initialised N(0, 1)', em(init='torch.randn(vocab, d_model)'))
A(nb, 'MyEmbeddings', 'padding row not zeroed at init', em(zero='pass'))
A(nb, 'MyEmbeddings', 'the pad test hard-codes id 0', em(fwd='x, pad = self.E[tokens], (tokens == 0)[..., None]\n        return torch.where(pad, x.detach(), x) * self.scale'))
A(nb, 'MyEmbeddings', 'divided by sqrt(d_model)', em(scale='1 / math.sqrt(d_model)'))
A(nb, 'MyEmbeddings', 'initialised N(0, 1/sqrt(d_model)) variance confusion: std d_model**-0.25', em(init='torch.randn(vocab, d_model) * d_model ** -0.25'))

# 05_positional_encoding: my_encoding, RelativeBias
nb = '05_positional_encoding'
EN = """
def my_encoding(n, d_model):
    pos = torch.arange({pos}, dtype=torch.float64)[:, None]
    i = torch.arange(0, d_model, 2, dtype=torch.float64)
    angle = pos {op} {base} ** ({expo})
    {out}"""
def en(pos='n', op='/', base='10000.0', expo='i / d_model',
       out='pe = torch.zeros(n, d_model, dtype=torch.float64)\n    pe[:, 0::2], pe[:, 1::2] = angle.sin(), angle.cos()\n    return pe'):
    return EN.format(pos=pos, op=op, base=base, expo=expo, out=out)
A(nb, 'my_encoding', None, en())
A(nb, 'my_encoding', 'sin and cos swapped', en(out='pe = torch.zeros(n, d_model, dtype=torch.float64)\n    pe[:, 0::2], pe[:, 1::2] = angle.cos(), angle.sin()\n    return pe'))
A(nb, 'my_encoding', 'exponent i/d_model with i the pair index', en(expo='(i / 2) / d_model'))
A(nb, 'my_encoding', 'sines and cosines in two halves', en(out='return torch.cat([angle.sin(), angle.cos()], -1)'))
A(nb, 'my_encoding', 'positions 1 .. n', en(pos='1, n + 1'))
A(nb, 'my_encoding', 'multiplied by 10000^(2i/d) instead of divided', en(op='*'))
A(nb, 'my_encoding', 'transposed (d_model, n)', en(out='pe = torch.zeros(n, d_model, dtype=torch.float64)\n    pe[:, 0::2], pe[:, 1::2] = angle.sin(), angle.cos()\n    return pe.T'))
A(nb, 'my_encoding', 'base 1000', en(base='1000.0'))
A(nb, 'my_encoding', 'each dimension its own exponent (2i+1 in the odd ones)', """
def my_encoding(n, d_model):
    pos = torch.arange(n, dtype=torch.float64)[:, None]
    j = torch.arange(d_model, dtype=torch.float64)
    angle = pos / 10000.0 ** (j / d_model)
    return torch.where(j.long() % 2 == 0, angle.sin(), angle.cos())""")
RB = """
class RelativeBias(nn.Module):
    def __init__(self, h, K):
        super().__init__()
        self.K = K
        self.table = {table}
    def forward(self, n_q, n_k):
        offset = {offset}
        return {ret}"""
def rb(table='nn.Parameter(torch.randn(2 * K + 1, h) * 0.02)', offset='torch.arange(n_k)[None, :] - torch.arange(n_q)[:, None]',
       ret='self.table[offset.clamp(-self.K, self.K) + self.K].permute(2, 0, 1)'):
    return RB.format(table=table, offset=offset, ret=ret)
A(nb, 'RelativeBias', None, rb())
A(nb, 'RelativeBias', 'offset i - j', rb(offset='torch.arange(n_q)[:, None] - torch.arange(n_k)[None, :]'))
A(nb, 'RelativeBias', 'no clipping', rb(ret='self.table[offset + self.K].permute(2, 0, 1)'))
A(nb, 'RelativeBias', 'returns (n_q, n_k, h)', rb(ret='self.table[offset.clamp(-self.K, self.K) + self.K]'))
A(nb, 'RelativeBias', 'table of 2K rows', rb(table='nn.Parameter(torch.randn(2 * K, h) * 0.02)', ret='self.table[offset.clamp(-self.K, self.K - 1) + self.K].permute(2, 0, 1)'))
A(nb, 'RelativeBias', 'table a buffer, not a parameter', rb(table='torch.randn(2 * K + 1, h) * 0.02'))
A(nb, 'RelativeBias', 'permute(2, 1, 0): (h, n_k, n_q)', rb(ret='self.table[offset.clamp(-self.K, self.K) + self.K].permute(2, 1, 0)'))
A(nb, 'RelativeBias', 'clamped to [0, 2K] before adding K', rb(ret='self.table[(offset + self.K).clamp(0, self.K)].permute(2, 0, 1)'))

# 06_model: MySublayer, my_forward, parsing_counts
nb = '06_model'
SL = """
class MySublayer(nn.Module):
    def __init__(self, d_model, p_drop):
        super().__init__(); self.norm, self.drop = nn.LayerNorm(d_model), nn.Dropout(p_drop)
    def forward(self, x, f): return {fwd}"""
A(nb, 'MySublayer', None, SL.format(fwd='self.norm(x + self.drop(f(x)))'))
A(nb, 'MySublayer', 'pre-LN', SL.format(fwd='x + self.drop(f(self.norm(x)))'))
A(nb, 'MySublayer', 'no dropout', SL.format(fwd='self.norm(x + f(x))'))
A(nb, 'MySublayer', 'dropout after the norm', SL.format(fwd='self.drop(self.norm(x + f(x)))'))
A(nb, 'MySublayer', 'norm on the sub-layer only: x + norm(drop(f(x)))', SL.format(fwd='x + self.norm(self.drop(f(x)))'))
A(nb, 'MySublayer', 'no residual', SL.format(fwd='self.norm(self.drop(f(x)))'))
A(nb, 'MySublayer', 'dropout on the sum', SL.format(fwd='self.norm(self.drop(x + f(x)))'))
A(nb, 'MySublayer', 'F.layer_norm without the gain and bias', SL.format(fwd='F.layer_norm(x + self.drop(f(x)), x.shape[-1:])'))
FW = """
def my_forward(model, src, tgt):
    src_mask, tgt_mask = pad_mask(src), {tmask}
    x = model.drop(model.src_pos(model.src_emb(src)))
    for L in model.encoder:
        x = L.sub[0].norm(x + L.self_attn(x, mask=src_mask))
        x = L.sub[1].norm(x + L.ffn(x))
    mem = x
    y = model.drop({tgt_in})
    for L in model.decoder:
        y = {s0}
        y = L.sub[1].norm(y + L.cross_attn(y, {kv}, mask={cmask}))
        y = L.sub[{f2}].norm(y + L.ffn(y))
    return {ret}"""
def fw(tmask='make_tgt_mask(tgt)', tgt_in='model.tgt_pos(model.tgt_emb(tgt))', s0='L.sub[0].norm(y + L.self_attn(y, mask=tgt_mask))',
       kv='mem', cmask='src_mask', f2=2, ret='model.generator(y)'):
    return FW.format(tmask=tmask, tgt_in=tgt_in, s0=s0, kv=kv, cmask=cmask, f2=f2, ret=ret)
A(nb, 'my_forward', None, fw())
A(nb, 'my_forward', 'no positions on the target', fw(tgt_in='model.tgt_emb(tgt)'))
A(nb, 'my_forward', 'target mask without the causal part', fw(tmask='pad_mask(tgt)'))
A(nb, 'my_forward', 'cross-attention without the source mask', fw(cmask='None'))
A(nb, 'my_forward', 'no generator: returns the decoder states', fw(ret='y'))
A(nb, 'my_forward', 'cross-attention keys and values from the decoder', fw(kv='y'))
A(nb, 'my_forward', 'the FFN normed with sub[1] in the decoder', fw(f2=1))
A(nb, 'my_forward', 'pre-LN in the decoder self-attention', fw(s0='y + L.self_attn(L.sub[0].norm(y), mask=tgt_mask)'))
A(nb, 'my_forward', 'calls model.encode', """
def my_forward(model, src, tgt):
    src_mask, tgt_mask = pad_mask(src), make_tgt_mask(tgt)
    mem = model.encode(src, src_mask)
    y = model.drop(model.tgt_pos(model.tgt_emb(tgt)))
    for L in model.decoder:
        y = L.sub[0].norm(y + L.self_attn(y, mask=tgt_mask))
        y = L.sub[1].norm(y + L.cross_attn(y, mem, mask=src_mask))
        y = L.sub[2].norm(y + L.ffn(y))
    return model.generator(y)""")
PC = """
def parsing_counts():
    m = Transformer(TransformerConfig(src_vocab={V}, tgt_vocab={V}, d_model={d}, N={N}, d_ff={ff}))
    tied = count_params(m)
    return {ret}"""
def pc(V=16000, d=1024, N=4, ff=2048, ret='tied, tied + 2 * {V} * {d}'):
    return PC.format(V=V, d=d, N=N, ff=ff, ret=ret.format(V=V, d=d))
A(nb, 'parsing_counts', None, pc())
A(nb, 'parsing_counts', 'six layers', pc(N=6))
A(nb, 'parsing_counts', "the big model's d_ff 4096", pc(ff=4096))
A(nb, 'parsing_counts', 'untied: one extra matrix only', pc(ret='tied, tied + {V} * {d}'))
A(nb, 'parsing_counts', 'the EN-DE vocabulary of 37000', pc(V=37000))
A(nb, 'parsing_counts', '(untied, tied) swapped', pc(ret='tied + 2 * {V} * {d}, tied'))
A(nb, 'parsing_counts', 'd_model 512', pc(d=512))

# 07_why_self_attention: restricted_attention
nb = '07_why_self_attention'
RA = """
def restricted_attention(q, k, v, r):
    B, h, n, d = q.shape; w = {w}
    kp = F.pad(k, (0, 0, {pad})); vp = F.pad(v, (0, 0, {pad}))
    kw = kp.unfold(2, {win}, 1).transpose(-1, -2)       # (B, h, n, win, d)
    vw = vp.unfold(2, {win}, 1).transpose(-1, -2)
    s = (q[..., None, :] * kw).sum(-1) {scale}           # (B, h, n, win)
    j = torch.arange(n)[:, None] + torch.arange({win})[None, :] - {left}   # key index of each slot
    {fill}
    a = torch.softmax(s, dim={dim})
    return (a[..., None] * vw).sum(-2)"""
def ra(w='r // 2', pad='w, w', win='2 * w + 1', scale='/ math.sqrt(d)', left='w',
       fill="s = s.masked_fill((j < 0) | (j >= n), float('-inf'))", dim=-1):
    return RA.format(w=w, pad=pad, win=win, scale=scale, left=left, fill=fill, dim=dim)
A(nb, 'restricted_attention', None, ra())
A(nb, 'restricted_attention', 'window |i - j| <= r', ra(w='r'))
A(nb, 'restricted_attention', 'no scaling', ra(scale=''))
A(nb, 'restricted_attention', 'padded keys scored 0, not -inf', ra(fill='pass'))
A(nb, 'restricted_attention', 'scaled by sqrt(r), the window', ra(scale='/ math.sqrt(2 * w + 1)'))
A(nb, 'restricted_attention', 'softmax over the positions', ra(dim=2))
A(nb, 'restricted_attention', 'one-sided window: 2w keys before the query', ra(pad='2 * w, 0', left='2 * w'))
A(nb, 'restricted_attention', 'full n x n scores masked with local_mask', """
def restricted_attention(q, k, v, r):
    return attention(q, k, v, local_mask(q.shape[-2], r))[0]""")
A(nb, 'restricted_attention', 'returns (output, weights)', RA.format(w='r // 2', pad='w, w', win='2 * w + 1', scale='/ math.sqrt(d)', left='w',
  fill="s = s.masked_fill((j < 0) | (j >= n), float('-inf'))", dim=-1).replace('return (a[..., None] * vw).sum(-2)', 'return (a[..., None] * vw).sum(-2), a'))

# 08_data: learn_bpe, segment
nb = '08_data'
BPE = """
def merge_word(syms, pair):
    out, i = [], 0
    while i < len(syms):
        if i + 1 < len(syms) and (syms[i], syms[i + 1]) == pair: out.append(syms[i] + syms[i + 1]); i += 2
        else: out.append(syms[i]); i += 1
    return out
def learn_bpe(word_counts, n_merges):
    vocab = {{tuple({split}): c for w, c in word_counts.items()}}
    merges = []
    for _ in range(n_merges):
        pairs = Counter()
        for syms, c in vocab.items():
            for p in zip(syms, syms[1:]): pairs[p] += {weight}
        {stop}
        best = {best}
        merges.append({rec})
        vocab = {{tuple(merge_word(list(s), best)): c for s, c in vocab.items()}}
    return merges
def segment(word, merges):
    syms = {seg_split}
    for m in merges: syms = merge_word(syms, {seg_pair})
    return syms"""
def bpe(split="list(w) + ['</w>']", weight='c', stop='if not pairs: break', best='min(pairs, key=lambda p: (-pairs[p], p))',
        rec='best', seg_split="list(word) + ['</w>']", seg_pair='m'):
    return BPE.format(split=split, weight=weight, stop=stop, best=best, rec=rec, seg_split=seg_split, seg_pair=seg_pair)
A(nb, 'bpe', None, bpe())
A(nb, 'bpe', "no '</w>'", bpe(split='list(w)', seg_split='list(word)'))
A(nb, 'bpe', 'pairs counted once per word type', bpe(weight='1'))
A(nb, 'bpe', 'ties: the largest pair', bpe(best='max(pairs, key=lambda p: (pairs[p], p))'))
A(nb, 'bpe', "segment without '</w>'", bpe(seg_split='list(word)'))
A(nb, 'bpe', 'merges recorded as joined strings', bpe(rec="''.join(best)", seg_pair='tuple(m) if len(m) == 2 else (m[:-1], m[-1:])'))
A(nb, 'bpe', 'no stop: max of an empty Counter', bpe(stop='pass'))
A(nb, 'bpe', 'ties: the first pair met (most_common)', bpe(best='pairs.most_common(1)[0][0]'))
A(nb, 'bpe', 'segment applies the merges in reverse order', bpe().replace('for m in merges:', 'for m in reversed(merges):'))
A(nb, 'bpe', 'string replace on space-joined symbols (merges inside symbols)', """
def learn_bpe(word_counts, n_merges):
    vocab = {' '.join(list(w) + ['</w>']): c for w, c in word_counts.items()}
    merges = []
    for _ in range(n_merges):
        pairs = Counter()
        for s, c in vocab.items():
            syms = s.split()
            for p in zip(syms, syms[1:]): pairs[p] += c
        if not pairs: break
        best = min(pairs, key=lambda p: (-pairs[p], p))
        merges.append(best)
        vocab = {s.replace(' '.join(best), ''.join(best)): c for s, c in vocab.items()}
    return merges
def segment(word, merges):
    s = ' '.join(list(word) + ['</w>'])
    for m in merges: s = s.replace(' '.join(m), ''.join(m))
    return s.split()""")

# 09_training: my_noam_lr, my_label_smoothing
nb = '09_training'
NL = """
def my_noam_lr(step, d_model=512, warmup=4000):
    {guard}
    return {expr}"""
def nl(guard='if step == 0: return 0.0', expr='d_model ** -0.5 * min(step ** -0.5, step * warmup ** -1.5)'):
    return NL.format(guard=guard, expr=expr)
A(nb, 'my_noam_lr', None, nl())
A(nb, 'my_noam_lr', 'no case for step 0 (0 ** -0.5)', nl(guard='pass'))
A(nb, 'my_noam_lr', 'max for min', nl(expr='d_model ** -0.5 * max(step ** -0.5, step * warmup ** -1.5)'))
A(nb, 'my_noam_lr', 'warmup ** -0.5 in the warm-up', nl(expr='d_model ** -0.5 * min(step ** -0.5, step * warmup ** -0.5)'))
A(nb, 'my_noam_lr', 'no d_model factor', nl(expr='min(step ** -0.5, step * warmup ** -1.5)'))
A(nb, 'my_noam_lr', 'step + 1 (counts from 0)', nl(expr='d_model ** -0.5 * min((step + 1) ** -0.5, (step + 1) * warmup ** -1.5)'))
A(nb, 'my_noam_lr', 'd_model ** 0.5', nl(expr='d_model ** 0.5 * min(step ** -0.5, step * warmup ** -1.5)'))
A(nb, 'my_noam_lr', 'max(step, 1): non-zero at step 0', nl(guard='step = max(step, 1)'))
A(nb, 'my_noam_lr', 'warmup ** -1 in the warm-up', nl(expr='d_model ** -0.5 * min(step ** -0.5, step / warmup)'))
LS = """
def my_label_smoothing(logits, target, eps, pad_id=PAD_ID):
    V = logits.shape[-1]
    logp = {logp}
    q = {q}
    loss = {loss}
    keep = target != pad_id
    return {ret}"""
def ls(logp='F.log_softmax(logits, -1)', q='(1 - eps) * F.one_hot(target, V) + eps / V', loss='-(q * logp).sum(-1)',
       ret='loss[keep].mean()'):
    return LS.format(logp=logp, q=q, loss=loss, ret=ret)
A(nb, 'my_label_smoothing', None, ls())
A(nb, 'my_label_smoothing', "tensor2tensor's eps/(V-1) on the others", ls(q='(1 - eps) * F.one_hot(target, V) + eps / (V - 1) * (1 - F.one_hot(target, V))'))
A(nb, 'my_label_smoothing', 'mean over every position, pads too', ls(ret='loss.mean()'))
A(nb, 'my_label_smoothing', 'sum over the non-pad positions', ls(ret='loss[keep].sum()'))
A(nb, 'my_label_smoothing', 'probabilities for log-probabilities', ls(logp='F.softmax(logits, -1)'))
A(nb, 'my_label_smoothing', 'eps and 1 - eps swapped', ls(q='eps * F.one_hot(target, V) + (1 - eps) / V'))
A(nb, 'my_label_smoothing', 'F.cross_entropy(label_smoothing=eps) without ignore_index', """
def my_label_smoothing(logits, target, eps, pad_id=PAD_ID):
    return F.cross_entropy(logits.reshape(-1, logits.shape[-1]), target.reshape(-1), label_smoothing=eps)""")
A(nb, 'my_label_smoothing', 'no minus sign', ls(loss='(q * logp).sum(-1)'))
A(nb, 'my_label_smoothing', 'mean over sentences: sum / B', ls(ret='loss[keep].sum() / target.shape[0]'))
A(nb, 'my_label_smoothing', 'plain NLL: eps ignored', ls(q='F.one_hot(target, V).float()'))

# 10_decoding: my_greedy_step
nb = '10_decoding'
GS = """
def my_greedy_step(model, src, ys):
    logits = {logits}
    return {ret}"""
def gs(logits='model(src, ys)[:, -1]', ret='next_token_logits(logits).argmax(-1)'):
    return GS.format(logits=logits, ret=ret)
A(nb, 'my_greedy_step', None, gs())
A(nb, 'my_greedy_step', 'the first position', gs(logits='model(src, ys)[:, 0]'))
A(nb, 'my_greedy_step', 'PAD and BOS not forbidden', gs(ret='logits.argmax(-1)'))
A(nb, 'my_greedy_step', 'returns (B, 1)', gs(ret='next_token_logits(logits).argmax(-1, keepdim=True)'))
A(nb, 'my_greedy_step', 'argmax over the batch', gs(ret='next_token_logits(logits).argmax(0)'))
A(nb, 'my_greedy_step', 'drops the last token of ys, as in teacher forcing', gs(logits='model(src, ys[:, :-1])[:, -1] if ys.shape[1] > 1 else model(src, ys)[:, -1]'))
A(nb, 'my_greedy_step', 'model(ys, src): source and target swapped', gs(logits='model(ys, src)[:, -1]'))
A(nb, 'my_greedy_step', 'returns the largest logit, not its token', gs(ret='next_token_logits(logits).max(-1).values'))
A(nb, 'my_greedy_step', 'only PAD forbidden', gs(ret="logits.index_fill(-1, torch.tensor([PAD_ID]), float('-inf')).argmax(-1)"))

# 11_results: my_bleu
nb = '11_results'
BL = """
def my_bleu(hyps, refs):
    ngrams = lambda ws, n: Counter(tuple(ws[i:i + n]) for i in range(len(ws) - n + 1))
    match, total, c, r = [0] * {N}, [0] * {N}, 0, 0
    for h, ref in zip(hyps, refs):
        h, ref = h.split(), ref.split()
        c, r = c + len(h), r + len(ref)
        for n in range(1, {N} + 1):
            match[n - 1] += {match}
            total[n - 1] += max(len(h) - n + 1, 0)
    bp = {bp}
    return {ret}"""
def bl(N=4, match='sum((ngrams(h, n) & ngrams(ref, n)).values())', bp='min(1.0, math.exp(1 - r / c))',
       ret='100 * bp * math.exp(sum(math.log(m / t) for m, t in zip(match, total)) / {N})'):
    return BL.format(N=N, match=match, bp=bp, ret=ret.format(N=N))
A(nb, 'my_bleu', None, bl())
A(nb, 'my_bleu', 'no clipping', bl(match='sum(c_ for g, c_ in ngrams(h, n).items() if g in ngrams(ref, n))'))
A(nb, 'my_bleu', 'no brevity penalty', bl(bp='1.0'))
A(nb, 'my_bleu', 'brevity penalty exp(1 - c/r)', bl(bp='min(1.0, math.exp(1 - c / r))'))
A(nb, 'my_bleu', 'arithmetic mean of the precisions', bl(ret='100 * bp * sum(m / t for m, t in zip(match, total)) / {N}'))
A(nb, 'my_bleu', 'orders 1 to 3', bl(N=3))
A(nb, 'my_bleu', 'returns 0 to 1', bl(ret='bp * math.exp(sum(math.log(m / t) for m, t in zip(match, total)) / {N})'))
A(nb, 'my_bleu', 'brevity penalty without min(1, ...)', bl(bp='math.exp(1 - r / c)'))
A(nb, 'my_bleu', 'mean of sentence BLEUs', """
def my_bleu(hyps, refs):
    ngrams = lambda ws, n: Counter(tuple(ws[i:i + n]) for i in range(len(ws) - n + 1))
    scores = []
    for h, ref in zip(hyps, refs):
        h, ref = h.split(), ref.split()
        ps = [max(sum((ngrams(h, n) & ngrams(ref, n)).values()), 1e-9) / max(len(h) - n + 1, 1) for n in range(1, 5)]
        bp = min(1.0, math.exp(1 - len(ref) / len(h)))
        scores.append(100 * bp * math.exp(sum(math.log(p) for p in ps) / 4))
    return sum(scores) / len(scores)""")
A(nb, 'my_bleu', 'total counts len(h) n-grams for every order', bl(match='sum((ngrams(h, n) & ngrams(ref, n)).values())').replace('max(len(h) - n + 1, 0)', 'len(h)'))

# 12_variations: beyond_noise, heads_looking, rows_ab
nb = '12_variations'
BN = """
def beyond_noise(recs):
    base = {base}
    noise = {noise}
    return [r['id'] for r in recs if {keep} and {cmp}]"""
def bn(base="next(r['bleu'] for r in recs if r['id'] == 'base')",
       noise="max(abs(r['bleu'] - base) for r in recs if r['variant'] == 'base' and r['id'] != 'base')",
       keep="r['variant'] != 'base'", cmp="abs(r['bleu'] - base) > noise"):
    return BN.format(base=base, noise=noise, keep=keep, cmp=cmp)
A(nb, 'beyond_noise', None, bn())
A(nb, 'beyond_noise', 'seed runs counted as variants', bn(keep="r['id'] != 'base'"))
A(nb, 'beyond_noise', 'only improvements count', bn(cmp="r['bleu'] - base > noise"))
A(nb, 'beyond_noise', '>= for >', bn(cmp="abs(r['bleu'] - base) >= noise"))
A(nb, 'beyond_noise', 'noise: the smallest seed difference', bn(noise="min(abs(r['bleu'] - base) for r in recs if r['variant'] == 'base' and r['id'] != 'base')"))
A(nb, 'beyond_noise', 'noise 0: every differing variant', bn(noise='0'))
A(nb, 'beyond_noise', 'base: the mean of the base runs', bn(base="sum(r['bleu'] for r in recs if r['variant'] == 'base') / sum(r['variant'] == 'base' for r in recs)"))
A(nb, 'beyond_noise', 'noise: the spread max - min of every base run, base included', bn(noise="max(r['bleu'] for r in recs if r['variant'] == 'base') - min(r['bleu'] for r in recs if r['variant'] == 'base')"))
HL = """
def heads_looking(w, rows, col):
    return [{num} for h in range(w.shape[0]) if {q}(w[{idx}].argmax() == col for r in rows)]"""
def hl(num='h + 1', q='all', idx='h, r'):
    return HL.format(num=num, q=q, idx=idx)
A(nb, 'heads_looking', None, hl())
A(nb, 'heads_looking', 'heads numbered from 0', hl(num='h'))
A(nb, 'heads_looking', 'any row for every row', hl(q='any'))
A(nb, 'heads_looking', 'argmax over the queries of column r', hl(idx='h, :, r'))
A(nb, 'heads_looking', 'indexes w[r, h] (rows first)', hl(idx='r, h'))
A(nb, 'heads_looking', 'weight on col above 0.5 instead of the largest', """
def heads_looking(w, rows, col):
    return [h + 1 for h in range(w.shape[0]) if all(w[h, r, col] > 0.5 for r in rows)]""")
A(nb, 'heads_looking', 'the mean of the rows looks hardest at col', """
def heads_looking(w, rows, col):
    return [h + 1 for h in range(w.shape[0]) if w[h, list(rows)].mean(0).argmax() == col]""")
RAB = """
def rows_ab(base):
    d, h = base['d_model'], base['h']; d_k = {dk}
    return {{**{{f'A-h{{k}}': dict(h=k, d_k={adk}, d_v={adk}) for k in ({hs})}},
            **{{f'B-dk{{k}}': dict(d_k=k, d_v={bdv}) for k in ({bks})}}}}"""
def rab(dk="base.get('d_k') or d // h", adk='d // k', hs='max(1, h // 8), h // 2, 2 * h, 4 * h', bdv='d_k', bks='d_k // 4, d_k // 2'):
    return RAB.format(dk=dk, adk=adk, hs=hs, bdv=bdv, bks=bks)
A(nb, 'rows_ab', None, rab())
A(nb, 'rows_ab', 'h // 8 without max(1, ...)', rab(hs='h // 8, h // 2, 2 * h, 4 * h'))
A(nb, 'rows_ab', "d_k = d // h, ignoring the preset's d_k", rab(dk='d // h'))
A(nb, 'rows_ab', 'row A keeps d_k (computation grows)', rab(adk='d_k'))
A(nb, 'rows_ab', 'row B changes d_v too', rab(bdv='k'))
A(nb, 'rows_ab', 'row B multiplies d_k by 4 and 2', rab(bks='d_k * 4, d_k * 2'))
A(nb, 'rows_ab', "names 'A{k}', 'B{k}'", rab().replace("f'A-h{k}'", "f'A{k}'").replace("f'B-dk{k}'", "f'B{k}'"))
A(nb, 'rows_ab', 'row A: h/4 for h/8', rab(hs='max(1, h // 4), h // 2, 2 * h, 4 * h'))

# 13_parsing: my_linearize, my_corpus_prf
nb = '13_parsing'
LIN = """
def my_linearize(tree):
    if {leaf}: return {word}
    lab = {lab}
    return ' '.join([{op}, *(my_linearize(t) for t in tree), {cl}])"""
def lin(leaf='is_preterminal(tree)', word='tree[0]', lab='coarse_label(tree.label())', op="f'({lab}'", cl="f'){lab}'"):
    return LIN.format(leaf=leaf, word=word, lab=lab, op=op, cl=cl)
A(nb, 'my_linearize', None, lin())
A(nb, 'my_linearize', 'labels not coarsened', lin(lab='tree.label()'))
A(nb, 'my_linearize', "closing ')' without the label", lin(cl="')'"))
A(nb, 'my_linearize', 'POS nodes bracketed too', lin(leaf='isinstance(tree, str)', word='tree'))
A(nb, 'my_linearize', 'the POS tag at the leaves for the word', lin(word='tree.label()'))
A(nb, 'my_linearize', "closing as 'LABEL)'", lin(cl="f'{lab})'"))
A(nb, 'my_linearize', "label cut at '-' only (NP=1 kept)", lin(lab="tree.label().split('-')[0]"))
A(nb, 'my_linearize', 'opening bracket with a space: ( NP', lin(op="'(', lab"))
PRF = """
def my_corpus_prf(counts):
    {body}"""
A(nb, 'my_corpus_prf', None, PRF.format(body="m, g, t = (sum(c[i] for c in counts) for i in range(3))\n    p, r = 100 * m / t, 100 * m / g\n    return p, r, 2 * p * r / (p + r)"))
A(nb, 'my_corpus_prf', 'mean of the sentences\' scores', PRF.format(body="ps = [100 * m / t if t else 0.0 for m, g, t in counts]; rs = [100 * m / g for m, g, t in counts]\n    p, r = sum(ps) / len(ps), sum(rs) / len(rs)\n    return p, r, 2 * p * r / (p + r)"))
A(nb, 'my_corpus_prf', 'precision and recall swapped', PRF.format(body="m, g, t = (sum(c[i] for c in counts) for i in range(3))\n    p, r = 100 * m / g, 100 * m / t\n    return p, r, 2 * p * r / (p + r)"))
A(nb, 'my_corpus_prf', 'fractions, not percent', PRF.format(body="m, g, t = (sum(c[i] for c in counts) for i in range(3))\n    p, r = m / t, m / g\n    return p, r, 2 * p * r / (p + r)"))
A(nb, 'my_corpus_prf', 'F1 the mean of P and R', PRF.format(body="m, g, t = (sum(c[i] for c in counts) for i in range(3))\n    p, r = 100 * m / t, 100 * m / g\n    return p, r, (p + r) / 2"))
A(nb, 'my_corpus_prf', 'counts read as (matched, parse, reference)', PRF.format(body="m, t, g = (sum(c[i] for c in counts) for i in range(3))\n    p, r = 100 * m / t, 100 * m / g\n    return p, r, 2 * p * r / (p + r)"))
A(nb, 'my_corpus_prf', 'F1 of the sentences averaged', PRF.format(body="m, g, t = (sum(c[i] for c in counts) for i in range(3))\n    p, r = 100 * m / t, 100 * m / g\n    fs = [200 * c[0] / (c[1] + c[2]) if c[1] + c[2] else 0.0 for c in counts]\n    return p, r, sum(fs) / len(fs)"))
A(nb, 'my_corpus_prf', 'returns (P, R, F1) as fractions of 100 rounded to 2 places', PRF.format(body="m, g, t = (sum(c[i] for c in counts) for i in range(3))\n    p, r = 100 * m / t, 100 * m / g\n    return round(p, 2), round(r, 2), round(2 * p * r / (p + r), 2)"))

# 14_since_2017: rms_norm_of, rotate_query, group_heads
nb = '14_since_2017'
RN = """
def rms_norm_of(a, g, eps=1e-5):
    return {expr}"""
A(nb, 'rms_norm_of', None, RN.format(expr='a / torch.sqrt(a.pow(2).mean(-1, keepdim=True) + eps) * g'))
A(nb, 'rms_norm_of', 'centred (LayerNorm without the bias)', RN.format(expr='(a - a.mean(-1, keepdim=True)) / torch.sqrt(a.var(-1, unbiased=False, keepdim=True) + eps) * g'))
A(nb, 'rms_norm_of', 'divided by the standard deviation', RN.format(expr='a / (a.std(-1, keepdim=True) + eps) * g'))
A(nb, 'rms_norm_of', 'no gain', RN.format(expr='a / torch.sqrt(a.pow(2).mean(-1, keepdim=True) + eps)'))
A(nb, 'rms_norm_of', 'eps outside the root', RN.format(expr='a / (torch.sqrt(a.pow(2).mean(-1, keepdim=True)) + eps) * g'))
A(nb, 'rms_norm_of', 'over the first axis', RN.format(expr='a / torch.sqrt(a.pow(2).mean(0, keepdim=True) + eps) * g'))
A(nb, 'rms_norm_of', 'sum of squares, not the mean', RN.format(expr='a / torch.sqrt(a.pow(2).sum(-1, keepdim=True) + eps) * g'))
A(nb, 'rms_norm_of', 'the gain added', RN.format(expr='a / torch.sqrt(a.pow(2).mean(-1, keepdim=True) + eps) + g'))
RQ = """
def rotate_query(q, m):
    d = len(q)
    a = {angle}
    x1, x2 = {halves}
    out = torch.stack([x1 * a.cos() {s1} x2 * a.sin(), x1 * a.sin() {s2} x2 * a.cos()], -1)
    return {ret}"""
def rq(angle='m * 10000.0 ** (-torch.arange(0, d, 2, dtype=torch.float64) / d)', halves='q[0::2].double(), q[1::2].double()',
       s1='-', s2='+', ret='out.flatten().to(q.dtype)'):
    return RQ.format(angle=angle, halves=halves, s1=s1, s2=s2, ret=ret)
A(nb, 'rotate_query', None, rq())
A(nb, 'rotate_query', 'one angle for every pair', rq(angle='m * torch.ones(d // 2, dtype=torch.float64)'))
A(nb, 'rotate_query', 'pairs as halves (i, i + d/2)', rq(halves='q[:d // 2].double(), q[d // 2:].double()', ret='torch.cat([out[:, 0], out[:, 1]]).to(q.dtype)'))
A(nb, 'rotate_query', 'turned the wrong way', rq(s1='+', s2='-'))
A(nb, 'rotate_query', 'position m + 1', rq(angle='(m + 1) * 10000.0 ** (-torch.arange(0, d, 2, dtype=torch.float64) / d)'))
A(nb, 'rotate_query', 'theta_i = 10000^(-i/d), i the pair index', rq(angle='m * 10000.0 ** (-torch.arange(d // 2, dtype=torch.float64) / d)'))
A(nb, 'rotate_query', 'theta_i = 10000^(2i/d), the inverse', rq(angle='m * 10000.0 ** (torch.arange(0, d, 2, dtype=torch.float64) / d)'))
A(nb, 'rotate_query', 'the angle m / theta_i', rq(angle='m / 10000.0 ** (-torch.arange(0, d, 2, dtype=torch.float64) / d)'))
GH = """
def group_heads(k, g):
    B, h, n, d = k.shape
    return {expr}"""
A(nb, 'group_heads', None, GH.format(expr='k.view(B, g, h // g, n, d).mean(2).repeat_interleave(h // g, dim=1)'))
A(nb, 'group_heads', 'groups by stride', GH.format(expr='k.view(B, h // g, g, n, d).mean(1).repeat(1, h // g, 1, 1)'))
A(nb, 'group_heads', 'the sum for the mean', GH.format(expr='k.view(B, g, h // g, n, d).sum(2).repeat_interleave(h // g, dim=1)'))
A(nb, 'group_heads', 'tiled instead of repeated in place', GH.format(expr='k.view(B, g, h // g, n, d).mean(2).repeat(1, h // g, 1, 1)'))
A(nb, 'group_heads', 'g heads returned', GH.format(expr='k.view(B, g, h // g, n, d).mean(2)'))
A(nb, 'group_heads', 'h/g groups of g heads', GH.format(expr='k.view(B, h // g, g, n, d).mean(2).repeat_interleave(g, dim=1)'))
A(nb, 'group_heads', 'the first head of each group, not the mean', GH.format(expr='k.view(B, g, h // g, n, d)[:, :, 0].repeat_interleave(h // g, dim=1)'))
A(nb, 'group_heads', 'mean over every head (g ignored)', GH.format(expr='k.mean(1, keepdim=True).expand(B, h, n, d)'))
