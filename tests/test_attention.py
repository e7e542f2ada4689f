"Tests for `transformer_nb.attention` that do not belong inline: parity with PyTorch and a hand computation, bad inputs."
import math
import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F
from transformer_nb.attention import masked_softmax, attention, pad_mask, causal_mask, tgt_mask
from transformer_nb.lib.layers import AdditiveAttention, scaling_experiment, _RetrievalScorer, retrieval_experiment

torch.set_num_threads(1)
B, h, n, d_k, d_v = 2, 3, 5, 8, 4
TOKS = torch.tensor([[7, 7, 7, 0, 0], [7, 7, 7, 7, 7]])
# PyTorch's SDPA gives a query that may attend to no key zeros from torch 2.5 on, NaN in 2.4 (`MultiHeadAttention`
# gives zeros on both: tests/test_multihead.py).
SDPA_ZERO_ROWS = tuple(int(x) for x in torch.__version__.split('+')[0].split('.')[:2]) >= (2, 5)


def sdpa(q, k, v, mask=None, **kw):
    "PyTorch's fused kernel with this course's mask convention (bool, True = may attend), output only."
    return F.scaled_dot_product_attention(q, k, v, attn_mask=mask, **kw)


def _gen(seed=0): return torch.Generator().manual_seed(seed)


def qkv(n_q=n, n_k=n, dtype=torch.float64, seed=0):
    g = _gen(seed)
    return (torch.randn(B, h, n_q, d_k, generator=g, dtype=dtype), torch.randn(B, h, n_k, d_k, generator=g, dtype=dtype),
            torch.randn(B, h, n_k, d_v, generator=g, dtype=dtype))


def make_mask(kind, n_q=n, n_k=n):
    "The masks a model uses, plus arbitrary per-query masks (one with a query that may attend to nothing)."
    if kind == 'none': return None
    if kind == 'pad': return pad_mask(TOKS)                          # (B, 1, 1, n)
    if kind == 'causal': return causal_mask(n)                       # (1, 1, n, n)
    if kind == 'causal2d': return causal_mask(n)[0, 0]               # (n, n): broadcasts over (B, h)
    if kind == 'tgt': return tgt_mask(TOKS)                          # (B, 1, n, n)
    m = torch.rand(B, h, n_q, n_k, generator=_gen(1)) > 0.4         # (B, h, n_q, n_k) per head
    m[..., 0] = True
    if kind == 'empty-row': m[0, 1, 2] = False                       # query 2 of (b=0, head=1) sees nothing
    return m


MASKS = ['none', 'pad', 'causal', 'causal2d', 'tgt', 'per-head', 'empty-row']


def hand_attention(q, k, v, mask=None, scale=None):
    "Equation (1) with Python loops and math.exp, one (batch, head, query) at a time."
    out = torch.zeros(*q.shape[:-1], v.shape[-1], dtype=torch.float64)
    full = (torch.ones(q.shape[:-1] + (k.shape[-2],), dtype=torch.bool) if mask is None
            else mask.expand(q.shape[:-1] + (k.shape[-2],)))
    scale = 1 / math.sqrt(q.shape[-1]) if scale is None else scale
    for b in range(q.shape[0]):
        for hh in range(q.shape[1]):
            for i in range(q.shape[2]):
                js = [j for j in range(k.shape[2]) if full[b, hh, i, j]]
                e = {j: math.exp(scale * float(q[b, hh, i] @ k[b, hh, j])) for j in js}
                for j in js: out[b, hh, i] += e[j] / sum(e.values()) * v[b, hh, j]
    return out


# ---------------------------------------------------------------- parity: values
@pytest.mark.parametrize('kind', MASKS)
@pytest.mark.parametrize('scale', [None, 1.0])
def test_values_match_hand_and_pytorch(kind, scale):
    q, k, v = qkv()
    mask = make_mask(kind)
    ref = hand_attention(q, k, v, mask, scale)
    out, w = attention(q, k, v, mask, scale=scale)
    torch.testing.assert_close(out, ref, rtol=0, atol=1e-12)
    fused = F.scaled_dot_product_attention(q, k, v, attn_mask=mask, scale=scale)
    if kind == 'empty-row' and not SDPA_ZERO_ROWS:   # torch 2.4: NaN in the empty row, the rest as ours
        assert fused[0, 1, 2].isnan().all(); fused[0, 1, 2] = 0.
    torch.testing.assert_close(fused, ref, rtol=0, atol=1e-12)   # the empty row included: PyTorch gives it zeros too
    full = torch.ones(B, h, n, n, dtype=torch.bool) if mask is None else mask.expand(B, h, n, n)
    assert (w[~full] == 0).all()
    rows = full.any(-1)
    torch.testing.assert_close(w.sum(-1)[rows], torch.ones(int(rows.sum()), dtype=torch.float64))


def test_empty_row_gives_zeros_on_both_paths():
    q, k, v = qkv()
    m = make_mask('empty-row')
    out, w = attention(q, k, v, m)
    assert torch.equal(out[0, 1, 2], torch.zeros(d_v, dtype=torch.float64))
    assert torch.equal(w[0, 1, 2], torch.zeros(n, dtype=torch.float64))
    fused = F.scaled_dot_product_attention(q, k, v, attn_mask=m)
    if not SDPA_ZERO_ROWS: assert fused[0, 1, 2].isnan().all(); fused[0, 1, 2] = 0.   # torch 2.4
    assert torch.equal(fused[0, 1, 2], torch.zeros(d_v, dtype=torch.float64))
    assert torch.isfinite(out).all() and torch.isfinite(fused).all()


@pytest.mark.parametrize('shapes', [
    ((3, 8), (5, 8), (5, 4)),                 # no batch dims
    ((2, 3, 8), (2, 5, 8), (2, 5, 6)),        # (B, n, d)
    ((2, 4, 3, 8), (1, 4, 5, 8), (1, 4, 5, 8)),  # k, v broadcast over the batch
    ((2, 4, 1, 16), (2, 4, 7, 16), (2, 4, 7, 2)),  # one query (a decoding step)
])
def test_shapes_and_broadcasting(shapes):
    g = _gen(3)
    q, k, v = (torch.randn(*s, generator=g, dtype=torch.float64) for s in shapes)
    out, w = attention(q, k, v)
    batch = torch.broadcast_shapes(q.shape[:-2], k.shape[:-2])
    assert out.shape == batch + (q.shape[-2], v.shape[-1]) and w.shape == batch + (q.shape[-2], k.shape[-2])
    torch.testing.assert_close(out, F.scaled_dot_product_attention(q, k, v))


def test_float32_and_bfloat16_parity():
    q, k, v = qkv(dtype=torch.float32)
    m = tgt_mask(TOKS)
    torch.testing.assert_close(F.scaled_dot_product_attention(q, k, v, attn_mask=m), attention(q, k, v, m)[0],
                               rtol=1e-5, atol=1e-5)
    qb, kb, vb = q.bfloat16(), k.bfloat16(), v.bfloat16()
    ref = attention(q, k, v, m)[0]
    torch.testing.assert_close(attention(qb, kb, vb, m)[0].float(), ref, rtol=0, atol=5e-2)
    torch.testing.assert_close(F.scaled_dot_product_attention(qb, kb, vb, attn_mask=m).float(), ref, rtol=0, atol=5e-2)


# ---------------------------------------------------------------- parity: gradients
def grads(f, q, k, v, mask, g):
    ts = [t.detach().clone().requires_grad_() for t in (q, k, v)]
    (f(*ts, mask) * g).sum().backward()
    return [t.grad for t in ts]


@pytest.mark.parametrize('kind', MASKS)
def test_gradients_match(kind):
    q, k, v = qkv()
    mask = make_mask(kind)
    if kind == 'empty-row' and not SDPA_ZERO_ROWS:
        pytest.skip("torch < 2.5: PyTorch's SDPA gives NaN for a query that may attend to no key, so no gradient to compare")
    g = torch.randn(B, h, n, d_v, generator=_gen(2), dtype=torch.float64)
    ga = grads(lambda *a: attention(*a)[0], q, k, v, mask, g)
    gs = grads(lambda q, k, v, m: F.scaled_dot_product_attention(q, k, v, attn_mask=m), q, k, v, mask, g)
    for a, s in zip(ga, gs):
        assert torch.isfinite(a).all() and torch.isfinite(s).all()
        torch.testing.assert_close(a, s, rtol=0, atol=1e-10)


def test_gradcheck_explicit_path():
    q, k, v = (t[:1, :1, :3].clone().requires_grad_() for t in qkv())
    m = causal_mask(3)
    assert torch.autograd.gradcheck(lambda q, k, v: attention(q, k, v, m)[0], (q, k, v))


# ---------------------------------------------------------------- the mask convention
@pytest.mark.parametrize('fn', [lambda *a: attention(*a)[0], sdpa], ids=['attention', 'sdpa'])
def test_masked_keys_have_no_influence(fn):
    q, k, v = qkv()
    m = pad_mask(TOKS)                              # batch 0: keys 3 and 4 are padding
    out = fn(q, k, v, m)
    k2, v2 = k.clone(), v.clone()
    k2[0, :, 3:], v2[0, :, 3:] = 50., -1e3
    torch.testing.assert_close(fn(q, k2, v2, m), out, rtol=0, atol=1e-12)
    v3 = v.clone(); v3[0, :, 0] += 1.               # an allowed value does matter
    assert (fn(q, k, v3, m)[0] - out[0]).abs().amax() > 1e-3
    assert (fn(q, k, v, ~m)[0] - out[0]).abs().amax() > 1e-3   # a flipped mask is not the same mask (batch 0: every
                                                                # query still sees a key, 3 and 4)


@pytest.mark.parametrize('fn', [lambda *a: attention(*a)[0], sdpa], ids=['attention', 'sdpa'])
def test_causal_mask_hides_the_future(fn):
    T = 6
    x = torch.randn(1, T, 8, generator=_gen(4), dtype=torch.float64)
    out = fn(x, x, x, causal_mask(T)[0])
    for t in range(T):
        x2 = x.clone(); x2[0, t] += 1.0
        out2 = fn(x2, x2, x2, causal_mask(T)[0])
        torch.testing.assert_close(out2[0, :t], out[0, :t], rtol=0, atol=1e-12)
        assert ((out2[0, t:] - out[0, t:]).abs().amax(-1) > 1e-6).all()


def test_mask_builders():
    assert pad_mask(TOKS).shape == (2, 1, 1, 5) and pad_mask(TOKS).dtype == torch.bool
    assert pad_mask(TOKS)[0, 0, 0].tolist() == [True, True, True, False, False]
    assert causal_mask(4).shape == (1, 1, 4, 4)
    assert torch.equal(causal_mask(4)[0, 0], torch.tensor([[j <= i for j in range(4)] for i in range(4)]))
    assert causal_mask(0).shape == (1, 1, 0, 0)
    tm = tgt_mask(TOKS)
    assert tm.shape == (2, 1, 5, 5)
    assert torch.equal(tm, pad_mask(TOKS) & causal_mask(5))
    assert tm[0, 0, 4].tolist() == [True, True, True, False, False]


def test_masked_softmax():
    s = torch.randn(3, 4, generator=_gen(5))
    m = torch.tensor([[1, 1, 0, 1], [0, 0, 0, 0], [1, 1, 1, 1]], dtype=torch.bool)
    w = masked_softmax(s, m)
    torch.testing.assert_close(w[0, [0, 1, 3]], s[0, [0, 1, 3]].softmax(-1))
    assert w[0, 2] == 0 and torch.equal(w[1], torch.zeros(4))
    torch.testing.assert_close(w[2], s[2].softmax(-1))
    torch.testing.assert_close(masked_softmax(s), s.softmax(-1))


def test_nan_inputs_are_not_hidden():
    "A NaN from a bug upstream must propagate, not be silently turned into zeros by the masking code."
    q, k, v = qkv()
    q[0, 0, 0, 0] = float('nan')
    for m in (None, pad_mask(TOKS)):
        assert attention(q, k, v, m)[0][0, 0, 0].isnan().all()
        assert F.scaled_dot_product_attention(q, k, v, attn_mask=m)[0, 0, 0].isnan().all()


def test_dropout_acts_on_the_weights():
    q, k, v = qkv()
    drop = nn.Dropout(0.5)
    torch.manual_seed(0)
    _, w = attention(q, k, v, dropout=drop)
    _, w0 = attention(q, k, v)
    kept = w != 0
    assert 0.3 < kept.double().mean() < 0.7
    torch.testing.assert_close(w[kept], 2 * w0[kept])
    drop.eval()
    torch.testing.assert_close(attention(q, k, v, dropout=drop)[1], w0)
    torch.manual_seed(0)
    dropped = F.scaled_dot_product_attention(q, k, v, dropout_p=0.5)
    assert not torch.allclose(dropped, F.scaled_dot_product_attention(q, k, v))
    torch.manual_seed(0)
    torch.testing.assert_close(F.scaled_dot_product_attention(q, k, v, dropout_p=0.5), dropped)   # seeded: reproducible


# ---------------------------------------------------------------- float masks
def test_float_masks_are_additive_in_pytorch():
    "A float attn_mask is a bias added to the scores (not a keep mask): -inf drops a key, 1.0 only shifts it."
    q, k, v = qkv()
    m = pad_mask(TOKS)
    bias = torch.zeros(m.shape, dtype=torch.float64).masked_fill(~m, float('-inf'))
    torch.testing.assert_close(F.scaled_dot_product_attention(q, k, v, attn_mask=bias), attention(q, k, v, m)[0],
                               rtol=0, atol=1e-12)
    b = torch.randn(B, h, n, n, generator=_gen(8), dtype=torch.float64)
    by_hand = ((q @ k.mT) / math.sqrt(d_k) + b).softmax(-1) @ v
    torch.testing.assert_close(F.scaled_dot_product_attention(q, k, v, attn_mask=b), by_hand, rtol=0, atol=1e-12)
    wrong = F.scaled_dot_product_attention(q, k, v, attn_mask=m.double())   # a keep mask as floats: +1 / +0, drops nothing
    assert (wrong - attention(q, k, v, m)[0]).abs().amax() > 1e-3


# ---------------------------------------------------------------- bad inputs
# `attention` trusts its inputs: the model's entry points check masks and token ids once (tests/test_model.py).
# Here a wrong input must still fail loudly with PyTorch's own error, never give a silently wrong answer.
@pytest.mark.parametrize('mask,att_err,sdpa_err', [
    (torch.ones(2, 1, 1, 5), TypeError, None),                      # float: `attention` refuses, PyTorch adds it
    (torch.ones(2, 1, 1, 5, dtype=torch.float16), TypeError, RuntimeError),
    (torch.ones(2, 1, 1, 5, dtype=torch.long), RuntimeError, RuntimeError),
    (torch.ones(2, 1, 1, 5, dtype=torch.int32), RuntimeError, RuntimeError),
    (torch.ones(2, 1, 1, 5, dtype=torch.uint8), RuntimeError, RuntimeError),
    ([[True] * 5], TypeError, TypeError),
])
def test_mask_of_wrong_dtype_raises(mask, att_err, sdpa_err):
    q, k, v = qkv()
    with pytest.raises(att_err): attention(q, k, v, mask)
    if sdpa_err is None: return                                      # additive: test_float_masks_are_additive_in_pytorch
    with pytest.raises(sdpa_err): F.scaled_dot_product_attention(q, k, v, attn_mask=mask)


@pytest.mark.parametrize('fn', [lambda *a: attention(*a)[0], sdpa], ids=['attention', 'sdpa'])
@pytest.mark.parametrize('shape', [(2, 1, 1, 4), (2, 1, 1, 6), (2, 1, 3, 5), (3, 1, 1, 5), (2, 2, 5, 5)])
def test_mask_that_does_not_broadcast_raises(fn, shape):
    q, k, v = qkv()
    with pytest.raises(RuntimeError, match='must match the size'): fn(q, k, v, torch.ones(shape, dtype=torch.bool))


@pytest.mark.parametrize('fn', [lambda *a: attention(*a)[0], sdpa], ids=['attention', 'sdpa'])
def test_mismatched_qkv_raise(fn):
    g = _gen(6)
    q, k, v = torch.randn(2, 3, 8, generator=g), torch.randn(2, 5, 8, generator=g), torch.randn(2, 5, 4, generator=g)
    with pytest.raises(RuntimeError): fn(q, k[..., :7], v)                          # d_k of q and k differ
    with pytest.raises(RuntimeError): fn(q, k, v[:, :4])                            # 5 keys, 4 values
    with pytest.raises(RuntimeError): fn(q, torch.randn(3, 5, 8), torch.randn(3, 5, 4))   # batches do not broadcast
    with pytest.raises(RuntimeError): fn(q.long(), k, v)
    with pytest.raises((TypeError, AttributeError)): fn(q.tolist(), k, v)


def test_bad_dropout_raises():
    q, k, v = qkv()
    with pytest.raises(RuntimeError, match='1.5'): F.scaled_dot_product_attention(q, k, v, dropout_p=1.5)
    with pytest.raises(TypeError, match="'float' object is not callable"): attention(q, k, v, dropout=0.1)


def test_bad_mask_builder_inputs_raise():
    with pytest.raises(IndexError): pad_mask(torch.tensor([1, 2, 3, 0, 0]))        # (n,): no batch dimension
    with pytest.raises(RuntimeError): tgt_mask(torch.ones(1, 2, 3, dtype=torch.long))
    with pytest.raises(RuntimeError, match='-2'): causal_mask(-2)


# ---------------------------------------------------------------- additive attention
def test_additive_attention_matches_hand_computation():
    torch.manual_seed(0)
    add = AdditiveAttention(6, d_k=8, d_hidden=10).double()
    g = _gen(7)
    q, k, v = (torch.randn(2, 3, 6, generator=g, dtype=torch.float64), torch.randn(2, 5, 8, generator=g, dtype=torch.float64),
               torch.randn(2, 5, 4, generator=g, dtype=torch.float64))
    m = pad_mask(torch.tensor([[1, 1, 1, 0, 0], [1, 1, 1, 1, 1]]))[:, 0]
    out, w = add(q, k, v, m)
    assert out.shape == (2, 3, 4) and w.shape == (2, 3, 5)
    Wq, Wk, b, wv = add.w_q.weight, add.w_k.weight, add.w_k.bias, add.w.weight[0]
    for bb in range(2):
        for i in range(3):
            js = [j for j in range(5) if m[bb, 0, j]]
            e = torch.stack([wv @ torch.tanh(Wq @ q[bb, i] + Wk @ k[bb, j] + b) for j in js])
            a = e.softmax(-1)
            torch.testing.assert_close(w[bb, i, js], a)
            torch.testing.assert_close(out[bb, i], (a[:, None] * v[bb, js]).sum(0))
    assert (w[0, :, 3:] == 0).all()
    torch.testing.assert_close(w.sum(-1), torch.ones(2, 3, dtype=torch.float64))


def test_additive_attention_masking_grads_and_errors():
    add = AdditiveAttention(8)
    q, k, v = qkv(dtype=torch.float32)
    m = tgt_mask(TOKS)
    out, w = add(q, k, v, m)
    assert out.shape == (B, h, n, d_v) and (w[~m.expand_as(w)] == 0).all()
    v2 = v.clone(); v2[0, :, 3:] = 1e3
    torch.testing.assert_close(add(q, k, v2, m)[0], out, rtol=0, atol=0)
    out.sum().backward()
    assert all(p.grad is not None and p.grad.abs().sum() > 0 for p in add.parameters())
    with pytest.raises(ValueError, match=r'\(2, 3, 5, 7\)'): add(q[..., :7], k, v)
    with pytest.raises(ValueError, match=r'\(2, 3, 5, 9\)'): add(q, torch.randn(B, h, n, 9), v)
    with pytest.raises(TypeError): add(q, k, v, m.float())                    # masks are bool (PyTorch's own error)
    with pytest.raises(RuntimeError): add(q, k, v, m[..., :4])               # a mask that does not broadcast
    for kw, needle in [(dict(d_q=0), 'd_q=0'), (dict(d_q=4, d_hidden=-1), 'd_hidden=-1'), (dict(d_q=4.0), 'd_q=4.0')]:
        with pytest.raises(ValueError, match=needle): AdditiveAttention(**kw)


# ---------------------------------------------------------------- the 1/sqrt(d_k) experiment
def test_scaling_experiment():
    r = scaling_experiment(d_ks=(1, 16, 256), n_q=128, n_k=16, seed=1)
    torch.testing.assert_close(r['var'] / r['d_k'], torch.ones(3), rtol=0, atol=0.15)
    torch.testing.assert_close(r['var_scaled'], torch.ones(3), rtol=0, atol=0.15)
    assert r['entropy'][-1] < 0.5 * r['entropy_scaled'][-1]
    assert r['max_w'][-1] > 0.8 > r['max_w_scaled'][-1]
    assert r['grad'][-1] < 0.1 * r['grad_scaled'][-1]
    assert (r['entropy_scaled'] <= math.log(16)).all()


# ---------------------------------------------------------------- additive vs dot product as d_k grows
def test_additive_scores_are_the_logits_of_the_weights():
    torch.manual_seed(0)
    add = AdditiveAttention(6, d_k=8, d_hidden=10)
    q, k, v = torch.randn(2, 3, 6), torch.randn(2, 5, 8), torch.randn(2, 5, 4)
    torch.testing.assert_close(add.scores(q, k).softmax(-1), add(q, k, v)[1])
    assert add.scores(q, k).shape == (2, 3, 5)


def test_retrieval_scorers():
    q, k = torch.randn(3, 1, 8), torch.randn(3, 16, 8)
    torch.manual_seed(0); dot = _RetrievalScorer('dot', 8, 16)
    torch.manual_seed(0); scaled = _RetrievalScorer('scaled', 8, 16)
    torch.testing.assert_close(scaled(q, k) * 4, dot(q, k))                  # 1/sqrt(16)
    add = _RetrievalScorer('additive', 8, 16)
    torch.testing.assert_close(add(q, k), add.add.scores(q, k))
    assert add.add.d_hidden == 16 and add(q, k).shape == (3, 1, 16)
    for m in (dot, add):                                                      # unit-variance projections
        w = m.w_q.weight if m is dot else m.add.w_q.weight
        assert abs(w.std().item() - 8 ** -0.5) < 0.05
    with pytest.raises(ValueError, match="'cosine'"): _RetrievalScorer('cosine', 8, 4)
    with pytest.raises(ValueError, match="'lbfgs'"): retrieval_experiment(opt='lbfgs')


def test_retrieval_experiment_learns_and_is_reproducible():
    kw = dict(kinds=('dot', 'scaled'), d_ks=(16,), seeds=(0,), steps=60, n_test=300)
    r = retrieval_experiment(**kw)
    assert r['acc']['scaled'].shape == (1, 1) and r['chance'] == 1 / 16
    assert r['acc']['scaled'].item() > 3 * r['chance']                       # far above chance after 60 updates
    assert 0.9 < r['ideal_acc'] <= 1
    assert torch.equal(retrieval_experiment(**kw)['acc']['dot'], r['acc']['dot'])   # same seeds, same numbers


# ---------------------------------------------------------------- GPU (skipped here)
@pytest.mark.skipif(not torch.cuda.is_available(), reason='needs CUDA')
def test_cuda_parity():
    q, k, v = (t.float().cuda() for t in qkv())
    m = tgt_mask(TOKS.cuda())
    torch.testing.assert_close(F.scaled_dot_product_attention(q, k, v, attn_mask=m), attention(q, k, v, m)[0],
                               rtol=1e-4, atol=1e-4)
    qh, kh, vh = q.half(), k.half(), v.half()
    torch.testing.assert_close(F.scaled_dot_product_attention(qh, kh, vh, attn_mask=m).float(), attention(q, k, v, m)[0],
                               rtol=0, atol=2e-2)

