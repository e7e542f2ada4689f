"Multi-head attention (nbs/02_multihead.ipynb) and the library's layer (nbs/lib_transformer.ipynb): parity of the two, with torch.nn.MultiheadAttention, gradients, the KV caches, bad input."
import re
import matplotlib
matplotlib.use('Agg')
import pytest, torch
from torch.testing import assert_close
from torch.utils.flop_counter import FlopCounterMode
from transformer_nb.core import count_params
from transformer_nb.attention import attention, causal_mask, pad_mask
from transformer_nb.multihead import MultiHeadAttention, show_heads
from transformer_nb.lib.transformer import FusedAttention, mha_cost, to_torch_mha
from transformer_nb.lib.options import ModelConfig
from transformer_nb.lib.fast_decoding import KVCache
from transformer_nb.lib.fast_decoding import _LazyKVCache

torch.set_num_threads(1)
TOL = dict(atol=2e-5, rtol=1e-4)

def fused_layer(d_model, h, d_k=None, d_v=None, p_drop=0.0, bias=True):
    "The tools' layer: 02's layer (without biases if `bias` is False) in `FusedAttention`, sharing its parameters."
    mha = MultiHeadAttention(d_model, h, d_k, d_v)
    if not bias:
        for lin in (mha.w_q, mha.w_k, mha.w_v, mha.w_o): lin.register_parameter('bias', None)
    return FusedAttention(mha, p_drop)

def make(h, d_k=4, seed=0, bias=True, **kw):
    torch.manual_seed(seed)
    m = fused_layer(h*d_k, h, bias=bias, **kw)
    with torch.no_grad():                       # non-zero biases, so a bias mix-up cannot hide
        for p in m.parameters(): p.add_(0.1*torch.randn_like(p))
    return m

def lengths_mask(lens, n):
    "(B, 1, 1, n) True = real token, for sentences of the given lengths."
    return pad_mask(torch.stack([(torch.arange(n) < l).long() for l in lens]))

def explicit(m, x, mem=None, mask=None):
    "forward's maths through the explicit `attention` (01): the output and the weights (B, h, n_q, n_k)."
    o, w = attention(*m.project(x, mem), mask)
    return m.w_o(m.merge_heads(o)), w

CACHES = [KVCache, _LazyKVCache]   # the readable cache (10_decoding) and the lazy one (lib_fast_decoding): the same contract

CASES = [(h, seed) for h in (1, 2, 8) for seed in (0, 1, 2)]

def shapes(seed):
    g = torch.Generator().manual_seed(seed)
    B, n_q, n_k = (int(torch.randint(lo, hi, (1,), generator=g)) for lo, hi in ((1, 4), (1, 9), (1, 11)))
    lens = torch.randint(1, n_k + 1, (B,), generator=g).tolist()
    return B, n_q, n_k, lens

@pytest.mark.parametrize('h,seed', CASES)
def test_parity_self_attention_key_padding(h, seed):
    m = make(h, d_k=4 if h > 1 else 16, seed=seed).eval(); ref = to_torch_mha(m)
    B, n, _, lens = shapes(seed); lens = [min(l, n) for l in lens]
    x, keep = torch.randn(B, n, m.d_model), lengths_mask(lens, n)
    with torch.no_grad():
        y, w = m(x, mask=keep), m.weights(x, mask=keep)
        y_ref, w_ref = ref(x, x, x, key_padding_mask=~keep[:, 0, 0], average_attn_weights=False)
        assert_close(y, y_ref, **TOL); assert_close(w, w_ref, **TOL)
        assert_close(explicit(m, x, mask=keep)[0], y_ref, **TOL)                          # the explicit path
        assert_close(ref(x, x, x, key_padding_mask=~keep[:, 0, 0])[1], w.mean(1), **TOL)  # head-averaged

@pytest.mark.parametrize('h,seed', CASES)
def test_parity_cross_attention_key_padding(h, seed):
    m = make(h, seed=seed).eval(); ref = to_torch_mha(m)
    B, n_q, n_k, lens = shapes(seed)
    x, mem, keep = torch.randn(B, n_q, m.d_model), torch.randn(B, n_k, m.d_model), lengths_mask(lens, n_k)
    with torch.no_grad():
        y, w = m(x, mem, mask=keep), m.weights(x, mem, mask=keep)
        y_ref, w_ref = ref(x, mem, mem, key_padding_mask=~keep[:, 0, 0], average_attn_weights=False)
        assert_close(y, y_ref, **TOL); assert_close(w, w_ref, **TOL)
        assert_close(explicit(m, x, mem, mask=keep)[0], y_ref, **TOL)

@pytest.mark.parametrize('h', (1, 2, 8))
def test_parity_causal_and_no_bias(h):
    for bias in (True, False):
        m = make(h, seed=h, bias=bias).eval(); ref = to_torch_mha(m)
        x = torch.randn(2, 7, m.d_model)
        with torch.no_grad():
            y_ref, w_ref = ref(x, x, x, attn_mask=~causal_mask(7)[0, 0], average_attn_weights=False)
            y, w = m(x, mask=causal_mask(7)), m.weights(x, mask=causal_mask(7))
            assert_close(y, y_ref, **TOL); assert_close(w, w_ref, **TOL)

@pytest.mark.parametrize('h', (1, 2, 8))
@pytest.mark.parametrize('cross', (False, True))
def test_gradient_parity(h, cross):
    m = make(h, seed=3).train(); ref = to_torch_mha(m).train()    # p_drop=0, so training mode is deterministic
    B, n_q, n_k = 3, 5, 6
    x = torch.randn(B, n_q, m.d_model, requires_grad=True)
    mem = torch.randn(B, n_k, m.d_model, requires_grad=True) if cross else None
    keep = lengths_mask([n_k, 3, 1] if cross else [n_q, 3, 1], n_k if cross else n_q)
    r = torch.randn(B, n_q, m.d_model)                             # a random linear loss
    for ours_fn in (m, lambda *a, **k: explicit(m, *a, **k)[0]):   # the fused forward and the explicit maths
        m.zero_grad(); ref.zero_grad(); x.grad = None
        if cross: mem.grad = None
        kv = mem if cross else x
        (ours_fn(x, mem, mask=keep) * r).sum().backward()
        qkv = (m.w_q, m.w_k, m.w_v)                                # stacked by rows, as PyTorch's in_proj
        ours = [torch.cat([l.weight.grad for l in qkv]), torch.cat([l.bias.grad for l in qkv]), m.w_o.weight.grad, m.w_o.bias.grad, x.grad]
        ours = [g.clone() for g in ours] + ([mem.grad.clone()] if cross else [])
        x.grad = None
        if cross: mem.grad = None
        (ref(x, kv, kv, key_padding_mask=~keep[:, 0, 0], need_weights=False)[0] * r).sum().backward()
        theirs = [ref.in_proj_weight.grad, ref.in_proj_bias.grad, ref.out_proj.weight.grad, ref.out_proj.bias.grad, x.grad]
        theirs += [mem.grad] if cross else []
        for a, b in zip(ours, theirs): assert_close(a, b, atol=1e-4, rtol=1e-4)

def test_heads_in_order():
    "Each head from its own rows of W^Q, W^K, W^V, concatenated in order, then W^O (catches a wrong merge)."
    m = make(4, d_k=3, seed=5, d_v=5).eval()
    x, mem = torch.randn(2, 4, m.d_model), torch.randn(2, 6, m.d_model)
    (Wq, bq), (Wk, bk), (Wv, bv) = ((l.weight, l.bias) for l in (m.w_q, m.w_k, m.w_v))
    heads = []
    for i in range(m.h):
        a, b = slice(i*m.d_k, (i+1)*m.d_k), slice(i*m.d_v, (i+1)*m.d_v)
        Q, K, V = x @ Wq[a].T + bq[a], mem @ Wk[a].T + bk[a], mem @ Wv[b].T + bv[b]
        heads.append(torch.softmax(Q @ K.mT / m.d_k**0.5, -1) @ V)
    with torch.no_grad(): assert_close(m(x, mem), m.w_o(torch.cat(heads, -1)), **TOL)

def held(m, cache, *a, **kw):
    "FusedAttention `m` holding `cache` for one call, as `with_cache` (lib_transformer) hands it while decoding."
    m.cache = cache
    try: return m(*a, **kw)
    finally: m.cache = None

@pytest.mark.parametrize('Cache', CACHES)
@pytest.mark.parametrize('h', (1, 2, 8))
def test_cache_self_attention_equals_full_masked_pass(h, Cache):
    m = make(h, seed=h).eval(); T = 7
    x = torch.randn(2, T, m.d_model)
    with torch.no_grad():
        full = m(x, mask=causal_mask(T))
        c = Cache()
        steps = torch.cat([held(m, c, x[:, t:t+1]) for t in range(T)], 1)
        assert len(c) == T and c.k.shape == (2, h, T, m.d_k)
        assert_close(steps, full, **TOL)
        c = Cache()                                                 # chunks: 3 tokens, then 1, then 3
        parts = [held(m, c, x[:, a:b], mask=causal_mask(T)[..., a:b, :b]) for a, b in ((0, 3), (3, 4), (4, 7))]
        assert_close(torch.cat(parts, 1), full, **TOL)

@pytest.mark.parametrize('Cache', CACHES)
@pytest.mark.parametrize('h', (1, 2, 8))
def test_cache_cross_attention_computed_once(h, Cache):
    m = make(h, seed=h).eval(); T, S = 5, 6
    x, mem, keep = torch.randn(2, T, m.d_model), torch.randn(2, S, m.d_model), lengths_mask([S, 2], S)
    with torch.no_grad():
        full = m(x, mem, mask=keep)
        c = Cache(); ys = [held(m, c, x[:, :1], mem, mask=keep)]
        k0, v0 = c.k, c.v
        asked = []                                                  # which projections run
        hooks = [l.register_forward_hook(lambda mod, i, o, n=n: asked.append(n)) for n, l in (('q', m.w_q), ('k', m.w_k), ('v', m.w_v))]
        ys += [held(m, c, x[:, t:t+1], mem + 1.0, mask=keep) for t in range(1, T)]   # a changed mem is ignored
        for hk in hooks: hk.remove()
        assert asked == ['q'] * (T - 1)                             # only W^Q: K and V are not projected again
        assert c.k is k0 and c.v is v0 and len(c) == S
        assert_close(torch.cat(ys, 1), full, **TOL)

@pytest.mark.parametrize('Cache', CACHES)
def test_cache_select_reorders_beams(Cache):
    m = make(2, seed=7).eval(); T = 6
    x, mem = torch.randn(3, T, m.d_model), torch.randn(3, 4, m.d_model)
    idx = torch.tensor([2, 0, 0, 1])                                # batch 3 -> 4 beams, one row repeated, order changed
    with torch.no_grad():
        sc, cc = Cache(), Cache()
        for t in range(2): held(m, sc, x[:, t:t+1]); held(m, cc, x[:, t:t+1], mem)
        assert sc.select(idx) is sc; cc.select(idx)
        assert sc.k.shape[0] == cc.v.shape[0] == 4
        xr, mr = x[idx], mem[idx]
        for t in range(2, T):
            assert_close(held(m, sc, xr[:, t:t+1]), m(xr[:, :t+1], mask=causal_mask(t+1))[:, -1:], **TOL)
            assert_close(held(m, cc, xr[:, t:t+1], mr), m(xr[:, :t+1], mr)[:, -1:], **TOL)
    empty = Cache(); empty.select(idx); assert len(empty) == 0

@pytest.mark.parametrize('Cache', CACHES)
def test_repeated_selects_compose(Cache):
    "Two selects before the next append keep rows a[b]: the lazy cache composes them without touching the tensors."
    c = Cache()
    k, v = torch.arange(5.).view(5, 1, 1, 1).expand(5, 2, 3, 4), -torch.arange(5.).view(5, 1, 1, 1).expand(5, 2, 3, 2)
    c.append(k, v)
    a, b = torch.tensor([4, 4, 1, 0]), torch.tensor([3, 0, 2])
    c.select(a).select(b)
    k2, v2 = c.append(torch.full((3, 2, 1, 4), 9.), torch.full((3, 2, 1, 2), 9.))
    assert_close(k2[:, :, :3], k[a[b]], rtol=0, atol=0); assert_close(v2[:, :, :3], v[a[b]], rtol=0, atol=0)
    assert (k2[:, :, 3] == 9).all() and len(c) == 4 and c.k is k2

def test_lazy_cache_defers_select_and_repr_does_not_do_it():
    "LazyKVCache.select only records the rows; repr shows the batch it will have; reading k does the select once."
    c = _LazyKVCache()
    assert repr(c) == 'LazyKVCache(len=0, k=None)'
    k = torch.randn(3, 2, 4, 8); c.append(k, k.clone())
    c.select(torch.tensor([2, 2, 0, 1, 1]))
    assert c._k is k and c._rows is not None                        # nothing gathered yet
    assert repr(c) == 'LazyKVCache(len=4, k=(5, 2, 4, 8))' and c._k is k   # repr does not gather either
    assert torch.equal(c.k, k[[2, 2, 0, 1, 1]]) and c._rows is None
    r = KVCache(); r.append(k, k.clone()); r.select(torch.tensor([1, 0]))
    assert torch.equal(r.k, k[[1, 0]]) and repr(r) == 'KVCache(len=4, k=(2, 2, 4, 8))'   # the readable one: at once

def test_select_cat_is_index_select_then_cat():
    "_select_cat(old, rows, new) == cat([old[rows], new], dim=2), bit for bit; with autograd it still gives gradients."
    from transformer_nb.lib.fast_decoding import _select_cat
    g = torch.Generator().manual_seed(0)
    old, new = torch.randn(4, 3, 5, 6, generator=g), torch.randn(6, 3, 2, 6, generator=g)
    rows = torch.tensor([3, 3, 0, 1, 2, 0])
    with torch.no_grad(): assert torch.equal(_select_cat(old, rows, new), torch.cat([old[rows], new], dim=2))
    o, n = old.clone().requires_grad_(), new.clone().requires_grad_()
    out = _select_cat(o, rows, n)
    assert torch.equal(out, torch.cat([old[rows], new], dim=2))
    out.sum().backward()
    assert torch.equal(o.grad, torch.bincount(rows, minlength=4).float().view(4, 1, 1, 1).expand_as(old))
    assert torch.equal(n.grad, torch.ones_like(new))

def test_fully_masked_query_is_finite_on_both_paths():
    m = make(2, seed=1).eval()
    x = torch.randn(1, 3, m.d_model)
    mask = torch.tensor([[True, True, False], [False, False, False], [True, True, True]])   # query 1 sees nothing
    with torch.no_grad():
        y_fast, (y_slow, w) = m(x, mask=mask), explicit(m, x, mask=mask)
    assert torch.isfinite(y_fast).all() and torch.isfinite(y_slow).all()
    assert_close(y_fast, y_slow, **TOL); assert (w[0, :, 1] == 0).all() and torch.equal(m.weights(x, mask=mask), w)

def test_dropout_only_in_training():
    m = make(2, seed=2, p_drop=0.5)
    x = torch.randn(2, 6, m.d_model)
    with torch.no_grad():
        m.eval(); assert_close(m(x), m(x)); assert_close(m(x), explicit(m, x)[0], **TOL)
        m.train(); assert not torch.allclose(m(x), m.eval()(x))
        # dropout acts on the attention weights: with every value vector 1 and W^O the identity, the output is the
        # (dropped, rescaled) row sum of each head's weights: 1 in eval, anything in [0, 2] in training
        m.w_v.weight.zero_(); m.w_v.bias.fill_(1)
        m.w_o.weight.copy_(torch.eye(m.d_model)); m.w_o.bias.zero_()
        assert_close(m.eval()(x), torch.ones(2, 6, m.d_model))
        torch.manual_seed(0); y = m.train()(x)
        assert not torch.allclose(y, torch.ones_like(y)) and (y >= 0).all() and (y <= 2 + 1e-6).all()
        assert ((y > 1e-3) & (y < 2 - 1e-3) & ((y - 1).abs() > 1e-3)).any()   # not dropout on the output (0 or 2)
        assert (m.weights(x) > 0).all()                             # `weights` are the eval-mode weights, for figures

@pytest.mark.parametrize('kw', [dict(d_model=32, h=4), dict(d_model=512, h=8), dict(d_model=64, h=1),
                                dict(d_model=24, h=3, d_k=5, d_v=7), dict(d_model=16, h=2, bias=False)])
def test_mha_cost_matches_module_and_flop_counter(kw):
    m = fused_layer(**kw)
    c = mha_cost(n_q=5, n_k=9, **kw)
    assert c['params'] == count_params(m)
    with FlopCounterMode(display=False) as fc, torch.no_grad():   # the explicit maths: every matmul is counted
        y = explicit(m, torch.randn(1, 5, m.d_model), torch.randn(1, 9, m.d_model))[0]
    assert c['flops'] == fc.get_total_flops()
    assert c['scores'] == m.h * 5 * 9 and y.shape == (1, 5, m.d_model)
    assert mha_cost(kw['d_model'], kw['h'], 5)['flops'] == mha_cost(kw['d_model'], kw['h'], 5, 5)['flops']

def test_cost_of_h_heads_equals_one_full_head():
    for h in (2, 4, 8, 16):
        a, b = mha_cost(512, h, 20, 30), mha_cost(512, 1, 20, 30)
        assert a['params'] == b['params'] and a['flops'] == b['flops'] and a['scores'] == h * b['scores']

@pytest.mark.parametrize('kw,msg', [(dict(d_model=30, h=4), 'd_model=30 is not divisible by h=4'), (dict(h=0), 'h=0 must be an int >= 1'),
                                    (dict(d_v=-1), 'd_v=-1 must be an int >= 1, or None'), (dict(d_model=0), 'd_model=0 must be an int >= 1'),
                                    (dict(d_k=0), 'd_k=0 must be an int >= 1, or None'), (dict(h=3.0), 'h=3.0')])
def test_impossible_sizes_are_refused_before_a_layer_is_built(kw, msg):
    "Sizes that cannot work are refused by the model's configuration, in one line naming the value (the layers trust it)."
    with pytest.raises(ValueError, match=re.escape(msg)): ModelConfig(**kw)

@pytest.mark.parametrize('p', [1.0, -0.1])
def test_the_fused_layer_refuses_a_dropout_rate_outside_0_1(p):
    with pytest.raises(ValueError, match=re.escape(f'p_attn={p}')): FusedAttention(MultiHeadAttention(32, 4), p)

def test_explicit_d_k_lifts_divisibility():
    m = fused_layer(30, 4, d_k=8)
    assert (m.d_k, m.d_v, m.w_q.weight.shape, m.w_v.weight.shape, m.w_o.weight.shape) == (8, 8, (32, 30), (32, 30), (30, 32))

@pytest.mark.parametrize('mask', [
    torch.ones(2, 1, 1, 4, dtype=torch.bool),     # wrong n_k
    torch.ones(2, 1, 3, 5, dtype=torch.bool),     # wrong n_q
    torch.ones(3, 1, 1, 5, dtype=torch.bool),     # wrong batch
    torch.ones(2, 3, 1, 5, dtype=torch.bool),     # wrong heads
    torch.ones(2, 5, 5, dtype=torch.bool),        # a 3-d mask: B broadcasts against the heads
])
@pytest.mark.parametrize('cls', [MultiHeadAttention, fused_layer])
def test_bad_mask(mask, cls):
    "The module trusts its mask (the model's entry points check it once: tests/test_model.py); a mask that does not fit"
    " (B, h, n_q, n_k) still fails, with PyTorch's error, on both paths."
    m = cls(32, 4)
    with pytest.raises(RuntimeError, match='must match the size'): m(torch.randn(2, 5, 32), mask=mask)
    with pytest.raises(RuntimeError, match='must match the size'): m.weights(torch.randn(2, 5, 32), mask=mask)

@pytest.mark.parametrize('cls', [MultiHeadAttention, fused_layer])
def test_bad_inputs(cls):
    m = cls(32, 4)
    with pytest.raises(RuntimeError, match='cannot be multiplied'): m(torch.randn(2, 5, 16))        # width != d_model
    with pytest.raises(RuntimeError, match=r'\[5, 32, 4, 8\]'): m(torch.randn(5, 32))              # no batch dim
    with pytest.raises(RuntimeError, match='cannot be multiplied'): m(torch.randn(2, 5, 32), torch.randn(2, 7, 8))
    with pytest.raises(RuntimeError, match='must match the size'): m(torch.randn(2, 5, 32), torch.randn(3, 7, 32))
    with pytest.raises(ValueError, match='d_k=6'): to_torch_mha(MultiHeadAttention(32, 4, d_k=6))

def test_show_heads():
    w = torch.softmax(torch.randn(6, 3, 4), -1)
    fig = show_heads(w, list('abc'), list('wxyz'))
    assert len([a for a in fig.axes if a.get_visible() and a.images]) == 6
    bars = [a for a in fig.axes if a.get_label() == '<colorbar>']                 # one shared scale: every map is 0..1
    assert len(bars) == 1 and bars[0].get_ylabel() == 'attention weight' and bars[0].get_ylim() == (0, 1)
    import matplotlib.pyplot as plt; plt.close('all')

@pytest.mark.parametrize('h,seed', CASES)
def test_library_layer_equals_the_papers(h, seed):
    "lib_transformer's FusedAttention holds 02's parameters under the same names and computes the same function (eval mode)."
    paper = MultiHeadAttention(h * 4, h, d_v=3 if h > 1 else None).eval()
    fast = fused_layer(h * 4, h, d_v=3 if h > 1 else None).eval()
    assert list(paper.state_dict()) == list(fast.state_dict()) == [f'w_{n}.{p}' for n in 'qkvo' for p in ('weight', 'bias')]
    with torch.no_grad():
        for p in paper.parameters(): p.copy_(torch.randn_like(p))
    fast.load_state_dict(paper.state_dict())
    B, n_q, n_k, lens = shapes(seed)
    x, mem = torch.randn(B, n_q, h * 4), torch.randn(B, n_k, h * 4)
    with torch.no_grad():
        for args, kw in (((x,), {}), ((x,), dict(mask=causal_mask(n_q))), ((x, mem), dict(mask=lengths_mask(lens, n_k)))):
            assert_close(fast(*args, **kw), paper(*args, **kw), **TOL)
            assert torch.equal(fast.weights(*args, **kw), paper.weights(*args, **kw))
