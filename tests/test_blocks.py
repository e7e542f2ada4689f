"The building blocks of §3.3-3.5: FFN parity with Conv1d and a reference, weight tying, positional encodings, bad inputs."
import math
import numpy as np
import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F

from transformer_nb.ffn import FeedForward, ffn_as_conv1d
from transformer_nb.embeddings import Embeddings, Generator, tie_weights
from transformer_nb.positional import sinusoidal_encoding, pe_frequencies, pe_shift_matrix, SinusoidalPositionalEncoding, LearnedPositionalEmbedding
from transformer_nb.lib.transformer import FFNDropout, Positions

torch.set_num_threads(1)


@pytest.fixture(autouse=True)
def seed():
    torch.manual_seed(0)


# ---------------------------------------------------------------- §3.3 feed-forward

def numpy_ffn(x, ffn):
    "max(0, x W1 + b1) W2 + b2 written out in NumPy (float64)."
    W1, b1 = ffn.w_1.weight.detach().double().numpy().T, ffn.w_1.bias.detach().double().numpy()
    W2, b2 = ffn.w_2.weight.detach().double().numpy().T, ffn.w_2.bias.detach().double().numpy()
    return np.maximum(0, x @ W1 + b1) @ W2 + b2


@pytest.mark.parametrize("d_model,d_ff,shape", [(16, 64, (2, 5)), (32, 128, (1, 1)), (8, 8, (3, 7)), (12, 48, (4,))])
def test_ffn_matches_numpy_reference(d_model, d_ff, shape):
    ffn = FeedForward(d_model, d_ff)
    x = torch.randn(*shape, d_model)
    ref = numpy_ffn(x.double().numpy(), ffn)
    np.testing.assert_allclose(ffn(x).detach().double().numpy(), ref, rtol=1e-5, atol=1e-5)


def test_ffn_equals_two_kernel_size_1_convolutions_values_and_grads():
    ffn = FeedForward(16, 64)
    conv = ffn_as_conv1d(ffn)
    assert [type(m) for m in conv] == [nn.Conv1d, nn.ReLU, nn.Conv1d]
    assert conv[0].kernel_size == (1,) and conv[2].kernel_size == (1,)
    x1 = torch.randn(3, 9, 16, requires_grad=True)
    x2 = x1.detach().clone().requires_grad_()
    y_ffn = ffn(x1)
    y_conv = conv(x2.transpose(1, 2)).transpose(1, 2)          # (B, d, n) layout for Conv1d
    torch.testing.assert_close(y_conv, y_ffn, rtol=1e-5, atol=1e-5)
    g = torch.randn_like(y_ffn)
    y_ffn.backward(g); y_conv.backward(g)
    torch.testing.assert_close(x2.grad, x1.grad, rtol=1e-5, atol=1e-5)
    torch.testing.assert_close(conv[0].weight.grad[:, :, 0], ffn.w_1.weight.grad, rtol=1e-5, atol=1e-5)
    torch.testing.assert_close(conv[2].bias.grad, ffn.w_2.bias.grad, rtol=1e-5, atol=1e-5)


def test_ffn_conv_copy_is_independent():
    "The converted network holds copies: changing it does not change the FFN."
    ffn = FeedForward(8, 16)
    before = ffn.w_1.weight.detach().clone()
    conv = ffn_as_conv1d(ffn)
    with torch.no_grad(): conv[0].weight.add_(1.0)
    torch.testing.assert_close(ffn.w_1.weight.detach(), before)


def test_ffn_is_position_wise():
    ffn = FeedForward(16, 64)
    x = torch.randn(2, 6, 16)
    sep = torch.stack([ffn(x[:, i]) for i in range(6)], dim=1)
    torch.testing.assert_close(sep, ffn(x), rtol=1e-6, atol=1e-6)
    perm = torch.randperm(6)
    torch.testing.assert_close(ffn(x[:, perm]), ffn(x)[:, perm], rtol=1e-6, atol=1e-6)


def test_ffn_base_parameter_count_and_defaults():
    with torch.device('meta'): ffn = FeedForward()
    assert ffn.w_1.weight.shape == (2048, 512) and ffn.w_2.weight.shape == (512, 2048)
    assert sum(p.numel() for p in ffn.parameters()) == 2 * 512 * 2048 + 2048 + 512 == 2_099_712


def test_ffn_inner_dropout_only_in_training():
    ffn = FFNDropout(FeedForward(16, 64), 0.5)
    x = torch.randn(2, 5, 16)
    ffn.eval()
    torch.testing.assert_close(ffn(x), torch.from_numpy(numpy_ffn(x.double().numpy(), ffn)).float(), rtol=1e-5, atol=1e-5)
    y_eval = ffn(x)
    y_train = ffn.train()(x)
    assert not torch.allclose(y_train, y_eval)


@pytest.mark.parametrize("p", [1.0, 1.5, -0.1, -1])
def test_ffn_rejects_dropout_outside_unit_interval(p):
    with pytest.raises(ValueError, match=rf"p_ffn={p}"):
        FFNDropout(FeedForward(16, 64), p)


# ---------------------------------------------------------------- §3.4 embeddings and tying

def test_embeddings_scale_and_init():
    d = 256
    emb = Embeddings(2000, d, pad_id=None)
    ids = torch.arange(2000)
    torch.testing.assert_close(emb(ids), emb.lut.weight[ids] * math.sqrt(d))
    assert abs(emb.lut.weight.std().item() - d ** -0.5) < 0.02 * d ** -0.5
    assert abs(emb(ids).std().item() - 1.0) < 0.02                   # unit-scale entries after the sqrt(d_model)
    assert Embeddings(10, 8).lut.weight[0].abs().sum() == 0          # PAD_ID row starts at zero


def test_embeddings_bad_ids_and_dtypes():
    "Embeddings trust their ids (the model's entry points name a bad one, tests/test_model.py): PyTorch's own errors."
    emb = Embeddings(10, 8)
    for bad in (10, 11, -1, 1000):
        with pytest.raises(IndexError, match="index out of range"):
            emb(torch.tensor([[1, 2, bad]]))
    with pytest.raises(RuntimeError, match="FloatTensor"):
        emb(torch.tensor([[1.0, 2.0]]))
    assert emb(torch.zeros(0, 3, dtype=torch.long)).shape == (0, 3, 8)   # empty batches are fine


def test_generator_is_a_bias_free_linear_map():
    gen = Generator(8, 10)
    h = torch.randn(2, 3, 8)
    torch.testing.assert_close(gen(h), h @ gen.proj.weight.T)
    assert gen.proj.bias is None


def test_tying_is_one_tensor_counted_once():
    src, tgt, gen = Embeddings(10, 8), Embeddings(10, 8), Generator(8, 10)
    W = tie_weights(src, tgt, gen)
    assert src.lut.weight is W and tgt.lut.weight is W and gen.proj.weight is W
    model = nn.ModuleList([src, tgt, gen])
    assert len(list(model.parameters())) == 1
    # an optimiser step through the shared tensor is seen by all three uses
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    gen(torch.randn(1, 2, 8)).sum().backward(); opt.step()
    assert src.lut.weight is gen.proj.weight


def test_tied_gradient_is_sum_of_the_three_uses():
    "Tied: one backward over all three paths. Untied copies with the same values: the three grads must add up to it."
    V, d = 12, 8
    src, tgt, gen = Embeddings(V, d), Embeddings(V, d), Generator(d, V)
    W = tie_weights(src, tgt, gen)
    s_ids, t_ids, h = torch.tensor([[4, 5, 6, 0]]), torch.tensor([[2, 7, 7, 3, 11]]), torch.randn(1, 5, d)

    def losses(s, t, g):
        return [s(s_ids).pow(2).sum(), t(t_ids).tanh().sum(), F.cross_entropy(g(h).view(-1, V), t_ids.view(-1))]

    sum(losses(src, tgt, gen)).backward()
    tied_grad = W.grad.clone()

    copies = [Embeddings(V, d), Embeddings(V, d), Generator(d, V)]
    mats = [copies[0].lut, copies[1].lut, copies[2].proj]
    with torch.no_grad():
        for m in mats: m.weight.copy_(W)
    for loss in losses(*copies): loss.backward()
    grads = [m.weight.grad for m in mats]
    for g in grads: assert g.abs().sum() > 0                      # every path reaches the matrix
    torch.testing.assert_close(tied_grad, sum(grads))
    assert grads[0][0].abs().sum() == 0                            # the padding row gets nothing from the embedding...
    assert grads[2][0].abs().sum() > 0                             # ...but the generator scores it


# ---------------------------------------------------------------- §3.5 positional encodings

def numpy_pe(n, d_model, start=0):
    "PE(pos, 2i) = sin(pos / 10000^(2i/d)), PE(pos, 2i+1) = cos(...), written independently in NumPy."
    pe = np.zeros((n, d_model))
    for pos in range(start, start + n):
        for i in range(d_model // 2):
            angle = pos / np.power(10000.0, 2 * i / d_model)
            pe[pos - start, 2 * i] = np.sin(angle)
            pe[pos - start, 2 * i + 1] = np.cos(angle)
    return pe


@pytest.mark.parametrize("n,d_model,start", [(50, 16, 0), (20, 64, 0), (10, 32, 123), (3, 512, 5000), (1, 2, 7)])
def test_sinusoidal_matches_numpy_reference(n, d_model, start):
    ref = numpy_pe(n, d_model, start)
    np.testing.assert_allclose(sinusoidal_encoding(start + n, d_model)[start:].numpy(), ref, atol=1e-12)
    np.testing.assert_allclose(sinusoidal_encoding(start + n, d_model)[start:].float().numpy(), ref, atol=1e-6)


def test_sinusoidal_module_matches_reference_past_max_len():
    spe = Positions(SinusoidalPositionalEncoding(32, max_len=16))
    x = torch.zeros(2, 100, 32)
    np.testing.assert_allclose(spe(x)[1].numpy(), numpy_pe(100, 32), atol=1e-6)
    np.testing.assert_allclose(spe(torch.zeros(1, 4, 32), start=300)[0].numpy(), numpy_pe(4, 32, 300), atol=1e-6)
    assert list(spe.state_dict()) == []


def test_sinusoidal_incremental_equals_full():
    "Adding positions chunk by chunk with `start` (a decoder with a cache) equals one pass."
    spe = Positions(SinusoidalPositionalEncoding(16, max_len=4))
    x = torch.randn(2, 11, 16)
    chunks, s = [], 0
    for n in [1, 3, 1, 6]:
        chunks.append(spe(x[:, s:s + n], start=s)); s += n
    torch.testing.assert_close(torch.cat(chunks, 1), spe(x))


@pytest.mark.parametrize("d_model", [2, 16, 64, 512])
def test_rotation_property(d_model):
    pe = sinusoidal_encoding(400, d_model)
    gen = torch.Generator().manual_seed(d_model)
    for k in torch.randint(-150, 150, (6,), generator=gen).tolist() + [0, 1]:
        M = pe_shift_matrix(k, d_model)
        pos = torch.arange(max(0, -k), min(400, 400 - k))          # every pos with pos and pos+k in range
        torch.testing.assert_close(pe[pos] @ M.T, pe[pos + k], rtol=0, atol=1e-9)
        # block diagonal: only 2x2 blocks on the diagonal are non-zero
        mask = torch.block_diag(*[torch.ones(2, 2)] * (d_model // 2)).bool()
        assert (M[~mask] == 0).all()
        torch.testing.assert_close(M @ M.T, torch.eye(d_model, dtype=torch.float64), rtol=0, atol=1e-12)


def test_dot_product_depends_only_on_offset():
    d = 64
    pe = sinusoidal_encoding(300, d)
    for k in [0, 1, 5, 40]:
        dots = (pe[:300 - k] * pe[k:]).sum(-1)
        torch.testing.assert_close(dots, torch.full_like(dots, torch.cos(k * pe_frequencies(d)).sum().item()))


def test_learned_positions():
    lpe = Positions(LearnedPositionalEmbedding(16, max_len=8))
    x = torch.randn(2, 8, 16)
    torch.testing.assert_close(lpe(x), x + lpe.emb.weight)
    torch.testing.assert_close(lpe(x[:, 3:5], start=3), lpe(x)[:, 3:5])


# ---------------------------------------------------------------- bad inputs, each named in the message

@pytest.mark.parametrize("d_model", [7, 15, 0, -4])
def test_odd_or_nonpositive_d_model_for_sinusoidal(d_model):
    from transformer_nb.lib.options import ModelConfig
    with pytest.raises(ValueError, match=rf"d_model={d_model}"):
        ModelConfig(d_model=d_model, h=1, d_k=4)


def test_learned_positions_past_max_len():
    lpe = Positions(LearnedPositionalEmbedding(16, max_len=8))
    with pytest.raises(ValueError, match="max_len=8"):
        lpe(torch.zeros(1, 9, 16))
    with pytest.raises(ValueError, match="max_len=8"):
        lpe(torch.zeros(1, 2, 16), start=7)


@pytest.mark.parametrize("module", [Positions(SinusoidalPositionalEncoding(16, 8)), Positions(LearnedPositionalEmbedding(16, 8))])
def test_positional_bad_start_and_width(module):
    "The modules trust `start` and the width (the model passes its own): a wrong one is PyTorch's size error."
    with pytest.raises(RuntimeError, match="must match the size"):
        module(torch.zeros(1, 2, 16), start=-1)
    with pytest.raises(RuntimeError, match=r"\(12\) must match the size of tensor b \(16\)"):
        module(torch.zeros(1, 2, 12))


def test_bad_positional_kind_and_negative_positions():
    from transformer_nb.lib.options import ModelConfig
    with pytest.raises(ValueError, match="'rotary'"):
        ModelConfig(pos='rotary')
