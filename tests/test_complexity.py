"Why self-attention (§4, Table 1): FLOP formulas, crossover, benchmark records, path lengths, restricted masks."
import math
import pytest
import torch
import torch.nn as nn
from transformer_nb.complexity import (layer_flops, local_mask, CausalConv1d, SelfAttentionLayer, RecurrentLayer,
                                       path_gradient, max_path_length)
from transformer_nb.lib.speed import module_flops, benchmark_layers, timing_table, make_any_layer, _AnyLayerKind
from typing import get_args

torch.set_num_threads(1)


@pytest.mark.parametrize('n,d,k,r', [(1, 1, 1, 1), (30, 512, 3, 5), (100, 64, 5, 16), (7, 13, 2, 100)])
def test_layer_flops_formulas(n, d, k, r):
    f = layer_flops(n, d, k, r)
    assert f == {'self-attention': 4*n*n*d, 'recurrent': 4*n*d*d, 'convolutional': 2*k*n*d*d,
                 'restricted': 4*min(r, n)*n*d}
    assert all(isinstance(v, int) for v in f.values())


def test_self_attention_is_n2d_times_constant():
    d = 32
    for n in (1, 2, 10, 77):
        assert layer_flops(n, d)['self-attention'] == 4 * n**2 * d
    # doubling n quadruples self-attention, doubles recurrence; doubling d does the reverse
    a, b = layer_flops(50, 40), layer_flops(100, 40)
    assert b['self-attention'] == 4*a['self-attention'] and b['recurrent'] == 2*a['recurrent']
    c = layer_flops(50, 80)
    assert c['self-attention'] == 2*a['self-attention'] and c['recurrent'] == 4*a['recurrent']


@pytest.mark.parametrize('d', [8, 64, 512, 1024])
def test_crossover_at_n_equals_d(d):
    cheaper = [n for n in range(1, 2*d) if layer_flops(n, d)['self-attention'] < layer_flops(n, d)['recurrent']]
    assert cheaper == list(range(1, d))
    assert layer_flops(d, d)['self-attention'] == layer_flops(d, d)['recurrent']


def testmodule_flops_crossover_with_lstm_at_2d():
    d = 48
    cheaper = [n for n in range(1, 4*d) if module_flops('self-attention', n, d) < module_flops('lstm', n, d)]
    assert cheaper == list(range(1, 2*d))
    assert module_flops('rnn', 9, d) == layer_flops(9, d)['recurrent']
    assert module_flops('gru', 9, d) == 3 * module_flops('rnn', 9, d)
    assert module_flops('restricted', 100, d, r=10) == 8*100*d*d + 4*10*100*d


@pytest.mark.parametrize('call,msg', [
    (lambda: module_flops('cnn', 8, 8), "'cnn'"), (lambda: module_flops('rnn', 0, 8), 'n=0'), (lambda: module_flops('rnn', 8, -2), 'd_model=-2'),
    (lambda: module_flops('restricted', 8, 8, r=0), 'r=0'), (lambda: make_any_layer('transformer', 8), "'transformer'"),
    (lambda: benchmark_layers([]), 'ns=[] must hold at least one sequence length'), (lambda: benchmark_layers([8], repeats=0), 'repeats=0')])
def test_bad_input_names_the_value(call, msg):
    with pytest.raises(ValueError, match=None) as e: call()
    assert msg in str(e.value)


def test_benchmark_structure():
    old = torch.get_num_threads()
    recs = benchmark_layers([4, 12], d_model=8, kinds=('self-attention', 'gru', 'conv', 'restricted'), batch=1,
                            repeats=2, threads=1)
    assert torch.get_num_threads() == old
    assert [(r['layer'], r['n']) for r in recs] == [(k, n) for k in ('self-attention', 'gru', 'conv', 'restricted')
                                                    for n in (4, 12)]
    for r in recs:
        assert set(r) == {'layer', 'n', 'd_model', 'batch', 'seconds', 'min_seconds'}
        assert 0 < r['min_seconds'] <= r['seconds']
        assert r['d_model'] == 8 and r['batch'] == 1
        assert isinstance(r['seconds'], float) and 0 < r['seconds'] < 10
    lines = timing_table(recs).splitlines()
    assert len(lines) == 3 and lines[0].split()[2:] == ['self-attention', 'gru', 'conv', 'restricted']


def test_layers_keep_shape():
    x = torch.randn(3, 9, 16)
    for layer in (SelfAttentionLayer(16), SelfAttentionLayer(16, r=4), RecurrentLayer(16), CausalConv1d(16)):
        assert layer(x).shape == x.shape
    for kind in get_args(_AnyLayerKind):
        layer = make_any_layer(kind, 16)
        assert not layer.training and layer(x).shape == x.shape


def test_library_layers_equal_the_main_lines():
    "make_any_layer's layers hold the main line's parameters and give its outputs (the path gradient included)."
    x = torch.randn(1, 7, 8, dtype=torch.float64)
    for kind, paper in (('lstm', lambda: RecurrentLayer(8)), ('self-attention', lambda: SelfAttentionLayer(8)),
                        ('restricted', lambda: SelfAttentionLayer(8, r=4)), ('conv', lambda: CausalConv1d(8))):
        torch.manual_seed(1); a = paper().double().eval(); torch.manual_seed(1); b = make_any_layer(kind, 8, r=4).double()
        assert list(a.state_dict()) == list(b.state_dict())
        b.load_state_dict(a.state_dict())
        torch.testing.assert_close(b(x), a(x))
        torch.testing.assert_close(path_gradient(b, x), path_gradient(a, x))


def test_conv_is_causal_and_sees_k_positions():
    k, d, n = 4, 6, 20
    conv = CausalConv1d(d, k)
    ref = nn.Conv1d(d, d, k, padding=k-1)                 # padded both sides; its first n outputs are causal
    ref.load_state_dict(conv.conv.state_dict())
    x = torch.randn(2, n, d)
    torch.testing.assert_close(conv(x), ref(x.transpose(1, 2))[..., :n].transpose(1, 2))


@pytest.mark.parametrize('k,dilation', [(3, 1), (5, 1), (2, 1), (3, 2)])
def test_conv_gradient_is_exactly_zero_beyond_reach(k, dilation):
    n, d = 24, 5
    x = torch.randn(1, n, d, dtype=torch.float64)
    g = path_gradient(CausalConv1d(d, k, dilation).double(), x)     # ||dy_n/dx_j||, j = 0..n-1
    dist = torch.arange(n - 1, -1, -1)
    taps = dist % dilation == 0
    reach = (k - 1) * dilation
    assert (g[dist > reach] == 0).all()
    assert (g[(dist <= reach) & taps] > 0).all() and (g[(dist <= reach) & ~taps] == 0).all()


def test_self_attention_reaches_every_position_in_one_layer():
    n, d = 32, 8
    x = torch.randn(1, n, d, dtype=torch.float64)
    g = path_gradient(SelfAttentionLayer(d).double().eval(), x)
    assert (g > 0).all() and g[0] > 1e-3 * g.max()                  # distance n-1 is not negligible
    g = path_gradient(RecurrentLayer(d).double(), x)
    assert (g > 0).all()                                             # recurrent: reaches, but through n-1 steps


def test_restricted_attention_zero_outside_neighbourhood():
    n, d, r = 20, 8, 5
    x = torch.randn(1, n, d, dtype=torch.float64)
    g = path_gradient(SelfAttentionLayer(d, h=2, r=r).double(), x, pos=10)
    dist = (torch.arange(n) - 10).abs()
    assert (g[dist > r // 2] == 0).all() and (g[dist <= r // 2] > 0).all()


def test_local_mask():
    m = local_mask(9, 5)[0, 0]
    assert m.dtype == torch.bool and m.shape == (9, 9)
    assert m[4].tolist() == [False, False, True, True, True, True, True, False, False]
    assert m.sum().item() == sum(min(i + 2, 8) - max(i - 2, 0) + 1 for i in range(9))
    assert local_mask(6, 12).all()


@pytest.mark.parametrize('n', [2, 3, 9, 10, 28, 100, 1024])
def test_max_path_length(n):
    assert max_path_length('self-attention', n) == 1
    assert max_path_length('recurrent', n) == n
    assert max_path_length('conv', n, k=3) == math.ceil((n - 1) / 2)
    assert 3 ** max_path_length('dilated-conv', n, k=3) >= n > 3 ** (max_path_length('dilated-conv', n, k=3) - 1)
    assert max_path_length('restricted', n, r=8) == math.ceil((n - 1) / 4)


def _min_layers(make, n, d=3, cap=20):
    x = torch.randn(1, n, d, dtype=torch.float64)
    for L in range(1, cap + 1):
        if path_gradient(nn.Sequential(*[make(i) for i in range(L)]).double(), x)[0] > 0: return L


@pytest.mark.parametrize('n,k', [(10, 3), (17, 2), (28, 3)])
def test_stacked_convs_match_path_length(n, k):
    d = 3
    assert _min_layers(lambda i: CausalConv1d(d, k), n) == max_path_length('conv', n, k)
    assert _min_layers(lambda i: CausalConv1d(d, k, dilation=k**i), n) == max_path_length('dilated-conv', n, k)
